"""Run SQL written by a model (or reported by a chatbot) against the live database, read-only.

Three walls: the SQL must be one SELECT/WITH query that writes nothing (``sql_is_read_only``) and
calls no function with side effects outside the transaction (the deny-list of ``sql_guard``, the
same one every statement on the handle passes: sleeping, signalling backends, changing settings,
reading server files, sequences, advisory locks, running SQL given as a string...); it runs
wrapped as a sub-query, so the server sees exactly one query expression; and the handle itself
is read-only (``db.Database``: SQLite ``mode=ro`` with an authorizer, PostgreSQL read-only
transactions rolled back), which stops any write the first two walls missed.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from eval_pipeline.core.dimensions.sql_check import sql_is_read_only
from eval_pipeline.core.warehouse.bkg_runtime import parse_select
from eval_pipeline.core.warehouse.db import Database, to_python
from eval_pipeline.core.warehouse.sql_guard import SQLGLOT_DIALECTS, statement_problem

_DIFF_ROWS = 3
_DIFF_CHARS = 200


class SqlToolResult(BaseModel):
    """Rows of one read-only query; ``row_count`` counts the rows returned (``truncated``: more)."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    row_count: int = 0
    truncated: bool = False
    error: str | None = None


class ToolResultCheck(BaseModel):
    """Whether the rows a chatbot reported are the rows its own SQL returns now."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["matched", "mismatched", "error"]
    diff: str = ""
    error: str | None = None


def refusal_reason(sql: str, dialect: str | None = None) -> str | None:
    """Why ``sql`` may not run on the read-only tool; None when it may.

    ``dialect`` is a SQLAlchemy dialect name (``sqlite``, ``postgresql``).
    """
    glot = SQLGLOT_DIALECTS.get(dialect or "")
    if not sql_is_read_only(sql, glot):
        try:
            parse_select(sql, dialect)
        except ValueError as exc:  # says which statement, parse error or writing clause
            return str(exc)
        return "the query writes, locks rows or selects INTO a table"
    return statement_problem(sql, dialect)


def _cell(value: Any) -> Any:
    """A JSON-safe cell: plain scalars, containers cell by cell, bytes as hex, the rest as text."""
    value = to_python(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_cell(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _cell(item) for key, item in value.items()}
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return str(value)


def _error_text(exc: Exception) -> str:
    """The driver's first line: SQLAlchemy appends the SQL and bind values, which stay out."""
    original = getattr(exc, "orig", None) or exc
    text = str(original).strip().splitlines()
    return f"{type(original).__name__}: {text[0] if text else ''}".strip()


def _body(sql: str) -> str:
    body = sql.strip()
    while body.endswith(";"):
        body = body[:-1].rstrip()
    return body


def _run_capped(
    db: Database, sql: str, limit: int, params: Mapping[str, Any] | None
) -> SqlToolResult:
    if not db.read_only:
        return SqlToolResult(ok=False, error="refused: the database handle is not read-only")
    reason = refusal_reason(sql, db.dialect)
    if reason is not None:
        return SqlToolResult(ok=False, error=f"refused: {reason}")
    wrapped = f"SELECT * FROM (\n{_body(sql)}\n) AS tool_query LIMIT {limit + 1}"
    try:
        frame = db.query(wrapped, **dict(params or {}))
    except Exception as exc:  # any driver/database failure is the tool's answer, not a crash
        return SqlToolResult(ok=False, error=_error_text(exc))
    rows = [[_cell(value) for value in row] for row in frame.itertuples(index=False)]
    return SqlToolResult(
        ok=True,
        columns=[str(c) for c in frame.columns],
        rows=rows[:limit],
        row_count=min(len(rows), limit),
        truncated=len(rows) > limit,
    )


def execute_readonly_sql(
    db: Database,
    sql: str,
    *,
    max_rows: int = 200,
    params: Mapping[str, Any] | None = None,
) -> SqlToolResult:
    """Run one model-written query on a read-only handle; at most ``max_rows`` rows come back."""
    return _run_capped(db, sql, max(1, max_rows), params)


# --------------------------------------------------------------------------- tool result check


def _number(value: Any) -> float | None:
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _moment(value: Any) -> dt.datetime | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        return None


def _cells_match(actual: Any, reported: Any, rel_tol: float) -> bool:
    if actual is None or reported is None:
        return actual is None and reported is None
    if isinstance(actual, numbers.Real) or isinstance(reported, numbers.Real):
        a, r = _number(actual), _number(reported)
        return a is not None and r is not None and math.isclose(a, r, rel_tol=rel_tol)
    if actual == reported:
        return True
    moments = _moment(actual), _moment(reported)
    return None not in moments and moments[0] == moments[1]


def _rows_match(actual: list[Any], reported: list[Any], rel_tol: float) -> bool:
    return len(actual) == len(reported) and all(
        _cells_match(a, r, rel_tol) for a, r in zip(actual, reported, strict=True)
    )


def _bucket(row: list[Any]) -> tuple[Any, ...]:
    """Cells that must match exactly (text that is neither a number nor a date), for indexing."""
    return tuple(
        cell
        for cell in row
        if isinstance(cell, str) and _number(cell) is None and _moment(cell) is None
    )


def _as_list(row: Any, columns: list[str]) -> list[Any]:
    if isinstance(row, Mapping):
        by_name = {str(k).lower(): v for k, v in row.items()}
        if len(by_name) == len(columns) and all(c.lower() in by_name for c in columns):
            return [_cell(by_name[c.lower()]) for c in columns]
        return [_cell(v) for v in row.values()]
    if isinstance(row, str | bytes) or not isinstance(row, Sequence):
        return [_cell(row)]
    return [_cell(v) for v in row]


def _multiset_diff(
    actual: list[list[Any]], reported: list[list[Any]], rel_tol: float
) -> tuple[list[list[Any]], list[list[Any]]]:
    """(returned rows the report lacks, reported rows the query does not return)."""
    pending: dict[tuple[Any, ...], list[list[Any]]] = {}
    for row in actual:
        pending.setdefault(_bucket(row), []).append(row)
    unexpected = []
    for row in reported:
        candidates = pending.get(_bucket(row), [])
        hit = next((i for i, c in enumerate(candidates) if _rows_match(c, row, rel_tol)), None)
        if hit is None:
            unexpected.append(row)
        else:
            candidates.pop(hit)
    missing = [row for rows in pending.values() for row in rows]
    return missing, unexpected


def _short(rows: list[list[Any]]) -> str:
    shown = "; ".join(repr(row)[:_DIFF_CHARS] for row in rows[:_DIFF_ROWS])
    return shown + (f"; … {len(rows) - _DIFF_ROWS} more" if len(rows) > _DIFF_ROWS else "")


def compare_tool_result(
    db: Database,
    sql: str,
    reported_rows: Sequence[Sequence[Any] | Mapping[str, Any]],
    *,
    rel_tol: float = 1e-9,
    max_rows: int = 10_000,
) -> ToolResultCheck:
    """Re-run the chatbot's own SQL read-only and compare its rows with the reported ones.

    Order-insensitive multiset comparison; numbers match within ``rel_tol`` (numeric text such as
    ``"1234.5"`` counts as a number, ISO dates as dates), rows given as mappings are aligned by
    column name. Up to ``max(max_rows, len(reported_rows))`` rows are fetched.
    """
    limit = max(max_rows, len(reported_rows))
    run = _run_capped(db, sql, limit, None)
    if not run.ok:
        return ToolResultCheck(status="error", error=run.error)
    reported = [_as_list(row, run.columns) for row in reported_rows]
    missing, unexpected = _multiset_diff(run.rows, reported, rel_tol)
    counts = (
        f"{len(reported)} rows reported, {run.row_count}{'+' if run.truncated else ''} returned"
    )
    problems = []
    if run.truncated:
        problems.append(f"the query returns more than {limit} rows")
    if missing:
        problems.append(f"{len(missing)} returned rows not reported: {_short(missing)}")
    if unexpected:
        problems.append(f"{len(unexpected)} reported rows not returned: {_short(unexpected)}")
    return ToolResultCheck(
        status="mismatched" if problems else "matched", diff="; ".join([counts, *problems])
    )
