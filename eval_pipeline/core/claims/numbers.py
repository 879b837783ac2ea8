"""Numbers as people write them: a small grammar, their value, unit and written precision.

An answer says "92.5%", "about 1,200", "$1.2M", "forty-two", "12.5 days", "5.0h", "3x", "one in
8" or "3 out of 10"; checking it against a recomputed value needs the number, the unit it is
stated in, and how precisely it was written: the half-unit of its last written digit, and the
unit of its last significant place (what a hedge widens by), since a correctly rounded figure
must never count as wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from eval_pipeline.core.claims.layout import search_before
from eval_pipeline.core.measures import TEXT_SYMBOL
from eval_pipeline.core.models import Unit

Bound = Literal["at_least", "at_most"]
MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)

_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = (
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
WORD_VALUES: dict[str, int] = {
    "zero": 0,
    **{w: i + 1 for i, w in enumerate(_ONES)},
    **{w: i + 10 for i, w in enumerate(_TEENS)},
    **{w: (i + 2) * 10 for i, w in enumerate(_TENS)},
}
SCALE_WORDS: dict[str, float] = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
}
SUFFIX_SCALES: dict[str, float] = {"k": 1e3, "K": 1e3, "M": 1e6, "mn": 1e6, "B": 1e9, "bn": 1e9}
FRACTION_WORDS: dict[str, int] = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "tenth": 10,
    "tenths": 10,
}


def _alternation(words: tuple[str, ...] | list[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_UNDER_100 = (
    rf"(?:(?:{_alternation(_TENS)})(?:[\s-](?:{_alternation(_ONES)})\b)?"
    rf"|(?:{_alternation(['zero', *_TEENS, *_ONES])}))\b"
)
_WORDS = rf"\b(?i:{_UNDER_100}(?:\s+hundred\b(?:\s+(?:and\s+)?{_UNDER_100})?)?)"
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"

NUMERAL = re.compile(
    rf"(?P<currency>[$€£¥]\s?|\b(?:USD|EUR|GBP|US\$)\s?)?(?:(?P<digits>{_DIGITS})|(?P<words>{_WORDS}))"
    r"(?:(?P<suffix>[kKMB]|\s?(?:bn|mn))(?![A-Za-z0-9])"
    r"|\s+(?P<scale>(?i:thousand|million|billion|trillion))\b)?"
)

HEDGE_BEFORE = re.compile(
    r"(?:\b(?i:about|approximately|approx\.?|roughly|around|nearly|almost|some|circa|ca\.|"
    r"close\s+to|an\s+estimated|estimated|est\.|just\s+about|more\s+or\s+less)\s*|[~≈]\s*)$"
)
_AT_MOST_BEFORE = re.compile(
    r"(?:\b(?i:no\s+more\s+than|not\s+more\s+than|less\s+than|fewer\s+than|under|below|"
    r"at\s+most|up\s+to|a\s+bit\s+under|just\s+under|just\s+below|shy\s+of)\s+(?:the\s+)?"
    r"|(?:<=?|≤)\s*)$"
)
_AT_LEAST_BEFORE = re.compile(
    r"(?:\b(?i:more\s+than|over|above|at\s+least|greater\s+than|exceed(?:s|ed|ing)?|"
    r"in\s+excess\s+of|upwards\s+of|a\s+bit\s+over|just\s+over|just\s+above|a\s+little\s+over|"
    r"a\s+little\s+more\s+than|a\s+bit\s+more\s+than|north\s+of)\s+(?:the\s+)?|(?:>=?|≥)\s*)$"
)
_BOUNDS_BEFORE: tuple[tuple[re.Pattern[str], Bound], ...] = (
    (_AT_MOST_BEFORE, "at_most"),
    (_AT_LEAST_BEFORE, "at_least"),
)
_DURATIONS: tuple[tuple[Unit, str], ...] = (
    # "606 s", "275s", not "the 1990s", "her 30s" or "8 's"
    ("seconds", r"sec(?:ond)?s?|(?<=[ \t])(?-i:s)(?!['’])|(?<=[1-9])(?-i:s)(?![A-Za-z'’])"),
    ("minutes", r"min(?:ute)?s?"),
    ("hours", r"h(?:(?:ou)?rs?)?"),
    ("days", r"(?:(?:calendar|business|working)\s+)?days?|(?<=\d)(?-i:d)(?![A-Za-z])"),
    ("weeks", r"(?:(?:calendar|business|working)\s+)?w(?:ee)?ks?"),
)
_UNIT_AFTER: tuple[tuple[re.Pattern[str], Unit, float], ...] = (
    (re.compile(r"\s?%"), "percent", 1.0),
    (
        re.compile(r"(?:[ \t]*|-)(?i:percentage[\s-]+points?|pp\b|p\.p\.|pts?\b|points?\b)"),
        "points",
        1.0,
    ),
    (re.compile(r"\s*(?i:basis\s+points?|bps)\b"), "points", 0.01),
    (re.compile(r"\s*(?i:per\s?cent|percent|pct)\b"), "percent", 1.0),
    *(
        (re.compile(rf"(?:(?:[ \t]*|-)(?i:{pattern})\b)"), unit, 1.0)
        for unit, pattern in _DURATIONS
    ),
    *(
        (re.compile(rf"[ \t]+[A-Za-z]+-(?i:{unit})\b"), unit, 1.0)
        for unit in ("minutes", "hours", "days", "weeks")
    ),  # "89 crew-days", "310 person-hours": time summed over people; not "12 same-day jobs"
    (
        re.compile(r"\s*(?:[€£¥](?!\w)|(?:USD|EUR|GBP|(?i:dollars?|euros?|pounds?))\b)"),
        "currency",
        1.0,
    ),
    (re.compile(r"(?:p(?![A-Za-z0-9.])|¢|\s*(?i:cents?|pence)\b)"), "currency", 0.01),  # "68p"
    (re.compile(r"(?:[x×](?![A-Za-z0-9])|\s*(?i:times)\b)"), "ratio", 1.0),
)
_MEASURE_AFTER = re.compile(rf"[ \t]?{TEXT_SYMBOL}")
_TIMES_COUNTED = re.compile(
    r"[ \t]+(?i:times)(?=[ \t]*(?:[.,;:!?)]|$)|\s+(?i:in|during|each|per|on\s+average|"
    r"a\s+(?:day|week|month|quarter|year)|last|this|since|so\s+far|between|across|before|after|"
    r"and|but|while|whereas)\b)"
)
""""times" that counts occurrences: "visited 12 times in 2025", "turned 17 times." — no
compared quantity follows it, as one does a ratio ("2.6 times as many", "4 times Route 9's")."""
_SCALED_BEFORE = re.compile(
    r"(?i)\b(?:grew|grow[sn]?|rose|rise[sn]?|increased?|increases|jumped|multiplied|expanded|"
    r"fell|dropped|shrank|declined|up|down|by|over)\s+(?:[a-z]+\s+)?$"
)
"""Words before a number that make "N times" a factor of change ("grew 3 times this year")."""

_SHARE_AFTER = re.compile(
    r"\s+(?i:in|out\s+of|for|of)\s+(?P<every>(?i:every)\s+)?"
    r"(?P<whole>\d[\d,]*(?!\d|[.,]\d)|[A-Za-z]+\b)(?P<noun>\s+[A-Za-z])?"
)
"""What follows the part of a share ("7 tonnes in every 10", "one tonne in five"): the unit
names what is counted, the number is no measure."""
_ATTACHED_UNIT = re.compile(
    rf"[hx×d]|(?<=[1-9])s|p(?![A-Za-z])|hrs?|mins?|secs?|wks?|{TEXT_SYMBOL}"
)


@dataclass(frozen=True)
class ParsedNumber:
    """One number found in a text. ``start``/``end`` cover hedge words and the unit."""

    start: int
    end: int
    numeral_start: int
    numeral_end: int
    core: str
    value: float
    unit: Unit
    precision: float
    """Half a unit of the last written digit, in the unit of ``value``."""
    place: float
    """One unit of the last significant place: the last non-zero digit of an integer, the last
    written digit of a decimal. A hedge widens the precision by it."""
    hedged: bool
    bound: Bound | None
    in_words: bool
    scaled: bool
    factor: float = 1.0
    """What the written numeral was multiplied by (scale word, suffix, basis points)."""


def parse_word_number(text: str) -> int | None:
    """Value of a number written in words ("forty-two", "one hundred and five"), else None."""
    total = 0
    for token in re.split(r"[\s-]+", text.strip().lower()):
        if token == "and":
            continue
        if token == "hundred":
            total = max(total, 1) * 100
        elif token in WORD_VALUES:
            total += WORD_VALUES[token]
        else:
            return None
    return total


def written_precision(core: str, multiplier: float) -> tuple[float, float]:
    """(half a unit of the last written digit, one unit of the last significant place)."""
    digits = core.replace(",", "")
    if "." in digits:
        step = 10.0 ** -len(digits.split(".", 1)[1]) * multiplier
        return 0.5 * step, step
    significant = digits.rstrip("0")
    place = 10.0 ** (len(digits) - len(significant)) if significant else 1.0
    return 0.5 * multiplier, place * multiplier


def _unit_after(text: str, end: int) -> tuple[Unit | None, float, int]:
    for pattern, unit, factor in _UNIT_AFTER:
        found = pattern.match(text, end, end + 40)
        if found:
            return unit, factor, found.end()
    return None, 1.0, end


_COMPARED_BEFORE = re.compile(
    r"(?:\d[\d.,]*\s*(?:[%kKMB]|(?i:points?|pts?|pp|percent|bps|x|times|[a-z]*(?:second|minute|"
    r"hour|day|week|month|year)s?|secs?|mins?|hrs?)\b)|\b(?i:rose|rising|risen|went|climbed|jumped|"
    r"grew|increased|fell|dropped|moved|way|shot|crept|edged|inched|ticked)(?:\s+back)?)\s+$"
)
"""A number and its unit, or a verb of movement, before "above"/"over": "5 points above 100%"
states a gap, "went over 500" a change, "crept back up to 84" a new level; "Plus 500 ran above
100%" is a bound."""


_SUMS_BEFORE = re.compile(r"\b(?i:add(?:s|ed|ing)?|summ?(?:s|ed|ing)?)\s+$")
"""A verb before "up to" that sums ("adds up to 107"): the total, not a bound."""


_LAST_WORDS_OF_PREFIXES = frozenset(
    (
        *("than", "under", "below", "most", "to", "of", "over", "above", "least", "exceed"),
        *("exceeds", "exceeded", "exceeding", "about", "approximately", "approx", "roughly"),
        *("around", "nearly", "almost", "some", "circa", "ca", "estimated", "est", "less"),
    )
)
"""The word right before the number (or before its "the") of every hedge and bound above."""


def _may_qualify(head: str) -> bool:
    """Can a hedge or bound end ``head``? Most numbers have none, and the anchored patterns
    cost a search from every position of the head."""
    words = head.rstrip().lower()
    if words[-1:] in ("~", "≈", "<", ">", "≤", "≥", "="):
        return True
    last = [_word_at_end(token) for token in words.rsplit(None, 2)[-2:]]
    if last and last[-1] == "the":
        last = last[:-1]
    return bool(last) and last[-1] in _LAST_WORDS_OF_PREFIXES


_WORD_AT_END = re.compile(r"[^\W\d_]+(?=\.?$)")


def _word_at_end(token: str) -> str:
    """The letters a token ends with, before an optional full stop: "(about" → about."""
    found = _WORD_AT_END.search(token)
    return found.group() if found else ""


def prefix(text: str, start: int) -> tuple[bool, Bound | None, int]:
    """(hedged, bound, where the prefix starts) of a number starting at ``start``. "Above" or
    "up to" after another number or a verb of change ("$2K above the $52,400", "rose up to
    17.9") compare or move, they do not bound."""
    head = text[max(0, start - 60) : start]
    offset = max(0, start - 60)
    if not _may_qualify(head):
        return False, None, start
    bounded = _bound_ending(head)
    if bounded is not None:
        bound, at = bounded
        hedge = HEDGE_BEFORE.search(head[:at])
        return hedge is not None, bound, offset + (hedge.start() if hedge else at)
    found = HEDGE_BEFORE.search(head)
    if found:  # "up to roughly $179K", but not "adds up to roughly $179K"
        before = _bound_ending(head[: found.start()])
        return True, before[0] if before else None, offset + found.start()
    return False, None, start


def _bound_ending(head: str) -> tuple[Bound, int] | None:
    """The bound ``head`` ends with and where it starts; none after another number or a verb
    of change ("$2K above", "rose up to"), nor "up to" after a verb that sums ("adds up to")."""
    for pattern, bound in _BOUNDS_BEFORE:
        found = pattern.search(head)
        if found is None or _COMPARED_BEFORE.search(head[: found.start()]):
            continue
        if found.group().lower().startswith("up") and _SUMS_BEFORE.search(head[: found.start()]):
            continue
        return bound, found.start()
    return None


LIMIT_AFTER = re.compile(
    r"(?:/[A-Za-z]+)?(?:[^\S\n]+(?!(?i:of|in|for)\b)[A-Za-z][\w-]*){0,2}?[^\S\n]+(?i:limit|cap|ceiling|threshold|"
    r"target|goal|floor|minimum|maximum|cutoff|cut-off|benchmark|quota|budget|mark|trigger|"
    r"allowance|guarantee|sla|forecast|projection|commitment|objective|baseline|"
    r"specification|requirement)s?\b"
    r"|(?:[^\S\n]+(?!(?i:of|in|for)\b)[A-Za-z][\w-]*){0,2}?[^\S\n]+(?i:plan)\b"
    r"|[^\S\n]+(?i:we|they|management)[^\S\n]+(?i:budgeted|planned|targeted|forecast|"
    r"forecasted|projected|promised|guaranteed|committed)\b"
)
"""The noun of a limit after its figure, up to two words of what it limits between ("16%
(moisture) limit", "$2M cap", "2,400 mark", "~$12/MWh industry benchmark", "12,500 MWh weekly
plan", never "five postpaid plans"; not "41% of plan revenue"), or the verb that set it ("the
30% we budgeted")."""
_DETERMINER_BEFORE = re.compile(r"\b(?i:the|its|their|our|his|her|this|that|a|an)\s+[~≈]?$")


def names_limit(text: str, number: ParsedNumber) -> bool:
    """Is a bounded number the value of a limit its phrase names ("above the 16% limit",
    "under its $2M cap")? Then the bound word compares the quantity with the limit, and the
    figure states the limit's value, where "above 16%" bounds the quantity itself."""
    head = text[max(0, number.numeral_start - 8) : number.numeral_start]
    return (
        number.bound is not None
        and _DETERMINER_BEFORE.search(head) is not None
        and LIMIT_AFTER.match(text, number.end) is not None
    )


def _is_bounded(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    if after.isalpha() and (unit_end := _ATTACHED_UNIT.match(text, end)):
        if unit_end.group() == "p" and end - start > 3:
            return False  # "1080p" names a resolution; pence past 999 are written in pounds
        following = text[unit_end.end()] if unit_end.end() < len(text) else " "
        return not (before.isalnum() or before in "_.") and not following.isalnum()
    return not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_")


_MINUS_WORD = re.compile(r"\b(?i:minus|negative)\s+$")


def _signed_start(text: str, start: int) -> tuple[int, float]:
    word = search_before(_MINUS_WORD, text, start, 30)
    if word:
        return word.start(), -1.0
    if start >= 1 and text[start - 1] in "-−+":
        before = text[start - 2] if start >= 2 else " "
        if not (before.isalnum() or before in "_-.,"):
            return start - 1, (1.0 if text[start - 1] == "+" else -1.0)
    return start, 1.0


def _counts_times(text: str, start: int, end: int) -> bool:
    """Is the number before "times" a count of occurrences, not a ratio? See _TIMES_COUNTED."""
    return bool(_TIMES_COUNTED.match(text, end)) and not _SCALED_BEFORE.search(
        text, max(0, start - 40), start
    )


def scan_numbers(text: str) -> list[ParsedNumber]:
    """Every number written in ``text``, left to right, whatever it means (claim or not)."""
    found: list[ParsedNumber] = []
    for m in NUMERAL.finditer(text):
        if not _is_bounded(text, m.start(), m.end()):
            continue
        core = m.group("digits") or m.group("words")
        in_words = m.group("digits") is None
        base = parse_word_number(core) if in_words else float(core.replace(",", ""))
        if base is None:
            continue
        multiplier = 1.0
        if m.group("suffix"):
            multiplier = SUFFIX_SCALES[m.group("suffix").strip()]
        elif m.group("scale"):
            multiplier = SCALE_WORDS[m.group("scale").lower()]
        numeral_start, sign = _signed_start(text, m.start())
        unit, unit_factor, end = _unit_after(text, m.end())
        if unit == "ratio" and _counts_times(text, m.start(), m.end()):
            unit = "count"
        hedged, bound, start = prefix(text, numeral_start)
        if m.group("currency"):
            unit = "currency"
        elif (
            unit is None
            and (measure := _MEASURE_AFTER.match(text, m.end()))
            and not _share_after(text, measure.end())
        ):
            unit, end = "number", measure.end()  # "4.2 GWh": the symbol is part of the claim
        written = str(int(base)) if in_words else core
        value = sign * float(base) * multiplier * unit_factor
        precision, place = written_precision(written, multiplier * unit_factor)
        if unit is None:
            unit = _bare_unit(core, value, scaled=multiplier != 1.0)
        found.append(
            ParsedNumber(
                start=start,
                end=end,
                numeral_start=numeral_start,
                numeral_end=m.end(),
                core=core,
                value=value,
                unit=unit,
                precision=precision,
                place=place,
                hedged=hedged,
                bound=bound,
                in_words=in_words,
                scaled=multiplier != 1.0,
                factor=multiplier * unit_factor,
            )
        )
    return found


def _share_after(text: str, at: int) -> bool:
    """Does a share's whole follow ("in every 10", "in five"; not "in 2024")?"""
    found = _SHARE_AFTER.match(text, at)
    if found is None or (found.group("noun") and not found.group("every")):
        return False  # "12 kWh in 3 hours"
    whole = found.group("whole").replace(",", "")
    value = int(whole) if whole.isdigit() else parse_word_number(whole)
    return value is not None and 0 < value <= 1000


def _bare_unit(core: str, value: float, *, scaled: bool) -> Unit:
    """A number with no unit word: "0.925" reads as a fraction, "1,234" and "1.2k" as counts."""
    if scaled or "." not in core:
        return "count"
    return "fraction" if abs(value) <= 1 else "number"


def _in_words(
    m: re.Match[str],
    start: int,
    value: float,
    unit: Unit,
    precision: float,
    place: float,
    hedged: bool,
    bound: Bound | None,
) -> ParsedNumber:
    """A number written as words ("a third", "twice"), its span from ``start`` (a hedge or
    bound before it) to the end of the words."""
    return ParsedNumber(
        start=start,
        end=m.end(),
        numeral_start=m.start(),
        numeral_end=m.end(),
        core=m.group(),
        value=value,
        unit=unit,
        precision=precision,
        place=place,
        hedged=hedged,
        bound=bound,
        in_words=True,
        scaled=False,
    )


_FRACTION = re.compile(
    rf"\b(?P<count>a|an|{_alternation(_ONES)})\s+(?P<part>{_alternation(list(FRACTION_WORDS))})\b"
    r"|\b(?P<half>half)\b(?!-)",
    re.IGNORECASE,
)
_NOT_A_SHARE_HALF = re.compile(r"\b(?i:first|second|last|other|the|back)\s+$")


def scan_fractions(text: str) -> list[ParsedNumber]:
    """Shares written as words ("a third", "two thirds", "roughly half"): a fraction whose
    precision is that of the same share written "one in N" (a third: one in 2.5 to 3.5)."""
    found = []
    for m in _FRACTION.finditer(text):
        hedged, bound, start = prefix(text, m.start())
        if m.group("half"):
            if search_before(_NOT_A_SHARE_HALF, text, m.start(), 30) or not (
                hedged or bound or text[m.end() : m.end() + 3].lower() == " of"
            ):
                continue
            count, parts = 1, 2
        else:
            word = m.group("count").lower()
            count = 1 if word in ("a", "an", "one") else WORD_VALUES[word]
            parts = FRACTION_WORDS[m.group("part").lower()]
            if count > 1 and not m.group("part").lower().endswith("s"):
                continue
        value = count / parts
        if count == 1:  # "a third" is one in 2.5 to 3.5
            precision = max(value - 1 / (parts + 0.5), 1 / (parts - 0.5) - value)
        else:  # "two thirds" is 2 of 3 at the nearest third
            precision = 0.5 / parts
        found.append(_in_words(m, start, value, "fraction", precision, precision, hedged, bound))
    return found


_OF_WHOM = r"(?=\s+(?:(?i:the|its|their|that)\b|[A-Z][^.;:!?\n]{0,30}?['’]s\b))"
"""After "double": what it is double of ("the", "its", "Bay Shuttle's"), not "a double room"."""
_MULTIPLE = re.compile(
    rf"\b(?:(?P<two>(?i:twice|doubled|doubles)|(?i:double){_OF_WHOM})|"
    rf"(?P<three>(?i:thrice|tripled|triples)|(?i:triple){_OF_WHOM})|"
    r"(?P<four>(?i:quadrupled|quadruples)))\b"
)


def scan_multiples(text: str) -> list[ParsedNumber]:
    """Ratios written as words ("twice as many", "nearly tripled"): 2, 3 or 4 times, as
    precise as "2x"."""
    found = []
    for m in _MULTIPLE.finditer(text):
        hedged, bound, start = prefix(text, m.start())
        value = 2.0 if m.group("two") else 3.0 if m.group("three") else 4.0
        found.append(_in_words(m, start, value, "ratio", 0.5, 1.0, hedged, bound))
    return found
