"""The run summary's side of tracing: each case's outcome span and root span, the end-of-run
flush, and the export counts of every Dagster run that traced the run key.

No ``from __future__ import annotations`` here, as in the other modules of the code location.
"""

import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from eval_pipeline.core.models import CaseOutcome
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.summary import TraceExport
from eval_pipeline.core.tracing import attributes as attr
from eval_pipeline.core.tracing.config import TraceSettings, shown_url
from eval_pipeline.core.tracing.spans import ExportCounts, Tracer

CHUNK = 1000  # cases whose answers are read at once


def _seconds(stamp: Any, default: float) -> float:
    try:
        return datetime.fromisoformat(str(stamp)).timestamp()
    except ValueError:
        return default


def trace_outcomes(
    store: ResultsStore,
    tracer: Tracer,
    run_key: str,
    outcomes: Sequence[CaseOutcome],
    reused: Iterable[str],
) -> None:
    """For every case whose result this summary recomputed: an ``outcome`` span, and the case's
    root span, from its chatbot call until now. A case scored again in the same run gets a new
    ``outcome`` span and the same root again (a backend keeps one copy of a span id)."""
    if not tracer.enabled:
        return
    skip = set(reused)
    traced = [o for o in outcomes if o.case_id not in skip]
    for start in range(0, len(traced), CHUNK):
        chunk = traced[start : start + CHUNK]
        answers = store.latest("chatbot_responses", run_key, [o.case_id for o in chunk])
        for outcome in chunk:
            tracer.case_span(
                run_key, outcome.case_id, "outcome", "EVALUATOR", attr.case_outcome(outcome)
            ).end()
            answer = answers.get(outcome.case_id, {})
            now = time.time()
            tracer.case_root(
                run_key,
                outcome.case_id,
                attr.case_root(
                    run_key, outcome.case_id, str(answer.get("question", "")), outcome.tags
                ),
                start_s=_seconds(answer.get("started_at"), now),
                end_s=now,
            )


def export_summary(
    store: ResultsStore,
    traces: TraceSettings | None,
    tracer: Tracer,
    run_key: str,
    run_id: str,
    traced_by: Iterable[str],
) -> TraceExport | None:
    """The bounded end-of-run flush, then what became of the run key's spans in this run and in
    the Dagster runs ``traced_by`` (their tracers recorded it when they ended); None when no
    tracing is configured."""
    if traces is None:
        return None
    store.record_trace_exports(run_id, tracer.flush())
    counts = store.trace_exports_for(run_key, {*traced_by, run_id}) or ExportCounts()
    return TraceExport(
        endpoint=shown_url(traces.url),
        service_name=traces.service_name,
        spans=counts.spans,
        exported=counts.exported,
        failed=counts.failed,
        traces_failed=len(counts.failed_cases),
        failed_cases=sorted(counts.failed_cases)[:20],
        reason=counts.reason,
    )
