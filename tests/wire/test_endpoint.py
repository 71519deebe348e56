"""``ScriptedEndpoint``: routing, violations, provider errors and secrets, with no client."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import pickle
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    UnconsumedModelStepsError,
    UnexpectedModelCallError,
    WireRequestError,
    assistant_message,
    function_call,
    model_error,
    model_stream,
    model_stream_responder,
)
from agents_testing.wire import ScriptedEndpoint, WireResponse

from ._streams import stream_failing_after, text_delta

SECRET = "sk-live-do-not-record-4242"
HEADERS = [
    ("Authorization", f"Bearer {SECRET}"),
    ("x-api-key", SECRET),
    ("Content-Type", "application/json"),
    ("X-Trace", "t-1"),
]


def post(endpoint: ScriptedEndpoint, path: str, body: Any, *, method: str = "POST") -> WireResponse:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return endpoint.handle(method, path, HEADERS, raw)


def sse_events(response: WireResponse) -> list[tuple[str | None, Any]]:
    events: list[tuple[str | None, Any]] = []
    for block in response.body.decode().split("\n\n"):
        if not block.strip():
            continue
        name = None
        data = ""
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data = line[len("data: ") :]
        events.append((name, data if data == "[DONE]" else json.loads(data)))
    return events


CHAT = {"model": "gpt-test", "messages": [{"role": "user", "content": "Weather in Tokyo?"}]}
RESPONSES = {"model": "gpt-test", "input": "Weather in Tokyo?"}
MESSAGES = {
    "model": "claude-test",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "Weather in Tokyo?"}],
}


# -- translation of requests ---------------------------------------------------------------


def test_responses_request_keeps_the_body_and_normalizes_input() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    body = {
        "model": "gpt-test",
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "name": "get_weather", "parameters": {}}],
        "temperature": 0.2,
        "previous_response_id": "resp_0",
    }

    response = post(ScriptedEndpoint(model), "/v1/responses", body)

    assert response.status == 200
    request = model.calls[0].request
    assert request.input == [{"type": "message", "role": "user", "content": "hi"}]
    assert request.system_instructions == "Be brief."
    assert request.tools == [{"type": "function", "name": "get_weather", "parameters": {}}]
    assert request.model_settings == {"model": "gpt-test", "temperature": 0.2}
    assert request.previous_response_id == "resp_0"
    assert request.extra["body"] == body
    assert json.loads(request.extra["raw_body"]) == body
    assert request.extra["wire_format"] == "openai.responses"
    assert request.extra["path"] == "/v1/responses"


def _scramble(request: Any) -> None:
    """Change, in place, every container a read of a recorded request hands out."""
    for item in request.input if isinstance(request.input, list) else []:
        if isinstance(item, dict):
            item.clear()
    if isinstance(request.input, list):
        request.input.append({"type": "message", "role": "user", "content": "injected"})
    for tool in request.tools:
        tool.clear()
    request.tools.clear()
    request.model_settings["model"] = "changed"
    body = request.extra["body"]
    for value in body.values():
        if isinstance(value, list):
            for each in value:
                if isinstance(each, dict):
                    each.clear()
            value.clear()
    body.clear()
    request.extra["headers"].clear()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/responses", {**RESPONSES, "input": [{"role": "user", "content": "hi"}]}),
        ("/v1/chat/completions", CHAT),
        ("/v1/messages", MESSAGES),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_a_recorded_wire_request_stays_as_sent_whatever_its_readers_change(
    path: str, body: dict[str, Any], stream: bool
) -> None:
    # The endpoint hands the model requests it built from the parsed body, which the model
    # keeps without a copy: what responders and readers get must still be their own copies.
    tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    sent = {**body, "tools": [tool], "stream": stream}
    seen: list[Any] = []

    def respond(call: Any) -> list[Any]:
        seen.append(call.request)
        _scramble(call.request)
        return [assistant_message("ok")]

    def stream_respond(call: Any) -> Any:
        seen.append(call.request)
        _scramble(call.request)
        return [text_delta("ok")]

    from agents_testing import model_responder, model_stream_responder

    step = model_stream_responder(stream_respond) if stream else model_responder(respond)
    model = ScriptedModel([step])

    response = post(ScriptedEndpoint(model), path, sent)

    assert response.status == 200, response.body
    first = model.calls[0].request
    before = copy.deepcopy((first.input, first.tools, first.model_settings, first.extra))
    _scramble(first)
    again = model.calls[0].request
    assert (again.input, again.tools, again.model_settings, again.extra) == before
    assert again.extra["body"] == sent
    assert again.tools[0]["name"] == "get_weather"
    assert again.extra["headers"]["x-trace"] == "t-1"
    assert seen
    assert seen[0] is not again


def test_chat_request_becomes_normalized_items() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    body = {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Tokyo?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Tokyo"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather"}}],
    }

    post(ScriptedEndpoint(model), "/v1/chat/completions", body)

    request = model.calls[0].request
    assert request.system_instructions == "Be brief."
    assert request.input == [
        {"type": "message", "role": "user", "content": "Weather in Tokyo?"},
        function_call("get_weather", '{"city":"Tokyo"}', call_id="call_1"),
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    ]
    assert request.tools == [{"type": "function", "function": {"name": "get_weather"}}]
    assert request.model_settings == {"model": "gpt-test"}


def test_anthropic_request_becomes_normalized_items() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    body = {
        "model": "claude-test",
        "max_tokens": 100,
        "system": [{"type": "text", "text": "Be brief."}],
        "messages": [
            {"role": "user", "content": "Weather in Tokyo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Tokyo"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                    {"type": "text", "text": "Thanks"},
                ],
            },
        ],
    }

    post(ScriptedEndpoint(model), "/v1/messages", body)

    request = model.calls[0].request
    assert request.system_instructions == "Be brief."
    assert request.input == [
        {"type": "message", "role": "user", "content": "Weather in Tokyo?"},
        assistant_message("Checking."),
        function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
        {"type": "function_call_output", "call_id": "toolu_1", "output": "sunny"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Thanks"}]},
    ]
    assert request.model_settings == {"model": "claude-test", "max_tokens": 100}


# -- responses and streams -----------------------------------------------------------------


def test_responses_are_deterministic() -> None:
    def serve() -> bytes:
        model = ScriptedModel([[function_call("get_weather", {"city": "Tokyo"}, call_id="c1")]])
        return post(ScriptedEndpoint(model), "/v1/responses", RESPONSES).body

    assert serve() == serve()
    output = json.loads(serve())
    assert output["id"] == "resp_scripted_1"
    assert output["output"][0]["arguments"] == '{"city":"Tokyo"}'


@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/chat/completions", CHAT), ("/v1/responses", RESPONSES), ("/v1/messages", MESSAGES)],
)
def test_usage_reaches_every_format(path: str, body: dict[str, Any]) -> None:
    from agents_testing import ModelResponse, Usage

    model = ScriptedModel(
        [
            ModelResponse(
                output=[assistant_message("ok")], usage=Usage(input_tokens=7, output_tokens=3)
            )
        ]
    )

    payload = json.loads(post(ScriptedEndpoint(model), path, body).body)

    usage = payload["usage"]
    counts = (
        (usage.get("prompt_tokens"), usage.get("completion_tokens"))
        if "prompt_tokens" in usage
        else (usage["input_tokens"], usage["output_tokens"])
    )
    assert counts == (7, 3)


@pytest.mark.parametrize(
    ("usage", "sent"),
    [
        ({}, (0, 0, 0, 0, 0)),
        (
            {
                "input_tokens": 9,
                "output_tokens": 8,
                "input_tokens_details": [{"cached_tokens": 3}, {"cached_tokens": 2}],
                "output_tokens_details": {"reasoning_tokens": 4},
            },
            (9, 8, 17, 5, 4),
        ),
        ({"input_tokens": 2, "total_tokens": 40}, (2, 0, 40, 0, 0)),
    ],
)
def test_a_responses_body_reports_every_count_of_the_steps_usage(
    usage: dict[str, Any], sent: tuple[int, ...]
) -> None:
    from agents_testing import ModelResponse, Usage

    model = ScriptedModel(
        [ModelResponse(output=[assistant_message("ok")], usage=Usage(**usage))] * 2
    )
    endpoint = ScriptedEndpoint(model)

    reported = json.loads(post(endpoint, "/v1/responses", RESPONSES).body)["usage"]
    streamed = sse_events(post(endpoint, "/v1/responses", {**RESPONSES, "stream": True}))

    for counts in (reported, streamed[-1][1]["response"]["usage"]):
        assert (
            counts["input_tokens"],
            counts["output_tokens"],
            counts["total_tokens"],
            counts["input_tokens_details"]["cached_tokens"],
            counts["output_tokens_details"]["reasoning_tokens"],
        ) == sent


@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/chat/completions", CHAT), ("/v1/responses", RESPONSES), ("/v1/messages", MESSAGES)],
)
def test_a_stream_sends_text_beyond_ascii_as_utf8_not_escaped(
    path: str, body: dict[str, Any]
) -> None:
    # The providers' event streams carry non-ASCII characters as they are: a client that
    # compares or counts the raw bytes must see the same from the double.
    text = "Tōkyō: 晴れ ☀"
    model = ScriptedModel([[assistant_message(text)]])

    response = post(ScriptedEndpoint(model), path, {**body, "stream": True})

    assert response.status == 200
    assert text.encode() in response.body
    assert b"\\u" not in response.body


@pytest.mark.parametrize(
    ("content", "text"),
    [
        (None, ""),
        ({"type": "output_text", "text": "not in a list"}, ""),
        (
            [
                "stray",
                {"type": "text", "text": "a"},
                {"type": "refusal", "refusal": "no"},
                {"type": "output_text", "text": "b"},
                {"type": "output_text", "text": None},
            ],
            "ab",
        ),
    ],
)
def test_an_assistant_message_says_its_text_parts_joined_in_chat_and_anthropic_form(
    content: Any, text: str
) -> None:
    # A message item scripted by hand may hold any content: its text and output_text parts
    # are its text; anything else (content that is not a list, other parts) is no text.
    def served(path: str, body: dict[str, Any]) -> Any:
        model = ScriptedModel([[{"type": "message", "role": "assistant", "content": content}]])
        response = post(ScriptedEndpoint(model), path, body)
        assert response.status == 200
        return json.loads(response.body)

    chat = served("/v1/chat/completions", CHAT)
    assert chat["choices"][0]["message"]["content"] == text
    assert served("/v1/messages", MESSAGES)["content"] == [{"type": "text", "text": text}]


def test_a_response_scripted_without_an_id_is_numbered_by_its_call() -> None:
    from agents_testing import ModelResponse, Usage

    unnamed = ModelResponse(output=[assistant_message("ok")], usage=Usage())
    endpoint = ScriptedEndpoint(ScriptedModel([[assistant_message("first")], unnamed]))

    ids = [json.loads(post(endpoint, "/v1/chat/completions", CHAT).body)["id"] for _ in range(2)]

    assert ids == ["chatcmpl-scripted-1", "chatcmpl-scripted-2"]


@pytest.mark.parametrize(
    ("response_id", "wire_id"),
    [
        ("scripted-response-7", "chatcmpl-scripted-7"),
        ("scripted-response-\u0663", "chatcmpl-scripted-\u0663"),  # a decimal digit, as \\d
        ("scripted-response-\u00b2", "scripted-response-\u00b2"),  # a digit, not a decimal
        ("scripted-response-", "scripted-response-"),
        ("scripted-response-7b", "scripted-response-7b"),
        ("my-response-7", "my-response-7"),
    ],
)
def test_a_scripted_response_id_is_numbered_only_when_it_is_the_cores_own(
    response_id: str, wire_id: str
) -> None:
    from agents_testing import ModelResponse, Usage

    named = ModelResponse([assistant_message("ok")], Usage(), response_id=response_id)
    endpoint = ScriptedEndpoint(ScriptedModel([named]))

    assert json.loads(post(endpoint, "/v1/chat/completions", CHAT).body)["id"] == wire_id


def test_a_responder_answering_with_an_id_that_is_not_text_is_a_broken_script() -> None:
    from agents_testing import InvalidScriptedModelStepError, ModelResponse, Usage, model_responder

    answer = ModelResponse([assistant_message("ok")], Usage(), response_id=5)  # type: ignore[arg-type]
    model = ScriptedModel([model_responder(lambda call: answer)])
    endpoint = ScriptedEndpoint(model)

    response = post(endpoint, "/v1/messages", MESSAGES)

    # A broken script: refused with the reason and the fix, and not retried.
    assert response.status == 400
    assert dict(response.headers)["x-should-retry"] == "false"
    message = json.loads(response.body)["error"]["message"]
    assert "responder returned an invalid response for call #1" in message
    assert "str or None response_id" in message
    with pytest.raises(InvalidScriptedModelStepError) as caught:
        endpoint.assert_complete()
    assert (caught.value.reason, caught.value.call_index) == ("invalid_response", 0)


@pytest.mark.parametrize(
    ("arguments", "text"),
    [({"city": "Tōkyō", "days": 2}, '{"city":"Tōkyō","days":2}'), (None, "{}")],
)
def test_tool_call_arguments_scripted_as_an_object_go_out_as_compact_json(
    arguments: Any, text: str
) -> None:
    call = {"type": "function_call", "name": "get_weather", "call_id": "c1"}
    if arguments is not None:
        call["arguments"] = arguments
    endpoint = ScriptedEndpoint(ScriptedModel([[call]]))

    message = json.loads(post(endpoint, "/v1/chat/completions", CHAT).body)["choices"][0]

    assert message["message"]["tool_calls"][0]["function"]["arguments"] == text


def test_a_stream_usage_count_that_is_not_an_integer_reads_as_zero() -> None:
    # A response_done event is scripted by hand: a count that is a bool, a string or a float
    # is not a token count, and the wire reports 0 for it rather than pass it on.
    usage = {"input_tokens": True, "output_tokens": "2", "total_tokens": 2.5}
    done = {"type": "response_done", "response": {"output": [], "usage": usage}}
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream([done])]))

    events = sse_events(post(endpoint, "/v1/responses", {**RESPONSES, "stream": True}))

    completed = events[-1][1]["response"]["usage"]
    assert (completed["input_tokens"], completed["output_tokens"]) == (0, 0)
    assert completed["total_tokens"] == 0


@pytest.mark.parametrize(
    ("cached", "reasoning", "counts"),
    [
        ({"cached_tokens": 3}, {"reasoning_tokens": 4}, (3, 4)),
        ([{"cached_tokens": 3}, {"cached_tokens": 2}, "odd"], [{"reasoning_tokens": 4}], (5, 4)),
        ("odd", None, (0, 0)),
    ],
)
def test_a_stream_usage_takes_token_details_as_a_mapping_or_a_list_of_them(
    cached: Any, reasoning: Any, counts: tuple[int, int]
) -> None:
    usage = {
        "input_tokens": 9,
        "output_tokens": 8,
        "input_tokens_details": cached,
        "output_tokens_details": reasoning,
    }
    done = {"type": "response_done", "response": {"output": [], "usage": usage}}
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream([done])]))

    events = sse_events(post(endpoint, "/v1/responses", {**RESPONSES, "stream": True}))

    sent = events[-1][1]["response"]["usage"]
    details = (
        sent["input_tokens_details"]["cached_tokens"],
        sent["output_tokens_details"]["reasoning_tokens"],
    )
    assert details == counts


@pytest.mark.parametrize(
    ("usage", "sent"),
    [
        # Each count alone: none of them may be read as "no usage" and zeroed.
        ({"input_tokens": 5, "total_tokens": 0}, (5, 0, 0, 0, 0)),
        ({"output_tokens": 6, "total_tokens": 0}, (0, 6, 0, 0, 0)),
        ({"total_tokens": 7}, (0, 0, 7, 0, 0)),
        ({"input_tokens_details": {"cached_tokens": 3}}, (0, 0, 0, 3, 0)),
        ({"output_tokens_details": {"reasoning_tokens": 4}}, (0, 0, 0, 0, 4)),
        # Without a total, the total is the input and output counts added.
        ({"input_tokens": 5, "output_tokens": 6}, (5, 6, 11, 0, 0)),
    ],
)
def test_a_stream_usage_reports_each_count_it_was_given(
    usage: dict[str, Any], sent: tuple[int, ...]
) -> None:
    done = {"type": "response_done", "response": {"output": [], "usage": usage}}
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream([done])]))

    events = sse_events(post(endpoint, "/v1/responses", {**RESPONSES, "stream": True}))

    reported = events[-1][1]["response"]["usage"]
    assert (
        reported["input_tokens"],
        reported["output_tokens"],
        reported["total_tokens"],
        reported["input_tokens_details"]["cached_tokens"],
        reported["output_tokens_details"]["reasoning_tokens"],
    ) == sent


def test_output_items_scripted_as_read_only_mappings_are_served_like_dicts() -> None:
    from types import MappingProxyType

    items = [
        MappingProxyType(assistant_message("Checking.")),
        MappingProxyType(
            {"type": "function_call", "name": "get_weather", "call_id": "c1", "arguments": "{}"}
        ),
    ]
    endpoint = ScriptedEndpoint(ScriptedModel([list(items) for _ in range(3)]))

    chat = json.loads(post(endpoint, "/v1/chat/completions", CHAT).body)["choices"][0]
    anthropic = json.loads(post(endpoint, "/v1/messages", MESSAGES).body)["content"]
    responses = json.loads(post(endpoint, "/v1/responses", RESPONSES).body)["output"]

    assert chat["message"]["content"] == "Checking."
    assert chat["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert [block["type"] for block in anthropic] == ["text", "tool_use"]
    assert anthropic[0]["text"] == "Checking."
    assert [item["type"] for item in responses] == ["message", "function_call"]
    endpoint.assert_complete()


@pytest.mark.parametrize(("item_type", "named"), [(5, "'dict'"), ("image", "'image'")])
def test_an_item_anthropic_cannot_carry_is_named_by_its_type_if_it_is_text(
    item_type: Any, named: str
) -> None:
    from agents_testing import WireRequestError

    endpoint = ScriptedEndpoint(ScriptedModel([[{"type": item_type}]]))

    response = post(endpoint, "/v1/messages", MESSAGES)

    assert response.status == 500
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "unsupported_output"
    assert f"has no output item of type {named}" in str(caught.value)


def test_exact_stream_step_streams_its_deltas_then_the_remaining_items() -> None:
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "Let me "},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "check."},
                    {
                        "type": "response_done",
                        "response": {
                            "output": [
                                assistant_message("Let me check.", id="msg_1"),
                                function_call("get_weather", {"city": "Tokyo"}, call_id="c1"),
                            ],
                            "usage": {"input_tokens": 1, "output_tokens": 2},
                        },
                    },
                ]
            )
        ]
    )

    response = post(ScriptedEndpoint(model), "/v1/responses", {**RESPONSES, "stream": True})

    events = sse_events(response)
    assert [name for name, _ in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [data["sequence_number"] for _, data in events] == list(range(len(events)))
    completed = events[-1][1]["response"]
    assert [item["type"] for item in completed["output"]] == ["message", "function_call"]
    assert completed["usage"]["output_tokens"] == 2
    assert model.calls[0].streamed is True


def test_chat_stream_sends_tool_call_deltas_usage_and_done() -> None:
    model = ScriptedModel([[function_call("get_weather", {"city": "Tokyo"}, call_id="c1")]])
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}

    events = sse_events(post(ScriptedEndpoint(model), "/v1/chat/completions", body))

    chunks = [data for _, data in events]
    assert chunks[-1] == "[DONE]"
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    tool_deltas = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks[1:3]]
    assert tool_deltas[0]["id"] == "c1"
    assert tool_deltas[0]["function"]["name"] == "get_weather"
    assert tool_deltas[1]["function"]["arguments"] == '{"city":"Tokyo"}'
    assert chunks[3]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[4]["choices"] == []
    assert chunks[4]["usage"]["total_tokens"] == 0


def test_anthropic_stream_follows_the_message_event_sequence() -> None:
    model = ScriptedModel(
        [
            [
                assistant_message("Checking."),
                function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
            ]
        ]
    )

    events = sse_events(post(ScriptedEndpoint(model), "/v1/messages", {**MESSAGES, "stream": True}))

    assert [name for name, _ in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in events)
    assert events[5][1]["content_block"]["type"] == "tool_use"
    assert json.loads(events[6][1]["delta"]["partial_json"]) == {"city": "Tokyo"}
    assert events[8][1]["delta"]["stop_reason"] == "tool_use"


def test_scripted_provider_events_go_out_verbatim() -> None:
    exact = [
        {"type": "message_start", "message": {"id": "msg_x", "content": []}},
        {"type": "message_stop"},
    ]
    model = ScriptedModel([model_stream(exact)])

    events = sse_events(post(ScriptedEndpoint(model), "/v1/messages", {**MESSAGES, "stream": True}))

    assert events == [("message_start", exact[0]), ("message_stop", exact[1])]


def test_a_wrapped_provider_event_of_any_type_goes_out_verbatim() -> None:
    odd = {"type": ["not", "a", "name"], "data": 1}
    model = ScriptedModel([model_stream([{"type": "model", "event": odd}])])

    response = post(ScriptedEndpoint(model), "/v1/responses", {**RESPONSES, "stream": True})

    assert sse_events(response) == [(None, {**odd, "sequence_number": 0})]


# -- provider errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "error_type"),
    [
        ("/v1/responses", RESPONSES, "rate_limit_exceeded"),
        ("/v1/chat/completions", CHAT, "rate_limit_exceeded"),
        ("/v1/messages", MESSAGES, "rate_limit_error"),
    ],
)
def test_http_error_step_answers_with_status_body_and_retry_after(
    path: str, body: dict[str, Any], error_type: str
) -> None:
    model = ScriptedModel([model_error(ScriptedHTTPError(429, "Slow down", retry_after=2))])

    response = post(ScriptedEndpoint(model), path, body)

    assert response.status == 429
    headers = dict(response.headers)
    assert headers["retry-after"] == "2"
    assert headers["retry-after-ms"] == "2000"
    payload = json.loads(response.body)
    assert payload["error"]["type"] == error_type
    assert payload["error"]["message"] == "Slow down"
    model.assert_complete()  # a scripted error is part of the script, not a violation


@pytest.mark.parametrize(
    ("retry_after", "seconds", "milliseconds"),
    [
        (0, "0", "0"),
        (1.5, "1.5", "1500"),
        (0.25, "0.25", "250"),
        (3600, "3600", "3600000"),  # no exponent: not "3.6e+06"
        (2_000_000.0, "2000000", "2000000000"),
    ],
)
def test_retry_after_headers_are_plain_decimals(
    retry_after: float, seconds: str, milliseconds: str
) -> None:
    error = ScriptedHTTPError(429, "Slow down", retry_after=retry_after)
    model = ScriptedModel([model_error(error)])

    response = post(ScriptedEndpoint(model), "/v1/responses", RESPONSES)

    headers = dict(response.headers)
    assert (headers["retry-after"], headers["retry-after-ms"]) == (seconds, milliseconds)


def test_overloaded_529_uses_the_anthropic_error_type() -> None:
    model = ScriptedModel([model_error(ScriptedHTTPError(529))])

    response = post(ScriptedEndpoint(model), "/v1/messages", MESSAGES)

    assert response.status == 529
    assert json.loads(response.body)["error"]["type"] == "overloaded_error"


def test_other_scripted_exceptions_become_500() -> None:
    model = ScriptedModel([model_error(RuntimeError("backend exploded"))])

    response = post(ScriptedEndpoint(model), "/v1/chat/completions", CHAT)

    assert response.status == 500
    assert "RuntimeError: backend exploded" in json.loads(response.body)["error"]["message"]


def test_error_after_stream_started_ends_the_stream_with_an_error_event() -> None:
    model = stream_failing_after([text_delta("partial")], ScriptedHTTPError(500, "stream broke"))

    response = post(ScriptedEndpoint(model), "/v1/messages", {**MESSAGES, "stream": True})

    assert response.status == 200
    name, data = sse_events(response)[-1]
    assert (name, data["error"]["message"]) == ("error", "stream broke")


def test_error_before_the_first_event_is_the_http_error() -> None:
    model = stream_failing_after([], ScriptedHTTPError(429, "Slow down", retry_after=2))

    response = post(ScriptedEndpoint(model), "/v1/responses", {**RESPONSES, "stream": True})

    # Nothing was sent yet, so the client still gets a status it can retry on.
    assert not response.streamed
    assert response.status == 429
    assert ("retry-after", "2") in response.headers
    assert json.loads(response.body)["error"]["message"] == "Slow down"


def test_responses_error_mid_stream_fails_the_response() -> None:
    deltas = [
        {"type": "output_text_delta", "item_id": "msg_a", "delta": "Done."},
        {"type": "output_text_delta", "item_id": "msg_b", "delta": "It is"},
    ]
    model = stream_failing_after(
        deltas, ScriptedHTTPError(429, "Slow down", code="rate_limit_exceeded")
    )

    response = post(ScriptedEndpoint(model), "/v1/responses", {**RESPONSES, "stream": True})

    assert response.status == 200
    events_sent = sse_events(response)
    # Numbered in the order sent, like every other event of the stream.
    assert [data["sequence_number"] for _, data in events_sent] == list(range(len(events_sent)))
    names = [name for name, _ in events_sent]
    assert names[:2] == ["response.created", "response.in_progress"]
    assert names.count("response.output_item.done") == 1  # only the first message finished
    name, data = events_sent[-1]
    assert (name, data["type"]) == ("response.failed", "response.failed")
    failed = data["response"]
    assert failed["id"] == events_sent[0][1]["response"]["id"] == "resp_scripted_1"
    assert (failed["status"], failed["usage"]) == ("failed", None)
    assert failed["error"] == {
        "code": "rate_limit_exceeded",
        "message": "Slow down",
        "param": None,
        "type": "rate_limit_exceeded",
    }
    # The output as streamed: the finished message, then the one cut off mid-text.
    assert [(item["id"], item["status"]) for item in failed["output"]] == [
        ("msg_a", "completed"),
        ("msg_b", "in_progress"),
    ]
    assert [item["content"][0]["text"] for item in failed["output"]] == ["Done.", "It is"]
    model.assert_complete()  # a scripted failure is part of the script


def test_responses_failure_of_any_exception_is_a_server_error() -> None:
    model = stream_failing_after([{"type": "response_started"}], RuntimeError("backend exploded"))

    response = post(ScriptedEndpoint(model), "/v1/responses", {**RESPONSES, "stream": True})

    name, data = sse_events(response)[-1]
    assert name == "response.failed"
    assert data["response"]["output"] == []
    assert data["response"]["error"]["code"] == "server_error"
    assert data["response"]["error"]["message"] == "RuntimeError: backend exploded"


@pytest.mark.parametrize(
    "terminal", ["response.completed", "response.failed", "response.incomplete"]
)
def test_responses_error_after_a_scripted_terminal_event_is_an_error_event(terminal: str) -> None:
    ended = {"type": terminal, "response": {"id": "resp_x", "status": "x", "output": []}}
    model = stream_failing_after([ended], ScriptedHTTPError(500, "late failure"))

    response = post(ScriptedEndpoint(model), "/v1/responses", {**RESPONSES, "stream": True})

    # A response ends once: a failure after its terminal event belongs to the stream.
    assert [name for name, _ in sse_events(response)] == [terminal, "error"]


class _SourceWithBrokenClose:
    """A scripted stream source whose close fails after (or while) it is read."""

    def __init__(self, events: list[Any]) -> None:
        self._events = iter(events)

    def __aiter__(self) -> _SourceWithBrokenClose:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self._events)
        except StopIteration:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        raise RuntimeError("close broke")


def test_a_violation_keeps_its_answer_when_the_source_close_also_fails() -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream(_SourceWithBrokenClose([42]))]))

    response = post(endpoint, "/v1/responses", {**RESPONSES, "stream": True})

    assert response.status == 500
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "unsupported_output"


@pytest.mark.parametrize(
    ("path", "body", "terminal"),
    [
        ("/v1/messages", MESSAGES, "message_stop"),
        ("/v1/responses", RESPONSES, "response.completed"),
    ],
)
def test_a_source_close_failure_after_a_full_stream_ends_it_with_an_error_event(
    path: str, body: dict[str, Any], terminal: str
) -> None:
    delta = {"type": "output_text_delta", "item_id": None, "delta": "hi"}
    done = {"type": "response_done", "response": {"output": [assistant_message("hi")]}}
    model = ScriptedModel([model_stream(_SourceWithBrokenClose([delta, done]))])

    response = post(ScriptedEndpoint(model), path, {**body, "stream": True})

    assert response.status == 200
    (before, _), (name, data) = sse_events(response)[-2:]
    assert (before, name) == (terminal, "error")
    assert "close broke" in data["error"]["message"]


def test_a_source_close_failure_before_the_response_ended_fails_it() -> None:
    delta = {"type": "output_text_delta", "item_id": None, "delta": "hi"}
    model = ScriptedModel([model_stream(_SourceWithBrokenClose([delta]))])

    response = post(ScriptedEndpoint(model), "/v1/responses", {**RESPONSES, "stream": True})

    name, data = sse_events(response)[-1]
    assert name == "response.failed"
    assert "close broke" in data["response"]["error"]["message"]


def test_scripted_http_error_rejects_a_status_outside_4xx_5xx() -> None:
    with pytest.raises(ValueError, match="status must be an int from 400 to 599"):
        ScriptedHTTPError(200)
    with pytest.raises(ValueError, match="retry_after must be a finite number"):
        ScriptedHTTPError(429, retry_after=-1)


def test_scripted_http_error_pickles_with_its_fields() -> None:
    error = ScriptedHTTPError(429, "Slow down", retry_after=1.5, error_type="x", code="y")

    copy = pickle.loads(pickle.dumps(error))

    assert (copy.status, copy.message, copy.retry_after, copy.error_type, copy.code) == (
        429,
        "Slow down",
        1.5,
        "x",
        "y",
    )


# -- violations ----------------------------------------------------------------------------


def test_unknown_path_answers_404_and_fails_assert_complete() -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([]))

    response = post(endpoint, "/v1/embeddings", {"input": "x"})

    assert response.status == 404
    assert dict(response.headers)["x-should-retry"] == "false"
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    error = caught.value
    assert (error.reason, error.request_index, error.method, error.path) == (
        "unknown_path",
        0,
        "POST",
        "/v1/embeddings",
    )
    assert "request #1 (request_index=0)" in str(error)
    assert "base URL" in str(error)  # says how to fix it


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        (b"{not json", "Expecting property name"),
        (b"[1, 2]", "not a JSON object"),
        (b"\xff\xfe", "codec"),
    ],
)
def test_malformed_json_answers_400_and_is_recorded(raw: bytes, detail: str) -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([]))

    response = post(endpoint, "/v1/chat/completions", raw)

    assert response.status == 400
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "malformed_json"
    assert detail in (caught.value.detail or "")
    assert "send a JSON object" in str(caught.value)


def test_non_post_answers_405() -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([]))

    assert post(endpoint, "/v1/responses", b"", method="GET").status == 405
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "method_not_allowed"


@pytest.mark.parametrize(
    ("path", "body", "detail"),
    [
        ("/v1/chat/completions", {"model": "m"}, "'messages' must be a list"),
        ("/v1/messages", {"messages": [{"role": "system", "content": "x"}]}, "role 'user'"),
        ("/v1/responses", {"model": "m", "input": 3}, "'input' must be"),
        ("/v1/responses", {"model": "m"}, "neither 'input' nor 'prompt'"),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "assistant", "tool_calls": [1]}]},
            "tool_calls entries",
        ),
    ],
)
def test_invalid_body_answers_400_naming_the_field(
    path: str, body: dict[str, Any], detail: str
) -> None:
    model = ScriptedModel([[assistant_message("unused")]])
    endpoint = ScriptedEndpoint(model)

    assert post(endpoint, path, body).status == 400

    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "invalid_body"
    assert detail in (caught.value.detail or "")
    assert model.remaining_steps == 1  # no step was spent on a request it never saw


def test_exhausted_script_answers_400_without_retry_and_fails_the_model() -> None:
    model = ScriptedModel([])
    endpoint = ScriptedEndpoint(model)

    response = post(endpoint, "/v1/chat/completions", CHAT)

    assert response.status == 400
    assert dict(response.headers)["x-should-retry"] == "false"
    assert "no scripted steps remain" in json.loads(response.body)["error"]["message"]
    with pytest.raises(UnexpectedModelCallError) as caught:
        endpoint.assert_complete()
    assert (caught.value.call_index, caught.value.streamed) == (0, False)


def test_exhausted_script_on_a_streamed_call_fails_the_model() -> None:
    model = ScriptedModel([])

    response = post(ScriptedEndpoint(model), "/v1/messages", {**MESSAGES, "stream": True})

    assert response.status == 400
    with pytest.raises(UnexpectedModelCallError) as caught:
        model.assert_complete()
    assert caught.value.streamed is True


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize(
    ("path", "body"), [("/v1/chat/completions", CHAT), ("/v1/messages", MESSAGES)]
)
def test_item_the_format_cannot_express_is_a_violation(
    path: str, body: dict[str, Any], stream: bool
) -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([[{"type": "reasoning", "summary": []}]]))

    # A plain step is answered whole even when streamed, so it still gets its HTTP error.
    assert post(endpoint, path, {**body, "stream": stream}).status == 500

    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "unsupported_output"
    assert "'reasoning'" in (caught.value.detail or "")


@pytest.mark.parametrize(
    "event", [42, {"type": "output_text_delta", "delta": 7}, {"type": "response_done"}]
)
def test_stream_event_without_a_wire_form_is_a_violation(event: Any) -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream([event])]))

    response = post(endpoint, "/v1/responses", {**RESPONSES, "stream": True})

    assert response.status == 500
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "unsupported_output"
    assert repr(event) in (caught.value.detail or "")


@pytest.mark.parametrize(
    ("path", "body", "failure"),
    [("/v1/responses", RESPONSES, "response.failed"), ("/v1/messages", MESSAGES, "error")],
)
def test_stream_event_without_a_wire_form_after_the_first_fails_the_stream(
    path: str, body: dict[str, Any], failure: str
) -> None:
    delta = {"type": "output_text_delta", "item_id": None, "delta": "partial"}
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream([delta, 42])]))

    response = post(endpoint, path, {**body, "stream": True})

    # The status went out with the first event: the stream ends as failed instead.
    assert response.status == 200
    name, data = sse_events(response)[-1]
    assert name == failure
    error = data["response"]["error"] if failure == "response.failed" else data["error"]
    assert error["message"].startswith("agents-testing: ")
    assert "script only items this wire format can express" in error["message"]
    assert [exchange.status for exchange in endpoint.requests] == [200]
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert (caught.value.reason, caught.value.request_index) == ("unsupported_output", 0)
    assert "42" in (caught.value.detail or "")


async def test_open_async_sends_an_exact_stream_as_its_events_come() -> None:
    read: list[str] = []

    async def events() -> Any:
        for text in ("a", "b"):
            read.append(text)
            yield {"type": "output_text_delta", "item_id": None, "delta": text}

    endpoint = ScriptedEndpoint(ScriptedModel([model_stream(events())]))
    body = json.dumps({**RESPONSES, "stream": True}).encode()

    response, rest = await endpoint.open_async("POST", "/v1/responses", HEADERS, body)

    # The head is decided and recorded at the first event; the rest is not produced yet.
    assert (response.status, response.streamed, read) == (200, True, ["a"])
    assert [exchange.status for exchange in endpoint.requests] == [200]
    assert rest is not None
    later = [chunk async for chunk in rest]
    assert read == ["a", "b"]
    sent = sse_events(dataclasses.replace(response, chunks=response.chunks + tuple(later)))
    deltas = [data["delta"] for name, data in sent if name == "response.output_text.delta"]
    assert deltas == ["a", "b"]
    assert sent[-1][0] == "response.completed"
    endpoint.assert_complete()


async def test_open_async_answers_a_plain_step_whole() -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([[assistant_message("hi")]]))
    body = json.dumps({**RESPONSES, "stream": True}).encode()

    response, rest = await endpoint.open_async("POST", "/v1/responses", HEADERS, body)

    assert rest is None
    assert "response.completed" in response.body.decode()


@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/responses", RESPONSES), ("/v1/chat/completions", CHAT), ("/v1/messages", MESSAGES)],
)
@pytest.mark.parametrize(
    "events",
    [
        [text_delta("a"), text_delta("b"), {"type": "response_done", "response": {"output": []}}],
        [text_delta("partial"), 42, text_delta("never sent")],  # fails midway, in the stream
    ],
)
async def test_open_async_answers_a_stream_scripted_as_a_list_whole_with_the_same_bytes(
    path: str, body: dict[str, Any], events: list[Any]
) -> None:
    async def generated() -> Any:
        for event in events:
            yield event

    raw = json.dumps({**body, "stream": True}).encode()
    answers: list[tuple[int, bytes, Any]] = []
    for source in (list(events), tuple(events), generated()):
        endpoint = ScriptedEndpoint(ScriptedModel([model_stream(source)]))
        response, rest = await endpoint.open_async("POST", path, HEADERS, raw)
        # Reading a list ahead runs nothing of the test's: it is encoded whole at once.
        assert (rest is None) is not isinstance(source, AsyncIterator)
        later = b"" if rest is None else b"".join([chunk async for chunk in rest])
        violations = [
            (error.reason, error.request_index)
            for error in endpoint._violations  # pyright: ignore[reportPrivateUsage]
        ]
        answers.append((response.status, response.body + later, violations))

    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0] == 200
    assert answers[0][2] == ([("unsupported_output", 0)] if 42 in events else [])


@pytest.mark.parametrize("body", [b"", b"null", b"{}", b'{"messages": null}', b"\x00" * 5])
@pytest.mark.parametrize(
    "path", ["/v1/responses", "/v1/chat/completions", "/v1/messages", "/", "/v1/models"]
)
def test_any_request_gets_an_http_answer_never_a_crash(path: str, body: bytes) -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([]))

    response = endpoint.handle("POST", path, [], body)

    assert 400 <= response.status < 600
    with pytest.raises(AssertionError):
        endpoint.assert_complete()


def test_unused_steps_fail_assert_complete() -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([[assistant_message("never asked")]]))

    with pytest.raises(UnconsumedModelStepsError):
        endpoint.assert_complete()


def test_wire_request_error_pickles_with_its_fields() -> None:
    error = WireRequestError("unknown_model", 2, "POST", "/v1/responses", "model='x'")

    copy = pickle.loads(pickle.dumps(error))

    assert (copy.reason, copy.request_index, copy.method, copy.path, copy.detail) == (
        "unknown_model",
        2,
        "POST",
        "/v1/responses",
        "model='x'",
    )
    assert str(copy) == str(error)


# -- routing -------------------------------------------------------------------------------


def test_routes_by_model_name() -> None:
    triage = ScriptedModel([[assistant_message("triage")]])
    billing = ScriptedModel([[assistant_message("billing")]])
    endpoint = ScriptedEndpoint({"triage-model": triage, "billing-model": billing})

    post(endpoint, "/v1/chat/completions", {**CHAT, "model": "billing-model"})
    post(endpoint, "/v1/chat/completions", {**CHAT, "model": "triage-model"})

    assert len(triage.calls) == len(billing.calls) == 1
    endpoint.assert_complete()


def test_routes_by_path_prefix() -> None:
    triage = ScriptedModel([[assistant_message("triage")]])
    billing = ScriptedModel([[assistant_message("billing")]])
    endpoint = ScriptedEndpoint({"/triage": triage, "/billing/": billing})

    post(endpoint, "/billing/v1/responses", RESPONSES)
    post(endpoint, "/triage/v1/messages", MESSAGES)

    assert billing.calls[0].request.extra["wire_format"] == "openai.responses"
    assert triage.calls[0].request.extra["wire_format"] == "anthropic.messages"
    endpoint.assert_complete()


def test_unrouted_model_answers_404() -> None:
    endpoint = ScriptedEndpoint({"known": ScriptedModel([])})

    assert post(endpoint, "/v1/chat/completions", {**CHAT, "model": "other"}).status == 404

    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "unknown_model"
    assert caught.value.detail == "model='other'"


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (None, "models must be a ScriptedModel or a mapping"),
        ({"x": object()}, "models\\['x'\\] must be a ScriptedModel"),
        ({1: ScriptedModel([])}, "keys must be model names or paths"),
    ],
)
def test_bad_models_argument_is_a_type_error(models: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        ScriptedEndpoint(models)


def test_empty_routes_are_a_value_error() -> None:
    with pytest.raises(ValueError, match="at least one model"):
        ScriptedEndpoint({})


# -- credentials ---------------------------------------------------------------------------


def test_credentials_never_reach_records_errors_or_reprs() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    endpoint = ScriptedEndpoint(model)

    post(endpoint, "/v1/chat/completions", CHAT)
    post(endpoint, "/v1/chat/completions", CHAT)  # unexpected: a violation
    post(endpoint, "/nowhere", CHAT)  # unknown path: a violation

    headers = model.calls[0].request.extra["headers"]
    assert headers["x-trace"] == "t-1"  # other headers are kept
    assert "authorization" not in headers
    assert "x-api-key" not in headers
    texts = [repr(model.calls), repr(endpoint), repr(endpoint.requests)]
    with pytest.raises(UnexpectedModelCallError) as unexpected:
        model.assert_complete()
    with pytest.raises(WireRequestError) as unknown_path:
        ScriptedEndpoint.assert_complete(endpoint)
    for error in (unexpected.value, unknown_path.value):
        texts += [str(error), repr(error), repr(pickle.dumps(error))]
    assert all(SECRET not in text for text in texts)


# -- responders that await --------------------------------------------------------------------


def _awaiting(answer: Any) -> ScriptedModel:
    """A model whose one step is a responder that awaits, then returns or raises ``answer``."""
    from agents_testing import model_responder

    async def respond(call: Any) -> Any:
        await asyncio.sleep(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return ScriptedModel([model_responder(respond)])


def _post_async(endpoint: ScriptedEndpoint, path: str, body: Any) -> WireResponse:
    return asyncio.run(endpoint.handle_async("POST", path, HEADERS, json.dumps(body).encode()))


def test_an_awaiting_responders_answer_is_rendered_and_numbered_by_its_call() -> None:
    from agents_testing import ModelResponse, Usage

    # Without a response id, the wire id is numbered by the call it answers.
    endpoint = ScriptedEndpoint(_awaiting(ModelResponse([assistant_message("Sunny.")], Usage())))

    response = _post_async(endpoint, "/v1/chat/completions", CHAT)

    assert response.status == 200
    body = json.loads(response.body)
    assert (body["id"], body["choices"][0]["message"]["content"]) == (
        "chatcmpl-scripted-1",
        "Sunny.",
    )
    endpoint.assert_complete()


def test_an_awaiting_responder_that_raises_is_a_broken_script_kept_for_assert_complete() -> None:
    failure = ValueError("no forecast for Tokyo")
    endpoint = ScriptedEndpoint(_awaiting(failure))

    response = _post_async(endpoint, "/v1/chat/completions", CHAT)

    assert response.status == 400
    assert dict(response.headers)["x-should-retry"] == "false"
    error = json.loads(response.body)["error"]
    assert (error["type"], error["code"]) == ("invalid_request_error", "invalid_request_error")
    assert error["message"] == (
        "agents-testing: Scripted wire endpoint request #1 (request_index=0) POST "
        "/v1/chat/completions: script error (ValueError: no forecast for Tokyo); the script "
        "raised while answering this request (its exception is the __cause__): fix the "
        "responder or stream, or the code under test if the script's assertion is right. "
        "Script an HTTP error with model_error() or ScriptedHTTPError instead."
    )
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert (caught.value.reason, caught.value.request_index) == ("script_error", 0)
    assert caught.value.__cause__ is failure


def test_an_http_error_an_awaiting_responder_raises_is_answered_as_scripted() -> None:
    endpoint = ScriptedEndpoint(_awaiting(ScriptedHTTPError(429, "Slow down.")))

    response = _post_async(endpoint, "/v1/chat/completions", CHAT)

    assert response.status == 429
    assert json.loads(response.body)["error"] == {
        "message": "Slow down.",
        "type": "rate_limit_exceeded",
        "param": None,
        "code": "rate_limit_exceeded",
    }
    endpoint.assert_complete()  # a scripted error is no failure of the script


def test_overlapping_awaiting_responders_number_their_responses_by_their_own_calls() -> None:
    from agents_testing import ModelResponse, Usage, model_responder

    # Both calls are recorded before either answers: each wire id still names its own call.
    both_started = asyncio.Event()
    started: list[int] = []

    async def respond(call: Any) -> Any:
        started.append(call.index)
        if len(started) == 2:
            both_started.set()
        await both_started.wait()
        return ModelResponse([assistant_message(f"call {call.index}")], Usage())

    model = ScriptedModel([model_responder(respond), model_responder(respond)])
    endpoint = ScriptedEndpoint(model)

    async def main() -> list[WireResponse]:
        raw = json.dumps(CHAT).encode()
        return list(
            await asyncio.gather(
                *(endpoint.handle_async("POST", "/v1/chat/completions", HEADERS, raw) for _ in "ab")
            )
        )

    bodies = [json.loads(response.body) for response in asyncio.run(main())]

    assert [(body["id"], body["choices"][0]["message"]["content"]) for body in bodies] == [
        ("chatcmpl-scripted-1", "call 0"),
        ("chatcmpl-scripted-2", "call 1"),
    ]
    endpoint.assert_complete()


@pytest.mark.parametrize(
    ("length", "summary"),
    [
        (500, "ValueError: " + "x" * 488),  # 500 characters: whole
        (501, "ValueError: " + "x" * 485 + "..."),  # one more: cut to 500 with an ellipsis
    ],
)
def test_the_summary_of_a_scripts_exception_is_cut_to_500_characters(
    length: int, summary: str
) -> None:
    endpoint = ScriptedEndpoint(_awaiting(ValueError("x" * (length - len("ValueError: ")))))

    response = _post_async(endpoint, "/v1/chat/completions", CHAT)

    message = json.loads(response.body)["error"]["message"]
    assert f"script error ({summary}); the script raised" in message


# -- failures the script meant, in streams ----------------------------------------------------


def _failing_events(call: Any) -> Any:
    """A stream responder's events: one text delta, then the stream fails."""

    async def events() -> Any:
        yield text_delta("Sun")
        raise ConnectionResetError("upstream went away")

    return events()


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (model_error(ValueError("boom")), "ValueError: boom"),
        (model_stream_responder(_failing_events), "ConnectionResetError: upstream went away"),
    ],
    ids=["error step", "stream responder"],
)
def test_a_streamed_call_failing_as_scripted_is_answered_as_the_scripts_error(
    step: Any, message: str
) -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([step]))

    response = post(endpoint, "/v1/chat/completions", {**CHAT, "stream": True})

    # The failure is the script's own: an error answer (or event), not a broken script.
    assert message in response.body.decode()
    assert "script error" not in response.body.decode()
    endpoint.assert_complete()


def test_a_sync_call_from_inside_an_event_loop_runs_on_a_named_thread_of_its_own() -> None:
    from agents_testing import model_responder

    threads: list[threading.Thread] = []

    def respond(call: Any) -> Any:
        threads.append(threading.current_thread())
        return [assistant_message("Sunny.")]

    endpoint = ScriptedEndpoint(ScriptedModel([model_responder(respond)]))

    async def client() -> WireResponse:
        return post(endpoint, "/v1/chat/completions", CHAT)  # a sync client inside a loop

    response = asyncio.run(client())

    assert response.status == 200
    assert json.loads(response.body)["choices"][0]["message"]["content"] == "Sunny."
    assert threads[0] is not threading.main_thread()
    assert threads[0].name == "agents-testing-wire"


def test_what_the_script_raises_to_stop_reaches_a_sync_caller_inside_an_event_loop() -> None:
    from agents_testing import model_responder

    stop = SystemExit("stopping")

    def respond(call: Any) -> Any:
        raise stop

    endpoint = ScriptedEndpoint(ScriptedModel([model_responder(respond)]))

    async def client() -> WireResponse:
        return post(endpoint, "/v1/chat/completions", CHAT)

    with pytest.raises(SystemExit) as caught:
        asyncio.run(client())
    assert caught.value is stop


def test_a_call_the_script_did_not_expect_is_a_400_carrying_the_models_own_message() -> None:
    model = ScriptedModel([])
    endpoint = ScriptedEndpoint(model)

    response = post(endpoint, "/v1/chat/completions", {"model": "gpt-test", "messages": []})

    assert response.status == 400
    assert dict(response.headers)["x-should-retry"] == "false"
    assert json.loads(response.body) == {
        "error": {
            "message": "agents-testing: ScriptedModel received unexpected non-streaming call #1; "
            "no scripted steps remain. Call #1 (call_index=0) sent: no input; no tools. Add a "
            "step for it to the script (ScriptedModel([...]) or model.enqueue(...)), or find why "
            "the code under test called the model again.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    }
    with pytest.raises(UnexpectedModelCallError) as caught:
        model.assert_complete()
    assert caught.value.call_index == 0


def _responses_stream(events: list[Any]) -> WireResponse:
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream(events)]))
    return post(endpoint, "/v1/responses", {**RESPONSES, "stream": True})


@pytest.mark.parametrize(("item_id", "sent_id"), [("msg_1", "msg_1"), (5, "msg_scripted_1_0")])
def test_a_text_deltas_item_id_is_used_only_when_it_is_text(item_id: Any, sent_id: str) -> None:
    done = {
        "type": "response_done",
        "response": {"output": [assistant_message("Hi")], "usage": {}},
    }

    events = sse_events(_responses_stream([{**text_delta("Hi"), "item_id": item_id}, done]))

    added = [data for name, data in events if name == "response.output_item.added"]
    assert [data["item"]["id"] for data in added] == [sent_id]


def test_a_model_event_without_a_provider_event_is_refused_as_unsupported_output() -> None:
    response = _responses_stream([{"type": "model", "event": "not an event"}])

    assert response.status == 500
    assert json.loads(response.body)["error"]["message"] == (
        "agents-testing: Scripted wire endpoint request #1 (request_index=0) POST /v1/responses: "
        "unsupported output (stream event {'type': 'model', 'event': 'not an event'} has no "
        "wire form); script only items this wire format can express."
    )


def test_a_provider_event_scripted_whole_goes_out_whole_even_with_an_event_field() -> None:
    response = _responses_stream([{"type": "response.custom", "event": {"a": 1}}])

    assert sse_events(response) == [
        ("response.custom", {"type": "response.custom", "event": {"a": 1}, "sequence_number": 0})
    ]


def test_a_stream_answers_with_exactly_the_event_stream_headers() -> None:
    endpoint = ScriptedEndpoint(ScriptedModel([[assistant_message("ok")]]))

    response = post(endpoint, "/v1/chat/completions", {**CHAT, "stream": True})

    assert response.headers == (
        ("content-type", "text/event-stream; charset=utf-8"),
        ("cache-control", "no-cache"),
        ("x-request-id", "req_scripted_1"),
    )


def test_a_streamed_call_the_script_did_not_expect_is_a_400_carrying_the_models_message() -> None:
    model = ScriptedModel([])
    endpoint = ScriptedEndpoint(model)

    response = post(endpoint, "/v1/chat/completions", {**CHAT, "stream": True})

    assert response.status == 400
    assert json.loads(response.body)["error"]["message"] == (
        "agents-testing: ScriptedModel received unexpected streaming call #1; no scripted steps "
        "remain. Call #1 (call_index=0) sent: last input user message 'Weather in Tokyo?'; no "
        "tools. Add a step for it to the script (ScriptedModel([...]) or model.enqueue(...)), "
        "or find why the code under test called the model again."
    )
    with pytest.raises(UnexpectedModelCallError) as caught:
        model.assert_complete()
    assert caught.value.call_index == 0


def test_a_stream_whose_script_fails_an_assertion_midway_ends_with_a_broken_script_error() -> None:
    failure = AssertionError("expected a tool call")

    def respond(call: Any) -> Any:
        async def events() -> Any:
            yield text_delta("Sun")
            raise failure

        return events()

    endpoint = ScriptedEndpoint(ScriptedModel([model_stream_responder(respond)]))

    response = post(endpoint, "/v1/chat/completions", {**CHAT, "stream": True})

    assert response.status == 200  # the status went out with the first delta
    last = json.loads(response.body.decode().strip().split("\n\n")[-1][len("data: ") :])
    assert last == {
        "error": {
            "message": "agents-testing: Scripted wire endpoint request #1 (request_index=0) POST "
            "/v1/chat/completions: script error (AssertionError: expected a tool call); the "
            "script raised while answering this request (its exception is the __cause__): fix "
            "the responder or stream, or the code under test if the script's assertion is "
            "right. Script an HTTP error with model_error() or ScriptedHTTPError instead.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    }
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert (caught.value.reason, caught.value.request_index) == ("script_error", 0)
    assert caught.value.__cause__ is failure


def test_each_answered_request_is_recorded_whole_and_numbered() -> None:
    from agents_testing.wire import WireExchange

    model = ScriptedModel([[assistant_message("ok")], [assistant_message("ok")]])
    endpoint = ScriptedEndpoint(model)

    first = post(endpoint, "/v1/chat/completions?api-version=1", CHAT)
    second = post(endpoint, "/v1/chat/completions", {**CHAT, "stream": True})

    assert endpoint.requests == (
        WireExchange(
            0, "POST", "/v1/chat/completions", 200, "openai.chat_completions", "gpt-test", False
        ),
        WireExchange(
            1, "POST", "/v1/chat/completions", 200, "openai.chat_completions", "gpt-test", True
        ),
    )
    assert first.headers == (
        ("content-type", "application/json"),
        ("x-request-id", "req_scripted_1"),
    )
    assert dict(second.headers)["x-request-id"] == "req_scripted_2"
    assert repr(endpoint) == "<ScriptedEndpoint requests=2 violations=0>"


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(("levels", "status"), [(255, 200), (256, 400)])
def test_a_body_is_served_up_to_256_levels_deep(levels: int, status: int) -> None:
    # The body's object is level 1, so metadata nested ``levels`` lists deep makes 1 + levels.
    model = ScriptedModel([[assistant_message("ok")]])
    endpoint = ScriptedEndpoint(model)

    response = post(endpoint, "/v1/chat/completions", {**CHAT, "metadata": _nested(levels)})

    assert response.status == status


@pytest.mark.parametrize(("levels", "status"), [(255, 200), (256, 400)])
def test_the_depth_limit_holds_for_a_body_with_more_brackets_than_levels(
    levels: int, status: int
) -> None:
    # Enough brackets elsewhere that the depth is measured, not ruled out by the count.
    model = ScriptedModel([[assistant_message("ok")]])
    endpoint = ScriptedEndpoint(model)
    body = {**CHAT, "metadata": _nested(levels), "tags": [[] for _ in range(10)]}

    response = post(endpoint, "/v1/chat/completions", body)

    assert response.status == status
    if status == 400:
        with pytest.raises(WireRequestError) as caught:
            endpoint.assert_complete()
        assert caught.value.detail == "the body nests 257 levels deep, more than the 256 served"


def test_a_wide_body_with_many_brackets_is_not_too_deep() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    wide = [[["x"]] for _ in range(200)]  # 401 brackets, 4 levels

    response = post(ScriptedEndpoint(model), "/v1/chat/completions", {**CHAT, "metadata": wide})

    assert response.status == 200


def test_requests_refused_before_or_while_parsing_are_recorded_with_what_was_known() -> None:
    from agents_testing.wire import WireExchange

    endpoint = ScriptedEndpoint(ScriptedModel([[assistant_message("ok")]]))

    post(endpoint, "/nope", {})
    malformed = post(endpoint, "/v1/chat/completions", [1])
    deep = post(endpoint, "/v1/chat/completions", {**CHAT, "metadata": _nested(256)})
    post(endpoint, "/v1/chat/completions", {**CHAT, "model": 5})

    chat = "openai.chat_completions"
    assert endpoint.requests == (
        WireExchange(0, "POST", "/nope", 404, None, None, False),
        WireExchange(1, "POST", "/v1/chat/completions", 400, chat, None, False),
        WireExchange(2, "POST", "/v1/chat/completions", 400, chat, None, False),  # not parsed
        WireExchange(3, "POST", "/v1/chat/completions", 200, chat, None, False),  # not a name
    )
    assert (
        "malformed json (the body is not a JSON object); send a JSON object"
        in (json.loads(malformed.body)["error"]["message"])
    )
    assert json.loads(deep.body)["error"]["message"].startswith(
        "agents-testing: Scripted wire endpoint request #3 (request_index=2) POST "
        "/v1/chat/completions: too deep (the body nests "
    )


@pytest.mark.parametrize(
    ("models", "error", "message"),
    [
        ({5: ScriptedModel([])}, TypeError, "models keys must be model names or paths, got 5"),
        ({"a": 5}, TypeError, "models['a'] must be a ScriptedModel, got int"),
        ({}, ValueError, "models must route at least one model"),
        (
            5,
            TypeError,
            "models must be a ScriptedModel or a mapping of model names or path prefixes to "
            "ScriptedModels, got int",
        ),
    ],
)
def test_models_that_cannot_route_are_refused_naming_the_argument(
    models: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        ScriptedEndpoint(models)
    assert str(caught.value) == message


def test_the_longest_path_prefix_wins_and_a_trailing_slash_is_ignored() -> None:
    outer = ScriptedModel([[assistant_message("outer")]])
    inner = ScriptedModel([[assistant_message("inner")]])
    named = ScriptedModel([[assistant_message("named")]])
    endpoint = ScriptedEndpoint({"/team": outer, "/team/triage/": inner, "gpt-test": named})

    deep = post(endpoint, "/team/triage/v1/chat/completions", CHAT)
    shallow = post(endpoint, "/team/v1/chat/completions", CHAT)
    by_name = post(endpoint, "/v1/chat/completions", CHAT)

    texts = [
        json.loads(r.body)["choices"][0]["message"]["content"] for r in (deep, shallow, by_name)
    ]
    assert texts == ["inner", "outer", "named"]


def test_a_path_key_drops_only_its_trailing_slashes() -> None:
    team = ScriptedModel([[assistant_message("team")]])
    endpoint = ScriptedEndpoint({"/ops/teamX//": team})

    served = post(endpoint, "/ops/teamX/v1/chat/completions", CHAT)
    other = post(endpoint, "/ops/team/v1/chat/completions", CHAT)

    assert json.loads(served.body)["choices"][0]["message"]["content"] == "team"
    assert other.status == 404  # no default model and no route: unknown_model
    assert endpoint.requests[1].status == 404


def test_a_model_name_key_is_matched_whole_even_with_a_trailing_slash() -> None:
    named = ScriptedModel([[assistant_message("named")]])
    endpoint = ScriptedEndpoint({"tuned/": named})

    trimmed = post(endpoint, "/v1/chat/completions", {**CHAT, "model": "tuned"})
    whole = post(endpoint, "/v1/chat/completions", {**CHAT, "model": "tuned/"})

    assert trimmed.status == 404
    assert json.loads(whole.body)["choices"][0]["message"]["content"] == "named"


def test_a_path_key_is_never_matched_as_a_model_name() -> None:
    team = ScriptedModel([[assistant_message("team")]])
    endpoint = ScriptedEndpoint({"/team": team})

    response = post(endpoint, "/v1/chat/completions", {**CHAT, "model": "/team"})

    assert response.status == 404
    assert team.remaining_steps == 1
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert (caught.value.reason, caught.value.detail) == ("unknown_model", "model='/team'")


def test_a_close_failure_after_a_stream_was_refused_midway_keeps_the_refusal() -> None:
    # The stream fails in its own events after its status went out; closing the source it
    # stopped reading then fails too. The refusal stays what the client and the test see.
    source = _SourceWithBrokenClose([text_delta("hi"), 42])
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream(source)]))

    response = post(endpoint, "/v1/responses", {**RESPONSES, "stream": True})

    assert response.status == 200
    name, data = sse_events(response)[-1]
    assert name == "response.failed"
    assert (
        "unsupported output (stream event 42 has no wire form)"
        in (data["response"]["error"]["message"])
    )
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == "unsupported_output"


def _text_of(path: str, response: WireResponse) -> Any:
    """Return the text a client reads from a response, whole or streamed, in any format."""
    if not response.streamed:
        body = json.loads(response.body)
        if path == "/v1/responses":
            return body["output"][0]["content"][0]["text"]
        if path == "/v1/chat/completions":
            return body["choices"][0]["message"]["content"]
        return body["content"][0]["text"]
    events = [data for _, data in sse_events(response) if data != "[DONE]"]
    if path == "/v1/responses":
        return events[-1]["response"]["output"][0]["content"][0]["text"]
    if path == "/v1/chat/completions":
        return "".join(event["choices"][0]["delta"].get("content") or "" for event in events)
    return "".join(
        event["delta"]["text"] for event in events if event["type"] == "content_block_delta"
    )


@pytest.mark.parametrize(
    ("path", "body"),
    [("/v1/responses", RESPONSES), ("/v1/chat/completions", CHAT), ("/v1/messages", MESSAGES)],
)
def test_a_plain_step_whose_text_is_not_a_string_streams_as_it_is_answered_whole(
    path: str, body: dict[str, Any]
) -> None:
    part = {"type": "output_text", "text": 5}
    message = {"type": "message", "role": "assistant", "id": "m1", "content": [part]}
    endpoint = ScriptedEndpoint(ScriptedModel([[message], [message]]))

    whole = post(endpoint, path, body)
    streamed = post(endpoint, path, {**body, "stream": True})

    assert (whole.status, streamed.status) == (200, 200)
    assert _text_of(path, streamed) == _text_of(path, whole)
    endpoint.assert_complete()
