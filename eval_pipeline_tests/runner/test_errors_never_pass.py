"""A broken judge or KPI never passes a case: misconfiguration stops the run before the chatbot is
asked, and a dimension that errs mid-run leaves its cases in ``error``, never passed."""

from __future__ import annotations

import json
import socket
from contextlib import closing
from pathlib import Path

import pytest
from pydantic import SecretStr

from eval_pipeline.cli.main import main
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.cli.test_cli import tiny_env
from eval_pipeline_tests.scripted_openai import ScriptedOpenAI, error, is_probe

TINY = PROJECT_ROOT / "data" / "tiny"


def summary_of(out: str) -> tuple[Path, dict[str, object]]:
    path = Path(out.strip().splitlines()[-1])
    return path, json.loads(path.read_text())


def run_stopped(capsys: pytest.CaptureFixture[str], key: str) -> tuple[int, list[str]]:
    code = main(["run", "--run-key", key])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.err.strip().splitlines()


@pytest.fixture
def good_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    """A finished run of the honest tiny bot, its summary file and contents as stored."""
    tiny_env(tmp_path, monkeypatch, "honest")
    assert main(["run", "--run-key", "good"]) == 0
    path, _ = summary_of(capsys.readouterr().out)
    return path, path.read_text()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_wrong_judge_key_stops_the_run_before_the_chatbot_is_asked(
    good_run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAI(api_key="sk-right") as server:
        monkeypatch.setenv("EVAL_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("EVAL_LLM_MODEL", "judge")
        monkeypatch.setenv("EVAL_LLM_API_KEY", "sk-wrong-key")
        asked = tiny_chatbot.asked_so_far()
        code, lines = run_stopped(capsys, "good")
        assert [r.status for r in server.requests] == [401]
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith("settings: EVAL_LLM_API_KEY: the judge at ")
    assert "sk-wrong-key" not in lines[0]
    assert tiny_chatbot.asked_so_far() == asked
    path, stored = good_run
    assert path.read_text() == stored


def test_an_unknown_model_and_an_unreachable_judge_name_their_variables(
    good_run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVAL_LLM_MODEL", "no-such-model")
    monkeypatch.setenv("EVAL_LLM_API_KEY", "sk-test")
    with ScriptedOpenAI(api_key="sk-test") as server:
        server.on(is_probe, error(404, message="model not found"))
        monkeypatch.setenv("EVAL_LLM_BASE_URL", server.base_url)
        code, lines = run_stopped(capsys, "fresh-1")
    assert code == 2 and lines[0].startswith("settings: EVAL_LLM_MODEL: ")
    monkeypatch.setenv("EVAL_LLM_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    code, lines = run_stopped(capsys, "fresh-2")
    assert code == 2 and lines[0].startswith("settings: EVAL_LLM_BASE_URL: ")
    path, stored = good_run
    assert path.read_text() == stored


def test_a_judge_that_only_rate_limits_is_not_a_misconfiguration() -> None:
    from eval_pipeline.core.llm.client import JudgeClient
    from eval_pipeline.core.llm.settings import LLMSettings
    from eval_pipeline.core.preflight import judge_problems

    with ScriptedOpenAI(api_key="sk-test") as server:
        server.on(is_probe, error(429, {"Retry-After": "30"}))
        settings = LLMSettings(base_url=server.base_url, api_key=SecretStr("sk-test"), model="m")
        with closing(JudgeClient(settings)) as judge:
            assert judge_problems(judge) == []
        assert len(server.requests) == 1, "the probe is one request, never retried"


def test_an_unreachable_warehouse_stops_the_run_naming_its_variable(
    good_run: tuple[Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("EVAL_DATABASE_URL", f"sqlite:///{tmp_path / 'missing' / 'w.db'}")
    asked = tiny_chatbot.asked_so_far()
    code, lines = run_stopped(capsys, "good")
    assert code == 2
    assert lines[0].startswith("settings: EVAL_DATABASE_URL: cannot ")
    assert tiny_chatbot.asked_so_far() == asked
    path, stored = good_run
    assert path.read_text() == stored


def broken_kpi_bkg(tmp_path: Path) -> Path:
    bkg = json.loads((TINY / "bkg.json").read_text())
    kpi = next(k for k in bkg["kpis"] if k["name"] == "total_revenue")
    kpi["python_function"] = kpi["python_function"].replace("return ", "return 1 / 0 + ", 1)
    path = tmp_path / "broken_bkg.json"
    path.write_text(json.dumps(bkg))
    return path


def test_a_kpi_that_raises_leaves_its_cases_in_error_and_the_run_exits_nonzero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny_env(tmp_path, monkeypatch, "honest")
    monkeypatch.setenv("EVAL_BKG_PATH", str(broken_kpi_bkg(tmp_path)))
    assert main(["run", "--run-key", "broken-kpi"]) == 1
    out = capsys.readouterr().out
    _, summary = summary_of(out)
    cases = {c["case_id"]: c for c in summary["cases"]}  # type: ignore[attr-defined]
    for case_id in ("TC_001", "TC_002"):  # both reference total_revenue
        assert cases[case_id]["state"] == "error" and not cases[case_id]["passed"]
        assert cases[case_id]["overall"] is None
        assert "ZeroDivisionError" in cases[case_id]["errors"][0]
    assert cases["TC_003"]["passed"]
    assert summary["error_counts"] == {"oracle": 2}
    assert summary["cases_error"] == 2 and summary["coverage"] == 0.6
    assert "dimensions in error: oracle in 2" in out


def test_judges_failing_mid_run_leave_every_case_in_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny_env(tmp_path, monkeypatch, "honest")
    with ScriptedOpenAI(api_key="sk-test", default=error(500)) as server:
        for key, value in server.judge_env(llm_max_retries="0").items():
            monkeypatch.setenv(key, value)
        assert main(["run", "--run-key", "judge-down"]) == 1
        assert is_probe(server.requests[0]) and server.requests[0].status == 200
    _, summary = summary_of(capsys.readouterr().out)
    assert summary["cases_passed"] == 0
    assert summary["cases_error"] == summary["cases_total"] == 5
    for case in summary["cases"]:  # type: ignore[attr-defined]
        assert case["overall"] is None and case["errors"]
