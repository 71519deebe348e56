"""Haystack's Agent on ``OpenAIChatGenerator``, in process through the transport.

Haystack builds its own ``httpx`` clients from ``http_client_kwargs``, so passing the
transport there serves its sync and async calls with no socket.
"""

from __future__ import annotations

import os

import pytest

# Haystack reports anonymous usage at run time unless told not to; a test must not.
os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

pytest.importorskip("haystack")
pytest.importorskip("httpx")

from typing import Any

from haystack.components.agents import Agent
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage, StreamingChunk
from haystack.tools import create_tool_from_function
from haystack.utils import Secret

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.adapters.httpx import ScriptedTransport, scripted_transport


def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_script() -> list[Any]:
    return [
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def weather_agent(transport: ScriptedTransport) -> Agent:
    generator = OpenAIChatGenerator(
        api_key=Secret.from_token("test-key"),
        model="gpt-4o",
        api_base_url="http://scripted/v1",
        http_client_kwargs={"transport": transport},
    )
    return Agent(
        chat_generator=generator,
        tools=[create_tool_from_function(get_weather)],
        system_prompt="Report the weather.",
    )


def ask() -> list[ChatMessage]:
    return [ChatMessage.from_user("What is the weather in Tokyo?")]


def test_tool_workflow_sends_the_tool_result_back() -> None:
    model = ScriptedModel(weather_script())
    transport = scripted_transport(model)

    result = weather_agent(transport).run(ask())

    assert result["last_message"].text == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools[0]["function"]["name"] == "get_weather"
    assert first.request.model_settings["stream"] is False
    assert isinstance(second.request.input, list)  # a list of items, not a plain prompt
    call, output = second.request.input[-2:]
    # Haystack re-serializes the arguments it parsed, with json.dumps's default spacing.
    assert (call["type"], call["call_id"], call["arguments"]) == (
        "function_call",
        "call_1",
        '{"city": "Tokyo"}',
    )
    assert output == {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"}
    model.assert_complete()


async def test_streamed_run_yields_the_text_chunks() -> None:
    model = ScriptedModel(weather_script())
    transport = scripted_transport(model)
    chunks: list[StreamingChunk] = []

    async def collect(chunk: StreamingChunk) -> None:
        chunks.append(chunk)

    result = await weather_agent(transport).run_async(ask(), streaming_callback=collect)

    assert "".join(chunk.content for chunk in chunks) == "It is sunny in Tokyo."
    assert result["last_message"].text == "It is sunny in Tokyo."
    assert [call.streamed for call in model.calls] == [True, True]
    assert model.calls[0].request.model_settings["stream"] is True
    model.assert_complete()


def test_rate_limit_is_retried() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, "Rate limited", retry_after=0.001)),
            *weather_script(),
        ]
    )
    transport = scripted_transport(model)

    result = weather_agent(transport).run(ask())

    assert result["last_message"].text == "It is sunny in Tokyo."
    assert [request.status for request in transport.requests] == [429, 200, 200]
    model.assert_complete()
