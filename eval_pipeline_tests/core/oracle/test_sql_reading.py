"""What a gold SQL reference's text says: its date range's ends, whatever its params are
called, and whether one query counts a subset of another's rows."""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import Reference
from eval_pipeline.core.oracle.sql_reading import date_bounds, narrows


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT COUNT(*) FROM trips WHERE day BETWEEN :p AND :q", ("p", "q")),
        ("SELECT SUM(fare) FROM trips WHERE at >= :lo AND at < :hi", ("lo", "hi")),
        ("SELECT COUNT(*) FROM trips WHERE :hi > at AND at >= :lo", ("lo", "hi")),
        # one date on both sides is a day, two dates in a list are two days, none is none
        ("SELECT COUNT(*) FROM m WHERE joined <= :d AND (left IS NULL OR left > :d)", None),
        ("SELECT COUNT(*) FROM trips WHERE day IN (:x, :y)", None),
        ("SELECT COUNT(*) FROM trips", None),
        ("not a query at all", None),
    ],
)
def test_date_bounds(sql: str, expected: tuple[str, str] | None) -> None:
    assert date_bounds(sql) == expected


def _query(sql: str, **params: str) -> Reference:
    return Reference(sql=sql, params=params)


WHOLE = "SELECT COUNT(*) AS n FROM parcels WHERE state = 'delivered' AND day BETWEEN :p AND :q"
PART = (
    "SELECT COUNT(*) AS late FROM parcels WHERE state = 'delivered' AND hours_late > 24 "
    "AND day BETWEEN :p AND :q"
)
DATES = {"p": "2025-01-01", "q": "2025-12-31"}


def test_a_query_with_more_conditions_narrows_the_other() -> None:
    assert narrows(_query(PART, **DATES), _query(WHOLE, **DATES))
    assert not narrows(_query(WHOLE, **DATES), _query(PART, **DATES))


@pytest.mark.parametrize(
    "whole",
    [
        _query(WHOLE.replace("COUNT(*)", "SUM(weight)"), **DATES),  # another aggregate
        _query(WHOLE.replace("parcels", "returns"), **DATES),  # another table
        _query(WHOLE, p="2024-01-01", q="2024-12-31"),  # another year
        _query(PART, **DATES),  # the same rows: no wider whole
    ],
)
def test_no_whole_without_the_same_aggregate_tables_and_values(whole: Reference) -> None:
    assert not narrows(_query(PART, **DATES), whole)
