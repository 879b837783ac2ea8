"""The run summary's JSON is a product output: the model holds exactly the documented fields, and
a summary stored by earlier code (a dict in the results store) still validates and serves as the
baseline of a later run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from eval_pipeline.core.analysis.baseline import baseline_run_key
from eval_pipeline.core.analysis.compare import compare_runs
from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.core.summary import CaseSummary, RunSummary
from eval_pipeline.settings import PROJECT_ROOT

FORMATS = PROJECT_ROOT / "docs" / "formats.md"

STORED_TODAY: dict[str, Any] = {
    "schema_version": 1,
    "run_key": "base",
    "created_at": "2026-12-01T02:00:00+00:00",
    "report_path": "/reports/base/report.html",
    "cases_total": 3,
    "cases_passed": 1,
    "cases_failed": 1,
    "cases_error": 1,
    "pass_rate": 0.3333,
    "coverage": 0.6667,
    "mean_overall": 0.75,
    "latency": {"mean_s": None, "p95_s": None, "ttft_mean_s": None, "ttft_p95_s": None},
    "dimension_means": {
        "oracle": 0.8333,
        "content_quality": None,
        "on_topic": None,
        "bkg": None,
        "sql": None,
        "safety": None,
        "latency": None,
        "routing": 1.0,
        "answered": None,
    },
    "dimension_states": {
        "oracle": {"scored": 3, "skipped": 0, "error": 0},
        "content_quality": {"scored": 0, "skipped": 0, "error": 0},
        "on_topic": {"scored": 0, "skipped": 0, "error": 0},
        "bkg": {"scored": 0, "skipped": 0, "error": 0},
        "sql": {"scored": 0, "skipped": 0, "error": 0},
        "safety": {"scored": 0, "skipped": 0, "error": 0},
        "latency": {"scored": 0, "skipped": 0, "error": 0},
        "routing": {"scored": 3, "skipped": 0, "error": 0},
        "answered": {"scored": 0, "skipped": 0, "error": 0},
    },
    "verdict_counts": {"supported": 3, "contradicted": 0, "unverifiable": 0, "stale": 0},
    "gate_failure_counts": {"chatbot": 1, "oracle": 1, "overall": 1},
    "error_counts": {"chatbot": 1},
    "profiles": {"bare": 3},
    "routing": {
        "cases": 3,
        "correct": 3,
        "accuracy": 1.0,
        "intents": ["sales"],
        "confusion": {"sales": {"sales": 3}},
    },
    "cases": [
        {
            "case_id": "TC_1",
            "overall": 1.0,
            "passed": True,
            "state": "scored",
            "profile": "bare",
            "gate_failures": [],
            "errors": [],
            "warnings": [],
            "verdict_counts": {"supported": 1, "contradicted": 0, "unverifiable": 0, "stale": 0},
            "tags": ["t"],
            "routing": {"expected": "sales", "intent": "sales"},
            "dimensions": {
                "oracle": {
                    "score": 1.0,
                    "state": "scored",
                    "method": "deterministic",
                    "reason": "r",
                },
                "routing": {"score": 1.0, "state": "scored", "method": "intent", "reason": "ok"},
            },
            "reused": False,
        },
        {
            "case_id": "TC_2",
            "overall": 0.5,
            "passed": False,
            "state": "scored",
            "profile": "bare",
            "gate_failures": ["oracle: r", "overall: 0.50 < pass threshold 0.60"],
            "errors": [],
            "warnings": [],
            "verdict_counts": {"supported": 1, "contradicted": 0, "unverifiable": 0, "stale": 0},
            "tags": ["t"],
            "routing": {"expected": "sales", "intent": "sales"},
            "dimensions": {
                "oracle": {
                    "score": 0.5,
                    "state": "scored",
                    "method": "deterministic",
                    "reason": "r",
                },
                "routing": {"score": 1.0, "state": "scored", "method": "intent", "reason": "ok"},
            },
            "reused": False,
        },
        {
            "case_id": "TC_3",
            "overall": None,
            "passed": False,
            "state": "error",
            "profile": "bare",
            "gate_failures": ["chatbot: HTTP 500"],
            "errors": ["chatbot: HTTP 500"],
            "warnings": [],
            "verdict_counts": {"supported": 1, "contradicted": 0, "unverifiable": 0, "stale": 0},
            "tags": ["t"],
            "routing": {"expected": "sales", "intent": "sales"},
            "dimensions": {
                "oracle": {
                    "score": 1.0,
                    "state": "scored",
                    "method": "deterministic",
                    "reason": "r",
                },
                "routing": {"score": 1.0, "state": "scored", "method": "intent", "reason": "ok"},
            },
            "reused": False,
        },
    ],
    "trace_export": None,
    "calls": {"chatbot": 3, "judge": 0, "reference": 2},
    "chatbot_unreachable": False,
    "cost": {
        "judge_calls": 0,
        "cached_calls": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "usd": 0.0,
        "usd_by_dimension": {},
    },
    "comparison": None,
    "demoted_dimensions": {},
}
"""What ``eval_run`` stored before the summary was a model (two passed-and-failed cases, one in
error at the chatbot), generated with that code."""

OLDER_FIELDS = ("latency", "error_counts", "routing", "trace_export", "calls", "cost")
OLDER_CASE_FIELDS = ("errors", "routing", "reused")


def documented_fields() -> tuple[set[str], set[str]]:
    """The fields of ``summary.json`` and of each of its cases, as docs/formats.md lists them."""
    text = FORMATS.read_text(encoding="utf-8")
    section = text[
        text.index("## The run summary JSON") : text.index("**Errors never pass a case.**")
    ]
    table = re.findall(r"^\| (`[^|]+`) \|", section, re.M)
    run = {name for cell in table for name in re.findall(r"`(\w+)`", cell)}
    case_text = section[section.index("Each case:") : section.index("In `summary.json`")]
    while re.search(r"\([^()]*\)", case_text):
        case_text = re.sub(r"\([^()]*\)", "", case_text)
    case_text = case_text[: case_text.index(": dimension →")]
    case = set(re.findall(r"`(\w+)`", case_text)) | {"claims"}
    return run | {"schema_version"}, case


def test_the_models_hold_exactly_the_documented_fields() -> None:
    run, case = documented_fields()
    assert set(RunSummary.model_fields) == run
    assert set(CaseSummary.model_fields) == case


def summary_json_fields(path: Path) -> tuple[set[str], set[str]]:
    """The top-level keys of a ``summary.json``, and the keys its cases have."""
    summary = json.loads(path.read_text(encoding="utf-8"))
    return set(summary), {key for c in summary["cases"] for key in c}


def test_a_summary_stored_today_keeps_its_json_and_is_a_baseline(tmp_path: Path) -> None:
    store = ResultsStore(f"sqlite:///{tmp_path / 'results.db'}")
    record = StoredRecord(run_key="base", case_id="", payload=STORED_TODAY, content_hash="h")
    store.append("eval_run", [record], "dagster-run")

    base = store.run_summary("base")
    assert base is not None
    assert base.model_dump(mode="json") == STORED_TODAY, "the same keys and values, both ways"
    assert baseline_run_key(store, "head", "") == "base"
    head = base.model_copy(update={"run_key": "head"})
    comparison = compare_runs(base, head)
    assert (comparison.base_run_key, comparison.paired_cases) == ("base", 3)
    assert comparison.error_changes.persisting[0].case_id == "TC_3"


def test_a_summary_stored_before_later_fields_were_added_still_validates() -> None:
    older = {k: v for k, v in STORED_TODAY.items() if k not in OLDER_FIELDS}
    older["cases"] = [
        {k: v for k, v in c.items() if k not in OLDER_CASE_FIELDS} for c in STORED_TODAY["cases"]
    ]
    summary = RunSummary.model_validate(older)
    assert summary.cost is None and summary.calls is None and summary.trace_export is None
    assert summary.routing.cases == 0 and summary.error_counts == {}
    assert [c.reused for c in summary.cases] == [False, False, False]
    assert compare_runs(summary, RunSummary.model_validate(STORED_TODAY)).paired_cases == 3
