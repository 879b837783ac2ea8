"""Python-callable chatbots over the tiny second domain, named by ``EVAL_CHATBOT_CALLABLE``."""

from __future__ import annotations

import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from eval_pipeline.demo import tiny

Chat = Callable[[str, str], str]

ASKED: Counter[str] = Counter()
_LOCK = threading.Lock()


def _count(question: str) -> int:
    """Count the question; returns how many questions were asked so far, this one included."""
    with _LOCK:
        ASKED[question] += 1
        return ASKED.total()


def asked_so_far() -> int:
    """How many questions were asked, read safely while calls are in flight on other threads."""
    with _LOCK:
        return ASKED.total()


def honest(warehouse_url: str) -> Chat:
    engine = sa.create_engine(warehouse_url)

    def chat(question: str, context: str) -> str:
        _count(question)
        return tiny.answer(question, engine)

    return chat


def _inflate(match: re.Match[str]) -> str:
    return f"{float(match.group(0).replace(',', '')) * 1.5:,.2f}"


def inflated_units(warehouse_url: str) -> Chat:
    """Right everywhere except unit counts, which are 50% too high; and one question crashes."""
    engine = sa.create_engine(warehouse_url)

    def chat(question: str, context: str) -> str:
        if "restock" in question.lower():
            raise ConnectionError("backend unavailable")
        text = tiny.answer(question, engine)
        if "units of" in text:
            return re.sub(r"\d[\d,]*(?:\.\d+)?", _inflate, text, count=1)
        return text

    return chat


def refresh_during_first_answer(warehouse_url: str) -> Chat:
    """Honest, but the warehouse refreshes the orders table while the first batch is answered."""
    engine = sa.create_engine(warehouse_url)

    def chat(question: str, context: str) -> str:
        first = _count(question) == 1  # decided at once: concurrent calls count too
        text = tiny.answer(question, engine)
        if first:
            with engine.begin() as conn:
                conn.execute(sa.text("UPDATE orders SET updated_at = '2030-01-01 00:00:00'"))
        return text

    return chat


IN_FLIGHT = {"now": 0, "most": 0}


def slow_honest(warehouse_url: str) -> Chat:
    """Honest, taking 50 ms per answer and recording the most calls ever in flight at once."""
    answer = honest(warehouse_url)

    def chat(question: str, context: str) -> str:
        with _LOCK:
            IN_FLIGHT["now"] += 1
            IN_FLIGHT["most"] = max(IN_FLIGHT["most"], IN_FLIGHT["now"])
        try:
            time.sleep(0.05)
            return answer(question, context)
        finally:
            with _LOCK:
                IN_FLIGHT["now"] -= 1

    return chat


def broken(warehouse_url: str) -> Chat:
    """Reached, but fails every question: a run of it gets no answer at all."""

    def chat(question: str, context: str) -> str:
        _count(question)
        raise RuntimeError("internal error in the chatbot")

    return chat


GATE_ENV = "TINY_BOT_GATE"


def gated(warehouse_url: str) -> Chat:
    """Honest, but every answer waits until the file named by ``$TINY_BOT_GATE`` exists (10
    minutes at most), so a test can hold an evaluation in flight (in this process or another)
    however slow the machine, and then release it."""
    answer = honest(warehouse_url)

    def chat(question: str, context: str) -> str:
        gate = Path(os.environ[GATE_ENV])
        deadline = time.monotonic() + 600
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return answer(question, context)

    return chat


LONG_ANSWER_BYTES = 256 * 1024  # the cap test_caps sets (EVAL_CHATBOT_MAX_ANSWER_BYTES)


def long_winded(warehouse_url: str) -> Chat:
    """Honest, then padded: the Croissant answer past ``LONG_ANSWER_BYTES``, the online share one
    with about 12,000 figures just under it."""
    engine = sa.create_engine(warehouse_url)

    def chat(question: str, context: str) -> str:
        _count(question)
        text = tiny.answer(question, engine)
        if "Croissant" in question:
            return text + " Truly." * (LONG_ANSWER_BYTES // 7 + 1)
        if "online" in question:
            week = " In week {} the shop baked {} loaves."
            padding = "".join(week.format(i, i * 7 % 997) for i in range(6_500))
            return (text + padding)[: LONG_ANSWER_BYTES - 1024]
        return text

    return chat
