"""Precision on a fourth held-back domain (municipal waste collection): causes of false
accusations found when it was measured — the whole of an "X … out of Y" held against the
value its part is about, a figure owned by a name the references do not hold ("than B's 80"),
and a difference set against a planned value ("above budget") held against the gap of two
periods — written here in other words and another domain (a public library), each beside a
near miss the oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

LATE_RETURNS = ref(
    318,
    sql="SELECT COUNT(*) AS loans_returned_late FROM loans WHERE days_late > :days",
    params={"days": 14},
)
LATE_ASKED = "How many loans came back more than 14 days late in 2031?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("In 2031, 355 loans came back over 14 days late, out of about 41,000 loans.", [C, U]),
        ("355 loans were returned late in 2031 out of roughly 41,000 loans.", [C, U]),
        # near misses: a right part beside its whole, a wrong figure with no whole, and a
        # whole nearer the value than its part, which may be the value's own figure
        ("In 2031, 318 loans came back over 14 days late, out of about 41,000 loans.", [S, U]),
        ("In 2031, 355 loans came back more than 14 days late.", [C]),
        ("Just 12 of them were damaged, out of 355 loans returned late in 2031.", [U, C]),
    ],
)
def test_the_whole_after_out_of_is_not_its_parts_value(answer: str, expected: list[str]) -> None:
    assert_verdicts(LATE_ASKED, answer, [LATE_RETURNS], expected)


CENTRAL_VISITS = ref(
    48_210,
    "number",
    name="branch_visits",
    params={"branch": "Central", "year": 2031},
    label="Central",
)
VISITS_ASKED = "How many visits did Central have in 2031?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Central's 48,210 visits are 8,340 more than Lakeside's 39,870 for 2031.", [S, U, U]),
        ("In 2031 Central logged 48,210 visits, ahead of Hilltop Annex's 31,400 in 2031.", [S, U]),
        # near misses: the owner is the reference's own entity, and a wrong figure it owns
        ("Central's 48,210 visits led the branches in 2031.", [S]),
        ("Central's 52,900 visits led the branches in 2031.", [C]),
    ],
)
def test_a_figure_owned_by_a_name_the_references_do_not_hold(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(VISITS_ASKED, answer, [CENTRAL_VISITS], expected)


SPEND_2031 = ref(2_450_000.0, "currency", name="book_spend", params={"year": 2031}, label="2031")
SPEND_2032 = ref(1_130_000.0, "currency", name="book_spend", params={"year": 2032}, label="2032")
SPEND_ASKED = "How does book spend so far this year compare with last year?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "We have spent $1.13M on books in 2032; the full year could reach $2.6M, "
            "roughly $90K above budget.",
            [S, U, U],
        ),
        (
            "Spending so far is $1.13M for 2032; the year should land near $2.6M, "
            "nearly $80K over budget.",
            [S, U, U],
        ),
        (
            "Spending so far is $1.13M for 2032; the year should land near $2.6M, "
            "about $40K below target.",
            [S, U, U],
        ),
        # near misses: a difference set against the other period, which its words name
        ("Spending so far is $1.13M for 2032, roughly $1.2M below the 2031 total.", [S, S]),
        ("Book spend is $1.13M for 2032, about $1.5M below 2031.", [S, C]),
    ],
)
def test_a_difference_from_a_planned_value_is_no_gap_of_the_references(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(SPEND_ASKED, answer, [SPEND_2031, SPEND_2032], expected)
