"""The deterministic oracle: right numbers in any human format pass, wrong numbers never do."""

from __future__ import annotations

from typing import Any

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import Claim, ReferenceValue, Verdict
from eval_pipeline.core.oracle import oracle_dimension, verify_claims
from eval_pipeline.core.oracle.binding import AnswerContext, bind
from eval_pipeline.core.oracle.facts import reference_facts
from eval_pipeline.core.oracle.labels import label_forms


def claim_labels(answer: str, claims: list[Claim], labels: set[str]) -> dict[str, set[str]]:
    bindings = bind(claims, AnswerContext(answer, "", label_forms(labels)))
    return {claim_id: binding.entities for claim_id, binding in bindings.items()}


def reference_entries(rv: ReferenceValue) -> list[Any]:
    return reference_facts(rv, 0)


def ref(
    value: Any,
    unit: str | None = "percent",
    *,
    name: str = "rate",
    kind: str = "kpi",
    params: dict[str, Any] | None = None,
    error: str | None = None,
    column_units: dict[str, str] | None = None,
) -> ReferenceValue:
    if isinstance(value, dict) and "rows" in value:
        shape = "table"
    elif isinstance(value, dict):
        shape = "mapping"
    else:
        shape = "scalar"
    return ReferenceValue.model_validate(
        {
            "reference": {kind: name, "params": params or {}},
            "shape": shape,
            "value": value,
            "unit": unit,
            "error": error,
            "column_units": column_units or {},
        }
    )


PCT = ref(92.47)
FRACTION = ref(0.9247, "fraction")
CNT = ref(1234, "count", name="completed")
FORTY_TWO = ref(42, "count", name="completed")
BIG = ref(1_234_567, "count", name="population")
CUR = ref(1_234_567, "currency", name="revenue")
DAYS = ref(12.46, "days", name="lead_time")
CHANGE = ref(-5.2, "percent", name="change")
SQL_COUNT = ref(1234, None, kind="sql", name="SELECT count(*) FROM t")
SQL_RATIO = ref(0.9247, None, kind="sql", name="SELECT avg(done) FROM t")
BY_REGION = ref({"West": 92.47, "East": 88.1, "North": 80.24})
COUNT_BY_REGION = ref({"West": 42, "East": 37}, "count", name="completed_by_region")
BY_MONTH = ref({"2026-01": 40, "2026-02": 48, "2026-03": 55}, "count", name="monthly")
TABLE = ref(
    {
        "columns": ["region", "completed", "rate"],
        "rows": [["West", 42, 92.47], ["East", 37, 88.1]],
    },
    name="completion_table",
)
WEST_PARAM = ref(92.47, params={"group": "West"})
EAST_PARAM = ref(88.1, params={"group": "East"})
OVERALL = ref(85.0, name="overall_rate")
SCORECARD = ref({"sites": 436, "completion rate": 52.52, "teams": 80}, params={"group": "South"})
RECORD = ref(
    {"group": "South", "state": "active", "completed steps": 3, "audits": 2, "average score": 76.0},
    "count",
    kind="core_node",
    name="summary",
)

S, C, U = "supported", "contradicted", "unverifiable"

CASES: list[tuple[str, list[ReferenceValue], list[str]]] = [
    # --- the demo bot's formats for a true value: all supported
    ("The completion rate is 92.5%.", [PCT], [S]),
    ("The completion rate is 92.47%.", [PCT], [S]),
    ("The completion rate is 92.5 percent.", [PCT], [S]),
    ("The completion rate is 92.5 per cent.", [PCT], [S]),
    ("The completion rate is 0.925.", [PCT], [S]),
    ("The completion rate is about 92%.", [PCT], [S]),
    ("The completion rate is 92%.", [PCT], [S]),
    ("Roughly 90% of work is complete.", [PCT], [S]),
    ("We completed 1,234 items.", [CNT], [S]),
    ("We completed 1234 items.", [CNT], [S]),
    ("We completed 1.2k items.", [CNT], [S]),
    ("We completed 1.23 thousand items.", [CNT], [S]),
    ("We completed about 1,200 items.", [CNT], [S]),
    ("We completed ~1,230 items.", [CNT], [S]),
    ("We completed forty-two items.", [FORTY_TWO], [S]),
    ("We completed forty two items.", [FORTY_TWO], [S]),
    ("The population is 1.2 million.", [BIG], [S]),
    ("The population is about 1.2 million.", [BIG], [S]),
    ("Revenue was $1,234,567.", [CUR], [S]),
    ("Revenue was $1.2M.", [CUR], [S]),
    ("Revenue was 1.23 million dollars.", [CUR], [S]),
    ("The average lead time is 12.5 days.", [DAYS], [S]),
    ("It went down 5.2% versus last month.", [CHANGE], [S]),
    ("It changed by -5.2%.", [CHANGE], [S]),
    ("More than 90% of the work is done.", [PCT], [S]),
    ("We completed more than 1,200 items.", [CNT], [S]),
    ("The rate is 92.5%.", [FRACTION], [S]),
    ("The rate is 0.925.", [FRACTION], [S]),
    ("The query returned 1,234 rows.", [SQL_COUNT], [S]),
    ("The share is 92.5%.", [SQL_RATIO], [S]),
    # --- multi-entity answers
    ("West: 92.5%, East: 88.1%", [BY_REGION], [S, S]),
    (
        "West leads at 92.5%, followed by East at 88.1% and North at 80.2%.",
        [BY_REGION],
        [S, S, S, S, S],
    ),
    ("Completion reached 92.5% in West and 88.1% in East.", [BY_REGION], [S, S]),
    ("West's rate is 92.5% compared with 88.1% for East.", [BY_REGION], [S, S]),
    ("West (92.5%) is ahead of East (88.1%).", [BY_REGION], [S, S]),
    ("- West: 92.5%\n- East: 88.1%", [BY_REGION], [S, S]),
    ("| Group | Rate |\n|---|---|\n| West | 92.5% |\n| East | 88.1% |", [BY_REGION], [S, S]),
    ("West has 42 completed sites and East 37.", [COUNT_BY_REGION], [S, S]),
    ("West has 42 completed sites and East 37.", [TABLE], [S, S]),
    ("West has 42 completed (92.5%), East 37 (88.1%).", [TABLE], [S, S, S, S]),
    ("In 2026-03, 55 milestones were completed.", [BY_MONTH], [S]),
    ("In March 2026, 55 milestones were completed.", [BY_MONTH], [S]),
    ("In 2026-03, 55 milestones were completed, up from 48 in 2026-02.", [BY_MONTH], [S, S]),
    ("West: 92.5%, East: 88.1%", [WEST_PARAM, EAST_PARAM], [S, S]),
    ("West is the best group, and overall completion is 85.0%.", [BY_REGION, OVERALL], [S, S]),
    ("West is the best group, and overall completion is 85.0%.", [BY_REGION], [S, U]),
    ("We completed 1,234 items, 92.5% of the plan.", [CNT, PCT], [S, S]),
    ("It has 436 sites. The completion rate is 52.5%. It has 80 teams.", [SCORECARD], [S, S, S]),
    ("South has 3 completed steps. It had 2 audits. Its average score is 76.0.", [RECORD], [S] * 3),
    ("South has three completed steps and 2 audits.", [RECORD], [S, S]),
    # --- a number the references do not cover stays unverifiable, never contradicted
    ("We completed 1,234 of 1,334 planned items.", [CNT], [S, U]),
    (
        "There are 79 completed items in total.",
        [COUNT_BY_REGION],
        [S],
    ),  # a total the sentence calls for
    ("Across three regions we completed 1,234 items.", [CNT], [U, S]),
    ("West has 42 completed items and a rate of 92.5%.", [BY_REGION], [U, S]),
    ("It took 3 weeks to complete 1,234 items.", [CNT], [U, S]),
    ("The rate is 92.5%.", [CNT], [U]),
    # --- injected faults: contradicted
    ("The completion rate is 92.0%.", [PCT], [C]),
    ("The completion rate is 0.92%.", [PCT], [C]),
    ("The completion rate is 0.92%.", [FRACTION], [C]),
    ("The completion rate is 0.92%.", [SQL_RATIO], [C]),
    ("The completion rate is 129.5%.", [PCT], [C]),
    ("The completion rate is about 65%.", [PCT], [C]),
    ("The completion rate is about 55%.", [BY_REGION, OVERALL], [C]),
    ("The completion rate is 0.65.", [PCT], [C]),
    ("We completed 1,604 items.", [CNT], [C]),
    ("We completed about 1,600 items.", [CNT], [C]),
    ("We completed about 860 items.", [CNT], [C]),
    ("We completed 1.2k items.", [ref(1260, "count")], [C]),
    ("We completed 1,200 items.", [CNT], [C]),
    ("We completed forty-two items.", [ref(60, "count")], [C]),
    ("We completed more than 1,600 items.", [CNT], [C]),
    ("We completed fewer than 1,000 items.", [CNT], [C]),
    ("The population is 1.6 million.", [BIG], [C]),
    ("Revenue was $1.8M.", [CUR], [C]),
    ("Revenue was about $700,000.", [CUR], [C]),
    ("The average lead time is 18.7 days.", [DAYS], [C]),
    ("The query returned 2,100 rows.", [SQL_COUNT], [C]),
    ("West: 92.5%, East: 61.7%", [BY_REGION], [S, C]),
    ("West: 88.1%", [BY_REGION], [C]),
    (
        "West leads at 92.5%, followed by East at 88.1% and North at 52.3%.",
        [BY_REGION],
        [S, S, S, S, C],
    ),
    ("West has 42 completed sites and East 55.", [COUNT_BY_REGION], [S, C]),
    ("West has 42 completed sites and East 55.", [TABLE], [S, C]),
    ("| Group | Rate |\n|---|---|\n| West | 92.5% |\n| East | 70.0% |", [BY_REGION], [S, C]),
    ("It has 500 sites. The completion rate is 52.5%. It has 95 teams.", [SCORECARD], [C, S, C]),
    (
        "South has five completed steps. It had 2 audits. Its average score is 81.0.",
        [RECORD],
        [C, S, C],
    ),
    ("In 2026-03, 13 milestones were completed.", [BY_MONTH], [C]),
    ("In 2026-03, 48 milestones were completed.", [BY_MONTH], [C]),
    ("West: 92.5%, East: 61.7%", [WEST_PARAM, EAST_PARAM], [S, C]),
    ("We completed 1,234 items, 61.7% of the plan.", [CNT, PCT], [S, C]),
]


EDGES: list[tuple[str, float, str, str]] = [
    # answer, true value, reference unit, verdict: rounding and hedge boundaries
    ("It is 92.5%.", 92.45, "percent", S),
    ("It is 92.5%.", 92.44, "percent", C),
    ("It is 92%.", 92.49, "percent", S),
    ("It is 92%.", 92.51, "percent", C),
    ("It is about 92%.", 96.5, "percent", C),
    ("It is about 92%.", 93.4, "percent", S),
    ("It is about 92%.", 97.5, "percent", C),
    ("It is 0.925.", 92.55, "percent", S),
    ("It is 0.925.", 92.6, "percent", C),
    ("We have 1,234.", 1234.4, "count", S),
    ("We have 1,234.", 1235, "count", C),
    ("We have 1.2k.", 1250, "count", S),
    ("We have 1.2k.", 1260, "count", C),
    ("We have about 1,200.", 1234, "count", S),
    ("We have about 1,200.", 1270, "count", S),
    ("We have about 1,200.", 1330, "count", C),
    ("We have ~1,230.", 1244, "count", S),
    ("We have ~1,230.", 1290, "count", C),
    ("We have ~1,230.", 1300, "count", C),
    ("We have about 1,650.", 1234, "count", C),
    ("We have about 740.", 1234, "count", C),
    ("We have about 1,000.", 1095, "count", S),
    ("We have about 1,000.", 1150, "count", C),
    ("We have about 1,000.", 1300, "count", C),
    ("We have 1.2 million.", 1_250_000, "count", S),
    ("We have 1.2 million.", 1_250_001, "count", C),
    ("We have 1.23 thousand.", 1234, "count", S),
    ("We have 1.23 thousand.", 1236, "count", C),
    ("It takes 12.5 days.", 12.46, "days", S),
    ("It takes 12.0 days.", 12.46, "days", C),
    ("It takes about 12 days.", 12.46, "days", S),
    ("It takes 2 weeks.", 14, "days", S),
    ("We completed seven items.", 5, "count", C),
    ("We completed seven items.", 7, "count", S),
    ("We logged 1,234 hours.", 1_234_567, "currency", U),
    ("It rose 2.5 percentage points.", 2.47, "percent", S),
    ("It is 0.800.", 80.0, "percent", S),
    ("It is 80.0%.", 80.0, "percent", S),
    ("It is 0.80%.", 80.0, "percent", C),
    ("It is 100%.", 1, "fraction", S),
    ("It is 0.5%.", 0.5, "fraction", C),
    ("We have 2000 items.", 2000, "count", S),
]


@pytest.mark.parametrize(("answer", "truth", "unit", "verdict"), EDGES)
def test_precision_and_hedge_edges(
    answer: str, truth: float, unit: str | None, verdict: str
) -> None:
    assert run(answer, [ref(truth, unit)])[-1] == verdict


def _significant(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


def count_formats(value: float) -> list[str]:
    """The ways a count is commonly written, each true to ``value`` at its stated precision."""
    formats = [f"{value:,.0f}", f"{value:.0f}", f"about {_significant(value, 2):,.0f}"]
    if value >= 1000:
        formats.append(f"~{_significant(value, 3):,.0f}")
    if 1000 <= value < 999_500:
        formats += [f"{value / 1e3:.1f}k", f"{value / 1e3:.2f} thousand"]
    if value >= 1e6:
        formats += [f"{value / 1e6:.1f} million", f"{value / 1e6:.2f} million"]
    return formats


def percent_formats(value: float) -> list[str]:
    return [
        f"{value:.2f}%",
        f"{value:.1f}%",
        f"{value:.2f} percent",
        f"about {value:.0f}%",
        f"{value / 100:.3f}",
    ]


FACTORS = (0.4, 0.55, 0.7, 1.3, 1.55, 1.8)


@pytest.mark.parametrize("truth", [48.0, 1234.0, 86_420.0, 5_432_100.0])
def test_counts_in_every_format_true_and_hallucinated(truth: float) -> None:
    for text in count_formats(truth):
        assert run(f"We completed {text} items.", [ref(truth, "count")]) == [S], text
    for factor in FACTORS:
        for text in count_formats(truth * factor):
            got = run(f"We completed {text} items.", [ref(truth, "count")])
            assert got == [C], (factor, text)


@pytest.mark.parametrize("truth", [7.25, 52.47, 66.66666667])
def test_percents_in_every_format_true_and_hallucinated(truth: float) -> None:
    for text in percent_formats(truth):
        assert run(f"The rate is {text}.", [ref(truth)]) == [S], text
    for factor in FACTORS:
        for text in percent_formats(truth * factor):
            assert run(f"The rate is {text}.", [ref(truth)]) == [C], (factor, text)


def test_small_number_in_words_beside_the_figure_is_not_accused() -> None:
    assert run("The three teams completed 1,604 items.", [CNT]) == [C]
    assert run("Three teams completed 1,604 items.", [CNT]) == [U, C]


def test_claim_without_value_stays_in_the_contract_as_unverifiable() -> None:
    contract = extract_claims("TC_001", "q", "The rate is 92.5%.")
    extra = Claim(id="C2", text="West leads", span=(0, 4), kind="ranking", source="llm")
    contract.claims.append(extra)
    verdicts = verify_claims(contract, [PCT], answer="The rate is 92.5%.")
    assert [(v.claim_id, v.verdict) for v in verdicts] == [("C1", S), ("C2", U)]


def run(answer: str, refs: list[ReferenceValue], question: str = "How are we doing?") -> list[str]:
    contract = extract_claims("TC_001", question, answer)
    verdicts = verify_claims(contract, refs, answer=answer, question=question)
    assert [v.claim_id for v in verdicts] == [c.id for c in contract.claims]
    return [v.verdict for v in verdicts]


@pytest.mark.parametrize(("answer", "refs", "expected"), CASES)
def test_verdicts(answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert run(answer, refs) == expected


def test_case_table_covers_both_directions() -> None:
    flat = [v for _, _, expected in CASES for v in expected]
    assert len(CASES) >= 60
    assert flat.count(S) >= 40 and flat.count(C) >= 25


def test_non_claims_never_reach_a_verdict() -> None:
    answer = (
        "Site S-00042 (case TC_001) ranked #1 in 2025; call +1 555-123-4567 or "
        "ops42@example.com. Among the top 5 groups, the rate is 92.5%."
    )
    assert run(answer, [PCT], question="What is the rate of the top 5 groups?") == [S]


def verdict_for(answer: str, refs: list[ReferenceValue]) -> Verdict:
    contract = extract_claims("TC_001", "q", answer)
    (verdict,) = verify_claims(contract, refs, answer=answer)
    return verdict


def test_evidence_names_the_reference_call_and_value() -> None:
    supported = verdict_for("West: 92.5%", [ref({"West": 92.47}, params={"month": "2026-03"})])
    (evidence,) = supported.evidence
    assert (evidence.source, evidence.kind, evidence.params) == (
        "rate",
        "kpi",
        {"month": "2026-03"},
    )
    assert evidence.value == 92.47 and evidence.label is not None and "West" in evidence.label

    contradicted = verdict_for("West: 80.0%", [BY_REGION])
    assert [e.value for e in contradicted.evidence] == [92.47]
    assert "92.47" in contradicted.reason

    sql = verdict_for("The query returned 2,100 rows.", [SQL_COUNT])
    assert sql.evidence[0].kind == "sql" and sql.evidence[0].sql == "SELECT count(*) FROM t"


def test_unverifiable_verdict_still_lists_the_references_consulted() -> None:
    verdict = verdict_for("There are 79 open items.", [COUNT_BY_REGION])
    assert verdict.verdict == U
    assert [e.source for e in verdict.evidence] == ["completed_by_region"]


def test_errored_reference_contributes_nothing() -> None:
    broken = ref(None, error="relation does not exist")
    assert verdict_for("The rate is 61.7%.", [broken]).verdict == U
    assert verdict_for("The rate is 61.7%.", [broken, PCT]).verdict == C


def test_declared_column_units_decide_comparability() -> None:
    table = {"columns": ["group", "done"], "rows": [["West", 42], ["East", 37]]}
    as_counts = ref(table, column_units={"done": "count"})
    assert run("West completed 42 and East 55.", [as_counts]) == [S, C]


def test_labels_attach_to_the_closest_number_of_their_clause() -> None:
    answer = "West has 42 completed sites and East 37, while North reached 80.2%."
    contract = extract_claims("TC_001", "q", answer)
    labels = claim_labels(answer, contract.claims, {"West", "East", "North"})
    assert [labels[c.id] for c in contract.claims] == [{"west"}, {"east"}, {"north"}]


def test_label_matching_is_word_bounded_and_prefers_longer_labels() -> None:
    answer = "North West: 70.5%, Western: 12.0%, West: 92.5%"
    contract = extract_claims("TC_001", "q", answer)
    labels = claim_labels(answer, contract.claims, {"West", "North West"})
    assert [labels[c.id] for c in contract.claims] == [{"north west"}, set(), {"west"}]


def test_a_lower_case_category_heads_a_hyphenated_compound() -> None:
    answer = "Only 38 low-priority tickets closed, against 215 urgent ones; North-east: 12."
    contract = extract_claims("TC_001", "q", answer)
    labels = claim_labels(answer, contract.claims, {"low", "urgent", "North"})
    assert [labels[c.id] for c in contract.claims] == [{"low"}, {"urgent"}, set()]


def test_reference_shapes_flatten_to_labelled_numbers() -> None:
    nested = ref({"2026-03": {"West": {"done": 4, "rate": 0.5}}}, "fraction")
    entries = reference_entries(nested)
    assert {(e.names, e.row_period.key(), e.column, e.value) for e in entries} == {
        (("West",), "2026-M3", "done", 4.0),
        (("West",), "2026-M3", "rate", 0.5),
    }
    records = ref({"columns": ["g", "n"], "rows": [{"g": "West", "n": 3}]}, "count")
    assert [(e.names, e.value) for e in reference_entries(records)] == [(("West",), 3.0)]
    assert reference_entries(ref(True, "count")) == []


def test_percent_table_keeps_whole_number_columns_as_counts() -> None:
    units = {e.column: e.unit for e in reference_entries(TABLE)}
    assert units == {"completed": "count", "rate": "percent"}


# --------------------------------------------------------------------------- dimension


def verdicts_of(*labels: str) -> list[Verdict]:
    return [Verdict(claim_id=f"C{i}", verdict=v, reason="") for i, v in enumerate(labels, 1)]  # type: ignore[arg-type]


def test_dimension_scores_supported_over_checked() -> None:
    result = oracle_dimension(verdicts_of(S, S, S, C, U), [PCT], has_reference=True)
    assert result.state == "scored" and result.score == pytest.approx(0.75)
    assert result.method == "deterministic"
    assert result.reason == "3 supported, 1 contradicted, 1 unverifiable"
    assert result.details["has_tool_evidence"] is True
    assert (result.details["supported"], result.details["contradicted"]) == (3, 1)


def test_dimension_skips_without_reference_or_checkable_claim() -> None:
    no_ref = oracle_dimension(verdicts_of(U), [], has_reference=False)
    assert no_ref.state == "skipped" and no_ref.score is None
    unverifiable = oracle_dimension(verdicts_of(U, U), [PCT], has_reference=True)
    assert unverifiable.state == "skipped" and unverifiable.score is None
    assert "2 unverifiable" in unverifiable.reason
    assert unverifiable.details["has_tool_evidence"] is False
    silent = oracle_dimension([], [PCT], has_reference=True)
    assert silent.state == "skipped" and "no numeric claim" in silent.reason


def test_dimension_errors_only_when_every_reference_failed() -> None:
    broken = ref(None, error="timeout")
    failed = oracle_dimension(verdicts_of(U), [broken], has_reference=True)
    assert failed.state == "error" and failed.score is None and "timeout" in failed.reason
    partial = oracle_dimension(verdicts_of(S, C), [broken, PCT], has_reference=True)
    assert partial.state == "scored" and partial.score == pytest.approx(0.5)
    assert partial.details["reference_errors"] == ["rate: timeout"]


def test_stale_verdicts_do_not_count_as_checked() -> None:
    result = oracle_dimension(verdicts_of("stale", S), [PCT], has_reference=True)
    assert result.score == 1.0 and result.details["stale"] == 1 and "1 stale" in result.reason


# --------------------------------------------------------------------------- ranges and changes


@pytest.mark.parametrize(
    ("answer", "truth", "unit", "verdict"),
    [
        ("It is between 40 and 45%.", 44.0, "percent", S),
        ("It is between 40 and 45%.", 45.4, "percent", S),
        ("It is between 40 and 45%.", 46.0, "percent", C),
        ("It is 40-45%.", 38.0, "percent", C),
        ("We have 500-520 items.", 512, "count", S),
        ("We have between 450 and 480 items.", 512, "count", C),
        ("It costs $1.2–1.3M.", 1_234_567, "currency", S),
        ("It costs $1.4–1.6M.", 1_234_567, "currency", C),
    ],
)
def test_ranges_hold_the_truth_within_their_bounds(
    answer: str, truth: float, unit: str, verdict: str
) -> None:
    assert run(answer, [ref(truth, unit)]) == [verdict]


MONTHS = ref(
    {"columns": ["period", "completed"], "rows": [["2026-04", 281], ["2026-05", 305]]},
    "count",
    name="monthly",
)
DELTA = ref(24, "count", name="monthly_change")
RATE_CHANGE = ref(3.0, name="rate_change")
RATES = [ref(59.57, params={"group": "West"}), ref(51.18, params={"group": "East"})]


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [
        # a change value is what a change claim is compared with
        ("Completions were up 24.", [DELTA], [S]),
        ("Completions were up 42.", [DELTA], [C]),
        ("Completions were down 24.", [DELTA], [C]),
        ("It changed by -5.2%.", [CHANGE], [S]),
        ("It rose 5.2%.", [CHANGE], [C]),
        # otherwise the difference of the two labelled levels, signed for periods
        ("In 2026-05, 305 were completed, up 24 from 2026-04.", [MONTHS], [S, S]),
        ("In 2026-05, 305 were completed, down 24 from 2026-04.", [MONTHS], [S, C]),
        ("In 2026-05, 305 were completed, up 42 from 2026-04.", [MONTHS], [S, C]),
        ("Completions grew 8.5% from 2026-04 to 2026-05.", [MONTHS], [S]),
        ("Completions fell 8.5% from 2026-04 to 2026-05.", [MONTHS], [C]),
        ("West is 8.4 points ahead of East.", RATES, [S]),
        ("West is 12.6 points ahead of East.", RATES, [C]),
        ("East is 8.4 points behind West.", RATES, [S]),
        # a change beside a single level cannot be derived
        ("The rate is 92.5%, up 3 points on last quarter.", [PCT], [S, U]),
        ("Completions rose by 7.", [MONTHS], [U]),
        # the level a change is stated beside is never taken for the change, nor the reverse
        ("The rate is 92.5%, up 92.5 points.", [PCT, RATE_CHANGE], [S, C]),
        ("The rate is 3.0%, up 3.0 points.", [PCT, RATE_CHANGE], [C, S]),
        ("The rate rose 3 points.", [PCT, RATE_CHANGE], [S]),
    ],
)
def test_change_claims(answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert run(answer, refs) == expected


def test_change_between_periods_named_in_the_question() -> None:
    question = "How did completions change from 2026-04 to 2026-05?"
    assert run("They rose from 281 to 305, up 24.", [MONTHS], question) == [S, S, S]
    assert run("They fell from 305 to 281, down 24.", [MONTHS], question) == [C, C, C]
    assert run("Completions rose by 24.", [MONTHS], question) == [S]


def test_from_to_endpoints_take_the_earlier_and_later_period() -> None:
    answer = "Completions went up from 281 to 305 between 2026-04 and 2026-05."
    assert run(answer, [MONTHS]) == [S, S]
    assert run(answer.replace("305", "350"), [MONTHS]) == [S, C]


def test_negative_levels_and_magnitudes() -> None:
    loss = ref(-45_200, "currency", name="net_cash_flow")
    assert run("Net cash flow was -$45,200.", [loss]) == [S]
    assert run("Net cash flow was minus 45.2 thousand dollars.", [loss]) == [S]
    assert run("Net cash flow was -$52,400.", [loss]) == [C]
    assert run("It closed with a shortfall of $45,200.", [loss]) == [S]


def test_a_year_answer_is_checked_against_a_year_reference() -> None:
    year = ref(2025, None, kind="sql", name="SELECT year")
    question = "In which year were most items integrated?"
    assert run("2025.", [year], question) == [S]
    assert run("Most were integrated in 2026.", [year], question) == [C]
    assert run("Most were integrated in 2026.", [year]) == []


def test_a_claim_right_after_a_labelled_one_shares_its_label() -> None:
    top = ref(
        {
            "columns": ["region", "rate", "done"],
            "rows": [["West", 59.57, 305], ["South", 52.52, 229], ["East", 51.18, 239]],
        },
        column_units={"rate": "percent", "done": "count"},
    )
    answer = "West (59.6%, 305 done), South (52.5%, 239) and East (51.2%, 229)."
    assert run(answer, [top]) == [S, S, S, C, S, C]


def test_a_label_may_drop_a_generic_last_word() -> None:
    card = ref({"completion rate": 52.52, "readiness rate": 65.07})
    assert run("Completion is 52.5% and readiness 56.1%.", [card]) == [S, C]


# --------------------------------------------------------------------------- rankings

TOP = ref(
    {
        "columns": ["region", "completion_rate", "completed_sites"],
        "rows": [
            ["West", 59.57, 305],
            ["South", 52.52, 229],
            ["East", 51.18, 239],
            ["Central", 41.33, 143],
            ["North", 35.15, 84],
        ],
    },
    column_units={"completion_rate": "percent", "completed_sites": "count"},
    name="regions_by_completion",
)
TOP3 = ref(
    {
        "columns": ["region", "completion_rate"],
        "rows": [["West", 59.57], ["South", 52.52], ["East", 51.18]],
    },
    name="top_regions",
    params={"n": 3},
)
VENDORS = ref({"Nokia": 814, "Ericsson": 679, "Samsung": 507}, "count", name="items_by_vendor")


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [
        ("West has the most completed sites.", [TOP], [S]),
        ("East has the second most completed sites.", [TOP], [S]),
        ("East has the second-highest completion rate.", [TOP], [C]),
        ("South ranks second.", [TOP], [S]),
        ("North has the lowest completion rate.", [TOP], [S]),
        ("Central has the lowest completion rate.", [TOP], [C]),
        ("North comes last.", [TOP], [S]),
        ("The top three regions are West, South and East.", [TOP], [S, S, S]),
        ("The top three regions are West, East and Central.", [TOP], [S, S, C]),
        ("The top three regions are West, East and Central.", [TOP3], [S, S, C]),
        ("Central has the highest completion rate.", [TOP3], [C]),
        ("North has the lowest completion rate.", [TOP3], [U]),
        # ranked within a group nothing else names: not the top N the reference lists
        ("Central is the top inland region.", [TOP3], [U]),
        ("Central is the top region.", [TOP3], [C]),
        ("Nokia has the most sites.", [VENDORS], [S]),
        ("Samsung has the most sites.", [VENDORS], [C]),
        ("Samsung has the fewest sites. Ericsson ranks second.", [VENDORS], [S, S]),
        ("West has the highest rate.", RATES, [S]),
        ("East has the highest rate.", RATES, [C]),
        ("West has the highest rate.", [WEST_PARAM], [U]),
        ("Atlantis has the most sites.", [VENDORS], [U]),
    ],
)
def test_ranking_claims(answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert run(answer, refs) == expected


def test_a_ranked_list_is_checked_by_the_metric_its_lead_in_names() -> None:
    listed = "Top two regions by completion rate:\n\n1. West: 59.6%\n2. East: 51.2%"
    assert run(listed, [TOP]) == [S, S, C, S]  # East is third
    slowest = ref({"West": 4.2, "East": 6.8, "South": 5.1}, "hours", name="avg_fix_time")
    assert run("Slowest regions to fix:\n- East: 6.8 hours\n- South", [slowest]) == [S, S]
    # the lead-in names neither metric, though each item names both: no accusation
    both = ref(
        {"columns": ["region", "audits", "sites"], "rows": [["West", 10, 3], ["East", 5, 7]]},
        "count",
    )
    unnamed = (
        "Top two regions this year:\n\n1. East: 5 audits, 7 sites\n2. West: 10 audits, 3 sites"
    )
    assert run(unnamed, [both]) == [U, S, S, U, S, S]


def test_a_metric_written_in_mixed_case_is_read_whole() -> None:
    margins = ref(
        {
            "columns": ["region", "grossmargin", "sites"],
            "rows": [["West", 31.5, 4], ["East", 28.0, 9]],
        },
        column_units={"grossmargin": "percent", "sites": "count"},
    )
    assert run("West has the highest GrossMargin.", [margins]) == [S]
    assert run("East has the highest GrossMargin.", [margins]) == [C]


def test_a_week_named_by_its_first_day_is_ranked_among_the_weeks() -> None:
    weekly = ref(
        {
            "columns": ["week_start", "visits"],
            "rows": [["2031-06-02", 120], ["2031-06-09", 95], ["2031-06-16", 131]],
        },
        column_units={"visits": "count"},
        name="weekly_visits",
    )
    assert run("The week of 16 June 2031 had the most visits.", [weekly]) == [S]
    assert run("The week of 9 June 2031 had the most visits.", [weekly]) == [C]


def test_the_figure_beside_a_ranking_names_the_metric_it_ranks() -> None:
    books = ref(
        {
            "columns": ["region", "accounts", "mrr"],
            "rows": [["West", 12, 52_000.0], ["South", 4, 40_000.0], ["East", 9, 31_000.0]],
        },
        column_units={"accounts": "count", "mrr": "currency"},
        name="region_book",
    )
    assert run("South ranks second at $40K.", [books]) == [S, S]
    assert run("East came second with $31K.", [books]) == [C, S]
    # a figure that agrees with no series names the metric by its unit only: a guess, which
    # supports a ranking that holds by it and accuses none
    assert run("South ranks second at $45K.", [books]) == [S, C]
    assert run("East ranks second at $45K.", [books]) == [U, C]


def test_a_label_written_in_lower_case_is_ranked_in_its_own_clause() -> None:
    channels = ref({"courier": 412, "post": 388, "locker": 95}, "count", name="parcels_by_channel")
    assert run("Lockers are new; courier had the most parcels.", [channels]) == [S]
    assert run("Lockers are new; post had the most parcels.", [channels]) == [C]
    assert run("Lockers are new; van had the most parcels.", [channels]) == [U]


def test_ranking_is_unverifiable_when_the_metric_is_ambiguous() -> None:
    both = ref(
        {"columns": ["region", "audits", "sites"], "rows": [["West", 10, 3], ["East", 5, 7]]},
        "count",
    )
    assert run("West ranks first.", [both]) == [U]
    assert run("West has the most audits.", [both]) == [S]
    assert run("West has the most sites.", [both]) == [C]


def test_ranking_verdict_shows_the_ordering() -> None:
    (verdict,) = verify_claims(
        extract_claims("TC_001", "q", "Central has the lowest completion rate."),
        [TOP],
        answer="Central has the lowest completion rate.",
    )
    assert verdict.verdict == C and "Central ranks #2 of 5" in verdict.reason
    assert [e.value for e in verdict.evidence][:2] == [35.15, 41.33]
