"""What a re-run with nothing changed costs next to the cold run it repeats.

A cold evaluation of N cases against the demo bot (a subprocess; first token at 300 ms, answer
complete at 1.0 s, as in throughput.py), then the same run key evaluated again with the same
inputs. Every case is up to date, so no per-case Dagster run is launched: only the summary and the
report are materialized again, with no chatbot, judge or reference call (``calls`` of the summary)
and no model load.

    .venv/bin/python bench/rerun.py [--cases 500] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from dagster import DagsterInstance

from eval_pipeline.runner.evaluate import evaluate

warnings.filterwarnings("ignore", message=".*is currently in beta")

TTFT_S = 0.3
ANSWER_S = 1.0
RUN_KEY = "bench-rerun"


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-rerun-") as tmp:
        root = Path(tmp)
        golden = common.write_golden(args.cases, root / "golden.json")
        url = common.build_warehouse(root / "warehouse")
        with common.bot_process(url, ttft_s=TTFT_S, answer_s=ANSWER_S) as bot_url:
            common.use_dagster_home(root / "home")
            settings = common.overrides(root / "home", golden, url, bot_url, args.concurrency)
            start = time.perf_counter()
            cold_summary = evaluate(RUN_KEY, overrides=settings)
            cold = time.perf_counter() - start
            runs_before = len(DagsterInstance.get().get_runs())
            start = time.perf_counter()
            summary = evaluate(RUN_KEY, overrides=settings)
            noop = time.perf_counter() - start
            launched = len(DagsterInstance.get().get_runs()) - runs_before
    reused = sum(c.reused for c in summary.cases)
    made = summary.calls.model_dump() if summary.calls else {}
    if cold_summary.cases_error:
        raise SystemExit(f"cold run: {cold_summary.cases_error} case(s) in error")
    print(f"noop: cases={summary.cases_total} reused={reused} calls={made} dagster_runs={launched}")
    calls = sum(made.values())
    line = f"rerun: cold={cold:.1f}s noop={noop:.1f}s ratio={noop / cold:.3f} calls={calls}"
    print(line, flush=True)
    return line


if __name__ == "__main__":
    main()
