from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from eval_pipeline.core.aggregate import GatePolicy, judge_case, summarize_run
from eval_pipeline.core.analysis.history import (
    HISTORY_VIEWS,
    create_history_views,
    ensure_history_views,
)
from eval_pipeline.core.models import (
    Claim,
    ClaimContract,
    DimensionResult,
    Evidence,
    OracleResult,
    Verdict,
)
from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ResultsStore]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'results.db'}"
    else:
        url = request.getfixturevalue("pg_schema_url")
    results = ResultsStore(url)
    yield results
    results.engine.dispose()


def put(
    store: ResultsStore,
    asset: str,
    run_key: str,
    case_id: str,
    payload: Any,
    *,
    reused: bool = False,
) -> None:
    record = StoredRecord(
        run_key=run_key, case_id=case_id, payload=payload, content_hash="h", reused=reused
    )
    store.append(asset, [record], "dagster-run-1")


def dims(oracle: float, sql_state: str = "scored") -> dict[str, DimensionResult]:
    return {
        "oracle": DimensionResult(
            name="oracle", state="scored", score=oracle, method="oracle", reason=f"o={oracle}"
        ),
        "sql": DimensionResult(
            name="sql",
            state=sql_state,  # type: ignore[arg-type]
            score=1 if sql_state == "scored" else None,
            method="sqlglot",
            reason="ok" if sql_state == "scored" else "no SQL",
        ),
    }


def judge_payload(case_id: str, dimensions: dict[str, DimensionResult]) -> dict[str, Any]:
    """The judge_scores record exactly as the asset writes it."""
    return {
        "case_id": case_id,
        "has_expected_answer": False,
        "has_reference": True,
        "tags": [],
        "chatbot_errors": [],
        "dimensions": {n: d.model_dump(mode="json") for n, d in dimensions.items()},
    }


def rows(store: ResultsStore, sql: str) -> list[dict[str, Any]]:
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(sa.text(sql))]


def test_dimension_scores_keep_every_materialization_and_mark_the_latest(
    store: ResultsStore,
) -> None:
    assert create_history_views(store.engine) == HISTORY_VIEWS
    put(store, "judge_scores", "r1", "A", judge_payload("A", dims(0.5)))
    put(store, "judge_scores", "r1", "A", judge_payload("A", dims(1.0, sql_state="skipped")))
    put(store, "judge_scores", "r1", "B", {"case_id": "B", "removed": True, "chatbot_errors": []})
    put(store, "judge_scores", "r2", "A", judge_payload("A", dims(0.25)), reused=True)
    put(store, "chatbot_responses", "r1", "A", {"dimensions": {"oracle": {"score": 9}}})

    got = rows(
        store,
        "SELECT run_key, case_id, dimension, state, score, method, reason, is_latest, reused, "
        "created_at "
        "FROM eval_dimension_scores ORDER BY record_id, dimension",
    )
    assert [
        (r["run_key"], r["case_id"], r["dimension"], r["state"], r["score"], r["is_latest"])
        for r in got
    ] == [
        ("r1", "A", "oracle", "scored", 0.5, 0),
        ("r1", "A", "sql", "scored", 1.0, 0),
        ("r1", "A", "oracle", "scored", 1.0, 1),
        ("r1", "A", "sql", "skipped", None, 1),
        ("r2", "A", "oracle", "scored", 0.25, 1),
        ("r2", "A", "sql", "scored", 1.0, 1),
    ]
    assert [r["reused"] for r in got] == [0, 0, 0, 0, 1, 1]
    assert all(isinstance(r["score"], float) for r in got if r["score"] is not None)
    assert got[2]["reason"] == "o=1.0" and got[2]["method"] == "oracle"
    assert all(r["created_at"] for r in got)

    # the documented example query runs as written
    low = rows(
        store,
        "SELECT run_key, AVG(score) AS mean FROM eval_dimension_scores "
        "WHERE dimension = 'oracle' AND is_latest = 1 AND state = 'scored' "
        "GROUP BY run_key HAVING AVG(score) < 0.8",
    )
    assert [(r["run_key"], r["mean"]) for r in low] == [("r2", 0.25)]


def test_claims_join_the_current_contract_with_its_verdicts(store: ResultsStore) -> None:
    create_history_views(store.engine)
    old = ClaimContract(
        case_id="A", claims=[Claim(id="C1", text="old claim", span=(0, 3), value=1.0)]
    )
    contract = ClaimContract(
        case_id="A",
        claims=[
            Claim(id="C1", text="revenue is 12%", span=(0, 14), value=12.0, unit="percent"),
            Claim(id="C2", text="3 O'Neil's items", span=(15, 30), value=3.0, unit="count"),
        ],
    )
    verdicts = OracleResult(
        case_id="A",
        verdicts=[
            Verdict(
                claim_id="C1",
                verdict="contradicted",
                reason="live value 0.15",
                evidence=[Evidence(source="kpi:rate", kind="kpi", params={"k": 1}, value=0.15)],
            )
        ],
    )
    put(store, "extracted_claims", "r1", "A", old.model_dump(mode="json"))
    put(store, "extracted_claims", "r1", "A", contract.model_dump(mode="json"))
    put(store, "oracle_verdicts", "r1", "A", verdicts.model_dump(mode="json"))
    put(store, "extracted_claims", "r1", "B", ClaimContract(case_id="B").model_dump(mode="json"))

    got = rows(store, "SELECT * FROM eval_claims ORDER BY run_key, case_id, claim_id")
    assert [
        (r["case_id"], r["claim_id"], r["text"], r["value"], r["unit"], r["verdict"]) for r in got
    ] == [
        ("A", "C1", "revenue is 12%", 12.0, "percent", "contradicted"),
        ("A", "C2", "3 O'Neil's items", 3.0, "count", None),
    ]
    evidence = got[0]["evidence"]
    evidence = json.loads(evidence) if isinstance(evidence, str) else evidence
    assert evidence[0]["source"] == "kpi:rate" and evidence[0]["value"] == 0.15
    assert got[0]["reason"] == "live value 0.15"
    assert got[1]["evidence"] is None
    span = got[1]["span"]
    assert (json.loads(span) if isinstance(span, str) else span) == [15, 30]


def test_runs_show_the_current_summary_of_each_run(store: ResultsStore) -> None:
    create_history_views(store.engine)
    policy = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS)

    def summary(run_key: str, oracle: float) -> dict[str, Any]:
        """As ``eval_run`` stores it."""
        outcomes = [
            judge_case(
                c,
                dims(oracle),
                has_expected_answer=False,
                has_reference=True,
                chatbot_errors=[],
                policy=policy,
            )
            for c in ("A", "B")
        ]
        stored = summarize_run(run_key, outcomes, report_path=f"/r/{run_key}.html")
        return stored.model_dump(mode="json")

    put(store, "eval_run", "r1", "", summary("r1", 0.0))
    put(store, "eval_run", "r1", "", summary("r1", 1.0))
    put(store, "eval_run", "r2", "", summary("r2", 0.0))

    got = rows(store, "SELECT * FROM eval_runs ORDER BY run_key")
    assert [
        (r["run_key"], r["cases_total"], r["cases_passed"], r["pass_rate"], r["coverage"])
        for r in got
    ] == [("r1", 2, 2, 1.0, 1.0), ("r2", 2, 0, 0.0, 1.0)]
    assert got[0]["mean_overall"] == pytest.approx(1.0)
    assert got[1]["report_path"] == "/r/r2.html"


def test_views_are_recreated_idempotently_and_stay_live(store: ResultsStore) -> None:
    create_history_views(store.engine)
    create_history_views(store.engine)
    assert rows(store, "SELECT * FROM eval_runs") == []
    put(store, "judge_scores", "r1", "A", judge_payload("A", dims(0.5)))
    assert len(rows(store, "SELECT * FROM eval_dimension_scores")) == 2
    assert len(rows(store, "SELECT * FROM eval_latest_records")) == 1


def test_a_store_with_older_views_gets_the_current_ones(store: ResultsStore) -> None:
    """A store created by an earlier version (eval_claims without ``span``) is upgraded when
    opened, without the user running ``history --create-views``."""
    with store.engine.begin() as conn:
        conn.execute(sa.text("DROP VIEW IF EXISTS eval_claims"))
        conn.execute(sa.text("CREATE VIEW eval_claims AS SELECT run_key FROM records"))
    ensure_history_views(store.engine)
    assert "span" in {c["name"] for c in sa.inspect(store.engine).get_columns("eval_claims")}
