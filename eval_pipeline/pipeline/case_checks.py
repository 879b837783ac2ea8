"""``case_passed``: each case's outcome as a partitioned asset check on ``judge_scores``.

The check's evaluations are reported by the ``judge_scores`` step itself, one per case it scored
(``partition_events.check_evaluations``), so jobs never plan the check as a step of its own:
Dagster 1.13 writes a planned row per partition, each carrying the whole partition set, which is
quadratic in the batch. ``REPORTED_CHECKS`` is what every job's selection leaves out.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import warnings
from collections.abc import Iterator, Mapping

from dagster import (
    AssetCheckEvaluation,
    AssetCheckExecutionContext,
    AssetCheckKey,
    AssetKey,
    AssetSelection,
    Output,
    PreviewWarning,
    asset_check,
)

from eval_pipeline.core.aggregate import judge_record
from eval_pipeline.core.models import CaseScores, OracleResult
from eval_pipeline.core.report.viewer import report_url
from eval_pipeline.environment import Environment
from eval_pipeline.pipeline.case_metadata import (
    CheckResult,
    case_check,
    first_contradiction,
    redacted,
)
from eval_pipeline.pipeline.io_manager import Key
from eval_pipeline.pipeline.partition_events import check_evaluations
from eval_pipeline.pipeline.partitions import RUN_CASE, split_key
from eval_pipeline.pipeline.resources import EvalEnvironment

warnings.filterwarnings("ignore", message="Specifying a partitions_def", category=PreviewWarning)

CASE_CHECK = AssetCheckKey(AssetKey("judge_scores"), "case_passed")
REPORTED_CHECKS = AssetSelection.checks(CASE_CHECK)
CASE_CHECK_DESCRIPTION = (
    "The case's outcome: fails with severity ERROR when it failed a gate (chatbot call, safety, "
    "a contradicted claim, the overall score, an answer that does not answer the question) or is "
    "in error, with severity WARN when it passed with warnings. The metadata names the gate and "
    "the first contradicted claim with the value the reference gives. Evaluated by judge_scores "
    "as it scores each case (with EVAL_PARTITION_METADATA on)."
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


@asset_check(
    asset=CASE_CHECK.asset_key,
    name=CASE_CHECK.name,
    partitions_def=RUN_CASE,
    description=CASE_CHECK_DESCRIPTION,
)
def case_passed(
    context: AssetCheckExecutionContext, environment: EvalEnvironment
) -> Iterator[Output[None] | AssetCheckEvaluation]:
    """Run only when someone materializes judge_scores with its checks from the UI: the stored
    scores of the run's partitions, judged again."""
    op = context.op_execution_context
    env = environment.env
    partitions = {p: split_key(p) for p in op.partition_keys}
    scores: dict[Key, CaseScores] = {}
    verdicts: dict[Key, OracleResult] = {}
    for run_key in {r for r, _ in partitions.values()}:
        cases = [c for r, c in partitions.values() if r == run_key]
        for case_id, record in env.store.latest("judge_scores", run_key, cases).items():
            scores[(run_key, case_id)] = CaseScores.model_validate(record)
        for case_id, record in env.store.latest("oracle_verdicts", run_key, cases).items():
            verdicts[(run_key, case_id)] = OracleResult.model_validate(record)
    results = case_results(env, partitions, scores, verdicts)
    yield from check_evaluations(op, CASE_CHECK.asset_key, CASE_CHECK.name, results)
    yield Output(None, output_name=op.op_def.output_defs[0].name)
