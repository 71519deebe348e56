"""Pieces the three wire formats share: usage numbers, item reading, SSE framing, ids."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from ..items import ModelResponse, Usage

# A string-keyed mapping, named once: a cast to it builds no type object per call.
_Fields = Mapping[str, Any]

__all__ = [
    "CREATED_AT",
    "InvalidBody",
    "UnsupportedOutput",
    "WireUsage",
    "arguments_text",
    "as_list",
    "as_mapping",
    "call_number",
    "dumps",
    "item_kind",
    "message_text",
    "sse",
]

# A fixed timestamp keeps every rendered response byte-for-byte reproducible.
CREATED_AT = 1_700_000_000

_SCRIPTED_PREFIX = "scripted-response-"


class InvalidBody(ValueError):
    """The request body lacks a field the format requires; the message names it."""


class UnsupportedOutput(ValueError):
    """A scripted output item has no representation in the wire format."""


@dataclass(frozen=True)
class WireUsage:
    """The token counts every wire format reports, taken from a step's ``Usage``."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    @classmethod
    def of(cls, usage: Usage | Mapping[str, Any] | None) -> WireUsage:
        """Read a core ``Usage`` or the usage payload of a ``response_done`` event."""
        if usage is None:
            return _NO_USAGE
        if isinstance(usage, Usage):
            # Read the fields where they are: this runs once per answered request.
            return cls._counted(
                usage.input_tokens,
                usage.output_tokens,
                usage.total_tokens,
                usage.input_tokens_details,
                usage.output_tokens_details,
            )
        return cls._counted(
            usage.get("input_tokens"),
            usage.get("output_tokens"),
            usage.get("total_tokens"),
            usage.get("input_tokens_details"),
            usage.get("output_tokens_details"),
        )

    @classmethod
    def _counted(
        cls,
        input_tokens: Any,
        output_tokens: Any,
        total: Any,
        input_details: Any,
        output_details: Any,
    ) -> WireUsage:
        inputs = _int(input_tokens)
        outputs = _int(output_tokens)
        total_tokens = inputs + outputs if total is None else _int(total)
        cached = _detail_sum(input_details, "cached_tokens")
        reasoning = _detail_sum(output_details, "reasoning_tokens")
        if not (inputs or outputs or total_tokens or cached or reasoning):
            return _NO_USAGE  # a scripted step's usual usage; frozen, so one serves all
        return cls(inputs, outputs, total_tokens, cached, reasoning)


_NO_USAGE = WireUsage()


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _detail_sum(details: Any, key: str) -> int:
    if isinstance(details, list):
        entries: list[Any] = details  # pyright: ignore[reportUnknownVariableType]
        if not entries:
            return 0  # the usual case, answered before the Mapping check below
    elif isinstance(details, Mapping):
        entries = [details]
    else:
        return 0
    return sum(_int(cast(_Fields, d).get(key)) for d in entries if isinstance(d, Mapping))


def call_number(response: ModelResponse, fallback: int) -> str:
    """Return the one-based call number a response's wire ids are built from.

    The core names unnamed responses ``scripted-response-N``; a response id the script set
    itself is kept verbatim.
    """
    response_id = response.response_id
    if response_id is None:
        return str(fallback)
    if response_id.startswith(_SCRIPTED_PREFIX):
        number = response_id[len(_SCRIPTED_PREFIX) :]
        if number.isdecimal():  # what ``\d+`` matches
            return number
    return response_id


def as_list(value: Any) -> list[Any]:
    """Return ``value`` if it is a list, else an empty list."""
    found: list[Any] = value if isinstance(value, list) else []  # pyright: ignore[reportUnknownVariableType]
    return found


def as_mapping(value: Any) -> Mapping[str, Any] | None:
    """Return ``value`` as a string-keyed mapping, or ``None`` if it is not one."""
    if type(value) is dict:  # the usual case, decided before the costlier ABC check
        return cast(_Fields, value)
    return cast(_Fields, value) if isinstance(value, Mapping) else None


def item_kind(item: Any) -> str | None:
    """Return what a scripted output item is: ``message``, ``function_call`` or its type."""
    mapping = as_mapping(item)
    if mapping is None:
        return None
    kind = mapping.get("type")
    return kind if isinstance(kind, str) else None


def message_text(item: Mapping[str, Any]) -> str:
    """Return the text of an assistant message item (its ``output_text`` parts joined)."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts: list[str] = []
    for part in as_list(content):
        mapping = as_mapping(part)
        if mapping is not None and mapping.get("type") in ("output_text", "text"):
            text = mapping.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)


def arguments_text(item: Mapping[str, Any]) -> str:
    """Return a function call item's arguments as the JSON string the wire carries."""
    arguments = item.get("arguments")
    if isinstance(arguments, str):
        return arguments
    return dumps({} if arguments is None else arguments)


# Made once: ``json.dumps`` with arguments builds a new encoder on every call, and a stream
# encodes each of its events.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Serialize compactly, as the providers do."""
    return _COMPACT.encode(value)


def sse(data: Any, event: str | None = None) -> bytes:
    """Frame one server-sent event; ``data`` is JSON-encoded unless it is already a str."""
    text = data if isinstance(data, str) else dumps(data)
    head = f"event: {event}\n" if event is not None else ""
    # A lone surrogate (JSON allows one, escaped) cannot be UTF-8: write it back as the
    # JSON escape it came in as, rather than fail the stream.
    return f"{head}data: {text}\n\n".encode(errors="backslashreplace")  # UTF-8
