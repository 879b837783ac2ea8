"""A level is accused only of what its words are about: not of a row or period they leave
out ("Except for March, …"), not of the whole when its words count a part of it ("3 phone
orders"), name a place the case's own figures are not for ("the Orchard Street Studio, where
seats averaged …"), or restate another figure as a share ("180 on average, about 18% of the
room"); a figure every row agrees with needs no row named; a name is also written by its own
words ("the Cellar" for "The Cellar at Dock 4").
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.oracle.labels import label_forms
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

DELIVERIES = ref(
    {
        "columns": ["month", "deliveries"],
        "rows": [
            ["2024-01-01", 42],
            ["2024-02-01", 50],
            ["2024-03-01", 90],
            ["2024-04-01", 47],
            ["2024-05-01", 55],
            ["2024-06-01", 40],
        ],
    },
    sql="SELECT month, COUNT(*) AS deliveries FROM d GROUP BY month",
    column_units={"deliveries": "count"},
)
_OUTLIER = "March 2024 was the outlier with 90 deliveries. "


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the month left out is not what the range is of (40 and 55 are other months')
        (_OUTLIER + "Except for March, months ranged from 40 to 55 deliveries.", [S, S, S]),
        (_OUTLIER + "Outside March, months ranged from 40 to 65 deliveries.", [S, S, U]),
        (_OUTLIER + "Other than March, no month topped 60 deliveries.", [S, U]),
        # near miss: a month named as the figures' own still pins them
        (_OUTLIER + "In March, months ranged from 40 to 55 deliveries.", [S, C, C]),
    ],
)
def test_a_period_left_out_is_not_what_the_figures_are_for(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("How many deliveries did we make each month?", answer, [DELIVERIES], expected)


WAITS = ref(
    {
        "columns": ["channel", "avg_wait_days"],
        "rows": [["web", 12.4], ["phone", 12.1], ["store", 11.8]],
    },
    sql="SELECT channel, AVG(wait) AS avg_wait_days FROM o GROUP BY channel",
)
_WAITS = "Web orders wait 12.4 days, phone 12.1 and store 11.8"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # every channel agrees with it: right whichever it is read for
        (_WAITS + " — a spread of 0.6 days, so customers wait roughly 12 days.", [S, S, S, S, S]),
        # near miss: wrong for every channel, but not the spread, which the 0.6 states
        (_WAITS + " — a spread of 0.6 days, so customers wait roughly 15 days.", [S, S, S, S, U]),
        # near miss: a figure for the whole is the mean of the rows, which no row is
        (_WAITS + "; the company-wide wait is roughly 12 days.", [S, S, S, U]),
    ],
)
def test_a_figure_every_row_agrees_with_needs_no_row_named(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("Does the wait differ by channel?", answer, [WAITS], expected)


STORES = ref(
    {
        "columns": ["store", "orders", "returns"],
        "rows": [["North Store", 400, 30], ["South Store", 350, 25]],
    },
    sql="SELECT store, COUNT(*) AS orders, SUM(returned) AS returns FROM o GROUP BY store",
    column_units={"orders": "count", "returns": "count"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a word the facts lack qualifies the noun they count: a part of the store's orders
        ("South Store also hosted 320 corporate orders.", [U]),
        ("South Store: 350 orders, 25 returns and 320 corporate orders.", [S, S, U]),
        # near misses: a participle says how the count is defined, a word of the question
        # or of the facts names no part, and a bare count is the store's own
        ("North Store took 400 orders. South Store logged 360 completed orders.", [S, C]),
        ("North Store took 400 orders. South Store took 360 online orders.", [S, C]),
        ("North Store took 400 orders. South Store took 360 orders.", [S, C]),
    ],
)
def test_a_count_its_words_qualify_is_a_part_of_the_counted_whole(
    answer: str, expected: list[str]
) -> None:
    question = "How many online and in-store orders did each store take?"
    if "online" not in answer:
        question = "How many orders did each store take?"
    assert_verdicts(question, answer, [STORES], expected)


HALLS = ref(
    {
        "columns": ["hall", "seats", "avg_booked"],
        "rows": [["Hall A", 1000, 180], ["Hall B", 500, 150], ["Hall C", 200, 120]],
    },
    sql="SELECT h.name AS hall, h.seats, ROUND(AVG(b.booked), 0) AS avg_booked FROM h JOIN b",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the share restates the 180, not Hall A's share of all seats (59%)
        ("At Hall A (1,000 seats) we book 180 on average, about 18% of the room.", [S, S, U]),
        # near misses: the share of the amount it follows, or whose words name its part
        ("Hall A has 1,000 seats, about 59% of all our seats.", [S, S]),
        ("Hall A has 1,000 seats, about 40% of all our seats.", [S, C]),
    ],
)
def test_a_share_after_an_amount_is_that_amounts(answer: str, expected: list[str]) -> None:
    assert_verdicts("How do bookings compare with each hall's size?", answer, [HALLS], expected)


PRICES = [
    ref(84.2, name="avg_price", params={"year": 2024, "venue": "Summit Hall"}, label="Summit Hall"),
    ref(
        28.1,
        name="avg_price",
        params={"year": 2024, "venue": "The Cellar at Dock 4"},
        label="The Cellar at Dock 4",
    ),
    ref(
        33.9,
        name="avg_price",
        params={"year": 2024, "venue": "Corner House 12"},
        label="Corner House 12",
    ),
]
_PRICES = (
    "Summit Hall: $84.20\nCorner House 12: $33.90\nThe Cellar at Dock 4: $28.10\n\n"
    "A Summit Hall seat costs about 3 times a Cellar seat and roughly 2.5x a Corner House seat; "
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # "the Cellar" names The Cellar at Dock 4: the gap is the two its clause names, which
        # pin it though the sentence names a third (33.9 - 28.1 = 5.8)
        (_PRICES + "the Corner House runs about $6 above the Cellar.", [S, S, S, S, S, S]),
        (_PRICES + "the Corner House runs about $9 above the Cellar.", [S, S, S, S, S, C]),
    ],
)
def test_a_name_is_written_by_its_own_words(answer: str, expected: list[str]) -> None:
    question = "Compare average prices at Summit Hall, The Cellar at Dock 4 and Corner House 12."
    assert_verdicts(question, answer, PRICES, expected)


def test_the_own_words_of_a_name_are_before_its_place() -> None:
    forms = label_forms(["The Cellar at Dock 4", "Hall 2 at Expo Centre", "The North Face"])
    assert forms["Cellar"].key == forms["The Cellar at Dock 4"].key
    assert forms["Hall 2"].key == forms["Hall 2 at Expo Centre"].key
    assert "North" not in forms  # an article alone leaves the name whole


YEARS = [
    ref(50.1, name="avg_price", params={"year": 2023}, label="2023"),
    ref(55.2, name="avg_price", params={"year": 2024}, label="2024"),
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the case's own figure is not the studio's
        ("In 2024 more came from the Orchard Street Studio, where seats averaged around $80.", [U]),
        # near misses: no name, or a name that is no subject of the figure
        ("In 2024 seats averaged around $80.", [C]),
        ("In 2024 seats averaged around $80, with the Orchard Street Studio busiest.", [C]),
    ],
)
def test_a_name_the_case_figures_are_not_for(answer: str, expected: list[str]) -> None:
    assert_verdicts("What was the average seat price in 2024?", answer, YEARS, expected)
