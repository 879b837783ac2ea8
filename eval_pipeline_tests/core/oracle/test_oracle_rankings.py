"""Rankings whose metric the claim's words leave to the reference, the ranking it continues,
the question or the kind of superlative; and the group a ranking is among."""

from __future__ import annotations

from eval_pipeline_tests.core.oracle.answers import C, S, U, ref
from eval_pipeline_tests.core.oracle.answers import verdicts_of as run


def test_the_column_an_sql_reference_orders_by_names_the_ranking_the_question_asks_for() -> None:
    """A claim echoing the question ("misrouted the most") ranks the column the reference was
    ordered by for that question: a guess, which supports but never accuses."""
    table = {
        "columns": ["depot", "parcels_lost", "parcels_sent"],
        "rows": [["Kelso", 31, 900], ["Ayr", 12, 1500], ["Troon", 20, 700]],
    }
    units = {"parcels_lost": "count", "parcels_sent": "count"}
    select = "SELECT depot, SUM(bad) AS parcels_lost, SUM(n) AS parcels_sent FROM p"
    ordered = ref(table, sql=f"{select} ORDER BY parcels_lost DESC", column_units=units)
    unordered = ref(table, sql=select, column_units=units)
    question = "Which depots misrouted the most parcels in 2030?"
    assert run("Kelso misrouted the most.", [ordered], question) == [S]
    assert run("Ayr misrouted the most.", [ordered], question) == [U]
    assert run("Kelso misrouted the most.", [unordered], question) == [U]
    # a word the question does not hold ranks something else: no guess by the order
    assert run("Kelso shipped the most.", [ordered], question) == [U]


def test_followed_by_ranks_by_the_metric_of_the_ranking_it_continues() -> None:
    fills = ref(
        {
            "columns": ["region", "fill_rate", "orders"],
            "rows": [["West", 91.0, 300], ["South", 89.0, 120], ["East", 88.0, 400]],
        },
        column_units={"fill_rate": "percent", "orders": "count"},
    )
    assert run("West had the highest fill rate, followed by South.", [fills]) == [S, S]
    assert run("West had the highest fill rate, followed by East.", [fills]) == [S, C]
    # the ranking it continues names no metric: neither does the continuation
    assert run("West came first, followed by East.", [fills]) == [U, U]


def test_a_ranking_in_an_answer_about_the_few_the_question_asks_for_may_rank_among_them() -> None:
    agents = ref(
        {
            "columns": ["agent", "cases", "avg_days"],
            "rows": [
                ["Ana Ruiz", 90, 30.0],
                ["Bo Lind", 85, 25.0],
                ["Cy Mott", 80, 33.0],
                ["Di Park", 40, 21.0],
                ["Ed Vale", 35, 40.0],
            ],
        },
        column_units={"cases": "count", "avg_days": "days"},
    )
    question = "Which three agents handled the most cases?"
    listed = "Ana Ruiz (90), Bo Lind (85) and Cy Mott (80) handled the most. "
    # fastest of the three named, not of all five: no accusation
    assert run(listed + "Bo Lind settled fastest.", [agents], question)[-1] == U
    # slowest neither of the three nor of all five
    assert run(listed + "Ana Ruiz settled slowest.", [agents], question)[-1] == C
    # without the question asking for three, all five are the group
    assert run(listed + "Bo Lind settled fastest.", [agents])[-1] == C


def test_the_busiest_period_has_the_most_of_the_count_the_others_are_part_of() -> None:
    monthly = ref(
        {
            "columns": ["month_start", "tickets_opened", "urgent_tickets", "refunds"],
            "rows": [
                ["2031-01-01", 80, 20, 900.0],
                ["2031-02-01", 95, 12, 700.0],
                ["2031-03-01", 70, 15, 1200.0],
            ],
        },
        column_units={"tickets_opened": "count", "urgent_tickets": "count", "refunds": "currency"},
        name="monthly_tickets",
    )
    assert run("February 2031 was the busiest month.", [monthly]) == [S]
    assert run("March 2031 was the quietest month.", [monthly]) == [S]
    # a guess by the whole count: never an accusation
    assert run("January 2031 was the busiest month.", [monthly]) == [U]


def test_a_clause_after_a_semicolon_names_its_own_metric() -> None:
    weekly = ref(
        {
            "columns": ["week_start", "new_claims", "avg_reserve"],
            "rows": [["2031-06-02", 30, 900.0], ["2031-06-09", 18, 2500.0]],
        },
        column_units={"new_claims": "count", "avg_reserve": "currency"},
        name="weekly_claims",
    )
    second = "; the week of 9 June 2031 carried the largest average reserve."
    assert run("The week of 2 June 2031 was the busiest" + second, [weekly]) == [S, S]
    assert run("The week of 9 June 2031 was the busiest" + second, [weekly]) == [C, S]


def test_an_average_names_the_averaged_column() -> None:
    sources = ref(
        {
            "columns": ["source", "reviews", "avg_score"],
            "rows": [["Google", 640, 4.1], ["Yelp", 300, 4.4], ["Maps", 90, 3.9]],
        },
        column_units={"reviews": "count", "avg_score": "number"},
    )
    assert run("Yelp has the highest average.", [sources]) == [S]
    assert run("Google has the highest average.", [sources]) == [C]


def test_words_after_the_ranking_s_first_figure_and_an_and_name_another_figure() -> None:
    """ "the busiest weekend with 640 loans and an average loan time of 12 days" ranks loans: the
    words after "and" belong to the second figure, not to the ranking."""
    weekends = ref(
        {
            "columns": ["branch", "loans", "avg_loan_days"],
            "rows": [["Hill", 640, 11.0], ["Dale", 500, 14.0], ["Moor", 420, 12.5]],
        },
        column_units={"loans": "count", "avg_loan_days": "days"},
    )
    answer = "Hill was the busiest branch with 640 loans and an average loan time of 11 days."
    assert run(answer, [weekends]) == [S, S, S]
    wrong = "Dale was the busiest branch with 500 loans and an average loan time of 14 days."
    assert run(wrong, [weekends]) == [C, S, S]
    # with no figure before it, "and" still joins the ranking's own words
    assert run("Dale had the longest average loan time and the fewest loans.", [weekends])[0] == S


def _half_year() -> dict[str, object]:
    return {
        "columns": ["month_start", "crates_shipped"],
        "rows": [
            ["2031-01-01", 300],
            ["2031-02-01", 280],
            ["2031-03-01", 260],
            ["2031-04-01", 120],
            ["2031-05-01", 150],
            ["2031-06-01", 90],
        ],
    }


def test_a_ranking_among_those_ranks_among_what_its_sentence_named_before_it() -> None:
    """A ranking "of those months" ranks among the months the sentence named, not every row;
    with no group named before it, among nothing it can tell."""
    shipped = ref(_half_year(), column_units={"crates_shipped": "count"}, name="crates")
    lead = "April–June 2031 was slow, with "
    assert run(lead + "May the busiest of those months.", [shipped])[-1] == S
    assert run(lead + "June the busiest of those months.", [shipped])[-1] == C
    assert run("May 2031 was the busiest of those months.", [shipped]) == [U]
    # a count of a part ("150 of them") is no group: every row is ranked
    assert run("May 2031 was the busiest, 150 of them.", [shipped])[0] == C
    # no back-reference: every row is ranked
    assert run(lead + "May the busiest month.", [shipped])[-1] == C


def test_a_period_a_later_ranking_names_does_not_bind_the_figure_before_it() -> None:
    shipped = ref(_half_year(), column_units={"crates_shipped": "count"}, name="crates")
    answer = "About 360 crates shipped across April–June, with May the busiest of those months."
    assert run(answer, [shipped])[0] != C
    # the figure's own clause names the month: bound to it
    assert run("In May 2031 about 360 crates shipped.", [shipped]) == [C]


def test_a_quantity_heavy_ranking_ranks_its_share_not_its_level() -> None:
    """The most "labour-heavy" store ranks labour against something else, which the
    reference's labour cost alone does not say."""
    stores = ref(
        {
            "columns": ["store", "labour_cost", "sales"],
            "rows": [["Elm", 500.0, 2000.0], ["Oak", 400.0, 800.0], ["Ash", 450.0, 1500.0]],
        },
        column_units={"labour_cost": "currency", "sales": "currency"},
    )
    assert run("Oak is the most labour-heavy store.", [stores]) == [U]
    assert run("Oak has the highest labour cost.", [stores]) == [C]
