"""SQLite event log storage that writes a multi-partition output's asset events in one go.

A step that materializes N partitions emits N ASSET_MATERIALIZATION events (and, on SQLite, the
run emits N ASSET_MATERIALIZATION_PLANNED events per asset). Dagster's SQLite storage commits
each one separately on the run shard and again on the index shard, with a fresh engine and an
fsync'd checkpoint per connection: tens of milliseconds per partition. With
``DAGSTER_EVENT_BATCH_SIZE`` set, Dagster hands such events over as one batch; this storage then
writes them with one transaction per shard, as dagster-postgres does, leaving the same rows.

A batched step also reports one check evaluation per partition, which Dagster stores one at a
time in three transactions (the run shard, the index shard, the check's execution row): about
14 ms each, nearly all of what each case's ``case_passed`` check costs. A run's check evaluations
wait here until the run's next event (the step's own success or failure always follows them),
the end of a batch, ``PENDING_MAX`` of them, or ``dispose``, and are then written through
Dagster's own code in one transaction per shard. Until then, readers do not see them.

Use it from dagster.yaml::

    event_log_storage:
      module: eval_pipeline.runner.sqlite_storage
      class: BatchingSqliteEventLogStorage
"""

import itertools
import os
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from dagster import DagsterEventType, Field, StringSource
from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError
from sqlalchemy.pool import NullPool, QueuePool

from eval_pipeline.pipeline.tags import enable_event_batching
from eval_pipeline.runner.internals import (
    INDEX_SHARD_NAME,
    ConfigurableClassData,
    DagsterInvariantViolationError,
    EventLogEntry,
    SqlEventLogStorageMetadata,
    SqlEventLogStorageTable,
    SqliteEventLogStorage,
    UserConfigSchema,
    get_alembic_config,
    sqlite_event_log,
)

BUSY_TIMEOUT_S = 30
PENDING_MAX = 1000  # check evaluations held per run at most
ENGINE_CACHE_SIZE = 32  # a webserver reads many run shards; engines of idle ones are dropped

# Asset events whose only side effects are the event row, its mirror in the index shard, the
# indexed tags and the asset_keys row. Failures and check events keep Dagster's own path.
BATCHED_EVENT_TYPES = frozenset(
    {
        DagsterEventType.ASSET_MATERIALIZATION,
        DagsterEventType.ASSET_OBSERVATION,
        DagsterEventType.ASSET_MATERIALIZATION_PLANNED,
    }
)


def default_base_dir() -> str:
    """Where Dagster's default SQLite storage keeps run shards: existing history stays visible."""
    home = os.environ.get("DAGSTER_HOME")
    if not home:
        raise ValueError("BatchingSqliteEventLogStorage needs base_dir or DAGSTER_HOME")
    return os.path.join(home, "history", "runs")


@cache
def _migrations() -> ScriptDirectory:
    """Dagster's event log migration scripts, parsed once per process."""
    return ScriptDirectory.from_config(get_alembic_config(sqlite_event_log.__file__))


def _commit_without_fsync(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    """``synchronous=NORMAL``, SQLite's advice for WAL databases: a commit no longer waits for an
    fsync of the WAL (the checkpoint that closes a run shard's connection still syncs). Each of
    a run's hundred-odd events is a commit; on a disk other processes keep busy, their fsyncs
    were most of a one-case run's event writes. A power loss can undo the last commits, never
    corrupt the database; a crash of this process loses nothing."""
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


def _batchable(entry: EventLogEntry) -> bool:
    dagster_event = entry.dagster_event
    return bool(
        dagster_event
        and dagster_event.event_type in BATCHED_EVENT_TYPES
        and dagster_event.asset_key is not None
    )


def _deferred(entry: EventLogEntry) -> bool:
    """A run's check evaluation: nothing else in the run reads it before the step ends."""
    dagster_event = entry.dagster_event
    return bool(
        entry.run_id
        and dagster_event
        and dagster_event.event_type == DagsterEventType.ASSET_CHECK_EVALUATION
    )


def _last_writers(events: Sequence[EventLogEntry]) -> list[int]:
    """Indexes of the events whose asset_keys update survives a one-by-one replay.

    Each event type writes a fixed set of columns, so replaying the last event of each
    (asset, type) pair in batch order leaves every column as the full replay would.
    """
    last: dict[tuple[str, DagsterEventType], int] = {}
    for index, entry in enumerate(events):
        dagster_event = entry.get_dagster_event()
        key = (str(dagster_event.asset_key), dagster_event.event_type)
        last[key] = index
    return sorted(last.values())


class BatchingSqliteEventLogStorage(SqliteEventLogStorage):
    """Dagster's run-sharded SQLite event log, same files, with batched asset event writes."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines: dict[str, Engine] = {}
        self._pending: defaultdict[str, list[EventLogEntry]] = defaultdict(list)
        self._pending_lock = threading.Lock()
        self._shared: dict[str, Connection] = {}  # shard -> the open transaction of a flush
        self._tables: set[str] = set()  # of the index shard, known to exist
        super().__init__(base_dir, inst_data=inst_data)
        self._db_lock = threading.RLock()  # a flush holds it while Dagster's code reconnects
        enable_event_batching()

    @classmethod
    def config_type(cls) -> UserConfigSchema:
        return {"base_dir": Field(StringSource, is_required=False)}

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData | None, config_value: Mapping[str, Any]
    ) -> "BatchingSqliteEventLogStorage":
        base_dir = config_value.get("base_dir") or default_base_dir()
        return cls(base_dir, inst_data=inst_data)

    def _engine(self, shard: str) -> Engine:
        """A cached engine per recently used shard, instead of a new one per connection.

        A run shard's NullPool still closes every connection, and closing checkpoints the WAL
        into the ``.db`` file, which is what the live log watcher of ``dagster dev`` listens to.
        The index shard, which no watcher follows, keeps its connections open.
        """
        engine = self._engines.pop(shard, None)
        if engine is None:
            if len(self._engines) >= ENGINE_CACHE_SIZE:
                self._engines.pop(next(iter(self._engines))).dispose()
            engine = create_engine(
                self.conn_string_for_shard(shard),
                poolclass=QueuePool if shard == INDEX_SHARD_NAME else NullPool,
                connect_args={"timeout": BUSY_TIMEOUT_S},
            )
            event.listen(engine, "connect", _commit_without_fsync)
        self._engines[shard] = engine  # most recently used last
        return engine

    def _initdb(self, engine: Engine, for_index_shard: bool = False) -> None:
        """Create a missing shard as Dagster does (its tables, WAL, stamped at the head revision).

        Dagster parses its migration scripts twice for every new shard (the index of a new
        instance too), and once more to check each existing one: about 45 ms per run, for the
        runs a wave's calls wait on and the one after an evaluation's last answer.
        A shard another process is creating at the same moment, and an index from before Dagster
        stamped revisions (it has events but no revision), are left to Dagster's own code.
        """
        try:
            with engine.connect() as conn:
                migration = MigrationContext.configure(conn)
                if migration.get_current_revision() is not None:
                    return
                if not (for_index_shard and inspect(conn).has_table("event_logs")):
                    conn.execute(text("PRAGMA journal_mode=WAL;"))  # first: the DDL is cheaper
                    SqlEventLogStorageMetadata.create_all(conn)
                    migration.stamp(_migrations(), "head")
                    conn.commit()
                    return
        except (DatabaseError, sqlite3.DatabaseError):
            pass
        super()._initdb(engine, for_index_shard=for_index_shard)

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            if shard in self._shared:
                yield self._shared[shard]
                return
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def has_table(self, table_name: str) -> bool:
        """Whether the index shard has the table; one found is remembered (migrations only add
        tables). Dagster asks with a new engine and connection every time, and asks for every
        check evaluation it stores: 0.5 s of CPU per 500 cases."""
        if table_name not in self._tables and super().has_table(table_name):
            self._tables.add(table_name)
        return table_name in self._tables

    def store_event(self, event: EventLogEntry) -> None:
        if _deferred(event):
            with self._pending_lock:
                pending = self._pending[event.run_id]
                pending.append(event)
                full = len(pending) >= PENDING_MAX
            if full:
                self._flush(event.run_id)
            return
        self._flush(event.run_id)
        super().store_event(event)

    def _flush(self, run_id: str) -> None:
        """Write the run's waiting check evaluations, each as Dagster would, in one transaction
        on the run shard and one on the index shard."""
        with self._pending_lock:
            events = self._pending.pop(run_id, None)
        if not events:
            return
        with self._db_lock, self._connect(run_id) as run, self._connect(INDEX_SHARD_NAME) as index:
            self._shared = {run_id: run, INDEX_SHARD_NAME: index}
            try:
                for event in events:
                    super().store_event(event)
            finally:
                self._shared = {}

    def store_event_batch(self, events: Sequence[EventLogEntry]) -> None:
        """Stored whole when it returns, check evaluations included."""
        run_ids = {entry.run_id for entry in events}
        for run_id in run_ids:
            self._flush(run_id)
        for batchable, group in itertools.groupby(events, key=_batchable):
            chunk = list(group)
            if batchable and len(chunk) > 1:
                self._store_asset_events(chunk)
            else:
                super().store_event_batch(chunk)
        for run_id in run_ids:
            self._flush(run_id)

    def _store_asset_events(self, events: Sequence[EventLogEntry]) -> None:
        rows = [self._event_to_row(entry) for entry in events]
        rows_by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            rows_by_run[row["run_id"]].append(row)
        for run_id, run_rows in rows_by_run.items():
            with self.run_connection(run_id) as conn:
                conn.execute(SqlEventLogStorageTable.insert(), run_rows)

        with self.index_transaction() as conn:
            result = conn.execute(
                SqlEventLogStorageTable.insert().returning(
                    SqlEventLogStorageTable.c.id, sort_by_parameter_order=True
                ),
                rows,
            )
            event_ids = list(result.scalars())
            if len(event_ids) != len(events) or None in event_ids:
                raise DagsterInvariantViolationError("Cannot store asset events without ids.")
            self._store_asset_event_tags(conn, events, event_ids)
            for index in _last_writers(events):
                self._store_asset_event(conn, events[index], event_ids[index])

    def dispose(self) -> None:
        for run_id in list(self._pending):
            self._flush(run_id)
        super().dispose()
        for engine in self._engines.values():
            engine.dispose()
        self._engines.clear()
