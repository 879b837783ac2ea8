"""Evaluate logged production conversations from Python or ``eval-pipeline conversations``.

The same graph as any evaluation: the conversations' cases (``conv.<id>``) join the case
dimension, ``evaluate`` runs them with the logged answers (the bot is never asked), and the
oldest conversation keys beyond the retention budget then leave Dagster (their results stay in
the results store and in ``evaluations``).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import closing

from dagster import DagsterInstance

from eval_pipeline.core.conversations import (
    case_id_of,
    conversation_budget,
    expired_conversations,
)
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.environment import Environment
from eval_pipeline.pipeline.partitions import CASES
from eval_pipeline.runner.evaluate import dagster_instance, evaluate
from eval_pipeline.settings import Settings


def evaluate_conversations(
    run_key: str,
    *,
    overrides: Mapping[str, str] | None = None,
    last: int | None = None,
    instance: DagsterInstance | None = None,
) -> RunSummary:
    """Evaluate the ``last`` most recent conversations (default ``EVAL_CONVERSATION_BATCH``)
    under ``run_key``; returns the run summary."""
    overrides = dict(overrides or {})
    settings = Settings(**overrides)  # type: ignore[arg-type]
    with closing(Environment(settings)) as env:
        ids = env.conversations.latest(last or settings.conversation_batch)
        keys = list(env.logged_cases([case_id_of(cid) for cid in ids]))
        golden = len(env.cases)
    if not keys:
        raise ValueError("the conversation source holds no conversation with an answer")
    instance = instance or dagster_instance(settings)
    summary = evaluate(run_key, overrides=overrides, case_ids=keys, instance=instance)
    keep = conversation_budget(settings.retain_conversations, settings.retain_runs, golden)
    ordered = list(instance.get_dynamic_partitions(CASES.name))
    for key in expired_conversations(ordered, keep):
        if key not in keys:
            instance.delete_dynamic_partition(CASES.name, key)
    return summary
