"""Numbers the way people write them, each format true to the value within the precision it states.

The demo bot varies its number formats so the evaluator's claim extraction meets real-world
variety ("1.2k", "about 1,200", "forty-two", "0.925", "92.5 percent"). Every format offered here is
verifiable: the displayed value equals the fact's value rounded to the precision the display
implies, so a correct answer never reads as a wrong one.
"""

from __future__ import annotations

import random
from decimal import ROUND_HALF_UP, Decimal

from eval_pipeline.demo.bot.plans import Fact, FactUnit

_ONES = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]  # fmt: skip
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _decimal(value: float) -> Decimal:
    return Decimal(repr(float(value)))


def rounded(value: float, decimals: int) -> Decimal:
    """``value`` rounded half-up at ``decimals`` places, from its shortest repr (no float noise)."""
    return _decimal(value).quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP)


def is_tie(value: float, decimals: int) -> bool:
    """Whether ``value`` sits exactly halfway between two displays at ``decimals`` places.

    Optional, coarser formats skip ties: "1.3k" for 1,250 is right by half-up rounding but only
    just, and a checker using a strict tolerance would call it wrong.
    """
    quantum = Decimal(1).scaleb(-decimals)
    return abs(rounded(value, decimals) - _decimal(value)) * 2 == quantum


def fixed(value: float, decimals: int, *, grouped: bool = True) -> str:
    """``value`` at exactly ``decimals`` places, with thousands commas when ``grouped``."""
    number = rounded(value, decimals)
    if number == 0:
        number = abs(number)
    return f"{number:{',' if grouped else ''}.{decimals}f}"


def significant(value: float, digits: int) -> Decimal | None:
    """``value`` rounded half-up to ``digits`` significant digits; None on a tie or for zero."""
    number = _decimal(value)
    if number == 0:
        return None
    decimals = digits - 1 - number.adjusted()
    return None if is_tie(value, decimals) else rounded(value, decimals)


def number_words(value: int) -> str:
    """An integer in 0–99 in English words, tens and ones hyphenated ("forty-two")."""
    if not 0 <= value < 100:
        raise ValueError(f"number_words covers 0..99, got {value}")
    if value < 20:
        return _ONES[value]
    tens, ones = divmod(value, 10)
    return _TENS[tens] + ("" if ones == 0 else "-" + _ONES[ones])


def render(value: float, unit: FactUnit, decimals: int) -> str:
    """The plain, canonical display of a value in its unit (what a careful analyst would write)."""
    text = fixed(abs(value), decimals)
    sign = "-" if value < 0 and text.strip("0.,") else ""
    if unit == "percent":
        return f"{sign}{text}%"
    if unit == "currency":
        return f"{sign}${text}"
    if unit == "days":
        return f"{sign}{text} {'day' if text == '1' else 'days'}"
    return sign + text


def _coarser(value: float, decimals: int, template: str) -> str | None:
    """``template`` filled with ``value`` at fewer places, or None when that rounding is a tie."""
    return None if is_tie(value, decimals) else template.format(fixed(value, decimals))


def _scaled(value: float, scale: int, decimals: int, template: str) -> str | None:
    """``value / scale`` in ``template`` ("{}k"); None on a tie or when it reaches 1,000 units."""
    if is_tie(value / scale, decimals) or abs(rounded(value / scale, decimals)) >= 1000:
        return None
    return template.format(fixed(value / scale, decimals))


def _percent_formats(value: float, decimals: int) -> list[str | None]:
    formats: list[str | None] = [
        render(value, "percent", decimals),
        f"{fixed(value, decimals)} percent",
    ]
    if decimals >= 1:
        formats.append(_coarser(value, decimals - 1, "{}%"))
        formats.append(_coarser(value, 0, "about {}%"))
    if value >= 2:
        formats.append(_coarser(value / 100, 3, "{}"))
    return formats


def _count_formats(value: float, decimals: int) -> list[str | None]:
    if decimals > 0:
        return _number_formats(value, decimals)
    magnitude = abs(value)
    formats: list[str | None] = [fixed(value, 0), fixed(value, 0, grouped=False)]
    integer = int(rounded(value, 0))
    if 0 <= integer < 100:
        formats.append(number_words(integer))
    if 1000 <= magnitude < 1_000_000:
        formats += [_scaled(value, 1000, 1, "{}k"), _scaled(value, 1000, 2, "{} thousand")]
    if magnitude >= 1_000_000:
        formats += [
            _scaled(value, 1_000_000, 1, "{} million"),
            _scaled(value, 1_000_000, 2, "{} million"),
        ]
    hedged = significant(value, 2) if magnitude >= 100 else None
    if hedged is not None:
        formats.append(f"about {hedged:,.0f}")
    approximate = significant(value, 3) if magnitude >= 1000 else None
    if approximate is not None:
        formats.append(f"~{approximate:,.0f}")
    return formats


def _currency_formats(value: float, decimals: int) -> list[str | None]:
    formats: list[str | None] = [render(value, "currency", decimals)]
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if 10_000 <= magnitude < 1_000_000:
        formats.append(_scaled(magnitude, 1000, 1, sign + "${}k"))
    if magnitude >= 1_000_000:
        formats += [
            _scaled(magnitude, 1_000_000, 1, sign + "${}M"),
            _scaled(magnitude, 1_000_000, 2, sign + "${}M"),
        ]
    return formats


def _days_formats(value: float, decimals: int) -> list[str | None]:
    formats: list[str | None] = [render(value, "days", decimals)]
    if decimals >= 1 and not is_tie(value, decimals - 1):
        formats.append(render(value, "days", decimals - 1))
    if decimals >= 1 and abs(value) >= 2 and not is_tie(value, 0):
        formats.append("about " + render(value, "days", 0))
    return formats


def _number_formats(value: float, decimals: int) -> list[str | None]:
    formats: list[str | None] = [fixed(value, decimals)]
    if abs(value) >= 1000:
        formats.append(fixed(value, decimals, grouped=False))
    return formats


def true_formats(fact: Fact) -> list[str]:
    """Every display of ``fact`` offered here; each is true within the precision it states."""
    builders = {
        "percent": _percent_formats,
        "count": _count_formats,
        "currency": _currency_formats,
        "days": _days_formats,
        "number": _number_formats,
    }
    offered = builders[fact.unit](fact.value, fact.decimals)
    return list(dict.fromkeys(text for text in offered if text is not None))


def format_fact(fact: Fact, rng: random.Random) -> str:
    """One of ``true_formats(fact)``, chosen by ``rng`` so a seeded answer is reproducible."""
    return rng.choice(true_formats(fact))
