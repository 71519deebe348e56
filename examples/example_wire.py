"""Test code built on the plain ``openai`` and ``anthropic`` clients, at the wire.

The scripted model is served as an OpenAI- or Anthropic-compatible endpoint: the real client
sends real HTTP requests (to a loopback server, or in-process through an httpx transport),
its own serialization, parsing and retry logic run, and the test asserts on what it sent.
"""

from __future__ import annotations

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("httpx")

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import httpx
import openai
from openai.types.responses import FunctionToolParam, ResponseFunctionToolCall

from agents_testing import (
    RecordedModelCall,
    ScriptedHTTPError,
    ScriptedModel,
    WireRequestError,
    assistant_message,
    function_call,
    model_error,
    model_responder,
    model_stream,
)
from agents_testing.adapters.httpx import scripted_transport
from agents_testing.wire import ScriptedServer

WEATHER_TOOL: FunctionToolParam = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": None,
}


def weather_agent(client: openai.OpenAI, prompt: str) -> str:  # the code under test
    conversation: list[Any] = [{"role": "user", "content": prompt}]
    while True:
        response = client.responses.create(
            model="gpt-4.1",
            instructions="Report the weather.",
            input=conversation,
            tools=[WEATHER_TOOL],
        )
        calls = [item for item in response.output if isinstance(item, ResponseFunctionToolCall)]
        if not calls:
            return response.output_text
        for call in calls:
            city = json.loads(call.arguments)["city"]
            conversation.append(call.model_dump(exclude_none=True))
            conversation.append(
                {
                    "type": "function_call_output",
                    "call_id": call.call_id,
                    "output": f"{city}: sunny",
                }
            )


def test_openai_responses_over_loopback() -> None:
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],  # turn 1: a tool
            [assistant_message("It is sunny in Tokyo.")],  # turn 2: answer
        ]
    )

    with ScriptedServer(model) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
        answer = weather_agent(client, "Weather in Tokyo?")

    assert answer == "It is sunny in Tokyo."
    first, second = model.calls
    assert first.request.system_instructions == "Report the weather."
    assert first.request.tools[0]["name"] == "get_weather"
    assert second.request.tool_outputs == {"call_1": "Tokyo: sunny"}  # the tool's result
    assert second.request.extra["body"]["model"] == "gpt-4.1"  # the raw JSON body
    model.assert_complete()


def test_openai_chat_completions_in_process() -> None:
    model = ScriptedModel([[assistant_message("Hello!")]])
    transport = scripted_transport(model)  # no socket at all
    client = openai.OpenAI(
        base_url="http://scripted.invalid/v1",
        api_key="test-key",
        # The transport serves httpx and the httpx2 fork this client is typed against alike.
        http_client=httpx.Client(transport=transport),  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    )

    reply = client.chat.completions.create(
        model="gpt-4.1-mini", messages=[{"role": "user", "content": "Hi"}]
    )

    assert reply.choices[0].message.content == "Hello!"
    assert model.calls[-1].request.input == [{"type": "message", "role": "user", "content": "Hi"}]
    transport.assert_complete()


def test_anthropic_streamed_with_a_retried_overload() -> None:
    model = ScriptedModel(
        [
            model_error(ScriptedHTTPError(529, retry_after=0.01)),  # the client retries this
            [assistant_message("Hello from Claude.")],
        ]
    )

    with ScriptedServer(model) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="test-key")
        with client.messages.stream(
            model="claude-sonnet-4-5", max_tokens=256, messages=[{"role": "user", "content": "Hi"}]
        ) as stream:
            text = stream.get_final_text()

    assert text == "Hello from Claude."
    assert [request.status for request in server.requests] == [529, 200]
    assert all(call.streamed for call in model.calls)
    model.assert_complete()


def test_one_server_for_several_agents() -> None:
    triage = ScriptedModel([[assistant_message("billing")]])
    billing = ScriptedModel([[assistant_message("Refund issued.")]])

    # Route by model name; a key starting with "/" routes by path prefix instead. Leaving
    # the block checks that every model's script was used and no request went astray.
    with ScriptedServer({"triage-model": triage, "billing-model": billing}) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
        route = client.responses.create(model="triage-model", input="I want a refund")
        answer = client.responses.create(model="billing-model", input=route.output_text)

    assert answer.output_text == "Refund issued."
    assert billing.calls[-1].request.input == "billing"


def test_a_stream_that_waits_for_the_client() -> None:
    gate = threading.Event()  # set by the test, read by the scripted stream

    async def events() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "output_text_delta", "item_id": None, "delta": "Thinking"}
        # Poll with short sleeps: if the test fails before it sets the gate, closing the
        # server cancels the sleep, and the failure is reported instead of a hang.
        while not gate.is_set():  # noqa: ASYNC110 - a threading.Event, set by the test
            await asyncio.sleep(0.01)
        yield {"type": "output_text_delta", "item_id": None, "delta": "... done."}

    model = ScriptedModel([model_stream(events())])
    deltas: list[str] = []

    with ScriptedServer(model) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
        for event in client.responses.create(model="gpt-4.1", input="Hi", stream=True):
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
                gate.set()  # the first delta arrived while the stream was still running

    assert deltas == ["Thinking", "... done."]


def test_a_plain_step_streamed_in_several_deltas() -> None:
    # One keyword: each text of a plain step streams in deltas of at most 6 characters.
    model = ScriptedModel([[assistant_message("It is sunny in Tokyo.")]], text_delta_size=6)

    with ScriptedServer(model) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")
        # Read the stream incrementally, as DSPy's StreamListener or a token-by-token UI does.
        with client.responses.stream(model="gpt-4.1", input="Weather?") as stream:
            deltas = [event.delta for event in stream if event.type == "response.output_text.delta"]

    assert deltas == ["It is ", "sunny ", "in Tok", "yo."]
    model.assert_complete()


def test_a_failed_assertion_in_a_responder_fails_the_test() -> None:
    def answer(call: RecordedModelCall) -> list[Any]:
        # Check what the agent sent; a wrong request must fail the test, not be retried.
        assert call.request.input == "Weather in Tokyo?", "the agent asked something else"
        return [assistant_message("It is sunny in Tokyo.")]

    model = ScriptedModel([model_responder(answer)])
    transport = scripted_transport(model)
    client = openai.OpenAI(
        base_url="http://scripted.invalid/v1",
        api_key="test-key",
        max_retries=2,
        http_client=httpx.Client(transport=transport),  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    )

    # A 400 with x-should-retry: false, so the client does not retry it into a pass.
    with pytest.raises(openai.BadRequestError, match="the agent asked something else"):
        client.responses.create(model="gpt-4.1", input="Weather in Paris?")

    with pytest.raises(WireRequestError) as failure:
        transport.assert_complete()  # even if the code under test swallowed the error
    assert failure.value.reason == "script_error"
    assert isinstance(failure.value.__cause__, AssertionError)  # the responder's own failure
