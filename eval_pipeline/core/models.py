"""Typed records that flow between the evaluation steps.

Every record is a pydantic model so it can be validated on load, serialised to the results store as
JSON and rendered in the report without ad-hoc dict handling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

DimensionState = Literal["scored", "skipped", "error"]
VerdictLabel = Literal["supported", "contradicted", "unverifiable", "stale"]
DIMENSION_STATES: tuple[str, ...] = get_args(DimensionState)
VERDICT_LABELS: tuple[str, ...] = get_args(VerdictLabel)
Unit = Literal[
    "percent",
    "fraction",
    "count",
    "currency",
    "number",
    "points",
    "ratio",
    "seconds",
    "minutes",
    "hours",
    "days",
    "weeks",
]
DURATION_UNITS: dict[str, float] = {
    "seconds": 1.0,
    "minutes": 60.0,
    "hours": 3600.0,
    "days": 86400.0,
    "weeks": 604800.0,
}
"""Duration units by their length in seconds: a duration is declared in the base it is stored in."""

DIMENSIONS: tuple[str, ...] = (
    "oracle",
    "content_quality",
    "on_topic",
    "bkg",
    "sql",
    "safety",
    "latency",
    "routing",
    "answered",
)
JUDGED_DIMENSIONS: tuple[str, ...] = ("content_quality", "on_topic", "bkg")


def in_dimension_order(names: Iterable[str]) -> list[str]:
    """The known dimensions in their usual order, then any others alphabetically."""
    found = set(names)
    return [d for d in DIMENSIONS if d in found] + sorted(found - set(DIMENSIONS))


class StrictModel(BaseModel):
    """A record of this project's: an unknown field is an error, never silently dropped."""

    model_config = ConfigDict(extra="forbid")


class _Extended(StrictModel):
    """A record with fields added after results were stored: while at their default they stay out
    of its JSON, so a stored record keeps its content hash and stays reusable."""

    ADDED: ClassVar[tuple[str, ...]] = ()

    @classmethod
    @cache
    def _added_defaults(cls) -> dict[str, Any]:
        """The defaults of ``ADDED``, made once per class: pydantic inspects a default factory's
        signature on every call: 0.1 ms of each dump of a golden case, 16 times the rest."""
        return {
            name: cls.model_fields[name].get_default(call_default_factory=True)
            for name in cls.ADDED
        }

    @model_serializer(mode="wrap")
    def _without_unset_additions(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name, default in self._added_defaults().items():
                if name in data and data[name] == default:
                    del data[name]
        return data


# --------------------------------------------------------------------------- inputs: BKG


class Column(StrictModel):
    name: str
    type: str
    description: str


class Fingerprint(StrictModel):
    """How to detect a change of a table without scanning it: row count plus max of columns."""

    columns: list[str] = Field(default_factory=list)
    row_count: bool = True


class Table(StrictModel):
    name: str
    description: str
    columns: list[Column]
    primary_key: list[str]
    fingerprint: Fingerprint = Field(default_factory=Fingerprint)


class Relationship(StrictModel):
    from_: str = Field(alias="from")
    to: str
    type: Literal["many_to_one", "one_to_one", "one_to_many", "many_to_many"] = "many_to_one"
    description: str = ""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Param(StrictModel):
    name: str
    type: Literal["string", "integer", "number", "boolean", "date"]
    description: str = ""
    required: bool = False
    enum: list[Any] | None = None
    default: Any = None


class Function(StrictModel):
    """A KPI, decision or core node: a named, documented, executable business rule."""

    name: str
    description: str
    unit: Unit | None = None
    params: list[Param] = Field(default_factory=list)
    tables: list[str]
    returns: Literal["scalar", "mapping", "table"] = "scalar"
    column_units: dict[str, Unit] = Field(default_factory=dict)
    python_function: str


class GlossaryEntry(StrictModel):
    term: str
    definition: str


class BKG(_Extended):
    ADDED = ("locale",)

    name: str
    description: str = ""
    locale: Literal["en", "es"] = "en"
    """How the chatbot writes numbers: ``es`` reads "1.234,56 €", "15 %", "quince por ciento"."""
    tables: list[Table]
    relationships: list[Relationship] = Field(default_factory=list)
    kpis: list[Function] = Field(default_factory=list)
    decisions: list[Function] = Field(default_factory=list)
    core_nodes: list[Function] = Field(default_factory=list)
    glossary: list[GlossaryEntry] = Field(default_factory=list)

    def function(self, kind: str, name: str) -> Function | None:
        return next((fn for fn in getattr(self, FUNCTION_KINDS[kind]) if fn.name == name), None)

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name.lower() == name.lower()), None)


FUNCTION_KINDS: dict[str, str] = {"kpi": "kpis", "decision": "decisions", "core_node": "core_nodes"}


# --------------------------------------------------------------------------- inputs: golden set


class Reference(StrictModel):
    """One live source of truth for a case: exactly one of kpi / decision / core_node / sql."""

    kpi: str | None = None
    decision: str | None = None
    core_node: str | None = None
    sql: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    label: str | None = None
    unit: Unit | None = None
    column_units: dict[str, Unit] = Field(default_factory=dict)

    @property
    def kind(self) -> str:
        for kind in ("kpi", "decision", "core_node", "sql"):
            if getattr(self, kind) is not None:
                return kind
        raise ValueError("reference names no source")

    @property
    def target(self) -> str:
        return str(getattr(self, self.kind))


class EvaluationCriteria(StrictModel):
    unforgivable: list[str] = Field(default_factory=list)
    acceptable: list[str] = Field(default_factory=list)
    partial_credit: list[str] = Field(default_factory=list)


class ToolCall(StrictModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    sql: str | None = None


CONVERSATION_COLUMNS = ("conversation_id", "role", "content", "created_at", "intent", "tool_calls")
"""The roles of a conversation log's columns (``EVAL_CONVERSATIONS_COLUMNS`` maps them to names);
the first four are required. Here, not with the reader, so settings check them without loading
it (pandas and SQLAlchemy)."""


class LoggedAnswer(StrictModel):
    """What a production conversation's assistant said: the answer evaluated as it was logged."""

    conversation_id: str
    answer: str
    created_at: str
    intent: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)


class GoldenCase(_Extended):
    ADDED = ("expected_intent", "expected_tools", "rubric")

    id: str
    question: str
    context: str = ""
    expected_answer: str = "N/A"
    reference: list[Reference] = Field(default_factory=list)
    evaluation_criteria: EvaluationCriteria = Field(default_factory=EvaluationCriteria)
    tags: list[str] = Field(default_factory=list)
    expected_intent: str | None = None
    expected_tools: list[str] = Field(default_factory=list)
    rubric: str | None = None
    """A rubric file for this case instead of ``EVAL_RUBRIC_PATH`` (relative to the golden set)."""

    @property
    def has_expected_answer(self) -> bool:
        return self.expected_answer.strip().upper() not in {"", "N/A", "NA", "NONE", "TBD"}


class LoggedCase(GoldenCase):
    """A case created from a logged production conversation: its answer is not asked again."""

    logged: LoggedAnswer


class RemovedCase(StrictModel):
    """A case partition whose golden case is no longer in the dataset."""

    id: str
    removed: Literal[True] = True


def case_record(payload: Mapping[str, Any]) -> GoldenCase | RemovedCase:
    """A stored ``golden_cases`` record as its model: a golden case, a logged conversation's
    case, or a removed case."""
    if payload.get("removed"):
        return RemovedCase.model_validate(payload)
    if "logged" in payload:
        return LoggedCase.model_validate(payload)
    return GoldenCase.model_validate(payload)


# --------------------------------------------------------------------------- chatbot payload


class ToolResult(StrictModel):
    call_id: str
    name: str = ""
    content: Any = None
    row_count: int | None = None


class ChatPayload(_Extended):
    """The normalized answer of one chatbot call, whatever the transport."""

    ADDED = ("intent",)

    case_id: str
    question: str
    answer: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_results: list[ToolResult] = Field(default_factory=list)
    latency_s: float | None = None
    ttft_s: float | None = None
    tokens_per_s: float | None = None
    chunk_count: int = 0
    max_chunk_gap_s: float | None = None
    errors: list[str] = Field(default_factory=list)
    status: Literal["ok", "error"] = "ok"
    transport: str = ""
    attempts: int = 1
    started_at: str = ""
    data_fingerprints: dict[str, str] = Field(
        default_factory=dict,
        description="Fingerprint of each table the case depends on, taken when it was asked.",
    )
    intent: str | None = Field(
        default=None, description="The intent the chatbot routed the question to, if it said."
    )

    @property
    def sql_statements(self) -> list[str]:
        return [c.sql for c in self.tool_calls if c.sql]


# --------------------------------------------------------------------------- claims and verdicts


class Claim(StrictModel):
    id: str
    text: str
    span: tuple[int, int]
    value: float | None = None
    unit: Unit | None = None
    precision: float | None = None
    """Half a unit of the last written digit, in the unit of ``value``."""
    place: float | None = None
    """One unit of the last significant place (what a hedge widens the precision by)."""
    hedged: bool = False
    per: float | None = None
    """A share stated as ``value`` in ``per`` ("one in 8": 1 in 8; "3 out of 10": 3 in 10)."""
    entity: str | None = None
    kind: Literal["numeric", "ranking", "comparison", "existence", "other"] = "numeric"
    source: Literal["deterministic", "llm"] = "deterministic"
    bound: Literal["at_least", "at_most"] | None = None
    direction: Literal["up", "down", "highest", "lowest"] | None = None
    """A change claim's stated direction; the end of the ordering a ranking claim counts from."""


class Evidence(StrictModel):
    source: str
    kind: str
    params: dict[str, Any] = Field(default_factory=dict)
    label: str | None = None
    value: Any = None
    sql: str | None = None


class Verdict(StrictModel):
    claim_id: str
    verdict: VerdictLabel
    reason: str
    evidence: list[Evidence] = Field(default_factory=list)


class ReferenceValue(StrictModel):
    """A reference recomputed live: what it was called with and what it returned (JSON-safe)."""

    reference: Reference
    shape: Literal["scalar", "mapping", "table"]
    value: Any = None
    unit: Unit | None = None
    column_units: dict[str, Unit] = Field(default_factory=dict)
    tables: list[str] = Field(default_factory=list)
    error: str | None = None


class ClaimContract(StrictModel):
    case_id: str
    claims: list[Claim] = Field(default_factory=list)
    method: str = "deterministic"


class OracleResult(StrictModel):
    case_id: str
    verdicts: list[Verdict] = Field(default_factory=list)
    references: list[ReferenceValue] = Field(default_factory=list)
    error: str | None = None
    stale_tables: list[str] = Field(default_factory=list)
    agent: dict[str, Any] = Field(
        default_factory=dict,
        description="The LLM verifier's tool-call log and counts; empty on the deterministic path.",
    )

    def counts(self) -> dict[str, int]:
        return verdict_counts(self.verdicts)


def verdict_counts(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """How many verdicts of each label, every label present."""
    out = dict.fromkeys(VERDICT_LABELS, 0)
    for v in verdicts:
        out[v.verdict] += 1
    return out


# --------------------------------------------------------------------------- scores


class DimensionResult(_Extended):
    ADDED = ("raw_score",)

    name: str
    state: DimensionState
    score: float | None = None
    raw_score: float | None = None
    """The score on the dimension's own scale (a rubric's 1–5), before normalising to [0, 1]."""
    method: str = ""
    reason: str = ""
    details: dict[str, Any] = Field(default_factory=dict)


class CaseScores(StrictModel):
    """A case's every dimension, with what the run's gates need to know of the case."""

    case_id: str
    dimensions: dict[str, DimensionResult] = Field(default_factory=dict)
    has_expected_answer: bool = False
    has_reference: bool = False
    tags: list[str] = Field(default_factory=list)
    chatbot_errors: list[str] = Field(default_factory=list)
    stale_tables: list[str] = Field(default_factory=list)
    cost: dict[str, Any] = Field(default_factory=dict)
    removed: bool = False


class CaseOutcome(StrictModel):
    case_id: str
    overall: float | None
    passed: bool
    state: Literal["scored", "error"] = "scored"
    profile: str
    gate_failures: list[str] = Field(default_factory=list)
    errors: list[str] = Field(
        default_factory=list,
        description="Why an ``error`` case's outcome is open: the failures that could change it.",
    )
    warnings: list[str] = Field(default_factory=list)
    verdict_counts: dict[str, int] = Field(default_factory=dict)
    dimensions: dict[str, DimensionResult] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
