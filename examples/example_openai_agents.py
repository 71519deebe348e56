"""Test OpenAI Agents SDK workflows against a ScriptedModel, with no model and no network.

Each test is one recipe from the testing guide, run on the real SDK: ``Agent``, ``Runner``,
``@function_tool`` and the SDK's retry machinery. ``openai_agents_model(model)`` plugs the
scripted model into the agent; the test keeps asserting on ``model`` itself.

ScriptedModel replaces model I/O only. Tracing is separate, so every run passes
``RunConfig(tracing_disabled=True)``: with ``OPENAI_API_KEY`` set, an enabled trace is exported.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    Model,
    ModelRetrySettings,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    Runner,
    function_tool,
    input_guardrail,
    retry_policies,
)

from agents_testing import (
    InvalidScriptedModelStepError,
    ModelRetryAdvice,
    RecordedModelCall,
    RetryAdviceRequest,
    ScriptedModel,
    UnconsumedModelStepsError,
    assistant_message,
    function_call,
    model_error,
    model_responder,
    model_stream,
    optional_step,
)
from agents_testing.adapters.openai_agents import openai_agents_model

RUN_CONFIG = RunConfig(tracing_disabled=True)


@function_tool
def get_weather(city: str) -> str:
    """Gets the weather for a city."""
    return f"{city}: sunny"


# -- return a fixed response ----------------------------------------------------------------


@pytest.mark.asyncio
async def test_returns_a_deterministic_final_answer() -> None:
    model = ScriptedModel([[assistant_message("Paris is the capital of France.")]])
    agent = Agent(name="Geography assistant", model=openai_agents_model(model))

    result = await Runner.run(agent, "What is the capital of France?", run_config=RUN_CONFIG)

    assert result.final_output == "Paris is the capital of France."
    assert len(model.calls) == 1
    model.assert_complete()  # also fails if a later change stops before using the whole script


# -- test a tool workflow ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_runs_a_multi_turn_tool_workflow() -> None:
    model = ScriptedModel(
        [
            # The first model turn enters the real SDK tool execution pipeline.
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            # The second turn sees the tool result and finishes the workflow.
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )
    agent = Agent(name="Weather assistant", model=openai_agents_model(model), tools=[get_weather])

    result = await Runner.run(agent, "What is the weather in Tokyo?", run_config=RUN_CONFIG)

    assert result.final_output == "It is sunny in Tokyo."
    assert len(model.calls) == 2
    last_call = model.last_call
    assert last_call is not None
    last_input = last_call.request.input
    assert isinstance(last_input, list)
    assert {"call_id": "call_1", "output": "Tokyo: sunny", "type": "function_call_output"} in (
        last_input
    )
    model.assert_complete()


# -- derive a response from the request -------------------------------------------------------


@pytest.mark.asyncio
async def test_derives_a_response_from_the_recorded_request() -> None:
    def answer(call: RecordedModelCall) -> list[Any]:
        # The responder receives the request as it crossed the Model boundary.
        assert call.index == 0
        assert call.streamed is False
        assert call.request.input == [{"content": "Summarize this", "role": "user"}]
        return [assistant_message(f"Handled model call {call.index}.")]

    model = ScriptedModel([model_responder(answer)])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = await Runner.run(agent, "Summarize this", run_config=RUN_CONFIG)

    assert result.final_output == "Handled model call 0."
    model.assert_complete()


# -- inspect model calls ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_inspects_what_the_runner_sent_to_the_model() -> None:
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )
    agent = Agent(
        name="Weather assistant",
        instructions="Answer in one sentence.",
        model=openai_agents_model(model),
        model_settings=ModelSettings(temperature=0.0),
        tools=[get_weather],
    )

    await Runner.run(agent, "What is the weather in Tokyo?", run_config=RUN_CONFIG)

    first, last = model.first_call, model.last_call
    assert first is not None
    assert last is not None
    assert [call.index for call in model.calls] == [0, 1]
    assert model.remaining_steps == 0
    assert first.request.input == [{"content": "What is the weather in Tokyo?", "role": "user"}]
    assert first.request.system_instructions == "Answer in one sentence."
    assert first.request.model_settings["temperature"] == 0.0
    # Read helpers read the same on every adapter: tools offered, last user text, tool outputs.
    assert first.request.tool_names == ("get_weather",)
    assert last.request.last_user_text == "What is the weather in Tokyo?"
    assert last.request.tool_outputs == {"call_1": "Tokyo: sunny"}
    assert not first.streamed
    assert isinstance(last.request.input, list)
    assert [item.get("type") for item in last.request.input] == [
        None,  # the SDK sends the user message without a type
        "function_call",
        "function_call_output",
    ]
    # Each read is a detached snapshot: changing it does not rewrite the model's history.
    assert isinstance(first.request.input, list)
    first.request.input.clear()
    assert model.calls[0].request.input != []


# -- test streaming -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_streams_a_normal_response_step() -> None:
    model = ScriptedModel([[assistant_message("Paris is the capital of France.")]])
    agent = Agent(name="Geography assistant", model=openai_agents_model(model))

    result = Runner.run_streamed(agent, "What is the capital of France?", run_config=RUN_CONFIG)
    deltas = [
        event.data.delta
        async for event in result.stream_events()
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta"
    ]

    assert deltas == ["Paris is the capital of France."]
    assert result.final_output == "Paris is the capital of France."
    assert [call.streamed for call in model.calls] == [True]
    model.assert_complete()


@pytest.mark.asyncio
async def test_streams_exact_events() -> None:
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "Hello, "},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "world."},
                    {
                        "type": "response_done",
                        "response": {
                            "id": "resp_1",
                            "request_id": None,
                            "usage": {"requests": 1, "input_tokens": 5, "output_tokens": 3},
                            "raw_usage": None,
                            "provider_data": None,
                            "output": [assistant_message("Hello, world.", id="msg_1")],
                        },
                    },
                ]
            )
        ]
    )
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    result = Runner.run_streamed(agent, "Greet me", run_config=RUN_CONFIG)
    raw = [
        event.data async for event in result.stream_events() if event.type == "raw_response_event"
    ]

    # Each exact event becomes exactly one Responses event.
    assert [event.type for event in raw] == [
        "response.created",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.completed",
    ]
    assert result.final_output == "Hello, world."
    assert result.context_wrapper.usage.total_tokens == 8
    model.assert_complete()


@pytest.mark.asyncio
async def test_raw_stream_step_fails_a_non_streaming_run() -> None:
    model = ScriptedModel([model_stream([{"type": "response_started"}])])
    agent = Agent(name="Assistant", model=openai_agents_model(model))

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await Runner.run(agent, "hi", run_config=RUN_CONFIG)

    assert raised.value.reason == "incompatible_call"


# -- inject model failures ----------------------------------------------------------------------


class OverloadedError(Exception):
    """A transient provider failure."""


# Retry is opt-in in the SDK: the runner retries only under a retry policy, and this one follows
# the model's advice. Whether advice leads to another attempt is the runner's decision.
RETRY_ON_ADVICE = ModelSettings(
    retry=ModelRetrySettings(max_retries=1, policy=retry_policies.provider_suggested())
)


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_streamed"])
@pytest.mark.asyncio
async def test_retries_a_failure_with_fixed_advice(stream: bool) -> None:
    advice = ModelRetryAdvice(suggested=True, replay_safety="safe", retry_after=0.0)
    model = ScriptedModel(
        [
            model_error(OverloadedError("503 overloaded"), advice),
            # The runner's retry is another model call: it takes the next step.
            [assistant_message("Recovered.")],
        ]
    )
    agent = Agent(
        name="Assistant", model=openai_agents_model(model), model_settings=RETRY_ON_ADVICE
    )

    if stream:
        result: Any = Runner.run_streamed(agent, "hi", run_config=RUN_CONFIG)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, "hi", run_config=RUN_CONFIG)

    assert result.final_output == "Recovered."
    assert [call.streamed for call in model.calls] == [stream, stream]
    model.assert_complete()


@pytest.mark.asyncio
async def test_retries_a_failure_with_advice_from_a_callback() -> None:
    # Retry is opt-in in the SDK: without a retry policy in ModelSettings(retry=...) the
    # runner never asks for advice. This policy follows the model's advice.
    retry_on_advice = ModelSettings(
        retry=ModelRetrySettings(max_retries=1, policy=retry_policies.provider_suggested())
    )

    def advise(request: RetryAdviceRequest) -> ModelRetryAdvice:
        return ModelRetryAdvice(suggested=request.attempt == 1, retry_after=0.0)

    model = ScriptedModel(
        [
            model_error(ConnectionError("503 overloaded"), advise),
            [assistant_message("Recovered.")],
        ]
    )
    agent = Agent(
        name="Assistant", model=openai_agents_model(model), model_settings=retry_on_advice
    )

    result = await Runner.run(agent, "hi", run_config=RUN_CONFIG)

    assert result.final_output == "Recovered."
    assert len(model.calls) == 2
    model.assert_complete()


# -- detect workflow drift ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_call_that_may_not_happen_is_an_optional_step() -> None:
    @input_guardrail  # runs in parallel with the first model call
    def block_everything(
        context: RunContextWrapper[None], agent: Agent[Any], prompt: Any
    ) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)

    # Whether the model call starts before the guardrail trips is up to the SDK's scheduling.
    model = ScriptedModel([optional_step([assistant_message("Not shown.")])])
    agent = Agent(
        name="Assistant", model=openai_agents_model(model), input_guardrails=[block_everything]
    )

    with pytest.raises(InputGuardrailTripwireTriggered):
        await Runner.run(agent, "Do something forbidden", run_config=RUN_CONFIG)

    model.assert_complete()  # passes whether or not the optional step was used


def create_order_agent(model: Model, *, needs_approval: bool = False) -> Agent[Any]:
    @function_tool(needs_approval=needs_approval)
    def lookup_order(order_id: str) -> str:
        """Looks up an order."""
        return f"{order_id}: shipped"

    return Agent(name="Order assistant", model=model, tools=[lookup_order])


def order_script() -> list[Any]:
    return [
        [function_call("lookup_order", {"order_id": "order_123"}, call_id="call_1")],
        [assistant_message("Order 123 has shipped.")],
    ]


@pytest.fixture
def order_model() -> Iterator[ScriptedModel]:
    model = ScriptedModel(order_script())
    yield model
    # Teardown: an early workflow exit is reported even when another assertion failed first.
    model.assert_complete()


@pytest.mark.asyncio
async def test_preserves_the_order_lookup_workflow_contract(order_model: ScriptedModel) -> None:
    agent = create_order_agent(openai_agents_model(order_model))

    result = await Runner.run(agent, "Where is order 123?", run_config=RUN_CONFIG)

    assert result.final_output == "Order 123 has shipped."
    assert len(order_model.calls) == 2


@pytest.mark.asyncio
async def test_reports_the_drift_when_the_tool_starts_needing_approval() -> None:
    model = ScriptedModel(order_script())
    agent = create_order_agent(openai_agents_model(model), needs_approval=True)

    result = await Runner.run(agent, "Where is order 123?", run_config=RUN_CONFIG)

    # The run now stops for approval after the first scripted turn...
    assert [item.tool_name for item in result.interruptions] == ["lookup_order"]
    # ...and the script says so: one planned model turn never happened.
    with pytest.raises(UnconsumedModelStepsError) as raised:
        model.assert_complete()
    assert raised.value.remaining_steps == 1
