"""#17 item 10: a lone surrogate, deeply nested JSON and BKG code that exits are input problems
found before the chatbot is asked; two evaluations of one run key never run at once (a lock in
the results store, on SQLite and PostgreSQL, across processes)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.core.attempts import LockHolder, RunLedger, now_iso
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.runner.locks import STALE_AFTER_S, RunKeyBusy, run_key_lock
from eval_pipeline.settings import PROJECT_ROOT, load_settings
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.cli.test_cli import tiny_env
from eval_pipeline_tests.stored_results import GoodRun, one_line, stored, summary_of

TINY = PROJECT_ROOT / "data" / "tiny"


def refused(good: GoodRun, capsys: pytest.CaptureFixture[str], expected: str) -> None:
    """``validate`` lists ``expected``; ``run`` stops with it alone, before any chatbot call,
    with everything stored unchanged."""
    assert main(["validate", "--database-url", ""]) == 1
    err = capsys.readouterr().err
    assert expected in err.splitlines() and "Traceback" not in err
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", good.run_key]) == 2
    assert one_line(capsys.readouterr().err) == expected
    assert tiny_chatbot.asked_so_far() == asked
    assert good.now() == good.before


def written(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_lone_surrogate_in_a_question_is_an_input_problem(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    golden[1]["question"] = "Revenue in \ud800 February?"
    path = written(tmp_path, "golden.json", golden)  # json.dumps writes it as \ud800
    monkeypatch.setenv("EVAL_GOLDEN_PATH", str(path))
    refused(
        good_env,
        capsys,
        f"{path}: TC_002.question: lone surrogate \\ud800 at character 12: not valid Unicode",
    )


def test_a_lone_surrogate_in_the_bkg_is_an_input_problem(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bkg = json.loads((TINY / "bkg.json").read_text())
    bkg["tables"][0]["description"] = "\udfff"
    path = written(tmp_path, "bkg.json", bkg)
    monkeypatch.setenv("EVAL_BKG_PATH", str(path))
    refused(
        good_env,
        capsys,
        f"{path}: tables.products.description: lone surrogate \\udfff at character 1: not valid "
        "Unicode",
    )


@pytest.mark.parametrize("depth", [100_000, 500])
def test_deeply_nested_json_is_one_line_not_a_recursion_error(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    depth: int,
) -> None:
    """100,000 levels overflow the parser; 500 pass it and overflow what walks it later."""
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    if depth < 1000:
        nested: dict[str, Any] = {}
        for _ in range(depth):
            nested = {"x": nested}
        golden[0]["reference"][0]["params"] = nested
        text = json.dumps(golden)
    else:
        text = "[" * depth + "]" * depth
    path = written(tmp_path, "golden.json", text)
    monkeypatch.setenv("EVAL_GOLDEN_PATH", str(path))
    refused(good_env, capsys, f"{path}: invalid input: JSON nested more than 64 levels deep")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_rubric_file_nested_too_deeply_is_one_line(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    suffix: str,
) -> None:
    path = written(tmp_path, f"rubric{suffix}", "[" * 5_000 + "]" * 5_000)
    assert main(["validate", "--database-url", "", "--rubric", str(path)]) == 1
    err = capsys.readouterr().err
    kind = "YAML" if suffix == ".yaml" else "JSON"
    expected = f"{path}: invalid input: {kind} nested more than 64 levels deep"
    assert expected in err.splitlines() and "Traceback" not in err
    monkeypatch.setenv("EVAL_RUBRIC_PATH", str(path))
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", good_env.run_key]) == 2
    assert one_line(capsys.readouterr().err) == expected
    assert tiny_chatbot.asked_so_far() == asked and good_env.now() == good_env.before


def test_a_summary_file_nested_too_deeply_is_refused_by_compare(
    good_env: GoodRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path, "summary.json", "[" * 100_000 + "]" * 100_000)
    assert main(["compare", str(path), good_env.run_key]) == 2
    assert one_line(capsys.readouterr().err) == (
        f"error: {path}: not a readable run summary: JSON nested more than 64 levels deep"
    )
    assert good_env.now() == good_env.before


@pytest.mark.parametrize("code", ["raise SystemExit(0)", "import sys\nsys.exit(3)"])
def test_bkg_code_that_exits_while_loading_is_a_problem_not_a_silent_exit(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    code: str,
) -> None:
    bkg = json.loads((TINY / "bkg.json").read_text())
    kpi = bkg["kpis"][0]
    kpi["python_function"] = f"{code}\n{kpi['python_function']}"
    path = written(tmp_path, "bkg.json", bkg)
    monkeypatch.setenv("EVAL_BKG_PATH", str(path))
    status = "0" if "SystemExit(0)" in code else "3"
    line = code.count("\n") + 1
    refused(
        good_env,
        capsys,
        f"{path}: kpis.{kpi['name']}.python_function: fails while loading: SystemExit: {status} "
        f"(kpis.{kpi['name']} line {line})",
    )


# --------------------------------------------------------------------------- one run per key


def wait_for(
    condition: Any, process: subprocess.Popen[str] | None = None, timeout: float = 600.0
) -> None:
    """Until ``condition()``; fails at once when ``process`` ended first. The bound is generous:
    on a loaded machine a fresh process takes a long while to import and validate."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            _, err = process.communicate()
            raise AssertionError(f"the process ended first (exit {process.returncode}): {err}")
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_second_run_of_a_key_in_flight_is_refused_and_the_first_counts_right(
    results_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A finished run of the key, then a refreshing one in another process, held with its
    questions unanswered; a run of the same key here is refused at once, asks nothing and leaves
    the finished run as stored, and the one in flight counts right."""
    tiny_env(tmp_path, monkeypatch, "gated")
    monkeypatch.setenv("EVAL_RESULTS_URL", results_url)
    gate = tmp_path / "gate"
    monkeypatch.setenv(tiny_chatbot.GATE_ENV, str(gate))
    gate.touch()
    assert main(["run", "--run-key", "shared"]) == 0
    capsys.readouterr()
    earlier = stored(load_settings(), "shared")
    gate.unlink()
    other = subprocess.Popen(
        [sys.executable, "-m", "eval_pipeline.cli.main", "run", "--run-key", "shared", "--refresh"],
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ledger = RunLedger(results_url)
        wait_for(lambda: ledger.lock_holder("shared") is not None, other)
        asked = tiny_chatbot.asked_so_far()
        assert main(["run", "--run-key", "shared"]) == 2
        line = one_line(capsys.readouterr().err)
        assert tiny_chatbot.asked_so_far() == asked
        earlier.assert_unchanged()
    finally:
        gate.touch()
        out, err = other.communicate(timeout=600)
    assert line.startswith(
        f"run key: shared: being evaluated by process {other.pid} on {socket.gethostname()} since "
    )
    assert line.endswith("; wait for it to finish or use another run key")
    assert other.returncode == 0, err
    assert summary_of(out)["calls"]["chatbot"] == 5, "each case asked once"
    assert ledger.lock_holder("shared") is None, "released at the end"
    assert main(["run", "--run-key", "shared"]) == 0, "its turn now: nothing left to ask"
    assert summary_of(capsys.readouterr().out)["calls"]["chatbot"] == 0


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_lock_whose_holder_is_gone_is_taken_over(results_url: str) -> None:
    ResultsStore(results_url)
    ledger = RunLedger(results_url)
    old = "2000-01-01T00:00:00+00:00"
    here = socket.gethostname()
    for holder, refused_by in [
        (LockHolder("a", dead_pid(), here, old, now_iso()), False),  # killed on this host
        (LockHolder("b", 1, "elsewhere", old, now_iso()), True),  # alive elsewhere
        (LockHolder("c", 1, "elsewhere", old, old), False),  # silent for longer than allowed
        (LockHolder("d", os.getpid(), here, old, now_iso()), True),  # this very process
    ]:
        assert ledger.try_lock("k", holder, lambda h: False) is None
        try:
            with run_key_lock(ledger, "k"):
                assert not refused_by, holder
                assert ledger.lock_holder("k").holder != holder.holder  # type: ignore[union-attr]
        except RunKeyBusy as exc:
            assert refused_by, holder
            assert f"process {holder.pid} on {holder.host}" in str(exc)
            ledger.unlock("k", holder.holder)
        assert ledger.lock_holder("k") is None
    assert STALE_AFTER_S >= 30, "a busy machine may refresh late: the bound stays generous"
