"""The page object of a chatbot reached through its web page: a small YAML file, checked against
its published schema (``schemas/ui_config.schema.json``) with every problem named by file and
field before any browser starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal
from urllib.parse import urljoin

import yaml
from pydantic import BaseModel, ConfigDict, Field

from eval_pipeline.core.inputs import schema_problems
from eval_pipeline.core.problems import InputError, Problem

SETTING = "EVAL_CHATBOT_UI_CONFIG"


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LoginForm(_Part):
    username: str
    password: str
    submit: str


class ChatBox(_Part):
    input: str
    send: str | None = None


class AnswerArea(_Part):
    selector: str
    done: str | None = None
    idle_s: float | None = None
    error: str | None = None
    text: Literal["inner_text", "text_content"] = "inner_text"


class ToolCallArea(_Part):
    selector: str


class UIConfig(_Part):
    """``url`` is absolute once loaded (resolved against the chatbot's base URL)."""

    url: str = "/"
    isolation: Literal["slot", "case"] = "slot"
    # Playwright's own default: a page that loads slowly on a busy machine is no failed case
    step_timeout_s: float = Field(default=30.0, gt=0)
    login: LoginForm | None = None
    chat: ChatBox
    answer: AnswerArea
    tool_calls: ToolCallArea | None = None


def _read_yaml(path: Path) -> tuple[Any, list[Problem]]:
    if not path.is_file():
        return None, [Problem(str(path), "", "file not found")]
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")), []
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return None, [Problem(str(path), where, f"invalid YAML: {exc.problem or exc}")]
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
        return None, [Problem(str(path), "", f"cannot read file: {exc}")]


def load_ui_config(path: Path | None, base_url: str) -> UIConfig:
    """The validated page object, its URL resolved against ``base_url``; InputError lists every
    problem (file, field) when it cannot be used."""
    if path is None:
        raise InputError([Problem("settings", SETTING, "required when EVAL_CHATBOT_KIND=ui")])
    raw, problems = _read_yaml(Path(path))
    if not problems:
        problems = schema_problems(str(path), raw, "ui_config", named={})
    if problems:
        raise InputError(problems)
    config = UIConfig.model_validate(raw)
    return config.model_copy(update={"url": urljoin(base_url.rstrip("/") + "/", config.url)})


def ui_problems(path: Path | None, base_url: str, browser: Path) -> list[Problem]:
    """Every problem of the page object and the browser the channel would drive."""
    try:
        load_ui_config(path, base_url)
    except InputError as exc:
        return exc.problems
    if not Path(browser).is_file():
        return [Problem("settings", "EVAL_CHATBOT_UI_BROWSER", f"{browser} not found")]
    return []
