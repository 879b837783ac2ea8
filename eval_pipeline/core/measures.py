"""Units of measure (mass, length, area, volume, energy, power, data…): how each is spelled after a
number and in a column name, what it measures, and its size in its kind's base unit.

A number written with one ("6,860 t", "4.2 GWh", "12 bushels") or under a header naming one
states that measure, never a count of other things or an amount of money; a column whose name
says the measure ("net_tonnes", "weight_kg", "generation_mwh") is where it is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """A unit of measure: its kind and its size in the kind's base unit."""

    kind: str
    size: float
    name: str


_PREFIXES = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

# (kind, size, spellings after a number (case-sensitive regex), spellings in a name (lower case))
_TABLE: tuple[tuple[str, float, str, str], ...] = (
    ("mass", 1000.0, r"t|tonnes?|tons?|metric\s+tons?", r"tonnes?|tons?|tonnage"),
    ("mass", 1e6, r"kt|kilotonnes?", r"kt|kilotonnes?"),
    ("mass", 1e9, r"Mt|megatonnes?", r"megatonnes?"),
    ("mass", 1.0, r"kg|kgs|kilograms?|kilos?", r"kg|kgs|kilograms?|kilos?"),
    ("mass", 0.001, r"grams?", r"grams?"),
    ("mass", 0.45359237, r"lbs?", r"lbs?"),
    ("mass", 0.028349523125, r"oz", r"oz|ounces?"),
    ("length", 1000.0, r"km|kilomet(?:re|er)s?", r"km|kms|kilomet(?:re|er)s?"),
    ("length", 1.0, r"met(?:re|er)s?", r"met(?:re|er)s?"),
    ("length", 0.01, r"cm|centimet(?:re|er)s?", r"cm|centimet(?:re|er)s?"),
    ("length", 0.001, r"mm|millimet(?:re|er)s?", r"mm|millimet(?:re|er)s?"),
    ("length", 1609.344, r"mi|miles?", r"mi|miles?|mileage"),
    ("length", 0.3048, r"ft|feet|foot", r"ft|feet"),
    ("area", 1.0, r"m²|m2|sq\.?\s?m|square\s+met(?:re|er)s?", r"m2|sqm|sq_m"),
    ("area", 1e6, r"km²|km2|sq\.?\s?km|square\s+kilomet(?:re|er)s?", r"km2|sq_km"),
    ("area", 1e4, r"ha|hectares?", r"ha|hectares?"),
    ("area", 4046.8564224, r"acres?", r"acres?|acreage"),
    ("area", 0.09290304, r"sq\.?\s?ft|square\s+f(?:ee|oo)t", r"sqft|sq_ft|square_feet"),
    ("volume", 1.0, r"L|litres?|liters?", r"litres?|liters?"),
    ("volume", 0.001, r"mL|ml|millilit(?:re|er)s?", r"ml|millilit(?:re|er)s?"),
    ("volume", 100.0, r"hL|hl|hectolit(?:re|er)s?", r"hl|hectolit(?:re|er)s?"),
    ("volume", 1000.0, r"m³|m3|cubic\s+met(?:re|er)s?", r"m3|cubic_met(?:re|er)s?"),
    ("volume", 3.785411784, r"gal|gallons?", r"gal|gallons?"),
    ("volume", 158.987294928, r"bbl|barrels?", r"bbl|barrels?"),
    ("volume", 35.23907016688, r"bu|bushels?", r"bu|bushels?"),
    ("temperature_c", 1.0, r"°C|degrees\s+C(?:elsius)?", r"celsius|degc"),
    ("temperature_f", 1.0, r"°F|degrees\s+F(?:ahrenheit)?", r"fahrenheit|degf"),
    ("frequency", 1.0, r"Hz", r"hz"),
    ("data", 1e3, r"KB|kB|kilobytes?", r"kb|kilobytes?"),
    ("data", 1e6, r"MB|megabytes?", r"mb|megabytes?"),
    ("data", 1e9, r"GB|gigabytes?", r"gb|gigabytes?"),
    ("data", 1e12, r"TB|terabytes?", r"tb|terabytes?"),
)
_SI: tuple[tuple[str, float, str], ...] = (
    ("energy", 1.0, "Wh"),
    ("peak power", 1.0, "Wp"),
    ("apparent power", 1.0, "VA"),
    ("power", 1.0, "W"),
    ("voltage", 1.0, "V"),
    ("energy", 1 / 3600, "J"),
)
_ONE_LETTER_SI = frozenset({"W", "V", "J"})
"""Symbols that are a unit after a number only with a prefix ("12 kW", not "12 W" of a list)."""


def _spellings() -> list[tuple[str, str, Measure]]:
    """(after-number regex, name regex, measure) of every unit."""
    rows = [
        (written, named, Measure(kind, size, written.split("|")[0]))
        for kind, size, written, named in _TABLE
    ]
    for kind, size, symbol in _SI:
        for prefix, factor in _PREFIXES.items():
            if not prefix and symbol in _ONE_LETTER_SI:
                continue
            name = f"{prefix}{symbol}"
            rows.append((re.escape(name), name.lower(), Measure(kind, size * factor, name)))
    return rows


_UNITS = _spellings()
_AFTER = [(re.compile(rf"(?:{written})(?![A-Za-z²³])"), measure) for written, _, measure in _UNITS]
TEXT_SYMBOL = "(?:" + "|".join(f"(?:{written})" for written, _, _ in _UNITS) + r")(?![A-Za-z²³])"
"""Any unit of measure as written after a number ("t", "tonnes", "kWh", "°C", "sq ft")."""

_NAME_WORDS = [
    (re.compile(rf"(?:^|[_\s])(?:{named})(?=$|[_\s])", re.IGNORECASE), measure)
    for _, named, measure in _UNITS
]
_PER = re.compile(r"(?:^|[_\s])(?:per|a|each)[_\s]+$", re.IGNORECASE)
_TRAILING = re.compile(rf"[ \t]?(?<![A-Za-z])(?P<unit>{TEXT_SYMBOL})\W*$")


def measure_written(text: str) -> Measure | None:
    """The unit of measure ending a claim's text ("about 6,860 t", "4.2 GWh"), else None."""
    found = _TRAILING.search(text)
    if found is None:
        return None
    unit = found.group("unit")
    return next((m for pattern, m in _AFTER if pattern.fullmatch(unit)), None)


def measures_named(name: str) -> tuple[Measure | None, Measure | None]:
    """(what a column or function name says its values are in, what they are per): "net_tonnes"
    → (tonnes, None); "avg_price_per_tonne" → (None, tonnes); "yield_bu_per_acre" → (bushels,
    acres). A name saying two measures of different kinds outside "per" says none."""
    of: Measure | None = None
    per: Measure | None = None
    lowered = name.lower()
    for pattern, measure in _NAME_WORDS:
        for found in pattern.finditer(lowered):
            if _PER.search(lowered[: found.start() + 1]):
                per = per or measure
            elif of is None or of.kind == measure.kind:
                of = of or measure
    return of, per


_HEADER_UNIT = re.compile(rf"(?<![A-Za-z/])(?<!per )(?P<unit>{TEXT_SYMBOL})")
_PER_ITEM = re.compile(r"[ \t]*(?:/|\b(?:per|an?|each)\s+)(?=[A-Za-z])")


def measure_in_header(header: str) -> Measure | None:
    """The unit of measure a table's column header gives its cells ("Net t", "Weight (kg)");
    none when it is what they are per ("$/t", "Price per tonne") or the header is of money."""
    if "$" in header or "%" in header:
        return None
    found = _HEADER_UNIT.search(header) or _HEADER_UNIT.search(header.lower())  # "Litres"
    return measure_written(found.group("unit")) if found else None


EACH_BEFORE = re.compile(
    r"\b(?i:each)[^\S\n]+(?!(?i:of|year|month|week|quarter|day)\b)(?:[a-z]+[^\S\n]+){1,2}$"
)
"""Before a figure of every one of the items: "and each produced about 5,856 MWh"."""


def per_item_after(text: str, at: int) -> bool:
    """Is the figure ending at ``at`` written per item ("32 t a load", "4.1 kWh per day")?"""
    return _PER_ITEM.match(text, at) is not None
