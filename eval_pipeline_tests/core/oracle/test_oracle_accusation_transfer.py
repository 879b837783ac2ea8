"""Accusations that did not transfer to unseen domains (#15), by the kind of ambiguity the
binding missed — a level named by an event verb ("drop rate"), a value per item, a part of a
two-unit duration, a gap, a hedge read over a list, a share of one column in another, a time
limit, the base of a rate — written in another domain, each beside a near miss still decided.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

LINKS = ref(
    {"columns": ["link", "drop_rate_pct"], "rows": [["Link A", 0.82], ["Link B", 1.35]]},
    sql="SELECT link, ROUND(100.0 * SUM(dropped) / SUM(sent), 2) AS drop_rate_pct FROM p",
)
STREAMED = ref(480000, "minutes", name="total_minutes_streamed", params={"year": 2025})
LONGEST = ref(
    3.25,
    sql="SELECT MAX(hours) AS longest_wait_hours FROM waits WHERE substr(day, 1, 4) = :y",
    params={"y": "2025"},
)
SITES = [
    ref(v, "percent", name="occupancy_rate", params={"site": s})
    for s, v in [("Harbour", 91.24), ("Lakeside", 90.93)]
]
SHIPMENTS = ref(
    {"columns": ["year", "shipments"], "rows": [["2024", 40870], ["2025", 52160]]},
    sql="SELECT substr(day, 1, 4) AS year, COUNT(*) AS shipments FROM s GROUP BY 1",
)
BILLING = ref(
    {
        "columns": ["district", "billed", "unpaid"],
        "rows": [["Northgate", 200000, 10000], ["Southgate", 300000, 3000]],
    },
    sql="SELECT district, SUM(due) AS billed, SUM(due - paid) AS unpaid FROM c GROUP BY 1",
)
REPAIRS = ref(
    {
        "columns": ["category", "avg_hours", "pct_within_24h"],
        "rows": [["Returns", 30.4, 55.2], ["Swaps", 12.1, 88.0]],
    },
    sql="SELECT category, AVG(h) AS avg_hours, 100.0 * AVG(h <= 24) AS pct_within_24h FROM r",
)

ROWS: list[tuple[str, str, list[ReferenceValue], list[str]]] = [
    # a level whose name holds an event verb ("drop rate") is no change: "dropped 0.82% of
    # packets" is a share of packets, Link A's rate
    ("an event verb", "Link A dropped just 0.82% of packets.", [LINKS], [S]),
    ("an event verb", "Link A dropped just 0.95% of packets.", [LINKS], [U]),  # or a change
    ("an event verb", "Link B had a drop rate of 1.60%.", [LINKS], [C]),
    # a value per item is not the total beside it
    (
        "a value per item",
        "Members streamed 480,000 minutes in 2025. Viewing per member in 2025 was 160 minutes.",
        [STREAMED],
        [S, U],
    ),
    ("a value per item", "Members streamed 450,000 minutes in 2025.", [STREAMED], [C]),
    # one part of a duration written in two units is not the duration
    (
        "a two-unit duration",
        "The longest wait in 2025 lasted 3 hours 15 minutes.",
        [LONGEST],
        [S, U],
    ),
    ("a two-unit duration", "The longest wait in 2025 lasted 2 hours.", [LONGEST], [C]),
    # a gap written after a figure ("points ahead") is no level
    (
        "a gap",
        "Harbour was 91.2% full and Lakeside 90.9%, with Harbour 0.3 points ahead.",
        SITES,
        [S, S, U],
    ),
    ("a gap", "Harbour was 95.0% full.", SITES, [C]),
    # a hedge before the first figure of a list may be read over the next
    (
        "a hedge over a list",
        "Shipments were roughly 41,000 in 2024 and 52,000 in 2025.",
        [SHIPMENTS],
        [S, U],
    ),
    (
        "a hedge over a list",
        "Shipments were roughly 41,000 in 2024. In 2025 they were 52,000.",
        [SHIPMENTS],
        [S, C],
    ),
    # a share whose words name two columns of its row is not the share of a column's total
    (
        "a share of one column in another",
        "Northgate has the worst ratio, with about 5% of billed rent unpaid.",
        [BILLING],
        [U, U],
    ),
    ("a share of one column in another", "Northgate billed 55% of all rent.", [BILLING], [C]),
    # a duration after "within" is the limit of what is counted
    (
        "a time limit",
        "Returns: 30.4 hours on average, with 55% fixed inside 40 hours.",
        [REPAIRS],
        [S, S, U],
    ),
    ("a time limit", "Returns took 24 hours on average.", [REPAIRS], [C]),
]


@pytest.mark.parametrize(("cause", "answer", "refs", "expected"), ROWS)
def test_cause(cause: str, answer: str, refs: list[ReferenceValue], expected: list[str]) -> None:
    assert_verdicts("", answer, refs, expected)
