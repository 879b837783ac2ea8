"""Run one evaluation through Dagster from Python: the CLI, tests and benchmarks use this.

An evaluation run is three kinds of Dagster run, never one per case: the golden cases that changed
(case partitions), then every case of the run in one batch (a run × case-range rectangle), then the
run-level summary and report. A run only ever targets one partitioning, so these cannot be fused.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dagster import AssetKey, DagsterInstance, MultiPartitionKey, materialize
from dagster._core.storage.tags import (
    ASSET_PARTITION_RANGE_END_TAG,
    ASSET_PARTITION_RANGE_START_TAG,
)

from eval_pipeline.dagster_shell.automation import expired_runs
from eval_pipeline.dagster_shell.case_assets import PER_CASE_ASSETS
from eval_pipeline.dagster_shell.partitions import CASES, RUNS, check_key, contiguous_segments
from eval_pipeline.definitions import build_definitions
from eval_pipeline.environment import Environment
from eval_pipeline.settings import PROJECT_ROOT, Settings

RUN_ASSETS = ("eval_run", "eval_report")
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def new_run_key(kind: str, now: datetime | None = None) -> str:
    """Run keys sort by time and never contain ``|`` or ``,``: ``2026-11-29T020000Z-nightly``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H%M%SZ")
    return check_key(f"{stamp}-{kind}", "run")


def dagster_instance(settings: Settings) -> DagsterInstance:
    """The persistent instance ``dagster dev`` also sees, under ``$DAGSTER_HOME``.

    Without DAGSTER_HOME, ``<EVAL_HOME>/dagster`` is used, seeded with the project's dagster.yaml.
    """
    home = os.environ.get("DAGSTER_HOME")
    if not home:
        home_path = settings.home / "dagster"
        home_path.mkdir(parents=True, exist_ok=True)
        if not (home_path / "dagster.yaml").exists():
            shutil.copy(PROJECT_ROOT / "dagster.yaml", home_path / "dagster.yaml")
        os.environ["DAGSTER_HOME"] = str(home_path)
    return DagsterInstance.get()


def _range_tags(start: str, end: str) -> dict[str, str]:
    return {ASSET_PARTITION_RANGE_START_TAG: start, ASSET_PARTITION_RANGE_END_TAG: end}


def register_partitions(
    instance: DagsterInstance, run_key: str, case_ids: Sequence[str]
) -> list[str]:
    """Add missing case and run keys; returns the case dimension in Dagster's order."""
    known = set(instance.get_dynamic_partitions(CASES.name))
    new = [check_key(c, "case") for c in case_ids if c not in known]
    if new:
        instance.add_dynamic_partitions(CASES.name, new)
    if not instance.has_dynamic_partition(RUNS.name, run_key):
        instance.add_dynamic_partitions(RUNS.name, [check_key(run_key, "run")])
    return list(instance.get_dynamic_partitions(CASES.name))


def prune_runs(instance: DagsterInstance, keep: int) -> list[str]:
    """Remove the oldest run partitions beyond ``keep`` from Dagster (results stay stored)."""
    expired = expired_runs(list(instance.get_dynamic_partitions(RUNS.name)), keep)
    for run_key in expired:
        instance.delete_dynamic_partition(RUNS.name, run_key)
    return expired


def evaluate(
    run_key: str,
    *,
    overrides: Mapping[str, str] | None = None,
    case_ids: Sequence[str] | None = None,
    instance: DagsterInstance | None = None,
) -> dict[str, Any]:
    """Materialize the whole graph for ``run_key`` and return the run summary.

    Cases whose verdicts came out stale (a table they read changed after the bot answered) are
    re-queued once: asked again and re-verified before the run-level assets.
    """
    overrides = dict(overrides or {})
    env = Environment(Settings(**overrides))  # type: ignore[arg-type]
    try:
        cases = env.cases
        selected = list(case_ids) if case_ids else list(cases)
        unknown = [c for c in selected if c not in cases]
        if unknown:
            raise ValueError(f"unknown case id(s) {unknown} in {env.settings.golden_path}")
        instance = instance or dagster_instance(env.settings)
        ordered = register_partitions(instance, run_key, list(cases))

        def run(selection: Sequence[str], extra: Mapping[str, str], **kwargs: Any) -> None:
            defs = build_definitions({**overrides, **extra})
            materialize(
                list(defs.assets or []),
                selection=[AssetKey(a) for a in selection],
                instance=instance,
                resources=dict(defs.resources or {}),
                run_config=QUIET,
                **kwargs,
            )

        def run_cases(case_ids: Sequence[str], extra: Mapping[str, str]) -> None:
            for first, last in contiguous_segments(ordered, case_ids):
                start = MultiPartitionKey({"run": run_key, "case": first})
                end = MultiPartitionKey({"run": run_key, "case": last})
                run(PER_CASE_ASSETS, extra, tags=_range_tags(str(start), str(end)))

        stored = env.store.latest("golden_cases", "", selected)
        changed = [c for c in selected if stored.get(c) != cases[c].model_dump(mode="json")]
        for first, last in contiguous_segments(ordered, changed):
            run(["golden_cases"], {}, tags=_range_tags(first, last))
        run_cases(selected, {})
        verdicts = env.store.latest("oracle_verdicts", run_key, selected)
        stale = [c for c in selected if verdicts.get(c, {}).get("stale_tables")]
        if stale:
            run_cases(stale, {"refresh": "true"})
        run(RUN_ASSETS, {}, partition_key=run_key)
        prune_runs(instance, env.settings.retain_runs)
        return env.store.latest("eval_run", run_key, [""])[""]
    finally:
        env.close()


def summary_path(summary: Mapping[str, Any]) -> Path:
    return Path(summary["report_path"]).with_name("summary.json")
