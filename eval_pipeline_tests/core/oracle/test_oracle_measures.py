"""A number written with a unit of measure ("5,000 litres", "2.4 t") or under a header naming
one states that measure: it binds only to a value whose name says a unit of that kind,
converted to it, never to a count of other things or an amount of money."""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.measures import measure_in_header, measure_written, measures_named
from eval_pipeline.core.models import ReferenceValue
from eval_pipeline_tests.core.oracle.answers import C, S, U, assert_verdicts, ref

TANKERS = ref(
    {
        "columns": ["driver", "trips", "volume_litres", "fuel_cost"],
        "rows": [["Ana", 61, 48_412.5, 9_310.0], ["Bo", 57, 45_020.2, 8_760.0]],
    },
    "number",
    column_units={"trips": "count", "fuel_cost": "currency"},
    name="tanker_summary",
)
TRIPS_ONLY = ref(
    {"columns": ["driver", "trips"], "rows": [["Ana", 61], ["Bo", 57]]},
    "number",
    column_units={"trips": "count"},
    name="tanker_trips",
)
PAYLOAD_KG = ref({"Ana": 2_412.0, "Bo": 3_050.0}, "number", name="payload_kg")

ROWS = [
    # the litres are the volume column's, never the trip count's
    ("", "Ana delivered about 48,400 litres.", [TANKERS], [S]),
    ("", "Ana delivered about 52,000 litres.", [TANKERS], [C]),
    # a count written without a unit still states the count
    ("", "Ana made 61 trips.", [TANKERS], [S]),
    # with no value of that measure, a measure is unverifiable, whatever count is near it
    ("", "Ana delivered about 48,000 litres.", [TRIPS_ONLY], [U]),
    ("", "Ana delivered 61 L.", [TRIPS_ONLY], [U]),
    # a header naming the unit gives it to the cells under it
    (
        "",
        "| Driver | Trips | Litres |\n|---|---|---|\n| Ana | 61 | 48,412 |\n| Bo | 57 | 45,020 |",
        [TANKERS],
        [S, S, S, S],
    ),
    (
        "",
        "| Driver | Litres |\n|---|---|\n| Ana | 61 |\n| Bo | 57 |",
        [TANKERS],
        [C, C],
    ),
    # a unit of the same kind is converted: tonnes beside kilograms
    ("", "Ana's payload was 2.4 t.", [PAYLOAD_KG], [S]),
    ("", "Ana's payload was 3.1 t.", [PAYLOAD_KG], [C]),
    # a unit of another kind is not that value
    ("", "Ana's payload was 2,412 km.", [PAYLOAD_KG], [U]),
]


@pytest.mark.parametrize(("question", "answer", "refs", "expected"), ROWS)
def test_measure_binding(
    question: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    assert_verdicts(question, answer, refs, expected)


@pytest.mark.parametrize(
    ("text", "kind", "size"),
    [
        ("about 6,400 t", "mass", 1000.0),
        ("12 tonnes", "mass", 1000.0),
        ("3.5 kg", "mass", 1.0),
        ("420 bushels", "volume", 35.23907016688),
        ("80 km", "length", 1000.0),
        ("1.2 sq ft", "area", 0.09290304),
        ("4.2 GWh", "energy", 1e9),
        ("about 36,800 GB", "data", 1e9),
        ("1.5 TB", "data", 1e12),
    ],
)
def test_measure_written(text: str, kind: str, size: float) -> None:
    found = measure_written(text)
    assert found is not None and (found.kind, found.size) == (kind, size)


@pytest.mark.parametrize("text", ["about 6,400", "12 trips", "$4.2M", "40%"])
def test_no_measure_written(text: str) -> None:
    assert measure_written(text) is None


def test_names_say_a_measure_or_what_it_is_per() -> None:
    of, per = measures_named("net_tonnes")
    assert of is not None and of.kind == "mass" and per is None
    of, per = measures_named("avg_price_per_tonne")
    assert of is None and per is not None and per.kind == "mass"
    assert measures_named("loads") == (None, None)
    assert measures_named("top_farms_by_tonnes")[0] is not None


def test_headers() -> None:
    assert measure_in_header("Net t") is not None
    assert measure_in_header("Weight (kg)") is not None
    assert measure_in_header("$/t") is None
    assert measure_in_header("Price per tonne") is None
    assert measure_in_header("Loads") is None


@pytest.mark.parametrize(
    ("answer", "texts"),
    [
        ("They hauled 40 t in 2024.", ["40 t"]),
        ("Roughly two litres in every three were diesel.", ["Roughly two litres in every three"]),
        ("It used 12 kWh in 3 hours.", ["12 kWh", "3 hours"]),
        ("About 7 tonnes in every 10 came in autumn.", ["About 7 tonnes in every 10"]),
    ],
)
def test_unit_is_part_of_the_claim_unless_it_names_a_share(answer: str, texts: list[str]) -> None:
    assert [c.text for c in extract_claims("x", "", answer).claims] == texts


MONTHLY_TRIPS = ref(
    {"2025-01": 310, "2025-02": 280, "2025-03": 415, "2025-04": 390}, "count", name="trips"
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a figure its words add up ("together saw") is no one row's level, whatever row the
        # clause names last
        ("February through April together saw about 1,090 trips.", [U]),
        # words of adding up far from the figure do not make it a sum
        ("April together with a busy Easter weekend saw 500 trips.", [C]),
    ],
)
def test_added_up_is_no_one_rows_level(answer: str, expected: list[str]) -> None:
    assert_verdicts("", answer, [MONTHLY_TRIPS], expected)


MONTHLY_VOLUME = ref(
    {
        "columns": ["month", "traffic_gb", "sessions"],
        "rows": [["2025-07", 36_790.0, 5_120], ["2025-08", 37_004.4, 5_310]],
    },
    sql="SELECT month, traffic_gb, sessions FROM t",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a data size is the column its name says holds one, converted, whatever its decimals
        ("August carried 37,004 GB.", [S]),
        ("August carried 37.0 TB.", [S]),
        ("August carried 37,404 GB.", [C]),
        # never a count of other things: the sessions are not what 5,310 GB says
        ("August had 5,310 sessions.", [S]),
        ("August carried 5,310 GB.", [C]),
        # its words name the quantity the column's name says: the months it adds up
        ("July and August together carried about 73,794 GB.", [S]),
    ],
)
def test_data_sizes(answer: str, expected: list[str]) -> None:
    assert_verdicts("Traffic in July and August 2025?", answer, [MONTHLY_VOLUME], expected)


def test_a_data_size_beside_counts_only_is_unverifiable() -> None:
    sessions = ref({"2025-07": 5_120, "2025-08": 5_310}, "count", name="sessions")
    assert_verdicts("", "August carried 5,310 GB.", [sessions], [U])


QUARTER_VOLUME = ref(
    {
        "columns": ["month", "traffic_gb"],
        "rows": [["2025-07", 36_790.0], ["2025-08", 37_004.4], ["2025-09", 37_482.6]],
    },
    sql="SELECT month, traffic_gb FROM t",
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the unit written names the column's quantity, so "for the quarter" totals its months
        ("In Q3 2025 we carried about 111,300 GB for the quarter.", [S]),
        ("In Q3 2025 we carried about 121,300 GB for the quarter.", [C]),
    ],
)
def test_a_measure_names_its_quantity(answer: str, expected: list[str]) -> None:
    assert_verdicts("Traffic per month in Q3 2025?", answer, [QUARTER_VOLUME], expected)
