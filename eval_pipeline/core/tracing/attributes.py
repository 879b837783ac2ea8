"""Span attributes of the evaluation's records, named by the OpenInference semantic conventions
where one fits (span kind, ``input.value``/``output.value``, ``llm.*``, ``tool.*``,
``session.id``, ``tag.tags``, ``metadata``) and under ``eval.`` for what they do not cover (the
chatbot's timings, claims, verdicts, dimension scores, the case's outcome).

Every function here runs only when a span is recorded.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from eval_pipeline.core.models import (
    VERDICT_LABELS,
    CaseOutcome,
    ChatPayload,
    ClaimContract,
    DimensionResult,
    GoldenCase,
    OracleResult,
    Reference,
    ReferenceValue,
)
from eval_pipeline.core.tracing.spans import Attributes

SPAN_KIND = "openinference.span.kind"
INPUT_VALUE = "input.value"
INPUT_MIME_TYPE = "input.mime_type"
OUTPUT_VALUE = "output.value"
OUTPUT_MIME_TYPE = "output.mime_type"
SESSION_ID = "session.id"
TAG_TAGS = "tag.tags"
METADATA = "metadata"
LLM_MODEL_NAME = "llm.model_name"
LLM_SYSTEM = "llm.system"
LLM_INVOCATION_PARAMETERS = "llm.invocation_parameters"
LLM_PROMPT_TEMPLATE_VERSION = "llm.prompt_template.version"
LLM_INPUT_MESSAGES = "llm.input_messages"
LLM_OUTPUT_MESSAGES = "llm.output_messages"
LLM_TOKEN_COUNT_PROMPT = "llm.token_count.prompt"
LLM_TOKEN_COUNT_COMPLETION = "llm.token_count.completion"
LLM_TOKEN_COUNT_TOTAL = "llm.token_count.total"
LLM_COST_TOTAL = "llm.cost.total"
TOOL_NAME = "tool.name"
JSON_MIME = "application/json"
TEXT_MIME = "text/plain"

RUN_KEY = "eval.run_key"
CASE_ID = "eval.case_id"


def as_json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _io(prefix: str, value: Any) -> dict[str, Any]:
    """``input.*`` or ``output.*``: text as is, anything else as JSON."""
    if isinstance(value, str):
        return {f"{prefix}.value": value, f"{prefix}.mime_type": TEXT_MIME}
    return {f"{prefix}.value": as_json(value), f"{prefix}.mime_type": JSON_MIME}


def inputs(value: Any) -> dict[str, Any]:
    return _io("input", value)


def outputs(value: Any) -> dict[str, Any]:
    return _io("output", value)


def case_identity(run_key: str, case_id: str) -> dict[str, Any]:
    """On every span: the run is the OpenInference session, so a run's traces group together."""
    return {SESSION_ID: run_key, RUN_KEY: run_key, CASE_ID: case_id}


# --------------------------------------------------------------------------- the chatbot


def chatbot_call(case: GoldenCase, payload: ChatPayload) -> Attributes:
    sql = payload.sql_statements
    return {
        **inputs(case.question),
        **outputs(payload.answer),
        "eval.chatbot.context": case.context or None,
        "eval.chatbot.status": payload.status,
        "eval.chatbot.latency_s": payload.latency_s,
        "eval.chatbot.ttft_s": payload.ttft_s,
        "eval.chatbot.tokens_per_s": payload.tokens_per_s,
        "eval.chatbot.transport": payload.transport or None,
        "eval.chatbot.intent": payload.intent,
        "eval.chatbot.attempts": payload.attempts,
        "eval.chatbot.tool_calls": len(payload.tool_calls),
        "eval.chatbot.sql": list(sql) if sql else None,
        "eval.chatbot.errors": list(payload.errors) if payload.errors else None,
    }


def call_interval(payload: ChatPayload, asked_s: float, answered_s: float) -> tuple[float, float]:
    """When the chatbot was really asked and answered: the payload's own start and latency
    when it has them (an answer asked ahead of its step), else the times around the call."""
    start = asked_s
    if payload.started_at:
        with contextlib.suppress(ValueError):
            start = datetime.fromisoformat(payload.started_at).timestamp()
    end = start + payload.latency_s if payload.latency_s is not None else max(answered_s, start)
    return start, end


# --------------------------------------------------------------------------- claims, references


def claim_list(contract: ClaimContract) -> list[dict[str, Any]]:
    return [
        {"id": c.id, "text": c.text, "kind": c.kind, "value": c.value, "unit": c.unit}
        for c in contract.claims
    ]


def claims(contract: ClaimContract) -> Attributes:
    return {
        **outputs(claim_list(contract)),
        "eval.claims.count": len(contract.claims),
        "eval.claims.method": contract.method,
    }


def reference_call(ref: Reference) -> Attributes:
    try:
        kind, target = ref.kind, ref.target
    except ValueError:
        kind, target = "invalid", ""
    return {
        TOOL_NAME: kind if kind == "sql" else f"{kind}:{target}",
        **inputs({"kind": kind, "target": target, "params": ref.params}),
        "eval.reference.kind": kind,
        "eval.reference.target": target,
        "eval.reference.params": as_json(ref.params),
    }


def reference_value(out: ReferenceValue) -> Attributes:
    return {
        **outputs(out.value),
        "eval.reference.params": as_json(out.reference.params),
        "eval.reference.shape": out.shape,
        "eval.reference.unit": out.unit,
        "eval.reference.tables": list(out.tables) if out.tables else None,
        "eval.reference.error": out.error,
    }


def verdicts(result: OracleResult) -> Attributes:
    counts: Counter[str] = Counter(v.verdict for v in result.verdicts)
    listed = [
        {"claim_id": v.claim_id, "verdict": v.verdict, "reason": v.reason} for v in result.verdicts
    ]
    agent = result.agent or {}
    return {
        **outputs(listed),
        **{f"eval.verdicts.{label}": counts.get(label, 0) for label in VERDICT_LABELS},
        "eval.references.count": len(result.references),
        "eval.oracle.method": str(agent.get("method", "deterministic")),
        "eval.oracle.error": result.error,
    }


def verifier_tool(name: str, raw_arguments: str) -> Attributes:
    return {TOOL_NAME: name, **inputs(raw_arguments or "{}")}


def verifier_tool_result(content: Mapping[str, Any]) -> Attributes:
    return {
        **outputs(dict(content)),
        "eval.tool.evidence_id": str(content.get("evidence_id", "")) or None,
        "eval.tool.ok": "error" not in content,
    }


# --------------------------------------------------------------------------- the judge


def _messages(prefix: str, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, message in enumerate(messages):
        base = f"{prefix}.{i}.message"
        out[f"{base}.role"] = str(message.get("role", ""))
        content = message.get("content")
        if content is not None:
            out[f"{base}.content"] = content if isinstance(content, str) else as_json(content)
        for j, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function", {}) if isinstance(call, Mapping) else {}
            out[f"{base}.tool_calls.{j}.tool_call.function.name"] = str(function.get("name", ""))
            out[f"{base}.tool_calls.{j}.tool_call.function.arguments"] = str(
                function.get("arguments", "")
            )
    return out


def llm_request(
    model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> Attributes:
    invocation = {k: v for k, v in params.items() if k not in {"tools", "response_format"}}
    return {
        LLM_MODEL_NAME: model,
        LLM_SYSTEM: "openai",
        LLM_INVOCATION_PARAMETERS: as_json(invocation),
        **_messages(LLM_INPUT_MESSAGES, messages),
    }


def llm_usage(tokens_in: int, tokens_out: int, cost_usd: float) -> Attributes:
    return {
        LLM_TOKEN_COUNT_PROMPT: tokens_in,
        LLM_TOKEN_COUNT_COMPLETION: tokens_out,
        LLM_TOKEN_COUNT_TOTAL: tokens_in + tokens_out,
        LLM_COST_TOTAL: cost_usd,
    }


def judge_request(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    prompt_version: str,
    dimension: str,
    schema_name: str,
) -> Attributes:
    return {
        **llm_request(model, messages, {"temperature": 0}),
        LLM_PROMPT_TEMPLATE_VERSION: prompt_version,
        "eval.judge.dimension": dimension or None,
        "eval.judge.schema": schema_name,
    }


def judge_reply(
    data: Mapping[str, Any],
    *,
    cached: bool,
    attempts: int,
    tokens_in: int,
    tokens_out: int,
    cost_usd: float,
) -> Attributes:
    reply = {"role": "assistant", "content": as_json(dict(data))}
    return {
        **_messages(LLM_OUTPUT_MESSAGES, [reply]),
        **outputs(dict(data)),
        **llm_usage(tokens_in, tokens_out, cost_usd),
        "eval.judge.cached": cached,
        "eval.judge.attempts": attempts,
    }


def chat_reply(completion: Any, cost_usd: Callable[[int, int], float]) -> Attributes:
    """A raw completion (``openai`` ``ChatCompletion``): its message, tool calls and usage."""
    usage = completion.usage
    tokens_in = usage.prompt_tokens if usage is not None else 0
    tokens_out = usage.completion_tokens if usage is not None else 0
    message = completion.choices[0].message.model_dump() if completion.choices else {}
    return {
        **_messages(LLM_OUTPUT_MESSAGES, [message]),
        **llm_usage(tokens_in, tokens_out, cost_usd(tokens_in, tokens_out)),
    }


# --------------------------------------------------------------------------- scores, outcome


def dimension_scores(dimensions: Mapping[str, DimensionResult]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, dim in dimensions.items():
        out[f"eval.{name}.state"] = dim.state
        out[f"eval.{name}.score"] = dim.score
        out[f"eval.{name}.method"] = dim.method or None
        out[f"eval.{name}.reason"] = dim.reason or None
    return out


def scores(dimensions: Mapping[str, DimensionResult]) -> Attributes:
    return {
        **outputs({name: dim.score for name, dim in dimensions.items()}),
        **dimension_scores(dimensions),
    }


def outcome_summary(outcome: CaseOutcome) -> str:
    """One line a trace list can show: passed, failed and why, or in error and why."""
    if outcome.state == "error":
        return f"error: {'; '.join(outcome.errors)}"
    overall = "none" if outcome.overall is None else f"{outcome.overall:.2f}"
    if outcome.passed:
        return f"passed, overall {overall}"
    return f"failed, overall {overall}: {'; '.join(outcome.gate_failures)}"


def case_outcome(outcome: CaseOutcome) -> Attributes:
    return {
        **outputs(outcome_summary(outcome)),
        "eval.passed": outcome.passed,
        "eval.state": outcome.state,
        "eval.overall": outcome.overall,
        "eval.profile": outcome.profile,
        "eval.gate_failures": list(outcome.gate_failures) or None,
        "eval.errors": list(outcome.errors) or None,
        "eval.warnings": list(outcome.warnings) or None,
        **{f"eval.verdicts.{k}": v for k, v in outcome.verdict_counts.items()},
        **dimension_scores(outcome.dimensions),
    }


def case_root(run_key: str, case_id: str, question: str, tags: Sequence[str]) -> Attributes:
    """The case's root span: what was asked. It holds nothing that changes when the case is
    scored again in the same run (the ``outcome`` spans do), so every copy sent is the same."""
    return {
        **inputs(question),
        TAG_TAGS: list(tags) or None,
        METADATA: as_json({"run_key": run_key, "case_id": case_id}),
    }
