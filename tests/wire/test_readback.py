"""Reading provider answers back into steps survives whatever an upstream sends."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import ScriptedHTTPError
from agents_testing.wire._readback import read_answer, sse_events, wire_format_of

FORMATS = ["openai.responses", "openai.chat_completions", "anthropic.messages"]

# Keys the readers look at, so random data reaches their branches.
KEYS = st.sampled_from(
    [
        "type",
        "id",
        "output",
        "content",
        "text",
        "usage",
        "choices",
        "delta",
        "message",
        "tool_calls",
        "function",
        "arguments",
        "name",
        "call_id",
        "index",
        "finish_reason",
        "input_tokens",
        "output_tokens",
        "prompt_tokens",
        "partial_json",
        "content_block",
        "response",
        "error",
        "input",
        "role",
        "total_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ]
)
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-5, max_value=5)
    | st.floats(allow_nan=True)
    | st.sampled_from(
        [
            "message",
            "function_call",
            "output_text",
            "response.completed",
            "text",
            "tool_use",
            "message_start",
            "content_block_start",
            "content_block_delta",
            "message_delta",
            "message_stop",
            "text_delta",
            "input_json_delta",
            "{",
            "{}",
        ]
    )
    | st.text(max_size=4),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=16,
)
HEADERS = st.lists(
    st.tuples(
        st.sampled_from(["retry-after", "retry-after-ms", "content-type", "x-other"]),
        st.sampled_from(["1", "0.5", "-3", "nan", "inf", "1e999", "Wed, 21 Oct 2015", ""]),
    ),
    max_size=3,
)


def sse(events: list[Any]) -> str:
    return "".join(f"event: x\ndata: {json.dumps(event)}\n\n" for event in events)


@settings(max_examples=300)
@given(
    st.sampled_from(FORMATS),
    st.sampled_from([200, 201, 400, 429, 500, 529, 600]),
    HEADERS,
    VALUES,
    st.lists(VALUES, max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_any_answer_reads_as_a_step_or_nothing(
    wire_format: str,
    status: int,
    headers: list[tuple[str, str]],
    body: Any,
    events: list[Any],
    streamed: bool,
    keep_events: bool,
) -> None:
    text = sse(events) if streamed and status < 400 else json.dumps(body)

    read = read_answer(
        wire_format, status, headers, text, streamed=streamed, keep_events=keep_events
    )

    assert read is None or read.kind in ("response", "error", "stream")
    if read is not None and read.kind == "error":
        assert isinstance(read.error, ScriptedHTTPError)
        assert 400 <= read.error.status <= 599


@given(st.sampled_from(FORMATS), st.text(max_size=40), st.booleans())
def test_any_text_reads_as_a_step_or_nothing(wire_format: str, text: str, streamed: bool) -> None:
    read_answer(wire_format, 200, [], text, streamed=streamed)
    read_answer(wire_format, 429, [], text, streamed=streamed)


def test_deeply_nested_json_is_read_as_nothing_rather_than_a_recursion_error() -> None:
    deep = "[" * 100_000
    assert read_answer("openai.responses", 200, [], deep, streamed=False) is None
    error = read_answer("anthropic.messages", 429, [], deep, streamed=False)
    assert error is not None
    assert error.error is not None
    assert error.error.status == 429
    assert sse_events(f"data: {deep}\n\n") == []


def test_a_path_is_routed_by_its_ending() -> None:
    assert wire_format_of("/v1/chat/completions?x=1") == "openai.chat_completions"
    assert wire_format_of("/v1/responses/") == "openai.responses"
    assert wire_format_of("/v1/messages") == "anthropic.messages"
    assert wire_format_of("/v1/models") is None


def test_a_retry_after_date_or_a_bad_number_is_no_delay() -> None:
    for value in ("Wed, 21 Oct 2015 07:28:00 GMT", "nan", "inf", "-1"):
        read = read_answer("openai.responses", 429, [("retry-after", value)], "{}", streamed=False)
        assert read is not None
        assert read.error is not None
        assert read.error.retry_after is None
    read = read_answer(
        "openai.responses",
        429,
        [("retry-after-ms", "1500"), ("retry-after", "9")],
        "",
        streamed=False,
    )
    assert read is not None
    assert read.error is not None
    assert read.error.retry_after == 1.5
