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

_ES_ONES = {
    "un": 1,
    "una": 1,
    "uno": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
}
_ES_SMALL = {
    **_ES_ONES,
    "cero": 0,
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
    "veintiún": 21,
    "veintiuna": 21,
    "veintiuno": 21,
    "veintidós": 22,
    "veintitrés": 23,
    "veinticuatro": 24,
    "veinticinco": 25,
    "veintiséis": 26,
    "veintisiete": 27,
    "veintiocho": 28,
    "veintinueve": 29,
}
"""Spanish number words read alone; "treinta y uno" and the tens take an "y" between."""
_ES_TENS = {
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "setenta": 70,
    "ochenta": 80,
    "noventa": 90,
}
_ES_HUNDREDS_MASCULINE = {
    "doscientos": 200,
    "trescientos": 300,
    "cuatrocientos": 400,
    "quinientos": 500,
    "seiscientos": 600,
    "setecientos": 700,
    "ochocientos": 800,
    "novecientos": 900,
}
_ES_HUNDREDS_PLURAL = {
    **_ES_HUNDREDS_MASCULINE,
    **{word.removesuffix("os") + "as": v for word, v in _ES_HUNDREDS_MASCULINE.items()},
}
_ES_SCALES = {"mil": 1_000, "millón": 1_000_000, "millon": 1_000_000, "millones": 1_000_000}
_ES_VALUES = {**_ES_SMALL, **_ES_TENS, **_ES_HUNDREDS_PLURAL, "cien": 100, "ciento": 100}
_ES_ARTICLES = frozenset(("un", "una", "uno"))
"""Alone they are mostly articles ("un descuento"); only in a longer number do they count."""
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
_ES_BELOW_100 = (
    rf"(?:{_words(_ES_TENS)})\b(?:\s+y\s+(?:{_words(_ES_ONES)})\b)?|(?:{_words(_ES_SMALL)})\b"
)
_ES_BELOW_1000 = (
    rf"ciento\s+(?:{_ES_BELOW_100})|(?:{_words(_ES_HUNDREDS_PLURAL)})\b(?:\s+(?:{_ES_BELOW_100}))?"
    rf"|cien\b|{_ES_BELOW_100}"
)
"""Below a thousand: "ciento" only before tens or ones (alone it is "por ciento")."""
_ES_BELOW_MILLION = (
    rf"(?:(?:{_ES_BELOW_1000})\s+)?mil\b(?:\s+(?:{_ES_BELOW_1000}))?|{_ES_BELOW_1000}"
)
_ES_MILLIONS = r"(?:millones|millón|millon)\b(?:\s+de(?=\s+(?:euros?\b|€)))?"
""""millones", with the "de" Spanish puts before a currency ("1,5 millones de euros")."""
_ES_WORDS = re.compile(
    rf"\b(?:(?:(?:{_ES_BELOW_MILLION})\s+)?{_ES_MILLIONS}(?:\s+(?:{_ES_BELOW_MILLION}))?"
    rf"|{_ES_BELOW_MILLION})",
    re.IGNORECASE,
)
"""A number in Spanish words, "cinco" to "dos millones trescientos mil cuarenta y una"."""
_ES_SCALE = re.compile(rf"(?<=\d)(?P<gap>\s+)(?P<scale>mil\b|{_ES_MILLIONS})", re.IGNORECASE)
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


def _spanish_number(tokens: list[str]) -> int:
    """The value of the words of a number :data:`_ES_WORDS` matched: hundreds, tens and ones
    add up within a group, "mil" multiplies the group, "millones" closes it into the total."""
    total, group = 0, 0
    for token in tokens:
        if token in _ES_VALUES:
            group += _ES_VALUES[token]
        elif token == "mil":
            group = max(group, 1) * 1_000
        elif token in _ES_SCALES:
            total += max(group, 1) * 1_000_000
            group = 0
    return total + group


def _number_words(match: re.Match[str]) -> str:
    """The number as digits; one ending in a scale word keeps it as a suffix ("dos mil" → "2k",
    "un millón" → "1M"), so its written precision is the scale's, as "two thousand"'s is."""
    tokens = [t for t in match.group(0).lower().split() if t not in ("y", "de")]
    if len(tokens) == 1 and tokens[0] in _ES_ARTICLES:
        return match.group(0)
    value = _spanish_number(tokens)
    if tokens[-1] in _ES_SCALES:
        scale = _ES_SCALES[tokens[-1]]
        return _padded(match, f"{value // scale}{'k' if scale == 1_000 else 'M'}")
    return _padded(match, str(value))


def _scale(match: re.Match[str]) -> str:
    suffix = "k" if match.group("scale").lower() == "mil" else "M"
    return suffix + " " * (match.end() - match.start() - 1)


def _spanish(text: str, regions: list[Region]) -> str:
    text = _replace(_ES_NUMBER, text, _swap_separators, None)
    text = _replace(_ES_SCALE, text, _scale, regions)
    text = _replace(_ES_WORDS, text, _number_words, regions)
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
