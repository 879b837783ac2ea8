"""The ``latency`` dimension: total time and time to first token, banded against an SLA.

Bands instead of a linear ramp so that a few hundred milliseconds of jitter around the SLA do not
move scores, while an answer that takes three times the SLA clearly fails.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from eval_pipeline.core.models import ChatPayload, DimensionResult

# (multiple of the SLA, score): the first band the measurement fits in gives the score.
BANDS: tuple[tuple[float, float], ...] = ((1.0, 1.0), (1.5, 0.75), (2.0, 0.5), (3.0, 0.25))


class LatencySLA(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    total_s: float = Field(default=8.0, gt=0)
    ttft_s: float = Field(default=2.0, gt=0)


def banded_score(measured_s: float, sla_s: float) -> float:
    for multiple, score in BANDS:
        if measured_s <= sla_s * multiple:
            return score
    return 0.0


def _describe(label: str, measured_s: float, sla_s: float, score: float) -> str:
    relation = "≤" if measured_s <= sla_s else ">"
    return f"{label} {measured_s:.2f} s {relation} SLA {sla_s:.2f} s (score {score:.2f})"


def latency_dimension(payload: ChatPayload, sla: LatencySLA | None = None) -> DimensionResult:
    """Half total time, half TTFT; total only when the transport cannot see a first token."""
    sla = sla or LatencySLA()
    details = {
        "latency_s": payload.latency_s,
        "ttft_s": payload.ttft_s,
        "tokens_per_s": payload.tokens_per_s,
        "sla": sla.model_dump(),
    }
    if payload.latency_s is None:
        failed = payload.status == "error"
        cause = payload.errors[0] if payload.errors else "unknown error"
        return DimensionResult(
            name="latency",
            state="error" if failed else "skipped",
            method="sla_bands",
            reason=(
                f"the chatbot call failed before a complete answer: {cause}"
                if failed
                else "the transport reported no timings"
            ),
            details=details,
        )
    total_score = banded_score(payload.latency_s, sla.total_s)
    parts = [_describe("total", payload.latency_s, sla.total_s, total_score)]
    details["total_score"] = total_score
    score = total_score
    if payload.ttft_s is not None:
        ttft_score = banded_score(payload.ttft_s, sla.ttft_s)
        parts.append(_describe("TTFT", payload.ttft_s, sla.ttft_s, ttft_score))
        details["ttft_score"] = ttft_score
        score = 0.5 * total_score + 0.5 * ttft_score
    else:
        parts.append("no TTFT measured: total time only")
    return DimensionResult(
        name="latency",
        state="scored",
        score=score,
        method="sla_bands",
        reason="; ".join(parts),
        details=details,
    )
