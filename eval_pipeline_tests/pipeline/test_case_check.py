"""Each case's outcome and metadata on its own partition, through real Dagster instances."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from dagster import AssetCheckKey, AssetCheckSeverity, AssetKey, AssetSelection, materialize

from eval_pipeline.core.models import VERDICT_LABELS, ClaimContract
from eval_pipeline.core.redaction import Redactor
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.summary import CaseSummary
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS, per_partition
from eval_pipeline.pipeline.case_metadata import claims_metadata
from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.runner.evaluate import QUIET, evaluate
from eval_pipeline.settings import load_settings
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.pipeline.test_graph import tiny_overrides

CHECK = AssetCheckKey(AssetKey("judge_scores"), "case_passed")


def latest_checks(instance: Any) -> dict[str, Any]:
    """Partition → the latest case_passed evaluation recorded for it."""
    out: dict[str, Any] = {}
    for record in instance.event_log_storage.get_asset_check_execution_history(CHECK, limit=100):
        evaluation = record.event.dagster_event.event_specific_data
        out.setdefault(record.partition, evaluation)
    return out


def table_rows(markdown: str) -> list[list[str]]:
    """The body rows of a metadata markdown table, cell by cell (escaped pipes kept in cells)."""
    lines = [line for line in markdown.splitlines() if line.startswith("| ")][1:]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


def test_every_case_gets_its_check_and_metadata_and_the_ui_can_evaluate_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVAL_REPORT_BASE_URL", raising=False)
    overrides = tiny_overrides(tmp_path, "inflated_units")
    with eval_instance() as instance:
        summary = evaluate("r1", overrides=overrides, instance=instance)
        checks = latest_checks(instance)
        shown = {asset: partition_metadata(instance, asset, "r1") for asset in PER_CASE_ASSETS}
        assert set(checks) == {f"{c.case_id}|r1" for c in summary.cases}
        for case in summary.cases:
            evaluation = checks[f"{case.case_id}|r1"]
            if case.gate_failures or case.state == "error":
                assert not evaluation.passed
                assert evaluation.severity == AssetCheckSeverity.ERROR
                assert evaluation.metadata["gate"].value == case.gate_failures[0].split(":")[0]
            elif case.warnings:
                assert (evaluation.passed, evaluation.severity) == (False, AssetCheckSeverity.WARN)
            else:
                assert evaluation.passed
        # both severities are in this run, so neither branch above passes vacuously
        gated = next(c for c in summary.cases if c.state == "scored" and c.gate_failures)
        warned = next(c for c in summary.cases if c.passed and c.warnings)
        gated_check, warned_check = (checks[f"{c.case_id}|r1"] for c in (gated, warned))
        assert (gated_check.passed, gated_check.severity) == (False, AssetCheckSeverity.ERROR)
        assert (warned_check.passed, warned_check.severity) == (False, AssetCheckSeverity.WARN)
        assert_verdicts_and_scores_shown(tmp_path, summary.cases, shown)

        contradicted = next(c.case_id for c in summary.cases if c.verdict_counts["contradicted"])
        claim = checks[f"{contradicted}|r1"].metadata["first_contradicted_claim"].value
        assert claim.startswith("C1 contradicted: expected ") and "kpi units_sold" in claim

        # Materialize from the UI: judge_scores of one partition with its checks
        defs = build_definitions(overrides)
        result = materialize(
            [*(defs.assets or []), *(defs.asset_checks or [])],
            selection=AssetSelection.assets("judge_scores"),
            partition_key=f"{contradicted}|r1",
            instance=instance,
            resources=dict(defs.resources or {}),
            run_config=QUIET,
        )
        assert result.success
        again = [
            e.asset_check_evaluation_data
            for e in result.all_events
            if e.event_type_value == "ASSET_CHECK_EVALUATION"
        ]
        assert {e.partition for e in again} == {f"{contradicted}|r1"}
        assert all(not e.passed and e.target_materialization_data for e in again)


def assert_verdicts_and_scores_shown(
    tmp_path: Path, cases: list[CaseSummary], shown: dict[str, dict[str, dict[str, Any]]]
) -> None:
    """Each case's verdict and score metadata says what the results store holds for it, and its
    report links open the local viewer at the case: what a user debugging in the UI relies on."""
    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    verdicts = store.latest("oracle_verdicts", "r1")
    contracts = store.latest("extracted_claims", "r1")
    scores = store.latest("judge_scores", "r1")
    for case in cases:
        case_id = case.case_id
        link = f"http://127.0.0.1:8780/runs/r1/report.html#case-{case_id}"
        assert [shown[a][case_id]["report"].value for a in PER_CASE_ASSETS] == [link] * 4

        oracle, stored = shown["oracle_verdicts"][case_id], verdicts[case_id]["verdicts"]
        counted = Counter(v["verdict"] for v in stored)
        assert {k: oracle[f"verdicts_{k}"].value for k in VERDICT_LABELS} == {
            k: counted[k] for k in VERDICT_LABELS
        }
        stated = {c["id"]: c["text"] for c in contracts[case_id]["claims"]}
        rows = table_rows(oracle["claims_table"].value)
        assert [r[:3] for r in rows] == [
            [v["claim_id"], v["verdict"], stated[v["claim_id"]]] for v in stored
        ]

        judged = shown["judge_scores"][case_id]
        result = "error" if case.state == "error" else "passed" if case.passed else "failed"
        assert judged["result"].value == result
        assert judged["overall"].value == ("—" if case.overall is None else case.overall)
        assert judged["gate_failures"].value == ("; ".join(case.gate_failures) or "none")
        dimensions = {r[0]: r[1:3] for r in table_rows(judged["dimensions"].value)}
        assert dimensions == {
            name: [d["state"], "—" if d["score"] is None else f"{d['score']:.2f}"]
            for name, d in scores[case_id]["dimensions"].items()
        }

    # the contradicted claim's row: the answer's inflated figure, then the reference's
    failed = next(c.case_id for c in cases if c.verdict_counts["contradicted"])
    (evidence,) = verdicts[failed]["verdicts"][0]["evidence"]
    assert (evidence["label"], evidence["value"]) == ("Croissant", 1195)
    assert table_rows(shown["oracle_verdicts"][failed]["claims_table"].value) == [
        ["C1", "contradicted", "1,792.50", "1,195", "kpi units_sold(product=Croissant) [Croissant]"]
    ]
    gates = shown["judge_scores"][failed]["gate_failures"].value.split("; ")
    assert gates[0] == "oracle: 0 supported, 1 contradicted, 0 unverifiable"


def test_metadata_and_checks_can_be_turned_off(tmp_path: Path) -> None:
    overrides = {**tiny_overrides(tmp_path, "honest"), "partition_metadata": "false"}
    with eval_instance() as instance:
        evaluate("r1", overrides=overrides, instance=instance)
        assert latest_checks(instance) == {}
        (record,) = instance.fetch_materializations(AssetKey("judge_scores"), limit=1).records
        assert "overall" not in record.asset_materialization.metadata


def test_every_asset_and_check_has_a_description() -> None:
    defs = build_definitions()
    graph = defs.resolve_asset_graph()
    for key in graph.get_all_asset_keys():
        assert graph.get(key).description, key.to_user_string()
    checks = [
        spec
        for d in [*(defs.assets or []), *(defs.asset_checks or [])]
        for spec in getattr(d, "check_specs", [])
    ]
    assert {s.name for s in checks} >= {"case_passed", "gates_passed", "coverage"}
    assert all(s.description for s in checks), [s.name for s in checks if not s.description]


def partition_metadata(instance: Any, asset: str, run_key: str) -> dict[str, dict[str, Any]]:
    """Case → the metadata of its partition's latest materialization in ``run_key``."""
    out: dict[str, dict[str, Any]] = {}
    for record in instance.fetch_materializations(AssetKey(asset), limit=200).records:
        case, run = str(record.partition_key).split("|")
        if run == run_key:
            out.setdefault(case, dict(record.asset_materialization.metadata))
    return out


def test_answers_and_claims_carry_their_own_metadata_and_a_second_runs_trend_draws_each_run_once(
    tmp_path: Path,
) -> None:
    overrides = {**tiny_overrides(tmp_path, "honest"), "report_base_url": "http://viewer.test"}
    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    with eval_instance() as instance:
        first = evaluate("r1", overrides=overrides, instance=instance)
        second = evaluate("r2", overrides=overrides, instance=instance)
        responses = partition_metadata(instance, "chatbot_responses", "r1")
        claims = partition_metadata(instance, "extracted_claims", "r1")
    cases = [c.case_id for c in first.cases]
    assert sorted(responses) == sorted(claims) == sorted(cases)
    answers = store.latest("chatbot_responses", "r1")
    contracts = store.latest("extracted_claims", "r1")
    for case in cases:
        shown, stored = responses[case], answers[case]
        for key in ("latency_s", "ttft_s"):  # a callable bot streams nothing: no first token
            expected = "—" if stored[key] is None else round(stored[key], 3)
            assert shown[key].value == expected, (case, key)
        assert stored["answer"].startswith(shown["answer_preview"].value.rstrip("…"))
        assert shown["report"].value == f"http://viewer.test/runs/r1/report.html#case-{case}"
        assert claims[case]["claims"].value == len(contracts[case]["claims"]) > 0

    # the second run's trend: the first run and this one, each drawn once
    html = Path(second.report_path).read_text(encoding="utf-8")
    trend = html[html.index('id="trend"') :]
    trend = trend[: trend.index("</figure>")]
    assert "1 earlier runs and this one" in trend
    assert trend.count("<circle") == 4, "two runs × two series"
    alone = Path(first.report_path).read_text(encoding="utf-8")
    assert "No earlier runs" in alone


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        (None, "http://127.0.0.1:8780/runs/r1/report.html#case-TC_001"),
        ("https://reports.test/eval/", "https://reports.test/eval/runs/r1/report.html#case-TC_001"),
    ],
)
def test_report_links_open_the_local_viewer_unless_a_base_url_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str | None, expected: str
) -> None:
    """A click in the UI must open the report ``eval-pipeline view`` serves by default, at the
    case; a deployment that serves reports elsewhere names its base in the environment."""
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    if base is None:
        monkeypatch.delenv("EVAL_REPORT_BASE_URL", raising=False)
    else:
        monkeypatch.setenv("EVAL_REPORT_BASE_URL", base)
    settings = load_settings(home=str(tmp_path))
    # only what per_partition reads of the step and its context
    step: Any = SimpleNamespace(
        env=SimpleNamespace(settings=settings, redactor=Redactor()), keys=[("r1", "TC_001")]
    )
    context: Any = SimpleNamespace(partition_keys=["TC_001|r1"])
    contract = ClaimContract(case_id="TC_001")
    shown = per_partition(context, step, lambda _key, link: claims_metadata(contract, link))
    assert shown["TC_001|r1"]["report"].value == expected
