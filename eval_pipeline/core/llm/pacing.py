"""Request pacing for rate-limited endpoints (free tiers allow 15 requests per minute).

Retries honour ``Retry-After``, but a key that sees 429s burns its quota on refusals. A pacer
spaces the *starts* of requests at least ``60 / N`` seconds apart: each caller reserves the next
free start time under a lock and sleeps until it, so concurrent judges queue in arrival order and
a burst never exceeds the rate. With a slot file the reservation is shared by every process on the
machine that paces the same endpoint (the daemon's runs, a multiprocess executor's steps): the
next start is kept in the file, on the wall clock, under an exclusive ``flock``.
"""

from __future__ import annotations

import fcntl
import hashlib
import threading
import time
from collections.abc import Callable
from pathlib import Path


class Pacer:
    """At most ``per_minute`` request starts in any minute, spread evenly."""

    def __init__(
        self,
        per_minute: float,
        *,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        slot_file: Path | None = None,
    ) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self.interval_s = 60.0 / per_minute
        self._clock = clock or (time.time if slot_file else time.monotonic)
        self._sleep = sleep
        self._next = float("-inf")
        self._lock = threading.Lock()
        self._slot_file = slot_file

    def wait(self) -> float:
        """Block until this request may start; returns how long it waited."""
        with self._lock:
            now = self._clock()
            start = self._reserve(now)
        delay = start - now
        if delay > 0:
            self._sleep(delay)
        return delay

    def _reserve(self, now: float) -> float:
        """The start time of this request, the next one's written down for every caller."""
        if self._slot_file is None:
            start = max(now, self._next)
            self._next = start + self.interval_s
            return start
        self._slot_file.parent.mkdir(parents=True, exist_ok=True)
        with self._slot_file.open("a+") as slots:
            fcntl.flock(slots, fcntl.LOCK_EX)  # released when the file is closed
            slots.seek(0)
            try:
                booked = float(slots.read().strip() or "-inf")
            except ValueError:  # a torn or foreign file: start afresh
                booked = float("-inf")
            start = max(now, booked)
            slots.seek(0)
            slots.truncate()
            slots.write(repr(start + self.interval_s))
        return start


_PACERS: dict[tuple[str, str | None, float, Path | None], Pacer] = {}
_PACERS_LOCK = threading.Lock()


def endpoint_pacer(
    base_url: str, deployment: str | None, per_minute: float, shared_dir: Path | None = None
) -> Pacer | None:
    """One pacer per endpoint and rate, shared by every client of this process and, with
    ``shared_dir``, by every process pacing that endpoint through the same folder; None unpaced."""
    if per_minute <= 0:
        return None
    endpoint = (base_url.rstrip("/"), deployment)
    key = (*endpoint, per_minute, shared_dir)
    slot_file = None
    if shared_dir is not None:
        name = hashlib.sha256(repr(endpoint).encode()).hexdigest()[:16]
        slot_file = shared_dir / f"{name}.next"
    with _PACERS_LOCK:
        return _PACERS.setdefault(key, Pacer(per_minute, slot_file=slot_file))
