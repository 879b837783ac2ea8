"""A chatbot that is a Python function: evaluate an in-process agent without any server."""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from eval_pipeline.core.adapters.base import (
    describe_exception,
    error_payload,
    payload_from_answer,
    total_timeout_error,
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


def _call_in_thread(fn: ChatFunction, question: str, context: str) -> Future[Any]:
    """Run the call on a daemon thread of its own: a thread cannot be stopped, but a call that
    never returns then holds up neither the case's step nor the process's exit."""
    reply: Future[Any] = Future()

    def run() -> None:
        try:
            reply.set_result(fn(question, context))
        except BaseException as exc:  # the bot's own failure, whatever it is, is the case's
            reply.set_exception(exc)

    threading.Thread(target=run, name="chatbot-callable", daemon=True).start()
    return reply


class CallableAdapter:
    """``fn(question, context)`` returns the answer or ``{"answer", "tool_calls"?, "sql"?}`` (the
    routed intent at ``intent_path`` of that object);
    a call that takes longer than ``total_timeout_s`` is an error (its thread is left behind)."""

    transport = "callable"

    def __init__(
        self, fn: ChatFunction | str, *, total_timeout_s: float = 120.0, intent_path: str = "intent"
    ) -> None:
        self._fn = load_callable(fn) if isinstance(fn, str) else fn
        self._total_timeout_s = total_timeout_s
        self._intent_path = intent_path

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        started_at = utc_now_iso()
        started = time.perf_counter()
        reply = _call_in_thread(self._fn, question, context)

        def failed(error: str) -> ChatPayload:
            return error_payload(
                case_id=case_id,
                question=question,
                error=error,
                transport=self.transport,
                started_at=started_at,
            )

        try:
            raised = reply.exception(timeout=self._total_timeout_s)
        except TimeoutError:
            return failed(total_timeout_error(self._total_timeout_s))
        if raised is not None:  # any failure of the bot is recorded, never raised
            return failed(f"chatbot raised {describe_exception(raised)}")
        latency = time.perf_counter() - started
        try:
            return payload_from_answer(
                case_id=case_id,
                question=question,
                result=reply.result(),
                answer_field="answer",
                transport=self.transport,
                latency_s=latency,
                started_at=started_at,
                intent_path=self._intent_path,
            )
        except ValueError as exc:
            return failed(f"chatbot raised {describe_exception(exc)}")

    def close(self) -> None:
        return None
