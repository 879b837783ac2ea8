"""The HTML report in a real headless Chromium: the script pages, filters and drills down, raises
no error, and an answer that carries a script stays inert text.

Chromium is driven over the DevTools protocol on ``--remote-debugging-pipe`` (fd 3 in, fd 4 out,
NUL-separated JSON), so no client library is needed. Without Chromium the tests skip locally and
fail in CI (CI=true).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.report.html import case_issues, render_report
from eval_pipeline.core.summary import RunSummary
from eval_pipeline_tests.conftest import require_service
from eval_pipeline_tests.core.report.test_report import HISTORY, compared, realistic_run

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("EVAL_TEST_CHROMIUM", "/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)
TIMEOUT_S = 30.0
CASES = 260


class CdpError(RuntimeError):
    pass


class Browser:
    """A Chromium process and one page, spoken to over the DevTools pipe."""

    def __init__(self, profile: Path) -> None:
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def attach_pipe() -> None:
            # Move both ends above fd 4 first: a pipe end may already be fd 3 or 4, and a dup2
            # onto itself would neither keep the other end nor clear close-on-exec.
            high_in = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10)
            high_out = fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        self._log = (profile / "chromium.log").open("wb")
        self.proc = subprocess.Popen(  # preexec_fn: the DevTools pipe must sit on fds 3 and 4
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            close_fds=False,
            preexec_fn=attach_pipe,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.page(f"{domain}.enable")
        self.page(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
        )

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self._read], [], [], max(0.0, remaining))
            if not ready:
                raise CdpError("Chromium did not answer in time")
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise CdpError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self._next_id += 1
        request: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            request["sessionId"] = session
        os.write(self._write, json.dumps(request).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            message = self._message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise CdpError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def page(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.send(method, params, self.session)

    def wait_for(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method:
                    return event
            seen = len(self.events)
            self.events.append(self._message(deadline))

    def open(self, url: str) -> None:
        self.events.clear()
        self.page("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        reply = self.page(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in reply:
            raise CdpError(f"{expression!r} threw: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the element's centre, as a person would make it."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.page(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1},
            )

    def choose(self, select_id: str, value: str) -> None:
        """Pick an option as the dropdown would: set the value and fire ``change``."""
        self.js(
            f"(() => {{ const s = document.getElementById({json.dumps(select_id)});"
            f" s.value = {json.dumps(value)};"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
        )

    def type_into(self, element_id: str, text: str) -> None:
        self.js(f"document.getElementById({json.dumps(element_id)}).focus()")
        self.page("Input.insertText", {"text": text})

    def errors(self) -> list[str]:
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"])[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in {"error", "assert"}:
                found.append(json.dumps(params.get("args"))[:500])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def screenshot(self, path: Path) -> Path:
        width, height = self.js(
            "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        shot = self.page(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
            },
        )
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        with contextlib.suppress(CdpError, OSError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._read)
        os.close(self._write)
        self._log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        require_service("Chromium", f"{CHROMIUM} not found; apt-get install chromium")
    profile = tmp_path_factory.mktemp("chromium-profile")
    instance = Browser(profile)
    yield instance
    instance.close()


@pytest.fixture(scope="module")
def run() -> tuple[RunSummary, dict[str, Any]]:
    return realistic_run(CASES)


@pytest.fixture(scope="module")
def report_url(
    run: tuple[RunSummary, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> str:
    summary, details = run
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(render_report(compared(summary), details, history=HISTORY), encoding="utf-8")
    return path.as_uri()


@pytest.fixture
def page(browser: Browser, report_url: str) -> Iterator[Browser]:
    browser.open(report_url)
    yield browser
    assert browser.errors() == []
    assert browser.js("typeof window.__pwned") == "undefined"


def listed(page: Browser) -> list[dict[str, str]]:
    rows = page.js(
        "Array.from(document.querySelectorAll('#cases tbody tr.case-row'))"
        ".map(r => ({id: r.dataset.id, status: r.dataset.status}))"
    )
    assert isinstance(rows, list)
    return rows


def page_info(page: Browser) -> str:
    return str(page.js("document.getElementById('page-info').textContent"))


def test_first_page_renders_without_errors_and_screenshots(
    page: Browser, run: tuple[RunSummary, dict[str, Any]], tmp_path: Path
) -> None:
    """Failed cases first by default, then errors, then passes, each in dataset order."""
    summary, _ = run
    rank = {"fail": 0, "error": 1, "pass": 2}
    order = sorted(
        summary.cases,
        key=lambda c: rank[c.result],
    )
    rows = listed(page)
    assert [r["id"] for r in rows] == [c.case_id for c in order[:100]]
    assert rows[0]["status"] == "fail"
    assert page_info(page).startswith(f"cases 1–100 of {CASES} matching")
    assert page.js("document.querySelectorAll('svg.chart title').length") >= 10
    shot = page.screenshot(tmp_path / "report.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 50_000


def test_result_filter_lists_only_failed_cases(
    page: Browser, run: tuple[RunSummary, dict[str, Any]]
) -> None:
    summary, _ = run
    page.choose("f-status", "fail")
    rows = listed(page)
    assert rows and {r["status"] for r in rows} == {"fail"}
    assert len(rows) == min(100, summary.cases_failed)
    assert f"of {summary.cases_failed} matching" in page_info(page)


def test_tag_filter_lists_only_tagged_cases(
    page: Browser, run: tuple[RunSummary, dict[str, Any]]
) -> None:
    summary, _ = run
    expected = [c.case_id for c in summary.cases if "ranking" in c.tags]
    page.choose("f-sort", "order")
    page.choose("f-tag", "ranking")
    assert [r["id"] for r in listed(page)] == expected[:100]
    assert f"of {len(expected)} matching" in page_info(page)


def test_dimension_filter_lists_its_problems_and_highlights_its_column(
    page: Browser, run: tuple[RunSummary, dict[str, Any]]
) -> None:
    summary, _ = run
    expected = [c.case_id for c in summary.cases if "safety" in case_issues(c)]
    assert 0 < len(expected) <= 100
    page.choose("f-sort", "order")
    page.choose("f-dim", "safety")
    assert [r["id"] for r in listed(page)] == expected
    highlighted = page.js(
        "Array.from(document.querySelectorAll('#cases thead th.hl')).map(th => th.dataset.dim)"
    )
    assert highlighted == ["safety"]
    cells = page.js("document.querySelectorAll('#cases tbody td.hl').length")
    assert cells == len(expected)


def test_search_and_filters_combine(page: Browser) -> None:
    page.choose("f-sort", "order")
    page.type_into("f-q", "tc_004")
    assert [r["id"] for r in listed(page)] == [f"TC_{i:04d}" for i in range(40, 50)]
    page.choose("f-status", "pass")
    assert {r["status"] for r in listed(page)} == {"pass"}
    assert all(r["id"].startswith("TC_004") for r in listed(page))


def test_next_page_shows_the_next_hundred(page: Browser) -> None:
    page.choose("f-sort", "order")
    assert page.js("document.getElementById('prev').disabled") is True
    page.click("#next")
    assert [r["id"] for r in listed(page)] == [f"TC_{i:04d}" for i in range(100, 200)]
    assert "page 2 of 3" in page_info(page)
    page.click("#next")
    assert [r["id"] for r in listed(page)] == [f"TC_{i:04d}" for i in range(200, CASES)]
    assert page.js("document.getElementById('next').disabled") is True


def test_drill_down_shows_the_evidence_of_a_contradicted_claim(
    page: Browser, tmp_path: Path
) -> None:
    page.click('#cases tr.case-row[data-id="TC_0002"]')
    text = page.js("document.querySelector('.detail[data-case=\"TC_0002\"]').innerText")
    assert "What is the total for group 2 in quarter 3?" in text
    assert "contradicted" in text and "102 differs from 92" in text
    assert "kpi total_for_group(group=2, quarter=3) [total] = 92" in text
    assert "SELECT 2" in text
    assert "latency" in text and "time to first token" in text
    page.screenshot(tmp_path / "drill-down.png")
    page.click('#cases tr.case-row[data-id="TC_0002"]')
    assert page.js("document.querySelectorAll('.detail').length") == 0


def test_an_answer_carrying_a_script_stays_text(page: Browser) -> None:
    page.click('#cases tr.case-row[data-id="TC_0005"]')
    text = page.js(
        "document.querySelector('.detail[data-case=\"TC_0005\"] pre.answer').textContent"
    )
    assert "<script>window.__pwned = 1</script>" in text
    assert page.js("document.querySelectorAll('.detail script, .detail img').length") == 0


def test_a_regression_link_opens_that_case(page: Browser) -> None:
    page.click('[data-show-case="TC_0009"]')
    assert page.js("document.querySelectorAll('.detail[data-case=\"TC_0009\"]').length") == 1
    assert "regressed vs baseline" in page.js(
        "document.querySelector('tr.case-row[data-id=\"TC_0009\"]').innerText"
    )


def test_a_case_link_opens_its_case_after_the_page_has_loaded(page: Browser) -> None:
    page.js("location.hash = '#case-TC_0250'")
    opened = page.js("document.querySelectorAll('.detail[data-case=\"TC_0250\"]').length")
    if not opened:  # hashchange is dispatched as a task: give it one
        page.js("new Promise((done) => setTimeout(done, 100))")
        opened = page.js("document.querySelectorAll('.detail[data-case=\"TC_0250\"]').length")
    assert opened == 1
    assert page.js("document.getElementById('case-TC_0250') !== null")


def test_the_layout_holds_at_420_pixels(page: Browser, tmp_path: Path) -> None:
    page.page(
        "Emulation.setDeviceMetricsOverride",
        {"width": 420, "height": 900, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        page.click("#cases tr.case-row")
        width = page.js("document.documentElement.scrollWidth")
        assert width <= 420, f"the page scrolls sideways at 420 px: {width} px wide"
        wide = page.js(
            "Array.from(document.querySelectorAll('main > *, .cards, .controls, .charts figure'))"
            ".filter(e => e.getBoundingClientRect().right > 421).map(e => e.className || e.tagName)"
        )
        assert wide == []
        page.screenshot(tmp_path / "narrow.png")
    finally:
        page.page(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
        )


def scaled(run: tuple[RunSummary, dict[str, Any]], n: int) -> tuple[RunSummary, Any]:
    """``n`` cases cloned from a generated run under new ids: cheaper than generating them."""
    summary, details = run
    cases = []
    scaled_details: dict[str, dict[str, Any]] = {name: {} for name in details}
    for i in range(n):
        source = summary.cases[i % len(summary.cases)]
        case_id = f"BIG_{i:05d}"
        cases.append(source.model_copy(update={"case_id": case_id}))
        for name, records in details.items():
            if source.case_id in records:
                scaled_details[name][case_id] = records[source.case_id]
    errors = sum(c.state == "error" for c in cases)
    update = {"cases": cases, "cases_total": n, "cases_error": errors}
    return summary.model_copy(update=update), scaled_details


def test_ten_thousand_cases_keep_one_page_in_the_dom(
    browser: Browser, run: tuple[RunSummary, dict[str, Any]], tmp_path: Path
) -> None:
    summary, details = scaled(run, 10_000)
    path = tmp_path / "big.html"
    path.write_text(render_report(summary, details), encoding="utf-8")
    browser.open(path.as_uri())
    assert browser.js("document.querySelectorAll('#cases tbody tr').length") == 100
    assert "page 1 of 100" in page_info(browser)
    browser.choose("f-status", "error")
    assert f"of {summary.cases_error} matching" in page_info(browser)
    assert {r["status"] for r in listed(browser)} == {"error"}
    assert browser.errors() == []


def test_a_claim_is_marked_in_its_sentence_with_pii_masked_and_its_value_in_its_unit(
    browser: Browser, run: tuple[RunSummary, dict[str, Any]], tmp_path: Path
) -> None:
    from eval_pipeline_tests.core.report.test_report_views import one_case_details

    summary, details = run
    case = summary.cases[-1].case_id  # on the last page: the link must page to it
    one = one_case_details()
    mixed = {
        name: {**records, case: {**one[name]["TC_1"], "case_id": case}}
        for name, records in details.items()
    }
    path = tmp_path / "claims.html"
    path.write_text(render_report(summary, mixed), encoding="utf-8")
    browser.open(f"{path.as_uri()}#case-{case}")
    detail = f"document.querySelector('.detail[data-case=\"{case}\"]')"
    assert browser.js(f"{detail}.querySelector('mark.claim').textContent") == "93.4%"
    sentence = browser.js(f"{detail}.querySelector('mark.claim').parentElement.textContent")
    assert sentence == "The completion rate is 93.4% this quarter."
    text = browser.js(f"{detail}.innerText")
    assert "jane.doe@example.com" not in text and "j***@e***.com" in text
    assert "= 91.8 %" in text and "91.80327868852459" not in text
    browser.screenshot(tmp_path / "claim-sentence.png")
    assert browser.errors() == []
