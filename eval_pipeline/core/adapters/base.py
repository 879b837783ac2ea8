"""What every chatbot transport shares: the adapter contract and payload normalisation.

Evaluation only ever sees a ``ChatPayload``; these helpers keep each transport from inventing its
own shape for tool calls, timings or failures. The HTTP transports also share their session,
retries and byte cap (``PooledHTTP``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, Protocol, TypedDict, TypeVar, runtime_checkable

import requests
from jsonpath_ng import JSONPath
from jsonpath_ng import parse as jsonpath_parse
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)
from tenacity.stop import stop_base

from eval_pipeline.core.adapters.deadline import Deadline, deadline_session
from eval_pipeline.core.limits import MAX_ANSWER_BYTES
from eval_pipeline.core.models import ChatPayload, ToolCall
from eval_pipeline.core.redaction import Redactor

T = TypeVar("T")
MAX_ERROR_CHARS = 300
EXCERPT_BYTES = 8192  # of an error body: enough to redact a secret before the excerpt is cut


@runtime_checkable
class ChatbotAdapter(Protocol):
    """A chatbot reached through some transport; a chatbot failure is data, never an exception."""

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload: ...

    def close(self) -> None: ...


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def whitespace_tokens(text: str) -> int:
    """A tokenizer-free token count, so tokens/s is comparable across bots and models."""
    return len(text.split())


def tokens_per_second(answer: str, seconds: float | None) -> float | None:
    if seconds is None or seconds <= 0:
        return None
    return whitespace_tokens(answer) / seconds


def describe_exception(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


SQL_ARGUMENTS: tuple[str, ...] = ("sql",)


def tool_call(
    call_id: str,
    name: str,
    arguments: Mapping[str, Any],
    sql_arguments: Iterable[str] = SQL_ARGUMENTS,
) -> ToolCall:
    """A tool call; its first ``sql_arguments`` argument that is a string is the query it ran."""
    sql = next(
        (value for key in sql_arguments if isinstance(value := arguments.get(key), str)), None
    )
    return ToolCall(id=call_id, name=name, arguments=dict(arguments), sql=sql)


def tool_calls_from_json(raw_calls: Any, raw_sql: Any) -> list[ToolCall]:
    """Normalise ``[{"name","arguments"}]`` plus a bare ``["SELECT …"]`` list into ``ToolCall``s."""
    calls: list[ToolCall] = []
    for index, raw in enumerate(raw_calls if isinstance(raw_calls, list) else []):
        if not isinstance(raw, Mapping):
            raise ValueError(f"tool call #{index} is not an object")
        arguments = raw.get("arguments") or {}
        if not isinstance(arguments, Mapping):
            raise ValueError(f"tool call #{index} has non-object arguments")
        call_id = str(raw.get("id") or f"call_{index + 1}")
        calls.append(tool_call(call_id, str(raw.get("name") or ""), arguments))
    statements = [raw_sql] if isinstance(raw_sql, str) else raw_sql
    for index, statement in enumerate(statements if isinstance(statements, list) else []):
        if not isinstance(statement, str):
            raise ValueError(f"sql entry #{index} is not a string")
        calls.append(tool_call(f"sql_{index + 1}", "sql", {"sql": statement}))
    return calls


@cache
def _json_path(path: str) -> JSONPath:
    return jsonpath_parse(path)


def value_at(data: Any, path: str) -> str | None:
    """The text at a JSON path (``intent``, ``$.route.intent``, ``arguments.intent``) of an
    object, or None when there is none; how every adapter reads the bot's routed intent."""
    if not path or not isinstance(data, Mapping):
        return None
    found = [m.value for m in _json_path(path).find(data)]
    value = found[0] if found else None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = str(value).strip()
    return text or None


def intent_of_calls(calls: Iterable[ToolCall], path: str) -> str | None:
    """The intent at ``path`` of the last tool call that names one, each read as
    ``{"id", "name", "arguments"}`` (the SSE ``tool_call`` event's shape): how the transports
    whose only routing trace is their tool calls (openai_chat, ui) read it."""
    found = None
    for call in calls:
        shown = {"id": call.id, "name": call.name, "arguments": call.arguments}
        found = value_at(shown, path) or found
    return found


def check_json_path(path: str) -> str:
    """``path`` when it is a JSON path; ValueError naming what is wrong otherwise."""
    try:
        _json_path(path)
    except Exception as exc:  # jsonpath-ng raises its own lexer and parser errors
        raise ValueError(f"not a JSON path: {path!r} ({exc})") from None
    return path


def payload_from_answer(
    *,
    case_id: str,
    question: str,
    result: Any,
    answer_field: str,
    transport: str,
    latency_s: float,
    started_at: str,
    attempts: int = 1,
    intent_path: str = "",
) -> ChatPayload:
    """Build the payload of a non-streamed answer: a plain string or an object with tool calls
    (and the intent at ``intent_path``)."""
    intent = None
    if isinstance(result, str):
        answer, calls = result, []
    elif isinstance(result, Mapping):
        answer_value = result.get(answer_field)
        if not isinstance(answer_value, str):
            raise ValueError(f"response has no string field {answer_field!r}")
        answer = answer_value
        calls = tool_calls_from_json(result.get("tool_calls"), result.get("sql"))
        intent = value_at(result, intent_path)
    else:
        raise ValueError(f"expected a string or an object, got {type(result).__name__}")
    return ChatPayload(
        case_id=case_id,
        question=question,
        answer=answer,
        tool_calls=calls,
        latency_s=latency_s,
        tokens_per_s=tokens_per_second(answer, latency_s),
        chunk_count=1 if answer else 0,
        transport=transport,
        attempts=attempts,
        started_at=started_at,
        intent=intent,
    )


def error_payload(
    *,
    case_id: str,
    question: str,
    error: str,
    transport: str,
    started_at: str,
    attempts: int = 1,
) -> ChatPayload:
    return ChatPayload(
        case_id=case_id,
        question=question,
        errors=[error],
        status="error",
        transport=transport,
        attempts=attempts,
        started_at=started_at,
    )


class RetryableStatus(Exception):
    """A 5xx answer before any byte of the body was used: safe to ask again."""

    def __init__(self, status_code: int) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


class _OutOfTime(stop_base):
    """Stop when the next backoff would sleep past the call's deadline."""

    def __init__(self, deadline: Deadline) -> None:
        self._deadline = deadline

    def __call__(self, retry_state: RetryCallState) -> bool:
        d = self._deadline
        return d.expired or d.remaining() <= (retry_state.upcoming_sleep or 0)


def retry_policy(retries: int, backoff_s: float, deadline: Deadline) -> Retrying:
    """Exponential backoff with jitter on connection failures and 5xx; a fresh one per request.
    No attempt starts, and no backoff sleeps, past the call's deadline."""
    return Retrying(
        stop=stop_after_attempt(retries + 1) | _OutOfTime(deadline),
        wait=wait_exponential_jitter(initial=backoff_s, max=backoff_s * 16, jitter=backoff_s),
        retry=retry_if_exception_type((requests.ConnectionError, RetryableStatus)),
        reraise=True,
    )


@dataclass
class Attempts:
    """How many times one call has sent its request (logins included), and when it last did."""

    count: int = 0
    started: float = 0.0


class PoolOptions(TypedDict, total=False):
    """The options every HTTP transport takes; ``PooledHTTP`` holds their defaults."""

    retries: int
    backoff_s: float
    pool_size: int
    max_answer_bytes: int
    redactor: Redactor | None


class PooledHTTP:
    """What the HTTP transports share: one pooled session serving every concurrent ``ask``, the
    request alone retried within the call's deadline, a byte cap on what is read and a redactor
    for whatever is reported."""

    def __init__(
        self,
        *,
        retries: int = 2,
        backoff_s: float = 0.5,
        pool_size: int = 64,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        redactor: Redactor | None = None,
    ) -> None:
        self._retries = retries
        self._backoff_s = backoff_s
        self._max_answer_bytes = max_answer_bytes
        self._session = deadline_session(pool_size)
        self._redactor = redactor or Redactor()

    def close(self) -> None:
        self._session.close()

    def _redact(self, message: str) -> str:
        return self._redactor.excerpt(message, MAX_ERROR_CHARS)

    def _retried(self, attempts: Attempts, deadline: Deadline, send: Callable[[], T]) -> T:
        """``send`` until it succeeds or ``retry_policy`` gives up, each try counted."""

        def attempt() -> T:
            attempts.count += 1
            return send()

        return retry_policy(self._retries, self._backoff_s, deadline)(attempt)

    def _post(
        self,
        attempts: Attempts,
        url: str,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        timeout: float | tuple[float, float],
        retry_status: Collection[int] = (),
    ) -> requests.Response:
        """POST the request, timed from now, its answer read as it streams; a 5xx answer (or one
        in ``retry_status``) is closed and raised as ``RetryableStatus`` for the retry policy."""
        attempts.started = time.perf_counter()
        response = self._session.post(url, json=body, headers=headers, stream=True, timeout=timeout)
        if response.status_code >= 500 or response.status_code in retry_status:
            response.close()
            raise RetryableStatus(response.status_code)
        return response


def redact_headers(redactor: Redactor, headers: Mapping[str, str]) -> None:
    """Every header value is a possible credential; of ``Bearer <token>``, the token alone too."""
    for name, value in headers.items():
        label = f"header_{name.lower().replace('-', '_')}"
        redactor.add(label, value)
        redactor.add(label, value.split()[-1] if value.split() else "")


def body_excerpt(response: requests.Response, redactor: Redactor, limit: int = 200) -> str:
    """The start of a streamed error body on one line, redacted before it is cut (a secret
    straddling the cut would otherwise leave its first half in the excerpt); at most
    ``EXCERPT_BYTES`` are read, so a body that never ends costs nothing more (the call's deadline
    bounds the wait)."""
    try:
        head = next(response.iter_content(EXCERPT_BYTES), b"")
    except requests.RequestException:
        return ""
    return text_excerpt(head, response.encoding, redactor, limit)


def text_excerpt(raw: bytes, encoding: str | None, redactor: Redactor, limit: int = 200) -> str:
    """The start of a body on one line, redacted before it is cut."""
    text = raw[:EXCERPT_BYTES].decode(encoding or "utf-8", errors="replace")
    return redactor.excerpt(" ".join(redactor.text(text).split()), limit)


def answer_size_error(max_bytes: int) -> str:
    return f"answer too large: more than {max_bytes:,} bytes (EVAL_CHATBOT_MAX_ANSWER_BYTES)"


def total_timeout_error(seconds: float) -> str:
    return f"no complete answer within the total timeout of {seconds:g} s"


class AnswerCapped:
    """Any adapter, its answers held to a size cap: over it, the case is ``error`` "answer too
    large" and the text is dropped. ``build_adapter`` wraps every adapter in one, so a transport
    added later is capped too; the HTTP transports also stop reading at the cap."""

    def __init__(self, adapter: ChatbotAdapter, max_answer_bytes: int) -> None:
        self.adapter = adapter
        self.max_answer_bytes = max_answer_bytes

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        payload = self.adapter.ask(case_id, question, context)
        text = payload.answer + payload.reasoning
        # a character is at most four bytes: only a long answer is encoded to be measured
        if 4 * len(text) <= self.max_answer_bytes or (
            len(text.encode("utf-8", "surrogatepass")) <= self.max_answer_bytes
        ):
            return payload
        return payload.model_copy(
            update={
                "answer": "",
                "reasoning": "",
                "status": "error",
                "errors": [*payload.errors, answer_size_error(self.max_answer_bytes)],
                "latency_s": None,
                "tokens_per_s": None,
            }
        )

    def close(self) -> None:
        self.adapter.close()
