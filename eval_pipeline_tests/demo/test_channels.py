"""One bot, four transports: the demo bot asked through its SSE stream, its JSON endpoint, its
OpenAI-compatible endpoint and its web page (headless Chromium) yields the same normalised
payload — the same answer, SQL, claims and verdicts — and ``eval-pipeline demo --channel ui``
evaluates the 30 demo cases with the same verdicts as the SSE channel on the same fault seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.cli.main import DEMO_CHANNELS, demo_channel, demo_secrets
from eval_pipeline.core.models import ChatPayload, ClaimContract, OracleResult
from eval_pipeline.core.steps import ask, extract, verify
from eval_pipeline.demo import warehouse
from eval_pipeline.demo.bot.runner import start_bot
from eval_pipeline.environment import Environment
from eval_pipeline.settings import load_settings

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SEED = 7
# with seed 7 the bot's first answer to TC_014 states six wrong numbers, to TC_015 six right ones
CASES = ("TC_014", "TC_015", "TC_010")

Asked = dict[str, tuple[ChatPayload, ClaimContract, OracleResult]]


@pytest.fixture(scope="module")
def warehouse_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('wh') / 'demo.db'}"
    warehouse.load(url)
    yield url


def asked_through(channel: str, url: str, home: Path, chromium: Path) -> Asked:
    """The cases asked of a fresh bot (so each channel gets the bot's first answers) through one
    channel, configured as ``eval-pipeline demo --channel`` configures it, then checked."""
    with start_bot(database_url=url, fault_seed=SEED) as bot, demo_secrets(channel, bot.api_key):
        settings = load_settings(
            home=home,
            database_url=url,
            chatbot_ui_browser=str(chromium),
            **demo_channel(channel, bot.url),
        )
        env = Environment(settings)
        try:
            out: Asked = {}
            for case_id in CASES:
                case = env.cases[case_id]
                payload = ask(env.adapter, case)
                contract = extract(case, payload)
                oracle = verify(
                    case, payload, contract, env.runtime, env.db, rule=settings.tolerance_rule
                )
                out[case_id] = (payload, contract, oracle)
            return out
        finally:
            env.close()


def test_every_channel_yields_the_same_payload_claims_and_verdicts(
    warehouse_url: str, tmp_path: Path, chromium: Path
) -> None:
    asked = {
        channel: asked_through(channel, warehouse_url, tmp_path / channel, chromium)
        for channel in DEMO_CHANNELS
    }
    for case_id in CASES:
        seen: dict[str, Any] = {}
        for channel in DEMO_CHANNELS:
            payload, contract, oracle = asked[channel][case_id]
            assert payload.status == "ok", (channel, payload.errors)
            assert payload.transport == channel
            assert payload.latency_s is not None
            seen[channel] = (
                payload.answer,
                payload.sql_statements,
                [(c.id, c.text, c.value, c.unit, c.span) for c in contract.claims],
                [(v.claim_id, v.verdict) for v in oracle.verdicts],
            )
        assert len(set(map(repr, seen.values()))) == 1, seen
        verdicts = [v for _, v in seen["sse"][3]]
        assert verdicts and seen["sse"][1], f"{case_id}: nothing to compare"
    # the comparison has teeth: one case is wrong on every number, one right
    assert {v.verdict for v in asked["ui"]["TC_014"][2].verdicts} == {"contradicted"}
    assert {v.verdict for v in asked["ui"]["TC_015"][2].verdicts} == {"supported"}
    # the streamed channels measure a first token; the JSON endpoint cannot
    assert all(asked[c]["TC_015"][0].ttft_s is not None for c in ("sse", "openai_chat", "ui"))
    assert asked["http_json"]["TC_015"][0].ttft_s is None


def demo(home: Path, channel: str, chromium: Path) -> dict[str, Any]:
    """``eval-pipeline demo --channel CHANNEL`` as a user runs it, in a fresh EVAL_HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVAL_", "DAGSTER_"))}
    env |= {
        "EVAL_HOME": str(home),
        "EVAL_CHATBOT_UI_BROWSER": str(chromium),
        # the bot's stalled answers (its timeout fault) end after 5 s instead of 10
        "EVAL_CHATBOT_READ_TIMEOUT_S": "5",
    }
    command = [sys.executable, "-m", "eval_pipeline.cli.main", "demo", "--channel", channel]
    result = subprocess.run(
        [*command, "--fault-seed", str(SEED), "--run-key", f"demo-{channel}"],
        capture_output=True,
        text=True,
        env=env,
        cwd=home.parent,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"asked through the {channel} channel" in result.stdout
    summary_file = Path(result.stdout.strip().splitlines()[-1])
    summary: dict[str, Any] = json.loads(summary_file.read_text())
    return summary


@pytest.mark.timeout(900)  # two whole demos in processes of their own: 130 s on a busy machine
def test_the_ui_demo_has_the_verdicts_of_the_sse_demo(tmp_path: Path, chromium: Path) -> None:
    through_sse = demo(tmp_path / "sse", "sse", chromium)
    through_ui = demo(tmp_path / "ui", "ui", chromium)
    assert through_ui["cases_total"] == through_sse["cases_total"] == 30
    assert through_ui["verdict_counts"] == through_sse["verdict_counts"]
    assert through_ui["verdict_counts"]["contradicted"] > 0
    assert through_ui["verdict_counts"]["supported"] > 0

    def by_case(summary: dict[str, Any]) -> dict[str, Any]:
        return {c["case_id"]: (c["state"], c["verdict_counts"]) for c in summary["cases"]}

    assert by_case(through_ui) == by_case(through_sse)
    # the bot's delivery faults (a stream error, a stall) fail the same cases in both
    assert through_ui["error_counts"] == through_sse["error_counts"]
    assert through_ui["cases_error"] > 0
