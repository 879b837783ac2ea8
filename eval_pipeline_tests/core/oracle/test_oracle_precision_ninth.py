"""Precision on a ninth domain the rules were not tuned on (contract manufacturing): causes of
false accusations found when it was added — a ranking whose figure is written before it, a size
superlative taken for the name of a count, a first place counted after another, an amount held
against a column of things, a multiple of a figure no reference holds, days of a calendar held
against hours of something else — and a level of lost time read only as a change, written here
in other words and another domain, each beside a near miss the oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

SITES = ref(
    {
        "columns": ["site", "pallets", "idle_hours"],
        "rows": [["North", 1200, 310.0], ["South", 2500, 120.0], ["East", 900, 200.0]],
    },
    name="site_scorecard",
    column_units={"pallets": "count", "idle_hours": "hours"},
)
CLIENTS = ref(
    {
        "columns": ["client", "orders", "order_value_usd"],
        "rows": [["Acme", 40, 900000.0], ["Brill", 75, 500000.0], ["Corda", 20, 300000.0]],
    },
    name="client_orders",
)
OPEN_JOBS = ref(
    {
        "columns": ["status", "batches", "parts_pending"],
        "rows": [["queued", 12, 80000], ["running", 30, 130000]],
    },
    sql="SELECT status, COUNT(*) AS batches, SUM(q - done) AS parts_pending FROM j GROUP BY status",
)
UNITS_LEFT = ref(
    {
        "columns": ["status", "batches", "units_left"],
        "rows": [["queued", 12, 80000], ["running", 30, 130000]],
    },
    sql="SELECT status, COUNT(*) AS batches, SUM(q - done) AS units_left FROM j GROUP BY status",
)
REJECTS = [
    ref(4.0, "percent", name="reject_rate", params={"site": "Kiln 2", "year": y}, label=str(y))
    for y in (2030, 2031)
]
REJECTS[1] = ref(
    2.0, "percent", name="reject_rate", params={"site": "Kiln 2", "year": 2031}, label="2031"
)
IDLE = [520.0, 400.0, 610.0, 470.0]
MONTHLY_IDLE = ref(
    {
        "columns": ["month_start", "idle_hours", "pallets"],
        "rows": [[f"2030-{m:02d}-01", h, 400 + m] for m, h in enumerate(IDLE, start=1)],
    },
    name="monthly_site_output",
    params={"year": 2030},
    column_units={"idle_hours": "hours", "pallets": "count"},
)

ROWS: list[tuple[str, str, list[ReferenceValue], list[str]]] = [
    # the figure a ranking is apposed to names the metric it ranks
    (
        "a figure before its ranking",
        "North logged 310 h of idle time, the most of any site.",
        [SITES],
        [S, S],
    ),
    (
        "a figure before its ranking",
        "East logged 200 h of idle time, the most of any site.",
        [SITES],
        [S, C],
    ),
    (
        "a figure before its ranking",
        "North shipped 1,200 pallets, the most of any site.",
        [SITES],
        [S, C],
    ),
    # "most" alone ranks any metric: a guess by kind, never an accusation
    ("a size superlative", "North had the most of any site.", [SITES], [U]),
    ("a size superlative", "East had the most pallets of any site.", [SITES], [C]),
    ("a size superlative", "South had the most pallets of any site.", [SITES], [S]),
    # "by order value" names money though "value" names no column
    ("value names money", "Our biggest client by order value was Acme.", [CLIENTS], [S]),
    ("value names money", "Our biggest client by order value was Brill.", [CLIENTS], [C]),
    ("value names money", "Our biggest client was Acme.", [CLIENTS], [U]),
    # the most after another is the most of the others
    ("first after another", "North moved the most pallets after South.", [SITES], [S]),
    ("first after another", "East moved the most pallets after South.", [SITES], [C]),
    ("first after another", "North moved the most pallets after the spring.", [SITES], [U]),
    ("first after another", "East moved the most pallets after South and North.", [SITES], [S]),
    ("first after another", "North ranked second, after South, on pallets.", [SITES], [S]),
    # an amount of money is no level or sum of a column of things counted
    (
        "money against things",
        "Running batches still need 130,000 parts, about $250K of work in all.",
        [OPEN_JOBS],
        [S, U],
    ),
    (
        "money against things",
        "Running batches still need 130,000 units, about $250K of work in all.",
        [UNITS_LEFT],
        [S, U],
    ),
    (
        "money against things",
        "Running batches still need 130,000 parts, about 210K parts in all.",
        [OPEN_JOBS],
        [S, S],
    ),
    # "times the network average" is measured against a figure the references do not hold
    (
        "a multiple of another figure",
        "Kiln 2 rejected 4.0% in 2030 and 2.0% in 2031, still about 3 times the network average.",
        REJECTS,
        [S, S, U],
    ),
    (
        "a multiple of another figure",
        "Kiln 2 rejected 4.0% in 2030 and 2.0% in 2031, so 2030 was about 3 times 2031.",
        REJECTS,
        [S, S, C],
    ),
    # days of a calendar are not the hours something took
    ("calendar days", "March 2030 had 21 working days.", [MONTHLY_IDLE], [U]),
    ("calendar days", "March 2030 had 21 hours of idle time.", [MONTHLY_IDLE], [C]),
    # the time lost is a level too ("lost roughly 2,000 hours" in all)
    ("time lost", "Across the four months the site lost roughly 2,000 hours.", [MONTHLY_IDLE], [S]),
    ("time lost", "Across the four months the site lost roughly 2,600 hours.", [MONTHLY_IDLE], [U]),
]


@pytest.mark.parametrize(("why", "answer", "refs", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_manufacturing_causes_in_other_words(
    why: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    assert_verdicts("", answer, refs, expected)


KILNS = ref(
    {"columns": ["kiln", "firings"], "rows": [["Oak", 40], ["Elm", 35], ["Ash", 25]]},
    sql="SELECT kiln, COUNT(*) AS firings FROM f GROUP BY kiln",
    column_units={"firings": "count"},
)
TOTALS: list[tuple[str, list[str]]] = [
    # every row named before it, and its own words say total: the total of all of them
    ("Oak ran 40 firings, Elm 35 and Ash 25 — 110 firings in total.", [S, S, S, C]),
    ("Oak ran 40 firings, Elm 35 and Ash 25 — 100 firings in total.", [S, S, S, S]),
    # one row not named: a total of some of them, perhaps
    ("Oak ran 40 firings and Elm 35 — 110 firings in total.", [S, S, U]),
    # the sentence counts other rows than the reference holds
    (
        "Oak ran 40 firings, Elm 35 and Ash 25; the two big kilns ran 80 together.",
        [S, S, S, U, U],
    ),
]


@pytest.mark.parametrize(("answer", "expected"), TOTALS)
def test_a_total_after_every_row_is_named_is_the_total_of_all(
    answer: str, expected: list[str]
) -> None:
    assert_verdicts("", answer, [KILNS], expected)


KILN_LOADS = ref(
    {
        "columns": ["ware", "kg_fired", "kilns"],
        "rows": [["Brick", 900_000.0, 4], ["Tile", 700_000.0, 3], ["Pipe", 550_000.0, 2]],
    },
    sql="SELECT ware, SUM(kg) AS kg_fired, COUNT(DISTINCT kiln) AS kilns FROM f GROUP BY ware",
)
_LOADS = (
    "| Ware | Kilns | kg |\n|---|---|---|\n| Brick | 4 | 900,000 |\n| Tile | 3 | 700,000 |\n"
    "| Pipe | 2 | 550,000 |\n\n"
)
TOTALS_NAMED: list[tuple[str, list[str]]] = [
    # the unit written with the total names its column: the kg, not the kilns its words name
    (_LOADS + "Altogether the kilns fired just over 2.1 million kg.", [S, S, S, S, S, S, S]),
    (_LOADS + "Altogether the kilns fired just over 2.3 million kg.", [S, S, S, S, S, S, C]),
]


@pytest.mark.parametrize(("answer", "expected"), TOTALS_NAMED)
def test_a_total_is_of_the_column_its_written_unit_names(answer: str, expected: list[str]) -> None:
    assert_verdicts("", answer, [KILN_LOADS], expected)


ON_TIME = ref(
    {
        "columns": ["line", "on_time_pct"],
        "rows": [["Harbor", 81.0], ["Ridge", 74.5], ["Valley", 66.0]],
    },
    sql="SELECT line, 100.0 * AVG(on_time) AS on_time_pct FROM trips GROUP BY line",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # on time is what is good: the worst line is the one least often on time
        ("- Valley — on-time 66.0%, the worst of the group", [S, S]),
        ("- Harbor — on-time 81.0%, the worst of the group", [S, C]),
    ],
)
def test_the_worst_share_on_time_is_the_lowest(answer: str, expected: list[str]) -> None:
    assert_verdicts("", answer, [ON_TIME], expected)
