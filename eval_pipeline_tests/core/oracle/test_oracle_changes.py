"""Changes and gaps (#15): a change ("+16%", "a cut of 2 days since 2023") or a gap ("a gap of
0.1 days") is held against the two reference values its words pin, and stays unverifiable when
they pin none. Each row is one way analysts write a change, with a near miss that must not be
accused.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref


def _depots(year: int, parcels: list[int]) -> ReferenceValue:
    rows = [
        [d, n, r]
        for d, n, r in zip(("Avon", "Brook", "Cole"), parcels, (1.1, 1.4, 0.9), strict=True)
    ]
    return ref(
        {"columns": ["depot", "parcels", "damage_rate_pct"], "rows": rows},
        name="depot_summary",
        params={"year": year},
        column_units={"parcels": "count", "damage_rate_pct": "percent"},
    )


BY_YEAR = [_depots(2024, [200, 300, 250]), _depots(2025, [260, 330, 255])]
TRANSIT = [
    ref(v, "days", name="avg_transit_days", params={"year": y})
    for y, v in [(2023, 20.0), (2024, 19.1), (2025, 18.0)]
]
WEEKLY = ref(
    {
        "columns": ["week_start", "pickups", "returns"],
        "rows": [
            ["2026-03-02", 47, 4],
            ["2026-03-09", 54, 6],
            ["2026-03-16", 43, 5],
            ["2026-03-23", 31, 2],
        ],
    },
    name="weekly_pickups",
    params={"depot": "Avon"},
)
SETTLE = ref(
    {
        "columns": ["segment", "jobs", "avg_days"],
        "rows": [["retail", 214, 38.43], ["trade", 669, 38.54]],
    },
    sql="SELECT segment, COUNT(*) AS jobs, AVG(days) AS avg_days FROM j GROUP BY segment",
    column_units={"avg_days": "days"},
)
ON_TIME = ref(
    {
        "columns": ["depot", "on_time_pct"],
        "rows": [["Avon", 43.96], ["Brook", 39.8], ["Cole", 35.67]],
    },
    sql="SELECT depot, ROUND(100.0 * AVG(on_time), 2) AS on_time_pct FROM d GROUP BY depot",
    column_units={"on_time_pct": "percent"},
)
MONTHLY = ref(
    {
        "columns": ["month_start", "bookings", "parcels"],
        "rows": [["2025-06-01", 399, 1103], ["2025-07-01", 465, 1236]],
    },
    name="monthly_parcels",
    params={"year": 2025},
)
COSTS = ref(
    {
        "columns": ["year", "fuel_cost", "repair_cost"],
        "rows": [["2023", 1_543_900, 1_152_500], ["2025", 1_476_700, 1_208_000]],
    },
    sql="SELECT year, SUM(fuel) AS fuel_cost, SUM(repair) AS repair_cost FROM c GROUP BY year",
    column_units={"fuel_cost": "currency", "repair_cost": "currency"},
)

SHIPMENTS = ref({"Road": 1034, "Rail": 456, "Air": 101}, "count", name="shipments")

ROWS = [
    (
        "a change in its own clause is that row's change, not another named row's",
        "Which depots grew parcels most from 2024 to 2025?",
        "Avon grew fastest, from 200 to 260 parcels (+30%), followed by Brook (+10%) and "
        "Cole (+9%).",
        BY_YEAR,
        [U, S, S, S, U, S, C],
    ),
    (
        "a change after its own verb ('grew only') is the subject's, not its gap to another",
        "Which depots grew parcels most from 2024 to 2025?",
        "Brook handled 330 parcels, and Cole grew only 6%.",
        BY_YEAR,
        [S, C],
    ),
    (
        "'since <year>' is the base of a change to the latest value",
        "How has transit time moved since 2023?",
        "Transit took 20.0 days in 2023, 19.1 in 2024 and 18.0 in 2025: a cut of 2 days since "
        "2023. It was 3.5 days slower than that in 2019.",
        TRANSIT,
        [S, S, S, S, U],
    ),
    (
        "a wrong change since the base is accused",
        "How has transit time moved since 2023?",
        "Transit took 20.0 days in 2023 and 18.0 in 2025. That is a cut of 3 days since 2023.",
        TRANSIT,
        [S, S, C],
    ),
    (
        "another quantity's change since the base is none of these values",
        "How has transit time moved since 2023?",
        "Transit took 18.0 days in 2025. Fuel costs rose 4% since 2023.",
        TRANSIT,
        [S, U],
    ),
    (
        "'over the period' runs from the first value to the last",
        "How has transit time moved?",
        "Transit took 20.0 days in 2023 and 18.0 in 2025, a drop of about 10% over the period.",
        TRANSIT,
        [S, S, S],
    ),
    (
        "a change to the peak is checked against the column's highest value, never accused",
        "How did Avon's weekly pickups move in March 2026?",
        "Pickups slid to 31 in the week of 23 March, about 43% below the peak. A week later "
        "they were 60% below the peak.",
        [WEEKLY],
        [S, S, U],
    ),
    (
        "a gap written after its two levels is their difference",
        "Do retail or trade jobs settle faster?",
        "Retail jobs settled in 38.4 days and trade jobs in 38.5 days, a gap of about 0.1 days.",
        [SETTLE],
        [S, S, S],
    ),
    (
        "a wrong gap after its two levels is accused",
        "Do retail or trade jobs settle faster?",
        "Retail jobs settled in 38.4 days and trade jobs in 38.5 days, a gap of 2 days.",
        [SETTLE],
        [S, S, C],
    ),
    (
        "a gap for a period the references are not for is no gap of theirs",
        "Do retail or trade jobs settle faster in 2025?",
        "Retail jobs settled in 38.4 days and trade jobs in 38.5 days. In 2019 the gap was "
        "0.1 days.",
        [SETTLE],
        [S, S, U],
    ),
    (
        "a gap naming one row is to the row stated last before it, never accused",
        "Which depot was most punctual?",
        "Avon was on time 44.0% of the time. Cole was lowest at 35.7%, about 8 points lower. "
        "Brook was at 39.8%, 2 points lower.",
        [ON_TIME],
        [S, S, S, S, S, U],
    ),
    (
        "of changes over several columns, the one column the sentence names",
        "Which month of 2025 was busiest?",
        "July 2025 was busiest with 1,236 parcels. July parcels were up 21% on June.",
        [MONTHLY],
        [S, S, C],
    ),
    (
        "a change and a level joined by 'to' are two claims, not a range",
        "How did costs move from 2023 to 2025?",
        "Fuel cost slipped from $1.54M in 2023 to $1.48M in 2025, while repair cost rose about "
        "5% to $1.21M.",
        [COSTS],
        [S, S, S, U],
    ),
    (
        "'about 2.3 to 1' is a ratio, not a range from 2.3 down to 1",
        "How did road compare with rail?",
        "Road outnumbered Rail by about 2.3 to 1.",
        [SHIPMENTS],
        [S],
    ),
    (
        "a wrong ratio of the two named rows is accused",
        "How did road compare with rail?",
        "Road outnumbered Rail by about 3 to 1.",
        [SHIPMENTS],
        [C],
    ),
]


@pytest.mark.parametrize(("cause", "question", "answer", "refs", "expected"), ROWS)
def test_change(
    cause: str, question: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    assert_verdicts(question, answer, refs, expected)
