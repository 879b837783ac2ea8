"""The HTML report: self-contained, escaped, and showing the evidence behind each verdict.

These tests read the rendered HTML and its embedded case data without a browser; the browser tests
(test_report_browser.py) check that the page's script pages, filters and drills down correctly.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from typing import Any

import pytest

from eval_pipeline.core.aggregate import GatePolicy, judge_case, summarize_run
from eval_pipeline.core.analysis.compare import compare_runs
from eval_pipeline.core.models import (
    ChatPayload,
    Claim,
    ClaimContract,
    DimensionResult,
    Evidence,
    OracleResult,
    Reference,
    ReferenceValue,
    ToolCall,
    Verdict,
)
from eval_pipeline.core.report import html as report
from eval_pipeline.core.report.charts import Series, bin_counts, histogram, line_chart
from eval_pipeline.core.report.html import case_issues, render_report
from eval_pipeline.core.summary import (
    Bootstrap,
    CaseChange,
    CaseSummary,
    Comparison,
    Cost,
    DimensionSummary,
    McNemar,
    Rates,
    RunSummary,
    ScoreDelta,
)
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS

ATTACK = '<script>alert("x")</script><img src=x onerror=alert(1)>'
PWN = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
POLICY = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS)
TAGS = ("percentage", "ranking", "trend", "count", "<b>bold</b>")


def cases_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="cases-data">(.*?)</script>', html, re.S)
    assert match, "the case data blob is missing"
    return json.loads(match.group(1))


def case_by_id(html: str, case_id: str) -> dict[str, Any]:
    return next(c for c in cases_data(html)["cases"] if c["id"] == case_id)


def _dim(name: str, score: float | None, state: str = "scored", **details: Any) -> DimensionResult:
    return DimensionResult(
        name=name, state=state, score=score, method="test", reason=f"{name} reason", details=details
    )


def realistic_run(n: int, seed: int = 7) -> tuple[RunSummary, dict[str, dict[str, Any]]]:
    """A run of ``n`` cases with passes, oracle and safety failures, chatbot errors, judge errors,
    skipped dimensions, warnings, tags and contradicted claims; TC_0005 answers with a script."""
    rnd = random.Random(seed)
    outcomes = []
    details: dict[str, dict[str, Any]] = {
        "chatbot_responses": {},
        "extracted_claims": {},
        "oracle_verdicts": {},
    }
    for i in range(n):
        case_id = f"TC_{i:04d}"
        errored = i % 13 == 3
        contradicted = i % 7 == 2
        unsafe = i % 17 == 4
        tags = sorted({TAGS[i % 4], TAGS[(i // 4) % 5]})
        answer = f"Total for group {i % 9} is {100 + i}, up {i % 30}% year on year."
        if i == 5:
            answer = f"It is 105. {PWN}"
        latency = round(rnd.lognormvariate(0.3, 0.5), 3)
        details["chatbot_responses"][case_id] = ChatPayload(
            case_id=case_id,
            question=f"What is the total for group {i % 9} in quarter {i % 4 + 1}?",
            answer="" if errored else answer,
            tool_calls=[] if errored else [ToolCall(id="c1", name="run_sql", sql=f"SELECT {i}")],
            latency_s=None if errored else latency,
            ttft_s=None if errored else round(latency * rnd.uniform(0.1, 0.4), 3),
            tokens_per_s=None if errored else round(rnd.uniform(20, 60), 1),
            errors=["HTTP 502 from chatbot"] if errored else [],
            status="error" if errored else "ok",
            transport="sse",
        ).model_dump(mode="json")
        if errored:
            dims = {d: _dim(d, None, "skipped") for d in ("oracle", "content_quality", "safety")}
            outcomes.append(
                judge_case(
                    case_id,
                    dims,
                    has_expected_answer=False,
                    has_reference=True,
                    chatbot_errors=["HTTP 502 from chatbot"],
                    policy=POLICY,
                    tags=tags,
                )
            )
            continue
        claims = [
            Claim(id="C1", text=str(100 + i), span=(0, 3), value=100 + i, unit="count"),
            Claim(id="C2", text=f"{i % 30}%", span=(4, 6), value=i % 30, unit="percent"),
        ]
        details["extracted_claims"][case_id] = ClaimContract(
            case_id=case_id, claims=claims
        ).model_dump(mode="json")
        truth = 90 + i if contradicted else 100 + i
        evidence = Evidence(
            source="total_for_group",
            kind="kpi",
            params={"group": str(i % 9), "quarter": i % 4 + 1},
            label="total",
            value=truth,
        )
        first = Verdict(
            claim_id="C1",
            verdict="contradicted" if contradicted else "supported",
            reason=f"{100 + i} differs from {truth}" if contradicted else "matches",
            evidence=[evidence],
        )
        second = Verdict(claim_id="C2", verdict="unverifiable", reason="no reference for growth")
        details["oracle_verdicts"][case_id] = OracleResult(
            case_id=case_id,
            verdicts=[first, second],
            references=[
                ReferenceValue(
                    reference=Reference(kpi="total_for_group", params={"group": str(i % 9)}),
                    shape="scalar",
                    value=truth,
                )
            ],
        ).model_dump(mode="json")
        dims = {
            "oracle": _dim(
                "oracle",
                0.0 if contradicted else 1.0,
                supported=0 if contradicted else 1,
                contradicted=int(contradicted),
                unverifiable=1,
                has_tool_evidence=True,
            ),
            "content_quality": _dim("content_quality", round(rnd.uniform(0.2, 1.0), 2)),
            "on_topic": _dim("on_topic", round(rnd.uniform(0.3, 1.0), 2)),
            "bkg": _dim("bkg", None, "error") if i % 19 == 6 else _dim("bkg", rnd.random()),
            "sql": _dim("sql", None, "skipped") if i % 5 == 1 else _dim("sql", 1.0),
            "safety": _dim("safety", 0.0 if unsafe else 1.0),
            "latency": _dim("latency", min(1.0, 1.5 / latency)),
        }
        outcomes.append(
            judge_case(
                case_id,
                dims,
                has_expected_answer=i % 2 == 0,
                has_reference=True,
                chatbot_errors=[],
                policy=POLICY,
                tags=tags,
            )
        )
    summary = summarize_run("run-2024-06-02", outcomes, report_path="/tmp/report.html")
    return summary, details


HISTORY = [
    summarize_run(f"run-2024-05-{d:02d}", [], report_path="").model_copy(
        update={"pass_rate": 0.5 + d / 100, "mean_overall": 0.7}
    )
    for d in range(25, 32)
]
COMPARISON = Comparison(
    level=0.05,
    paired_cases=40,
    pass_rate=Rates(),
    error_rate=Rates(),
    mcnemar=McNemar(pass_to_fail=6, fail_to_pass=0, p_value=0.0123),
    bootstrap=Bootstrap(resamples=2000, seed=0, level=0.95),
    overall=ScoreDelta(pairs=40, mean_delta=-0.041, ci_low=-0.07, ci_high=-0.012),
    regressions=[
        CaseChange(
            case_id="TC_0009",
            base_result="pass",
            head_result="fail",
            base_overall=0.91,
            head_overall=0.4,
        )
    ],
    improvements=[
        CaseChange(
            case_id="TC_0010",
            base_result="fail",
            head_result="pass",
            base_overall=0.3,
            head_overall=0.8,
        )
    ],
    significant_regression=True,
)


def compared(summary: RunSummary, comparison: Comparison = COMPARISON) -> RunSummary:
    """The summary as compared with a baseline run."""
    return summary.model_copy(update={"comparison": comparison})


def build() -> str:
    oracle = DimensionResult(
        name="oracle",
        state="scored",
        score=0.5,
        method="deterministic",
        reason="1 supported, 1 contradicted",
        details={"supported": 1, "contradicted": 1, "has_tool_evidence": True},
    )
    outcome = judge_case(
        "TC_7",
        {"oracle": oracle},
        has_expected_answer=False,
        has_reference=True,
        chatbot_errors=[],
        policy=POLICY,
        tags=["percentage"],
    )
    summary = summarize_run("run-1", [outcome], report_path="/tmp/x.html")
    details = {
        "chatbot_responses": {
            "TC_7": {
                "question": "How many?",
                "answer": f"It is 42. {ATTACK}",
                "tool_calls": [{"id": "c1", "name": "run_sql", "sql": "SELECT 1 FROM t"}],
                "latency_s": 1.25,
                "ttft_s": 0.2,
            }
        },
        "extracted_claims": {
            "TC_7": {"claims": [{"id": "C1", "text": "42"}, {"id": "C2", "text": "7%"}]}
        },
        "oracle_verdicts": {
            "TC_7": {
                "verdicts": [
                    {
                        "claim_id": "C1",
                        "verdict": "contradicted",
                        "reason": "42 differs from 40",
                        "evidence": [
                            {
                                "source": "count_things",
                                "kind": "kpi",
                                "params": {"group": "A"},
                                "label": None,
                                "value": 40,
                            }
                        ],
                    },
                    {"claim_id": "C2", "verdict": "supported", "reason": "ok", "evidence": []},
                    {"claim_id": "C3", "verdict": "supported", "reason": "late", "evidence": []},
                ],
                "references": [],
            }
        },
    }
    return render_report(summary, details)


def test_report_escapes_the_chatbot_answer() -> None:
    html = build()
    assert ATTACK not in html
    assert "\\u003cscript\\u003ealert" in html  # the answer travels JSON-escaped
    assert case_by_id(html, "TC_7")["detail"]["answer"] == f"It is 42. {ATTACK}"
    assert len(re.findall(r"<script>", html)) == 1  # only the report's own script
    assert html.count("</script>") == 2  # the data blob did not close its element early


def test_report_escapes_tags_in_server_rendered_markup() -> None:
    summary, details = realistic_run(30)
    html = render_report(summary, details)
    assert "<b>bold</b>" not in html
    assert '<option value="&lt;b&gt;bold&lt;/b&gt;">' in html


def test_records_loaded_a_chunk_at_a_time_give_the_same_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 10,000 cases the report must not hold every record at once: it asks for chunks."""
    summary, details = realistic_run(30)
    monkeypatch.setattr(report, "DETAIL_CHUNK", 7)
    asked: list[list[str]] = []

    def load(ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        asked.append(list(ids))
        return {
            asset: {c: r for c, r in rows.items() if c in ids} for asset, rows in details.items()
        }

    chunked = render_report(compared(summary), load, history=HISTORY)
    whole = render_report(compared(summary), details, history=HISTORY)
    assert chunked == whole
    assert [c for ids in asked for c in ids] == [c.case_id for c in summary.cases]
    assert max(len(ids) for ids in asked) == 7


def test_report_is_self_contained() -> None:
    summary, details = realistic_run(30)
    for html in (build(), render_report(compared(summary), details, history=HISTORY)):
        assert not re.search(r'(src|href)\s*=\s*"?(https?:)?//', html)
        assert "<link" not in html and "@import" not in html and "url(" not in html


def test_report_shows_the_evidence_behind_a_contradicted_claim() -> None:
    html = build()
    assert "run-1" in html
    case = case_by_id(html, "TC_7")
    claims = {c["id"]: c for c in case["detail"]["claims"]}
    assert claims["C1"]["verdict"] == "contradicted"
    assert claims["C1"]["reason"] == "42 differs from 40"
    assert claims["C1"]["evidence"] == [
        {
            "kind": "kpi",
            "source": "count_things",
            "params": "group=A",
            "label": None,
            "value": "40",
            "sql": None,
            "unit": None,
        }
    ]
    assert claims["C3"]["text"] == "(not in the claim contract)"  # a vanished claim stays visible
    assert case["detail"]["sql"] == ["SELECT 1 FROM t"]
    assert case["detail"]["latency_s"] == 1.25


def test_cases_are_rendered_by_the_pager_not_as_server_side_rows() -> None:
    summary, details = realistic_run(260)
    html = render_report(summary, details)
    data = cases_data(html)
    assert len(data["cases"]) == 260 and data["page_size"] == 100
    assert re.search(r"<tbody>\s*</tbody>", html)
    statuses = {c["status"] for c in data["cases"]}
    assert statuses == {"pass", "fail", "error"}


def test_cards_without_cost_baseline_or_history() -> None:
    summary, details = realistic_run(40)
    html = render_report(summary, details)
    cost = re.search(r'id="card-cost">(.*?)</div>', html, re.S)
    assert cost and '<span class="value">—</span>' in cost.group(1)
    assert "no baseline" in html
    assert "<title>Trend across runs</title>" not in html
    assert 'value="regressed"' not in html
    gates = re.search(r'id="card-gates">(.*?)</div>', html, re.S)
    assert gates
    for kind, n in summary.gate_failure_counts.items():
        assert f"{kind} ×{n}" in gates.group(1)


def test_cards_with_cost_baseline_and_history() -> None:
    summary, details = realistic_run(40)
    cost = Cost(
        judge_calls=80,
        cached_calls=20,
        input_tokens=12000,
        output_tokens=3000,
        usd=1.5,
        usd_by_dimension={"content_quality": 1.25, "on_topic": 0.25},
    )
    html = render_report(
        compared(summary).model_copy(update={"cost": cost}), details, history=HISTORY
    )
    card = re.search(r'id="card-cost">(.*?)</div>', html, re.S)
    assert card and '<span class="value">$1.5000</span>' in card.group(1)
    assert "80 judge calls, 20 cached" in card.group(1) and "12,000 tokens in" in card.group(1)
    assert "content_quality $1.2500" in card.group(1)
    baseline = re.search(r'id="card-baseline">(.*?)</div>', html, re.S)
    assert baseline and "regression" in baseline.group(1) and "0.012" in baseline.group(1)
    assert "[-0.070, -0.012]" in baseline.group(1)
    assert 'data-show-case="TC_0009"' in html
    assert "<title>Trend across runs</title>" in html
    data = cases_data(html)
    marks = {c["id"]: c["mark"] for c in data["cases"] if c["mark"]}
    assert marks == {"TC_0009": "regressed", "TC_0010": "improved"}


def test_a_real_run_comparison_marks_its_regressions() -> None:
    base_summary, _ = realistic_run(60, seed=1)
    summary, details = realistic_run(60, seed=2)
    comparison = compare_runs(base_summary, summary)
    assert comparison.regressions and comparison.improvements
    html = render_report(compared(summary, comparison), details)
    data = cases_data(html)
    regressed = {c["id"] for c in data["cases"] if c["mark"] == "regressed"}
    assert regressed == {r.case_id for r in comparison.regressions}
    baseline = re.search(r'id="baseline"(.*?)</section>', html, re.S)
    assert baseline
    assert f"{comparison.paired_cases} paired cases" in baseline.group(1)
    assert f"McNemar p = {comparison.mcnemar.p_value:.4f}" in baseline.group(1)
    assert 'id="dimension-deltas"' in baseline.group(1)
    first = comparison.regressions[0]
    assert f"{first.base_result} → {first.head_result}" in baseline.group(1)


def test_dimension_histograms_count_every_scored_case() -> None:
    summary, details = realistic_run(120)
    html = render_report(summary, details)
    for name in ("oracle", "sql", "bkg"):
        svg = re.search(rf"<svg[^>]*><title>{name}</title>.*?</svg>", html, re.S)
        assert svg, name
        counted = sum(int(n) for n in re.findall(r'data-count="(\d+)"', svg.group(0)))
        assert counted == summary.dimension_states[name]["scored"]


def test_case_issues_name_the_dimension_that_failed_warned_or_errored() -> None:
    case = CaseSummary(
        case_id="TC_1",
        passed=False,
        profile="full",
        dimensions={
            "oracle": DimensionSummary(state="scored"),
            "bkg": DimensionSummary(state="error"),
            "sql": DimensionSummary(state="skipped"),
        },
        gate_failures=["oracle: 1 contradicted", "overall: 0.40 < pass threshold 0.60"],
        warnings=["sql: 0.30 below 0.50: bad join", "oracle: also noted", "bkg: error: boom"],
    )
    assert case_issues(case) == {"oracle": "fail", "sql": "warn", "bkg": "error"}


def test_bin_counts_put_edges_in_range() -> None:
    assert bin_counts([0.0, 0.05, 0.1, 0.99, 1.0], 0.0, 1.0, 10) == [2, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    assert bin_counts([-1.0, 5.0], 0.0, 1.0, 2) == [1, 1]
    assert bin_counts([3.0, 3.0], 3.0, 3.0, 4) == [2, 0, 0, 0]


def test_charts_are_accessible_and_escape_their_text() -> None:
    svg = histogram([0.2, 0.4], title="<x>", x_label="score & more", lo=0, hi=1)
    assert svg.startswith("<svg") and "<title>&lt;x&gt;</title>" in svg
    assert 'class="x-label"' in svg and "score &amp; more" in svg and 'class="y-label"' in svg
    empty = histogram([], title="nothing", x_label="s")
    assert "no data" in empty and "<title>nothing</title>" in empty


def test_line_chart_breaks_at_a_missing_value() -> None:
    svg = line_chart(
        ["a", "b", "c", "d", "e"],
        [Series("rate", [0.5, 0.6, None, 0.7, 0.8], "#000")],
        title="t",
        x_label="run",
        y_label="rate",
    )
    assert svg.count("<polyline") == 2
    assert svg.count("<circle") == 4


def test_report_says_which_judged_dimensions_are_demoted() -> None:
    from eval_pipeline.core.report.html import render_report

    summary = RunSummary(
        run_key="r",
        created_at="now",
        report_path="/tmp/r.html",
        cases_total=0,
        cases_passed=0,
        cases_failed=0,
        pass_rate=0.0,
        coverage=0.0,
        verdict_counts={"supported": 0, "contradicted": 0, "unverifiable": 0, "stale": 0},
        demoted_dimensions={"content_quality": "judge uncalibrated (α=0.41 < 0.67)"},
    )
    html = render_report(summary, {})
    assert "judge uncalibrated (α=0.41 &lt; 0.67)" in html
    assert "warning only, excluded from the overall score" in html
