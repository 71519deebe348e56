"""OpenAI Responses API (``POST /v1/responses``) <-> core ``ModelRequest`` / output items.

Requests: ``input`` is kept as the core's input (a ``str``, or the list of input items,
which already are the core's normalized item shape; an item without ``type`` that has a
``role`` is an easy input message and gets ``"type": "message"``). ``instructions`` becomes
``system_instructions``, ``tools`` the tools as sent, ``previous_response_id``,
``conversation`` and ``prompt`` their own fields, and every other body field (``model``,
``stream``, ``temperature``, ``tool_choice``, ...) goes in ``model_settings``.

Responses: assistant messages, function calls and any other item pass through with ids
filled in deterministically (``resp_scripted_N``, ``msg_scripted_N_I``). Streams follow the
API's event sequence: ``response.created``, ``response.in_progress``, per item
``response.output_item.added`` ... ``response.output_item.done`` (with content part, text
delta and function call argument events between), then ``response.completed``; every event
carries its ``sequence_number``. A failure after the stream started ends it with
``response.failed`` (the response's ``status`` ``failed``, its ``error`` set, the output
streamed so far), or with an ``error`` event once the response has already ended.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._deltas import text_deltas
from ..items import ModelRequest
from ._common import (
    CREATED_AT,
    InvalidBody,
    WireUsage,
    arguments_text,
    as_list,
    as_mapping,
    item_kind,
    sse,
)

__all__ = ["PATH_SUFFIX", "StreamEncoder", "error_body", "parse_request", "render_response"]

PATH_SUFFIX = "/responses"

_TERMINAL_EVENTS = frozenset({"response.completed", "response.failed", "response.incomplete"})

_NORMALIZED_KEYS = frozenset(
    {"input", "instructions", "tools", "previous_response_id", "conversation", "prompt"}
)

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout",
    409: "conflict",
    422: "invalid_request_error",
    429: "rate_limit_exceeded",
}


def parse_request(body: Mapping[str, Any], *, extra: dict[str, Any] | None = None) -> ModelRequest:
    """Translate a Responses request body into a normalized ``ModelRequest``.

    ``extra`` becomes the request's ``extra`` as it is (the endpoint's wire details).
    """
    raw_input = body.get("input")
    if raw_input is None and body.get("prompt") is None:
        raise InvalidBody("the body has neither 'input' nor 'prompt'")
    if raw_input is None:
        request_input: str | list[Any] = []
    elif isinstance(raw_input, str):
        request_input = raw_input
    elif isinstance(raw_input, list):
        request_input = [_input_item(item) for item in as_list(raw_input)]
    else:
        raise InvalidBody("'input' must be a string or a list of items")
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise InvalidBody("'instructions' must be a string")
    tools: Any = body.get("tools") or []
    if not isinstance(tools, list):
        raise InvalidBody("'tools' must be a list")
    conversation = body.get("conversation")
    conversation_map = as_mapping(conversation)
    if conversation_map is not None:
        conversation = conversation_map.get("id")
    previous = body.get("previous_response_id")
    return ModelRequest(
        input=request_input,
        system_instructions=instructions,
        model_settings={k: v for k, v in body.items() if k not in _NORMALIZED_KEYS},
        tools=list(as_list(tools)),
        previous_response_id=previous if isinstance(previous, str) else None,
        conversation_id=conversation if isinstance(conversation, str) else None,
        prompt=body.get("prompt"),
        extra={} if extra is None else extra,
    )


def _input_item(item: Any) -> Any:
    mapping = as_mapping(item)
    if mapping is not None and "type" not in mapping and "role" in mapping:
        return {"type": "message", **mapping}
    return item


def render_response(
    output: list[Any],
    usage: WireUsage,
    *,
    number: str,
    body: Mapping[str, Any],
    status: str = "completed",
) -> dict[str, Any]:
    """Build the ``response`` object of a completed (or in-progress, empty) response."""
    return {
        "id": _response_id(number),
        "object": "response",
        "created_at": CREATED_AT,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body.get("model"),
        "output": [_output_item(item, number, index) for index, item in enumerate(output)],
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "store": body.get("store", True),
        "temperature": body.get("temperature", 1.0),
        "text": body.get("text", {"format": {"type": "text"}}),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "top_p": body.get("top_p", 1.0),
        "truncation": body.get("truncation", "disabled"),
        "usage": None if status != "completed" else _usage(usage),
        "user": body.get("user"),
        "metadata": body.get("metadata", {}),
    }


def _response_id(number: str) -> str:
    return f"resp_scripted_{number}" if number.isdigit() else number


def _usage(usage: WireUsage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        # The scripted usage has no count of tokens written to the cache: 0, as the
        # Anthropic format's cache_creation_input_tokens (the openai types require it).
        "input_tokens_details": {"cached_tokens": usage.cached_tokens, "cache_write_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


def _output_item(item: Any, number: str, index: int) -> dict[str, Any]:
    mapping = as_mapping(item)
    if mapping is None:
        return {"type": "unknown", "value": repr(item)}
    kind = item_kind(mapping)
    if kind == "message":
        return _message(mapping, number, index)
    if kind == "function_call":
        return _function_call(mapping, number, index)
    # Reasoning, web search, computer calls and others are already Responses items.
    other = {key: value for key, value in mapping.items() if key != "provider_data"}
    other.setdefault("id", f"item_scripted_{number}_{index}")
    return other


def _message(item: Mapping[str, Any], number: str, index: int) -> dict[str, Any]:
    content: list[Any] = []
    raw_content = item.get("content")
    if isinstance(raw_content, str):
        raw_content = [{"type": "output_text", "text": raw_content}]
    for part in as_list(raw_content):
        mapping = as_mapping(part)
        if mapping is None:
            continue
        rendered = {key: value for key, value in mapping.items() if key != "provider_data"}
        if rendered.get("type") == "output_text":
            rendered.setdefault("annotations", [])
            rendered.setdefault("logprobs", [])
        content.append(rendered)
    rendered_message: dict[str, Any] = {
        "id": item.get("id") or f"msg_scripted_{number}_{index}",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": content,
    }
    if item.get("phase") is not None:
        rendered_message["phase"] = item["phase"]
    return rendered_message


def _function_call(item: Mapping[str, Any], number: str, index: int) -> dict[str, Any]:
    call_id = item.get("call_id") or f"call_scripted_{number}_{index}"
    rendered: dict[str, Any] = {
        "id": item.get("id") or f"fc_scripted_{number}_{index}",
        "type": "function_call",
        "status": "completed",
        "call_id": call_id,
        "name": item.get("name"),
        "arguments": arguments_text(item),
    }
    if item.get("namespace") is not None:
        rendered["namespace"] = item["namespace"]
    return rendered


def error_body(
    status: int, message: str, error_type: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """Build the OpenAI error body for an HTTP error status."""
    kind = error_type or _ERROR_TYPES.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code or kind}}


class StreamEncoder:
    """Turn core stream events into the Responses API's server-sent events."""

    def __init__(
        self, *, number: str, body: Mapping[str, Any], text_delta_size: int | None = None
    ) -> None:
        self._number = number
        self._body = body
        self._delta_size = text_delta_size  # a plain step's text, cut as the core cuts it
        self._sequence = 0
        self._started = False
        self._open: dict[str, Any] | None = None  # the message whose text is streaming
        self._streamed: list[dict[str, Any]] = []  # messages streamed as deltas, in order
        self._output_index = 0
        self._ended = False  # a terminal event (completed, failed, incomplete) went out

    def _event(self, kind: str, **fields: Any) -> bytes:
        payload = {"type": kind, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return sse(payload, event=kind)

    def _unfinished(self, status: str) -> dict[str, Any]:
        """Return the response object of a response that has not completed: no usage yet."""
        return render_response([], WireUsage(), number=self._number, body=self._body, status=status)

    def start(self) -> list[bytes]:
        """Open the stream once: ``response.created`` then ``response.in_progress``."""
        if self._started:
            return []
        self._started = True
        snapshot = self._unfinished("in_progress")
        return [
            self._event("response.created", response=snapshot),
            self._event("response.in_progress", response=snapshot),
        ]

    def text(self, delta: str, item_id: str | None) -> list[bytes]:
        """Stream a text delta, opening an assistant message for it if needed."""
        if self._open is not None and item_id is not None and self._open["id"] != item_id:
            chunks = self._close_message()  # a message is open: the stream has started
        else:
            chunks = self.start()
        if self._open is None:
            item_id = item_id or f"msg_scripted_{self._number}_{self._output_index}"
            self._open = {"id": item_id, "text": "", "output_index": self._output_index}
            self._output_index += 1
            chunks.append(
                self._event(
                    "response.output_item.added",
                    output_index=self._open["output_index"],
                    item={
                        "id": item_id,
                        "type": "message",
                        "status": "in_progress",
                        "role": "assistant",
                        "content": [],
                    },
                )
            )
            chunks.append(
                self._event(
                    "response.content_part.added",
                    item_id=item_id,
                    output_index=self._open["output_index"],
                    content_index=0,
                    part={"type": "output_text", "text": "", "annotations": [], "logprobs": []},
                )
            )
        self._open["text"] += delta
        chunks.append(
            self._event(
                "response.output_text.delta",
                item_id=self._open["id"],
                output_index=self._open["output_index"],
                content_index=0,
                delta=delta,
                logprobs=[],
            )
        )
        return chunks

    def _close_message(self) -> list[bytes]:
        message = self._open
        if message is None:
            return []
        self._open = None
        self._streamed.append(message)
        part: dict[str, Any] = {
            "type": "output_text",
            "text": message["text"],
            "annotations": [],
            "logprobs": [],
        }
        item: dict[str, Any] = {
            "id": message["id"],
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [part],
        }
        index = message["output_index"]
        return [
            self._event(
                "response.output_text.done",
                item_id=message["id"],
                output_index=index,
                content_index=0,
                text=message["text"],
                logprobs=[],
            ),
            self._event(
                "response.content_part.done",
                item_id=message["id"],
                output_index=index,
                content_index=0,
                part=part,
            ),
            self._event("response.output_item.done", output_index=index, item=item),
        ]

    def raw(self, event: Mapping[str, Any]) -> list[bytes]:
        """Send a scripted provider event verbatim (its sequence number filled in)."""
        self._started = True  # a scripted event stream is exact: it brings its own start
        kind = event.get("type")
        self._ended = self._ended or (isinstance(kind, str) and kind in _TERMINAL_EVENTS)
        payload = dict(event)
        payload.setdefault("sequence_number", self._sequence)
        self._sequence += 1
        return [sse(payload, event=kind if isinstance(kind, str) else None)]

    def finish(self, output: list[Any], usage: WireUsage) -> list[bytes]:
        """Stream the items not streamed yet, then ``response.completed``."""
        chunks = self.start() + self._close_message()
        # The messages streamed as text took the first output indexes, so they come first in
        # the output, as the API orders it; each stands for one message of the final output,
        # which is not sent again.
        final = [_completed_message(message) for message in self._streamed]
        repeated = len(final)
        for item in output:
            if repeated and item_kind(item) == "message":
                repeated -= 1
                continue
            rendered = _output_item(item, self._number, self._output_index)
            chunks += self._item(rendered, self._output_index)
            self._output_index += 1
            final.append(rendered)
        response = render_response([], usage, number=self._number, body=self._body)
        response["output"] = final
        chunks.append(self._event("response.completed", response=response))
        self._ended = True
        return chunks

    def _item(self, item: dict[str, Any], index: int) -> list[bytes]:
        kind = item.get("type")
        item_id = item.get("id")
        if kind == "message":
            added: dict[str, Any] = {**item, "status": "in_progress", "content": []}
            chunks = [self._event("response.output_item.added", output_index=index, item=added)]
            for part_index, part in enumerate(item["content"]):
                text = part.get("text", "") if part.get("type") == "output_text" else None
                empty = {**part, "text": ""} if text is not None else part
                chunks.append(
                    self._event(
                        "response.content_part.added",
                        item_id=item_id,
                        output_index=index,
                        content_index=part_index,
                        part=empty,
                    )
                )
                if text is not None:
                    pieces = (
                        text_deltas(text, self._delta_size) if isinstance(text, str) else [text]
                    )
                    chunks.extend(
                        self._event(
                            "response.output_text.delta",
                            item_id=item_id,
                            output_index=index,
                            content_index=part_index,
                            delta=piece,
                            logprobs=[],
                        )
                        for piece in pieces
                    )
                    chunks.append(
                        self._event(
                            "response.output_text.done",
                            item_id=item_id,
                            output_index=index,
                            content_index=part_index,
                            text=text,
                            logprobs=[],
                        )
                    )
                chunks.append(
                    self._event(
                        "response.content_part.done",
                        item_id=item_id,
                        output_index=index,
                        content_index=part_index,
                        part=part,
                    )
                )
            chunks.append(self._event("response.output_item.done", output_index=index, item=item))
            return chunks
        if kind == "function_call":
            added = {**item, "status": "in_progress", "arguments": ""}
            return [
                self._event("response.output_item.added", output_index=index, item=added),
                self._event(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=index,
                    delta=item["arguments"],
                ),
                self._event(
                    "response.function_call_arguments.done",
                    item_id=item_id,
                    output_index=index,
                    name=item["name"],
                    arguments=item["arguments"],
                ),
                self._event("response.output_item.done", output_index=index, item=item),
            ]
        return [
            self._event("response.output_item.added", output_index=index, item=item),
            self._event("response.output_item.done", output_index=index, item=item),
        ]

    def fail(
        self, status: int, message: str, error_type: str | None = None, code: str | None = None
    ) -> list[bytes]:
        """End the started stream as the live API ends a response that fails midway.

        While the response is open that is ``response.failed``: the response object with
        ``status`` ``failed``, the error under ``error`` and the output streamed so far (a
        message cut off mid-text keeps ``in_progress``, as its events left it). The clients
        hand this event to the caller rather than raise it, as they do with the live API.
        Once the response has ended, the failure belongs to the stream, not the response:
        it goes out as the ``error`` event, whose error object the ``openai`` clients raise
        as ``APIError``; the event carries both the live API's nested ``error`` and the
        reference's top-level ``code``/``message``/``param``.
        """
        body = error_body(status, message, error_type, code)["error"]
        chunks = self.start()
        if self._ended:
            failure = self._event(
                "error", code=body["code"], message=message, param=None, error=body
            )
            return [*chunks, failure]
        self._ended = True
        output = [_completed_message(streamed) for streamed in self._streamed]
        if self._open is not None:
            output.append({**_completed_message(self._open), "status": "in_progress"})
        response = self._unfinished("failed")
        response["output"] = output
        response["error"] = {
            "code": body["code"],
            "message": message,
            "param": None,
            "type": body["type"],
        }
        return [*chunks, self._event("response.failed", response=response)]


def _completed_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """Return the completed output item of a message whose text was streamed."""
    return {
        "id": message["id"],
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [
            {"type": "output_text", "text": message["text"], "annotations": [], "logprobs": []}
        ],
    }
