"""Test a LangChain tool workflow against ScriptedModel, with no network.

``weather_agent`` stands in for the code under test: a tool loop written against any LangChain
chat model. ``langchain_chat_model`` turns the scripted model into one; the test scripts the
turns and asserts on what the loop sent, read from the core ``ScriptedModel``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

import warnings
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.tools import tool

from agents_testing import ScriptedModel, assistant_message, function_call
from agents_testing.adapters.langchain import langchain_chat_model


@tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_agent(chat: BaseChatModel, prompt: str) -> str:
    """Call the model until it stops asking for tools; return its final text."""
    model = chat.bind_tools([get_weather])
    messages: list[BaseMessage] = [HumanMessage(prompt)]
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return str(reply.content)
        for call in reply.tool_calls:
            messages.append(get_weather.invoke(call))  # the real tool runs


def weather_script() -> list[Any]:
    return [
        # Turn 1 asks for the tool; turn 2 answers from the tool's result.
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def test_tool_loop_on_a_langchain_chat_model() -> None:
    model = ScriptedModel(weather_script())

    answer = weather_agent(langchain_chat_model(model), "What is the weather in Tokyo?")

    assert answer == "It is sunny in Tokyo."
    first, second = model.calls
    # bind_tools() schemas are recorded, so a test can see which tools the model was offered.
    assert [schema["function"]["name"] for schema in first.request.tools] == ["get_weather"]
    # LangChain messages are recorded as normalized items; the tool ran for real.
    assert second.request.input[-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "Tokyo: sunny",
    }
    model.assert_complete()  # fails if the loop stopped before using every step


@pytest.mark.asyncio
async def test_streamed_turns_aggregate_into_tool_calls() -> None:
    model = ScriptedModel(weather_script()[:1])
    chat = langchain_chat_model(model).bind_tools([get_weather])

    # The same script streams: tool calls arrive as tool_call_chunks that add up.
    chunks: list[AIMessageChunk] = []
    async for chunk in chat.astream("What is the weather in Tokyo?"):
        assert isinstance(chunk, AIMessageChunk)
        chunks.append(chunk)
    reply = add_ai_message_chunks(chunks[0], *chunks[1:])

    assert reply.tool_calls[0]["args"] == {"city": "Tokyo"}
    assert model.calls[0].streamed is True
    model.assert_complete()


def test_langgraph_react_agent() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    model = ScriptedModel(weather_script())
    with warnings.catch_warnings():
        # LangGraph 1.x suggests langchain.agents.create_agent, which runs the same way.
        warnings.filterwarnings("ignore", "create_react_agent has been moved", DeprecationWarning)
        agent = prebuilt.create_react_agent(langchain_chat_model(model), [get_weather])

    result = agent.invoke({"messages": [HumanMessage("What is the weather in Tokyo?")]})

    assert result["messages"][-1].content == "It is sunny in Tokyo."
    assert len(model.calls) == 2
    model.assert_complete()
