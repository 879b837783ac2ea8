"""Repeated warehouse reads of BKG functions run once per runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core import query_memo
from eval_pipeline.core.bkg_runtime import BKGRuntime
from eval_pipeline.core.db import Database
from eval_pipeline.core.models import BKG, Reference
from eval_pipeline.core.query_memo import MemoisedQueries


class CountingDatabase(Database):
    """A real SQLite warehouse that counts the statements it runs."""

    def __init__(self, url: str) -> None:
        super().__init__(url, read_only=False)
        self.reads: list[str] = []

    def query(self, sql: str, **params: Any) -> Any:
        self.reads.append(sql)
        return super().query(sql, **params)

    def scalar(self, sql: str, **params: Any) -> Any:
        self.reads.append(sql)
        return super().scalar(sql, **params)


@pytest.fixture
def db(tmp_path: Path) -> CountingDatabase:
    handle = CountingDatabase(f"sqlite:///{tmp_path / 'w.db'}")
    handle.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT, month TEXT)")
    for i, (kind, month) in enumerate([("a", "2026-01"), ("a", "2026-02"), ("b", "2026-02")]):
        handle.execute("INSERT INTO events VALUES (:i, :k, :m)", i=i, k=kind, m=month)
    handle.reads.clear()
    return handle


BKG_DOC: dict[str, Any] = {
    "name": "memo",
    "tables": [
        {
            "name": "events",
            "description": "events",
            "columns": [
                {"name": "id", "type": "integer", "description": ""},
                {"name": "kind", "type": "text", "description": ""},
                {"name": "month", "type": "text", "description": ""},
            ],
            "primary_key": ["id"],
        }
    ],
    "kpis": [
        {
            "name": "events_in_month",
            "description": "events of a kind in one month, read in full and filtered after",
            "tables": ["events"],
            "unit": "count",
            "params": [
                {"name": "kind", "type": "string", "required": True},
                {"name": "month", "type": "string", "required": True},
            ],
            "python_function": (
                "def events_in_month(db, kind, month):\n"
                "    rows = db.query('SELECT month FROM events WHERE kind = :k', k=kind)\n"
                "    rows['month'] = rows['month'] + '!'\n"  # edits its own copy
                "    return int((rows['month'] == month + '!').sum())\n"
            ),
        }
    ],
}


def test_the_same_read_for_other_windows_runs_once(db: CountingDatabase) -> None:
    runtime = BKGRuntime(BKG.model_validate(BKG_DOC))
    values = [
        runtime.evaluate(Reference(kpi="events_in_month", params={"kind": k, "month": m}), db)
        for k, m in [("a", "2026-01"), ("a", "2026-02"), ("a", "2026-03"), ("b", "2026-02")]
    ]
    assert [v.value for v in values] == [1, 1, 0, 1], "each caller edits only its own copy"
    assert runtime.calls_made == 4, "every distinct call still counts as a reference call"
    assert len(db.reads) == 2, "one read per kind"


def test_reads_are_kept_per_runtime(db: CountingDatabase) -> None:
    for _ in range(2):
        runtime = BKGRuntime(BKG.model_validate(BKG_DOC))
        ref = Reference(kpi="events_in_month", params={"kind": "a", "month": "2026-01"})
        assert runtime.evaluate(ref, db).value == 1
    assert len(db.reads) == 2, "a new runtime (a new run) reads the warehouse again"


def test_scalars_and_other_attributes(db: CountingDatabase) -> None:
    reads = MemoisedQueries(db)
    sql = "SELECT COUNT(*) FROM events WHERE kind = :k"
    assert [reads.scalar(sql, k="a"), reads.scalar(sql, k="a"), reads.scalar(sql, k="b")] == [
        2,
        2,
        1,
    ]
    assert len(db.reads) == 2
    assert reads.dialect == "sqlite"


def test_large_reads_and_the_oldest_reads_are_not_kept(
    db: CountingDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(query_memo, "MAX_ROWS", 2)
    monkeypatch.setattr(query_memo, "MAX_ENTRIES", 1)
    reads = MemoisedQueries(db)
    everything = "SELECT * FROM events"
    one_kind = "SELECT * FROM events WHERE kind = :k"
    for sql, params in [(everything, {}), (everything, {}), (one_kind, {"k": "a"})]:
        reads.query(sql, **params)
    assert db.reads == [everything, everything, one_kind], "3 rows exceed MAX_ROWS"
    reads.query(one_kind, k="b")  # evicts kind a
    reads.query(one_kind, k="a")
    assert db.reads[-2:] == [one_kind, one_kind]
