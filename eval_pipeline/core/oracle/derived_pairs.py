"""The two values a gap or change compares, as its sentence names or states them: two named
entities or periods, a named figure beside the overall one, two levels written before it."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from eval_pipeline.core.models import Claim
from eval_pipeline.core.oracle.binding import AnswerContext, Binding
from eval_pipeline.core.oracle.claim_words import THAN
from eval_pipeline.core.oracle.derived import (
    MAX_RUN,
    Deriver,
    same_family,
    same_metric,
)
from eval_pipeline.core.oracle.facts import (
    Fact,
    column_period,
    entity_scope,
    is_total_row,
    metric_words,
    names_every_row,
    scope_labels,
)
from eval_pipeline.core.oracle.periods import Period, is_later
from eval_pipeline.core.oracle.units import family

OVERALL_WORDS = (
    r"(?:(?i:network|chain|company|group|overall|all)\b|[a-z]+-wide\b|[a-z]+\s+(?i:average|mean)\b)"
)
"""Words naming the figure for everything: "the network", "platform-wide", "the chain average"."""
_OVERALL_AFTER = re.compile(
    r"(?:\s+(?i:than|the|vs\.?|versus|against|of|for|relative\s+to|compared\s+(?:with|to)))*"
    rf"\s+{OVERALL_WORDS}"
)
"""After a gap, the overall figure it is to: "below the network", "than the chain", "versus
the overall average", "below the platform-wide 68.9", "+2.0 min relative to the network",
"against the platform average" (words naming no label: "the Northeast average" is a row's)."""
_SETS_A_BASE = re.compile(
    r"[\s*_#>-]*(?i:against|versus|vs\.?|compared\s+(?:with|to)|relative\s+to|benchmarked\s+"
    r"against)\b"
)
"""Words opening a lead-in that sets up what the figures after it are measured against:
"Against a 2024 network rate of 1.50%:"."""
_WHOLE_NAMED = re.compile(rf"\b(?i:the)\s+{OVERALL_WORDS}")
"""The figure for everything named in words: "below the group rate", "than the network"."""
_POINTS_BACK = re.compile(r"[\s*_]*(?i:that|it)\b(?![\s*_]*(?:of|for|['’]s)\b)")
"""A pronoun right after a comparative, for the figure stated last: "33.6 minutes above that",
"0.9 minutes below it" (not "above that of West")."""
_TO_EXTREME = re.compile(
    r"\b(?i:below|above|under|off|from|than|on)\s+(?i:the|its|their)\s+(?:[\w-]+\s+)?"
    r"(?i:(peak|high|top|maximum|record|low|trough|bottom|minimum))s?\b"
)
"""A change measured against a column's extreme: "below the peak", "above its January low"."""


def _overall(fact: Fact) -> bool:
    """A figure for everything: no row label, no entity scope."""
    return not fact.labels and not fact.scope


def _unnarrowed(fact: Fact) -> bool:
    """A figure no entity param narrows, whatever the label its reference gives it: a function
    called with none ("all clubs"), or a query whose label names every row ("All regions"; a
    query's own filters may be written in its text, so another label may name an entity)."""
    if fact.labels or fact.filters:
        return False
    own = scope_labels(fact.source)
    return fact.source.reference.kind != "sql" or all(map(names_every_row, own))


def _whole_of(row: Fact, other: Fact) -> bool:
    """Is ``other`` the figure for everything beside ``row``: overall, or unnarrowed beside a
    row its labels or entity params narrow ("all clubs" beside ``club: Route 66``)?"""
    return _overall(other) or (_unnarrowed(other) and bool(row.filters | row.labels))


def _baseline_of(row: Fact, other: Fact) -> bool:
    """Is ``other`` the figure for everything of the quantity and period ``row`` is one part
    of: the overall value beside the row's, or its column's total row?"""
    if other is row or other.periods != row.periods or _overall(row) or is_total_row(row):
        return False
    if other.series == row.series:
        return is_total_row(other)
    return _wider(row, other) and (same_metric(row, other) or _overall_figure_of(row, other))


def _overall_figure_of(row: Fact, overall: Fact) -> bool:
    """Is ``overall`` the one figure for everything of the quantity a table column holds per
    row: a lone value with no label, of the column's unit, named by no words or by words that
    hold the column's ("chain_avg_lead_time_days" beside rows of "avg_lead_time")? A named
    row is then compared with it ("0.29 above the chain")."""
    if overall.labels or overall.scope or overall.column is not None or row.column is None:
        return False
    words = metric_words(row.own_meaning)
    return (
        same_family(row, overall)
        and bool(words)
        and (not overall.meaning or words <= overall.meaning)
    )


def named_pairs(deriver: Deriver, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
    """(subject, other, pinned, ordered) pairs of one metric told apart by the entities or
    periods the sentence names, or a named figure beside the overall one. The subject is
    the later period, else the entity the claim is bound to, else the first named; when
    none of these tells, the pair is unordered and only its magnitude can be checked."""
    entities, periods = deriver.named(binding)
    found: list[tuple[Fact, Fact, bool, bool]] = []
    for a, b, (ea, pa), (eb, pb) in _told_apart(deriver, entities, periods):
        if not (same_metric(a, b) or _overall_figure_of(a, b) or _overall_figure_of(b, a)):
            continue
        same_period = a.periods == b.periods or (pa == pb and pa is not None)
        overall_b, overall_a = _whole_of(a, b), _whole_of(b, a)
        if ea is not None and eb is not None and ea != eb and same_period:
            pinned = len(entities) == 2 or binding.entities == {ea, eb}
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
            later, earlier = (a, b) if is_later(pa, pb) else (b, a)
            own = not binding.entities or ea in binding.entities  # "X (+16%)": X's change
            found.append((later, earlier, len(periods) == 2 and own, True))
        elif ea is not None and eb is not None and ea != eb and _labelled_periods(a, b):
            # references labelled by their periods ("2023-24", "2024-25"): a change
            later, earlier = (a, b) if is_later(a.periods[0], b.periods[0]) else (b, a)
            pinned = len(entities) == 2 or binding.entities == {ea, eb}
            found.append((later, earlier, pinned, True))
    rows = {(a.labels, a.scope) for a, _, _, ordered in found if ordered}
    if not entities and len(rows) > 1:  # each row's change between the periods: whose, unsaid
        return [(a, b, False, ordered) for a, b, _, ordered in found]
    return found


def _labelled_periods(a: Fact, b: Fact) -> bool:
    """Are the two facts one quantity of one scope in two periods of one grain, each
    reference told apart only by its label ("2023-24" for ``season_year`` 2023)?"""
    if a.labels or b.labels or len(a.periods) != 1 or len(b.periods) != 1:
        return False
    pa, pb = a.periods[0], b.periods[0]
    return pa.grain == pb.grain and pa != pb and entity_scope(a) == entity_scope(b)


def _for(
    deriver: Deriver, fact: Fact, entities: Iterable[str], periods: Iterable[Period]
) -> tuple[str | None, Period | None]:
    """Which named entity and which named period a fact is for."""
    entity = next((e for e in entities if fact.is_for(e)), None)
    period = next(
        (p for p in periods if any(fp.within(p) and fp.grain == p.grain for fp in fact.periods)),
        None,
    )
    return entity, period


def _told_apart(
    deriver: Deriver, entities: Sequence[str], periods: Sequence[Period]
) -> list[tuple[Fact, Fact, tuple[str | None, Period | None], tuple[str | None, Period | None]]]:
    """The pairs of facts (in fact order) that the named entities or periods may tell
    apart: both for a named entity or period, or one for a named entity beside an overall
    figure. Any other pair gives no difference, so only these are read (a reference of
    thousands of rows makes millions of pairs)."""
    tags = [_for(deriver, f, entities, periods) for f in deriver.facts]
    named = [i for i, (e, p) in enumerate(tags) if e is not None or p is not None]
    for_entity = [i for i in named if tags[i][0] is not None]
    overall = [i for i, f in enumerate(deriver.facts) if _unnarrowed(f) and tags[i] == (None, None)]
    pairs = set(itertools.combinations(named, 2))
    pairs |= {(min(i, j), max(i, j)) for i in for_entity for j in overall}
    return [(deriver.facts[i], deriver.facts[j], tags[i], tags[j]) for i, j in sorted(pairs)]


def measured_against_overall(ctx: AnswerContext, claim: Claim, binding: Binding) -> bool:
    """Do the words right after the claim name the overall figure, and no label ("2.3 points
    below the network")?"""
    end = min(claim.span[1] + 30, binding.sentence[1])
    after = _OVERALL_AFTER.match(ctx.answer, claim.span[1], end)
    return after is not None and not ctx.labels_in(claim.span[1], after.end())


def against_overall(
    deriver: Deriver, claim: Claim, binding: Binding, pairs: list[tuple[Fact, Fact, bool, bool]]
) -> list[tuple[Fact, Fact, bool, bool]]:
    """The pairs, the claim's entity against the overall figure pinned when the words after
    the claim name that figure and no label ("2.3 points below the network", in a sentence
    naming two clinics); any other pair unpinned, since those words say what the claim is
    measured against ("2.7 times the company average" is no ratio of one plant's two years)."""
    if not measured_against_overall(deriver.ctx, claim, binding):
        return pairs
    return [
        (a, b, _wider(a, b) and (pinned or any(map(a.is_for, binding.entities))), ordered)
        for a, b, pinned, ordered in pairs
    ]


_RATIO_OBJECT = re.compile(
    r"(?:\s+(?i:as\s+(?:much|many|long|large|high|big)(?:\s+[a-z][\w-]*){0,2}?\s+as|that\s+of))?"
    r"\s+"
)
"""Between a ratio and the row it is measured against: "double Bay Shuttle's", "3x as many as
Point 7"."""
_OBJECT_START = re.compile(r"(?i:the\s+|that\s+of\s+|those\s+of\s+|at\s+|in\s+|for\s+)?")


def than_named(
    deriver: Deriver, claim: Claim, binding: Binding, pairs: list[tuple[Fact, Fact, bool, bool]]
) -> list[tuple[Fact, Fact, bool, bool]]:
    """The pairs, the claim's entity against the row named right after its "than" (or right
    after a ratio: "more than double Bay Shuttle's") pinned and ordered; a ratio's subject is
    the row its sentence opens with, if any ("Chat takes 3.1 minutes more than phone and about
    twice as long as email"): those words say which rows it compares, however many rows the
    sentence names."""
    text = deriver.ctx.answer
    than = THAN.match(text, claim.span[1], binding.sentence[1])
    if than is None and claim.unit == "ratio":  # "more than double Bay Shuttle's"
        than = _RATIO_OBJECT.match(text, claim.span[1], binding.sentence[1])
    if than is None:
        return pairs
    skipped = _OBJECT_START.match(text, than.end())
    start = skipped.end() if skipped else than.end()
    named = deriver.ctx.labels_in(than.end(), start + 1)
    if not named:
        return pairs
    other = named[0].key
    mine = binding.entities - {other}
    if claim.unit == "ratio":  # "Chat takes 3.1 minutes more than phone and 2x as long as
        first = deriver.ctx.labels_in(binding.sentence[0], claim.span[0])  # email": Chat's
        opening = first and not text[binding.sentence[0] : first[0].start].strip(" \t*_#>-")
        mine = ({first[0].key} - {other} if opening else set()) or mine
    if len(mine) != 1:
        return pairs
    subject = next(iter(mine))
    return [
        (a, b, True, True)
        if a.is_for(subject) and b.is_for(other) and not (a.is_for(other) or b.is_for(subject))
        else (a, b, pinned, ordered)
        for a, b, pinned, ordered in pairs
    ]


def _wider(a: Fact, b: Fact) -> bool:
    """Is ``b`` a figure over more than ``a``: overall, or scoped by fewer of the same labels
    ("sales" beside "sales / Lakeside")?"""
    return _whole_of(a, b) or (not b.labels and b.scope < a.scope | a.labels)


def against_baseline(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a gap of the one row its clause names to a figure set up apart from it: the figure
    its list's lead-in (or its sentence before a colon) states after "against", "versus"…
    ("Against a network rate of 1.50%: - Southeast 1.83% (+0.42 pts)"), else the figure a
    pronoun after it points back to, the one of its quantity mentioned last ("The average
    outage lasted 128.3 minutes. South ran 33.6 minutes above that"), both pinned; else the
    figure for everything stated before it, which may support the claim but never accuses it.
    The row's value is the subject."""
    if len(binding.entities) != 1:
        return []
    entity = next(iter(binding.entities))
    rows = [a for key in deriver.rows_naming.get(entity, ()) for a in deriver.rows[key]]
    lead = _base_lead(deriver, claim, binding)
    if lead is not None:
        set_up = deriver.first_anchors(deriver.facts, *lead)
        bases = [(a, b) for a in rows for b in deriver.facts if id(b) in set_up]
        found = [(a, b, True, True) for a, b in bases if _beside(a, b, entity)]
        if found:
            return found
    if _POINTS_BACK.match(deriver.ctx.answer, claim.span[1]):
        found = [(a, b, True, True) for a in rows if (b := _mentioned_last(deriver, claim, a))]
        if found:
            return found
    before = deriver.first_anchors(deriver.facts, 0, claim.span[0])
    return [
        (a, b, False, True)
        for a in rows
        for b in deriver.facts
        if id(b) in before and _baseline_of(a, b)
    ]


def _beside(row: Fact, other: Fact, entity: str) -> bool:
    """Is ``other`` a figure of the row's quantity and period for another row or for every
    row, so one the row's value may be measured against?"""
    return (
        other.periods == row.periods
        and not other.is_for(entity)
        and (same_metric(row, other) or _overall_figure_of(row, other))
    )


def _base_lead(deriver: Deriver, claim: Claim, binding: Binding) -> tuple[int, int] | None:
    """The words setting up what the claim is measured against: its list's lead-in line, else
    its sentence up to a colon before it, when they open with "against", "versus"…"""
    text = deriver.ctx.answer
    lead = (
        deriver.ctx.layout.lead_in(claim.span[0])
        if deriver.ctx.layout.item_of(claim.span[0])
        else None
    )
    if lead is None:
        colon = text.rfind(":", binding.sentence[0], claim.span[0])
        lead = (binding.sentence[0], colon) if colon >= 0 else None
    if lead is None or not _SETS_A_BASE.match(text, lead[0], lead[1]):
        return None
    return lead


def _mentioned_last(deriver: Deriver, claim: Claim, row: Fact) -> Fact | None:
    """The figure of the row's quantity and period mentioned last before the claim, apart from
    the row's own: a value an earlier claim states, or the figure for everything named in
    words ("below the group rate"); what a pronoun after the claim points back to."""
    entity = next(iter(row.labels or row.scope), "")
    last: tuple[int, Fact | None] = (-1, None)
    for fact in deriver.facts:
        if fact is row or not _beside(row, fact, entity):
            continue
        found = [p for p in deriver.anchors.get(id(fact), ()) if p < claim.span[0]]
        if found and max(found) > last[0]:
            last = (max(found), fact)
    wholes = [f for f in deriver.facts if _baseline_of(row, f)]
    named = [m.start() for m in _WHOLE_NAMED.finditer(deriver.ctx.answer, 0, claim.span[0])]
    if len(wholes) == 1 and named and named[-1] > last[0]:
        return wholes[0]
    return last[1]


def stated_pair(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a change written after the two levels it compares, in one table row or clause
    ("| Harbor | $210 | $221 | +5.0% |", "North: 77.4%, up 6.4 points on 71.0%"): those two
    facts, of one metric and one row from two references; the later period is the subject,
    else the pair is unordered. With only one level stated, the same row's value in the
    other reference, when there is exactly one."""
    at = deriver.first_anchors(deriver.facts, binding.clause[0], claim.span[0])
    stated = [f for f in deriver.facts if id(f) in at]
    if len(stated) == 1:
        stated += [
            other
            for other in deriver.rows[(stated[0].labels, stated[0].scope)]
            if other.source is not stated[0].source and same_metric(other, stated[0])
        ]
    if len(stated) != 2 or stated[0].source is stated[1].source:
        return []
    a, b = stated
    if a.labels != b.labels or not same_metric(a, b):
        return []
    pa, pb = next(iter(a.periods), None), next(iter(b.periods), None)
    if pa is not None and pb is not None and pa != pb:
        later, earlier = (a, b) if is_later(pa, pb) else (b, a)
        return [(later, earlier, True, True)]
    return [(a, b, True, False), (b, a, True, False)]


def listed_pair(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a change in a list item right after two items stating its two levels, one a line
    ("- 2024: 26%", "- 2025: 14%", "- Change: -12 points"): those two, as written in one
    clause."""
    item = deriver.ctx.layout.item_of(claim.span[0])
    if item is None:
        return []
    before = deriver.ctx.layout.items_before(item, 2)
    lines = [item, *before]
    if len(before) < 2 or any(
        deriver.ctx.answer[b.end : a.start].strip() for a, b in itertools.pairwise(lines)
    ):
        return []
    return stated_pair(deriver, claim, replace(binding, clause=(before[-1].start, claim.span[0])))


_TO_LEVEL = re.compile(r"\s+(?i:to)\s+$")


def level_reached(deriver: Deriver, claim: Claim) -> list[Fact] | None:
    """The facts a change's written end level states ("rose 17% to 511": those 511 states),
    or None when no level follows it."""
    starts = deriver.ctx.values
    i = bisect.bisect_left(starts, claim.span[1])
    if i >= len(starts) or not _TO_LEVEL.search(deriver.ctx.answer, claim.span[1], starts[i]):
        return None
    return [f for f in deriver.facts if starts[i] in deriver.anchors.get(id(f), ())]


def to_new_level(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]] | None:
    """For a change followed by the level it reached ("a peak of 24,045, then a drop of about
    23% to 18,560"; "up 10.6% to 252,901"): that level against the value of its row and
    quantity stated last before the change in its statement, the later period the subject.
    None when no level follows: the values before the change are then its ends."""
    reached = level_reached(deriver, claim)
    if reached is None:
        return None
    start, _ = deriver.sentence_phrase(claim, binding)
    before = deriver.first_anchors(deriver.facts, start, claim.span[0])
    out = []
    for a in reached:
        bases = [
            b
            for b in deriver.facts
            if id(b) in before
            and b is not a
            and (b.labels, b.scope) == (a.labels, a.scope)
            and same_metric(a, b)
        ]
        if not bases:
            continue
        b = max(bases, key=lambda f: before[id(f)])
        pa, pb = (f.row_period or column_period(f) or next(iter(f.periods), None) for f in (a, b))
        if pa is None or pb is None:
            out.append((a, b, False, True))  # "to" names the end; which came first, unsaid
        elif is_later(pa, pb):
            out.append((a, b, True, True))
    return out


def own_pair(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a change written right after two values of its own row, with no label between
    them ("Starter $13.77 vs $15 list (8.2% below)" in a sentence naming every plan): those
    two, whichever other rows the sentence names; the later period is the subject, and of
    two quantities of one period either may be the base ("vs", "from … to")."""
    start, _ = deriver.phrase(claim, binding)
    mentions = deriver.ctx.labels_in(start, claim.span[0])
    if mentions:
        start = mentions[-1].start
    at = deriver.first_anchors(deriver.facts, start, claim.span[0])
    if len(at) != 2:
        return []
    a, b = sorted((f for f in deriver.facts if id(f) in at), key=lambda f: at[id(f)])
    if a.labels != b.labels or a.scope != b.scope or not same_family(a, b):
        return []
    pa, pb = (f.row_period or column_period(f) or next(iter(f.periods), None) for f in (a, b))
    if pa is not None and pb is not None and pa != pb:
        if not same_metric(a, b):
            return []
        if a.source is b.source and a.column != b.column and not mentions:
            return []  # "| Total | 402 | 490 |" names no row: its sums anchor none of these
        return [(a, b, True, True) if is_later(pa, pb) else (b, a, True, True)]
    if a.source is not b.source or a.column == b.column or family(a.unit) is None:
        return []  # of one period: two quantities of one row, each of a known unit
    return [(a, b, True, False), (b, a, True, False)]


def to_extreme(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]] | None:
    """For a change to a column's extreme ("about 43% below the peak"): each value its
    statement states before it against its column's highest (or lowest) value, unpinned,
    since which value is the peak is read from the references, not from the words. None
    when the claim names no extreme."""
    text = deriver.ctx.answer
    end = min(claim.span[1] + 30, binding.sentence[1])
    named = _TO_EXTREME.search(text, claim.span[0], end)
    if named is None:
        return None
    high = named.group(1).lower() in ("peak", "high", "top", "maximum", "record")
    pick = max if high else min
    start, _ = deriver.sentence_phrase(claim, binding)
    at = deriver.first_anchors(deriver.facts, start, claim.span[0])
    out = []
    for fact in deriver.facts:
        members = deriver.series[fact.series]
        if id(fact) not in at or len(members) < 3:
            continue
        extreme = pick(members, key=lambda f: f.value)
        if extreme is not fact:
            out.append((fact, extreme, False, True))
    return out


def to_last_stated(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a gap naming one row only ("X was lowest at 106.2, 13.5 less"): that row's value
    and the other row's value of its metric and period stated last before it, unordered
    and unpinned, since the other side is only inferred."""
    if len(binding.entities) != 1:
        return []
    at = deriver.first_anchors(deriver.facts, 0, claim.span[0])
    here = deriver.first_anchors(
        deriver.facts, deriver.sentence_phrase(claim, binding)[0], claim.span[0]
    )
    out = []
    for a in deriver.facts:
        if id(a) not in here or not any(map(a.is_for, binding.entities)):
            continue  # its own value stated first: "lowest at 106.2, 13.5 less"
        others = [
            b
            for b in deriver.facts
            if id(b) in at
            and not any(map(b.is_for, binding.entities))
            and b.periods == a.periods
            and same_metric(a, b)
        ]
        if others:
            out.append((a, max(others, key=lambda b: at[id(b)]), False, False))
    return out


def row_gaps(deriver: Deriver, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a gap between two quantities of one named row ("Fleet 25 came in $201K under
    reserve" beside its reserve and its payments): each pair of its columns of one unit
    family, unordered and unpinned, so such a gap can be supported but never accused."""
    out: list[tuple[Fact, Fact, bool, bool]] = []
    named = set().union(*(deriver.rows_naming.get(e, ()) for e in binding.entities))
    for key in sorted(named, key=lambda k: deriver.index[id(deriver.rows[k][0])]):
        for a, b in itertools.combinations(deriver.rows[key], 2):
            if (
                a.column != b.column
                and a.source is b.source
                and a.periods == b.periods
                and family(a.unit) is not None
                and same_family(a, b)
            ):
                out.append((a, b, False, False))
    return out


def lone_partner(deriver: Deriver, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a comparison naming one side only ("Collision work took 45 times as long"
    beside the oil-change figure): the named fact and the one other value of its metric
    and period, unordered and unpinned, since the other side is only inferred."""
    entities, _ = deriver.named(binding)
    named = [a for a in deriver.facts if any(a.is_for(e) for e in entities)]
    if len(named) > MAX_RUN:
        return []  # a label of many rows names no one side
    out = []
    for a in named:
        partners = [
            b
            for b in deriver.facts
            if b is not a
            and b.periods == a.periods
            and same_metric(a, b)
            and not any(b.is_for(e) for e in entities)
        ]
        if len(partners) == 1:
            out.append((a, partners[0], False, False))
    return out
