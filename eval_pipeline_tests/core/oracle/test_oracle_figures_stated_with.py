"""Which value a claim is about when its own phrase says so: the figure a ranking's clause
states for the ranked entity names the metric ranked, money words name the column in a currency,
a name written with its code heads a list item, an aside between dashes does not part a name
from its verb's figure, a column headed "Avg" is not the median, "APR" is no month, and a "%"
change of rates its words call relative is relative. Each with a near miss."""

from __future__ import annotations

from eval_pipeline_tests.core.oracle.answers import C, S, U, ref
from eval_pipeline_tests.core.oracle.answers import verdicts_of as run

TIERS = ref(
    {
        "columns": ["plan", "avg_tenure_months", "renewed"],
        "rows": [["Basic", 14.2, 900], ["Plus", 21.7, 410], ["Max", 18.3, 150]],
    },
    sql="SELECT plan, AVG(tenure) AS avg_tenure_months, COUNT(*) AS renewed FROM s GROUP BY 1",
    column_units={"avg_tenure_months": "number", "renewed": "count"},
)


def test_the_figure_stated_with_a_ranking_names_its_metric() -> None:
    """ "the most loyal renewed members, averaging 21.7" ranks the column holding 21.7 for
    Plus, though its words name the renewed count; by that column Plus is first."""
    assert run("Plus had the most loyal renewed members, averaging 21.7.", [TIERS]) == [S, S]
    # by the figure's column Max is second: its words name another column, so no accusation
    assert run("Max had the most loyal renewed members, averaging 18.3.", [TIERS]) == [U, S]
    # near miss: no figure beside it, the words name the count, and Plus is second by it
    assert run("Plus had the most renewed members.", [TIERS]) == [C]


WEEKS = ref(
    {
        "columns": ["week_start", "orders", "booked"],
        "rows": [["2030-03-03", 40, 61_000], ["2030-03-10", 38, 72_500], ["2030-03-17", 12, 9_800]],
    },
    sql="SELECT week_start, COUNT(*) AS orders, SUM(amount) AS booked FROM o GROUP BY 1",
)


def test_money_words_rank_the_column_a_currency_figure_states() -> None:
    """ "moved the most money: 38 orders worth $72,500" ranks the amounts booked, which the
    currency figure states, not the orders its first figure counts."""
    answer = "The week of 10 March moved the most money: 38 orders worth $72,500."
    assert run(answer, [WEEKS]) == [S, S, S]
    # near miss: by orders the week of 10 March is second
    answer = "The week of 10 March had the most orders: 38 orders worth $72,500."
    assert run(answer, [WEEKS]) == [C, S, S]


AGENTS = ref(
    {
        "columns": ["agent_code", "agent", "calls", "avg_handle_minutes"],
        "rows": [["AG-1", "Ana Ruiz", 40, 6.2], ["AG-2", "Bo Ruiz", 55, 7.9]],
    },
    sql="SELECT agent_code, agent, COUNT(*) AS calls, AVG(m) AS avg_handle_minutes FROM c",
    column_units={"calls": "count", "avg_handle_minutes": "minutes"},
)


def test_a_name_with_its_code_heads_its_list_item() -> None:
    """ "- Ana Ruiz (AG-1): …" is about one agent: each figure of the item is hers."""
    answer = "- Ana Ruiz (AG-1): 40 calls (7.5 a day), 6.9 minutes average handle"
    assert run(answer, [AGENTS])[-1] == C
    # near miss: two agents in one item name no one
    answer = "- Ana Ruiz and Bo Ruiz: 40 calls (7.5 a day), 6.9 minutes average handle"
    assert run(answer, [AGENTS])[-1] == U


DEPOTS = ref(
    {
        "columns": ["depot", "avg_days_to_ship", "orders"],
        "rows": [["Avon", 2.4, 300], ["Tees", 3.1, 510], ["Wear", 2.9, 200]],
    },
    sql="SELECT depot, AVG(d) AS avg_days_to_ship, COUNT(*) AS orders FROM o GROUP BY 1",
    column_units={"avg_days_to_ship": "days", "orders": "count"},
)


def test_an_aside_between_dashes_does_not_part_a_name_from_its_figure() -> None:
    answer = "Avon is quickest. Tees — the busiest, with 510 orders — averages 2.6 days."
    assert run(answer, [DEPOTS])[-1] == C
    # near miss: the aside's own figure stays the name's too
    answer = "Avon is quickest. Tees — the busiest, with 510 orders — averages 3.1 days."
    assert run(answer, [DEPOTS])[-2:] == [S, S]


CHANNELS = ref(
    {
        "columns": ["channel", "avg_wait_hours", "median_wait_hours"],
        "rows": [["Web", 16.4, 11.4], ["Phone", 38.5, 26.1]],
    },
    name="wait_by_channel",
)


def test_a_column_headed_avg_is_not_the_median() -> None:
    table = "| Channel | Avg (h) | Median (h) |\n|---|---|---|\n| Web | 15.1 | {median} |\n"
    assert run(table.format(median="12.9"), [CHANNELS]) == [C, C]
    # near miss: the median column's cell is held against the median
    assert run(table.format(median="12.9").replace("15.1", "16.4"), [CHANNELS]) == [S, C]


PRODUCTS = ref(
    {
        "columns": ["product", "loans", "avg_apr"],
        "rows": [["Flex", 248, 18.17], ["Basic", 454, 12.21]],
    },
    name="product_summary",
    params={"year": 2030},
    column_units={"loans": "count", "avg_apr": "percent"},
)


def test_apr_in_capitals_is_no_month() -> None:
    table = "| Product | Loans | Avg APR |\n|---|---|---|\n| Flex | 248 | 18.71% |\n"
    assert run(table, [PRODUCTS]) == [S, C]
    # near miss: months written in capitals in a row of them are months
    months = ref({"JAN": 40, "FEB": 52}, "count", name="orders", params={"year": 2030})
    assert run("| JAN | FEB |\n|---|---|\n| 40 | 50 |\n", [months]) == [S, C]


FILL = [
    ref(v, "percent", name="late_rate", params={"year": y}, label=str(y))
    for y, v in ((2029, 20.4), (2030, 15.3))
]
FELL = "The late rate was 15.3% in 2030, down from 20.4% in 2029 — a drop of 5.1 points, or a "


def test_a_change_of_rates_called_relative_is_relative() -> None:
    """A "%" change of two rates may be points or relative, unless its words say which (it is
    a quarter here)."""
    assert run(FELL + "relative decline of 10%.", FILL) == [S, S, S, C]
    # near miss: "a decline of 10%" may mean another quantity's points
    assert run(FELL + "decline of 10%.", FILL) == [S, S, S, U]


def test_a_polar_word_of_the_figure_before_does_not_turn_the_next() -> None:
    """ "a 5.1-point improvement, or roughly a quarter lower": the improvement is the points'."""
    answer = (
        "The late rate fell from 20.4% in 2029 to 15.3% in 2030 — a 5.1-point improvement, "
        "or roughly a quarter lower in relative terms."
    )
    assert run(answer, FILL) == [S, S, S, S]
