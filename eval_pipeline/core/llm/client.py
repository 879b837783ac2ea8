"""One provider-agnostic LLM judge client over the ``openai`` SDK.

Any OpenAI-compatible endpoint works (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio...): the base
URL and model are settings. Every call runs at temperature 0 and asks for structured output by JSON
Schema (``response_format`` or a forced tool call), validated locally with ``jsonschema``, because a
compatible server may ignore the schema. A malformed reply is retried once with the error quoted
back; a second failure raises ``JudgeParseError`` — never a default score.

Transient failures (429, 408/409, 5xx, connection errors) are retried here, not by the SDK, so the
backoff is exponential with jitter and a server's ``Retry-After`` is always honoured. Replies are
cached by content hash in a SQL table with a TTL, and every call's tokens and USD cost go to a
``CostLedger``. The API key is never logged, stored or put into an exception message.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, cast

import jsonschema
import sqlalchemy as sa
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.llm.pacing import endpoint_pacer
from eval_pipeline.core.llm.settings import LLMSettings
from eval_pipeline.core.redaction import Redactor
from eval_pipeline.core.results_store import engine_with_tables
from eval_pipeline.core.tracing.calls import traced_chat, traced_judge

if TYPE_CHECKING:  # the SDK takes 0.6 s to import: only a process that calls a model loads it
    import openai
    from openai.types.chat import ChatCompletion, ChatCompletionMessage

log = logging.getLogger(__name__)

_MAX_QUOTED_REPLY = 4000
PROBE_PROMPT = "Reply with the single word OK."


class JudgeError(RuntimeError):
    """A judge call gave no usable result; the caller records an ``error`` dimension."""


class JudgeUnavailableError(JudgeError):
    """The endpoint refused or kept failing after every retry."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class JudgeParseError(JudgeError):
    """The model's reply was invalid against the schema twice in a row."""

    def __init__(self, message: str, errors: Sequence[str], spent: CostTotals) -> None:
        super().__init__(message)
        self.errors = list(errors)
        self.spent = spent


@dataclass(frozen=True)
class JudgeCall:
    """The validated reply of one judge call and what it cost (nothing, for a cached reply)."""

    data: dict[str, Any]
    model: str
    prompt_version: str
    cached: bool
    attempts: int = 0
    transport_retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


# --------------------------------------------------------------------------- cost accounting


@dataclass(frozen=True)
class CostTotals:
    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: CostTotals) -> CostTotals:
        return CostTotals(
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
        )


@dataclass(frozen=True)
class CostEntry:
    case_id: str
    dimension: str
    totals: CostTotals


class CostLedger:
    """Thread-safe sums of judge tokens and cost per case, per dimension and for the run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[CostEntry] = []

    def record(self, case_id: str, dimension: str, totals: CostTotals) -> None:
        with self._lock:
            self._entries.append(CostEntry(case_id, dimension, totals))

    def entries(self) -> list[CostEntry]:
        with self._lock:
            return list(self._entries)

    def total(self) -> CostTotals:
        return sum((e.totals for e in self.entries()), CostTotals())

    def _by(self, key: Callable[[CostEntry], str]) -> dict[str, CostTotals]:
        out: dict[str, CostTotals] = defaultdict(CostTotals)
        for entry in self.entries():
            out[key(entry)] += entry.totals
        return dict(out)

    def by_case(self) -> dict[str, CostTotals]:
        return self._by(lambda e: e.case_id)

    def by_dimension(self) -> dict[str, CostTotals]:
        return self._by(lambda e: e.dimension)

    def case_total(self, case_id: str) -> CostTotals:
        return self.by_case().get(case_id, CostTotals())


# --------------------------------------------------------------------------- cache

_METADATA = sa.MetaData()

JUDGE_CACHE = sa.Table(
    "judge_cache",
    _METADATA,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("model", sa.String(255), nullable=False),
    sa.Column("prompt_version", sa.String(255), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("response", sa.Text, nullable=False),
    sa.Column("input_tokens", sa.Integer, nullable=False),
    sa.Column("output_tokens", sa.Integer, nullable=False),
)


@dataclass(frozen=True)
class _CachedReply:
    data: dict[str, Any]
    created_at: float


class JudgeCache:
    """Validated judge replies by content hash, on any SQLAlchemy URL (one engine per URL)."""

    def __init__(self, url: str) -> None:
        self.engine = engine_with_tables(url, _METADATA)

    def get(self, key: str, *, now: float, ttl_s: float) -> _CachedReply | None:
        query = sa.select(JUDGE_CACHE.c.response, JUDGE_CACHE.c.created_at).where(
            JUDGE_CACHE.c.key == key
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None or now - row.created_at > ttl_s:
            return None
        return _CachedReply(data=json.loads(row.response), created_at=row.created_at)

    def put(self, key: str, call: JudgeCall, *, now: float) -> None:
        row = {
            "key": key,
            "model": call.model,
            "prompt_version": call.prompt_version,
            "created_at": now,
            "response": json.dumps(call.data, sort_keys=True),
            "input_tokens": call.input_tokens,
            "output_tokens": call.output_tokens,
        }
        try:
            with self.engine.begin() as conn:
                conn.execute(JUDGE_CACHE.delete().where(JUDGE_CACHE.c.key == key))
                conn.execute(JUDGE_CACHE.insert(), [row])
        except sa.exc.IntegrityError:
            log.debug("judge cache row %s written concurrently; keeping the other", key[:12])


# --------------------------------------------------------------------------- transport


_ENDPOINT_LIMITS: dict[tuple[str, str | None, int], threading.BoundedSemaphore] = {}
_ENDPOINT_LIMITS_LOCK = threading.Lock()


def _endpoint_limit(settings: LLMSettings) -> threading.BoundedSemaphore:
    """One semaphore per endpoint, shared by every client of this process that calls it."""
    key = (settings.base_url.rstrip("/"), settings.azure_deployment, settings.concurrency)
    with _ENDPOINT_LIMITS_LOCK:
        return _ENDPOINT_LIMITS.setdefault(key, threading.BoundedSemaphore(settings.concurrency))


def _status(exc: BaseException) -> int | None:
    import openai

    return exc.status_code if isinstance(exc, openai.APIStatusError) else None


def _is_transient(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):
        return True
    status = _status(exc)
    return status is not None and (status in {408, 409, 429} or status >= 500)


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms``, ``Retry-After`` seconds or date)."""
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / divisor)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def first_message(completion: ChatCompletion) -> ChatCompletionMessage:
    """The completion's message; an empty one when the server sent no choice."""
    from openai.types.chat import ChatCompletionMessage

    if completion.choices:
        return completion.choices[0].message
    return ChatCompletionMessage(role="assistant", content="")


_JSON_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


class JudgeClient:
    """Structured, cached, cost-accounted judge calls to one model (see the module docstring)."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        cache_url: str | None = None,
        ledger: CostLedger | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self.ledger = ledger if ledger is not None else CostLedger()
        self.cache = JudgeCache(cache_url) if cache_url else None
        self._clock = clock
        self._sleep = sleep
        self._limit = _endpoint_limit(settings)
        self._pacer = endpoint_pacer(
            settings.base_url,
            settings.azure_deployment,
            settings.requests_per_minute,
            settings.pacing_dir,
        )
        import openai

        key = settings.api_key.get_secret_value()
        common: dict[str, Any] = {"api_key": key, "timeout": settings.timeout_s, "max_retries": 0}
        self._client: openai.OpenAI
        if settings.is_azure:
            self._client = openai.AzureOpenAI(
                azure_endpoint=settings.base_url,
                azure_deployment=settings.azure_deployment,
                api_version=settings.api_version,
                **common,
            )
        else:
            self._client = openai.OpenAI(base_url=settings.base_url, **common)

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def method(self) -> str:
        """How a dimension scored by this client names its method."""
        return f"llm:{self.settings.model}"

    def close(self) -> None:
        self._client.close()

    # ------------------------------------------------------------------ public call

    @traced_judge
    def judge(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        schema: Mapping[str, Any],
        schema_name: str,
        prompt_version: str,
        case_id: str = "",
        dimension: str = "",
        use_cache: bool = True,
    ) -> JudgeCall:
        """One structured judgement; ``use_cache=False`` neither reads nor writes the cache."""
        params = self._params(schema, schema_name)
        key = content_hash(
            {
                "model": self.settings.model,
                "deployment": self.settings.azure_deployment,
                "prompt_version": prompt_version,
                "messages": list(messages),
                "schema": schema,
                "params": params,
            }
        )
        if use_cache and self.cache is not None:
            hit = self.cache.get(key, now=self._clock(), ttl_s=self.settings.cache_ttl_s)
            if hit is not None:
                call = JudgeCall(
                    data=hit.data,
                    model=self.settings.model,
                    prompt_version=prompt_version,
                    cached=True,
                )
                self.ledger.record(case_id, dimension, CostTotals(calls=1, cached_calls=1))
                return call
        try:
            call = self._call(list(messages), schema, schema_name, params, prompt_version)
        except JudgeParseError as exc:
            self.ledger.record(case_id, dimension, exc.spent)
            raise
        self.ledger.record(case_id, dimension, self._spent(call.input_tokens, call.output_tokens))
        if use_cache and self.cache is not None:
            self.cache.put(key, call, now=self._clock())
        return call

    @traced_chat
    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        case_id: str = "",
        dimension: str = "",
        **params: Any,
    ) -> ChatCompletion:
        """One raw completion (a tool-calling turn, say) at temperature 0, with this client's
        retries, endpoint concurrency limit and cost ledger; no schema check and no cache."""
        completion, _ = self._send(list(messages), {"temperature": 0, **params})
        usage = completion.usage
        tokens_in = usage.prompt_tokens if usage is not None else 0
        tokens_out = usage.completion_tokens if usage is not None else 0
        self.ledger.record(case_id, dimension, self._spent(tokens_in, tokens_out))
        return completion

    # ------------------------------------------------------------------ internals

    def _spent(self, tokens_in: int, tokens_out: int) -> CostTotals:
        """What one call cost, for the ledger."""
        return CostTotals(
            calls=1,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cost_usd=self.settings.cost_usd(tokens_in, tokens_out),
        )

    def _params(self, schema: Mapping[str, Any], schema_name: str) -> dict[str, Any]:
        params: dict[str, Any] = {"temperature": 0}
        if self.settings.structured_output == "tool":
            params["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": schema_name,
                        "description": "Submit the judgement.",
                        "parameters": dict(schema),
                    },
                }
            ]
            params["tool_choice"] = {"type": "function", "function": {"name": schema_name}}
        else:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": dict(schema), "strict": False},
            }
        return params

    def _call(
        self,
        messages: list[Mapping[str, Any]],
        schema: Mapping[str, Any],
        schema_name: str,
        params: dict[str, Any],
        prompt_version: str,
    ) -> JudgeCall:
        validator = jsonschema.Draft202012Validator(schema)
        tokens_in = tokens_out = retries = 0
        errors: list[str] = []
        for attempt in (1, 2):
            completion, transport_retries = self._send(messages, params)
            retries += transport_retries
            if completion.usage is not None:
                tokens_in += completion.usage.prompt_tokens
                tokens_out += completion.usage.completion_tokens
            message = first_message(completion)
            data, problem, follow_up = self._parse(message, schema_name, validator)
            if problem is None:
                return JudgeCall(
                    data=data,
                    model=self.settings.model,
                    prompt_version=prompt_version,
                    cached=False,
                    attempts=attempt,
                    transport_retries=retries,
                    input_tokens=tokens_in,
                    output_tokens=tokens_out,
                    cost_usd=self.settings.cost_usd(tokens_in, tokens_out),
                )
            errors.append(problem)
            log.info("judge reply %d of %s rejected: %s", attempt, prompt_version, problem)
            messages = [*messages, *follow_up]
        raise JudgeParseError(
            f"the judge's reply was invalid twice: {errors[0]}; then: {errors[1]}",
            errors,
            self._spent(tokens_in, tokens_out),
        )

    def _parse(
        self,
        message: ChatCompletionMessage,
        schema_name: str,
        validator: jsonschema.Draft202012Validator,
    ) -> tuple[dict[str, Any], str | None, list[dict[str, Any]]]:
        """The validated reply, or the problem and the messages that quote it back."""
        calls = [
            c
            for c in message.tool_calls or []
            if c.type == "function" and c.function.name == schema_name
        ]
        raw: str
        if self.settings.structured_output == "tool" and calls:
            raw = calls[0].function.arguments
            call_id = calls[0].id
            echo: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": schema_name, "arguments": raw[:_MAX_QUOTED_REPLY]},
                    }
                ],
            }
        else:
            raw = message.content or ""
            call_id = None
            echo = {"role": "assistant", "content": raw[:_MAX_QUOTED_REPLY]}
        data, problem = self._validated(raw, validator, expect_tool=self.settings.structured_output)
        if problem is None:
            return data, None, []
        notice = (
            f"Your reply was rejected: {problem}. Reply again with one JSON object that is valid "
            "against the schema, and nothing else."
        )
        if call_id is not None:
            follow_up = [echo, {"role": "tool", "tool_call_id": call_id, "content": notice}]
        else:
            follow_up = [echo, {"role": "user", "content": notice}]
        return data, problem, follow_up

    @staticmethod
    def _validated(
        raw: str, validator: jsonschema.Draft202012Validator, *, expect_tool: str
    ) -> tuple[dict[str, Any], str | None]:
        """The reply as a JSON object valid against the schema, or why it is not one."""
        if not raw.strip():
            return {}, "no tool call and no content" if expect_tool == "tool" else "empty reply"
        fenced = _JSON_FENCE.match(raw)
        try:
            data = json.loads(fenced.group(1) if fenced else raw)
        except json.JSONDecodeError as exc:
            return {}, f"invalid JSON ({exc})"
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            return {}, f"schema violation at {where}: {error.message}"
        if not isinstance(data, dict):
            return {}, "the reply is not a JSON object"
        return data, None

    def _send(
        self, messages: list[Mapping[str, Any]], params: dict[str, Any]
    ) -> tuple[ChatCompletion, int]:
        """One completion, retrying transient failures; returns it and how many retries it took."""
        import openai

        attempts = 0

        def once() -> ChatCompletion:
            nonlocal attempts
            attempts += 1
            with self._limit:
                self._paced()
                return self._client.chat.completions.create(
                    model=self.settings.model,
                    messages=cast("list[openai.types.chat.ChatCompletionMessageParam]", messages),
                    **params,
                )

        retrying = Retrying(
            stop=stop_after_attempt(self.settings.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(self._retryable),
            sleep=self._sleep,
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            return retrying(once), attempts - 1
        except openai.OpenAIError as exc:
            raise JudgeUnavailableError(self._describe(exc, attempts), _status(exc)) from None

    def probe(self) -> None:
        """One small request without retries, so a wrong key, model or URL shows before any case
        is asked; a rate limit means the key was accepted. Raises ``JudgeUnavailableError``."""
        import openai

        try:
            with self._limit:
                self._paced()
                self._client.with_options(max_retries=0).chat.completions.create(
                    model=self.settings.model,
                    messages=[{"role": "user", "content": PROBE_PROMPT}],
                    temperature=0,
                )
        except openai.RateLimitError:
            return
        except openai.OpenAIError as exc:
            raise JudgeUnavailableError(self._describe(exc, 1), _status(exc)) from None

    def _paced(self) -> None:
        """Wait for this request's start under ``EVAL_LLM_REQUESTS_PER_MINUTE``."""
        if self._pacer is not None:
            self._pacer.wait()

    def _retryable(self, exc: BaseException) -> bool:
        if not _is_transient(exc):
            return False
        after = retry_after_s(exc)
        return after is None or after <= self.settings.max_retry_after_s

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        after = retry_after_s(exc) if exc is not None else None
        if after is not None:
            return after
        backoff = self.settings.backoff_initial_s * 2 ** (state.attempt_number - 1)
        return min(backoff, self.settings.backoff_max_s) * (1 - 0.25 * random.random())

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        status = _status(exc) if exc is not None else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.info(
            "judge endpoint failed (%s); retry %d of %d in %.2f s",
            status if status is not None else type(exc).__name__,
            state.attempt_number,
            self.settings.max_retries,
            wait,
        )

    def _describe(self, exc: BaseException, attempts: int) -> str:
        status = _status(exc)
        what = f"HTTP {status}" if status is not None else type(exc).__name__
        detail = Redactor({"llm_api_key": self.settings.api_key}).excerpt(str(exc), 300)
        return f"judge endpoint failed after {attempts} attempt(s): {what}: {detail}"
