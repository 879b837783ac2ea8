"""Figures the oracle left unverifiable though the answer says what they are of: a ranking
whose words name no column but whose figure does ("Old Mill tops the list at $3.10"), a share
opening the sentence after its part and whole ("… 956 within a day. That's 74%"), rows a
sentence refers back to ("Those two stations account for 31%", "Together they made $211K"),
and durations with an attached unit ("275s", "~38.5d") — found on the blind set, written here
in another domain (a bike-sharing scheme), each beside a near miss the oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import ReferenceValue
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

STATIONS = ref(
    {
        "columns": ["station", "rides", "avg_fare"],
        "rows": [
            ["Dockside", 41_200, 2.35],
            ["Old Mill", 30_400, 3.10],
            ["Canal Gate", 22_900, 2.80],
            ["Park Row", 18_100, 2.10],
            ["Hilltop 2", 12_400, 2.55],
        ],
    },
    name="station_summary",
    params={"year": 2032},
    column_units={"rides": "count", "avg_fare": "currency"},
)
ASKED = "How did our stations do in 2032?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # its words name no column; the figure stated with it is the average fare's
        ("Old Mill tops the list at $3.10.", [S, S]),
        ("Dockside tops the list at 41,200.", [S, S]),
        # a guess: a ranking that does not hold by the figure's column is never accused
        ("Canal Gate tops the list at $2.80.", [U, S]),
    ],
)
def test_a_ranking_is_read_by_the_column_of_the_figure_stated_with_it(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(ASKED, answer, [STATIONS], expected)


RESOLVED = ref(
    {"columns": ["repaired_within_24h", "repaired_bikes"], "rows": [[956, 1_349]]},
    sql="SELECT …",
    column_units={"repaired_within_24h": "count", "repaired_bikes": "count"},
)
RESOLVED_ASKED = "What share of broken bikes were repaired within a day?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 956 / 1,349 = 70.9%
        ("Of the 1,349 bikes repaired, 956 were back within a day. That's 71%.", [S, S, S]),
        ("Of the 1,349 bikes repaired, 956 were back within a day. That's 74%.", [S, S, C]),
        ("956 of 1,349 bikes were back within a day. That is 66%.", [S, S, C]),
    ],
)
def test_a_share_opening_the_sentence_after_its_part_and_whole_is_of_them(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(RESOLVED_ASKED, answer, [RESOLVED], expected)


def test_a_share_opening_a_sentence_after_no_part_and_whole_is_not_pinned() -> None:
    """The sentence before states no part of a whole: "That's 74%" says nothing of them."""
    answer = "We repaired 1,349 bikes and 956 were back within a day. That's 74% of the fleet."
    assert_verdicts(RESOLVED_ASKED, answer, [RESOLVED], [S, S, U])


LISTED = "Dockside logged 41,200 rides and Old Mill 30,400. "


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # (41,200 + 30,400) / 125,000 = 57.3%
        (LISTED + "Together those two stations took 57% of all rides.", [S, S, S]),
        (LISTED + "Together those two stations took 64% of all rides.", [S, S, C]),
        # 41,200 + 30,400 = 71,600
        (LISTED + "Those two stations logged roughly 71.6K rides between them.", [S, S, S]),
        (LISTED + "Those two stations logged roughly 78K rides between them.", [S, S, C]),
        # uncounted: the runs ending at the last row stated, a guess that never accuses
        (LISTED + "Together they logged about 71.6K rides.", [S, S, S]),
        (LISTED + "Together they logged about 78K rides.", [S, S, U]),
    ],
)
def test_a_sentence_referring_back_adds_the_rows_named_before(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(ASKED, answer, [STATIONS], expected)


@pytest.mark.parametrize(
    "answer",
    [
        # "the three riverside stations" picks its rows by what they are, not by the list
        LISTED + "Together the three riverside stations took 64% of all rides.",
        # a share of a whole it writes itself, which the references may not hold
        LISTED + "Together they took 64% of the year's 118,000.",
    ],
)
def test_a_sentence_choosing_its_own_rows_or_whole_is_not_read_as_referring_back(
    answer: str,
) -> None:
    contract = extract_claims("TC_001", ASKED, answer)
    verdicts = verify_claims(contract, [STATIONS], answer=answer, question=ASKED)
    share = [v.verdict for c, v in zip(contract.claims, verdicts, strict=True) if c.text == "64%"]
    assert share == [U]


UNLOCK = ref(275.0, "seconds", name="avg_unlock_seconds", params={"year": 2032})
REPAIR = ref(924.0, "hours", name="avg_repair_hours", params={"year": 2032})


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [
        ("Unlocking took 275s on average.", [UNLOCK], [S]),
        ("Unlocking took 295s on average.", [UNLOCK], [C]),
        ("A repair took 924 hours (~38.5d) on average.", [REPAIR], [S, S]),
        ("A repair took about 42.5d on average.", [REPAIR], [C]),
    ],
)
def test_a_duration_with_an_attached_unit_letter(
    answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    assert_verdicts("How long do unlocks and repairs take?", answer, refs, expected)


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("Riders in their 30s made 40% of trips.", ["40%"]),
        ("Bikes from the 1990s are 12% of the fleet.", ["12%"]),
        ("A 3D map shows 14 stations.", ["14"]),
    ],
)
def test_a_decade_or_an_age_band_is_no_duration(answer: str, claims: list[str]) -> None:
    assert [c.text for c in extract_claims("TC_001", "", answer).claims] == claims


RATINGS = ref(
    {"columns": ["stars", "ratings"], "rows": [[1, 21], [2, 48], [3, 231], [4, 512], [5, 388]]},
    sql="SELECT stars, COUNT(*) AS ratings FROM ride_ratings GROUP BY stars",
)
RATINGS_ASKED = "How do riders rate their trips?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 4 or 5: 900 of 1,200 = 75%; 1 or 2: 69 = 5.75%
        ("Of 1,200 ratings, 75% gave a 4 or 5.", [S, S]),
        ("Of 1,200 ratings, 81% gave a 4 or 5.", [S, C]),
        ("Only 69 ratings (5.8%) were 2 stars or below.", [S, S]),
        ("Only 75 ratings were a 1 or 2.", [C]),
        ("About 3 in 4 riders rated a trip 4 or better.", [S]),
    ],
)
def test_a_band_of_a_numbered_scale_adds_up_its_rows(answer: str, expected: list[str]) -> None:
    assert_verdicts(RATINGS_ASKED, answer, [RATINGS], expected)


def test_a_band_of_rows_that_are_no_scale_adds_nothing() -> None:
    """Stations are no scale: "2 or 3 stations" bands no rows, so the share is left unread."""
    assert_verdicts(ASKED, "Two or 3 stations took 81% of rides.", [STATIONS], [U, U, U])


# Precision: four false accusations of a held-back domain (an online fashion retailer),
# written here in the bike-sharing domain.

PASSES = ref(
    {
        "columns": ["rider_type", "rides", "avg_fare", "avg_trip_minutes"],
        "rows": [["member", 8_000, 12.40, 14.0], ["pay as you go", 3_000, 15.90, 19.5]],
    },
    sql="SELECT …",
    column_units={"rides": "count", "avg_fare": "currency", "avg_trip_minutes": "minutes"},
)
PASSES_ASKED = "Do members pay less per ride than riders without a pass?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the member's figure is stated right first: $15.90, the other row's, is that row's
        ("Member rides averaged $12.40 against $15.90 for riders without a pass.", [S, U]),
        # restated in another unit, the same row's figure is accused: 14 minutes is 840 s
        ("Member trips averaged 14 minutes (900 seconds).", [S, C]),
        # stated wrong first, the member's figure is no excuse: the later one is held to it
        ("Member rides averaged $13.40 against $15.90 for riders without a pass.", [C, C]),
    ],
)
def test_a_row_stated_right_is_not_accused_by_a_later_figure_of_its_sentence(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(PASSES_ASKED, answer, [PASSES], expected)


COSTS = [
    ref(15_810.0, "currency", name="repair_cost", params={"year": 2032}),
    ref(84_230.0, "currency", name="fare_revenue", params={"year": 2032}),
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 15,810 / 84,230 = 18.8%; "92% of repairs" is a share of the repairs, its whole
        (
            "Repairs cost $15.8K, roughly 19% of the $84.2K fare revenue. "
            "About 92% of repairs were done within 7 days.",
            [S, S, S, U, U],
        ),
        ("Repairs cost $15.8K. About 25% of fare revenue went on repairs.", [S, C]),
    ],
)
def test_a_share_of_its_parts_quantity_is_not_that_part_over_a_whole(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("What did repairs cost against fare revenue?", answer, COSTS, expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # "by count" ranks the one count column, not the fares its noun shares words with
        ("Dockside takes the most fares by count.", [S]),
        ("Old Mill takes the most fares by count.", [U]),
    ],
)
def test_a_ranking_by_count_ranks_the_count(answer: str, expected: list[str]) -> None:
    assert_verdicts(ASKED, answer, [STATIONS], expected)


DAYS = ref(
    {
        "columns": ["day_type", "rides", "revenue"],
        "rows": [["weekday", 3_173, 574_849.0], ["weekend", 1_482, 267_439.0]],
    },
    sql="SELECT …",
    column_units={"rides": "count", "revenue": "currency"},
)


def test_a_ratio_of_the_rows_themselves_is_no_ratio_of_what_they_hold() -> None:
    """574,849 / 267,439 = 2.15; "2.5 times as many weekdays" counts days, which no column
    holds; "2.5 times as many rides" is the rides' ratio, and wrong."""
    asked = "How do weekday and weekend rides compare?"
    answer = "Weekday revenue is 2.1x weekend revenue, though there are 2.5 times as many weekdays."
    assert_verdicts(asked, answer, [DAYS], [S, U])
    assert_verdicts(asked, "Weekdays see 2.5 times as many rides as weekends.", [DAYS], [C])


# Precision: three false accusations of a held-back domain (an emergency department).


def _stations_by(column: str) -> ReferenceValue:
    return ref(
        {"columns": ["station", column], "rows": [["Dockside", 3.25], ["Old Mill", 2.26]]},
        sql="SELECT …",
        column_units={column: "percent"},
    )


@pytest.mark.parametrize(
    ("column", "answer", "expected"),
    [
        # nothing says whether a higher relocation rate is better: "worst" may be either end,
        # read as the lowest (more is better) only to support
        ("relocation_rate", "Dockside was worst, at 3.25%.", [U, S]),
        ("relocation_rate", "Old Mill was worst, at 2.26%.", [S, S]),
        # a higher utilisation is better: known, so accused
        ("utilisation_rate", "Old Mill was best, at 2.26%.", [C, S]),
    ],
)
def test_best_or_worst_of_a_quantity_of_unknown_polarity_is_never_accused(
    column: str, answer: str, expected: list[str]
) -> None:
    asked = f"Which station had the worst {column.replace('_', ' ')}?"
    assert_verdicts(asked, answer, [_stations_by(column)], expected)


WAIT = ref(47.2, "minutes", name="avg_wait_to_bike", params={"month": "2032-01"})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a span of years the references do not hold, though the question asks for an average
        ("The long-run average is about 39 minutes, so January was a heavy month.", [U]),
        ("January averaged about 39 minutes, above the norm.", [C]),
    ],
)
def test_a_long_run_average_is_not_the_months(answer: str, expected: list[str]) -> None:
    assert_verdicts("What was the average wait for a bike in January?", answer, [WAIT], expected)


MONTHLY = ref(
    {
        "columns": ["month_start", "rides"],
        "rows": [
            ["2032-01-01", 4_010],
            ["2032-02-01", 5_520],
            ["2032-03-01", 7_130],
            ["2032-04-01", 2_240],
        ],
    },
    sql="SELECT …",
    column_units={"rides": "count"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Rides peaked in March at about 7,100 and were lowest in April at 2,240.", [S, S, S, S]),
        ("Rides peaked in February at about 5,500 and were lowest in January.", [C, S, C]),
        ("The single busiest month was March, with 7,130 rides.", [S, S]),
        ("January had 4,010 rides; April the quietest at 2,240.", [S, S, S]),
    ],
)
def test_rankings_of_periods_written_after_their_verb(answer: str, expected: list[str]) -> None:
    assert_verdicts("How did rides move month by month in 2032?", answer, [MONTHLY], expected)


ZONES = ref(
    {"Zone 1": 12.5, "Zone 2": 15.0, "Zone 3": 18.2, "Zone 4": 24.9},
    "minutes",
    name="avg_trip_minutes_by_zone",
)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        # the header's word completes the number into the label: "3" is "Zone 3"
        ("Zone", [S, S, C]),
        # a header naming nothing of the labels leaves the rows unnamed
        ("Band", [S, S, U]),
    ],
)
def test_a_row_headed_by_the_number_of_a_label_its_header_completes(
    header: str, expected: list[str]
) -> None:
    answer = f"| {header} | Avg trip (min) |\n|---|---|\n| 1 | 12.5 |\n| 2 | 15.0 |\n| 3 | 21.0 |\n"
    assert_verdicts("How long are trips by zone?", answer, [ZONES], expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a sentence restating the figure before in other units is held to the same value
        (
            "Member trips averaged 14 minutes. Put differently, member trips last about 0.4 hours.",
            [S, C],
        ),
        ("Member trips averaged 14 minutes. In round numbers, members ride 0.2 hours.", [S, S]),
        # another sentence of the same row may be about a part of it: not accused
        ("Member trips averaged 14 minutes. Evening member trips last about 0.4 hours.", [S, U]),
    ],
)
def test_a_sentence_restating_a_figure_is_held_to_it(answer: str, expected: list[str]) -> None:
    assert_verdicts(PASSES_ASKED, answer, [PASSES], expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 41,200 + 30,400 + 22,900 + 18,100 + 12,400 = 125,000
        ("Of 125,000 rides, Dockside took 41,200 and Old Mill 30,400.", [S, S, S]),
        ("Of 131,000 rides, Dockside took 41,200 and Old Mill 30,400.", [C, S, S]),
        # no row of the column named after it: a whole of something else, maybe
        ("Of 131,000 rides, most were under 20 minutes.", [U, U, U]),
    ],
)
def test_a_sentence_opening_on_the_whole_of_the_rows_it_lists(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts(ASKED, answer, [STATIONS], expected)


TRIP = ref(14.0, "minutes", name="avg_member_trip_minutes", params={"year": 2032})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a target the answer sets is neither supported nor accused by the level it happens to be
        ("Our budget assumed 14 minutes.", [U]),
        ("The plan assumed member trips of about 14 minutes.", [U]),
        # after a comma, the figure is the level again
        ("Members beat the target, averaging 14 minutes per trip.", [S]),
    ],
)
def test_a_target_set_before_its_figure_is_no_level(answer: str, expected: list[str]) -> None:
    assert_verdicts("How long is a member trip?", answer, [TRIP], expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the share in words restates the percentage before it: held to the same true value
        ("Of 1,200 ratings, 75% gave a 4 or 5 — roughly 3 out of 4.", [S, S, S]),
        ("Of 1,200 ratings, 75% gave a 4 or 5 — roughly 2 out of 5.", [S, S, C]),
        ("Of 1,200 ratings, 81% gave a 4 or 5, or about 3 out of 4.", [S, C, S]),
    ],
)
def test_a_share_restating_the_share_before_it(answer: str, expected: list[str]) -> None:
    assert_verdicts(RATINGS_ASKED, answer, [RATINGS], expected)


ZONE_RIDES = [
    ref(
        {"Zone 1": 9_800.0, "Zone 3": 4_000.0}, "count", name="rides_by_zone", params={"year": 2031}
    ),
    ref(
        {"Zone 1": 10_100.0, "Zone 3": 4_160.0},
        "count",
        name="rides_by_zone",
        params={"year": 2032},
    ),
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 4,000 -> 4,160 is +4%: the chain's growth is no zone's, the zone's own still is
        (
            "Zone 3 rose 0.4% year on year, well behind the 2.7% growth of the chain overall.",
            [C, U],
        ),
    ],
)
def test_a_change_the_clause_gives_the_whole_network_is_no_rows(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("How did Zone 3 rides change from 2031 to 2032?", answer, ZONE_RIDES, expected)


def test_delinquency_is_worse_when_higher() -> None:
    table = ref(
        {
            "columns": ["station", "delinquency_rate"],
            "rows": [["Dockside", 3.2], ["Old Mill", 5.1]],
        },
        sql="SELECT …",
        column_units={"delinquency_rate": "percent"},
    )
    assert_verdicts("Which station is worst?", "Old Mill has the worst delinquency.", [table], [S])
    assert_verdicts("Which station is worst?", "Dockside has the worst delinquency.", [table], [C])


def test_a_bare_count_is_a_count_whatever_its_name_says() -> None:
    """``COUNT(*) AS late_fee_rides`` counts rides, though "fee" names money: a count states
    it, and an amount of money is no misstatement of it."""
    late = ref(4_057.0, sql="SELECT COUNT(*) AS late_fee_rides FROM rides WHERE late_fee > 0")
    answer = "Late fees hit 4,057 rides; at $20 a fee that is roughly $90K of billing."
    assert_verdicts("How many rides carried a late fee?", answer, [late], [S, U, U])


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the subject names a quantity nothing holds: the ranking and the rate are its, not
        # the row's rides (Old Mill's share is 24.3%, and it is second)
        ("Bad debt was highest in Old Mill at 31% of rides.", [U, U]),
        ("Bad debt ran highest in Old Mill, at 31% of rides.", [U]),
        # the row's own share of rides, its subject a row: 30,400 / 125,000 = 24.3%
        ("Old Mill was second at 31% of rides.", [S, C]),
    ],
)
def test_a_rate_of_a_subject_nothing_holds(answer: str, expected: list[str]) -> None:
    assert_verdicts(ASKED, answer, [STATIONS], expected)


DISCOUNTS = [
    ref(10.7, "percent", name="avg_discount_pct", params={"station": s}, label=s)
    for s in ("Old Mill",)
] + [ref(8.2, "percent", name="avg_discount_pct", params={"station": "Dockside"}, label="Dockside")]
STATED = "Old Mill gave 10.7% off and Dockside 8.2%, so Old Mill ran "


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # any comparative before "than" reads as a gap, never as the other row's level
        (STATED + "2.5 points deeper than Dockside.", [S, S, U]),
        (STATED + "2.5 points more than Dockside.", [S, S, S]),
    ],
)
def test_a_comparative_before_than_reads_as_a_gap(answer: str, expected: list[str]) -> None:
    assert_verdicts("How deep were discounts by station?", answer, DISCOUNTS, expected)
