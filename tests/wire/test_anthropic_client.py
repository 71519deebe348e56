"""The real ``anthropic`` client against the wire endpoint, in-process and over loopback."""

from __future__ import annotations

from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")
pytest.importorskip("httpx")  # the transport adapter's own dependency
try:  # anthropic >= 2 is built on the httpx2 fork and accepts only its clients
    import httpx2 as httpx_for_anthropic
except ImportError:
    import httpx as httpx_for_anthropic  # type: ignore[no-redef]  # anthropic < 2

from agents_testing import (  # noqa: E402 - after the skips above
    ScriptedHTTPError,
    ScriptedModel,
    UnexpectedModelCallError,
    assistant_message,
    function_call,
    model_error,
)

from ._clients import (  # noqa: E402
    Provider,
    error_then_answer,
    statuses,
)
from ._streams import stream_failing_after, text_delta  # noqa: E402

API_KEY = "sk-ant-test-key-never-recorded-2718"
# The Anthropic clients' base URL is the host itself: they add /v1/messages.
ANTHROPIC = Provider(
    anthropic.Anthropic, anthropic.AsyncAnthropic, httpx_for_anthropic, "", API_KEY
)
sync_client = ANTHROPIC.connect
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Return the weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def weather_script() -> list[Any]:
    return [
        [
            assistant_message("Let me check."),
            function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
        ],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def messages_tool_loop(client: Any, prompt: str, *, stream: bool = False) -> str:
    """The code under test: a hand-written Messages tool loop."""
    messages: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        request = {
            "model": "claude-test",
            "max_tokens": 512,
            "system": "Report the weather.",
            "messages": messages,
            "tools": [WEATHER_TOOL],
        }
        if stream:
            with client.messages.stream(**request) as events:
                for _ in events:
                    pass
                message = events.get_final_message()
        else:
            message = client.messages.create(**request)
        messages.append(
            {
                "role": "assistant",
                "content": [block.model_dump(exclude_none=True) for block in message.content],
            }
        )
        if message.stop_reason != "tool_use":
            return "".join(block.text for block in message.content if block.type == "text")
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": block.id,
                        "content": f"{block.input['city']}: sunny",
                    }
                    for block in message.content
                    if block.type == "tool_use"
                ],
            }
        )


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_messages_tool_workflow(mode: str, stream: bool) -> None:
    model = ScriptedModel(weather_script())

    with sync_client(model, mode) as (client, _):
        answer = messages_tool_loop(client, "Weather in Tokyo?", stream=stream)

    assert answer == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.streamed is second.streamed is stream
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools == [WEATHER_TOOL]
    assert first.request.model_settings["max_tokens"] == 512
    assert second.request.input[1:] == [
        assistant_message("Let me check."),
        function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
        {"type": "function_call_output", "call_id": "toolu_1", "output": "Tokyo: sunny"},
    ]
    model.assert_complete()


def test_stream_sends_the_real_event_types(mode: str) -> None:
    model = ScriptedModel([[assistant_message("Hello")]])

    with sync_client(model, mode) as (client, _):
        events = list(
            client.messages.create(
                model="claude-test",
                max_tokens=16,
                stream=True,
                messages=[{"role": "user", "content": "hi"}],
            )
        )

    assert [type(event).__name__ for event in events] == [
        "RawMessageStartEvent",
        "RawContentBlockStartEvent",
        "RawContentBlockDeltaEvent",
        "RawContentBlockStopEvent",
        "RawMessageDeltaEvent",
        "RawMessageStopEvent",
    ]
    assert events[0].message.id == "msg_scripted_1"


@pytest.mark.parametrize("status", [429, 529])
def test_client_retries_rate_limit_and_overloaded(mode: str, status: int) -> None:
    model = error_then_answer(ScriptedHTTPError(status, retry_after=0.001), "after the retry")

    with sync_client(model, mode) as (client, endpoint):
        message = client.messages.create(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
        )

    assert message.content[0].text == "after the retry"
    assert statuses(endpoint) == [status, 200]
    model.assert_complete()


def test_overloaded_surfaces_when_retries_are_off(mode: str) -> None:
    model = ScriptedModel([model_error(ScriptedHTTPError(529, "Overloaded"))])

    with (
        sync_client(model, mode) as (client, _),
        pytest.raises(anthropic.InternalServerError) as caught,
    ):
        client.with_options(max_retries=0).messages.create(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
        )

    assert caught.value.status_code == 529
    assert caught.value.body["error"]["type"] == "overloaded_error"


def test_api_key_is_never_recorded(mode: str) -> None:
    model = ScriptedModel([])

    with (
        sync_client(model, mode) as (client, endpoint),
        pytest.raises(anthropic.BadRequestError) as caught,
    ):
        client.messages.create(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
        )

    with pytest.raises(UnexpectedModelCallError) as violation:
        endpoint.assert_complete()
    headers = model.calls[0].request.extra["headers"]
    assert "x-api-key" not in headers
    assert headers["anthropic-version"]  # the other headers are kept
    texts = [repr(model.calls), repr(endpoint.requests), str(caught.value), str(violation.value)]
    assert all(API_KEY not in text for text in texts)


def test_overloaded_mid_stream_raises_after_the_text(mode: str) -> None:
    model = stream_failing_after([text_delta("It is")], ScriptedHTTPError(529, "Overloaded"))
    deltas: list[str] = []

    def read_deltas(client: Any) -> None:
        with client.messages.stream(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            deltas.extend(stream.text_stream)

    with (
        sync_client(model, mode) as (client, endpoint),
        pytest.raises(anthropic.APIStatusError) as caught,
    ):
        read_deltas(client)

    # Anthropic's in-stream error event: the client raises it with the event as the body.
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert deltas == ["It is"]
    assert statuses(endpoint) == [200]
    model.assert_complete()
