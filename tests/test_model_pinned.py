"""ScriptedModel behaviors that mutation testing found no test pinned.

Retry advice that is not synchronous, a ``Usage`` broken after it was built, request and
response fields carried through, raw usage with shared parts, automatic streaming past items
it cannot stream, and the stream's attributes, reprs and frozen records.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Generator
from typing import Any

import pytest

from agents_testing.errors import InvalidScriptedModelStepError
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
)


def make_request(text: str = "hello", **fields: Any) -> ModelRequest:
    return ModelRequest(input=[{"role": "user", "content": text}], **fields)


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
    model = ScriptedModel([model_error(error, retry_advice=lambda request: Later())])
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
            [model_response([]), model_error(RuntimeError(), retry_advice=AsyncAdvisor())]
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


@pytest.mark.parametrize("form", ["ModelResponse", "mapping"])
def test_a_scripted_response_whose_usage_was_broken_after_construction_is_refused(
    form: str,
) -> None:
    usage = broken_usage()
    response: Any = (
        ModelResponse(output=[], usage=usage)
        if form == "ModelResponse"
        else {"output": [], "usage": usage}
    )

    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([model_response([]), model_response(response)])

    error = info.value
    assert error.reason == "invalid_response"
    assert error.input_index == 1
    assert str(error) == (
        "ScriptedModel input #2 has an invalid response envelope. Input #2 (input_index=1): "
        "a response is a list of output items, or ModelResponse(output=[...], usage=Usage())."
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
    assert str(error).startswith(
        "ScriptedModel responder returned an invalid response for call #1. Call #1 (call_index=0)"
    )
    assert str(error).endswith(
        "the responder must return a list of output items or a ModelResponse."
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
