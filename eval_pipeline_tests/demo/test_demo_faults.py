"""End to end on the demo world: the real bot over HTTP/SSE, the whole graph through Dagster.

The bot records the fault it injected into each answer in a log the evaluator never sees. Every
wrong-number fault must yield a contradicted claim, and no answer without one may be accused.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.demo import warehouse
from eval_pipeline.demo.bot.faults import read_fault_log
from eval_pipeline.demo.bot.runner import start_bot
from eval_pipeline.runner.evaluate import evaluate
from eval_pipeline_tests.dagster_helpers import eval_instance

NUMBER_FAULTS = {
    "wrong_filter",
    "wrong_grain",
    "hallucinated_number",
    "wrong_rounding",
    "percent_fraction_swap",
}
SEEDS = (1, 2, 3, 4, 5)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def warehouse_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('wh') / 'demo.db'}"
    warehouse.load(url)
    yield url


def run_seed(
    tmp_path: Path, url: str, seed: int | None
) -> tuple[RunSummary, list[dict], ResultsStore]:
    log = tmp_path / f"faults-{seed}.jsonl"
    with start_bot(
        database_url=url, fault_seed=seed, fault_log=log, ttft_s=0.01, tokens_per_s=2000, stall_s=8
    ) as bot:
        overrides = {
            "home": str(tmp_path / "home"),
            "database_url": url,
            "chatbot_url": bot.url,
            "chatbot_read_timeout_s": "4",
            "concurrency": "16",
        }
        with eval_instance() as instance:
            summary = evaluate(f"seed-{seed}", overrides=overrides, instance=instance)
    return (
        summary,
        read_fault_log(log),
        ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}"),
    )


@pytest.fixture(scope="module")
def seeded_runs(
    warehouse_url: str, tmp_path_factory: pytest.TempPathFactory
) -> list[tuple[RunSummary, dict[str, str]]]:
    """(summary, case id → injected fault) per seed."""
    runs = []
    for seed in SEEDS:
        tmp = tmp_path_factory.mktemp(f"seed{seed}")
        summary, log, store = run_seed(tmp, warehouse_url, seed)
        questions = {
            cid: p["question"]
            for cid, p in store.latest("chatbot_responses", f"seed-{seed}").items()
        }
        fault_by_question = {r["question"]: r["fault"] for r in log}
        runs.append((summary, {cid: fault_by_question[q] for cid, q in questions.items()}))
    return runs


def test_all_cases_are_evaluated_with_passes_and_failures(seeded_runs: list) -> None:
    for summary, faults in seeded_runs:
        assert summary.cases_total == 30 and len(faults) == 30
        assert 0 < summary.cases_passed < 30


def test_every_number_fault_is_contradicted_and_no_clean_answer_is(seeded_runs: list) -> None:
    seen: set[str] = set()
    for summary, faults in seeded_runs:
        for case in summary.cases:
            fault = faults[case.case_id]
            contradicted = case.verdict_counts["contradicted"]
            if fault in NUMBER_FAULTS:
                seen.add(fault)
                assert contradicted >= 1, (summary.run_key, case.case_id, fault, case)
                assert not case.passed
            else:
                assert contradicted == 0, (summary.run_key, case.case_id, fault, case)
    assert seen == NUMBER_FAULTS, f"seeds {SEEDS} must exercise every number fault; saw {seen}"


def test_delivery_faults_become_error_states_and_leaks_fail_safety(seeded_runs: list) -> None:
    kinds: set[str] = set()
    for summary, faults in seeded_runs:
        for case in summary.cases:
            fault = faults[case.case_id]
            if fault in {"stream_error", "timeout"}:
                kinds.add(fault)
                assert case.state == "error" and not case.passed
            elif fault in {"pii_leak", "obeyed_injection"}:
                kinds.add(fault)
                assert case.dimensions["safety"].score == 0.0, case
                assert any(g.startswith("safety:") for g in case.gate_failures)
            elif fault == "none":
                assert case.state == "scored"
    assert {"stream_error", "timeout", "pii_leak"} <= kinds


def summary_file(summary: RunSummary) -> str:
    return str(summary.summary_path)


def test_summary_file_lists_each_claim_with_its_verdict_and_evidence(seeded_runs: list) -> None:
    accused = 0
    for summary, _faults in seeded_runs:
        written = json.loads(Path(summary_file(summary)).read_text())
        assert [c["case_id"] for c in written["cases"]] == [c.case_id for c in summary.cases]
        for case in written["cases"]:
            claims = case["claims"]
            if any(e.startswith("chatbot") for e in case["errors"]):  # listed, never verified
                assert all(c["verdict"] is None and c["reason"] for c in claims), claims
                continue
            assert len(claims) == sum(case["verdict_counts"].values()), case["case_id"]
            for claim in claims:
                assert claim["text"] and claim["span"] and claim["reason"], claim
                assert claim["verdict"] in ("supported", "contradicted", "unverifiable", "stale")
                if claim["verdict"] in ("supported", "contradicted"):
                    assert claim["evidence"], claim
                    assert all(e["source"] and e["kind"] for e in claim["evidence"]), claim
            accused += sum(c["verdict"] == "contradicted" for c in claims)
    assert accused > 0


def test_compare_reports_a_clearly_worse_run_and_exits_1(
    seeded_runs: list, warehouse_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from eval_pipeline.cli.main import main

    clean, _, _ = run_seed(tmp_path, warehouse_url, None)
    assert clean.cases_passed > seeded_runs[0][0].cases_passed
    assert main(["compare", summary_file(clean), summary_file(seeded_runs[0][0])]) == 1
    out = capsys.readouterr().out
    assert "regression" in out.lower()


def test_compare_of_two_runs_with_the_same_seed_exits_0(
    seeded_runs: list, warehouse_url: str, tmp_path: Path
) -> None:
    from eval_pipeline.cli.main import main

    first = seeded_runs[0][0]
    again, _, _ = run_seed(tmp_path, warehouse_url, SEEDS[0])
    assert [c.passed for c in again.cases] == [c.passed for c in first.cases]
    assert main(["compare", summary_file(first), summary_file(again)]) == 0
