"""Precision on two more domains the rules were not tuned on (a parcel network, a library
system): causes of false accusations found when they were measured — a level far from the value
it is bound to whose words name another quantity, "improvement" after a change read as that
change's own word, a bare COUNT aliased without a unit word, a year that opens a range, and a
share stated as the rest of a rate — written here in other words and another domain (a bakery
chain), each beside a near miss the oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.oracle.sql_reading import counted
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

BASKET = ref(48.2, "currency", name="average_basket_value", params={"shop": "Quay Street"})
BASKET_ASKED = "What was the average basket at Quay Street?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # far from the basket value, and its words name a refund scheme, not a basket
        ("At Quay Street the loyalty scheme refunded $9 a visit.", [U]),
        ("At Quay Street, staff discounts came to $130.", [U]),
        # near misses: within twice the value, words naming the basket, a scale slip, no words
        ("At Quay Street the loyalty scheme refunded $40 a visit.", [C]),
        ("Quay Street's average basket was $9.", [C]),
        ("At Quay Street: $130.", [C]),
    ],
)
def test_a_far_level_whose_words_name_another_quantity_is_not_accused(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(BASKET_ASKED, answer, [BASKET], expected)


OVENS = ref(1234567.89, "currency", name="oven_capex_total")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Capital put into the kitchen line totals $412,000.", [U]),
        # a power of ten off is a misstated scale, and within twice it a misstated figure
        ("Capital put into the kitchen line totals $123,457.", [C]),
        ("Capital put into the kitchen line totals $1.1M.", [C]),
    ],
)
def test_a_figure_a_power_of_ten_off_is_a_misstated_scale(answer: str, expected: list[str]) -> None:
    assert_verdicts("What was the total spent on new ovens?", answer, [OVENS], expected)


BAKE_2030 = ref(30.0, "hours", name="avg_bake_to_shelf_hours", params={"year": 2030}, label="2030")
BAKE_2031 = ref(28.5, "hours", name="avg_bake_to_shelf_hours", params={"year": 2031}, label="2031")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Bake to shelf took 30.0 hours in 2030 and 28.5 hours in 2031, 90 minutes quicker, "
            "a 5% improvement.",
            [S, S, S, S],
        ),
        (
            "Bake to shelf took 30.0 hours in 2030 and 28.5 hours in 2031, 60 minutes quicker, "
            "a 5% improvement.",
            [S, S, C, S],
        ),
    ],
)
def test_an_improvement_word_after_a_change_is_the_next_figures(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("Has bake to shelf got faster?", answer, [BAKE_2030, BAKE_2031], expected)


def test_a_bare_count_is_a_count_whatever_its_alias() -> None:
    sql = "SELECT COUNT(*) AS orders_over_50, SUM(total) AS takings FROM orders WHERE total > :t"
    assert counted(sql) == {"orders_over_50"}
    assert counted("SELECT COUNT(DISTINCT shop) + 1 AS shops FROM orders") == frozenset()
    over = ref(117, sql="SELECT COUNT(*) AS orders_over_50 FROM orders WHERE total > :t")
    asked = "How many orders were over $50?"
    assert_verdicts(asked, "126 orders were over $50. The largest order was $612.", [over], [C, U])
    assert_verdicts(asked, "117 orders were over $50.", [over], [S])


HIRES = ref(
    {
        "columns": ["hire_year", "bakers_hired"],
        "rows": [[2027, 10], [2028, 16], [2029, 9], [2030, 12], [2031, 3]],
    },
    sql="SELECT hire_year, COUNT(*) AS bakers_hired FROM bakers GROUP BY 1",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("24 bakers joined in 2029 or later.", [U]),
        ("24 bakers joined from 2029 onwards.", [U]),
        ("Before 2029, 26 bakers joined.", [U]),
        ("14 bakers joined in 2029.", [C]),
    ],
)
def test_a_year_that_opens_a_range_names_no_row(answer: str, expected: list[str]) -> None:
    assert_verdicts("How many bakers were hired each year?", answer, [HIRES], expected)


FRESH = ref(83.5, "percent", name="fresh_at_open_rate", params={"shop": "Quay Street"})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Quay Street opens with stale stock on about 17 in 100 opening bakes.", [U]),
        ("Quay Street opens with stale stock on 16.5% of mornings.", [U]),
        # which side a figure's words mean is not read, so an inverted rate goes unaccused too
        ("Quay Street was fresh at open on 16.5% of mornings.", [U]),
        ("Quay Street opens with stale stock on about 25 in 100 opening bakes.", [C]),
        ("Quay Street was fresh at open on 80.5% of mornings.", [C]),
    ],
)
def test_a_share_that_is_the_rest_of_a_rate_is_not_accused(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("How often is Quay Street fresh at open?", answer, [FRESH], expected)


def test_a_day_range_of_a_month_is_a_date() -> None:
    for answer in ("Loaves baked per day, 3–9 March 2031: 29 on Monday.", "Sales, May 12-18: 29."):
        assert [c.text for c in extract_claims("TC_001", "How many?", answer).claims] == ["29"]
    # near miss: a range of amounts stays a claim
    assert [c.text for c in extract_claims("TC_001", "How many?", "We took 3–9 trays.").claims] == [
        "3–9"
    ]


CLASSES = ref(
    {
        "columns": ["class", "sessions", "attendance"],
        "rows": [["Sourdough", 32, 355], ["Pastry", 47, 1014]],
    },
    sql="SELECT class, COUNT(*) AS sessions, SUM(seats) AS attendance FROM classes GROUP BY 1",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # an average per session under a header that names sessions
        (
            "| Class | Sessions | Avg per session |\n|---|---|---|\n| Sourdough | 32 | 11.1 |",
            [S, U],
        ),
        # a whole number there is per session too, which no count of the row accuses
        ("| Class | Sessions | Avg per session |\n|---|---|---|\n| Sourdough | 32 | 120 |", [S, U]),
        # near misses: a whole number under a header of its own, a decimal with a scale word
        ("| Class | Sessions | Seats |\n|---|---|---|\n| Sourdough | 32 | 120 |", [S, C]),
        ("Pastry ran 0.1K sessions.", [C]),
        ("Pastry ran 47.50 sessions.", [C]),
    ],
)
def test_a_figure_with_decimals_is_no_count(answer: str, expected: list[str]) -> None:
    assert_verdicts("How did each class do?", answer, [CLASSES], expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The target set at the start of the year was 88%.", [U]),
        # near misses: the rate itself, and "plan" (a subscription plan, planned downtime)
        ("The rate was 90%.", [C]),
        ("The rate we planned for was 90%.", [C]),
    ],
)
def test_a_target_the_answer_states_is_its_own_figure(answer: str, expected: list[str]) -> None:
    assert_verdicts("How often is Quay Street fresh at open?", answer, [FRESH], expected)


SENIORS = ref(
    {"columns": ["senior_buyers", "buyers"], "rows": [[548, 3154]]},
    sql="SELECT COUNT(DISTINCT s.id) AS senior_buyers, COUNT(DISTINCT b.id) AS buyers FROM b",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "548 of 3,154 buyers were seniors (17.4%); seniors are 17.9% of all loyalty members.",
            [S, S, S, U],
        ),
        # near miss: the share of the whole the references hold, stated wrong
        (
            "548 of 3,154 buyers were seniors (17.4%); seniors are 17.9% of all buyers.",
            [S, S, S, C],
        ),
    ],
)
def test_a_share_of_things_the_references_do_not_count_is_not_accused(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("How many buyers were seniors?", answer, [SENIORS], expected)


BY_OUTCOME = ref(
    {"columns": ["outcome", "loaves"], "rows": [["burned", 402], ["shipped", 1173]]},
    sql="SELECT outcome, COUNT(*) AS loaves FROM bakes GROUP BY outcome",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a category named by its participle, written as its verb or noun
        ("Shipments: 1,173. Burn losses were 410.", [S, C]),
        ("Ships: 1,173 loaves.", [S]),
        # near miss: a word that only begins like it names nothing
        ("Shipping costs: 1,100.", [U]),
    ],
)
def test_a_category_named_by_a_participle_answers_to_its_verb(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("What happened to our loaves?", answer, [BY_OUTCOME], expected)


ARDMORE = ref(52.0, "percent", name="on_time_rate", params={"port": "Ardmore"}, label="Ardmore")
BELLHAVEN = ref(
    40.6, "percent", name="on_time_rate", params={"port": "Bellhaven"}, label="Bellhaven"
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 11.4 points apart, a 22% relative gap: points are never the relative change
        ("Bellhaven sits more than 15 points below Ardmore.", [C]),
        # near misses: the points gap bounded right, the relative gap in %, the gap exact
        ("Bellhaven sits more than 10 points below Ardmore.", [S]),
        ("Bellhaven sits about 22% below Ardmore.", [S]),
        ("Bellhaven sits 11.4 points below Ardmore.", [S]),
    ],
)
def test_points_are_never_a_relative_change(answer: str, expected: list[str]) -> None:
    assert_verdicts("How punctual are the ferries?", answer, [ARDMORE, BELLHAVEN], expected)
