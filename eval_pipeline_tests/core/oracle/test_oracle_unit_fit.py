"""Which facts a claim may be stating, by unit, entity and sentence: a bare decimal beside a
plain number, a whole count beside an average count its words name, a row of a reference whose
scope the claim names, the one column of a row its sentence leaves when other claims state the
rest, the column a derived share's words name, a named figure beside the overall one another
claim states, and a count of a table's rows. Each mechanism has its near miss, which must stay
unverifiable.
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
