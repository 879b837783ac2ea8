from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from eval_pipeline.cli.compare import add_subcommands
from eval_pipeline.core.aggregate import GatePolicy, judge_case, summarize_run
from eval_pipeline.core.analysis.compare import compare_runs, trend
from eval_pipeline.core.models import CaseOutcome, DimensionResult
from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.core.summary import McNemar, Rates, RunSummary
from eval_pipeline.settings import BARE_WEIGHTS, FULL_WEIGHTS

POLICY = GatePolicy(weights=FULL_WEIGHTS, weights_bare=BARE_WEIGHTS)


def outcome(
    case_id: str,
    *,
    oracle: float = 1.0,
    quality: float = 0.9,
    sql_state: str = "scored",
    error: bool = False,
) -> CaseOutcome:
    """A case judged by the real aggregation: an oracle below 1.0 means a contradicted claim."""
    contradicted = 0 if oracle == 1.0 else 1
    dims = {
        "oracle": DimensionResult(
            name="oracle",
            state="scored",
            score=oracle,
            reason=f"{contradicted} contradicted",
            details={"has_tool_evidence": True, "supported": 1, "contradicted": contradicted},
        ),
        "content_quality": DimensionResult(
            name="content_quality", state="scored", score=quality, reason=f"rubric {quality}"
        ),
        "sql": DimensionResult(
            name="sql",
            state=sql_state,  # type: ignore[arg-type]
            score=1.0 if sql_state == "scored" else None,
            reason="parses" if sql_state == "scored" else "no SQL",
        ),
    }
    return judge_case(
        case_id,
        dims,
        has_expected_answer=True,
        has_reference=True,
        chatbot_errors=["HTTP 500"] if error else [],
        policy=POLICY,
    )


def summary(run_key: str, outcomes: list[CaseOutcome]) -> RunSummary:
    return summarize_run(run_key, outcomes, report_path=f"/reports/{run_key}/report.html")


def ids(n: int) -> list[str]:
    return [f"TC_{i:03d}" for i in range(n)]


def test_clearly_worse_head_is_a_significant_regression_with_evidence() -> None:
    base = summary("base", [outcome(c) for c in ids(12)])
    worse = [outcome(c, oracle=0.5 if i < 10 else 1.0) for i, c in enumerate(ids(12))]
    head = summary("head", worse)
    result = compare_runs(base, head)

    assert result.mcnemar == McNemar(pass_to_fail=10, fail_to_pass=0, p_value=2 / 1024)
    assert result.significant_regression is True
    assert result.overall.ci_high < 0
    assert result.overall.pairs == 12
    assert result.dimensions["oracle"].mean_delta == pytest.approx(-5 / 12, abs=1e-4)
    assert [c.case_id for c in result.regressions] == ids(10)
    assert result.improvements == []
    first = result.regressions[0]
    assert (first.base_result, first.head_result) == ("pass", "fail")
    assert [g.split(":")[0] for g in first.gates_added] == ["oracle"]
    assert first.verdict_changes == {"contradicted": 1}
    oracle_change = next(d for d in first.dimension_changes if d.dimension == "oracle")
    assert (oracle_change.base_score, oracle_change.head_score) == (1.0, 0.5)
    assert oracle_change.head_reason == "1 contradicted"
    json.dumps(result.model_dump(mode="json"))  # the --json output must serialise as is


def test_identical_runs_are_not_a_regression() -> None:
    cases = [outcome(c, quality=0.6 + 0.03 * i) for i, c in enumerate(ids(10))]
    result = compare_runs(summary("a", cases), summary("b", cases))
    assert result.significant_regression is False
    assert result.mcnemar.p_value == 1.0
    assert (result.overall.ci_low, result.overall.ci_high) == (0.0, 0.0)
    assert result.regressions == result.improvements == []
    assert result.significance_reasons == []


def test_cases_in_only_one_run_are_listed_but_never_paired() -> None:
    base = summary("base", [outcome("A"), outcome("B"), outcome("C")])
    head = summary("head", [outcome("B"), outcome("C"), outcome("D", oracle=0.0)])
    result = compare_runs(base, head)
    assert result.only_in_base == ["A"]
    assert result.only_in_head == ["D"]
    assert result.paired_cases == 2
    assert [c.case_id for c in result.cases] == ["B", "C"]
    assert result.mcnemar.pass_to_fail == 0  # D fails but has no baseline to regress from
    assert result.regressions == []
    assert result.pass_rate == Rates(base=1.0, head=1.0)


def test_a_consistent_score_drop_without_flips_is_caught_by_the_interval() -> None:
    base = summary("base", [outcome(c, quality=0.9) for c in ids(8)])
    head = summary("head", [outcome(c, quality=0.5) for c in ids(8)])
    result = compare_runs(base, head)
    assert result.mcnemar.p_value == 1.0  # every case still passes
    assert result.significant_regression is True
    # content_quality carries 0.25 of the 0.65 weight scored here: 0.25 / 0.65 × -0.4
    assert result.overall.ci_high == pytest.approx(-0.1538, abs=1e-4)
    assert len(result.significance_reasons) == 1
    assert "CI" in result.significance_reasons[0]
    assert len(result.regressions) == 8
    assert all(c.base_result == c.head_result == "pass" for c in result.regressions)


def test_too_few_pairs_report_no_interval_and_cannot_gate() -> None:
    base = summary("base", [outcome(c, quality=0.9) for c in ids(3)])
    head = summary("head", [outcome(c, quality=0.5) for c in ids(3)])
    result = compare_runs(base, head)
    assert result.overall.mean_delta == pytest.approx(-0.1538, abs=1e-4)
    assert result.overall.ci_low is None and result.overall.ci_high is None
    assert result.significant_regression is False


def test_significant_improvement_is_not_a_regression() -> None:
    base = summary("base", [outcome(c, oracle=0.5) for c in ids(10)])
    head = summary("head", [outcome(c) for c in ids(10)])
    result = compare_runs(base, head)
    assert result.mcnemar.fail_to_pass == 10
    assert result.mcnemar.p_value < 0.05
    assert result.significant_regression is False
    assert len(result.improvements) == 10
    assert [g.split(":")[0] for g in result.improvements[0].gates_removed] == ["oracle"]


def test_an_error_is_its_own_outcome_never_a_pass_fail_flip() -> None:
    """A case that went into error is listed as a new error, not as a regression, and McNemar
    counts only the pairs answered in both runs; one that came out of error is recovered."""
    base = summary(
        "base",
        [outcome(c, oracle=0.5 if i == 2 else 1.0, error=i == 1) for i, c in enumerate(ids(6))],
    )
    head = summary("head", [outcome(c, error=i == 0) for i, c in enumerate(ids(6))])
    result = compare_runs(base, head)
    assert result.answered_pairs == 4
    assert (result.mcnemar.pass_to_fail, result.mcnemar.fail_to_pass) == (0, 1)
    assert [c.case_id for c in result.improvements] == ["TC_002"]
    assert result.regressions == []
    changes = result.error_changes
    assert [c.case_id for c in changes.new] == ["TC_000"]
    assert [c.case_id for c in changes.recovered] == ["TC_001"]
    assert changes.persisting == []
    assert result.error_rate.head == pytest.approx(1 / 6, abs=1e-4)
    assert result.overall.pairs == 4  # errored cases have no overall


def test_the_cli_lists_error_changes_apart_and_states_mcnemar_without_them() -> None:
    from eval_pipeline.cli.compare import format_comparison

    base = summary("base", [outcome(c) for c in ids(6)])
    head = summary("head", [outcome(c, error=i == 0) for i, c in enumerate(ids(6))])
    text = format_comparison(compare_runs(base, head))
    assert "McNemar over the 5 pairs answered in both runs: 0 pass→fail, 0 fail→pass" in text
    assert "regressions: 0" in text
    assert "new errors (answered in base, in error in head): 1\n  TC_000: pass → error" in text


def test_dimension_skipped_in_one_run_is_a_change_but_not_a_pair() -> None:
    base = summary("base", [outcome(c) for c in ids(6)])
    head = summary("head", [outcome(c, sql_state="skipped") for c in ids(6)])
    result = compare_runs(base, head)
    assert result.dimensions["sql"].pairs == 0
    assert result.dimensions["sql"].mean_delta is None
    change = result.cases[0].dimension_changes
    assert [(d.dimension, d.base_state, d.head_state) for d in change] == [
        ("sql", "scored", "skipped")
    ]


def test_trend_takes_the_last_runs_and_reports_the_change() -> None:
    runs = [
        summary("r1", [outcome("A"), outcome("B", oracle=0.5)]),
        summary("r2", [outcome("A"), outcome("B")]),
        summary("r3", [outcome("A", quality=0.5), outcome("B", error=True)]),
    ]
    result = trend(runs, last_n=2)
    assert [r["run_key"] for r in result["runs"]] == ["r2", "r3"]
    assert [r["pass_rate"] for r in result["runs"]] == [1.0, 0.5]
    assert [r["coverage"] for r in result["runs"]] == [1.0, 0.5]
    assert result["dimensions"][:3] == ["oracle", "content_quality", "on_topic"]
    assert result["change"]["pass_rate"] == -0.5
    # r3: mean of 0.5 (A) and 0.9 (B, scored although the case errored) against 0.9
    assert result["change"]["dimension_means"]["content_quality"] == pytest.approx(-0.2)
    assert len(trend(runs)["runs"]) == 3
    assert trend(runs[:1])["change"] == {}


def _run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ResultsStore:
    url = f"sqlite:///{tmp_path / 'results.db'}"
    monkeypatch.setenv("EVAL_HOME", str(tmp_path))
    monkeypatch.setenv("EVAL_RESULTS_URL", url)
    results = ResultsStore(url)
    good = summary("good", [outcome(c) for c in ids(10)])
    bad = summary("bad", [outcome(c, oracle=0.5) for c in ids(10)])
    for s in (good, bad):
        results.append(
            "eval_run",
            [
                StoredRecord(
                    run_key=s.run_key,
                    case_id="",
                    payload=s.model_dump(mode="json"),
                    content_hash="h",
                )
            ],
            "dagster-run",
        )
    return results


def test_compare_cli_exit_code_report_and_json(
    store: ResultsStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "cmp.json"
    assert _run_cli(["compare", "good", "bad", "--json", str(out_json)]) == 1
    text = capsys.readouterr().out
    assert "10 pass→fail, 0 fail→pass" in text
    assert "SIGNIFICANT REGRESSION" in text
    assert "TC_000: pass → fail" in text
    assert json.loads(out_json.read_text())["significant_regression"] is True

    assert _run_cli(["compare", "good", "good"]) == 0
    assert "no significant regression" in capsys.readouterr().out
    assert _run_cli(["compare", "bad", "good"]) == 0


def test_compare_cli_unknown_run_key_is_a_clear_error(store: ResultsStore) -> None:
    with pytest.raises(ValueError, match="no run summary for run key 'nope'"):
        _run_cli(["compare", "good", "nope"])


def test_history_cli_prints_one_row_per_attempt(
    store: ResultsStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run_cli(["history"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [row[:3] for row in rows[:3]] == [
        ["status", "run", "cases"],
        ["current*", "good", "#1"],
        ["current*", "bad", "#1"],
    ]
    assert rows[2][4] == "0%" and rows[3][0] == "change"
    assert _run_cli(["history", "--last", "1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [row[:3] for row in rows] == [["status", "run", "cases"], ["current*", "bad", "#1"]]
