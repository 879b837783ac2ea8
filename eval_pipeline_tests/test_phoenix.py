"""The demo's traces in a real Arize Phoenix: the test starts ``phoenix serve`` (from the
``.venv-phoenix`` that ``make setup-phoenix`` builds; ``EVAL_TEST_PHOENIX`` may name another
``phoenix`` executable) on SQLite in a temporary working folder, on free loopback ports, evaluates
the demo (its 30 cases, through the demo chatbot with its faults) with the export pointed at it,
and reads every case's trace, its spans and its scores back through Phoenix's REST API.

Needs Phoenix: skipped without it on a laptop, a failure in CI (``make test`` installs it).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.summary import RunSummary
from eval_pipeline.core.tracing.spans import case_trace_ids
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.conftest import require_service
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.otlp_receiver import down_url
from eval_pipeline_tests.seeded_demo import evaluate_seeded_demo

pytestmark = [pytest.mark.slow, pytest.mark.phoenix]

PHOENIX = Path(os.environ.get("EVAL_TEST_PHOENIX", PROJECT_ROOT / ".venv-phoenix/bin/phoenix"))
PROJECT = "eval-demo-traces"
GOLDEN = PROJECT_ROOT / "data" / "demo" / "golden_dataset.json"
STARTUP_S = 300.0  # Phoenix starts in about 10 s of CPU: 20 s to 85 s here as the load varied
SOURCES = ("kpi", "decision", "core_node", "sql")  # what a golden reference computes
STEPS = {"chatbot call", "claim extraction", "verification", "scoring", "outcome"}


def free_port() -> int:
    return int(down_url().rsplit(":", 1)[1])


def canonical(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Phoenix server of its own, its base URL; stopped (and its folder removed) after."""
    if not PHOENIX.is_file():
        require_service("Arize Phoenix", f"{PHOENIX} not found; run `make setup-phoenix`")
    work = tmp_path_factory.mktemp("phoenix")
    port = free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = (work / "phoenix.log").open("w")
    process = subprocess.Popen(
        [str(PHOENIX), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail(f"Phoenix did not start: {(work / 'phoenix.log').read_text()}")
                time.sleep(0.25)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def phoenix_spans(url: str, project: str, expected: int, timeout_s: float = 60.0) -> list[dict]:
    """Every span Phoenix holds for ``project``, once it has ``expected`` (it ingests
    asynchronously), page by page."""
    deadline = time.monotonic() + timeout_s
    while True:
        spans: list[dict] = []
        cursor = None
        while True:
            query = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
            path = f"/v1/projects/{project}/spans?{urllib.parse.urlencode(query)}"
            try:
                page = get(url + path)
            except urllib.error.HTTPError as exc:
                if exc.code != 404:  # the project appears with its first span
                    raise
                page = {"data": [], "next_cursor": None}
            spans += page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                break
        if len(spans) >= expected or time.monotonic() > deadline:
            return spans
        time.sleep(0.5)


@pytest.fixture(scope="module")
def demo_run(
    phoenix: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[RunSummary, list[dict]]:
    """The demo evaluated with the export pointed at Phoenix: the summary and Phoenix's spans."""
    tmp = tmp_path_factory.mktemp("demo")
    with eval_instance() as instance:
        summary, _ = evaluate_seeded_demo(
            tmp,
            "demo-traces",
            instance,
            ttft_s=0.01,
            otel_endpoint=phoenix,
            otel_service_name=PROJECT,
        )
    exported = summary.trace_export
    return summary, phoenix_spans(phoenix, PROJECT, exported.spans)


def test_phoenix_holds_every_case_of_the_demo_run_with_its_spans_and_scores(
    demo_run: tuple[RunSummary, list[dict]],
) -> None:
    summary, spans = demo_run
    exported = summary.trace_export
    assert exported.failed == 0 and exported.exported == exported.spans == len(spans)
    by_trace: dict[str, list[dict]] = {}
    for span in spans:
        by_trace.setdefault(span["context"]["trace_id"], []).append(span)
    golden = {c["id"]: c for c in json.loads(GOLDEN.read_text())}
    assert len(summary.cases) == len(golden) == 30
    assert len(by_trace) == len(golden), "one trace per case"
    for case in summary.cases:
        trace_id, root_id = case_trace_ids(PROJECT, "demo-traces", case.case_id)
        got = by_trace[f"{trace_id:032x}"]
        (root,) = [s for s in got if s["parent_id"] is None]
        assert root["name"] == f"case {case.case_id}"
        assert root["context"]["span_id"] == f"{root_id:016x}"
        assert root["span_kind"] == "CHAIN" and root["attributes"]["session.id"] == "demo-traces"
        named = {s["name"]: s for s in got}
        assert set(named) >= STEPS, sorted(named)
        ids = {s["context"]["span_id"] for s in got}
        assert all(s["parent_id"] in ids for s in got if s is not root), "one tree"
        chatbot = named["chatbot call"]
        assert chatbot["span_kind"] == "AGENT"
        assert chatbot["attributes"]["input.value"] == root["attributes"]["input.value"]
        answered = chatbot["attributes"]["eval.chatbot.status"] == "ok"
        assert answered == (chatbot["status_code"] != "ERROR")
        assert not answered or chatbot["attributes"]["eval.chatbot.ttft_s"] > 0
        references = [s for s in got if s["name"] == "reference"]
        expected = golden[case.case_id].get("reference", []) if answered else []
        assert len(references) == len(expected), case.case_id
        computed = []
        for reference in references:
            assert reference["span_kind"] == "TOOL"
            assert reference["parent_id"] == named["verification"]["context"]["span_id"]
            values = reference["attributes"]
            assert "output.value" in values, values
            params = json.loads(values["eval.reference.params"])
            computed.append((values["eval.reference.target"], canonical(params)))
        assert sorted(computed) == sorted(
            (next(str(r[k]) for k in SOURCES if r.get(k)), canonical(r.get("params", {})))
            for r in expected
        ), case.case_id
        scoring = named["scoring"]["attributes"]
        assert named["scoring"]["span_kind"] == "EVALUATOR"
        for dim, result in case.dimensions.items():
            assert scoring[f"eval.{dim}.state"] == result.state, (case.case_id, dim)
            if result.score is not None:
                assert scoring[f"eval.{dim}.score"] == pytest.approx(result.score)
        outcome = named["outcome"]["attributes"]
        assert outcome["eval.passed"] == case.passed
        if case.overall is not None:
            assert outcome["eval.overall"] == pytest.approx(case.overall)
        verdicts = named["verification"]["attributes"]
        for label, count in case.verdict_counts.items():
            assert verdicts[f"eval.verdicts.{label}"] == count, (case.case_id, label)


def test_phoenix_groups_the_run_as_a_session(phoenix: str, demo_run: tuple) -> None:
    summary, _ = demo_run
    query = urllib.parse.urlencode({"session_identifier": "demo-traces", "limit": 100})
    traces = get(f"{phoenix}/v1/projects/{PROJECT}/traces?{query}")["data"]
    assert len(traces) == len(summary.cases)
