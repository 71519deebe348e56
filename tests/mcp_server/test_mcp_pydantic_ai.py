"""pydantic-ai's ``MCPToolset`` with a scripted model calling a scripted MCP server's tool.

``MCPToolset`` is built on FastMCP's client (``pydantic-ai-slim[mcp]``); the agent connects to
the server's URL, or spawns its stdio command through FastMCP's ``StdioTransport``, as user
code does.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pydantic_ai")
pytest.importorskip("fastmcp")

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset

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
from agents_testing.adapters.pydantic_ai import pydantic_ai_model

WEATHER = mcp_tool(
    "get_weather",
    "Weather by city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture(params=["http", "stdio"])
def transport(request: pytest.FixtureRequest) -> str:
    """Connect the toolset over streamable HTTP or over stdio."""
    name: str = request.param
    return name


def toolset(server: ScriptedMCPServer, transport: str, **options: Any) -> MCPToolset[None]:
    if transport == "http":
        return MCPToolset(server.url, **options)
    command = server.stdio_command
    return MCPToolset(StdioTransport(command[0], command[1:]), **options)


def ask_then_answer(arguments: str, final: str) -> ScriptedModel:
    return ScriptedModel(
        [
            [function_call("get_weather", arguments, call_id="call-1")],
            [assistant_message(final)],
        ]
    )


async def test_the_model_calls_the_mcp_tool_and_sees_its_result(transport: str) -> None:
    model = ask_then_answer('{"city": "Paris"}', "It is sunny in Paris.")
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny, 21 C")], tools=[WEATHER]
    )

    with server:
        agent = Agent(pydantic_ai_model(model), toolsets=[toolset(server, transport)])
        result = await agent.run("Weather in Paris?")

    assert result.output == "It is sunny in Paris."
    assert server.tool_arguments == ({"city": "Paris"},)
    assert model.calls[0].request.tool_names == ("get_weather",)
    assert "Sunny, 21 C" in str(model.calls[1].request.input)
    model.assert_complete()


async def test_a_tool_error_goes_back_to_the_model_as_a_retry(transport: str) -> None:
    model = ask_then_answer('{"city": "Atlantis"}', "I could not find that city.")
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", result=mcp_tool_result("unknown city", is_error=True))],
        tools=[WEATHER],
    )

    with server:
        agent = Agent(pydantic_ai_model(model), toolsets=[toolset(server, transport)])
        result = await agent.run("Weather in Atlantis?")

    assert result.output == "I could not find that city."
    assert "unknown city" in str(model.calls[1].request.input)
    model.assert_complete()


async def test_an_unused_mcp_step_fails_the_test(transport: str) -> None:
    model = ScriptedModel([[assistant_message("No tool needed.")]])
    server = ScriptedMCPServer([mcp_tool_call("get_weather", result="Sunny")], tools=[WEATHER])

    try:
        agent = Agent(pydantic_ai_model(model), toolsets=[toolset(server, transport)])
        await agent.run("Hello")
    finally:
        server.close()

    with pytest.raises(UnconsumedMCPStepsError) as raised:
        server.assert_complete()
    assert raised.value.remaining_steps == 1
