"""Test a pydantic-ai agent against ScriptedModel, with no network and no API key.

``weather_agent`` stands in for the code under test: an agent written for a real provider.
Each test swaps its model for ``pydantic_ai_model(model)`` with ``Agent.override``, runs the
real agent (its tool runs for real) and asserts on what the agent sent, read from the core
``ScriptedModel``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai")

from typing import Any

from pydantic_ai import Agent

from agents_testing import ScriptedModel, assistant_message, function_call
from agents_testing.adapters.pydantic_ai import pydantic_ai_model

# defer_model_check: the OpenAI model is only built if a run uses it, and the tests never do.
weather_agent = Agent(
    "openai:gpt-4o", defer_model_check=True, instructions="You report the weather."
)


@weather_agent.tool_plain
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_script() -> list[Any]:
    return [
        # Turn 1 asks for the tool; turn 2 answers from the tool's result.
        [function_call("get_weather", '{"city": "Tokyo"}', call_id="call_1")],
        [assistant_message("It is sunny in Tokyo.")],
    ]


@pytest.mark.asyncio
async def test_returns_a_fixed_answer() -> None:
    model = ScriptedModel([[assistant_message("Hello!")]])

    with weather_agent.override(model=pydantic_ai_model(model)):
        result = await weather_agent.run("Hi")

    assert result.output == "Hello!"
    [call] = model.calls
    # pydantic-ai's instructions are recorded apart from the history.
    assert call.request.system_instructions == "You report the weather."
    assert call.request.input == [{"type": "message", "role": "user", "content": "Hi"}]
    model.assert_complete()


@pytest.mark.asyncio
async def test_runs_the_tool_loop() -> None:
    model = ScriptedModel(weather_script())

    with weather_agent.override(model=pydantic_ai_model(model)):
        result = await weather_agent.run("What is the weather in Tokyo?")

    assert result.output == "It is sunny in Tokyo."
    first, second = model.calls
    assert [tool.name for tool in first.request.tools] == ["get_weather"]
    # The second call carries the tool call (exact argument string) and the real tool's output.
    assert second.request.input[1:] == [
        function_call("get_weather", '{"city": "Tokyo"}', call_id="call_1"),
        {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"},
    ]
    model.assert_complete()  # fails if the agent stopped before using every step


@pytest.mark.asyncio
async def test_streams_the_same_script() -> None:
    model = ScriptedModel(weather_script())

    # run_stream sends every model call through request_stream: the same plain steps stream
    # as text deltas and tool-call parts.
    with weather_agent.override(model=pydantic_ai_model(model)):
        async with weather_agent.run_stream("What is the weather in Tokyo?") as result:
            text = [chunk async for chunk in result.stream_text(debounce_by=None)]

    assert text[-1] == "It is sunny in Tokyo."
    assert [call.streamed for call in model.calls] == [True, True]
    model.assert_complete()
