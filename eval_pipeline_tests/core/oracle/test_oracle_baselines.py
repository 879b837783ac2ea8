"""Changes and gaps whose other side is set up apart from them (#15): a figure for everything
stated once as the base of the rows' gaps ("Against a network rate of 1.50%:", "above that"),
a table whose columns are one quantity in two periods ("orders_2024", "orders_2025"), the row
named after "than", the period before the one named ("on the previous year"), the level a
change reached ("down 23% to 18,560"). Each row is one way of writing it, beside a near miss
that must not be accused.
"""

from __future__ import annotations

import pytest

from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

_WAIT_SQL = "SELECT AVG(minutes) AS avg_wait_minutes FROM waits WHERE yr = :year"
WAITS = [
    ref(128.27, "minutes", sql=_WAIT_SQL, params={"year": 2025}, label="all depots"),
    *(
        ref(v, "minutes", sql=f"{_WAIT_SQL} AND depot = :depot", params={"year": 2025, "depot": d})
        for d, v in [("Avon", 156.28), ("Brook", 116.04), ("Cole", 127.02)]
    ),
]
CLASSES = [
    ref(47.98, "minutes", name="avg_class_minutes", label="all studios"),
    ref(49.29, "minutes", name="avg_class_minutes", params={"studio": "Dock 4"}),
]
CLASSES_SQL = [
    ref(47.98, "minutes", sql="SELECT AVG(m) AS avg_class_minutes FROM c WHERE s = 'Kew'"),
    ref(
        49.29,
        "minutes",
        sql="SELECT AVG(m) AS avg_class_minutes FROM c WHERE s = :studio",
        params={"studio": "Dock 4"},
    ),
]
CLASSES_SQL[0] = CLASSES_SQL[0].model_copy(
    update={"reference": CLASSES_SQL[0].reference.model_copy(update={"label": "Kew"})}
)
SETTLE = ref(
    {
        "columns": ["segment", "avg_hours_to_settle"],
        "rows": [
            ["Midwest", 721.1],
            ["Northeast", 836.9],
            ["Pacific", 651.7],
            ["Southeast", 832.3],
            ["All regions", 780.4],
        ],
    },
    sql="SELECT segment, AVG(h) AS avg_hours_to_settle FROM s GROUP BY 1 UNION ALL SELECT …",
    column_units={"avg_hours_to_settle": "hours"},
)
ORDERS = ref(
    {
        "columns": ["channel", "orders_2024", "orders_2025"],
        "rows": [["EDI", 784, 936], ["Phone", 698, 810]],
    },
    sql="SELECT channel, SUM(y = 2024) AS orders_2024, SUM(y = 2025) AS orders_2025 FROM o",
)
_CONTACTS_SQL = "SELECT COUNT(*) FROM contacts WHERE substr(day, 1, 4) = :yr"
CONTACTS = [
    ref(n, sql=_CONTACTS_SQL, params={"yr": y}) for y, n in [("2024", 4524), ("2025", 4476)]
]
CHURN = [
    ref(v, "percent", name="churn_rate", params={"year": y})
    for y, v in [(2024, 24.0), (2025, 14.21)]
]
_HANDLE_SQL = "SELECT AVG(s) / 60.0 AS avg_handle_minutes FROM c WHERE channel = :channel"
HANDLING = [
    ref(v, "minutes", sql=_HANDLE_SQL, params={"channel": c})
    for c, v in [("phone", 6.48), ("chat", 9.36), ("email", 4.58)]
]
TICKETS = [
    ref(n, sql="SELECT COUNT(*) AS tickets FROM t WHERE y = :y", params={"y": y})
    for y, n in [("2023", 864), ("2024", 891), ("2025", 1388)]
]
COVERS = [
    ref(v, name="covers", params={"year": y, "quarter": q})
    for (y, q), v in [((2024, 1), 2500), ((2024, 4), 2980), ((2025, 1), 2846)]
]
WEEKLY = ref(
    {
        "columns": ["week_start", "units_good"],
        "rows": [
            ["2025-11-03", 23499],
            ["2025-11-10", 24045],
            ["2025-11-17", 18560],
            ["2025-11-24", 18023],
        ],
    },
    name="weekly_output",
    params={"plant": "Saltillo"},
)
PLANTS = ref(
    {
        "columns": ["plant", "q4_2024_units", "q4_2025_units"],
        "rows": [["Saltillo", 228584, 252901], ["Guelph", 698310, 755939]],
    },
    sql="SELECT plant, SUM(q = '2024Q4') AS q4_2024_units, SUM(q = '2025Q4') AS q4_2025_units",
)
HANDSETS = ref(
    {"Galaxy S24": 164, "Galaxy A15": 150, "Galaxy S23": 137, "Moto G 5G": 175},
    "count",
    name="handset_mix",
)
LOSS_RATIO = ref(
    {"columns": ["accident_year", "loss_ratio"], "rows": [["2023", 61.36], ["2025", 71.79]]},
    sql="SELECT yr AS accident_year, ROUND(100.0 * paid / premium, 2) AS loss_ratio FROM p",
    column_units={"loss_ratio": "percent"},
)
_LIFETIME_SQL = "SELECT plan, AVG(days) AS avg_lifetime_days FROM s GROUP BY plan"
LIFETIME = ref(
    {"columns": ["plan", "avg_lifetime_days"], "rows": [["annual", 245.3], ["monthly", 190.1]]},
    sql=_LIFETIME_SQL,
    column_units={"avg_lifetime_days": "days"},
)
LIFETIME_3 = ref(
    {
        "columns": ["plan", "avg_lifetime_days"],
        "rows": [["annual", 245.3], ["monthly", 190.1], ["weekly", 60.0]],
    },
    sql=_LIFETIME_SQL,
    column_units={"avg_lifetime_days": "days"},
)
BILLED = ref(
    {
        "columns": ["year_start", "billed_customers"],
        "rows": [["2024-01-01", 1031], ["2025-01-01", 1328]],
    },
    sql="SELECT substr(m, 1, 4) || '-01-01' AS year_start, COUNT(DISTINCT c) AS billed_customers",
)

_AGAINST = (
    "Against a 2025 average wait of 128.3 minutes:\n\n- Avon 156.3 minutes ({} minutes above)\n"
)
_COLE = "Against Cole's 127.0 minutes:\n\n- Avon 156.3 minutes ({} minutes above)\n"

ROWS: list[tuple[str, str, str, list[ReferenceValue], list[str]]] = [
    (
        "a lead-in 'against' the overall figure makes it the base of each item's gap",
        "How does each depot's 2025 wait compare with the average?",
        _AGAINST.format("28.0") + "- Brook 116.0 minutes (-12.2 minutes)",
        WAITS,
        [S, S, S, S, S],
    ),
    (
        "a wrong gap to the figure the lead-in sets up is accused",
        "How does each depot's 2025 wait compare with the average?",
        _AGAINST.format("33.6") + "- Brook 116.0 minutes (-12.2 minutes)",
        WAITS,
        [S, S, C, S, S],
    ),
    (
        "a lead-in 'against' one row's figure makes it the base instead of the whole",
        "How does each depot's 2025 wait compare with Cole's?",
        _COLE.format("29.3") + "- Brook 116.0 minutes (11.0 minutes below)",
        WAITS,
        [S, S, S, S, S],
    ),
    (
        "a wrong gap to that row's figure is accused",
        "How does each depot's 2025 wait compare with Cole's?",
        _COLE.format("33.6") + "- Brook 116.0 minutes (11.0 minutes below)",
        WAITS,
        [S, S, C, S, S],
    ),
    (
        "a pronoun after a gap points back to the figure stated last",
        "How do the depots compare with the 2025 average wait?",
        "The 2025 average wait was 128.3 minutes. Avon ran 33.6 minutes above that, Brook "
        "12.2 minutes below it, and Cole 0.9 minutes below it.",
        WAITS,
        [S, C, S, C],
    ),
    (
        "a pronoun points back to the figure mentioned last, a row's as well",
        "How do the depots compare with the 2025 average wait?",
        "The 2025 average wait was 128.3 minutes, and Cole's 127.0 minutes. Avon ran 29.3 "
        "minutes above that, and Brook 12.2 minutes below the average.",
        WAITS,
        [S, S, S, S],
    ),
    (
        "near miss: gaps naming no base are not accused, only supported",
        "How do the depots compare with the 2025 average wait?",
        "The 2025 average wait was 128.3 minutes. Avon ran 33.6 minutes longer, Brook 12.2 "
        "minutes shorter, and Cole 0.9 minutes shorter.",
        WAITS,
        [S, U, S, U],
    ),
    (
        "a function called with no entity param is the whole, whatever its label",
        "How long is a class at Dock 4?",
        "At Dock 4 a class runs 49.3 minutes, 1.3 minutes longer than the chain average.",
        CLASSES,
        [S, S],
    ),
    (
        "a wrong gap to that whole is accused",
        "How long is a class at Dock 4?",
        "At Dock 4 a class runs 49.3 minutes, 3 minutes longer than the chain average.",
        CLASSES,
        [S, C],
    ),
    (
        "near miss: a query labelled with a name may filter in its text: no whole of it",
        "How long is a class at Dock 4?",
        "At Dock 4 a class runs 49.3 minutes, 3 minutes longer than the chain average.",
        CLASSES_SQL,
        [S, U],
    ),
    (
        "a total row the sentence's lead sets up is the base of the rows' gaps",
        "How does each region's settlement time compare with the company average?",
        "Against the company average of 780 hours: Southeast +52 hours, Pacific −129 hours, "
        "and Northeast is 70 hours slower.",
        [SETTLE],
        [S, S, S, C],
    ),
    (
        "near miss: the total row stated with no lead 'against' it supports, never accuses",
        "How does each region's settlement time compare with the company average?",
        "The company average is 780 hours. Southeast +52 hours, Pacific −100 hours.",
        [SETTLE],
        [S, S, U],
    ),
    (
        "columns of one quantity in two periods: a change column is the row's change",
        "Orders by channel, 2024 vs 2025?",
        "| Channel | 2024 | 2025 | Change |\n|---|---|---|---|\n"
        "| EDI | 784 | 936 | +19.4% |\n| Phone | 698 | 810 | +25.0% |",
        [ORDERS],
        [S, S, S, S, S, C],
    ),
    (
        "near miss: a total row names no row, and its sums anchor none of the columns",
        "Orders by channel, 2024 vs 2025?",
        "| Channel | 2024 | 2025 | Change |\n|---|---|---|---|\n"
        "| EDI | 784 | 936 | +19.4% |\n| Total | 1,482 | 1,746 | +25.0% |",
        [ORDERS],
        [S, S, S, S, S, U],
    ),
    (
        "each of those columns is its period's value",
        "Orders by channel, 2024 vs 2025?",
        "EDI grew from 748 orders in 2024 to 936 in 2025 (+19.4%).",
        [ORDERS],
        [C, S, S],
    ),
    (
        "one query's text called with other params is one quantity",
        "How many contacts did we get in 2024 and 2025?",
        "Contacts were 4,524 in 2024 and 4,476 in 2025, -1.1% year on year.",
        CONTACTS,
        [S, S, S],
    ),
    (
        "a wrong change between two calls of one query is accused",
        "How many contacts did we get in 2024 and 2025?",
        "Contacts were 4,524 in 2024 and 4,476 in 2025, -3.0% year on year.",
        CONTACTS,
        [S, S, C],
    ),
    (
        "a whole-number rate is the rate its other calls return",
        "How did churn change?",
        "Churn fell from 24.0% in 2024 to 14.2% in 2025, -9.8 points.",
        CHURN,
        [S, S, S],
    ),
    (
        "a wrong change of such a rate is accused",
        "How did churn change?",
        "Churn fell from 24.0% in 2024 to 14.2% in 2025, -7.3 points.",
        CHURN,
        [S, S, C],
    ),
    (
        "a list the answer opens with: a change line is of the two lines above it",
        "What was churn in 2024 and 2025?",
        "- 2024: 26%\n- 2025: 14.2%\n- Change: -7.3 points",
        CHURN,
        [C, S, C],
    ),
    (
        "a right change line there is supported, whatever the level above it",
        "What was churn in 2024 and 2025?",
        "- 2024: 26%\n- 2025: 14.2%\n- Change: -9.8 points",
        CHURN,
        [C, S, S],
    ),
    (
        "the row after 'than' is the other side, however many the sentence names",
        "Handle time by channel?",
        "Chat takes 2.9 minutes more than phone and about twice as long as email.",
        HANDLING,
        [S, S],
    ),
    (
        "a wrong gap to the row after 'than' is accused",
        "Handle time by channel?",
        "Chat takes 3.5 minutes more than phone and about twice as long as email.",
        HANDLING,
        [C, S],
    ),
    (
        "near miss: 'than' followed by no row pins nothing",
        "Handle time by channel?",
        "Chat takes 3.5 minutes more than the slowest calls, and phone about twice email.",
        HANDLING,
        [U, S],
    ),
    (
        "'on the previous year' is the year before the one named",
        "How many tickets were opened each year?",
        "Tickets in 2025 jumped 56% on the previous year.",
        TICKETS,
        [S],
    ),
    (
        "a wrong change on the previous year is accused",
        "How many tickets were opened each year?",
        "Tickets in 2025 jumped 60% on the previous year.",
        TICKETS,
        [C],
    ),
    (
        "'year on year' beside a quarter is on the same quarter a year before",
        "How did covers move?",
        "Q1 2025 covers were up 13.8% year on year.",
        COVERS,
        [S],
    ),
    (
        "near miss: a relative period of another grain than the one named is none of these",
        "How did covers move?",
        "Q1 2025 covers were up 13.8% on the previous month.",
        COVERS,
        [U],
    ),
    (
        "a change followed by the level it reached is from the value stated before it",
        "Weekly output at Saltillo for November 2025?",
        "Output peaked at 24,045 in the week of 10 November, then fell about 23% to 18,560 in "
        "the week of 17 November.",
        [WEEKLY],
        [S, S, S, S],
    ),
    (
        "a wrong change to the level it reached is accused",
        "Weekly output at Saltillo for November 2025?",
        "Output peaked at 24,045 in the week of 10 November, then fell about 40% to 18,560 in "
        "the week of 17 November.",
        [WEEKLY],
        [S, S, C, S],
    ),
    (
        "a level after a lead naming a period and its base is for that period",
        "Q4 2025 vs Q4 2024 units by plant?",
        "Q4 2025 against Q4 2024: Saltillo rose 10.6% to 252,901 units.",
        [PLANTS],
        [S, S],
    ),
    (
        "the rows listed before 'add up to' are what it adds",
        "What is the handset mix?",
        "The Galaxy S24, Galaxy A15 and Galaxy S23 add up to 451, and the Moto G 5G (175) "
        "beats the Galaxy S24 (164).",
        [HANDSETS],
        [S, S, S],
    ),
    (
        "a wrong sum of the rows listed before it is accused",
        "What is the handset mix?",
        "The Galaxy S24, Galaxy A15 and Galaxy S23 add up to 480, and the Moto G 5G (175) "
        "beats the Galaxy S24 (164).",
        [HANDSETS],
        [C, S, S],
    ),
    (
        "a word of the next paragraph does not turn a change's sign",
        "How does the 2025 loss ratio compare with 2023?",
        "- 2025: 71.8%\n- vs 2023 (61.4%): +10.4 pts\n\nBetter than we planned.",
        [LOSS_RATIO],
        [S, S, S],
    ),
    (
        "a gap naming one of two rows is to the other one",
        "How long do cancelled subscriptions last, by plan?",
        "Annual subscribers stay about 55 days longer.",
        [LIFETIME],
        [S],
    ),
    (
        "near miss: a wrong gap to the row only inferred is never accused",
        "How long do cancelled subscriptions last, by plan?",
        "Annual subscribers stay about 80 days longer.",
        [LIFETIME],
        [U],
    ),
    (
        "near miss: beside two other rows, the other side is none of them",
        "How long do cancelled subscriptions last, by plan?",
        "Annual subscribers stay about 55 days longer.",
        [LIFETIME_3],
        [U],
    ),
    (
        "first days of the year under a name saying year are years",
        "How did billed customers grow from 2024 to 2025?",
        "From 2024 to 2025 the number of billed customers rose 28.8%.",
        [BILLED],
        [S],
    ),
    (
        "a wrong change between those years is accused",
        "How did billed customers grow from 2024 to 2025?",
        "From 2024 to 2025 the number of billed customers rose 35%.",
        [BILLED],
        [C],
    ),
]

GRADES = [
    ref(mix, name="grade_mix", kind="decision", params={"year": y}, label=str(y))
    for y, mix in [(2024, {"X": 438, "Y": 593}), (2025, {"X": 511, "Y": 754})]
]
ROWS += [
    (
        "a change written with the level it reached is not accused over another row's pair",
        "How did shipments by grade change between 2024 and 2025?",
        "Grade Y grew from 593 to 754 (+27%), while Grade X rose 25% to 511.",
        GRADES,
        [S, S, S, U, U],
    ),
    (
        "near miss: the level it reached ends the pair, and a wrong change is accused",
        "How did shipments by grade change between 2024 and 2025?",
        "Grade Y shipped 593 in 2024, then rose 35% to 754 in 2025.",
        GRADES,
        [S, C, S],
    ),
]


@pytest.mark.parametrize(("cause", "question", "answer", "refs", "expected"), ROWS)
def test_baseline(
    cause: str, question: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    assert_verdicts(question, answer, refs, expected)
