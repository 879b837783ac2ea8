"""The level a wrong claim is held against: the facts it is about when a named entity or
period pins them, or the case has one comparable figure no other claim states; else why the
claim cannot be held against any (a gap, a median, a budget, a share of another's quantity)."""

from __future__ import annotations

import math
import re

from eval_pipeline.core.claims.layout import search_before
from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.binding import Binding, says_nothing_after
from eval_pipeline.core.oracle.candidates import Fit, best, claim_unit, known_scale
from eval_pipeline.core.oracle.claim_words import (
    NOT_NOUNS,
    OF_ANOTHER,
    OF_WHOLE,
    RESTATED,
    head_noun,
)
from eval_pipeline.core.oracle.facts import Fact, metric_words, stem, tokens
from eval_pipeline.core.oracle.fit_choice import contenders, magnitude_ratio, of_its_magnitude
from eval_pipeline.core.oracle.units import RATES, family
from eval_pipeline.core.oracle.verify_state import VerifyState

_ELSEWHERE = re.compile(
    r"\b(?i:industry|industry-wide|market-wide|benchmarks?|national(?:ly)?|typical(?:ly)?|"
    r"usually|normally|peers?|competitors?|elsewhere)\b"
)
_OPEN_RANGE = re.compile(
    r"(?i)\b(?:19|20)\d\d\s+(?:or|and)\s+(?:later|after|earlier|before)\b|"
    r"\b(?:19|20)\d\d\s+onwards?\b|\bfrom\s+(?:19|20)\d\d\s+on\b|"
    r"\b(?:before|after|prior\s+to)\s+(?:19|20)\d\d\b"
)
"""A year that opens or closes a range ("joined in 2020 or later", "before 2019"): the figure
is of every period on that side, not of the year named."""
_OUT_OF = re.compile(r"\s+(?i:out\s+of)\s+\d")
_OUT_OF_BEFORE = re.compile(r"\b(?i:out\s+of)\s+(?:(?i:the|all|our|some)\s+)?$")
"""What opens the whole of an "X out of Y" at the whole: "47 runs …, out of roughly 2,000"."""
_ARTICLE_BEFORE = re.compile(r"\b(?i:a|an)\s+$")
_WORD_AFTER = re.compile(r"\s*([a-z][a-z-]+)")
_CALENDAR = re.compile(r"(?i)\b(?:working|business|calendar|school|trading)\s+(?:days?|weeks?)\b")
"""Days counted on a calendar ("22 working days"): a count of days a period holds, no time an
activity took, unless its words name the quantity."""
_STATISTIC_WORDS = r"median|maximum|minimum|percentile|p\d{2}|mode"
_STATISTIC = re.compile(rf"\b(?i:{_STATISTIC_WORDS})\b")
_SAME_FIGURE = tokens("average overall mean")
"""Words a restatement may end on without naming another quantity ("88.6 minutes on average")."""
_UNIT_WORDS = tokens("minutes mins hours hrs days usd dollars pct percent percentage count cnt")
"""Words of a column's name that say its unit, not its quantity ("avg_wait_minutes")."""
_ROW_JOINT = re.compile(r"[ \t][—–][ \t]|:[ \t]")
"""What ends the head of a row written in prose or a list item: "Nitrile gloves — 66.6 days"."""
_ROW_BREAK = re.compile(r"[;\n]|[ \t][—–][ \t]|:[ \t]")
"""What ends a row or its head within a line: "…; Nitrile gloves — 66.6 days"."""
_CLAUSE_OPENING = re.compile(r"[;:,(]|[ \t][—–][ \t]")
_SUBJECT = re.compile(
    r"\s*(?:(?i:the|and|but|while|whereas)\s+)*(?!(?i:the|its|their|our|this|that|these|those)\b)"
    r"(?P<name>[A-Z][\w&'’.-]*(?:[ \t]+(?:[A-Z][\w&'’.-]*|&|\d+))+)(?:[ \t]+[a-z][\w-]*){1,3}[ \t]+"
)
"""A clause opening on a name of capitalised words, then a verb (and a hedge) before its
figure: "while Copper Elbow Kit had about 55 days"; no article or pronoun starts a name."""
_OWNER = re.compile(r"\b(?P<name>[A-Z][\w&.-]*(?:[ \t]+[A-Z0-9][\w&.-]*){0,3})['’]s[ \t]+$")
"""A name owning the figure right after it: "than Parkside's 818.73 t"."""
_RELATIVE = re.compile(
    r"(?P<name>[A-Z][\w&'’.-]*(?:[ \t]+(?:[A-Z][\w&'’.-]*|&|\d+))+),?[ \t]+"
    r"(?i:where|whose|which|who|at\s+which)(?:[ \t]+[a-z][\w-]*){1,3}[ \t]+$"
)
"""A name, then a relative clause about it up to a figure: "the Grand Palace Theatre, where
tickets averaged …"."""
_MAX_NAME_WORDS = 6
_MARKUP = re.compile(r"^[\s\-*•#>]*(?:\d{1,2}[.)]\s+)?[*_`]*|[*_`\s]+$")
_NOT_AN_ENTITY = tokens(
    "overall average mean median combined both network company group chain portfolio target "
    "goal budget plan forecast result answer summary current now today latest net gross "
    "figure level status policy minimum maximum everything everyone peak trough high low "
    "best worst"
)
"""Head words of a row that name a figure or a whole, not an entity: "Overall — 51.5 days"."""


_ADDED_UP = re.compile(
    r"\b(?i:together|combined|between\s+them|all\s+told|altogether)(?:\s+[a-z]+){0,3}\s+$"
)
"""Words of a figure several rows or periods add up to: "August through November together"."""


def _of_its_magnitude_first(
    claim: Claim, binding: Binding, direct: list[Fit], top: list[Fit]
) -> list[Fit]:
    """Of facts its entity and words fit equally well, the one of the claim's magnitude before
    the one its sentence's other words lean to ("threw away $6.4K of product, 0.71% of its
    $1.01M in sales": the waste, not the sales the sentence also names)."""
    if len(top) != 1:
        return top
    first = top[0]
    alike = [
        f
        for f in direct
        if (f.entity, f.pinned, f.score) == (first.entity, first.pinned, first.score)
    ]
    near = of_its_magnitude(claim, claim_unit(claim, binding), alike)
    return near if len(near) < len(alike) else top


def _added_up(state: VerifyState, claim: Claim, binding: Binding) -> bool:
    """Do the words just before the claim say it adds several rows or periods up ("together
    brought in about 10,100 t"; not "combined (DC 1 at 2.6 …)", which is another figure's)?"""
    return bool(_ADDED_UP.search(state.ctx.answer[binding.clause[0] : claim.span[0]]))


def target_of(
    state: VerifyState, claim: Claim, binding: Binding, direct: list[Fit], *, among_others: bool
) -> tuple[list[Fit] | None, str]:
    """The facts a wrong claim is about, when pinned — a named entity or period picks them,
    or the case has one comparable figure that no other claim states — else why not."""
    if not direct:
        return None, "no reference value of its unit fits the entity and period it names"
    top = _of_its_magnitude_first(claim, binding, direct, best(direct))
    values = {round(f.fact.value, 9) for f in top}
    whose = {frozenset(binding.entities & (f.fact.labels or f.fact.scope)) for f in top}
    apart = len(frozenset().union(*whose)) == sum(map(len, whose))  # "North and South"
    if len(values) > 1 and len(whose) > 1 and apart and all(whose):
        return None, "a figure for several named entities together, which no value is"
    if len(values) != 1:
        top = of_its_magnitude(claim, claim_unit(claim, binding), top)
        top = _of_its_statistic(binding, top)
        top = _left_by_its_sentence(state, claim, binding, top)
        values = {round(f.fact.value, 9) for f in top}
    if len(values) != 1:
        shown = ", ".join(f.describe() for f in top[:4])
        return None, f"several reference values could be the one it states: {shown}"
    first = top[0]
    if (first.fact.labels or first.fact.row_period) and _added_up(state, claim, binding):
        return None, "a figure for several rows or periods added up, which no one value is"
    base = _compared_base(state, claim, binding)
    if base:
        return None, f"the figure of {base!r}, which its sentence compares with, in brackets"
    other = _row_of_another(state, claim, binding, first.fact)
    if other:
        return None, f"stated for {other!r}, which the references do not hold"
    if not known_scale(claim, first.fact):
        return None, f"a measure whose unit prefix {first.fact.describe()} may not share"
    unknown = _unknown_unit(state, claim, claim_unit(claim, binding), first)
    if unknown:
        return None, unknown
    if _whole_of_its_part(state, claim, binding, first.fact):
        return None, f"the whole of a part that is about {first.fact.describe()}"
    if claim.unit not in RATES and _a_part_of(state, claim, binding, first.fact):
        return None, "a part of another entity's or period's total, not its level"
    if among_others and _restated_unnamed(state, claim, binding, first.fact):
        return None, (
            f"another sentence states {first.fact.describe()}, and its words do not name it"
        )
    noun = head_noun(state.ctx.answer, claim)
    own = first.fact.words
    unit = claim_unit(claim, binding)
    alike = state.numeric_families[family(unit)] if among_others else 0
    if (
        noun is not None
        and noun not in own
        and not _named_beside(state, claim, binding, noun)
        and (
            any(noun in f.meaning for f in state.facts)
            or (alike > 1 and not binding.meaning & first.fact.own_meaning)
        )
    ):
        return None, f"it counts {noun}s, which {first.fact.describe()} does not"
    qualifier = _qualifier(state, claim, noun, first.fact)
    if qualifier:
        return None, f"it counts {qualifier}, a part {first.fact.describe()} does not name"
    calendar = _CALENDAR.search(claim.text)
    if calendar and not binding.meaning & first.fact.meaning:
        return (
            None,
            f"it counts {calendar.group()}, and its words do not name {first.fact.describe()}",
        )
    if (
        not binding.in_table
        and family(unit) != "rate"
        and not binding.meaning & first.fact.meaning
        and magnitude_ratio(claim, unit, first) >= _apart(unit)
    ):
        return (
            None,
            f"of another magnitude than {first.fact.describe()}, which it does not name",
        )
    if not binding.in_table and not binding.meaning & first.fact.meaning:
        rivals = {
            f.fact.series
            for f in contenders(claim, unit, direct)
            if not state.stated_beside(claim, binding, f.fact)
            and not (f.entity == "overall" and _overall_taken(state, claim, binding, f))
        }
        unsure = not first.pinned and first.entity != "unnamed"
        if len(rivals) > 1 or (unsure and not binding.context & first.fact.meaning):
            return None, "its words name none of the reference values it could be about"
    if first.entity == "named" and (first.pinned or not first.fact.labels):
        if among_others and claim.per is None and _stated_for(state, claim, binding, first.fact):
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
            if among_others and _stated_elsewhere(state, claim, first):
                return None, "the comparable reference value is stated by another claim"
            return top, ""
        return None, "it names no label or period to pick one of several reference values"
    if first.entity == "row":
        return None, "it names no row of the reference's table"
    return None, "it names a label the only comparable figure is not for"


_QUALIFIED = re.compile(r"[^\S\n]+[a-z][\w-]*[^\S\n]+([a-z][\w-]*)")
"""A count's first two words: a modifier, then the noun it counts ("2 private events")."""
_NOT_QUALIFIERS = tokens(
    "more fewer additional extra other another separate distinct unique individual further "
    "different whole full entire such actual recorded reported"
)
"""Words before a counted noun that add to or restate the count, naming no part of it."""


def _qualifier(state: VerifyState, claim: Claim, noun: str | None, fact: Fact) -> str:
    """The words of a count whose first word qualifies the noun the fact counts by a word
    that neither the facts, their query nor the question have ("2 private events" beside a
    venue's events): it counts a part of what the fact counts, not all of it. Else "". A
    participle ("51 completed visits", "454 scheduled appointments") most often says what
    happened to each thing counted, which is how the count is defined, not a part of it."""
    own = fact.words
    if noun is None or noun in own or noun in state.fact_words | _NOT_QUALIFIERS:
        return ""
    found = _QUALIFIED.match(state.ctx.answer, claim.span[1])
    if found is None or not tokens(found.group(1)) & own:
        return ""
    modifier = found.group().split()[0].lower()
    query = tokens(fact.source.reference.sql or "")
    if modifier.endswith("ed") or noun in query | state.ctx.question_words:
        return ""
    return found.group().strip()


_COMPARED_WITH = re.compile(
    r"\b(?i:above|below|beneath|than|versus|vs\.?|against|compared\s+(?:with|to)|relative\s+to)"
    r"[ \t]+(?P<base>(?:[\w'’-]+[ \t]+){0,3}[\w'’-]+)[ \t]*\([^()]*$"
)
"""The other side of a comparison, then a bracket open up to a figure: "above list ($350"."""
_SIDES_IN_BRACKET = re.compile(r"\b(?i:vs\.?|versus|against|compared|than)\b")


def _compared_base(state: VerifyState, claim: Claim, binding: Binding) -> str:
    """The words of what the claim's sentence compares with, when the claim is in the brackets
    right after them and they name no label or period: "Averages sit above list ($350 for a
    hot desk)" gives the list price, the base, not the average of the row the bracket names
    ("ahead of Honda (246)" is Honda's, and checked as such). A bracket holding both sides
    ("above plan (412 against 380)") states the subject's figure too. Else ""."""
    text = state.ctx.answer
    found = _COMPARED_WITH.search(text, binding.sentence[0], claim.span[0])
    if found is None:
        return ""
    close = text.find(")", claim.span[1], binding.sentence[1])
    inside = text[found.end() : close if close >= 0 else binding.sentence[1]]
    if _SIDES_IN_BRACKET.search(text, found.start("base"), found.end()) or _SIDES_IN_BRACKET.search(
        inside
    ):
        return ""
    start, end = found.span("base")
    if state.ctx.labels_in(start, end) or state.ctx.periods_in(start, end):
        return ""
    return found.group("base")


def _row_of_another(state: VerifyState, claim: Claim, binding: Binding, fact: Fact) -> str:
    """The entity a claim outside a table is stated for by the head of its row ("As of
    today: 3/4 in ball valve — 51.5 days; Nitrile gloves — 66.6 days") or by the name its
    clause opens on ("Nitrile Gloves Box 100 had 66.6 days") or the name owning it ("than
    Parkside's 818.73 t", beside a labelled fact), when that names no label of
    the references, no period and no word of the facts or the question — an entity they do
    not hold — while the fact's own entity is named elsewhere in the answer: the figure is
    that other entity's, not the fact's. Else "". A head that names a figure ("Median —
    51.5 days", "Overall: …", "Q3 — …") is no entity. When the references hold only the
    case's own figures, such a name in running prose (its clause's subject, or what a
    relative clause is about: "the Grand Palace Theatre, where tickets averaged $100") is a
    part of the case, and the case's figure is not its."""
    own = fact.labels | fact.scope
    whole = not any(f.labels or f.scope for f in state.facts)  # the case's own figures only
    if binding.in_table or not (own or whole):
        return ""
    ctx = state.ctx
    if own:
        span = _row_head(ctx.answer, claim, binding, ctx.layout.line_of(claim.span[0])[0])
    else:  # a head of the case's own figures ("Key findings: …") names no entity of it
        span = _place_of(ctx.answer, claim, binding)
    span = span or _clause_subject(ctx.answer, claim, binding)
    if span is None and own:
        owner = search_before(_OWNER, ctx.answer, claim.span[0], 60)
        span = owner.span("name") if owner else None
    start, end = span or (0, 0)
    head = _MARKUP.sub("", ctx.answer[start:end])
    words = tokens(head)
    if (
        not head[:1].isupper()
        or not words
        or len(head.split()) > _MAX_NAME_WORDS
        or ctx.labels_in(start, binding.clause[1])
        or ctx.periods_in(start, claim.span[0])  # "Trough: July, $52.1K" names its own
        or words & (_NOT_AN_ENTITY | ctx.question_words | state.fact_words)
        or not (
            whole
            or any(m.key in own and not start <= m.start < binding.clause[1] for m in ctx.labels)
        )
    ):
        return ""
    inside = [c for c in state.sentence_claims(binding) if start <= c.span[0] < end]
    return "" if any(c.unit != "count" or c.hedged for c in inside) else head  # "box 100"


def _row_head(text: str, claim: Claim, binding: Binding, line: int) -> tuple[int, int] | None:
    """The head of the row the claim is written in: the words before the last dash or colon
    before it in its line and sentence, since the break before them."""
    start = max(binding.sentence[0], line)
    breaks = list(_ROW_BREAK.finditer(text, start, claim.span[0]))
    if not breaks or not _ROW_JOINT.fullmatch(breaks[-1].group()):
        return None
    return (breaks[-2].end() if len(breaks) > 1 else start), breaks[-1].start()


def _clause_subject(text: str, claim: Claim, binding: Binding) -> tuple[int, int] | None:
    """A name of two or more capitalised words that the claim's clause opens on, with only a
    verb (and a hedge) between it and the claim ("…, while Nitrile Gloves had 66.6 days")."""
    start = max(binding.sentence[0], text.rfind("\n", 0, claim.span[0]) + 1)
    opening = max(
        (m.end() for m in _CLAUSE_OPENING.finditer(text, start, claim.span[0])), default=start
    )
    found = _SUBJECT.fullmatch(text, opening, claim.span[0])
    return found.span("name") if found else None


def _place_of(text: str, claim: Claim, binding: Binding) -> tuple[int, int] | None:
    """A name of two or more capitalised words that the claim's relative clause is about, with
    only its verb (and a hedge) between ("…came from the Grand Palace Theatre, where tickets
    averaged close to $100")."""
    start = max(binding.sentence[0], text.rfind("\n", 0, claim.span[0]) + 1)
    found = _RELATIVE.search(text, start, claim.span[0])
    return found.span("name") if found else None


def _is_weak(claim: Claim) -> bool:
    """A small number in words ("three teams") is rarely the figure asked for."""
    return (
        claim.value is not None
        and abs(claim.value) <= 10
        and not any(ch.isdigit() for ch in claim.text)
        and claim.per is None
    )


def _apart(unit: Unit | None) -> float:
    """How many times off the one value a claim names none of it must be to be about another
    quantity: ten, or three for a duration (the stages of one process — waiting, handling,
    resolving — last several times apart, and a wrong figure is near the right one)."""
    return 3.0 if family(unit) == "duration" else 10.0


def _left_by_its_sentence(
    state: VerifyState, claim: Claim, binding: Binding, top: list[Fit]
) -> list[Fit]:
    """Of several columns of one row the claim may state, the one left when the other
    claims of its sentence state the rest for that row ("$66.10 vs $69 list": the $69 is
    the list price, so $66.10 is the other column's figure, right or wrong) — if the claim
    is of its magnitude, as a wrong figure is near the right one."""
    if len({(id(f.fact.source), f.fact.position) for f in top}) != 1:
        return top
    left = [f for f in top if not state.stated_beside(claim, binding, f.fact)]
    unit = claim_unit(claim, binding)
    if len(left) == 1 and magnitude_ratio(claim, unit, left[0]) <= 1.5:
        return left
    return top


_STATISTIC_NAME = re.compile(rf"(?i)(?:^|_|\b)(max|min|{_STATISTIC_WORDS})(?:_|\b|$)")


def _of_its_statistic(binding: Binding, top: list[Fit]) -> list[Fit]:
    """Of several columns the claim may state, those whose name says no other statistic than
    its words do: "16.1" under "Avg (h)" beside average and median hours is the average, a
    median or a maximum being named when it is meant."""
    said = {stem(w) for w in binding.meaning}

    def other(fit: Fit) -> bool:
        found = _STATISTIC_NAME.findall(fit.fact.quantity_name)
        return any(stem(w.lower()) not in said for w in found)

    plain = [f for f in top if not other(f)]
    return plain if plain and len(plain) < len(top) else top


def _named_beside(state: VerifyState, claim: Claim, binding: Binding, noun: str) -> bool:
    """Does the noun after the claim name a quantity another claim of its sentence states
    for the same row ("30 of 315 denied": the denials are the 30)? Then it is that claim's."""
    return any(
        noun in f.meaning and state.stated_beside(claim, binding, f)
        for f in state.facts
        if not binding.entities or binding.entities & (f.labels or f.scope)
    )


def _overall_taken(state: VerifyState, claim: Claim, binding: Binding, fit: Fit) -> bool:
    """Is the overall figure beside a named entity's already stated by another claim, in
    its sentence or anywhere as its value ("Chain average: 4.10" then "- Harbor: 4.25")?
    An answer states the overall figure once; the entity's own is the one left."""
    return _anchored_beside(state, claim, binding, fit.fact) or _stated_elsewhere(state, claim, fit)


def _anchored_beside(state: VerifyState, claim: Claim, binding: Binding, fact: Fact) -> bool:
    """Does another claim of its sentence state this fact, right or wrong ("… than the
    network average of 16.1 minutes")? A named entity's figure beside it is not it."""
    start, end = binding.sentence
    return any(start <= at < end and at != claim.span[0] for at in state.anchors.get(id(fact), ()))


def _unknown_unit(state: VerifyState, claim: Claim, unit: Unit | None, fit: Fit) -> str:
    """Why a claim with a unit is not held against a value whose unit nothing declares or
    names, if so: a rate against a column of whole numbers (counts, most likely), an amount
    against one of another magnitude ("Severe claims cost $1.9M" beside 49 severe claims)."""
    fact = fit.fact
    kind = family(unit)
    if fact.unit is not None or kind is None:
        return ""
    series = state.deriver.series.get(fact.series, [fact])
    declared = fact.source.unit in RATES or bool(fact.source.column_units)
    if kind == "rate" and not declared and all(f.value.is_integer() for f in series):
        return f"a rate, and {fact.describe()} holds whole numbers of no stated unit"
    if kind in ("money", "duration") and magnitude_ratio(claim, unit, fit) >= 10:
        return f"of another magnitude than {fact.describe()}, whose unit is not stated"
    return ""


def _restated_unnamed(state: VerifyState, claim: Claim, binding: Binding, fact: Fact) -> bool:
    """Does a claim of another sentence state the fact (right or wrong) by words that name
    its quantity, while this one, outside a table, names none of them? An answer states a
    figure once, so a second figure of that entity in its unit, unnamed, is of something
    else ("Commission is 15% on X" after X's late share in the table's "Late" column). Not
    an item of a list whose other items state that column: the list's lead-in names it."""
    own = metric_words(fact.own_meaning) - _UNIT_WORDS
    if binding.in_table or not own or own & binding.context:
        return False
    place = state.places.get(claim.id)
    if place is not None and state.stated_at(place)[fact.series] >= 2:
        return False
    start, end = binding.sentence
    at = {p for p in state.anchors.get(id(fact), ()) if not start <= p < end}
    return any(
        other.span[0] in at and own & state.bindings[other.id].context
        for other in state.claims
        if other.id in state.bindings
    )


_OF_THE_TOTAL = re.compile(
    r"\s+(?i:of)\s+(?i:the|our|its|their)\s+(?:[\w-]+\s+){0,2}?(?i:total|overall|whole)\b"
)
"""After a part of a total the claim names as such: "772 of the 2024 total"."""


def _a_part_of(state: VerifyState, claim: Claim, binding: Binding, fact: Fact) -> bool:
    """Is the claim a part of the whole that pins the fact: a total named after it ("772 of the
    2024 total"), or the fact's row or period named only in an "of …" after the number
    ("handled 2,100 of March's deliveries"), not elsewhere in its clause ("Cardiology
    accounted for 490 of the clinic's visits")?"""
    if _OF_THE_TOTAL.match(state.ctx.answer, claim.span[1]):
        return True  # "Transient bookings made up 772 of the 2024 total"
    of = OF_ANOTHER.match(state.ctx.answer, claim.span[1])
    if of is None:
        return False
    start, end = binding.clause
    outside = [*state.ctx.labels_in(start, of.start()), *state.ctx.labels_in(of.end(), end)]
    inside = state.ctx.labels_in(of.start(), of.end())
    own = fact.labels | fact.scope
    if any(m.key in own for m in outside):
        return False
    if any(m.key in own for m in inside):
        return True
    periods = [m.period for m in state.ctx.periods_in(of.start(), of.end())]
    elsewhere = [
        m.period
        for m in (*state.ctx.periods_in(start, of.start()), *state.ctx.periods_in(of.end(), end))
    ]
    return any(fp.within(p) for fp in fact.periods for p in periods) and not any(
        fp.within(p) for fp in fact.periods for p in elsewhere
    )


def _whole_of_its_part(state: VerifyState, claim: Claim, binding: Binding, fact: Fact) -> bool:
    """Is the claim the whole of an "X of Y" whose part states the fact ("17 of 93 loads ran
    late" beside 17 late loads), or of an "X … out of Y" whose part lies nearer the fact's
    value than it ("47 runs ran over, out of roughly 2,000" beside 42 runs over)? A part and
    its whole are never one quantity."""
    before = [c for c in state.sentence_claims(binding) if c.span[1] <= claim.span[0]]
    if not before:
        return False
    part, answer = before[-1], state.ctx.answer
    if OF_WHOLE.fullmatch(answer, part.span[1], claim.span[0]) is not None:
        return part.span[0] in state.anchors.get(id(fact), ())
    return (
        search_before(_OUT_OF_BEFORE, answer, claim.span[0], 20) is not None
        and family(part.unit) == family(claim.unit)
        and _log_apart(part.value, fact.value) < _log_apart(claim.value, fact.value)
    )


def _log_apart(value: float | None, truth: float) -> float:
    """How many times apart a figure and a value are, on a log scale (inf when either is not
    positive)."""
    if value is None or value <= 0 or truth <= 0:
        return math.inf
    return abs(math.log(value / truth))


_RESTATING = re.compile(
    r"\s*(?i:put\s+(?:differently|another\s+way)|in\s+other\s+words|in\s+round\s+numbers|"
    r"roughly\s+speaking|rounded(?:\s+off)?|to\s+put\s+it\s+(?:another\s+way|differently))\b"
)
"""A sentence opening on a restatement of a figure the answer gave before."""


def _stated_for(state: VerifyState, claim: Claim, binding: Binding, fact: Fact) -> bool:
    """Does a claim of another sentence, bound to this fact's entity, state its value? Then
    this claim, outside a table, is about something else of that entity (a subset, another
    period); a restatement in its own sentence ("44.7 hours (about 2 days)") is not. A fact
    of no row (no label, no period of a row) is its reference's one entity, which a claim
    naming none is about too when its words name more of the fact's quantity than this
    claim's ("above the 16% limit. Peas averaged 15.2% moisture" beside the moisture limit
    of one crop)."""
    own = fact.labels or fact.scope
    if _RESTATING.match(state.ctx.answer, binding.sentence[0]):
        return False  # "Put differently, 2024 patients waited roughly 0.58 hours": the same

    def about_it(other: Binding) -> bool:
        if other.entities & own:
            return True
        closer = (other.meaning & fact.meaning) - binding.meaning
        lone = not (fact.labels or fact.row_period or other.entities)  # no row to name
        return lone and bool(closer)

    return not binding.in_table and any(
        about_it(state.bindings[other]) and state.bindings[other].sentence != binding.sentence
        for other in state.stating_ids(fact) - {claim.id}
        if other in state.bindings
    )


def _stated_elsewhere(state: VerifyState, claim: Claim, fit: Fit) -> bool:
    """Does another claim of the answer state this fact's value? Not one restating the
    claim itself in its unit's family, with the claim near that value ("28.6%, or about 1
    in 4", "about 1.5 hrs — 88.6 minutes"): both say one thing, the looser one right and
    the precise one wrong."""
    near = magnitude_ratio(claim, claim_unit(claim, state.bindings[claim.id]), fit) <= 1.5
    stating = state.stating_ids(fit.fact) - {claim.id}
    return any(
        not (near and _restates(state, claim, other))
        for other in state.claims
        if other.id in stating
    )


def _restates(state: VerifyState, claim: Claim, other: Claim) -> bool:
    """Is the other claim, of the claim's unit family, next to it in its sentence and
    joined to it as a restatement (", or", " — ", "(") in a looser or another form: hedged,
    as "1 in N", or in another unit ("$1.2M, or $1.15M after refunds" is another amount),
    the later adding no words of its own ("about 1.5 hrs — 95 minutes at weekends")?"""
    if family(other.unit) != family(claim.unit):
        return False
    if not other.hedged and (other.unit, other.per) == (claim.unit, claim.per):
        return False
    around = state.sentence_claims(state.bindings[claim.id])
    i = next((k for k, c in enumerate(around) if c.id == claim.id), -1)
    if i < 0 or other not in around[max(0, i - 1) : i + 2]:
        return False
    first, second = sorted((claim, other), key=lambda c: c.span)
    own = state.bindings[first.id].meaning | _SAME_FIGURE
    return bool(
        RESTATED.fullmatch(state.ctx.answer, first.span[1], second.span[0])
    ) and says_nothing_after(second, state.ctx, own)


def not_its_level(state: VerifyState, claim: Claim, binding: Binding) -> str:
    """Why the claim cannot be held against a level it is bound to, if so: it states a gap
    ("the gap … is 1 day"), another statistic ("the median"), or a period outside the
    references ("In 2024 it was…" beside references for 2025)."""
    near_start = max(binding.clause[0], claim.span[0] - 50)
    near = state.ctx.answer[near_start : min(binding.clause[1], claim.span[1] + 20)]
    said = {m.group().lower() for m in _STATISTIC.finditer(near)}
    if said and not any(word in f.quantity_name.lower() for f in state.facts for word in said):
        return f"a {sorted(said)[0]}, which no reference value is"
    if state.outside_the_references(binding, state.facts):
        return "it names a period the references are not for"
    if not binding.periods and state.for_another_period(binding):
        return "its sentence names only periods the references are not for"
    clause_before = state.ctx.answer[binding.clause[0] : claim.span[0]]
    clause = state.ctx.answer[binding.clause[0] : binding.clause[1]]
    if claim.kind == "numeric" and (found := _OPEN_RANGE.search(clause)):
        return f"a figure for a range of periods ({found.group()!r}), not for one"
    if _ELSEWHERE.search(clause_before):
        return "a figure for outside the references ('industry', 'usually', 'typically')"
    answer, end = state.ctx.answer, claim.span[1]
    if claim.per is None and not state.scores and _OUT_OF.match(answer, end):
        return "a score on a scale, which no reference value states"
    article = search_before(_ARTICLE_BEFORE, answer, claim.span[0], 30)
    noun = _WORD_AFTER.match(answer, end) if claim.unit in ("percent", "currency") else None
    if (  # "a 10% discount", "a $25 fee"
        article
        and noun
        and noun.group(1) not in NOT_NOUNS
        and not any(tokens(noun.group(1)) & f.meaning for f in state.facts)
    ):
        return f"a {noun.group(1)}, which no reference value is"
    return ""
