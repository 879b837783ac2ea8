"""Run BKG functions and reference SQL live, once per distinct call, and shape results as JSON.

BKG functions are trusted code from the organisation's own pipeline, so they are exec'd in-process
(one shared namespace, so a function may call another). Everything here is also what the input
validator uses to check a BKG before a run, so a BKG that validates is one the runtime can load.
"""

from __future__ import annotations

import copy
import datetime as dt
import inspect
import json
import re
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd
import sqlglot
from sqlglot import exp

from eval_pipeline.core.models import (
    BKG,
    FUNCTION_KINDS,
    Function,
    Param,
    Reference,
    ReferenceValue,
)
from eval_pipeline.core.warehouse.db import Database, to_python
from eval_pipeline.core.warehouse.sql_guard import SQLGLOT_DIALECTS

_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter)
_SCALARS = (str, int, float, bool, type(None))
_TOKEN_REPR = r"<Token token_type: [^,]*, text: (.*?), line:.*?>"
Shape = Literal["scalar", "mapping", "table"]

# --------------------------------------------------------------------------- reference SQL


def parse_select(sql: str, dialect: str | None = None) -> exp.Query:
    """The parsed tree if ``sql`` is one read-only SELECT / WITH query; ValueError otherwise."""
    try:
        statements = [s for s in sqlglot.parse(sql, read=SQLGLOT_DIALECTS.get(dialect or "")) if s]
    except sqlglot.errors.ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        where = f" at line {first['line']}, column {first['col']}" if "line" in first else ""
        detail = re.sub(_TOKEN_REPR, r"'\1'", str(first.get("description", exc)))
        raise ValueError(f"SQL does not parse{where}: {detail}") from None
    if len(statements) != 1:
        raise ValueError(f"expected exactly one SQL statement, found {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise ValueError(f"only SELECT / WITH queries are allowed, not {tree.key.upper()}")
    writer = next(tree.find_all(*_WRITES), None)
    if writer is not None:
        raise ValueError(f"query contains a {writer.key.upper()} statement")
    return tree


def sql_tables(tree: exp.Query) -> list[str]:
    """Physical tables a query reads (CTE names excluded)."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    names = {t.name for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in ctes}
    return sorted(names)


# --------------------------------------------------------------------------- params


def _type_mismatch(declared: str, value: Any) -> bool:
    if declared == "string":
        return not isinstance(value, str)
    if declared == "integer":
        return not isinstance(value, int) or isinstance(value, bool)
    if declared == "number":
        return not isinstance(value, int | float) or isinstance(value, bool)
    if declared == "boolean":
        return not isinstance(value, bool)
    if declared == "date":
        if not isinstance(value, str):
            return True
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            return True
    return False


def param_value_problem(spec: Param, value: Any) -> str | None:
    """Why ``value`` is not acceptable for the declared param, or None."""
    shown = json.dumps(value, default=str)
    if _type_mismatch(spec.type, value):
        return f"{shown} is not a valid {spec.type} for param '{spec.name}'"
    if spec.enum is not None and value not in spec.enum:
        allowed = ", ".join(json.dumps(v, default=str) for v in spec.enum)
        return f"{shown} is not one of the allowed values of '{spec.name}' ({allowed})"
    return None


def param_problems(fn: Function, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(param name, message)`` for every way ``params`` disagrees with the declaration."""
    declared = {p.name: p for p in fn.params}
    out: list[tuple[str, str]] = []
    for name in params:
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            out.append((name, f"unknown param '{name}' (declared: {known})"))
    for name, spec in declared.items():
        if params.get(name) is None:
            if spec.required and spec.default is None:
                out.append((name, f"missing required param '{name}'"))
            continue
        problem = param_value_problem(spec, params[name])
        if problem:
            out.append((name, problem))
    return out


def with_defaults(fn: Function, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` plus the declared default of every param not given."""
    out = dict(params)
    for spec in fn.params:
        if out.get(spec.name) is None and spec.default is not None:
            out[spec.name] = spec.default
    return out


# --------------------------------------------------------------------------- compiling


def source_name(kind: str, name: str) -> str:
    """The pseudo file name a function's source is compiled under (shows in tracebacks)."""
    return f"<bkg {FUNCTION_KINDS[kind]}.{name}>"


class FunctionLoadError(Exception):
    """A BKG function whose source cannot be turned into a callable matching its declaration."""


def compile_function(kind: str, fn: Function, namespace: dict[str, Any]) -> Callable[..., Any]:
    """Exec ``fn.python_function`` into ``namespace`` and return the callable it declares."""
    try:
        code = compile(fn.python_function, source_name(kind, fn.name), "exec")
    except SyntaxError as exc:
        raise FunctionLoadError(f"does not compile: line {exc.lineno}: {exc.msg}") from None
    try:
        exec(code, namespace)  # trusted BKG code, see module docstring
    except Exception as exc:
        raise FunctionLoadError(f"fails while loading: {describe_error(exc)}") from None
    target = namespace.get(fn.name)
    if not inspect.isfunction(target):
        raise FunctionLoadError(f"does not define a function named '{fn.name}'")
    return target


def signature_problem(fn: Function, target: Callable[..., Any]) -> str | None:
    """Why ``target(db, **params)`` cannot be called as declared, or None."""
    signature = inspect.signature(target)
    every = {p.name: p.default for p in fn.params}
    minimal = {p.name: p.default for p in fn.params if p.required or p.default is not None}
    for label, params in (("its declared params", every), ("only its required params", minimal)):
        try:
            signature.bind(None, **params)
        except TypeError as exc:
            call = f"{fn.name}{signature}"
            return f"signature {call} cannot be called as fn(db, **params) with {label}: {exc}"
    return None


def describe_error(exc: BaseException) -> str:
    """``Type: message`` on one line (a driver's own message for a database error) plus the BKG
    source line it came from, never a full traceback."""
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<bkg ")]
    if frames:
        last = frames[-1]
        text += f" ({last.filename[5:-1]} line {last.lineno})"
    return text


# --------------------------------------------------------------------------- result shapes


def _scalar(value: Any) -> Any:
    value = to_python(value)
    if not isinstance(value, _SCALARS):
        raise TypeError(f"{type(value).__name__} value {value!r} is not a scalar")
    return value


def _table(frame: pd.DataFrame) -> dict[str, Any]:
    if any(name is not None for name in frame.index.names):
        frame = frame.reset_index()
    return {
        "columns": [str(c) for c in frame.columns],
        "rows": [[_scalar(v) for v in row] for row in frame.itertuples(index=False, name=None)],
    }


def json_shape(value: Any, *, cell_as_scalar: bool = False) -> tuple[Shape, Any]:
    """``(shape, JSON-safe value)`` of a function result: scalar, mapping or table."""
    if isinstance(value, list) and all(isinstance(row, Mapping) for row in value) and value:
        value = pd.DataFrame.from_records(value)
    if isinstance(value, pd.DataFrame):
        if cell_as_scalar and value.shape == (1, 1):
            return "scalar", _scalar(value.iat[0, 0])
        return "table", _table(value)
    if isinstance(value, pd.Series):
        value = value.to_dict()
    if isinstance(value, Mapping):
        try:
            return "mapping", {str(k): _scalar(v) for k, v in value.items()}
        except TypeError as exc:
            raise TypeError(f"mapping values must be scalars: {exc}") from None
    try:
        return "scalar", _scalar(value)
    except TypeError:
        raise TypeError(
            f"unsupported result type {type(value).__name__}: return a scalar, a dict, "
            "a DataFrame or a list of dicts"
        ) from None


# --------------------------------------------------------------------------- runtime


@dataclass
class _Loaded:
    call: Callable[..., Any] | None
    error: str | None


class BKGRuntime:
    """Compiles every BKG function once (trusted code, exec'd in-process into one shared namespace
    so functions may call each other) and memoises results per (kind, name, params) for its
    lifetime — one runtime per evaluation run."""

    def __init__(self, bkg: BKG) -> None:
        self.bkg = bkg
        self.namespace: dict[str, Any] = {"__name__": "bkg_functions"}
        self._loaded: dict[tuple[str, str], _Loaded] = {}
        for kind, attr in FUNCTION_KINDS.items():
            for fn in getattr(bkg, attr):
                try:
                    target = compile_function(kind, fn, self.namespace)
                except FunctionLoadError as exc:
                    self._loaded[(kind, fn.name)] = _Loaded(None, str(exc))
                else:
                    self._loaded[(kind, fn.name)] = _Loaded(target, None)
        self._memo: dict[tuple[str, str, str, str], Any] = {}
        self._key_locks: dict[tuple[str, str, str, str], threading.Lock] = {}
        self._lock = threading.Lock()
        self._calls = 0

    @property
    def calls_made(self) -> int:
        with self._lock:
            return self._calls

    def call(self, kind: str, name: str, db: Database, params: dict[str, Any]) -> Any:
        """Result of a BKG function (``kind`` kpi/decision/core_node) or of SQL (``kind`` sql,
        ``name`` the query, ``params`` its binds). Memoised; callers get their own copy."""
        if kind == "sql":
            parse_select(name, db.dialect)
            return self._memoised(kind, name, db, params, lambda: db.query(name, **params))
        fn = self.bkg.function(kind, name) if kind in FUNCTION_KINDS else None
        if fn is None:
            raise LookupError(f"unknown {kind} '{name}'")
        problems = param_problems(fn, params)
        if problems:
            raise ValueError("; ".join(message for _, message in problems))
        loaded = self._loaded[(kind, name)]
        if loaded.call is None:
            raise RuntimeError(f"{FUNCTION_KINDS[kind]}.{name} {loaded.error}")
        target = loaded.call
        full = with_defaults(fn, params)
        return self._memoised(kind, name, db, full, lambda: target(db, **full))

    def _memoised(
        self, kind: str, name: str, db: Database, params: Mapping[str, Any], run: Callable[[], Any]
    ) -> Any:
        key = (db.url, kind, name, json.dumps(params, sort_keys=True, default=str))
        with self._lock:
            if key in self._memo:
                return copy.deepcopy(self._memo[key])
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in self._memo:
                    return copy.deepcopy(self._memo[key])
                self._calls += 1
            result = run()
            with self._lock:
                self._memo[key] = result
        return copy.deepcopy(result)

    def evaluate(self, ref: Reference, db: Database) -> ReferenceValue:
        """The reference recomputed live as a JSON-safe value; errors land in ``error``."""
        try:
            kind, target = ref.kind, ref.target
        except ValueError as exc:
            return ReferenceValue(reference=ref, shape="scalar", error=str(exc))
        fn = self.bkg.function(kind, target) if kind in FUNCTION_KINDS else None
        used = ref.model_copy(
            update={"params": with_defaults(fn, ref.params) if fn else ref.params}
        )
        out = ReferenceValue(
            reference=used,
            shape=fn.returns if fn else "scalar",
            unit=ref.unit or (fn.unit if fn else None),
            column_units={**(fn.column_units if fn else {}), **ref.column_units},
            tables=list(fn.tables) if fn else [],
        )
        try:
            if kind == "sql":
                out.tables = sql_tables(parse_select(target, db.dialect))
            result = self.call(kind, target, db, ref.params)
            out.shape, out.value = json_shape(result, cell_as_scalar=kind == "sql")
        except Exception as exc:
            out.error = describe_error(exc)
        return out
