"""The asset graph through real Dagster instances: one run per batch, a second domain."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from dagster import (
    AssetKey,
    DagsterInstance,
    DagsterRunStatus,
    Definitions,
    MultiPartitionsDefinition,
)

from eval_pipeline.core.summary import Calls
from eval_pipeline.demo import tiny
from eval_pipeline.pipeline.definitions import build_definitions, defs
from eval_pipeline.pipeline.executors import BROKER_ENV, QUEUE_ENV
from eval_pipeline.pipeline.partitions import case_range_tags
from eval_pipeline.pipeline.sensors import cases_job, golden_job, summary_job
from eval_pipeline.runner.evaluate import PER_CASE_ASSETS, evaluate, run_assets
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.core.test_summary import documented_fields, summary_json_fields
from eval_pipeline_tests.dagster_helpers import eval_instance

TINY = PROJECT_ROOT / "data" / "tiny"
GRAPH = ("golden_cases", *PER_CASE_ASSETS, "eval_run", "eval_report")


def test_definitions_load_with_both_partition_dimensions() -> None:
    Definitions.validate_loadable(defs)
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert set(GRAPH) <= keys
    assert "warehouse/hse_audits" in keys  # one external asset per BKG table
    for name in PER_CASE_ASSETS:
        pdef = graph.get(AssetKey(name)).partitions_def
        assert isinstance(pdef, MultiPartitionsDefinition)
        assert {d.name for d in pdef.partitions_defs} == {"run", "case"}
    assert graph.get(AssetKey("eval_run")).partitions_def.name == "eval_runs"
    assert graph.get(AssetKey("golden_cases")).partitions_def.name == "golden_cases"
    upstream = {k.to_user_string() for k in graph.get(AssetKey("oracle_verdicts")).parent_keys}
    assert {"extracted_claims", "chatbot_responses", "golden_cases", "warehouse/sites"} <= upstream


@pytest.mark.parametrize("kind", ["in_process", "multiprocess"])
def test_every_job_of_the_code_location_uses_the_configured_executor(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_EXECUTOR", kind)
    jobs = build_definitions().get_repository_def().get_all_jobs()  # what the daemon launches
    assert {golden_job.name, cases_job.name, summary_job.name} <= {j.name for j in jobs}
    assert {j.executor_def.name for j in jobs} == {kind}


def test_with_the_celery_setting_every_job_sends_its_steps_to_the_configured_broker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dagster_celery import celery_executor

    monkeypatch.setenv("EVAL_EXECUTOR", "celery")
    monkeypatch.setenv(BROKER_ENV, "pyamqp://eval@broker.invalid:5672//")
    monkeypatch.setenv(QUEUE_ENV, "eval-q")
    jobs = build_definitions().get_repository_def().get_all_jobs()
    assert {golden_job.name, cases_job.name, summary_job.name} <= {j.name for j in jobs}
    for job in jobs:
        assert job.executor_def.executor_creation_fn is celery_executor.executor_creation_fn
        config = job.executor_def.config_schema.resolve_config({}).value["config"]
        assert config["broker"] == "pyamqp://eval@broker.invalid:5672//", job.name
        assert config["config_source"]["task_default_queue"] == "eval-q", job.name


def tiny_overrides(tmp_path: Path, chatbot: str) -> dict[str, str]:
    url = f"sqlite:///{tmp_path / 'tiny.db'}"
    tiny.load(url)
    return {
        "home": str(tmp_path / "home"),
        "bkg_path": str(TINY / "bkg.json"),
        "golden_path": str(TINY / "golden_dataset.json"),
        "database_url": url,
        "chatbot_kind": "callable",
        "chatbot_callable": f"eval_pipeline_tests.tiny_chatbot:{chatbot}",
    }


def materialized_partitions(instance: DagsterInstance, asset: str) -> dict[str, set[str]]:
    """Partition keys materialized per Dagster run id."""
    by_run: dict[str, set[str]] = {}
    for record in instance.fetch_materializations(AssetKey(asset), limit=1000).records:
        by_run.setdefault(record.run_id, set()).add(str(record.partition_key))
    return by_run


def test_second_domain_runs_through_the_same_graph_in_one_dagster_run(tmp_path: Path) -> None:
    overrides = tiny_overrides(tmp_path, "honest")
    with eval_instance() as instance:
        summary = evaluate("r1", overrides=overrides, instance=instance)
        runs = instance.get_runs()
        # golden cases, the whole per-case batch, the run-level assets: three runs, not one per case
        assert len(runs) == 3
        per_case_runs = [materialized_partitions(instance, a) for a in PER_CASE_ASSETS]
        for by_run in per_case_runs:
            assert len(by_run) == 1, "every per-case asset must be materialized by one run"
            (keys,) = by_run.values()
            assert keys == {f"TC_00{i}|r1" for i in range(1, 6)}
        assert len({next(iter(b)) for b in per_case_runs}) == 1, "all per-case assets share the run"

    assert summary.cases_total == 5
    assert summary.verdict_counts["contradicted"] == 0
    assert summary.verdict_counts["supported"] >= 5
    assert summary.cases_passed == 5, [c.gate_failures for c in summary.cases]
    assert Path(summary.report_path).is_file()
    assert summary_json_fields(summary.summary_path) == documented_fields()


def test_waves_overlap_in_threads_within_the_chatbots_concurrency(tmp_path: Path) -> None:
    """Five cases in waves of two: three case runs at once, never more calls than allowed, the
    same verdicts as one run, and the instance left as it was."""
    from eval_pipeline.runner.internals import NoOpComputeLogManager
    from eval_pipeline_tests import tiny_chatbot

    overrides = {
        **tiny_overrides(tmp_path, "slow_honest"),
        "wave_cases": "2",
        "concurrency": "2",
    }
    tiny_chatbot.IN_FLIGHT["most"] = 0
    with eval_instance() as instance:
        summary = evaluate("r-waves", overrides=overrides, instance=instance)
        by_run = materialized_partitions(instance, "judge_scores")
        assert sorted(sorted(keys) for keys in by_run.values()) == [
            ["TC_001|r-waves", "TC_002|r-waves"],
            ["TC_003|r-waves", "TC_004|r-waves"],
            ["TC_005|r-waves"],
        ]
        for asset in PER_CASE_ASSETS:
            assert materialized_partitions(instance, asset).keys() == by_run.keys()
        assert not {"get_dynamic_partitions", "get_yaml_python_handlers"} & set(vars(instance))
        assert not isinstance(instance.compute_log_manager, NoOpComputeLogManager)
    assert tiny_chatbot.IN_FLIGHT["most"] == 2
    assert summary.cases_total == 5 and summary.cases_passed == 5
    assert summary.calls.chatbot == 5


def test_two_rounds_are_asked_ahead_and_each_wave_brings_its_golden_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first two rounds of questions go out before Dagster creates any run, so the wave
    that still asks sets up first; each wave's golden cases run just before it, the run-level
    run is created while the last wave is still running, every run succeeds and no question is
    asked twice."""
    from eval_pipeline_tests import tiny_chatbot

    overrides = {**tiny_overrides(tmp_path, "slow_honest"), "wave_cases": "2", "concurrency": "2"}
    tiny_chatbot.ASKED.clear()
    asked_when_first_run_created: list[int] = []
    create_run_for_job = DagsterInstance.create_run_for_job

    def noting_questions_in_flight(self: DagsterInstance, *args: Any, **kwargs: Any) -> Any:
        # Questions asked ahead are in flight on other threads, so give them time to arrive;
        # questions asked by a step could not arrive before its run exists, whatever the wait.
        if not asked_when_first_run_created:
            deadline = time.monotonic() + 10
            while tiny_chatbot.asked_so_far() < 2 and time.monotonic() < deadline:
                time.sleep(0.005)
            asked_when_first_run_created.append(tiny_chatbot.asked_so_far())
        return create_run_for_job(self, *args, **kwargs)

    monkeypatch.setattr(DagsterInstance, "create_run_for_job", noting_questions_in_flight)
    with eval_instance() as instance:
        summary = evaluate("r-golden", overrides=overrides, instance=instance)
        golden = materialized_partitions(instance, "golden_cases")
        cases = materialized_partitions(instance, "judge_scores")
        records = {r.dagster_run.run_id: r for r in instance.get_run_records()}
        (summary_run,) = materialized_partitions(instance, "eval_run")

    assert sorted(sorted(keys) for keys in golden.values()) == [
        ["TC_001", "TC_002"],
        ["TC_003", "TC_004"],
        ["TC_005"],
    ]
    assert all(r.dagster_run.status == DagsterRunStatus.SUCCESS for r in records.values())
    assert set(tiny_chatbot.ASKED.values()) == {1} and summary.calls.chatbot == 5
    assert asked_when_first_run_created[0] >= 2, "the first round goes out before any run"
    case_of = {min(keys).split("|")[0]: run_id for run_id, keys in cases.items()}
    golden_of = {min(keys): run_id for run_id, keys in golden.items()}
    created = {k: records[v].create_timestamp for k, v in golden_of.items()}
    assert created["TC_005"] < min(created["TC_001"], created["TC_003"]), "the asking wave first"
    # the waves that only record are launched once it has its round of calls
    assert created["TC_001"] > records[case_of["TC_005"]].create_timestamp
    for first in ("TC_001", "TC_003", "TC_005"):
        assert records[golden_of[first]].end_time <= records[case_of[first]].start_time
    last_wave_end = max(records[run_id].end_time for run_id in cases)
    assert records[summary_run].create_timestamp.timestamp() < last_wave_end


def test_a_failed_wave_leaves_no_summary_run_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eval_pipeline.pipeline.io_manager import ResultsIOManager

    handle_output = ResultsIOManager.handle_output

    def failing_on_tc_003(self: ResultsIOManager, context: Any, obj: Any) -> None:
        if context.asset_key.path[-1] == "judge_scores" and ("r-fail", "TC_003") in obj:
            raise RuntimeError("storage unavailable")
        handle_output(self, context, obj)

    monkeypatch.setattr(ResultsIOManager, "handle_output", failing_on_tc_003)
    overrides = {**tiny_overrides(tmp_path, "slow_honest"), "wave_cases": "2", "concurrency": "2"}
    with eval_instance() as instance:
        with pytest.raises(Exception, match="storage unavailable"):
            evaluate("r-fail", overrides=overrides, instance=instance)
        statuses = sorted(r.status.value for r in instance.get_runs())
        assert materialized_partitions(instance, "eval_run") == {}
    assert DagsterRunStatus.NOT_STARTED.value not in statuses
    assert DagsterRunStatus.FAILURE.value in statuses


def test_wrong_numbers_and_a_failing_call_in_the_second_domain(tmp_path: Path) -> None:
    overrides = tiny_overrides(tmp_path, "inflated_units")
    with eval_instance() as instance:
        summary = evaluate("r-bad", overrides=overrides, instance=instance)
    cases = {c.case_id: c for c in summary.cases}
    assert cases["TC_003"].verdict_counts["contradicted"] == 1
    assert not cases["TC_003"].passed
    assert any(g.startswith("oracle:") for g in cases["TC_003"].gate_failures)
    # the crashing call is that case's error; the other cases keep their results
    assert cases["TC_005"].state == "error" and not cases["TC_005"].passed
    assert summary.cases_error == 1 and summary.coverage == pytest.approx(0.8)
    for case_id in ("TC_001", "TC_002", "TC_004"):
        assert cases[case_id].passed, cases[case_id]


def test_a_case_subset_and_rerun_append_history(tmp_path: Path) -> None:
    overrides = tiny_overrides(tmp_path, "honest")
    with eval_instance() as instance:
        first = evaluate(
            "r2", overrides=overrides, instance=instance, case_ids=["TC_002", "TC_004"]
        )
        assert [c.case_id for c in first.cases] == ["TC_002", "TC_004"]
        # non-contiguous selection: one per-case run per contiguous segment (TC_002, TC_004)
        assert len(materialized_partitions(instance, "chatbot_responses")) == 2
        # up to date: not launched again, so nothing is appended
        evaluate("r2", overrides=overrides, instance=instance, case_ids=["TC_002"])
        assert len(materialized_partitions(instance, "chatbot_responses")) == 2
        refreshed = {**overrides, "refresh": "true"}
        evaluate("r2", overrides=refreshed, instance=instance, case_ids=["TC_002"])
        assert len(materialized_partitions(instance, "chatbot_responses")) == 3
    from eval_pipeline.core.results_store import ResultsStore

    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    assert len(store.history("chatbot_responses", "r2", "TC_002")) == 2
    assert len(store.history("chatbot_responses", "r2", "TC_004")) == 1


def test_rerunning_a_finished_run_makes_no_call_and_reuses_every_case(tmp_path: Path) -> None:
    from eval_pipeline_tests import tiny_chatbot

    overrides = tiny_overrides(tmp_path, "honest")
    tiny_chatbot.ASKED.clear()
    with eval_instance() as instance:
        first = evaluate("r3", overrides=overrides, instance=instance)
        assert first.calls.chatbot == 5 and sum(tiny_chatbot.ASKED.values()) == 5
        assert first.calls.reference >= 5
        assert not any(c.reused for c in first.cases)
        runs_before = len(instance.get_runs())
        again = evaluate("r3", overrides=overrides, instance=instance)
        # every case up to date: only the run-level assets are materialized again
        assert len(instance.get_runs()) == runs_before + 1
        # materialized again through Dagster anyway (as from the UI): every step reuses
        tags = case_range_tags("r3", "TC_001", "TC_005")
        run_assets(instance, PER_CASE_ASSETS, overrides, tags=tags)
        rematerialized = evaluate("r3", overrides=overrides, instance=instance)
        versions = {
            asset: {
                r.asset_materialization.tags["dagster/data_version"]
                for r in instance.fetch_materializations(AssetKey(asset), limit=100).records
            }
            for asset in PER_CASE_ASSETS
        }
        records_per_asset = {
            asset: {
                r.run_id
                for r in instance.fetch_materializations(AssetKey(asset), limit=100).records
            }
            for asset in PER_CASE_ASSETS
        }
    assert sum(tiny_chatbot.ASKED.values()) == 5, "a finished run must not ask the chatbot again"
    # content-hash data versions: an unchanged output keeps its version, staling nothing downstream
    assert all(len(v) == 1 for v in versions.values()), versions
    assert all(len(records) == 2 for records in records_per_asset.values()), records_per_asset
    for summary in (again, rematerialized):
        assert summary.calls == Calls(chatbot=0, judge=0, reference=0)
        assert all(c.reused for c in summary.cases)
        assert [c.overall for c in summary.cases] == [c.overall for c in first.cases]


def test_a_new_judge_version_rescores_without_asking_the_chatbot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eval_pipeline.core.results_store import ResultsStore
    from eval_pipeline.versions import STAGE_VERSIONS
    from eval_pipeline_tests import tiny_chatbot

    overrides = tiny_overrides(tmp_path, "honest")
    tiny_chatbot.ASKED.clear()
    with eval_instance() as instance:
        evaluate("r4", overrides=overrides, instance=instance)
        monkeypatch.setitem(STAGE_VERSIONS, "judge_scores", "2-test")
        again = evaluate("r4", overrides=overrides, instance=instance)
    assert sum(tiny_chatbot.ASKED.values()) == 5
    assert again.calls.chatbot == 0 and again.calls.reference == 0
    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    judged = store.latest_rows("judge_scores", "r4")
    answered = store.latest_rows("chatbot_responses", "r4")
    assert len(judged) == 5 and not any(row.reused for row in judged.values())
    assert all(row.reused for row in answered.values())
    assert not any(c.reused for c in again.cases)


@pytest.mark.parametrize(
    ("concurrency", "stale"),
    [
        ("5", {f"TC_00{i}" for i in range(1, 6)}),  # all asked ahead, before the refresh
        # two rounds of one asked ahead with the versions read before the first; the step
        # asks the rest after the refresh
        ("1", {"TC_001", "TC_002"}),
    ],
)
def test_a_table_changed_between_answer_and_check_is_stale_and_requeued(
    tmp_path: Path, concurrency: str, stale: set[str]
) -> None:
    from eval_pipeline.core.results_store import ResultsStore
    from eval_pipeline_tests import tiny_chatbot

    overrides = tiny_overrides(tmp_path, "refresh_during_first_answer")
    overrides["concurrency"] = concurrency
    overrides["wave_cases"] = "5"  # one wave
    tiny_chatbot.ASKED.clear()
    with eval_instance() as instance:
        summary = evaluate("r5", overrides=overrides, instance=instance)
    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    stale_first = {
        case_id
        for case_id in (f"TC_00{i}" for i in range(1, 6))
        if store.history("oracle_verdicts", "r5", case_id)[0].get("stale_tables")
    }
    # every tiny case reads the orders table, which changed during the first answer: the cases
    # asked before it was in carry the table versions read before they were asked
    assert stale_first == stale
    for case_id in stale_first:
        history = store.history("oracle_verdicts", "r5", case_id)
        assert len(history) == 2, "a stale case is re-queued once"
        assert all(v["verdict"] == "stale" for v in history[0]["verdicts"])
        assert not history[1]["stale_tables"]
    expected = [2] * len(stale) + [1] * (5 - len(stale))
    assert sorted(tiny_chatbot.ASKED.values(), reverse=True) == expected
    assert summary.verdict_counts["stale"] == 0
    assert summary.verdict_counts["contradicted"] == 0
    assert summary.cases_passed == 5


def verifier_reply(request: Any) -> Any:
    """A plausible verifier: run one read-only query, then rule on every claim citing it."""
    from eval_pipeline_tests.scripted_openai import content, tool_call, tool_calls

    answered = [m for m in request.messages if m["role"] == "tool"]
    if not answered:
        return tool_call("execute_sql", {"sql": "SELECT 1 AS one"})
    if any('"claim_id"' in m.get("content", "") for m in answered):
        return content("All claims have a verdict.")
    evidence = json.loads(answered[0]["content"])["evidence_id"]
    claims = sorted(set(re.findall(r"\bC\d+\b", request.messages[1]["content"])))
    return tool_calls(
        [
            (
                "submit_verdict",
                {"claim_id": c, "verdict": "supported", "reason": "r", "evidence": [evidence]},
            )
            for c in claims
        ]
    )


def judge_reply(request: Any) -> Any:
    """A valid structured reply for whichever rubric, contract or tool step the request asks for."""
    from eval_pipeline_tests.scripted_openai import content

    if "tools" in request.body:
        return verifier_reply(request)
    name = request.body["response_format"]["json_schema"]["name"]
    if "contract" in name:
        return content(json.dumps({"claims": []}))
    axis = {"score": 0.8, "reason": "cites the figures"}
    replies = {
        "content_quality": {
            "correctness": axis,
            "completeness": axis,
            "grounding": axis,
            "unforgivable_violations": [],
            "summary": "fine",
        },
        "on_topic": {"relevance": axis, "adherence": axis, "summary": "fine"},
        "bkg": {
            "entity_grounding": axis,
            "schema_fit": axis,
            "unknown_entities": [],
            "summary": "fine",
        },
    }
    key = next(k for k in replies if k in name)
    return content(json.dumps(replies[key]))


def test_with_an_llm_every_dimension_is_scored_and_a_rerun_sends_no_request(
    tmp_path: Path,
) -> None:
    from eval_pipeline_tests.scripted_openai import ScriptedOpenAI, is_probe

    with ScriptedOpenAI(api_key="sk-test", default=judge_reply) as server:
        overrides = {
            **tiny_overrides(tmp_path, "honest"),
            "llm_base_url": server.base_url,
            "llm_api_key": "sk-test",
            "llm_model": "scripted-judge",
            "llm_price_input_per_1k": "0.01",
        }
        with eval_instance() as instance:
            first = evaluate("r6", overrides=overrides, instance=instance)
            requests = server.requests
            again = evaluate("r6", overrides=overrides, instance=instance)
        assert len(server.requests) == len(requests), "re-running a finished run asks no judge"
    assert is_probe(requests[0]), "the judge is probed before the first case"
    assert sum(map(is_probe, requests)) == 1
    sent = len(requests) - 1
    assert sent >= 5 * 2  # content_quality and on_topic per case, plus bkg where it applies
    assert first.calls.judge == sent
    assert again.calls.judge == 0
    assert first.cost.usd > 0 and first.cost.input_tokens > 0
    for case in first.cases:
        dims = case.dimensions
        assert dims["content_quality"].state == "scored", dims["content_quality"]
        assert dims["content_quality"].method == "llm:scripted-judge"
        assert dims["on_topic"].state == "scored"
        assert dims["oracle"].method == "llm:scripted-judge", dims["oracle"]
        assert dims["oracle"].state == "scored"
    assert first.verdict_counts["supported"] >= 5, "verdicts backed by the real tool log"
    assert "sk-test" not in first.model_dump_json()


def test_eval_run_gate_checks_are_recorded_in_dagster(tmp_path: Path) -> None:
    from dagster import AssetCheckKey
    from dagster._core.storage.asset_check_execution_record import (
        AssetCheckExecutionRecordStatus as Status,
    )

    overrides = {**tiny_overrides(tmp_path, "inflated_units"), "min_coverage": "0.9"}
    with eval_instance() as instance:
        evaluate("r7", overrides=overrides, instance=instance)
        storage = instance.event_log_storage
        latest = storage.get_latest_asset_check_execution_by_key(
            [
                AssetCheckKey(AssetKey("eval_run"), n)
                for n in ("gates_passed", "coverage", "no_significant_regression")
            ]
        )
    status = {key.name: record.status for key, record in latest.items()}
    # one case fails its gates and one errors: coverage 0.8 < 0.9; no baseline: no regression
    assert status == {
        "gates_passed": Status.FAILED,
        "coverage": Status.FAILED,
        "no_significant_regression": Status.SUCCEEDED,
    }


def test_with_an_llm_every_dimension_of_a_demo_answer_is_scored(tmp_path: Path) -> None:
    from eval_pipeline.demo import warehouse
    from eval_pipeline.demo.bot.runner import start_bot
    from eval_pipeline_tests.scripted_openai import ScriptedOpenAI

    url = f"sqlite:///{tmp_path / 'demo.db'}"
    warehouse.load(url)
    with (
        ScriptedOpenAI(api_key="sk-test", default=judge_reply) as server,
        start_bot(database_url=url, fault_seed=None, fault_log=None, tokens_per_s=2000) as bot,
    ):
        overrides = {
            "home": str(tmp_path / "home"),
            "database_url": url,
            "chatbot_url": bot.url,
            "llm_base_url": server.base_url,
            "llm_api_key": "sk-test",
            "llm_model": "scripted-judge",
        }
        with eval_instance() as instance:
            summary = evaluate(
                "demo-llm", overrides=overrides, instance=instance, case_ids=["TC_002", "TC_003"]
            )
    for case in summary.cases:
        states = {name: d.state for name, d in case.dimensions.items()}
        scored = ("oracle", "content_quality", "on_topic", "bkg", "sql", "safety", "latency")
        assert states == {
            **dict.fromkeys((*scored, "answered"), "scored"),
            "routing": "skipped",  # the analytics cases expect no intent
        }, (case.case_id, case.dimensions)
        assert case.dimensions["bkg"].method == "heuristic+llm:scripted-judge"
