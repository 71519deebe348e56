"""Short one-line descriptions of calls, items and steps, for error messages.

A failing test should say what drifted without a debugger, but a message that prints a
whole conversation is unreadable: every text here is cut to ``LIMIT`` characters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from .items import ModelRequest

LIMIT = 60


def shorten(text: str, limit: int = LIMIT) -> str:
    """Return ``text`` on one line, cut to ``limit`` characters with a trailing ``...``."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def value(data: Any, limit: int = LIMIT) -> str:
    """Return a short ``repr`` of ``data``."""
    try:
        text = repr(data)
    except Exception:  # a broken __repr__ must not hide the error being reported
        text = f"<{type(data).__name__}>"
    return shorten(text, limit)


def item(entry: Any) -> str:
    """Describe one normalized input or output item: its type and what identifies it."""
    if not isinstance(entry, Mapping):
        return type(entry).__name__
    fields = cast("Mapping[str, Any]", entry)
    kind = fields.get("type")
    role = fields.get("role")
    if kind in (None, "message") and isinstance(role, str):
        text = _text(fields.get("content"))
        return f"{role} message" + ("" if text is None else f" {value(text, 40)}")
    if not isinstance(kind, str):
        return "item without a type"
    name = fields.get("name")
    if kind.endswith("_call") and isinstance(name, str):
        arguments = fields.get("arguments")
        shown = shorten(arguments, 30) if isinstance(arguments, str) else ""
        return f"{kind} {name}({shown})"
    if kind.endswith("_call_output"):
        return f"{kind} {fields.get('call_id')} {value(fields.get('output'), 30)}"
    return kind


def request(call: ModelRequest) -> str:
    """Describe a model request by its last input item and the tools it offered."""
    entries: Sequence[Any] = [call.input] if isinstance(call.input, str) else call.input
    if not entries:
        last = "no input"
    elif isinstance(entries[-1], str):
        last = f"last input {value(entries[-1], 40)}"
    else:
        last = f"last input {item(entries[-1])}"
    try:
        names = call.tool_names
    except Exception:  # a tool with a broken name attribute must not hide the error
        names = ()
    tools = f"tools [{shorten(', '.join(names))}]" if names else "no tools"
    return f"{last}; {tools}"


def output(entries: Sequence[Any]) -> str:
    """Describe a scripted response by its first output item and how many follow."""
    if not entries:
        return "no output items"
    first = item(entries[0])
    more = len(entries) - 1
    return first if more == 0 else f"{first} +{more} more"


def call(method: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    """Describe a method call with its arguments, shortened."""
    shown = [value(argument, 40) for argument in args]
    shown += [f"{key}={value(argument, 40)}" for key, argument in kwargs.items()]
    return shorten(f"{method}({', '.join(shown)})", 2 * LIMIT)


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[Any] = content  # pyright: ignore[reportUnknownVariableType]
        texts = [
            cast("Mapping[str, Any]", part).get("text")
            for part in parts
            if isinstance(part, Mapping)
        ]
        return "".join(text for text in texts if isinstance(text, str))
    return None
