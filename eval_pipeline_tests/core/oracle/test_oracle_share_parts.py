"""Which listed amount a share is of, when its sentence opens on its whole and lists several
amounts before it ("Of the 900 tickets, 412 by email, … 90 walk-in — so about 1 in 7 …"): the
row its own words name, else the amount it is bracketed beside, else any of them — and then it
is accused only when every reading (each amount over the whole, or over the sum of those listed)
disagrees.
"""

from __future__ import annotations

import pytest

from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

TICKETS = ref(
    {
        "columns": ["channel", "tickets"],
        "rows": [["email", 412], ["chat", 268], ["phone", 130], ["walk-in", 90]],
    },
    sql="SELECT channel, COUNT(*) AS tickets FROM t GROUP BY channel",
    column_units={"tickets": "count"},
)
REFUNDS = ref(
    {
        "columns": ["outcome", "requests"],
        "rows": [["granted", 210], ["refused", 140], ["withdrawn", 40], ["open", 10]],
    },
    sql="SELECT outcome, COUNT(*) AS requests FROM r GROUP BY outcome",
    column_units={"requests": "count"},
)
_CHANNELS = (
    "Of the 900 tickets in March, 412 came by email, 268 via chat, 130 by phone and 90 walk-in"
)
_TWO_CHANNELS = "Of the 900 tickets in March, 412 came by email and 268 via chat"
_OUTCOMES = "Of 400 refund requests in May, 210 were granted and 140 refused"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # its words name the row, in a derived form or a phrase: that row is the part, not the
        # last amount listed (130 of 900 is 1 in 6.9; 90 of 900 would be 1 in 10)
        (_CHANNELS + " — so about 1 in 7 was phone-based.", [S, S, S, S, S, S]),
        (_CHANNELS + " — so roughly 1 in 7 came in by phone.", [S, S, S, S, S, S]),
        (_CHANNELS + " — so about 1 in 4 was phone-based.", [S, S, S, S, S, C]),
        (_CHANNELS + " — so about 1 in 10 arrived through chat.", [S, S, S, S, S, C]),
        # a row listed nowhere before it: no listed amount is its part
        (_TWO_CHANNELS + " — so about 1 in 3 came walk-in.", [S, S, S, C]),
        (_TWO_CHANNELS + " — so about 1 in 10 came walk-in.", [S, S, S, S]),
        # bracketed beside an amount, it is that amount's
        (_TWO_CHANNELS + " (30%), and 130 by phone.", [S, S, S, S, S]),
        (_TWO_CHANNELS + " (45%), and 130 by phone.", [S, S, S, C, S]),
        (_TWO_CHANNELS + ", or 30%, and 130 by phone.", [S, S, S, S, S]),
    ],
)
def test_a_share_is_of_the_listed_row_its_words_name(answer: str, expected: list[str]) -> None:
    assert_verdicts("Where did March's support tickets come from?", answer, [TICKETS], expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # its words name no row: 210 of the 350 decided is 3 in 5, 210 of all 400 about 2.6
        (_OUTCOMES + " — about 3 out of 5 decisions went the customer's way.", [S, S, S, S]),
        (_OUTCOMES + ", so 60% of decisions favoured the customer.", [S, S, S, U]),
        # every reading disagrees: 210 or 140, of 400 or of 350, is none of these
        (_OUTCOMES + " — roughly 1 in 5 decisions went the customer's way.", [S, S, S, C]),
        (_OUTCOMES + ", so 75% of decisions favoured the customer.", [S, S, S, C]),
        # its words name the row
        (_OUTCOMES + " — about 3 out of 5 were granted.", [S, S, S, S]),
        (_OUTCOMES + " — about 4 out of 5 were granted.", [S, S, S, C]),
        # bracketed beside the refusals: theirs
        (_OUTCOMES + " (35%).", [S, S, S, S]),
        (_OUTCOMES + " (about 52%).", [S, S, S, C]),
    ],
)
def test_a_share_whose_words_name_no_listed_row_is_accused_only_by_every_reading(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("What happened to refund requests in May?", answer, [REFUNDS], expected)
