"""BatchingSqliteEventLogStorage leaves the event log as Dagster's own SQLite storage does.

The same runs go through a default instance (one event at a time) and an instance with the
batching storage and DAGSTER_EVENT_BATCH_SIZE set; everything Dagster reads back about the assets
must be equal, storage ids included. Databases live on /dev/shm when present: the reference path
fsyncs several times per event, and these tests are about content, not speed.
"""

import os
import shutil
import sqlite3
import tempfile
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from dagster import (
    AssetCheckEvaluation,
    AssetExecutionContext,
    AssetKey,
    AssetMaterialization,
    AssetObservation,
    AssetsDefinition,
    BackfillPolicy,
    DagsterEventType,
    DagsterInstance,
    DynamicPartitionsDefinition,
    InputContext,
    IOManager,
    MultiPartitionKey,
    MultiPartitionsDefinition,
    OutputContext,
    asset,
    instance_for_test,
    materialize,
)
from dagster._core.definitions.asset_checks.asset_check_evaluation import (
    AssetCheckEvaluationPlanned,
)
from dagster._core.definitions.data_version import DATA_VERSION_TAG
from dagster._core.events import (
    AssetMaterializationPlannedData,
    AssetObservationData,
    StepMaterializationData,
)
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log.base import EventLogRecord, EventLogStorage
from dagster._core.storage.event_log.sqlite import sqlite_event_log
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.storage.tags import (
    ASSET_PARTITION_RANGE_END_TAG,
    ASSET_PARTITION_RANGE_START_TAG,
)
from dagster._utils.test.data_versions import get_stale_status_resolver

from eval_pipeline.pipeline.tags import BATCH_SIZE_ENV, enable_event_batching
from eval_pipeline.runner import sqlite_storage
from eval_pipeline.runner.sqlite_storage import BatchingSqliteEventLogStorage
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.dagster_helpers import batching_event_log, step_event

FAST_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None
RUNS_NAME, CASES_NAME = "t_runs", "t_cases"
RUNS = DynamicPartitionsDefinition(name=RUNS_NAME)
CASES = DynamicPartitionsDefinition(name=CASES_NAME)
RUN_CASE = MultiPartitionsDefinition({"run": RUNS, "case": CASES})
RUN_KEYS = ["r1", "r2"]
CASE_KEYS = [f"c{i:03d}" for i in range(100)]
UP, DOWN = AssetKey("up"), AssetKey("down")
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
SMALL_BATCH = "64"  # splits the 200-partition output into several batches


def mpk(run: str, case: str) -> MultiPartitionKey:
    return MultiPartitionKey({"run": run, "case": case})


# Partitions read back one by one (the rest is checked in bulk): the edges of every range below.
SAMPLE = [str(mpk(r, CASE_KEYS[i])) for r in RUN_KEYS for i in (0, 9, 10, 39, 40, 98, 99)]


class MemoryIOManager(IOManager):
    """Keeps a step's ``{partition key: value}``; Dagster's file IO managers refuse ranges."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], Any] = {}

    def handle_output(self, context: OutputContext, obj: Mapping[str, Any]) -> None:
        for key in context.asset_partition_keys:
            self.values[(context.asset_key.to_user_string(), key)] = obj[key]

    def load_input(self, context: InputContext) -> dict[str, Any]:
        name = context.asset_key.to_user_string()
        return {key: self.values[(name, key)] for key in context.asset_partition_keys}


def build_assets(up_code_version: str) -> list[AssetsDefinition]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backfill_policy is a beta parameter

        @asset(
            partitions_def=RUN_CASE,
            backfill_policy=BackfillPolicy.single_run(),
            code_version=up_code_version,
        )
        def up(context: AssetExecutionContext) -> dict[str, str]:
            return {key: f"{up_code_version}:{key}" for key in context.partition_keys}

        @asset(
            partitions_def=RUN_CASE, backfill_policy=BackfillPolicy.single_run(), code_version="1"
        )
        def down(context: AssetExecutionContext, up: dict[str, str]) -> dict[str, int]:
            return {key: len(up[key]) for key in context.partition_keys}

    return [up, down]


def run_range(
    instance: DagsterInstance,
    assets: list[AssetsDefinition],
    io: MemoryIOManager,
    selection: list[AssetKey],
    first: MultiPartitionKey,
    last: MultiPartitionKey,
) -> None:
    result = materialize(
        assets,
        selection=selection,
        instance=instance,
        resources={"io_manager": io},
        run_config=QUIET,
        tags={
            ASSET_PARTITION_RANGE_START_TAG: str(first),
            ASSET_PARTITION_RANGE_END_TAG: str(last),
        },
    )
    assert result.success


def play_scenario(instance: DagsterInstance) -> list[AssetsDefinition]:
    """All 200 partitions of up in one run; then up v2 and down on r1 × c000–c039 together;
    then up v3 on r1 × c000–c009, which leaves those partitions of down stale."""
    instance.add_dynamic_partitions(RUNS_NAME, RUN_KEYS)
    instance.add_dynamic_partitions(CASES_NAME, CASE_KEYS)
    io = MemoryIOManager()
    run_range(instance, build_assets("1"), io, [UP], mpk("r1", "c000"), mpk("r2", "c099"))
    run_range(instance, build_assets("2"), io, [UP, DOWN], mpk("r1", "c000"), mpk("r1", "c039"))
    latest = build_assets("3")
    run_range(instance, latest, io, [UP], mpk("r1", "c000"), mpk("r1", "c009"))
    return latest


def materialization_tags(record: EventLogRecord) -> Mapping[str, str]:
    materialization = record.asset_materialization
    assert materialization is not None
    return materialization.tags or {}


def snapshot(instance: DagsterInstance, assets: list[AssetsDefinition]) -> dict[str, Any]:
    """What Dagster reads back about each asset, with run ids replaced by their order."""
    runs = {r.run_id: f"run{i}" for i, r in enumerate(reversed(instance.get_runs()))}
    storage = instance.event_log_storage
    resolver = get_stale_status_resolver(instance, assets)
    in_progress = (
        storage.get_latest_asset_partition_materialization_attempts_without_materializations
    )
    all_keys = [str(mpk(r, c)) for r in RUN_KEYS for c in CASE_KEYS]
    state: dict[str, Any] = {"storage": type(storage).__name__}
    for key in (UP, DOWN):
        records = instance.fetch_materializations(key, limit=1000).records
        latest = instance.get_latest_materialization_event(key)
        entry = instance.get_asset_records([key])[0].asset_entry
        last = entry.last_materialization_record
        assert latest is not None and latest.dagster_event is not None and last is not None
        planned = [instance.get_latest_planned_materialization_info(key, p) for p in SAMPLE]
        state[key.to_user_string()] = {
            "materializations": [
                (r.storage_id, r.partition_key, runs[r.run_id], materialization_tags(r))
                for r in records
            ],
            "materialized": sorted(instance.get_materialized_partitions(key)),
            "latest_event": (latest.dagster_event.partition, runs[latest.run_id]),
            "asset_entry": (
                last.storage_id,
                last.partition_key,
                runs[entry.last_run_id or ""],
                entry.last_materialization_storage_id,
                entry.last_event_storage_id,
            ),
            "status": instance.get_status_by_partition(key, all_keys, RUN_CASE),
            "latest_ids": storage.get_latest_storage_id_by_partition(
                key, DagsterEventType.ASSET_MATERIALIZATION
            ),
            "latest_tags": storage.get_latest_tags_by_partition(
                key, DagsterEventType.ASSET_MATERIALIZATION, [DATA_VERSION_TAG]
            ),
            "planned": [(runs[i.run_id], i.storage_id) if i else None for i in planned],
            "in_progress": in_progress(key),
            "stale": [
                (
                    resolver.get_status(key, p),
                    [(c.key, c.category, c.reason) for c in resolver.get_stale_root_causes(key, p)],
                )
                for p in SAMPLE
            ],
        }
    return state


@pytest.fixture(autouse=True)
def unset_batch_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The storage turns batching on for its process; keep that from leaking into other tests."""
    monkeypatch.setenv(BATCH_SIZE_ENV, "0")
    monkeypatch.delenv(BATCH_SIZE_ENV)


@pytest.fixture(scope="module")
def states() -> Iterator[dict[str, dict[str, Any]]]:
    """The scenario's snapshot on each storage; module-scoped, as the reference path is slow."""
    saved = os.environ.get(BATCH_SIZE_ENV)
    out = {}
    try:
        for name, batch_size in (("default", "0"), ("batching", SMALL_BATCH)):
            os.environ[BATCH_SIZE_ENV] = batch_size
            with tempfile.TemporaryDirectory(dir=FAST_DIR) as home:
                overrides = (
                    batching_event_log(os.path.join(home, "events")) if name == "batching" else None
                )
                with instance_for_test(overrides=overrides, temp_dir=home) as instance:
                    out[name] = snapshot(instance, play_scenario(instance))
        yield out
    finally:
        if saved is None:
            os.environ.pop(BATCH_SIZE_ENV, None)
        else:
            os.environ[BATCH_SIZE_ENV] = saved


def test_scenario_ran_on_each_storage(states: dict[str, dict[str, Any]]) -> None:
    assert states["default"]["storage"] == "SqliteEventLogStorage"
    assert states["batching"]["storage"] == "BatchingSqliteEventLogStorage"
    up, down = states["batching"]["up"], states["batching"]["down"]
    assert len(up["materializations"]) == 200 + 40 + 10
    assert len(up["materialized"]) == 200 and len(down["materialized"]) == 40
    assert up["latest_event"][1] == "run2" and down["latest_event"][1] == "run1"


@pytest.mark.parametrize("asset_name", ["up", "down"])
@pytest.mark.parametrize(
    "aspect",
    [
        "materializations",
        "materialized",
        "latest_event",
        "asset_entry",
        "status",
        "latest_ids",
        "latest_tags",
        "planned",
        "in_progress",
        "stale",
    ],
)
def test_batching_reads_back_like_default(
    states: dict[str, dict[str, Any]], asset_name: str, aspect: str
) -> None:
    assert states["batching"][asset_name][aspect] == states["default"][asset_name][aspect]


def test_downstream_staleness_follows_batched_upstream(states: dict[str, dict[str, Any]]) -> None:
    """down points at up's newest event of their shared run and goes stale per partition."""
    up, down = states["batching"]["up"], states["batching"]["down"]
    newest_up = max(sid for sid, _, run, _ in up["materializations"] if run == "run1")
    pointers = {tags["dagster/input_event_pointer/up"] for *_, tags in down["materializations"]}
    assert pointers == {str(newest_up)}
    stale = dict(zip(SAMPLE, down["stale"], strict=True))
    status, causes = stale[str(mpk("r1", "c009"))]
    assert status.value == "STALE"
    assert [(c[0].partition_key, c[2]) for c in causes] == [("c009|r1", "has a new data version")]
    for fresh in (mpk("r1", "c010"), mpk("r1", "c039")):
        status, causes = stale[str(fresh)]
        assert (status.value, causes) == ("FRESH", [])


def _event(
    run_id: str, kind: DagsterEventType, key: str, partition: str, ts: float
) -> EventLogEntry:
    asset_key = AssetKey(key)
    data: Any
    if kind == DagsterEventType.ASSET_MATERIALIZATION:
        data = StepMaterializationData(
            AssetMaterialization(asset_key, partition=partition, tags={DATA_VERSION_TAG: str(ts)})
        )
    elif kind == DagsterEventType.ASSET_OBSERVATION:
        data = AssetObservationData(
            AssetObservation(asset_key, partition=partition, tags={DATA_VERSION_TAG: str(ts)})
        )
    else:
        data = AssetMaterializationPlannedData(asset_key, partition=partition)
    return step_event(run_id, kind, data, ts)


def _check_event(
    run_id: str, partition: str | None, passed: bool | None, ts: float
) -> EventLogEntry:
    """The ``ok`` check on asset ``a``: planned (``passed`` None) or evaluated."""
    if passed is None:
        kind, data = (
            DagsterEventType.ASSET_CHECK_EVALUATION_PLANNED,
            AssetCheckEvaluationPlanned(asset_key=AssetKey("a"), check_name="ok"),
        )
    else:
        kind = DagsterEventType.ASSET_CHECK_EVALUATION
        data = AssetCheckEvaluation(
            asset_key=AssetKey("a"), check_name="ok", passed=passed, partition=partition
        )
    return step_event(run_id, kind, data, ts)


def _log(run_id: str, ts: float) -> EventLogEntry:
    return EventLogEntry(error_info=None, level=20, user_message="hi", run_id=run_id, timestamp=ts)


def mixed_batch() -> list[EventLogEntry]:
    """Two runs, three asset keys, every batched type, a plain log line in the middle, and an
    asset whose materialization is followed by a planned event (both asset_keys columns move)."""
    mat, obs, plan = (
        DagsterEventType.ASSET_MATERIALIZATION,
        DagsterEventType.ASSET_OBSERVATION,
        DagsterEventType.ASSET_MATERIALIZATION_PLANNED,
    )
    events = [_event("run-a", plan, k, f"p{i}", 1000.0 + i) for k in "ab" for i in range(5)]
    events += [_event("run-a", mat, "a", f"p{i}", 1010.0 + i) for i in range(5)]
    events += [_event("run-b", mat, "b", f"p{i}", 1020.0 + i) for i in range(3)]
    events += [_log("run-a", 1030.0)]
    events += [_event("run-a", obs, "c", f"p{i}", 1040.0 + i) for i in range(4)]
    events += [_event("run-a", mat, "a", "p9", 1050.0), _event("run-a", plan, "a", "p8", 1051.0)]
    return events


def dump(base_dir: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of the tables asset events touch, in every shard (not the rows' wall-clock times)."""
    tables = {
        "asset_check_executions": "id, asset_key, check_name, partition, run_id, "
        "execution_status, evaluation_event, evaluation_event_storage_id, "
        "materialization_event_storage_id",
        "event_logs": "id, run_id, event, dagster_event_type, timestamp, step_key, asset_key, "
        "partition",
        "asset_keys": "id, asset_key, last_materialization, last_run_id, asset_details, "
        "wipe_timestamp, last_materialization_timestamp, tags, cached_status_data",
        "asset_event_tags": "*",
    }
    rows: dict[str, list[tuple[Any, ...]]] = {}
    for db in sorted(base_dir.glob("*.db")):
        with sqlite3.connect(db) as conn:
            present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            for table, columns in tables.items():
                if table in present:
                    query = f"SELECT {columns} FROM {table} ORDER BY 1"
                    rows[f"{db.stem}.{table}"] = conn.execute(query).fetchall()
    return rows


def store(storage: EventLogStorage, events: Sequence[EventLogEntry], batched: bool) -> None:
    if batched:
        storage.store_event_batch(events)
    else:
        for entry in events:
            storage.store_event(entry)


@pytest.fixture
def fast_tmp(tmp_path: Path) -> Iterator[Path]:
    if FAST_DIR is None:
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=FAST_DIR) as path:
        yield Path(path)


def test_mixed_batch_leaves_the_same_rows_as_one_by_one(fast_tmp: Path) -> None:
    events = mixed_batch()
    reference = SqliteEventLogStorage(str(fast_tmp / "default"))
    batching = BatchingSqliteEventLogStorage(str(fast_tmp / "batching"))
    try:
        store(reference, events, batched=False)
        store(batching, events, batched=True)
    finally:
        reference.dispose()
        batching.dispose()
    expected, got = dump(fast_tmp / "default"), dump(fast_tmp / "batching")
    assert len(expected["index.event_logs"]) == len(events) - 1  # the log line stays in its run
    assert len(expected["index.asset_keys"]) == 3 and len(expected["index.asset_event_tags"]) == 13
    assert got == expected


def test_check_evaluations_wait_for_the_runs_next_event_and_leave_dagsters_rows(
    fast_tmp: Path,
) -> None:
    """A batched step's per-partition evaluations are stored together when the step's next event
    comes, as Dagster stores them one by one (the planned row updated, partitions inserted)."""
    planned = [_check_event("run-a", None, None, 1000.0)]
    evaluations = [_check_event("run-a", f"p{i}", i % 3 != 0, 1001.0 + i) for i in range(6)]
    evaluations.append(_check_event("run-a", None, True, 1010.0))
    then = [_log("run-a", 1020.0)]
    reference = SqliteEventLogStorage(str(fast_tmp / "default"))
    batching = BatchingSqliteEventLogStorage(str(fast_tmp / "batching"))
    try:
        store(reference, planned + evaluations + then, batched=False)
        store(batching, planned + evaluations, batched=False)
        waiting = [r.event_log_entry for r in batching.get_records_for_run("run-a").records]
        batching.store_event(then[0])
    finally:
        reference.dispose()
        batching.dispose()
    assert [e.timestamp for e in waiting] == [1000.0], "evaluations wait for the next event"
    expected, got = dump(fast_tmp / "default"), dump(fast_tmp / "batching")
    assert len(expected["index.asset_check_executions"]) == 7  # 6 partitions + the planned row
    assert got == expected


def test_waiting_check_evaluations_are_stored_on_dispose_and_when_many(
    fast_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_storage, "PENDING_MAX", 3)
    storage = BatchingSqliteEventLogStorage(str(fast_tmp))
    try:
        for i in range(4):
            storage.store_event(_check_event("run-a", f"p{i}", True, 1000.0 + i))
        stored = len(storage.get_records_for_run("run-a").records)
    finally:
        storage.dispose()
    with sqlite3.connect(fast_tmp / "run-a.db") as conn:
        (after,) = conn.execute("SELECT COUNT(*) FROM event_logs").fetchone()
    assert (stored, after) == (3, 4)


def test_a_batch_with_check_evaluations_is_stored_whole(fast_tmp: Path) -> None:
    storage = BatchingSqliteEventLogStorage(str(fast_tmp))
    try:
        storage.store_event_batch(
            [_check_event("run-a", f"p{i}", True, 1000.0 + i) for i in range(3)]
        )
        stored = len(storage.get_records_for_run("run-a").records)
    finally:
        storage.dispose()
    assert stored == 3


def test_the_index_is_asked_for_a_table_once_not_per_check_evaluation(
    fast_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dagster opens a new engine to look for the checks table before storing each evaluation."""
    asked: list[str] = []
    dagsters = SqliteEventLogStorage.has_table

    def counted(self: SqliteEventLogStorage, table_name: str) -> bool:
        asked.append(table_name)
        return dagsters(self, table_name)

    monkeypatch.setattr(SqliteEventLogStorage, "has_table", counted)
    storage = BatchingSqliteEventLogStorage(str(fast_tmp))
    try:
        storage.store_event_batch(
            [_check_event("run-a", f"p{i}", True, 1000.0 + i) for i in range(5)]
        )
        storage.store_event_batch(
            [_check_event("run-b", f"p{i}", False, 2000.0 + i) for i in range(5)]
        )
        stored = [len(storage.get_records_for_run(r).records) for r in ("run-a", "run-b")]
    finally:
        storage.dispose()
    assert stored == [5, 5]
    assert asked.count("asset_check_executions") == 1


def test_live_watcher_sees_batched_events(tmp_path: Path) -> None:
    """``dagster dev`` tails a run through a file watcher on the run shard."""
    storage = BatchingSqliteEventLogStorage(str(tmp_path))
    events = [e for e in mixed_batch() if e.run_id == "run-a"]
    seen: list[EventLogEntry] = []
    all_seen = threading.Event()

    def on_event(entry: EventLogEntry, _cursor: str) -> None:
        seen.append(entry)
        if len(seen) == len(events):
            all_seen.set()

    try:
        storage.store_event(events[0])
        storage.watch("run-a", None, on_event)
        storage.store_event_batch(events[1:])
        assert all_seen.wait(timeout=30), f"watcher saw {len(seen)} of {len(events)} events"
    finally:
        storage.end_watch("run-a", on_event)
        storage.dispose()
    assert [e.timestamp for e in seen] == [e.timestamp for e in events]


def test_project_dagster_yaml_selects_batching_storage_under_dagster_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(PROJECT_ROOT / "dagster.yaml", tmp_path / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    with DagsterInstance.from_config(str(tmp_path)) as instance:
        storage = instance.event_log_storage
        assert isinstance(storage, BatchingSqliteEventLogStorage)
        assert Path(storage.path_for_shard("index")).parent == tmp_path / "history" / "runs"


def test_enable_event_batching_keeps_an_explicit_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    enable_event_batching()
    assert os.environ[BATCH_SIZE_ENV] == "1000"
    monkeypatch.setenv(BATCH_SIZE_ENV, "0")
    enable_event_batching()
    assert os.environ[BATCH_SIZE_ENV] == "0"


def test_engines_of_idle_shards_are_dropped(
    fast_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_storage, "ENGINE_CACHE_SIZE", 2)
    storage = BatchingSqliteEventLogStorage(str(fast_tmp))
    run_ids = [f"run-{i}" for i in range(4)]
    try:
        for i, run_id in enumerate(run_ids):
            storage.store_event(_log(run_id, 2000.0 + i))
        readback = [storage.get_records_for_run(run_id).records for run_id in run_ids]
        assert len(storage._engines) == 2
    finally:
        storage.dispose()
    assert [[r.event_log_entry.timestamp for r in records] for records in readback] == [
        [2000.0 + i] for i in range(4)
    ]


def _shard_layout(path: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], str]:
    with sqlite3.connect(path) as conn:
        schema = sorted(conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall())
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    return schema, revision, mode


@pytest.mark.parametrize("shard", ["run-a", "index"])
def test_a_new_shard_is_the_one_dagster_makes(fast_tmp: Path, shard: str) -> None:
    """Same tables, indexes, alembic revision and WAL mode, from scripts parsed once: a run's
    shard, and the index a new instance starts with."""
    reference = SqliteEventLogStorage(str(fast_tmp / "default"))
    batching = BatchingSqliteEventLogStorage(str(fast_tmp / "batching"))
    try:
        for storage in (reference, batching):
            storage.store_event(_log("run-a", 1000.0))
        layouts = [_shard_layout(Path(s.path_for_shard(shard))) for s in (reference, batching)]
    finally:
        reference.dispose()
        batching.dispose()
    assert layouts[1] == layouts[0]
    assert layouts[1][1] and layouts[1][2] == "wal"


def test_an_index_from_before_revisions_were_stamped_is_left_to_dagster(fast_tmp: Path) -> None:
    """Dagster stamps such an index (events, no revision) with the last revision it knew."""
    with sqlite3.connect(fast_tmp / "index.db") as conn:
        conn.execute("CREATE TABLE event_logs (id INTEGER PRIMARY KEY)")
    storage = BatchingSqliteEventLogStorage(str(fast_tmp))
    try:
        engine = storage._engine(sqlite_storage.INDEX_SHARD_NAME)
        storage._initdb(engine, for_index_shard=True)
    finally:
        storage.dispose()
    with sqlite3.connect(fast_tmp / "index.db") as conn:
        (revision,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert revision == sqlite_event_log.LAST_KNOWN_STAMPED_SQLITE_ALEMBIC_REVISION


def test_commits_wait_for_no_fsync(fast_tmp: Path) -> None:
    """``synchronous=NORMAL`` on every shard, the run's and the index."""
    storage = BatchingSqliteEventLogStorage(str(fast_tmp))
    try:
        with storage.run_connection("run-a") as run, storage.index_connection() as index:
            modes = [conn.exec_driver_sql("PRAGMA synchronous").scalar() for conn in (run, index)]
    finally:
        storage.dispose()
    assert modes == [1, 1]  # NORMAL; SQLite's default is FULL (2)


def test_a_shard_dagster_made_is_used_as_it_is(fast_tmp: Path) -> None:
    reference = SqliteEventLogStorage(str(fast_tmp))
    reference.store_event(_log("run-a", 1000.0))
    reference.dispose()
    before = _shard_layout(fast_tmp / "run-a.db")
    batching = BatchingSqliteEventLogStorage(str(fast_tmp))
    try:
        batching.store_event(_log("run-a", 1001.0))
        stamps = [
            r.event_log_entry.timestamp for r in batching.get_records_for_run("run-a").records
        ]
    finally:
        batching.dispose()
    assert stamps == [1000.0, 1001.0]
    assert _shard_layout(fast_tmp / "run-a.db") == before


def test_a_shard_created_concurrently_is_left_to_dagsters_retries(
    fast_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process creating the same shard shows as "table already exists"."""
    storage = BatchingSqliteEventLogStorage(str(fast_tmp))
    create_all = sqlite_storage.SqlEventLogStorageMetadata.create_all
    raced: list[bool] = []

    def racing_create_all(bind: Any, **kwargs: Any) -> None:
        create_all(bind, **kwargs)
        if not raced:
            raced.append(True)
            raise sqlite3.OperationalError("table event_logs already exists")

    monkeypatch.setattr(sqlite_storage.SqlEventLogStorageMetadata, "create_all", racing_create_all)
    try:
        storage.store_event(_log("run-a", 1000.0))
        records = storage.get_records_for_run("run-a").records
    finally:
        storage.dispose()
    assert raced and [r.event_log_entry.timestamp for r in records] == [1000.0]
    assert _shard_layout(fast_tmp / "run-a.db")[1], "stamped by Dagster's own path"


def test_writes_through_the_kept_index_connection_are_seen_by_another_process(
    fast_tmp: Path,
) -> None:
    """The index shard keeps its connections open; the webserver's storage must still see
    every committed asset event, read through a storage of its own."""
    writer = BatchingSqliteEventLogStorage(str(fast_tmp))
    reader = BatchingSqliteEventLogStorage(str(fast_tmp))
    try:
        for entry in mixed_batch():
            writer.store_event(entry)
        latest = {
            key: reader.get_asset_records([AssetKey(key)])[0].asset_entry.last_materialization
            for key in ("a", "b")
        }
        observed = reader.fetch_observations(AssetKey("c"), limit=10).records
    finally:
        writer.dispose()
        reader.dispose()
    assert latest["a"] is not None and latest["a"].timestamp == 1050.0
    assert latest["b"] is not None and latest["b"].timestamp == 1022.0
    assert sorted(r.timestamp for r in observed) == [1040.0, 1041.0, 1042.0, 1043.0]
