"""The rubric file's models, and the one pydantic model a judgement is validated against.

A rubric file (YAML or JSON; ``schemas/rubric.schema.json`` is generated from ``RubricFile``)
declares dimensions: the question a judge answers, an integer scale, when it applies, its weight
and whether a low score is a gate. Optionally ``model: "module:Model"`` names the team's own
pydantic model (the seed's ``EvaluacionRica``); then that model's JSON Schema is what the judge
sees, and its fields are the dimensions.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

DIMENSION_PREFIX = "rubric."


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Scale(_Strict):
    """The integer range a judge scores on; 1–5 unless the file says otherwise."""

    min: int = Field(default=1, description="The worst score.")
    max: int = Field(default=5, description="The best score; must be greater than min.")


class AppliesWhen(_Strict):
    """When a dimension is scored; every condition given must hold, one listed value suffices."""

    tags: list[str] = Field(
        default_factory=list, description="The case carries at least one of these tags."
    )
    intents: list[str] = Field(
        default_factory=list,
        description="The case's expected intent (for a logged conversation, the intent the bot "
        "routed it to) is one of these.",
    )


class OracleCheck(_Strict):
    """Decided by the oracle: every verdict on a claim checked against the named BKG functions."""

    kind: Literal["oracle"] = Field(description="The oracle decides.")
    functions: list[str] = Field(
        min_length=1, description="BKG KPIs, decisions or core nodes whose verdicts count."
    )


class ToolArgumentsCheck(_Strict):
    """Decided by the bot's own tool call: when it calls ``tool``, each required argument is set."""

    kind: Literal["tool_arguments"] = Field(description="The bot's tool call decides.")
    tool: str = Field(min_length=1, description="The tool's name, as the bot reports its calls.")
    required: list[str] = Field(
        min_length=1, description="Arguments the call must carry, each non-empty."
    )


class MentionsCheck(_Strict):
    """Decided by the answer's words: it contains at least one of the phrases."""

    kind: Literal["mentions"] = Field(description="The answer's words decide.")
    any: list[str] = Field(min_length=1, description="Phrases, compared ignoring case and accents.")


Check = Annotated[OracleCheck | ToolArgumentsCheck | MentionsCheck, Field(discriminator="kind")]


class RubricDimension(_Strict):
    """One dimension of the rubric, scored as ``rubric.<name>``."""

    name: str = Field(
        pattern=r"^[a-z][a-z0-9_]*$",
        description="Lower-case identifier; the dimension is reported as rubric.<name>.",
    )
    question: str | None = Field(
        default=None,
        min_length=1,
        description="What the judge answers; with a model, the field's description by default.",
    )
    scale: Scale = Field(default_factory=Scale, description="Integer score range (1–5).")
    applies_when: AppliesWhen | None = Field(
        default=None, description="Score only cases meeting this; others are skipped."
    )
    weight: float = Field(
        default=0.1,
        ge=0,
        description="Weight of the normalised score in the overall, beside the weight profile's.",
    )
    gate: bool = Field(default=False, description="A score below pass_score fails the case.")
    pass_score: int | None = Field(
        default=None,
        description="Lowest passing score; default the middle of the scale rounded up.",
    )
    check: Check | None = Field(
        default=None,
        description="A deterministic check deciding the dimension without a judge when it can.",
    )

    @property
    def key(self) -> str:
        return DIMENSION_PREFIX + self.name

    @property
    def passing(self) -> int:
        if self.pass_score is not None:
            return self.pass_score
        return math.ceil((self.scale.min + self.scale.max) / 2)

    def normalised(self, raw: float) -> float:
        span = self.scale.max - self.scale.min
        return round((raw - self.scale.min) / span, 4) if span else 1.0

    @property
    def pass_threshold(self) -> float:
        """``pass_score`` on the normalised [0, 1] scale the gates compare."""
        return self.normalised(self.passing)


class RubricFile(_Strict):
    """A rubric: the dimensions a team scores its assistant's answers on."""

    name: str = Field(min_length=1, description="Name of the rubric.")
    description: str = Field(default="", description="What the rubric is for.")
    instructions: str = Field(
        default="", description="Extra guidance for the judge, shown before the dimensions."
    )
    model: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$",
        description="Optional 'module:Model': a pydantic model whose fields are the dimensions "
        "(each an object with an integer 'score' and a string justification).",
    )
    dimensions: list[RubricDimension] = Field(
        default_factory=list,
        description="The dimensions; with a model, may be omitted (every field is one).",
    )


def published_schema() -> dict[str, Any]:
    """The JSON Schema shipped as ``schemas/rubric.schema.json``."""
    schema = RubricFile.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Rubric",
        **{k: v for k, v in schema.items() if k != "title"},
    }


# --------------------------------------------------------------------------- judgement models


def import_model(reference: str) -> type[BaseModel]:
    """The class ``module:Model`` names; raises ValueError with what is wrong."""
    module_name, _, attribute = reference.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot import {reference!r}: {exc}") from None
    if not (isinstance(target, type) and issubclass(target, BaseModel)):
        raise ValueError(f"{reference!r} is not a pydantic model class")
    return target


def item_fields(item: type[BaseModel]) -> tuple[str, str] | None:
    """The score field and the justification field of a user item model; None if it has none."""
    fields = item.model_fields
    score = fields.get("score")
    if score is None or score.annotation not in (int, float):
        return None
    text = [n for n, f in fields.items() if n != "score" and f.annotation is str]
    return ("score", text[0]) if text else None


def model_dimensions(model: type[BaseModel]) -> dict[str, tuple[type[BaseModel], str]]:
    """Each field of a user model: its item model and its description."""
    out = {}
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            out[info.alias or name] = (annotation, info.description or "")
    return out


@cache
def _item_model(low: int, high: int) -> type[BaseModel]:
    return create_model(
        f"Score{low}to{high}",
        __config__=ConfigDict(extra="forbid"),
        score=(
            int,
            Field(ge=low, le=high, description=f"From {low} (poor) to {high} (excellent)."),
        ),
        justification=(str, Field(description="A short reason for the score.")),
    )


def judgement_model(dimensions: Sequence[RubricDimension], title: str) -> type[BaseModel]:
    """One pydantic model with a field per dimension: its JSON Schema goes into the prompt and
    the reply is validated against it."""
    fields: dict[str, Any] = {
        f"d_{d.name}": (
            _item_model(d.scale.min, d.scale.max),
            Field(alias=d.name, description=d.question or d.name),
        )
        for d in dimensions
    }
    return create_model(title, __config__=ConfigDict(extra="forbid"), **fields)
