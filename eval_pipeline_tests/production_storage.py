"""Helpers for the tests that run the graph on production storage (PostgreSQL, Celery workers).

Each test gets its own PostgreSQL database for Dagster's instance storage and its own schemas for
the warehouse and the results store, all dropped afterwards; results are compared with an
embedded (SQLite) run on the same inputs, leaving out what legitimately differs between two runs:
timestamps, paths, Dagster run ids and measured latencies.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from eval_pipeline.core.summary import RunSummary
from eval_pipeline.demo import tiny
from eval_pipeline.settings import PROJECT_ROOT

TINY = PROJECT_ROOT / "data" / "tiny"
HONEST_BOT = "eval_pipeline_tests.tiny_chatbot:honest"


@contextmanager
def scratch_database(admin_url: str) -> Iterator[str]:
    """A fresh, empty database on the admin URL's server; dropped (connections and all) after."""
    name = f"eval_dagster_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        url = sa.make_url(admin_url).set(database=name)
        yield url.render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()


@contextmanager
def scratch_schema(admin_url: str) -> Iterator[tuple[str, str]]:
    """(schema, URL whose search_path selects it); the schema is dropped afterwards."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(admin_url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        sep = "&" if "?" in admin_url else "?"
        yield schema, f"{admin_url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


def postgres_storage(dagster_url: str) -> dict[str, Any]:
    """The ``storage`` block of a dagster.yaml putting runs, events and schedules on PostgreSQL."""
    return {"storage": {"postgres": {"postgres_url": dagster_url}}}


def tiny_sqlite_settings(folder: Path) -> dict[str, str]:
    """Embedded settings for the tiny domain: SQLite warehouse and results store in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{folder / 'tiny.db'}"
    tiny.load(url)
    return {
        "home": str(folder / "home"),
        "bkg_path": str(TINY / "bkg.json"),
        "golden_path": str(TINY / "golden_dataset.json"),
        "database_url": url,
        "results_url": "",
        "chatbot_kind": "callable",
        "chatbot_callable": HONEST_BOT,
    }


def tiny_postgres_settings(folder: Path, warehouse_url: str, results_url: str) -> dict[str, str]:
    """The same tiny inputs with the warehouse (loaded here) and the results store on PostgreSQL."""
    tiny.load(warehouse_url)
    return {
        **tiny_sqlite_settings(folder),
        "database_url": warehouse_url,
        "results_url": results_url,
    }


def comparable_dimensions(dimensions: Mapping[str, Any]) -> dict[str, Any]:
    """Dimension results minus the latency measurement, which differs between any two runs."""
    out = {}
    for name, result in dimensions.items():
        if name == "latency":
            result = {k: v for k, v in result.items() if k not in ("details", "reason")}
        out[name] = result
    return out


def comparable_scores(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A judge_scores record minus measured latencies."""
    return {**payload, "dimensions": comparable_dimensions(payload["dimensions"])}


def comparable_summary(run: RunSummary) -> dict[str, Any]:
    """What two runs on the same inputs must agree on: cases, scores, verdicts, counts."""
    summary = run.model_dump(mode="json")
    return {
        "totals": {
            k: summary[k]
            for k in (
                "cases_total",
                "cases_passed",
                "cases_failed",
                "cases_error",
                "coverage",
                "pass_rate",
                "mean_overall",
                "verdict_counts",
                "dimension_means",
                "gate_failure_counts",
                "calls",
            )
        },
        "cases": {
            c["case_id"]: {
                "passed": c["passed"],
                "overall": c["overall"],
                "state": c["state"],
                "verdict_counts": c["verdict_counts"],
                "gate_failures": c["gate_failures"],
                "dimensions": comparable_dimensions(c["dimensions"]),
            }
            for c in summary["cases"]
        },
    }
