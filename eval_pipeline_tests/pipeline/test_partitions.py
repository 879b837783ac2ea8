"""Partition key helpers: rectangles of cases, and keys Dagster would silently drop."""

from __future__ import annotations

import pytest

from eval_pipeline.pipeline.partitions import (
    check_key,
    contiguous_segments,
    covering_segments,
    run_case_key,
    split_key,
    split_segments,
    with_short_ends,
)


def test_contiguous_segments() -> None:
    order = ["a", "b", "c", "d", "e"]
    assert contiguous_segments(order, order) == [("a", "e")]
    assert contiguous_segments(order, ["b", "c", "e"]) == [("b", "c"), ("e", "e")]
    assert contiguous_segments(order, []) == []
    assert contiguous_segments(order, ["zz"]) == []


def test_covering_segments_trim_to_the_work_without_splitting_a_segment() -> None:
    order = ["a", "b", "c", "d", "e", "f"]
    # up-to-date "c" sits inside the span: re-materialized (it reuses) rather than split around
    assert covering_segments(order, order, ["b", "d"]) == [("b", "d")]
    # never more runs than segments of the selection, never a key outside it
    assert covering_segments(order, ["a", "b", "d", "e"], ["a", "e"]) == [("a", "a"), ("e", "e")]
    assert covering_segments(order, order, []) == []
    assert covering_segments(order, ["a", "b"], ["f"]) == []


def test_split_segments_cuts_each_segment_in_order_never_across_segments() -> None:
    order = ["a", "b", "c", "d", "e", "f", "g"]
    assert split_segments(order, [("a", "e"), ("g", "g")], 2) == [
        ["a", "b"],
        ["c", "d"],
        ["e"],
        ["g"],
    ]
    assert split_segments(order, [("b", "d")], 10) == [["b", "c", "d"]]
    assert split_segments(order, [], 3) == []


def test_the_first_and_last_waves_are_split_into_short_ones() -> None:
    waves = [["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]]
    assert with_short_ends(waves, 1) == [["a"], ["b", "c"], ["d", "e", "f"], ["g", "h"], ["i"]]
    assert with_short_ends(waves, 3) == waves, "already short enough"
    assert with_short_ends(waves, 0) == waves
    assert with_short_ends([["a", "b", "c"]], 1) == [["a", "b", "c"]], "one wave stays whole"
    assert with_short_ends([["a", "b"], ["c", "d"]], 1) == [["a"], ["b"], ["c"], ["d"]]
    assert with_short_ends([], 2) == []


def test_split_key_round_trip_uses_dimension_names() -> None:
    key = run_case_key("2026-11-29T020000Z-nightly", "TC_001")
    assert str(key) == "TC_001|2026-11-29T020000Z-nightly"  # dimensions ordered by name
    assert split_key(key) == ("2026-11-29T020000Z-nightly", "TC_001")
    assert split_key(str(key)) == ("2026-11-29T020000Z-nightly", "TC_001")


@pytest.mark.parametrize("bad", ["a|b", "a,b", "", " lead", "x\ny"])
def test_check_key_refuses_keys_dagster_would_drop(bad: str) -> None:
    with pytest.raises(ValueError):
        check_key(bad, "run")


def test_waves_fill_the_bot_and_split_big_evaluations_in_about_eight() -> None:
    from eval_pipeline.settings import Settings

    assert Settings(concurrency=32).cases_per_wave(500) == 128
    assert Settings(concurrency=32).cases_per_wave(10_000) == 1250
    assert Settings(concurrency=8).cases_per_wave(30) == 32  # the demo: one run
    assert Settings(concurrency=8, wave_cases=7).cases_per_wave(10_000) == 7
