"""The database handle BKG functions receive, plus URL redaction.

One small API (``query`` → DataFrame, ``scalar`` → plain Python value) over SQLAlchemy so the same
BKG function runs unchanged on SQLite and PostgreSQL. Read-only is enforced by the driver/session,
not by inspecting SQL, because the handle also runs SQL written by others.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import math
import time
from typing import Any

import numpy as np
import pandas as pd
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url

from eval_pipeline.core import models


def redact_url(url: str) -> str:
    """The URL with its password replaced by ``***``, safe for messages and stored metadata."""
    try:
        parsed = make_url(url)
    except Exception:  # an unparsable URL is redacted wholesale
        return "<unparsable database URL>"
    return parsed.render_as_string(hide_password=True)


def to_python(value: Any) -> Any:
    """numpy/pandas/Decimal scalars as plain JSON-friendly Python values; NaN/NaT become None."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        return int(value) if isinstance(exponent, int) and exponent >= 0 else float(value)
    if isinstance(value, pd.Timestamp | dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return value


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_read_only(url: URL) -> URL:
    """Open a file database through a ``mode=ro`` URI so the OS-level handle cannot write."""
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return url
    return url.set(database=f"file:{database}", query={**url.query, "mode": "ro", "uri": "true"})


def _pg_options(url: URL, read_only: bool, statement_timeout_s: float) -> str:
    """Merge our session settings into the ``options`` the URL may carry (e.g. search_path)."""
    existing = url.query.get("options", "")
    if isinstance(existing, tuple):
        existing = " ".join(existing)
    ours = [f"-c statement_timeout={int(statement_timeout_s * 1000)}"]
    if read_only:
        ours.append("-c default_transaction_read_only=on")
    return " ".join([existing, *ours]).strip()


def _build_sqlite_engine(parsed: URL, read_only: bool, statement_timeout_s: float) -> Engine:
    in_memory = parsed.database in (None, "", ":memory:")
    if read_only:
        parsed = _sqlite_read_only(parsed)
    pool: dict[str, Any] = (
        {"poolclass": sa.pool.StaticPool}
        if in_memory
        else {"poolclass": sa.pool.QueuePool, "pool_size": 4, "max_overflow": 4}
    )
    engine = sa.create_engine(
        parsed, connect_args={"check_same_thread": False, "timeout": statement_timeout_s}, **pool
    )

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, record: Any) -> None:
        if read_only:
            dbapi_conn.execute("PRAGMA query_only = ON")
        info = record.info
        # SQLite has no statement_timeout: interrupt a statement that runs past its deadline.
        dbapi_conn.set_progress_handler(
            lambda: int(time.monotonic() > info.get("deadline", math.inf)), 10_000
        )

    @sa.event.listens_for(engine, "before_cursor_execute")
    def _arm_deadline(conn: sa.Connection, *_args: Any) -> None:
        conn.info["deadline"] = time.monotonic() + statement_timeout_s

    return engine


def _build_engine(url: str, read_only: bool, statement_timeout_s: float) -> Engine:
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _build_sqlite_engine(parsed, read_only, statement_timeout_s)
    if backend == "postgresql":
        options = _pg_options(parsed, read_only, statement_timeout_s)
        return sa.create_engine(
            parsed.difference_update_query(["options"]),
            connect_args={"options": options, "connect_timeout": max(1, int(statement_timeout_s))},
            pool_size=4,
            max_overflow=4,
            pool_pre_ping=True,
        )
    raise ValueError(f"unsupported database backend {backend!r} (sqlite or postgresql)")


class Database:
    """The small handle BKG functions receive: query → DataFrame / scalar.

    Works on SQLite and PostgreSQL via SQLAlchemy; one pooled engine per handle, safe to share
    between the threads that evaluate cases concurrently.
    """

    def __init__(
        self, url: str, *, read_only: bool = True, statement_timeout_s: float = 30.0
    ) -> None:
        self.url = url
        self.read_only = read_only
        self._engine = _build_engine(url, read_only, statement_timeout_s)
        self.dialect: str = self._engine.dialect.name

    def __repr__(self) -> str:
        return f"Database({redact_url(self.url)!r}, read_only={self.read_only})"

    def query(self, sql: str, **params: Any) -> pd.DataFrame:
        """Run one statement with named binds (``:name``) and return its rows as a DataFrame."""
        with self._engine.connect() as conn:
            result = conn.execute(sa.text(sql), params)
            if not result.returns_rows:
                conn.commit()
                return pd.DataFrame()
            columns = list(result.keys())
            rows = [tuple(row) for row in result.fetchall()]
        frame = pd.DataFrame.from_records(rows, columns=columns)
        # PostgreSQL NUMERIC arrives as Decimal, which does not mix with float arithmetic.
        for name in frame.columns:
            column = frame[name]
            if column.dtype == object and any(isinstance(v, decimal.Decimal) for v in column):
                frame[name] = column.map(to_python)
        return frame

    def scalar(self, sql: str, **params: Any) -> Any:
        """First column of the first row as a plain Python value; None when there is no row."""
        with self._engine.connect() as conn:
            row = conn.execute(sa.text(sql), params).first()
        return None if row is None else to_python(row[0])

    def execute(self, sql: str, **params: Any) -> None:
        """Run a writing statement; only for handles opened with ``read_only=False`` (loaders)."""
        with self._engine.begin() as conn:
            conn.execute(sa.text(sql), params)

    def table_names(self) -> list[str]:
        """Tables and views of the live catalog (default schema / search_path)."""
        inspector = sa.inspect(self._engine)
        return sorted({*inspector.get_table_names(), *inspector.get_view_names()})

    def columns(self, table: str) -> list[str]:
        return [str(col["name"]) for col in sa.inspect(self._engine).get_columns(table)]

    def fingerprint(self, table: models.Table) -> str:
        """A cheap change detector: hash of COUNT(*) and MAX(col) for the fingerprint columns."""
        selects = ["COUNT(*)"] if table.fingerprint.row_count else []
        selects += [f"MAX({_quote(col)})" for col in table.fingerprint.columns]
        if not selects:
            return hashlib.sha256(b"").hexdigest()[:16]
        sql = f"SELECT {', '.join(selects)} FROM {_quote(table.name)}"
        with self._engine.connect() as conn:
            row = conn.execute(sa.text(sql)).one()
        payload = json.dumps([to_python(v) for v in row], default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
