"""Is run HEAD worse than run BASE? A paired, per-case answer with the evidence behind it.

Cases are paired by ``case_id``; a case present in only one run is listed but never paired, so a
changed golden set cannot pass for a changed chatbot. An error (the chatbot unreachable, a gate
that could not be checked) is an outcome of its own, neither pass nor fail: pass/fail regressions,
improvements and McNemar's exact test count only pairs answered in both runs, and a case that went
into or out of error is listed apart. Scores go through a paired bootstrap. Below
``MIN_PAIRS_FOR_CI`` pairs a percentile bootstrap has too few distinct resamples to mean anything,
so no interval is reported and none can gate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any, Literal

from eval_pipeline.core.analysis.stats import mcnemar_exact, paired_bootstrap_ci
from eval_pipeline.core.models import VERDICT_LABELS, in_dimension_order
from eval_pipeline.core.summary import (
    Bootstrap,
    CaseChange,
    CaseResult,
    CaseSummary,
    Comparison,
    DimensionChange,
    ErrorChanges,
    McNemar,
    Rates,
    RouteChange,
    RoutingChanges,
    RunSummary,
    ScoreDelta,
)

MIN_PAIRS_FOR_CI = 5


def _gates_by_kind(case: CaseSummary) -> dict[str, str]:
    return {g.split(":", 1)[0]: g for g in case.gate_failures}


def _delta(base: float | None, head: float | None) -> float | None:
    return None if base is None or head is None else round(head - base, 4)


def _dimension_changes(
    base: CaseSummary, head: CaseSummary, min_change: float
) -> list[DimensionChange]:
    changes = []
    for name in in_dimension_order([*base.dimensions, *head.dimensions]):
        b = base.dimensions.get(name)
        h = head.dimensions.get(name)
        delta = _delta(base.dimension_score(name), head.dimension_score(name))
        base_state = b.state if b else None
        head_state = h.state if h else None
        if base_state != head_state or (delta is not None and abs(delta) >= min_change):
            changes.append(
                DimensionChange(
                    dimension=name,
                    base_state=base_state,
                    head_state=head_state,
                    base_score=b.score if b else None,
                    head_score=h.score if h else None,
                    delta=delta,
                    base_reason=b.reason if b else "",
                    head_reason=h.reason if h else "",
                )
            )
    return changes


def _direction(
    base_result: CaseResult,
    head_result: CaseResult,
    overall_delta: float | None,
    gates_added: Sequence[str],
    gates_removed: Sequence[str],
    contradicted_change: int,
    min_change: float,
) -> Literal["regression", "improvement"] | None:
    """The first decisive signal wins: the verdict, then the score, then the evidence. A pair
    with an error on either side has no direction: its change is an error change."""
    if "error" in (base_result, head_result):
        return None
    if (base_result == "pass") != (head_result == "pass"):
        return "improvement" if head_result == "pass" else "regression"
    if overall_delta is not None and abs(overall_delta) >= min_change:
        return "improvement" if overall_delta > 0 else "regression"
    if bool(gates_added) != bool(gates_removed):
        return "regression" if gates_added else "improvement"
    if contradicted_change:
        return "regression" if contradicted_change > 0 else "improvement"
    return None


def compare_case(base: CaseSummary, head: CaseSummary, *, min_change: float = 0.05) -> CaseChange:
    """What changed for one case between two runs, and whether that is better or worse."""
    base_gates = _gates_by_kind(base)
    head_gates = _gates_by_kind(head)
    verdict_changes = {
        k: head.verdict_counts.get(k, 0) - base.verdict_counts.get(k, 0)
        for k in VERDICT_LABELS
        if head.verdict_counts.get(k, 0) != base.verdict_counts.get(k, 0)
    }
    gates_added = [g for kind, g in head_gates.items() if kind not in base_gates]
    gates_removed = [g for kind, g in base_gates.items() if kind not in head_gates]
    overall_delta = _delta(base.overall, head.overall)
    return CaseChange(
        case_id=head.case_id,
        base_result=base.result,
        head_result=head.result,
        base_overall=base.overall,
        head_overall=head.overall,
        overall_delta=overall_delta,
        gates_added=gates_added,
        gates_removed=gates_removed,
        verdict_changes=verdict_changes,
        dimension_changes=_dimension_changes(base, head, min_change),
        direction=_direction(
            base.result,
            head.result,
            overall_delta,
            gates_added,
            gates_removed,
            verdict_changes.get("contradicted", 0),
            min_change,
        ),
    )


def _routed_right(case: CaseSummary) -> bool:
    return case.routing is not None and case.routing.intent == case.routing.expected


def routing_changes(
    base_cases: Mapping[str, CaseSummary],
    head_cases: Mapping[str, CaseSummary],
    paired: Sequence[str],
) -> RoutingChanges:
    """Cases routed right in one run and wrong in the other, over the paired cases that expect
    the same intent in both; with each run's routing accuracy on those cases."""
    routes = {
        cid: (base_route, head_route)
        for cid in paired
        if (base_route := base_cases[cid].routing)
        and (head_route := head_cases[cid].routing)
        and base_route.expected == head_route.expected
    }
    changes = RoutingChanges(cases=len(routes))
    for cid, (base_route, head_route) in routes.items():
        before, after = _routed_right(base_cases[cid]), _routed_right(head_cases[cid])
        if before != after:
            (changes.improvements if after else changes.regressions).append(
                RouteChange(
                    case_id=cid,
                    expected=head_route.expected,
                    base_intent=base_route.intent,
                    head_intent=head_route.intent,
                )
            )

    def accuracy(cases: Mapping[str, CaseSummary]) -> float | None:
        if not routes:
            return None
        return round(sum(_routed_right(cases[cid]) for cid in routes) / len(routes), 4)

    changes.base_accuracy = accuracy(base_cases)
    changes.head_accuracy = accuracy(head_cases)
    return changes


def _ci(base: Sequence[float], head: Sequence[float], **kwargs: Any) -> ScoreDelta:
    if len(base) < MIN_PAIRS_FOR_CI:
        mean = fmean(h - b for b, h in zip(base, head, strict=True)) if base else None
        return ScoreDelta(pairs=len(base), mean_delta=None if mean is None else round(mean, 4))
    mean, lo, hi = paired_bootstrap_ci(base, head, **kwargs)
    return ScoreDelta(
        pairs=len(base), mean_delta=round(mean, 4), ci_low=round(lo, 4), ci_high=round(hi, 4)
    )


def _rate(cases: Mapping[str, CaseSummary], paired: Sequence[str], result: str) -> float | None:
    """Share of the paired cases with this result, so both runs are rated on the same cases."""
    if not paired:
        return None
    return round(sum(cases[cid].result == result for cid in paired) / len(paired), 4)


def error_change(case: CaseChange) -> str | None:
    """``new`` (answered, now in error), ``recovered`` (in error, now answered), ``persisting``."""
    base, head = case.base_result == "error", case.head_result == "error"
    if base and head:
        return "persisting"
    if head:
        return "new"
    return "recovered" if base else None


def _severity(case: CaseChange) -> tuple[int, float]:
    flipped = (case.base_result == "pass") != (case.head_result == "pass")
    return (0 if flipped else 1, -abs(case.overall_delta or 0.0))


def compare_runs(
    base: RunSummary,
    head: RunSummary,
    *,
    level: float = 0.05,
    resamples: int = 2000,
    seed: int = 0,
    min_change: float = 0.05,
) -> Comparison:
    """Paired comparison of two run summaries (docs/formats.md).

    ``significant_regression`` is set when McNemar rejects at ``level`` with more pass→fail than
    fail→pass cases, or when the bootstrap interval (confidence ``1 - level``) of the mean overall
    delta lies entirely below zero. ``min_change`` is the smallest score change reported per case.
    """
    base_cases = {c.case_id: c for c in base.cases}
    head_cases = {c.case_id: c for c in head.cases}
    paired = [cid for cid in head_cases if cid in base_cases]
    cases = [
        compare_case(base_cases[cid], head_cases[cid], min_change=min_change) for cid in paired
    ]

    answered = [c for c in cases if error_change(c) is None]
    pass_to_fail = sum(c.base_result == "pass" and c.head_result == "fail" for c in answered)
    fail_to_pass = sum(c.base_result == "fail" and c.head_result == "pass" for c in answered)
    p_value = mcnemar_exact(pass_to_fail, fail_to_pass)
    boot = Bootstrap(resamples=resamples, seed=seed, level=1 - level)

    overall_pairs = [
        (b, h)
        for cid in paired
        if (b := base_cases[cid].overall) is not None and (h := head_cases[cid].overall) is not None
    ]
    overall = _ci([b for b, _ in overall_pairs], [h for _, h in overall_pairs], **boot.model_dump())

    dimension_names = in_dimension_order(
        d for c in (*base_cases.values(), *head_cases.values()) for d in c.dimensions
    )
    dimensions = {}
    for name in dimension_names:
        pairs = [
            (b, h)
            for cid in paired
            if (b := base_cases[cid].dimension_score(name)) is not None
            and (h := head_cases[cid].dimension_score(name)) is not None
        ]
        dimensions[name] = _ci([b for b, _ in pairs], [h for _, h in pairs], **boot.model_dump())

    reasons = []
    if p_value < level and pass_to_fail > fail_to_pass:
        reasons.append(
            f"McNemar p={p_value:.4g} < {level:g}: {pass_to_fail} pass→fail vs "
            f"{fail_to_pass} fail→pass"
        )
    if overall.ci_high is not None and overall.ci_high < 0:
        reasons.append(
            f"overall delta {overall.mean_delta:+.4f}, {1 - level:.0%} CI "
            f"[{overall.ci_low:+.4f}, {overall.ci_high:+.4f}] below zero"
        )

    return Comparison(
        base_run_key=base.run_key,
        head_run_key=head.run_key,
        level=level,
        paired_cases=len(paired),
        answered_pairs=len(answered),
        only_in_base=sorted(set(base_cases) - set(head_cases)),
        only_in_head=sorted(set(head_cases) - set(base_cases)),
        pass_rate=Rates(
            base=_rate(base_cases, paired, "pass"), head=_rate(head_cases, paired, "pass")
        ),
        error_rate=Rates(
            base=_rate(base_cases, paired, "error"), head=_rate(head_cases, paired, "error")
        ),
        mcnemar=McNemar(pass_to_fail=pass_to_fail, fail_to_pass=fail_to_pass, p_value=p_value),
        bootstrap=boot,
        overall=overall,
        dimensions=dimensions,
        cases=cases,
        regressions=sorted((c for c in cases if c.direction == "regression"), key=_severity),
        improvements=sorted((c for c in cases if c.direction == "improvement"), key=_severity),
        routing=routing_changes(base_cases, head_cases, paired),
        error_changes=ErrorChanges(
            new=[c for c in cases if error_change(c) == "new"],
            recovered=[c for c in cases if error_change(c) == "recovered"],
            persisting=[c for c in cases if error_change(c) == "persisting"],
        ),
        significant_regression=bool(reasons),
        significance_reasons=reasons,
    )


def trend(summaries: Sequence[RunSummary], last_n: int | None = None) -> dict[str, Any]:
    """Pass rate, coverage, mean scores, latency and judge cost across runs (oldest first)."""
    chosen = list(summaries[-last_n:] if last_n else summaries)
    names = in_dimension_order(d for s in chosen for d in s.dimension_means)
    runs: list[dict[str, Any]] = [
        {
            "run_key": s.run_key,
            "created_at": s.created_at,
            "cases_total": s.cases_total,
            "pass_rate": s.pass_rate,
            "coverage": s.coverage,
            "mean_overall": s.mean_overall,
            "latency_mean_s": s.latency.mean_s,
            "latency_p95_s": s.latency.p95_s,
            "cost_usd": s.cost.usd if s.cost else None,
            "dimension_means": {d: s.dimension_means.get(d) for d in names},
        }
        for s in chosen
    ]
    change: dict[str, Any] = {}
    if len(runs) >= 2:
        first, last = runs[0], runs[-1]
        change = {m: _delta(first[m], last[m]) for m in ("pass_rate", "coverage", "mean_overall")}
        change["dimension_means"] = {
            d: _delta(first["dimension_means"][d], last["dimension_means"][d]) for d in names
        }
    return {"runs": runs, "dimensions": names, "change": change}
