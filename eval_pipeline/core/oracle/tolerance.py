"""The tolerance rule: how far a stated number may be from the truth and still be right.

A number is checked at the precision it is written with: half a unit of its last written digit
("45.5 %" covers 45.45–45.55, "$1.2M" 1.15M–1.25M, "1,200" is exact). A hedge ("about",
"roughly", "nearly"…) widens that by ``hedge_units`` units of the last significant place (the
last non-zero digit of an integer, the last written digit of a decimal), never beyond
``hedge_cap`` of the stated value, and never below the unhedged precision. A bound holds on one
side; "just under" also within the hedged interval. docs/formats.md has the table of examples;
each is a test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eval_pipeline.core.models import Claim

_SLACK = 1e-9


@dataclass(frozen=True)
class ToleranceRule:
    hedge_units: float = 1.0
    """Units of the last significant place a hedge adds to half a unit of it."""
    hedge_cap: float = 0.10
    """A hedge never widens beyond this share of the stated value."""


DEFAULT_RULE = ToleranceRule()


def tolerance(claim: Claim, rule: ToleranceRule = DEFAULT_RULE) -> float:
    """Half-width of the interval the claim's value stands for, in the claim's own unit."""
    value = abs(claim.value or 0.0)
    precision = claim.precision if claim.precision is not None else _default_precision(value)
    if not claim.hedged:
        return precision
    place = claim.place if claim.place is not None else 2 * precision
    widened = (0.5 + rule.hedge_units) * place
    return min(widened, max(precision, rule.hedge_cap * value))


def _default_precision(value: float) -> float:
    text = f"{value:.10g}"
    decimals = len(text.split(".", 1)[1]) if "." in text and "e" not in text else 0
    return 0.5 * 10.0**-decimals


_CLOSE = re.compile(r"(?i)(?:just|slightly|barely|a\s+little|a\s+bit|marginally|narrowly)\b")


def within(
    claim: Claim,
    stated: float,
    truth: float,
    scale: float = 1.0,
    rule: ToleranceRule = DEFAULT_RULE,
) -> bool:
    """Does ``stated`` (the claim's value, already in the truth's scale) stand for ``truth``?
    Bounds ("more than", "under") compare one-sided."""
    slack = _SLACK * max(1.0, abs(truth))
    if claim.bound is not None and _CLOSE.match(claim.text):
        near = tolerance(claim.model_copy(update={"hedged": True}), rule) * scale + slack
        if abs(stated - truth) > near:
            return False  # "just under 69%" is not 4.6 %
    if claim.bound == "at_least":
        return truth >= stated - slack
    if claim.bound == "at_most":
        return truth <= stated + slack
    return abs(stated - truth) <= tolerance(claim, rule) * scale + slack


def share_holds(claim: Claim, share: float, rule: ToleranceRule = DEFAULT_RULE) -> bool:
    """A share written "one in N" holds when 1 / share rounds to N; "X out of Y" when Y × share
    rounds to X. A hedge widens neither: the rounding is already the approximation, so
    "roughly one in 7" for 6.45 is one in 6 stated wrong."""
    assert claim.per is not None and claim.value is not None
    if claim.value == 1:
        if share <= 0:
            return False
        written = claim.model_copy(
            update={"value": claim.per, "precision": 0.5, "place": 1.0, "hedged": False}
        )
        if claim.bound is not None:  # "more than one in 3": a larger share, a smaller N
            flipped = {"at_least": "at_most", "at_most": "at_least"}[claim.bound]
            written = written.model_copy(update={"bound": flipped})
        return within(written, claim.per, 1 / share, rule=rule)
    exact = claim.model_copy(update={"hedged": False})
    return within(exact, claim.value, share * claim.per, rule=rule)
