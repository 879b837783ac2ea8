"""How an answer is laid out: sentences, lines, list items and markdown tables.

A number's meaning depends on where it sits: in a table it belongs to its row's label and its
column's header, in a list item to the item's head ("Riverside — 412 visits"), in prose to its
sentence. Extraction and verification read the same layout.

An answer may be megabytes long, so every lookup here costs what its span costs, never what the
whole answer costs: positions are found by bisection, a pattern that reads the words before a
number reads a bounded window, and a sentence is cut at ``MAX_SENTENCE`` characters.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

_ABBREVIATIONS = frozenset(
    {"approx", "vs", "e.g", "i.e", "etc", "ca", "no", "est", "mr", "dr", "mrs", "ms", "st", "jr"}
)
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*•]|(?P<number>\d{1,2})[.)])[ \t]+", re.MULTILINE)
_SEPARATOR_ROW = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LONGEST_ABBREVIATION = max(map(len, _ABBREVIATIONS))
MAX_SENTENCE = 2000
"""A run of text with no sentence end is cut (at a space) after this many characters: the
longest sentence of the labelled answers is 220, and each claim reads its whole sentence."""
MAX_CELLS = 64
"""A line with more cells is no table row: each number of a row reads the whole row."""
_WORD_CHAR = re.compile(r"\w")
_LETTERS = re.compile(r"[^\W\d_]+")


_EMPHASIS = re.compile(r"`+|\*+(?![ \t])|(?<=\S)\*+|(?<!\w)_+(?=\S)|(?<=\S)_+(?!\w)")


def plain(text: str) -> str:
    """``text`` with markdown emphasis and code marks ("**12.5%**", "*below*", "`rate`") as
    spaces, so a word between them reads as a word; a bullet "* " stays, and every position
    is unchanged."""
    return _EMPHASIS.sub(lambda m: " " * len(m.group()), text)


def search_before(
    pattern: re.Pattern[str],
    text: str,
    end: int,
    window: int,
    words: frozenset[str] | None = None,
) -> re.Match[str] | None:
    """``pattern.search(text[:end])`` for a pattern anchored at its end ("…$") that spans at
    most ``window`` characters: only those are read (from a word boundary, so that ``\\b``
    reads as in the whole text), not all the text before. Positions are positions in ``text``.
    ``words``, when given, are the words one of which every match holds: a window holding none
    is not searched (a cheap test before an alternation of dozens of words)."""
    start = max(0, end - window)
    while 0 < start < end and _WORD_CHAR.match(text, start - 1) and _WORD_CHAR.match(text, start):
        start += 1
    if words is not None and words.isdisjoint(
        w.lower() for w in _LETTERS.findall(text, start, end)
    ):
        return None
    return pattern.search(text, start, end)


def _is_abbreviation(text: str, start: int, end: int) -> bool:
    """Does the sentence ``text[start:end]`` end in an abbreviation ("vs", "e.g")?"""
    low = max(start, end - _LONGEST_ABBREVIATION - 1)
    word = re.search(r"[\w.]+$", text[low:end])
    whole = word is not None and (word.start() > 0 or low == start)
    return whole and word is not None and word.group().lower() in _ABBREVIATIONS


def _cut(text: str, start: int, end: int) -> Iterable[tuple[int, int]]:
    """``start``–``end`` in pieces of at most ``MAX_SENTENCE`` characters, cut after a space."""
    while end - start > MAX_SENTENCE:
        space = text.rfind(" ", start + MAX_SENTENCE // 2, start + MAX_SENTENCE)
        cut = space + 1 if space >= 0 else start + MAX_SENTENCE
        yield start, cut
        start = cut
    yield start, end


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence (or line) bounds: a claim and the label it belongs to share a sentence."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"[.!?]+[)\]\"'”’]*(?=\s|$)|\n+", text):
        if m.group().startswith(".") and _is_abbreviation(text, start, m.start()):
            continue
        if not text[start : m.end()].isspace():
            spans += _cut(text, start, m.end())
        start = m.end()
    if text[start:].strip():
        spans += _cut(text, start, len(text))
    return spans


def overlaps(span: tuple[int, int], others: Iterable[tuple[int, int]]) -> bool:
    """Does ``span`` share a character with any of ``others``?"""
    return any(span[0] < end and start < span[1] for start, end in others)


class Covered:
    """The characters of a text that spans cover. Adding a span and asking whether one overlaps
    cost its length, not the number of spans: a whole answer's worth stays linear."""

    def __init__(self, size: int, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._marks = bytearray(size)
        for span in spans:
            self.add(span)

    def add(self, span: tuple[int, int]) -> None:
        start, end = max(0, span[0]), min(len(self._marks), span[1])
        if end > start:
            self._marks[start:end] = b"\x01" * (end - start)

    def overlaps(self, span: tuple[int, int]) -> bool:
        return self._marks.find(1, max(0, span[0]), max(0, span[1])) >= 0


def containing(spans: Sequence[tuple[int, int]], starts: Sequence[int], position: int) -> int:
    """Index of the span of ``spans`` (sorted, disjoint; ``starts`` their starts) holding
    ``position``, or -1."""
    i = bisect.bisect_right(starts, position) - 1
    return i if i >= 0 and position < spans[i][1] else -1


def starting_within(starts: Sequence[int], start: int, end: int) -> range:
    """Indexes of the items whose (sorted) ``starts`` lie in ``start``–``end``."""
    return range(bisect.bisect_left(starts, start), bisect.bisect_left(starts, end))


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

    @cached_property
    def _spans(self) -> tuple[list[tuple[int, int]], list[int]]:
        return [(c.start, c.end) for c in self.cells], [c.start for c in self.cells]

    def cell_at(self, position: int) -> Cell | None:
        i = containing(*self._spans, position)
        return self.cells[i] if i >= 0 else None


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[Row, ...]
    head: tuple[int, int] = (0, 0)
    """The span of the header line."""


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


def _row(text: str, line: tuple[int, int]) -> Row | None:
    """A line of a table: one with a bar and at most ``MAX_CELLS`` cells."""
    if "|" not in text[line[0] : line[1]]:
        return None
    cells = _cells(text, *line)
    return Row(line[0], line[1], cells) if len(cells) <= MAX_CELLS else None


def tables(text: str) -> list[Table]:
    """Markdown tables: a header line, a separator line of dashes, then rows of cells."""
    lines = line_spans(text)
    found: list[Table] = []
    i = 0
    while i + 1 < len(lines):
        head, sep = _row(text, lines[i]), lines[i + 1]
        if head is not None and _SEPARATOR_ROW.match(text[sep[0] : sep[1]]):
            rows = []
            j = i + 2
            while j < len(lines) and (row := _row(text, lines[j])) is not None:
                rows.append(row)
                j += 1
            header = tuple(c.text for c in head.cells)
            found.append(Table(header, tuple(rows), (head.start, head.end)))
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
    body: int
    """Where the item's own words start, after its bullet or marker."""


def list_items(text: str) -> list[ListItem]:
    """Lines that start with a bullet or a number followed by "." or ")"."""
    items = []
    for m in _LIST_MARKER.finditer(text):
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        marker = m.span("number") if m.group("number") else None
        if marker is not None:
            marker = (marker[0], marker[1] + 1)
        items.append(ListItem(m.start(), end, marker, m.end()))
    return items


_BLOCK_LINE = re.compile(r"\s*(?:[|*•-]|\d{1,2}[.)]\s)")


class Layout:
    """The layout of one answer, parsed once; each lookup bisects."""

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

    @cached_property
    def _sentence_starts(self) -> list[int]:
        return [s for s, _ in self.sentences]

    @cached_property
    def _line_starts(self) -> list[int]:
        return [s for s, _ in self.lines]

    @cached_property
    def _rows(self) -> tuple[list[tuple[Table, Row]], list[tuple[int, int]], list[int]]:
        rows = [(table, row) for table in self.tables for row in table.rows]
        return rows, [(r.start, r.end) for _, r in rows], [r.start for _, r in rows]

    @cached_property
    def _items(self) -> tuple[list[tuple[int, int]], list[int]]:
        return [(x.start, x.end) for x in self.items], [x.start for x in self.items]

    @cached_property
    def _leads(self) -> list[int]:
        """For each line, the index of the last line before it that is no list item or table
        row (-1 if none): the line that introduces a list or table."""
        leads, last = [], -1
        for i, (start, end) in enumerate(self.lines):
            leads.append(last)
            if not _BLOCK_LINE.match(self.text, start, end):
                last = i
        return leads

    def sentence_index(self, position: int) -> int:
        return containing(self.sentences, self._sentence_starts, position)

    def sentence_of(self, position: int) -> tuple[int, int]:
        i = self.sentence_index(position)
        return self.sentences[i] if i >= 0 else (0, len(self.text))

    def line_of(self, position: int) -> tuple[int, int]:
        i = containing(self.lines, self._line_starts, position)
        return self.lines[i] if i >= 0 else (0, len(self.text))

    def lead_in(self, position: int) -> tuple[int, int] | None:
        """The line before the list or table holding ``position`` ("Revenue by year:")."""
        i = containing(self.lines, self._line_starts, position)
        lead = self._leads[i] if i >= 0 else -1
        return self.lines[lead] if lead >= 0 else None

    def cell_of(self, position: int) -> tuple[Table, Row, Cell] | None:
        rows, spans, starts = self._rows
        i = containing(spans, starts, position)
        if i < 0:
            return None
        table, row = rows[i]
        cell = row.cell_at(position)
        return (table, row, cell) if cell else None

    def item_of(self, position: int) -> ListItem | None:
        i = containing(*self._items, position)
        return self.items[i] if i >= 0 else None

    def items_before(self, item: ListItem, most: int) -> list[ListItem]:
        """Up to ``most`` list items before ``item``, nearest first."""
        i = bisect.bisect_left(self._items[1], item.start)
        return self.items[max(0, i - most) : i][::-1]
