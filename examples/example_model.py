"""Test an agent loop against ScriptedModel, with no framework and no network.

``run_agent`` below stands in for the code under test: a small tool-calling loop that talks
to any object with ``get_response``/``stream_response``. Each test scripts what the model
answers and asserts what the loop did and what it sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agents_testing import (
    ModelRequest,
    ModelRetryAdvice,
    RetryAdviceRequest,
    ScriptedModel,
    UnexpectedModelCallError,
    assistant_message,
    function_call,
    model_error,
    model_responder,
    model_stream,
)

Tool = Callable[..., str]


async def run_agent(model: ScriptedModel, prompt: str, tools: dict[str, Tool]) -> str:
    """Call the model until it stops asking for tools; return its final text."""
    history: list[Any] = [{"type": "message", "role": "user", "content": prompt}]
    while True:
        response = await model.get_response(ModelRequest(input=history, tools=list(tools)))
        history = [*history, *response.output]
        tool_calls = [item for item in response.output if item["type"] == "function_call"]
        if not tool_calls:
            return "".join(part["text"] for item in response.output for part in item["content"])
        for call in tool_calls:
            output = tools[call["name"]](**json.loads(call["arguments"]))
            history.append(
                {"type": "function_call_output", "call_id": call["call_id"], "output": output}
            )


@pytest.mark.asyncio
async def test_returns_a_deterministic_final_answer() -> None:
    model = ScriptedModel([[assistant_message("Paris is the capital of France.")]])

    answer = await run_agent(model, "What is the capital of France?", tools={})

    assert answer == "Paris is the capital of France."
    assert len(model.calls) == 1
    model.assert_complete()  # also fails if the loop stopped before using the whole script


@pytest.mark.asyncio
async def test_runs_a_multi_turn_tool_workflow() -> None:
    def get_weather(city: str) -> str:
        return f"{city}: sunny"

    model = ScriptedModel(
        [
            # The first turn asks for a tool; the loop runs it for real.
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            # The second turn sees the tool result and finishes.
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )

    answer = await run_agent(model, "What is the weather in Tokyo?", {"get_weather": get_weather})

    assert answer == "It is sunny in Tokyo."
    last_input = model.calls[-1].request.input
    assert last_input[-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "Tokyo: sunny",
    }
    model.assert_complete()


@pytest.mark.asyncio
async def test_derives_a_response_from_the_recorded_request() -> None:
    def answer(call: Any) -> list[Any]:
        # The responder sees the request exactly as the loop sent it.
        assert call.index == 0
        assert call.streamed is False
        assert call.request.input == [
            {"type": "message", "role": "user", "content": "Summarize this"}
        ]
        return [assistant_message(f"Handled model call {call.index}.")]

    model = ScriptedModel([model_responder(answer)])

    assert await run_agent(model, "Summarize this", tools={}) == "Handled model call 0."
    model.assert_complete()


@pytest.mark.asyncio
async def test_records_what_the_loop_sent() -> None:
    model = ScriptedModel(
        [
            [function_call("lookup", {"q": "x"}, call_id="call_1")],
            [assistant_message("done")],
        ]
    )

    def lookup(q: str) -> str:
        return q.upper()

    await run_agent(model, "go", {"lookup": lookup})

    first, last = model.first_call, model.last_call
    assert first is not None
    assert last is not None
    assert (first.index, last.index) == (0, 1)
    assert first.request.tools == ["lookup"]
    # Each read is a detached copy: editing it never rewrites the model's history.
    assert isinstance(first.request.input, list)  # a list of items, not a plain prompt
    first.request.input.clear()
    assert model.calls[0].request.last_user_text == "go"


@pytest.mark.asyncio
async def test_streams_the_scripted_answer_as_normalized_events() -> None:
    # A plain response step also serves streamed calls: started, one delta per text part, done.
    model = ScriptedModel([[assistant_message("Hello", id="msg_1")]])

    events = [event async for event in model.stream_response(ModelRequest(input="Hi"))]

    assert [event["type"] for event in events] == [
        "response_started",
        "output_text_delta",
        "response_done",
    ]
    assert events[1] == {"type": "output_text_delta", "item_id": "msg_1", "delta": "Hello"}
    model.assert_complete()


@pytest.mark.asyncio
async def test_streams_exact_events_when_they_are_the_behavior_under_test() -> None:
    exact = [
        {"type": "response_started"},
        {"type": "output_text_delta", "item_id": "msg_1", "delta": "Hel"},
        {"type": "output_text_delta", "item_id": "msg_1", "delta": "lo"},
    ]
    model = ScriptedModel([model_stream(exact)])

    deltas = [
        event["delta"]
        async for event in model.stream_response(ModelRequest(input="Hi"))
        if event["type"] == "output_text_delta"
    ]

    assert deltas == ["Hel", "lo"]
    model.assert_complete()


@pytest.mark.asyncio
async def test_a_failed_call_carries_retry_advice_for_the_runner() -> None:
    failure = ConnectionError("upstream reset")
    model = ScriptedModel(
        [
            model_error(failure, ModelRetryAdvice(suggested=True, replay_safety="safe")),
            [assistant_message("Recovered.")],
        ]
    )
    request = ModelRequest(input="Hi")

    # A runner's retry policy asks the model whether the error it saw may be retried.
    with pytest.raises(ConnectionError) as raised:
        await model.get_response(request)
    advice = model.get_retry_advice(
        RetryAdviceRequest(error=raised.value, stream=False, attempt=1, request=request)
    )
    assert advice is not None
    assert advice.suggested is True

    # The retry is another model call: it takes the next scripted step.
    retried = await model.get_response(request)
    assert retried.output[0]["content"][0]["text"] == "Recovered."
    model.assert_complete()


@pytest.fixture
def order_model() -> Iterator[ScriptedModel]:
    model = ScriptedModel(
        [
            [function_call("lookup_order", {"order_id": "order_123"}, call_id="call_1")],
            [assistant_message("Order 123 has shipped.")],
        ]
    )
    yield model
    # Teardown: report unused steps even when an assertion in the test failed first.
    model.assert_complete()


@pytest.mark.asyncio
async def test_preserves_the_order_lookup_workflow(order_model: ScriptedModel) -> None:
    def lookup_order(order_id: str) -> str:
        return "shipped"

    answer = await run_agent(order_model, "Where is order 123?", {"lookup_order": lookup_order})

    assert answer == "Order 123 has shipped."
    assert len(order_model.calls) == 2


@pytest.mark.asyncio
async def test_an_extra_model_turn_fails_loudly() -> None:
    model = ScriptedModel([[function_call("lookup", {"q": "x"}, call_id="call_1")]])

    def lookup(q: str) -> str:
        return q

    # The loop wants a second turn the script does not have.
    with pytest.raises(UnexpectedModelCallError) as raised:
        await run_agent(model, "go", {"lookup": lookup})

    assert (raised.value.call_index, raised.value.streamed) == (1, False)
