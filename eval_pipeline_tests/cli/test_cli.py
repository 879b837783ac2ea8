"""The command line: every subcommand documented, user mistakes reported without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.core.problems import InputError
from eval_pipeline.settings import PROJECT_ROOT, load_settings

DEMO = PROJECT_ROOT / "data" / "demo"
TINY = PROJECT_ROOT / "data" / "tiny"


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "eval_pipeline.cli.main", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_help_lists_every_subcommand_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("demo", "run", "validate", "bot", "warehouse"):
        assert f"    {command}" in out


def test_validate_lists_every_problem_with_file_case_and_field(tmp_path: Path) -> None:
    golden = json.loads((DEMO / "golden_dataset.json").read_text())
    golden[13]["reference"][0]["kpi"] = "hse_rate"
    del golden[2]["question"]
    golden[5]["id"] = golden[4]["id"]
    bad = tmp_path / "golden.json"
    bad.write_text(json.dumps(golden))
    result = run_cli("validate", "--golden", str(bad), "--database-url", "")
    assert result.returncode == 1
    err = result.stderr
    assert "Traceback" not in err
    assert f"{bad}: TC_014.reference[0].kpi: unknown KPI 'hse_rate'" in err
    assert "TC_003" in err and "question" in err
    assert "duplicate" in err.lower() and golden[4]["id"] in err
    assert "3 problem(s) found" in err


def test_validate_runs_every_reference_and_names_the_broken_kpi_and_sql(tmp_path: Path) -> None:
    from eval_pipeline.demo import tiny

    url = f"sqlite:///{tmp_path / 'tiny.db'}"
    tiny.load(url)
    bkg = json.loads((TINY / "bkg.json").read_text())
    kpi = next(k for k in bkg["kpis"] if k["name"] == "units_sold")
    kpi["python_function"] = kpi["python_function"].replace("return ", "return {}['x'] or ", 1)
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    golden[0]["reference"] = [{"sql": "SELECT SUM(amount_typo) FROM orders"}]
    golden[1]["reference"].append({"sql": "SELECT quantity FROM orders WHERE 1 = 0"})
    (tmp_path / "bkg.json").write_text(json.dumps(bkg))
    (tmp_path / "golden.json").write_text(json.dumps(golden))
    result = run_cli(
        "validate",
        *("--bkg", str(tmp_path / "bkg.json"), "--golden", str(tmp_path / "golden.json")),
        *("--database-url", url),
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    golden_file = tmp_path / "golden.json"
    assert any(
        line.startswith(f"{golden_file}: TC_001.reference[0]: the SQL failed: ")
        and line.endswith("no such column: amount_typo")
        for line in lines
    ), lines
    assert any(
        line.startswith(f"{golden_file}: TC_003.reference[0]: kpi 'units_sold' failed: KeyError")
        and "kpis.units_sold line" in line
        for line in lines
    ), lines
    assert f"{golden_file}: TC_002.reference[1]: the SQL returned no value" in lines
    assert "3 problem(s) found" in result.stderr


def test_invalid_json_is_reported_with_position(tmp_path: Path) -> None:
    bad = tmp_path / "bkg.json"
    bad.write_text('{"name": "x", "tables": [}')
    result = run_cli("validate", "--bkg", str(bad), "--database-url", "")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert str(bad) in result.stderr and "line 1" in result.stderr


def test_bad_setting_names_the_variable_without_traceback() -> None:
    result = run_cli("validate", env={"EVAL_CONCURRENCY": "lots"})
    assert result.returncode == 2
    assert "EVAL_CONCURRENCY" in result.stderr and "Traceback" not in result.stderr


def test_executor_setting_defaults_to_in_process_and_a_bad_value_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("EVAL_EXECUTOR", raising=False)
    assert load_settings().executor == "in_process"
    monkeypatch.setenv("EVAL_EXECUTOR", "celery")
    assert load_settings().executor == "celery"
    assert load_settings(executor="multiprocess").executor == "multiprocess"
    monkeypatch.setenv("EVAL_EXECUTOR", "threads")
    with pytest.raises(InputError) as error:
        load_settings()
    assert "EVAL_EXECUTOR" in str(error.value) and "'celery'" in str(error.value)


def test_run_with_a_bad_executor_stops_with_a_message_not_a_traceback() -> None:
    from_env = run_cli("run", env={"EVAL_EXECUTOR": "threads"})
    assert from_env.returncode == 2
    assert "EVAL_EXECUTOR" in from_env.stderr and "Traceback" not in from_env.stderr
    from_flag = run_cli("run", "--executor", "threads")
    assert from_flag.returncode == 2
    assert "--executor" in from_flag.stderr and "Traceback" not in from_flag.stderr


def test_unreachable_database_is_a_problem_with_the_password_redacted() -> None:
    url = "postgresql+psycopg2://user:hunter2@127.0.0.1:1/nowhere"
    result = run_cli("validate", "--database-url", url)
    assert result.returncode == 1
    assert "hunter2" not in result.stderr + result.stdout
    assert "***" in result.stderr


def tiny_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chatbot: str) -> None:
    from eval_pipeline_tests.pipeline.test_graph import tiny_overrides

    for key, value in tiny_overrides(tmp_path, chatbot).items():
        monkeypatch.setenv(f"EVAL_{key.upper()}", value)
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text((PROJECT_ROOT / "dagster.yaml").read_text())
    monkeypatch.setenv("DAGSTER_HOME", str(home))


def test_run_gates_the_exit_code_and_writes_junit_that_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import xml.etree.ElementTree as ET

    tiny_env(tmp_path, monkeypatch, "inflated_units")
    junit = tmp_path / "out" / "junit.xml"
    assert main(["run", "--run-key", "ci-1", "--junit", str(junit)]) == 1
    summary_file = Path(capsys.readouterr().out.strip().splitlines()[-1])
    summary = json.loads(summary_file.read_text())
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert int(suite.get("tests", -1)) == summary["cases_total"]
    assert int(suite.get("failures", -1)) == summary["cases_failed"]
    assert int(suite.get("errors", -1)) == summary["cases_error"]
    failed = {tc.get("name") for tc in suite.iter("testcase") if tc.find("failure") is not None}
    assert failed == {
        c["case_id"] for c in summary["cases"] if c["state"] == "scored" and not c["passed"]
    }
    # with a bar the failures are tolerated; reruns reuse every result
    assert main(["run", "--run-key", "ci-1", "--min-pass-rate", "0.5"]) == 0


def test_run_exits_zero_when_every_case_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny_env(tmp_path, monkeypatch, "honest")
    assert main(["run", "--run-key", "ci-2"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.endswith("summary.json") and Path(last).is_file()
