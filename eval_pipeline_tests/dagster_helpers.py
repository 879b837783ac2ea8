"""A real, temporary Dagster instance with the project's event log storage (as in dagster.yaml)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dagster import DagsterInstance, instance_for_test

from eval_pipeline.runner import sqlite_storage


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
