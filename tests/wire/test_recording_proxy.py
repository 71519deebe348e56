"""Record real clients through the proxy, write the script, and replay it strictly.

The "real provider" is a second ``ScriptedServer`` on loopback; the ``RecordingProxy`` sits
in front of it, and the real ``openai`` and ``anthropic`` clients talk to the proxy. Nothing
leaves the machine.
"""

from __future__ import annotations

import json
import logging
import pickle
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

from agents_testing import (  # noqa: E402 - after the skips above
    ModelResponse,
    RecordedExchange,
    Recording,
    Replay,
    ReplayRequestDriftError,
    ScriptedHTTPError,
    ScriptedModel,
    Usage,
    WireRequestError,
    assistant_message,
    function_call,
    load_recording,
    model_error,
    model_response,
    model_stream,
)
from agents_testing.wire import RecordingProxy, ScriptedServer  # noqa: E402

# The sentinel secret: it must appear in no file, record, message or log.
API_KEY = "sk-sentinel-4a7f19c2e8b3d605"
PRIVATE = "ACCT-99887766"  # a user secret the model repeats, redacted by a pattern
PATTERN = r"ACCT-\d{8}"

OPENAI_TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": None,
}
CHAT_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
ANTHROPIC_TOOL = {
    "name": "get_weather",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def weather_steps() -> list[Any]:
    """What the real provider answers: a 429 first, then a tool call, then the answer."""
    return [
        model_error(ScriptedHTTPError(429, retry_after=0.01)),
        model_response(
            ModelResponse(
                [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
                Usage(input_tokens=12, output_tokens=5),
            )
        ),
        model_response(
            ModelResponse(
                [assistant_message(f"Sunny in Tokyo. Your account is {PRIVATE}.")],
                Usage(input_tokens=30, output_tokens=9),
            )
        ),
    ]


# -- the code under test: one hand-written tool loop per wire format ------------------------


def responses_loop(client: Any, prompt: str, stream: bool) -> str:
    conversation: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        options: dict[str, Any] = {
            "model": "gpt-4.1",
            "instructions": "Report the weather.",
            "input": conversation,
            "tools": [OPENAI_TOOL],
        }
        if stream:
            with client.responses.stream(**options) as events:
                response = events.get_final_response()
        else:
            response = client.responses.create(**options)
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return str(response.output_text)
        for call in calls:
            city = json.loads(call.arguments)["city"]
            conversation.append(call.model_dump(exclude_none=True))
            conversation.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": f"{city}: sun"}
            )


def chat_loop(client: Any, prompt: str, stream: bool) -> str:
    messages: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        options: dict[str, Any] = {
            "model": "gpt-4.1-mini",
            "messages": messages,
            "tools": [CHAT_TOOL],
        }
        if stream:
            options["stream_options"] = {"include_usage": True}
            with client.chat.completions.stream(**options) as events:
                message = events.get_final_completion().choices[0].message
        else:
            message = client.chat.completions.create(**options).choices[0].message
        if not message.tool_calls:
            return str(message.content)
        messages.append(message.model_dump(exclude_none=True, exclude={"parsed"}))
        for call in message.tool_calls:
            city = json.loads(call.function.arguments)["city"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": f"{city}: sun"})


def messages_loop(client: Any, prompt: str, stream: bool) -> str:
    messages: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        options: dict[str, Any] = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 256,
            "messages": messages,
            "tools": [ANTHROPIC_TOOL],
        }
        if stream:
            with client.messages.stream(**options) as events:
                message = events.get_final_message()
        else:
            message = client.messages.create(**options)
        uses = [block for block in message.content if block.type == "tool_use"]
        if not uses:
            return "".join(block.text for block in message.content if block.type == "text")
        messages.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": use.id, "content": "sun"} for use in uses
                ],
            }
        )


FORMATS = ["responses", "chat", "messages"]
LOOPS: dict[str, Callable[[Any, str, bool], str]] = {
    "responses": responses_loop,
    "chat": chat_loop,
    "messages": messages_loop,
}


def client_for(wire: str, url: str) -> Any:
    if wire == "messages":
        return anthropic.Anthropic(base_url=url, api_key=API_KEY, max_retries=2)
    return openai.OpenAI(base_url=f"{url}/v1", api_key=API_KEY, max_retries=2)


def record(wire: str, stream: bool, **options: Any) -> tuple[Recording, str, ScriptedModel]:
    """Run the loop through the proxy in front of a scripted "real provider"."""
    real = ScriptedModel(weather_steps())
    with ScriptedServer(real) as provider, RecordingProxy(provider.url, **options) as proxy:
        answer = LOOPS[wire](client_for(wire, proxy.url), "Weather in Tokyo?", stream)
    return proxy.recording, answer, real


@pytest.fixture(params=[False, True], ids=["plain", "streamed"])
def stream(request: pytest.FixtureRequest) -> bool:
    value: bool = request.param
    return value


@pytest.mark.parametrize("wire", FORMATS)
def test_a_tool_loop_with_a_retried_429_is_recorded_as_plain_steps(wire: str, stream: bool) -> None:
    recording, answer, real = record(wire, stream, redact=[PATTERN])

    assert answer == f"Sunny in Tokyo. Your account is {PRIVATE}."  # the client got it unchanged
    real.assert_complete()
    steps = recording.steps
    assert [step["type"] for step in steps] == ["error", "response", "response"]
    error = steps[0]["error"]
    assert isinstance(error, ScriptedHTTPError)
    assert (error.status, error.retry_after) == (429, 0.01)
    call = steps[1]["response"].output[-1]
    assert (call["type"], call["name"], json.loads(call["arguments"])) == (
        "function_call",
        "get_weather",
        {"city": "Tokyo"},
    )
    assert call["call_id"] == "call_1"
    answer_item = steps[2]["response"].output[-1]
    assert answer_item["content"][0]["text"] == "Sunny in Tokyo. Your account is [REDACTED]."
    assert steps[2]["response"].usage.input_tokens == 30
    assert steps[2]["response"].usage.output_tokens == 9
    assert [exchange.streamed for exchange in recording.exchanges] == [False, stream, stream]
    assert [exchange.status for exchange in recording.exchanges] == [429, 200, 200]
    # The retried request is the same request, recorded again.
    assert recording.requests[0] == recording.requests[1]
    assert "redact[0]: 1 match" in recording.source()


@pytest.mark.parametrize("wire", FORMATS)
def test_the_written_script_replays_the_run_strictly(
    wire: str, stream: bool, tmp_path: Path
) -> None:
    recording, _, _ = record(wire, stream, redact=[PATTERN])
    path = recording.write(tmp_path / "recorded.py")

    replay = Replay.load(path, redact=[PATTERN])
    with ScriptedServer(replay.model) as server:
        answer = LOOPS[wire](client_for(wire, server.url), "Weather in Tokyo?", stream)

    assert answer == "Sunny in Tokyo. Your account is [REDACTED]."
    assert [exchange.status for exchange in server.requests] == [429, 200, 200]
    assert replay.drifts == ()
    replay.assert_complete()
    server.assert_complete()


@pytest.mark.parametrize("wire", FORMATS)
def test_recording_the_same_run_twice_writes_the_same_file(
    wire: str, stream: bool, tmp_path: Path
) -> None:
    first = record(wire, stream, redact=[PATTERN])[0].write(tmp_path / "first.py")
    second = record(wire, stream, redact=[PATTERN])[0].write(tmp_path / "second.py")

    assert first.read_bytes() == second.read_bytes()
    module = load_recording(first)
    assert len(module.STEPS) == len(module.REQUESTS) == 3
    assert_formatted(first)


def assert_formatted(path: Path) -> None:
    """The script is laid out as Ruff (and Black) would: formatting it changes nothing."""
    for width in ("88", "100"):
        checked = subprocess.run(
            [
                sys.executable,
                "-m",
                "ruff",
                "format",
                "--check",
                "--diff",
                "--line-length",
                width,
                "--isolated",
                str(path),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("wire", FORMATS)
def test_a_replay_that_sends_something_else_fails_with_the_request_diff(
    wire: str, tmp_path: Path
) -> None:
    path = record(wire, False)[0].write(tmp_path / "recorded.py")
    replay = Replay.load(path)

    server = ScriptedServer(replay.model).start()
    try:
        client = client_for(wire, server.url)
        with pytest.raises((openai.BadRequestError, anthropic.BadRequestError)):
            LOOPS[wire](client, "Weather in Paris?", False)
    finally:
        server.close()

    assert [exchange.status for exchange in server.requests] == [400]  # no retry of a drift
    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    # The model keeps the drift too: checking the server fails on it, not on unused steps.
    with pytest.raises(ReplayRequestDriftError):
        server.assert_complete()
    drift = caught.value
    field = {"responses": "input[0].content", "chat": "messages[0].content"}.get(
        wire, "messages[0].content"
    )
    assert (drift.call_index, drift.path, drift.reason) == (0, field, "changed")
    assert (drift.recorded, drift.sent) == ("Weather in Tokyo?", "Weather in Paris?")
    assert f"ignore=({field!r},)" in str(drift)
    assert "--agents-testing-record" in str(drift)
    copy = pickle.loads(pickle.dumps(drift))
    assert (copy.call_index, copy.path, copy.recorded, copy.sent) == (
        0,
        field,
        "Weather in Tokyo?",
        "Weather in Paris?",
    )


def test_an_ignored_field_lets_the_replay_through(tmp_path: Path) -> None:
    path = record("chat", False)[0].write(tmp_path / "recorded.py")
    replay = Replay.load(path, ignore=["messages[*].content"])

    with ScriptedServer(replay.model) as server:
        answer = chat_loop(client_for("chat", server.url), "Weather in Paris?", False)

    assert answer.startswith("Sunny in Tokyo.")
    replay.assert_complete()


FIRST_AND_LAST_EVENT = {
    "responses": ("response.created", "response.completed"),
    "chat": ("model", "model"),  # chunks have no type: each goes out as a provider event
    "messages": ("message_start", "message_stop"),
}


@pytest.mark.parametrize("wire", FORMATS)
def test_a_stream_kept_as_exact_events_replays_the_same_events(wire: str, tmp_path: Path) -> None:
    recording, _, _ = record(wire, True, keep_events=True, redact=[PATTERN])

    assert [step["type"] for step in recording.steps] == ["error", "stream", "stream"]
    events = recording.steps[2]["events"]
    assert (events[0]["type"], events[-1]["type"]) == FIRST_AND_LAST_EVENT[wire]
    assert PRIVATE not in json.dumps(events)
    path = recording.write(tmp_path / "recorded.py")
    assert_formatted(path)
    replay = Replay.load(path, redact=[PATTERN])
    with ScriptedServer(replay.model) as server:
        answer = LOOPS[wire](client_for(wire, server.url), "Weather in Tokyo?", True)
    assert answer == "Sunny in Tokyo. Your account is [REDACTED]."
    replay.assert_complete()


def split_secret_stream() -> list[Any]:
    """A streamed answer whose secret arrives in three SSE chunks."""
    return [
        {"type": "response_started"},
        {"type": "output_text_delta", "item_id": "msg_1", "delta": "Your key is sk-sent"},
        {"type": "output_text_delta", "item_id": "msg_1", "delta": "inel-4a7f1"},
        {"type": "output_text_delta", "item_id": "msg_1", "delta": "9c2e8b3d605, keep it."},
        {"type": "response_done", "response": {"id": "resp_1", "output": []}},
    ]


@pytest.mark.parametrize("keep_events", [False, True], ids=["plain", "exact"])
@pytest.mark.parametrize("wire", FORMATS)
def test_a_secret_split_across_sse_chunks_never_reaches_the_script(
    wire: str, keep_events: bool, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    real = ScriptedModel([model_stream(split_secret_stream())])
    with (
        ScriptedServer(real) as provider,
        RecordingProxy(provider.url, keep_events=keep_events) as proxy,
    ):
        client = client_for(wire, proxy.url)
        text = streamed_text(wire, client)
    recording = proxy.recording
    path = recording.write(tmp_path / "recorded.py")

    assert text == f"Your key is {API_KEY}, keep it."  # the client got the stream unchanged
    for sentinel in (API_KEY, "sk-sent", "9c2e8b3d605"):
        assert sentinel not in path.read_text()
        assert sentinel not in repr(recording.exchanges)
        assert sentinel not in json.dumps(recording.requests)
        assert sentinel not in caplog.text
    assert "the authorization header" in path.read_text() or "x-api-key" in path.read_text()
    assert "a credential from those headers: " in path.read_text()
    if not keep_events:
        assert "a credential from those headers: 1 occurrence" in path.read_text()
        output = recording.steps[0]["response"].output
        assert output[0]["content"][0]["text"] == "Your key is [REDACTED], keep it."


def streamed_text(wire: str, client: Any) -> str:
    if wire == "responses":
        with client.responses.stream(model="gpt-4.1", input="key?") as events:
            return "".join(e.delta for e in events if e.type == "response.output_text.delta")
    if wire == "chat":
        chunks = client.chat.completions.create(
            model="gpt-4.1-mini", messages=[{"role": "user", "content": "key?"}], stream=True
        )
        return "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    with client.messages.stream(
        model="claude-sonnet-4-5", max_tokens=64, messages=[{"role": "user", "content": "key?"}]
    ) as events:
        return str(events.get_final_text())


def test_no_sentinel_in_a_drift_message_or_an_error_record(tmp_path: Path) -> None:
    recording, _, _ = record("responses", False)
    path = recording.write(tmp_path / "recorded.py")
    replay = Replay.load(path)

    server = ScriptedServer(replay.model).start()
    try:
        client = client_for("responses", server.url)
        with pytest.raises(openai.BadRequestError) as http_error:
            client.responses.create(model="gpt-4.1", input=f"my key is {API_KEY}")
    finally:
        server.close()
    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()

    # The replay redacts what was sent with the recorded patterns: here none, so the sent
    # value is shown. A secret the user knows goes in redact=, as in the next test.
    assert caught.value.path == "input"
    assert http_error.value.status_code == 400


def test_replay_redacts_what_was_sent_before_showing_it(tmp_path: Path) -> None:
    path = record("responses", False)[0].write(tmp_path / "recorded.py")
    replay = Replay.load(path, redact=[r"sk-sentinel-\w+"])

    server = ScriptedServer(replay.model).start()
    try:
        client = client_for("responses", server.url)
        with pytest.raises(openai.BadRequestError) as http_error:
            client.responses.create(model="gpt-4.1", input=f"my key is {API_KEY}")
    finally:
        server.close()
    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()

    assert caught.value.sent == "my key is [REDACTED]"
    assert API_KEY not in str(caught.value)
    assert API_KEY not in str(http_error.value)


def test_a_request_that_is_not_a_model_call_is_forwarded_and_not_recorded() -> None:
    real = ScriptedModel([[assistant_message("hi")]])
    provider = ScriptedServer(real).start()
    try:
        with RecordingProxy(provider.url) as proxy:
            client = client_for("responses", proxy.url)
            with pytest.raises(openai.NotFoundError):
                client.models.list()
            client.responses.create(model="gpt-4.1", input="hi")
    finally:
        provider.close()

    # The provider saw the listing as a path it does not serve.
    with pytest.raises(WireRequestError) as refused:
        provider.assert_complete()
    assert (refused.value.reason, refused.value.path) == ("unknown_path", "/v1/models")

    assert [exchange.path for exchange in proxy.recording.exchanges] == ["/v1/responses"]
    assert [exchange.index for exchange in proxy.recording.exchanges] == [0]


def _bound_port(sock: socket.socket) -> int:
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    return port


def test_an_unreachable_upstream_is_a_bad_gateway_and_records_nothing() -> None:
    # A port held bound but never listening refuses connections, and no server started
    # meanwhile (the proxy's own included) can be given it, as a just-closed port could be.
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held,
        RecordingProxy(f"http://127.0.0.1:{_bound_port(held)}") as proxy,
    ):
        client = client_for("responses", proxy.url)
        with pytest.raises(openai.APIStatusError) as caught:
            client.responses.create(model="gpt-4.1", input="hi")

    assert caught.value.status_code == 502
    assert "could not reach the upstream" in str(caught.value)
    assert API_KEY not in str(caught.value)
    assert proxy.recording.exchanges == ()


def test_a_request_with_broken_framing_is_refused_and_not_forwarded() -> None:
    real = ScriptedModel()
    with ScriptedServer(real) as provider, RecordingProxy(provider.url) as proxy:
        host, port = proxy.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as raw:
            raw.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n{}")
            raw.settimeout(10)
            answer = b"".join(iter(lambda: raw.recv(65536), b"")).decode()

    assert answer.startswith("HTTP/1.1 400")
    assert "body framing is malformed" in answer
    assert provider.requests == ()  # nothing reached the provider
    assert proxy.recording.exchanges == ()


@pytest.mark.parametrize(
    ("upstream", "error", "words"),
    [
        ("https://api.openai.com/v1", ValueError, "without /v1"),
        ("ftp://example.com", ValueError, "http or https URL"),
        ("not a url", ValueError, "http or https URL"),
        (42, TypeError, "URL string"),
    ],
)
def test_a_bad_upstream_is_refused_with_the_fix(
    upstream: Any, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        RecordingProxy(upstream)


def test_bad_proxy_options_are_refused() -> None:
    with pytest.raises(TypeError, match="keep_events"):
        RecordingProxy("http://127.0.0.1:1", keep_events="yes")  # type: ignore[arg-type]  # on purpose
    with pytest.raises(ValueError, match="timeout"):
        RecordingProxy("http://127.0.0.1:1", timeout=0)
    with pytest.raises(TypeError, match=r"redact\[0\]"):
        RecordingProxy("http://127.0.0.1:1", redact=[3])  # type: ignore[list-item]  # on purpose
    with pytest.raises(ValueError, match=r"redact\[0\] is not a valid pattern"):
        RecordingProxy("http://127.0.0.1:1", redact=["("])
    with pytest.raises(TypeError, match="redact must be an iterable"):
        RecordingProxy("http://127.0.0.1:1", redact="sk-.*")


def test_the_proxy_url_needs_a_running_proxy_and_closes_cleanly() -> None:
    proxy = RecordingProxy("http://127.0.0.1:1")
    with pytest.raises(RuntimeError, match="with block"):
        _ = proxy.url
    with proxy:
        assert proxy.base_url == f"{proxy.url}/v1"
        with pytest.raises(RuntimeError, match="already running"):
            proxy.start()
    proxy.close()  # closing twice is harmless
    assert "stopped" in repr(proxy)


@pytest.mark.asyncio
async def test_the_async_clients_record_through_async_with() -> None:
    real = ScriptedModel([[assistant_message("async hello")]])
    async with ScriptedServer(real) as provider, RecordingProxy(provider.url) as proxy:
        client = openai.AsyncOpenAI(base_url=proxy.base_url, api_key=API_KEY)
        response = await client.responses.create(model="gpt-4.1", input="hi")
        await client.close()

    assert response.output_text == "async hello"
    assert proxy.recording.steps[0]["response"].output[0]["content"][0]["text"] == "async hello"


@pytest.fixture
def no_threads_left() -> Iterator[None]:
    import threading

    before = set(threading.enumerate())
    yield
    assert set(threading.enumerate()) <= before


def test_closing_the_proxy_leaves_no_thread(no_threads_left: None) -> None:
    real = ScriptedModel([[assistant_message("hi")]])
    with ScriptedServer(real) as provider, RecordingProxy(provider.url) as proxy:
        client_for("responses", proxy.url).responses.create(model="gpt-4.1", input="hi")


def test_empty_lists_and_text_arguments_are_laid_out_as_ruff_formats_them(
    tmp_path: Path,
) -> None:
    steps = [
        model_response([]),
        model_stream([]),
        model_response(ModelResponse([], Usage())),
        model_response([function_call("get_weather", '"Paris"', call_id="call_1")]),
    ]
    recording = Recording(
        [
            RecordedExchange(
                index, "POST", "/v1/responses", "openai.responses", {}, 200, False, step
            )
            for index, step in enumerate(steps)
        ]
    )

    path = recording.write(tmp_path / "edges.py")

    read_back = load_recording(path).STEPS
    assert_formatted(path)
    assert read_back == recording.steps
