"""One wall-clock limit per chatbot call, on every byte the call reads, and a cap on how many.

requests' timeouts bound each socket operation, not a call: a server that sends a byte every few
seconds — of its headers, of an error body, of a login answer or of the stream — keeps a call
alive for ever. Every connection of a ``deadline_session`` belongs, while a call uses it, to that
call's ``Deadline``; when the deadline passes, one reaper thread shuts the connection's socket
down, so whatever read is blocked on it returns at once and the call ends as an error.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3 import PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

_READ_SIZE = 65536
_active = threading.local()


class DeadlineExceeded(Exception):
    """The call's total timeout passed; ``seconds`` is that timeout."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"exceeded the total timeout of {seconds:g} s")
        self.seconds = seconds


class BodyTooLarge(Exception):
    """The server sent more than the byte cap allows."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit:,} bytes")
        self.limit = limit


class Deadline:
    """The end of one call. Connections the call uses are watched until it closes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.expired = False
        self.closed = False
        self._connections: list[Any] = []
        self._lock = threading.Lock()

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def check(self) -> None:
        """Raise ``DeadlineExceeded`` once the deadline has passed: before starting a step."""
        if self.expired or time.monotonic() >= self.at:
            raise DeadlineExceeded(self.seconds)

    def raise_if_cut(self) -> None:
        """Raise ``DeadlineExceeded`` if the reaper cut this call's connections: what was read
        since may end early without the server having ended it."""
        if self.expired:
            raise DeadlineExceeded(self.seconds)

    def watch(self, connection: Any) -> None:
        """From now until this call closes, the connection is this call's to cut."""
        with self._lock:
            connection.eval_deadline = self
            self._connections.append(connection)
        if self.expired:
            _shut(connection)

    def expire(self) -> None:
        with self._lock:
            if self.closed:
                return
            self.expired = True
            owned = [c for c in self._connections if getattr(c, "eval_deadline", None) is self]
        for connection in owned:
            _shut(connection)

    def close(self) -> None:
        with self._lock:
            self.closed = True
            for connection in self._connections:
                if getattr(connection, "eval_deadline", None) is self:
                    connection.eval_deadline = None
            self._connections.clear()


def _shut(connection: Any) -> None:
    """Wake every read blocked on the connection (a plain socket's shutdown, TLS or not)."""
    sock = getattr(connection, "sock", None) or getattr(connection, "eval_sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Reaper:
    """One daemon thread expiring deadlines in time order; started by the first deadline."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, deadline: Deadline) -> None:
        with self._wake:
            heapq.heappush(self._heap, (deadline.at, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="call-deadlines", daemon=True
                )
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._heap or (
                    not self._heap[0][2].closed and self._heap[0][0] > time.monotonic()
                ):
                    self._wake.wait(self._heap[0][0] - time.monotonic() if self._heap else None)
                _, _, due = heapq.heappop(self._heap)
            due.expire()


_reaper = _Reaper()


@contextlib.contextmanager
def call_deadline(seconds: float) -> Iterator[Deadline]:
    """A deadline ``seconds`` from now over every request this thread makes meanwhile through a
    ``deadline_session``."""
    deadline = Deadline(seconds)
    outer = getattr(_active, "deadline", None)
    _active.deadline = deadline
    _reaper.add(deadline)
    try:
        yield deadline
    finally:
        deadline.close()
        _active.deadline = outer


def _watched(connection: Any) -> None:
    deadline = getattr(_active, "deadline", None)
    if deadline is not None:
        deadline.watch(connection)


class _WatchedHTTPConnection(HTTPConnection):
    """Watched by the deadline of the call using it, from its connect or request on."""

    def connect(self) -> None:
        _watched(self)
        super().connect()
        # http.client lets go of the socket of a response that closes the connection (HTTP/1.0,
        # "Connection: close") while that response still reads from it: kept to be cut
        self.eval_sock = self.sock
        # a deadline that passed while connecting found no socket to cut: this one is cut now
        deadline = getattr(self, "eval_deadline", None)
        if deadline is not None and deadline.expired:
            _shut(self)

    def request(self, *args: Any, **kwargs: Any) -> None:
        _watched(self)
        super().request(*args, **kwargs)


class _WatchedHTTPSConnection(_WatchedHTTPConnection, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_WATCHED_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class _WatchedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_WATCHED_POOLS)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> PoolManager:
        manager: PoolManager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = dict(_WATCHED_POOLS)
        return manager


def deadline_session(pool_size: int) -> requests.Session:
    """One session shared by all worker threads, with enough pooled connections for each of
    them; a request made inside ``call_deadline`` ends when that deadline does."""
    session = requests.Session()
    adapter = _WatchedAdapter(pool_connections=pool_size, pool_maxsize=pool_size, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def read_body(response: requests.Response, deadline: Deadline, max_bytes: int) -> bytes:
    """The whole (decoded) body of a streamed response, within the deadline and the byte cap.

    Raises ``BodyTooLarge`` as soon as the cap is passed and ``DeadlineExceeded`` when the
    deadline cut the body short."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise BodyTooLarge(max_bytes)
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_content(_READ_SIZE):
            size += len(chunk)
            if size > max_bytes:
                raise BodyTooLarge(max_bytes)
            chunks.append(chunk)
    except requests.RequestException:
        deadline.raise_if_cut()
        raise
    deadline.raise_if_cut()
    return b"".join(chunks)
