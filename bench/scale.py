"""Wall time and peak memory of whole evaluations of 1,000, 5,000 and 10,000 cases.

Each size is one evaluation (every asset through the report) in a fresh subprocess with its own
EVAL_HOME and persistent Dagster instance, against the demo bot (a subprocess) with no added
latency. Every size asks the same mix of questions, that of the largest (``spread_cases``). The
child reports its wall time and its peak RSS: the most that the kernel's exact high-water marks
of it and of its child processes (the sentence encoder, Dagster's compute-log watchers) summed
to, over the processes alive together, as if each had peaked at once (``PeakSampler``). It also
reports the most they held together when sampled every 50 ms from /proc.

    .venv/bin/python bench/scale.py [--sizes 1000 5000 10000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

warnings.filterwarnings("ignore", message=".*is currently in beta")


SAMPLE_S = 0.05


def tree_memory_mib(pid: int) -> dict[int, tuple[float, float]]:
    """(resident now, high-water mark) in MiB of a process and each of its descendants, from
    /proc (Linux).

    ``VmHWM`` is the kernel's exact high-water mark of one process's own memory. Unlike
    ``getrusage``'s ``ru_maxrss``, it does not carry over an exec: a child that Dagster starts
    (``tail -F`` for compute logs) would otherwise report its parent's peak as its own.
    """
    memory: dict[int, tuple[float, float]] = {}
    for current in common.process_tree(pid):
        try:
            status = (Path("/proc") / str(current) / "status").read_text()
            rss, hwm = (
                int(status.split(f"{field}:")[1].split()[0]) / 1024 for field in ("VmRSS", "VmHWM")
            )
            memory[current] = (rss, hwm)
        except (OSError, IndexError):  # a process that has just exited
            continue
    return memory


class PeakSampler:
    """Peak memory of this process and its descendants (the sentence encoder, Dagster's log
    watchers) while it runs, sampled every ``SAMPLE_S`` and once more on exit; 0 off Linux.

    ``sampled`` is the most they held together at a sample. ``high_water`` is the most their
    high-water marks summed to, over the processes alive at a sample: an upper bound, as if
    each had peaked at once, that a peak between samples cannot escape.
    """

    def __init__(self) -> None:
        self.sampled = 0.0
        self.high_water = 0.0
        self.high_water_of: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakSampler:
        if Path("/proc/self/task").is_dir():
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
            self._sample()

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self._sample()

    def _sample(self) -> None:
        memory = tree_memory_mib(os.getpid())
        self.sampled = max(self.sampled, sum(rss for rss, _ in memory.values()))
        self.high_water = max(self.high_water, sum(hwm for _, hwm in memory.values()))
        for pid, (_, hwm) in memory.items():
            self.high_water_of[pid] = max(self.high_water_of.get(pid, 0.0), hwm)


def child(home: Path, golden: Path, url: str, bot_url: str, concurrency: int) -> None:
    """One evaluation in this process; prints its wall time, case counts and peak RSS as JSON."""
    from eval_pipeline.core.embeddings.encoder import default_embedder
    from eval_pipeline.runner.evaluate import evaluate

    common.use_dagster_home(home)
    settings = common.overrides(home, golden, url, bot_url, concurrency)
    with PeakSampler() as sampler:
        start = time.perf_counter()
        summary = evaluate("bench-scale", overrides=settings)
        elapsed = time.perf_counter() - start
    default_embedder().close()  # after the sampler's last look, which counts its high-water mark
    own = sampler.high_water_of.pop(os.getpid(), 0.0)
    result = {
        "seconds": elapsed,
        "cases": summary.cases_total,
        "errors": summary.cases_error,
        "peak_mib": sampler.high_water,
        "own_peak_mib": own,
        "sampled_mib": sampler.sampled,
        "encoder_peak_mib": max(sampler.high_water_of.values(), default=0.0),
    }
    print(json.dumps(result), flush=True)


def run_size(
    root: Path, size: int, largest: int, url: str, bot_url: str, concurrency: int
) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one evaluation of ``size`` cases in a fresh subprocess,
    with the question mix of the ``largest`` size."""
    work = root / f"n{size}"
    golden = common.write_golden(size, work / "golden.json", spread_over=largest)
    result = common.evaluate_in_child(__file__, work / "home", golden, url, bot_url, concurrency)
    if result["cases"] != size or result["errors"]:
        raise SystemExit(f"{size} cases: {result}")
    print(
        f"{size} cases: high-water marks: evaluation process {result['own_peak_mib']:.0f}MiB, "
        f"largest child (the encoder) {result['encoder_peak_mib']:.0f}MiB; sampled together "
        f"{result['sampled_mib']:.0f}MiB"
    )
    return result["seconds"], result["peak_mib"]


def _label(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=3, default=[1000, 5000, 10000])
    parser.add_argument("--concurrency", type=int, default=32)
    common.add_child_argument(parser)
    args = parser.parse_args(argv)
    if args.child:
        home, golden, url, bot_url = args.child
        child(Path(home), Path(golden), url, bot_url, args.concurrency)
        return ""
    if len(set(args.sizes)) != 3:  # one work folder per size: a repeated size reuses its run
        parser.error("--sizes takes three different sizes")
    small, middle, large = sorted(args.sizes)
    times: dict[int, float] = {}
    peaks: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        root = Path(tmp)
        url = common.build_warehouse(root / "warehouse")
        with common.bot_process(url) as bot_url:
            for size in (small, middle, large):
                times[size], peaks[size] = run_size(
                    root, size, large, url, bot_url, args.concurrency
                )
                print(f"{size} cases: {times[size]:.1f}s peak_rss={peaks[size]:.0f}MiB", flush=True)
    line = (
        f"scale: t{_label(small)}={times[small]:.1f}s t{_label(middle)}={times[middle]:.1f}s "
        f"t{_label(large)}={times[large]:.1f}s "
        f"ratio{_label(large)}/{_label(small)}={times[large] / times[small]:.2f} "
        f"peak_rss_{_label(large)}_mib={peaks[large]:.0f}"
    )
    print(line, flush=True)
    return line


if __name__ == "__main__":
    main()
