"""ScriptedModel behaviors that mutation testing found no test pinned.

Retry advice that is not synchronous, a ``Usage`` broken after it was built, request and
response fields carried through, raw usage with shared parts, automatic streaming past items
it cannot stream, and the stream's attributes, reprs and frozen records.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections import deque
from collections.abc import Generator
from types import MappingProxyType
from typing import Any

import pytest

from agents_testing.errors import (
    InvalidScriptedModelStepError,
    ScriptedModelRequestAbortedError,
    UnconsumedModelStepsError,
)
from agents_testing.items import (
    ModelRequest,
    ModelResponse,
    ModelRetryAdvice,
    RetryAdviceRequest,
    Usage,
    assistant_message,
)
from agents_testing.model import (
    RecordedModelCall,
    ScriptedModel,
    model_error,
    model_responder,
    model_response,
    model_stream,
    model_stream_responder,
    optional_step,
)


def make_request(text: str = "hello", **fields: Any) -> ModelRequest:
    return ModelRequest(input=[{"role": "user", "content": text}], **fields)


class Signal:
    """A minimal abort signal: anything with a truthy ``aborted`` attribute."""

    def __init__(self) -> None:
        self.aborted = False


async def events_of(model: ScriptedModel, request: ModelRequest) -> list[Any]:
    return [event async for event in model.stream_response(request)]


# -- retry advice that is not synchronous --------------------------------------------------


async def test_a_retry_advice_callback_returning_a_coroutine_is_refused_and_closed() -> None:
    made: list[Any] = []

    async def advise_later() -> ModelRetryAdvice:
        return ModelRetryAdvice(suggested=True)

    def advise(request: RetryAdviceRequest) -> Any:
        made.append(advise_later())
        return made[-1]

    error = RuntimeError("rate limited")
    model = ScriptedModel([model_error(error, retry_advice=advise)])
    with pytest.raises(RuntimeError):
        await model.get_response(make_request())

    with pytest.raises(TypeError) as info:
        model.get_retry_advice(RetryAdviceRequest(error=error, stream=False, attempt=1))

    assert str(info.value) == (
        "ScriptedModel retry advice callbacks must be synchronous; "
        "compute the advice without awaiting and return it"
    )
    # Closed at once, so it never warns that it was not awaited.
    assert inspect.getcoroutinestate(made[0]) == inspect.CORO_CLOSED


class Later:
    """An awaitable that is not a coroutine: it has no close()."""

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield


async def test_a_retry_advice_callback_returning_another_awaitable_is_refused() -> None:
    error = RuntimeError("rate limited")
    # Refused by the annotations as well: advice must be computed synchronously.
    advice = model_error(error, retry_advice=lambda request: Later())  # type: ignore[arg-type, return-value]
    model = ScriptedModel([advice])
    with pytest.raises(RuntimeError):
        await model.get_response(make_request())

    with pytest.raises(TypeError, match="must be synchronous"):
        model.get_retry_advice(RetryAdviceRequest(error=error, stream=False, attempt=1))


class AsyncAdvisor:
    """An object whose ``__call__`` is a coroutine function."""

    async def __call__(self, request: RetryAdviceRequest) -> ModelRetryAdvice:
        return ModelRetryAdvice(suggested=False)


def test_an_object_with_an_async_call_is_refused_as_retry_advice() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel(
            [
                model_response([]),
                # Refused by the annotations as well: advice must be computed synchronously.
                model_error(RuntimeError(), retry_advice=AsyncAdvisor()),  # type: ignore[arg-type]
            ]
        )

    error = info.value
    assert error.reason == "invalid_retry_advice"
    assert error.input_index == 1
    assert error.step_type == "error"
    assert error.call_index is None
    assert str(error) == (
        "ScriptedModel input #2 is invalid (invalid retry advice). Input #2 (input_index=1): "
        "pass a ModelRetryAdvice, or a synchronous function that returns one or None."
    )


async def test_a_synchronous_callable_object_is_accepted_as_retry_advice() -> None:
    class Advisor:
        def __call__(self, request: RetryAdviceRequest) -> ModelRetryAdvice:
            return ModelRetryAdvice(suggested=request.attempt < 3)

    error = RuntimeError("overloaded")
    model = ScriptedModel([model_error(error, retry_advice=Advisor())])
    with pytest.raises(RuntimeError):
        await model.get_response(make_request())

    advice = model.get_retry_advice(RetryAdviceRequest(error=error, stream=False, attempt=1))
    assert advice == ModelRetryAdvice(suggested=True)


# -- a Usage broken after it was built ---------------------------------------------------


def broken_usage() -> Usage:
    usage = Usage(input_tokens=1, output_tokens=2)
    usage.input_tokens_details = object()  # type: ignore[assignment]
    return usage


@pytest.mark.parametrize("form", ["ModelResponse", "mapping", "bare mapping"])
def test_a_scripted_response_whose_usage_was_broken_after_construction_is_refused(
    form: str,
) -> None:
    usage = broken_usage()
    response: Any = (
        ModelResponse(output=[], usage=usage)
        if form == "ModelResponse"
        else {"output": [], "usage": usage}
    )
    step = response if form == "bare mapping" else model_response(response)

    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([model_response([]), step])

    error = info.value
    assert error.reason == "invalid_response"
    assert error.input_index == 1
    assert str(error) == (
        "ScriptedModel input #2 has an invalid response envelope. Input #2 (input_index=1): "
        "a response is a list of output items, or ModelResponse(output=[...], usage=Usage()) "
        "with a str or None response_id and request_id."
    )


async def test_a_responder_response_whose_usage_was_broken_is_a_call_error() -> None:
    model = ScriptedModel(
        [model_responder(lambda call: ModelResponse(output=[], usage=broken_usage()))]
    )

    with pytest.raises(InvalidScriptedModelStepError) as info:
        await model.get_response(make_request())

    error = info.value
    assert error.reason == "invalid_response"
    assert error.call_index == 0
    assert error.input_index is None
    assert error.call_summary == "last input user message 'hello'; no tools"
    assert str(error).startswith(
        "ScriptedModel responder returned an invalid response for call #1. Call #1 (call_index=0)"
    )
    assert str(error).endswith(
        "the responder must return a list of output items or a ModelResponse "
        "(with a str or None response_id and request_id)."
    )
    # The step was used: assert_complete() reports the failure even if the caller hid it.
    with pytest.raises(InvalidScriptedModelStepError) as again:
        model.assert_complete()
    assert again.value.call_index == 0


# -- request and response fields carried through --------------------------------------------


async def test_request_ids_and_instructions_survive_into_every_recorded_call() -> None:
    model = ScriptedModel([[], []])
    for turn in ("first", "second"):
        # The second call is recorded sharing parts with the first: the fields must survive both.
        await model.get_response(
            make_request(
                turn,
                system_instructions=f"be {turn}",
                previous_response_id=f"resp-{turn}",
                conversation_id="conv-1",
            )
        )

    for call, turn in zip(model.calls, ("first", "second"), strict=True):
        assert call.request.system_instructions == f"be {turn}"
        assert call.request.previous_response_id == f"resp-{turn}"
        assert call.request.conversation_id == "conv-1"


async def test_a_mapping_response_keeps_its_ids_provider_data_and_raw_usage() -> None:
    model = ScriptedModel(
        [
            {
                "output": [assistant_message("hi")],
                "usage": Usage(input_tokens=3, output_tokens=4),
                "response_id": "resp-7",
                "request_id": "req-7",
                "provider_data": {"model": "m"},
                "raw_usage": {"prompt_tokens": 3},
            }
        ]
    )

    response = await model.get_response(make_request(model_settings={"preserve_raw_usage": True}))

    assert response.response_id == "resp-7"
    assert response.request_id == "req-7"
    assert response.provider_data == {"model": "m"}
    assert response.raw_usage == {"prompt_tokens": 3}
    assert response.usage.total_tokens == 7


async def test_raw_usage_reusing_one_part_in_two_places_is_kept() -> None:
    details = {"cached_tokens": 2}
    raw_usage = {"input": details, "output": details, "list": [details, details]}
    model = ScriptedModel([ModelResponse(output=[], usage=Usage(), raw_usage=raw_usage)])

    response = await model.get_response(make_request(model_settings={"preserve_raw_usage": True}))

    # A part seen twice is shared, not a cycle: only a real cycle drops the raw usage.
    assert response.raw_usage == {
        "input": {"cached_tokens": 2},
        "output": {"cached_tokens": 2},
        "list": [{"cached_tokens": 2}, {"cached_tokens": 2}],
    }


async def test_raw_usage_with_a_cycle_is_dropped() -> None:
    raw_usage: dict[str, Any] = {"prompt_tokens": 1}
    raw_usage["self"] = raw_usage
    model = ScriptedModel([ModelResponse(output=[], usage=Usage(), raw_usage=raw_usage)])

    response = await model.get_response(make_request(model_settings={"preserve_raw_usage": True}))

    assert response.raw_usage is None


# -- automatic streaming past items it cannot stream --------------------------------------


class FrameworkItem:
    """A framework's own output object: passed through, never streamed as text."""


@pytest.mark.parametrize(
    "first_item",
    [
        FrameworkItem(),
        {"type": "message", "role": "assistant", "content": "not a list"},
        {"type": "message", "role": "assistant", "content": ["not a part", {"type": "refusal"}]},
    ],
    ids=["not a mapping", "content not a list", "parts not text"],
)
async def test_automatic_streaming_skips_what_it_cannot_stream_and_streams_later_text(
    first_item: Any,
) -> None:
    model = ScriptedModel([[first_item, assistant_message("later text", id="msg_2")]])

    events = await events_of(model, make_request())

    deltas = [event for event in events if event["type"] == "output_text_delta"]
    assert deltas == [{"type": "output_text_delta", "item_id": "msg_2", "delta": "later text"}]
    assert events[0] == {"type": "response_started"}
    assert events[-1]["type"] == "response_done"


# -- the stream object, reprs and frozen records -----------------------------------------


@pytest.mark.parametrize(
    ("step", "step_type", "automatic"),
    [
        (model_response([]), "response", True),
        (model_responder(lambda call: []), "responder", True),
        (model_stream([]), "stream", False),
        (model_stream_responder(lambda call: []), "stream_responder", False),
        (model_error(RuntimeError("x")), "error", False),
    ],
)
async def test_a_stream_knows_its_call_and_step_before_it_is_read(
    step: Any, step_type: str, automatic: bool
) -> None:
    model = ScriptedModel([[], step])
    await model.get_response(make_request())

    stream = model.stream_response(make_request())

    assert stream.call_index == 1
    assert stream.step_type == step_type
    assert stream.automatic is automatic
    assert repr(stream) == f"<ScriptedModelStream call_index=1 step_type={step_type!r}>"
    await stream.aclose()


async def test_the_model_repr_counts_calls_and_remaining_steps() -> None:
    model = ScriptedModel([[], [], []])
    assert repr(model) == "<ScriptedModel calls=0 remaining_steps=3>"

    await model.get_response(make_request())

    assert repr(model) == "<ScriptedModel calls=1 remaining_steps=2>"


async def test_a_recorded_call_repr_shows_its_fields() -> None:
    model = ScriptedModel([[]])
    await model.get_response(make_request("hi"))

    text = repr(model.calls[0])

    assert text.startswith("RecordedModelCall(index=0, streamed=False, request=ModelRequest(")
    assert "'content': 'hi'" in text


@pytest.mark.parametrize("name", ["index", "streamed", "request"])
async def test_a_recorded_call_field_cannot_be_deleted(name: str) -> None:
    model = ScriptedModel([[]])
    await model.get_response(make_request())
    call = model.calls[0]

    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(call, name)
    assert isinstance(call, RecordedModelCall)
    assert call.index == 0
    assert call.streamed is False
    assert call.request.input == [{"role": "user", "content": "hello"}]


# -- gaps found by a mutation run of model.py -------------------------------------------------


def test_optional_step_of_something_that_is_not_a_step_says_what_it_takes() -> None:
    with pytest.raises(TypeError) as info:
        optional_step("hi")  # type: ignore[arg-type]

    assert str(info.value) == (
        "optional_step() takes a step: a list of output items, a ModelResponse or a step "
        "built by model_response(), model_error(), ...; got str."
    )


@pytest.mark.parametrize(
    ("step", "what"),
    [
        ({"type": "message", "role": "assistant", "content": []}, 'a "message" output item'),
        ({"role": "assistant", "content": "hi"}, "an output item"),
    ],
    ids=["typed item", "untyped item"],
)
def test_an_output_item_given_as_a_step_says_to_wrap_it_in_a_list(
    step: dict[str, Any], what: str
) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([step])

    assert info.value.input_index == 0
    assert info.value.detail == (
        f"this is {what}, not a step. Each step is a list of output items: wrap this item "
        'in a list, e.g. ScriptedModel([[assistant_message("hi")]]).'
    )


class BareAsyncSource:
    """An async iterator with no aclose()."""

    def __aiter__(self) -> BareAsyncSource:
        return self

    async def __anext__(self) -> Any:
        raise StopAsyncIteration


class BareSyncSource:
    """A sync iterator with no close()."""

    def __iter__(self) -> BareSyncSource:
        return self

    def __next__(self) -> Any:
        raise StopIteration


@pytest.mark.parametrize("kind", [BareAsyncSource, BareSyncSource], ids=["async", "sync"])
async def test_closing_an_unread_stream_whose_source_cannot_close_is_quiet(kind: type) -> None:
    model = ScriptedModel([model_stream(kind())])
    stream = model.stream_response(make_request())

    await stream.aclose()

    model.assert_complete()


# -- gaps found by the second mutation run of model.py ----------------------------------------


def module_responder(call: RecordedModelCall) -> list[Any]:
    return []


class CallableResponder:
    """A responder object: it has no ``__qualname__`` of its own, only its class has."""

    def __call__(self, call: RecordedModelCall) -> list[Any]:
        return []


def test_pending_steps_name_responders_and_scripted_streams() -> None:
    model = ScriptedModel(
        [
            model_responder(module_responder),
            model_stream_responder(CallableResponder()),
            model_stream([]),
            ModelResponse(output=[assistant_message("full")], usage=Usage()),
            optional_step(model_stream_responder(module_responder)),
        ]
    )

    with pytest.raises(UnconsumedModelStepsError) as info:
        model.assert_complete()

    assert info.value.pending_steps == (
        {"step_index": 0, "type": "responder", "summary": "module_responder"},
        {"step_index": 1, "type": "stream_responder", "summary": "CallableResponder"},
        {"step_index": 2, "type": "stream", "summary": "scripted events"},
        {"step_index": 3, "type": "response", "summary": "assistant message 'full'"},
        {
            "step_index": 4,
            "type": "stream_responder",
            "summary": "module_responder (optional)",
        },
    )
    assert str(info.value).startswith(
        "ScriptedModel has 5 unconsumed scripted steps. Pending: step #1 (step_index=0) "
        "responder: module_responder; step #2 (step_index=1) stream_responder: "
        "CallableResponder; step #3 (step_index=2) stream: scripted events; "
    )


@pytest.mark.parametrize(
    ("step", "what"),
    [
        ({"type": "function_call", "name": "lookup"}, 'a "function_call" output item'),
        ({"type": "file_search_call"}, 'a "file_search_call" output item'),
        ({"type": "function_call_output"}, 'a "function_call_output" output item'),
        ({"type": "reasoning"}, 'a "reasoning" output item'),
        ({"type": "compaction"}, 'a "compaction" output item'),
    ],
)
def test_every_kind_of_output_item_given_as_a_step_says_to_wrap_it(
    step: dict[str, Any], what: str
) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([step])

    assert (info.value.reason, info.value.input_index) == ("unknown_step_type", 0)
    assert info.value.step_type == step["type"]
    assert info.value.detail is not None
    assert info.value.detail.startswith(f"this is {what}, not a step.")


@pytest.mark.parametrize("step", [{"content": "hi"}, {"role": "user"}], ids=["content", "role"])
def test_an_untyped_mapping_with_a_role_or_content_says_to_wrap_it(step: dict[str, Any]) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([step])

    assert (info.value.reason, info.value.input_index) == ("invalid_input", 0)
    assert info.value.detail is not None
    assert info.value.detail.startswith("this is an output item, not a step.")


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        ({"type": "bogus"}, "unknown_step_type"),
        ({"type": "message_draft"}, "unknown_step_type"),
        ({"name": "lookup"}, "invalid_input"),
    ],
)
def test_a_mapping_that_is_no_output_item_gets_the_reasons_own_advice(
    step: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([step])

    assert (info.value.reason, info.value.input_index) == (reason, 0)
    # No wrap-it-in-a-list hint: the step is not an item, so the reason's advice applies.
    assert info.value.detail is None
    assert "wrap this item" not in str(info.value)


async def test_later_recorded_calls_keep_runtime_objects_and_copy_the_rest() -> None:
    signal, output_type, tracing = Signal(), object(), object()
    requests = [
        ModelRequest(
            input=[{"role": "user", "content": turn}],
            handoffs=[{"name": "billing"}],
            output_type=output_type,
            tracing=tracing,
            signal=signal,
            prompt={"id": f"prompt-{turn}"},
            extra={"turn": turn},
        )
        for turn in ("first", "second")
    ]
    model = ScriptedModel([[], []])
    for request in requests:
        await model.get_response(request)

    # The second record shares what it can with the first: every field must still be there.
    for call, request in zip(model.calls, requests, strict=True):
        recorded = call.request
        assert recorded.signal is signal
        assert recorded.output_type is output_type
        assert recorded.tracing is tracing
        assert recorded.handoffs == [{"name": "billing"}]
        assert recorded.prompt == request.prompt
        assert recorded.prompt is not request.prompt
        assert recorded.extra == request.extra
        assert recorded.extra is not request.extra


async def test_an_abort_during_a_later_call_is_seen_after_its_response_is_built() -> None:
    signal = Signal()

    def respond(call: RecordedModelCall) -> list[Any]:
        signal.aborted = True
        return []

    model = ScriptedModel([[], model_responder(respond)])
    await model.get_response(make_request(signal=signal))

    with pytest.raises(ScriptedModelRequestAbortedError) as info:
        await model.get_response(make_request(signal=signal))

    assert info.value.call_index == 1


async def test_streamed_error_advice_is_found_by_its_request() -> None:
    error = RuntimeError("overloaded")
    first, second = make_request("first"), make_request("second")
    model = ScriptedModel(
        [
            model_error(error, retry_advice=ModelRetryAdvice(suggested=False)),
            model_error(error, retry_advice=ModelRetryAdvice(suggested=True)),
        ]
    )
    for request in (first, second):
        with pytest.raises(RuntimeError):
            await events_of(model, request)

    advice = model.get_retry_advice(
        RetryAdviceRequest(error=error, stream=True, attempt=1, request=second)
    )

    assert advice == ModelRetryAdvice(suggested=True)


async def test_an_invalid_stream_from_a_stream_responder_says_what_the_call_sent() -> None:
    model = ScriptedModel([model_stream_responder(lambda call: 5)])

    with pytest.raises(InvalidScriptedModelStepError) as info:
        await events_of(model, make_request("hi"))

    assert info.value.call_summary == "last input user message 'hi'; no tools"
    assert str(info.value) == (
        "ScriptedModel stream responder returned an invalid stream for call #1. "
        "Call #1 (call_index=0) sent: last input user message 'hi'; no tools: the stream "
        "responder must return an iterable or async iterable of stream events."
    )


def test_get_retry_advice_of_something_else_says_how_to_build_a_request() -> None:
    model = ScriptedModel()

    with pytest.raises(TypeError) as info:
        model.get_retry_advice("overloaded")  # type: ignore[arg-type]

    assert str(info.value) == (
        "ScriptedModel.get_retry_advice() expects a RetryAdviceRequest, got str; build one "
        "with RetryAdviceRequest(error=..., stream=..., attempt=...)."
    )


class EndsThenFailsToClose:
    """A sync source that ends normally and whose ``close()`` raises."""

    def __init__(self) -> None:
        self.close_error = RuntimeError("close broke")
        self.sent = False

    def __iter__(self) -> EndsThenFailsToClose:
        return self

    def __next__(self) -> dict[str, Any]:
        if self.sent:
            raise StopIteration
        self.sent = True
        return {"type": "one"}

    def close(self) -> None:
        raise self.close_error


class AsyncEndsThenFailsToClose:
    """An async source that ends normally and whose ``aclose()`` raises."""

    def __init__(self) -> None:
        self.close_error = RuntimeError("aclose broke")
        self.sent = False

    def __aiter__(self) -> AsyncEndsThenFailsToClose:
        return self

    async def __anext__(self) -> dict[str, Any]:
        if self.sent:
            raise StopAsyncIteration
        self.sent = True
        return {"type": "one"}

    async def aclose(self) -> None:
        raise self.close_error


@pytest.mark.parametrize(
    "kind", [EndsThenFailsToClose, AsyncEndsThenFailsToClose], ids=["sync", "async"]
)
async def test_a_source_that_ends_and_then_fails_to_close_raises_the_close_error(
    kind: Any,
) -> None:
    source = kind()
    model = ScriptedModel([model_stream(source)])
    stream = model.stream_response(make_request())
    received = [await stream.__anext__()]

    with pytest.raises(RuntimeError) as info:
        await stream.__anext__()

    # Nothing else failed, so the close error is the one failure to report.
    assert info.value is source.close_error
    assert received == [{"type": "one"}]


async def test_automatic_streaming_streams_text_parts_after_one_that_is_not_a_mapping() -> None:
    message = {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "content": ["not a part", {"type": "output_text", "text": "after"}],
    }
    model = ScriptedModel([[message]])

    events = await events_of(model, make_request())

    deltas = [event for event in events if event["type"] == "output_text_delta"]
    assert deltas == [{"type": "output_text_delta", "item_id": "msg_1", "delta": "after"}]


# -- messages that are the contract: what was wrong and how to fix it --------------------------

FIX_REQUEST = "build the request with the field types ModelRequest declares."


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("input", 5, "input must be a str or a list of items, got int"),
        ("model_settings", [], "model_settings must be a mapping, got list"),
        ("tools", "lookup", "tools must be a sequence, got str"),
        ("handoffs", {}, "handoffs must be a sequence, got dict"),
        ("extra", 3, "extra must be a mapping, got int"),
        ("system_instructions", 1, "system_instructions must be a str or None, got int"),
        ("previous_response_id", 2.0, "previous_response_id must be a str or None, got float"),
        ("conversation_id", b"c", "conversation_id must be a str or None, got bytes"),
    ],
)
async def test_a_request_field_of_the_wrong_type_is_named_with_the_fix(
    field: str, value: Any, problem: str
) -> None:
    model = ScriptedModel([[]])

    with pytest.raises(TypeError) as info:
        await model.get_response(ModelRequest(**{"input": "hi", field: value}))

    assert str(info.value) == f"ScriptedModel got a ModelRequest whose {problem}; {FIX_REQUEST}"
    assert model.calls == ()
    assert model.remaining_steps == 1


class Text(str):
    """A str subclass, as a framework's own string type may be."""


async def test_a_request_of_other_valid_field_types_is_served() -> None:
    # Any mapping, any non-text iterable and str subclasses are valid, not just the plain
    # dict, list and str adapters build.
    model = ScriptedModel([[]])
    request = ModelRequest(
        input=Text("hi"),
        model_settings=MappingProxyType({"temperature": 0.5}),
        tools=deque(["lookup"]),
        handoffs=range(0),
        extra=MappingProxyType({}),
        system_instructions=Text("Be brief."),
        previous_response_id=Text("resp_1"),
        conversation_id=Text("conv_1"),
    )

    await model.get_response(request)

    recorded = model.calls[0].request
    assert recorded.input == "hi"
    assert dict(recorded.model_settings) == {"temperature": 0.5}
    assert list(recorded.tools) == ["lookup"]
    assert recorded.system_instructions == "Be brief."


async def test_a_call_with_something_other_than_a_request_points_at_the_adapters() -> None:
    model = ScriptedModel([[]])

    with pytest.raises(TypeError) as info:
        await model.get_response(5)  # type: ignore[arg-type]

    assert str(info.value) == (
        "ScriptedModel expects a ModelRequest, got int; use an adapter from "
        "agents_testing.adapters to plug it into a framework."
    )


def nested_lists(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("field", "value", "start"),
    [
        ("model_settings", {"a": nested_lists(3000)}, "request.model_settings['a'][0]"),
        ("tools", [nested_lists(3000)], "request.tools[0][0]"),
        ("handoffs", [nested_lists(3000)], "request.handoffs[0][0]"),
        ("prompt", nested_lists(3000), "request.prompt[0][0]"),
        ("extra", {"a": nested_lists(3000)}, "request.extra['a'][0]"),
    ],
)
async def test_a_request_field_too_deep_to_record_is_named_by_its_path(
    field: str, value: Any, start: str
) -> None:
    model = ScriptedModel([[]])

    with pytest.raises(ValueError, match="too deep to record") as info:
        await model.get_response(ModelRequest(**{"input": "hi", field: value}))

    name = start.partition("[")[0]
    assert str(info.value).startswith(f"{name} is nested ")
    assert f"(down to {start}" in str(info.value)
    assert model.calls == ()


LONG_TEXT = "x" * 50
SHORT_REPR = "'" + "x" * 36 + "..."  # the text cut to 40 characters


@pytest.mark.parametrize(
    ("output", "detail"),
    [
        (
            [LONG_TEXT],
            f"it is the plain string {SHORT_REPR}; script assistant_message({SHORT_REPR}) "
            "for a text reply.",
        ),
        (
            [[assistant_message("a")]],
            "it is a list; each step is one list of output items, so put the items of one "
            "response in a single list.",
        ),
        (
            [(assistant_message("a"),)],
            "it is a tuple; each step is one list of output items, so put the items of one "
            "response in a single list.",
        ),
        (
            [10**49],
            "it is " + "1" + "0" * 36 + "...; an output item is a mapping such as "
            "assistant_message(...) or function_call(...), or a framework's own output object.",
        ),
    ],
    ids=["string", "list", "tuple", "other"],
)
def test_an_output_item_that_can_never_be_valid_says_what_it_is_and_what_to_script(
    output: list[Any], detail: str
) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([output])

    assert (info.value.reason, info.value.input_index, info.value.output_index) == (
        "invalid_output_item",
        0,
        0,
    )
    assert info.value.detail == detail


@pytest.mark.parametrize(
    ("step", "detail"),
    [
        (
            LONG_TEXT,
            f"a plain string is not a step; script [assistant_message({SHORT_REPR})] for a "
            "text reply.",
        ),
        ((assistant_message("a"),), "a step's output items go in a list, not a tuple."),
        (5, None),
    ],
    ids=["string", "tuple", "other"],
)
def test_an_input_that_is_no_step_says_what_to_script_instead(step: Any, detail: str) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([step])

    assert (info.value.reason, info.value.input_index) == ("invalid_input", 0)
    assert info.value.detail == detail


def test_a_non_bool_optional_flag_says_to_use_optional_step() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([{"type": "response", "response": [], "optional": 1}])

    assert info.value.detail == '"optional" must be True or False; use optional_step(step).'


@pytest.mark.parametrize(
    "response",
    [
        ModelResponse(output=["hi"], usage=Usage()),
        {"output": ["hi"], "usage": Usage()},
    ],
    ids=["ModelResponse", "mapping"],
)
def test_model_response_checks_the_output_items_of_a_full_response(response: Any) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([model_response(response)])

    assert (info.value.reason, info.value.output_index) == ("invalid_output_item", 0)


@pytest.mark.parametrize(
    "step",
    [
        ModelResponse(output=[], usage=Usage()),
        {"output": [], "usage": Usage()},
    ],
    ids=["ModelResponse", "mapping"],
)
async def test_a_full_response_input_is_a_response_step(step: Any) -> None:
    model = ScriptedModel([step, step])

    stream = model.stream_response(make_request())

    assert (stream.step_type, stream.automatic) == ("response", True)
    await stream.aclose()
    with pytest.raises(UnconsumedModelStepsError) as info:
        model.assert_complete()
    assert info.value.pending_steps[0]["type"] == "response"


async def test_a_usage_total_that_is_not_the_sum_is_kept() -> None:
    usage = Usage(input_tokens=1, output_tokens=2, total_tokens=10)
    model = ScriptedModel([ModelResponse(output=[], usage=usage)])

    response = await model.get_response(make_request())

    assert response.usage.total_tokens == 10


# -- _respond, the entry point of the pydantic-ai and LangChain adapters --------------------
# The adapters serve a non-streamed call through ``ScriptedModel._respond`` instead of
# ``get_response``, to see the recorded request as soon as the step is taken (they keep it and
# convert only what the next call adds). Its contract is pinned here, in the core, so that a
# change to it fails without the frameworks installed.


async def test_respond_serves_each_call_as_get_response_does_and_returns_its_index() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])
    seen: list[ModelRequest] = []

    first = await model._respond(make_request("one"), seen.append)
    second = await model._respond(make_request("two"), seen.append)

    assert first == (
        0,
        ModelResponse([assistant_message("a")], Usage(requests=1), "scripted-response-1"),
    )
    assert second == (
        1,
        ModelResponse([assistant_message("b")], Usage(requests=1), "scripted-response-2"),
    )
    assert seen == [call.request for call in model.calls]
    model.assert_complete()


async def test_respond_hands_over_the_recorded_copy_before_an_async_responder_resumes() -> None:
    request = make_request("hello", extra={"trace": ["kept"]})
    seen: list[ModelRequest] = []
    seen_while_responding: list[list[ModelRequest]] = []

    async def respond(call: RecordedModelCall) -> list[Any]:
        await asyncio.sleep(0)
        seen_while_responding.append(list(seen))
        return [assistant_message(f"call {call.index + 1}")]

    model = ScriptedModel([model_responder(respond)])

    index, response = await model._respond(request, seen.append)

    assert (index, response.output) == (0, [assistant_message("call 1")])
    [recorded] = seen
    assert seen_while_responding == [[recorded]]
    # The detached copy the call was recorded with, not the caller's request.
    assert recorded == request
    assert recorded is not request
    assert recorded.extra["trace"] is not request.extra["trace"]


async def test_respond_takes_a_synchronous_responders_result_as_it_is() -> None:
    model = ScriptedModel([model_responder(lambda call: [assistant_message("sync")])])

    index, response = await model._respond(make_request(), lambda recorded: None)

    assert (index, response.output, response.response_id) == (
        0,
        [assistant_message("sync")],
        "scripted-response-1",
    )


async def test_respond_checks_an_abort_during_the_responder_before_its_result() -> None:
    signal = Signal()

    def respond(call: RecordedModelCall) -> Any:
        signal.aborted = True
        return "not a response"

    model = ScriptedModel([model_responder(respond)])

    with pytest.raises(ScriptedModelRequestAbortedError) as info:
        await model._respond(make_request(signal=signal), lambda recorded: None)

    assert info.value.call_index == 0
    model.assert_complete()  # the abort came first: the result was never judged


async def test_respond_reports_a_responders_invalid_result_with_the_call_it_answered() -> None:
    model = ScriptedModel([[], model_responder(lambda call: "not a response")])  # type: ignore[arg-type, return-value]
    await model._respond(make_request("first"), lambda recorded: None)

    with pytest.raises(InvalidScriptedModelStepError) as info:
        await model._respond(make_request("second"), lambda recorded: None)

    assert (info.value.reason, info.value.call_index) == ("invalid_response", 1)
    assert info.value.call_summary == "last input user message 'second'; no tools"
    assert str(info.value) == (
        "ScriptedModel responder returned an invalid response for call #2. Call #2 "
        "(call_index=1) sent: last input user message 'second'; no tools: the responder must "
        "return a list of output items or a ModelResponse (with a str or None response_id and "
        "request_id)."
    )
    with pytest.raises(InvalidScriptedModelStepError):
        model.assert_complete()


# -- the wire endpoint's entry points -------------------------------------------------------
# The endpoint (agents_testing.wire) serves its requests through these private methods; its
# own tests are measured apart, so the contract it relies on is pinned here, in the core.


async def test_an_owned_request_is_recorded_as_it_is_and_any_other_request_is_copied() -> None:
    from agents_testing._records import stored_value

    model = ScriptedModel([[assistant_message(str(n))] for n in range(6)])
    owned = [make_request(f"owned {n}") for n in range(3)]
    other = [make_request(f"other {n}") for n in range(3)]

    await model._get_response(owned[0], owned=True)
    await model._get_response(other[0])
    model._begin_response(owned[1], owned=True)
    model._begin_response(other[1])
    streams = [model._stream_response(owned[2], owned=True), model._stream_response(other[2])]
    for stream in streams:
        await stream.aclose()

    sent = [owned[0], other[0], owned[1], other[1], owned[2], other[2]]
    recorded = [stored_value(call, "request") for call in model._calls]
    kept = [stored is request for stored, request in zip(recorded, sent, strict=True)]
    assert kept == [True, False] * 3
    assert recorded == sent


async def test_the_model_tells_which_request_an_error_step_raised_for() -> None:
    failure = RuntimeError("provider down")
    model = ScriptedModel([model_error(failure)])
    request = make_request()

    with pytest.raises(RuntimeError):
        await model.get_response(request)

    assert model._raised_by_error_step(failure, request) is True
    assert model._raised_by_error_step(failure, make_request()) is False
    assert model._raised_by_error_step(RuntimeError("provider down"), request) is False


async def test_a_stream_knows_whether_its_source_was_scripted_as_a_list() -> None:
    event = {"type": "response_started"}
    model = ScriptedModel(
        [
            model_stream([event]),
            model_stream((event,)),
            model_stream(iter([event])),
            [assistant_message("automatic")],
        ]
    )

    streams = [model.stream_response(make_request()) for _ in range(4)]
    for stream in streams:
        await stream.aclose()

    assert [stream._listed for stream in streams] == [True, True, False, False]


async def test_a_text_part_without_text_streams_as_one_delta_whatever_the_delta_size() -> None:
    message = {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "content": [{"type": "output_text"}],
    }
    model = ScriptedModel([[message]], text_delta_size=2)

    events = await events_of(model, make_request())

    deltas = [event for event in events if event["type"] == "output_text_delta"]
    assert deltas == [{"type": "output_text_delta", "item_id": "msg_1", "delta": None}]
