"""The oracle's LLM path: an LLM writes the claim contract, a tool-calling agent verifies it.

Pass 1 asks the model for every claim of the answer (numeric or not) as verbatim passages,
validated against a JSON Schema, then locates each passage in the answer and merges in the
deterministic extractor's claims the model missed. A claim whose passage cannot be found stays in
the contract with span ``(-1, -1)`` (claims never vanish) and is ruled unverifiable without being
sent to the verifier: the answer may not say it, and a claim it does not make must not count
against it.

Pass 2 is an OpenAI tool-calling loop. Trusted BKG functions run in-process through
``BKGRuntime``; model-written SQL runs read-only and model-written Python in the sandbox. Every
call is logged under an evidence id the system assigns, and the log is trusted over the model:
a supported or contradicted verdict must cite successful calls from it, otherwise it is flagged
"unsupported by the tool log" and downgraded to unverifiable. Steps and tokens are bounded; a
claim left without a verdict is unverifiable and counted, never dropped.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval_pipeline.core.claims.layout import overlaps
from eval_pipeline.core.dimensions.judges import fence, rubric_messages, short_json
from eval_pipeline.core.llm.client import JudgeClient, JudgeError, first_message
from eval_pipeline.core.llm.prompts import Prompt, load_prompt_file
from eval_pipeline.core.models import (
    FUNCTION_KINDS,
    ChatPayload,
    Claim,
    ClaimContract,
    Evidence,
    GoldenCase,
    OracleResult,
    Unit,
    Verdict,
)
from eval_pipeline.core.tracing.calls import traced_tool
from eval_pipeline.core.warehouse.bkg_runtime import (
    BKGRuntime,
    describe_error,
    json_shape,
    with_defaults,
)
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.core.warehouse.readonly_sql import compare_tool_result, execute_readonly_sql
from eval_pipeline.core.warehouse.sandbox import execute_python

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessage

log = logging.getLogger(__name__)

PROMPT_FILES: dict[str, str] = {
    "claim_contract": "claim_contract.v1",
    "verifier": "verifier.v1",
}
DIMENSION = "oracle"
UNLOCATED: tuple[int, int] = (-1, -1)
DEFAULT_MAX_STEPS = 12
DEFAULT_MAX_TOKENS = 60_000
_MAX_ROWS = 50
_MAX_TOOL_CHARS = 6000
_MAX_SUMMARY = 300
_NUDGES = 1

DROPPED = "dropped by verifier"
EXHAUSTED = "verifier budget exhausted"
NOT_IN_ANSWER = "claim text not found in the answer; not held against it"
UNSUPPORTED = "unsupported by the tool log"


# --------------------------------------------------------------------------- prompts


def load_oracle_prompt(name: str) -> Prompt:
    return load_prompt_file(PROMPT_FILES[name], name)


def oracle_prompt_versions() -> dict[str, str]:
    """Version of each oracle prompt, for whatever a changed prompt must re-verify."""
    return {f"oracle_{name}": load_oracle_prompt(name).version for name in PROMPT_FILES}


# --------------------------------------------------------------------------- pass 1: contract


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ContractClaim(_Strict):
    id: str = Field(pattern=r"^C[0-9]+$", description="C1, C2, … in order of appearance")
    text: str = Field(min_length=1, description="The claim's passage, copied verbatim")
    kind: Literal["numeric", "ranking", "comparison", "existence", "other"]
    value: float | None = Field(description="The figure as written, or null")
    unit: Unit | None = Field(description="The figure's unit, or null")
    entity: str | None = Field(description="What the claim is stated for, or null")


class ContractReply(_Strict):
    claims: list[ContractClaim] = Field(description="Every claim of the answer; empty if none")


def _occurrences(answer: str, text: str) -> list[tuple[int, int]]:
    """Where ``text`` occurs in ``answer``: exactly, else ignoring case, spacing and quotes."""
    exact = [(m.start(), m.start() + len(text)) for m in re.finditer(re.escape(text), answer)]
    if exact:
        return exact
    words = text.strip().strip("\"'“”‘’").rstrip(".").split()
    if not words:
        return []
    pattern = r"\s+".join(re.escape(word) for word in words)
    return [m.span() for m in re.finditer(pattern, answer, re.IGNORECASE)]


def locate_spans(answer: str, texts: Sequence[str]) -> list[tuple[int, int]]:
    """A span for each text in order: the first free occurrence after the previous text, else
    the first free one anywhere, else any; ``UNLOCATED`` when the answer does not hold it."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for text in texts:
        found = _occurrences(answer, text)
        free = [s for s in found if s not in spans]
        after = [s for s in free if s[0] >= cursor]
        chosen = (after or free or found or [UNLOCATED])[0]
        spans.append(chosen)
        if chosen != UNLOCATED:
            cursor = chosen[1]
    return spans


_PARSED = ("kind", "value", "unit", "precision", "hedged", "bound", "direction")


def _with_parse(claim: Claim, parsed: Sequence[Claim]) -> Claim:
    """An LLM claim holding exactly one parsed figure takes the parser's reading of it (value,
    unit, stated precision, hedge, bound, direction), which the comparisons rely on."""
    inside = [p for p in parsed if overlaps(p.span, [claim.span])]
    if claim.span == UNLOCATED or len(inside) != 1:
        return claim
    update: dict[str, Any] = {name: getattr(inside[0], name) for name in _PARSED}
    update["entity"] = claim.entity or inside[0].entity
    return claim.model_copy(update=update)


def merge_contract(
    case_id: str, answer: str, reply: ContractReply, deterministic: ClaimContract
) -> ClaimContract:
    """The model's claims located in the answer (with the parser's reading of the figure they
    hold) plus every deterministic claim none of them covers, in answer order (unlocated ones
    last), renumbered C1…Cn."""
    spans = locate_spans(answer, [c.text for c in reply.claims])
    llm = [
        Claim(
            id="",
            text=c.text,
            span=span,
            value=c.value,
            unit=c.unit,
            entity=c.entity,
            kind=c.kind,
            source="llm",
        )
        for c, span in zip(reply.claims, spans, strict=True)
    ]
    llm = [_with_parse(c, deterministic.claims) for c in llm]
    covered = [c.span for c in llm if c.span != UNLOCATED]
    added = [c for c in deterministic.claims if not overlaps(c.span, covered)]
    located = sorted([*(c for c in llm if c.span != UNLOCATED), *added], key=lambda c: c.span)
    ordered = [*located, *(c for c in llm if c.span == UNLOCATED)]
    claims = [c.model_copy(update={"id": f"C{i}"}) for i, c in enumerate(ordered, start=1)]
    return ClaimContract(case_id=case_id, claims=claims, method="llm+deterministic")


def llm_claim_contract(
    client: JudgeClient,
    case: GoldenCase,
    answer: str,
    deterministic: ClaimContract,
    *,
    use_cache: bool = True,
) -> ClaimContract:
    """Pass 1 (see the module docstring). Raises ``JudgeError`` when the model gives no valid
    contract; the caller then keeps ``deterministic``."""
    if not answer.strip():
        return deterministic.model_copy(update={"method": "llm+deterministic"})
    prompt = load_oracle_prompt("claim_contract")
    call = client.judge(
        rubric_messages(
            prompt,
            ContractReply,
            question=fence(case.question, "question"),
            answer=fence(answer, "answer"),
        ),
        schema=ContractReply.model_json_schema(),
        schema_name="claim_contract",
        prompt_version=prompt.version,
        case_id=case.id,
        dimension=DIMENSION,
        use_cache=use_cache,
    )
    reply = ContractReply.model_validate(call.data)
    return merge_contract(case.id, answer, reply, deterministic)


# --------------------------------------------------------------------------- pass 2: tools


class _FunctionArgs(_Strict):
    name: str = Field(description="The function's name, as listed by list_kpis")
    params: dict[str, Any] = Field(default_factory=dict, description="Its declared params")


class _NoArgs(_Strict):
    pass


class _ToolResultArgs(_Strict):
    call_id: str = Field(description="Id of one of the assistant's own query calls")


class _SqlArgs(_Strict):
    sql: str = Field(description="One read-only SELECT or WITH query")


class _PythonArgs(_Strict):
    code: str = Field(description="Python that reads `inputs` and assigns `result`")
    inputs: dict[str, Any] = Field(default_factory=dict, description="JSON values for the code")


class _VerdictArgs(_Strict):
    claim_id: str = Field(description="C1, C2, …")
    verdict: Literal["supported", "contradicted", "unverifiable"]
    reason: str = Field(description="One sentence: which value decided it")
    evidence: list[str] = Field(
        default_factory=list, description="Evidence ids of the tool results the verdict rests on"
    )


_TOOL_ARGS: dict[str, tuple[type[_Strict], str]] = {
    "list_kpis": (_NoArgs, "List the metrics, decisions and core rules, their params and units."),
    "call_kpi": (_FunctionArgs, "Run a metric's reference definition on the live data."),
    "call_decision": (_FunctionArgs, "Run a decision rule's definition on the live data."),
    "call_core_node": (_FunctionArgs, "Run a core rule's definition on the live data."),
    "verify_tool_result": (
        _ToolResultArgs,
        "Re-run one of the assistant's queries read-only and compare the rows it reported.",
    ),
    "execute_sql": (_SqlArgs, f"Run one read-only query; at most {_MAX_ROWS} rows come back."),
    "execute_python": (_PythonArgs, "Run a short computation in a sandbox."),
    "submit_verdict": (_VerdictArgs, "Record the verdict of one claim."),
}
_FUNCTION_TOOLS: dict[str, str] = {f"call_{kind}": kind for kind in FUNCTION_KINDS}


def tool_definitions() -> list[dict[str, Any]]:
    """The verifier's tools in the OpenAI ``tools`` format."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": model.model_json_schema(),
            },
        }
        for name, (model, description) in _TOOL_ARGS.items()
    ]


class ToolCallRecord(BaseModel):
    """One tool call the verifier really made, as the system ran it."""

    id: str = Field(description="Evidence id assigned by the system (T1, T2, …)")
    provider_id: str = ""
    step: int
    name: str
    arguments: dict[str, Any] | str
    ok: bool
    summary: str


class AgentLog(BaseModel):
    """What the verifier agent really did; the counts go to the run summary."""

    model: str
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: Literal[
        "complete", "model_stopped", "max_steps", "max_tokens", "endpoint_error"
    ] = "complete"
    calls: list[ToolCallRecord] = Field(default_factory=list)
    claim_calls: dict[str, list[str]] = Field(
        default_factory=dict, description="Claim id → evidence ids its verdict rests on."
    )
    tool_errors: int = 0
    dropped: list[str] = Field(default_factory=list)
    fabricated: list[str] = Field(default_factory=list)
    exhausted: list[str] = Field(default_factory=list)
    unlocated: list[str] = Field(default_factory=list)
    error: str | None = None

    def counts(self) -> dict[str, int]:
        return {
            "steps": self.steps,
            "tool_calls": len(self.calls),
            "tool_errors": self.tool_errors,
            "dropped": len(self.dropped),
            "fabricated": len(self.fabricated),
            "exhausted": len(self.exhausted),
            "unlocated": len(self.unlocated),
        }


@dataclass
class _Outcome:
    """A tool's answer: what the model reads, and the evidence when the call succeeded."""

    content: dict[str, Any]
    evidence: Evidence | None = None

    @property
    def ok(self) -> bool:
        return "error" not in self.content


def _error(message: str) -> _Outcome:
    return _Outcome({"error": message})


def _capped(value: Any) -> Any:
    """A table value cut to its first rows, so one call cannot flood the conversation."""
    if isinstance(value, dict) and isinstance(value.get("rows"), list):
        rows = value["rows"]
        if len(rows) > _MAX_ROWS:
            return {**value, "rows": rows[:_MAX_ROWS], "rows_total": len(rows)}
    return value


def _reported_rows(content: Any) -> list[Any] | None:
    if isinstance(content, Mapping) and isinstance(content.get("rows"), list):
        return list(content["rows"])
    if isinstance(content, list):
        return content
    return None


class _Toolbox:
    """Runs the verifier's tools against the live data; every call is logged by the caller."""

    def __init__(self, runtime: BKGRuntime, db: Database, payload: ChatPayload) -> None:
        self.runtime = runtime
        self.db = db
        self.payload = payload
        self.handlers: dict[str, Callable[[Any], _Outcome]] = {
            "list_kpis": self.list_kpis,
            "verify_tool_result": self.verify_tool_result,
            "execute_sql": self.execute_sql,
            "execute_python": self.execute_python,
        }

    def run(self, name: str, args: _Strict) -> _Outcome:
        kind = _FUNCTION_TOOLS.get(name)
        if kind is not None:
            assert isinstance(args, _FunctionArgs)
            return self.call_function(kind, args)
        return self.handlers[name](args)

    def list_kpis(self, _args: _NoArgs) -> _Outcome:
        bkg = self.runtime.bkg
        listed = [
            {
                "tool": f"call_{kind}",
                "name": fn.name,
                "description": fn.description,
                "unit": fn.unit,
                "returns": fn.returns,
                "column_units": fn.column_units,
                "params": [p.model_dump(exclude_defaults=True) for p in fn.params],
            }
            for kind, attr in FUNCTION_KINDS.items()
            for fn in getattr(bkg, attr)
        ]
        return _Outcome({"functions": listed})

    def call_function(self, kind: str, args: _FunctionArgs) -> _Outcome:
        fn = self.runtime.bkg.function(kind, args.name)
        if fn is None:
            known = [f.name for f in getattr(self.runtime.bkg, FUNCTION_KINDS[kind])]
            return _error(f"no {kind} named {args.name!r} (known: {', '.join(known) or 'none'})")
        try:
            shape, value = json_shape(self.runtime.call(kind, fn.name, self.db, args.params))
        except Exception as exc:  # a failing definition is the tool's answer, not a crash
            return _error(describe_error(exc))
        params = with_defaults(fn, args.params)
        value = _capped(value)
        evidence = Evidence(source=fn.name, kind=kind, params=params, value=value)
        return _Outcome(
            {"shape": shape, "value": value, "unit": fn.unit, "params": params}, evidence
        )

    def verify_tool_result(self, args: _ToolResultArgs) -> _Outcome:
        call = next((c for c in self.payload.tool_calls if c.id == args.call_id), None)
        if call is None or not call.sql:
            known = [c.id for c in self.payload.tool_calls if c.sql]
            return _error(f"no query call {args.call_id!r} (known: {', '.join(known) or 'none'})")
        result = next((r for r in self.payload.tool_results if r.call_id == call.id), None)
        rows = _reported_rows(result.content) if result is not None else None
        if rows is None:
            return _error(f"the assistant reported no rows for {call.id!r}")
        check = compare_tool_result(self.db, call.sql, rows)
        if check.status == "error":
            return _error(f"the query could not be re-run: {check.error}")
        content = {"status": check.status, "diff": check.diff}
        if result is not None and result.row_count is not None and result.row_count > len(rows):
            content["note"] = f"the assistant was shown {len(rows)} of {result.row_count} rows"
        evidence = Evidence(source=call.id, kind="tool_result", sql=call.sql, value=content)
        return _Outcome(content, evidence)

    def execute_sql(self, args: _SqlArgs) -> _Outcome:
        run = execute_readonly_sql(self.db, args.sql, max_rows=_MAX_ROWS)
        if not run.ok:
            return _error(run.error or "the query failed")
        value = {"columns": run.columns, "rows": run.rows, "truncated": run.truncated}
        evidence = Evidence(source="execute_sql", kind="sql", sql=args.sql, value=value)
        return _Outcome(value, evidence)

    def execute_python(self, args: _PythonArgs) -> _Outcome:
        run = execute_python(args.code, inputs=args.inputs)
        if not run.ok:
            return _error(run.error or "the code failed")
        evidence = Evidence(
            source="execute_python",
            kind="python",
            params={"code": args.code, "inputs": args.inputs},
            value=run.result,
        )
        return _Outcome({"result": run.result, "stdout": run.stdout[:_MAX_SUMMARY]}, evidence)


# --------------------------------------------------------------------------- pass 2: loop


def _references_text(case: GoldenCase) -> str:
    if not case.reference:
        return "(none named)"
    return "\n".join(
        f"- {ref.kind} {fence(ref.target, 'sql') if ref.kind == 'sql' else ref.target}"
        f" with params {json.dumps(ref.params, default=str)}"
        for ref in case.reference
    )


def _queries_text(payload: ChatPayload) -> str:
    queries = [c for c in payload.tool_calls if c.sql]
    if not queries:
        return "(none)"
    return "\n\n".join(f"call id {json.dumps(c.id)}:\n{fence(c.sql or '', 'sql')}" for c in queries)


def _claims_text(claims: Sequence[Claim]) -> str:
    return "\n".join(
        f"- {c.id} ({c.kind}): {json.dumps(c.text, ensure_ascii=False)}" for c in claims
    )


def _verifier_messages(
    case: GoldenCase, payload: ChatPayload, claims: Sequence[Claim]
) -> list[dict[str, Any]]:
    prompt = load_oracle_prompt("verifier")
    return [
        {"role": "system", "content": prompt.system.substitute()},
        {
            "role": "user",
            "content": prompt.user.substitute(
                question=fence(case.question, "question"),
                references=_references_text(case),
                queries=_queries_text(payload),
                claims=_claims_text(claims),
                answer=fence(payload.answer, "answer"),
            ),
        },
    ]


def _parse_args(name: str, raw: str) -> _Strict | str:
    """The validated arguments of a call, or why they are not acceptable."""
    try:
        data = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        return f"the arguments are not valid JSON ({exc})"
    try:
        return _TOOL_ARGS[name][0].model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()
        )
        return f"invalid arguments: {problems}"


class _Verifier:
    """State of one verification loop: the real log, the verdicts, the budget."""

    def __init__(
        self,
        client: JudgeClient,
        case: GoldenCase,
        payload: ChatPayload,
        claims: Sequence[Claim],
        toolbox: _Toolbox,
    ) -> None:
        self.client = client
        self.case = case
        self.claims = {c.id: c for c in claims}
        self.toolbox = toolbox
        self.log = AgentLog(model=client.model)
        self.evidence: dict[str, Evidence] = {}
        self.by_provider_id: dict[str, list[str]] = {}
        self.verdicts: dict[str, Verdict] = {}

    @property
    def pending(self) -> list[str]:
        return [cid for cid in self.claims if cid not in self.verdicts]

    def run(self, max_steps: int, max_tokens: int) -> None:
        messages = _verifier_messages(self.case, self.toolbox.payload, list(self.claims.values()))
        tools = tool_definitions()
        nudges = 0
        while self.pending:
            if self.log.steps >= max_steps:
                self.log.stop_reason = "max_steps"
                return
            if self.log.input_tokens + self.log.output_tokens >= max_tokens:
                self.log.stop_reason = "max_tokens"
                return
            try:
                completion = self.client.chat(
                    messages,
                    tools=tools,
                    tool_choice="auto",
                    case_id=self.case.id,
                    dimension=DIMENSION,
                )
            except JudgeError as exc:
                self.log.stop_reason = "endpoint_error"
                self.log.error = str(exc)
                return
            self.log.steps += 1
            if completion.usage is not None:
                self.log.input_tokens += completion.usage.prompt_tokens
                self.log.output_tokens += completion.usage.completion_tokens
            message = first_message(completion)
            if not message.tool_calls:
                if nudges >= _NUDGES:
                    self.log.stop_reason = "model_stopped"
                    return
                nudges += 1
                messages += [
                    {"role": "assistant", "content": message.content or ""},
                    {"role": "user", "content": self._nudge()},
                ]
                continue
            messages += self._turn(message)
        self.log.stop_reason = "complete"

    def _nudge(self) -> str:
        return (
            f"Claims without a verdict: {', '.join(self.pending)}. Call submit_verdict for each "
            "of them (unverifiable when no tool result settles it)."
        )

    def _turn(self, message: ChatCompletionMessage) -> list[dict[str, Any]]:
        """The assistant message and one tool message per call it made, run in order."""
        calls: list[dict[str, Any]] = []
        replies: list[dict[str, Any]] = []
        for call in message.tool_calls or []:
            if call.type == "function":
                name, raw = call.function.name, call.function.arguments
            else:
                name, raw = call.custom.name, call.custom.input
            calls.append(
                {"id": call.id, "type": "function", "function": {"name": name, "arguments": raw}}
            )
            content = self._dispatch(call.id, name, raw)
            replies.append(
                {"role": "tool", "tool_call_id": call.id, "content": self._render(content)}
            )
        return [{"role": "assistant", "content": message.content, "tool_calls": calls}, *replies]

    @staticmethod
    def _render(content: dict[str, Any]) -> str:
        text = json.dumps(content, default=str, ensure_ascii=False)
        if len(text) > _MAX_TOOL_CHARS:
            return text[:_MAX_TOOL_CHARS] + "… (truncated)"
        return text

    @traced_tool
    def _dispatch(self, provider_id: str, name: str, raw: str) -> dict[str, Any]:
        evidence_id = f"T{len(self.log.calls) + 1}"
        args: _Strict | str
        if name not in _TOOL_ARGS:
            args = f"unknown tool {name!r} (tools: {', '.join(_TOOL_ARGS)})"
        else:
            args = _parse_args(name, raw)
        if isinstance(args, str):
            outcome = _error(args)
        elif isinstance(args, _VerdictArgs):
            outcome = self._submit(args)
        else:
            outcome = self.toolbox.run(name, args)
        if not outcome.ok:
            self.log.tool_errors += 1
        self.log.calls.append(
            ToolCallRecord(
                id=evidence_id,
                provider_id=provider_id,
                step=self.log.steps,
                name=name,
                arguments=args.model_dump() if isinstance(args, _Strict) else raw[:_MAX_SUMMARY],
                ok=outcome.ok,
                summary=short_json(outcome.content, _MAX_SUMMARY),
            )
        )
        self.by_provider_id.setdefault(provider_id, []).append(evidence_id)
        if outcome.evidence is not None:
            self.evidence[evidence_id] = outcome.evidence
        return {"evidence_id": evidence_id, **outcome.content}

    def _resolve(self, cited: str) -> str | None:
        """The evidence id a citation names: ours, or the provider's id of exactly one call."""
        if any(c.id == cited for c in self.log.calls):
            return cited
        ours = self.by_provider_id.get(cited, [])
        return ours[0] if len(ours) == 1 else None

    def _submit(self, args: _VerdictArgs) -> _Outcome:
        claim_id = args.claim_id.strip()
        if claim_id not in self.claims:
            return _error(f"unknown claim {claim_id!r} (claims: {', '.join(self.claims)})")
        if claim_id in self.verdicts:
            return _error(f"{claim_id} already has a verdict")
        resolved = {cited: self._resolve(cited) for cited in args.evidence}
        missing = [cited for cited, ours in resolved.items() if ours is None]
        usable = [ours for ours in resolved.values() if ours is not None and ours in self.evidence]
        problem = None
        if args.verdict != "unverifiable":
            if missing:
                problem = f"cites tool calls that never happened ({', '.join(missing)})"
            elif not usable:
                problem = "no successful tool call backs it"
        if problem is not None:
            self.log.fabricated.append(claim_id)
            reason = f"{UNSUPPORTED}: {problem}; the verifier said {args.verdict}: {args.reason}"
            self.verdicts[claim_id] = Verdict(
                claim_id=claim_id, verdict="unverifiable", reason=reason
            )
            return _Outcome({"recorded": "unverifiable", "note": reason})
        self.log.claim_calls[claim_id] = usable
        self.verdicts[claim_id] = Verdict(
            claim_id=claim_id,
            verdict=args.verdict,
            reason=args.reason,
            evidence=[self.evidence[ours] for ours in usable],
        )
        return _Outcome({"recorded": args.verdict, "pending": self.pending})

    def close(self, claims: Sequence[Claim]) -> list[Verdict]:
        """A verdict for every claim of the contract, in contract order."""
        exhausted = self.log.stop_reason in {"max_steps", "max_tokens"}
        out: list[Verdict] = []
        for claim in claims:
            verdict = self.verdicts.get(claim.id)
            if verdict is None:
                if claim.span == UNLOCATED:
                    self.log.unlocated.append(claim.id)
                    reason = NOT_IN_ANSWER
                elif self.log.error is not None:
                    reason = f"verifier failed: {self.log.error}"
                elif exhausted:
                    self.log.exhausted.append(claim.id)
                    reason = EXHAUSTED
                else:
                    self.log.dropped.append(claim.id)
                    reason = DROPPED
                verdict = Verdict(claim_id=claim.id, verdict="unverifiable", reason=reason)
            out.append(verdict)
        return out


def llm_verify(
    client: JudgeClient,
    case: GoldenCase,
    payload: ChatPayload,
    contract: ClaimContract,
    runtime: BKGRuntime,
    db: Database,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> tuple[list[Verdict], AgentLog]:
    """Pass 2 (see the module docstring): one verdict per contract claim, in order, and the log.

    ``db`` must be a read-only handle (``execute_sql`` refuses otherwise). Endpoint failures end
    the loop with ``AgentLog.error`` set; they are never raised.
    """
    located = [c for c in contract.claims if c.span != UNLOCATED]
    verifier = _Verifier(client, case, payload, located, _Toolbox(runtime, db, payload))
    if located:
        verifier.run(max_steps, max_tokens)
    verdicts = verifier.close(contract.claims)
    if verifier.log.dropped or verifier.log.fabricated:
        log.info(
            "case %s: verifier dropped %s, fabricated %s",
            case.id,
            verifier.log.dropped,
            verifier.log.fabricated,
        )
    return verdicts, verifier.log


def oracle_llm_result(
    client: JudgeClient,
    case: GoldenCase,
    payload: ChatPayload,
    contract: ClaimContract,
    runtime: BKGRuntime,
    db: Database,
) -> OracleResult:
    """The oracle's result through the LLM verifier; ``agent`` holds its log and counts, and an
    endpoint failure sets ``error`` (the dimension is then in error, not silently skipped)."""
    if payload.status == "error":
        return OracleResult(case_id=case.id, error="no complete answer to verify")
    references = [runtime.evaluate(ref, db) for ref in case.reference]
    verdicts, agent = llm_verify(client, case, payload, contract, runtime, db)
    return OracleResult(
        case_id=case.id,
        verdicts=verdicts,
        references=references,
        error=f"LLM verifier failed: {agent.error}" if agent.error else None,
        agent={
            "method": client.method,
            "contract_method": contract.method,
            "prompt_versions": oracle_prompt_versions(),
            "counts": agent.counts(),
            "log": agent.model_dump(mode="json"),
        },
    )
