"""Each case's outcome and metadata on its own partition, through real Dagster instances."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dagster import AssetCheckKey, AssetCheckSeverity, AssetKey, AssetSelection, materialize

from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.runner.evaluate import QUIET, evaluate
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


def test_every_case_gets_its_check_and_metadata_and_the_ui_can_evaluate_it_again(
    tmp_path: Path,
) -> None:
    overrides = tiny_overrides(tmp_path, "inflated_units")
    with eval_instance() as instance:
        summary = evaluate("r1", overrides=overrides, instance=instance)
        checks = latest_checks(instance)
        assert set(checks) == {f"{c['case_id']}|r1" for c in summary["cases"]}
        for case in summary["cases"]:
            evaluation = checks[f"{case['case_id']}|r1"]
            if case["gate_failures"] or case["state"] == "error":
                assert not evaluation.passed
                assert evaluation.severity == AssetCheckSeverity.ERROR
                assert evaluation.metadata["gate"].value == case["gate_failures"][0].split(":")[0]
            elif case["warnings"]:
                assert (evaluation.passed, evaluation.severity) == (False, AssetCheckSeverity.WARN)
            else:
                assert evaluation.passed
        contradicted = next(
            c["case_id"] for c in summary["cases"] if c["verdict_counts"]["contradicted"]
        )
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
