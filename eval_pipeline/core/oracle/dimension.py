"""The oracle dimension: the share of checked claims the live data supports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval_pipeline.core.models import (
    DimensionResult,
    DimensionState,
    ReferenceValue,
    Verdict,
    verdict_counts,
)


def oracle_dimension(
    verdicts: Sequence[Verdict], references: Sequence[ReferenceValue], *, has_reference: bool
) -> DimensionResult:
    """supported / (supported + contradicted); skipped when nothing could be checked."""
    counts = verdict_counts(verdicts)
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
