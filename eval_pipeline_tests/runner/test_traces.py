"""Whole evaluations through Dagster exporting their traces to a real loopback OTLP/HTTP receiver:
one trace per case with the steps' spans and scores, the judge's and the verifier's calls, and an
endpoint that is down, slow or refusing changing no result, costing a bounded flush, counted in
the summary. (The end-to-end test against Arize Phoenix is ``test_phoenix``.)"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.summary import RunSummary
from eval_pipeline.core.tracing.spans import case_trace_ids
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS
from eval_pipeline.pipeline.partitions import case_range_tags, range_tags
from eval_pipeline.runner.evaluate import RUN_ASSETS, evaluate, register_partitions, run_assets
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.otlp_receiver import OTLPReceiver, down_url
from eval_pipeline_tests.pipeline.test_graph import judge_reply, tiny_overrides

SECRET = "c2VjcmV0LXB1YmxpYzpzZWNyZXQta2V5"
STEPS = {"chatbot call", "claim extraction", "verification", "reference", "scoring", "outcome"}


def traced(overrides: dict[str, str], url: str, **extra: str) -> dict[str, str]:
    return {
        **overrides,
        "otel_endpoint": url,
        "otel_headers": f"Authorization=Basic%20{SECRET}",
        "otel_flush_timeout_s": "2",
        **extra,
    }


def by_case(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for span in spans:
        out[span["attributes"]["eval.case_id"]].append(span)
    return out


def outcomes(summary: RunSummary) -> dict[str, Any]:
    """What a case's result is, without timings: these must not depend on tracing."""
    return {
        c.case_id: (
            c.passed,
            c.state,
            c.overall,
            c.verdict_counts,
            c.gate_failures,
            {n: (d.state, d.score) for n, d in c.dimensions.items() if n != "latency"},
        )
        for c in summary.cases
    }


@pytest.fixture(scope="module")
def untraced(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunSummary, float]:
    """The tiny domain evaluated without tracing, and how long it took."""
    tmp = tmp_path_factory.mktemp("untraced")
    started = time.monotonic()
    with eval_instance() as instance:
        summary = evaluate("r1", overrides=tiny_overrides(tmp, "inflated_units"), instance=instance)
    return summary, time.monotonic() - started


@pytest.fixture
def receiver() -> Iterator[OTLPReceiver]:
    with OTLPReceiver() as rx:
        yield rx


def test_every_case_is_one_trace_with_its_steps_calls_and_scores(
    tmp_path: Path, receiver: OTLPReceiver
) -> None:
    from eval_pipeline_tests.scripted_openai import ScriptedOpenAI

    with ScriptedOpenAI(api_key="sk-test", default=judge_reply) as server:
        overrides = traced(
            tiny_overrides(tmp_path, "honest"),
            receiver.url,
            llm_base_url=server.base_url,
            llm_api_key="sk-test",
            llm_model="scripted-judge",
            llm_price_input_per_1k="0.01",
        )
        with eval_instance() as instance:
            summary = evaluate("r1", overrides=overrides, instance=instance)
            first = len(receiver.spans)
            evaluate("r2", overrides=overrides, instance=instance)  # same prompts: cached
    exported = summary.trace_export
    assert exported.spans == first and exported.exported == first
    assert exported.failed == exported.traces_failed == 0 and exported.reason == ""
    assert exported.endpoint == f"{receiver.url}/v1/traces"
    cases = by_case([s for s in receiver.spans if s["attributes"]["session.id"] == "r1"])
    assert set(cases) == {c.case_id for c in summary.cases}
    for case in summary.cases:
        got = cases[case.case_id]
        names = {s["name"] for s in got}
        assert STEPS | {f"case {case.case_id}"} <= names, (case.case_id, names)
        trace_id, root_id = case_trace_ids("eval_pipeline", "r1", case.case_id)
        assert {s["trace_id"] for s in got} == {f"{trace_id:032x}"}
        ids = {s["span_id"] for s in got}
        for span in got:  # one tree: every parent is the root or a span of the same trace
            assert span["parent_id"] in ids | {""}, span["name"]
        (root,) = [s for s in got if s["parent_id"] == ""]
        assert root["span_id"] == f"{root_id:016x}"
        named = {s["name"]: s["attributes"] for s in got}
        scoring, outcome = named["scoring"], named["outcome"]
        for dim, result in case.dimensions.items():
            assert scoring[f"eval.{dim}.state"] == result.state
            if result.score is not None:
                assert scoring[f"eval.{dim}.score"] == pytest.approx(result.score)
        assert outcome["eval.passed"] == case.passed
        assert outcome["openinference.span.kind"] == "EVALUATOR"
        assert named["chatbot call"]["input.value"] == root["attributes"]["input.value"]
        assert named["chatbot call"]["eval.chatbot.status"] == "ok"
        reference = named["reference"]
        assert reference["openinference.span.kind"] == "TOOL" and "output.value" in reference
        judges = [s["attributes"] for s in got if s["name"].startswith("judge ")]
        assert {j["eval.judge.dimension"] for j in judges} >= {"content_quality", "on_topic"}
        for judge in judges:
            assert judge["llm.model_name"] == "scripted-judge"
            assert judge["llm.prompt_template.version"]
            assert judge["llm.token_count.prompt"] > 0 and judge["llm.cost.total"] > 0
            assert judge["eval.judge.cached"] is False
        tools = [s["attributes"]["tool.name"] for s in got if s["name"].startswith("tool ")]
        assert "submit_verdict" in tools, tools
        assert any(s["name"] == "llm oracle" for s in got), "the verifier's turns"
    again = [s["attributes"] for s in receiver.spans if s["attributes"]["session.id"] == "r2"]
    cached = [a for a in again if a.get("eval.judge.cached")]
    assert cached and all(a["llm.token_count.prompt"] == 0 for a in cached)
    assert not any(SECRET.encode() in body or b"sk-test" in body for body in receiver.bodies)


@pytest.mark.parametrize("mode", ["down", "slow", "status"])
def test_a_failing_endpoint_changes_no_result_and_costs_a_bounded_flush(
    mode: str, tmp_path: Path, untraced: tuple[dict[str, Any], float]
) -> None:
    baseline, baseline_s = untraced
    with OTLPReceiver("ok" if mode == "down" else mode, delay_s=120, status=403) as receiver:
        url = down_url() if mode == "down" else receiver.url
        overrides = traced(
            tiny_overrides(tmp_path, "inflated_units"), url, otel_export_timeout_s="120"
        )
        started = time.monotonic()
        with eval_instance() as instance:
            summary = evaluate("r1", overrides=overrides, instance=instance)
        took = time.monotonic() - started
    assert outcomes(summary) == outcomes(baseline)
    # unbounded, the slow endpoint would hold the end of the run for its 120 s
    assert took < baseline_s + 30, f"{took:.1f} s against {baseline_s:.1f} s untraced"
    exported = summary.trace_export
    assert exported.spans > 0 and exported.exported == 0
    assert exported.failed == exported.spans
    assert exported.traces_failed == len(summary.cases)
    expected = {
        "down": "Connection refused",
        "slow": "flush timeout",
        "status": "HTTP 403 Forbidden",
    }[mode]
    assert expected in exported.reason, exported.reason
    assert SECRET not in summary.model_dump_json()


def test_runs_with_a_tracer_each_link_the_same_traces_and_add_up_their_counts(
    tmp_path: Path, receiver: OTLPReceiver
) -> None:
    """As the code location runs them (a sensor's case run, then the summary run, each maybe in
    its own processes): every Dagster run builds its own tracer from the settings, flushes it
    when it ends and stores its counts; the traces still join up by their derived ids."""
    overrides = traced(tiny_overrides(tmp_path, "honest"), receiver.url)
    with eval_instance() as instance:
        ids = ["TC_001", "TC_002", "TC_003", "TC_004", "TC_005"]  # the tiny golden set
        cases = register_partitions(instance, "r1", ids)
        run_assets(instance, ["golden_cases"], overrides, tags=range_tags(cases[0], cases[-1]))
        for first, last in ((cases[0], cases[1]), (cases[2], cases[-1])):
            run_assets(
                instance, PER_CASE_ASSETS, overrides, tags=case_range_tags("r1", first, last)
            )
        before_summary = len(receiver.wait_for(1))
        run_assets(instance, RUN_ASSETS, overrides, partition_key="r1")
    summary = evaluate_summary(tmp_path)
    assert before_summary > 0, "each case run flushed its own spans when it ended"
    exported = summary.trace_export
    assert exported.exported == exported.spans == len(receiver.spans)
    for case_id, got in by_case(receiver.spans).items():
        trace_id, _ = case_trace_ids("eval_pipeline", "r1", case_id)
        assert {s["trace_id"] for s in got} == {f"{trace_id:032x}"}
        assert {s["name"] for s in got} >= STEPS


def evaluate_summary(tmp_path: Path) -> RunSummary:
    from eval_pipeline.core.results_store import ResultsStore

    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    summary = store.run_summary("r1")
    assert summary is not None
    return summary
