"""A limit's figure is a value the answer states, a bracket after a comparison's unnamed other
side holds that side's figure, a sum whose words count fewer rows than the column holds is not
the column's total, and a threshold verb repeating the question's threshold states nothing.
Each with a near miss that keeps its verdict."""

from __future__ import annotations

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline_tests.core.oracle.answers import C, S, U, ref
from eval_pipeline_tests.core.oracle.answers import verdicts_of as run


def _bounds(answer: str, question: str = "How are we doing?") -> list[tuple[str, str | None]]:
    return [(c.text, c.bound) for c in extract_claims("T", question, answer).claims]


def test_a_figure_naming_a_limit_states_the_limit_not_a_bound() -> None:
    """ "under the $50K cap" states the cap's value; "under $50K" bounds the quantity."""
    assert _bounds("Spend stayed under the $50K cap.") == [("$50K", None)]
    assert _bounds("Spend stayed under its $50K spending cap.") == [("$50K", None)]
    # near misses: no article, or no limit noun after it, leaves a bound
    assert _bounds("Spend stayed under $50K.") == [("under $50K", "at_most")]
    assert _bounds("Spend stayed under the $50K of last year.")[0][1] == "at_most"


def test_a_yes_no_questions_threshold_named_as_a_limit_stays_a_bound() -> None:
    """Asked whether the rate stayed below 8%, "below the 8% ceiling" bounds the rate."""
    question = "Did the error rate stay below 8%?"
    assert _bounds("Yes, 6.5%, below the 8% ceiling.", question)[-1][1] == "at_most"


SEAL = ref(2.5, "percent", name="leak_limit_pct", params={"valve": "Type B"})
SHARE = ref(11.0, "percent", name="leaking_share", params={"valve": "Type B"})


def test_a_limit_stated_elsewhere_leaves_another_figure_of_its_unit_unaccused() -> None:
    """ "above the 2.5% limit" states the limit right; "Valves lost 1.8% on average" in the
    next sentence is another quantity, not the limit stated wrong."""
    answer = "11% of valves tested above the 2.5% limit. Valves lost 1.8% pressure on average."
    assert run(answer, [SHARE, SEAL]) == [S, S, U]
    # the later figure's words share the limit's ("leaked"), so only the limit being stated
    # already, for the reference's one entity, keeps it from being held against the limit
    answer = "11% of valves tested above the 2.5% leak limit. Type B valves leaked 1.8% on average."
    assert run(answer, [SHARE, SEAL]) == [S, S, U]
    # near miss: with the limit written as a bound the limit is stated by no claim, and the
    # figure naming the limit's words is accused
    answer = "11% of valves tested above 2.5%. The leak limit is 1.8%."
    assert run(answer, [SHARE, SEAL])[-1] == C


PLANS = ref(
    {
        "columns": ["plan", "members", "avg_price"],
        "rows": [["Starter", 120, 48.5], ["Growth", 60, 131.2]],
    },
    sql="SELECT plan, COUNT(*) AS members, AVG(price) AS avg_price FROM m GROUP BY 1",
    column_units={"members": "count", "avg_price": "currency"},
)


def test_a_bracket_after_an_unnamed_base_of_a_comparison_holds_the_bases_figure() -> None:
    """ "above the rate card ($45 for Starter)" gives the rate card's price, not Starter's
    average."""
    assert run("Prices run above the rate card ($45 for Starter).", [PLANS]) == [U]
    # near miss: without the comparison the bracket is Starter's average, and wrong
    assert run("Prices run high ($45 for Starter).", [PLANS]) == [C]
    # near miss: a bracket holding both sides states the subject's figure
    assert run("Starter ran above plan ($45 against $40).", [PLANS])[0] == C


SITES = [
    ref(v, "count", name="visits", params={"year": 2030, "site": s}, label=s)
    for s, v in (("Alder Park", 510), ("Birch Lane", 498), ("Cedar Row", 120))
]
ASKED = "How many visits did Alder Park, Birch Lane and Cedar Row each get in 2030?"
LISTED = "Visits in 2030:\n- Alder Park: 510\n- Birch Lane: 498\n- Cedar Row: 120\n\n"


def test_a_sum_counting_fewer_rows_is_the_sum_of_that_many() -> None:
    """ "the two large sites together" adds the two largest rows, not all three; "the two
    small sites" the two smallest."""
    answer = LISTED + "The two large sites together had 1,008."
    assert run(answer, SITES, ASKED)[-1] == S
    answer = LISTED + "The two small sites together had 618."
    assert run(answer, SITES, ASKED)[-1] == S
    # near miss: a sum no two rows give stays unverified
    answer = LISTED + "The two large sites together had 1,100."
    assert run(answer, SITES, ASKED)[-1] == U


NEW = ref(
    {"columns": ["city", "signups"], "rows": [["Oslo", 140], ["Bergen", 104], ["Molde", 40]]},
    sql="SELECT city, COUNT(*) AS signups FROM s GROUP BY 1",
    column_units={"signups": "count"},
)


def test_a_threshold_verb_repeating_the_questions_threshold_is_no_claim() -> None:
    """ "Two cities topped 100" after "Did any reach more than 100?" repeats the threshold."""
    question = "How many signups did each city get? Did any get more than 100?"
    answer = "Two cities topped 100: Oslo with 140 and Bergen with 104."
    texts = [c.text for c in extract_claims("T", question, answer).claims]
    assert "100" not in texts
    assert run(answer, [NEW], question)[-2:] == [S, S]
    # near miss: a figure the question does not hold is still a claim
    answer = "Two cities topped 120: Oslo with 140 and Bergen with 104."
    assert "120" in [c.text for c in extract_claims("T", question, answer).claims]
