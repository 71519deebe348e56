"""OpenAI Chat Completions (``POST /v1/chat/completions``) <-> core request / output items.

Requests: leading ``system``/``developer`` messages become ``system_instructions`` (joined
by a blank line); later ones stay in ``input`` as message items with their role. ``user``
messages become ``{"type": "message", "role": "user", "content": ...}`` with the content as
sent; an ``assistant`` message becomes an assistant message item for its text, then one
``function_call`` item per tool call (``arguments`` the string as sent); a ``tool`` message
becomes ``{"type": "function_call_output", "call_id", "output"}``. ``tools`` holds the
tools as sent; every other body field goes in ``model_settings``.

Responses: one choice whose message joins the text of the scripted assistant messages and
carries one ``tool_calls`` entry per ``function_call`` item (``finish_reason``
``tool_calls`` when there are any, else ``stop``). Streams send ``chat.completion.chunk``
objects: the role, text deltas, each tool call's id and name then its arguments, the finish
reason, the usage chunk when ``stream_options.include_usage`` is set, then ``[DONE]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._deltas import text_deltas
from ..items import ModelRequest, assistant_message, function_call
from ._common import (
    CREATED_AT,
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

PATH_SUFFIX = "/chat/completions"

_NORMALIZED_KEYS = frozenset({"messages", "tools"})

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


def parse_request(body: Mapping[str, Any], *, extra: dict[str, Any] | None = None) -> ModelRequest:
    """Translate a Chat Completions request body into a normalized ``ModelRequest``.

    ``extra`` becomes the request's ``extra`` as it is (the endpoint's wire details).
    """
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise InvalidBody("'messages' must be a list of messages")
    system: list[str] = []
    items: list[Any] = []
    for position, raw in enumerate(as_list(messages)):
        message = as_mapping(raw)
        if message is None or not isinstance(message.get("role"), str):
            raise InvalidBody(f"messages[{position}] must be an object with a 'role'")
        role = message["role"]
        if role in ("system", "developer") and not items:
            system.append(_text(message.get("content")))
        elif role == "assistant":
            items.extend(_assistant_items(message, position))
        elif role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.get("tool_call_id"),
                    "output": _text(message.get("content")),
                }
            )
        else:
            items.append({"type": "message", "role": role, "content": message.get("content")})
    tools: Any = body.get("tools") or []
    if not isinstance(tools, list):
        raise InvalidBody("'tools' must be a list")
    return ModelRequest(
        input=items,
        system_instructions="\n\n".join(system) if system else None,
        model_settings={k: v for k, v in body.items() if k not in _NORMALIZED_KEYS},
        tools=list(as_list(tools)),
        extra={} if extra is None else extra,
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [as_mapping(part) for part in as_list(content)]
        return "".join(
            part["text"] for part in parts if part is not None and isinstance(part.get("text"), str)
        )
    return ""


def _assistant_items(message: Mapping[str, Any], position: int) -> list[Any]:
    items: list[Any] = []
    text = _text(message.get("content"))
    if text:
        items.append(assistant_message(text))
    calls: Any = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise InvalidBody(f"messages[{position}].tool_calls must be a list")
    for raw in as_list(calls):
        call = as_mapping(raw)
        function = as_mapping(call.get("function")) if call is not None else None
        if call is None or function is None or not isinstance(call.get("id"), str):
            raise InvalidBody(f"messages[{position}].tool_calls entries need 'id' and 'function'")
        arguments = function.get("arguments")
        items.append(
            function_call(
                str(function.get("name")),
                arguments if isinstance(arguments, str) else "{}",
                call_id=call["id"],
            )
        )
    return items


def _completion_id(number: str) -> str:
    return f"chatcmpl-scripted-{number}" if number.isdigit() else number


def _split(output: list[Any]) -> tuple[str | None, list[dict[str, Any]]]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in output:
        kind = item_kind(item)
        mapping = as_mapping(item)
        if kind == "message" and mapping is not None:
            texts.append(message_text(mapping))
        elif kind == "function_call" and mapping is not None:
            calls.append(
                {
                    "id": mapping.get("call_id"),
                    "type": "function",
                    "function": {"name": mapping.get("name"), "arguments": arguments_text(mapping)},
                }
            )
        else:
            raise UnsupportedOutput(
                f"Chat Completions has no output item of type {kind or type(item).__name__!r}"
            )
    return ("".join(texts) if texts else None), calls


def _usage(usage: WireUsage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
    }


def render_response(
    output: list[Any], usage: WireUsage, *, number: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    """Build a ``chat.completion`` object from scripted output items."""
    text, calls = _split(output)
    message: dict[str, Any] = {
        "role": "assistant",
        "content": text,
        "refusal": None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = calls
    return {
        "id": _completion_id(number),
        "object": "chat.completion",
        "created": CREATED_AT,
        "model": body.get("model"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
        "usage": _usage(usage),
        "service_tier": "default",
        "system_fingerprint": None,
    }


def error_body(
    status: int, message: str, error_type: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """Build the OpenAI error body for an HTTP error status."""
    kind = error_type or _ERROR_TYPES.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code or kind}}


class StreamEncoder:
    """Turn core stream events into ``chat.completion.chunk`` server-sent events."""

    def __init__(
        self, *, number: str, body: Mapping[str, Any], text_delta_size: int | None = None
    ) -> None:
        self._number = number
        self._body = body
        self._delta_size = text_delta_size  # a plain step's text, cut as the core cuts it
        options = as_mapping(body.get("stream_options"))
        self._include_usage = options is not None and options.get("include_usage") is True
        self._started = False
        self._text_streamed = False

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        chunk: dict[str, Any] = {
            "id": _completion_id(self._number),
            "object": "chat.completion.chunk",
            "created": CREATED_AT,
            "model": self._body.get("model"),
            "system_fingerprint": None,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }
        if self._include_usage:
            chunk["usage"] = None
        return sse(chunk)

    def start(self) -> list[bytes]:
        """Open the stream once with the assistant role chunk."""
        if self._started:
            return []
        self._started = True
        return [self._chunk({"role": "assistant", "content": "", "refusal": None})]

    def text(self, delta: str, item_id: str | None) -> list[bytes]:
        """Send a text delta."""
        del item_id  # one choice holds all text: chat chunks have no item ids
        self._text_streamed = True
        return [*self.start(), self._chunk({"content": delta})]

    def raw(self, event: Mapping[str, Any]) -> list[bytes]:
        """Send a scripted chunk verbatim."""
        self._started = True  # a scripted chunk stream is exact: no role chunk is added
        return [sse(dict(event))]

    def finish(self, output: list[Any], usage: WireUsage) -> list[bytes]:
        """Send what was not streamed yet, the finish reason, the usage, then ``[DONE]``."""
        chunks = self.start()
        # Text already streamed as deltas is not sent again.
        remaining = [item for item in output if item_kind(item) != "message"]
        if not self._text_streamed:
            remaining = list(output)
        text, calls = _split(remaining)
        if text:
            chunks += [
                self._chunk({"content": piece}) for piece in text_deltas(text, self._delta_size)
            ]
        for index, call in enumerate(calls):
            chunks.append(
                self._chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call["id"],
                                "type": "function",
                                "function": {"name": call["function"]["name"], "arguments": ""},
                            }
                        ]
                    }
                )
            )
            chunks.append(
                self._chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "function": {"arguments": call["function"]["arguments"]},
                            }
                        ]
                    }
                )
            )
        chunks.append(self._chunk({}, "tool_calls" if calls else "stop"))
        if self._include_usage:
            chunks.append(
                sse(
                    {
                        "id": _completion_id(self._number),
                        "object": "chat.completion.chunk",
                        "created": CREATED_AT,
                        "model": self._body.get("model"),
                        "system_fingerprint": None,
                        "choices": [],
                        "usage": _usage(usage),
                    }
                )
            )
        chunks.append(sse("[DONE]"))
        return chunks

    def fail(
        self, status: int, message: str, error_type: str | None = None, code: str | None = None
    ) -> list[bytes]:
        """End a started stream with an error the OpenAI clients raise."""
        return [*self.start(), sse(error_body(status, message, error_type, code))]
