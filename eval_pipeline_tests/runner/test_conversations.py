"""Logged production conversations: read from a database, evaluated without asking the bot, one
row per dimension in ``evaluations`` — through real Dagster instances, on PostgreSQL and SQLite."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import sqlalchemy as sa
from dagster import (
    AddDynamicPartitionsRequest,
    DagsterEventType,
    DagsterInstance,
    DeleteDynamicPartitionsRequest,
    RunRequest,
    SensorResult,
    SkipReason,
    build_run_status_sensor_context,
    build_sensor_context,
)

from eval_pipeline.core.conversations import (
    ConversationReader,
    ConversationSource,
    Cursor,
    as_case,
    conversation_budget,
    expired_conversations,
)
from eval_pipeline.core.inputs import load_bkg, validate_inputs
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.core.summary import RunSummary
from eval_pipeline.demo import tiny
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS
from eval_pipeline.pipeline.resources import EvalSettings, narrow_resources
from eval_pipeline.pipeline.sensors import (
    evaluate_logged_conversations,
    golden_dataset_sync,
    logged_conversations,
    summarize_after_cases,
)
from eval_pipeline.runner.conversations import evaluate_conversations
from eval_pipeline.runner.evaluate import run_assets
from eval_pipeline_tests import tiny_chatbot
from eval_pipeline_tests.dagster_helpers import eval_instance
from eval_pipeline_tests.pipeline.test_graph import judge_reply
from eval_pipeline_tests.production_storage import (
    TINY,
    scratch_schema,
    tiny_postgres_settings,
    tiny_sqlite_settings,
)
from eval_pipeline_tests.scripted_openai import (
    RecordedRequest,
    Reply,
    ScriptedOpenAI,
    content,
    is_probe,
    tool_calls,
)

T0 = dt.datetime(2026, 11, 30, 9, 0, 0)


def messages(warehouse_url: str) -> pd.DataFrame:
    """Three conversations: a right revenue figure after small talk, a wrong online share, and
    a question still waiting for its answer."""
    engine = sa.create_engine(warehouse_url)
    right = tiny.answer("What was total revenue?", engine)
    engine.dispose()
    rows = [
        ("c-1", "user", "Hello", T0, None),
        ("c-1", "assistant", "Hi, how can I help?", T0 + dt.timedelta(seconds=5), "greeting"),
        ("c-1", "user", "What was total revenue?", T0 + dt.timedelta(seconds=9), None),
        ("c-1", "assistant", right, T0 + dt.timedelta(seconds=12), "revenue"),
        ("c-2", "user", "What share of units is sold online?", T0 + dt.timedelta(minutes=1), None),
        (
            "c-2",
            "assistant",
            "Online orders account for 12.00% of units sold.",
            T0 + dt.timedelta(minutes=1, seconds=3),
            "share",
        ),
        ("c-3", "user", "Any news?", T0 + dt.timedelta(minutes=2), None),
    ]
    return pd.DataFrame(rows, columns=["chat", "sender", "text", "sent_at", "route"])


MAPPING = {
    "conversations_table": "chat_log",
    "conversations_columns": json.dumps(
        {
            "conversation_id": "chat",
            "role": "sender",
            "content": "text",
            "created_at": "sent_at",
            "intent": "route",
        }
    ),
}


def write(url: str, frame: pd.DataFrame, if_exists: str = "replace") -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        frame.to_sql("chat_log", conn, if_exists=if_exists, index=False)  # type: ignore[arg-type]
    engine.dispose()


def query(url: str, sql: str) -> list[dict[str, Any]]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        out = [dict(r._mapping) for r in conn.execute(sa.text(sql))]
    engine.dispose()
    return out


def check_conversation_run(summary: RunSummary, results_url: str, asked_before: int) -> None:
    assert tiny_chatbot.asked_so_far() == asked_before, "the bot was asked"
    assert summary.calls.chatbot == 0
    cases = {c.case_id: c for c in summary.cases}
    assert sorted(cases) == ["conv.c-1", "conv.c-2"]  # c-3 has no answer yet
    assert cases["conv.c-1"].verdict_counts["supported"] >= 1
    assert cases["conv.c-1"].verdict_counts["contradicted"] == 0
    assert cases["conv.c-2"].verdict_counts["contradicted"] >= 1
    assert "oracle" in " ".join(cases["conv.c-2"].gate_failures)
    assert cases["conv.c-1"].dimensions["answered"].score == 1.0
    assert cases["conv.c-1"].dimensions["latency"].state == "skipped"

    rows = query(
        results_url,
        "SELECT id, run_key, case_id, conversation_id, dimension, score, raw_score, state, "
        "method, justification, created_at FROM evaluations ORDER BY case_id, dimension",
    )
    per_case: dict[str, list[str]] = {}
    for row in rows:
        per_case.setdefault(row["case_id"], []).append(row["dimension"])
        assert row["run_key"] == summary.run_key
        assert row["conversation_id"] == row["case_id"].removeprefix("conv.")
        assert row["id"] == f"{row['run_key']}/{row['case_id']}/{row['dimension']}"
        assert row["created_at"]
    for case_id, case in cases.items():
        assert sorted(per_case[case_id]) == sorted(case.dimensions), "one row per dimension"
    oracle = next(r for r in rows if r["case_id"] == "conv.c-2" and r["dimension"] == "oracle")
    assert oracle["state"] == "scored" and oracle["score"] == 0.0
    assert "1 contradicted" in oracle["justification"]

    # the seed's "average score per conversation" query (docs/formats.md) runs as written
    averages = query(
        results_url,
        "SELECT conversation_id, AVG(score) AS avg_score, COUNT(*) AS dimensions_scored, "
        "MIN(created_at) AS evaluated_at FROM evaluations "
        "WHERE conversation_id IS NOT NULL AND state = 'scored' "
        "GROUP BY conversation_id ORDER BY evaluated_at DESC LIMIT 20",
    )
    by_id = {r["conversation_id"]: r for r in averages}
    assert set(by_id) == {"c-1", "c-2"}
    assert by_id["c-1"]["avg_score"] > by_id["c-2"]["avg_score"]


@pytest.mark.postgres
def test_conversations_on_postgres_are_evaluated_without_asking_and_stored_as_rows(
    tmp_path: Path, pg_admin_url: str
) -> None:
    """PostgreSQL is the conversation source, the warehouse and the results store."""
    with (
        scratch_schema(pg_admin_url) as (_, warehouse_url),
        scratch_schema(pg_admin_url) as (_, source_url),
        scratch_schema(pg_admin_url) as (_, results_url),
    ):
        settings = tiny_postgres_settings(tmp_path, warehouse_url, results_url)
        write(source_url, messages(warehouse_url))
        overrides = {**settings, **MAPPING, "conversations_url": source_url}
        asked = tiny_chatbot.asked_so_far()
        with eval_instance() as instance:
            summary = evaluate_conversations(
                "2026-11-30T100000Z-conversations", overrides=overrides, instance=instance
            )
        check_conversation_run(summary, results_url, asked)


def test_conversations_on_sqlite_and_the_golden_sync_leaves_their_keys(tmp_path: Path) -> None:
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, messages(settings["database_url"]))
    overrides = {**settings, **MAPPING, "conversations_url": source_url}
    asked = tiny_chatbot.asked_so_far()
    with eval_instance() as instance:
        summary = evaluate_conversations("r-conv", overrides=overrides, instance=instance)
        check_conversation_run(summary, f"sqlite:///{tmp_path / 'home' / 'results.db'}", asked)
        sync = tick(golden_dataset_sync, instance, EvalSettings(overrides=overrides))
        deleted = [
            k
            for r in getattr(sync, "dynamic_partitions_requests", None) or []
            if isinstance(r, DeleteDynamicPartitionsRequest)
            for k in r.partition_keys
        ]
        assert not [k for k in deleted if k.startswith("conv.")]


RUBRIC = """\
name: bakery
dimensions:
  - name: figures_match
    question: Do the quoted figures match the live data?
    check: {kind: oracle, functions: [total_revenue, online_share]}
  - name: tone
    question: Is the tone friendly and professional?
"""
TONE = 4


def kpi_verifier(request: RecordedRequest) -> Reply:
    """A verifier that picks the KPI the question is about, runs it, and rules on every claim
    by comparing the claim's figure with the KPI's live value (1% tolerance)."""
    prompt = request.messages[1]["content"]
    results = [json.loads(m["content"]) for m in request.messages if m["role"] == "tool"]
    if not results:
        kpi = "total_revenue" if "total revenue" in prompt.lower() else "online_share"
        return tool_calls([("list_kpis", {}), ("call_kpi", {"name": kpi})])
    (measured,) = [r for r in results if "value" in r]
    verdicts = []
    for claim_id, text in re.findall(r"^- (C\d+) \(\w+\): (.*)$", prompt, re.MULTILINE):
        figure = re.search(r"\d[\d,]*(?:\.\d+)?", text)
        close = figure and abs(float(figure[0].replace(",", "")) - measured["value"]) <= 0.01 * abs(
            measured["value"]
        )
        verdict = "unverifiable" if not figure else "supported" if close else "contradicted"
        evidence = [measured["evidence_id"]] if figure else []
        verdicts.append(
            (
                "submit_verdict",
                {"claim_id": claim_id, "verdict": verdict, "reason": "kpi", "evidence": evidence},
            )
        )
    return tool_calls(verdicts)


def scripted_llm(request: RecordedRequest) -> Reply:
    """The verifier's tool turns, the rubric's judgement, and every built-in judge's reply."""
    if "tools" in request.body:
        return kpi_verifier(request)
    schema = request.body["response_format"]["json_schema"]
    if schema["name"] != "rubric_judgement":
        return judge_reply(request)
    asked = schema["schema"]["properties"]
    return content(json.dumps({d: {"score": TONE, "justification": "polite"} for d in asked}))


def test_with_an_llm_conversations_get_the_verifier_the_judges_and_the_rubric(
    tmp_path: Path,
) -> None:
    """Issue #18 with an LLM configured: the logged answer is verified by the tool-calling
    verifier choosing the KPI itself among the BKG's parameter-free ones, and the judges and
    the rubric's judge score it — the bot is never asked."""
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, messages(settings["database_url"]))
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    asked = tiny_chatbot.asked_so_far()
    with ScriptedOpenAI(api_key="sk-test", default=scripted_llm) as server:
        overrides = {
            **settings,
            **MAPPING,
            "conversations_url": source_url,
            "rubric_path": str(rubric),
            "llm_base_url": server.base_url,
            "llm_api_key": "sk-test",
            "llm_model": "scripted-judge",
        }
        with eval_instance() as instance:
            summary = evaluate_conversations("r-conv-llm", overrides=overrides, instance=instance)
        requests = server.requests
    assert tiny_chatbot.asked_so_far() == asked, "the bot was asked"
    assert summary.calls.chatbot == 0
    assert all(r.status == 200 for r in requests), [r.status for r in requests]
    assert summary.calls.judge == len(requests) - sum(map(is_probe, requests))

    first_turns = [r for r in requests if "tools" in r.body and len(r.messages) == 2]
    assert len(first_turns) == 2, "one verifier loop per conversation"
    for turn in first_turns:  # offered the parameter-free KPIs, not told which one
        assert "kpi total_revenue" in turn.text and "kpi online_share" in turn.text

    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    cases = {c.case_id: c for c in summary.cases}
    assert sorted(cases) == ["conv.c-1", "conv.c-2"]
    for case_id, kpi, verdict in [
        ("conv.c-1", "total_revenue", "supported"),
        ("conv.c-2", "online_share", "contradicted"),
    ]:
        (oracle,) = store.history("oracle_verdicts", "r-conv-llm", case_id)
        assert oracle["agent"]["counts"]["fabricated"] == 0
        ruled = [v for v in oracle["verdicts"] if v["verdict"] != "unverifiable"]
        assert ruled and {v["verdict"] for v in ruled} == {verdict}, oracle["verdicts"]
        assert {(e["kind"], e["source"]) for v in ruled for e in v["evidence"]} == {("kpi", kpi)}
        dims = cases[case_id].dimensions
        assert dims["oracle"].state == "scored"
        assert dims["oracle"].method == "llm:scripted-judge", dims["oracle"]
        for name in ("content_quality", "on_topic"):
            assert dims[name].state == "scored", dims[name]
            assert dims[name].method == "llm:scripted-judge"
            assert dims[name].score == pytest.approx(0.8)
        assert dims["safety"].state == "scored"
    assert "oracle" in " ".join(cases["conv.c-2"].gate_failures)
    rubric_rows = query(
        f"sqlite:///{tmp_path / 'home' / 'results.db'}",
        "SELECT case_id, dimension, state, method, raw_score FROM evaluations "
        "WHERE dimension LIKE 'rubric.%' ORDER BY case_id, dimension",
    )
    # the tone from the rubric's judge, the figures from the verifier's verdicts
    assert [tuple(r.values()) for r in rubric_rows] == [
        ("conv.c-1", "rubric.figures_match", "scored", "oracle", 5),
        ("conv.c-1", "rubric.tone", "scored", "llm:scripted-judge", TONE),
        ("conv.c-2", "rubric.figures_match", "scored", "oracle", 1),
        ("conv.c-2", "rubric.tone", "scored", "llm:scripted-judge", TONE),
    ]


def tick(sensor: Any, instance: DagsterInstance, env: EvalSettings, cursor: str | None = None):
    with build_sensor_context(
        instance=instance, cursor=cursor, resources=narrow_resources(env)
    ) as context:
        return sensor(context)


def test_sensor_picks_up_conversations_newer_than_its_cursor_in_batches(tmp_path: Path) -> None:
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    frame = messages(settings["database_url"])
    write(source_url, frame)
    env = EvalSettings(
        overrides={
            **settings,
            **MAPPING,
            "conversations_url": source_url,
            "conversation_batch": "1",
        }
    )
    with eval_instance() as instance:
        instance.add_dynamic_partitions("golden_cases", ["TC_001", "TC_002"])
        first = tick(logged_conversations, instance, env)
        assert isinstance(first, SensorResult)
        added = {
            r.partitions_def_name: list(r.partition_keys)
            for r in first.dynamic_partitions_requests
            if isinstance(r, AddDynamicPartitionsRequest)
        }
        assert added["golden_cases"] == ["conv.c-1"]
        (run_key,) = added["eval_runs"]
        assert run_key.endswith("-conversations")
        (request,) = first.run_requests
        assert request.tags["eval_pipeline/stage"] == "conversations"
        assert request.tags["eval_pipeline/run_key"] == run_key
        cursor = Cursor.from_json(first.cursor)
        assert cursor is not None and cursor.conversation_id == "c-1"
        assert cursor.at.startswith("2026-11-30 09:00:12")  # c-1's latest message

        second = tick(logged_conversations, instance, env, first.cursor)
        assert isinstance(second, SensorResult)
        assert [k for r in second.dynamic_partitions_requests for k in r.partition_keys][-1:] == [
            "conv.c-2"
        ]
        # c-3 has no answer: the cursor moves past it without a run
        third = tick(logged_conversations, instance, env, second.cursor)
        assert isinstance(third, SensorResult) and not third.run_requests
        assert isinstance(tick(logged_conversations, instance, env, third.cursor), SkipReason)

        # the conversation goes on: it is newer than the cursor again
        more = pd.DataFrame(
            [
                ("c-1", "user", "And online?", T0 + dt.timedelta(hours=1), None),
                ("c-1", "assistant", "No idea.", T0 + dt.timedelta(hours=1, seconds=2), "x"),
            ],
            columns=frame.columns,
        )
        write(source_url, more, if_exists="append")
        again = tick(logged_conversations, instance, env, third.cursor)
        assert isinstance(again, SensorResult)
        (request,) = again.run_requests
        assert request.tags["dagster/asset_partition_range_start"] == "conv.c-1"


def test_sensor_skips_without_a_source(tmp_path: Path) -> None:
    env = EvalSettings(overrides=tiny_sqlite_settings(tmp_path))
    with eval_instance() as instance:
        result = tick(logged_conversations, instance, env)
    assert isinstance(result, SkipReason) and "EVAL_CONVERSATIONS_URL" in str(result.skip_message)


def test_latest_pair_thread_context_and_parameter_free_references(tmp_path: Path) -> None:
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, messages(settings["database_url"]))
    source = ConversationSource(
        url=source_url, table="chat_log", columns=json.loads(MAPPING["conversations_columns"])
    )
    reader = ConversationReader(source)
    try:
        assert reader.latest(2) == ["c-2", "c-3"]
        found = reader.read(["c-1", "c-3", "nope"])
    finally:
        reader.close()
    bkg = load_bkg(TINY / "bkg.json")
    case = as_case(found["c-1"], bkg)
    assert case is not None and case.id == "conv.c-1"
    assert case.question == "What was total revenue?"
    assert case.context == "user: Hello\nassistant: Hi, how can I help?"
    assert case.logged is not None and case.logged.intent == "revenue"
    assert case.tags == ["conversation"]
    # functions whose every parameter is optional; units_sold needs a product
    assert sorted(r.target for r in case.reference) == ["online_share", "total_revenue"]
    assert as_case(found["c-3"], bkg) is None


def test_a_query_instead_of_a_table_mapping(tmp_path: Path) -> None:
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, messages(settings["database_url"]))
    source = ConversationSource(
        url=source_url,
        query="SELECT chat AS conversation_id, sender AS role, text AS content, "
        "sent_at AS created_at FROM chat_log WHERE chat <> 'c-2'",
    )
    reader = ConversationReader(source)
    try:
        assert [cid for cid, _ in reader.newer_than(None, 10)] == ["c-1", "c-3"]
    finally:
        reader.close()


def test_retention_keeps_the_partition_count_bounded() -> None:
    assert conversation_budget(500, 100, 30) == 500
    assert conversation_budget(5000, 100, 30) == 970  # 100 runs x (30 + 970) = 100,000
    assert conversation_budget(500, 100_000, 30) == 0
    keys = ["TC_1", "conv.a", "TC_2", "conv.b", "conv.c"]
    assert expired_conversations(keys, 2) == ["conv.a"]
    assert expired_conversations(keys, 0) == ["conv.a", "conv.b", "conv.c"]


def answered(count: int) -> pd.DataFrame:
    """``count`` answered conversations, ``c-1`` the oldest, one a minute."""
    rows: list[tuple[str, str, str, dt.datetime, str | None]] = []
    for i in range(1, count + 1):
        at = T0 + dt.timedelta(minutes=i)
        rows.append((f"c-{i}", "user", "What was total revenue?", at, None))
        rows.append((f"c-{i}", "assistant", "It was 10.", at + dt.timedelta(seconds=2), "revenue"))
    return pd.DataFrame(rows, columns=["chat", "sender", "text", "sent_at", "route"])


def apply_partition_requests(instance: DagsterInstance, result: SensorResult) -> None:
    """What the daemon does with a tick's dynamic partition requests."""
    for request in result.dynamic_partitions_requests or []:
        if isinstance(request, AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(request.partitions_def_name, request.partition_keys)
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)


def test_the_sensor_deletes_the_oldest_conversation_partitions_beyond_the_budget(
    tmp_path: Path,
) -> None:
    """Ticks applied to a real instance: once ``retain_conversations`` is exceeded, the oldest
    ``conv.`` keys leave the case dimension, the newest and every golden key stay, and the run
    requested covers only kept keys."""
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, answered(5))
    env = EvalSettings(
        overrides={
            **settings,
            **MAPPING,
            "conversations_url": source_url,
            "conversation_batch": "2",
            "retain_conversations": "3",
        }
    )
    golden = ["TC_001", "TC_002"]
    with eval_instance() as instance:
        instance.add_dynamic_partitions("golden_cases", golden)
        cursor, kept, ranges = None, [], []
        for _ in range(3):
            result = tick(logged_conversations, instance, env, cursor)
            assert isinstance(result, SensorResult)
            apply_partition_requests(instance, result)
            cursor = result.cursor
            kept.append(instance.get_dynamic_partitions("golden_cases"))
            ranges.append(
                [
                    (
                        r.tags["dagster/asset_partition_range_start"],
                        r.tags["dagster/asset_partition_range_end"],
                    )
                    for r in result.run_requests or []
                ]
            )
    assert kept == [
        [*golden, "conv.c-1", "conv.c-2"],
        [*golden, "conv.c-2", "conv.c-3", "conv.c-4"],
        [*golden, "conv.c-3", "conv.c-4", "conv.c-5"],
    ]
    assert ranges == [
        [("conv.c-1", "conv.c-2")],
        [("conv.c-3", "conv.c-4")],
        [("conv.c-5", "conv.c-5")],
    ]


def test_evaluating_conversations_deletes_the_oldest_conversation_partitions(
    tmp_path: Path,
) -> None:
    """``evaluate_conversations`` (and so ``eval-pipeline conversations``) on a real instance:
    conversation keys from earlier batches beyond the budget are deleted, the batch just
    evaluated is kept."""
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, messages(settings["database_url"]))
    overrides = {
        **settings,
        **MAPPING,
        "conversations_url": source_url,
        "retain_conversations": "3",
    }
    with eval_instance() as instance:
        instance.add_dynamic_partitions("golden_cases", ["conv.old-1", "conv.old-2"])
        evaluate_conversations("r-conv", overrides=overrides, instance=instance)
        keys = instance.get_dynamic_partitions("golden_cases")
    assert [k for k in keys if k.startswith("conv.")] == ["conv.old-2", "conv.c-1", "conv.c-2"]
    assert [k for k in keys if not k.startswith("conv.")], "the golden cases stay"


def test_the_sensor_chain_reads_evaluates_and_summarizes_a_batch(tmp_path: Path) -> None:
    """logged_conversations → its golden_cases run → evaluate_logged_conversations → the case
    run → summarize_after_cases, each run executed as the daemon would launch it."""
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, messages(settings["database_url"]))
    overrides = {**settings, **MAPPING, "conversations_url": source_url}
    env = EvalSettings(overrides=overrides)
    asked = tiny_chatbot.asked_so_far()
    with eval_instance() as instance:
        first = tick(logged_conversations, instance, env)
        assert isinstance(first, SensorResult)
        for request in first.dynamic_partitions_requests:
            assert isinstance(request, AddDynamicPartitionsRequest)
            instance.add_dynamic_partitions(request.partitions_def_name, request.partition_keys)
        (golden_request,) = first.run_requests
        run_key = golden_request.tags["eval_pipeline/run_key"]

        def launched(selection: list[str], request: Any) -> Any:
            run_assets(instance, selection, overrides, tags=request.tags)
            run = instance.get_runs(limit=1)[0]
            (success,) = instance.all_logs(run.run_id, of_type=DagsterEventType.RUN_SUCCESS)
            return run, success.get_dagster_event()

        def status_tick(sensor: Any, selection: list[str], request: Any) -> Any:
            run, event = launched(selection, request)
            with build_run_status_sensor_context(
                sensor_name=sensor.name,
                dagster_event=event,
                dagster_instance=instance,
                dagster_run=run,
            ) as context:
                return sensor(context)

        cases_request = status_tick(evaluate_logged_conversations, ["golden_cases"], golden_request)
        assert isinstance(cases_request, RunRequest)
        summary_request = status_tick(summarize_after_cases, list(PER_CASE_ASSETS), cases_request)
        assert isinstance(summary_request, RunRequest)
        run_assets(instance, ["eval_run", "eval_report"], overrides, partition_key=run_key)
    assert tiny_chatbot.asked_so_far() == asked
    store = ResultsStore(f"sqlite:///{tmp_path / 'home' / 'results.db'}")
    summary = store.run_summary(run_key)
    assert [c.case_id for c in summary.cases] == ["conv.c-1", "conv.c-2"]
    assert summary.calls.chatbot == 0


def test_a_golden_case_may_not_take_the_prefix_of_logged_conversations(tmp_path: Path) -> None:
    golden = tmp_path / "golden.json"
    golden.write_text(json.dumps([{"id": "conv.c-1", "question": "What was total revenue?"}]))
    problems = validate_inputs(TINY / "bkg.json", golden, None)
    assert [(p.location, "logged conversations" in p.message) for p in problems] == [
        ("conv.c-1", True)
    ]


def test_the_conversations_command_evaluates_the_latest_and_prints_the_summary_last(
    tmp_path: Path,
) -> None:
    settings = tiny_sqlite_settings(tmp_path)
    source_url = f"sqlite:///{tmp_path / 'chats.db'}"
    write(source_url, messages(settings["database_url"]))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("EVAL_", "DAGSTER_HOME"))},
        **{f"EVAL_{k.upper()}": v for k, v in {**settings, **MAPPING}.items()},
        "EVAL_CONVERSATIONS_URL": source_url,
    }
    result = subprocess.run(
        [sys.executable, "-m", "eval_pipeline.cli.main", "conversations", "--last", "2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(Path(result.stdout.strip().splitlines()[-1]).read_text())
    # the two most recent: c-3 has no answer yet, so only c-2 is evaluated
    assert [c["case_id"] for c in summary["cases"]] == ["conv.c-2"]
    assert summary["run_key"].endswith("-conversations")
