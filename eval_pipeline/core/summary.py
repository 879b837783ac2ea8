"""The run summary as typed records: what ``eval_run`` writes and every reader of a run takes.

Its JSON (docs/formats.md, "The run summary JSON") is a product output: ``summary.json`` and the
results store's ``eval_run`` rows are ``model_dump(mode="json")`` of a ``RunSummary``, and a
summary stored by an earlier version must still validate, since later runs read it back as their
baseline. So every field added after the first stored summaries has a default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from eval_pipeline.core.models import DimensionState, StrictModel

SUMMARY_SCHEMA_VERSION = 1

CaseResult = Literal["pass", "fail", "error"]


class Latency(StrictModel):
    """Total latency and time to first token over the answered cases (None when none)."""

    mean_s: float | None = None
    p95_s: float | None = None
    ttft_mean_s: float | None = None
    ttft_p95_s: float | None = None


class RoutingSummary(StrictModel):
    """The intent confusion matrix over the cases that expect an intent."""

    cases: int = 0
    correct: int = 0
    accuracy: float | None = None
    intents: list[str] = Field(default_factory=list)
    confusion: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Expected intent → routed intent → cases."""


class CaseRoute(StrictModel):
    expected: str
    intent: str | None = None


class DimensionSummary(StrictModel):
    """A dimension of a case without its evidence (``details``): what the summary keeps."""

    score: float | None = None
    state: DimensionState
    method: str = ""
    reason: str = ""


class CaseSummary(StrictModel):
    case_id: str
    overall: float | None = None
    passed: bool
    state: Literal["scored", "error"] = "scored"
    profile: str
    gate_failures: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    verdict_counts: dict[str, int] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    routing: CaseRoute | None = None
    dimensions: dict[str, DimensionSummary] = Field(default_factory=dict)
    reused: bool = False
    """Nothing was recomputed for the case since the run key's previous summary."""
    claims: list[dict[str, Any]] | None = Field(default=None, exclude_if=lambda v: v is None)
    """Only in ``summary.json`` (``claim_results``): the store's copy leaves them out."""

    @property
    def result(self) -> CaseResult:
        """``pass``, ``fail`` or ``error``: an errored case is neither passed nor failed."""
        if self.state == "error":
            return "error"
        return "pass" if self.passed else "fail"

    def dimension_score(self, dimension: str) -> float | None:
        """The case's score on the dimension; None unless it was scored."""
        dim = self.dimensions.get(dimension)
        return dim.score if dim is not None and dim.state == "scored" else None


class Calls(StrictModel):
    """Calls really made by the steps that wrote results since the previous summary."""

    chatbot: int = 0
    judge: int = 0
    reference: int = 0


class Cost(StrictModel):
    """Judge spend of the run's current results."""

    judge_calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0
    usd_by_dimension: dict[str, float] = Field(default_factory=dict)


class TraceExport(StrictModel):
    """What became of the run key's spans: exported, or failed and why."""

    endpoint: str
    service_name: str
    spans: int
    exported: int
    failed: int
    traces_failed: int
    failed_cases: list[str] = Field(default_factory=list)
    """At most 20 of them."""
    reason: str = ""


# --------------------------------------------------------------------------- the comparison


class ScoreDelta(StrictModel):
    """Paired mean change (head − base) with its bootstrap interval; no interval below
    ``compare.MIN_PAIRS_FOR_CI`` pairs, no change without pairs."""

    pairs: int
    mean_delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None


class Rates(StrictModel):
    base: float | None = None
    head: float | None = None


class McNemar(StrictModel):
    pass_to_fail: int
    fail_to_pass: int
    p_value: float


class Bootstrap(StrictModel):
    resamples: int
    seed: int
    level: float
    """The confidence of the intervals: 1 − the significance level."""


class DimensionChange(StrictModel):
    dimension: str
    base_state: DimensionState | None = None
    head_state: DimensionState | None = None
    base_score: float | None = None
    head_score: float | None = None
    delta: float | None = None
    base_reason: str = ""
    head_reason: str = ""


class CaseChange(StrictModel):
    """What changed for one case between two runs, and whether that is better or worse."""

    case_id: str
    base_result: CaseResult
    head_result: CaseResult
    base_overall: float | None = None
    head_overall: float | None = None
    overall_delta: float | None = None
    gates_added: list[str] = Field(default_factory=list)
    gates_removed: list[str] = Field(default_factory=list)
    verdict_changes: dict[str, int] = Field(default_factory=dict)
    dimension_changes: list[DimensionChange] = Field(default_factory=list)
    direction: Literal["regression", "improvement"] | None = None


class RouteChange(StrictModel):
    case_id: str
    expected: str
    base_intent: str | None = None
    head_intent: str | None = None


class RoutingChanges(StrictModel):
    """Routing accuracy of both runs on the cases both route, and the cases whose route flipped."""

    cases: int = 0
    base_accuracy: float | None = None
    head_accuracy: float | None = None
    regressions: list[RouteChange] = Field(default_factory=list)
    improvements: list[RouteChange] = Field(default_factory=list)


class ErrorChanges(StrictModel):
    new: list[CaseChange] = Field(default_factory=list)
    recovered: list[CaseChange] = Field(default_factory=list)
    persisting: list[CaseChange] = Field(default_factory=list)


class Comparison(StrictModel):
    """The paired comparison of two runs (``compare.compare_runs``)."""

    base_run_key: str | None = None
    head_run_key: str | None = None
    level: float
    paired_cases: int
    answered_pairs: int | None = None
    only_in_base: list[str] = Field(default_factory=list)
    only_in_head: list[str] = Field(default_factory=list)
    pass_rate: Rates
    error_rate: Rates
    mcnemar: McNemar
    bootstrap: Bootstrap
    overall: ScoreDelta
    dimensions: dict[str, ScoreDelta] = Field(default_factory=dict)
    cases: list[CaseChange] = Field(default_factory=list)
    regressions: list[CaseChange] = Field(default_factory=list)
    improvements: list[CaseChange] = Field(default_factory=list)
    routing: RoutingChanges = Field(default_factory=RoutingChanges)
    error_changes: ErrorChanges = Field(default_factory=ErrorChanges)
    significant_regression: bool
    significance_reasons: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------- the run


class RunSummary(StrictModel):
    schema_version: int = SUMMARY_SCHEMA_VERSION
    run_key: str
    created_at: str
    report_path: str
    cases_total: int
    cases_passed: int
    cases_failed: int
    cases_error: int = 0
    pass_rate: float
    coverage: float
    mean_overall: float | None = None
    latency: Latency = Field(default_factory=Latency)
    dimension_means: dict[str, float | None] = Field(default_factory=dict)
    dimension_states: dict[str, dict[str, int]] = Field(default_factory=dict)
    verdict_counts: dict[str, int] = Field(default_factory=dict)
    gate_failure_counts: dict[str, int] = Field(default_factory=dict)
    error_counts: dict[str, int] = Field(default_factory=dict)
    profiles: dict[str, int] = Field(default_factory=dict)
    routing: RoutingSummary = Field(default_factory=RoutingSummary)
    trace_export: TraceExport | None = None
    """None when no tracing is configured."""
    calls: Calls | None = None
    """None until ``eval_run`` counts them from the store."""
    chatbot_unreachable: bool = False
    cost: Cost | None = None
    """None until ``eval_run`` sums it (and in summaries stored before it did)."""
    comparison: Comparison | None = None
    """Against the baseline run; None without one."""
    demoted_dimensions: dict[str, str] = Field(default_factory=dict)
    cases: list[CaseSummary] = Field(default_factory=list)

    @property
    def summary_path(self) -> Path:
        """Where ``eval_run`` writes ``summary.json``: beside the report."""
        return Path(self.report_path).with_name("summary.json")
