"""EVAL_LLM_REQUESTS_PER_MINUTE: request starts spaced so a rate-limited key never sees a 429."""

from __future__ import annotations

import contextlib
import itertools
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from eval_pipeline.core.llm.client import JudgeClient, JudgeUnavailableError
from eval_pipeline.core.llm.pacing import Pacer, endpoint_pacer
from eval_pipeline.core.llm.settings import LLMSettings
from eval_pipeline.settings import load_settings
from eval_pipeline_tests.scripted_openai import RecordedRequest, Reply, ScriptedOpenAI, content


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0
        self.lock = threading.Lock()

    def clock(self) -> float:
        with self.lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds


def test_pacer_spaces_every_start_by_the_interval() -> None:
    t = FakeTime()
    pacer = Pacer(15, clock=t.clock, sleep=t.sleep)
    starts = []
    for _ in range(4):
        pacer.wait()
        starts.append(t.now)
    assert [b - a for a, b in itertools.pairwise(starts)] == [4.0, 4.0, 4.0]


def test_pacer_does_not_wait_after_a_quiet_spell() -> None:
    t = FakeTime()
    pacer = Pacer(60, clock=t.clock, sleep=t.sleep)
    assert pacer.wait() == 0
    t.now += 10
    assert pacer.wait() == 0
    assert pacer.wait() == pytest.approx(1.0)


def test_concurrent_callers_reserve_distinct_starts() -> None:
    """Eight threads at once: their reserved starts are all a full interval apart."""
    waits: list[float] = []
    pacer = Pacer(60, clock=lambda: 0.0, sleep=lambda _s: None)
    with ThreadPoolExecutor(8) as pool:
        waits = sorted(pool.map(lambda _i: pacer.wait(), range(8)))
    assert waits == [float(i) for i in range(8)]


def test_endpoint_pacer_is_shared_per_endpoint_and_off_at_zero() -> None:
    a = endpoint_pacer("http://judge.local/v1/", None, 15)
    assert a is endpoint_pacer("http://judge.local/v1", None, 15)
    assert a is not endpoint_pacer("http://other.local/v1", None, 15)
    assert endpoint_pacer("http://judge.local/v1", None, 0) is None
    with pytest.raises(ValueError):
        Pacer(0)


def test_a_rate_limited_endpoint_never_answers_429_when_paced(tmp_path: Path) -> None:
    """A server that refuses a request arriving well within the interval of the one before it
    (half of it: the loopback's own jitter stays under that), as a free tier does: two clients of
    one process, judging concurrently, are never refused; unpaced, the same calls are."""
    per_minute = 150.0  # one start per 0.4 s: well above the loopback's jitter under load
    interval = 60.0 / per_minute
    last: list[float] = []
    lock = threading.Lock()

    def limited(request: RecordedRequest) -> Reply:
        with lock:
            too_soon = bool(last) and request.received_at - last[-1] < interval / 2
            last.append(request.received_at)
        return Reply(status=429, error_message="rate limited") if too_soon else content("{}")

    with ScriptedOpenAI(api_key="sk-test", default=limited) as server:
        settings = LLMSettings(
            base_url=server.base_url,
            api_key="sk-test",  # type: ignore[arg-type]
            model="judge",
            max_retries=0,
            concurrency=4,
            requests_per_minute=per_minute,
        )
        clients = [
            JudgeClient(settings, cache_url=f"sqlite:///{tmp_path / f'c{i}.db'}") for i in (1, 2)
        ]
        try:
            with ThreadPoolExecutor(6) as pool:
                list(
                    pool.map(
                        lambda i: clients[i % 2].chat([{"role": "user", "content": f"q{i}"}]),
                        range(6),
                    )
                )
        finally:
            for client in clients:
                client.close()
        statuses = [r.status for r in server.requests]
    assert statuses == [200] * 6

    with ScriptedOpenAI(api_key="sk-test", default=limited) as server:
        last.clear()
        unpaced = settings.model_copy(
            update={"base_url": server.base_url, "requests_per_minute": 0}
        )
        client = JudgeClient(unpaced, cache_url=f"sqlite:///{tmp_path / 'u.db'}")
        try:
            with ThreadPoolExecutor(6) as pool:
                list(
                    pool.map(
                        lambda i: _refused(client, f"q{i}"),
                        range(6),
                    )
                )
        finally:
            client.close()
        assert 429 in [r.status for r in server.requests]


def _refused(client: JudgeClient, text: str) -> None:
    with contextlib.suppress(JudgeUnavailableError):
        client.chat([{"role": "user", "content": text}])


_PACED_PROCESS = """
import sys, time
from pathlib import Path
from eval_pipeline.core.llm.pacing import endpoint_pacer
pacer = endpoint_pacer("http://judge.local/v1", None, float(sys.argv[1]), Path(sys.argv[2]))
print("before", time.time(), flush=True)
for _ in range(4):
    pacer.wait()
    print("started", time.time(), flush=True)
"""


def test_processes_pacing_one_endpoint_share_its_slots(tmp_path: Path) -> None:
    """The daemon's runs and a multiprocess executor's steps are processes of their own: with
    the shared folder the settings give (``EVAL_HOME/pacing``), their starts are spaced as one
    caller's are, so together they stay under the key's rate."""
    per_minute = 300.0  # one start per 0.2 s
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _PACED_PROCESS, str(per_minute), str(tmp_path / "pacing")],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    lines = [line.split() for run in runs for line in run.communicate(timeout=60)[0].splitlines()]
    first = min(float(t) for what, t in lines if what == "before")
    starts = sorted(float(t) for what, t in lines if what == "started")
    assert len(starts) == 12
    # The k-th start is at least k slots after the first reservation, which no process made
    # before it began. A process descheduled after its slot only starts later, so this holds on
    # a loaded machine where the gaps between observed starts may shrink.
    late = [t - (first + k * 60.0 / per_minute) for k, t in enumerate(starts)]
    assert min(late) >= -0.02, late


def test_the_settings_share_the_pacing_through_eval_home(tmp_path: Path) -> None:
    settings = load_settings(
        home=str(tmp_path),
        llm_base_url="http://judge.local/v1",
        llm_api_key="k",
        llm_model="m",
        llm_requests_per_minute=15,
    )
    assert settings.llm is not None and settings.llm.pacing_dir == tmp_path / "pacing"
