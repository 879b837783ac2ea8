"""Ranking statements written without a number: "West has the most sites", "East ranks second",
"June was the quietest month", "Walk-ins converted best", "Fastest: Prairie Motor Co", "and
April the quietest", "peaked in August", "Ford edged out Toyota for the top spot" (Ford's claim),
and appositions ("Eastside, the smallest,"), whose entity the verifier finds in their clause;
and the items of a list its lead-in ranks ("Top three by revenue:" then "1. West: $4.1M").

Each becomes a ranking claim: the entity, its rank counted from the end of the ordering the
superlative names (``highest`` or ``lowest``), and the words of the statement, from which the
verifier picks the metric. Whether "best" or "fastest" means highest or lowest depends on the
metric, so those are marked ``polar`` and resolved against it.
"""

from __future__ import annotations

import bisect
import re

from eval_pipeline.core.claims.layout import Covered, Layout, ListItem
from eval_pipeline.core.claims.numbers import MONTHS, parse_word_number
from eval_pipeline.core.models import Claim

_WORD = r"[A-Z](?:[\w&'’-]|\.(?=\w))*"  # a full stop ends the name: "MRR. Logistics"
ENTITY = rf"(?:Dr\.\s+)?{_WORD}(?:\s+(?:{_WORD}|\d+(?::\d\d)?|of|de|la|&(?=\s+[A-Z]))(?=\W))*"
_NOT_ENTITIES = frozenset(
    (
        *("the", "it", "its", "this", "that", "these", "those", "overall", "in", "our", "we"),
        *("they", "there", "which", "what", "who", "here", "among", "across", "of", "also"),
        *("and", "but", "so", "yes", "no", "at", "by", "for", "with", "on", "all", "each"),
        *("every", "a", "an", "their", "then", "while", "whereas", "both", "only", "just"),
    )
)
HIGH = (
    r"best[\s-]selling|top[\s-]selling|fastest[\s-]growing|best[\s-]performing|most|highest|largest|biggest|greatest|top|maximum|peak|busiest|longest|heaviest|"
    r"strongest|deepest|widest|oldest|priciest|costliest|dearest|richest|leading|high\s+point"
)
LOW = (
    r"fewest|least|lowest|smallest|quietest|shortest|weakest|minimum|cheapest|lightest|"
    r"slimmest|narrowest|shallowest|softest|rarest|low\s+point|bottom"
)
POLAR = r"best|worst|fastest|slowest|quickest|strongest-performing|weakest-performing"
SUPERLATIVE = rf"{HIGH}|{LOW}|{POLAR}"
ORDINALS: dict[str, int] = {
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
_ORD = "|".join(sorted(ORDINALS, key=len, reverse=True))
_GAP = r"(?:\s+[a-z][\w-]*){0,2}?"
_METRIC = (
    r"(?P<metric>[^.;:!?,|\d$€£(—–]*?)"
    r"(?=\s*(?:[.;:!?,|\d$€£(—–]|\b(?:at|with|in|on|of|for|and|but|while|than)\b|$))"
)
_SIZE = r"\d+|two|three|four|five|six|seven|eight|nine|ten"
_COUNT = rf"(?P<n>{_SIZE})"
_LIST = rf"(?P<list>{ENTITY}(?:\s*,\s*{ENTITY})*(?:,?\s+and\s+{ENTITY}))"
_VERBS = (
    r"has|had|have|shows?|showed|records?|recorded|posts?|posted|reports?|reported|is|was|are|"
    r"were|achieves?|achieved|holds?|held|sees|saw|delivers?|delivered|registers?|registered|"
    r"remains?|remained|stays?|stayed|ranks?\s+as|ranked\s+as|comes?\s+in\s+as|came\s+in\s+as|"
    r"booked|logged|took|sold|scored|generated|brought\s+in"
)
_ACTION = (
    r"(?:[a-z]+(?:ed|s)|grew|rose|fell|sold|paid|took|won|drew|spent)"
    r"(?:\s+(?:them|it|leads|deals|cars|patients)(?:\s+around)?)?"
)
"""A verb and its object before a bare superlative: "converted best", "grew fastest"."""
_OWNER = r"(?:the|its|their|our|his|her)(?:\s+[a-z]+['’]s)?"
"""Whose superlative: "the", "his", "the group's"."""
_PASSED = (
    r"edges?\s+out|edged\s+out|beats?|overtakes?|overtook|pips?|pipped|outranks?|outranked|"
    r"outpaces?|outpaced"
)
_WHEN = rf"(?:the\s+)?(?:week\s+(?:of|starting|beginning)\s+)?(?:\d{{1,2}}\s+)?{ENTITY}"
"""A period after "peaked in": "August", "the week of 17 November"."""
_SUBJECT = (
    r"(?:[Tt]he\s+(?:first|second|third|fourth)\s+quarter"
    rf"|(?:[Tt]he\s+week\s+(?:of|starting|beginning)\s+(?:\d{{1,2}}\s+)?)?{ENTITY})"
)
"""What a ranking is about: a name, a week named by its first day ("The week of 3 March"), or
a quarter by its ordinal ("The third quarter")."""
RANKING_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.MULTILINE)
    for p in (
        # "X edged out Y for the top spot": X holds the place, Y is only the one passed
        rf"\b(?P<entity>{_SUBJECT})(?:\s+(?:only|just|narrowly)){{0,2}}\s+(?:{_PASSED})\s+"
        rf"{ENTITY}\s+(?:to|for)\s+(?:the\s+)?(?:(?P<ord>{_ORD})|top|first|(?P<last>last))"
        r"\s+(?:spot|place|position|slot|rank)\b",
        # "peaked in August", "bottoming out in the week of 19 January": the claim is the verb
        rf"\b(?P<claim>(?P<peak>peak(?:ed|s|ing)|top(?:ped|s)\s+out)|(?P<trough>bottom(?:ed|s|ing)"
        rf"\s+out))(?:\s+(?:at|around|near|with)\s+(?:[^.;:!?,\n]|[.,](?=\d)){{0,40}}?)?"
        r"\s+(?:in|on|during)\s+"
        rf"(?P<entity>{_WHEN})(?P<metric>)",
        # "COVID-19 visits were highest in December 2024", "and was lowest in April"
        # (its subject's words in the claim: they, not the figure after it, name the metric)
        rf"\b(?P<claim>(?:[A-Za-z][\w-]*\s+){{0,3}}(?:is|was|are|were)\s+(?:at\s+its\s+)?"
        rf"(?P<end>highest|lowest|busiest|"
        rf"quietest)\s+(?:in|on|during)\s+(?P<entity>{_WHEN}))(?P<metric>)",
        # "May was the busiest month and April the quietest"
        rf"(?:\b(?:and|with|while)\s+|(?<=;\s))(?P<entity>{ENTITY})\s+the\s+"
        rf"(?:(?P<ord>{_ORD})[\s-]+)?"
        rf"(?P<end>{SUPERLATIVE})\b{_METRIC}",
        rf"\b[Tt]he\s+(?P<end>top|bottom|highest|lowest|best|worst)[\s-]+{_COUNT}\b"
        rf"(?P<metric>[^.;:!?]*?)\s+(?:are|were|:)\s+{_LIST}",
        rf"\b[Tt]he\s+{_COUNT}\s+[a-z]+(?:\s+[a-z]+)?\s+with\s+the\s+(?P<end>{HIGH}|{LOW})\b"
        rf"(?P<metric>[^.;:!?]*?)\s+(?:are|were)\s+{_LIST}",
        rf"\b[Tt]he\s+[a-z]+(?:\s+[a-z]+)?\s+with\s+the\s+(?:(?P<ord>{_ORD})[\s-]+)?"
        rf"(?P<end>{SUPERLATIVE})\b(?P<metric>[^.;:!?,]*?)\s+(?:is|was)\s+(?:the\s+)?"
        rf"(?P<entity>{ENTITY})",
        rf"\b(?:[Tt]he|[Ii]ts|[Tt]heir|[Oo]ur|[\w&.-]+['’]s)\s+(?:(?:single|very|clear|outright)\s+)?"
        rf"(?:(?P<ord>{_ORD})[\s-]+)?"
        rf"(?P<end>{SUPERLATIVE})\b(?P<metric>[^.;:!?,]*?)\s+(?:is|was)\s+(?:in|at|for|from)?\s*"
        rf"(?P<entity>{_WHEN})",
        rf"\b(?P<entity>{_SUBJECT}){_GAP}\s+(?:{_VERBS})\s+(?:by\s+far\s+)?{_OWNER}\s+"
        rf"(?:(?P<ord>{_ORD})[\s-]+)?(?P<end>{SUPERLATIVE})\b{_METRIC}",
        rf"\b(?P<entity>{_SUBJECT}){_GAP}\s+(?:{_VERBS})\s+(?:the\s+)?(?:(?P<ord>{_ORD})[\s-]+)?"
        rf"(?P<end>{SUPERLATIVE})\b(?!\s+(?:of|in)\s+(?:the|all|any)\b){_METRIC}",
        # "; chat had the most ratings": a label written in lower case, as the data writes it,
        # is the subject only of a clause of its own
        rf"(?:[;:]|\b(?:and|but|while|whereas))\s+(?P<entity>[a-z][\w-]*)\s+(?:{_VERBS})\s+"
        rf"(?:the\s+)?(?P<end>{SUPERLATIVE})\b(?!\s+(?:of|in)\s+(?:the|all|any)\b){_METRIC}",
        rf"\b(?P<entity>{_SUBJECT}){_GAP}\s+(?:ranks?|ranked|is\s+ranked|comes?|came|places?|"
        r"placed|finishe[sd]|finish|sits?|sat|stands?|stood|is|was|were|are)\s+"
        r"(?:in\s+|an?\s+(?:close|distant|clear|strong)\s+)?"
        rf"(?:(?P<ord>{_ORD})(?P<to_last>[\s-]+to[\s-]+last)?|(?P<last>last)|#(?P<hash>[1-9]\d?))"
        r"(?:\s+place)?"
        rf"(?:[\s-]+(?P<end>{HIGH}|{LOW}))?\b{_METRIC}",
        rf"\b(?P<entity>{_SUBJECT})(?:\s+(?:also|again|clearly|comfortably|easily|narrowly))?"
        r"\s+(?P<lead>leads|led|tops|topped|heads|headed|trails|trailed|"
        r"(?:is|was)\s+the\s+(?:clear\s+)?laggard|sits\s+at\s+the\s+bottom|sat\s+at\s+the\s+bottom|"
        r"is\s+(?:at\s+the\s+)?top|is\s+at\s+the\s+bottom|comes\s+last|came\s+last)\b"
        rf"(?!\s+(?!{MONTHS}\s|(?:Q[1-4]|H[12]|FY\d*)\b)[A-Z]|\s+by\b){_METRIC}",
        rf"\b(?P<entity>{_SUBJECT})\s+(?P<action>{_ACTION})\s+(?:{_OWNER}\s+)?(?P<end>{SUPERLATIVE})\b"
        rf"{_METRIC}",
        rf"\b(?P<entity>{_SUBJECT})(?:\s+(?!(?:and|or|but|while|with|at|in|on|of)\b)[a-z][\w-]*"
        rf"(?:\s+(?:in|out|up))?){{1,3}}\s+{_OWNER}\s+(?:(?P<ord>{_ORD})[\s-]+)?"
        rf"(?P<end>{SUPERLATIVE})\b{_METRIC}",
        rf"\b(?:with|and|then|while)\s+(?P<entity>{ENTITY})\s+(?:an?\s+(?:close|distant|clear)\s+)?"
        rf"(?P<ord>{_ORD})\b"
        r"(?!\s+(?:quarter|half|week|month|year))(?P<metric>)",
        rf"^[ \t]*(?:[-*•][ \t]+)?(?P<end>(?i:{SUPERLATIVE}))[ \t]*"
        rf"(?P<metric>[^:\n]{{0,30}}?):[ \t]*(?P<entity>{ENTITY})",
        rf"\b(?P<entity>{_SUBJECT})\s+(?:is|was|were|are|comes|came)\s+(?P<next>next)\b{_METRIC}",
        rf"\b(?:followed\s+by)\s+(?P<entity>{ENTITY})(?P<follow>)",
        # "the fastest (LATAM)": the entity in the bracket after the superlative
        rf"\b[Tt]he[ \t]+(?:(?P<ord>{_ORD})[ \t-]+)?(?P<end>{SUPERLATIVE})\b"
        rf"(?P<metric>[^.;:!?,|\d$€£(—–\n]*?)[ \t]*\((?P<entity>{ENTITY})\)",
        # "Route 66 has the longest waits but the lowest no-show rate": the entity of the ranking
        # it is joined to
        rf"\b(?:and|but)\s+(?:also\s+)?(?:[a-z]+\s+)?(?:the\s+)?(?:(?P<ord>{_ORD})[\s-]+)?"
        rf"(?P<end>{SUPERLATIVE})\b{_METRIC}(?P<entity>)(?P<joined>)",
        # "Eastside, the smallest,", "366 (the peak)", "42 referrals, the most in the network":
        # the entity is the one its clause or line names, found by the verifier
        rf"(?:,|\s[—–]|\()[ \t]*(?P<claim>(?:which\s+(?:is|was)\s+)?(?:the\s+)?"
        rf"(?:(?P<ord>{_ORD})[\s-]+)?(?P<end>{SUPERLATIVE})\b{_METRIC})(?P<entity>)",
    )
)
CONTINUING = re.compile(
    r"(?i)^followed\s+by\b|\s(?:is|was|were|are|comes|came)\s+next\b"
    r"|\s(?:trails|trailed)$|\slaggard$|\sat\s+the\s+bottom$"
)
"""The text of a ranking that counts on from the one written before it ("followed by X", "X is
next", "Web trails", "Block 7 is the clear laggard"): that ranking names its metric (and,
but for the one at the bottom, its direction)."""
_JUST_IN = re.compile(r"\s+(?:in|on|during)\s+")
_NEGATION = re.compile(r"\b(?i:not|never|no\s+longer)\b|n['’]t\b")
_RELATIVE = re.compile(rf"\s+(?i:of|among)\s+(?:the|these|those|all)\s+{_COUNT}\b")


def entity_name(text: str) -> str | None:
    words = text.rstrip(".").split()
    while words and words[0].casefold() in _NOT_ENTITIES:
        words = words[1:]
    if not words or all(w.isdigit() and len(w) < 4 for w in words):
        return None  # "All 5 topped 90 loans": a count of the rows, no name (a year may lead)
    return " ".join(words)


def direction_of(word: str) -> str:
    """``highest``, ``lowest`` or ``polar`` (decided by the metric) for a superlative."""
    word = word.lower()
    if re.fullmatch(HIGH, word):
        return "highest"
    if re.fullmatch(LOW, word):
        return "lowest"
    return "polar"


def _rank_of(m: re.Match[str]) -> tuple[int, str]:
    """(rank, end of the ordering it counts from) of one ranking statement."""
    groups = m.groupdict()
    end = (groups.get("end") or "").lower()
    direction = direction_of(end) if end else "highest"
    if groups.get("last") or groups.get("to_last"):
        direction = "lowest"
    lead = (groups.get("lead") or "").lower()
    if any(w in lead for w in ("bottom", "last")) or groups.get("trough"):
        direction = "lowest"
    if any(w in lead for w in ("trail", "laggard")):
        direction = "polar"  # the worst, whichever end that is
    ordinal = groups.get("ord")
    rank = ORDINALS[ordinal.lower()] if ordinal else int(groups.get("hash") or 1)
    return rank, direction


def _ranking(
    text: str,
    span: tuple[int, int],
    entity: str | None,
    rank: int,
    direction: str,
    bound: str | None,
) -> Claim:
    if text[span[0] : span[1]].endswith("."):
        span = (span[0], span[1] - 1)
    return Claim.model_validate(
        {
            "id": "",
            "text": text[span[0] : span[1]],
            "span": span,
            "value": float(rank),
            "entity": entity,
            "kind": "ranking",
            "direction": direction if direction != "polar" else None,
            "bound": bound,
        }
    )


class _Preceding:
    """The ranking claim written last before a position, which "X is next" and "followed by X"
    count on from; the claims of one pattern arrive left to right."""

    def __init__(self, claims: list[Claim]) -> None:
        self._ordered = sorted((c for c in claims if c.bound is None), key=lambda c: c.span)
        self._starts = [c.span[0] for c in self._ordered]
        self._added: Claim | None = None

    def before(self, position: int) -> Claim | None:
        k = bisect.bisect_left(self._starts, position)
        found = [c for c in (self._ordered[k - 1] if k else None, self._added) if c is not None]
        return max((c for c in found if c.span[0] < position), key=lambda c: c.span, default=None)

    def add(self, claim: Claim) -> None:
        self._added = claim


_JOINT = re.compile(r"[ \t]*,?[ \t]*")


def _joined_entity(text: str, last: Claim | None, start: int) -> str | None:
    """The entity of the ranking a second superlative is joined to ("X has the longest waits
    but the lowest no-show rate"): only when nothing but a comma lies between them."""
    if last is None or not _JOINT.fullmatch(text, last.span[1], start):
        return None
    return last.entity


_RANKED_LEAD = re.compile(
    rf"[ \t]*(?:(?i:the|our)[ \t]+)?(?:(?P<n>(?i:{_SIZE}))[ \t]+)?(?P<end>(?i:{SUPERLATIVE}))\b"
    rf"(?!-|[ \t]+(?i:of|recent)\b)(?:[ \t]+(?P<after>(?i:{_SIZE}))\b)?[^\n:]*:[ \t]*"
)
"""A line that introduces a ranked list: "Top three by revenue:", "The 3 busiest sites:",
"Slowest issue types in 2024:" (not "Most of the growth came from:", "Top-line figures:",
"Most recent orders:")."""
_SUPERLATIVE_WORD = re.compile(rf"\b(?i:{SUPERLATIVE})\b")
_ITEM_HEAD = re.compile(rf"(?P<entity>{ENTITY})[ \t]*(?::|[—–-][ \t]|\(|$)", re.MULTILINE)


def _ranked_lead(text: str, layout: Layout, item: ListItem) -> re.Match[str] | None:
    """The lead-in of the list holding ``item`` when it ranks the list by one superlative."""
    lead = layout.lead_in(item.start)
    if lead is None:
        return None
    found = _RANKED_LEAD.fullmatch(text, *lead)
    if found is None or len(_SUPERLATIVE_WORD.findall(text, *lead)) != 1:
        return None
    return found


def ranked_list_lead(text: str, layout: Layout, position: int) -> tuple[int, int] | None:
    """The lead-in line ("Top three by revenue:") of the ranked list whose item names its entity
    at ``position``: it, not the item, names the metric the item is ranked by."""
    item = layout.item_of(position)
    if item is None or item.body != position or not _ITEM_HEAD.match(text, position):
        return None
    lead = _ranked_lead(text, layout, item)
    return lead.span() if lead else None


def _listed_rankings(text: str, layout: Layout) -> tuple[list[Claim], list[tuple[int, int]]]:
    """The items of a list under a ranking lead-in, each named at its head ("1. Kestrel Yard:
    410"): a numbered item ranks where its position says, a bulleted one within the size the
    lead-in gives ("The 3 busiest:"), or first when it is the first and no size is given; and
    the spans of those sizes, which are no claims."""
    claims: list[Claim] = []
    sizes: list[tuple[int, int]] = []
    position: dict[tuple[int, int], int] = {}
    for item in layout.items:
        lead = _ranked_lead(text, layout, item)
        if lead is None:
            continue
        head = _ITEM_HEAD.match(text, item.body)
        rank = position[lead.span()] = position.get(lead.span(), 0) + 1
        size_group = "n" if lead.group("n") else "after" if lead.group("after") else None
        if size_group and rank == 1:
            sizes.append(lead.span(size_group))
        name = entity_name(head.group("entity")) if head else None
        if head is None or name is None or re.search(r"\d", name) or _SUPERLATIVE_WORD.search(name):
            continue  # a code ("T-0042") the list only identifies, or a ranking ("Fastest: X")
        direction = direction_of(lead.group("end"))
        span = head.span("entity")
        if item.marker is not None:
            claims.append(_ranking(text, span, name, rank, direction, None))
        elif size_group:
            size = lead.group(size_group)
            count = int(size) if size.isdigit() else parse_word_number(size) or 0
            claims.append(_ranking(text, span, name, count, direction, "at_most"))
        elif rank == 1:
            claims.append(_ranking(text, span, name, 1, direction, None))
    return claims, sizes


def ranking_claims(
    text: str, layout: Layout | None = None
) -> tuple[list[Claim], list[tuple[int, int]]]:
    """Ranking statements: one claim per entity, rank counted from the stated end (a claim whose
    direction is None reads "best", "fastest"... and is resolved by the verifier); and the spans
    of list sizes ("the top three"), which qualify the statement rather than claim a figure."""
    claims, sizes = _listed_rankings(text, layout or Layout(text))
    taken = Covered(len(text), [c.span for c in claims])
    for pattern in RANKING_PATTERNS:
        preceding: _Preceding | None = None
        for m in pattern.finditer(text):
            if taken.overlaps(m.span()) or _NEGATION.search(m.group()):
                continue
            rank, direction = _rank_of(m)
            groups = m.groupdict()
            if groups.get("list"):
                count = groups["n"]
                sizes.append(m.span("n"))
                size = int(count) if count.isdigit() else parse_word_number(count)
                for e in re.finditer(ENTITY, m.group("list")):
                    name = entity_name(e.group())
                    if name:
                        span = (m.start("list") + e.start(), m.start("list") + e.end())
                        claims.append(_ranking(text, span, name, size or 0, direction, "at_most"))
                taken.add(m.span())
                continue
            name = entity_name(m.group("entity"))
            if groups.get("joined") is not None:
                preceding = preceding or _Preceding(claims)
                name = _joined_entity(text, preceding.before(m.start()), m.start())
            if name is None and not groups.get("claim"):
                continue
            if groups.get("next") is not None or groups.get("follow") is not None:
                preceding = preceding or _Preceding(claims)
                last = preceding.before(m.start())
                if last is None:
                    continue
                rank, direction = int(last.value or 0) + 1, last.direction or "polar"
            start, end = m.span("claim") if groups.get("claim") else m.span()
            if (groups.get("peak") or groups.get("trough")) and _JUST_IN.fullmatch(
                text, end, m.start("entity")
            ):
                end = m.end("entity")  # "peaked in March": the period is the claim's
            relative = _RELATIVE.match(text, end)
            if relative:
                sizes.append(relative.span("n"))
                end = relative.end()
            claims.append(_ranking(text, (start, end), name, rank, direction, None))
            if preceding is not None:
                preceding.add(claims[-1])
            taken.add(m.span())
    return sorted(claims, key=lambda c: c.span), sizes
