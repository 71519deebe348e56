"""ScriptedModel retry advice: when records are made, how they are matched, one use each."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agents_testing.errors import ScriptedModelRequestAbortedError, UnexpectedModelCallError
from agents_testing.items import (
    ModelRequest,
    ModelRetryAdvice,
    RetryAdviceRequest,
)
from agents_testing.model import (
    RecordedModelCall,
    ScriptedModel,
    model_error,
    model_responder,
)


def make_request(text: str = "hello", **fields: Any) -> ModelRequest:
    return ModelRequest(input=[{"role": "user", "content": text}], **fields)


def ask(
    error: BaseException, *, stream: bool = False, request: ModelRequest | None = None
) -> RetryAdviceRequest:
    return RetryAdviceRequest(error=error, stream=stream, attempt=1, request=request)


async def fail(model: ScriptedModel, request: ModelRequest, error: type[BaseException]) -> None:
    """Make a non-streaming call that the script answers with an error step."""
    with pytest.raises(error):
        await model.get_response(request)


async def fail_streamed(
    model: ScriptedModel, request: ModelRequest, error: type[BaseException]
) -> None:
    """Make a streamed call that the script answers with an error step, and read it."""
    stream: AsyncIterator[Any] = model.stream_response(request)
    with pytest.raises(error):
        await stream.__anext__()


RETRY = ModelRetryAdvice(suggested=True, retry_after=1.5, replay_safety="safe", reason="rate")


async def test_fixed_advice_is_returned_for_the_raised_error() -> None:
    error = ConnectionError("rate limited")
    request = make_request()
    model = ScriptedModel([model_error(error, RETRY)])
    await fail(model, request, ConnectionError)

    advice = model.get_retry_advice(ask(error, request=request))

    assert advice == RETRY


def test_get_retry_advice_is_synchronous() -> None:
    model = ScriptedModel()

    result = model.get_retry_advice(ask(ValueError("never raised")))

    assert result is None
    assert not inspect.isawaitable(result)


async def test_advice_is_unknown_before_the_error_is_raised() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel([model_error(error, RETRY)])

    assert model.get_retry_advice(ask(error)) is None

    await fail(model, make_request(), ConnectionError)
    assert model.get_retry_advice(ask(error)) == RETRY


async def test_advice_for_an_unknown_error_is_none() -> None:
    model = ScriptedModel([model_error(ConnectionError("scripted"), RETRY)])
    await fail(model, make_request(), ConnectionError)

    assert model.get_retry_advice(ask(ConnectionError("scripted"))) is None


async def test_fixed_advice_is_handed_out_once_per_raise() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel([model_error(error, RETRY)])
    await fail(model, make_request(), ConnectionError)

    first = model.get_retry_advice(ask(error))
    second = model.get_retry_advice(ask(error))

    assert (first, second) == (RETRY, None)


async def test_same_error_raised_twice_gives_advice_twice_in_order() -> None:
    error = ConnectionError("rate limited")
    first_advice = ModelRetryAdvice(suggested=True, reason="first")
    second_advice = ModelRetryAdvice(suggested=False, reason="second")
    model = ScriptedModel([model_error(error, first_advice), model_error(error, second_advice)])
    await fail(model, make_request(), ConnectionError)
    await fail(model, make_request(), ConnectionError)

    answers = [model.get_retry_advice(ask(error)) for _ in range(3)]

    assert answers == [first_advice, second_advice, None]


async def test_error_step_without_advice_still_makes_a_record() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel([model_error(error), model_error(error, RETRY)])
    await fail(model, make_request(), ConnectionError)
    await fail(model, make_request(), ConnectionError)

    answers = [model.get_retry_advice(ask(error)) for _ in range(2)]

    assert answers == [None, RETRY]


async def test_fixed_advice_is_copied_when_enqueued() -> None:
    error = ConnectionError("rate limited")
    original = ModelRetryAdvice(suggested=True, provider_data={"headers": ["retry-after"]})
    model = ScriptedModel([model_error(error, original)])

    original.suggested = False
    original.provider_data["headers"].append("changed")
    await fail(model, make_request(), ConnectionError)
    advice = model.get_retry_advice(ask(error))

    assert advice is not original
    assert advice == ModelRetryAdvice(suggested=True, provider_data={"headers": ["retry-after"]})


async def test_callback_advice_receives_the_very_advice_request() -> None:
    error = ConnectionError("rate limited")
    seen: list[RetryAdviceRequest] = []

    def advise(request: RetryAdviceRequest) -> ModelRetryAdvice:
        seen.append(request)
        return ModelRetryAdvice(suggested=request.attempt < 3, reason=f"attempt {request.attempt}")

    request = make_request()
    model = ScriptedModel([model_error(error, advise)])
    await fail(model, request, ConnectionError)
    query = RetryAdviceRequest(error=error, stream=False, attempt=2, request=request)

    advice = model.get_retry_advice(query)

    assert advice == ModelRetryAdvice(suggested=True, reason="attempt 2")
    assert len(seen) == 1
    assert seen[0] is query


async def test_callback_advice_may_return_none() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel([model_error(error, lambda request: None)])
    await fail(model, make_request(), ConnectionError)

    assert model.get_retry_advice(ask(error)) is None


async def test_callback_advice_is_used_once_per_raise() -> None:
    error = ConnectionError("rate limited")
    calls: list[RetryAdviceRequest] = []

    def advise(request: RetryAdviceRequest) -> ModelRetryAdvice:
        calls.append(request)
        return RETRY

    model = ScriptedModel([model_error(error, advise)])
    await fail(model, make_request(), ConnectionError)

    answers = [model.get_retry_advice(ask(error)) for _ in range(2)]

    assert answers == [RETRY, None]
    assert len(calls) == 1


async def test_callback_exception_propagates_and_consumes_the_record() -> None:
    error = ConnectionError("rate limited")
    failure = RuntimeError("advice callback broke")

    def advise(request: RetryAdviceRequest) -> ModelRetryAdvice:
        raise failure

    model = ScriptedModel([model_error(error, advise)])
    await fail(model, make_request(), ConnectionError)

    with pytest.raises(RuntimeError) as exc_info:
        model.get_retry_advice(ask(error))

    assert exc_info.value is failure
    assert model.get_retry_advice(ask(error)) is None


async def test_advice_in_the_other_mode_does_not_match_and_is_kept() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel([model_error(error, RETRY)])
    await fail(model, make_request(), ConnectionError)

    streamed_answer = model.get_retry_advice(ask(error, stream=True))
    non_streamed_answer = model.get_retry_advice(ask(error, stream=False))

    assert (streamed_answer, non_streamed_answer) == (None, RETRY)


async def test_streamed_error_makes_its_record_on_first_read() -> None:
    error = ConnectionError("stream failed")
    model = ScriptedModel([model_error(error, RETRY)])
    stream = model.stream_response(make_request())

    before_read = model.get_retry_advice(ask(error, stream=True))
    with pytest.raises(ConnectionError):
        await stream.__anext__()
    after_read = model.get_retry_advice(ask(error, stream=True))

    assert (before_read, after_read) == (None, RETRY)


async def test_streamed_error_record_does_not_answer_a_non_streaming_query() -> None:
    error = ConnectionError("stream failed")
    model = ScriptedModel([model_error(error, RETRY)])
    await fail_streamed(model, make_request(), ConnectionError)

    assert model.get_retry_advice(ask(error, stream=False)) is None
    assert model.get_retry_advice(ask(error, stream=True)) == RETRY


async def test_matching_skips_records_of_the_other_mode() -> None:
    error = ConnectionError("rate limited")
    streamed_advice = ModelRetryAdvice(reason="streamed")
    model = ScriptedModel([model_error(error, RETRY), model_error(error, streamed_advice)])
    await fail(model, make_request(), ConnectionError)
    await fail_streamed(model, make_request(), ConnectionError)

    assert model.get_retry_advice(ask(error, stream=True)) == streamed_advice
    assert model.get_retry_advice(ask(error, stream=False)) == RETRY


async def test_record_for_the_same_request_object_is_preferred() -> None:
    error = ConnectionError("rate limited")
    first_request, second_request = make_request("one"), make_request("two")
    model = ScriptedModel(
        [
            model_error(error, ModelRetryAdvice(reason="first")),
            model_error(error, ModelRetryAdvice(reason="second")),
        ]
    )
    await fail(model, first_request, ConnectionError)
    await fail(model, second_request, ConnectionError)

    advice = model.get_retry_advice(ask(error, request=second_request))

    assert advice == ModelRetryAdvice(reason="second")
    assert model.get_retry_advice(ask(error, request=first_request)) == ModelRetryAdvice(
        reason="first"
    )


async def test_same_request_object_beats_an_older_record_with_the_same_inputs() -> None:
    error = ConnectionError("rate limited")
    request = make_request()
    same_inputs = dataclasses.replace(request, system_instructions="other object")
    model = ScriptedModel(
        [
            model_error(error, ModelRetryAdvice(reason="same inputs")),
            model_error(error, ModelRetryAdvice(reason="same object")),
        ]
    )
    await fail(model, same_inputs, ConnectionError)
    await fail(model, request, ConnectionError)

    advice = model.get_retry_advice(ask(error, request=request))

    assert advice == ModelRetryAdvice(reason="same object")


async def test_record_for_a_request_with_the_same_inputs_comes_next() -> None:
    error = ConnectionError("rate limited")
    first_request, second_request = make_request("one"), make_request("two")
    model = ScriptedModel(
        [
            model_error(error, ModelRetryAdvice(reason="first")),
            model_error(error, ModelRetryAdvice(reason="second")),
        ]
    )
    await fail(model, first_request, ConnectionError)
    await fail(model, second_request, ConnectionError)
    # A runner that rebuilt the request object but kept the same input, settings, tools
    # and handoffs objects.
    rebuilt = dataclasses.replace(second_request, system_instructions="retry")

    advice = model.get_retry_advice(ask(error, request=rebuilt))

    assert advice == ModelRetryAdvice(reason="second")


async def test_equal_string_inputs_count_as_the_same_input() -> None:
    error = ConnectionError("rate limited")
    settings: dict[str, Any] = {}
    first_request = ModelRequest(input="first", model_settings=settings)
    second_request = ModelRequest(input="".join(["sec", "ond"]), model_settings=settings)
    model = ScriptedModel(
        [
            model_error(error, ModelRetryAdvice(reason="first")),
            model_error(error, ModelRetryAdvice(reason="second")),
        ]
    )
    await fail(model, first_request, ConnectionError)
    await fail(model, second_request, ConnectionError)
    rebuilt = ModelRequest(input="second", model_settings=settings)

    advice = model.get_retry_advice(ask(error, request=rebuilt))

    assert advice == ModelRetryAdvice(reason="second")


@pytest.mark.parametrize("changed_field", ["input", "model_settings", "tools", "handoffs"])
async def test_equal_but_distinct_inputs_fall_back_to_the_oldest_record(
    changed_field: str,
) -> None:
    error = ConnectionError("rate limited")
    first_request = make_request("one")
    second_request = make_request(
        "two", model_settings={"temperature": 0}, tools=[{"name": "t"}], handoffs=[{"name": "h"}]
    )
    model = ScriptedModel(
        [
            model_error(error, ModelRetryAdvice(reason="first")),
            model_error(error, ModelRetryAdvice(reason="second")),
        ]
    )
    await fail(model, first_request, ConnectionError)
    await fail(model, second_request, ConnectionError)
    equal_copy = type(getattr(second_request, changed_field))(
        getattr(second_request, changed_field)
    )
    rebuilt = dataclasses.replace(second_request, **{changed_field: equal_copy})

    advice = model.get_retry_advice(ask(error, request=rebuilt))

    assert advice == ModelRetryAdvice(reason="first")


async def test_query_without_request_takes_the_oldest_record_of_its_mode() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel(
        [
            model_error(error, ModelRetryAdvice(reason="first")),
            model_error(error, ModelRetryAdvice(reason="second")),
        ]
    )
    await fail(model, make_request("one"), ConnectionError)
    await fail(model, make_request("two"), ConnectionError)

    assert model.get_retry_advice(ask(error)) == ModelRetryAdvice(reason="first")


async def test_attempt_plays_no_part_in_matching() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel([model_error(error, RETRY)])
    await fail(model, make_request(), ConnectionError)

    query = RetryAdviceRequest(error=error, stream=False, attempt=99)

    assert model.get_retry_advice(query) == RETRY


async def test_overlapping_failures_are_told_apart_by_request() -> None:
    error = ConnectionError("rate limited")
    second_asked = asyncio.Event()
    model = ScriptedModel(
        [
            model_error(error, ModelRetryAdvice(reason="first")),
            model_error(error, ModelRetryAdvice(reason="second")),
        ]
    )

    async def first_attempt(request: ModelRequest) -> ModelRetryAdvice | None:
        with pytest.raises(ConnectionError):
            await model.get_response(request)
        await second_asked.wait()  # the later failure asks first
        return model.get_retry_advice(ask(error, request=request))

    async def second_attempt(request: ModelRequest) -> ModelRetryAdvice | None:
        with pytest.raises(ConnectionError):
            await model.get_response(request)
        advice = model.get_retry_advice(ask(error, request=request))
        second_asked.set()
        return advice

    first, second = await asyncio.gather(
        first_attempt(make_request("one")), second_attempt(make_request("two"))
    )

    assert first == ModelRetryAdvice(reason="first")
    assert second == ModelRetryAdvice(reason="second")


async def test_responder_exception_makes_no_advice_record() -> None:
    error = ConnectionError("from a responder")

    def respond(call: RecordedModelCall) -> list[Any]:
        raise error

    model = ScriptedModel([model_responder(respond), model_error(error, RETRY)])
    await fail(model, make_request(), ConnectionError)
    await fail(model, make_request(), ConnectionError)

    # Had the responder's raise been recorded, the oldest record (without advice) would answer.
    assert model.get_retry_advice(ask(error)) == RETRY


async def test_streamed_error_aborted_before_first_read_makes_no_advice_record() -> None:
    error = ConnectionError("stream failed")

    class Signal:
        aborted = False

    signal = Signal()
    model = ScriptedModel(
        [model_error(error, ModelRetryAdvice(reason="aborted")), model_error(error, RETRY)]
    )
    stream = model.stream_response(make_request(signal=signal))
    signal.aborted = True
    with pytest.raises(ScriptedModelRequestAbortedError):
        await stream.__anext__()
    signal.aborted = False
    await fail_streamed(model, make_request(signal=signal), ConnectionError)

    assert model.get_retry_advice(ask(error, stream=True)) == RETRY
    assert model.get_retry_advice(ask(error, stream=True)) is None


async def test_unexpected_call_makes_no_advice_record() -> None:
    model = ScriptedModel()
    with pytest.raises(UnexpectedModelCallError) as exc_info:
        await model.get_response(make_request())

    assert model.get_retry_advice(ask(exc_info.value)) is None
