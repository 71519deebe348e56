"""Clients pinned to ``mcp`` 1.x: its ``ClientSession``, and langchain-mcp-adapters with LangGraph.

These run in an environment of their own (``pip install --group mcp1``: ``mcp<2``,
langchain-mcp-adapters, langchain, langgraph), since the 2.x clients need ``mcp`` 2.x; CI runs both.
The same stdlib server answers both majors: 1.x clients speak the ``initialize`` handshake.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

import pytest

pytest.importorskip("mcp")
if int(version("mcp").partition(".")[0]) != 1:
    pytest.skip("needs mcp 1.x (the mcp1 dependency group)", allow_module_level=True)
pytest.importorskip("langchain_mcp_adapters")
pytest.importorskip("langgraph")
pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain_mcp_adapters.client import MultiServerMCPClient
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from agents_testing import (
    ScriptedMCPServer,
    ScriptedModel,
    UnconsumedMCPStepsError,
    assistant_message,
    function_call,
    mcp_tool,
    mcp_tool_call,
    mcp_tool_result,
)
from agents_testing.adapters.langchain import langchain_chat_model

WEATHER = mcp_tool(
    "get_weather",
    "Weather by city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture(params=["http", "stdio"])
def transport(request: pytest.FixtureRequest) -> str:
    """Connect over streamable HTTP or over stdio."""
    name: str = request.param
    return name


async def session_call(server: ScriptedMCPServer, transport: str) -> Any:
    if transport == "http":
        # Typed as Any: type checkers see the development environment's mcp 2.x, whose
        # transport yields two streams where 1.x yields three.
        client: Any = streamable_http_client(server.url)
        async with client as (read, write, _), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            return await session.call_tool("get_weather", {"city": "Paris"})
    params = StdioServerParameters(**server.stdio_params)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        return await session.call_tool("get_weather", {"city": "Paris"})


async def test_the_v1_client_session_calls_a_scripted_tool(transport: str) -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny")], tools=[WEATHER]
    )

    with server:
        answer = await session_call(server, transport)

    assert answer.content[0].text == "Sunny"
    assert [call.method for call in server.calls] == ["initialize", "tools/list", "tools/call"]
    assert server.calls[0].protocol_version == server.calls[2].protocol_version


def connection(server: ScriptedMCPServer, transport: str) -> dict[str, Any]:
    if transport == "http":
        return {"transport": "streamable_http", "url": server.url}
    return {"transport": "stdio", **server.stdio_params}


def ask_then_answer(city: str, final: str) -> ScriptedModel:
    return ScriptedModel(
        [
            [function_call("get_weather", json.dumps({"city": city}), call_id="call-1")],
            [assistant_message(final)],
        ]
    )


async def run_agent(server: ScriptedMCPServer, model: ScriptedModel, transport: str) -> Any:
    client = MultiServerMCPClient({"weather": connection(server, transport)})
    tools = await client.get_tools()
    agent = create_agent(langchain_chat_model(model), tools)
    return await agent.ainvoke({"messages": [("user", "Weather in Paris?")]})


async def test_a_langgraph_agent_calls_the_mcp_tool(transport: str) -> None:
    model = ask_then_answer("Paris", "It is sunny in Paris.")
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny, 21 C")], tools=[WEATHER]
    )

    with server:
        state = await run_agent(server, model, transport)

    assert state["messages"][-1].content == "It is sunny in Paris."
    assert state["messages"][-2].content[0]["text"] == "Sunny, 21 C"
    assert server.tool_arguments == ({"city": "Paris"},)
    model.assert_complete()


async def test_a_tool_error_reaches_the_langgraph_agent(transport: str) -> None:
    model = ask_then_answer("Atlantis", "I could not find that city.")
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", result=mcp_tool_result("unknown city", is_error=True))],
        tools=[WEATHER],
    )

    with server:
        state = await run_agent(server, model, transport)

    assert state["messages"][-1].content == "I could not find that city."
    assert "unknown city" in str(state["messages"][-2].content)
    model.assert_complete()


async def test_an_unused_mcp_step_fails_the_test(transport: str) -> None:
    model = ScriptedModel([[assistant_message("No tool needed.")]])
    server = ScriptedMCPServer([mcp_tool_call("get_weather", result="Sunny")], tools=[WEATHER])

    try:
        await run_agent(server, model, transport)
    finally:
        server.close()

    with pytest.raises(UnconsumedMCPStepsError):
        server.assert_complete()
