"""One finished run of the tiny domain per test module (``StoredRun``, as stored): tests of
commands that must fail cleanly show that none of it changed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.cli.main import main
from eval_pipeline.settings import Settings, load_settings
from eval_pipeline_tests.cli.test_cli import tiny_env
from eval_pipeline_tests.stored_run import StoredRun, stderr_lines
from eval_pipeline_tests.stored_run import summary_of as summary_file_of


@dataclass(frozen=True)
class GoodRun:
    run_key: str
    settings: Settings
    before: StoredRun

    def now(self) -> StoredRun:
        return stored(self.settings, self.run_key)


def stored(settings: Settings, run_key: str) -> StoredRun:
    """What ``run_key``'s last finished run left in ``settings``' home and results store."""
    summary = settings.reports_dir / run_key / "summary.json"
    return StoredRun.of(settings.results_store_url, summary)


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
    """The only line a command printed on stderr besides progress (no traceback, nothing else)."""
    lines = stderr_lines(err.strip())
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def summary_of(out: str) -> dict[str, Any]:
    """The summary ``run`` named on its last line of output."""
    return summary_file_of(out)[1]
