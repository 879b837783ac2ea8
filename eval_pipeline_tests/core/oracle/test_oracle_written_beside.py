"""Figures read by what they are written beside: list items that open on a figure of another
unit still state their counts in one order; a share set right after an amount the answer sums
is that amount's share of the column; a count bracketed with a row's rate, when the row's base
count is in another reference, is the part the rate takes of it.
"""

from __future__ import annotations

import pytest

from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

RETURNS = ref(
    {
        "columns": ["warehouse", "shipped", "returned", "return_rate_pct"],
        "rows": [["North", 240, 60, 25.0], ["South", 90, 30, 33.33], ["East", 150, 60, 40.0]],
    },
    column_units={"shipped": "count", "returned": "count", "return_rate_pct": "percent"},
)
_ITEMS = "Returns by warehouse:\n- North: 60 of the 240 came back.\n- East: 60 of 150 returned.\n"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the item opens on a fraction: its counts are still "returned of shipped"
        (_ITEMS + "- South: exactly a third, 30 of 90.", [S, S, S, S, S, S, S]),
        (_ITEMS + "- South: exactly a third, 35 of 90.", [S, S, S, S, S, C, S]),
        # near miss: the same item without the fraction was read so before too
        (_ITEMS + "- South: 30 of 90.", [S, S, S, S, S, S]),
    ],
)
def test_list_items_state_their_counts_in_one_order(answer: str, expected: list[str]) -> None:
    assert_verdicts("What share of shipments came back?", answer, [RETURNS], expected)


SEGMENTS = ref(
    {
        "columns": ["segment", "accounts"],
        "rows": [["retail", 120], ["wholesale", 110], ["public", 95], ["export", 75]],
    },
    sql="SELECT segment, COUNT(*) AS accounts FROM a GROUP BY segment",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 325 of 400 is 0.81: about 4 in 5; the last named row alone (95) would be 1 in 4
        ("Retail, wholesale and public together hold 325, about 4 in 5 accounts.", [S, S]),
        ("Retail, wholesale and public together hold 325 (81%).", [S, S]),
    ],
)
def test_a_share_right_after_a_sum_is_the_sums(answer: str, expected: list[str]) -> None:
    assert_verdicts("How are our accounts split by segment?", answer, [SEGMENTS], expected)


UPTIME = ref({"Line A": 80.0, "Line B": 62.5}, "percent", name="uptime_by_line")
CAPACITY = ref({"Line A": 250, "Line B": 120}, "count", name="machines", kind="core_node")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 80% of 250 machines is 200; 62.5% of 120 is 75
        (
            "Running on a typical day:\n- Line A: about 200 machines (80.0%)\n- Line B: about 75 "
            "(62.5%)",
            [S, S, S, S],
        ),
        # a wrong product is not accused by the base count: unverifiable
        ("Running on a typical day:\n- Line A: about 170 machines (80.0%)", [U, S]),
        # near miss: the base count itself, bracketed with its rate, is still that count
        ("Machines per line:\n- Line A: 250 machines (80.0% up)", [S, S]),
    ],
)
def test_a_count_beside_a_rate_is_its_part_of_another_references_count(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("How many machines run on each line?", answer, [UPTIME, CAPACITY], expected)
