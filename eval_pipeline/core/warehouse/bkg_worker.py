"""The process BKG functions and reference SQL run in (see ``bkg_process``): ``python -m`` this.

Requests and replies are pickles on stdin and stdout, between two processes of the same code,
each tagged with its request's number; BKG code's own prints go to stderr. Every request runs on
a thread of its own, so calls are as concurrent as in the caller and a call that never ends holds
up only itself until the caller kills this process. Anything a BKG function raises — ``SystemExit``
and ``KeyboardInterrupt`` included — is its reference's error, never this process's.

    ("load", id, namespace, [(index, kind, Function), ...])
        → ("loaded", id, index, load error or None, signature problem or None) per function,
          then ("loaded", id, None, None, None)
    ("call", id, namespace, kind, name, url, read_only, params, max_rows)
    ("sql", id, url, read_only, sql, params, max_rows)
        → ("ok", id, shape, value) or ("error", id, message)
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

from eval_pipeline.core.libc import libc_function

MAX_DATABASES = 8  # handles kept open, one per warehouse URL, least recently used closed first
ARROW_POOL_VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"
ARENA_VARIABLE = "MALLOC_ARENA_MAX"
MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # glibc's malloc.h


def use_system_arrow_pool() -> None:
    """Arrow buffers (pandas' ``str`` columns: every text column a query returns) from malloc
    rather than from the mimalloc Arrow bundles, unless ``ARROW_DEFAULT_MEMORY_POOL`` names one.

    Every request runs on a thread of its own, as many threads as the caller has calls running
    (36 for an evaluation at concurrency 32), and mimalloc keeps a heap per thread that holds on
    to the pages freed in it: this process grew with the calls it answered, from 137 MiB to 320
    MiB over the 8,000 references of 10,000 cases (issue #19); with malloc and ``MALLOC_ARENAS``
    it ends at 170 MiB, the same results at the same CPU.
    """
    if os.environ.get(ARROW_POOL_VARIABLE):
        return
    import pyarrow

    pyarrow.set_memory_pool(pyarrow.system_memory_pool())


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """At most ``arenas`` glibc malloc arenas, unless ``MALLOC_ARENA_MAX`` says how many; True
    if the limit was set. Called before any thread starts.

    glibc gives a thread an arena of its own when it finds the others busy, up to eight per
    core, and each keeps the free space left between what is still live in it: with Arrow's
    memory from malloc too, the request threads' arenas made this process grow by a few MiB per
    thousand calls. The threads run Python, one at a time under the GIL, so two arenas cost no
    speed: 10,000 cases' references leave it 30 MiB smaller, no longer growing.
    """
    mallopt = libc_function("mallopt")
    if os.environ.get(ARENA_VARIABLE) or mallopt is None:
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))


class _Worker:
    def __init__(self, replies: IO[bytes]) -> None:
        use_system_arrow_pool()
        # the DataFrames of queries and results (which ``db`` and ``bkg_runtime`` import pandas
        # for only when they make one): loaded before "ready", so no call's time limit pays it
        importlib.import_module("pandas")
        from eval_pipeline.core.warehouse import bkg_runtime
        from eval_pipeline.core.warehouse.db import Database

        self._runtime = bkg_runtime
        self._open: Callable[..., Any] = Database
        self._replies = replies
        self._reply_lock = threading.Lock()
        self._namespaces: dict[str, dict[tuple[str, str], Callable[..., Any]]] = {}
        self._databases: OrderedDict[tuple[str, bool], Any] = OrderedDict()
        self._db_lock = threading.Lock()

    def send(self, message: tuple[Any, ...]) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with self._reply_lock:
            _write(self._replies, data)

    def handle(self, message: tuple[Any, ...]) -> None:
        kind, request = message[0], message[1]
        if kind == "load":
            self._load(request, *message[2:])
            return
        try:
            if kind == "call":
                namespace, fn_kind, name, url, read_only, params, max_rows = message[2:]
                target = self._namespaces[namespace][(fn_kind, name)]
                result = target(self._database(url, read_only), **params)
                shaped = self._runtime.json_shape(result, max_rows=max_rows)
            else:
                url, read_only, sql, params, max_rows = message[2:]
                result = self._database(url, read_only).query(sql, **params)
                shaped = self._runtime.json_shape(result, cell_as_scalar=True, max_rows=max_rows)
        except BaseException as exc:  # the reference's failure, whatever BKG code raised
            self.send(("error", request, self._runtime.describe_error(exc)))
            return
        self.send(("ok", request, *shaped))

    def _load(self, request: int, namespace: str, functions: list[tuple[int, str, Any]]) -> None:
        scope: dict[str, Any] = {"__name__": "bkg_functions"}
        loaded: dict[tuple[str, str], Callable[..., Any]] = {}
        for index, kind, fn in functions:
            try:
                target = self._runtime.compile_function(kind, fn, scope)
            except self._runtime.FunctionLoadError as exc:
                self.send(("loaded", request, index, str(exc), None))
                continue
            loaded[(kind, fn.name)] = target
            self.send(("loaded", request, index, None, self._runtime.signature_problem(fn, target)))
        self._namespaces[namespace] = loaded
        self.send(("loaded", request, None, None, None))

    def _database(self, url: str, read_only: bool) -> Any:
        key = (url, read_only)
        with self._db_lock:
            db = self._databases.pop(key, None) or self._open(url, read_only=read_only)
            self._databases[key] = db
            while len(self._databases) > MAX_DATABASES:
                self._databases.popitem(last=False)[1].close()
        return db


def _write(replies: IO[bytes], data: bytes) -> None:
    """A caller that ended before reading (``validate`` stopping at a parse error while this
    process was still importing) is no error of this process's: it ends quietly with it."""
    try:
        replies.write(data)
        replies.flush()
    except OSError:
        os._exit(0)


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """Say ``("ready",)`` once loaded, then answer requests until stdin closes."""
    limit_malloc_arenas()
    try:
        worker = _Worker(replies)
    except Exception as exc:  # reported to the caller, which owns the error's wording
        _write(replies, pickle.dumps(("failed", f"{type(exc).__name__}: {exc}")))
        return
    worker.send(("ready",))
    with ThreadPoolExecutor(max_workers=256, thread_name_prefix="bkg") as pool:
        while True:
            try:
                message = pickle.load(requests)
            except EOFError:  # the caller is gone, however it ended
                os._exit(0)  # calls still running are abandoned with it
            pool.submit(worker.handle, message)


def main() -> None:
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt replies
    serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
