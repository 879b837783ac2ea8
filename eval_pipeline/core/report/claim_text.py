"""How a claim reads wherever people look at it: the report, JUnit, Dagster metadata and checks.

A claim is shown in its sentence with the claim marked, its expected value formatted as the
reference's unit says (93.4 %, not 93.44262295081967), and a contradicted claim as one line naming
the claim, what it stated, what the reference gives and which reference that is.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any

from eval_pipeline.core.claims.layout import sentence_spans
from eval_pipeline.core.dimensions.safety import mask_pii
from eval_pipeline.core.models import DURATION_UNITS

SENTENCE_CHARS = 400


def format_value(value: Any, unit: str | None = None) -> str:
    """A reference value as its unit reads; non-numbers as they are."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—" if value is None else str(value)
    v = float(value)
    if unit == "percent":
        return f"{v:,.1f} %"
    if unit == "fraction":
        return f"{v * 100:,.1f} %"
    if unit == "count":
        return f"{v:,.0f}" if v == round(v) else f"{v:,.2f}"
    if unit == "currency":
        return f"{v:,.2f}"
    if unit in DURATION_UNITS or unit == "points":
        return f"{v:,.4g} {unit}"
    if v == round(v) and abs(v) < 1e15:
        return f"{v:,.0f}"
    return f"{v:,.4g}" if abs(v) < 1 else f"{v:,.2f}"


def reference_units(references: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], Any]:
    """(kind, target) → (unit, column_units) of each recomputed reference, as stored."""
    out: dict[tuple[str, str], Any] = {}
    for stored in references:
        ref = stored.get("reference", {})
        kind = next((k for k in ("kpi", "decision", "core_node", "sql") if ref.get(k)), None)
        if kind:
            out[(kind, str(ref[kind]))] = (stored.get("unit"), stored.get("column_units") or {})
    return out


def evidence_unit(evidence: Mapping[str, Any], units: Mapping[tuple[str, str], Any]) -> str | None:
    """The unit of the value the evidence quotes: its column's when its label names one."""
    unit, columns = units.get((evidence.get("kind", ""), evidence.get("source", "")), (None, {}))
    label = str(evidence.get("label") or "")
    for column, column_unit in columns.items():
        if column in label:
            return str(column_unit)
    return unit


class ClaimSentences:
    """The sentences of one answer, found once: each claim's is then a bisection away (finding
    them again per claim made a report of 40,000 claims in an 800 KB answer take minutes)."""

    def __init__(self, answer: str, *, show_pii: bool = False) -> None:
        self._answer = answer
        self._show_pii = show_pii
        self._spans = sentence_spans(answer) if answer else []
        self._starts = [s for s, _ in self._spans]

    def of(self, span: Sequence[int] | None) -> list[str]:
        """[before, claim, after]: the sentence holding the claim, cut at ``SENTENCE_CHARS``,
        with PII masked unless ``show_pii``."""
        answer = self._answer
        if not span or not answer or span[1] > len(answer):
            return []
        start, end = int(span[0]), int(span[1])
        first, last = start, end
        # the sentences holding its first and its last character (sentences are in order)
        for i in {
            bisect.bisect_right(self._starts, start) - 1,
            bisect.bisect_left(self._starts, end) - 1,
        }:
            s, e = self._spans[i] if i >= 0 else (0, 0)
            if s <= start < e or s < end <= e:
                first, last = min(first, s), max(last, e)
        first = max(first, start - SENTENCE_CHARS // 2)
        last = min(last, end + SENTENCE_CHARS // 2)
        parts = [answer[first:start].lstrip(), answer[start:end], answer[end:last].rstrip()]
        return parts if self._show_pii else [mask_pii(p) for p in parts]


def evidence_text(evidence: Mapping[str, Any]) -> str:
    """``kpi total(region=West) [West] = 1,204``: the reference and the value it gave."""
    unit = evidence.get("unit")
    params = ", ".join(f"{k}={v}" for k, v in (evidence.get("params") or {}).items())
    label = f" [{evidence['label']}]" if evidence.get("label") else ""
    source = f"{evidence.get('kind', '')} {evidence.get('source', '')}({params}){label}"
    return f"{source} = {format_value(evidence.get('value'), unit)}"


def contradiction(claim: Mapping[str, Any]) -> str:
    """One line on a contradicted claim (a ``claim_results`` row): what it stated, what was
    expected, from which reference."""
    evidence = list(claim.get("evidence") or [])
    stated = f"{claim['id']} “{mask_pii(str(claim.get('text', '')))}”"
    if not evidence:
        return f"{stated} contradicted: {claim.get('reason', '')}".rstrip()
    first = evidence[0]
    expected = format_value(first.get("value"), first.get("unit"))
    return f"{stated} contradicted: expected {expected} from {evidence_text(first)}"


def contradictions(claims: Sequence[Mapping[str, Any]]) -> list[str]:
    """A line per contradicted claim, in contract order."""
    return [contradiction(c) for c in claims if c.get("verdict") == "contradicted"]
