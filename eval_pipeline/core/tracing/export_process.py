"""The trace export in a child process: ``ExportProcess`` here, ``python -m`` this module there.

Encoding spans as protobuf and sending them cost about 2 ms of CPU per case in the evaluating
process, where it competes for the GIL with the Dagster steps (``bench/trace_cpu.py``). Here the
evaluating process only pickles batches of ``SpanRecord``s onto the child's stdin, twice a second
from a thread of its own; the child runs the ``ExportPipeline`` and answers each flush with what
it sent. A plain subprocess, as the encoder worker is: ``multiprocessing``'s spawn would run the
caller's main script again. The header values reach the child through its stdin, never its
command line.

When the child cannot be started or ends early, its spans count as failed with the reason; the
evaluation goes on.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from collections import deque
from typing import IO, Any, cast

from eval_pipeline.core.tracing.config import TraceSettings
from eval_pipeline.core.tracing.recorder import Flushed, SpanRecord, time_left

SEND_EVERY_S = 0.5
MAX_PENDING = 32_768  # records waiting for the child; beyond it they are dropped (and counted)
REPLY_MARGIN_S = 1.0  # how much longer than the child's own deadline its reply is waited for


def _send(stream: IO[bytes], message: Any) -> None:
    pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
    stream.flush()


class ExportProcess:
    """An ``Exporter`` whose ``ExportPipeline`` runs in a child process (see the module
    docstring)."""

    def __init__(self, settings: TraceSettings) -> None:
        self._pending: deque[SpanRecord] = deque()  # appended by any thread, drained by one
        self._write_lock = threading.Lock()
        self._replies: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._gone = ""  # why the child cannot take spans any more
        self._closed = False
        self._child = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        headers = settings.headers.get_secret_value()
        self._write(("settings", {**settings.model_dump(exclude={"headers"}), "headers": headers}))
        threading.Thread(target=self._read_replies, name="otel-replies", daemon=True).start()
        threading.Thread(target=self._send_batches, name="otel-send", daemon=True).start()

    @property
    def pid(self) -> int:
        return self._child.pid

    def put(self, record: SpanRecord) -> None:
        if not self._gone and len(self._pending) < MAX_PENDING:
            self._pending.append(record)

    def _write(self, message: Any) -> bool:
        """One message to the child; False (and the reason kept) when it is gone."""
        stdin = self._child.stdin
        assert stdin is not None
        try:
            _send(stdin, message)
        except (OSError, ValueError):
            self._gone = self._gone or self._ended()
            return False
        return True

    def _ended(self) -> str:
        try:
            code = self._child.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "the trace export process stopped reading"
        return f"the trace export process ended (exit code {code})"

    def _send_pending(self) -> None:
        batch = [self._pending.popleft() for _ in range(len(self._pending))]
        if batch:
            self._write(("spans", batch))

    def _send_batches(self) -> None:
        while not self._closed and not self._gone:
            self._wake.wait(SEND_EVERY_S)
            with self._write_lock:
                if not self._closed:
                    self._send_pending()

    def _read_replies(self) -> None:
        stdout = self._child.stdout
        assert stdout is not None
        while True:
            try:
                self._replies.put(pickle.load(stdout))
            except (EOFError, OSError, pickle.UnpicklingError):
                self._replies.put(None)
                return

    def _ask(self, command: str, deadline: float) -> Flushed:
        """Send what is pending and ``command``; the child's answer, or why there is none."""
        if not self._write_lock.acquire(timeout=time_left(deadline)):
            return Flushed({}, "the trace export process did not take the spans in time")
        try:
            self._send_pending()
            if not self._write((command, time_left(deadline))):
                return Flushed({}, self._gone)
        finally:
            self._write_lock.release()
        try:
            reply = self._replies.get(timeout=time_left(deadline) + REPLY_MARGIN_S)
        except queue.Empty:
            return Flushed({}, "the trace export process did not answer in time")
        if reply is None:
            self._gone = self._gone or self._ended()
            return Flushed({}, self._gone)
        return cast(Flushed, reply)

    def flush(self, deadline: float) -> Flushed:
        if self._gone:
            return Flushed({}, self._gone)
        return self._ask("flush", deadline)

    def close(self, deadline: float) -> Flushed:
        flushed = Flushed({}, self._gone) if self._gone else self._ask("close", deadline)
        with self._write_lock:
            self._closed = True
            self._wake.set()
            if self._child.stdin is not None:
                with contextlib.suppress(OSError):
                    self._child.stdin.close()
        try:
            self._child.wait(timeout=time_left(deadline) + REPLY_MARGIN_S)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
        return flushed


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """Take the settings, then span batches; answer ``flush`` and ``close`` with ``Flushed``;
    close (bounded by the flush timeout) when stdin closes."""
    from eval_pipeline.core.tracing.otel import ExportPipeline

    _, values = pickle.load(requests)
    settings = TraceSettings.model_validate(values)
    pipeline = ExportPipeline(settings)
    while True:
        try:
            command, argument = pickle.load(requests)
        except EOFError:
            pipeline.close(time.monotonic() + settings.flush_timeout_s)
            return
        if command == "spans":
            pipeline.put_all(argument)
        elif command == "flush":
            _send(replies, pipeline.flush(time.monotonic() + argument))
        else:
            _send(replies, pipeline.close(time.monotonic() + argument))
            return


def main() -> None:
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt replies
    # failed exports are counted and explained in the run summary; the SDK's own log lines about
    # them would only repeat that on the terminal
    logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)
    serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
