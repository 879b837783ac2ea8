"""BKG functions run in a child process, so that one that never ends can be stopped.

BKG functions are trusted — the organisation's own code, so unlike model-written code (``sandbox``)
they get no confinement: the caller's environment, every installed package, their own read-only
connection to the warehouse. But trusted code can still loop or sleep for ever, and a Python
thread cannot be stopped: only a process can. So BKG code, golden SQL references included, runs in
one child per evaluating process (``python -m eval_pipeline.core.warehouse.bkg_worker``), a thread
per call there as here. A call that takes longer than its time limit is its reference's error at
once; the child it runs in takes no new call and is killed as soon as the calls still running in
it (other references') are answered; the next call starts a fresh child. Loading is limited the
same way, function by function: one whose module code does not finish in time is reported, and
every later child loads the BKG without it.

A call costs one round trip of pickles (about 0.1 ms, see the README); the child costs a start
(its imports, once per process, on another core) and its memory (pandas, SQLAlchemy, the drivers).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.core.models import FUNCTION_KINDS, Function

START_TIMEOUT_S = 120.0  # the child's imports, on a machine as loaded as a CI runner
IDLE_S = 300.0  # a child with no call for this long ends (a code server loads a BKG, then idles)
Reply = tuple[Any, ...]


class ReferenceFailure(Exception):
    """A reference that could not be computed; the message says why, in the user's words."""


class ReferenceStopped(ReferenceFailure):
    """It ran out of time, or the process died under it: asking again would cost as much."""


def timed_out(seconds: float, what: str = "did not finish") -> str:
    return f"{what} within {seconds:g} s (EVAL_REFERENCE_TIMEOUT_S)"


@dataclass(frozen=True)
class Loaded:
    """How one function loaded: why it cannot be called (or None), and its signature problem."""

    error: str | None = None
    signature: str | None = None


@dataclass
class Namespace:
    """One BKG's functions as the child loads them, in order, into one shared namespace."""

    key: str
    functions: list[tuple[str, Function]]
    report: dict[tuple[str, str], Loaded] = field(default_factory=dict)
    left_out: set[int] = field(default_factory=set)  # did not load in time: never loaded again


def namespace_key(functions: Sequence[tuple[str, Function]]) -> str:
    digest = hashlib.sha256()
    for kind, fn in functions:
        digest.update(pickle.dumps((kind, fn.model_dump(mode="json"))))
    return digest.hexdigest()


class _Retired(Exception):
    """The child takes no new request."""


class _Child:
    """One worker process and the replies it owes, each to its own queue."""

    def __init__(self) -> None:
        from eval_pipeline.core.warehouse import bkg_worker

        self.process = subprocess.Popen(
            [sys.executable, "-m", bkg_worker.__name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # a kill takes whatever BKG code started, and no Ctrl-C
        )
        self.namespaces: set[str] = set()
        self.load_lock = threading.Lock()
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._owed: dict[int, queue.SimpleQueue[Reply]] = {}
        self._last_done = time.monotonic()
        self._retired = False
        self._start: Reply = ("failed", f"it did not start within {START_TIMEOUT_S:g} s")
        self._started = threading.Event()
        threading.Thread(target=self._read, name="bkg-replies", daemon=True).start()

    def wait_ready(self) -> None:
        """Block until the child has imported what BKG code needs; ReferenceFailure if it could
        not."""
        self._started.wait(START_TIMEOUT_S)
        if self._start[0] != "ready":
            self.kill()
            raise ReferenceFailure(f"the reference process could not start: {self._start[1]}")

    def request(self, *message: Any) -> tuple[int, queue.SimpleQueue[Reply]]:
        replies: queue.SimpleQueue[Reply] = queue.SimpleQueue()
        with self._lock:
            if self._retired:
                raise _Retired
            number = next(self._numbers)
            self._owed[number] = replies
            assert self.process.stdin is not None
            try:
                pickle.dump(
                    (message[0], number, *message[1:]),
                    self.process.stdin,
                    protocol=pickle.HIGHEST_PROTOCOL,
                )
                self.process.stdin.flush()
            except OSError:  # it has died; its reader says how
                pass
        return number, replies

    def idle_for(self) -> float:
        """Seconds since it was ready or last replied, 0 while starting or owing a reply."""
        with self._lock:
            busy = self._owed or not self._started.is_set()
            return 0.0 if busy else time.monotonic() - self._last_done

    def done(self, number: int) -> None:
        """No reply is wanted any longer; a retired child with nothing owed is killed."""
        with self._lock:
            self._owed.pop(number, None)
            self._last_done = time.monotonic()
            idle = self._retired and not self._owed
        if idle:
            self.kill()

    @property
    def retired(self) -> bool:
        with self._lock:
            return self._retired

    def retire(self) -> None:
        with self._lock:
            self._retired = True
            idle = not self._owed
        if idle:
            self.kill()

    def kill(self) -> None:
        with self._lock:
            self._retired = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while True:
            try:
                reply: Reply = pickle.load(self.process.stdout)
            except (EOFError, OSError, pickle.UnpicklingError, ValueError):
                break
            if reply[0] in ("ready", "failed"):
                with self._lock:
                    self._start = reply
                    self._last_done = time.monotonic()
                    self._started.set()
                continue
            with self._lock:
                owed = self._owed.get(reply[1])
            if owed is not None:
                owed.put(reply)
        code = self.process.wait()
        cause = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        died = ("died", None, f"the reference process {cause}")
        if not self._started.is_set():
            self._start = ("failed", died[2])
            self._started.set()
        with self._lock:
            self._retired = True
            owed_now = list(self._owed.values())
        for owed in owed_now:
            owed.put(died)


class BKGProcess:
    """The child BKG code runs in for this process; after a call ran out of time or the child
    died, the next call starts another."""

    def __init__(self, idle_s: float = IDLE_S) -> None:
        self._idle_s = idle_s
        self._lock = threading.Lock()
        self._child: _Child | None = None
        self._namespaces: dict[str, Namespace] = {}
        self._start_failure = ""  # a child that cannot start is not started again
        self._watching = False

    def start(self) -> None:
        """Start the child now, without waiting: its imports take a second, which then overlap
        the caller's own and the first call finds it ready."""
        with self._lock:
            if self._child is None or self._child.retired:
                self._child = self._new_child()

    @property
    def pid(self) -> int | None:
        """The process id of the child taking calls now, if one was started."""
        with self._lock:
            return self._child.process.pid if self._child else None

    def namespace(self, functions: Sequence[tuple[str, Function]]) -> Namespace:
        key = namespace_key(functions)
        with self._lock:
            return self._namespaces.setdefault(key, Namespace(key, list(functions)))

    def load(self, namespace: Namespace, timeout_s: float) -> dict[tuple[str, str], Loaded]:
        """How each function of ``namespace`` loads: its module code may run ``timeout_s``."""
        while True:
            child = self._current()
            try:
                self._load_into(child, namespace, timeout_s)
            except _Retired:
                continue
            return dict(namespace.report)

    def call(
        self, namespace: Namespace | None, message: tuple[Any, ...], timeout_s: float
    ) -> Reply:
        """``("call", ...)`` or ``("sql", ...)`` as ``bkg_worker`` reads them (without the
        request number); the reply ``("ok", id, shape, value)``, or ReferenceFailure."""
        while True:
            child = self._current()
            try:
                if namespace is not None:
                    self._load_into(child, namespace, timeout_s)
                number, replies = child.request(*message)
            except _Retired:
                continue
            try:
                reply = replies.get(timeout=timeout_s)
            except queue.Empty:
                self._drop(child)
                raise ReferenceStopped(timed_out(timeout_s)) from None
            finally:
                child.done(number)
            if reply[0] == "ok":
                return reply
            if reply[0] == "died":
                self._drop(child)
                raise ReferenceStopped(reply[2])
            raise ReferenceFailure(reply[2])

    def close(self) -> None:
        """Stop the child; a later call starts another."""
        with self._lock:
            child, self._child = self._child, None
            self._start_failure = ""
        if child is not None:
            child.kill()

    def _new_child(self) -> _Child:
        """A fresh child (called holding the lock); the first starts the idle watch."""
        if not self._watching:
            self._watching = True
            threading.Thread(target=self._end_idle, name="bkg-idle", daemon=True).start()
        return _Child()

    def _end_idle(self) -> None:
        """Retire the child once idle; the watch ends with it (or with close) and the next
        child starts another."""
        while True:
            time.sleep(self._idle_s / 10)
            with self._lock:
                child = self._child
                if child is not None and child.idle_for() < self._idle_s:
                    continue
                self._child = None
                self._watching = False
            if child is not None:
                child.retire()
            return

    def _current(self) -> _Child:
        """The child taking calls, ready; a new one if the last died or was retired."""
        with self._lock:
            if self._start_failure:
                raise ReferenceFailure(self._start_failure)
            if self._child is None or self._child.retired:
                self._child = self._new_child()
            child = self._child
        try:
            child.wait_ready()
        except ReferenceFailure as exc:
            with self._lock:
                self._start_failure = str(exc)
            raise
        return child

    def _drop(self, child: _Child) -> None:
        """The child takes no new call; it ends once the calls still running in it do. Its
        successor starts importing now, while the caller reports the error."""
        with self._lock:
            if self._child is child:
                self._child = self._new_child()
        child.retire()

    def _load_into(self, child: _Child, namespace: Namespace, timeout_s: float) -> None:
        with child.load_lock:
            if namespace.key in child.namespaces:
                return
            todo = [
                (i, kind, fn)
                for i, (kind, fn) in enumerate(namespace.functions)
                if i not in namespace.left_out
            ]
            number, replies = child.request("load", namespace.key, todo)
            try:
                for index, kind, fn in todo:
                    reply = self._next_loaded(replies, timeout_s)
                    if reply is None or reply[0] == "died":
                        what = f"{FUNCTION_KINDS[kind]}.{fn.name}"
                        error = (
                            timed_out(timeout_s, "did not finish loading")
                            if reply is None
                            else f"stopped the reference process while loading ({reply[2]})"
                        )
                        namespace.report[(kind, fn.name)] = Loaded(error)
                        namespace.left_out.add(index)
                        self._drop(child)
                        raise _Retired(what)
                    namespace.report[(kind, fn.name)] = Loaded(reply[3], reply[4])
                self._next_loaded(replies, timeout_s)  # the end of the load
            finally:
                child.done(number)
            child.namespaces.add(namespace.key)

    @staticmethod
    def _next_loaded(replies: queue.SimpleQueue[Reply], timeout_s: float) -> Reply | None:
        try:
            return replies.get(timeout=timeout_s)
        except queue.Empty:
            return None


@functools.cache
def default_bkg_process() -> BKGProcess:
    """The process-wide runner of BKG code; its child starts on first use, not here."""
    return BKGProcess()
