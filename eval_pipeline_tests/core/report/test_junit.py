from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from pathlib import Path

from eval_pipeline.cli.compare import add_subcommands
from eval_pipeline.core.aggregate import GatePolicy, judge_case, summarize_run
from eval_pipeline.core.models import CaseOutcome, DimensionResult
from eval_pipeline.core.report.junit import junit_xml
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS

POLICY = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS)
NASTY = "a < b & \"c\" > 'd' \x07bell"


def outcome(case_id: str, *, safety: float = 1.0, error: bool = False) -> CaseOutcome:
    dims = {
        "safety": DimensionResult(
            name="safety", state="scored", score=safety, reason=f"PII leak: {NASTY}"
        ),
        "content_quality": DimensionResult(
            name="content_quality", state="scored", score=0.9, reason="good"
        ),
        "on_topic": DimensionResult(name="on_topic", state="scored", score=0.4, reason="drifts"),
        "sql": DimensionResult(name="sql", state="skipped", reason="no SQL"),
    }
    return judge_case(
        case_id,
        dims,
        has_expected_answer=True,
        has_reference=False,
        chatbot_errors=[f"stream ended: {NASTY}"] if error else [],
        policy=POLICY,
    )


def run_summary() -> RunSummary:
    return summarize_run(
        "nightly<&>",
        [
            outcome("TC_ok"),
            outcome("TC_leak", safety=0.0),
            outcome("TC_down", error=True),
            outcome("TC_ok2"),
        ],
        report_path="/r/report.html",
    )


def test_counts_agree_with_the_summary() -> None:
    summary = run_summary()
    root = ET.fromstring(junit_xml(summary))
    suite = root.find("testsuite")
    assert suite is not None
    for element in (root, suite):
        assert element.get("tests") == str(summary.cases_total) == "4"
        assert element.get("failures") == str(summary.cases_failed) == "1"
        assert element.get("errors") == str(summary.cases_error) == "1"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["TC_ok", "TC_leak", "TC_down", "TC_ok2"]
    assert {c.get("classname") for c in cases} == {"eval_pipeline.nightly<&>"}
    assert len(suite.findall("testcase/failure")) == 1
    assert len(suite.findall("testcase/error")) == 1


def test_failures_carry_gate_reasons_and_errors_the_chatbot_failure() -> None:
    suite = ET.fromstring(junit_xml(run_summary())).find("testsuite")
    assert suite is not None
    by_name = {c.get("name"): c for c in suite.findall("testcase")}
    failure = by_name["TC_leak"].find("failure")
    assert failure is not None
    assert failure.get("message") == "safety: PII leak: a < b & \"c\" > 'd' bell"
    assert "on_topic: 0.40 below 0.50: drifts" in (failure.text or "")
    error = by_name["TC_down"].find("error")
    assert error is not None
    assert error.get("message") == "chatbot: stream ended: a < b & \"c\" > 'd' bell"
    assert by_name["TC_ok"].find("failure") is None and by_name["TC_ok"].find("error") is None


def test_properties_hold_overall_and_dimension_scores() -> None:
    summary = run_summary()
    suite = ET.fromstring(junit_xml(summary)).find("testsuite")
    assert suite is not None
    ok = next(c for c in suite.findall("testcase") if c.get("name") == "TC_ok")
    props = {p.get("name"): p.get("value") for p in ok.iter("property")}
    expected_overall = summary.cases[0].overall
    assert props["overall"] == f"{expected_overall:.4f}"
    assert props["dimension.safety"] == "1.0000"
    assert props["dimension.on_topic"] == "0.4000"
    assert props["dimension.sql"] == "skipped"
    suite_props = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert suite_props["pass_rate"] == f"{summary.pass_rate:.4f}"


def test_junit_cli_writes_a_summary_file_to_xml(tmp_path: Path) -> None:
    summary_path = tmp_path / "summary.json"
    summary_path.write_text(run_summary().model_dump_json())
    out = tmp_path / "junit.xml"
    parser = argparse.ArgumentParser()
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["junit", str(summary_path), "-o", str(out)])
    assert args.func(args) == 0
    assert ET.parse(out).getroot().get("tests") == "4"
