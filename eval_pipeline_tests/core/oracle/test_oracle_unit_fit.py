"""Which facts a claim may be stating, by unit, entity and sentence: a bare decimal beside a
plain number, a whole count beside an average count its words name, a row of a reference whose
scope the claim names, the one column of a row its sentence leaves when other claims state the
rest, the column a derived share's words name, a named figure beside the overall one another
claim states (in its sentence or anywhere in the answer), a count of a table's rows, a bare
figure set against one with a unit (which it leaves unsaid), a value every row of a table
shares, a share restated after ", or" for the row its count is bound to, and a precise figure
restated loosely beside it (the one reference value it restates is no other claim's). Each
mechanism has its near miss, which must stay unverifiable.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

PER_HOUR = ref(0.62, "number", name="parcels_per_driver_hour", params={"depot": "Avon"})
PER_DRIVER = ref(68.57, "number", name="parcels_per_driver", params={"year": 2024})
PICKUPS = ref(3.32, "number", name="avg_daily_pickups", params={"depot": "Avon"})
BY_STATUS = ref(
    {"on time": 412, "late": 37, "lost": 4},
    "count",
    name="deliveries_by_status",
    params={"depot": "Avon", "year": 2025},
)
RATES = ref(
    {
        "columns": ["depot", "list_rate_usd", "paid_rate_usd"],
        "rows": [["Avon", 69.0, 64.1], ["Tees", 119.0, 109.45]],
    },
    sql="SELECT depot, list_rate_usd, paid_rate_usd FROM r",
)
TIERS = ref(
    {
        "columns": ["tier", "members", "fees_usd"],
        "rows": [["Bronze", 500, 2_000.0], ["Silver", 300, 3_000.0], ["Gold", 200, 5_000.0]],
    },
    sql="SELECT tier, members, fees_usd FROM m",
)
STOPS = ref(
    {"columns": ["depot", "avg_stop_minutes"], "rows": [["North", 17.36], ["South", 14.2]]},
    sql="SELECT depot, AVG(m) AS avg_stop_minutes FROM s GROUP BY depot",
)
ALL_STOPS = ref(16.1, sql="SELECT AVG(m) AS network_avg_stop_minutes FROM s")
LATE = ref(
    {
        "columns": ["parcel_code", "depot", "days_late"],
        "rows": [["P-101", "Avon", 4], ["P-207", "Tees", 3], ["P-311", "Avon", 2]],
    },
    sql="SELECT parcel_code, depot, days_late FROM p WHERE days_late > 1",
)
REPAINT = ref(412.0, "minutes", name="avg_labour_minutes", params={"job": "Repaint"})
TYRES = ref(31.2, "minutes", name="avg_labour_minutes", params={"job": "Tyre swap"})
HOURS = [
    ref(2689.6, "hours", name="driver_hours", params={"year": 2025}),
    ref(2313.7, "hours", name="driver_hours", params={"year": 2024}),
]
LEADS = ref(
    {
        "columns": ["source", "leads"],
        "rows": [["Website", 2857], ["Walk-in", 1651], ["Partner", 1131], ["Referral", 807]],
    },
    sql="SELECT source, COUNT(*) AS leads FROM l GROUP BY source",
)
ONE_NIGHT = ref(25.5, "percent", sql="SELECT 100.0 * AVG(n = 1) AS one_night_share FROM b")
TURN = ref(87.6, "minutes", name="avg_turn_minutes", params={"year": 2025})
USAGE = ref(
    {
        "columns": ["yr", "logins", "reports"],
        "rows": [[2024, 887_717, 175_520], [2025, 1_490_896, 296_230]],
    },
    sql="SELECT yr, SUM(l) AS logins, SUM(r) AS reports FROM u GROUP BY yr",
)
LATE_RATE = ref(12.4, "percent", name="late_rate", params={"year": 2025})


def overdue(last: int) -> ReferenceValue:
    return ref(
        {
            "columns": ["invoice", "days_overdue"],
            "rows": [["INV-1", 30], ["INV-2", 30], ["INV-3", last]],
        },
        sql="SELECT invoice, days_overdue FROM i",
        column_units={"days_overdue": "days"},
    )


ROWS = [
    # a bare decimal is a fraction by guess only: it may state a plain number below 1
    ("bare decimal", "Avon moved 0.62 parcels per driver hour.", [PER_HOUR], [S]),
    ("bare decimal", "Avon handled 0.71 parcels per driver hour.", [PER_HOUR], [C]),
    ("bare decimal", "Avon moved 0.62% more parcels.", [PER_HOUR], [U]),
    # a whole count rounds an average count its words name, never another average
    ("average count", "Each driver carried roughly 69 parcels in 2024.", [PER_DRIVER], [S]),
    ("average count", "Each driver carried roughly 75 parcels in 2024.", [PER_DRIVER], [C]),
    ("average count", "Avon keeps 3 loading bays open.", [PICKUPS], [U]),
    # a claim naming only the reference's scope is about one of its rows: a unique match
    # supports, a miss names no row
    ("scope's row", "Avon logged 37 delayed deliveries in 2025.", [BY_STATUS], [S]),
    ("scope's row", "Avon logged 40 delayed deliveries in 2025.", [BY_STATUS], [U]),
    # the other claims of the sentence state one column of the row: the claim is the other's
    ("left by its sentence", "Avon pays $66.10 against a $69 list rate.", [RATES], [C, S]),
    ("left by its sentence", "Avon pays $64.10 against a $69 list rate.", [RATES], [S, S]),
    ("left by its sentence", "Avon pays $66.10 against a $72 list rate.", [RATES], [U, C]),
    # a share of named rows over several columns is the column the claim's words name
    (
        "named column's share",
        "Silver and Gold together paid 80% of fees, with half the members.",
        [TIERS],
        [S],
    ),
    (
        "named column's share",
        "Silver and Gold together paid 70% of fees, with half the members.",
        [TIERS],
        [C],
    ),
    (
        "named column's share",
        "Silver and Gold members together paid 70% of fees.",
        [TIERS],
        [U],
    ),
    # the overall figure another claim of the sentence states is no rival of a named one's
    (
        "overall figure stated beside",
        "North took 17.7 minutes, against a network average of 16.1 minutes.",
        [STOPS, ALL_STOPS],
        [C, S],
    ),
    (
        "overall figure stated beside",
        "North took 17.7 minutes, against a network average of 16.4 minutes.",
        [STOPS, ALL_STOPS],
        [C, C],
    ),
    ("overall figure stated beside", "North took 17.7 minutes.", [STOPS, ALL_STOPS], [U]),
    # the overall figure stated right in another sentence leaves the named row's to a list item
    (
        "overall figure stated elsewhere",
        "Network average: 16.1 minutes.\n\n- North: 17.7\n- South: 14.2",
        [STOPS, ALL_STOPS],
        [S, C, S],
    ),
    (
        "overall figure stated elsewhere",
        "Network average: 16.4 minutes.\n\n- North: 17.7\n- South: 14.2",
        [STOPS, ALL_STOPS],
        [C, U, S],
    ),
    ("overall figure stated elsewhere", "- North: 17.7\n- South: 14.2", [STOPS, ALL_STOPS], [U, S]),
    # a bare figure set against one with a unit, with no words of its own, takes that unit
    (
        "unit left unsaid",
        "A repaint took 412 minutes of labour versus 31 for a tyre swap.",
        [REPAINT, TYRES],
        [S, S],
    ),
    (
        "unit left unsaid",
        "A repaint took 412 minutes of labour versus 38 for a tyre swap.",
        [REPAINT, TYRES],
        [S, C],
    ),
    (
        "unit left unsaid",
        "A repaint took 412 minutes of labour versus 31 jobs for a tyre swap.",
        [REPAINT, TYRES],
        [S, U],
    ),
    (
        "unit left unsaid",
        "Drivers logged about 2.7k hours in 2025, up from 2.3k in 2024.",
        HOURS,
        [S, S],
    ),
    (
        "unit left unsaid",
        "Drivers logged about 2.7k hours in 2025, up from 2.1k in 2024.",
        HOURS,
        [S, C],
    ),
    (
        "unit left unsaid",
        "Drivers logged about 2.7k hours in 2025, up from 2.1k drivers in 2024.",
        HOURS,
        [S, U],
    ),
    (
        "unit left unsaid",
        "In 2025, 12.4% of parcels were late and 34 in March.",
        [LATE_RATE],
        [S, U],
    ),
    # a share restated after ", or" is the share of the row its count is bound to (6,446 leads)
    ("restated share", "Referral was smallest at 807, or one in 8 leads.", [LEADS], [S, S, S]),
    ("restated share", "Referral was smallest at 807, or one in 10 leads.", [LEADS], [S, S, C]),
    ("restated share", "Referral was smallest at 807, or about 18% of leads.", [LEADS], [S, S, C]),
    # a rate carries its unit only over a contrast: "from" after a growth rate is its base
    (
        "unit left unsaid",
        "Reports grew by a similar 69%, from 175.5k in 2024 to 296.2k in 2025.",
        [USAGE],
        [S, S, S],
    ),
    # a precise figure restated loosely beside it ("or about 1 in 4") is held to the value the
    # loose one states; a restatement adding words of its own is another figure
    (
        "restated loosely",
        "One-night stays were 28.6% of stays, or about 1 in 4.",
        [ONE_NIGHT],
        [C, S],
    ),
    (
        "restated loosely",
        "One-night stays were 25.5% of stays, or about 1 in 4.",
        [ONE_NIGHT],
        [S, S],
    ),
    (
        "restated loosely",
        "One-night stays were 28.6% of stays, or 25.5% of bookings.",
        [ONE_NIGHT],
        [U, S],
    ),
    ("restated loosely", "Tables turn in about 1.5 hrs — 88.6 minutes on average.", [TURN], [S, C]),
    ("restated loosely", "Tables turn in about 1.5 hrs — 95 minutes at weekends.", [TURN], [S, U]),
    # a value every row of a table shares needs no row named
    ("every row alike", "Every overdue invoice is 30 days past due.", [overdue(30)], [S]),
    ("every row alike", "Every overdue invoice is 31 days past due.", [overdue(30)], [U]),
    ("every row alike", "Every overdue invoice is 30 days past due.", [overdue(28)], [U]),
]


@pytest.mark.parametrize(("cause", "answer", "refs", "expected"), ROWS)
def test_unit_fit(cause: str, answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert_verdicts("", answer, refs, expected)


# a count of what a table's rows are (its label column's noun) is its number of rows, unless
# the question asked for that many
COUNTED = [
    ("", "3 parcels are running late.", [S]),
    ("", "4 parcels are running late.", [U]),
    ("", "3 drivers are off sick.", [U]),
    ("What are our top 3 late parcels?", "Together these 3 parcels are 9 days late.", [U, S]),
]


@pytest.mark.parametrize(("question", "answer", "expected"), COUNTED)
def test_rows_counted(question: str, answer: str, expected: list[str]) -> None:
    assert_verdicts(question, answer, [LATE], expected)


VISITS = ref(
    {"columns": ["member", "visits"], "rows": [["K-17", 11], ["K-22", 30]]},
    sql="SELECT member, COUNT(*) AS visits FROM v GROUP BY member",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # "N times" with nothing compared after it is a count of occurrences
        ("Member K-17 came in 11 times in 2025.", [S]),
        ("Member K-17 came in 14 times in 2025.", [C]),
        # a ratio of the two members is no count of either's visits
        ("K-22 came in about 2.7 times as often as K-17.", [S]),
        ("K-22 came in 4 times as often as K-17.", [C]),
    ],
)
def test_times_counting_occurrences(answer: str, expected: list[str]) -> None:
    assert_verdicts("How often did members visit?", answer, [VISITS], expected)
