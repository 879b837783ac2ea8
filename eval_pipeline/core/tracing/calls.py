"""Spans for the calls made inside a step: judge calls, verifier turns and tools, references.

Each is a decorator on the method that makes the call, so the code that calls stays as it was;
each records a child of the current span and does nothing (beyond one context lookup) when none
is current.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from eval_pipeline.core.tracing import attributes as attr
from eval_pipeline.core.tracing.spans import recording, span

F = TypeVar("F", bound=Callable[..., Any])


def traced_judge(method: F) -> F:
    """``JudgeClient.judge``: one LLM span per judgement, cached or not, with its prompt version,
    model, tokens and cost."""

    @functools.wraps(method)
    def judge(self: Any, messages: Any, **kwargs: Any) -> Any:
        if not recording():
            return method(self, messages, **kwargs)
        name = kwargs.get("dimension") or kwargs.get("schema_name", "")
        with span(
            f"judge {name}",
            "LLM",
            lambda: attr.judge_request(
                self.model,
                messages,
                prompt_version=kwargs.get("prompt_version", ""),
                dimension=kwargs.get("dimension", ""),
                schema_name=kwargs.get("schema_name", ""),
            ),
        ) as current:
            call = method(self, messages, **kwargs)
            current.set(
                lambda: attr.judge_reply(
                    call.data,
                    cached=call.cached,
                    attempts=call.attempts,
                    tokens_in=call.input_tokens,
                    tokens_out=call.output_tokens,
                    cost_usd=call.cost_usd,
                )
            )
            return call

    return cast("F", judge)


def traced_chat(method: F) -> F:
    """``JudgeClient.chat``: one LLM span per raw completion (a verifier turn)."""

    @functools.wraps(method)
    def chat(self: Any, messages: Any, **kwargs: Any) -> Any:
        if not recording():
            return method(self, messages, **kwargs)
        params = {k: v for k, v in kwargs.items() if k not in {"case_id", "dimension"}}
        with span(
            f"llm {kwargs.get('dimension') or 'chat'}",
            "LLM",
            lambda: attr.llm_request(self.model, messages, params),
        ) as current:
            completion = method(self, messages, **kwargs)
            current.set(lambda: attr.chat_reply(completion, self.settings.cost_usd))
            return completion

    return cast("F", chat)


def traced_tool(method: F) -> F:
    """The verifier's ``_dispatch(provider_id, name, raw_arguments) -> content``: one TOOL span
    per call the model made, with its arguments and what it got back."""

    @functools.wraps(method)
    def dispatch(self: Any, provider_id: str, name: str, raw: str) -> Mapping[str, Any]:
        if not recording():
            return cast("Mapping[str, Any]", method(self, provider_id, name, raw))
        with span(f"tool {name}", "TOOL", lambda: attr.verifier_tool(name, raw)) as current:
            content = method(self, provider_id, name, raw)
            current.set(lambda: attr.verifier_tool_result(content))
            if "error" in content:
                current.fail(str(content["error"]))
            return cast("Mapping[str, Any]", content)

    return cast("F", dispatch)


def traced_reference(method: F) -> F:
    """``BKGRuntime.evaluate(ref, db) -> ReferenceValue``: one TOOL span per reference computed
    for a case (function or SQL, params, value; from the run's memo or the database)."""

    @functools.wraps(method)
    def evaluate(self: Any, ref: Any, db: Any) -> Any:
        if not recording():
            return method(self, ref, db)
        with span("reference", "TOOL", lambda: attr.reference_call(ref)) as current:
            out = method(self, ref, db)
            current.set(lambda: attr.reference_value(out))
            if out.error:
                current.fail(out.error)
            return out

    return cast("F", evaluate)
