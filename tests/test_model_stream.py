"""ScriptedModel streaming: automatic events, raw streams, stream responders, aborts, closing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agents_testing.errors import (
    InvalidScriptedModelStepError,
    ScriptedModelRequestAbortedError,
)
from agents_testing.items import (
    ModelRequest,
    ModelResponse,
    Usage,
    assistant_message,
    function_call,
)
from agents_testing.model import (
    RecordedModelCall,
    ScriptedModel,
    model_error,
    model_responder,
    model_stream,
    model_stream_responder,
)


def make_request(text: str = "hello", **fields: Any) -> ModelRequest:
    return ModelRequest(input=[{"role": "user", "content": text}], **fields)


async def collect(stream: AsyncIterator[Any], into: list[Any] | None = None) -> list[Any]:
    """Read a stream to its end, keeping the events read before any error in ``into``."""
    events = [] if into is None else into
    async for event in stream:
        events.append(event)
    return events


class Signal:
    """A minimal abort signal: anything with a truthy ``aborted`` attribute."""

    def __init__(self) -> None:
        self.aborted = False


class AbortAfter:
    """A signal that lets the first ``checks`` abort checks pass and then reports aborted."""

    def __init__(self, checks: int) -> None:
        self.checks = checks
        self.reads = 0

    @property
    def aborted(self) -> bool:
        self.reads += 1
        return self.reads > self.checks


def started() -> dict[str, Any]:
    return {"type": "response_started"}


def delta(text: str, item_id: str | None = None) -> dict[str, Any]:
    return {"type": "output_text_delta", "item_id": item_id, "delta": text}


def done(
    output: list[Any], response_id: str = "scripted-response-1", **fields: Any
) -> dict[str, Any]:
    response = {
        "id": response_id,
        "request_id": None,
        "usage": {
            "requests": 1,
            "input_tokens": 0,
            "output_tokens": 0,
            "total_tokens": 0,
            "input_tokens_details": None,
            "output_tokens_details": None,
            "request_usage_entries": None,
        },
        "raw_usage": None,
        "provider_data": None,
        "output": output,
    }
    response.update(fields)
    return {"type": "response_done", "response": response}


# -- automatic streaming ----------------------------------------------------------------------


async def test_streamed_text_response_gives_started_delta_and_done() -> None:
    model = ScriptedModel([[assistant_message("hi")]])

    events = await collect(model.stream_response(make_request()))

    assert events == [started(), delta("hi"), done([assistant_message("hi")])]


async def test_streamed_events_keep_the_reference_key_order() -> None:
    model = ScriptedModel([[assistant_message("hi", id="msg-1")]])

    events = await collect(model.stream_response(make_request()))

    assert [list(event) for event in events] == [
        ["type"],
        ["type", "item_id", "delta"],
        ["type", "response"],
    ]
    response = events[2]["response"]
    assert list(response) == ["id", "request_id", "usage", "raw_usage", "provider_data", "output"]
    assert list(response["usage"]) == [
        "requests",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "input_tokens_details",
        "output_tokens_details",
        "request_usage_entries",
    ]


async def test_each_output_text_part_gives_one_whole_delta() -> None:
    message = assistant_message("first", id="msg-1")
    # A refusal part: the items' types model only the text parts the builders make.
    parts: list[Any] = message["content"]
    parts.append({"type": "refusal", "refusal": "no"})
    message["content"].append({"type": "output_text", "text": ""})
    message["content"].append({"type": "output_text", "text": "third part, not chunked"})
    model = ScriptedModel([[message]])

    events = await collect(model.stream_response(make_request()))

    assert events == [
        started(),
        delta("first", "msg-1"),
        delta("", "msg-1"),
        delta("third part, not chunked", "msg-1"),
        done([message]),
    ]


async def test_function_calls_appear_only_inside_response_done() -> None:
    output = [
        assistant_message("x", id="mid"),
        function_call("lookup", {"a": 1}, call_id="c1"),
        assistant_message("y"),
    ]
    model = ScriptedModel([output])

    events = await collect(model.stream_response(make_request()))

    assert events == [started(), delta("x", "mid"), delta("y"), done(output)]


async def test_function_call_only_output_streams_started_and_done() -> None:
    output = [function_call("lookup", '{"a": 1}', call_id="c1")]
    model = ScriptedModel([output])

    events = await collect(model.stream_response(make_request()))

    assert events == [started(), done(output)]


async def test_empty_output_streams_started_and_done() -> None:
    model = ScriptedModel([[]])

    events = await collect(model.stream_response(make_request()))

    assert events == [started(), done([])]


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(
            {"type": "message", "role": "user", "content": [{"type": "output_text", "text": "u"}]},
            id="user-message",
        ),
        pytest.param(
            {"type": "message", "role": "assistant", "content": "plain string"},
            id="string-content",
        ),
        pytest.param(
            {"role": "assistant", "content": [{"type": "output_text", "text": "t"}]},
            id="untyped-assistant-message",
        ),
        pytest.param({"type": "reasoning", "summary": []}, id="reasoning"),
    ],
)
async def test_items_other_than_assistant_messages_give_no_delta(item: dict[str, Any]) -> None:
    model = ScriptedModel([[item]])

    events = await collect(model.stream_response(make_request()))

    assert events == [started(), done([item])]


async def test_delta_carries_provider_data_only_when_the_part_has_it() -> None:
    message = assistant_message("with")
    message["content"][0]["provider_data"] = {"logprobs": [1]}
    message["content"].append({"type": "output_text", "text": "without"})
    model = ScriptedModel([[message]])

    events = await collect(model.stream_response(make_request()))

    assert events[1] == {
        "type": "output_text_delta",
        "item_id": None,
        "delta": "with",
        "provider_data": {"logprobs": [1]},
    }
    assert list(events[1]) == ["type", "item_id", "delta", "provider_data"]
    assert events[2] == delta("without")


async def test_streamed_full_response_without_id_gets_the_scripted_id() -> None:
    model = ScriptedModel(
        [[assistant_message("a")], ModelResponse(output=[], usage=Usage(requests=2))]
    )
    await collect(model.stream_response(make_request()))

    events = await collect(model.stream_response(make_request()))

    assert events[-1]["response"]["id"] == "scripted-response-2"


async def test_streamed_full_response_reports_every_response_field() -> None:
    response = ModelResponse(
        output=[assistant_message("a", id="m1")],
        usage=Usage(
            requests=2,
            input_tokens=5,
            output_tokens=7,
            input_tokens_details={"cached_tokens": 1},
            output_tokens_details=[{"reasoning_tokens": 2}],
            request_usage_entries=[
                {"input_tokens": 5, "output_tokens": 7, "endpoint": "responses"},
                {"input_tokens": 1},
            ],
        ),
        response_id="resp-1",
        request_id="req-1",
        provider_data={"region": "eu"},
        raw_usage={"prompt_tokens": 5},
    )
    model = ScriptedModel([response])

    events = await collect(model.stream_response(make_request()))

    assert events[-1] == {
        "type": "response_done",
        "response": {
            "id": "resp-1",
            "request_id": "req-1",
            "usage": {
                "requests": 2,
                "input_tokens": 5,
                "output_tokens": 7,
                "total_tokens": 12,
                "input_tokens_details": [{"cached_tokens": 1}],
                "output_tokens_details": [{"reasoning_tokens": 2}],
                "request_usage_entries": [
                    {
                        "input_tokens": 5,
                        "output_tokens": 7,
                        "total_tokens": 12,
                        "input_tokens_details": {},
                        "output_tokens_details": {},
                        "endpoint": "responses",
                    },
                    {
                        "input_tokens": 1,
                        "output_tokens": 0,
                        "total_tokens": 1,
                        "input_tokens_details": {},
                        "output_tokens_details": {},
                        "endpoint": None,
                    },
                ],
            },
            "raw_usage": None,
            "provider_data": {"region": "eu"},
            "output": [assistant_message("a", id="m1")],
        },
    }


async def test_streamed_raw_usage_is_reported_when_preserved() -> None:
    model = ScriptedModel([ModelResponse(output=[], usage=Usage(), raw_usage={"prompt_tokens": 5})])

    events = await collect(
        model.stream_response(make_request(model_settings={"preserve_raw_usage": True}))
    )

    assert events[-1]["response"]["raw_usage"] == {"prompt_tokens": 5}


async def test_mutating_a_yielded_delta_does_not_change_later_events() -> None:
    message = assistant_message("a", id="m1")
    message["content"][0]["provider_data"] = {"tags": ["x"]}
    model = ScriptedModel([[message]])
    stream = model.stream_response(make_request())

    await stream.__anext__()
    first_delta = await stream.__anext__()
    assert first_delta["type"] == "output_text_delta"
    first_delta["provider_data"]["tags"].append("changed")
    final = await stream.__anext__()
    assert final["type"] == "response_done"

    part = final["response"]["output"][0]["content"][0]
    assert part["provider_data"] == {"tags": ["x"]}


async def test_response_done_holds_copies_of_the_responders_output() -> None:
    output = [assistant_message("a", provider_data={"k": ["v"]})]
    returned = ModelResponse(output=output, usage=Usage(), provider_data={"p": [1]})
    model = ScriptedModel([model_responder(lambda call: returned)])

    events = await collect(model.stream_response(make_request()))

    response = events[-1]["response"]
    assert response["output"] == output
    assert response["output"] is not output
    assert response["output"][0] is not output[0]
    assert response["output"][0]["provider_data"] is not output[0]["provider_data"]
    assert response["provider_data"] is not returned.provider_data


async def test_streamed_responder_is_called_on_first_read_with_the_streamed_call() -> None:
    seen: list[RecordedModelCall] = []

    def respond(call: RecordedModelCall) -> list[Any]:
        seen.append(call)
        return [assistant_message("a")]

    model = ScriptedModel([model_responder(respond)])
    stream = model.stream_response(make_request())
    assert seen == []

    events = await collect(stream)

    assert [(call.index, call.streamed, call.request) for call in seen] == [
        (0, True, make_request())
    ]
    assert events == [started(), delta("a"), done([assistant_message("a")])]


async def test_async_streamed_responder_is_awaited() -> None:
    async def respond(call: RecordedModelCall) -> list[Any]:
        await asyncio.sleep(0)
        return [assistant_message("later")]

    model = ScriptedModel([model_responder(respond)])

    events = await collect(model.stream_response(make_request()))

    assert events == [started(), delta("later"), done([assistant_message("later")])]


async def test_streamed_responder_invalid_result_fails_before_any_event() -> None:
    bad = model_responder(lambda call: "not a response")  # type: ignore[arg-type, return-value]
    model = ScriptedModel([bad])
    events: list[Any] = []

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        await collect(model.stream_response(make_request()), into=events)

    error = exc_info.value
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        "invalid_response",
        None,
        0,
        None,
    )
    assert str(error).startswith(
        "ScriptedModel responder returned an invalid response for call #1."
    )
    assert events == []


async def test_streamed_responder_invalid_result_is_reraised_by_assert_complete() -> None:
    # A result the annotations refuse, as a responder written without them could return.
    model = ScriptedModel([model_responder(lambda call: None)])  # type: ignore[arg-type, return-value]
    with pytest.raises(InvalidScriptedModelStepError):
        await collect(model.stream_response(make_request()))

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.assert_complete()

    assert (exc_info.value.reason, exc_info.value.call_index) == ("invalid_response", 0)


def test_stream_response_takes_the_step_even_if_never_read() -> None:
    model = ScriptedModel([[assistant_message("a")]])

    model.stream_response(make_request())

    assert model.remaining_steps == 0
    assert [(call.index, call.streamed) for call in model.calls] == [(0, True)]
    model.assert_complete()


async def test_streamed_error_step_raises_on_first_read() -> None:
    error = ConnectionError("stream failed")
    model = ScriptedModel([model_error(error)])
    stream = model.stream_response(make_request())
    events: list[Any] = []

    with pytest.raises(ConnectionError) as exc_info:
        await collect(stream, into=events)

    assert exc_info.value is error
    assert events == []


async def test_streams_take_steps_in_creation_order_whatever_the_read_order() -> None:
    model = ScriptedModel([[assistant_message("one")], [assistant_message("two")]])
    first = model.stream_response(make_request("first"))
    second = model.stream_response(make_request("second"))

    second_events = await collect(second)
    first_events = await collect(first)

    assert first_events[-1] == done([assistant_message("one")], "scripted-response-1")
    assert second_events[-1] == done([assistant_message("two")], "scripted-response-2")


async def test_overlapping_streams_run_concurrently_with_their_own_steps() -> None:
    gate = asyncio.Event()

    async def slow(call: RecordedModelCall) -> list[Any]:
        await gate.wait()
        return [assistant_message("slow")]

    model = ScriptedModel([model_responder(slow), [assistant_message("fast")]])

    async def read(request: ModelRequest) -> list[Any]:
        events = await collect(model.stream_response(request))
        gate.set()
        return events

    slow_events, fast_events = await asyncio.gather(
        read(make_request("slow")), read(make_request("fast"))
    )

    assert slow_events == [started(), delta("slow"), done([assistant_message("slow")])]
    assert fast_events == [
        started(),
        delta("fast"),
        done([assistant_message("fast")], "scripted-response-2"),
    ]


# -- raw streams ----------------------------------------------------------------------------


async def test_raw_stream_yields_exactly_the_scripted_events() -> None:
    events = [{"type": "response_started"}, {"type": "model", "event": {"kind": "custom"}}]
    model = ScriptedModel([model_stream(events)])

    received = await collect(model.stream_response(make_request()))

    assert received == events


async def test_raw_stream_events_are_never_validated() -> None:
    events = [1, None, "text", {"type": "bogus"}]
    model = ScriptedModel([model_stream(events)])

    received = await collect(model.stream_response(make_request()))

    assert received == [1, None, "text", {"type": "bogus"}]


async def test_raw_stream_list_is_copied_when_enqueued() -> None:
    event: dict[str, Any] = {"type": "model", "event": {"data": ["a"]}}
    events = [event]
    model = ScriptedModel([model_stream(events)])

    events.append({"type": "added later"})
    event["event"]["data"].append("changed")
    received = await collect(model.stream_response(make_request()))

    assert received == [{"type": "model", "event": {"data": ["a"]}}]
    assert received[0] is not event


async def test_raw_stream_from_an_empty_list_yields_nothing() -> None:
    model = ScriptedModel([model_stream([])])

    assert await collect(model.stream_response(make_request())) == []


async def test_raw_stream_iterable_is_kept_by_identity_and_read_lazily() -> None:
    first, second = {"type": "one"}, {"type": "two"}
    events = (first, second)
    model = ScriptedModel([model_stream(events)])

    received = await collect(model.stream_response(make_request()))

    assert received[0] is first
    assert received[1] is second


async def test_raw_stream_generator_runs_only_when_the_stream_is_read() -> None:
    produced: list[int] = []

    def events() -> Iterator[dict[str, Any]]:
        for number in range(2):
            produced.append(number)
            yield {"type": "model", "event": number}

    model = ScriptedModel([model_stream(events())])
    stream = model.stream_response(make_request())
    assert produced == []

    first = await stream.__anext__()

    assert (first, produced) == ({"type": "model", "event": 0}, [0])
    await stream.aclose()


async def test_raw_stream_reads_an_async_generator() -> None:
    async def events() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "model", "event": 1}
        await asyncio.sleep(0)
        yield {"type": "model", "event": 2}

    model = ScriptedModel([model_stream(events())])

    received = await collect(model.stream_response(make_request()))

    assert received == [{"type": "model", "event": 1}, {"type": "model", "event": 2}]


async def test_raw_stream_reads_a_set() -> None:
    model = ScriptedModel([model_stream({"only"})])

    assert await collect(model.stream_response(make_request())) == ["only"]


class CountingIterator:
    """An iterator with ``__next__`` only: what a plain ``for`` loop accepts from ``__iter__``."""

    def __init__(self) -> None:
        self.count = 0

    def __next__(self) -> int:
        self.count += 1
        if self.count > 2:
            raise StopIteration
        return self.count


class CountingIterable:
    def __iter__(self) -> CountingIterator:
        return CountingIterator()


class CountingAsyncIterator:
    """An async iterator with ``__anext__`` only: what ``async for`` accepts from ``__aiter__``."""

    def __init__(self) -> None:
        self.count = 0

    async def __anext__(self) -> int:
        self.count += 1
        if self.count > 2:
            raise StopAsyncIteration
        return self.count


class CountingAsyncIterable:
    def __aiter__(self) -> CountingAsyncIterator:
        return CountingAsyncIterator()


async def test_raw_stream_reads_an_iterable_whose_iterator_only_has_next() -> None:
    # Not an Iterable to a type checker (its iterator has no __iter__), but a for loop takes it.
    model = ScriptedModel([model_stream(CountingIterable())])  # type: ignore[arg-type]

    assert await collect(model.stream_response(make_request())) == [1, 2]


async def test_raw_stream_reads_an_async_iterable_whose_iterator_only_has_anext() -> None:
    # Not an AsyncIterable to a type checker (its iterator has no __aiter__), but async for
    # takes it.
    model = ScriptedModel([model_stream(CountingAsyncIterable())])  # type: ignore[arg-type]

    assert await collect(model.stream_response(make_request())) == [1, 2]


class AsyncEvents:
    """An async iterable that is not itself an async iterator."""

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self.events()

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        yield started()
        yield delta("hi")


async def test_raw_stream_reads_an_async_iterable_that_is_not_an_iterator() -> None:
    model = ScriptedModel([model_stream(AsyncEvents())])

    assert await collect(model.stream_response(make_request())) == [started(), delta("hi")]


async def test_awaitable_events_of_a_sync_iterable_are_awaited() -> None:
    async def later(value: int) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"type": "model", "event": value}

    future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    future.set_result({"type": "model", "event": 2})
    model = ScriptedModel([model_stream([later(1), future, {"type": "model", "event": 3}])])

    received = await collect(model.stream_response(make_request()))

    assert received == [
        {"type": "model", "event": 1},
        {"type": "model", "event": 2},
        {"type": "model", "event": 3},
    ]


async def test_raw_stream_adds_no_started_or_done_events() -> None:
    model = ScriptedModel([model_stream([{"type": "output_text_delta", "delta": "x"}])])

    received = await collect(model.stream_response(make_request()))

    assert received == [{"type": "output_text_delta", "delta": "x"}]


async def test_raw_stream_source_error_propagates_after_earlier_events() -> None:
    failure = RuntimeError("source broke")

    def events() -> Iterator[dict[str, Any]]:
        yield {"type": "response_started"}
        raise failure

    model = ScriptedModel([model_stream(events())])
    received: list[Any] = []

    with pytest.raises(RuntimeError) as exc_info:
        await collect(model.stream_response(make_request()), into=received)

    assert exc_info.value is failure
    assert received == [{"type": "response_started"}]
    model.assert_complete()


async def test_raw_stream_source_is_closed_when_the_stream_ends() -> None:
    closed: list[bool] = []

    def events() -> Iterator[dict[str, Any]]:
        try:
            yield {"type": "response_started"}
        finally:
            closed.append(True)

    model = ScriptedModel([model_stream(events())])

    await collect(model.stream_response(make_request()))

    assert closed == [True]


async def test_aclose_closes_a_generator_source() -> None:
    closed: list[bool] = []

    def events() -> Iterator[dict[str, Any]]:
        try:
            yield {"type": "one"}
            yield {"type": "two"}
        finally:
            closed.append(True)

    model = ScriptedModel([model_stream(events())])
    stream = model.stream_response(make_request())
    await stream.__anext__()

    await stream.aclose()

    assert closed == [True]


async def test_aclose_closes_an_async_generator_source() -> None:
    closed: list[bool] = []

    async def events() -> AsyncIterator[dict[str, Any]]:
        try:
            yield {"type": "one"}
            yield {"type": "two"}
        finally:
            closed.append(True)

    model = ScriptedModel([model_stream(events())])
    stream = model.stream_response(make_request())
    await stream.__anext__()

    await stream.aclose()

    assert closed == [True]


class _SourceError(Exception):
    """The error a scripted source raises in the close tests."""


class _SourceWithFailingClose:
    """An async source whose ``__anext__`` runs ``step`` and whose ``aclose()`` raises."""

    def __init__(self, step: Any) -> None:
        self.step = step
        self.close_error = RuntimeError("aclose broke")
        self.closed = False

    def __aiter__(self) -> _SourceWithFailingClose:
        return self

    async def __anext__(self) -> dict[str, Any]:
        return await self.step()  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        self.closed = True
        raise self.close_error


async def test_source_error_passes_up_unchanged_when_its_aclose_also_raises() -> None:
    failure = _SourceError("source broke")

    async def fail() -> dict[str, Any]:
        raise failure

    source = _SourceWithFailingClose(fail)
    model = ScriptedModel([model_stream(source)])

    with pytest.raises(_SourceError) as exc_info:
        await collect(model.stream_response(make_request()))

    assert exc_info.value is failure
    assert source.closed
    # The close error is kept as a note so the failing close is not silently hidden.
    assert any("aclose broke" in note for note in getattr(failure, "__notes__", []))


async def test_stream_responder_source_error_survives_a_failing_aclose() -> None:
    failure = _SourceError("source broke")

    async def fail() -> dict[str, Any]:
        raise failure

    source = _SourceWithFailingClose(fail)
    model = ScriptedModel([model_stream_responder(lambda call: source)])

    with pytest.raises(_SourceError) as exc_info:
        await collect(model.stream_response(make_request()))

    assert exc_info.value is failure


async def test_cancelled_consumer_sees_cancelled_error_when_aclose_raises() -> None:
    entered = asyncio.Event()

    async def wait_forever() -> dict[str, Any]:
        entered.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    source = _SourceWithFailingClose(wait_forever)
    model = ScriptedModel([model_stream(source)])
    task = asyncio.ensure_future(collect(model.stream_response(make_request())))
    await entered.wait()

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert source.closed


async def test_abort_error_survives_a_failing_aclose_of_the_source() -> None:
    signal = asyncio.Event()

    async def first_then_abort() -> dict[str, Any]:
        signal.set()
        return {"type": "one"}

    source = _SourceWithFailingClose(first_then_abort)
    model = ScriptedModel([model_stream(source)])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await collect(model.stream_response(make_request(signal=signal)))

    assert exc_info.value.call_index == 0
    assert source.closed


async def test_sync_source_error_passes_up_unchanged_when_its_close_also_raises() -> None:
    failure = _SourceError("source broke")
    close_error = RuntimeError("close broke")

    class Source:
        def __iter__(self) -> Source:
            return self

        def __next__(self) -> dict[str, Any]:
            raise failure

        def close(self) -> None:
            raise close_error

    model = ScriptedModel([model_stream(Source())])

    with pytest.raises(_SourceError) as exc_info:
        await collect(model.stream_response(make_request()))

    assert exc_info.value is failure
    assert any("close broke" in note for note in getattr(failure, "__notes__", []))


async def test_aclose_of_the_stream_raises_the_sources_close_error() -> None:
    async def one() -> dict[str, Any]:
        return {"type": "one"}

    source = _SourceWithFailingClose(one)
    model = ScriptedModel([model_stream(source)])
    stream = model.stream_response(make_request())
    await stream.__anext__()

    # Nothing else is in flight, so the close error is the one to report.
    with pytest.raises(RuntimeError) as exc_info:
        await stream.aclose()

    assert exc_info.value is source.close_error


async def test_closed_stream_yields_no_more_events() -> None:
    model = ScriptedModel([model_stream([{"type": "one"}, {"type": "two"}])])
    stream = model.stream_response(make_request())
    await stream.__anext__()

    await stream.aclose()

    assert await collect(stream) == []


# -- stream responders ----------------------------------------------------------------------


async def test_stream_responder_runs_on_first_read_with_the_streamed_call() -> None:
    seen: list[RecordedModelCall] = []

    def respond(call: RecordedModelCall) -> list[Any]:
        seen.append(call)
        return [{"type": "model", "event": call.index}]

    model = ScriptedModel([model_stream_responder(respond)])
    stream = model.stream_response(make_request())
    assert seen == []

    received = await collect(stream)

    assert received == [{"type": "model", "event": 0}]
    assert [(call.index, call.streamed, call.request) for call in seen] == [
        (0, True, make_request())
    ]


async def test_stream_responder_list_events_keep_their_identity() -> None:
    event = {"type": "model", "event": "x"}
    model = ScriptedModel([model_stream_responder(lambda call: [event])])

    received = await collect(model.stream_response(make_request()))

    assert received[0] is event


async def test_async_stream_responder_may_return_an_async_generator() -> None:
    async def events() -> AsyncIterator[str]:
        yield "a"
        yield "b"

    async def respond(call: RecordedModelCall) -> AsyncIterator[str]:
        await asyncio.sleep(0)
        return events()

    model = ScriptedModel([model_stream_responder(respond)])

    assert await collect(model.stream_response(make_request())) == ["a", "b"]


async def test_stream_responder_may_return_an_async_generator() -> None:
    async def events(call: RecordedModelCall) -> AsyncIterator[int]:
        yield call.index

    model = ScriptedModel([model_stream_responder(events)])

    assert await collect(model.stream_response(make_request())) == [0]


@pytest.mark.parametrize(
    "returned",
    [
        pytest.param(None, id="none"),
        pytest.param(5, id="number"),
        pytest.param("abc", id="string"),
        pytest.param({"type": "response_started"}, id="single-event-mapping"),
    ],
)
async def test_stream_responder_invalid_result_is_invalid_stream(returned: Any) -> None:
    model = ScriptedModel([[assistant_message("a")], model_stream_responder(lambda c: returned)])
    await collect(model.stream_response(make_request()))
    received: list[Any] = []

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        await collect(model.stream_response(make_request()), into=received)

    error = exc_info.value
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        "invalid_stream",
        None,
        1,
        "stream_responder",
    )
    assert str(error).startswith(
        "ScriptedModel stream responder returned an invalid stream for call #2."
    )
    assert received == []


async def test_stream_responder_invalid_result_is_reraised_by_assert_complete() -> None:
    model = ScriptedModel([model_stream_responder(lambda call: None)])
    with pytest.raises(InvalidScriptedModelStepError):
        await collect(model.stream_response(make_request()))

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.assert_complete()

    error = exc_info.value
    assert (error.reason, error.call_index, error.step_type) == (
        "invalid_stream",
        0,
        "stream_responder",
    )
    assert str(error).startswith(
        "ScriptedModel stream responder returned an invalid stream for call #1."
    )


async def test_stream_responder_exception_propagates_unchanged() -> None:
    failure = RuntimeError("responder broke")

    def respond(call: RecordedModelCall) -> list[Any]:
        raise failure

    model = ScriptedModel([model_stream_responder(respond)])

    with pytest.raises(RuntimeError) as exc_info:
        await collect(model.stream_response(make_request()))

    assert exc_info.value is failure
    model.assert_complete()


# -- aborts (streaming) ---------------------------------------------------------------------


def test_stream_abort_at_entry_raises_synchronously_and_keeps_the_step() -> None:
    signal = Signal()
    signal.aborted = True
    model = ScriptedModel([[assistant_message("a")]])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        model.stream_response(make_request(signal=signal))

    assert exc_info.value.call_index is None
    assert str(exc_info.value) == "Scripted model request was aborted."
    assert model.calls == ()
    assert model.remaining_steps == 1


@pytest.mark.parametrize(
    ("passed_checks", "events_before_abort"),
    [
        pytest.param(1, 0, id="first-read"),
        pytest.param(2, 0, id="after-stored-response"),
        pytest.param(3, 0, id="after-normalization"),
        pytest.param(4, 0, id="before-response-started"),
        pytest.param(5, 1, id="before-first-delta"),
        pytest.param(6, 2, id="before-second-delta"),
        pytest.param(7, 3, id="before-response-done"),
    ],
)
async def test_automatic_stream_checks_abort_before_each_event(
    passed_checks: int, events_before_abort: int
) -> None:
    output = [assistant_message("a"), assistant_message("b")]
    model = ScriptedModel([output])
    received: list[Any] = []

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await collect(
            model.stream_response(make_request(signal=AbortAfter(passed_checks))), received
        )

    assert exc_info.value.call_index == 0
    assert received == [started(), delta("a"), delta("b")][:events_before_abort]
    assert len(model.calls) == 1
    assert model.remaining_steps == 0


async def test_automatic_stream_has_no_abort_check_after_response_done() -> None:
    signal = AbortAfter(8)
    model = ScriptedModel([[assistant_message("a"), assistant_message("b")]])

    received = await collect(model.stream_response(make_request(signal=signal)))

    assert len(received) == 4
    assert signal.reads == 8


async def test_abort_after_response_done_lets_the_stream_end() -> None:
    signal = Signal()
    model = ScriptedModel([[assistant_message("a")]])
    stream = model.stream_response(make_request(signal=signal))
    received = [await stream.__anext__() for _ in range(3)]

    signal.aborted = True

    assert await collect(stream) == []
    assert received[-1]["type"] == "response_done"


async def test_abort_during_streamed_responder_is_seen_before_validation() -> None:
    signal = Signal()

    def respond(call: RecordedModelCall) -> Any:
        signal.aborted = True
        return "not a response"

    model = ScriptedModel([model_responder(respond)])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await collect(model.stream_response(make_request(signal=signal)))

    assert exc_info.value.call_index == 0
    model.assert_complete()


@pytest.mark.parametrize(
    ("passed_checks", "events_before_abort"),
    [
        pytest.param(1, 0, id="first-read"),
        pytest.param(2, 0, id="after-source"),
        pytest.param(3, 0, id="before-first-event"),
        pytest.param(4, 1, id="before-second-event"),
        pytest.param(5, 2, id="after-source-ends"),
    ],
)
async def test_raw_stream_checks_abort_before_each_event_and_after_the_end(
    passed_checks: int, events_before_abort: int
) -> None:
    events = [{"type": "one"}, {"type": "two"}]
    model = ScriptedModel([model_stream(events)])
    received: list[Any] = []

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await collect(
            model.stream_response(make_request(signal=AbortAfter(passed_checks))), received
        )

    assert exc_info.value.call_index == 0
    assert received == events[:events_before_abort]


async def test_raw_stream_with_every_check_passed_ends_normally() -> None:
    signal = AbortAfter(6)
    model = ScriptedModel([model_stream([{"type": "one"}, {"type": "two"}])])

    received = await collect(model.stream_response(make_request(signal=signal)))

    assert received == [{"type": "one"}, {"type": "two"}]
    assert signal.reads == 6


async def test_abort_after_the_last_raw_event_turns_the_stream_into_an_abort() -> None:
    signal = Signal()
    model = ScriptedModel([model_stream([{"type": "only"}])])
    stream = model.stream_response(make_request(signal=signal))
    first = await stream.__anext__()

    signal.aborted = True

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await stream.__anext__()
    assert exc_info.value.call_index == 0
    assert first == {"type": "only"}


async def test_abort_during_a_partially_read_stream_keeps_earlier_events() -> None:
    signal = Signal()
    model = ScriptedModel([[assistant_message("a")]])
    stream = model.stream_response(make_request(signal=signal))
    received = [await stream.__anext__(), await stream.__anext__()]

    signal.aborted = True

    with pytest.raises(ScriptedModelRequestAbortedError):
        await stream.__anext__()
    assert received == [started(), delta("a")]


async def test_abort_during_stream_responder_is_seen_before_its_result_is_checked() -> None:
    signal = Signal()

    def respond(call: RecordedModelCall) -> Any:
        signal.aborted = True
        return 5

    model = ScriptedModel([model_stream_responder(respond)])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await collect(model.stream_response(make_request(signal=signal)))

    assert exc_info.value.call_index == 0
    model.assert_complete()


async def test_stream_responder_is_not_called_when_aborted_before_first_read() -> None:
    called: list[RecordedModelCall] = []
    signal = Signal()

    def respond(call: RecordedModelCall) -> list[Any]:
        called.append(call)
        return []

    model = ScriptedModel([model_stream_responder(respond)])
    stream = model.stream_response(make_request(signal=signal))

    signal.aborted = True

    with pytest.raises(ScriptedModelRequestAbortedError):
        await collect(stream)
    assert called == []


async def test_stream_error_step_aborted_before_first_read_raises_abort_not_the_error() -> None:
    signal = Signal()
    model = ScriptedModel([model_error(ValueError("scripted"))])
    stream = model.stream_response(make_request(signal=signal))

    signal.aborted = True

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await collect(stream)
    assert exc_info.value.call_index == 0


async def test_set_asyncio_event_aborts_a_stream_in_progress() -> None:
    signal = asyncio.Event()
    model = ScriptedModel([model_stream([{"type": "one"}, {"type": "two"}])])
    stream = model.stream_response(make_request(signal=signal))
    await stream.__anext__()

    signal.set()

    with pytest.raises(ScriptedModelRequestAbortedError):
        await stream.__anext__()
