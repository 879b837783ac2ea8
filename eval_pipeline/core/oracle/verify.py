"""Second oracle pass, deterministic: a verdict for every claim against live reference values.

A claim is supported when a fact it fits (or a value derived from facts its words call for)
agrees with it at the precision it is written with. It is contradicted only when what it is
about is pinned — its row or entity named, its period named, or the one comparable figure of
the case — and that value disagrees; anything else is unverifiable with the reason, because
accusing a right answer is worse than leaving a claim unchecked.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from eval_pipeline.core.claims.extract import POLAR_WORDS
from eval_pipeline.core.claims.layout import plain, search_before, starting_within
from eval_pipeline.core.models import Claim, ClaimContract, Evidence, ReferenceValue, Unit, Verdict
from eval_pipeline.core.oracle.binding import AnswerContext, Binding, bind, says_nothing_after
from eval_pipeline.core.oracle.candidates import (
    Fit,
    bare_decimal,
    best,
    claim_scales,
    claim_unit,
    fits,
    known_scale,
)
from eval_pipeline.core.oracle.derived import (
    GAP_CUE,
    RELATIVE_CUE,
    SUM_CUE,
    Derived,
    Deriver,
    written_signed,
)
from eval_pipeline.core.oracle.facts import (
    Fact,
    all_facts,
    fmt_value,
    is_code,
    metric_words,
    scalar_name,
    scope_labels,
    tokens,
)
from eval_pipeline.core.oracle.labels import label_forms
from eval_pipeline.core.oracle.ranking import verify_ranking
from eval_pipeline.core.oracle.tolerance import (
    DEFAULT_RULE,
    ToleranceRule,
    share_holds,
    tolerance,
    within,
)
from eval_pipeline.core.oracle.units import RATES, family, less_is_better, measure_of, scale

_MAX_EVIDENCE = 12
MAX_VERIFIED_CLAIMS = 5000
"""Claims checked per answer: a long report states a few hundred figures; past this many the
answer is a dump, and the rest are unverifiable (with the reason) rather than slow."""
_SHARE_CUE = re.compile(
    r"%\s+(?i:of)\b|\b(?i:share|accounted|accounts|accounting|made\s+up|makes\s+up|make\s+up|"
    r"proportion|portion|represent\w*)\b"
)
_PER_AFTER = re.compile(r"\s*(?i:per|each|a|an)\s+(?!(?i:year|month|week|quarter)\b)[a-z]+\b")
_PER_NAME = re.compile(r"(?i)per|avg|average|mean")
_PER_BEFORE = re.compile(
    r"\b(?i:per|a)\s+(?!(?i:year|month|week|quarter|day)\b)[a-z]+\s+(?:(?!(?i:of)\b)\w+\s+)?$"
)
"""Before a value per item ("per claim, $16.8K"); not "a low of 34", which names the figure."""
_OF_ANOTHER = re.compile(
    r"\s+(?i:of)\s+(?:(?:[A-Z0-9][\w&.-]*\s+){0,4}?[A-Z0-9][\w&-]*['’](?:s\b)?|(?i:those|these|them|which|that)\b)"
)
_WHOLE_AFTER = re.compile(
    r"\s*(?i:(?:across|for|at|in|of)\s+(?:all|every)\b|overall\b|in\s+total\b|[a-z]+-wide\b)"
)
"""Words after a figure saying it is for the whole, not for one entity of it."""
_OF_ITS_OWN = re.compile(r"\s+(?i:of)\s+(?i:its|their|his|her)\b")
"""After a share of the entity's own quantity ("42% of their energy"), not of everyone's."""
_ELSEWHERE = re.compile(
    r"\b(?i:industry|industry-wide|market-wide|benchmarks?|national(?:ly)?|typical(?:ly)?|"
    r"usually|normally|peers?|competitors?|elsewhere)\b"
)
_PLANNED_NAME = re.compile(r"(?i)budget|target|forecast|goal|threshold|quota|project|assum")
_PLANNED = re.compile(
    r"\b(?i:budget(?:s|ed)?|targets?|forecast(?:s|ed)?|goals?|thresholds?|quotas?|projected|"
    r"assum(?:e|es|ed|ing|ption))\b[^\d:;()\n]{0,30}$"
)
"""Words of a figure set in advance right before it ("budgeted at", "the target was"), not of
one measured ("over the 15-minute target: Eastside (18.8 min)")."""
_SCORE_NAME = re.compile(r"(?i)score|rating|rated|csat|satisf|nps|stars?")
_REMAINDER = re.compile(
    r"\b(?i:un\w+(?:ed|paid)|outstanding|remaining|remainder|balance|left\s+over|leftover)\b"
)
_ADDS = re.compile(r"\b(?i:adds?|added|adding)\s+(?:(?i:another|an?\s+extra)\s+)?$")
"""Before an increment: "tips add roughly $9 an hour", "the patio adds 24 seats"."""
_NOUN_AFTER = re.compile(r"[^\S\n]+([A-Za-z][\w-]*)")
"""The word after a count on its line ("42 referrals"); the next line names nothing it counts."""
_CHANGE_HEAD = re.compile(
    r"(?im)^\s*[-*•]?\s*(?:[\w-]+\s+){0,2}(?:growth|change|increase|decrease|difference)\s*:"
    r"\s*[+-]?$"
)
"""A line headed by a change's name ("- Growth: 33%", "- Member growth: 23%"): its figure is the
change, not a level."""
_GRAIN_AFTER = re.compile(r"[^\S\n]+(?i:daily|weekly|monthly|quarterly|yearly|annual)\b")
"""A grain word after a count says how often, not what it counts ("2,310 monthly users")."""
_PLURAL_PHRASE = re.compile(r"(?:[^\S\n]+[a-z][\w-]*)??[^\S\n]+([a-z][\w-]*s)\b")
"""The words after a grain word up to their plural head ("… monthly active users"): the head
is what the count counts, not its modifier."""
_ENDS_AFTER = re.compile(r"\s*(?:[.;)]|$)")
_PLURAL_BEFORE = re.compile(r"([A-Za-z][\w-]*s),\s*$")
_OUT_OF = re.compile(r"\s+(?i:out\s+of)\s+\d")
_ARTICLE_BEFORE = re.compile(r"\b(?i:a|an)\s+$")
_WORD_AFTER = re.compile(r"\s*([a-z][a-z-]+)")
_STATISTIC = re.compile(r"\b(?i:median|maximum|minimum|percentile|p\d{2}|mode)\b")
_RESTATED = re.compile(
    r"(?:(?!\b(?i:and|but|while|whereas|than)\b)[^.;\n]){0,60}?(?:[,:(]|\s[—–-])\s*"
    r"(?i:or\s+|i\.e\.,?\s+|that\s+is,?\s+|so\s+|which\s+is\s+)?"
)
"""Between a figure and the share restating it: its words, then ", or", ":", "(", " — "."""
_SAME_FIGURE = tokens("average overall mean")
"""Words a restatement may end on without naming another quantity ("88.6 minutes on average")."""
_OF_WHOLE = re.compile(r"\s*(?:[\w-]+\s+){0,2}?(?i:of|out\s+of)\s+(?:[\w'’&.-]+\s+){0,4}?")
"""Between a part and its whole: "490 of Riverside Clinic's 1,565", "93 late out of 400"."""
_OF_AFTER = re.compile(r"\s+(?i:of|out\s+of)\s+(?:[\w'’&.-]+\s+){0,3}?")
"""Between a share and the whole after it: "42% of the hotel's $2.32M"."""
_OF_START = re.compile(r"\s*(?i:of|out\s+of)\s+(?:the\s+|all\s+|our\s+)?")
"""A sentence opening on its whole: "Of the 802 claims opened in 2025, …"."""
_PART_AFTER = re.compile(
    r"\s*(?:,|\(|\s[—–-])\s*(?i:or|i\.e\.,?|that\s+is,?|just|only)\s+|\s*\(\s*"
)
"""Between a share and the count of its part: "0.26%, just 1 review", "5.4% (21 reviews)"."""
_THAN = re.compile(r"(?:\s+[a-z][\w-]*){0,2}?\s+(?i:than)\s+")
"""From a comparison's number to the words of what it is compared with: "40 more than …"."""
_WHOLE_ORGANISATION = re.compile(
    r"\b(?i:network|group|company|chain|organi[sz]ation)(?:-wide)?\b|\b(?i:\w+-wide)\b"
)
"""Words of a figure for everything: "group-wide", "across the network", "company-wide"."""
_OF_PHRASE = re.compile(r"\s+(?i:of)\s+[^,;:.!?()]+")
"""A share's whole, after its "of": "41% of personal-auto indemnity"."""
_CLAUSE_STOP = re.compile(r"[,;:.!?()]|\s[—–-]\s|\b(?i:and|but|while|whereas)\b")
_NOT_NOUNS = frozenset(
    (
        *("in", "of", "and", "at", "per", "vs", "more", "less", "this", "that", "on", "for"),
        *("to", "from", "with", "by", "than", "was", "were", "is", "are", "a", "an", "the"),
        *("total", "overall", "each", "average", "all", "so", "or", "but", "across", "over"),
        *("up", "down", "as", "compared", "against", "versus", "year", "far", "apiece"),
        *("between", "among", "within", "during", "after", "before", "since", "until", "into"),
        *("while", "whereas", "which", "who", "then", "there", "here", "again", "also"),
        *("respectively", "last", "next", "these", "those"),
    )
)


def _plausible(claim: Claim, unit: Unit | None, found: list[Fit]) -> list[Fit]:
    """The fits a claim may be supported by: the rows it names when some are (a table row before
    the overall figure), then, when its words name some facts' quantity, those
    ("E911 readiness is 77.8%" is not supported by the NAS rate of 77.8%)."""
    rows = [f for f in found if f.entity == "named" and f.fact.labels]
    found = rows or found
    named = max((f.score for f in found), default=0)
    chosen = [f for f in found if f.score == named] if named > 0 else found
    if chosen and all(_magnitude_ratio(claim, unit, f) >= 3 for f in chosen):
        return found  # "rated support highest, at 4.10" is not the 240 ratings
    return chosen


def _magnitude_ratio(claim: Claim, unit: Unit | None, fit: Fit) -> float:
    """How many times apart the claim's value and the fact's are (1 when equal)."""
    assert claim.value is not None
    stated = abs(claim.value * next(iter(claim_scales(claim, unit, fit.fact)), 1.0))
    truth = abs(fit.fact.value)
    if not stated or not truth:
        return float("inf")
    return max(stated, truth) / min(stated, truth)


def _apart(unit: Unit | None) -> float:
    """How many times off the one value a claim names none of it must be to be about another
    quantity: ten, or three for a duration (the stages of one process — waiting, handling,
    resolving — last several times apart, and a wrong figure is near the right one)."""
    return 3.0 if family(unit) == "duration" else 10.0


def _of_its_magnitude(claim: Claim, unit: Unit | None, fits: list[Fit]) -> list[Fit]:
    """Of facts that fit equally well, the one of the claim's magnitude when every other is of
    another (within 1.5 times against beyond 3 times): a wrong figure is near the right one."""
    near = [f for f in fits if _magnitude_ratio(claim, unit, f) <= 1.5]
    close = {id(f) for f in near}
    if (
        near
        and len({round(f.fact.value, 9) for f in near}) == 1
        and all(_magnitude_ratio(claim, unit, f) >= 3 for f in fits if id(f) not in close)
    ):
        return near
    return fits


def _named_series(rows: list[Fit]) -> list[Fit]:
    """The rows of the series a claim's words name, when they name one more than any other
    ("she settled 87 of them" beside claims handled and claims settled per adjuster; a
    "Stays" column beside nights): a value only one of its rows has is then stated for it."""
    most = max((f.score for f in rows), default=0)
    named = [f for f in rows if f.score == most]
    return named if most > 0 and len({f.fact.series for f in named}) == 1 else rows


def _contenders(claim: Claim, unit: Unit | None, direct: list[Fit]) -> list[Fit]:
    """The facts a claim whose words name none may still be about: those in its own unit when
    some are (days before a column of unknown unit), then those of its magnitude."""
    found = [f for f in direct if f.entity != "row"]
    exact = [f for f in found if f.exact]
    return _of_its_magnitude(claim, unit, exact or found) if found else found


def _of_the_quantity_named(binding: Binding, found: list[Derived]) -> list[Derived]:
    """Of derivations over several columns ("Gold and Platinum together made 22% of room
    revenue" beside stays, nights and revenue per tier), those of the column the claim's words
    name most, when that is one column."""
    named = [len(binding.meaning & d.facts[0].own_meaning) for d in found]
    most = max(named, default=0)
    chosen = [d for d, n in zip(found, named, strict=True) if n == most]
    return chosen if most > 0 and len({d.facts[0].series for d in chosen}) == 1 else found


def _all_alike(rows: list[Fit], matches: list[Fit]) -> bool:
    """Does every row of the series agree with the claim, all with one value ("all five
    invoices are 30 days overdue")? Then it needs no row named to be right."""
    return len(rows) > 1 and len(matches) == len(rows) and len({f.fact.value for f in rows}) == 1


def _is_weak(claim: Claim) -> bool:
    """A small number in words ("three teams") is rarely the figure asked for."""
    return (
        claim.value is not None
        and abs(claim.value) <= 10
        and not any(ch.isdigit() for ch in claim.text)
        and claim.per is None
    )


def _precise(claim: Claim, within: float = 0.0025) -> bool:
    """Written to within ``within`` of its value (0.25 %: not "87", "about 40%", "over 500")."""
    if claim.bound or not claim.value:
        return False
    return tolerance(claim) / abs(claim.value) <= within


def _unlikely_by_chance(claim: Claim) -> bool:
    """A count or amount written exactly to several significant digits ("7,597", "$13.4M")
    matches a derived value by chance too rarely to need words calling for it."""
    if claim.hedged or claim.unit not in ("count", "currency"):
        return False
    return _precise(claim, 0.005) and abs(claim.value or 0) >= 100


def head_noun(answer: str, claim: Claim) -> str | None:
    """The word a count names ("42 referrals" → referral; "the most test drives, 362" → drive),
    which must be what the fact counts before a wrong count can be held against it."""
    if claim.unit != "count":
        return None
    after = _GRAIN_AFTER.match(answer, claim.span[1])
    m = _NOUN_AFTER.match(answer, after.end() if after else claim.span[1])
    phrase = _PLURAL_PHRASE.match(answer, after.end()) if after else None
    if phrase is not None and not _NOT_NOUNS & set(phrase.group(0).split()):
        m = phrase  # "2,310 monthly active users": the plural its modifiers lead to
    if m is None and _ENDS_AFTER.match(answer, claim.span[1]):
        m = search_before(_PLURAL_BEFORE, answer, claim.span[0], 60)
    if m is None or m.group(1).lower() in _NOT_NOUNS:
        return None
    found = tokens(m.group(1).replace("-", " "))
    return next(iter(sorted(found)), None) if len(found) == 1 else None


@dataclass(frozen=True)
class _Check:
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
        factor = scale(self.unit, found.unit)
        if factor is None and found.unit == "fraction" and self.unit in ("percent", "number", None):
            factor = 0.01
        if factor is None and self.unit == "fraction" and bare_decimal(self.claim):
            factor = 1.0  # "+0.9" in a "vs chain" column: a gap in days, read as a fraction
        if factor is None:
            return False
        prefixed = found.how in _SUMS and measure_of(self.claim.text) is not None
        prefixes = claim_scales(self.claim, self.unit, found.facts[0]) if prefixed else []
        return any(self._agrees_derived(found, factor * prefix) for prefix in prefixes or [1.0])

    def _agrees_derived(self, found: Derived, factor: float) -> bool:
        stated, truth = self._stated(found.facts) * factor, found.value
        if not found.signed or (self.claim.direction is None and not written_signed(self.claim)):
            stated, truth = abs(stated), abs(truth)
        return self._agrees(stated, truth, factor, signed=True)

    def _agrees(self, stated: float, truth: float, factor: float, *, signed: bool = False) -> bool:
        claim = self.claim
        if claim.bound is not None and claim.direction in ("up", "down"):
            # "down less than 0.1%": a fall whose size is bounded, whatever sign carries it
            right_way = truth <= 0 if claim.direction == "down" else truth >= 0
            return right_way and within(claim, abs(stated), abs(truth), factor, self.rule)
        if not signed:
            if claim.kind != "comparison" and stated >= 0 > truth:
                truth = -truth  # "a loss of $1.2M" states a magnitude
            if claim.kind == "comparison" and claim.direction is None:
                stated, truth = abs(stated), abs(truth)
        return within(claim, stated, truth, factor, self.rule)


_SUMS = ("total", "sum", "difference", "mean")
"""Derivations in the parts' own scale, which a claim in a prefixed unit is put in."""
_CHANGE_NAME = re.compile(
    r"(?i)change|delta|diff|growth|increase|decrease|variation|variance|yoy|qoq|gain|drop"
    r"|(?<![a-z])(?:mom|wow|vs)(?![a-z])"  # not "moment", "vswitch"
)


def is_change(fact: Fact) -> bool:
    """A fact that is itself a change (so named by its column, function, alias or label),
    which a change claim is compared with directly."""
    return bool(_CHANGE_NAME.search(f"{fact.quantity_name} {scalar_name(fact.source)}"))


def _parts_of(binding: Binding, facts: Sequence[Fact]) -> bool:
    """Are the facts the parts of a period the claim names, each for a shorter period inside
    it ("Full-year 2024 revenue was $9.95M" over four quarters)? A level of that period is
    then their sum, with no word calling for one."""
    return (
        len(facts) >= 2
        and bool(binding.periods)
        and len({f.periods for f in facts}) == len(facts)
        and all(
            any(fp.within(p) and not p.within(fp) for fp in f.periods)
            for f in facts
            for p in binding.periods
        )
    )


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


def _describe(fit: Fit) -> str:
    return f"{fit.fact.describe()} = {fmt_value(fit.fact.value)}"


class _Verifier:
    def __init__(
        self,
        facts: list[Fact],
        ctx: AnswerContext,
        usable: list[ReferenceValue],
        rule: ToleranceRule,
        claims: Sequence[Claim],
        bindings: dict[str, Binding],
    ) -> None:
        self.facts = facts
        self.claims = claims
        self.bindings = bindings
        self._numeric_families = Counter(family(c.unit) for c in claims if c.kind == "numeric")
        """How many numeric claims the answer states in each unit family."""
        self._stating: dict[int, set[str]] = {}
        """id(fact) → ids of the claims that state its value."""
        self.ctx = ctx
        self.usable = usable
        self.rule = rule
        self.anchors: dict[int, list[int]] = {}
        """id(fact) → positions of the claims that state it."""
        self.deriver = Deriver(facts, ctx, self.anchors)
        self._rates = any(f.unit in RATES for f in facts)
        self._scores = any(_SCORE_NAME.search(f.quantity_name) for f in facts)
        """The references hold a score, so "4.2 out of 5" may be checked."""
        self.levels = [f for f in facts if not is_change(f)] or facts
        """Facts a level claim is compared with: changes are for change claims."""
        self.stated_series: dict[str, tuple[int, str | None]] = {}
        """Claim id → the one series whose value, for its own row, the claim states."""
        self._columns = {
            c.id: (id(found[0]), found[2].column)
            for c in claims
            if (found := ctx.layout.cell_of(c.span[0])) is not None
        }
        """Claim id → (table, column) of the table cell it is written in."""
        self._places = {**_list_places(claims, ctx), **self._columns}
        """Claim id → its table column, or its list and its place among its item's figures."""
        self._at_place: dict[tuple[object, ...], Counter[tuple[int, str | None]]] | None = None
        self._ordered = sorted(claims, key=lambda c: c.span)
        self._starts = [c.span[0] for c in self._ordered]
        self._truths: dict[str, tuple[float, Unit | None, tuple[Fact, ...]]] = {}
        """Claim id → the true value of what it states (unit, facts), once decided."""
        self._checked: set[str] = set()
        self._units = {c.id: claim_unit(c, bindings[c.id]) for c in claims}

    def anchor(self, claim: Claim, binding: Binding) -> Fact | None:
        """The fact a level claim states directly, right or wrong: what ties its sentence to a
        metric, so a change derived in that sentence may be held against another claim. A
        share of items ("7 in 10") notes the series it states, and anchors none."""
        if claim.kind != "numeric" or claim.value is None:
            return None
        unit = claim_unit(claim, binding)
        direct = fits(claim, binding, self.facts, unit)
        check = _Check(claim, unit, self.rule)
        agreeing = [f.fact for f in direct if check.level(f.fact) and f.entity != "row"]
        if len({f.series for f in agreeing}) == 1:
            self.stated_series[claim.id] = agreeing[0].series
        if claim.per is not None:
            return None
        if agreeing:
            return agreeing[0]
        target, _ = self._target(claim, binding, direct, among_others=False)
        return target[0].fact if target else None

    def numeric(self, claim: Claim, binding: Binding) -> Verdict:
        unit = claim_unit(claim, binding)
        near = self.ctx.answer[max(0, claim.span[0] - 30) : claim.span[1] + 15]
        check = _Check(claim, unit, self.rule, polar=bool(POLAR_WORDS.search(near)))
        if claim.kind == "comparison":
            changes = [
                f for f in fits(claim, binding, self.facts, unit) if self._change_fact(f.fact)
            ]
            for found in changes:
                if check.level(found.fact):
                    return _supported(claim, [found.fact], _describe(found))
            named = [f for f in changes if is_change(f.fact)]
            if len(named) == 1 and named[0].entity in ("named", "unnamed"):
                return _contradicted(claim, [named[0].fact], _describe(named[0]))
        part = self._part_of_share(claim, binding)
        if part is not None:
            if check.derived(part):
                return _supported(claim, part.facts, part.describe())
            return _unverifiable(
                claim, f"the count of a share's part, not {part.describe()}", self.usable
            )
        signed = written_signed(claim)
        levels = self.facts if signed else self.levels
        direct = fits(claim, binding, levels, unit) if claim.kind != "comparison" else []
        direct = self._of_its_column(claim, binding, direct)
        direct = self._of_the_whole(claim, direct)
        direct = self._left_by_the_others(claim, binding, check, direct)
        for found in _plausible(claim, unit, direct):
            if check.level(found.fact) and found.entity != "row":
                return self._kept(
                    claim, found.fact, _supported(claim, [found.fact], _describe(found))
                )
        stated = self._stated_share(claim, binding)  # before any share found by chance
        if stated is not None:
            if check.derived(stated):
                return _supported(claim, stated.facts, stated.describe())
            other = self._value_of_another(claim, binding, check, stated.facts)
            if other is not None:
                return _unverifiable(claim, other, self.usable)
            return _contradicted(claim, stated.facts, stated.describe())
        counted = self._rows_counted(claim, binding)
        if counted is not None and check.derived(counted):
            return _supported(claim, counted.facts, counted.describe())
        derived = self._of_its_column_series(claim, self.deriver.candidates(claim, binding, unit))
        for candidate in derived:
            if check.derived(candidate) and (
                self._cued(claim, binding, unit, candidate) or _unlikely_by_chance(claim)
            ):
                verdict = _supported(claim, candidate.facts, candidate.describe())
                return self._kept(claim, candidate, verdict)
        rows = _named_series([f for f in direct if f.entity == "row"])
        row_matches = [f for f in rows if check.level(f.fact)]
        if (
            (len(row_matches) == 1 or _all_alike(rows, row_matches))
            and len({f.fact.series for f in rows}) == 1
            and not (len(rows) > 1 and self._stated_before(claim, binding, row_matches[0].fact))
        ):
            verdict = _supported(claim, [row_matches[0].fact], _describe(row_matches[0]))
            return self._kept(claim, row_matches[0].fact, verdict)
        why = self._not_its_level(claim, binding)
        target = None
        if signed and claim.kind != "comparison":  # "Pacific −129 hours": a gap, not a level
            direct = [f for f in direct if self._change_fact(f.fact)]
        if not why:
            target, why = self._target(claim, binding, direct, among_others=True)
        if target is not None:
            other = self._value_of_another(claim, binding, check, [f.fact for f in target])
            if other is not None:
                return _unverifiable(claim, other, self.usable)
            shown = ", ".join(_describe(f) for f in target[:_MAX_EVIDENCE])
            who = ", ".join(sorted(binding.entities)) or "the case"
            verdict = _contradicted(claim, [f.fact for f in target], f"{shown} (stated for {who})")
            return self._kept(claim, target[0].fact, verdict)
        pinned = [
            d
            for d in derived
            if d.pinned
            and not self._outside_the_references(binding, d.facts)
            and self._pins(claim, binding, unit, d)
        ]
        if claim.kind != "comparison":  # a change's words name its levels' quantity too
            pinned = _of_the_quantity_named(binding, pinned)
        else:
            pinned = self._of_the_column_named(claim, binding, pinned)
        in_phrase = [d for d in pinned if self._stated_in_its_phrase(claim, binding, d)]
        if in_phrase and len({d.facts[0].series for d in pinned}) > 1:
            pinned = in_phrase  # "lowest at 55.0%, 11.7 points behind X": the 55.0%'s column
        if pinned and len({frozenset(map(id, d.facts)) for d in pinned}) == 1:
            other = self._value_of_another(claim, binding, check, pinned[0].facts)
            if other is not None:
                return _unverifiable(claim, other, self.usable)
            if claim.kind == "comparison" and self._derived_stated_right(claim, pinned[0]):
                why = f"another claim states {pinned[0].describe()} right; it is of something else"
                return _unverifiable(claim, why, self.usable)
            return self._kept(
                claim, pinned[0], _contradicted(claim, pinned[0].facts, pinned[0].describe())
            )
        if claim.kind == "comparison":
            why = "a change or difference that no two named reference values give"
        return _unverifiable(claim, f"matches no reference value; {why}", self.usable)

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
            and _Check(other, claim_unit(other, self.bindings[other.id]), self.rule).derived(found)
            for other in self.claims
            if other.id in self._truths
        )

    def _rows_counted(self, claim: Claim, binding: Binding) -> Derived | None:
        """The number of rows of the one table whose rows are what the claim counts ("Five
        invoices are overdue" beside a table keyed by invoice_number): its noun names the
        table's label columns or its reference, none of its number columns. Not the size the
        question asks for ("our top 5 customers"), which is the query's own limit."""
        noun = head_noun(self.ctx.answer, claim)
        if noun is None or binding.entities or claim.hedged or claim.bound:
            return None
        if re.search(rf"(?<![\d.,]){claim.value:g}(?![.,]?\d)", self.ctx.question):
            return None
        found = []
        for rv in self.usable:
            facts = [f for f in self.facts if f.source is rv]
            if rv.shape != "table" or not isinstance(rv.value, dict) or not facts:
                continue
            numbers = {f.column or "" for f in facts}
            labels = [str(c) for c in rv.value.get("columns", []) if str(c) not in numbers]
            named = tokens(" ".join(labels)).union(*(f.meaning for f in facts))
            if noun in named and noun not in tokens(" ".join(numbers)):
                rows = tuple({f.position: f for f in facts}.values())
                found.append(Derived(float(len(rows)), "count", rows, "rows", False))
        return found[0] if len(found) == 1 else None

    def _of_the_whole(self, claim: Claim, direct: list[Fit]) -> list[Fit]:
        """A figure written for the whole ("14.2% across all stores", "1,210 company-wide") is
        the widest the references hold: of the fits, those narrowed by the fewest entities."""
        if not direct or not _WHOLE_AFTER.match(self.ctx.answer, claim.span[1]):
            return direct
        fewest = min(len(f.fact.filters) for f in direct)
        return [f for f in direct if len(f.fact.filters) == fewest]

    def _of_its_column(self, claim: Claim, binding: Binding, direct: list[Fit]) -> list[Fit]:
        """A table's column holds one quantity, and so does one place in the items of a list
        ("- West: 7 in 10" then "- East: 6 in 10"): when the other claims of the claim's column
        or place state the values of one series for their rows (two at least, and of no other
        series), the claim is of that series too, unless its words name another ("| Paid |"
        over indemnity amounts beside a reserve column)."""
        column = self._places.get(claim.id)
        if column is None:
            return direct
        stated = self._stated_at(column).copy()
        stated.subtract([self.stated_series[claim.id]] if claim.id in self.stated_series else [])
        stated = +stated  # the other claims' series only
        if len(stated) != 1 or stated.most_common(1)[0][1] < 2:
            return direct
        series = next(iter(stated))
        own = [f for f in direct if f.fact.series == series]
        if not own or max(f.score for f in own) < max(f.score for f in direct):
            return direct  # its header names another quantity: a swapped column is an error
        return own

    def _stated_at(self, place: tuple[object, ...]) -> Counter[tuple[int, str | None]]:
        """The series the claims of one column or list place state, counted once (after every
        claim's series is noted): a long list would otherwise be read once per claim."""
        if self._at_place is None:
            self._at_place = {}
            for other, at in self._places.items():
                if other in self.stated_series:
                    self._at_place.setdefault(at, Counter())[self.stated_series[other]] += 1
        return self._at_place.get(place, Counter())

    def _of_its_column_series(self, claim: Claim, found: list[Derived]) -> list[Derived]:
        """Of several derivations, the ones over the series most other cells of the claim's
        table column state, right or wrong: a total row under two year columns adds its own
        column's rows (a cell whose value two series share may be anchored to the other)."""
        column = self._columns.get(claim.id)
        if column is None or len(found) < 2:
            return found
        cells = {
            other.span[0]
            for other in self.claims
            if other.id != claim.id and self._columns.get(other.id) == column
        }
        stated = Counter(
            f.series
            for f in self.facts
            for position in self.anchors.get(id(f), ())
            if position in cells
        )
        if not stated:
            return found
        series, count = stated.most_common(1)[0]
        if count < 2 or 2 * count <= stated.total():
            return found
        own = [d for d in found if all(f.series == series for f in d.facts)]
        return own or found

    def _kept(self, claim: Claim, truth: Fact | Derived, verdict: Verdict) -> Verdict:
        """The verdict, with the true value of what the claim states noted for a share of it
        written later ("490 of the clinic's 1,565 visits, or 28.1%")."""
        facts = truth.facts if isinstance(truth, Derived) else (truth,)
        self._truths[claim.id] = (truth.value, truth.unit, tuple(facts))
        return verdict

    def _truth(self, claim: Claim) -> tuple[float, Unit | None, tuple[Fact, ...]] | None:
        """The true value (unit, facts) of what an amount claim states, found once."""
        if claim.id not in self._truths and claim.id not in self._checked:
            self._checked.add(claim.id)
            if claim.kind == "numeric" and family(claim.unit) != "rate" and claim.per is None:
                self.numeric(claim, self.bindings[claim.id])
        return self._truths.get(claim.id)

    def _stated_share(self, claim: Claim, binding: Binding) -> Derived | None:
        """A share written as the ratio of two figures the answer states beside it: "A of B,
        or P%", "A …, or P% of B", "Of the B …, A … (P%)". Their true values give the share
        (a part stated wrong still has its true share), and the claim's words pin it."""
        if claim.kind != "numeric" or (claim.per is None and family(claim.unit) != "rate"):
            return None
        text, around = self.ctx.answer, self._sentence_claims(binding)
        i = around.index(claim) if claim in around else -1
        if i < 1 or not _RESTATED.fullmatch(text, around[i - 1].span[1], claim.span[0]):
            return None
        part, whole = around[i - 1], None
        if i >= 2 and _OF_WHOLE.fullmatch(text, around[i - 2].span[1], part.span[0]):
            part, whole = around[i - 2], part
        elif i + 1 < len(around) and _OF_AFTER.fullmatch(
            text, claim.span[1], around[i + 1].span[0]
        ):
            whole = around[i + 1]
        elif around[0] is not part and _OF_START.fullmatch(
            text, binding.sentence[0], around[0].span[0]
        ):
            whole = around[0]
        if whole is None:
            return None
        a, b = self._truth(part), self._truth(whole)
        if a is None or b is None or a[1] != b[1] or not 0 < a[0] <= b[0]:
            return None
        return Derived(
            a[0] / b[0], "fraction", (*a[2], *b[2]), "share (stated part and whole)", True
        )

    def _stated_before(self, claim: Claim, binding: Binding, fact: Fact) -> bool:
        """Has an earlier claim of its sentence stated this row's value with the same number? A
        sentence lists each row once, so the same number again beside rows named in other words
        ("10:00–11:00 with 84, and 17:00–18:00 with 84 as well") is another row's; the row
        restated in another unit ("780 hours, or 32.5 days") is still this one."""
        if binding.in_table:
            return False  # a table row's cells are one row's, whatever they repeat
        return any(
            self._truths[c.id][2] == (fact,)
            for c in self._sentence_claims(binding)
            if c.span[0] < claim.span[0]
            and c.id in self._truths
            and (c.value, c.unit) == (claim.value, claim.unit)
        )

    def _sentence_claims(self, binding: Binding) -> list[Claim]:
        """The claims with a value written in the claim's sentence, in order (found by bisection:
        an answer may hold thousands)."""
        found = starting_within(self._starts, *binding.sentence)
        return [c for c in self._ordered[found.start : found.stop] if c.value is not None]

    def _part_of_share(self, claim: Claim, binding: Binding) -> Derived | None:
        """A count written right after a share of its row ("0.26%, just 1 review") counts the
        share's part: the row's true rate times the row's count, never the row's count."""
        if claim.kind != "numeric" or claim.per is not None or family(claim.unit) == "rate":
            return None
        text, around = self.ctx.answer, self._sentence_claims(binding)
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
            for f in self.facts
            if f.source is rate.source and f.position == rate.position and f.unit == "count"
        ]
        if rate.unit not in ("percent", "fraction") or len(counts) != 1:
            return None
        fraction = rate.value / 100 if rate.unit == "percent" else rate.value
        value = fraction * counts[0].value
        return Derived(value, "count", (rate, counts[0]), "part (rate × count)", True)

    def _value_of_another(
        self, claim: Claim, binding: Binding, check: _Check, accused: Sequence[Fact]
    ) -> str | None:
        """Why a claim about to be accused is not, when its value, written precisely, is that
        of another quantity of the same entity (or of the case): a wrong figure rarely equals
        one by chance, so its words more likely mean that quantity in a way the binding did not
        read. Another row's value of the accused quantity is no excuse: a swapped row is the
        chatbot's error."""
        if claim.value is None or claim.kind != "numeric" or not _precise(claim):
            return None
        series = {f.series for f in accused}
        for fact in self.levels:
            own = fact.labels or fact.scope
            if (
                fact.series not in series
                and (not own or binding.entities & own)
                and check.level(fact)
            ):
                return f"its value is {fact.describe()}'s, which its words may mean"
        return None

    def _not_its_level(self, claim: Claim, binding: Binding) -> str:
        """Why the claim cannot be held against a level it is bound to, if so: it states a gap
        ("the gap … is 1 day"), another statistic ("the median"), or a period outside the
        references ("In 2024 it was…" beside references for 2025)."""
        near = self.ctx.answer[
            max(binding.clause[0], claim.span[0] - 50) : min(binding.clause[1], claim.span[1] + 20)
        ]
        before = self.ctx.answer[max(binding.sentence[0], claim.span[0] - 80) : claim.span[0]]
        if claim.kind == "numeric" and GAP_CUE.search(before):
            return "a gap between two values, which no two named reference values give"
        said = {m.group().lower() for m in _STATISTIC.finditer(near)}
        if said and not any(word in f.quantity_name.lower() for f in self.facts for word in said):
            return f"a {sorted(said)[0]}, which no reference value is"
        if self._outside_the_references(binding, self.facts):
            return "it names a period the references are not for"
        if not binding.periods and self.for_another_period(binding):
            return "its sentence names only periods the references are not for"
        if search_before(_ADDS, self.ctx.answer, claim.span[0], 20):
            return "an amount added to another ('adds'), which no reference value is"
        if _REMAINDER.search(near[: claim.span[0] - max(binding.clause[0], claim.span[0] - 50)]):
            return "a remainder ('uncollected', 'not'), which no reference value states"
        clause_before = self.ctx.answer[binding.clause[0] : claim.span[0]]
        if _ELSEWHERE.search(clause_before):
            return "a figure for outside the references ('industry', 'usually', 'typically')"
        planned = search_before(_PLANNED, self.ctx.answer, claim.span[0], 50)
        if planned and not any(_PLANNED_NAME.search(f.quantity_name) for f in self.facts):
            return "a figure set in advance ('budget', 'target'), which no reference value is"
        answer, end = self.ctx.answer, claim.span[1]
        if claim.per is None and not self._scores and _OUT_OF.match(answer, end):
            return "a score on a scale, which no reference value states"
        article = search_before(_ARTICLE_BEFORE, answer, claim.span[0], 30)
        noun = _WORD_AFTER.match(answer, end) if claim.unit in ("percent", "currency") else None
        if (  # "a 10% discount", "a $25 fee"
            article
            and noun
            and noun.group(1) not in _NOT_NOUNS
            and not any(tokens(noun.group(1)) & f.meaning for f in self.facts)
        ):
            return f"a {noun.group(1)}, which no reference value is"
        return ""

    def for_another_period(self, binding: Binding) -> bool:
        """Does the claim's sentence name only periods the references are not for, none of them
        taken by a claim ("In 2024, a partial year, X also led with $63.5K")?"""
        periods = binding.periods or binding.loose_periods
        return bool(periods) and self._outside_the_references(
            replace(binding, periods=periods), self.facts
        )

    def _outside_the_references(self, binding: Binding, facts: Sequence[Fact]) -> bool:
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

    def _change_fact(self, fact: Fact) -> bool:
        """A fact a change claim is compared with directly: one named a change, or the only
        number of the case (a reference that computes the change itself)."""
        return is_change(fact) or len(self.facts) == 1

    def _cued(self, claim: Claim, binding: Binding, unit: Unit | None, found: Derived) -> bool:
        """Do the claim's own words call for this derivation? A round hedged figure agrees
        with many derived values by chance, so only the one its words name may support it."""
        near = self._near(claim, binding)
        if found.how.startswith("share") or found.how.startswith("complement"):
            return self._written_as_share(claim, binding) or not self._rates
        if found.how in ("total", "sum"):
            if found.pinned or SUM_CUE.search(near) or _parts_of(binding, found.facts):
                return True
            # "There are 38 open tickets" beside open tickets by priority: the column it names,
            # no row of it
            return (
                found.how == "total"
                and not binding.entities
                and not binding.periods
                and bool(binding.meaning & found.facts[0].own_meaning)
            )
        if found.how == "ratio":
            return unit == "ratio"
        if found.how in ("amount per item", "mean", "spread"):
            return True
        if found.how == "difference" and (
            written_signed(claim) or (found.pinned and self._names_a_gap(claim, binding))
        ):
            return True  # "(+$131 per account)", "a gap of 0.1 days" after its two levels
        if found.how == "relative change" and claim.kind != "comparison":
            # "an increase of 871 visits, or 16.35%": a level written as the size of a change
            return unit in ("percent", "fraction") and bool(RELATIVE_CUE.search(near))
        return claim.kind == "comparison"

    def _near(self, claim: Claim, binding: Binding) -> str:
        """Its clause's words around the claim, which may call for a derivation."""
        start, end = binding.clause
        return self.ctx.answer[max(start, claim.span[0] - 40) : min(end, claim.span[1] + 30)]

    def _written_as_share(self, claim: Claim, binding: Binding) -> bool:
        """Is the claim written as a share: "one in 8", a fraction, "%" with a share's words
        around it ("41% of", "accounted for") or in a sentence opening on its whole ("Of the
        622 hours, …")? Beside references holding no rate a bare "%" may be a share too, or
        the rate of something they do not hold."""
        cued = claim.per is not None or claim.unit == "fraction"
        opens = _OF_START.match(self.ctx.answer, binding.sentence[0]) is not None
        return cued or opens or bool(_SHARE_CUE.search(self._near(claim, binding)))

    def _pins(self, claim: Claim, binding: Binding, unit: Unit | None, found: Derived) -> bool:
        """May a derived value accuse the claim? Only a derivation its own words call for, over
        facts its sentence names, in a unit that leaves no doubt (a "%" change of rates could
        be points or relative)."""
        text = self.ctx.answer
        sentence = tokens(text[binding.sentence[0] : binding.sentence[1]]) | binding.lead_in
        anchored = any(
            binding.lead_start <= position < binding.sentence[1]
            for f in found.facts
            for position in self.anchors.get(id(f), ())
        )
        start, end = binding.sentence
        named = {m.key for m in self.ctx.labels_in(start, end)}
        by_name = (
            len(found.facts) == 2
            and all((f.labels or f.scope) & named for f in found.facts)
            and len({frozenset((f.labels or f.scope) & named) for f in found.facts}) == 2
        )
        led = found.how in ("relative change", "difference") and self.deriver.period_led(
            claim, binding
        )
        if not (anchored or by_name or led) and not any(sentence & f.meaning for f in found.facts):
            return False
        noun = head_noun(text, claim)
        if noun is not None and not any(noun in f.meaning for f in found.facts):
            return False
        if not self._cued(claim, binding, unit, found) or found.how.startswith("complement"):
            return False
        if found.how.startswith("share") and _OF_ITS_OWN.match(text, claim.span[1]):
            return False  # "42% of their energy": a share within the entity, not its share
        if found.how.startswith("share") and not (
            anchored or self._written_as_share(claim, binding)
        ):
            return False  # "they renew at 81%": a bare "%" beside neither part nor whole
        if (
            found.how in ("relative change", "difference")
            and claim.kind != "comparison"
            and not (found.how == "difference" and self._gap_of_stated(claim, binding, found))
            and not _CHANGE_HEAD.search(self.ctx.answer, binding.lead_start, claim.span[0])
        ):
            return False  # a level read as a change's size supports, never accuses
        if found.how in ("relative change", "difference", "ratio") and (
            self._than_nothing_named(claim, binding)  # "40 more than the two at the bottom"
            or self._each_its_own(claim, binding, found)  # "X 2.2 days slower and Y 5.4 faster"
        ):
            return False  # not the gap between the two the sentence names
        if found.how == "amount per item":
            return False
        if not known_scale(claim, found.facts[0], found.value):
            return False  # "4.2 GWh" beside a sum of rows whose prefix is not known
        if found.how in ("total", "sum") and abs(claim.value or 0) <= max(
            abs(f.value) for f in found.facts
        ):
            return False  # a figure no larger than one of the parts is not their total
        if found.how in ("total", "sum") and self._wider_than(binding, found.facts):
            return False  # "group-wide" beside one venue's rows: the group's total is not theirs
        if _OF_ANOTHER.match(text, claim.span[1]):
            return False  # "60% of Dr. Okafor's referrals", "40% of those no-shows"
        if found.how.startswith("share") and self._named_as_whole(claim, binding, found.facts[0]):
            return False  # "Auto Lite accounted for 41% of personal-auto indemnity"
        if found.how == "relative change":
            return unit in ("percent", "fraction") and found.facts[0].unit not in RATES
        if found.how == "difference":
            return scale(unit, found.unit) is not None and not (
                unit == "percent" and found.unit == "points"
            )
        return True

    def _of_the_column_named(
        self, claim: Claim, binding: Binding, found: list[Derived]
    ) -> list[Derived]:
        """Of changes over several columns ("July covers were up 13.1%" beside reservations,
        covers and no-show rate by month), those of the one column its statement names."""
        start, end = self.deriver.sentence_phrase(claim, binding)
        words = tokens(self.ctx.answer[start:end])
        chosen = [d for d in found if words & d.facts[0].own_meaning]
        return chosen if len({d.facts[0].series for d in chosen}) == 1 else found

    def _stated_in_its_phrase(self, claim: Claim, binding: Binding, found: Derived) -> bool:
        """Does a claim of the claim's own statement state one of the derived value's facts
        before it?"""
        start, _ = self.deriver.sentence_phrase(claim, binding)
        return any(
            start <= p < claim.span[0] for f in found.facts for p in self.anchors.get(id(f), ())
        )

    def _names_a_gap(self, claim: Claim, binding: Binding) -> bool:
        """Does the claim's clause call it the size of a gap ("a gap of about 0.1 days", "the
        difference is 0.5 points")?"""
        start = max(binding.clause[0], claim.span[0] - 40)
        return (
            claim.kind == "numeric"
            and bool(GAP_CUE.search(self.ctx.answer, start, claim.span[0]))
            and not self._outside_the_references(binding, self.facts)
        )

    def _gap_of_stated(self, claim: Claim, binding: Binding, found: Derived) -> bool:
        """Is the claim a gap its words name, between two values its sentence states before it
        ("38.4 days … 38.5 days — a gap of 0.1 days")? It is then the difference of those two."""
        return (
            found.pinned
            and self._names_a_gap(claim, binding)
            and all(
                any(binding.sentence[0] <= p < claim.span[0] for p in self.anchors.get(id(f), ()))
                for f in found.facts
            )
        )

    def _each_its_own(self, claim: Claim, binding: Binding, found: Derived) -> bool:
        """Has the other entity of a gap its own comparison in the claim's sentence ("Southeast
        runs 2.2 days slower and Pacific 5.4 days faster")? Each is then that entity's gap to
        something else, not the gap between the two, which would be stated once."""
        if claim.kind != "comparison" or len(found.facts) != 2:
            return False
        whose = [f.labels or f.scope for f in found.facts]
        mine = [w for w in whose if w & binding.entities]
        if len(mine) != 1:
            return False
        other = next(w for w in whose if w is not mine[0])
        return any(
            c.id != claim.id
            and c.kind == "comparison"
            and self.bindings[c.id].sentence == binding.sentence
            and self.bindings[c.id].entities & other
            and not self.bindings[c.id].entities & mine[0]
            for c in self.claims
            if c.id in self.bindings
        )

    def _wider_than(self, binding: Binding, facts: Sequence[Fact]) -> bool:
        """Does the claim's clause speak for the whole organisation ("group-wide", "across the
        network") while the facts are all of one entity (a venue's weeks)?"""
        clause = self.ctx.answer[binding.clause[0] : binding.clause[1]]
        scopes = {f.scope for f in facts if not f.labels}
        return bool(_WHOLE_ORGANISATION.search(clause)) and len(scopes) == 1 and all(scopes)

    def _named_as_whole(self, claim: Claim, binding: Binding, part: Fact) -> bool:
        """Is the part's entity named only after the share's "of" ("41% of personal-auto
        indemnity")? It then owns the whole, and the part is something inside it."""
        of = _OF_PHRASE.match(self.ctx.answer, claim.span[1], binding.clause[1])
        if of is None:
            return False
        own = part.labels or part.scope
        inside = [m for m in self.ctx.labels_in(of.start(), of.end()) if m.key in own]
        outside = [
            m
            for m in self.ctx.labels_in(*binding.clause)
            if m.key in own and not of.start() <= m.start < of.end()
        ]
        return bool(inside) and not outside

    def _a_share_of(self, claim: Claim, binding: Binding, fact: Fact) -> bool:
        """Is a percent written as a share of the fact's own quantity ("2.1% of billing" beside
        an average bill)? Then it is a part of that quantity, which is not a rate, never its
        level."""
        if claim.unit not in ("percent", "fraction") or fact.unit in RATES:
            return False
        of = _OF_PHRASE.match(self.ctx.answer, claim.span[1], binding.clause[1])
        return of is not None and bool(tokens(of.group()) & metric_words(fact.own_meaning))

    def _than_nothing_named(self, claim: Claim, binding: Binding) -> bool:
        """Does the claim name what it is compared with ("… more than X") by words that name
        no label, no period, no overall figure and state no figure? Then the other side is none
        of the references' values the sentence names elsewhere."""
        text = self.ctx.answer
        than = _THAN.match(text, claim.span[1])
        if than is None:
            return False
        end = _CLAUSE_STOP.search(text, than.end(), binding.sentence[1])
        start, stop = than.end(), end.start() if end else binding.sentence[1]
        return not (
            self.ctx.labels_in(start, stop)
            or self.ctx.periods_in(start, stop)
            or SUM_CUE.search(text, start, stop)
            or any(start <= other.span[0] < stop for other in self.claims)
        )

    def _target(
        self, claim: Claim, binding: Binding, direct: list[Fit], *, among_others: bool
    ) -> tuple[list[Fit] | None, str]:
        """The facts a wrong claim is about, when pinned — a named entity or period picks them,
        or the case has one comparable figure that no other claim states — else why not."""
        if not direct:
            return None, "no reference value of its unit fits the entity and period it names"
        top = best(direct)
        values = {round(f.fact.value, 9) for f in top}
        whose = {frozenset(binding.entities & (f.fact.labels or f.fact.scope)) for f in top}
        apart = len(frozenset().union(*whose)) == sum(map(len, whose))  # "North and South"
        if len(values) > 1 and len(whose) > 1 and apart and all(whose):
            return None, "a figure for several named entities together, which no value is"
        if len(values) != 1:
            top = _of_its_magnitude(claim, claim_unit(claim, binding), top)
            top = self._left_by_its_sentence(claim, binding, top)
            values = {round(f.fact.value, 9) for f in top}
        if len(values) != 1:
            shown = ", ".join(_describe(f) for f in top[:4])
            return None, f"several reference values could be the one it states: {shown}"
        first = top[0]
        after = self.ctx.answer[claim.span[1] : claim.span[1] + 25]
        before = self.ctx.answer[max(binding.clause[0], claim.span[0] - 30) : claim.span[0]]
        per_item = _PER_AFTER.match(after) or _PER_BEFORE.search(before)
        if per_item and not _PER_NAME.search(first.fact.describe()):
            return None, "a value per item, which no reference value is"
        if claim.per is not None and first.fact.unit not in RATES and abs(first.fact.value) > 1:
            return None, f"a share, which {first.fact.describe()} is not"
        if claim.unit in ("percent", "fraction") and _OF_ANOTHER.match(after):
            return None, "a share of another entity's quantity, not its rate"
        if self._a_share_of(claim, binding, first.fact):
            return None, f"a share of {first.fact.describe()}, not its level"
        if not known_scale(claim, first.fact):
            return None, f"a measure whose unit prefix {first.fact.describe()} may not share"
        unknown = self._unknown_unit(claim, claim_unit(claim, binding), first)
        if unknown:
            return None, unknown
        if claim.unit not in RATES and self._a_part_of(claim, binding, first.fact):
            return None, "a part of another entity's or period's total, not its level"
        noun = head_noun(self.ctx.answer, claim)
        own = first.fact.meaning | tokens(" ".join([*first.fact.names, *first.fact.scope]))
        unit = claim_unit(claim, binding)
        alike = self._numeric_families[family(unit)] if among_others else 0
        if (
            noun is not None
            and noun not in own
            and not self._named_beside(claim, binding, noun)
            and (
                any(noun in f.meaning for f in self.facts)
                or (alike > 1 and not binding.meaning & first.fact.own_meaning)
            )
        ):
            return None, f"it counts {noun}s, which {first.fact.describe()} does not"
        if (
            not binding.in_table
            and family(unit) != "rate"
            and not binding.meaning & first.fact.meaning
            and _magnitude_ratio(claim, unit, first) >= _apart(unit)
        ):
            return (
                None,
                f"of another magnitude than {first.fact.describe()}, which it does not name",
            )
        if not binding.in_table and not binding.meaning & first.fact.meaning:
            rivals = {
                f.fact.series
                for f in _contenders(claim, unit, direct)
                if not self._stated_beside(claim, binding, f.fact)
                and not (f.entity == "overall" and self._overall_taken(claim, binding, f))
            }
            unsure = not first.pinned and first.entity != "unnamed"
            if len(rivals) > 1 or (unsure and not binding.context & first.fact.meaning):
                return None, "its words name none of the reference values it could be about"
        if first.entity == "named" and (first.pinned or not first.fact.labels):
            if among_others and claim.per is None and self._stated_for(claim, binding, first.fact):
                # "North averages 4.2 min. … Evening stops in North average 6.0 min."
                return None, "another claim states this value right for the same entity"
            return top, ""
        if first.entity == "unnamed":
            if _is_weak(claim) and alike > 1:
                return None, "a small number in words beside another figure of its kind"
            if alike > 1 and not binding.context & first.fact.meaning:
                return None, "several figures of its kind, and its words name none of them"
            unnamed = [f for f in direct if f.entity == "unnamed"]
            named_by_words = first.score > 0 and len({f.fact.series for f in top}) == 1
            if named_by_words or len(unnamed) == 1:
                if among_others and self._stated_elsewhere(claim, first):
                    return None, "the comparable reference value is stated by another claim"
                return top, ""
            return None, "it names no label or period to pick one of several reference values"
        if first.entity == "row":
            return None, "it names no row of the reference's table"
        return None, "it names a label the only comparable figure is not for"

    def _left_by_its_sentence(self, claim: Claim, binding: Binding, top: list[Fit]) -> list[Fit]:
        """Of several columns of one row the claim may state, the one left when the other
        claims of its sentence state the rest for that row ("$66.10 vs $69 list": the $69 is
        the list price, so $66.10 is the other column's figure, right or wrong) — if the claim
        is of its magnitude, as a wrong figure is near the right one."""
        if len({(id(f.fact.source), f.fact.position) for f in top}) != 1:
            return top
        left = [f for f in top if not self._stated_beside(claim, binding, f.fact)]
        unit = claim_unit(claim, binding)
        if len(left) == 1 and _magnitude_ratio(claim, unit, left[0]) <= 1.5:
            return left
        return top

    def _left_by_the_others(
        self, claim: Claim, binding: Binding, check: _Check, found: list[Fit]
    ) -> list[Fit]:
        """A sentence states each quantity of a row once: of a row's columns, the ones another
        claim of the sentence states in the claim's unit ("22 of 104": the 22 reopened) are not
        what the claim states, unless it states them too. A restatement in another unit ("44.7
        hours (about 2 days)") is the same quantity."""
        unit = claim_unit(claim, binding)
        taken = {
            id(f)
            for f in found
            if not check.level(f.fact) and self._stated_beside(claim, binding, f.fact, unit)
        }
        rows = {(id(f.fact.source), f.fact.position) for f in found if id(f) in taken}
        left = [f for f in found if id(f) not in taken]
        if any((id(f.fact.source), f.fact.position) in rows for f in left):
            return left
        return found

    def _named_beside(self, claim: Claim, binding: Binding, noun: str) -> bool:
        """Does the noun after the claim name a quantity another claim of its sentence states
        for the same row ("30 of 315 denied": the denials are the 30)? Then it is that claim's."""
        return any(
            noun in f.meaning and self._stated_beside(claim, binding, f)
            for f in self.facts
            if not binding.entities or binding.entities & (f.labels or f.scope)
        )

    def _stated_beside(
        self, claim: Claim, binding: Binding, fact: Fact, unit: Unit | None = None
    ) -> bool:
        """Does another claim of its sentence, bound to the fact's row, state its value (in
        ``unit`` when given)?"""
        return any(
            self.bindings[other].sentence == binding.sentence
            and self.bindings[other].entities & (fact.labels or fact.scope)
            and (unit is None or self._units.get(other) == unit)
            for other in self._stating_ids(fact) - {claim.id}
            if other in self.bindings
        )

    def _overall_taken(self, claim: Claim, binding: Binding, fit: Fit) -> bool:
        """Is the overall figure beside a named entity's already stated by another claim, in
        its sentence or anywhere as its value ("Chain average: 4.10" then "- Harbor: 4.25")?
        An answer states the overall figure once; the entity's own is the one left."""
        return self._anchored_beside(claim, binding, fit.fact) or self._stated_elsewhere(claim, fit)

    def _anchored_beside(self, claim: Claim, binding: Binding, fact: Fact) -> bool:
        """Does another claim of its sentence state this fact, right or wrong ("… than the
        network average of 16.1 minutes")? A named entity's figure beside it is not it."""
        start, end = binding.sentence
        return any(
            start <= at < end and at != claim.span[0] for at in self.anchors.get(id(fact), ())
        )

    def _unknown_unit(self, claim: Claim, unit: Unit | None, fit: Fit) -> str:
        """Why a claim with a unit is not held against a value whose unit nothing declares or
        names, if so: a rate against a column of whole numbers (counts, most likely), an amount
        against one of another magnitude ("Severe claims cost $1.9M" beside 49 severe claims)."""
        fact = fit.fact
        kind = family(unit)
        if fact.unit is not None or kind is None:
            return ""
        series = self.deriver.series.get(fact.series, [fact])
        declared = fact.source.unit in RATES or bool(fact.source.column_units)
        if kind == "rate" and not declared and all(f.value.is_integer() for f in series):
            return f"a rate, and {fact.describe()} holds whole numbers of no stated unit"
        if kind in ("money", "duration") and _magnitude_ratio(claim, unit, fit) >= 10:
            return f"of another magnitude than {fact.describe()}, whose unit is not stated"
        return ""

    def _a_part_of(self, claim: Claim, binding: Binding, fact: Fact) -> bool:
        """Is the claim a part of the whole that pins the fact: the fact's row or period named
        only in an "of …" after the number ("handled 2,100 of March's deliveries"), not
        elsewhere in its clause ("Cardiology accounted for 490 of the clinic's visits")?"""
        of = _OF_ANOTHER.match(self.ctx.answer, claim.span[1])
        if of is None:
            return False
        start, end = binding.clause
        outside = [*self.ctx.labels_in(start, of.start()), *self.ctx.labels_in(of.end(), end)]
        inside = self.ctx.labels_in(of.start(), of.end())
        own = fact.labels | fact.scope
        if any(m.key in own for m in outside):
            return False
        if any(m.key in own for m in inside):
            return True
        periods = [m.period for m in self.ctx.periods_in(of.start(), of.end())]
        elsewhere = [
            m.period
            for m in (*self.ctx.periods_in(start, of.start()), *self.ctx.periods_in(of.end(), end))
        ]
        return any(fp.within(p) for fp in fact.periods for p in periods) and not any(
            fp.within(p) for fp in fact.periods for p in elsewhere
        )

    def _stated_for(self, claim: Claim, binding: Binding, fact: Fact) -> bool:
        """Does a claim of another sentence, bound to this fact's entity, state its value? Then
        this claim, outside a table, is about something else of that entity (a subset, another
        period); a restatement in its own sentence ("44.7 hours (about 2 days)") is not."""
        own = fact.labels or fact.scope
        return not binding.in_table and any(
            self.bindings[other].entities & own
            and self.bindings[other].sentence != binding.sentence
            for other in self._stating_ids(fact) - {claim.id}
            if other in self.bindings
        )

    def _stated_elsewhere(self, claim: Claim, fit: Fit) -> bool:
        """Does another claim of the answer state this fact's value? Not one restating the
        claim itself in its unit's family, with the claim near that value ("28.6%, or about 1
        in 4", "about 1.5 hrs — 88.6 minutes"): both say one thing, the looser one right and
        the precise one wrong."""
        near = _magnitude_ratio(claim, claim_unit(claim, self.bindings[claim.id]), fit) <= 1.5
        stating = self._stating_ids(fit.fact) - {claim.id}
        return any(
            not (near and self._restates(claim, other))
            for other in self.claims
            if other.id in stating
        )

    def _restates(self, claim: Claim, other: Claim) -> bool:
        """Is the other claim, of the claim's unit family, next to it in its sentence and
        joined to it as a restatement (", or", " — ", "(") in a looser or another form: hedged,
        as "1 in N", or in another unit ("$1.2M, or $1.15M after refunds" is another amount),
        the later adding no words of its own ("about 1.5 hrs — 95 minutes at weekends")?"""
        if family(other.unit) != family(claim.unit):
            return False
        if not other.hedged and (other.unit, other.per) == (claim.unit, claim.per):
            return False
        around = self._sentence_claims(self.bindings[claim.id])
        i = next((k for k, c in enumerate(around) if c.id == claim.id), -1)
        if i < 0 or other not in around[max(0, i - 1) : i + 2]:
            return False
        first, second = sorted((claim, other), key=lambda c: c.span)
        own = self.bindings[first.id].meaning | _SAME_FIGURE
        return bool(
            _RESTATED.fullmatch(self.ctx.answer, first.span[1], second.span[0])
        ) and says_nothing_after(second, self.ctx, own)

    def _stating_ids(self, fact: Fact) -> set[str]:
        """The claims that state this fact's value, found once per fact."""
        if id(fact) not in self._stating:
            self._stating[id(fact)] = {
                other.id
                for other in self.claims
                if other.value is not None
                and other.kind == "numeric"
                and other.bound is None  # "over 900" bounds the value, it does not state it
                and _Check(other, other.unit, self.rule).level(fact)
            }
        return self._stating[id(fact)]


def _list_places(claims: Sequence[Claim], ctx: AnswerContext) -> dict[str, tuple[object, ...]]:
    """Claim id → (its list's lead-in, its place among its list item's figures) for the numeric
    claims written in list items: the items of one list state their figures in one order."""
    items: dict[tuple[int, int], list[Claim]] = {}
    for claim in sorted(claims, key=lambda c: c.span):
        item = ctx.layout.item_of(claim.span[0])
        if item is not None and claim.kind == "numeric" and claim.value is not None:
            items.setdefault((item.start, item.end), []).append(claim)
    return {
        claim.id: ("item", ctx.layout.lead_in(start), place)
        for (start, _), listed in items.items()
        for place, claim in enumerate(listed)
    }


def _inside_a_name(claim: Claim, ctx: AnswerContext) -> str:
    """The reference label a claim's number is written inside ("Business 360", "6600 Route 66"):
    the extractor cannot know every name, the references do."""
    mention = ctx.label_around(*claim.span)
    if mention is not None and claim.kind in ("numeric", "comparison"):
        return ctx.answer[mention.start : mention.end]
    return ""


_FIGURE_JOINT = re.compile(r"[ \t]*(?:[:(—–][ \t]*|(?:at|with)[ \t]+)")


def _figure_of(
    ranking: Claim, claims: Sequence[Claim], starts: Sequence[int], answer: str
) -> Claim | None:
    """The figure written right after a ranking ("ranks third at $67K", "came second with
    412"): the series it agrees with, else its unit, names the metric the ranking ranks.
    ``starts`` are the (sorted) starts of ``claims``."""
    i = bisect.bisect_left(starts, ranking.span[1])
    if i == len(claims) or not _FIGURE_JOINT.fullmatch(answer, ranking.span[1], starts[i]):
        return None
    return claims[i]


def _ranking_before(ranking: Claim, rankings: Sequence[Claim]) -> Claim | None:
    """The ranking claim ending last before ``ranking`` starts, which "followed by X" counts on
    from; ``rankings`` are the ranking claims of one place (no "top N"), sorted by their ends."""
    i = bisect.bisect_right([c.span[1] for c in rankings], ranking.span[0])
    return rankings[i - 1] if i else None


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
    ctx = AnswerContext(plain(answer), plain(question), label_forms(labels), codes)
    claims, unchecked = contract.claims[:max_claims], contract.claims[max_claims:]
    bindings = bind(claims, ctx)
    verifier = _Verifier(facts, ctx, usable, rule, claims, bindings)
    for claim in claims:
        stated = verifier.anchor(claim, bindings[claim.id]) if facts else None
        if stated is not None:
            verifier.anchors.setdefault(id(stated), []).append(claim.span[0])
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
        elif claim.kind == "ranking" and verifier.for_another_period(bindings[claim.id]):
            why = "a ranking in a period the references are not for"
            verdicts.append(_unverifiable(claim, why, usable))
        elif claim.kind == "ranking":
            blank = _unverifiable(claim, "", usable)
            figure = _figure_of(claim, claims, starts, ctx.answer)
            series = verifier.stated_series.get(figure.id) if figure else None
            previous = _ranking_before(claim, rankings)
            unit = figure.unit if figure else None
            verdicts.append(verify_ranking(claim, ctx, facts, blank, series, previous, unit))
        elif claim.value is None or claim.kind not in ("numeric", "comparison"):
            verdicts.append(_unverifiable(claim, "not a numeric claim", usable))
        else:
            verdicts.append(verifier.numeric(claim, bindings[claim.id]))
    total = len(contract.claims)
    reason = f"not checked: the answer states {total:,} claims, the oracle checks the first "
    reason += f"{max_claims:,}"
    verdicts += [Verdict(claim_id=c.id, verdict="unverifiable", reason=reason) for c in unchecked]
    return verdicts
