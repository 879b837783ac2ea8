"""A real, temporary Dagster instance with the project's event log storage (as in dagster.yaml)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from dagster import DagsterInstance, instance_for_test

from eval_pipeline.runner.sqlite_storage import test_instance_overrides


@contextmanager
def eval_instance() -> Iterator[DagsterInstance]:
    with (
        tempfile.TemporaryDirectory() as events,
        instance_for_test(overrides=test_instance_overrides(events)) as instance,
    ):
        yield instance
