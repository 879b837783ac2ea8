"""Every use of Dagster's private API, in one place: re-check this module on a Dagster upgrade.

The runner makes Dagster fast inside one process (``inprocess``: a run prepared ahead and
executed without keeping its events; ``sqlite_storage``: batched asset-event writes) and launches
runs out of process (``distributed``). Dagster offers no public API for those, so they import
the names below from here and nowhere else. ``pyproject.toml`` allows Dagster's patch releases
of ``WRITTEN_FOR``; ``check_dagster_version`` names the mismatch when another series is installed.
"""

from __future__ import annotations

import dagster
from dagster._config.config_schema import UserConfigSchema
from dagster._core.definitions.data_version import DATA_VERSION_TAG as DAGSTER_DATA_VERSION_TAG
from dagster._core.definitions.job_base import InMemoryJob
from dagster._core.definitions.reconstruct import ReconstructableJob
from dagster._core.errors import DagsterInvariantViolationError
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

WRITTEN_FOR = (1, 13)  # the minor series whose private API this module was checked against
CHECKED_PATCHES = ("1.13.27",)  # patch releases the whole suite passed on

__all__ = [
    "INDEX_SHARD_NAME",
    "ConfigurableClassData",
    "DagsterInvariantViolationError",
    "DagsterRun",
    "EventLogEntry",
    "ExecuteRunWithPlanIterable",
    "ExecutionResult",
    "InMemoryJob",
    "NoOpComputeLogManager",
    "PlanOrchestrationContextManager",
    "ReconstructableJob",
    "SqlEventLogStorageMetadata",
    "SqlEventLogStorageTable",
    "SqliteEventLogStorage",
    "UserConfigSchema",
    "create_execution_plan",
    "get_alembic_config",
    "job_execution_iterator",
    "merge_run_tags",
    "orchestration_context_event_generator",
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
