"""Candidate truths for one claim: the facts it may be stating, and how well each fits.

A fact fits a claim when their units are the same quantity, the entity the claim names is the
fact's (its row label or its reference's scope), and the periods the claim names contain the
fact's. Of the facts that fit, the ones whose column or function shares most words with the
claim's are what the claim is about. A claim is only contradicted against a candidate it is
bound to: a named row or entity, a named period, or the one comparable figure of the case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from eval_pipeline.core.measures import Measure, measure_written
from eval_pipeline.core.models import DURATION_UNITS, Claim, Unit
from eval_pipeline.core.oracle.binding import Binding
from eval_pipeline.core.oracle.facts import Fact, fmt_value, metric_words
from eval_pipeline.core.oracle.units import family, scale, unit_from_name


@dataclass(frozen=True)
class Fit:
    fact: Fact
    entity: str
    """``named`` (its row or scope is named), ``unnamed`` (a figure no label applies to, and
    the claim names none), ``overall`` (a figure with no label beside a claim that names one),
    or ``row`` (a row of a series the claim names no row of, though it may name the scope of
    the series' reference)."""
    pinned: bool
    """Its row is named, by entity or by period."""
    score: int
    """Words shared by the claim's clause and the fact's column or function."""
    exact: bool
    """The claim is written in the fact's own unit (hours for hours)."""
    context: int
    """Words shared by the claim's sentence and the fact's column or function."""
    matched: int = 0
    """How many of the entities the claim names are the fact's."""

    def describe(self) -> str:
        return f"{self.fact.describe()} = {fmt_value(self.fact.value)}"


def claim_unit(claim: Claim, binding: Binding) -> Unit | None:
    return binding.unit or claim.unit


def scales(unit: Unit | None, fact: Fact) -> list[float]:
    """Factors putting a value stated in ``unit`` in the fact's scale; a percent beside a fact
    of unknown unit up to 1 in absolute value may be a fraction."""
    if unit in ("percent", "points") and fact.unit is None and abs(fact.value) <= 1:
        return [0.01]  # a bare value up to 1 is a fraction: "0.92%" is not 92 %
    if unit == "fraction" and fact.unit is None:
        return [1.0, 100.0]
    if unit == "fraction" and fact.unit == "number":
        return [1.0]  # "0.47 covers per labour hour": a number below 1, never a percent's
    factor = scale(unit, fact.unit)
    counted = unit in DURATION_UNITS and fact.unit == "count"
    if factor is None and counted and unit_from_name(fact.quantity_name) == unit:
        return [1.0]  # "Visitor days" beside a count named `visitor_days`: days counted
    return [] if factor is None else [factor]


_BARE = re.compile(r"(?:^|\s)[-+−]?\d[\d,]*\.\d+$")


def bare_decimal(claim: Claim) -> bool:
    """Is the claim a decimal written with no unit ("0.85", "+0.9", "under 0.1")? It is a
    fraction only by guess, and may be a number in its fact's own unit."""
    return bool(_BARE.search(claim.text))


def claim_scales(claim: Claim, unit: Unit | None, fact: Fact) -> list[float]:
    """Factors putting the claim's value in the fact's scale. A claim in a unit of measure
    ("4.2 GWh", "6,860 t") is in the fact's own unit when its name says one of that kind
    ("generation_mwh": 1,000; "weight_kg": 1,000 for tonnes), else at any power of 1,000;
    never a rate, money or time."""
    base = scales(unit, fact)
    if unit == "fraction" and fact.unit in ("percent", "points") and bare_decimal(claim):
        return [*base, 1.0]  # "0.85" is a fraction by guess: it may be the percent's own number
    written = measure_written(claim.text)
    if written is None or not base:
        return base
    if fact.unit not in (None, "number", "count"):
        return []
    named = fact.measures[0]
    if named is not None:
        return [written.size / named.size] if named.kind == written.kind else []
    return [1.0, 1e3, 1e-3, 1e6, 1e-6]


def known_scale(claim: Claim, fact: Fact, value: float | None = None) -> bool:
    """Is the claim's scale against the fact known: no unit of measure, the fact's name giving
    one of the same kind, or a value of the fact's magnitude (a prefix apart would be a
    thousand times off)? ``value`` is what the claim is compared with, when derived from the
    fact."""
    written = measure_written(claim.text)
    if written is None or claim.value is None:
        return True
    named = fact.measures[0]
    if named is not None:
        return named.kind == written.kind
    truth = fact.value if value is None else value
    return bool(truth) and 0.1 <= claim.value / truth <= 10


def of_its_measure(fact: Fact, measure: Measure, *, per_item: bool) -> bool:
    """May a claim in a unit of measure state the fact (or a value derived from it)? Only one
    whose name says a unit of that kind, or one whose name says none and holds plain numbers;
    never money, a rate or a count of other things ("loads") — except, for a figure per item
    ("32 t a load"), the count it is per."""
    named, per = fact.measures
    if named is not None:
        return named.kind == measure.kind
    if per is not None:
        return False
    return fact.unit in (None, "number") or (per_item and fact.unit == "count")


_RATIO_NAME = re.compile(r"(?i)ratio|multiple|times|index|^x_|_x$")
_PER_ITEM_NAME = re.compile(r"(?i)(?<![a-z])(?:per|avg|average|mean)(?![a-z])")
"""Name words of an average count ("claims_per_adjuster"), which a whole number rounds."""


def comparable(unit: Unit | None, fact: Fact) -> bool:
    if not scales(unit, fact):
        return False
    if unit == "count" and fact.unit in (None, "number"):
        return fact.value.is_integer()
    if unit in ("percent", "fraction", "points") and fact.unit in ("number", "count"):
        return False
    if unit == "ratio" and fact.unit is None and not _RATIO_NAME.search(fact.column or ""):
        return False  # "8 times" is not a level of a column that does not hold ratios
    if unit in ("percent", "fraction", "points", "ratio") and fact.unit is None:
        return abs(fact.value) <= 1000 and not (fact.value.is_integer() and abs(fact.value) > 100)
    return True


def _period_fit(binding: Binding, fact: Fact) -> tuple[bool, bool]:
    """(consistent, pins the fact's row) for the periods the claim names."""
    if not binding.periods or not fact.periods:
        return True, False
    consistent = all(any(fp.within(p) for fp in fact.periods) for p in binding.periods)
    if fact.row_period is not None:
        pinned = any(
            fact.row_period.within(p) and p.grain in (fact.row_period.grain, "day")
            for p in binding.periods
        )
    else:  # a reference called for the period the claim names ("in 2024": year=2024)
        pinned = any(fp.within(p) and p.within(fp) for fp in fact.periods for p in binding.periods)
    return consistent, pinned and consistent


def fit(claim: Claim, binding: Binding, fact: Fact) -> Fit | None:
    """How a fact fits the claim, or None when it cannot be what the claim states."""
    consistent, period_pinned = _period_fit(binding, fact)
    if not consistent:
        return None
    named = binding.entities
    inside = False
    if named & fact.labels or (not fact.labels and named & fact.scope):
        entity = "named"
    elif named & fact.scope:
        entity, inside = "row", True  # "Tower 2 got 84 reviews": a row of the named scope's
    elif named and (fact.labels or fact.filters or fact.scope & binding.answer_labels):
        return None
    elif named:
        entity = "overall"  # no label, or only its reference's own, which the answer never names
    elif fact.labels or fact.row_period is not None:
        entity = "row"
    else:
        entity = "unnamed"
    own = fact.labels or fact.scope
    pinned = (entity == "named" and bool(named & own - fact.shared)) or period_pinned
    if entity in ("row", "unnamed") and period_pinned and not inside:
        entity = "named"
    score = len(binding.meaning & fact.meaning) + len(binding.meaning & fact.own_meaning)
    exact = fact.unit is not None and (binding.unit or claim.unit) == fact.unit
    context = len(binding.context & fact.meaning) + len(binding.context & fact.own_meaning)
    return Fit(fact, entity, pinned, score, exact, context, len(named & own))


def _comparable_to(claim: Claim, binding: Binding, unit: Unit | None, fact: Fact) -> bool:
    """Is the fact of the claim's unit, or of one its words allow: a bare decimal ("0.47") is
    read as a fraction by guess only and may state a plain number (covers per labour hour); a
    whole count may round an average count its words name ("roughly 69 claims each" beside
    claims_per_adjuster = 68.57), never an average of something else ("2 agents"). Money is
    never a quantity whose name says its unit of measure ("$165" beside `tonnes`)."""
    if unit == "currency" and fact.unit in (None, "number") and fact.measures[0] is not None:
        return False
    if comparable(unit, fact):
        return True
    if unit == "fraction" and fact.unit == "number":
        return bare_decimal(claim)
    return (
        unit == "count"
        and fact.unit in (None, "number")
        and bool(_PER_ITEM_NAME.search(fact.quantity_name))
        and bool(binding.meaning & metric_words(fact.own_meaning))
    )


def _common_scope(facts: Sequence[Fact]) -> frozenset[str]:
    """Scope labels that several references share ("service" beside the service scores of two
    stores): naming one names all of them, as a category shared by rows names no row."""
    sources: dict[str, set[int]] = {}
    for fact in facts:
        for label in fact.scope:
            sources.setdefault(label, set()).add(id(fact.source))
    return frozenset(label for label, found in sources.items() if len(found) > 1)


def fits(claim: Claim, binding: Binding, facts: Sequence[Fact], unit: Unit | None) -> list[Fit]:
    out = [
        found
        for fact in facts
        if _comparable_to(claim, binding, unit, fact)
        and (found := fit(claim, binding, fact)) is not None
    ]
    rows = [f for f in out if f.entity == "named" and f.fact.labels]
    most = max((f.matched for f in rows), default=0)
    # "Ironclad Academy: Enterprise X1, 186 seats": the rows naming most of the entities
    fewer = {id(f) for f in rows if f.matched != most}
    fewer |= _named_less(binding.entities, [f for f in out if f.entity == "named"], facts)
    return [f for f in out if id(f) not in fewer]


def _named_less(named: set[str], found: list[Fit], facts: Sequence[Fact]) -> set[int]:
    """The references for other entities than the claim names, beside one for the entity it
    names ("Route 66 averaged 3.6 on service surveys" beside the service scores of two stores):
    ids of the fits whose scope holds fewer of its entities, bar labels several share. A
    reference for a wider whole (the region, beside the region's completed sites) stays."""
    scoped = [f for f in found if not f.fact.labels and f.fact.scope]
    common = _common_scope(facts) if len(scoped) > 1 else frozenset()

    def naming(f: Fit) -> int:
        return len(named & f.fact.scope - common)

    return {
        id(f)
        for f in scoped
        if any(naming(g) > naming(f) and not f.fact.filters <= g.fact.filters for g in scoped)
    }


def best(found: Sequence[Fit]) -> list[Fit]:
    """The fits the claim is most likely about: named over unnamed, pinned rows over others,
    then most shared words, then an exact unit family over an unknown unit."""
    if not found:
        return []

    def rank(f: Fit) -> tuple[int, int, int, int, int, int]:
        entity = {"named": 3, "unnamed": 2, "overall": 1, "row": 0}[f.entity]
        known = 1 if family(f.fact.unit) is not None else 0
        return (entity, int(f.pinned), f.score, int(f.exact), f.context, known)

    top = max(rank(f) for f in found)
    return [f for f in found if rank(f) == top]
