"""Every use of Dagster's private API, in one place: re-check this module on a Dagster upgrade.

The runner makes Dagster fast inside one process — a run prepared ahead and executed without
keeping its events (below), batched asset-event writes (``sqlite_storage``, which subclasses the
names re-exported here) — and launches runs out of process (``distributed``). Dagster offers no
public API for those. ``pyproject.toml`` allows Dagster's patch releases of ``WRITTEN_FOR``;
``check_dagster_version`` names the mismatch when another series is installed.

``materialize`` (``execute_in_process``) keeps every event of the run and a copy of every step
output until the run ends, for its result object. For a batch of 10,000 cases that is four whole
batches and some 80,000 events, over a gigabyte; evaluations read their results from the results
store instead, so ``prepare_materialization`` runs the same in-process execution and lets both go.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import dagster
from dagster import (
    AssetKey,
    AssetSelection,
    DagsterInstance,
    Definitions,
    define_asset_job,
    in_process_executor,
)
from dagster._config.config_schema import UserConfigSchema
from dagster._core.definitions.data_version import DATA_VERSION_TAG as DAGSTER_DATA_VERSION_TAG
from dagster._core.definitions.job_base import InMemoryJob
from dagster._core.definitions.reconstruct import ReconstructableJob
from dagster._core.errors import DagsterInvalidConfigError, DagsterInvariantViolationError
from dagster._core.events.log import EventLogEntry
from dagster._core.execution.api import (
    ExecuteRunWithPlanIterable,
    create_execution_plan,
    job_execution_iterator,
)
from dagster._core.execution.context_creation_job import (
    PlanOrchestrationContextManager,
    orchestration_context_event_generator,
)
from dagster._core.execution.execute_in_process import merge_run_tags
from dagster._core.execution.execution_result import ExecutionResult
from dagster._core.instance.config import dagster_instance_config
from dagster._core.storage.dagster_run import DagsterRun
from dagster._core.storage.event_log.schema import (
    SqlEventLogStorageMetadata,
    SqlEventLogStorageTable,
)
from dagster._core.storage.event_log.sqlite import sqlite_event_log
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SqliteEventLogStorage,
)
from dagster._core.storage.noop_compute_log_manager import NoOpComputeLogManager
from dagster._core.storage.sql import get_alembic_config
from dagster._core.storage.tags import (
    ASSET_PARTITION_RANGE_END_TAG,
    ASSET_PARTITION_RANGE_START_TAG,
    PARTITION_NAME_TAG,
)
from dagster._serdes import ConfigurableClassData

from eval_pipeline.pipeline import tags
from eval_pipeline.pipeline.case_checks import REPORTED_CHECKS

WRITTEN_FOR = (1, 13)  # the minor series whose private API this module was checked against
CHECKED_PATCHES = ("1.13.27",)  # patch releases the whole suite passed on

__all__ = [
    "INDEX_SHARD_NAME",
    "ConfigurableClassData",
    "DagsterInvariantViolationError",
    "EventLogEntry",
    "ExecutionResult",
    "PreparedRun",
    "ReconstructableJob",
    "SqlEventLogStorageMetadata",
    "SqlEventLogStorageTable",
    "SqliteEventLogStorage",
    "UnsupportedDagster",
    "UserConfigSchema",
    "check_dagster_version",
    "fixed_partitions",
    "get_alembic_config",
    "prepare_materialization",
    "runs_in_threads",
    "sqlite_event_log",
]


class UnsupportedDagster(RuntimeError):
    """The installed Dagster is not of the series this module was written for."""


def check_dagster_version(version: str = dagster.__version__) -> None:
    """Raise ``UnsupportedDagster`` unless ``version`` is a release of ``WRITTEN_FOR``, and check
    that the run tags the code location writes as literals are still Dagster's own."""
    series = tuple(int(part) for part in version.split(".")[:2])
    if series != WRITTEN_FOR:
        raise UnsupportedDagster(
            f"eval_pipeline.runner.internals was written for Dagster "
            f"{'.'.join(map(str, WRITTEN_FOR))}.x (checked on {', '.join(CHECKED_PATCHES)}), "
            f"but Dagster {version} is installed: re-check each private name it imports, "
            "then update WRITTEN_FOR and pyproject.toml"
        )
    literals = {
        tags.RANGE_START_TAG: ASSET_PARTITION_RANGE_START_TAG,
        tags.RANGE_END_TAG: ASSET_PARTITION_RANGE_END_TAG,
        tags.SINGLE_PARTITION_TAG: PARTITION_NAME_TAG,
        tags.DATA_VERSION_TAG: DAGSTER_DATA_VERSION_TAG,
    }
    changed = {ours: theirs for ours, theirs in literals.items() if ours != theirs}
    if changed:
        raise UnsupportedDagster(
            f"Dagster {version} renamed run tags the pipeline writes: {changed}"
        )


EPHEMERAL_JOB = "__eval_materialize__"


@dataclass(frozen=True)
class PreparedRun:
    """A run created, its planned materializations logged, and not yet executed."""

    instance: DagsterInstance
    run: DagsterRun
    events: ExecuteRunWithPlanIterable

    def execute(self) -> None:
        """Execute the run in this thread; a failing step raises its error."""
        deque(self.events, maxlen=0)

    def discard(self) -> None:
        """Delete the run, which must never have started."""
        self.instance.delete_run(self.run.run_id)


def prepare_materialization(
    defs: Definitions,
    selection: Sequence[str],
    instance: DagsterInstance,
    *,
    run_config: Mapping[str, Any],
    tags: Mapping[str, str] | None = None,
    partition_key: str | None = None,
) -> PreparedRun:
    """The run that materializes ``selection`` of ``defs`` in this process, created now; the
    checks the steps report themselves are not planned (``pipeline.case_checks``)."""
    assets = [AssetKey(a) for a in selection]
    job_def = Definitions(
        assets=defs.assets,
        asset_checks=defs.asset_checks,
        resources=defs.resources,
        jobs=[
            define_asset_job(
                EPHEMERAL_JOB, selection=AssetSelection.assets(*assets) - REPORTED_CHECKS
            )
        ],
        executor=in_process_executor,
    ).resolve_job_def(EPHEMERAL_JOB)
    job = InMemoryJob(job_def)
    run_tags = merge_run_tags(
        job_def=job_def,
        partition_key=partition_key,
        tags=tags,
        asset_selection=assets,
        instance=instance,
        run_config=run_config,
    )
    plan = create_execution_plan(
        job,
        run_config=run_config,
        instance_ref=instance.get_ref() if instance.is_persistent else None,
        tags=run_tags,
    )
    run = instance.create_run_for_job(
        job_def=job_def,
        run_config=run_config,
        tags=run_tags,
        asset_selection=frozenset(assets),
        execution_plan=plan,
    )
    events = ExecuteRunWithPlanIterable(
        execution_plan=plan,
        iterator=job_execution_iterator,
        execution_context_manager=PlanOrchestrationContextManager(
            context_event_generator=orchestration_context_event_generator,
            job=job,
            execution_plan=plan,
            dagster_run=run,
            instance=instance,
            run_config=run_config,
            executor_defs=None,
            output_capture=None,
            raise_on_error=True,
        ),
    )
    return PreparedRun(instance, run, events)


@contextmanager
def fixed_partitions(instance: DagsterInstance) -> Iterator[None]:
    """Answer dynamic partition lookups from one read of each partitions definition.

    Dagster resolves a partition range again for every input, output and data version of every
    step, each time reading all keys and checking both ends in the instance: seconds of queries
    for thousands of cases. Keys are only added before an evaluation's runs and removed after
    them, so one read per definition serves them all.
    """
    read = instance.get_dynamic_partitions

    @cache
    def get_dynamic_partitions(partitions_def_name: str) -> Sequence[str]:
        return tuple(read(partitions_def_name))

    @cache
    def key_set(partitions_def_name: str) -> frozenset[str]:
        return frozenset(get_dynamic_partitions(partitions_def_name))

    def has_dynamic_partition(partitions_def_name: str, partition_key: str) -> bool:
        return partition_key in key_set(partitions_def_name)

    with _replaced(
        instance,
        get_dynamic_partitions=get_dynamic_partitions,
        has_dynamic_partition=has_dynamic_partition,
    ):
        yield


@contextmanager
def runs_in_threads(instance: DagsterInstance) -> Iterator[None]:
    """Let several runs execute at once in threads of this process.

    Dagster builds each run's log handlers with ``logging.config.dictConfig``, which closes every
    handler of the process under the logging lock: two runs deadlock as soon as one logs while
    the other starts. The handlers are built once here instead. And a run captures stdout and
    stderr by redirecting the process's file descriptors, which runs sharing the process would
    undo for each other (and could not tell apart); their steps' output stays on the console,
    while everything they log through ``context.log`` is in the event log as usual.
    """
    handlers = instance.get_yaml_python_handlers()
    kept = instance.compute_log_manager
    instance._compute_log_manager = NoOpComputeLogManager()
    try:
        with _replaced(instance, get_yaml_python_handlers=lambda: handlers):
            yield
    finally:
        instance._compute_log_manager = kept


@contextmanager
def _replaced(instance: DagsterInstance, **methods: Callable[..., Any]) -> Iterator[None]:
    for name, method in methods.items():
        setattr(instance, name, method)
    try:
        yield
    finally:
        for name in methods:
            delattr(instance, name)


def instance_config_problem(home: str) -> str | None:
    """Why Dagster would refuse ``home``'s dagster.yaml, in one line; read and validated as
    ``DagsterInstance.get`` does, without opening any storage."""
    try:
        dagster_instance_config(home)
    except DagsterInvalidConfigError as exc:
        first = exc.errors[0].message if exc.errors else str(exc)
        return first.splitlines()[0].split(". Expected:")[0][:300]
    except Exception as exc:  # unreadable file, invalid YAML
        lines = str(exc).strip().splitlines()
        return " ".join(line.strip() for line in lines[:3])[:300] or type(exc).__name__
    return None
