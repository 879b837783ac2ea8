"""What kind of figure a number states, read from its own phrase, and the kinds of value it may
be held against. A wrong-looking number is most often right about another kind of figure than
the value it was bound to (a change read as a level, one part of "1 h 43 m", a target, a value
per item, a total over periods), so a claim is accused only when its words read as one kind and
that kind is the held value's. Each cue of a kind lives once, in the tables below."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from eval_pipeline.core.claims.numbers import LIMIT_AFTER
from eval_pipeline.core.measures import EACH_BEFORE
from eval_pipeline.core.models import Claim
from eval_pipeline.core.oracle.claim_words import OF_ANOTHER
from eval_pipeline.core.oracle.derived import (
    BY_MARGIN,
    GAP_CUE,
    RESTATED_CHANGE,
    Derived,
    written_signed,
)
from eval_pipeline.core.oracle.facts import Fact, is_change
from eval_pipeline.core.oracle.units import RATES, family

Kind = Literal[
    "level",
    "change",
    "gap",
    "difference",
    "step",
    "share",
    "part",
    "limit",
    "per_item",
    "total",
    "ratio",
]
""""difference" is a change or a gap, its words not saying which; "step" a signed figure whose
words name no other side ("(+$194K)"): a change a reference names, or a bridge's step."""

_NOT_GRAIN = r"(?!(?i:year|month|week|quarter|day)\b)"
_DURATION_PART = (
    r"\d+(?:\.\d+)?[^\S\n]*(?i:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\b"
)
_SPAN = (
    r"(?:for|over|across|during|in)\s+(?:the|all|those|these)\s+(?:whole\s+|entire\s+|full\s+)?"
    r"(?:quarter|year|period|half|(?:\w+\s+)?(?:days|weeks|months|quarters|years))\b"
)
_HEDGE = r"(?:(?i:about|around|roughly|nearly|almost|some|just|only|approximately)\s+)?"
_LIMIT_WORDS = r"caps?|ceilings?|floors?|limits?|maximums?|minimums?"
"""Nouns of a bound set on a figure, not a figure observed."""
_SIDES = ("above", "below", "over", "under", "beyond", "behind", "short of", "ahead of", "than")
_SIDE_WORDS = "|".join(w.replace(" ", r"\s+") for w in _SIDES)
_ENDS_ON_A_SIDE = "|".join(f"(?<=\\b{w})" for w in _SIDES)
"""A comparison's own text ends on the word of its side ("about $60K above")."""
_OFF_PLAN = re.compile(
    rf"(?:{_ENDS_ON_A_SIDE}|[^\S\n]*(?:[A-Za-z%-]+[^\S\n]+){{0,2}}?(?i:{_SIDE_WORDS}))"
    r"[^\S\n]+(?:(?i:the|its|their|our|your|this|that|full-year|annual)[^\S\n]+)?"
    r"(?i:budget(?:ed)?|targets?|plan(?:ned)?|forecasts?|goals?|quotas?)\b"
)
"""A figure set against a planned value ("$60K above budget", "3 points short of the goal",
"40 more than planned"), not "over the 15-minute mark"."""


@dataclass(frozen=True)
class _Cue:
    """Words of one kind at one side of the number: ``before`` ends where it starts (within
    ``window`` characters of its clause, or its sentence when ``wide``), ``after`` starts
    where it ends; ``clause`` anywhere earlier in its clause."""

    kind: Kind
    side: Literal["before", "after", "clause"]
    pattern: re.Pattern[str]
    window: int = 60
    families: frozenset[str | None] | None = None
    numeric_only: bool = False
    wide: bool = False


_CUES: tuple[_Cue, ...] = (
    _Cue("gap", "before", GAP_CUE, 80, numeric_only=True, wide=True),  # "the gap is 1 day"
    _Cue("gap", "before", BY_MARGIN, 60, numeric_only=True),  # "edges Grand Plaza by £80K"
    _Cue(
        "gap",  # "16 leases short of", "0.2 points ahead", "40 fewer than", "2.5 points deeper
        "after",  # than" (any comparative; not "other than", "rather than")
        re.compile(
            r"[^\S\n]*(?:[A-Za-z%-]+[^\S\n]+){0,2}?(?i:short\s+of|ahead|behind|shy\s+of|"
            r"(?:more|fewer|less|(?!(?:oth|rath|wheth|neith|eith|und|ov|aft|p)er\b)[a-z]{2,}er)"
            r"\s+than)\b"
        ),
        numeric_only=True,
    ),
    _Cue(  # "$8 under the network average", "2.1 points above the chain"; not "over the year",
        # nor a count of things under a bar ("1,719 attempts below the bar")
        "gap",
        "after",
        re.compile(
            r"[^\S\n]*(?:[A-Za-z%-]+[^\S\n]+){0,2}?(?i:under|above|below|beneath)[^\S\n]+"
            r"(?i:the|its|their|our|his|her|that\s+of)\b"
        ),
        families=frozenset({"rate", "money", "duration", "ratio", None}),
        numeric_only=True,
    ),
    _Cue(  # "about half Reno 2's time", "twice the Annex's": a multiple of another's value
        "ratio",
        "after",
        re.compile(
            r"[^\S\n]+(?:the[^\S\n]+)?[A-Z][\w&.-]*(?:[^\S\n]+[A-Z0-9][\w&.-]*){0,3}['’]s\b"
        ),
        numeric_only=True,
    ),
    _Cue(
        "change",  # "- Member growth: 33%": a line headed by a change's name
        "before",
        re.compile(
            r"(?im)^\s*[-*•]?\s*(?:[\w-]+\s+){0,2}(?:growth|change|increase|decrease|difference)"
            r"\s*:\s*[+-]?$"
        ),
    ),
    _Cue(
        "change",  # "grew by about 12%", "an increase of 871"
        "before",
        re.compile(
            r"\b(?i:(?:grew|rose|fell|dropped|declined|increased|decreased|climbed|jumped|"
            r"slipped)(?:\s+by)?|(?:increase|growth|rise|decline|decrease|drop|fall|jump|"
            rf"reduction)\s+of)\s+{_HEDGE}$"
        ),
        numeric_only=True,
    ),
    _Cue(  # another part of one duration written in two units: "1h 43m", "25 hours 5 minutes"
        "part",
        "after",
        re.compile(rf"[^\S\n]*(?:(?i:and)[^\S\n]+)?{_DURATION_PART}"),
        families=frozenset({"duration"}),
    ),
    _Cue(
        "part",
        "before",
        re.compile(rf"\b{_DURATION_PART}[^\S\n]*(?:(?i:and)[^\S\n]+)?$"),
        25,
        frozenset({"duration"}),
    ),
    _Cue("part", "before", re.compile(r"\b(?i:per)[^\S\n]+$"), 10),  # the 10 of "per 10 units"
    _Cue(  # an increment: "tips add roughly $9 an hour", "the patio adds 24 seats"
        "part",
        "before",
        re.compile(rf"\b(?i:adds?|added|adding)\s+(?:(?i:another|an?\s+extra)\s+)?{_HEDGE}$"),
        20,
        numeric_only=True,
    ),
    _Cue("part", "after", OF_ANOTHER, families=frozenset({"rate"})),  # "40% of those no-shows"
    _Cue("share", "after", re.compile(r"\s+(?i:of)\b"), families=frozenset({"rate"})),
    _Cue(  # "fixed inside 48 hours"
        "limit",
        "before",
        re.compile(r"\b(?i:within|inside(?:\s+of)?)\s+$"),
        15,
        frozenset({"duration"}),
    ),
    _Cue(  # "budgeted at", "the target was", "on pace for", "at this pace should finish
        "limit",  # around"; not "over the 15-minute target: Eastside (18.8)"
        "before",
        re.compile(
            r"\b(?i:budget(?:s|ed)?|targets?|forecast(?:s|ed)?|goals?|thresholds?|quotas?|"
            r"allows?|allowed|tolerates?|tolerated|permits?|permitted|requires?|required|"
            r"projected|projections?|on\s+(?:pace|track|course)|expected\s+to|"
            r"at\s+(?:this|that|the\s+current)\s+(?:pace|rate)|run[\s-]rate|"
            r"(?:should|would|could|will|set\s+to|likely\s+to)\s+(?:finish|end|close|reach|"
            r"hit|land|top)|"
            r"assum(?:e|es|ed|ing|ption))\b[^\d:;,()\n]{0,40}$"
        ),
        50,
    ),
    _Cue("gap", "after", _OFF_PLAN),  # "about $60K above budget": a gap, and to a planned
    _Cue("limit", "after", _OFF_PLAN),  # value, so both kinds, which none may accuse
    _Cue(  # "rules cap APRs at 36%", "capped at", "a ceiling of", "limited to", "a minimum of"
        "limit",
        "before",
        re.compile(
            rf"\b(?i:{_LIMIT_WORDS}|caps|capped|capping|limits|limited|limiting)\b"
            rf"[^\d:;()\n]{{0,30}}?\b(?i:at|to|of)\s+{_HEDGE}$"
        ),
        50,
    ),
    _Cue("limit", "after", LIMIT_AFTER),  # "a 36% cap", "the 30% we budgeted"
    _Cue(  # "$3.10 per visit", "28 GB per line", "26.5 tickets per 10 units", "$165 for every
        # tonne"
        "per_item",
        "after",
        re.compile(
            r"\s*(?:(?i:per|each|for\s+(?:every|each))|a|an)\s+(?!(?i:year|month|week|quarter)\b)"
            r"[a-z]+\b"
            rf"|[^\S\n]*(?:[A-Za-z]+[^\S\n]+){{0,2}}(?i:per)[^\S\n]+(?:\d+[^\S\n]+)?{_NOT_GRAIN}"
            r"[a-z]+\b"
        ),
    ),
    _Cue(  # "$40/MWh", "$3.10/visit"; not "4 kWh/day", a figure over a period
        "per_item",
        "after",
        re.compile(rf"[^\S\n]*/[^\S\n]*{_NOT_GRAIN}(?:[A-Za-z]+|m²|m³)(?![\w/])"),
    ),
    _Cue("per_item", "before", EACH_BEFORE, 30),  # "and each produced about 5,856 MWh"
    _Cue(  # "under 40 lines an hour": a rate per unit of time, whatever the noun between
        "per_item",
        "after",
        re.compile(
            r"[^\S\n]*(?:[A-Za-z]+[^\S\n]+){0,2}(?i:a|an|per|each)[^\S\n]+"
            r"(?i:hour|minute|second|shift)\b"
        ),
    ),
    _Cue(  # "mostly one $2.1K credit": the amount of a single item, a part of any total
        "part",
        "before",
        re.compile(r"\b(?i:one|a\s+single|a\s+lone)[^\S\n]+$"),
        15,
        frozenset({"money"}),
    ),
    _Cue("difference", "before", RESTATED_CHANGE, 60),  # "a fall of about 3.5%, or roughly $13"
    _Cue(  # "The longest single film was Dune at 166 minutes": one item, no level of them all
        "part",
        "before",
        re.compile(
            r"\b(?i:the)\s+(?:[a-z]+est|most\s+[a-z]+)\s+(?i:single|individual)\b[^\d\n]{0,60}$"
        ),
        90,
    ),
    _Cue(  # "per claim, $16.8K"; not "a low of 34" nor "Site A"
        "per_item",
        "before",
        re.compile(rf"\b(?:(?i:per)|a)\s+{_NOT_GRAIN}[a-z]+\s+(?:(?!(?i:of)\b)\w+\s+)?$"),
        30,
    ),
    _Cue("per_item", "clause", re.compile(rf"\b(?i:per)[^\S\n]+{_NOT_GRAIN}[a-z]+\b")),
    _Cue(  # "828 hours for the quarter", "4.2 hours in total", "(560 across the two)", "348.4k
        # litres pumped from July through September"
        "total",
        "after",
        re.compile(
            r"[^\S\n]*(?:[a-z]+[^\S\n]+)?(?i:in\s+total|altogether|all\s+told|cumulatively|"
            r"combined|between\s+them|(?:across|between|for)\s+(?:the|those|these)\s+"
            r"(?:two|three|four|five)\b|(?:[a-z]+[^\S\n]+){0,2}?from[^\S\n]+[A-Z]\w+[^\S\n]+"
            r"(?:through|to|until|till)[^\S\n]+[A-Z]\w+|" + _SPAN + ")"
        ),
    ),
    _Cue("total", "clause", re.compile(f"(?i:{_SPAN})")),  # "Across the nine weeks, … 192"
)
_PER_HEADER = re.compile(rf"\b(?i:per)\s+{_NOT_GRAIN}[A-Za-z]+|\S\s*/\s*{_NOT_GRAIN}[A-Za-z]+")
"""A column header of values per item: "Runs per truck", "$/t"; not "Orders per month"."""
_ON_AVERAGE = re.compile(r"\s*(?i:on\s+average)\b")
"""After a duration bounded by "within", what makes it a level after all."""
_REMAINDER = re.compile(
    r"\b(?i:un\w+(?:ed|paid)|outstanding|remaining|remainder|balance|left\s+over|leftover)\b"
)
"""A remainder of a whole ("uncollected", "outstanding"): a part of it, not a level."""
_COMPARED_CHANGE = re.compile(
    r"\b(?i:grew|growth|rose|fell|increased?|decreased?|declined?|dropped|jumped|climbed|since|"
    r"year[- ]over[- ]year|yoy|on\s+(?:last|the\s+previous|a\s+year))\b"
)
_COMPARED_GAP = re.compile(r"\b(?i:ahead|behind|apart|gap|short\s+of|shy\s+of)\b")
_OTHER_SIDE = re.compile(
    rf"{_COMPARED_CHANGE.pattern}|{_COMPARED_GAP.pattern}|Δ|"
    r"\b(?i:vs\.?|versus|than|change|delta|diff\w*|variance|compared|against|from)\b"
)
"""Words by which a signed figure names what it differs from: "vs chain", "than June"."""
_RELATIONS: frozenset[Kind] = frozenset({"change", "gap", "difference", "step", "share", "ratio"})
"""Kinds that relate the figure to another value, as against kinds of level."""
_PER_NAME = re.compile(r"(?i)per|avg|average|mean")
_PLANNED_NAME = re.compile(
    r"(?i)budget|target|forecast|goal|threshold|quota|project|assum"
    rf"|(?:^|_|\b)(?:{_LIMIT_WORDS}|max|min)(?:_|\b|$)"
)


@dataclass(frozen=True)
class Reading:
    """The kind a claim's words give its figure, and the words that say so; ``kinds`` holds
    more than one when its words say several, and then no value may accuse it."""

    kinds: frozenset[Kind]
    cue: str = ""

    def fits(self, held: frozenset[Kind]) -> bool:
        """Is the reading one kind, and the held value's?"""
        if len(self.kinds) != 1:
            return False
        kind = next(iter(self.kinds))
        return bool(held & {"change", "gap"}) if kind == "difference" else kind in held

    def refusal(self, held: frozenset[Kind]) -> str:
        """Why the claim is not accused by a value of the ``held`` kinds."""
        said, of = " or ".join(sorted(self.kinds)), "/".join(sorted(held))
        cue = f" ({self.cue.strip()!r})" if self.cue.strip() else ""
        return f"its words read as a {said}{cue}; the value it differs from is a {of}"


def read(
    text: str,
    claim: Claim,
    clause: tuple[int, int],
    sentence: tuple[int, int],
    in_name: Callable[[int, int], bool],
    header: str = "",
) -> Reading:
    """The kind of figure the claim's phrase states: its fields (a comparison, "1 in 8", a
    sign) and the cue words before and after its number inside its clause; a level when no
    cue says otherwise. ``in_name`` tells a word written inside a name ("Unlimited 5G")."""
    start, end = claim.span
    fam = family(claim.unit)
    own: dict[Kind, str] = {}
    phrase = text[max(clause[0], start - 40) : min(clause[1], end + 40)]
    if claim.kind == "comparison" and claim.unit != "ratio":  # "4.1 times less": a ratio
        change, gap = _COMPARED_CHANGE.search(phrase), _COMPARED_GAP.search(phrase)
        if gap and not change:
            own["gap"] = gap.group()
        elif change and not gap:
            own["change"] = change.group()
        else:
            own["difference"] = claim.text
    elif written_signed(claim):
        side = _OTHER_SIDE.search(phrase) or _OTHER_SIDE.search(header)
        own["difference" if side else "step"] = side.group() if side else claim.text[:1]
    if claim.per is not None:
        own["share"] = claim.text
    if claim.unit == "ratio":
        own["ratio"] = claim.text
    found: dict[Kind, str] = {}
    for cue in _CUES:
        if (cue.numeric_only and claim.kind != "numeric") or (
            cue.families is not None and fam not in cue.families
        ):
            continue
        if cue.side == "after":
            m = cue.pattern.match(text, end, clause[1])
        else:
            low = (sentence if cue.wide else clause)[0]
            low = low if cue.side == "clause" else max(low, start - cue.window)
            m = cue.pattern.search(text, low, start)
        if m and not (cue.families and cue.kind == "limit" and _ON_AVERAGE.match(text, end)):
            found.setdefault(cue.kind, m.group())
    per = _PER_HEADER.search(header)
    if per:  # "| Runs per truck |", "| $/t |": every cell of the column is per item
        found.setdefault("per_item", per.group())
    for m in _REMAINDER.finditer(text, max(clause[0], start - 50), start):
        if not in_name(*m.span()):
            found.setdefault("part", m.group())
    return _resolved(own, found)


def _resolved(own: dict[Kind, str], found: dict[Kind, str]) -> Reading:
    """One reading from the kinds its fields (``own``) and its words (``found``) give. A
    relation (a change, gap, share, ratio) its fields give outweighs one its words give, and
    words of a change and of a gap together say a difference; a value per item or over
    periods beside a relation says what it relates ("7.7% below … per seat"), not another
    kind; a part or a limit beside anything leaves the kind in doubt."""
    words = {k: v for k, v in found.items() if k in _RELATIONS}
    if own:
        words = {}
    elif {"change", "gap"} <= set(words):
        words = {"difference": " / ".join(words.values())}
    relation = own or words
    said = {**relation, **{k: v for k, v in found.items() if k not in _RELATIONS}}
    if relation:
        said = {k: v for k, v in said.items() if k not in ("per_item", "total")}
    if not said:
        return Reading(frozenset({"level"}))
    return Reading(frozenset(said), " / ".join(said.values()))


def fact_kinds(fact: Fact, *, rows: int, balance: bool) -> frozenset[Kind]:
    """The kinds of figure a fact may be stated as: a level; a change too when it is named one
    or is a net balance; a share when it is a rate (or of no stated unit); a value per item when
    its name says so; a total when it is a lone figure, not one row of a series; a limit when
    its name says it was set in advance or bounds a figure (a cap, a maximum); a ratio when it is
    one."""
    kinds: set[Kind] = {"level"}
    if is_change(fact) or balance:
        kinds |= {"change", "step"}
    if fact.unit in RATES or (fact.unit is None and abs(fact.value) <= 1):
        kinds.add("share")
    per = _PER_NAME.search(f"{fact.describe()} {fact.quantity_name}")
    if per:
        kinds.add("per_item")
    if rows <= 1 and not per:
        kinds.add("total")
    if _PLANNED_NAME.search(fact.quantity_name):
        kinds.add("limit")
    if fact.unit in ("ratio", "number", None):
        kinds.add("ratio")
    return frozenset(kinds)


def derived_kinds(found: Derived) -> frozenset[Kind]:
    """The kinds of figure a derived value may be stated as: a difference between two periods
    of one row is a change, between two rows a gap; a share is a percent's level too; a sum is
    the level of what it adds up."""
    if found.how in ("difference", "relative change"):
        a, b = found.facts[0], found.facts[-1]
        if (a.labels or a.scope) == (b.labels or b.scope) and a.periods != b.periods:
            return frozenset({"change"})
        return frozenset({"gap"}) if a.periods == b.periods else frozenset({"change", "gap"})
    if found.how.startswith("share"):
        return frozenset({"share", "level"})
    by_how: dict[str, frozenset[Kind]] = {
        "total": frozenset({"total", "level"}),
        "sum": frozenset({"total", "level"}),
        "mean": frozenset({"per_item", "level"}),
        "spread": frozenset({"gap"}),
        "ratio": frozenset({"ratio"}),
    }
    return by_how.get(found.how, frozenset({"level"}))
