"""Strands Agents on ``strands.models.openai.OpenAIModel``, against the scripted endpoint.

Strands always streams its model calls (Chat Completions with ``stream: true``).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("strands")

from strands import Agent, tool
from strands.models.openai import OpenAIModel

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.wire import ScriptedServer


@tool
def get_weather(city: str) -> str:
    """Return the weather in a city.

    Args:
        city: The city to look up.
    """
    return f"{city}: sunny"


def weather_script() -> list[Any]:
    return [
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def weather_agent(server: ScriptedServer) -> Agent:
    model = OpenAIModel(
        client_args={"api_key": "test-key", "base_url": server.base_url}, model_id="gpt-4o"
    )
    return Agent(
        model=model, tools=[get_weather], system_prompt="Report the weather.", callback_handler=None
    )


def test_tool_workflow_sends_the_tool_result_back() -> None:
    model = ScriptedModel(weather_script())

    with ScriptedServer(model) as server:
        result = weather_agent(server)("What is the weather in Tokyo?")

    assert str(result).strip() == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools[0]["function"]["name"] == "get_weather"
    assert isinstance(second.request.input, list)  # a list of items, not a plain prompt
    assert second.request.input[-2]["type"] == "function_call"
    assert second.request.input[-2]["call_id"] == "call_1"
    tool_output = second.request.input[-1]
    assert tool_output["type"] == "function_call_output"
    assert tool_output["call_id"] == "call_1"
    assert "Tokyo: sunny" in tool_output["output"]
    model.assert_complete()


async def test_streamed_run_yields_the_text_deltas() -> None:
    model = ScriptedModel(weather_script())

    async with ScriptedServer(model) as server:
        deltas = [
            event["data"]
            async for event in weather_agent(server).stream_async("Weather in Tokyo?")
            if "data" in event
        ]

    assert "".join(deltas) == "It is sunny in Tokyo."
    assert [call.streamed for call in model.calls] == [True, True]
    assert model.calls[0].request.model_settings["stream_options"] == {"include_usage": True}
    model.assert_complete()


def test_rate_limit_is_retried() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, "Rate limited", retry_after=0.001)),
            *weather_script(),
        ]
    )

    with ScriptedServer(model) as server:
        result = weather_agent(server)("What is the weather in Tokyo?")

    assert str(result).strip() == "It is sunny in Tokyo."
    assert [request.status for request in server.requests] == [429, 200, 200]
    model.assert_complete()
