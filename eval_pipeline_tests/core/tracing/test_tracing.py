"""The tracing interface and its OpenTelemetry exporter, against a real loopback OTLP/HTTP
receiver (``otlp_receiver``): ids, parents, attributes, redaction, and what an endpoint that is
down, slow or refusing costs (a bounded flush) and shows (counted failures with a reason)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from eval_pipeline.core.models import ChatPayload, GoldenCase
from eval_pipeline.core.tracing import attributes, spans
from eval_pipeline.core.tracing.config import TraceSettings, parse_headers, traces_url
from eval_pipeline.core.tracing.export_process import ExportProcess
from eval_pipeline.core.tracing.otel import ExportPipeline
from eval_pipeline.core.tracing.recorder import Exporter, RecordingTracer
from eval_pipeline.core.tracing.spans import NO_SPAN, NO_TRACE, CaseTrace, case_trace_ids
from eval_pipeline_tests.otlp_receiver import OTLPReceiver, down_url

SECRET = "c2VjcmV0LXB1YmxpYzpzZWNyZXQta2V5"  # what an Authorization header would carry


TracerFor = Callable[..., RecordingTracer]


@pytest.fixture(params=["in this process", "in the export process"])
def tracer_for(request: pytest.FixtureRequest) -> Iterator[TracerFor]:
    """Tracers sending from this process and from the export process: every test holds for
    both."""
    made: list[RecordingTracer] = []

    def build(url: str, **settings: object) -> RecordingTracer:
        values: dict[str, object] = {
            "endpoint": url,
            "headers": f"Authorization=Basic%20{SECRET},x-team=evals",
            "flush_timeout_s": 2.0,
            **settings,
        }
        traces = TraceSettings.model_validate(values)
        exporter: Exporter = (
            ExportProcess(traces)
            if request.param == "in the export process"
            else ExportPipeline(traces)
        )
        made.append(RecordingTracer(traces, exporter))
        return made[-1]

    yield build
    for tracer in made:
        tracer.close()


def one_case(tracer: RecordingTracer, run_key: str = "run-1", case_id: str = "TC_1") -> None:
    """A step span with a nested call, a finished span, and the case's root, as a run makes."""
    trace = CaseTrace(tracer, run_key, case_id)
    with trace.span("claim extraction", "CHAIN", {"input.value": "Revenue was $5."}) as step:
        with spans.span("judge contract", "LLM", lambda: {"llm.model_name": "m"}) as call:
            call.set({"llm.token_count.prompt": 12, "leak": f"header was Basic {SECRET}"})
        step.set(lambda: {"eval.claims.count": 1, "skipped": None})
    trace.record("chatbot call", "AGENT", {"output.value": "a"}, start_s=100.0, end_s=101.5)
    tracer.case_root(run_key, case_id, {"input.value": "q"}, start_s=99.0, end_s=200.0)


@pytest.fixture
def receiver() -> Iterator[OTLPReceiver]:
    with OTLPReceiver() as rx:
        yield rx


def test_without_a_current_span_nothing_is_built_or_recorded() -> None:
    def boom() -> dict[str, object]:
        raise AssertionError("attributes built with tracing off")

    with spans.span("judge", "LLM", boom) as current:
        assert current is NO_SPAN
        current.set(boom)
    with NO_TRACE.span("scoring", "EVALUATOR", boom) as step:
        assert step is NO_SPAN
    NO_TRACE.record("chatbot call", "AGENT", boom, start_s=0, end_s=1)
    assert NO_TRACE.tracer.flush() == {} and NO_TRACE.tracer.close() == {}


def test_case_trace_ids_are_the_same_everywhere_and_differ_per_case_run_and_service() -> None:
    first = case_trace_ids("eval_pipeline", "run-1", "TC_1")
    assert first == case_trace_ids("eval_pipeline", "run-1", "TC_1")
    others = {
        case_trace_ids("eval_pipeline", "run-1", "TC_2"),
        case_trace_ids("eval_pipeline", "run-2", "TC_1"),
        case_trace_ids("other", "run-1", "TC_1"),
    }
    assert first not in others and len(others) == 3
    trace_id, root_id = first
    assert 0 < trace_id < 2**128 and 0 < root_id < 2**64


def test_headers_and_endpoints_as_users_write_them() -> None:
    assert parse_headers("Authorization=Basic%20abc%3D%3D, x-a = b") == {
        "Authorization": "Basic abc==",
        "x-a": "b",
    }
    with pytest.raises(ValueError) as problem:
        parse_headers("Authorization Basic sk-secret-value")
    assert "sk-secret-value" not in str(problem.value)
    assert traces_url("http://h:4318") == "http://h:4318/v1/traces"
    assert traces_url("https://cloud.langfuse.com/api/public/otel/") == (
        "https://cloud.langfuse.com/api/public/otel/v1/traces"
    )
    assert traces_url("http://h:6006/v1/traces") == "http://h:6006/v1/traces"


def test_a_case_is_one_trace_whose_spans_hang_from_the_root(
    receiver: OTLPReceiver, tracer_for: TracerFor
) -> None:
    tracer = tracer_for(receiver.url)
    one_case(tracer)
    counts = tracer.close()
    got = {s["name"]: s for s in receiver.wait_for(4)}
    assert set(got) == {"claim extraction", "judge contract", "chatbot call", "case TC_1"}
    trace_id, root_id = case_trace_ids("eval_pipeline", "run-1", "TC_1")
    assert {s["trace_id"] for s in got.values()} == {f"{trace_id:032x}"}
    root = got["case TC_1"]
    assert root["span_id"] == f"{root_id:016x}" and root["parent_id"] == ""
    assert got["claim extraction"]["parent_id"] == root["span_id"]
    assert got["chatbot call"]["parent_id"] == root["span_id"]
    assert got["judge contract"]["parent_id"] == got["claim extraction"]["span_id"]
    # finished spans keep the times they were given
    assert got["chatbot call"]["start_ns"] == 100 * 10**9
    assert got["chatbot call"]["end_ns"] == int(101.5 * 10**9)
    step = got["claim extraction"]["attributes"]
    assert step["openinference.span.kind"] == "CHAIN" and step["eval.claims.count"] == 1
    assert step["session.id"] == "run-1" and step["eval.case_id"] == "TC_1"
    assert "skipped" not in step
    assert got["judge contract"]["attributes"]["llm.token_count.prompt"] == 12
    assert root["resource"]["service.name"] == "eval_pipeline"
    assert root["resource"]["openinference.project.name"] == "eval_pipeline"
    # the headers go to the endpoint, and nowhere into what it stores
    assert receiver.headers[0]["authorization"] == f"Basic {SECRET}"
    assert receiver.headers[0]["x-team"] == "evals"
    assert not any(SECRET.encode() in body for body in receiver.bodies)
    assert "[redacted:otel_headers]" in got["judge contract"]["attributes"]["leak"]
    assert counts["run-1"].spans == 4 and counts["run-1"].failed == 0
    assert counts["run-1"].failed_cases == frozenset() and counts["run-1"].reason == ""


def test_a_failing_attribute_builder_loses_its_attributes_never_the_call(
    receiver: OTLPReceiver, tracer_for: TracerFor
) -> None:
    tracer = tracer_for(receiver.url)
    trace = CaseTrace(tracer, "run-1", "TC_1")

    def broken() -> dict[str, object]:
        raise KeyError("no such field")

    with trace.span("scoring", "EVALUATOR", broken) as step:
        step.set(broken)
        step.set({"eval.oracle.score": 1.0})
        result = 42
    assert result == 42
    tracer.close()
    (span,) = receiver.wait_for(1)
    assert span["attributes"]["eval.oracle.score"] == 1.0


def test_an_exception_in_a_span_marks_it_failed_and_still_escapes(
    receiver: OTLPReceiver, tracer_for: TracerFor
) -> None:
    tracer = tracer_for(receiver.url)
    with pytest.raises(RuntimeError), CaseTrace(tracer, "r", "c").span("verification", "CHAIN"):
        raise RuntimeError("verifier exploded")
    tracer.close()
    (span,) = receiver.wait_for(1)
    assert span["status"] == 2 and "verifier exploded" in span["status_message"]


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("down", "Connection refused"),
        ("status", "HTTP 401 Unauthorized: invalid credentials"),
        ("slow", "not sent within the 2 s flush timeout"),
    ],
)
def test_export_failures_are_counted_with_a_reason_and_the_flush_is_bounded(
    mode: str, reason: str, tracer_for: TracerFor
) -> None:
    with OTLPReceiver("ok" if mode == "down" else mode, delay_s=60, status=401) as receiver:
        url = down_url() if mode == "down" else receiver.url
        tracer = tracer_for(url, export_timeout_s=60.0)
        for case_id in ("TC_1", "TC_2"):
            one_case(tracer, case_id=case_id)
        started = time.monotonic()
        counts = tracer.close()
        took = time.monotonic() - started
    assert took < 2.0 + 3.0, f"close waited {took:.1f} s with a 2 s flush timeout"
    run = counts["run-1"]
    assert (run.spans, run.exported) == (8, 0)
    assert run.failed_cases == {"TC_1", "TC_2"}
    assert reason in run.reason, run.reason
    assert SECRET not in run.reason
    assert receiver.spans == []


def test_after_a_flush_timeout_nothing_more_is_sent_and_it_is_counted(
    tracer_for: TracerFor,
) -> None:
    with OTLPReceiver("slow", delay_s=60) as receiver:
        tracer = tracer_for(receiver.url, flush_timeout_s=0.5)
        one_case(tracer)
        assert tracer.flush()["run-1"].exported == 0
        one_case(tracer, run_key="run-2")
        counts = tracer.close()
    assert counts["run-2"].spans == 4 and counts["run-2"].exported == 0
    assert "flush timeout" in counts["run-2"].reason


def test_the_chatbot_span_carries_the_question_answer_timings_and_routed_intent() -> None:
    case = GoldenCase(id="TC_1", question="How many sites?", context="Earlier: the West.")
    payload = ChatPayload(
        case_id="TC_1",
        question=case.question,
        answer="512 sites.",
        latency_s=1.5,
        ttft_s=0.25,
        transport="openai_chat",
        intent="site_summary",
    )
    got = attributes.chatbot_call(case, payload)
    assert got["input.value"] == "How many sites?" and got["output.value"] == "512 sites."
    assert (got["eval.chatbot.latency_s"], got["eval.chatbot.ttft_s"]) == (1.5, 0.25)
    assert got["eval.chatbot.intent"] == "site_summary"
    assert got["eval.chatbot.transport"] == "openai_chat"
    assert got["eval.chatbot.context"] == "Earlier: the West."


def test_an_export_process_that_dies_loses_its_spans_never_the_evaluation(
    receiver: OTLPReceiver,
) -> None:
    traces = TraceSettings(endpoint=receiver.url, headers=f"Authorization=Basic%20{SECRET}")
    exporter = ExportProcess(traces)
    tracer = RecordingTracer(traces, exporter)
    # the header values reach the child through its stdin, not its command line
    assert SECRET not in Path(f"/proc/{exporter.pid}/cmdline").read_text()
    one_case(tracer, case_id="TC_1")
    assert tracer.flush()["run-1"].exported == 4
    os.kill(exporter.pid, signal.SIGKILL)
    one_case(tracer, case_id="TC_2")
    started = time.monotonic()
    counts = tracer.close()
    assert time.monotonic() - started < traces.flush_timeout_s + 3.0
    run = counts["run-1"]
    assert (run.spans, run.exported, run.failed_cases) == (4, 0, {"TC_2"})
    assert "the trace export process ended (exit code -9)" in run.reason
    with pytest.raises(ProcessLookupError):  # reaped, not left behind
        os.kill(exporter.pid, 0)
