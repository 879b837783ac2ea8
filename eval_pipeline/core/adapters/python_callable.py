"""A chatbot that is a Python function: evaluate an in-process agent without any server."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

from eval_pipeline.core.adapters.base import (
    describe_exception,
    error_payload,
    payload_from_answer,
    utc_now_iso,
)
from eval_pipeline.core.models import ChatPayload

ChatFunction = Callable[[str, str], Any]


def load_callable(reference: str) -> ChatFunction:
    """Resolve ``"package.module:function"`` so configuration files can name a callable."""
    module_name, colon, attribute = reference.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"expected 'module:function', got {reference!r}")
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{reference!r} is not callable")
    fn: ChatFunction = target
    return fn


class CallableAdapter:
    """``fn(question, context)`` returns the answer or ``{"answer", "tool_calls"?, "sql"?}``."""

    transport = "callable"

    def __init__(self, fn: ChatFunction | str) -> None:
        self._fn = load_callable(fn) if isinstance(fn, str) else fn

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        started_at = utc_now_iso()
        started = time.perf_counter()
        try:
            result = self._fn(question, context)
            latency = time.perf_counter() - started
            return payload_from_answer(
                case_id=case_id,
                question=question,
                result=result,
                answer_field="answer",
                transport=self.transport,
                latency_s=latency,
                started_at=started_at,
            )
        except Exception as exc:  # any failure of the bot is recorded, never raised
            return error_payload(
                case_id=case_id,
                question=question,
                error=f"chatbot raised {describe_exception(exc)}",
                transport=self.transport,
                started_at=started_at,
            )

    def close(self) -> None:
        return None
