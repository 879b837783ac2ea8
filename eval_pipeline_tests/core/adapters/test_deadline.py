"""Every byte a chatbot call reads is under its total timeout, and no more than the byte cap is
read: against a loopback server that drips, never ends or sends too much (``misbehaving_server``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests

from eval_pipeline.core.adapters.base import AnswerCapped
from eval_pipeline.core.adapters.deadline import (
    Deadline,
    DeadlineExceeded,
    call_deadline,
    deadline_session,
    read_body,
)
from eval_pipeline.core.adapters.http_json import HTTPJSONAdapter
from eval_pipeline.core.adapters.python_callable import CallableAdapter
from eval_pipeline.core.adapters.sse import SSEAdapter, request_failure
from eval_pipeline.core.models import ChatPayload
from eval_pipeline_tests.misbehaving_server import MisbehavingServer

TOTAL_S = 1.0
READ_S = 1.0  # longer than the drip interval: only the total timeout can end a drip
CAP = 256 * 1024
MARGIN_S = 10.0  # the bound: the configured limit plus 10 s
PATIENT_S = 30.0  # a total timeout so long that an answer within it was not cut by it


@pytest.fixture(scope="module")
def server() -> Iterator[MisbehavingServer]:
    with MisbehavingServer(drip_s=0.3, huge_bytes=2 * CAP) as running:
        yield running


def sse(server: MisbehavingServer, behaviour: str, total_timeout_s: float = TOTAL_S) -> SSEAdapter:
    return SSEAdapter(
        f"{server.url}/{behaviour}",
        username="u",
        password="secret-password",
        read_timeout_s=READ_S,
        total_timeout_s=total_timeout_s,
        retries=1,
        backoff_s=0.05,
        max_answer_bytes=CAP,
    )


def asked(adapter: SSEAdapter | HTTPJSONAdapter) -> tuple[ChatPayload, float]:
    started = time.monotonic()
    payload = adapter.ask("TC_1", "How many?")
    adapter.close()
    return payload, time.monotonic() - started


def failed_in_time(
    adapter: SSEAdapter | HTTPJSONAdapter, message: str
) -> tuple[ChatPayload, float]:
    """The call's error payload, starting with ``message``, within the deadline's margin."""
    payload, took = asked(adapter)
    assert payload.status == "error"
    assert payload.errors[0].startswith(message), payload.errors
    assert took < TOTAL_S + MARGIN_S
    return payload, took


@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        ("drip_stream", "stream exceeded the total timeout of 1 s"),
        ("endless_stream", "stream exceeded the total timeout of 1 s"),
        ("drip_login", "no complete answer within the total timeout of 1 s"),
        ("drip_headers", "no complete answer within the total timeout of 1 s"),
        ("drip_closing", "stream exceeded the total timeout of 1 s"),
    ],
)
def test_an_sse_call_never_outlives_its_total_timeout(
    server: MisbehavingServer, behaviour: str, message: str
) -> None:
    payload, took = failed_in_time(sse(server, behaviour), message)
    assert took >= TOTAL_S - 0.1, "the server was waited for until the deadline"
    assert "secret-password" not in payload.model_dump_json()


@pytest.mark.parametrize(
    ("behaviour", "excerpt"), [("endless_400", "bad request bad request"), ("drip_400", "x")]
)
def test_an_endless_error_body_is_excerpted_without_waiting_for_its_end(
    server: MisbehavingServer, behaviour: str, excerpt: str
) -> None:
    payload, took = asked(sse(server, behaviour, total_timeout_s=PATIENT_S))
    assert payload.errors[0].startswith(f"chat request rejected: HTTP 400: {excerpt}")
    assert len(payload.errors[0]) < 300
    assert took < PATIENT_S, "the start of the body is read, not the endless rest"


def test_an_sse_answer_over_the_cap_is_an_error_without_its_text(
    server: MisbehavingServer,
) -> None:
    payload, took = asked(sse(server, "huge_answer", total_timeout_s=PATIENT_S))
    assert payload.status == "error"
    assert payload.errors == [
        "answer too large: more than 262,144 bytes (EVAL_CHATBOT_MAX_ANSWER_BYTES)"
    ]
    assert payload.answer == ""
    assert took < PATIENT_S, "reading stopped at the cap"


def json_bot(server: MisbehavingServer, behaviour: str) -> HTTPJSONAdapter:
    return HTTPJSONAdapter(
        f"{server.url}/{behaviour}/json", timeout_s=TOTAL_S, retries=1, max_answer_bytes=CAP
    )


@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        ("drip_json", "no complete answer within the total timeout of 1 s"),
        ("endless_json", "no complete answer within the total timeout of 1 s"),
        ("drip_headers", "no complete answer within the total timeout of 1 s"),
        ("drip_closing", "no complete answer within the total timeout of 1 s"),
        ("drip_400", "request rejected: HTTP 400: x"),
        ("endless_400", "request rejected: HTTP 400: bad request"),
        ("huge_answer", "answer too large: more than 262,144 bytes"),
    ],
)
def test_an_http_json_call_is_held_to_the_deadline_and_the_cap(
    server: MisbehavingServer, behaviour: str, message: str
) -> None:
    failed_in_time(json_bot(server, behaviour), message)


@pytest.mark.timeout(60)  # before the fix this read dripped for ever
def test_a_connection_opened_after_its_deadline_passed_is_cut_at_once(
    server: MisbehavingServer,
) -> None:
    """A call that waited out its deadline (for the login lock, say) and only then connects: the
    reaper found no socket to cut when the deadline passed, so the new one is cut on connect."""
    session = deadline_session(1)
    with call_deadline(0.1) as deadline:
        time.sleep(0.5)  # the reaper has expired the deadline, with no connection to cut
        with pytest.raises((DeadlineExceeded, requests.RequestException)):
            response = session.post(
                f"{server.url}/drip_login/auth/login", stream=True, timeout=(READ_S, READ_S)
            )
            read_body(response, deadline, CAP)
    session.close()


def test_well_behaved_servers_still_answer_through_the_same_sessions(
    server: MisbehavingServer,
) -> None:
    adapter = sse(server, "ok")
    for _ in range(3):  # pooled connections come back from each call's deadline unharmed
        payload = adapter.ask("TC_1", "How many?")
        assert (payload.status, payload.answer) == ("ok", "All good.")
    time.sleep(TOTAL_S + 0.3)  # the first calls' deadlines pass while their connection idles
    assert adapter.ask("TC_1", "again").status == "ok"
    adapter.close()
    payload, _ = asked(json_bot(server, "ok"))
    assert (payload.status, payload.answer) == ("ok", "All good.")


def test_a_callable_that_never_returns_is_an_error_after_the_total_timeout() -> None:
    def stuck(question: str, context: str) -> str:
        time.sleep(30)
        return "too late"

    started = time.monotonic()
    payload = CallableAdapter(stuck, total_timeout_s=0.5).ask("TC_1", "q")
    assert time.monotonic() - started < 2
    assert payload.errors == ["no complete answer within the total timeout of 0.5 s"]


def test_a_callable_raising_base_exceptions_is_contained() -> None:
    def exits(question: str, context: str) -> str:
        raise SystemExit(3)

    payload = CallableAdapter(exits).ask("TC_1", "q")
    assert payload.status == "error" and payload.errors == ["chatbot raised SystemExit: 3"]


def test_any_adapter_is_held_to_the_cap_in_one_place() -> None:
    """The cap is the wrapper's, so a transport that reads no bytes itself is capped too."""
    huge = CallableAdapter(lambda q, c: {"answer": "é" * 600_000, "sql": "SELECT 1"})
    payload = AnswerCapped(huge, 1_000_000).ask("TC_1", "q")
    assert payload.status == "error" and payload.answer == ""
    assert payload.errors == [
        "answer too large: more than 1,000,000 bytes (EVAL_CHATBOT_MAX_ANSWER_BYTES)"
    ]
    fits = AnswerCapped(CallableAdapter(lambda q, c: "é" * 400_000), 1_000_000).ask("TC_1", "q")
    assert fits.status == "ok" and len(fits.answer) == 400_000


def test_a_retry_the_deadline_left_no_time_for_makes_the_failure_a_timeout() -> None:
    """A connection dropped with a retry left but no time for it: the call ran out of time,
    and says what the last attempt met; with the retries spent, it failed to connect."""
    dropped = requests.ConnectionError("Remote end closed connection without response")
    cut = request_failure(dropped, 1, Deadline(2.0), retries=1)
    assert str(cut).startswith("no complete answer within the total timeout of 2 s: ")
    assert "ConnectionError" in str(cut) and cut.attempts == 1
    spent = request_failure(dropped, 2, Deadline(2.0), retries=1)
    assert str(spent).startswith("chat request failed after 2 attempt(s): ConnectionError")
