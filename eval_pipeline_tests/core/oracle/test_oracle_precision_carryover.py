"""Precision on a domain the rules were not tuned on (#15): causes of false accusations found
when a new domain was added — a whole named only by its reference's label, a range of months,
"606 s", a scalar alias saying less is better, a superlative of length, a figure set in advance,
a share of the entity's own quantity, a bare "%" beside counts, a share of a quantity read as its
level, another stage of a process, "a $25 rebate" — written here in other words and another
domain, each beside a near miss the oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline.core.oracle.periods import Period, period_mentions
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

ALL_MEMBERS = ref(5120, sql="SELECT COUNT(*) AS members FROM m", label="all gyms")
HARBOUR_MEMBERS = ref(
    1180,
    sql="SELECT COUNT(*) AS members FROM m WHERE gym = :gym",
    params={"gym": "Harbour"},
    label="Harbour",
)
RENEWAL = ref(74.2, "percent", name="renewal_rate", label="Renewal rate")
REFERRAL = ref(81.5, "percent", name="referral_rate", label="Referral rate")
MONTHLY_CLASSES = ref(
    {
        "columns": ["month", "classes"],
        "rows": [
            ["2025-03-01", 310],
            ["2025-04-01", 342],
            ["2025-05-01", 365],
            ["2025-06-01", 323],
            ["2025-07-01", 298],
        ],
    },
    sql="SELECT month, COUNT(*) AS classes FROM c GROUP BY month",
    column_units={"classes": "count"},
)
SESSION_MINUTES = ref({"Spin": 10.1, "Yoga": 7.0}, "minutes", name="avg_session_minutes")
REPAIR = [
    ref(v, sql="SELECT AVG(m * 1.0) AS avg_repair_minutes FROM r", params={"year": y}, label=str(y))
    for y, v in [(2024, 134.1), (2025, 128.3)]
]
STOPPAGES = ref(
    {
        "columns": ["site", "stoppages", "avg_duration"],
        "rows": [["North", 41, 3.1], ["South", 60, 2.3], ["East", 52, 1.9]],
    },
    sql="SELECT site, COUNT(*) AS stoppages, AVG(h) AS avg_duration FROM s GROUP BY site",
    column_units={"stoppages": "count", "avg_duration": "hours"},
)
COLLECTION = ref(93.6, "percent", name="dues_collection_rate", params={"year": 2025})
PLAN_MEMBERS = ref(
    {"columns": ["plan", "members"], "rows": [["Off-Peak 7", 128], ["Flex", 325], ["Core", 222]]},
    sql="SELECT plan, COUNT(*) AS members FROM m GROUP BY plan",
    column_units={"members": "count"},
)
TWO_PLANS = ref(
    {"columns": ["plan", "members"], "rows": [["Flex", 325], ["Core", 171]]},
    sql="SELECT plan, COUNT(*) AS members FROM m WHERE plan IN ('Flex', 'Core') GROUP BY plan",
)
DUES = ref(
    {"columns": ["gym", "dues_collected", "average_dues"], "rows": [["Harbour", 22_350, 95.56]]},
    sql="SELECT gym, SUM(d) AS dues_collected, AVG(d) AS average_dues FROM d GROUP BY gym",
)
WAITS = ref(
    {
        "columns": ["month", "avg_checkin_minutes"],
        "rows": [["2025-04-01", 7.5], ["2025-05-01", 7.9]],
    },
    sql="SELECT month, AVG(s) / 60.0 AS avg_checkin_minutes FROM k GROUP BY month",
    column_units={"avg_checkin_minutes": "minutes"},
)
BILLED = ref(
    {
        "columns": ["month", "billed"],
        "rows": [["2025-11-01", 131_200.0], ["2025-12-01", 148_350.0]],
    },
    sql="SELECT month, SUM(amount) AS billed FROM b GROUP BY month",
    column_units={"billed": "currency"},
)

ROWS: list[tuple[str, str, list[ReferenceValue], list[str]]] = [
    # a reference whose only entity is its own label, never named, is the whole beside a part
    (
        "a whole named by its label alone",
        "Harbour has 1,180 of our 5,120 members, 23.0% of the total.",
        [ALL_MEMBERS, HARBOUR_MEMBERS],
        [S, S, S],
    ),
    (
        "a whole named by its label alone",
        "Harbour has 1,180 of our 5,120 members, 25.0% of the total.",
        [ALL_MEMBERS, HARBOUR_MEMBERS],
        [S, S, C],
    ),
    # a label the answer names is still what tells two references apart
    ("labels the answer names", "Renewal rate is 81.5%.", [RENEWAL, REFERRAL], [C]),
    # a range of months that is one quarter ("April to June") is that quarter, its months added
    (
        "a range of months",
        "Q2 2025 (April to June) ran 1,030 classes in total.",
        [MONTHLY_CLASSES],
        [S],
    ),
    ("a range of months", "April to June 2025 ran 1,030 classes.", [MONTHLY_CLASSES], [S]),
    # a wrong total of the range is never held against one of its months
    ("a range of months", "April to June 2025 ran 1,090 classes.", [MONTHLY_CLASSES], [U]),
    # "606 s" is in seconds, not a count
    (
        "seconds as 's'",
        "| Class | Avg session |\n|---|---|\n| Spin | 606 s |",
        [SESSION_MINUTES],
        [S],
    ),
    (
        "seconds as 's'",
        "| Class | Avg session |\n|---|---|\n| Spin | 650 s |",
        [SESSION_MINUTES],
        [C],
    ),
    # a scalar query's alias says less is better: "an improvement" is a fall
    (
        "less is better by alias",
        "Repairs took 128 minutes in 2025 against 134 minutes in 2024, a 4.3% improvement.",
        REPAIR,
        [S, S, S],
    ),
    (
        "less is better by alias",
        "Repairs took 128 minutes in 2025 against 134 minutes in 2024, a 6.5% improvement.",
        REPAIR,
        [S, S, C],
    ),
    # "the longest stoppages" ranks how long they last, a guess that may support, never accuse
    ("a superlative of length", "North had the longest stoppages.", [STOPPAGES], [S]),
    ("a superlative of length", "East had the longest stoppages.", [STOPPAGES], [U]),
    ("a superlative of length", "North had the most stoppages.", [STOPPAGES], [C]),
    # a figure set in advance is no measured value
    ("set in advance", "For 2025, write-offs are budgeted at 1.5% of dues.", [COLLECTION], [U]),
    ("set in advance", "The 2025 dues collection rate was 91.5%.", [COLLECTION], [C]),
    (
        "set in advance",
        "Two sites were over the 2-hour target: North (3.4 h) and South (2.3 h).",
        [STOPPAGES],
        [U, C, S],
    ),
    # a share of the entity's own quantity is not its share of everyone's
    (
        "a share of its own",
        "Off-Peak 7 members do 42% of their visits at night.",
        [PLAN_MEMBERS],
        [U, U],
    ),
    ("a share of its own", "Off-Peak 7 has 42% of all members.", [PLAN_MEMBERS], [C]),
    # a bare "%" beside counts, stating neither part nor whole, may be another rate
    ("a bare percent", "Flex members also renew at 81%.", [TWO_PLANS], [U]),
    ("a bare percent", "Flex has 325 members, 81% of the two plans.", [TWO_PLANS], [S, C]),
    # "2.1% of dues" is a share of the dues, never the level of average dues
    ("a share of the quantity", "Bad debt at Harbour was 2.1% of dues.", [DUES], [U]),
    ("a share of the quantity", "Harbour's average dues were $98.10.", [DUES], [C]),
    # another stage of a process, several times off the one duration held, is not accused
    (
        "another stage",
        "Average time to answer in May 2025 was 94 seconds.",
        [WAITS],
        [U],
    ),
    ("another stage", "Average check-in in May 2025 took 7.2 minutes.", [WAITS], [C]),
    # "a $25 rebate" is an amount of something the references do not hold
    (
        "an amount with its own noun",
        "December 2025 bills carried a $25 winter rebate.",
        [BILLED],
        [U],
    ),
    ("an amount with its own noun", "December 2025 billed $150.0K.", [BILLED], [C]),
]


@pytest.mark.parametrize(("cause", "answer", "refs", "expected"), ROWS)
def test_cause(cause: str, answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert_verdicts("", answer, refs, expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("April to June 2024", [Period("quarter", 2024, 2)]),
        ("January through June 2025", [Period("half", 2025, 1)]),
        ("from April to June 2024", [Period("month", None, 4), Period("month", 2024, 6)]),
        ("April to May 2024", [Period("month", None, 4), Period("month", 2024, 5)]),
    ],
)
def test_a_range_of_months(text: str, expected: list[Period]) -> None:
    """Months joined by "to" are one period when they span one; after "from" they may be the
    two ends of a change."""
    assert [m.period for m in period_mentions(text)] == expected
