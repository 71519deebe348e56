"""Record an OpenAI Agents SDK run through the native adapter, then replay it offline.

The "real" model is the SDK's own ``OpenAIResponsesModel`` with an ``AsyncOpenAI`` client whose
HTTP transport is a scripted stand-in for the provider (no socket even while recording); the
recorder wraps it. The written script then replays through ``openai_agents_model`` with every
socket connection refused.
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
    Model,
    ModelSettings,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    RunResult,
    RunResultStreaming,
    function_tool,
)

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
from agents_testing.adapters.openai_agents import (  # noqa: E402
    openai_agents_model,
    recording_openai_agents_model,
)

API_KEY = "sk-native-sentinel-5d1c0b9e33aa"


@function_tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_agent(model: Model, instructions: str = "Report the weather.") -> Agent:
    return Agent(
        name="Weather",
        instructions=instructions,
        model=model,
        model_settings=ModelSettings(temperature=0.0),
        tools=[get_weather],
    )


async def run(agent: Agent, prompt: str, stream: bool) -> Any:
    config = RunConfig(tracing_disabled=True)
    result: RunResult | RunResultStreaming
    if stream:
        result = Runner.run_streamed(agent, prompt, run_config=config)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, prompt, run_config=config)
    return result.final_output


def real_model(provider: ScriptedModel, max_retries: int = 2) -> OpenAIResponsesModel:
    client = openai.AsyncOpenAI(
        base_url="http://provider.invalid/v1",
        api_key=API_KEY,
        max_retries=max_retries,
        http_client=httpx.AsyncClient(transport=scripted_transport(provider)),
    )
    return OpenAIResponsesModel(model="gpt-4.1", openai_client=client)


def stand_in_provider() -> ScriptedModel:
    return ScriptedModel(
        [
            model_error(ScriptedHTTPError(429, retry_after=0.01)),  # the client retries it
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message(f"It is sunny in Tokyo. (key {API_KEY})")],
        ]
    )


async def record(path: Path, stream: bool) -> Path:
    recorder = ModelRecorder(redact=[r"sk-native-[\w-]+"])
    model = recording_openai_agents_model(real_model(stand_in_provider()), recorder)
    answer = await run(weather_agent(model), "Weather in Tokyo?", stream)
    assert answer == f"It is sunny in Tokyo. (key {API_KEY})"  # the run itself is unchanged
    return recorder.recording.write(path)


def refuse(self: socket.socket, address: Any) -> None:
    raise OSError(f"sockets are blocked during the replay: {address!r}")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_native_run_recorded_once_replays_offline_through_the_adapter(
    stream: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await record(tmp_path / "weather.py", stream)
    script = path.read_text()
    module = load_recording(path)
    # The client retried the 429 inside the real model: the model saw two calls.
    assert len(module.STEPS) == 2
    assert [request["adapter"] for request in module.REQUESTS] == ["openai-agents"] * 2
    assert module.REQUESTS[0]["body"]["instructions"] == "Report the weather."
    assert module.REQUESTS[0]["body"].get("stream") is (True if stream else None)
    assert "# call #1: openai-agents model" in script
    assert API_KEY not in script
    assert "redact[0]: 1 match" in script

    replay = Replay.load(path, redact=[r"sk-native-[\w-]+"])
    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)
        answer = await run(
            weather_agent(openai_agents_model(replay.model)), "Weather in Tokyo?", stream
        )

    assert answer == "It is sunny in Tokyo. (key [REDACTED])"
    replay.assert_complete()
    assert replay.model.calls[1].request.tool_outputs == {"call_1": "Tokyo: sunny"}


async def test_two_native_recordings_write_the_same_file(tmp_path: Path) -> None:
    first = await record(tmp_path / "first.py", False)
    second = await record(tmp_path / "second.py", False)

    assert first.read_bytes() == second.read_bytes()


async def test_a_changed_instruction_fails_the_native_replay_with_its_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = Replay.load(await record(tmp_path / "weather.py", False))
    agent = weather_agent(openai_agents_model(replay.model), "Report the weather in French.")

    with monkeypatch.context() as blocked:
        blocked.setattr(socket.socket, "connect", refuse)
        with pytest.raises(ScriptedHTTPError) as answered:
            await run(agent, "Weather in Tokyo?", False)

    assert answered.value.status == 400
    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    drift = caught.value
    assert (drift.call_index, drift.path, drift.reason) == (0, "instructions", "changed")
    assert (drift.recorded, drift.sent) == (
        "Report the weather.",
        "Report the weather in French.",
    )
    assert "--agents-testing-record" in str(drift)


async def test_an_http_error_the_model_raises_is_recorded_as_a_model_error(
    tmp_path: Path,
) -> None:
    recorder = ModelRecorder()
    provider = ScriptedModel([model_error(ScriptedHTTPError(429, "slow down", retry_after=2))])
    model = recording_openai_agents_model(real_model(provider, max_retries=0), recorder)

    with pytest.raises(openai.RateLimitError):
        await run(weather_agent(model), "Weather in Tokyo?", False)

    (step,) = load_recording(recorder.recording.write(tmp_path / "failed.py")).STEPS
    error = step["error"]
    assert (error.status, error.message, error.retry_after) == (429, "slow down", 2)


async def test_a_call_that_fails_without_an_http_status_is_a_warning_in_the_file(
    tmp_path: Path,
) -> None:
    class Broken(Model):
        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("the network is down")

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    recorder = ModelRecorder()
    with pytest.raises(ConnectionError):
        await run(weather_agent(recording_openai_agents_model(Broken(), recorder)), "Hi?", False)

    script = recorder.recording.write(tmp_path / "broken.py").read_text()
    assert "Warnings (what this script does not hold):" in script
    assert "call #1 through the openai-agents adapter raised ConnectionError" in script
    assert load_recording(tmp_path / "broken.py").STEPS == []


def test_the_recording_wrapper_refuses_what_is_not_a_model_or_a_recorder() -> None:
    with pytest.raises(TypeError, match=r"expects an agents\.Model, got str"):
        recording_openai_agents_model("gpt-4.1", ModelRecorder())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects a ModelRecorder, got dict"):
        recording_openai_agents_model(real_model(ScriptedModel([])), {})  # type: ignore[arg-type]


async def test_a_stream_left_before_it_completes_is_a_warning_in_the_file(
    tmp_path: Path,
) -> None:
    recorder = ModelRecorder()
    provider = ScriptedModel([[assistant_message("It is sunny in Tokyo.")]])
    model = recording_openai_agents_model(real_model(provider), recorder)
    settings = ModelSettings()
    stream = model.stream_response(
        "Report the weather.",
        "Weather in Tokyo?",
        settings,
        [],
        None,
        [],
        agents.ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )

    first = await anext(aiter(stream))
    await stream.aclose()  # type: ignore[attr-defined]

    assert first.type == "response.created"
    script = recorder.recording.write(tmp_path / "left.py").read_text()
    assert "ended (or was left) before response.completed: not recorded" in script
    assert load_recording(tmp_path / "left.py").STEPS == []
