"""One typed configuration object, read from environment variables (prefix ``EVAL_``) and ``.env``.

Everything the evaluation needs to know about the outside world — where the three domain inputs
are, how to reach the chatbot, where results go — lives here so that a bad value fails fast with a
message naming the variable, before any chatbot call is made.
"""

from __future__ import annotations

import json
import os
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter
from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from eval_pipeline.core.adapters.defaults import CHROMIUM, SQL_ARGUMENTS
from eval_pipeline.core.dimensions.latency import LatencySLA
from eval_pipeline.core.limits import MAX_ANSWER_BYTES, MAX_GOLDEN_FIELD_CHARS, ReferenceLimits
from eval_pipeline.core.llm.settings import LLMSettings
from eval_pipeline.core.problems import InputError, Problem
from eval_pipeline.core.tracing.config import TraceSettings, parse_headers

if TYPE_CHECKING:
    from eval_pipeline.core.conversations import ConversationSource
    from eval_pipeline.core.oracle.tolerance import ToleranceRule

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEMO_DATA = PROJECT_ROOT / "data" / "demo"

FULL_WEIGHTS: dict[str, float] = {
    "oracle": 0.30,
    "content_quality": 0.25,
    "on_topic": 0.15,
    "bkg": 0.10,
    "sql": 0.10,
    "safety": 0.05,
    "latency": 0.05,
}
BARE_WEIGHTS: dict[str, float] = {
    "oracle": 0.50,
    "bkg": 0.30,
    "on_topic": 0.10,
    "sql": 0.05,
    "latency": 0.05,
    "content_quality": 0.0,
    "safety": 0.0,
}

VIEW_PORT = 8780  # eval-pipeline view's default port, where the Dagster UI's report links point

# How the chatbot is reached (docs/formats.md and the README's configuration table).
ChatbotKind = Literal["sse", "http_json", "callable", "openai_chat", "ui"]

# Where Dagster runs each step: this process, one subprocess per step, or Celery workers.
ExecutorKind = Literal["in_process", "multiprocess", "celery"]


def chatbot_display(url: str) -> str:
    """A chatbot URL as messages and stored records show it: no credentials, no query values."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # a port that is not a number
        return url.rpartition("@")[2]
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}" if port is not None else ""
    query = "&".join(f"{name.partition('=')[0]}=***" for name in parts.query.split("&") if name)
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


class Settings(BaseSettings):
    """Configuration of one evaluation environment; see the README's Configuration section."""

    model_config = SettingsConfigDict(
        env_prefix="EVAL_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    home: Path = Field(
        default=Path(".eval_home"),
        description="Working folder: results store, reports, demo warehouse, Dagster home.",
    )
    bkg_path: Path = DEMO_DATA / "bkg.json"
    golden_path: Path = DEMO_DATA / "golden_dataset.json"
    rubric_path: Path | None = Field(
        default=None,
        description="A rubric file (YAML or JSON) whose dimensions every case is scored on, "
        "unless the case names its own.",
    )
    reference_timeout_s: float = Field(
        default=ReferenceLimits.timeout_s,
        gt=0,
        description="Wall-clock limit of one reference's BKG function or SQL, and of each BKG "
        "function's module code as it loads; past it the reference is in error and the run "
        "goes on (the process running it is stopped).",
    )
    reference_max_rows: int = Field(
        default=ReferenceLimits.max_rows,
        ge=1,
        description="Most rows (or mapping entries) a reference's result may have.",
    )
    golden_max_field_chars: int = Field(
        default=MAX_GOLDEN_FIELD_CHARS,
        ge=1,
        description="Most characters of one text field of a golden case (question, context, "
        "expected answer, a criterion, SQL…); a longer one is a problem of the golden set.",
    )
    database_url: str = Field(
        default="",
        description="Warehouse SQLAlchemy URL; empty means the demo SQLite warehouse in home.",
    )
    results_url: str = Field(
        default="", description="Results store URL; empty means SQLite in home."
    )

    chatbot_kind: ChatbotKind = "sse"
    chatbot_callable: str = Field(
        default="",
        description="For chatbot_kind=callable: 'module:factory'; factory(warehouse_url) returns "
        "a function (question, context) -> answer text or dict.",
    )
    chatbot_intent_event: Literal["agent_status", "tool_call"] = Field(
        default="agent_status",
        description="For sse: the event whose data holds the intent the bot routed to; for "
        "openai_chat: agent_status reads each streamed chunk, tool_call each tool call; for ui "
        "only tool_call (the tool calls the page shows) reads one.",
    )
    chatbot_intent_path: str = Field(
        default="intent",
        description="JSON path of the routed intent: in that SSE event's data, in the http_json "
        "response, in the object a callable returns, in an openai_chat chunk or tool call "
        "(e.g. 'intent', '$.route.name', 'arguments.intent').",
    )
    routing_gate: bool = Field(
        default=True, description="A case routed to another intent than expected fails."
    )
    chatbot_url: str = "http://127.0.0.1:8765"
    chatbot_username: str = "demo"
    chatbot_password: SecretStr = SecretStr("demo-password")
    chatbot_model: str = Field(
        default="", description="For openai_chat: the model name sent (empty: no model field)."
    )
    chatbot_api_key: SecretStr = Field(
        default=SecretStr(""), description="For openai_chat: sent as 'Authorization: Bearer'."
    )
    chatbot_headers: dict[str, SecretStr] = Field(
        default_factory=dict,
        description="For openai_chat and http_json: extra request headers (a JSON object); "
        "their values are secrets.",
    )
    chatbot_body: dict[str, Any] = Field(
        default_factory=dict,
        description="For openai_chat: extra fields of the request body (a JSON object).",
    )
    chatbot_sql_arguments: list[str] = Field(
        default_factory=lambda: list(SQL_ARGUMENTS),
        min_length=1,
        description="For openai_chat: the tool-call arguments holding the SQL a call ran, the "
        "first present one wins (a JSON array).",
    )
    chatbot_ui_config: Path | None = Field(
        default=None,
        description="For ui: the page-object YAML (eval_pipeline/schemas/ui_config.schema.json).",
    )
    chatbot_ui_browser: Path = Field(
        default=CHROMIUM,
        description="For ui: the Chromium executable Playwright drives (never downloaded).",
    )
    chatbot_connect_timeout_s: float = Field(default=5.0, gt=0)
    chatbot_read_timeout_s: float = Field(default=10.0, gt=0)
    chatbot_total_timeout_s: float = Field(default=120.0, gt=0)
    chatbot_retries: int = Field(default=2, ge=0, le=10)
    chatbot_max_answer_bytes: int = Field(
        default=MAX_ANSWER_BYTES,
        ge=1024,
        description="Most bytes read from the chatbot for one answer (the stream or the JSON "
        "body); over it the case is in error, 'answer too large'.",
    )
    concurrency: int = Field(default=8, ge=1, le=256)
    wave_cases: int = Field(
        default=0,
        ge=0,
        description="In process, cases per Dagster run of an evaluation; up to three such waves "
        "overlap so evaluation hides behind the chatbot's latency. 0 picks "
        "max(4 x concurrency, cases / 8); with several waves the first and the last concurrency "
        "cases form short waves of their own; at least the number of cases means one run.",
    )
    refresh: bool = Field(
        default=False, description="Re-ask the chatbot even when a stored answer is reusable."
    )
    executor: ExecutorKind = Field(
        default="in_process",
        description="Where the steps of every Dagster run execute; celery needs PostgreSQL "
        "storage shared with the workers (docs/deployment.md).",
    )

    llm_base_url: str = Field(default="", description="OpenAI-compatible endpoint for judges.")
    llm_api_key: SecretStr = SecretStr("")
    llm_model: str = ""
    llm_api_version: str | None = Field(default=None, description="Set for Azure OpenAI.")
    llm_azure_deployment: str | None = None
    llm_structured_output: Literal["response_format", "tool"] = "response_format"
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=4, ge=0, le=20)
    llm_concurrency: int = Field(default=4, ge=1, le=256)
    llm_price_input_per_1k: float = Field(default=0.0, ge=0)
    llm_price_output_per_1k: float = Field(default=0.0, ge=0)
    llm_cache_ttl_s: float = Field(default=7 * 24 * 3600.0, ge=0)
    llm_requests_per_minute: float = Field(
        default=0,
        ge=0,
        description="Most requests started per minute on the judge endpoint (free tiers); 0: "
        "no pacing.",
    )
    judge_use_cache: bool = Field(
        default=True,
        description="Reuse cached judgements of identical prompts; repeats turn it off so the "
        "judge's own noise is measured.",
    )
    min_pass_rate: float = Field(
        default=1.0, ge=0, le=1, description="The eval_run gates_passed check's bar."
    )
    min_coverage: float = Field(default=0.9, ge=0, le=1, description="The coverage check's bar.")
    checks_block_report: bool = Field(
        default=False, description="Failed eval_run checks stop eval_report from materializing."
    )
    baseline_run: str = Field(
        default="", description="Run key every run is compared with; empty: the previous run."
    )
    significance_level: float = Field(default=0.05, gt=0, lt=1)
    retain_runs: int = Field(
        default=100,
        ge=1,
        description="Run partitions kept in Dagster; older ones are removed (results stay stored).",
    )
    conversations_url: str = Field(
        default="",
        description="SQLAlchemy URL of the database holding the logged conversations, one row "
        "per message; empty: none.",
    )
    conversations_table: str = Field(
        default="conversations", description="The table of logged messages."
    )
    conversations_columns: dict[str, str] = Field(
        default_factory=dict,
        description="JSON: the table's column for each of conversation_id, role, content, "
        "created_at (each named alike by default) and the optional intent and tool_calls.",
    )
    conversations_query: str = Field(
        default="",
        description="Instead of the table: one SELECT returning those column names.",
    )
    conversation_batch: int = Field(
        default=50, ge=1, description="Conversations the sensor evaluates per tick at most."
    )
    retain_conversations: int = Field(
        default=500,
        ge=0,
        description="Conversation case keys kept in Dagster (older ones leave it; their results "
        "stay stored).",
    )
    nightly_cron: str = Field(default="0 2 * * *", description="When the nightly run starts.")
    nightly_timezone: str = "UTC"
    otel_endpoint: str = Field(
        default="",
        description="OTLP/HTTP endpoint traces are exported to (base URL or .../v1/traces); "
        "empty: no traces.",
    )
    otel_headers: SecretStr = Field(
        default=SecretStr(""),
        description="Headers of every export, name=value pairs separated by commas (values "
        "percent-encoded), e.g. Authorization=Basic%20<base64 of public:secret key>.",
    )
    otel_service_name: str = Field(
        default="eval_pipeline", min_length=1, description="service.name, Phoenix's project."
    )
    otel_flush_timeout_s: float = Field(
        default=5.0,
        gt=0,
        le=300,
        description="Longest wait for unsent spans at the end of a run; what is left then is "
        "counted as failed.",
    )
    otel_export_timeout_s: float = Field(default=10.0, gt=0, le=300)
    pass_threshold: float = Field(default=0.60, ge=0, le=1)
    oracle_gate: float = Field(
        default=1.0, ge=0, le=1, description="Oracle score below this fails the case."
    )
    hedge_units: float = Field(
        default=1.0,
        ge=0,
        le=10,
        description="A hedged number ('about 1,200') is widened by this many units of its last "
        "significant place (docs/formats.md, the tolerance rule).",
    )
    hedge_cap: float = Field(
        default=0.10,
        ge=0,
        le=1,
        description="A hedge never widens a number beyond this share of its stated value.",
    )
    warn_threshold: float = Field(
        default=0.5, ge=0, le=1, description="Any other dimension below this is a warning."
    )
    off_topic_gate: bool = Field(
        default=True,
        description="A case whose oracle could check no claim and whose on_topic score is below "
        "warn_threshold fails: it does not answer the question, whatever the other dimensions.",
    )
    partition_metadata: bool = Field(
        default=True,
        description="Each case's partition in the Dagster UI carries its own metadata (latency, "
        "answer preview, verdicts, scores) and its case_passed check result.",
    )
    report_show_pii: bool = Field(
        default=False,
        description="Show PII found in answers in the report; masked as the safety gate reports "
        "it by default.",
    )
    report_base_url: str = Field(
        default="",
        description="Where the Dagster UI's report links point (eval-pipeline view serves "
        "EVAL_HOME/reports); empty: the local viewer at http://127.0.0.1:<view port>.",
    )
    calibration_bar: float = Field(
        default=0.67,
        ge=0,
        le=1,
        description="A judged dimension whose judge agreement (Krippendorff's α) is below this "
        "is demoted to a warning.",
    )
    latency_total_sla_s: float = Field(default=8.0, gt=0)
    latency_ttft_sla_s: float = Field(default=2.0, gt=0)
    weights: dict[str, float] = Field(default_factory=lambda: dict(FULL_WEIGHTS))
    weights_bare: dict[str, float] = Field(default_factory=lambda: dict(BARE_WEIGHTS))

    @field_validator("weights", "weights_bare")
    @classmethod
    def _known_dimensions(cls, value: dict[str, float]) -> dict[str, float]:
        from eval_pipeline.core.models import DIMENSIONS

        unknown = sorted(set(value) - set(DIMENSIONS))
        if unknown:
            raise ValueError(f"unknown dimension(s) {unknown}; known: {list(DIMENSIONS)}")
        if any(w < 0 for w in value.values()) or sum(value.values()) <= 0:
            raise ValueError("weights must be non-negative and not all zero")
        return value

    @field_validator("conversations_columns", mode="before")
    @classmethod
    def _columns_json(cls, value: object) -> object:
        """Overrides arrive as text, as the environment's value does."""
        return json.loads(value) if isinstance(value, str) and value.strip() else value

    @field_validator("conversations_columns")
    @classmethod
    def _known_columns(cls, value: dict[str, str]) -> dict[str, str]:
        from eval_pipeline.core.models import CONVERSATION_COLUMNS

        unknown = sorted(set(value) - set(CONVERSATION_COLUMNS))
        if unknown:
            known = list(CONVERSATION_COLUMNS)
            raise ValueError(f"unknown column role(s) {unknown}; known: {known}")
        return value

    @field_validator("chatbot_intent_path")
    @classmethod
    def _json_path(cls, value: str) -> str:
        from eval_pipeline.core.adapters.base import check_json_path

        return check_json_path(value)

    @field_validator("otel_endpoint")
    @classmethod
    def _http_endpoint(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL (OTLP over HTTP)")
        return value

    @field_validator("otel_headers")
    @classmethod
    def _header_pairs(cls, value: SecretStr) -> SecretStr:
        parse_headers(value.get_secret_value())
        return value

    @field_validator("chatbot_callable")
    @classmethod
    def _factory_path(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("chatbot_kind") != "callable":
            return value
        module, colon, attr = value.partition(":")
        if not (colon and module.strip() and attr.strip()):
            raise ValueError(
                f"EVAL_CHATBOT_KIND=callable needs 'module:factory' (got {value!r}); the "
                "module must be importable, e.g. on PYTHONPATH"
            )
        return value

    @field_validator("chatbot_url")
    @classmethod
    def _http_url(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("chatbot_kind") == "callable":
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {chatbot_display(value)!r}")
        return value

    @field_validator("nightly_timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ValueError, ZoneInfoNotFoundError):
            raise ValueError(
                f"unknown time zone {value!r} (an IANA name such as UTC or Europe/Paris)"
            ) from None
        return value

    @field_validator("nightly_cron")
    @classmethod
    def _valid_cron(cls, value: str) -> str:
        if not croniter.is_valid(value):
            raise ValueError(f"not a valid cron expression: {value!r}")
        return value

    @model_validator(mode="after")
    def _absolute_home(self) -> Settings:
        self.home = self.home.expanduser().resolve()
        return self

    @cached_property
    def warehouse_url(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'demo_warehouse.db'}"

    @cached_property
    def results_store_url(self) -> str:
        return self.results_url or f"sqlite:///{self.home / 'results.db'}"

    def cases_per_wave(self, cases: int) -> int:
        """Small enough that the last wave's evaluation is short, big enough to fill the bot."""
        return self.wave_cases or max(4 * self.concurrency, -(-cases // 8))

    @property
    def reports_dir(self) -> Path:
        return self.home / "reports"

    @property
    def report_links_base(self) -> str:
        """Where report links point: ``EVAL_REPORT_BASE_URL``, else the local viewer."""
        return self.report_base_url or f"http://127.0.0.1:{VIEW_PORT}"

    @property
    def llm(self) -> LLMSettings | None:
        """Judge settings, or None when no LLM endpoint is configured (judged dimensions skip)."""
        if not (self.llm_base_url and self.llm_model):
            return None
        return LLMSettings(
            base_url=self.llm_base_url,
            api_key=self.llm_api_key,
            model=self.llm_model,
            api_version=self.llm_api_version,
            azure_deployment=self.llm_azure_deployment,
            structured_output=self.llm_structured_output,
            timeout_s=self.llm_timeout_s,
            max_retries=self.llm_max_retries,
            concurrency=self.llm_concurrency,
            price_input_per_1k=self.llm_price_input_per_1k,
            price_output_per_1k=self.llm_price_output_per_1k,
            cache_ttl_s=self.llm_cache_ttl_s,
            requests_per_minute=self.llm_requests_per_minute,
            pacing_dir=self.home / "pacing",
        )

    @property
    def conversation_source(self) -> ConversationSource | None:
        """Where logged conversations are read from; None when none is configured."""
        from eval_pipeline.core.conversations import ConversationSource

        if not self.conversations_url:
            return None
        return ConversationSource(
            url=self.conversations_url,
            table=self.conversations_table,
            columns=self.conversations_columns,
            query=self.conversations_query,
        )

    @property
    def traces(self) -> TraceSettings | None:
        """Trace export settings, or None when no endpoint is configured (nothing is traced)."""
        if not self.otel_endpoint:
            return None
        return TraceSettings(
            endpoint=self.otel_endpoint,
            headers=self.otel_headers,
            service_name=self.otel_service_name,
            flush_timeout_s=self.otel_flush_timeout_s,
            export_timeout_s=self.otel_export_timeout_s,
        )

    @property
    def tolerance_rule(self) -> ToleranceRule:
        from eval_pipeline.core.oracle.tolerance import ToleranceRule

        return ToleranceRule(hedge_units=self.hedge_units, hedge_cap=self.hedge_cap)

    def chatbot_problems(self) -> list[Problem]:
        """What is wrong with the chatbot's configuration files, found before the first call."""
        if self.chatbot_kind != "ui":
            return []
        from eval_pipeline.core.adapters.ui_config import ui_problems

        return ui_problems(self.chatbot_ui_config, self.chatbot_url, self.chatbot_ui_browser)

    @property
    def reference_limits(self) -> ReferenceLimits:
        return ReferenceLimits(timeout_s=self.reference_timeout_s, max_rows=self.reference_max_rows)

    @property
    def latency_sla(self) -> LatencySLA:
        return LatencySLA(total_s=self.latency_total_sla_s, ttft_s=self.latency_ttft_sla_s)


def load_settings(**overrides: object) -> Settings:
    """Build settings, turning a validation failure into an InputError that names each variable.

    Parsed once per process for the same overrides, ``EVAL_*`` variables and ``.env`` content:
    the code location's resources, the runner and the CLI each ask for them, often per run.
    """
    try:
        key = frozenset(overrides.items())
    except TypeError:  # an unhashable override (a mapping): parse it each time
        return _parse(overrides)
    return _parsed(key, _eval_variables(), _dotenv_content())


def _eval_variables() -> frozenset[tuple[str, str]]:
    return frozenset((k, v) for k, v in os.environ.items() if k.upper().startswith("EVAL_"))


def _dotenv_content() -> bytes | None:
    try:
        return Path(".env").resolve().read_bytes()
    except OSError:
        return None


@lru_cache(maxsize=16)
def _parsed(
    overrides: frozenset[tuple[str, object]],
    variables: frozenset[tuple[str, str]],
    dotenv: bytes | None,
) -> Settings:
    """``variables`` and ``dotenv`` are only the cache key: Settings reads both itself."""
    return _parse(dict(overrides))


def _parse(overrides: dict[str, object]) -> Settings:
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = [
            Problem(
                file="settings",
                location="EVAL_" + "_".join(str(p) for p in err["loc"]).upper(),
                message=err["msg"].removeprefix("Value error, "),
            )
            for err in exc.errors()
        ]
        raise InputError(problems) from None
