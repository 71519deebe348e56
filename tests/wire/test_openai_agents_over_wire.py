"""The OpenAI Agents SDK's own Responses model against the wire endpoint.

The in-process adapter skips the SDK's provider code; over the wire, its request
serialization and its parsing of the Responses event stream run for real.
"""

from __future__ import annotations

import pytest

agents = pytest.importorskip("agents")
openai = pytest.importorskip("openai")

from agents import (  # noqa: E402
    Agent,
    ModelBehaviorError,
    ModelSettings,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    RunResult,
    RunResultStreaming,
    function_tool,
)

from agents_testing import (  # noqa: E402
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
)
from agents_testing.wire import ScriptedServer  # noqa: E402

from ._streams import stream_failing_after, text_delta  # noqa: E402


@function_tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_agent(server: ScriptedServer) -> Agent:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="test-key")
    return Agent(
        name="Weather",
        instructions="Report the weather.",
        model=OpenAIResponsesModel(model="gpt-4.1", openai_client=client),
        model_settings=ModelSettings(temperature=0.0),
        tools=[get_weather],
    )


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_runner_tool_workflow_over_the_wire(stream: bool) -> None:
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )
    config = RunConfig(tracing_disabled=True)

    async with ScriptedServer(model) as server:
        agent = weather_agent(server)
        result: RunResult | RunResultStreaming
        if stream:
            result = Runner.run_streamed(agent, "Weather in Tokyo?", run_config=config)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, "Weather in Tokyo?", run_config=config)

    assert result.final_output == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.streamed is second.streamed is stream
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools[0]["name"] == "get_weather"
    assert first.request.model_settings["temperature"] == 0.0
    assert second.request.input[-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "Tokyo: sunny",
    }
    model.assert_complete()


async def test_streamed_run_raises_the_failed_response() -> None:
    model = stream_failing_after([text_delta("It is")], ScriptedHTTPError(500, "The model crashed"))
    config = RunConfig(tracing_disabled=True)

    async with ScriptedServer(model) as server:
        result = Runner.run_streamed(weather_agent(server), "Weather in Tokyo?", run_config=config)
        with pytest.raises(ModelBehaviorError) as caught:
            async for _ in result.stream_events():
                pass

    # The SDK ends the run on the live API's response.failed and names its error.
    message = str(caught.value)
    assert "response.failed" in message
    assert "status=failed" in message
    assert "The model crashed" in message
    assert "server_error" in message
    assert [exchange.status for exchange in server.requests] == [200]
    model.assert_complete()
