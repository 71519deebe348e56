"""Read a provider's HTTP answer back into the scripted step it amounts to.

The reverse of the three wire format modules: a Responses, Chat Completions or Messages
response body (or the server-sent events of a stream) becomes output items built with the
library's own helpers, a ``Usage`` and the response id; an HTTP error becomes a
``ScriptedHTTPError``. A stream that did not complete (it failed midway, or the format's
end event never came) has no plain step: it is kept as its exact events.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ScriptedHTTPError
from ..items import Usage, assistant_message, function_call
from . import anthropic_messages, openai_chat, openai_responses
from ._common import as_list, as_mapping

__all__ = [
    "WIRE_FORMATS",
    "ReadStep",
    "read_answer",
    "read_response_body",
    "sse_events",
    "wire_format_of",
]

# The wire format of a request path, by the path's ending (as the endpoint routes them).
WIRE_FORMATS: tuple[tuple[str, str], ...] = (
    ("/chat/completions", "openai.chat_completions"),
    ("/responses", "openai.responses"),
    ("/messages", "anthropic.messages"),
)

_ERROR_BODIES: dict[str, Any] = {
    "openai.chat_completions": openai_chat.error_body,
    "openai.responses": openai_responses.error_body,
    "anthropic.messages": anthropic_messages.error_body,
}

_THINKING_BLOCKS = ("thinking", "redacted_thinking")
_THINKING_NOTE = (
    "its stream holds Anthropic thinking blocks: kept as its exact events (model_stream), "
    "so the replay streams them before the text, as the provider did"
)

_CORE_EVENT_TYPES = frozenset({"response_started", "output_text_delta", "response_done", "model"})


@dataclass(frozen=True)
class ReadStep:
    """What one provider answer amounts to as a scripted step."""

    kind: Literal["response", "error", "stream"]
    output: list[Any] = field(default_factory=list[Any])
    usage: Usage | None = None
    response_id: str | None = None
    error: ScriptedHTTPError | None = None
    events: list[Any] = field(default_factory=list[Any])
    note: str | None = None  # what the step cannot hold, for the file's header


def wire_format_of(path: str) -> str | None:
    """Return the wire format a request path is served as, or ``None``."""
    path = path.partition("?")[0].rstrip("/")
    for suffix, name in WIRE_FORMATS:
        if path.endswith(suffix):
            return name
    return None


def sse_events(text: str) -> list[Any]:
    """Return the JSON data of each server-sent event in ``text``, ``[DONE]`` dropped."""
    events: list[Any] = []
    for block in text.replace("\r\n", "\n").replace("\r", "\n").split("\n\n"):
        data = [
            line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")
        ]
        if not data:
            continue
        try:
            events.append(json.loads("\n".join(data)))
        except (ValueError, RecursionError):
            continue  # "[DONE]" and other non-JSON sentinels carry no step data
    return events


def read_answer(
    wire_format: str,
    status: int,
    headers: Iterable[tuple[str, str]],
    body: str,
    *,
    streamed: bool,
    keep_events: bool = False,
) -> ReadStep | None:
    """Return the step one answer amounts to, or ``None`` when it cannot be read."""
    if status >= 400:
        return ReadStep("error", error=_http_error(wire_format, status, headers, body))
    if streamed:
        events = sse_events(body)
        exact = ReadStep("stream", events=[_exact(event) for event in events])
        if keep_events:
            return exact
        stream_reader = {
            "openai.responses": _responses_stream,
            "openai.chat_completions": _chat_stream,
            "anthropic.messages": _messages_stream,
        }[wire_format]
        read = stream_reader(events)
        if read is not None and any(
            (as_mapping(item) or {}).get("type") in _THINKING_BLOCKS for item in read.output
        ):
            # A plain step streams its text before anything else, which would put the
            # thinking after the text it preceded: the exact events keep their order.
            return ReadStep("stream", events=exact.events, note=_THINKING_NOTE)
        return read or exact
    try:
        parsed = as_mapping(json.loads(body))
    except (ValueError, RecursionError):
        return None
    if parsed is None:
        return None
    return read_response_body(wire_format, parsed)


def read_response_body(wire_format: str, body: Mapping[str, Any]) -> ReadStep:
    """Return the step a successful response body of ``wire_format`` amounts to."""
    reader = {
        "openai.responses": _responses_body,
        "openai.chat_completions": _chat_body,
        "anthropic.messages": _messages_body,
    }[wire_format]
    return reader(body)


def _exact(event: Any) -> Any:
    mapping = as_mapping(event)
    kind = None if mapping is None else mapping.get("type")
    if isinstance(kind, str) and kind not in _CORE_EVENT_TYPES:
        return event  # a provider event goes out verbatim on replay
    return {"type": "model", "event": event}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _usage(
    input_tokens: Any,
    output_tokens: Any,
    total_tokens: Any = None,
    cached: Any = None,
    reasoning: Any = None,
) -> Usage:
    inputs, outputs = _int(input_tokens), _int(output_tokens)
    counted = isinstance(total_tokens, int) and not isinstance(total_tokens, bool)
    total = total_tokens if counted else inputs + outputs  # true is no count
    return Usage(
        input_tokens=inputs,
        output_tokens=outputs,
        total_tokens=total,
        input_tokens_details={"cached_tokens": _int(cached)} if _int(cached) else None,
        output_tokens_details={"reasoning_tokens": _int(reasoning)} if _int(reasoning) else None,
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# -- HTTP errors ---------------------------------------------------------------------------


def _retry_after(headers: Iterable[tuple[str, str]]) -> float | None:
    found = {key.lower(): value for key, value in headers}
    for key, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = found.get(key)
        if raw is None:
            continue
        try:
            seconds = float(raw) / scale
        except ValueError:
            continue  # an HTTP date: no delay a script can replay
        if 0 <= seconds < float("inf"):
            return int(seconds) if seconds.is_integer() else seconds
    return None


def _http_error(
    wire_format: str, status: int, headers: Iterable[tuple[str, str]], body: str
) -> ScriptedHTTPError:
    headers = list(headers)
    try:
        parsed = as_mapping(json.loads(body))
    except (ValueError, RecursionError):
        parsed = None
    error = as_mapping(parsed.get("error")) if parsed is not None else None
    message = _str(error.get("message")) if error is not None else None
    error_type = _str(error.get("type")) if error is not None else None
    code = _str(error.get("code")) if error is not None else None
    # Keep the type and code only where they differ from what the endpoint sends for the
    # status anyway, so the script reads as the status it is.
    usual = as_mapping(_ERROR_BODIES[wire_format](status, message or "").get("error")) or {}
    status = status if 400 <= status <= 599 else 500
    return ScriptedHTTPError(
        status,
        message,
        retry_after=_retry_after(headers),
        error_type=None if error_type == usual.get("type") else error_type,
        code=None if code is None or code == usual.get("code") else code,
    )


# -- OpenAI Responses ----------------------------------------------------------------------


def _responses_item(item: Mapping[str, Any]) -> Any:
    kind = item.get("type")
    if kind == "message":
        parts = [as_mapping(part) for part in as_list(item.get("content"))]
        texts = [part for part in parts if part is not None and part.get("type") == "output_text"]
        if len(parts) == 1 and len(texts) == 1 and isinstance(texts[0].get("text"), str):
            return assistant_message(texts[0]["text"], id=_str(item.get("id")))
    if kind == "function_call":
        name, call_id = _str(item.get("name")), _str(item.get("call_id"))
        arguments = _str(item.get("arguments"))
        if name is not None and call_id is not None and arguments is not None:
            return function_call(
                name,
                arguments,
                call_id=call_id,
                id=_str(item.get("id")),
                namespace=_str(item.get("namespace")),
            )
    return dict(item)  # reasoning, hosted tool calls, ...: already Responses items


def _responses_body(body: Mapping[str, Any]) -> ReadStep:
    output = [
        _responses_item(item)
        for item in (as_mapping(raw) for raw in as_list(body.get("output")))
        if item is not None
    ]
    usage = as_mapping(body.get("usage")) or {}
    return ReadStep(
        "response",
        output=output,
        usage=_usage(
            usage.get("input_tokens"),
            usage.get("output_tokens"),
            usage.get("total_tokens"),
            (as_mapping(usage.get("input_tokens_details")) or {}).get("cached_tokens"),
            (as_mapping(usage.get("output_tokens_details")) or {}).get("reasoning_tokens"),
        ),
        response_id=_str(body.get("id")),
    )


def _responses_stream(events: list[Any]) -> ReadStep | None:
    for event in events:
        mapping = as_mapping(event)
        if mapping is not None and mapping.get("type") == "response.completed":
            response = as_mapping(mapping.get("response"))
            return None if response is None else _responses_body(response)
    return None


# -- OpenAI Chat Completions ---------------------------------------------------------------


def _chat_usage(usage: Mapping[str, Any]) -> Usage:
    return _usage(
        usage.get("prompt_tokens"),
        usage.get("completion_tokens"),
        usage.get("total_tokens"),
        (as_mapping(usage.get("prompt_tokens_details")) or {}).get("cached_tokens"),
        (as_mapping(usage.get("completion_tokens_details")) or {}).get("reasoning_tokens"),
    )


def _chat_output(text: str | None, calls: list[tuple[str, str, str]]) -> list[Any]:
    output: list[Any] = [assistant_message(text)] if text else []
    output += [
        function_call(name, arguments, call_id=call_id) for call_id, name, arguments in calls
    ]
    return output


def _chat_body(body: Mapping[str, Any]) -> ReadStep:
    choice = as_mapping(next(iter(as_list(body.get("choices"))), None)) or {}
    message = as_mapping(choice.get("message")) or {}
    calls: list[tuple[str, str, str]] = []
    for raw in as_list(message.get("tool_calls")):
        call = as_mapping(raw) or {}
        function = as_mapping(call.get("function")) or {}
        calls.append(
            (
                _str(call.get("id")) or "",
                _str(function.get("name")) or "",
                _str(function.get("arguments")) or "",
            )
        )
    return ReadStep(
        "response",
        output=_chat_output(_str(message.get("content")), calls),
        usage=_chat_usage(as_mapping(body.get("usage")) or {}),
        response_id=_str(body.get("id")),
    )


def _chat_stream(events: list[Any]) -> ReadStep | None:
    response_id: str | None = None
    text: list[str] = []
    calls: dict[int, list[str]] = {}  # index -> [call_id, name, arguments]
    usage: Usage | None = None
    finished = False
    for event in events:
        chunk = as_mapping(event)
        if chunk is None or "error" in chunk:
            return None  # the stream failed midway: keep its exact events
        response_id = response_id or _str(chunk.get("id"))
        if as_mapping(chunk.get("usage")) is not None:
            usage = _chat_usage(as_mapping(chunk.get("usage")) or {})
        for raw_choice in as_list(chunk.get("choices")):
            choice = as_mapping(raw_choice) or {}
            finished = finished or choice.get("finish_reason") is not None
            delta = as_mapping(choice.get("delta")) or {}
            text.append(_str(delta.get("content")) or "")
            for raw_call in as_list(delta.get("tool_calls")):
                call = as_mapping(raw_call) or {}
                entry = calls.setdefault(_int(call.get("index")), ["", "", ""])
                function = as_mapping(call.get("function")) or {}
                entry[0] = entry[0] or _str(call.get("id")) or ""
                entry[1] = entry[1] or _str(function.get("name")) or ""
                entry[2] += _str(function.get("arguments")) or ""
    if not finished:
        return None
    ordered = [(entry[0], entry[1], entry[2]) for _, entry in sorted(calls.items())]
    return ReadStep(
        "response",
        output=_chat_output("".join(text) or None, ordered),
        usage=usage or Usage(),
        response_id=response_id,
    )


# -- Anthropic Messages --------------------------------------------------------------------


def _messages_item(block: Mapping[str, Any]) -> Any:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return assistant_message(block["text"])
    if kind == "tool_use":
        tool_input = block.get("input")
        return function_call(
            _str(block.get("name")) or "",
            {} if tool_input is None else tool_input,
            call_id=_str(block.get("id")) or "",
        )
    return dict(block)  # thinking and other blocks, as sent


def _messages_usage(usage: Mapping[str, Any]) -> Usage:
    # Anthropic's input_tokens leaves out cache reads and writes; the core's count holds them.
    cache_read = _int(usage.get("cache_read_input_tokens"))
    inputs = (
        _int(usage.get("input_tokens"))
        + cache_read
        + _int(usage.get("cache_creation_input_tokens"))
    )
    return _usage(inputs, usage.get("output_tokens"), cached=cache_read)


def _messages_body(body: Mapping[str, Any]) -> ReadStep:
    blocks = [as_mapping(raw) for raw in as_list(body.get("content"))]
    return ReadStep(
        "response",
        output=[_messages_item(block) for block in blocks if block is not None],
        usage=_messages_usage(as_mapping(body.get("usage")) or {}),
        response_id=_str(body.get("id")),
    )


def _messages_stream(events: list[Any]) -> ReadStep | None:
    message: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    usage: dict[str, Any] = {}
    stopped = False
    for raw in events:
        event = as_mapping(raw)
        kind = None if event is None else event.get("type")
        if event is None or kind == "error":
            return None
        index = _int(event.get("index"))
        if kind == "message_start":
            message = dict(as_mapping(event.get("message")) or {})
            usage.update(as_mapping(message.get("usage")) or {})
        elif kind == "content_block_start":
            blocks[index] = dict(as_mapping(event.get("content_block")) or {})
        elif kind == "content_block_delta":
            delta = as_mapping(event.get("delta")) or {}
            block = blocks.setdefault(index, {})
            for key, into in (
                ("text", "text"),
                ("thinking", "thinking"),
                ("signature", "signature"),
            ):
                piece = _str(delta.get(key))
                if piece is not None:
                    block[into] = (_str(block.get(into)) or "") + piece
            piece = _str(delta.get("partial_json"))
            if piece is not None:
                partial[index] = partial.get(index, "") + piece
        elif kind == "message_delta":
            usage.update(
                {k: v for k, v in (as_mapping(event.get("usage")) or {}).items() if v is not None}
            )
        elif kind == "message_stop":
            stopped = True
    if not stopped:
        return None
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text) if text else {}
        except (ValueError, RecursionError):
            return None
    message["content"] = [blocks[index] for index in sorted(blocks)]
    message["usage"] = usage
    return _messages_body(message)
