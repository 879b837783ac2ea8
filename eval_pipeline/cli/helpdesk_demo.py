"""``eval-pipeline demo --world helpdesk``: the help-desk world end to end, in two steps.

First the golden intent cases are asked of the demo assistant (an HTTP JSON bot) and scored with
the seed's six-dimension rubric; then production traffic is sent to it and the conversations it
logged are evaluated as they were logged, without asking again. The golden run's summary path is
printed last.
"""

from __future__ import annotations

import argparse
import shutil
from typing import Any

import requests

from eval_pipeline.settings import PROJECT_ROOT, load_settings

HELPDESK_DATA = PROJECT_ROOT / "data" / "helpdesk"
DEFAULT_FAULT_SEED = 40  # one fault of each kind among the golden cases


def helpdesk_overrides(home: str, warehouse_url: str, bot_url: str) -> dict[str, str]:
    """Settings of the help-desk world: its BKG, golden set and rubric, the assistant over JSON."""
    return {
        "home": home,
        "bkg_path": str(HELPDESK_DATA / "bkg.json"),
        "golden_path": str(HELPDESK_DATA / "golden_dataset.json"),
        "rubric_path": str(HELPDESK_DATA / "rubric.yaml"),
        "database_url": warehouse_url,
        "results_url": "",
        "chatbot_kind": "http_json",
        "chatbot_url": f"{bot_url}/chat",
        "chatbot_intent_path": "intent",
    }


def send_traffic(bot_url: str, threads: Any) -> None:
    """Production-like conversations, each a thread of user messages continued by id."""
    with requests.Session() as session:
        for thread in threads:
            conversation_id = None
            for message in thread:
                body = {"question": message, "context": "", "conversation_id": conversation_id}
                reply = session.post(f"{bot_url}/chat", json=body, timeout=30)
                reply.raise_for_status()
                conversation_id = reply.json()["conversation_id"]


def run_helpdesk_demo(args: argparse.Namespace) -> int:
    from eval_pipeline.cli.main import _print_summary, start_reference_process
    from eval_pipeline.core.keys import new_run_key
    from eval_pipeline.demo import helpdesk
    from eval_pipeline.demo.helpdesk_bot import HelpdeskBot, serve
    from eval_pipeline.runner.conversations import evaluate_conversations
    from eval_pipeline.runner.evaluate import evaluate
    from eval_pipeline.runner.interrupt import stoppable

    start_reference_process()
    base = load_settings().home / "helpdesk"
    world = base / "world"
    if world.exists():
        shutil.rmtree(world)  # the bot's log and fault record start afresh every demo
    world.mkdir(parents=True)
    warehouse_url = f"sqlite:///{world / 'warehouse.db'}"
    log_url = f"sqlite:///{world / 'conversations.db'}"
    helpdesk.load(warehouse_url)
    seed = DEFAULT_FAULT_SEED if args.fault_seed is None else args.fault_seed
    bot = HelpdeskBot(warehouse_url, log_url, fault_seed=seed, fault_log=world / "faults.jsonl")
    with serve(bot) as running:
        print(f"help-desk assistant listening on {running.url} (fault seed {seed})")
        overrides = helpdesk_overrides(str(base), warehouse_url, running.url)
        run_key = args.run_key or new_run_key("helpdesk")
        golden = stoppable(lambda: evaluate(run_key, overrides=overrides, case_ids=args.cases))
        send_traffic(running.url, helpdesk.TRAFFIC)
    logged = stoppable(
        lambda: evaluate_conversations(
            f"{run_key}-conversations",
            overrides={**overrides, "conversations_url": log_url},
            last=10_000,
        )
    )
    _print_summary(logged)
    print(f"logged conversations summary: {logged.summary_path}")
    _print_summary(golden)
    print(golden.summary_path)
    return 0
