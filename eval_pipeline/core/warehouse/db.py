"""The read-only warehouse handle every reader goes through, plus URL redaction.

One small API (``query`` → DataFrame, ``scalar`` → plain Python value) over SQLAlchemy so the same
BKG function runs unchanged on SQLite and PostgreSQL. BKG functions, golden SQL references, the
LLM verifier's SQL tool, the sql dimension's catalog reads and table fingerprints all read through
it, behind the same walls:

* the statement: exactly one query calling no function with effects outside the transaction
  (``sql_guard``), so ``SET TRANSACTION READ WRITE; DELETE …`` or ``SET
  default_transaction_read_only = off`` never reach the server;
* the transaction: on PostgreSQL every statement runs in a ``READ ONLY`` transaction (the
  session's default too) that is rolled back, so nothing a statement changes outlives it, on
  this or any pooled connection;
* the connection: SQLite files are opened through ``mode=ro`` URIs with ``query_only`` on and an
  authorizer that allows reading only (no ``ATTACH``, no ``PRAGMA`` that sets anything, no
  writes, no ``load_extension``); on PostgreSQL the role should be one that cannot write at all
  (docs/deployment.md), and ``write_access`` says what the connected role could write.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import logging
import math
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url

from eval_pipeline.core import models
from eval_pipeline.core.warehouse.sql_guard import check_statement, is_blocked_function

if TYPE_CHECKING:  # pandas loads with the first query: `validate` and a run's own steps make none
    import pandas as pd

log = logging.getLogger(__name__)

# PRAGMAs the SQLite authorizer lets through: introspection (they take a table or index name)
# and reading a setting (no value given); SQLAlchemy's inspector and dialect use these.
_INTROSPECTION_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "database_list",
        "collation_list",
        "function_list",
        "compile_options",
    }
)
_READABLE_PRAGMAS = frozenset(
    {"read_uncommitted", "query_only", "foreign_keys", "user_version", "encoding", "page_size"}
)
_SQLITE_READS = frozenset({sqlite3.SQLITE_READ, sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE})


def redact_url(url: str) -> str:
    """The URL with its password replaced by ``***``, safe for messages and stored metadata."""
    try:
        parsed = make_url(url)
    except Exception:  # an unparsable URL is redacted wholesale
        return "<unparsable database URL>"
    return parsed.render_as_string(hide_password=True)


def to_python(value: Any) -> Any:
    """numpy/pandas/Decimal scalars as plain JSON-friendly Python values; NaN/NaT become None."""
    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dt.datetime) and value != value:  # pandas' NaT, unequal to itself
        return None
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        return int(value) if isinstance(exponent, int) and exponent >= 0 else float(value)
    if isinstance(value, dt.date | dt.time):  # pandas' Timestamp is a datetime
        return value.isoformat()
    return value


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_read_only(url: URL) -> URL:
    """Open a file database through a ``mode=ro`` URI so the OS-level handle cannot write; a
    ``mode`` the URL gives itself (``rwc``) is overridden."""
    database = url.database or ""
    if database in ("", ":memory:"):
        return url
    if not database.startswith("file:"):
        database = f"file:{database}"
    return url.set(database=database, query={**url.query, "mode": "ro", "uri": "true"})


def sqlite_authorizer(
    action: int, arg1: str | None, arg2: str | None, _db: str | None, _source: str | None
) -> int:
    """Allow reading only: no ATTACH (which opens any file read-write), no setting PRAGMA (such
    as ``query_only = OFF``), no write, no transaction control, no blocked function."""
    if action in _SQLITE_READS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if is_blocked_function(arg2 or "") else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in _INTROSPECTION_PRAGMAS or (name in _READABLE_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


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
            dbapi_conn.set_authorizer(sqlite_authorizer)
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
        engine = sa.create_engine(
            parsed.difference_update_query(["options"]),
            connect_args={"options": options, "connect_timeout": max(1, int(statement_timeout_s))},
            pool_size=4,
            max_overflow=4,
            pool_pre_ping=True,
        )
        if read_only:

            @sa.event.listens_for(engine, "connect")
            def _read_only_transactions(dbapi_conn: Any, _record: Any) -> None:
                dbapi_conn.readonly = True  # psycopg2 opens every transaction READ ONLY

        return engine
    raise ValueError(f"unsupported database backend {backend!r} (sqlite or postgresql)")


_PG_WRITE_ACCESS = """
SELECT
  (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
  pg_has_role(current_user,
              (SELECT oid FROM pg_roles WHERE rolname = 'pg_write_all_data'), 'USAGE')
    AS writes_all_data,
  ARRAY(SELECT n.nspname || '.' || c.relname
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
           AND n.nspname = ANY (current_schemas(false))
           AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
         ORDER BY 1) AS writable_tables,
  ARRAY(SELECT s FROM unnest(current_schemas(false)) AS s
         WHERE has_schema_privilege(s, 'CREATE') ORDER BY 1) AS creatable_schemas,
  has_database_privilege(current_database(), 'CREATE') AS creates_schemas,
  current_user AS role
"""


class Database:
    """The read-only handle every warehouse reader gets: query → DataFrame / scalar.

    Works on SQLite and PostgreSQL via SQLAlchemy; one pooled engine per handle, safe to share
    between the threads that evaluate cases concurrently. ``read_only=False`` is for loaders and
    tests that build a warehouse; nothing that evaluates opens one.
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

    @contextmanager
    def _reading(self, sql: str | None = None) -> Iterator[sa.Connection]:
        """A pooled connection for one read, ``sql`` checked first; whatever happened, its
        transaction is rolled back before the connection goes back to the pool."""
        if sql is not None and self.read_only:
            check_statement(sql, self.dialect)
        with self._engine.connect() as conn:
            try:
                yield conn
            finally:
                conn.rollback()

    def query(self, sql: str, **params: Any) -> pd.DataFrame:
        """Run one query with named binds (``:name``) and return its rows as a DataFrame."""
        import pandas as pd

        with self._reading(sql) as conn:
            result = conn.execute(sa.text(sql), params)
            if not result.returns_rows:
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
        with self._reading(sql) as conn:
            row = conn.execute(sa.text(sql), params).first()
        return None if row is None else to_python(row[0])

    def execute(self, sql: str, **params: Any) -> None:
        """Run a writing statement; only for handles opened with ``read_only=False`` (loaders)."""
        if self.read_only:
            raise PermissionError("the warehouse handle is read-only")
        with self._engine.begin() as conn:
            conn.execute(sa.text(sql), params)

    def table_names(self) -> list[str]:
        """Tables and views of the live catalog (default schema / search_path)."""
        with self._reading() as conn:
            inspector = sa.inspect(conn)
            return sorted({*inspector.get_table_names(), *inspector.get_view_names()})

    def columns(self, table: str) -> list[str]:
        with self._reading() as conn:
            return [str(col["name"]) for col in sa.inspect(conn).get_columns(table)]

    def fingerprint(self, table: models.Table) -> str:
        """A cheap change detector: hash of COUNT(*) and MAX(col) for the fingerprint columns."""
        selects = ["COUNT(*)"] if table.fingerprint.row_count else []
        selects += [f"MAX({_quote(col)})" for col in table.fingerprint.columns]
        if not selects:
            return hashlib.sha256(b"").hexdigest()[:16]
        sql = f"SELECT {', '.join(selects)} FROM {_quote(table.name)}"
        with self._reading(sql) as conn:
            row = conn.execute(sa.text(sql)).one()
        payload = json.dumps([to_python(v) for v in row], default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def write_access(self) -> list[str]:
        """What the connected role could write if the read-only transactions were not there;
        empty for a role that cannot write at all (and for SQLite, opened ``mode=ro``)."""
        if self.dialect != "postgresql":
            return []
        row = self.query(_PG_WRITE_ACCESS).iloc[0]
        found = []
        if row["superuser"]:
            found.append(f"role {row['role']!r} is a superuser")
        if row["writes_all_data"]:
            found.append(f"role {row['role']!r} is a member of pg_write_all_data")
        tables = list(row["writable_tables"])
        if tables:
            shown = ", ".join(tables[:5]) + (
                f" and {len(tables) - 5} more" if len(tables) > 5 else ""
            )
            found.append(f"INSERT, UPDATE, DELETE or TRUNCATE on {shown}")
        if list(row["creatable_schemas"]):
            found.append("CREATE in schema " + ", ".join(row["creatable_schemas"]))
        if row["creates_schemas"]:
            found.append("CREATE on the database")
        return found

    def warn_if_writable(self, variable: str | None = None) -> list[str]:
        """Log a warning naming what the role could write, and the setting ``variable`` that
        holds the URL when there is one; the same list is returned."""
        found = self.write_access()
        if found:
            shown = redact_url(self.url)
            log.warning(
                "WARNING: the warehouse connection %s can write (%s). Every query still runs in "
                "a read-only transaction that is rolled back, but connect with a role that "
                "cannot write: docs/deployment.md, 'The read-only database role'.",
                f"{variable}={shown}" if variable else shown,
                "; ".join(found),
            )
        return found

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
