"""A chatbot that speaks the OpenAI chat-completions API, streamed: any compatible server.

The answer is asked for with ``stream: true`` and read as server-sent events (``data: {chunk}``
… ``data: [DONE]``) through the same deadline-bound session, byte cap and read loop as the SSE
transport, so the total timeout and ``EVAL_CHATBOT_MAX_ANSWER_BYTES`` hold here too. Tool calls
in the stream are assembled from their fragments; the SQL of a call is the first of the
configured argument names that holds a string. A server that answers with one JSON completion
instead of a stream is read too (without a first token). As in the SSE transport only the request
is retried; a fault once the stream has begun is an error payload that keeps the partial answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Unpack

import requests
from pydantic import SecretStr

from eval_pipeline.core.adapters.base import (
    Attempts,
    answer_size_error,
    describe_exception,
    intent_of_calls,
    redact_headers,
    text_excerpt,
    tokens_per_second,
    tool_call,
    total_timeout_error,
    value_at,
)
from eval_pipeline.core.adapters.deadline import BodyTooLarge, Deadline, DeadlineExceeded, read_body
from eval_pipeline.core.adapters.defaults import SQL_ARGUMENTS
from eval_pipeline.core.adapters.sse import SSEEvent, Stream, StreamedAdapter, StreamOptions
from eval_pipeline.core.models import ChatPayload, ToolCall

ROLES = frozenset({"system", "developer", "user", "assistant"})
_TRANSCRIPT_PREFIXES = {f"{role}:": role for role in ("system", "user", "assistant")}
# a finish reason that means the answer is not the whole answer
_CUT_SHORT = {
    "length": "the answer was cut at the token limit (finish_reason 'length')",
    "content_filter": "the answer was cut by a content filter (finish_reason 'content_filter')",
}


def context_messages(context: str) -> list[dict[str, str]]:
    """The earlier turns a case's ``context`` describes, as chat messages.

    A JSON array of ``{"role", "content"}`` messages is sent as it is; a transcript whose lines
    start with ``user:`` / ``assistant:`` / ``system:`` becomes one message per turn (other lines
    continue the turn above); any other text is one system message."""
    text = context.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            raw = json.loads(text)
        except ValueError:
            raw = None
        if isinstance(raw, list) and raw and all(_is_message(m) for m in raw):
            return [{"role": m["role"], "content": m["content"]} for m in raw]
    turns: list[dict[str, str]] = []
    for line in text.splitlines():
        head, colon, rest = line.partition(":")
        role = _TRANSCRIPT_PREFIXES.get(head.strip().lower() + colon)
        if role is not None:
            turns.append({"role": role, "content": rest.strip()})
        elif turns:
            turns[-1]["content"] = f"{turns[-1]['content']}\n{line}".strip()
        else:
            return [{"role": "system", "content": text}]
    return turns


def _is_message(raw: Any) -> bool:
    return (
        isinstance(raw, Mapping)
        and raw.get("role") in ROLES
        and isinstance(raw.get("content"), str)
    )


@dataclass
class _ToolCallParts:
    """One tool call as its fragments arrive (``index`` keys them; id and name come first)."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class Completion(Stream):
    """A streamed chat completion: ``data: {chunk}`` events ending with ``data: [DONE]``.

    The routed intent is read at ``intent_path`` of every chunk object (a field the server adds),
    or with ``intent_event="tool_call"`` of every tool call; the latest one wins."""

    unfinished: ClassVar[str] = "stream ended without [DONE]"
    sql_arguments: tuple[str, ...] = SQL_ARGUMENTS
    finish_reason: str | None = None
    parts: dict[int, _ToolCallParts] = field(default_factory=dict)

    def apply(self, event: SSEEvent, now: float) -> bool:
        if event.data.strip() == "[DONE]":
            self._finish(now)
            return True
        if event.event == "error":  # some servers name the event instead of sending an object
            self.errors.append(f"chatbot error in the stream: {_error_text(event.data)}")
            return True
        return super().apply(event, now)

    def _apply(self, kind: str, data: dict[str, Any], now: float) -> bool:
        if data.get("error"):
            self.errors.append(f"chatbot error in the stream: {_error_text(data['error'])}")
            return True
        if self.intent_event != "tool_call":
            self.intent = value_at(data, self.intent_path) or self.intent
        choices = data.get("choices") or []
        if not isinstance(choices, list):
            raise ValueError("choices is not a list")
        for choice in choices:
            if not isinstance(choice, dict):
                raise ValueError("a choice is not an object")
            if choice.get("index", 0) != 0:
                continue  # n > 1: the first choice is the answer
            delta = choice.get("delta") or {}
            if not isinstance(delta, dict):
                raise ValueError("delta is not an object")
            self._delta(delta, now)
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        return False

    def _delta(self, delta: dict[str, Any], now: float) -> None:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str):
            self.reasoning.append(reasoning)
        for fragment in delta.get("tool_calls") or []:
            if not isinstance(fragment, dict):
                raise ValueError("a tool call is not an object")
            parts = self.parts.setdefault(
                int(fragment.get("index", len(self.parts))), _ToolCallParts()
            )
            function = fragment.get("function") or {}
            if not isinstance(function, dict):
                raise ValueError("a tool call's function is not an object")
            parts.id = parts.id or str(fragment.get("id") or "")
            parts.name += str(function.get("name") or "")
            if isinstance(function.get("arguments"), str):
                parts.arguments.append(function["arguments"])
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._chunk(content, now)

    def _finish(self, now: float) -> None:
        for index in sorted(self.parts):
            parts = self.parts[index]
            try:
                self.tool_calls.append(_assembled(index, parts, self.sql_arguments))
            except ValueError as exc:
                self.errors.append(f"malformed tool call {parts.name or index!r}: {exc}")
        if self.intent_event == "tool_call":
            self.intent = intent_of_calls(self.tool_calls, self.intent_path) or self.intent
        if self.finish_reason in _CUT_SHORT:
            self.errors.append(_CUT_SHORT[self.finish_reason])
        elif self.finish_reason == "tool_calls" and not "".join(self.answer).strip():
            self.errors.append(
                "the model asked for tool calls and gave no answer: point the adapter at the "
                "chatbot that runs its tools, not at the bare model"
            )
        self.done_at = now


def _assembled(index: int, parts: _ToolCallParts, sql_arguments: Iterable[str]) -> ToolCall:
    text = "".join(parts.arguments).strip()
    try:
        arguments = json.loads(text) if text else {}
    except ValueError:
        raise ValueError("its arguments are not JSON") from None
    if not isinstance(arguments, dict):
        raise ValueError("its arguments are not a JSON object")
    return tool_call(parts.id or f"call_{index + 1}", parts.name, arguments, sql_arguments)


def _error_text(error: Any) -> str:
    if isinstance(error, Mapping):
        return str(error.get("message") or error.get("code") or "no message")
    if isinstance(error, str):
        try:
            return _error_text(json.loads(error))
        except ValueError:
            return error.strip() or "no message"
    return str(error)


def completion_payload(
    body: Any, *, sql_arguments: Iterable[str] = SQL_ARGUMENTS
) -> tuple[str, str, list[ToolCall]]:
    """Answer, reasoning and tool calls of a whole (non-streamed) chat completion."""
    choices = body.get("choices") if isinstance(body, Mapping) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ValueError("the completion has no choices")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise ValueError("the first choice has no message")
    calls = []
    for index, raw in enumerate(message.get("tool_calls") or []):
        function = raw.get("function") if isinstance(raw, Mapping) else None
        if not isinstance(function, Mapping):
            raise ValueError(f"tool call #{index} has no function")
        arguments = function.get("arguments")
        parts = _ToolCallParts(
            str(raw.get("id") or ""),
            str(function.get("name") or ""),
            [arguments] if isinstance(arguments, str) else [],
        )
        calls.append(_assembled(index, parts, sql_arguments))
    reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
    return str(message.get("content") or ""), str(reasoning), calls


def _failed(payload: ChatPayload, error: str) -> ChatPayload:
    return payload.model_copy(update={"status": "error", "errors": [error]})


class OpenAIChatAdapter(StreamedAdapter):
    """POST ``{base_url}/chat/completions`` with the case as the last user message; thread-safe
    (one pooled session serves every concurrent ``ask``)."""

    transport = "openai_chat"

    def __init__(
        self,
        base_url: str,
        *,
        model: str = "",
        api_key: SecretStr | str = "",
        headers: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
        sql_arguments: Iterable[str] = SQL_ARGUMENTS,
        **options: Unpack[StreamOptions],
    ) -> None:
        super().__init__(**options)
        root = base_url.rstrip("/")
        self._url = root if root.endswith("/chat/completions") else f"{root}/chat/completions"
        self._model = model
        self._api_key = api_key if isinstance(api_key, SecretStr) else SecretStr(api_key)
        self._headers = {"Accept": "text/event-stream", **dict(headers or {})}
        key = self._api_key.get_secret_value()
        if key:
            self._headers.setdefault("Authorization", f"Bearer {key}")
        self._body = dict(body or {})
        self._sql_arguments = tuple(sql_arguments)
        self._redactor.add("chatbot_api_key", key)
        redact_headers(self._redactor, self._headers)

    def request_body(self, question: str, context: str = "") -> dict[str, Any]:
        """What is posted: the extra body fields, then the model, the messages and ``stream``."""
        messages = [*context_messages(context), {"role": "user", "content": question}]
        model = {"model": self._model} if self._model else {}
        return {**self._body, **model, "messages": messages, "stream": True}

    def _request(
        self, question: str, context: str, deadline: Deadline, attempts: Attempts
    ) -> requests.Response:
        """The completion request; a 429 (rate limited) is retried like a 5xx."""
        sent = self.request_body(question, context)
        return self._retried(
            attempts,
            deadline,
            lambda: self._post(attempts, self._url, sent, self._headers, self._timeout, {429}),
        )

    def _stream(self, started: float) -> Stream:
        return Completion(started, *self._intent, sql_arguments=self._sql_arguments)

    def _read(
        self, response: requests.Response, deadline: Deadline, started: float, call: ChatPayload
    ) -> ChatPayload:
        if "json" in response.headers.get("Content-Type", ""):
            return self._whole(response, deadline, started, call)
        return super()._read(response, deadline, started, call)

    def _whole(
        self,
        response: requests.Response,
        deadline: Deadline,
        started: float,
        payload: ChatPayload,
    ) -> ChatPayload:
        """A server that ignored ``stream: true``: one JSON completion, no first token."""
        try:
            raw = read_body(response, deadline, self._max_answer_bytes)
            body = json.loads(raw)
            answer, reasoning, calls = completion_payload(body, sql_arguments=self._sql_arguments)
        except BodyTooLarge:
            return _failed(payload, answer_size_error(self._max_answer_bytes))
        except DeadlineExceeded:
            return _failed(payload, total_timeout_error(self._total_timeout_s))
        except requests.RequestException as exc:
            return _failed(payload, f"reading the completion failed: {describe_exception(exc)}")
        except json.JSONDecodeError:
            return _failed(
                payload, f"the completion is not JSON: {text_excerpt(raw, None, self._redactor)}"
            )
        except ValueError as exc:
            return _failed(payload, f"unexpected completion: {exc}")
        latency = time.perf_counter() - started
        event, path = self._intent
        intent = intent_of_calls(calls, path) if event == "tool_call" else value_at(body, path)
        return payload.model_copy(
            update={
                "intent": intent,
                "answer": answer,
                "reasoning": reasoning,
                "tool_calls": calls,
                "latency_s": latency,
                "tokens_per_s": tokens_per_second(answer, latency),
                "chunk_count": 1 if answer else 0,
            }
        )
