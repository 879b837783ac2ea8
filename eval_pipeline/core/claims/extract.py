"""First oracle pass: enumerate every claim of an answer into a contract (C1, C2, …).

A number is a claim unless it only qualifies what is said: a date or period ("in 2025",
"2026-03", "Q3", "the week of 16 November"), an id ("ID 2", "S-00042"), a list marker or a rank
column ("1."), a scale anchor ("out of 5"), a number inside a name ("Route 66 Motors", "Model 3",
"Suite 200", "Boeing 737-800"), a table's header or a band labelling its row ("1-50", "6+"),
a band of the things a count counts ("4 that are 30+ days past due"), contact details, or a
criterion the question set ("over 30 minutes", "top 5").
A number the question states as a value is still a claim when the answer states it, and so is
the threshold of a yes/no question ("Did we sell more than 2,400?") that the answer compares
the metric with ("just over the 2,400 mark"): a bound on its value. Missing a
claim hides an error; inventing one can accuse a right answer, so each filter is specific and
everything else stays a claim.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import replace

from eval_pipeline.core.claims.bands import band_numbers
from eval_pipeline.core.claims.layout import (
    Covered,
    Layout,
    plain,
    search_before,
    sentence_spans,
)
from eval_pipeline.core.claims.names import name_numbers
from eval_pipeline.core.claims.numbers import (
    HEDGE_BEFORE,
    MONTHS,
    WORD_VALUES,
    ParsedNumber,
    names_limit,
    scan_fractions,
    scan_multiples,
    scan_numbers,
)
from eval_pipeline.core.claims.ranking_phrases import ranking_claims
from eval_pipeline.core.models import Claim, ClaimContract

__all__ = ["extract_claims", "non_claim_spans", "sentence_spans"]

_ORDINAL_SUFFIX = r"(?:st|nd|rd|th)"
_NOT_CLAIMS = re.compile(
    "|".join(
        (
            r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+",  # email
            r"(?i:https?://|www\.)\S+",  # URL
            r"\b\d{4}-\d{1,2}(?:-\d{1,2})?(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b",  # ISO date / month
            r"\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}/\d{1,2}(?:/\d{1,2})?\b",  # other dates
            rf"\b\d{{1,2}}{_ORDINAL_SUFFIX}?\s*[–—-]\s*\d{{1,2}}{_ORDINAL_SUFFIX}?"
            rf"\s+(?:of\s+)?{MONTHS}",  # 3–9 May
            rf"\b{MONTHS}\s+\d{{1,2}}{_ORDINAL_SUFFIX}?\s*[–—-]\s*\d{{1,2}}\b",  # May 3–9
            rf"\b{MONTHS}\s+\d{{1,2}}{_ORDINAL_SUFFIX}?\b(?:,?\s+\d{{4}}\b)?",  # March 1, 2026
            rf"\b\d{{1,2}}{_ORDINAL_SUFFIX}?\s+(?:of\s+)?{MONTHS}(?:,?\s+\d{{4}}\b)?",  # 1 March
            rf"\b\d{{1,2}}{_ORDINAL_SUFFIX}?(?:,\s*\d{{1,2}}{_ORDINAL_SUFFIX}?)*,?\s+(?:and|to|or|&)"
            rf"\s+\d{{1,2}}{_ORDINAL_SUFFIX}?\s+(?:of\s+)?{MONTHS}",  # 3, 10 and 17 November
            rf"\b{MONTHS},?\s+\d{{4}}\b",  # March 2026
            r"\b(?:Q[1-4]|H[12])\s+\d{4}\b|\b\d{4}\s+(?:Q[1-4]|H[12])\b",  # Q3 2025
            r"\b\d{1,2}:\d{2}(?::\d{2})?\b",  # time of day
            rf"\b\d+{_ORDINAL_SUFFIX}\b",  # 1st, 22nd
            r"#\s?\d+|\bNo\.\s?\d+|\b(?i:rank(?:ed)?|position|place)\s+#?\d+",  # ranks
            r"\b(?i:ids?|codes?|ref|no|number|num|badge|order|invoice|ticket|case)\s*[#:]?\s*\d+\b",
            r"\b[A-Za-z]+[-_/#]?\d[\w-]*"  # identifiers, Q3, FY2025, CX-5
            r"|\b\d+[-_](?!(?i:points?|percentage|minutes?|hours?|days?|weeks?|seconds?)\b)"
            r"[A-Za-z][\w-]*",
            r"(?<![\d.,])\b0\d+\b(?![.,]\d)",  # zero-padded ids
            r"\b\d+(?:\s+[A-Z][a-z]+)+\s+(?:Rd|Road|St|Street|Ave|Avenue|Blvd|Boulevard|Dr|Drive|"
            r"Ln|Lane|Way|Plaza|Pkwy|Parkway|Hwy|Highway|Ct|Court|Pl|Place|Sq|Square)\b\.?",
            r"\b(?:Suite|Ste|Unit|Floor|Room|Bldg|Building|Gate|Terminal|Pier|Dock|Hall|Wing|"
            r"Store|Branch|Plant|Station|Route|Model|Series|Version|Phase|Type|Class|Level|Zone|"
            r"Lot|Block|Aisle|Bay|Flight|Interstate)\s+\d+\b",  # names with a number
            r"\b(?i:on\s+an?|on\s+the)\s+\d+[-\s](?i:point|star)\s+(?i:scale)\b",  # 5-point scale
            r"\b\d{1,2}\s+or\s+\d{1,2}\b(?!\s*(?:%|[.,]\d|(?i:percent|points?)))"
            r"(?=\s*(?:[.,;:)—–]|$|\s+(?i:out\s+of|on|stars?|ratings?|scores?|responses?|were|was|"
            r"and|or|gave|from)\b))",  # a 4 or 5
            r"\b(?i:a|an|perfect|score\s+of|rated|rating\s+of)\s+\d{1,2}(?:\s+or\s+\d{1,2})?\b"
            r"(?![.,]\d)(?=\s*(?:[.,;:()—–]|$|"
            r"\s+(?i:or|and|out|on|stars?|ratings?|scores?|from)\b))",  # a 5
            r"\b[01]\s*[-–]\s*\d{1,3}\b(?=(?:\s+[a-z-]+){0,2}\s+(?i:scale|surveys?|ratings?|"
            r"scores?|stars))|\(\s*[01]\s*[-–]\s*\d{1,3}\s*\)",  # the 1–5 scale
        )
    )
)
_SMALL_WORDS = r"(?i:two|three|four|five|six|seven|eight|nine|ten)"
_QUALIFIERS = re.compile(
    "|".join(
        (
            r"\b(?i:last|past|next|previous|prior|trailing|rolling|first)\s+\d+\s+"
            r"(?i:days?|weeks?|months?|quarters?|years?)\b",  # period qualifiers
            r"\b\d+-(?i:day|week|month|quarter|year)s?\b",  # "30-day"
            r"\b\d+(?:\.\d+)?[-\s](?i:minutes?|hours?|days?|weeks?|percent|%|points?)\s+"
            r"(?i:target|goal|threshold|limit|window|sla|standard|benchmark|cutoff|cut-off|"
            r"(?:pass(?:ing)?\s+)?mark|pass\s+line|bar)\b",
            rf"\b(?i:top|bottom)\s+(?:\d+|{_SMALL_WORDS})\b",  # ranking qualifiers
            rf"\b(?i:of|among)\s+(?:(?<!\d\sof\s)the|these|those|all)\s+(?:\d{{1,2}}|{_SMALL_WORDS})\b"
            r"(?![,.]\d)"
            r"(?=\s*(?:[.,;:)!?]|$|\s+[a-z]+s\b))",  # "lowest of the four", not "59 of the 89"
            rf"\b(?i:the|these|those|all|both)\s+{_SMALL_WORDS}\s+[a-z][\w-]*s\b",  # the five reps
            r"\b(?i:week|wk|quarter|period|month|day)\s+\d{1,2}\b",  # "week 12"
            r"\b(?i:a|an|the|our|its|their)\s+\d+(?:[.,]\d+)?\s*(?:%|(?i:percent))?\s+"
            r"(?i:target|goal|threshold|cutoff)\b",
            r"\b(?i:target|goal|threshold|cutoff|quota|standard|sla|benchmark)\s+(?i:is|was|of|at|"
            r"stands\s+at)\s+"
            r"(?:[$€£]\s?)?\d+(?:[.,]\d+)*\s*(?:%|(?i:percent|[kmb]\b))?",  # "target is 90%"
            r"(?:\b(?i:the|our|its|their|this|that|next|last)|['’]s)\s+(?:19|20)\d\d(?=\s+[a-z])",
        )
    )
)
_PHONE = re.compile(
    r"(?<![\w.,])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)\s?)?"
    r"(?:\d{3}\.\d{3}\.\d{4}|\d{2,4}(?:[\s-]\d{2,4}){1,4})(?![\w.]?\d)"
)
_MIN_PHONE_DIGITS = 7


def _rank_columns(layout: Layout) -> list[tuple[int, int]]:
    """Cells of a table column headed "#", "Rank", "No." or "Pos": positions, not claims."""
    spans = []
    for table in layout.tables:
        ranked = {
            i
            for i, head in enumerate(table.header)
            if re.fullmatch(
                r"#|(?i:rank|no\.?|pos(?:ition)?|place|n[°º]|id|ids|code|ref|number|num)",
                head.strip(),
            )
        }
        spans += [(c.start, c.end) for row in table.rows for c in row.cells if c.column in ranked]
    return spans


_BAND_CELL = re.compile(
    r"[*_]*(?:[<>≤≥]\s*)?\d[\d,]*(?:\s*[-–]\s*\d[\d,]*|\+)?(?:\s*[a-z]+\+?)?[*_]*"
)
"""A row label that is a band or a level: "1-50", "1000+", "6 km+", "5 stars", "<3 km"."""


def _key_cells(layout: Layout) -> list[tuple[int, int]]:
    """Numbers that name a table's columns or rows, not values: the header line ("Avg quiz
    (/100)", "Late (>45 min)"), and the first column when it holds bands or levels ("1-50",
    "6+", "5 stars") or counts up one by one ("1", "2", "3"), as party sizes or hours do."""
    spans = []
    for table in layout.tables:
        spans.append(table.head)
        firsts = [row.cells[0] for row in table.rows if len(row.cells) >= 2]
        steps = [re.fullmatch(r"\d{1,3}\+?", c.text) for c in firsts]
        ints = [int(c.text.rstrip("+")) for c in firsts if re.fullmatch(r"\d{1,3}\+?", c.text)]
        counting = (
            len(firsts) >= 3 and all(steps) and all(b == a + 1 for a, b in itertools.pairwise(ints))
        )
        for cell in firsts:
            band = _BAND_CELL.fullmatch(cell.text) and re.search(r"[-–+<>≤≥a-z]", cell.text)
            if counting or band:
                spans.append((cell.start, cell.end))
    return spans


_ASKS_PER_MONTH = re.compile(
    r"\b(?i:by|per|each|every|a)\s+(?i:calendar\s+)?month\b|\b(?i:monthly)\b"
)
_MONTH_VALUE = re.compile(
    rf"\b(?P<month>{MONTHS})\s+\d{{1,2}}\b(?![,.]?\s*\d{{4}}\b|{_ORDINAL_SUFFIX})"
)
_MONTH_ORDER = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MIN_SERIES = 3


def _monthly_values(text: str, question: str) -> set[int]:
    """Starts of "January 26, February 23, March 18": a value per month in a run of three or
    more consecutive months, when the question asks for figures by month (not the days of a
    monthly schedule, which a question by month does not ask for)."""
    if not _ASKS_PER_MONTH.search(question):
        return set()
    found = [
        (m.start(), m.end(), _MONTH_ORDER.index(m.group("month")[:3].lower()))
        for m in _MONTH_VALUE.finditer(text)
    ]
    starts: set[int] = set()
    run: list[tuple[int, int, int]] = []
    for item in [*found, None]:
        joined = (
            item is not None
            and run
            and item[2] == (run[-1][2] + 1) % 12
            and re.fullmatch(r"[,;]?\s*(?:and\s+)?", text[run[-1][1] : item[0]])
        )
        if not joined:
            if len(run) >= _MIN_SERIES:
                starts.update(start for start, _, _ in run)
            run = []
        if item is not None:
            run.append(item)
    return starts


def non_claim_spans(
    text: str, *, qualifiers: bool = True, layout: Layout | None = None, question: str = ""
) -> list[tuple[int, int]]:
    """Spans of ``text`` that hold numbers which are never claims (dates, ids, contacts, names,
    list markers…), and with ``qualifiers`` the ones that only scope a statement ("last 6
    months", "top 5", "the 20-minute target")."""
    layout = layout or Layout(text)
    monthly = _monthly_values(text, question)
    spans = [m.span() for m in _NOT_CLAIMS.finditer(text) if m.start() not in monthly]
    if qualifiers:
        spans += [m.span() for m in _QUALIFIERS.finditer(text)]
    spans += [
        m.span()
        for m in _PHONE.finditer(text)
        if sum(ch.isdigit() for ch in m.group()) >= _MIN_PHONE_DIGITS
    ]
    spans += [item.marker for item in layout.items if item.marker is not None]
    spans += scale_anchors(text)
    spans += _rank_columns(layout)
    spans += _key_cells(layout)
    spans += name_numbers(text, question, layout)
    return spans


_YEAR_BEFORE = re.compile(
    r"\b(?i:in|since|during|of|for|from|to|until|till|by|before|after|through|between|and|"
    r"year|fiscal|early|mid|late|end\s+of|start\s+of|vs\.?|versus|on|over|across|than|most|"
    r"fewest|least|highest|lowest|largest|smallest|biggest|best|worst)\s+$"
    r"|[(,–—-]\s*$"
)
"""Words a year follows: prepositions, and superlatives ("the most 2024 claims": a count
never follows one)."""
_YEAR_AFTER = re.compile(
    r"(?:['’]s\b|\s+(?i:total|totals|figures?|results?|numbers?|levels?|average|budget|target|"
    r"plan|programme|program|cohort|survey|surveys|sales|revenue|data|leads?|visits?|rate)\b"
    r"|\s*[),:;–—]|\s+(?i:and|to|vs)\b)"
)
_COUNTED_AFTER = re.compile(
    r"\s+(?!(?i:was|were|is|has|had|saw|will|did|with|and|in|at|on|for|to|as|by|from|when|"
    r"while|vs|versus|than|so|but|or|the|a|an|its|their|our)\b)[A-Za-z]"
)
_ASKS_FOR_YEAR = re.compile(r"\b(?i:which|what)\s+(?i:calendar\s+|fiscal\s+)?(?i:year)\b")


_PERIOD_BEFORE = re.compile(rf"(?:\b{MONTHS}|\b(?:Q[1-4]|H[12]|FY))\s*$")
_YEAR_TOKEN = re.compile(r"(?<![\d.,$€£-])\b(?:19|20)\d\d\b(?![.,]\d|%)")


def _year_shaped(number: ParsedNumber) -> bool:
    return (
        number.core.isdigit()
        and len(number.core) == 4
        and 1900 <= number.value <= 2100
        and number.unit == "count"
        and not number.scaled
    )


def _dated(text: str, start: int, end: int) -> bool:
    """Words around a year-shaped number that make it a year: "in 2024", "March 2025",
    "2024's", "2024 revenue"."""
    return bool(
        search_before(_YEAR_BEFORE, text, start, 40)
        or _PERIOD_BEFORE.search(text, max(0, start - 12), start)
        or _YEAR_AFTER.match(text, end)
    )


def _years_written(text: str, question: str) -> set[int]:
    """Years the question or the answer writes as years ("in 2024", "Q1 2025"): the same
    number elsewhere ("settled 2024 claims", "2024 started slowly") is that year too."""
    return {
        int(m.group())
        for source in (text, question)
        for m in _YEAR_TOKEN.finditer(source)
        if _dated(source, m.start(), m.end())
    }


def _is_year(number: ParsedNumber, text: str, years: set[int]) -> bool:
    """A plain 4-digit number from 1900 to 2100 is a year when the question or the answer
    writes it as one elsewhere; otherwise, unhedged and unbounded, unless it counts something
    that follows it ("2000 items are completed") and no date word comes before it."""
    if not _year_shaped(number):
        return False
    if number.value in years:
        return True  # "well above 2023" beside "in 2023"
    if number.hedged or number.bound:
        return False
    if _dated(text, number.numeral_start, number.numeral_end):
        return True
    return _COUNTED_AFTER.match(text, number.numeral_end) is None


def _is_pronoun_one(number: ParsedNumber, text: str) -> bool:
    """'one of the…', 'the one with…': a bare "one" is almost never a stated figure, unless it
    starts a share ("one in 8")."""
    return (
        number.in_words
        and number.core.lower() == "one"
        and number.unit == "count"
        and not _SHARE_AHEAD.match(text, number.numeral_end)
        and not _ONE_NOUN_IN.match(text, number.numeral_end)
    )


_SCALE_BEFORE = re.compile(r"(?:\d\.\d+|\b(?:a|an)\s+\d+|\b\d+\s+or\s+\d+)\s*$")
_OUT_OF = re.compile(r"\b(?i:out\s+of)\s+(?P<n>10|[1-9]|100)\b(?![.,]?\d|\s*%)")
"""A scale has at most 10 points, or 100 ("84 out of 198 total" is a share)."""
_ANCHOR_ALONE = re.compile(
    r"\(\s*(?i:out\s+of|of|/)\s*(?P<n>\d+)\s*\)"  # "(out of 100)", "(/5)"
    r"|\b(?i:per|for\s+every)\s+(?P<base>100|1,000|10,000|100,000)\b"
)
"""A scale or a base on its own, beside no value: "71.8 (out of 100)", "claims per 100
policies:" in a heading (a rate's base right after its value merges into the rate)."""


_SCALE_POINTS = re.compile(
    r"\b(?i:rated|rating|scored|scoring|gave|giving)\b(?:\s+[a-z]+){0,2}\s+(?P<n>10|[1-9])"
    r"\s+or\s+(?i:lower|higher|better|worse|above|below|less|more)\b"  # scored us 4 or better
    r"|\b(?P<stars>10|[1-9])[\s-]stars?\s+or\s+(?i:lower|higher|better|worse|above|below)\b"
    r"|\d[\d,]*\s+(?i:are|were)\s+(?P<level>[1-5])[\s-]stars?\b"  # 425 are 5 stars
)
"""A point of a rating scale that sets which responses are counted, not a value."""


def scale_anchors(text: str) -> list[tuple[int, int]]:
    """The N of "4.5 out of 5", "a 4 or 5 out of 5", "scored 4 out of 5", "(out of 100)", a
    lone "per 1,000": the scale or base, not a claim (unlike "3 out of 10 patients", a share);
    and the points that pick responses ("scored 4 or better", "425 are 5 stars")."""
    spans = [m.span() for m in _ANCHOR_ALONE.finditer(text) if _alone(text, m)]
    spans += [
        next(m.span(g) for g in ("n", "stars", "level") if m.group(g))
        for m in _SCALE_POINTS.finditer(text)
    ]
    for m in _OUT_OF.finditer(text):
        before = text[max(0, m.start() - 40) : m.start()]
        part = _PART_BEFORE.search(before)
        hedged = part is not None and HEDGE_BEFORE.search(before[: part.start()]) is not None
        if _SCALE_BEFORE.search(before) or _scored(before, hedged=hedged):
            spans.append(m.span("n"))
    return spans


_PART_BEFORE = re.compile(r"\d+\s+$")
_RATE_BEFORE = re.compile(r"\d%?\s+(?:[A-Za-z][\w-]*\s+){0,3}$")


def _alone(text: str, m: re.Match[str]) -> bool:
    """A "per 1,000" base with no rate before it in the words that may join them."""
    return m.group("base") is None or not _RATE_BEFORE.search(
        text, max(0, m.start() - 60), m.start()
    )


_CLAUSE_BREAK = re.compile(r".*(?:[,;(]|\s[—–-]\s|[.!?]\s)", re.DOTALL)


def _scored(before: str, *, hedged: bool) -> bool:
    """Score words before "N out of M" make it a score on a scale, unless they belong to an
    earlier clause and the part is hedged: in "74.3% scored 4 or 5, so roughly 3 out of 4
    customers left satisfied" it is a share, while "the rating, overall, was 4 out of 5" stays
    a score."""
    if not hedged:
        return _SCORE_WORDS.search(before) is not None
    m = _CLAUSE_BREAK.match(before)
    return _SCORE_WORDS.search(before[m.end() :] if m else before) is not None


# --------------------------------------------------------------------------- the question

_CRITERION_BEFORE = re.compile(
    r"\b(?i:more\s+than|less\s+than|fewer\s+than|over|under|above|below|within|at\s+least|"
    r"at\s+most|exceeding|beyond|top|bottom|which|what\s+are\s+the|the|list|name|show|first|"
    r"last|past|next)\s+(?:the\s+)?$"
)


_PASSED_BEFORE = re.compile(
    r"\b(?i:clear(?:s|ed|ing)?|top(?:s|ped|ping)|surpass(?:es|ed|ing)?|cross(?:es|ed|ing)?|"
    r"pass(?:es|ed|ing)?|br(?:eak|eaks|oke|eaking)|miss(?:es|ed|ing)?)\s+(?:the\s+)?$"
)
"""A verb that measures against a criterion of the question ("Two cities cleared 100" after
"Did any sign more than 100?"): it repeats the threshold, stating no value of its own."""


_NEXT_WORD = re.compile(r"[\s-]+([A-Za-z]+)")


def _next_word(text: str, end: int) -> str:
    m = _NEXT_WORD.match(text, end)
    return m.group(1).lower().rstrip("s") if m else ""


def question_criteria(question: str) -> set[tuple[float, str, str]]:
    """(value, unit, word after it) of the numbers the question uses as criteria or scope,
    not as values: "over 30 minutes", "the top 5", "which 3 clinics", "the last 6 months"."""
    criteria: set[tuple[float, str, str]] = set()
    for n in scan_numbers(question):
        before = question[max(0, n.numeral_start - 30) : n.numeral_start]
        hyphenated = question[n.numeral_end : n.numeral_end + 1] == "-"
        if n.bound or _CRITERION_BEFORE.search(before) or hyphenated:
            criteria.add((round(n.value, 9), n.unit, _next_word(question, n.numeral_end)))
    return criteria


_YES_NO = re.compile(
    r"(?:^|(?<=[.?!;:])\s*|\b(?i:and|or|also|so)\s+)"
    r"(?i:did|do|does|is|are|was|were|has|have|had|will|would|can|could)\b"
    r"(?:[^.?!;:]|[.:](?=\d))*\?"
)
_FILTER_WORDS = re.compile(r"\b(?i:with|having|who|whose|whom|that|which|where|when|if)\b")
_NEGATED = re.compile(r"\b(?i:not|never|no)\b|n['’]t\b")
_CLAUSE_START = re.compile(r"[.?!;:,(—–\n]")


def question_thresholds(question: str) -> set[tuple[float, str]]:
    """(value, unit) of the bounds a yes/no question asks about the metric ("Did we sell more
    than 2,400?", "Is it under 5%?"): unlike a filter in the same words ("Did customers with
    more than 3 orders churn?"), they are the answer's to confirm or deny."""
    found: set[tuple[float, str]] = set()
    for clause in _YES_NO.finditer(question):
        for n in scan_numbers(clause.group()):
            if n.bound and not _FILTER_WORDS.search(clause.group()[: n.start]):
                found.add((round(n.value, 9), n.unit))
    return found


def _asserts_threshold(number: ParsedNumber, text: str, thresholds: set[tuple[float, str]]) -> bool:
    """Does the answer compare the metric with a threshold the question asked about ("yes,
    just over the 2,400 mark", "it's under 5%")? A bound in a filter clause ("customers with
    more than 3 orders") or a negated one compares nothing the oracle can read."""
    if not number.bound or (round(number.value, 9), number.unit) not in thresholds:
        return False
    head = text[max(0, number.start - 80) : number.start]
    clause = head[max((m.end() for m in _CLAUSE_START.finditer(head)), default=0) :]
    return not (_FILTER_WORDS.search(clause) or _NEGATED.search(clause))


def _echoes_criterion(
    number: ParsedNumber,
    text: str,
    criteria: set[tuple[float, str, str]],
    thresholds: set[tuple[float, str]],
) -> bool:
    """The answer repeats a criterion of the question ("had a wait over 30 minutes", "the 5
    regions", "in 6 months"), rather than stating a value or bounding one."""
    same = [c for c in criteria if c[:2] == (round(number.value, 9), number.unit)]
    if not same or _asserts_threshold(number, text, thresholds):
        return False
    before = text[max(0, number.numeral_start - 30) : number.numeral_start]
    if number.bound or _CRITERION_BEFORE.search(before) or _PASSED_BEFORE.search(before):
        return True
    if text[number.numeral_end : number.numeral_end + 1] == "-":
        return True
    word = _next_word(text, number.numeral_end)
    return bool(word) and any(word == c[2] for c in same)


def _numbers_mentioned(
    text: str,
    masked: Sequence[tuple[int, int]],
    *,
    question: str = "",
    layout: Layout,
) -> list[ParsedNumber]:
    masks = Covered(len(text), [*masked, *non_claim_spans(text, layout=layout, question=question)])
    criteria = question_criteria(question)
    thresholds = question_thresholds(question)
    years_are_claims = bool(_ASKS_FOR_YEAR.search(question))
    years = _years_written(text, question)
    found = [*scan_numbers(text), *scan_fractions(text), *scan_multiples(text)]
    numbers = sorted(found, key=lambda n: n.start)
    kept = [
        n
        for n in numbers
        if not masks.overlaps((n.numeral_start, n.numeral_end))
        and (years_are_claims or not _is_year(n, text, years))
        and not _is_pronoun_one(n, text)
        and not _echoes_criterion(n, text, criteria, thresholds)
    ]
    bands = band_numbers(text, kept)
    return [
        _as_limit(n) if names_limit(text, n) and not _asserts_threshold(n, text, thresholds) else n
        for n in kept
        if n.numeral_start not in bands
    ]


def _as_limit(number: ParsedNumber) -> ParsedNumber:
    """A limit's figure ("above the 16% limit") states the limit's value: no bound, no hedge
    of the bound word. A yes/no question's threshold the answer compares the metric with
    ("yes, just over the 2,400 mark") stays a bound on the metric."""
    return replace(number, bound=None, hedged=False, start=number.numeral_start)


# --------------------------------------------------------------------------- shares and ranges

_SHARE_JOINT = re.compile(r"\s+(?i:in|out\s+of|of)(?:\s+every)?\s+(?:the\s+)?")
_NOUN_SHARE_JOINT = re.compile(
    r"\s+[a-z][a-z-]+\s+(?i:out\s+of|for\s+every|in\s+every|of\s+every)\s+(?:the\s+)?"
)
"""A share whose part names what it counts: "6 claims for every 10", "3 accounts out of 4"
(not "12 clinics in 3 states")."""
_WORD_NUMBER = f"(?i:{'|'.join(sorted(WORD_VALUES, key=len, reverse=True))})"
_SHARE_AHEAD = re.compile(rf"\s+(?i:in|out\s+of)(?:\s+every)?\s+(?:\d|{_WORD_NUMBER}\b)")
_ONE_NOUN_IN = re.compile(
    r"\s+[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?\s+(?i:in)\s+(?:every\s+)?"
    rf"(?:\d+|{_WORD_NUMBER})\b(?!\s+(?!(?:was|is|has|does|as|its|this|thus)\b)[a-z]+s\b)"
)
"""A share of one whose part names what it counts: "one stay in 5", "one room night in 3" (not
"one clinic in 3 states")."""
_TO_ONE = re.compile(r"(?:\s+(?i:to)\s+|\s*:\s*)1\b(?![.,]\d)")  # not "from 427 to 1,348"
_SCORE_WORDS = re.compile(
    r"\b(?i:scor\w*|rat(?:ed|ing|ings)|averag\w*|satisfaction|csat|nps|stars?|survey\w*)\b"
)
_BETWEEN_BEFORE = re.compile(r"\b(?i:between)\s+$")
_FROM_BEFORE = re.compile(r"\b(?i:from)\s+$")
_RANGE_JOINT = re.compile(r"[-–—]|\s+(?i:to)\s+")
_PLAIN_UNITS = frozenset({"count", "number", "fraction"})


def _claim(n: ParsedNumber, **update: object) -> Claim:
    fields: dict[str, object] = {
        "id": "",
        "text": "",
        "span": (n.start, n.end),
        "value": n.value,
        "unit": n.unit,
        "precision": n.precision,
        "place": n.place,
        "hedged": n.hedged,
        "bound": n.bound,
    }
    return Claim.model_validate({**fields, **update})


def _share(text: str, part: ParsedNumber, whole: ParsedNumber) -> Claim | None:
    """ "one in 8", "3 out of 10", "8 in 10", "2 of every 5": a share stated as a count per
    count (a score "4.5 out of 5" is no share)."""
    joint = text[part.numeral_end : whole.numeral_start]
    one_in = _ONE_NOUN_IN.match(text, part.numeral_end) if part.value == 1 else None
    if part.end != part.numeral_end or not (
        _SHARE_JOINT.fullmatch(joint)
        or _NOUN_SHARE_JOINT.fullmatch(joint)
        or (one_in and one_in.end() == whole.numeral_end)
    ):
        return None
    if part.unit != "count" or whole.unit != "count" or part.scaled or whole.scaled:
        return None
    if not (0 < part.value <= whole.value <= 1000) or not part.value.is_integer():
        return None
    if whole.end != whole.numeral_end and not text.startswith(" ", whole.numeral_end):
        return None
    before = text[max(0, part.start - 40) : part.start]
    if " of " in joint and joint.strip().lower() != "of every" and "out" not in joint:
        return None
    if "out" in joint and _scored(before, hedged=part.hedged):
        return None
    return _claim(
        part,
        span=(part.start, whole.numeral_end),
        value=part.value,
        unit="fraction",
        per=whole.value,
        precision=0.5,
        place=1.0,
    )


_PER_BASE_JOINT = re.compile(r"\s+(?:[A-Za-z][\w-]*\s+){0,3}?(?i:per|for\s+every)\s+")
_PER_BASES = (100.0, 1_000.0, 10_000.0, 100_000.0)


def _per_base(text: str, rate: ParsedNumber, base: ParsedNumber) -> Claim | None:
    """ "13.4 claims per 100 policies", "2.1 incidents per 1,000 shipments": a rate on a round
    base, a share like "3 out of 10" (the base is no claim of its own)."""
    if base.value not in _PER_BASES or base.unit != "count" or base.scaled or base.bound:
        return None
    if rate.unit not in ("count", "number") or rate.scaled or rate.end != rate.numeral_end:
        return None
    if not _PER_BASE_JOINT.fullmatch(text, rate.end, base.start):
        return None
    return _claim(rate, span=(rate.start, base.numeral_end), unit="fraction", per=base.value)


def _range(text: str, low: ParsedNumber, high: ParsedNumber) -> Claim | None:
    """ "between 40 and 45%", "40-45%", "$1.2–1.5M": one claim whose precision spans the range,
    the first number taking the unit and scale written only after the second."""
    if low.bound or high.bound or low.value < 0 or high.value < 0:
        return None
    if _PLAIN_UNITS.isdisjoint((low.unit, high.unit)) and low.unit != high.unit:
        return None  # "rose about 5% to $1.12M": a change and a level, no range
    if low.value > high.value and _TO_ONE.match(text, low.end):
        return None  # "about 2.3 to 1": a ratio
    joint = text[low.end : high.start]
    between = search_before(_BETWEEN_BEFORE, text, low.start, 30)
    if between and re.fullmatch(r"\s+(?i:and)\s+", joint):
        start = between.start()
    elif low.end > low.numeral_end and high.end == high.numeral_end:
        return None  # "up 10.6% to 252,901": "X to Y" writes its unit last, or after both
    elif _RANGE_JOINT.fullmatch(joint) and not search_before(_FROM_BEFORE, text, low.start, 30):
        start = low.start
    else:
        return None
    first, second = (low.value, low.precision), (high.value, high.precision)
    if low.factor == 1 and high.factor != 1:
        first = (low.value * high.factor, low.precision * high.factor)
    unit = high.unit if low.unit in _PLAIN_UNITS else low.unit
    (a, pa), (b, pb) = sorted((first, second))
    width = (b - a) / 2 + max(pa, pb)
    return _claim(
        low,
        span=(start, high.end),
        value=(a + b) / 2,
        unit=unit,
        precision=width,
        place=width,
        bound=None,
    )


# --------------------------------------------------------------------------- changes

_UP = (
    r"up|rose|risen|rises|rising|increased|increases|grew|grown|grows|climbed|climbs|jumped|"
    r"jumps|gained|gains|added|adds|improved|improves|improving"
)
_DOWN = (
    r"down|fell|fallen|falls|dropped|drops|declined|declines|decreased|decreases|shrank|"
    r"shrunk|slipped|slid|lost|loses|worsened|worsens|cut|trimmed|eased"
)
_UP_NOUNS = r"increase|rise|gain|growth|jump|uplift|improvement"
_DOWN_NOUNS = r"decrease|decline|drop|fall|reduction|loss|cut|dip"
_BEAT = r"topped|tops|beat|beats|exceeded|exceeds|outpaced|outsold|outnumbered|surpassed|led|leads"
_TRAIL = r"trailed|trails|lagged|lags"
_CHANGE_BEFORE = re.compile(
    rf"\b(?i:(?P<up>{_UP})|(?P<down>{_DOWN})|changed|changes|moved|shifted)\s+(?i:by\s+)?"
    r"(?i:a\s+further\s+|another\s+|just\s+|only\s+|a\s+|an\s+)?$"
    rf"|\b(?i:(?P<up_noun>{_UP_NOUNS})|(?P<down_noun>{_DOWN_NOUNS})|change|swing|difference|gap)"
    r"\s+(?i:of\s+|by\s+)?$"
    rf"|\b(?i:(?P<beat>{_BEAT})|(?P<trail>{_TRAIL}))\b[^.;]{{0,60}}?\s(?i:by)\s+$"
)
_CHANGE_WORDS = frozenset(
    word
    for words in (_UP, _DOWN, _UP_NOUNS, _DOWN_NOUNS, _BEAT, _TRAIL)
    for word in words.split("|")
) | {"changed", "changes", "moved", "shifted", "change", "swing", "difference", "gap"}
"""Every word that starts a match of ``_CHANGE_BEFORE``: without one, it is not searched."""
# "made up 37.2%", "adds up to", "broken down 60/40": phrasal verbs, not a rise or a fall
_PHRASAL_BEFORE = re.compile(
    r"\b(?i:made|makes?|making|add(?:s|ed|ing)?|sum(?:s|med|ming)?|end(?:s|ed|ing)?|"
    r"broken|broke|breaks?|breaking|split(?:s|ting)?|narrow(?:s|ed|ing)?|booked|signed|"
    r"picked|set|ramped|back)\s+$"
)
_COMPARATIVES = (
    r"higher|lower|more|fewer|less|ahead\s+of|behind|above|below|longer|shorter|faster|slower|"
    r"bigger|smaller|larger|greater|better|worse|cheaper|dearer|costlier|quicker|later|earlier|"
    r"apart|(?:under|over)(?=\s+(?!(?:the|a|an|this|that|these|those|its|their|our|my|each|"
    r"every|all|last|next)\b)[a-z])"
)
"""Words after a number that make it a gap: "2 points below", "$201K under reserve" (not "12
claims over the year")."""
_CHANGE_AFTER = re.compile(
    r"(?P<points>-?(?i:(?:percentage[\s-])?points?)\b)?"
    rf"(?:[^\S\n]|-)+(?i:(?P<up_noun>{_UP_NOUNS})|(?P<down_noun>{_DOWN_NOUNS}|deterioration)|"
    rf"change|swing|difference|gap|(?P<comparative>{_COMPARATIVES}))\b"
    r"(?![^\S\n]+(?i:ratios?|rates?)\b)"
)
"""Words after a number, on its line, that make it a change or a gap; not a change noun
naming a rate ("a 55.2% loss ratio", "a 3% growth rate" are levels)."""
_SHARE_AFTER = re.compile(r"\s+(?i:of)\s+(?:(?i:the|its|their|our|all)\s+)?[a-z]")
"""A share's "of" and what it is of: "dropped 1.77% of calls" states a share, not a drop."""
_AGAINST_AFTER = re.compile(
    r"\s+(?i:(?:against|versus|vs\.?|compared\s+(?:with|to)|relative\s+to|on|over|than)\s)"
)
_DOWN_WORDS = re.compile(
    r"^(?i:lower|fewer|less|behind|below|shorter|faster|smaller|cheaper|quicker|earlier|worse|"
    r"under)$"
)
POLAR_WORDS = re.compile(r"(?i)improv|better|worse|worsen|deteriorat")
"""Words whose direction depends on whether more of the metric is good (signed up for good)."""


def _as_change(text: str, claim: Claim) -> Claim:
    """A number stated as a change or a difference ("up 3 points", "a 12% increase", "fell by
    5.2%", "2 points below the network", "+0.17 above", "-0.3 points against") becomes a
    comparison claim, signed by its direction where the words give one."""
    assert claim.value is not None
    before = search_before(_CHANGE_BEFORE, text, claim.span[0], 120, _CHANGE_WORDS)
    if (
        before
        and (before["up"] or before["down"])
        and search_before(_PHRASAL_BEFORE, text, before.start(), 40)
    ):
        before = None
    if (
        before
        and (before["up"] or before["down"])
        and claim.unit in ("percent", "fraction")
        and _SHARE_AFTER.match(text, claim.span[1])
    ):
        before = None
    after = _CHANGE_AFTER.match(text, claim.span[1])
    signed = text[claim.span[0] : claim.span[1]].lstrip()[:1] in "+-−" and claim.per is None
    # "+12.6%" beside a level is a change whatever follows; "+3 against the plan" too
    against = signed and (
        claim.unit in ("percent", "points") or _AGAINST_AFTER.match(text, claim.span[1]) is not None
    )
    if before is None and after is None and not against:
        return claim
    update: dict[str, object] = {"kind": "comparison"}
    found = before or after
    if found is None:
        update["direction"] = "down" if claim.value < 0 else "up"
        return claim.model_copy(update=update)
    up = bool(found.group("up_noun")) or (
        before is not None and bool(before.group("up") or before.group("beat"))
    )
    down = bool(found.group("down_noun")) or (
        before is not None and bool(before.group("down") or before.group("trail"))
    )
    if before is None and after is not None and after.group("points"):
        update |= {"unit": "points", "span": (claim.span[0], after.end("points"))}
    comparative = after.group("comparative") if after is not None else None
    if up or down:
        update |= {"value": abs(claim.value) if up else -abs(claim.value)}
        update |= {"direction": "up" if up else "down"}
    elif comparative and comparative.lower().split()[0] in ("ahead", "behind", "apart"):
        update |= {"value": abs(claim.value)}
        update |= {"span": (claim.span[0], after.end("comparative"))} if after else {}
    elif comparative:
        lower = bool(_DOWN_WORDS.match(comparative))
        update |= {"value": -abs(claim.value) if lower else abs(claim.value)}
        update |= {"direction": "down" if lower else "up"}
        update |= {"span": (claim.span[0], after.end("comparative"))} if after else {}
    elif claim.value < 0:
        update |= {"direction": "down"}
    elif signed:
        update |= {"direction": "up"}
    return claim.model_copy(update=update)


def _numeric_claims(text: str, numbers: list[ParsedNumber]) -> list[Claim]:
    claims: list[Claim] = []
    i = 0
    while i < len(numbers):
        current = numbers[i]
        nxt = numbers[i + 1] if i + 1 < len(numbers) else None
        merged = None
        if nxt is not None:
            merged = (
                _share(text, current, nxt)
                or _per_base(text, current, nxt)
                or _range(text, current, nxt)
            )
        if merged is not None:
            claims.append(merged if merged.per is not None else _as_change(text, merged))
            i += 2
            continue
        to_one = _TO_ONE.match(text, current.end)
        if to_one and current.unit in ("count", "number"):
            claims.append(_claim(current, span=(current.start, to_one.end()), unit="ratio"))
            if nxt is not None and nxt.start < to_one.end():
                i += 1  # the "1" of "2.3 to 1" is part of the ratio
        else:
            claims.append(_as_change(text, _claim(current)))
        i += 1
    return claims


# --------------------------------------------------------------------------- contract


def extract_claims(
    case_id: str,
    question: str,
    answer: str,
    *,
    masked_spans: Sequence[tuple[int, int]] = (),
) -> ClaimContract:
    """Every numeric and ranking claim of ``answer``; ``masked_spans`` are spans the caller
    knows are not claims (PII found by the safety detector, for instance). A year is a claim
    only when the question asks for one. Markdown emphasis is read as spaces ("0.8 points
    *below*"), so spans and texts are the answer's own."""
    text, question = plain(answer), plain(question)
    layout = Layout(text)
    rankings, sizes = ranking_claims(text, layout)
    mentioned = _numbers_mentioned(text, [*masked_spans, *sizes], question=question, layout=layout)
    numeric = _numeric_claims(text, mentioned)
    ordered = sorted([*numeric, *rankings], key=lambda c: c.span)
    claims = [
        c.model_copy(update={"id": f"C{i}", "text": answer[c.span[0] : c.span[1]]})
        for i, c in enumerate(ordered, start=1)
    ]
    return ClaimContract(case_id=case_id, claims=claims, method="deterministic")
