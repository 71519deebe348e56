"""An adapter for the tiny agent framework in tiny_agent.py, checked by the conformance kit."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, Mapping
from typing import Any, cast

from tiny_agent import Agent, ChatModel, Chunk, Completion, Message, Tool, ToolCall

from agents_testing import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ModelRequest,
    RetryAdviceRequest,
    ScriptedModel,
    assistant_message,
    function_call,
)
from agents_testing.conformance import Reply, ReplyToolCall
from agents_testing.conformance.pytest import ModelAdapterTests

FRAMEWORK = "tiny-agent"


def scripted_request(messages: list[Message], tools: list[Tool]) -> ModelRequest:
    """Record the framework's messages as normalized items, and its tools as they are."""
    items: list[Any] = []
    for message in messages:
        if message["role"] == "user":
            items.append({"type": "message", "role": "user", "content": message["content"]})
        elif message["role"] == "assistant":
            completion: Completion = message["completion"]
            if completion.text:
                items.append(assistant_message(completion.text))
            for call in completion.tool_calls:
                items.append(function_call(call.name, call.arguments, call_id=call.id))
        else:
            output = {"call_id": message["tool_call_id"], "output": message["content"]}
            items.append({"type": "function_call_output", **output})
    return ModelRequest(input=items, tools=tools, extra={"messages": messages})


def fields_of(value: object) -> Mapping[str, Any]:
    """Return a scripted mapping's fields, or no fields for anything else."""
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else {}


def completion_of(model: ScriptedModel, output: list[Any], call_index: int) -> Completion:
    """Turn scripted output items into a ``Completion``, refusing what it cannot hold."""
    completion = Completion()
    for index, item in enumerate(output):
        fields = fields_of(item)
        kind = fields.get("type")
        if kind == "message":
            parts = [fields_of(part) for part in fields["content"]]
            completion.text += "".join(p["text"] for p in parts if p["type"] == "output_text")
        elif kind == "function_call":
            call = ToolCall(fields["name"], fields["call_id"], fields["arguments"])
            completion.tool_calls.append(call)
        elif kind == "reasoning":
            completion.reasoning.extend(fields_of(part)["text"] for part in fields["summary"])
        else:
            reason = "a Completion holds only messages, function calls and reasoning."
            error = InvalidScriptedModelOutputError(call_index, index, str(kind), reason, FRAMEWORK)
            # Recorded, so assert_complete() fails even if the framework swallows the error.
            raise model.record_violation(error)
    return completion


def refused_event(model: ScriptedModel, call_index: int, detail: str) -> Exception:
    error = InvalidScriptedModelStepError(
        "invalid_stream_event", call_index=call_index, detail=detail
    )
    return model.record_violation(error)


class ScriptedChatModel:
    """The adapter: a tiny-agent ``ChatModel`` answered by a ``ScriptedModel``."""

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        call_index = len(self.model.calls)
        response = await self.model.get_response(scripted_request(messages, tools))
        completion = completion_of(self.model, response.output, call_index)
        completion.input_tokens = response.usage.input_tokens
        completion.output_tokens = response.usage.output_tokens
        return completion

    async def stream(
        self, messages: list[Message], tools: list[Tool]
    ) -> AsyncGenerator[Chunk, None]:
        events = self.model.stream_response(scripted_request(messages, tools))
        call_index = events.call_index
        try:
            async for scripted in events:
                event = fields_of(scripted)  # a script may hold any mapping, or none
                kind = event.get("type")
                if kind == "output_text_delta":
                    yield Chunk(text=event["delta"])
                elif kind == "response_done":
                    yield Chunk(completion=self._done(event["response"], call_index))
                elif kind != "response_started":
                    detail = f"the tiny-agent adapter cannot stream a {kind!r} event."
                    raise refused_event(self.model, call_index, detail)
        finally:
            # Close the scripted stream as soon as the framework stops reading.
            await events.aclose()

    def _done(self, response: object, call_index: int) -> Completion:
        fields = fields_of(response)
        unset_or_mapping = isinstance(fields.get("usage") or {}, Mapping)
        if not isinstance(fields.get("output"), list) or not unset_or_mapping:
            detail = "response_done needs a mapping with an output list and a usage mapping."
            raise refused_event(self.model, call_index, detail)
        completion = completion_of(self.model, fields["output"], call_index)
        usage = fields_of(fields.get("usage"))
        completion.input_tokens = usage.get("input_tokens") or 0
        completion.output_tokens = usage.get("output_tokens") or 0
        return completion

    def should_retry(self, error: Exception, attempt: int, *, stream: bool) -> bool:
        question = RetryAdviceRequest(error=error, stream=stream, attempt=attempt)
        advice = self.model.get_retry_advice(question)
        return advice is not None and advice.suggested is True


def get_weather(city: str) -> str:
    return f"{city}: sunny"


WEATHER = Tool("get_weather", get_weather)


class TinyAgentHarness:
    """Drive the tiny agent framework through the adapter, for the conformance checks."""

    framework = FRAMEWORK

    def chat_model(self, model: ScriptedModel) -> ChatModel:
        return ScriptedChatModel(model)

    async def call(self, model: ScriptedModel, prompt: str, *, stream: bool) -> Reply:
        chat = self.chat_model(model)
        messages: list[Message] = [{"role": "user", "content": prompt}]
        deltas: list[str] = []
        if stream:
            completion = Completion()
            async for chunk in chat.stream(messages, [WEATHER]):
                deltas += [chunk.text] if chunk.text else []
                completion = chunk.completion or completion
        else:
            completion = await chat.complete(messages, [WEATHER])
        return Reply(
            text=completion.text,
            tool_calls=tuple(
                ReplyToolCall(call.name, call.id, call.arguments) for call in completion.tool_calls
            ),
            text_deltas=tuple(deltas),
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            reasoning=tuple(completion.reasoning),
        )

    async def run_tool_loop(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        return await Agent(self.chat_model(model), [WEATHER]).run(prompt, stream=stream)

    def sent_tool_names(self, request: ModelRequest) -> list[str]:
        return [tool.name for tool in request.tools]

    async def run_with_retry(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        agent = Agent(self.chat_model(model), [WEATHER], max_retries=1)
        return await agent.run(prompt, stream=stream)

    async def abandon_stream(self, model: ScriptedModel, prompt: str) -> None:
        messages: list[Message] = [{"role": "user", "content": prompt}]
        stream = self.chat_model(model).stream(messages, [WEATHER])
        async with contextlib.aclosing(stream) as chunks:
            async for chunk in chunks:
                if chunk.text:
                    break

    def structured_output(self, value: Mapping[str, Any]) -> list[Any]:
        return [assistant_message(json.dumps(dict(value)))]

    async def run_structured(
        self, model: ScriptedModel, prompt: str, *, stream: bool
    ) -> Mapping[str, Any]:
        return await Agent(self.chat_model(model), []).run_json(prompt, stream=stream)


class TestTinyAgentAdapter(ModelAdapterTests):
    harness = TinyAgentHarness()
    has_retry_advice = True
    has_cancellation = True
    has_structured_output = True
    has_reasoning_items = True
