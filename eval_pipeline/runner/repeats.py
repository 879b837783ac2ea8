"""Repeated sampling: evaluate the same cases k times, each a run of its own, and reduce them.

A repeat must re-ask: results are reused by input fingerprint within a run key, so every repeat
gets its own run key, ``refresh`` and an uncached judge. Judge repeats re-judge each stored answer
without re-asking, so the judge's own noise can be told apart from the chatbot's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from dagster import DagsterInstance

from eval_pipeline.core.aggregate import judge_case
from eval_pipeline.core.analysis.repeats import JudgeOveralls, summarize_repeats
from eval_pipeline.core.keys import check_key
from eval_pipeline.core.models import ChatPayload, OracleResult
from eval_pipeline.core.steps import map_concurrently, warm_embeddings
from eval_pipeline.environment import Environment
from eval_pipeline.pipeline.run_assets import write_json
from eval_pipeline.runner.evaluate import evaluate
from eval_pipeline.settings import Settings

REPEAT_OVERRIDES = {"refresh": "true", "judge_use_cache": "false"}
NO_JUDGE = "judge repeats need an LLM judge (EVAL_LLM_BASE_URL and EVAL_LLM_MODEL)"


def repeat_run_key(run_key: str, index: int) -> str:
    """``<run_key>-r<i>``, i from 1: sorts next to the base key and is a valid Dagster key."""
    return check_key(f"{run_key}-r{index}", "run")


def rejudge(
    env: Environment, run_key: str, case_ids: Sequence[str], times: int
) -> dict[str, list[float | None]]:
    """The overall score of each stored answer of ``run_key``, judged ``times`` more afresh."""
    judge = env.judge
    if judge is None:
        raise ValueError(NO_JUDGE)
    responses = env.store.latest("chatbot_responses", run_key, case_ids)
    verdicts = env.store.latest("oracle_verdicts", run_key, case_ids)
    warm_embeddings([t for r in responses.values() for t in (r["question"], r["answer"])])

    def overalls(case_id: str) -> list[float | None]:
        case = env.cases[case_id]
        payload = ChatPayload.model_validate(responses[case_id])
        oracle = OracleResult.model_validate(verdicts[case_id])
        errors = payload.errors if payload.status == "error" else []
        out = []
        for _ in range(times):
            outcome = judge_case(
                case_id,
                env.score(case, payload, oracle, live_catalog=env.live_catalog, use_cache=False),
                has_expected_answer=case.has_expected_answer,
                has_reference=bool(case.reference),
                chatbot_errors=errors,
                policy=env.policy,
                tags=case.tags,
            )
            out.append(outcome.overall)
        return out

    return map_concurrently(overalls, {c: c for c in case_ids}, env.settings.concurrency)


def evaluate_repeats(
    run_key: str,
    k: int,
    *,
    overrides: Mapping[str, str] | None = None,
    case_ids: Sequence[str] | None = None,
    instance: DagsterInstance | None = None,
    judge_repeats: int = 1,
) -> dict[str, Any]:
    """Evaluate the cases ``k`` times and write ``<EVAL_HOME>/reports/<run_key>/repeats.json``.

    With ``judge_repeats`` > 1 every answer is judged that many times in all (needs an LLM judge),
    which adds the chatbot-versus-judge split of the noise.
    """
    if k < 1:
        raise ValueError(f"repeats must be at least 1, got {k}")
    if judge_repeats < 1:
        raise ValueError(f"judge repeats must be at least 1, got {judge_repeats}")
    check_key(run_key, "run")
    repeat_run_key(run_key, k)  # the longest key it will make: refused now, not after k - 1 runs
    settings_overrides = {**(overrides or {}), **REPEAT_OVERRIDES}
    env = Environment(Settings(**settings_overrides))  # type: ignore[arg-type]
    try:
        if judge_repeats > 1 and env.settings.llm is None:
            raise ValueError(NO_JUDGE)
        summaries = []
        judged: list[JudgeOveralls] = []
        for index in range(1, k + 1):
            key = repeat_run_key(run_key, index)
            summary = evaluate(
                key, overrides=settings_overrides, case_ids=case_ids, instance=instance
            )
            if judge_repeats > 1:
                again = rejudge(env, key, [c.case_id for c in summary.cases], judge_repeats - 1)
                judged.append({c.case_id: [c.overall, *again[c.case_id]] for c in summary.cases})
            summaries.append(summary)
    finally:
        env.close()
    result = summarize_repeats(run_key, summaries, judged)
    result["created_at"] = datetime.now(UTC).isoformat()
    result["repeat_summaries"] = [str(s.summary_path) for s in summaries]
    path = env.settings.reports_dir / run_key / "repeats.json"
    result["repeats_path"] = str(path)
    write_json(path, result)
    return result
