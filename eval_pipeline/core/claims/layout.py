"""How an answer is laid out: sentences, lines, list items and markdown tables.

A number's meaning depends on where it sits: in a table it belongs to its row's label and its
column's header, in a list item to the item's head ("Riverside — 412 visits"), in prose to its
sentence. Extraction and verification read the same layout.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

_ABBREVIATIONS = frozenset(
    {"approx", "vs", "e.g", "i.e", "etc", "ca", "no", "est", "mr", "dr", "mrs", "ms", "st", "jr"}
)
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*•]|(?P<number>\d{1,2})[.)])[ \t]+", re.MULTILINE)
_SEPARATOR_ROW = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


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


def overlaps(span: tuple[int, int], others: Iterable[tuple[int, int]]) -> bool:
    """Does ``span`` share a character with any of ``others``?"""
    return any(span[0] < end and start < span[1] for start, end in others)


def line_spans(text: str) -> list[tuple[int, int]]:
    """Each non-empty line, without its line break."""
    return [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group().strip()]


@dataclass(frozen=True)
class Cell:
    start: int
    end: int
    text: str
    column: int


@dataclass(frozen=True)
class Row:
    start: int
    end: int
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[Row, ...]

    def column_of(self, position: int) -> tuple[Row, Cell] | None:
        for row in self.rows:
            if row.start <= position < row.end:
                cell = next((c for c in row.cells if c.start <= position < c.end), None)
                return (row, cell) if cell else None
        return None


def _cells(text: str, start: int, end: int) -> tuple[Cell, ...]:
    line = text[start:end]
    edges = [-1, *(i for i, ch in enumerate(line) if ch == "|"), len(line)]
    cells: list[Cell] = []
    for left, right in itertools.pairwise(edges):
        raw = line[left + 1 : right]
        if not raw.strip() and (left == -1 or right == len(line)):
            continue  # outside the outer bars
        offset = start + left + 1 + (len(raw) - len(raw.lstrip()))
        stripped = raw.strip()
        cells.append(Cell(offset, offset + len(stripped), stripped, len(cells)))
    return tuple(cells)


def tables(text: str) -> list[Table]:
    """Markdown tables: a header line, a separator line of dashes, then rows of cells."""
    lines = line_spans(text)
    found: list[Table] = []
    i = 0
    while i + 1 < len(lines):
        head, sep = lines[i], lines[i + 1]
        if "|" in text[head[0] : head[1]] and _SEPARATOR_ROW.match(text[sep[0] : sep[1]]):
            header = tuple(c.text for c in _cells(text, *head))
            rows = []
            j = i + 2
            while j < len(lines) and "|" in text[lines[j][0] : lines[j][1]]:
                rows.append(Row(lines[j][0], lines[j][1], _cells(text, *lines[j])))
                j += 1
            found.append(Table(header, tuple(rows)))
            i = j
        else:
            i += 1
    return found


@dataclass(frozen=True)
class ListItem:
    start: int
    end: int
    marker: tuple[int, int] | None
    """The span of a numbered marker ("1."), which is never a claim."""


def list_items(text: str) -> list[ListItem]:
    """Lines that start with a bullet or a number followed by "." or ")"."""
    items = []
    for m in _LIST_MARKER.finditer(text):
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        marker = m.span("number") if m.group("number") else None
        if marker is not None:
            marker = (marker[0], marker[1] + 1)
        items.append(ListItem(m.start(), end, marker))
    return items


class Layout:
    """The layout of one answer, parsed once."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def sentences(self) -> list[tuple[int, int]]:
        return sentence_spans(self.text)

    @cached_property
    def lines(self) -> list[tuple[int, int]]:
        return line_spans(self.text)

    @cached_property
    def tables(self) -> list[Table]:
        return tables(self.text)

    @cached_property
    def items(self) -> list[ListItem]:
        return list_items(self.text)

    def sentence_of(self, position: int) -> tuple[int, int]:
        return next(((s, e) for s, e in self.sentences if s <= position < e), (0, len(self.text)))

    def line_of(self, position: int) -> tuple[int, int]:
        return next(((s, e) for s, e in self.lines if s <= position < e), (0, len(self.text)))

    def cell_of(self, position: int) -> tuple[Table, Row, Cell] | None:
        for table in self.tables:
            found = table.column_of(position)
            if found:
                return table, *found
        return None
