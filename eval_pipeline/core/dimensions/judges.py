"""The LLM-judged dimensions: content quality, on-topic relevance and schema-aware grounding.

Each judge is a versioned prompt file under ``eval_pipeline/prompts`` plus a pydantic rubric whose
``model_json_schema()`` is both shown to the model and enforced on its reply. The prompts hold no
domain word: the domain reaches a judge only as a compact markdown summary of the BKG and as the
case's evaluation criteria. Everything the chatbot wrote is fenced as data, with a fence the text
cannot close, and the judge is told to ignore instructions inside fences — an answer cannot talk
its way to a better score.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from statistics import fmean
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from eval_pipeline.core.llm.client import JudgeCall, JudgeClient, JudgeError
from eval_pipeline.core.llm.prompts import Prompt, load_prompt_file
from eval_pipeline.core.models import (
    BKG,
    DimensionResult,
    EvaluationCriteria,
    Function,
    GoldenCase,
    Verdict,
)

PROMPT_FILES: dict[str, str] = {
    "content_quality": "content_quality.v1",
    "on_topic": "on_topic.v1",
    "bkg": "bkg.v1",
}
_MAX_EVIDENCE_VALUE = 300


# --------------------------------------------------------------------------- rubrics


class _Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AxisScore(_Rubric):
    score: float = Field(ge=0, le=1, description="0 = fails this axis entirely, 1 = fully meets it")
    reason: str = Field(description="One sentence citing the evidence for the score")


class ContentQualityRubric(_Rubric):
    correctness: AxisScore = Field(description="Are the figures, names and conclusions right?")
    completeness: AxisScore = Field(description="Does it address every part of the question?")
    grounding: AxisScore = Field(description="Is every statement supported by the evidence?")
    unforgivable_violations: list[str] = Field(
        description="Items of the unforgivable list that the answer commits; empty if none"
    )
    summary: str = Field(description="Two sentences at most")


class OnTopicRubric(_Rubric):
    relevance: AxisScore = Field(description="Does the answer speak to what was asked?")
    adherence: AxisScore = Field(description="Does it respect the question's scope and form?")
    summary: str = Field(description="Two sentences at most")


class BkgRubric(_Rubric):
    entity_grounding: AxisScore = Field(
        description="Do the entities and terms used exist in the data description?"
    )
    schema_fit: AxisScore = Field(
        description="Do the queries read the right tables and columns for the question?"
    )
    unknown_entities: list[str] = Field(
        description="Tables, columns, metrics or terms used but not defined; empty if none"
    )
    summary: str = Field(description="Two sentences at most")


RubricT = TypeVar("RubricT", bound=_Rubric)


# --------------------------------------------------------------------------- prompts


def load_prompt(name: str) -> Prompt:
    return load_prompt_file(PROMPT_FILES[name], name)


def prompt_versions() -> dict[str, str]:
    """Version of every judge prompt: a code version for whatever a changed prompt must re-score."""
    return {name: load_prompt(name).version for name in PROMPT_FILES}


def fence(text: str, label: str) -> str:
    """A code fence longer than any backtick run inside ``text``, so the text cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{label}\n{text}\n{ticks}"


def rubric_messages(prompt: Prompt, rubric: type[BaseModel], **values: str) -> list[dict[str, str]]:
    """The system message showing the reply's JSON Schema, and the user message filled in."""
    schema = json.dumps(rubric.model_json_schema(), indent=1)
    return [
        {"role": "system", "content": prompt.system.substitute(schema=schema)},
        {"role": "user", "content": prompt.user.substitute(**values)},
    ]


def _ask(
    client: JudgeClient,
    name: str,
    rubric: type[RubricT],
    *,
    case_id: str,
    use_cache: bool,
    **values: str,
) -> tuple[JudgeCall, RubricT]:
    """One call of the judge ``name``; its reply is validated against ``rubric``."""
    prompt = load_prompt(name)
    call = client.judge(
        rubric_messages(prompt, rubric, **values),
        schema=rubric.model_json_schema(),
        schema_name=f"{name}_judgement",
        prompt_version=prompt.version,
        case_id=case_id,
        dimension=name,
        use_cache=use_cache,
    )
    return call, rubric.model_validate(call.data)


# --------------------------------------------------------------------------- BKG summary


def _signature(fn: Function) -> str:
    params = ", ".join(f"{p.name}: {p.type}" for p in fn.params)
    unit = f" [{fn.unit}]" if fn.unit else ""
    return f"- `{fn.name}({params})`{unit}: {fn.description} Reads: {', '.join(fn.tables)}."


def bkg_summary(bkg: BKG, tables: Sequence[str] | None = None) -> str:
    """Compact markdown of the BKG for a judge prompt, restricted to ``tables`` when given.

    With a restriction, only relationships touching those tables and functions reading them
    are kept; the glossary always is, since terms cut across tables.
    """
    wanted = None if tables is None else {t.split(".")[-1].lower() for t in tables}

    def kept(name: str) -> bool:
        return wanted is None or name.split(".")[-1].lower() in wanted

    lines = [f"# {bkg.name}"]
    if bkg.description:
        lines.append(bkg.description)
    lines.append("\n## Tables")
    for table in bkg.tables:
        if not kept(table.name):
            continue
        key = ", ".join(table.primary_key)
        lines.append(f"\n### {table.name}\n{table.description} Primary key: {key}.")
        lines.extend(f"- {c.name} ({c.type}): {c.description}" for c in table.columns)
    relationships = [
        r for r in bkg.relationships if kept(r.from_.split(".")[0]) or kept(r.to.split(".")[0])
    ]
    if relationships:
        lines.append("\n## Relationships")
        lines.extend(
            f"- {r.from_} → {r.to} ({r.type})" + (f": {r.description}" if r.description else "")
            for r in relationships
        )
    for title, functions in (
        ("Metrics", bkg.kpis),
        ("Decisions", bkg.decisions),
        ("Core rules", bkg.core_nodes),
    ):
        chosen = [f for f in functions if any(kept(t) for t in f.tables)]
        if chosen:
            lines.append(f"\n## {title}")
            lines.extend(_signature(f) for f in chosen)
    if bkg.glossary:
        lines.append("\n## Glossary")
        lines.extend(f"- {g.term}: {g.definition}" for g in bkg.glossary)
    return "\n".join(lines)


# --------------------------------------------------------------------------- rendering


def _criteria(criteria: EvaluationCriteria) -> str:
    sections = (
        ("Unforgivable (any one makes correctness 0)", criteria.unforgivable),
        ("Acceptable (never a defect)", criteria.acceptable),
        ("Partial credit", criteria.partial_credit),
    )
    out = []
    for title, items in sections:
        out.append(f"{title}:")
        out.extend(f"- {item}" for item in items or ["(none)"])
    return "\n".join(out)


def short_json(value: Any, limit: int = _MAX_EVIDENCE_VALUE) -> str:
    """``value`` as JSON text, cut at ``limit`` characters."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def _verdicts(verdicts: Sequence[Verdict]) -> str:
    if not verdicts:
        return "(none: no figure of the answer was checked)"
    lines = []
    for v in verdicts:
        evidence = "; ".join(
            f"{e.kind} {e.source}({short_json(e.params)}) = {short_json(e.value)}"
            for e in v.evidence
        )
        suffix = f" [{evidence}]" if evidence else ""
        lines.append(f"- {v.claim_id}: {v.verdict} — {v.reason}{suffix}")
    return "\n".join(lines)


def _usage(call: JudgeCall) -> dict[str, Any]:
    """How the call went and what it cost: every field of the call but its reply and model."""
    return {f.name: getattr(call, f.name) for f in fields(call) if f.name not in ("data", "model")}


@dataclass(frozen=True)
class JudgedScore:
    """A judge's part of a dimension that another module combines with its own checks."""

    score: float
    reason: str
    details: dict[str, Any]


def _judged(
    call: JudgeCall, summary: str, axes: dict[str, AxisScore], **details: Any
) -> JudgedScore:
    """The mean of the rubric axes, with each axis's score and reason."""
    parts = "; ".join(f"{name} {axis.score:.2f}: {axis.reason}" for name, axis in axes.items())
    return JudgedScore(
        score=round(fmean(a.score for a in axes.values()), 4),
        reason=f"{summary} ({parts})",
        details={
            "axes": {axis: a.score for axis, a in axes.items()},
            "axis_reasons": {axis: a.reason for axis, a in axes.items()},
            **details,
            **_usage(call),
        },
    )


def _scored(
    name: str,
    client: JudgeClient,
    call: JudgeCall,
    summary: str,
    axes: dict[str, AxisScore],
    **details: Any,
) -> DimensionResult:
    """A judged dimension: the mean of its rubric axes, with each axis's score and reason."""
    judged = _judged(call, summary, axes, **details)
    return DimensionResult(
        name=name,
        state="scored",
        score=judged.score,
        method=client.method,
        reason=judged.reason,
        details=judged.details,
    )


def _error(name: str, client: JudgeClient, exc: JudgeError) -> DimensionResult:
    return DimensionResult(
        name=name,
        state="error",
        method=client.method,
        reason=f"{type(exc).__name__}: {exc}",
        details={"prompt_version": load_prompt(name).version},
    )


def _empty(name: str, client: JudgeClient) -> DimensionResult:
    return DimensionResult(
        name=name, state="scored", score=0.0, method=client.method, reason="empty answer"
    )


# --------------------------------------------------------------------------- judges


def content_quality_dimension(
    client: JudgeClient,
    case: GoldenCase,
    answer: str,
    verdicts: Sequence[Verdict],
    bkg: BKG,
    *,
    use_cache: bool = True,
) -> DimensionResult:
    """Correctness, completeness and grounding against the case rubric; score = their mean.

    A committed unforgivable item forces correctness to 0 even if the judge scored it higher,
    so an inconsistent judgement cannot pass a case the rubric fails.
    """
    if not answer.strip():
        return _empty("content_quality", client)
    try:
        call, rubric = _ask(
            client,
            "content_quality",
            ContentQualityRubric,
            case_id=case.id,
            use_cache=use_cache,
            data_description=bkg_summary(bkg),
            question=fence(case.question, "question"),
            context=fence(case.context or "(none)", "context"),
            expected_answer=fence(
                case.expected_answer if case.has_expected_answer else "(none)", "expected"
            ),
            criteria=_criteria(case.evaluation_criteria),
            verdicts=_verdicts(verdicts),
            answer=fence(answer, "answer"),
        )
    except JudgeError as exc:
        return _error("content_quality", client, exc)
    correctness = rubric.correctness
    if rubric.unforgivable_violations and correctness.score > 0:
        correctness = AxisScore(
            score=0.0, reason=f"unforgivable: {'; '.join(rubric.unforgivable_violations)}"
        )
    axes = {
        "correctness": correctness,
        "completeness": rubric.completeness,
        "grounding": rubric.grounding,
    }
    return _scored(
        "content_quality",
        client,
        call,
        rubric.summary,
        axes,
        judge_correctness=rubric.correctness.score,
        unforgivable_violations=rubric.unforgivable_violations,
    )


def on_topic_llm_dimension(
    client: JudgeClient,
    question: str,
    answer: str,
    *,
    case_id: str = "",
    use_cache: bool = True,
) -> DimensionResult:
    """Relevance and adherence of the answer to the question; score = their mean."""
    if not answer.strip():
        return _empty("on_topic", client)
    try:
        call, rubric = _ask(
            client,
            "on_topic",
            OnTopicRubric,
            case_id=case_id,
            use_cache=use_cache,
            question=fence(question, "question"),
            answer=fence(answer, "answer"),
        )
    except JudgeError as exc:
        return _error("on_topic", client, exc)
    axes = {"relevance": rubric.relevance, "adherence": rubric.adherence}
    return _scored("on_topic", client, call, rubric.summary, axes)


def bkg_judge_score(
    client: JudgeClient,
    question: str,
    answer: str,
    sql: Sequence[str],
    bkg: BKG,
    top_tables: Sequence[str],
    *,
    case_id: str = "",
    use_cache: bool = True,
) -> JudgedScore:
    """The schema-aware judge part (weight 0.6) of the ``bkg`` dimension over the top-K tables.

    Raises ``JudgeError``: the caller owns the dimension and turns it into its ``error`` state.
    """
    queries = "\n\n".join(fence(s, "sql") for s in sql) if sql else "(no query was run)"
    call, rubric = _ask(
        client,
        "bkg",
        BkgRubric,
        case_id=case_id,
        use_cache=use_cache,
        data_description=bkg_summary(bkg, top_tables),
        question=fence(question, "question"),
        sql=queries,
        answer=fence(answer or "(empty)", "answer"),
    )
    axes = {"entity_grounding": rubric.entity_grounding, "schema_fit": rubric.schema_fit}
    return _judged(
        call,
        rubric.summary,
        axes,
        unknown_entities=rubric.unknown_entities,
        tables=list(top_tables),
        method=client.method,
    )
