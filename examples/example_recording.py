"""Record a real run once, review the script, replay it strictly.

``recorded_weather.py`` next to this file is a script the ``recorded_endpoint`` fixture
wrote: every run here replays it, and ``pytest --agents-testing-record`` records it again
from the provider. It was recorded from a stand-in provider, so its ids are the stand-in's.
"""

from __future__ import annotations

import pytest

pytest.importorskip("openai")

import json
from pathlib import Path
from typing import Any

import openai
from openai.types.responses import FunctionToolParam, ResponseFunctionToolCall

from agents_testing import (
    Replay,
    ReplayRequestDriftError,
    ScriptedModel,
    assistant_message,
    function_call,
)
from agents_testing.pytest_plugin import RecordedEndpointFactory
from agents_testing.wire import RecordingProxy, ScriptedServer

WEATHER_TOOL: FunctionToolParam = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": None,
}


def weather_agent(client: openai.OpenAI, prompt: str) -> str:  # the code under test
    conversation: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        response = client.responses.create(
            model="gpt-4.1",
            instructions="Report the weather.",
            input=conversation,
            tools=[WEATHER_TOOL],
        )
        calls = [item for item in response.output if isinstance(item, ResponseFunctionToolCall)]
        if not calls:
            return response.output_text
        for call in calls:
            city = json.loads(call.arguments)["city"]
            conversation.append(call.model_dump(exclude_none=True))
            output = f"{city}: sunny"
            conversation.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": output}
            )


def test_weather_agent_replays_its_recording(recorded_endpoint: RecordedEndpointFactory) -> None:
    endpoint = recorded_endpoint("recorded_weather.py", upstream="https://api.openai.com")
    client = openai.OpenAI(base_url=endpoint.base_url, api_key="sk-...")  # your key to record

    answer = weather_agent(client, "Weather in Tokyo?")

    # When the test returns, a replay is checked (no request drifted, every step used) and
    # a recording is written.
    assert answer == "It is sunny in Tokyo."


def stand_in_provider() -> ScriptedModel:
    """The provider a real run would reach: here a script, so this example runs offline."""
    return ScriptedModel(
        [
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )


def test_record_then_replay_by_hand(tmp_path: Path) -> None:
    with (
        ScriptedServer(stand_in_provider()) as provider,  # in a real run: https://api.openai.com
        RecordingProxy(provider.url, redact=[r"\bsk-\w+"]) as proxy,
    ):
        client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test-key-never-written")
        weather_agent(client, "Weather in Tokyo?")
    script = proxy.recording.write(tmp_path / "weather.py")

    replay = Replay.load(script)
    with ScriptedServer(replay.model) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
        answer = weather_agent(client, "Weather in Tokyo?")

    assert answer == "It is sunny in Tokyo."
    assert "sk-test-key-never-written" not in script.read_text()
    replay.assert_complete()


def test_a_changed_request_fails_with_the_diff(tmp_path: Path) -> None:
    with (
        ScriptedServer(stand_in_provider()) as provider,
        RecordingProxy(provider.url) as proxy,
    ):
        weather_agent(openai.OpenAI(base_url=proxy.base_url, api_key="k"), "Weather in Tokyo?")
    replay = Replay.load(proxy.recording.write(tmp_path / "weather.py"))

    def ask_about_paris() -> None:
        with ScriptedServer(replay.model) as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
            with pytest.raises(openai.BadRequestError):  # a drift is a 400: no retry
                weather_agent(client, "Weather in Paris?")

    # Leaving the server's block checks the script: it fails on the first drift.
    with pytest.raises(ReplayRequestDriftError) as drift:
        ask_about_paris()

    assert drift.value.path == "input[0].content"
    assert (drift.value.recorded, drift.value.sent) == ("Weather in Tokyo?", "Weather in Paris?")


def test_a_relaxed_field_is_not_compared(tmp_path: Path) -> None:
    with (
        ScriptedServer(stand_in_provider()) as provider,
        RecordingProxy(provider.url) as proxy,
    ):
        weather_agent(openai.OpenAI(base_url=proxy.base_url, api_key="k"), "Weather in Tokyo?")
    script = proxy.recording.write(tmp_path / "weather.py")

    replay = Replay.load(script, ignore=["input[0].content"])  # or "input[*].content"
    with ScriptedServer(replay.model) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
        answer = weather_agent(client, "Weather in Paris?")

    assert answer == "It is sunny in Tokyo."  # the recorded answer
    replay.assert_complete()
