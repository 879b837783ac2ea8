"""Repeated sampling: the same cases evaluated k times, reduced to reliability and noise.

One run says whether an answer passed once; users meet the chatbot many times. pass@k (some
repeat passes) bounds what retrying can reach, pass^k (every repeat passes) is the reliability a
user sees, flakiness names the cases whose verdict is a coin toss. The spread of the overall score
is split into real case difficulty (between cases) and noise (within a case); when each answer was
also judged several times, that noise is split again into the chatbot's and the judge's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean, stdev
from typing import Any

from eval_pipeline.core.analysis.stats import flakiness, pass_at_k, pass_hat_k, variance_split
from eval_pipeline.core.summary import CaseSummary, RunSummary

SCHEMA_VERSION = 1

JudgeOveralls = Mapping[str, Sequence[float | None]]
"""Of one repeat: case id → the overall of its answer under each judgement, the run's own first."""


def _by_case(summaries: Sequence[RunSummary]) -> dict[str, list[CaseSummary]]:
    """Each case's result per repeat, in repeat order; every repeat must hold the same cases."""
    order = [c.case_id for c in summaries[0].cases]
    by_case: dict[str, list[CaseSummary]] = {case_id: [] for case_id in order}
    for summary in summaries:
        cases = {c.case_id: c for c in summary.cases}
        if set(cases) != set(by_case):
            raise ValueError(
                f"repeat {summary.run_key!r} holds cases {sorted(cases)}, "
                f"the first repeat {sorted(by_case)}"
            )
        for case_id, case in cases.items():
            by_case[case_id].append(case)
    return by_case


def _by_k(values: Sequence[float]) -> dict[str, float]:
    return {str(k): round(v, 6) for k, v in enumerate(values, start=1)}


def _noise(judged: Sequence[Sequence[float | None]]) -> dict[str, float] | None:
    """Chatbot vs judge noise of one case: the repeats are the groups, re-judgements the members.

    The variance of an answer's mean judgement across repeats is the chatbot's; the mean variance
    of one answer's judgements is the judge's.
    """
    groups = {str(i): [s for s in scores if s is not None] for i, scores in enumerate(judged)}
    groups = {i: scores for i, scores in groups.items() if scores}
    if not groups:
        return None
    split = variance_split(groups)
    return _noise_split(split["between_cases"], split["within_cases"])


def _noise_split(chatbot: float, judge: float) -> dict[str, float]:
    total = chatbot + judge
    return {
        "chatbot": round(chatbot, 6),
        "judge": round(judge, 6),
        "judge_share": round(judge / total, 6) if total > 0 else 0.0,
    }


def _case_stats(
    case_id: str, results: Sequence[CaseSummary], judged: Sequence[Sequence[float | None]]
) -> dict[str, Any]:
    outcomes = [r.passed for r in results]
    n, passes = len(outcomes), sum(outcomes)
    overalls = [r.overall for r in results if r.overall is not None]
    return {
        "case_id": case_id,
        "n": n,
        "passes": passes,
        "errors": sum(r.state == "error" for r in results),
        "outcomes": outcomes,
        "overall": [r.overall for r in results],
        "pass_at_k": _by_k([pass_at_k(n, passes, k) for k in range(1, n + 1)]),
        "pass_hat_k": _by_k([pass_hat_k(n, passes, k) for k in range(1, n + 1)]),
        "flakiness": round(flakiness(outcomes), 6),
        "overall_mean": round(fmean(overalls), 6) if overalls else None,
        "overall_stdev": round(stdev(overalls), 6) if len(overalls) >= 2 else None,
        "noise": _noise(judged) if all(len(j) >= 2 for j in judged) else None,
    }


def _mean_by_k(cases: Sequence[Mapping[str, Any]], field: str, n: int) -> dict[str, float]:
    return _by_k([fmean(c[field][str(k)] for c in cases) for k in range(1, n + 1)])


def _run_noise(cases: Sequence[Mapping[str, Any]]) -> dict[str, float] | None:
    noises = [c["noise"] for c in cases if c["noise"] is not None]
    if not noises:
        return None
    chatbot = fmean(n["chatbot"] for n in noises)
    judge = fmean(n["judge"] for n in noises)
    return _noise_split(chatbot, judge)


def summarize_repeats(
    base_run_key: str,
    summaries: Sequence[RunSummary],
    judge_overalls: Sequence[JudgeOveralls] = (),
) -> dict[str, Any]:
    """Reduce the run summaries of k repeats of the same cases (see docs/formats.md).

    An errored repeat counts as not passed: a user who got no answer was not served. Overall
    statistics use the repeats that have an overall score. ``judge_overalls`` (per repeat, each
    answer judged several times) adds the split of each case's noise between chatbot and judge.
    """
    if not summaries:
        raise ValueError("no repeats to summarize")
    n = len(summaries)
    judged = list(judge_overalls) or [{} for _ in summaries]
    cases = [
        _case_stats(cid, results, [j.get(cid) or [] for j in judged])
        for cid, results in _by_case(summaries).items()
    ]
    scores = {c["case_id"]: [o for o in c["overall"] if o is not None] for c in cases}
    scored = {case_id: values for case_id, values in scores.items() if values}
    split = variance_split(scored) if scored else None
    judge_repeats = max((len(v) for j in judged for v in j.values()), default=0)
    return {
        "schema_version": SCHEMA_VERSION,
        "run_key": base_run_key,
        "repeats": n,
        "judge_repeats": max(judge_repeats, 1),
        "repeat_run_keys": [s.run_key for s in summaries],
        "k": list(range(1, n + 1)),
        "cases_total": len(cases),
        "pass_at_k": _mean_by_k(cases, "pass_at_k", n) if cases else {},
        "pass_hat_k": _mean_by_k(cases, "pass_hat_k", n) if cases else {},
        "mean_flakiness": round(fmean(c["flakiness"] for c in cases), 6) if cases else 0.0,
        "flaky_cases": [c["case_id"] for c in cases if c["flakiness"] > 0],
        "variance": None if split is None else {k: round(v, 6) for k, v in split.items()},
        "noise": _run_noise(cases),
        "cases": cases,
    }
