"""Transports to the chatbot under test; each turns one question into a ``ChatPayload``."""

from __future__ import annotations

from typing import Any

from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.adapters.http_json import HTTPJSONAdapter
from eval_pipeline.core.adapters.python_callable import CallableAdapter
from eval_pipeline.core.adapters.sse import SSEAdapter, SSEEvent, SSEParser

ADAPTER_KINDS: dict[str, type[Any]] = {
    "sse": SSEAdapter,
    "http_json": HTTPJSONAdapter,
    "callable": CallableAdapter,
}


def build_adapter(kind: str, **settings: Any) -> ChatbotAdapter:
    """Build an adapter from configuration; unknown kinds and settings fail loudly."""
    try:
        factory = ADAPTER_KINDS[kind]
    except KeyError:
        raise ValueError(
            f"unknown chatbot adapter kind {kind!r}; expected one of {sorted(ADAPTER_KINDS)}"
        ) from None
    adapter: ChatbotAdapter = factory(**settings)
    return adapter


__all__ = [
    "ADAPTER_KINDS",
    "CallableAdapter",
    "ChatbotAdapter",
    "HTTPJSONAdapter",
    "SSEAdapter",
    "SSEEvent",
    "SSEParser",
    "build_adapter",
]
