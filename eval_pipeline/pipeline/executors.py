"""Where the steps of a Dagster run execute: ``EVAL_EXECUTOR`` becomes an executor here only.

The code location (and so every sensor-launched run) and ``evaluate()`` both take their
executor from here. The Celery executor depends on environment variables only — the broker,
result backend and queue below — so the launcher, the daemon and every worker build the same one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from dagster import ExecutorDefinition, in_process_executor, multiprocess_executor
from dagster_celery import celery_executor

from eval_pipeline.settings import ExecutorKind

BROKER_ENV = "EVAL_CELERY_BROKER"
BACKEND_ENV = "EVAL_CELERY_BACKEND"
QUEUE_ENV = "EVAL_CELERY_QUEUE"
DEFAULT_BROKER = "pyamqp://guest@localhost:5672//"
DEFAULT_BACKEND = "rpc://"
DEFAULT_QUEUE = "dagster"
CELERY_EXECUTOR_NAME = "eval_celery"
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


def build_executor(kind: ExecutorKind) -> ExecutorDefinition:
    """The executor every job of the code location uses."""
    if kind == "celery":
        return celery_executor.configured(celery_config(), name=CELERY_EXECUTOR_NAME)
    if kind == "multiprocess":
        return multiprocess_executor
    return in_process_executor
