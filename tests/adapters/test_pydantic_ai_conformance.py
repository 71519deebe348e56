"""The pydantic-ai model adapter passes the public conformance kit on a real ``Agent``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.messages import (
    ModelMessage,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.messages import ModelRequest as PydanticModelRequest
from pydantic_ai.messages import ModelResponse as PydanticModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from agents_testing import ModelRequest, ScriptedModel, function_call
from agents_testing.adapters.pydantic_ai import pydantic_ai_model
from agents_testing.conformance import Reply, ReplyToolCall
from agents_testing.conformance.pytest import ModelAdapterTests

WEATHER_TOOL = ToolDefinition(
    name="get_weather",
    description="Return the weather in a city.",
    parameters_json_schema={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
)
PARAMETERS = ModelRequestParameters(function_tools=[WEATHER_TOOL])


def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


class Forecast(BaseModel):
    city: str
    sky: str


def read_response(response: PydanticModelResponse, deltas: tuple[str, ...] = ()) -> Reply:
    """Read pydantic-ai's response parts as the kit's reply."""
    parts = response.parts
    return Reply(
        text="".join(part.content for part in parts if isinstance(part, TextPart)),
        tool_calls=tuple(
            ReplyToolCall(part.tool_name, part.tool_call_id, part.args or "")
            for part in parts
            if isinstance(part, ToolCallPart)
        ),
        text_deltas=deltas,
        input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens,
        reasoning=tuple(part.content for part in parts if isinstance(part, ThinkingPart)),
    )


class PydanticAIHarness:
    """Drive pydantic-ai through ``pydantic_ai_model``."""

    framework = "pydantic-ai"

    async def call(self, model: ScriptedModel, prompt: str, *, stream: bool) -> Reply:
        messages: list[ModelMessage] = [PydanticModelRequest(parts=[UserPromptPart(prompt)])]
        adapted = pydantic_ai_model(model)
        if not stream:
            return read_response(
                await model_request(adapted, messages, model_request_parameters=PARAMETERS)
            )
        deltas: list[str] = []
        async with model_request_stream(
            adapted, messages, model_request_parameters=PARAMETERS
        ) as events:
            async for event in events:
                if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    deltas.append(event.part.content)
                elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    deltas.append(event.delta.content_delta)
            return read_response(events.get(), tuple(deltas))

    async def run_tool_loop(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        agent = Agent(pydantic_ai_model(model), tools=[get_weather])
        if stream:
            async with agent.run_stream(prompt) as streamed:
                return str(await streamed.get_output())
        return str((await agent.run(prompt)).output)

    def sent_tool_names(self, request: ModelRequest) -> list[str]:
        return [tool.name for tool in request.tools]

    async def abandon_stream(self, model: ScriptedModel, prompt: str) -> None:
        agent = Agent(pydantic_ai_model(model), tools=[get_weather])
        async with agent.run_stream(prompt) as streamed:
            async for _ in streamed.stream_text(delta=True, debounce_by=None):
                break

    def structured_output(self, value: Mapping[str, Any]) -> list[Any]:
        return [function_call("final_result", dict(value), call_id="call_output")]

    async def run_structured(
        self, model: ScriptedModel, prompt: str, *, stream: bool
    ) -> Mapping[str, Any]:
        agent = Agent(pydantic_ai_model(model), output_type=Forecast)
        if stream:
            async with agent.run_stream(prompt) as streamed:
                return (await streamed.get_output()).model_dump()
        return (await agent.run(prompt)).output.model_dump()


class TestPydanticAIConformance(ModelAdapterTests):
    harness = PydanticAIHarness()
    has_cancellation = True
    has_structured_output = True
    has_reasoning_items = True
