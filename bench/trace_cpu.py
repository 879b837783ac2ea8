"""What exporting traces costs an evaluation: the evaluation process's CPU time per case with
``EVAL_OTEL_ENDPOINT`` set against without, in alternating runs.

The same N cases (``common.golden_cases``) are evaluated against the demo bot (a subprocess,
answering at once) in a fresh process each time, alternately without and with the export; the
spans go to a loopback OTLP/HTTP receiver in a process of its own that answers 200 and keeps
nothing, so only the evaluation's side is counted: building the spans' attributes, redacting
them, handing them to the export process, the end-of-run flush. CPU is the evaluation process's
own user + system time (``RUSAGE_SELF``) and, apart from it, that of its child processes
(``RUSAGE_CHILDREN``: the export process, which encodes and sends the spans, and the encoder
worker and BKG process, the same either way). Wall time says little on a shared machine; CPU
time per case is the figure, and the throughput benchmark's ratio (``bench/throughput.py`` with
``--otel``) needs a quiet machine.

    .venv/bin/python bench/trace_cpu.py [--cases 200] [--rounds 3] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common


def child(home: Path, golden: Path, url: str, bot_url: str, concurrency: int) -> None:
    """One evaluation in this process; prints its CPU seconds and export counts as JSON."""
    from eval_pipeline.core.embeddings.encoder import default_embedder
    from eval_pipeline.runner.evaluate import evaluate

    common.use_dagster_home(home)
    settings = common.overrides(home, golden, url, bot_url, concurrency)
    if os.environ.get("TRACE_CPU_ENDPOINT"):
        settings["otel_endpoint"] = os.environ["TRACE_CPU_ENDPOINT"]
    start = time.perf_counter()
    summary = evaluate("bench-trace-cpu", overrides=settings)
    elapsed = time.perf_counter() - start
    default_embedder().close()
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = {
        "seconds": elapsed,
        "cases": summary.cases_total,
        "errors": summary.cases_error,
        "cpu_s": own.ru_utime + own.ru_stime,
        "children_cpu_s": children.ru_utime + children.ru_stime,
        "trace_export": summary.trace_export.model_dump() if summary.trace_export else None,
    }
    print(json.dumps(result), flush=True)


def one(root: Path, golden: Path, url: str, bot_url: str, concurrency: int, endpoint: str) -> dict:
    env = {**os.environ, "TRACE_CPU_ENDPOINT": endpoint}
    home = Path(tempfile.mkdtemp(dir=root))
    command = [sys.executable, __file__, "--child", str(home), str(golden), url, bot_url]
    done = subprocess.run(
        [*command, "--concurrency", str(concurrency)], capture_output=True, text=True, env=env
    )
    common.check_exit(done, "the evaluation's process")
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    if result["errors"]:
        raise SystemExit(f"{result['errors']} case(s) in error")
    return result


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=16)
    common.add_child_argument(parser)
    args = parser.parse_args(argv)
    if args.child:
        home, golden, url, bot_url = args.child
        child(Path(home), Path(golden), url, bot_url, args.concurrency)
        return []
    off: list[dict] = []
    on: list[dict] = []
    spans = 0
    with tempfile.TemporaryDirectory(prefix="bench-trace-cpu-") as tmp:
        root = Path(tmp)
        golden = common.write_golden(args.cases, root / "golden.json")
        url = common.build_warehouse(root / "warehouse")
        with common.bot_process(url) as bot_url, common.otlp_sink() as endpoint:
            for _ in range(args.rounds):
                off.append(one(root, golden, url, bot_url, args.concurrency, ""))
                traced = one(root, golden, url, bot_url, args.concurrency, endpoint)
                exported = traced["trace_export"]
                if exported["failed"]:
                    raise SystemExit(f"the export failed: {exported}")
                spans = exported["spans"]
                on.append(traced)

    def added_ms(key: str) -> list[float]:
        return [(b[key] - a[key]) / args.cases * 1000 for a, b in zip(off, on, strict=True)]

    own, children = added_ms("cpu_s"), added_ms("children_cpu_s")
    lines = [
        f"trace_cpu: cases={args.cases} rounds={args.rounds} spans_per_run={spans} "
        f"cpu_off_s={statistics.fmean(r['cpu_s'] for r in off):.2f} "
        f"cpu_on_s={statistics.fmean(r['cpu_s'] for r in on):.2f} "
        f"added_ms_per_case={statistics.fmean(own):.2f} "
        f"(rounds: {', '.join(f'{m:.2f}' for m in own)}) "
        f"children_added_ms_per_case={statistics.fmean(children):.2f} "
        f"(rounds: {', '.join(f'{m:.2f}' for m in children)})"
    ]
    print("\n".join(lines), flush=True)
    return lines


if __name__ == "__main__":
    main()
