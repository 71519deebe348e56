"""LlamaIndex's FunctionAgent on ``llama_index.llms.openai.OpenAI``, against the endpoint."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.llms.openai")

from llama_index.core.agent.workflow import AgentStream, FunctionAgent
from llama_index.llms.openai import OpenAI

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.wire import ScriptedServer

# llama-index workflows read deprecated pydantic attributes while collecting their steps.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_script() -> list[Any]:
    return [
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def weather_agent(server: ScriptedServer) -> FunctionAgent:
    llm = OpenAI(model="gpt-4o", api_base=server.base_url, api_key="test-key")
    return FunctionAgent(tools=[get_weather], llm=llm, system_prompt="Report the weather.")


async def test_tool_workflow_sends_the_tool_result_back() -> None:
    model = ScriptedModel(weather_script())

    async with ScriptedServer(model) as server:
        result = await weather_agent(server).run("What is the weather in Tokyo?")

    assert str(result) == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools[0]["function"]["name"] == "get_weather"
    assert second.request.input[-2:] == [
        function_call("get_weather", '{"city":"Tokyo"}', call_id="call_1"),
        {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"},
    ]
    model.assert_complete()


async def test_streamed_run_yields_the_answer_deltas() -> None:
    model = ScriptedModel(weather_script())

    async with ScriptedServer(model) as server:
        handler = weather_agent(server).run("What is the weather in Tokyo?")
        deltas = [
            event.delta async for event in handler.stream_events() if isinstance(event, AgentStream)
        ]
        result = await handler

    assert "".join(deltas) == "It is sunny in Tokyo."
    assert str(result) == "It is sunny in Tokyo."
    assert all(call.streamed for call in model.calls)
    model.assert_complete()


async def test_rate_limit_is_retried() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, "Rate limited", retry_after=0.001)),
            *weather_script(),
        ]
    )

    async with ScriptedServer(model) as server:
        result = await weather_agent(server).run("What is the weather in Tokyo?")

    assert str(result) == "It is sunny in Tokyo."
    assert [request.status for request in server.requests] == [429, 200, 200]
    model.assert_complete()
