"""Second oracle pass, deterministic: a verdict for every claim against live reference values.

Steps: flatten each reference into labelled numbers; align each claim with the labels written next
to it in the answer ("West: 92.5%"); compare within the precision the answer states. A claim is
only called wrong when there is something definite to compare it with — the values of the label it
is stated for, or the one comparable value of the case — because accusing a right answer is worse
than leaving a claim unverified.
"""

from __future__ import annotations

import calendar
import itertools
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.core.claims import sentence_spans
from eval_pipeline.core.models import (
    Claim,
    ClaimContract,
    DimensionResult,
    DimensionState,
    Evidence,
    ReferenceValue,
    Unit,
    Verdict,
)

HEDGE_TOLERANCE = 0.05
_MAX_EVIDENCE = 12
_MAX_SEPARATION = 1
_COMPATIBLE_UNITS: dict[str, frozenset[str]] = {
    "percent": frozenset({"percent", "fraction", "points", "number"}),
    "fraction": frozenset({"percent", "fraction", "number"}),
    "points": frozenset({"percent", "fraction", "points", "number"}),
    "count": frozenset({"count", "number"}),
    "number": frozenset({"count", "number", "percent", "fraction", "days", "points"}),
    "currency": frozenset({"currency", "number"}),
    "days": frozenset({"days", "number"}),
}
_SEPARATORS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"[;|\n]"), 2),
    (re.compile(r",|\s[-–—]\s"), 1),
    (re.compile(r"\b(?i:and|but|while|whilst|whereas|versus|vs|compared|than|or)\b"), 1),
)


# --------------------------------------------------------------------------- reference values


def _key(label: str) -> str:
    return " ".join(label.replace("_", " ").split()).casefold()


def _number(item: Any) -> float | None:
    if isinstance(item, bool):
        return None
    if isinstance(item, int | float):
        return float(item) if math.isfinite(item) else None
    if isinstance(item, str) and re.fullmatch(r"-?\d+\.\d+", item.strip()):
        return float(item)
    return None


def _is_label(item: Any) -> bool:
    if not isinstance(item, str) or _number(item) is not None:
        return False
    text = item.strip()
    return len(text) >= 2 and (not text.isdigit() or len(text) == 4)


def scope_labels(rv: ReferenceValue) -> tuple[str, ...]:
    """Labels of a whole reference: its string params ("group": "West") and its own label."""
    labels = [str(v) for v in rv.reference.params.values() if _is_label(v)]
    if rv.reference.label and _is_label(rv.reference.label):
        labels.append(rv.reference.label)
    return tuple(dict.fromkeys(labels))


@dataclass(frozen=True)
class ReferenceEntry:
    """One number of a reference value and its own labels (row names, mapping keys)."""

    source: ReferenceValue = field(compare=False)
    labels: tuple[str, ...]
    column: str | None
    value: float
    unit: Unit | None

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(_key(label) for label in self.labels)

    def describe(self) -> str:
        name = " / ".join(self.labels or scope_labels(self.source)) or self.source.reference.target
        return f"{name} [{self.column}]" if self.column else name

    def evidence(self) -> Evidence:
        ref = self.source.reference
        return Evidence(
            source=ref.target,
            kind=ref.kind,
            params=dict(ref.params),
            label=self.describe(),
            value=self.value,
            sql=ref.sql,
        )


_Flat = tuple[tuple[str, ...], str | None, float]
"""(labels, column, number) of one flattened reference number."""


def _record(record: Mapping[Any, Any], labels: tuple[str, ...]) -> Iterator[_Flat]:
    row_labels = (*labels, *(str(v) for v in record.values() if _is_label(v)))
    for column, cell in record.items():
        number = _number(cell)
        if number is not None:
            yield row_labels, str(column), number


def _mapping(mapping: Mapping[Any, Any], labels: tuple[str, ...]) -> Iterator[_Flat]:
    """Keys label their numbers; string values ("group": "West") label all their siblings."""
    context = (*labels, *(str(v) for v in mapping.values() if _is_label(v)))
    for key, item in mapping.items():
        here = (*context, str(key))
        number = _number(item)
        if number is not None:
            yield here, None, number
        elif isinstance(item, Mapping) and any(isinstance(v, Mapping) for v in item.values()):
            yield from _mapping(item, here)
        elif isinstance(item, Mapping):
            yield from _record(item, here)
        elif isinstance(item, list):
            yield from _sequence(item, here)


def _sequence(items: Sequence[Any], labels: tuple[str, ...]) -> Iterator[_Flat]:
    for item in items:
        number = _number(item)
        if number is not None:
            yield labels, None, number
        elif isinstance(item, Mapping):
            yield from _record(item, labels)


def _flatten(value: Any) -> list[_Flat]:
    if isinstance(value, Mapping) and "rows" in value and "columns" in value:
        columns = [str(c) for c in value["columns"]]
        records = [
            row if isinstance(row, Mapping) else dict(zip(columns, row, strict=False))
            for row in value["rows"] or []
        ]
        return [flat for record in records for flat in _record(record, ())]
    if isinstance(value, Mapping):
        return list(_mapping(value, ()))
    if isinstance(value, list):
        return list(_sequence(value, ()))
    number = _number(value)
    return [] if number is None else [((), None, number)]


def _unit_of(
    rv: ReferenceValue, column: str | None, values: list[float], *, beside_fractions: bool
) -> Unit | None:
    """The unit of a column (or of one value when ``column`` is None): declared, else the
    reference's — but whole numbers in a percent reference may be counts: above 100, or beside a
    column of fractional rates, they are; otherwise they are ambiguous ("number"). The same holds
    for whole numbers above 1 in a fraction reference."""
    if column is not None and column in rv.column_units:
        return rv.column_units[column]
    if rv.unit in ("percent", "fraction") and all(v.is_integer() for v in values):
        ceiling = 100.0 if rv.unit == "percent" else 1.0
        if beside_fractions or max((abs(v) for v in values), default=0.0) > ceiling:
            return "count"
        return "number" if rv.unit == "percent" else rv.unit
    return rv.unit


def reference_entries(rv: ReferenceValue) -> list[ReferenceEntry]:
    """Every number of a reference value with its labels; nothing for an errored reference."""
    if rv.error is not None:
        return []
    raw = _flatten(rv.value)
    by_column: dict[str | None, list[float]] = {}
    for _, column, number in raw:
        by_column.setdefault(column, []).append(number)
    fractional = {c for c, values in by_column.items() if not all(v.is_integer() for v in values)}
    entries = []
    for labels, column, number in raw:
        values = by_column[column] if column is not None else [number]
        beside = bool(fractional - {column}) if column is not None else False
        unit = _unit_of(rv, column, values, beside_fractions=beside)
        entries.append(ReferenceEntry(rv, labels, column, number, unit))
    return entries


# --------------------------------------------------------------------------- alignment


_GENERIC_LAST_WORDS = frozenset({"rate", "ratio", "share", "level", "percentage"})


def _aliases(label: str) -> set[str]:
    """Ways an answer may write a label: as is, with spaces for underscores, a month in words."""
    aliases = {label.strip(), label.replace("_", " ").strip()}
    words = label.replace("_", " ").split()
    if len(words) >= 2 and words[-1].casefold() in _GENERIC_LAST_WORDS:
        aliases.add(" ".join(words[:-1]))  # "NAS readiness" for "NAS readiness rate"
    month = re.fullmatch(r"(\d{4})-(\d{2})(?:-01)?", label.strip())
    if month and 1 <= int(month.group(2)) <= 12:
        year, number = month.group(1), int(month.group(2))
        aliases |= {
            f"{year}-{month.group(2)}",
            f"{calendar.month_name[number]} {year}",
            f"{calendar.month_abbr[number]} {year}",
        }
    return {a for a in aliases if a}


def _alias_pattern(alias: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(part) for part in alias.split())
    acronym = alias.isupper() and len(alias) <= 3
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", 0 if acronym else re.IGNORECASE)


def _mentions(answer: str, labels: set[str], claims: Sequence[Claim]) -> list[tuple[int, int, str]]:
    """Non-overlapping label mentions in the answer, longest first, outside claim text."""
    found = [
        (m.start(), m.end(), _key(label))
        for label in labels
        for alias in _aliases(label)
        for m in _alias_pattern(alias).finditer(answer)
    ]
    taken: list[tuple[int, int, str]] = []
    claim_spans = [c.span for c in claims]
    for start, end, key in sorted(found, key=lambda f: f[0] - f[1]):
        spans = [(s, e) for s, e, _ in taken] + claim_spans
        if all(end <= s or start >= e for s, e in spans):
            taken.append((start, end, key))
    return sorted(taken)


def _separation(between: str) -> int:
    return sum(weight * len(p.findall(between)) for p, weight in _SEPARATORS)


_CONTINUES = re.compile(r"\s*[,/]?\s*\(?\s*")
_FROM_BEFORE = re.compile(r"\b(?i:from)\s+$")
_TO_BETWEEN = re.compile(r"\s+(?i:to)\s+")
_PERIOD = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?|[- ]?(?:q|h)[1-4])?|(?:q|h)[1-4][- ]?\d{4}")


def _is_period(key: str) -> bool:
    return _PERIOD.fullmatch(key) is not None


def _ordered_periods(keys: Sequence[str]) -> list[str]:
    """The distinct period labels of ``keys``, earliest first (ISO labels sort by time)."""
    return sorted({k for k in keys if _is_period(k)})


def claim_labels(
    answer: str, claims: Sequence[Claim], labels: set[str], *, question: str = ""
) -> dict[str, set[str]]:
    """Label keys each claim is stated for: every label mention goes to the closest claim of its
    sentence (fewest clause breaks, then distance, then the claim that follows it); in a table row
    written with pipes it goes to every claim of the row; a claim right after a labelled one
    ("West (59.6%, 305 done)") shares its labels; and in "from X to Y" the two ends take the
    earlier and the later of the two periods named (in the sentence, else in the question)."""
    attached: dict[str, set[str]] = {c.id: set() for c in claims}
    sentences = sentence_spans(answer)
    mentions = _mentions(answer, labels, claims)
    for start, end, key in mentions:
        sentence = next(((s, e) for s, e in sentences if s <= start < e), None)
        if sentence is None:
            continue
        local = [c for c in claims if sentence[0] <= c.span[0] < sentence[1]]
        if answer[sentence[0] : sentence[1]].count("|") >= 2:
            for claim in local:
                attached[claim.id].add(key)
            continue
        scored = []
        for claim in local:
            follows = claim.span[0] >= end
            between = answer[end : claim.span[0]] if follows else answer[claim.span[1] : start]
            scored.append((_separation(between), len(between), not follows, claim.id))
        if scored and min(scored)[0] <= _MAX_SEPARATION:
            attached[min(scored)[3]].add(key)
    asked = [key for _, _, key in _mentions(question, labels, [])]
    for sentence in sentences:
        local = sorted(
            (c for c in claims if sentence[0] <= c.span[0] < sentence[1]), key=lambda c: c.span
        )
        named = [key for start, _, key in mentions if sentence[0] <= start < sentence[1]]
        for before, after in itertools.pairwise(local):
            between = answer[before.span[1] : after.span[0]]
            if not attached[after.id] and attached[before.id] and _CONTINUES.fullmatch(between):
                attached[after.id] = set(attached[before.id])
            periods = _ordered_periods(named) or _ordered_periods(asked)
            if (
                len(periods) == 2
                and _FROM_BEFORE.search(answer[: before.span[0]])
                and _TO_BETWEEN.fullmatch(between)
            ):
                for claim, period in ((before, periods[0]), (after, periods[1])):
                    others = {k for k in attached[claim.id] if not _is_period(k)}
                    attached[claim.id] = others | {period}
    return attached


# --------------------------------------------------------------------------- comparison


def _claimed_scales(claim: Claim, entry: ReferenceEntry) -> list[float]:
    """Factors that put the claim in the reference's scale: percent ↔ fraction, never both ways
    for a known unit, so "0.92%" can not pass for 92.47 percent."""
    if claim.unit in ("percent", "points"):
        if entry.unit == "fraction":
            return [0.01]
        if entry.unit is None and abs(entry.value) <= 1:
            return [0.01]
    if claim.unit == "fraction" and entry.unit in ("percent", "number", None):
        return [1.0, 100.0]
    return [1.0]


def _default_precision(value: float) -> float:
    text = f"{value:.10g}"
    decimals = len(text.split(".", 1)[1]) if "." in text and "e" not in text else 0
    return 0.5 * 10.0**-decimals


def tolerance(claim: Claim, truth: float, scale: float = 1.0) -> float:
    """Half-unit of the stated precision; a hedge widens it to a share of the true value."""
    stated = claim.precision
    if stated is None:
        stated = _default_precision(claim.value or 0.0)
    precision = stated * scale
    if claim.hedged:
        precision = max(precision, HEDGE_TOLERANCE * abs(truth))
    return precision + 1e-9 * max(1.0, abs(truth))


def matches(claim: Claim, entry: ReferenceEntry) -> bool:
    """Does the stated number agree with this reference number at the precision it is written?"""
    if claim.value is None:
        return False
    return any(
        agrees(claim, claim.value * scale, entry.value, scale)
        for scale in _claimed_scales(claim, entry)
    )


def agrees(claim: Claim, stated: float, truth: float, scale: float = 1.0) -> bool:
    """``stated`` (the claim in the truth's scale) against ``truth``: bounds, precision, hedge.
    A level written without sign, or a change written without direction, states a magnitude."""
    if claim.kind != "comparison" and stated >= 0 > truth:
        truth = -truth  # "a loss of $1.2M" states a magnitude
    if claim.kind == "comparison" and claim.direction is None:
        stated, truth = abs(stated), abs(truth)
    slack = 1e-9 * max(1.0, abs(truth))
    if claim.bound == "at_least":
        return truth >= stated - slack
    if claim.bound == "at_most":
        return truth <= stated + slack
    return abs(stated - truth) <= tolerance(claim, truth, scale)


def comparable(claim: Claim, entry: ReferenceEntry) -> bool:
    """Could this reference number be what the claim is about (by unit), so a mismatch is an
    error rather than a statement about something else?"""
    if claim.unit is None or claim.value is None:
        return False
    if entry.unit is None:
        if claim.unit in ("percent", "fraction", "points"):
            return not (entry.value.is_integer() and abs(entry.value) > 100)
        return claim.unit != "count" or entry.value.is_integer()
    return entry.unit in _COMPATIBLE_UNITS.get(claim.unit, frozenset())


def _is_weak(claim: Claim) -> bool:
    """A small number written in words ("the three groups") is rarely the figure asked for."""
    return (
        claim.value is not None
        and abs(claim.value) <= 10
        and not any(ch.isdigit() for ch in claim.text)
    )


def _fmt(value: float) -> str:
    return f"{value:,.10g}" if abs(value) < 1e15 else f"{value:.6g}"


# --------------------------------------------------------------------------- verdicts


@dataclass
class _Assessment:
    claim: Claim
    labels: set[str]
    aligned: list[ReferenceEntry]
    match: ReferenceEntry | None


def _aligned(
    claim: Claim, keys: set[str], groups: Sequence[list[ReferenceEntry]]
) -> list[ReferenceEntry]:
    """Numbers a claim is stated for: in each reference, the entries sharing most of the claim's
    labels, or all of its entries when only a reference-wide label (a param) is named."""
    aligned: list[ReferenceEntry] = []
    for own in groups:
        if not own:
            continue
        hits = keys & frozenset().union(*(e.keys for e in own))
        if hits:
            best = max(len(e.keys & hits) for e in own)
            aligned += [e for e in own if len(e.keys & hits) == best]
        elif keys & {_key(label) for label in scope_labels(own[0].source)}:
            aligned += own
    return [e for e in aligned if comparable(claim, e)]


def _assess(claim: Claim, keys: set[str], groups: Sequence[list[ReferenceEntry]]) -> _Assessment:
    """Find the claim's labelled numbers and the first reference number it agrees with. A
    labelled claim may still agree with a reference that has no labels at all (an overall
    figure stated in the same clause as a label); it may not borrow another label's value."""
    entries = [e for own in groups for e in own]
    aligned = _aligned(claim, keys, groups)
    if aligned:
        pool = aligned + [e for e in entries if not e.labels and not scope_labels(e.source)]
    else:
        pool = entries
    match = next((e for e in pool if matches(claim, e)), None)
    return _Assessment(claim, keys, aligned, match)


def _unverifiable(claim: Claim, reason: str, references: Sequence[ReferenceValue]) -> Verdict:
    evidence = [
        Evidence(
            source=rv.reference.target,
            kind=rv.reference.kind,
            params=dict(rv.reference.params),
            value=rv.value if rv.shape == "scalar" else None,
            sql=rv.reference.sql,
        )
        for rv in references
        if rv.error is None
    ]
    return Verdict(claim_id=claim.id, verdict="unverifiable", reason=reason, evidence=evidence)


_CHANGE_WORDS = re.compile(
    r"\b(?:change|changes|changed|delta|diff|difference|growth|increase|decrease|variation|"
    r"variance|yoy|mom|qoq|wow|vs)\b"
)


def is_change(entry: ReferenceEntry) -> bool:
    """A reference number that is itself a change (named so by its function, label, column or
    key), which change claims are compared with before anything is derived from levels."""
    ref = entry.source.reference
    names = [ref.label or "", entry.column or "", *entry.labels]
    if ref.kind != "sql":
        names.append(ref.target)
    return any(_CHANGE_WORDS.search(_key(name)) for name in names)


def verify_claims(
    contract: ClaimContract,
    references: Sequence[ReferenceValue],
    *,
    answer: str,
    question: str = "",
) -> list[Verdict]:
    """One verdict per claim of the contract, in order; no claim is dropped. Levels are checked
    against level values, changes against change values (else the difference of two labelled
    levels), rankings against the ordering of a labelled series."""
    usable = [rv for rv in references if rv.error is None]
    groups = [reference_entries(rv) for rv in usable]
    change_groups = [[e for e in own if is_change(e)] for own in groups]
    level_groups = [[e for e in own if not is_change(e)] for own in groups]
    if not any(level_groups):
        level_groups = groups
    numeric = [c for c in contract.claims if c.kind == "numeric" and c.value is not None]
    changes = [c for c in contract.claims if c.kind == "comparison" and c.value is not None]
    labels = {label for rv in usable for label in scope_labels(rv)}
    labels |= {label for own in groups for e in own for label in e.labels}
    keys = claim_labels(answer, numeric, labels, question=question)
    change_keys = claim_labels(answer, [*numeric, *changes], labels, question=question)
    assessments = {c.id: _assess(c, keys[c.id], level_groups) for c in numeric}
    confirmed = {id(a.match) for a in assessments.values() if a.match is not None}
    single = [own[0] for own in level_groups if len(own) == 1]
    context = _ChangeContext(answer, question, labels, groups, change_groups, level_groups)

    verdicts: list[Verdict] = []
    for claim in contract.claims:
        assessment = assessments.get(claim.id)
        if not any(groups):
            verdicts.append(_unverifiable(claim, "no reference value is available", usable))
        elif claim.kind == "ranking":
            verdicts.append(verify_ranking(claim, answer, groups, usable))
        elif claim in changes:
            verdicts.append(_verify_change(claim, change_keys[claim.id], context, usable))
        elif assessment is None:
            verdicts.append(_unverifiable(claim, "not a numeric claim", usable))
        elif assessment.match is not None:
            verdicts.append(_supported(claim, assessment.match))
        elif assessment.aligned:
            verdicts.append(_contradicted_for_label(assessment))
        else:
            rivals = [c for c in numeric if c.id != claim.id]
            verdicts.append(_unlabeled(claim, single, confirmed, rivals, usable))
    return verdicts


def _supported(claim: Claim, entry: ReferenceEntry) -> Verdict:
    return Verdict(
        claim_id=claim.id,
        verdict="supported",
        reason=f"{claim.text!r} agrees with {entry.describe()} = {_fmt(entry.value)}",
        evidence=[entry.evidence()],
    )


def _contradicted_for_label(assessment: _Assessment) -> Verdict:
    shown = assessment.aligned[:_MAX_EVIDENCE]
    values = ", ".join(f"{e.describe()} = {_fmt(e.value)}" for e in shown)
    named = ", ".join(sorted(assessment.labels))
    return Verdict(
        claim_id=assessment.claim.id,
        verdict="contradicted",
        reason=f"{assessment.claim.text!r} is stated for {named}; the reference says {values}",
        evidence=[e.evidence() for e in shown],
    )


def _unlabeled(
    claim: Claim,
    single: list[ReferenceEntry],
    confirmed: set[int],
    rivals: list[Claim],
    usable: list[ReferenceValue],
) -> Verdict:
    """With no label, a claim is wrong only if the case has exactly one comparable number, no
    other claim already states it, and the claim is not a small number in words that another
    claim of the answer could be the figure for ("the three groups completed 1,604 items")."""
    candidates = [e for e in single if comparable(claim, e)]
    truth = candidates[0] if len(candidates) == 1 else None
    if truth is None:
        why = "matches no reference value and names no label to check it against"
    elif id(truth) in confirmed:
        why = "matches no reference value; the comparable one is stated by another claim"
    elif _is_weak(claim) and any(comparable(c, truth) for c in rivals):
        why = "a small number in words beside another comparable claim"
    else:
        return Verdict(
            claim_id=claim.id,
            verdict="contradicted",
            reason=(
                f"{claim.text!r} differs from the only comparable reference value, "
                f"{truth.describe()} = {_fmt(truth.value)}"
            ),
            evidence=[truth.evidence()],
        )
    return _unverifiable(claim, why, usable)


# --------------------------------------------------------------------------- changes


@dataclass(frozen=True)
class _ChangeContext:
    answer: str
    question: str
    labels: set[str]
    groups: list[list[ReferenceEntry]]
    change_groups: list[list[ReferenceEntry]]
    level_groups: list[list[ReferenceEntry]]


def _sentence_of(answer: str, position: int) -> tuple[int, int]:
    return next(((s, e) for s, e in sentence_spans(answer) if s <= position < e), (0, len(answer)))


def _verify_change(
    claim: Claim, keys: set[str], ctx: _ChangeContext, usable: list[ReferenceValue]
) -> Verdict:
    """A change claim: against a change value when the references hold one, else against the
    difference of the two labelled levels its sentence (or the question) names."""
    if any(ctx.change_groups):
        assessment = _assess(claim, keys, ctx.change_groups)
        if assessment.match is not None:
            return _supported(claim, assessment.match)
        if assessment.aligned:
            return _contradicted_for_label(assessment)
        singles = [own[0] for own in ctx.change_groups if len(own) == 1]
        return _unlabeled(claim, singles, set(), [], usable)
    pair = _level_pair(claim, ctx)
    if pair is not None:
        return _verify_difference(claim, *pair)
    entries = [e for own in ctx.groups for e in own]
    if len(entries) == 1 and matches(claim, entries[0]):
        return _supported(claim, entries[0])
    return _unverifiable(
        claim,
        "a change; the references hold no change value and no two labelled levels to derive it",
        usable,
    )


def _level_pair(
    claim: Claim, ctx: _ChangeContext
) -> tuple[ReferenceEntry, ReferenceEntry, bool] | None:
    """The two levels a change is between: one metric at two of the labels named, the earlier
    period first when both are periods (then the sign counts), else in the order named."""
    start, end = _sentence_of(ctx.answer, claim.span[0])
    named = [k for s, _, k in _mentions(ctx.answer, ctx.labels, []) if start <= s < end]
    if len(set(named)) < 2:
        named = [k for _, _, k in _mentions(ctx.question, ctx.labels, [])]
    order = list(dict.fromkeys(named))
    by_metric: dict[tuple[str, str | None], list[tuple[ReferenceEntry, str]]] = {}
    for own in ctx.level_groups:
        for entry in own:
            keys = entry.keys or frozenset(_key(label) for label in scope_labels(entry.source))
            hits = [k for k in order if k in keys]
            if len(hits) == 1:
                metric = (entry.source.reference.target, entry.column)
                by_metric.setdefault(metric, []).append((entry, hits[0]))
    pairs = [found for found in by_metric.values() if len({k for _, k in found}) == len(found) == 2]
    wanted = [p for p in pairs if _suits_change(claim, p[0][0])]
    if claim.unit == "percent" and not wanted:
        wanted = pairs
    if len(wanted) != 1:
        return None
    (first, k1), (second, k2) = wanted[0]
    if _is_period(k1) and _is_period(k2):
        return (first, second, True) if k1 < k2 else (second, first, True)
    return (first, second, False) if order.index(k1) < order.index(k2) else (second, first, False)


def _suits_change(claim: Claim, level: ReferenceEntry) -> bool:
    rate = level.unit in ("percent", "fraction")
    return rate if claim.unit in ("points", "percent") else not rate


def _verify_difference(
    claim: Claim, earlier: ReferenceEntry, later: ReferenceEntry, ordered: bool
) -> Verdict:
    assert claim.value is not None
    rate = earlier.unit in ("percent", "fraction")
    points = (later.value - earlier.value) * (100.0 if earlier.unit == "fraction" else 1.0)
    truths = []
    if claim.unit != "percent" or rate:
        truths.append(points if rate else later.value - earlier.value)
    if claim.unit == "percent" and earlier.value:
        truths.append((later.value - earlier.value) / abs(earlier.value) * 100.0)
    judged = claim if ordered else claim.model_copy(update={"direction": None})
    evidence = [earlier.evidence(), later.evidence()]
    shown = f"{earlier.describe()} = {_fmt(earlier.value)} and {later.describe()} = "
    shown += _fmt(later.value)
    if any(agrees(judged, claim.value, truth) for truth in truths):
        return Verdict(
            claim_id=claim.id,
            verdict="supported",
            reason=f"{claim.text!r} agrees with the change between {shown}",
            evidence=evidence,
        )
    computed = " or ".join(_fmt(round(t, 4)) for t in truths)
    return Verdict(
        claim_id=claim.id,
        verdict="contradicted",
        reason=f"{claim.text!r} differs from the change between {shown} ({computed})",
        evidence=evidence,
    )


# --------------------------------------------------------------------------- rankings

_STOP_WORDS = frozenset(
    (
        *("the", "and", "for", "with", "per", "by", "of", "in", "on", "at", "to", "from"),
        *("has", "had", "have", "is", "was", "are", "were", "its", "than"),
    )
)
_RATE_WORDS = frozenset({"rate", "share", "percentage", "percent", "ratio", "proportion"})
_COUNT_WORDS = frozenset({"most", "fewest", "number", "count", "many"})


def _tokens(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", _key(text))
    return {
        w[:-1] if w.endswith("s") and len(w) > 3 else w
        for w in words
        if len(w) >= 3 and w not in _STOP_WORDS
    }


@dataclass(frozen=True)
class _Series:
    """Numbers of one metric told apart by a label: what a ranking claim is ranked in."""

    entries: list[ReferenceEntry]
    names: list[frozenset[str]]
    metric: frozenset[str]
    source: frozenset[str]
    headline: bool
    order: str | None
    cut: bool

    def position(self, entity: str) -> list[int]:
        text = _key(entity)
        return [
            i
            for i, names in enumerate(self.names)
            if any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) for n in names)
        ]


def _make_series(
    entries: list[ReferenceEntry], names: list[frozenset[str]], column: str | None
) -> _Series:
    ref = entries[0].source.reference
    own = ref.target if ref.kind != "sql" else ""
    values = [e.value for e in entries]
    pairs = list(itertools.pairwise(values))
    order = None
    if len(values) >= 3 and all(a >= b for a, b in pairs):
        order = "highest"
    elif len(values) >= 3 and all(a <= b for a, b in pairs):
        order = "lowest"
    cut = any(
        isinstance(v, int) and not isinstance(v, bool) and v == len(entries)
        for v in ref.params.values()
    )
    return _Series(
        entries=entries,
        names=names,
        metric=frozenset(_tokens(column or own)),
        source=frozenset(_tokens(own) | _tokens(ref.label or "")),
        headline=column is None or entries[0].unit == entries[0].source.unit,
        order=order,
        cut=cut,
    )


def _distinct(names: list[frozenset[str]]) -> list[frozenset[str]] | None:
    common = frozenset.intersection(*names) if names else frozenset()
    own = [n - common for n in names]
    return own if len(own) >= 2 and all(own) and len(set(own)) == len(own) else None


def _series(groups: Sequence[list[ReferenceEntry]]) -> list[_Series]:
    """Every rankable series: a column (or a mapping) of one reference whose numbers each carry
    their own label, and scalars of one function computed for several labelled params."""
    found: list[_Series] = []
    for own in groups:
        by_column: dict[str | None, list[ReferenceEntry]] = {}
        for entry in own:
            by_column.setdefault(entry.column, []).append(entry)
        for column, entries in by_column.items():
            names = _distinct([e.keys for e in entries])
            if names is not None:
                found.append(_make_series(entries, names, column))
    lone: dict[tuple[str, str | None], list[ReferenceEntry]] = {}
    for own in groups:
        if len(own) == 1 and not own[0].labels:
            lone.setdefault((own[0].source.reference.target, own[0].unit), []).append(own[0])
    for entries in lone.values():
        names = _distinct([frozenset(map(_key, scope_labels(e.source))) for e in entries])
        if names is not None:
            found.append(_make_series(entries, names, None))
    return found


def _hinted(series: _Series, words: set[str]) -> bool:
    rate = series.entries[0].unit in ("percent", "fraction")
    return bool(words & _RATE_WORDS) if rate else bool(words & _COUNT_WORDS)


def verify_ranking(
    claim: Claim, answer: str, groups: Sequence[list[ReferenceEntry]], usable: list[ReferenceValue]
) -> Verdict:
    """Is the entity where the claim puts it in the ordering of the metric its sentence names
    (by column or function name, then by unit hint, then the reference's headline unit)?"""
    if claim.entity is None or claim.value is None or claim.direction not in ("highest", "lowest"):
        return _unverifiable(claim, "a ranking claim without an entity and a rank", usable)
    every = _series(groups)
    if not every:
        return _unverifiable(claim, "no reference lists labelled values to rank", usable)
    start, end = _sentence_of(answer, claim.span[0])
    words = _tokens(answer[start:end]) - _tokens(claim.entity)
    candidates = [s for s in every if s.position(claim.entity)] or every

    def score(s: _Series) -> tuple[int, int, bool, bool]:
        return (len(s.metric & words), len(s.source & words), _hinted(s, words), s.headline)

    best = max(score(s) for s in candidates)
    chosen = [s for s in candidates if score(s) == best]
    if len(chosen) != 1:
        return _unverifiable(claim, "several reference metrics could be the one ranked", usable)
    series = chosen[0]
    rank = int(claim.value)
    ordered = sorted(series.entries, key=lambda e: e.value, reverse=claim.direction == "highest")
    shown = ordered[:_MAX_EVIDENCE]
    listing = ", ".join(f"{e.describe()} = {_fmt(e.value)}" for e in shown)
    evidence = [e.evidence() for e in shown]
    where = series.position(claim.entity)
    partial = series.cut and series.order is not None
    if partial and series.order != claim.direction:
        return _unverifiable(claim, f"the reference lists only the first {len(ordered)}", usable)
    if not where:
        if partial and rank <= len(ordered):
            reason = f"{claim.entity} is not among the {len(ordered)} the reference lists"
            return _ranked(claim, "contradicted", f"{reason}: {listing}", evidence)
        return _unverifiable(claim, f"{claim.entity} is not a label of the ranked values", usable)
    if len(where) != 1:
        return _unverifiable(claim, f"{claim.entity} names several ranked values", usable)
    value = series.entries[where[0]].value
    values = [e.value for e in series.entries]
    if claim.direction == "highest":
        ahead = sum(v > value for v in values)
    else:
        ahead = sum(v < value for v in values)
    ties = sum(v == value for v in values) - 1
    holds = ahead + 1 <= rank if claim.bound == "at_most" else ahead + 1 <= rank <= ahead + 1 + ties
    stated = f"within the {claim.direction} {rank}" if claim.bound == "at_most" else f"#{rank}"
    reason = (
        f"{claim.entity} ranks #{ahead + 1} of {len(values)} by {claim.direction} value "
        f"(claimed {stated}): {listing}"
    )
    return _ranked(claim, "supported" if holds else "contradicted", reason, evidence)


def _ranked(claim: Claim, verdict: str, reason: str, evidence: list[Evidence]) -> Verdict:
    return Verdict.model_validate(
        {
            "claim_id": claim.id,
            "verdict": verdict,
            "reason": reason,
            "evidence": [e.model_dump() for e in evidence],
        }
    )


# --------------------------------------------------------------------------- dimension score


def oracle_dimension(
    verdicts: Sequence[Verdict], references: Sequence[ReferenceValue], *, has_reference: bool
) -> DimensionResult:
    """supported / (supported + contradicted); skipped when nothing could be checked."""
    counts = {"supported": 0, "contradicted": 0, "unverifiable": 0, "stale": 0}
    for verdict in verdicts:
        counts[verdict.verdict] += 1
    checked = counts["supported"] + counts["contradicted"]
    errors = [f"{rv.reference.target}: {rv.error}" for rv in references if rv.error is not None]
    details: dict[str, Any] = {
        **counts,
        "claims": len(verdicts),
        "has_tool_evidence": checked > 0,
        "reference_errors": errors,
    }
    summary = ", ".join(f"{counts[k]} {k}" for k in ("supported", "contradicted", "unverifiable"))
    if counts["stale"]:
        summary += f", {counts['stale']} stale"

    def result(state: DimensionState, reason: str, score: float | None = None) -> DimensionResult:
        return DimensionResult(
            name="oracle",
            state=state,
            score=score,
            method="deterministic",
            reason=reason,
            details=details,
        )

    if not has_reference:
        return result("skipped", "the case names no reference to recompute")
    if not references or len(errors) == len(references):
        detail = "; ".join(errors) or "no reference value was computed"
        return result("error", f"no reference could be computed: {detail}")
    if checked == 0:
        if not verdicts:
            return result("skipped", "the answer states no numeric claim")
        return result("skipped", f"no claim could be checked ({summary})")
    return result("scored", summary, counts["supported"] / checked)
