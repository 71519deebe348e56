"""Anthropic Messages (``POST /v1/messages``) <-> core ``ModelRequest`` / output items.

Requests: ``system`` (a string or text blocks) becomes ``system_instructions``. A user
message with string content becomes ``{"type": "message", "role": "user", "content": ...}``;
with blocks, its ``text`` blocks become ``input_text`` parts of a user message and each
``tool_result`` block a ``{"type": "function_call_output", "call_id", "output"}`` item, in
block order. An assistant message's ``text`` blocks become assistant message items and its
``tool_use`` blocks ``function_call`` items (``arguments`` the block's ``input`` as compact
JSON); other blocks (``thinking``, images, ...) are kept as sent. ``tools`` holds the tools
as sent; every other body field (``model``, ``max_tokens``, ``stream``, ...) goes in
``model_settings``.

Responses: assistant messages become ``text`` blocks and function calls ``tool_use`` blocks
(``stop_reason`` ``tool_use`` when there are any, else ``end_turn``); a ``thinking`` or
``redacted_thinking`` item (a recorded block) is sent as it is, streamed as its
``thinking_delta`` and ``signature_delta``. Streams follow the
API's event sequence: ``message_start``, ``ping``, per block ``content_block_start`` /
``content_block_delta`` (``text_delta`` or ``input_json_delta``) / ``content_block_stop``,
then ``message_delta`` with the stop reason and usage, and ``message_stop``.

Usage: the core's ``input_tokens`` counts cached tokens too; Anthropic's leaves them out, so
a message's ``input_tokens`` is the core count minus the cached tokens (never below 0) and
``cache_read_input_tokens`` the cached tokens, which clients add back to the same total.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._deltas import text_deltas
from ..items import ModelRequest, assistant_message, function_call
from ._common import (
    InvalidBody,
    UnsupportedOutput,
    WireUsage,
    arguments_text,
    as_list,
    as_mapping,
    item_kind,
    message_text,
    sse,
)

__all__ = ["PATH_SUFFIX", "StreamEncoder", "error_body", "parse_request", "render_response"]

PATH_SUFFIX = "/messages"

_NORMALIZED_KEYS = frozenset({"messages", "system", "tools"})

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def parse_request(body: Mapping[str, Any], *, extra: dict[str, Any] | None = None) -> ModelRequest:
    """Translate a Messages request body into a normalized ``ModelRequest``.

    ``extra`` becomes the request's ``extra`` as it is (the endpoint's wire details).
    """
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise InvalidBody("'messages' must be a list of messages")
    items: list[Any] = []
    for position, raw in enumerate(as_list(messages)):
        message = as_mapping(raw)
        if message is None or message.get("role") not in ("user", "assistant"):
            raise InvalidBody(f"messages[{position}] must have role 'user' or 'assistant'")
        content = message.get("content")
        if isinstance(content, str):
            if message["role"] == "user":
                items.append({"type": "message", "role": "user", "content": content})
            else:
                items.append(assistant_message(content))
        elif isinstance(content, list):
            items.extend(_block_items(message["role"], as_list(content), position))
        else:
            raise InvalidBody(f"messages[{position}].content must be a string or a list")
    tools: Any = body.get("tools") or []
    if not isinstance(tools, list):
        raise InvalidBody("'tools' must be a list")
    system = body.get("system")
    return ModelRequest(
        input=items,
        system_instructions=None if system is None else _text(system),
        model_settings={k: v for k, v in body.items() if k not in _NORMALIZED_KEYS},
        tools=list(as_list(tools)),
        extra={} if extra is None else extra,
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        blocks = [as_mapping(block) for block in as_list(content)]
        return "".join(
            b["text"] for b in blocks if b is not None and isinstance(b.get("text"), str)
        )
    return ""


def _block_items(role: str, blocks: list[Any], position: int) -> list[Any]:
    items: list[Any] = []
    parts: list[Any] = []  # the user's text/image parts waiting to form one message

    def flush() -> None:
        if parts:
            items.append({"type": "message", "role": "user", "content": list(parts)})
            parts.clear()

    for raw in blocks:
        block = as_mapping(raw)
        if block is None:
            raise InvalidBody(f"messages[{position}].content blocks must be objects")
        kind = block.get("type")
        if role == "user" and kind == "text":
            parts.append({"type": "input_text", "text": block.get("text")})
        elif role == "user" and kind == "tool_result":
            flush()
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": block.get("tool_use_id"),
                    "output": _text(block.get("content")),
                }
            )
        elif role == "user":
            parts.append(dict(block))
        elif kind == "text":
            text = block.get("text")
            items.append(assistant_message(text if isinstance(text, str) else ""))
        elif kind == "tool_use":
            items.append(
                function_call(
                    str(block.get("name")), block.get("input", {}), call_id=str(block.get("id"))
                )
            )
        else:
            items.append(dict(block))
    flush()
    return items


# Extended thinking's blocks: an output item of one of these types is sent as it is.
_THINKING_BLOCKS = ("thinking", "redacted_thinking")


def _message_id(number: str) -> str:
    return f"msg_scripted_{number}" if number.isdigit() else number


def _blocks(output: list[Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for item in output:
        mapping = as_mapping(item)
        kind = item_kind(mapping)
        if kind == "message" and mapping is not None:
            blocks.append({"type": "text", "text": message_text(mapping)})
        elif kind == "function_call" and mapping is not None:
            arguments = arguments_text(mapping)
            try:
                tool_input = json.loads(arguments)
            except ValueError:
                raise UnsupportedOutput(
                    f"tool_use input must be a JSON object, got arguments {arguments!r}"
                ) from None
            if not isinstance(tool_input, dict):
                raise UnsupportedOutput(
                    f"tool_use input must be a JSON object, got arguments {arguments!r}"
                )
            blocks.append(
                {
                    "type": "tool_use",
                    "id": mapping.get("call_id"),
                    "name": mapping.get("name"),
                    "input": tool_input,
                }
            )
        elif kind in _THINKING_BLOCKS and mapping is not None:
            blocks.append(dict(mapping))  # a recorded thinking block, sent back as it came
        else:
            raise UnsupportedOutput(
                f"Anthropic Messages has no output item of type {kind or type(item).__name__!r}"
            )
    return blocks


def _usage(usage: WireUsage) -> dict[str, Any]:
    # The core's input count includes the cached tokens (as OpenAI's does); Anthropic's
    # ``input_tokens`` leaves cache reads out, and clients add the two back together.
    return {
        "input_tokens": max(usage.input_tokens - usage.cached_tokens, 0),
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": usage.cached_tokens,
    }


def _stop_reason(blocks: list[dict[str, Any]]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


def render_response(
    output: list[Any], usage: WireUsage, *, number: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    """Build a Messages ``message`` object from scripted output items."""
    blocks = _blocks(output)
    return {
        "id": _message_id(number),
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": blocks,
        "stop_reason": _stop_reason(blocks),
        "stop_sequence": None,
        "usage": _usage(usage),
    }


def error_body(
    status: int, message: str, error_type: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """Build the Anthropic error body for an HTTP error status."""
    del code  # Anthropic errors carry a type, not a code
    kind = error_type or _ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


class StreamEncoder:
    """Turn core stream events into the Messages API's server-sent events."""

    def __init__(
        self, *, number: str, body: Mapping[str, Any], text_delta_size: int | None = None
    ) -> None:
        self._number = number
        self._body = body
        self._delta_size = text_delta_size  # a plain step's text, cut as the core cuts it
        self._started = False
        self._open_text: int | None = None  # index of the text block now streaming
        self._texts = 0  # text blocks streamed as deltas
        self._index = 0

    @staticmethod
    def _event(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, **fields}, event=kind)

    def start(self) -> list[bytes]:
        """Open the stream once: ``message_start`` then ``ping``."""
        if self._started:
            return []
        self._started = True
        message: dict[str, Any] = {
            "id": _message_id(self._number),
            "type": "message",
            "role": "assistant",
            "model": self._body.get("model"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": _usage(WireUsage()),
        }
        return [self._event("message_start", message=message), self._event("ping")]

    def text(self, delta: str, item_id: str | None) -> list[bytes]:
        """Stream a text delta into the open text block, opening one if needed."""
        del item_id  # Anthropic blocks are addressed by index
        chunks = self.start()
        if self._open_text is None:
            self._open_text = self._index
            self._index += 1
            self._texts += 1
            chunks.append(
                self._event(
                    "content_block_start",
                    index=self._open_text,
                    content_block={"type": "text", "text": ""},
                )
            )
        chunks.append(
            self._event(
                "content_block_delta",
                index=self._open_text,
                delta={"type": "text_delta", "text": delta},
            )
        )
        return chunks

    def _close_text(self) -> list[bytes]:
        if self._open_text is None:
            return []
        index, self._open_text = self._open_text, None
        return [self._event("content_block_stop", index=index)]

    def raw(self, event: Mapping[str, Any]) -> list[bytes]:
        """Send a scripted provider event verbatim."""
        # A scripted event stream is exact: it brings its own message_start.
        self._started = True
        kind = event.get("type")
        return [sse(dict(event), event=kind if isinstance(kind, str) else None)]

    def finish(self, output: list[Any], usage: WireUsage) -> list[bytes]:
        """Stream the blocks not streamed yet, then ``message_delta`` and ``message_stop``."""
        chunks = self.start() + self._close_text()
        skip = self._texts
        remaining: list[Any] = []
        for item in output:
            if skip and item_kind(item) == "message":
                skip -= 1  # its text already went out as deltas
                continue
            remaining.append(item)
        blocks = _blocks(remaining)
        for block in blocks:
            index = self._index
            self._index += 1
            if block["type"] == "text":
                chunks.append(
                    self._event(
                        "content_block_start",
                        index=index,
                        content_block={"type": "text", "text": ""},
                    )
                )
                chunks.extend(
                    self._event(
                        "content_block_delta",
                        index=index,
                        delta={"type": "text_delta", "text": piece},
                    )
                    for piece in text_deltas(block["text"], self._delta_size)
                )
            elif block["type"] in _THINKING_BLOCKS:
                chunks.extend(self._thinking(index, block))
            else:
                chunks.append(
                    self._event(
                        "content_block_start",
                        index=index,
                        content_block={
                            "type": "tool_use",
                            "id": block["id"],
                            "name": block["name"],
                            "input": {},
                        },
                    )
                )
                chunks.append(
                    self._event(
                        "content_block_delta",
                        index=index,
                        delta={
                            "type": "input_json_delta",
                            "partial_json": json.dumps(block["input"]),
                        },
                    )
                )
            chunks.append(self._event("content_block_stop", index=index))
        streamed_tool = any(block["type"] == "tool_use" for block in blocks)
        chunks.append(
            self._event(
                "message_delta",
                delta={
                    "stop_reason": "tool_use" if streamed_tool else "end_turn",
                    "stop_sequence": None,
                },
                usage=_usage(usage),
            )
        )
        chunks.append(self._event("message_stop"))
        return chunks

    def _thinking(self, index: int, block: Mapping[str, Any]) -> list[bytes]:
        """Stream a thinking block as the API does: its text, then its signature."""
        if block["type"] != "thinking":  # redacted_thinking arrives whole in its start event
            return [self._event("content_block_start", index=index, content_block=dict(block))]
        chunks = [
            self._event(
                "content_block_start",
                index=index,
                content_block={"type": "thinking", "thinking": "", "signature": ""},
            )
        ]
        thinking, signature = block.get("thinking"), block.get("signature")
        if isinstance(thinking, str) and thinking:
            chunks.append(
                self._event(
                    "content_block_delta",
                    index=index,
                    delta={"type": "thinking_delta", "thinking": thinking},
                )
            )
        if isinstance(signature, str) and signature:
            chunks.append(
                self._event(
                    "content_block_delta",
                    index=index,
                    delta={"type": "signature_delta", "signature": signature},
                )
            )
        return chunks

    def fail(
        self, status: int, message: str, error_type: str | None = None, code: str | None = None
    ) -> list[bytes]:
        """End a started stream with the ``error`` event the Anthropic clients raise."""
        del code  # Anthropic errors carry a type, not a code
        return [*self.start(), sse(error_body(status, message, error_type), event="error")]
