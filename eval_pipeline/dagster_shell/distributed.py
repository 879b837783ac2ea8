"""The per-case batch on Celery workers: one job factory that the launcher and every worker import.

A Celery worker rebuilds the job by importing this module and calling ``celery_cases_job``, so the
job depends on environment variables only: the ``EVAL_*`` settings, and the broker, result backend
and queue below. The launching process and the workers must see the same values, the same
PostgreSQL Dagster instance (``DAGSTER_HOME``) and the same results store.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from dagster import (
    DagsterInstance,
    JobDefinition,
    MultiPartitionKey,
    execute_job,
    reconstructable,
)
from dagster._core.execution.execution_result import ExecutionResult
from dagster._core.storage.tags import (
    ASSET_PARTITION_RANGE_END_TAG,
    ASSET_PARTITION_RANGE_START_TAG,
)
from dagster_celery import celery_executor

from eval_pipeline.dagster_shell.automation import cases_job
from eval_pipeline.definitions import build_definitions

BROKER_ENV = "EVAL_CELERY_BROKER"
BACKEND_ENV = "EVAL_CELERY_BACKEND"
QUEUE_ENV = "EVAL_CELERY_QUEUE"
DEFAULT_BROKER = "pyamqp://guest@localhost:5672//"
DEFAULT_BACKEND = "rpc://"
DEFAULT_QUEUE = "dagster"
# The launcher polls each step's result every second; an unread result older than this is garbage,
# and so is the rpc:// reply queue of a launcher that has gone away.
RESULT_EXPIRES_S = 3600


def celery_config(environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The ``celery_executor`` config; workers get the same block through ``-y``."""
    return {
        "broker": environ.get(BROKER_ENV, DEFAULT_BROKER),
        "backend": environ.get(BACKEND_ENV, DEFAULT_BACKEND),
        "config_source": {
            "task_default_queue": environ.get(QUEUE_ENV, DEFAULT_QUEUE),
            "result_expires": RESULT_EXPIRES_S,
        },
    }


def write_worker_config(path: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The YAML ``dagster-celery worker start -y`` reads: the executor block of a run config."""
    path.write_text(yaml.safe_dump({"execution": {"config": celery_config(environ)}}))
    return path


def celery_cases_job() -> JobDefinition:
    """The ``evaluate_cases`` job (every per-case asset) with the Celery executor."""
    executor = celery_executor.configured(celery_config(), name="eval_celery")
    return build_definitions(executor=executor).resolve_job_def(cases_job.name)


def run_case_batch(
    instance: DagsterInstance,
    run_key: str,
    first_case: str,
    last_case: str,
    run_config: Mapping[str, Any] | None = None,
) -> ExecutionResult:
    """One Dagster run over the run × [first_case, last_case] rectangle, steps on the workers.

    The cases and the run key must already be registered as dynamic partitions.
    """
    start = MultiPartitionKey({"run": run_key, "case": first_case})
    end = MultiPartitionKey({"run": run_key, "case": last_case})
    with execute_job(
        reconstructable(celery_cases_job),
        instance=instance,
        run_config=dict(run_config or {}),
        tags={
            ASSET_PARTITION_RANGE_START_TAG: str(start),
            ASSET_PARTITION_RANGE_END_TAG: str(end),
        },
    ) as result:
        return result
