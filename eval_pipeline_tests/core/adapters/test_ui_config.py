"""The browser channel's page object: the demo's file loads, and every mistake in one is named by
file and field (line and column for broken YAML) before any browser starts — in a run, and in
``validate``."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from eval_pipeline.cli.main import main
from eval_pipeline.core.adapters.ui_config import load_ui_config, ui_problems
from eval_pipeline.core.inputs import load_schema
from eval_pipeline.core.problems import InputError
from eval_pipeline.settings import DEMO_DATA, load_settings

DEMO_UI = DEMO_DATA / "ui_chatbot.yaml"


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "page.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_ui_config(path, "http://bot")
    return [str(p).removeprefix(f"{path}: ") for p in raised.value.problems]


def test_the_demo_page_object_loads_and_its_url_follows_the_chatbot_url() -> None:
    config = load_ui_config(DEMO_UI, "http://127.0.0.1:8765")
    assert config.url == "http://127.0.0.1:8765/"
    assert config.login is not None and config.chat.send == "#send"
    assert config.answer.done and config.tool_calls is not None
    jsonschema.Draft202012Validator(load_schema("ui_config")).validate(
        yaml.safe_load(DEMO_UI.read_text())
    )


def test_an_absolute_page_url_is_kept(tmp_path: Path) -> None:
    page = tmp_path / "page.yaml"
    page.write_text(DEMO_UI.read_text().replace("url: /", "url: https://chat.example.test/app"))
    assert load_ui_config(page, "http://127.0.0.1:8765").url == "https://chat.example.test/app"


def test_every_mistake_is_named_by_field(tmp_path: Path) -> None:
    text = """
url: ""
step_timeout_s: 0
chat:
  inptu: "#q"
answer:
  selector: ".answer"
  text: html
tool_calls: {}
"""
    assert problems(tmp_path, text) == [
        "answer: needs done or idle_s",
        "answer.text: 'html' is not one of ['inner_text', 'text_content']",
        "chat.inptu: unknown field (did you mean 'input'?)",
        "chat.input: missing required field",
        "step_timeout_s: 0 is less than or equal to the minimum of 0",
        "tool_calls.selector: missing required field",
        "url: must not be empty",
    ]


def test_broken_yaml_and_a_missing_file_are_located(tmp_path: Path) -> None:
    assert problems(tmp_path, "chat:\n  input: [\n") == [
        "line 3, column 1: invalid YAML: expected the node content, but found '<stream end>'"
    ]
    with pytest.raises(InputError, match="file not found"):
        load_ui_config(tmp_path / "missing.yaml", "http://bot")


def test_the_settings_name_what_the_browser_channel_lacks(tmp_path: Path) -> None:
    missing = load_settings(home=tmp_path, chatbot_kind="ui").chatbot_problems()
    assert [str(p) for p in missing] == [
        "settings: EVAL_CHATBOT_UI_CONFIG: required when EVAL_CHATBOT_KIND=ui"
    ]
    no_browser = ui_problems(DEMO_UI, "http://bot", tmp_path / "chromium")
    assert [p.location for p in no_browser] == ["EVAL_CHATBOT_UI_BROWSER"]
    assert load_settings(home=tmp_path, chatbot_kind="sse").chatbot_problems() == []


def test_validate_lists_the_page_object_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.yaml"
    page.write_text(json.dumps({"chat": {"input": "#q"}, "answer": {"selector": ".a"}}))
    monkeypatch.setenv("EVAL_HOME", str(tmp_path))
    monkeypatch.setenv("EVAL_CHATBOT_KIND", "ui")
    monkeypatch.setenv("EVAL_CHATBOT_UI_CONFIG", str(page))
    assert main(["validate", "--database-url", ""]) == 1
    assert f"{page}: answer: needs done or idle_s" in capsys.readouterr().err


def test_the_settings_build_the_browser_adapter_which_starts_nothing_until_asked(
    tmp_path: Path,
) -> None:
    import threading

    from eval_pipeline.core.adapters.ui import BrowserAdapter
    from eval_pipeline.environment import answer_source, build_adapter

    settings = load_settings(home=tmp_path, chatbot_kind="ui", chatbot_ui_config=str(DEMO_UI))
    threads = threading.active_count()
    built = build_adapter(settings)
    inner = built.inner.adapter  # type: ignore[attr-defined]
    assert isinstance(inner, BrowserAdapter) and inner.config.chat.input == "#question"
    assert threading.active_count() == threads
    built.close()
    # a changed page object is a changed chatbot target: stored answers are not reused
    edited = tmp_path / "page.yaml"
    edited.write_text(DEMO_UI.read_text().replace("#send", "#go"))
    other = load_settings(home=tmp_path, chatbot_kind="ui", chatbot_ui_config=str(edited))
    assert answer_source(settings)["ui_config"] != answer_source(other)["ui_config"]
