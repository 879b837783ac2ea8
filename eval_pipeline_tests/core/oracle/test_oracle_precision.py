"""Precision first (#15): a claim is accused only when what it is about is pinned. Each row is
one cause of a false accusation (or of a missed one) found on answers written by strangers,
written here in other words and other domains, with the verdict every claim must get.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

SCORES = ref({"North": 4.21, "South": 3.87}, "number", name="avg_score")
PARCELS_2025 = ref(
    {"North": 42, "South": 37, "East": 21}, "count", name="parcels", params={"year": 2025}
)
MONTHLY = ref({"2026-01": 40, "2026-02": 48, "2026-03": 55}, "count", name="parcels")
LARGE = ref(
    242, sql="SELECT COUNT(*) AS large_orders FROM o WHERE total > 200", label="large orders"
)
ALL_ORDERS = ref(7006, sql="SELECT COUNT(*) AS orders FROM o", label="all orders")
ONE_CATEGORY = ref(
    {
        "columns": ["product", "category", "sales"],
        "rows": [["Alder Desk", "Furniture", 66_000], ["Birch Shelf", "Furniture", 31_000]],
    },
    column_units={"sales": "currency"},
    name="top_products",
)
BANDS = ref(
    {"under 3 km": 34.4, "3-6 km": 37.2, "6 km+": 40.6}, "minutes", name="avg_transit_minutes"
)
MIX = ref({"Parcels": 61.2, "Letters": 24.3, "Freight": 14.5}, "percent", name="volume_mix")
WEEKDAYS = ref(
    {
        "columns": ["weekday", "pickups"],
        "rows": [["Monday", 410], ["Friday", 702], ["Saturday", 655], ["Sunday", 590]],
    },
    sql="SELECT weekday, COUNT(*) AS pickups FROM p GROUP BY weekday",
)
DEPOT_WAGES = ref(
    {"loader": 21.40, "driver": 24.10, "clerk": 18.90, "manager": 64.00},
    "currency",
    name="avg_wage",
)
STOP_TIME = ref({"North": 4.2, "South": 5.1}, "minutes", name="avg_stop_minutes")

QUARTERLY = [
    ref(v, "currency", name="freight_revenue", params={"year": y, "quarter": q})
    for y, q, v in [(2024, 1, 2_093_000), (2024, 2, 2_624_000), (2025, 1, 2_257_000)]
]

LABELLED_QUARTERS = [
    ref(v, "count", name="parcels", params={"depot": "Avon", "year": y, "quarter": 3}, label=q)
    for y, v, q in [(2024, 398, "Q3 2024"), (2025, 394, "Q3 2025")]
]

AVON_SCORE = [
    ref(v, "number", name="avg_score", params={"depot": "Avon", "year": y})
    for y, v in [(2023, 3.77), (2024, 3.95)]
]

RATE_USD = ref(
    {"columns": ["line", "avg_daily_rate_usd"], "rows": [["Red", 219.16], ["Blue", 172.82]]},
    sql="SELECT line, AVG(rate) AS avg_daily_rate_usd FROM t GROUP BY 1",
)

DEPOT_SCORES = ref(
    {"columns": ["depot", "avg_score"], "rows": [["Avon", 4.382], ["Tees", 3.754]]},
    sql="SELECT depot, AVG(score) AS avg_score FROM r GROUP BY depot",
)
ALL_DEPOTS_SCORE = ref(4.095, sql="SELECT AVG(score) FROM r")
UNLOAD = ref(
    {"columns": ["depot", "avg_unload_hours"], "rows": [["Avon", 2.4], ["Tees", 2.9]]},
    sql="SELECT depot, AVG(h) AS avg_unload_hours FROM l GROUP BY depot",
)
ALL_UNLOAD = ref(2.62, sql="SELECT AVG(h) AS network_avg_unload_hours FROM l")

DEPOTS = ref(
    {
        "columns": ["depot", "month", "loads", "late_loads", "avg_unload_hours"],
        "rows": [
            ["Avon", "2025-03-01", 4650, 120, 2.4],
            ["Avon", "2025-02-01", 3980, 150, 2.9],
            ["Tees", "2025-03-01", 2210, 300, 2.1],
        ],
    },
    sql="SELECT depot, month, COUNT(*) AS loads, SUM(late) AS late_loads, "
    "AVG(h) AS avg_unload_hours FROM l GROUP BY depot, month",
)

BY_DEPOT = ref(
    {
        "columns": ["depot", "loads", "late_loads", "avg_unload_hours"],
        "rows": [["Avon", 4650, 120, 2.4], ["Tees", 2210, 300, 2.9], ["Wear", 1980, 90, 2.6]],
    },
    sql="SELECT depot, COUNT(*) AS loads, SUM(late) AS late_loads, "
    "AVG(h) AS avg_unload_hours FROM l GROUP BY depot",
)

WEEKLY_KWH = ref(
    {
        "columns": ["week_start", "consumption_kwh"],
        "rows": [["2026-11-02", 5120.0], ["2026-11-09", 4980.5], ["2026-11-16", 5402.0]],
    },
    sql="SELECT week_start, SUM(kwh) AS consumption_kwh FROM m GROUP BY week_start",
)

OUTPUT_MWH = ref({"North": 4200.0, "South": 3150.0}, "number", name="output_mwh")
OUTPUT = ref({"North": 4200.0, "South": 3150.0}, "number", name="output")
MONTHLY_GENERATION = ref(
    {
        "columns": ["month", "generation"],
        "rows": [["2025-01-01", 1200.0], ["2025-02-01", 1350.0], ["2025-03-01", 1650.0]],
    },
    sql="SELECT month, SUM(x) AS generation FROM g GROUP BY month",
)
SHARE = ref(38.5, "percent", name="renewable_share")
ACCOUNTS = ref(
    {
        "columns": ["account", "revenue"],
        "rows": [["Acme", 420_000], ["Globex", 340_000], ["Initech", 290_000], ["Stark", 180_000]],
    },
    column_units={"revenue": "currency"},
    name="top_accounts",
)

FARE = [
    ref(
        {"columns": ["line", "avg_fare"], "rows": [["Red", red], ["Blue", blue]]},
        sql="SELECT line, AVG(fare) AS avg_fare FROM t WHERE d BETWEEN :start AND :end GROUP BY 1",
        params={"start": f"{year}-01-01", "end": f"{year}-03-31"},
        column_units={"avg_fare": "currency"},
    )
    for year, red, blue in ((2024, 2.10, 2.40), (2025, 2.31, 2.52))
]

CARDS = ref(
    {
        "columns": ["depot", "loads", "late_pct", "avg_unload_hours"],
        "rows": [["Avon", 4650, 2.6, 2.4], ["Tees", 2210, 13.6, 2.9]],
    },
    name="depot_scorecard",
)

FULFILMENT = ref(
    {
        "columns": ["region", "orders", "shipped"],
        "rows": [["North", 1204, 1187], ["South", 980, 951]],
    },
    sql="SELECT region, COUNT(*) AS orders, SUM(shipped) AS shipped FROM o GROUP BY region",
)

PAID = ref(
    {
        "columns": ["line", "indemnity_paid", "paid_claims"],
        "rows": [["Homeowners", 1_441_731.81, 165], ["Renters", 25_012.40, 31]],
    },
    sql="SELECT line, SUM(amount) AS indemnity_paid, COUNT(*) AS paid_claims FROM p GROUP BY 1",
    column_units={"indemnity_paid": "currency"},
)

RESERVES = ref(
    {
        "columns": ["product", "total_reserve", "total_indemnity"],
        "rows": [
            ["Fleet", 1_438_600, 1_237_707],
            ["Auto", 1_351_720, 1_192_860],
            ["Home", 1_053_020, 1_153_884],
        ],
    },
    sql="SELECT product, SUM(r) AS total_reserve, SUM(p) AS total_indemnity FROM c GROUP BY 1",
    column_units={"total_reserve": "currency", "total_indemnity": "currency"},
)
RESERVE_TABLE = (
    "| Product | {} | {} |\n|---|---|---|\n"
    "| Fleet | {} | $1.24M |\n| Auto | {} | $1.29M |\n| Home | {} | $1.15M |"
)

OCCUPANCY = [
    ref(v, "percent", name="occupancy", params={"year": y})
    for y, v in ((2024, 69.05), (2025, 70.04))
]
VISITS = ref({"Maple Grove": 778, "Lakeside Pediatrics": 350}, "count", name="visit_count")

LOSS_RATIO = ref({"Midwest": 64.79, "Pacific": 85.01}, "percent", name="loss_ratio")

PLAN_LOSS = ref({"Home Plus 500": 101.69, "Auto 360": 85.2}, "percent", name="loss_ratio")
STAY = [
    ref(2.6185, "days", name="avg_length_of_stay", params={"year": 2024}),
    ref(2.6174, "days", name="avg_length_of_stay", params={"year": 2025}),
]

SEVERE = ref(
    {"columns": ["yr", "severe"], "rows": [["2024", 38], ["2025", 49]]},
    sql="SELECT yr, SUM(sev = 'severe') AS severe FROM c GROUP BY yr",
)
SEVERITY = ref(
    {"columns": ["yr", "low", "severe"], "rows": [["2024", 306, 38], ["2025", 383, 49]]},
    sql="SELECT yr, SUM(sev = 'low') AS low, SUM(sev = 'severe') AS severe FROM c GROUP BY yr",
)

SETTLING = ref(
    {
        "columns": ["depot", "settled_claims", "avg_settlement_days"],
        "rows": [["Avon", 90, 30.5], ["Tees", 40, 21.0], ["Wear", 60, 25.0]],
    },
    sql="SELECT depot, COUNT(*) AS settled_claims, AVG(d) AS avg_settlement_days FROM s GROUP BY 1",
    column_units={"avg_settlement_days": "days"},
)

MONTHLY_LOADS = ref(
    {
        "columns": ["month", "loads", "late_loads"],
        "rows": [["2025-01-01", 400, 30], ["2025-02-01", 520, 20], ["2025-03-01", 450, 40]],
    },
    sql="SELECT month, COUNT(*) AS loads, SUM(late) AS late_loads FROM l GROUP BY month",
)

BANDS_BY_YEAR = ref(
    {
        "columns": ["yr", "low", "medium", "high", "severe"],
        "rows": [["2024", 360, 231, 136, 38], ["2025", 383, 258, 112, 49]],
    },
    sql="SELECT yr, SUM(sev = 'low') AS low, SUM(sev = 'medium') AS medium, "
    "SUM(sev = 'high') AS high, SUM(sev = 'severe') AS severe FROM c GROUP BY yr",
)

LOSS_BY_YEAR = ref(
    {"columns": ["yr", "loss_ratio"], "rows": [["2023", 61.36], ["2024", 77.85], ["2025", 71.79]]},
    sql="SELECT yr, 100.0 * SUM(paid) / SUM(premium) AS loss_ratio FROM c GROUP BY yr",
    column_units={"loss_ratio": "percent"},
)

HOURLY = ref(
    {"columns": ["role", "avg_hourly_rate"], "rows": [["server", 19.62], ["host", 18.01]]},
    sql="SELECT role, SUM(h * rate) / SUM(h) AS avg_hourly_rate FROM shifts GROUP BY role",
    column_units={"avg_hourly_rate": "currency"},
)

AVON_MONTHS = ref(
    {
        "columns": ["month", "loads"],
        "rows": [["2025-01-01", 400], ["2025-02-01", 520], ["2025-03-01", 450]],
    },
    sql="SELECT month, COUNT(*) AS loads FROM l WHERE depot = :depot GROUP BY month",
    params={"depot": "Avon"},
)

FINDINGS = ref(
    {"intervention": False, "compliance rate": 81.2, "open findings per audited site": 0.8548},
    "percent",
    kind="decision",
    name="intervention_needed",
)
NET_SALES = ref(
    {
        "columns": ["month_start", "net_sales"],
        "rows": [["2026-01-01", 6749.5], ["2026-02-01", 7159.25]],
    },
    sql="SELECT month_start, SUM(total) AS net_sales FROM o GROUP BY 1",
)
FREIGHT_COST = ref(
    {
        "columns": ["month_start", "freight_cost"],
        "rows": [["2026-01-01", 100.0], ["2026-02-01", 200.0], ["2026-03-01", 300.0]],
    },
    sql="SELECT month_start, SUM(cost) AS freight_cost FROM f GROUP BY 1",
)
FREIGHT_TABLE = (
    "Freight cost by month:\n\n| Month | Freight cost |\n|---|---|\n| Jan 2026 | $100 |\n"
    "| Feb 2026 | $200 |\n| Mar 2026 | $300 |\n| **Total** | **{}** |"
)
DEPOT_YEARS = ref(
    {
        "columns": ["depot", "parcels_2024", "parcels_2025"],
        "rows": [["Avon", 10, 12], ["Tees", 20, 25], ["Wye", 30, 33]],
    },
    sql="SELECT depot, SUM(a) AS parcels_2024, SUM(b) AS parcels_2025 FROM p GROUP BY 1",
)

FAILED_OF_200 = [ref(31, "count", name="failed_items"), ref(200, "count", name="items")]
FAILED_OF_1000 = [ref(131, "count", name="failed_items"), ref(1000, "count", name="items")]
LOW_RATINGS = ref(
    {
        "columns": ["hotel_name", "reviews", "low_rating_pct"],
        "rows": [["Old Quarter House", 391, 0.2557544757], ["Parkside Inn", 605, 5.23138833]],
    },
    sql="SELECT hotel_name, COUNT(*) AS reviews, AVG(low) AS low_rating_pct FROM r GROUP BY 1",
    column_units={"reviews": "count", "low_rating_pct": "percent"},
)
ROOMS = ref(
    {
        "columns": ["venue_name", "seats", "table_count"],
        "rows": [["Pier Grill", 140, 30], ["Copper Pot", 120, 28], ["Studio Sushi", 70, 18]],
    },
    sql="SELECT venue_name, seats, table_count FROM venues",
)
BY_HOLDER = ref(
    {
        "columns": ["holder_type", "claims", "denied", "high_severity"],
        "rows": [["commercial", 192, 12, 39], ["personal", 610, 46, 122]],
    },
    sql="SELECT holder_type, COUNT(*) AS claims, SUM(d) AS denied, SUM(h) AS high_severity "
    "FROM c GROUP BY 1",
)
NEW_ACCOUNTS = ref({"APAC": 23, "EMEA": 39, "LATAM": 15}, "count", name="new_accounts")
BY_HOUR = ref(
    {"columns": ["hour_of_day", "claims"], "rows": [[9, 142], [10, 84], [17, 83]]},
    sql="SELECT hour_of_day, COUNT(*) AS claims FROM c GROUP BY 1",
)

ROWS: list[tuple[str, str, str, list[ReferenceValue], list[str]]] = [
    # a hedge does not widen "one in N" or "X out of Y": the rounding is the approximation
    ("hedged one in N", "", "Roughly one in 7 items failed.", FAILED_OF_200, [C]),
    ("hedged one in N", "", "Roughly one in 6 items failed.", FAILED_OF_200, [S]),
    ("hedged X out of Y", "", "About 12 out of 100 items failed.", FAILED_OF_1000, [C]),
    ("hedged X out of Y", "", "About 13 out of 100 items failed.", FAILED_OF_1000, [S]),
    # a count right after a share counts the share's part, never the row's whole
    (
        "part of a share",
        "",
        "- Parkside Inn: 5.2%\n- Old Quarter House: 0.26%, just 1 review",
        [LOW_RATINGS],
        [S, S, S],
    ),
    (
        "part of a share",
        "",
        "- Parkside Inn: 5.2%\n- Old Quarter House: 0.26%, just 3 reviews",
        [LOW_RATINGS],
        [S, S, U],
    ),
    # a ratio per item of one row is read only for the row the answer last named
    (
        "per item of an unnamed row",
        "",
        "Pier Grill has 140 seats and 30 tables, Copper Pot 120 seats and 28 tables, Studio "
        "Sushi 70 seats and 18 tables. That's about 4.8 seats per table on average.",
        [ROOMS],
        [S, S, S, S, S, S, U],
    ),
    (
        "per item of an unnamed row",
        "",
        "Copper Pot has 120 seats. It averages about 4.3 seats per table.",
        [ROOMS],
        [S, S],
    ),
    # a share restating the part and whole its sentence states is theirs, not another
    # share of the row that happens to match (denied over high-severity: 30.8%)
    (
        "share of a stated part and whole",
        "",
        "Commercial policyholders filed 195 of the 802 claims, roughly 3 out of 10.",
        [BY_HOLDER],
        [C, S, C],
    ),
    (
        "share of a stated part and whole",
        "",
        "Commercial policyholders filed 192 of the 802 claims, roughly 2 out of 10.",
        [BY_HOLDER],
        [S, S, S],
    ),
    # a past verb of change before a number states the subject's own movement, no gap to the
    # other row the sentence names
    ("own change", "", "APAC lost 8 accounts, against LATAM's 15.", [NEW_ACCOUNTS], [U, S]),
    ("own change", "", "APAC signed 8 more than LATAM.", [NEW_ACCOUNTS], [S]),
    # the same number twice in one sentence, beside rows it names in other words, is two rows
    (
        "repeated number",
        "",
        "Claims peak at 09:00–10:00 with 142, then 10:00–11:00 with 84, and 17:00–18:00 with "
        "84 as well.",
        [BY_HOUR],
        [S, S, U],
    ),
    # a bare decimal is a fraction only by guess: against a percent it may be the percent's own
    # number written without its sign (a unit declared for a whole mapping fits some keys only)
    (
        "bare decimal",
        "",
        "Compliance is 81.2%, with 0.85 open findings per audited site.",
        [FINDINGS],
        [S, S],
    ),
    ("bare decimal", "", "There are 0.61 open findings per audited site.", [FINDINGS], [C]),
    ("bare decimal", "", "Only 0.85 of the audits passed.", [ref(81.2, "percent")], [C]),
    # markdown emphasis reads as spaces: "*above*" still makes a comparison
    ("emphasis", "", "North scored 0.34 points *above* South.", [SCORES], [S]),
    ("emphasis", "", "- North: **4.21**\n- South: **3.78**", [SCORES], [S, C]),
    # a line head that states a figure is a sentence, not a row head naming the line's subject
    (
        "head with a figure",
        "",
        "We shipped 242 large orders in 2025 — out of 7,006 orders in all.",
        [LARGE, ALL_ORDERS],
        [S, S],
    ),
    # a period the sentence names that no claim took is the sentence's period
    (
        "loose period",
        "How many parcels did each region ship in 2025?",
        "In 2024, a partial year, North also led with 31 parcels.",
        [PARCELS_2025],
        [U, U],
    ),
    (
        "loose period",
        "How many parcels did each region ship in 2025?",
        "In 2025, a strong year, North led with 45 parcels.",
        [PARCELS_2025],
        [S, C],
    ),
    # a line head's period does not reach a later sentence that names its own
    (
        "loose period",
        "",
        "January 2026: 40 parcels. January 2025, for comparison, had 35.",
        [MONTHLY],
        [S, U],
    ),
    # a label every row shares (a category) names no one row: no row's share is pinned
    (
        "shared label",
        "",
        "Furniture overall was 69.8% of sales.",
        [ONE_CATEGORY],
        [U],
    ),
    # a label written with another dash is the same label, and its number is part of it
    (
        "label dash",
        "",
        "Parcels take 34.4 min under 3 km and 37.2 min at 3–6 km.",
        [BANDS],
        [S, U, S, U],
    ),
    # shares of one whole add up: named rows of a series totalling 100% are their sum
    (
        "parts of a mix",
        "",
        "- Parcels: 61.2%\n- Letters: 24.3%\n- Freight: 14.5%\n\n"
        "Parcels and letters together are ~85% of volume. Parcels and freight together are ~65%.",
        [MIX],
        [S, S, S, S, C],
    ),
    # "Friday to Sunday" is a range: it names the rows between its ends too, so the sum of
    # the two ends accuses nothing; "Friday and Sunday" names two rows
    (
        "range of labels",
        "",
        "Friday to Sunday together account for 1,947 pickups.",
        [WEEKDAYS],
        [U],
    ),
    (
        "range of labels",
        "",
        "Friday and Sunday together account for 1,392 pickups.",
        [WEEKDAYS],
        [C],
    ),
    # a figure for several named entities together that no derivation gives is no one's level
    ("several entities", "", "The manager and the clerk earn $19.50.", [DEPOT_WAGES], [U]),
    # another sentence states the entity's value right: this one is about a subset of it
    (
        "stated for the entity",
        "",
        "North stops average 4.2 minutes. Evening stops in North average 6.0 minutes.",
        [STOP_TIME],
        [S, U],
    ),
    (
        "stated for the entity",
        "",
        "North stops average 4.2 minutes. South stops average 6.0 minutes.",
        [STOP_TIME],
        [S, C],
    ),
    # a range of days (or of months, dashed) that is one calendar period is that period, not
    # its first and last day: the figure is still the quarter's
    ("range of dates", "", "Red averaged $2.31 in Q1 2025 (Jan 1 – Mar 31).", FARE, [S]),
    ("range of dates", "", "Red averaged $2.45 in Q1 2025 (1 January to 31 March).", FARE, [C]),
    ("range of dates", "", "Red averaged $2.31 in Jan–Mar 2025.", FARE, [S]),
    # a number written with its sign is a change: the gap of the two levels before it supports
    # it (a bridge's "+$159.9K" may be a level, so it never accuses)
    (
        "signed change",
        "",
        "Freight revenue was $2.09M in Q1 2024 and $2.26M in Q1 2025 (+$164K).",
        QUARTERLY,
        [S, S, S],
    ),
    (
        "signed change",
        "",
        "Freight revenue was $2.09M in Q1 2024 and $2.26M in Q1 2025 (+$194K).",
        QUARTERLY,
        [S, S, U],
    ),
    (
        "signed change",
        "",
        "Freight revenue was $2.09M in Q1 2024 and $2.26M in Q1 2025 (−$164K).",
        QUARTERLY,
        [S, S, U],
    ),
    # a reference labelled with its period ("Q3 2024") is for that period, not for an entity
    # so named: the answer's "Q3 2024" still names the period
    (
        "period label",
        "",
        "Avon shipped 394 parcels in Q3 2025 versus 398 in Q3 2024 — flat, down 1.0%.",
        LABELLED_QUARTERS,
        [S, S, S],
    ),
    (
        "period label",
        "",
        "Avon shipped 394 parcels in Q3 2025 versus 398 in Q3 2024 — flat, down 3.0%.",
        LABELLED_QUARTERS,
        [S, S, C],
    ),
    # a percent restating a change named by a noun ("a gain of …, or about 5%") is its size
    (
        "change noun",
        "",
        "Avon went from 3.77 in 2023 to 3.95 in 2024, a gain of 0.18 points, or about 5%.",
        AVON_SCORE,
        [S, S, S, S],
    ),
    # a currency code ending a column's name is its unit, though the name holds "rate"
    ("currency suffix", "", "Red averaged $219.16 a day and Blue $181.", [RATE_USD], [S, C]),
    # a share restating two figures the answer states ("A of B, or P%", "A, P% of B", "Of
    # the B, A (P%)") is their true values' ratio: a part stated wrong still has its true share
    (
        "stated part and whole",
        "",
        "Avon handled 4,650 of the 8,840 loads, or 52.6%.",
        [BY_DEPOT],
        [S, S, S],
    ),
    (
        "stated part and whole",
        "",
        "Tees handled 2,500 of the 8,840 loads, or 28.3%.",
        [BY_DEPOT],
        [C, S, C],
    ),
    (
        "stated part and whole",
        "",
        "Of the 8,840 loads, Avon handled 4,650 (52.6%) and Tees 2,210 (27.5%).",
        [BY_DEPOT],
        [S, S, S, S, C],
    ),
    (
        "stated part and whole",
        "",
        "Tees and Wear handled 4,190 loads together, 45.2% of the 8,840.",
        [BY_DEPOT],
        [S, C, S],
    ),
    # a lone unlabelled figure of a column's quantity (anonymous, or named by words holding the
    # column's) is the overall one a row is compared with
    (
        "overall figure",
        "",
        "Average score: 4.10.\n\n- Avon: 4.38 (0.29 above)\n- Tees: 3.75 (0.19 below)",
        [DEPOT_SCORES, ALL_DEPOTS_SCORE],
        [S, S, S, S, C],
    ),
    # a bare decimal is a fraction only by guess: a signed gap in hours may be written bare
    (
        "overall figure",
        "",
        "| Depot | Unloading | vs network |\n|---|---|---|\n| Avon | 2.4 h | −0.2 |\n"
        "| Tees | 2.9 h | +0.6 |",
        [UNLOAD, ALL_UNLOAD],
        [S, S, S, U],
    ),
    # the spread of a column (its top to its bottom) is the gap of its extremes
    ("spread", "", "The wage spread from top to bottom is $45.10.", [DEPOT_WAGES], [S]),
    ("spread", "", "The wage spread from top to bottom is $41.10.", [DEPOT_WAGES], [C]),
    (
        "spread",
        "",
        "The gap between the highest and lowest depot is under 0.6 hours of unloading.",
        [BY_DEPOT],
        [S],
    ),
    # a year param and a quarter param number name that quarter, not the year
    (
        "part of a year",
        "",
        "- Q1 2024: $2.09M\n- Q2 2024: $2.72M\n\nQ1 2025 came in at $2.26M.",
        QUARTERLY,
        [S, C, S],
    ),
    # "N of <named>'s …" is a part of that entity's or period's total, not its level; an entity
    # named outside the "of …" is still the part's own
    (
        "part of a whole",
        "",
        "Our night shift handled 2,100 of Tees's loads in March.",
        [DEPOTS],
        [U],
    ),
    ("part of a whole", "", "Tees took 2,500 of March's loads.", [DEPOTS], [C]),
    # a claim naming no row states the one row of the series its words name that has its value
    ("row of the named series", "", "One depot logged 300 late loads.", [BY_DEPOT], [S]),
    # a ranking whose clause names no metric takes the one its sentence names, and may then
    # support but not accuse (the sentence can name several metrics)
    (
        "ranking metric from the sentence",
        "",
        "Avon leads with 4,500 loads; its late loads were 120.",
        [BY_DEPOT],
        [U, C, S],
    ),
    # ... unless the figure written beside it agrees with one metric (4,650 loads, not 4,500):
    # that is the one it ranks
    (
        "ranking metric from the sentence",
        "",
        "Avon leads with 4,650 loads; its late loads were 120.",
        [BY_DEPOT],
        [S, S, S],
    ),
    # "a week" after the next number is that number's: it does not make the first one a mean;
    # a total over a period every row is in is the whole column's
    (
        "words of the next number",
        "",
        "November's total consumption was 15,502.5 kWh, about 5,168 kWh a week on average.",
        [WEEKLY_KWH],
        [S, S],
    ),
    (
        "words of the next number",
        "",
        "November's total consumption was 15,902.5 kWh, about 5,168 kWh a week on average.",
        [WEEKLY_KWH],
        [C, S],
    ),
    # a measure in an SI-prefixed unit is compared in the fact's prefix when its name gives one,
    # else at any power of 1,000, and accuses only a value of the fact's own magnitude
    (
        "prefixed units",
        "",
        "North's output was 4.2 GWh, South's 3,300 MWh.",
        [OUTPUT_MWH],
        [S, C],
    ),
    ("prefixed units", "", "North's output was 4.5 GWh.", [OUTPUT_MWH], [C]),
    ("prefixed units", "", "North's output was 4.5 GWh, South's 3.15 GWh.", [OUTPUT], [U, S]),
    ("prefixed units", "", "North's output was 4,500 MWh.", [OUTPUT], [C]),
    # a measure is no fraction: 0.38 kg is not a 38% share
    ("prefixed units", "", "Emissions were 0.385 kg per unit.", [SHARE], [U]),
    # a column whose name holds "ratio" inside a word ("generation") still adds up
    (
        "additive name",
        "",
        "January: 1,200 MWh; February: 1,350 MWh; March: 1,650 MWh. In total, 4.2 GWh.",
        [MONTHLY_GENERATION],
        [S, S, S, S],
    ),
    # rows named in another clause joined on (", and …") are not the ones a total adds up
    (
        "named in another clause",
        "",
        "The top three together brought in $1.05M, and Acme alone made 2.3 times what Stark did.",
        [ACCOUNTS],
        [U, S],
    ),
    # a change written after the two levels of its row compares them (later on earlier)
    (
        "change of a row's levels",
        "",
        "| Line | Q1 2024 | Q1 2025 | Change |\n|---|---|---|---|\n"
        "| Red | $2.10 | $2.31 | +10.0% |\n| Blue | $2.40 | $2.52 | +9.0% |",
        FARE,
        [S, S, S, S, S, C],
    ),
    # a nested list item naming nothing is about what its parent item names
    (
        "nested item",
        "",
        "- **Avon** — 4,650 loads\n  - late 2.6%, unloading 2.4 hours\n"
        "- **Tees** — 2,210 loads\n  - late 12.6%, unloading 2.9 hours",
        [CARDS],
        [S, S, S, S, C, S],
    ),
    # a precise value that is another quantity of the same entity is more likely that quantity,
    # named in words the binding did not read, than a wrong figure that equals it by chance
    ("another quantity's value", "", "North handled 1,187 orders.", [FULFILMENT], [U]),
    # but another row's value of the same quantity is a swapped row, the chatbot's error
    ("another quantity's value", "", "South handled 1,204 orders.", [FULFILMENT], [C]),
    ("another quantity's value", "", "South handled 1,187 orders.", [FULFILMENT], [C]),
    ("another quantity's value", "", "North handled 1,150 orders.", [FULFILMENT], [C]),
    # a column whose name ends in "id" without being an id ("indemnity_paid") holds values
    # a label owns the level in the bracket it opens, or after its possessive, whichever claim
    # is nearer once the bracket is passed over
    (
        "its own number",
        "",
        "Against 2024 (69.3%) occupancy rose to 70.0% in 2025.",
        OCCUPANCY,
        [C, S],
    ),
    (
        "its own number",
        "",
        "Maple Grove completed 778 visits, 2.6 times Lakeside Pediatrics' 305.",
        [VISITS],
        [S, C, C],
    ),
    # a list's levels naming no period are for the one its lead-in line names, the base of a
    # change ("against 2024") apart; a figure after a comparison in the item is not
    (
        "period of the lead-in",
        "",
        "Occupancy in 2025, against 2024:\n\n- chain-wide: 71.2%, up 1.0 point",
        OCCUPANCY,
        [C, S],
    ),
    (
        "period of the lead-in",
        "",
        "Occupancy in 2025, against 2024:\n- chain-wide: 71.2% vs 69.1%",
        OCCUPANCY,
        [C, S],
    ),
    # a table's column holds one quantity: the one its other cells state, unless its header
    # names another (a swapped column is the chatbot's error)
    (
        "a column is one quantity",
        "",
        RESERVE_TABLE.format("Set aside", "Paid out", "$1.44M", "$1.35M", "$1.05M"),
        [RESERVES],
        [S, S, S, C, S, S],
    ),
    (
        "a column is one quantity",
        "",
        RESERVE_TABLE.format("Reserve", "Indemnity", "$1.24M", "$1.19M", "$1.15M"),
        [RESERVES],
        [C, S, C, C, C, S],
    ),
    ("not an id column", "", "Homeowners paid $1.44M on 165 claims.", [PAID], [S, S]),
    ("not an id column", "", "Homeowners paid $1.52M on 165 claims.", [PAID], [C, S]),
    # a signed figure beside an entity is its gap to something, never its level
    (
        "signed gap",
        "",
        "Against the network average, North −1.3 minutes and South +0.9 minutes.",
        [STOP_TIME],
        [U, U],
    ),
    # a loss or an expense is better lower: the worst loss ratio is the highest
    ("less is better", "", "Pacific has the worst loss ratio.", [LOSS_RATIO], [S]),
    ("less is better", "", "Midwest has the worst loss ratio.", [LOSS_RATIO], [C]),
    # after a name's number and a verb, "above" bounds the figure; after a number and its unit
    # it states a gap
    ("bound after a name", "", "Home Plus 500 ran above 100%.", [PLAN_LOSS], [S]),
    ("bound after a name", "", "Auto 360 ran above 100%.", [PLAN_LOSS], [C]),
    # a bounded fall is bounded in size: "down less than 0.1%" holds for a fall of 0.04%
    (
        "bounded change",
        "",
        "Stays averaged 2.62 days in 2024 and 2.62 days in 2025, down less than 0.1%.",
        STAY,
        [S, S, S],
    ),
    (
        "bounded change",
        "",
        "Stays averaged 2.62 days in 2024 and 2.62 days in 2025, up less than 0.1%.",
        STAY,
        [S, S, C],
    ),
    # a value of no stated unit accuses an amount of its own magnitude only, and a rate never
    # when its column holds whole numbers
    ("unknown unit", "", "Severe claims cost us $1.9M in 2025.", [SEVERITY], [U]),
    ("unknown unit", "", "Severe claims were 45% in 2025.", [SEVERE], [U]),
    ("unknown unit", "", "There were 52 severe claims in 2025.", [SEVERITY], [C]),
    # "fastest", "slowest" rank a time: "settles fastest" is the shortest time to settle, not
    # the most settled claims its verb shares a word with
    ("ranked by speed", "", "Tees settles fastest.", [SETTLING], [S]),
    ("ranked by speed", "", "Avon settles fastest.", [SETTLING], [C]),
    # a ranking by a rate ("the lowest late share") is not one by the count its words share
    # ("late loads"): each row's share has its own whole
    ("ranked by a rate", "", "Avon has the lowest late share.", [BY_DEPOT], [U]),
    # "the busiest month" has the most loads, not the most late loads (a part of them): a
    # guess by the whole count, which may support but never accuse
    (
        "busiest by the whole count",
        "Show monthly loads for Q1 2025, with the number of late loads.",
        "February was the busiest month.",
        [MONTHLY_LOADS],
        [S],
    ),
    (
        "busiest by the whole count",
        "Show monthly loads for Q1 2025, with the number of late loads.",
        "March was the busiest month.",
        [MONTHLY_LOADS],
        [U],
    ),
    # a line break ends a ranking's clause: the next bullet's words name no metric of it
    (
        "ranking clause ends at the line",
        "",
        "- Tees comes second\n- unloading averages 2.4 hours at Avon.",
        [BY_DEPOT],
        [U, S],
    ),
    # columns added up by name ("High and Severe together") are parts of one share, never the
    # whole of each other; their row's sum is the likely whole, which supports only
    (
        "columns added up",
        "",
        "High and Severe together made up about 23% of 2024 claims.",
        [BANDS_BY_YEAR],
        [S],
    ),
    (
        "columns added up",
        "",
        "High and Severe together made up 28% of 2024 claims.",
        [BANDS_BY_YEAR],
        [U],
    ),
    # "N more than <words naming nothing>": compared with something unnamed, not with another
    # entity its sentence names elsewhere
    (
        "compared with something unnamed",
        "",
        "Acme made $240K more than a typical partner account, and 1.2 times what Globex did.",
        [ACCOUNTS],
        [U, S],
    ),
    (
        "compared with a row named by its place",
        "",
        "Acme made $240K more than the smallest account, and 1.2 times what Globex did.",
        [ACCOUNTS],
        [S, S],  # Stark, 420K - 180K
    ),
    (
        "compared with something unnamed",
        "",
        "Acme made $240K more than Globex, and 1.2 times what Globex did.",
        [ACCOUNTS],
        [C, S],
    ),
    # a period after "vs" is the base of a change, not the period whose change it is: the
    # change is to the later period the answer named (2025), −6.06 points
    (
        "period a change is against",
        "",
        "- 2025: 71.8%\n- vs 2024 (77.85%): −6.1 pts",
        [LOSS_BY_YEAR],
        [S, S, S],
    ),
    ("period a change is against", "", "- 2024 (77.85%): +16.5 pts", [LOSS_BY_YEAR], [S, S]),
    # two entities each with its own gap ("X … more and Y … less") are each against something
    # else, not against each other
    (
        "each its own gap",
        "",
        "Against the average, Acme made $112K more and Stark $128K less.",
        [ACCOUNTS],
        [U, U],
    ),
    # a gap followed by the overall figure's name ("below the network") is to that figure, even
    # in a sentence naming two entities
    (
        "gap to the overall figure",
        "",
        "Avon scored 0.29 above the network, while Tees came in 0.5 below the network.",
        [DEPOT_SCORES, ALL_DEPOTS_SCORE],
        [S, C],
    ),
    # an entity named only after a share's "of" owns the whole: the part is something in it
    ("named as the whole", "", "Flood cover made up 41% of Homeowners indemnity.", [PAID], [U]),
    ("named as the whole", "", "Homeowners made up 41% of all indemnity.", [PAID], [C]),
    # an amount something adds is an increment, not the level of what it is added to
    ("an amount added", "", "Tips add roughly $9 an hour for servers.", [HOURLY], [U]),
    ("an amount added", "", "Servers earn roughly $9 an hour.", [HOURLY], [C]),
    # a total for the whole organisation ("network-wide") is not one entity's rows added up
    (
        "organisation-wide total",
        "",
        "Avon handled 1,370 loads. Network-wide there were 4,900 loads over those months.",
        [AVON_MONTHS],
        [S, U],
    ),
    (
        "organisation-wide total",
        "",
        "Avon handled 1,370 loads. Across the three months there were 4,900 loads in all.",
        [AVON_MONTHS],
        [S, C],
    ),
    # a column whose name reads as a count ("sales") but holds cents is an amount
    (
        "a count name holding cents",
        "",
        "| Month | Net sales |\n|---|---|\n| Jan 2026 | $5,255 |\n| Feb 2026 | $7,159 |",
        [NET_SALES],
        [C, S],
    ),
    # a table's total row adds every row above it, not the run of rows that happens to match
    ("a table's total row", "", FREIGHT_TABLE.format("$500"), [FREIGHT_COST], [S, S, S, C]),
    ("a table's total row", "", FREIGHT_TABLE.format("$600"), [FREIGHT_COST], [S, S, S, S]),
    # the word a count names is on its own line: a paragraph after it names nothing it counts
    (
        "a count ending its line",
        "",
        "Parcels by region in 2025:\n- North: 42\n- South: 31\n\nEast shipped the fewest.",
        [PARCELS_2025],
        [S, C, S],
    ),
    # "a low of 35" names the figure with an article: it is no value per item ("$9 a shift")
    ("a low of", "", "Volume then slid to a low of 35 parcels in January 2026.", [MONTHLY], [C]),
    # a total row under two year columns adds the series its own column's cells state
    (
        "a total row's column",
        "",
        "Parcels by depot:\n\n| Depot | 2024 | 2025 |\n|---|---|---|\n| Avon | 10 | 12 |\n"
        "| Tees | 20 | 25 |\n| Wye | 30 | 33 |\n| **Total** | **70** | **80** |",
        [DEPOT_YEARS],
        [S, S, S, S, S, S, C, C],
    ),
]


@pytest.mark.parametrize(("cause", "question", "answer", "refs", "expected"), ROWS)
def test_cause(
    cause: str, question: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    assert_verdicts(question, answer, refs, expected)
