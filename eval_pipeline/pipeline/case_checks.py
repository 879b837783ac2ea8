"""Each case's partitioned asset checks: ``case_passed`` on ``judge_scores`` (its outcome) and
``verdicts_current`` on ``oracle_verdicts`` (no table it reads has changed since it was answered).

``case_passed`` is reported by the ``judge_scores`` step itself, one evaluation per case it scored
(``partition_events.check_evaluations``), and ``verdicts_current`` by the ``warehouse_refresh``
sensor for the cases a table change invalidated, so jobs never plan either as a step of its own:
Dagster 1.13 writes a planned row per partition, each carrying the whole partition set, which is
quadratic in the batch. ``REPORTED_CHECKS`` is what every job's selection leaves out.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dagster import (
    AssetCheckEvaluation,
    AssetCheckExecutionContext,
    AssetCheckKey,
    AssetKey,
    AssetSelection,
    Output,
    PreviewWarning,
    ResourceParam,
    asset_check,
)

from eval_pipeline.core.aggregate import judge_record
from eval_pipeline.core.lineage.staleness import stale_tables
from eval_pipeline.core.models import CaseScores, ChatPayload, OracleResult
from eval_pipeline.core.report.viewer import report_url
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.environment import Environment
from eval_pipeline.pipeline.case_metadata import (
    CheckResult,
    case_check,
    currency_check,
    first_contradiction,
    redacted,
)
from eval_pipeline.pipeline.io_manager import Key
from eval_pipeline.pipeline.partition_events import check_evaluations, stored_check_evaluations
from eval_pipeline.pipeline.partitions import RUN_CASE, run_case_key, split_key
from eval_pipeline.pipeline.resources import (
    EvalSettings,
    Results,
    Warehouse,
)

warnings.filterwarnings("ignore", message="Specifying a partitions_def", category=PreviewWarning)

CASE_CHECK = AssetCheckKey(AssetKey("judge_scores"), "case_passed")
CURRENCY_CHECK = AssetCheckKey(AssetKey("oracle_verdicts"), "verdicts_current")
REPORTED_CHECKS = AssetSelection.checks(CASE_CHECK, CURRENCY_CHECK)
CASE_CHECK_DESCRIPTION = (
    "The case's outcome: fails with severity ERROR when it failed a gate (chatbot call, safety, "
    "a contradicted claim, the overall score, an answer that does not answer the question) or is "
    "in error, with severity WARN when it passed with warnings. The metadata names the gate and "
    "the first contradicted claim with the value the reference gives. Evaluated by judge_scores "
    "as it scores each case (with EVAL_PARTITION_METADATA on)."
)
CURRENCY_CHECK_DESCRIPTION = (
    "Fails with severity WARN for a case whose verdicts a warehouse refresh invalidated: a table "
    "its references or its answer's SQL read has changed since the chatbot answered. Reported by "
    "the warehouse_refresh sensor for exactly those cases, naming the tables; the case's next "
    "verification (the sensor re-asks it) clears it. The Partitions tab shows them all at once."
)


def _per_case(check: AssetCheckKey, description: str) -> Any:
    """The decorator of ``check``, evaluated per (run, case) partition of its asset."""
    return asset_check(
        asset=check.asset_key, name=check.name, partitions_def=RUN_CASE, description=description
    )


def case_results(
    env: Environment,
    partitions: Mapping[str, Key],
    scores: Mapping[Key, CaseScores],
    verdicts: Mapping[Key, OracleResult],
) -> dict[str, CheckResult]:
    """Each partition's ``case_passed`` result from its scores and verdicts; with
    ``EVAL_PARTITION_METADATA`` off, none."""
    if not env.settings.partition_metadata:
        return {}
    base = env.settings.report_links_base
    results = {}
    for partition, key in partitions.items():
        if key in scores:
            passed, severity, metadata = case_check(
                judge_record(scores[key], env.policy),
                first_contradiction(verdicts[key]) if key in verdicts else None,
                report_url(base, *key),
            )
            results[partition] = (passed, severity, redacted(metadata, env.redactor))
    return results


def cases_by_run(partition_keys: Sequence[str]) -> dict[str, list[str]]:
    """Run key → its cases among the (case, run) partition keys a check run was given."""
    out: dict[str, list[str]] = {}
    for key in partition_keys:
        run_key, case_id = split_key(key)
        out.setdefault(run_key, []).append(case_id)
    return out


@_per_case(CASE_CHECK, CASE_CHECK_DESCRIPTION)
def case_passed(
    context: AssetCheckExecutionContext,
    settings: EvalSettings,
    results_store: ResourceParam[Results],
) -> Iterator[Output[None] | AssetCheckEvaluation]:
    """Run only when someone materializes judge_scores with its checks from the UI: the stored
    scores of the run's partitions, judged again."""
    op = context.op_execution_context
    env = settings.env
    store = results_store.store
    scores: dict[Key, CaseScores] = {}
    verdicts: dict[Key, OracleResult] = {}
    for run_key, cases in cases_by_run(op.partition_keys).items():
        for case_id, record in store.latest("judge_scores", run_key, cases).items():
            scores[(run_key, case_id)] = CaseScores.model_validate(record)
        for case_id, record in store.latest("oracle_verdicts", run_key, cases).items():
            verdicts[(run_key, case_id)] = OracleResult.model_validate(record)
    partitions = {p: split_key(p) for p in op.partition_keys}
    results = case_results(env, partitions, scores, verdicts)
    yield from check_evaluations(op, CASE_CHECK.asset_key, CASE_CHECK.name, results)
    yield Output(None, output_name=op.op_def.output_defs[0].name)


def currency_results(
    env: Environment,
    store: ResultsStore,
    run_key: str,
    cases: Sequence[str],
    current: Mapping[str, str],
) -> dict[str, CheckResult]:
    """Each verified case's ``verdicts_current`` result: the tables whose fingerprint when the
    chatbot answered differs from ``current``, or that had changed by its verification."""
    base = env.settings.report_links_base
    answers = store.latest("chatbot_responses", run_key, list(cases))
    results = {}
    for case_id, record in store.latest("oracle_verdicts", run_key, list(cases)).items():
        changed = set(OracleResult.model_validate(record).stale_tables)
        if case_id in answers:
            changed |= set(stale_tables(ChatPayload.model_validate(answers[case_id]), current))
        passed, severity, metadata = currency_check(
            sorted(changed), report_url(base, run_key, case_id)
        )
        results[str(run_case_key(run_key, case_id))] = (
            passed,
            severity,
            redacted(metadata, env.redactor),
        )
    return results


@_per_case(CURRENCY_CHECK, CURRENCY_CHECK_DESCRIPTION)
def verdicts_current(
    context: AssetCheckExecutionContext,
    settings: EvalSettings,
    warehouse: ResourceParam[Warehouse],
    results_store: ResourceParam[Results],
) -> Iterator[Output[None] | AssetCheckEvaluation]:
    """Run only when someone executes the check from the UI: every selected case's answer
    fingerprints against the warehouse as it is now."""
    op = context.op_execution_context
    current = warehouse.table_fingerprints()
    results: dict[str, CheckResult] = {}
    for run_key, cases in cases_by_run(op.partition_keys).items():
        results.update(currency_results(settings.env, results_store.store, run_key, cases, current))
    yield from stored_check_evaluations(
        op.instance, CURRENCY_CHECK.asset_key, CURRENCY_CHECK.name, results
    )
    yield Output(None, output_name=op.op_def.output_defs[0].name)
