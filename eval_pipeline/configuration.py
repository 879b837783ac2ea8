"""Every setting that points outside — a folder, a database, a chatbot — opened as an
evaluation opens it, before the first chatbot call.

One place turns a bad value into one line naming the variable (``core.problems.configured``), so
``run`` stops with exit 2 and ``validate`` lists the same problems. Kept light (no Dagster, no
judge client): ``validate`` imports it.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from eval_pipeline.core.adapters.base import AnswerCapped, ChatbotAdapter
from eval_pipeline.core.adapters.http_json import HTTPJSONAdapter
from eval_pipeline.core.adapters.openai_chat import OpenAIChatAdapter
from eval_pipeline.core.adapters.python_callable import CallableAdapter
from eval_pipeline.core.adapters.redacting import RedactingAdapter
from eval_pipeline.core.adapters.sse import SSEAdapter, StreamOptions
from eval_pipeline.core.adapters.ui_config import load_ui_config
from eval_pipeline.core.analysis.baseline import baseline_problems
from eval_pipeline.core.inputs import database_problems, url_password
from eval_pipeline.core.models import BKG
from eval_pipeline.core.problems import SETTINGS, InputError, Problem, collected, configured
from eval_pipeline.core.redaction import Redactor
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.warehouse.db import redact_url
from eval_pipeline.settings import Settings, chatbot_display

CALLABLE = "EVAL_CHATBOT_CALLABLE"
RESULTS_URL = "EVAL_RESULTS_URL"


def build_adapter(settings: Settings, redactor: Redactor | None = None) -> ChatbotAdapter:
    """The configured chatbot transport, its answers held to ``EVAL_CHATBOT_MAX_ANSWER_BYTES``
    and its payloads redacted (``RedactingAdapter``) by ``redactor`` (built from the settings when
    not given; the transport adds its login tokens to it); evaluation never depends on which
    transport it is."""
    redactor = redactor or Redactor.from_settings(settings)
    capped = AnswerCapped(_transport(settings, redactor), settings.chatbot_max_answer_bytes)
    return RedactingAdapter(capped, redactor)


def _transport(settings: Settings, redactor: Redactor) -> ChatbotAdapter:
    if settings.chatbot_kind == "sse":
        return SSEAdapter(
            settings.chatbot_url,
            username=settings.chatbot_username,
            password=settings.chatbot_password,
            **_stream_options(settings, redactor),
        )
    if settings.chatbot_kind == "openai_chat":
        return OpenAIChatAdapter(
            settings.chatbot_url,
            model=settings.chatbot_model,
            api_key=settings.chatbot_api_key,
            headers=chatbot_headers(settings),
            body=settings.chatbot_body,
            sql_arguments=settings.chatbot_sql_arguments,
            **_stream_options(settings, redactor),
        )
    if settings.chatbot_kind == "ui":
        problems = settings.chatbot_problems()  # the page object and the browser, by field
        if problems:
            raise InputError(problems)
        from eval_pipeline.core.adapters.ui import BrowserAdapter  # Playwright only when used

        return BrowserAdapter(
            load_ui_config(settings.chatbot_ui_config, settings.chatbot_url),
            username=settings.chatbot_username,
            password=settings.chatbot_password,
            browser=settings.chatbot_ui_browser,
            read_timeout_s=settings.chatbot_read_timeout_s,
            total_timeout_s=settings.chatbot_total_timeout_s,
            pages=settings.concurrency,
            max_answer_bytes=settings.chatbot_max_answer_bytes,
            redactor=redactor,
            # a page shows no status events: only its tool calls can say where it routed
            intent_path=settings.chatbot_intent_path
            if settings.chatbot_intent_event == "tool_call"
            else "",
        )
    if settings.chatbot_kind == "http_json":
        return HTTPJSONAdapter(
            settings.chatbot_url,
            headers=chatbot_headers(settings),
            timeout_s=settings.chatbot_total_timeout_s,
            retries=settings.chatbot_retries,
            max_answer_bytes=settings.chatbot_max_answer_bytes,
            redactor=redactor,
            intent_path=settings.chatbot_intent_path,
        )
    spec = settings.chatbot_callable
    module, _, attr = spec.partition(":")
    with configured(CALLABLE, f"cannot load the chatbot factory {spec!r} (importable module?)"):
        factory: Callable[[str], Callable[[str, str], Any]] = getattr(
            importlib.import_module(module.strip()), attr.strip()
        )
    with configured(CALLABLE, f"the chatbot factory {spec!r} failed"):
        chat = factory(settings.warehouse_url)
        if not callable(chat):
            raise TypeError(f"it returned {type(chat).__name__}, not a function(question, context)")
    return CallableAdapter(
        chat,
        total_timeout_s=settings.chatbot_total_timeout_s,
        intent_path=settings.chatbot_intent_path,
    )


def _stream_options(settings: Settings, redactor: Redactor) -> StreamOptions:
    """The options of a streamed HTTP transport (sse, openai_chat): its limits, its connection
    pool, where it reads the routed intent, and the redactor it adds its secrets to."""
    return StreamOptions(
        connect_timeout_s=settings.chatbot_connect_timeout_s,
        read_timeout_s=settings.chatbot_read_timeout_s,
        total_timeout_s=settings.chatbot_total_timeout_s,
        retries=settings.chatbot_retries,
        pool_size=max(settings.concurrency, 8),
        max_answer_bytes=settings.chatbot_max_answer_bytes,
        redactor=redactor,
        intent_event=settings.chatbot_intent_event,
        intent_path=settings.chatbot_intent_path,
    )


def chatbot_headers(settings: Settings) -> dict[str, str]:
    return {name: value.get_secret_value() for name, value in settings.chatbot_headers.items()}


def chatbot_target(settings: Settings) -> tuple[str, str, str]:
    """The variable that names the chatbot, the chatbot as shown ("sse http://host:port", never
    with credentials) and what tells it from another (its URL with the query, without them)."""
    if settings.chatbot_kind == "callable":
        shown = f"callable {settings.chatbot_callable}"
        return CALLABLE, shown, shown
    url = settings.chatbot_url
    identity = f"{settings.chatbot_kind} {re.sub(r'//[^/@]*@', '//', url, count=1)}"
    return "EVAL_CHATBOT_URL", f"{settings.chatbot_kind} {chatbot_display(url)}", identity


def home_problems(home: Path) -> list[Problem]:
    """``EVAL_HOME`` is a folder this process can write, or one it can create."""

    def problem(message: str) -> list[Problem]:
        return [Problem(SETTINGS, "EVAL_HOME", message)]

    if home.exists():
        if not home.is_dir():
            return problem(f"{home} is a file, not a folder")
        return [] if os.access(home, os.W_OK | os.X_OK) else problem(f"{home} is not writable")
    parent = next(p for p in home.parents if p.exists())
    if not parent.is_dir():
        return problem(f"cannot create {home}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        return problem(f"cannot create {home}: {parent} is not writable")
    return []


def open_results_store(settings: Settings, redactor: Redactor | None = None) -> ResultsStore:
    """The results store ``EVAL_RESULTS_URL`` names, its tables created, cleaning what it writes
    with ``redactor``; InputError naming the variable (or ``EVAL_HOME``, for the default store in
    it) when it cannot be opened."""
    url = settings.results_store_url
    if not settings.results_url:
        problems = home_problems(settings.home)
        if problems:
            raise InputError(problems)
    shown = redact_url(url)
    with configured(RESULTS_URL, f"cannot open the results store {shown}", [url_password(url)]):
        return ResultsStore(url, redactor=redactor)


def existing_results_store(settings: Settings) -> ResultsStore | None:
    """``open_results_store``, except that the default store is not created when it is not
    there yet (``validate`` leaves no file behind): None then."""
    default = Path(settings.results_store_url.removeprefix("sqlite:///"))
    if not settings.results_url and not default.exists():
        problems = home_problems(settings.home)
        if problems:
            raise InputError(problems)
        return None
    return open_results_store(settings)


def yaml_problem(home: str) -> str | None:
    """Why ``home``'s dagster.yaml is not YAML (what ``validate`` checks without Dagster)."""
    path = Path(home) / "dagster.yaml"
    try:
        yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return " ".join(str(exc).split())[:300]
    return None


def dagster_home_problems(config_problem: Callable[[str], str | None]) -> list[Problem]:
    """``DAGSTER_HOME``, when set, is a folder whose dagster.yaml ``config_problem`` accepts."""
    home = os.environ.get("DAGSTER_HOME")
    if not home:
        return []
    if not Path(home).is_dir():
        return [Problem(SETTINGS, "DAGSTER_HOME", f"{home} is not an existing folder")]
    problem = config_problem(home)
    if problem:
        where = Path(home) / "dagster.yaml"
        return [Problem(SETTINGS, "DAGSTER_HOME", f"{where} is not valid: {problem}")]
    return []


def configuration_problems(
    settings: Settings,
    *,
    store: Callable[[], ResultsStore | None],
    adapter: Callable[[], object],
    bkg: Callable[[], BKG] | None,
    dagster_config: Callable[[str], str | None] = yaml_problem,
    found: Sequence[Problem] = (),
) -> list[Problem]:
    """The home folder, the results store (``store`` opens it; None: not there yet), the
    warehouse against the BKG (when ``bkg`` is given), the chatbot (``adapter`` builds it: a
    callable's module is imported and its factory called), Dagster's home (``dagster_config``
    says what is wrong with its dagster.yaml) and the baseline run named, each problem naming
    its variable. ``found`` are problems the caller already has: a callable chatbot is not
    built on a warehouse URL in it."""
    problems = home_problems(settings.home)
    opened: list[ResultsStore | None] = []
    if settings.results_url or not problems:  # the default store lives in EVAL_HOME
        problems += collected(lambda: opened.append(store()))
    if bkg is not None:
        found_here, _ = database_problems(
            str(settings.bkg_path), bkg(), settings.warehouse_url, variable="EVAL_DATABASE_URL"
        )
        problems += found_here
    bad_warehouse = any(p.location == "EVAL_DATABASE_URL" for p in [*found, *problems])
    if settings.chatbot_kind != "callable" or not bad_warehouse:  # its factory gets the URL
        problems += collected(adapter)
    problems += dagster_home_problems(dagster_config)
    if opened and opened[0] is not None and settings.baseline_run:
        problems += baseline_problems(opened[0], settings.baseline_run)
    return problems
