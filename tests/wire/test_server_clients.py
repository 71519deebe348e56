"""The server's issue 22 behaviors as the real ``openai`` and ``anthropic`` clients see them."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

from agents_testing import (  # noqa: E402 - after the skips above
    ScriptedModel,
    UnconsumedModelStepsError,
    WireRequestError,
    assistant_message,
    model_stream,
)
from agents_testing.wire import ScriptedServer  # noqa: E402

from .test_server import HANG_GUARD, GatedSource, finishes  # noqa: E402

KEY = "sk-test"


def test_leaving_the_block_after_an_openai_run_reports_the_unused_step() -> None:
    model = ScriptedModel([[assistant_message("first")], [assistant_message("never asked")]])

    def run() -> str:
        with ScriptedServer(model) as server:
            client = openai.OpenAI(base_url=server.base_url, api_key=KEY)
            return str(client.responses.create(model="m", input="hi").output_text)

    with pytest.raises(UnconsumedModelStepsError) as caught:
        run()
    assert caught.value.remaining_steps == 1


async def test_leaving_async_with_after_an_anthropic_run_reports_the_unused_step() -> None:
    model = ScriptedModel([[assistant_message("first")], [assistant_message("never asked")]])

    async def run() -> None:
        async with ScriptedServer(model) as server:
            client = anthropic.AsyncAnthropic(base_url=server.url, api_key=KEY)
            await client.messages.create(
                model="m", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
            )

    with pytest.raises(UnconsumedModelStepsError):
        await run()
    assert len(model.calls) == 1


def test_a_body_over_the_cap_is_a_413_the_openai_client_does_not_retry() -> None:
    model = ScriptedModel([[assistant_message("unused")]])
    server = ScriptedServer(model, max_body_bytes=512).start()
    try:
        client = openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=2)
        with pytest.raises(openai.APIStatusError) as caught:
            client.responses.create(model="m", input="x" * 1000)
    finally:
        server.close()

    assert caught.value.status_code == 413
    assert "max_body_bytes" in caught.value.message
    assert model.calls == ()
    with pytest.raises(WireRequestError) as refused:
        server.assert_complete()
    assert (refused.value.reason, refused.value.path) == ("request_too_large", "/v1/responses")
    assert refused.value.request_index == 0  # one attempt: the client did not retry


def test_an_anthropic_client_abandoning_a_stream_prints_nothing_and_closes_the_source(
    capfd: pytest.CaptureFixture[str],
) -> None:
    source = GatedSource()
    model = ScriptedModel([model_stream(source.events()), [assistant_message("next")]])
    errors: list[str] = []
    hooks = threading.excepthook, sys.unraisablehook
    threading.excepthook = lambda args: errors.append(repr(args.exc_value))
    sys.unraisablehook = lambda args: errors.append(repr(args.exc_value))
    try:
        with ScriptedServer(model) as server:
            client = anthropic.Anthropic(base_url=server.url, api_key=KEY, max_retries=0)
            messages: Any = [{"role": "user", "content": "hi"}]
            with client.messages.stream(model="m", max_tokens=16, messages=messages) as stream:
                for text in stream.text_stream:
                    assert text == "before"
                    break  # leave mid-answer: the client closes its connection
            source.gate.set()
            assert source.closed.wait(HANG_GUARD)
            reply = client.messages.create(model="m", max_tokens=16, messages=messages)
    finally:
        threading.excepthook, sys.unraisablehook = hooks

    assert reply.content[0].text == "next"
    assert (capfd.readouterr().err, errors) == ("", [])


def test_closing_the_server_ends_an_openai_stream_waiting_on_its_gate() -> None:
    source = GatedSource()
    model = ScriptedModel([model_stream(source.events())])
    server = ScriptedServer(model).start()
    client = openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0)
    deltas: list[str] = []
    failures: list[BaseException] = []

    def read() -> None:
        try:
            for event in client.responses.create(model="m", input="hi", stream=True):
                if event.type == "response.output_text.delta":
                    deltas.append(event.delta)
        except Exception as error:  # the stream is cut off by close(): the client says so
            failures.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    for _ in range(int(HANG_GUARD * 100)):  # a hang guard: the first delta comes at once
        if deltas or not reader.is_alive():
            break
        threading.Event().wait(0.01)
    # The test forgot to set the gate: closing still ends the stream and the client's read.
    assert finishes(server.close)
    reader.join(HANG_GUARD)
    assert not reader.is_alive()
    assert deltas == ["before"]
    assert source.closed.is_set()
    assert len(failures) == 1  # the cut-off stream reached the client as an error
