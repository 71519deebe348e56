"""Headers that change the answer are recorded and compared; Anthropic thinking replays.

As in test_recording_proxy.py, the "real provider" is a ``ScriptedServer`` on loopback behind
the ``RecordingProxy``, and the real ``anthropic`` and ``openai`` clients talk to the proxy.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

from agents_testing import (  # noqa: E402 - after the skips above
    COMPARED_HEADERS,
    ModelResponse,
    Replay,
    ReplayRequestDriftError,
    ScriptedModel,
    Usage,
    assistant_message,
    load_recording,
    model_response,
)
from agents_testing.wire import RecordingProxy, ScriptedServer  # noqa: E402

API_KEY = "sk-ant-sentinel-71c0d9e4b2a8"
BETA = "interleaved-thinking-2025-05-14"
THINKING = {"type": "thinking", "thinking": "December in Tokyo is dry.", "signature": "c2lnLTE="}
REDACTED_THINKING = {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}


def thinking_answer() -> Any:
    return model_response(
        ModelResponse(
            [THINKING, REDACTED_THINKING, assistant_message("Sunny.")],
            Usage(input_tokens=7, output_tokens=11),
        )
    )


def thinking_provider() -> ScriptedModel:
    return ScriptedModel([thinking_answer(), [assistant_message("You are welcome.")]])


def converse(client: Any, stream: bool) -> list[Any]:
    """Two turns: the second sends the first answer's blocks back, thinking included."""
    options: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    history: list[Any] = [{"role": "user", "content": "Weather in Tokyo?"}]
    if stream:
        with client.messages.stream(messages=history, **options) as streamed:
            first = streamed.get_final_message()
    else:
        first = client.messages.create(messages=history, **options)
    blocks = [block.model_dump(exclude_none=True) for block in first.content]
    history += [{"role": "assistant", "content": blocks}, {"role": "user", "content": "Thanks!"}]
    client.messages.create(messages=history, **options)
    return blocks


def record(tmp_path: Path, stream: bool, **client_options: Any) -> Path:
    with ScriptedServer(thinking_provider()) as provider, RecordingProxy(provider.url) as proxy:
        client = anthropic.Anthropic(base_url=proxy.url, api_key=API_KEY, **client_options)
        blocks = converse(client, stream)
    assert [block["type"] for block in blocks] == ["thinking", "redacted_thinking", "text"]
    assert blocks[0] == THINKING
    return proxy.recording.write(tmp_path / "thinking.py")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_thinking_blocks_are_recorded_and_replayed_in_their_order(
    stream: bool, tmp_path: Path
) -> None:
    path = record(tmp_path, stream)
    script = path.read_text()
    first = load_recording(path).STEPS[0]
    if stream:
        # A plain step would stream the thinking after the text: the events keep the order.
        assert first["type"] == "stream"
        assert "call #1: its stream holds Anthropic thinking blocks" in script
    else:
        assert first["response"].output[:2] == [THINKING, REDACTED_THINKING]
        assert "Warnings" not in script

    replay = Replay.load(path)
    with ScriptedServer(replay.model) as server:
        blocks = converse(anthropic.Anthropic(base_url=server.url, api_key="k"), stream)

    assert blocks[:2] == [THINKING, REDACTED_THINKING]
    replay.assert_complete()  # the second request sent the thinking back as recorded


def test_a_plain_thinking_step_streams_its_thinking_and_signature() -> None:
    with ScriptedServer(ScriptedModel([thinking_answer()])) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="k")
        with client.messages.stream(
            model="claude-sonnet-4-5",
            max_tokens=64,
            messages=[{"role": "user", "content": "?"}],
        ) as streamed:
            message = streamed.get_final_message()

    found = {block.type: block.model_dump(exclude_none=True) for block in message.content}
    assert found["thinking"] == THINKING
    assert found["redacted_thinking"] == REDACTED_THINKING
    assert found["text"]["text"] == "Sunny."


def test_the_headers_that_change_the_answer_are_recorded_and_no_credential(
    tmp_path: Path,
) -> None:
    path = record(tmp_path, False, default_headers={"anthropic-beta": BETA})

    request = load_recording(path).REQUESTS[0]
    # The client's own API version, whichever it is.
    version = anthropic.Anthropic(api_key="k").default_headers["anthropic-version"]
    assert request["headers"] == {"anthropic-beta": BETA, "anthropic-version": version}
    assert set(request["headers"]) <= set(COMPARED_HEADERS)
    assert API_KEY not in path.read_text()
    assert "x-api-key" not in str(load_recording(path).REQUESTS)


def replay_with(replay: Replay, headers: dict[str, str]) -> None:
    with ScriptedServer(replay.model) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="k", default_headers=headers)
        with pytest.raises(anthropic.BadRequestError):  # a drift is a 400: no retry
            converse(client, False)


def test_a_replay_without_a_recorded_header_fails_with_its_diff(tmp_path: Path) -> None:
    replay = Replay.load(record(tmp_path, False, default_headers={"anthropic-beta": BETA}))

    # Leaving the server's block checks the script: it fails on the drift.
    with pytest.raises(ReplayRequestDriftError) as caught:
        replay_with(replay, {})

    drift = caught.value
    assert (drift.call_index, drift.path, drift.reason) == (0, "headers.anthropic-beta", "missing")
    assert (drift.recorded, drift.sent) == (BETA, None)
    assert "ignore=('headers.anthropic-beta',)" in str(drift)


def test_a_changed_header_fails_and_an_ignored_one_does_not(tmp_path: Path) -> None:
    path = record(tmp_path, False, default_headers={"anthropic-beta": BETA})
    other = {"anthropic-beta": "output-128k-2025-02-19"}

    strict = Replay.load(path)
    with pytest.raises(ReplayRequestDriftError):
        replay_with(strict, other)
    assert [(d.path, d.reason, d.sent) for d in strict.drifts] == [
        ("headers.anthropic-beta", "changed", "output-128k-2025-02-19")
    ]

    relaxed = Replay.load(path, ignore=["headers.anthropic-beta"])
    with ScriptedServer(relaxed.model) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="k", default_headers=other)
        converse(client, False)
    relaxed.assert_complete()


def test_an_openai_request_without_such_headers_records_none(tmp_path: Path) -> None:
    provider = ScriptedModel([[assistant_message("Hi.")]])
    with ScriptedServer(provider) as upstream, RecordingProxy(upstream.url) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=API_KEY)
        client.responses.create(model="gpt-4.1", input="Hello?")

    (request,) = load_recording(proxy.recording.write(tmp_path / "plain.py")).REQUESTS
    assert "headers" not in request


def test_a_request_recorded_without_headers_compares_its_body_only(tmp_path: Path) -> None:
    # As a recording written before headers were recorded: the Anthropic client's
    # anthropic-version header is sent on replay, and it is no drift.
    path = record(tmp_path, False)
    text = path.read_text("utf-8")
    recorded = load_recording(path).REQUESTS
    assert all(list(request["headers"]) == ["anthropic-version"] for request in recorded)
    path.write_text(re.sub(r'\n *"headers": \{"anthropic-version": "[^"]*"\},', "", text), "utf-8")
    assert all("headers" not in request for request in load_recording(path).REQUESTS)

    replay = Replay.load(path)
    with ScriptedServer(replay.model) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="k")
        converse(client, False)

    assert replay.drifts == ()
