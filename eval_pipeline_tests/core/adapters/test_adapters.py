"""Chatbot adapters against real HTTP servers on loopback: streaming, retries, auth and faults."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.adapters.base import AnswerCapped, ChatbotAdapter
from eval_pipeline.core.adapters.http_json import HTTPJSONAdapter
from eval_pipeline.core.adapters.python_callable import CallableAdapter
from eval_pipeline.core.adapters.redacting import RedactingAdapter
from eval_pipeline.core.adapters.sse import SSEAdapter, SSEEvent, SSEParser
from eval_pipeline.environment import build_adapter
from eval_pipeline.settings import Settings

USERNAME = "eval"
PASSWORD = "s3cret-pass-word"
SQL = "SELECT name, SUM(amount) AS total FROM orders GROUP BY name"
STALL = object()


def frame(event: str, data: Any) -> str:
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in payload.split("\n")) + "\n"


def normal_answer(question: str) -> list[Any]:
    return [
        ": keep-alive comment\n\n",
        frame("agent_status", {"status": "thinking"}),
        frame("reasoning", {"text": "Sum the orders. "}),
        frame("tool_call", {"id": "c1", "name": "run_sql", "arguments": {"sql": SQL}}),
        frame(
            "tool_result",
            {
                "id": "c1",
                "name": "run_sql",
                "columns": ["name", "total"],
                "rows": [["a", 3]],
                "row_count": 1,
            },
        ),
        frame("chunk", {"text": "The answer "}),
        frame("chunk", {"text": "to "}),
        frame("chunk", {"text": question}),
        frame("done", {"finish_reason": "stop"}),
    ]


@dataclass
class ScriptedBot:
    """What the loopback chatbot does on each call, and what it saw."""

    script: Callable[[str], list[Any]] = normal_answer
    chat_statuses: list[int] = field(default_factory=list)
    expire_first_token: bool = False
    echo_auth_with_status: int | None = None
    json_statuses: list[int] = field(default_factory=list)
    json_reply: Any = None
    barrier: threading.Barrier | None = None
    frame_delay_s: float = 0.005
    logins: int = 0
    chat_calls: int = 0
    json_calls: int = 0
    json_headers: list[dict[str, str]] = field(default_factory=list)
    valid_tokens: set[str] = field(default_factory=set)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)


def make_handler(bot: ScriptedBot) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def send_json(self, status: int, body: Any) -> None:
            raw = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path == "/auth/login":
                self.login(body)
            elif self.path == "/chat":
                self.chat(body)
            elif self.path == "/json":
                self.json_answer(body)
            else:
                self.send_json(404, {"detail": "not found"})

        def login(self, body: dict[str, Any]) -> None:
            if body != {"username": USERNAME, "password": PASSWORD}:
                self.send_json(401, {"detail": "bad credentials"})
                return
            with bot.lock:
                bot.logins += 1
                token = f"jwt-token-{bot.logins}-abcdef"
                bot.valid_tokens.add(token)
            self.send_json(200, {"access_token": token, "token_type": "bearer"})

        def chat(self, body: dict[str, Any]) -> None:
            auth = self.headers.get("Authorization", "")
            token = auth.removeprefix("Bearer ")
            with bot.lock:
                bot.chat_calls += 1
                status = bot.chat_statuses.pop(0) if bot.chat_statuses else None
                if bot.expire_first_token and token in bot.valid_tokens:
                    bot.expire_first_token = False
                    bot.valid_tokens.discard(token)
                valid = token in bot.valid_tokens
            if status is not None:
                self.send_json(status, {"detail": "unavailable"})
                return
            if not valid:
                self.send_json(401, {"detail": "token expired"})
                return
            if bot.echo_auth_with_status is not None:
                self.send_json(bot.echo_auth_with_status, f"cannot handle header {auth}")
                return
            if self.headers.get("Accept") != "text/event-stream":
                self.send_json(406, {"detail": "SSE only"})
                return
            frames = bot.script(body["question"])
            if bot.barrier is not None:
                try:
                    bot.barrier.wait()
                except threading.BrokenBarrierError:
                    frames = [frame("error", {"message": "requests were not concurrent"})]
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for item in frames:
                    if item is STALL:
                        bot.release.wait(5)
                        continue
                    raw = item.encode()
                    self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
                    self.wfile.flush()
                    time.sleep(bot.frame_delay_s)
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                self.close_connection = True

        def json_answer(self, body: dict[str, Any]) -> None:
            with bot.lock:
                bot.json_calls += 1
                bot.json_headers.append(dict(self.headers))
                status = bot.json_statuses.pop(0) if bot.json_statuses else None
            if status is not None:
                self.send_json(status, {"detail": "unavailable"})
                return
            reply = bot.json_reply
            self.send_json(200, reply(body) if callable(reply) else reply)

    return Handler


@pytest.fixture
def serve() -> Iterator[Callable[[ScriptedBot], str]]:
    servers: list[tuple[ThreadingHTTPServer, ScriptedBot]] = []

    def start(bot: ScriptedBot) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(bot))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append((server, bot))
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server, bot in servers:
        bot.release.set()
        server.shutdown()
        server.server_close()


def sse_adapter(url: str, **overrides: Any) -> SSEAdapter:
    settings: dict[str, Any] = {
        "username": USERNAME,
        "password": PASSWORD,
        "read_timeout_s": 2.0,
        "backoff_s": 0.01,
    }
    return SSEAdapter(url, **{**settings, **overrides})


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --------------------------------------------------------------------------- SSE parser


def test_parser_handles_multiline_data_comments_and_split_line_endings() -> None:
    parser = SSEParser()
    events = parser.feed(': hello\r\nevent: chunk\r\ndata: {"text":\r')
    events += parser.feed('\ndata:  "x"}\r\nid: 7\r\nretry: 10\r\n\r')
    events += parser.feed("\ndata: plain\n\n")
    assert events == [
        SSEEvent("chunk", '{"text":\n "x"}'),
        SSEEvent("message", "plain"),
    ]


def test_parser_dispatches_an_unterminated_last_event_on_close() -> None:
    parser = SSEParser()
    assert parser.feed("event: done\ndata: {}") == []
    assert parser.close() == [SSEEvent("done", "{}")]


# --------------------------------------------------------------------------- SSE adapter


def test_sse_normal_answer_fills_the_payload(serve: Callable[[ScriptedBot], str]) -> None:
    bot = ScriptedBot()
    adapter = sse_adapter(serve(bot))
    payload = adapter.ask("TC_001", "life?", "ctx")
    adapter.close()

    assert payload.status == "ok", payload.errors
    assert payload.answer == "The answer to life?"
    assert payload.reasoning == "Sum the orders. "
    assert payload.tool_calls[0].sql == SQL
    assert payload.sql_statements == [SQL]
    assert payload.tool_results[0].call_id == "c1"
    assert payload.tool_results[0].row_count == 1
    assert payload.tool_results[0].content == {"columns": ["name", "total"], "rows": [["a", 3]]}
    assert payload.chunk_count == 3
    assert payload.transport == "sse"
    assert payload.attempts == 1
    assert payload.started_at.endswith("+00:00")
    assert payload.latency_s is not None and payload.ttft_s is not None
    assert 0 < payload.ttft_s < payload.latency_s
    assert payload.max_chunk_gap_s is not None and payload.max_chunk_gap_s > 0
    generation = payload.latency_s - payload.ttft_s
    assert payload.tokens_per_s == pytest.approx(4 / generation)


def test_sse_retries_5xx_before_the_stream(serve: Callable[[ScriptedBot], str]) -> None:
    bot = ScriptedBot(chat_statuses=[503, 503])
    payload = sse_adapter(serve(bot), retries=2).ask("TC_002", "q")
    assert payload.status == "ok", payload.errors
    assert payload.attempts == 3
    assert bot.chat_calls == 3


def test_sse_gives_up_after_the_retry_budget(serve: Callable[[ScriptedBot], str]) -> None:
    bot = ScriptedBot(chat_statuses=[503, 502, 500])
    payload = sse_adapter(serve(bot), retries=1).ask("TC_003", "q")
    assert payload.status == "error"
    assert payload.attempts == 2
    assert bot.chat_calls == 2
    assert "HTTP 502" in payload.errors[0]


def test_sse_logs_in_again_once_on_401(serve: Callable[[ScriptedBot], str]) -> None:
    bot = ScriptedBot(expire_first_token=True)
    adapter = sse_adapter(serve(bot))
    payload = adapter.ask("TC_004", "q")
    assert payload.status == "ok", payload.errors
    assert bot.logins == 2
    assert adapter.ask("TC_005", "again").status == "ok"
    assert bot.logins == 2, "the refreshed token is cached"


def test_sse_bad_credentials_never_leak_the_password(
    serve: Callable[[ScriptedBot], str],
) -> None:
    payload = sse_adapter(serve(ScriptedBot()), password="wrong-password-xyz").ask("TC_006", "q")
    assert payload.status == "error"
    assert "login failed: HTTP 401" in payload.errors[0]
    assert "wrong-password-xyz" not in payload.model_dump_json()


def test_sse_rejection_body_echoing_the_jwt_is_redacted(
    serve: Callable[[ScriptedBot], str],
) -> None:
    bot = ScriptedBot(echo_auth_with_status=400)
    payload = sse_adapter(serve(bot)).ask("TC_007", "q")
    assert payload.status == "error"
    assert "HTTP 400" in payload.errors[0]
    assert "jwt-token" not in payload.errors[0]
    assert "[redacted:chatbot_token]" in payload.errors[0]


def test_sse_stall_mid_stream_keeps_partial_answer(serve: Callable[[ScriptedBot], str]) -> None:
    def stalling(question: str) -> list[Any]:
        return [frame("chunk", {"text": "Partial "}), frame("chunk", {"text": "answer"}), STALL]

    bot = ScriptedBot(script=stalling)
    payload = sse_adapter(serve(bot), read_timeout_s=0.3).ask("TC_008", "q")
    assert payload.status == "error"
    assert payload.answer == "Partial answer"
    assert "read timeout" in payload.errors[0]
    assert payload.latency_s is None
    assert payload.ttft_s is not None
    assert bot.chat_calls == 1, "a stream fault is never retried"


def test_sse_error_event_is_reported(serve: Callable[[ScriptedBot], str]) -> None:
    def failing(question: str) -> list[Any]:
        return [frame("chunk", {"text": "Let me"}), frame("error", {"message": "db down"})]

    payload = sse_adapter(serve(ScriptedBot(script=failing))).ask("TC_009", "q")
    assert payload.status == "error"
    assert payload.errors == ["chatbot error event: db down"]
    assert payload.answer == "Let me"


def test_sse_stream_without_done_is_an_error(serve: Callable[[ScriptedBot], str]) -> None:
    def truncated(question: str) -> list[Any]:
        return normal_answer(question)[:-1]

    payload = sse_adapter(serve(ScriptedBot(script=truncated))).ask("TC_010", "q")
    assert payload.status == "error"
    assert "without a 'done' event" in payload.errors[0]
    assert payload.answer == "The answer to q"
    assert payload.latency_s is None


def test_sse_malformed_event_json_is_an_error(serve: Callable[[ScriptedBot], str]) -> None:
    def malformed(question: str) -> list[Any]:
        return [frame("chunk", {"text": "ok "}), frame("chunk", "{not json"), frame("done", {})]

    payload = sse_adapter(serve(ScriptedBot(script=malformed))).ask("TC_011", "q")
    assert payload.status == "error"
    assert "malformed JSON in 'chunk' event" in payload.errors[0]
    assert payload.answer == "ok "


def test_sse_closed_port_is_an_error_after_retries() -> None:
    payload = sse_adapter(closed_port_url(), retries=1).ask("TC_012", "q")
    assert payload.status == "error"
    assert payload.attempts == 2
    assert "ConnectionError" in payload.errors[0]
    assert PASSWORD not in payload.model_dump_json()


def test_sse_serves_parallel_asks_through_one_adapter(
    serve: Callable[[ScriptedBot], str],
) -> None:
    bot = ScriptedBot(barrier=threading.Barrier(16, timeout=10))
    adapter = sse_adapter(serve(bot), pool_size=16)
    questions = [f"question {i}" for i in range(16)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        payloads = list(pool.map(lambda q: adapter.ask(q, q), questions))
    adapter.close()

    assert [p.status for p in payloads] == ["ok"] * 16, [p.errors for p in payloads]
    assert [p.answer for p in payloads] == [f"The answer to {q}" for q in questions]
    assert bot.logins == 1, "concurrent first calls share one login"


# --------------------------------------------------------------------------- HTTP JSON adapter


def test_http_json_answer_with_tool_calls_and_sql(serve: Callable[[ScriptedBot], str]) -> None:
    bot = ScriptedBot(
        json_statuses=[503],
        json_reply=lambda body: {
            "reply": f"echo {body['question']} / {body['context']}",
            "tool_calls": [{"name": "run_sql", "arguments": {"sql": SQL}}],
            "sql": ["SELECT 1"],
        },
    )
    adapter = HTTPJSONAdapter(
        serve(bot) + "/json",
        headers={"X-Api-Key": "k-123"},
        answer_field="reply",
        backoff_s=0.01,
    )
    payload = adapter.ask("TC_020", "hi", "ctx")
    adapter.close()
    assert payload.status == "ok", payload.errors
    assert payload.answer == "echo hi / ctx"
    assert payload.sql_statements == [SQL, "SELECT 1"]
    assert payload.attempts == 2
    assert payload.transport == "http_json"
    assert payload.latency_s is not None and payload.ttft_s is None
    assert bot.json_headers[-1]["X-Api-Key"] == "k-123"


def test_http_json_bad_shape_is_an_error(serve: Callable[[ScriptedBot], str]) -> None:
    adapter = HTTPJSONAdapter(serve(ScriptedBot(json_reply={"text": "x"})) + "/json")
    payload = adapter.ask("TC_021", "hi")
    assert payload.status == "error"
    assert "no string field 'answer'" in payload.errors[0]


def test_http_json_closed_port_is_an_error() -> None:
    adapter = HTTPJSONAdapter(
        closed_port_url(), headers={"Authorization": "Bearer top-secret"}, retries=0
    )
    payload = adapter.ask("TC_022", "hi")
    assert payload.status == "error"
    assert payload.attempts == 1
    assert "top-secret" not in payload.model_dump_json()


# --------------------------------------------------------------------------- callable adapter


def test_callable_adapter_accepts_text_and_objects() -> None:
    text = CallableAdapter(lambda q, c: f"{q}:{c}").ask("TC_030", "a", "b")
    assert (text.status, text.answer, text.transport) == ("ok", "a:b", "callable")
    assert text.latency_s is not None

    rich = CallableAdapter(lambda q, c: {"answer": "x", "sql": SQL}).ask("TC_031", "a")
    assert rich.sql_statements == [SQL]


def test_callable_adapter_turns_exceptions_into_errors() -> None:
    def broken(question: str, context: str) -> str:
        raise RuntimeError("model crashed")

    payload = CallableAdapter(broken).ask("TC_032", "a")
    assert payload.status == "error"
    assert payload.errors == ["chatbot raised RuntimeError: model crashed"]


def test_each_configured_kind_builds_its_adapter(tmp_path: Path) -> None:
    def built(**settings: str) -> ChatbotAdapter:
        adapter = build_adapter(Settings(home=tmp_path, **settings))  # type: ignore[arg-type]
        assert isinstance(adapter, RedactingAdapter)  # every transport's payloads are redacted
        capped = adapter.inner
        assert isinstance(capped, AnswerCapped), "every transport is held to the byte cap"
        return capped.adapter

    assert isinstance(built(chatbot_kind="sse", chatbot_url="http://127.0.0.1:9"), SSEAdapter)
    json_bot = built(chatbot_kind="http_json", chatbot_url="http://127.0.0.1:9/x")
    assert isinstance(json_bot, HTTPJSONAdapter)
    factory = "eval_pipeline_tests.tiny_chatbot:honest"
    in_process = built(chatbot_kind="callable", chatbot_callable=factory)
    assert isinstance(in_process, CallableAdapter)
    with pytest.raises(ValueError, match="chatbot_kind"):
        built(chatbot_kind="carrier-pigeon")
