"""The cost of each case's own metadata and ``case_passed`` check in the Dagster event log.

For each size, whole evaluations against the demo bot (no added latency) alternate with
``EVAL_PARTITION_METADATA`` on and off, each in a fresh subprocess with its own EVAL_HOME and
Dagster instance. The figure is the evaluating process's own user + system CPU time (the encoder
worker does the same work either way and is left out), which a machine shared with other work
disturbs far less than wall time; wall time is printed too.

    .venv/bin/python bench/partition_metadata.py [--sizes 500 10000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
import warnings
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

warnings.filterwarnings("ignore", message=".*is currently in beta")


def child(home: Path, golden: Path, url: str, bot_url: str, concurrency: int, on: str) -> None:
    """One evaluation in this process; prints its own CPU seconds and wall time as JSON."""
    from eval_pipeline.runner.evaluate import evaluate

    common.use_dagster_home(home)
    settings = {
        **common.overrides(home, golden, url, bot_url, concurrency),
        "partition_metadata": on,
    }
    start = time.perf_counter()
    summary = evaluate("bench-metadata", overrides=settings)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result = {"cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall}
    print(json.dumps({**result, "cases": summary.cases_total}), flush=True)


def one(root: Path, size: int, on: bool, round_: int, url: str, bot_url: str) -> dict[str, float]:
    import subprocess

    work = root / f"n{size}-{'on' if on else 'off'}-{round_}"
    golden = common.write_golden(size, work / "golden.json")
    command = [sys.executable, __file__, "--child", str(work / "home"), str(golden), url, bot_url]
    done = subprocess.run(
        [*command, "--on", "true" if on else "false"], capture_output=True, text=True
    )
    common.check_exit(done, "the evaluation's process")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 10000])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--on", default="true")
    common.add_child_argument(parser)
    args = parser.parse_args(argv)
    if args.child:
        home, golden, url, bot_url = args.child
        child(Path(home), Path(golden), url, bot_url, args.concurrency, args.on)
        return
    with tempfile.TemporaryDirectory(prefix="bench-metadata-") as tmp:
        root = Path(tmp)
        url = common.build_warehouse(root / "warehouse")
        with common.bot_process(url) as bot_url:
            for size in args.sizes:
                runs: dict[bool, list[dict[str, float]]] = {True: [], False: []}
                for round_ in range(args.rounds):
                    for on in (round_ % 2 == 0, round_ % 2 == 1):  # alternate which goes first
                        runs[on].append(one(root, size, on, round_, url, bot_url))
                        r = runs[on][-1]
                        print(
                            f"{size} cases, metadata {'on' if on else 'off'}: "
                            f"cpu {r['cpu_s']:.1f}s wall {r['wall_s']:.1f}s",
                            flush=True,
                        )
                cpu = {on: median(r["cpu_s"] for r in rs) for on, rs in runs.items()}
                wall = {on: median(r["wall_s"] for r in rs) for on, rs in runs.items()}
                print(
                    f"partition_metadata: cases={size} cpu_on={cpu[True]:.1f}s "
                    f"cpu_off={cpu[False]:.1f}s cpu_cost={cpu[True] - cpu[False]:+.1f}s "
                    f"({(cpu[True] / cpu[False] - 1) * 100:+.1f}%) wall_on={wall[True]:.1f}s "
                    f"wall_off={wall[False]:.1f}s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
