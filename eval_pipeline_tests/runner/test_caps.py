"""What is read is capped (#17 item 2): an answer over ``EVAL_CHATBOT_MAX_ANSWER_BYTES`` is its
case's error "answer too large", and one just under it — 255 KB holding 12,000 figures — is
evaluated like any other (it stalled ``run`` before extraction was linear and texts were cut
before tokenising); an oversized golden field stops ``run`` in one line before the chatbot is
asked, and ``validate`` finds it. Each time the run stored before is unchanged.

The SSE and HTTP transports' own caps, and a 10 MB question, are in ``test_fault_injection``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.stored_results import GoodRun
from eval_pipeline_tests.stored_run import summary_of

TINY = PROJECT_ROOT / "data" / "tiny"


def test_an_answer_over_the_cap_errs_its_case_and_one_under_it_is_evaluated(
    good_env: GoodRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVAL_CHATBOT_CALLABLE", "eval_pipeline_tests.tiny_chatbot:long_winded")
    monkeypatch.setenv("EVAL_CHATBOT_MAX_ANSWER_BYTES", str(tiny_chatbot.LONG_ANSWER_BYTES))
    assert main(["run", "--run-key", "long"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert "cases in error by cause: chatbot 1; dimensions in error: " in captured.out
    _, summary = summary_of(captured.out)
    cases = {c["case_id"]: c for c in summary["cases"]}
    assert cases["TC_003"]["state"] == "error" and not cases["TC_003"]["passed"]
    assert cases["TC_003"]["errors"] == [
        "chatbot: answer too large: more than 262,144 bytes (EVAL_CHATBOT_MAX_ANSWER_BYTES)"
    ]
    assert cases["TC_004"]["state"] == "scored", cases["TC_004"]["errors"]
    assert sum(cases["TC_004"]["verdict_counts"].values()) > 5000, "its figures were read"
    assert all(cases[c]["passed"] for c in ("TC_001", "TC_002", "TC_005"))
    good_env.before.assert_unchanged()


def test_an_oversized_golden_field_stops_run_before_the_chatbot_is_asked(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    golden[1]["context"] = "Earlier: " + "we talked about bread. " * 1000
    path = tmp_path / "long_context.json"
    path.write_text(json.dumps(golden))
    monkeypatch.setenv("EVAL_GOLDEN_PATH", str(path))
    monkeypatch.setenv("EVAL_GOLDEN_MAX_FIELD_CHARS", "20000")
    expected = (
        f"{path}: TC_002.context: 23,009 characters, more than the 20,000 allowed "
        "(EVAL_GOLDEN_MAX_FIELD_CHARS)"
    )
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", "long-context"]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [expected]
    assert main(["validate"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [expected, "1 problem(s) found"]
    assert tiny_chatbot.asked_so_far() == asked, "the chatbot was not asked"
    good_env.before.assert_unchanged()
