"""A broken judge or KPI never passes a case (#17 item 1): misconfiguration stops the run before
the chatbot is asked, with one line naming the variable; a dimension that errs mid-run leaves its
cases in ``error``, never passed, counted against coverage and named in the summary; the run
exits non-zero, and the run stored before is unchanged."""

from __future__ import annotations

import json
import socket
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from eval_pipeline.cli.main import main
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.scripted_openai import ScriptedOpenAI, error, is_probe
from eval_pipeline_tests.stored_results import GoodRun
from eval_pipeline_tests.stored_run import stderr_lines, summary_of

TINY = PROJECT_ROOT / "data" / "tiny"


def run_stopped(capsys: pytest.CaptureFixture[str], key: str) -> tuple[int, str]:
    """``run``'s exit code and its one line of error."""
    code = main(["run", "--run-key", key])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, lines
    return code, lines[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_wrong_judge_key_stops_the_run_before_the_chatbot_is_asked(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAI(api_key="sk-right") as server:
        monkeypatch.setenv("EVAL_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("EVAL_LLM_MODEL", "judge")
        monkeypatch.setenv("EVAL_LLM_API_KEY", "sk-wrong-key")
        asked = tiny_chatbot.asked_so_far()
        code, line = run_stopped(capsys, "good")
        assert [r.status for r in server.requests] == [401]
    assert code == 2
    assert line.startswith("settings: EVAL_LLM_API_KEY: the judge at ")
    assert "sk-wrong-key" not in line
    assert tiny_chatbot.asked_so_far() == asked
    good_env.before.assert_unchanged()


def test_an_unknown_model_and_an_unreachable_judge_name_their_variables(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVAL_LLM_MODEL", "no-such-model")
    monkeypatch.setenv("EVAL_LLM_API_KEY", "sk-test")
    with ScriptedOpenAI(api_key="sk-test") as server:
        server.on(is_probe, error(404, message="model not found"))
        monkeypatch.setenv("EVAL_LLM_BASE_URL", server.base_url)
        code, line = run_stopped(capsys, "fresh-1")
    assert code == 2 and line.startswith("settings: EVAL_LLM_MODEL: ")
    monkeypatch.setenv("EVAL_LLM_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    code, line = run_stopped(capsys, "fresh-2")
    assert code == 2 and line.startswith("settings: EVAL_LLM_BASE_URL: ")
    good_env.before.assert_unchanged()


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
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("EVAL_DATABASE_URL", f"sqlite:///{tmp_path / 'missing' / 'w.db'}")
    asked = tiny_chatbot.asked_so_far()
    code, line = run_stopped(capsys, "good")
    assert code == 2
    assert line.startswith("settings: EVAL_DATABASE_URL: cannot ")
    assert tiny_chatbot.asked_so_far() == asked
    good_env.before.assert_unchanged()


def broken_kpi_bkg(tmp_path: Path) -> Path:
    bkg = json.loads((TINY / "bkg.json").read_text())
    kpi = next(k for k in bkg["kpis"] if k["name"] == "total_revenue")
    kpi["python_function"] = kpi["python_function"].replace("return ", "return 1 / 0 + ", 1)
    path = tmp_path / "broken_bkg.json"
    path.write_text(json.dumps(bkg))
    return path


def run_in_error(capsys: pytest.CaptureFixture[str], key: str) -> tuple[str, dict[str, Any]]:
    """``run`` exits 1 with its summary written and nothing on stderr; its output and summary."""
    assert main(["run", "--run-key", key]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert stderr_lines(captured.err) == []
    _, summary = summary_of(captured.out)
    return captured.out, summary


def test_a_kpi_that_raises_leaves_its_cases_in_error_and_the_run_exits_nonzero(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("EVAL_BKG_PATH", str(broken_kpi_bkg(tmp_path)))
    out, summary = run_in_error(capsys, "broken-kpi")
    cases = {c["case_id"]: c for c in summary["cases"]}
    for case_id in ("TC_001", "TC_002"):  # both reference total_revenue
        assert cases[case_id]["state"] == "error" and not cases[case_id]["passed"]
        assert cases[case_id]["overall"] is None
        assert "ZeroDivisionError" in cases[case_id]["errors"][0]
    assert cases["TC_003"]["passed"]
    assert summary["error_counts"] == {"oracle": 2}
    assert summary["cases_error"] == 2 and summary["coverage"] == 0.6
    assert "3/5 passed (pass rate 60%, coverage 60%, errors 2); claims: " in out
    assert "cases in error by cause: oracle 2; dimensions in error: oracle in 2\n" in out
    good_env.before.assert_unchanged()


def test_judges_failing_mid_run_leave_every_case_in_error(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAI(api_key="sk-test", default=error(500)) as server:
        for key, value in server.judge_env(llm_max_retries="0").items():
            monkeypatch.setenv(key, value)
        out, summary = run_in_error(capsys, "judge-down")
        assert is_probe(server.requests[0]) and server.requests[0].status == 200
    assert summary["cases_passed"] == 0
    assert summary["cases_error"] == summary["cases_total"] == 5
    assert summary["coverage"] == 0.0
    for case in summary["cases"]:
        assert case["state"] == "error" and not case["passed"]
        assert case["overall"] is None and case["errors"]
    assert "0/5 passed (pass rate 0%, coverage 0%, errors 5); claims: " in out
    assert (  # with a judge, the oracle reads the claims through it too
        "cases in error by cause: judges 5, oracle 5; dimensions in error: bkg in 5, "
        "content_quality in 5, on_topic in 5, oracle in 5\n"
    ) in out
    good_env.before.assert_unchanged()
