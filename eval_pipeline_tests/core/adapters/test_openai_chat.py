"""The OpenAI-compatible adapter against a loopback server that really streams chunked SSE
(``scripted_openai``): tool calls in fragments, multi-turn context, and every way a stream fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from eval_pipeline.core.adapters.base import AnswerCapped
from eval_pipeline.core.adapters.openai_chat import OpenAIChatAdapter, context_messages
from eval_pipeline.core.adapters.redacting import RedactingAdapter
from eval_pipeline.environment import build_adapter
from eval_pipeline.settings import Settings
from eval_pipeline_tests.scripted_openai import (
    DONE,
    RecordedRequest,
    ScriptedOpenAI,
    content,
    delta,
    error,
    streamed,
    tool_calls,
)

KEY = "sk-test-0123456789abcdefghij"
SQL = "SELECT region, COUNT(*) AS n FROM sites GROUP BY region"


@pytest.fixture
def server() -> Iterator[ScriptedOpenAI]:
    with ScriptedOpenAI(api_key=KEY) as running:
        yield running


def adapter(server: ScriptedOpenAI, **options: object) -> OpenAIChatAdapter:
    settings: dict[str, object] = {
        "model": "analyst-1",
        "api_key": KEY,
        "read_timeout_s": 2.0,
        "total_timeout_s": 10.0,
        "retries": 1,
        "backoff_s": 0.01,
        **options,
    }
    return OpenAIChatAdapter(server.base_url, **settings)  # type: ignore[arg-type]


def call(index: int, call_id: str | None, name: str | None, arguments: str) -> dict[str, object]:
    fragment: dict[str, object] = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        fragment["id"] = call_id
        fragment["type"] = "function"
        fragment["function"] = {"name": name, "arguments": arguments}
    return fragment


def test_a_streamed_answer_with_tool_calls_fills_the_payload(server: ScriptedOpenAI) -> None:
    arguments = json.dumps({"query": SQL, "limit": 10})
    server.script(
        streamed(
            delta("", role="assistant"),
            delta(reasoning_content="Count the sites per region. "),
            delta(tool_calls=[call(0, "call_a", "run_sql", arguments[:20])]),
            delta(tool_calls=[call(1, "call_b", "lookup", '{"term": "site"}')]),
            delta(tool_calls=[call(0, None, None, arguments[20:])]),
            0.05,
            delta("West has "),
            0.02,
            delta("512 sites "),
            delta("and East 488."),
            delta(finish_reason="stop"),
            DONE,
        )
    )
    bot = adapter(server, headers={"X-Tenant": "acme"}, body={"temperature": 0, "user": "eval"})
    payload = bot.ask("TC_1", "How many sites per region?")

    assert payload.status == "ok", payload.errors
    assert payload.answer == "West has 512 sites and East 488."
    assert payload.reasoning == "Count the sites per region. "
    assert [(c.id, c.name, c.sql) for c in payload.tool_calls] == [
        ("call_a", "run_sql", SQL),
        ("call_b", "lookup", None),
    ]
    assert payload.tool_calls[0].arguments == {"query": SQL, "limit": 10}
    assert payload.transport == "openai_chat" and payload.chunk_count == 3
    assert payload.ttft_s is not None and payload.latency_s is not None
    assert 0.05 <= payload.ttft_s < payload.latency_s
    # the server waits 0.02 s between chunks; what arrives may be a few ms closer together
    assert payload.max_chunk_gap_s is not None and payload.max_chunk_gap_s >= 0.01
    assert payload.tokens_per_s is not None and payload.tokens_per_s > 0
    (sent,) = server.requests
    assert sent.auth == "bearer" and sent.headers["x-tenant"] == "acme"
    assert sent.body == {
        "temperature": 0,
        "user": "eval",
        "model": "analyst-1",
        "messages": [{"role": "user", "content": "How many sites per region?"}],
        "stream": True,
    }


def test_a_plain_reply_streamed_word_by_word_reads_like_the_same_answer(
    server: ScriptedOpenAI,
) -> None:
    server.script(tool_calls([("run_sql", {"sql": SQL})]))
    server.script(content("Total: 1,000 sites."))
    bot = adapter(server)
    asked = bot.ask("TC_1", "q")
    assert asked.status == "error"  # a bare model asking for tools has not answered
    assert "asked for tool calls and gave no answer" in asked.errors[0]
    assert asked.tool_calls[0].sql == SQL
    answered = bot.ask("TC_2", "q")
    assert (answered.status, answered.answer, answered.chunk_count) == (
        "ok",
        "Total: 1,000 sites.",
        3,
    )


def test_the_routed_intent_is_read_from_a_chunk_field_or_a_tool_call(
    server: ScriptedOpenAI,
) -> None:
    routed = {"index": 0, "id": "call_r", "type": "function"}
    routed["function"] = {"name": "router", "arguments": '{"intent": "site_summary"}'}
    reply = streamed(
        {**delta("", role="assistant"), "route": {"intent": "catalog"}},
        {**delta("West has 512.", tool_calls=[routed]), "route": {"intent": "site_count"}},
        delta(finish_reason="stop"),
        DONE,
    )
    server.script(reply, reply)
    from_chunks = adapter(server, intent_path="$.route.intent").ask("TC_1", "q")
    assert from_chunks.intent == "site_count", "the latest intent reported wins"
    from_calls = adapter(server, intent_event="tool_call", intent_path="arguments.intent")
    assert from_calls.ask("TC_1", "q").intent == "site_summary"
    server.script(content("no route said"))
    assert adapter(server).ask("TC_2", "q").intent is None


def test_the_sql_argument_names_are_configurable(server: ScriptedOpenAI) -> None:
    server.script(tool_calls([("db", {"statement": SQL, "sql": "not this one"})]), content("x"))
    payload = adapter(server, sql_arguments=("statement", "sql")).ask("TC_1", "q")
    assert payload.tool_calls[0].sql == SQL


@pytest.mark.parametrize(
    ("context", "earlier"),
    [
        ("", []),
        (
            "User: Sites in the West?\nAssistant: 512 sites.\nthey are all active\nuser: And East?",
            [
                {"role": "user", "content": "Sites in the West?"},
                {"role": "assistant", "content": "512 sites.\nthey are all active"},
                {"role": "user", "content": "And East?"},
            ],
        ),
        (
            json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]),
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
        ),
        ("Counts are at site grain.", [{"role": "system", "content": "Counts are at site grain."}]),
    ],
)
def test_multi_turn_context_is_sent_as_earlier_messages(
    server: ScriptedOpenAI, context: str, earlier: list[dict[str, str]]
) -> None:
    assert context_messages(context) == earlier
    server.script(content("ok"))
    assert adapter(server).ask("TC_1", "How many now?", context).status == "ok"
    assert server.requests[0].messages == [*earlier, {"role": "user", "content": "How many now?"}]


def test_an_error_mid_stream_keeps_the_partial_answer(server: ScriptedOpenAI) -> None:
    server.script(
        streamed(
            delta("West has "),
            delta("512"),
            {"error": {"message": "upstream model stream interrupted", "type": "server_error"}},
        ),
        streamed(delta("East has "), "event: error\ndata: overloaded\n\n"),
    )
    bot = adapter(server)
    payload = bot.ask("TC_1", "q")
    assert payload.status == "error" and payload.answer == "West has 512"
    assert payload.errors == ["chatbot error in the stream: upstream model stream interrupted"]
    assert payload.latency_s is None and payload.ttft_s is not None
    named = bot.ask("TC_2", "q")
    assert named.errors == ["chatbot error in the stream: overloaded"]
    assert named.answer == "East has "


@pytest.mark.parametrize(
    ("events", "message", "partial"),
    [
        (
            (delta("West "), "data: {not json\n\n", DONE),
            "malformed JSON in 'message' event",
            "West ",
        ),
        (
            (delta("West "), "data: [1, 2]\n\n", DONE),
            "malformed 'message' event: expected a JSON object",
            "West ",
        ),
        (
            (delta("West "), {"choices": [{"index": 0, "delta": "text"}]}, DONE),
            "malformed 'message' event: ValueError: delta is not an object",
            "West ",
        ),
        (
            (delta(tool_calls=[call(0, "c", "run_sql", '{"sql": ')]), delta("x"), DONE),
            "malformed tool call 'run_sql': its arguments are not JSON",
            "x",
        ),
        ((delta("West "), delta("has 5.")), "stream ended without [DONE]", "West has 5."),
        (
            (delta("West "), delta(finish_reason="length"), DONE),
            "the answer was cut at the token limit (finish_reason 'length')",
            "West ",
        ),
    ],
)
def test_malformed_and_unfinished_streams_are_errors_never_crashes(
    server: ScriptedOpenAI, events: tuple[object, ...], message: str, partial: str
) -> None:
    server.script(streamed(*events))
    payload = adapter(server).ask("TC_1", "q")
    assert payload.status == "error" and payload.latency_s is None
    assert payload.errors[0].startswith(message), payload.errors
    assert payload.answer == partial


def test_a_stalled_stream_and_a_dripping_one_end_at_their_limits(server: ScriptedOpenAI) -> None:
    server.script(streamed(delta("West "), 1.5, delta("late"), DONE))
    stalled = adapter(server, read_timeout_s=0.5).ask("TC_1", "q")
    assert stalled.errors == ["stream stalled: no data for 0.5 s (read timeout)"]
    assert stalled.answer == "West "
    server.script(streamed(*[e for _ in range(20) for e in (delta("word "), 0.2)], DONE))
    dripping = adapter(server, read_timeout_s=1.0, total_timeout_s=1.0).ask("TC_2", "q")
    assert dripping.errors == ["stream exceeded the total timeout of 1 s"]


def test_an_answer_over_the_byte_cap_is_an_error_without_its_text(server: ScriptedOpenAI) -> None:
    server.script(streamed(*[delta("x" * 1000) for _ in range(40)], DONE))
    payload = adapter(server, max_answer_bytes=16 * 1024).ask("TC_1", "q")
    assert payload.status == "error" and payload.answer == ""
    assert payload.errors == [
        "answer too large: more than 16,384 bytes (EVAL_CHATBOT_MAX_ANSWER_BYTES)"
    ]


def test_http_errors_are_retried_or_reported_with_the_key_redacted(server: ScriptedOpenAI) -> None:
    server.script(error(500), content("fine"))
    retried = adapter(server).ask("TC_1", "q")
    assert (retried.status, retried.answer, retried.attempts) == ("ok", "fine", 2)

    server.script(error(400, message=f"model not found for key {KEY}"))
    rejected = adapter(server).ask("TC_2", "q")
    assert rejected.status == "error" and KEY not in rejected.errors[0]
    assert rejected.errors[0].startswith("chat request rejected: HTTP 400:")

    wrong_key = adapter(server, api_key="sk-wrong-key-000000000000").ask("TC_3", "q")
    assert wrong_key.errors[0].startswith("chat request rejected: HTTP 401:")
    assert "sk-wrong-key" not in wrong_key.errors[0]


def test_a_server_that_ignores_stream_answers_one_completion() -> None:
    with ScriptedOpenAI(api_key=KEY, streams=False) as server:
        server.script(tool_calls([("run_sql", {"sql": SQL})]), content("It is 42."))
        bot = adapter(server)
        first = bot.ask("TC_1", "q")
        assert first.status == "ok" and first.tool_calls[0].sql == SQL  # answered: no content
        second = bot.ask("TC_2", "q")
        assert (second.answer, second.ttft_s, second.chunk_count) == ("It is 42.", None, 1)
        assert second.latency_s is not None


def test_concurrent_asks_share_one_adapter(server: ScriptedOpenAI) -> None:
    def echo(request: RecordedRequest) -> object:
        return content(f"answer to {request.last_message['content']}")

    server.on(lambda request: True, echo)  # type: ignore[arg-type]
    bot = adapter(server)
    with ThreadPoolExecutor(8) as pool:
        payloads = list(pool.map(lambda i: bot.ask(f"TC_{i}", f"q{i}"), range(16)))
    assert [p.answer for p in payloads] == [f"answer to q{i}" for i in range(16)]
    bot.close()


def test_the_settings_build_the_openai_adapter_under_the_byte_cap(tmp_path: Path) -> None:
    built = build_adapter(
        Settings(
            home=tmp_path,
            chatbot_kind="openai_chat",
            chatbot_url="http://127.0.0.1:9/v1",
            chatbot_model="m",
            chatbot_api_key=KEY,  # type: ignore[arg-type]
            chatbot_headers={"X-Team": "eval"},  # type: ignore[dict-item]
            chatbot_body={"temperature": 0},
            chatbot_retries=0,
        )
    )
    assert isinstance(built, RedactingAdapter) and isinstance(built.inner, AnswerCapped)
    inner = built.inner.adapter
    assert isinstance(inner, OpenAIChatAdapter)
    assert inner.request_body("q")["temperature"] == 0
    refused = inner.ask("TC_1", "q")  # nothing listens on port 9
    assert refused.status == "error" and refused.errors[0].startswith("chat request failed")
    assert KEY not in repr(Settings(home=tmp_path, chatbot_api_key=KEY))  # type: ignore[arg-type]
