"""#17 item 9: run keys and case ids follow one documented rule, checked before the chatbot is
asked, the same on the SQLite and the PostgreSQL results store."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.core.inputs import load_schema
from eval_pipeline.core.keys import KEY_PATTERN, MAX_KEY_LENGTH, InvalidKey, check_key
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.stored_results import GoodRun, one_line, summary_of

TINY = PROJECT_ROOT / "data" / "tiny"
RULE = "use only letters, digits, '_', '.' and '-', not '.' or '-' first, at most 128 characters"


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("../../x", '"../../x"'),
        ("..", '".."'),
        ("a|b", '"a|b"'),
        ("a,b", '"a,b"'),
        ("nightly run", '"nightly run"'),
        ("-flag", '"-flag"'),
        ("k" * 300, '"' + "k" * 60 + '…" (300 characters)'),
        ("k" * (MAX_KEY_LENGTH + 1), '"' + "k" * 60 + f'…" ({MAX_KEY_LENGTH + 1} characters)'),
    ],
)
def test_a_bad_run_key_is_refused_before_the_chatbot_is_asked_and_writes_nothing(
    good_env: GoodRun, capsys: pytest.CaptureFixture[str], key: str, shown: str
) -> None:
    before = files_under(good_env.settings.home.parent)
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", f"--run-key={key}"]) == 2
    assert one_line(capsys.readouterr().err) == f"error: invalid run key {shown}: {RULE}"
    assert tiny_chatbot.asked_so_far() == asked
    assert files_under(good_env.settings.home.parent) == before, (
        "nothing written, inside or outside"
    )
    assert good_env.now() == good_env.before


def test_demo_refuses_a_bad_run_key_before_starting_its_bot(
    good_env: GoodRun, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--run-key", "../escape"]) == 2
    captured = capsys.readouterr()
    assert one_line(captured.err) == f'error: invalid run key "../escape": {RULE}'
    assert "listening" not in captured.out
    assert good_env.now() == good_env.before


def test_repeats_refuse_a_key_whose_last_repeat_would_be_too_long(
    good_env: GoodRun, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "r" * (MAX_KEY_LENGTH - 2)  # fits, but "<key>-r3" does not
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", key, "--repeats", "3"]) == 2
    assert one_line(capsys.readouterr().err).startswith('error: invalid run key "rrr')
    assert tiny_chatbot.asked_so_far() == asked
    assert good_env.now() == good_env.before


def golden_with_id(tmp_path: Path, case_id: str) -> Path:
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    golden[0]["id"] = case_id
    path = tmp_path / "golden.json"
    path.write_text(json.dumps(golden))
    return path


@pytest.mark.parametrize("case_id", ["c" * 300, "c" * (MAX_KEY_LENGTH + 1), "../x", ".hidden"])
def test_a_bad_case_id_is_found_by_validate_and_stops_run_before_any_call(
    good_env: GoodRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case_id: str,
) -> None:
    golden = golden_with_id(tmp_path, case_id)
    monkeypatch.setenv("EVAL_GOLDEN_PATH", str(golden))
    shown = (
        json.dumps(case_id)
        if len(case_id) <= 60
        else f'"{case_id[:60]}…" ({len(case_id)} characters)'
    )
    expected = f"{golden}: [0].id: invalid value {shown}: {RULE} (ids become partition keys)"
    assert main(["validate", "--database-url", ""]) == 1
    assert expected in capsys.readouterr().err.splitlines()
    asked = tiny_chatbot.asked_so_far()
    assert main(["run", "--run-key", "new-key"]) == 2
    assert one_line(capsys.readouterr().err) == expected
    assert tiny_chatbot.asked_so_far() == asked
    assert good_env.now() == good_env.before


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_the_longest_key_and_id_the_rule_allows_work_on_both_stores(
    store: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    """Before the rule a case id over 255 characters failed on PostgreSQL only, at the end."""
    from eval_pipeline_tests.cli.test_cli import tiny_env

    tiny_env(tmp_path, monkeypatch, "honest")
    if store == "postgresql":
        monkeypatch.setenv("EVAL_RESULTS_URL", request.getfixturevalue("pg_schema_url"))
    case_id = "C" + "x" * (MAX_KEY_LENGTH - 1)
    monkeypatch.setenv("EVAL_GOLDEN_PATH", str(golden_with_id(tmp_path, case_id)))
    run_key = "R" + "y" * (MAX_KEY_LENGTH - 1)
    assert main(["run", "--run-key", run_key]) == 0
    summary = summary_of(capsys.readouterr().out)
    assert summary["run_key"] == run_key
    assert case_id in {c["case_id"] for c in summary["cases"]}


def test_the_schema_and_the_code_hold_the_same_rule() -> None:
    schema = load_schema("golden_dataset")["$defs"]["GoldenCase"]["properties"]["id"]
    assert schema["pattern"] == KEY_PATTERN
    docs = (PROJECT_ROOT / "docs" / "formats.md").read_text()
    assert f"`{KEY_PATTERN}`" in docs and f"{MAX_KEY_LENGTH} characters" in docs
    assert check_key("2026-11-29T020000Z-nightly", "run") == "2026-11-29T020000Z-nightly"
    for bad in ("", "x/y", "x\\y", "\ud800", "tab\there", "é"):
        with pytest.raises(InvalidKey):
            check_key(bad, "case")
    assert re.fullmatch(KEY_PATTERN, "_a.b-c")
