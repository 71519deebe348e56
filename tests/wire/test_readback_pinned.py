"""What each recorded provider answer reads back as, pinned whole.

``read_answer`` is what ``RecordingProxy`` calls on every answer it relays: a Responses, Chat
Completions or Messages body (or its server-sent events) becomes the step a script replays,
an HTTP error a ``ScriptedHTTPError``, and a stream that cannot be a plain step its exact
events. Each test gives one answer as the provider sends it and compares the whole step.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from agents_testing import ScriptedHTTPError, Usage, assistant_message, function_call
from agents_testing.wire._readback import ReadStep, read_answer, sse_events, wire_format_of

RESPONSES = "openai.responses"
CHAT = "openai.chat_completions"
MESSAGES = "anthropic.messages"

THINKING_NOTE = (
    "its stream holds Anthropic thinking blocks: kept as its exact events (model_stream), "
    "so the replay streams them before the text, as the provider did"
)


def sse(*events: Any, done: bool = False) -> str:
    """The server-sent events text of ``events``, each named by its type as providers do."""
    blocks = []
    for event in events:
        kind = event.get("type") if isinstance(event, dict) else None
        name = f"event: {kind}\n" if isinstance(kind, str) else ""
        blocks.append(f"{name}data: {json.dumps(event)}\n\n")
    if done:
        blocks.append("data: [DONE]\n\n")
    return "".join(blocks)


def body(wire_format: str, answer: Any, status: int = 200) -> ReadStep | None:
    return read_answer(wire_format, status, [], json.dumps(answer), streamed=False)


def streamed(wire_format: str, text: str, *, keep_events: bool = False) -> ReadStep | None:
    if keep_events:
        return read_answer(wire_format, 200, [], text, streamed=True, keep_events=True)
    return read_answer(wire_format, 200, [], text, streamed=True)  # a plain step by default


def response(output: list[Any], usage: Usage, response_id: str | None) -> ReadStep:
    return ReadStep("response", output=output, usage=usage, response_id=response_id)


def model_events(*events: Any) -> list[Any]:
    """Events without a provider type of their own, as the exact stream wraps them."""
    return [{"type": "model", "event": event} for event in events]


def error_of(read: ReadStep | None) -> tuple[Any, ...]:
    """The error step's error fields (with the delay's type: 2 and 2.0 differ in a script)."""
    assert read is not None
    error = read.error
    assert isinstance(error, ScriptedHTTPError)
    assert dataclasses.replace(read, error=None) == ReadStep("error")
    delay = error.retry_after
    return (error.status, error.message, delay, type(delay), error.error_type, error.code)


# -- wire formats by path -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/v1/chat/completions", CHAT),
        ("/v1/responses", RESPONSES),
        ("/v1/messages", MESSAGES),
        ("/v1/responses/", RESPONSES),
        ("/openai/v1/chat/completions//", CHAT),
        ("/v1/messages?beta=true", MESSAGES),
        ("/v1/responses?next=/v1/messages", RESPONSES),
        ("/v1/messages/?beta=true", MESSAGES),
        ("/v1/models", None),
        ("/v1/messages/count_tokens", None),
        ("/v1/messagesX", None),
        ("/v1/responses /", None),
        ("?/v1/messages", None),
        ("", None),
    ],
)
def test_a_request_path_is_served_as_the_format_its_path_ends_with(
    path: str, expected: str | None
) -> None:
    assert wire_format_of(path) == expected


# -- server-sent events ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('event: a\ndata: {"n": 1}\n\nevent: b\ndata: {"n": 2}\n\n', [{"n": 1}, {"n": 2}]),
        ("data: [1,\ndata: 2]\n\n", [[1, 2]]),
        ("data: [1,\r\ndata: 2]\r\n\r\ndata: 3\r\n\r\n", [[1, 2], 3]),
        ("data: [1,\rdata: 2]\r\rdata: 3\r\r", [[1, 2], 3]),
        ("data:[7]\n\ndata:{}\n\n", [[7], {}]),
        (": keep-alive\n\nevent: ping\n\ndata: 4\n\n", [4]),
        ("data: [DONE]\n\ndata: {oops\n\ndata: 5\n\n", [5]),
        ("id: 1\nretry: 10\ndata: 6\n\n", [6]),
        ("event: only\n", []),
        ("", []),
    ],
    ids=[
        "two-events",
        "multi-line-data",
        "crlf",
        "cr",
        "no-space-after-colon",
        "blocks-without-data-skipped",
        "non-json-skipped",
        "other-fields-ignored",
        "no-data",
        "empty",
    ],
)
def test_sse_events_are_the_json_data_of_each_event(text: str, expected: list[Any]) -> None:
    assert sse_events(text) == expected


def test_data_nested_too_deep_for_the_parser_is_skipped_and_the_rest_read() -> None:
    assert sse_events(f"data: {'[' * 100_000}\n\ndata: 8\n\n") == [8]


# -- HTTP errors ----------------------------------------------------------------------------


def test_an_openai_rate_limit_keeps_its_message_delay_and_unusual_type() -> None:
    answer = {
        "error": {
            "message": "Rate limit reached for gpt-4.1.",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    headers = [("Retry-After", "2"), ("Content-Type", "application/json")]

    read = read_answer(RESPONSES, 429, headers, json.dumps(answer), streamed=False)

    # The code is the one the endpoint sends for a 429 anyway: left out.
    assert error_of(read) == (429, "Rate limit reached for gpt-4.1.", 2, int, "requests", None)


@pytest.mark.parametrize("wire_format", [RESPONSES, CHAT])
def test_an_openai_error_of_the_usual_type_keeps_only_an_unusual_code(wire_format: str) -> None:
    answer = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }

    read = body(wire_format, answer, status=400)

    assert error_of(read) == (
        400,
        "This model's maximum context length is 8192 tokens.",
        None,
        type(None),
        None,
        "context_length_exceeded",
    )


@pytest.mark.parametrize("wire_format", [RESPONSES, CHAT])
def test_an_openai_server_error_of_the_usual_type_and_code_reads_as_its_status(
    wire_format: str,
) -> None:
    answer = {"error": {"message": "Boom.", "type": "server_error", "code": "server_error"}}

    assert error_of(body(wire_format, answer, status=503)) == (
        503,
        "Boom.",
        None,
        type(None),
        None,
        None,
    )


@pytest.mark.parametrize(
    ("status", "error_type", "expected_type"),
    [
        (529, "overloaded_error", None),
        (429, "rate_limit_error", None),
        (400, "invalid_request_error", None),
        (500, "api_error", None),
        (500, "overloaded_error", "overloaded_error"),
        (599, "api_error", None),
    ],
)
def test_an_anthropic_error_keeps_its_type_only_where_the_status_would_not_send_it(
    status: int, error_type: str, expected_type: str | None
) -> None:
    answer = {"type": "error", "error": {"type": error_type, "message": "Try later."}}

    assert error_of(body(MESSAGES, answer, status=status)) == (
        status,
        "Try later.",
        None,
        type(None),
        expected_type,
        None,
    )


def test_an_anthropic_error_keeps_a_code_its_errors_never_carry() -> None:
    answer = {"type": "error", "error": {"type": "api_error", "message": "M.", "code": "c1"}}

    assert error_of(body(MESSAGES, answer, status=500)) == (500, "M.", None, type(None), None, "c1")


@pytest.mark.parametrize("wire_format", [RESPONSES, CHAT, MESSAGES])
@pytest.mark.parametrize(
    "text",
    [
        "upstream connect error",
        "[1, 2]",
        '{"error": "overloaded"}',
        '{"error": {"message": 5, "type": ["x"], "code": 7}}',
        '{"detail": "no error field"}',
        "[" * 100_000,
        "",
    ],
    ids=["not-json", "a-list", "error-a-string", "fields-not-strings", "no-error", "deep", "empty"],
)
def test_an_error_body_without_a_readable_error_is_the_bare_status(
    wire_format: str, text: str
) -> None:
    read = read_answer(wire_format, 502, [], text, streamed=False)

    assert error_of(read) == (502, None, None, type(None), None, None)


@pytest.mark.parametrize(("status", "expected"), [(400, 400), (599, 599), (600, 500), (999, 500)])
def test_an_error_status_beyond_599_is_scripted_as_a_500(status: int, expected: int) -> None:
    assert error_of(read_answer(RESPONSES, status, [], "", streamed=False)) == (
        expected,
        None,
        None,
        type(None),
        None,
        None,
    )


def test_a_status_below_400_is_no_error_but_a_body_to_read() -> None:
    read = read_answer(RESPONSES, 399, [], '{"id": "resp_1"}', streamed=False)

    assert read == response([], Usage(), "resp_1")


def test_an_error_of_a_streamed_call_is_read_from_its_json_body() -> None:
    answer = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

    read = read_answer(MESSAGES, 529, [], json.dumps(answer), streamed=True, keep_events=True)

    assert error_of(read) == (529, "Overloaded", None, type(None), None, None)


@pytest.mark.parametrize(
    ("headers", "delay"),
    [
        ([("retry-after", "2")], 2),
        ([("Retry-After", "2.5")], 2.5),
        ([("retry-after", "0")], 0),
        ([("retry-after", "0.0")], 0),
        ([("retry-after-ms", "1500"), ("retry-after", "9")], 1.5),
        ([("retry-after", "9"), ("Retry-After-Ms", "2000")], 2),
        ([("retry-after-ms", "soon"), ("retry-after", "3")], 3),
        ([("retry-after-ms", "-5"), ("retry-after", "3")], 3),
        ([("retry-after-ms", "inf"), ("retry-after", "4")], 4),
        ([("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")], None),
        ([("retry-after", "-1")], None),
        ([("retry-after", "nan")], None),
        ([("retry-after", "inf")], None),
        ([("retry-after", "1e999")], None),
        ([("x-retry-after", "5"), ("content-type", "application/json")], None),
        ([], None),
    ],
)
def test_the_retry_delay_is_the_first_readable_finite_delay_in_seconds(
    headers: list[tuple[str, str]], delay: float | None
) -> None:
    read = read_answer(CHAT, 429, headers, "{}", streamed=False)

    assert error_of(read) == (429, None, delay, type(delay), None, None)


def test_the_headers_are_read_from_any_iterable_of_pairs() -> None:
    headers = iter([("retry-after-ms", "250")])

    read = read_answer(RESPONSES, 429, headers, "{}", streamed=False)

    assert error_of(read) == (429, None, 0.25, float, None, None)


# -- OpenAI Responses -----------------------------------------------------------------------

WEATHER_CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"city": "Paris"}',
    "status": "completed",
}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ZW5j"}
RESPONSES_BODY: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "status": "completed",
    "output": [
        REASONING,
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
        },
        WEATHER_CALL,
    ],
    "usage": {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 4},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 20},
        "total_tokens": 45,
    },
}
RESPONSES_STEP = response(
    [
        REASONING,
        assistant_message("Sunny.", id="msg_1"),
        function_call("get_weather", '{"city": "Paris"}', call_id="call_1", id="fc_1"),
    ],
    Usage(
        input_tokens=12,
        output_tokens=30,
        total_tokens=45,
        input_tokens_details={"cached_tokens": 4},
        output_tokens_details={"reasoning_tokens": 20},
    ),
    "resp_1",
)


def test_a_responses_body_reads_as_its_items_usage_and_id() -> None:
    assert body(RESPONSES, RESPONSES_BODY) == RESPONSES_STEP


def message_item(content: Any) -> dict[str, Any]:
    return {"type": "message", "id": "msg_2", "role": "assistant", "content": content}


@pytest.mark.parametrize(
    "item",
    [
        message_item([{"type": "output_text", "text": "A"}, {"type": "output_text", "text": "B"}]),
        message_item([{"type": "refusal", "refusal": "I can't help with that."}]),
        message_item([{"type": "output_text", "text": None}]),
        message_item([{"type": "output_text"}]),
        message_item([{"type": "output_text", "text": "A"}, "junk"]),
        message_item(["junk"]),
        message_item([]),
        message_item("Hi."),
        {**WEATHER_CALL, "name": None},
        {**WEATHER_CALL, "call_id": 7},
        {**WEATHER_CALL, "arguments": {"city": "Paris"}},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"id": "no_type"},
    ],
    ids=[
        "two-texts",
        "refusal",
        "text-null",
        "text-missing",
        "text-and-junk",
        "junk-part",
        "no-parts",
        "content-a-string",
        "call-without-name",
        "call-id-not-a-string",
        "arguments-not-a-string",
        "hosted-tool-call",
        "no-type",
    ],
)
def test_a_responses_item_no_helper_builds_is_kept_as_sent(item: dict[str, Any]) -> None:
    read = body(RESPONSES, {"output": [item]})

    assert read == response([item], Usage(), None)


def test_a_responses_message_and_call_without_ids_read_without_them() -> None:
    answer = {
        "output": [
            {"type": "message", "content": [{"type": "output_text", "text": "Hi."}]},
            {
                "type": "function_call",
                "call_id": "call_9",
                "name": "lookup",
                "namespace": "crm",
                "arguments": "",
            },
        ]
    }

    assert body(RESPONSES, answer) == response(
        [
            {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Hi."}],
            },
            {
                "type": "function_call",
                "name": "lookup",
                "call_id": "call_9",
                "id": "call_9",
                "namespace": "crm",
                "status": "completed",
                "arguments": "",
                "provider_data": None,
            },
        ],
        Usage(),
        None,
    )


def test_responses_output_that_is_not_items_is_left_out() -> None:
    answer = {"id": 5, "output": ["junk", 3, None, [REASONING], REASONING]}

    assert body(RESPONSES, answer) == response([REASONING], Usage(), None)


def test_responses_output_that_is_not_a_list_reads_as_no_items() -> None:
    assert body(RESPONSES, {"id": "resp_3", "output": REASONING}) == response([], Usage(), "resp_3")


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"input_tokens": 5, "output_tokens": 7}, Usage(input_tokens=5, output_tokens=7)),
        (
            {"input_tokens": 5, "output_tokens": 7, "total_tokens": 20},
            Usage(input_tokens=5, output_tokens=7, total_tokens=20),
        ),
        (
            {"input_tokens": 5, "output_tokens": 7, "total_tokens": "20"},
            Usage(input_tokens=5, output_tokens=7, total_tokens=12),
        ),
        (
            {"input_tokens": 5, "output_tokens": 7, "total_tokens": 20.0},
            Usage(input_tokens=5, output_tokens=7, total_tokens=12),
        ),
        (
            {"input_tokens": 5, "output_tokens": 7, "total_tokens": True},
            Usage(input_tokens=5, output_tokens=7, total_tokens=12),
        ),
        (
            {"input_tokens": True, "output_tokens": 7.5, "total_tokens": None},
            Usage(input_tokens=0, output_tokens=0, total_tokens=0),
        ),
        (
            {
                "input_tokens": 5,
                "output_tokens": 7,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
            Usage(input_tokens=5, output_tokens=7),
        ),
        (
            {
                "input_tokens": 5,
                "output_tokens": 7,
                "input_tokens_details": [{"cached_tokens": 3}],
                "output_tokens_details": {"reasoning_tokens": "2"},
            },
            Usage(input_tokens=5, output_tokens=7),
        ),
        (
            {"input_tokens_details": {"cached_tokens": 3}},
            Usage(input_tokens_details={"cached_tokens": 3}),
        ),
        (
            {"output_tokens_details": {"reasoning_tokens": True}},
            Usage(),
        ),
        ("12 tokens", Usage()),
    ],
    ids=[
        "total-computed",
        "total-as-sent",
        "total-a-string",
        "total-a-float",
        "total-a-bool",
        "counts-not-ints",
        "zero-details",
        "details-not-read",
        "cached-alone",
        "reasoning-a-bool",
        "usage-a-string",
    ],
)
def test_responses_usage_reads_its_integer_counts_only(usage: Any, expected: Usage) -> None:
    assert body(RESPONSES, {"output": [], "usage": usage}) == response([], expected, None)


def responses_stream(completed: Any, *, before: tuple[Any, ...] = ()) -> str:
    return sse(
        {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
        *before,
        {"type": "response.output_text.delta", "sequence_number": 1, "delta": "Sunny."},
        {"type": "response.completed", "sequence_number": 2, "response": completed},
    )


def test_a_completed_responses_stream_reads_as_its_final_response() -> None:
    assert streamed(RESPONSES, responses_stream(RESPONSES_BODY, before=(5, "x"))) == RESPONSES_STEP


def test_the_first_completed_event_of_a_responses_stream_is_the_one_read() -> None:
    other = {"id": "resp_2", "output": []}
    text = responses_stream(RESPONSES_BODY) + sse({"type": "response.completed", "response": other})

    assert streamed(RESPONSES, text) == RESPONSES_STEP


def test_a_responses_stream_whose_completed_response_is_not_an_object_is_kept_exact() -> None:
    events = [
        {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
        {"type": "response.output_text.delta", "sequence_number": 1, "delta": "Sunny."},
        {"type": "response.completed", "sequence_number": 2, "response": "done"},
    ]
    later = {"type": "response.completed", "response": {"id": "resp_2", "output": []}}

    assert streamed(RESPONSES, responses_stream("done") + sse(later)) == ReadStep(
        "stream", events=[*events, later]
    )


def test_a_failed_responses_stream_is_kept_as_its_exact_events() -> None:
    events = [
        {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
        {"type": "response.output_text.delta", "sequence_number": 1, "delta": "Sun"},
        {"type": "error", "sequence_number": 2, "message": "Internal error.", "code": None},
        {"type": "response.failed", "sequence_number": 3, "response": {"id": "resp_1"}},
    ]

    assert streamed(RESPONSES, sse(*events)) == ReadStep("stream", events=events)


def test_keep_events_keeps_even_a_completed_stream_exact() -> None:
    text = responses_stream(RESPONSES_BODY)

    read = streamed(RESPONSES, text, keep_events=True)

    assert read == ReadStep("stream", events=sse_events(text))


def test_the_exact_events_wrap_those_a_replay_would_take_for_its_own() -> None:
    events: list[Any] = [
        {"type": "response.created"},
        {"type": "response_started"},
        {"type": "output_text_delta", "delta": "x"},
        {"type": "response_done"},
        {"type": "model", "event": {}},
        {"type": 3},
        {"no": "type"},
        [1, 2],
        "text",
        None,
        {"type": "content_block_stop", "index": 0},
    ]
    text = "".join(f"data: {json.dumps(event)}\n\n" for event in events)

    assert streamed(RESPONSES, text, keep_events=True) == ReadStep(
        "stream",
        events=[
            {"type": "response.created"},
            *model_events(*events[1:10]),
            {"type": "content_block_stop", "index": 0},
        ],
    )


# -- OpenAI Chat Completions ----------------------------------------------------------------

CHAT_USAGE = {
    "prompt_tokens": 20,
    "completion_tokens": 10,
    "total_tokens": 31,
    "prompt_tokens_details": {"cached_tokens": 8, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 4},
}
CHAT_USAGE_READ = Usage(
    input_tokens=20,
    output_tokens=10,
    total_tokens=31,
    input_tokens_details={"cached_tokens": 8},
    output_tokens_details={"reasoning_tokens": 4},
)
CHAT_CALLS = [
    function_call("get_weather", '{"city":"Paris"}', call_id="call_1"),
    function_call("get_time", "{}", call_id="call_2"),
]


def chat_tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_a_chat_completion_reads_as_its_first_choices_text_calls_usage_and_id() -> None:
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Let me check.",
                    "tool_calls": [
                        chat_tool_call("call_1", "get_weather", '{"city":"Paris"}'),
                        chat_tool_call("call_2", "get_time", "{}"),
                    ],
                },
                "finish_reason": "tool_calls",
            },
            {"index": 1, "message": {"role": "assistant", "content": "Other."}},
        ],
        "usage": CHAT_USAGE,
    }

    assert body(CHAT, answer) == response(
        [assistant_message("Let me check."), *CHAT_CALLS], CHAT_USAGE_READ, "chatcmpl-1"
    )


@pytest.mark.parametrize("content", [None, "", 5])
def test_a_chat_message_without_text_reads_as_its_calls_only(content: Any) -> None:
    answer = {
        "id": "chatcmpl-2",
        "choices": [
            {
                "message": {
                    "content": content,
                    "tool_calls": [chat_tool_call("call_2", "get_time", "{}")],
                }
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }

    assert body(CHAT, answer) == response(
        [CHAT_CALLS[1]], Usage(input_tokens=3, output_tokens=2), "chatcmpl-2"
    )


def test_a_chat_tool_call_missing_its_fields_reads_with_empty_ones() -> None:
    calls: list[Any] = [
        {"type": "function"},
        "junk",
        {"id": 4, "function": {"name": None, "arguments": {"a": 1}}},
        {"id": "call_3", "function": "get_time"},
    ]
    answer = {"choices": [{"message": {"content": "Hi.", "tool_calls": calls}}]}

    empty = function_call("", "", call_id="")
    assert body(CHAT, answer) == response(
        [
            assistant_message("Hi."),
            empty,
            empty,
            empty,
            function_call("", "", call_id="call_3"),
        ],
        Usage(),
        None,
    )


@pytest.mark.parametrize(
    "answer",
    [
        {"id": 1, "choices": []},
        {"choices": "none"},
        {"choices": ["junk", {"message": {"content": "Hi."}}]},
        {"choices": [{"message": "Hi."}]},
        {"choices": [{"message": {"tool_calls": "none"}}], "usage": "none"},
    ],
)
def test_a_chat_completion_without_a_readable_first_choice_reads_as_no_items(
    answer: dict[str, Any],
) -> None:
    assert body(CHAT, answer) == response([], Usage(), None)


def chunk(delta: dict[str, Any], finish: str | None = None, **fields: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice], **fields}


def call_delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"tool_calls": [{"index": index, **fields}]}


CHAT_CHUNKS: list[dict[str, Any]] = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Let me "}),
    chunk({"content": "check."}),
    chunk(call_delta(0, id="call_1", type="function", function={"name": "get_weather"})),
    chunk(call_delta(0, function={"arguments": '{"city":'})),
    chunk(call_delta(0, function={"arguments": '"Paris"}'})),
    chunk(call_delta(1, id="call_2", function={"name": "get_time", "arguments": "{}"})),
    chunk({}, "tool_calls"),
    {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": CHAT_USAGE},
]


def test_a_finished_chat_stream_reads_as_its_text_calls_usage_and_id() -> None:
    read = streamed(CHAT, sse(*CHAT_CHUNKS, done=True))

    assert read == response(
        [assistant_message("Let me check."), *CHAT_CALLS], CHAT_USAGE_READ, "chatcmpl-1"
    )


def test_a_chat_stream_takes_each_calls_first_id_and_name_and_all_its_arguments() -> None:
    chunks = [
        chunk(call_delta(1, id="call_2", function={"name": "get_time", "arguments": "{"})),
        chunk(call_delta(0, id="call_1", function={"name": "get_weather", "arguments": ""})),
        chunk(call_delta(1, id="call_X", function={"name": "other", "arguments": "}"})),
        chunk(call_delta(0, function={"arguments": '{"city":"Paris"}'})),
        chunk({}, "tool_calls"),
    ]

    assert streamed(CHAT, sse(*chunks)) == response(CHAT_CALLS, Usage(), "chatcmpl-1")


def test_a_chat_stream_call_without_an_index_or_with_a_bad_one_is_call_zero() -> None:
    chunks = [
        chunk({"tool_calls": [{"id": "call_1", "function": {"name": "get_weather"}}]}),
        chunk({"tool_calls": [{"index": True, "function": {"arguments": '{"city":'}}]}),
        chunk({"tool_calls": [{"index": "1", "function": {"arguments": '"Paris"}'}}]}),
        chunk({"tool_calls": ["junk", {"index": 0, "function": "x"}]}),
        chunk({}, "stop"),
    ]

    assert streamed(CHAT, sse(*chunks)) == response([CHAT_CALLS[0]], Usage(), "chatcmpl-1")


def test_a_chat_stream_takes_the_first_id_and_the_last_usage_sent() -> None:
    chunks = [
        {"choices": [{"delta": {"content": "A"}}]},
        {"id": 5, "choices": [{"delta": {"content": "B"}}]},
        {"id": "chatcmpl-7", "choices": [{"delta": {"content": 3}}]},
        {"id": "chatcmpl-8", "choices": [{"delta": "C"}], "usage": {"prompt_tokens": 1}},
        {"id": "chatcmpl-9", "choices": [{"delta": {}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 3}},
        {"choices": "none", "usage": None},
        {"choices": ["junk"], "usage": "none"},
    ]

    assert streamed(CHAT, sse(*chunks)) == response(
        [assistant_message("AB")], Usage(input_tokens=2, output_tokens=3), "chatcmpl-7"
    )


def test_a_chat_stream_without_ids_or_names_reads_with_empty_ones() -> None:
    chunks = [
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": None}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
    ]

    assert streamed(CHAT, sse(*chunks)) == response(
        [function_call("", "{}", call_id="")], Usage(), None
    )


def test_a_finished_chat_stream_without_text_calls_or_usage_reads_as_nothing_said() -> None:
    chunks = [chunk({"role": "assistant", "content": ""}), chunk({"content": None}, "length")]

    assert streamed(CHAT, sse(*chunks, done=True)) == response([], Usage(), "chatcmpl-1")


def test_a_chat_stream_finished_in_an_early_chunk_is_still_finished() -> None:
    chunks = [chunk({"content": "Hi"}, "stop"), chunk({"content": "."}, None)]

    assert streamed(CHAT, sse(*chunks)) == response(
        [assistant_message("Hi.")], Usage(), "chatcmpl-1"
    )


@pytest.mark.parametrize(
    "chunks",
    [
        [chunk({"content": "Hi"}), chunk({"content": "."})],
        [chunk({"content": "Hi"}), {"error": {"message": "Overloaded."}}, chunk({}, "stop")],
        [chunk({"content": "Hi"}), [1], chunk({}, "stop")],
        [{"choices": [{"delta": {"content": "Hi"}}]}],
        [],
    ],
    ids=["never-finished", "error-midway", "not-a-chunk", "no-finish-reason", "no-chunks"],
)
def test_a_chat_stream_that_did_not_finish_is_kept_as_its_exact_events(
    chunks: list[Any],
) -> None:
    assert streamed(CHAT, sse(*chunks, done=True)) == ReadStep(
        "stream", events=model_events(*chunks)
    )


# -- Anthropic Messages ---------------------------------------------------------------------

MESSAGES_THINKING = {"type": "thinking", "thinking": "Check first.", "signature": "c2ln"}
MESSAGES_USAGE = {
    "input_tokens": 10,
    "cache_creation_input_tokens": 2,
    "cache_read_input_tokens": 5,
    "output_tokens": 25,
}
MESSAGES_USAGE_READ = Usage(
    input_tokens=17, output_tokens=25, input_tokens_details={"cached_tokens": 5}
)


def test_a_messages_body_reads_as_its_blocks_usage_and_id() -> None:
    answer = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            MESSAGES_THINKING,
            {"type": "text", "text": "Let me check.", "citations": None},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "P"}},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        ],
        "stop_reason": "tool_use",
        "usage": MESSAGES_USAGE,
    }

    assert body(MESSAGES, answer) == response(
        [
            MESSAGES_THINKING,
            assistant_message("Let me check."),
            function_call("get_weather", '{"city":"P"}', call_id="toolu_1"),
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        ],
        MESSAGES_USAGE_READ,
        "msg_1",
    )


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            {"type": "tool_use", "id": "toolu_2", "name": "now"},
            function_call("now", "{}", call_id="toolu_2"),
        ),
        (
            {"type": "tool_use", "id": "toolu_2", "name": "now", "input": None},
            function_call("now", "{}", call_id="toolu_2"),
        ),
        (
            {"type": "tool_use", "id": "toolu_2", "name": "now", "input": []},
            function_call("now", "[]", call_id="toolu_2"),
        ),
        (
            {"type": "tool_use", "id": "toolu_2", "name": "now", "input": "raw"},
            function_call("now", "raw", call_id="toolu_2"),
        ),
        (
            {"type": "tool_use", "id": 1, "name": 2, "input": {}},
            function_call("", "{}", call_id=""),
        ),
        ({"type": "text", "text": None}, {"type": "text", "text": None}),
        ({"type": "text"}, {"type": "text"}),
        ({"text": "Hi."}, {"text": "Hi."}),
        (
            {"type": "redacted_thinking", "data": "ZW5j"},
            {"type": "redacted_thinking", "data": "ZW5j"},
        ),
    ],
    ids=[
        "no-input",
        "input-null",
        "input-a-list",
        "input-a-string",
        "fields-not-strings",
        "text-null",
        "text-missing",
        "no-type",
        "redacted-thinking",
    ],
)
def test_each_messages_block_reads_as_its_item(block: dict[str, Any], expected: Any) -> None:
    assert body(MESSAGES, {"content": [block]}) == response([expected], Usage(), None)


def test_messages_content_that_is_not_blocks_is_left_out() -> None:
    answer = {"id": 7, "content": ["Hi.", None, {"type": "text", "text": "Hi."}], "usage": []}

    assert body(MESSAGES, answer) == response([assistant_message("Hi.")], Usage(), None)
    assert body(MESSAGES, {"id": "msg_4", "content": "Hi."}) == response([], Usage(), "msg_4")


def messages_events(*middle: dict[str, Any], stop: bool = True) -> list[dict[str, Any]]:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-test",
            "stop_reason": None,
            "usage": {**MESSAGES_USAGE, "output_tokens": 1},
        },
    }
    end: list[dict[str, Any]] = [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 25, "input_tokens": None},
        },
        *([{"type": "message_stop"}] if stop else []),
    ]
    return [start, {"type": "ping"}, *middle, *end]


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def block_delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def text_delta(index: int, text: str) -> dict[str, Any]:
    return block_delta(index, {"type": "text_delta", "text": text})


def json_delta(index: int, partial: Any) -> dict[str, Any]:
    return block_delta(index, {"type": "input_json_delta", "partial_json": partial})


TOOL_BLOCK = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}


def test_a_stopped_messages_stream_reads_as_its_blocks_usage_and_id() -> None:
    events = messages_events(
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Let me "),
        text_delta(0, "check."),
        {"type": "content_block_stop", "index": 0},
        block_start(1, TOOL_BLOCK),
        json_delta(1, ""),
        json_delta(1, '{"city": '),
        json_delta(1, '"Paris"}'),
        {"type": "content_block_stop", "index": 1},
    )

    assert streamed(MESSAGES, sse(*events)) == response(
        [
            assistant_message("Let me check."),
            function_call("get_weather", '{"city":"Paris"}', call_id="toolu_1"),
        ],
        MESSAGES_USAGE_READ,
        "msg_1",
    )


def test_a_messages_stream_orders_its_blocks_by_index_and_adds_to_started_text() -> None:
    events = messages_events(
        block_start(1, {"type": "text", "text": "world"}),
        block_start(0, {"type": "text", "text": "Hello, "}),
        text_delta(1, "!"),
        block_start(2, TOOL_BLOCK),
        json_delta(2, ""),
    )

    assert streamed(MESSAGES, sse(*events)) == response(
        [
            assistant_message("Hello, "),
            assistant_message("world!"),
            function_call("get_weather", "{}", call_id="toolu_1"),
        ],
        MESSAGES_USAGE_READ,
        "msg_1",
    )


def test_a_messages_stream_delta_without_its_block_start_makes_a_block_of_its_fields() -> None:
    events = messages_events(
        block_delta(0, {"type": "thinking_delta", "thinking": "Check "}),
        block_delta(0, {"type": "thinking_delta", "thinking": "first."}),
        block_delta(0, {"type": "signature_delta", "signature": "c2"}),
        block_delta(0, {"type": "signature_delta", "signature": "ln"}),
        block_delta(0, {"type": "signature_delta", "signature": 5}),
        text_delta(1, "Hi"),
        text_delta(1, "."),
        block_delta(2, {"type": "other_delta", "other": "x"}),
        {"type": "content_block_delta", "delta": "junk"},
    )

    assert streamed(MESSAGES, sse(*events)) == response(
        [
            {"thinking": "Check first.", "signature": "c2ln"},
            {"text": "Hi."},
            {},
        ],
        MESSAGES_USAGE_READ,
        "msg_1",
    )


def test_a_messages_stream_event_without_an_index_is_about_block_zero() -> None:
    events = messages_events(
        {"type": "content_block_start", "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": None, "delta": {"text": "Hi"}},
        {"type": "content_block_delta", "index": "0", "delta": {"text": "."}},
        {"type": "content_block_start", "index": 1, "content_block": "junk"},
    )

    assert streamed(MESSAGES, sse(*events)) == response(
        [assistant_message("Hi."), {}], MESSAGES_USAGE_READ, "msg_1"
    )


def test_a_messages_stream_counts_the_latest_usage_each_event_sends() -> None:
    events = [
        {"type": "message_start", "message": {"id": "msg_5", "usage": {"input_tokens": 4}}},
        {"type": "message_delta", "usage": {"input_tokens": 6, "output_tokens": 2}},
        {"type": "message_delta", "usage": {"output_tokens": 9, "cache_read_input_tokens": 1}},
        {"type": "message_delta", "usage": "none"},
        {"type": "message_stop"},
    ]

    assert streamed(MESSAGES, sse(*events)) == response(
        [],
        Usage(input_tokens=7, output_tokens=9, input_tokens_details={"cached_tokens": 1}),
        "msg_5",
    )


def test_a_messages_stream_without_a_message_start_reads_as_its_blocks() -> None:
    events = [block_start(0, {"type": "text", "text": "Hi."}), {"type": "message_stop"}]

    assert streamed(MESSAGES, sse(*events)) == response([assistant_message("Hi.")], Usage(), None)


def test_a_messages_stream_whose_start_is_no_message_reads_as_a_message_without_id() -> None:
    events = [
        {"type": "message_start", "message": "junk"},
        block_start(0, {"type": "text", "text": "Hi."}),
        {"type": "message_stop"},
    ]

    assert streamed(MESSAGES, sse(*events)) == response([assistant_message("Hi.")], Usage(), None)


def test_a_messages_stream_tool_input_read_whole_replaces_its_start_input() -> None:
    events = messages_events(
        block_start(0, {**TOOL_BLOCK, "input": {"stale": True}}),
        json_delta(0, '{"city": "Paris"}'),
        json_delta(0, 5),  # not a string: no part of the input
    )

    assert streamed(MESSAGES, sse(*events)) == response(
        [function_call("get_weather", '{"city":"Paris"}', call_id="toolu_1")],
        MESSAGES_USAGE_READ,
        "msg_1",
    )


@pytest.mark.parametrize(
    ("middle", "stop"),
    [
        ([block_start(0, {"type": "text", "text": ""}), text_delta(0, "Hi")], False),
        ([block_start(0, TOOL_BLOCK), json_delta(0, '{"city": ')], True),
        ([block_start(0, TOOL_BLOCK), json_delta(0, "[" * 100_000)], True),
    ],
    ids=["not-stopped", "json-cut-short", "json-too-deep"],
)
def test_a_messages_stream_that_cannot_be_read_whole_is_kept_as_its_exact_events(
    middle: list[dict[str, Any]], stop: bool
) -> None:
    events = messages_events(*middle, stop=stop)

    assert streamed(MESSAGES, sse(*events)) == ReadStep("stream", events=events)


def test_a_messages_stream_that_failed_midway_is_kept_as_its_exact_events() -> None:
    events: list[Any] = [
        *messages_events(block_start(0, {"type": "text", "text": ""}), stop=False),
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        {"type": "message_stop"},
    ]

    assert streamed(MESSAGES, sse(*events)) == ReadStep("stream", events=events)


def test_a_messages_stream_with_an_event_that_is_not_an_object_is_kept_exact() -> None:
    events: list[Any] = [*messages_events(stop=False), 7, {"type": "message_stop"}]

    assert streamed(MESSAGES, sse(*events)) == ReadStep(
        "stream", events=[*events[:-2], *model_events(7), {"type": "message_stop"}]
    )


@pytest.mark.parametrize(
    "block", [MESSAGES_THINKING, {"type": "redacted_thinking", "data": "ZW5j"}]
)
def test_a_messages_stream_with_thinking_is_kept_exact_with_a_note(block: dict[str, Any]) -> None:
    events = messages_events(
        block_start(0, block),
        block_start(1, {"type": "text", "text": ""}),
        text_delta(1, "Sunny."),
    )

    assert streamed(MESSAGES, sse(*events)) == ReadStep("stream", events=events, note=THINKING_NOTE)


def test_a_messages_stream_kept_on_request_has_no_thinking_note() -> None:
    events = messages_events(block_start(0, MESSAGES_THINKING))

    assert streamed(MESSAGES, sse(*events), keep_events=True) == ReadStep("stream", events=events)


def test_a_messages_body_with_thinking_reads_as_a_plain_response() -> None:
    answer = {"id": "msg_2", "content": [MESSAGES_THINKING, {"type": "text", "text": "Hi."}]}

    assert body(MESSAGES, answer) == response(
        [MESSAGES_THINKING, assistant_message("Hi.")], Usage(), "msg_2"
    )


# -- bodies that are not an answer ----------------------------------------------------------


@pytest.mark.parametrize("wire_format", [RESPONSES, CHAT, MESSAGES])
@pytest.mark.parametrize("text", ["", "not json", "[1]", '"text"', "null", "[" * 100_000])
def test_a_body_that_is_not_a_json_object_reads_as_nothing(wire_format: str, text: str) -> None:
    assert read_answer(wire_format, 200, [], text, streamed=False) is None


@pytest.mark.parametrize("wire_format", [RESPONSES, CHAT, MESSAGES])
def test_an_empty_object_reads_as_an_empty_response(wire_format: str) -> None:
    assert body(wire_format, {}) == response([], Usage(), None)


@pytest.mark.parametrize("wire_format", [RESPONSES, CHAT, MESSAGES])
def test_a_stream_with_no_events_is_kept_as_no_events(wire_format: str) -> None:
    assert streamed(wire_format, ": nothing\n\ndata: [DONE]\n\n") == ReadStep("stream")
