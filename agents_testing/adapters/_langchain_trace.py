"""Capture the runs of a LangChain or LangGraph invocation (import it from ``langchain``).

``capture_langchain_runs()`` returns a capture whose ``handler`` is a LangChain tracer: pass it
in the run's config (``config={"callbacks": [capture.handler]}``) and read ``capture.tree()``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any, cast

try:
    from langchain_core.messages import BaseMessage
    from langchain_core.tracers.base import BaseTracer
    from langchain_core.tracers.schemas import Run
except ImportError as _missing:  # the import tests hide the framework to reach this
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.langchain",
        requirement="langchain-core>=0.3",
        extra="langchain",
    ) from _missing

from ..tracing import SpanRecord, TraceTree, normalize_trace

__all__ = ["LANGCHAIN_VOLATILE_ATTRIBUTES", "LangChainRunCapture", "capture_langchain_runs"]

# Metadata generated per run (checkpoint namespaces carry a task id) or per installation.
LANGCHAIN_VOLATILE_ATTRIBUTES: tuple[str, ...] = (
    "checkpoint_ns",
    "langgraph_checkpoint_ns",
    "lc_versions",
)

_SKIP = object()


def capture_langchain_runs() -> LangChainRunCapture:
    """Return a capture whose ``handler`` collects every run of the invocations it is given."""
    return LangChainRunCapture()


class LangChainRunCapture:
    """The LangChain runs traced through ``handler``, as a normalized tree.

    In ``tree()`` each run is a span named after the run, of kind ``run_type`` (``chain``,
    ``llm`` for chat models too, ``tool``, ...). Its attributes are its metadata (LangGraph's
    ``langgraph_node`` and ``langgraph_step``, the model's ``ls_provider``, ...) without
    ``LANGCHAIN_VOLATILE_ATTRIBUTES``; a model run adds ``text``, ``tool_calls``
    (``name``, ``args``, ``id``) and ``usage`` (the message's ``usage_metadata``); a tool
    run adds ``input`` and ``output``. Its error is the run's error text. Message ids, run
    ids and times are left out.
    """

    def __init__(self) -> None:
        self.handler: BaseTracer = _CaptureTracer(self)
        self._lock = threading.Lock()
        self._runs: list[Run] = []

    def __repr__(self) -> str:
        return f"<LangChainRunCapture: {len(self._runs)} runs>"

    @property
    def records(self) -> tuple[SpanRecord, ...]:
        """Return one ``SpanRecord`` per captured run, in start order."""
        with self._lock:
            runs = list(self._runs)
        return tuple(_record(run) for run in runs)

    def tree(
        self, *, attributes: Iterable[str] | None = None, ignore: Iterable[str] = ()
    ) -> TraceTree:
        """Return the captured runs as a normalized tree (see ``normalize_trace``)."""
        if isinstance(ignore, str):
            raise TypeError("tree() ignore must be an iterable of name patterns, not a str.")
        return normalize_trace(
            self.records,
            attributes=attributes,
            ignore=(*LANGCHAIN_VOLATILE_ATTRIBUTES, *ignore),
        )

    def clear(self) -> None:
        """Forget every run captured so far."""
        with self._lock:
            self._runs.clear()

    def _add(self, run: Run) -> None:
        with self._lock:
            self._runs.append(run)


class _CaptureTracer(BaseTracer):
    """A tracer that keeps each run when it starts; its outputs are read at ``tree()``."""

    def __init__(self, capture: LangChainRunCapture) -> None:
        super().__init__()
        self._capture = capture

    def _start_trace(self, run: Run) -> None:
        super()._start_trace(run)
        self._capture._add(run)  # pyright: ignore[reportPrivateUsage]

    def _persist_run(self, run: Run) -> None:
        pass


def _record(run: Run) -> SpanRecord:
    attributes: dict[str, Any] = {}
    # Run declares these as bare dicts: read them as what a tracer stores.
    extra = cast("Mapping[str, Any]", getattr(run, "extra", None) or {})
    metadata = cast("Mapping[str, Any]", extra.get("metadata") or {})
    outputs = cast("Mapping[str, Any]", getattr(run, "outputs", None) or {})
    for key, value in metadata.items():
        plain = _plain(value)
        if plain is not _SKIP:
            attributes[key] = plain
    if run.run_type in ("llm", "chat_model"):
        attributes.update(_model_output(outputs))
    elif run.run_type == "tool":
        attributes["input"] = _plain_or_text(
            dict(cast("Mapping[str, Any]", getattr(run, "inputs", None) or {}))
        )
        output = outputs.get("output")
        if isinstance(output, BaseMessage):
            output = output.content
        attributes["output"] = _plain_or_text(output)
    return SpanRecord(
        span_id=run.id,
        parent_id=run.parent_run_id,
        name=run.name,
        kind=run.run_type,
        attributes=attributes,
        error=run.error,
    )


def _model_output(outputs: Mapping[str, Any]) -> dict[str, Any]:
    """Read a model run's text, tool calls and usage from its generations."""
    texts: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    usage: Any = None
    for batch in outputs.get("generations") or ():
        for generation in batch:
            message: Any = None
            if isinstance(generation, Mapping):
                message = cast("Mapping[str, Any]", generation).get("message")
            fields = _message_fields(message)
            content = fields.get("content")
            if isinstance(content, str) and content:
                texts.append(content)
            calls = cast("Iterable[Mapping[str, Any]]", fields.get("tool_calls") or ())
            for call in calls:
                tool_calls.append(
                    {
                        "name": call.get("name"),
                        "args": _plain_or_text(call.get("args")),
                        "id": call.get("id"),
                    }
                )
            if fields.get("usage_metadata") is not None:
                usage = _plain_or_text(fields["usage_metadata"])
    result: dict[str, Any] = {"text": "".join(texts), "tool_calls": tool_calls}
    if usage is not None:
        result["usage"] = usage
    return result


def _message_fields(message: Any) -> Mapping[str, Any]:
    if isinstance(message, BaseMessage):
        return {
            "content": message.content,
            "tool_calls": getattr(message, "tool_calls", None),
            "usage_metadata": getattr(message, "usage_metadata", None),
        }
    if isinstance(message, Mapping):
        fields = cast("Mapping[str, Any]", message)
        kwargs = fields.get("kwargs")  # the serialized form a tracer stores
        return cast("Mapping[str, Any]", kwargs) if isinstance(kwargs, Mapping) else fields
    return {}


def _plain(value: Any, depth: int = 0) -> Any:
    """Return ``value`` as JSON-like data, or ``_SKIP`` for what has no stable plain form."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if depth > 32:
        return _SKIP
    if isinstance(value, Mapping):
        converted: dict[str, Any] = {}
        for key, entry in value.items():  # pyright: ignore[reportUnknownVariableType]
            plain = _plain(entry, depth + 1)
            if isinstance(key, str) and plain is not _SKIP:
                converted[key] = plain
        return converted
    if isinstance(value, (list, tuple)):
        items = [_plain(entry, depth + 1) for entry in cast("Iterable[Any]", value)]
        return [item for item in items if item is not _SKIP]
    return _SKIP


def _plain_or_text(value: Any) -> Any:
    plain = _plain(value)
    return str(value) if plain is _SKIP else plain
