"""The LangChain chat model adapter passes the public conformance kit on langchain-core."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Mapping
from typing import Any, cast

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from agents_testing import ModelRequest, ScriptedModel, function_call
from agents_testing.adapters.langchain import langchain_chat_model
from agents_testing.conformance import Reply, ReplyToolCall
from agents_testing.conformance.pytest import ModelAdapterTests


@tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


class Forecast(BaseModel):
    """A city's weather."""

    city: str
    sky: str


def read_message(message: AIMessage, deltas: tuple[str, ...] = ()) -> Reply:
    """Read an ``AIMessage`` as the kit's reply."""
    usage = message.usage_metadata
    return Reply(
        text=message.text,
        tool_calls=tuple(
            ReplyToolCall(call["name"], call["id"] or "", call["args"])
            for call in message.tool_calls
        ),
        text_deltas=deltas,
        input_tokens=None if usage is None else usage["input_tokens"],
        output_tokens=None if usage is None else usage["output_tokens"],
        reasoning=tuple(
            str(block.get("reasoning", ""))
            for block in message.content_blocks
            if block["type"] == "reasoning"
        ),
    )


class LangChainHarness:
    """Drive langchain-core through ``langchain_chat_model``, with a hand-written tool loop."""

    framework = "langchain"

    async def call(self, model: ScriptedModel, prompt: str, *, stream: bool) -> Reply:
        chat = langchain_chat_model(model).bind_tools([get_weather])
        if not stream:
            return read_message(await chat.ainvoke(prompt))
        # bind_tools types its stream as AIMessage; a streamed part is an AIMessageChunk.
        chunks = [cast(AIMessageChunk, chunk) async for chunk in chat.astream(prompt)]
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk
        deltas = tuple(chunk.text for chunk in chunks if chunk.text)
        return read_message(total, deltas)

    async def run_tool_loop(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        messages: list[BaseMessage] = [HumanMessage(prompt)]
        while True:
            reply = await self.call_with_history(model, messages, stream=stream)
            messages.append(reply)
            if not reply.tool_calls:
                return reply.text
            for call in reply.tool_calls:
                messages.append(await get_weather.ainvoke(call))

    async def call_with_history(
        self, model: ScriptedModel, messages: list[BaseMessage], *, stream: bool
    ) -> AIMessage:
        chat = langchain_chat_model(model).bind_tools([get_weather])
        if not stream:
            return await chat.ainvoke(messages)
        chunks = [cast(AIMessageChunk, chunk) async for chunk in chat.astream(messages)]
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk
        return total

    def sent_tool_names(self, request: ModelRequest) -> list[str]:
        return [schema["function"]["name"] for schema in request.tools]

    async def abandon_stream(self, model: ScriptedModel, prompt: str) -> None:
        # The chat model itself: closing a bind_tools() binding's astream leaves the chat
        # model's stream open (langchain-core 1.8), so no adapter could close its source.
        chat = langchain_chat_model(model)
        stream = cast(AsyncGenerator[AIMessageChunk, None], chat.astream(prompt))
        async with contextlib.aclosing(stream) as chunks:
            async for chunk in chunks:
                if chunk.text:
                    break

    def structured_output(self, value: Mapping[str, Any]) -> list[Any]:
        return [function_call("Forecast", dict(value), call_id="call_output")]

    async def run_structured(
        self, model: ScriptedModel, prompt: str, *, stream: bool
    ) -> Mapping[str, Any]:
        chat = langchain_chat_model(model).with_structured_output(Forecast)
        if not stream:
            return cast(Forecast, await chat.ainvoke(prompt)).model_dump()
        parsed = [cast(Forecast, value) async for value in chat.astream(prompt)]
        return parsed[-1].model_dump()


class TestLangChainConformance(ModelAdapterTests):
    harness = LangChainHarness()
    keeps_exact_tool_arguments = False  # LangChain keeps parsed arguments
    has_cancellation = True
    has_structured_output = True
    has_reasoning_items = True
