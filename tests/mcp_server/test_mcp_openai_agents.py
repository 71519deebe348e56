"""openai-agents with a scripted model calling a scripted MCP server's tool through Runner.

The agent connects with the SDK's own ``MCPServerStreamableHttp`` and ``MCPServerStdio``,
exactly as user code does; the model and the MCP server are both doubles, so one test
asserts what the model asked for, what reached the tool, and what came back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("agents")
pytest.importorskip("mcp")

from agents import Agent, Runner
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

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
from agents_testing.adapters.openai_agents import openai_agents_model

WEATHER = mcp_tool(
    "get_weather",
    "Weather by city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture(params=["http", "stdio"])
def transport(request: pytest.FixtureRequest) -> str:
    """Connect the agent over streamable HTTP or over stdio."""
    name: str = request.param
    return name


def sdk_server(server: ScriptedMCPServer, transport: str) -> Any:
    if transport == "http":
        return MCPServerStreamableHttp(params={"url": server.url}, name="weather")
    return MCPServerStdio(params=server.stdio_params, name="weather")  # type: ignore[arg-type]


def ask_then_answer(arguments: dict[str, Any], final: str) -> ScriptedModel:
    return ScriptedModel(
        [
            [function_call("get_weather", json.dumps(arguments), call_id="call-1")],
            [assistant_message(final)],
        ]
    )


async def run(server: ScriptedMCPServer, model: ScriptedModel, transport: str) -> str:
    async with sdk_server(server, transport) as mcp_server:
        agent = Agent(name="forecaster", model=openai_agents_model(model), mcp_servers=[mcp_server])
        result = await Runner.run(agent, "Weather in Paris?")
    output: str = result.final_output
    return output


async def test_the_model_calls_the_mcp_tool_and_sees_its_result(transport: str) -> None:
    model = ask_then_answer({"city": "Paris"}, "It is sunny in Paris.")
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny, 21 C")], tools=[WEATHER]
    )

    with server:
        output = await run(server, model, transport)

    assert output == "It is sunny in Paris."
    assert model.calls[0].request.tool_names == ("get_weather",)
    assert server.tool_arguments == ({"city": "Paris"},)
    second_input = model.calls[1].request.input
    assert isinstance(second_input, list)
    outputs = [item for item in second_input if item.get("type") == "function_call_output"]
    assert "Sunny, 21 C" in str(outputs[0]["output"])
    model.assert_complete()


async def test_a_tool_error_goes_back_to_the_model(transport: str) -> None:
    model = ask_then_answer({"city": "Atlantis"}, "I could not find that city.")
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", result=mcp_tool_result("unknown city", is_error=True))],
        tools=[WEATHER],
    )

    with server:
        output = await run(server, model, transport)

    assert output == "I could not find that city."
    second_input = model.calls[1].request.input
    assert isinstance(second_input, list)
    assert "unknown city" in str(second_input[-1])
    model.assert_complete()


async def test_an_unused_mcp_step_fails_the_test(transport: str) -> None:
    model = ScriptedModel([[assistant_message("No tool needed.")]])
    server = ScriptedMCPServer([mcp_tool_call("get_weather", result="Sunny")], tools=[WEATHER])

    try:
        await run(server, model, transport)
    finally:
        server.close()

    with pytest.raises(UnconsumedMCPStepsError) as raised:
        server.assert_complete()
    assert raised.value.pending_steps[0]["method"] == "tools/call"
