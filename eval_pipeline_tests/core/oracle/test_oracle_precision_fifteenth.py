"""Ratios and gaps to a row named by its place ("the largest is 1.5x the second", "the latest
year was 2.5x the one before"), and figures that are not the references' though close to them
in words — about another noun ("orders grew 18%"), a name no reference holds ("10 at
Blackwater Ridge"), a target ("below the 30% we budgeted"), a value per item ("$40/MWh",
"each produced about 5,856 MWh"), a total ("560 across the two"), the subject's own other
figure ("nearly double its own 1.5% of 2024") — found on held-back domains (wind farms, food
delivery) and the blind set, written here in another domain (a ferry operator), each beside a
near miss the oracle must still decide.
"""

from __future__ import annotations

import pytest

from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

PASSENGERS = ref(
    {
        "columns": ["route", "passengers", "sailings"],
        "rows": [
            ["Harbour Line", 27_200, 1_460],
            ["Bay Shuttle", 17_370, 1_090],
            ["Isle Express", 14_290, 880],
            ["North Loop", 9_910, 730],
            ["Point 7", 8_010, 410],
        ],
    },
    name="passengers_by_route",
    params={"year": 2031},
    column_units={"passengers": "count", "sailings": "count"},
)
PASSENGERS_ASKED = "Which routes carried the most passengers in 2031?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 27,200 / 17,370 = 1.57
        ("The largest route by passengers is roughly 1.6x the second.", [S]),
        ("The largest route by passengers is roughly 2.3x the second.", [C]),
        # the top row, named by the place of the one it is measured against
        ("Harbour Line alone sees 1.6x the passengers of the next busiest.", [S]),
        ("Harbour Line alone sees 1.9x the passengers of the next busiest.", [C]),
        # 27,200 / 8,010 = 3.40
        ("The leader carries about 3.4 times as many passengers as the tail-ender.", [S]),
        ("The leader carries about 2.6 times as many passengers as the tail-ender.", [C]),
        # 27,200 / 9,910 = 2.74: the fourth
        ("Harbour Line carried about 2.7 times as many as the fourth.", [S]),
        # 27,200 - 17,370 = 9,830
        ("Harbour Line carried 9,830 more passengers than the runner-up.", [S]),
        ("Harbour Line carried 7,830 more passengers than the runner-up.", [C]),
    ],
)
def test_a_ratio_or_gap_to_a_row_named_by_its_place(answer: str, expected: list[str]) -> None:
    assert_verdicts(PASSENGERS_ASKED, answer, [PASSENGERS], expected)


def test_a_place_the_answer_lists_otherwise_pins_nothing() -> None:
    """Listed out of value order, "the second" may be the second listed (14,290) or the
    second largest (17,370): a ratio right for either is supported, and one right for neither
    left unverifiable."""
    listed = "1. Harbour Line 27,200\n2. Isle Express 14,290\n3. Bay Shuttle 17,370\n\n"
    assert_verdicts(
        PASSENGERS_ASKED, listed + "The largest is about 1.9x the second.", [PASSENGERS], [S] * 4
    )
    assert_verdicts(
        PASSENGERS_ASKED,
        listed + "The largest is about 2.6x the second.",
        [PASSENGERS],
        [S, S, S, U],
    )


FARES_BY_YEAR = [
    ref(value, "currency", name="fare_revenue", params={"year": year}, label=str(year))
    for year, value in ((2029, 30_600.0), (2030, 49_900.0), (2031, 124_600.0))
]
FARES_ASKED = "How has fare revenue grown since 2029?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 124,600 / 49,900 = 2.50; 124,600 / 30,600 = 4.07
        (
            "Fare revenue was $30.6K, $49.9K and $124.6K. The latest year was 2.5x the one before.",
            [S, S, S, S],
        ),
        (
            "Fare revenue was $30.6K, $49.9K and $124.6K. The latest year was 3.1x the one before.",
            [S, S, S, C],
        ),
        ("We now take about 4 times the 2029 level.", [S]),
        ("We now take about 6 times the 2029 level.", [C]),
    ],
)
def test_a_ratio_between_periods_named_by_their_place(answer: str, expected: list[str]) -> None:
    assert_verdicts(FARES_ASKED, answer, FARES_BY_YEAR, expected)


WEEKLY = ref(
    {
        "columns": ["week_start", "crossings"],
        "rows": [["2031-11-03", 33], ["2031-11-10", 26], ["2031-11-17", 24], ["2031-11-24", 30]],
    },
    name="weekly_crossings",
    params={"route": "Point 7"},
    column_units={"crossings": "count"},
)


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [("about 1.4x", S), ("about 1.9x", C)],  # 33 / 24 = 1.375
)
def test_the_first_period_against_the_quietest(ratio: str, expected: str) -> None:
    answer = f"Point 7 made 113 crossings in November; the first week was {ratio} the quietest one."
    assert_verdicts(
        "Weekly crossings on Point 7 in November 2031?", answer, [WEEKLY], [S, expected]
    )


MONTHLY_FUEL = ref(
    {
        "columns": ["month_start", "fuel_tonnes"],
        "rows": [["2031-10-01", 412.5], ["2031-11-01", 503.0], ["2031-12-01", 388.0]],
    },
    name="monthly_fuel",
    params={"route": "Harbour Line"},
    column_units={"fuel_tonnes": "number"},
)
FUEL_ASKED = "How much fuel did Harbour Line burn each month in Q4 2031?"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # "t" names how fuel is measured, not what: spillage is no fuel burnt, 12x off
        ("November fuel peaked at 503 t, while November spillage hit roughly 40 t.", [S, U]),
        # near miss: its clause names the fuel, and 40 t for 503 is its misstatement
        ("November fuel peaked at 503 t, and November fuel burn was roughly 40 t.", [S, C]),
    ],
)
def test_a_unit_names_no_quantity(answer: str, expected: list[str]) -> None:
    assert_verdicts(FUEL_ASKED, answer, [MONTHLY_FUEL], expected)


def test_a_figure_hundreds_of_times_off_is_of_something_else() -> None:
    """Two hundred times the truth, its clause naming other things: no misstatement of it,
    though no word of the answer names the quantity."""
    answer = "Harbour Line ran 1,460 sailings, losing about 7 to storms."
    assert_verdicts(PASSENGERS_ASKED, answer, [PASSENGERS], [S, U])


FLEET = [
    ref(count, "count", name="vessel_count", params={"class": cls}, label=cls)
    for cls, count in (("Class A-200", 12), ("Class B-90", 8))
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("- Class A-200: 12 vessels (10 at Port Elgin, 2 at Kirkby Haven)", [S, U, U]),
        ("- Class B-90: 8 vessels, all at Kirkby 2", [S, U]),
        # near miss: a class's own count, wrong
        ("- Class A-200: 10 vessels\n- Class B-90: 8", [C, S]),
    ],
)
def test_a_figure_for_a_name_no_reference_holds(answer: str, expected: list[str]) -> None:
    assert_verdicts("How many vessels of each class do we run?", answer, FLEET, expected)


FUEL_COST = ref(
    {
        "columns": ["route", "fuel_tonnes", "vessels"],
        "rows": [["Harbour Line", 70_274.0, 12], ["Bay Shuttle", 41_020.0, 9]],
    },
    name="fuel_by_route",
    params={"year": 2031},
    column_units={"fuel_tonnes": "number", "vessels": "count"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 70,274 / 12 = 5,856
        ("Harbour Line has 12 vessels, and each burnt about 5,856 t on average.", [S, S]),
        ("Harbour Line has 12 vessels, and each burnt about 7,100 t.", [S, U]),
        # near miss: the route's own total, misstated
        ("Harbour Line burnt about 61,000 t in 2031.", [C]),
        # a price per tonne is no amount of fuel
        ("Bay Shuttle burnt 41,020 t in 2031, bought at $40/t.", [S, U]),
    ],
)
def test_a_figure_per_item(answer: str, expected: list[str]) -> None:
    assert_verdicts("How much fuel did each route burn in 2031?", answer, [FUEL_COST], expected)


MONTHLY_SAILINGS = ref(
    {
        "columns": ["month_start", "sailings"],
        "rows": [["2031-10-01", 223], ["2031-11-01", 280], ["2031-12-01", 280]],
    },
    name="monthly_sailings",
    params={"route": "Bay Shuttle"},
    column_units={"sailings": "count"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Bay Shuttle ran 280 sailings in both November and December (560 across the two).",
            [S, U, U],
        ),
        # near miss: one month's figure, wrong
        ("Bay Shuttle ran 280 sailings in November and 560 in December.", [S, C]),
    ],
)
def test_a_total_across_the_periods_it_names(answer: str, expected: list[str]) -> None:
    assert_verdicts(
        "Monthly sailings on Bay Shuttle in Q4 2031?", answer, [MONTHLY_SAILINGS], expected
    )


CREW = [
    ref(11, "count", name="active_crew", params={"route": "Point 7", "year": y}, label=str(y))
    for y in (2030, 2031)
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Point 7 had 11 active crew in both 2030 and 2031, and bookings grew about 18%.", [S, U]),
        # near miss: the crew's own change, which was none
        ("Point 7 had 11 active crew in 2030; in 2031 crew grew about 18%.", [S, C]),
    ],
)
def test_a_change_of_another_noun(answer: str, expected: list[str]) -> None:
    assert_verdicts(
        "How many crew were active on Point 7 in 2030 and 2031?", answer, CREW, expected
    )


DELAY_RATE = [
    ref(rate, "percent", name="delay_rate", params={"route": r, "year": 2031}, label=r)
    for r, rate in (("Harbour Line", 2.89), ("Point 7", 0.73), ("Bay Shuttle", 1.82))
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Harbour Line's delay rate of 2.9% is about 4x Point 7's 0.7% and nearly double "
            "its own 1.5% of 2030.",
            [S, S, S, U, U],
        ),
        # near miss: "more than double" Bay Shuttle's 1.82 (1.59x) is held against it
        (
            "Harbour Line's delay rate of 2.9% is about 4x Point 7's 0.7% and more than "
            "double Bay Shuttle's.",
            [S, S, S, C],
        ),
    ],
)
def test_a_ratio_to_its_own_other_figure(answer: str, expected: list[str]) -> None:
    assert_verdicts("What was each route's 2031 delay rate?", answer, DELAY_RATE, expected)


ON_TIME = ref(0.9741, "fraction", name="on_time_rate", params={"year": 2031})
WEEK_FUEL = ref(
    {
        "columns": ["week_start", "fuel_tonnes"],
        "rows": [["2031-07-07", 11_021.0], ["2031-07-14", 8_637.0]],
    },
    name="weekly_fuel",
    column_units={"fuel_tonnes": "number"},
)


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [
        (
            "On-time sailings were 97.4% in 2031, just shy of the 97.5% guarantee.",
            [ON_TIME],
            [S, U],
        ),
        ("On-time sailings were 97.4% in 2031, below the 99% we budgeted.", [ON_TIME], [S, U]),
        ("On-time sailings were 97.4%, under the ~98.5% industry benchmark.", [ON_TIME], [S, U]),
        ("Week of 14 July: 8,637 t, well below the 12,500 t weekly plan.", [WEEK_FUEL], [S, U]),
        # near miss: a bound on the rate itself
        ("On-time sailings were 97.4% in 2031, just below 97.5%.", [ON_TIME], [S, S]),
        ("On-time sailings were just below 96% in 2031.", [ON_TIME], [C]),
    ],
)
def test_a_target_the_answer_names(answer: str, refs: list, expected: list[str]) -> None:
    assert_verdicts("What was the on-time rate in 2031?", answer, refs, expected)


DOWNTIME = ref(
    {
        "columns": ["cause", "total_hours", "events"],
        "rows": [
            ["engine", 2_718.2, 30],
            ["hull damage", 2_250.1, 20],
            ["weather", 3_464.6, 20],
            ["crew shortage", 1_603.1, 80],
        ],
    },
    sql="SELECT cause, SUM(hours) AS total_hours, COUNT(*) AS events FROM outages GROUP BY cause",
)


@pytest.mark.parametrize(
    ("whole", "expected"),
    # 10,036 hours in all; 150 events, which "~4,968 h of" does not count
    [("~10,000", S), ("~150", U)],
)
def test_a_whole_after_its_part_is_in_its_unit(whole: str, expected: str) -> None:
    answer = (
        f"Engine and hull damage together were roughly half of all hours (~4,968 h of {whole})."
    )
    assert_verdicts("Which causes drove outage hours?", answer, [DOWNTIME], [S, S, expected])


ROUTE_TAKINGS = ref(
    {
        "columns": ["route", "tickets_sold", "fare_revenue"],
        "rows": [
            ["Harbour Line", 103_898, 1_037_708.36],
            ["Bay Shuttle", 98_013, 1_010_513.49],
            ["Point 7", 98_323, 976_682.12],
        ],
    },
    name="takings_by_route",
    column_units={"tickets_sold": "count", "fare_revenue": "currency"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the counts the money came from, written in full after scaled amounts: not money
        (
            "Harbour Line took £1.04M from 103,898 tickets; Point 7 £977K from 98,323.",
            [S, S, S, S],
        ),
        ("Harbour Line took £1.04M from 103,898 tickets; Point 7 £977K from 97,323.", [S, S, S, C]),
        # near miss: an amount written again without its sign stays money
        ("Fares reached £1.04M on Harbour Line and 1.01M on Bay Shuttle.", [S, S]),
        ("Fares reached £1.04M on Harbour Line and 1.21M on Bay Shuttle.", [S, C]),
    ],
)
def test_a_bare_count_after_an_amount(answer: str, expected: list[str]) -> None:
    assert_verdicts("Fare revenue by route?", answer, [ROUTE_TAKINGS], expected)


SPEND_PER_HEAD = [
    ref(spend, "currency", name="spend_per_head", params={"route": r}, label=r)
    for r, spend in (
        ("Harbour Line", 5.43),
        ("Bay Shuttle", 5.06),
        ("Isle Express", 3.72),
        ("Point 7", 3.36),
    )
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the spread its words name (5.43 - 3.36 = 2.07 across four calls), never the gap of the
        # two rows before it (0.36)
        (
            "Isle Express (£3.72) and Point 7 (£3.36) trail, so the gap between the best and "
            "worst route is just over £2 a head.",
            [S, U, S, S],
        ),
        (
            "Isle Express (£3.72) and Point 7 (£3.36) trail, so the gap between the best and "
            "worst route is just over £1 a head.",
            [S, U, S, C],
        ),
        # near miss: the gap between the two rows its sentence names
        ("Isle Express (£3.72) is £0.90 ahead of Point 7 (£3.36).", [S, C, U, S]),
    ],
)
def test_a_spread_its_words_name(answer: str, expected: list[str]) -> None:
    assert_verdicts("Onboard spend per head by route?", answer, SPEND_PER_HEAD, expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 1,037,708 - 1,010,513 = 27,195: a margin, never Bay Shuttle's takings
        ("Harbour Line edges Bay Shuttle by about £27K.", [S]),
        ("Harbour Line edges Bay Shuttle by about £80K.", [C]),
    ],
)
def test_a_margin_after_a_verb_of_beating(answer: str, expected: list[str]) -> None:
    assert_verdicts("Fare revenue by route?", answer, [ROUTE_TAKINGS], expected)


CARGO = ref(
    {
        "columns": ["weekday", "tonnes_collected", "sailings"],
        "rows": [["Monday", 2_604.1, 5], ["Wednesday", 2_736.5, 5], ["Friday", 1_540.0, 4]],
    },
    sql="SELECT day, SUM(kg) / 1000.0 AS tonnes_collected, COUNT(*) AS sailings FROM c GROUP BY 1",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # "collected" says what befell the tonnes: a measure, not money collected
        ("Wednesday carried 2,736.5 tonnes; Friday is the lightest at 1,540 t.", [S, S, S]),
        ("Wednesday carried 2,736.5 tonnes; Friday is the lightest at 1,450 t.", [S, S, C]),
    ],
)
def test_a_measure_that_was_collected(answer: str, expected: list[str]) -> None:
    assert_verdicts("Cargo by weekday?", answer, [CARGO], expected)


RESALE = [
    ref(730_800.0, "currency", name="resale_revenue", params={"port": "North Quay"}),
    ref(4_428.3, None, name="tonnes_landed", params={"port": "North Quay"}),
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 730,800 / 4,428.3 = 165.03 a tonne: money is never the tonnes, and "for every tonne"
        # is per item (no amount is derived over a measure: left unverifiable)
        ("North Quay earned $730.8K against 4,428 tonnes, about $165 for every tonne.", [S, S, U]),
        (
            "North Quay earned $730.8K against 4,428 tonnes, about $1,500 for every tonne.",
            [S, S, U],
        ),
        # near miss: the tonnes themselves, misstated
        ("North Quay earned $730.8K against 4,128 tonnes.", [S, C]),
    ],
)
def test_money_per_tonne(answer: str, expected: list[str]) -> None:
    assert_verdicts("Resale revenue at North Quay?", answer, RESALE, expected)


RUNS = ref(
    {
        "columns": ["model", "completed_runs", "vessels"],
        "rows": [["Class A-200", 432, 6], ["Class B-90", 229, 4]],
    },
    name="runs_by_class",
    column_units={"completed_runs": "count", "vessels": "count"},
)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("| Class B-90 | 229 | 4 | 78 |", [S, S, U]),  # 57.25 a vessel: no count of runs
        ("| Class B-90 | 292 | 4 | 57.25 |", [C, S, U]),  # near miss: the runs column itself
    ],
)
def test_a_column_per_item(row: str, expected: list[str]) -> None:
    table = "| Class | Completed runs | Vessels | Runs per vessel |\n|---|---|---|---|\n" + row
    assert_verdicts("Runs by vessel class?", table, [RUNS], expected)


CONTAMINATION = ref(
    {
        "columns": ["route", "contamination_rate"],
        "rows": [["Harbour Line", 12.65], ["Bay Shuttle", 10.85], ["Point 7", 5.53]],
    },
    name="contamination_by_route",
    column_units={"contamination_rate": "percent"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # more contamination is worse
        ("Harbour Line had the worst contamination, 12.65%.", [S, S]),
        ("Point 7 had the worst contamination, 5.53%.", [C, S]),
    ],
)
def test_the_worst_of_a_bad_thing_is_its_most(answer: str, expected: list[str]) -> None:
    assert_verdicts("Contamination by route?", answer, [CONTAMINATION], expected)


DAILY_TICKETS = ref(
    {
        "columns": ["weekday", "tickets_sold"],
        "rows": [
            ["Monday", 203_472],
            ["Tuesday", 189_066],
            ["Wednesday", 195_110],
            ["Thursday", 201_300],
            ["Friday", 412_880],
            ["Saturday", 455_010],
            ["Sunday", 398_200],
        ],
    },
    name="tickets_by_weekday",
    column_units={"tickets_sold": "count"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # Monday to Thursday: four rows, 38% together; never Monday's own 10%
        ("Roughly 4 out of 10 tickets are sold Monday to Thursday.", [U]),
        # near miss: Monday alone is a share of its own
        ("Roughly 4 out of 10 tickets are sold on Mondays.", [C]),
    ],
)
def test_a_share_of_a_range_of_rows(answer: str, expected: list[str]) -> None:
    assert_verdicts("Tickets by weekday?", answer, [DAILY_TICKETS], expected)


CROSSING_TIME = ref(115.7, "minutes", name="avg_crossing_minutes", params={"year": 2031})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # one crossing, the longest: no average of them all
        ("The longest single crossing was the storm run of 12 March at 166 minutes.", [U]),
        # near miss: the average itself
        ("The average crossing took 166 minutes.", [C]),
    ],
)
def test_the_longest_single_item(answer: str, expected: list[str]) -> None:
    assert_verdicts("How long are crossings?", answer, [CROSSING_TIME], expected)


QUARTER_PRICE = ref(
    {
        "columns": ["quarter", "fuel_price"],
        "rows": [["Q1", 368.55], ["Q2", 361.91], ["Q3", 356.51], ["Q4", 352.72]],
    },
    name="fuel_price_by_quarter",
    params={"year": 2031},
    column_units={"fuel_price": "currency"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 352.72 - 368.55 = -15.83, -4.3%: a change restated after ", or", never a price
        ("From Q1 to Q4 that's a fall of about 4.3%, or roughly $16 a tonne.", [S, S]),
        ("From Q1 to Q4 that's a fall of about 4.3%, or roughly $13 a tonne.", [S, C]),
    ],
)
def test_a_change_restated_in_other_units(answer: str, expected: list[str]) -> None:
    assert_verdicts("Fuel price by quarter in 2031?", answer, [QUARTER_PRICE], expected)


MATERIAL_VALUE = [
    ref(value, "currency", name="value_per_tonne", params={"material": m}, label=m)
    for m, value in (("paper", 131.75), ("glass", 37.50))
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # after the colon, the two figures go with the two labels before it, in order
        (
            "A tonne of paper was worth about 3.5 times a tonne of glass: $131.75 versus $37.50.",
            [S, S, S],
        ),
        (
            "A tonne of paper was worth about 3.5 times a tonne of glass: $131.75 versus $47.50.",
            [S, S, C],
        ),
    ],
)
def test_two_figures_set_against_each_other_after_a_colon(answer: str, expected: list[str]) -> None:
    assert_verdicts("What was a tonne of each worth?", answer, MATERIAL_VALUE, expected)


ROUTES_PER_DAY = ref(
    {"columns": ["weekday", "routes"], "rows": [["Friday", 4], ["Monday", 5]]},
    name="routes_by_weekday",
    column_units={"routes": "count"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # five hundred times the routes: households, whatever its sentence names
        ("Friday routes are mostly rural, averaging 2,100 households each.", [U]),
        # near miss: a miscount of the routes themselves
        ("Friday runs 6 routes.", [C]),
    ],
)
def test_a_figure_hundreds_of_times_a_count(answer: str, expected: list[str]) -> None:
    assert_verdicts("Routes by weekday?", answer, [ROUTES_PER_DAY], expected)


IMAX_TAKINGS = ref(
    {"columns": ["imax_revenue", "total_revenue"], "rows": [[2_120_543.56, 5_816_285.55]]},
    sql="SELECT SUM(imax) AS imax_revenue, SUM(revenue) AS total_revenue FROM s",
    column_units={"imax_revenue": "currency", "total_revenue": "currency"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # 36.5% of the money; 28% of the tickets is another share, of things counted
        (
            "The IMAX screen took a 36.5% share while selling only 28% of the site's tickets.",
            [S, U],
        ),
        # near miss: a share of the money, misstated
        ("The IMAX screen took only 28% of the site's revenue.", [C]),
    ],
)
def test_a_share_of_things_beside_money(answer: str, expected: list[str]) -> None:
    assert_verdicts("IMAX share of box office?", answer, [IMAX_TAKINGS], expected)


BALE_WEIGHT = ref(1_052.56, None, name="avg_bale_kg", params={"material": "paper"})
MISS_RATE = ref(2.12, "percent", name="missed_run_rate", params={"year": 2031})


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [
        # limits the answer sets, which the actual level neither supports nor accuses
        ("Our contract allows up to 2.5% missed sailings.", [MISS_RATE], [U]),
        (
            "The buyer's specification requires paper bales above 1,000 kg.",
            [BALE_WEIGHT],
            [U],
        ),
        (
            "Box office reached £21.3M, ahead of the £20M budget.",
            [ref(21_300_000.0, "currency", name="box_office")],
            [S, U],
        ),
        # near misses: a bound on the level itself, and "plans" that are products
        ("Missed sailings stayed under 2.5% in 2031.", [MISS_RATE], [S]),
        ("We sell five postpaid plans.", [ref(5, "count", name="postpaid_plans")], [S]),
    ],
)
def test_a_limit_the_answer_sets(answer: str, refs: list, expected: list[str]) -> None:
    assert_verdicts("How did we do?", answer, refs, expected)


BOOKINGS = ref(801, "count", name="bookings", params={"marina": "North Quay", "year": 2031})
MONTHLY_LITRES = ref(
    {
        "columns": ["month_start", "litres_sold"],
        "rows": [["2031-07-01", 140_142.5], ["2031-08-01", 118_300.0], ["2031-09-01", 89_957.5]],
    },
    name="monthly_fuel_sales",
    params={"marina": "North Quay"},
    column_units={"litres_sold": "number"},
)


@pytest.mark.parametrize(
    ("answer", "refs", "expected"),
    [
        # a part of the total it names, not the total
        ("Transient bookings made up 772 of the 2031 total.", [BOOKINGS], [U]),
        ("North Quay took 772 bookings in 2031.", [BOOKINGS], [C]),  # near miss
        # a total over the months it names (348,400 in all: no sum is taken over a range of
        # periods yet), never July's own figure
        ("348.4k litres were pumped from July through September.", [MONTHLY_LITRES], [U]),
        ("448.4k litres were pumped from July through September.", [MONTHLY_LITRES], [U]),
        ("In July 148.4k litres were pumped.", [MONTHLY_LITRES], [C]),  # near miss
    ],
)
def test_a_part_or_a_sum_of_what_the_references_hold(
    answer: str, refs: list, expected: list[str]
) -> None:
    assert_verdicts("Bookings and fuel at North Quay?", answer, refs, expected)


RESOLVE_DAYS = ref(
    {
        "columns": ["route", "avg_days_to_resolve"],
        "rows": [["Harbour Line", 2.4], ["Bay Shuttle", 2.8], ["Point 7", 4.6]],
    },
    name="complaint_resolution",
    column_units={"avg_days_to_resolve": "days"},
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the worst by the metric: most days to resolve, its metric the ranking's before it
        ("Harbour Line is fastest; Point 7 is the clear laggard.", [S, S]),
        ("Harbour Line is fastest; Bay Shuttle is the clear laggard.", [S, C]),
        # near miss: "Y a close second" counts on from the ranking before it
        ("Harbour Line is fastest, and Bay Shuttle a close second.", [S, S]),
    ],
)
def test_the_laggard_and_a_close_second(answer: str, expected: list[str]) -> None:
    assert_verdicts("Which routes resolve complaints fastest?", answer, [RESOLVE_DAYS], expected)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Bay Shuttle's £5.06 a head is 37p below Harbour Line's £5.43.", [S, S, S]),
        ("Bay Shuttle's £5.06 a head is 47p below Harbour Line's £5.43.", [S, C, S]),
    ],
)
def test_a_gap_in_pence(answer: str, expected: list[str]) -> None:
    assert_verdicts("Onboard spend per head by route?", answer, SPEND_PER_HEAD, expected)


CAFE = [
    ref(
        6_117.43,
        "currency",
        name="waste_cost",
        params={"cafe": "Pier Kiosk"},
        label="Pier Kiosk waste",
    ),
    ref(
        1_008_460.39,
        "currency",
        name="cafe_revenue",
        params={"cafe": "Pier Kiosk"},
        label="Pier Kiosk sales",
    ),
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the figure of its magnitude (waste), though its sentence also names the sales
        ("Pier Kiosk threw away $6.4K of product, against $1.01M in sales.", [C, S]),
        ("Pier Kiosk threw away $6.1K of product, against $1.01M in sales.", [S, S]),
    ],
)
def test_the_figure_of_its_magnitude_among_its_entity(answer: str, expected: list[str]) -> None:
    assert_verdicts("Waste and sales at Pier Kiosk?", answer, CAFE, expected)
