"""Run summaries built by hand, for tests that need only a few of their fields."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval_pipeline.core.summary import CaseSummary, RunSummary


def case_summary(case_id: str, *, passed: bool = True, **fields: Any) -> CaseSummary:
    return CaseSummary(case_id=case_id, passed=passed, profile="full", **fields)


def run_summary(
    run_key: str,
    cases: Sequence[CaseSummary] = (),
    *,
    report_path: str = "",
    created_at: str = "2026-01-01T00:00:00+00:00",
    **fields: Any,
) -> RunSummary:
    """A summary of ``cases`` with their counts; the rates and everything else at ``fields``."""
    passed = sum(c.passed for c in cases)
    errored = sum(c.state == "error" for c in cases)
    return RunSummary(
        run_key=run_key,
        created_at=created_at,
        report_path=report_path,
        cases_total=len(cases),
        cases_passed=passed,
        cases_failed=len(cases) - passed - errored,
        cases_error=errored,
        pass_rate=fields.pop("pass_rate", 0.0),
        coverage=fields.pop("coverage", 0.0),
        cases=list(cases),
        **fields,
    )
