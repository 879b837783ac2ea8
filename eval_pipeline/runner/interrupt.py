"""Ctrl-C and SIGTERM stop an evaluation within a second; what it finished stays stored.

An evaluation works on threads — the waves, each step's pool of cases, the chatbot calls — that
nothing can stop from outside, and Python waits for every pool's threads before it exits, so a
``KeyboardInterrupt`` in the main thread left ``run`` going until the last call in flight ended
(Dagster also takes SIGINT and SIGTERM over while a run executes on the main thread). So the
evaluation runs on a thread of its own, the main thread only waits for it, and a signal ends the
process at once. Every record reaches the results store in a transaction of its own, so each
stored record is whole and stays; what was in flight is not stored, and running the same run key
again does only that work (``up_to_date``). The child processes are sent SIGTERM on the way out
(the BKG process and the encoder also end at the end of their input, when this process is gone).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TypeVar

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM)
JOIN_WAKE_S = 0.1


def child_processes() -> list[int]:
    """This process's children, from /proc (Linux; elsewhere none are known)."""
    me = str(os.getpid())
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # a process that has just exited
            continue
        if fields[1] == me:
            children.append(int(stat.parent.name))
    return children


def stop_now(signum: int, _frame: FrameType | None = None) -> None:
    """Say in one line what was kept, pass the signal on to the child processes (step
    processes of the multiprocess executor would finish their steps otherwise), then exit with
    128 + the signal's number."""
    name = signal.Signals(signum).name
    sys.stderr.write(
        f"stopped by {name}: the results of finished cases are stored; "
        "run the same --run-key again to evaluate the rest\n"
    )
    sys.stderr.flush()
    for child in child_processes():
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGTERM)
    os._exit(128 + signum)  # see the module docstring: nothing else stops the threads


def stoppable(work: Callable[[], T]) -> T:
    """``work()``, on a thread of its own while this, the main thread, waits and handles
    SIGINT and SIGTERM with ``stop_now``; from any other thread, just ``work()``."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the caller as if raised here
            failure.append(exc)

    previous = {signum: signal.signal(signum, stop_now) for signum in SIGNALS}
    try:
        worker = threading.Thread(target=run, name="evaluation", daemon=True)
        worker.start()
        while worker.is_alive():
            # not one long join: the kernel may hand the signal to any thread, and Python runs
            # the handler only when the main thread next runs Python code
            worker.join(JOIN_WAKE_S)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if failure:
        raise failure[0]
    return outcome[0]
