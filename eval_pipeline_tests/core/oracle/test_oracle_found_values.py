"""Where a claim's value is found: a share over a wider query the SQL itself names, an amount
per item over a count named by a participle, a total for a period named by its grain alone."""

from __future__ import annotations

import pytest

from eval_pipeline.core.oracle.facts import reference_facts
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

DATES = {"p": "2025-01-01", "q": "2025-12-31"}
LATE = ref(
    132,
    "count",
    sql="SELECT COUNT(*) AS late FROM parcels WHERE state = 'delivered' AND hours_late > 24 "
    "AND day BETWEEN :p AND :q",
    params=DATES,
    label="parcels over a day late",
)


def _delivered(table: str = "parcels") -> object:
    return ref(
        2400,
        sql=f"SELECT COUNT(*) AS delivered FROM {table} WHERE state = 'delivered' "
        "AND day BETWEEN :p AND :q",
        params=DATES,
        label="delivered parcels",
    )


@pytest.mark.parametrize(("answer", "verdict"), [("5.5%", S), ("7.5%", C)])
def test_a_share_of_the_query_its_own_narrows(answer: str, verdict: str) -> None:
    assert_verdicts(
        "What share of parcels came in late in 2025?",
        f"Parcels over a day late were {answer} of deliveries in 2025.",
        [LATE, _delivered()],
        [verdict],
    )


def test_no_share_of_a_query_over_other_rows() -> None:
    assert_verdicts(
        "What share of parcels came in late in 2025?",
        "Parcels over a day late were 5.5% of deliveries in 2025.",
        [LATE, _delivered("returns")],
        [U],
    )


VANS = ref(
    {
        "columns": ["van", "drive_hours", "trips_made", "tolls_charged"],
        "rows": [["Van 7", 120.0, 80, 4210], ["Van 9", 96.5, 75, 3880]],
    },
    sql="SELECT van, drive_hours, trips_made, tolls_charged FROM vans",
)


def test_a_plural_noun_before_its_participle_counts_and_a_money_one_does_not() -> None:
    units = {f.column: f.unit for f in reference_facts(VANS, 0)}
    assert units == {"drive_hours": "hours", "trips_made": "count", "tolls_charged": None}


def test_an_amount_per_item_counted_by_a_participle_column() -> None:
    assert_verdicts(
        "How long were Van 7's trips?",
        "Van 7 drove 120.0 hours over its trips, roughly 90 minutes per trip.",
        [VANS],
        [S, S],
    )


LOANS = ref(
    {
        "columns": ["month", "loans"],
        "rows": [["2025-07-01", 300], ["2025-08-01", 350], ["2025-09-01", 250]],
    },
    sql="SELECT month, loans FROM monthly_loans",
)


def test_a_total_for_the_quarter_the_question_names() -> None:
    assert_verdicts(
        "How many loans did the library make each month in Q3 2025?",
        "July 2025: 300 loans; August 2025: 350 loans; September 2025: 250 loans — about "
        "900 loans for the quarter, with August the busiest month.",
        [LOANS],
        [S, S, S, S, S],
    )


def test_a_wrong_total_for_the_quarter_is_held_against_the_total_not_a_month() -> None:
    assert_verdicts(
        "How many loans did the library make each month in Q3 2025?",
        "July 2025: 300 loans; August 2025: 350 loans; September 2025: 250 loans — about "
        "930 loans for the quarter.",
        [LOANS],
        [S, S, S, C],
    )


WEEKS = ref(
    {
        "columns": ["week_start", "loans"],
        "rows": [["2025-01-06", 16], ["2025-01-13", 14], ["2025-01-20", 28]],
    },
    sql="SELECT week_start, loans FROM weekly_loans",
)


def test_a_week_named_in_its_own_clause_stays_its_period_within_the_year() -> None:
    assert_verdicts(
        "How many loans did the library make each week of January 2025?",
        "In 2025, the library made 16 loans in the week of 6 January and 28 in the week of "
        "20 January.",
        [WEEKS],
        [S, S],
    )


YEAR = ref(
    {
        "columns": ["month", "members"],
        "rows": [["2025-01-01", 400], ["2025-06-01", 500], ["2025-12-01", 600]],
    },
    sql="SELECT month, members FROM monthly_members",
)


def test_a_change_over_the_year_keeps_its_two_ends() -> None:
    assert_verdicts(
        "How did membership move through 2025?",
        "Membership grew about 50% over the year, from January to December.",
        [YEAR],
        [S],
    )
