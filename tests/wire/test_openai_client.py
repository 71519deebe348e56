"""The real ``openai`` client against the wire endpoint, in-process and over loopback."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
from typing import Any

import pytest

openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

from agents_testing import (  # noqa: E402 - after the skips above
    ScriptedHTTPError,
    ScriptedModel,
    UnexpectedModelCallError,
    assistant_message,
    function_call,
    model_error,
    model_responder,
    model_stream,
)
from agents_testing.adapters.httpx import scripted_transport  # noqa: E402

from ._clients import (  # noqa: E402
    Provider,
    error_then_answer,
    statuses,
)
from ._streams import stream_failing_after, text_delta  # noqa: E402

API_KEY = "sk-test-key-never-recorded-31337"
OPENAI = Provider(openai.OpenAI, openai.AsyncOpenAI, httpx, "/v1", API_KEY)
sync_client = OPENAI.connect
async_client = OPENAI.connect_async
WEATHER_TOOL_RESPONSES = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
WEATHER_TOOL_CHAT = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def weather_script() -> list[Any]:
    return [
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message("It is sunny in Tokyo.")],
    ]


def run_weather_tool(city: str) -> str:
    return f"{city}: sunny"


# -- Responses API -------------------------------------------------------------------------


def responses_tool_loop(client: Any, prompt: str, *, stream: bool = False) -> str:
    """The code under test: a hand-written Responses tool loop."""
    conversation: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        if stream:
            with client.responses.stream(
                model="gpt-test",
                input=conversation,
                tools=[WEATHER_TOOL_RESPONSES],
                instructions="Report the weather.",
            ) as events:
                for _ in events:
                    pass
                response = events.get_final_response()
        else:
            response = client.responses.create(
                model="gpt-test",
                input=conversation,
                tools=[WEATHER_TOOL_RESPONSES],
                instructions="Report the weather.",
            )
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return str(response.output_text)
        for call in calls:
            conversation.append(call.model_dump(exclude_none=True))
            result = run_weather_tool(**json.loads(call.arguments))
            conversation.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": result}
            )


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_responses_tool_workflow(mode: str, stream: bool) -> None:
    model = ScriptedModel(weather_script())

    with sync_client(model, mode) as (client, _):
        answer = responses_tool_loop(client, "Weather in Tokyo?", stream=stream)

    assert answer == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.streamed is second.streamed is stream
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools == [WEATHER_TOOL_RESPONSES]
    assert first.request.input == [
        {"type": "message", "role": "user", "content": "Weather in Tokyo?"}
    ]
    assert second.request.input[-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "Tokyo: sunny",
    }
    assert second.request.model_settings["model"] == "gpt-test"
    model.assert_complete()


def test_responses_stream_sends_the_real_event_types(mode: str) -> None:
    model = ScriptedModel([[assistant_message("Hello there")]])

    with sync_client(model, mode) as (client, _):
        events = list(client.responses.create(model="gpt-test", input="hi", stream=True))

    assert [type(event).__name__ for event in events] == [
        "ResponseCreatedEvent",
        "ResponseInProgressEvent",
        "ResponseOutputItemAddedEvent",
        "ResponseContentPartAddedEvent",
        "ResponseTextDeltaEvent",
        "ResponseTextDoneEvent",
        "ResponseContentPartDoneEvent",
        "ResponseOutputItemDoneEvent",
        "ResponseCompletedEvent",
    ]
    assert events[-1].response.output_text == "Hello there"
    assert events[-1].response.id == "resp_scripted_1"


# -- Chat Completions ----------------------------------------------------------------------


def chat_tool_loop(client: Any, prompt: str, *, stream: bool = False) -> str:
    """The code under test: a hand-written Chat Completions tool loop."""
    messages: list[Any] = [
        {"role": "system", "content": "Report the weather."},
        {"role": "user", "content": prompt},
    ]
    while True:
        if stream:
            with client.chat.completions.stream(
                model="gpt-test", messages=messages, tools=[WEATHER_TOOL_CHAT]
            ) as events:
                for _ in events:
                    pass
                message = events.get_final_completion().choices[0].message
        else:
            message = (
                client.chat.completions.create(
                    model="gpt-test", messages=messages, tools=[WEATHER_TOOL_CHAT]
                )
                .choices[0]
                .message
            )
        if not message.tool_calls:
            return str(message.content)
        messages.append(
            message.model_dump(exclude_none=True, include={"role", "content", "tool_calls"})
        )
        for call in message.tool_calls:
            result = run_weather_tool(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_chat_completions_tool_workflow(mode: str, stream: bool) -> None:
    model = ScriptedModel(weather_script())

    with sync_client(model, mode) as (client, _):
        answer = chat_tool_loop(client, "Weather in Tokyo?", stream=stream)

    assert answer == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.streamed is second.streamed is stream
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools == [WEATHER_TOOL_CHAT]
    assert second.request.input[1:] == [
        function_call("get_weather", '{"city":"Tokyo"}', call_id="call_1"),
        {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"},
    ]
    model.assert_complete()


async def test_async_chat_completions_plain_and_streamed(mode: str) -> None:
    model = ScriptedModel(
        [
            [assistant_message("plain")],
            [function_call("get_weather", {"city": "Oslo"}, call_id="call_9")],
        ]
    )

    async with async_client(model, mode) as (client, _):
        plain = await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "one"}]
        )
        chunks = [
            chunk
            async for chunk in await client.chat.completions.create(
                model="gpt-test",
                messages=[{"role": "user", "content": "two"}],
                tools=[WEATHER_TOOL_CHAT],
                stream=True,
                stream_options={"include_usage": True},
            )
        ]

    assert plain.choices[0].message.content == "plain"
    deltas = [
        c.choices[0].delta.tool_calls[0]
        for c in chunks
        if c.choices and c.choices[0].delta.tool_calls
    ]
    assert deltas[0].id == "call_9"
    assert deltas[0].function.name == "get_weather"
    assert "".join(d.function.arguments or "" for d in deltas) == '{"city":"Oslo"}'
    assert chunks[-1].usage is not None
    assert model.calls[1].request.model_settings["stream_options"] == {"include_usage": True}
    model.assert_complete()


# -- errors and retries --------------------------------------------------------------------


def test_client_retries_a_scripted_429(mode: str) -> None:
    model = error_then_answer(
        ScriptedHTTPError(429, "Rate limited", retry_after=0.001), "after the retry"
    )

    with sync_client(model, mode) as (client, endpoint):
        response = client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}]
        )

    assert response.choices[0].message.content == "after the retry"
    assert statuses(endpoint) == [429, 200]
    retry_counts = [
        call.request.extra["headers"]["x-stainless-retry-count"] for call in model.calls
    ]
    assert retry_counts == ["0", "1"]
    model.assert_complete()


async def test_async_client_retries_a_scripted_500_on_a_stream(mode: str) -> None:
    model = error_then_answer(ScriptedHTTPError(500, retry_after=0.001), "recovered")

    async with async_client(model, mode) as (client, endpoint):
        events = [
            event
            async for event in await client.responses.create(
                model="gpt-test", input="hi", stream=True
            )
        ]

    assert events[-1].response.output_text == "recovered"
    assert statuses(endpoint) == [500, 200]
    model.assert_complete()


def broken_stream() -> ScriptedModel:
    """Script one stream that sends some text, then fails as a rate-limited live stream does."""
    return stream_failing_after(
        [text_delta("It is")], ScriptedHTTPError(429, "Slow down", code="rate_limit_exceeded")
    )


MID_STREAM_ERROR = {
    "message": "Slow down",
    "type": "rate_limit_exceeded",
    "param": None,
    "code": "rate_limit_exceeded",
}


def test_responses_error_mid_stream_is_a_failed_response_event(mode: str) -> None:
    model = broken_stream()

    with sync_client(model, mode) as (client, endpoint):
        # The live API ends a response that fails midway with response.failed, which the
        # client yields rather than raises: code that ignores it treats the cut-off text as
        # the answer, and a scripted failure lets a test catch that.
        events = list(client.responses.create(model="gpt-test", input="hi", stream=True))

    assert [event.delta for event in events if event.type == "response.output_text.delta"] == [
        "It is"
    ]
    failed = events[-1]
    assert isinstance(failed, openai.types.responses.ResponseFailedEvent)
    assert failed.response.status == "failed"
    assert failed.response.id == events[0].response.id
    assert failed.response.error is not None
    assert (failed.response.error.code, failed.response.error.message) == (
        "rate_limit_exceeded",
        "Slow down",
    )
    [partial] = failed.response.output
    assert (partial.type, partial.status, partial.content[0].text) == (
        "message",
        "in_progress",
        "It is",
    )
    assert statuses(endpoint) == [200]
    model.assert_complete()


async def test_responses_stream_helper_sees_the_failure_and_has_no_final_response(
    mode: str,
) -> None:
    model = broken_stream()
    types: list[str] = []

    async def read_events(client: Any) -> Any:
        async with client.responses.stream(model="gpt-test", input="hi") as stream:
            async for event in stream:
                types.append(event.type)
            return await stream.get_final_response()

    async with async_client(model, mode) as (client, _endpoint):
        with pytest.raises(RuntimeError, match=r"response\.completed"):
            await read_events(client)

    assert types[-2:] == ["response.output_text.delta", "response.failed"]
    model.assert_complete()


def test_error_event_scripted_verbatim_is_raised_by_the_client(mode: str) -> None:
    def events() -> Any:
        yield {"type": "output_text_delta", "item_id": None, "delta": "It is"}
        yield {
            "type": "error",
            "code": "rate_limit_exceeded",
            "message": "Slow down",
            "param": None,
            "error": MID_STREAM_ERROR,
        }

    model = ScriptedModel([model_stream(events())])
    received: list[Any] = []

    with sync_client(model, mode) as (client, _):
        stream = client.responses.create(model="gpt-test", input="hi", stream=True)
        with pytest.raises(openai.APIError) as caught:
            received.extend(stream)

    # The HTTP answer was already 200: the client raises a plain APIError, not a status error.
    assert not isinstance(caught.value, openai.APIStatusError)
    assert caught.value.message == "Slow down"
    assert caught.value.body == MID_STREAM_ERROR
    assert [event.type for event in received][-1] == "response.output_text.delta"
    model.assert_complete()


def test_chat_completions_error_mid_stream_raises_api_error(mode: str) -> None:
    model = broken_stream()
    received: list[Any] = []

    with sync_client(model, mode) as (client, endpoint):
        stream = client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        with pytest.raises(openai.APIError) as caught:
            received.extend(stream)

    assert not isinstance(caught.value, openai.APIStatusError)
    assert caught.value.body == MID_STREAM_ERROR
    assert [chunk.choices[0].delta.content for chunk in received if chunk.choices] == [
        "",
        "It is",
    ]
    assert statuses(endpoint) == [200]
    model.assert_complete()


def test_error_the_client_does_not_retry_surfaces_with_its_status(mode: str) -> None:
    model = ScriptedModel([model_error(ScriptedHTTPError(401, "Bad key"))])

    with (
        sync_client(model, mode) as (client, endpoint),
        pytest.raises(openai.AuthenticationError) as caught,
    ):
        client.responses.create(model="gpt-test", input="hi")

    assert caught.value.status_code == 401
    assert caught.value.body["message"] == "Bad key"
    assert len(endpoint.requests) == 1


def test_exhausted_script_fails_the_client_once_and_assert_complete(mode: str) -> None:
    model = ScriptedModel([])

    with (
        sync_client(model, mode) as (client, endpoint),
        pytest.raises(openai.BadRequestError, match="no scripted steps remain"),
    ):
        client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "x"}]
        )

    assert len(endpoint.requests) == 1  # x-should-retry: false stopped the retries
    with pytest.raises(UnexpectedModelCallError):
        endpoint.assert_complete()


def test_api_key_is_never_recorded(mode: str) -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    with sync_client(model, mode) as (client, endpoint):
        client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "x"}]
        )
        with pytest.raises(openai.BadRequestError) as caught:  # the script ran out
            client.chat.completions.create(
                model="gpt-test", messages=[{"role": "user", "content": "y"}]
            )

    texts = [repr(model.calls), repr(endpoint.requests), str(caught.value), repr(caught.value.body)]
    with pytest.raises(UnexpectedModelCallError) as violation:
        endpoint.assert_complete()
    texts.append(str(violation.value))
    assert "authorization" not in model.calls[0].request.extra["headers"]
    assert all(API_KEY not in text for text in texts)


def test_in_process_transport_opens_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    opened: list[socket.AddressFamily] = []
    real_init = socket.socket.__init__

    def counting_init(self: socket.socket, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        opened.append(self.family)

    monkeypatch.setattr(socket.socket, "__init__", counting_init)
    model = ScriptedModel([[assistant_message("plain")], [assistant_message("streamed")]])

    with sync_client(model, "transport") as (client, _):
        client.responses.create(model="gpt-test", input="one")
        list(
            client.chat.completions.create(
                model="gpt-test", messages=[{"role": "user", "content": "two"}], stream=True
            )
        )

    # The sync path runs the scripted step on a private event loop, whose self-pipe is an
    # AF_UNIX socket pair; no network socket is ever created.
    assert [family for family in opened if family != socket.AF_UNIX] == []
    model.assert_complete()


# -- exact streams go out as their events come ---------------------------------------------


def gated_stream(gate: threading.Event) -> ScriptedModel:
    """Script a stream whose second delta waits until the client has read the first."""

    async def events() -> Any:
        yield {"type": "output_text_delta", "item_id": None, "delta": "before"}
        # A hang guard, not a timing bound: the client sets the gate at once.
        seen = await asyncio.to_thread(gate.wait, 30)
        yield {"type": "output_text_delta", "item_id": None, "delta": "after" if seen else "?"}

    return ScriptedModel([model_stream(events())])


def test_exact_stream_reaches_a_sync_client_before_it_ends(mode: str) -> None:
    gate = threading.Event()
    model = gated_stream(gate)
    deltas: list[str] = []

    with sync_client(model, mode) as (client, endpoint):
        for event in client.responses.create(model="gpt-test", input="hi", stream=True):
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
                gate.set()

    assert deltas == ["before", "after"]
    assert statuses(endpoint) == [200]
    model.assert_complete()


async def test_exact_stream_reaches_an_async_client_before_it_ends(mode: str) -> None:
    gate = threading.Event()
    model = gated_stream(gate)
    deltas: list[str] = []

    async with async_client(model, mode) as (client, endpoint):
        async for event in await client.responses.create(model="gpt-test", input="hi", stream=True):
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
                gate.set()

    assert deltas == ["before", "after"]
    assert statuses(endpoint) == [200]
    model.assert_complete()


class ThreeDeltas:
    """A scripted stream source that records what it produced and its close."""

    def __init__(self) -> None:
        self.produced: list[str] = []
        self.closed = False

    async def events(self) -> Any:
        try:
            for text in ("one", "two", "three"):
                self.produced.append(text)
                yield {"type": "output_text_delta", "item_id": None, "delta": text}
        finally:
            self.closed = True


async def test_closing_an_async_stream_early_closes_the_scripted_source() -> None:
    source = ThreeDeltas()
    model = ScriptedModel([model_stream(source.events())])

    async with async_client(model, "transport") as (client, _):
        stream = await client.responses.create(model="gpt-test", input="hi", stream=True)
        async for event in stream:
            if event.type == "response.output_text.delta":
                break
        await stream.close()

    # The rest of the script never ran: the client's close reached the source.
    assert source.produced == ["one"]
    assert source.closed


def test_closing_a_sync_stream_early_closes_the_scripted_source() -> None:
    source = ThreeDeltas()
    model = ScriptedModel([model_stream(source.events())])

    with sync_client(model, "transport") as (client, _):
        stream = client.responses.create(model="gpt-test", input="hi", stream=True)
        for event in stream:
            if event.type == "response.output_text.delta":
                break
        stream.close()
        closed_on_close = source.closed

    assert source.produced == ["one"]
    assert closed_on_close


def loop_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "agents-testing-wire-stream"}


def test_sync_transport_serves_in_the_client_thread_and_closes_its_loop() -> None:
    source = ThreeDeltas()
    model = ScriptedModel([[assistant_message("one")], model_stream(source.events())])
    transport = scripted_transport(model)
    before = set(threading.enumerate())
    request = {"model": "gpt-test", "input": "hi"}

    with httpx.Client(transport=transport) as client:
        client.post("http://scripted.invalid/v1/responses", json=request)
        # A stream the client leaves open, after reading its first chunk.
        response = client.send(
            client.build_request(
                "POST", "http://scripted.invalid/v1/responses", json={**request, "stream": True}
            ),
            stream=True,
        )
        next(response.iter_bytes())
        started = set(threading.enumerate()) - before
        open_before_close = not source.closed

    # No thread served the requests, and closing the client closed the open stream's source.
    assert started == set()
    assert open_before_close
    assert source.closed
    model.assert_complete()


@pytest.mark.parametrize("asynchronous", [False, True])
def test_the_transport_records_headers_lowercased_decoded_and_without_credentials(
    asynchronous: bool,
) -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    transport = scripted_transport(model)
    url = "http://scripted.invalid/v1/responses"
    request = {"model": "gpt-test", "input": "hi"}
    # A value beyond ASCII makes httpx hold the headers as UTF-8.
    sent = [
        (b"Authorization", f"Bearer {API_KEY}".encode()),
        (b"X-City", "Tōkyō".encode()),
        (b"X-Trace", b"t-1"),
    ]

    if asynchronous:

        async def post() -> None:
            async with httpx.AsyncClient(transport=transport) as client:
                await client.post(url, json=request, headers=sent)

        asyncio.run(post())
    else:
        with httpx.Client(transport=transport) as client:
            client.post(url, json=request, headers=sent)

    recorded = model.calls[0].request.extra["headers"]
    assert recorded["x-city"] == "Tōkyō"
    assert recorded["x-trace"] == "t-1"
    assert recorded["content-type"] == "application/json"
    assert "authorization" not in recorded
    assert all(name == name.lower() for name in recorded)
    model.assert_complete()


def test_sync_transport_runs_an_event_loop_only_for_a_responder_that_awaits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents_testing.adapters import httpx as adapter

    ran: list[str] = []
    run = adapter._CallerLoop.run  # pyright: ignore[reportPrivateUsage]

    def counted(self: Any, coroutine: Any) -> Any:
        ran.append(coroutine.__qualname__)
        return run(self, coroutine)

    monkeypatch.setattr(adapter._CallerLoop, "run", counted)  # pyright: ignore[reportPrivateUsage]

    def at_once(call: Any) -> list[Any]:
        return [assistant_message("from a function")]

    async def awaiting(call: Any) -> list[Any]:
        await asyncio.sleep(0.001)  # needs the running loop
        return [assistant_message("from a coroutine")]

    model = ScriptedModel(
        [[assistant_message("scripted")], model_responder(at_once), model_responder(awaiting)]
    )
    with openai.OpenAI(
        base_url="http://scripted.invalid/v1",
        api_key=API_KEY,
        max_retries=0,
        http_client=httpx.Client(transport=scripted_transport(model)),
    ) as client:
        texts = [client.responses.create(model="gpt-test", input="hi").output_text for _ in "abc"]

    assert texts == ["scripted", "from a function", "from a coroutine"]
    # A scripted answer is served in the client's thread as it is; only the awaiting
    # responder's call ran on the event loop.
    assert ran == ["ScriptedEndpoint._respond_later"]
    model.assert_complete()


async def test_sync_client_inside_async_code_is_served_from_a_loop_thread() -> None:
    async def awaiting(call: Any) -> list[Any]:
        await asyncio.sleep(0)  # needs a running loop
        return [assistant_message(f"awaited {call.index}")]

    model = ScriptedModel(
        [[assistant_message("plain")], model_responder(awaiting), model_responder(awaiting)]
    )
    transport = scripted_transport(model)
    before = loop_threads()
    request = {"model": "gpt-test", "input": "hi"}
    url = "http://scripted.invalid/v1/responses"

    # A sync client called from a running loop: the transport cannot run a loop here.
    with httpx.Client(transport=transport) as client:
        plain = client.post(url, json=request)
        started_by_plain = loop_threads() - before
        first = client.post(url, json=request)
        second = client.post(url, json=request)
        started = loop_threads() - before

    assert [r.json()["output"][0]["content"][0]["text"] for r in (plain, first, second)] == [
        "plain",
        "awaited 1",
        "awaited 2",
    ]
    # A scripted answer needs no loop; one thread served both awaiting responders, and
    # closing the client stopped it.
    assert started_by_plain == set()
    assert len(started) == 1
    assert loop_threads() == before
    model.assert_complete()


async def _awaited_answer(call: Any) -> list[Any]:
    await asyncio.sleep(0)  # needs the transport's event loop
    return [assistant_message(f"awaited {call.index}")]


def test_sync_transport_serves_again_after_its_client_closed() -> None:
    # Closing the first client closed the loop the awaiting responder ran on; the second
    # client gets a new one.
    model = ScriptedModel([model_responder(_awaited_answer), model_responder(_awaited_answer)])
    transport = scripted_transport(model)
    texts: list[str] = []

    for _ in range(2):  # Agno, for one, builds a client per run around the same transport
        with openai.OpenAI(
            base_url="http://scripted.invalid/v1",
            api_key=API_KEY,
            http_client=httpx.Client(transport=transport),
        ) as client:
            texts.append(client.responses.create(model="gpt-test", input="hi").output_text)

    assert texts == ["awaited 0", "awaited 1"]
    model.assert_complete()


def test_a_transport_nobody_closed_closes_its_loop_once_collected() -> None:
    model = ScriptedModel([model_responder(_awaited_answer)])
    transport = scripted_transport(model)
    client = httpx.Client(transport=transport)
    client.post("http://scripted.invalid/v1/responses", json={"model": "gpt-test", "input": "hi"})
    loops = [runner._loop for runner in transport._runners]  # pyright: ignore[reportPrivateUsage]

    del client, transport
    gc.collect()

    assert len(loops) == 1
    assert all(loop.is_closed() for loop in loops)  # no "unclosed event loop" warning later


def test_a_sync_stream_requested_outside_async_code_can_be_read_inside_it() -> None:
    model = ScriptedModel([model_stream([text_delta("one"), text_delta("two")])])
    transport = scripted_transport(model)

    with httpx.Client(transport=transport) as client:
        request = client.build_request(
            "POST",
            "http://scripted.invalid/v1/responses",
            json={"model": "gpt-test", "input": "hi", "stream": True},
        )
        response = client.send(request, stream=True)

        async def read() -> bytes:  # sync reads from inside a running loop
            return b"".join(response.iter_bytes())

        body = asyncio.run(read())
        response.close()

    assert b'"delta":"one"' in body
    assert b'"delta":"two"' in body
    model.assert_complete()
