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
from typing import Any

from eval_pipeline.core.analysis.stats import mcnemar_exact, paired_bootstrap_ci
from eval_pipeline.core.models import VERDICT_LABELS, in_dimension_order

MIN_PAIRS_FOR_CI = 5


def case_result(case: Mapping[str, Any]) -> str:
    """``pass``, ``fail`` or ``error``: an errored case is neither passed nor failed."""
    if case.get("state") == "error":
        return "error"
    return "pass" if case.get("passed") else "fail"


def dimension_score(case: Mapping[str, Any], dimension: str) -> float | None:
    """The case's score on the dimension; None unless it was scored."""
    dim = case.get("dimensions", {}).get(dimension)
    if not dim or dim.get("state") != "scored" or dim.get("score") is None:
        return None
    return float(dim["score"])


def _gates_by_kind(case: Mapping[str, Any]) -> dict[str, str]:
    return {g.split(":", 1)[0]: g for g in case.get("gate_failures", [])}


def _delta(base: float | None, head: float | None) -> float | None:
    return None if base is None or head is None else round(head - base, 4)


def _dimension_changes(
    base: Mapping[str, Any], head: Mapping[str, Any], min_change: float
) -> list[dict[str, Any]]:
    base_dims = base.get("dimensions", {})
    head_dims = head.get("dimensions", {})
    changes = []
    for name in in_dimension_order([*base_dims, *head_dims]):
        b = base_dims.get(name, {})
        h = head_dims.get(name, {})
        delta = _delta(dimension_score(base, name), dimension_score(head, name))
        state_changed = b.get("state") != h.get("state")
        if state_changed or (delta is not None and abs(delta) >= min_change):
            changes.append(
                {
                    "dimension": name,
                    "base_state": b.get("state"),
                    "head_state": h.get("state"),
                    "base_score": b.get("score"),
                    "head_score": h.get("score"),
                    "delta": delta,
                    "base_reason": b.get("reason", ""),
                    "head_reason": h.get("reason", ""),
                }
            )
    return changes


def _direction(
    base_result: str,
    head_result: str,
    overall_delta: float | None,
    gates_added: Sequence[str],
    gates_removed: Sequence[str],
    contradicted_change: int,
    min_change: float,
) -> str | None:
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


def compare_case(
    base: Mapping[str, Any], head: Mapping[str, Any], *, min_change: float = 0.05
) -> dict[str, Any]:
    """What changed for one case between two runs, and whether that is better or worse."""
    base_gates = _gates_by_kind(base)
    head_gates = _gates_by_kind(head)
    base_verdicts = base.get("verdict_counts", {})
    head_verdicts = head.get("verdict_counts", {})
    verdict_changes = {
        k: head_verdicts.get(k, 0) - base_verdicts.get(k, 0)
        for k in VERDICT_LABELS
        if head_verdicts.get(k, 0) != base_verdicts.get(k, 0)
    }
    gates_added = [g for kind, g in head_gates.items() if kind not in base_gates]
    gates_removed = [g for kind, g in base_gates.items() if kind not in head_gates]
    base_result, head_result = case_result(base), case_result(head)
    overall_delta = _delta(base.get("overall"), head.get("overall"))
    return {
        "case_id": head["case_id"],
        "base_result": base_result,
        "head_result": head_result,
        "base_overall": base.get("overall"),
        "head_overall": head.get("overall"),
        "overall_delta": overall_delta,
        "gates_added": gates_added,
        "gates_removed": gates_removed,
        "verdict_changes": verdict_changes,
        "dimension_changes": _dimension_changes(base, head, min_change),
        "direction": _direction(
            base_result,
            head_result,
            overall_delta,
            gates_added,
            gates_removed,
            verdict_changes.get("contradicted", 0),
            min_change,
        ),
    }


def _routed_right(case: Mapping[str, Any]) -> bool:
    route = case["routing"]
    return bool(route["intent"] == route["expected"])


def routing_changes(
    base_cases: Mapping[str, Mapping[str, Any]],
    head_cases: Mapping[str, Mapping[str, Any]],
    paired: Sequence[str],
) -> dict[str, Any]:
    """Cases routed right in one run and wrong in the other, over the paired cases that expect
    the same intent in both; with each run's routing accuracy on those cases."""
    routed = [
        cid
        for cid in paired
        if base_cases[cid].get("routing")
        and head_cases[cid].get("routing")
        and base_cases[cid]["routing"]["expected"] == head_cases[cid]["routing"]["expected"]
    ]
    changes: dict[str, list[dict[str, Any]]] = {"regressions": [], "improvements": []}
    for cid in routed:
        before, after = _routed_right(base_cases[cid]), _routed_right(head_cases[cid])
        if before != after:
            changes["improvements" if after else "regressions"].append(
                {
                    "case_id": cid,
                    "expected": head_cases[cid]["routing"]["expected"],
                    "base_intent": base_cases[cid]["routing"]["intent"],
                    "head_intent": head_cases[cid]["routing"]["intent"],
                }
            )

    def accuracy(cases: Mapping[str, Mapping[str, Any]]) -> float | None:
        if not routed:
            return None
        return round(sum(_routed_right(cases[cid]) for cid in routed) / len(routed), 4)

    return {
        "cases": len(routed),
        "base_accuracy": accuracy(base_cases),
        "head_accuracy": accuracy(head_cases),
        **changes,
    }


def _ci(base: Sequence[float], head: Sequence[float], **kwargs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"pairs": len(base), "mean_delta": None, "ci_low": None, "ci_high": None}
    if not base:
        return out
    if len(base) < MIN_PAIRS_FOR_CI:
        out["mean_delta"] = round(fmean(h - b for b, h in zip(base, head, strict=True)), 4)
        return out
    mean, lo, hi = paired_bootstrap_ci(base, head, **kwargs)
    out.update(mean_delta=round(mean, 4), ci_low=round(lo, 4), ci_high=round(hi, 4))
    return out


def _rate(
    cases: Mapping[str, Mapping[str, Any]], paired: Sequence[str], result: str
) -> float | None:
    """Share of the paired cases with this result, so both runs are rated on the same cases."""
    if not paired:
        return None
    return round(sum(case_result(cases[cid]) == result for cid in paired) / len(paired), 4)


def error_change(case: Mapping[str, Any]) -> str | None:
    """``new`` (answered, now in error), ``recovered`` (in error, now answered), ``persisting``."""
    base, head = case["base_result"] == "error", case["head_result"] == "error"
    if base and head:
        return "persisting"
    if head:
        return "new"
    return "recovered" if base else None


def _severity(case: Mapping[str, Any]) -> tuple[int, float]:
    flipped = (case["base_result"] == "pass") != (case["head_result"] == "pass")
    return (0 if flipped else 1, -abs(case["overall_delta"] or 0.0))


def compare_runs(
    base: Mapping[str, Any],
    head: Mapping[str, Any],
    *,
    level: float = 0.05,
    resamples: int = 2000,
    seed: int = 0,
    min_change: float = 0.05,
) -> dict[str, Any]:
    """Paired comparison of two run summaries (docs/formats.md); JSON-serialisable.

    ``significant_regression`` is set when McNemar rejects at ``level`` with more pass→fail than
    fail→pass cases, or when the bootstrap interval (confidence ``1 - level``) of the mean overall
    delta lies entirely below zero. ``min_change`` is the smallest score change reported per case.
    """
    base_cases = {c["case_id"]: c for c in base["cases"]}
    head_cases = {c["case_id"]: c for c in head["cases"]}
    paired = [cid for cid in head_cases if cid in base_cases]
    cases = [
        compare_case(base_cases[cid], head_cases[cid], min_change=min_change) for cid in paired
    ]

    answered = [c for c in cases if error_change(c) is None]
    pass_to_fail = sum(c["base_result"] == "pass" and c["head_result"] == "fail" for c in answered)
    fail_to_pass = sum(c["base_result"] == "fail" and c["head_result"] == "pass" for c in answered)
    p_value = mcnemar_exact(pass_to_fail, fail_to_pass)
    boot = {"resamples": resamples, "seed": seed, "level": 1 - level}

    overall_pairs = [
        (base_cases[cid]["overall"], head_cases[cid]["overall"])
        for cid in paired
        if base_cases[cid].get("overall") is not None and head_cases[cid].get("overall") is not None
    ]
    overall = _ci([b for b, _ in overall_pairs], [h for _, h in overall_pairs], **boot)

    dimension_names = in_dimension_order(
        d for c in (*base_cases.values(), *head_cases.values()) for d in c.get("dimensions", {})
    )
    dimensions = {}
    for name in dimension_names:
        pairs = [
            (b, h)
            for cid in paired
            if (b := dimension_score(base_cases[cid], name)) is not None
            and (h := dimension_score(head_cases[cid], name)) is not None
        ]
        dimensions[name] = _ci([b for b, _ in pairs], [h for _, h in pairs], **boot)

    reasons = []
    if p_value < level and pass_to_fail > fail_to_pass:
        reasons.append(
            f"McNemar p={p_value:.4g} < {level:g}: {pass_to_fail} pass→fail vs "
            f"{fail_to_pass} fail→pass"
        )
    if overall["ci_high"] is not None and overall["ci_high"] < 0:
        reasons.append(
            f"overall delta {overall['mean_delta']:+.4f}, {1 - level:.0%} CI "
            f"[{overall['ci_low']:+.4f}, {overall['ci_high']:+.4f}] below zero"
        )

    return {
        "base_run_key": base.get("run_key"),
        "head_run_key": head.get("run_key"),
        "level": level,
        "paired_cases": len(paired),
        "answered_pairs": len(answered),
        "only_in_base": sorted(set(base_cases) - set(head_cases)),
        "only_in_head": sorted(set(head_cases) - set(base_cases)),
        **{
            f"{result}_rate": {
                "base": _rate(base_cases, paired, result),
                "head": _rate(head_cases, paired, result),
            }
            for result in ("pass", "error")
        },
        "mcnemar": {
            "pass_to_fail": pass_to_fail,
            "fail_to_pass": fail_to_pass,
            "p_value": p_value,
        },
        "bootstrap": boot,
        "overall": overall,
        "dimensions": dimensions,
        "cases": cases,
        "regressions": sorted((c for c in cases if c["direction"] == "regression"), key=_severity),
        "improvements": sorted(
            (c for c in cases if c["direction"] == "improvement"), key=_severity
        ),
        "routing": routing_changes(base_cases, head_cases, paired),
        "error_changes": {
            kind: [c for c in cases if error_change(c) == kind]
            for kind in ("new", "recovered", "persisting")
        },
        "significant_regression": bool(reasons),
        "significance_reasons": reasons,
    }


def trend(summaries: Sequence[Mapping[str, Any]], last_n: int | None = None) -> dict[str, Any]:
    """Pass rate, coverage, mean scores, latency and judge cost across runs (oldest first)."""
    chosen = list(summaries[-last_n:] if last_n else summaries)
    names = in_dimension_order(d for s in chosen for d in s.get("dimension_means", {}))
    runs: list[dict[str, Any]] = [
        {
            "run_key": s.get("run_key"),
            "created_at": s.get("created_at"),
            "cases_total": s.get("cases_total"),
            "pass_rate": s.get("pass_rate"),
            "coverage": s.get("coverage"),
            "mean_overall": s.get("mean_overall"),
            "latency_mean_s": (s.get("latency") or {}).get("mean_s"),
            "latency_p95_s": (s.get("latency") or {}).get("p95_s"),
            "cost_usd": (s.get("cost") or {}).get("usd"),
            "dimension_means": {d: s.get("dimension_means", {}).get(d) for d in names},
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
