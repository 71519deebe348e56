"""Anthropic Messages wire format: exact bodies and events, as the mutation run asked."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agents_testing import (
    ModelResponse,
    ScriptedHTTPError,
    ScriptedModel,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_stream,
)
from agents_testing.wire import ScriptedEndpoint, WireResponse
from agents_testing.wire.anthropic_messages import parse_request

from ._streams import stream_failing_after, text_delta

PATH = "/v1/messages"
MESSAGES: dict[str, Any] = {
    "model": "claude-test",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "Hi"}],
}
STREAM: dict[str, Any] = {**MESSAGES, "stream": True}
USAGE = Usage(
    input_tokens=9,
    output_tokens=8,
    input_tokens_details={"cached_tokens": 3},
    output_tokens_details={"reasoning_tokens": 4},
)
# Anthropic's input_tokens leaves the cache reads out: 9 scripted, 3 of them cached.
WIRE_USAGE = {
    "input_tokens": 6,
    "output_tokens": 8,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 3,
}
NO_USAGE = {
    "input_tokens": 0,
    "output_tokens": 0,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
THINKING = {"type": "thinking", "thinking": "The user wants the weather.", "signature": "c2ln"}
REDACTED = {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}


def post(endpoint: ScriptedEndpoint, body: Any) -> WireResponse:
    return endpoint.handle(
        "POST", PATH, [("Content-Type", "application/json")], json.dumps(body).encode()
    )


def events(response: WireResponse) -> list[tuple[str | None, Any]]:
    """Every server-sent event as its ``event:`` name (``None`` if it has none) and data."""
    out: list[tuple[str | None, Any]] = []
    for block in response.body.decode().split("\n\n"):
        if not block.strip():
            continue
        lines = block.split("\n")
        name = None
        if lines[0].startswith("event: "):
            name = lines.pop(0)[len("event: ") :]
        assert len(lines) == 1, block
        assert lines[0].startswith("data: "), block
        out.append((name, json.loads(lines[0][len("data: ") :])))
    return out


def event(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    """One event as the Messages API names and sends it: its ``type`` is its name."""
    return kind, {"type": kind, **fields}


def message_start(number: int = 1, model: Any = "claude-test") -> tuple[str, dict[str, Any]]:
    message = {
        "id": f"msg_scripted_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": NO_USAGE,
    }
    return event("message_start", message=message)


OPENING = [message_start(), event("ping")]


def text_block(index: int, *pieces: str) -> list[tuple[str, dict[str, Any]]]:
    """A text block streamed whole: its start, a ``text_delta`` per piece, its stop."""
    return [
        event("content_block_start", index=index, content_block={"type": "text", "text": ""}),
        *(
            event("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
            for piece in pieces
        ),
        event("content_block_stop", index=index),
    ]


def tool_block(index: int, call_id: str, name: str, partial_json: str) -> list[Any]:
    start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    delta = {"type": "input_json_delta", "partial_json": partial_json}
    return [
        event("content_block_start", index=index, content_block=start),
        event("content_block_delta", index=index, delta=delta),
        event("content_block_stop", index=index),
    ]


def ending(stop_reason: str, usage: dict[str, Any] = NO_USAGE) -> list[Any]:
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    return [event("message_delta", delta=delta, usage=usage), event("message_stop")]


def done(*output: Any, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``response_done`` stream event with these output items."""
    return {"type": "response_done", "response": {"output": list(output), "usage": usage or {}}}


# -- responses --------------------------------------------------------------------------------


def test_a_message_with_text_and_tool_use_is_the_whole_message_object() -> None:
    output = [
        assistant_message("Checking."),
        function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
    ]
    model = ScriptedModel([ModelResponse(output=output, usage=USAGE)])

    response = post(ScriptedEndpoint(model), MESSAGES)

    assert response.status == 200
    assert json.loads(response.body) == {
        "id": "msg_scripted_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Tokyo"},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": WIRE_USAGE,
    }


def test_a_message_of_text_alone_ends_its_turn_and_counts_no_tokens_unscripted() -> None:
    model = ScriptedModel([[assistant_message("Sunny.")]])

    response = post(ScriptedEndpoint(model), MESSAGES)

    assert json.loads(response.body) == {
        "id": "msg_scripted_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "Sunny."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": NO_USAGE,
    }


def test_a_response_id_the_script_set_is_the_message_id_as_it_is() -> None:
    response = ModelResponse(output=[assistant_message("ok")], usage=Usage(), response_id="msg_01X")
    model = ScriptedModel([response])

    assert json.loads(post(ScriptedEndpoint(model), MESSAGES).body)["id"] == "msg_01X"


def test_recorded_thinking_blocks_go_back_as_they_came_before_the_text() -> None:
    model = ScriptedModel([[dict(THINKING), dict(REDACTED), assistant_message("Sunny.")]])

    content = json.loads(post(ScriptedEndpoint(model), MESSAGES).body)["content"]

    assert content == [THINKING, REDACTED, {"type": "text", "text": "Sunny."}]


# -- streams ----------------------------------------------------------------------------------


def test_a_stream_of_text_deltas_sends_each_once_then_each_tool_use_and_the_usage() -> None:
    usage = {
        "input_tokens": 9,
        "output_tokens": 8,
        "input_tokens_details": {"cached_tokens": 3},
        "output_tokens_details": {"reasoning_tokens": 4},
    }
    final = done(
        assistant_message("Let me check."),
        function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
        function_call("get_time", "{}", call_id="toolu_2"),
        usage=usage,
    )
    model = ScriptedModel([model_stream([text_delta("Let me "), text_delta("check."), final])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    assert sent == [
        *OPENING,
        *text_block(0, "Let me ", "check."),
        *tool_block(1, "toolu_1", "get_weather", '{"city": "Tokyo"}'),
        *tool_block(2, "toolu_2", "get_time", "{}"),
        *ending("tool_use", WIRE_USAGE),
    ]


def test_a_plain_step_streamed_sends_its_text_in_the_model_s_delta_size_and_ends_its_turn() -> None:
    model = ScriptedModel([[assistant_message("Sunny.")]], text_delta_size=4)

    sent = events(post(ScriptedEndpoint(model), {**STREAM, "model": "claude-other"}))

    assert sent == [
        message_start(model="claude-other"),
        event("ping"),
        *text_block(0, "Sunn", "y."),
        *ending("end_turn"),
    ]


def test_only_the_message_streamed_as_deltas_is_left_out_of_the_final_blocks() -> None:
    final = done(
        function_call("get_time", "{}", call_id="toolu_1"),
        assistant_message("Hello."),
        assistant_message("Anything else?"),
        function_call("get_date", "{}", call_id="toolu_2"),
    )
    model = ScriptedModel([model_stream([text_delta("Hello."), final])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    assert sent == [
        *OPENING,
        *text_block(0, "Hello."),
        *tool_block(1, "toolu_1", "get_time", "{}"),
        *text_block(2, "Anything else?"),
        *tool_block(3, "toolu_2", "get_date", "{}"),
        *ending("tool_use"),
    ]


def test_a_stream_ending_without_a_final_response_closes_its_text_and_ends_the_turn() -> None:
    model = ScriptedModel([model_stream([{"type": "response_started"}, text_delta("Hi.")])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    assert sent == [*OPENING, *text_block(0, "Hi."), *ending("end_turn")]


def test_thinking_streams_its_text_then_its_signature_and_redacted_thinking_comes_whole() -> None:
    model = ScriptedModel([model_stream([done(dict(THINKING), dict(REDACTED))])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    empty = {"type": "thinking", "thinking": "", "signature": ""}
    assert sent == [
        *OPENING,
        event("content_block_start", index=0, content_block=empty),
        event(
            "content_block_delta",
            index=0,
            delta={"type": "thinking_delta", "thinking": "The user wants the weather."},
        ),
        event(
            "content_block_delta", index=0, delta={"type": "signature_delta", "signature": "c2ln"}
        ),
        event("content_block_stop", index=0),
        event("content_block_start", index=1, content_block=REDACTED),
        event("content_block_stop", index=1),
        *ending("end_turn"),
    ]


@pytest.mark.parametrize(
    "block",
    [
        {"type": "thinking", "thinking": "", "signature": ""},
        {"type": "thinking"},
        {"type": "thinking", "thinking": 5, "signature": ["c2ln"]},
    ],
    ids=["empty", "missing", "not-strings"],
)
def test_a_thinking_block_without_text_or_signature_streams_no_delta_for_them(
    block: dict[str, Any],
) -> None:
    model = ScriptedModel([model_stream([done(block)])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    empty = {"type": "thinking", "thinking": "", "signature": ""}
    assert sent == [
        *OPENING,
        event("content_block_start", index=0, content_block=empty),
        event("content_block_stop", index=0),
        *ending("end_turn"),
    ]


def test_scripted_provider_events_go_out_verbatim_and_a_final_response_adds_no_start() -> None:
    start = {"type": "message_start", "message": {"id": "msg_x", "content": []}}
    odd = {"type": ["not", "a", "name"], "data": 1}
    model = ScriptedModel(
        [model_stream([{"type": "model", "event": start}, {"type": "model", "event": odd}, done()])]
    )

    sent = events(post(ScriptedEndpoint(model), STREAM))

    assert sent == [("message_start", start), (None, odd), *ending("end_turn")]


def test_a_stream_failing_midway_ends_with_the_scripted_error_type() -> None:
    error = ScriptedHTTPError(409, "Try later.", error_type="conflict_error", code="busy")
    model = stream_failing_after([text_delta("partial")], error)

    response = post(ScriptedEndpoint(model), STREAM)

    assert response.status == 200
    assert events(response) == [
        *OPENING,
        *text_block(0, "partial")[:2],  # the block stays open: the error ends the stream
        ("error", {"type": "error", "error": {"type": "conflict_error", "message": "Try later."}}),
    ]


@pytest.mark.parametrize(("status", "error_type"), [(500, "api_error"), (529, "overloaded_error")])
def test_a_stream_failing_midway_names_the_status_s_error_type(
    status: int, error_type: str
) -> None:
    model = stream_failing_after([{"type": "response_started"}], ScriptedHTTPError(status, "No."))

    sent = events(post(ScriptedEndpoint(model), STREAM))

    assert sent == [
        *OPENING,
        ("error", {"type": "error", "error": {"type": error_type, "message": "No."}}),
    ]


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (402, "billing_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (504, "timeout_error"),
        (529, "overloaded_error"),
    ],
)
def test_an_error_answer_is_the_whole_error_body_of_its_status(
    status: int, error_type: str
) -> None:
    model = ScriptedModel([model_error(ScriptedHTTPError(status, "No."))])

    response = post(ScriptedEndpoint(model), MESSAGES)

    assert response.status == status
    assert json.loads(response.body) == {
        "type": "error",
        "error": {"type": error_type, "message": "No."},
    }


def test_an_error_answer_takes_the_scripted_type_and_carries_no_code() -> None:
    error = ScriptedHTTPError(409, "Try later.", error_type="conflict_error", code="busy")
    model = ScriptedModel([model_error(error)])

    response = post(ScriptedEndpoint(model), MESSAGES)

    assert json.loads(response.body) == {
        "type": "error",
        "error": {"type": "conflict_error", "message": "Try later."},
    }


# -- requests ---------------------------------------------------------------------------------


def test_system_blocks_read_as_the_text_of_their_text_blocks() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    system = [
        {"type": "text", "text": "Be "},
        {"type": "image", "source": {}},
        "not a block",
        {"type": "text", "text": 7},
        {"type": "text", "text": "brief."},
    ]

    post(ScriptedEndpoint(model), {**MESSAGES, "system": system})

    assert model.calls[0].request.system_instructions == "Be brief."


@pytest.mark.parametrize(("system", "instructions"), [("Be brief.", "Be brief."), (7, "")])
def test_a_system_string_is_the_instructions_and_any_other_value_reads_as_no_text(
    system: Any, instructions: str
) -> None:
    request = parse_request({**MESSAGES, "system": system})

    assert request.system_instructions == instructions


def test_a_request_without_system_has_no_instructions_keeps_its_settings_and_no_extra() -> None:
    tools = [{"name": "get_weather", "input_schema": {"type": "object"}}]

    request = parse_request({**MESSAGES, "tools": tools, "temperature": 0.5, "stream": False})

    assert request.system_instructions is None
    assert request.extra == {}
    assert request.tools == tools
    assert request.input == [{"type": "message", "role": "user", "content": "Hi"}]
    assert request.model_settings == {
        "model": "claude-test",
        "max_tokens": 100,
        "temperature": 0.5,
        "stream": False,
    }


def test_user_blocks_become_user_messages_split_by_each_tool_result() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}}
    content = [
        {"type": "text", "text": "See "},
        image,
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "sunny"}],
        },
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "cold"},
        {"type": "tool_result", "tool_use_id": "toolu_3"},
        {"type": "text", "text": "Thanks."},
    ]

    request = parse_request({**MESSAGES, "messages": [{"role": "user", "content": content}]})

    assert request.input == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "See "}, image],
        },
        {"type": "function_call_output", "call_id": "toolu_1", "output": "sunny"},
        {"type": "function_call_output", "call_id": "toolu_2", "output": "cold"},
        {"type": "function_call_output", "call_id": "toolu_3", "output": ""},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Thanks."}]},
    ]


def test_assistant_blocks_become_messages_and_calls_and_other_blocks_stay_as_sent() -> None:
    strange = {"type": "tool_result", "tool_use_id": "toolu_0", "content": "odd"}
    content = [
        dict(THINKING),
        {"type": "text", "text": "Checking."},
        {"type": "text", "text": 7},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Tokyo"}},
        {"type": "tool_use", "id": "toolu_2", "name": "get_time"},
        strange,
    ]
    body = {
        **MESSAGES,
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": content},
            {"role": "assistant", "content": "Anything else?"},
        ],
    }

    request = parse_request(body)

    assert request.input == [
        {"type": "message", "role": "user", "content": "Hi"},
        THINKING,
        assistant_message("Checking."),
        assistant_message(""),  # text that is not a string reads as none
        function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
        function_call("get_time", {}, call_id="toolu_2"),  # no input reads as an empty one
        strange,
        assistant_message("Anything else?"),
    ]


def invalid_body(detail: str) -> str:
    """The whole message of the endpoint's 400 for the first request's malformed body."""
    return (
        f"agents-testing: Scripted wire endpoint request #1 (request_index=0) POST {PATH}: "
        f"invalid body ({detail}); send the fields the provider's API requires."
    )


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"messages": "Hi"}, "'messages' must be a list of messages"),
        ({"messages": ["Hi"]}, "messages[0] must have role 'user' or 'assistant'"),
        (
            {"messages": [{"role": "user", "content": "Hi"}, {"role": "system", "content": "x"}]},
            "messages[1] must have role 'user' or 'assistant'",
        ),
        ({"messages": [{"role": "user"}]}, "messages[0].content must be a string or a list"),
        (
            {"messages": [{"role": "user", "content": ["Hi"]}]},
            "messages[0].content blocks must be objects",
        ),
        (
            {"messages": [{"role": "user", "content": "Hi"}], "tools": "get_weather"},
            "'tools' must be a list",
        ),
    ],
)
def test_a_malformed_request_is_a_400_whose_whole_message_names_the_field(
    body: dict[str, Any], detail: str
) -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    response = post(ScriptedEndpoint(model), {"model": "claude-test", "max_tokens": 5, **body})

    assert response.status == 400
    assert json.loads(response.body) == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": invalid_body(detail)},
    }
    assert not model.calls


class _FrameworkItem:
    """An output object of some framework that Anthropic Messages cannot express."""


def unsupported(detail: str) -> str:
    """The whole message of the endpoint's 500 for an output item the format cannot send."""
    return (
        f"agents-testing: Scripted wire endpoint request #1 (request_index=0) POST {PATH}: "
        f"unsupported output ({detail}); script only items this wire format can express."
    )


@pytest.mark.parametrize(
    ("item", "detail"),
    [
        ({"type": "reasoning"}, "Anthropic Messages has no output item of type 'reasoning'"),
        (_FrameworkItem(), "Anthropic Messages has no output item of type '_FrameworkItem'"),
        (
            function_call("get_time", "not json", call_id="toolu_1"),
            "tool_use input must be a JSON object, got arguments 'not json'",
        ),
        (
            function_call("get_time", [1], call_id="toolu_1"),
            "tool_use input must be a JSON object, got arguments '[1]'",
        ),
    ],
)
def test_an_output_item_messages_cannot_express_is_a_500_whose_whole_message_names_it(
    item: Any, detail: str
) -> None:
    model = ScriptedModel([[item]])

    response = post(ScriptedEndpoint(model), MESSAGES)

    assert response.status == 500
    assert json.loads(response.body) == {
        "type": "error",
        "error": {"type": "api_error", "message": unsupported(detail)},
    }
