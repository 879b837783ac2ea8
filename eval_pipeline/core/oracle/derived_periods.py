"""The two values a change between periods compares: a period's value and the one before
it, or the value of the period the change is measured from."""

from __future__ import annotations

import re

from eval_pipeline.core.models import Claim
from eval_pipeline.core.oracle.binding import Binding, written_as_base
from eval_pipeline.core.oracle.derived import (
    Deriver,
    same_metric,
)
from eval_pipeline.core.oracle.facts import Fact
from eval_pipeline.core.oracle.periods import (
    Period,
    earliest,
    is_adjacent,
    is_later,
    is_year_before,
)

_OVER_THE_PERIOD = re.compile(
    r"\b(?i:over|across|throughout)\s+(?:the|that|this|these|those)\s+(?:whole\s+|entire\s+)?"
    r"(?:period|span|stretch|window|(?:\w+\s+)?(?:years|quarters|months|weeks))\b"
)
"""A change over the whole span of the values ("over the period", "over the two years")."""
_LEADING = re.compile(r"[\W_]*(?:(?i:and|but|while|whereas|the|in|by)\s+)*")
"""Words a clause may open with before its subject."""
_BASE_AFTER = re.compile(r"\b(?i:on|above|below|ahead\s+of|behind)\s+(?:the\s+)?$")
"""Before the period a comparative is measured from: "up 59% on January", "above 2023"."""


def _written_as_a_base(text: str, start: int) -> bool:
    """Is the period at ``start`` what a change is measured from ("since 2023", "vs Q1",
    "24% above 2023", "up 59% on January")?"""
    return written_as_base(text, start) or bool(_BASE_AFTER.search(text, max(0, start - 12), start))


def period_of(fact: Fact) -> Period | None:
    """The period a fact is for: its row's, else its reference's only one."""
    if fact.row_period is not None:
        return fact.row_period
    return fact.periods[0] if len(fact.periods) == 1 else None


def is_within(period: Period, named: Period) -> bool:
    """Is a fact's period the one named (of its grain)?"""
    return period.grain == named.grain and period.within(named)


_RELATIVE_GRAIN = re.compile(r"(?i)year|quarter|month|week|period")


def previous(deriver: Deriver, binding: Binding) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a change stated beside one period ("2024: $91.2M (+12.6%)", "2025 volume jumped 56%
    on the previous year"): that period's value and the one just before it in the same metric
    — a year before when the words measure it "year on year" or from "a year earlier", and
    none when they name another grain than the period's ("Q1 up 5% on the previous month")."""
    named = [p for p in binding.periods if p.grain != "other"]
    if len(named) != 1 or _a_base(deriver, binding, named[0]):
        return []
    period = named[0]
    text = deriver.ctx.answer
    relative = {
        m.group().lower()
        for mention in deriver.ctx.periods_in(*binding.clause)
        if mention.period.grain == "other"
        and (m := _RELATIVE_GRAIN.search(text, mention.start, mention.end)) is not None
    }
    if len(relative) > 1:
        return []
    grain = relative.pop() if relative else None
    yearly = grain == "year" and period.grain != "year"
    weekly = grain == "week" and period.grain == "day"  # weekly rows start on a day
    if grain not in (None, "period", period.grain) and not (yearly or weekly):
        return []
    out = []
    for fact in deriver.facts:
        own = [fp for fp in fact.periods if fp.within(period) and period.within(fp)]
        if not own:
            continue
        earlier = []
        for other in deriver.labelled[fact.labels]:
            if other is fact or not same_metric(fact, other):
                continue
            before = [
                op for op in other.periods if op.grain == own[0].grain and is_later(own[0], op)
            ]
            if before:
                earlier.append((before[0], other))
        if earlier:
            latest = max(earlier, key=lambda pair: pair[0].start)
            year_before = [o for p, o in earlier if is_year_before(p, own[0])]
            if yearly:
                out += [(fact, o, True, True) for o in year_before[:1]]
            elif year_before and not is_adjacent(latest[0], own[0]):
                out.append((fact, year_before[0], True, True))  # January 2025 on January 2024
            else:
                out.append((fact, latest[1], is_adjacent(latest[0], own[0]), True))
    return out


def to_base(
    deriver: Deriver, claim: Claim, binding: Binding
) -> list[tuple[Fact, Fact, bool, bool]]:
    """For a change whose clause names the period it is measured from ("a cut of 2.1
    minutes since 2023", "24% above 2023", "up 59% on January"), or whose sentence spans
    the whole ("over the period"): each row's value for the later period (the one the
    clause names, else its latest) over its value for the base (else its earliest). A
    period only inferred pins the pair when the answer has named it before the claim."""
    start, end = deriver.phrase(claim, binding)
    text = deriver.ctx.answer
    mentions = deriver.ctx.periods_in(start, end)
    bases = {m.period for m in mentions if _written_as_a_base(text, m.start)}
    subjects = {m.period for m in mentions} - bases
    over = _OVER_THE_PERIOD.search(text, *binding.sentence)
    if len(bases) > 1 or len(subjects) > 1 or not (bases or (over and not mentions)):
        return []
    base, subject = next(iter(bases), None), next(iter(subjects), None)
    named = [m.period for m in deriver.ctx.periods_in(0, claim.span[0])]
    start_at = base or earliest(p for f in deriver.facts if (p := period_of(f)) is not None)
    out = []
    for fact in deriver.facts:
        period = period_of(fact)
        if period is None or start_at is None or not is_within(period, start_at):
            continue
        if binding.entities and not any(map(fact.is_for, binding.entities)):
            continue
        peers = _peers(deriver, fact, period)
        later = [
            (p, o) for p, o in peers if (is_within(p, subject) if subject else is_later(p, period))
        ]
        if later:
            top_period, top = max(later, key=lambda pair: pair[0].start)
            told = all(
                any(is_within(p, n) for n in named)
                for p, given in ((top_period, subject), (period, base))
                if given is None
            )
            out.append((top, fact, told, True))
    if len({(a.labels, a.scope) for a, _, _, _ in out}) > 1 and not binding.entities:
        return [(a, b, False, True) for a, b, _, _ in out]  # whose change, it does not say
    return out


def period_led(deriver: Deriver, claim: Claim, binding: Binding) -> bool:
    """Is the claim's clause about a period's value of the case's only quantity ("2025 was
    down 6%, still 24% above 2023")? Its words then need not name that quantity."""
    start, _ = deriver.sentence_phrase(claim, binding)
    first = next(iter(deriver.ctx.periods_in(start, claim.span[0])), None)
    return (
        deriver.one_metric
        and first is not None
        and _LEADING.fullmatch(deriver.ctx.answer, start, first.start) is not None
    )


def _peers(deriver: Deriver, fact: Fact, period: Period) -> list[tuple[Period, Fact]]:
    """The other values of the fact's metric and row, by their period of its grain."""
    out = []
    for other in deriver.labelled[fact.labels]:
        p = period_of(other)
        if (
            other is not fact
            and p is not None
            and p.grain == period.grain
            and other.scope == fact.scope
            and same_metric(fact, other)
        ):
            out.append((p, other))
    return out


def _a_base(deriver: Deriver, binding: Binding, period: Period) -> bool:
    """Is the period written only as what a change is measured against ("vs 2024",
    "compared with Q1")? The change is then another period's, not this one's."""
    text = deriver.ctx.answer
    mentions = [m for m in deriver.ctx.periods_in(*binding.sentence) if m.period == period]
    return bool(mentions) and all(written_as_base(text, m.start) for m in mentions)
