"""What the pipeline costs over bare chatbot calls, against a bot with a fixed answer latency, and
the CPU time the evaluation spends.

The demo bot (a subprocess) starts every answer at 300 ms and ends it at 1.0 s. The same N cases
are asked (a) by a bare loop of the project's SSE adapter in a thread pool and (b) by one whole
evaluation through Dagster — every asset through the report, a fresh EVAL_HOME and a persistent
SQLite Dagster instance with the project's dagster.yaml — in a child process of its own, at the
same concurrency. ``throughput`` is (b)'s wall time over (a)'s on an otherwise idle machine;
``throughput_busy`` is the same pair measured again while a CPU-bound process (``busy_core``)
keeps one core busy from before the bare loop until after the evaluation.

With ``--otel`` the idle pair is measured again with ``EVAL_OTEL_ENDPOINT`` pointed at a loopback
OTLP/HTTP endpoint in a process of its own that accepts everything (``common.otlp_sink``), in
``--otel-rounds`` rounds alternating with more untraced pairs (one pair's ratio moves by 0.1 from
run to run on this machine): ``throughput_otel`` is the median traced ratio and how far it moved
from the median untraced one (issue #20's target: at most 0.03), with the spans exported and
failed.

``cpu`` is the user + system CPU time of the idle evaluation's process over its whole life
(interpreter start and imports, ``setup_s``, included) and of its children (the sentence encoder
worker, Dagster's log watchers), not the bot's, which is this process's child. The evaluation's
process measures itself when the evaluation is over and its encoder worker has been closed and
waited for (``common.tree_cpu_s``); the encoder's part is read from /proc just before.

    .venv/bin/python bench/throughput.py [--cases 500] [--concurrency 32] [--otel]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

from eval_pipeline.core.adapters.sse import SSEAdapter
from eval_pipeline.core.embeddings import worker as encoder_worker

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


def child(home: Path, golden: Path, url: str, bot_url: str, concurrency: int) -> None:
    """One evaluation in this process; prints its wall time, summary and CPU seconds as JSON.

    The encoder worker is closed, which waits for it, before the last reading, so its CPU time is
    in ``RUSAGE_CHILDREN``; any child still unreaped then is read from /proc (``tree_cpu_s``)
    and named in ``unreaped``.
    """
    from eval_pipeline.core.embeddings.encoder import default_embedder
    from eval_pipeline.runner.evaluate import evaluate

    common.use_dagster_home(home)
    settings = common.overrides(home, golden, url, bot_url, concurrency)
    setup, _ = common.tree_cpu_s()
    start = time.perf_counter()
    summary = evaluate("bench-throughput", overrides=settings)
    elapsed = time.perf_counter() - start
    _, running = common.tree_cpu_s()
    encoder = [p for p in running if encoder_worker.__name__ in common.cmdline(p)]
    default_embedder().close()
    total, unreaped = common.tree_cpu_s()
    own = resource.getrusage(resource.RUSAGE_SELF)
    result = {
        "seconds": elapsed,
        "cases": summary.cases_total,
        "passed": summary.cases_passed,
        "errors": summary.cases_error,
        "verdict_counts": summary.verdict_counts,
        "calls": summary.calls.model_dump() if summary.calls else None,
        "cpu_s": total,
        "own_cpu_s": own.ru_utime + own.ru_stime,
        "setup_cpu_s": setup,
        "encoder_cpu_s": sum(running[p] for p in encoder),
        "unreaped": [" ".join(common.cmdline(p)) for p in unreaped],
        "trace_export": summary.trace_export.model_dump() if summary.trace_export else None,
    }
    print(json.dumps(result), flush=True)


def bare_and_pipeline(
    root: Path,
    cases: list[dict[str, Any]],
    url: str,
    bot_url: str,
    concurrency: int,
    env: dict[str, str] | None = None,
) -> tuple[float, dict[str, Any]]:
    """The bare loop's seconds, then the evaluation's figures (``child``) under ``root``."""
    bare = bare_calls(bot_url, cases, concurrency)
    golden = common.write_golden(len(cases), root / "golden.json")
    result = common.evaluate_in_child(
        __file__, root / "home", golden, url, bot_url, concurrency, env
    )
    if result["errors"]:
        raise SystemExit(f"pipeline: {result['errors']} case(s) in error")
    return bare, result


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--otel", action="store_true", help="also measure with trace export on")
    parser.add_argument(
        "--otel-rounds", type=int, default=3, help="alternating runs with the export off and on"
    )
    common.add_child_argument(parser)
    args = parser.parse_args(argv)
    if args.child:
        home, golden, url, bot_url = args.child
        child(Path(home), Path(golden), url, bot_url, args.concurrency)
        return []
    n, concurrency = args.cases, args.concurrency
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        root = Path(tmp)
        cases = common.golden_cases(n)
        url = common.build_warehouse(root / "warehouse")
        with common.bot_process(url, ttft_s=TTFT_S, answer_s=ANSWER_S) as bot_url:
            bare, idle = bare_and_pipeline(root / "idle", cases, url, bot_url, concurrency)
            off_ratios = [idle["seconds"] / bare]
            on_runs: list[tuple[float, dict[str, Any]]] = []
            if args.otel:
                with common.otlp_sink() as endpoint:
                    env = {"EVAL_OTEL_ENDPOINT": endpoint}
                    for i in range(args.otel_rounds):
                        if i:  # alternate, so a slow spell of the machine hits both alike
                            more_bare, more = bare_and_pipeline(
                                root / f"off{i}", cases, url, bot_url, concurrency
                            )
                            off_ratios.append(more["seconds"] / more_bare)
                        on_runs.append(
                            bare_and_pipeline(
                                root / f"otel{i}", cases, url, bot_url, concurrency, env
                            )
                        )
            with common.busy_core():
                busy_bare, busy = bare_and_pipeline(root / "busy", cases, url, bot_url, concurrency)
    print(
        f"pipeline: cases={idle['cases']} passed={idle['passed']} "
        f"claims={idle['verdict_counts']} calls={idle['calls']}"
    )
    if idle["unreaped"]:
        print(f"note: children unreaped at the CPU reading, read from /proc: {idle['unreaped']}")
    others = idle["cpu_s"] - idle["own_cpu_s"] - idle["encoder_cpu_s"]
    pipeline = idle["seconds"]
    lines = [
        f"throughput: pipeline={pipeline:.1f}s bare={bare:.1f}s ratio={pipeline / bare:.2f} "
        f"cases={n} concurrency={concurrency}",
        f"cpu: cases={idle['cases']} cpu_s={idle['cpu_s']:.1f} "
        f"process_s={idle['own_cpu_s']:.1f} setup_s={idle['setup_cpu_s']:.1f} "
        f"encoder_s={idle['encoder_cpu_s']:.1f} other_children_s={others:.1f}",
        f"throughput_busy: ratio={busy['seconds'] / busy_bare:.2f} "
        f"pipeline={busy['seconds']:.1f}s bare={busy_bare:.1f}s cases={n} "
        f"concurrency={concurrency}",
    ]
    if on_runs:
        on_ratios = [on["seconds"] / on_bare for on_bare, on in on_runs]
        exported = on_runs[-1][1]["trace_export"] or {}
        ratio, off = median(on_ratios), median(off_ratios)
        lines.append(
            f"throughput_otel: ratio={ratio:.2f} moved={ratio - off:+.2f} "
            f"(medians of {len(on_ratios)} alternating runs; on={[round(r, 2) for r in on_ratios]} "
            f"off={[round(r, 2) for r in off_ratios]}) "
            f"spans={exported.get('spans', 0)} failed={exported.get('failed', 0)}"
        )
    print("\n".join(lines), flush=True)
    return lines


if __name__ == "__main__":
    main()
