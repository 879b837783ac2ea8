"""What each claim is stated for: the entities and periods it is bound to, and the words that
say which quantity it is.

In a table a number belongs to its row's labels and its column's header; in a list item or a
line with a head ("Riverside — 412 visits, 12.3% no-shows") to the head; in prose to the label
closest to it in its clause (fewest clause breaks, then distance, then the one before it), and a
number right after a bound one ("West (59.6%, 305 done)", "243 units and $9.56M") shares its
binding. The question's own entities and periods apply when the sentence names none.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

from eval_pipeline.core.claims.layout import Layout, ListItem, search_before, starting_within
from eval_pipeline.core.measures import (
    EACH_BEFORE,
    Measure,
    measure_in_header,
    measure_written,
    per_item_after,
)
from eval_pipeline.core.models import DURATION_UNITS, Claim, Unit
from eval_pipeline.core.oracle.facts import key, numbered, tokens
from eval_pipeline.core.oracle.labels import Form, LabelMention, label_mentions
from eval_pipeline.core.oracle.periods import (
    Mention,
    Period,
    grain_mentions,
    period_mentions,
    values_not_days,
)
from eval_pipeline.core.oracle.units import unit_from_name

_MAX_SEPARATION = 1
_NEAREST = 4
"""The claims on each side of a label or period that may take it: farther ones have as many
clause breaks between or more (bar a bracketed aside), and a sentence may hold hundreds."""
_SEPARATORS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"[;|\n]"), 2),
    (re.compile(r",|\s[-–—]\s|\(|\)"), 1),
    (re.compile(r"\b(?i:and|but|while|whilst|whereas|versus|vs|compared|than|or|against)\b"), 1),
)
_CONTINUES = re.compile(
    r"\s*(?:[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s*)?(?:,\s*or\b|[,/&]|\band\b|\bor\b|\bwith\b)?\s*"
    r"(?:\(\s*(?!(?:vs|versus|than|from|against|compared|up|down|prior|last|previous)\b)"
    r"[a-z][\w.-]*\s+|\(?\s*(?:(?:for|of|at|in|on|totalling|worth)\s+)?)"
)
"""Between a bound number and the next that shares its binding: "West (59.6%, 305 done)",
"243 units and $9.56M", "Google 646 (avg 4.09)" — not "646 (vs 597)", a figure compared."""
_HEAD = re.compile(
    r"^[ \t]*(?:[-*•]|\d{1,2}[.)])?[ \t]*(?P<head>[^:—–\n\d$€£%]{1,60}?|[^:—–\n]{0,40}?"
    r"(?:\d{1,2}\s+[A-Z][a-z]+|[A-Z][a-z]+\s+\d{4}|Q[1-4](?:\s+\d{4})?|\d{4}))"
    r"[ \t]*(?::|\s[—–-]\s)",
    re.MULTILINE,
)
_HEADER_UNITS: tuple[tuple[re.Pattern[str], Unit], ...] = (
    (re.compile(r"%|\bpct\b|\bpercent", re.IGNORECASE), "percent"),
    (re.compile(r"\(\s*(?:\$|usd|eur|€|£)\s*\)|\$", re.IGNORECASE), "currency"),
    (re.compile(r"\(\s*(?:min|mins|minutes)\s*\)|\bminutes\b", re.IGNORECASE), "minutes"),
    (re.compile(r"\(\s*(?:h|hrs?|hours)\s*\)|\bhours\b", re.IGNORECASE), "hours"),
    (re.compile(r"\(\s*days?\s*\)|\bdays\b", re.IGNORECASE), "days"),
)
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_BARE = frozenset({"count", "number", "fraction"})


@dataclass
class Binding:
    """What one claim is about, read from the answer around it."""

    entities: set[str] = field(default_factory=set)
    periods: list[Period] = field(default_factory=list)
    meaning: frozenset[str] = frozenset()
    unit: Unit | None = None
    """The unit a table's column header gives a bare number ("Avg wait (min)" → minutes)."""
    measure: Measure | None = None
    """The unit of measure its text or its table column's header states ("6,860 t", "Net t")."""
    per_item: bool = False
    """Its measure is per item ("32 t a load")."""
    clause: tuple[int, int] = (0, 0)
    sentence: tuple[int, int] = (0, 0)
    in_table: bool = False
    lead_in: frozenset[str] = frozenset()
    """Words of the line that introduces the list or table the claim is in."""
    lead_start: int = 0
    """Where the claim's list or table (with its introducing line) starts."""
    context: frozenset[str] = frozenset()
    """Words of its sentence (or table row and header) and of the line introducing its list."""
    loose_periods: list[Period] = field(default_factory=list)
    """Periods its sentence names that no claim took ("In 2024, a partial year, X led with …")."""
    answer_labels: frozenset[str] = frozenset()
    """Keys of every label the answer names: a reference's own label it never names cannot
    tell that reference's figure from a named entity's ("all regions" beside "North")."""


@dataclass
class AnswerContext:
    """The answer and question with their label and period mentions, parsed once."""

    answer: str
    question: str
    forms: dict[str, Form]
    codes: frozenset[str] = frozenset()
    """Labels written in digits ("99213", "1"): named only by the first cell of a table row."""
    values: tuple[int, ...] = ()
    """Where the claims start: a number the extractor took for a value is no day of a date."""
    layout: Layout = field(init=False)
    labels: list[LabelMention] = field(init=False)
    periods: list[Mention] = field(init=False)
    asked_labels: list[LabelMention] = field(init=False)
    asked_periods: list[Mention] = field(init=False)
    by_grain: frozenset[int] = field(init=False)
    """Where the answer names a period by its grain alone ("for the quarter"): the scope of a
    level, never an end of a change."""
    _headers: dict[str, tuple[list[Period], set[str]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.layout = Layout(self.answer)
        self.labels = sorted(
            label_mentions(self.answer, self.forms) + self._code_rows(), key=lambda m: m.start
        )
        asked = self.question.lower()
        self.periods = [  # "last year" means the reference's own period when the question says so
            m
            for m in values_not_days(self.answer, period_mentions(self.answer), self.values)
            if (m.period.grain != "other" or self.answer[m.start : m.end].lower() not in asked)
            and self.label_around(m.start, m.end) is None  # "Mustang 2023 GT" names no year
        ]
        self.asked_labels = label_mentions(self.question, self.forms)
        self.asked_periods = period_mentions(self.question)
        by_grain = grain_mentions(self.answer, [m.period for m in self.asked_periods])
        self.periods = sorted(self.periods + by_grain, key=lambda m: m.start)
        self.by_grain = frozenset(m.start for m in by_grain)

    def _code_rows(self) -> list[LabelMention]:
        """A table row headed by a code the references label rows with ("| 1 | 727 | 6.4% |"
        beside a party size "1"), or by the number of a label that a word of the column's
        header completes ("| 4 | 36.3 |" under "ESI level" beside "ESI 4"), when no other cell
        of it names a label: the row is that one."""
        forms = {form.lower(): form for form in self.forms}
        found = []
        for table in self.layout.tables:
            words = re.findall(r"[A-Za-z][\w-]*", table.header[0]) if table.header else []
            for row in (r for r in table.rows if r.cells):
                head, *others = row.cells
                text = head.text.strip(" *_`")
                completed = (forms.get(f"{w} {text}".lower()) for w in words if text.isdigit())
                named = next(
                    (f for f in completed if f is not None), text if text in self.codes else None
                )
                if named is not None and not label_mentions(
                    " ".join(c.text for c in others), self.forms
                ):
                    start = head.start + head.text.index(text)
                    found.append(LabelMention(start, start + len(text), key(named)))
        return found

    @cached_property
    def _label_starts(self) -> list[int]:
        return [m.start for m in self.labels]

    @cached_property
    def _period_starts(self) -> list[int]:
        return [m.start for m in self.periods]

    @cached_property
    def label_words(self) -> frozenset[str]:
        """Words of every label the answer names."""
        return frozenset(w for m in self.labels for w in tokens(self.answer[m.start : m.end]))

    @cached_property
    def answer_words(self) -> frozenset[str]:
        """Words of the answer, read once: excuses and rankings read them per claim."""
        return tokens(self.answer)

    @cached_property
    def question_words(self) -> frozenset[str]:
        """Words of the question, read once: excuses and rankings read them per claim."""
        return tokens(self.question)

    @cached_property
    def label_keys(self) -> frozenset[str]:
        """Keys of every label the answer names."""
        return frozenset(m.key for m in self.labels)

    @cached_property
    def _numbers_in_names(self) -> dict[tuple[str, str], str]:
        """(word, number) → the label in which the number follows that word ("ML-G10 400")."""
        out: dict[tuple[str, str], str] = {}
        for form in self.forms:
            for word, number in itertools.pairwise(form.split()):
                if number.isdigit() and not word.islower():
                    out.setdefault((word, number), form)
        return out

    def name_ending_at(self, start: int, end: int) -> str | None:
        """The label a bare number closes, written right after the label's word before it
        ("Qcells (Q.PEAK DUO BLK ML-G10 400)"): the rest of the name may be written otherwise
        and go unmatched, the number is the name's still."""
        word = _WORD_BEFORE.search(self.answer, max(0, start - 40), start)
        if word is None or self.answer[end : end + 1].isalnum():
            return None
        return self._numbers_in_names.get((word["word"], self.answer[start:end]))

    def labels_in(self, start: int, end: int) -> list[LabelMention]:
        return [self.labels[i] for i in starting_within(self._label_starts, start, end)]

    def periods_in(self, start: int, end: int) -> list[Mention]:
        return [self.periods[i] for i in starting_within(self._period_starts, start, end)]

    def names_in_header(self, header: str) -> tuple[list[Period], set[str]]:
        """(periods, label keys) a table's column header names, read once per header."""
        if header not in self._headers:
            self._headers[header] = (
                [m.period for m in period_mentions(header)],
                {m.key for m in label_mentions(header, self.forms)},
            )
        periods, entities = self._headers[header]
        return list(periods), set(entities)

    def labels_as_a_range(self, start: int, end: int) -> bool:
        """Are two labels of ``start``–``end`` written as the ends of a range ("Friday to
        Sunday", "Q1–Q3"), which names the rows between them too?"""
        named = self.labels_in(start, end)
        return any(
            _RANGE_JOINT.fullmatch(self.answer, a.end, b.start)
            for a, b in itertools.pairwise(named)
        )

    def label_before(self, start: int) -> LabelMention | None:
        """The last label mention starting before ``start``: the row the answer last named."""
        i = bisect.bisect_left(self._label_starts, start) - 1
        return self.labels[i] if i >= 0 else None

    def label_around(self, start: int, end: int) -> LabelMention | None:
        """The label mention ``start``–``end`` is written inside, if any."""
        i = bisect.bisect_right(self._label_starts, start) - 1
        mention = self.labels[i] if i >= 0 else None
        return mention if mention is not None and end <= mention.end else None


_WORD_BEFORE = re.compile(r"(?<![^\s(\[\"'“])(?P<word>[^\s()\[\]\"'“”]+)[ \t]+$")
_RANGE_JOINT = re.compile(r"\s*(?:[-–—]|(?i:to|through|thru|until|till))\s*")
_PARENTHETICAL = re.compile(r"\([^()]*\)")
_ITS_OWN = re.compile(r"\s*\(\s*|['’]s?\s+")
"""What joins a label to a level it owns whatever else takes it: a bracket opened after it
("against Q1 2024 (69.3%) the gain is 1.6 points"), a possessive ("Lakeside's 305")."""
_AFTER_ASIDE = re.compile(
    r"[ \t]+[—–][ \t][^—–()\n;.]*[ \t][—–][ \t]+(?:[a-z][\w-]*[ \t]+){0,5}(?:[$€£][ \t]?)?"
)
"""Between a name and the figure its verb states past an aside between dashes ("Harbor Point
— the biggest, with 571 loans — averages 3.1 days"): the aside keeps its own figures too."""
_LINKING = re.compile(
    r"\s*(?:[a-z-]+\s+){0,2}(?i:in|for|during|at|on|by|as\s+of|over|across)\s+(?:the\s+)?"
)


_LEFT_OUT = re.compile(
    r"\b(?i:outside(?:\s+of)?|except(?:\s+for)?|excepting|excluding|apart\s+from|aside\s+from|"
    r"other\s+than|besides|not\s+counting|leaving\s+(?:aside|out))\s+(?:(?i:the)\s+)?$"
)
"""Words before a name or period that leave it out of what the figures near it are for:
"Outside July, months ranged from 8 to 20"."""


def left_out(text: str, start: int) -> bool:
    """Is the label or period at ``start`` named as what is left out ("except July",
    "other than the North")? The figures of its clause are then for the rest, not for it."""
    return bool(_LEFT_OUT.search(text, max(0, start - 30), start))


_HEADED = re.compile(r"[ \t]*[—–][ \t]*(?:[$€£][ \t]?)?")
"""Between a label and the figure it heads: "2023 — 9.0%, 2024 — 10.3%". The dash pairs them
as a colon does; the comma before the next label is the break."""
_HEAD_OPENS = re.compile(r"(?:^|[:;,(|])[ \t]*(?:[-*•][ \t]*)?$", re.MULTILINE)
"""Before a label that heads a figure: a line, a list or a clause opens on it; not "for 2024 —
about 0.1 weeks faster", whose dash ends the phrase the label closes."""


def separation(between: str) -> int:
    """Clause breaks between a label and a number; an aside in brackets is not one."""
    between = _PARENTHETICAL.sub(" ", between)
    return sum(weight * len(p.findall(between)) for p, weight in _SEPARATORS)


_AFTER_STOP = re.compile(
    r"[$€£%;:,.()|—–]|(?<![A-Za-z])\d|\b(?:and|or|but|while|whereas|versus|vs)\b"
)  # "E911 readiness 87.3% and NAS readiness 56.1%": the words after "and" are the next's


def _breaks(text: str, label_start: int, between: str, *, label_first: bool) -> int:
    """The clause breaks between a label and a number, none when the label heads the number
    after it past a dash ("…: 2023 — 9.0%, 2024 — 10.3%")."""
    if (
        label_first
        and _HEADED.fullmatch(between)
        and _HEAD_OPENS.search(text, max(0, label_start - 5), label_start)
    ):
        return 0
    return separation(between)


def _words_around(
    text: str, start: int, end: int, limit_start: int, limit_end: int
) -> frozenset[str]:
    """Words that name the quantity: up to three after the number and six before it, within
    the clause and not past another number."""
    after = re.split(_AFTER_STOP, text[end:limit_end], maxsplit=1)[0]
    segments = re.split(r"[$€£%;:.()|—–]|(?<![A-Za-z])\d", text[limit_start:start])
    before = segments[-1]
    if len(segments) > 1:  # the words right after the previous number are its own
        joined = re.split(r"[,;]|\b(?:and|but|while|whereas|or|versus|vs)\b", before)
        if len(joined) > 1:  # "$582K in labour and $545K in parts", "…each, and card fees …"
            before = joined[-1]
        else:
            before = re.split(r"\b(?:across|in|at|with|of|for|from|over|to)\b", before)[-1]
    words = _WORD.findall(after)[:3] + _WORD.findall(before)[-6:]
    return tokens(" ".join(words))


def _owns(between: str) -> bool:
    """Does a name own the figure ``between`` leads to, whatever else takes the name?"""
    return bool(_ITS_OWN.fullmatch(between) or _AFTER_ASIDE.fullmatch(between))


def _clause(ctx: AnswerContext, position: int) -> tuple[int, int]:
    start, end = ctx.layout.sentence_of(position)
    line = ctx.layout.line_of(position)
    start, end = max(start, line[0]), min(end, line[1])
    left = max(
        (m.end() for m in re.finditer(r"[;]|\s[—–]\s", ctx.answer[start:position])), default=0
    )
    right = re.search(r"[;]|\s[—–]\s", ctx.answer[position:end])
    return start + left, (position + right.start()) if right else end


def _attach(
    claims: Sequence[Claim],
    mentions: Sequence[tuple[int, int, object]],
    ctx: AnswerContext,
    taken: set[int] | None = None,
) -> dict[str, list[object]]:
    """Each mention goes to the claim closest to it in its sentence (fewest clause breaks, then
    distance, then the claim after it); a claim right after a bound one shares its binding.
    ``taken`` collects the starts of the mentions some claim took."""
    out: dict[str, list[object]] = {c.id: [] for c in claims}
    by_sentence = _by_sentence(claims, ctx)
    takers = _by_sentence([c for c in claims if c.kind != "ranking"], ctx)  # a ranking names
    starts = {i: [c.span[0] for c in group] for i, group in takers.items()}  # its own entity
    rankings = [c.span for c in claims if c.kind == "ranking"]
    for start, end, item in mentions:
        ranked = next((s for s in rankings if s[0] <= start and end <= s[1]), None)
        index = ctx.layout.sentence_index(start)
        local = takers.get(index, [])
        if local:
            cut = bisect.bisect_left(starts[index], end)
            local = local[max(0, cut - _NEAREST) : cut + _NEAREST]
        scored = []
        owner = None
        for claim in local:
            follows = claim.span[0] >= end
            if not follows and claim.span[1] > start:
                continue
            if (
                ranked is not None
                and claim.kind == "numeric"
                and claim.span[1] <= ranked[0]
                and separation(ctx.answer[claim.span[1] : ranked[0]])
            ):  # "15,800 t across January–June, with March the busiest": the ranking's own
                continue  # entity, not the figure's in the clause before it
            between = (
                ctx.answer[end : claim.span[0]] if follows else ctx.answer[claim.span[1] : start]
            )
            if follows and claim.kind == "numeric" and _owns(between):
                owner = claim.id
            linked = not follows and bool(_LINKING.fullmatch(between))
            breaks = _breaks(ctx.answer, start, between, label_first=follows)
            scored.append((breaks, len(between), not linked, not follows, claim.id))
        chosen = {owner} if owner is not None else set()
        if scored and min(scored)[0] <= _MAX_SEPARATION:
            chosen.add(min(scored)[-1])
        for taker in chosen:
            out[taker].append(item)
            if taken is not None:
                taken.add(start)
    for local in by_sentence.values():
        for before, after in itertools.pairwise(local):
            between = ctx.answer[before.span[1] : after.span[0]]
            if not out[after.id] and out[before.id] and _CONTINUES.fullmatch(between):
                out[after.id] = list(out[before.id])
    return out


def _by_sentence(claims: Sequence[Claim], ctx: AnswerContext) -> dict[int, list[Claim]]:
    """The claims of each sentence (by its index), in order."""
    out: dict[int, list[Claim]] = {}
    for claim in sorted(claims, key=lambda c: c.span):
        index = ctx.layout.sentence_index(claim.span[0])
        if index >= 0:
            out.setdefault(index, []).append(claim)
    return out


def _table_binding(ctx: AnswerContext, claim: Claim, binding: Binding) -> bool:
    found = ctx.layout.cell_of(claim.span[0])
    if found is None:
        return False
    table, row, cell = found
    binding.in_table = True
    header = table.header[cell.column] if cell.column < len(table.header) else ""
    others = [c for c in row.cells if c is not cell]
    for other in others:
        binding.entities |= {m.key for m in ctx.labels_in(other.start, other.end)}
        binding.periods += [m.period for m in ctx.periods_in(other.start, other.end)]
    periods, entities = ctx.names_in_header(header)
    binding.periods += periods
    binding.entities |= entities
    words = tokens(header) | numbered(header) | tokens(re.sub(r"[\d$€£%,.]+", " ", cell.text))
    first = row.cells[0] if row.cells else None
    if first is not None and first is not cell and not ctx.labels_in(first.start, first.end):
        words |= tokens(first.text)  # a transposed table: the row names the metric
    binding.meaning = frozenset(words)
    if claim.unit in _BARE and (measure := measure_in_header(header)) is not None:
        binding.measure, binding.unit = measure, "number"
    elif claim.unit in _BARE:
        binding.unit = next((u for p, u in _HEADER_UNITS if p.search(header)), None) or (
            unit_from_name(header)
            if unit_from_name(header) in ("minutes", "hours", "days")
            else None
        )
    binding.clause = (row.start, row.end)
    binding.sentence = (row.start, row.end)
    return True


def _nearest_of_each_grain(claim: Claim, periods: list[Period], ctx: AnswerContext) -> list[Period]:
    """Two months (or two years) bound to one level cannot both be its period: "January had
    less, though February brought $687K" — the nearer one is. Nor can a period and one
    within it across a clause break ("about 828 hours for Q4 2024, with December the busiest
    month"), while "2024 began with 16 in the week of 1 January" is that week's. A change
    keeps both ends."""
    if claim.kind == "comparison" or (
        len(set(periods)) == len({p.grain for p in periods})
        and not any(_nested(a, b) for a in periods for b in periods)
    ):
        return periods
    sentence = ctx.layout.sentence_of(claim.span[0])  # where the periods bound to it are named

    def distance(period: Period) -> tuple[int, int, bool]:
        def one(start: int, end: int) -> tuple[int, int, bool]:
            before = end <= claim.span[0]
            between = (
                ctx.answer[end : claim.span[0]] if before else ctx.answer[claim.span[1] : start]
            )
            breaks = _breaks(ctx.answer, start, between, label_first=before)
            return breaks, len(between), before  # "to 367 in Q1 2025"

        return min(one(m.start, m.end) for m in ctx.periods_in(*sentence) if m.period == period)

    kept: list[Period] = []
    for period in sorted(dict.fromkeys(periods), key=distance):
        if all(
            k.grain != period.grain
            and not (_nested(period, k) and distance(period)[0] > distance(k)[0])
            for k in kept
        ):
            kept.append(period)
    return [p for p in dict.fromkeys(periods) if p in kept]


def _nested(farther: Period, nearer: Period) -> bool:
    """Is the farther period within the nearer one of a year, or the nearer one of a
    year within it? A month named without its year leaves the year around it standing ("In
    2024, March had 412")."""
    if farther.grain == nearer.grain or nearer.year is None:
        return False
    return farther.within(nearer) or (farther.year is not None and nearer.within(farther))


_JOINED = re.compile(r"\s+(?:and|&)\s+")
_EACH = re.compile(r"(?i)\b(?:each|both|apiece|respectively|alike)\b")


def _with_joined(claim: Claim, ctx: AnswerContext, periods: list[Period]) -> list[Period]:
    """The periods with those written joined to one of them by "and" ("June and July brought
    54"): an amount stated for both is for the two together, which no one row of either is,
    unless its words give it to each ("both came in at 201"). A rate holds for each."""
    sentence = ctx.layout.sentence_of(claim.span[0])
    if claim.unit not in ("count", "currency") or _EACH.search(ctx.answer, *sentence):
        return periods
    named = ctx.periods_in(*sentence)
    joined = [
        (a.period, b.period)
        for a, b in itertools.pairwise(named)
        if a.period.grain == b.period.grain and _JOINED.fullmatch(ctx.answer, a.end, b.start)
    ]
    found = list(periods)
    for pair in joined:
        if any(p in found for p in pair):
            found += [p for p in pair if p not in found]
    return found


def bind(claims: Sequence[Claim], ctx: AnswerContext) -> dict[str, Binding]:
    """The binding of every claim of the answer."""
    bindings = {c.id: Binding(answer_labels=ctx.label_keys) for c in claims}
    prose = []
    for claim in claims:
        if not _table_binding(ctx, claim, bindings[claim.id]):
            prose.append(claim)
    named = [m for m in ctx.labels if not left_out(ctx.answer, m.start)]
    label_items = [(m.start, m.end, m.key) for m in named]
    dated = [m for m in ctx.periods if not left_out(ctx.answer, m.start)]
    period_items = [(m.start, m.end, m.period) for m in dated if m.start not in ctx.by_grain]
    grain_items = [(m.start, m.end, m.period) for m in dated if m.start in ctx.by_grain]
    stated = [c for c in prose if ctx.label_around(*c.span) is None]  # not "Route 66" in a name
    by_label = _attach(stated, label_items, ctx)
    taken: set[int] = set()
    by_period = _attach(stated, period_items, ctx, taken)
    levels = [c for c in stated if c.kind != "comparison"]
    for claim_id, found in _attach(levels, grain_items, ctx, taken).items():
        by_period[claim_id] += found
    heads = _line_heads(ctx, stated)
    lead_words: dict[tuple[int, int], frozenset[str]] = {}  # a list's claims share one line
    for claim in claims:
        binding = bindings[claim.id]
        if (written := measure_written(claim.text)) is not None:
            binding.measure = written
            binding.per_item = per_item_after(ctx.answer, claim.span[1]) or bool(
                search_before(EACH_BEFORE, ctx.answer, claim.span[0], 30)
            )
        start, end = ctx.layout.sentence_of(claim.span[0])
        lead = _lead_in(ctx, claim.span[0])
        if lead is not None:
            if lead not in lead_words:
                lead_words[lead] = tokens(ctx.answer[lead[0] : lead[1]])
            binding.lead_start = lead[0]
            binding.lead_in = lead_words[lead]
        elif ctx.layout.item_of(claim.span[0]) or ctx.layout.cell_of(claim.span[0]):
            binding.lead_start = 0  # a list or table the answer opens with, no line before it
        else:
            binding.lead_start = start
        binding.context = binding.lead_in | tokens(ctx.answer[start:end]) | binding.meaning
    for claim in prose:
        binding = bindings[claim.id]
        binding.entities = {str(k) for k in by_label.get(claim.id, ())}
        binding.periods = _with_joined(
            claim,
            ctx,
            _nearest_of_each_grain(
                claim, [p for p in by_period.get(claim.id, ()) if isinstance(p, Period)], ctx
            ),
        )
        binding.clause = _clause(ctx, claim.span[0])
        binding.sentence = ctx.layout.sentence_of(claim.span[0])
        binding.loose_periods = [
            m.period
            for m in ctx.periods_in(*binding.sentence)
            if m.start not in taken
            and m.period.grain != "other"
            and not left_out(ctx.answer, m.start)
        ]
        line = ctx.layout.line_of(claim.span[0])
        head = heads.get(line) or _item_names(ctx, claim.span[0])
        if head is not None:
            entities, periods, where = head
            if not binding.entities:
                binding.entities = set(entities)
            if not binding.periods:  # "March: 412 visits. March 2025 had 380" — its own period
                own = not binding.sentence[0] <= where < binding.sentence[1]
                binding.periods = list(binding.loose_periods if own else periods) or list(periods)
        binding.meaning = _words_around(ctx.answer, claim.span[0], claim.span[1], *binding.clause)
        if binding.measure is not None:  # "36,790 GB" names its quantity as total_data_gb does
            binding.meaning |= tokens(binding.measure.name)
        binding.context |= binding.meaning
    _from_to(prose, bindings, ctx)
    _whole_after_part(prose, bindings, ctx)
    _elided(prose, bindings, ctx)
    _respectively(prose, bindings, ctx)
    _lead_in_periods(prose, bindings, ctx)
    return bindings


_OF = re.compile(r"[^\S\n]+(?i:of|out\s+of)[^\S\n]+(?:(?i:the|a|an)[^\S\n]+)?")


def _whole_after_part(
    claims: Sequence[Claim], bindings: dict[str, Binding], ctx: AnswerContext
) -> None:
    """ "~4,968 h of ~10,000": a bare figure right after "of" a figure written in a unit of
    time or of measure is in that unit too (a whole after its part). Not after a rate: "45% of
    1,200" counts things."""
    for before, claim in itertools.pairwise(claims):
        ahead = bindings[before.id]
        if (
            _OF.fullmatch(ctx.answer, before.span[1], claim.span[0])
            and measure_written(claim.text) is None
            and claim.unit in (None, "count", "number")
            and (before.unit in DURATION_UNITS or ahead.measure is not None)
        ):
            bindings[claim.id].unit = before.unit if ahead.measure is None else "number"
            bindings[claim.id].measure = ahead.measure


_COMPARED = re.compile(r"\b(?i:against|versus|vs|compared|than|from|over)\b|\(")
_BASE_BEFORE = re.compile(
    r"\b(?i:against|versus|vs\.?|compared\s+(?:with|to)|than|from|since|over)\s+(?:the\s+)?$"
)


def written_as_base(text: str, start: int, earliest: int = 0) -> bool:
    """Is what starts at ``start`` written as what a change is measured against ("vs 2024",
    "compared with Q1", "over the prior year")? Only the words since ``earliest`` count."""
    return bool(_BASE_BEFORE.search(text, max(earliest, start - 20), start))


def _lead_in_periods(
    claims: Sequence[Claim], bindings: dict[str, Binding], ctx: AnswerContext
) -> None:
    """ "Occupancy in 2025, against 2024:" then "- North: 77.4%, up 6.4 points": a level of a
    list item that names no period is for the one period its lead-in line names, a period
    after "against", "vs", "than" or "since" being the base of a change. Only the item's
    figures before any comparison or bracket ("77.4% (prior year 69.5%)")."""
    for claim in claims:
        binding = bindings[claim.id]
        item = ctx.layout.item_of(claim.span[0])
        lead = ctx.layout.lead_in(claim.span[0])
        if claim.kind == "numeric" and item is None:
            _colon_lead_period(claim, binding, ctx)
        if claim.kind != "numeric" or binding.periods or item is None or lead is None:
            continue
        if _COMPARED.search(ctx.answer, item.start, claim.span[0]):
            continue
        named = {
            m.period
            for m in ctx.periods_in(*lead)
            if m.period.grain != "other" and not written_as_base(ctx.answer, m.start, lead[0])
        }
        if len(named) == 1:
            binding.periods = list(named)


def _colon_lead_period(claim: Claim, binding: Binding, ctx: AnswerContext) -> None:
    """ "Q4 2025 against Q4 2024: Saltillo rose 10.6% to 252,901": a level after a sentence's
    lead-in that names a period and the base it is compared with is for that period, like a
    list item's under such a line, when it names none of its own."""
    start, text = binding.sentence[0], ctx.answer
    colon = text.rfind(":", start, claim.span[0])
    if colon < 0 or ctx.periods_in(colon, claim.span[0]):
        return
    if _COMPARED.search(text, colon, claim.span[0]):
        return
    mentions = [m for m in ctx.periods_in(start, colon) if m.period.grain != "other"]
    named = {m.period for m in mentions if not written_as_base(text, m.start, start)}
    if (
        len(named) == 1
        and len(mentions) > 1
        and set(binding.periods) <= {m.period for m in mentions}
    ):
        binding.periods = list(named)


_FROM = re.compile(r"\b(?i:from)\s+$")
_TO = re.compile(r"\s*(?:[a-z][\w-]*\s+)?(?i:to)\s+")


def _from_to(claims: Sequence[Claim], bindings: dict[str, Binding], ctx: AnswerContext) -> None:
    """ "fell from 292 to 271" states one quantity twice: the second number is named by the
    words of the first ("Low-severity claims grew from 306 to 388"). With two periods named in
    the sentence (else the question), the first is for the earlier, the second for the later."""
    ordered = sorted(claims, key=lambda c: c.span)
    for first, second in itertools.pairwise(ordered):
        if not _FROM.search(ctx.answer[max(0, first.span[0] - 12) : first.span[0]]):
            continue
        if _each_its_period(first, second, bindings, ctx):
            continue
        if not _TO.fullmatch(ctx.answer[first.span[1] : second.span[0]]):
            continue
        bindings[second.id].meaning |= bindings[first.id].meaning
        bindings[second.id].context |= bindings[first.id].meaning
        if ctx.periods_in(first.span[1], second.span[0]):
            continue  # "from 281 in April to 305 in May" names each number's own period
        start, end = ctx.layout.sentence_of(first.span[0])
        named = list(dict.fromkeys(m.period for m in ctx.periods_in(start, end)))
        if len(named) != 2:
            named = list(dict.fromkeys(m.period for m in ctx.asked_periods))
        if len(named) == 2 and all(p.grain != "other" for p in named):
            earlier, later = sorted(named, key=lambda p: p.start)
            bindings[first.id].periods = [earlier]
            bindings[second.id].periods = [later]


_IN_PERIOD = re.compile(r"\s*(?:[a-z][\w-]*\s+)?(?:(?i:in|for|during|at|on)\s+)?")
_THEN_TO = re.compile(r",?\s+(?i:to)\s+")


def _each_its_period(
    first: Claim, second: Claim, bindings: dict[str, Binding], ctx: AnswerContext
) -> bool:
    """ "from 748 orders in 2024 to 936 in 2025": each number of a "from … to …" is for the
    period written right after it, and the second states the first's quantity."""
    text = ctx.answer
    between = ctx.periods_in(first.span[1], second.span[0])
    after = ctx.periods_in(second.span[1], second.span[1] + 20)
    if len(between) != 1 or not after:
        return False
    period, then = between[0], after[0]
    if not (
        _IN_PERIOD.fullmatch(text, first.span[1], period.start)
        and _THEN_TO.fullmatch(text, period.end, second.span[0])
        and _IN_PERIOD.fullmatch(text, second.span[1], then.start)
    ):
        return False
    bindings[first.id].periods = [period.period]
    bindings[second.id].periods = [then.period]
    bindings[second.id].meaning |= bindings[first.id].meaning
    bindings[second.id].context |= bindings[first.id].meaning
    return True


_PARALLEL = re.compile(
    r"\b(?i:versus|vs\.?|against|compared\s+(?:with|to)|from|to|and)\s+"
    r"(?:(?i:about|roughly|around|approximately|nearly|almost|just|only)\s+|~\s*)?$"
)
"""The words joining a second figure to a first it parallels: "421 minutes versus 34",
"2.7k hours in 2024, up from 2.1k", "69 claims … and about 57"."""
_OWN_WORDS_END = re.compile(r"[,.;:()\[\]—–\n]|\b(?:and|but|while|whereas|versus|vs|or)\b")
_FILLER = frozenset({"in", "for", "from", "at", "on", "by", "during", "the", "a", "an", "of"})
_ELIDED_UNITS = frozenset({"currency", "hours", "minutes", "seconds", "days", "weeks"})


def _elided(claims: Sequence[Claim], bindings: dict[str, Binding], ctx: AnswerContext) -> None:
    """ "421 minutes of labour versus 34 for an oil change": a bare figure set against the one
    before it, with no words of its own after it but a label or period, leaves its unit and
    noun unsaid — they are the first figure's. A rate is carried only over a contrast ("vs"),
    never over "and" ("12% of deals and 34 in March" counts deals) nor "from" ("up 69%, from
    175.5k" is the change's base)."""
    for local in _by_sentence(claims, ctx).values():
        for first, second in itertools.pairwise(local):
            joint = _PARALLEL.search(ctx.answer, first.span[1], second.span[0])
            if (
                first.kind != "numeric"
                or second.kind != "numeric"
                or second.unit not in _BARE - {"fraction"}
                or joint is None
                or not says_nothing_after(second, ctx)
            ):
                continue
            unit = bindings[first.id].unit or first.unit
            contrast = joint.group().lower().startswith(("versus", "vs", "against", "compared"))
            if unit == "currency" and not _written_alike(first, second):
                continue  # "£977K from 98,323": the tickets it came from, not money
            if unit in _ELIDED_UNITS or (unit in ("percent", "points") and contrast):
                bindings[second.id].unit = unit
            elif unit != second.unit:
                continue
            bindings[second.id].meaning |= bindings[first.id].meaning
            bindings[second.id].context |= bindings[first.id].meaning


SCALED = re.compile(r"(?i)\d\s*(?:k|m|mn|bn?|thousand|million|billion)\b")
"""A figure written with a scale suffix or word: "2.4K", "$4.1M", "3 million"."""


def _written_alike(first: Claim, second: Claim) -> bool:
    """Are two figures written in one style, both scaled ("$4.1M … 3.9M") or both in full, and
    within ten times of each other: one amount stated twice, the second leaving its sign out?"""
    if bool(SCALED.search(first.text)) != bool(SCALED.search(second.text)):
        return False
    a, b = abs(first.value or 0.0), abs(second.value or 0.0)
    return min(a, b) * 10 >= max(a, b)


def says_nothing_after(
    claim: Claim, ctx: AnswerContext, allowed: frozenset[str] = frozenset()
) -> bool:
    """Are the words after the claim, up to its clause's end, only labels, periods, joining
    words ("34 for an oil change", "2.1k in 2023") and words whose stems are ``allowed``?"""
    start, end = claim.span[1], ctx.layout.sentence_of(claim.span[0])[1]
    stop = _OWN_WORDS_END.search(ctx.answer, start, end)
    end = stop.start() if stop else end
    named = [(m.start, m.end) for m in ctx.labels_in(start, end)]
    named += [(m.start, m.end) for m in ctx.periods_in(start, end)]
    text = ctx.answer[start:end]
    for first, last in sorted(named, reverse=True):
        first, last = max(first, start) - start, min(last, end) - start
        text = text[:first] + " " * (last - first) + text[last:]
    return all(w.lower() in _FILLER or tokens(w) & allowed for w in _WORD.findall(text))


_LIST_JOINT = re.compile(r"\s*(?:,|\band\b|&|;|\brespectively\b)?\s*")


def _respectively(
    claims: Sequence[Claim], bindings: dict[str, Binding], ctx: AnswerContext
) -> None:
    """ "in 2023 and 2024 (4.385% and 4.358%)": the numbers in brackets go with the periods (or
    labels) listed just before them, in order; "paper was worth 3.5 times glass: $131.75 versus
    $37.50": two figures set against each other after a colon go with the two labels before
    it, in order."""
    ordered = sorted(claims, key=lambda c: c.span)
    starts = [c.span[0] for c in ordered]
    for m in re.finditer(r"\(([^()]*)\)", ctx.answer):
        inside = [ordered[i] for i in starting_within(starts, m.start() + 1, m.end())]
        if len(inside) < 2:
            continue
        gaps = [ctx.answer[a.span[1] : b.span[0]] for a, b in itertools.pairwise(inside)]
        if not all(_LIST_JOINT.fullmatch(g) for g in gaps):
            continue
        start = ctx.layout.sentence_of(m.start())[0]
        if periods := _listed(ctx.periods_in(start, m.start()), m.start(), len(inside), ctx):
            for claim, period in zip(inside, periods, strict=True):
                bindings[claim.id].periods = [period.period]
        elif labels := _listed(ctx.labels_in(start, m.start()), m.start(), len(inside), ctx):
            for claim, label in zip(inside, labels, strict=True):
                bindings[claim.id].entities = {label.key}
    for a, b in itertools.pairwise(ordered):  # "paper … 3.5 times glass: $131.75 versus $37.50"
        start, end = ctx.layout.sentence_of(a.span[0])
        colon = ctx.answer.rfind(":", start, a.span[0])
        if colon < 0 or ctx.answer[colon + 1 : a.span[0]].strip(" *_") or b.span[0] >= end:
            continue
        if not _VERSUS.fullmatch(ctx.answer, a.span[1], b.span[0]):
            continue
        named = list({m.key: m for m in ctx.labels_in(start, colon)}.values())
        if len(named) == 2:
            bindings[a.id].entities, bindings[b.id].entities = {named[0].key}, {named[1].key}


_VERSUS = re.compile(r"\s+(?i:versus|vs\.?|against|compared\s+(?:with|to))\s+")
_Listed = TypeVar("_Listed", Mention, LabelMention)


def _listed(mentions: list[_Listed], end: int, count: int, ctx: AnswerContext) -> list[_Listed]:
    """The last ``count`` mentions before ``end``, if they are written as a list ("2023 and
    2024"), else none."""
    listed = [x for x in mentions if x.end <= end][-count:]
    if len(listed) != count:
        return []
    joints = [ctx.answer[a.end : b.start] for a, b in itertools.pairwise(listed)]
    return listed if all(_LIST_JOINT.fullmatch(j) for j in joints) else []


def _lead_in(ctx: AnswerContext, position: int) -> tuple[int, int] | None:
    """The line before the list or table holding ``position`` ("Group revenue by year:")."""
    in_block = ctx.layout.cell_of(position) is not None or ctx.layout.item_of(position) is not None
    return ctx.layout.lead_in(position) if in_block else None


def _item_names(ctx: AnswerContext, position: int) -> tuple[set[str], list[Period], int] | None:
    """A list item naming one entity (or one period) is about it throughout; a nested item
    naming neither is about what its parent item names ("- **North** — 637 visits" then
    "  - no-shows 6.8%, rating 4.3")."""
    item = ctx.layout.item_of(position)
    if item is None:
        return None
    entities, periods = _names_of(ctx, item)
    if not entities and not periods and (parent := _parent_item(ctx, item)) is not None:
        entities, periods = _names_of(ctx, parent)
        position = parent.start
    return entities, periods, position


_ALSO_NAMED = re.compile(r"[ \t]*(?:\(|/|,)[ \t]*")
"""Between two names of one thing: "Grace Patel (LO-102)", "LO-102 / Grace Patel"."""


def _names_of(ctx: AnswerContext, item: ListItem) -> tuple[set[str], list[Period]]:
    """The one entity and the one period an item names; a name written with its code beside
    it ("Grace Patel (LO-102)") names one entity."""
    mentions = ctx.labels_in(item.start, item.end)
    entities = {m.key for m in mentions}
    one = len(mentions) == 2 and _ALSO_NAMED.fullmatch(
        ctx.answer, mentions[0].end, mentions[1].start
    )
    periods = list(dict.fromkeys(m.period for m in ctx.periods_in(item.start, item.end)))
    named = entities if len(entities) == 1 or one else set()
    return named, (periods if len(periods) == 1 else [])


_MAX_NESTED = 50
"""Items looked back over for a nested item's parent (a list nests a handful deep)."""


def _parent_item(ctx: AnswerContext, item: ListItem) -> ListItem | None:
    """The less indented item a nested one is under, in the same unbroken list."""
    indent = _indent(ctx.answer, item)
    if not indent:
        return None
    for before in ctx.layout.items_before(item, _MAX_NESTED):
        if "\n\n" in ctx.answer[before.end : item.start]:
            return None  # another paragraph
        if _indent(ctx.answer, before) < indent:
            return before
    return None


def _indent(text: str, item: ListItem) -> int:
    line = text[item.start : item.end]
    return len(line) - len(line.lstrip(" \t"))


def _line_heads(
    ctx: AnswerContext, claims: Sequence[Claim]
) -> dict[tuple[int, int], tuple[set[str], list[Period], int]]:
    """Lines written "Head: …" or "Head — …" (list items above all): what the head names. A
    head states no figure ("We took 242 orders over $200 in 2025 — about 3.5% …" has none)."""
    heads = {}
    starts = sorted(c.span[0] for c in claims)
    for start, end in ctx.layout.lines:
        m = _HEAD.match(ctx.answer, start, end)
        if m is None:
            continue
        h0, h1 = m.span("head")
        if starting_within(starts, h0, h1):
            continue
        entities = {x.key for x in ctx.labels_in(h0, h1)}
        periods = [x.period for x in ctx.periods_in(h0, h1)]
        if ctx.labels_in(h1, end):
            entities = set()  # "West: 92.5%, East: 88.1%" pairs labels and numbers itself
        if entities or periods:
            heads[(start, end)] = (entities, periods, h0)
    return heads
