"""Load and validate the BKG and the golden dataset, reporting every problem at once.

Checks run in layers — readable JSON, the published JSON Schema, then cross-references (tables,
columns, functions, params, SQL) and, when a database URL is given, the live catalog. Later layers
still run on the parts that passed earlier ones, so one broken KPI does not hide the others.
"""

from __future__ import annotations

import ast
import difflib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pydantic
from sqlalchemy.engine import make_url
from sqlglot import exp

from eval_pipeline.core import json_text
from eval_pipeline.core.keys import (
    KEY_PATTERN,
    KEY_RULE,
    LOGGED_CASE_PREFIX,
    is_valid_key,
    shown,
)
from eval_pipeline.core.limits import (
    DEFAULT_REFERENCE_LIMITS,
    MAX_GOLDEN_FIELD_CHARS,
    ReferenceLimits,
)
from eval_pipeline.core.models import (
    BKG,
    FUNCTION_KINDS,
    Function,
    GlossaryEntry,
    GoldenCase,
    Reference,
    Relationship,
    Table,
)
from eval_pipeline.core.problems import InputError, Problem, first_line
from eval_pipeline.core.warehouse.bkg_process import Loaded, ReferenceFailure
from eval_pipeline.core.warehouse.bkg_runtime import (
    BKGRuntime,
    load_report,
    param_problems,
    param_value_problem,
    parse_select,
)
from eval_pipeline.core.warehouse.db import Database, redact_url

KIND_LABELS = {"kpi": "KPI", "decision": "decision", "core_node": "core node"}
SOURCES = ("kpi", "decision", "core_node", "sql")
VALIDATE_CONCURRENCY = 8  # references computed at once by validate
_PATTERN_HINTS = {
    KEY_PATTERN: f"{KEY_RULE} (ids become partition keys)",
    r"^[A-Za-z_][A-Za-z0-9_]*$": "must be a Python identifier",
    r"^[^.\s]+\.[^.\s]+$": "must be written 'table.column'",
}
_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


@cache
def load_schema(name: str) -> dict[str, Any]:
    """A published JSON Schema shipped with the package: ``bkg``, ``golden_dataset``,
    ``ui_config``."""
    text = resources.files("eval_pipeline").joinpath("schemas", f"{name}.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


# --------------------------------------------------------------------------- JSON + schema


def _read_json(path: Path, problems: list[Problem]) -> tuple[bool, Any]:
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "file not found"
        problems.append(Problem(str(path), "", what))
        return False, None
    try:
        return True, json_text.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        problems.append(Problem(str(path), where, f"invalid JSON: {exc.msg}"))
    except json_text.TooDeep as exc:
        problems.append(Problem(str(path), "", f"invalid input: {exc}"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(str(path), "", f"cannot read file: {exc}"))
    return False, None


def _text_problems(
    file: str, raw: Any, locate: Callable[[Any, Sequence[str | int]], str]
) -> list[Problem]:
    """Strings JSON can carry but UTF-8 cannot: a lone surrogate (``"\\ud800"``) would pass
    every check and crash the first step that encodes the text, after the chatbot was asked."""
    out: list[Problem] = []
    stack: list[tuple[list[str | int], Any]] = [([], raw)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                stack.append(([*path, key], key))
                stack.append(([*path, key], value))
        elif isinstance(item, list):
            stack.extend(([*path, i], value) for i, value in enumerate(item))
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                code = f"\\u{ord(item[exc.start]):04x}"
                message = f"lone surrogate {code} at character {exc.start + 1}: not valid Unicode"
                out.append(Problem(file, locate(raw, path), message))
    return sorted(set(out), key=lambda p: p.location)


def _join(parts: Iterable[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _named(items: Any, index: int, key: str) -> str:
    """An array item's name when it has a usable one, else its index."""
    item = items[index] if isinstance(items, list) and index < len(items) else None
    name = item.get(key) if isinstance(item, dict) else None
    return name if isinstance(name, str) and name else f"[{index}]"


def _under(head: str, rest: Sequence[str | int]) -> str:
    """``head`` followed by the path ``rest`` below it."""
    tail = _join(rest)
    return head + (("" if tail.startswith("[") else ".") + tail if tail else "")


def _bkg_location(raw: Any, path: Sequence[str | int]) -> str:
    if (
        len(path) >= 2
        and path[0] in ("tables", *FUNCTION_KINDS.values())
        and isinstance(path[1], int)
    ):
        return _under(f"{path[0]}.{_named(raw.get(path[0]), path[1], 'name')}", path[2:])
    return _join(path)


def _golden_location(raw: Any, path: Sequence[str | int]) -> str:
    if path and isinstance(path[0], int):
        head = _named(raw, path[0], "id")
        if not is_valid_key(head) and not head.startswith("["):
            head = f"[{path[0]}]"
        return _under(head, path[1:])
    return _join(path)


def _one_source(given: list[str]) -> str:
    found = f"found {', '.join(given)}" if given else "found none"
    return f"a reference needs exactly one of kpi, decision, core_node, sql ({found})"


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _unknown_table(file: str, where: str, name: str, check: _BKGCheck) -> Problem:
    known = (t.name for t in check.bkg.tables)
    return Problem(file, where, f"unknown table '{name}'{_suggest(name, known)}")


def _describe(error: jsonschema.ValidationError) -> list[tuple[list[str | int], str]]:
    """``(path, message)`` pairs in words a person editing the JSON understands."""
    path: list[str | int] = list(error.absolute_path)
    instance, rule = error.instance, error.validator
    if rule == "required":
        missing = [name for name in error.validator_value if name not in instance]
        return [([*path, name], "missing required field") for name in missing]
    if rule == "additionalProperties":
        allowed = error.schema.get("properties", {})
        return [
            ([*path, name], f"unknown field{_suggest(name, allowed)}")
            for name in instance
            if name not in allowed
        ]
    if rule == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return [(path, f"expected {expected}, got {_JSON_TYPES.get(type(instance), 'value')}")]
    if rule == "pattern":
        hint = _PATTERN_HINTS.get(error.validator_value, f"must match {error.validator_value}")
        return [(path, f"invalid value {shown(instance)}: {hint}")]
    if rule == "anyOf" and instance is not None and {"type": "null"} in error.validator_value:
        return _branch(error, [b != {"type": "null"} for b in error.validator_value].index(True))
    if rule == "oneOf" and isinstance(instance, dict) and "discriminator" in error.schema:
        return _discriminated(error, path)
    if rule == "oneOf" and isinstance(instance, dict):
        return [(path, _one_source([name for name in SOURCES if instance.get(name) is not None]))]
    if rule == "anyOf" and all(set(option) == {"required"} for option in error.validator_value):
        needed = " or ".join(
            name for option in error.validator_value for name in option["required"]
        )
        return [(path, f"needs {needed}")]
    if rule == "minLength":
        return [(path, "must not be empty")]
    if rule == "minItems" and not path:
        return [(path, "the dataset has no cases")]
    return [(path, error.message)]


def _discriminated(
    error: jsonschema.ValidationError, path: list[str | int]
) -> list[tuple[list[str | int], str]]:
    """A tagged union's problems: an unknown tag, or the problems of the branch it names."""
    field = error.schema["discriminator"]["propertyName"]
    mapping: dict[str, str] = error.schema["discriminator"].get("mapping", {})
    tag = error.instance.get(field)
    if tag not in mapping:
        allowed = ", ".join(json.dumps(k) for k in mapping)
        return [([*path, field], f"must be one of {allowed}")]
    return _branch(error, [b.get("$ref") for b in error.schema["oneOf"]].index(mapping[tag]))


def _branch(error: jsonschema.ValidationError, index: int) -> list[tuple[list[str | int], str]]:
    """The problems of one branch of an ``anyOf`` / ``oneOf`` (the one the value meant)."""
    return [
        found
        for sub in error.context or []
        if sub.relative_schema_path and sub.relative_schema_path[0] == index
        for found in _describe(sub)
    ]


def _path_order(error: jsonschema.ValidationError) -> list[tuple[int, int, str]]:
    return [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path]


def _schema_problems(
    file: str, raw: Any, schema_name: str, locate: Callable[[Any, Sequence[str | int]], str]
) -> tuple[list[Problem], set[tuple[str | int, ...]]]:
    """Schema problems (in document order) plus the item paths — one and two levels deep — that
    have one, so later checks can skip exactly the broken items."""
    validator = jsonschema.Draft202012Validator(load_schema(schema_name))
    problems: dict[Problem, None] = {}
    broken: set[tuple[str | int, ...]] = set()
    for error in sorted(validator.iter_errors(raw), key=_path_order):
        for path, message in _describe(error):
            problems[Problem(file, locate(raw, path), message)] = None
        broken.update({tuple(error.absolute_path)[:1], tuple(error.absolute_path)[:2]})
    return list(problems), broken


def schema_problems(
    file: str, raw: Any, schema_name: str, named: Mapping[str, str]
) -> list[Problem]:
    """Problems of ``raw`` against a published schema; an item of a top-level array listed in
    ``named`` is located by its key (``dimensions.tono.weight``) rather than its index."""

    def locate(data: Any, path: Sequence[str | int]) -> str:
        head = path[0] if path else None
        if isinstance(head, str) and head in named and len(path) >= 2:
            index = path[1]
            if isinstance(index, int):
                items = data.get(head) if isinstance(data, dict) else None
                return _under(f"{head}.{_named(items, index, named[head])}", path[2:])
        return _join(path)

    return _schema_problems(file, raw, schema_name, locate)[0]


def _model_problems(file: str, location: str, exc: pydantic.ValidationError) -> list[Problem]:
    out = []
    for error in exc.errors():
        path = _join(part for part in error["loc"] if isinstance(part, str | int))
        where = f"{location}.{path}" if location and path else location or path
        out.append(Problem(file, where, error["msg"]))
    return out


# --------------------------------------------------------------------------- BKG

_BKG_ITEMS: dict[str, type[pydantic.BaseModel]] = {
    "tables": Table,
    "relationships": Relationship,
    "kpis": Function,
    "decisions": Function,
    "core_nodes": Function,
    "glossary": GlossaryEntry,
}


@dataclass
class _BKGCheck:
    """A BKG as far as it validated: its valid parts, the names of broken parts, the problems."""

    bkg: BKG
    raw_tables: set[str] = field(default_factory=set)
    raw_functions: set[tuple[str, str]] = field(default_factory=set)
    problems: list[Problem] = field(default_factory=list)


def _raw_names(items: Any, key: str = "name") -> list[str]:
    if not isinstance(items, list):
        return []
    return [i[key] for i in items if isinstance(i, dict) and isinstance(i.get(key), str)]


def _check_bkg(path: Path, limits: ReferenceLimits) -> _BKGCheck:
    file = str(path)
    problems: list[Problem] = []
    ok, raw = _read_json(path, problems)
    if not ok:
        return _BKGCheck(BKG.model_construct(name="", tables=[]), problems=problems)
    schema_problems, broken = _schema_problems(file, raw, "bkg", _bkg_location)
    problems += schema_problems + _text_problems(file, raw, _bkg_location)
    if not isinstance(raw, dict):
        return _BKGCheck(BKG.model_construct(name="", tables=[]), problems=problems)
    parts: dict[str, list[Any]] = {key: [] for key in _BKG_ITEMS}
    for key, model in _BKG_ITEMS.items():
        items = raw.get(key)
        for i, item in enumerate(items if isinstance(items, list) else []):
            if (key, i) in broken:
                continue
            try:
                parts[key].append(model.model_validate(item))
            except pydantic.ValidationError as exc:
                problems += _model_problems(file, _bkg_location(raw, [key, i]), exc)
    check = _BKGCheck(
        BKG.model_construct(None, name=str(raw.get("name", "")), **parts),
        raw_tables={name.lower() for name in _raw_names(raw.get("tables"))},
        raw_functions={
            (kind, name)
            for kind, attr in FUNCTION_KINDS.items()
            for name in _raw_names(raw.get(attr))
        },
        problems=problems,
    )
    check.problems += _table_problems(file, check.bkg.tables)
    check.problems += _relationship_problems(file, check)
    check.problems += _function_problems(file, check, limits)
    if not check.problems:
        try:
            check.bkg = BKG.model_validate(raw)
        except pydantic.ValidationError as exc:
            check.problems += _model_problems(file, "", exc)
    return check


def _duplicates(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    dupes: list[str] = []
    for name in names:
        key = name.lower()
        if key in seen and name not in dupes:
            dupes.append(name)
        seen.add(key)
    return dupes


def _table_problems(file: str, tables: list[Table]) -> list[Problem]:
    out = [
        Problem(file, f"tables.{name}", "duplicate table name")
        for name in _duplicates(t.name for t in tables)
    ]
    for table in tables:
        where = f"tables.{table.name}"
        declared = {c.name.lower() for c in table.columns}
        out += [
            Problem(file, f"{where}.columns", f"duplicate column '{name}'")
            for name in _duplicates(c.name for c in table.columns)
        ]
        for label, columns in (
            ("primary_key", table.primary_key),
            ("fingerprint.columns", table.fingerprint.columns),
        ):
            out += [
                Problem(
                    file, f"{where}.{label}", f"'{col}' is not a declared column of {table.name}"
                )
                for col in columns
                if col.lower() not in declared
            ]
    return out


def _relationship_problems(file: str, check: _BKGCheck) -> list[Problem]:
    out: list[Problem] = []
    for i, rel in enumerate(check.bkg.relationships):
        for side, ref in (("from", rel.from_), ("to", rel.to)):
            table_name, _, column = ref.partition(".")
            where = f"relationships[{i}].{side}"
            table = check.bkg.table(table_name)
            if table is None:
                if table_name.lower() not in check.raw_tables:
                    out.append(_unknown_table(file, where, table_name, check))
            elif column.lower() not in {c.name.lower() for c in table.columns}:
                known = (c.name for c in table.columns)
                out.append(Problem(file, where, f"unknown column '{ref}'{_suggest(column, known)}"))
    return out


def _top_level_defs(source: str) -> dict[str, str]:
    """Functions and classes a source defines at module level, with a dump to compare bodies."""
    tree = ast.parse(source)
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name: ast.dump(node) for node in tree.body if isinstance(node, defs)}


def _function_problems(file: str, check: _BKGCheck, limits: ReferenceLimits) -> list[Problem]:
    out: list[Problem] = []
    try:
        report = load_report(check.bkg, limits)
    except ReferenceFailure as exc:
        report = {}
        out.append(Problem(file, "", f"its functions cannot be loaded: {exc}"))
    defined_by: dict[str, tuple[str, str]] = {}
    for kind, attr in FUNCTION_KINDS.items():
        functions: list[Function] = getattr(check.bkg, attr)
        out += [
            Problem(file, f"{attr}.{name}", f"duplicate {KIND_LABELS[kind]} name")
            for name in _duplicates(fn.name for fn in functions)
        ]
        for fn in functions:
            where = f"{attr}.{fn.name}"
            out += [
                _unknown_table(file, f"{where}.tables", table, check)
                for table in fn.tables
                if check.bkg.table(table) is None and table.lower() not in check.raw_tables
            ]
            out += [
                Problem(file, f"{where}.params", f"duplicate param '{name}'")
                for name in _duplicates(p.name for p in fn.params)
            ]
            for spec in fn.params:
                problem = None if spec.default is None else param_value_problem(spec, spec.default)
                if problem:
                    out.append(Problem(file, f"{where}.params.{spec.name}.default", problem))
            loaded = report.get((kind, fn.name), Loaded())
            if loaded.error:
                out.append(Problem(file, f"{where}.python_function", loaded.error))
                continue
            if loaded.signature:
                out.append(Problem(file, f"{where}.python_function", loaded.signature))
            for name, body in _top_level_defs(fn.python_function).items():
                other = defined_by.setdefault(name, (where, body))
                if other[0] != where and other[1] != body:
                    out.append(
                        Problem(
                            file,
                            f"{where}.python_function",
                            f"defines '{name}' differently from {other[0]}; "
                            "BKG functions share one namespace, so one would replace the other",
                        )
                    )
    return out


def load_bkg(path: Path, *, limits: ReferenceLimits = DEFAULT_REFERENCE_LIMITS) -> BKG:
    """The validated BKG (its functions loaded in the BKG process, each within the time limit);
    InputError lists every problem found."""
    check = _check_bkg(Path(path), limits)
    if check.problems:
        raise InputError(check.problems)
    return check.bkg


# --------------------------------------------------------------------------- golden dataset


def _sql_problem(sql: str, params: dict[str, Any], dialect: str | None) -> str | None:
    """Why a reference query cannot run, trying every supported dialect when none is known."""
    dialects = [dialect] if dialect else [None, "postgresql", "sqlite"]
    errors: list[str] = []
    for candidate in dialects:
        try:
            tree = parse_select(sql, candidate)
        except ValueError as exc:
            errors.append(str(exc))
            continue
        binds = {p.name for p in tree.find_all(exp.Placeholder) if p.name}
        missing = sorted(binds - params.keys())
        if missing:
            return f"uses :{', :'.join(missing)} but params has no value for it"
        unused = sorted(params.keys() - binds)
        if unused:
            used = ", ".join(sorted(binds)) or "none"
            return f"params {', '.join(unused)} not used by the query (binds: {used})"
        return None
    return errors[0]


def _reference_problems(
    file: str, where: str, ref: Reference, check: _BKGCheck, dialect: str | None
) -> list[Problem]:
    given = [name for name in SOURCES if getattr(ref, name) is not None]
    if len(given) != 1:
        return [Problem(file, where, _one_source(given))]
    kind = given[0]
    if kind == "sql":
        problem = _sql_problem(ref.sql or "", ref.params, dialect)
        return [Problem(file, f"{where}.sql", problem)] if problem else []
    name = ref.target
    fn = check.bkg.function(kind, name)
    if fn is None:
        if (kind, name) in check.raw_functions:
            return []
        known = (f.name for f in getattr(check.bkg, FUNCTION_KINDS[kind]))
        return [
            Problem(
                file,
                f"{where}.{kind}",
                f"unknown {KIND_LABELS[kind]} '{name}'{_suggest(name, known)}",
            )
        ]
    return [
        Problem(file, f"{where}.params.{param}", message)
        for param, message in param_problems(fn, ref.params)
    ]


def _oversized_fields(
    file: str, raw: list[Any], max_chars: int
) -> tuple[list[Problem], set[tuple[str | int, ...]]]:
    """Text fields of the cases longer than ``max_chars``, and the cases holding one."""
    problems: list[Problem] = []
    cases: set[tuple[str | int, ...]] = set()
    for i, case in enumerate(raw):
        stack: list[tuple[list[str | int], Any]] = [([i], case)]
        while stack:
            path, item = stack.pop()
            if isinstance(item, dict):
                stack.extend(([*path, key], value) for key, value in item.items())
            elif isinstance(item, list):
                stack.extend(([*path, j], value) for j, value in enumerate(item))
            elif isinstance(item, str) and len(item) > max_chars:
                message = (
                    f"{len(item):,} characters, more than the {max_chars:,} allowed "
                    "(EVAL_GOLDEN_MAX_FIELD_CHARS)"
                )
                problems.append(Problem(file, _golden_location(raw, path), message))
                cases.add((i,))
    return sorted(problems, key=lambda p: p.location), cases


def _check_golden(
    path: Path,
    check: _BKGCheck,
    dialect: str | None = None,
    *,
    max_field_chars: int = MAX_GOLDEN_FIELD_CHARS,
) -> tuple[list[GoldenCase], list[Problem]]:
    file = str(path)
    problems: list[Problem] = []
    ok, raw = _read_json(path, problems)
    if not ok:
        return [], problems
    schema_problems, broken = _schema_problems(file, raw, "golden_dataset", _golden_location)
    problems += schema_problems + _text_problems(file, raw, _golden_location)
    if not isinstance(raw, list):
        return [], problems
    oversized, too_big = _oversized_fields(file, raw, max_field_chars)
    problems += oversized
    broken |= too_big
    positions: dict[str, list[int]] = {}
    for i, item in enumerate(raw):
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            positions.setdefault(item["id"], []).append(i + 1)
    problems += [
        Problem(file, case_id, f"duplicate case id (cases {', '.join(map(str, at))})")
        for case_id, at in positions.items()
        if len(at) > 1
    ]
    problems += [
        Problem(
            file,
            case_id,
            f"case ids starting with '{LOGGED_CASE_PREFIX}' are those of logged conversations",
        )
        for case_id in positions
        if case_id.startswith(LOGGED_CASE_PREFIX)
    ]
    cases: list[GoldenCase] = []
    for i, item in enumerate(raw):
        if (i,) in broken:
            continue
        try:
            case = GoldenCase.model_validate(item)
        except pydantic.ValidationError as exc:
            problems += _model_problems(file, _golden_location(raw, [i]), exc)
            continue
        cases.append(case)
        for j, ref in enumerate(case.reference):
            problems += _reference_problems(file, f"{case.id}.reference[{j}]", ref, check, dialect)
    return cases, problems


def load_golden(
    path: Path, bkg: BKG, *, max_field_chars: int = MAX_GOLDEN_FIELD_CHARS
) -> list[GoldenCase]:
    """The validated cases, checked against ``bkg``; InputError lists every problem found."""
    cases, problems = _check_golden(Path(path), _BKGCheck(bkg), max_field_chars=max_field_chars)
    if problems:
        raise InputError(problems)
    return cases


# --------------------------------------------------------------------------- live database


def url_password(url: str) -> str | None:
    """The password of a database URL, to scrub from any message that might echo it."""
    try:
        return make_url(url).password
    except Exception:  # an unparsable URL holds no password to scrub
        return None


def _connection_error(url: str, exc: Exception) -> str:
    """First line of a driver error, password scrubbed in case the driver echoes the URL."""
    return first_line(exc, [url_password(url)])


def database_problems(
    bkg_file: str, bkg: BKG, url: str, *, variable: str | None = None
) -> tuple[list[Problem], str | None]:
    """Problems of the BKG against the live catalog, and the database's dialect when reachable.
    A role that could write is not a problem: the command warns about it once nothing else is
    wrong (``Database.warn_if_writable``), so a command stopped by a problem says it alone.

    A database that cannot be opened or reached is one problem located at the URL (redacted),
    or at the settings ``variable`` that holds it."""
    shown = redact_url(url)

    def unreachable(what: str, exc: Exception) -> Problem:
        error = _connection_error(url, exc)
        if variable:
            return Problem("settings", variable, f"cannot {what} the database {shown}: {error}")
        return Problem(shown, "", f"cannot {what} the database: {error}")

    missing = _missing_sqlite_file(url)
    if missing:
        return [
            unreachable("open", FileNotFoundError(f"the SQLite file {missing} does not exist"))
        ], None
    try:
        db = Database(url)
    except Exception as exc:  # invalid URL or unknown driver
        return [unreachable("open", exc)], None
    try:
        return _catalog_problems(bkg_file, bkg, db, shown), db.dialect
    except Exception as exc:
        return [unreachable("reach", exc)], None
    finally:
        db.close()


def _missing_sqlite_file(url: str) -> str | None:
    """The file of a SQLite URL when it does not exist (opened read-only, it is never created)."""
    try:
        parsed = make_url(url)
    except Exception:  # reported when the database is opened
        return None
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    path = database.removeprefix("file:").partition("?")[0]
    return None if Path(path).is_file() else path


def _catalog_problems(bkg_file: str, bkg: BKG, db: Database, shown: str) -> list[Problem]:
    """Every BKG table and column in the live catalog, addressed as the queries address them:
    names are quoted, so on PostgreSQL ``sbCustomer`` is not ``sbcustomer``; then each table's
    fingerprint query is run once, the first query every evaluation makes of it."""
    catalog = db.table_names()
    folded = {name.lower(): name for name in catalog}
    exact_case = db.dialect != "sqlite"  # SQLite matches quoted names case-insensitively
    out: list[Problem] = []
    for table in bkg.tables:
        where = f"tables.{table.name}"
        live = table.name if table.name in catalog else folded.get(table.name.lower())
        if live is None:
            found = f"table not found in the database {shown}{_suggest(table.name, catalog)}"
            out.append(Problem(bkg_file, where, found))
            continue
        if exact_case and live != table.name:
            out.append(Problem(bkg_file, where, _case_mismatch("table", table.name, live, shown)))
            continue
        live_columns = db.columns(live)
        by_folded = {c.lower(): c for c in live_columns}
        for i, col in enumerate(table.columns):
            if col.name.lower() not in by_folded:
                message = f"column '{col.name}' not found in the database table"
                out.append(Problem(bkg_file, f"{where}.columns[{i}].name", message))
        wrong_case = [
            (col, by_folded[col.lower()])
            for col in table.fingerprint.columns
            if exact_case and col not in live_columns and col.lower() in by_folded
        ]
        out += [
            Problem(
                bkg_file, f"{where}.fingerprint.columns", _case_mismatch("column", c, has, shown)
            )
            for c, has in wrong_case
        ]
        if not any(p.location.startswith(where) for p in out):
            try:
                db.fingerprint(table)
            except Exception as exc:
                error = str(getattr(exc, "orig", None) or exc).strip().splitlines()
                message = (
                    f"its fingerprint query fails: {error[0] if error else type(exc).__name__}"
                )
                out.append(Problem(bkg_file, f"{where}.fingerprint", message))
    return out


def _case_mismatch(what: str, name: str, live: str, shown: str) -> str:
    return (
        f"{what} '{name}' not found in the database {shown}, which has '{live}': names are "
        f"quoted, so their case must match; write '{live}'"
    )


def reference_problems(
    golden_file: str,
    bkg: BKG,
    cases: Sequence[GoldenCase],
    database_url: str,
    *,
    skip: Callable[[str, Reference], bool] = lambda location, ref: False,
    limits: ReferenceLimits = DEFAULT_REFERENCE_LIMITS,
) -> list[Problem]:
    """Every reference run once on the database: one that raises, returns nothing or runs past
    the time limit would leave its case's claims unchecked, so it is a problem of the inputs,
    found before a run."""
    runtime = BKGRuntime(bkg, limits)
    todo = [
        (f"{case.id}.reference[{j}]", ref)
        for case in cases
        for j, ref in enumerate(case.reference)
        if not skip(f"{case.id}.reference[{j}]", ref)
    ]
    out = []
    # concurrently, as a run computes them: references that run out of time do so together
    with Database(database_url) as db, ThreadPoolExecutor(VALIDATE_CONCURRENCY) as pool:
        values = pool.map(lambda item: runtime.evaluate(item[1], db), todo)
        for (location, ref), rv in zip(todo, values, strict=True):
            what = "the SQL" if ref.kind == "sql" else f"{ref.kind} '{ref.target}'"
            if rv.error is not None:
                out.append(Problem(golden_file, location, f"{what} failed: {rv.error}"))
            elif rv.value is None or rv.value == {} or _empty_table(rv.value):
                out.append(Problem(golden_file, location, f"{what} returned no value"))
    return out


def _empty_table(value: Any) -> bool:
    return isinstance(value, dict) and "rows" in value and not value["rows"]


def validate_inputs(
    bkg_path: Path,
    golden_path: Path,
    database_url: str | None = None,
    *,
    max_field_chars: int = MAX_GOLDEN_FIELD_CHARS,
    rubric_path: Path | None = None,
    limits: ReferenceLimits = DEFAULT_REFERENCE_LIMITS,
    database_variable: str | None = None,
) -> list[Problem]:
    """Every problem of the inputs; given a URL, also of the BKG against the live catalog and
    of every reference run once on the database (a URL a setting holds is reported at
    ``database_variable``). The rubrics (``rubric_path`` and the cases' own) are checked
    against the golden set's tags and intents and the BKG's functions."""
    from eval_pipeline.core.rubrics.load import check_rubric_set  # builds on this module

    check = _check_bkg(Path(bkg_path), limits)
    problems = list(check.problems)
    dialect = None
    db_problems: list[Problem] = []
    if database_url:
        db_problems, dialect = database_problems(
            str(bkg_path), check.bkg, database_url, variable=database_variable
        )
        problems += db_problems
    cases, golden_problems = _check_golden(
        Path(golden_path), check, dialect, max_field_chars=max_field_chars
    )
    problems += golden_problems
    problems += check_rubric_set(rubric_path, cases, Path(golden_path), check.bkg)[1]
    if dialect is not None and not db_problems:
        reported = {p.location for p in problems}
        broken = {".".join(p.location.split(".")[:2]) for p in check.problems}

        def skip(location: str, ref: Reference) -> bool:
            """Already reported: the reference itself, or the function it calls."""
            function = f"{FUNCTION_KINDS.get(ref.kind, ref.kind)}.{ref.target}"
            return any(r.startswith(location) for r in reported) or function in broken

        problems += reference_problems(
            str(golden_path), check.bkg, cases, database_url or "", skip=skip, limits=limits
        )
    return list(dict.fromkeys(problems))
