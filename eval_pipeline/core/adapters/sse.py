"""Server-sent-events chatbot behind a login: JWT auth, streamed answer, tool calls and timings.

The event grammar is ``chunk``, ``reasoning``, ``agent_status``, ``tool_call``, ``tool_result``,
``done`` and ``error``. Only the request is retried: once the stream has started, asking again
would bill the bot twice and hide a mid-answer failure, so any stream fault becomes an error
payload that keeps the partial answer. The total timeout covers the whole call — login, retries,
error bodies and the stream, every byte of them (``deadline``) — and no more than the byte cap
is read.
"""

from __future__ import annotations

import codecs
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Unpack
from urllib.parse import urljoin

import requests
import urllib3
from pydantic import SecretStr

from eval_pipeline.core.adapters.base import (
    MAX_ERROR_CHARS,
    Attempts,
    PooledHTTP,
    PoolOptions,
    RetryableStatus,
    answer_size_error,
    body_excerpt,
    describe_exception,
    error_payload,
    tokens_per_second,
    tool_call,
    total_timeout_error,
    utc_now_iso,
    value_at,
)
from eval_pipeline.core.adapters.deadline import (
    BodyTooLarge,
    Deadline,
    DeadlineExceeded,
    call_deadline,
    read_body,
)
from eval_pipeline.core.models import ChatPayload, ToolCall, ToolResult
from eval_pipeline.core.redaction import Redactor

_LINE_END = re.compile(r"\r\n|\r|\n")
_READ_SIZE = 65536
_DRAIN_LIMIT = 65536


@dataclass(frozen=True)
class SSEEvent:
    event: str
    data: str


class SSEParser:
    """Incremental parser of the text/event-stream format (fields, multi-line data, comments)."""

    def __init__(self) -> None:
        self._buffer = ""
        self._event = ""
        self._data: list[str] = []

    def feed(self, text: str) -> list[SSEEvent]:
        self._buffer += text
        events: list[SSEEvent] = []
        while match := _LINE_END.search(self._buffer):
            if match.group() == "\r" and match.end() == len(self._buffer):
                break  # a CRLF may be split across reads
            line, self._buffer = self._buffer[: match.start()], self._buffer[match.end() :]
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def close(self) -> list[SSEEvent]:
        """Dispatch an event the server left unterminated when it closed the stream."""
        events = self.feed("\n") if self._buffer else []
        pending = self._line("")
        return [*events, pending] if pending is not None else events

    def _line(self, line: str) -> SSEEvent | None:
        if not line:
            if not self._data and not self._event:
                return None
            event = SSEEvent(self._event or "message", "\n".join(self._data))
            self._event, self._data = "", []
            return event
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None


@dataclass
class Stream:
    """What one chat stream has delivered so far, with the clock readings the metrics need.

    ``apply`` reads this module's event grammar; another streamed protocol subclasses it and
    overrides ``_apply`` (and ``unfinished``, the error of a stream that ends early)."""

    unfinished: ClassVar[str] = "stream ended without a 'done' event"

    started: float
    intent_event: str = "agent_status"
    intent_path: str = "intent"
    intent: str | None = None
    answer: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    first_chunk_at: float | None = None
    last_chunk_at: float | None = None
    max_gap_s: float | None = None
    chunk_count: int = 0
    done_at: float | None = None

    def apply(self, event: SSEEvent, now: float) -> bool:
        """Record one event; True when the stream is over (done, error event or bad data)."""
        try:
            data: Any = json.loads(event.data) if event.data.strip() else {}
        except json.JSONDecodeError as exc:
            self.errors.append(f"malformed JSON in {event.event!r} event: {exc.msg}")
            return True
        if not isinstance(data, dict):
            self.errors.append(f"malformed {event.event!r} event: expected a JSON object")
            return True
        try:
            return self._apply(event.event, data, now)
        except (TypeError, ValueError) as exc:
            self.errors.append(f"malformed {event.event!r} event: {describe_exception(exc)}")
            return True

    def _apply(self, kind: str, data: dict[str, Any], now: float) -> bool:
        if kind == self.intent_event:  # the latest intent reported wins: a router may refine
            self.intent = value_at(data, self.intent_path) or self.intent
        if kind == "chunk":
            self._chunk(str(data.get("text", "")), now)
        elif kind == "reasoning":
            self.reasoning.append(str(data.get("text", "")))
        elif kind == "tool_call":
            arguments = data.get("arguments") or {}
            if not isinstance(arguments, dict):
                raise ValueError("arguments is not an object")
            self.tool_calls.append(
                tool_call(str(data.get("id", "")), str(data.get("name", "")), arguments)
            )
        elif kind == "tool_result":
            row_count = data.get("row_count")
            self.tool_results.append(
                ToolResult(
                    call_id=str(data.get("id", "")),
                    name=str(data.get("name", "")),
                    content={"columns": data.get("columns"), "rows": data.get("rows")},
                    row_count=int(row_count) if row_count is not None else None,
                )
            )
        elif kind == "done":
            self.done_at = now
            return True
        elif kind == "error":
            self.errors.append(f"chatbot error event: {data.get('message', 'no message')}")
            return True
        return False

    def payload(self, call: ChatPayload) -> ChatPayload:
        """``call`` (the case, transport, attempts and start) with what the stream delivered:
        latency only for a stream that ended cleanly, TTFT from the first chunk, tokens/s over
        the time the answer was being generated."""
        answer = "".join(self.answer)
        ok = not self.errors and self.done_at is not None
        latency = self.done_at - self.started if ok and self.done_at is not None else None
        ttft = self.first_chunk_at - self.started if self.first_chunk_at is not None else None
        generation = latency - ttft if latency is not None and ttft is not None else None
        return call.model_copy(
            update={
                "answer": answer,
                "reasoning": "".join(self.reasoning),
                "tool_calls": self.tool_calls,
                "tool_results": self.tool_results,
                "latency_s": latency,
                "ttft_s": ttft,
                "tokens_per_s": tokens_per_second(answer, generation),
                "chunk_count": self.chunk_count,
                "max_chunk_gap_s": self.max_gap_s,
                "errors": list(self.errors),
                "status": "ok" if ok else "error",
                "intent": self.intent,
            }
        )

    def _chunk(self, text: str, now: float) -> None:
        if self.first_chunk_at is None:
            self.first_chunk_at = now
        elif self.last_chunk_at is not None:
            gap = now - self.last_chunk_at
            self.max_gap_s = gap if self.max_gap_s is None else max(self.max_gap_s, gap)
        self.last_chunk_at = now
        self.chunk_count += 1
        self.answer.append(text)


def release(response: requests.Response) -> None:
    """Read the little that follows ``done`` so the connection goes back to the pool for the
    next case instead of being closed; a stream that goes on past the limit is closed."""
    raw = response.raw
    drained = 0
    try:
        while block := raw.read1(_READ_SIZE):
            drained += len(block)
            if drained > _DRAIN_LIMIT:
                return
    except (urllib3.exceptions.HTTPError, OSError):
        return
    raw.release_conn()


def read_stream(
    response: requests.Response,
    stream: Stream,
    deadline: Deadline,
    *,
    read_timeout_s: float,
    max_answer_bytes: int,
) -> None:
    """Feed the response's events to ``stream`` until it is over; every way the stream can fail
    (stall, break, byte cap, total timeout, early end) becomes one of its errors."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    parser = SSEParser()
    received = 0
    try:
        while block := response.raw.read1(_READ_SIZE, decode_content=True):
            now = time.perf_counter()
            received += len(block)
            if received > max_answer_bytes:
                stream.answer.clear()
                stream.errors.append(answer_size_error(max_answer_bytes))
                return
            for event in parser.feed(decoder.decode(block)):
                if stream.apply(event, now):
                    return
            if deadline.expired:
                break
    except urllib3.exceptions.ReadTimeoutError:
        stream.errors.append(f"stream stalled: no data for {read_timeout_s:g} s (read timeout)")
        return
    except (urllib3.exceptions.HTTPError, requests.RequestException, OSError) as exc:
        if not deadline.expired:
            stream.errors.append(f"stream broken: {describe_exception(exc)}")
            return
    if deadline.expired:
        stream.errors.append(f"stream exceeded the total timeout of {deadline.seconds:g} s")
        return
    now = time.perf_counter()
    for event in parser.close():
        if stream.apply(event, now):
            return
    stream.errors.append(stream.unfinished)


class ChatFailure(Exception):
    """A chat call that got no stream to read; ``payload`` is the case's error record."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts

    def payload(
        self, case_id: str, question: str, transport: str, started_at: str, redactor: Redactor
    ) -> ChatPayload:
        return error_payload(
            case_id=case_id,
            question=question,
            error=redactor.excerpt(str(self), MAX_ERROR_CHARS),
            transport=transport,
            started_at=started_at,
            attempts=self.attempts,
        )


def request_failure(exc: Exception, attempts: int, deadline: Deadline, retries: int) -> ChatFailure:
    """Why a chat request, retries included, did not open a stream. A retryable failure with
    retries left that the deadline had no time for is the total timeout, its failure said."""
    if deadline.expired or isinstance(exc, DeadlineExceeded):
        return ChatFailure(total_timeout_error(deadline.seconds), attempts)
    failure = describe_exception(exc)
    if attempts <= retries and isinstance(exc, requests.ConnectionError | RetryableStatus):
        timeout = total_timeout_error(deadline.seconds)
        return ChatFailure(f"{timeout}: no time left to retry after {failure}", attempts)
    return ChatFailure(f"chat request failed after {attempts} attempt(s): {failure}", attempts)


def rejection(response: requests.Response, attempts: int, redactor: Redactor) -> ChatFailure:
    """A chat request answered with another status than 200: the start of its body, redacted."""
    detail = body_excerpt(response, redactor)
    response.close()
    return ChatFailure(f"chat request rejected: HTTP {response.status_code}: {detail}", attempts)


class StreamOptions(PoolOptions, total=False):
    """The options of a streamed transport; ``StreamedAdapter`` holds their defaults."""

    connect_timeout_s: float
    read_timeout_s: float
    total_timeout_s: float
    intent_event: str
    intent_path: str


class StreamedAdapter(PooledHTTP):
    """A chatbot whose answer streams as server-sent events: ``ask`` opens the stream (only its
    request is retried) and reads it within the total timeout and the byte cap. A transport
    sends its request in ``_request`` and says in ``_stream`` how its events read."""

    transport: ClassVar[str]

    def __init__(
        self,
        *,
        connect_timeout_s: float = 5.0,
        read_timeout_s: float = 10.0,
        total_timeout_s: float = 120.0,
        intent_event: str = "agent_status",
        intent_path: str = "intent",
        **options: Unpack[PoolOptions],
    ) -> None:
        super().__init__(**options)
        self._timeout = (connect_timeout_s, read_timeout_s)
        self._total_timeout_s = total_timeout_s
        self._intent = (intent_event, intent_path)

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        started_at = utc_now_iso()
        attempts = Attempts()
        with call_deadline(self._total_timeout_s) as deadline:
            try:
                response = self._open(question, context, deadline, attempts)
            except ChatFailure as exc:
                return exc.payload(case_id, question, self.transport, started_at, self._redactor)
            with response:
                call = ChatPayload(
                    case_id=case_id,
                    question=question,
                    transport=self.transport,
                    attempts=attempts.count,
                    started_at=started_at,
                )
                payload = self._read(response, deadline, attempts.started, call)
        return payload.model_copy(update={"errors": [self._redact(e) for e in payload.errors]})

    def _open(
        self, question: str, context: str, deadline: Deadline, attempts: Attempts
    ) -> requests.Response:
        try:
            response = self._request(question, context, deadline, attempts)
        except ChatFailure as exc:  # a failed login, with the attempts it took
            raise ChatFailure(str(exc), attempts.count) from None
        except (DeadlineExceeded, RetryableStatus, requests.RequestException) as exc:
            raise request_failure(exc, attempts.count, deadline, self._retries) from None
        if response.status_code != 200:
            raise rejection(response, attempts.count, self._redactor)
        return response

    def _request(
        self, question: str, context: str, deadline: Deadline, attempts: Attempts
    ) -> requests.Response:
        """Send the call's request, retried through ``_retried``; the response holds the stream."""
        raise NotImplementedError

    def _stream(self, started: float) -> Stream:
        return Stream(started, *self._intent)

    def _read(
        self, response: requests.Response, deadline: Deadline, started: float, call: ChatPayload
    ) -> ChatPayload:
        """``call``'s payload from the stream in ``response``, read until it is over."""
        stream = self._stream(started)
        read_stream(
            response,
            stream,
            deadline,
            read_timeout_s=self._timeout[1],
            max_answer_bytes=self._max_answer_bytes,
        )
        if stream.done_at is not None:
            release(response)
        return stream.payload(call)


class SSEAdapter(StreamedAdapter):
    """Thread-safe: one pooled session and one cached JWT serve every concurrent ``ask``."""

    transport = "sse"

    def __init__(
        self,
        base_url: str,
        *,
        username: str,
        password: SecretStr | str,
        login_path: str = "/auth/login",
        chat_path: str = "/chat",
        **options: Unpack[StreamOptions],
    ) -> None:
        super().__init__(**options)
        root = base_url.rstrip("/") + "/"
        self._login_url = urljoin(root, login_path.lstrip("/"))
        self._chat_url = urljoin(root, chat_path.lstrip("/"))
        self._username = username
        self._password = password if isinstance(password, SecretStr) else SecretStr(password)
        self._token: str | None = None
        self._token_lock = threading.Lock()
        self._redactor.add("chatbot_password", self._password)

    def _request(
        self, question: str, context: str, deadline: Deadline, attempts: Attempts
    ) -> requests.Response:
        """The chat request with the cached JWT; a 401 logs in again and asks once more."""
        sent = {"question": question, "context": context}

        def post() -> tuple[requests.Response, str]:
            token = self._bearer(deadline)
            headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
            return self._post(attempts, self._chat_url, sent, headers, self._timeout), token

        response, token = self._retried(attempts, deadline, post)
        if response.status_code == 401:
            response.close()
            self._forget(token)
            response, token = self._retried(attempts, deadline, post)
        return response

    def _bearer(self, deadline: Deadline) -> str:
        """The cached JWT; one thread logs in while the others wait, each within its deadline."""
        if not self._token_lock.acquire(timeout=deadline.remaining()):
            raise DeadlineExceeded(deadline.seconds)
        try:
            if self._token is None:
                deadline.check()
                self._token = self._login(deadline)
                self._redactor.add("chatbot_token", self._token)
            return self._token
        finally:
            self._token_lock.release()

    def _forget(self, token: str) -> None:
        with self._token_lock:
            if self._token == token:
                self._token = None

    def _login(self, deadline: Deadline) -> str:
        response = self._session.post(
            self._login_url,
            json={"username": self._username, "password": self._password.get_secret_value()},
            timeout=self._timeout,
            stream=True,
        )
        with response:
            if response.status_code >= 500:
                raise RetryableStatus(response.status_code)
            if response.status_code != 200:
                raise ChatFailure(f"login failed: HTTP {response.status_code}", 0)
            try:
                body = read_body(response, deadline, self._max_answer_bytes)
                token = json.loads(body).get("access_token")
            except BodyTooLarge:
                raise ChatFailure(
                    f"login failed: {answer_size_error(self._max_answer_bytes)}", 0
                ) from None
            except (ValueError, AttributeError):
                token = None
        if not isinstance(token, str) or not token:
            raise ChatFailure("login failed: the response has no access_token", 0)
        return token
