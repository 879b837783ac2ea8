"""The database handle on real SQLite and PostgreSQL: same SQL, same answers, really read-only."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from eval_pipeline.core import models
from eval_pipeline.core.warehouse.db import Database, redact_url, to_python
from eval_pipeline.core.warehouse.sql_guard import UnsafeSQLError

SEED = [
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, amount NUMERIC(10,2), ts TEXT)",
    "INSERT INTO items VALUES (1, 'a', 10.50, '2024-01-01')",
    "INSERT INTO items VALUES (2, 'b', 20.25, '2024-02-01')",
    "INSERT INTO items VALUES (3, NULL, NULL, '2024-03-01')",
]

ITEMS = models.Table(
    name="items",
    description="things",
    columns=[
        models.Column(name="id", type="integer", description=""),
        models.Column(name="ts", type="text", description=""),
    ],
    primary_key=["id"],
    fingerprint=models.Fingerprint(columns=["ts"], row_count=True),
)


def _seed(url: str) -> None:
    writer = Database(url, read_only=False)
    for statement in SEED:
        writer.execute(statement)
    writer.close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    _seed(url)
    return url


@pytest.fixture
def pg_url(pg_schema_url: str) -> str:
    _seed(pg_schema_url)
    return pg_schema_url


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url"))


@pytest.fixture
def db(url: str) -> Iterator[Database]:
    handle = Database(url)
    yield handle
    handle.close()


def test_dialect_is_reported(db: Database, url: str) -> None:
    assert db.dialect == ("sqlite" if url.startswith("sqlite") else "postgresql")


def test_query_returns_dataframe_with_named_binds(db: Database) -> None:
    frame = db.query("SELECT id, name, amount FROM items WHERE id >= :low ORDER BY id", low=2)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["id", "name", "amount"]
    assert frame["id"].tolist() == [2, 3]
    # NUMERIC must be usable in float arithmetic on both engines (PostgreSQL returns Decimal).
    assert frame["amount"].iloc[0] * 1.0 == pytest.approx(20.25)


def test_query_without_rows_keeps_columns(db: Database) -> None:
    frame = db.query("SELECT id, name FROM items WHERE id = :id", id=99)
    assert frame.empty
    assert list(frame.columns) == ["id", "name"]


def test_scalar_returns_plain_python(db: Database) -> None:
    count = db.scalar("SELECT COUNT(*) FROM items")
    assert count == 3 and type(count) is int
    total = db.scalar("SELECT SUM(amount) FROM items")
    assert total == pytest.approx(30.75) and type(total) is float
    assert db.scalar("SELECT name FROM items WHERE id = :id", id=1) == "a"


def test_scalar_none_when_no_row_and_with_null_bind(db: Database) -> None:
    assert db.scalar("SELECT id FROM items WHERE id = :id", id=42) is None
    # A None bind is sent as SQL NULL: "= NULL" matches nothing, IS NULL / COALESCE work.
    assert db.scalar("SELECT COUNT(*) FROM items WHERE name = :n", n=None) == 0
    assert db.scalar("SELECT COUNT(*) FROM items WHERE :n IS NULL OR name = :n", n=None) == 3
    assert db.scalar("SELECT id FROM items WHERE name IS NULL") == 3


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO items VALUES (9, 'z', 1, '2025-01-01')",
        "CREATE TABLE intruder (x INTEGER)",
        "DELETE FROM items",
    ],
)
def test_read_only_refuses_writes(db: Database, statement: str) -> None:
    with pytest.raises(UnsafeSQLError):
        db.query(statement)
    with pytest.raises(PermissionError):
        db.execute(statement)
    assert db.scalar("SELECT COUNT(*) FROM items") == 3
    assert "intruder" not in db.table_names()


def test_catalog(db: Database) -> None:
    assert "items" in db.table_names()
    assert db.columns("items") == ["id", "name", "amount", "ts"]


def test_fingerprint_changes_only_when_data_changes(db: Database, url: str) -> None:
    before = db.fingerprint(ITEMS)
    assert db.fingerprint(ITEMS) == before
    writer = Database(url, read_only=False)
    writer.execute("UPDATE items SET name = 'renamed' WHERE id = 1")
    # A change to a column outside the fingerprint is (by design) not detected.
    assert db.fingerprint(ITEMS) == before
    writer.execute("UPDATE items SET ts = '2030-01-01' WHERE id = 1")
    moved = db.fingerprint(ITEMS)
    assert moved != before
    writer.execute("INSERT INTO items VALUES (4, 'd', 1, '2000-01-01')")
    writer.close()
    assert db.fingerprint(ITEMS) != moved


def test_fingerprint_without_row_count_ignores_inserts_below_max(db: Database, url: str) -> None:
    table = ITEMS.model_copy(
        update={"fingerprint": models.Fingerprint(columns=["ts"], row_count=False)}
    )
    before = db.fingerprint(table)
    writer = Database(url, read_only=False)
    writer.execute("INSERT INTO items VALUES (5, 'e', 1, '1999-01-01')")
    writer.close()
    assert db.fingerprint(table) == before
    assert db.fingerprint(ITEMS) != db.fingerprint(table)


def test_concurrent_queries_from_a_thread_pool(db: Database) -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(
            pool.map(
                lambda i: db.scalar("SELECT COUNT(*) FROM items WHERE id <= :i", i=i), range(40)
            )
        )
    assert results == [min(i, 3) for i in range(40)]


def test_sqlite_statement_timeout_interrupts_runaway_query(sqlite_url: str) -> None:
    handle = Database(sqlite_url, statement_timeout_s=0.05)
    runaway = (
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n"
    )
    with pytest.raises(sa.exc.OperationalError, match="interrupted"):
        handle.scalar(runaway)
    assert handle.scalar("SELECT COUNT(*) FROM items") == 3
    handle.close()


def test_postgres_statement_timeout_cancels(pg_url: str) -> None:
    handle = Database(pg_url, statement_timeout_s=0.05)
    with pytest.raises(sa.exc.OperationalError, match="statement timeout"):
        handle.scalar("SELECT COUNT(*) FROM generate_series(1, 1000000000)")
    handle.close()


def test_postgres_keeps_search_path_from_url(pg_url: str) -> None:
    # The fixture URL selects its schema through `options`; our session options must not drop it.
    with Database(pg_url) as handle:
        assert handle.scalar("SHOW default_transaction_read_only") == "on"
        assert handle.scalar("SELECT COUNT(*) FROM items") == 3


def test_read_only_sqlite_does_not_create_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    handle = Database(f"sqlite:///{missing}")
    with pytest.raises(sa.exc.OperationalError):
        handle.scalar("SELECT 1")
    handle.close()
    assert not missing.exists()


def test_redact_url_hides_password() -> None:
    redacted = redact_url("postgresql+psycopg2://alice:s3cr3t@db.example:5432/wh?sslmode=require")
    assert "s3cr3t" not in redacted
    assert redacted == "postgresql+psycopg2://alice:***@db.example:5432/wh?sslmode=require"
    assert redact_url("sqlite:///tmp/x.db") == "sqlite:///tmp/x.db"
    assert "s3cr3t" not in redact_url("not a url s3cr3t")


def test_repr_does_not_leak_password(tmp_path: Path) -> None:
    handle = Database(f"sqlite:///{tmp_path / 'x.db'}")
    assert "sqlite" in repr(handle)
    url = "postgresql+psycopg2://bob:hunter2@127.0.0.1:1/none"
    assert "hunter2" not in repr(Database(url))


def test_to_python_knows_pandas_values_without_importing_pandas() -> None:
    """Missing dates are None and timestamps ISO text, whether pandas, numpy or plain."""
    assert to_python(pd.NaT) is None
    assert to_python(np.datetime64("NaT")) is None
    assert to_python(pd.Timestamp("2026-03-01 12:30")) == "2026-03-01T12:30:00"
    assert to_python(dt.date(2026, 3, 1)) == "2026-03-01"
    assert to_python(np.float64("nan")) is None
    assert to_python(np.int64(7)) == 7
