"""A user-level run: record a LangGraph agent on ChatOpenAI, then replay it with sockets blocked.

LangGraph's prebuilt ReAct agent runs on langchain-openai's own ``ChatOpenAI``, which talks
Chat Completions to the recording proxy in front of a scripted stand-in for the provider on
loopback. The recorded script then serves the same run in-process through the httpx
transport, with every socket connection refused.
"""

from __future__ import annotations

import socket
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")
langchain_openai = pytest.importorskip("langchain_openai")
openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

from langchain_core.messages import AIMessageChunk, HumanMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph import prebuilt  # noqa: E402

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

API_KEY = "sk-langgraph-sentinel-4c8e2f61b0"


@tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_agent(model: Any, prompt: str = "Report the weather.") -> Any:
    with warnings.catch_warnings():
        # LangGraph 1.x points to langchain.agents.create_agent; the prebuilt agent still
        # works and is what langgraph-only installs have.
        warnings.filterwarnings(
            "ignore", message="create_react_agent has been moved", category=DeprecationWarning
        )
        return prebuilt.create_react_agent(model, [get_weather], prompt=prompt)


async def ask(agent: Any, stream: bool) -> str:
    inputs = {"messages": [HumanMessage("Weather in Tokyo?")]}
    if not stream:
        return str((await agent.ainvoke(inputs))["messages"][-1].content)
    # Streaming the graph's messages makes ChatOpenAI stream its calls too.
    tokens = [
        chunk.content
        async for chunk, _ in agent.astream(inputs, stream_mode="messages")
        if isinstance(chunk, AIMessageChunk) and isinstance(chunk.content, str)
    ]
    return "".join(tokens)


def stand_in_provider() -> ScriptedModel:
    return ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, retry_after=0.01)),  # the client retries it
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )


async def record(path: Path, stream: bool) -> Path:
    async with (
        ScriptedServer(stand_in_provider()) as provider,
        RecordingProxy(provider.url) as proxy,
    ):
        model = langchain_openai.ChatOpenAI(
            model="gpt-4.1-mini", base_url=proxy.base_url, api_key=API_KEY
        )
        assert await ask(weather_agent(model), stream) == "It is sunny in Tokyo."
    return proxy.recording.write(path)


def offline_model(replay: Replay) -> Any:
    return langchain_openai.ChatOpenAI(
        model="gpt-4.1-mini",
        base_url="http://scripted.invalid/v1",
        api_key="replay-key",
        http_async_client=httpx.AsyncClient(transport=scripted_transport(replay.model)),
    )


def refuse(self: socket.socket, address: Any) -> None:
    raise OSError(f"sockets are blocked during the replay: {address!r}")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_langgraph_run_recorded_once_replays_offline(
    stream: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await record(tmp_path / "weather.py", stream)
    script = path.read_text()
    assert API_KEY not in script
    module = load_recording(path)
    assert [request["path"] for request in module.REQUESTS] == ["/v1/chat/completions"] * 3
    assert module.STEPS[0]["error"].status == 429  # the retried call is a step of its own
    assert f"chat_completions, {'streamed' if stream else 'not streamed'}, HTTP 200" in script

    replay = Replay.load(path)
    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)  # the replay needs no socket
        answer = await ask(weather_agent(offline_model(replay)), stream)

    assert answer == "It is sunny in Tokyo."
    replay.assert_complete()
    third = replay.model.calls[2]
    assert third.request.tool_outputs == {"call_1": "Tokyo: sunny"}


async def test_two_langgraph_recordings_write_the_same_file(tmp_path: Path) -> None:
    first = await record(tmp_path / "first.py", True)
    second = await record(tmp_path / "second.py", True)

    assert first.read_bytes() == second.read_bytes()


async def test_a_langgraph_run_with_a_changed_prompt_fails_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = Replay.load(await record(tmp_path / "weather.py", False))
    agent = weather_agent(offline_model(replay), "Report the weather in French.")

    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)
        with pytest.raises(openai.BadRequestError):  # a drift is a 400: no retry
            await ask(agent, False)

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    assert (caught.value.path, caught.value.recorded, caught.value.sent) == (
        "messages[0].content",
        "Report the weather.",
        "Report the weather in French.",
    )
