"""The oracle on the kinds of claim issue #15 lists: values derived from the references, answers
shaped like rows, numbers that are not claims, signed comparisons, units of time, dates as row
labels, hedges and SQL references that declare their units. Each row is one answer with the
verdict every claim of it must get; a wrong figure of each kind is accused and a right one is not.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

BY_GROUP = ref({"West": 42, "East": 37, "North": 21}, "count", name="completed_items")
BY_MONTH = ref({"2026-01": 40, "2026-02": 48, "2026-03": 55}, "count", name="completed_items")
FAILED = ref(25, "count", name="failed_items")
ALL_ITEMS = ref(100, "count", name="items")
WAIT = ref(150.0, "minutes", name="avg_wait")
RATE = ref(92.47, "percent", name="completion_rate")
RESERVES = ref(
    {
        "columns": ["product", "total_reserve", "indemnity_paid"],
        "rows": [["Fleet 25", 1_438_600, 1_237_600], ["Auto 360", 1_530_000, 1_290_000]],
    },
    sql="SELECT product, SUM(r) AS total_reserve, SUM(p) AS indemnity_paid FROM c GROUP BY 1",
    column_units={"total_reserve": "currency", "indemnity_paid": "currency"},
)
FREQUENCY = ref(13.42, "percent", name="claim_frequency")
PER_100 = ref(13.42, sql="SELECT 100.0 * COUNT(*) / 7230 AS claims_per_100_policies FROM c")
PLANS = ref({"Pro 2": 42, "Team 10": 37}, "count", name="seats")
SCORES = ref({"West": 4.21, "East": 3.87}, "number", name="avg_score")
SQL_TABLE = ref(
    {
        "columns": ["group_name", "tickets", "avg_resolution"],
        "rows": [["West", 420, 95.0], ["East", 380, 130.0]],
    },
    sql="SELECT group_name, COUNT(*) AS tickets, AVG(minutes) AS avg_resolution FROM t GROUP BY 1",
    column_units={"avg_resolution": "minutes"},
)
REVENUE_BY_YEAR = ref(
    {"columns": ["yr", "invoiced_usd", "collected_usd"], "rows": [[2025, 5_838_346, 5_705_057]]},
    sql="SELECT yr, SUM(a) AS invoiced_usd, SUM(p) AS collected_usd FROM inv GROUP BY yr",
)
MENUS = ref(
    {
        "columns": ["venue", "set_menu_3_units", "set_menu_5_units"],
        "rows": [["Harbor Grill", 61, 75], ["Pier Cafe", 59, 62], ["Dock House", 62, 49]],
    },
    sql="SELECT venue, SUM(a) AS set_menu_3_units, SUM(b) AS set_menu_5_units FROM o GROUP BY 1",
)
SEVERITY_MIX = ref(
    {"columns": ["year", "low", "medium"], "rows": [["2023", 360, 231], ["2025", 383, 258]]},
    sql="SELECT year, SUM(a) AS low, SUM(b) AS medium FROM c GROUP BY year",
)
PARTY_SIZES = ref(
    {
        "columns": ["party_size", "bookings", "no_show_pct"],
        "rows": [["1", 772, 6.4], ["2", 1089, 8.1], ["3", 1358, 7.8]],
    },
    sql="SELECT CAST(size AS TEXT) AS party_size, COUNT(*) AS bookings, AVG(ns) AS no_show_pct "
    "FROM r GROUP BY 1",
)

BANDS = ref({"1-50": 118, "51-200": 109, "1000+": 27}, "count", name="accounts_by_size")
MODELS = ref(
    {"columns": ["model", "units"], "rows": [["X5", 49], ["F-150", 180]]},
    sql="SELECT model, COUNT(*) AS units FROM sales GROUP BY model",
)
WEEKS = ref(
    {
        "columns": ["week_start", "appointments", "visits", "no_shows"],
        "rows": [["2024-07-22", 140, 112, 19], ["2024-07-29", 135, 111, 14]],
    },
    sql="SELECT week_start, appointments, visits, no_shows FROM weekly",
)
TWO_YEARS = ref(
    {
        "columns": ["month_start", "revenue"],
        "rows": [
            ["2024-01-01", 604_000],
            ["2024-02-01", 633_000],
            ["2025-01-01", 713_000],
            ["2025-02-01", 687_000],
        ],
    },
    sql="SELECT month_start, revenue FROM monthly",
    column_units={"revenue": "currency"},
)
VISITS = [
    ref(5327, "count", name="visit_count", params={"year": 2023}),
    ref(6198, "count", name="visit_count", params={"year": 2024}),
]
COVERS = [  # one function, the whole with fewer params; each reference labelled
    ref(
        2482, "count", name="covers", params={"venue": "Pier 39 Grill", "year": 2025}, label="Pier"
    ),
    ref(14778, "count", name="covers", params={"year": 2025}, label="group"),
]
TURNAROUND = [
    ref(182.849, "hours", name="avg_turnaround_hours", params={"service_type": "Collision"}),
    ref(4.036, "hours", name="avg_turnaround_hours", params={"service_type": "Oil change"}),
]
MONTHLY_PERFORMANCE = ref(
    {
        "columns": ["month_start", "arrivals", "room_revenue"],
        "rows": [
            ["2024-01-01", 1478, 628_817],
            ["2024-02-01", 1360, 632_850],
            ["2024-03-01", 1566, 832_027],
        ],
    },
    name="monthly_performance",
    params={"year": 2024},
    column_units={"room_revenue": "currency"},
)
QUARTERS = [
    ref(value, "currency", name="room_revenue", params={"year": year, "quarter": quarter})
    for year, quarter, value in [
        (2024, 1, 2_093_694),
        (2024, 2, 2_624_704),
        (2024, 3, 2_844_189),
        (2024, 4, 2_385_701),
        (2025, 1, 2_256_635),
    ]
]
BACKLOG = ref(
    {"columns": ["priority", "open_tickets"], "rows": [["medium", 22], ["low", 12], ["high", 4]]},
    sql="SELECT priority, COUNT(*) AS open_tickets FROM tickets GROUP BY priority",
)
REGIONS = ref(
    {
        "columns": ["region_name", "claims"],
        "rows": [["Southeast", 213], ["Northeast", 202], ["Midwest", 196], ["Pacific", 183]],
    },
    sql="SELECT region_name, COUNT(*) AS claims FROM claims GROUP BY region_name",
)
OCCUPANCY = [  # one query for two periods, each reference labelled by its period
    ref(
        {"columns": ["hotel", "occupancy"], "rows": [["Harbor Hotel", harbor], ["Old House", old]]},
        sql="SELECT hotel, occupancy FROM occupancy WHERE day BETWEEN :start AND :end",
        params={"start": start, "end": end},
        label=label,
        column_units={"occupancy": "percent"},
    )
    for start, end, label, harbor, old in [
        ("2025-01-01", "2025-03-31", "Q1 2025", 75.84, 75.45),
        ("2024-01-01", "2024-03-31", "Q1 2024", 69.44, 70.22),
    ]
]
PRICES = ref(
    {
        "columns": ["plan_name", "list_price_usd", "effective_price_usd"],
        "rows": [["Starter", 15.0, 13.77], ["Pro", 39.0, 36.37]],
    },
    sql="SELECT plan_name, list_price_usd, effective_price_usd FROM plans",
)
LARGE_AND_ALL = [  # part and whole in two queries, told apart only by their labels
    ref(242, sql="SELECT COUNT(*) AS big_orders FROM o WHERE total > 200", label="large orders"),
    ref(7006, sql="SELECT COUNT(*) AS orders FROM o", label="all orders"),
]
VISITS_AND_NO_SHOWS_2025 = [  # two metrics whose labels share only the year they are for
    ref(1680, "count", name="visit_count", params={"year": 2025}, label="2025 visits"),
    ref(
        84,
        "count",
        name="no_show_count",
        kind="decision",
        params={"year": 2025},
        label="no-shows 2025",
    ),
]
MONTHS_TWO_METRICS = ref(
    {
        "columns": ["month_start", "room_revenue", "occupancy_pct"],
        "rows": [["2026-01", 600, 61.0], ["2026-02", 900, 64.0], ["2026-03", 800, 70.0]],
    },
    sql="SELECT month_start, SUM(r) AS room_revenue, AVG(o) AS occupancy_pct FROM m GROUP BY 1",
)
NO_SHOWS_BY_MONTH = ref(
    {"2026-01": 8.1, "2026-02": 9.0, "2026-03": 6.5}, "percent", name="no_show_rate"
)
HOURS_AND_COST = ref(
    {
        "columns": ["group_name", "hours_worked", "cost_usd"],
        "rows": [["West", 420.0, 9100.0], ["East", 380.0, 9800.0]],
    },
    sql="SELECT group_name, SUM(h) AS hours_worked, SUM(c) AS cost_usd FROM t GROUP BY 1",
    column_units={"cost_usd": "currency", "hours_worked": "hours"},
)
REVENUE_BY_GROUP = ref({"West": 196_600.0, "East": 151_600.0}, "currency", name="revenue")
MONTHLY_COVERS = ref(
    {
        "columns": ["month_start", "reservations", "covers"],
        "rows": [["2026-01", 54, 161], ["2026-02", 69, 175], ["2026-03", 65, 265]],
    },
    name="monthly_covers",
)

Row = tuple[str, str, list[ReferenceValue], list[str]]
CATEGORIES: dict[str, list[Row]] = {
    "derived-share": [
        ("", "West made up 42% of completed items.", [BY_GROUP], [S]),
        ("", "West made up 55% of completed items.", [BY_GROUP], [C]),
        ("", "West and East together made up 79% of the total.", [BY_GROUP], [S]),
    ],
    "derived-one-in-n / x-out-of-y": [
        ("", "One in 4 items failed.", [FAILED, ALL_ITEMS], [S]),
        ("", "One in 10 items failed.", [FAILED, ALL_ITEMS], [C]),
        # a share whose part names what it counts
        ("", "1 item for every 4 failed.", [FAILED, ALL_ITEMS], [S]),
        ("", "4 items for every 10 failed.", [FAILED, ALL_ITEMS], [C]),
        ("", "Only 1 item out of 4 failed.", [FAILED, ALL_ITEMS], [S]),
        # a rate on a round base is a share, its base no claim of its own
        ("", "Items failed at 25 per 100 items.", [FAILED, ALL_ITEMS], [S]),
        (
            "",
            "We took 242 large orders. Of all 7,006 orders that is about 3.5%: one in 29, or "
            "roughly 3 out of every 100.",
            LARGE_AND_ALL,
            [S, S, S, S, S],
        ),
        (
            "",
            "We took 242 large orders. Of all 7,006 orders that is about one in 10.",
            LARGE_AND_ALL,
            [S, S, C],
        ),
        (
            "How many no-shows did we have in 2025?",
            "We had 84 no-shows in 2025, about 5 out of every 100 visits, or one in 20.",
            VISITS_AND_NO_SHOWS_2025,
            [S, S, S],
        ),
        (
            "How many no-shows did we have in 2025?",
            "We had 84 no-shows in 2025, about one in 12 visits.",
            VISITS_AND_NO_SHOWS_2025,
            [S, C],
        ),
        ("", "The frequency was 13.4 claims per 100 policies.", [FREQUENCY], [S]),
        ("", "The frequency was 14.6 claims per 100 policies.", [FREQUENCY], [C]),
        ("", "That is 134 claims per 1,000 policies.", [FREQUENCY], [S]),
        ("", "The frequency was 13.4 claims per 100 policies.", [PER_100], [S]),
        ("", "West and East completed 8 out of 10 items.", [BY_GROUP], [S]),
        # "one" whose part names what it counts, and a whole in words
        ("", "About one item in 4 failed.", [FAILED, ALL_ITEMS], [S]),
        ("", "About one item in 2 completed.", [RATE], [C]),
        ("", "Roughly one in four items failed.", [FAILED, ALL_ITEMS], [S]),
        ("", "Roughly one in two items completed.", [RATE], [C]),
        # score words in an earlier clause make "out of 10" no scale
        ("", "Rated items mostly completed, so about 9 out of 10 did.", [RATE], [S]),
        ("", "Rated items mostly completed, so about 7 out of 10 did.", [RATE], [C]),
    ],
    "derived-sum": [
        ("", "Together West and East completed 79 items.", [BY_GROUP], [S]),
        ("", "Together West and East completed 85 items.", [BY_GROUP], [C]),
        ("", "All three groups completed 100 items in total.", [BY_GROUP], [S]),
    ],
    "derived-difference / ratio / growth / mean": [
        # a gap between two columns of one named row can be supported, never accused
        ("", "Fleet 25 came in $201K under reserve.", [RESERVES], [U, S]),
        ("", "Fleet 25 came in $250K under reserve.", [RESERVES], [U, U]),
        ("", "Auto 360 ran $240K under reserve.", [RESERVES], [S]),
        ("", "West completed 5 more items than East.", [BY_GROUP], [S]),
        ("", "West completed 9 more items than East.", [BY_GROUP], [C]),
        ("", "West completed twice as many items as North.", [BY_GROUP], [S]),
        ("", "Completions rose 14.6% from February to March 2026.", [BY_MONTH], [S]),
        ("", "Completions rose 25% from February to March 2026.", [BY_MONTH], [C]),
        ("", "We completed about 48 items a month in Q1 2026.", [BY_MONTH], [S]),
    ],
    "derived from how the references relate": [
        # a level written as a change's size: the relative change supports, never accuses
        (
            "",
            "From 5,327 visits in 2023 we grew to 6,198 in 2024, up 871 visits, or 16.35%.",
            VISITS,
            [S, S, S, S],
        ),
        (
            "",
            "From 5,327 visits in 2023 we grew to 6,198 in 2024, up 871 visits, or 19.5%.",
            VISITS,
            [S, S, S, U],
        ),
        # the whole is the same function called with fewer params, whatever its label
        ("", "Pier 39 Grill accounted for 16.8% of group covers in 2025.", COVERS, [S]),
        ("", "Pier 39 Grill accounted for 21.8% of group covers in 2025.", COVERS, [C]),
        # a ratio naming one side, against the one other value of its metric: support only
        ("", "Collision took 182.8 hours, roughly 45 times as long.", TURNAROUND, [S, S]),
        ("", "Collision took 182.8 hours, roughly 60 times as long.", TURNAROUND, [S, U]),
        # "performance" is no rate: its revenue column adds up
        ("", "Q1 revenue totals $2.09M.", [MONTHLY_PERFORMANCE], [S]),
        # a period's level over references for shorter periods inside it is their sum
        ("", "Full-year 2024 room revenue was $9.95M.", QUARTERS, [S]),
        # the column its words name and no row of it: the column's total, support only
        ("", "There are 38 open tickets.", [BACKLOG], [S]),
        ("", "There are 45 open tickets.", [BACKLOG], [U]),
        # rows named in earlier sentences and added up after them: support only
        (
            "",
            "Southeast had 213 claims and Northeast 202. Midwest had 196. Together the two "
            "account for 415.",
            [REGIONS],
            [S, S, S, U, S],
        ),
        (
            "",
            "Southeast had 213 claims and Northeast 202. Midwest had 196. Together the two "
            "account for 431.",
            [REGIONS],
            [S, S, S, U, U],
        ),
        # each item's change against its own row in the reference labelled by the other period
        (
            "How did occupancy in Q1 2025 compare with Q1 2024?",
            "- Harbor Hotel: 75.8%, up 6.4 points\n- Old House: 75.5%, up 6.3 points",
            OCCUPANCY,
            [S, S, S, C],
        ),
        # a change written after two values of its own row, in a sentence naming every row
        (
            "",
            "Below list on every plan: Starter $13.77 vs $15 list (8.2% below), Pro $36.37 vs "
            "$39 (9.5% below).",
            [PRICES],
            [S, S, S, S, S, C],
        ),
    ],
    "row-shaped": [
        (
            "",
            "| Group | Tickets | Resolution |\n|---|---|---|\n| West | 420 | 95 min |\n"
            "| East | 380 | 2.2 h |",
            [SQL_TABLE],
            [S, S, S, S],
        ),
        (
            "",
            "| Group | Tickets | Resolution |\n|---|---|---|\n| West | 420 | 95 min |\n"
            "| East | 830 | 3.0 h |",
            [SQL_TABLE],
            [S, S, C, C],
        ),
        ("", "- West: 4.21\n- East: 3.78", [SCORES], [S, C]),
    ],
    "not-a-claim": [
        ("", "Pro 2 has 42 seats and Team 10 has 37.", [PLANS], [S, S]),
        ("", "West scored 4.21 out of 5.", [SCORES], [S]),
        ("", "Our target is 90%; the completion rate is 92.5%.", [RATE], [S]),
        ("", "Our 2027 plan aside, the completion rate is 92.5%.", [RATE], [S]),
        (
            "Which groups completed more than 40 items?",
            "West completed more than 40: 42.",
            [BY_GROUP],
            [S],
        ),
    ],
    "thresholds of yes/no questions": [
        # the answer compares the metric with the question's threshold: a bound on its value
        ("Is the completion rate above 90%?", "Yes, it is above 90%.", [RATE], [S]),
        ("Is the completion rate above 95%?", "Yes, the rate is above 95%.", [RATE], [C]),
        ("Did the wait stay under 3 hours?", "Yes, just under 3 hours.", [WAIT], [S]),
        # a bound states no value: the level another sentence gives is still checked
        (
            "Did any group complete over 40?",
            "Only West is over 40. West completed 45.",
            [BY_GROUP],
            [S, C],
        ),
    ],
    "rankings without a number": [
        # "X edged out Y for the top spot": X holds the place
        ("", "West edged out East for the top spot.", [BY_GROUP], [S]),
        ("", "East edged out West for the top spot.", [BY_GROUP], [C]),
        # "and X the fewest": the superlative of a second entity in the same sentence
        ("", "West completed the most items and North the fewest.", [BY_GROUP], [S, S]),
        ("", "West completed the most items and East the fewest items.", [BY_GROUP], [S, C]),
        # "peaked in", "bottomed out in": the period named after the verb
        ("", "Completed items peaked in March 2026.", [BY_MONTH], [S]),
        ("", "Completed items bottomed out in January 2026.", [BY_MONTH], [S]),
        # an apposition: the entity its clause names, the metric its words name
        ("", "North, the smallest, completed 21 items.", [BY_GROUP], [S, S]),
        ("", "West wrote many reports, the most of any group.", [BY_GROUP], [U]),
        # a superlative of size alone names no metric: the only one ranked
        ("", "March 2026 was the heaviest month.", [BY_MONTH], [S]),
        ("", "January 2026 was the strongest month.", [BY_MONTH], [C]),
        ("", "Q3 2024 was the busiest quarter.", QUARTERS, [S]),  # "quarter" is "quart"
        # the only series ranked, its words naming nothing else: no guess
        ("", "January 2026 was the peak month, with completed items flat.", [BY_MONTH], [C]),
        # a period joined to the clause, a hedge of its figure, a figure: no metric words
        (
            "",
            "February 2026 was the worst month and March 2026 the best.",
            [NO_SHOWS_BY_MONTH],
            [S, S],
        ),
        ("", "West completed the most, with East second at just over 36.", [BY_GROUP], [S, S, S]),
        (
            "",
            "- West: $196.6K (56% of the total), the largest group by revenue",
            [REVENUE_BY_GROUP],
            [S, S, S],
        ),
        ("", "East completed 37 items and North 21, which is the lowest.", [BY_GROUP], [S, S, S]),
        # a bracket or a line ends the clause that names the metric
        (
            "",
            "- March 2026: 55 (the peak)\n- February 2026: 48 after a slow start.",
            [BY_MONTH],
            [S, S, S],
        ),
        # no column named, one of the kind the words hint at: a guess, which never accuses
        ("", "West leads on volume.", [SQL_TABLE], [S]),
        ("", "East leads on volume.", [SQL_TABLE], [U]),
        ("", "East is the most expensive group to run.", [HOURS_AND_COST], [S]),
        ("", "West is the most expensive group to run.", [HOURS_AND_COST], [U]),
        # two columns of one reference: the one its own name names, by the claim or the question
        ("", "March 2026 was the busiest month (265 covers).", [MONTHLY_COVERS], [S, S]),
        ("Show monthly covers.", "January 2026 was the quietest month.", [MONTHLY_COVERS], [S]),
        ("Show monthly covers.", "February 2026 was the quietest month.", [MONTHLY_COVERS], [U]),
        # the question names several metrics and the claim none: a guess never accuses
        (
            "Show room revenue and occupancy by month.",
            "March 2026 was the best month.",
            [MONTHS_TWO_METRICS],
            [U],
        ),
    ],
    "labels with numbers": [
        ("", "- 1-50: 118 accounts\n- 1000+: 29 accounts", [BANDS], [U, S, U, C]),
        ("", "| Model | Units |\n|---|---|\n| X5 | 49 |\n| F-150 | 160 |", [MODELS], [S, C]),
    ],
    "outside the references": [
        ("", "Industry-wide, the completion rate runs closer to 40%.", [RATE], [U]),
        ("", "Completed items get a 10% bonus; the completion rate is 92.5%.", [RATE], [U, S]),
        ("", "Week of 29 July: 135 appointments, 14 no-shows (one in 10).", [WEEKS], [S, S, S]),
        ("", "Week of 29 July: 135 appointments, 14 no-shows (one in 12).", [WEEKS], [S, S, C]),
        (
            "",
            "| Month | 2025 | Change |\n|---|---|---|\n| January | $713K | +18.0% |",
            [TWO_YEARS],
            [S, S],
        ),
        (
            "",
            "| Month | 2025 | Change |\n|---|---|---|\n| January | $713K | +13.4% |",
            [TWO_YEARS],
            [S, C],
        ),
        (
            "",
            "January 2025 had the lower revenue, though February 2025 brought $687K.",
            [TWO_YEARS],
            [S],
        ),
    ],
    "signed-comparison": [
        ("", "March 2026: 55 (+7 on February).", [BY_MONTH], [S, S]),
        ("", "March 2026: 55 (+9 on February).", [BY_MONTH], [S, C]),
        ("", "West scored 0.34 points above East.", [SCORES], [S]),
    ],
    "duration": [
        ("", "The average wait is 2.5 hours.", [WAIT], [S]),
        ("", "The average wait is 4 hours.", [WAIT], [C]),
        ("", "The average wait is 3 hours.", [WAIT], [S]),  # 2.5–3.5 hours as written
        ("", "The average wait is 150 min.", [WAIT], [S]),
        ("", "The median wait is 90 minutes.", [WAIT], [U]),
    ],
    "date-row-label": [
        ("", "In January 2026 we completed 40 items, in March 2026 55.", [BY_MONTH], [S, S]),
        ("", "On 2026-02 we completed 44 items.", [BY_MONTH], [C]),
    ],
    "hedge / bound": [
        ("", "The completion rate is just under 93%.", [RATE], [S]),
        ("", "The completion rate is just under 99%.", [RATE], [C]),
        ("", "The completion rate is roughly 90%.", [RATE], [S]),
    ],
    "sql-units / periods / remainders": [
        ("How much was invoiced in 2025?", "We invoiced $5.84M in 2025.", [REVENUE_BY_YEAR], [S]),
        ("How much was invoiced in 2025?", "We invoiced $5.48M in 2025.", [REVENUE_BY_YEAR], [C]),
        ("How much was invoiced in 2025?", "In 2022 we invoiced $0.43M.", [REVENUE_BY_YEAR], [U]),
        (
            "How much was invoiced in 2025?",
            "The unpaid balance on 2025 invoices is $133K.",
            [REVENUE_BY_YEAR],
            [U],
        ),
    ],
    "column picked by its words": [
        (  # the digit of a header names one of two columns whose words are the same
            "How many Set Menu 3 and Set Menu 5 did each venue sell?",
            "| Venue | Set Menu 3 | Set Menu 5 |\n|---|---|---|\n"
            "| Harbor Grill | 67 | 75 |\n| Pier Cafe | 59 | 66 |",
            [MENUS],
            [C, S, S, C],
        ),
        (  # a hedged figure is no sum of a run of stated rows: one of many runs fits by chance
            "How many Set Menu 3 did each venue sell?",
            "Harbor Grill sold 61 Set Menu 3, Pier Cafe 59 and Dock House 62. Dock House's burger "
            "outsells both menus there combined, at around 120 units.",
            [MENUS],
            [S, S, S, U],
        ),
        (  # "from X to Y": the second number is named by the first one's words
            "How did the severity mix change between 2023 and 2025?",
            "Low-severity claims grew from 360 to 388, Medium from 231 to 258.",
            [SEVERITY_MIX],
            [S, C, S, S],
        ),
        (  # a row headed by a code the query returns as text names that row
            "Does no-show rate rise with party size?",
            "| Party size | Bookings | No-show rate |\n|---|---|---|\n"
            "| 1 | 727 | 6.4% |\n| 2 | 1,089 | 8.1% |\n| 3 | 1,358 | 8.7% |",
            [PARTY_SIZES],
            [C, S, S, S, S, C],
        ),
    ],
}
ROWS = [(name, *row) for name, rows in CATEGORIES.items() for row in rows]


@pytest.mark.parametrize(("category", "question", "answer", "refs", "expected"), ROWS)
def test_category(
    category: str, question: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    assert_verdicts(question, answer, refs, expected)


def test_every_category_accuses_a_wrong_figure_and_passes_a_right_one() -> None:
    for name, rows in CATEGORIES.items():
        verdicts = [v for *_, expected in rows for v in expected]
        if name != "not-a-claim":
            assert S in verdicts and C in verdicts, name
