"""The whole graph with everything on PostgreSQL: Dagster's instance, the warehouse, the results.

One evaluation runs embedded (SQLite everywhere) and one on the PostgreSQL server with
``DAGSTER_EVENT_BATCH_SIZE`` set; both must produce the same summary, and Dagster's event log and
the results history must be rows in PostgreSQL tables.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import sqlalchemy as sa
from dagster import AssetKey, DagsterEventType, instance_for_test
from dagster._core.events.log import EventLogEntry
from dagster_postgres import PostgresEventLogStorage

from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.runner.evaluate import PER_CASE_ASSETS, evaluate
from eval_pipeline_tests.production_storage import (
    comparable_summary,
    postgres_storage,
    scratch_database,
    scratch_schema,
    tiny_postgres_settings,
    tiny_sqlite_settings,
)

pytestmark = pytest.mark.postgres

BATCH_SIZE = 3  # five partitions per step: one batch of three materializations, then two
CASES = [f"TC_00{i}" for i in range(1, 6)]


@pytest.fixture
def dagster_pg_url(pg_admin_url: str) -> Iterator[str]:
    with scratch_database(pg_admin_url) as url:
        yield url


@pytest.fixture
def warehouse_schema(pg_admin_url: str) -> Iterator[tuple[str, str]]:
    with scratch_schema(pg_admin_url) as schema:
        yield schema


@pytest.fixture
def results_schema(pg_admin_url: str) -> Iterator[tuple[str, str]]:
    with scratch_schema(pg_admin_url) as schema:
        yield schema


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """Every asset-event batch dagster-postgres writes: (event type, asset per event)."""
    seen: list[tuple[str, list[str]]] = []
    original = PostgresEventLogStorage.store_event_batch

    def spy(self: PostgresEventLogStorage, events: Sequence[EventLogEntry]) -> None:
        types = {e.get_dagster_event().event_type_value for e in events}
        assets = [e.get_dagster_event().asset_key.to_user_string() for e in events]
        seen.append(("+".join(sorted(types)), assets))
        original(self, events)

    monkeypatch.setattr(PostgresEventLogStorage, "store_event_batch", spy)
    monkeypatch.setenv("DAGSTER_EVENT_BATCH_SIZE", str(BATCH_SIZE))
    return seen


def test_whole_graph_on_postgres_matches_the_embedded_run(
    tmp_path: Path,
    dagster_pg_url: str,
    warehouse_schema: tuple[str, str],
    results_schema: tuple[str, str],
    batches: list[tuple[str, list[str]]],
) -> None:
    with instance_for_test() as instance:
        embedded = evaluate(
            "r1", overrides=tiny_sqlite_settings(tmp_path / "sqlite"), instance=instance
        )

    results_name, results_url = results_schema
    overrides = tiny_postgres_settings(tmp_path / "pg", warehouse_schema[1], results_url)
    with instance_for_test(overrides=postgres_storage(dagster_pg_url)) as instance:
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        on_postgres = evaluate("r1", overrides=overrides, instance=instance)
        runs = instance.get_runs()
        per_case: dict[str, dict[str, set[str]]] = {}
        for asset in PER_CASE_ASSETS:
            records = instance.fetch_materializations(AssetKey(asset), limit=100).records
            by_run: dict[str, set[str]] = defaultdict(set)
            for record in records:
                by_run[record.run_id].add(str(record.partition_key))
            assert len(records) == len(CASES), f"{asset}: one materialization per case"
            per_case[asset] = by_run

    assert comparable_summary(on_postgres) == comparable_summary(embedded)
    assert [c.case_id for c in on_postgres.cases] == CASES
    assert on_postgres.cases_passed == len(CASES)
    assert on_postgres.verdict_counts["supported"] >= len(CASES)

    assert len(runs) == 3  # golden cases, the case batch, the run-level assets
    for asset, by_run in per_case.items():
        assert list(by_run.values()) == [{f"{c}|r1" for c in CASES}], asset

    # the same events, read with plain SQL from the server rather than through Dagster
    engine = sa.create_engine(dagster_pg_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT asset_key, count(*) FROM event_logs "
                    "WHERE dagster_event_type = 'ASSET_MATERIALIZATION' GROUP BY asset_key"
                )
            ).all()
    finally:
        engine.dispose()
    counts = {AssetKey.from_db_string(key).to_user_string(): n for key, n in rows}
    assert counts == {
        "golden_cases": len(CASES),
        **{a: len(CASES) for a in PER_CASE_ASSETS},
        "eval_run": 1,
        "eval_report": 1,
    }

    # with DAGSTER_EVENT_BATCH_SIZE set, each multi-partition step's materializations were written
    # as batches of at most that size
    materialized: dict[str, list[int]] = defaultdict(list)
    for types, assets in batches:
        if types == DagsterEventType.ASSET_MATERIALIZATION.value:
            assert len(set(assets)) == 1
            materialized[assets[0]].append(len(assets))
    assert materialized == {a: [3, 2] for a in ("golden_cases", *PER_CASE_ASSETS)}

    # the results history is in the PostgreSQL results schema
    store = ResultsStore(results_url)
    assert store.engine.dialect.name == "postgresql"
    with store.engine.connect() as conn:
        table_schemas = (
            conn.execute(
                sa.text("SELECT table_schema FROM information_schema.tables WHERE table_name = :t"),
                {"t": "records"},
            )
            .scalars()
            .all()
        )
        history = dict(
            conn.execute(sa.text("SELECT asset, count(*) FROM records GROUP BY asset")).all()
        )
    assert results_name in table_schemas
    assert history == {
        "golden_cases": len(CASES),
        **{a: len(CASES) for a in PER_CASE_ASSETS},
        "eval_run": 1,
        "eval_report": 1,
    }
    assert store.history("judge_scores", "r1", "TC_003")[0]["case_id"] == "TC_003"
