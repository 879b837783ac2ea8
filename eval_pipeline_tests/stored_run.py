"""What a finished run left behind — its summary and report files and its newest records — to
show that a later command which failed or was refused changed none of it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_pipeline.core.results_store import ResultsStore

CASE_STEPS = ("chatbot_responses", "extracted_claims", "oracle_verdicts", "judge_scores")


def summary_of(out: str) -> tuple[Path, dict[str, Any]]:
    """The summary file ``run`` named on its last line of output, and its contents."""
    path = Path(out.strip().splitlines()[-1])
    return path, dict(json.loads(path.read_text()))


def stderr_lines(err: str) -> list[str]:
    """What a command said on stderr besides its progress lines."""
    return [line for line in err.splitlines() if not line.startswith("progress: ")]


@dataclass(frozen=True)
class StoredRun:
    store_url: str
    run_key: str
    files: dict[Path, bytes]
    records: dict[str, Any]

    @classmethod
    def of(cls, store_url: str, summary: Path) -> StoredRun:
        """The run whose summary file is ``summary``, as stored now."""
        content = json.loads(summary.read_text())
        files = {path: path.read_bytes() for path in (summary, Path(content["report_path"]))}
        run_key = str(content["run_key"])
        return cls(store_url, run_key, files, _records(store_url, run_key))

    def assert_unchanged(self) -> None:
        for path, content in self.files.items():
            assert path.read_bytes() == content, f"{path} changed"
        assert _records(self.store_url, self.run_key) == self.records, "its records changed"


def _records(store_url: str, run_key: str) -> dict[str, Any]:
    store = ResultsStore(store_url)
    records: dict[str, Any] = {step: store.latest(step, run_key) for step in CASE_STEPS}
    assert all(records.values()), f"run {run_key} stored no records of some step"
    return {**records, "eval_run": store.run_summary(run_key)}
