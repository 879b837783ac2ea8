"""The latency dimension: SLA bands, TTFT weighting and failed calls."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from eval_pipeline.core.dimensions.latency import LatencySLA, banded_score, latency_dimension
from eval_pipeline.core.models import ChatPayload

SLA = LatencySLA(total_s=8.0, ttft_s=2.0)


def timed(latency: float | None, ttft: float | None = None, **extra: object) -> ChatPayload:
    return ChatPayload.model_validate(
        {"case_id": "TC_001", "question": "q", "latency_s": latency, "ttft_s": ttft, **extra}
    )


@pytest.mark.parametrize(
    ("measured", "score"),
    [(0.1, 1.0), (8.0, 1.0), (8.01, 0.75), (12.0, 0.75), (16.0, 0.5), (24.0, 0.25), (24.1, 0.0)],
)
def test_bands(measured: float, score: float) -> None:
    assert banded_score(measured, 8.0) == score


def test_total_and_ttft_weigh_half_each() -> None:
    result = latency_dimension(timed(10.0, 0.5, tokens_per_s=42.0), SLA)
    assert result.state == "scored"
    assert result.score == pytest.approx(0.5 * 0.75 + 0.5 * 1.0)
    assert result.details["latency_s"] == 10.0
    assert result.details["ttft_s"] == 0.5
    assert result.details["tokens_per_s"] == 42.0
    assert "total 10.00 s > SLA 8.00 s" in result.reason
    assert "TTFT 0.50 s ≤ SLA 2.00 s" in result.reason


def test_missing_ttft_scores_total_only() -> None:
    result = latency_dimension(timed(20.0), SLA)
    assert result.score == 0.25
    assert "total time only" in result.reason


def test_failed_call_without_timings_is_an_error() -> None:
    failed = timed(None, 0.4, status="error", errors=["stream stalled"])
    result = latency_dimension(failed, SLA)
    assert result.state == "error"
    assert result.score is None
    assert "stream stalled" in result.reason


def test_ok_call_without_timings_is_skipped() -> None:
    assert latency_dimension(timed(None), SLA).state == "skipped"


def test_sla_must_be_positive() -> None:
    with pytest.raises(ValidationError):
        LatencySLA(total_s=0)
