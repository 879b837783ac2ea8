"""``case_passed``: each case's outcome as a partitioned asset check on ``judge_scores``.

The check's evaluations are reported by the ``judge_scores`` step itself, one per case it scored
(``partition_events.check_evaluations``), so jobs never plan the check as a step of its own:
Dagster 1.13 writes a planned row per partition, each carrying the whole partition set, which is
quadratic in the batch. ``REPORTED_CHECKS`` is what every job's selection leaves out.

No ``from __future__ import annotations`` here: Dagster inspects the real type hints.
"""

import warnings

from dagster import AssetCheckKey, AssetKey, AssetSelection, Failure, PreviewWarning, asset_check

from eval_pipeline.pipeline.partitions import RUN_CASE

warnings.filterwarnings("ignore", message="Specifying a partitions_def", category=PreviewWarning)

CASE_CHECK = AssetCheckKey(AssetKey("judge_scores"), "case_passed")
REPORTED_CHECKS = AssetSelection.checks(CASE_CHECK)
CASE_CHECK_DESCRIPTION = (
    "The case's outcome: fails with severity ERROR when it failed a gate (chatbot call, safety, "
    "a contradicted claim, the overall score, an answer that does not answer the question) or is "
    "in error, with severity WARN when it passed with warnings. The metadata names the gate and "
    "the first contradicted claim with the value the reference gives. Evaluated by judge_scores "
    "as it scores each case; materialize judge_scores to evaluate it again."
)


@asset_check(
    asset=CASE_CHECK.asset_key,
    name=CASE_CHECK.name,
    partitions_def=RUN_CASE,
    description=CASE_CHECK_DESCRIPTION,
)
def case_passed() -> None:
    """Never planned by a job (see the module docstring): judge_scores reports it."""
    raise Failure(description="case_passed is evaluated by judge_scores: materialize judge_scores")
