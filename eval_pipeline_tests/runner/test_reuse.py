"""Reuse by input fingerprint: unchanged inputs cost nothing, changed ones are recomputed."""

from __future__ import annotations

from collections.abc import Sequence

from eval_pipeline.core.lineage.reuse import fingerprint, reuse_or_compute


def test_fingerprint_is_order_and_content_sensitive() -> None:
    assert fingerprint("a", {"x": 1}) == fingerprint("a", {"x": 1})
    assert fingerprint("a", {"x": 1}) != fingerprint("a", {"x": 2})
    assert fingerprint("a", "b") != fingerprint("b", "a")


def test_only_changed_keys_are_computed() -> None:
    computed: list[Sequence[str]] = []

    def compute(keys: Sequence[str]) -> dict[str, dict[str, str]]:
        computed.append(keys)
        return {k: {"new": k} for k in keys}

    previous = {"a": ("fa", {"old": "a"}), "b": ("stale", {"old": "b"})}
    out, reused = reuse_or_compute({"a": "fa", "b": "fb", "c": "fc"}, previous, compute)
    assert reused == {"a"}
    assert computed == [["b", "c"]]
    assert out == {"a": {"old": "a"}, "b": {"new": "b"}, "c": {"new": "c"}}


def test_refresh_recomputes_everything_and_nothing_to_do_computes_nothing() -> None:
    calls: list[Sequence[str]] = []

    def compute(keys: Sequence[str]) -> dict[str, dict[str, str]]:
        calls.append(keys)
        return {k: {} for k in keys}

    _, reused = reuse_or_compute({"a": "f"}, {"a": ("f", {})}, compute, refresh=True)
    assert reused == set() and calls == [["a"]]
    _, reused = reuse_or_compute({"a": "f"}, {"a": ("f", {})}, compute)
    assert reused == {"a"} and len(calls) == 1
