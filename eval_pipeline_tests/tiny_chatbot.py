"""Python-callable chatbots over the tiny second domain, named by ``EVAL_CHATBOT_CALLABLE``."""

from __future__ import annotations

import re
from collections.abc import Callable

import sqlalchemy as sa

from eval_pipeline.demo import tiny

Chat = Callable[[str, str], str]


def honest(warehouse_url: str) -> Chat:
    engine = sa.create_engine(warehouse_url)
    return lambda question, context: tiny.answer(question, engine)


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
