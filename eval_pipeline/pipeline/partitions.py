"""Partitions of the graph: a dynamic ``run`` dimension × a dynamic ``case`` dimension."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

from dagster import (
    BetaWarning,
    DynamicPartitionsDefinition,
    MultiPartitionKey,
    MultiPartitionsDefinition,
    MultiToSingleDimensionPartitionMapping,
)

from eval_pipeline.core.keys import check_key as check_key  # the one key rule, for sensors
from eval_pipeline.pipeline.tags import RANGE_END_TAG, RANGE_START_TAG

RUNS = DynamicPartitionsDefinition(name="eval_runs")
CASES = DynamicPartitionsDefinition(name="golden_cases")
RUN_CASE = MultiPartitionsDefinition({"run": RUNS, "case": CASES})

with warnings.catch_warnings():
    warnings.simplefilter("ignore", BetaWarning)  # stable in practice; keeps CLI output clean
    BY_CASE = MultiToSingleDimensionPartitionMapping(partition_dimension_name="case")
    BY_RUN = MultiToSingleDimensionPartitionMapping(partition_dimension_name="run")


def run_case_key(run_key: str, case_id: str) -> MultiPartitionKey:
    return MultiPartitionKey({"run": run_key, "case": case_id})


def range_tags(first: str, last: str) -> dict[str, str]:
    """The tags of one run over the partitions ``first`` to ``last``."""
    return {RANGE_START_TAG: first, RANGE_END_TAG: last}


def case_range_tags(run_key: str, first_case: str, last_case: str) -> dict[str, str]:
    """The tags of one run over the run × [first_case, last_case] rectangle."""
    return range_tags(str(run_case_key(run_key, first_case)), str(run_case_key(run_key, last_case)))


def split_key(key: str | MultiPartitionKey) -> tuple[str, str]:
    """(run, case) of a multi-partition key, built through Dagster rather than string splitting."""
    mpk = key if isinstance(key, MultiPartitionKey) else RUN_CASE.get_partition_key_from_str(key)
    dims = mpk.keys_by_dimension
    return dims["run"], dims["case"]


def contiguous_segments(ordered: Sequence[str], wanted: Iterable[str]) -> list[tuple[str, str]]:
    """Split ``wanted`` keys into (first, last) runs of consecutive keys in ``ordered``.

    A Dagster run over many partitions must be a rectangle: a range per dimension. Selecting a
    non-contiguous set of cases therefore takes one run per contiguous segment.
    """
    want = set(wanted)
    segments: list[tuple[str, str]] = []
    start: str | None = None
    prev: str | None = None
    for key in ordered:
        if key in want:
            start = start or key
            prev = key
        elif start is not None and prev is not None:
            segments.append((start, prev))
            start = prev = None
    if start is not None and prev is not None:
        segments.append((start, prev))
    return segments


def covering_segments(
    ordered: Sequence[str], selected: Iterable[str], todo: Iterable[str]
) -> list[tuple[str, str]]:
    """Runs covering every ``todo`` key: each segment of ``selected`` trimmed to its todo span.

    Up-to-date keys inside a span are materialized again (they reuse their results) rather than
    splitting the run, so there are never more runs than segments of ``selected``.
    """
    position = {key: i for i, key in enumerate(ordered)}
    need = set(todo)
    out = []
    for first, last in contiguous_segments(ordered, selected):
        inside = [k for k in ordered[position[first] : position[last] + 1] if k in need]
        if inside:
            out.append((inside[0], inside[-1]))
    return out


def split_segments(
    ordered: Sequence[str], segments: Iterable[tuple[str, str]], size: int
) -> list[list[str]]:
    """The keys of each (first, last) segment of ``ordered`` in pieces of at most ``size``."""
    position = {key: i for i, key in enumerate(ordered)}
    pieces = []
    for first, last in segments:
        keys = list(ordered[position[first] : position[last] + 1])
        pieces += [keys[i : i + size] for i in range(0, len(keys), size)]
    return pieces


def with_short_ends(waves: Sequence[Sequence[str]], size: int) -> list[list[str]]:
    """``waves`` with the first one's first ``size`` keys and the last one's final ``size`` keys
    split off into waves of their own.

    With ``size`` the chatbot's concurrency, the first wave is answered by the first round of
    questions, asked ahead of every Dagster run, and the wave before the last one has its
    answers a round earlier, so its evaluation hides behind the last wave's calls: after the
    last answer come only the last wave's evaluation and the summary. A single wave stays whole
    (nothing would overlap it).
    """
    out = [list(w) for w in waves]
    if len(out) > 1 and len(out[-1]) > size > 0:
        last = out.pop()
        out += [last[:-size], last[-size:]]
    if len(out) > 1 and len(out[0]) > size > 0:
        first = out.pop(0)
        out[:0] = [first[:size], first[size:]]
    return out
