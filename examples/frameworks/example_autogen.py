"""AutoGen's AssistantAgent on ``OpenAIChatCompletionClient``, against the scripted endpoint."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("autogen_agentchat")
pytest.importorskip("autogen_ext.models.openai")

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import ModelClientStreamingChunkEvent
from autogen_ext.models.openai import OpenAIChatCompletionClient

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.wire import ScriptedServer


async def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_script() -> list[Any]:
    return [
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def weather_agent(server: ScriptedServer, *, stream: bool = False) -> AssistantAgent:
    # A dated model name: AutoGen warns when the response names another model than it
    # resolved, and the endpoint answers with the model name the request sent.
    client = OpenAIChatCompletionClient(
        model="gpt-4o-2024-08-06", base_url=server.base_url, api_key="test-key"
    )
    # reflect_on_tool_use: after the tool runs, ask the model again for the final answer.
    return AssistantAgent(
        "weather",
        model_client=client,
        tools=[get_weather],
        system_message="Report the weather.",
        reflect_on_tool_use=True,
        model_client_stream=stream,
    )


async def test_tool_workflow_sends_the_tool_result_back() -> None:
    model = ScriptedModel(weather_script())

    async with ScriptedServer(model) as server:
        result = await weather_agent(server).run(task="What is the weather in Tokyo?")

    assert result.messages[-1].content == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools[0]["function"]["name"] == "get_weather"
    assert second.request.input[-2:] == [
        function_call("get_weather", '{"city":"Tokyo"}', call_id="call_1"),
        {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"},
    ]
    model.assert_complete()


async def test_streamed_run_yields_the_text_chunks() -> None:
    model = ScriptedModel(weather_script())

    async with ScriptedServer(model) as server:
        events = [
            event
            async for event in weather_agent(server, stream=True).run_stream(
                task="What is the weather in Tokyo?"
            )
        ]

    chunks = [e.content for e in events if isinstance(e, ModelClientStreamingChunkEvent)]
    assert "".join(chunks) == "It is sunny in Tokyo."
    assert isinstance(events[-1], TaskResult)
    assert [call.streamed for call in model.calls] == [True, True]
    model.assert_complete()


async def test_rate_limit_is_retried() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, "Rate limited", retry_after=0.001)),
            *weather_script(),
        ]
    )

    async with ScriptedServer(model) as server:
        result = await weather_agent(server).run(task="What is the weather in Tokyo?")

    assert result.messages[-1].content == "It is sunny in Tokyo."
    assert [request.status for request in server.requests] == [429, 200, 200]
    model.assert_complete()
