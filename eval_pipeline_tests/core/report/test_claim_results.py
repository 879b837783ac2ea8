"""Per-claim results: each case's claims joined with their verdicts, and the summary file that
lists them, written a chunk of cases at a time."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.models import ReferenceValue
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline.core.report.claim_results import NOT_IN_CONTRACT, claim_results, write_summary
from eval_pipeline_tests.summaries import case_summary, run_summary

ANSWER = "West completed 42 items and East 55."
REFERENCE = ReferenceValue.model_validate(
    {
        "reference": {"kpi": "completed", "params": {"year": 2026}},
        "shape": "mapping",
        "value": {"West": 42, "East": 37},
        "unit": "count",
    }
)


def stored(case_id: str) -> dict[str, dict[str, Any]]:
    contract = extract_claims(case_id, "How many items did each group complete?", ANSWER)
    verdicts = verify_claims(contract, [REFERENCE], answer=ANSWER)
    return {
        "extracted_claims": contract.model_dump(mode="json"),
        "oracle_verdicts": {"verdicts": [v.model_dump(mode="json") for v in verdicts]},
    }


def test_each_claim_carries_its_text_span_unit_verdict_and_evidence() -> None:
    record = stored("c1")
    rows = claim_results(record["extracted_claims"], record["oracle_verdicts"])
    assert [(r["text"], r["unit"], r["verdict"]) for r in rows] == [
        ("42", "count", "supported"),
        ("55", "count", "contradicted"),
    ]
    for row in rows:
        start, end = row["span"]
        assert ANSWER[start:end] == row["text"]
    accused = rows[1]
    assert "37" in accused["reason"]
    assert accused["evidence"][0]["source"] == "completed"
    assert accused["evidence"][0]["params"] == {"year": 2026}
    assert accused["evidence"][0]["value"] == 37


def test_a_verdict_without_its_claim_is_still_listed() -> None:
    record = stored("c1")
    contract = {"claims": record["extracted_claims"]["claims"][:1]}
    rows = claim_results(contract, record["oracle_verdicts"])
    assert [(r["id"], r["text"]) for r in rows] == [("C1", "42"), ("C2", NOT_IN_CONTRACT)]
    assert rows[1]["span"] is None and rows[1]["verdict"] == "contradicted"


def test_summary_file_adds_claims_to_every_case_across_chunks(tmp_path: Path) -> None:
    ids = [f"c{i}" for i in range(5)]
    report = tmp_path / "out" / "report.html"
    summary = run_summary("r", [case_summary(i) for i in ids], report_path=str(report))
    asked: list[list[str]] = []

    def load(chunk: Sequence[str]) -> dict[str, dict[str, Any]]:
        asked.append(list(chunk))
        per_case = {case_id: stored(case_id) for case_id in chunk}
        return {
            asset: {case_id: records[asset] for case_id, records in per_case.items()}
            for asset in ("extracted_claims", "oracle_verdicts")
        }

    path = write_summary(summary, load, chunk=2)
    assert path == tmp_path / "out" / "summary.json"
    written = json.loads(path.read_text())
    assert asked == [["c0", "c1"], ["c2", "c3"], ["c4"]]
    assert written["run_key"] == "r" and written["cases_total"] == 5
    assert [c["case_id"] for c in written["cases"]] == ids
    assert all(
        [r["verdict"] for r in c["claims"]] == ["supported", "contradicted"]
        for c in written["cases"]
    )
    assert not path.with_suffix(".tmp").exists()


def test_a_case_without_stored_claims_lists_none(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    summary = run_summary("r", [case_summary("gone")], report_path=str(report))
    path = write_summary(summary, lambda _ids: {})
    cases = json.loads(path.read_text())["cases"]
    assert [(c["case_id"], c["claims"]) for c in cases] == [("gone", [])]


def test_a_claim_never_verified_says_why() -> None:
    record = stored("c1")
    rows = claim_results(record["extracted_claims"], {"error": "no complete answer to verify"})
    assert {(r["verdict"], r["reason"]) for r in rows} == {
        (None, "not verified: no complete answer to verify")
    }
