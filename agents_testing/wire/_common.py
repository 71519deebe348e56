"""Pieces the three wire formats share: usage numbers, item reading, SSE framing, ids."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from ..items import ModelResponse, Usage

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

_SCRIPTED_ID = re.compile(r"scripted-response-(\d+)")


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
            return cls()
        if isinstance(usage, Usage):
            fields: Mapping[str, Any] = {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.total_tokens,
                "input_tokens_details": usage.input_tokens_details,
                "output_tokens_details": usage.output_tokens_details,
            }
        else:
            fields = usage
        input_tokens = _int(fields.get("input_tokens"))
        output_tokens = _int(fields.get("output_tokens"))
        total = fields.get("total_tokens")
        return cls(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens if total is None else _int(total),
            cached_tokens=_detail_sum(fields.get("input_tokens_details"), "cached_tokens"),
            reasoning_tokens=_detail_sum(fields.get("output_tokens_details"), "reasoning_tokens"),
        )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _detail_sum(details: Any, key: str) -> int:
    if isinstance(details, Mapping):
        details = [details]
    if not isinstance(details, list):
        return 0
    entries = as_list(details)
    return sum(
        _int(cast("Mapping[str, Any]", d).get(key)) for d in entries if isinstance(d, Mapping)
    )


def call_number(response: ModelResponse, fallback: int) -> str:
    """Return the one-based call number a response's wire ids are built from.

    The core names unnamed responses ``scripted-response-N``; a response id the script set
    itself is kept verbatim.
    """
    response_id = response.response_id
    if response_id is None:
        return str(fallback)
    match = _SCRIPTED_ID.fullmatch(response_id)
    return match.group(1) if match else response_id


def as_list(value: Any) -> list[Any]:
    """Return ``value`` if it is a list, else an empty list."""
    found: list[Any] = value if isinstance(value, list) else []  # pyright: ignore[reportUnknownVariableType]
    return found


def as_mapping(value: Any) -> Mapping[str, Any] | None:
    """Return ``value`` as a string-keyed mapping, or ``None`` if it is not one."""
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


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


def dumps(value: Any) -> str:
    """Serialize compactly, as the providers do."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sse(data: Any, event: str | None = None) -> bytes:
    """Frame one server-sent event; ``data`` is JSON-encoded unless it is already a str."""
    text = data if isinstance(data, str) else dumps(data)
    head = f"event: {event}\n" if event is not None else ""
    # A lone surrogate (JSON allows one, escaped) cannot be UTF-8: write it back as the
    # JSON escape it came in as, rather than fail the stream.
    return f"{head}data: {text}\n\n".encode("utf-8", "backslashreplace")
