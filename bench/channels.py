"""What each transport costs: the demo golden set's questions asked of one demo bot (no faults)
through ``sse``, ``http_json``, ``openai_chat`` and ``ui``, and through a bare loop that posts to
the bot's OpenAI-compatible endpoint and reads its stream to ``[DONE]`` with nothing else.

Per channel: the wall time of asking every question at ``--concurrency`` (the browser's launch
included for ``ui``, in its own figure), then the mean time per call asked one at a time, and
the mean TTFT and latency the adapter measured. ``openai_chat overhead`` is the adapter's mean
time per call minus the bare loop's, asked one at a time.

    .venv/bin/python bench/channels.py [--concurrency 8] [--rounds 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval_pipeline.cli.main import demo_channel
from eval_pipeline.core.adapters.base import ChatbotAdapter
from eval_pipeline.core.inputs import load_bkg, load_golden
from eval_pipeline.demo import warehouse
from eval_pipeline.demo.bot.runner import BotHandle, start_bot
from eval_pipeline.environment import build_adapter
from eval_pipeline.settings import DEMO_DATA, Settings


def questions() -> list[str]:
    bkg = load_bkg(DEMO_DATA / "bkg.json")
    return [c.question for c in load_golden(DEMO_DATA / "golden_dataset.json", bkg)]


def adapter(channel: str, bot: BotHandle, home: Path, concurrency: int) -> ChatbotAdapter:
    secrets: dict[str, object] = {
        "openai_chat": {"chatbot_api_key": bot.api_key},
        "http_json": {"chatbot_headers": {"Authorization": f"Bearer {bot.api_key}"}},
    }.get(channel, {})  # type: ignore[assignment]
    settings = Settings(
        home=home, concurrency=concurrency, **demo_channel(channel, bot.url), **secrets
    )  # type: ignore[arg-type]
    return build_adapter(settings)


def bare_openai(bot: BotHandle) -> Callable[[str], None]:
    session = requests.Session()

    def ask(question: str) -> None:
        with session.post(
            f"{bot.url}/v1/chat/completions",
            json={"messages": [{"role": "user", "content": question}], "stream": True},
            headers={"Authorization": f"Bearer {bot.api_key}"},
            stream=True,
        ) as response:
            for line in response.iter_lines():
                if line == b"data: [DONE]":
                    return

    return ask


def timed_all(ask: Callable[[str], object], asked: list[str], concurrency: int) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(ask, asked))
    return time.perf_counter() - started


def per_call(ask: Callable[[str], object], asked: list[str]) -> float:
    seconds = []
    for question in asked:
        started = time.perf_counter()
        ask(question)
        seconds.append(time.perf_counter() - started)
    return statistics.mean(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    asked = questions()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'demo.db'}"
        warehouse.load(url)
        with start_bot(database_url=url) as bot:
            bare = bare_openai(bot)
            bare(asked[0])
            bare_s = per_call(bare, asked)
            print(f"bare openai loop: {bare_s * 1000:.1f} ms per call, one at a time")
            for channel in ("sse", "http_json", "openai_chat", "ui"):
                chatbot = adapter(channel, bot, Path(tmp), args.concurrency)
                started = time.perf_counter()
                chatbot.ask("warm", asked[0])  # the browser's launch, a first connection
                first_s = time.perf_counter() - started
                payloads = []

                def ask(
                    question: str, chatbot: ChatbotAdapter = chatbot, payloads: list = payloads
                ) -> None:
                    payloads.append(chatbot.ask("bench", question))

                wall_s = timed_all(ask, asked, args.concurrency)
                one_s = per_call(ask, asked)
                chatbot.close()
                errors = sum(p.status == "error" for p in payloads)
                ttft = [p.ttft_s for p in payloads if p.ttft_s is not None]
                latency = [p.latency_s for p in payloads if p.latency_s is not None]
                print(
                    f"{channel}: first call {first_s:.2f} s; {len(asked)} questions at "
                    f"concurrency {args.concurrency} {wall_s:.2f} s; one at a time "
                    f"{one_s * 1000:.1f} ms per call; mean ttft "
                    f"{statistics.mean(ttft) * 1000 if ttft else float('nan'):.1f} ms, latency "
                    f"{statistics.mean(latency) * 1000 if latency else float('nan'):.1f} ms; "
                    f"errors {errors}"
                )
                if channel == "openai_chat":
                    print(f"openai_chat overhead: {(one_s - bare_s) * 1000:+.1f} ms per call")


if __name__ == "__main__":
    main()
