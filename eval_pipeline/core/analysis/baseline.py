"""Which earlier run a run is compared with: never one in which the chatbot answered nothing.

A run whose every case failed at the chatbot (unreachable, refused, broken) says nothing about
the chatbot; as a baseline it would make the next real run look like a mass improvement, and
every later regression check meaningless. Its summary is marked ``chatbot_unreachable`` and it is
passed over when the previous run is chosen.
"""

from __future__ import annotations

from eval_pipeline.core.problems import SETTINGS, Problem
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.summary import RunSummary


def got_no_answer(summary: RunSummary) -> bool:
    """Every case of the run failed at its chatbot call (read from the counts, so summaries
    written before the mark existed are judged the same)."""
    total = summary.cases_total
    return total > 0 and summary.error_counts.get("chatbot", 0) >= total


def baseline_run_key(store: ResultsStore, run_key: str, configured: str) -> str | None:
    """``configured`` (``EVAL_BASELINE_RUN``) when set, else the newest other run the chatbot
    answered in; None when there is none."""
    if configured:
        return configured if configured != run_key else None
    for key in reversed(store.run_keys("eval_run")):
        if key == run_key:
            continue
        summary = store.run_summary(key)
        if summary is not None and not got_no_answer(summary):
            return key
    return None


def baseline_problems(store: ResultsStore, configured: str) -> list[Problem]:
    """``EVAL_BASELINE_RUN`` names a run with a summary in which the chatbot answered."""
    summary = store.run_summary(configured)
    if summary is None:
        message = f"no run summary for run key {configured!r} in the results store"
    elif got_no_answer(summary):
        message = f"run {configured!r} got no answer from the chatbot: it cannot be a baseline"
    else:
        return []
    return [Problem(SETTINGS, "EVAL_BASELINE_RUN", message)]
