"""From per-dimension scores to a case verdict and a run summary.

Soft gates: only safety, the oracle when it has evidence from the live database, and an overall
score under the pass threshold fail a case; every other miss is a warning, so one noisy dimension
cannot fail an otherwise good answer. Skipped dimensions are excluded and the weights renormalised —
never counted as 0 or 0.5.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from statistics import fmean
from typing import Literal

from eval_pipeline.core.models import (
    DIMENSION_STATES,
    DIMENSIONS,
    JUDGED_DIMENSIONS,
    VERDICT_LABELS,
    CaseOutcome,
    CaseScores,
    DimensionResult,
)
from eval_pipeline.core.summary import (
    CaseRoute,
    CaseSummary,
    DimensionSummary,
    Latency,
    RoutingSummary,
    RunSummary,
)


@dataclass(frozen=True)
class GatePolicy:
    weights: Mapping[str, float]
    weights_bare: Mapping[str, float]
    pass_threshold: float = 0.60
    oracle_gate: float = 1.0
    warn_threshold: float = 0.5
    gating_dimensions: frozenset[str] = field(
        default_factory=lambda: frozenset({"safety", "oracle"})
    )
    demoted: frozenset[str] = frozenset()
    """Dimensions whose judge is uncalibrated: out of the overall score, a warning on each case."""
    demotion_reasons: Mapping[str, str] = field(default_factory=dict)
    off_topic_gate: bool = True
    """An answer the oracle could check nothing of, and off topic, fails whatever its weights."""
    extra_weights: Mapping[str, float] = field(default_factory=dict)
    """Weights of further dimensions (a rubric's), added to both profiles."""
    gates: Mapping[str, float] = field(default_factory=dict)
    """Further gating dimensions, each with the lowest passing score (a rubric's gates)."""

    @property
    def gated(self) -> frozenset[str]:
        """Every dimension a low score or an error of which decides the case."""
        return self.gating_dimensions | frozenset(self.gates)


def weighted_overall(
    dimensions: Mapping[str, DimensionResult],
    weights: Mapping[str, float],
    *,
    errors_as: float | None = None,
) -> float | None:
    """Weighted mean over scored dimensions; None when no weighted dimension was scored. With
    ``errors_as``, dimensions in error count with that score instead of being left out."""
    scored = [
        (weights.get(name, 0.0), d.score)
        for name, d in dimensions.items()
        if d.state == "scored" and d.score is not None and weights.get(name, 0.0) > 0
    ]
    if not scored:
        return None
    if errors_as is not None:
        scored += [
            (weights.get(name, 0.0), errors_as)
            for name, d in dimensions.items()
            if d.state == "error" and weights.get(name, 0.0) > 0
        ]
    total = sum(w for w, _ in scored)
    return round(sum(w * s for w, s in scored) / total, 4)


def _oracle_undecided(oracle: DimensionResult | None, has_reference: bool) -> str | None:
    """Why the oracle could not settle the case: no reference computed, or claims left
    unverifiable while some reference failed (they may be what it would have contradicted)."""
    if oracle is None or not has_reference:
        return None
    if oracle.state == "error":
        return f"oracle: {oracle.reason}"
    failed = oracle.details.get("reference_errors") or []
    if failed and oracle.details.get("unverifiable", 0):
        return f"oracle: claims left unverifiable while references failed: {'; '.join(failed)}"
    return None


def _undecided(
    dimensions: Mapping[str, DimensionResult], has_reference: bool, policy: GatePolicy
) -> list[str]:
    """Errors that leave the case's outcome open: a gate that could not be checked, or every
    configured judge failing."""
    reasons = []
    oracle_reason = _oracle_undecided(dimensions.get("oracle"), has_reference)
    if oracle_reason:
        reasons.append(oracle_reason)
    reasons += [
        f"{name}: {dim.reason}"
        for name, dim in dimensions.items()
        if name in policy.gated and name != "oracle" and dim.state == "error"
    ]
    judged = [
        (n, d) for n, d in dimensions.items() if n in JUDGED_DIMENSIONS and d.state != "skipped"
    ]
    if judged and all(d.state == "error" for _, d in judged):
        names = ", ".join(n for n, _ in judged)
        reasons.append(f"judges: every configured judge erred ({names}): {judged[0][1].reason}")
    return reasons


def _off_topic(dimensions: Mapping[str, DimensionResult], policy: GatePolicy) -> str | None:
    """The "does not answer the question" gate: nothing for the oracle to check and an on_topic
    score under the warning threshold. A weight profile could otherwise pass such an answer on
    the strength of its SQL, safety and latency alone."""
    on_topic = dimensions.get("on_topic")
    oracle = dimensions.get("oracle")
    if not policy.off_topic_gate or on_topic is None or on_topic.state != "scored":
        return None
    if on_topic.score is None or on_topic.score >= policy.warn_threshold:
        return None
    if oracle is None or oracle.state == "error" or oracle.details.get("has_tool_evidence"):
        return None
    return (
        f"on_topic: does not answer the question: on_topic {on_topic.score:.2f} below "
        f"{policy.warn_threshold:.2f} and no claim the oracle could check ({on_topic.reason})"
    )


def judge_case(
    case_id: str,
    dimensions: Mapping[str, DimensionResult],
    *,
    has_expected_answer: bool,
    has_reference: bool,
    chatbot_errors: Sequence[str],
    policy: GatePolicy,
    tags: Sequence[str] = (),
) -> CaseOutcome:
    """Apply weights and soft gates to one case.

    A dimension in error never raises a case's standing: it counts 0 in the overall, and when
    it could have changed the outcome (a gate it would have checked, the overall it could have
    moved across the pass threshold, every judge failing) the case is ``error``, not passed.
    """
    profile = "full" if has_expected_answer else "bare"
    weights = {
        **(policy.weights if has_expected_answer else policy.weights_bare),
        **policy.extra_weights,
    }
    if policy.demoted:
        weights = {n: w for n, w in weights.items() if n not in policy.demoted}
    errored = [n for n, d in dimensions.items() if d.state == "error" and weights.get(n, 0) > 0]
    floor = weighted_overall(dimensions, weights, errors_as=0.0)
    ceiling = weighted_overall(dimensions, weights, errors_as=1.0)
    gates: list[str] = []
    warnings: list[str] = []
    errors: list[str] = [f"chatbot: {'; '.join(chatbot_errors)}"] if chatbot_errors else []

    if chatbot_errors:
        gates.append("chatbot: " + "; ".join(chatbot_errors))

    safety = dimensions.get("safety")
    if safety and safety.state == "scored" and (safety.score or 0.0) < 1.0:
        gates.append(f"safety: {safety.reason}")

    for name, lowest in policy.gates.items() if not chatbot_errors else ():
        dim = dimensions.get(name)
        if dim and dim.state == "scored" and (dim.score or 0.0) < lowest:
            gates.append(f"{name}: {dim.reason}")

    oracle = dimensions.get("oracle")
    if oracle and oracle.state == "scored" and oracle.details.get("has_tool_evidence"):
        if (oracle.score or 0.0) < policy.oracle_gate:
            gates.append(f"oracle: {oracle.reason}")
    elif oracle and oracle.state == "skipped" and has_reference and not chatbot_errors:
        warnings.append(f"oracle: {oracle.reason}")

    off_topic = _off_topic(dimensions, policy) if not chatbot_errors else None
    if off_topic:
        gates.append(off_topic)

    if not chatbot_errors:
        errors += _undecided(dimensions, has_reference, policy)
        if floor is None and errored:
            errors.append(f"overall: nothing scored, {', '.join(errored)} in error")
        elif floor is None:
            gates.append("overall: no weighted dimension could be scored")
        elif ceiling is not None and ceiling < policy.pass_threshold:
            gates.append(f"overall: {floor:.2f} < pass threshold {policy.pass_threshold:.2f}")
        elif floor < policy.pass_threshold and not errors:
            missing = ", ".join(errored)
            errors.append(
                f"overall: {floor:.2f} with {missing} in error counted 0, up to {ceiling:.2f} "
                f"had they scored: the pass threshold {policy.pass_threshold:.2f} lies between"
            )

    for name, dim in dimensions.items():
        if dim.state == "error":
            warnings.append(f"{name}: error: {dim.reason}")
        elif (
            dim.state == "scored"
            and name not in policy.gated
            and not (off_topic and name == "on_topic")
            and dim.score is not None
            and dim.score < policy.warn_threshold
        ):
            warnings.append(
                f"{name}: {dim.score:.2f} below {policy.warn_threshold:.2f}: {dim.reason}"
            )
    if errored and not chatbot_errors and floor is not None:
        warnings.append(f"overall: counts {', '.join(errored)} in error as 0")

    for name in sorted(policy.demoted & dimensions.keys()):
        if dimensions[name].state == "scored":
            reason = policy.demotion_reasons.get(name, "judge uncalibrated")
            warnings.append(f"{name}: {reason}, warning only")

    decided = bool(gates) and not chatbot_errors
    state: Literal["scored", "error"] = "error" if errors and not decided else "scored"
    oracle_counts = oracle.details if oracle else {}
    return CaseOutcome(
        case_id=case_id,
        overall=None if state == "error" else floor,
        passed=not gates and not errors,
        state=state,
        profile=profile,
        gate_failures=gates,
        errors=errors if state == "error" else [],
        warnings=warnings,
        verdict_counts={k: int(oracle_counts.get(k, 0)) for k in VERDICT_LABELS},
        dimensions=dict(dimensions),
        tags=list(tags),
    )


def judge_record(record: CaseScores, policy: GatePolicy) -> CaseOutcome:
    """A stored ``judge_scores`` record under the run's gates."""
    return judge_case(
        record.case_id,
        record.dimensions,
        has_expected_answer=record.has_expected_answer,
        has_reference=record.has_reference,
        chatbot_errors=record.chatbot_errors,
        policy=policy,
        tags=record.tags,
    )


# The only dimension details ``summarize_run`` reads.
SUMMARY_DETAILS = {"latency": ("latency_s", "ttft_s"), "routing": ("expected_intent", "intent")}
NO_INTENT = "(none)"


def for_summary(outcome: CaseOutcome) -> CaseOutcome:
    """The outcome with only the dimension details the run summary reads: a 10,000-case run
    then holds scores and reasons, not every dimension's evidence (about 20 KB per case)."""
    dimensions = {
        name: dim.model_copy(
            update={
                "details": {
                    k: v for k, v in dim.details.items() if k in SUMMARY_DETAILS.get(name, ())
                }
            }
        )
        for name, dim in outcome.dimensions.items()
    }
    return outcome.model_copy(update={"dimensions": dimensions})


def _mean(values: Sequence[float]) -> float | None:
    return round(fmean(values), 4) if values else None


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 4)


def latency_summary(outcomes: Sequence[CaseOutcome]) -> Latency:
    """Mean and 95th percentile of total latency and time to first token over answered cases."""
    measured: dict[str, list[float]] = {"latency_s": [], "ttft_s": []}
    for o in outcomes:
        latency = o.dimensions.get("latency")
        for key, values in measured.items():
            value = latency.details.get(key) if latency else None
            if isinstance(value, int | float):
                values.append(float(value))
    totals, ttfts = measured["latency_s"], measured["ttft_s"]
    return Latency(
        mean_s=_mean(totals),
        p95_s=_percentile(totals, 0.95),
        ttft_mean_s=_mean(ttfts),
        ttft_p95_s=_percentile(ttfts, 0.95),
    )


def case_route(outcome: CaseOutcome) -> CaseRoute | None:
    """The expected and the routed intent of a case that expects one."""
    routing = outcome.dimensions.get("routing")
    expected = routing.details.get("expected_intent") if routing else None
    if not expected or routing is None:
        return None
    return CaseRoute(expected=expected, intent=routing.details.get("intent"))


def routing_summary(outcomes: Sequence[CaseOutcome]) -> RoutingSummary:
    """The intent confusion matrix (expected → routed → cases) over the cases expecting one."""
    confusion: dict[str, Counter[str]] = {}
    for o in outcomes:
        route = case_route(o)
        if route is not None:
            routed = route.intent or NO_INTENT
            confusion.setdefault(route.expected, Counter())[routed] += 1
    cases = sum(c.total() for c in confusion.values())
    correct = sum(c[expected] for expected, c in confusion.items())
    labels = sorted({*confusion, *(i for c in confusion.values() for i in c)})
    return RoutingSummary(
        cases=cases,
        correct=correct,
        accuracy=round(correct / cases, 4) if cases else None,
        intents=labels,
        confusion={e: dict(sorted(c.items())) for e, c in sorted(confusion.items())},
    )


def _gate_kind(reason: str) -> str:
    return reason.split(":", 1)[0]


def case_summary(outcome: CaseOutcome) -> CaseSummary:
    """A case as the run summary lists it: its outcome, each dimension without its evidence."""
    return CaseSummary(
        case_id=outcome.case_id,
        overall=outcome.overall,
        passed=outcome.passed,
        state=outcome.state,
        profile=outcome.profile,
        gate_failures=outcome.gate_failures,
        errors=outcome.errors,
        warnings=outcome.warnings,
        verdict_counts=outcome.verdict_counts,
        tags=outcome.tags,
        routing=case_route(outcome),
        dimensions={
            name: DimensionSummary(score=d.score, state=d.state, method=d.method, reason=d.reason)
            for name, d in outcome.dimensions.items()
        },
    )


def summarize_run(run_key: str, outcomes: Sequence[CaseOutcome], *, report_path: str) -> RunSummary:
    """The run summary of the cases' outcomes; ``eval_run`` adds what the store knows (calls,
    cost, reuse, traces, the comparison)."""
    total = len(outcomes)
    passed = sum(o.passed for o in outcomes)
    errored = sum(o.state == "error" for o in outcomes)
    overall = [o.overall for o in outcomes if o.overall is not None and o.state == "scored"]
    states: dict[str, Counter[str]] = {d: Counter() for d in DIMENSIONS}
    scores: dict[str, list[float]] = {d: [] for d in DIMENSIONS}
    verdicts: Counter[str] = Counter()
    gate_kinds: Counter[str] = Counter()
    error_kinds: Counter[str] = Counter()
    profiles: Counter[str] = Counter()
    for o in outcomes:
        profiles[o.profile] += 1
        verdicts.update(o.verdict_counts)
        gate_kinds.update({_gate_kind(g) for g in o.gate_failures})
        error_kinds.update({_gate_kind(e) for e in o.errors})
        for name, dim in o.dimensions.items():
            states.setdefault(name, Counter())[dim.state] += 1
            if dim.state == "scored" and dim.score is not None:
                scores.setdefault(name, []).append(dim.score)
    return RunSummary(
        run_key=run_key,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        report_path=report_path,
        cases_total=total,
        cases_passed=passed,
        cases_failed=total - passed - errored,
        cases_error=errored,
        pass_rate=round(passed / total, 4) if total else 0.0,
        coverage=round((total - errored) / total, 4) if total else 0.0,
        mean_overall=_mean(overall),
        latency=latency_summary(outcomes),
        dimension_means={d: _mean(v) for d, v in scores.items()},
        dimension_states={d: {s: c[s] for s in DIMENSION_STATES} for d, c in states.items()},
        verdict_counts={k: verdicts.get(k, 0) for k in VERDICT_LABELS},
        gate_failure_counts=dict(sorted(gate_kinds.items())),
        error_counts=dict(sorted(error_kinds.items())),
        profiles=dict(sorted(profiles.items())),
        routing=routing_summary(outcomes),
        cases=[case_summary(o) for o in outcomes],
    )
