"""The results store is append-only and returns the newest record per case, on both engines."""

from __future__ import annotations

from pathlib import Path

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
