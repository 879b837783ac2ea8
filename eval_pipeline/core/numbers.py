"""Numbers as people write them: a small grammar, their value, unit and implied precision.

An answer says "92.5%", "about 1,200", "$1.2M", "forty-two" or "12.5 days"; checking it against a
recomputed value needs the number, the unit it is stated in, and how precisely it was written (the
half-unit of its last stated digit), since a correctly rounded figure must never count as wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from eval_pipeline.core.models import Unit

Bound = Literal["at_least", "at_most"]

_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = (
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
WORD_VALUES: dict[str, int] = {
    "zero": 0,
    **{w: i + 1 for i, w in enumerate(_ONES)},
    **{w: i + 10 for i, w in enumerate(_TEENS)},
    **{w: (i + 2) * 10 for i, w in enumerate(_TENS)},
}
SCALE_WORDS: dict[str, float] = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
}
SUFFIX_SCALES: dict[str, float] = {"k": 1e3, "K": 1e3, "M": 1e6, "mn": 1e6, "B": 1e9, "bn": 1e9}


def _alternation(words: tuple[str, ...] | list[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_UNDER_100 = (
    rf"(?:(?:{_alternation(_TENS)})(?:[\s-](?:{_alternation(_ONES)})\b)?"
    rf"|(?:{_alternation(['zero', *_TEENS, *_ONES])}))\b"
)
_WORDS = rf"\b(?i:{_UNDER_100}(?:\s+hundred\b(?:\s+(?:and\s+)?{_UNDER_100})?)?)"
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"

NUMERAL = re.compile(
    rf"(?P<currency>[$€£¥]\s?|\b(?:USD|EUR|GBP|US\$)\s?)?(?:(?P<digits>{_DIGITS})|(?P<words>{_WORDS}))"
    r"(?:(?P<suffix>[kKMB]|\s?(?:bn|mn))(?![A-Za-z0-9])"
    r"|\s+(?P<scale>(?i:thousand|million|billion|trillion))\b)?"
)

_HEDGE_BEFORE = re.compile(
    r"(?:\b(?i:about|approximately|approx\.?|roughly|around|nearly|almost|some|circa|ca\.|"
    r"close\s+to|an\s+estimated|estimated|est\.)\s*|[~≈]\s*)$"
)
_AT_MOST_BEFORE = re.compile(
    r"(?:\b(?i:no\s+more\s+than|not\s+more\s+than|less\s+than|fewer\s+than|under|below|"
    r"at\s+most|up\s+to)\s+|(?:<=?|≤)\s*)$"
)
_AT_LEAST_BEFORE = re.compile(
    r"(?:\b(?i:more\s+than|over|above|at\s+least|greater\s+than|exceed(?:s|ed|ing)?|"
    r"in\s+excess\s+of|upwards\s+of)\s+|(?:>=?|≥)\s*)$"
)
_BOUNDS_BEFORE: tuple[tuple[re.Pattern[str], Bound], ...] = (
    (_AT_MOST_BEFORE, "at_most"),
    (_AT_LEAST_BEFORE, "at_least"),
)
_UNIT_AFTER: tuple[tuple[re.Pattern[str], Unit, float], ...] = (
    (re.compile(r"\s?%"), "percent", 1.0),
    (re.compile(r"\s*(?i:percentage\s+points?|pp\b|p\.p\.|pts?\b|points?\b)"), "points", 1.0),
    (re.compile(r"\s*(?i:basis\s+points?|bps)\b"), "points", 0.01),
    (re.compile(r"\s*(?i:per\s?cent|percent|pct)\b"), "percent", 1.0),
    (re.compile(r"\s*(?i:(?:calendar\s+|business\s+|working\s+)?days?)\b"), "days", 1.0),
    (re.compile(r"\s*(?i:(?:calendar\s+|business\s+|working\s+)?weeks?)\b"), "days", 7.0),
    (re.compile(r"\s*(?:USD|EUR|GBP|(?i:dollars?|euros?|pounds?))\b"), "currency", 1.0),
)


@dataclass(frozen=True)
class ParsedNumber:
    """One number found in a text. ``start``/``end`` cover hedge words and the unit."""

    start: int
    end: int
    numeral_start: int
    numeral_end: int
    core: str
    value: float
    unit: Unit
    precision: float
    hedged: bool
    bound: Bound | None
    in_words: bool
    scaled: bool
    factor: float = 1.0
    """What the written numeral was multiplied by (scale word, suffix, unit such as weeks)."""


def parse_word_number(text: str) -> int | None:
    """Value of a number written in words ("forty-two", "one hundred and five"), else None."""
    total = 0
    for token in re.split(r"[\s-]+", text.strip().lower()):
        if token == "and":
            continue
        if token == "hundred":
            total = max(total, 1) * 100
        elif token in WORD_VALUES:
            total += WORD_VALUES[token]
        else:
            return None
    return total


def written_precision(core: str, multiplier: float, hedged: bool) -> float:
    """Half a unit of the last digit written; a hedged round integer is precise to its last
    non-zero digit ("about 1,200" → 50), capped at 20% so "about 1,000" stays a claim."""
    digits = core.replace(",", "")
    if "." in digits:
        return 0.5 * 10.0 ** -len(digits.split(".", 1)[1]) * multiplier
    if not hedged:
        return 0.5 * multiplier
    significant = digits.rstrip("0")
    place = 10.0 ** (len(digits) - len(significant)) if significant else 1.0
    return max(0.5 * multiplier, min(0.5 * place * multiplier, 0.2 * float(digits) * multiplier))


def _unit_after(text: str, end: int) -> tuple[Unit | None, float, int]:
    tail = text[end:]
    for pattern, unit, factor in _UNIT_AFTER:
        found = pattern.match(tail)
        if found:
            return unit, factor, end + found.end()
    return None, 1.0, end


def _prefix(text: str, start: int) -> tuple[bool, Bound | None, int]:
    head = text[:start]
    for pattern, bound in _BOUNDS_BEFORE:
        found = pattern.search(head)
        if found:
            hedge = _HEDGE_BEFORE.search(head[: found.start()])
            return hedge is not None, bound, hedge.start() if hedge else found.start()
    found = _HEDGE_BEFORE.search(head)
    return (True, None, found.start()) if found else (False, None, start)


def _is_bounded(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_")


_MINUS_WORD = re.compile(r"\b(?i:minus|negative)\s+$")


def _signed_start(text: str, start: int) -> tuple[int, float]:
    word = _MINUS_WORD.search(text[:start])
    if word:
        return word.start(), -1.0
    if start >= 1 and text[start - 1] in "-−+":
        before = text[start - 2] if start >= 2 else " "
        if not (before.isalnum() or before in "_-.,"):
            return start - 1, (1.0 if text[start - 1] == "+" else -1.0)
    return start, 1.0


def scan_numbers(text: str) -> list[ParsedNumber]:
    """Every number written in ``text``, left to right, whatever it means (claim or not)."""
    found: list[ParsedNumber] = []
    for m in NUMERAL.finditer(text):
        if not _is_bounded(text, m.start(), m.end()):
            continue
        core = m.group("digits") or m.group("words")
        in_words = m.group("digits") is None
        base = parse_word_number(core) if in_words else float(core.replace(",", ""))
        if base is None:
            continue
        multiplier = 1.0
        if m.group("suffix"):
            multiplier = SUFFIX_SCALES[m.group("suffix").strip()]
        elif m.group("scale"):
            multiplier = SCALE_WORDS[m.group("scale").lower()]
        numeral_start, sign = _signed_start(text, m.start())
        unit, unit_factor, end = _unit_after(text, m.end())
        hedged, bound, start = _prefix(text, numeral_start)
        if m.group("currency"):
            unit = "currency"
        written = str(int(base)) if in_words else core
        value = sign * float(base) * multiplier * unit_factor
        precision = written_precision(written, multiplier * unit_factor, hedged)
        if unit is None:
            unit = _bare_unit(core, value, scaled=multiplier != 1.0)
        found.append(
            ParsedNumber(
                start=start,
                end=end,
                numeral_start=numeral_start,
                numeral_end=m.end(),
                core=core,
                value=value,
                unit=unit,
                precision=precision,
                hedged=hedged,
                bound=bound,
                in_words=in_words,
                scaled=multiplier != 1.0,
                factor=multiplier * unit_factor,
            )
        )
    return found


def _bare_unit(core: str, value: float, *, scaled: bool) -> Unit:
    """A number with no unit word: "0.925" reads as a fraction, "1,234" and "1.2k" as counts."""
    if scaled or "." not in core:
        return "count"
    return "fraction" if abs(value) <= 1 else "number"
