"""#17 item 4 and #16: a re-run must not destroy a good run.

Each case runs a command that must stop (exit 2, one line) against a finished run of the tiny
domain and shows that its summary, report, current per-case records, history and comparison
baseline are those of the good run still.
"""

from __future__ import annotations

import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.core.analysis.baseline import baseline_run_key, got_no_answer
from eval_pipeline.core.analysis.history import run_history
from eval_pipeline.core.attempts import RunLedger, failed_to_connect
from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.cli.test_odd_inputs_and_concurrent_runs import wait_for
from eval_pipeline_tests.stored_results import GoodRun, one_line, stored, summary_of


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Hangup(http.server.BaseHTTPRequestHandler):
    """Answers a GET (so a reachability probe passes) and hangs up on every POST unanswered."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def do_POST(self) -> None:
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def hangup_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hangup)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def stopped(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, one_line(capsys.readouterr().err)


def history_of(good: GoodRun, run_key: str) -> list[tuple[int, str]]:
    store = ResultsStore(good.settings.results_store_url)
    entries = run_history(store, RunLedger(store.url))
    return [(e.attempt, e.status) for e in entries if e.run_key == run_key]


def test_another_chatbot_on_an_existing_run_key_is_refused_before_any_call(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = tiny_chatbot.asked_so_far()
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:inflated_units")
    code, line = stopped(capsys, "run", "--run-key", "good")
    assert code == 2
    assert line.startswith(
        "settings: EVAL_CHATBOT_CALLABLE: run key 'good' was evaluated against callable "
        "eval_pipeline_tests.tiny_chatbot:honest, not callable "
        "eval_pipeline_tests.tiny_chatbot:inflated_units: pass --refresh"
    )
    monkeypatch.setenv("EVAL_CHATBOT_KIND", "sse")
    monkeypatch.setenv("EVAL_CHATBOT_URL", f"http://bot:s3cret@127.0.0.1:{free_port()}")
    code, line = stopped(capsys, "run", "--run-key", "good")
    assert code == 2 and line.startswith("settings: EVAL_CHATBOT_KIND: run key 'good' was ")
    assert "s3cret" not in line and "http://127.0.0.1:" in line
    assert tiny_chatbot.asked_so_far() == asked
    assert good_env.now() == good_env.before


def test_refresh_moves_a_run_key_to_another_chatbot(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``--refresh`` the key is evaluated against the new chatbot, every case asked; from
    then on that chatbot is the key's, and the first one is the other."""
    honest = "eval_pipeline_tests.tiny_chatbot:honest"
    assert main(["run", "--run-key", "switch"]) == 0
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:slow_honest")
    assert main(["run", "--run-key", "switch", "--refresh"]) == 0
    assert summary_of(capsys.readouterr().out)["calls"]["chatbot"] == 5
    assert main(["run", "--run-key", "switch"]) == 0
    assert summary_of(capsys.readouterr().out)["calls"]["chatbot"] == 0
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", honest)
    code, line = stopped(capsys, "run", "--run-key", "switch")
    assert code == 2
    assert line.startswith(
        "settings: EVAL_CHATBOT_CALLABLE: run key 'switch' was evaluated against callable "
        f"eval_pipeline_tests.tiny_chatbot:slow_honest, not callable {honest}: pass --refresh"
    )
    statuses = [s for _, s in history_of(good_env, "switch")]
    assert statuses == ["superseded", "superseded", "current"], "a refusal is no attempt"
    assert good_env.now() == good_env.before


def test_refresh_against_an_unreachable_chatbot_stops_and_keeps_the_good_run(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    monkeypatch.setenv("EVAL_CHATBOT_KIND", "sse")
    monkeypatch.setenv("EVAL_CHATBOT_URL", f"http://bot:s3cret@127.0.0.1:{port}/?key=k3y")
    code, line = stopped(capsys, "run", "--run-key", "good", "--refresh")
    assert code == 2
    assert line.startswith(
        f"settings: EVAL_CHATBOT_URL: chatbot unreachable at http://127.0.0.1:{port}"
    )
    assert "s3cret" not in line and "k3y" not in line
    assert good_env.now() == good_env.before
    assert history_of(good_env, "good")[-1] == (len(history_of(good_env, "good")), "unreachable")
    assert [s for _, s in history_of(good_env, "good")].count("current") == 1


def test_a_chatbot_that_hangs_up_on_every_call_is_unreachable_and_the_records_are_restored(
    good_env: GoodRun,
    hangup_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The calls are made (a probe would pass: the server answers GET), every one fails to
    connect, and the per-case records they wrote are put back as they were."""
    monkeypatch.setenv("EVAL_CHATBOT_KIND", "http_json")
    monkeypatch.setenv("EVAL_CHATBOT_URL", hangup_url)
    store = ResultsStore(good_env.settings.results_store_url)
    rows_before = store.last_id()
    code, line = stopped(capsys, "run", "--run-key", "good", "--refresh")
    assert code == 2
    assert line == (
        f"settings: EVAL_CHATBOT_URL: chatbot unreachable at {hangup_url}: all 5 call(s) failed "
        "to connect; run 'good' stopped, its previous summary and report are unchanged"
    )
    assert store.last_id() > rows_before, "the attempt's records were written, then restored"
    assert good_env.now() == good_env.before


def unreachable_attempt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], run_key: str
) -> None:
    """An attempt of ``run_key`` (``--refresh``: every case asked) against nothing listening."""
    with monkeypatch.context() as patched:
        patched.setenv("EVAL_CHATBOT_KIND", "sse")
        patched.setenv("EVAL_CHATBOT_URL", f"http://127.0.0.1:{free_port()}")
        code, line = stopped(capsys, "run", "--run-key", run_key, "--refresh")
    assert code == 2 and "chatbot unreachable at" in line


def test_a_rerun_after_an_unreachable_attempt_reuses_the_restored_records(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--run-key", "again"]) == 0
    answered = stored(good_env.settings, "again")
    unreachable_attempt(monkeypatch, capsys, "again")
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", "again"]) == 0
    summary = summary_of(capsys.readouterr().out)
    assert summary["calls"] == {"chatbot": 0, "judge": 0, "reference": 0}
    assert all(case["reused"] for case in summary["cases"])
    assert tiny_chatbot.asked_so_far() == asked
    assert (
        stored(good_env.settings, "again").records["judge_scores"]
        == (answered.records["judge_scores"])
    )
    assert history_of(good_env, "again") == [(1, "superseded"), (2, "unreachable"), (3, "current")]
    assert good_env.now() == good_env.before


def test_a_new_run_key_against_an_unreachable_chatbot_writes_no_summary_and_no_baseline(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ResultsStore(good_env.settings.results_store_url)
    baseline = baseline_run_key(store, "next", "")
    assert baseline is not None
    monkeypatch.setenv("EVAL_CHATBOT_KIND", "sse")
    monkeypatch.setenv("EVAL_CHATBOT_URL", f"http://127.0.0.1:{free_port()}")
    code, line = stopped(capsys, "run", "--run-key", "nobody-home")
    assert code == 2 and "chatbot unreachable at http://127.0.0.1:" in line
    assert line.endswith("run 'nobody-home' stopped, no summary was written")
    assert not (good_env.settings.reports_dir / "nobody-home").exists()
    assert store.run_summary("nobody-home") is None
    assert history_of(good_env, "nobody-home") == [(1, "unreachable")]
    assert baseline_run_key(store, "next", "") == baseline
    assert good_env.now() == good_env.before


def test_a_run_the_chatbot_answered_nothing_in_is_marked_and_never_a_baseline(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """#16: the chatbot was reached but failed every case; the run has a summary (its errors are
    the finding), marked, and passed over as the baseline of every later run."""
    baseline = baseline_run_key(ResultsStore(good_env.settings.results_store_url), "x", "")
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:broken")
    assert main(["run", "--run-key", "all-broken"]) == 1
    broken = summary_of(capsys.readouterr().out)
    assert broken["chatbot_unreachable"] is True and broken["cases_error"] == 5
    assert broken["comparison"]["base_run_key"] == baseline
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:honest")
    assert main(["run", "--run-key", "after-broken"]) == 0
    after = summary_of(capsys.readouterr().out)
    assert after["chatbot_unreachable"] is False
    assert after["comparison"]["base_run_key"] == baseline, "the broken run is never the baseline"
    monkeypatch.setenv("EVAL_BASELINE_RUN", "all-broken")
    code, line = stopped(capsys, "run", "--run-key", "after-broken")
    assert code == 2
    assert line == (
        "settings: EVAL_BASELINE_RUN: run 'all-broken' got no answer from the chatbot: it "
        "cannot be a baseline"
    )
    assert good_env.now() == good_env.before


def test_history_lists_every_attempt_and_marks_the_current_one(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--run-key", "hist"]) == 0
    unreachable_attempt(monkeypatch, capsys, "hist")
    assert main(["run", "--run-key", "hist"]) == 0
    with monkeypatch.context() as patched:
        patched.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:broken")
        assert main(["run", "--run-key", "hist-broken"]) == 1
    capsys.readouterr()
    assert history_of(good_env, "hist") == [(1, "superseded"), (2, "unreachable"), (3, "current")]
    assert main(["history"]) == 0
    lines = capsys.readouterr().out.splitlines()

    def status_of(attempt: str) -> str:
        (line,) = [line for line in lines if f" {attempt} " in line]
        return line.split("  ")[0].strip()

    assert [status_of(f"hist #{n}") for n in (1, 2, 3)] == ["superseded", "unreachable", "current*"]
    assert "chatbot unreachable at http://127.0.0.1:" in next(
        line for line in lines if " hist #2 " in line
    )
    assert status_of("hist-broken #1") == "current* (no answers)"
    assert good_env.now() == good_env.before


def test_a_run_stopped_by_sigterm_is_an_interrupted_attempt_and_the_good_run_stays(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Killed while its questions are unanswered: the attempt is listed as interrupted, the
    key's summary and report stay those of its last good run, and the next run goes ahead."""
    assert main(["run", "--run-key", "killed"]) == 0
    before = stored(good_env.settings, "killed")
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:gated")
    monkeypatch.setenv(tiny_chatbot.GATE_ENV, str(tmp_path / "never-opened"))
    other = subprocess.Popen(
        [sys.executable, "-m", "eval_pipeline.cli.main", "run", "--run-key", "killed", "--refresh"],
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ledger = RunLedger(good_env.settings.results_store_url)
    try:
        # the attempt, not just the lock: a signal between the two stops a run that never began
        wait_for(lambda: [a.status for a in ledger.attempts(["killed"])][-1] == "running", other)
    finally:
        other.send_signal(signal.SIGTERM)
        _, err = other.communicate(timeout=60)
    assert other.returncode == 128 + signal.SIGTERM
    assert one_line(err).startswith("stopped by SIGTERM: the results of finished cases are stored")
    assert stored(good_env.settings, "killed") == before
    assert main(["history"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if " killed #2 " in line]
    assert line.startswith("interrupted "), "its process is gone: not running any more"
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:honest")
    assert main(["run", "--run-key", "killed"]) == 0, "the dead holder's lock is taken over"
    capsys.readouterr()
    assert history_of(good_env, "killed") == [
        (1, "superseded"),
        (2, "interrupted"),
        (3, "current"),
    ]
    assert good_env.now() == good_env.before


def test_connection_failures_are_told_from_other_chatbot_errors() -> None:
    assert failed_to_connect(
        ["chat request failed after 3 attempt(s): ConnectionError: HTTPConnectionPool(…)"]
    )
    assert failed_to_connect(["request failed after 1 attempt(s): ConnectTimeout: …"])
    assert failed_to_connect(["chatbot raised ConnectionError: backend unavailable"])
    assert not failed_to_connect(["chat request rejected: HTTP 500: boom"])
    assert not failed_to_connect(
        ["stream broken: ProtocolError: ('Connection broken: ConnectionResetError(104, …)')"]
    )
    assert not failed_to_connect(["chatbot raised RuntimeError: internal error"])
    assert not failed_to_connect([])


def test_a_summary_written_before_the_mark_is_judged_from_its_counts() -> None:
    def stored(total: int, errors: dict[str, int]) -> RunSummary:
        """A summary as stored before ``chatbot_unreachable`` existed."""
        return RunSummary.model_validate(
            {
                "run_key": "old",
                "created_at": "",
                "report_path": "",
                "cases_total": total,
                "cases_passed": 0,
                "cases_failed": 0,
                "cases_error": total,
                "pass_rate": 0.0,
                "coverage": 0.0,
                "error_counts": errors,
            }
        )

    assert got_no_answer(stored(3, {"chatbot": 3}))
    assert not got_no_answer(stored(3, {"chatbot": 2, "oracle": 1}))
    assert not got_no_answer(stored(0, {}))


def test_restore_puts_back_each_case_or_makes_it_recomputed(results_url: str) -> None:
    store = ResultsStore(results_url)

    def put(case: str, value: int, fingerprint: str) -> None:
        store.append(
            "a", [StoredRecord("k", case, {"v": value}, f"h{value}", fingerprint)], "run-1"
        )

    put("c1", 1, "fp1")
    before = store.last_id()
    put("c1", 2, "fp2")  # the attempt's records: one case that had a row, one new case
    put("c2", 3, "fp3")
    assert store.restore("k", ["a"], before, "restored-7") == 2
    rows = store.latest_rows("a", "k")
    assert rows["c1"].payload == {"v": 1} and rows["c1"].input_fingerprint == "fp1"
    assert rows["c1"].reused and rows["c1"].dagster_run_id == "restored-7"
    assert rows["c2"].payload == {"v": 3} and rows["c2"].input_fingerprint == ""
