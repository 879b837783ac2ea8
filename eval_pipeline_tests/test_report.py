"""The HTML report: self-contained, escaped, and showing the evidence behind each verdict."""

from __future__ import annotations

import re

from eval_pipeline.core.aggregate import GatePolicy, judge_case, summarize_run
from eval_pipeline.core.models import DimensionResult
from eval_pipeline.core.report import render_report
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS

ATTACK = '<script>alert("x")</script><img src=x onerror=alert(1)>'


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
        policy=GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS),
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
                ],
                "references": [],
            }
        },
    }
    return render_report(summary, details)


def test_report_escapes_the_chatbot_answer() -> None:
    html = build()
    assert ATTACK not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert len(re.findall(r"<script>", html)) == 1  # only the report's own filter script


def test_report_is_self_contained() -> None:
    html = build()
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "<link" not in html


def test_report_shows_the_evidence_behind_a_contradicted_claim() -> None:
    html = build()
    assert "TC_7" in html and "run-1" in html
    assert "kpi count_things(group=A)" in html and "= 40" in html
    assert "42 differs from 40" in html
    assert "SELECT 1 FROM t" in html
    assert 'class="contradicted"' in html
