"""Shares derived from the facts: a part over its whole (a row over its column's total,
one column over another of its row, one reference over a wider one), and parts of a mix
added up."""

from __future__ import annotations

import re

from eval_pipeline.core.models import Claim
from eval_pipeline.core.oracle.binding import Binding
from eval_pipeline.core.oracle.candidates import fit
from eval_pipeline.core.oracle.claim_words import OF_AFTER
from eval_pipeline.core.oracle.derived import (
    Derived,
    Deriver,
    amount,
    same_family,
    same_metric,
)
from eval_pipeline.core.oracle.derived_sums import banded, referred_runs
from eval_pipeline.core.oracle.facts import Fact, entity_scope, tokens
from eval_pipeline.core.oracle.sql_reading import narrows
from eval_pipeline.core.oracle.units import RATES

_ADDED = re.compile(r"\b([\w-]+)\s+(?i:and|plus|&|\+)\s+([\w-]+)\s+(?i:together|combined)\b")
"""Two quantities added up by name: "High and Severe together", "late plus lost combined"."""
_ROW_RATE = tokens("rate")
"""A rate is of its own row's whole ("attendance rate": attended over booked), never a share of
a column's total, which a share ("% of all visits") is."""


def _is_whole_of(part: Fact, other: Fact) -> bool:
    """Can ``other`` be what ``part`` is a share of? Another column of its row, another
    reference for the same entity and period, or the same quantity over a wider scope; never
    the same quantity for another entity or period."""
    if other.source is part.source and other.position == part.position:
        return True
    if set(other.periods) != set(part.periods):
        return False
    same_rows = other.labels == part.labels and entity_scope(other) == entity_scope(part)
    if same_rows and other.own_meaning < part.own_meaning:
        return True  # "items" is the whole of "failed items"
    if same_metric(part, other):
        return not other.labels and (
            other.scope < (part.scope | part.labels)
            or other.filters < part.filters
            or narrows(part.source.reference, other.source.reference)
        )
    return same_rows


def shares(deriver: Deriver, claim: Claim, binding: Binding, *, complement: bool) -> list[Derived]:
    """Part over whole, for a claim stated as a rate or "one in N"."""
    out: list[Derived] = []
    parts = []
    for fact in deriver.facts:
        if not amount(fact):
            continue
        found = fit(claim, binding, fact)
        if found is not None and found.entity in ("named", "unnamed", "row"):
            parts.append((fact, found))
    written = deriver.ctx.answer[binding.sentence[0] : binding.sentence[1]]
    sentence = tokens(written)
    together = frozenset().union(
        *(tokens(" ".join(m.group(1, 2))) for m in _ADDED.finditer(written))
    )
    for part, found in parts:
        pinned = found.entity == "unnamed" or found.pinned
        if not (part.labels & binding.entities or (binding.meaning | sentence) & part.own_meaning):
            pinned = False  # the sentence names neither the part's row nor its quantity
        wholes: list[tuple[float, tuple[Fact, ...], str]] = []
        series = deriver.series[part.series]
        one_period = found.pinned and part.row_period is not None and bool(binding.periods)
        if len(series) >= 2 and not one_period:  # a week's share is not of every week
            wholes.append((deriver.totals[part.series], tuple(series), "column total"))
        wholes += [(other.value, (other,), "whole") for other in _wholes_of(deriver, part)]
        if binding.in_table and binding.meaning & _ROW_RATE:
            wholes += _with_another_of_its_row(deriver, part)
        joined = _joined_columns(deriver, part, together)
        if joined:  # the columns added up with the part are parts too, never its whole
            wholes = [w for w in wholes if not any(f in joined for f in w[1])]
            out += _joined_share(deriver, part, joined)
        # "153 appointments, 14 no-shows (one in 12)": the whole the sentence names
        named = [w for w in wholes if len(w[1]) == 1 and w[1][0].own_meaning & sentence]
        alone = len(wholes) == 1
        siblings = deriver.sibling_calls(part)
        if len(siblings) >= 2:  # a whole that may support a share, never pin one
            wholes.append((sum(f.value for f in siblings), tuple(siblings), "total of its calls"))
        for total, used, how in wholes:
            if total <= 0:
                continue
            share = part.value / total
            facts = (part, *used) if how not in _OF_ITS_SERIES else _first_of(part, used)
            chosen = alone or (len(named) == 1 and used == named[0][1])
            chosen = chosen and not (how == "column total" and binding.meaning & _ROW_RATE)
            chosen = chosen and how != "total of its calls"
            out.append(Derived(share, "fraction", facts, f"share ({how})", pinned and chosen))
            if complement:
                out.append(
                    Derived(1 - share, "fraction", facts, f"complement share ({how})", False)
                )
    out += _group_shares(deriver, binding)
    if not _writes_its_whole(deriver, claim):  # "31% of the year's 802": of its own whole
        out += _referred_shares(deriver, binding) + _banded_shares(deriver, binding)
    if complement:
        for fact in deriver.facts:
            if fact.unit in RATES and fit(claim, binding, fact) is not None:
                top = 1.0 if fact.unit == "fraction" else 100.0
                out.append(Derived(top - fact.value, fact.unit, (fact,), "complement", False))
    return out


def _writes_its_whole(deriver: Deriver, claim: Claim) -> bool:
    """Is the share written with a figure for its whole after "of" ("31% of the year's 802")?"""
    text = deriver.ctx.answer
    whole = OF_AFTER.match(text, claim.span[1])
    return whole is not None and text[whole.end() : whole.end() + 1].isdigit()


def _referred_shares(deriver: Deriver, binding: Binding) -> list[Derived]:
    """The rows a sentence refers back to over their column's total ("Together those two
    days account for 31.4%")."""
    out = []
    for run, counted in referred_runs(deriver, binding):
        series = deriver.series[run[0].series]
        total = deriver.totals[run[0].series]
        if amount(run[0]) and total > 0 and len(run) < len(series):
            rest = tuple(f for f in series if f not in run)
            share = sum(f.value for f in run) / total
            out.append(Derived(share, "fraction", (*run, *rest), "share (rows before)", counted))
    return out


def _banded_shares(deriver: Deriver, binding: Binding) -> list[Derived]:
    """The rows of a numbered scale its clause bands over the scale's total ("71.2% rated us
    4 or 5")."""
    out = []
    for rows, scale in banded(deriver, binding):
        total = sum(f.value for f in scale)
        if total > 0:
            rest = tuple(f for f in scale if f not in rows)
            share = sum(f.value for f in rows) / total
            out.append(Derived(share, "fraction", (*rows, *rest), "share (band of a scale)", True))
    return out


def parts_of_a_mix(deriver: Deriver, binding: Binding, *, cued: bool) -> list[Derived]:
    """Shares of one whole add up: the named rows of a series of shares that totals 100%
    ("North and South together are ~82% of volume")."""
    out = []
    for members in deriver.series.values():
        top = 100.0 if members[0].unit == "percent" else 1.0
        whole = abs(deriver.totals[members[0].series] - top) <= top / 50
        if members[0].unit not in RATES or not whole:
            continue
        named = [f for f in members if f.labels & binding.entities]
        if 2 <= len(named) < len(members):
            total = sum(f.value for f in named)
            out.append(Derived(total, members[0].unit, tuple(named), "sum", cued))
    return out


def _wholes_of(deriver: Deriver, part: Fact) -> list[Fact]:
    """The facts that can be what ``part`` is a share of (in fact order), found once."""
    if id(part) not in deriver.wholes:
        periods = frozenset(part.periods)
        keys: list[object] = [
            (id(part.source), part.position),
            (periods, part.labels, part.scope),
        ]
        keys.append(periods)
        seen = {id(f): f for k in keys for f in deriver.whole_candidates.get(k, ())}
        deriver.wholes[id(part)] = [
            other
            for other in sorted(seen.values(), key=lambda f: deriver.index[id(f)])
            if other is not part
            and other.series != part.series
            and amount(other)
            and same_family(other, part)
            and other.value >= part.value
            and _is_whole_of(part, other)
        ]
    return deriver.wholes[id(part)]


def _first_of(part: Fact, whole: tuple[Fact, ...]) -> tuple[Fact, ...]:
    """The facts of ``whole`` with ``part`` moved to the front."""
    return (part, *(f for f in whole if f is not part))


_OF_ITS_SERIES = ("column total", "total of its calls")
"""Wholes that hold the part itself."""


def _row_amounts(deriver: Deriver, part: Fact) -> list[Fact]:
    """The amounts of the part's own row in its unit family: its columns that add up."""
    return [
        f
        for f in deriver.rows[(part.labels, part.scope)]
        if f.source is part.source
        and f.position == part.position
        and amount(f)
        and same_family(f, part)
    ]


def _with_another_of_its_row(
    deriver: Deriver, part: Fact
) -> list[tuple[float, tuple[Fact, ...], str]]:
    """The part with another amount of its row as the whole: a table's rate column beside
    two outcomes ("attended", "no-shows") is most likely one outcome over both, but which
    two it adds is a guess, never pinned. Not a column whose name holds the other's
    ("failed items" beside "items"), which holds it."""
    mine = part.own_meaning
    return [
        (part.value + other.value, (other,), "with another of its row")
        for other in _row_amounts(deriver, part)
        if not (other.own_meaning <= mine or mine <= other.own_meaning)
    ]


def _joined_columns(deriver: Deriver, part: Fact, added: frozenset[str]) -> list[Fact]:
    """The columns of the part's row its sentence adds up with it ("High and Severe
    together made up 22.7% of claims"), by the words of the sum: two at least, else none."""
    if not part.own_meaning or not part.own_meaning <= added:
        return []
    named = [f for f in _row_amounts(deriver, part) if f.own_meaning and f.own_meaning <= added]
    return named if len(named) >= 2 else []


def _joined_share(deriver: Deriver, part: Fact, joined: list[Fact]) -> list[Derived]:
    """The named columns together over all the amounts of their row, once (for the first
    of them): the whole a share of several bands of one row most likely has, unpinned,
    since the row's columns need not split one whole."""
    row = _row_amounts(deriver, part)
    total = sum(f.value for f in row)
    if part is not joined[0] or len(joined) == len(row) or total <= 0:
        return []
    rest = tuple(f for f in row if f not in joined)
    share = sum(f.value for f in joined) / total
    return [Derived(share, "fraction", (*joined, *rest), "share (named columns)", False)]


def _group_shares(deriver: Deriver, binding: Binding) -> list[Derived]:
    """The rows the claim names together over their column's total ("Software and
    Logistics account for 3 out of 10")."""
    out = []
    for _, series in deriver.first_of_each_series(amount):
        named = [f for f in series if f.labels & binding.entities]
        total = sum(f.value for f in series)
        if 2 <= len(named) < len(series) and total > 0:
            rest = [f for f in series if f not in named]
            share = sum(f.value for f in named) / total
            out.append(Derived(share, "fraction", (*named, *rest), "share (named rows)", True))
    return out
