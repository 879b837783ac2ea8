"""How long the command line takes: ``eval-pipeline --help``, ``eval-pipeline validate`` on the
demo inputs, and ``eval-pipeline run`` of one demo case end to end.

Each is a fresh subprocess (``python -m eval_pipeline.cli.main``: the ``main`` the console script
calls), timed from launch to exit, N times. ``validate`` checks the demo BKG and golden set and a
demo warehouse built beforehand. ``run --cases <the demo golden set's first case>`` evaluates it
with a fresh EVAL_HOME each time (a new Dagster instance, results store and report) against the
demo bot, a subprocess already listening that answers at once: neither building the warehouse
nor starting the bot counts, nor the bot's latency. The commands see this environment without
its EVAL_* and DAGSTER_HOME variables, and run in a folder without a ``.env``. The project's
modules are compiled by ``make setup`` (``make bench`` runs it first), as a wheel install's are.

    .venv/bin/python bench/startup.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

from eval_pipeline.settings import DEMO_DATA

RUN_KEY = "bench-startup"


def timed(
    command: list[str], cwd: Path, exit_codes: tuple[int, ...] = (0,), **settings: str
) -> tuple[float, str]:
    """Seconds from launching ``command`` to its exit, and its output; EVAL_<KEY> from
    ``settings``. An exit code not in ``exit_codes`` stops the benchmark."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVAL_")}
    env.pop("DAGSTER_HOME", None)
    env.update({f"EVAL_{key.upper()}": value for key, value in settings.items()})
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    common.check_exit(done, " ".join(command[2:]), exit_codes)
    return elapsed, done.stdout


def one_case(root: Path, case_id: str, url: str, bot_url: str) -> float:
    """Seconds of ``eval-pipeline run`` of one case with a fresh EVAL_HOME under ``root``."""
    root.mkdir(parents=True)
    command = [*common.CLI, "run", "--cases", case_id, "--run-key", RUN_KEY]
    settings = {"home": str(root / "home"), "database_url": url, "chatbot_url": bot_url}
    seconds, out = timed(command, root, (0, 1), **settings)  # 1: the case failed its gate
    summary = json.loads(Path(out.strip().splitlines()[-1]).read_text())
    if summary["cases_total"] != 1 or summary["cases_error"]:
        raise SystemExit(
            f"one case: {summary['cases_total']} case(s), {summary['cases_error']} in error"
        )
    return seconds


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    case_id = json.loads((DEMO_DATA / "golden_dataset.json").read_text())[0]["id"]
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        root = Path(tmp)
        url = common.build_warehouse(root / "warehouse")
        runs = range(args.repeats)
        helps = [timed([*common.CLI, "--help"], root)[0] for _ in runs]
        validates = [
            timed([*common.CLI, "validate"], root, home=str(root / f"v{i}"), database_url=url)[0]
            for i in runs
        ]
        with common.bot_process(url) as bot_url:
            cases = [one_case(root / f"run{i}", case_id, url, bot_url) for i in runs]
    print(
        "startup runs: "
        + " ".join(
            f"{name}={'/'.join(f'{s:.2f}' for s in times)}s"
            for name, times in (("help", helps), ("validate", validates), ("one_case", cases))
        )
    )
    # help and validate: the best run. Each is one process importing modules, CPU-bound work
    # that a shared machine's noise only lengthens, so the minimum is its own cost (the runs
    # above show the spread). one_case: the median, as it starts the encoder worker, which loads
    # torch on the other core, and talks to the bot and to SQLite: its variation is its own.
    line = (
        f"startup: help={min(helps):.2f}s validate={min(validates):.2f}s "
        f"one_case={statistics.median(cases):.2f}s"
    )
    print(line, flush=True)
    return line


if __name__ == "__main__":
    main()
