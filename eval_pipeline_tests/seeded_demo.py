"""The demo evaluated end to end: its warehouse, golden set and bot with seeded faults."""

from __future__ import annotations

from pathlib import Path

from dagster import DagsterInstance

from eval_pipeline.core.summary import RunSummary
from eval_pipeline.demo import warehouse
from eval_pipeline.demo.bot.runner import start_bot
from eval_pipeline.runner.evaluate import evaluate

FAULT_SEED = 3  # fails some of the 30 cases and passes the others


def evaluate_seeded_demo(
    tmp: Path, run_key: str, instance: DagsterInstance, *, ttft_s: float, **settings: str
) -> tuple[RunSummary, dict[str, str]]:
    """The summary of the 30 demo cases, answered by the demo bot with ``FAULT_SEED``, and the
    settings they ran with (everything under ``tmp``, plus ``settings``)."""
    url = f"sqlite:///{tmp / 'demo.db'}"
    warehouse.load(url)
    with start_bot(database_url=url, fault_seed=FAULT_SEED, fault_log=None, ttft_s=ttft_s) as bot:
        overrides = {
            "home": str(tmp / "home"),
            "database_url": url,
            "chatbot_url": bot.url,
            **settings,
        }
        return evaluate(run_key, overrides=overrides, instance=instance), overrides
