"""Progress of a long evaluation: cases answered, verified and scored, with an ETA, on stderr.

The counts come from the results store, where each step appends its cases' records as it
finishes (a wave at a time), so the display works the same for every executor and never touches
the steps. On a terminal one line is redrawn; otherwise a plain line is printed every
``PLAIN_EVERY_S`` seconds, so a CI log gets a few lines and a short run none.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TextIO

from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.environment import Environment
from eval_pipeline.settings import Settings

STAGES = {"chatbot_responses": "answered", "oracle_verdicts": "verified", "judge_scores": "scored"}
TTY_EVERY_S = 0.5
PLAIN_EVERY_S = 15.0
QUIET_FIRST_S = 1.0  # a run shorter than this shows nothing


def progress_line(counts: dict[str, int], total: int, elapsed_s: float) -> str:
    """``answered 120/500 · verified 96/500 · scored 96/500 · 24 s elapsed · ETA 1 min 10 s``."""
    parts = [f"{label} {counts.get(label, 0)}/{total}" for label in STAGES.values()]
    done = sum(counts.values()) / (len(STAGES) * total) if total else 1.0
    eta = f"ETA {_duration(elapsed_s * (1 - done) / done)}" if 0 < done < 1 else "ETA —"
    return " · ".join([*parts, f"{_duration(elapsed_s)} elapsed", eta])


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


class StoreCounter:
    """Cases of a run whose record of each stage is newer than when counting began."""

    def __init__(self, store: ResultsStore, run_key: str, cases: Sequence[str]) -> None:
        self.store, self.run_key, self.cases = store, run_key, list(cases)
        self.before = {asset: self._ids(asset) for asset in STAGES}

    @classmethod
    def for_settings(cls, settings: Settings, run_key: str, cases: Sequence[str] | None) -> Any:
        """A counter over the run's cases (every golden case unless ``cases``)."""
        selected = list(cases) if cases else list(Environment(settings).cases)
        return cls(ResultsStore(settings.results_store_url), run_key, selected)

    def _ids(self, asset: str) -> dict[str, int]:
        rows = self.store.latest_rows(asset, self.run_key, self.cases, with_payload=False)
        return {case: row.id for case, row in rows.items()}

    def __call__(self) -> dict[str, int]:
        counts = {}
        for asset, label in STAGES.items():
            earlier = self.before[asset]
            now = self._ids(asset)
            counts[label] = sum(earlier.get(case) != row_id for case, row_id in now.items())
        return counts


@contextmanager
def showing_progress(
    counter: Callable[[], StoreCounter],
    stream: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
    plain_every_s: float = PLAIN_EVERY_S,
) -> Iterator[None]:
    """Show the counts of ``counter()`` (built in the display's thread, so a store or input the
    evaluation will report as broken only disables the display) while the block runs."""
    out = stream or sys.stderr  # as it is now: a caller may have replaced it
    tty = out.isatty()
    every = TTY_EVERY_S if tty else plain_every_s
    start = clock()
    stop = threading.Event()
    shown = threading.Event()

    made: list[StoreCounter] = []

    def show(final: bool = False) -> None:
        line = progress_line(made[0](), len(made[0].cases), clock() - start)
        if tty:
            out.write("\r\x1b[2K" + line + ("\n" if final else ""))
        else:
            out.write(f"progress: {line}\n")
        out.flush()
        shown.set()

    def loop() -> None:
        try:
            made.append(counter())
            if stop.wait(QUIET_FIRST_S if tty else every):
                return
            while True:
                show()
                if stop.wait(every):
                    return
        except Exception:  # the evaluation reports its own errors; the display just stops
            made.clear()

    thread = threading.Thread(target=loop, name="progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        if shown.is_set() and made:
            with suppress(Exception):
                show(final=True)
