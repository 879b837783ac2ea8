"""What running BKG code in its own process (``core/warehouse/bkg_process``) costs per reference.

The references are those of the scale benchmark's question mix (``common.spread_cases``), each
distinct one computed once on a fresh demo warehouse, three ways: in this process the way the
runtime did before the process existed (the functions exec'd here, called, their results shaped),
through the BKG process from one thread, and from ``--threads`` threads as a step's cases are.
A trivial function measures the round trip alone. Also printed: how long the child takes to
start (its imports) and its memory high-water mark (Linux).

    .venv/bin/python bench/reference_calls.py [--references 1000] [--threads 8]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

from eval_pipeline.core.inputs import load_bkg
from eval_pipeline.core.limits import ReferenceLimits
from eval_pipeline.core.models import BKG, FUNCTION_KINDS, Function, Reference
from eval_pipeline.core.warehouse.bkg_process import BKGProcess
from eval_pipeline.core.warehouse.bkg_runtime import (
    BKGRuntime,
    compile_function,
    json_shape,
    with_defaults,
)
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline.settings import DEMO_DATA


def distinct_references(count: int) -> list[Reference]:
    seen: dict[str, Reference] = {}
    for case in common.spread_cases(10_000, 10_000):
        for raw in case.get("reference", []):
            seen.setdefault(json.dumps(raw, sort_keys=True), Reference.model_validate(raw))
    return list(seen.values())[:count]


def in_this_process(bkg: BKG, refs: list[Reference], db: Database) -> float:
    """The former runtime: functions exec'd here and called directly, results shaped."""
    namespace: dict[str, Any] = {"__name__": "bkg_functions"}
    calls = {
        (kind, fn.name): (fn, compile_function(kind, fn, namespace))
        for kind, attr in FUNCTION_KINDS.items()
        for fn in getattr(bkg, attr)
    }
    started = time.perf_counter()
    for ref in refs:
        if ref.kind == "sql":
            json_shape(db.query(ref.target, **ref.params), cell_as_scalar=True)
        else:
            fn, target = calls[(ref.kind, ref.target)]
            json_shape(target(db, **with_defaults(fn, ref.params)))
    return time.perf_counter() - started


def through_process(
    bkg: BKG, refs: list[Reference], db: Database, process: BKGProcess, threads: int
) -> float:
    """Seconds per call made (references equal once their defaults are filled are one call)."""
    runtime = BKGRuntime(bkg, ReferenceLimits(), process)  # a fresh memo: every call is made
    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        errors = [v.error for v in pool.map(lambda r: runtime.evaluate(r, db), refs) if v.error]
    took = time.perf_counter() - started
    assert not errors, errors[:3]
    return took / runtime.calls_made


def high_water_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return 0.0
    return int(status.read_text().split("VmHWM:")[1].split()[0]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--references", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = common.build_warehouse(Path(tmp) / "warehouse")
        bkg = load_bkg(DEMO_DATA / "bkg.json")
        refs = distinct_references(args.references)
        trivial = Function.model_validate(
            {
                "name": "one",
                "description": "1",
                "tables": [],
                "python_function": "def one(db, i):\n return 1\n",
                "params": [{"name": "i", "type": "integer"}],
            }
        )
        kpis = [trivial.model_dump(by_alias=True)]
        tiny = BKG.model_validate({"name": "t", "tables": [], "kpis": kpis})
        pings = [Reference.model_validate({"kpi": "one", "params": {"i": i}}) for i in range(2000)]
        process = BKGProcess()
        started = time.perf_counter()
        process.load(process.namespace([("kpi", trivial)]), 60)
        start_s = time.perf_counter() - started
        with Database(url) as db:
            through_process(tiny, pings[:50], db, process, 1)  # warm: namespace, connection
            round_trip = through_process(tiny, pings, db, process, 1)
            through_process(bkg, refs[:20], db, process, 1)
            local = in_this_process(bkg, refs, db) / len(refs)
            single = through_process(bkg, refs, db, process, 1)
            threaded = through_process(bkg, refs, db, process, args.threads)
        memory = high_water_mib(process.pid or 0)
        process.close()
    print(
        f"reference_calls: refs={len(refs)} round_trip_ms={round_trip * 1e3:.3f} "
        f"in_process_ms={local * 1e3:.3f} process_ms={single * 1e3:.3f} "
        f"process_{args.threads}_threads_ms={threaded * 1e3:.3f} "
        f"child_start_s={start_s:.2f} child_peak_mib={memory:.0f}"
    )


if __name__ == "__main__":
    main()
