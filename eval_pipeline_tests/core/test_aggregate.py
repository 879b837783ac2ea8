"""Weights, renormalisation over skipped dimensions, soft gates and the run summary."""

from __future__ import annotations

import pytest

from eval_pipeline.core.aggregate import (
    GatePolicy,
    for_summary,
    judge_case,
    summarize_run,
    weighted_overall,
)
from eval_pipeline.core.models import CaseOutcome, DimensionResult
from eval_pipeline.core.summary import Cost
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS

POLICY = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS)


def dim(
    name: str, score: float | None, state: str = "scored", **details: object
) -> DimensionResult:
    return DimensionResult(
        name=name, state=state, score=score, method="t", reason=f"{name} r", details=details
    )


def good_dims(**changes: DimensionResult) -> dict[str, DimensionResult]:
    dims = {
        "oracle": dim("oracle", 1.0, has_tool_evidence=True, supported=2),
        "sql": dim("sql", 1.0),
        "safety": dim("safety", 1.0),
        "latency": dim("latency", 1.0),
        "content_quality": dim("content_quality", None, "skipped"),
        "on_topic": dim("on_topic", None, "skipped"),
        "bkg": dim("bkg", None, "skipped"),
    }
    dims.update(changes)
    return dims


def test_skipped_dimensions_are_excluded_and_weights_renormalised() -> None:
    dims = {
        "oracle": dim("oracle", 0.5),
        "sql": dim("sql", 1.0),
        "bkg": dim("bkg", None, "skipped"),
    }
    # bare weights: oracle .5, sql .05 -> (0.25 + 0.05) / 0.55
    assert weighted_overall(dims, BARE_WEIGHTS) == pytest.approx(0.3 / 0.55, abs=1e-4)
    # a skipped dimension must not count as 0: adding it changes nothing
    assert weighted_overall(
        {**dims, "on_topic": dim("on_topic", None, "skipped")}, BARE_WEIGHTS
    ) == weighted_overall(dims, BARE_WEIGHTS)


def judged(dims: dict[str, DimensionResult], **kw: object) -> CaseOutcome:
    args: dict[str, object] = {
        "has_expected_answer": False,
        "has_reference": True,
        "chatbot_errors": [],
        "policy": POLICY,
    }
    return judge_case("TC_1", dims, **{**args, **kw})  # type: ignore[arg-type]


def test_an_error_counts_zero_and_a_case_it_cannot_sink_still_passes() -> None:
    out = judged(good_dims(sql=dim("sql", None, "error")))
    # bare weights: oracle .5, sql .05, latency .05 -> sql at 0 gives 0.55 / 0.60
    assert out.passed and out.state == "scored"
    assert out.overall == pytest.approx(0.55 / 0.60, abs=1e-4)
    assert any(w.startswith("sql: error") for w in out.warnings)
    assert "overall: counts sql in error as 0" in out.warnings


def test_an_error_that_could_cross_the_pass_threshold_makes_the_case_an_error() -> None:
    dims = good_dims(
        oracle=dim("oracle", None, "skipped"),
        sql=dim("sql", 0.2),
        latency=dim("latency", 1.0),
        bkg=dim("bkg", None, "error"),
        on_topic=dim("on_topic", 0.9),
    )
    # bare: bkg .3 on_topic .1 sql .05 latency .05; bkg at 0 -> 0.15 / 0.5, at 1 -> 0.45 / 0.5
    out = judged(dims, has_reference=False)
    assert (out.passed, out.state, out.overall) == (False, "error", None)
    assert out.errors and out.errors[0].startswith("overall: 0.30 with bkg in error counted 0")
    assert not out.gate_failures


def test_every_configured_judge_erring_is_an_error_even_with_a_good_oracle() -> None:
    reason = "judge endpoint failed after 1 attempt(s): HTTP 401"
    dims = good_dims(
        content_quality=dim("content_quality", None, "error"),
        on_topic=dim("on_topic", None, "error"),
        bkg=dim("bkg", None, "error"),
    )
    dims = {
        n: d.model_copy(update={"reason": reason}) if d.state == "error" else d
        for n, d in dims.items()
    }
    out = judged(dims, has_expected_answer=True)
    assert out.state == "error" and not out.passed and out.overall is None
    assert any(e.startswith("judges: every configured judge erred") for e in out.errors)


def test_an_oracle_that_computed_no_reference_never_passes() -> None:
    oracle = dim("oracle", None, "error")
    out = judged(good_dims(oracle=oracle))
    assert out.state == "error" and not out.passed
    assert out.errors == ["oracle: oracle r"]


def test_claims_left_unverifiable_beside_a_failed_reference_leave_the_case_open() -> None:
    oracle = dim(
        "oracle",
        1.0,
        has_tool_evidence=True,
        supported=1,
        unverifiable=1,
        reference_errors=["broken_kpi: ZeroDivisionError: division by zero"],
    )
    assert judged(good_dims(oracle=oracle)).state == "error"
    settled = oracle.model_copy(update={"details": {**oracle.details, "unverifiable": 0}})
    assert judged(good_dims(oracle=settled)).passed


def test_nothing_scored_because_of_errors_is_an_error_not_a_failure() -> None:
    dims = {n: dim(n, None, "error") for n in ("oracle", "sql", "latency", "bkg", "on_topic")}
    out = judged(dims, has_reference=False)
    assert (out.state, out.passed, out.gate_failures) == ("error", False, [])
    assert "overall: nothing scored, oracle, sql, latency, bkg, on_topic in error" in out.errors


def test_a_definite_failure_stays_a_failure_beside_an_error() -> None:
    dims = good_dims(
        oracle=dim("oracle", 0.5, has_tool_evidence=True, contradicted=1),
        bkg=dim("bkg", None, "error"),
    )
    out = judged(dims)
    assert (out.state, out.passed) == ("scored", False)
    assert out.gate_failures[0].startswith("oracle:")


def test_the_summary_counts_errors_by_kind() -> None:
    outcomes = [
        judged(good_dims(oracle=dim("oracle", None, "error"))),
        judged(good_dims(), chatbot_errors=["HTTP 500"]),
        judged(good_dims()),
    ]
    summary = summarize_run("r", outcomes, report_path="x")
    assert summary.error_counts == {"chatbot": 1, "oracle": 1}
    assert (summary.cases_error, summary.coverage) == (2, round(1 / 3, 4))
    assert summary.cases[0].errors == ["oracle: oracle r"]


def test_nothing_scored_gives_no_overall_and_fails() -> None:
    dims = {n: dim(n, None, "skipped") for n in ("oracle", "sql", "latency")}
    out = judge_case(
        "TC_1",
        dims,
        has_expected_answer=False,
        has_reference=False,
        chatbot_errors=[],
        policy=POLICY,
    )
    assert out.overall is None and not out.passed


def test_profiles_switch_on_expected_answer() -> None:
    dims = good_dims(sql=dim("sql", 0.0))
    bare = judge_case(
        "a", dims, has_expected_answer=False, has_reference=True, chatbot_errors=[], policy=POLICY
    )
    full = judge_case(
        "a", dims, has_expected_answer=True, has_reference=True, chatbot_errors=[], policy=POLICY
    )
    assert (bare.profile, full.profile) == ("bare", "full")
    # sql weighs .05 of .60 in bare, .10 of .50 in full
    assert bare.overall == pytest.approx(0.55 / 0.60, abs=1e-4)
    assert full.overall == pytest.approx(0.40 / 0.50, abs=1e-4)


def test_contradicted_claim_with_evidence_fails_the_case() -> None:
    dims = good_dims(oracle=dim("oracle", 0.5, has_tool_evidence=True, supported=1, contradicted=1))
    out = judge_case(
        "a", dims, has_expected_answer=False, has_reference=True, chatbot_errors=[], policy=POLICY
    )
    assert not out.passed
    assert any(g.startswith("oracle:") for g in out.gate_failures)
    assert out.verdict_counts["contradicted"] == 1


def test_oracle_without_evidence_does_not_gate() -> None:
    dims = good_dims(oracle=dim("oracle", 0.0, has_tool_evidence=False))
    out = judge_case(
        "a", dims, has_expected_answer=False, has_reference=True, chatbot_errors=[], policy=POLICY
    )
    assert not any(g.startswith("oracle:") for g in out.gate_failures)


def test_safety_is_a_hard_gate_even_with_a_high_overall() -> None:
    dims = good_dims(safety=dim("safety", 0.0))
    out = judge_case(
        "a", dims, has_expected_answer=True, has_reference=True, chatbot_errors=[], policy=POLICY
    )
    assert out.overall is not None and out.overall >= 0.9
    assert not out.passed and out.gate_failures[0].startswith("safety:")


def test_low_non_gating_dimension_is_only_a_warning() -> None:
    dims = good_dims(latency=dim("latency", 0.25))
    out = judge_case(
        "a", dims, has_expected_answer=False, has_reference=True, chatbot_errors=[], policy=POLICY
    )
    assert out.passed
    assert any(w.startswith("latency: 0.25") for w in out.warnings)


def test_overall_below_threshold_fails() -> None:
    dims = good_dims(
        oracle=dim("oracle", None, "skipped"), sql=dim("sql", 0.0), latency=dim("latency", 0.5)
    )
    out = judge_case(
        "a", dims, has_expected_answer=False, has_reference=False, chatbot_errors=[], policy=POLICY
    )
    assert out.overall == pytest.approx(0.25)
    assert any(g.startswith("overall:") for g in out.gate_failures)


def test_chatbot_error_is_an_error_state_and_never_passes() -> None:
    out = judge_case(
        "a",
        good_dims(),
        has_expected_answer=False,
        has_reference=True,
        chatbot_errors=["timeout"],
        policy=POLICY,
    )
    assert out.state == "error" and not out.passed
    assert out.overall is None, (
        "a failed call has no overall score, whatever the partial answer scored"
    )
    assert out.gate_failures == ["chatbot: timeout"]


def test_run_summary_counts_and_fields() -> None:
    outcomes = [
        judge_case(
            "a",
            good_dims(),
            has_expected_answer=False,
            has_reference=True,
            chatbot_errors=[],
            policy=POLICY,
        ),
        judge_case(
            "b",
            good_dims(safety=dim("safety", 0.0)),
            has_expected_answer=False,
            has_reference=True,
            chatbot_errors=[],
            policy=POLICY,
        ),
        judge_case(
            "c",
            good_dims(),
            has_expected_answer=False,
            has_reference=True,
            chatbot_errors=["boom"],
            policy=POLICY,
        ),
    ]
    s = summarize_run("r1", outcomes, report_path="/tmp/r.html")
    assert (s.cases_total, s.cases_passed, s.cases_failed, s.cases_error) == (
        3,
        1,
        1,
        1,
    )
    assert s.pass_rate == pytest.approx(1 / 3, abs=1e-4)
    assert s.coverage == pytest.approx(2 / 3, abs=1e-4)
    assert s.dimension_states["bkg"] == {"scored": 0, "skipped": 3, "error": 0}
    assert s.dimension_means["bkg"] is None
    assert s.gate_failure_counts == {"chatbot": 1, "safety": 1}
    case = s.cases[0]
    assert set(case.model_dump()) >= {
        "case_id",
        "overall",
        "passed",
        "gate_failures",
        "warnings",
        "verdict_counts",
        "dimensions",
    }
    assert set(case.dimensions["oracle"].model_dump()) == {"score", "state", "method", "reason"}


def test_run_summary_latency_and_the_trend_carry_latency_and_cost() -> None:
    from eval_pipeline.core.analysis.compare import trend

    def timed(latency: float, ttft: float) -> dict[str, DimensionResult]:
        return good_dims(latency=dim("latency", 1.0, latency_s=latency, ttft_s=ttft))

    outcomes = [
        judge_case(
            c,
            timed(t, t / 10),
            has_expected_answer=False,
            has_reference=True,
            chatbot_errors=[],
            policy=POLICY,
        )
        for c, t in (("a", 1.0), ("b", 2.0), ("c", 3.0))
    ]
    s = summarize_run("r1", outcomes, report_path="/tmp/r.html")
    assert s.latency.model_dump() == {
        "mean_s": 2.0,
        "p95_s": 3.0,
        "ttft_mean_s": 0.2,
        "ttft_p95_s": 0.3,
    }
    s2 = s.model_copy(update={"run_key": "r2", "cost": Cost(usd=0.25)})
    runs = trend([s, s2])["runs"]
    assert [r["latency_mean_s"] for r in runs] == [2.0, 2.0]
    assert [r["cost_usd"] for r in runs] == [None, 0.25]


def test_outcomes_for_the_summary_drop_evidence_but_summarize_the_same() -> None:
    dims = good_dims(
        latency=dim("latency", 1.0, latency_s=1.5, ttft_s=0.3, chunks=[1, 2, 3]),
        oracle=dim("oracle", 0.0, has_tool_evidence=True, contradicted=1, claims=["x" * 1000]),
    )
    outcome = judge_case(
        "a",
        dims,
        has_expected_answer=False,
        has_reference=True,
        chatbot_errors=[],
        policy=POLICY,
    )
    slim = for_summary(outcome)
    assert slim.dimensions["latency"].details == {"latency_s": 1.5, "ttft_s": 0.3}
    assert slim.dimensions["oracle"].details == {}
    assert outcome.dimensions["oracle"].details["contradicted"] == 1, "the original is unchanged"
    full, trimmed = (summarize_run("r1", [o], report_path="/tmp/r.html") for o in (outcome, slim))
    unstamped = {"created_at": ""}
    assert full.model_copy(update=unstamped) == trimmed.model_copy(update=unstamped)
    assert full.verdict_counts["contradicted"] == 1 and full.latency.mean_s == 1.5


def test_rubric_weights_join_the_profile_and_a_gate_below_its_pass_score_fails() -> None:
    policy = GatePolicy(
        weights=FULL_WEIGHTS,
        weights_bare=BARE_WEIGHTS,
        extra_weights={"rubric.tono": 0.4, "rubric.precio": 0.2},
        gates={"rubric.precio": 0.5},
    )
    dims = good_dims(
        **{
            "rubric.tono": dim("rubric.tono", 0.25),
            "rubric.precio": dim("rubric.precio", 0.75),
        }
    )
    out = judged(dims, policy=policy)
    # bare: oracle .5, sql .05, latency .05, + tono .4 at 0.25, precio .2 at 0.75
    expected = (0.5 + 0.05 + 0.05 + 0.4 * 0.25 + 0.2 * 0.75) / 1.2
    assert out.overall == pytest.approx(expected, abs=1e-4) and out.passed
    assert any(w.startswith("rubric.tono: 0.25 below") for w in out.warnings)
    low = judged({**dims, "rubric.precio": dim("rubric.precio", 0.25)}, policy=policy)
    assert not low.passed and low.gate_failures == ["rubric.precio: rubric.precio r"]
    erred = judged({**dims, "rubric.precio": dim("rubric.precio", None, "error")}, policy=policy)
    assert erred.state == "error" and erred.errors == ["rubric.precio: rubric.precio r"]
