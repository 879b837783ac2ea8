"""Second oracle pass, deterministic: a verdict for every claim against live reference values.

A claim is supported when a fact it fits (or a value derived from facts its words call for)
agrees with it at the precision it is written with. It is contradicted only when what it is
about is pinned — its row or entity named, its period named, or the one comparable figure of
the case — and that value disagrees; anything else is unverifiable with the reason, because
accusing a right answer is worse than leaving a claim unchecked.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from eval_pipeline.core.claims.extract import POLAR_WORDS
from eval_pipeline.core.claims.layout import plain, search_before
from eval_pipeline.core.claims.numbers import scan_numbers
from eval_pipeline.core.measures import measure_written
from eval_pipeline.core.models import Claim, ClaimContract, Evidence, ReferenceValue, Unit, Verdict
from eval_pipeline.core.oracle.agreement import Check, precise, unlikely_by_chance
from eval_pipeline.core.oracle.binding import SCALED, AnswerContext, Binding, bind
from eval_pipeline.core.oracle.candidates import claim_unit, fits, of_its_measure
from eval_pipeline.core.oracle.claim_words import NOT_NOUNS, RESTATED, apposed, head_noun
from eval_pipeline.core.oracle.derived import Derived, written_signed
from eval_pipeline.core.oracle.derived_pins import (
    candidates,
    cued,
    of_its_column_series,
    of_the_column_named,
    of_the_quantity_named,
    pins,
    stated_in_its_phrase,
)
from eval_pipeline.core.oracle.facts import (
    Fact,
    all_facts,
    fmt_value,
    is_change,
    is_code,
    is_total_row,
    scope_labels,
    tokens,
)
from eval_pipeline.core.oracle.figure_kind import Kind, Reading, derived_kinds, fact_kinds, read
from eval_pipeline.core.oracle.fit_choice import (
    all_alike,
    left_by_the_others,
    named_series,
    of_its_column,
    of_the_whole,
    plausible,
)
from eval_pipeline.core.oracle.labels import label_forms
from eval_pipeline.core.oracle.level_target import not_its_level, target_of
from eval_pipeline.core.oracle.ranking import verify_ranking
from eval_pipeline.core.oracle.tolerance import DEFAULT_RULE, ToleranceRule
from eval_pipeline.core.oracle.units import family, names_a_unit
from eval_pipeline.core.oracle.verify_state import VerifyState

MAX_VERIFIED_CLAIMS = 5000
"""Claims checked per answer: a long report states a few hundred figures; past this many the
answer is a dump, and the rest are unverifiable (with the reason) rather than slow."""
_PART_AFTER = re.compile(
    r"\s*(?:,|\(|\s[—–-])\s*(?i:or|i\.e\.,?|that\s+is,?|just|only)\s+|\s*\(\s*"
)
"""Between a share and the count of its part: "0.26%, just 1 review", "5.4% (21 reviews)"."""
_SHARE_AFTER = re.compile(r"[ \t]*(?:[a-z][\w-]*[ \t]+){0,2}?\([ \t]*")
"""Between a count and its row's rate in brackets: "138 desks (", "109 ("."""
_LIST_JOINT = re.compile(r",|\b(?i:and)\b")
"""What joins the figures of one list, which a hedge written before the first may cover."""
_MAX_EVIDENCE = 12
_NEAR = 0.5
"""A misstated level is within this factor of its truth (half to twice it) unless its words
name the truth's quantity."""
_FAR = 0.1
"""Beyond this factor (a tenth to ten times) a level is no misstatement of the truth, even
when no words name the truth's quantity."""
_NOUN_AFTER = re.compile(
    r"(?:[ \t]+of[ \t]+all[ \t]+(?:the[ \t]+|our[ \t]+|its[ \t]+|their[ \t]+)?|"
    r"(?:(?<=more)|(?<=fewer)|[ \t]+(?:more|fewer))[ \t]+|"
    r"(?:(?<=twice)|(?<=times)|(?<=\dx))[ \t]+(?:the|as[ \t]+many|as[ \t]+much)[ \t]+)"
    r"(?!(?:them|those|these|it|of|than|in|at|on|to|for)\b)"
    r"(?P<noun>(?:[a-z][a-z-]+[ \t]+)?[a-z][a-z-]+s)\b"
)
"""The things a share, a change or a ratio counts: "% of all cardholders", "% more parcels",
"twice the orders"."""
_GREW_BEFORE = re.compile(
    r"\b(?P<noun>[a-z][\w-]*)[ \t]+(?:grew|rose|fell|climbed|dropped|declined|increased|"
    r"decreased|jumped|slipped|slid)[ \t]+(?:by[ \t]+)?$"
)
"""The noun before a verb of change right before the figure: "orders grew about 18%"."""
_SUBJECT_BEFORE = re.compile(
    r"\s*(?P<noun>[A-Za-z][\w-]*(?:[ \t]+[a-z][\w-]*)?)[ \t]+(?:was|were|is|are|ran|stood)\b"
    r"[^.;:\n\d]{0,60}\b(?:at|of)[ \t]+"
)
"""The subject a sentence opens on before the rate its verb gives: "Bad debt was highest in
Metro at 2.1%"."""
_NOUN = re.compile(r"[ \t]*([A-Za-z][\w-]*)")
"""The word right after a figure; ``head_noun`` reads one only after a count, and a decimal
figure is rarely read as one."""
_VERB_BEFORE = re.compile(
    r"\b(drops?|falls?|rises?|climbs?|gains?|lifts?|declines?|increases?|decreases?)[ \t]+$"
)
"""A verb of movement right before a figure ("drops 930 m"), in the present tense that also
names a quantity ("vertical drop", "elevation gain")."""
_DAY = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun|week)day|week-?end)"
_NOT_BROKEN_OUT = re.compile(
    rf"\b(?:on\s+{_DAY}s?|{_DAY}s|{_DAY}(?=\s+[a-z]+s\b))\b"
    r"|\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twenty)[- ]year\s+"
    r"(?:average|mean|median|norm|high|low|record|trend)\b"
    r"|\b(?:all-time|long-term|long-run|historical|historic)\s+"
    r"(?:average|mean|median|norm|high|low|record|trend)\b",
    re.IGNORECASE,
)
"""A part of the week a figure is for ("on Saturdays", "weekend trips"; not "a busy Easter
weekend", an event) or a span of years ("the 10-year average"), which a reference for a period
or for all days does not hold."""
_SPAN_STATISTICS = tokens("average mean median norm high low record trend")
"""The statistic of a span of years ("the long-run average"): the span, not it, is unheld."""
_A_NAME = r"[A-Z][\w&'’-]*(?:[^\S\n]+(?:[A-Z][\w&'’-]*|\d+\b))*"
_AT_A_NAME = re.compile(
    rf"[^\S\n]+(?:[a-z]+[^\S\n]+)?(?:at|in|for|from)[^\S\n]+(?:the[^\S\n]+)?(?P<name>{_A_NAME})"
)
"""A name right after a figure: "10 at Blackwater Ridge", "12 turbines in Sierra Mesa"."""
_AT_A_NAME_ENDING = re.compile(
    r"\b(?:at|in)[^\S\n]+(?:the[^\S\n]+)?(?P<name>[A-Z][\w&'’-]*)[^\S\n]+$"
)
"""Before a number that ends a name: "all at Lakeshore 2"."""


_DECIMAL = re.compile(r"\d\.\d")
"""A figure written with decimals; one whose scale word makes them whole ("2.4K") is
``binding.SCALED``."""
_CHANGES = ("difference", "relative change", "spread", "ratio")
_JOINT_ONLY = re.compile(
    r"[ \t]*(?:,|\(|[ \t][—–])[ \t]*(?i:or[ \t]+|i\.e\.,?[ \t]+|that[ \t]+is,?[ \t]+)?"
)
"""Between an amount and the share set right after it as its own: "309, roughly", "309 ("."""
_FIGURE_JOINT = re.compile(r"[ \t]*(?:[:(—–][ \t]*|(?:at|with)[ \t]+)")
_APPOSED_JOINT = re.compile(r"(?:[ \t]+[a-z][\w-]*){0,3}[ \t]*(?:,|\(|[ \t][—–])[ \t]*")
"""Between a figure and the ranking apposed to it: the words it counts, then a comma, a
bracket or a dash ("42 referrals, the most", "827.9 h of downtime, the most", "366 (the peak)")."""


def _decided(claim: Claim, facts: Sequence[Fact], how: str, *, holds: bool) -> Verdict:
    return Verdict(
        claim_id=claim.id,
        verdict="supported" if holds else "contradicted",
        reason=f"{claim.text!r} {'agrees with' if holds else 'differs from'} {how}",
        evidence=[f.evidence() for f in facts[:_MAX_EVIDENCE]],
    )


def _supported(claim: Claim, facts: Sequence[Fact], how: str) -> Verdict:
    return _decided(claim, facts, how, holds=True)


def _contradicted(claim: Claim, facts: Sequence[Fact], how: str) -> Verdict:
    return _decided(claim, facts, how, holds=False)


def _unverifiable(claim: Claim, reason: str, references: Sequence[ReferenceValue]) -> Verdict:
    evidence = [
        Evidence(
            source=rv.reference.target,
            kind=rv.reference.kind,
            params=dict(rv.reference.params),
            value=rv.value if rv.shape == "scalar" else None,
            sql=rv.reference.sql,
        )
        for rv in references
        if rv.error is None
    ]
    return Verdict(claim_id=claim.id, verdict="unverifiable", reason=reason, evidence=evidence)


class _Verifier:
    """The verdict of each numeric claim, with the true value of what it states kept for the
    claims written later that restate it as a share."""

    def __init__(self, state: VerifyState) -> None:
        self.state = state
        self._truths: dict[str, tuple[float, Unit | None, tuple[Fact, ...]]] = {}
        """Claim id → the true value of what it states (unit, facts), once decided."""
        self._checked: set[str] = set()
        self._per_item: set[str] = set()
        """Claims that a value per item supports ("2,948 km per bus")."""

    def narrowed(self, facts: list[Fact]) -> _Verifier:
        """A verifier of the same answer beside only ``facts``, sharing the truths found."""
        other = _Verifier(self.state.narrowed(facts))
        other._truths, other._checked = self._truths, self._checked
        other._per_item = self._per_item
        return other

    def anchor(self, claim: Claim, binding: Binding) -> Fact | None:
        """The fact a level claim states directly, right or wrong: what ties its sentence to a
        metric, so a change derived in that sentence may be held against another claim. A
        share of items ("7 in 10") notes the series it states, and anchors none."""
        if claim.kind != "numeric" or claim.value is None:
            return None
        unit = claim_unit(claim, binding)
        direct = fits(claim, binding, self.state.facts, unit)
        check = Check(claim, unit, self.state.rule)
        agreeing = [f.fact for f in direct if check.level(f.fact) and f.entity != "row"]
        totals = [f.fact for f in direct if is_total_row(f.fact) and check.level(f.fact)]
        if not agreeing and len(totals) == 1:
            agreeing = totals  # "the company average of 780 hours": the "All regions" row
        if len({f.series for f in agreeing}) == 1:
            self.state.stated_series[claim.id] = agreeing[0].series
        if claim.per is not None:
            return None
        if agreeing:
            return agreeing[0]
        target, _ = target_of(self.state, claim, binding, direct, among_others=False)
        if target is None or not self._reading(claim, binding).fits(self._held(target[0].fact)):
            return None
        return target[0].fact

    def numeric(self, claim: Claim, binding: Binding) -> Verdict:
        if _sign_against_its_words(claim):
            return self._as_written(claim, binding)
        if self._verb_of_its_quantity(claim):
            return self.numeric(_as_level(claim), binding)
        if _object_of_its_verb(claim, self.state.ctx.answer):
            noted = claim.id in self._truths
            level = self.numeric(_as_level(claim), binding)
            if level.verdict == "supported":
                return level
            if not noted:  # what a level would be is no truth of the change
                self._truths.pop(claim.id, None)
        unit = claim_unit(claim, binding)
        polar = _polar(claim, self.state.ctx.answer, self.state.sentence_claims(binding))
        check = Check(claim, unit, self.state.rule, polar=polar)
        reading, refused = self._reading(claim, binding), ""
        if self._sets_a_limit(claim, reading):
            why = f"a limit, target or plan its words set ({reading.cue.strip()!r}), which no "
            return _unverifiable(claim, why + "reference value is", self.state.usable)
        if claim.kind == "comparison":
            changes = [
                f for f in fits(claim, binding, self.state.facts, unit) if self._change_fact(f.fact)
            ]
            for found in changes:
                if check.level(found.fact):
                    return _supported(claim, [found.fact], found.describe())
            named = [f for f in changes if is_change(f.fact)]
            if len(named) == 1 and named[0].entity in ("named", "unnamed"):
                held = self._held(named[0].fact)
                if reading.fits(held):
                    return _contradicted(claim, [named[0].fact], named[0].describe())
                refused = reading.refusal(held)
        part = self._part_of_share(claim, binding)
        if part is not None:
            if check.derived(part):
                return _supported(claim, part.facts, part.describe())
            return _unverifiable(
                claim, f"the count of a share's part, not {part.describe()}", self.state.usable
            )
        signed = written_signed(claim)
        levels = self.state.facts if signed else self.state.levels
        direct = fits(claim, binding, levels, unit) if claim.kind != "comparison" else []
        direct = of_its_column(self.state, claim, binding, direct)
        direct = of_the_whole(self.state, claim, direct)
        direct = left_by_the_others(self.state, claim, binding, check, direct)
        for found in plausible(claim, unit, direct):
            if check.level(found.fact) and found.entity != "row":
                return self._kept(
                    claim, found.fact, _supported(claim, [found.fact], found.describe())
                )
        listed = self._per_item_as_listed(claim, binding)
        if listed is not None:
            return self._checked_per_item(claim, binding, check, *listed)
        product = self._part_of_the_share_after(claim, binding)
        if product is not None:
            if check.derived(product):
                return _supported(claim, product.facts, product.describe())
            why = f"the count of a share's part, not {product.describe()}"
            return _unverifiable(claim, why, self.state.usable)
        stated, decided = self._stated_shares(claim, binding)  # before a share found by chance
        agreeing = next((d for d in stated if check.derived(d)), None)
        if agreeing is not None and decided:
            return _supported(claim, agreeing.facts, agreeing.describe())
        if stated and agreeing is None:
            accused = [f for d in stated for f in d.facts]
            excuse = self._excuse(claim, binding, check, stated[0], accused)
            if excuse is not None:
                return _unverifiable(claim, excuse, self.state.usable)
            held = derived_kinds(stated[0])
            if reading.fits(held):
                return _contradicted(claim, accused, "; ".join(d.describe() for d in stated))
            refused = reading.refusal(held)
        restated = self._share_restated(claim, binding)
        if restated is not None and check.derived(restated):
            return _supported(claim, restated.facts, restated.describe())
        if restated is not None and reading.fits(derived_kinds(restated)):
            return _contradicted(claim, restated.facts, restated.describe())
        after = self._share_of_the_amount_before(claim, binding)
        if after is not None and check.derived(after):
            return _supported(claim, after.facts, after.describe())
        counted = self._rows_counted(claim, binding)
        if counted is not None and check.derived(counted):
            return _supported(claim, counted.facts, counted.describe())
        derived = of_its_column_series(
            self.state, claim, candidates(self.state.deriver, claim, binding, unit)
        )
        for candidate in _unless_a_ratio_is_pinned(derived):
            if check.derived(candidate) and (
                cued(self.state, claim, binding, unit, candidate) or unlikely_by_chance(claim)
            ):
                verdict = _supported(claim, candidate.facts, candidate.describe())
                return self._kept(claim, candidate, verdict)
        rows = named_series([f for f in direct if f.entity == "row"])
        row_matches = [f for f in rows if check.level(f.fact)]
        if (
            (len(row_matches) == 1 or all_alike(self.state, binding, rows, row_matches))
            and len({f.fact.series for f in rows}) == 1
            and not (len(rows) > 1 and self._stated_before(claim, binding, row_matches[0].fact))
        ):
            verdict = _supported(claim, [row_matches[0].fact], row_matches[0].describe())
            return self._kept(claim, row_matches[0].fact, verdict)
        if agreeing is not None:
            why = f"it agrees with {agreeing.describe()}, but its words do not say which of the "
            why += "figures listed before it is its part"
            return _unverifiable(claim, why, self.state.usable)
        why = not_its_level(self.state, claim, binding)
        target = None
        if signed and claim.kind != "comparison":  # "Pacific −129 hours": a gap, not a level
            direct = [f for f in direct if self._change_fact(f.fact)]
        if not why:
            target, why = target_of(self.state, claim, binding, direct, among_others=True)
        held = self._held(target[0].fact) if target is not None else frozenset()
        if target is not None and not reading.fits(held):
            refused, target = reading.refusal(held), None
        if target is not None:
            accused = [f.fact for f in target]
            excuse = self._excuse(claim, binding, check, target[0].fact, accused)
            if excuse is not None:
                return _unverifiable(claim, excuse, self.state.usable)
            shown = ", ".join(f.describe() for f in target[:_MAX_EVIDENCE])
            who = ", ".join(sorted(binding.entities)) or "the case"
            verdict = _contradicted(claim, [f.fact for f in target], f"{shown} (stated for {who})")
            return self._kept(claim, target[0].fact, verdict)
        pinned = [
            d
            for d in derived
            if d.pinned
            and not self.state.outside_the_references(
                _without_relative_periods(claim, binding), d.facts
            )
            and pins(self.state, claim, binding, unit, d)
        ]
        fitting = [d for d in pinned if reading.fits(derived_kinds(d))]
        if pinned and not fitting:
            refused = reading.refusal(derived_kinds(pinned[0]))
        pinned = fitting
        if claim.kind != "comparison":  # a change's words name its levels' quantity too
            pinned = of_the_quantity_named(binding, pinned)
        else:
            pinned = of_the_column_named(self.state, claim, binding, pinned)
        in_phrase = [d for d in pinned if stated_in_its_phrase(self.state, claim, binding, d)]
        if in_phrase and len({d.facts[0].series for d in pinned}) > 1:
            pinned = in_phrase  # "lowest at 55.0%, 11.7 points behind X": the 55.0%'s column
        if pinned and (
            len({frozenset(map(id, d.facts)) for d in pinned}) == 1 or _columns_of_one_pair(pinned)
        ):
            excuse = self._excuse(claim, binding, check, pinned[0], pinned[0].facts)
            if excuse is not None:
                return _unverifiable(claim, excuse, self.state.usable)
            if claim.kind == "comparison" and self._derived_stated_right(claim, pinned[0]):
                why = f"another claim states {pinned[0].describe()} right; it is of something else"
                return _unverifiable(claim, why, self.state.usable)
            shown = "; ".join(dict.fromkeys(d.describe() for d in pinned[:_MAX_EVIDENCE]))
            facts = list({id(f): f for d in pinned for f in d.facts}.values())
            return self._kept(claim, pinned[0], _contradicted(claim, facts, shown))
        if claim.kind == "comparison":
            why = "a change or difference that no two named reference values give"
        why = refused or f"matches no reference value; {why}"
        return _unverifiable(claim, why, self.state.usable)

    def _reading(self, claim: Claim, binding: Binding) -> Reading:
        """The kind of figure the claim's words state."""
        ctx, cell = self.state.ctx, self.state.ctx.layout.cell_of(claim.span[0])
        headers = cell[0].header[cell[2].column :] if cell else ()
        header = headers[0] if headers else ""
        names = ctx.label_around
        at = binding.clause, binding.sentence
        return read(ctx.answer, claim, *at, lambda *span: bool(names(*span)), header)

    def _sets_a_limit(self, claim: Claim, reading: Reading) -> bool:
        """Does the claim state a limit rather than a level ("allows up to 12%", "at least 60
        hours a day", "the £20M budget", "Our budget assumed 25%"): read as one, not a
        threshold the question asks about, and no reference value is a limit? The level then
        neither supports nor accuses it, though it may happen to agree."""
        if reading.kinds != {"limit"} or any("limit" in self._held(f) for f in self.state.facts):
            return False
        return claim.value is None or not any(
            math.isclose(claim.value, n.value) for n in scan_numbers(self.state.ctx.question)
        )

    def _held(self, fact: Fact) -> frozenset[Kind]:
        """The kinds of figure a fact may be stated as."""
        rows = len(self.state.deriver.series.get(fact.series, ()))
        return fact_kinds(fact, rows=rows, balance=fact.quantity_name in self.state.balances)

    def _as_written(self, claim: Claim, binding: Binding) -> Verdict:
        """A change whose written sign its words contradict ("-1,445 more", "a -2.3%
        increase"): the number as written may be right, read so; which way it went is
        otherwise unsaid, so no value can accuse it."""
        assert claim.value is not None
        written = claim.model_copy(update={"value": -claim.value})
        verdict = self.numeric(written, binding)
        if verdict.verdict == "supported":
            return verdict
        why = "its written sign and the direction its words give disagree"
        return _unverifiable(claim, why, self.state.usable)

    def _derived_stated_right(self, claim: Claim, found: Derived) -> bool:
        """Has an earlier claim stated this derived value right ("+0.3 minutes on last year"
        before "peak visits were 9 minutes shorter")? An answer states a figure once, so
        another number pinned to the same values is about something the references lack."""
        facts = set(map(id, found.facts))
        return any(
            other.id != claim.id
            and other.kind == "comparison"
            and set(map(id, self._truths[other.id][2])) == facts
            and abs(self._truths[other.id][0] - found.value) < 1e-9
            and Check(
                other, claim_unit(other, self.state.bindings[other.id]), self.state.rule
            ).derived(found)
            for other in self.state.claims
            if other.id in self._truths
        )

    def _rows_counted(self, claim: Claim, binding: Binding) -> Derived | None:
        """The number of rows of the one table whose rows are what the claim counts ("Five
        invoices are overdue" beside a table keyed by invoice_number): its noun names the
        table's label columns or its reference, none of its number columns. Not the size the
        question asks for ("our top 5 customers"), which is the query's own limit."""
        noun = head_noun(self.state.ctx.answer, claim)
        if noun is None or binding.entities or claim.hedged or claim.bound:
            return None
        if re.search(rf"(?<![\d.,]){claim.value:g}(?![.,]?\d)", self.state.ctx.question):
            return None
        found = []
        for rv in self.state.usable:
            facts = [f for f in self.state.facts if f.source is rv]
            if rv.shape != "table" or not isinstance(rv.value, dict) or not facts:
                continue
            numbers = {f.column or "" for f in facts}
            labels = [str(c) for c in rv.value.get("columns", []) if str(c) not in numbers]
            named = tokens(" ".join(labels)).union(*(f.meaning for f in facts))
            if noun in named and noun not in tokens(" ".join(numbers)):
                rows = tuple({f.position: f for f in facts}.values())
                found.append(Derived(float(len(rows)), "count", rows, "rows", False))
        return found[0] if len(found) == 1 else None

    def _kept(self, claim: Claim, truth: Fact | Derived, verdict: Verdict) -> Verdict:
        """The verdict, with the true value of what the claim states noted for a share of it
        written later ("490 of the clinic's 1,565 visits, or 28.1%")."""
        facts = truth.facts if isinstance(truth, Derived) else (truth,)
        self._truths[claim.id] = (truth.value, truth.unit, tuple(facts))
        supported = verdict.verdict == "supported"
        if supported and isinstance(truth, Derived) and truth.how == "amount per item":
            self._per_item.add(claim.id)
        return verdict

    def _per_item_as_listed(self, claim: Claim, binding: Binding) -> tuple[Derived, Claim] | None:
        """The value per item of the claim's entity, over the amount and count a figure of its
        list supported before it (in its sentence or the one before, in the same unit and
        within twice or half its value: "46,424 km over 15 buses" is no figure per bus):
        "Eastfield leads with 2,948 km per bus. Riverside is next at 2,892 km, … Harbour at
        2.4k km" states every figure per bus, the km of each depot over its buses."""
        if claim.kind != "numeric" or claim.per is not None or not binding.entities:
            return None
        layout = self.state.ctx.layout
        start = layout.sentence_of(binding.sentence[0] - 1)[0] if binding.sentence[0] else 0
        listed = [
            other
            for other in self.state.claims_within(start, claim.span[0])
            if other.id in self._per_item
            and other.unit == claim.unit
            and measure_written(other.text) == measure_written(claim.text)
            and _NEAR <= (claim.value or 0) / (other.value or 1) <= 1 / _NEAR
        ]
        if not listed:
            return None
        amount, count = self._truths[listed[-1].id][2][:2]
        series = self.state.every_series
        rows = [
            (a, b)
            for a in series.get(amount.series, ())
            for b in series.get(count.series, ())
            if (a.labels, a.scope) == (b.labels, b.scope)
            and (a.labels or a.scope) & binding.entities
            and b.value
        ]
        if len(rows) != 1:
            return None
        a, b = rows[0]
        return Derived(a.value / b.value, a.unit, (a, b), "amount per item", True), listed[-1]

    def _checked_per_item(
        self, claim: Claim, binding: Binding, check: Check, found: Derived, listed: Claim
    ) -> Verdict:
        """The verdict of a figure its list states per item, against its entity's value."""
        if check.derived(found):
            return self._kept(claim, found, _supported(claim, found.facts, found.describe()))
        excuse = self._excuse(claim, binding, check, found, found.facts)
        if excuse is not None:
            return _unverifiable(claim, excuse, self.state.usable)
        why = f"{found.describe()}, per item as {listed.text!r} before it"
        return self._kept(claim, found, _contradicted(claim, found.facts, why))

    def _truth(self, claim: Claim) -> tuple[float, Unit | None, tuple[Fact, ...]] | None:
        """The true value (unit, facts) of what an amount claim states, found once."""
        if claim.id not in self._truths and claim.id not in self._checked:
            self._checked.add(claim.id)
            if claim.kind == "numeric" and family(claim.unit) != "rate" and claim.per is None:
                self.numeric(claim, self.state.bindings[claim.id])
        return self._truths.get(claim.id)

    def _stated_shares(self, claim: Claim, binding: Binding) -> tuple[list[Derived], bool]:
        """The readings of a share written as the ratio of figures the answer states beside it
        (``VerifyState.part_and_whole``): each part it may be of, over its written whole or
        over the sum of the amounts listed with it. Their true values give the share (a part
        stated wrong still has its true share). Also whether its part is decided (its words or
        its place say which); when it is not, every part must give a reading, or none is kept:
        only all of them together may accuse it."""
        written = self.state.part_and_whole(claim, binding)
        if written is None:
            return [], False
        decided = len(written.parts) == 1
        whole = self._truth(written.whole)
        wholes = [(whole, "share (stated part and whole)")]
        listed = [self._truth(c) for c in written.listed]
        units = {t[1] for t in listed if t is not None}
        if len(listed) > 1 and None not in listed and len(units) == 1:
            value = sum(t[0] for t in listed if t is not None)
            facts = tuple(f for t in listed if t is not None for f in t[2])
            if whole is None or abs(value - whole[0]) > 1e-9:
                wholes.append(((value, units.pop(), facts), "share (stated part of those listed)"))
        readings: list[Derived] = []
        for part in written.parts:
            a = self._truth(part)
            if a is None and not decided:
                return [], False
            found = [
                Derived(a[0] / b[0], "fraction", (*a[2], *b[2]), how, True)
                for b, how in wholes
                if a is not None and b is not None and a[1] == b[1] and 0 < a[0] <= b[0]
            ]
            if not found and not decided:
                return [], False
            readings += found
        return readings, decided

    def _share_restated(self, claim: Claim, binding: Binding) -> Derived | None:
        """The true value of the share written right before the claim, which the claim
        restates in another form ("87% of reviews were 4 or 5 stars — roughly 9 out of 10",
        "about 9%, or roughly one in 11", "one in 3, or 31%")."""
        around = self.state.sentence_claims(binding)
        i = around.index(claim) if claim in around else -1
        if i < 1 or {around[i - 1].unit, claim.unit} != {"percent", "fraction"}:
            return None
        before = around[i - 1]
        joint = RESTATED.fullmatch(self.state.ctx.answer, before.span[1], claim.span[0])
        truth = self._truths.get(before.id)
        dashed = joint is not None and joint["joint"].strip() in ("—", "–", "-")
        if joint is None or not (apposed(joint) or dashed) or truth is None:
            return None
        value, unit, facts = truth
        return Derived(value, unit or "percent", facts, "share restated", False)

    def _share_of_the_amount_before(self, claim: Claim, binding: Binding) -> Derived | None:
        """A share set right after an amount, with only a joint between ("add up to 309,
        roughly 2 in 5 members", "309 (about 40%)"), is that amount's share of its column's
        total, whatever rows the amount sums; read only to support, since the whole is not
        written."""
        if claim.kind != "numeric" or (claim.per is None and family(claim.unit) != "rate"):
            return None
        around = self.state.sentence_claims(binding)
        i = around.index(claim) if claim in around else -1
        if i < 1 or not _JOINT_ONLY.fullmatch(
            self.state.ctx.answer, around[i - 1].span[1], claim.span[0]
        ):
            return None
        truth = self._truth(around[i - 1])
        if truth is None or family(truth[1]) == "rate" or len({f.series for f in truth[2]}) != 1:
            return None
        whole = self.state.deriver.totals.get(truth[2][0].series, 0.0)
        if not 0 < truth[0] <= whole:
            return None
        return Derived(truth[0] / whole, "fraction", truth[2], "share (column total)", True)

    def _stated_before(self, claim: Claim, binding: Binding, fact: Fact) -> bool:
        """Has an earlier claim of its sentence stated this row's value with the same number? A
        sentence lists each row once, so the same number again beside rows named in other words
        ("10:00–11:00 with 84, and 17:00–18:00 with 84 as well") is another row's; the row
        restated in another unit ("780 hours, or 32.5 days") is still this one."""
        if binding.in_table:
            return False  # a table row's cells are one row's, whatever they repeat
        return any(
            self._truths[c.id][2] == (fact,)
            for c in self.state.sentence_claims(binding)
            if c.span[0] < claim.span[0]
            and c.id in self._truths
            and (c.value, c.unit) == (claim.value, claim.unit)
        )

    def _part_of_share(self, claim: Claim, binding: Binding) -> Derived | None:
        """A count written right after a share of its row ("0.26%, just 1 review") counts the
        share's part: the row's true rate times the row's count, never the row's count."""
        if claim.kind != "numeric" or claim.per is not None or family(claim.unit) == "rate":
            return None
        text, around = self.state.ctx.answer, self.state.sentence_claims(binding)
        i = around.index(claim) if claim in around else -1
        if i < 1 or not _PART_AFTER.fullmatch(text, around[i - 1].span[1], claim.span[0]):
            return None
        share = around[i - 1]
        truth = self._truths.get(share.id)
        if share.unit not in ("percent", "fraction") or truth is None or len(truth[2]) != 1:
            return None
        rate = truth[2][0]
        counts = [
            f
            for f in self.state.facts
            if f.source is rate.source and f.position == rate.position and f.unit == "count"
        ]
        if rate.unit not in ("percent", "fraction") or len(counts) != 1:
            return None
        fraction = rate.value / 100 if rate.unit == "percent" else rate.value
        value = fraction * counts[0].value
        return Derived(value, "count", (rate, counts[0]), "part (rate × count)", True)

    def _part_of_the_share_after(self, claim: Claim, binding: Binding) -> Derived | None:
        """A count written right before a row's rate in brackets, when the row's count is in
        another reference ("about 138 desks (76.9%)" beside a capacity of 180): the part the
        rate takes of that count, not the count itself."""
        if claim.kind != "numeric" or claim.per is not None or family(claim.unit) == "rate":
            return None
        text, around = self.state.ctx.answer, self.state.sentence_claims(binding)
        i = around.index(claim) if claim in around else -1
        if not 0 <= i < len(around) - 1:
            return None
        share = around[i + 1]
        if share.unit != "percent" or not _SHARE_AFTER.fullmatch(
            text, claim.span[1], share.span[0]
        ):
            return None
        if share.id not in self._truths:
            self.numeric(share, self.state.bindings[share.id])
        truth = self._truths.get(share.id)
        if truth is None or len(truth[2]) != 1 or truth[2][0].unit not in ("percent", None):
            return None  # a whole-number rate may carry no unit of its own
        if not 0 <= truth[2][0].value <= 100:
            return None
        rate = truth[2][0]
        counts = [
            f
            for f in self.state.facts
            if f.source is not rate.source and f.labels == rate.labels and f.unit == "count"
        ]
        if not rate.labels or len(counts) != 1:
            return None
        value = rate.value / 100 * counts[0].value
        return Derived(value, "count", (rate, counts[0]), "part (rate × count)", True)

    def _verb_of_its_quantity(self, claim: Claim) -> bool:
        """Is the change written right after a verb whose word the facts name their quantity
        by ("Powder Basin drops 930 m" beside `vertical_drop_m`)? The verb then states that
        quantity's level, not a fall."""
        if claim.kind != "comparison" or written_signed(claim):
            return False
        verb = _VERB_BEFORE.search(self.state.ctx.answer, max(0, claim.span[0] - 30), claim.span[0])
        return verb is not None and tokens(verb.group(1)) <= self.state.fact_words

    def _excuse(
        self,
        claim: Claim,
        binding: Binding,
        check: Check,
        truth: Fact | Derived,
        accused: Sequence[Fact],
    ) -> str | None:
        """Why a claim about to be accused by ``truth`` (over the ``accused`` facts) is left
        unverifiable instead: the first reading that says its words may mean something else."""
        excuses: list[Callable[[], str | None]] = [
            lambda: self._value_of_another(claim, binding, check, accused),
            lambda: self._far_and_unnamed(claim, binding, check, truth),
            lambda: self._of_another_noun(claim),
            lambda: self._outside_what_is_held(claim, binding),
            lambda: self._for_an_unheld_name(claim),
        ]
        if isinstance(truth, Fact):
            excuses += [
                lambda: self._under_a_shared_hedge(claim, binding, check.unit, truth),
                lambda: _its_complement(check, truth),
                lambda: self._decimal_for_a_count(claim, truth),
                lambda: self._stated_right_before(claim, binding, check, truth),
            ]
        elif truth.how == "ratio":
            excuses.append(lambda: self._ratio_of_stated(claim, binding, check, truth))
        return next((why for why in (excuse() for excuse in excuses) if why is not None), None)

    def _stated_right_before(
        self, claim: Claim, binding: Binding, check: Check, truth: Fact
    ) -> str | None:
        """Why a level about to be accused by a fact is not, when an earlier claim of its
        sentence states that fact right, in the same unit, and its own value, written
        precisely, is another row's of the same column ("Promo orders averaged $155.56 against
        $188.66 for orders without a code"): a sentence states a row's figure once, so the
        figure is of the row its words name in a way the binding did not read."""
        if binding.in_table or not precise(claim):
            return None
        series = self.state.deriver.series.get(truth.series, ())
        if not any(f is not truth and check.level(f) for f in series):
            return None
        stated = [
            other
            for other in self.state.sentence_claims(binding)
            if other.span[0] < claim.span[0]
            and other.unit == claim.unit
            and other.id in self._truths
            and self._truths[other.id][2] == (truth,)
        ]
        rule = self.state.rule
        if any(Check(o, self.state.units.get(o.id), rule).level(truth) for o in stated):
            return f"another claim of its sentence states {truth.describe()} right"
        return None

    def _outside_what_is_held(self, claim: Claim, binding: Binding) -> str | None:
        """Why a figure is not accused when its clause names a part of the week ("Saturday
        trips", "on weekends") or a span of years ("the 10-year average", "an all-time
        high") that neither the question nor any reference names: the references hold the
        figure for all days, or for one period, not for that."""
        text, (start, end) = self.state.ctx.answer, binding.clause
        figures = [c.span for c in self.state.sentence_claims(binding)]

        def gap(words: re.Match[str], span: tuple[int, int]) -> int:
            return max(span[0] - words.end(), words.start() - span[1])

        own = [  # words nearer the claim than any other figure are its own
            m
            for m in _NOT_BROKEN_OUT.finditer(text, start, end)
            if all(gap(m, claim.span) <= gap(m, span) for span in figures)
        ]
        held = self.state.ctx.question_words | self.state.fact_words
        if not own or any(tokens(m.group(0)) - _SPAN_STATISTICS & held for m in own):
            return None  # "the long-run average" asked about "the average wait" is still held
        return f"it is for {own[0].group(0)!r}, which no reference value is for"

    def _for_an_unheld_name(self, claim: Claim) -> str | None:
        """Why a figure is not accused when it is for a name no reference holds: one written
        right after it ("12 units (10 at Blackwater Ridge, 2 at Sierra Mesa)"), or one it ends
        ("all at Lakeshore 2"), a name being capitalised words that are no label, no period
        and no word of what the references hold."""
        text, ctx = self.state.ctx.answer, self.state.ctx
        after = _AT_A_NAME.match(text, claim.span[1])
        before = search_before(_AT_A_NAME_ENDING, text, claim.span[0], 40)
        if after is not None:
            name = after.span("name")
        elif before is not None and re.fullmatch(r"\d{1,3}", claim.text):
            name = (before.start("name"), claim.span[1])
        else:
            return None
        words = tokens(text[name[0] : name[1]]) - tokens(claim.text)
        if (
            ctx.labels_in(*name)
            or ctx.periods_in(*name)
            or words & (self.state.fact_words | ctx.label_words)
        ):
            return None
        return f"it is for {text[name[0] : name[1]]!r}, which no reference value is for"

    def _value_of_another(
        self, claim: Claim, binding: Binding, check: Check, accused: Sequence[Fact]
    ) -> str | None:
        """Why a claim about to be accused is not, when its value, written precisely, is that
        of another quantity of the same entity (or of the case): a wrong figure rarely equals
        one by chance, so its words more likely mean that quantity in a way the binding did not
        read. Another row's value of the accused quantity is no excuse: a swapped row is the
        chatbot's error."""
        if claim.value is None or claim.kind != "numeric" or not precise(claim):
            return None
        series = {f.series for f in accused}
        for fact in self.state.levels:
            own = fact.labels or fact.scope
            if (
                fact.series not in series
                and (not own or binding.entities & own)
                and check.level(fact)
            ):
                return f"its value is {fact.describe()}'s, which its words may mean"
        return None

    def _far_and_unnamed(
        self, claim: Claim, binding: Binding, check: Check, truth: Fact | Derived
    ) -> str | None:
        """Why a level about to be accused is not, when it is more than twice or under half
        the value it would be held against and its clause names something, but nothing of that
        value's quantity, which the answer or question names elsewhere: a misstated figure is
        rarely so far off and named otherwise, while a figure about something the references
        lack often is ("Amnesty week waived $120" beside monthly fines, "DVDs accrue $1 a day"
        beside the average fine). Ten times off or more, the unit a quantity is in names
        nothing of it ("curtailment hit 260 MWh" beside 7,153 of ``generation_mwh``), and the
        quantity need not be named elsewhere; a hundred times off a level or more, whatever its
        clause names, it is no misstatement of that level (outside a table, whose header names
        what its cells are). A figure off by a power of ten is a misstated scale ("0.60%" for
        0.60, "$123,457" for $1.23M), and a gap is easily twice another, so neither is
        excused."""
        if claim.kind != "numeric" or claim.per is not None or written_signed(claim):
            return None
        if isinstance(truth, Derived) and truth.how in _CHANGES:
            return None
        times = check.times(truth)
        if times is None or _NEAR <= times <= 1 / _NEAR or _a_power_of_ten(times):
            return None
        facts = truth.facts if isinstance(truth, Derived) else (truth,)
        far = not _FAR <= times <= 1 / _FAR
        own = frozenset(w for f in facts for w in f.own_meaning if not (far and names_a_unit(w)))
        ctx = self.state.ctx
        clause = tokens(ctx.answer[binding.clause[0] : binding.clause[1]])
        # "averaging 2,100 households each" beside 4 routes: no misstatement of the 4 (a table's
        # header names its column's quantity, however far off a cell is)
        extreme = (
            isinstance(truth, Fact) and not binding.in_table and not _FAR**2 <= times <= 1 / _FAR**2
        )
        if not extreme and (not binding.meaning or (binding.meaning | clause) & own):
            return None
        elsewhere = bool(own & (ctx.answer_words | ctx.question_words))
        if not (elsewhere or far):
            return None  # the quantity is named nowhere: no words tell it from another
        why = f"it is {times:.2g} times {truth.describe()}, and its clause names nothing of "
        why += "that quantity" + (", which the answer names elsewhere" if elsewhere else "")
        return why + ": more likely a figure the references do not hold than a misstatement of it"

    def _ratio_of_stated(
        self, claim: Claim, binding: Binding, check: Check, found: Derived
    ) -> str | None:
        """Why a ratio is not accused when it is the ratio of two figures of one unit its
        sentence states before it ("roughly $8.5K versus $3.2K, about 2.7x") that are not the
        values it would be held against (each further than twice or half from every one of
        them): it is of figures no reference column holds (an average per claim). The ratio
        of two misstated levels ("2.1% against 0.8%, about 2.6 times") is still accused."""
        before = [
            c
            for c in self.state.sentence_claims(binding)
            if c.span[1] <= claim.span[0] and not self._near_any(c, check.rule, found.facts)
        ]
        for a, b in itertools.combinations(before, 2):
            if a.unit != b.unit or a.unit in (None, "ratio"):
                continue
            low, high = sorted((abs(a.value or 0), abs(b.value or 0)))
            ratio = Derived(high / low, "ratio", (), "ratio", True, signed=False)
            if low and check.derived(ratio):
                return f"it is the ratio of {a.text!r} and {b.text!r}, which its sentence states"
        return None

    @staticmethod
    def _near_any(claim: Claim, rule: ToleranceRule, facts: Sequence[Fact]) -> bool:
        """Is the figure within twice or half of one of the facts' values?"""
        own = Check(claim, claim.unit, rule)
        return any(
            (times := own.times(f)) is not None and _NEAR <= times <= 1 / _NEAR for f in facts
        )

    def _of_another_noun(self, claim: Claim) -> str | None:
        """Why a share or a change is not accused when the noun written right after it names
        what it is of ("17.5% of all card holders", "15% more parcels"), or the noun whose
        movement it is ("orders grew about 18%"), and nothing the references hold or the
        question asks about goes by that name: the figure is about a quantity the references
        lack, however close its value."""
        text, ctx = self.state.ctx.answer, self.state.ctx
        found = _NOUN_AFTER.match(text, claim.span[1])
        if found is None and claim.kind == "comparison":
            found = search_before(_GREW_BEFORE, text, claim.span[0], 40)
        if found is None and family(claim.unit) == "rate":
            start = ctx.layout.sentence_of(claim.span[0])[0]
            found = _SUBJECT_BEFORE.fullmatch(text, start, claim.span[0])
        noun = found.group("noun") if found else ""
        named = tokens(noun) - NOT_NOUNS
        if named and claim.unit == "ratio" and named <= ctx.label_words:
            held = frozenset().union(*(f.own_meaning for f in self.state.facts))
            if not named & held:  # "2.5 times as many weekdays" beside orders by weekday
                return f"a ratio of {noun!r}, which are rows, not a quantity they hold"
        if not named or named & (ctx.question_words | self.state.fact_words | ctx.label_words):
            return None
        return f"a figure of {noun!r}, which no reference value is about"

    def _decimal_for_a_count(self, claim: Claim, fact: Fact) -> str | None:
        """Why a figure written with decimals ("11.1" under "Avg per event") is not accused
        by a count of whole things: no one writes a count of events as 11.1, so it states
        another quantity (an average, a rate) that the column's name shares words with. Written
        with the count's own noun after it ("181.50 units") it is that count, misstated."""
        if fact.unit != "count" or claim.value is None or claim.value.is_integer():
            return None
        if not _DECIMAL.search(claim.text) or SCALED.search(claim.text):
            return None
        noun = _NOUN.match(self.state.ctx.answer, claim.span[1])
        if noun is not None and tokens(noun.group(1)) & fact.words:
            return None  # "181.50 units": the count's own noun, a count misstated
        series = self.state.deriver.series.get(fact.series, ())
        if not all(f.value.is_integer() for f in (*series, fact)):
            return None
        return f"a figure with decimals, while {fact.describe()} counts whole things"

    def _under_a_shared_hedge(
        self, claim: Claim, binding: Binding, unit: Unit | None, fact: Fact
    ) -> str | None:
        """Why an unhedged figure is not accused, when the figure before it in its clause is
        hedged and only a comma or "and" joins them ("roughly 341,000 GB in 2024 and 432,000
        GB in 2025"): the hedge may be read over both, and so read the figure agrees."""
        if claim.hedged:
            return None
        around = [c for c in self.state.sentence_claims(binding) if c.span[1] <= claim.span[0]]
        start = binding.clause[0]
        before = [c for c in around if c.span[0] >= start and family(c.unit) == family(claim.unit)]
        if not before or not before[-1].hedged:
            return None
        between = self.state.ctx.answer[before[-1].span[1] : claim.span[0]]
        if not _LIST_JOINT.search(between) or re.search(r"[.;:\n]", between):
            return None
        hedged = claim.model_copy(update={"hedged": True})
        if not Check(hedged, unit, self.state.rule).level(fact):
            return None
        return f"the hedge before it ({before[-1].text!r}) may cover it, and so it agrees"

    def _change_fact(self, fact: Fact) -> bool:
        """A fact a change claim is compared with directly: one named a change or a net
        balance, or the only number of the case (a reference that computes the change itself)."""
        return (
            is_change(fact)
            or fact.quantity_name in self.state.balances
            or len(self.state.facts) == 1
        )


_TAKES_AN_OBJECT = re.compile(
    r"\b(?i:lost|gained|added|shed|saved|recovered|won)\s+(?:(?i:a\s+total\s+of|an?\s+"
    r"(?:estimated|extra|further)|another)\s+)?$"
)
"""A verb whose object is an amount ("the plant lost roughly 1,940 hours", "added 24 seats"):
the amount lost may be a level (downtime, seats added), as well as a change."""


def _its_complement(check: Check, fact: Fact) -> str | None:
    """Why a share about to be accused is not, when it is the rest of the rate it is bound
    to: "fail on about 17 in 100 first attempts" beside a first-attempt success rate of
    83.5%. Which side its words mean is theirs to say, so it is left unverifiable."""
    if fact.unit not in ("percent", "fraction") or check.claim.kind != "numeric":
        return None
    share = fact.value / 100 if fact.unit == "percent" else fact.value
    if not 0 <= share <= 1:
        return None
    rest = Derived(1 - share, "fraction", (fact,), "complement", False)
    if not check.derived(rest):
        return None
    why = f"it states the rest of {fact.describe()} (1 - {fmt_value(round(share, 4))}), "
    return why + "which its words may mean"


def _a_power_of_ten(times: float) -> bool:
    """Is the ratio 10, 100, 1,000 … or their inverse, to within 2 %?"""
    exponent = round(math.log10(times))
    return exponent != 0 and abs(times / 10.0**exponent - 1) <= 0.02


def _object_of_its_verb(claim: Claim, answer: str) -> bool:
    """Is the change an unsigned amount (a count, a duration, money) written as the object of
    a verb of gain or loss? It may then be supported as the level of what was lost or gained,
    though only as a change may it be accused."""
    if claim.kind != "comparison" or written_signed(claim) or family(claim.unit) == "rate":
        return False
    return bool(_TAKES_AN_OBJECT.search(answer, max(0, claim.span[0] - 40), claim.span[0]))


def _as_level(claim: Claim) -> Claim:
    assert claim.value is not None
    return claim.model_copy(
        update={"kind": "numeric", "value": abs(claim.value), "direction": None}
    )


def _sign_against_its_words(claim: Claim) -> bool:
    """Is the change written with a sign its words' direction reverses ("-1,445 more")?"""
    sign = claim.text.lstrip()[:1]
    value = claim.value or 0.0
    return claim.kind == "comparison" and (
        (sign in ("-", "−") and value > 0) or (sign == "+" and value < 0)
    )


def _unless_a_ratio_is_pinned(derived: list[Derived]) -> list[Derived]:
    """The derivations that may support a claim: when a ratio is pinned to the two rows its
    words name ("more than double Bay Shuttle's"), no ratio of two other rows."""
    if any(d.pinned and d.how == "ratio" for d in derived):
        return [d for d in derived if d.pinned or d.how != "ratio"]
    return derived


def _columns_of_one_pair(pinned: Sequence[Derived]) -> bool:
    """Are the pinned derivations one kind over the same rows, told apart only by the column
    ("4.5 times what Route 66 made" beside dues, add-on and total revenue)? None of them
    agreeing, the claim is wrong whichever column it reads. Not a sum: the columns added
    together are one more reading ("436 tickets" of housekeeping and maintenance)."""
    rows = {frozenset((id(f.source), f.position) for f in d.facts) for d in pinned}
    kinds = {d.how for d in pinned}
    return len(rows) == 1 and len(kinds) == 1 and not kinds & {"total", "sum"}


def _without_relative_periods(claim: Claim, binding: Binding) -> Binding:
    """The binding without the periods a change names only relative to its own ("up 5% year
    on year", "on the previous year"): those are its base, not another time it is about."""
    if claim.kind != "comparison":
        return binding
    return replace(binding, periods=[p for p in binding.periods if p.grain != "other"])


def _inside_a_name(claim: Claim, ctx: AnswerContext) -> str:
    """The reference label a claim's number is written inside ("Business 360", "6600 Route 66"):
    the extractor cannot know every name, the references do."""
    if claim.kind not in ("numeric", "comparison"):
        return ""
    mention = ctx.label_around(*claim.span)
    if mention is not None:
        return ctx.answer[mention.start : mention.end]
    return ctx.name_ending_at(*claim.span) or ""


_CLAUSE_BREAKS = re.compile(r"[,;:(]|\s[—–-]\s")
_WHICH_WAY = re.compile(
    r"(?i)\b(?:higher|lower|more|fewer|less|above|below|bigger|smaller|larger|greater|up|down)$"
)
"""A claim's last word that says which way the values went, whatever is good: "3.1 points
lower"."""


def _polar(claim: Claim, answer: str, around: Sequence[Claim]) -> bool:
    """Do the claim's own words say "improved", "better", "worse"? Those before it start after
    the clause break that follows the claim before it (of those ``around`` it): "a 4.3-point
    improvement, or roughly a quarter lower" says which way the points went, not the
    quarter." A claim whose own last word says which way the values went ("better than 2024
    — about 3.1 points lower") is signed by it, not by the polar word before it."""
    if _WHICH_WAY.search(claim.text):
        return False
    start = max(0, claim.span[0] - 30)
    earlier = max((c.span[1] for c in around if c.span[1] <= claim.span[0]), default=0)
    if earlier > start:
        breaks = [m.end() for m in _CLAUSE_BREAKS.finditer(answer, earlier, claim.span[0])]
        start = breaks[-1] if breaks else earlier
    line_end = answer.find("\n", claim.span[1])  # "+10.4 pts\n\nBetter than …": another's
    end = claim.span[1] + 15 if line_end < 0 else min(line_end, claim.span[1] + 15)
    later = min((c.span[0] for c in around if c.span[0] >= claim.span[1]), default=end)
    end = min(end, later)  # "104 minutes quicker, a 4.2% improvement": the 4.2%'s word
    return bool(POLAR_WORDS.search(answer, start, end))


def _figure_of(
    ranking: Claim, claims: Sequence[Claim], starts: Sequence[int], answer: str
) -> Claim | None:
    """The figure written right after a ranking ("ranks third at $67K", "came second with
    412"), else, for a ranking in apposition to what it ranks ("827.9 h of downtime, the
    most"), the figure it is apposed to: the series it agrees with, else its unit, names the
    metric the ranking ranks. ``starts`` are the (sorted) starts of ``claims``."""
    i = bisect.bisect_left(starts, ranking.span[1])
    if i < len(claims) and _FIGURE_JOINT.fullmatch(answer, ranking.span[1], starts[i]):
        return claims[i]
    before = bisect.bisect_left(starts, ranking.span[0]) - 1
    if ranking.entity is None and before >= 0:
        figure = claims[before]
        if figure.kind != "ranking" and _APPOSED_JOINT.fullmatch(
            answer, figure.span[1], ranking.span[0]
        ):
            return figure
    return None


_CLAUSE_JOINT = re.compile(
    r";|[,—–][ \t]*(?i:and|but|while|whereas|so)\b|\b(?i:while|whereas|but)\b"
)
"""Where a ranking's clause ends: its figures come before ("X had the most orders, averaging
$52"), another clause's after ("…, and its revenue was $50K")."""


def _stated_with(ranking: Claim, claims: Sequence[Claim], ctx: AnswerContext) -> list[Claim]:
    """The figures a ranking's own clause states after it, before another row is named (or
    another period, for a ranked period): "X had the strongest borrowers in 2024, averaging
    716.7", "the week of 23 December moved the most money: 31 loans totalling $515,550"."""
    start, end = ranking.span
    stop = ctx.layout.sentence_of(start)[1]
    joint = _CLAUSE_JOINT.search(ctx.answer, end, stop)
    stop = joint.start() if joint else stop
    others = [m.start for m in ctx.labels_in(end, stop)]
    if not ctx.labels_in(start, end):
        others += [m.start for m in ctx.periods_in(end, stop)]
    stop = min([*others, stop])
    return [
        c for c in claims if end <= c.span[0] < stop and c.kind == "numeric" and c.value is not None
    ]


def _ranking_before(ranking: Claim, rankings: Sequence[Claim]) -> Claim | None:
    """The ranking claim ending last before ``ranking`` starts, which "followed by X" counts on
    from; ``rankings`` are the ranking claims of one place (no "top N"), sorted by their ends."""
    i = bisect.bisect_right([c.span[1] for c in rankings], ranking.span[0])
    return rankings[i - 1] if i else None


def _measure_word(binding: Binding) -> str:
    return binding.measure.kind if binding.measure is not None else "its measure"


def verify_claims(
    contract: ClaimContract,
    references: Sequence[ReferenceValue],
    *,
    answer: str,
    question: str = "",
    rule: ToleranceRule = DEFAULT_RULE,
    max_claims: int = MAX_VERIFIED_CLAIMS,
) -> list[Verdict]:
    """One verdict per claim of the contract, in order; no claim is dropped. Claims past the
    first ``max_claims`` are unverifiable, so the time an answer takes is bounded."""
    usable = [rv for rv in references if rv.error is None]
    facts = all_facts(usable)
    labels = {name for f in facts for name in f.names}
    labels |= {label for rv in usable for label in scope_labels(rv)}
    codes = frozenset(label for label in labels if is_code(label))
    claims, unchecked = contract.claims[:max_claims], contract.claims[max_claims:]
    values = tuple(c.span[0] for c in claims)
    ctx = AnswerContext(plain(answer), plain(question), label_forms(labels), codes, values)
    bindings = bind(claims, ctx)
    state = VerifyState(facts, ctx, usable, rule, claims, bindings)
    verifier = _Verifier(state)
    measured: dict[tuple[str, bool], _Verifier] = {}

    def verifier_of(claim: Claim) -> _Verifier:
        """A claim in a unit of measure is checked beside the facts of that measure only."""
        binding = bindings[claim.id]
        if binding.measure is None:
            return verifier
        key = (binding.measure.kind, binding.per_item)
        if key not in measured:
            kept = [f for f in facts if of_its_measure(f, binding.measure, per_item=key[1])]
            measured[key] = verifier.narrowed(kept)
        return measured[key]

    for claim in claims:
        stated = verifier_of(claim).anchor(claim, bindings[claim.id]) if facts else None
        if stated is not None:
            state.anchors.setdefault(id(stated), []).append(claim.span[0])
    verdicts = []
    starts = [c.span[0] for c in claims]
    ranked = [c for c in claims if c.kind == "ranking" and c.bound is None]
    rankings = sorted(ranked, key=lambda c: c.span[1])
    for claim in claims:
        name = _inside_a_name(claim, ctx)
        if name:
            verdicts.append(_unverifiable(claim, f"part of the name {name!r}, not a claim", usable))
        elif not facts:
            verdicts.append(_unverifiable(claim, "no reference value is available", usable))
        elif claim.kind == "ranking" and state.for_another_period(bindings[claim.id]):
            why = "a ranking in a period the references are not for"
            verdicts.append(_unverifiable(claim, why, usable))
        elif claim.kind == "ranking":
            blank = _unverifiable(claim, "", usable)
            figure = _figure_of(claim, claims, starts, ctx.answer)
            series = state.stated_series.get(figure.id) if figure else None
            previous = _ranking_before(claim, rankings)
            unit = figure.unit if figure else None
            with_it = _stated_with(claim, claims, ctx)
            told = [
                (state.stated_series[c.id], c.unit) for c in with_it if c.id in state.stated_series
            ]
            first = state.stated_series.get(with_it[0].id) if with_it else None
            verdicts.append(
                verify_ranking(claim, ctx, facts, blank, series, previous, unit, told, first)
            )
        elif claim.value is None or claim.kind not in ("numeric", "comparison"):
            verdicts.append(_unverifiable(claim, "not a numeric claim", usable))
        elif not (own := verifier_of(claim)).state.facts:
            why = f"no reference value is in a unit of {_measure_word(bindings[claim.id])}"
            verdicts.append(_unverifiable(claim, why, usable))
        else:
            verdicts.append(own.numeric(claim, bindings[claim.id]))
    total = len(contract.claims)
    reason = f"not checked: the answer states {total:,} claims, the oracle checks the first "
    reason += f"{max_claims:,}"
    verdicts += [Verdict(claim_id=c.id, verdict="unverifiable", reason=reason) for c in unchecked]
    return verdicts
