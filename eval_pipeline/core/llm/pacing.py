"""Request pacing for rate-limited endpoints (free tiers allow 15 requests per minute).

Retries honour ``Retry-After``, but a key that sees 429s burns its quota on refusals. A pacer
spaces the *starts* of requests at least ``60 / N`` seconds apart: each caller reserves the next
free start time under a lock and sleeps until it, so concurrent judges queue in arrival order and
a burst never exceeds the rate.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Pacer:
    """At most ``per_minute`` request starts in any minute, spread evenly."""

    def __init__(
        self,
        per_minute: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self.interval_s = 60.0 / per_minute
        self._clock = clock
        self._sleep = sleep
        self._next = float("-inf")
        self._lock = threading.Lock()

    def wait(self) -> float:
        """Block until this request may start; returns how long it waited."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval_s
        delay = start - now
        if delay > 0:
            self._sleep(delay)
        return delay


_PACERS: dict[tuple[str, str | None, float], Pacer] = {}
_PACERS_LOCK = threading.Lock()


def endpoint_pacer(base_url: str, deployment: str | None, per_minute: float) -> Pacer | None:
    """One pacer per endpoint and rate, shared by every client of this process; None unpaced."""
    if per_minute <= 0:
        return None
    key = (base_url.rstrip("/"), deployment, per_minute)
    with _PACERS_LOCK:
        return _PACERS.setdefault(key, Pacer(per_minute))
