"""Second oracle pass, deterministic: a verdict for every claim against live reference values.

Steps: flatten each reference into labelled numbers; align each claim with the labels written next
to it in the answer ("West: 92.5%"); compare within the precision the answer states. A claim is
only called wrong when there is something definite to compare it with — the values of the label it
is stated for, or the one comparable value of the case — because accusing a right answer is worse
than leaving a claim unverified.
"""

from __future__ import annotations

import calendar
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
    """Labels of a whole reference: its string params ("region": "West") and its own label."""
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
    """Keys label their numbers; string values ("region": "West") label all their siblings."""
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


def _aliases(label: str) -> set[str]:
    """Ways an answer may write a label: as is, with spaces for underscores, a month in words."""
    aliases = {label.strip(), label.replace("_", " ").strip()}
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


def claim_labels(answer: str, claims: Sequence[Claim], labels: set[str]) -> dict[str, set[str]]:
    """Label keys each claim is stated for: every label mention goes to the closest claim of its
    sentence (fewest clause breaks, then distance, then the claim that follows it); in a table row
    written with pipes it goes to every claim of the row."""
    attached: dict[str, set[str]] = {c.id: set() for c in claims}
    sentences = sentence_spans(answer)
    for start, end, key in _mentions(answer, labels, claims):
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
    truth = entry.value
    if claim.value >= 0 > truth:
        truth = -truth  # "fell 5.2%" states a magnitude
    for scale in _claimed_scales(claim, entry):
        stated = claim.value * scale
        slack = 1e-9 * max(1.0, abs(truth))
        if claim.bound == "at_least":
            agrees = truth >= stated - slack
        elif claim.bound == "at_most":
            agrees = truth <= stated + slack
        else:
            agrees = abs(stated - truth) <= tolerance(claim, truth, scale)
        if agrees:
            return True
    return False


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
    """A small number written in words ("the three regions") is rarely the figure asked for."""
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


def verify_claims(
    contract: ClaimContract, references: Sequence[ReferenceValue], *, answer: str
) -> list[Verdict]:
    """One verdict per claim of the contract, in order; no claim is dropped."""
    usable = [rv for rv in references if rv.error is None]
    groups = [reference_entries(rv) for rv in usable]
    numeric = [c for c in contract.claims if c.value is not None]
    labels = {label for rv in usable for label in scope_labels(rv)}
    labels |= {label for own in groups for e in own for label in e.labels}
    keys = claim_labels(answer, numeric, labels)
    assessments = {c.id: _assess(c, keys[c.id], groups) for c in numeric}
    confirmed = {id(a.match) for a in assessments.values() if a.match is not None}
    single = [own[0] for own in groups if len(own) == 1]

    verdicts: list[Verdict] = []
    for claim in contract.claims:
        assessment = assessments.get(claim.id)
        if assessment is None:
            verdicts.append(_unverifiable(claim, "not a numeric claim", usable))
        elif not any(groups):
            verdicts.append(_unverifiable(claim, "no reference value is available", usable))
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
