"""ScriptedModel: script validation, call records, non-streaming calls, strictness and aborts.

Streaming lives in test_model_stream.py and retry advice in test_model_retry.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import types
from collections.abc import Generator, Iterator, Mapping
from typing import Any

import pytest

from agents_testing.errors import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ScriptedModelRequestAbortedError,
    UnconsumedModelStepsError,
    UnexpectedModelCallError,
)
from agents_testing.items import (
    ModelRequest,
    ModelResponse,
    ModelRetryAdvice,
    RetryAdviceRequest,
    Usage,
    assistant_message,
    function_call,
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


def shorthand_response(text: str, call_number: int) -> ModelResponse:
    """The response a ``[assistant_message(text)]`` step gives call number ``call_number``."""
    return ModelResponse(
        output=[assistant_message(text)],
        usage=Usage(requests=1),
        response_id=f"scripted-response-{call_number}",
    )


class Signal:
    """A minimal abort signal: anything with a truthy ``aborted`` attribute."""

    def __init__(self) -> None:
        self.aborted: object = False  # any truthy value counts


class AbortAfter:
    """A signal that lets the first ``checks`` abort checks pass and then reports aborted."""

    def __init__(self, checks: int) -> None:
        self.checks = checks
        self.reads = 0

    @property
    def aborted(self) -> bool:
        self.reads += 1
        return self.reads > self.checks


async def async_advice(request: RetryAdviceRequest) -> ModelRetryAdvice:
    return ModelRetryAdvice(suggested=True)


class StepLikeMapping(Mapping[str, Any]):
    """A read-only Mapping that is not a dict, to show any Mapping counts as a step."""

    def __init__(self, **data: Any) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class NonCallableAsyncIter:
    """Has ``__aiter__``, but not as a method: not an async iterable."""

    __aiter__ = 1


class IterationDisabled:
    """Sets ``__iter__`` to None, Python's way to say a type is not iterable."""

    __iter__ = None


def invalid_input(position: int = 1) -> str:
    return f"ScriptedModel input #{position} is invalid (invalid input)."


ENVELOPE = "ScriptedModel input #1 has an invalid response envelope."
UNKNOWN_STEP_TYPE = "ScriptedModel input #1 is invalid (unknown step type)."
MISSING_RESPONSE = "ScriptedModel input #1 is invalid (missing response)."
MISSING_ERROR = "ScriptedModel input #1 is invalid (missing error)."
INVALID_ERROR = "ScriptedModel input #1 is invalid (invalid error)."
INVALID_ADVICE = "ScriptedModel input #1 is invalid (invalid retry advice)."
MISSING_RESPONDER = "ScriptedModel input #1 is invalid (missing responder)."
INVALID_STREAM = "ScriptedModel input #1 is invalid (invalid stream)."

# (input, reason, step_type, message) for an input at position 0 of its constructor/enqueue call.
# Each input is malformed on purpose: the type: ignores mark where the annotations refuse it.
MALFORMED_INPUTS = [
    pytest.param(None, "invalid_input", None, invalid_input(), id="none"),
    pytest.param(42, "invalid_input", None, invalid_input(), id="number"),
    pytest.param("hi", "invalid_input", None, invalid_input(), id="string"),
    pytest.param(b"hi", "invalid_input", None, invalid_input(), id="bytes"),
    pytest.param(
        (assistant_message("hi"),), "invalid_input", None, invalid_input(), id="tuple-of-items"
    ),
    pytest.param(lambda call: [], "invalid_input", None, invalid_input(), id="bare-function"),
    pytest.param(object(), "invalid_input", None, invalid_input(), id="plain-object"),
    pytest.param(ValueError("boom"), "invalid_input", None, invalid_input(), id="bare-exception"),
    pytest.param({}, "invalid_input", None, invalid_input(), id="empty-mapping"),
    pytest.param(
        {"role": "assistant"}, "invalid_input", None, invalid_input(), id="mapping-without-type"
    ),
    pytest.param(
        StepLikeMapping(role="assistant"),
        "invalid_input",
        None,
        invalid_input(),
        id="custom-mapping-without-type",
    ),
    pytest.param({"type": None}, "unknown_step_type", None, UNKNOWN_STEP_TYPE, id="type-none"),
    pytest.param({"type": 5}, "unknown_step_type", None, UNKNOWN_STEP_TYPE, id="type-number"),
    pytest.param({"type": ""}, "unknown_step_type", "", UNKNOWN_STEP_TYPE, id="type-empty"),
    pytest.param(
        {"type": ["response"]}, "unknown_step_type", None, UNKNOWN_STEP_TYPE, id="type-list"
    ),
    pytest.param(
        assistant_message("hi"),
        "unknown_step_type",
        "message",
        'ScriptedModel input #1 has unknown type "message".',
        id="bare-output-item",
    ),
    pytest.param(
        {"type": "Response", "response": []},
        "unknown_step_type",
        "Response",
        'ScriptedModel input #1 has unknown type "Response".',
        id="type-wrong-case",
    ),
    pytest.param(
        {"type": "response"}, "missing_response", "response", MISSING_RESPONSE, id="no-response"
    ),
    pytest.param(model_response(None), "invalid_response", None, ENVELOPE, id="response-none"),  # type: ignore[arg-type]
    pytest.param(
        model_response((assistant_message("hi"),)),  # type: ignore[arg-type]
        "invalid_response",
        None,
        ENVELOPE,
        id="response-tuple",
    ),
    pytest.param(
        model_response({"output": []}),
        "invalid_response",
        None,
        ENVELOPE,
        id="response-envelope-without-usage",
    ),
    pytest.param(
        model_response(ModelResponse(output=(), usage=Usage())),  # type: ignore[arg-type]
        "invalid_response",
        None,
        ENVELOPE,
        id="response-output-not-list",
    ),
    pytest.param(
        ModelResponse(output=[], usage={"requests": 1}),  # type: ignore[arg-type]
        "invalid_response",
        None,
        ENVELOPE,
        id="model-response-usage-not-usage",
    ),
    pytest.param(
        ModelResponse(output=None, usage=Usage()),  # type: ignore[arg-type]
        "invalid_response",
        None,
        ENVELOPE,
        id="model-response-output-none",
    ),
    pytest.param({"output": []}, "invalid_response", None, ENVELOPE, id="envelope-output-only"),
    pytest.param({"usage": Usage()}, "invalid_response", None, ENVELOPE, id="envelope-usage-only"),
    pytest.param(
        {"output": "hi", "usage": Usage()},
        "invalid_response",
        None,
        ENVELOPE,
        id="envelope-output-not-list",
    ),
    pytest.param(
        {"output": [], "usage": {"requests": 1}},
        "invalid_response",
        None,
        ENVELOPE,
        id="envelope-usage-not-usage",
    ),
    pytest.param(
        ModelResponse(output=[], usage=Usage(), response_id=5),  # type: ignore[arg-type]
        "invalid_response",
        None,
        ENVELOPE,
        id="model-response-id-not-text",
    ),
    pytest.param(
        ModelResponse(output=[], usage=Usage(), request_id=1),  # type: ignore[arg-type]
        "invalid_response",
        None,
        ENVELOPE,
        id="model-response-request-id-not-text",
    ),
    pytest.param(
        {"output": [], "usage": Usage(), "response_id": 5},
        "invalid_response",
        None,
        ENVELOPE,
        id="envelope-id-not-text",
    ),
    pytest.param(
        {"output": [], "usage": Usage(), "request_id": b"req_1"},
        "invalid_response",
        None,
        ENVELOPE,
        id="envelope-request-id-not-text",
    ),
    pytest.param({"type": "error"}, "missing_error", "error", MISSING_ERROR, id="no-error"),
    pytest.param(model_error(None), "invalid_error", "error", INVALID_ERROR, id="error-none"),  # type: ignore[arg-type]
    pytest.param(model_error("boom"), "invalid_error", "error", INVALID_ERROR, id="error-string"),  # type: ignore[arg-type]
    pytest.param(
        model_error(ValueError),  # type: ignore[arg-type]
        "invalid_error",
        "error",
        INVALID_ERROR,
        id="error-class-not-instance",
    ),
    pytest.param(
        model_error(ValueError("boom"), 5),  # type: ignore[arg-type]
        "invalid_retry_advice",
        "error",
        INVALID_ADVICE,
        id="advice-number",
    ),
    pytest.param(
        model_error(ValueError("boom"), {"suggested": True}),  # type: ignore[arg-type]
        "invalid_retry_advice",
        "error",
        INVALID_ADVICE,
        id="advice-mapping",
    ),
    pytest.param(
        model_error(ValueError("boom"), async_advice),  # type: ignore[arg-type]
        "invalid_retry_advice",
        "error",
        INVALID_ADVICE,
        id="advice-async-callback",
    ),
    pytest.param(
        {"type": "responder"}, "missing_responder", "responder", MISSING_RESPONDER, id="no-respond"
    ),
    pytest.param(
        model_responder(None),  # type: ignore[arg-type]
        "missing_responder",
        "responder",
        MISSING_RESPONDER,
        id="respond-none",
    ),
    pytest.param(
        model_responder([assistant_message("hi")]),  # type: ignore[arg-type]
        "missing_responder",
        "responder",
        MISSING_RESPONDER,
        id="respond-not-callable",
    ),
    pytest.param(
        {"type": "stream_responder"},
        "missing_responder",
        "stream_responder",
        MISSING_RESPONDER,
        id="no-stream-respond",
    ),
    pytest.param(
        model_stream_responder(5),  # type: ignore[arg-type]
        "missing_responder",
        "stream_responder",
        MISSING_RESPONDER,
        id="stream-respond-not-callable",
    ),
    pytest.param({"type": "stream"}, "invalid_stream", "stream", INVALID_STREAM, id="no-events"),
    pytest.param(model_stream(None), "invalid_stream", "stream", INVALID_STREAM, id="events-none"),  # type: ignore[arg-type]
    pytest.param(model_stream(5), "invalid_stream", "stream", INVALID_STREAM, id="events-number"),  # type: ignore[arg-type]
    pytest.param(
        model_stream("abc"), "invalid_stream", "stream", INVALID_STREAM, id="events-string"
    ),
    pytest.param(
        model_stream(b"abc"), "invalid_stream", "stream", INVALID_STREAM, id="events-bytes"
    ),
    pytest.param(
        model_stream({"type": "response_started"}),
        "invalid_stream",
        "stream",
        INVALID_STREAM,
        id="events-single-event-mapping",
    ),
    pytest.param(
        model_stream(NonCallableAsyncIter()),  # type: ignore[arg-type]
        "invalid_stream",
        "stream",
        INVALID_STREAM,
        id="events-aiter-not-callable",
    ),
    pytest.param(
        model_stream(IterationDisabled()),  # type: ignore[arg-type]
        "invalid_stream",
        "stream",
        INVALID_STREAM,
        id="events-iter-set-to-none",
    ),
]


# -- script validation ---------------------------------------------------------------------


@pytest.mark.parametrize(("value", "reason", "step_type", "message"), MALFORMED_INPUTS)
def test_enqueue_rejects_malformed_input_with_reason_and_message(
    value: Any, reason: str, step_type: str | None, message: str
) -> None:
    model = ScriptedModel()

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.enqueue(value)

    error = exc_info.value
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        reason,
        0,
        None,
        step_type,
    )
    assert str(error).startswith(message)


@pytest.mark.parametrize(("value", "reason", "step_type", "message"), MALFORMED_INPUTS)
def test_constructor_rejects_malformed_input_at_its_position(
    value: Any, reason: str, step_type: str | None, message: str
) -> None:
    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        ScriptedModel([[assistant_message("fine")], value])

    error = exc_info.value
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        reason,
        1,
        None,
        step_type,
    )
    assert str(error).startswith(message.replace("input #1", "input #2"))


@pytest.mark.parametrize(("value", "reason", "step_type", "message"), MALFORMED_INPUTS)
async def test_rejected_enqueue_leaves_the_model_unchanged(
    value: Any, reason: str, step_type: str | None, message: str
) -> None:
    model = ScriptedModel([[assistant_message("first")], [assistant_message("second")]])
    await model.get_response(make_request())

    with pytest.raises(InvalidScriptedModelStepError):
        model.enqueue([assistant_message("extra")], value)

    assert model.remaining_steps == 1
    assert len(model.calls) == 1
    assert await model.get_response(make_request()) == shorthand_response("second", 2)
    model.assert_complete()


def test_enqueue_input_index_counts_within_that_enqueue_call() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.enqueue([assistant_message("c")], [assistant_message("d")], {"type": "bogus"})

    assert exc_info.value.input_index == 2
    assert str(exc_info.value).startswith('ScriptedModel input #3 has unknown type "bogus".')


def test_enqueue_is_all_or_nothing() -> None:
    model = ScriptedModel()

    with pytest.raises(InvalidScriptedModelStepError):
        model.enqueue([assistant_message("a")], [assistant_message("b")], None)  # type: ignore[arg-type]

    assert model.remaining_steps == 0
    model.assert_complete()


def test_enqueue_without_inputs_adds_nothing() -> None:
    model = ScriptedModel()

    model.enqueue()

    assert model.remaining_steps == 0


async def test_enqueue_of_one_list_adds_one_step_with_every_item() -> None:
    model = ScriptedModel()

    model.enqueue([assistant_message("a"), assistant_message("b")])

    assert model.remaining_steps == 1
    response = await model.get_response(make_request())
    assert response.output == [assistant_message("a"), assistant_message("b")]


def test_rejected_malformed_step_is_not_a_violation_for_assert_complete() -> None:
    model = ScriptedModel()

    with pytest.raises(InvalidScriptedModelStepError):
        model.enqueue({"type": "bogus"})

    model.assert_complete()


def test_a_recorded_violation_is_raised_again_by_assert_complete() -> None:
    model = ScriptedModel()
    refused = InvalidScriptedModelOutputError(0, 1, "reasoning", "no part for it", "my-adapter")
    later = UnexpectedModelCallError(3, streamed=False)

    # An adapter raises what it records: the same object comes back.
    assert model.record_violation(refused) is refused
    assert model.record_violation(later) is later

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        model.assert_complete()
    # The first violation, as a new error with the same fields, caused by the recorded one.
    error = raised.value
    assert error is not refused
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        1,
        "reasoning",
        "my-adapter",
    )
    assert error.__cause__ is refused


@pytest.mark.parametrize("error", [ValueError("not structured"), "text", None])
def test_record_violation_refuses_anything_but_a_model_violation(error: Any) -> None:
    model = ScriptedModel()

    with pytest.raises(TypeError) as raised:
        model.record_violation(error)

    assert str(raised.value) == (
        "ScriptedModel.record_violation() error must be an UnexpectedModelCallError, "
        "InvalidScriptedModelStepError or InvalidScriptedModelOutputError, got "
        f"{type(error).__name__}."
    )
    model.assert_complete()


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param(None, id="none"),
        pytest.param(5, id="number"),
        pytest.param(model_response([assistant_message("hi")]), id="single-step-mapping"),
        pytest.param({"output": [], "usage": Usage()}, id="single-envelope-mapping"),
        pytest.param(ModelResponse(output=[], usage=Usage()), id="single-model-response"),
    ],
)
def test_constructor_refuses_a_non_iterable_or_single_step_with_type_error(steps: Any) -> None:
    with pytest.raises(TypeError) as exc_info:
        ScriptedModel(steps)

    assert type(exc_info.value) is TypeError


def test_constructor_iterates_a_string_and_rejects_its_first_character() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        ScriptedModel("hi")  # type: ignore[arg-type]

    assert (exc_info.value.reason, exc_info.value.input_index) == ("invalid_input", 0)
    assert str(exc_info.value).startswith(invalid_input(1))


async def test_constructor_accepts_any_iterable_of_steps() -> None:
    model = ScriptedModel(iter([[assistant_message("a")], [assistant_message("b")]]))

    assert model.remaining_steps == 2
    assert await model.get_response(make_request()) == shorthand_response("a", 1)


@pytest.mark.parametrize(
    "step",
    [
        pytest.param([assistant_message("hi")], id="output-shorthand"),
        pytest.param(model_response([assistant_message("hi")]), id="model-response-list"),
        pytest.param(
            {"type": "response", "response": [assistant_message("hi")]}, id="mapping-step"
        ),
        pytest.param(
            types.MappingProxyType({"type": "response", "response": [assistant_message("hi")]}),
            id="read-only-mapping-step",
        ),
        pytest.param(
            StepLikeMapping(type="response", response=[assistant_message("hi")]),
            id="custom-mapping-step",
        ),
    ],
)
async def test_every_form_of_a_list_response_step_gives_the_shorthand_response(
    step: Any,
) -> None:
    model = ScriptedModel([step])

    response = await model.get_response(make_request())

    assert response == shorthand_response("hi", 1)


@pytest.mark.parametrize(
    "step",
    [
        pytest.param(
            ModelResponse(output=[assistant_message("hi")], usage=Usage(input_tokens=3)),
            id="model-response",
        ),
        pytest.param(
            model_response(
                ModelResponse(output=[assistant_message("hi")], usage=Usage(input_tokens=3))
            ),
            id="model-response-step",
        ),
        pytest.param(
            {"output": [assistant_message("hi")], "usage": Usage(input_tokens=3)},
            id="envelope-mapping",
        ),
        pytest.param(
            model_response({"output": [assistant_message("hi")], "usage": Usage(input_tokens=3)}),
            id="envelope-mapping-step",
        ),
    ],
)
async def test_every_form_of_a_full_response_step_gives_that_response(step: Any) -> None:
    model = ScriptedModel([step])

    response = await model.get_response(make_request())

    assert response == ModelResponse(output=[assistant_message("hi")], usage=Usage(input_tokens=3))


async def test_envelope_mapping_keeps_ids_and_provider_data() -> None:
    model = ScriptedModel(
        [
            {
                "output": [],
                "usage": Usage(),
                "response_id": "resp-1",
                "request_id": "req-1",
                "provider_data": {"region": "eu"},
            }
        ]
    )

    response = await model.get_response(make_request())

    assert (response.response_id, response.request_id, response.provider_data) == (
        "resp-1",
        "req-1",
        {"region": "eu"},
    )


# -- call records ---------------------------------------------------------------------------


def test_new_model_has_no_calls() -> None:
    model = ScriptedModel()

    assert model.calls == ()
    assert model.first_call is None
    assert model.last_call is None


async def test_calls_record_index_streamed_flag_and_request_in_call_order() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])
    first, second = make_request("one"), make_request("two")

    await model.get_response(first)
    [event async for event in model.stream_response(second)]

    calls = model.calls
    assert [(call.index, call.streamed) for call in calls] == [(0, False), (1, True)]
    assert [call.request for call in calls] == [first, second]
    assert model.first_call == calls[0]
    assert model.last_call == calls[1]


async def test_first_and_last_call_are_the_same_record_for_a_single_call() -> None:
    model = ScriptedModel([[assistant_message("a")]])

    await model.get_response(make_request())

    assert model.first_call == model.last_call == RecordedModelCall(0, False, make_request())


async def test_recorded_request_is_not_changed_by_mutating_the_callers_request() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    # The caller keeps its own containers and changes them after the call.
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    settings: dict[str, Any] = {"temperature": 0.0, "stop": ["x"]}
    tools = [{"name": "lookup"}]
    handoffs = [{"name": "billing"}]
    prompt: dict[str, Any] = {"id": "p1", "variables": {"a": 1}}
    extra = {"trace": ["t"]}
    request = ModelRequest(
        input=messages,
        model_settings=settings,
        tools=tools,
        handoffs=handoffs,
        prompt=prompt,
        extra=extra,
    )

    await model.get_response(request)
    messages.append({"role": "user", "content": "later"})
    messages[0]["content"] = "changed"
    settings["stop"].append("y")
    settings["temperature"] = 1.0
    tools[0]["name"] = "changed"
    handoffs.append({"name": "other"})
    prompt["variables"]["a"] = 2
    extra["trace"].append("u")

    recorded = model.calls[0].request
    assert recorded.input == [{"role": "user", "content": "hi"}]
    assert recorded.model_settings == {"temperature": 0.0, "stop": ["x"]}
    assert recorded.tools == [{"name": "lookup"}]
    assert recorded.handoffs == [{"name": "billing"}]
    assert recorded.prompt == {"id": "p1", "variables": {"a": 1}}
    assert recorded.extra == {"trace": ["t"]}


async def test_mutating_a_returned_request_does_not_change_later_reads() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request("hi", model_settings={"stop": ["x"]}))

    returned = model.calls[0].request
    assert isinstance(returned.input, list)
    returned.input.append({"role": "user", "content": "injected"})
    returned.input[0]["content"] = "changed"
    returned.model_settings["stop"].append("y")

    assert model.calls[0].request == make_request("hi", model_settings={"stop": ["x"]})
    assert model.first_call is not None
    assert model.first_call.request == make_request("hi", model_settings={"stop": ["x"]})


async def test_each_read_of_request_gives_new_detached_objects() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request())

    first_read, second_read = model.calls, model.calls

    assert first_read[0].request is not second_read[0].request
    assert first_read[0].request.input is not second_read[0].request.input
    assert model.last_call is not None
    assert model.last_call.request is not model.last_call.request


async def test_one_record_is_built_per_call_and_handed_out_on_every_read() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request())

    assert model.calls[0] is model.calls[0] is model.first_call is model.last_call


async def test_mutating_a_read_request_changes_neither_the_record_nor_the_next_read() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request())
    call = model.calls[0]

    request = call.request
    assert isinstance(request.input, list)
    request.input.append({"role": "user", "content": "not kept"})
    request.input[0]["content"] = "changed"

    assert call.request == make_request()
    assert model.calls[0].request == make_request()


async def test_recorded_request_keeps_runtime_objects_by_identity() -> None:
    class Tool:
        pass

    signal, output_type, tracing, tool = threading.Event(), object(), object(), Tool()

    def callback() -> None:
        pass

    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(
        ModelRequest(
            input=[{"role": "user", "content": "hi", "callback": callback}],
            tools=[tool],
            output_type=output_type,
            tracing=tracing,
            signal=signal,
        )
    )

    recorded = model.calls[0].request
    assert recorded.signal is signal
    assert recorded.output_type is output_type
    assert recorded.tracing is tracing
    assert recorded.tools[0] is tool
    assert isinstance(recorded.input, list)
    assert recorded.input[0]["callback"] is callback


async def test_recorded_request_copies_containers_structurally() -> None:
    request = ModelRequest(
        input=[{"role": "user", "content": "hi"}],
        model_settings={"stop": ["x"]},
        tools=[{"name": "lookup"}],
        handoffs=[{"name": "billing"}],
        prompt={"id": "p1"},
        extra={"trace": ["t"]},
    )
    model = ScriptedModel([[assistant_message("a")]])

    await model.get_response(request)

    recorded = model.calls[0].request
    for name in ("input", "model_settings", "tools", "handoffs", "prompt", "extra"):
        assert getattr(recorded, name) == getattr(request, name), name
        assert getattr(recorded, name) is not getattr(request, name), name
    assert recorded.tools[0] is not request.tools[0]


async def test_recorded_request_keeps_cycles_in_the_input() -> None:
    conversation: list[Any] = [{"role": "user", "content": "hi"}]
    conversation.append(conversation)
    model = ScriptedModel([[assistant_message("a")]])

    await model.get_response(ModelRequest(input=conversation))

    recorded = model.calls[0].request.input
    assert recorded is not conversation
    assert recorded[1] is recorded
    assert recorded[0] == {"role": "user", "content": "hi"}


async def test_recorded_request_keeps_shared_references_shared() -> None:
    shared = {"role": "user", "content": "hi"}
    model = ScriptedModel([[assistant_message("a")]])

    await model.get_response(ModelRequest(input=[shared, shared]))

    recorded = model.calls[0].request.input
    assert recorded[0] is recorded[1]
    assert recorded[0] is not shared


async def test_call_record_can_be_built_with_keyword_fields_to_compare() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request())

    expected = RecordedModelCall(index=0, streamed=False, request=make_request())

    assert model.calls[0] == expected


async def test_call_record_fields_are_read_only() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request())
    call = model.calls[0]

    # Each write is refused by the type checker too: the test proves it fails at run time.
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.index = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.request = make_request("other")  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.request.input = "other"  # type: ignore[misc]


async def test_get_response_refuses_a_request_that_is_not_a_model_request() -> None:
    model = ScriptedModel([[assistant_message("a")]])

    with pytest.raises(TypeError):
        await model.get_response({"input": "hi"})  # type: ignore[arg-type]

    assert model.calls == ()
    assert model.remaining_steps == 1


# -- non-streaming responses ------------------------------------------------------------------


async def test_shorthand_response_has_scripted_id_and_one_request_usage() -> None:
    model = ScriptedModel([[assistant_message("hi")]])

    response = await model.get_response(make_request())

    assert response.output == [assistant_message("hi")]
    assert response.response_id == "scripted-response-1"
    assert response.usage == Usage(
        requests=1,
        input_tokens=0,
        output_tokens=0,
        total_tokens=0,
        input_tokens_details=[],
        output_tokens_details=[],
        request_usage_entries=None,
    )
    assert (response.request_id, response.provider_data, response.raw_usage) == (None, None, None)


async def test_shorthand_response_id_follows_the_call_position() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])

    first = await model.get_response(make_request())
    second = await model.get_response(make_request())

    assert (first.response_id, second.response_id) == ("scripted-response-1", "scripted-response-2")


async def test_unexpected_call_uses_up_a_response_id_number() -> None:
    model = ScriptedModel()
    with pytest.raises(UnexpectedModelCallError):
        await model.get_response(make_request())

    model.enqueue([assistant_message("late")])
    response = await model.get_response(make_request())

    assert response.response_id == "scripted-response-2"


async def test_shorthand_output_is_copied_when_enqueued() -> None:
    item = assistant_message("original")
    output = [item]
    model = ScriptedModel([output])

    output.append(assistant_message("added later"))
    item["content"][0]["text"] = "changed"
    response = await model.get_response(make_request())

    assert response.output == [assistant_message("original")]


async def test_full_response_without_id_stays_without_id_when_not_streamed() -> None:
    model = ScriptedModel([ModelResponse(output=[], usage=Usage())])

    response = await model.get_response(make_request())

    assert response.response_id is None


async def test_full_response_keeps_its_own_ids() -> None:
    model = ScriptedModel(
        [ModelResponse(output=[], usage=Usage(), response_id="resp-9", request_id="req-9")]
    )

    response = await model.get_response(make_request())

    assert (response.response_id, response.request_id) == ("resp-9", "req-9")


async def test_full_response_is_copied_when_enqueued() -> None:
    usage = Usage(input_tokens=2, output_tokens=3, input_tokens_details={"cached_tokens": 1})
    original = ModelResponse(
        output=[assistant_message("original")],
        usage=usage,
        response_id="resp-1",
        provider_data={"tags": ["a"]},
    )
    model = ScriptedModel([original])

    original.output.append(assistant_message("later"))
    original.output[0]["content"][0]["text"] = "changed"
    usage.input_tokens = 99
    usage.input_tokens_details[0]["cached_tokens"] = 99
    original.provider_data["tags"].append("b")
    original.response_id = "changed"
    response = await model.get_response(make_request())

    assert response is not original
    assert response.usage is not usage
    assert response == ModelResponse(
        output=[assistant_message("original")],
        usage=Usage(input_tokens=2, output_tokens=3, input_tokens_details={"cached_tokens": 1}),
        response_id="resp-1",
        provider_data={"tags": ["a"]},
    )


async def test_full_response_keeps_zero_requests() -> None:
    model = ScriptedModel([ModelResponse(output=[], usage=Usage(requests=0))])

    response = await model.get_response(make_request())

    assert response.usage.requests == 0


async def test_stored_response_copy_keeps_request_usage_entries() -> None:
    usage = Usage(
        input_tokens=1,
        request_usage_entries=[{"input_tokens": 1, "output_tokens": 2, "endpoint": "responses"}],
    )
    model = ScriptedModel([ModelResponse(output=[], usage=usage)])

    response = await model.get_response(make_request())

    assert response.usage.request_usage_entries == [
        {
            "input_tokens": 1,
            "output_tokens": 2,
            "total_tokens": 3,
            "input_tokens_details": {},
            "output_tokens_details": {},
            "endpoint": "responses",
        }
    ]
    assert response.usage.request_usage_entries is not usage.request_usage_entries


@pytest.mark.parametrize(
    ("model_settings", "raw_usage", "expected"),
    [
        pytest.param({}, {"prompt_tokens": 3}, None, id="not-preserved-by-default"),
        pytest.param(
            {"preserve_raw_usage": False}, {"prompt_tokens": 3}, None, id="preserve-false"
        ),
        pytest.param(
            {"preserve_raw_usage": 1}, {"prompt_tokens": 3}, None, id="preserve-truthy-not-true"
        ),
        pytest.param(
            {"preserve_raw_usage": True},
            {"prompt_tokens": 3, "nested": {"list": [1, 2.5, "x", None, True]}},
            {"prompt_tokens": 3, "nested": {"list": [1, 2.5, "x", None, True]}},
            id="preserved-json-data",
        ),
        pytest.param(
            {"preserve_raw_usage": True}, [{"prompt_tokens": 3}], None, id="preserved-list-dropped"
        ),
        pytest.param(
            {"preserve_raw_usage": True}, {"value": (1, 2)}, None, id="preserved-tuple-dropped"
        ),
        pytest.param(
            {"preserve_raw_usage": True},
            {"value": float("nan")},
            None,
            id="preserved-nan-dropped",
        ),
        pytest.param(
            {"preserve_raw_usage": True},
            {"value": float("inf")},
            None,
            id="preserved-infinity-dropped",
        ),
        pytest.param(
            {"preserve_raw_usage": True}, {"value": object()}, None, id="preserved-object-dropped"
        ),
        pytest.param(
            {"preserve_raw_usage": True}, {1: "int key"}, None, id="preserved-non-str-key-dropped"
        ),
    ],
)
async def test_raw_usage_is_kept_only_when_preserved_and_json_compatible(
    model_settings: dict[str, Any], raw_usage: Any, expected: Any
) -> None:
    model = ScriptedModel([ModelResponse(output=[], usage=Usage(), raw_usage=raw_usage)])

    response = await model.get_response(make_request(model_settings=model_settings))

    assert response.raw_usage == expected


async def test_preserved_raw_usage_with_a_cycle_is_dropped() -> None:
    raw_usage: dict[str, Any] = {"prompt_tokens": 3}
    raw_usage["self"] = raw_usage

    def respond(call: RecordedModelCall) -> ModelResponse:
        return ModelResponse(output=[], usage=Usage(), raw_usage=raw_usage)

    model = ScriptedModel([model_responder(respond)])

    response = await model.get_response(make_request(model_settings={"preserve_raw_usage": True}))

    assert response.raw_usage is None


async def test_preserved_raw_usage_is_a_fresh_copy() -> None:
    raw_usage = {"prompt_tokens": 3, "details": {"cached": 1}}
    returned = ModelResponse(output=[], usage=Usage(), raw_usage=raw_usage)
    model = ScriptedModel([model_responder(lambda call: returned)])

    response = await model.get_response(make_request(model_settings={"preserve_raw_usage": True}))

    assert response.raw_usage == raw_usage
    assert response.raw_usage is not raw_usage
    assert response.raw_usage["details"] is not raw_usage["details"]


async def test_responder_response_is_returned_as_the_same_object() -> None:
    returned = ModelResponse(output=[assistant_message("hi")], usage=Usage())
    model = ScriptedModel([model_responder(lambda call: returned)])

    response = await model.get_response(make_request())

    assert response is returned


async def test_responder_response_with_unpreserved_raw_usage_is_copied_without_it() -> None:
    returned = ModelResponse(output=[], usage=Usage(), raw_usage={"prompt_tokens": 3})
    model = ScriptedModel([model_responder(lambda call: returned)])

    response = await model.get_response(make_request())

    assert response is not returned
    assert response.raw_usage is None
    assert returned.raw_usage == {"prompt_tokens": 3}
    assert response.output is returned.output


async def test_responder_list_becomes_shorthand_response_around_the_same_list() -> None:
    output = [assistant_message("hi")]
    model = ScriptedModel([model_responder(lambda call: output)])

    response = await model.get_response(make_request())

    assert response.output is output
    assert response.response_id == "scripted-response-1"
    assert response.usage == Usage(requests=1)


async def test_each_plain_list_step_reports_a_usage_of_its_own() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])

    first = await model.get_response(make_request())
    second = await model.get_response(make_request())
    first.usage.input_tokens_details.append({"cached_tokens": 3})
    first.usage.output_tokens_details.append({"reasoning_tokens": 4})

    # Usage(requests=1), with details lists no other response shares.
    assert second.usage == Usage(requests=1)
    assert (second.usage.requests, second.usage.total_tokens) == (1, 0)
    assert second.usage.request_usage_entries is None


async def test_responder_envelope_mapping_becomes_a_model_response() -> None:
    model = ScriptedModel(
        [model_responder(lambda call: {"output": [], "usage": Usage(), "response_id": "r"})]
    )

    response = await model.get_response(make_request())

    assert response == ModelResponse(output=[], usage=Usage(), response_id="r")


async def test_async_responder_is_awaited() -> None:
    async def respond(call: RecordedModelCall) -> list[Any]:
        await asyncio.sleep(0)
        return [assistant_message(f"call {call.index}")]

    model = ScriptedModel([model_responder(respond)])

    response = await model.get_response(make_request())

    assert response.output == [assistant_message("call 0")]


async def test_responder_receives_the_recorded_call() -> None:
    seen: list[RecordedModelCall] = []

    def respond(call: RecordedModelCall) -> list[Any]:
        seen.append(call)
        return []

    model = ScriptedModel([[assistant_message("a")], model_responder(respond)])
    await model.get_response(make_request("one"))

    await model.get_response(make_request("two"))

    assert [(call.index, call.streamed, call.request) for call in seen] == [
        (1, False, make_request("two"))
    ]


async def test_responder_mutating_its_call_does_not_change_the_record() -> None:
    def respond(call: RecordedModelCall) -> list[Any]:
        assert isinstance(call.request.input, list)
        call.request.input.append({"role": "user", "content": "injected"})
        call.request.input[0]["content"] = "changed"
        return []

    model = ScriptedModel([model_responder(respond)])

    await model.get_response(make_request("hi"))

    assert model.calls[0].request == make_request("hi")


async def test_responder_exception_propagates_unchanged_and_consumes_the_step() -> None:
    boom = RuntimeError("responder failed")

    def respond(call: RecordedModelCall) -> list[Any]:
        raise boom

    model = ScriptedModel([model_responder(respond)])

    with pytest.raises(RuntimeError) as exc_info:
        await model.get_response(make_request())

    assert exc_info.value is boom
    assert model.remaining_steps == 0
    assert len(model.calls) == 1
    model.assert_complete()


@pytest.mark.parametrize(
    "returned",
    [
        pytest.param(None, id="none"),
        pytest.param("hi", id="string"),
        pytest.param((assistant_message("hi"),), id="tuple"),
        pytest.param({"output": []}, id="envelope-without-usage"),
        pytest.param(ModelResponse(output=[], usage=None), id="usage-none"),  # type: ignore[arg-type]
        pytest.param(assistant_message("hi"), id="bare-item"),
        pytest.param(
            ModelResponse(output=[], usage=Usage(), response_id=7),  # type: ignore[arg-type]
            id="response-id-not-text",
        ),
        pytest.param(
            {"output": [], "usage": Usage(), "request_id": ["req_1"]}, id="request-id-not-text"
        ),
    ],
)
async def test_responder_invalid_result_is_invalid_response_for_the_call(returned: Any) -> None:
    model = ScriptedModel([[assistant_message("a")], model_responder(lambda call: returned)])
    await model.get_response(make_request())

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        await model.get_response(make_request())

    error = exc_info.value
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        "invalid_response",
        None,
        1,
        None,
    )
    assert str(error).startswith(
        "ScriptedModel responder returned an invalid response for call #2."
    )
    assert model.remaining_steps == 0
    assert len(model.calls) == 2


async def test_error_step_raises_the_scripted_error_object() -> None:
    error = ConnectionError("rate limited")
    model = ScriptedModel([model_error(error)])

    with pytest.raises(ConnectionError) as exc_info:
        await model.get_response(make_request())

    assert exc_info.value is error
    assert model.remaining_steps == 0
    assert [(call.index, call.streamed) for call in model.calls] == [(0, False)]


async def test_error_step_accepts_any_base_exception() -> None:
    class Stop(BaseException):
        pass

    stop = Stop()
    model = ScriptedModel([{"type": "error", "error": stop}])

    with pytest.raises(Stop) as exc_info:
        await model.get_response(make_request())

    assert exc_info.value is stop


# -- unexpected and incompatible calls --------------------------------------------------------


async def test_call_after_script_runs_out_is_unexpected_and_recorded() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request("one"))

    with pytest.raises(UnexpectedModelCallError) as exc_info:
        await model.get_response(make_request("two"))

    assert (exc_info.value.call_index, exc_info.value.streamed) == (1, False)
    assert str(exc_info.value).startswith(
        "ScriptedModel received unexpected non-streaming call #2; no scripted steps remain."
    )
    assert model.last_call == RecordedModelCall(1, False, make_request("two"))


def test_streamed_call_after_script_runs_out_raises_unexpected_synchronously() -> None:
    model = ScriptedModel()

    with pytest.raises(UnexpectedModelCallError) as exc_info:
        model.stream_response(make_request())

    assert (exc_info.value.call_index, exc_info.value.streamed) == (0, True)
    assert str(exc_info.value).startswith(
        "ScriptedModel received unexpected streaming call #1; no scripted steps remain."
    )
    assert model.last_call == RecordedModelCall(0, True, make_request())


async def test_steps_enqueued_after_an_unexpected_call_serve_later_calls() -> None:
    model = ScriptedModel()
    with pytest.raises(UnexpectedModelCallError):
        await model.get_response(make_request())

    model.enqueue([assistant_message("late")])
    response = await model.get_response(make_request())

    assert response.output == [assistant_message("late")]
    assert [call.index for call in model.calls] == [0, 1]


async def test_non_streaming_call_cannot_take_a_raw_stream_step() -> None:
    started: list[bool] = []

    def events() -> Iterator[dict[str, Any]]:
        started.append(True)
        yield {"type": "response_started"}

    model = ScriptedModel([[assistant_message("a")], model_stream(events())])
    await model.get_response(make_request())

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        await model.get_response(make_request())

    error = exc_info.value
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        "incompatible_call",
        None,
        1,
        "stream",
    )
    assert str(error).startswith(
        "ScriptedModel cannot use raw stream step for non-streaming call #2."
    )
    assert error.call_summary == "last input user message 'hello'; no tools"
    assert started == []
    assert model.remaining_steps == 0
    assert len(model.calls) == 2


async def test_non_streaming_call_cannot_take_a_stream_responder_step() -> None:
    called: list[RecordedModelCall] = []

    def respond(call: RecordedModelCall) -> list[Any]:
        called.append(call)
        return []

    model = ScriptedModel([model_stream_responder(respond), [assistant_message("next")]])

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        await model.get_response(make_request())

    error = exc_info.value
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        "incompatible_call",
        None,
        0,
        "stream_responder",
    )
    assert str(error).startswith(
        "ScriptedModel cannot use raw stream step for non-streaming call #1."
    )
    assert called == []
    assert model.remaining_steps == 1


# -- assert_complete and strictness -----------------------------------------------------------


async def test_assert_complete_passes_when_every_step_was_used() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    await model.get_response(make_request())

    model.assert_complete()


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        pytest.param(1, "ScriptedModel has 1 unconsumed scripted step.", id="one"),
        pytest.param(2, "ScriptedModel has 2 unconsumed scripted steps.", id="two"),
    ],
)
def test_assert_complete_reports_unconsumed_steps(steps: int, message: str) -> None:
    model = ScriptedModel([[assistant_message("a")]] * steps)

    with pytest.raises(UnconsumedModelStepsError) as exc_info:
        model.assert_complete()

    assert exc_info.value.remaining_steps == steps
    assert str(exc_info.value).startswith(message)


async def test_assert_complete_reraises_a_swallowed_unexpected_call() -> None:
    model = ScriptedModel()
    try:
        await model.get_response(make_request())
    except UnexpectedModelCallError as error:  # framework code that swallows the failure
        swallowed = error

    with pytest.raises(UnexpectedModelCallError) as exc_info:
        model.assert_complete()

    raised = exc_info.value
    assert raised is not swallowed
    assert raised.__cause__ is swallowed
    assert (raised.call_index, raised.streamed) == (0, False)
    assert str(raised) == str(swallowed)


def test_assert_complete_reraises_a_swallowed_unexpected_streamed_call() -> None:
    model = ScriptedModel()
    with pytest.raises(UnexpectedModelCallError):
        model.stream_response(make_request())

    with pytest.raises(UnexpectedModelCallError) as exc_info:
        model.assert_complete()

    assert (exc_info.value.call_index, exc_info.value.streamed) == (0, True)


async def test_assert_complete_reraises_a_swallowed_incompatible_call() -> None:
    model = ScriptedModel([model_stream([])])
    with pytest.raises(InvalidScriptedModelStepError) as swallowed:
        await model.get_response(make_request())

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.assert_complete()

    raised = exc_info.value
    assert raised is not swallowed.value
    assert raised.__cause__ is swallowed.value
    assert (raised.reason, raised.input_index, raised.call_index, raised.step_type) == (
        "incompatible_call",
        None,
        0,
        "stream",
    )
    assert str(raised).startswith(
        "ScriptedModel cannot use raw stream step for non-streaming call #1."
    )


async def test_assert_complete_reraises_a_swallowed_invalid_responder_result() -> None:
    # A result the annotations refuse, as a responder written without them could return.
    model = ScriptedModel([model_responder(lambda call: None)])  # type: ignore[arg-type, return-value]
    with pytest.raises(InvalidScriptedModelStepError):
        await model.get_response(make_request())

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.assert_complete()

    assert (exc_info.value.reason, exc_info.value.call_index) == ("invalid_response", 0)
    assert str(exc_info.value).startswith(
        "ScriptedModel responder returned an invalid response for call #1."
    )


async def test_assert_complete_reports_a_violation_before_unconsumed_steps() -> None:
    model = ScriptedModel([model_stream([]), [assistant_message("left over")]])
    with pytest.raises(InvalidScriptedModelStepError):
        await model.get_response(make_request())

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.assert_complete()

    assert exc_info.value.reason == "incompatible_call"


async def test_assert_complete_reports_the_first_of_several_violations() -> None:
    model = ScriptedModel([model_stream([])])
    with pytest.raises(InvalidScriptedModelStepError):
        await model.get_response(make_request())
    with pytest.raises(UnexpectedModelCallError):
        await model.get_response(make_request())

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        model.assert_complete()

    assert (exc_info.value.reason, exc_info.value.call_index) == ("incompatible_call", 0)


async def test_scripted_errors_are_not_violations() -> None:
    model = ScriptedModel([model_error(ValueError("scripted"))])
    with pytest.raises(ValueError, match="scripted"):
        await model.get_response(make_request())

    model.assert_complete()


# -- overlapping calls ------------------------------------------------------------------------


class Suspend:
    """An awaitable that suspends its awaiter exactly once, without an event loop."""

    def __await__(self) -> Generator[None, None, None]:
        yield


def test_get_response_for_a_static_step_finishes_without_suspending() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    coroutine = model.get_response(make_request())

    with pytest.raises(StopIteration) as exc_info:
        coroutine.send(None)

    assert exc_info.value.value == shorthand_response("a", 1)


def test_get_response_records_and_takes_its_step_before_first_suspending() -> None:
    async def respond(call: RecordedModelCall) -> list[Any]:
        await Suspend()
        return [assistant_message("a")]

    model = ScriptedModel([model_responder(respond), [assistant_message("b")]])
    coroutine = model.get_response(make_request())

    coroutine.send(None)

    assert (len(model.calls), model.remaining_steps) == (1, 1)
    with pytest.raises(StopIteration) as exc_info:
        coroutine.send(None)
    assert exc_info.value.value == shorthand_response("a", 1)


async def test_overlapping_calls_take_steps_in_the_order_they_started() -> None:
    gate = asyncio.Event()
    finished: list[str] = []

    async def slow(call: RecordedModelCall) -> list[Any]:
        await gate.wait()
        return [assistant_message("slow")]

    model = ScriptedModel([model_responder(slow), [assistant_message("fast")]])

    async def call(name: str) -> ModelResponse:
        response = await model.get_response(make_request(name))
        finished.append(name)
        gate.set()
        return response

    first, second = await asyncio.gather(call("first"), call("second"))

    assert finished == ["second", "first"]
    assert first == shorthand_response("slow", 1)
    assert second == shorthand_response("fast", 2)
    assert [call.request for call in model.calls] == [make_request("first"), make_request("second")]


async def test_enqueue_during_an_in_flight_call_only_appends() -> None:
    gate = asyncio.Event()
    entered = asyncio.Event()

    async def slow(call: RecordedModelCall) -> list[Any]:
        entered.set()
        await gate.wait()
        return [assistant_message("in flight")]

    model = ScriptedModel([model_responder(slow)])
    in_flight = asyncio.create_task(model.get_response(make_request()))
    await entered.wait()

    model.enqueue([assistant_message("appended")])
    assert model.remaining_steps == 1
    gate.set()
    first = await in_flight
    second = await model.get_response(make_request())

    assert first.output == [assistant_message("in flight")]
    assert second.output == [assistant_message("appended")]


# -- aborts (non-streaming) -------------------------------------------------------------------


def aborted_threading_event() -> threading.Event:
    event = threading.Event()
    event.set()
    return event


def aborted_signal() -> Signal:
    signal = Signal()
    signal.aborted = True
    return signal


@pytest.mark.parametrize(
    "make_signal",
    [
        pytest.param(aborted_threading_event, id="threading-event"),
        pytest.param(aborted_signal, id="aborted-attribute"),
    ],
)
async def test_abort_at_entry_records_nothing_and_keeps_the_step(make_signal: Any) -> None:
    model = ScriptedModel([[assistant_message("a")]])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await model.get_response(make_request(signal=make_signal()))

    assert exc_info.value.call_index is None
    assert exc_info.value.name == "AbortError"
    assert str(exc_info.value) == "Scripted model request was aborted."
    assert model.calls == ()
    assert model.remaining_steps == 1


async def test_set_asyncio_event_aborts_at_entry() -> None:
    signal = asyncio.Event()
    signal.set()
    model = ScriptedModel([[assistant_message("a")]])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await model.get_response(make_request(signal=signal))

    assert exc_info.value.call_index is None
    assert model.remaining_steps == 1


@pytest.mark.parametrize(
    "signal",
    [
        pytest.param(threading.Event(), id="unset-threading-event"),
        pytest.param(Signal(), id="aborted-false"),
        pytest.param(object(), id="object-without-abort-state"),
        pytest.param(None, id="none"),
    ],
)
async def test_signal_that_is_not_aborted_lets_the_call_through(signal: Any) -> None:
    model = ScriptedModel([[assistant_message("a")]])

    response = await model.get_response(make_request(signal=signal))

    assert response == shorthand_response("a", 1)


async def test_truthy_aborted_value_counts_as_aborted() -> None:
    signal = Signal()
    signal.aborted = "yes"
    model = ScriptedModel([[assistant_message("a")]])

    with pytest.raises(ScriptedModelRequestAbortedError):
        await model.get_response(make_request(signal=signal))


async def test_abort_at_entry_beats_an_empty_script() -> None:
    model = ScriptedModel()

    with pytest.raises(ScriptedModelRequestAbortedError):
        await model.get_response(make_request(signal=aborted_signal()))

    assert model.calls == ()
    model.assert_complete()


async def test_abort_after_static_response_is_seen_after_normalization() -> None:
    model = ScriptedModel([[assistant_message("a")]])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await model.get_response(make_request(signal=AbortAfter(1)))

    assert exc_info.value.call_index == 0
    assert len(model.calls) == 1
    assert model.remaining_steps == 0


async def test_static_response_checks_the_signal_at_entry_and_after_normalization_only() -> None:
    signal = AbortAfter(2)
    model = ScriptedModel([[assistant_message("a")]])

    response = await model.get_response(make_request(signal=signal))

    assert response == shorthand_response("a", 1)
    assert signal.reads == 2


async def test_abort_during_responder_is_seen_after_it_returns() -> None:
    signal = Signal()

    def respond(call: RecordedModelCall) -> list[Any]:
        signal.aborted = True
        return [assistant_message("a")]

    model = ScriptedModel([model_responder(respond)])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await model.get_response(make_request(signal=signal))

    assert exc_info.value.call_index == 0
    assert len(model.calls) == 1
    assert model.remaining_steps == 0


async def test_abort_after_responder_is_checked_before_its_result_is_validated() -> None:
    signal = Signal()

    def respond(call: RecordedModelCall) -> Any:
        signal.aborted = True
        return "not a response"

    model = ScriptedModel([model_responder(respond)])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await model.get_response(make_request(signal=signal))

    assert exc_info.value.call_index == 0
    model.assert_complete()


async def test_responder_result_is_validated_before_the_check_after_normalization() -> None:
    bad = model_responder(lambda call: "not a response")  # type: ignore[arg-type, return-value]
    model = ScriptedModel([bad])

    with pytest.raises(InvalidScriptedModelStepError) as exc_info:
        await model.get_response(make_request(signal=AbortAfter(2)))

    assert (exc_info.value.reason, exc_info.value.call_index) == ("invalid_response", 0)


async def test_abort_after_responder_normalization_raises_abort() -> None:
    model = ScriptedModel([model_responder(lambda call: [assistant_message("a")])])

    with pytest.raises(ScriptedModelRequestAbortedError) as exc_info:
        await model.get_response(make_request(signal=AbortAfter(2)))

    assert exc_info.value.call_index == 0


async def test_responder_call_checks_the_signal_three_times() -> None:
    signal = AbortAfter(3)
    model = ScriptedModel([model_responder(lambda call: [assistant_message("a")])])

    response = await model.get_response(make_request(signal=signal))

    assert response == shorthand_response("a", 1)
    assert signal.reads == 3


async def test_error_step_has_no_abort_check_after_entry() -> None:
    error = ValueError("scripted")
    signal = AbortAfter(1)
    model = ScriptedModel([model_error(error)])

    with pytest.raises(ValueError, match="scripted") as exc_info:
        await model.get_response(make_request(signal=signal))

    assert exc_info.value is error
    assert signal.reads == 1


async def test_abort_is_not_a_violation() -> None:
    model = ScriptedModel([[assistant_message("a")]])
    with pytest.raises(ScriptedModelRequestAbortedError):
        await model.get_response(make_request(signal=AbortAfter(1)))

    model.assert_complete()


async def test_function_call_output_is_returned_as_scripted() -> None:
    call_item = function_call("lookup", {"city": "Paris"}, call_id="call-1")
    model = ScriptedModel([[call_item]])

    response = await model.get_response(make_request())

    assert response.output == [call_item]


# -- diagnostics: common script mistakes, call summaries, pending steps, optional steps ----


def test_bare_output_item_as_a_step_says_to_wrap_it_in_a_list() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as raised:
        ScriptedModel([assistant_message("hi")])

    error = raised.value
    assert (error.reason, error.input_index, error.step_type) == ("unknown_step_type", 0, "message")
    assert error.detail is not None
    assert "wrap this item in a list" in error.detail
    assert str(error).startswith('ScriptedModel input #1 has unknown type "message". ')
    assert "Input #1 (input_index=0): " in str(error)
    assert "Each step is a list of output items" in str(error)


def test_output_item_without_a_type_as_a_step_says_to_wrap_it_in_a_list() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as raised:
        ScriptedModel([{"role": "assistant", "content": "hi"}])

    assert raised.value.reason == "invalid_input"
    assert "wrap this item in a list" in str(raised.value)


def test_plain_string_step_points_at_assistant_message() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as raised:
        ScriptedModel(["hi"])  # type: ignore[list-item]

    error = raised.value
    assert (error.reason, error.input_index, error.output_index) == ("invalid_input", 0, None)
    assert "script [assistant_message('hi')] for a text reply" in str(error)


@pytest.mark.parametrize(
    ("step", "output_index", "advice"),
    [
        (["hi"], 0, "assistant_message('hi')"),
        ([assistant_message("ok"), 3], 1, "an output item is a mapping"),
        ([None], 0, "an output item is a mapping"),
        ([[assistant_message("ok")]], 0, "put the items of one response in a single list"),
        (model_response(["hi"]), 0, "assistant_message('hi')"),
        (ModelResponse(output=[b"x"], usage=Usage()), 0, "an output item is a mapping"),
        ({"output": [1.5], "usage": Usage()}, 0, "an output item is a mapping"),
    ],
    ids=["string", "number", "none", "nested-list", "step", "model-response", "envelope"],
)
def test_output_item_that_can_never_be_valid_is_refused_when_scripted(
    step: Any, output_index: int, advice: str
) -> None:
    model = ScriptedModel([[assistant_message("first")]])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        model.enqueue([assistant_message("fine")], step)

    error = raised.value
    assert (error.reason, error.input_index, error.output_index) == (
        "invalid_output_item",
        1,
        output_index,
    )
    assert str(error).startswith(
        "ScriptedModel input #2 is invalid (invalid output item). "
        f"Input #2 (input_index=1), output item #{output_index + 1} "
        f"(output_index={output_index}): "
    )
    assert advice in str(error)
    assert model.remaining_steps == 1  # all-or-nothing: the valid input was not added


def test_framework_objects_are_accepted_as_output_items() -> None:
    class FrameworkItem:
        type = "message"

    ScriptedModel([[FrameworkItem()]]).assert_complete  # noqa: B018 - constructing is the test


async def test_unexpected_call_says_what_the_call_sent() -> None:
    model = ScriptedModel([[assistant_message("one")]])
    await model.get_response(make_request())

    with pytest.raises(UnexpectedModelCallError) as raised:
        await model.get_response(
            make_request("What is the weather in Tokyo?", tools=[{"name": "get_weather"}])
        )

    error = raised.value
    assert error.call_summary == (
        "last input user message 'What is the weather in Tokyo?'; tools [get_weather]"
    )
    assert str(error) == (
        "ScriptedModel received unexpected non-streaming call #2; no scripted steps remain. "
        "Call #2 (call_index=1) sent: last input user message 'What is the weather in "
        "Tokyo?'; tools [get_weather]. Add a step for it to the script (ScriptedModel([...]) "
        "or model.enqueue(...)), or find why the code under test called the model again."
    )
    with pytest.raises(UnexpectedModelCallError) as again:
        model.assert_complete()
    assert again.value.call_summary == error.call_summary


async def test_call_summary_shortens_long_texts_and_names_tool_outputs() -> None:
    model = ScriptedModel()
    long_output = "x" * 500
    request = ModelRequest(
        input=[
            {"type": "function_call_output", "call_id": "call_1", "output": long_output},
        ]
    )

    with pytest.raises(UnexpectedModelCallError) as raised:
        await model.get_response(request)

    summary = raised.value.call_summary
    assert summary is not None
    assert summary.startswith("last input function_call_output call_1 'xxx")
    assert summary.endswith("...; no tools")
    assert len(summary) < 100


async def test_invalid_responder_result_says_what_the_call_sent() -> None:
    bad = model_responder(lambda call: "not a response")  # type: ignore[arg-type, return-value]
    model = ScriptedModel([bad])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await model.get_response(make_request("hi"))

    assert raised.value.call_summary == "last input user message 'hi'; no tools"
    assert "Call #1 (call_index=0) sent: last input user message 'hi'; no tools: " in str(
        raised.value
    )
    assert "the responder must return a list of output items" in str(raised.value)


async def test_assert_complete_lists_every_pending_step_with_its_position() -> None:
    model = ScriptedModel(
        [
            [assistant_message("used")],
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        ]
    )
    model.enqueue(model_error(RuntimeError("boom")), [assistant_message("y" * 100)])
    await model.get_response(make_request())

    with pytest.raises(UnconsumedModelStepsError) as raised:
        model.assert_complete()

    error = raised.value
    assert error.remaining_steps == 3
    assert error.pending_steps == (
        {
            "step_index": 1,
            "type": "response",
            "summary": 'function_call get_weather({"city":"Tokyo"})',
        },
        {"step_index": 2, "type": "error", "summary": "RuntimeError('boom')"},
        {
            "step_index": 3,
            "type": "response",
            "summary": "assistant message '" + "y" * 36 + "...",
        },
    )
    assert str(error).startswith(
        "ScriptedModel has 3 unconsumed scripted steps. Pending: step #2 (step_index=1) "
        'response: function_call get_weather({"city":"Tokyo"}); step #3 (step_index=2) '
        "error: RuntimeError('boom'); step #4 (step_index=3) response: assistant message "
    )
    assert "optional_step(...)" in str(error)


async def test_unused_optional_step_does_not_fail_assert_complete() -> None:
    model = ScriptedModel([[assistant_message("one")], optional_step([assistant_message("two")])])

    await model.get_response(make_request())

    assert model.remaining_steps == 1
    model.assert_complete()


async def test_optional_step_is_served_in_its_turn() -> None:
    model = ScriptedModel([optional_step(model_response([assistant_message("maybe")]))])

    response = await model.get_response(make_request())

    assert response.output == [assistant_message("maybe")]
    model.assert_complete()


async def test_required_step_after_an_unused_optional_one_is_still_reported() -> None:
    model = ScriptedModel(
        [optional_step(model_error(RuntimeError("maybe"))), [assistant_message("needed")]]
    )

    with pytest.raises(UnconsumedModelStepsError) as raised:
        model.assert_complete()

    assert raised.value.remaining_steps == 2
    assert [step["summary"] for step in raised.value.pending_steps] == [
        "RuntimeError('maybe') (optional)",
        "assistant message 'needed'",
    ]


def test_optional_step_accepts_a_response_envelope_and_refuses_non_steps() -> None:
    step = optional_step({"output": [assistant_message("x")], "usage": Usage()})
    ScriptedModel([step]).assert_complete()

    with pytest.raises(TypeError, match="optional_step\\(\\) takes a step"):
        optional_step("hi")  # type: ignore[arg-type]


def test_optional_flag_must_be_a_bool() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as raised:
        ScriptedModel([{"type": "response", "response": [], "optional": "yes"}])

    assert (raised.value.reason, raised.value.input_index) == ("invalid_input", 0)
    assert '"optional" must be True or False' in str(raised.value)
