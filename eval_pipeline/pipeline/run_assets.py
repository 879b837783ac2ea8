"""The run-level assets: eval_run (weights, gates, comparison, checks) and eval_report.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetCheckSpec,
    AssetDep,
    AssetExecutionContext,
    AssetIn,
    MetadataValue,
    Output,
    PythonObjectDagsterType,
    ResourceParam,
    asset,
)

from eval_pipeline.core.aggregate import for_summary, judge_record, summarize_run
from eval_pipeline.core.analysis.baseline import baseline_run_key, got_no_answer
from eval_pipeline.core.analysis.compare import compare_runs
from eval_pipeline.core.report.claim_results import write_summary
from eval_pipeline.core.report.html import render_report
from eval_pipeline.core.report.viewer import report_url
from eval_pipeline.core.results_store import RUN_WIDE, ResultsStore
from eval_pipeline.core.summary import Calls, Cost, RunSummary
from eval_pipeline.core.tracing.spans import Tracer
from eval_pipeline.pipeline.batch import (
    GROUP,
    IO,
    md_table,
)
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS
from eval_pipeline.pipeline.io_manager import IN_CHUNKS, Batch, StoredRecords
from eval_pipeline.pipeline.partitions import BY_RUN, RUNS
from eval_pipeline.pipeline.resources import EvalSettings, Results
from eval_pipeline.pipeline.traces import export_summary, trace_outcomes
from eval_pipeline.versions import STAGE_VERSIONS

HISTORY_RUNS = 20
STORED_RECORDS = PythonObjectDagsterType(StoredRecords, name="StoredRecords")


def run_checks(
    summary: RunSummary, min_pass_rate: float, min_coverage: float
) -> list[AssetCheckResult]:
    """The run's release gates as Dagster asset checks, visible (optionally blocking) in the UI."""
    return [
        AssetCheckResult(
            check_name="gates_passed",
            passed=summary.pass_rate >= min_pass_rate,
            metadata={
                "pass_rate": summary.pass_rate,
                "min_pass_rate": min_pass_rate,
                "failed_cases": summary.cases_failed + summary.cases_error,
            },
        ),
        AssetCheckResult(
            check_name="coverage",
            passed=summary.coverage >= min_coverage,
            metadata={"coverage": summary.coverage, "min_coverage": min_coverage},
        ),
        AssetCheckResult(
            check_name="no_significant_regression",
            passed=not regressed(summary),
            metadata={
                "baseline": baseline_name(summary),
                "significant_regression": regressed(summary),
            },
        ),
    ]


def baseline_name(summary: RunSummary) -> str:
    """The run key the summary was compared with, for metadata: ``none`` without one."""
    comparison = summary.comparison
    return (comparison.base_run_key if comparison else None) or "none"


def regressed(summary: RunSummary) -> bool:
    """Significantly worse than its baseline; never without one."""
    return summary.comparison is not None and summary.comparison.significant_regression


CHECK_DESCRIPTIONS = {
    "gates_passed": "The run's pass rate is at least EVAL_MIN_PASS_RATE; the metadata counts the "
    "failed and errored cases (each case's own result is judge_scores' case_passed check).",
    "coverage": "The share of cases not in error is at least EVAL_MIN_COVERAGE.",
    "no_significant_regression": "No significant regression against the baseline run "
    "(EVAL_BASELINE_RUN or the previous run): McNemar's exact test on the cases answered in both "
    "runs and a paired bootstrap interval of the overall score.",
}
CHECK_NAMES = tuple(CHECK_DESCRIPTIONS)


def build_eval_run(blocking: bool) -> Any:
    """``eval_run`` with its gate checks; blocking checks stop ``eval_report`` when they fail."""

    @asset(
        name="eval_run",
        partitions_def=RUNS,
        ins={
            "judge_scores": AssetIn(
                partition_mapping=BY_RUN, dagster_type=STORED_RECORDS, metadata=IN_CHUNKS
            )
        },
        code_version=STAGE_VERSIONS["eval_run"],
        group_name=GROUP,
        io_manager_key=IO,
        check_specs=[
            AssetCheckSpec(name, asset="eval_run", blocking=blocking, description=description)
            for name, description in CHECK_DESCRIPTIONS.items()
        ],
    )
    def eval_run(
        context: AssetExecutionContext,
        settings: EvalSettings,
        results_store: ResourceParam[Results],
        tracer: ResourceParam[Tracer],
        judge_scores: StoredRecords,
    ) -> Iterator[Output[Batch] | AssetCheckResult]:
        """Weighted overall score and soft gates per case; coverage and pass rate for the run."""
        env = settings.env
        store = results_store.store
        run_key = context.partition_key
        outcomes = []
        costs = []
        for _, record in judge_scores.records():
            costs.append(record.cost)
            outcomes.append(for_summary(judge_record(record, env.policy)))
        run_dir = env.settings.reports_dir / run_key
        summary = summarize_run(run_key, outcomes, report_path=str(run_dir / "report.html"))
        calls, reused, run_ids = provenance(store, run_key, [o.case_id for o in outcomes])
        trace_outcomes(store, tracer, run_key, outcomes, reused)
        summary.trace_export = export_summary(
            store, env.settings.traces, tracer, run_key, context.run_id, run_ids
        )
        summary.calls = calls
        summary.chatbot_unreachable = got_no_answer(summary)
        summary.cost = cost = run_cost(costs)
        baseline = baseline_summary(store, run_key, env.settings.baseline_run)
        summary.comparison = (
            compare_runs(baseline, summary, level=env.settings.significance_level)
            if baseline
            else None
        )
        summary.demoted_dimensions = dict(env.policy.demotion_reasons)
        for case in summary.cases:
            case.reused = case.case_id in reused
        summary = env.redactor.model(summary)  # written to summary.json, metadata and the store
        summary_path = write_summary(
            summary,
            lambda ids: {
                name: store.latest(name, run_key, ids)
                for name in ("extracted_claims", "oracle_verdicts")
            },
        )
        yield Output(
            {run_key: summary},
            metadata={
                "cases": summary.cases_total,
                "pass_rate": summary.pass_rate,
                "coverage": summary.coverage,
                "mean_overall": summary.mean_overall or 0.0,
                "chatbot_calls": calls.chatbot,
                "judge_calls": calls.judge,
                "reference_calls": calls.reference,
                "judge_usd": cost.usd,
                "baseline": baseline_name(summary),
                "significant_regression": regressed(summary),
                "summary_path": MetadataValue.path(str(summary_path)),
                "cases_table": md_table(
                    ["case", "overall", "passed", "gate failures"],
                    [
                        (c.case_id, c.overall, c.passed, "; ".join(c.gate_failures)[:120])
                        for c in summary.cases
                    ],
                    limit=50,
                ),
            },
        )
        s = env.settings
        yield from run_checks(summary, s.min_pass_rate, s.min_coverage)

    return eval_run


def provenance(
    store: ResultsStore, run_key: str, case_ids: Sequence[str]
) -> tuple[Calls, set[str], set[str]]:
    """Calls made since the run's previous summary, the cases nothing was recomputed for, and
    the Dagster runs that recomputed something.

    A case is reused when every per-case step's current record was reused, or predates the
    previous summary (an evaluation that found the case up to date did not run it again).
    """
    previous = store.latest_rows("eval_run", run_key, [RUN_WIDE], with_payload=False).get(RUN_WIDE)
    since = previous.id if previous else 0
    run_ids: set[str] = set()
    reused = set(case_ids)
    for asset_name in PER_CASE_ASSETS:
        rows = store.latest_rows(asset_name, run_key, case_ids, with_payload=False)
        fresh = {case_id: row for case_id, row in rows.items() if row.id > since}
        run_ids |= {row.dagster_run_id for row in fresh.values()}
        reused -= {case_id for case_id, row in fresh.items() if not row.reused}
        reused &= set(rows)
    return Calls(**store.calls_for(run_ids)), reused, run_ids


def baseline_summary(store: ResultsStore, run_key: str, configured: str) -> RunSummary | None:
    """The configured baseline run, else the latest other run the chatbot answered in."""
    key = baseline_run_key(store, run_key, configured)
    return store.run_summary(key) if key else None


def run_cost(case_costs: Sequence[Mapping[str, Any]]) -> Cost:
    """Judge spend of the run's current results, summed over cases and per dimension."""
    keys = ("judge_calls", "cached_calls", "input_tokens", "output_tokens", "usd")
    total: dict[str, Any] = {k: sum(c.get(k, 0) for c in case_costs) for k in keys}
    total["usd"] = round(total["usd"], 6)
    by_dimension: dict[str, float] = {}
    for c in case_costs:
        for dim, usd in c.get("usd_by_dimension", {}).items():
            by_dimension[dim] = round(by_dimension.get(dim, 0.0) + usd, 6)
    return Cost(**total, usd_by_dimension=dict(sorted(by_dimension.items())))


def write_json(path: Path, payload: Any) -> Path:
    """Compact JSON: indenting switches ``json`` to its pure-Python encoder, ten times slower."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload, default=str))
    tmp.replace(path)
    return path


@asset(
    partitions_def=RUNS,
    deps=[
        AssetDep("chatbot_responses", partition_mapping=BY_RUN),
        AssetDep("extracted_claims", partition_mapping=BY_RUN),
        AssetDep("oracle_verdicts", partition_mapping=BY_RUN),
    ],
    code_version=STAGE_VERSIONS["eval_report"],
    group_name=GROUP,
    io_manager_key=IO,
)
def eval_report(
    context: AssetExecutionContext,
    settings: EvalSettings,
    results_store: ResourceParam[Results],
    eval_run: Batch,
) -> Batch:
    """A self-contained HTML report with the evidence behind every verdict."""
    env = settings.env
    store = results_store.store
    run_key = context.partition_key
    summary = eval_run[run_key]

    def details(ids: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
        return {
            name: store.latest(name, run_key, ids)
            for name in ("chatbot_responses", "extracted_claims", "oracle_verdicts")
        }

    earlier = [k for k in store.run_keys("eval_run") if k != run_key][-HISTORY_RUNS:]
    history = [s for k in earlier if (s := store.run_summary(k))]
    html = render_report(summary, details, history=history, show_pii=env.settings.report_show_pii)
    path = Path(summary.report_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    encoded = html.encode("utf-8")  # once: tens of megabytes for 10,000 cases
    path.write_bytes(encoded)
    context.add_output_metadata(
        {
            "report_path": MetadataValue.path(str(path)),
            "report_url": MetadataValue.url(report_url(env.settings.report_links_base, run_key)),
            "bytes": len(encoded),
        }
    )
    return {run_key: {"report_path": str(path), "bytes": len(encoded)}}
