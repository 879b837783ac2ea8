"""The periods a reference's params tie its values to (issue #15: a reference's non-string
params — an integer year, a part of it, a date — tie levels to the periods an answer names)."""

from __future__ import annotations

from typing import Any

import pytest

from eval_pipeline.core.oracle.periods import (
    Period,
    grain_mentions,
    param_periods,
    period_mentions,
    values_not_days,
)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"year": 2024}, [Period("year", 2024)]),
        ({"year": 2024, "quarter": 1}, [Period("quarter", 2024, 1)]),
        ({"year": 2025, "Month": 11, "region": "North"}, [Period("month", 2025, 11)]),
        ({"half": 2, "year": 2025}, [Period("half", 2025, 2)]),
        ({"quarter": 3}, [Period("quarter", None, 3)]),
        # not a part of the year: out of range, a flag, or two parts at once
        ({"year": 2024, "quarter": 5}, [Period("year", 2024)]),
        ({"year": 2024, "quarter": True}, [Period("year", 2024)]),
        ({"year": 2024, "quarter": 1, "month": 2}, [Period("year", 2024)]),
        ({"quarter": "2024Q1"}, [Period("quarter", 2024, 1)]),
    ],
)
def test_param_periods(params: dict[str, Any], expected: list[Period]) -> None:
    assert param_periods(params) == expected


@pytest.mark.parametrize(
    ("sql", "params", "expected"),
    [
        # the query's comparisons say which date starts the range, whatever the params are called
        (
            "SELECT COUNT(*) FROM loans WHERE lent_on BETWEEN :x AND :y",
            {"x": "2024-01-01", "y": "2024-12-31"},
            [Period("year", 2024)],
        ),
        (
            "SELECT COUNT(*) FROM loans WHERE lent_on >= :lo AND lent_on < :hi",
            {"lo": "2025-04-01", "hi": "2025-07-01"},
            [Period("quarter", 2025, 2)],
        ),
        # a date on both sides of the query is one day; so are two dates in a list
        (
            "SELECT COUNT(*) FROM cards WHERE issued <= :d AND (lapsed IS NULL OR lapsed > :d)",
            {"d": "2025-12-31"},
            [Period("day", 2025, 1231)],
        ),
        (
            "SELECT COUNT(*) FROM loans WHERE lent_on IN (:x, :y)",
            {"x": "2024-01-01", "y": "2024-12-31"},
            [Period("day", 2024, 101), Period("day", 2024, 1231)],
        ),
    ],
)
def test_param_periods_read_the_query(
    sql: str, params: dict[str, Any], expected: list[Period]
) -> None:
    assert param_periods(params, sql) == expected


@pytest.mark.parametrize(
    ("text", "named", "expected"),
    [
        (
            "about 900 loans for the quarter",
            [Period("quarter", 2025, 3)],
            [Period("quarter", 2025, 3)],
        ),
        ("busy over the whole year", [Period("year", 2024)], [Period("year", 2024)]),
        # the question names no period of that grain, or several: the words name none
        ("about 900 loans for the quarter", [Period("year", 2025)], []),
        ("for the quarter", [Period("quarter", 2025, 3), Period("quarter", 2025, 4)], []),
        ("the quarter was busy", [Period("quarter", 2025, 3)], []),
    ],
)
def test_grain_mentions(text: str, named: list[Period], expected: list[Period]) -> None:
    assert [m.period for m in grain_mentions(text, named)] == expected


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        # the day is a stated value: the mention is of its month
        ("Refunds: March 14, April 9.", [15, 25], [Period("month", None, m) for m in (3, 4)]),
        ("Refunds peaked in June 2025 at 40.", [31], [Period("month", 2025, 6)]),
        # no value inside it: a day stays a day
        ("The outage on March 14 cost 40 orders.", [28], [Period("day", None, 314)]),
    ],
)
def test_values_not_days(text: str, values: list[int], expected: list[Period]) -> None:
    found = values_not_days(text, period_mentions(text), values)
    assert [m.period for m in found] == expected
