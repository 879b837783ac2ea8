"""One limit on concurrent chatbot calls per evaluation, shared by every wave's steps.

An evaluation runs its cases in waves whose Dagster runs overlap, so the next wave's questions
fill the slots the current one leaves while its answers are evaluated. ``concurrency`` must stay
the bot's limit across all of them, and the wave that started first must finish first (its
evaluation can only begin when its last answer is in), so slots go to the earliest wave waiting.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class CallLimit:
    """At most ``capacity`` calls at once; a freed slot is handed to the waiter with the lowest
    ``priority`` (arrival order among equals), waking that waiter alone."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self._free = capacity
        self._waiting: list[tuple[float, int, threading.Event]] = []
        self._arrivals = itertools.count()
        self._lock = threading.Lock()
        self._granted = threading.Condition(self._lock)
        self.granted = 0

    @contextmanager
    def slot(self, priority: float) -> Iterator[None]:
        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                self._grant()
                turn = None
            else:
                turn = threading.Event()
                heapq.heappush(self._waiting, (priority, next(self._arrivals), turn))
        if turn is not None:
            turn.wait()  # the releaser counted the slot as ours before setting the event
        try:
            yield
        finally:
            self._release()

    def _grant(self) -> None:
        self.granted += 1
        self._granted.notify_all()

    def wait_for_grant(self, beyond: int, stop: Callable[[], bool], poll_s: float = 0.5) -> None:
        """Return once more than ``beyond`` slots were ever granted, or once ``stop()`` is true."""
        with self._granted:
            while self.granted <= beyond and not stop():
                self._granted.wait(poll_s)

    def _release(self) -> None:
        with self._lock:
            if self._waiting:
                self._grant()
                heapq.heappop(self._waiting)[2].set()
            else:
                self._free += 1
