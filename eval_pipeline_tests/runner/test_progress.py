"""The progress display of long runs: counts from the results store, an ETA, a redrawn line on
a terminal and plain lines otherwise, nothing for a short run."""

from __future__ import annotations

import io
import time
from pathlib import Path

from eval_pipeline.core.results_store import ResultsStore, StoredRecord
from eval_pipeline.runner.progress import StoreCounter, progress_line, showing_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_counts_each_stage_and_estimates_what_is_left() -> None:
    line = progress_line({"answered": 50, "verified": 25, "scored": 25}, 100, 40.0)
    assert (
        line == "answered 50/100 · verified 25/100 · scored 25/100 · 40 s elapsed · ETA 1 min 20 s"
    )


def store_with(tmp_path: Path) -> ResultsStore:
    return ResultsStore(f"sqlite:///{tmp_path / 'results.db'}")


def append(store: ResultsStore, asset: str, cases: list[str]) -> None:
    store.append(
        asset,
        [
            StoredRecord(run_key="r", case_id=c, payload={"case_id": c}, content_hash=c)
            for c in cases
        ],
        "dagster-run",
    )


def test_counts_are_the_cases_recorded_since_the_display_began(tmp_path: Path) -> None:
    store = store_with(tmp_path)
    append(store, "chatbot_responses", ["A"])  # from an earlier evaluation
    counter = StoreCounter(store, "r", ["A", "B", "C"])
    append(store, "chatbot_responses", ["A", "B"])
    append(store, "oracle_verdicts", ["A"])
    assert counter() == {"answered": 2, "verified": 1, "scored": 0}


def test_plain_lines_when_not_a_terminal_and_none_for_a_short_run(tmp_path: Path) -> None:
    store = store_with(tmp_path)
    out = io.StringIO()
    with showing_progress(lambda: StoreCounter(store, "r", ["A"]), stream=out, plain_every_s=0.05):
        time.sleep(0.3)
        append(store, "chatbot_responses", ["A"])
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("progress: answered ") for line in lines)
    assert lines[-1].startswith("progress: answered 1/1 · verified 0/1")
    quiet = io.StringIO()
    with showing_progress(lambda: StoreCounter(store, "r", ["A"]), stream=quiet):
        pass
    assert quiet.getvalue() == ""


def test_on_a_terminal_one_line_is_redrawn(tmp_path: Path) -> None:
    store = store_with(tmp_path)
    out = Terminal()
    with showing_progress(lambda: StoreCounter(store, "r", ["A", "B"]), stream=out):
        time.sleep(1.8)
    text = out.getvalue()
    assert text.startswith("\r\x1b[2K") and text.count("\n") == 1 and text.endswith("\n")


def test_a_broken_store_only_disables_the_display() -> None:
    def broken() -> StoreCounter:
        raise RuntimeError("unreachable results store")

    out = io.StringIO()
    with showing_progress(broken, stream=out, plain_every_s=0.01):
        time.sleep(0.1)
    assert out.getvalue() == ""
