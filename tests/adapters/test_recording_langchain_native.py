"""Record a LangChain run through the native adapter, then replay it offline.

Two "real" models: langchain-core's own ``GenericFakeChatModel`` (always installed with the
adapter), and langchain-openai's ``ChatOpenAI`` under a LangGraph agent, its client sending
over a scripted stand-in transport (the integration group installs langchain-openai). The
written script replays through ``langchain_chat_model`` with every socket refused.
"""

from __future__ import annotations

import socket
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langchain_core.tools import tool

from agents_testing import (
    ModelRecorder,
    Replay,
    ReplayRequestDriftError,
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    load_recording,
    model_error,
)
from agents_testing.adapters.langchain import (
    RecordingChatModel,
    langchain_chat_model,
    recording_langchain_chat_model,
)

API_KEY = "sk-lc-native-sentinel-9a0b1c2d3e"


def refuse(self: socket.socket, address: Any) -> None:
    raise OSError(f"sockets are blocked during the replay: {address!r}")


# -- a fake chat model langchain-core ships ---------------------------------------------------


def fake_model() -> GenericFakeChatModel:
    return GenericFakeChatModel(
        messages=iter([AIMessage("Hello there."), AIMessage("Sunny in Tokyo.")])
    )


def converse(model: BaseChatModel) -> list[str]:
    first = model.invoke([HumanMessage("Hi!")])
    chunks = [
        chunk.text for chunk in model.stream([HumanMessage("Hi!"), first, HumanMessage("Weather?")])
    ]
    return [first.text, "".join(chunks)]


def test_a_fake_chat_model_run_is_recorded_and_replayed_through_the_adapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = ModelRecorder()
    model = recording_langchain_chat_model(fake_model(), recorder)
    assert isinstance(model, RecordingChatModel)
    assert converse(model) == ["Hello there.", "Sunny in Tokyo."]
    path = recorder.recording.write(tmp_path / "chat.py")
    module = load_recording(path)
    assert [request["body"].get("stream") for request in module.REQUESTS] == [None, True]
    assert module.REQUESTS[1]["body"]["input"][1] == {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hello there."}],
    }

    replay = Replay.load(path)
    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)
        answers = converse(langchain_chat_model(replay.model))

    assert answers == ["Hello there.", "Sunny in Tokyo."]
    replay.assert_complete()


def test_a_changed_message_fails_the_langchain_replay_with_its_diff(tmp_path: Path) -> None:
    recorder = ModelRecorder()
    converse(recording_langchain_chat_model(fake_model(), recorder))
    replay = Replay.load(recorder.recording.write(tmp_path / "chat.py"))

    with pytest.raises(ScriptedHTTPError):
        langchain_chat_model(replay.model).invoke([HumanMessage("Hello!")])

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    assert (caught.value.path, caught.value.recorded, caught.value.sent) == (
        "input[0].content",
        "Hi!",
        "Hello!",
    )


def test_an_error_without_an_http_status_is_a_warning(tmp_path: Path) -> None:
    recorder = ModelRecorder()
    model = recording_langchain_chat_model(GenericFakeChatModel(messages=iter([])), recorder)

    with pytest.raises(StopIteration):
        model.invoke([HumanMessage("Hi!")])

    script = recorder.recording.write(tmp_path / "failed.py").read_text()
    assert "call #1 through the langchain adapter raised StopIteration" in script


def test_the_langchain_recording_wrapper_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError, match="expects a LangChain BaseChatModel, got str"):
        recording_langchain_chat_model("gpt-4.1", ModelRecorder())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects a ModelRecorder, got list"):
        recording_langchain_chat_model(fake_model(), [])  # type: ignore[arg-type]


# -- ChatOpenAI under a LangGraph agent --------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def react_agent(model: BaseChatModel, prompt: str = "Report the weather.") -> Any:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="create_react_agent has been moved", category=DeprecationWarning
        )
        return prebuilt.create_react_agent(model, [get_weather], prompt=prompt)


async def ask(agent: Any, stream: bool) -> str:
    inputs = {"messages": [HumanMessage("Weather in Tokyo?")]}
    if not stream:
        return str((await agent.ainvoke(inputs))["messages"][-1].content)
    tokens = [
        chunk.content
        async for chunk, _ in agent.astream(inputs, stream_mode="messages")
        if isinstance(chunk, AIMessageChunk) and isinstance(chunk.content, str)
    ]
    return "".join(tokens)


def chat_openai(provider: ScriptedModel) -> Any:
    langchain_openai = pytest.importorskip("langchain_openai")
    httpx = pytest.importorskip("httpx")
    from agents_testing.adapters.httpx import scripted_transport

    return langchain_openai.ChatOpenAI(
        model="gpt-4.1-mini",
        base_url="http://provider.invalid/v1",
        api_key=API_KEY,
        http_async_client=httpx.AsyncClient(transport=scripted_transport(provider)),
    )


async def record_langgraph(path: Path, stream: bool) -> Path:
    provider = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, retry_after=0.01)),  # the client retries it
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )
    recorder = ModelRecorder()
    model = recording_langchain_chat_model(chat_openai(provider), recorder)
    assert await ask(react_agent(model), stream) == "It is sunny in Tokyo."
    return recorder.recording.write(path)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_langgraph_run_on_chat_openai_replays_offline_through_the_adapter(
    stream: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await record_langgraph(tmp_path / "weather.py", stream)
    module = load_recording(path)
    assert [request["adapter"] for request in module.REQUESTS] == ["langchain"] * 2
    assert module.REQUESTS[0]["body"]["tools"][0]["name"] == "get_weather"
    assert API_KEY not in path.read_text()

    replay = Replay.load(path)
    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)
        answer = await ask(react_agent(langchain_chat_model(replay.model)), stream)

    assert answer == "It is sunny in Tokyo."
    replay.assert_complete()
    assert [call.streamed for call in replay.model.calls] == [stream, stream]


async def test_a_changed_prompt_fails_the_langgraph_replay(tmp_path: Path) -> None:
    replay = Replay.load(await record_langgraph(tmp_path / "weather.py", False))
    agent = react_agent(langchain_chat_model(replay.model), "Report the weather in French.")

    with pytest.raises(ScriptedHTTPError):
        await ask(agent, False)

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    assert caught.value.path == "instructions"
    assert caught.value.sent == "Report the weather in French."
