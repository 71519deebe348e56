"""Chat Completions wire format: exact bodies and chunks, as the mutation run asked to pin them."""

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
from agents_testing.wire.openai_chat import parse_request

from ._streams import stream_failing_after, text_delta

CREATED = 1_700_000_000  # the fixed creation time of every scripted answer
PATH = "/v1/chat/completions"
CHAT: dict[str, Any] = {"model": "gpt-test", "messages": [{"role": "user", "content": "Hi"}]}
STREAM: dict[str, Any] = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
USAGE = Usage(
    input_tokens=9,
    output_tokens=8,
    input_tokens_details={"cached_tokens": 3},
    output_tokens_details={"reasoning_tokens": 4},
)
WIRE_USAGE = {
    "prompt_tokens": 9,
    "completion_tokens": 8,
    "total_tokens": 17,
    "prompt_tokens_details": {"cached_tokens": 3},
    "completion_tokens_details": {"reasoning_tokens": 4},
}


def post(endpoint: ScriptedEndpoint, body: Any) -> WireResponse:
    return endpoint.handle(
        "POST", PATH, [("Content-Type", "application/json")], json.dumps(body).encode()
    )


def chunks(response: WireResponse) -> list[Any]:
    """The ``data:`` of every server-sent event, parsed (``[DONE]`` as the string)."""
    out: list[Any] = []
    for block in response.body.decode().split("\n\n"):
        if block.strip():
            assert block.startswith("data: ")
            data = block[len("data: ") :]
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def chunk(delta: dict[str, Any], finish_reason: str | None = None, **usage: Any) -> dict[str, Any]:
    """One ``chat.completion.chunk`` of the scripted call 1 to ``gpt-test``."""
    return {
        "id": "chatcmpl-scripted-1",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "gpt-test",
        "system_fingerprint": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        **usage,
    }


ROLE = {"role": "assistant", "content": "", "refusal": None}
USAGE_CHUNK = {
    "id": "chatcmpl-scripted-1",
    "object": "chat.completion.chunk",
    "created": CREATED,
    "model": "gpt-test",
    "system_fingerprint": None,
    "choices": [],
    "usage": WIRE_USAGE,
}


def tool_call_chunks(index: int, call_id: str, name: str, arguments: str) -> list[dict[str, Any]]:
    head = {
        "tool_calls": [
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
        ]
    }
    tail = {"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}
    return [chunk(head, usage=None), chunk(tail, usage=None)]


# -- responses --------------------------------------------------------------------------------


def test_a_completion_with_text_and_tool_calls_is_the_whole_chat_completion_object() -> None:
    output = [
        assistant_message("Checking."),
        function_call("get_weather", {"city": "Tokyo"}, call_id="c1"),
    ]
    model = ScriptedModel([ModelResponse(output=output, usage=USAGE)])

    response = post(ScriptedEndpoint(model), CHAT)

    assert response.status == 200
    assert json.loads(response.body) == {
        "id": "chatcmpl-scripted-1",
        "object": "chat.completion",
        "created": CREATED,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Checking.",
                    "refusal": None,
                    "annotations": [],
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Tokyo"}'},
                        }
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": WIRE_USAGE,
        "service_tier": "default",
        "system_fingerprint": None,
    }


def test_a_completion_of_text_alone_stops_and_carries_no_tool_calls() -> None:
    model = ScriptedModel([[assistant_message("Sunny.")]])

    choice = json.loads(post(ScriptedEndpoint(model), CHAT).body)["choices"]

    assert choice == [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Sunny.",
                "refusal": None,
                "annotations": [],
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ]


# -- streams ----------------------------------------------------------------------------------


def test_a_stream_of_text_deltas_sends_each_once_then_the_calls_finish_and_usage() -> None:
    model = ScriptedModel(
        [
            model_stream(
                [
                    text_delta("Let me "),
                    text_delta("check."),
                    {
                        "type": "response_done",
                        "response": {
                            "output": [
                                assistant_message("Let me check."),
                                function_call("get_weather", {"city": "Tokyo"}, call_id="c1"),
                                function_call("get_time", "{}", call_id="c2"),
                            ],
                            "usage": {
                                "input_tokens": 9,
                                "output_tokens": 8,
                                "input_tokens_details": {"cached_tokens": 3},
                                "output_tokens_details": {"reasoning_tokens": 4},
                            },
                        },
                    },
                ]
            )
        ]
    )

    sent = chunks(post(ScriptedEndpoint(model), STREAM))

    assert sent == [
        chunk(ROLE, usage=None),
        chunk({"content": "Let me "}, usage=None),
        chunk({"content": "check."}, usage=None),
        *tool_call_chunks(0, "c1", "get_weather", '{"city":"Tokyo"}'),
        *tool_call_chunks(1, "c2", "get_time", "{}"),
        chunk({}, "tool_calls", usage=None),
        USAGE_CHUNK,
        "[DONE]",
    ]


def test_a_plain_step_streamed_sends_the_role_its_text_and_stop_without_usage_unasked() -> None:
    model = ScriptedModel([[assistant_message("Sunny.")]])

    sent = chunks(post(ScriptedEndpoint(model), {**CHAT, "stream": True}))

    assert sent == [chunk(ROLE), chunk({"content": "Sunny."}), chunk({}, "stop"), "[DONE]"]


def test_a_scripted_chunk_stream_gets_no_role_chunk_even_with_a_finish_after_it() -> None:
    exact = {"id": "x", "object": "chat.completion.chunk", "choices": []}
    done = {"type": "response_done", "response": {"output": [], "usage": {}}}
    model = ScriptedModel([model_stream([{"type": "model", "event": exact}, done])])

    sent = chunks(post(ScriptedEndpoint(model), {**CHAT, "stream": True}))

    assert sent == [exact, chunk({}, "stop"), "[DONE]"]


def test_a_stream_failing_midway_ends_with_the_scripted_error_type_and_code() -> None:
    error = ScriptedHTTPError(409, "Try later.", error_type="conflict_error", code="busy")
    model = stream_failing_after([text_delta("partial")], error)

    response = post(ScriptedEndpoint(model), {**CHAT, "stream": True})

    assert response.status == 200
    assert chunks(response)[-1] == {
        "error": {"message": "Try later.", "type": "conflict_error", "param": None, "code": "busy"}
    }


def test_an_error_answer_takes_the_scripted_type_and_code() -> None:
    error = ScriptedHTTPError(409, "Try later.", error_type="conflict_error", code="busy")
    model = ScriptedModel([model_error(error)])

    response = post(ScriptedEndpoint(model), CHAT)

    assert response.status == 409
    assert json.loads(response.body) == {
        "error": {"message": "Try later.", "type": "conflict_error", "param": None, "code": "busy"}
    }


# -- requests ---------------------------------------------------------------------------------


def test_content_sent_as_parts_reads_as_the_text_of_its_text_parts() -> None:
    parts = [
        {"type": "text", "text": "Be "},
        {"type": "image_url", "image_url": {"url": "data:,"}},
        "not a part",
        {"type": "text", "text": 7},
        {"type": "text", "text": "brief."},
    ]
    model = ScriptedModel([[assistant_message("ok")]])
    body = {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": parts},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": parts},
            {"role": "tool", "tool_call_id": "c1", "content": parts},
        ],
    }

    post(ScriptedEndpoint(model), body)

    request = model.calls[0].request
    assert request.system_instructions == "Be brief."
    assert request.input == [
        {"type": "message", "role": "user", "content": "Hi"},
        assistant_message("Be brief."),
        {"type": "function_call_output", "call_id": "c1", "output": "Be brief."},
    ]


def test_an_assistant_message_with_text_and_calls_becomes_its_message_then_each_call() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x":1}'}},
        {"id": "c2", "type": "function", "function": {"name": "b", "arguments": {"x": 1}}},
    ]
    body = {
        "model": "gpt-test",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Checking.", "tool_calls": calls},
        ],
    }

    post(ScriptedEndpoint(model), body)

    assert model.calls[0].request.input == [
        {"type": "message", "role": "user", "content": "Hi"},
        assistant_message("Checking."),
        function_call("a", '{"x":1}', call_id="c1"),
        function_call("b", "{}", call_id="c2"),  # arguments that are not a string read as none
    ]


@pytest.mark.parametrize(
    ("tool_calls", "message"),
    [
        ({"id": "c1"}, "messages[1].tool_calls must be a list"),
        ([{"function": {"name": "a"}}], "messages[1].tool_calls entries need 'id' and 'function'"),
        ([{"id": "c1"}], "messages[1].tool_calls entries need 'id' and 'function'"),
        (
            [{"id": "c1", "function": "a"}],
            "messages[1].tool_calls entries need 'id' and 'function'",
        ),
    ],
)
def test_an_assistant_message_with_malformed_tool_calls_is_a_400_naming_what_is_wrong(
    tool_calls: Any, message: str
) -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    body = {
        "model": "gpt-test",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": None, "tool_calls": tool_calls},
        ],
    }

    response = post(ScriptedEndpoint(model), body)

    assert response.status == 400
    error = json.loads(response.body)["error"]
    assert error["type"] == "invalid_request_error"
    assert message in error["message"]
    assert not model.calls


def invalid_body(detail: str, path: str = PATH) -> str:
    """The whole message of the endpoint's 400 for the first request's malformed body."""
    return (
        f"agents-testing: Scripted wire endpoint request #1 (request_index=0) POST {path}: "
        f"invalid body ({detail}); send the fields the provider's API requires."
    )


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"messages": "Hi"}, "'messages' must be a list of messages"),
        ({"messages": [{"content": "Hi"}]}, "messages[0] must be an object with a 'role'"),
        (
            {"messages": [{"role": 1, "content": "Hi"}]},
            "messages[0] must be an object with a 'role'",
        ),
        ({"messages": ["Hi"]}, "messages[0] must be an object with a 'role'"),
        ({"messages": [], "tools": "get_weather"}, "'tools' must be a list"),
    ],
)
def test_a_malformed_request_is_a_400_whose_whole_message_names_the_field(
    body: dict[str, Any], detail: str
) -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    response = post(ScriptedEndpoint(model), {"model": "gpt-test", **body})

    assert response.status == 400
    assert json.loads(response.body) == {
        "error": {
            "message": invalid_body(detail),
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    }
    assert not model.calls


def test_leading_system_and_developer_messages_join_into_the_instructions() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    body = {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "developer", "content": "Use metric units."},
            {"role": "user", "content": "Hi"},
            {"role": "developer", "content": "Answer in French."},
        ],
    }

    post(ScriptedEndpoint(model), body)

    request = model.calls[0].request
    assert request.system_instructions == "Be brief.\n\nUse metric units."
    assert request.input == [  # a later one stays in the conversation, with its role
        {"type": "message", "role": "user", "content": "Hi"},
        {"type": "message", "role": "developer", "content": "Answer in French."},
    ]


def test_a_request_without_system_messages_has_no_instructions_and_no_extra() -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    post(ScriptedEndpoint(model), CHAT)

    assert model.calls[0].request.system_instructions is None
    # Called on its own, the translation gives an empty ``extra``, not ``None``.
    request = parse_request(CHAT)
    assert request.extra == {}
    assert request.input == [{"type": "message", "role": "user", "content": "Hi"}]
    assert request.model_settings == {"model": "gpt-test"}


def test_a_completion_of_tool_calls_alone_has_no_content() -> None:
    model = ScriptedModel([[function_call("get_time", "{}", call_id="c1")]])

    message = json.loads(post(ScriptedEndpoint(model), CHAT).body)["choices"][0]["message"]

    assert message == {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "annotations": [],
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
        ],
    }


def test_the_text_of_several_scripted_messages_is_one_content() -> None:
    model = ScriptedModel([[assistant_message("Sunny "), assistant_message("all day.")]])

    message = json.loads(post(ScriptedEndpoint(model), CHAT).body)["choices"][0]["message"]

    assert message["content"] == "Sunny all day."


class _FrameworkItem:
    """An output object of some framework that Chat Completions cannot express."""


@pytest.mark.parametrize(
    ("item", "named"),
    [({"type": "reasoning"}, "'reasoning'"), (_FrameworkItem(), "'_FrameworkItem'")],
)
def test_an_output_item_chat_cannot_express_is_a_500_naming_its_type(item: Any, named: str) -> None:
    model = ScriptedModel([[item]])

    response = post(ScriptedEndpoint(model), CHAT)

    assert response.status == 500
    assert json.loads(response.body)["error"]["message"] == (
        f"agents-testing: Scripted wire endpoint request #1 (request_index=0) POST {PATH}: "
        f"unsupported output (Chat Completions has no output item of type {named}); "
        "script only items this wire format can express."
    )


def test_a_stream_whose_text_comes_only_in_its_final_response_opens_with_the_role() -> None:
    done = {
        "type": "response_done",
        "response": {"output": [assistant_message("Sunny.")], "usage": {}},
    }
    model = ScriptedModel([model_stream([done])])

    sent = chunks(post(ScriptedEndpoint(model), {**CHAT, "stream": True}))

    assert sent == [chunk(ROLE), chunk({"content": "Sunny."}), chunk({}, "stop"), "[DONE]"]


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, "invalid_request_error"), (429, "rate_limit_exceeded"), (503, "server_error")],
)
def test_an_error_scripted_without_a_type_takes_the_one_of_its_status(
    status: int, kind: str
) -> None:
    model = ScriptedModel([model_error(ScriptedHTTPError(status, "Try later."))])

    response = post(ScriptedEndpoint(model), CHAT)

    assert response.status == status
    assert json.loads(response.body) == {
        "error": {"message": "Try later.", "type": kind, "param": None, "code": kind}
    }
