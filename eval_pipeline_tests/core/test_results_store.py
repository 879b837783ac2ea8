"""The results store is append-only and returns the newest record per case, on both engines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.results_store import ResultsStore, StoredRecord


def rec(run: str, case: str, value: int) -> StoredRecord:
    return StoredRecord(run_key=run, case_id=case, payload={"v": value}, content_hash=str(value))


def exercise(store: ResultsStore) -> None:
    assert (
        store.append("a", [rec("r1", "c1", 1), rec("r1", "c2", 2), rec("r2", "c1", 3)], "run-1")
        == 3
    )
    store.append("a", [rec("r1", "c1", 10)], "run-2")
    store.append("b", [rec("r1", "c1", 99)], "run-2")
    assert store.latest("a", "r1") == {"c1": {"v": 10}, "c2": {"v": 2}}
    assert store.latest("a", "r1", ["c2"]) == {"c2": {"v": 2}}
    assert store.latest("a", "r2") == {"c1": {"v": 3}}
    assert store.history("a", "r1", "c1") == [{"v": 1}, {"v": 10}]
    assert store.run_keys("a") == ["r1", "r2"]
    assert store.latest("missing", "r1") == {}


def test_sqlite_store(tmp_path: Path) -> None:
    exercise(ResultsStore(f"sqlite:///{tmp_path / 'deep' / 'results.db'}"))


def test_large_batch_is_written_in_chunks(tmp_path: Path) -> None:
    store = ResultsStore(f"sqlite:///{tmp_path / 'r.db'}")
    assert store.append("a", (rec("r", f"c{i}", i) for i in range(1234)), "x") == 1234
    assert len(store.latest("a", "r")) == 1234


@pytest.mark.postgres
def test_postgres_store(pg_schema_url: str) -> None:
    exercise(ResultsStore(pg_schema_url))


def test_latest_rows_carry_provenance_and_calls_are_summed_per_run(tmp_path: Path) -> None:
    store = ResultsStore(f"sqlite:///{tmp_path / 'r.db'}")
    store.append(
        "a",
        [StoredRecord("r", "c1", {"v": 1}, "h", input_fingerprint="fp1", reused=False)],
        "dr-1",
    )
    store.append(
        "a", [StoredRecord("r", "c1", {"v": 1}, "h", input_fingerprint="fp1", reused=True)], "dr-2"
    )
    row = store.latest_rows("a", "r")["c1"]
    assert (row.input_fingerprint, row.dagster_run_id, row.reused) == ("fp1", "dr-2", True)
    store.record_calls("dr-1", "a", {"chatbot": 3, "reference": 2})
    store.record_calls("dr-2", "a", {"chatbot": 0})
    store.record_calls("dr-2", "b", {"judge": 4})
    assert store.calls_for(["dr-2"]) == {"chatbot": 0, "judge": 4, "reference": 0}
    assert store.calls_for(["dr-1", "dr-2"]) == {"chatbot": 3, "judge": 4, "reference": 2}
    assert store.calls_for([]) == {"chatbot": 0, "judge": 0, "reference": 0}


def test_non_finite_numbers_are_stored_as_null_and_views_exist(tmp_path: Path) -> None:
    import sqlalchemy as sa

    store = ResultsStore(f"sqlite:///{tmp_path / 'r.db'}")
    store.append(
        "a", [StoredRecord("r", "c", {"x": float("nan"), "y": [float("inf"), 1.5]}, "h")], "d"
    )
    assert store.latest("a", "r") == {"c": {"x": None, "y": [None, 1.5]}}
    views = set(sa.inspect(store.engine).get_view_names())
    assert {"eval_dimension_scores", "eval_claims", "eval_runs"} <= views


def test_stored_records_are_read_in_key_order_a_chunk_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eval_pipeline.pipeline import io_manager
    from eval_pipeline.pipeline.io_manager import StoredRecords

    store = ResultsStore(f"sqlite:///{tmp_path / 'r.db'}")

    def write(case_id: str, version: int) -> None:
        payload = {"case_id": case_id, "tags": [f"v{version}"]}
        store.append("judge_scores", [StoredRecord("r1", case_id, payload, str(version))], "run")

    for case_id in ("c", "a", "e", "b"):
        write(case_id, 1)
    write("a", 2)
    reads: list[list[str]] = []
    latest = store.latest

    def counted(asset: str, run_key: str, case_ids: Any = None) -> Any:
        reads.append(sorted(case_ids))
        return latest(asset, run_key, case_ids)

    monkeypatch.setattr(io_manager, "CHUNK", 2)
    monkeypatch.setattr(store, "latest", counted)
    records = StoredRecords(store, "judge_scores", {"r1": ["a", "b", "c", "d", "e"]})
    assert len(records) == 4, "a partition with no record is left out"
    assert reads == [], "nothing is read before the records are iterated"
    assert [(k, r.tags) for k, r in records.records()] == [
        (("r1", "a"), ["v2"]),
        (("r1", "b"), ["v1"]),
        (("r1", "c"), ["v1"]),
        (("r1", "e"), ["v1"]),
    ]
    assert reads == [["a", "b"], ["c", "e"]]
