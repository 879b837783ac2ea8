"""Shared fixtures: services are real; a missing one skips locally and fails in CI."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

PG_ADMIN_URL = os.environ.get(
    "EVAL_TEST_PG_URL", "postgresql+psycopg2://postgres@127.0.0.1:5432/test"
)


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
