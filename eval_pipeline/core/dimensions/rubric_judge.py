"""The ``rubric.<name>`` dimensions of one answer: applicability, deterministic checks, one judge.

A dimension whose ``applies_when`` fails is ``skipped`` with the reason. A deterministic check
(the oracle's verdicts, the bot's own tool call, the answer's words) decides whenever it can, so a
wrong quoted price is caught with its evidence even without an LLM. The remaining dimensions go to
the judge in one call; its reply must validate against the rubric's pydantic model, otherwise
every one of them is ``error`` — never a guessed score. Without a judge they are ``skipped``.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import pydantic

from eval_pipeline.core.dimensions.judges import fence, short_json
from eval_pipeline.core.llm.client import JudgeCall, JudgeClient, JudgeError
from eval_pipeline.core.llm.prompts import Prompt, load_prompt_file
from eval_pipeline.core.models import (
    ChatPayload,
    DimensionResult,
    GoldenCase,
    LoggedCase,
    OracleResult,
)
from eval_pipeline.core.rubrics.load import Rubric
from eval_pipeline.core.rubrics.spec import (
    MentionsCheck,
    OracleCheck,
    RubricDimension,
    ToolArgumentsCheck,
    item_fields,
)

PROMPT_FILE = "rubric.v1"


def load_rubric_prompt() -> Prompt:
    return load_prompt_file(PROMPT_FILE, "rubric")


@dataclass(frozen=True)
class _Decided:
    raw: int
    reason: str
    method: str
    details: dict[str, Any]


def not_applicable(
    dim: RubricDimension, case: GoldenCase, intent: str | None, *, found: bool = False
) -> str | None:
    """Why ``dim`` does not apply to the case, or None when it does.

    No author tagged a logged conversation, so for one a tag condition also holds when ``found``:
    the dimension's check found what it is about in the answer (see :func:`_found`)."""
    when = dim.applies_when
    if when is None:
        return None
    found_in_logged = found and isinstance(case, LoggedCase)
    if when.tags and not set(when.tags) & set(case.tags) and not found_in_logged:
        tags = ", ".join(case.tags) or "none"
        return f"applies to cases tagged {', '.join(when.tags)}; this case's tags: {tags}"
    if when.intents and intent not in when.intents:
        return f"applies to intents {', '.join(when.intents)}; this case's intent: {intent}"
    return None


def _plain(text: str) -> str:
    """Case- and accent-insensitive form of a text, for phrase checks."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(ch for ch in decomposed if not unicodedata.combining(ch)).split())


def _oracle(check: OracleCheck, dim: RubricDimension, oracle: OracleResult) -> _Decided | None:
    wanted = set(check.functions)
    relevant = [
        v
        for v in oracle.verdicts
        if v.verdict in ("supported", "contradicted") and {e.source for e in v.evidence} & wanted
    ]
    if not relevant:
        return None
    wrong = [v for v in relevant if v.verdict == "contradicted"]
    details = {
        "claims": [v.claim_id for v in relevant],
        "contradicted": [v.claim_id for v in wrong],
    }
    if wrong:
        reason = "; ".join(f"{v.claim_id}: {v.reason}" for v in wrong)
        return _Decided(
            dim.scale.min, f"contradicted by the live data: {reason}", "oracle", details
        )
    reason = "; ".join(f"{v.claim_id}: {v.reason}" for v in relevant)
    return _Decided(dim.scale.max, f"supported by the live data: {reason}", "oracle", details)


def _tool_arguments(
    check: ToolArgumentsCheck, dim: RubricDimension, payload: ChatPayload
) -> _Decided | None:
    calls = [c for c in payload.tool_calls if c.name == check.tool]
    if not calls:
        return None
    missing = sorted(
        {
            arg
            for call in calls
            for arg in check.required
            if call.arguments.get(arg) in (None, "", [], {})
        }
    )
    details = {"tool": check.tool, "calls": len(calls), "missing": missing}
    if missing:
        reason = f"{check.tool} was called without {', '.join(missing)}"
        return _Decided(dim.scale.min, reason, "tool_arguments", details)
    reason = f"{check.tool} was called with every required argument ({', '.join(check.required)})"
    return _Decided(dim.scale.max, reason, "tool_arguments", details)


def _mentions(check: MentionsCheck, dim: RubricDimension, answer: str) -> _Decided:
    text = _plain(answer)
    found = [p for p in check.any if _plain(p) in text]
    if found:
        return _Decided(dim.scale.max, f"the answer says '{found[0]}'", "mentions", {})
    phrases = " / ".join(f"'{p}'" for p in check.any)
    return _Decided(dim.scale.min, f"the answer never says {phrases}", "mentions", {})


def _decide(dim: RubricDimension, payload: ChatPayload, oracle: OracleResult) -> _Decided | None:
    check = dim.check
    if isinstance(check, OracleCheck):
        return _oracle(check, dim, oracle)
    if isinstance(check, ToolArgumentsCheck):
        return _tool_arguments(check, dim, payload)
    if isinstance(check, MentionsCheck):
        return _mentions(check, dim, payload.answer)
    return None


def _found(dim: RubricDimension, payload: ChatPayload, oracle: OracleResult) -> bool:
    """Does the answer hold what the check is about: a claim the oracle checked against its
    functions, a call of its tool? A ``mentions`` check decides every answer, so it never says."""
    if isinstance(dim.check, OracleCheck | ToolArgumentsCheck):
        return _decide(dim, payload, oracle) is not None
    return False


def _result(
    dim: RubricDimension,
    raw: float,
    reason: str,
    method: str,
    details: dict[str, Any],
) -> DimensionResult:
    return DimensionResult(
        name=dim.key,
        state="scored",
        score=dim.normalised(raw),
        raw_score=raw,
        method=method,
        reason=reason,
        details={"scale": [dim.scale.min, dim.scale.max], **details},
    )


def _dimensions_text(rubric: Rubric, dims: Sequence[RubricDimension]) -> str:
    return "\n".join(
        f"- {d.name} ({d.scale.min}–{d.scale.max}): {d.question}"
        for d in rubric.dimensions
        if d in dims
    )


def _tool_calls_text(payload: ChatPayload) -> str:
    if not payload.tool_calls:
        return "(none)"
    calls = "\n".join(f"{c.name}({short_json(c.arguments)})" for c in payload.tool_calls)
    return fence(calls, "tool_calls")


def _verdicts_text(oracle: OracleResult) -> str:
    if not oracle.verdicts:
        return "(none: no figure of the answer was checked)"
    return "\n".join(f"- {v.claim_id}: {v.verdict} — {v.reason}" for v in oracle.verdicts)


def _usage(call: JudgeCall) -> dict[str, Any]:
    return {f.name: getattr(call, f.name) for f in fields(call) if f.name not in ("data", "model")}


def _judged(
    rubric: Rubric,
    dims: Sequence[RubricDimension],
    client: JudgeClient,
    call: JudgeCall,
) -> dict[str, DimensionResult]:
    """The judge's reply, validated against the rubric's model, as one result per dimension."""
    model = rubric.model_for(dims)
    try:
        reply = model.model_validate(call.data)
    except pydantic.ValidationError as exc:
        reason = f"the judge's reply does not fit the rubric: {exc.errors()[0]['msg']}"
        return {d.key: _error(d, client, reason) for d in dims}
    data = reply.model_dump(by_alias=True)
    out = {}
    for dim in dims:
        item_model = type(getattr(reply, _attribute(model, dim.name)))
        names = item_fields(item_model)
        item = data.get(dim.name)
        if names is None or not isinstance(item, dict):
            out[dim.key] = _error(dim, client, "the judge gave no score for this dimension")
            continue
        raw, justification = item[names[0]], str(item[names[1]])
        if not dim.scale.min <= raw <= dim.scale.max or raw != int(raw):
            reason = f"the judge's score {raw} is not an integer from {dim.scale.min} to "
            out[dim.key] = _error(dim, client, reason + f"{dim.scale.max}")
            continue
        out[dim.key] = _result(dim, int(raw), justification, client.method, _usage(call))
    return out


def _attribute(model: type[pydantic.BaseModel], name: str) -> str:
    """The Python attribute of the field a reply names ``name`` (built models alias it)."""
    return next(
        (attr for attr, info in model.model_fields.items() if (info.alias or attr) == name), name
    )


def _error(dim: RubricDimension, client: JudgeClient | None, reason: str) -> DimensionResult:
    return DimensionResult(
        name=dim.key,
        state="error",
        method=client.method if client else "none",
        reason=reason,
        details={"scale": [dim.scale.min, dim.scale.max]},
    )


def _skipped(dim: RubricDimension, reason: str) -> DimensionResult:
    return DimensionResult(name=dim.key, state="skipped", method="none", reason=reason)


def rubric_dimensions(
    rubric: Rubric,
    case: GoldenCase,
    payload: ChatPayload,
    oracle: OracleResult,
    *,
    judge: JudgeClient | None,
    intent: str | None = None,
    use_cache: bool = True,
) -> dict[str, DimensionResult]:
    """Every dimension of ``rubric`` for one answer; ``intent`` is what ``applies_when`` reads
    (the case's expected intent, or a logged conversation's routed one)."""
    out: dict[str, DimensionResult] = {}
    ask: list[RubricDimension] = []
    for dim in rubric.dimensions:
        reason = not_applicable(dim, case, intent, found=_found(dim, payload, oracle))
        if reason:
            out[dim.key] = _skipped(dim, reason)
        elif payload.status == "error":
            out[dim.key] = _error(dim, None, "no complete answer to judge")
        elif not payload.answer.strip():
            out[dim.key] = _result(dim, dim.scale.min, "empty answer", "none", {})
        elif decided := _decide(dim, payload, oracle):
            out[dim.key] = _result(
                dim, decided.raw, decided.reason, decided.method, decided.details
            )
        else:
            ask.append(dim)
    if ask and judge is None:
        out.update({d.key: _skipped(d, "no LLM judge configured") for d in ask})
    elif ask and judge is not None:
        out.update(_ask(rubric, ask, case, payload, oracle, judge, use_cache))
    return {d.key: out[d.key] for d in rubric.dimensions}


def _ask(
    rubric: Rubric,
    dims: Sequence[RubricDimension],
    case: GoldenCase,
    payload: ChatPayload,
    oracle: OracleResult,
    client: JudgeClient,
    use_cache: bool,
) -> dict[str, DimensionResult]:
    prompt = load_rubric_prompt()
    model = rubric.model_for(dims)
    schema = model.model_json_schema()
    messages = [
        {
            "role": "system",
            "content": prompt.system.substitute(
                schema=json.dumps(schema, indent=1, ensure_ascii=False),
                instructions=rubric.spec.instructions or rubric.spec.description,
            ),
        },
        {
            "role": "user",
            "content": prompt.user.substitute(
                dimensions=_dimensions_text(rubric, dims),
                question=fence(case.question, "question"),
                context=fence(case.context or "(none)", "context"),
                tool_calls=_tool_calls_text(payload),
                verdicts=_verdicts_text(oracle),
                answer=fence(payload.answer, "answer"),
            ),
        },
    ]
    try:
        call = client.judge(
            messages,
            schema=schema,
            schema_name="rubric_judgement",
            prompt_version=f"{prompt.version}+{rubric.digest[:12]}",
            case_id=case.id,
            dimension="rubric",
            use_cache=use_cache,
        )
    except JudgeError as exc:
        return {d.key: _error(d, client, f"{type(exc).__name__}: {exc}") for d in dims}
    return _judged(rubric, dims, client, call)
