"""Jobs that run outside the launching process: one job factory the launcher and workers share.

A subprocess or Celery worker rebuilds the job by importing this module and calling
``evaluation_job`` with the job name and the launcher's settings overrides (both travel in the
run's code pointer, so secrets never go in ``overrides``). Every other setting comes from the
environment: the launcher and the workers must see the same ``EVAL_*`` and ``EVAL_CELERY_*``
values, the same PostgreSQL Dagster instance (``DAGSTER_HOME``) and the same results store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dagster import (
    DagsterInstance,
    JobDefinition,
    build_reconstructable_job,
    execute_job,
)

from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.pipeline.partitions import case_range_tags
from eval_pipeline.pipeline.sensors import cases_job
from eval_pipeline.runner.internals import ExecutionResult, ReconstructableJob


class RunFailed(RuntimeError):
    """A Dagster run launched out of process did not succeed."""


def evaluation_job(name: str, overrides: Mapping[str, str]) -> JobDefinition:
    """The code location's job ``name``, built with ``overrides`` (its executor included)."""
    return build_definitions(dict(overrides)).resolve_job_def(name)


def reconstructable_job(name: str, overrides: Mapping[str, str]) -> ReconstructableJob:
    return build_reconstructable_job(
        __name__,
        evaluation_job.__name__,
        reconstructable_kwargs={"name": name, "overrides": dict(overrides)},
    )


def run_job(
    instance: DagsterInstance,
    name: str,
    overrides: Mapping[str, str],
    *,
    tags: Mapping[str, str],
    run_config: Mapping[str, Any] | None = None,
) -> ExecutionResult:
    """One Dagster run of job ``name`` with the executor ``overrides``/``EVAL_EXECUTOR`` names.

    Raises ``RunFailed`` naming the failed steps, as ``materialize`` raises for in-process runs.
    """
    with execute_job(
        reconstructable_job(name, overrides),
        instance=instance,
        run_config=dict(run_config or {}),
        tags=dict(tags),
    ) as result:
        if not result.success:
            errors = [
                f"{event.step_key}: {event.step_failure_data.error.message.strip()}"
                for event in result.get_step_failure_events()
                if event.step_failure_data.error is not None
            ]
            raise RunFailed(
                f"Dagster run {result.run_id} of {name} failed: "
                + ("; ".join(errors) or "see its event log")
            )
        return result


def run_case_batch(
    instance: DagsterInstance,
    run_key: str,
    first_case: str,
    last_case: str,
    run_config: Mapping[str, Any] | None = None,
) -> ExecutionResult:
    """One Dagster run over the run × [first_case, last_case] rectangle, steps on Celery workers.

    The cases and the run key must already be registered as dynamic partitions.
    """
    return run_job(
        instance,
        cases_job.name,
        {"executor": "celery"},
        tags=case_range_tags(run_key, first_case, last_case),
        run_config=run_config,
    )
