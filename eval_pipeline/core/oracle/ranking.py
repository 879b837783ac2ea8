"""Ranking claims: is the entity where the claim puts it in the ordering of the metric its
words name?

The series ranked is a column (or a mapping) of one reference whose numbers each have their own
label or period, or one function computed for several labelled params. The claim's entity is a
label or a period named inside its text; the series is the one holding the entity whose column
or function shares most words with the claim ("the longest waits" → ``avg_wait_minutes``), then
whose unit fits its words ("most" counts, "rate" rates). "Best", "worst", "fastest" are resolved
by the metric: for a duration or a figure where less is better, best is lowest. When its words
name no series, the metric may still be guessed, to support but never to accuse: by the ranking a
continuation ("followed by X") counts on from (which names it for certain), by the column its
SQL reference is ordered by when the claim only echoes the question, by the count the others are
part of for "the busiest". A size superlative ("the most", "the biggest") ranks any metric, so
the count it hints at is a guess too, unless a plural it counts names it ("the most
changeovers"). A first place counted after others ("the most orders after X") ranks among the
rest.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from eval_pipeline.core.claims.layout import MAX_SENTENCE
from eval_pipeline.core.claims.numbers import parse_word_number
from eval_pipeline.core.claims.ranking_phrases import CONTINUING, SUPERLATIVE, ranked_list_lead
from eval_pipeline.core.models import Claim, Evidence, Unit, Verdict
from eval_pipeline.core.oracle.binding import AnswerContext
from eval_pipeline.core.oracle.facts import (
    Fact,
    by_series,
    cut_short,
    fmt_value,
    key,
    metric_words,
    stem,
    tokens,
)
from eval_pipeline.core.oracle.labels import label_mentions
from eval_pipeline.core.oracle.periods import Period, period_mentions
from eval_pipeline.core.oracle.units import family, less_is_better, polarity_known

_MAX_EVIDENCE = 12
_RATE_WORDS = frozenset({"rate", "share", "percentage", "percent", "ratio", "proportion"})
_RATE_STEMS = tokens(" ".join(_RATE_WORDS))
_COUNT_WORDS = frozenset(
    {
        "most",
        "fewest",
        "number",
        "count",
        "many",
        "busiest",
        "quietest",
        "volume",
        "largest",
        "smallest",
        "biggest",
    }
)
_DURATION_WORDS = frozenset(
    {
        "longest",
        "shortest",
        "fastest",
        "slowest",
        "quickest",
        "wait",
        "time",
        "duration",
        "turnaround",
        "minute",
        "hour",
        "day",
    }
)
_MONEY_WORDS = frozenset(
    {
        "revenue",
        "sale",
        "charg",
        "bill",
        "billed",
        "spend",
        "cost",
        "costli",
        "expensive",
        "cheapest",
        "priciest",
        "dollar",
        "money",
        "income",
        "earn",
        "collected",
        "paid",
        "value",
    }
)
_MONEY_NOUNS = frozenset({"money", "dollar", "dollars", "cash"})
"""Words that say money and nothing else ("sales", "value" may count things too)."""
_SCORE_WORDS = frozenset({"score", "rating", "rated", "satisfaction", "satisfact", "csat", "nps"})
_RANK_PHRASE_WORDS = frozenset(
    {
        "most",
        "highest",
        "largest",
        "biggest",
        "greatest",
        "top",
        "peak",
        "busiest",
        "longest",
        "fewest",
        "least",
        "lowest",
        "smallest",
        "quietest",
        "shortest",
        "best",
        "worst",
        "fastest",
        "slowest",
        "quickest",
        "lead",
        "led",
        "leads",
        "rank",
        "ranked",
        "second",
        "third",
        "fourth",
        "fifth",
        "next",
        "last",
        "place",
        "month",
        "week",
        "quarter",
        "year",
        "network",
        "group",
        "store",
        "clinic",
        "overall",
        "all",
        "any",
        "one",
        "was",
        "were",
        "had",
        "has",
        "is",
        "came",
        "come",
        "low",
        "point",
        "high",
        "sat",
        "follow",
        "followed",
        "heaviest",
        "strongest",
        "weakest",
        "lightest",
        "which",
        "that",
    }
)


def _with_stems(words: frozenset[str]) -> frozenset[str]:
    """Words as written and as ``tokens`` gives them ("quarter" is "quart", "expensive" is
    "expensiv"), so a list written by hand meets the words of an answer."""
    return words | frozenset(map(stem, words))


_SIZE_WORDS = _with_stems(frozenset({"most", "fewest", "least", "largest", "smallest", "biggest"}))
"""Superlatives of size, which rank any metric ("the most downtime", "the largest revenue")."""
_VALUE = re.compile(r"\b(value)\b")
"""The one word of money that names no column ("value" is no metric word of ``tokens``)."""
_COUNTED = re.compile(
    r"(?i)\b(?:most|fewest|largest|smallest|biggest)\s+(?:number\s+of\s+)?(?:[a-z-]+\s+)?"
    r"([a-z-]+s)\b"
)
"""A size superlative before a plural noun, which it counts ("the most changeovers")."""
_LENGTH_WORDS = _with_stems(frozenset({"longest", "shortest"}))
"""Superlatives of how long something lasts, whatever noun they rank."""
_GENERIC_RANK_WORDS = (
    _with_stems(_RANK_PHRASE_WORDS)
    | tokens("edged edges out beats overtook overtakes pipped spot place position slot bottomed")
    | tokens("just only about around roughly nearly almost under over")  # hedges of its figure
)
"""Words of ranking phrases ("peaked", "edged out … for the top spot", "the heaviest", "which
is the lowest") and hedges of the figure beside them ("at just under 69%"), not of a metric."""
_HINTS: dict[str, frozenset[str]] = {
    "rate": _with_stems(_RATE_WORDS),
    "duration": _with_stems(_DURATION_WORDS),
    "money": _with_stems(_MONEY_WORDS),
    "count": _with_stems(_COUNT_WORDS),
    "ratio": frozenset({"ratio", "times"}),
    "number": _with_stems(_SCORE_WORDS),
}
_SUBJECT = re.compile(
    r"(?P<words>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})\s+(?:is|was|are|were)\s+"
    r"(?:at\s+its\s+)?(?:highest|lowest|busiest|quietest)\s+(?:in|on|during)\b"
)
"""The subject a ranking of a period or row after its verb is of: "Bad debt was highest in"."""
_BY_COUNT = re.compile(r"\b(?i:by|in)\s+(?i:count|number|headcount)\b")
"""Words ranking by how many, whatever noun they count: "the most refunds by count"."""
_FIGURE = re.compile(r"\d+[kmbx]?")
_CLAUSE_END = re.compile(r"[.;!?,)\n]|\s[—–]\s|\b(?:but|while|whereas)\b")
_NEXT_FIGURE = re.compile(r"\d.*?\s(?P<joint>and|plus)\b", re.DOTALL)
"""After a ranking's first figure, "and" opens the words of another: "the busiest month with 421
contacts and an average handle time of 7.09 minutes" ranks the contacts."""
_SIZE = r"(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten)\b"
_RELATIVE = re.compile(rf"\b(?i:of|among)\s+(?:the|these|those|all)\s+{_SIZE}")
_BACK_REFERRED = re.compile(r"(?<!\d\s)\b(?i:of|among)\s+(?i:these|those|them)\b")
"""A group the answer named before, given no size: "the busiest of those months", "the
largest among them" ranks among what the sentence named before it, not every row ("160 of
them" counts a part)."""
_ASKED_SIZE = re.compile(rf"(?i)\b(?:top|bottom|which|what|the)\s+{_SIZE}")
"""The size of the group a question asks for: "Which five adjusters…", "the top 5 reps"."""
_INTENSITY = re.compile(r"(?i)\b[a-z]+-(?:heavy|intensive|light)\b")
"""A quantity's weight in something else ("the most input-heavy region", "labour-intensive"):
what is ranked is its share of that, not its level."""
_PART_OF_WHOLE = re.compile(r"\d\s+(?i:of|out\s+of)\s+[$€£]?\d")
"""A figure written as a part of its whole ("reopened the most: 22 of 104"): what is ranked is
the rate, whatever the words say."""


@dataclass(frozen=True)
class Series:
    facts: list[Fact]
    meaning: frozenset[str]
    duration: bool
    rate: bool

    @property
    def kind(self) -> str:
        return family(self.facts[0].unit) or "number"

    @property
    def name(self) -> str:
        return self.facts[0].quantity_name

    def position(self, entity: str | None, period: Period | None) -> list[int]:
        out = []
        for i, fact in enumerate(self.facts):
            if (
                (entity is not None and fact.is_for(entity))
                or (
                    period is not None
                    and fact.row_period is not None
                    and fact.row_period.within(period)
                    and fact.row_period.grain == period.grain
                )
                or (
                    period is not None
                    and fact.row_period is None
                    and any(p.within(period) and p.grain == period.grain for p in fact.periods)
                )
            ):
                out.append(i)
        return out


def series_of(facts: Sequence[Fact]) -> list[Series]:
    """Every rankable series: facts of one column told apart by a label or a period, and
    scalars of one function computed for several params."""
    found: list[Series] = []
    lone: dict[tuple[str, str | None, int], list[Fact]] = {}
    for members in by_series(facts).values():
        if len(members) >= 2:
            found.append(_make(members))
        elif not members[0].labels:
            ref = members[0].source.reference
            # a whole is no rival of its parts ("all stores" beside "Store 4"): only scalars
            # narrowed by as many entities rank against each other
            narrowed = len(members[0].filters)
            lone.setdefault(
                (ref.target if ref.kind != "sql" else "sql", members[0].column, narrowed), []
            ).append(members[0])
    for members in lone.values():
        if len(members) >= 2:
            found.append(_make(members))
    return found


_AVERAGED = re.compile(r"(?i)(?:^|_)(?:avg|average|mean)(?:_|$)")
_AVERAGE = frozenset({"averag", "mean"})


def _make(members: list[Fact]) -> Series:
    unit = members[0].unit
    averaged = _AVERAGE if _AVERAGED.search(members[0].column or "") else frozenset()
    return Series(
        facts=members,
        meaning=frozenset().union(averaged, *(f.meaning for f in members)),
        duration=family(unit) == "duration",
        rate=family(unit) == "rate",
    )


_ASKED = re.compile(
    rf"\b(?i:{SUPERLATIVE})\b(?P<metric>(?:\s+(?!(?i:among|in|by|for|of|per|across|during|over|"
    r"last|this|and|or)\b)[\w-]+){1,4})"
)


def _asked_metric(question: str) -> frozenset[str]:
    """The words after the question's superlative ("the most MRR among…" → mrr): the metric
    the answer's rankings are about when their own words do not say. None when it asks for
    several ("the most payments, the highest revenue and the most refunds"): each ranking
    of the answer may then be about any of them."""
    asked = {tokens(found.group("metric")) for found in _ASKED.finditer(question)}
    return next(iter(asked)) if len(asked) == 1 else frozenset()


_SPEED = re.compile(r"(?i)\b(?:fastest|slowest|quickest)\b")


def _timed(claim: Claim, candidates: list[Series]) -> list[Series]:
    """The durations among the candidates when the claim ranks by speed ("settles fastest"
    ranks the time to settle, not the count of settled claims its verb shares a word with)."""
    if claim.direction is not None or not _SPEED.search(claim.text):
        return candidates
    return [s for s in candidates if s.duration] or candidates


def _direction(claim: Claim, series: Series, words: str) -> str | None:
    if claim.direction in ("highest", "lowest"):
        return claim.direction
    found = re.findall(
        r"(?i)\b(best|worst|fastest|slowest|quickest|trails|trailed|laggard)\b", words
    )
    if not found:
        return None
    w = found[-1].lower()  # its own word, after those of the ranking it continues
    if w in ("trails", "trailed", "laggard"):
        w = "worst"  # "Block 7 is the clear laggard": the worst by the metric
    if w in ("fastest", "quickest", "slowest"):
        if series.duration or less_is_better(series.name):
            return "lowest" if w != "slowest" else "highest"
        return "highest" if w != "slowest" else "lowest"
    less_better = series.duration or bool(less_is_better(series.name))
    if w == "best":
        return "lowest" if less_better else "highest"
    return "highest" if less_better else "lowest"


_VOLUME = re.compile(r"(?i)\b(?:busiest|quietest|busier|quieter)\b")


def _clause(answer: str, sentence: tuple[int, int], at: int) -> tuple[int, int]:
    """The part of a sentence between the semicolons around ``at``: a clause of its own names
    its own metric ("March was the busiest; April had the largest average bill")."""
    begin = answer.rfind(";", sentence[0], at) + 1 or sentence[0]
    end = answer.find(";", at, sentence[1])
    return begin, end if end != -1 else sentence[1]


def _whole_count(text: str, candidates: Sequence[Series]) -> list[Series]:
    """The count no other count of the same rows exceeds in any row, when the claim ranks by
    how busy a row is ("the busiest month" has the most claims, not the most severe ones,
    which are a part of them)."""
    if not _VOLUME.search(text):
        return []
    counts = [s for s in candidates if _counted(s)]
    whole = [s for s in counts if all(_covers(s, o) for o in counts if o is not s)]
    return whole if len(whole) == 1 and len(counts) > 1 else []


def _counted(series: Series) -> bool:
    """Is the series a count: by its unit, or whole numbers of no unit ("COUNT(*)")?"""
    whole = all(f.value.is_integer() for f in series.facts)
    return series.kind == "count" or (series.kind == "number" and whole)


def _covers(whole: Series, part: Series) -> bool:
    """Is ``whole`` at least ``part`` in every row of the one reference both are columns of?"""
    source = whole.facts[0].source
    if any(f.source is not source for f in (*whole.facts, *part.facts)):
        return False
    by_row = {f.position: f.value for f in whole.facts}
    return all(f.position in by_row and by_row[f.position] >= f.value for f in part.facts)


def verify_ranking(
    claim: Claim,
    ctx: AnswerContext,
    facts: Sequence[Fact],
    unverifiable: Verdict,
    figure: tuple[int, str | None] | None = None,
    previous: Claim | None = None,
    figure_unit: Unit | None = None,
    clause_figures: Collection[tuple[tuple[int, str | None], Unit | None]] = (),
    first: tuple[int, str | None] | None = None,
) -> Verdict:
    """A ranking claim's verdict: supported or contradicted only when one series and one
    position in it are what the claim names; ``figure`` is the series of the figure written
    beside it, which names the metric when its words do not (its ``figure_unit`` guesses it
    when the figure agrees with no series); ``previous`` is the ranking written before it,
    whose words a continuation ("followed by X") ranks by; ``clause_figures`` are the series
    (and units) of the figures its own clause states for the entity after it, ``first`` the
    series of the first ("X had the strongest borrowers, averaging 716.7"): that one ranks, and only
    supports when its words name another."""
    text = claim.text
    continued = previous.text + " " if previous and CONTINUING.search(text) else ""
    start, end = claim.span
    mentions = ctx.labels_in(start, end)
    periods = [m.period for m in ctx.periods_in(start, end)]
    entity = mentions[0].key if mentions else None
    period = periods[0] if periods and entity is None else None
    if entity is None and period is None and claim.entity:
        found = label_mentions(claim.entity, ctx.forms)
        entity = found[0].key if found else None
        mentioned = period_mentions(claim.entity)
        period = mentioned[0].period if mentioned and entity is None else None
    clause = ""  # the words before a ranking written without an entity ("42 referrals, the most")
    if entity is None and period is None and not claim.entity:
        entity, period, begin = _apposed_to(claim, ctx, facts)
        clause = ctx.answer[begin:start]
        for m in ctx.periods_in(begin, start):
            clause = clause.replace(ctx.answer[m.start : m.end], " ")
    who = claim.entity or entity or repr(text)
    subject = _SUBJECT.match(text)
    if subject is not None:  # "Bad debt was highest in Metro": bad debt, whatever follows
        said = metric_words(tokens(subject["words"])) - ctx.label_words
        held = frozenset().union(*(f.words for f in facts)) | ctx.question_words
        if said and not said & held:
            return _with(unverifiable, f"it ranks {subject['words']!r}, which nothing held is")
    every = series_of(facts)
    if not every:
        return _with(unverifiable, "no reference lists labelled values to rank")
    if entity is None and period is None:
        if claim.entity:
            return _outside_a_cut(claim, claim.entity, every, ctx, unverifiable)
        return _with(unverifiable, f"{text!r} is not a label of the ranked values")
    candidates = [s for s in every if s.position(entity, period)]
    if not candidates:
        return _outside_a_cut(claim, entity, every, ctx, unverifiable)
    candidates = _timed(claim, candidates)
    told = [s for s in candidates if s.facts[0].series == first]
    named = entity or ""
    clause_end = _CLAUSE_END.search(ctx.answer, end, end + MAX_SENTENCE)
    stop = clause_end.start() if clause_end else end
    next_figure = _NEXT_FIGURE.search(ctx.answer, end, stop)
    stop = next_figure.start("joint") if next_figure else stop
    stretch = continued + ctx.answer[start:stop]
    stretch = re.sub(
        r"(?i)\b(?:per|each|a)\s+\w+(?:\s+\w+)?", " ", stretch
    )  # "labour per repair order"
    # an item of a ranked list ("1. Eastside: 42"): its lead-in is the statement, which names
    # the metric, not the item's other figures
    lead = ranked_list_lead(ctx.answer, ctx.layout, start)
    statement = ctx.answer[
        slice(*(lead or _clause(ctx.answer, ctx.layout.sentence_of(start), start)))
    ]
    if claim.bound == "at_most" or lead:  # a member of a listed top N: the statement names it
        stretch = statement
    label_words = ctx.label_words
    words = set(_words(stretch))
    words -= set(tokens(named)) | set(tokens(claim.entity or "")) | label_words
    words |= set(_VALUE.findall(stretch.lower()))  # "by shipped value": money, no metric word

    cash = _named_by_money(candidates, _words(text), clause_figures)
    candidates = [cash] if cash else candidates
    kinds = {s.kind for s in candidates}

    def score(s: Series) -> tuple[int, bool]:
        # a size superlative hints at a count only when no other word hints at a kind
        hints = words - _SIZE_WORDS
        if not any(hints & _HINTS[kind] for kind in kinds):
            hints = words
        return (len(s.meaning & words) + (s is cash), bool(hints & _HINTS[s.kind]))

    top = max(score(s) for s in candidates)
    specific = metric_words(frozenset(words)) - _GENERIC_RANK_WORDS  # "and December the best"
    figured = [s for s in candidates if s.facts[0].series == figure]
    of_unit = [s for s in candidates if figure_unit and s.kind == family(figure_unit)]
    by_sentence = False
    # its words name none of them, or only what all of them are of ("of any site" beside a
    # site scorecard): the figure beside it names the metric
    common = frozenset.intersection(*(s.meaning for s in candidates))
    unnamed = not (specific - common) and not any((s.meaning - common) & words for s in candidates)
    if unnamed and len(figured) == 1:  # "Retail ranks third at $67.0K"
        candidates, top = figured, score(figured[0])
    elif unnamed and len(of_unit) == 1:  # "… second at $45K": a guess
        candidates, top, by_sentence = of_unit, score(of_unit[0]), True
    counted = _words(clause) - _GENERIC_RANK_WORDS - label_words
    if counted and not any(s.meaning & counted for s in candidates):
        return _with(unverifiable, "the words before it name no metric the references rank")
    alike = len({score(s)[0] for s in candidates}) == 1  # its words tell none apart
    whole = _whole_count(text, candidates) if alike and not specific else []
    if whole:  # "May was the busiest month": the most of everything counted, a guess
        candidates, top, by_sentence = whole, score(whole[0]), True
    # "January was the quietest month, with $6,312 of new MRR": the sentence names one of several
    # series (the only one holding the entity needs no naming)
    if top[0] == 0 and not specific and len(candidates) > 1:
        rest = _words(statement) - _GENERIC_RANK_WORDS - label_words
        best_words = max(len(s.meaning & rest) for s in candidates)
        named_by_sentence = [s for s in candidates if len(s.meaning & rest) == best_words]
        if best_words and len(named_by_sentence) == 1:
            words, by_sentence = words | rest, True  # before scoring: score reads words
            top = score(named_by_sentence[0])
    by_order = _ordered(candidates, specific, ctx.question)
    if top[0] == 0 and specific and len(candidates) > 1:
        # "Harbor Point 3 is the priciest per square foot at $3.52": words naming no column,
        # the figure stated with it names one (a guess, like the reference's order)
        beside = figured or told
        if not _one_of_its_kind(candidates, top, score):
            if len(beside) == 1:
                by_order = beside
            if not by_order:
                return _with(unverifiable, "its words name no metric the references rank")
            candidates, top = by_order, score(by_order[0])
        by_sentence = True  # "Riverside leads on volume": a guess by kind, never an accusation
    chosen = [s for s in candidates if score(s) == top]
    # "the biggest customer by shipped value": a size superlative hints at a count, but ranks
    # any metric, so a series it alone picks out of those its words name alike is a guess
    lost = frozenset().union(*(s.meaning for s in candidates if score(s) == (top[0], False)))
    by_size = top[1] and bool(lost)
    by_size &= not any((words - _SIZE_WORDS) & _HINTS[s.kind] for s in chosen)
    plural = tokens(noun[1]) if (noun := _COUNTED.search(text)) else frozenset()
    by_size &= not (plural and any(plural <= s.meaning for s in chosen))  # "most changeovers"
    chosen = _by_own_words(chosen, words)
    by_sentence = by_sentence or (by_size and not any((s.meaning - lost) & words for s in chosen))
    asked_metric = _asked_metric(ctx.question)
    shared = frozenset.intersection(*(s.meaning for s in candidates))
    undecided = not any((s.meaning - shared) & words for s in chosen)  # by the claim's words
    for asked in (asked_metric, ctx.question_words):
        if len(chosen) > 1 and asked:  # the question names the metric the answer ranks
            named_by_question = [s for s in chosen if (s.meaning - shared) & asked]
            of_one_kind = len({s.kind for s in chosen}) < len(chosen)
            most = max(len(s.meaning & asked) for s in chosen)
            chosen = [s for s in chosen if len(s.meaning & asked) == most]
            # only the question's words name a metric, and several, or one of several of a
            # kind its words cannot tell apart: the one naming most is a guess, which may
            # support but never accuse
            several = len(named_by_question) > 1 or of_one_kind
            guess = asked is not asked_metric and undecided and several
            own = _by_own_words(chosen, asked)  # "Show monthly covers": a guess too
            by_sentence = by_sentence or guess or len(own) < len(chosen)
            chosen = own
    timed = [s for s in candidates if s.duration]
    if words & _LENGTH_WORDS and len(timed) == 1 and not any(s.duration for s in chosen):
        # "the longest outages" ranks how long they last, not how many there are: a guess by
        # kind over the noun, which may support but never accuse
        chosen, by_sentence = timed, True
    if len(chosen) > 1:  # else the reference's headline figure: the column in its own unit
        headline = [s for s in chosen if s.facts[0].unit == s.facts[0].source.unit]
        chosen = headline or chosen
    by_order = _ordered(chosen, specific, ctx.question) if len(chosen) > 1 else by_order
    if len(chosen) > 1 and by_order:  # "Collision was the biggest line": the reference's order
        chosen, by_sentence = by_order, True
    if len(chosen) != 1:
        return _with(unverifiable, "several reference metrics could be the one ranked")
    series = chosen[0]
    if top == (0, False) and specific:
        if not any(s is series for s in by_order):
            return _with(unverifiable, "its words name no metric the references rank")
        by_sentence = True
    # its words name one column, the figure stated with it another and none of its clause
    # the words' ("the strongest approved borrowers, averaging 716.7"): the figure's ranks,
    # unless a word of a kind other than size fits the words' one only ("the highest denial
    # rate (2 of 19, 11.8%)")
    kinded = words - _SIZE_WORDS
    worded = ""  # the column its words name, when the figure beside it names another
    if (
        told
        and all(series.facts[0].series != other for other, _ in clause_figures)
        and not (kinded & _HINTS[series.kind] and not kinded & _HINTS[told[0].kind])
    ):
        worded, series, by_sentence = series.name, told[0], True
    if _BY_COUNT.search(stretch) and series.kind != "count":
        of_counts = [s for s in candidates if s.kind == "count"]
        if len(of_counts) != 1:
            return _with(unverifiable, f"it ranks by a count, which {series.name} is not")
        series, by_sentence = of_counts[0], True  # "the most refunds by count": the one count
    rated = words & _RATE_STEMS or _PART_OF_WHOLE.search(stretch) or _INTENSITY.search(text)
    if rated and series.kind != "rate" and not series.meaning & _RATE_STEMS:
        return _with(unverifiable, f"it ranks a rate, which {series.name} is not")
    direction = _direction(claim, series, statement if lead else continued + text)
    if direction is None:
        return _with(unverifiable, "the ranking's direction depends on the metric")
    members = list(series.facts)
    passed = _ranked_after(claim, ctx)
    if passed is not None:  # "the most orders after consumer goods": first among the rest
        members = [f for f in members if not any(_is_named(f, named) for named in passed)]
        if not passed or len(members) == len(series.facts):
            return _with(unverifiable, "it ranks after something no ranked value is for")
    relative = _RELATIVE.search(ctx.answer[start : end + 20])
    if relative:
        listed = ctx.label_keys
        members = [f for f in members if f.labels & listed or f.scope & listed]
        if len(members) < 2:
            return _with(unverifiable, "the entities it is ranked among are not all named")
    elif _BACK_REFERRED.search(ctx.answer[start : end + 20]):
        members = _referred_back(members, claim, ctx)
        if len(members) < 2:
            return _with(unverifiable, "the group it is ranked among names too few ranked values")
    where = Series(members, series.meaning, series.duration, series.rate).position(entity, period)
    if len(where) != 1:
        return _with(unverifiable, f"{who} names several ranked values")
    value = members[where[0]].value
    values = [f.value for f in members]
    ahead, ties = _place(value, values, direction)
    rank = int(claim.value or 1)
    holds = _holds(claim, ahead, ties)
    ordered = sorted(members, key=lambda f: f.value, reverse=direction == "highest")
    listing = ", ".join(f"{f.describe()} = {fmt_value(f.value)}" for f in ordered[:_MAX_EVIDENCE])
    stated = f"within the {direction} {rank}" if claim.bound == "at_most" else f"#{rank}"
    others = " others" if passed else ""  # "after X": ranked among the others
    reason = (
        f"{who} ranks #{ahead + 1} of {len(values)}{others} by {direction} value "
        f"(claimed {stated}): {listing}"
    )
    in_answer = [f for f in members if f.labels & ctx.label_keys]
    as_asked = entity is not None and _asked_size(ctx.question) == len(in_answer)
    scopes: list[tuple[list[Fact], str]] = [
        (in_answer if as_asked else [], "question asks for"),
        (_tabled(members, ctx), "answer's table lists"),
    ]
    for shown, by in scopes:
        among = 1 < len(shown) < len(values) and any(f is members[where[0]] for f in shown)
        if among and holds != _holds(claim, *_place(value, [f.value for f in shown], direction)):
            return _with(
                unverifiable,
                f"it may rank among the {len(shown)} the {by}, where it does not hold as "
                f"among all; {reason}",
            )
    if not holds and worded:
        why = f"its words name {worded}, the figure stated with it {series.name}"
        return _with(unverifiable, f"{why}; {reason}")
    subset = None if holds else _ranked_within(claim, ctx, members)
    if subset is not None:  # what holds among all holds within a part, not the other way
        why = f"it is ranked within {subset!r}, rows the references do not tell apart"
        return _with(unverifiable, f"{why}; {reason}")
    if not holds and by_sentence:  # the sentence may name several metrics: no accusation
        return _with(
            unverifiable,
            f"the metric is named only by its sentence or the question; {reason}",
        )
    polar = claim.direction is None and not series.duration  # "Tuesday was worst"
    if not holds and polar and not polarity_known(series.facts[0].column or series.name):
        why = f"whether a higher {series.name} is better is not known; {reason}"
        return _with(unverifiable, why)
    return Verdict(
        claim_id=claim.id,
        verdict="supported" if holds else "contradicted",
        reason=reason,
        evidence=[f.evidence() for f in ordered[:_MAX_EVIDENCE]],
    )


_WITHIN = re.compile(
    r"\b(?i:of|among|amongst)\s+(?i:the|our|its|their|all)\s+"
    r"(?P<qualifier>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?P<noun>[a-z][\w-]*s)\b"
)
"""A part of the rows a ranking is within: "Of the full-year stores, X was lowest"."""


def _ranked_within(claim: Claim, ctx: AnswerContext, members: Sequence[Fact]) -> str | None:
    """The words before the claim in its sentence that rank it within a part of the rows,
    qualified by words no ranked fact holds ("of the full-year stores"), if any."""
    start = ctx.layout.sentence_of(claim.span[0])[0]
    held = frozenset().union(*(f.words for f in members))
    for found in _WITHIN.finditer(ctx.answer, start, claim.span[1]):
        qualifier = tokens(found.group("qualifier")) - _COMMON_QUALIFIERS
        if qualifier and not qualifier & held:
            return found.group(0)
    return None


_COMMON_QUALIFIERS = tokens(
    "other remaining listed above below top bottom biggest largest two three four five six "
    "seven eight nine ten twelve"
)
"""Words of a group that are no part of the rows: "of the other sites", "of the five sites"."""


_AFTER = re.compile(
    r"\b(?i:after|behind|apart\s+from|other\s+than|besides|except(?:\s+for)?|excluding)\s+"
    r"(?:(?i:the|only)\s+)?"
)
"""What a first place is counted after: "the most orders after consumer goods" is the most of
the others, so second."""
_OUTSIDE = re.compile(r"\s*(?:\([^()\n]*\)\s*)?,?\s*")
_LIST_JOINT = re.compile(r"\s*(?:,|(?:,\s*)?(?i:and|&))\s*")


def _ranked_after(claim: Claim, ctx: AnswerContext) -> list[str | Period] | None:
    """The labels and periods a first place is counted after ("the most … after A and B",
    "… (272) behind A"), in the claim or right after it; None when it names none such, an
    empty list when it does so by words that name no label or period. An ordinal counts
    them already ("second after A")."""
    start, end = claim.span
    if int(claim.value or 1) != 1 or claim.bound is not None:
        return None
    found = _AFTER.search(ctx.answer, start, end)
    if found is None:
        outside = _OUTSIDE.match(ctx.answer, end)
        found = _AFTER.match(ctx.answer, outside.end()) if outside else None
    if found is None:
        return None
    named: list[tuple[int, int, str | Period]] = sorted(
        [(m.start, m.end, m.key) for m in ctx.labels_in(found.end(), found.end() + MAX_SENTENCE)]
        + [
            (m.start, m.end, m.period)
            for m in ctx.periods_in(found.end(), found.end() + MAX_SENTENCE)
        ],
        key=lambda m: m[0],
    )
    out: list[str | Period] = []
    at = found.end()
    for begin, stop, what in named:
        if begin != at and not (out and _LIST_JOINT.fullmatch(ctx.answer, at, begin)):
            break
        out.append(what)
        at = stop
    return out


def _referred_back(members: Sequence[Fact], claim: Claim, ctx: AnswerContext) -> list[Fact]:
    """The ranked values a back-reference ("of those months") points to: those of the labels
    and periods its sentence names before the claim ("across January–June, with March the
    busiest of those months" → the six months), the claim's own entity left out."""
    begin = ctx.layout.sentence_of(claim.span[0])[0]
    start = claim.span[0]
    named: list[str | Period] = [m.key for m in ctx.labels_in(begin, start)]
    named += [m.period for m in ctx.periods_in(begin, start)]
    return [f for f in members if any(_is_named(f, n) for n in named)]


def _is_named(fact: Fact, named: str | Period) -> bool:
    """Is the fact the ranked value of a label or period ``named``?"""
    if isinstance(named, str):
        return fact.is_for(named)
    return fact.row_period is not None and fact.row_period.within(named)


def _tabled(members: Sequence[Fact], ctx: AnswerContext) -> list[Fact]:
    """The ranked values whose label or row period the answer's table lists: an answer
    tabling some rows ("the first half of the year") ranks among the rows it shows."""
    keys = {m.key for m in ctx.labels if ctx.layout.cell_of(m.start) is not None}
    periods = {m.period for m in ctx.periods if ctx.layout.cell_of(m.start) is not None}
    return [f for f in members if f.labels & keys or f.row_period in periods]


def _asked_size(question: str) -> int | None:
    """How many entities the question asks for ("Which five adjusters…" → 5), if it says."""
    found = _ASKED_SIZE.search(question)
    size = found.group("n").lower() if found else ""
    return int(size) if size.isdigit() else parse_word_number(size) if size else None


def _place(value: float, values: Sequence[float], direction: str) -> tuple[int, int]:
    """(how many values come before ``value`` in the ordering, how many tie with it)."""
    ahead = sum((v > value) if direction == "highest" else (v < value) for v in values)
    return ahead, sum(v == value for v in values) - 1


def _holds(claim: Claim, ahead: int, ties: int) -> bool:
    """Is the claim's rank (or its "within the top N") the place ``ahead`` and ``ties`` give?"""
    rank = int(claim.value or 1)
    return ahead + 1 <= rank if claim.bound == "at_most" else ahead + 1 <= rank <= ahead + 1 + ties


def _by_own_words(chosen: list[Series], words: Collection[str]) -> list[Series]:
    """Of series named alike, the one whose own column the words name: "covers" names the
    ``covers`` column of ``monthly_covers``, not its ``reservations``."""
    own = [s for s in chosen if s.facts[0].own_meaning & set(words)]
    return own if len(own) == 1 else chosen


def _ordered(candidates: Sequence[Series], words: frozenset[str], question: str) -> list[Series]:
    """The one candidate its SQL reference orders its rows by ("ORDER BY leads DESC"), when the
    claim's words name nothing the question does not ("Parkside lost the most" answering "how
    many room nights were lost…"): the ranking the reference was written to show. A guess by
    the reference, which may support but never accuse."""
    if not words <= tokens(question):
        return []
    ordered = [s for s in candidates if _orders_by(s)]
    return ordered if len(ordered) == 1 else []


def _orders_by(series: Series) -> bool:
    """Does the one SQL reference holding the series order its rows by the series' column?"""
    source, column = series.facts[0].source, series.facts[0].column
    if column is None or any(f.source is not source for f in series.facts):
        return False
    sql = source.reference.sql if source.reference.kind == "sql" else None
    return bool(sql) and (_order_column(sql or "") or "").casefold() == column.casefold()


@functools.lru_cache(maxsize=1024)
def _order_column(sql: str) -> str | None:
    """The column a query orders its rows by first ("ORDER BY leads DESC, source" → leads)."""
    try:
        tree = sqlglot.parse_one(sql)
    except sqlglot.errors.ParseError:
        return None
    order = tree.args.get("order")
    first = order.expressions[0].this if order and order.expressions else None
    return first.name if isinstance(first, exp.Column) else None


def _words(text: str) -> frozenset[str]:
    """The words of ``text`` without its figures ("$196.6K" gives "196" and "6k", "1.8x"
    gives "8x"): a figure names no metric. A word in mixed case is read whole too ("GrossMargin"
    is also "grossmargin"), as a column names it."""
    words = tokens(text) | tokens(text.lower())
    return frozenset(w for w in words if not _FIGURE.fullmatch(w))


def _named_by_money(
    candidates: Sequence[Series],
    words: Collection[str],
    figures: Collection[tuple[tuple[int, str | None], Unit | None]],
) -> Series | None:
    """The one series of money when the claim's own words say money and name no column
    ("moved the most money"): a column in a currency, or one a figure of its clause states in
    one ("31 loans totalling $515,550"); of several in a currency, the one stated so."""
    if not _MONEY_NOUNS & set(words) or any(s.meaning & set(words) for s in candidates):
        return None
    in_currency = [s for s in candidates if (s.facts[0].series, "currency") in figures]
    money = [s for s in candidates if s.kind == "money" or s in in_currency]
    if len(money) > 1:
        money = [s for s in money if s in in_currency]
    return money[0] if len(money) == 1 else None


def _one_of_its_kind(
    candidates: Sequence[Series], top: tuple[int, bool], score: Callable[[Series], tuple[int, bool]]
) -> bool:
    """Do the claim's words, naming no series, still hint at the kind of exactly one ("volume"
    a count, "cheapest" money, "fastest" a duration)?"""
    return top[1] and sum(score(s) == top for s in candidates) == 1


_APPOSITION = re.compile(r"[,;(—–]|\b(?:and|to|then|while|whereas)\b")


def _apposed_to(
    claim: Claim, ctx: AnswerContext, facts: Sequence[Fact]
) -> tuple[str | None, Period | None, int]:
    """(label, period, where its words start) of a ranking written without an entity
    ("Eastside, the smallest", "42 referrals, the most"): the row its clause names, else the
    row its line or sentence names, none when they name several rows or periods; the clause
    names the metric too ("referrals")."""
    start = claim.span[0]
    sentence, line = ctx.layout.sentence_of(start), ctx.layout.line_of(start)
    head = max(sentence[0], line[0])
    cuts = [m.end() for m in _APPOSITION.finditer(ctx.answer, head, start)][:-1]
    for begin in (cuts[-1] if cuts else head, head):
        labels = [m.key for m in ctx.labels_in(begin, start)]
        periods = {m.period for m in ctx.periods_in(begin, start)}
        if labels and any(set(labels) <= f.labels | f.scope for f in facts):
            return labels[0], None, begin  # one row's labels ("Pier Grill (Boston)")
        if len(periods) == 1 and not labels:
            return None, next(iter(periods)), begin
        if labels or periods:
            break
    return None, None, start


def _outside_a_cut(
    claim: Claim,
    entity: str | None,
    every: Sequence[Series],
    ctx: AnswerContext,
    unverifiable: Verdict,
) -> Verdict:
    """An entity missing from a reference that lists only the top (or bottom) N of an ordering
    is not ranked within those N, unless the claim ranks it within a group nothing else names
    ("the top soft drink" beside the top three drinks)."""
    rank = int(claim.value or 1)
    for series in every:
        values = [f.value for f in series.facts]
        cut = cut_short(series.facts)
        descending = all(a >= b for a, b in itertools.pairwise(values))
        ascending = all(a <= b for a, b in itertools.pairwise(values))
        order = "highest" if descending else "lowest" if ascending else None
        if cut and order == claim.direction and rank <= len(values) and entity is not None:
            if _narrowed(claim, every, ctx):
                return _with(unverifiable, "it ranks within a group the references do not name")
            listing = ", ".join(f"{f.describe()} = {fmt_value(f.value)}" for f in series.facts)
            among = f"is not among the {len(values)} the reference lists"
            return Verdict(
                claim_id=claim.id,
                verdict="contradicted",
                reason=f"{claim.entity} {among}: {listing}",
                evidence=[f.evidence() for f in series.facts[:_MAX_EVIDENCE]],
            )
    return _with(unverifiable, f"{claim.entity!r} is not a label of the ranked values")


_AFTER_SUPERLATIVE = re.compile(rf"(?i)\b(?:{SUPERLATIVE})\b(?P<group>.*)$")


def _narrowed(claim: Claim, every: Sequence[Series], ctx: AnswerContext) -> bool:
    """Do the words after the claim's superlative name a group by a word that no reference
    (its metrics, labels, params) and not the question holds?"""
    found = _AFTER_SUPERLATIVE.search(claim.text)
    group = tokens(found.group("group")) - _GENERIC_RANK_WORDS if found else frozenset()
    known = ctx.question_words.union(*(s.meaning for s in every))
    for series in every:
        for fact in series.facts:
            known |= tokens(" ".join([*fact.names, *fact.scope]))
    return bool(group - known)


def _with(verdict: Verdict, reason: str) -> Verdict:
    return verdict.model_copy(update={"reason": reason})


__all__ = ["Evidence", "key", "verify_ranking"]
