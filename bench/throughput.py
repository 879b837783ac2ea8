"""What the pipeline costs over bare chatbot calls, against a bot with a fixed answer latency.

The demo bot (a subprocess) starts every answer at 300 ms and ends it at 1.0 s. The same N cases
are asked (a) by one whole evaluation through Dagster — every asset through the report, a fresh
EVAL_HOME and a persistent SQLite Dagster instance with the project's dagster.yaml — and (b) by a
bare loop of the project's SSE adapter in a thread pool, at the same concurrency.

    .venv/bin/python bench/throughput.py [--cases 500] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

from eval_pipeline.core.adapters.sse import SSEAdapter
from eval_pipeline.runner.evaluate import evaluate

warnings.filterwarnings("ignore", message=".*is currently in beta")

TTFT_S = 0.3
ANSWER_S = 1.0


def bare_calls(bot_url: str, cases: list[dict[str, Any]], concurrency: int) -> float:
    """Seconds to ask every case with the adapter alone; any failed call aborts the benchmark."""
    adapter = SSEAdapter(
        bot_url,
        username="demo",
        password="demo-password",
        read_timeout_s=60,
        pool_size=concurrency,
    )
    try:
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            payloads = list(
                pool.map(lambda c: adapter.ask(c["id"], c["question"], c["context"]), cases)
            )
        elapsed = time.perf_counter() - start
    finally:
        adapter.close()
    failed = [p.case_id for p in payloads if p.status != "ok"]
    if failed:
        raise SystemExit(f"bare loop: {len(failed)} chatbot call(s) failed, e.g. {failed[:3]}")
    return elapsed


def pipeline_run(home: Path, settings: dict[str, str]) -> tuple[float, dict[str, Any]]:
    common.use_dagster_home(home)
    start = time.perf_counter()
    summary = evaluate("bench-throughput", overrides=settings)
    elapsed = time.perf_counter() - start
    if summary["cases_error"]:
        raise SystemExit(f"pipeline: {summary['cases_error']} case(s) in error")
    return elapsed, summary


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        root = Path(tmp)
        cases = common.golden_cases(args.cases)
        golden = common.write_golden(args.cases, root / "golden.json")
        url = common.build_warehouse(root / "warehouse")
        with common.bot_process(url, ttft_s=TTFT_S, answer_s=ANSWER_S) as bot_url:
            bare = bare_calls(bot_url, cases, args.concurrency)
            settings = common.overrides(root / "home", golden, url, bot_url, args.concurrency)
            pipeline, summary = pipeline_run(root / "home", settings)
    print(
        f"pipeline: cases={summary['cases_total']} passed={summary['cases_passed']} "
        f"claims={summary['verdict_counts']} calls={summary['calls']}"
    )
    line = (
        f"throughput: pipeline={pipeline:.1f}s bare={bare:.1f}s ratio={pipeline / bare:.2f} "
        f"cases={args.cases} concurrency={args.concurrency}"
    )
    print(line, flush=True)
    return line


if __name__ == "__main__":
    main()
