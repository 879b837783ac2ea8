"""What verifying one answer reads throughout: its claims and their bindings, the case's facts,
and the lookups across both that several checks share (which claims state a fact, which claims
stand in a sentence, whether a period is one the references are for)."""

from __future__ import annotations

import bisect
import copy
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from eval_pipeline.core.claims.layout import starting_within
from eval_pipeline.core.models import Claim, ReferenceValue, Unit
from eval_pipeline.core.oracle.agreement import Check
from eval_pipeline.core.oracle.binding import AnswerContext, Binding
from eval_pipeline.core.oracle.candidates import claim_unit
from eval_pipeline.core.oracle.claim_words import (
    OF_AFTER,
    OF_START,
    OF_WHOLE,
    OWN_WORDS_END,
    RESTATED,
    RESTATED_NEXT,
    apposed,
)
from eval_pipeline.core.oracle.derived import Deriver
from eval_pipeline.core.oracle.facts import Fact, balances, is_change
from eval_pipeline.core.oracle.tolerance import ToleranceRule
from eval_pipeline.core.oracle.units import RATES, family

_SCORE_NAME = re.compile(r"(?i)score|rating|rated|csat|satisf|nps|stars?")


def list_places(claims: Sequence[Claim], ctx: AnswerContext) -> dict[str, tuple[object, ...]]:
    """Claim id → (its list's lead-in, its unit, its place among its list item's figures of that
    unit) for the numeric claims written in list items: the items of one list state their
    figures of one unit in one order, though one item may open with a figure of another unit
    ("- West: 12 of 40" beside "- East: a third, 9 of 27")."""
    items: dict[tuple[int, int, str | None], list[Claim]] = {}
    for claim in sorted(claims, key=lambda c: c.span):
        item = ctx.layout.item_of(claim.span[0])
        if item is not None and claim.kind == "numeric" and claim.value is not None:
            items.setdefault((item.start, item.end, claim.unit), []).append(claim)
    return {
        claim.id: ("item", ctx.layout.lead_in(start), unit, place)
        for (start, _, unit), listed in items.items()
        for place, claim in enumerate(listed)
    }


@dataclass(frozen=True)
class WrittenShare:
    """The figures an answer writes a share beside: the parts it may be of (one when its words
    or its place say which), its whole, and the amounts listed with them, whose sum is the
    whole of a share of the listed amounts alone ("184 approved and 120 declined — 3 out of 5
    decisions")."""

    parts: tuple[Claim, ...]
    whole: Claim
    listed: tuple[Claim, ...]

    @classmethod
    def of(cls, part: Claim, whole: Claim) -> WrittenShare:
        """A share written beside its one part and its whole ("17 of 93 … (18%)")."""
        return cls((part,), whole, (part,))


class VerifyState:
    """One answer's claims and bindings beside the case's facts, with the lookups the checks
    share; ``anchors`` and ``stated_series`` are filled as the claims are anchored, before any
    verdict."""

    def __init__(
        self,
        facts: list[Fact],
        ctx: AnswerContext,
        usable: list[ReferenceValue],
        rule: ToleranceRule,
        claims: Sequence[Claim],
        bindings: dict[str, Binding],
    ) -> None:
        self.claims = claims
        self.bindings = bindings
        self.numeric_families = Counter(family(c.unit) for c in claims if c.kind == "numeric")
        """How many numeric claims the answer states in each unit family."""
        self._stating: dict[int, set[str]] = {}
        """id(fact) → ids of the claims that state its value."""
        self.ctx = ctx
        self.usable = usable
        self.rule = rule
        self.anchors: dict[int, list[int]] = {}
        """id(fact) → positions of the claims that state it."""
        self._use_facts(facts)
        self.every_series = self.deriver.series
        """The series of every fact, kept when the state is narrowed to one kind of figure."""
        self.stated_series: dict[str, tuple[int, str | None]] = {}
        """Claim id → the one series whose value, for its own row, the claim states."""
        self.columns = {
            c.id: (id(found[0]), found[2].column)
            for c in claims
            if (found := ctx.layout.cell_of(c.span[0])) is not None
        }
        """Claim id → (table, column) of the table cell it is written in."""
        self.places = {**list_places(claims, ctx), **self.columns}
        """Claim id → its table column, or its list and its place among its item's figures."""
        self._at_place: dict[tuple[object, ...], Counter[tuple[int, str | None]]] | None = None
        self._ordered = sorted(claims, key=lambda c: c.span)
        self._starts = [c.span[0] for c in self._ordered]
        self.units = {c.id: claim_unit(c, bindings[c.id]) for c in claims}
        self._written: dict[str, WrittenShare | None] = {}
        """Claim id → the parts and whole its share is written with, once found."""

    def narrowed(self, facts: list[Fact]) -> VerifyState:
        """The same answer beside only ``facts`` (those a claim in a unit of measure may
        state), sharing what the claims have anchored and stated."""
        other = copy.copy(self)
        other._use_facts(facts)
        return other

    def _use_facts(self, facts: list[Fact]) -> None:
        """Set the facts the claims are checked beside, and what is read from them alone."""
        self.__dict__.pop("fact_words", None)
        self.facts = facts
        self.deriver = Deriver(facts, self.ctx, self.anchors)
        self.rates = any(f.unit in RATES for f in facts)
        self.scores = any(_SCORE_NAME.search(f.quantity_name) for f in facts)
        """The references hold a score, so "4.2 out of 5" may be checked."""
        self.levels = [f for f in facts if not is_change(f)] or facts
        """Facts a level claim is compared with: changes are for change claims."""
        self.balances = balances(facts)
        """Quantity names of net balances, which a signed claim states as they are."""

    @cached_property
    def fact_words(self) -> frozenset[str]:
        """Every word of the facts' names, labels and scopes."""
        return frozenset().union(*(f.words for f in self.facts))

    def stated_at(self, place: tuple[object, ...]) -> Counter[tuple[int, str | None]]:
        """The series the claims of one column or list place state, counted once (after every
        claim's series is noted): a long list would otherwise be read once per claim."""
        if self._at_place is None:
            self._at_place = {}
            for other, at in self.places.items():
                if other in self.stated_series:
                    self._at_place.setdefault(at, Counter())[self.stated_series[other]] += 1
        return self._at_place.get(place, Counter())

    def sentence_claims(self, binding: Binding) -> list[Claim]:
        """The claims with a value written in the claim's sentence, in order (found by bisection:
        an answer may hold thousands)."""
        return self.claims_within(*binding.sentence)

    def claims_within(self, start: int, end: int) -> list[Claim]:
        """The claims with a value written from ``start`` to ``end``, in order."""
        found = starting_within(self._starts, start, end)
        return [c for c in self._ordered[found.start : found.stop] if c.value is not None]

    def part_and_whole(self, claim: Claim, binding: Binding) -> WrittenShare | None:
        """The figures the answer writes a share as the ratio of: "A of B, or P%", "A …, or
        P% of B", "Of the B …, A … (P%)", or "A of B" with only figures of another kind
        between it and the share ("17 of 93 ran past three weeks (about 18%)")."""
        if claim.id not in self._written:
            self._written[claim.id] = self._part_and_whole(claim, binding)
        return self._written[claim.id]

    def _part_and_whole(self, claim: Claim, binding: Binding) -> WrittenShare | None:
        if claim.kind != "numeric" or (claim.per is None and family(claim.unit) != "rate"):
            return None
        text, around = self.ctx.answer, self.sentence_claims(binding)
        i = around.index(claim) if claim in around else -1
        joint = RESTATED.fullmatch(text, around[i - 1].span[1], claim.span[0]) if i >= 1 else None
        if i == 0 and binding.sentence[0] > 0:
            joint = RESTATED_NEXT.fullmatch(text, binding.sentence[0], claim.span[0])
            previous = self.ctx.layout.sentence_of(binding.sentence[0] - 1)
            before = self.claims_within(*previous)
            around, i = [*before, *around], len(before)
            binding = replace(binding, sentence=(previous[0], binding.sentence[1]))
        if joint is None or i < 1:
            return None
        part = around[i - 1]
        if i >= 2 and OF_WHOLE.fullmatch(text, around[i - 2].span[1], part.span[0]):
            return WrittenShare.of(around[i - 2], part)
        if i + 1 < len(around) and OF_AFTER.fullmatch(text, claim.span[1], around[i + 1].span[0]):
            return WrittenShare.of(part, around[i + 1])
        if around[0] is not part and OF_START.fullmatch(
            text, binding.sentence[0], around[0].span[0]
        ):
            return self._of_the_whole_opened_on(claim, binding, around[0], around[1:i], joint)
        for j in range(i - 2, 0, -1):
            whole, between = around[j], around[j + 1 : i]
            if any(family(c.unit) == family(whole.unit) for c in between):
                return None
            if not RESTATED.fullmatch(text, whole.span[1], claim.span[0]):
                return None
            if OF_WHOLE.fullmatch(text, around[j - 1].span[1], whole.span[0]):
                return WrittenShare.of(around[j - 1], whole)
        return None

    def _of_the_whole_opened_on(
        self,
        claim: Claim,
        binding: Binding,
        whole: Claim,
        between: Sequence[Claim],
        joint: re.Match[str],
    ) -> WrittenShare | None:
        """The parts a share of the whole its sentence opens on may be of ("Of the 739
        applications, 339 online, 227 at branches … — so 1 in 7 was broker-sourced"): the
        amounts listed before it. The row its own words name is its part; else the figure it
        is set beside as that figure's own ("227 (31%)"); else any listed figure may be."""
        listed = tuple(c for c in between if c.per is None and family(c.unit) == family(whole.unit))
        if not listed:
            return None
        after = bisect.bisect_right(self._starts, claim.span[0])
        stop = min([*self._starts[after : after + 1], binding.sentence[1]])
        end = OWN_WORDS_END.search(self.ctx.answer, claim.span[1], stop)
        named = {m.key for m in self.ctx.labels_in(claim.span[1], end.start() if end else stop)}
        named -= self.bindings[whole.id].entities  # "1 in 7 Auto 60 applications": the whole's
        if named:
            parts = tuple(c for c in listed if self.bindings[c.id].entities & named)
            return WrittenShare(parts, whole, listed) if parts else None
        if len(listed) == 1 or (listed[-1] is between[-1] and apposed(joint)):
            return WrittenShare((listed[-1],), whole, listed)
        return WrittenShare(listed, whole, listed)

    def for_another_period(self, binding: Binding) -> bool:
        """Does the claim's sentence name only periods the references are not for, none of them
        taken by a claim ("In 2024, a partial year, X also led with $63.5K")?"""
        periods = binding.periods or binding.loose_periods
        return bool(periods) and self.outside_the_references(
            replace(binding, periods=periods), self.facts
        )

    def outside_the_references(self, binding: Binding, facts: Sequence[Fact]) -> bool:
        """The claim names a period and the facts hold none: it is about another time when
        the period is relative ("a year ago") or outside what the question asks for."""
        if not binding.periods:
            return False
        if any(f.periods for f in facts):
            return not all(
                any(fp.within(p) or p.within(fp) for f in facts for fp in f.periods)
                for p in binding.periods
            )
        if any(p.grain == "other" for p in binding.periods):
            return True
        asked = [m.period for m in self.ctx.asked_periods if m.period.grain != "other"]
        if not asked:
            return False
        year = next((p.year for p in asked if p.year is not None), 2000)
        start = min(p.bounds(p.year or year)[0] for p in asked)
        end = max(p.bounds(p.year or year)[1] for p in asked)
        return not all(
            start <= p.bounds(p.year or year)[0] and p.bounds(p.year or year)[1] <= end
            for p in binding.periods
        )

    def stated_beside(
        self, claim: Claim, binding: Binding, fact: Fact, unit: Unit | None = None
    ) -> bool:
        """Does another claim of its sentence, bound to the fact's row, state its value (in
        ``unit`` when given)?"""
        return any(
            self.bindings[other].sentence == binding.sentence
            and self.bindings[other].entities & (fact.labels or fact.scope)
            and (unit is None or self.units.get(other) == unit)
            for other in self.stating_ids(fact) - {claim.id}
            if other in self.bindings
        )

    def stating_ids(self, fact: Fact) -> set[str]:
        """The claims that state this fact's value, found once per fact."""
        if id(fact) not in self._stating:
            self._stating[id(fact)] = {
                other.id
                for other in self.claims
                if other.value is not None
                and other.kind == "numeric"
                and other.bound is None  # "over 900" bounds the value, it does not state it
                and Check(other, other.unit, self.rule).level(fact)
            }
        return self._stating[id(fact)]
