"""Issue #17, item 5: read-only cannot be switched off, on real PostgreSQL and SQLite.

Every escape is tried through the handle that BKG functions, golden SQL, the LLM verifier's SQL
tool, the sql dimension's catalog reads and table fingerprints all read through, and each attempt
is followed by a look at the data (and the files) from a separate connection: nothing changed.
On PostgreSQL the handle connects as the superuser ``postgres``, the worst case, and then as the
read-only role the deployment guide's SQL creates. Last, through the command line: the warning
``validate`` and ``run`` print when the role can write, and KPIs that try to write in a run.
"""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Barrier
from typing import Any

import pytest
import sqlalchemy as sa

from eval_pipeline.cli.main import main
from eval_pipeline.core.inputs import reference_problems
from eval_pipeline.core.models import BKG, GoldenCase, Reference
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime
from eval_pipeline.core.warehouse.db import Database, sqlite_authorizer
from eval_pipeline.core.warehouse.sql_guard import UnsafeSQLError
from eval_pipeline.demo import tiny
from eval_pipeline_tests.stored_results import GoodRun, one_line
from eval_pipeline_tests.stored_run import stderr_lines, summary_of

DEPLOYMENT_DOC = Path(__file__).resolve().parents[3] / "docs" / "deployment.md"
SEED = [
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)",
    "INSERT INTO items VALUES (1, 'a')",
    "INSERT INTO items VALUES (2, 'b')",
    "INSERT INTO items VALUES (3, 'c')",
]
ROWS = [(1, "a"), (2, "b"), (3, "c")]

# Refused by the statement check on both engines, whatever the role.
NOT_ONE_QUERY = {
    "set_read_write_then_delete": "SET TRANSACTION READ WRITE; DELETE FROM items",
    "and_commit": "SET TRANSACTION READ WRITE; DELETE FROM items; COMMIT",
    "commit_first": "COMMIT; SET default_transaction_read_only = off; DELETE FROM items",
    "session_default_off": "SET default_transaction_read_only = off",
    "session_characteristics": "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
    "start_read_write": "START TRANSACTION READ WRITE",
    "begin": "BEGIN",
    "commit": "COMMIT",
    "reset_all": "RESET ALL",
    "discard_all": "DISCARD ALL",
    "delete": "DELETE FROM items",
    "drop": "DROP TABLE items",
    "create_temp": "CREATE TEMP TABLE scratch (x INTEGER)",
    "do_block": "DO $$ BEGIN DELETE FROM items; END $$",
    "explain_analyze_delete": "EXPLAIN ANALYZE DELETE FROM items",
    "copy_to_file": "COPY items TO '/tmp/eval_escape_copy.csv'",
    "copy_to_program": "COPY (SELECT 1) TO PROGRAM 'touch /tmp/eval_escape_program'",
    "semicolon_in_string": "SELECT '\\'; DELETE FROM items; --'",
    "semicolon_in_comment": "SELECT 1 /* ; */ FROM items",
    "pragma_query_only_off": "PRAGMA query_only = OFF",
    "attach": "ATTACH DATABASE 'file:/tmp/eval_escape_attached.db?mode=rwc' AS other",
    "vacuum_into": "VACUUM INTO '/tmp/eval_escape_vacuum.db'",
}
# One query, refused by the function deny-list (model SQL and golden SQL share it).
BLOCKED_CALLS = {
    "set_config": "SELECT set_config('default_transaction_read_only', 'off', false)",
    "pg_read_file": "SELECT pg_read_file('/etc/hostname')",
    "pg_read_binary_file": "SELECT pg_read_binary_file('/etc/hostname')",
    "pg_ls_dir": "SELECT * FROM pg_ls_dir('.')",
    "lo_import": "SELECT lo_import('/etc/hostname')",
    "lo_create": "SELECT lo_create(0)",
    "dblink": "SELECT * FROM dblink('dbname=test', 'DELETE FROM items') AS t(x int)",
    "dblink_exec": "SELECT dblink_exec('dbname=test', 'DELETE FROM items')",
    "query_to_xml": "SELECT query_to_xml('DELETE FROM items RETURNING 1', true, true, '')",
    "pg_sleep": "SELECT pg_sleep(30)",
    "load_extension": "SELECT load_extension('/tmp/evil.so')",
    "writefile": "SELECT writefile('/tmp/eval_escape_writefile', 'x')",
    "nextval": "SELECT nextval('some_sequence')",
}
ESCAPE_FILES = [
    "/tmp/eval_escape_copy.csv",
    "/tmp/eval_escape_program",
    "/tmp/eval_escape_attached.db",
    "/tmp/eval_escape_vacuum.db",
    "/tmp/eval_escape_writefile",
]


def _seed(url: str) -> str:
    with Database(url, read_only=False) as writer:
        for statement in SEED:
            writer.execute(statement)
    return url


def _rows(url: str) -> list[tuple[Any, ...]]:
    """The table as a fresh connection outside the handle sees it."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(sa.text("SELECT id, name FROM items ORDER BY id"))]
        names = set(sa.inspect(conn).get_table_names())
    engine.dispose()
    assert names == {"items"}, f"tables appeared: {names - {'items'}}"
    return rows


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return _seed(f"sqlite:///{tmp_path / 'warehouse.db'}")


@pytest.fixture
def pg_url(pg_schema_url: str) -> str:
    return _seed(pg_schema_url)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url"))


@pytest.fixture
def db(url: str) -> Iterator[Database]:
    handle = Database(url, statement_timeout_s=10)
    yield handle
    handle.close()


@pytest.fixture(autouse=True)
def _no_escape_files() -> Iterator[None]:
    for name in ESCAPE_FILES:
        Path(name).unlink(missing_ok=True)
    yield
    created = [name for name in ESCAPE_FILES if Path(name).exists()]
    for name in created:
        Path(name).unlink()
    assert not created, f"an escape wrote {created}"


# --------------------------------------------------------------------------- the statement


@pytest.mark.parametrize("sql", NOT_ONE_QUERY.values(), ids=NOT_ONE_QUERY.keys())
def test_only_one_query_reaches_the_server(db: Database, url: str, sql: str) -> None:
    with pytest.raises(UnsafeSQLError, match=r"one SQL statement|only queries|no SQL"):
        db.query(sql)
    with pytest.raises(UnsafeSQLError):
        db.scalar(sql)
    assert _rows(url) == ROWS


@pytest.mark.parametrize("sql", BLOCKED_CALLS.values(), ids=BLOCKED_CALLS.keys())
def test_functions_with_effects_are_refused(db: Database, url: str, sql: str) -> None:
    with pytest.raises(UnsafeSQLError, match="functions with side effects are not allowed"):
        db.query(sql)
    assert _rows(url) == ROWS


def test_refusals_name_the_statement_count_and_the_function(db: Database) -> None:
    with pytest.raises(UnsafeSQLError, match="expected exactly one SQL statement, found 2"):
        db.query("SET TRANSACTION READ WRITE; DELETE FROM items")
    with pytest.raises(UnsafeSQLError, match=r"not SET$"):
        db.query("SET default_transaction_read_only = off")
    with pytest.raises(UnsafeSQLError, match=r"allowed: lo_import, pg_read_file$"):
        db.query("SELECT pg_read_file('/etc/hostname'), lo_import('/etc/hostname')")


def test_a_handle_refuses_execute(db: Database, url: str) -> None:
    with pytest.raises(PermissionError, match="read-only"):
        db.execute("DELETE FROM items")
    assert _rows(url) == ROWS


def test_reads_still_work_with_a_trailing_semicolon_and_comments(db: Database) -> None:
    sql = "-- the count\nWITH x AS (SELECT id FROM items WHERE id >= :low) SELECT COUNT(*) FROM x;"
    assert db.scalar(sql, low=2) == 2
    assert db.query("VALUES (1)").shape == (1, 1)


# --------------------------------------------------------------------------- PostgreSQL


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "WITH gone AS (DELETE FROM items RETURNING *) SELECT COUNT(*) FROM gone",
        "WITH moved AS (UPDATE items SET name = 'x' RETURNING *) SELECT COUNT(*) FROM moved",
        "SELECT * INTO stolen FROM items",
        "SELECT id FROM items FOR UPDATE",
    ],
    ids=["delete_in_cte", "update_in_cte", "select_into", "for_update"],
)
def test_postgres_one_query_that_writes_meets_a_read_only_transaction(
    pg_url: str, sql: str
) -> None:
    with (
        Database(pg_url) as handle,
        pytest.raises(sa.exc.DBAPIError, match="read-only transaction"),
    ):
        handle.query(sql)
    assert _rows(pg_url) == ROWS


@pytest.mark.postgres
def test_postgres_no_pooled_connection_is_left_writable(pg_url: str) -> None:
    """Attempts from many threads reach every pooled connection; afterwards each one, checked out
    at the same moment, still opens read-only transactions."""
    handle = Database(pg_url)
    attempts = [
        "SET default_transaction_read_only = off",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        "SELECT set_config('default_transaction_read_only', 'off', false)",
        "SET TRANSACTION READ WRITE; DELETE FROM items",
    ]

    def attack(i: int) -> str:
        try:
            handle.query(attempts[i % len(attempts)])
        except UnsafeSQLError as exc:
            return str(exc)
        return "ran"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(attack, range(64)))
    assert "ran" not in outcomes
    together = Barrier(8)

    def settings(_: int) -> tuple[str, str]:
        together.wait(timeout=30)  # eight connections checked out at once: the whole pool
        return (
            handle.scalar("SHOW default_transaction_read_only"),
            handle.scalar("SHOW transaction_read_only"),
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(settings, range(8))) == {("on", "on")}
    with pytest.raises(sa.exc.DBAPIError, match="read-only transaction"):
        handle.query("WITH gone AS (DELETE FROM items RETURNING *) SELECT COUNT(*) FROM gone")
    handle.close()
    assert _rows(pg_url) == ROWS


@pytest.mark.postgres
def test_postgres_other_sessions_and_large_objects_are_out_of_reach(
    pg_url: str, pg_admin_url: str
) -> None:
    bystander = sa.create_engine(pg_admin_url, poolclass=sa.pool.NullPool)
    with bystander.connect() as other, Database(pg_url) as handle:
        pid = other.execute(sa.text("SELECT pg_backend_pid()")).scalar()
        objects = other.execute(sa.text("SELECT COUNT(*) FROM pg_largeobject_metadata")).scalar()
        for sql in [
            f"SELECT pg_terminate_backend({pid})",
            f'SELECT "pg_terminate_backend"({pid})',
            f"SELECT pg_catalog.pg_terminate_backend /* split */ ({pid})",
            f"SELECT PG_CANCEL_BACKEND({pid})",
            f'SELECT U&"\\0070g_terminate_backend"({pid})',
            "SELECT lo_from_bytea(0, 'x')",
        ]:
            with pytest.raises(UnsafeSQLError):
                handle.query(sql)
        assert other.execute(sa.text("SELECT 1")).scalar() == 1  # still alive
        after = other.execute(sa.text("SELECT COUNT(*) FROM pg_largeobject_metadata")).scalar()
        assert after == objects
    bystander.dispose()


@pytest.mark.postgres
def test_postgres_superuser_connection_is_reported_as_writable(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Database(pg_url) as handle:
        found = handle.warn_if_writable()
    assert any("superuser" in item for item in found)
    assert any(
        "INSERT, UPDATE, DELETE or TRUNCATE on" in item and "items" in item for item in found
    )
    [record] = [r for r in caplog.records if r.levelname == "WARNING"]
    assert "can write" in record.getMessage()
    assert "The read-only database role" in record.getMessage()


def _documented_role_sql() -> str:
    """The SQL block under 'The read-only database role' in docs/deployment.md."""
    text = DEPLOYMENT_DOC.read_text()
    section = text.split("### The read-only database role", 1)[1]
    match = re.search(r"```sql\n(.*?)```", section, re.DOTALL)
    assert match, "docs/deployment.md lost the read-only role's SQL"
    return match.group(1)


@pytest.fixture
def reader_url(pg_url: str, pg_admin_url: str) -> Iterator[str]:
    """A role made by running the documented SQL on the test schema and database."""
    role = f"reader_{uuid.uuid4().hex[:10]}"
    schema = re.search(r"search_path%3D(\w+)", pg_url)
    assert schema
    database = sa.make_url(pg_admin_url).database or "test"
    sql = _documented_role_sql()
    sql = sql.replace("eval_reader", role).replace("analytics", database)
    sql = re.sub(r"\bpublic\b", schema.group(1), sql)
    admin = sa.create_engine(pg_admin_url, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql(sql)
    reader = sa.make_url(pg_url).set(username=role, password="change-me")
    yield reader.render_as_string(hide_password=False)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'DROP OWNED BY "{role}"; DROP ROLE "{role}"')
    admin.dispose()


@pytest.mark.postgres
def test_postgres_documented_read_only_role_cannot_write_at_all(
    reader_url: str, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Database(reader_url) as handle:
        assert handle.scalar("SELECT COUNT(*) FROM items") == 3
        assert handle.warn_if_writable() == []
        assert handle.table_names() == ["items"]
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
    # Even a plain connection of that role, outside every wall of the handle, cannot write.
    raw = sa.create_engine(reader_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with raw.connect() as conn:
        for sql in [
            "SET default_transaction_read_only = off",
            "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        ]:
            conn.exec_driver_sql(sql)  # switching the session off is allowed, writing is not
        for sql in [
            "DELETE FROM items",
            "UPDATE items SET name = 'x'",
            "INSERT INTO items VALUES (9, 'z')",
            "TRUNCATE items",
            "DROP TABLE items",
            "CREATE TABLE stolen (x INTEGER)",
            "CREATE SCHEMA stolen",
        ]:
            with pytest.raises(sa.exc.DBAPIError, match=r"permission denied|must be owner"):
                conn.exec_driver_sql(sql)
    raw.dispose()
    assert _rows(pg_url) == ROWS


# --------------------------------------------------------------------------- SQLite


def test_sqlite_authorizer_alone_stops_the_attach_escape(sqlite_url: str, tmp_path: Path) -> None:
    """The connection wall by itself, on a plain sqlite3 connection with the handle's authorizer:
    the escape of the issue (``query_only = OFF`` then ``ATTACH`` a file read-write) fails."""
    path = sa.make_url(sqlite_url).database
    target = tmp_path / "written.db"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.execute("PRAGMA query_only = ON")
    conn.set_authorizer(sqlite_authorizer)
    for sql in [
        "PRAGMA query_only = OFF",
        "PRAGMA writable_schema = ON",
        f"ATTACH DATABASE 'file:{target}?mode=rwc' AS other",
        "DETACH DATABASE other",
        "CREATE TEMP TABLE scratch (x INTEGER)",
        "INSERT INTO items VALUES (9, 'z')",
        "DELETE FROM items",
        "SELECT load_extension('/tmp/evil.so')",
    ]:
        with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
            conn.execute(sql)
    assert conn.execute("PRAGMA query_only").fetchone() == (1,)
    assert conn.execute("SELECT COUNT(*) FROM items").fetchone() == (3,)
    assert len(conn.execute("PRAGMA table_info(items)").fetchall()) == 2
    conn.close()
    assert not target.exists()
    assert _rows(sqlite_url) == ROWS


def test_sqlite_url_asking_for_read_write_is_still_read_only(tmp_path: Path) -> None:
    path = tmp_path / "warehouse.db"
    _seed(f"sqlite:///{path}")
    missing = tmp_path / "missing.db"
    for url in [f"sqlite:///file:{path}?mode=rwc&uri=true", f"sqlite:///{path}?mode=rw"]:
        with Database(url) as handle:
            assert handle.scalar("SELECT COUNT(*) FROM items") == 3
            with (
                pytest.raises(sa.exc.DBAPIError, match="not authorized"),
                handle._engine.connect() as conn,  # below the statement check, on purpose
            ):
                conn.exec_driver_sql("DELETE FROM items")
    with (
        Database(f"sqlite:///file:{missing}?mode=rwc&uri=true") as handle,
        pytest.raises(sa.exc.OperationalError),
    ):
        handle.scalar("SELECT 1")
    assert not missing.exists()
    assert _rows(f"sqlite:///{path}") == ROWS


def test_sqlite_catalog_and_fingerprints_read_through_the_authorizer(db: Database) -> None:
    assert db.table_names() == ["items"]
    assert db.columns("items") == ["id", "name"]
    assert db.write_access() == [] or db.dialect == "postgresql"


# --------------------------------------------------------------------------- golden SQL, BKG code

BKG_DOC: dict[str, Any] = {
    "name": "escapes",
    "tables": [
        {
            "name": "items",
            "description": "things",
            "columns": [{"name": "id", "type": "integer", "description": ""}],
            "primary_key": ["id"],
        }
    ],
    "kpis": [
        {
            "name": "rogue",
            "description": "a KPI that tries to write",
            "tables": ["items"],
            "python_function": (
                "def rogue(db):\n"
                "    for sql in ['SET default_transaction_read_only = off',\n"
                "                'SET TRANSACTION READ WRITE; DELETE FROM items; COMMIT']:\n"
                "        try:\n"
                "            db.query(sql)\n"
                "        except Exception:\n"
                "            pass\n"
                "    db.execute('DELETE FROM items')\n"
                "    return 0\n"
            ),
        }
    ],
}


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_read_file('/etc/hostname') AS secret",
        "SELECT length(pg_read_file('/etc/hostname')) AS n FROM items",
        "SELECT pg_terminate_backend(pg_backend_pid()) AS x",
        "SELECT lo_import('/etc/hostname') AS x",
        "SELECT readfile('/etc/hostname') AS x",
        "SELECT COUNT(*) FROM items; DELETE FROM items",
        "SELECT dblink_exec('dbname=test', 'DELETE FROM items') AS x",
        "SELECT * FROM dblink('dbname=test', 'SELECT 1') AS t(n int)",
        "COPY (SELECT * FROM items) TO '/tmp/items.csv'",
        "COPY items TO PROGRAM 'cat'",
    ],
)
def test_golden_sql_gets_the_model_sql_deny_list(db: Database, url: str, sql: str) -> None:
    runtime = BKGRuntime(BKG.model_validate(BKG_DOC))
    value = runtime.evaluate(Reference(sql=sql), db)
    assert value.error is not None
    refused = "functions with side effects are not allowed|one SQL statement|only SELECT / WITH"
    assert re.search(refused, value.error)
    case = GoldenCase.model_validate(
        {"id": "G1", "question": "q", "expected_answer": "a", "reference": [{"sql": sql}]}
    )
    [problem] = reference_problems("golden.json", runtime.bkg, [case], url)
    assert problem.location == "G1.reference[0]"
    assert _rows(url) == ROWS


def test_a_bkg_function_cannot_write_through_its_handle(db: Database, url: str) -> None:
    runtime = BKGRuntime(BKG.model_validate(BKG_DOC))
    value = runtime.evaluate(Reference(kpi="rogue"), db)
    assert value.error is not None and "PermissionError" in value.error
    assert _rows(url) == ROWS


# --------------------------------------------------------------------------- the command line


def _tiny_warehouse(url: str) -> str:
    """The tiny domain's tables loaded at ``url`` (a test schema), returned with a password in
    the URL (the test server trusts loopback) so that the messages can be seen to redact it."""
    tiny.load(url)
    parsed = sa.make_url(url)
    return parsed.set(password=parsed.password or "pw-never-shown").render_as_string(
        hide_password=False
    )


def _counts(url: str) -> tuple[int, ...]:
    """Rows of the tiny tables, counted from a connection outside the evaluation."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.connect() as conn:
        counts = tuple(
            int(conn.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())
            for table in ("orders", "products")
        )
    engine.dispose()
    return counts


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("command", "says"), [(["validate"], "inputs are valid"), (["run", "--run-key", "su"], "5/5")]
)
def test_postgres_cli_warns_in_one_line_when_the_role_can_write(
    good_env: GoodRun,
    pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    says: str,
) -> None:
    """The issue's item 5 at the start of ``validate`` and ``run``: a superuser connection goes
    on, with one warning line naming the variable, password redacted, on stderr."""
    url = _tiny_warehouse(pg_url)
    monkeypatch.setenv("EVAL_DATABASE_URL", url)
    assert main(command) == 0
    captured = capsys.readouterr()
    assert says in captured.out
    line = one_line(captured.err)
    parsed = sa.make_url(url)
    shown = parsed.render_as_string(hide_password=True)
    assert ":***@" in shown and str(parsed.password) not in captured.out + captured.err
    assert line.startswith(
        f"WARNING: the warehouse connection EVAL_DATABASE_URL={shown} can write "
        f"(role '{parsed.username}' is a superuser; "
    ), line
    assert line.endswith("docs/deployment.md, 'The read-only database role'."), line
    good_env.before.assert_unchanged()


@pytest.mark.postgres
def test_postgres_cli_prints_no_warning_for_the_documented_read_only_role(
    good_env: GoodRun,
    pg_url: str,
    reader_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The warning is no noise: with the role the deployment guide creates, nothing at all."""
    _tiny_warehouse(pg_url)  # created after the role: its default privileges let it read them
    monkeypatch.setenv("EVAL_DATABASE_URL", reader_url)
    assert main(["validate"]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("inputs are valid\n", "")


WRITING_KPIS = {  # a KPI's attempt to write through its handle: the reason its case errs
    "two_statements": (
        "SET TRANSACTION READ WRITE; DELETE FROM orders",
        "UnsafeSQLError: expected exactly one SQL statement, found 2",
    ),
    "delete": (
        "DELETE FROM orders RETURNING order_id",
        "UnsafeSQLError: only queries may run on the warehouse (SELECT, WITH, VALUES, TABLE, "
        "SHOW), not DELETE",
    ),
}
PG_WRITING_KPIS = {  # one query that passes the statement check and meets the transaction
    "delete_in_cte": (
        "WITH gone AS (DELETE FROM orders RETURNING *) SELECT COUNT(*) FROM gone",
        "InternalError: cannot execute SELECT in a read-only transaction",
    ),
}


@pytest.mark.parametrize(
    "warehouse", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def test_a_kpi_that_writes_in_a_run_errs_its_case_and_changes_nothing(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
    warehouse: str,
) -> None:
    """Through ``run``: each writing KPI's case is ``error`` with the refusal as its reason, the
    other cases pass, the warehouse keeps its rows and the good run stored first is unchanged.
    On PostgreSQL the role is the superuser: only the handle's walls stand in the way."""
    if warehouse == "postgresql":
        url = _tiny_warehouse(request.getfixturevalue("pg_url"))
        monkeypatch.setenv("EVAL_DATABASE_URL", url)
    else:
        url = good_env.settings.database_url
    rows = _counts(url)
    bkg = json.loads(good_env.settings.bkg_path.read_text())
    units = next(k for k in bkg["kpis"] if k["name"] == "units_sold")
    golden = json.loads(good_env.settings.golden_path.read_text())
    question = next(c for c in golden if c["id"] == "TC_003")
    attempts = {**WRITING_KPIS, **(PG_WRITING_KPIS if warehouse == "postgresql" else {})}
    for name, (sql, _) in attempts.items():
        source = f"def write_{name}(db, product):\n    db.query({sql!r})\n    return 0\n"
        bkg["kpis"].append({**units, "name": f"write_{name}", "python_function": source})
        reference = [{"kpi": f"write_{name}", "params": {"product": "Croissant"}}]
        golden.append({**question, "id": f"WRITE_{name}", "reference": reference})
    for variable, name, data in [("BKG", "bkg", bkg), ("GOLDEN", "golden", golden)]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        monkeypatch.setenv(f"EVAL_{variable}_PATH", str(path))

    assert main(["run", "--run-key", f"writes-{warehouse}"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    warned = [line for line in stderr_lines(captured.err) if "can write" in line]
    assert stderr_lines(captured.err) == warned  # the superuser's write-access warning only
    assert len(warned) == (1 if warehouse == "postgresql" else 0)
    n = len(attempts)
    assert f"cases in error by cause: oracle {n}; dimensions in error: oracle in {n}\n" in (
        captured.out
    )
    cases = {c["case_id"]: c for c in summary_of(captured.out)[1]["cases"]}
    for name, (_, refusal) in attempts.items():
        case = cases[f"WRITE_{name}"]
        assert (case["state"], case["passed"], case["overall"]) == ("error", False, None)
        reason = f"oracle: no reference could be computed: write_{name}: {refusal} "
        assert case["errors"] == [f"{reason}(kpis.write_{name} line 2)"]
    assert all(cases[f"TC_00{i}"]["passed"] for i in range(1, 6)), "the rest of the batch"
    assert _counts(url) == rows == (tiny.N_ORDERS, len(tiny.PRODUCTS))
    good_env.before.assert_unchanged()
