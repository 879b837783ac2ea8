"""A finished run of the tiny domain, and what it left behind: tests of commands that must fail
cleanly show that none of it changed."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.core.results_store import ResultsStore
from eval_pipeline.pipeline.case_assets import PER_CASE_ASSETS
from eval_pipeline.settings import Settings, load_settings
from eval_pipeline_tests.cli.test_cli import tiny_env


@dataclass(frozen=True)
class Stored:
    summary_json: str
    report_html: str
    summary_record: dict[str, Any] | None
    current: dict[str, dict[str, Any]]
    """Every per-case asset's current payload per case."""
    rows: int
    """How many rows the records table holds."""


@dataclass(frozen=True)
class GoodRun:
    run_key: str
    settings: Settings
    before: Stored

    def now(self) -> Stored:
        return stored(self.settings, self.run_key)

    def intact(self) -> bool:
        """Its summary, report and records as they were, whatever other run keys wrote since."""
        return dataclasses.replace(self.now(), rows=self.before.rows) == self.before

    @property
    def summary_path(self) -> Path:
        return self.settings.reports_dir / self.run_key / "summary.json"


def stored(settings: Settings, run_key: str) -> Stored:
    store = ResultsStore(settings.results_store_url)
    folder = settings.reports_dir / run_key
    return Stored(
        summary_json=(folder / "summary.json").read_text(),
        report_html=(folder / "report.html").read_text(),
        summary_record=store.run_record("eval_run", run_key),
        current={asset: store.latest(asset, run_key) for asset in PER_CASE_ASSETS},
        rows=store.last_id(),
    )


def good_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_key: str = "good", chatbot: str = "honest"
) -> GoodRun:
    """The tiny domain's settings in the environment and one finished run of ``run_key``."""
    tiny_env(tmp_path, monkeypatch, chatbot)
    assert main(["run", "--run-key", run_key]) == 0
    settings = load_settings()
    return GoodRun(run_key, settings, stored(settings, run_key))


def settings_into(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    """The ``EVAL_*`` variables that make ``settings`` the environment's (retries off, so a
    chatbot that cannot be reached fails at once)."""
    for name, value in {
        "HOME": str(settings.home),
        "BKG_PATH": str(settings.bkg_path),
        "GOLDEN_PATH": str(settings.golden_path),
        "DATABASE_URL": settings.database_url,
        "CHATBOT_KIND": settings.chatbot_kind,
        "CHATBOT_CALLABLE": settings.chatbot_callable,
        "CHATBOT_RETRIES": "0",
    }.items():
        monkeypatch.setenv(f"EVAL_{name}", value)


def one_line(err: str) -> str:
    """The only line a command printed on stderr (no traceback, nothing else)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def summary_of(out: str) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads(Path(out.strip().splitlines()[-1]).read_text())
    return summary
