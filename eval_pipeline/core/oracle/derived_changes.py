"""Differences, relative changes, ratios and spreads between the pairs of values a claim's
sentence compares."""

from __future__ import annotations

import re
from dataclasses import replace

from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.binding import Binding
from eval_pipeline.core.oracle.candidates import comparable
from eval_pipeline.core.oracle.derived import (
    Derived,
    Deriver,
    says_relative,
    written_signed,
)
from eval_pipeline.core.oracle.derived_pairs import (
    against_baseline,
    against_overall,
    level_reached,
    listed_pair,
    lone_partner,
    named_pairs,
    own_pair,
    row_gaps,
    stated_pair,
    than_named,
    to_extreme,
    to_last_stated,
    to_new_level,
)
from eval_pipeline.core.oracle.derived_periods import previous, to_base
from eval_pipeline.core.oracle.derived_places import by_place
from eval_pipeline.core.oracle.facts import tokens
from eval_pipeline.core.oracle.units import RATES

_OWN_MOVE = re.compile(
    r"\b(?i:lost|gained|fell|rose|dropped|grew|shed|added|declined|increased|decreased)"
    r"\s+(?:(?i:by|only|just|a\s+mere|some)\s+)*$"
)
"""A past verb of change right before a number ("grew only 3.5%"): the subject's own
movement, not a gap."""


def changes(deriver: Deriver, claim: Claim, binding: Binding, unit: Unit | None) -> list[Derived]:
    """Differences (in the facts' unit, or points for rates) and relative changes (%)."""
    out: list[Derived] = []
    reached = to_new_level(deriver, claim, binding)
    own = own_pair(deriver, claim, binding) if reached is None else reached
    named = than_named(deriver, claim, binding, named_pairs(deriver, binding))
    pairs = own or against_overall(deriver, claim, binding, named)
    extreme = to_extreme(deriver, claim, binding)
    if extreme is not None:
        pairs = own = extreme
    placed = by_place(deriver, claim, binding)  # "$240K more than the smallest account"
    if any(p[2] for p in placed):
        pairs = own = placed
    if written_signed(claim) and claim.kind != "comparison":
        # "South +0.9 minutes" against something unnamed: not its gap to another named row
        pairs = own or [p for p in pairs if p[3]]
    if claim.kind == "comparison" and _OWN_MOVE.search(
        deriver.ctx.answer, max(0, claim.span[0] - 25), claim.span[0]
    ):
        pairs = [p for p in pairs if p[3]]  # "APAC lost 8": its own change, no gap to LATAM
    base = against_baseline(deriver, claim, binding)  # "Against a rate of 1.50%: - South +0.42"
    if any(p[2] for p in base) and not own:  # what its words set up, over the rows they name
        pairs, base = base, []
    if not pairs or not any(p[2] for p in pairs):
        pairs = to_base(deriver, claim, binding) or pairs
    if not pairs:
        pairs = previous(deriver, binding)
    if not any(p[2] for p in pairs):
        pairs = stated_pair(deriver, claim, binding) or pairs
    if not any(p[2] for p in pairs):  # "billed $125.2K, up from $102.1K — growth of 22%":
        start, _ = deriver.sentence_phrase(claim, binding)  # the sentence's two
        whole = replace(binding, clause=(start, binding.clause[1]))
        pairs = stated_pair(deriver, claim, whole) or pairs
    if not any(p[2] for p in pairs):  # "- 2024: 565 / - 2025: 695 / - Growth: 23%"
        pairs = listed_pair(deriver, claim, binding) or pairs
    if not any(p[2] for p in pairs):
        pairs = [*pairs, *placed]
    if not pairs and claim.kind == "comparison":
        pairs = (
            row_gaps(deriver, binding)
            or to_last_stated(deriver, claim, binding)
            or lone_partner(deriver, binding)  # "Annual plans last 55 days longer": than monthly
        )
    pairs = [*pairs, *base]  # the gap to the figure set up before, its words pointing to none
    ends = level_reached(deriver, claim)
    if ends is not None:  # "Tier A rose 17% to 511": only a pair ending at what 511 states
        pairs = [(a, b, pinned and any(a is f for f in ends), o) for a, b, pinned, o in pairs]
    relative_said = says_relative(deriver.ctx.answer, claim)
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
                    pinned and (not rate or relative_said),
                    ordered,
                )
            )
    return out


def spreads(deriver: Deriver, binding: Binding, unit: Unit | None) -> list[Derived]:
    """The gap between the largest and smallest value of each column of three rows or more, or
    of one function's calls for three entities or more ("the spread from slowest to fastest is
    51 minutes"), in points for rates; pinned when one column is of the claim's unit and its
    sentence names that column's quantity."""
    usable = deriver.first_of_each_series(lambda f: comparable(unit, f))
    series = [members for _, members in usable if len(members) >= 3]
    calls = {  # one function called once per entity ("spend_per_head" for each of five sites)
        frozenset(map(id, found)): found
        for first, _ in usable
        if len(found := deriver.sibling_calls(first)) >= 3
    }
    series += calls.values()
    sentence = tokens(deriver.ctx.answer[binding.sentence[0] : binding.sentence[1]])
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


def ratios(deriver: Deriver, claim: Claim, binding: Binding) -> list[Derived]:
    out = []
    named = than_named(deriver, claim, binding, named_pairs(deriver, binding))
    pairs = against_overall(deriver, claim, binding, named)
    placed = by_place(deriver, claim, binding)  # "the largest is 1.5x the second"
    pairs = placed if any(p[2] for p in placed) else [*pairs, *placed]
    for a, b, pinned, _ in pairs or lone_partner(deriver, binding):
        if a.value and b.value:
            low, high = sorted((abs(a.value), abs(b.value)))
            value = high / low if abs(claim.value or 0) >= 1 else low / high
            out.append(Derived(value, "ratio", (a, b), "ratio", pinned, signed=False))
    return out
