"""A real, temporary Dagster instance with the project's event log storage (as in dagster.yaml)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dagster import DagsterEvent, DagsterEventType, DagsterInstance, instance_for_test

from eval_pipeline.runner import sqlite_storage
from eval_pipeline.runner.internals import EventLogEntry


def batching_event_log(base_dir: str) -> dict[str, Any]:
    """``instance_for_test(overrides=...)`` that puts the event log in the project's storage."""
    storage = sqlite_storage.BatchingSqliteEventLogStorage
    return {
        "event_log_storage": {
            "module": sqlite_storage.__name__,
            "class": storage.__name__,
            "config": {"base_dir": base_dir},
        }
    }


@contextmanager
def eval_instance() -> Iterator[DagsterInstance]:
    with (
        tempfile.TemporaryDirectory() as events,
        instance_for_test(overrides=batching_event_log(events)) as instance,
    ):
        yield instance


def step_event(run_id: str, kind: DagsterEventType, data: Any, ts: float) -> EventLogEntry:
    """An event of step ``step`` of job ``job``, as a run would store it."""
    event = DagsterEvent(kind.value, "job", event_specific_data=data, step_key="step")
    return EventLogEntry(
        error_info=None,
        level=10,
        user_message="",
        run_id=run_id,
        timestamp=ts,
        step_key="step",
        job_name="job",
        dagster_event=event,
    )
