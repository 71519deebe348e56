"""The official ``mcp`` client against the scripted server, over stdio and streamable HTTP.

Each test connects exactly as a user's code does: ``mcp.Client`` with the server's URL or
its stdio parameters, in the default ``auto`` mode (``server/discover``) and in ``legacy``
mode (the ``initialize`` handshake that ``mcp`` 1.x clients speak).
"""

from __future__ import annotations

import asyncio
from importlib.metadata import version
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
if int(version("mcp").partition(".")[0]) < 2:
    pytest.skip(
        "needs mcp 2.x; tests/mcp_server/test_mcp_v1_clients.py covers 1.x", allow_module_level=True
    )

from mcp.client.stdio import StdioServerParameters  # noqa: E402 - after the skip above
from mcp.shared.exceptions import MCPError  # noqa: E402

from agents_testing import (  # noqa: E402
    MCPCall,
    ScriptedJSONRPCError,
    ScriptedMCPServer,
    UnconsumedMCPStepsError,
    UnexpectedMCPCallError,
    mcp_log,
    mcp_tool,
    mcp_tool_call,
    mcp_tool_result,
)

WEATHER = mcp_tool(
    "get_weather",
    "Weather by city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    annotations={"readOnlyHint": True},
)


@pytest.fixture(params=["http-auto", "http-legacy", "stdio-auto", "stdio-legacy"])
def connect(request: pytest.FixtureRequest) -> Any:
    """Return ``connect(server)``: an ``mcp.Client`` over one transport and handshake."""
    transport, mode = str(request.param).split("-")

    def make(server: ScriptedMCPServer, **kwargs: Any) -> Any:
        target: Any = (
            server.url if transport == "http" else StdioServerParameters(**server.stdio_params)
        )
        return mcp.Client(target, mode=mode, **kwargs)

    make.mode = mode  # type: ignore[attr-defined]
    return make


async def test_a_tool_workflow_records_what_the_client_sent(connect: Any) -> None:
    server = ScriptedMCPServer(
        [
            mcp_tool_call(
                "get_weather",
                {"city": "Paris"},
                result=mcp_tool_result("Sunny", structured={"sky": "clear"}),
            )
        ],
        tools=[WEATHER],
        instructions="Ask for a city.",
        server_info={"name": "weather", "version": "2.0"},
    )
    with server:
        async with connect(server) as client:
            listed = await client.list_tools()
            answer = await client.call_tool("get_weather", {"city": "Paris"})

    assert [tool.name for tool in listed.tools] == ["get_weather"]
    assert listed.tools[0].annotations.read_only_hint is True
    assert answer.content[0].text == "Sunny"
    assert answer.structured_content == {"sky": "clear"}
    assert server.tool_names == ("get_weather",)
    assert server.tool_arguments == ({"city": "Paris"},)
    handshake = "initialize" if connect.mode == "legacy" else "server/discover"
    assert [call.method for call in server.calls] == [handshake, "tools/list", "tools/call"]
    assert len({call.session_id for call in server.calls}) == 1 or connect.mode == "auto"


async def test_a_tool_error_reaches_the_client_as_is_error(connect: Any) -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", result=mcp_tool_result("no such city", is_error=True))],
        tools=[WEATHER],
    )
    with server:
        async with connect(server) as client:
            answer = await client.call_tool("get_weather", {"city": "Atlantis"})

    assert answer.is_error is True
    assert answer.content[0].text == "no such city"


async def test_a_scripted_jsonrpc_error_raises_in_the_client(connect: Any) -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", error=ScriptedJSONRPCError(-32602, "bad city"))],
        tools=[WEATHER],
    )
    with server:
        async with connect(server) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("get_weather", {"city": "?"})

    assert raised.value.code == -32602
    assert "bad city" in str(raised.value)


async def test_an_unexpected_call_fails_in_the_client_and_at_completion(connect: Any) -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny")], tools=[WEATHER]
    )
    try:
        async with connect(server) as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("get_weather", {"city": "Rome"})
            await client.call_tool("get_weather", {"city": "Paris"})
    finally:
        server.close()

    assert "unexpected tools/call" in str(refused.value)
    with pytest.raises(UnexpectedMCPCallError) as raised:
        server.assert_complete()
    assert raised.value.call_summary == "get_weather({'city': 'Rome'})"


async def test_an_unused_step_fails_the_test(connect: Any) -> None:
    server = ScriptedMCPServer([mcp_tool_call("get_weather", result="Sunny")], tools=[WEATHER])
    try:
        async with connect(server) as client:
            await client.list_tools()
    finally:
        server.close()

    with pytest.raises(UnconsumedMCPStepsError) as raised:
        server.assert_complete()
    assert raised.value.remaining_steps == 1


async def test_a_step_logs_to_the_client_before_answering(connect: Any) -> None:
    logged: list[Any] = []

    async def on_log(params: Any) -> None:
        logged.append(params.data)

    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", result="Sunny", notifications=[mcp_log("info", "looking")])],
        tools=[WEATHER],
    )
    with server:
        async with connect(server, logging_callback=on_log, log_level="info") as client:
            await client.call_tool("get_weather", {"city": "Paris"})

    assert logged == ["looking"]


async def test_a_call_the_client_gives_up_on_is_cancelled_on_the_server(connect: Any) -> None:
    cancelled: list[int] = []

    async def never(call: MCPCall) -> str:
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            cancelled.append(call.index)
        return "never"

    server = ScriptedMCPServer(
        [
            mcp_tool_call("get_weather", respond=never),
            mcp_tool_call("get_weather", result="Sunny"),
        ],
        tools=[WEATHER],
    )
    with server:
        async with connect(server) as client:
            with pytest.raises(MCPError):
                await client.call_tool("get_weather", {"city": "Paris"}, read_timeout_seconds=0.2)
            # The session still works after the abandoned call.
            answer = await client.call_tool("get_weather", {"city": "Paris"})
            for _ in range(500):  # bounded: the cancel travels on its own
                if cancelled:
                    break
                await asyncio.sleep(0.01)

    assert answer.content[0].text == "Sunny"
    assert cancelled == [server.tool_calls[0].index]


# A 2026-era HTTP client (http-auto) is stateless: it has no stream to be notified on.
@pytest.mark.parametrize(
    ("transport", "mode"), [("http", "legacy"), ("stdio", "auto"), ("stdio", "legacy")]
)
async def test_changed_tools_reach_a_client_with_a_stream(transport: str, mode: str) -> None:
    received: list[Any] = []

    async def on_message(message: Any) -> None:
        received.append(message)

    server = ScriptedMCPServer(tools=[WEATHER])
    with server:
        target: Any = (
            server.url if transport == "http" else StdioServerParameters(**server.stdio_params)
        )
        async with mcp.Client(target, mode=mode, message_handler=on_message) as client:
            before = await client.list_tools()
            server.set_tools([WEATHER, mcp_tool("get_time")])
            for _ in range(500):  # bounded: the notification travels on its own
                if received:
                    break
                await asyncio.sleep(0.01)
            after = await client.list_tools()

    assert [tool.name for tool in before.tools] == ["get_weather"]
    assert [tool.name for tool in after.tools] == ["get_weather", "get_time"]
    assert [getattr(message, "method", None) for message in received] == [
        "notifications/tools/list_changed"
    ]
