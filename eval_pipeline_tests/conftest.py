"""Shared fixtures: services are real; a missing one skips locally and fails in CI."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

if TYPE_CHECKING:
    from eval_pipeline_tests.stored_results import GoodRun

PG_ADMIN_URL = os.environ.get(
    "EVAL_TEST_PG_URL", "postgresql+psycopg2://postgres@127.0.0.1:5432/test"
)


@pytest.fixture(autouse=True)
def environment_restored() -> Iterator[None]:
    """Benchmarks and CLIs run in the test process set variables such as DAGSTER_HOME for their
    evaluation; a later test file on the same worker must not inherit them."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def require_service(name: str, reason: str) -> None:
    """Skip on a laptop without the service; in CI (CI=true) a missing service is a failure."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{name} is required in CI but unavailable: {reason}")
    pytest.skip(f"{name} unavailable ({reason}); start it to run this test")


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    try:
        engine = sa.create_engine(PG_ADMIN_URL)
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        engine.dispose()
    except Exception as exc:
        require_service("PostgreSQL at 127.0.0.1:5432", str(exc).splitlines()[0])
    return PG_ADMIN_URL


@pytest.fixture
def pg_schema_url(pg_admin_url: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL schema for one test, dropped afterwards.

    The URL selects the schema through ``search_path`` so unqualified table names land in it.
    """
    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(pg_admin_url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in pg_admin_url else "?"
    yield f"{pg_admin_url}{sep}options=-csearch_path%3D{schema}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GoodRun]:
    """One finished run of the tiny domain per test module; tests of commands that must fail
    show that it is still intact (``eval_pipeline_tests/stored_results.py``)."""
    from eval_pipeline_tests.stored_results import good_run

    with pytest.MonkeyPatch.context() as mp:
        yield good_run(tmp_path_factory.mktemp("good"), mp)


@pytest.fixture
def good_env(good: GoodRun, monkeypatch: pytest.MonkeyPatch) -> GoodRun:
    """The good run's settings in this test's environment (the test's changes undone after)."""
    from eval_pipeline_tests.stored_results import settings_into

    settings_into(monkeypatch, good.settings)
    return good


@pytest.fixture(params=["sqlite", "postgresql"])
def results_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty results store on each backend: what must hold on both is tested on both."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'results.db'}"
    url: str = request.getfixturevalue("pg_schema_url")
    return url


CHROMIUM_PATH = Path(os.environ.get("EVAL_TEST_CHROMIUM", "/usr/bin/chromium"))


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's chromium, which the browser channel drives (never a downloaded browser)."""
    if not os.access(CHROMIUM_PATH, os.X_OK):
        require_service("Chromium", f"{CHROMIUM_PATH} not found; apt-get install chromium")
    return CHROMIUM_PATH
