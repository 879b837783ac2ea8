"""Append-only store of every per-case and per-run result, on SQLite or PostgreSQL.

Dagster's own file IO managers refuse an output that covers many partitions, and an evaluation's
history must stay queryable with plain SQL after Dagster has pruned its partitions. So every
materialization appends rows here — one per (asset, run, case) — and readers take the newest row.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import sqlalchemy as sa

_METADATA = sa.MetaData()

RECORDS = sa.Table(
    "records",
    _METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("asset", sa.String(64), nullable=False),
    sa.Column("run_key", sa.String(255), nullable=False),
    sa.Column("case_id", sa.String(255), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("dagster_run_id", sa.String(64), nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Index("ix_records_lookup", "asset", "run_key", "case_id", "id"),
)

_BATCH = 500


@dataclass(frozen=True)
class StoredRecord:
    run_key: str
    case_id: str
    payload: Mapping[str, Any]
    content_hash: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ResultsStore:
    """Thin SQLAlchemy Core wrapper; one instance per process is enough (engines pool)."""

    _engines: ClassVar[dict[str, sa.Engine]] = {}
    _lock = threading.Lock()

    def __init__(self, url: str) -> None:
        self.url = url
        with self._lock:
            engine = self._engines.get(url)
            if engine is None:
                if url.startswith("sqlite:///"):
                    Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
                engine = sa.create_engine(url, pool_pre_ping=True)
                if engine.dialect.name == "sqlite":
                    sa.event.listen(engine, "connect", _sqlite_pragmas)
                _METADATA.create_all(engine)
                self._engines[url] = engine
        self.engine = engine

    def append(self, asset: str, records: Iterable[StoredRecord], dagster_run_id: str) -> int:
        """Append records in batches inside one transaction; returns how many were written."""
        created = _now()
        written = 0
        with self.engine.begin() as conn:
            for chunk in _chunks(records, _BATCH):
                conn.execute(
                    RECORDS.insert(),
                    [
                        {
                            "asset": asset,
                            "run_key": r.run_key,
                            "case_id": r.case_id,
                            "created_at": created,
                            "dagster_run_id": dagster_run_id,
                            "content_hash": r.content_hash,
                            "payload": json.dumps(r.payload, default=str, sort_keys=True),
                        }
                        for r in chunk
                    ],
                )
                written += len(chunk)
        return written

    def latest(
        self, asset: str, run_key: str, case_ids: Iterable[str] | None = None
    ) -> dict[str, dict[str, Any]]:
        """Newest payload per case of one run (all cases when ``case_ids`` is None)."""
        newest = (
            sa.select(RECORDS.c.case_id, sa.func.max(RECORDS.c.id).label("id"))
            .where(RECORDS.c.asset == asset, RECORDS.c.run_key == run_key)
            .group_by(RECORDS.c.case_id)
            .subquery()
        )
        query = sa.select(RECORDS.c.case_id, RECORDS.c.payload).join(
            newest, RECORDS.c.id == newest.c.id
        )
        wanted = None if case_ids is None else set(case_ids)
        with self.engine.connect() as conn:
            return {
                case_id: json.loads(payload)
                for case_id, payload in conn.execute(query)
                if wanted is None or case_id in wanted
            }

    def history(self, asset: str, run_key: str, case_id: str) -> list[dict[str, Any]]:
        """Every stored payload of one (asset, run, case), oldest first."""
        query = (
            sa.select(RECORDS.c.payload)
            .where(
                RECORDS.c.asset == asset,
                RECORDS.c.run_key == run_key,
                RECORDS.c.case_id == case_id,
            )
            .order_by(RECORDS.c.id)
        )
        with self.engine.connect() as conn:
            return [json.loads(p) for (p,) in conn.execute(query)]

    def run_keys(self, asset: str) -> list[str]:
        """Run keys that have rows for ``asset``, oldest first."""
        query = (
            sa.select(RECORDS.c.run_key, sa.func.min(RECORDS.c.id).label("first"))
            .where(RECORDS.c.asset == asset)
            .group_by(RECORDS.c.run_key)
            .order_by("first")
        )
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(query)]


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _chunks(items: Iterable[StoredRecord], size: int) -> Iterator[list[StoredRecord]]:
    chunk: list[StoredRecord] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
