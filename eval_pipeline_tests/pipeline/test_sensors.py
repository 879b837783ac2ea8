"""Sensors through real Dagster instances: nightly run, golden-set sync, warehouse refresh."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from dagster import (
    AddDynamicPartitionsRequest,
    AssetCheckEvaluation,
    AssetKey,
    AssetObservation,
    DagsterInstance,
    Definitions,
    DeleteDynamicPartitionsRequest,
    SensorDefinition,
    SensorResult,
    SkipReason,
    build_sensor_context,
)
from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView, TemporalContext
from dagster._core.definitions.data_version import CachingStaleStatusResolver, StaleStatus
from dagster._core.storage.tags import (
    ASSET_PARTITION_RANGE_END_TAG,
    ASSET_PARTITION_RANGE_START_TAG,
)
from dagster._time import get_current_datetime

from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.pipeline.partitions import split_key
from eval_pipeline.pipeline.resources import EvalSettings, narrow_resources
from eval_pipeline.pipeline.sensors import (
    golden_dataset_sync,
    nightly_evaluation,
    warehouse_refresh,
)
from eval_pipeline.runner.evaluate import evaluate
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.pipeline.test_graph import TINY, tiny_overrides

CASES = [f"TC_00{i}" for i in range(1, 6)]


def tick(
    sensor: SensorDefinition,
    instance: DagsterInstance,
    env: EvalSettings,
    cursor: str | None = None,
) -> Any:
    """Evaluate a sensor once, as the daemon would, with the environment resource."""
    with build_sensor_context(
        instance=instance, cursor=cursor, resources=narrow_resources(env)
    ) as context:
        return sensor(context)


def covered_cases(result: SensorResult, order: list[str]) -> list[str]:
    """The cases the run requests cover, expanding each requested range in partition order."""
    out: list[str] = []
    for request in result.run_requests or []:
        start = split_key(request.tags[ASSET_PARTITION_RANGE_START_TAG])[1]
        end = split_key(request.tags[ASSET_PARTITION_RANGE_END_TAG])[1]
        out += order[order.index(start) : order.index(end) + 1]
    return out


def test_nightly_sensor_adds_a_run_partition_and_requests_every_case(tmp_path: Path) -> None:
    env = EvalSettings(overrides=tiny_overrides(tmp_path, "honest"))
    with eval_instance() as instance:
        empty = tick(nightly_evaluation, instance, env)
        assert isinstance(empty, SkipReason)
        instance.add_dynamic_partitions("golden_cases", CASES)
        result = tick(nightly_evaluation, instance, env)
        assert isinstance(result, SensorResult)
        (request,) = result.dynamic_partitions_requests
        assert isinstance(request, AddDynamicPartitionsRequest)
        assert request.partitions_def_name == "eval_runs"
        (run_key,) = request.partition_keys
        assert run_key.endswith("-nightly") and "|" not in run_key and "," not in run_key
        assert covered_cases(result, CASES) == CASES
        assert len(result.run_requests) == 1, "one Dagster run for the whole evaluation"
        again = tick(nightly_evaluation, instance, env, result.cursor)
        assert isinstance(again, SkipReason), "the same tick never creates a second run"


def test_golden_sync_adds_new_and_removes_deleted_cases(tmp_path: Path) -> None:
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    golden = [c for c in golden if c["id"] != "TC_003"]
    golden.append({**golden[0], "id": "TC_009"})
    path = tmp_path / "golden.json"
    path.write_text(json.dumps(golden))
    overrides = {**tiny_overrides(tmp_path, "honest"), "golden_path": str(path)}
    env = EvalSettings(overrides=overrides)
    with eval_instance() as instance:
        instance.add_dynamic_partitions("golden_cases", [*CASES, "TC_OLD"])
        result = tick(golden_dataset_sync, instance, env)
        assert isinstance(result, SensorResult)
        requests = {type(r): r for r in result.dynamic_partitions_requests}
        assert requests[AddDynamicPartitionsRequest].partition_keys == ["TC_009"]
        assert sorted(requests[DeleteDynamicPartitionsRequest].partition_keys) == [
            "TC_003",
            "TC_OLD",
        ]
        requested = [
            (r.tags[ASSET_PARTITION_RANGE_START_TAG], r.tags[ASSET_PARTITION_RANGE_END_TAG])
            for r in result.run_requests
        ]
        # never-materialized cases are all requested: one range over the order after the sync
        assert requested == [("TC_001", "TC_009")]


def functions_reading(table: str) -> set[str]:
    bkg = json.loads((TINY / "bkg.json").read_text())
    return {
        fn["name"]
        for kind in ("kpis", "decisions", "core_nodes")
        for fn in bkg.get(kind, [])
        if table in fn["tables"]
    }


def record(instance: DagsterInstance, result: SensorResult) -> None:
    """Store a tick's asset events, as the sensor daemon does."""
    for event in result.asset_events:
        instance.report_runless_asset_event(event)


def stale_resolver(instance: DagsterInstance, defs: Definitions) -> CachingStaleStatusResolver:
    """The resolver the webserver's staleness fields use, over the code location's graph."""
    graph = defs.resolve_asset_graph()
    view = AssetGraphView(
        temporal_context=TemporalContext(effective_dt=get_current_datetime(), last_event_id=None),
        instance=instance,
        asset_graph=graph,
    )
    return CachingStaleStatusResolver(instance, graph, view)


@pytest.mark.parametrize("sensor_first", [True, False], ids=["sensor-first", "evaluated-first"])
def test_warehouse_refresh_reruns_and_stales_exactly_the_dependent_cases(
    tmp_path: Path, sensor_first: bool
) -> None:
    """Whichever came first, the daemon's first tick or an evaluation (which records a baseline
    version of every unobserved table), a later table change stales exactly its readers."""
    overrides = tiny_overrides(tmp_path, "honest")
    env = EvalSettings(overrides=overrides)
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    readers = functions_reading("products")
    expected = sorted(
        c["id"]
        for c in golden
        if any(
            (r.get("kpi") or r.get("decision") or r.get("core_node")) in readers
            for r in c["reference"]
        )
    )
    assert 0 < len(expected) < len(golden), "the test needs both dependent and independent cases"
    products = AssetKey(["warehouse", "products"])
    with eval_instance() as instance:
        if not sensor_first:
            evaluate("r1", overrides=overrides, instance=instance)
        first = tick(warehouse_refresh, instance, env)
        assert isinstance(first, SensorResult) and not first.run_requests
        assert len(first.asset_events) == 2, "the first tick records every table's data version"
        assert all(e.partition is None for e in first.asset_events)
        record(instance, first)
        if sensor_first:
            evaluate("r1", overrides=overrides, instance=instance)

        unchanged = tick(warehouse_refresh, instance, env, first.cursor)
        assert not unchanged.run_requests and not unchanged.asset_events

        engine = sa.create_engine(overrides["database_url"])
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE products SET updated_at = '2031-01-01 00:00:00'"))
        engine.dispose()
        changed = tick(warehouse_refresh, instance, env, first.cursor)
        record(instance, changed)
        order = list(instance.get_dynamic_partitions("golden_cases"))
        resolver = stale_resolver(instance, build_definitions(overrides))
        oracle = AssetKey("oracle_verdicts")
        status = {c: resolver.get_status(oracle, f"{c}|r1") for c in order}
        causes = {
            c: {
                (cause.key.asset_key, cause.key.partition_key, cause.reason)
                for cause in resolver.get_stale_root_causes(oracle, f"{c}|r1")
            }
            for c in order
        }
    observed = [e for e in changed.asset_events if isinstance(e, AssetObservation)]
    assert {e.asset_key for e in observed} == {products}
    assert sorted(e.partition for e in observed if e.partition) == expected
    assert sorted(covered_cases(changed, order)) == expected
    invalidated = [e for e in changed.asset_events if isinstance(e, AssetCheckEvaluation)]
    assert sorted(split_key(str(e.partition))[1] for e in invalidated) == expected
    assert not any(e.passed for e in invalidated)
    assert all(r.run_config for r in changed.run_requests), "a refresh re-asks the chatbot"
    # the UI's view: the change stales exactly the dependent verdicts, naming the table
    for case in order:
        if case in expected:
            assert status[case] == StaleStatus.STALE, case
            assert causes[case] == {(products, case, "has a new data version")}, case
        else:
            assert status[case] == StaleStatus.FRESH and not causes[case], case


def test_nightly_sensor_expires_the_oldest_run_partitions(tmp_path: Path) -> None:
    overrides = {**tiny_overrides(tmp_path, "honest"), "retain_runs": "2"}
    env = EvalSettings(overrides=overrides)
    with eval_instance() as instance:
        instance.add_dynamic_partitions("golden_cases", CASES)
        instance.add_dynamic_partitions("eval_runs", ["old-1", "old-2", "old-3"])
        result = tick(nightly_evaluation, instance, env)
    requests = {type(r): r for r in result.dynamic_partitions_requests}
    assert requests[DeleteDynamicPartitionsRequest].partition_keys == ["old-1", "old-2"]
    (new_key,) = requests[AddDynamicPartitionsRequest].partition_keys
    assert new_key.endswith("-nightly")


def test_demo_warehouse_refresh_requests_exactly_the_dependent_demo_cases(tmp_path: Path) -> None:
    import re

    from eval_pipeline.core.results_store import ResultsStore
    from eval_pipeline.demo import warehouse
    from eval_pipeline.demo.bot.runner import start_bot
    from eval_pipeline.settings import DEMO_DATA

    url = f"sqlite:///{tmp_path / 'demo.db'}"
    warehouse.load(url)
    with start_bot(database_url=url, fault_seed=None, fault_log=None, tokens_per_s=2000) as bot:
        overrides = {"home": str(tmp_path / "home"), "database_url": url, "chatbot_url": bot.url}
        env = EvalSettings(overrides=overrides)
        with eval_instance() as instance:
            evaluate("demo-1", overrides=overrides, instance=instance)
            baseline = tick(warehouse_refresh, instance, env)
            assert not baseline.run_requests, "the first tick only records the tables"
            warehouse.refresh(url, tables=["hse_audits"])
            changed = tick(warehouse_refresh, instance, env, baseline.cursor)
            order = list(instance.get_dynamic_partitions("golden_cases"))

    # independently: functions declaring the table, and answers whose SQL names it
    bkg = json.loads((DEMO_DATA / "bkg.json").read_text())
    readers = {
        fn["name"]
        for kind in ("kpis", "decisions", "core_nodes")
        for fn in bkg[kind]
        if "hse_audits" in fn["tables"]
    }
    golden = json.loads((DEMO_DATA / "golden_dataset.json").read_text())
    responses = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}").latest(
        "chatbot_responses", "demo-1"
    )
    expected = sorted(
        c["id"]
        for c in golden
        if any(
            (r.get("kpi") or r.get("decision") or r.get("core_node")) in readers
            or re.search(r"\bhse_audits\b", r.get("sql") or "")
            for r in c["reference"]
        )
        or any(
            re.search(r"\bhse_audits\b", call.get("sql") or "")
            for call in responses[c["id"]]["tool_calls"]
        )
    )
    assert 0 < len(expected) < len(golden)
    observed = [e for e in changed.asset_events if isinstance(e, AssetObservation)]
    assert {tuple(e.asset_key.path) for e in observed} == {("warehouse", "hse_audits")}
    assert sorted(e.partition for e in observed if e.partition) == expected
    assert sorted(covered_cases(changed, order)) == expected
    invalidated = [e for e in changed.asset_events if isinstance(e, AssetCheckEvaluation)]
    assert sorted(split_key(str(e.partition))[1] for e in invalidated) == expected
    assert not any(e.passed for e in invalidated)
