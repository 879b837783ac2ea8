"""The demo bot's answers in the OpenAI chat-completions format, streamed or whole.

Written from the bot's own paced events, so a stream keeps their timing: reasoning goes into
``reasoning_content``, each SQL the bot ran is a ``run_sql`` tool call whose arguments arrive in
two fragments (as OpenAI streams them), the answer chunks are content deltas, and a failure
mid-answer is an ``{"error"}`` chunk with no ``[DONE]`` after it, as OpenAI's servers end it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

DONE = "data: [DONE]\n\n"


def last_user_message(messages: Any) -> str | None:
    """The question: the text of the last message, which must be the user's."""
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return None
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if last.get("role") != "user" or not isinstance(content, str) or not content.strip():
        return None
    return content


def _data(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, default=str)}\n\n"


async def chunks(
    events: AsyncIterator[tuple[str, dict[str, Any]]], model: str
) -> AsyncIterator[str]:
    """``chat.completion.chunk`` events for the bot's events, then ``[DONE]``."""
    head = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return _data({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    calls = 0
    async for event, data in events:
        if event == "reasoning":
            yield chunk({"reasoning_content": data["text"]})
        elif event == "tool_call":
            arguments = json.dumps(data["arguments"])
            half = len(arguments) // 2
            first = {"index": calls, "id": data["id"], "type": "function"}
            function = {"name": data["name"], "arguments": arguments[:half]}
            yield chunk({"tool_calls": [{**first, "function": function}]})
            rest = {"index": calls, "function": {"arguments": arguments[half:]}}
            yield chunk({"tool_calls": [rest]})
            calls += 1
        elif event == "chunk":
            yield chunk({"content": data["text"]})
        elif event == "error":
            yield _data({"error": {"message": data["message"], "type": "server_error"}})
            return
        elif event == "done":
            yield chunk({}, "stop")
            yield DONE


@dataclass
class Whole:
    """A whole answer gathered from the bot's events (for the non-streamed endpoints)."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def add(self, event: str, data: dict[str, Any]) -> None:
        if event == "chunk":
            self.text += data["text"]
        elif event == "reasoning":
            self.reasoning += data["text"]
        elif event == "tool_call":
            self.tool_calls.append(data)
        elif event == "error":
            self.error = data["message"]


def completion(whole: Whole, model: str) -> dict[str, Any]:
    """A ``chat.completion`` object."""
    calls = [
        {
            "id": call["id"],
            "type": "function",
            "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
        }
        for call in whole.tool_calls
    ]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": whole.text,
        "reasoning_content": whole.reasoning,
    }
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
