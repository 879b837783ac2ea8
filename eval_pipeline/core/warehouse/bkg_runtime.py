"""Run BKG functions and reference SQL live, once per distinct call, and shape results as JSON.

BKG functions are trusted code from the organisation's own pipeline: they are exec'd without
confinement into one shared namespace (so a function may call another), in the BKG process
(``bkg_process``), where each call and each function's loading has a wall-clock limit and one that
never ends can be stopped. A result must be JSON-safe: finite numbers, at most so many rows; what
a function raises, returns or does wrong is its reference's error, never the batch's. Everything
here is also what the input validator uses to check a BKG before a run, so a BKG that validates is
one the runtime can load.
"""

from __future__ import annotations

import copy
import datetime as dt
import inspect
import json
import math
import re
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import sqlglot
from sqlglot import exp

from eval_pipeline.core.limits import DEFAULT_REFERENCE_LIMITS, ReferenceLimits
from eval_pipeline.core.models import (
    BKG,
    FUNCTION_KINDS,
    Function,
    Param,
    Reference,
    ReferenceValue,
)
from eval_pipeline.core.tracing.calls import traced_reference
from eval_pipeline.core.warehouse.bkg_process import (
    BKGProcess,
    Loaded,
    ReferenceFailure,
    ReferenceStopped,
    default_bkg_process,
)
from eval_pipeline.core.warehouse.db import Database, to_python
from eval_pipeline.core.warehouse.sql_guard import SQLGLOT_DIALECTS

if TYPE_CHECKING:  # pandas loads where results are tables: the BKG process, not `validate`
    import pandas as pd

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
    except BaseException as exc:  # SystemExit or KeyboardInterrupt too: the function's problem
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
    source line it came from, never a full traceback; a message written for the user as is."""
    if isinstance(exc, ReferenceFailure | ResultError):
        return str(exc)
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<bkg ")]
    if frames:
        last = frames[-1]
        text += f" ({last.filename[5:-1]} line {last.lineno})"
    return text


# --------------------------------------------------------------------------- result shapes


class ResultError(ValueError):
    """A result the oracle cannot use: not JSON-safe, not a finite number, too many rows."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _finite(value: Any) -> Any:
    """Numbers the oracle can compare: no infinity, nothing beyond a float's range."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ResultError(f"returned {value}, not a finite number")
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            bits = f"{value.bit_length():,}"
            raise ResultError(
                f"returned an integer of {bits} bits, beyond the range of a float"
            ) from None
    return value


def _cell(value: Any) -> Any:
    """A table cell or mapping value as a JSON scalar; NaN is pandas' NULL, so None."""
    value = to_python(value)
    if isinstance(value, float) and math.isnan(value):  # a Decimal NaN
        return None
    if not isinstance(value, _SCALARS):
        raise TypeError(f"{type(value).__name__} value {_shown(value)} is not a scalar")
    return _finite(value)


def _number(value: Any) -> Any:
    """A scalar result: a number, a truth value or a date; None for no value."""
    if isinstance(value, str):
        raise ResultError(f"returned the text {_shown(value)}: a scalar result is a number")
    if isinstance(value, float | np.floating) and math.isnan(value):
        raise ResultError("returned NaN, not a number")
    value = to_python(value)
    if isinstance(value, float) and math.isnan(value):
        raise ResultError("returned NaN, not a number")
    if not isinstance(value, _SCALARS):
        raise TypeError(
            f"unsupported result type {type(value).__name__}: return a scalar, a dict, "
            "a DataFrame or a list of dicts"
        )
    return _finite(value)


def _bounded(size: int, max_rows: int | None, what: str = "rows") -> None:
    if max_rows is not None and size > max_rows:
        raise ResultError(
            f"returned {size:,} {what}, more than the {max_rows:,} a reference may have "
            "(EVAL_REFERENCE_MAX_ROWS)"
        )


def _table(frame: pd.DataFrame) -> dict[str, Any]:
    if any(name is not None for name in frame.index.names):
        frame = frame.reset_index()
    return {
        "columns": [str(c) for c in frame.columns],
        "rows": [[_cell(v) for v in row] for row in frame.itertuples(index=False, name=None)],
    }


def json_shape(
    value: Any, *, cell_as_scalar: bool = False, max_rows: int | None = None
) -> tuple[Shape, Any]:
    """``(shape, JSON-safe value)`` of a function result: scalar, mapping or table.

    ``cell_as_scalar`` makes a single numeric cell (a SQL reference's ``COUNT(*)``) a scalar;
    a table or mapping of more than ``max_rows`` rows or entries is refused before it is read.
    """
    import pandas as pd

    if isinstance(value, list) and value and all(isinstance(row, Mapping) for row in value):
        _bounded(len(value), max_rows)
        value = pd.DataFrame.from_records(value)
    if isinstance(value, pd.DataFrame):
        _bounded(len(value), max_rows)
        if cell_as_scalar and value.shape == (1, 1):
            cell = _cell(value.iat[0, 0])
            if not isinstance(cell, str):
                return "scalar", cell
        return "table", _table(value)
    if isinstance(value, pd.Series):
        _bounded(len(value), max_rows, "entries")
        value = value.to_dict()
    if isinstance(value, Mapping):
        _bounded(len(value), max_rows, "entries")
        try:
            return "mapping", {str(k): _cell(v) for k, v in value.items()}
        except TypeError as exc:
            raise TypeError(f"mapping values must be scalars: {exc}") from None
    return "scalar", _number(value)


def as_result(shape: Shape, value: Any) -> Any:
    """A shaped result as a function would return it: a table is a DataFrame again."""
    if shape == "table":
        import pandas as pd

        return pd.DataFrame(value["rows"], columns=value["columns"])
    return value


# --------------------------------------------------------------------------- runtime


def bkg_functions(bkg: BKG) -> list[tuple[str, Function]]:
    return [(kind, fn) for kind, attr in FUNCTION_KINDS.items() for fn in getattr(bkg, attr)]


def load_report(
    bkg: BKG, limits: ReferenceLimits = DEFAULT_REFERENCE_LIMITS, process: BKGProcess | None = None
) -> dict[tuple[str, str], Loaded]:
    """How each BKG function loads in the BKG process: why it cannot be called (it does not
    compile, its module code raises or runs past the time limit, it defines no such function) and
    whether its signature fits its declared params. Loaded once per process and BKG."""
    functions = bkg_functions(bkg)
    if not functions:
        return {}
    process = process or default_bkg_process()
    return process.load(process.namespace(functions), limits.timeout_s)


class BKGRuntime:
    """Runs the BKG's functions and reference SQL in the BKG process within ``limits``, and
    memoises results per (kind, name, params) for its lifetime — one runtime per evaluation run.
    A reference that ran out of time (or stopped the process) is memoised as failed too, so the
    cases sharing it wait for it once."""

    def __init__(
        self,
        bkg: BKG,
        limits: ReferenceLimits = DEFAULT_REFERENCE_LIMITS,
        process: BKGProcess | None = None,
    ) -> None:
        self.bkg = bkg
        self.limits = limits
        self._process = process or default_bkg_process()
        functions = bkg_functions(bkg)
        self._namespace = self._process.namespace(functions) if functions else None
        self._loaded = load_report(bkg, limits, self._process)
        self._memo: dict[tuple[str, str, str, str], tuple[Shape, Any] | ReferenceStopped] = {}
        self._key_locks: dict[tuple[str, str, str, str], threading.Lock] = {}
        self._lock = threading.Lock()
        self._calls = 0

    @property
    def calls_made(self) -> int:
        with self._lock:
            return self._calls

    def call(self, kind: str, name: str, db: Database, params: dict[str, Any]) -> Any:
        """Result of a BKG function (``kind`` kpi/decision/core_node) or of SQL (``kind`` sql,
        ``name`` the query, ``params`` its binds), a table as a DataFrame. Memoised; callers get
        their own copy."""
        return as_result(*self._shaped(kind, name, db, params))

    def _shaped(
        self, kind: str, name: str, db: Database, params: dict[str, Any]
    ) -> tuple[Shape, Any]:
        max_rows = self.limits.max_rows
        if kind == "sql":
            parse_select(name, db.dialect)
            request: tuple[Any, ...] = ("sql", db.url, db.read_only, name, params, max_rows)
            return self._memoised(kind, name, db, params, None, request)
        fn = self.bkg.function(kind, name) if kind in FUNCTION_KINDS else None
        if fn is None:
            raise LookupError(f"unknown {kind} '{name}'")
        problems = param_problems(fn, params)
        if problems:
            raise ValueError("; ".join(message for _, message in problems))
        loaded = self._loaded.get((kind, name), Loaded("was not loaded"))
        if loaded.error is not None:
            raise RuntimeError(f"{FUNCTION_KINDS[kind]}.{name} {loaded.error}")
        full = with_defaults(fn, params)
        namespace = self._namespace
        assert namespace is not None  # the BKG has this function
        request = ("call", namespace.key, kind, name, db.url, db.read_only, full, max_rows)
        return self._memoised(kind, name, db, full, namespace, request)

    def _memoised(
        self,
        kind: str,
        name: str,
        db: Database,
        params: Mapping[str, Any],
        namespace: Any,
        request: tuple[Any, ...],
    ) -> tuple[Shape, Any]:
        key = (db.url, kind, name, json.dumps(params, sort_keys=True, default=str))
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                known = self._memo.get(key)
                if known is None:
                    self._calls += 1
            if known is None:
                try:
                    _, _, shape, value = self._process.call(
                        namespace, request, self.limits.timeout_s
                    )
                except ReferenceStopped as exc:
                    known = exc
                else:
                    known = (shape, value)
                with self._lock:
                    self._memo[key] = known
        if isinstance(known, ReferenceStopped):
            raise known
        return copy.deepcopy(known)

    @traced_reference
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
            out.shape, out.value = self._shaped(kind, target, db, ref.params)
        except Exception as exc:
            out.error = describe_error(exc)
        return out
