"""Record a pydantic-ai run through the native adapter, then replay it offline.

The "real" model is pydantic-ai's own ``OpenAIChatModel`` whose provider's client sends over a
scripted stand-in transport (no socket even while recording); the recorder wraps it. The
written script then replays through ``pydantic_ai_model`` with every socket refused.
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
from pydantic_ai.exceptions import ModelHTTPError  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ThinkingPart  # noqa: E402
from pydantic_ai.models import Model  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from agents_testing import (  # noqa: E402
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
from agents_testing.adapters.httpx import scripted_transport  # noqa: E402
from agents_testing.adapters.pydantic_ai import (  # noqa: E402
    pydantic_ai_model,
    recording_pydantic_ai_model,
)

API_KEY = "sk-pai-native-sentinel-77e1f0c2"


def weather_agent(model: Model, instructions: str = "Report the weather.") -> Agent[None, str]:
    agent: Agent[None, str] = Agent(model, instructions=instructions)

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Return the weather in a city."""
        return f"{city}: sunny"

    return agent


async def run(agent: Agent[None, str], stream: bool) -> str:
    if stream:
        async with agent.run_stream("Weather in Tokyo?") as result:
            return await result.get_output()
    return (await agent.run("Weather in Tokyo?")).output


def real_model(provider: ScriptedModel, max_retries: int = 2) -> OpenAIChatModel:
    client = openai.AsyncOpenAI(
        base_url="http://provider.invalid/v1",
        api_key=API_KEY,
        max_retries=max_retries,
        http_client=httpx.AsyncClient(transport=scripted_transport(provider)),
    )
    return OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))


async def record(path: Path, stream: bool) -> Path:
    provider = ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, retry_after=0.01)),  # the client retries it
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )
    recorder = ModelRecorder()
    model = recording_pydantic_ai_model(real_model(provider), recorder)
    assert await run(weather_agent(model), stream) == "It is sunny in Tokyo."
    return recorder.recording.write(path)


def refuse(self: socket.socket, address: Any) -> None:
    raise OSError(f"sockets are blocked during the replay: {address!r}")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_native_pydantic_ai_run_replays_offline_through_the_adapter(
    stream: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await record(tmp_path / "weather.py", stream)
    module = load_recording(path)
    assert [request["adapter"] for request in module.REQUESTS] == ["pydantic-ai"] * 2
    assert module.REQUESTS[1]["body"]["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "Tokyo: sunny",
    }
    assert API_KEY not in path.read_text()

    replay = Replay.load(path)
    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)
        answer = await run(weather_agent(pydantic_ai_model(replay.model)), stream)

    assert answer == "It is sunny in Tokyo."
    replay.assert_complete()


async def test_two_native_pydantic_ai_recordings_write_the_same_file(tmp_path: Path) -> None:
    first = await record(tmp_path / "first.py", True)
    second = await record(tmp_path / "second.py", True)

    assert first.read_bytes() == second.read_bytes()


async def test_a_changed_instruction_fails_the_pydantic_ai_replay_with_its_diff(
    tmp_path: Path,
) -> None:
    replay = Replay.load(await record(tmp_path / "weather.py", False))
    agent = weather_agent(pydantic_ai_model(replay.model), "Report the weather briefly.")

    with pytest.raises(ScriptedHTTPError):
        await run(agent, False)

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    assert (caught.value.path, caught.value.recorded, caught.value.sent) == (
        "instructions",
        "Report the weather.",
        "Report the weather briefly.",
    )


async def test_a_model_http_error_is_recorded_as_a_model_error(tmp_path: Path) -> None:
    provider = ScriptedModel([model_error(ScriptedHTTPError(503, "overloaded"))])
    recorder = ModelRecorder()
    model = recording_pydantic_ai_model(real_model(provider, max_retries=0), recorder)

    with pytest.raises(ModelHTTPError):
        await run(weather_agent(model), False)

    (step,) = load_recording(recorder.recording.write(tmp_path / "failed.py")).STEPS
    assert (step["error"].status, step["error"].message) == (503, "overloaded")


async def test_a_thinking_part_is_left_out_with_a_warning_in_the_file(tmp_path: Path) -> None:
    def think(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ThinkingPart("Let me think."), TextPart("Sunny.")])

    recorder = ModelRecorder()
    agent = weather_agent(recording_pydantic_ai_model(FunctionModel(think), recorder))
    assert await run(agent, False) == "Sunny."

    path = recorder.recording.write(tmp_path / "thinking.py")
    assert "a ThinkingPart the pydantic-ai model answered with: left out" in path.read_text()
    (step,) = load_recording(path).STEPS
    assert step["response"].output == [assistant_message("Sunny.")]


def test_the_pydantic_ai_recording_wrapper_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError, match="expects a pydantic-ai Model, got str"):
        recording_pydantic_ai_model("openai:gpt-4.1", ModelRecorder())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects a ModelRecorder, got NoneType"):
        recording_pydantic_ai_model(real_model(ScriptedModel([])), None)  # type: ignore[arg-type]
