"""The real ``anthropic`` client against the wire endpoint, in-process and over loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")
pytest.importorskip("httpx")  # the transport adapter's own dependency
try:  # anthropic >= 2 is built on the httpx2 fork and accepts only its clients
    import httpx2 as httpx_for_anthropic
except ImportError:
    import httpx as httpx_for_anthropic

from agents_testing import (  # noqa: E402 - after the skips above
    ScriptedHTTPError,
    ScriptedModel,
    UnexpectedModelCallError,
    assistant_message,
    function_call,
    model_error,
    model_stream,
)
from agents_testing.adapters.httpx import scripted_transport  # noqa: E402
from agents_testing.wire import ScriptedServer  # noqa: E402

API_KEY = "sk-ant-test-key-never-recorded-2718"
MODES = ["transport", "server"]
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Return the weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@contextmanager
def sync_client(model: ScriptedModel, mode: str) -> Iterator[Any]:
    if mode == "transport":
        transport = scripted_transport(model)
        with anthropic.Anthropic(
            base_url="http://scripted.invalid",
            api_key=API_KEY,
            http_client=httpx_for_anthropic.Client(transport=transport),
        ) as client:
            yield client, transport.endpoint
        return
    with (
        ScriptedServer(model) as server,
        anthropic.Anthropic(base_url=server.url, api_key=API_KEY) as client,
    ):
        yield client, server.endpoint


@asynccontextmanager
async def async_client(model: ScriptedModel, mode: str) -> AsyncIterator[Any]:
    if mode == "transport":
        transport = scripted_transport(model)
        async with anthropic.AsyncAnthropic(
            base_url="http://scripted.invalid",
            api_key=API_KEY,
            http_client=httpx_for_anthropic.AsyncClient(transport=transport),
        ) as client:
            yield client, transport.endpoint
        return
    async with (
        ScriptedServer(model) as server,
        anthropic.AsyncAnthropic(base_url=server.url, api_key=API_KEY) as client,
    ):
        yield client, server.endpoint


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


@pytest.mark.parametrize("mode", MODES)
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


@pytest.mark.parametrize("mode", MODES)
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


@pytest.mark.parametrize("mode", MODES)
async def test_async_messages_plain_and_streamed(mode: str) -> None:
    model = ScriptedModel([[assistant_message("plain")], [assistant_message("streamed")]])

    async with async_client(model, mode) as (client, _):
        plain = await client.messages.create(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "1"}]
        )
        async with client.messages.stream(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "2"}]
        ) as events:
            streamed = await events.get_final_text()

    assert plain.content[0].text == "plain"
    assert streamed == "streamed"
    assert [call.streamed for call in model.calls] == [False, True]
    model.assert_complete()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [429, 529])
def test_client_retries_rate_limit_and_overloaded(mode: str, status: int) -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(status, retry_after=0.001)),
            [assistant_message("after the retry")],
        ]
    )

    with sync_client(model, mode) as (client, endpoint):
        message = client.messages.create(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
        )

    assert message.content[0].text == "after the retry"
    assert [exchange.status for exchange in endpoint.requests] == [status, 200]
    model.assert_complete()


@pytest.mark.parametrize("mode", MODES)
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


@pytest.mark.parametrize("mode", MODES)
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


@pytest.mark.parametrize("mode", MODES)
def test_overloaded_mid_stream_raises_after_the_text(mode: str) -> None:
    def events() -> Any:
        yield {"type": "output_text_delta", "item_id": None, "delta": "It is"}
        raise ScriptedHTTPError(529, "Overloaded")

    model = ScriptedModel([model_stream(events())])
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
    assert [exchange.status for exchange in endpoint.requests] == [200]
    model.assert_complete()
