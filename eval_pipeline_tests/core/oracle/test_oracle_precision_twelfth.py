"""Precision on a third held-back domain (a residential solar installer): causes of false
accusations found when it was measured — a year heading its figure past a dash in a list of
pairs, a bounded gap between two rows that no words order, a polar word before a claim whose
own word says which way, time summed over people written as a hyphenated compound, a number
closing a name whose other words are written otherwise, and a figure an answer projects —
written here in other words and another domain (a ferry operator), each beside a near miss the
oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

LATE_2032 = ref(8.41, "percent", name="late_sailing_rate", params={"year": 2032}, label="2032")
LATE_2033 = ref(5.12, "percent", name="late_sailing_rate", params={"year": 2033}, label="2033")
LATE_ASKED = "How did late sailings in 2033 compare with 2032?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Late sailings by year: 2031 — 6.0%, 2032 — 8.4%, 2033 — 5.1%.", [U, S, S]),
        ("Share of sailings late (2031 – 6.0%, 2032 – 8.4%, 2033 – 5.1%).", [U, S, S]),
        # near misses: pairs a semicolon parts, a wrong figure under its own year, and a year
        # closing a phrase before the dash, which stays with the figure before it
        ("Late sailings by year: 2031 – 6.0%; 2032 – 8.4%; 2033 – 5.1%.", [U, S, S]),
        ("Late sailings by year: 2031 — 6.0%, 2032 — 7.9%, 2033 — 5.1%.", [U, C, S]),
        ("Late sailings ran 7.9% for 2032 — 5.1% in 2033.", [C, S]),
    ],
)
def test_a_year_heads_the_figure_after_its_dash(answer: str, expected: list[str]) -> None:
    assert_verdicts(LATE_ASKED, answer, [LATE_2032, LATE_2033], expected)


PORTS = ref(
    {
        "columns": ["port", "on_time_rate"],
        "rows": [["Eastquay", 52.0], ["Northgate", 40.5], ["Westpier", 47.0]],
    },
    sql="SELECT port, on_time_rate FROM ports",
    column_units={"on_time_rate": "percent"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Northgate sits more than 10 points below Eastquay.", [S]),
        ("Eastquay runs over 10 points above Northgate.", [S]),
        # near miss: a bound the gap passes
        ("Northgate sits less than 10 points below Eastquay.", [C]),
    ],
)
def test_a_bounded_gap_between_two_rows_is_held_by_its_size(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("On-time rate by port?", answer, [PORTS], expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Late sailings were 8.4% in 2032 and 5.1% in 2033. So 2033 went better — about 3.3 "
            "points lower.",
            [S, S, S],
        ),
        # near misses: a polar word of the claim's own stays its sign, and a wrong size
        ("Late sailings were 8.4% in 2032 and 5.1% in 2033, about 3.3 points better.", [S, S, S]),
        (
            "Late sailings were 8.4% in 2032 and 5.1% in 2033. So 2033 went better — about 5.3 "
            "points lower.",
            [S, S, C],
        ),
    ],
)
def test_a_claims_own_word_of_direction_outweighs_a_polar_word_before_it(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(LATE_ASKED, answer, [LATE_2032, LATE_2033], expected)


VESSELS = ref(
    {
        "columns": ["vessel", "sailings", "crew_hours"],
        "rows": [["Harbour Swift", 40, 312], ["Tern Runner", 33, 240]],
    },
    sql="SELECT vessel, COUNT(*) AS sailings, SUM(shift_hours) AS crew_hours FROM trips",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Harbour Swift ran 40 sailings (312 crew-hours).", [S, S]),
        ("Harbour Swift ran 40 sailings, 312 person-hours in all.", [S, S]),
        # near miss: a wrong figure of time so summed is still accused
        ("Harbour Swift ran 40 sailings (290 crew-hours).", [S, C]),
    ],
)
def test_time_summed_over_people_is_a_duration(answer: str, expected: list[str]) -> None:
    assert_verdicts("Sailings and crew hours by vessel?", answer, [VESSELS], expected)


def test_a_hyphenated_compound_ending_in_a_time_word_is_that_unit_only_in_the_plural() -> None:
    claims = extract_claims("TC_001", "", "We did 312 crew-hours and 12 same-day refunds.").claims
    assert [(c.text, c.unit) for c in claims] == [("312 crew-hours", "hours"), ("12", "count")]


CLASSES = ref(
    {
        "columns": ["vessel_class", "sailings"],
        "rows": [["Seabird Class MK-II 300", 214], ["Gull 120", 88]],
    },
    sql="SELECT vessel_class, COUNT(*) AS sailings FROM trips GROUP BY 1",
    column_units={"sailings": "count"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The Seabird MK-II 300 class ran 214 sailings.", [U, S]),
        ("Seabird (Class MK-II 300) ran 214 sailings.", [U, S]),
        # near misses: a figure after a word of no name, and a wrong count after the name
        ("Seabird ran 300 sailings.", [C]),
        ("Seabird (Class MK-II 300) ran 200 sailings.", [U, C]),
    ],
)
def test_a_number_closing_a_name_written_otherwise_is_the_names(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("Sailings by vessel class?", answer, [CLASSES], expected)


FARES_H1 = ref(4_200_000, "currency", name="fare_revenue", params={"year": 2033}, label="2033")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Fares brought in $4.2M so far in 2033, which is on pace for about $9M.", [S, U]),
        ("In 2033 fares are on track for $8.5M.", [U]),
        ("2033 fare revenue is expected to reach about $9M.", [U]),
        # near misses: the same figure stated as the year's own
        ("In 2033 fares came to $8.5M.", [C]),
        ("2033 fare revenue reached about $9M.", [C]),
    ],
)
def test_a_figure_the_answer_projects_is_not_the_references(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("Fare revenue in 2033?", answer, [FARES_H1], expected)
