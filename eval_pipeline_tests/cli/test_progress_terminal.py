"""``eval-pipeline run`` on a real terminal (a pseudo-terminal): one progress line redrawn while
the evaluation runs, ending with every case answered, verified and scored; the summary table's
counts as text."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval_pipeline_tests.pipeline.test_graph import tiny_overrides

pytestmark = pytest.mark.slow

TIMEOUT_S = 600.0


def run_on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """The command with stdout and stderr on a pseudo-terminal; its exit code and all it wrote."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env, close_fds=True
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    data = os.read(leader, 65536)
                except OSError:  # the terminal closed: every writer has exited
                    break
                if not data:
                    break
                chunks.append(data)
            elif process.poll() is not None:
                break
        else:
            raise AssertionError("eval-pipeline run did not finish")
        return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)


def test_run_on_a_terminal_redraws_one_progress_line_to_the_end(tmp_path: Path) -> None:
    overrides = tiny_overrides(tmp_path, "honest")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("EVAL_")},
        **{f"EVAL_{key.upper()}": value for key, value in overrides.items()},
    }
    cli = str(Path(sys.executable).with_name("eval-pipeline"))
    code, output = run_on_a_terminal([cli, "run", "--run-key", "tty-1"], env)
    assert code in (0, 1), output  # 1: the run's gate, not a crash
    redraws = output.count("\r\x1b[2K")
    assert redraws >= 2, f"no redrawn progress line:\n{output}"
    final = output.split("\r\x1b[2K")[-1].split("\n")[0]
    assert re.fullmatch(
        r"answered 5/5 · verified 5/5 · scored 5/5 · .* elapsed · ETA .*", final.strip()
    ), final
    assert "{" not in output.split(final)[-1], "the summary's counts are text, not a dict"
