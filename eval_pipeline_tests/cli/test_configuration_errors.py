"""#17 item 7: a configuration error is exit 2 with one line naming the variable or the file,
before any chatbot call, and ``validate`` finds the same line; what earlier runs stored is
unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from eval_pipeline.cli.main import main
from eval_pipeline.demo import tiny
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.stored_results import GoodRun, one_line, summary_of

TINY = PROJECT_ROOT / "data" / "tiny"


def stops(capsys: pytest.CaptureFixture[str], good: GoodRun) -> str:
    """``run`` on the good run's key: exit 2, one line, no chatbot call, nothing stored; then
    ``validate``, which must print the same line among its problems. Returns the line."""
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", good.run_key]) == 2
    line = one_line(capsys.readouterr().err)
    assert tiny_chatbot.asked_so_far() == asked, "stopped before any chatbot call"
    assert good.now() == good.before
    assert main(["validate"]) == 1
    err = capsys.readouterr().err
    assert line in err.splitlines() and "Traceback" not in err
    return line


def file_in(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    return path


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        (
            "DATABASE_URL",
            "warehouse-on-the-moon",
            "settings: EVAL_DATABASE_URL: cannot open the database <unparsable database URL>: ",
        ),
        (
            "DATABASE_URL",
            "postgresql+psycopg2://eval:hunter2@127.0.0.1:1/warehouse",
            "settings: EVAL_DATABASE_URL: cannot reach the database "
            "postgresql+psycopg2://eval:***@127.0.0.1:1/warehouse: connection to server",
        ),
        (
            "DATABASE_URL",
            "sqlite:///{tmp}/missing.db",
            "settings: EVAL_DATABASE_URL: cannot open the database sqlite:///{tmp}/missing.db: "
            "the SQLite file {tmp}/missing.db does not exist",
        ),
        (
            "RESULTS_URL",
            "results-on-the-moon",
            "settings: EVAL_RESULTS_URL: cannot open the results store <unparsable database URL>",
        ),
        (
            "RESULTS_URL",
            "postgresql+psycopg2://eval:hunter2@127.0.0.1:1/results",
            "settings: EVAL_RESULTS_URL: cannot open the results store "
            "postgresql+psycopg2://eval:***@127.0.0.1:1/results: connection to server",
        ),
        (
            "RESULTS_URL",
            "mysql://eval@db.example/results",
            "settings: EVAL_RESULTS_URL: cannot open the results store mysql://eval@db.example/"
            "results: No module named 'MySQLdb'",
        ),
        ("HOME", "{file}", "settings: EVAL_HOME: {file} is a file, not a folder"),
        (
            "HOME",
            "{file}/home",
            "settings: EVAL_HOME: cannot create {file}/home: {file} is a file, not a folder",
        ),
        (
            "CHATBOT_CALLABLE",
            "no_such_package.bots:make",
            "settings: EVAL_CHATBOT_CALLABLE: cannot load the chatbot factory "
            "'no_such_package.bots:make' (importable module?): No module named 'no_such_package'",
        ),
        (
            "CHATBOT_CALLABLE",
            "eval_pipeline_tests.tiny_chatbot:no_such_factory",
            "settings: EVAL_CHATBOT_CALLABLE: cannot load the chatbot factory "
            "'eval_pipeline_tests.tiny_chatbot:no_such_factory' (importable module?): module "
            "'eval_pipeline_tests.tiny_chatbot' has no attribute 'no_such_factory'",
        ),
        (
            "BASELINE_RUN",
            "never-ran",
            "settings: EVAL_BASELINE_RUN: no run summary for run key 'never-ran' in the results "
            "store",
        ),
    ],
)
def test_a_setting_pointing_at_nothing_usable_stops_the_run_in_one_line(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    expected: str,
) -> None:
    places = {"tmp": str(tmp_path), "file": str(file_in(tmp_path))}
    monkeypatch.setenv(f"EVAL_{variable}", value.format(**places))
    line = stops(capsys, good_env)
    assert line.startswith(expected.format(**places)), line
    assert "hunter2" not in line


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (
            {"EVAL_CHATBOT_KIND": "sse", "EVAL_CHATBOT_URL": "ftp://bot.example/chat"},
            "settings: EVAL_CHATBOT_URL: not an http(s) URL: 'ftp://bot.example/chat'",
        ),
        (
            {"EVAL_CHATBOT_KIND": "http_json", "EVAL_CHATBOT_URL": "localhost:8765"},
            "settings: EVAL_CHATBOT_URL: not an http(s) URL: 'localhost:8765'",
        ),
        (
            {"EVAL_CHATBOT_CALLABLE": "eval_pipeline_tests.tiny_chatbot"},
            "settings: EVAL_CHATBOT_CALLABLE: EVAL_CHATBOT_KIND=callable needs 'module:factory' "
            "(got 'eval_pipeline_tests.tiny_chatbot'); the module must be importable, e.g. on "
            "PYTHONPATH",
        ),
        (
            {"EVAL_NIGHTLY_TIMEZONE": "Mars/Olympus_Mons"},
            "settings: EVAL_NIGHTLY_TIMEZONE: unknown time zone 'Mars/Olympus_Mons'",
        ),
    ],
)
def test_a_malformed_setting_is_refused_by_run_and_validate_alike(
    good_env: GoodRun,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    settings: dict[str, str],
    expected: str,
) -> None:
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    for command in ("run", "validate"):
        assert (
            main([command, "--run-key", good_env.run_key] if command == "run" else [command]) == 2
        )
        assert one_line(capsys.readouterr().err).startswith(expected)
    assert good_env.now() == good_env.before


def test_a_broken_dagster_home_is_found_before_the_chatbot_is_asked(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "no-such-folder"))
    assert (
        stops(capsys, good_env)
        == f"settings: DAGSTER_HOME: {tmp_path / 'no-such-folder'} is not an existing folder"
    )
    (tmp_path / "dagster.yaml").write_text("storage:\n  nosuch: {}\n")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", good_env.run_key]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"settings: DAGSTER_HOME: {tmp_path / 'dagster.yaml'} is not valid: ")
    assert 'unexpected config entry "nosuch"' in line
    assert tiny_chatbot.asked_so_far() == asked and good_env.now() == good_env.before


def test_a_factory_that_fails_names_the_variable_and_the_docs_say_it_must_be_importable(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:asked_so_far")
    line = stops(capsys, good_env)
    assert line.startswith(
        "settings: EVAL_CHATBOT_CALLABLE: the chatbot factory "
        "'eval_pipeline_tests.tiny_chatbot:asked_so_far' failed: "
    )
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert "importable" in readme and "PYTHONPATH" in readme


def test_output_files_are_checked_before_the_evaluation(
    good_env: GoodRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = file_in(tmp_path) / "junit.xml"
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", good_env.run_key, "--junit", str(target)]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"command line: --junit: cannot write {target}: ")
    assert tiny_chatbot.asked_so_far() == asked and good_env.now() == good_env.before


def test_warehouse_generate_into_a_home_that_does_not_exist_yet(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "new" / "home"
    monkeypatch.setenv("EVAL_HOME", str(home))
    monkeypatch.delenv("EVAL_DATABASE_URL", raising=False)
    assert main(["warehouse", "generate"]) == 0
    assert (home / "demo_warehouse.db").is_file()
    monkeypatch.setenv("EVAL_DATABASE_URL", "warehouse-on-the-moon")
    assert main(["warehouse", "generate"]) == 2
    assert one_line(capsys.readouterr().err).startswith(
        "settings: EVAL_DATABASE_URL: cannot write the demo warehouse <unparsable database URL>"
    )
    assert good_env.now() == good_env.before


# --------------------------------------------------------------------------- PostgreSQL names


def pg_bkg(tmp_path: Path, rename: dict[str, str], fingerprint: list[str]) -> Path:
    """The tiny BKG with tables renamed as ``rename`` says and the products table's
    fingerprint columns set to ``fingerprint``."""
    bkg = json.loads((TINY / "bkg.json").read_text())
    for table in bkg["tables"]:
        table["name"] = rename.get(table["name"], table["name"])
        if table["name"].lower() == "products":
            table["fingerprint"]["columns"] = fingerprint
            for column in table["columns"]:
                if column["name"] == "updated_at":
                    column["name"] = fingerprint[0]
    for rel in bkg.get("relationships", []):
        for side in ("from", "to"):
            table, _, column = rel[side].partition(".")
            rel[side] = f"{rename.get(table, table)}.{column}"
    for kind in ("kpis", "decisions", "core_nodes"):
        for fn in bkg.get(kind, []):
            fn["tables"] = [rename.get(t, t) for t in fn.get("tables", [])]
    path = tmp_path / "bkg.json"
    path.write_text(json.dumps(bkg))
    return path


@pytest.fixture
def pg_warehouse(pg_schema_url: str) -> str:
    """The tiny warehouse on PostgreSQL, its products' load time in a camelCase column."""
    tiny.load(pg_schema_url)
    engine = sa.create_engine(pg_schema_url)
    with engine.begin() as conn:
        conn.execute(sa.text('ALTER TABLE products RENAME COLUMN updated_at TO "updatedAt"'))
    engine.dispose()
    return pg_schema_url


@pytest.mark.parametrize(
    ("rename", "fingerprint", "expected"),
    [
        (
            {"orders": "sbOrders"},
            ["updatedAt"],
            "tables.sbOrders: table not found in the database ",
        ),
        (
            {"orders": "Orders"},
            ["updatedAt"],
            "tables.Orders: table 'Orders' not found in the database {url}, which has 'orders': "
            "names are quoted, so their case must match; write 'orders'",
        ),
        (
            {},
            ["updatedat"],
            "tables.products.fingerprint.columns: column 'updatedat' not found in the database "
            "{url}, which has 'updatedAt': names are quoted, so their case must match; write "
            "'updatedAt'",
        ),
    ],
)
def test_postgresql_table_and_column_names_must_match_their_case(
    good_env: GoodRun,
    pg_warehouse: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rename: dict[str, str],
    fingerprint: list[str],
    expected: str,
) -> None:
    from eval_pipeline.core.warehouse.db import redact_url

    bkg = pg_bkg(tmp_path, rename, fingerprint)
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    for case in golden:  # SQL references name the renamed tables
        for ref in case.get("reference", []):
            if "sql" in ref:
                for old, new in rename.items():
                    ref["sql"] = ref["sql"].replace(old, f'"{new}"')
    (tmp_path / "golden.json").write_text(json.dumps(golden))
    monkeypatch.setenv("EVAL_BKG_PATH", str(bkg))
    monkeypatch.setenv("EVAL_GOLDEN_PATH", str(tmp_path / "golden.json"))
    monkeypatch.setenv("EVAL_DATABASE_URL", pg_warehouse)
    line = stops(capsys, good_env)
    assert line.startswith(f"{bkg}: " + expected.format(url=redact_url(pg_warehouse))), line


def test_postgresql_names_written_as_the_database_has_them_pass(
    pg_warehouse: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """validate and run alike: the camelCase fingerprint column is read by ``run`` too."""
    from eval_pipeline_tests.cli.test_cli import tiny_env

    tiny_env(tmp_path, monkeypatch, "honest")
    home = tmp_path / "pg-home"
    monkeypatch.setenv("EVAL_HOME", str(home))
    bkg = pg_bkg(tmp_path, {}, ["updatedAt"])
    golden = str(TINY / "golden_dataset.json")
    assert (
        main(["validate", "--bkg", str(bkg), "--golden", golden, "--database-url", pg_warehouse])
        == 0
    )
    assert capsys.readouterr().out.strip() == "inputs are valid"
    assert not home.exists(), "validate creates no results store"
    monkeypatch.setenv("EVAL_BKG_PATH", str(bkg))
    monkeypatch.setenv("EVAL_DATABASE_URL", pg_warehouse)
    assert main(["run", "--run-key", "pg-camel"]) == 0
    summary = summary_of(capsys.readouterr().out)
    assert summary["cases_passed"] == summary["cases_total"] == 5
