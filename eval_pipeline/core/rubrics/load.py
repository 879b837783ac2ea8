"""Read and validate rubric files, reporting every problem with the file and the field.

Layers as for the other inputs: a readable YAML or JSON file, the published JSON Schema (unknown
fields, wrong types), then what a schema cannot say — a scale whose min is not below its max, a
pass score outside the scale, an ``applies_when`` naming a tag or intent no golden case uses, a
check naming an unknown BKG function, a ``model`` that cannot be imported or does not fit.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pydantic
import yaml
from pydantic import BaseModel

from eval_pipeline.core import json_text
from eval_pipeline.core.conversations import CONVERSATION_TAG
from eval_pipeline.core.inputs import schema_problems
from eval_pipeline.core.models import BKG, FUNCTION_KINDS, GoldenCase
from eval_pipeline.core.problems import InputError, Problem
from eval_pipeline.core.rubrics.spec import (
    OracleCheck,
    RubricDimension,
    RubricFile,
    import_model,
    item_fields,
    judgement_model,
    model_dimensions,
)


@dataclass(frozen=True)
class Rubric:
    """A validated rubric: its dimensions with their questions resolved, and the user's model."""

    path: str
    digest: str
    spec: RubricFile
    dimensions: tuple[RubricDimension, ...]
    user_model: type[BaseModel] | None = None

    def dimension(self, key: str) -> RubricDimension | None:
        return next((d for d in self.dimensions if d.key == key), None)

    @cached_property
    def model(self) -> type[BaseModel]:
        """The one pydantic model a judgement of every dimension is validated against."""
        return self.user_model or judgement_model(self.dimensions, _title(self.spec.name))

    def model_for(self, dimensions: Sequence[RubricDimension]) -> type[BaseModel]:
        """The model a judgement of ``dimensions`` (a subset) is validated against: the user's
        own model whole, or one built from the file for exactly these dimensions."""
        if self.user_model is not None or len(dimensions) == len(self.dimensions):
            return self.model
        return judgement_model(dimensions, _title(self.spec.name))


def _title(name: str) -> str:
    words = "".join(ch if ch.isalnum() else " " for ch in name).split()
    return "".join(w[:1].upper() + w[1:] for w in words) + "Judgement" if words else "Judgement"


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _read(path: Path, problems: list[Problem]) -> Any:
    file = str(path)
    if not path.is_file():
        problems.append(Problem(file, "", "file not found"))
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(file, "", f"cannot read file: {exc}"))
        return None
    if path.suffix.lower() == ".json":
        try:
            return json_text.loads(text)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            problems.append(Problem(file, where, f"invalid JSON: {exc.msg}"))
            return None
        except json_text.TooDeep as exc:
            problems.append(Problem(file, "", f"invalid input: {exc}"))
            return None
    too_deep = f"invalid input: YAML nested more than {json_text.MAX_DEPTH} levels deep"
    try:
        data = yaml.safe_load(text)
    except RecursionError:  # the YAML parser recurses as JSON's does
        problems.append(Problem(file, "", too_deep))
        return None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problems.append(Problem(file, where, f"invalid YAML: {getattr(exc, 'problem', exc)}"))
        return None
    if json_text.depth_over(data, json_text.MAX_DEPTH):
        problems.append(Problem(file, "", too_deep))
        return None
    return data


def _dimension_problems(
    file: str,
    dim: RubricDimension,
    *,
    tags: set[str] | None,
    intents: set[str] | None,
    functions: set[str] | None,
) -> list[Problem]:
    where = f"dimensions.{dim.name}"
    out = []
    if dim.scale.min >= dim.scale.max:
        out.append(
            Problem(
                file,
                f"{where}.scale",
                f"min {dim.scale.min} must be less than max {dim.scale.max}",
            )
        )
    elif not dim.scale.min <= dim.passing <= dim.scale.max:
        out.append(
            Problem(
                file,
                f"{where}.pass_score",
                f"{dim.passing} is outside the scale {dim.scale.min}–{dim.scale.max}",
            )
        )
    when = dim.applies_when
    for kind, values, known, what in (
        ("tags", when.tags if when else [], tags, "carries"),
        ("intents", when.intents if when else [], intents, "expects"),
    ):
        if known is None:
            continue
        for i, value in enumerate(values):
            if value not in known:
                hint = _did_you_mean(value, known)
                out.append(
                    Problem(
                        file,
                        f"{where}.applies_when.{kind}[{i}]",
                        f"unknown {kind[:-1]} '{value}': no golden case {what} it{hint}",
                    )
                )
    if isinstance(dim.check, OracleCheck) and functions is not None:
        for i, name in enumerate(dim.check.functions):
            if name not in functions:
                out.append(
                    Problem(
                        file,
                        f"{where}.check.functions[{i}]",
                        f"unknown BKG function '{name}'{_did_you_mean(name, functions)}",
                    )
                )
    return out


def _with_model(
    file: str, spec: RubricFile, dims: list[RubricDimension], problems: list[Problem]
) -> tuple[list[RubricDimension], type[BaseModel] | None]:
    """The dimensions with questions from the user's model, and the model; problems appended."""
    assert spec.model is not None
    try:
        model = import_model(spec.model)
    except ValueError as exc:
        problems.append(Problem(file, "model", str(exc)))
        return dims, None
    fields = model_dimensions(model)
    if not fields:
        problems.append(Problem(file, "model", f"{spec.model} has no field holding a score"))
        return dims, None
    for name, (item, _) in fields.items():
        if item_fields(item) is None:
            problems.append(
                Problem(
                    file,
                    "model",
                    f"{spec.model}.{name}: needs an integer 'score' field and a string field "
                    "for the justification",
                )
            )
    if not spec.dimensions:
        dims = [RubricDimension(name=name) for name in fields]
    resolved = []
    for dim in dims:
        if dim.name not in fields:
            known = _did_you_mean(dim.name, fields)
            problems.append(
                Problem(file, f"dimensions.{dim.name}.name", f"not a field of {spec.model}{known}")
            )
            continue
        question = dim.question or fields[dim.name][1] or dim.name
        resolved.append(dim.model_copy(update={"question": question}))
    missing = sorted(set(fields) - {d.name for d in dims})
    if missing:
        problems.append(
            Problem(file, "dimensions", f"{spec.model} fields without a dimension: {missing}")
        )
    return resolved, model


def check_rubric(
    path: Path,
    *,
    tags: Iterable[str] | None = None,
    intents: Iterable[str] | None = None,
    functions: Iterable[str] | None = None,
) -> tuple[Rubric | None, list[Problem]]:
    """The rubric of ``path`` and every problem found; tags, intents and functions, when given,
    are what ``applies_when`` and checks may name (those of the golden set and the BKG)."""
    path = Path(path)
    file = str(path)
    problems: list[Problem] = []
    raw = _read(path, problems)
    if problems:
        return None, problems
    problems += schema_problems(file, raw, "rubric", {"dimensions": "name"})
    if not isinstance(raw, dict):
        return None, problems or [Problem(file, "", "a rubric is an object (a mapping)")]
    known_tags = None if tags is None else {*tags, CONVERSATION_TAG}
    known_intents = None if intents is None else set(intents)
    known_functions = None if functions is None else set(functions)
    dims: list[RubricDimension] = []
    seen: set[str] = set()
    raw_dims = raw.get("dimensions")
    for item in raw_dims if isinstance(raw_dims, list) else []:
        try:
            dim = RubricDimension.model_validate(item)
        except pydantic.ValidationError:
            continue  # the schema check has reported it
        if dim.name in seen:
            problems.append(Problem(file, f"dimensions.{dim.name}", "duplicate dimension name"))
            continue
        seen.add(dim.name)
        dims.append(dim)
        problems += _dimension_problems(
            file, dim, tags=known_tags, intents=known_intents, functions=known_functions
        )
    if problems:
        return None, problems
    spec = RubricFile.model_validate(raw)
    user_model = None
    if spec.model:
        dims, user_model = _with_model(file, spec, dims, problems)
    elif not dims:
        problems.append(Problem(file, "dimensions", "a rubric needs at least one dimension"))
    problems += [
        Problem(file, f"dimensions.{d.name}.question", "missing required field (no model)")
        for d in dims
        if not d.question
    ]
    if problems:
        return None, problems
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Rubric(file, digest, spec, tuple(dims), user_model), []


def load_rubric(path: Path, **known: Iterable[str] | None) -> Rubric:
    """The validated rubric; InputError lists every problem found."""
    rubric, problems = check_rubric(path, **known)
    if rubric is None:
        raise InputError(problems)
    return rubric


def conflicts(rubrics: Sequence[Rubric]) -> list[Problem]:
    """A dimension defined differently by two rubrics of one evaluation: ``rubric.<name>`` is
    one column of the summary, with one weight and one gate."""
    first: dict[str, tuple[Rubric, RubricDimension]] = {}
    out = []
    for rubric in rubrics:
        for dim in rubric.dimensions:
            other = first.setdefault(dim.name, (rubric, dim))
            rule = ("scale", "weight", "gate", "passing")
            if other[0] is not rubric and any(
                getattr(other[1], a) != getattr(dim, a) for a in rule
            ):
                out.append(
                    Problem(
                        rubric.path,
                        f"dimensions.{dim.name}",
                        f"defined with another scale, weight or gate in {other[0].path}",
                    )
                )
    return out


def rubric_path(written: str, golden_dir: Path) -> Path:
    """A golden case's ``rubric``: a relative path is read from the golden dataset's folder."""
    path = Path(written).expanduser()
    return path if path.is_absolute() else golden_dir / path


@dataclass(frozen=True)
class RubricSet:
    """The rubrics of one evaluation: the default and every case's override, validated once."""

    default: Rubric | None
    by_path: dict[Path, Rubric]
    golden_dir: Path

    def for_case(self, case: GoldenCase) -> Rubric | None:
        if case.rubric:
            return self.by_path.get(rubric_path(case.rubric, self.golden_dir))
        return self.default

    @property
    def all(self) -> list[Rubric]:
        rubrics = [self.default] if self.default else []
        return rubrics + [r for r in self.by_path.values() if r is not self.default]

    def weights(self) -> dict[str, float]:
        return {d.key: d.weight for r in self.all for d in r.dimensions}

    def gates(self) -> dict[str, float]:
        return {d.key: d.pass_threshold for r in self.all for d in r.dimensions if d.gate}

    def digests(self) -> dict[str, str]:
        """What the scores depend on: every rubric's content (empty without rubrics)."""
        return {r.path: r.digest for r in self.all}


def check_rubric_set(
    default: Path | None,
    cases: Sequence[GoldenCase],
    golden_file: Path,
    bkg: BKG,
) -> tuple[RubricSet, list[Problem]]:
    """Every rubric the cases use, checked against the golden set's tags and intents and the
    BKG's functions, with the problems of all of them (a missing override is the case's)."""
    known = {
        "tags": {t for c in cases for t in c.tags},
        "intents": {c.expected_intent for c in cases if c.expected_intent},
        "functions": {fn.name for kind in FUNCTION_KINDS.values() for fn in getattr(bkg, kind)},
    }
    golden_dir = Path(golden_file).parent
    problems: list[Problem] = []
    loaded: dict[Path, Rubric] = {}
    wanted: dict[Path, str | None] = {}
    if default is not None:
        wanted[Path(default)] = None
    for case in cases:
        if case.rubric:
            wanted.setdefault(rubric_path(case.rubric, golden_dir), case.id)
    for path, case_id in wanted.items():
        if case_id is not None and not path.is_file():
            where = f"{case_id}.rubric"
            problems.append(Problem(str(golden_file), where, f"rubric file not found: {path}"))
            continue
        rubric, found = check_rubric(path, **known)
        problems += found
        if rubric is not None:
            loaded[path] = rubric
    problems += conflicts(list(loaded.values()))
    rubrics = RubricSet(
        default=loaded.get(Path(default)) if default is not None else None,
        by_path=loaded,
        golden_dir=golden_dir,
    )
    return rubrics, problems
