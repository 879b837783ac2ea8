"""Does a claim's number agree with a fact's value or a derived one, at the precision it is
written with (and with the sign its words give it)?"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from eval_pipeline.core.measures import measure_written
from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.candidates import bare_decimal, claim_scales
from eval_pipeline.core.oracle.derived import Derived, written_signed
from eval_pipeline.core.oracle.facts import Fact
from eval_pipeline.core.oracle.tolerance import ToleranceRule, share_holds, tolerance, within
from eval_pipeline.core.oracle.units import less_is_better, scale

_SUMS = ("total", "sum", "difference", "mean")
"""Derivations in the parts' own scale, which a claim in a prefixed unit is put in."""


def precise(claim: Claim, within: float = 0.0025) -> bool:
    """Written to within ``within`` of its value (0.25 %: not "87", "about 40%", "over 500")."""
    if claim.bound or not claim.value:
        return False
    return tolerance(claim) / abs(claim.value) <= within


def unlikely_by_chance(claim: Claim) -> bool:
    """A count or amount written exactly to several significant digits ("7,597", "$13.4M")
    matches a derived value by chance too rarely to need words calling for it."""
    if claim.hedged or claim.unit not in ("count", "currency"):
        return False
    return precise(claim, 0.005) and abs(claim.value or 0) >= 100


@dataclass(frozen=True)
class Check:
    claim: Claim
    unit: Unit | None
    rule: ToleranceRule
    polar: bool = False
    """The claim says "improved", "better", "worse": signed up for good, so for a metric where
    less is better (waits, no-shows) its sign is the opposite of the values'."""

    def _stated(self, facts: Sequence[Fact]) -> float:
        assert self.claim.value is not None
        flip = (
            self.polar
            and self.claim.kind == "comparison"
            and any(less_is_better(f.quantity_name) for f in facts)
        )
        return -self.claim.value if flip else self.claim.value

    def level(self, fact: Fact) -> bool:
        """Does the claim state this fact's value?"""
        assert self.claim.value is not None
        if self.claim.per is not None:
            if fact.unit not in ("percent", "fraction", None, "number"):
                return False
            share = fact.value / 100.0 if fact.unit in ("percent", "points") else fact.value
            if fact.unit in (None, "number") and share > 1:
                share /= self.claim.per  # a rate kept on the claim's own base ("per 100")
            return share_holds(self.claim, share, self.rule)
        stated = self._stated([fact])
        factors = claim_scales(self.claim, self.unit, fact)
        return any(self._agrees(stated * s, fact.value, s) for s in factors)

    def derived(self, found: Derived) -> bool:
        assert self.claim.value is not None
        if self.claim.per is not None:
            return found.unit == "fraction" and share_holds(self.claim, found.value, self.rule)
        if self.unit == "points" and found.how == "relative change":
            return False  # points are a gap between rates, never a rate's relative change
        factor = self._derived_factor(found)
        if factor is None and self.unit == "fraction" and bare_decimal(self.claim):
            factor = 1.0  # "+0.9" in a "vs chain" column: a gap in days, read as a fraction
        if factor is None:
            return False
        prefixed = found.how in _SUMS and measure_written(self.claim.text) is not None
        prefixes = claim_scales(self.claim, self.unit, found.facts[0]) if prefixed else []
        return any(self._agrees_derived(found, factor * prefix) for prefix in prefixes or [1.0])

    def _derived_factor(self, found: Derived) -> float | None:
        """The factor putting the claim in a derived value's unit; a share derived as a
        fraction is stated in percent, or bare."""
        factor = scale(self.unit, found.unit)
        if factor is None and found.unit == "fraction" and self.unit in ("percent", "number", None):
            factor = 0.01
        return factor

    def times(self, truth: Fact | Derived) -> float | None:
        """How many times the truth the stated value is, in the scale that brings them
        closest (a percent against a fraction, "4.2 GWh" against megawatt-hours)."""
        assert self.claim.value is not None
        if isinstance(truth, Fact):
            factors = claim_scales(self.claim, self.unit, truth)
        else:
            factor = self._derived_factor(truth)
            factors = [] if factor is None else [factor]
        ratios = [abs(self.claim.value * f / truth.value) for f in factors if truth.value]
        return min((r for r in ratios if r > 0), key=lambda r: abs(math.log(r)), default=None)

    def _agrees_derived(self, found: Derived, factor: float) -> bool:
        stated, truth = self._stated(found.facts) * factor, found.value
        if not found.signed or (self.claim.direction is None and not written_signed(self.claim)):
            stated, truth = abs(stated), abs(truth)
        return self._agrees(stated, truth, factor, signed=True, oriented=found.signed)

    def _agrees(
        self,
        stated: float,
        truth: float,
        factor: float,
        *,
        signed: bool = False,
        oriented: bool = True,
    ) -> bool:
        """``oriented``: the truth's sign says which way it went; a gap between two rows that
        no words order ("Denver sits more than 10 points below Tucson") has only a size."""
        claim = self.claim
        if claim.bound is not None and claim.direction in ("up", "down"):
            # "down less than 0.1%": a fall whose size is bounded, whatever sign carries it
            right_way = not oriented or (truth <= 0 if claim.direction == "down" else truth >= 0)
            return right_way and within(claim, abs(stated), abs(truth), factor, self.rule)
        if not signed:
            if claim.kind != "comparison" and stated >= 0 > truth:
                truth = -truth  # "a loss of $1.2M" states a magnitude
            if claim.kind == "comparison" and claim.direction is None:
                stated, truth = abs(stated), abs(truth)
        return within(claim, stated, truth, factor, self.rule)
