"""Answers written in another language's number conventions, read by the one claim grammar.

The extractor's grammar reads numbers as English writes them ("1,234.56", "15 percent", "about",
"more than", "fifteen"). A BKG's ``locale`` says how its assistant writes: for ``es``, "1.234,56 €",
"15 %", "quince por ciento", "más de", "aproximadamente". ``localized`` rewrites such text into
the grammar's forms **at the same character offsets** (separators swapped in place, words
replaced by their equivalent padded with spaces), so every claim's span still points into the
answer as written, and its text is taken from there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal

from eval_pipeline.core.models import ClaimContract

Locale = Literal["en", "es"]
LOCALES: tuple[str, ...] = ("en", "es")

_ES_UNITS = {
    "cero": 0,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    "once": 11,
    "doce": 12,
    "trece": 13,
    "catorce": 14,
    "quince": 15,
    "dieciséis": 16,
    "diecisiete": 17,
    "dieciocho": 18,
    "diecinueve": 19,
    "veinte": 20,
    "veintiuno": 21,
    "veintidós": 22,
    "veintitrés": 23,
    "veinticuatro": 24,
    "veinticinco": 25,
    "veintiséis": 26,
    "veintisiete": 27,
    "veintiocho": 28,
    "veintinueve": 29,
    "cien": 100,
}
"""Spanish number words ("un", "una", "uno" are left out: they are mostly articles)."""
_ES_TENS = {
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "setenta": 70,
    "ochenta": 80,
    "noventa": 90,
}
_ES_DIGITS = {w: v for w, v in _ES_UNITS.items() if 2 <= v <= 9}
_ARTICLE = r"(?:\s+(?:el|la|los|las|un|una))?"  # "aproximadamente el 40 %": the hedge's own
_ES_PHRASES: tuple[tuple[str, str], ...] = (
    (r"por\s+ciento", "percent"),
    (r"puntos\s+porcentuales", "points"),
    (r"m[áa]s\s+de(?:l)?", "over"),
    (r"menos\s+de(?:l)?", "under"),
    (r"al\s+menos", "at least"),
    (r"como\s+m[íi]nimo", "at least"),
    (r"como\s+m[áa]ximo", "at most"),
    (r"hasta", "up to"),
    (r"superiores?\s+al?", "over"),
    (r"inferiores?\s+al?", "under"),
    (rf"aproximadamente{_ARTICLE}", "about"),
    (rf"alrededor\s+de(?:l)?{_ARTICLE}", "around"),
    (rf"cerca\s+de(?:l)?{_ARTICLE}", "nearly"),
    (rf"casi{_ARTICLE}", "~"),
    (r"un[oa]s", "some"),
)


def _padded(match: re.Match[str], replacement: str) -> str:
    """``replacement`` in the place of the match, spaces filling the rest of its length."""
    width = match.end() - match.start()
    return (
        replacement + " " * (width - len(replacement))
        if len(replacement) <= width
        else (match.group(0))
    )


def _words(mapping: dict[str, int]) -> str:
    return "|".join(sorted(map(re.escape, mapping), key=len, reverse=True))


_ES_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+,\d+)(?![\d,.]\d)")
_ES_COMPOUND = re.compile(
    rf"\b(?P<tens>{_words(_ES_TENS)})(?:\s+y\s+(?P<ones>{_words(_ES_DIGITS)}))?\b",
    re.IGNORECASE,
)
_ES_WORD = re.compile(rf"\b(?P<word>{_words(_ES_UNITS)})\b", re.IGNORECASE)
_ES_SCALE = re.compile(r"(?<=\d)(?P<gap>\s+)(?P<scale>mil(?:lones|lón|lon)?)\b", re.IGNORECASE)
_ES_PHRASE_PATTERNS = tuple(
    (re.compile(rf"\b{pattern}\b", re.IGNORECASE), english) for pattern, english in _ES_PHRASES
)


_SWAP = str.maketrans(".,", ",.")
Region = tuple[int, int]


def _replace(
    pattern: re.Pattern[str],
    text: str,
    replacement: Callable[[re.Match[str]], str],
    regions: list[Region] | None,
) -> str:
    """``pattern.sub`` keeping the length; with ``regions``, notes where words were replaced."""

    def one(match: re.Match[str]) -> str:
        out = replacement(match)
        if regions is not None and out != match.group(0):
            regions.append(match.span())
        return out

    return pattern.sub(one, text)


def _swap_separators(match: re.Match[str]) -> str:
    return match.group(0).translate(_SWAP)


def _compound(match: re.Match[str]) -> str:
    value = _ES_TENS[match.group("tens").lower()]
    if match.group("ones"):
        value += _ES_DIGITS[match.group("ones").lower()]
    return _padded(match, str(value))


def _word(match: re.Match[str]) -> str:
    return _padded(match, str(_ES_UNITS[match.group("word").lower()]))


def _scale(match: re.Match[str]) -> str:
    suffix = "k" if match.group("scale").lower() == "mil" else "M"
    return suffix + " " * (match.end() - match.start() - 1)


def _spanish(text: str, regions: list[Region]) -> str:
    text = _replace(_ES_NUMBER, text, _swap_separators, None)
    text = _replace(_ES_SCALE, text, _scale, regions)
    text = _replace(_ES_COMPOUND, text, _compound, regions)
    text = _replace(_ES_WORD, text, _word, regions)
    for pattern, english in _ES_PHRASE_PATTERNS:
        text = _replace(pattern, text, partial(_padded, replacement=english), regions)
    return text


_REWRITES: dict[str, Callable[[str, list[Region]], str]] = {"es": _spanish}


@dataclass(frozen=True)
class Localized:
    """A text in the grammar's conventions, and the spans where it replaced words."""

    text: str
    regions: tuple[Region, ...] = ()

    def widened(self, span: tuple[int, int]) -> tuple[int, int]:
        """``span`` grown to cover every replaced word it cuts into."""
        start, end = span
        for low, high in self.regions:
            if low < start < high:
                start = low
            if low < end < high:
                end = high
        return start, end


def localized(text: str, locale: str) -> Localized:
    """``text`` in the claim grammar's number conventions, every character at its offset."""
    rewrite = _REWRITES.get(locale)
    if rewrite is None:
        return Localized(text)
    regions: list[Region] = []
    out = rewrite(text, regions)
    if len(out) != len(text):  # every rewrite keeps the length; a mistake must not shift spans
        raise AssertionError("localized text changed length")
    return Localized(out, tuple(sorted(regions)))


def as_written(contract: ClaimContract, answer: str, read: Localized) -> ClaimContract:
    """The contract extracted from ``read`` (``answer`` localized): each claim's span grown over
    the words it replaced, and its text, where it is the span's, as ``answer`` writes it."""
    claims = []
    for c in contract.claims:
        span = read.widened(c.span)
        if c.text == read.text[c.span[0] : c.span[1]]:
            c = c.model_copy(update={"span": span, "text": answer[span[0] : span[1]]})
        claims.append(c)
    return contract.model_copy(update={"claims": claims})
