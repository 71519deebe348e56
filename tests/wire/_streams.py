"""Scripted streams the wire tests share; the core is all they need."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from agents_testing import ScriptedModel, model_stream


def text_delta(text: str) -> dict[str, Any]:
    """Return an ``output_text_delta`` stream event for ``text``, of no particular item."""
    return {"type": "output_text_delta", "item_id": None, "delta": text}


def stream_failing_after(events: Sequence[Any], error: BaseException) -> ScriptedModel:
    """Script one streamed call that sends ``events``, then fails with ``error`` midway.

    With no events, the stream fails on its first read, before anything is sent.
    """

    def source() -> Iterator[Any]:
        yield from events
        raise error

    return ScriptedModel([model_stream(source())])
