"""Parsing numbers as people write them: value, unit, stated precision, hedges and bounds."""

from __future__ import annotations

import pytest

from eval_pipeline.core.claims.numbers import parse_word_number, scan_numbers, written_precision

PARSES: list[tuple[str, str, float, str, float, bool]] = [
    # text, claim text, value, unit, precision, hedged
    ("92.5%", "92.5%", 92.5, "percent", 0.05, False),
    ("92.47 %", "92.47 %", 92.47, "percent", 0.005, False),
    ("92.5 percent", "92.5 percent", 92.5, "percent", 0.05, False),
    ("92.5 per cent", "92.5 per cent", 92.5, "percent", 0.05, False),
    ("92.0%", "92.0%", 92.0, "percent", 0.05, False),
    ("0.92%", "0.92%", 0.92, "percent", 0.005, False),
    ("0.925", "0.925", 0.925, "fraction", 0.0005, False),
    ("1.5", "1.5", 1.5, "number", 0.05, False),
    ("1,234", "1,234", 1234.0, "count", 0.5, False),
    ("1234", "1234", 1234.0, "count", 0.5, False),
    ("1,234,567.5", "1,234,567.5", 1234567.5, "number", 0.05, False),
    ("1.2k", "1.2k", 1200.0, "count", 50.0, False),
    ("3K", "3K", 3000.0, "count", 500.0, False),
    ("1.23 thousand", "1.23 thousand", 1230.0, "count", 5.0, False),
    ("3.4 million", "3.4 million", 3_400_000.0, "count", 50_000.0, False),
    ("2 billion", "2 billion", 2e9, "count", 5e8, False),
    ("2.5bn", "2.5bn", 2.5e9, "count", 5e7, False),
    ("$1.2M", "$1.2M", 1_200_000.0, "currency", 50_000.0, False),
    ("$1,234,567", "$1,234,567", 1_234_567.0, "currency", 0.5, False),
    ("€300", "€300", 300.0, "currency", 0.5, False),
    ("300 USD", "300 USD", 300.0, "currency", 0.5, False),
    ("USD 1.2M", "USD 1.2M", 1_200_000.0, "currency", 50_000.0, False),
    ("EUR 300k", "EUR 300k", 300_000.0, "currency", 500.0, False),
    ("£4.5bn", "£4.5bn", 4.5e9, "currency", 5e7, False),
    ("minus 3 points", "minus 3 points", -3.0, "points", 0.5, False),
    ("negative 12", "negative 12", -12.0, "count", 0.5, False),
    ("twenty one", "twenty one", 21.0, "count", 0.5, False),
    ("-5.2%", "-5.2%", -5.2, "percent", 0.05, False),
    ("−3", "−3", -3.0, "count", 0.5, False),
    ("-$1.2M", "-$1.2M", -1_200_000.0, "currency", 50_000.0, False),
    ("12.5 days", "12.5 days", 12.5, "days", 0.05, False),
    ("1 day", "1 day", 1.0, "days", 0.5, False),
    ("3 business days", "3 business days", 3.0, "days", 0.5, False),
    ("2 weeks", "2 weeks", 2.0, "weeks", 0.5, False),
    ("5.0h", "5.0h", 5.0, "hours", 0.05, False),
    ("300 minutes", "300 minutes", 300.0, "minutes", 0.5, False),
    ("45 mins", "45 mins", 45.0, "minutes", 0.5, False),
    ("a 25.9-minute", "25.9-minute", 25.9, "minutes", 0.05, False),
    ("3 hrs", "3 hrs", 3.0, "hours", 0.5, False),
    ("2.5 days", "2.5 days", 2.5, "days", 0.05, False),
    ("3x", "3x", 3.0, "ratio", 0.5, False),
    ("1.9 times", "1.9 times", 1.9, "ratio", 0.05, False),
    ("5 percentage points", "5 percentage points", 5.0, "points", 0.5, False),
    ("2.5 pp", "2.5 pp", 2.5, "points", 0.05, False),
    ("25 bps", "25 bps", 0.25, "points", 0.005, False),
    ("forty-two", "forty-two", 42.0, "count", 0.5, False),
    ("forty two", "forty two", 42.0, "count", 0.5, False),
    ("Seventeen", "Seventeen", 17.0, "count", 0.5, False),
    ("ninety-nine", "ninety-nine", 99.0, "count", 0.5, False),
    ("one hundred", "one hundred", 100.0, "count", 0.5, False),
    ("one hundred and five", "one hundred and five", 105.0, "count", 0.5, False),
    ("twelve percent", "twelve percent", 12.0, "percent", 0.5, False),
    ("forty-two thousand", "forty-two thousand", 42_000.0, "count", 500.0, False),
    # a hedge keeps the written precision; the oracle widens it (tolerance.py)
    ("about 1,200", "about 1,200", 1200.0, "count", 0.5, True),
    ("~1,230", "~1,230", 1230.0, "count", 0.5, True),
    ("approximately 92%", "approximately 92%", 92.0, "percent", 0.5, True),
    ("roughly 90%", "roughly 90%", 90.0, "percent", 0.5, True),
    ("around $1.2M", "around $1.2M", 1_200_000.0, "currency", 50_000.0, True),
    ("nearly forty", "nearly forty", 40.0, "count", 0.5, True),
    ("almost 2,000", "almost 2,000", 2000.0, "count", 0.5, True),
    ("some 300", "some 300", 300.0, "count", 0.5, True),
    ("approx. 1,200", "approx. 1,200", 1200.0, "count", 0.5, True),
    ("about 1,234", "about 1,234", 1234.0, "count", 0.5, True),
    # a physical unit symbol makes a measure of unknown unit, not a fraction or a count
    ("4.2 GWh", "4.2 GWh", 4.2, "number", 0.05, False),
    ("12kW", "12kW", 12.0, "number", 0.5, False),
    ("1.2MW", "1.2MW", 1.2, "number", 0.05, False),
    ("0.42 kg", "0.42 kg", 0.42, "number", 0.005, False),
    ("50Hz", "50Hz", 50.0, "number", 0.5, False),
    ("22°C", "22°C", 22.0, "number", 0.5, False),
    ("about 450 kWh", "about 450 kWh", 450.0, "number", 0.5, True),
]


@pytest.mark.parametrize(("text", "claim", "value", "unit", "precision", "hedged"), PARSES)
def test_parse(
    text: str, claim: str, value: float, unit: str, precision: float, hedged: bool
) -> None:
    (number,) = scan_numbers(f"It is {text} today")
    assert f"It is {text} today"[number.start : number.end] == claim, number
    assert number.value == pytest.approx(value)
    assert number.unit == unit
    assert number.precision == pytest.approx(precision)
    assert number.hedged is hedged


@pytest.mark.parametrize(
    ("text", "bound", "value"),
    [
        ("more than 1,600", "at_least", 1600.0),
        ("over 90%", "at_least", 90.0),
        ("at least 42", "at_least", 42.0),
        ("well above 80%", "at_least", 80.0),
        ("fewer than 10", "at_most", 10.0),
        ("less than 5%", "at_most", 5.0),
        ("no more than 3", "at_most", 3.0),
        ("up to 12 days", "at_most", 12.0),
        ("just under 40%", "at_most", 40.0),
        # after a verb of movement "up to" states the new level, not a ceiling
        ("it edged up to 17.9 minutes", None, 17.9),
        ("the backlog crept back up to 84", None, 84.0),
        ("42", None, 42.0),
    ],
)
def test_bounds(text: str, bound: str | None, value: float) -> None:
    (number,) = scan_numbers(text)
    assert (number.bound, number.value) == (bound, value)
    assert number.precision == 0.5 or number.unit != "count"


def test_bound_precision_is_not_widened() -> None:
    (number,) = scan_numbers("more than 1,000 items")
    assert number.precision == 0.5 and not number.hedged


@pytest.mark.parametrize(
    "text",
    ["S42", "5G", "1st", "x2", "v1", "abc_12", "3D"],
)
def test_numbers_glued_to_letters_are_not_numbers(text: str) -> None:
    assert scan_numbers(f"see {text} here") == []


def test_scan_finds_every_number_in_order() -> None:
    text = "West: 92.5%, East: 88.1% and 1,234 sites (about 1.2k), forty-two done."
    assert [n.value for n in scan_numbers(text)] == [92.5, 88.1, 1234.0, 1200.0, 42.0]


def test_sentence_end_period_is_not_a_decimal() -> None:
    (number,) = scan_numbers("We completed 42.")
    assert (number.value, number.unit, number.end) == (42.0, "count", 15)


def test_hyphen_between_digits_is_not_a_minus_sign() -> None:
    assert [n.value for n in scan_numbers("2026-03")] == [2026.0, 3.0]


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("zero", 0),
        ("nineteen", 19),
        ("twenty", 20),
        ("twenty-one", 21),
        ("Ninety Nine", 99),
        ("one hundred", 100),
        ("two hundred and thirty", 230),
        ("lots", None),
    ],
)
def test_parse_word_number(words: str, value: int | None) -> None:
    assert parse_word_number(words) == value


@pytest.mark.parametrize(
    ("core", "multiplier", "precision", "place"),
    [
        ("92.5", 1.0, 0.05, 0.1),
        ("1,234", 1.0, 0.5, 1.0),
        ("1,200", 1.0, 0.5, 100.0),
        ("1.2", 1000.0, 50.0, 100.0),
        ("100", 1.0, 0.5, 100.0),
        ("1000", 1.0, 0.5, 1000.0),
        ("0", 1.0, 0.5, 1.0),
        ("968", 1.0, 0.5, 1.0),
    ],
)
def test_written_precision_and_last_significant_place(
    core: str, multiplier: float, precision: float, place: float
) -> None:
    assert written_precision(core, multiplier) == (pytest.approx(precision), pytest.approx(place))


@pytest.mark.parametrize(
    ("text", "factor"),
    [("42", 1.0), ("1.2k", 1e3), ("3 million", 1e6), ("2 weeks", 1.0), ("25 bps", 0.01)],
)
def test_factor_records_what_the_numeral_was_multiplied_by(text: str, factor: float) -> None:
    (number,) = scan_numbers(text)
    assert number.factor == pytest.approx(factor)


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        # "times" with no compared quantity after it counts occurrences
        ("The van was serviced 14 times in 2025.", "count"),
        ("Bay 3 flooded 6 times, each after heavy rain.", "count"),
        ("Each driver refuelled 2.5 times a week.", "count"),
        ("The hall was booked 40 times.", "count"),
        # a compared quantity after it, or a change before it, makes it a ratio
        ("Bay 3 flooded 6 times as often as Bay 4.", "ratio"),
        ("The hall earned 4 times the annex's takings.", "ratio"),
        ("The hall earned 4 times Annex B's takings.", "ratio"),
        ("Bookings grew about 3 times in 2025.", "ratio"),
        ("It is 1.9x.", "ratio"),
    ],
)
def test_times_counted_or_a_ratio(text: str, unit: str) -> None:
    found = [n for n in scan_numbers(text) if text[n.start : n.end].endswith(("times", "x"))]
    assert [n.unit for n in found] == [unit]
