"""Every adapter captures the intent the bot routed to: from an SSE event's field (a JSON path
in ``agent_status`` or ``tool_call``), from a field of the JSON response, from what a callable
returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from eval_pipeline.core.adapters.base import value_at
from eval_pipeline.core.adapters.http_json import HTTPJSONAdapter
from eval_pipeline.core.adapters.python_callable import CallableAdapter
from eval_pipeline.core.problems import InputError
from eval_pipeline.settings import load_settings
from eval_pipeline_tests.core.adapters.test_adapters import (
    ScriptedBot,
    frame,
    serve,
    sse_adapter,
)

__all__ = ["serve"]  # the loopback server fixture


def routed_answer(question: str) -> list[Any]:
    return [
        frame("agent_status", {"status": "classifying"}),
        frame("agent_status", {"status": "routed", "route": {"intent": "catalogo_precios"}}),
        frame(
            "tool_call",
            {"id": "c1", "name": "router", "arguments": {"intent": "mixta", "sql": "SELECT 1"}},
        ),
        frame("chunk", {"text": "La Patito Pro cuesta 1.234,56 €."}),
        frame("done", {}),
    ]


@pytest.mark.parametrize(
    ("event", "path", "expected"),
    [
        ("agent_status", "$.route.intent", "catalogo_precios"),
        ("agent_status", "intent", None),
        ("tool_call", "arguments.intent", "mixta"),
    ],
)
def test_sse_reads_the_intent_at_a_json_path_of_the_configured_event(
    serve: Callable[[ScriptedBot], str], event: str, path: str, expected: str | None
) -> None:
    adapter = sse_adapter(
        serve(ScriptedBot(script=routed_answer)), intent_event=event, intent_path=path
    )
    payload = adapter.ask("TC_1", "¿Tienen la Patito Pro?")
    adapter.close()
    assert payload.status == "ok", payload.errors
    assert payload.intent == expected


def test_http_json_reads_the_intent_from_the_response(serve: Callable[[ScriptedBot], str]) -> None:
    bot = ScriptedBot(json_reply={"answer": "ok", "meta": {"route": "proceso_ventas"}})
    adapter = HTTPJSONAdapter(serve(bot) + "/json", intent_path="meta.route")
    payload = adapter.ask("TC_2", "Quiero comprar 3 licencias")
    adapter.close()
    assert (payload.status, payload.intent) == ("ok", "proceso_ventas")


def test_callable_returns_its_intent_and_a_plain_text_answer_has_none() -> None:
    routed = CallableAdapter(lambda q, c: {"answer": "hola", "intent": "accion_registro"})
    assert routed.ask("TC_3", "Regístrame").intent == "accion_registro"
    assert CallableAdapter(lambda q, c: "hola").ask("TC_4", "hola").intent is None


def test_value_at_takes_only_text_like_values() -> None:
    assert value_at({"intent": 7}, "intent") == "7"
    for data in ({"intent": {"a": 1}}, {"intent": True}, {"intent": "  "}, {}, ["intent"]):
        assert value_at(data, "intent") is None


def test_an_invalid_json_path_is_a_settings_problem() -> None:
    with pytest.raises(InputError) as raised:
        load_settings(chatbot_intent_path="$.[[")
    assert "EVAL_CHATBOT_INTENT_PATH" in str(raised.value)
    assert "not a JSON path" in str(raised.value)
