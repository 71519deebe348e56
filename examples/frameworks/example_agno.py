"""Agno's Agent on ``agno.models.openai.OpenAIResponses``, in process through the transport.

Agno accepts a ready ``httpx`` client for its OpenAI client, so no socket is opened: the
scripted endpoint answers through ``scripted_transport``.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agno")
pytest.importorskip("openai")
pytest.importorskip("httpx")

import httpx
from agno.agent import Agent, RunContentEvent
from agno.models.openai import OpenAIResponses

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.adapters.httpx import ScriptedTransport, scripted_transport


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


def weather_agent(transport: ScriptedTransport, *, asynchronous: bool = False) -> Agent:
    # Agno hands a sync client only to its sync calls and an async one only to its async calls.
    client = httpx.AsyncClient if asynchronous else httpx.Client
    model = OpenAIResponses(
        id="gpt-4.1",
        api_key="test-key",
        base_url="http://scripted/v1",
        http_client=client(transport=transport),
    )
    return Agent(model=model, tools=[get_weather], instructions="Report the weather.")


def test_tool_workflow_sends_the_tool_result_back() -> None:
    model = ScriptedModel(weather_script())
    transport = scripted_transport(model)

    result = weather_agent(transport).run("What is the weather in Tokyo?")

    assert result.content == "It is sunny in Tokyo."
    first, second = model.calls
    # Agno sends its instructions as a developer message, not as the top-level field.
    assert first.request.input[0] == {
        "type": "message",
        "role": "developer",
        "content": "Report the weather.",
    }
    assert first.request.tools[0]["name"] == "get_weather"
    assert first.request.tools[0]["parameters"]["required"] == ["city"]
    assert isinstance(second.request.input, list)  # a list of items, not a plain prompt
    call, output = second.request.input[-2:]
    assert (call["type"], call["call_id"], call["arguments"]) == (
        "function_call",
        "call_1",
        '{"city":"Tokyo"}',
    )
    assert output == {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"}
    model.assert_complete()


async def test_streamed_run_yields_the_text_deltas() -> None:
    model = ScriptedModel(weather_script())
    transport = scripted_transport(model)

    agent = weather_agent(transport, asynchronous=True)
    events = [event async for event in agent.arun("What is the weather in Tokyo?", stream=True)]

    # Agno also emits content-less events that carry only the response id.
    deltas = [e.content for e in events if isinstance(e, RunContentEvent) and e.content]
    assert "".join(deltas) == "It is sunny in Tokyo."
    assert [call.streamed for call in model.calls] == [True, True]
    model.assert_complete()


def test_rate_limit_is_retried() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, "Rate limited", retry_after=0.001)),
            *weather_script(),
        ]
    )
    transport = scripted_transport(model)

    result = weather_agent(transport).run("What is the weather in Tokyo?")

    assert result.content == "It is sunny in Tokyo."
    assert [request.status for request in transport.requests] == [429, 200, 200]
    model.assert_complete()
