"""Event log cost of one run that materializes N (run × case) partitions of one asset, and of
N per-partition check evaluations (each case's ``case_passed``).

Dagster's default SQLite storage, one event at a time, against BatchingSqliteEventLogStorage with
DAGSTER_EVENT_BATCH_SIZE set. The IO manager stores nothing, so the time is Dagster's own. The
check evaluations are stored as a run stores them, one by one and then the step's next event;
their figure is this process's user + system CPU time, which a shared machine disturbs less.

    .venv/bin/python bench/event_log.py [--partitions 500]
"""

import argparse
import os
import resource
import tempfile
import time
import warnings
from typing import Any

from dagster import (
    AssetCheckEvaluation,
    AssetExecutionContext,
    AssetKey,
    BackfillPolicy,
    DagsterEventType,
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

from eval_pipeline.pipeline.tags import BATCH_SIZE_ENV, RANGE_END_TAG, RANGE_START_TAG
from eval_pipeline.runner.internals import EventLogEntry, SqliteEventLogStorage
from eval_pipeline.runner.sqlite_storage import BatchingSqliteEventLogStorage
from eval_pipeline_tests.dagster_helpers import batching_event_log, step_event

RUNS_NAME, CASES_NAME = "bench_runs", "bench_cases"
RUNS = DynamicPartitionsDefinition(name=RUNS_NAME)
CASES = DynamicPartitionsDefinition(name=CASES_NAME)
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


class DiscardIOManager(IOManager):
    def handle_output(self, context: OutputContext, obj: Any) -> None:
        return None

    def load_input(self, context: InputContext) -> Any:
        return None


with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # backfill_policy is a beta parameter

    @asset(
        partitions_def=MultiPartitionsDefinition({"run": RUNS, "case": CASES}),
        backfill_policy=BackfillPolicy.single_run(),
    )
    def scored(context: AssetExecutionContext) -> int:
        return len(context.partition_keys)


def timed_run(partitions: int, batching: bool) -> float:
    os.environ[BATCH_SIZE_ENV] = "1000" if batching else "0"
    with (
        tempfile.TemporaryDirectory() as home,
        instance_for_test(
            overrides=batching_event_log(os.path.join(home, "events")) if batching else None,
            temp_dir=home,
        ) as instance,
    ):
        cases = [f"case-{i:05d}" for i in range(partitions)]
        instance.add_dynamic_partitions(RUNS_NAME, ["r1"])
        instance.add_dynamic_partitions(CASES_NAME, cases)
        first = MultiPartitionKey({"run": "r1", "case": cases[0]})
        last = MultiPartitionKey({"run": "r1", "case": cases[-1]})
        start = time.perf_counter()
        materialize(
            [scored],
            instance=instance,
            resources={"io_manager": DiscardIOManager()},
            run_config=QUIET,
            tags={
                RANGE_START_TAG: str(first),
                RANGE_END_TAG: str(last),
            },
        )
        elapsed = time.perf_counter() - start
        stored = instance.get_materialized_partitions(scored.key)
        if len(stored) != partitions:
            raise RuntimeError(f"{len(stored)} partitions recorded, expected {partitions}")
        return elapsed


def check_evaluations_cpu(partitions: int, storage_class: type[SqliteEventLogStorage]) -> float:
    """CPU seconds to store ``partitions`` evaluations of one check and the step's next event."""

    evaluations = [
        step_event(
            "r1",
            DagsterEventType.ASSET_CHECK_EVALUATION,
            AssetCheckEvaluation(
                asset_key=AssetKey("scored"), check_name="ok", passed=True, partition=f"p{i}"
            ),
            1000.0 + i,
        )
        for i in range(partitions)
    ]
    then = EventLogEntry(
        error_info=None, level=20, user_message="step done", run_id="r1", timestamp=2000.0
    )
    with tempfile.TemporaryDirectory() as home:
        storage = storage_class(home)
        start = resource.getrusage(resource.RUSAGE_SELF)
        for event in [*evaluations, then]:
            storage.store_event(event)
        end = resource.getrusage(resource.RUSAGE_SELF)
        storage.dispose()
    return end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=500)
    n = parser.parse_args().partitions
    default = timed_run(n, batching=False)
    batching = timed_run(n, batching=True)
    # Two asset events per partition: ASSET_MATERIALIZATION_PLANNED and ASSET_MATERIALIZATION.
    print(f"per partition: default={default / n * 1000:.1f}ms batching={batching / n * 1000:.1f}ms")
    print(f"event_log: default={default:.1f}s batching={batching:.1f}s partitions={n}")
    checks_default = check_evaluations_cpu(n, SqliteEventLogStorage)
    checks_batching = check_evaluations_cpu(n, BatchingSqliteEventLogStorage)
    print(
        f"check_evaluations: default_cpu={checks_default:.1f}s "
        f"batching_cpu={checks_batching:.1f}s evaluations={n}"
    )


if __name__ == "__main__":
    main()
