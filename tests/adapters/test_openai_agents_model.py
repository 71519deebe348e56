"""The openai-agents model adapter, run on the real OpenAI Agents SDK (no mocks of it)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings

pytest.importorskip("agents")

from agents import (
    Agent,
    AgentOutputSchemaBase,
    FunctionTool,
    GuardrailFunctionOutput,
    Handoff,
    InputGuardrailTripwireTriggered,
    ModelRetrySettings,
    ModelSettings,
    ModelTracing,
    RunConfig,
    Runner,
    RunResult,
    RunResultStreaming,
    ShellTool,
    function_tool,
    input_guardrail,
    retry_policies,
)
from agents import ModelResponse as SdkModelResponse
from agents import ModelRetryAdvice as SdkRetryAdvice
from agents.models.interface import Model
from agents.retry import ModelRetryAdviceRequest, RetryPolicyContext
from agents.tool import ShellCommandRequest
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseFunctionWebSearch,
    ResponseInProgressEvent,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseTextDeltaEvent,
)
from openai.types.responses.response_output_item import ImageGenerationCall
from openai.types.responses.response_reasoning_item import Summary
from pydantic import BaseModel, ValidationError

from agents_testing import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ModelRequest,
    ModelResponse,
    ModelRetryAdvice,
    RetryAdviceRequest,
    ScriptedModel,
    UnconsumedModelStepsError,
    UnexpectedModelCallError,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_responder,
    model_stream,
    optional_step,
    shell_call,
)
from agents_testing.adapters.openai_agents import openai_agents_model

from .contract import (
    UNREADABLE_DONE_RESPONSES,
    done_responses,
    served_or_refused,
)

RUN_CONFIG = RunConfig(tracing_disabled=True)
RETRY_ONCE = ModelSettings(
    retry=ModelRetrySettings(max_retries=1, policy=retry_policies.provider_suggested())
)


@function_tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"{city}: sunny"


async def run(agent: Agent[Any], prompt: str, *, stream: bool) -> RunResult | RunResultStreaming:
    """Run ``agent`` to completion, plain or streamed, and return the SDK's result."""
    if not stream:
        return await Runner.run(agent, prompt, run_config=RUN_CONFIG)
    result = Runner.run_streamed(agent, prompt, run_config=RUN_CONFIG)
    async for _ in result.stream_events():
        pass
    return result


async def respond(model: ScriptedModel, input: Any = "hi") -> SdkModelResponse:  # noqa: A002
    """Make one non-streamed call through the adapter, as the SDK's runner would."""
    return await openai_agents_model(model).get_response(
        None,
        input,
        ModelSettings(),
        [],
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )


def stream(model: ScriptedModel, input: Any = "hi") -> AsyncIterator[Any]:  # noqa: A002
    """Make one streamed call through the adapter, as the SDK's runner would."""
    return openai_agents_model(model).stream_response(
        None,
        input,
        ModelSettings(),
        [],
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )


async def collect(events: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in events]


def test_the_adapter_is_an_agents_model() -> None:
    assert isinstance(openai_agents_model(ScriptedModel()), Model)


def test_the_adapter_refuses_anything_but_a_scripted_model() -> None:
    with pytest.raises(TypeError, match="expects a ScriptedModel"):
        openai_agents_model(object())  # type: ignore[arg-type]


# -- output items ------------------------------------------------------------------------


async def test_assistant_message_becomes_a_response_output_message() -> None:
    model = ScriptedModel([[assistant_message("Hi.")], [assistant_message("Again.")]])

    first = await respond(model)
    second = await respond(model)

    assert first.output == [
        ResponseOutputMessage(
            id="msg_scripted_0_0",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text="Hi.", annotations=[])],
        )
    ]
    [message] = second.output
    assert message.id == "msg_scripted_1_0"


async def test_message_keeps_its_own_id_and_phase() -> None:
    model = ScriptedModel([[assistant_message("Done.", id="msg_1", phase="final_answer")]])

    [message] = (await respond(model)).output

    assert isinstance(message, ResponseOutputMessage)
    assert (message.id, message.phase) == ("msg_1", "final_answer")


async def test_refusal_part_becomes_a_response_output_refusal() -> None:
    item = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "refusal", "refusal": "No."}],
    }
    model = ScriptedModel([[item]])

    [message] = (await respond(model)).output

    assert isinstance(message, ResponseOutputMessage)
    assert message.status == "completed"
    assert message.content == [ResponseOutputRefusal(type="refusal", refusal="No.")]


async def test_function_call_becomes_a_response_function_tool_call() -> None:
    model = ScriptedModel([[function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")]])

    [call] = (await respond(model)).output

    assert call == ResponseFunctionToolCall(
        type="function_call",
        name="get_weather",
        call_id="call_1",
        id="call_1",
        arguments='{"city":"Tokyo"}',
        status="completed",
    )
    # The builder's None keys stay unset, so the SDK does not replay them as input.
    assert "namespace" not in call.model_fields_set


async def test_function_call_without_a_call_id_gets_a_deterministic_one() -> None:
    model = ScriptedModel([[{"type": "function_call", "name": "f", "arguments": "{}"}]])

    [call] = (await respond(model)).output

    assert isinstance(call, ResponseFunctionToolCall)
    assert call.call_id == "call_scripted_0_0"


async def test_reasoning_item_becomes_a_response_reasoning_item() -> None:
    item = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Think."}]}
    model = ScriptedModel([[item, assistant_message("Done.")]])

    reasoning, message = (await respond(model)).output

    assert reasoning == ResponseReasoningItem(
        id="rs_scripted_0_0",
        type="reasoning",
        summary=[Summary(type="summary_text", text="Think.")],
    )
    assert isinstance(message, ResponseOutputMessage)
    assert message.id == "msg_scripted_0_1"


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            {"type": "web_search_call", "action": {"type": "search", "query": "tokyo"}},
            ResponseFunctionWebSearch.model_validate(
                {
                    "id": "web_search_call_scripted_0_0",
                    "type": "web_search_call",
                    "status": "completed",
                    "action": {"type": "search", "query": "tokyo"},
                }
            ),
        ),
        (
            {"type": "image_generation_call", "result": "aGk="},
            ImageGenerationCall(
                id="image_generation_call_scripted_0_0",
                type="image_generation_call",
                status="completed",
                result="aGk=",
            ),
        ),
    ],
    ids=["web_search_call", "image_generation_call"],
)
async def test_any_responses_output_item_type_is_converted(item: Any, expected: Any) -> None:
    model = ScriptedModel([[item]])

    assert (await respond(model)).output == [expected]


async def test_sdk_output_objects_pass_through_unchanged() -> None:
    message = ResponseOutputMessage(
        id="msg_own",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text="Mine.", annotations=[])],
    )
    model = ScriptedModel([[message]])

    [output] = (await respond(model)).output

    assert output is message


async def test_unknown_item_type_is_refused_with_its_position() -> None:
    model = ScriptedModel([[assistant_message("ok"), {"type": "telepathy"}]])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await respond(model)

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        1,
        "telepathy",
        "openai-agents",
    )
    assert error.reason == (
        "'telepathy' is not a Responses output item type (such as message, function_call, "
        "reasoning or shell_call)."
    )
    assert str(error).startswith(
        "ScriptedModel call #1 (call_index=0) output item #2 (output_index=1) of type "
        "'telepathy' is not valid for openai-agents: "
    )
    assert "Fix the item in the script" in str(error)


async def test_invalid_item_is_refused_with_a_one_line_reason_and_recorded() -> None:
    model = ScriptedModel([[{"type": "function_call", "arguments": "{}"}]])  # no name

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await respond(model)

    error = raised.value
    assert isinstance(error, ValueError)
    assert isinstance(error.__cause__, ValidationError)
    assert (error.call_index, error.output_index, error.item_type) == (0, 0, "function_call")
    assert error.reason == "name: Field required"
    # The runner may wrap or swallow it: assert_complete() reports the broken script again.
    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert (again.value.call_index, again.value.reason) == (0, "name: Field required")


async def test_invalid_item_in_an_exact_stream_survives_a_failing_source_close() -> None:
    class Source:
        def __aiter__(self) -> Source:
            return self

        async def __anext__(self) -> dict[str, Any]:
            return {"type": "response_done", "response": {"output": [{"type": "telepathy"}]}}

        async def aclose(self) -> None:
            raise RuntimeError("aclose broke")

    model = ScriptedModel([model_stream(Source())])

    # The adapter's own refusal is what the runner must see, not the close that followed it.
    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await collect(stream(model))

    assert (raised.value.call_index, raised.value.item_type) == (0, "telepathy")
    assert any("aclose broke" in note for note in getattr(raised.value, "__notes__", []))


async def test_invalid_item_in_a_streamed_response_is_refused_and_recorded() -> None:
    model = ScriptedModel([[assistant_message("ok"), {"type": "telepathy"}]])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await collect(stream(model))

    assert (raised.value.call_index, raised.value.output_index) == (0, 1)
    with pytest.raises(InvalidScriptedModelOutputError):
        model.assert_complete()


async def test_invalid_item_through_the_runner_is_reported_by_assert_complete() -> None:
    model = ScriptedModel([[{"type": "function_call", "arguments": "{}"}]])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    with pytest.raises(InvalidScriptedModelOutputError):
        await run(agent, "hi", stream=False)

    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert again.value.output_index == 0


async def test_output_items_of_several_kinds_run_through_the_runner() -> None:
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Think."}]}
    model = ScriptedModel([[reasoning, assistant_message("Paris.")]])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = await run(agent, "Capital of France?", stream=False)

    assert result.final_output == "Paris."
    assert [type(item).__name__ for item in result.raw_responses[0].output] == [
        "ResponseReasoningItem",
        "ResponseOutputMessage",
    ]


# -- response fields and usage ------------------------------------------------------------


def scripted_usage() -> Usage:
    return Usage(
        requests=1,
        input_tokens=10,
        output_tokens=5,
        input_tokens_details=[{"cached_tokens": 4}],
        output_tokens_details=[{"reasoning_tokens": 2}],
    )


async def test_response_ids_and_usage_become_the_sdk_model_response() -> None:
    scripted = ModelResponse(
        output=[assistant_message("ok")],
        usage=scripted_usage(),
        response_id="resp_1",
        request_id="req_1",
    )
    model = ScriptedModel([scripted])

    response = await respond(model)

    assert (response.response_id, response.request_id) == ("resp_1", "req_1")
    usage = response.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        1,
        10,
        5,
        15,
    )
    assert usage.input_tokens_details.cached_tokens == 4
    assert usage.output_tokens_details.reasoning_tokens == 2


async def test_output_shorthand_gets_the_cores_deterministic_response_id() -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    response = await respond(model)

    assert response.response_id == "scripted-response-1"
    assert response.usage.requests == 1


async def test_request_usage_entries_become_sdk_request_usage() -> None:
    usage = Usage(
        requests=2,
        input_tokens=3,
        output_tokens=4,
        request_usage_entries=[
            {"input_tokens": 1, "output_tokens": 2},
            {"input_tokens": 2, "output_tokens": 2, "input_tokens_details": {"cached_tokens": 1}},
        ],
    )
    model = ScriptedModel([ModelResponse(output=[], usage=usage)])

    response = await respond(model)

    entries = response.usage.request_usage_entries
    assert [(e.input_tokens, e.output_tokens, e.total_tokens) for e in entries] == [
        (1, 2, 3),
        (2, 2, 4),
    ]
    assert entries[1].input_tokens_details.cached_tokens == 1


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_usage_reaches_the_run_totals(stream: bool) -> None:
    model = ScriptedModel(
        [
            ModelResponse(
                output=[function_call("get_weather", {"city": "Tokyo"}, call_id="c1")],
                usage=scripted_usage(),
            ),
            ModelResponse(output=[assistant_message("Sunny.")], usage=scripted_usage()),
        ]
    )
    agent = Agent(name="Assistant", model=openai_agents_model(model), tools=[get_weather])

    result = await run(agent, "Weather?", stream=stream)

    usage = result.context_wrapper.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        2,
        20,
        10,
        30,
    )
    assert usage.input_tokens_details.cached_tokens == 8
    assert usage.output_tokens_details.reasoning_tokens == 4
    assert len(usage.request_usage_entries) == 2


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_request_id_reaches_the_raw_response(stream: bool) -> None:
    scripted = ModelResponse(
        output=[assistant_message("ok")], usage=Usage(), response_id="resp_9", request_id="req_9"
    )
    model = ScriptedModel([scripted])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = await run(agent, "hi", stream=stream)

    [raw] = result.raw_responses
    assert (raw.response_id, raw.request_id) == ("resp_9", "req_9")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_raw_usage_is_kept_when_the_settings_ask_for_it(stream: bool) -> None:
    raw_usage = {"input_tokens": 10, "vendor_units": 3}
    scripted = ModelResponse(output=[assistant_message("ok")], usage=Usage(), raw_usage=raw_usage)
    model = ScriptedModel([scripted])
    agent = Agent(
        name="Assistant",
        model=openai_agents_model(model),
        model_settings=ModelSettings(preserve_raw_usage=True),
    )

    result = await run(agent, "hi", stream=stream)

    assert result.raw_responses[0].raw_usage == raw_usage


# -- automatic streaming ------------------------------------------------------------------

AUTOMATIC_EVENT_TYPES = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",  # the message
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.output_item.added",  # the function call
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed",
]


async def test_normal_step_streams_the_full_responses_event_sequence() -> None:
    call = function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")
    model = ScriptedModel([[assistant_message("Checking."), call]])

    events = await collect(stream(model))

    assert [event.type for event in events] == AUTOMATIC_EVENT_TYPES
    assert [event.sequence_number for event in events] == list(range(len(events)))
    delta = events[4]
    assert (delta.item_id, delta.output_index, delta.content_index, delta.delta) == (
        "msg_scripted_0_0",
        0,
        0,
        "Checking.",
    )
    assert (events[9].item_id, events[9].output_index, events[9].delta) == (
        "call_1",
        1,
        '{"city":"Tokyo"}',
    )
    completed = events[-1].response
    assert completed.status == "completed"
    assert (
        completed.output
        == (await respond(ScriptedModel([[assistant_message("Checking."), call]]))).output
    )
    assert [
        event.item for event in events if event.type == "response.output_item.done"
    ] == completed.output


EMPTY_ID_ITEMS = [
    pytest.param(
        {**function_call("get_weather", {"city": "Tokyo"}, call_id="call_1"), "id": ""},
        id="function_call",
    ),
    pytest.param({**assistant_message("Hi."), "id": ""}, id="message"),
    pytest.param(
        {
            "type": "reasoning",
            "id": "",
            "summary": [{"type": "summary_text", "text": "Think."}],
            "content": [{"type": "reasoning_text", "text": "Step."}],
        },
        id="reasoning",
    ),
]


@pytest.mark.parametrize("item", EMPTY_ID_ITEMS)
async def test_an_empty_item_id_stays_empty_in_every_event_of_the_item(
    item: dict[str, Any],
) -> None:
    model = ScriptedModel([[item]])

    events = await collect(stream(model))

    item_events = [event for event in events if getattr(event, "output_index", None) == 0]
    assert len(item_events) > 2  # added, the item's own events, done
    for event in item_events:
        if hasattr(event, "item_id"):
            assert event.item_id == "", event.type
        else:
            assert event.item.id == "", event.type


async def test_a_function_call_without_an_id_names_its_events_by_call_id() -> None:
    model = ScriptedModel([[function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")]])

    events = await collect(stream(model))

    assert {event.item_id for event in events if hasattr(event, "item_id")} == {"call_1"}


REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [
        {"type": "summary_text", "text": "First."},
        {"type": "summary_text", "text": "Second."},
    ],
    "content": [{"type": "reasoning_text", "text": "Because."}],
    "encrypted_content": "opaque",
}


async def test_reasoning_item_is_added_in_progress_without_its_final_content() -> None:
    model = ScriptedModel([[REASONING]])

    events = await collect(stream(model))

    added = next(event for event in events if event.type == "response.output_item.added")
    done = next(event for event in events if event.type == "response.output_item.done")
    assert added.item == ResponseReasoningItem(
        id="rs_1", type="reasoning", summary=[], content=[], status="in_progress"
    )
    assert done.item == events[-1].response.output[0]  # the item as scripted
    assert [part.text for part in done.item.summary] == ["First.", "Second."]
    assert done.item.encrypted_content == "opaque"


async def test_reasoning_summary_and_text_stream_as_reasoning_events() -> None:
    model = ScriptedModel([[REASONING]])

    events = await collect(stream(model))

    assert [event.type for event in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        *[
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done",
            "response.reasoning_summary_part.done",
        ]
        * 2,
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [event.sequence_number for event in events] == list(range(len(events)))
    second = events[7:11]
    assert [event.summary_index for event in second] == [1, 1, 1, 1]
    assert second[0].part.text == ""
    assert (second[1].delta, second[2].text, second[3].part.text) == (
        "Second.",
        "Second.",
        "Second.",
    )
    assert (events[11].content_index, events[11].delta, events[12].text) == (
        0,
        "Because.",
        "Because.",
    )


async def test_a_reasoning_item_streams_the_events_agents_testing_streams() -> None:
    # docs/comparison.md says both doubles stream a reasoning item the same way.
    sdk_testing = pytest.importorskip("agents.testing")
    reasoning = ResponseReasoningItem.model_validate(REASONING)
    reference = sdk_testing.ScriptedModel([[reasoning, sdk_testing.assistant_message("Done.")]])
    model = ScriptedModel([[REASONING, assistant_message("Done.")]])

    def stream_of(double: Model) -> AsyncIterator[Any]:
        return double.stream_response(
            None,
            "hi",
            ModelSettings(),
            [],
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )

    ours = await collect(stream_of(openai_agents_model(model)))
    theirs = await collect(stream_of(reference))

    assert [event.type for event in ours] == [event.type for event in theirs]
    deltas = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")
    assert [event.delta for event in ours if event.type in deltas] == [
        event.delta for event in theirs if event.type in deltas
    ]


async def test_apply_patch_call_is_added_in_progress() -> None:
    patch = {
        "type": "apply_patch_call",
        "call_id": "call_patch",
        "operation": {"type": "create_file", "path": "a.txt", "diff": "+hello\n"},
    }
    model = ScriptedModel([[patch]])

    events = await collect(stream(model))

    added = next(event for event in events if event.type == "response.output_item.added")
    done = next(event for event in events if event.type == "response.output_item.done")
    assert added.item.type == "apply_patch_call"
    assert added.item.status == "in_progress"
    assert done.item.status == "completed"
    # The Responses stream has no event that delivers an operation later, so it stays.
    assert added.item.operation == done.item.operation
    assert added.item.call_id == done.item.call_id == "call_patch"


async def test_streamed_events_are_copies_of_the_final_output() -> None:
    model = ScriptedModel([[assistant_message("Hello.")]])

    events = await collect(stream(model))

    done = next(event for event in events if event.type == "response.output_item.done")
    done.item.content[0].text = "changed"
    assert events[-1].response.output[0].content[0].text == "Hello."


async def test_refusal_streams_as_refusal_events() -> None:
    item = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "refusal", "refusal": "No."}],
    }
    model = ScriptedModel([[item]])

    events = await collect(stream(model))

    assert [event.type for event in events][3:7] == [
        "response.content_part.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.content_part.done",
    ]


async def test_streamed_run_yields_the_sequence_and_the_final_output() -> None:
    model = ScriptedModel([[assistant_message("Paris.")]])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = Runner.run_streamed(agent, "Capital of France?", run_config=RUN_CONFIG)
    raw_types = [
        event.data.type
        async for event in result.stream_events()
        if event.type == "raw_response_event"
    ]

    assert result.final_output == "Paris."
    assert raw_types == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [call.streamed for call in model.calls] == [True]


async def test_responder_step_streams_like_a_fixed_step() -> None:
    model = ScriptedModel(
        [model_responder(lambda call: [assistant_message(f"Call {call.index}.")])]
    )

    events = await collect(stream(model))

    assert [event.type for event in events] == [*AUTOMATIC_EVENT_TYPES[:8], "response.completed"]
    assert events[4].delta == "Call 0."


# -- exact streams ------------------------------------------------------------------------


def done_event(output: list[Any], usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "response_done",
        "response": {
            "id": "resp_exact",
            "request_id": None,
            "usage": usage or {"requests": 1, "input_tokens": 0, "output_tokens": 0},
            "raw_usage": None,
            "provider_data": None,
            "output": output,
        },
    }


async def test_exact_events_map_one_to_one() -> None:
    in_progress = object()  # any SDK event object: passed through as it is
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "model", "event": in_progress},
                    {"type": "output_text_delta", "item_id": None, "delta": "Hel"},
                    {"type": "output_text_delta", "item_id": None, "delta": "lo."},
                    done_event([assistant_message("Hello.")]),
                ]
            )
        ]
    )

    events = await collect(stream(model))

    assert [getattr(event, "type", None) for event in events] == [
        "response.created",
        None,
        "response.output_text.delta",
        "response.output_text.delta",
        "response.completed",
    ]
    assert events[1] is in_progress
    assert [event.sequence_number for event in events if event is not in_progress] == [0, 2, 3, 4]
    first, second = events[2], events[3]
    assert isinstance(first, ResponseTextDeltaEvent)
    assert [(e.item_id, e.output_index, e.delta) for e in (first, second)] == [
        ("msg_scripted_0_0", 0, "Hel"),
        ("msg_scripted_0_0", 0, "lo."),
    ]
    completed = events[-1]
    assert isinstance(completed, ResponseCompletedEvent)
    assert completed.response.id == "resp_exact"
    [message] = completed.response.output
    assert isinstance(message, ResponseOutputMessage)
    assert message.id == first.item_id


async def test_deltas_of_different_items_get_their_own_output_index() -> None:
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "output_text_delta", "item_id": "msg_a", "delta": "A"},
                    {"type": "output_text_delta", "item_id": "msg_b", "delta": "B"},
                    {"type": "output_text_delta", "item_id": "msg_a", "delta": "a"},
                ]
            )
        ]
    )

    events = await collect(stream(model))

    assert [(e.item_id, e.output_index) for e in events] == [
        ("msg_a", 0),
        ("msg_b", 1),
        ("msg_a", 0),
    ]


async def test_exact_stream_finishes_a_streamed_run() -> None:
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "output_text_delta", "item_id": None, "delta": "Hi"},
                    done_event([assistant_message("Hi")]),
                ]
            )
        ]
    )
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = Runner.run_streamed(agent, "hi", run_config=RUN_CONFIG)
    raw_types = [
        event.data.type
        async for event in result.stream_events()
        if event.type == "raw_response_event"
    ]

    assert raw_types == ["response.created", "response.output_text.delta", "response.completed"]
    assert result.final_output == "Hi"
    model.assert_complete()


async def test_model_event_can_finish_the_run_with_an_sdk_completed_event() -> None:
    reference = (await collect(stream(ScriptedModel([[assistant_message("Raw.")]]))))[-1]
    model = ScriptedModel([model_stream([{"type": "model", "event": reference}])])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = await run(agent, "hi", stream=True)

    assert result.final_output == "Raw."


async def test_response_done_usage_reaches_the_run_totals() -> None:
    usage = {
        "requests": 1,
        "input_tokens": 7,
        "output_tokens": 3,
        "total_tokens": 10,
        "input_tokens_details": [{"cached_tokens": 2}],
        "output_tokens_details": [{"reasoning_tokens": 1}],
        "request_usage_entries": None,
    }
    model = ScriptedModel([model_stream([done_event([assistant_message("ok")], usage)])])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = await run(agent, "hi", stream=True)

    totals = result.context_wrapper.usage
    assert (totals.requests, totals.input_tokens, totals.output_tokens, totals.total_tokens) == (
        1,
        7,
        3,
        10,
    )
    assert totals.input_tokens_details.cached_tokens == 2
    assert totals.output_tokens_details.reasoning_tokens == 1


async def test_exact_stream_without_response_done_fails_the_run() -> None:
    from agents.exceptions import ModelBehaviorError

    model = ScriptedModel([model_stream([{"type": "response_started"}])])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    with pytest.raises(ModelBehaviorError, match="did not produce a final response"):
        await run(agent, "hi", stream=True)


async def test_unknown_exact_event_type_is_refused() -> None:
    model = ScriptedModel([model_stream([{"type": "telepathy"}])])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await collect(stream(model))

    error = raised.value
    assert (error.reason, error.call_index, error.step_type) == (
        "invalid_stream_event",
        0,
        "stream",
    )
    assert str(error) == (
        "ScriptedModel call #1 is invalid (invalid stream event). Call #1 (call_index=0): "
        "stream event #1 (event_index=0): its type 'telepathy' is not one of "
        "response_started, output_text_delta, response_done or model."
    )
    with pytest.raises(InvalidScriptedModelStepError):
        model.assert_complete()


async def test_model_event_without_its_event_is_refused() -> None:
    model = ScriptedModel([model_stream([{"type": "model"}])])

    with pytest.raises(InvalidScriptedModelStepError, match='without its "event"'):
        await collect(stream(model))


async def test_exact_event_that_is_not_a_mapping_is_refused() -> None:
    model = ScriptedModel([model_stream([ResponseInProgressEvent.model_construct()])])

    with pytest.raises(
        InvalidScriptedModelStepError, match=r'wrap SDK events as \{"type": "model"'
    ):
        await collect(stream(model))


async def test_closing_the_sdk_iterator_closes_the_scripted_stream() -> None:
    closed = asyncio.Event()

    async def source() -> AsyncIterator[Any]:
        try:
            yield {"type": "response_started"}
            yield {"type": "output_text_delta", "item_id": None, "delta": "never read"}
        finally:
            closed.set()

    model = ScriptedModel([model_stream(source())])
    events = stream(model)

    first = await anext(events)
    await events.aclose()  # type: ignore[attr-defined]

    assert first.type == "response.created"
    assert closed.is_set()


async def test_raw_stream_step_fails_a_non_streamed_call() -> None:
    from agents_testing import InvalidScriptedModelStepError

    model = ScriptedModel([model_stream([{"type": "response_started"}])])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await respond(model)

    assert (raised.value.reason, raised.value.call_index) == ("incompatible_call", 0)


# -- retry --------------------------------------------------------------------------------


class TransientError(Exception):
    pass


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_runner_retries_after_fixed_advice(stream: bool) -> None:
    seen: list[SdkRetryAdvice | None] = []
    provider_suggested = retry_policies.provider_suggested()

    def policy(context: RetryPolicyContext) -> Any:
        seen.append(context.provider_advice)
        return provider_suggested(context)

    advice = ModelRetryAdvice(suggested=True, retry_after=0.0, replay_safety="safe", reason="busy")
    model = ScriptedModel([model_error(TransientError("503"), advice), [assistant_message("ok")]])
    agent = Agent(
        name="Assistant",
        model=openai_agents_model(model),
        model_settings=ModelSettings(retry=ModelRetrySettings(max_retries=1, policy=policy)),
    )

    result = await run(agent, "hi", stream=stream)

    assert result.final_output == "ok"
    assert seen == [
        SdkRetryAdvice(suggested=True, retry_after=0.0, replay_safety="safe", reason="busy")
    ]
    assert [call.streamed for call in model.calls] == [stream, stream]
    assert model.calls[0].request.input == model.calls[1].request.input
    assert result.context_wrapper.usage.requests == 2
    model.assert_complete()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_runner_retries_after_callback_advice(stream: bool) -> None:
    asked: list[RetryAdviceRequest] = []

    def advise(request: RetryAdviceRequest) -> ModelRetryAdvice:
        asked.append(request)
        return ModelRetryAdvice(suggested=request.attempt == 1, retry_after=0.0)

    failure = TransientError("503")
    model = ScriptedModel([model_error(failure, advise), [assistant_message("ok")]])
    agent = Agent(name="Assistant", model=openai_agents_model(model), model_settings=RETRY_ONCE)

    result = await run(agent, "hi", stream=stream)

    assert result.final_output == "ok"
    [question] = asked
    assert (question.error, question.stream, question.attempt) == (failure, stream, 1)
    # The core got the very request the failed call built, not a lookalike.
    assert question.request == model.calls[0].request
    model.assert_complete()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_advice_against_retrying_lets_the_error_through(stream: bool) -> None:
    failure = TransientError("400")
    model = ScriptedModel(
        [model_error(failure, ModelRetryAdvice(suggested=False)), [assistant_message("unused")]]
    )
    agent = Agent(name="Assistant", model=openai_agents_model(model), model_settings=RETRY_ONCE)

    with pytest.raises(TransientError) as raised:
        await run(agent, "hi", stream=stream)

    assert raised.value is failure
    assert (len(model.calls), model.remaining_steps) == (1, 1)


def test_retry_advice_for_an_unknown_error_is_none() -> None:
    adapter = openai_agents_model(ScriptedModel())
    request = ModelRetryAdviceRequest(error=TransientError("x"), attempt=1, stream=False)

    assert adapter.get_retry_advice(request) is None


async def test_advice_lookup_finds_the_failed_calls_request_among_repeats() -> None:
    failure = TransientError("503")
    asked: list[ModelRequest | None] = []

    def advise(request: RetryAdviceRequest) -> None:
        asked.append(request.request)

    model = ScriptedModel([model_error(failure, advise), model_error(failure, advise)])
    adapter = openai_agents_model(model)
    for prompt in ("first", "second"):
        with pytest.raises(TransientError):
            await adapter.get_response(
                None,
                prompt,
                ModelSettings(),
                [],
                None,
                [],
                ModelTracing.DISABLED,
                previous_response_id=None,
                conversation_id=None,
                prompt=None,
            )

    question = ModelRetryAdviceRequest(error=failure, attempt=1, stream=False)
    adapter.get_retry_advice(question)
    adapter.get_retry_advice(question)

    assert [request.input if request else None for request in asked] == ["first", "second"]


# -- recorded request ---------------------------------------------------------------------


class CityAnswer(BaseModel):
    city: str


async def test_recorded_request_holds_the_sdks_own_objects() -> None:
    billing = Agent(name="Billing")
    settings = ModelSettings(temperature=0.2, max_tokens=50)
    model = ScriptedModel([[assistant_message('{"city":"Tokyo"}')]])
    agent = Agent(
        name="Assistant",
        instructions="Answer briefly.",
        model=openai_agents_model(model),
        model_settings=settings,
        tools=[get_weather],
        handoffs=[billing],
        output_type=CityAnswer,
    )

    result = await run(agent, "Where?", stream=False)

    assert result.final_output == CityAnswer(city="Tokyo")
    request = model.calls[0].request
    assert request.input == [{"content": "Where?", "role": "user"}]
    assert request.system_instructions == "Answer briefly."
    assert list(request.model_settings) == [
        field.name for field in dataclasses.fields(ModelSettings)
    ]
    assert (request.model_settings["temperature"], request.model_settings["max_tokens"]) == (
        0.2,
        50,
    )
    assert list(request.tools) == [get_weather]
    assert isinstance(request.tools[0], FunctionTool)
    [transfer] = request.handoffs
    assert isinstance(transfer, Handoff)
    assert transfer.agent_name == "Billing"
    # The read helpers give the names the model sees; the handoff is not one of the tools.
    assert request.handoff_names == ("transfer_to_billing",)
    assert request.tool_names == ("get_weather",)
    assert request.last_user_text == "Where?"
    assert isinstance(request.output_type, AgentOutputSchemaBase)
    assert not request.output_type.is_plain_text()
    assert request.tracing is ModelTracing.DISABLED


async def test_model_settings_values_are_kept_not_converted() -> None:
    retry = ModelRetrySettings(max_retries=1, policy=retry_policies.provider_suggested())
    model = ScriptedModel([[assistant_message("ok")]])
    agent = Agent(
        name="Assistant",
        model=openai_agents_model(model),
        model_settings=ModelSettings(retry=retry, extra_body={"a": [1]}),
    )

    await run(agent, "hi", stream=False)

    settings = model.calls[0].request.model_settings
    assert isinstance(settings["retry"], ModelRetrySettings)
    assert settings["retry"].policy is retry.policy
    assert settings["extra_body"] == {"a": [1]}


async def test_string_input_and_conversation_fields_are_recorded_as_sent() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    prompt = {"id": "pmpt_1", "variables": {"name": "Ada"}}

    await openai_agents_model(model).get_response(
        "Be brief.",
        "hello",
        ModelSettings(),
        [],
        None,
        [],
        ModelTracing.ENABLED,
        previous_response_id="resp_0",
        conversation_id="conv_1",
        prompt=prompt,  # type: ignore[arg-type]
    )

    request = model.calls[0].request
    assert request.input == "hello"
    assert (request.previous_response_id, request.conversation_id) == ("resp_0", "conv_1")
    assert request.prompt == prompt
    assert request.tracing is ModelTracing.ENABLED


async def test_second_turn_input_holds_the_tool_call_and_output_as_the_sdk_sends_them() -> None:
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("Sunny.")],
        ]
    )
    agent = Agent(name="Assistant", model=openai_agents_model(model), tools=[get_weather])

    await run(agent, "Weather?", stream=False)

    assert model.calls[1].request.input == [
        {"content": "Weather?", "role": "user"},
        {
            "arguments": '{"city":"Tokyo"}',
            "call_id": "call_1",
            "name": "get_weather",
            "type": "function_call",
            "id": "call_1",
            "status": "completed",
        },
        {"call_id": "call_1", "output": "Tokyo: sunny", "type": "function_call_output"},
    ]


# -- script violations and cancellation ---------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_unexpected_call_surfaces_from_the_run_and_from_assert_complete(stream: bool) -> None:
    model = ScriptedModel([[function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")]])
    agent = Agent(name="Assistant", model=openai_agents_model(model), tools=[get_weather])

    with pytest.raises(UnexpectedModelCallError) as raised:
        await run(agent, "Weather?", stream=stream)
    assert (raised.value.call_index, raised.value.streamed) == (1, stream)

    # Even when the application swallows it, the test still fails at assert_complete().
    with contextlib.suppress(Exception):
        await run(agent, "Weather?", stream=stream)
    with pytest.raises(UnexpectedModelCallError) as again:
        model.assert_complete()
    assert again.value.call_index == 1


async def test_call_cancelled_before_it_starts_takes_no_step() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    adapter = openai_agents_model(model)

    task = asyncio.ensure_future(
        adapter.get_response(
            None,
            "hi",
            ModelSettings(),
            [],
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
    )
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert (model.calls, model.remaining_steps) == ((), 1)
    assert (await respond(model)).output[0].type == "message"


async def test_streamed_call_takes_its_step_when_called() -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    events = stream(model)

    assert (len(model.calls), model.remaining_steps) == (1, 0)
    assert model.calls[0].streamed is True
    await events.aclose()  # type: ignore[attr-defined]


# -- import -------------------------------------------------------------------------------


def test_import_without_the_sdk_names_the_extra() -> None:
    script = (
        "import sys\n"
        "sys.modules['agents'] = None\n"
        "import agents_testing.adapters\n"
        "try:\n"
        "    import agents_testing.adapters.openai_agents\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )

    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert 'pip install "agents-testing[openai-agents]"' in completed.stdout


def test_the_sdk_realtime_package_loads_only_when_a_realtime_name_is_used() -> None:
    script = (
        "import sys\n"
        "import agents_testing.adapters.openai_agents as adapter\n"
        "print('agents.realtime' in sys.modules)\n"
        "from agents_testing.adapters.openai_agents import openai_agents_realtime_model\n"
        "from agents_testing.adapters._openai_agents_realtime import (\n"
        "    openai_agents_realtime_model as real,\n"
        ")\n"
        "print('agents.realtime' in sys.modules, openai_agents_realtime_model is real)\n"
        "wait = adapter.wait_for_session_event\n"
        "print(wait.__module__, 'wait_for_session_event' in dir(adapter))\n"
        "try:\n"
        "    adapter.no_such_name\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
    )

    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert completed.stdout.splitlines() == [
        "False",
        "True True",
        "agents_testing.adapters._openai_agents_realtime True",
        "module 'agents_testing.adapters.openai_agents' has no attribute 'no_such_name'",
    ]


def test_the_sandbox_and_route_parts_load_only_when_one_of_their_names_is_used() -> None:
    script = (
        "import sys\n"
        "import agents_testing.adapters.openai_agents as adapter\n"
        "parts = ['agents_testing.adapters._openai_agents_sandbox',\n"
        "         'agents_testing.adapters._openai_agents_route', 'agents_testing.sandbox']\n"
        "print([part in sys.modules for part in parts])\n"
        "from agents_testing.adapters.openai_agents import openai_agents_sandbox_session\n"
        "from agents_testing.adapters._openai_agents_sandbox import (\n"
        "    openai_agents_sandbox_session as real,\n"
        ")\n"
        "print([part in sys.modules for part in parts], openai_agents_sandbox_session is real)\n"
        "route = adapter.route_openai_agents_models\n"
        "print([part in sys.modules for part in parts], route.__module__)\n"
        "print(all(name in dir(adapter) for name in adapter.__all__))\n"
    )

    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert completed.stdout.splitlines() == [
        "[False, False, False]",
        "[True, False, True] True",
        "[True, True, True] agents_testing.adapters._openai_agents_route",
        "True",
    ]


# -- optional steps: a model call that may or may not happen ---------------------------------


@input_guardrail(run_in_parallel=True)
def parallel_blocklist(context: Any, agent: Agent[Any], prompt: Any) -> GuardrailFunctionOutput:
    """Trip on every prompt, while the model call runs next to it."""
    return GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)


@input_guardrail(run_in_parallel=False)
def blocking_blocklist(context: Any, agent: Agent[Any], prompt: Any) -> GuardrailFunctionOutput:
    """Trip on every prompt before the model is called."""
    return GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_model_call_racing_a_tripped_parallel_guardrail_is_an_optional_step(
    stream: bool,
) -> None:
    model = ScriptedModel([optional_step([assistant_message("never shown")])])
    agent = Agent(
        name="Assistant",
        model=openai_agents_model(model),
        input_guardrails=[parallel_blocklist],
    )

    with pytest.raises(InputGuardrailTripwireTriggered):
        await run(agent, "forbidden request", stream=stream)

    # Whether the SDK made the model call before the guardrail tripped is up to its
    # scheduling: the optional step passes either way.
    assert len(model.calls) == 1 - model.remaining_steps
    model.assert_complete()


async def test_optional_step_left_unused_by_a_blocking_guardrail_passes() -> None:
    model = ScriptedModel([optional_step([assistant_message("never shown")])])
    agent = Agent(
        name="Assistant",
        model=openai_agents_model(model),
        input_guardrails=[blocking_blocklist],
    )

    with pytest.raises(InputGuardrailTripwireTriggered):
        await run(agent, "forbidden request", stream=False)

    assert (len(model.calls), model.remaining_steps) == (0, 1)
    model.assert_complete()


async def test_the_same_step_without_optional_is_reported_unused() -> None:
    model = ScriptedModel([[assistant_message("never shown")]])
    agent = Agent(
        name="Assistant",
        model=openai_agents_model(model),
        input_guardrails=[blocking_blocklist],
    )

    with pytest.raises(InputGuardrailTripwireTriggered):
        await run(agent, "forbidden request", stream=False)

    with pytest.raises(UnconsumedModelStepsError) as raised:
        model.assert_complete()
    assert raised.value.pending_steps == (
        {"step_index": 0, "type": "response", "summary": "assistant message 'never shown'"},
    )


# -- shell_call: the hosted shell tool's call item ----------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_shell_call_item_runs_the_shell_tools_executor(stream: bool) -> None:
    ran: list[list[str]] = []

    def executor(request: ShellCommandRequest) -> str:
        ran.append(list(request.data.action.commands))
        return "README.md"

    model = ScriptedModel(
        [
            [shell_call(["ls", "pwd"], call_id="call_sh", timeout_ms=5000)],
            [assistant_message("One file.")],
        ]
    )
    agent = Agent(
        name="Shell assistant", model=openai_agents_model(model), tools=[ShellTool(executor)]
    )

    result = await run(agent, "What is here?", stream=stream)

    assert result.final_output == "One file."
    assert ran == [["ls", "pwd"]]
    second = model.calls[1].request
    assert second.tool_names == ("shell",)
    assert list(second.tool_outputs) == ["call_sh"]
    assert "README.md" in str(second.tool_outputs["call_sh"])
    model.assert_complete()


# -- hand-written response_done events ------------------------------------------------------


@pytest.mark.parametrize(("response", "problem"), UNREADABLE_DONE_RESPONSES)
async def test_unreadable_response_done_is_refused_and_recorded(
    response: Any, problem: str
) -> None:
    model = ScriptedModel(
        [
            model_stream(
                [{"type": "response_started"}, {"type": "response_done", "response": response}]
            )
        ]
    )

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await collect(stream(model))

    error = raised.value
    assert (error.reason, error.call_index, error.step_type) == (
        "invalid_stream_event",
        0,
        "stream",
    )
    assert error.detail is not None
    assert error.detail.startswith(f"stream event #2 (event_index=1): {problem}")
    assert "script it as" in str(error)
    with pytest.raises(InvalidScriptedModelStepError) as again:
        model.assert_complete()
    assert again.value.detail == error.detail


@pytest.mark.parametrize("response", [None, {"output": None}, {"id": "resp_1"}])
async def test_response_done_without_output_is_refused(response: Any) -> None:
    # The SDK builds the run's final response from it: read as empty, the reply would be lost.
    model = ScriptedModel([model_stream([{"type": "response_done", "response": response}])])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await collect(stream(model))

    assert raised.value.detail is not None
    problem = "its response has no output" if response else "its response is a NoneType"
    assert raised.value.detail.startswith(f"stream event #1 (event_index=0): {problem}")
    assert "script" in raised.value.detail


async def test_streamed_output_item_that_is_neither_mapping_nor_sdk_object_is_refused() -> None:
    # A plain call's output is checked when it is scripted; a hand-written stream's only here.
    done = {"type": "response_done", "response": {"output": [assistant_message("ok"), "Hello."]}}
    model = ScriptedModel([model_stream([done])])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await collect(stream(model))

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type) == (0, 1, None)
    assert error.reason.startswith("it is a str, not an output item: script a mapping such as")
    with pytest.raises(InvalidScriptedModelOutputError):
        model.assert_complete()


@pytest.mark.parametrize(
    ("response", "problem"),
    [
        ({"id": ["resp_1"], "output": []}, "id: Input should be a valid string"),
        (
            {"usage": {"input_tokens": "many"}, "output": []},
            "its response's usage cannot be read: Usage.input_tokens must be an int, got str.",
        ),
    ],
)
async def test_response_done_with_fields_of_the_wrong_type_is_refused(
    response: dict[str, Any], problem: str
) -> None:
    model = ScriptedModel([model_stream([{"type": "response_done", "response": response}])])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await collect(stream(model))

    error = raised.value
    assert (error.reason, error.call_index) == ("invalid_stream_event", 0)
    assert error.detail is not None
    assert problem in error.detail
    assert "fix the event's response" in error.detail or "Fix it or leave it out." in error.detail


@settings(max_examples=150, deadline=None, database=None)
@given(done_responses())
async def test_any_response_done_gives_a_response_or_a_structured_error(response: Any) -> None:
    with served_or_refused(response) as model:
        events = await collect(stream(model))
        assert [event.type for event in events] == ["response.completed"]
