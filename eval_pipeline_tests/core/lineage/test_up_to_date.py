"""Which cases an evaluation can leave alone: all four stage results current, nothing stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.hashing import content_hash
from eval_pipeline.core.inputs import load_bkg, load_golden
from eval_pipeline.core.lineage.fingerprints import StageFingerprints
from eval_pipeline.core.lineage.staleness import case_tables
from eval_pipeline.core.lineage.up_to_date import up_to_date_cases
from eval_pipeline.core.models import GoldenCase
from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.settings import PROJECT_ROOT

TINY = PROJECT_ROOT / "data" / "tiny"
RUN = "r1"


def stage(
    versions: dict[str, str], tables: dict[str, str], oracle: dict[str, float] | None = None
) -> StageFingerprints:
    return StageFingerprints(
        versions=versions,
        bkg=load_bkg(TINY / "bkg.json"),
        chatbot_target={"kind": "sse", "url": "http://bot", "callable": ""},
        judge=None,
        scoring={"sla": {"p95_s": 5.0}},
        table_fingerprints=lambda: dict(tables),
        oracle=oracle,
    )


def write(
    store: ResultsStore, asset: str, run_key: str, case_id: str, payload: Any, fp: str
) -> str:
    record = StoredRecord(run_key, case_id, payload, content_hash(payload), fp)
    store.append(asset, [record], "dagster-run")
    return record.content_hash


def evaluate_all(store: ResultsStore, fps: StageFingerprints, cases: dict[str, Any]) -> None:
    """Store every stage of every case as a materialization with these fingerprints would."""
    for case_id, golden in cases.items():
        write(store, "golden_cases", "", case_id, golden, "")
        response = write(
            store, "chatbot_responses", RUN, case_id, {"answer": case_id}, fps.chatbot(golden)
        )
        claims = write(
            store, "extracted_claims", RUN, case_id, {"claims": []}, fps.claims(golden, response)
        )
        verdicts = write(
            store,
            "oracle_verdicts",
            RUN,
            case_id,
            {"verdicts": [], "stale_tables": []},
            fps.oracle(golden, response, claims),
        )
        write(
            store, "judge_scores", RUN, case_id, {"dims": 1}, fps.scores(golden, response, verdicts)
        )


@pytest.fixture
def setup(tmp_path: Path) -> tuple[ResultsStore, dict[str, Any], dict[str, str]]:
    bkg = load_bkg(TINY / "bkg.json")
    cases = {
        c.id: c.model_dump(mode="json") for c in load_golden(TINY / "golden_dataset.json", bkg)
    }
    store = ResultsStore(f"sqlite:///{tmp_path / 'results.db'}")
    versions = {
        "chatbot_responses": "1",
        "extracted_claims": "1",
        "oracle_verdicts": "1",
        "judge_scores": "1",
    }
    tables = {t.name: "v1" for t in bkg.tables}
    evaluate_all(store, stage(versions, tables), cases)
    return store, cases, {**versions, **{f"table:{k}": v for k, v in tables.items()}}


def split(config: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    versions = {k: v for k, v in config.items() if not k.startswith("table:")}
    tables = {k.removeprefix("table:"): v for k, v in config.items() if k.startswith("table:")}
    return versions, tables


def test_a_fully_evaluated_run_is_up_to_date(setup: Any) -> None:
    store, cases, config = setup
    assert up_to_date_cases(store, RUN, list(cases), stage(*split(config))) == set(cases)


def test_a_new_stage_version_makes_every_case_out_of_date(setup: Any) -> None:
    store, cases, config = setup
    bumped = {**config, "judge_scores": "2"}
    assert up_to_date_cases(store, RUN, list(cases), stage(*split(bumped))) == set()


def test_another_tolerance_rule_re_verifies_every_case(setup: Any) -> None:
    store, cases, config = setup
    wider = stage(*split(config), oracle={"hedge_units": 1.0, "hedge_cap": 0.2})
    assert up_to_date_cases(store, RUN, list(cases), wider) == set()


def test_a_changed_table_outdates_exactly_the_cases_whose_truth_reads_it(setup: Any) -> None:
    store, cases, config = setup
    bkg = load_bkg(TINY / "bkg.json")
    reads = {c: set(case_tables(GoldenCase.model_validate(g), bkg)) for c, g in cases.items()}
    readers = {t: {c for c, r in reads.items() if t in r} for t in split(config)[1]}
    table = next(t for t, cs in readers.items() if 0 < len(cs) < len(cases))
    changed = stage(*split({**config, f"table:{table}": "v2"}))
    current = up_to_date_cases(store, RUN, list(cases), changed)
    assert set(cases) - current == readers[table]


def test_a_stale_verdict_or_another_run_is_not_up_to_date(setup: Any) -> None:
    store, cases, config = setup
    fps = stage(*split(config))
    first, second = sorted(cases)[:2]
    golden = cases[first]
    response = content_hash({"answer": first})
    claims = content_hash({"claims": []})
    stale = {"verdicts": [], "stale_tables": ["t"]}
    write(store, "oracle_verdicts", RUN, first, stale, fps.oracle(golden, response, claims))
    assert first not in up_to_date_cases(store, RUN, list(cases), fps)
    assert second in up_to_date_cases(store, RUN, list(cases), fps)
    assert up_to_date_cases(store, "another-run", list(cases), fps) == set()
