"""Helpers for the oracle's table-driven tests: a reference value written inline, and the
verdicts of one answer checked against references."""

from __future__ import annotations

from typing import Any

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import ReferenceValue
from eval_pipeline.core.oracle import verify_claims

S, C, U = "supported", "contradicted", "unverifiable"


def ref(
    value: Any,
    unit: str | None = None,
    *,
    name: str = "metric",
    kind: str = "kpi",
    params: dict[str, Any] | None = None,
    label: str | None = None,
    sql: str | None = None,
    column_units: dict[str, str] | None = None,
) -> ReferenceValue:
    """A computed reference value: a table for ``{"columns", "rows"}``, a mapping for another
    dict, else a scalar; an SQL reference when ``sql`` is given, else a ``kind`` call."""
    shape = (
        "table"
        if isinstance(value, dict) and "rows" in value
        else "mapping"
        if isinstance(value, dict)
        else "scalar"
    )
    reference: dict[str, Any] = {"sql": sql} if sql is not None else {kind: name}
    reference |= {"params": params or {}, "label": label}
    return ReferenceValue.model_validate(
        {
            "reference": reference,
            "shape": shape,
            "value": value,
            "unit": unit,
            "column_units": column_units or {},
        }
    )


def assert_verdicts(
    question: str, answer: str, refs: list[ReferenceValue], expected: list[str]
) -> None:
    """Every claim of the answer gets the expected verdict, in order (the reasons shown if not)."""
    contract = extract_claims("TC_001", question or "How are we doing?", answer)
    verdicts = verify_claims(contract, refs, answer=answer, question=question)
    why = [(c.text, v.reason) for c, v in zip(contract.claims, verdicts, strict=True)]
    assert [v.verdict for v in verdicts] == expected, why


def verdicts_of(
    answer: str, refs: list[ReferenceValue], question: str = "How are we doing?"
) -> list[str]:
    """The verdict of each claim of the answer, in order."""
    contract = extract_claims("TC_001", question, answer)
    return [v.verdict for v in verify_claims(contract, refs, answer=answer, question=question)]
