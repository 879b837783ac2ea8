"""Precision on an eighth domain the rules were not tuned on (#15): causes of false accusations
found when it was added — a whole ranked against its part, a ranking among the rows an answer
tables, periods joined by "and", a difference another claim already states, a figure "across
all" entities, a rate column beside two outcomes, a count per month of something else — and
two changes it missed (after a dash, on a list line named for the change), written here in
other words and another domain, each beside a near miss the oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

ALL_PARCELS = ref(9400, "count", name="parcels_handled", label="all depots")
DEPOT_12 = ref(2100, "count", name="parcels_handled", params={"depot": "Depot 12"})
DEPOT_3 = ref(2600, "count", name="parcels_handled", params={"depot": "Depot 3"})
MONTHS = [310, 295, 402, 388, 415, 433, 451, 470, 420, 405, 398, 380]
MONTHLY_PARCELS = ref(
    {
        "columns": ["month", "parcels"],
        "rows": [[f"2025-{m:02d}-01", v] for m, v in enumerate(MONTHS, start=1)],
    },
    name="monthly_parcels",
    params={"year": 2025},
    column_units={"parcels": "count"},
)
LOADING = [
    ref(v, "minutes", name="avg_loading_minutes", params={"year": y}, label=str(y))
    for y, v in [(2024, 41.2), (2025, 43.0)]
]
DAMAGE = [
    ref(7.5, "percent", name="damage_rate", params={"depot": "Depot 12"}, label="Depot 12"),
    ref(6.1, "percent", name="damage_rate", label="network"),
]
DRIVERS = ref(
    {
        "columns": ["driver", "delivered", "failed"],
        "rows": [["Ana Silva", 480, 20], ["Tom Reed", 300, 60]],
    },
    sql="SELECT driver, SUM(ok) AS delivered, SUM(1 - ok) AS failed FROM d GROUP BY driver",
    column_units={"delivered": "count", "failed": "count"},
)

ROWS: list[tuple[str, str, list[ReferenceValue], list[str]]] = [
    # the network's figure is no rival of one depot's in a ranking of depots
    (
        "a whole beside its part",
        "Depot 12 is the busiest depot, with 2,100 of the 9,400 parcels.",
        [ALL_PARCELS, DEPOT_12],
        [U, S, S],
    ),
    (
        "a whole beside its part",
        "Depot 12 is the busiest depot, with 2,100 parcels.",
        [DEPOT_12, DEPOT_3],
        [C, S],
    ),
    # an answer tabling some months ranks among them; a ranking wrong among them stays wrong
    (
        "a ranking among the rows tabled",
        "| Month | Parcels |\n|---|---|\n| January 2025 | 310 |\n| February 2025 | 295 |\n"
        "| March 2025 | 402 |\n\nMarch 2025 was the busiest month of the quarter.",
        [MONTHLY_PARCELS],
        [S, S, S, U],
    ),
    (
        "a ranking among the rows tabled",
        "| Month | Parcels |\n|---|---|\n| January 2025 | 310 |\n| February 2025 | 295 |\n"
        "| March 2025 | 402 |\n\nJanuary 2025 was the busiest month of the quarter.",
        [MONTHLY_PARCELS],
        [S, S, S, C],
    ),
    # an amount stated for two months joined by "and" is neither month's
    (
        "periods joined by 'and'",
        "Spring (April 2025 and May 2025) brought 803 parcels.",
        [MONTHLY_PARCELS],
        [U],
    ),
    ("periods joined by 'and'", "May 2025 brought 803 parcels.", [MONTHLY_PARCELS], [C]),
    (
        "periods joined by 'and'",
        "April 2025 and May 2025 each brought about 400 parcels.",
        [MONTHLY_PARCELS],
        [S],
    ),
    # "across all depots" names the whole, not the depot the sentence is about
    (
        "a figure for all",
        "Depot 12 damaged 7.5% of parcels, against 6.1% across all depots.",
        DAMAGE,
        [S, S],
    ),
    (
        "a figure for all",
        "Depot 12 damaged 7.5% of parcels, against 6.8% across all depots.",
        DAMAGE,
        [S, C],
    ),
    # a table's rate beside two outcomes is one over both, never a share of the column total
    (
        "a rate of its row",
        "| Driver | Delivered | Failed | Success rate |\n|---|---|---|---|\n"
        "| Ana Silva | 480 | 20 | 96.0% |\n| Tom Reed | 300 | 60 | 80.0% |",
        [DRIVERS],
        [S, S, S, S, S, U],
    ),
    (
        "a rate of its row",
        "| Driver | Delivered | Share of deliveries |\n|---|---|---|\n| Ana Silva | 480 | 66.0% |",
        [DRIVERS],
        [S, C],
    ),
    # a count per month of something the references do not count
    (
        "a monthly count of another noun",
        "| Month | Parcels |\n|---|---|\n| November 2025 | 398 |\n| December 2025 | 380 |\n\n"
        "The tracking app had 760 monthly active users in December.",
        [MONTHLY_PARCELS],
        [S, S, U],
    ),
    (
        "a monthly count of another noun",
        "| Month | Parcels |\n|---|---|\n| November 2025 | 398 |\n| December 2025 | 380 |\n\n"
        "December handled 760 parcels.",
        [MONTHLY_PARCELS],
        [S, S, C],
    ),
]


@pytest.mark.parametrize(("cause", "answer", "refs", "expected"), ROWS)
def test_cause(cause: str, answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert_verdicts("", answer, refs, expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Loading took 41.2 min in 2024 and 43.0 min in 2025, +1.8 minutes on the year "
            "before. Night-shift loading ran 6 minutes longer.",
            [S, S, S, U],
        ),
        (
            "Loading took 41.2 min in 2024 and 43.0 min in 2025. Loading ran 6 minutes longer.",
            [S, S, C],
        ),
    ],
)
def test_a_difference_stated_twice(answer: str, expected: list[str]) -> None:
    """A difference another claim already states right: another figure pinned to the same two
    values is about something the references lack (the night shift), never accused."""
    question = "Did average loading time change between 2024 and 2025?"
    assert_verdicts(question, answer, LOADING, expected)


DELIVERIES = [
    ref(v, "count", name="deliveries", params={"year": y}, label=str(y))
    for y, v in [(2024, 8100), (2025, 9720)]
]
DRIVERS_AT = [
    ref(
        v,
        sql="SELECT COUNT(*) AS active_drivers FROM d WHERE start <= :d",
        params={"d": d},
        label=label,
    )
    for d, v, label in [("2024-12-31", 400, "end of 2024"), ("2025-12-31", 460, "end of 2025")]
]


@pytest.mark.parametrize(
    ("question", "answer", "refs", "expected"),
    [
        # a change after a dash is of the two levels its sentence states, whatever else the
        # question's periods could pair
        (
            "By how much did deliveries grow in 2025 compared with 2024?",
            "Deliveries rose from 8,100 in 2024 to 9,720 in 2025 — growth of about 12%, roughly "
            "1.2x the prior year's volume.",
            DELIVERIES,
            [S, S, C, S],
        ),
        (
            "By how much did deliveries grow in 2025 compared with 2024?",
            "Deliveries rose from 8,100 in 2024 to 9,720 in 2025 — growth of about 20%, roughly "
            "1.2x the prior year's volume.",
            DELIVERIES,
            [S, S, S, S],
        ),
        # a list line headed by a change's name, after two lines stating its levels
        (
            "Compare active drivers at end of 2024 and end of 2025.",
            "- End of 2024: 400 drivers\n- End of 2025: 460 drivers\n- Driver growth: 25%",
            DRIVERS_AT,
            [S, S, C],
        ),
        (
            "Compare active drivers at end of 2024 and end of 2025.",
            "- End of 2024: 400 drivers\n- End of 2025: 460 drivers\n- Growth: 15%",
            DRIVERS_AT,
            [S, S, S],
        ),
    ],
)
def test_a_change_of_the_levels_stated(
    question: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    """A change is of the two levels written just before it: in its sentence across a dash, or
    in the two list lines above a line named for the change."""
    assert_verdicts(question, answer, refs, expected)
