"""One evaluation per run key at a time, across processes and machines sharing a results store.

Two ``run``s of one key would each ask every case and each count the other's calls. The lock is a
row of the results store (``core.attempts``), so it holds on SQLite and PostgreSQL alike; its
holder refreshes it while it works. A second evaluation is refused at once, naming the holder. A
holder that died (its process gone on this host, or silent for ``STALE_AFTER_S`` elsewhere) loses
the lock to the next evaluation, so a killed run never blocks its key.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from eval_pipeline.core.attempts import LockHolder, RunLedger, now_iso
from eval_pipeline.core.problems import InputError, Problem

log = logging.getLogger(__name__)

HEARTBEAT_S = 10.0
STALE_AFTER_S = 60.0


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def is_stale(holder: LockHolder, now: datetime | None = None) -> bool:
    """Whether the holder is gone: its process ended on this host, or it stopped refreshing."""
    if holder.host == socket.gethostname() and not process_alive(holder.pid):
        return True
    try:
        last = datetime.fromisoformat(holder.heartbeat_at)
    except ValueError:
        return True
    return ((now or datetime.now(UTC)) - last).total_seconds() > STALE_AFTER_S


class RunKeyBusy(InputError):
    """Another evaluation holds the run key."""


@contextmanager
def run_key_lock(ledger: RunLedger, run_key: str) -> Iterator[None]:
    """Hold ``run_key`` for the block; RunKeyBusy at once when another evaluation has it."""
    stamp = now_iso()
    me = LockHolder(uuid.uuid4().hex, os.getpid(), socket.gethostname(), stamp, stamp)
    other = ledger.try_lock(run_key, me, is_stale)
    if other is not None:
        raise RunKeyBusy(
            [
                Problem(
                    "run key",
                    run_key,
                    f"being evaluated by process {other.pid} on {other.host} since "
                    f"{other.acquired_at}; wait for it to finish or use another run key",
                )
            ]
        )
    stop = threading.Event()

    def refresh() -> None:
        while not stop.wait(HEARTBEAT_S):
            try:
                ledger.beat(run_key, me.holder)
            except Exception as exc:  # a store hiccup must not end the evaluation
                log.warning("could not refresh the lock of run key %s: %s", run_key, exc)

    beating = threading.Thread(target=refresh, name=f"lock-{run_key}", daemon=True)
    beating.start()
    try:
        yield
    finally:
        stop.set()
        beating.join()
        ledger.unlock(run_key, me.holder)
