"""Numbers that belong to a name ("Route 66 Urgent Care", "Flex 12", "Boeing 737-800"): part
of what is talked about, never a stated value."""

from __future__ import annotations

import re
from collections import Counter

from eval_pipeline.core.claims.layout import Layout
from eval_pipeline.core.claims.numbers import HEDGE_BEFORE, MONTHS

__all__ = ["name_numbers"]

# Capitalised words that start a sentence or qualify, never a name a number belongs to.
_NOT_NAME_HEADS = frozenset(
    (
        *("The", "A", "An", "In", "On", "At", "By", "Of", "For", "From", "To", "Since", "And"),
        *("Or", "But", "With", "About", "Around", "Over", "Under", "Only", "Just", "All"),
        *("Top", "Bottom", "Week", "Day", "Month", "Year", "Quarter", "Q", "H", "FY", "Total"),
        *("Overall", "Network", "Group", "Average", "Mean", "Median", "Yes", "No", "Up"),
        *("Down", "Then", "That", "This", "These", "Those", "It", "Its", "We", "Our"),
        *("They", "There", "Here", "Each", "Every", "Both", "Some", "Roughly", "Nearly"),
        *("Almost", "Approximately", "Between", "After", "Before", "During", "Across"),
    )
)
_NAME_NUMBER = re.compile(
    r"(?<![\w'’])(?P<head>[A-Z][\w&'’.-]*)[ \t]+(?P<number>\d{1,4})\b(?![.,]\d|%|\s*[-–]\s*\d)"
)
_NAME_CONTINUES = re.compile(r"(?:[ \t]+[A-Z][\w&'’.-]*|-[A-Za-z0-9]+)")
_VALUE_FOLLOWS = re.compile(r"[ \t]*:[ \t]*[$€£]?\d|[ \t]+[$€£]\d")
"""A value right after "Name N" ("Core 3: 53 cancellations", "Pro 2 $36.37"): a value is not
written right after another, so N is the name's ("West 42 37" or "East 37 (88.1%)" is left
alone: a count and its share may stand side by side, and so may "Riverside 412 — 12%")."""
_VERB_FOLLOWS = re.compile(
    r"[ \t]+(?:was|is|were|are|had|has|have|did|does|will|would|made|led|sold|ran|runs|"
    r"[a-z]+ed|alone|also|only)\b"
)
"""A verb right after "Name N" ("Statistics 2 made $5,130", "Renters 100 had just 22"): a
value never stands between its subject and the verb without a word it counts."""
_ARTICLE_BEFORE = re.compile(r"\b(?i:the|a|an|per|on|each|every)[ \t]+$")
_WORD_FOLLOWS = re.compile(r"[ \t]+[a-z]")
"""With ``_ARTICLE_BEFORE``: "the Student 6 plan", "per Spin 45 class"."""
_MODEL_NUMBER = re.compile(
    r"(?<![\w'’])(?P<head>[A-Z][\w&'’.-]*)[ \t]+(?P<number>\d{1,4}-\d{2,4})\b"
    r"(?![.,]\d|%|[ \t]*(?i:days?|hours?|minutes?|weeks?|months?|years?|percent|points?)\b)"
)
"""A model or type number: "Boeing 737-800", "Dash 8-400" (not a range "North 10-12 days")."""


def _is_head(head: str) -> bool:
    """A word a number can be named after: not a function word, a month or a hedge."""
    return (
        head not in _NOT_NAME_HEADS
        and not head.endswith(("'s", "’s", "'", "’"))
        and not re.fullmatch(MONTHS, head)
        and HEDGE_BEFORE.search(head + " ") is None
    )


def _written_as_name(text: str, m: re.Match[str], written: Counter[tuple[str, str]]) -> bool:
    """ "Name N" written twice, followed by a value or a verb, or after an article and
    before a word."""
    return (
        written[(m.group("head"), m.group("number"))] >= 2
        or _VALUE_FOLLOWS.match(text, m.end()) is not None
        or _VERB_FOLLOWS.match(text, m.end()) is not None
        or (
            _ARTICLE_BEFORE.search(text, max(0, m.start() - 10), m.start()) is not None
            and _WORD_FOLLOWS.match(text, m.end()) is not None
        )
    )


def name_numbers(text: str, question: str, layout: Layout) -> list[tuple[int, int]]:
    """Numbers that belong to a name: "Route 66 Urgent Care", "Clinic 7's", "Ram 1500" in a
    table's label cell, a "Name N" the question or another part of the answer writes as a
    name, one of several numbered names of one head ("Set Menu 3" beside "Set Menu 5"), one
    written as a name (``_written_as_name``), or a model number ("Boeing 737-800"). A
    sentence-initial word is a name only in those cases."""
    named = set()
    numbers: dict[str, set[str]] = {}
    for source in (text, question):
        for m in _NAME_NUMBER.finditer(source):
            head = m.group("head")
            if head not in _NOT_NAME_HEADS and _NAME_CONTINUES.match(source, m.end()):
                named.add((head, m.group("number")))
            numbers.setdefault(head, set()).add(m.group("number"))
    named |= {
        (head, n)
        for head, found in numbers.items()
        if len(found) >= 2 and not re.fullmatch(MONTHS, head)  # "March 1", "March 15": dates
        for n in found
    }
    asked = {(m.group("head"), m.group("number")) for m in _NAME_NUMBER.finditer(question)}
    written = Counter((m.group("head"), m.group("number")) for m in _NAME_NUMBER.finditer(text))
    spans = []
    for m in _NAME_NUMBER.finditer(text):
        head, number = m.group("head"), m.group("number")
        if head in _NOT_NAME_HEADS or head.endswith(("'s", "’s")):
            continue
        after = text[m.end() : m.end() + 3]
        cell = layout.cell_of(m.start("number"))
        in_label_cell = cell is not None and not re.fullmatch(r"[\d.,\s$%]+", cell[2].text)
        possessive = after.startswith(("'s", "’s"))
        acronym = head.isupper() and 1 <= len(head) <= 4  # "Z 400", "ATR 72"
        if (
            (head, number) in named | asked
            or in_label_cell
            or possessive
            or acronym
            or (_is_head(head) and _written_as_name(text, m, written))
        ):
            spans.append(m.span("number"))
    spans += [m.span("number") for m in _MODEL_NUMBER.finditer(text) if _is_head(m.group("head"))]
    return spans
