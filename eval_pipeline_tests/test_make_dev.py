"""``make dev`` as a new user starts it, with no chatbot running: in its first minute it launches
no evaluation, asks no chatbot and records no run (so nothing can become a baseline), and Ctrl-C
stops it.

Starts the real ``make dev`` (``dagster dev``: webserver, daemon, code server) on a free port
with its own ``EVAL_HOME`` and a nightly cron that ticks every minute; the golden-set sync
run it launched shows the daemon ran its sensors meanwhile.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.error
from pathlib import Path

import pytest
import sqlalchemy as sa

from eval_pipeline.pipeline.sensors import cases_job, golden_job
from eval_pipeline.settings import PROJECT_ROOT
from eval_pipeline_tests.pipeline.test_ui_staleness import free_port, graphql

pytestmark = pytest.mark.slow

FIRST_MINUTE_S = 60.0
START_TIMEOUT_S = 300.0  # for dagster dev to start its daemon on a loaded machine


def rows(results_db: Path) -> dict[str, int]:
    if not results_db.exists():
        return {}
    engine = sa.create_engine(f"sqlite:///{results_db}")
    with engine.connect() as conn:
        found = conn.execute(sa.text("SELECT asset, COUNT(*) FROM records GROUP BY asset"))
        counts = {asset: n for asset, n in found}
    engine.dispose()
    return counts


RUNS = "{ runsOrError { ... on Runs { results { jobName } } } }"


def runs_by_job(url: str) -> dict[str, int] | None:
    """The runs the instance holds, per job, as the webserver reports them (a sensor's request
    shows here at once); None until the webserver answers. Asked through the webserver, not by
    opening the instance: a second process creating a fresh SQLite storage races dagster dev's
    own migrations."""
    try:
        reply = graphql(url, RUNS)
    except (urllib.error.URLError, ConnectionError):
        return None
    jobs = [r["jobName"] for r in reply["runsOrError"]["results"]]
    return {job: jobs.count(job) for job in jobs}


def test_make_devs_first_minute_launches_nothing_records_no_run_and_ctrl_c_stops_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "eval_home"
    silent = f"http://127.0.0.1:{free_port()}"  # no chatbot listens here
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (tmp_path / "dev.log").open("wb")
    dev = subprocess.Popen(
        ["make", "-s", "dev", f"EVAL_HOME={home}", f"DEV_PORT={port}"],
        cwd=PROJECT_ROOT,
        env={**os.environ, "EVAL_CHATBOT_URL": silent, "EVAL_NIGHTLY_CRON": "* * * * *"},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        started = time.monotonic()  # the daemon's first sensor tick launches the golden sync
        while not (runs_by_job(url) or {}).get(golden_job.name):
            assert dev.poll() is None, (tmp_path / "dev.log").read_text()[-3000:]
            assert time.monotonic() - started < START_TIMEOUT_S, "the daemon never ticked"
            time.sleep(2)
        deadline = time.monotonic() + FIRST_MINUTE_S
        while time.monotonic() < deadline:
            assert dev.poll() is None, (tmp_path / "dev.log").read_text()[-3000:]
            time.sleep(2)
        counts = rows(home / "results.db")
        launched = runs_by_job(url) or {}
        os.killpg(dev.pid, signal.SIGINT)  # Ctrl-C: SIGINT to the foreground process group
        dev.wait(timeout=60)
    finally:
        if dev.poll() is None:
            os.killpg(dev.pid, signal.SIGKILL)
            dev.wait()
        log.close()
    output = (tmp_path / "dev.log").read_text()
    assert launched.get(golden_job.name), f"the daemon's sensors never ran:\n{output[-3000:]}"
    assert cases_job.name not in launched, f"make dev launched an evaluation by itself: {launched}"
    for asset in ("chatbot_responses", "eval_run"):
        assert counts.get(asset, 0) == 0, f"{asset} written in make dev's first minute: {counts}"
    assert not (home / "reports").exists() or not any((home / "reports").iterdir())
