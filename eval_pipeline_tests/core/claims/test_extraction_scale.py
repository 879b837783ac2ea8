"""Extraction time grows linearly with the answer (#17): per-KB time flat from 1 KB to 10 MB.

Each test measures a small and a large input in the same process with CPU time, so machine load
mostly cancels out, and asserts a ratio with a generous bound. A small input is extracted over
and over until its time is well above the clock's resolution and the noise. Sizes grow step by
step and a test stops at the first step whose per-unit time has blown up, so a quadratic
regression fails in seconds instead of running for hours.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest

from eval_pipeline.core.claims.extract import extract_claims

_MAX_RATIO = 3.0
"""A linear extractor stays near 1; the quadratic one it replaced was 4x at 40 KB against 10 KB."""

ANSWER = """Here is the 2024 scorecard (check-ins 1 January to 31 December 2024):

| Clinic | Visits | Revenue | No-show rate | Avg wait (min) |
|---|---|---|---|---|
| Riverside Clinic | 11,102 | $2.46M | 12.5% | 27.8 |
| Route 66 Urgent Care | 9,511 | $2.39M | 9.4% | 31.2 |
| Clinic 7 Downtown | 6,577 | $1.42M | 13.9% | 22.0 |

Riverside leads on visits, but Route 66 Urgent Care has the lowest no-show rate.
- Riverside Clinic: 412 visits in March 2024, up 14.6% from February, about $96K revenue.
- Clinic 7 Downtown: one in 8 patients missed an appointment (roughly 12%), 2 points below the
  network average of 14.1%; wait times fell from 31 to 27 minutes, nearly 5.0h less per week.
Together the three clinics saw 27,190 visits, between 40 and 45% of them walk-ins. Call
+1-555-123-4567 or write to ops@example.com; see ID 2 and case TC_001 for details.
"""


_MIN_CPU_S = 0.25
"""A 1 KB extraction takes a few milliseconds: one alone is mostly noise."""


def _cpu_per_unit(text: str, size: int) -> float:
    """CPU time of extracting ``text`` per unit of ``size``, over as many extractions as take
    ``_MIN_CPU_S`` (one for large inputs). The cyclic collector is off while it runs: its passes
    cost in proportion to everything the test process holds (earlier tests' objects on the same
    worker), not to what extraction does, and made the 1 MB step flaky in a full run."""
    gc.collect()
    gc.disable()
    try:
        runs, spent, start = 0, 0.0, time.process_time()
        while spent < _MIN_CPU_S:
            extract_claims("c", "q?", text)
            runs += 1
            spent = time.process_time() - start
    finally:
        gc.enable()
    return spent / runs / size


def _per_unit_stays_flat(make: Callable[[int], str], sizes: list[int]) -> list[str]:
    """Per-unit CPU time at each size against the smallest (best of three there); the ratios
    measured, stopping at the first over the bound."""
    base_text = make(sizes[0])
    base = min(_cpu_per_unit(base_text, sizes[0]) for _ in range(3))
    seen = []
    for size in sizes[1:]:
        ratio = _cpu_per_unit(make(size), size) / base
        seen.append(f"{size}: {ratio:.2f}")
        if ratio > _MAX_RATIO:
            break
    return seen


def _repeated(kb: int) -> str:
    size = kb * 1024
    return (ANSWER * (size // len(ANSWER) + 1))[:size]


def test_time_per_kb_is_flat_from_1_kb_to_1_mb() -> None:
    seen = _per_unit_stays_flat(_repeated, [1, 10, 40, 1024])
    assert len(seen) == 3 and all(float(s.split()[1]) <= _MAX_RATIO for s in seen), seen


@pytest.mark.slow
@pytest.mark.timeout(600)  # 10 MB: 100 s of CPU alone, over 300 s of wall time on a busy machine
def test_time_per_kb_is_flat_from_1_kb_to_10_mb() -> None:
    """The issue's upper end: over a minute of CPU here, so 1 MB first stops a regression."""
    seen = _per_unit_stays_flat(_repeated, [1, 1024, 10240])
    assert len(seen) == 2 and all(float(s.split()[1]) <= _MAX_RATIO for s in seen), seen


def test_time_per_number_is_flat_up_to_20000_numbers_on_one_line() -> None:
    def numbers(n: int) -> str:
        return "Values: " + ", ".join(f"{(i * 7919) % 99991:,}" for i in range(n)) + "."

    seen = _per_unit_stays_flat(numbers, [1000, 4000, 20000])
    assert len(seen) == 2 and all(float(s.split()[1]) <= _MAX_RATIO for s in seen), seen


def test_a_sentence_that_never_ends_is_cut_and_still_extracted_whole() -> None:
    text = " ".join(f"the clinic logged {i % 97 + 3} visits and" for i in range(3000))
    contract = extract_claims("c", "q?", text)
    assert [c.value for c in contract.claims] == [float(i % 97 + 3) for i in range(3000)]
