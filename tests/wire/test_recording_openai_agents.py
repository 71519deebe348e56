"""A user-level run: record an OpenAI Agents SDK run, then replay it with sockets blocked.

The SDK's own ``OpenAIResponsesModel`` talks to the recording proxy (in front of a scripted
stand-in for the provider); the recorded script then serves the same run in-process through
the httpx transport, with every socket connection refused.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

agents = pytest.importorskip("agents")
openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

from agents import (  # noqa: E402
    Agent,
    ModelSettings,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    RunResult,
    RunResultStreaming,
    function_tool,
)

from agents_testing import (  # noqa: E402
    Replay,
    ReplayRequestDriftError,
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    load_recording,
    model_error,
)
from agents_testing.adapters.httpx import scripted_transport  # noqa: E402
from agents_testing.wire import RecordingProxy, ScriptedServer  # noqa: E402

API_KEY = "sk-agents-sentinel-0f3e9a1b77c2"


@function_tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_agent(client: Any) -> Agent:
    return Agent(
        name="Weather",
        instructions="Report the weather.",
        model=OpenAIResponsesModel(model="gpt-4.1", openai_client=client),
        model_settings=ModelSettings(temperature=0.0),
        tools=[get_weather],
    )


async def run(client: Any, prompt: str, stream: bool) -> Any:
    agent = weather_agent(client)
    config = RunConfig(tracing_disabled=True)
    result: RunResult | RunResultStreaming
    if stream:
        result = Runner.run_streamed(agent, prompt, run_config=config)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, prompt, run_config=config)
    return result.final_output


def stand_in_provider() -> ScriptedModel:
    return ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, retry_after=0.01)),  # the SDK's client retries
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )


async def record(path: Path, stream: bool) -> Path:
    async with (
        ScriptedServer(stand_in_provider()) as provider,
        RecordingProxy(provider.url) as proxy,
    ):
        client = openai.AsyncOpenAI(base_url=proxy.base_url, api_key=API_KEY)
        assert await run(client, "Weather in Tokyo?", stream) == "It is sunny in Tokyo."
    return proxy.recording.write(path)


def refuse(self: socket.socket, address: Any) -> None:
    raise OSError(f"sockets are blocked during the replay: {address!r}")


def offline_client(replay: Replay) -> Any:
    transport = scripted_transport(replay.model)
    return openai.AsyncOpenAI(
        base_url="http://scripted.invalid/v1",
        api_key="replay-key",
        http_client=httpx.AsyncClient(transport=transport),
    )


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_an_agents_run_recorded_once_replays_offline(
    stream: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await record(tmp_path / "weather.py", stream)
    script = path.read_text()
    assert API_KEY not in script
    assert [type(step).__name__ for step in load_recording(path).STEPS] == ["dict"] * 3

    replay = Replay.load(path)
    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)  # the replay needs no socket
        answer = await run(offline_client(replay), "Weather in Tokyo?", stream)

    assert answer == "It is sunny in Tokyo."
    replay.assert_complete()
    first, _, third = replay.model.calls
    assert first.request.system_instructions == "Report the weather."
    assert third.request.tool_outputs == {"call_1": "Tokyo: sunny"}


async def test_an_agents_run_that_changed_its_instructions_fails_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await record(tmp_path / "weather.py", False)
    replay = Replay.load(path)
    agent = weather_agent(offline_client(replay))
    agent.instructions = "Report the weather in French."

    config = RunConfig(tracing_disabled=True)

    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)
        with pytest.raises(openai.BadRequestError):
            await Runner.run(agent, "Weather in Tokyo?", run_config=config)

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    assert (caught.value.path, caught.value.recorded, caught.value.sent) == (
        "instructions",
        "Report the weather.",
        "Report the weather in French.",
    )
