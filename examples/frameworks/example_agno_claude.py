"""Agno's Agent on ``agno.models.anthropic.Claude``: the Anthropic Messages wire format.

Claude sends ``POST /v1/messages`` through the ``anthropic`` client. Recent ``anthropic``
releases accept only clients of the ``httpx2`` fork, while Agno's ``http_client`` takes an
``httpx`` one, so the agent reaches the scripted endpoint through the loopback server.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agno")
pytest.importorskip("anthropic")

from agno.agent import Agent, RunContentEvent
from agno.models.anthropic import Claude

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.wire import ScriptedServer


def get_weather(city: str) -> str:
    """Return the weather in a city.

    Args:
        city: The city to look up.
    """
    return f"{city}: sunny"


def weather_script() -> list[Any]:
    return [
        [
            assistant_message("Let me check."),
            function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
        ],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def weather_agent(server: ScriptedServer) -> Agent:
    model = Claude(
        id="claude-sonnet-4-5",
        api_key="test-key",
        max_tokens=512,
        client_params={"base_url": server.url},
    )
    return Agent(model=model, tools=[get_weather], instructions="Report the weather.")


def test_tool_workflow_sends_the_tool_result_back() -> None:
    model = ScriptedModel(weather_script())

    with ScriptedServer(model) as server:
        result = weather_agent(server).run("What is the weather in Tokyo?")

    # Agno joins the text of every turn of the run into its content.
    assert result.content == "Let me check.It is sunny in Tokyo."
    first, second = model.calls
    assert [call.request.extra["wire_format"] for call in model.calls] == [
        "anthropic.messages",
        "anthropic.messages",
    ]
    assert "Report the weather." in (first.request.system_instructions or "")
    assert first.request.model_settings["max_tokens"] == 512
    tool = first.request.tools[0]
    assert tool["name"] == "get_weather"
    assert tool["input_schema"]["required"] == ["city"]
    # Claude's tool_use block comes back as the assistant turn, its result as a tool_result.
    assert second.request.input[-3:] == [
        assistant_message("Let me check."),
        function_call("get_weather", {"city": "Tokyo"}, call_id="toolu_1"),
        {"type": "function_call_output", "call_id": "toolu_1", "output": "Tokyo: sunny"},
    ]
    model.assert_complete()


async def test_streamed_run_yields_the_text_deltas() -> None:
    model = ScriptedModel(weather_script())

    async with ScriptedServer(model) as server:
        agent = weather_agent(server)
        events = [event async for event in agent.arun("Weather in Tokyo?", stream=True)]

    deltas = [e.content for e in events if isinstance(e, RunContentEvent) and e.content]
    assert "".join(deltas) == "Let me check.It is sunny in Tokyo."
    assert [call.streamed for call in model.calls] == [True, True]
    model.assert_complete()


def test_overloaded_is_retried() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(529, "Overloaded", retry_after=0.001)),
            *weather_script(),
        ]
    )

    with ScriptedServer(model) as server:
        result = weather_agent(server).run("What is the weather in Tokyo?")

    assert result.content == "Let me check.It is sunny in Tokyo."
    assert [request.status for request in server.requests] == [529, 200, 200]
    # The anthropic client itself retried the first turn (Agno did not start it again).
    retry_counts = [
        call.request.extra["headers"]["x-stainless-retry-count"] for call in model.calls
    ]
    assert retry_counts == ["0", "1", "0"]
    model.assert_complete()
