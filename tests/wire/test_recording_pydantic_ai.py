"""A user-level run: record a pydantic-ai agent on Chat Completions, replay it offline.

pydantic-ai's own ``OpenAIChatModel`` talks to the recording proxy (in front of a scripted
stand-in for the provider); the recorded script then serves the same run in-process through
the httpx transport, with every socket connection refused.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")
openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from agents_testing import (  # noqa: E402
    Replay,
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.adapters.httpx import scripted_transport  # noqa: E402
from agents_testing.wire import RecordingProxy, ScriptedServer  # noqa: E402

API_KEY = "sk-pydantic-sentinel-5d21c0e9aa"


def weather_agent(client: Any) -> Agent[None, str]:
    model = OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))
    agent: Agent[None, str] = Agent(model, instructions="Report the weather.")

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Return the weather in a city."""
        return f"{city}: sunny"

    return agent


async def run(client: Any, stream: bool) -> str:
    agent = weather_agent(client)
    if stream:
        async with agent.run_stream("Weather in Tokyo?") as result:
            return await result.get_output()
    return (await agent.run("Weather in Tokyo?")).output


def refuse(self: socket.socket, address: Any) -> None:
    raise OSError(f"sockets are blocked during the replay: {address!r}")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_pydantic_ai_run_recorded_once_replays_offline(
    stream: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, retry_after=0.01)),  # the client retries it
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )
    async with ScriptedServer(stand_in) as provider, RecordingProxy(provider.url) as proxy:
        client = openai.AsyncOpenAI(base_url=proxy.base_url, api_key=API_KEY)
        assert await run(client, stream) == "It is sunny in Tokyo."
    path = proxy.recording.write(tmp_path / "weather.py")
    assert API_KEY not in path.read_text()
    assert [exchange.status for exchange in proxy.recording.exchanges] == [429, 200, 200]

    replay = Replay.load(path)
    offline = openai.AsyncOpenAI(
        base_url="http://scripted.invalid/v1",
        api_key="replay-key",
        http_client=httpx.AsyncClient(transport=scripted_transport(replay.model)),
    )
    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)  # the replay needs no socket
        answer = await run(offline, stream)

    assert answer == "It is sunny in Tokyo."
    replay.assert_complete()
    assert replay.model.calls[-1].request.tool_outputs == {"call_1": "Tokyo: sunny"}
