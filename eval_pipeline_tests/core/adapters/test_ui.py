"""The browser channel in headless Chromium against a loopback chat page whose script plays a
scenario: the timings read from the DOM, the login, tool calls shown on the page, and every way an
answer can fail (an error shown, a stall, a page that never finishes, too much text).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.adapters.ui import BrowserAdapter, tool_calls_from_texts
from eval_pipeline.core.adapters.ui_config import (
    AnswerArea,
    ChatBox,
    LoginForm,
    ToolCallArea,
    UIConfig,
)

pytestmark = pytest.mark.browser

USER, PASSWORD = "analyst", "page-pass-2026"
SQL = "SELECT region, COUNT(*) FROM sites GROUP BY region"

# The page: a login form, then a message box; on send the scenario named by the question's first
# word streams into the last answer element, in the timing it says (ms after the click).
PAGE = """<!doctype html><html><body>
<form id="login-form"><input id="user"><input id="pass" type="password">
  <button id="enter" type="submit">Log in</button><p id="login-error"></p></form>
<div id="chat" hidden><div id="log"></div><textarea id="box"></textarea>
  <button id="send">Send</button></div>
<script>
const $ = (id) => document.getElementById(id);
if (sessionStorage.getItem("in")) { $("login-form").hidden = true; $("chat").hidden = false; }
$("login-form").addEventListener("submit", (e) => {
  e.preventDefault();
  if ($("user").value === USER && $("pass").value === PASSWORD) {
    sessionStorage.setItem("in", "1"); $("login-form").hidden = true; $("chat").hidden = false;
  } else { $("login-error").textContent = "wrong password"; }
});
const at = (ms, fn) => setTimeout(fn, ms);
function send() {
  const q = $("box").value;
  const scenario = q.split(" ")[0];
  const turn = document.createElement("div");
  turn.className = "turn";
  turn.innerHTML = '<div class="answer"></div><p class="error"></p>' +
    '<details class="tools"><summary>SQL</summary></details>';
  $("log").append(turn);
  const answer = turn.querySelector(".answer");
  const say = (text) => answer.append(text);
  const done = () => { answer.dataset.state = "done"; };
  const shown = (text) => {
    const pre = document.createElement("pre"); pre.textContent = text;
    turn.querySelector(".tools").append(pre);
  };
  if (scenario === "normal") {
    at(10, () => shown(SQL));
    at(20, () => shown(JSON.stringify({name: "lookup", arguments: {term: "site"}})));
    at(300, () => say("West has "));
    at(360, () => say("512 sites "));
    at(480, () => say("and East 488."));
    at(520, done);
  } else if (scenario === "echo") {
    at(50 + Math.random() * 100, () => { say("You asked: " + q); done(); });
  } else if (scenario === "blocks") {
    const html = "<p>Total: 1,000 sites.</p><ul><li>West 512</li><li>East 488</li></ul>";
    at(50, () => { answer.innerHTML = html; });
    at(80, done);
  } else if (scenario === "error") {
    at(50, () => say("West has "));
    at(100, () => { turn.querySelector(".error").textContent = "model overloaded"; });
  } else if (scenario === "stall") {
    at(50, () => say("West has "));
  } else if (scenario === "idle") {
    at(50, () => say("West has "));
    at(150, () => say("512 sites."));
  } else if (scenario === "drip") {
    let n = 0; const tick = () => { say("word "); n += 1; at(150, tick); }; at(50, tick);
  } else if (scenario === "huge") {
    at(50, () => say("x".repeat(200000)));
    at(100, done);
  } else if (scenario === "leave") {
    at(50, () => { location.href = "about:blank"; });
  }
}
$("send").addEventListener("click", send);
$("box").addEventListener("keydown", (e) => {
  if (e.key === "Enter") { e.preventDefault(); send(); }
});
</script></body></html>"""


class _Pages(BaseHTTPRequestHandler):
    page = PAGE.replace("USER", json.dumps(USER)).replace("PASSWORD", json.dumps(PASSWORD))
    page = page.replace("SQL", json.dumps(SQL), 2)

    def do_GET(self) -> None:
        body = self.page.encode()
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def config(site: str, **answer: Any) -> UIConfig:
    return UIConfig(
        url=f"{site}/chat",
        login=LoginForm(username="#user", password="#pass", submit="#enter"),
        chat=ChatBox(input="#box", send="#send"),
        answer=AnswerArea(
            selector="#log > .turn:last-child .answer",
            error="#log > .turn:last-child .error",
            **({"done": "#log > .turn:last-child .answer[data-state=done]"} | answer),
        ),
        tool_calls=ToolCallArea(selector="#log > .turn:last-child .tools pre"),
    )


@pytest.fixture(scope="module")
def shared(site: str, chromium: Path) -> Iterator[BrowserAdapter]:
    """One browser for the scenarios the default limits suit."""
    adapter = BrowserAdapter(
        config(site),
        username=USER,
        password=PASSWORD,
        browser=chromium,
        read_timeout_s=2.0,
        total_timeout_s=20.0,
        pages=4,
    )
    yield adapter
    adapter.close()


@pytest.fixture(scope="module")
def adapters(chromium: Path) -> Iterator[list[BrowserAdapter]]:
    """Adapters made by a test, closed (with their browser) when the module is done."""
    made: list[BrowserAdapter] = []
    yield made
    for adapter in made:
        adapter.close()


def browser(
    adapters: list[BrowserAdapter], chromium: Path, ui: UIConfig, **options: Any
) -> BrowserAdapter:
    settings = {"read_timeout_s": 2.0, "total_timeout_s": 20.0, "pages": 4, **options}
    adapter = BrowserAdapter(
        ui,
        username=USER,
        password=options.pop("password", PASSWORD),
        browser=chromium,
        **{k: v for k, v in settings.items() if k != "password"},
    )
    adapters.append(adapter)
    return adapter


def test_a_streamed_answer_is_timed_from_the_dom_with_the_tool_calls_it_shows(
    shared: BrowserAdapter,
) -> None:
    payload = shared.ask("TC_1", "normal how many sites per region?")
    assert payload.status == "ok", payload.errors
    assert payload.transport == "ui"
    assert payload.answer == "West has 512 sites and East 488."
    # the page's script: first text 300 ms after the click, the last at 480, done at 520
    assert payload.ttft_s is not None and payload.latency_s is not None
    assert 0.29 <= payload.ttft_s < payload.latency_s
    assert payload.latency_s >= 0.51
    assert payload.chunk_count == 3
    assert payload.max_chunk_gap_s is not None and payload.max_chunk_gap_s >= 0.11
    assert payload.tokens_per_s is not None and payload.tokens_per_s > 0
    assert [(c.name, c.sql) for c in payload.tool_calls] == [("lookup", None), ("sql", SQL)]
    assert payload.tool_calls[0].arguments == {"term": "site"}
    # the second case reuses the logged-in page: the login form is not shown again
    again = shared.ask("TC_2", "normal how many sites per region?")
    assert again.status == "ok" and again.answer == payload.answer


def test_the_routed_intent_is_read_from_the_tool_calls_the_page_shows(
    site: str, chromium: Path, adapters: list[BrowserAdapter]
) -> None:
    routed = browser(adapters, chromium, config(site), intent_path="arguments.term")
    assert routed.ask("TC_1", "normal how many sites per region?").intent == "site"


def test_rendered_text_keeps_the_line_breaks_a_reader_sees(
    site: str, chromium: Path, shared: BrowserAdapter, adapters: list[BrowserAdapter]
) -> None:
    rendered = shared.ask("TC_1", "blocks")
    assert rendered.answer.splitlines() == ["Total: 1,000 sites.", "", "West 512", "East 488"]
    ui = config(site, text="text_content")
    assert browser(adapters, chromium, ui).ask("TC_1", "blocks").answer == (
        "Total: 1,000 sites.West 512East 488"
    )


def test_concurrent_cases_each_get_their_own_page_and_answer(shared: BrowserAdapter) -> None:
    with ThreadPoolExecutor(6) as pool:
        payloads = list(pool.map(lambda i: shared.ask(f"TC_{i}", f"echo {i}"), range(12)))
    assert [p.answer for p in payloads] == [f"You asked: echo {i}" for i in range(12)]
    assert all(p.status == "ok" for p in payloads)


@pytest.mark.parametrize(
    ("scenario", "error", "partial"),
    [
        ("error", "the page shows an error: model overloaded", "West has"),
        ("stall", "answer stalled: no new text for 2 s (read timeout)", "West has"),
        ("leave", "waiting for the answer failed", ""),
    ],
)
def test_failed_answers_are_errors_never_crashes(
    shared: BrowserAdapter, scenario: str, error: str, partial: str
) -> None:
    payload = shared.ask("TC_1", scenario)
    assert payload.status == "error" and payload.latency_s is None
    assert payload.errors[0].startswith(error), payload.errors
    assert payload.answer == partial


@pytest.mark.parametrize(
    ("scenario", "options", "error"),
    [
        ("drip", {"total_timeout_s": 2.0, "read_timeout_s": 1.0}, "no complete answer within"),
        (
            "huge",
            {"max_answer_bytes": 64 * 1024},
            "answer too large: more than 65,536 bytes (EVAL_CHATBOT_MAX_ANSWER_BYTES)",
        ),
    ],
)
def test_answers_are_held_to_the_total_timeout_and_the_byte_cap(
    site: str,
    chromium: Path,
    adapters: list[BrowserAdapter],
    scenario: str,
    options: dict[str, Any],
    error: str,
) -> None:
    started = time.monotonic()
    payload = browser(adapters, chromium, config(site), **options).ask("TC_1", scenario)
    assert payload.status == "error" and payload.errors[0].startswith(error), payload.errors
    assert "x" * 100 not in payload.answer  # the text over the cap is not kept
    assert time.monotonic() - started < 20


def test_without_a_done_marker_the_answer_ends_when_it_stops_changing(
    site: str, chromium: Path, adapters: list[BrowserAdapter]
) -> None:
    ui = config(site)
    ui = ui.model_copy(update={"answer": AnswerArea(selector=ui.answer.selector, idle_s=0.5)})
    payload = browser(adapters, chromium, ui).ask("TC_1", "idle")
    assert payload.status == "ok" and payload.answer == "West has 512 sites."
    assert payload.latency_s is not None and payload.latency_s < 0.5  # ends at the last change


def test_a_wrong_password_is_reported_without_the_password(
    site: str, chromium: Path, adapters: list[BrowserAdapter]
) -> None:
    ui = config(site).model_copy(update={"step_timeout_s": 1.0})  # the message box never shows
    adapter = browser(adapters, chromium, ui, password="not-the-password")
    payload = adapter.ask("TC_1", "normal")
    assert payload.status == "error"
    assert payload.errors[0].startswith("waiting for the message box after logging in failed")
    assert "not-the-password" not in payload.model_dump_json()


def test_a_browser_that_cannot_start_is_an_error_for_the_case(tmp_path: Path) -> None:
    missing = tmp_path / "no-chromium"
    adapter = BrowserAdapter(config("http://127.0.0.1:9"), browser=missing)
    try:
        payload = adapter.ask("TC_1", "q")
    finally:
        adapter.close()
    assert payload.status == "error"
    assert payload.errors[0].startswith("the browser could not start:")
    assert adapter.ask("TC_2", "q").errors == [
        "the browser channel failed: RuntimeError: the adapter is closed"
    ]


def test_tool_calls_shown_as_json_or_sql() -> None:
    calls = tool_calls_from_texts(
        [
            SQL,
            json.dumps([{"name": "a", "arguments": {"sql": "SELECT 1"}}, {"name": "b"}]),
            "  ",
            json.dumps({"name": "c", "arguments": "not an object"}),
        ]
    )
    assert [(c.name, c.sql) for c in calls] == [
        ("a", "SELECT 1"),
        ("b", None),
        ("sql", SQL),
        ("sql", json.dumps({"name": "c", "arguments": "not an object"})),
    ]
