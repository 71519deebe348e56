"""Capture OpenTelemetry spans in a test and read them as a normalized trace tree.

``capture_otel_spans()`` gives a capture with its own ``TracerProvider`` (the OpenTelemetry
SDK's, with a span processor that keeps every span in memory): hand
``capture.tracer_provider`` to the instrumentation under test, for pydantic-ai
``Instrumentation(settings=InstrumentationSettings(tracer_provider=...))``, and read
``capture.tree()``. Nothing is exported and the global tracer provider is left alone.

Importing this module without ``opentelemetry-sdk`` installed raises ``ImportError`` naming
the extra to install (``pip install "agents-testing[tracing]"``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from types import TracebackType
from typing import Any

try:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
    from opentelemetry.trace import StatusCode, Tracer
except ImportError as _missing:  # the import tests hide the framework to reach this
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.opentelemetry",
        requirement="opentelemetry-sdk>=1.20",
        extra="tracing",
        root="opentelemetry.sdk",
    ) from _missing

from ..tracing import SpanRecord, TraceTree, normalize_trace

__all__ = ["OTEL_VOLATILE_ATTRIBUTES", "OTelSpanCapture", "capture_otel_spans"]

# Attributes whose values are generated per run (GenAI conversation and agent-call ids);
# ``tree()`` leaves them out so the same scripted run gives an equal tree.
OTEL_VOLATILE_ATTRIBUTES: tuple[str, ...] = ("gen_ai.conversation.id", "gen_ai.agent.call.id")


def capture_otel_spans() -> OTelSpanCapture:
    """Return a capture with its own tracer provider that keeps every span it starts."""
    return OTelSpanCapture()


class OTelSpanCapture:
    """OpenTelemetry spans started through ``tracer_provider``, in start order.

    In ``tree()`` each span keeps its name; its kind is its ``gen_ai.operation.name``
    (``chat``, ``execute_tool``, ``invoke_agent``, ...) when it has one, else its
    OpenTelemetry span kind in lower case (``internal``, ``client``, ...); its attributes are
    its OpenTelemetry attributes (tuples become lists) without ``OTEL_VOLATILE_ATTRIBUTES``;
    its error is its status description (``"error"`` without one) when its status is ERROR.
    Use it as ``with`` / ``async with`` to shut the provider down on exit.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spans: list[Span] = []
        self.tracer_provider: TracerProvider = TracerProvider()
        self.tracer_provider.add_span_processor(_CaptureProcessor(self))

    def __repr__(self) -> str:
        return f"<OTelSpanCapture: {len(self._spans)} spans>"

    def tracer(self, name: str = "agents_testing") -> Tracer:
        """Return a tracer of the capture's provider, for code that takes a tracer."""
        return self.tracer_provider.get_tracer(name)

    @property
    def records(self) -> tuple[SpanRecord, ...]:
        """Return one ``SpanRecord`` per captured span, in start order."""
        with self._lock:
            spans = list(self._spans)
        return tuple(_record(span) for span in spans)

    def tree(
        self, *, attributes: Iterable[str] | None = None, ignore: Iterable[str] = ()
    ) -> TraceTree:
        """Return the captured spans as a normalized tree (see ``normalize_trace``)."""
        if isinstance(ignore, str):
            raise TypeError("tree() ignore must be an iterable of name patterns, not a str.")
        return normalize_trace(
            self.records, attributes=attributes, ignore=(*OTEL_VOLATILE_ATTRIBUTES, *ignore)
        )

    def clear(self) -> None:
        """Forget every span captured so far."""
        with self._lock:
            self._spans.clear()

    def _add(self, span: Span) -> None:
        with self._lock:
            self._spans.append(span)

    def __enter__(self) -> OTelSpanCapture:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.tracer_provider.shutdown()

    async def __aenter__(self) -> OTelSpanCapture:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.tracer_provider.shutdown()


class _CaptureProcessor(SpanProcessor):
    """Keep each span when it starts, so siblings keep their start order."""

    def __init__(self, capture: OTelSpanCapture) -> None:
        self._capture = capture

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self._capture._add(span)  # pyright: ignore[reportPrivateUsage]

    def on_end(self, span: ReadableSpan) -> None:
        pass


def _record(span: ReadableSpan) -> SpanRecord:
    attributes: dict[str, Any] = dict(span.attributes or {})
    operation = attributes.get("gen_ai.operation.name")
    kind = operation if isinstance(operation, str) else span.kind.name.lower()
    error: str | None = None
    if span.status.status_code is StatusCode.ERROR:
        error = span.status.description or "error"
    context = span.get_span_context()
    return SpanRecord(
        span_id=None if context is None else context.span_id,
        parent_id=None if span.parent is None else span.parent.span_id,
        name=span.name,
        kind=kind,
        attributes=attributes,
        error=error,
    )
