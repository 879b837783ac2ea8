"""What a warehouse refresh invalidated, visible without opening each partition: through a real
Dagster instance, the ``warehouse_refresh`` sensor's tick fails exactly the invalidated cases'
``verdicts_current`` checks (naming the table), lists those cases on the table's observation,
names the tables and the cases it re-asked in the tick's own log (what the UI's tick view shows),
and the cases' next verification clears their check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from dagster import (
    AssetCheckSeverity,
    AssetKey,
    AssetSelection,
    DagsterInstance,
    Definitions,
    SensorResult,
    build_sensor_context,
    define_asset_job,
)
from dagster._core.definitions.instigation_logger import get_instigation_log_records

from eval_pipeline.pipeline.case_checks import CURRENCY_CHECK
from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.pipeline.partitions import RUN_CASE
from eval_pipeline.pipeline.resources import EvalSettings, narrow_resources
from eval_pipeline.pipeline.sensors import warehouse_refresh
from eval_pipeline.runner.evaluate import QUIET, evaluate
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.pipeline.test_graph import TINY, tiny_overrides
from eval_pipeline_tests.pipeline.test_sensors import functions_reading, record, tick

RUN = "r1"


def readers_of(table: str) -> list[str]:
    """The tiny golden set's cases whose references read ``table``, worked out from the files."""
    functions = functions_reading(table)
    golden = json.loads((TINY / "golden_dataset.json").read_text())
    return sorted(
        c["id"]
        for c in golden
        if any(
            (r.get("kpi") or r.get("decision") or r.get("core_node")) in functions
            for r in c["reference"]
        )
    )


def touch_products(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE products SET updated_at = '2031-01-01 00:00:00'"))
    engine.dispose()


def refresh_tick(
    instance: DagsterInstance, env: EvalSettings, cursor: str | None
) -> tuple[SensorResult, list[str]]:
    """One tick as the daemon runs it, its log captured where the UI reads a tick's logs."""
    with build_sensor_context(
        instance=instance,
        instance_ref=instance.get_ref(),  # as the daemon passes it: the log is then captured
        cursor=cursor,
        resources=narrow_resources(env),
        repository_name="__repository__",
        sensor_name=warehouse_refresh.name,
    ) as context:
        result = warehouse_refresh(context)
        log_key = context.log_key
    assert log_key, "the tick's log must be captured"
    return result, [r["msg"] for r in get_instigation_log_records(instance, log_key)]


def current_check_statuses(instance: DagsterInstance) -> dict[str, Any]:
    """Partition → its latest verdicts_current evaluation, for the partitions whose evaluation
    targets their latest materialization (what the check's partition view shows)."""
    infos = instance.event_log_storage.get_asset_check_partition_info([CURRENCY_CHECK])
    current = {i.partition_key for i in infos if i.is_current}
    out: dict[str, Any] = {}
    history = instance.event_log_storage.get_asset_check_execution_history(
        CURRENCY_CHECK, limit=500
    )
    for row in history:
        if row.partition in current and row.event:
            out.setdefault(row.partition, row.event.dagster_event.event_specific_data)
    return out


def test_a_refresh_fails_exactly_the_invalidated_cases_checks_and_names_them_everywhere(
    tmp_path: Path,
) -> None:
    overrides = tiny_overrides(tmp_path, "honest")
    env = EvalSettings(overrides=overrides)
    expected = readers_of("products")
    golden = [c["id"] for c in json.loads((TINY / "golden_dataset.json").read_text())]
    assert 0 < len(expected) < len(golden), "the test needs both invalidated and untouched cases"
    with eval_instance() as instance:
        evaluate(RUN, overrides=overrides, instance=instance)
        first = tick(warehouse_refresh, instance, env)
        record(instance, first)
        assert current_check_statuses(instance) == {}, "an unchanged warehouse fails no case"

        touch_products(overrides["database_url"])
        changed, log = refresh_tick(instance, env, first.cursor)
        record(instance, changed)

        # the check's partition view: exactly the invalidated cases fail, naming the table
        checks = current_check_statuses(instance)
        assert sorted(checks) == [f"{c}|{RUN}" for c in expected]
        for evaluation in checks.values():
            assert not evaluation.passed and evaluation.severity == AssetCheckSeverity.WARN
            assert evaluation.metadata["changed_tables"].value == "products"
            assert evaluation.target_materialization_data.run_id, "it targets the verification"

        # the table's own observation lists them, without opening any case partition
        (table,) = [
            r.asset_observation
            for r in instance.fetch_observations(
                AssetKey(["warehouse", "products"]), limit=50
            ).records
            if r.asset_observation.partition is None
            and "cases_invalidated" in r.asset_observation.metadata
        ]
        assert table.metadata["cases_invalidated"].value == len(expected)
        listed = table.metadata["invalidated_verdicts"].value
        assert all(f"`{c}`" in listed for c in expected)
        assert not any(f"`{c}`" in listed for c in set(golden) - set(expected))

        # the tick's log names the table and every case it re-asked
        (line,) = [m for m in log if "warehouse tables changed" in m]
        assert "products" in line and f"re-asking {len(expected)} case(s) of run {RUN}" in line
        assert all(c in line for c in expected)

        # executed from the UI, the check reads the same from the stored answers
        defs = build_definitions(overrides)
        job = define_asset_job(
            "check_only", selection=AssetSelection.checks(CURRENCY_CHECK), partitions_def=RUN_CASE
        )
        check_only = Definitions(
            assets=defs.assets,
            asset_checks=defs.asset_checks,
            resources=defs.resources,
            jobs=[job],
        ).resolve_job_def(job.name)
        untouched = next(c for c in golden if c not in expected)
        for case, passed in ((expected[0], False), (untouched, True)):
            key = f"{case}|{RUN}"  # as the UI launches a check alone: the partition in its tags
            result = check_only.execute_in_process(
                tags=RUN_CASE.get_tags_for_partition_key(key), instance=instance, run_config=QUIET
            )
            (evaluation,) = [
                e.asset_check_evaluation_data
                for e in result.all_events
                if e.event_type_value == "ASSET_CHECK_EVALUATION"
            ]
            assert evaluation.passed is passed, case
            assert evaluation.target_materialization_data.run_id != result.run_id

        # the re-asked cases' next verification clears their checks
        evaluate(
            RUN, overrides={**overrides, "refresh": "true"}, case_ids=expected, instance=instance
        )
        assert not [p for p, e in current_check_statuses(instance).items() if not e.passed]
