"""Defects of issue #16 in the report, JUnit, the gates and the viewer, one test each."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from eval_pipeline.core.aggregate import GatePolicy, judge_case
from eval_pipeline.core.models import (
    ChatPayload,
    Claim,
    ClaimContract,
    DimensionResult,
    Evidence,
    OracleResult,
    Reference,
    ReferenceValue,
    Verdict,
)
from eval_pipeline.core.report.claim_results import claim_results
from eval_pipeline.core.report.claim_text import format_value
from eval_pipeline.core.report.html import case_details, render_report
from eval_pipeline.core.report.junit import junit_xml
from eval_pipeline.core.report.viewer import build_app, report_url
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS
from eval_pipeline_tests.core.report.test_report import realistic_run
from eval_pipeline_tests.summaries import case_summary, run_summary

ANSWER = "Reach us at jane.doe@example.com. The completion rate is 93.4% this quarter."
POLICY = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS)


def one_case_details() -> dict[str, dict[str, Any]]:
    rate = ANSWER.index("93.4%")
    reference = Reference(kpi="completion_rate", params={"quarter": 3})
    verdict = Verdict(
        claim_id="C1",
        verdict="contradicted",
        reason="'93.4%' differs from completion_rate",
        evidence=[
            Evidence(
                source="completion_rate", kind="kpi", params={"quarter": 3}, value=91.80327868852459
            )
        ],
    )
    return {
        "chatbot_responses": {
            "TC_1": ChatPayload(case_id="TC_1", question="Rate?", answer=ANSWER).model_dump(
                mode="json"
            )
        },
        "extracted_claims": {
            "TC_1": ClaimContract(
                case_id="TC_1",
                claims=[
                    Claim(id="C1", text="93.4%", span=(rate, rate + 5), value=93.4, unit="percent")
                ],
            ).model_dump(mode="json")
        },
        "oracle_verdicts": {
            "TC_1": OracleResult(
                case_id="TC_1",
                verdicts=[verdict],
                references=[
                    ReferenceValue(
                        reference=reference, shape="scalar", value=91.80327868852459, unit="percent"
                    )
                ],
            ).model_dump(mode="json")
        },
    }


def test_pii_in_an_answer_is_masked_in_the_report_unless_configured_to_show() -> None:
    details = one_case_details()
    masked = case_details("TC_1", details)
    assert "jane.doe@example.com" not in json.dumps(masked)
    assert "j***@e***.com" in masked["answer"]
    shown = case_details("TC_1", details, show_pii=True)
    assert "jane.doe@example.com" in shown["answer"]


def test_a_claim_row_shows_its_sentence_and_the_expected_value_in_its_unit() -> None:
    (claim,) = case_details("TC_1", one_case_details())["claims"]
    assert claim["sentence"] == ["The completion rate is ", "93.4%", " this quarter."]
    assert claim["evidence"][0]["value"] == "91.8 %"
    assert format_value(0.934426, "fraction") == "93.4 %"
    assert format_value(93.44262295081967, None) == "93.44"


def test_the_trend_draws_the_current_run_once_and_says_when_there_is_no_history() -> None:
    summary, details = realistic_run(6)
    alone = render_report(summary, details, history=[])
    assert "No earlier runs" in alone
    earlier = summary.model_copy(update={"run_key": "earlier", "pass_rate": 0.5})
    with_one = render_report(summary, details, history=[earlier])
    trend = with_one[with_one.index('id="trend"') :]
    trend = trend[: trend.index("</figure>")]
    assert trend.count("<circle") == 4, "two runs × two series, the current run once"
    assert "1 earlier runs and this one" in trend


def test_junit_failures_name_the_contradicted_claim_expected_value_and_reference() -> None:
    details = one_case_details()
    claims = claim_results(details["extracted_claims"]["TC_1"], details["oracle_verdicts"]["TC_1"])
    case = case_summary(
        "TC_1",
        passed=False,
        overall=0.4,
        gate_failures=["oracle: 0 supported, 1 contradicted"],
        claims=claims,
    )
    xml = junit_xml(run_summary("r", [case]))
    failure = ET.fromstring(xml.split("\n", 1)[1]).find(".//failure")
    assert failure is not None
    message = failure.get("message", "")
    assert "C1 “93.4%” contradicted: expected 91.8 %" in message
    assert "kpi completion_rate(quarter=3)" in message


def dims(on_topic: float, oracle: DimensionResult) -> dict[str, DimensionResult]:
    return {
        "oracle": oracle,
        "on_topic": DimensionResult(
            name="on_topic", state="scored", score=on_topic, reason="cosine 0.31"
        ),
        "sql": DimensionResult(name="sql", state="scored", score=1.0),
        "safety": DimensionResult(name="safety", state="scored", score=1.0),
        "latency": DimensionResult(name="latency", state="scored", score=1.0),
        "bkg": DimensionResult(name="bkg", state="scored", score=1.0),
    }


NOTHING_CHECKED = DimensionResult(
    name="oracle",
    state="skipped",
    reason="the answer states no numeric claim",
    details={"has_tool_evidence": False},
)


def judged(on_topic: float, oracle: DimensionResult, policy: GatePolicy = POLICY) -> Any:
    return judge_case(
        "TC",
        dims(on_topic, oracle),
        has_expected_answer=False,
        has_reference=True,
        chatbot_errors=[],
        policy=policy,
    )


def test_an_answer_that_does_not_answer_the_question_fails_whatever_its_weights() -> None:
    off = judged(0.3, NOTHING_CHECKED)
    assert not off.passed and off.state == "scored"
    assert off.gate_failures[0].startswith("on_topic: does not answer the question")
    assert (off.overall or 0) >= POLICY.pass_threshold, "the weights alone would pass it"
    gate_off = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS, off_topic_gate=False)
    assert judged(0.3, NOTHING_CHECKED, gate_off).passed
    checked = DimensionResult(
        name="oracle", state="scored", score=1.0, details={"has_tool_evidence": True}
    )
    assert judged(0.3, checked).passed, "a checked claim means it answered"
    assert judged(0.8, NOTHING_CHECKED).passed, "on topic"


def write_run(reports: Path, run_key: str, created: str) -> None:
    folder = reports / run_key
    folder.mkdir(parents=True)
    (folder / "report.html").write_text(f"<html>report of {run_key}</html>")
    cases = [case_summary(f"TC_{i}", passed=i > 0) for i in range(4)]
    summary = run_summary(run_key, cases, created_at=created, pass_rate=0.75)
    (folder / "summary.json").write_text(summary.model_dump_json())


def test_the_viewer_lists_runs_newest_first_and_serves_only_their_reports(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    write_run(reports, "2026-01-01-a", "2026-01-01T02:00:00+00:00")
    write_run(reports, "2026-02-01-b", "2026-02-01T02:00:00+00:00")
    (tmp_path / "secret.txt").write_text("not for the web")
    client = TestClient(build_app(reports))
    index = client.get("/")
    assert index.status_code == 200
    assert re.findall(r'data-run="([^"]+)"', index.text) == ["2026-02-01-b", "2026-01-01-a"]
    assert "75%" in index.text
    url = report_url("http://viewer", "2026-01-01-a", "TC_1")
    assert url == "http://viewer/runs/2026-01-01-a/report.html#case-TC_1"
    report = client.get("/runs/2026-01-01-a/report.html")
    assert report.status_code == 200 and "report of 2026-01-01-a" in report.text
    assert client.get("/runs/2026-01-01-a", follow_redirects=False).status_code in (302, 307)
    assert client.get("/runs/2026-01-01-a/summary.json").json()["cases_total"] == 4
    for bad in ("/runs/..%2F/secret.txt", "/runs/2026-01-01-a/../../secret.txt", "/runs/x/y"):
        assert client.get(bad).status_code == 404, bad


def test_the_cli_prints_the_summary_and_refresh_counts_as_text(tmp_path: Path, capsys: Any) -> None:
    from eval_pipeline.cli.main import _print_summary, main
    from eval_pipeline.core.aggregate import summarize_run

    errored = judge_case(
        "TC_2",
        dims(0.9, NOTHING_CHECKED),
        has_expected_answer=False,
        has_reference=True,
        chatbot_errors=["HTTP 502"],
        policy=POLICY,
    )
    passed = judge_case(
        "TC_1",
        dims(0.9, NOTHING_CHECKED),
        has_expected_answer=False,
        has_reference=True,
        chatbot_errors=[],
        policy=POLICY,
    )
    _print_summary(summarize_run("r", [passed, errored], report_path="/r/report.html"))
    url = f"sqlite:///{tmp_path / 'w.db'}"
    assert main(["warehouse", "generate", "--database-url", url]) == 0
    assert main(["warehouse", "refresh", "--database-url", url]) == 0
    out = capsys.readouterr().out
    assert "cases in error by cause: chatbot 1" in out
    assert re.search(r"refreshed .*: hse_audits \d+ rows changed", out)
    assert "{" not in out and "}" not in out
