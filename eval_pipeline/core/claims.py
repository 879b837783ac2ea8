"""First oracle pass: enumerate every numeric claim of an answer into a contract (C1, C2, …).

A number is a claim unless it only qualifies what is said: an echo of the question ("top 5"), a
date or period ("in 2025", "2026-03", "Q3"), an ordinal or rank, an identifier, contact details.
Missing a claim hides an error; inventing one can accuse a right answer, so the filters below are
as specific as possible and everything else stays a claim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from eval_pipeline.core.models import Claim, ClaimContract
from eval_pipeline.core.numbers import ParsedNumber, parse_word_number, scan_numbers, written_precision

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_ORDINAL_SUFFIX = r"(?:st|nd|rd|th)"
_NOT_CLAIMS = re.compile(
    "|".join(
        (
            r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",  # email
            r"(?i:https?://|www\.)\S+",  # URL
            r"\b\d{4}-\d{1,2}(?:-\d{1,2})?(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b",  # ISO date / month
            r"\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}/\d{1,2}(?:/\d{1,2})?\b",  # other dates
            rf"\b{_MONTHS}\s+\d{{1,2}}{_ORDINAL_SUFFIX}?\b(?:,?\s+\d{{4}}\b)?",  # March 1, 2026
            rf"\b\d{{1,2}}{_ORDINAL_SUFFIX}?\s+(?:of\s+)?{_MONTHS}(?:,?\s+\d{{4}}\b)?",  # 1 March
            rf"\b{_MONTHS},?\s+\d{{4}}\b",  # March 2026
            r"\b(?:Q[1-4]|H[12])\s+\d{4}\b|\b\d{4}\s+(?:Q[1-4]|H[12])\b",  # Q3 2025
            r"\b\d{1,2}:\d{2}(?::\d{2})?\b",  # time of day
            rf"\b\d+{_ORDINAL_SUFFIX}\b",  # 1st, 22nd
            r"#\s?\d+|\bNo\.\s?\d+|\b(?i:rank(?:ed)?|position|place)\s+#?\d+",  # ranks
            r"\b[A-Za-z]+[-_/#]?\d[\w-]*|\b\d+[-_][A-Za-z][\w-]*",  # identifiers, Q3, FY2025
            r"(?<![\d.,])\b0\d+\b(?![.,]\d)",  # zero-padded ids
        )
    )
)
_SMALL_WORDS = r"(?i:two|three|four|five|six|seven|eight|nine|ten)"
_QUALIFIERS = re.compile(
    "|".join(
        (
            r"\b(?i:last|past|next|previous|prior|trailing|rolling|first)\s+\d+\s+"
            r"(?i:days?|weeks?|months?|quarters?|years?)\b",  # period qualifiers
            r"\b\d+-(?i:day|week|month|quarter|year)s?\b",  # "30-day"
            rf"\b(?i:top|bottom)\s+(?:\d+|{_SMALL_WORDS})\b",  # ranking qualifiers
            r"\b(?i:week|wk|quarter|period|month)\s+\d{1,2}\b",  # "week 12"
        )
    )
)
_PHONE = re.compile(
    r"(?<![\w.,])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)\s?)?"
    r"(?:\d{3}\.\d{3}\.\d{4}|\d{2,4}(?:[\s-]\d{2,4}){1,4})(?![\w.]?\d)"
)
_ABBREVIATIONS = frozenset({"approx", "vs", "e.g", "i.e", "etc", "ca", "no", "est", "mr", "dr"})
_MIN_PHONE_DIGITS = 7


def non_claim_spans(text: str, *, qualifiers: bool = True) -> list[tuple[int, int]]:
    """Spans of ``text`` that hold numbers which are never claims (dates, ids, contacts…), and
    with ``qualifiers`` the ones that only scope a statement ("last 6 months", "top 5")."""
    spans = [m.span() for m in _NOT_CLAIMS.finditer(text)]
    if qualifiers:
        spans += [m.span() for m in _QUALIFIERS.finditer(text)]
    spans += [
        m.span()
        for m in _PHONE.finditer(text)
        if sum(ch.isdigit() for ch in m.group()) >= _MIN_PHONE_DIGITS
    ]
    return spans


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence (or line) bounds: a claim and the label it belongs to share a sentence."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"[.!?]+(?=\s|$)|\n+", text):
        if m.group().startswith("."):
            word = re.search(r"([\w.]+)$", text[start : m.start()])
            if word and word.group(1).lower() in _ABBREVIATIONS:
                continue
        if text[start : m.end()].strip():
            spans.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _overlaps(span: tuple[int, int], others: Iterable[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in others)


