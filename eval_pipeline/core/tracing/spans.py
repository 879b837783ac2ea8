"""The tracing interface the steps call; by default it records nothing and costs next to nothing.

Every case of a run gets one trace. Its spans are made in different Dagster steps, runs and maybe
processes (the chatbot call, extraction, verification, scoring, the outcome), so nothing can be
handed from one to the next: the trace id and the id of the case's root span are derived from
(service name, run key, case id) (``case_trace_ids``), and every step's span is a child of that
root, which the outcome step sends last. A step opens its span with ``CaseTrace.span``; code
deeper down (a judge call, a reference, a verifier tool) opens a child of whatever span is current
in its thread with ``span`` — nothing at all when no span is current, so the core works the same
with tracing off and never needs to know whether it is on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

# OpenInference span kinds (openinference.span.kind).
SpanKind = Literal["CHAIN", "LLM", "TOOL", "AGENT", "EVALUATOR"]
AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int] | Sequence[float]
Attributes = Mapping[str, AttributeValue | None]
# Attributes, or what builds them: called only when the span is recorded.
Lazy = Attributes | Callable[[], Attributes] | None


class Span:
    """A span being recorded. This base records nothing: it stands in when tracing is off."""

    recording = False

    def set(self, attributes: Lazy) -> None:
        """Add attributes; ``None`` values are left out."""

    def fail(self, message: str) -> None:
        """Mark the span's status as an error."""

    def child(
        self, name: str, kind: SpanKind, attributes: Lazy = None, start_s: float | None = None
    ) -> Span:
        """A span under this one, started now or at ``start_s``."""
        return self

    def end(self, end_s: float | None = None) -> None:
        """End the span (now, or at ``end_s`` seconds since the epoch)."""


NO_SPAN = Span()


@dataclass(frozen=True)
class ExportCounts:
    """What became of the spans of one run key a tracer was given: how many the endpoint
    accepted, the cases whose trace lost a span, and why (one line)."""

    spans: int = 0
    exported: int = 0
    failed_cases: frozenset[str] = frozenset()
    reason: str = ""

    @property
    def failed(self) -> int:
        return self.spans - self.exported

    def __add__(self, other: ExportCounts) -> ExportCounts:
        return ExportCounts(
            spans=self.spans + other.spans,
            exported=self.exported + other.exported,
            failed_cases=self.failed_cases | other.failed_cases,
            reason=self.reason or other.reason,
        )


class Tracer:
    """Where the spans of cases go. This base drops them: no trace endpoint is configured."""

    enabled = False

    def case_span(
        self,
        run_key: str,
        case_id: str,
        name: str,
        kind: SpanKind,
        attributes: Lazy = None,
        *,
        start_s: float | None = None,
    ) -> Span:
        """A span under the case's root span, started now or at ``start_s``."""
        return self._case_parent(run_key, case_id).child(name, kind, attributes, start_s)

    def _case_parent(self, run_key: str, case_id: str) -> Span:
        """The case's root span as the parent of its steps' spans; ``case_root`` sends it."""
        return NO_SPAN

    def case_root(
        self, run_key: str, case_id: str, attributes: Lazy, *, start_s: float, end_s: float
    ) -> None:
        """Send the case's root span (the parent every step's span already names)."""

    def flush(self) -> dict[str, ExportCounts]:
        """Wait, at most the configured flush timeout, for the spans given so far to be sent, and
        return what became of them per run key since the last flush. Spans not sent by then count
        as failed and are dropped; the tracer sends nothing more after such a timeout."""
        return {}

    def close(self) -> dict[str, ExportCounts]:
        """Flush (bounded as ``flush`` is) and stop; the counts not yet returned by a flush."""
        return {}


NO_TRACER = Tracer()


def case_trace_ids(service: str, run_key: str, case_id: str) -> tuple[int, int]:
    """The trace id (128 bits) and root span id (64 bits) of a case's trace: the same in every
    step and process that works on the case, never zero."""
    digest = hashlib.sha256("\x1f".join(("eval_pipeline", service, run_key, case_id)).encode())
    raw = digest.digest()
    return int.from_bytes(raw[:16], "big") or 1, int.from_bytes(raw[16:24], "big") or 1


_CURRENT: ContextVar[Span] = ContextVar("eval_pipeline_current_span", default=NO_SPAN)


@contextmanager
def _current(span: Span) -> Iterator[Span]:
    """``span`` is the current span of this thread until the block ends; an exception escaping
    the block marks it failed."""
    token = _CURRENT.set(span)
    try:
        yield span
    except Exception as exc:
        span.fail(f"{type(exc).__name__}: {exc}")
        raise
    finally:
        _CURRENT.reset(token)
        span.end()


def recording() -> bool:
    """Whether a span is current in this thread (building attributes is then worth it)."""
    return _CURRENT.get().recording


def span(name: str, kind: SpanKind, attributes: Lazy = None) -> AbstractContextManager[Span]:
    """A child of the current span for the block; without a current span, a no-op."""
    parent = _CURRENT.get()
    if not parent.recording:
        return nullcontext(NO_SPAN)
    return _current(parent.child(name, kind, attributes))


@dataclass(frozen=True)
class CaseTrace:
    """One case of one run, as the steps see its trace."""

    tracer: Tracer
    run_key: str
    case_id: str

    @property
    def enabled(self) -> bool:
        return self.tracer.enabled

    def span(
        self, name: str, kind: SpanKind, attributes: Lazy = None
    ) -> AbstractContextManager[Span]:
        """A step's span for the block, current in this thread (see ``span``)."""
        if not self.tracer.enabled:
            return nullcontext(NO_SPAN)
        return _current(self.tracer.case_span(self.run_key, self.case_id, name, kind, attributes))

    def record(
        self,
        name: str,
        kind: SpanKind,
        attributes: Lazy,
        *,
        start_s: float,
        end_s: float,
        error: str | None = None,
    ) -> None:
        """A span of something already done, with its own start and end (an answer asked
        ahead of its step, say)."""
        if not self.tracer.enabled:
            return
        made = self.tracer.case_span(
            self.run_key, self.case_id, name, kind, attributes, start_s=start_s
        )
        if error:
            made.fail(error)
        made.end(end_s)


NO_TRACE = CaseTrace(NO_TRACER, "", "")
