"""The two values a ratio or gap compares when its sentence names them by their place, not by
name: "the leader has 3.4 times as many as the tail-ender", "the largest is 1.5x the second",
"sees 1.7x the next busiest", "twice as long as the runner-up", "the first week was 1.4x the
quietest one", "the latest year was 2.5x the one before", "now 2.3 times the 2023 level".

A place by value (first, second, next, last, an extreme) is read in one column of one
reference, ordered by value; where the answer lists that column's rows in another order, the
Nth row it lists may be meant as well, and neither is pinned. A place in time (the latest, the
one before, a named period) is read among the values of one quantity and row over periods."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from eval_pipeline.core.claims.ranking_phrases import HIGH, LOW, ORDINALS
from eval_pipeline.core.models import Claim
from eval_pipeline.core.oracle.binding import Binding
from eval_pipeline.core.oracle.derived import Deriver, same_metric
from eval_pipeline.core.oracle.derived_periods import is_within, period_of
from eval_pipeline.core.oracle.facts import Fact, entity_scope, metric_words, tokens
from eval_pipeline.core.oracle.periods import Period, is_later
from eval_pipeline.core.oracle.units import family

_ORD = "|".join(sorted(ORDINALS, key=len, reverse=True))
_GRAIN = r"(?:year|quarter|month|week|day|period|season)"
_TO_OBJECT = re.compile(
    r"(?:\s+(?i:as\s+(?:much|many|long|large|high|big|fast|often)(?:\s+[a-z][\w-]*){0,2}?\s+as"
    r"|(?:[a-z][\w-]*\s+){0,2}?than|the\s+[a-z][\w-]*\s+of|that\s+of|those\s+of|of|over|"
    r"vs\.?|versus|against|compared\s+(?:with|to)))*\s+"
)
"""From a ratio or gap to what it is measured against: "1.7 times as much time as", "more
passengers than", "the passengers of"."""
_OBJECT = re.compile(
    rf"(?i:the|its|their|our)\s+(?:"
    rf"(?P<next>next|second|runner[\s-]up|number\s+two)|(?P<ord>{_ORD})|"
    rf"(?P<last>last|tail[\s-]ender|bottom|laggard)|(?P<low>{LOW})|(?P<high>{HIGH}|leader)|"
    rf"(?P<before>(?:one|{_GRAIN})\s+before|(?:prior|previous|preceding)\s+{_GRAIN})"
    rf")\b(?![\s-]+(?:{_GRAIN}|half)\b(?!\s+before))"
    rf"|(?P<last_year>(?i:last|the\s+previous|the\s+prior)\s+{_GRAIN}['’]s)"
    rf"|(?P<named>(?i:the|its)\s+(?:[\w-]+\s+){{1,3}}?(?i:level|figure|value|total|volume|mark))\b"
)
"""What the object's words name it by: its place by value, the period before, a named period."""
_SUBJECT = re.compile(
    rf"\b(?i:the)\s+(?:(?P<high>{HIGH}|leader|top|first)|(?P<low>{LOW}|last|tail[\s-]ender))\b"
    rf"(?![\s-]+{_GRAIN}\b)"
    rf"|\b(?P<latest>(?i:now|currently|today|(?:the\s+)?(?:latest|most\s+recent|current)"
    rf"\s+{_GRAIN}|this\s+{_GRAIN}))\b"
    rf"|\b(?i:the)\s+(?P<edge>first|last|latest|final|opening)\s+{_GRAIN}\b"
)
"""What the subject's words name it by: the top or bottom row, or a period at an end."""


@dataclass(frozen=True)
class _Place:
    """A row named by its place: ``rank`` from the top (``next``: one after the subject), or the
    period ``when`` ("latest", "earliest", "before" the subject's, or one named)."""

    rank: int | None = None
    low: bool = False
    next: bool = False
    when: str | None = None
    period: Period | None = None


def by_place(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]]:
    """(subject, other, pinned, ordered) pairs for a ratio or gap whose other side its words
    name by place, the subject named by place, by name or by period (a "next" or "second"
    other and nothing naming the subject: the top row, "sees 1.7x the next busiest")."""
    other = _object(deriver, claim, binding)
    if other is None:
        return []
    subject = _subject(deriver, claim, binding, other)
    if subject is None:
        return []
    by_time = other.when is not None or subject.when is not None
    found: list[tuple[Fact, Fact, bool, bool]] = []
    runs = _runs_in_time(deriver, binding) if by_time else _columns(deriver, binding)
    for members in runs:
        pairs = (_in_time if by_time else _by_value)(deriver, members, subject, other, binding)
        found += [(a, b, len(pairs) == 1, True) for a, b in pairs if a is not b]
    if len(runs) > 1:
        return [(a, b, False, o) for a, b, _, o in found]
    return found


def place_after(text: str, start: int, end: int) -> re.Match[str] | None:
    """The words naming by place, right after a ratio or gap ending at ``start``, what it is
    measured against ("… than the runner-up", "… the one before")."""
    to = _TO_OBJECT.match(text, start, end)
    return _OBJECT.match(text, to.end() if to else start, end)


def _object(deriver: Deriver, claim: Claim, binding: Binding) -> _Place | None:
    text = deriver.ctx.answer
    m = place_after(text, claim.span[1], binding.sentence[1])
    if m is None:
        return None
    if m["named"]:
        named = [p.period for p in deriver.ctx.periods_in(m.start(), m.end())]
        return _Place(when="named", period=named[0]) if len(named) == 1 else None
    if m["before"] or m["last_year"]:
        return _Place(when="before")
    if m["next"]:
        return _Place(rank=2, next=m["next"].lower().startswith("next"))
    if m["ord"]:
        return _Place(rank=ORDINALS[m["ord"].lower()])
    if m["last"] or m["low"]:
        return _Place(rank=1, low=True)
    return _Place(rank=1)


def _subject(deriver: Deriver, claim: Claim, binding: Binding, other: _Place) -> _Place | None:
    """The subject's place, or an empty place when its words name it (a row or a period the
    claim is bound to); None when nothing tells."""
    start, _ = deriver.sentence_phrase(claim, binding)
    text = deriver.ctx.answer
    found = list(_SUBJECT.finditer(text, start, claim.span[0]))
    if found:
        m = found[-1]
        if m["latest"]:
            return _Place(when="latest")
        if m["edge"]:
            return _Place(
                when="earliest" if m["edge"].lower() in ("first", "opening") else "latest"
            )
        return _Place(rank=1, low=bool(m["low"]))
    if binding.entities or (other.when is not None and binding.periods):
        return _Place()
    if other.rank == 2 and other.when is None:
        return _Place(rank=1)  # "the 9 o'clock hour alone sees 1.7x the next busiest"
    return None


def _columns(deriver: Deriver, binding: Binding) -> list[list[Fact]]:
    """The columns of three rows or more the places may be read in: of those the answer states
    a value of (else of all), the ones its sentence names, else all of those."""
    columns = [m for m in deriver.series.values() if len(m) >= 3]
    stated = [m for m in columns if any(id(f) in deriver.anchors for f in m)]
    words = tokens(deriver.ctx.answer[binding.sentence[0] : binding.sentence[1]])
    pool = stated or columns
    own = [m for m in pool if words & m[0].own_meaning]  # its column's, not its table's name
    return own or [m for m in pool if words & m[0].meaning] or pool


def _by_value(
    deriver: Deriver, members: Sequence[Fact], subject: _Place, other: _Place, binding: Binding
) -> list[tuple[Fact, Fact]]:
    listed = sorted(
        (f for f in members if deriver.anchors.get(id(f))),
        key=lambda f: min(deriver.anchors[id(f)]),
    )
    mine = [f for f in members if any(map(f.is_for, binding.entities))]
    a = _ranked(members, subject.rank, subject.low) if subject.rank else _one(mine)
    if a is None:
        return []
    rank = other.rank or 1
    if other.next:
        rank = sorted(members, key=lambda f: -f.value).index(a) + 2  # the one after it
    b = _ranked(members, rank, other.low)
    pairs = [(a, b)] if b is not None else []
    if not other.low and len(listed) >= rank and listed[rank - 1] is not b:
        pairs.append((a, listed[rank - 1]))  # the Nth row as the answer lists them
    return pairs


def _ranked(members: Sequence[Fact], rank: int, low: bool) -> Fact | None:
    ordered = sorted(members, key=lambda f: f.value if low else -f.value)
    if rank > len(ordered) or (
        rank < len(ordered) and ordered[rank - 1].value == ordered[rank].value
    ):
        return None  # a tie names no one row
    return ordered[rank - 1]


def _runs_in_time(deriver: Deriver, binding: Binding) -> list[list[Fact]]:
    """The values of one quantity and one row over two periods or more: a column of dated
    rows, or one quantity from several references ("expansion_mrr" for 2025 beside a query's
    rows for 2023 and 2024), each period once."""
    runs: list[list[Fact]] = []
    for fact in deriver.facts:
        period = period_of(fact)
        if period is None or period.grain == "other":
            continue
        if binding.entities and not any(map(fact.is_for, binding.entities)):
            continue
        run = next(
            (
                r
                for r in runs
                if r[0].labels == fact.labels
                and entity_scope(r[0]) == entity_scope(fact)
                and _one_quantity(r[0], fact)
            ),
            None,
        )
        if run is None:
            runs.append([fact])
        else:
            run.append(fact)
    return [r for r in runs if len({period_of(f) for f in r}) == len(r) >= 2]


def _one_quantity(a: Fact, b: Fact) -> bool:
    """One quantity, though from a function and a query: the same words name what each
    measures ("expansion_mrr" the function, in money, and the query's column of no declared
    unit)."""
    words = metric_words(a.own_meaning)
    known = {family(a.unit), family(b.unit)} - {None}
    return same_metric(a, b) or (
        len(known) <= 1 and bool(words) and words == metric_words(b.own_meaning)
    )


def _in_time(
    deriver: Deriver, members: Sequence[Fact], subject: _Place, other: _Place, binding: Binding
) -> list[tuple[Fact, Fact]]:
    dated = sorted(members, key=lambda f: _own(f).start)
    if subject.when == "latest":
        a: Fact | None = dated[-1]
    elif subject.when == "earliest":
        a = dated[0]
    else:
        a = _one([f for f in dated if any(is_within(_own(f), p) for p in binding.periods)])
    if a is None:
        return []
    if other.when == "before":
        earlier = [f for f in dated if is_later(_own(a), _own(f))]
        b = earlier[-1] if earlier else None
    elif other.when == "named" and other.period is not None:
        b = _one([f for f in dated if is_within(_own(f), other.period)])
    elif other.rank is not None and other.when is None:
        b = _ranked(dated, other.rank, other.low)
    else:
        b = None
    return [(a, b)] if b is not None else []


def _one(facts: Sequence[Fact]) -> Fact | None:
    return facts[0] if len(facts) == 1 else None


def _own(fact: Fact) -> Period:
    period = period_of(fact)
    assert period is not None  # every member of a run has one
    return period
