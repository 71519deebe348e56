"""The pydantic-ai adapter against a real ``pydantic_ai.Agent``."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai")

import copy
import dataclasses
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    BinaryContent,
    FilePart,
    ImageUrl,
    ModelMessage,
    PartDeltaEvent,
    PartStartEvent,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.messages import ModelRequest as PydanticModelRequest
from pydantic_ai.messages import ModelResponse as PydanticModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.output import NativeOutput, OutputObjectDefinition
from pydantic_ai.usage import RunUsage

from agents_testing import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_stream,
)
from agents_testing.adapters.pydantic_ai import ScriptedPydanticAIModel, pydantic_ai_model

from .contract import (
    ANSWER,
    PROMPT,
    UNREADABLE_DONE_RESPONSES,
    ContractError,
    done_responses,
    served_or_refused,
    tool_script,
)

# A space after the colon: not the compact JSON that function_call() or pydantic-ai 2.x write.
EXACT_ARGUMENTS = '{"city": "Tokyo"}'


# An output item pydantic-ai has no response part for.
WEB_SEARCH = {"type": "web_search_call", "id": "ws_1", "status": "completed"}


def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


class Forecast(BaseModel):
    city: str
    sky: str


def weather_agent(model: ScriptedModel, **options: Any) -> Agent[None, Any]:
    return Agent(pydantic_ai_model(model), tools=[get_weather], **options)


async def run_agent(
    agent: Agent[None, Any], prompt: str, *, stream: bool
) -> tuple[Any, list[ModelMessage], RunUsage]:
    """Run ``agent`` plainly or through ``run_stream``; return its output, messages and usage."""
    if stream:
        async with agent.run_stream(prompt) as streamed:
            output = await streamed.get_output()
        return output, streamed.all_messages(), run_usage(streamed)
    result = await agent.run(prompt)
    return result.output, result.all_messages(), run_usage(result)


def run_usage(result: Any) -> RunUsage:
    # ``usage`` is a method in pydantic-ai 1.x and a property (calling it warns) in 2.x.
    usage = result.usage
    return usage if isinstance(usage, RunUsage) else usage()


def responses(messages: list[ModelMessage]) -> list[PydanticModelResponse]:
    return [message for message in messages if isinstance(message, PydanticModelResponse)]


stream_modes = pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])


def exact_tool_script() -> list[Any]:
    return [
        [function_call("get_weather", EXACT_ARGUMENTS, call_id="call_1")],
        [assistant_message(ANSWER)],
    ]


# -- requests -----------------------------------------------------------------------------


@stream_modes
async def test_second_call_input_is_the_exact_normalized_history(stream: bool) -> None:
    model = ScriptedModel(exact_tool_script())

    await run_agent(weather_agent(model), PROMPT, stream=stream)

    assert model.calls[1].request.input == [
        {"type": "message", "role": "user", "content": PROMPT},
        function_call("get_weather", EXACT_ARGUMENTS, call_id="call_1"),
        {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"},
    ]


async def test_system_prompt_is_an_input_item_and_instructions_are_system_instructions() -> None:
    model = ScriptedModel([[assistant_message(ANSWER)]])
    agent = weather_agent(model, system_prompt="You are terse.", instructions="Answer in English.")

    await agent.run(PROMPT)

    request = model.calls[0].request
    assert request.system_instructions == "Answer in English."
    assert request.input == [
        {"type": "message", "role": "system", "content": "You are terse."},
        {"type": "message", "role": "user", "content": PROMPT},
    ]


async def test_dynamic_instructions_are_recorded_per_call() -> None:
    model = ScriptedModel(tool_script())
    agent = weather_agent(model)
    turns: list[str] = []

    @agent.instructions
    def numbered() -> str:
        turns.append("turn")
        return f"Turn {len(turns)}."

    await agent.run(PROMPT)

    assert [call.request.system_instructions for call in model.calls] == ["Turn 1.", "Turn 2."]


async def test_recorded_request_keeps_settings_tools_and_pydantic_ai_objects() -> None:
    model = ScriptedModel([[assistant_message(ANSWER)]])
    agent = weather_agent(model, model_settings={"temperature": 0.0, "max_tokens": 50})

    await agent.run(PROMPT)

    request = model.calls[0].request
    assert request.model_settings == {"temperature": 0.0, "max_tokens": 50}
    [tool] = request.tools
    assert (tool.name, tool.parameters_json_schema["required"]) == ("get_weather", ["city"])
    assert request.output_type is None
    [message] = request.extra["messages"]
    assert message.parts[0].content == PROMPT
    assert request.extra["model_request_parameters"].allow_text_output is True


async def test_user_prompt_with_an_image_keeps_the_image_object() -> None:
    model = ScriptedModel([[assistant_message(ANSWER)]])
    image = ImageUrl(url="https://example.com/tokyo.png")

    await weather_agent(model).run(["Describe the sky.", image])

    assert model.calls[0].request.input == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Describe the sky."}, image],
        }
    ]


async def test_model_retry_from_a_tool_reaches_the_next_call_as_its_output() -> None:
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Atlantis"}, call_id="call_1")],
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_2")],
            [assistant_message(ANSWER)],
        ]
    )

    def get_weather(city: str) -> str:
        """Return the weather in a city."""
        if city == "Atlantis":
            raise ModelRetry("Unknown city, try a real one.")
        return f"{city}: sunny"

    agent = Agent(pydantic_ai_model(model), tools=[get_weather])

    assert (await agent.run(PROMPT)).output == ANSWER

    second_input = cast_list(model.calls[1].request.input)
    [retried] = [item for item in second_input if item["type"] == "function_call_output"]
    assert retried["call_id"] == "call_1"
    assert "Unknown city, try a real one." in retried["output"]
    model.assert_complete()


# -- responses ----------------------------------------------------------------------------


@stream_modes
async def test_tool_call_part_keeps_the_exact_argument_string_and_call_id(stream: bool) -> None:
    model = ScriptedModel(exact_tool_script())

    _, messages, _ = await run_agent(weather_agent(model), PROMPT, stream=stream)

    [call] = responses(messages)[0].parts
    assert isinstance(call, ToolCallPart)
    assert (call.tool_name, call.args, call.tool_call_id) == (
        "get_weather",
        EXACT_ARGUMENTS,
        "call_1",
    )
    [tool_return] = messages[2].parts
    assert isinstance(tool_return, ToolReturnPart)
    assert (tool_return.tool_call_id, tool_return.content) == ("call_1", "Tokyo: sunny")


@stream_modes
async def test_usage_and_response_id_reach_the_run_result(stream: bool) -> None:
    model = ScriptedModel(
        [
            ModelResponse(
                [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
                Usage(input_tokens=10, output_tokens=4, input_tokens_details={"cached_tokens": 6}),
                response_id="resp_1",
            ),
            ModelResponse(
                [assistant_message(ANSWER)],
                Usage(
                    input_tokens=20, output_tokens=7, output_tokens_details={"reasoning_tokens": 3}
                ),
                response_id="resp_2",
                provider_data={"region": "test"},
            ),
        ]
    )

    _, messages, usage = await run_agent(weather_agent(model), PROMPT, stream=stream)

    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (2, 30, 11)
    assert usage.cache_read_tokens == 6
    assert usage.details == {"reasoning_tokens": 3}
    assert [response.provider_response_id for response in responses(messages)] == [
        "resp_1",
        "resp_2",
    ]
    assert [response.provider_details for response in responses(messages)] == [
        None,
        {"region": "test"},
    ]
    assert {response.model_name for response in responses(messages)} == {"scripted"}


async def test_scripted_error_reaches_the_caller_unchanged() -> None:
    failure = ContractError("model unavailable")
    model = ScriptedModel([model_error(failure)])

    with pytest.raises(ContractError) as raised:
        await weather_agent(model).run(PROMPT)

    assert raised.value is failure


async def test_structured_output_type_goes_through_its_output_tool() -> None:
    model = ScriptedModel(
        [[function_call("final_result", '{"city": "Tokyo", "sky": "sunny"}', call_id="out_1")]]
    )
    agent = Agent(pydantic_ai_model(model), output_type=Forecast)

    result = await agent.run(PROMPT)

    assert result.output == Forecast(city="Tokyo", sky="sunny")
    request = model.calls[0].request
    assert [tool.name for tool in request.output_type] == ["final_result"]
    assert request.tools == []
    model.assert_complete()


async def test_unusable_output_is_retried_with_a_user_message_and_no_extra_system_text() -> None:
    model = ScriptedModel(
        [
            [assistant_message("Sunny, I think.")],
            [function_call("final_result", {"city": "Tokyo", "sky": "sunny"}, call_id="out_1")],
        ]
    )
    agent = Agent(pydantic_ai_model(model), output_type=Forecast, instructions="Be brief.")

    assert (await agent.run(PROMPT)).output == Forecast(city="Tokyo", sky="sunny")

    # pydantic-ai words the feedback differently across versions; its place and role are stable.
    [prompt, answer, feedback] = cast_list(model.calls[1].request.input)
    assert prompt == {"type": "message", "role": "user", "content": PROMPT}
    assert answer == assistant_message("Sunny, I think.")
    assert (feedback["type"], feedback["role"]) == ("message", "user")
    assert model.calls[1].request.system_instructions == "Be brief."


async def test_native_output_records_the_output_object() -> None:
    model = ScriptedModel([[assistant_message('{"city": "Tokyo", "sky": "sunny"}')]])
    agent = Agent(pydantic_ai_model(model), output_type=NativeOutput(Forecast))

    assert (await agent.run(PROMPT)).output == Forecast(city="Tokyo", sky="sunny")

    output_object = model.calls[0].request.output_type
    assert isinstance(output_object, OutputObjectDefinition)
    assert output_object.json_schema["required"] == ["city", "sky"]


async def test_output_item_without_a_part_fails_with_its_position() -> None:
    model = ScriptedModel([[assistant_message(ANSWER), WEB_SEARCH]])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await weather_agent(model).run(PROMPT)

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        1,
        "web_search_call",
        "pydantic-ai",
    )
    assert error.reason.startswith("pydantic-ai has no response part for it")
    assert str(error).startswith(
        "ScriptedModel call #1 (call_index=0) output item #2 (output_index=1) of type "
        "'web_search_call' is not valid for pydantic-ai: "
    )
    with pytest.raises(InvalidScriptedModelOutputError):
        model.assert_complete()


@pytest.mark.parametrize("stream", [False, True])
async def test_a_string_message_content_is_the_text(stream: bool) -> None:
    model = ScriptedModel([[{"type": "message", "role": "assistant", "content": ANSWER}]])

    output, _, _ = await run_agent(weather_agent(model), PROMPT, stream=stream)

    assert output == ANSWER
    model.assert_complete()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ([{"type": "refusal", "refusal": "I cannot help."}], "content part #1 is a 'refusal' part"),
        ({"type": "output_text", "text": ANSWER}, "its content is a dict"),
        ([{"type": "output_text", "text": ANSWER}, {"type": "output_text"}], "content part #2"),
        ([{"type": "output_text", "text": ANSWER}, "bare"], "content part #2 is a part without"),
    ],
)
@pytest.mark.parametrize("mode", ["run", "run_stream", "response_done"])
async def test_message_content_a_text_part_cannot_hold_is_refused_not_dropped(
    content: Any, problem: str, mode: str
) -> None:
    output = [{"type": "message", "role": "assistant", "content": content}]
    done = {"type": "response_done", "response": done_payload(output)}
    model = ScriptedModel([model_stream([done]) if mode == "response_done" else output])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await run_agent(weather_agent(model), PROMPT, stream=mode != "run")

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        0,
        "message",
        "pydantic-ai",
    )
    assert error.reason.startswith(problem)
    assert error.reason.endswith(
        "an assistant message's content for pydantic-ai is a string or a list of "
        '{"type": "output_text", "text": ...} parts (pydantic-ai has no part for a refusal).'
    )
    assert "Fix the item in the script" in str(error)
    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert again.value.reason == error.reason


async def test_function_call_without_a_name_is_a_structured_error() -> None:
    model = ScriptedModel([[{"type": "function_call", "call_id": "c", "arguments": "{}"}]])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await weather_agent(model).run(PROMPT)

    assert (raised.value.output_index, raised.value.reason) == (
        0,
        'a function_call needs a string "name".',
    )


async def test_pydantic_ai_response_parts_are_accepted_as_output_items() -> None:
    model = ScriptedModel([[TextPart(content=ANSWER)]])

    result = await weather_agent(model).run(PROMPT)

    assert result.output == ANSWER
    model.assert_complete()


def test_pydantic_ai_model_wraps_only_a_scripted_model() -> None:
    model = ScriptedModel()
    adapted = pydantic_ai_model(model)

    assert isinstance(adapted, ScriptedPydanticAIModel)
    assert adapted.scripted_model is model
    with pytest.raises(TypeError, match="expects a ScriptedModel"):
        pydantic_ai_model(object())  # type: ignore[arg-type]


# -- streaming ----------------------------------------------------------------------------


async def test_streamed_text_arrives_as_the_scripted_deltas() -> None:
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "It is "},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "sunny."},
                    {"type": "response_done", "response": done_payload([])},
                ]
            )
        ]
    )

    async with weather_agent(model).run_stream(PROMPT) as streamed:
        deltas = [delta async for delta in streamed.stream_text(delta=True, debounce_by=None)]

    assert deltas == ["It is ", "sunny."]
    assert model.calls[0].streamed is True


async def test_stream_events_show_the_tool_call_part_and_text_deltas() -> None:
    model = ScriptedModel(
        [
            [function_call("get_weather", EXACT_ARGUMENTS, call_id="call_1")],
            model_stream(
                [
                    {"type": "output_text_delta", "item_id": None, "delta": "It is "},
                    {"type": "output_text_delta", "item_id": None, "delta": "sunny."},
                    {"type": "response_done", "response": done_payload([])},
                ]
            ),
        ]
    )

    events = await model_events(weather_agent(model), PROMPT)

    [call_start, text_start, text_delta] = events
    assert isinstance(call_start, PartStartEvent)
    assert isinstance(call_start.part, ToolCallPart)
    assert (call_start.part.args, call_start.part.tool_call_id) == (EXACT_ARGUMENTS, "call_1")
    assert isinstance(text_start, PartStartEvent)
    assert text_start.part == TextPart(content="It is ")
    assert isinstance(text_delta, PartDeltaEvent)
    assert text_delta.delta == TextPartDelta(content_delta="sunny.")


async def test_a_hand_written_usage_may_hold_single_details_mappings() -> None:
    # As Usage() accepts them: one mapping, not a list of one per request.
    response = done_payload([assistant_message(ANSWER)])
    response["usage"] = {
        "input_tokens": 9,
        "output_tokens": 2,
        "input_tokens_details": {"cached_tokens": 4},
        "output_tokens_details": {"reasoning_tokens": 1},
    }
    model = ScriptedModel([model_stream([{"type": "response_done", "response": response}])])

    _, _, usage = await run_agent(weather_agent(model), PROMPT, stream=True)

    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (9, 2, 4)
    assert usage.details == {"reasoning_tokens": 1}


async def test_exact_stream_may_carry_only_response_done() -> None:
    output = [assistant_message(ANSWER)]
    model = ScriptedModel(
        [model_stream([{"type": "response_done", "response": done_payload(output)}])]
    )

    async with weather_agent(model).run_stream(PROMPT) as streamed:
        assert await streamed.get_output() == ANSWER


async def test_model_event_adds_a_pydantic_ai_part() -> None:
    thinking = ThinkingPart(content="Check the tool first.")
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "model", "event": thinking},
                    {"type": "model", "event": TextPart(content=ANSWER)},
                    {"type": "response_done", "response": done_payload([])},
                ]
            )
        ]
    )

    async with weather_agent(model).run_stream(PROMPT) as streamed:
        assert await streamed.get_output() == ANSWER

    assert responses(streamed.all_messages())[0].parts == [thinking, TextPart(content=ANSWER)]


async def test_streamed_output_item_without_a_part_fails_as_a_plain_call_does() -> None:
    # Once from a plain response step (automatic stream), once from a scripted response_done.
    output = [assistant_message(ANSWER), WEB_SEARCH]
    model = ScriptedModel(
        [
            output,
            model_stream([{"type": "response_done", "response": done_payload(output)}]),
        ]
    )

    for call_index in (0, 1):
        with pytest.raises(InvalidScriptedModelOutputError) as raised:
            async with weather_agent(model).run_stream(PROMPT) as streamed:
                await streamed.get_output()

        error = raised.value
        assert (error.call_index, error.output_index, error.item_type, error.framework) == (
            call_index,
            1,
            "web_search_call",
            "pydantic-ai",
        )
        assert error.reason.startswith("pydantic-ai has no response part for it")
        assert str(error).startswith(
            f"ScriptedModel call #{call_index + 1} (call_index={call_index}) output item #2 "
            "(output_index=1) of type 'web_search_call' is not valid for pydantic-ai: "
        )
        assert "Fix the item in the script" in str(error)
    # Recorded, so a framework that swallowed it cannot hide the broken script.
    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert (again.value.call_index, again.value.output_index) == (0, 1)


async def test_streamed_function_call_without_a_name_fails_as_a_plain_call_does() -> None:
    model = ScriptedModel([[{"type": "function_call", "call_id": "c", "arguments": "{}"}]])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        async with weather_agent(model).run_stream(PROMPT) as streamed:
            await streamed.get_output()

    assert (raised.value.output_index, raised.value.reason) == (
        0,
        'a function_call needs a string "name".',
    )


async def test_pydantic_ai_parts_scripted_as_output_items_are_streamed() -> None:
    thinking = ThinkingPart(content="Check the tool first.")
    model = ScriptedModel([[thinking, assistant_message(ANSWER)]])

    async with weather_agent(model).run_stream(PROMPT) as streamed:
        assert await streamed.get_output() == ANSWER

    # The text was streamed before response_done, so the other parts follow it.
    assert responses(streamed.all_messages())[0].parts == [TextPart(content=ANSWER), thinking]
    model.assert_complete()


async def test_leaving_a_stream_early_closes_the_scripted_source() -> None:
    closed: list[bool] = []

    async def events() -> AsyncIterator[Any]:
        try:
            yield {"type": "output_text_delta", "item_id": None, "delta": "It is "}
            yield {"type": "output_text_delta", "item_id": None, "delta": "sunny."}
            yield {"type": "response_done", "response": done_payload([])}
        finally:
            closed.append(True)

    model = ScriptedModel([model_stream(events())])

    async with weather_agent(model).run_stream(PROMPT) as streamed:
        async for _ in streamed.stream_text(delta=True, debounce_by=None):
            break

    assert closed == [True]


async def test_unknown_stream_event_fails_naming_what_is_supported() -> None:
    model = ScriptedModel([model_stream([{"type": "audio_delta", "delta": "..."}])])

    with pytest.raises(InvalidScriptedModelStepError, match="output_text_delta or response_done"):
        async with weather_agent(model).run_stream(PROMPT) as streamed:
            await streamed.get_output()

    with pytest.raises(InvalidScriptedModelStepError) as again:
        model.assert_complete()
    assert (again.value.reason, again.value.call_index) == ("invalid_stream_event", 0)
    assert "stream event #1 (event_index=0): the pydantic-ai adapter cannot stream its type " in (
        str(again.value)
    )


async def test_a_refused_event_survives_a_failing_source_close() -> None:
    class Source:
        def __aiter__(self) -> Source:
            return self

        async def __anext__(self) -> dict[str, Any]:
            return {"type": "audio_delta", "delta": "..."}

        async def aclose(self) -> None:
            raise RuntimeError("aclose broke")

    model = ScriptedModel([model_stream(Source())])

    # The adapter's refusal is what the agent must see, not the close that followed it.
    with pytest.raises(InvalidScriptedModelStepError) as raised:
        async with weather_agent(model).run_stream(PROMPT) as streamed:
            await streamed.get_output()

    assert raised.value.reason == "invalid_stream_event"
    assert any("aclose broke" in note for note in getattr(raised.value, "__notes__", []))


async def test_stream_event_missing_its_data_is_a_structured_error() -> None:
    model = ScriptedModel([model_stream([{"type": "output_text_delta"}])])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        async with weather_agent(model).run_stream(PROMPT) as streamed:
            await streamed.get_output()

    assert raised.value.reason == "invalid_stream_event"
    assert "it cannot be read (KeyError: 'delta')" in str(raised.value)


def done_payload(output: list[Any]) -> dict[str, Any]:
    return {
        "id": "resp_stream",
        "request_id": None,
        "usage": {"requests": 1, "input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
        "raw_usage": None,
        "provider_data": None,
        "output": output,
    }


async def model_events(agent: Agent[None, Any], prompt: str) -> list[Any]:
    """Return the part events of every model response in a streamed run, in order."""
    events: list[Any] = []
    async with agent.iter(prompt) as run:
        async for node in run:
            if Agent.is_model_request_node(node):
                async with node.stream(run.ctx) as stream:
                    events.extend(
                        [e async for e in stream if isinstance(e, (PartStartEvent, PartDeltaEvent))]
                    )
    return events


@pytest.mark.parametrize(("response", "problem"), UNREADABLE_DONE_RESPONSES)
async def test_an_unreadable_response_done_is_refused_and_recorded(
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
        async with weather_agent(model).run_stream(PROMPT) as streamed:
            await streamed.get_output()

    error = raised.value
    assert (error.reason, error.call_index, error.input_index) == ("invalid_stream_event", 0, None)
    assert error.detail is not None
    assert error.detail.startswith(f"stream event #2 (event_index=1): {problem}")
    message = str(error)
    assert "Call #1 (call_index=0)" in message
    assert "script it as" in message
    # Recorded, so the test fails even when pydantic-ai swallows the error.
    with pytest.raises(InvalidScriptedModelStepError) as again:
        model.assert_complete()
    assert (again.value.reason, again.value.detail) == (error.reason, error.detail)


async def test_response_done_without_output_is_refused() -> None:
    done = done_payload([])
    del done["output"]
    model = ScriptedModel([model_stream([{"type": "response_done", "response": done}])])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        async with weather_agent(model).run_stream(PROMPT) as streamed:
            await streamed.get_output()

    assert (raised.value.reason, raised.value.call_index) == ("invalid_stream_event", 0)
    assert "its response has no output; script the output items as a list" in str(raised.value)
    with pytest.raises(InvalidScriptedModelStepError):
        model.assert_complete()


# -- packaging ----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, database=None)
@given(done_responses())
async def test_any_response_done_gives_a_response_or_a_structured_error(response: Any) -> None:
    messages: list[ModelMessage] = [PydanticModelRequest(parts=[UserPromptPart("hi")])]

    with served_or_refused(response) as model:
        adapter = pydantic_ai_model(model)
        async with adapter.request_stream(messages, None, ModelRequestParameters()) as streamed:
            async for _ in streamed:
                pass
        assert isinstance(streamed.get(), PydanticModelResponse)


def test_import_without_pydantic_ai_names_the_extra() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["pydantic_ai"] = None
        try:
            import agents_testing.adapters.pydantic_ai
        except ImportError as error:
            print(error)
        else:
            raise SystemExit("imported without pydantic-ai")
        """
    )

    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )

    assert 'pip install "agents-testing[pydantic-ai]"' in done.stdout


# -- history sent again on every call ------------------------------------------------------


async def send(adapter: ScriptedPydanticAIModel, messages: list[ModelMessage]) -> None:
    await adapter.request(messages, None, ModelRequestParameters())


async def fresh_record(messages: list[ModelMessage]) -> ModelRequest:
    """Record ``messages`` on a new adapter, which has no earlier call to reuse."""
    model = ScriptedModel([[assistant_message("ok")]])
    await send(pydantic_ai_model(model), messages)
    return model.calls[0].request


def exact(request: ModelRequest) -> str:
    """Describe what a request recorded, telling 1 from 1.0 and True, and key orders apart.

    Parts recorded as they are must be the very objects sent, so their ids count too.
    """
    kept = [id(item) for item in request.input if not isinstance(item, dict)]
    return repr((request.input, request.system_instructions, kept))


def history() -> list[ModelMessage]:
    return [
        PydanticModelRequest(
            parts=[SystemPromptPart("Be brief."), UserPromptPart(["Weather?", "Now."])]
        ),
        PydanticModelResponse(
            parts=[
                ToolCallPart("get_weather", {"n": 1, "m": 2}, tool_call_id="c1"),
                FilePart(BinaryContent(b"chart", media_type="image/png")),
            ]
        ),
        PydanticModelRequest(parts=[ToolReturnPart("get_weather", {"n": 1}, tool_call_id="c1")]),
    ]


async def test_a_message_changed_in_place_is_recorded_as_it_was_at_each_call() -> None:
    model = ScriptedModel([[assistant_message("ok")] for _ in range(5)])
    adapter = pydantic_ai_model(model)
    messages = history()
    call = cast_tool_call(messages[1])
    returned = cast_tool_return(messages[2])
    expected: list[str] = []
    kept: list[Any] = []

    for change in range(5):
        expected.append(exact(await fresh_record(messages)))
        kept.append(messages[1].parts[1])
        await send(adapter, messages)
        if change == 0:
            # Same objects, equal-looking values of other types.
            call.args["n"] = True  # type: ignore[index]
            returned.content["n"] = 1.0
        elif change == 1:
            call.args = {"m": 2, "n": 1}  # the same keys in another order
            returned.outcome = "failed"
            system = messages[0].parts[0]
            assert isinstance(system, SystemPromptPart)
            system.content = "Be verbose."
        elif change == 2:
            # An equal part, another object, in the same (typed read-only) parts list.
            cast_list(messages[1].parts)[1] = FilePart(
                BinaryContent(b"chart", media_type="image/png")
            )
        else:
            user = messages[0].parts[1]
            assert isinstance(user, UserPromptPart)
            cast_list(user.content).append("Later.")
            cast_list(messages[2].parts).append(
                ToolReturnPart("get_weather", "rain", tool_call_id="c2")
            )
        messages.append(PydanticModelResponse(parts=[TextPart(f"answer {change}")]))

    recorded = [call.request for call in model.calls]
    assert [exact(request) for request in recorded] == expected
    assert '{"n":true,"m":2}' in expected[1]
    assert '{"n":1.0}' in expected[1]
    assert '{"m":2,"n":1}' in expected[2]
    assert "Be verbose." in expected[2]
    assert '"error"' in expected[2]
    assert "Later." in expected[4]
    assert "rain" in expected[4]
    # Parts kept as they are stay the very objects sent at each call.
    sent = zip(recorded, kept, strict=True)
    assert [request.input[3] is part for request, part in sent] == [True] * 5
    assert kept[2] is kept[0]
    assert kept[3] is not kept[2]


def cast_tool_call(message: ModelMessage) -> ToolCallPart:
    part = message.parts[0]
    assert isinstance(part, ToolCallPart)
    return part


def cast_tool_return(message: ModelMessage) -> Any:
    part = message.parts[0]
    assert isinstance(part, ToolReturnPart)
    return part


def cast_list(value: Any) -> list[Any]:
    assert isinstance(value, list)
    return value  # pyright: ignore[reportUnknownVariableType]


async def test_unchanged_messages_are_converted_once() -> None:
    class CountedReturn(ToolReturnPart):
        read = 0

        def model_response_str(self, *, wrap_if_error: bool = True) -> str:
            CountedReturn.read += 1
            return super().model_response_str(wrap_if_error=wrap_if_error)

    model = ScriptedModel([[assistant_message("ok")] for _ in range(3)])
    adapter = pydantic_ai_model(model)
    messages: list[ModelMessage] = [PydanticModelRequest(parts=[UserPromptPart("Hi.")])]
    for turn in range(3):
        messages.append(
            PydanticModelResponse(parts=[ToolCallPart("f", "{}", tool_call_id=f"c{turn}")])
        )
        messages.append(
            PydanticModelRequest(parts=[CountedReturn("f", f"r{turn}", tool_call_id=f"c{turn}")])
        )
        await send(adapter, messages)

    assert CountedReturn.read == 3
    assert [len(call.request.input) for call in model.calls] == [3, 5, 7]
    assert model.calls[2].request.input[-1] == {
        "type": "function_call_output",
        "call_id": "c2",
        "output": "r2",
    }


async def test_another_core_model_or_a_message_put_in_front_records_the_right_items() -> None:
    first = ScriptedModel([[assistant_message("ok")] for _ in range(2)])
    second = ScriptedModel([[assistant_message("ok")]])
    adapter = pydantic_ai_model(first)
    messages: list[ModelMessage] = [PydanticModelRequest(parts=[UserPromptPart("Hi.")])]

    await send(adapter, messages)
    messages.append(PydanticModelResponse(parts=[TextPart("Hello.")]))
    adapter.scripted_model = second  # a later call records into another core model
    await send(adapter, messages)
    adapter.scripted_model = first
    messages.insert(0, PydanticModelRequest(parts=[SystemPromptPart("Be brief.")]))
    await send(adapter, messages)

    assert second.calls[0].request.input == [
        {"type": "message", "role": "user", "content": "Hi."},
        assistant_message("Hello."),
    ]
    assert first.calls[1].request.input == [
        {"type": "message", "role": "system", "content": "Be brief."},
        *second.calls[0].request.input,
    ]


async def test_a_part_moved_or_a_message_of_another_kind_is_converted_again() -> None:
    model = ScriptedModel([[assistant_message("ok")] for _ in range(3)])
    adapter = pydantic_ai_model(model)
    returned = ToolReturnPart("f", "done", tool_call_id="c1")
    request = PydanticModelRequest(parts=[UserPromptPart("Hi."), returned])
    response = PydanticModelResponse(parts=[TextPart("So.")])
    messages: list[ModelMessage] = [request, response]
    expected: list[str] = []

    for change in range(3):
        expected.append(exact(await fresh_record(messages)))
        await send(adapter, messages)
        if change == 0:
            # The same parts in the same order, but the tool return now sits in a response.
            cast_list(response.parts).insert(0, cast_list(request.parts).pop())
        else:
            # The same parts list, in a request instead of a response.
            # Response parts in a request, on purpose: the adapter must not care.
            messages[1] = PydanticModelRequest(parts=response.parts)  # type: ignore[arg-type]

    assert [exact(call.request) for call in model.calls] == expected
    first, second, third = (cast_list(call.request.input) for call in model.calls)
    assert first[1]["type"] == "function_call_output"
    assert second[1] is returned
    assert third[2] == TextPart("So.")


async def test_a_part_that_is_not_plain_data_is_converted_on_every_call() -> None:
    image = ImageUrl("https://example.com/a.png")
    model = ScriptedModel([[assistant_message("ok")] for _ in range(2)])
    adapter = pydantic_ai_model(model)
    user = UserPromptPart(["Look:", image])
    messages: list[ModelMessage] = [PydanticModelRequest(parts=[user])]

    await send(adapter, messages)
    cast_list(user.content)[0] = "Look again:"
    messages.append(PydanticModelResponse(parts=[TextPart("A cat.")]))
    await send(adapter, messages)

    first, second = (cast_list(call.request.input) for call in model.calls)
    assert first[0]["content"][0] == {"type": "input_text", "text": "Look:"}
    assert second[0]["content"] == [{"type": "input_text", "text": "Look again:"}, image]
    assert second[1] == assistant_message("A cat.")


async def test_a_part_of_the_callers_own_making_is_kept_on_every_call() -> None:
    @dataclasses.dataclass
    class Note:  # a field left unset, and a kind whose fields a fingerprint would read
        text: str
        seen: int = dataclasses.field(init=False)
        part_kind: str = "retry-prompt"

    @dataclasses.dataclass
    class Marker:  # no part_kind, every field set
        text: str

    model = ScriptedModel([[assistant_message("ok")] for _ in range(2)])
    adapter = pydantic_ai_model(model)
    note, marker = Note("a"), Marker("b")
    messages: list[ModelMessage] = [
        PydanticModelRequest(parts=[UserPromptPart("Hi.")]),
        PydanticModelResponse(parts=[cast_any(marker), cast_any(note)]),
    ]

    await send(adapter, messages)
    messages.append(PydanticModelRequest(parts=[UserPromptPart("More.")]))
    await send(adapter, messages)

    first, second = (cast_list(call.request.input) for call in model.calls)
    assert first[1] is marker
    assert first[2] is note
    assert second[1:3] == [marker, note]
    assert second[3] == {"type": "message", "role": "user", "content": "More."}


def cast_any(value: object) -> Any:
    return value


@st.composite
def edits(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Changes a caller might make to the conversation between two calls."""
    values = st.sampled_from([0, 1, True, 1.0, -0.0, 0.0, "1", None])
    edit = st.one_of(
        st.tuples(st.just("args"), values),
        st.tuples(st.just("reorder"), st.none()),
        st.tuples(st.just("content"), st.sampled_from(["hi", "hi!", ""])),
        st.tuples(st.just("returned"), values),
        st.tuples(st.just("outcome"), st.sampled_from(["success", "failed"])),
        st.tuples(st.just("replace"), st.integers(0, 5)),
        st.tuples(st.just("drop"), st.integers(0, 5)),
        st.tuples(st.just("append"), st.sampled_from(["user", "text", "call", "return"])),
    )
    return draw(st.lists(edit, max_size=4))


def apply_edit(messages: list[ModelMessage], kind: str, value: Any) -> None:
    parts = [part for message in messages for part in message.parts]
    calls = [part for part in parts if isinstance(part, ToolCallPart)]
    returns = [part for part in parts if isinstance(part, ToolReturnPart)]
    if kind == "args" and calls and isinstance(calls[0].args, dict):
        cast("dict[str, Any]", calls[0].args)["a"] = value
    elif kind == "reorder" and calls and isinstance(calls[-1].args, dict) and calls[-1].args:
        args = cast("dict[str, Any]", calls[-1].args)
        first = next(iter(args))
        args[first] = args.pop(first)
    elif kind == "content":
        for part in parts:
            if isinstance(part, SystemPromptPart):
                part.content = value
    elif kind == "returned" and returns:
        returns[0].content = {"v": value}
    elif kind == "outcome" and returns:
        returns[-1].outcome = value
    elif kind == "replace" and messages:
        message = messages[value % len(messages)]
        if message.parts:
            message.parts[0] = copy_part(message.parts[0])
    elif kind == "drop" and len(messages) > 1:
        del messages[value % len(messages)]
    elif kind == "append":
        makers: dict[str, Callable[[], ModelMessage]] = {
            "user": lambda: PydanticModelRequest(parts=[UserPromptPart("more")]),
            "text": lambda: PydanticModelResponse(parts=[TextPart("so")]),
            "call": lambda: PydanticModelResponse(
                parts=[ToolCallPart("f", {"a": 1}, tool_call_id="c2")]
            ),
            "return": lambda: PydanticModelRequest(
                parts=[ToolReturnPart("f", "ok", tool_call_id="c2")]
            ),
        }
        messages.append(makers[value]())


def copy_part(part: Any) -> Any:
    return copy.deepcopy(part)


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(edits(), min_size=1, max_size=5))
async def test_every_call_records_what_a_fresh_conversion_of_its_messages_gives(
    rounds: list[list[tuple[str, Any]]],
) -> None:
    model = ScriptedModel([[assistant_message("ok")] for _ in rounds])
    adapter = pydantic_ai_model(model)
    messages = history()
    expected: list[str] = []
    for changes in rounds:
        for kind, value in changes:
            apply_edit(messages, kind, value)
        expected.append(exact(await fresh_record(messages)))
        await send(adapter, messages)
    # Every record, earlier ones included, still holds what was sent at its call.
    assert [exact(call.request) for call in model.calls] == expected


def cast_item(item: Any) -> dict[str, Any]:
    assert isinstance(item, dict)
    return cast("dict[str, Any]", item)


REASONING: dict[str, Any] = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [
        {"type": "summary_text", "text": "Check the sky first."},
        {"type": "summary_text", "text": "Then answer."},
    ],
    "encrypted_content": "opaque",
}


@pytest.mark.parametrize("stream", [False, True])
async def test_a_reasoning_item_becomes_thinking_parts(stream: bool) -> None:
    model = ScriptedModel([[REASONING, assistant_message(ANSWER)]])

    output, messages, _ = await run_agent(weather_agent(model), PROMPT, stream=stream)

    assert output == ANSWER
    thinking = [part for part in responses(messages)[0].parts if isinstance(part, ThinkingPart)]
    assert [(part.content, part.id, part.signature) for part in thinking] == [
        ("Check the sky first.", "rs_1", "opaque"),
        ("Then answer.", "rs_1", None),
    ]
    assert {part.provider_name for part in thinking} == {"scripted"}
    model.assert_complete()


async def test_thinking_parts_go_back_as_the_reasoning_item_they_came_from() -> None:
    model = ScriptedModel(
        [
            [REASONING, function_call("get_weather", {"city": "Paris"}, call_id="c1")],
            [assistant_message(ANSWER)],
        ]
    )

    assert (await weather_agent(model).run(PROMPT)).output == ANSWER

    sent = [cast_item(item) for item in model.calls[1].request.input]
    assert [item for item in sent if item.get("type") == "reasoning"] == [REASONING]
    # In the order the response held them: the reasoning before the call it led to.
    kinds = [item.get("type") for item in sent]
    assert kinds.index("reasoning") == kinds.index("function_call") - 1


async def test_thinking_parts_without_an_id_are_one_item_each() -> None:
    messages: list[ModelMessage] = [
        PydanticModelRequest(parts=[UserPromptPart(PROMPT)]),
        PydanticModelResponse(parts=[ThinkingPart("First."), ThinkingPart("Second.")]),
        PydanticModelRequest(parts=[UserPromptPart("And now?")]),
    ]
    model = ScriptedModel([[assistant_message(ANSWER)]])

    await send(pydantic_ai_model(model), messages)

    assert model.calls[0].request.input[1:3] == [
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "First."}]},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Second."}]},
    ]


async def test_a_thinking_part_changed_in_place_is_sent_as_it_is_at_each_call() -> None:
    thinking = ThinkingPart("Check.", id="rs_1", provider_name="scripted")
    messages: list[ModelMessage] = [
        PydanticModelRequest(parts=[UserPromptPart(PROMPT)]),
        PydanticModelResponse(parts=[thinking]),
    ]
    model = ScriptedModel([[assistant_message("ok")], [assistant_message("ok")]])
    adapter = pydantic_ai_model(model)

    await send(adapter, messages)
    thinking.content = "Check twice."
    await send(adapter, messages)

    summaries = [cast_item(call.request.input[1])["summary"][0]["text"] for call in model.calls]
    assert summaries == ["Check.", "Check twice."]


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ({"type": "reasoning", "summary": "think"}, "its summary is a str"),
        (
            {"type": "reasoning", "summary": [{"type": "reasoning_text", "text": "x"}]},
            "summary entry #1 is not a summary_text part",
        ),
        (
            {"type": "reasoning", "summary": [], "encrypted_content": 7},
            "its encrypted_content is not a string",
        ),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_an_unreadable_reasoning_item_is_refused_with_its_position(
    item: dict[str, Any], problem: str, stream: bool
) -> None:
    model = ScriptedModel([[assistant_message(ANSWER), item]])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await run_agent(weather_agent(model), PROMPT, stream=stream)

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        1,
        "reasoning",
        "pydantic-ai",
    )
    assert error.reason.startswith(problem)
    assert '{"type": "summary_text", "text": ...}' in error.reason
    with pytest.raises(InvalidScriptedModelOutputError):
        model.assert_complete()


async def test_an_empty_reasoning_item_adds_no_part() -> None:
    model = ScriptedModel([[{"type": "reasoning", "summary": []}, assistant_message(ANSWER)]])

    _, messages, _ = await run_agent(weather_agent(model), PROMPT, stream=False)

    assert responses(messages)[0].parts == [TextPart(content=ANSWER)]
