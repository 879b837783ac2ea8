"""Per-claim results, a product output: each case's claims with their verdicts, as the run
summary file lists them and the report shows them.

The summary file is written a chunk of cases at a time, so a 10,000-case run never holds every
claim and its evidence at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.core.report.claim_text import evidence_unit, reference_units
from eval_pipeline.core.summary import RunSummary

Details = Mapping[str, Mapping[str, Mapping[str, Any]]]
"""Asset name → case id → stored payload (``extracted_claims``, ``oracle_verdicts``)."""

CHUNK = 500
NOT_IN_CONTRACT = "(not in the claim contract)"


def claim_results(contract: Mapping[str, Any], oracle: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The claims of one case in contract order, each joined with its verdict; a verdict whose
    claim is missing from the contract is listed too, so a claim that vanished between the two
    oracle passes stays visible, and a claim never verified (the answer was incomplete) says so."""
    verdicts = {v["claim_id"]: v for v in oracle.get("verdicts", [])}
    claims = contract.get("claims", [])
    unchecked = f"not verified: {oracle['error']}" if oracle.get("error") else "not verified"
    units = reference_units(oracle.get("references", []))
    rows = [_row(c, verdicts.get(c["id"]), unchecked, units) for c in claims]
    known = {c["id"] for c in claims}
    rows += [
        _row({"id": cid, "text": NOT_IN_CONTRACT}, v, unchecked, units)
        for cid, v in verdicts.items()
        if cid not in known
    ]
    return rows


def _row(
    claim: Mapping[str, Any],
    verdict: Mapping[str, Any] | None,
    unchecked: str,
    units: Mapping[tuple[str, str], Any],
) -> dict[str, Any]:
    span = claim.get("span")
    return {
        "id": claim["id"],
        "text": claim.get("text", ""),
        "span": list(span) if span is not None else None,
        "kind": claim.get("kind"),
        "value": claim.get("value"),
        "unit": claim.get("unit"),
        "verdict": verdict["verdict"] if verdict else None,
        "reason": verdict.get("reason", "") if verdict else unchecked,
        "evidence": [
            {
                "kind": e.get("kind", ""),
                "source": e.get("source", ""),
                "params": dict(e.get("params") or {}),
                "label": e.get("label"),
                "value": e.get("value"),
                "sql": e.get("sql"),
                "unit": evidence_unit(e, units),
            }
            for e in (verdict or {}).get("evidence", [])
        ],
    }


def case_claims(case_id: str, details: Details) -> list[dict[str, Any]]:
    return claim_results(
        details.get("extracted_claims", {}).get(case_id, {}),
        details.get("oracle_verdicts", {}).get(case_id, {}),
    )


def write_summary(
    summary: RunSummary, load: Callable[[Sequence[str]], Details], *, chunk: int = CHUNK
) -> Path:
    """``summary.json`` at ``summary.summary_path``: the run summary with each case's
    ``claims``, loaded ``chunk`` cases at a time and written atomically (a reader never sees
    half a file)."""
    path = summary.summary_path
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(summary.model_dump(mode="json", exclude={"cases"}))
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(head[:-1] + ',"cases":[')
        for start in range(0, len(summary.cases), chunk):
            part = summary.cases[start : start + chunk]
            details = load([c.case_id for c in part])
            for i, case in enumerate(part):
                row = {**case.model_dump(mode="json"), "claims": case_claims(case.case_id, details)}
                out.write(("," if start or i else "") + json.dumps(row))
        out.write("]}")
    tmp.replace(path)
    return path


def with_claims(summary: RunSummary) -> RunSummary:
    """The run summary with each case's claims: its ``summary.json`` (the results store's copy
    leaves them out), when that file is of the same run."""
    try:
        full = RunSummary.model_validate_json(summary.summary_path.read_bytes())
    except (OSError, ValueError):
        return summary
    same = full.run_key == summary.run_key and full.created_at == summary.created_at
    return full if same else summary
