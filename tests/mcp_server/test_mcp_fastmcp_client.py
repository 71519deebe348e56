"""FastMCP's ``Client`` (the standalone ``fastmcp`` package) against the scripted server.

It connects to a URL, or spawns a command through its ``StdioTransport``, as user code does.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastmcp")

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError

from agents_testing import (
    ScriptedMCPServer,
    UnconsumedMCPStepsError,
    mcp_get_prompt,
    mcp_read_resource,
    mcp_tool,
    mcp_tool_call,
    mcp_tool_result,
)

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


def client(server: ScriptedMCPServer, transport: str) -> Any:
    if transport == "http":
        return Client(server.url)
    command = server.stdio_command
    return Client(StdioTransport(command[0], command[1:]))


async def test_a_tool_resource_and_prompt_workflow(transport: str) -> None:
    server = ScriptedMCPServer(
        [
            mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny"),
            mcp_read_resource("file:///notes.txt", result="bring an umbrella"),
            mcp_get_prompt("forecast", {"city": "Paris"}, result="Describe the weather in Paris"),
        ],
        tools=[WEATHER],
        resources=[{"uri": "file:///notes.txt", "name": "notes"}],
        prompts=[{"name": "forecast", "arguments": [{"name": "city", "required": True}]}],
    )

    with server:
        async with client(server, transport) as connected:
            tools = await connected.list_tools()
            answer = await connected.call_tool("get_weather", {"city": "Paris"})
            contents = await connected.read_resource("file:///notes.txt")
            prompt = await connected.get_prompt("forecast", {"city": "Paris"})

    assert [tool.name for tool in tools] == ["get_weather"]
    assert answer.content[0].text == "Sunny"
    assert contents[0].text == "bring an umbrella"
    assert prompt.messages[0].content.text == "Describe the weather in Paris"
    assert server.tool_arguments == ({"city": "Paris"},)
    assert [call.uri for call in server.calls if call.method == "resources/read"] == [
        "file:///notes.txt"
    ]


async def test_a_tool_error_raises_tool_error(transport: str) -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", result=mcp_tool_result("unknown city", is_error=True))],
        tools=[WEATHER],
    )

    with server:
        async with client(server, transport) as connected:
            with pytest.raises(ToolError, match="unknown city"):
                await connected.call_tool("get_weather", {"city": "Atlantis"})


async def test_an_unused_step_fails_the_test(transport: str) -> None:
    server = ScriptedMCPServer([mcp_tool_call("get_weather", result="Sunny")], tools=[WEATHER])
    try:
        async with client(server, transport) as connected:
            await connected.list_tools()
    finally:
        server.close()

    with pytest.raises(UnconsumedMCPStepsError):
        server.assert_complete()
