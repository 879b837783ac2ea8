"""Values found where their words put them: a signed figure in a net balance's place is that
balance (in less out), and "March 14, April 9" in a by-month answer gives each month's value."""

from __future__ import annotations

import pytest

from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

STOCK = ref(
    {
        "columns": ["week", "received", "shipped", "net_units"],
        "rows": [["2025-03-03", 40, 33, 7], ["2025-03-10", 21, 30, -9]],
    },
    column_units={"received": "count", "shipped": "count", "net_units": "count"},
)
TABLE = "| Week | Received | Shipped | Net |\n|---|---|---|---|\n"


@pytest.mark.parametrize(
    ("first", "second", "verdicts"),
    [("+7", "-9", [S, S]), ("+6", "-9", [C, S]), ("+7", "-4", [S, C])],
)
def test_a_signed_figure_in_a_net_column_is_the_balance(
    first: str, second: str, verdicts: list[str]
) -> None:
    assert_verdicts(
        "Show stock received and shipped by week in March 2025.",
        TABLE + f"| 2025-03-03 | 40 | 33 | {first} |\n| 2025-03-10 | 21 | 30 | {second} |\n",
        [STOCK],
        [S, S, verdicts[0], S, S, verdicts[1]],
    )


def test_a_signed_figure_beside_net_sales_is_not_its_level() -> None:
    """Net sales never goes below zero: a level, so "+$1,100" beside it is a change the
    references do not hold, not a wrong figure of it."""
    sales = ref(
        {"columns": ["store", "net_sales"], "rows": [["Elm St", 5200.0], ["Oak Ave", 4100.0]]},
        column_units={"net_sales": "currency"},
    )
    assert_verdicts(
        "How did net sales do by store?",
        "Elm St: $5,200 net sales, +$1,100.\nOak Ave: $4,100 net sales, +$300.",
        [sales],
        [S, U, S, U],
    )


RETURNS = ref(
    {
        "columns": ["month", "returns"],
        "rows": [["2025-03-01", 14], ["2025-04-01", 9], ["2025-05-01", 21]],
    },
    column_units={"returns": "count"},
)


@pytest.mark.parametrize(("april", "verdict"), [("9", S), ("12", C)])
def test_a_month_followed_by_its_value_is_not_a_date(april: str, verdict: str) -> None:
    assert_verdicts(
        "How many returns did we get each month in 2025?",
        f"2025 returns by month: March 14, April {april}, May 21.",
        [RETURNS],
        [S, verdict, S],
    )


LINES = ref(
    {
        "columns": ["product_line", "revenue"],
        "rows": [["Unbranded Basics", 12000.0], ["House Select", 30500.0]],
    },
    column_units={"revenue": "currency"},
)


@pytest.mark.parametrize(("figure", "verdict"), [("$12.0K", S), ("$14.5K", C)])
def test_a_name_that_reads_like_a_remainder_is_a_name(figure: str, verdict: str) -> None:
    assert_verdicts(
        "Revenue by product line?",
        f"| Line | Revenue |\n|---|---|\n| Unbranded Basics | {figure} |\n"
        "| House Select | $30.5K |\n",
        [LINES],
        [verdict, S],
    )


def test_a_remainder_in_the_words_is_still_none_of_the_references() -> None:
    assert_verdicts(
        "Revenue by product line?",
        "House Select brought in $30.5K; an unbilled $14.5K sits on top.",
        [LINES],
        [S, U],
    )


SIGNUPS = ref(
    {
        "columns": ["month", "signups"],
        "rows": [["2025-01-01", 28], ["2025-02-01", 31], ["2025-03-01", 33]],
    },
    column_units={"signups": "count"},
)
MONTHS = (
    "| Month | Signups |\n|---|---|\n| Jan 2025 | 28 |\n| Feb 2025 | 31 |\n| Mar 2025 | 33 |\n\n"
)


@pytest.mark.parametrize(("total", "verdict"), [("92", S), ("97", C)])
def test_a_figure_for_the_period_named_by_its_grain_is_the_rows_total(
    total: str, verdict: str
) -> None:
    assert_verdicts(
        "How many signups did we get each month in Q1 2025?",
        MONTHS + f"For the quarter: {total} signups.",
        [SIGNUPS],
        [S, S, S, verdict],
    )


REPAIRS = ref(
    {
        "columns": ["week_start", "repair_hours"],
        "rows": [["2025-06-02", 6.5], ["2025-06-09", 4.0], ["2025-06-16", 8.25]],
    },
    sql="SELECT week_start, SUM(minutes) / 60.0 AS repair_hours FROM repairs GROUP BY week_start",
)
WEEKS = (
    "- Week of 2 June: 6.5 hours\n- Week of 9 June: 4.0 hours\n- Week of 16 June: 8.25 hours\n\n"
)


@pytest.mark.parametrize(
    ("sentence", "verdict"),
    [
        ("Repairs took 21 hours over the month.", C),
        # hours of something the references do not hold: no total of the rows
        ("The van sat idle for 21 hours over the month.", U),
    ],
)
def test_a_total_for_the_grain_is_of_the_quantity_its_words_name(
    sentence: str, verdict: str
) -> None:
    assert_verdicts(
        "Repair hours by week in June 2025?", WEEKS + sentence, [REPAIRS], [S, S, S, verdict]
    )
