"""Run keys: made from a time and a kind, valid by the one key rule, sorting by time."""

from __future__ import annotations

from datetime import UTC, datetime

from eval_pipeline.core.keys import is_valid_key, new_run_key


def test_new_run_key_is_valid_and_sortable() -> None:
    a = new_run_key("nightly", datetime(2026, 11, 29, 2, 0, tzinfo=UTC))
    b = new_run_key("nightly", datetime(2026, 11, 30, 2, 0, tzinfo=UTC))
    assert a == "2026-11-29T020000Z-nightly" and a < b
    assert is_valid_key(new_run_key("manual"))
