"""A chatbot reached only through its web page: Playwright drives Debian's headless Chromium.

Playwright's sync API is bound to the thread that started it, while ``ask`` is called from many
worker threads at once. So the adapter owns one thread running an asyncio loop with Playwright's
async API and one browser; each ``ask`` hands its case to that loop and waits for it, and each
case gets a browser context (own cookies and storage) and page of its own, at most ``pages`` at
once. Nothing starts before the first ``ask``.

Timings come from the page itself: a probe installed before the question is sent notes, on the
page's clock, when the send button is clicked (or Enter pressed), when the answer element first
holds non-empty text, every change of that text, and when the done condition holds. A page that
stops changing for the read timeout is a stalled answer; each page step (opening, login, the
message box) has the page object's step timeout; the total timeout bounds the whole case
(page, login, answer), and the answer is dropped past the byte cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError
from pydantic import SecretStr

from eval_pipeline.core.adapters.base import (
    MAX_ERROR_CHARS,
    answer_size_error,
    describe_exception,
    error_payload,
    intent_of_calls,
    tokens_per_second,
    tool_calls_from_json,
    total_timeout_error,
    utc_now_iso,
)
from eval_pipeline.core.adapters.defaults import CHROMIUM
from eval_pipeline.core.adapters.ui_config import UIConfig
from eval_pipeline.core.limits import MAX_ANSWER_BYTES
from eval_pipeline.core.models import ChatPayload, ToolCall
from eval_pipeline.core.redaction import Redactor

T = TypeVar("T")

LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
GRACE_S = 5.0  # beyond the total timeout, for the loop to hand a timed-out case back
SHUTDOWN_S = 15.0

# Runs in every page of a context before the page's own scripts (an init script); passive until
# the question is sent, then resolves ``finished`` with what the page showed.
PROBE = """
(cfg) => {
  const probe = {start: null, first: null, last: null, end: null, chunks: 0, maxGap: null,
                 seen: '', text: '', tools: [], outcome: null, error: ''};
  let resolve, observer, timer;
  probe.finished = new Promise((r) => { resolve = r; });
  // while streaming only textContent is read (no layout); the configured text once at the end
  const raw = (el) => el.textContent || '';
  const read = (el) => (cfg.innerText ? el.innerText : el.textContent) || '';
  const answer = () => {
    const all = document.querySelectorAll(cfg.answer);
    return all.length ? all[all.length - 1] : null;
  };
  const finish = (outcome, error) => {
    if (probe.outcome !== null) return;
    probe.outcome = outcome;
    probe.error = error || '';
    probe.end = probe.end === null ? performance.now() : probe.end;
    observer.disconnect();
    clearInterval(timer);
    const el = answer();
    const kept = outcome !== 'too_large';
    probe.text = kept && el ? read(el) : '';
    if (kept && cfg.tools) {
      probe.tools = Array.from(document.querySelectorAll(cfg.tools), (e) => e.textContent || '');
    }
    const {finished, seen, ...record} = probe;
    resolve(record);
  };
  const check = () => {
    if (probe.outcome !== null) return;
    const now = performance.now();
    const el = answer();
    const text = el ? raw(el) : '';
    if (text !== probe.seen) {
      if (probe.first === null) {
        if (text.trim()) probe.first = now;
      } else {
        const gap = (now - probe.last) / 1000;
        probe.maxGap = probe.maxGap === null ? gap : Math.max(probe.maxGap, gap);
      }
      if (probe.first !== null) { probe.last = now; probe.chunks += 1; }
      probe.seen = text;
      if (4 * text.length > cfg.maxBytes
          && new TextEncoder().encode(text).length > cfg.maxBytes) return finish('too_large');
    }
    if (cfg.error) {
      const shown = document.querySelector(cfg.error);
      const message = shown ? read(shown).trim() : '';
      if (message) return finish('error', message);
    }
    if (cfg.done && document.querySelector(cfg.done)) return finish('done');
    if (cfg.idleMs && probe.first !== null && now - probe.last >= cfg.idleMs) {
      probe.end = probe.last;
      return finish('done');
    }
    if (now - (probe.last === null ? probe.start : probe.last) >= cfg.stallMs) finish('stalled');
  };
  const started = (event) => {
    if (probe.start !== null) return;
    const target = event.target instanceof Element ? event.target : null;
    const sent = target && (event.type === 'click'
      ? cfg.send && target.closest(cfg.send)
      : !cfg.send && event.key === 'Enter' && target.closest(cfg.input));
    if (!sent) return;
    probe.start = performance.now();
    observer = new MutationObserver(check);
    observer.observe(document,
                     {subtree: true, childList: true, characterData: true, attributes: true});
    timer = setInterval(check, 50);
    check();
  };
  document.addEventListener('click', started, true);
  document.addEventListener('keydown', started, true);
  window.__evalProbe = probe;
}
"""
# The question was sent in the document the probe watches; a page that has navigated away by the
# time this runs shows a fresh probe that saw no send, whose answer would never come.
_PROBE_FINISHED = """() => {
  const probe = window.__evalProbe;
  if (probe && probe.start !== null) return probe.finished;
  throw new Error('the page navigated away before the answer came');
}"""
_PROBE_SO_FAR = "() => (window.__evalProbe ? window.__evalProbe.seen : '')"


@dataclass(frozen=True)
class _Seen:
    """What one case's page showed (the probe's record), or why it failed."""

    probe: dict[str, Any] | None = None
    error: str = ""
    partial: str = ""


@dataclass(frozen=True)
class _Slot:
    context: BrowserContext
    page: Page


class _Failed(Exception):
    """A step of the conversation failed; the message says which and why."""


def tool_calls_from_texts(texts: list[str] | tuple[str, ...]) -> list[ToolCall]:
    """What the page shows the bot ran: JSON tool calls (``{"name", "arguments"}`` or a list of
    them) as they are, any other text as one SQL statement."""
    calls: list[dict[str, Any]] = []
    statements: list[str] = []
    for text in (t.strip() for t in texts):
        if not text:
            continue
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        shown = parsed if isinstance(parsed, list) else [parsed]
        if shown and all(_is_tool_call(item) for item in shown):
            calls.extend(shown)
        else:
            statements.append(text)
    return tool_calls_from_json(calls, statements)


def _is_tool_call(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and isinstance(item.get("arguments", {}), dict)
    )


class BrowserAdapter:
    """Thread-safe; one browser for every concurrent ``ask``, closed by ``close``."""

    transport = "ui"

    def __init__(
        self,
        config: UIConfig,
        *,
        username: str = "",
        password: SecretStr | str = "",
        browser: Path = CHROMIUM,
        read_timeout_s: float = 10.0,
        total_timeout_s: float = 120.0,
        pages: int = 8,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        redactor: Redactor | None = None,
        intent_path: str = "",
    ) -> None:
        self.config = config
        self._intent_path = intent_path
        self._username = username
        self._password = password if isinstance(password, SecretStr) else SecretStr(password)
        self._redactor = redactor or Redactor()
        self._redactor.add("chatbot_password", self._password)
        self._executable = browser
        self._read_timeout_s = read_timeout_s
        self._total_timeout_s = total_timeout_s
        self._max_answer_bytes = max_answer_bytes
        self._pages = asyncio.Semaphore(pages)
        self._lock = threading.Lock()
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._launching: asyncio.Lock | None = None
        self._idle: list[_Slot] = []  # pages of finished cases, touched only by the loop

    # ------------------------------------------------------------------ the sync face

    def ask(self, case_id: str, question: str, context: str = "") -> ChatPayload:
        """``context`` is not sent: a web page has only its message box."""
        started_at = utc_now_iso()
        deadline = time.monotonic() + self._total_timeout_s
        try:
            seen = self._submit(self._ask(question, deadline), self._total_timeout_s + GRACE_S)
        except FutureTimeout:
            seen = _Seen(error=total_timeout_error(self._total_timeout_s))
        except Exception as exc:  # closed, or the browser went away under the case
            seen = _Seen(error=f"the browser channel failed: {describe_exception(exc)}")
        return self._payload(case_id, question, seen, started_at)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        # a browser that does not close in time is ended with the process (Playwright's driver)
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(SHUTDOWN_S)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(SHUTDOWN_S)
        if not thread.is_alive():
            loop.close()

    def _submit(self, coroutine: Coroutine[Any, Any, T], timeout_s: float) -> T:
        with self._lock:
            if self._closed:
                coroutine.close()
                raise RuntimeError("the adapter is closed")
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="browser-channel", daemon=True
                )
                self._thread.start()
            loop = self._loop
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        try:
            return future.result(timeout_s)
        except FutureTimeout:
            future.cancel()
            raise

    # ------------------------------------------------------------------ in the loop's thread

    async def _browser_ready(self) -> Browser:
        """One browser for all cases, launched by the first case (again if it went away)."""
        if self._launching is None:
            self._launching = asyncio.Lock()
        async with self._launching:
            if self._browser is None or not self._browser.is_connected():
                self._idle.clear()
                if self._playwright is None:
                    self._playwright = await async_playwright().start()
                self._browser = await self._playwright.chromium.launch(
                    executable_path=str(self._executable), headless=True, args=list(LAUNCH_ARGS)
                )
            return self._browser

    async def _shutdown(self) -> None:
        if self._browser is not None:
            await self._browser.close()
        if self._playwright is not None:
            await self._playwright.stop()

    async def _ask(self, question: str, deadline: float) -> _Seen:
        async with self._pages:
            try:
                slot = await self._slot()
            except PlaywrightError as exc:
                return _Seen(error=f"the browser could not start: {_first_line(exc)}")
            seen = _Seen(error="the case was cancelled")
            try:
                remaining = deadline - time.monotonic()
                seen = await asyncio.wait_for(self._converse(slot.page, question), remaining)
            except TimeoutError:
                seen = _Seen(
                    error=total_timeout_error(self._total_timeout_s),
                    partial=await _so_far(slot.page),
                )
            except _Failed as exc:
                seen = _Seen(error=str(exc), partial=await _so_far(slot.page))
            finally:
                finished = seen.probe is not None and seen.probe["outcome"] == "done"
                if finished and self.config.isolation == "slot":
                    self._idle.append(slot)
                else:  # a page still streaming, or one no later case may see
                    await _closed(slot.context)
            return seen

    async def _slot(self) -> _Slot:
        """A page for one case: an idle one (its context keeps the login), else a new one."""
        browser = await self._browser_ready()
        while self._idle:
            slot = self._idle.pop()
            if not slot.page.is_closed():
                return slot
        context = await browser.new_context()
        await context.add_init_script(script=f"({PROBE})({json.dumps(self._probe_config())})")
        return _Slot(context, await context.new_page())

    async def _converse(self, page: Page, question: str) -> _Seen:
        config = self.config
        page.set_default_timeout(config.step_timeout_s * 1000)
        step = f"opening {config.url}"
        try:
            await page.goto(config.url, wait_until="domcontentloaded")
            box = page.locator(config.chat.input)
            step = "waiting for the message box"
            if config.login is not None:
                step = "waiting for the login form or the message box"
                user = page.locator(config.login.username)
                await user.or_(box).filter(visible=True).first.wait_for()
                if await user.is_visible():
                    step = "logging in"
                    await user.fill(self._username)
                    await page.locator(config.login.password).fill(
                        self._password.get_secret_value()
                    )
                    await page.locator(config.login.submit).click()
                    step = "waiting for the message box after logging in"
            await box.wait_for(state="visible")
            step = "typing the question"
            await box.fill(question)
            step = "sending the question"
            if config.chat.send:
                await page.locator(config.chat.send).click()
            else:
                await box.press("Enter")
            step = "waiting for the answer"
            probe: dict[str, Any] = await page.evaluate(_PROBE_FINISHED)
        except PlaywrightError as exc:
            raise _Failed(f"{step} failed: {_first_line(exc)}") from None
        return _Seen(probe=probe)

    def _probe_config(self) -> dict[str, Any]:
        answer = self.config.answer
        return {
            "answer": answer.selector,
            "done": answer.done,
            "error": answer.error,
            "idleMs": answer.idle_s * 1000 if answer.idle_s else None,
            "innerText": answer.text == "inner_text",
            "send": self.config.chat.send,
            "input": self.config.chat.input,
            "stallMs": self._read_timeout_s * 1000,
            "maxBytes": self._max_answer_bytes,
            "tools": self.config.tool_calls.selector if self.config.tool_calls else None,
        }

    # ------------------------------------------------------------------ the payload

    def _payload(self, case_id: str, question: str, seen: _Seen, started_at: str) -> ChatPayload:
        probe = seen.probe
        if probe is None:
            failed = error_payload(
                case_id=case_id,
                question=question,
                error=self._redact(seen.error),
                transport=self.transport,
                started_at=started_at,
            )
            return failed.model_copy(update={"answer": seen.partial})
        outcome = probe["outcome"]
        answer = str(probe.get("text") or "")
        errors = {
            "done": [],
            "error": [f"the page shows an error: {probe.get('error', '')}"],
            "stalled": [
                f"answer stalled: no new text for {self._read_timeout_s:g} s (read timeout)"
            ],
            "too_large": [answer_size_error(self._max_answer_bytes)],
        }[outcome]
        start, first = probe["start"], probe.get("first")
        ttft = (first - start) / 1000 if first is not None else None
        latency = (probe["end"] - start) / 1000 if outcome == "done" else None
        generation = latency - ttft if latency is not None and ttft is not None else None
        calls = tool_calls_from_texts(probe.get("tools") or [])
        return ChatPayload(
            case_id=case_id,
            question=question,
            answer=answer,
            intent=intent_of_calls(calls, self._intent_path),
            tool_calls=calls,
            latency_s=latency,
            ttft_s=ttft,
            tokens_per_s=tokens_per_second(answer, generation),
            chunk_count=int(probe.get("chunks") or 0),
            max_chunk_gap_s=probe.get("maxGap"),
            errors=[self._redact(e) for e in errors],
            status="ok" if not errors else "error",
            transport=self.transport,
            started_at=started_at,
        )

    def _redact(self, message: str) -> str:
        return self._redactor.excerpt(message, MAX_ERROR_CHARS)


def _first_line(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return message.strip().splitlines()[0] if message.strip() else type(exc).__name__


async def _so_far(page: Page) -> str:
    """The answer the page showed when the case gave up on it, if the page still answers."""
    try:
        text = await asyncio.wait_for(page.evaluate(_PROBE_SO_FAR), 1.0)
    except (PlaywrightError, TimeoutError):
        return ""
    return text if isinstance(text, str) else ""


async def _closed(context: BrowserContext) -> None:
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await asyncio.wait_for(context.close(), 5.0)
