"""Capture the OpenAI Agents SDK's trace in a test (import it from ``openai_agents``).

``capture_openai_agents_trace()`` is a context manager: inside it, the SDK's traces and spans
go to a processor of the capture and nowhere else (the installed processors, the exporter to
OpenAI among them, are set aside until the block exits). ``capture.tree()`` reads what it
recorded as the core's normalized ``TraceTree``.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any

try:
    import agents.tracing as _agents_tracing
    from agents.tracing import Span, Trace, TracingProcessor
    from agents.tracing.provider import DefaultTraceProvider
except ImportError as _missing:  # the import tests hide the framework to reach this
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.openai_agents",
        requirement="openai-agents>=0.24",
        extra="openai-agents",
    ) from _missing

from collections.abc import Iterable

from ..tracing import SpanRecord, TraceTree, normalize_trace

__all__ = ["OpenAIAgentsTraceCapture", "capture_openai_agents_trace"]


def capture_openai_agents_trace() -> OpenAIAgentsTraceCapture:
    """Return a context manager that captures every SDK trace and span started inside it.

    Use it as ``with`` or ``async with`` around ``Runner.run``. Inside the block the SDK's
    trace provider is one that sends to the capture only, with tracing enabled (even if
    ``set_tracing_disabled(True)`` or ``OPENAI_AGENTS_DISABLE_TRACING`` turned it off); the
    provider installed before is put back on exit. A run with
    ``RunConfig(tracing_disabled=True)`` still traces nothing. The model adapter emits
    generation spans only with ``openai_agents_model(model, emit_traces=True)``.
    """
    return OpenAIAgentsTraceCapture()


class OpenAIAgentsTraceCapture:
    """The traces and spans the SDK started inside the block, in start order.

    Build it with ``capture_openai_agents_trace()``. ``tree()`` gives the normalized tree:
    a trace is a root span of kind ``"trace"`` named after its workflow; each SDK span is a
    span whose kind is its ``span_data.type`` (``agent``, ``generation``, ``function``,
    ``handoff``, ``guardrail``, ``custom``, ...), whose name is its data's ``name`` (the
    kind when the data has none), whose attributes are the rest of ``span_data.export()``
    and whose error is the span's ``SpanError`` (``{"message", "data"}``).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[Trace | Span[Any]] = []
        self._processor = _CaptureProcessor(self)
        self._provider: DefaultTraceProvider | None = None
        self._previous: Any = None

    def __repr__(self) -> str:
        return f"<OpenAIAgentsTraceCapture: {len(self._items)} traces and spans>"

    @property
    def processor(self) -> TracingProcessor:
        """Return the capture's ``TracingProcessor`` (to register it yourself instead)."""
        return self._processor

    @property
    def records(self) -> tuple[SpanRecord, ...]:
        """Return one ``SpanRecord`` per captured trace and span, in start order."""
        with self._lock:
            items = list(self._items)
        return tuple(_record(item) for item in items)

    def tree(
        self, *, attributes: Iterable[str] | None = None, ignore: Iterable[str] = ()
    ) -> TraceTree:
        """Return the captured trace as a normalized tree (see ``normalize_trace``)."""
        return normalize_trace(self.records, attributes=attributes, ignore=ignore)

    def clear(self) -> None:
        """Forget everything captured so far."""
        with self._lock:
            self._items.clear()

    def _add(self, item: Trace | Span[Any]) -> None:
        with self._lock:
            self._items.append(item)

    def __enter__(self) -> OpenAIAgentsTraceCapture:
        if self._provider is not None:
            raise RuntimeError(
                "capture_openai_agents_trace() is already open; open a new capture instead."
            )
        provider = DefaultTraceProvider()
        provider.set_processors([self._processor])
        provider.set_disabled(False)
        self._previous = _agents_tracing.get_trace_provider()
        self._provider = provider
        _agents_tracing.set_trace_provider(provider)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        provider, self._provider = self._provider, None
        # Put back the provider set aside, unless something replaced ours since.
        if provider is not None and _agents_tracing.get_trace_provider() is provider:
            _agents_tracing.set_trace_provider(self._previous)
        self._previous = None

    async def __aenter__(self) -> OpenAIAgentsTraceCapture:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, traceback)


class _CaptureProcessor(TracingProcessor):
    """Record each trace and span when it starts; its data is read when the tree is built."""

    def __init__(self, capture: OpenAIAgentsTraceCapture) -> None:
        self._capture = capture

    def on_trace_start(self, trace: Trace) -> None:
        self._capture._add(trace)  # pyright: ignore[reportPrivateUsage]

    def on_trace_end(self, trace: Trace) -> None:
        pass

    def on_span_start(self, span: Span[Any]) -> None:
        self._capture._add(span)  # pyright: ignore[reportPrivateUsage]

    def on_span_end(self, span: Span[Any]) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


def _record(item: Trace | Span[Any]) -> SpanRecord:
    if isinstance(item, Trace):
        exported = item.export() or {}
        metadata = exported.get("metadata")
        return SpanRecord(
            span_id=item.trace_id,
            parent_id=None,
            name=item.name,
            kind="trace",
            # The trace and group ids are generated per run; metadata is the test's own.
            attributes={} if metadata is None else {"metadata": metadata},
        )
    data: dict[str, Any] = dict(item.span_data.export())
    kind = str(data.pop("type", None) or item.span_data.type)
    name = data.pop("name", None)
    return SpanRecord(
        span_id=item.span_id,
        parent_id=item.parent_id or item.trace_id,
        name=name if isinstance(name, str) else kind,
        kind=kind,
        attributes=data,
        error=None if item.error is None else dict(item.error),
    )
