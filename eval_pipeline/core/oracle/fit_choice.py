"""Which of the facts a claim fits it states: the rows or quantity its words name, the one of
its magnitude, the series its table column or list place holds, what the other claims of its
sentence leave to it."""

from __future__ import annotations

import re

from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.agreement import Check
from eval_pipeline.core.oracle.binding import Binding
from eval_pipeline.core.oracle.candidates import Fit, claim_scales, claim_unit
from eval_pipeline.core.oracle.derived import SUM_CUE, WHOLE_ORGANISATION
from eval_pipeline.core.oracle.verify_state import VerifyState

_WHOLE_AFTER = re.compile(
    r"\s*(?i:(?:across|for|at|in|of)\s+(?:all|every)\b|overall\b|in\s+total\b|[a-z]+-wide\b)"
)
"""Words after a figure saying it is for the whole, not for one entity of it."""


def plausible(claim: Claim, unit: Unit | None, found: list[Fit]) -> list[Fit]:
    """The fits a claim may be supported by: the rows it names when some are (a table row before
    the overall figure), then, when its words name some facts' quantity, those
    ("E911 readiness is 77.8%" is not supported by the NAS rate of 77.8%)."""
    rows = [f for f in found if f.entity == "named" and f.fact.labels]
    found = rows or found
    named = max((f.score for f in found), default=0)
    chosen = [f for f in found if f.score == named] if named > 0 else found
    if chosen and all(magnitude_ratio(claim, unit, f) >= 3 for f in chosen):
        return found  # "rated support highest, at 4.10" is not the 240 ratings
    return chosen


def magnitude_ratio(claim: Claim, unit: Unit | None, fit: Fit) -> float:
    """How many times apart the claim's value and the fact's are (1 when equal)."""
    assert claim.value is not None
    stated = abs(claim.value * next(iter(claim_scales(claim, unit, fit.fact)), 1.0))
    truth = abs(fit.fact.value)
    if not stated or not truth:
        return float("inf")
    return max(stated, truth) / min(stated, truth)


def of_its_magnitude(claim: Claim, unit: Unit | None, fits: list[Fit]) -> list[Fit]:
    """Of facts that fit equally well, the one of the claim's magnitude when every other is of
    another (within 1.5 times against beyond 3 times): a wrong figure is near the right one."""
    near = [f for f in fits if magnitude_ratio(claim, unit, f) <= 1.5]
    close = {id(f) for f in near}
    if (
        near
        and len({round(f.fact.value, 9) for f in near}) == 1
        and all(magnitude_ratio(claim, unit, f) >= 3 for f in fits if id(f) not in close)
    ):
        return near
    return fits


def named_series(rows: list[Fit]) -> list[Fit]:
    """The rows of the series a claim's words name, when they name one more than any other
    ("she settled 87 of them" beside claims handled and claims settled per adjuster; a
    "Stays" column beside nights): a value only one of its rows has is then stated for it."""
    most = max((f.score for f in rows), default=0)
    named = [f for f in rows if f.score == most]
    return named if most > 0 and len({f.fact.series for f in named}) == 1 else rows


def contenders(claim: Claim, unit: Unit | None, direct: list[Fit]) -> list[Fit]:
    """The facts a claim whose words name none may still be about: those in its own unit when
    some are (days before a column of unknown unit), then those of its magnitude."""
    found = [f for f in direct if f.entity != "row"]
    exact = [f for f in found if f.exact]
    return of_its_magnitude(claim, unit, exact or found) if found else found


def all_alike(state: VerifyState, binding: Binding, rows: list[Fit], matches: list[Fit]) -> bool:
    """Does every row of the series agree with the claim ("all five invoices are 30 days
    overdue"; "everyone books roughly 7 weeks out" beside 47.5 to 48.9 days by channel)? Then
    it needs no row named to be right, whichever row it is read for. Rows of several values
    do not make a figure for the whole ("the network as a whole sat at about 70%", "keep the
    chain-wide backlog below 25"): that is their total or mean, which no row is."""
    if len(rows) < 2 or len(matches) != len(rows):
        return False
    clause = state.ctx.answer[binding.clause[0] : binding.clause[1]]
    whole = SUM_CUE.search(clause) or WHOLE_ORGANISATION.search(clause)
    return len({f.fact.value for f in rows}) == 1 or not whole


def of_the_whole(state: VerifyState, claim: Claim, direct: list[Fit]) -> list[Fit]:
    """A figure written for the whole ("14.2% across all stores", "1,210 company-wide") is
    the widest the references hold: of the fits, those narrowed by the fewest entities."""
    if not direct or not _WHOLE_AFTER.match(state.ctx.answer, claim.span[1]):
        return direct
    fewest = min(len(f.fact.filters) for f in direct)
    return [f for f in direct if len(f.fact.filters) == fewest]


def of_its_column(
    state: VerifyState, claim: Claim, binding: Binding, direct: list[Fit]
) -> list[Fit]:
    """A table's column holds one quantity, and so does one place in the items of a list
    ("- West: 7 in 10" then "- East: 6 in 10"): when the other claims of the claim's column
    or place state the values of one series for their rows (two at least, and of no other
    series), the claim is of that series too, unless its words name another ("| Paid |"
    over indemnity amounts beside a reserve column)."""
    column = state.places.get(claim.id)
    if column is None:
        return direct
    stated = state.stated_at(column).copy()
    stated.subtract([state.stated_series[claim.id]] if claim.id in state.stated_series else [])
    stated = +stated  # the other claims' series only
    if len(stated) != 1 or stated.most_common(1)[0][1] < 2:
        return direct
    series = next(iter(stated))
    own = [f for f in direct if f.fact.series == series]
    if not own or max(f.score for f in own) < max(f.score for f in direct):
        return direct  # its header names another quantity: a swapped column is an error
    return own


def left_by_the_others(
    state: VerifyState, claim: Claim, binding: Binding, check: Check, found: list[Fit]
) -> list[Fit]:
    """A sentence states each quantity of a row once: of a row's columns, the ones another
    claim of the sentence states in the claim's unit ("22 of 104": the 22 reopened) are not
    what the claim states, unless it states them too. A restatement in another unit ("44.7
    hours (about 2 days)") is the same quantity."""
    unit = claim_unit(claim, binding)
    taken = {
        id(f)
        for f in found
        if not check.level(f.fact) and state.stated_beside(claim, binding, f.fact, unit)
    }
    rows = {(id(f.fact.source), f.fact.position) for f in found if id(f) in taken}
    left = [f for f in found if id(f) not in taken]
    if any((id(f.fact.source), f.fact.position) in rows for f in left):
        return left
    return found
