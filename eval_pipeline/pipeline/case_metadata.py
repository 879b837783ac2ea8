"""What each case's partition shows in the Dagster UI: its metadata and its ``case_passed`` check.

Built once per case from the record the step already holds (no store read, no model dump), so a
10,000-case batch spends milliseconds on it; ``EVAL_PARTITION_METADATA=false`` turns it off.
Answers are previewed with PII masked as the report masks them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dagster import AssetCheckSeverity, MarkdownMetadataValue, MetadataValue, TextMetadataValue

from eval_pipeline.core.dimensions.safety import mask_pii
from eval_pipeline.core.models import (
    CaseOutcome,
    ChatPayload,
    ClaimContract,
    Evidence,
    OracleResult,
    verdict_counts,
)
from eval_pipeline.core.redaction import Redactor
from eval_pipeline.core.report.claim_text import evidence_text, evidence_unit, format_value

PREVIEW_CHARS = 240
TABLE_ROWS = 25
CheckResult = tuple[bool, AssetCheckSeverity, dict[str, Any]]


def redacted(metadata: Mapping[str, Any], redactor: Redactor) -> dict[str, Any]:
    """The metadata with every text in it redacted: Dagster stores it in its event log."""
    out: dict[str, Any] = {}
    for name, value in metadata.items():
        if isinstance(value, str):
            out[name] = redactor.text(value)
        elif isinstance(value, TextMetadataValue | MarkdownMetadataValue):
            out[name] = type(value)(redactor.text(value.value))
        else:
            out[name] = value
    return out


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[Any]]) -> MetadataValue:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows[:TABLE_ROWS]]
    if len(rows) > TABLE_ROWS:
        lines.append(f"\n… {len(rows) - TABLE_ROWS} more in the report")
    return MetadataValue.md("\n".join(lines))


def _seconds(value: float | None) -> MetadataValue:
    return MetadataValue.float(round(value, 3)) if value is not None else MetadataValue.text("—")


def response_metadata(payload: ChatPayload, link: str, *, show_pii: bool) -> dict[str, Any]:
    answer = payload.answer if show_pii else mask_pii(payload.answer)
    preview = answer[:PREVIEW_CHARS] + ("…" if len(answer) > PREVIEW_CHARS else "")
    out: dict[str, Any] = {
        "status": payload.status,
        "latency_s": _seconds(payload.latency_s),
        "ttft_s": _seconds(payload.ttft_s),
        "answer_preview": MetadataValue.text(preview or "(no answer)"),
        "attempts": payload.attempts,
        "report": MetadataValue.url(link),
    }
    if payload.errors:
        out["errors"] = MetadataValue.text("; ".join(payload.errors))
    return out


def claims_metadata(contract: ClaimContract, link: str) -> dict[str, Any]:
    return {
        "claims": len(contract.claims),
        "method": contract.method,
        "report": MetadataValue.url(link),
    }


def _units(result: OracleResult) -> dict[tuple[str, str], Any]:
    return {
        (r.reference.kind, r.reference.target): (r.unit, r.column_units) for r in result.references
    }


def _evidence(evidence: Evidence, units: Mapping[tuple[str, str], Any]) -> dict[str, Any]:
    shown = {
        "kind": evidence.kind,
        "source": evidence.source,
        "params": evidence.params,
        "label": evidence.label,
        "value": evidence.value,
    }
    shown["unit"] = evidence_unit(shown, units)
    return shown


def first_contradiction(result: OracleResult) -> str | None:
    """The first contradicted claim with what the reference gives, in one line."""
    verdict = next((v for v in result.verdicts if v.verdict == "contradicted"), None)
    if verdict is None:
        return None
    if not verdict.evidence:
        return f"{verdict.claim_id} contradicted: {verdict.reason}"
    shown = _evidence(verdict.evidence[0], _units(result))
    expected = format_value(shown["value"], shown["unit"])
    return (
        f"{verdict.claim_id} contradicted: expected {expected} from {evidence_text(shown)} "
        f"({mask_pii(verdict.reason)})"
    )


def verdict_metadata(result: OracleResult, contract: ClaimContract, link: str) -> dict[str, Any]:
    """Verdict counts and a table of the claims with stated and expected values."""
    claims = {c.id: c for c in contract.claims}
    units = _units(result)
    rows = []
    for v in result.verdicts:
        claim = claims.get(v.claim_id)
        shown = _evidence(v.evidence[0], units) if v.evidence else None
        rows.append(
            [
                v.claim_id,
                v.verdict,
                mask_pii(claim.text) if claim else "",
                format_value(shown["value"], shown["unit"]) if shown else "—",
                evidence_text(shown).rsplit(" = ", 1)[0] if shown else mask_pii(v.reason),
            ]
        )
    out: dict[str, Any] = {
        **{f"verdicts_{k}": n for k, n in verdict_counts(result.verdicts).items()},
        "claims_table": _table(["claim", "verdict", "stated", "expected", "reference"], rows),
        "report": MetadataValue.url(link),
    }
    if result.stale_tables:
        out["stale_tables"] = ", ".join(result.stale_tables)
    if result.error:
        out["oracle_error"] = MetadataValue.text(result.error)
    return out


def scores_metadata(outcome: CaseOutcome, contradiction: str | None, link: str) -> dict[str, Any]:
    """The case's overall score, result, dimension scores, gate failures and first contradicted
    claim."""
    result = "error" if outcome.state == "error" else ("passed" if outcome.passed else "failed")
    rows = [
        [name, d.state, "—" if d.score is None else f"{d.score:.2f}", d.reason[:160]]
        for name, d in outcome.dimensions.items()
    ]
    out: dict[str, Any] = {
        "result": result,
        "overall": MetadataValue.float(outcome.overall)
        if outcome.overall is not None
        else MetadataValue.text("—"),
        "gate_failures": MetadataValue.text("; ".join(outcome.gate_failures) or "none"),
        "dimensions": _table(["dimension", "state", "score", "reason"], rows),
        "report": MetadataValue.url(link),
    }
    if contradiction:
        out["first_contradicted_claim"] = MetadataValue.text(contradiction)
    return out


def case_check(outcome: CaseOutcome, contradiction: str | None, link: str) -> CheckResult:
    """``case_passed``: ERROR when the case failed a gate or is in error, WARN when it passed with
    warnings; the metadata names the gate and the first contradicted claim."""
    metadata: dict[str, Any] = {"report": MetadataValue.url(link)}
    if outcome.gate_failures or outcome.errors:
        reasons = outcome.gate_failures or outcome.errors
        metadata["gate"] = MetadataValue.text(reasons[0].split(":", 1)[0])
        metadata["reason"] = MetadataValue.text("; ".join(reasons))
        if contradiction:
            metadata["first_contradicted_claim"] = MetadataValue.text(contradiction)
        return False, AssetCheckSeverity.ERROR, metadata
    if outcome.warnings:
        metadata["warnings"] = MetadataValue.text("; ".join(outcome.warnings))
        return False, AssetCheckSeverity.WARN, metadata
    return True, AssetCheckSeverity.WARN, metadata


def currency_check(changed: Sequence[str], link: str) -> CheckResult:
    """``verdicts_current``: WARN while a table the case reads has changed since it was answered
    (its verdicts describe data the warehouse no longer holds), naming those tables."""
    metadata: dict[str, Any] = {"report": MetadataValue.url(link)}
    if not changed:
        return True, AssetCheckSeverity.WARN, metadata
    tables = ", ".join(changed)
    metadata["changed_tables"] = MetadataValue.text(tables)
    metadata["reason"] = MetadataValue.text(
        f"{tables} changed since the case was answered: its verdicts are out of date until "
        "the case is asked again (the warehouse_refresh sensor requests it)"
    )
    return False, AssetCheckSeverity.WARN, metadata
