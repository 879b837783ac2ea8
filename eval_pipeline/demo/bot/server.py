"""The demo analytics chatbot: login → JWT, then answers streamed as SSE in the seed's grammar.

It is a real HTTP server so the evaluator's SSE adapter, TTFT and token-rate metrics and error
handling are exercised for real. The same paced answers are also served in the OpenAI
chat-completions format (``/v1/chat/completions``), as one JSON object (``/answer``) and through a
chat web page (``/``) that streams them from ``/chat``, so every transport evaluates one bot.
The answer content comes from an injectable planner (the bot's own text-to-SQL), is formatted in
varied human styles and may carry one seeded fault.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from eval_pipeline.core.warehouse.db import to_python
from eval_pipeline.demo.bot import openai_format
from eval_pipeline.demo.bot.auth import Credentials
from eval_pipeline.demo.bot.faults import (
    Answer,
    FaultLog,
    compose_answer,
    fault_record,
    normalise,
)
from eval_pipeline.demo.bot.page import CHAT_PAGE
from eval_pipeline.demo.bot.plans import AnswerPlan, SqlCall

logger = logging.getLogger(__name__)

Planner = Callable[[str], AnswerPlan]
Event = tuple[str, dict[str, Any]]
Contact = Callable[[], dict[str, str]]

MAX_RESULT_ROWS = 50
TICK_S = 0.02
SLOW_FACTOR = 10
SLOW_MAX_S = 5.0
MAX_REQUEST_ID = 128
STREAM_ERROR_MESSAGE = "upstream model stream interrupted"
_TOKEN = re.compile(r"\S+\s*")


@dataclass(frozen=True)
class BotSettings:
    credentials: Credentials = field(default_factory=Credentials)
    fault_seed: int | None = None
    fault_log: Path | None = None
    ttft_s: float = 0.05
    tokens_per_s: float = 200.0
    stall_s: float = 15.0
    answer_s: float | None = None  # fixed answer time (benchmarks): last chunk at this second


def split_tokens(text: str) -> list[str]:
    """Words with their trailing whitespace: the unit the bot streams and counts as a token."""
    return _TOKEN.findall(text)


def slow_rate(tokens_per_s: float, n_tokens: int) -> float:
    """A tenth of the normal rate, but fast enough that the whole answer stays under SLOW_MAX_S."""
    return min(tokens_per_s, max(tokens_per_s / SLOW_FACTOR, n_tokens / SLOW_MAX_S))


def fixed_pacing(n_tokens: int, window_s: float) -> tuple[int, float]:
    """Tokens per chunk and the gap between chunks that put the last chunk ``window_s`` after
    the first, whatever the answer's length."""
    per_chunk = max(1, math.ceil(n_tokens * TICK_S / max(window_s, TICK_S)))
    gaps = math.ceil(n_tokens / per_chunk) - 1
    return per_chunk, window_s / gaps if gaps > 0 else 0.0


def sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"


def _tool_events(index: int, call: SqlCall) -> list[Event]:
    call_id = f"call_{index}"
    columns = list(call.rows[0]) if call.rows else []
    rows = [[to_python(row.get(col)) for col in columns] for row in call.rows[:MAX_RESULT_ROWS]]
    return [
        ("tool_call", {"id": call_id, "name": "run_sql", "arguments": {"sql": call.sql}}),
        (
            "tool_result",
            {
                "id": call_id,
                "name": "run_sql",
                "columns": columns,
                "rows": rows,
                "row_count": len(call.rows),
            },
        ),
    ]


def _request_id(request: Request) -> str:
    return request.headers.get("x-request-id", "")[:MAX_REQUEST_ID] or uuid.uuid4().hex


def _openai_error(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": code, "code": code}}, status)


async def _collected(events: AsyncIterator[Event]) -> openai_format.Whole:
    whole = openai_format.Whole()
    async for event, data in events:
        whole.add(event, data)
    return whole


def _unauthorized(detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, 401, headers={"WWW-Authenticate": "Bearer"})


async def _json_body(request: Request) -> dict[str, Any] | None:
    try:
        body = await request.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


class ChatBot:
    """The server's behaviour; ``create_app`` only routes to it."""

    def __init__(self, planner: Planner, contact: Contact, settings: BotSettings) -> None:
        self.planner = planner
        self.contact = contact
        self.settings = settings
        self.fault_log = FaultLog(settings.fault_log) if settings.fault_log else None
        self._asked: Counter[str] = Counter()
        self._asked_lock = threading.Lock()

    def _ask_index(self, question: str) -> int:
        """How often this process was asked the question before: repeats draw their own fault."""
        with self._asked_lock:
            key = normalise(question)
            index = self._asked[key]
            self._asked[key] += 1
            return index

    def answer(self, question: str) -> Answer:
        """Plan (runs SQL) and compose; blocking, so it runs in a worker thread."""
        plan = self.planner(question)
        return compose_answer(
            plan,
            question,
            fault_seed=self.settings.fault_seed,
            contact=self.contact,
            ask_index=self._ask_index(question),
        )

    async def health(self, _request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def login(self, request: Request) -> Response:
        body = await _json_body(request)
        if body is None:
            return JSONResponse({"detail": "expected a JSON object"}, 400)
        credentials = self.settings.credentials
        if not credentials.check(body.get("username"), body.get("password")):
            return _unauthorized("invalid username or password")
        return JSONResponse(
            {
                "access_token": credentials.issue(),
                "token_type": "bearer",
                "expires_in": credentials.token_ttl_s,
            }
        )

    async def chat(self, request: Request) -> Response:
        if self.settings.credentials.subject(request.headers.get("authorization")) is None:
            return _unauthorized("missing, invalid or expired bearer token")
        body = await _json_body(request)
        question = body.get("question") if body else None
        context = body.get("context") if body else None
        if not isinstance(question, str) or not question.strip():
            return JSONResponse({"detail": "'question' must be a non-empty string"}, 400)
        if context is not None and not isinstance(context, str):
            return JSONResponse({"detail": "'context' must be a string"}, 400)
        return StreamingResponse(
            self._events(question, _request_id(request)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _events(self, question: str, request_id: str) -> AsyncIterator[str]:
        async for event, data in self._stream(question, request_id):
            yield sse(event, data)

    async def _stream(self, question: str, request_id: str) -> AsyncIterator[Event]:
        """The answer as paced events of the SSE grammar; every protocol is written from it."""
        yield "agent_status", {"status": "planning"}
        try:
            answer = await anyio.to_thread.run_sync(self.answer, question)
        except Exception as exc:  # the planner's failure becomes the stream's error event
            logger.exception("planning failed for request %s", request_id)
            yield "error", {"message": f"the bot could not answer ({type(exc).__name__})"}
            return
        tokens = split_tokens(answer.text)
        rate = self.settings.tokens_per_s
        if answer.delivery == "slow":
            rate = slow_rate(rate, len(tokens))
        sent = max(1, len(tokens) // 2) if answer.delivery == "error" else len(tokens)
        self._record(answer, question, request_id, rate, sent)

        yield "reasoning", {"text": answer.reasoning or "Working out how to answer."}
        for index, call in enumerate(answer.sql_calls, start=1):
            for event in _tool_events(index, call):
                yield event
        yield "agent_status", {"status": "answering"}
        await anyio.sleep(self.settings.ttft_s)

        per_chunk = max(1, math.ceil(rate * TICK_S))
        gap_s = per_chunk / rate
        if self.settings.answer_s is not None and answer.delivery != "slow":
            window = self.settings.answer_s - self.settings.ttft_s
            per_chunk, gap_s = fixed_pacing(len(tokens), window)
        for start in range(0, sent, per_chunk):
            if start:
                await anyio.sleep(gap_s)
            yield "chunk", {"text": "".join(tokens[start : min(start + per_chunk, sent)])}
            if start == 0 and answer.delivery == "stall":
                await anyio.sleep(self.settings.stall_s)
        if answer.delivery == "error":
            yield "error", {"message": STREAM_ERROR_MESSAGE}
            return
        yield "done", {"usage": {"output_tokens": sent}, "request_id": request_id}

    async def completions(self, request: Request) -> Response:
        """``POST /v1/chat/completions``: the same answers in the OpenAI chat-completions format
        (the last user message is the question), streamed when asked to."""
        if not self.settings.credentials.check_api_key(request.headers.get("authorization")):
            return _openai_error(401, "invalid API key", "invalid_api_key")
        body = await _json_body(request)
        messages = body.get("messages") if body else None
        question = openai_format.last_user_message(messages)
        if question is None:
            return _openai_error(400, "'messages' must end with a user message", "invalid_request")
        model = str(body.get("model") or "demo-bot") if body else "demo-bot"
        events = self._stream(question, _request_id(request))
        if body and body.get("stream"):
            return StreamingResponse(
                openai_format.chunks(events, model),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        whole = await _collected(events)
        if whole.error is not None:
            return _openai_error(502, whole.error, "server_error")
        return JSONResponse(openai_format.completion(whole, model))

    async def answer_json(self, request: Request) -> Response:
        """``POST /answer``: one JSON answer ``{"answer", "reasoning", "tool_calls"}`` (the
        ``http_json`` transport's shape), after the same paced answer as the stream."""
        if not self.settings.credentials.check_api_key(request.headers.get("authorization")):
            return _unauthorized("invalid API key")
        body = await _json_body(request)
        question = body.get("question") if body else None
        if not isinstance(question, str) or not question.strip():
            return JSONResponse({"detail": "'question' must be a non-empty string"}, 400)
        whole = await _collected(self._stream(question, _request_id(request)))
        if whole.error is not None:
            return JSONResponse({"detail": whole.error}, 502)
        return JSONResponse(
            {"answer": whole.text, "reasoning": whole.reasoning, "tool_calls": whole.tool_calls}
        )

    async def page(self, _request: Request) -> Response:
        """The chat web page: login, message box, streamed answer, the SQL used; no outside
        asset (the policy allows only this origin and the page's own inline code)."""
        return HTMLResponse(
            CHAT_PAGE,
            headers={
                "Content-Security-Policy": "default-src 'none'; connect-src 'self'; "
                "script-src 'unsafe-inline'; style-src 'unsafe-inline'; form-action 'none'",
                "Cache-Control": "no-store",
            },
        )

    def _record(
        self, answer: Answer, question: str, request_id: str, rate: float, sent: int
    ) -> None:
        if self.fault_log is None:
            return
        record = fault_record(answer, question, self.settings.fault_seed, request_id)
        if answer.delivery == "slow":
            record["detail"] = {"tokens_per_s": rate, "normal_rate": self.settings.tokens_per_s}
        elif answer.delivery == "error":
            record["detail"] = {"tokens_before_error": sent}
        elif answer.delivery == "stall":
            record["detail"] = {"stall_s": self.settings.stall_s}
        self.fault_log.append(record)


def create_app(
    planner: Planner, contact: Contact, settings: BotSettings | None = None
) -> Starlette:
    """The chatbot as an ASGI app; ``planner`` answers, ``contact`` feeds the PII-leak fault."""
    bot = ChatBot(planner, contact, settings or BotSettings())
    app = Starlette(
        routes=[
            Route("/health", bot.health, methods=["GET"]),
            Route("/auth/login", bot.login, methods=["POST"]),
            Route("/chat", bot.chat, methods=["POST"]),
            Route("/v1/chat/completions", bot.completions, methods=["POST"]),
            Route("/answer", bot.answer_json, methods=["POST"]),
            Route("/", bot.page, methods=["GET"]),
        ]
    )
    app.state.bot = bot
    return app
