"""The tracer the steps talk to when an endpoint is configured: spans as plain records.

A step's span costs a small object and a dict: ids, times and redacted attributes. Each ended span
becomes a ``SpanRecord`` handed to an ``Exporter`` — the OpenTelemetry SDK in this process
(``otel.ExportPipeline``) or in a process of its own (``export_process.ExportProcess``), where
encoding and sending cannot compete with the evaluation for this process's GIL. Neither the
records nor this module import OpenTelemetry.

What happened to the spans is counted here, per trace (spans handed over, spans the endpoint
accepted), and reported per run key with one line saying why any failed (``ExportCounts``).
"""

from __future__ import annotations

import functools
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol

from eval_pipeline.core.tracing.attributes import SPAN_KIND, case_identity
from eval_pipeline.core.tracing.config import TraceSettings, shown_url
from eval_pipeline.core.tracing.spans import (
    NO_SPAN,
    ExportCounts,
    Lazy,
    Span,
    SpanKind,
    Tracer,
    case_trace_ids,
)

log = logging.getLogger(__name__)

MAX_ATTRIBUTE_CHARS = 16_384  # per value: an answer may be megabytes
MAX_STATUS_CHARS = 500


class SpanRecord(NamedTuple):
    """An ended span, as an exporter receives it (a tuple: cheap to build and to pickle)."""

    trace_id: int
    span_id: int
    parent_id: int  # 0 for a case's root span
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    error: str | None


class Flushed(NamedTuple):
    """What an exporter sent since its last flush: spans the endpoint accepted per trace id, and
    why any other span was not (the last failed export, or why it stopped)."""

    exported: dict[int, int]
    reason: str


class Exporter(Protocol):
    """Where ended spans go. ``put`` never blocks; ``flush`` and ``close`` return by ``deadline``
    (``time.monotonic()`` seconds); after ``close`` nothing more is sent."""

    def put(self, record: SpanRecord) -> None: ...

    def flush(self, deadline: float) -> Flushed: ...

    def close(self, deadline: float) -> Flushed: ...


def time_left(deadline: float) -> float:
    """Seconds until ``deadline`` (``time.monotonic()`` seconds), never negative."""
    return max(0.0, deadline - time.monotonic())


def _ns(seconds: float | None) -> int:
    return time.time_ns() if seconds is None else int(seconds * 1e9)


def _new_span_id() -> int:
    return random.getrandbits(64) or 1


def _guarded(default: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Tracing never fails an evaluation: an error in building or handing over a span is
    logged and the span is lost (and counted when it was already handed over)."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except Exception as exc:
                log.warning("tracing: %s failed: %s: %s", method.__name__, type(exc).__name__, exc)
                return default

        return guarded

    return wrap


class _Counts:
    """Spans handed to the exporter and spans the endpoint accepted, per trace."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._traces: dict[int, list[Any]] = {}  # trace id → [run key, case id, spans ended]

    def ended(self, trace_id: int, run_key: str, case_id: str) -> None:
        with self._lock:
            entry = self._traces.get(trace_id)
            if entry is None:
                self._traces[trace_id] = [run_key, case_id, 1]
            else:
                entry[2] += 1

    def take(self, accepted: Mapping[int, int], reason: str) -> dict[str, ExportCounts]:
        """The counts since the last take, per run key, given the spans the endpoint ``accepted``
        per trace; ``reason`` where some span was not."""
        with self._lock:
            traces, self._traces = self._traces, {}
        out: dict[str, ExportCounts] = {}
        for trace_id, (run_key, case_id, ended) in traces.items():
            exported = min(ended, accepted.get(trace_id, 0))
            lost = exported < ended
            counts = ExportCounts(
                spans=ended,
                exported=exported,
                failed_cases=frozenset([case_id]) if lost else frozenset(),
                reason=reason if lost else "",
            )
            out[run_key] = out.get(run_key, ExportCounts()) + counts
        return out


class _RecordSpan(Span):
    recording = True

    def __init__(
        self,
        tracer: RecordingTracer,
        ids: tuple[int, int, int],
        name: str,
        identity: tuple[str, str],
        start_ns: int,
        attributes: dict[str, Any],
    ) -> None:
        self._tracer = tracer
        self._ids = ids  # trace, span, parent
        self._name = name
        self._identity = identity  # run key, case id
        self._start_ns = start_ns
        self._attributes = attributes
        self._error: str | None = None
        self._ended = False

    @_guarded(None)
    def set(self, attributes: Lazy) -> None:
        self._attributes.update(self._tracer.clean(attributes))

    @_guarded(None)
    def fail(self, message: str) -> None:
        self._error = self._tracer.redact(message)[:MAX_STATUS_CHARS]

    @_guarded(NO_SPAN)
    def child(
        self, name: str, kind: SpanKind, attributes: Lazy = None, start_s: float | None = None
    ) -> Span:
        trace_id, span_id, _ = self._ids
        return self._tracer.start(
            (trace_id, span_id), self._identity, name, kind, attributes, start_s
        )

    @_guarded(None)
    def end(self, end_s: float | None = None) -> None:
        if self._ended:
            return
        self._ended = True
        trace_id, span_id, parent_id = self._ids
        record = SpanRecord(
            trace_id,
            span_id,
            parent_id,
            self._name,
            self._start_ns,
            _ns(end_s),
            self._attributes,
            self._error,
        )
        self._tracer.hand(record, *self._identity)


class RecordingTracer(Tracer):
    """Spans of every case to one OTLP endpoint through ``exporter`` (see the module docstring).
    Every text is redacted here, before it leaves for the exporter: the header values (which the
    exporter sends) and whatever ``redact`` knows."""

    enabled = True

    def __init__(
        self,
        settings: TraceSettings,
        exporter: Exporter,
        redact: Callable[[str], str] = str,
    ) -> None:
        self.settings = settings
        self.url = shown_url(settings.url)
        headers = settings.header_map()
        self._secrets = sorted((v for v in headers.values() if len(v) >= 6), key=len, reverse=True)
        self._redact = redact
        self._exporter = exporter
        self._counts = _Counts()
        self._lock = threading.Lock()
        self._closed = False

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted:otel_headers]")
        return self._redact(text)

    def _text(self, value: str) -> str:
        return self.redact(value)[:MAX_ATTRIBUTE_CHARS]

    def clean(self, attributes: Lazy) -> dict[str, Any]:
        """Attributes an OTLP endpoint accepts: built if lazy, no ``None``, every text redacted
        and cut to ``MAX_ATTRIBUTE_CHARS``."""
        made: Mapping[str, Any] | None = attributes() if callable(attributes) else attributes
        out: dict[str, Any] = {}
        for key, value in (made or {}).items():
            if value is None:
                continue
            if isinstance(value, str):
                out[key] = self._text(value)
            elif isinstance(value, list | tuple):
                out[key] = [self._text(v) if isinstance(v, str) else v for v in value]
            else:
                out[key] = value
        return out

    def start(
        self,
        parent: tuple[int, int],
        identity: tuple[str, str],
        name: str,
        kind: SpanKind,
        attributes: Lazy,
        start_s: float | None = None,
    ) -> Span:
        values = {**case_identity(*identity), SPAN_KIND: kind}
        span = _RecordSpan(
            self, (parent[0], _new_span_id(), parent[1]), name, identity, _ns(start_s), values
        )
        span.set(attributes)
        return span

    def hand(self, record: SpanRecord, run_key: str, case_id: str) -> None:
        """Count the ended span and give it to the exporter."""
        self._counts.ended(record.trace_id, run_key, case_id)
        self._exporter.put(record)

    @_guarded(NO_SPAN)
    def _case_parent(self, run_key: str, case_id: str) -> Span:
        trace_id, root_id = case_trace_ids(self.settings.service_name, run_key, case_id)
        return _RecordSpan(self, (trace_id, root_id, 0), "", (run_key, case_id), 0, {})

    @_guarded(None)
    def case_root(
        self, run_key: str, case_id: str, attributes: Lazy, *, start_s: float, end_s: float
    ) -> None:
        """The span whose id every step's span names as parent (``case_trace_ids``)."""
        trace_id, root_id = case_trace_ids(self.settings.service_name, run_key, case_id)
        values = {**case_identity(run_key, case_id), SPAN_KIND: "CHAIN", **self.clean(attributes)}
        name = f"case {case_id}"
        record = SpanRecord(trace_id, root_id, 0, name, _ns(start_s), _ns(end_s), values, None)
        self.hand(record, run_key, case_id)

    def _take(self, flushed: Flushed) -> dict[str, ExportCounts]:
        return self._counts.take(flushed.exported, self.redact(flushed.reason) or "not sent")

    @_guarded({})
    def flush(self) -> dict[str, ExportCounts]:
        return self._take(self._exporter.flush(time.monotonic() + self.settings.flush_timeout_s))

    @_guarded({})
    def close(self) -> dict[str, ExportCounts]:
        with self._lock:
            if self._closed:
                return {}
            self._closed = True
        deadline = time.monotonic() + self.settings.flush_timeout_s
        return self._take(self._exporter.close(deadline))
