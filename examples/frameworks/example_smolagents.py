"""smolagents' ToolCallingAgent on ``OpenAIServerModel``, against the scripted endpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("smolagents")

from smolagents import OpenAIServerModel, ToolCallingAgent, tool

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
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
        [function_call("final_answer", {"answer": "It is sunny in Tokyo."}, call_id="call_2")],
    ]


def weather_agent(server: ScriptedServer, **options: Any) -> ToolCallingAgent:
    model = OpenAIServerModel(model_id="gpt-4.1", api_base=server.base_url, api_key="test-key")
    return ToolCallingAgent(tools=[get_weather], model=model, verbosity_level=0, **options)


def test_tool_workflow_sends_the_tool_result_back() -> None:
    model = ScriptedModel(weather_script())

    with ScriptedServer(model) as server:
        answer = weather_agent(server).run("What is the weather in Tokyo?")

    assert answer == "It is sunny in Tokyo."
    first, second = model.calls
    tool_names = [tool["function"]["name"] for tool in first.request.tools]
    assert tool_names == ["get_weather", "final_answer"]
    assert first.request.extra["wire_format"] == "openai.chat_completions"
    assert "What is the weather in Tokyo?" in json.dumps(first.request.input)
    # smolagents sends the tool's observation back as text in the next request.
    assert "Tokyo: sunny" in json.dumps(second.request.input)
    model.assert_complete()


def test_streamed_run_uses_streamed_calls() -> None:
    model = ScriptedModel(weather_script())

    with ScriptedServer(model) as server:
        agent = weather_agent(server, stream_outputs=True)
        steps = list(agent.run("What is the weather in Tokyo?", stream=True))

    assert steps[-1].output == "It is sunny in Tokyo."
    assert [call.streamed for call in model.calls] == [True, True]
    assert model.calls[0].request.model_settings["stream"] is True
    model.assert_complete()


def test_rate_limit_is_retried_by_the_client() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, "Rate limited", retry_after=0.001)),
            *weather_script(),
        ]
    )

    with ScriptedServer(model) as server:
        answer = weather_agent(server).run("What is the weather in Tokyo?")

    assert answer == "It is sunny in Tokyo."
    assert [request.status for request in server.requests] == [429, 200, 200]
    assert model.calls[0].request.input == model.calls[1].request.input  # the same request
    model.assert_complete()
