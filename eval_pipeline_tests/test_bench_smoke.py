"""The benchmarks run end to end on a few tens of cases and print their one line of figures.

Nothing here measures time: the figures' format is checked, and so is what must hold at any size
(a no-op re-run makes no call; the generated cases' references agree with the honest demo bot).
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from eval_pipeline.core.adapters.sse import SSEAdapter
from eval_pipeline.core.embeddings.encoder import default_embedder
from eval_pipeline.core.inputs import load_bkg, load_golden
from eval_pipeline.demo import warehouse
from eval_pipeline.demo.bot.runner import start_bot
from eval_pipeline.demo.bot.server import fixed_pacing
from eval_pipeline.settings import DEMO_DATA, PROJECT_ROOT

BENCH = PROJECT_ROOT / "bench"
NUMBER = r"\d+(?:\.\d+)?"


def bench_module(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def last_line(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    out = capsys.readouterr().out
    return out, out.strip().splitlines()[-1]


def test_generated_cases_are_distinct_valid_and_stable(tmp_path: Path) -> None:
    common = bench_module("common")
    cases = common.golden_cases(120)
    assert len({c["id"] for c in cases}) == len({c["question"] for c in cases}) == 120
    assert {c["tags"][0] for c in cases} == {t.name for t in common.TEMPLATES}
    assert common.golden_cases(40) == cases[:40], "a smaller set is a prefix of a larger one"
    path = common.write_golden(120, tmp_path / "golden.json")
    assert len(load_golden(path, load_bkg(DEMO_DATA / "bkg.json"))) == 120
    with pytest.raises(ValueError, match="distinct cases"):
        common.golden_cases(10**6)


def test_spread_cases_keep_the_mix_of_the_larger_set() -> None:
    common = bench_module("common")
    pool = common.golden_cases(1200)
    spread = common.spread_cases(300, 1200)
    questions = {c["question"] for c in pool}
    assert len({c["question"] for c in spread} & questions) == 300
    assert len({c["id"] for c in spread}) == 300
    assert spread == common.spread_cases(300, 1200), "the same draw every time"

    def monthly_share(cases: list[dict[str, Any]]) -> float:
        return sum(c["tags"][0] == "monthly" for c in cases) / len(cases)

    assert monthly_share(common.golden_cases(300)) < monthly_share(pool) - 0.05
    assert monthly_share(spread) == pytest.approx(monthly_share(pool), abs=0.04)


@pytest.mark.parametrize(("tokens", "window"), [(1, 0.7), (7, 0.7), (40, 0.7), (400, 0.7)])
def test_fixed_pacing_ends_the_answer_at_the_window(tokens: int, window: float) -> None:
    per_chunk, gap = fixed_pacing(tokens, window)
    gaps = math.ceil(tokens / per_chunk) - 1
    assert gaps * gap == pytest.approx(window if gaps else 0.0)


def test_prefetched_texts_are_encoded_once_and_cached() -> None:
    embedder = default_embedder()
    texts = ["prefetch probe 4c1 one", "prefetch probe 4c1 two"]
    embedder.prefetch(texts)
    embedder.prefetch(texts[:1])
    embedder.wait_for(texts)
    encoded = embedder.encoded
    vectors = embedder.encode(texts)
    assert embedder.encoded == encoded, "prefetched texts must come from the cache"
    assert vectors.shape == (2, embedder.dimension)


def test_sse_adapter_reuses_its_connection_after_done(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'warehouse.db'}"
    warehouse.load(url)
    with start_bot(database_url=url, fault_seed=None, fault_log=None, ttft_s=0.0) as bot:
        adapter = SSEAdapter(bot.url, username=bot.username, password=bot.password)
        try:
            answers = [
                adapter.ask(f"c{i}", "How many sites are in the West region?") for i in range(4)
            ]
            pools = adapter._session.get_adapter(bot.url).poolmanager.pools
            (key,) = pools.keys()
            pool = pools[key]
        finally:
            adapter.close()
    assert [a.status for a in answers] == ["ok"] * 4
    assert pool.num_requests == 5  # the login and four questions
    assert pool.num_connections == 1


def line_with(prefix: str, out: str) -> str:
    (line,) = [line for line in out.splitlines() if line.startswith(prefix)]
    return line


def test_throughput_cpu_and_busy_lines(capsys: pytest.CaptureFixture[str]) -> None:
    throughput = bench_module("throughput")
    n = len(bench_module("common").TEMPLATES)  # one case of every template
    throughput.main(["--cases", str(n), "--concurrency", "8", "--otel", "--otel-rounds", "2"])
    out = capsys.readouterr().out
    assert re.fullmatch(
        rf"throughput: pipeline={NUMBER}s bare={NUMBER}s ratio={NUMBER} "
        rf"cases={n} concurrency=8",
        line_with("throughput: ", out),
    )
    cpu = re.fullmatch(
        rf"cpu: cases={n} cpu_s=({NUMBER}) process_s=({NUMBER}) setup_s={NUMBER} "
        rf"encoder_s=({NUMBER}) other_children_s=-?{NUMBER}",
        line_with("cpu: ", out),
    )
    assert cpu is not None
    total, process, encoder = (float(x) for x in cpu.groups())
    assert total > 0 and process > 0 and encoder > 0, "the encoder worker's CPU is counted"
    busy = re.fullmatch(
        rf"throughput_busy: ratio=({NUMBER}) pipeline={NUMBER}s bare={NUMBER}s "
        rf"cases={n} concurrency=8",
        line_with("throughput_busy: ", out),
    )
    assert busy is not None and float(busy.group(1)) > 0
    traced = re.fullmatch(
        rf"throughput_otel: ratio={NUMBER} moved=[+-]{NUMBER} \(medians of 2 alternating runs; "
        rf"on=\[{NUMBER}, {NUMBER}\] off=\[{NUMBER}, {NUMBER}\]\) spans=(\d+) failed=0",
        line_with("throughput_otel: ", out),
    )
    assert traced is not None and int(traced.group(1)) >= 5 * n, "every case's steps exported"
    assert "'contradicted': 0" in out, "a generated reference disagrees with the honest bot"


def test_startup_line(capsys: pytest.CaptureFixture[str]) -> None:
    bench_module("startup").main(["--repeats", "1"])
    _, line = last_line(capsys)
    startup = re.fullmatch(
        rf"startup: help=({NUMBER})s validate=({NUMBER})s one_case=({NUMBER})s", line
    )
    assert startup is not None
    assert all(float(seconds) > 0 for seconds in startup.groups())


def test_rerun_line_and_no_calls(capsys: pytest.CaptureFixture[str]) -> None:
    bench_module("rerun").main(["--cases", "20", "--concurrency", "8"])
    out, line = last_line(capsys)
    assert re.fullmatch(rf"rerun: cold={NUMBER}s noop={NUMBER}s ratio={NUMBER} calls=0", line)
    assert "reused=20" in out
    assert "dagster_runs=1" in out, "a no-op re-run materializes only the summary"


def test_scale_line(capsys: pytest.CaptureFixture[str]) -> None:
    bench_module("scale").main(["--sizes", "10", "20", "30", "--concurrency", "8"])
    _, line = last_line(capsys)
    assert re.fullmatch(
        rf"scale: t10={NUMBER}s t20={NUMBER}s t30={NUMBER}s ratio30/10={NUMBER} "
        rf"peak_rss_30_mib=\d+",
        line,
    )


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_peak_sampler_counts_each_process_once() -> None:
    """A child's high-water mark is its own: one started after this process peaked (as
    Dagster's ``tail -F`` is) does not inherit that peak, as ``ru_maxrss`` makes it seem; and a
    child's peak between samples still counts."""
    scale = bench_module("scale")
    peaked = (
        "import sys; b = bytearray(100 * 2**20); b[::4096] = b'x' * len(b[::4096]); del b; "
        "print('peaked', flush=True); sys.stdin.read()"
    )
    with scale.PeakSampler() as sampler:
        rss, own_before = scale.tree_memory_mib(os.getpid())[os.getpid()]
        ballast = bytearray(int(own_before - rss + 400) * 2**20)  # a new peak, 400 MiB higher
        ballast[::4096] = b"x" * len(ballast[::4096])
        del ballast
        with subprocess.Popen(
            [sys.executable, "-c", peaked], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        ) as child:
            assert child.stdout is not None and child.stdout.readline() == b"peaked\n"
            memory = scale.tree_memory_mib(os.getpid())
            deadline = time.monotonic() + 10
            while sampler.high_water_of.get(child.pid, 0) < 100 and time.monotonic() < deadline:
                time.sleep(0.01)
            child.communicate(b"")
    own_hwm = memory[os.getpid()][1]
    child_rss, child_hwm = memory[child.pid]
    assert own_hwm >= own_before + 390, "this process's own peak counts"
    assert 100 <= child_hwm < own_hwm - 200, "the child's own peak, not this process's"
    assert child_rss < child_hwm - 80, "the child freed its peak before the sample"
    assert sampler.high_water_of[child.pid] >= 100, "the sampler saw the child's peak"
    assert sampler.high_water >= own_hwm + 100, "peaks are summed over the processes alive"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_tree_cpu_counts_every_descendant_once() -> None:
    """A child's CPU time counts while it runs, once it has exited unreaped and once reaped; a
    grandchild's too, through its parent. Each burns 0.3 s of CPU, then waits for stdin."""
    common = bench_module("common")
    burn = "import time\nwhile time.process_time() < 0.3: pass\n"
    grandchild = burn + "print('burnt', flush=True); import sys; sys.stdin.read()"
    child = (
        "import subprocess, sys\n"
        f"b = subprocess.Popen([sys.executable, '-c', {grandchild!r}], stdout=subprocess.PIPE)\n"
        + burn
        + "b.stdout.readline(); print('burnt', flush=True); sys.stdin.read(); b.wait()"
    )

    earlier = set(common.unreaped_cpu_s())  # e.g. this process's encoder worker

    def children_cpu() -> tuple[float, set[int]]:
        """CPU seconds of the children but those already running, and which are unreaped."""
        total, unreaped = common.tree_cpu_s()
        own = resource.getrusage(resource.RUSAGE_SELF)
        total -= own.ru_utime + own.ru_stime + sum(unreaped[p] for p in earlier & set(unreaped))
        return total, set(unreaped) - earlier

    before, _ = children_cpu()
    proc = subprocess.Popen(
        [sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    assert proc.stdout.readline() == b"burnt\n"
    running, unreaped = children_cpu()
    assert proc.pid in unreaped and len(unreaped) == 2, "the child and the grandchild"
    proc.stdin.close()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    zombie, unreaped = children_cpu()
    assert unreaped == {proc.pid}, "exited, not yet waited for"
    proc.wait()
    reaped, unreaped = children_cpu()
    assert not unreaped
    for spent in (running - before, zombie - before, reaped - before):
        # /proc counts whole clock ticks (10 ms) and the kernel splits them into user and system
        assert 0.55 <= spent < 1.0, f"each process once: 0.6 s and their start-up, not {spent}"
