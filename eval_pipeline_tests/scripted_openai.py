"""A scripted OpenAI-compatible chat server on loopback: the only stand-in for a hosted LLM.

Tests drive the real ``openai`` SDK against it, so the wire protocol (paths, auth headers, JSON
bodies, status codes, ``Retry-After``) is exercised for real. Usage::

    from eval_pipeline_tests.scripted_openai import ScriptedOpenAI, content, error, tool_call

    with ScriptedOpenAI(api_key="sk-test") as server:
        server.script(error(429, {"Retry-After": "1"}), content('{"score": 1}'))
        server.on(contains("C1"), tool_call("submit_verdict", {"verdict": "supported"}))
        server.on(lambda req: req.last_message["role"] == "tool", lambda req: content("done"))
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test")
        ...
        assert len(server.requests) == 2
        assert "C1" in server.requests[0].text

API

- ``ScriptedOpenAI(api_key=..., default=None, streams=True)`` — context manager (``streams=False``:
  a server that ignores ``stream`` and answers one JSON completion); starts a ThreadingHTTPServer on
  a free 127.0.0.1 port. ``.base_url`` (``http://127.0.0.1:PORT/v1``) is for ``OpenAI``;
  ``.endpoint`` (``http://127.0.0.1:PORT``) is the ``azure_endpoint`` of ``AzureOpenAI``.
- Routes: ``POST /v1/chat/completions`` (``Authorization: Bearer KEY``) and
  ``POST /openai/deployments/{deployment}/chat/completions?api-version=...`` (``api-key: KEY``).
  A wrong or missing key answers 401; an Azure call without ``api-version`` answers 400.
- Choosing a reply, first match wins: (1) ``.on(matcher, reply, times=None)`` rules in the order
  registered (``times`` bounds how often a rule fires); (2) the judge client's probe request
  (``is_probe``) is answered "OK", as any real endpoint would; (3) the ``.script(*replies)`` queue,
  in order; (4) ``default``; otherwise a 400 "no scripted reply" (a 400, which the SDK never
  retries).
  A reply is a ``Reply`` or a function ``RecordedRequest -> Reply``.
- Reply helpers: ``content(text)`` (plain or malformed JSON content), ``tool_call(name, args)`` and
  ``tool_calls([(name, args), ...])`` (``args`` a dict, or a string sent verbatim so it can be
  malformed), ``error(status, headers)`` (e.g. 429 with ``Retry-After``, 500). Each success reply
  carries ``usage`` token counts (``prompt_tokens``/``completion_tokens`` keyword arguments).
- ``.requests`` — every request as a ``RecordedRequest``: ``path``, ``query``, ``headers`` (without
  ``authorization``/``api-key``), ``auth`` ("bearer", "api-key" or None), ``deployment``, ``body``
  (the JSON sent), ``received_at`` (``time.monotonic()``), ``status`` answered; helpers
  ``.messages``, ``.last_message``, ``.text`` (every message content and tool-call argument).
- ``.max_in_flight`` — the most requests handled at once (to test client-side concurrency limits).
- A matcher or reply function that raises is answered with a 400 and the exception is re-raised
  when the ``with`` block exits, so an assertion inside a reply function fails the test.
- ``contains(text)`` builds a matcher over ``RecordedRequest.text``.

Streaming (``"stream": true``): a success reply is sent as ``text/event-stream`` chunks in
``Transfer-Encoding: chunked``, as OpenAI does — the content word by word, each tool call's
arguments in two fragments, the finish reason, then ``data: [DONE]``. ``streamed(*events)``
scripts the stream itself: a dict is one ``data:`` chunk, a string is sent verbatim (a malformed
chunk, an ``event: error``), a number pauses that many seconds; ``DONE`` ends it properly and
leaving it out ends the stream without it. ``delta(...)`` builds a chunk.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from eval_pipeline.core.llm.client import PROBE_PROMPT


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer; ``message`` is the assistant message of a 200 reply."""

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    message: Mapping[str, Any] | None = None
    finish_reason: str = "stop"
    prompt_tokens: int = 10
    completion_tokens: int = 5
    error_message: str = ""
    delay_s: float = 0.0
    events: tuple[Any, ...] | None = None


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    auth: str | None
    deployment: str | None
    body: dict[str, Any]
    received_at: float
    status: int = 0

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def last_message(self) -> dict[str, Any]:
        return self.messages[-1] if self.messages else {}

    @property
    def text(self) -> str:
        parts: list[str] = []
        for message in self.messages:
            value = message.get("content")
            if isinstance(value, str):
                parts.append(value)
            elif isinstance(value, list):
                parts.extend(str(p.get("text", "")) for p in value if isinstance(p, dict))
            for call in message.get("tool_calls") or []:
                parts.append(str(call.get("function", {}).get("arguments", "")))
        return "\n".join(parts)


Matcher = Callable[[RecordedRequest], bool]
Responder = Reply | Callable[[RecordedRequest], Reply]


def content(text: str, *, prompt_tokens: int = 10, completion_tokens: int = 5) -> Reply:
    return Reply(
        message={"role": "assistant", "content": text},
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )


def tool_calls(
    calls: Iterable[tuple[str, Mapping[str, Any] | str]],
    *,
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
) -> Reply:
    payload = [
        {
            "id": f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for name, args in calls
    ]
    return Reply(
        message={"role": "assistant", "content": None, "tool_calls": payload},
        finish_reason="tool_calls",
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )


def tool_call(
    name: str, args: Mapping[str, Any] | str, *, prompt_tokens: int = 10, completion_tokens: int = 5
) -> Reply:
    return tool_calls(
        [(name, args)], prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
    )


DONE = "data: [DONE]\n\n"


def delta(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """One ``chat.completion.chunk``; ``fields`` go into the delta (``reasoning_content``…)."""
    body: dict[str, Any] = dict(fields)
    if content is not None:
        body["content"] = content
    if tool_calls is not None:
        body["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": body, "finish_reason": finish_reason}],
    }


def streamed(*events: Any) -> Reply:
    """A reply to a streamed request, event by event (see the module docstring)."""
    return Reply(events=events)


def stream_events(reply: Reply) -> tuple[Any, ...]:
    """The stream OpenAI would send for a plain reply: its message in fragments, then DONE."""
    if reply.events is not None:
        return reply.events
    message = dict(reply.message or {})
    events: list[Any] = [delta("", role="assistant")]
    for index, call in enumerate(message.get("tool_calls") or []):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        head = {"index": index, "id": call["id"], "type": "function"}
        events.append(
            delta(
                tool_calls=[
                    {
                        **head,
                        "function": {
                            "name": call["function"]["name"],
                            "arguments": arguments[:half],
                        },
                    }
                ]
            )
        )
        events.append(
            delta(tool_calls=[{"index": index, "function": {"arguments": arguments[half:]}}])
        )
    for word in re.findall(r"\S+\s*", message.get("content") or ""):
        events.append(delta(word))
    events.append(delta(finish_reason=reply.finish_reason))
    return (*events, DONE)


def error(status: int, headers: Mapping[str, str] | None = None, message: str = "") -> Reply:
    return Reply(status=status, headers=dict(headers or {}), error_message=message)


def is_probe(request: RecordedRequest) -> bool:
    """The judge client's probe before a run (``JudgeClient.probe``)."""
    return request.last_message.get("content") == PROBE_PROMPT


def contains(text: str) -> Matcher:
    return lambda request: text in request.text


@dataclass
class _Rule:
    matcher: Matcher
    reply: Responder
    times: int | None


class ScriptedOpenAI:
    """See the module docstring."""

    def __init__(
        self,
        *,
        api_key: str = "sk-scripted-test-key",
        default: Responder | None = None,
        streams: bool = True,
    ):
        self.api_key = api_key
        self.default = default
        self.streams = streams
        self._rules: list[_Rule] = []
        self._queue: deque[Responder] = deque()
        self._requests: list[RecordedRequest] = []
        self._failures: list[BaseException] = []
        self._lock = threading.Lock()
        self._in_flight = 0
        self.max_in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> ScriptedOpenAI:
        handler = type("_Handler", (_Handler,), {"owner": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-openai",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        if exc_type is None and self._failures:
            raise self._failures[0]

    @property
    def port(self) -> int:
        assert self._server is not None, "use ScriptedOpenAI as a context manager"
        return int(self._server.server_address[1])

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.endpoint}/v1"

    def judge_env(self, api_key: str | None = None, **settings: str) -> dict[str, str]:
        """The ``EVAL_*`` variables of a judge at this server, model ``judge``, with ``api_key``
        (by default the right one) and any other setting (``llm_max_retries="0"``)."""
        env = {
            "EVAL_LLM_BASE_URL": self.base_url,
            "EVAL_LLM_MODEL": "judge",
            "EVAL_LLM_API_KEY": self.api_key if api_key is None else api_key,
        }
        return {**env, **{f"EVAL_{name.upper()}": value for name, value in settings.items()}}

    # ------------------------------------------------------------------ scripting

    def script(self, *replies: Responder) -> ScriptedOpenAI:
        with self._lock:
            self._queue.extend(replies)
        return self

    def on(self, matcher: Matcher, reply: Responder, *, times: int | None = None) -> ScriptedOpenAI:
        with self._lock:
            self._rules.append(_Rule(matcher, reply, times))
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    # ------------------------------------------------------------------ serving

    def _choose(self, request: RecordedRequest) -> Responder | None:
        with self._lock:
            for rule in self._rules:
                if (rule.times is None or rule.times > 0) and rule.matcher(request):
                    if rule.times is not None:
                        rule.times -= 1
                    return rule.reply
            if is_probe(request):
                return content("OK")
            if self._queue:
                return self._queue.popleft()
            return self.default

    def _answer(self, request: RecordedRequest) -> tuple[int, dict[str, str], Any]:
        """Status, headers and either a JSON body or, for a streamed request, the events."""
        try:
            responder = self._choose(request)
            if responder is None:
                return _error_body(400, "no scripted reply for this request")
            reply = responder(request) if callable(responder) else responder
        except BaseException as exc:
            with self._lock:
                self._failures.append(exc)
            return _error_body(400, f"scripted reply failed: {type(exc).__name__}: {exc}")
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.status != 200:
            status, headers, body = _error_body(reply.status, reply.error_message)
            return status, {**headers, **reply.headers}, body
        if request.body.get("stream") and self.streams:
            return 200, dict(reply.headers), stream_events(reply)
        if reply.events is not None:
            return _error_body(400, "a streamed reply to a request without stream")
        model = request.deployment or str(request.body.get("model", ""))
        body = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": dict(reply.message or {"role": "assistant", "content": ""}),
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }
        return 200, dict(reply.headers), body

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            self._serve(handler)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        received = time.monotonic()
        split = urlsplit(handler.path)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        headers = {
            k.lower(): v
            for k, v in handler.headers.items()
            if k.lower() not in {"authorization", "api-key"}
        }
        deployment = None
        parts = split.path.strip("/").split("/")
        azure = len(parts) == 5 and parts[:2] == ["openai", "deployments"]
        if azure:
            deployment = parts[2]
        bearer = handler.headers.get("authorization", "")
        api_key_header = handler.headers.get("api-key")
        auth = "bearer" if bearer else "api-key" if api_key_header is not None else None
        request = RecordedRequest(
            method=handler.command,
            path=split.path,
            query=query,
            headers=headers,
            auth=auth,
            deployment=deployment,
            body=body,
            received_at=received,
        )
        with self._lock:
            self._requests.append(request)
        if split.path == "/v1/chat/completions" and bearer == f"Bearer {self.api_key}":
            status, out_headers, out = self._answer(request)
        elif azure and parts[3:] == ["chat", "completions"] and api_key_header == self.api_key:
            if "api-version" not in query:
                status, out_headers, out = _error_body(400, "missing api-version")
            else:
                status, out_headers, out = self._answer(request)
        elif split.path == "/v1/chat/completions" or azure:
            status, out_headers, out = _error_body(401, "invalid credentials")
        else:
            status, out_headers, out = _error_body(404, f"no route {split.path}")
        request.status = status
        if isinstance(out, tuple):
            _write_stream(handler, out_headers, out)
            return
        data = json.dumps(out).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for key, value in out_headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)


def _error_body(status: int, message: str) -> tuple[int, dict[str, str], dict[str, Any]]:
    kind = {401: "authentication_error", 429: "rate_limit_exceeded"}.get(status, "server_error")
    return (
        status,
        {},
        {"error": {"message": message or f"scripted {status}", "type": kind, "code": str(status)}},
    )


def _write_stream(
    handler: BaseHTTPRequestHandler, headers: Mapping[str, str], events: Iterable[Any]
) -> None:
    """Server-sent events in chunked transfer encoding, each event flushed as it is written."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.send_header("transfer-encoding", "chunked")
    for key, value in headers.items():
        handler.send_header(key, value)
    handler.end_headers()
    try:
        for event in events:
            if isinstance(event, int | float):
                time.sleep(event)
                continue
            text = event if isinstance(event, str) else f"data: {json.dumps(event)}\n\n"
            data = text.encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        handler.close_connection = True


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedOpenAI
    protocol_version = "HTTP/1.1"

    def handle(self) -> None:
        """A client that drops a kept-alive connection (an adapter giving up on a stream) is
        not a server failure."""
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            super().handle()

    def do_POST(self) -> None:
        self.owner._handle(self)

    def do_GET(self) -> None:
        self.owner._handle(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""
