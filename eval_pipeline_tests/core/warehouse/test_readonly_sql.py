"""The read-only SQL tool on real SQLite and PostgreSQL: reads work, every kind of write is refused.

Each refusal is also checked against the data: the table must be exactly as it was.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest

from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.core.warehouse.readonly_sql import compare_tool_result, execute_readonly_sql
from eval_pipeline.core.warehouse.sql_guard import UnsafeSQLError

SEED = [
    "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, amount NUMERIC(12,4))",
    "INSERT INTO t VALUES (1, 'a', 10.5)",
    "INSERT INTO t VALUES (2, 'b', 20.25)",
    "INSERT INTO t VALUES (3, 'c', NULL)",
]
SEED_ROWS = [[1, "a", 10.5], [2, "b", 20.25], [3, "c", None]]

REFUSED = {
    "create": "CREATE TABLE u (x INTEGER)",
    "drop": "DROP TABLE t",
    "alter": "ALTER TABLE t ADD COLUMN extra INTEGER",
    "insert": "INSERT INTO t VALUES (9, 'z', 1)",
    "update": "UPDATE t SET amount = 0",
    "delete": "DELETE FROM t",
    "stacked": "SELECT 1; DROP TABLE t",
    "stacked_after_comment": "SELECT 1 -- harmless\n; DELETE FROM t",
    "write_in_cte": "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x",
    "select_into": "SELECT * INTO u FROM t",
    "for_update": "SELECT * FROM t FOR UPDATE",
    "copy": "COPY t TO '/tmp/readonly_sql_copy.csv'",
    "attach": "ATTACH DATABASE '/tmp/readonly_sql_attached.db' AS other",
    "pragma": "PRAGMA writable_schema = ON",
    "set": "SET default_transaction_read_only = off",
    "pg_sleep": "SELECT pg_sleep(5)",
    "qualified_pg_sleep": "SELECT pg_catalog.pg_sleep(5)",
    "pg_sleep_in_where": "SELECT id FROM t WHERE pg_sleep(5) IS NOT NULL",
    "set_config": "SELECT set_config('default_transaction_read_only', 'off', false)",
    "pg_terminate_backend": "SELECT pg_terminate_backend(1)",
    "pg_read_file": "SELECT pg_read_file('/etc/passwd')",
    "pg_ls_dir": "SELECT * FROM pg_ls_dir('.')",
    "lo_import": "SELECT lo_import('/etc/passwd')",
    "nextval": "SELECT nextval('some_seq')",
    "advisory_lock": "SELECT pg_advisory_lock(1)",
    "txid": "SELECT txid_current()",
    "dblink": "SELECT * FROM dblink('dbname=test', 'DELETE FROM t') AS x(a int)",
    "query_to_xml": "SELECT query_to_xml('DELETE FROM t RETURNING 1', true, true, '')",
    "load_extension": "SELECT load_extension('/tmp/evil.so')",
    "readfile": "SELECT readfile('/etc/passwd')",
    "writefile": "SELECT writefile('/tmp/readonly_sql_out', 'x')",
    "not_sql": "please drop the table",
}


def _seed(url: str) -> str:
    with Database(url, read_only=False) as writer:
        for statement in SEED:
            writer.execute(statement)
    return url


@pytest.fixture(scope="module")
def pg_module_url(pg_admin_url: str) -> Iterator[str]:
    """One schema for the whole module: every test leaves the data as it found it (asserted)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = Database(pg_admin_url, read_only=False)
    admin.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in pg_admin_url else "?"
    yield _seed(f"{pg_admin_url}{sep}options=-csearch_path%3D{schema}")
    admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
    admin.close()


@pytest.fixture(scope="module")
def sqlite_module_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _seed(f"sqlite:///{tmp_path_factory.mktemp('tool') / 'tool.db'}")


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def url(request: pytest.FixtureRequest) -> str:
    fixture = {"sqlite": "sqlite_module_url", "postgresql": "pg_module_url"}[request.param]
    return str(request.getfixturevalue(fixture))


@pytest.fixture
def db(url: str) -> Iterator[Database]:
    handle = Database(url, read_only=True, statement_timeout_s=10)
    yield handle
    handle.close()


def _unchanged(url: str) -> bool:
    with Database(url) as fresh:
        return execute_readonly_sql(fresh, "SELECT * FROM t ORDER BY id").rows == SEED_ROWS


def test_select_returns_json_safe_rows(db: Database) -> None:
    result = execute_readonly_sql(db, "SELECT id, name, amount FROM t ORDER BY id;")
    assert result.ok, result.error
    assert result.columns == ["id", "name", "amount"]
    assert result.rows == SEED_ROWS  # NUMERIC arrives as float, NULL as None on both engines
    assert (result.row_count, result.truncated) == (3, False)
    assert result.model_dump_json()  # JSON-safe all the way down


def test_select_with_cte_comment_and_binds(db: Database) -> None:
    sql = "WITH big AS (SELECT * FROM t WHERE id >= :low) -- trailing comment\nSELECT name FROM big"
    result = execute_readonly_sql(db, sql, params={"low": 2})
    assert result.ok, result.error
    assert sorted(row[0] for row in result.rows) == ["b", "c"]


def test_driver_types_come_back_json_safe(db: Database) -> None:
    if db.dialect == "postgresql":
        sql = (
            "SELECT ARRAY[1.5::numeric, 2] AS a, interval '1 day' AS i, "
            "'{\"k\": 1}'::json AS j, DATE '2024-03-01' AS d, '\\x01ff'::bytea AS b"
        )
        expected = [[1.5, 2], "1 days 00:00:00", {"k": 1}, "2024-03-01", "01ff"]
    else:
        sql = "SELECT 1.5 AS a, x'01ff' AS b"
        expected = [1.5, "01ff"]
    result = execute_readonly_sql(db, sql)
    assert result.ok, result.error
    assert result.rows == [expected]
    json.dumps(result.rows, allow_nan=False)  # intervals and the like come back as text


def test_rows_are_capped_and_truncation_reported(db: Database) -> None:
    result = execute_readonly_sql(db, "SELECT id FROM t ORDER BY id", max_rows=2)
    assert result.ok, result.error
    assert result.rows == [[1], [2]]
    assert (result.row_count, result.truncated) == (2, True)


def test_database_errors_are_reported_not_raised(db: Database) -> None:
    result = execute_readonly_sql(db, "SELECT no_such_column FROM t")
    assert not result.ok
    assert result.error and "no_such_column" in result.error
    assert "[SQL:" not in result.error


@pytest.mark.parametrize("sql", REFUSED.values(), ids=REFUSED.keys())
def test_refused_and_nothing_changes(db: Database, url: str, sql: str) -> None:
    result = execute_readonly_sql(db, sql)
    assert not result.ok
    assert result.error is not None and result.error.startswith("refused"), result.error
    assert _unchanged(url)


def test_side_effect_refusal_names_the_function(db: Database) -> None:
    result = execute_readonly_sql(db, "SELECT id, PG_SLEEP(1) FROM t")
    assert result.error == "refused: functions with side effects are not allowed: pg_sleep"


def test_a_writable_handle_is_refused(url: str) -> None:
    with Database(url, read_only=False) as writable:
        result = execute_readonly_sql(writable, "SELECT id FROM t")
    assert not result.ok
    assert result.error == "refused: the database handle is not read-only"


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t VALUES (9, 'z', 1)",
        "UPDATE t SET amount = 0",
        "DELETE FROM t",
        "DROP TABLE t",
        "CREATE TABLE u (x INTEGER)",
    ],
)
def test_the_handle_refuses_writes_without_the_tool(db: Database, url: str, sql: str) -> None:
    with pytest.raises(UnsafeSQLError, match="only queries may run"):
        db.query(sql)
    assert _unchanged(url)


# --------------------------------------------------------------------------- compare_tool_result


def test_compare_matches_identical_rows(db: Database) -> None:
    check = compare_tool_result(db, "SELECT id, name, amount FROM t", SEED_ROWS)
    assert check.status == "matched", check.diff
    assert check.diff == "3 rows reported, 3 returned"


def test_compare_ignores_order_and_tiny_float_noise(db: Database) -> None:
    reported = [[3, "c", None], [2, "b", 20.25 * (1 + 1e-12)], [1, "a", "10.5"]]
    check = compare_tool_result(db, "SELECT id, name, amount FROM t ORDER BY id", reported)
    assert check.status == "matched", check.diff


def test_compare_aligns_mapping_rows_by_column_name(db: Database) -> None:
    reported = [{"AMOUNT": row[2], "name": row[1], "id": row[0]} for row in SEED_ROWS]
    check = compare_tool_result(db, "SELECT id, name, amount FROM t", reported)
    assert check.status == "matched", check.diff


def test_compare_flags_a_changed_value(db: Database) -> None:
    reported = [[1, "a", 10.5], [2, "b", 20.26], [3, "c", None]]
    check = compare_tool_result(db, "SELECT id, name, amount FROM t", reported)
    assert check.status == "mismatched"
    assert "1 returned rows not reported: [2, 'b', 20.25]" in check.diff
    assert "1 reported rows not returned: [2, 'b', 20.26]" in check.diff


def test_compare_flags_missing_and_duplicated_rows(db: Database) -> None:
    missing = compare_tool_result(db, "SELECT id, name, amount FROM t", SEED_ROWS[:2])
    assert missing.status == "mismatched"
    assert "1 returned rows not reported: [3, 'c', None]" in missing.diff
    assert "reported rows not returned" not in missing.diff
    doubled = compare_tool_result(db, "SELECT name FROM t", [["a"], ["a"], ["b"], ["c"]])
    assert doubled.status == "mismatched"  # a multiset: one "a" too many
    assert "1 reported rows not returned: ['a']" in doubled.diff


def test_compare_reports_more_rows_than_fetched(db: Database) -> None:
    check = compare_tool_result(db, "SELECT id FROM t ORDER BY id", [[1]], max_rows=1)
    assert check.status == "mismatched"
    assert "more than 1 rows" in check.diff


def test_compare_refuses_a_writing_query(db: Database, url: str) -> None:
    check = compare_tool_result(db, "DELETE FROM t RETURNING *", SEED_ROWS)
    assert check.status == "error"
    assert check.error is not None and check.error.startswith("refused")
    assert _unchanged(url)
