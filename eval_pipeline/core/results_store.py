"""Append-only store of every per-case and per-run result, on SQLite or PostgreSQL.

Dagster's own file IO managers refuse an output that covers many partitions, and an evaluation's
history must stay queryable with plain SQL after Dagster has pruned its partitions. So every
materialization appends rows here — one per (asset, run, case) — and readers take the newest row.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa

from eval_pipeline.core.redaction import Redactor
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.core.tracing.spans import ExportCounts

_METADATA = sa.MetaData()
T = TypeVar("T")

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
    sa.Column("input_fingerprint", sa.String(64), nullable=False, server_default=""),
    sa.Column("reused", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Index("ix_records_lookup", "asset", "run_key", "case_id", "id"),
)

STEP_CALLS = sa.Table(
    "step_calls",
    _METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("dagster_run_id", sa.String(64), nullable=False),
    sa.Column("asset", sa.String(64), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("chatbot", sa.Integer, nullable=False),
    sa.Column("judge", sa.Integer, nullable=False),
    sa.Column("reference", sa.Integer, nullable=False),
    sa.Index("ix_step_calls_run", "dagster_run_id"),
)

TRACE_EXPORTS = sa.Table(
    "trace_exports",
    _METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("dagster_run_id", sa.String(64), nullable=False),
    sa.Column("run_key", sa.String(255), nullable=False),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("spans", sa.Integer, nullable=False),
    sa.Column("exported", sa.Integer, nullable=False),
    sa.Column("failed_cases", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Index("ix_trace_exports_run", "run_key", "dagster_run_id"),
)

CALL_KINDS = ("chatbot", "judge", "reference")

# The key column of a record that is not per run (a golden case) or not per case (a run's
# summary); ``case_records`` and ``run_summary`` read them.
RUN_WIDE = ""
_BATCH = 500
_IN_LIMIT = 1000  # case ids filtered in SQL up to this many; more are filtered while reading


@dataclass(frozen=True)
class StoredRecord:
    run_key: str
    case_id: str
    payload: Mapping[str, Any]
    content_hash: str
    input_fingerprint: str = ""
    reused: bool = False


@dataclass(frozen=True)
class LatestRow:
    payload: dict[str, Any]
    input_fingerprint: str
    dagster_run_id: str
    reused: bool
    id: int = 0  # grows with every append: orders rows of different assets
    content_hash: str = ""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_ENGINES: dict[str, sa.Engine] = {}
_ENGINES_LOCK = threading.Lock()


def shared_engine(url: str) -> sa.Engine:
    """One pooled engine per URL for the whole process; a SQLite file gets its folder and WAL."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            if url.startswith("sqlite:///"):
                Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
            engine = sa.create_engine(url, pool_pre_ping=True)
            if engine.dialect.name == "sqlite":
                sa.event.listen(engine, "connect", _sqlite_pragmas)
            _ENGINES[url] = engine
        return engine


_CREATED: set[tuple[int, str]] = set()
_CREATED_LOCK = threading.Lock()


def engine_with_tables(
    url: str, metadata: sa.MetaData, then: Callable[[sa.Engine], None] | None = None
) -> sa.Engine:
    """The shared engine of ``url``, with the tables of ``metadata`` created (and ``then`` run)
    once per process."""
    engine = shared_engine(url)
    with _CREATED_LOCK:
        if (id(metadata), url) not in _CREATED:
            metadata.create_all(engine)
            if then is not None:
                then(engine)
            _CREATED.add((id(metadata), url))
    return engine


class ResultsStore:
    """Thin SQLAlchemy Core wrapper; one instance per process is enough (engines pool)."""

    def __init__(self, url: str, *, redactor: Redactor | None = None) -> None:
        """``redactor`` cleans every payload before it is written (a store that only reads
        needs none)."""
        from eval_pipeline.core.analysis.history import ensure_history_views

        self.url = url
        self.engine = engine_with_tables(url, _METADATA, then=ensure_history_views)
        self._redactor = redactor or Redactor()

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
                            "input_fingerprint": r.input_fingerprint,
                            "reused": r.reused,
                            "payload": _to_json(self._redactor.value(r.payload)),
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
        return {c: row.payload for c, row in self.latest_rows(asset, run_key, case_ids).items()}

    def case_records(self, asset: str, case_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Newest payload per case of an asset that is not per run (``golden_cases``)."""
        return self.latest(asset, RUN_WIDE, case_ids)

    def run_summary(self, run_key: str) -> RunSummary | None:
        """The newest ``eval_run`` summary of ``run_key``, whichever version stored it."""
        payload = self.latest("eval_run", run_key, [RUN_WIDE]).get(RUN_WIDE)
        return None if payload is None else RunSummary.model_validate(payload)

    def latest_rows(
        self,
        asset: str,
        run_key: str,
        case_ids: Iterable[str] | None = None,
        *,
        with_payload: bool = True,
        before_id: int | None = None,
    ) -> dict[str, LatestRow]:
        """Newest row per case with its provenance: input fingerprint, Dagster run, reuse.

        ``with_payload=False`` leaves ``payload`` empty: provenance without decoding the records.
        ``before_id`` reads the store as it was when that row was the newest.
        """
        wanted = None if case_ids is None else set(case_ids)
        where = [RECORDS.c.asset == asset, RECORDS.c.run_key == run_key]
        if before_id is not None:
            where.append(RECORDS.c.id <= before_id)
        if wanted is not None and len(wanted) <= _IN_LIMIT:
            where.append(RECORDS.c.case_id.in_(sorted(wanted)))
        newest = (
            sa.select(RECORDS.c.case_id, sa.func.max(RECORDS.c.id).label("id"))
            .where(*where)
            .group_by(RECORDS.c.case_id)
            .subquery()
        )
        payload = RECORDS.c.payload if with_payload else sa.literal("{}")
        query = sa.select(
            RECORDS.c.case_id,
            payload,
            RECORDS.c.input_fingerprint,
            RECORDS.c.dagster_run_id,
            RECORDS.c.reused,
            RECORDS.c.id,
            RECORDS.c.content_hash,
        ).join(newest, RECORDS.c.id == newest.c.id)
        with self.engine.connect() as conn:
            return {
                case_id: LatestRow(
                    json.loads(data) if with_payload else {},
                    fingerprint,
                    run_id,
                    bool(reused),
                    row_id,
                    digest,
                )
                for case_id, data, fingerprint, run_id, reused, row_id, digest in conn.execute(
                    query
                )
                if wanted is None or case_id in wanted
            }

    def last_id(self) -> int:
        """The newest row's id: rows appended from now on have larger ones."""
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.max(RECORDS.c.id))).scalar() or 0)

    def rows_after(
        self, asset: str, run_key: str, after_id: int
    ) -> Iterator[tuple[str, dict[str, Any], bool]]:
        """``(case id, payload, reused)`` of each row of ``asset`` and ``run_key`` appended after
        row ``after_id``, oldest first, read as the caller goes (it may stop at the first)."""
        query = (
            sa.select(RECORDS.c.case_id, RECORDS.c.payload, RECORDS.c.reused)
            .where(RECORDS.c.asset == asset, RECORDS.c.run_key == run_key, RECORDS.c.id > after_id)
            .order_by(RECORDS.c.id)
        )
        with self.engine.connect() as conn:
            for case_id, data, reused in conn.execute(query):
                yield case_id, json.loads(data), bool(reused)

    def restore(
        self, run_key: str, assets: Iterable[str], after_id: int, dagster_run_id: str
    ) -> int:
        """Make ``run_key``'s current records of ``assets`` what they were at row ``after_id``.

        Append-only, so nothing is deleted: each case with a newer row gets a copy of its row
        from then (marked reused, so no call is counted twice), or, when it had none, a copy of
        its newest row with an input fingerprint nothing matches, so it is computed afresh.
        Returns how many rows were appended.
        """
        written = 0
        for asset in assets:
            where = (RECORDS.c.asset == asset, RECORDS.c.run_key == run_key)
            touched = sa.select(RECORDS.c.case_id).where(*where, RECORDS.c.id > after_id).distinct()
            with self.engine.connect() as conn:
                cases = [case_id for (case_id,) in conn.execute(touched)]
            for chunk in _chunks(cases, _BATCH):
                before = self.latest_rows(asset, run_key, chunk, before_id=after_id)
                now = self.latest_rows(asset, run_key, chunk)
                records = [
                    StoredRecord(
                        run_key, c, row.payload, row.content_hash, row.input_fingerprint, True
                    )
                    if (row := before.get(c)) is not None
                    else StoredRecord(run_key, c, now[c].payload, now[c].content_hash, "", False)
                    for c in chunk
                ]
                written += self.append(asset, records, dagster_run_id)
        return written

    def record_calls(self, dagster_run_id: str, asset: str, calls: Mapping[str, int]) -> None:
        """How many chatbot, judge and reference calls one asset step really made."""
        with self.engine.begin() as conn:
            conn.execute(
                STEP_CALLS.insert(),
                {
                    "dagster_run_id": dagster_run_id,
                    "asset": asset,
                    "created_at": _now(),
                    **{k: int(calls.get(k, 0)) for k in CALL_KINDS},
                },
            )

    def calls_for(self, dagster_run_ids: Iterable[str]) -> dict[str, int]:
        """Total calls made by the given Dagster runs."""
        ids = sorted(set(dagster_run_ids))
        totals = dict.fromkeys(CALL_KINDS, 0)
        if not ids:
            return totals
        query = sa.select(
            *(sa.func.coalesce(sa.func.sum(STEP_CALLS.c[k]), 0) for k in CALL_KINDS)
        ).where(STEP_CALLS.c.dagster_run_id.in_(ids))
        with self.engine.connect() as conn:
            row = conn.execute(query).one()
        return {k: int(v) for k, v in zip(CALL_KINDS, row, strict=True)}

    def record_trace_exports(self, dagster_run_id: str, counts: Mapping[str, ExportCounts]) -> None:
        """What became of the spans a Dagster run's tracer sent, per run key."""
        rows = [
            {
                "dagster_run_id": dagster_run_id,
                "run_key": run_key,
                "created_at": _now(),
                "spans": c.spans,
                "exported": c.exported,
                "failed_cases": json.dumps(sorted(c.failed_cases)),
                "reason": c.reason,
            }
            for run_key, c in counts.items()
            if c.spans
        ]
        if rows:
            with self.engine.begin() as conn:
                conn.execute(TRACE_EXPORTS.insert(), rows)

    def trace_exports_for(
        self, run_key: str, dagster_run_ids: Iterable[str]
    ) -> ExportCounts | None:
        """The spans of ``run_key`` the given Dagster runs sent, summed; None if they sent none.
        The reason is the most recent one given."""
        ids = sorted(set(dagster_run_ids))
        if not ids:
            return None
        query = (
            sa.select(TRACE_EXPORTS)
            .where(TRACE_EXPORTS.c.run_key == run_key, TRACE_EXPORTS.c.dagster_run_id.in_(ids))
            .order_by(TRACE_EXPORTS.c.id.desc())
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        if not rows:
            return None
        total = ExportCounts()
        for row in rows:
            failed = frozenset(json.loads(row.failed_cases))
            total += ExportCounts(row.spans, row.exported, failed, row.reason)
        return total

    def history(self, asset: str, run_key: str, case_id: str) -> list[dict[str, Any]]:
        """Every stored payload of one (asset, run, case), oldest first."""
        return [payload for _, payload in self.history_rows(asset, run_key, case_id)]

    def history_rows(
        self, asset: str, run_key: str, case_id: str
    ) -> list[tuple[int, dict[str, Any]]]:
        """Every stored row of one (asset, run, case) as (row id, payload), oldest first."""
        query = (
            sa.select(RECORDS.c.id, RECORDS.c.payload)
            .where(
                RECORDS.c.asset == asset,
                RECORDS.c.run_key == run_key,
                RECORDS.c.case_id == case_id,
            )
            .order_by(RECORDS.c.id)
        )
        with self.engine.connect() as conn:
            return [(row_id, json.loads(p)) for row_id, p in conn.execute(query)]

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


def _to_json(payload: Any) -> str:
    """The stored JSON text; the walk replacing non-finite numbers runs only when one is there."""
    try:
        return json.dumps(payload, default=str, sort_keys=True, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(payload), default=str, sort_keys=True, allow_nan=False)


def _finite(value: Any) -> Any:
    """NaN and infinities become null: they are not JSON, and PostgreSQL's JSON refuses them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk
