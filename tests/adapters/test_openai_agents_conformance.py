"""The openai-agents model adapter passes the public conformance kit on the real SDK."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import (
    Agent,
    ModelResponse,
    ModelRetrySettings,
    ModelSettings,
    ModelTracing,
    RunConfig,
    Runner,
    function_tool,
    retry_policies,
)
from agents.items import TResponseOutputItem
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseTextDeltaEvent,
)
from pydantic import BaseModel

from agents_testing import ModelRequest, ScriptedModel, assistant_message
from agents_testing.adapters.openai_agents import openai_agents_model
from agents_testing.conformance import Reply, ReplyToolCall
from agents_testing.conformance.pytest import ModelAdapterTests

RUN_CONFIG = RunConfig(tracing_disabled=True)


@function_tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"{city}: sunny"


class Forecast(BaseModel):
    city: str
    sky: str


def read_output(output: list[TResponseOutputItem], **fields: Any) -> Reply:
    """Read the SDK's output items as the kit's reply."""
    text = ""
    calls: list[ReplyToolCall] = []
    reasoning: list[str] = []
    for item in output:
        if isinstance(item, ResponseOutputMessage):
            text += "".join(p.text for p in item.content if isinstance(p, ResponseOutputText))
        elif isinstance(item, ResponseFunctionToolCall):
            calls.append(ReplyToolCall(item.name, item.call_id, item.arguments))
        elif isinstance(item, ResponseReasoningItem):
            reasoning.extend(summary.text for summary in item.summary)
    return Reply(text, tuple(calls), reasoning=tuple(reasoning), **fields)


def stream_events(model: ScriptedModel, prompt: str) -> AsyncIterator[Any]:
    """Make one streamed call as the SDK's runner does."""
    return openai_agents_model(model).stream_response(
        None,
        prompt,
        ModelSettings(),
        [get_weather],
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )


async def run_agent(agent: Agent[Any], prompt: str, *, stream: bool) -> Any:
    if not stream:
        return (await Runner.run(agent, prompt, run_config=RUN_CONFIG)).final_output
    result = Runner.run_streamed(agent, prompt, run_config=RUN_CONFIG)
    async for _ in result.stream_events():
        pass
    return result.final_output


class OpenAIAgentsHarness:
    """Drive the OpenAI Agents SDK through ``openai_agents_model``."""

    framework = "openai-agents"

    async def call(self, model: ScriptedModel, prompt: str, *, stream: bool) -> Reply:
        if not stream:
            response: ModelResponse = await openai_agents_model(model).get_response(
                None,
                prompt,
                ModelSettings(),
                [get_weather],
                None,
                [],
                ModelTracing.DISABLED,
                previous_response_id=None,
                conversation_id=None,
                prompt=None,
            )
            usage = response.usage
            return read_output(
                response.output, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens
            )
        deltas: list[str] = []
        reply = Reply("")
        async for event in stream_events(model, prompt):
            if isinstance(event, ResponseTextDeltaEvent):
                deltas.append(event.delta)
            elif isinstance(event, ResponseCompletedEvent):
                done = event.response.usage
                reply = read_output(
                    event.response.output,
                    text_deltas=tuple(deltas),
                    input_tokens=None if done is None else done.input_tokens,
                    output_tokens=None if done is None else done.output_tokens,
                )
        return reply

    async def run_tool_loop(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        agent = Agent(name="Weather", model=openai_agents_model(model), tools=[get_weather])
        return str(await run_agent(agent, prompt, stream=stream))

    def sent_tool_names(self, request: ModelRequest) -> list[str]:
        return [tool.name for tool in request.tools]

    async def run_with_retry(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        retry = ModelRetrySettings(max_retries=1, policy=retry_policies.provider_suggested())
        agent = Agent(
            name="Weather",
            model=openai_agents_model(model),
            model_settings=ModelSettings(retry=retry),
        )
        return str(await run_agent(agent, prompt, stream=stream))

    async def abandon_stream(self, model: ScriptedModel, prompt: str) -> None:
        events = stream_events(model, prompt)
        async for event in events:
            if isinstance(event, ResponseTextDeltaEvent):
                break
        await events.aclose()  # type: ignore[attr-defined]

    def structured_output(self, value: Mapping[str, Any]) -> list[Any]:
        return [assistant_message(json.dumps(dict(value)))]

    async def run_structured(
        self, model: ScriptedModel, prompt: str, *, stream: bool
    ) -> Mapping[str, Any]:
        agent = Agent(name="Weather", model=openai_agents_model(model), output_type=Forecast)
        forecast: Forecast = await run_agent(agent, prompt, stream=stream)
        return forecast.model_dump()


class TestOpenAIAgentsConformance(ModelAdapterTests):
    harness = OpenAIAgentsHarness()
    has_retry_advice = True
    has_cancellation = True
    has_structured_output = True
    has_reasoning_items = True
