"""Evaluation steps on two real Celery workers (RabbitMQ broker, PostgreSQL everywhere else).

The module starts two ``dagster-celery worker start`` processes sharing a PostgreSQL Dagster
instance (``DAGSTER_HOME`` with dagster-postgres storage), the PostgreSQL results store and
warehouse, and the ``EVAL_*`` settings, on a queue of their own. One test launches only the
``evaluate_cases`` job with the Celery executor and summarizes in-process; the other runs
``evaluate`` with ``executor=celery``. Both are compared with an in-process run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from dagster import (
    AssetKey,
    DagsterEventType,
    DagsterInstance,
    instance_for_test,
    materialize,
)
from kombu import Connection

from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.pipeline.definitions import build_definitions
from eval_pipeline.pipeline.executors import BROKER_ENV, QUEUE_ENV, write_worker_config
from eval_pipeline.pipeline.partitions import range_tags
from eval_pipeline.runner.distributed import run_case_batch
from eval_pipeline.runner.evaluate import (
    PER_CASE_ASSETS,
    RUN_ASSETS,
    evaluate,
    register_partitions,
)
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.conftest import require_service
from eval_pipeline_tests.production_storage import (
    comparable_scores,
    comparable_summary,
    postgres_storage,
    scratch_database,
    scratch_schema,
    tiny_postgres_settings,
    tiny_sqlite_settings,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.celery,
    # dagster-celery registers its step task again for every step it submits
    pytest.mark.filterwarnings("ignore::celery.exceptions.DuplicateTaskNameWarning"),
]

AMQP_URL = os.environ.get("EVAL_TEST_AMQP_URL", "pyamqp://guest:guest@127.0.0.1:5672//")
WORKERS = 2
READY_TIMEOUT_S = 180
STOP_TIMEOUT_S = 30
CASES = [f"TC_00{i}" for i in range(1, 6)]
RUN_KEY = "r-celery"


@pytest.fixture(scope="session")
def amqp_url() -> str:
    try:
        with Connection(AMQP_URL, connect_timeout=3) as conn:
            conn.ensure_connection(max_retries=1)
    except Exception as exc:
        require_service("RabbitMQ at 127.0.0.1:5672", str(exc).splitlines()[0])
    return AMQP_URL


@dataclass
class Worker:
    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def node(self) -> str:
        return f"{self.name}@{os.uname().nodename}"

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


@dataclass
class Deployment:
    dagster_home: Path
    results_url: str
    pg_admin_url: str
    workers: list[Worker]

    def wait_until_ready(self) -> None:
        """Fail with the worker's log if it died or never came up, instead of hanging the run."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        pending = list(self.workers)
        while pending:
            for worker in list(pending):
                if worker.process.poll() is not None:
                    pytest.fail(f"worker {worker.name} exited early:\n{worker.tail()}")
                if f"{worker.node()} ready." in worker.log.read_text(errors="replace"):
                    pending.remove(worker)
            if time.monotonic() > deadline:
                pytest.fail(f"worker {pending[0].name} not ready:\n{pending[0].tail()}")
            time.sleep(0.5)

    def steps(self, instance: DagsterInstance, run_id: str) -> tuple[dict[str, int], set[str]]:
        """The process of each step of the run and the Celery nodes its engine events name."""
        groups = {w.process.pid for w in self.workers}
        step_pids: dict[str, int] = {}
        celery_nodes: set[str] = set()
        for record in instance.get_records_for_run(run_id).records:
            event = record.event_log_entry.dagster_event
            if event is None:
                continue
            if event.event_type == DagsterEventType.STEP_START and event.pid is not None:
                step_pids[str(event.step_key)] = event.pid
                # while the workers run, each step's process must be in a worker's process group
                assert os.getpgid(event.pid) in groups, event.step_key
            if event.event_type == DagsterEventType.ENGINE_EVENT:
                node = event.engine_event_data.metadata.get("Celery worker")
                if node is not None:
                    celery_nodes.add(str(node.value))
        return step_pids, celery_nodes


def start_worker(name: str, config: Path, queue: str, log: Path) -> Worker:
    """``dagster-celery worker start`` in its own process group, one task at a time in-process."""
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [
        str(bindir / "dagster-celery"),
        "worker",
        "start",
        "-A",
        "dagster_celery.app",
        "-y",
        str(config),
        "-q",
        queue,
        "-n",
        name,
        "-i",
        "eval_pipeline.runner.distributed",
        "--",
        "--pool=solo",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    return Worker(name=name, process=process, log=log)


def stop_workers(workers: list[Worker]) -> None:
    """SIGTERM each worker's process group (warm shutdown), SIGKILL what is left after a while."""
    for worker in workers:
        with suppress(ProcessLookupError):  # the whole group may already be gone
            os.killpg(worker.process.pid, signal.SIGTERM)
    for worker in workers:
        try:
            worker.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(worker.process.pid, signal.SIGKILL)
            worker.process.wait()


def delete_queue(amqp_url: str, queue: str) -> None:
    """The queue and its same-named exchange are durable; leave nothing behind on the broker."""
    with Connection(amqp_url) as conn:
        channel = conn.default_channel
        channel.queue_delete(queue)
        channel.exchange_delete(queue)


@pytest.fixture(scope="module")
def deployment(
    tmp_path_factory: pytest.TempPathFactory, pg_admin_url: str, amqp_url: str
) -> Iterator[Deployment]:
    """Two workers shared by the module's tests (starting them costs most of a test's time)."""
    token = uuid.uuid4().hex[:10]
    queue = f"eval-test-{token}"
    tmp_path = tmp_path_factory.mktemp("celery")
    with (
        pytest.MonkeyPatch.context() as monkeypatch,
        scratch_database(pg_admin_url) as dagster_url,
        scratch_schema(pg_admin_url) as (_, warehouse_url),
        scratch_schema(pg_admin_url) as (_, results_url),
    ):
        home = tmp_path / "dagster_home"
        home.mkdir()
        instance_yaml = {**postgres_storage(dagster_url), "telemetry": {"enabled": False}}
        (home / "dagster.yaml").write_text(yaml.safe_dump(instance_yaml))
        # as deployment.md says: the schema exists before workers start, or two workers booting
        # at once both create alembic's version table and one of them dies
        DagsterInstance.from_config(str(home)).dispose()
        settings = tiny_postgres_settings(tmp_path / "celery", warehouse_url, results_url)
        for field, value in settings.items():
            monkeypatch.setenv(f"EVAL_{field.upper()}", value)
        monkeypatch.setenv("DAGSTER_HOME", str(home))
        monkeypatch.setenv(BROKER_ENV, amqp_url)
        monkeypatch.setenv(QUEUE_ENV, queue)
        pythonpath = os.environ.get("PYTHONPATH", "")
        monkeypatch.setenv(
            "PYTHONPATH", os.pathsep.join(p for p in (str(PROJECT_ROOT), pythonpath) if p)
        )
        config = write_worker_config(tmp_path / "celery.yaml")
        workers: list[Worker] = []
        try:
            for i in range(WORKERS):
                name = f"w{i}-{token}"
                workers.append(start_worker(name, config, queue, tmp_path / f"{name}.log"))
            yield Deployment(
                dagster_home=home,
                results_url=results_url,
                pg_admin_url=pg_admin_url,
                workers=workers,
            )
        finally:
            stop_workers(workers)
            delete_queue(amqp_url, queue)


@dataclass
class Reference:
    summary: RunSummary
    scores: dict[str, Any]


@pytest.fixture(scope="module")
def reference(deployment: Deployment, tmp_path_factory: pytest.TempPathFactory) -> Reference:
    """The in-process run on embedded storage, computed while the workers boot."""
    folder = tmp_path_factory.mktemp("in_process")
    with instance_for_test() as instance:
        summary = evaluate(RUN_KEY, overrides=tiny_sqlite_settings(folder), instance=instance)
    store = ResultsStore(f"sqlite:///{folder / 'home' / 'results.db'}")
    return Reference(summary=summary, scores=store.latest("judge_scores", RUN_KEY))


def test_case_batch_on_two_celery_workers_matches_the_in_process_run(
    deployment: Deployment, reference: Reference
) -> None:
    deployment.wait_until_ready()
    worker_nodes = {w.node() for w in deployment.workers}
    defs = build_definitions()  # from the EVAL_* environment the workers share
    assets = list(defs.assets or [])
    resources = dict(defs.resources or {})
    with DagsterInstance.from_config(str(deployment.dagster_home)) as instance:
        ordered = register_partitions(instance, RUN_KEY, CASES)
        materialize(
            assets,
            selection=[AssetKey("golden_cases")],
            instance=instance,
            resources=resources,
            tags=range_tags(ordered[0], ordered[-1]),
        )
        result = run_case_batch(instance, RUN_KEY, ordered[0], ordered[-1])
        assert result.success
        step_pids, celery_nodes = deployment.steps(instance, result.run_id)
        batch_materializations = {
            asset: {
                str(r.partition_key)
                for r in instance.fetch_materializations(AssetKey(asset), limit=100).records
                if r.run_id == result.run_id
            }
            for asset in PER_CASE_ASSETS
        }
        materialize(
            assets,
            selection=[AssetKey("eval_run"), AssetKey("eval_report")],
            instance=instance,
            resources=resources,
            partition_key=RUN_KEY,
        )

    assert set(step_pids) == set(PER_CASE_ASSETS)
    assert os.getpid() not in step_pids.values()
    assert celery_nodes and celery_nodes <= worker_nodes
    for asset, keys in batch_materializations.items():
        assert keys == {f"{c}|{RUN_KEY}" for c in CASES}, asset

    store = ResultsStore(deployment.results_url)
    assert store.engine.dialect.name == "postgresql"
    scores = store.latest("judge_scores", RUN_KEY)
    assert sorted(scores) == CASES
    assert {c: comparable_scores(s) for c, s in scores.items()} == {
        c: comparable_scores(s) for c, s in reference.scores.items()
    }
    summary = store.run_summary(RUN_KEY)
    assert comparable_summary(summary) == comparable_summary(reference.summary)
    assert summary.cases_passed == len(CASES)


def test_evaluate_with_the_celery_executor_runs_every_step_on_the_workers(
    deployment: Deployment, reference: Reference
) -> None:
    deployment.wait_until_ready()
    # a results store of its own, passed as an override: the workers must rebuild the job with it
    with (
        scratch_schema(deployment.pg_admin_url) as (_, results_url),
        DagsterInstance.from_config(str(deployment.dagster_home)) as instance,
    ):
        before = {r.run_id for r in instance.get_runs()}
        summary = evaluate(
            RUN_KEY, overrides={"executor": "celery", "results_url": results_url}, instance=instance
        )
        runs = [r for r in instance.get_runs() if r.run_id not in before]
        steps = [deployment.steps(instance, r.run_id) for r in runs]
        scores = ResultsStore(results_url).latest("judge_scores", RUN_KEY)

    # golden cases (new to this results store), the case batch, the summary: three location jobs
    assert sorted(r.job_name for r in runs) == ["evaluate_cases", "golden_sync", "summarize_run"]
    step_pids = {step: pid for pids, _ in steps for step, pid in pids.items()}
    assert set(step_pids) == {"golden_cases", *PER_CASE_ASSETS, *RUN_ASSETS}
    assert os.getpid() not in step_pids.values()
    celery_nodes = set().union(*(nodes for _, nodes in steps))
    assert celery_nodes and celery_nodes <= {w.node() for w in deployment.workers}

    assert comparable_summary(summary) == comparable_summary(reference.summary)
    assert {c: comparable_scores(s) for c, s in scores.items()} == {
        c: comparable_scores(s) for c, s in reference.scores.items()
    }
    assert Path(summary.report_path).is_file()
