"""Values derived from the facts a claim's sentence names: a share of a whole, a sum, a
difference, a ratio, a growth rate, a value per item.

"45.5 % of the active base" is a part over a whole (a row over its column's total, one column
over another of the same row, one reference over a wider one); "together 509" a sum of the named
rows or of a whole column; "112 more than East", "2 points below the network" a difference;
"2.4x", "1.9 times as long" a ratio; "up 153 % on 2024" the relative change between the two
periods' values; "29 minutes per visit" an amount over a count. Each derivation is tried only
when the claim's words or unit call for it, and it pins its parts only when the sentence names
them, since a derived value that merely could be right must not accuse a claim.

This module holds the derived value, the cues and fact relations the derivations share, and the
``Deriver``'s indexes of the facts; ``derived_shares``, ``derived_sums`` and ``derived_changes``
derive, and ``derived_pins.candidates`` tries those the claim's words call for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.binding import AnswerContext, Binding
from eval_pipeline.core.oracle.facts import (
    Fact,
    by_series,
    column_period,
    fmt_value,
    metric_words,
)
from eval_pipeline.core.oracle.periods import Period
from eval_pipeline.core.oracle.units import AMOUNTS, family


@dataclass(frozen=True)
class Derived:
    """A value computed from facts, in ``unit``, and whether the claim's words pin it."""

    value: float
    unit: Unit | None
    facts: tuple[Fact, ...]
    how: str
    pinned: bool
    signed: bool = True
    """False when the order of the two values is unknown: only the magnitude is checked."""

    def describe(self) -> str:
        parts = " and ".join(f"{f.describe()} = {fmt_value(f.value)}" for f in self.facts[:6])
        more = f" and {len(self.facts) - 6} more" if len(self.facts) > 6 else ""
        return f"the {self.how} of {parts}{more} ({fmt_value(round(self.value, 6))})"


SUM_CUE = re.compile(
    r"\b(?i:together|combined|in\s+total|total(?:led|ling|s)?|add(?:s|ed|ing)?\s+up|altogether|"
    r"all\s+told|between\s+"
    r"them|in\s+all|sum|overall|across\s+(?:both|all|the)|network|group|company|whole|entire|"
    r"all)\b"
)
RELATIVE_CUE = re.compile(
    r"%\s*(?i:more|less|fewer|higher|lower|longer|shorter|faster|slower|above|below|up|down|"
    r"increase|decrease|growth|rise|drop|decline|gain|fall|cut)|(?i:grew|growth|increase|decrease|"
    r"decline|rose|fell|dropped|up|down|relative)"
    r"|\b(?i:gain(?:s|ed)?|cut|drops?|fall(?:s|ing)?|rises?|rising|jump(?:s|ed)?|ahead|behind)\b"
)
_SAYS_RELATIVE = re.compile(r"\b(?i:relative(?:ly)?|proportionally)\b")
"""Words that make a "%" change of rates relative, not points: "a relative decline of 4.2%",
"about 6% lower in relative terms"."""


def says_relative(text: str, claim: Claim) -> bool:
    """Do the words right around the claim call it a relative change?"""
    start, end = claim.span
    return bool(_SAYS_RELATIVE.search(text, max(0, start - 30), min(len(text), end + 25)))


GAP_CUE = re.compile(r"\b(?i:gap|difference|apart|spread|separat\w*|margin)\b")
"""Words naming the size of a gap between two values."""
BY_MARGIN = re.compile(
    r"\b(?i:edges?|edged|beats?|trails?|trailed|leads?|led|tops|topped|outsells?|outsold|"
    r"outpaces?|outpaced|outperforms?|outperformed)\b[^\d.;:!?\n]{0,40}?\b(?i:by)\s+$"
)
"""A verb of one beating another, then "by", right before the margin: "Riverside 12 edges
Grand Plaza by about £80K"."""
RESTATED_CHANGE = re.compile(
    r"\b(?i:fall|drop|decline|decrease|rise|increase|gain|jump|climb|change|reduction|"
    r"improvement|growth|slide|slip)\s+of\s+[^,;()\n]{1,30}?"
    r"(?:,\s*(?i:or|i\.e\.,?|that\s+is,?)|\s*\()\s*$"
)
"""Before a change written again in other units: "a fall of about 3.5%, or roughly $13 a
tonne"."""
WHOLE_ORGANISATION = re.compile(
    r"\b(?i:network|group|company|chain|organi[sz]ation)(?:-wide)?\b|\b(?i:\w+-wide)\b"
)
"""Words of a figure for everything: "group-wide", "across the network", "company-wide"."""
_JOINED = re.compile(r",\s+(?i:and|but|while|whereas|whilst)\b")
_NOT_ADDITIVE = re.compile(
    r"(?i)(?<![a-z])(?:avg|average|mean|median|rates?|pct|percent(?:age)?|ratios?|scores?|"
    r"shares?)(?![a-z])|(?<![a-z])per_|_per(?![a-z])"
)
"""Name words of an average or a rate, whole ("generation" holds "ratio" but is an amount)."""
MAX_RUN = 12
"""Rows a sentence adds up or compares: a few, not a whole report's (bounds the work)."""


def written_signed(claim: Claim) -> bool:
    """Is the claim written with its sign ("+$131", "−4 covers")? Then it is itself a change or
    a gap, whatever the words around it (a bridge's "+$159.9K" may still be a level)."""
    return claim.text.lstrip()[:1] in ("+", "-", "−")


def same_family(a: Fact, b: Fact) -> bool:
    """One kind of quantity; a column of unknown unit holding whole numbers counts."""
    fa, fb = family(a.unit), family(b.unit)
    if fa == fb:
        return True
    loose = {fa, fb} - {None}
    return loose == {"count"} and all(f.value.is_integer() for f in (a, b))


def same_metric(a: Fact, b: Fact) -> bool:
    """Two facts of one quantity: one column of one reference, or one function called with
    other params, or columns/functions whose names share a word that is not a period's ("2024
    claims" and "large losses 2024" are not one quantity), in one unit family."""
    if not same_family(a, b):
        return False
    if a.series == b.series:
        return True
    ra, rb = a.source.reference, b.source.reference
    if ra.kind == rb.kind and ra.target == rb.target and a.column == b.column:
        return True  # one function, or one query's text, called with other params
    if a.column != b.column and a.column and b.column and a.source is b.source:
        return _one_quantity_in_two_periods(a, b)
    shared = metric_words(a.meaning & b.meaning)
    return bool(shared) and (a.column or "") == (b.column or "")


def _one_quantity_in_two_periods(a: Fact, b: Fact) -> bool:
    """Two columns of one table whose names differ only by the period each holds
    ("orders_2024", "orders_2025"): one quantity."""
    pa, pb = column_period(a), column_period(b)
    return (
        pa is not None
        and pb is not None
        and pa != pb
        and metric_words(a.own_meaning) == metric_words(b.own_meaning)
    )


def amount(fact: Fact) -> bool:
    """A quantity that adds up (a count, an amount of money or time), so a share of it means
    something; an average or a rate does not."""
    ref = fact.source.reference
    name = f"{fact.column or ''} {ref.target if ref.kind != 'sql' else ''}"
    if _NOT_ADDITIVE.search(name):
        return False
    return fact.unit in AMOUNTS or (fact.unit in (None, "number") and fact.value.is_integer())


class Deriver:
    """One case's facts indexed (by series, row, label, possible whole) for the derivations of
    one answer's claims, with the lookups they share."""

    def __init__(
        self,
        facts: Sequence[Fact],
        ctx: AnswerContext,
        anchors: dict[int, list[int]] | None = None,
    ) -> None:
        self.facts = list(facts)
        self.ctx = ctx
        self.anchors = {} if anchors is None else anchors
        """id(fact) → positions of the claims that state it (filled before verification)."""
        self.series = by_series(facts)
        self.index = {id(f): i for i, f in enumerate(self.facts)}
        self.totals = {k: sum(f.value for f in members) for k, members in self.series.items()}
        self.rows: dict[tuple[frozenset[str], frozenset[str]], list[Fact]] = {}
        """The facts of each (labels, scope): one row's, or one entity's."""
        self.whole_candidates: dict[object, list[Fact]] = {}
        """The facts that may be a whole of another, by row, by (periods, row), by periods."""
        self.labelled: dict[frozenset[str], list[Fact]] = {}
        """The facts of each row label set."""
        self.rows_naming: dict[str, set[tuple[frozenset[str], frozenset[str]]]] = {}
        """The (labels, scope) of the rows each label names: a row's labels, else its scope."""
        for fact in self.facts:
            self.rows.setdefault((fact.labels, fact.scope), []).append(fact)
            for label in fact.labels or fact.scope:
                self.rows_naming.setdefault(label, set()).add((fact.labels, fact.scope))
            self.labelled.setdefault(fact.labels, []).append(fact)
            periods = frozenset(fact.periods)
            keys: list[object] = [
                (id(fact.source), fact.position),
                (periods, fact.labels, fact.scope),
            ]
            if not fact.labels:
                keys.append(periods)
            for k in keys:
                self.whole_candidates.setdefault(k, []).append(fact)
        self.wholes: dict[int, list[Fact]] = {}
        self.one_metric = all(same_metric(f, self.facts[0]) for f in self.facts[1:])

    def sibling_calls(self, part: Fact) -> list[Fact]:
        """The part and the lone figures of the other calls of its function, for its periods, that
        differ from its call in one param only ("tickets_sold" for each product): a whole the
        references split, which may support a share but never accuses one (the calls need not
        cover everything), and a series for a spread."""
        ref = part.source.reference
        if ref.kind == "sql" or len(self.series[part.series]) != 1:
            return []
        out = [part]
        for other in self.facts:
            theirs = other.source.reference
            if (
                other is part
                or theirs.kind != ref.kind
                or theirs.target != ref.target
                or other.column != part.column
                or len(self.series[other.series]) != 1
                or other.periods != part.periods  # calls for other periods split no whole
                or set(theirs.params) != set(ref.params)
            ):
                continue
            if sum(theirs.params[k] != ref.params[k] for k in ref.params) == 1:
                out.append(other)
        return out

    def first_of_each_series(self, usable: Callable[[Fact], bool]) -> list[tuple[Fact, list[Fact]]]:
        """(first usable fact, its whole series) for every series with a usable fact."""
        out = []
        for members in self.series.values():
            first = next((f for f in members if usable(f)), None)
            if first is not None:
                out.append((first, members))
        return out

    def phrase(self, claim: Claim, binding: Binding) -> tuple[int, int]:
        """The claim's clause cut where a new one is joined on (", and", ", but", ", while")."""
        start, end = binding.clause
        text = self.ctx.answer
        joins = list(_JOINED.finditer(text, start, end))
        left = max((m.end() for m in joins if m.end() <= claim.span[0]), default=start)
        right = min((m.start() for m in joins if m.start() >= claim.span[1]), default=end)
        return left, right

    def sentence_phrase(self, claim: Claim, binding: Binding) -> tuple[int, int]:
        """The claim's sentence cut where a new clause is joined on: its own statement, across
        dashes and brackets ("34 in the week of 27 January — about 43% below the peak")."""
        return self.phrase(claim, replace(binding, clause=binding.sentence))

    def named(self, binding: Binding) -> tuple[list[str], list[Period]]:
        """Entities and periods named in the claim's sentence, else in the question; not a
        period named by its grain alone ("over the quarter"), which holds the ones compared,
        nor one named only relative to another ("year on year"), which is none of them."""
        start, end = binding.sentence
        entities = [m.key for m in self.ctx.labels_in(start, end)]
        periods = [
            m.period
            for m in self.ctx.periods_in(start, end)
            if m.start not in self.ctx.by_grain and m.period.grain != "other"
        ]
        if not entities:
            entities = [m.key for m in self.ctx.asked_labels]
        if not periods:
            periods = [m.period for m in self.ctx.asked_periods]
        return list(dict.fromkeys(entities)), list(dict.fromkeys(periods))

    def first_anchors(self, facts: Iterable[Fact], start: int, end: int) -> dict[int, int]:
        """Where each fact stated in the answer between ``start`` and ``end`` is first stated
        there, by the fact's id."""
        out = {}
        for fact in facts:
            found = [p for p in self.anchors.get(id(fact), ()) if start <= p < end]
            if found:
                out[id(fact)] = min(found)
        return out
