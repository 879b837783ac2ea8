"""BKG code in its own process: a function that never ends, at call or at load, is stopped at the
time limit and only its reference errs; whatever a function returns, raises or does to its
process stays with its reference."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.core.limits import ReferenceLimits
from eval_pipeline.core.models import BKG, Reference
from eval_pipeline.core.warehouse import bkg_worker
from eval_pipeline.core.warehouse.bkg_process import BKGProcess
from eval_pipeline.core.warehouse.bkg_runtime import BKGRuntime, load_report
from eval_pipeline.core.warehouse.db import Database
from eval_pipeline_tests.core.warehouse.test_bkg_runtime import BKG_DOC, _fn, _seed

LIMIT_S = 1.0
LIMITS = ReferenceLimits(timeout_s=LIMIT_S, max_rows=100)
MARGIN_S = 10.0  # the bound: the limit plus 10 s
COUNT = "    return db.scalar('SELECT COUNT(*) FROM items')\n"


def _pid_line(path: Path) -> str:
    return f"    open({str(path)!r}, 'w').write(str(__import__('os').getpid()))\n"


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'rt.db'}"
    _seed(url)
    with Database(url) as handle:
        yield handle


@pytest.fixture
def process() -> Iterator[BKGProcess]:
    """A process of the test's own, so a kill can be watched and never touches other tests."""
    running = BKGProcess()
    yield running
    running.close()


@pytest.fixture(scope="module")
def shared() -> Iterator[BKGProcess]:
    """One process for the tests that kill none (each start imports pandas and SQLAlchemy)."""
    running = BKGProcess()
    yield running
    running.close()


def bkg(*kpis: dict[str, Any]) -> BKG:
    ok = _fn("ok", "def ok(db):\n" + COUNT)
    return BKG.model_validate({**BKG_DOC, "kpis": [ok, *kpis], "decisions": [], "core_nodes": []})


def kpi(name: str) -> Reference:
    return Reference.model_validate({"kpi": name})


def gone(pid: int, within_s: float = MARGIN_S) -> bool:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(
    "body", ["    time.sleep(3600)\n", "    while True:\n        pass\n"], ids=["sleeps", "spins"]
)
def test_a_call_that_never_ends_is_stopped_at_the_limit_and_the_run_goes_on(
    db: Database, process: BKGProcess, tmp_path: Path, body: str
) -> None:
    pid_file = tmp_path / "pid"
    stuck = _fn("stuck", "import time\n\ndef stuck(db):\n" + _pid_line(pid_file) + body)
    runtime = BKGRuntime(bkg(stuck), LIMITS, process)
    started = time.monotonic()
    value = runtime.evaluate(kpi("stuck"), db)
    assert time.monotonic() - started < LIMIT_S + MARGIN_S
    assert value.error == "did not finish within 1 s (EVAL_REFERENCE_TIMEOUT_S)"
    assert gone(int(pid_file.read_text())), "the process running it was killed"
    assert runtime.evaluate(kpi("ok"), db).value == 3, "the next call starts a new process"


def test_pandas_is_loaded_before_the_first_call_starts_its_time_limit(
    db: Database, process: BKGProcess
) -> None:
    """``db`` and ``bkg_runtime`` import pandas only when they make a DataFrame: in the BKG
    process it is loaded with the process, or the first call's limit would pay for it."""
    loaded = _fn(
        "loaded", "import sys\n\ndef loaded(db):\n    return int('pandas' in sys.modules)\n"
    )
    runtime = BKGRuntime(bkg(loaded), LIMITS, process)
    assert runtime.evaluate(kpi("loaded"), db).value == 1


def test_cases_sharing_a_stuck_reference_wait_for_it_once(
    db: Database, process: BKGProcess
) -> None:
    stuck = _fn("stuck", "import time\n\ndef stuck(db):\n    time.sleep(3600)\n")
    runtime = BKGRuntime(bkg(stuck), LIMITS, process)
    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        errors = list(pool.map(lambda _: runtime.evaluate(kpi("stuck"), db).error, range(8)))
    assert time.monotonic() - started < LIMIT_S + MARGIN_S
    assert errors == ["did not finish within 1 s (EVAL_REFERENCE_TIMEOUT_S)"] * 8
    assert runtime.calls_made == 1


def test_calls_running_beside_a_stuck_one_are_answered_before_its_process_is_killed(
    db: Database, process: BKGProcess
) -> None:
    stuck = _fn("stuck", "import time\n\ndef stuck(db):\n    time.sleep(3600)\n")
    slow = _fn("slow", "import time\n\ndef slow(db):\n    time.sleep(0.8)\n" + COUNT)
    runtime = BKGRuntime(bkg(stuck, slow), LIMITS, process)
    results: dict[str, Any] = {}

    def slow_call() -> None:
        time.sleep(0.5)  # starts before the stuck call times out, ends after it
        results["slow"] = runtime.evaluate(kpi("slow"), db)

    beside = threading.Thread(target=slow_call)
    beside.start()
    results["stuck"] = runtime.evaluate(kpi("stuck"), db)
    beside.join()
    assert results["stuck"].error is not None
    assert (results["slow"].error, results["slow"].value) == (None, 3)


def test_module_code_that_never_ends_is_reported_and_left_out(
    db: Database, process: BKGProcess
) -> None:
    hangs = _fn("hangs", "import time\ntime.sleep(3600)\n\ndef hangs(db):\n" + COUNT)
    spins = _fn("spins", "while True:\n    pass\n\ndef spins(db):\n" + COUNT)
    exits = _fn("exits", "raise SystemExit(0)\n\ndef exits(db):\n" + COUNT)
    dies = _fn("dies", "import os\nos._exit(0)\n\ndef dies(db):\n" + COUNT)
    started = time.monotonic()
    report = load_report(bkg(hangs, spins, exits, dies), LIMITS, process)
    # three fresh processes, each a second or more of imports on a loaded machine
    assert time.monotonic() - started < 2 * LIMIT_S + 3 * MARGIN_S
    assert report[("kpi", "hangs")].error == (
        "did not finish loading within 1 s (EVAL_REFERENCE_TIMEOUT_S)"
    )
    assert report[("kpi", "spins")].error == report[("kpi", "hangs")].error
    exits_error = "fails while loading: SystemExit: 0 (kpis.exits line 1)"
    assert report[("kpi", "exits")].error == exits_error
    assert report[("kpi", "dies")].error is not None
    assert "stopped the reference process while loading" in report[("kpi", "dies")].error
    runtime = BKGRuntime(bkg(hangs, spins, exits, dies), LIMITS, process)
    assert runtime.evaluate(kpi("ok"), db).value == 3, "the other functions load and run"
    assert "did not finish loading" in str(runtime.evaluate(kpi("hangs"), db).error)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("return 10**400", "returned an integer of 1,329 bits, beyond the range of a float"),
        ("return float('inf')", "returned inf, not a finite number"),
        ("return -float('inf')", "returned -inf, not a finite number"),
        ("return float('nan')", "returned NaN, not a number"),
        ("return 'lots'", "returned the text 'lots': a scalar result is a number"),
        ("return object()", "TypeError: unsupported result type object"),
        ("return {'a': float('inf')}", "returned inf, not a finite number"),
        (
            "return [{'n': i} for i in range(101)]",
            "returned 101 rows, more than the 100 a reference may have (EVAL_REFERENCE_MAX_ROWS)",
        ),
        ("return {str(i): i for i in range(500)}", "returned 500 entries, more than the 100"),
        ("import sys; sys.exit(3)", "SystemExit: 3 (kpis.bad line 2)"),
        ("raise KeyboardInterrupt", "KeyboardInterrupt (kpis.bad line 2)"),
        ("raise BaseException('odd')", "BaseException: odd (kpis.bad line 2)"),
        ("import os; os._exit(1)", "the reference process exited with status 1"),
    ],
)
def test_one_bad_value_or_exit_is_its_references_error_only(
    db: Database, shared: BKGProcess, body: str, error: str
) -> None:
    runtime = BKGRuntime(bkg(_fn("bad", f"def bad(db):\n    {body}\n")), LIMITS, shared)
    value = runtime.evaluate(kpi("bad"), db)
    assert value.value is None
    assert value.error is not None and value.error.startswith(error), value.error
    assert runtime.evaluate(kpi("ok"), db).value == 3


def test_a_table_within_the_limit_and_big_numbers_within_a_float_are_fine(
    db: Database, shared: BKGProcess
) -> None:
    rows = _fn("rows", "def rows(db):\n    return [{'n': i, 'big': 10**300} for i in range(100)]\n")
    runtime = BKGRuntime(bkg(rows), LIMITS, shared)
    value = runtime.evaluate(kpi("rows"), db)
    assert value.error is None and len(value.value["rows"]) == 100


def test_the_environment_and_packages_of_the_caller_are_the_functions_own(
    db: Database, process: BKGProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trusted code, unlike the sandbox's: it sees the caller's environment and packages."""
    monkeypatch.setenv("EVAL_TEST_MARKER", "42")
    reads = _fn(
        "reads",
        "import os\nimport pandas as pd\n\n"
        "def reads(db):\n    return float(os.environ['EVAL_TEST_MARKER']) + len(pd.DataFrame())\n",
    )
    process.close()  # the next child starts with the environment as it is now
    assert BKGRuntime(bkg(reads), LIMITS, process).evaluate(kpi("reads"), db).value == 42.0


POOL = """def pool(db):
    import pyarrow as pa

    before = pa.system_memory_pool().bytes_allocated()
    groups = db.query("SELECT grp FROM items")["grp"]  # a str column: Arrow memory
    grew = pa.system_memory_pool().bytes_allocated() > before
    return {pa.default_memory_pool().backend_name: grew and len(groups) == 3}
"""


@pytest.mark.parametrize(
    ("configured", "expected"),
    [(None, {"system": True}), ("mimalloc", {"mimalloc": False})],
    ids=["default", "configured"],
)
def test_arrow_memory_comes_from_malloc_unless_a_pool_is_configured(
    db: Database,
    process: BKGProcess,
    monkeypatch: pytest.MonkeyPatch,
    configured: str | None,
    expected: dict[str, bool],
) -> None:
    """Arrow's mimalloc keeps a heap per thread and the pages freed in it: with a thread per
    call, the process grew with every reference it computed (issue #19). The pool named by
    ARROW_DEFAULT_MEMORY_POOL is still the one used."""
    if configured is None:
        monkeypatch.delenv(bkg_worker.ARROW_POOL_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(bkg_worker.ARROW_POOL_VARIABLE, configured)
    runtime = BKGRuntime(bkg(_fn("pool", POOL)), LIMITS, process)
    value = runtime.evaluate(kpi("pool"), db)
    assert (value.error, value.value) == (None, expected)


ARENAS = """def arenas(db):
    import ctypes

    libc = ctypes.CDLL(None)
    libc.open_memstream.restype = ctypes.c_void_p
    text, size = ctypes.c_char_p(), ctypes.c_size_t()
    stream = ctypes.c_void_p(libc.open_memstream(ctypes.byref(text), ctypes.byref(size)))
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    info = ctypes.string_at(text, size.value).decode()
    libc.free(text)
    return info.count("<heap nr=")
"""
BUSY = """def busy(db, n):
    frame = db.query("SELECT id, grp, amount FROM items WHERE id <= :n", n=n % 4)
    return [{"grp": str(g) * n} for g in frame["grp"]] or None
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc arenas")
def test_the_calls_threads_share_at_most_two_malloc_arenas(
    db: Database, process: BKGProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """glibc gives a thread that finds the arenas busy an arena of its own, up to eight per
    core, and each keeps the free space left in it: the process grew with the calls of its
    request threads (issue #19)."""
    monkeypatch.delenv(bkg_worker.ARENA_VARIABLE, raising=False)
    busy = _fn("busy", BUSY, params=[{"name": "n", "type": "integer", "required": True}])
    runtime = BKGRuntime(bkg(busy, _fn("arenas", ARENAS)), LIMITS, process)
    refs = [Reference.model_validate({"kpi": "busy", "params": {"n": n}}) for n in range(1, 97)]
    with ThreadPoolExecutor(32) as pool:  # an evaluation's concurrency: a thread per call
        assert all(
            value.error is None for value in pool.map(lambda r: runtime.evaluate(r, db), refs)
        )
    value = runtime.evaluate(kpi("arenas"), db)
    assert value.error is None and 1 <= value.value <= bkg_worker.MALLOC_ARENAS


def test_an_idle_process_ends_and_the_next_call_starts_another(db: Database) -> None:
    """A code server validates a BKG once and then idles: its child does not stay for ever."""
    process = BKGProcess(idle_s=0.5)
    try:
        runtime = BKGRuntime(bkg(), LIMITS, process)
        assert runtime.evaluate(kpi("ok"), db).value == 3
        first = process.pid
        assert first is not None and gone(first)
        fresh = BKGRuntime(bkg(), LIMITS, process)  # a new memo: the call is made again
        assert fresh.evaluate(kpi("ok"), db).value == 3
        assert process.pid not in (None, first)
    finally:
        process.close()


RUNAWAY = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n"


@pytest.mark.parametrize(
    "reference",
    [{"sql": RUNAWAY}, {"kpi": "runaway"}],
    ids=["golden_sql", "kpi_query"],
)
def test_a_query_that_never_ends_is_stopped_at_the_limit(
    db: Database, process: BKGProcess, reference: dict[str, Any]
) -> None:
    """Golden SQL and a KPI's own query are held to the same limit as BKG code."""
    runaway = _fn("runaway", f"def runaway(db):\n    return db.scalar({RUNAWAY!r})\n")
    runtime = BKGRuntime(bkg(runaway), LIMITS, process)
    started = time.monotonic()
    value = runtime.evaluate(Reference.model_validate(reference), db)
    assert time.monotonic() - started < LIMIT_S + MARGIN_S
    assert value.value is None
    assert value.error == "did not finish within 1 s (EVAL_REFERENCE_TIMEOUT_S)"
    assert runtime.evaluate(kpi("ok"), db).value == 3


def test_a_caller_gone_before_the_child_is_ready_leaves_no_traceback() -> None:
    """`validate` stopping at a parse error ends before its eagerly started child says it is
    ready; the child then finds its reply pipe closed and must end quietly, not print a
    traceback onto the terminal it shares with the caller."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the caller is gone before the child writes a byte
    child = subprocess.run(
        [sys.executable, "-m", bkg_worker.__name__],
        stdin=subprocess.DEVNULL,
        stdout=write_end,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    os.close(write_end)
    assert child.returncode == 0
    assert child.stderr == b""
