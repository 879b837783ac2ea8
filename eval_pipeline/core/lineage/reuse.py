"""Lineage decides what is recomputed: a result is reused when its input fingerprint is unchanged.

A fingerprint hashes everything a step's output depends on — the step's version, the upstream
records, the relevant configuration, the live data version of the tables read. Dagster computes
staleness but never skips work by itself; this is where the skipping happens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from eval_pipeline.core.hashing import content_hash

K = TypeVar("K")
V = TypeVar("V")


def fingerprint(*parts: Any) -> str:
    return content_hash(list(parts))


def reusable(fingerprint: str, stored: str | None, *, refresh: bool) -> bool:
    """A stored result stands for a computation whose inputs have this fingerprint."""
    return not refresh and stored == fingerprint


def reuse_or_compute(
    fingerprints: Mapping[K, str],
    previous: Mapping[K, tuple[str, V]],
    compute: Callable[[Sequence[K]], Mapping[K, V]],
    *,
    refresh: bool = False,
) -> tuple[dict[K, V], set[K]]:
    """Previous payloads whose fingerprint matches, freshly computed ones for the rest.

    Returns the payload per key and the set of reused keys; ``refresh`` recomputes everything.
    """
    reused = {
        k
        for k, fp in fingerprints.items()
        if reusable(fp, previous[k][0] if k in previous else None, refresh=refresh)
    }
    out = {k: previous[k][1] for k in reused}
    todo = [k for k in fingerprints if k not in reused]
    if todo:
        out.update(compute(todo))
    return out, reused
