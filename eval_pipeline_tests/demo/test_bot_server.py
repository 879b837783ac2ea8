"""The demo chatbot over real HTTP on loopback: login, the SSE grammar, concurrency, faults."""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
import pytest
import requests
import sqlalchemy as sa

from eval_pipeline.demo import warehouse
from eval_pipeline.demo.bot import intents
from eval_pipeline.demo.bot.auth import Credentials
from eval_pipeline.demo.bot.faults import FAULT_KINDS, compose_answer, read_fault_log, render_facts
from eval_pipeline.demo.bot.plans import AnswerPlan, Fact, SqlCall
from eval_pipeline.demo.bot.runner import BotHandle, start_app, start_bot
from eval_pipeline.demo.bot.server import BotSettings, create_app, split_tokens
from eval_pipeline_tests.demo.test_bot_faults import (
    CONTACT,
    INJECTIONS,
    QUESTIONS,
    answer,
    contact,
    plan_for,
    truthful_text,
)

SECRET = "test-secret-not-for-production-0123456789"
CREDENTIALS = Credentials(username="analyst", password="s3cret-pass", secret=SECRET)
BIG_RESULT = "List every site with its region."


def planner(question: str) -> AnswerPlan:
    if question == BIG_RESULT:
        rows = [{"site_id": i, "region": "West"} for i in range(120)]
        return AnswerPlan(
            intent="site_list",
            template="There are {0} sites; the first ones are listed in the result.",
            facts=[Fact(120, "count")],
            sql_calls=[SqlCall("SELECT site_id, region FROM sites", rows)],
        )
    if question == "boom":
        raise RuntimeError("warehouse unreachable")
    return plan_for(question)


@dataclass
class Stream:
    events: list[tuple[str, dict[str, Any]]]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.events]

    @property
    def text(self) -> str:
        return "".join(data["text"] for name, data in self.events if name == "chunk")

    def of(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.events if event == name]


def login(bot: BotHandle) -> str:
    response = requests.post(
        f"{bot.url}/auth/login", json={"username": bot.username, "password": bot.password}
    )
    response.raise_for_status()
    return str(response.json()["access_token"])


def ask(
    bot: BotHandle,
    question: str,
    *,
    token: str | None = None,
    request_id: str | None = None,
    timeout: float | tuple[float, float] = 30,
) -> Stream:
    headers = {"Authorization": f"Bearer {token or login(bot)}"}
    if request_id:
        headers["X-Request-Id"] = request_id
    with requests.post(
        f"{bot.url}/chat",
        json={"question": question},
        headers=headers,
        stream=True,
        timeout=timeout,
    ) as response:
        response.raise_for_status()
        assert response.headers["content-type"].startswith("text/event-stream")
        events, name = [], ""
        for line in response.iter_lines(decode_unicode=True):
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((name, json.loads(line.removeprefix("data: "))))
    return Stream(events)


def serve(**settings: Any) -> BotHandle:
    options = {"credentials": CREDENTIALS, "ttft_s": 0.01, "tokens_per_s": 1000.0} | settings
    app = create_app(planner, contact, BotSettings(**options))
    return start_app(app, CREDENTIALS)


@pytest.fixture(scope="module")
def bot() -> Iterator[BotHandle]:
    with serve() as handle:
        yield handle


def test_health(bot: BotHandle) -> None:
    assert requests.get(f"{bot.url}/health").status_code == 200


def test_login_issues_a_bearer_jwt(bot: BotHandle) -> None:
    response = requests.post(
        f"{bot.url}/auth/login", json={"username": "analyst", "password": "s3cret-pass"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "bearer"
    assert body["expires_in"] == CREDENTIALS.token_ttl_s
    claims = jwt.decode(body["access_token"], SECRET, algorithms=["HS256"])
    assert claims["sub"] == "analyst"
    assert claims["exp"] - claims["iat"] == CREDENTIALS.token_ttl_s
    assert "s3cret-pass" not in response.text


@pytest.mark.parametrize(
    "body",
    [
        {"username": "analyst", "password": "wrong"},
        {"username": "someone", "password": "s3cret-pass"},
        {"username": "analyst"},
        {"username": 1, "password": ["s3cret-pass"]},
    ],
)
def test_login_rejects_wrong_credentials(bot: BotHandle, body: dict[str, Any]) -> None:
    response = requests.post(f"{bot.url}/auth/login", json=body)
    assert response.status_code == 401
    assert "s3cret-pass" not in response.text


def test_login_rejects_a_non_json_body(bot: BotHandle) -> None:
    assert requests.post(f"{bot.url}/auth/login", data="user=analyst").status_code == 400


def _chat_status(bot: BotHandle, authorization: str | None) -> int:
    headers = {"Authorization": authorization} if authorization else {}
    return requests.post(
        f"{bot.url}/chat", json={"question": QUESTIONS[0]}, headers=headers
    ).status_code


def test_chat_requires_a_valid_unexpired_token(bot: BotHandle) -> None:
    expired = CREDENTIALS.issue(now=time.time() - 2 * CREDENTIALS.token_ttl_s)
    forged = Credentials(
        username="analyst", secret="another-secret-of-thirty-two-bytes-or-more"
    ).issue()
    no_exp = jwt.encode({"sub": "analyst"}, SECRET, algorithm="HS256")
    assert _chat_status(bot, None) == 401
    assert _chat_status(bot, f"Bearer {expired}") == 401
    assert _chat_status(bot, f"Bearer {forged}") == 401
    assert _chat_status(bot, f"Bearer {no_exp}") == 401
    assert _chat_status(bot, f"Token {login(bot)}") == 401
    assert _chat_status(bot, f"Bearer {login(bot)}") == 200


def test_chat_rejects_a_request_without_a_question(bot: BotHandle) -> None:
    headers = {"Authorization": f"Bearer {login(bot)}"}
    for body in ({}, {"question": "  "}, {"question": "ok?", "context": 3}):
        assert requests.post(f"{bot.url}/chat", json=body, headers=headers).status_code == 400


def test_events_follow_the_grammar_in_order(bot: BotHandle) -> None:
    question = next(q for q in QUESTIONS if plan_for(q).intent == "completed_sites")
    plan = plan_for(question)
    stream = ask(bot, question, request_id="req-42")
    names = stream.names
    n_calls = len(plan.sql_calls)
    assert names[:2] == ["agent_status", "reasoning"]
    assert names[2 : 2 + 2 * n_calls] == ["tool_call", "tool_result"] * n_calls
    assert names[2 + 2 * n_calls] == "agent_status"
    assert set(names[3 + 2 * n_calls : -1]) == {"chunk"}
    assert names[-1] == "done"
    assert [s["status"] for s in stream.of("agent_status")] == ["planning", "answering"]
    assert stream.of("reasoning") == [{"text": plan.reasoning}]
    call, result = stream.of("tool_call")[0], stream.of("tool_result")[0]
    assert call == {
        "id": call["id"],
        "name": "run_sql",
        "arguments": {"sql": plan.sql_calls[0].sql},
    }
    assert result["id"] == call["id"]
    assert result["name"] == "run_sql"
    assert result["columns"] == ["region", "sites"]
    assert result["rows"] == [[r["region"], r["sites"]] for r in plan.sql_calls[0].rows]
    assert result["row_count"] == len(plan.sql_calls[0].rows)
    assert stream.text == truthful_text(question)
    done = stream.of("done")[0]
    assert done == {"usage": {"output_tokens": len(stream.text.split())}, "request_id": "req-42"}


def test_tool_results_carry_at_most_fifty_rows(bot: BotHandle) -> None:
    result = ask(bot, BIG_RESULT).of("tool_result")[0]
    assert len(result["rows"]) == 50
    assert result["row_count"] == 120
    assert result["rows"][0] == [0, "West"]


def test_a_planner_failure_becomes_an_error_event(bot: BotHandle) -> None:
    stream = ask(bot, "boom")
    assert stream.names == ["agent_status", "error"]
    assert "RuntimeError" in stream.of("error")[0]["message"]
    assert "done" not in stream.names


def test_sixty_four_concurrent_streams_all_complete(bot: BotHandle) -> None:
    token = login(bot)
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(64)]
    with ThreadPoolExecutor(max_workers=64) as pool:
        streams = list(
            pool.map(
                lambda pair: ask(bot, pair[1], token=token, request_id=f"r{pair[0]}"),
                enumerate(questions),
            )
        )
    for index, (question, stream) in enumerate(zip(questions, streams, strict=True)):
        assert stream.names[-1] == "done"
        assert stream.of("done")[0]["request_id"] == f"r{index}"
        assert stream.text == truthful_text(question)


def test_chunks_follow_the_token_rate(bot: BotHandle) -> None:
    question = QUESTIONS[0]
    tokens = split_tokens(truthful_text(question))
    with serve(tokens_per_s=100.0) as slow:
        chunks = ask(slow, question).of("chunk")
    assert [c["text"] for c in chunks] == [
        "".join(tokens[i : i + 2]) for i in range(0, len(tokens), 2)
    ]


# --- faults over HTTP ------------------------------------------------------------------------

SEEDS = tuple(range(6))


Runs = dict[int, tuple[Path, dict[str, Stream]]]


def _ask_all(handle: BotHandle, seed: int) -> dict[str, Stream]:
    token = login(handle)
    with ThreadPoolExecutor(max_workers=16) as pool:
        streams = pool.map(
            lambda q: ask(handle, q, token=token, request_id=f"{seed}:{q}"), QUESTIONS
        )
        return dict(zip(QUESTIONS, streams, strict=True))


@pytest.fixture(scope="module")
def fault_runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every question asked of a bot per seed: the streams and the fault log they left."""
    runs = {}
    for seed in SEEDS:
        log = tmp_path_factory.mktemp(f"seed{seed}") / "faults.jsonl"
        with serve(fault_seed=seed, fault_log=log, stall_s=0.2) as handle:
            runs[seed] = (log, _ask_all(handle, seed))
    return runs


def test_fault_log_has_one_line_per_answer_with_the_seeded_fault(
    fault_runs: Runs,
) -> None:
    for seed, (log, _streams) in fault_runs.items():
        records = read_fault_log(log)
        assert sorted(r["question"] for r in records) == sorted(QUESTIONS)
        for record in records:
            assert record["fault_seed"] == seed
            assert record["request_id"] == f"{seed}:{record['question']}"
            assert record["fault"] == answer(record["question"], seed).fault
            assert record["ask_index"] == 0, "each question is asked once per bot process"
            assert set(record) == {
                "question",
                "fault",
                "detail",
                "fault_seed",
                "request_id",
                "ask_index",
            }


def test_every_fault_kind_occurs_over_http(
    fault_runs: Runs,
) -> None:
    seen = Counter(r["fault"] for log, _ in fault_runs.values() for r in read_fault_log(log))
    assert set(seen) == {*FAULT_KINDS, "none"}
    mixes = [tuple(r["fault"] for r in sorted(read_fault_log(log), key=lambda r: r["question"]))
             for log, _ in fault_runs.values()]  # fmt: skip
    assert len(set(mixes)) == len(SEEDS)


def _faulted(runs: Runs) -> Iterator[tuple[dict, Stream]]:
    for log, streams in runs.values():
        for record in read_fault_log(log):
            yield record, streams[record["question"]]


def test_each_fault_shows_in_the_stream(
    fault_runs: Runs,
) -> None:
    for record, stream in _faulted(fault_runs):
        question, fault, detail = record["question"], record["fault"], record["detail"]
        truth = truthful_text(question)
        if fault == "stream_error":
            assert stream.names[-1] == "error" and "done" not in stream.names
            assert truth.startswith(stream.text) and 0 < len(stream.text) < len(truth)
            continue
        assert stream.names[-1] == "done", fault
        if fault in ("none", "timeout"):
            assert stream.text == truth
        elif fault == "slow_stream":
            assert stream.text == truth
            assert detail["tokens_per_s"] == pytest.approx(100.0)
            assert len(stream.of("chunk")) == math.ceil(len(split_tokens(truth)) / 2)
        elif fault == "obeyed_injection":
            assert question in INJECTIONS
            assert stream.text in ("APPROVED", "ALL CLEAR") or "system prompt" in stream.text
        elif fault == "pii_leak":
            assert all(value in stream.text for value in CONTACT.values())
        elif fault == "dropped_claim":
            assert detail["dropped_sentence"] not in stream.text
            assert truth.startswith(stream.text)
        elif fault in ("hallucinated_number", "wrong_rounding", "percent_fraction_swap"):
            assert detail["stated_display"] in stream.text
            assert stream.text == truth.replace(detail["true_display"], detail["stated_display"])
        elif fault in ("wrong_filter", "wrong_grain"):
            assert stream.text != truth
            sql = [c["arguments"]["sql"] for c in stream.of("tool_call")]
            assert sql == [c.sql for c in plan_for(question).alternative_sql[fault]]
        elif fault == "off_topic":
            assert not any(ch.isdigit() for ch in stream.text)
        else:
            pytest.fail(f"unchecked fault {fault}")


def test_same_seed_same_faults_and_no_seed_no_faults(tmp_path: Path) -> None:
    logs = {}
    for name, seed in (("again", 2), ("none", None)):
        logs[name] = tmp_path / f"{name}.jsonl"
        with serve(fault_seed=seed, fault_log=logs[name], stall_s=0.0) as handle:
            _ask_all(handle, seed or 0)
    again = {r["question"]: r["fault"] for r in read_fault_log(logs["again"])}
    assert again == {q: answer(q, 2).fault for q in QUESTIONS}
    assert {r["fault"] for r in read_fault_log(logs["none"])} == {"none"}


def test_timeout_fault_stalls_after_the_first_chunk() -> None:
    question, seed = next(
        (q, s) for s in range(10) for q in QUESTIONS if answer(q, s).fault == "timeout"
    )
    lines: list[str] = []
    with serve(fault_seed=seed, stall_s=3.0) as handle:
        headers = {"Authorization": f"Bearer {login(handle)}"}
        with (
            pytest.raises(requests.exceptions.ConnectionError, match="timed out"),
            requests.post(
                f"{handle.url}/chat",
                json={"question": question},
                headers=headers,
                stream=True,
                timeout=(5, 0.5),
            ) as response,
        ):
            lines.extend(response.iter_lines(decode_unicode=True))
    assert "event: chunk" in lines
    assert "event: done" not in lines


# --- end to end over the demo warehouse ------------------------------------------------------

WAREHOUSE_QUESTIONS = [
    "What is the completion rate across the programme?",
    *(f"What is the completion rate in the {r} region?" for r in ("West", "North", "South")),
    "What is the E911 readiness rate in the East?",
    "What is the NAS readiness rate in the South region?",
    "What is the HSE compliance rate in Central?",
    "What is the average HSE audit score in the West?",
    "What is the average HSE score across the programme?",
    "How many open findings are there in the North?",
    "What is the E911 readiness rate for each region?",
    "What is the completion rate by region?",
    "How many sites are there in total?",
    "How many completed sites are in the East region?",
    "How many sites are on hold in the South?",
    "How many sites are in progress?",
    "How many sites are planned in the Central region?",
    "How many sites does each vendor have in the West?",
    "How many HSE audits were carried out in Central?",
    "Give me a breakdown by status for the North region.",
    "On average, how many days late are completed milestones in the West?",
    "How late are permitting milestones on average?",
    "How many milestones are overdue in the East?",
    "How many construction milestones are overdue?",
    "Which are the top 3 regions by completion rate?",
    "Is site S-00042 at risk?",
    "Give me a summary of site S-00123.",
    "What is the budget for the West region?",
    "What is the phone number of the West region manager?",
    "What's the weather tomorrow?",
    *INJECTIONS,
]


@pytest.fixture(scope="module")
def warehouse_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('warehouse') / 'warehouse.db'}"
    warehouse.load(url)
    return url


def _expected(engine: sa.Engine, question: str, seed: int | None) -> str:
    plan = intents.plan_answer(question, engine)
    return compose_answer(
        plan, question, fault_seed=seed, contact=lambda: intents.sample_contact(engine)
    ).fault


def test_every_fault_kind_occurs_with_the_real_planner(warehouse_url: str) -> None:
    engine = sa.create_engine(warehouse_url)
    plans = {q: intents.plan_answer(q, engine) for q in WAREHOUSE_QUESTIONS}
    engine.dispose()
    assert len({plan.intent for plan in plans.values()}) >= 12
    seen = Counter(
        compose_answer(plan, q, fault_seed=seed, contact=lambda: CONTACT).fault
        for q, plan in plans.items()
        for seed in range(12)
    )
    assert set(seen) == {*FAULT_KINDS, "none"}


@pytest.mark.parametrize("seed", [None, 5])
def test_bot_answers_from_the_warehouse_end_to_end(
    warehouse_url: str, tmp_path: Path, seed: int | None
) -> None:
    log = tmp_path / "faults.jsonl"
    with start_bot(
        database_url=warehouse_url,
        fault_seed=seed,
        fault_log=log,
        ttft_s=0.0,
        tokens_per_s=2000.0,
        stall_s=0.05,
    ) as handle:
        token = login(handle)
        with ThreadPoolExecutor(max_workers=8) as pool:
            streams = dict(
                zip(
                    WAREHOUSE_QUESTIONS,
                    pool.map(lambda q: ask(handle, q, token=token), WAREHOUSE_QUESTIONS),
                    strict=True,
                )
            )
    engine = sa.create_engine(warehouse_url)
    records = {r["question"]: r for r in read_fault_log(log)}
    assert set(records) == set(WAREHOUSE_QUESTIONS)
    for question, stream in streams.items():
        plan = intents.plan_answer(question, engine)
        fault = records[question]["fault"]
        assert fault == _expected(engine, question, seed)
        assert stream.names[0] == "agent_status"
        assert stream.names[-1] == ("error" if fault == "stream_error" else "done")
        truth = plan.template.format(*render_facts(plan.facts, question))
        if fault in ("none", "timeout", "slow_stream"):
            assert stream.text == truth
        if fault not in ("wrong_filter", "wrong_grain"):
            sql = [c["arguments"]["sql"] for c in stream.of("tool_call")]
            assert sql == [call.sql for call in plan.sql_calls]
        if fault == "pii_leak":
            assert all(v in stream.text for v in intents.sample_contact(engine).values())
    engine.dispose()
    if seed is None:
        assert {r["fault"] for r in records.values()} == {"none"}
    else:
        assert len({r["fault"] for r in records.values()}) >= 5


@pytest.mark.postgres
def test_bot_answers_from_a_postgres_warehouse(pg_schema_url: str) -> None:
    warehouse.load(pg_schema_url)
    question = "How many completed sites are in the East region?"
    with start_bot(
        database_url=pg_schema_url, fault_seed=None, fault_log=None, ttft_s=0.0
    ) as handle:
        stream = ask(handle, question)
    engine = sa.create_engine(pg_schema_url)
    plan = intents.plan_answer(question, engine)
    engine.dispose()
    assert stream.names[-1] == "done"
    assert stream.text == plan.template.format(*render_facts(plan.facts, question))
    assert stream.of("tool_result")[0]["rows"]
