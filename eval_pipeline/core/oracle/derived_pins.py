"""Which derived values a claim's words call for (``candidates`` derives them; ``cued`` ones
may support it) and pin it to (so they may accuse it): a share written as one, a gap its words
name between values its sentence states, a change between levels of the quantity its statement
names; and, of several, the derivations over the series its words or its table column name."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from eval_pipeline.core.claims.layout import search_before
from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.agreement import Check
from eval_pipeline.core.oracle.binding import Binding
from eval_pipeline.core.oracle.candidates import bare_decimal, known_scale
from eval_pipeline.core.oracle.claim_words import (
    NOT_NOUNS,
    OF_ANOTHER,
    OF_PHRASE,
    OF_START,
    RESTATED,
    THAN,
    head_noun,
)
from eval_pipeline.core.oracle.derived import (
    BY_MARGIN,
    GAP_CUE,
    RELATIVE_CUE,
    RESTATED_CHANGE,
    SUM_CUE,
    WHOLE_ORGANISATION,
    Derived,
    Deriver,
    says_relative,
    written_signed,
)
from eval_pipeline.core.oracle.derived_changes import changes, ratios, spreads
from eval_pipeline.core.oracle.derived_pairs import OVERALL_WORDS, measured_against_overall
from eval_pipeline.core.oracle.derived_periods import period_led
from eval_pipeline.core.oracle.derived_places import place_after
from eval_pipeline.core.oracle.derived_shares import parts_of_a_mix, shares
from eval_pipeline.core.oracle.derived_sums import means, per_item, referred_runs, sums
from eval_pipeline.core.oracle.facts import Fact, cut_short, metric_words, tokens
from eval_pipeline.core.oracle.units import RATES, family, scale, unit_from_name
from eval_pipeline.core.oracle.verify_state import VerifyState

_SHARE_CUE = re.compile(
    r"%\s+(?i:of)\b|\b(?i:share|accounted|accounts|accounting|made\s+up|makes\s+up|make\s+up|"
    r"proportion|portion|represent\w*)\b"
)
_OF_ITS_OWN = re.compile(r"\s+(?i:of)\s+(?i:its|their|his|her)\b")
"""After a share of the entity's own quantity ("42% of their energy"), not of everyone's."""
_OVERALL = re.compile(rf"(?i:the\s+)?{OVERALL_WORDS}")
_CLAUSE_STOP = re.compile(r"[,;:.!?()]|\s[—–-]\s|\b(?i:and|but|while|whereas)\b")
_PER_PERIOD = re.compile(
    r"\b(?i:(?:a|per|each|every)\s+(?:day|week|month|quarter|year)|monthly|weekly|daily|"
    r"on\s+average|average|averag\w+|mean)\b"
)
_PER = re.compile(r"\b(?i:per|each|a\s+(?:visit|piece|unit|car|head)|an?\s+average|averag\w*)\b")
_RATIO = re.compile(r"\b(?i:times|twice|x)\b|[\dx×]x\b|\bto\s+1\b")
_EXTREME = (
    r"highest|lowest|slowest|fastest|largest|smallest|biggest|best|worst|top|bottom|longest|"
    r"shortest|most|least|cheapest|dearest"
)
_SPREAD_CUE = re.compile(
    rf"\b(?i:spread|(?:{_EXTREME})(?:\s+\w+)?\s+(?:and|to)\s+(?:the\s+)?(?:{_EXTREME}))\b"
)
"""Words of the gap between a column's extremes: "the spread", "top to bottom", "between the
highest and lowest tier"."""
_COMPLEMENT = re.compile(
    r"\b(?i:un\w+|not|non-\w+|didn['’]t|did\s+not|remaining|rest|other|missed|outstanding|"
    r"wouldn['’]t|would\s+not|never|without)\b"
)
_OTHER_NUMBER = re.compile(r"\d[\d,.]*")
_ITS_OWN = re.compile(
    r"(?:\s+(?i:as\s+\w+\s+as|than|that\s+of|above|below|over|under|on|of))?"
    r"\s+(?i:its|their|his|her)\s+own\b"
)
"""After a gap or ratio, the subject's own other figure it is measured against."""
_PHRASE_END = re.compile(r"\s(?i:on|in|at|for|with|from|by|than|versus|vs|while|and|but)\s")
"""Where the noun phrase after a share's "of" ends: "of sales on just 62% of orders"."""
_LISTED = re.compile(r"\b(?i:top|bottom|these|those|them|listed|named)\b")
"""Words naming the rows a reference lists as a group: "of the top five's revenue"."""


def _own_words(near: str, start: int, claim: Claim) -> str:
    """The words of ``near`` (the claim's text at ``start``) that no other number stands
    between: "a week" in "20,712 kWh, about 5,178 kWh a week" is the second number's."""
    end = start + claim.span[1] - claim.span[0]
    after = _OTHER_NUMBER.search(near, end)
    before = [m.end() for m in _OTHER_NUMBER.finditer(near, 0, start)]
    return near[(before[-1] if before else 0) : after.start() if after else len(near)]


def candidates(
    deriver: Deriver, claim: Claim, binding: Binding, unit: Unit | None
) -> list[Derived]:
    """Every derivation the claim's words and unit call for."""
    text = deriver.ctx.answer
    clause = text[binding.clause[0] : binding.clause[1]]
    near = text[
        max(binding.clause[0], claim.span[0] - 40) : min(binding.clause[1], claim.span[1] + 50)
    ]
    own = _own_words(near, claim.span[0] - max(binding.clause[0], claim.span[0] - 40), claim)
    out: list[Derived] = []
    fam = family(unit)
    if claim.per is not None or (fam == "rate" and claim.kind != "comparison"):
        out += shares(deriver, claim, binding, complement=bool(_COMPLEMENT.search(near)))
    if fam == "rate" and claim.per is None and claim.kind != "comparison":
        out += parts_of_a_mix(deriver, binding, cued=bool(SUM_CUE.search(clause)))
    if (
        claim.kind == "comparison"
        or written_signed(claim)
        or (fam in ("rate", None) and RELATIVE_CUE.search(near))
        or (fam == "rate" and GAP_CUE.search(near))
    ):
        out += changes(deriver, claim, binding, unit)
    if fam != "ratio" and _names_a_spread(deriver, claim, binding):
        out += spreads(deriver, binding, None if bare_decimal(claim) else unit)
    if unit == "ratio" or _RATIO.search(text[claim.span[0] : claim.span[1] + 12]):
        out += ratios(deriver, claim, binding)
    if fam not in ("rate", "ratio") and claim.per is None:
        if (SUM_CUE.search(clause) or claim.kind != "comparison") and not _PER_PERIOD.search(own):
            out += sums(deriver, claim, binding, unit, cued=bool(SUM_CUE.search(near)))
        if _PER.search(near):
            out += per_item(deriver, claim, binding, unit)
        if _PER_PERIOD.search(own):
            out += means(deriver, binding, unit)
        if (
            claim.kind != "comparison"
            and not written_signed(claim)
            and (
                re.search(
                    r"\b(?i:more|fewer|less|longer|shorter|higher|lower|gap|difference|ahead|"
                    r"behind|faster|slower|above|below)\b",
                    near,
                )
                or _a_gap_before(text, claim)
            )
        ):
            out += changes(deriver, claim, binding, unit)
    return out


def _a_gap_before(text: str, claim: Claim) -> bool:
    """Do the words before the claim make it a gap or change though it is written as a level:
    a margin ("edges Grand Plaza by about £80K") or a change restated ("a fall of about 3.5%,
    or roughly $13 a tonne")?"""
    return any(search_before(cue, text, claim.span[0], 60) for cue in (BY_MARGIN, RESTATED_CHANGE))


def _names_a_spread(deriver: Deriver, claim: Claim, binding: Binding) -> bool:
    """Do the words before the claim in its sentence name a spread, with no other figure
    between ("the spread is 0.6 days"; not "a spread of 0.6 days, so about 12 days each",
    whose spread is the 0.6)?"""
    text = deriver.ctx.answer
    cues = list(_SPREAD_CUE.finditer(text, binding.sentence[0], claim.span[0]))
    return bool(cues) and not any(cues[-1].end() <= at < claim.span[0] for at in deriver.ctx.values)


def pins(
    state: VerifyState, claim: Claim, binding: Binding, unit: Unit | None, found: Derived
) -> bool:
    """May a derived value accuse the claim? Only a derivation its own words call for, over
    facts its sentence names, in a unit that leaves no doubt (a "%" change of rates could
    be points or relative)."""
    text = state.ctx.answer
    sentence = tokens(text[binding.sentence[0] : binding.sentence[1]]) | binding.lead_in
    anchored = any(
        binding.lead_start <= position < binding.sentence[1]
        for f in found.facts
        for position in state.anchors.get(id(f), ())
    )
    start, end = binding.sentence
    named = {m.key for m in state.ctx.labels_in(start, end)}
    by_name = (
        len(found.facts) == 2
        and all((f.labels or f.scope) & named for f in found.facts)
        and len({frozenset((f.labels or f.scope) & named) for f in found.facts}) == 2
    )
    led = found.how in ("relative change", "difference") and period_led(
        state.deriver, claim, binding
    )
    # "Route 12 … 9.1 points below the network": one fact its row's, the other the overall one
    by_name = by_name or (
        len(found.facts) == 2
        and sum(bool((f.labels or f.scope) & named) for f in found.facts) == 1
        and measured_against_overall(state.ctx, claim, binding)
    )
    # "the latest year was 2.5x the one before": its words name the two by their places
    placed = found.pinned and place_after(text, claim.span[1], binding.sentence[1]) is not None
    if (
        not (anchored or by_name or led or placed)
        and not any(sentence & f.meaning for f in found.facts)
        and not _referred_back(state, binding, found)
    ):
        return False
    noun = head_noun(text, claim)
    if noun is not None and not any(noun in f.meaning for f in found.facts):
        return False
    if not cued(state, claim, binding, unit, found) or found.how.startswith("complement"):
        return False
    if found.how.startswith("share") and state.ctx.labels_as_a_range(*binding.clause):
        return False  # "4 out of 10 tickets are sold Monday to Thursday": the rows between too
    if found.how.startswith("share") and _OF_ITS_OWN.match(text, claim.span[1]):
        return False  # "42% of their energy": a share within the entity, not its share
    if found.how.startswith("share") and not (anchored or _written_as_share(state, claim, binding)):
        return False  # "they renew at 81%": a bare "%" beside neither part nor whole
    if found.how.startswith("share") and claim.per is None and unit not in ("percent", "fraction"):
        return False  # "the 70-point pass mark": a share is written as one, never in points
    if (
        found.how in ("relative change", "difference")
        and _names_a_gap(state, claim, binding)
        and not (found.how == "difference" and _gap_of_stated(state, claim, binding, found))
    ):
        return False  # a gap but of none of the values its sentence states before it
    if found.how in ("relative change", "difference") and _names_a_spread(
        state.deriver, claim, binding
    ):
        return False  # "the gap between the best and worst site": the spread, not two rows
    if found.how in ("relative change", "difference", "ratio") and (
        _against_its_own(state, claim, found)  # "nearly double its own 1.5% of 2024"
        or _than_nothing_named(state, claim, binding)  # "40 more than the two at the bottom"
        or _each_its_own(state, claim, binding, found)  # "X 2.2 days slower and Y 5.4 faster"
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
    if found.how in ("total", "sum") and _wider_than(state, binding, found.facts):
        return False  # "group-wide" beside one venue's rows: the group's total is not theirs
    if found.how in _CHANGES and _of_one_wider(state, claim, binding, found.facts):
        return False  # "Chain-wide move-ins fell 1.2%" beside one facility's two years
    if OF_ANOTHER.match(text, claim.span[1]):
        return False  # "60% of Dr. Okafor's referrals", "40% of those no-shows"
    if found.how.startswith("share") and _of_another_written_whole(state, claim, binding, found):
        return False  # "17 of 93 (about 18%)": of the 93, not of the column's total
    if found.how.startswith("share") and _of_the_amount_before(state, claim, binding, found):
        return False  # "614 tickets, about 5% of the house": the 614's share, not the 12,000's
    if found.how.startswith("share") and _of_another_whole(state, claim, binding, found):
        return False  # "28% of the site's tickets" beside revenue: a share of other things
    if found.how.startswith("share") and _named_as_whole(state, claim, binding, found.facts[0]):
        return False  # "Auto Lite accounted for 41% of personal-auto indemnity"
    if found.how == "share (whole)" and _of_its_part(state, claim, binding, found):
        return False  # "92% of refunds were processed within 7 days": the refunds are its whole
    if found.how == "share (column total)" and _of_more_than_listed(state, binding, found):
        return False  # "3.1% of company sales" beside the top ten customers' sales
    if found.how == "share (column total)" and _names_another_column(state, claim, binding, found):
        return False  # "4% of billed rent unpaid": one column of its row over another
    if found.how == "relative change":
        relative = found.facts[0].unit not in RATES or says_relative(text, claim)
        return unit in ("percent", "fraction") and relative
    if found.how == "difference":
        return scale(unit, found.unit) is not None and not (
            unit == "percent" and found.unit == "points"
        )
    return True


def _of_more_than_listed(state: VerifyState, binding: Binding, found: Derived) -> bool:
    """Is the share's whole the total of a list the reference cuts at N ("top 10"), while the
    claim's clause names no such group ("the top ten", "those", "them")? A share is most
    often of everything, which the first N do not add up to."""
    clause = state.ctx.answer[binding.clause[0] : binding.clause[1]]
    return cut_short(found.facts) and not _LISTED.search(clause)


def _names_another_column(
    state: VerifyState, claim: Claim, binding: Binding, found: Derived
) -> bool:
    """Do the words after the share, up to the next figure, name another number column of the
    part's row than the part's? Then the share may be one of the row's columns over the other
    ("about 4% of billed rent unpaid"), not the part's share of its column's total."""
    part = found.facts[0]
    later = [c.span[0] for c in state.sentence_claims(binding) if c.span[0] >= claim.span[1]]
    end = min([binding.clause[1], *later])
    words = tokens(state.ctx.answer[claim.span[1] : end])
    return any(
        f.source is part.source
        and f.position == part.position
        and f.series != part.series
        and words & (metric_words(f.own_meaning) - metric_words(part.own_meaning))
        for f in state.facts
    )


def cued(
    state: VerifyState, claim: Claim, binding: Binding, unit: Unit | None, found: Derived
) -> bool:
    """Do the claim's own words call for this derivation? A round hedged figure agrees
    with many derived values by chance, so only the one its words name may support it."""
    near = _near(state, claim, binding)
    if found.how.startswith("share") or found.how.startswith("complement"):
        return _written_as_share(state, claim, binding) or not state.rates
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
        written_signed(claim)
        or (
            found.pinned
            and (_names_a_gap(state, claim, binding) or _a_gap_before(state.ctx.answer, claim))
        )
    ):
        return True  # "(+$131 per account)", "a gap of 0.1 days", "edges Grand Plaza by £80K"
    if found.how == "relative change" and claim.kind != "comparison":
        # "an increase of 871 visits, or 16.35%": a level written as the size of a change
        return unit in ("percent", "fraction") and bool(RELATIVE_CUE.search(near))
    return claim.kind == "comparison"


def _near(state: VerifyState, claim: Claim, binding: Binding) -> str:
    """Its clause's words around the claim, which may call for a derivation."""
    start, end = binding.clause
    return state.ctx.answer[max(start, claim.span[0] - 40) : min(end, claim.span[1] + 30)]


def _written_as_share(state: VerifyState, claim: Claim, binding: Binding) -> bool:
    """Is the claim written as a share: "one in 8", a fraction, "%" with a share's words
    around it ("41% of", "accounted for") or in a sentence opening on its whole ("Of the
    622 hours, …")? Beside references holding no rate a bare "%" may be a share too, or
    the rate of something they do not hold."""
    cued = claim.per is not None or claim.unit == "fraction"
    opens = OF_START.match(state.ctx.answer, binding.sentence[0]) is not None
    return cued or opens or bool(_SHARE_CUE.search(_near(state, claim, binding)))


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


def _names_a_gap(state: VerifyState, claim: Claim, binding: Binding) -> bool:
    """Does the claim's clause call it the size of a gap ("a gap of about 0.1 days", "the
    difference is 0.5 points")?"""
    start = max(binding.clause[0], claim.span[0] - 40)
    return (
        claim.kind == "numeric"
        and bool(GAP_CUE.search(state.ctx.answer, start, claim.span[0]))
        and not state.outside_the_references(binding, state.facts)
    )


def _gap_of_stated(state: VerifyState, claim: Claim, binding: Binding, found: Derived) -> bool:
    """Is the claim a gap its words name, between two values its sentence states before it
    ("38.4 days … 38.5 days — a gap of 0.1 days")? It is then the difference of those two."""
    return (
        found.pinned
        and _names_a_gap(state, claim, binding)
        and all(
            any(binding.sentence[0] <= p < claim.span[0] for p in state.anchors.get(id(f), ()))
            for f in found.facts
        )
    )


def _each_its_own(state: VerifyState, claim: Claim, binding: Binding, found: Derived) -> bool:
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
        and state.bindings[c.id].sentence == binding.sentence
        and state.bindings[c.id].entities & other
        and not state.bindings[c.id].entities & mine[0]
        for c in state.claims
        if c.id in state.bindings
    )


def _wider_than(state: VerifyState, binding: Binding, facts: Sequence[Fact]) -> bool:
    """Does the claim's clause speak for the whole organisation ("group-wide", "across the
    network") while the facts are all of one entity (a venue's weeks)?"""
    clause = state.ctx.answer[binding.clause[0] : binding.clause[1]]
    scopes = {f.scope for f in facts if not f.labels}
    return bool(WHOLE_ORGANISATION.search(clause)) and len(scopes) == 1 and all(scopes)


def _referred_back(state: VerifyState, binding: Binding, found: Derived) -> bool:
    """Is the derived value over the rows its sentence counts back to ("Those three were
    worth $212K between them": the rows the sentences before named)?"""
    return found.pinned and any(
        found.facts[: len(run)] == run
        for run, counted in referred_runs(state.deriver, binding)
        if counted
    )


_CHANGES = ("relative change", "difference")


def _of_one_wider(
    state: VerifyState, claim: Claim, binding: Binding, facts: Sequence[Fact]
) -> bool:
    """Do a change's own words, between the figures around it, speak for the whole
    organisation ("the 2.7% growth of the chain overall", "Chain-wide move-ins fell 1.2%")
    while its facts are all of one entity or row (one facility's two years, one unit size's)?
    The whole's change is not that one's."""
    start, end = binding.clause
    for other in state.sentence_claims(binding):
        if other.span[1] <= claim.span[0]:
            start = max(start, other.span[1])
        elif other.span[0] >= claim.span[1]:
            end = min(end, other.span[0])
    owners = {f.scope or f.labels for f in facts}
    wide = WHOLE_ORGANISATION.search(state.ctx.answer, start, end)
    return wide is not None and len(owners) == 1 and all(owners)


def _of_another_written_whole(
    state: VerifyState, claim: Claim, binding: Binding, found: Derived
) -> bool:
    """Is the share written beside its part and whole ("17 of 93 … (about 18%)"), which it
    agrees with, while the derived value is over another whole than the one written? It is
    then of the whole the answer names, whatever the references hold of it; a share that
    its own part and whole do not give either ("1,500 of 3,200 … 55%") is still accused."""
    written = state.part_and_whole(claim, binding)
    if written is None or not found.value:
        return False
    whole = written.whole
    total = Derived(
        found.facts[0].value / found.value, found.facts[0].unit, found.facts, "total", False
    )
    check = Check(claim, state.units.get(claim.id), state.rule)
    return any(
        part.value is not None
        and whole.value
        and family(part.unit) == family(whole.unit)
        and check.derived(Derived(part.value / whole.value, "fraction", found.facts, "", False))
        for part in written.parts
    ) and not Check(whole, state.units.get(whole.id), state.rule).derived(total)


def _of_the_amount_before(
    state: VerifyState, claim: Claim, binding: Binding, found: Derived
) -> bool:
    """Is the share written right after an amount, as a restatement of it ("our allocation
    is 614 tickets, about 5% of the house", "614 (5%)"), while the derived share is over
    none of the quantity that amount states, and the share's own words do not name its
    part's ("$639K from 4,248 passengers, 44.7% of fare revenue" is the revenue's)? The
    share is then of that amount, whatever whole it is over: another figure's share of its
    column says nothing of it."""
    around = state.sentence_claims(binding)
    i = around.index(claim) if claim in around else -1
    if i < 1:
        return False
    before = around[i - 1]
    if (
        before.kind != "numeric"
        or before.per is not None
        or family(before.unit) == "rate"
        or not RESTATED.fullmatch(state.ctx.answer, before.span[1], claim.span[0])
    ):
        return False
    stated = {f.series for f in state.facts if before.span[0] in state.anchors.get(id(f), ())}
    if not stated or any(f.series in stated for f in found.facts):
        return False
    later = [c.span[0] for c in around[i + 1 :]]
    words = tokens(state.ctx.answer[claim.span[1] : min([binding.clause[1], *later])])
    return not words & metric_words(found.facts[0].own_meaning)


def _named_as_whole(state: VerifyState, claim: Claim, binding: Binding, part: Fact) -> bool:
    """Is the part's entity named only after the share's "of" ("41% of personal-auto
    indemnity")? It then owns the whole, and the part is something inside it."""
    of = OF_PHRASE.match(state.ctx.answer, claim.span[1], binding.clause[1])
    if of is None:
        return False
    own = part.labels or part.scope
    inside = [m for m in state.ctx.labels_in(of.start(), of.end()) if m.key in own]
    outside = [
        m
        for m in state.ctx.labels_in(*binding.clause)
        if m.key in own and not of.start() <= m.start < of.end()
    ]
    return bool(inside) and not outside


def _of_its_part(state: VerifyState, claim: Claim, binding: Binding, found: Derived) -> bool:
    """Does the share's "of" phrase name its part's quantity and not its whole's ("92% of
    refunds were processed within 7 days" beside refunds over revenue)? What follows "of" is
    the whole: a share of the part is of something inside it."""
    of = OF_PHRASE.match(state.ctx.answer, claim.span[1], binding.clause[1])
    if of is None:
        return False
    words = tokens(_PHRASE_END.split(of.group(), maxsplit=1)[0])
    part, whole = found.facts[0], found.facts[1]
    return bool(words & metric_words(part.own_meaning)) and not words & whole.own_meaning


def _of_another_whole(state: VerifyState, claim: Claim, binding: Binding, found: Derived) -> bool:
    """Is the share's "of" phrase ended by a plural noun of things counted, while its facts are
    money ("only 28% of the site's tickets" beside ticket revenue and total revenue)?"""
    of = OF_PHRASE.match(state.ctx.answer, claim.span[1], binding.clause[1])
    phrase = _PHRASE_END.split(of.group(), maxsplit=1)[0] if of else ""
    words = re.findall(r"[A-Za-z]+", phrase)
    if not words or not all(f.unit == "currency" for f in found.facts):
        return False
    noun = words[-1].lower()
    return noun.endswith("s") and noun not in NOT_NOUNS and unit_from_name(noun) is None


def _against_its_own(state: VerifyState, claim: Claim, found: Derived) -> bool:
    """Is a gap or ratio between two rows written against the subject's own other figure
    ("Cold Creek's rate is … nearly double its own 1.5% of 2024")?"""
    a, b = found.facts[0], found.facts[-1]
    own = _ITS_OWN.match(state.ctx.answer, claim.span[1])
    return own is not None and (a.labels or a.scope) != (b.labels or b.scope)


def _than_nothing_named(state: VerifyState, claim: Claim, binding: Binding) -> bool:
    """Does the claim name what it is compared with ("… more than X") by words that name
    no label, no period, no overall figure and state no figure? Then the other side is none
    of the references' values the sentence names elsewhere."""
    text = state.ctx.answer
    than = THAN.match(text, claim.span[1])
    if than is None:
        return False
    end = _CLAUSE_STOP.search(text, than.end(), binding.sentence[1])
    start, stop = than.end(), end.start() if end else binding.sentence[1]
    return not (
        state.ctx.labels_in(start, stop)
        or state.ctx.periods_in(start, stop)
        or place_after(text, claim.span[1], stop)  # "than the runner-up"
        or SUM_CUE.search(text, start, stop)
        or _OVERALL.match(text, start, stop)  # "than the chain average": the whole's figure
        or any(start <= other.span[0] < stop for other in state.claims)
    )


def of_its_column_series(state: VerifyState, claim: Claim, found: list[Derived]) -> list[Derived]:
    """Of several derivations, the ones over the series most other cells of the claim's
    table column state, right or wrong: a total row under two year columns adds its own
    column's rows (a cell whose value two series share may be anchored to the other)."""
    column = state.columns.get(claim.id)
    if column is None or len(found) < 2:
        return found
    cells = {
        other.span[0]
        for other in state.claims
        if other.id != claim.id and state.columns.get(other.id) == column
    }
    stated = Counter(
        f.series
        for f in state.facts
        for position in state.anchors.get(id(f), ())
        if position in cells
    )
    if not stated:
        return found
    series, count = stated.most_common(1)[0]
    if count < 2 or 2 * count <= stated.total():
        return found
    own = [d for d in found if all(f.series == series for f in d.facts)]
    return own or found


def of_the_quantity_named(binding: Binding, found: list[Derived]) -> list[Derived]:
    """Of derivations over several columns ("Gold and Platinum together made 22% of room
    revenue" beside stays, nights and revenue per tier), those of the column the claim's words
    name most, when that is one column."""
    named = [len(binding.meaning & d.facts[0].own_meaning) for d in found]
    most = max(named, default=0)
    chosen = [d for d, n in zip(found, named, strict=True) if n == most]
    return chosen if most > 0 and len({d.facts[0].series for d in chosen}) == 1 else found


def of_the_column_named(
    state: VerifyState, claim: Claim, binding: Binding, found: list[Derived]
) -> list[Derived]:
    """Of changes over several columns ("July covers were up 13.1%" beside reservations,
    covers and no-show rate by month), those of the one column its statement names."""
    start, end = state.deriver.sentence_phrase(claim, binding)
    words = tokens(state.ctx.answer[start:end])
    chosen = [d for d in found if words & d.facts[0].own_meaning]
    return chosen if len({d.facts[0].series for d in chosen}) == 1 else found


def stated_in_its_phrase(
    state: VerifyState, claim: Claim, binding: Binding, found: Derived
) -> bool:
    """Does a claim of the claim's own statement state one of the derived value's facts
    before it?"""
    start, _ = state.deriver.sentence_phrase(claim, binding)
    return any(
        start <= p < claim.span[0] for f in found.facts for p in state.anchors.get(id(f), ())
    )
