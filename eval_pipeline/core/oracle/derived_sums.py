"""Sums, means and amounts per item derived from the facts: a whole column, the rows a
sentence names, a run of rows stated before it."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from eval_pipeline.core.claims.layout import Row, Table
from eval_pipeline.core.claims.numbers import SCALE_WORDS, WORD_VALUES
from eval_pipeline.core.models import Claim, Unit
from eval_pipeline.core.oracle.binding import Binding
from eval_pipeline.core.oracle.candidates import comparable, fit
from eval_pipeline.core.oracle.claim_words import OF_START, head_noun
from eval_pipeline.core.oracle.derived import (
    MAX_RUN,
    SUM_CUE,
    Derived,
    Deriver,
    amount,
)
from eval_pipeline.core.oracle.facts import Fact, metric_words, tokens
from eval_pipeline.core.oracle.units import family

_TOTAL_LABEL = re.compile(rf"[\W_]*(?i:grand\s+)?(?:{SUM_CUE.pattern})[\W_]*")
"""The label of a table's total row ("Total", "**Grand total**", "All", "Group")."""
_NUMBER = re.compile(r"\d")
_ROWS = re.compile(
    r"\b(?i:the|these|those|all|its|our|their|each\s+of\s+the)\s+(\d{1,2}|two|three|four|"
    r"five|six|seven|eight|nine|ten|eleven|twelve)\s+[a-z]"
)
"""A number of rows a sentence names: "the five reps", "these three carriers"."""
_SCALE_TOKENS = tokens(" ".join(SCALE_WORDS))
"""Words of a number's scale ("million"), which name no quantity."""
_OWN_TOTAL = re.compile(rf"(?<![Oo]f )(?:{SUM_CUE.pattern})")
"""A total word, not the whole of a share ("86% of all port-outs")."""


def _in_periods(fact: Fact, binding: Binding) -> bool:
    """Is the fact for a period within every period the claim's sentence names?"""
    return all(any(fp.within(p) for fp in fact.periods) for p in binding.periods)


def sums(
    deriver: Deriver, claim: Claim, binding: Binding, unit: Unit | None, *, cued: bool
) -> list[Derived]:
    """A whole column, or the rows the sentence names, added up."""
    out: list[Derived] = []
    entities, _ = deriver.named(binding)
    if len(binding.entities) >= 2:  # "churn and contraction together took $82.7K"
        entities = sorted(binding.entities)
    usable = deriver.first_of_each_series(lambda f: comparable(unit, f) and amount(f))
    phrase = deriver.phrase(claim, binding)
    listed = {m.key for m in deriver.ctx.labels_in(phrase[0], claim.span[0])}
    ranged = deriver.ctx.labels_as_a_range(*binding.sentence)
    for fact, series in usable:
        within = [f for f in series if binding.periods and _in_periods(f, binding)]
        if 2 <= len(within) < len(series):  # "Q1 2024 total: 2,068" over monthly rows
            out.append(Derived(sum(f.value for f in within), fact.unit, tuple(within), "sum", cued))
        elif len(series) >= 2:
            scoped = cued or _for_its_grain(deriver, binding, fact)
            every = scoped and len(within) == len(series)  # "November's total", all rows in it
            fewer = _fewer_rows(deriver, binding, len(series))
            out += _extremes(series, fewer, deriver.ctx.answer, binding)
            whole = _opens_on_its_whole(deriver, claim, binding, series) or (
                not (binding.entities or fewer[0])
                and (
                    every
                    or _says_all(deriver, claim, binding, len(series), cued)
                    or _total_of_its_table(deriver, claim, series)
                    or _every_row_named_before(deriver, claim, binding, series)
                )
            )
            out.append(
                Derived(sum(f.value for f in series), fact.unit, tuple(series), "total", whole)
            )
        named = [f for f in series if f.labels & set(entities)]
        before = [f for f in series if f.labels & listed]  # "X, Y and Z add up to 451"
        if 2 <= len(named) < len(series):  # "Friday to Sunday" names three rows, not two
            clause = {m.key for m in deriver.ctx.labels_in(*phrase)}
            pinned = (
                cued
                and not ranged
                and all(f.labels & clause for f in named)  # not "…, and X beat Y"
                and set(map(id, before)) <= set(map(id, named))  # each row listed before it
            )
            out.append(Derived(sum(f.value for f in named), fact.unit, tuple(named), "sum", pinned))
        if 2 <= len(before) < len(series) and set(map(id, before)) != set(map(id, named)):
            total = sum(f.value for f in before)
            out.append(Derived(total, fact.unit, tuple(before), "sum", cued and not ranged))
    if cued and len(binding.entities) < 2 and not claim.hedged and not _total_row(deriver, claim):
        out += _stated_runs(deriver, claim, unit)
    for run, pinned in referred_runs(deriver, binding):
        if comparable(unit, run[0]) and amount(run[0]):
            out.append(Derived(sum(f.value for f in run), run[0].unit, run, "sum", pinned))
    for rows, _ in banded(deriver, binding):  # "43 responses were a 1 or 2"
        if comparable(unit, rows[0]) and len(rows) >= 2:
            out.append(Derived(sum(f.value for f in rows), rows[0].unit, rows, "sum", True))
    scalars: dict[tuple[str, str | None], list[Fact]] = {}
    for fact in deriver.facts:
        if not fact.labels and comparable(unit, fact):
            scalars.setdefault((fact.source.reference.target, fact.column), []).append(fact)
    for group in scalars.values():  # all of them: one that is no amount leaves no sum
        if binding.periods:  # "Full-year 2024 revenue" adds 2024's quarters, not 2025's
            group = [f for f in group if _in_periods(f, binding)]
        if len(group) >= 2 and all(map(amount, group)):
            fewer = _fewer_rows(deriver, binding, len(group))
            out += _extremes(group, fewer, deriver.ctx.answer, binding)
            total = sum(f.value for f in group)
            out.append(Derived(total, group[0].unit, tuple(group), "sum", cued and not fewer[0]))
    return out


def _opens_on_its_whole(
    deriver: Deriver, claim: Claim, binding: Binding, series: Sequence[Fact]
) -> bool:
    """Does the sentence open on the claim as the whole its rows are parts of ("Of 2,249
    admissions, 4 West took 502, 5 East 360 …"): "Of" before it, the noun after it the
    series' quantity, and two or more of its rows named after it in the sentence?"""
    text = deriver.ctx.answer
    if not OF_START.fullmatch(text, binding.sentence[0], claim.span[0]):
        return False
    noun = head_noun(text, claim)
    if noun is None or not any(noun in f.meaning for f in series):
        return False
    named = {m.key for m in deriver.ctx.labels_in(claim.span[1], binding.sentence[1])}
    return sum(bool(f.labels & named) for f in series) >= 2


def _for_its_grain(deriver: Deriver, binding: Binding, fact: Fact) -> bool:
    """Does the claim's clause name the fact's quantity and its period by its grain alone
    ("For the year: 132 port-ins")? Over rows within that period, what it states is then
    their total, as "November's total" is over November's rows; hours of another thing
    ("on standby for 16 hours over the month") are not."""
    return bool(metric_words(binding.meaning & fact.meaning)) and any(
        m.start in deriver.ctx.by_grain and m.period in binding.periods
        for m in deriver.ctx.periods_in(*binding.clause)
    )


def _total_row(deriver: Deriver, claim: Claim) -> tuple[Table, Row] | None:
    """The table and row the claim is in when the row's label says it is the total
    ("| **Total** | $81.8K |"): it adds the whole column above it, not a run of its rows."""
    found = deriver.ctx.layout.cell_of(claim.span[0])
    if found is None:
        return None
    table, row, cell = found
    label = row.cells[0]
    return (table, row) if cell.column > 0 and _TOTAL_LABEL.fullmatch(label.text) else None


def _total_of_its_table(deriver: Deriver, claim: Claim, series: Sequence[Fact]) -> bool:
    """Is the claim the total row of a table whose rows above it state every row of the
    series? Its column's total is then what it states."""
    found = _total_row(deriver, claim)
    if found is None:
        return False
    table, row = found
    stated = deriver.first_anchors(series, table.rows[0].start, row.start)
    return len(stated) == len(series)


def _every_row_named_before(
    deriver: Deriver, claim: Claim, binding: Binding, series: Sequence[Fact]
) -> bool:
    """Do the words between the figures around the claim say it is a total ("58 — 498 in
    total", "Together they … 249"; not a share's whole, "of all port-outs"), its clause count
    no other number of rows than the series holds ("the three national carriers" of five),
    and has the answer named every labelled row of the series before it? Then it is their
    total, whatever each was said to be — of the column the noun after it names, if any
    ("1.02 million km" beside a table of km and trams per model is the km's)."""
    text, (start, end) = deriver.ctx.answer, binding.clause
    written = re.sub(r"^[^\d]*[\d.,]+", "", claim.text)  # "just over 1.02 million km" → km
    quantity = tokens(written) - _SCALE_TOKENS
    noun = head_noun(text, claim)
    quantity |= {noun} if noun else frozenset()
    if quantity and not any(quantity & f.meaning for f in series):
        return False
    before = [m.end() for m in _NUMBER.finditer(text, start, claim.span[0])]
    later = _NUMBER.search(text, claim.span[1], end)
    if not _OWN_TOTAL.search(
        text, before[-1] if before else start, later.start() if later else end
    ):
        return False
    if any(size != len(series) for size in _row_counts(text[start:end])):
        return False
    named = {m.key for m in deriver.ctx.labels_in(0, claim.span[0])}
    return all(f.labels and f.labels & named for f in series)


def _stated_runs(deriver: Deriver, claim: Claim, unit: Unit | None) -> list[Derived]:
    """For a sum whose rows are named only before its sentence ("Southeast 213 and
    Northeast 202. … Together the two account for 415"): the rows of one series that
    claims before it state, each run of them in the order written, unpinned. Not for a
    hedged claim: one of the dozens of runs of a long list is "around 240" by chance."""
    out = []
    for members in deriver.series.values():
        if not (comparable(unit, members[0]) and amount(members[0])):
            continue
        at = deriver.first_anchors(members, 0, claim.span[0])
        stated = sorted((f for f in members if id(f) in at), key=lambda f: at[id(f)])
        for i, j in itertools.combinations(range(len(stated[:MAX_RUN]) + 1), 2):
            if j - i >= 2:
                run = tuple(stated[i:j])
                out.append(Derived(sum(f.value for f in run), run[0].unit, run, "sum", False))
    return out


_REFERRED = re.compile(r"\b(?i:together|between\s+them|combined|both)\b")
"""Words adding up rows named before ("Together they made $211K", "both")."""
_COUNTED_BACK = re.compile(
    r"\b(?i:those|these)\s+(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\b"
)
"""Rows named before, counted: "those two days", "these 3 accounts"."""


def referred_runs(deriver: Deriver, binding: Binding) -> list[tuple[tuple[Fact, ...], bool]]:
    """The rows a sentence that names none refers back to ("… Club 9 $61.1K. Together they
    made about $211K"): per series, the last rows claims before the sentence state, in the
    order stated — as many as its words count ("those two days", "both"), pinned; else, when
    its words add rows up, every run of two or more ending at the last, a guess. A sentence
    counting rows of its own ("the three national carriers") picks them by what they are."""
    start, end = binding.sentence
    text = deriver.ctx.answer
    back = [
        int(n) if n.isdigit() else WORD_VALUES.get(n.lower())
        for n in _COUNTED_BACK.findall(text, start, end)
    ]
    if binding.entities or len(back) < len(_row_counts(text[start:end])):
        return []
    counts = {n for n in back if n} | ({2} if _BOTH.search(text, start, end) else set())
    if not counts and not _REFERRED.search(text, start, end):
        return []
    out = []
    for members in deriver.series.values():
        at = deriver.first_anchors(members, 0, start)
        stated = sorted((f for f in members if id(f) in at), key=lambda f: at[id(f)])
        if len(counts) == 1:
            size = next(iter(counts))
            if 2 <= size <= len(stated):
                out.append((tuple(stated[-size:]), True))
        elif not counts:
            for size in range(2, min(len(stated), MAX_RUN) + 1):
                out.append((tuple(stated[-size:]), False))
    return out


_BAND = re.compile(
    r"\b(?P<low>\d{1,2})(?:[ \t]*(?i:stars?|points?))?[ \t]*(?:or|to|[-–])[ \t]*"
    r"(?P<high>\d{1,2})\b(?![ \t]*(?:%|[.,]\d))"
    r"|\b(?P<end>\d{1,2})(?:[ \t]*(?i:stars?|points?))?[ \t]+(?:or|and)[ \t]+"
    r"(?P<way>better|higher|above|more|up|over|lower|below|worse|less|under|fewer)\b"
)
"""A band of a numbered scale: "a 4 or 5", "1-2 stars", "4 or better", "3 or lower"."""
_UP = frozenset(("better", "higher", "above", "more", "up", "over"))
_NUMBERED = re.compile(r"(?P<name>.*?)[ \t]*(?P<n>\d{1,2})")


def _numbered(members: Sequence[Fact]) -> dict[int, Fact] | None:
    """The rows of a series labelled by the points of one scale ("score 1" … "score 5")."""
    points: dict[int, Fact] = {}
    names = set()
    for fact in members:
        found = [m for label in fact.labels if (m := _NUMBERED.fullmatch(label))]
        if len(found) != 1:
            return None
        names.add(found[0]["name"])
        points[int(found[0]["n"])] = fact
    return points if len(names) == 1 and len(points) == len(members) >= 3 else None


def banded(deriver: Deriver, binding: Binding) -> list[tuple[tuple[Fact, ...], Sequence[Fact]]]:
    """The rows of a numbered scale that the band its clause writes covers ("71.2% rated us 4
    or 5", "43 responses were a 1 or 2"), with their series, for a series of such rows."""
    text = deriver.ctx.answer
    bands = list(_BAND.finditer(text, *binding.clause))
    if len(bands) != 1:
        return []
    band = bands[0]
    out: list[tuple[tuple[Fact, ...], Sequence[Fact]]] = []
    for members in deriver.series.values():
        points = _numbered(members)
        if points is None or not amount(members[0]):
            continue
        if band["low"]:
            low, high = sorted((int(band["low"]), int(band["high"])))
        elif band["way"].lower() in _UP:
            low, high = int(band["end"]), max(points)
        else:
            low, high = min(points), int(band["end"])
        rows = tuple(points[n] for n in sorted(points) if low <= n <= high)
        if 1 <= len(rows) < len(members) and {low, high} <= set(points):
            out.append((rows, members))
    return out


def _says_all(deriver: Deriver, claim: Claim, binding: Binding, size: int, cued: bool) -> bool:
    """Does the claim's sentence say the total is over every row: a total word with "all",
    "network", "overall"…, or the number of rows ("the five reps", "the four weeks")? Not
    a word after a later figure of its clause, which is that figure's ("together 966, or
    71.5% of all ratings": the whole of the share, not of the sum)."""
    text = deriver.ctx.answer
    clause = text[binding.clause[0] : binding.clause[1]]
    later = _NUMBER.search(text, claim.span[1], binding.clause[1])
    own = text[binding.clause[0] : later.start() if later else binding.clause[1]]
    if cued and re.search(
        r"\b(?i:all|every|whole|entire|overall|network|group|grand|company)\b", own
    ):
        return True
    return size in _row_counts(clause)


_BOTH = re.compile(r"\b(?i:both)\b")
_LARGEST = re.compile(
    r"\b(?i:big|bigger|biggest|large|larger|largest|top|leading|busiest|highest|main|major)\b"
)
_SMALLEST = re.compile(r"\b(?i:small|smaller|smallest|bottom|quietest|lowest|minor)\b")


def _fewer_rows(deriver: Deriver, binding: Binding, size: int) -> tuple[int, bool]:
    """The number of rows the claim's clause counts ("the two big sites", "both"), when
    fewer than the series holds, and whether its words number them ("both" may count the
    things of one row: "both menus there combined"): its figure adds up that many, never
    the whole column. Else (0, False)."""
    clause = deriver.ctx.answer[binding.clause[0] : binding.clause[1]]
    numbered = [n for n in _row_counts(clause) if n is not None and 2 <= n < size]
    if numbered:
        return min(numbered), True
    return (2, False) if size > 2 and _BOTH.search(clause) else (0, False)


def _extremes(
    series: Sequence[Fact], fewer: tuple[int, bool], text: str, binding: Binding
) -> list[Derived]:
    """The sum of the numbered rows' count of largest rows ("the two big sites together"),
    or smallest when the clause says so, which supports the figure but never accuses it:
    "big" may rank by another quantity than the one added up."""
    count, numbered = fewer
    if not numbered:
        return []
    clause = text[binding.clause[0] : binding.clause[1]]
    low = _SMALLEST.search(clause) and not _LARGEST.search(clause)
    rows = sorted(series, key=lambda f: f.value, reverse=not low)[:count]
    return [Derived(sum(f.value for f in rows), rows[0].unit, tuple(rows), "sum", False)]


def _row_counts(clause: str) -> list[int | None]:
    """The numbers of rows the clause names ("the five reps" → 5)."""
    return [int(c) if c.isdigit() else WORD_VALUES.get(c.lower()) for c in _ROWS.findall(clause)]


def means(deriver: Deriver, binding: Binding, unit: Unit | None) -> list[Derived]:
    """The mean of a series over its periods ("about 197 a month" over six monthly rows),
    within the periods the claim names."""
    out = []
    usable = deriver.first_of_each_series(
        lambda f: comparable(unit, f) and f.row_period is not None
    )
    for fact, series in usable:
        rows = [f for f in series if f.row_period is not None and _in_periods(f, binding)]
        if len(rows) >= 2:
            mean = sum(f.value for f in rows) / len(rows)
            out.append(Derived(mean, fact.unit, tuple(rows), "mean", False))
    return out


def _last_named(deriver: Deriver, claim: Claim, fact: Fact) -> bool:
    """Is the fact's row the last one the answer named before the claim ("Holloway … His
    average deal was $41.4K")? A sentence naming no row is about that one, not any other
    ("… Studio 7 Sushi: 70 seats. That's 4.8 seats per table" is no ratio of the first row)."""
    named = deriver.ctx.label_before(claim.span[0])
    return not fact.labels or (named is not None and named.key in fact.labels)


def per_item(deriver: Deriver, claim: Claim, binding: Binding, unit: Unit | None) -> list[Derived]:
    """An amount over a count ("29 minutes per visit", "$41,411 per car")."""
    out = []
    for a in deriver.facts:
        if not comparable(unit, a) or family(a.unit) not in (
            "money",
            "duration",
            "count",
            None,
        ):
            continue
        fa = fit(claim, binding, a)
        if fa is None or (fa.entity == "row" and not _last_named(deriver, claim, a)):
            continue
        for b in deriver.rows[(a.labels, a.scope)]:
            if (
                b is a
                or b.unit != "count"
                or not b.value
                or (family(a.unit) == "count" and a.series == b.series)
            ):
                continue
            if fit(claim, binding, b) is None:
                continue
            out.append(Derived(a.value / b.value, a.unit, (a, b), "amount per item", False))
    return out
