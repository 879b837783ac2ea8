"""Values derived from the facts a claim's sentence names: a share of a whole, a sum, a
difference, a ratio, a growth rate, a value per item.

"45.5 % of the active base" is a part over a whole (a row over its column's total, one column
over another of the same row, one reference over a wider one); "together 509" a sum of the named
rows or of a whole column; "112 more than East", "2 points below the network" a difference;
"2.4x", "1.9 times as long" a ratio; "up 153 % on 2024" the relative change between the two
periods' values; "29 minutes per visit" an amount over a count. Each derivation is tried only
when the claim's words or unit call for it, and it pins its parts only when the sentence names
them, since a derived value that merely could be right must not accuse a claim.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from eval_pipeline.core.claims.layout import Row, Table
from eval_pipeline.core.claims.numbers import WORD_VALUES
from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.binding import AnswerContext, Binding, written_as_base
from eval_pipeline.core.oracle.candidates import bare_decimal, comparable, fit
from eval_pipeline.core.oracle.facts import Fact, by_series, fmt_value, metric_words, tokens
from eval_pipeline.core.oracle.facts import key as label_key
from eval_pipeline.core.oracle.periods import Period
from eval_pipeline.core.oracle.units import AMOUNTS, RATES, family


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
    r"\b(?i:together|combined|in\s+total|total(?:led|ling|s)?|altogether|all\s+told|between\s+"
    r"them|in\s+all|sum|overall|across\s+(?:both|all|the)|network|group|company|whole|entire|"
    r"all)\b"
)
PER_PERIOD = re.compile(
    r"\b(?i:(?:a|per|each|every)\s+(?:day|week|month|quarter|year)|monthly|weekly|daily|"
    r"on\s+average|average|averag\w+|mean)\b"
)
_PER = re.compile(r"\b(?i:per|each|a\s+(?:visit|piece|unit|car|head)|an?\s+average|averag\w*)\b")
_RATIO = re.compile(r"\b(?i:times|twice|x)\b|[\dx×]x\b|\bto\s+1\b")
RELATIVE_CUE = re.compile(
    r"%\s*(?i:more|less|fewer|higher|lower|longer|shorter|faster|slower|above|below|up|down|"
    r"increase|decrease|growth|rise|drop|decline|gain|fall|cut)|(?i:grew|growth|increase|decrease|"
    r"decline|rose|fell|dropped|up|down|relative)"
    r"|\b(?i:gain(?:s|ed)?|cut|drops?|fall(?:s|ing)?|rises?|rising|jump(?:s|ed)?|ahead|behind)\b"
)
_EXTREME = (
    r"highest|lowest|slowest|fastest|largest|smallest|biggest|best|worst|top|bottom|longest|"
    r"shortest|most|least|cheapest|dearest"
)
SPREAD_CUE = re.compile(
    rf"\b(?i:spread|(?:{_EXTREME})(?:\s+\w+)?\s+(?:and|to)\s+(?:the\s+)?(?:{_EXTREME}))\b"
)
"""Words of the gap between a column's extremes: "the spread", "top to bottom", "between the
highest and lowest tier"."""
GAP_CUE = re.compile(r"\b(?i:gap|difference|apart|spread|separat\w*|margin)\b")
"""Words naming the size of a gap between two values."""
_COMPLEMENT = re.compile(
    r"\b(?i:un\w+|not|non-\w+|didn['’]t|did\s+not|remaining|rest|other|missed|outstanding|"
    r"wouldn['’]t|would\s+not|never|without)\b"
)


def written_signed(claim: Claim) -> bool:
    """Is the claim written with its sign ("+$131", "−4 covers")? Then it is itself a change or
    a gap, whatever the words around it (a bridge's "+$159.9K" may still be a level)."""
    return claim.text.lstrip()[:1] in ("+", "-", "−")


def _same_family(a: Fact, b: Fact) -> bool:
    """One kind of quantity; a column of unknown unit holding whole numbers counts."""
    fa, fb = family(a.unit), family(b.unit)
    if fa == fb:
        return True
    loose = {fa, fb} - {None}
    return loose == {"count"} and all(f.value.is_integer() for f in (a, b))


def _same_metric(a: Fact, b: Fact) -> bool:
    """Two facts of one quantity: one column of one reference, or one function called with
    other params, or columns/functions whose names share a word that is not a period's ("2024
    claims" and "large losses 2024" are not one quantity), in one unit family."""
    if not _same_family(a, b):
        return False
    if a.series == b.series:
        return True
    ra, rb = a.source.reference, b.source.reference
    if ra.kind != "sql" and ra.kind == rb.kind and ra.target == rb.target and a.column == b.column:
        return True
    shared = metric_words(a.meaning & b.meaning)
    return bool(shared) and (a.column or "") == (b.column or "")


def _overall(fact: Fact) -> bool:
    """A figure for everything: no row label, no entity scope."""
    return not fact.labels and not fact.scope


def _overall_figure_of(row: Fact, overall: Fact) -> bool:
    """Is ``overall`` the one figure for everything of the quantity a table column holds per
    row: a lone value with no label, of the column's unit, named by no words or by words that
    hold the column's ("chain_avg_lead_time_days" beside rows of "avg_lead_time")? A named
    row is then compared with it ("0.29 above the chain")."""
    if overall.labels or overall.scope or overall.column is not None or row.column is None:
        return False
    words = metric_words(row.own_meaning)
    return (
        _same_family(row, overall)
        and bool(words)
        and (not overall.meaning or words <= overall.meaning)
    )


def _is_whole_of(part: Fact, other: Fact) -> bool:
    """Can ``other`` be what ``part`` is a share of? Another column of its row, another
    reference for the same entity and period, or the same quantity over a wider scope; never
    the same quantity for another entity or period."""
    if other.source is part.source and other.position == part.position:
        return True
    if set(other.periods) != set(part.periods):
        return False
    same_rows = other.labels == part.labels and _entity_scope(other) == _entity_scope(part)
    if same_rows and other.own_meaning < part.own_meaning:
        return True  # "items" is the whole of "failed items"
    if _same_metric(part, other):
        return not other.labels and (
            other.scope < (part.scope | part.labels) or other.filters < part.filters
        )
    return same_rows


def _entity_scope(fact: Fact) -> frozenset[str]:
    """The entities a fact's reference is for, without the reference's own label: a label
    names the figure ("large losses 2024", "all orders"), so two references told apart only
    by their labels are for the same rows and one can be the other's whole."""
    label = fact.source.reference.label
    return fact.scope - {label_key(label)} if label else fact.scope


_ADDED = re.compile(r"\b([\w-]+)\s+(?i:and|plus|&|\+)\s+([\w-]+)\s+(?i:together|combined)\b")
"""Two quantities added up by name: "High and Severe together", "late plus lost combined"."""
_OVERALL_AFTER = re.compile(
    r"(?:\s+(?i:than|the|vs\.?|against|of|for))*\s+(?i:network|chain|company|group|overall|all)\b"
)
"""After a gap, the overall figure it is to: "below the network", "than the chain"."""
_JOINED = re.compile(r",\s+(?i:and|but|while|whereas|whilst)\b")
_ROW_RATE = tokens("rate")
"""A rate is of its own row's whole ("attendance rate": attended over booked), never a share of
a column's total, which a share ("% of all visits") is."""
_NOT_ADDITIVE = re.compile(
    r"(?i)(?<![a-z])(?:avg|average|mean|median|rates?|pct|percent(?:age)?|ratios?|scores?|"
    r"shares?)(?![a-z])|(?<![a-z])per_|_per(?![a-z])"
)
"""Name words of an average or a rate, whole ("generation" holds "ratio" but is an amount)."""


def _amount(fact: Fact) -> bool:
    """A quantity that adds up (a count, an amount of money or time), so a share of it means
    something; an average or a rate does not."""
    ref = fact.source.reference
    name = f"{fact.column or ''} {ref.target if ref.kind != 'sql' else ''}"
    if _NOT_ADDITIVE.search(name):
        return False
    return fact.unit in AMOUNTS or (fact.unit in (None, "number") and fact.value.is_integer())


_OWN_MOVE = re.compile(
    r"\b(?i:lost|gained|fell|rose|dropped|grew|shed|added|declined|increased|decreased)"
    r"\s+(?:(?i:by|only|just|a\s+mere|some)\s+)*$"
)
"""A past verb of change right before a number ("grew only 3.5%"): the subject's own
movement, not a gap."""

_MAX_RUN = 12
"""Rows a sentence adds up or compares: a few, not a whole report's (bounds the work)."""
_TOTAL_LABEL = re.compile(rf"[\W_]*(?i:grand\s+)?(?:{SUM_CUE.pattern})[\W_]*")
"""The label of a table's total row ("Total", "**Grand total**", "All", "Group")."""
_OTHER_NUMBER = re.compile(r"\d[\d,.]*")


def _own_words(near: str, start: int, claim: Claim) -> str:
    """The words of ``near`` (the claim's text at ``start``) that no other number stands
    between: "a week" in "20,712 kWh, about 5,178 kWh a week" is the second number's."""
    end = start + claim.span[1] - claim.span[0]
    after = _OTHER_NUMBER.search(near, end)
    before = [m.end() for m in _OTHER_NUMBER.finditer(near, 0, start)]
    return near[(before[-1] if before else 0) : after.start() if after else len(near)]


class Deriver:
    """Derivations for the claims of one answer against one case's facts."""

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
        self._index = {id(f): i for i, f in enumerate(self.facts)}
        self._in_series = {
            id(f): i for members in self.series.values() for i, f in enumerate(members)
        }
        self._totals = {k: sum(f.value for f in members) for k, members in self.series.items()}
        self._rows: dict[tuple[frozenset[str], frozenset[str]], list[Fact]] = {}
        """The facts of each (labels, scope): one row's, or one entity's."""
        self._whole_candidates: dict[object, list[Fact]] = {}
        """The facts that may be a whole of another, by row, by (periods, row), by periods."""
        self._labelled: dict[frozenset[str], list[Fact]] = {}
        """The facts of each row label set."""
        self._rows_naming: dict[str, set[tuple[frozenset[str], frozenset[str]]]] = {}
        """The (labels, scope) of the rows each label names: a row's labels, else its scope."""
        for fact in self.facts:
            self._rows.setdefault((fact.labels, fact.scope), []).append(fact)
            for label in fact.labels or fact.scope:
                self._rows_naming.setdefault(label, set()).add((fact.labels, fact.scope))
            self._labelled.setdefault(fact.labels, []).append(fact)
            periods = frozenset(fact.periods)
            keys: list[object] = [
                (id(fact.source), fact.position),
                (periods, fact.labels, fact.scope),
            ]
            if not fact.labels:
                keys.append(periods)
            for k in keys:
                self._whole_candidates.setdefault(k, []).append(fact)
        self._wholes: dict[int, list[Fact]] = {}
        self._one_metric = all(_same_metric(f, self.facts[0]) for f in self.facts[1:])

    def _first_of_each_series(
        self, usable: Callable[[Fact], bool]
    ) -> list[tuple[Fact, list[Fact]]]:
        """(first usable fact, its whole series) for every series with a usable fact."""
        out = []
        for members in self.series.values():
            first = next((f for f in members if usable(f)), None)
            if first is not None:
                out.append((first, members))
        return out

    # ------------------------------------------------------------------ named parts

    def _phrase(self, claim: Claim, binding: Binding) -> tuple[int, int]:
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
        return self._phrase(claim, replace(binding, clause=binding.sentence))

    def _named(self, binding: Binding) -> tuple[list[str], list[Period]]:
        """Entities and periods named in the claim's sentence, else in the question."""
        start, end = binding.sentence
        entities = [m.key for m in self.ctx.labels_in(start, end)]
        periods = [m.period for m in self.ctx.periods_in(start, end)]
        if not entities:
            entities = [m.key for m in self.ctx.asked_labels]
        if not periods:
            periods = [m.period for m in self.ctx.asked_periods]
        return list(dict.fromkeys(entities)), list(dict.fromkeys(periods))

    def _for(
        self, fact: Fact, entities: Iterable[str], periods: Iterable[Period]
    ) -> tuple[str | None, Period | None]:
        """Which named entity and which named period a fact is for."""
        entity = next((e for e in entities if fact.is_for(e)), None)
        period = next(
            (
                p
                for p in periods
                if any(fp.within(p) and fp.grain == p.grain for fp in fact.periods)
            ),
            None,
        )
        return entity, period

    def _told_apart(
        self, entities: Sequence[str], periods: Sequence[Period]
    ) -> list[
        tuple[Fact, Fact, tuple[str | None, Period | None], tuple[str | None, Period | None]]
    ]:
        """The pairs of facts (in fact order) that the named entities or periods may tell
        apart: both for a named entity or period, or one for a named entity beside an overall
        figure. Any other pair gives no difference, so only these are read (a reference of
        thousands of rows makes millions of pairs)."""
        tags = [self._for(f, entities, periods) for f in self.facts]
        named = [i for i, (e, p) in enumerate(tags) if e is not None or p is not None]
        for_entity = [i for i in named if tags[i][0] is not None]
        overall = [
            i
            for i, f in enumerate(self.facts)
            if not f.labels and not f.scope and tags[i] == (None, None)
        ]
        pairs = set(itertools.combinations(named, 2))
        pairs |= {(min(i, j), max(i, j)) for i in for_entity for j in overall}
        return [(self.facts[i], self.facts[j], tags[i], tags[j]) for i, j in sorted(pairs)]

    def _wholes_of(self, part: Fact) -> list[Fact]:
        """The facts that can be what ``part`` is a share of (in fact order), found once."""
        if id(part) not in self._wholes:
            periods = frozenset(part.periods)
            keys: list[object] = [
                (id(part.source), part.position),
                (periods, part.labels, part.scope),
            ]
            keys.append(periods)
            seen = {id(f): f for k in keys for f in self._whole_candidates.get(k, ())}
            self._wholes[id(part)] = [
                other
                for other in sorted(seen.values(), key=lambda f: self._index[id(f)])
                if other is not part
                and other.series != part.series
                and _amount(other)
                and _same_family(other, part)
                and other.value >= part.value
                and _is_whole_of(part, other)
            ]
        return self._wholes[id(part)]

    def _first(self, part: Fact, series: tuple[Fact, ...]) -> tuple[Fact, ...]:
        """``series`` with ``part`` moved to the front."""
        i = self._in_series[id(part)]
        return (part, *series[:i], *series[i + 1 :])

    # ------------------------------------------------------------------ derivations

    def candidates(self, claim: Claim, binding: Binding, unit: Unit | None) -> list[Derived]:
        """Every derivation the claim's words and unit call for."""
        text = self.ctx.answer
        clause = text[binding.clause[0] : binding.clause[1]]
        near = text[
            max(binding.clause[0], claim.span[0] - 40) : min(binding.clause[1], claim.span[1] + 50)
        ]
        own = _own_words(near, claim.span[0] - max(binding.clause[0], claim.span[0] - 40), claim)
        out: list[Derived] = []
        fam = family(unit)
        if claim.per is not None or (fam == "rate" and claim.kind != "comparison"):
            out += self.shares(claim, binding, complement=bool(_COMPLEMENT.search(near)))
        if fam == "rate" and claim.per is None and claim.kind != "comparison":
            out += self.parts_of_a_mix(binding, cued=bool(SUM_CUE.search(clause)))
        if (
            claim.kind == "comparison"
            or written_signed(claim)
            or (fam in ("rate", None) and RELATIVE_CUE.search(near))
            or (fam == "rate" and GAP_CUE.search(near))
        ):
            out += self.changes(claim, binding, unit)
        if fam != "ratio" and SPREAD_CUE.search(text, binding.sentence[0], claim.span[0]):
            out += self.spreads(binding, None if bare_decimal(claim) else unit)
        if unit == "ratio" or _RATIO.search(text[claim.span[0] : claim.span[1] + 12]):
            out += self.ratios(claim, binding)
        if fam not in ("rate", "ratio") and claim.per is None:
            if (SUM_CUE.search(clause) or claim.kind != "comparison") and not PER_PERIOD.search(
                own
            ):
                out += self.sums(claim, binding, unit, cued=bool(SUM_CUE.search(near)))
            if _PER.search(near):
                out += self.per_item(claim, binding, unit)
            if PER_PERIOD.search(own):
                out += self.means(binding, unit)
            if (
                claim.kind != "comparison"
                and not written_signed(claim)
                and re.search(
                    r"\b(?i:more|fewer|less|longer|shorter|higher|lower|gap|difference|ahead|behind|"
                    r"faster|slower|above|below)\b",
                    near,
                )
            ):
                out += self.changes(claim, binding, unit)
        return out

    def shares(self, claim: Claim, binding: Binding, *, complement: bool) -> list[Derived]:
        """Part over whole, for a claim stated as a rate or "one in N"."""
        out: list[Derived] = []
        parts = []
        for fact in self.facts:
            if not _amount(fact):
                continue
            found = fit(claim, binding, fact)
            if found is not None and found.entity in ("named", "unnamed", "row"):
                parts.append((fact, found))
        written = self.ctx.answer[binding.sentence[0] : binding.sentence[1]]
        sentence = tokens(written)
        together = frozenset().union(
            *(tokens(" ".join(m.group(1, 2))) for m in _ADDED.finditer(written))
        )
        for part, found in parts:
            pinned = found.entity == "unnamed" or found.pinned
            if not (
                part.labels & binding.entities or (binding.meaning | sentence) & part.own_meaning
            ):
                pinned = False  # the sentence names neither the part's row nor its quantity
            wholes: list[tuple[float, tuple[Fact, ...], str]] = []
            series = self.series[part.series]
            one_period = found.pinned and part.row_period is not None and bool(binding.periods)
            if len(series) >= 2 and not one_period:  # a week's share is not of every week
                wholes.append((self._totals[part.series], tuple(series), "column total"))
            wholes += [(other.value, (other,), "whole") for other in self._wholes_of(part)]
            if binding.in_table and binding.meaning & _ROW_RATE:
                wholes += self._with_another_of_its_row(part)
            joined = self._joined_columns(part, together)
            if joined:  # the columns added up with the part are parts too, never its whole
                wholes = [w for w in wholes if not any(f in joined for f in w[1])]
                out += self._joined_share(part, joined)
            # "153 appointments, 14 no-shows (one in 12)": the whole the sentence names
            named = [w for w in wholes if len(w[1]) == 1 and w[1][0].own_meaning & sentence]
            for total, used, how in wholes:
                if total <= 0:
                    continue
                share = part.value / total
                facts = (part, *used) if how != "column total" else self._first(part, used)
                chosen = len(wholes) == 1 or (len(named) == 1 and used == named[0][1])
                chosen = chosen and not (how == "column total" and binding.meaning & _ROW_RATE)
                out.append(Derived(share, "fraction", facts, f"share ({how})", pinned and chosen))
                if complement:
                    out.append(
                        Derived(1 - share, "fraction", facts, f"complement share ({how})", False)
                    )
        out += self._group_shares(binding)
        if complement:
            for fact in self.facts:
                if fact.unit in RATES and fit(claim, binding, fact) is not None:
                    top = 1.0 if fact.unit == "fraction" else 100.0
                    out.append(Derived(top - fact.value, fact.unit, (fact,), "complement", False))
        return out

    def _row_amounts(self, part: Fact) -> list[Fact]:
        """The amounts of the part's own row in its unit family: its columns that add up."""
        return [
            f
            for f in self._rows[(part.labels, part.scope)]
            if f.source is part.source
            and f.position == part.position
            and _amount(f)
            and _same_family(f, part)
        ]

    def _with_another_of_its_row(self, part: Fact) -> list[tuple[float, tuple[Fact, ...], str]]:
        """The part with another amount of its row as the whole: a table's rate column beside
        two outcomes ("attended", "no-shows") is most likely one outcome over both, but which
        two it adds is a guess, never pinned. Not a column whose name holds the other's
        ("failed items" beside "items"), which holds it."""
        mine = part.own_meaning
        return [
            (part.value + other.value, (other,), "with another of its row")
            for other in self._row_amounts(part)
            if not (other.own_meaning <= mine or mine <= other.own_meaning)
        ]

    def _joined_columns(self, part: Fact, added: frozenset[str]) -> list[Fact]:
        """The columns of the part's row its sentence adds up with it ("High and Severe
        together made up 22.7% of claims"), by the words of the sum: two at least, else none."""
        if not part.own_meaning or not part.own_meaning <= added:
            return []
        named = [f for f in self._row_amounts(part) if f.own_meaning and f.own_meaning <= added]
        return named if len(named) >= 2 else []

    def _joined_share(self, part: Fact, joined: list[Fact]) -> list[Derived]:
        """The named columns together over all the amounts of their row, once (for the first
        of them): the whole a share of several bands of one row most likely has, unpinned,
        since the row's columns need not split one whole."""
        row = self._row_amounts(part)
        total = sum(f.value for f in row)
        if part is not joined[0] or len(joined) == len(row) or total <= 0:
            return []
        rest = tuple(f for f in row if f not in joined)
        share = sum(f.value for f in joined) / total
        return [Derived(share, "fraction", (*joined, *rest), "share (named columns)", False)]

    def parts_of_a_mix(self, binding: Binding, *, cued: bool) -> list[Derived]:
        """Shares of one whole add up: the named rows of a series of shares that totals 100%
        ("North and South together are ~82% of volume")."""
        out = []
        for members in self.series.values():
            top = 100.0 if members[0].unit == "percent" else 1.0
            whole = abs(self._totals[members[0].series] - top) <= top / 50
            if members[0].unit not in RATES or not whole:
                continue
            named = [f for f in members if f.labels & binding.entities]
            if 2 <= len(named) < len(members):
                total = sum(f.value for f in named)
                out.append(Derived(total, members[0].unit, tuple(named), "sum", cued))
        return out

    def _group_shares(self, binding: Binding) -> list[Derived]:
        """The rows the claim names together over their column's total ("Software and
        Logistics account for 3 out of 10")."""
        out = []
        for _, series in self._first_of_each_series(_amount):
            named = [f for f in series if f.labels & binding.entities]
            total = sum(f.value for f in series)
            if 2 <= len(named) < len(series) and total > 0:
                rest = [f for f in series if f not in named]
                share = sum(f.value for f in named) / total
                out.append(Derived(share, "fraction", (*named, *rest), "share (named rows)", True))
        return out

    def _pairs(self, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """(subject, other, pinned, ordered) pairs of one metric told apart by the entities or
        periods the sentence names, or a named figure beside the overall one. The subject is
        the later period, else the entity the claim is bound to, else the first named; when
        none of these tells, the pair is unordered and only its magnitude can be checked."""
        entities, periods = self._named(binding)
        found: list[tuple[Fact, Fact, bool, bool]] = []
        for a, b, (ea, pa), (eb, pb) in self._told_apart(entities, periods):
            if not (_same_metric(a, b) or _overall_figure_of(a, b) or _overall_figure_of(b, a)):
                continue
            same_period = a.periods == b.periods or (pa == pb and pa is not None)
            overall_b = not b.labels and not b.scope
            overall_a = not a.labels and not a.scope
            if ea is not None and eb is not None and ea != eb and same_period:
                pinned = len(entities) == 2
                found += [(a, b, pinned, False), (b, a, pinned, False)]
            elif same_period and ((ea is not None and overall_b) or (eb is not None and overall_a)):
                subject, other = (a, b) if ea is not None else (b, a)
                found.append((subject, other, len(entities) == 1, True))
            elif (
                pa is not None
                and pb is not None
                and pa != pb
                and (ea is not None or not entities)  # the named row's change, not another's
                and a.labels == b.labels
                and (a.scope == b.scope or a.filters == b.filters)  # labelled "Q1 2024", "Q1 2025"
            ):
                later, earlier = (a, b) if _later(pa, pb) else (b, a)
                own = not binding.entities or ea in binding.entities  # "X (+16%)": X's change
                found.append((later, earlier, len(periods) == 2 and own, True))
        return found

    def _against_overall(
        self, claim: Claim, binding: Binding, pairs: list[tuple[Fact, Fact, bool, bool]]
    ) -> list[tuple[Fact, Fact, bool, bool]]:
        """The pairs, the claim's entity against the overall figure pinned when the words after
        the claim name that figure and no label ("2.3 points below the network", in a sentence
        naming two clinics)."""
        text = self.ctx.answer
        end = min(claim.span[1] + 30, binding.sentence[1])
        after = _OVERALL_AFTER.match(text, claim.span[1], end)
        if after is None or self.ctx.labels_in(claim.span[1], after.end()):
            return pairs
        return [
            (a, b, pinned or (_overall(b) and any(map(a.is_for, binding.entities))), ordered)
            for a, b, pinned, ordered in pairs
        ]

    def _previous(self, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a change stated beside one period ("2024: $91.2M (+12.6%)"): that period's
        value and the one just before it in the same metric."""
        if len(binding.periods) != 1 or self._a_base(binding, binding.periods[0]):
            return []
        period = binding.periods[0]
        out = []
        for fact in self.facts:
            own = [fp for fp in fact.periods if fp.within(period) and period.within(fp)]
            if not own:
                continue
            earlier = []
            for other in self._labelled[fact.labels]:
                if other is fact or not _same_metric(fact, other):
                    continue
                before = [
                    op for op in other.periods if op.grain == own[0].grain and _later(own[0], op)
                ]
                if before:
                    earlier.append((before[0], other))
            if earlier:
                latest = max(earlier, key=lambda pair: pair[0].bounds(pair[0].year or 2000)[0])
                year_before = [o for p, o in earlier if _year_before(p, own[0])]
                if year_before and not _adjacent(latest[0], own[0]):
                    out.append((fact, year_before[0], True, True))  # January 2025 on January 2024
                else:
                    out.append((fact, latest[1], _adjacent(latest[0], own[0]), True))
        return out

    def _to_base(self, claim: Claim, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a change whose clause names the period it is measured from ("a cut of 2.1
        minutes since 2023", "24% above 2023", "up 59% on January"), or whose sentence spans
        the whole ("over the period"): each row's value for the later period (the one the
        clause names, else its latest) over its value for the base (else its earliest). A
        period only inferred pins the pair when the answer has named it before the claim."""
        start, end = self._phrase(claim, binding)
        text = self.ctx.answer
        mentions = self.ctx.periods_in(start, end)
        bases = {m.period for m in mentions if _written_as_a_base(text, m.start)}
        subjects = {m.period for m in mentions} - bases
        over = _OVER_THE_PERIOD.search(text, *binding.sentence)
        if len(bases) > 1 or len(subjects) > 1 or not (bases or (over and not mentions)):
            return []
        base, subject = next(iter(bases), None), next(iter(subjects), None)
        named = [m.period for m in self.ctx.periods_in(0, claim.span[0])]
        start_at = base or _earliest(p for f in self.facts if (p := _period_of(f)) is not None)
        out = []
        for fact in self.facts:
            period = _period_of(fact)
            if period is None or start_at is None or not _in(period, start_at):
                continue
            if binding.entities and not any(map(fact.is_for, binding.entities)):
                continue
            peers = self._peers(fact, period)
            later = [
                (p, o) for p, o in peers if (_in(p, subject) if subject else _later(p, period))
            ]
            if later:
                top_period, top = max(
                    later, key=lambda pair: pair[0].bounds(pair[0].year or 2000)[0]
                )
                told = all(
                    any(_in(p, n) for n in named)
                    for p, given in ((top_period, subject), (period, base))
                    if given is None
                )
                out.append((top, fact, told, True))
        if len({(a.labels, a.scope) for a, _, _, _ in out}) > 1 and not binding.entities:
            return [(a, b, False, True) for a, b, _, _ in out]  # whose change, it does not say
        return out

    def period_led(self, claim: Claim, binding: Binding) -> bool:
        """Is the claim's clause about a period's value of the case's only quantity ("2025 was
        down 6%, still 24% above 2023")? Its words then need not name that quantity."""
        start, _ = self.sentence_phrase(claim, binding)
        first = next(iter(self.ctx.periods_in(start, claim.span[0])), None)
        return (
            self._one_metric
            and first is not None
            and _LEADING.fullmatch(self.ctx.answer, start, first.start) is not None
        )

    def _peers(self, fact: Fact, period: Period) -> list[tuple[Period, Fact]]:
        """The other values of the fact's metric and row, by their period of its grain."""
        out = []
        for other in self._labelled[fact.labels]:
            p = _period_of(other)
            if (
                other is not fact
                and p is not None
                and p.grain == period.grain
                and other.scope == fact.scope
                and _same_metric(fact, other)
            ):
                out.append((p, other))
        return out

    def _a_base(self, binding: Binding, period: Period) -> bool:
        """Is the period written only as what a change is measured against ("vs 2024",
        "compared with Q1")? The change is then another period's, not this one's."""
        text = self.ctx.answer
        mentions = [m for m in self.ctx.periods_in(*binding.sentence) if m.period == period]
        return bool(mentions) and all(written_as_base(text, m.start) for m in mentions)

    def _first_anchors(self, facts: Iterable[Fact], start: int, end: int) -> dict[int, int]:
        """Where each fact stated in the answer between ``start`` and ``end`` is first stated
        there, by the fact's id."""
        out = {}
        for fact in facts:
            found = [p for p in self.anchors.get(id(fact), ()) if start <= p < end]
            if found:
                out[id(fact)] = min(found)
        return out

    def _stated_pair(self, claim: Claim, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a change written after the two levels it compares, in one table row or clause
        ("| Harbor | $210 | $221 | +5.0% |", "North: 77.4%, up 6.4 points on 71.0%"): those two
        facts, of one metric and one row from two references; the later period is the subject,
        else the pair is unordered. With only one level stated, the same row's value in the
        other reference, when there is exactly one."""
        at = self._first_anchors(self.facts, binding.clause[0], claim.span[0])
        stated = [f for f in self.facts if id(f) in at]
        if len(stated) == 1:
            stated += [
                other
                for other in self._rows[(stated[0].labels, stated[0].scope)]
                if other.source is not stated[0].source and _same_metric(other, stated[0])
            ]
        if len(stated) != 2 or stated[0].source is stated[1].source:
            return []
        a, b = stated
        if a.labels != b.labels or not _same_metric(a, b):
            return []
        pa, pb = next(iter(a.periods), None), next(iter(b.periods), None)
        if pa is not None and pb is not None and pa != pb:
            later, earlier = (a, b) if _later(pa, pb) else (b, a)
            return [(later, earlier, True, True)]
        return [(a, b, True, False), (b, a, True, False)]

    def _listed_pair(self, claim: Claim, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a change in a list item right after two items stating its two levels, one a line
        ("- 2024: 26%", "- 2025: 14%", "- Change: -12 points"): those two, as written in one
        clause."""
        item = self.ctx.layout.item_of(claim.span[0])
        if item is None:
            return []
        before = self.ctx.layout.items_before(item, 2)
        lines = [item, *before]
        if len(before) < 2 or any(
            self.ctx.answer[b.end : a.start].strip() for a, b in itertools.pairwise(lines)
        ):
            return []
        return self._stated_pair(claim, replace(binding, clause=(before[-1].start, claim.span[0])))

    def _own_pair(self, claim: Claim, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a change written right after two values of its own row, with no label between
        them ("Starter $13.77 vs $15 list (8.2% below)" in a sentence naming every plan): those
        two, whichever other rows the sentence names; the later period is the subject, and of
        two quantities of one period either may be the base ("vs", "from … to")."""
        start, _ = self._phrase(claim, binding)
        mentions = self.ctx.labels_in(start, claim.span[0])
        if mentions:
            start = mentions[-1].start
        at = self._first_anchors(self.facts, start, claim.span[0])
        if len(at) != 2:
            return []
        a, b = sorted((f for f in self.facts if id(f) in at), key=lambda f: at[id(f)])
        if a.labels != b.labels or a.scope != b.scope or not _same_family(a, b):
            return []
        pa, pb = (f.row_period or next(iter(f.periods), None) for f in (a, b))
        if pa is not None and pb is not None and pa != pb:
            if not _same_metric(a, b):
                return []
            return [(a, b, True, True) if _later(pa, pb) else (b, a, True, True)]
        if a.source is not b.source or a.column == b.column or family(a.unit) is None:
            return []  # of one period: two quantities of one row, each of a known unit
        return [(a, b, True, False), (b, a, True, False)]

    def _to_extreme(
        self, claim: Claim, binding: Binding
    ) -> list[tuple[Fact, Fact, bool, bool]] | None:
        """For a change to a column's extreme ("about 43% below the peak"): each value its
        statement states before it against its column's highest (or lowest) value, unpinned,
        since which value is the peak is read from the references, not from the words. None
        when the claim names no extreme."""
        text = self.ctx.answer
        end = min(claim.span[1] + 30, binding.sentence[1])
        named = _TO_EXTREME.search(text, claim.span[0], end)
        if named is None:
            return None
        high = named.group(1).lower() in ("peak", "high", "top", "maximum", "record")
        pick = max if high else min
        start, _ = self.sentence_phrase(claim, binding)
        at = self._first_anchors(self.facts, start, claim.span[0])
        out = []
        for fact in self.facts:
            members = self.series[fact.series]
            if id(fact) not in at or len(members) < 3:
                continue
            extreme = pick(members, key=lambda f: f.value)
            if extreme is not fact:
                out.append((fact, extreme, False, True))
        return out

    def _to_last_stated(
        self, claim: Claim, binding: Binding
    ) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a gap naming one row only ("X was lowest at 106.2, 13.5 less"): that row's value
        and the other row's value of its metric and period stated last before it, unordered
        and unpinned, since the other side is only inferred."""
        if len(binding.entities) != 1:
            return []
        at = self._first_anchors(self.facts, 0, claim.span[0])
        here = self._first_anchors(
            self.facts, self.sentence_phrase(claim, binding)[0], claim.span[0]
        )
        out = []
        for a in self.facts:
            if id(a) not in here or not any(map(a.is_for, binding.entities)):
                continue  # its own value stated first: "lowest at 106.2, 13.5 less"
            others = [
                b
                for b in self.facts
                if id(b) in at
                and not any(map(b.is_for, binding.entities))
                and b.periods == a.periods
                and _same_metric(a, b)
            ]
            if others:
                out.append((a, max(others, key=lambda b: at[id(b)]), False, False))
        return out

    def _row_gaps(self, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a gap between two quantities of one named row ("Fleet 25 came in $201K under
        reserve" beside its reserve and its payments): each pair of its columns of one unit
        family, unordered and unpinned, so such a gap can be supported but never accused."""
        out: list[tuple[Fact, Fact, bool, bool]] = []
        named = set().union(*(self._rows_naming.get(e, ()) for e in binding.entities))
        for key in sorted(named, key=lambda k: self._index[id(self._rows[k][0])]):
            for a, b in itertools.combinations(self._rows[key], 2):
                if (
                    a.column != b.column
                    and a.source is b.source
                    and a.periods == b.periods
                    and family(a.unit) is not None
                    and _same_family(a, b)
                ):
                    out.append((a, b, False, False))
        return out

    def changes(self, claim: Claim, binding: Binding, unit: Unit | None) -> list[Derived]:
        """Differences (in the facts' unit, or points for rates) and relative changes (%)."""
        out: list[Derived] = []
        own = self._own_pair(claim, binding)
        pairs = own or self._against_overall(claim, binding, self._pairs(binding))
        extreme = self._to_extreme(claim, binding)
        if extreme is not None:
            pairs = own = extreme
        if written_signed(claim) and claim.kind != "comparison":
            # "South +0.9 minutes" against something unnamed: not its gap to another named row
            pairs = own or [p for p in pairs if p[3]]
        if claim.kind == "comparison" and _OWN_MOVE.search(
            self.ctx.answer, max(0, claim.span[0] - 25), claim.span[0]
        ):
            pairs = [p for p in pairs if p[3]]  # "APAC lost 8": its own change, no gap to LATAM
        if not pairs or not any(p[2] for p in pairs):
            pairs = self._to_base(claim, binding) or pairs
        if not pairs:
            pairs = self._previous(binding)
        if not any(p[2] for p in pairs):
            pairs = self._stated_pair(claim, binding) or pairs
        if not any(p[2] for p in pairs):  # "billed $125.2K, up from $102.1K — growth of 22%":
            start, _ = self.sentence_phrase(claim, binding)  # the sentence's two
            whole = replace(binding, clause=(start, binding.clause[1]))
            pairs = self._stated_pair(claim, whole) or pairs
        if not any(p[2] for p in pairs):  # "- 2024: 565 / - 2025: 695 / - Growth: 23%"
            pairs = self._listed_pair(claim, binding) or pairs
        if not pairs and claim.kind == "comparison":
            pairs = self._row_gaps(binding) or self._to_last_stated(claim, binding)
        for a, b, pinned, ordered in pairs:
            rate = a.unit in RATES
            factor = 100.0 if a.unit == "fraction" else 1.0
            diff = (a.value - b.value) * (factor if rate else 1.0)
            diff_unit: Unit | None = "points" if rate else a.unit
            if rate and unit == "fraction":
                pass  # "a quarter lower" is relative, not points
            elif ordered or (b, a) not in {(x.facts[0], x.facts[1]) for x in out}:
                out.append(Derived(diff, diff_unit, (a, b), "difference", pinned, ordered))
            if b.value:
                relative = (a.value - b.value) / abs(b.value)
                out.append(
                    Derived(
                        relative,
                        "fraction",
                        (a, b),
                        "relative change",
                        pinned and not rate,
                        ordered,
                    )
                )
        return out

    def spreads(self, binding: Binding, unit: Unit | None) -> list[Derived]:
        """The gap between the largest and smallest value of each column of three rows or more
        ("the spread from slowest to fastest is 51 minutes"), in points for rates; pinned when
        one column is of the claim's unit and its sentence names that column's quantity."""
        usable = self._first_of_each_series(lambda f: comparable(unit, f))
        series = [members for _, members in usable if len(members) >= 3]
        sentence = tokens(self.ctx.answer[binding.sentence[0] : binding.sentence[1]])
        out = []
        for members in series:
            high = max(members, key=lambda f: f.value)
            low = min(members, key=lambda f: f.value)
            rate = high.unit in RATES
            factor = 100.0 if high.unit == "fraction" else 1.0
            pinned = len(series) == 1 and bool((sentence | binding.lead_in) & high.meaning)
            out.append(
                Derived(
                    (high.value - low.value) * factor,
                    "points" if rate else high.unit,
                    (high, low),
                    "spread",
                    pinned,
                )
            )
        return out

    def _lone_partner(self, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
        """For a comparison naming one side only ("Collision work took 45 times as long"
        beside the oil-change figure): the named fact and the one other value of its metric
        and period, unordered and unpinned, since the other side is only inferred."""
        entities, _ = self._named(binding)
        named = [a for a in self.facts if any(a.is_for(e) for e in entities)]
        if len(named) > _MAX_RUN:
            return []  # a label of many rows names no one side
        out = []
        for a in named:
            partners = [
                b
                for b in self.facts
                if b is not a
                and b.periods == a.periods
                and _same_metric(a, b)
                and not any(b.is_for(e) for e in entities)
            ]
            if len(partners) == 1:
                out.append((a, partners[0], False, False))
        return out

    def ratios(self, claim: Claim, binding: Binding) -> list[Derived]:
        out = []
        for a, b, pinned, _ in self._pairs(binding) or self._lone_partner(binding):
            if a.value and b.value:
                low, high = sorted((abs(a.value), abs(b.value)))
                value = high / low if abs(claim.value or 0) >= 1 else low / high
                out.append(Derived(value, "ratio", (a, b), "ratio", pinned, signed=False))
        return out

    def sums(
        self, claim: Claim, binding: Binding, unit: Unit | None, *, cued: bool
    ) -> list[Derived]:
        """A whole column, or the rows the sentence names, added up."""
        out: list[Derived] = []
        entities, _ = self._named(binding)
        if len(binding.entities) >= 2:  # "churn and contraction together took $82.7K"
            entities = sorted(binding.entities)
        usable = self._first_of_each_series(lambda f: comparable(unit, f) and _amount(f))
        for fact, series in usable:
            within = [
                f
                for f in series
                if binding.periods
                and all(any(fp.within(p) for fp in f.periods) for p in binding.periods)
            ]
            if 2 <= len(within) < len(series):  # "Q1 2024 total: 2,068" over monthly rows
                out.append(
                    Derived(sum(f.value for f in within), fact.unit, tuple(within), "sum", cued)
                )
            elif len(series) >= 2:
                every = cued and len(within) == len(series)  # "November's total", all rows in it
                whole = not binding.entities and (
                    every
                    or self._says_all(binding, len(series), cued)
                    or self._total_of_its_table(claim, series)
                )
                out.append(
                    Derived(sum(f.value for f in series), fact.unit, tuple(series), "total", whole)
                )
            named = [f for f in series if f.labels & set(entities)]
            if 2 <= len(named) < len(series):  # "Friday to Sunday" names three rows, not two
                clause = {m.key for m in self.ctx.labels_in(*self._phrase(claim, binding))}
                pinned = (
                    cued
                    and not self.ctx.labels_as_a_range(*binding.sentence)
                    and all(f.labels & clause for f in named)  # not "…, and X beat Y"
                )
                out.append(
                    Derived(sum(f.value for f in named), fact.unit, tuple(named), "sum", pinned)
                )
        if cued and len(binding.entities) < 2 and not claim.hedged and not self._total_row(claim):
            out += self._stated_runs(claim, unit)
        scalars: dict[tuple[str, str | None], list[Fact]] = {}
        for fact in self.facts:
            if not fact.labels and comparable(unit, fact):
                scalars.setdefault((fact.source.reference.target, fact.column), []).append(fact)
        for group in scalars.values():  # all of them: one that is no amount leaves no sum
            if binding.periods:  # "Full-year 2024 revenue" adds 2024's quarters, not 2025's
                group = [
                    f
                    for f in group
                    if all(any(fp.within(p) for fp in f.periods) for p in binding.periods)
                ]
            if len(group) >= 2 and all(map(_amount, group)):
                out.append(
                    Derived(sum(f.value for f in group), group[0].unit, tuple(group), "sum", cued)
                )
        return out

    def _total_row(self, claim: Claim) -> tuple[Table, Row] | None:
        """The table and row the claim is in when the row's label says it is the total
        ("| **Total** | $81.8K |"): it adds the whole column above it, not a run of its rows."""
        found = self.ctx.layout.cell_of(claim.span[0])
        if found is None:
            return None
        table, row, cell = found
        label = row.cells[0]
        return (table, row) if cell.column > 0 and _TOTAL_LABEL.fullmatch(label.text) else None

    def _total_of_its_table(self, claim: Claim, series: Sequence[Fact]) -> bool:
        """Is the claim the total row of a table whose rows above it state every row of the
        series? Its column's total is then what it states."""
        found = self._total_row(claim)
        if found is None:
            return False
        table, row = found
        stated = self._first_anchors(series, table.rows[0].start, row.start)
        return len(stated) == len(series)

    def _stated_runs(self, claim: Claim, unit: Unit | None) -> list[Derived]:
        """For a sum whose rows are named only before its sentence ("Southeast 213 and
        Northeast 202. … Together the two account for 415"): the rows of one series that
        claims before it state, each run of them in the order written, unpinned. Not for a
        hedged claim: one of the dozens of runs of a long list is "around 240" by chance."""
        out = []
        for members in self.series.values():
            if not (comparable(unit, members[0]) and _amount(members[0])):
                continue
            at = self._first_anchors(members, 0, claim.span[0])
            stated = sorted((f for f in members if id(f) in at), key=lambda f: at[id(f)])
            for i, j in itertools.combinations(range(len(stated[:_MAX_RUN]) + 1), 2):
                if j - i >= 2:
                    run = tuple(stated[i:j])
                    out.append(Derived(sum(f.value for f in run), run[0].unit, run, "sum", False))
        return out

    def _says_all(self, binding: Binding, size: int, cued: bool) -> bool:
        """Does the claim's sentence say the total is over every row: a total word with "all",
        "network", "overall"…, or the number of rows ("the five reps", "the four weeks")?"""
        clause = self.ctx.answer[binding.clause[0] : binding.clause[1]]
        if cued and re.search(
            r"\b(?i:all|every|whole|entire|overall|network|group|grand|company)\b", clause
        ):
            return True
        counts = re.findall(
            r"\b(?i:the|these|those|all|its|our|their|each\s+of\s+the)\s+(\d{1,2}|two|three|four|"
            r"five|six|seven|eight|nine|ten|eleven|twelve)\s+[a-z]",
            clause,
        )
        return any((int(c) if c.isdigit() else WORD_VALUES.get(c.lower())) == size for c in counts)

    def means(self, binding: Binding, unit: Unit | None) -> list[Derived]:
        """The mean of a series over its periods ("about 197 a month" over six monthly rows),
        within the periods the claim names."""
        out = []
        usable = self._first_of_each_series(
            lambda f: comparable(unit, f) and f.row_period is not None
        )
        for fact, series in usable:
            rows = [
                f
                for f in series
                if f.row_period is not None
                and all(any(fp.within(p) for fp in f.periods) for p in binding.periods)
            ]
            if len(rows) >= 2:
                mean = sum(f.value for f in rows) / len(rows)
                out.append(Derived(mean, fact.unit, tuple(rows), "mean", False))
        return out

    def _last_named(self, claim: Claim, fact: Fact) -> bool:
        """Is the fact's row the last one the answer named before the claim ("Holloway … His
        average deal was $41.4K")? A sentence naming no row is about that one, not any other
        ("… Studio 7 Sushi: 70 seats. That's 4.8 seats per table" is no ratio of the first row)."""
        named = self.ctx.label_before(claim.span[0])
        return not fact.labels or (named is not None and named.key in fact.labels)

    def per_item(self, claim: Claim, binding: Binding, unit: Unit | None) -> list[Derived]:
        """An amount over a count ("29 minutes per visit", "$41,411 per car")."""
        out = []
        for a in self.facts:
            if not comparable(unit, a) or family(a.unit) not in (
                "money",
                "duration",
                "count",
                None,
            ):
                continue
            fa = fit(claim, binding, a)
            if fa is None or (fa.entity == "row" and not self._last_named(claim, a)):
                continue
            for b in self._rows[(a.labels, a.scope)]:
                if (
                    b is a
                    or b.unit != "count"
                    or not b.value
                    or (family(a.unit) == "count" and a.series == b.series)
                ):
                    continue
                if fit(claim, binding, b) is None:
                    continue
                out.append(Derived(a.value / b.value, a.unit, (a, b), "amount per item", False))
        return out


_OVER_THE_PERIOD = re.compile(
    r"\b(?i:over|across|throughout)\s+(?:the|that|this|these|those)\s+(?:whole\s+|entire\s+)?"
    r"(?:period|span|stretch|window|(?:\w+\s+)?(?:years|quarters|months|weeks))\b"
)
"""A change over the whole span of the values ("over the period", "over the two years")."""
_TO_EXTREME = re.compile(
    r"\b(?i:below|above|under|off|from|than|on)\s+(?i:the|its|their)\s+(?:[\w-]+\s+)?"
    r"(?i:(peak|high|top|maximum|record|low|trough|bottom|minimum))s?\b"
)
"""A change measured against a column's extreme: "below the peak", "above its January low"."""
_LEADING = re.compile(r"[\W_]*(?:(?i:and|but|while|whereas|the|in|by)\s+)*")
"""Words a clause may open with before its subject."""
_BASE_AFTER = re.compile(r"\b(?i:on|above|below|ahead\s+of|behind)\s+(?:the\s+)?$")
"""Before the period a comparative is measured from: "up 59% on January", "above 2023"."""


def _written_as_a_base(text: str, start: int) -> bool:
    """Is the period at ``start`` what a change is measured from ("since 2023", "vs Q1",
    "24% above 2023", "up 59% on January")?"""
    return written_as_base(text, start) or bool(_BASE_AFTER.search(text, max(0, start - 12), start))


def _period_of(fact: Fact) -> Period | None:
    """The period a fact is for: its row's, else its reference's only one."""
    if fact.row_period is not None:
        return fact.row_period
    return fact.periods[0] if len(fact.periods) == 1 else None


def _earliest(periods: Iterable[Period]) -> Period | None:
    """The period that starts first ("over the period" runs from it)."""
    return min(periods, key=lambda p: p.bounds(p.year or 2000)[0], default=None)


def _in(period: Period, named: Period) -> bool:
    """Is a fact's period the one named (of its grain)?"""
    return period.grain == named.grain and period.within(named)


def _adjacent(earlier: Period, later: Period) -> bool:
    """Is ``earlier`` the period just before ``later`` (December 2024 before January 2025)?"""
    if earlier.grain != later.grain or earlier.grain in ("day", "other"):
        return False
    if earlier.grain == "year":
        return _year_before(earlier, later)
    per_year = {"half": 2, "quarter": 4, "month": 12}[earlier.grain]
    year = later.year or earlier.year or 2000
    step = (later.index - 2) % per_year + 1
    return earlier.index == step and (earlier.year or year) == year - (later.index == 1)


def _year_before(earlier: Period, later: Period) -> bool:
    """The same part of the year before ("Q3 2024" for "Q3 2025")."""
    return (
        earlier.grain == later.grain
        and earlier.index == later.index
        and earlier.year is not None
        and later.year is not None
        and earlier.year == later.year - 1
    )


def _later(a: Period, b: Period) -> bool:
    """Is ``a`` later than ``b``? A period named without a year takes the other's year."""
    if "other" in (a.grain, b.grain):
        return False
    year = a.year or b.year or 2000
    return a.bounds(a.year or year)[0] > b.bounds(b.year or year)[0]
