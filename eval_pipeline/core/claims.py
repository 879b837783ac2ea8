"""First oracle pass: enumerate every numeric claim of an answer into a contract (C1, C2, …).

A number is a claim unless it only qualifies what is said: an echo of the question ("top 5"), a
date or period ("in 2025", "2026-03", "Q3"), an ordinal or rank, an identifier, contact details.
Missing a claim hides an error; inventing one can accuse a right answer, so the filters below are
as specific as possible and everything else stays a claim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from eval_pipeline.core.models import Claim, ClaimContract
from eval_pipeline.core.numbers import ParsedNumber, parse_word_number, scan_numbers

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_ORDINAL_SUFFIX = r"(?:st|nd|rd|th)"
_NOT_CLAIMS = re.compile(
    "|".join(
        (
            r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",  # email
            r"(?i:https?://|www\.)\S+",  # URL
            r"\b\d{4}-\d{1,2}(?:-\d{1,2})?(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b",  # ISO date / month
            r"\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}/\d{1,2}(?:/\d{1,2})?\b",  # other dates
            rf"\b{_MONTHS}\s+\d{{1,2}}{_ORDINAL_SUFFIX}?\b(?:,?\s+\d{{4}}\b)?",  # March 1, 2026
            rf"\b\d{{1,2}}{_ORDINAL_SUFFIX}?\s+(?:of\s+)?{_MONTHS}(?:,?\s+\d{{4}}\b)?",  # 1 March
            rf"\b{_MONTHS},?\s+\d{{4}}\b",  # March 2026
            r"\b(?:Q[1-4]|H[12])\s+\d{4}\b|\b\d{4}\s+(?:Q[1-4]|H[12])\b",  # Q3 2025
            r"\b\d{1,2}:\d{2}(?::\d{2})?\b",  # time of day
            rf"\b\d+{_ORDINAL_SUFFIX}\b",  # 1st, 22nd
            r"#\s?\d+|\bNo\.\s?\d+|\b(?i:rank(?:ed)?|position|place)\s+#?\d+",  # ranks
            r"\b[A-Za-z]+[-_/#]?\d[\w-]*"  # identifiers, Q3, FY2025
            r"|\b\d+[-_](?!(?i:points?|percentage)\b)[A-Za-z][\w-]*",
            r"(?<![\d.,])\b0\d+\b(?![.,]\d)",  # zero-padded ids
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
            rf"\b(?i:top|bottom)\s+(?:\d+|{_SMALL_WORDS})\b",  # ranking qualifiers
            r"\b(?i:week|wk|quarter|period|month)\s+\d{1,2}\b",  # "week 12"
        )
    )
)
_PHONE = re.compile(
    r"(?<![\w.,])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)\s?)?"
    r"(?:\d{3}\.\d{3}\.\d{4}|\d{2,4}(?:[\s-]\d{2,4}){1,4})(?![\w.]?\d)"
)
_ABBREVIATIONS = frozenset({"approx", "vs", "e.g", "i.e", "etc", "ca", "no", "est", "mr", "dr"})
_MIN_PHONE_DIGITS = 7


def non_claim_spans(text: str, *, qualifiers: bool = True) -> list[tuple[int, int]]:
    """Spans of ``text`` that hold numbers which are never claims (dates, ids, contacts…), and
    with ``qualifiers`` the ones that only scope a statement ("last 6 months", "top 5")."""
    spans = [m.span() for m in _NOT_CLAIMS.finditer(text)]
    if qualifiers:
        spans += [m.span() for m in _QUALIFIERS.finditer(text)]
    spans += [
        m.span()
        for m in _PHONE.finditer(text)
        if sum(ch.isdigit() for ch in m.group()) >= _MIN_PHONE_DIGITS
    ]
    return spans


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence (or line) bounds: a claim and the label it belongs to share a sentence."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"[.!?]+(?=\s|$)|\n+", text):
        if m.group().startswith("."):
            word = re.search(r"([\w.]+)$", text[start : m.start()])
            if word and word.group(1).lower() in _ABBREVIATIONS:
                continue
        if text[start : m.end()].strip():
            spans.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _overlaps(span: tuple[int, int], others: Iterable[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in others)


_YEAR_BEFORE = re.compile(
    r"\b(?i:in|since|during|of|for|from|to|until|till|by|before|after|through|between|and|"
    r"year|fiscal|early|mid|late|end\s+of|start\s+of)\s+$"
)
_YEAR_AFTER = re.compile(
    r"(?:['’]s\b|\s+(?i:total|totals|figures?|results?|numbers?|levels?|average|budget|target|"
    r"plan|programme|program|cohort)\b)"
)
_COUNTED_AFTER = re.compile(r"\s+(?!(?i:was|were|is|has|had|saw|will|did)\b)[A-Za-z]")
_ASKS_FOR_YEAR = re.compile(r"\b(?i:which|what)\s+(?i:calendar\s+|fiscal\s+)?(?i:year)\b")


def _is_year(number: ParsedNumber, text: str) -> bool:
    """A plain 4-digit number from 1900 to 2100 is a year unless it counts something that
    follows it ("2000 items are completed") and no date preposition comes before it."""
    if not (
        number.core.isdigit()
        and len(number.core) == 4
        and 1900 <= number.value <= 2100
        and number.unit == "count"
        and not (number.scaled or number.hedged or number.bound)
    ):
        return False
    if _YEAR_BEFORE.search(text[: number.numeral_start]) or _YEAR_AFTER.match(
        text, number.numeral_end
    ):
        return True
    return _COUNTED_AFTER.match(text, number.numeral_end) is None


def _is_pronoun_one(number: ParsedNumber) -> bool:
    """'one of the…', 'the one with…': a bare "one" is almost never a stated figure."""
    return number.in_words and number.core.lower() == "one" and number.unit == "count"


def _numbers_mentioned(
    text: str,
    masked: Sequence[tuple[int, int]],
    *,
    qualifiers: bool = True,
    years_are_claims: bool = False,
) -> list[ParsedNumber]:
    masks = [*masked, *non_claim_spans(text, qualifiers=qualifiers)]
    return [
        n
        for n in scan_numbers(text)
        if not _overlaps((n.numeral_start, n.numeral_end), masks)
        and (years_are_claims or not _is_year(n, text))
        and not _is_pronoun_one(n)
    ]


# --------------------------------------------------------------------------- ranges and changes

_BETWEEN_BEFORE = re.compile(r"\b(?i:between)\s+$")
_FROM_BEFORE = re.compile(r"\b(?i:from)\s+$")
_RANGE_JOINT = re.compile(r"[-–—]|\s*[–—]\s*|\s+(?i:to)\s+")
_PLAIN_UNITS = frozenset({"count", "number", "fraction"})

_UP = (
    r"up|rose|risen|rises|rising|increased|increases|grew|grown|grows|climbed|climbs|jumped|"
    r"jumps|gained|gains|improved|improves"
)
_DOWN = (
    r"down|fell|fallen|falls|dropped|drops|declined|declines|decreased|decreases|shrank|"
    r"shrunk|slipped|slid|lost|loses|worsened"
)
_UP_NOUNS = r"increase|rise|gain|growth|jump|improvement|uplift"
_DOWN_NOUNS = r"decrease|decline|drop|fall|reduction|loss"
_CHANGE_BEFORE = re.compile(
    rf"\b(?i:(?P<up>{_UP})|(?P<down>{_DOWN})|changed|changes|moved|shifted)\s+(?i:by\s+)?"
    r"(?i:a\s+further\s+|another\s+|just\s+|only\s+)?$"
    rf"|\b(?i:(?P<up_noun>{_UP_NOUNS})|(?P<down_noun>{_DOWN_NOUNS})|change|swing|difference|gap)"
    r"\s+(?i:of)\s+$"
)
# "made up 37.2%", "adds up to", "broken down 60/40": phrasal verbs, not a rise or a fall
_PHRASAL_BEFORE = re.compile(
    r"\b(?i:made|makes?|making|add(?:s|ed|ing)?|sum(?:s|med|ming)?|end(?:s|ed|ing)?|"
    r"broken|broke|breaks?|breaking|split(?:s|ting)?|narrow(?:s|ed|ing)?)\s+$"
)
_CHANGE_AFTER = re.compile(
    r"(?P<points>-?(?i:(?:percentage[\s-])?points?)\b)?"
    rf"\s+(?i:(?P<up_noun>{_UP_NOUNS})|(?P<down_noun>{_DOWN_NOUNS})|change|swing|difference|gap|"
    r"(?P<comparative>higher|lower|more|fewer|less|ahead|behind|above|below))\b"
)


def _claim(n: ParsedNumber) -> Claim:
    return Claim(
        id="",
        text="",
        span=(n.start, n.end),
        value=n.value,
        unit=n.unit,
        precision=n.precision,
        hedged=n.hedged,
        bound=n.bound,
    )


def _range(text: str, low: ParsedNumber, high: ParsedNumber) -> Claim | None:
    """ "between 40 and 45%", "40-45%", "$1.2–1.5M": one claim whose precision spans the range,
    the first number taking the unit and scale written only after the second."""
    if low.bound or high.bound or low.value < 0 or high.value < 0:
        return None
    joint = text[low.end : high.start]
    before = text[: low.start]
    between = _BETWEEN_BEFORE.search(before)
    if between and re.fullmatch(r"\s+(?i:and)\s+", joint):
        start = between.start()
    elif _RANGE_JOINT.fullmatch(joint) and not _FROM_BEFORE.search(before):
        start = low.start
    else:
        return None
    first, second = (low.value, low.precision), (high.value, high.precision)
    if low.factor == 1 and high.factor != 1:
        first = (low.value * high.factor, low.precision * high.factor)
    unit = high.unit if low.unit in _PLAIN_UNITS else low.unit
    (a, pa), (b, pb) = sorted((first, second))
    return Claim(
        id="",
        text="",
        span=(start, high.end),
        value=(a + b) / 2,
        unit=unit,
        precision=(b - a) / 2 + max(pa, pb),
        hedged=low.hedged,
    )


def _as_change(text: str, claim: Claim) -> Claim:
    """A number stated as a change ("up 3 points", "a 12% increase", "fell by 5.2%") becomes a
    comparison claim: signed by its direction, in points when written "3-point"."""
    assert claim.value is not None
    before = _CHANGE_BEFORE.search(text[: claim.span[0]])
    if (
        before
        and (before["up"] or before["down"])
        and _PHRASAL_BEFORE.search(text, 0, before.start())
    ):
        before = None
    after = _CHANGE_AFTER.match(text, claim.span[1])
    if before is None and after is None:
        return claim
    found = before or after
    assert found is not None
    up = bool(found.group("up_noun")) or (before is not None and bool(before.group("up")))
    down = bool(found.group("down_noun")) or (before is not None and bool(before.group("down")))
    update: dict[str, object] = {"kind": "comparison"}
    if before is None and after is not None and after.group("points"):
        update |= {"unit": "points", "span": (claim.span[0], after.end("points"))}
    if up or down:
        update |= {"value": abs(claim.value) if up else -abs(claim.value)}
        update |= {"direction": "up" if up else "down"}
    elif after is not None and after.group("comparative"):
        update |= {"value": abs(claim.value)}
    elif claim.value < 0:
        update |= {"direction": "down"}
    elif text[claim.span[0] : claim.span[1]].startswith("+"):
        update |= {"direction": "up"}
    return claim.model_copy(update=update)


def _numeric_claims(text: str, numbers: list[ParsedNumber]) -> list[Claim]:
    claims: list[Claim] = []
    i = 0
    while i < len(numbers):
        merged = _range(text, numbers[i], numbers[i + 1]) if i + 1 < len(numbers) else None
        if merged is not None:
            claims.append(merged)
            i += 2
            continue
        claims.append(_as_change(text, _claim(numbers[i])))
        i += 1
    return claims


# --------------------------------------------------------------------------- rankings

_ENTITY = r"[A-Z][\w&'’-]*(?:\s+[A-Z][\w&'’-]*)*"
_NOT_ENTITIES = frozenset(
    (
        *("the", "it", "its", "this", "that", "these", "those", "overall", "in", "our", "we"),
        *("they", "there", "which", "what", "who", "here", "among", "across", "of", "also"),
        *("and", "but", "so", "yes", "no", "at", "by", "for", "with", "on", "all", "each"),
        *("every", "a", "an", "their"),
    )
)
_HIGH = r"most|highest|largest|biggest|greatest|best|strongest|top|maximum"
_LOW = r"fewest|least|lowest|smallest|worst|weakest|minimum|bottom"
_ORDINALS: dict[str, int] = {
    word: i
    for i, words in enumerate(
        (
            ("first", "1st"),
            ("second", "2nd"),
            ("third", "3rd"),
            ("fourth", "4th"),
            ("fifth", "5th"),
            ("sixth", "6th"),
            ("seventh", "7th"),
            ("eighth", "8th"),
            ("ninth", "9th"),
            ("tenth", "10th"),
        ),
        start=1,
    )
    for word in words
}
_ORD = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_GAP = r"(?:\s+[a-z][\w-]*){0,2}?"
_METRIC = r"(?P<metric>[^.;:!?,]*)"
_COUNT = r"(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten)"
_LIST = rf"(?P<list>{_ENTITY}(?:\s*,\s*{_ENTITY})*(?:,?\s+and\s+{_ENTITY}))"
_RANKING_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        rf"\b[Tt]he\s+(?P<end>top|bottom|highest|lowest|best|worst)[\s-]+{_COUNT}\b"
        rf"(?P<metric>[^.;:!?]*?)\s+(?:are|were|:)\s+{_LIST}",
        rf"\b[Tt]he\s+{_COUNT}\s+[a-z]+(?:\s+[a-z]+)?\s+with\s+the\s+(?P<end>{_HIGH}|{_LOW})\b"
        rf"(?P<metric>[^.;:!?]*?)\s+(?:are|were)\s+{_LIST}",
        rf"\b[Tt]he\s+[a-z]+(?:\s+[a-z]+)?\s+with\s+the\s+(?:(?P<ord>{_ORD})[\s-]+)?"
        rf"(?P<end>{_HIGH}|{_LOW})\b(?P<metric>[^.;:!?,]*?)\s+(?:is|was)\s+(?:the\s+)?"
        rf"(?P<entity>{_ENTITY})",
        rf"\b[Tt]he\s+(?:(?P<ord>{_ORD})[\s-]+)?(?P<end>{_HIGH}|{_LOW})\b"
        rf"(?P<metric>[^.;:!?,]*?)\s+(?:is|was)\s+(?:in|at|for|from)\s+(?:the\s+)?"
        rf"(?P<entity>{_ENTITY})",
        rf"\b(?P<entity>{_ENTITY}){_GAP}\s+(?:has|had|have|shows?|showed|records?|recorded|"
        r"posts?|posted|reports?|reported|is|was|achieves?|achieved|holds?|held|sees|saw|"
        r"delivers?|delivered|registers?|registered)\s+(?:by\s+far\s+)?the\s+"
        rf"(?:(?P<ord>{_ORD})[\s-]+)?(?P<end>{_HIGH}|{_LOW})\b{_METRIC}",
        rf"\b(?P<entity>{_ENTITY}){_GAP}\s+(?:ranks?|ranked|is\s+ranked|comes?|came|places?|"
        r"placed|finishe[sd]|finish|sits?|sat|stands?|stood|is|was)\s+(?:in\s+)?"
        rf"(?:(?P<ord>{_ORD})(?P<to_last>[\s-]+to[\s-]+last)?|(?P<last>last))(?:\s+place)?"
        rf"(?:[\s-]+(?P<end>{_HIGH}|{_LOW}))?\b{_METRIC}",
        rf"\b(?P<entity>{_ENTITY}){_GAP}\s+(?P<lead>leads|led|tops|topped|heads|headed|"
        r"is\s+(?:at\s+the\s+)?top|is\s+at\s+the\s+bottom|comes\s+last|came\s+last)\b"
        rf"{_METRIC}",
    )
)
_NEGATION = re.compile(r"\b(?i:not|never|no\s+longer)\b|n['’]t\b")


def _entity(text: str) -> str | None:
    words = text.split()
    while words and words[0].casefold() in _NOT_ENTITIES:
        words = words[1:]
    return " ".join(words) or None


def _rank_of(m: re.Match[str]) -> tuple[int, str]:
    """(rank, end of the ordering it counts from) of one ranking statement."""
    groups = m.groupdict()
    end = (groups.get("end") or "").lower()
    lowest = bool(re.fullmatch(_LOW + "|bottom|lowest|worst", end)) if end else False
    if groups.get("last") or groups.get("to_last"):
        lowest = True
    lead = (groups.get("lead") or "").lower()
    if "bottom" in lead or "last" in lead:
        lowest = True
    ordinal = groups.get("ord")
    rank = _ORDINALS[ordinal.lower()] if ordinal else 1
    return rank, "lowest" if lowest else "highest"


def _ranking_claims(text: str) -> tuple[list[Claim], list[tuple[int, int]]]:
    """Non-numeric ranking statements ("West has the most…", "East ranks second", "the top
    three are A, B and C"): one claim per entity, rank counted from the stated end; and the
    spans of the list sizes ("three"), which qualify the statement rather than claim a figure."""
    claims: list[Claim] = []
    sizes: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _RANKING_PATTERNS:
        for m in pattern.finditer(text):
            if _overlaps(m.span(), taken) or _NEGATION.search(m.group()):
                continue
            rank, direction = _rank_of(m)
            groups = m.groupdict()
            if groups.get("list"):
                count = groups["n"]
                sizes.append(m.span("n"))
                size = int(count) if count.isdigit() else parse_word_number(count)
                found = [
                    (m.start("list") + e.start(), m.start("list") + e.end(), _entity(e.group()))
                    for e in re.finditer(_ENTITY, m.group("list"))
                ]
                for start, end, name in found:
                    if name:
                        claims.append(
                            _ranking(text, (start, end), name, size or 0, direction, "at_most")
                        )
            else:
                name = _entity(m.group("entity"))
                if name is None:
                    continue
                claims.append(_ranking(text, m.span(), name, rank, direction, None))
            taken.append(m.span())
    return claims, sizes


def _ranking(
    text: str, span: tuple[int, int], entity: str, rank: int, direction: str, bound: str | None
) -> Claim:
    return Claim.model_validate(
        {
            "id": "",
            "text": text[span[0] : span[1]],
            "span": span,
            "value": float(rank),
            "entity": entity,
            "kind": "ranking",
            "direction": direction,
            "bound": bound,
        }
    )


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
    only when the question asks for one. A ranking statement is a claim of its own only in a
    sentence that states no figure: beside figures, the figures are what is checked."""
    echoed = {round(n.value, 9) for n in _numbers_mentioned(question, (), qualifiers=False)}
    rankings, sizes = _ranking_claims(answer)
    mentioned = _numbers_mentioned(
        answer,
        [*masked_spans, *sizes],
        years_are_claims=bool(_ASKS_FOR_YEAR.search(question)),
    )
    numbers = [n for n in mentioned if round(n.value, 9) not in echoed]
    numeric = _numeric_claims(answer, numbers)
    sentences = sentence_spans(answer)
    stated = {s for s in sentences for c in numeric if s[0] <= c.span[0] < s[1]}
    rankings = [c for c in rankings if not any(s[0] <= c.span[0] < s[1] for s in stated)]
    ordered = sorted([*numeric, *rankings], key=lambda c: c.span)
    claims = [
        c.model_copy(update={"id": f"C{i}", "text": c.text or answer[c.span[0] : c.span[1]]})
        for i, c in enumerate(ordered, start=1)
    ]
    return ClaimContract(case_id=case_id, claims=claims, method="deterministic")
