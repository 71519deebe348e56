"""Wire harnesses for the real openai and anthropic clients, run through the conformance kit.

Import this module after ``importorskip("openai")`` / ``importorskip("anthropic")``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from agents_testing.adapters.httpx import scripted_transport
from agents_testing.conformance import Reply, ReplyToolCall
from agents_testing.wire import ScriptedServer

API_KEY = "sk-test-key-never-recorded-4242"
RESPONSES_TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CHAT_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
MESSAGES_TOOL = {
    "name": "get_weather",
    "description": "Return the weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def async_options(server: ScriptedServer, api_path: str, http: Any, in_process: bool) -> Any:
    """Return the client options pointing an async SDK client at ``server``.

    ``in_process`` serves the server's endpoint through the in-process httpx transport (no
    socket); otherwise the client talks to the server over loopback. ``http`` is the httpx
    module the SDK accepts clients of.
    """
    if not in_process:
        return {"base_url": server.url + api_path}
    transport = scripted_transport(server.endpoint)
    return {
        "base_url": "http://scripted.invalid" + api_path,
        "http_client": http.AsyncClient(transport=transport),
    }


def weather(arguments: str | Mapping[str, Any]) -> str:
    parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    return f"{parsed['city']}: sunny"


def status_code(error: BaseException) -> int | None:
    """Both SDKs put the status of an HTTP error on ``status_code``."""
    status = getattr(error, "status_code", None)
    return status if isinstance(status, int) else None


# -- OpenAI Responses ----------------------------------------------------------------------------


def _responses_reply(response: Any, deltas: list[str]) -> Reply:
    calls = tuple(
        ReplyToolCall(item.name, item.call_id, item.arguments)
        for item in response.output
        if item.type == "function_call"
    )
    usage = response.usage
    return Reply(
        text=response.output_text,
        tool_calls=calls,
        text_deltas=tuple(deltas),
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
    )


def _responses_turn(client: Any, conversation: Any, *, stream: bool) -> Reply:
    request: dict[str, Any] = {
        "model": "gpt-test",
        "input": conversation,
        "tools": [RESPONSES_TOOL],
    }
    if not stream:
        return _responses_reply(client.responses.create(**request), [])
    deltas: list[str] = []
    with client.responses.stream(**request) as events:
        for event in events:
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
        return _responses_reply(events.get_final_response(), deltas)


async def _responses_turn_async(client: Any, conversation: Any, *, stream: bool) -> Reply:
    request: dict[str, Any] = {
        "model": "gpt-test",
        "input": conversation,
        "tools": [RESPONSES_TOOL],
    }
    if not stream:
        return _responses_reply(await client.responses.create(**request), [])
    deltas: list[str] = []
    async with client.responses.stream(**request) as events:
        async for event in events:
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
        return _responses_reply(await events.get_final_response(), deltas)


def _responses_next(conversation: list[Any], reply: Reply) -> None:
    for call in reply.tool_calls:
        conversation.append(
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            }
        )
        conversation.append(
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": weather(call.arguments),
            }
        )


class OpenAIResponsesHarness:
    """The async openai client's Responses API, over loopback or in-process."""

    def __init__(self, *, in_process: bool = False) -> None:
        self.in_process = in_process
        self.client = f"openai (Responses, async, {'in-process' if in_process else 'loopback'})"

    def _client(self, server: ScriptedServer) -> Any:
        import httpx
        import openai

        options = async_options(server, "/v1", httpx, self.in_process)
        return openai.AsyncOpenAI(api_key=API_KEY, max_retries=1, **options)

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        async with self._client(server) as client:
            return await _responses_turn_async(client, prompt, stream=stream)

    async def run_tool_loop(self, server: ScriptedServer, prompt: str, *, stream: bool) -> str:
        conversation: list[Any] = [{"role": "user", "content": prompt}]
        async with self._client(server) as client:
            while True:
                reply = await _responses_turn_async(client, conversation, stream=stream)
                if not reply.tool_calls:
                    return reply.text
                _responses_next(conversation, reply)

    def http_status(self, error: BaseException) -> int | None:
        return status_code(error)


class SyncOpenAIResponsesHarness:
    """The sync openai client's Responses API through the in-process httpx transport."""

    client = "openai (Responses, sync, in-process)"

    def _client(self, server: ScriptedServer) -> Any:
        import httpx
        import openai

        http: Any = httpx  # the tests of tests/wire hand openai plain httpx clients too
        return openai.OpenAI(
            base_url="http://scripted.invalid/v1",
            api_key=API_KEY,
            max_retries=1,
            http_client=http.Client(transport=scripted_transport(server.endpoint)),
        )

    def _call(self, server: ScriptedServer, prompt: str, stream: bool) -> Reply:
        with self._client(server) as client:
            return _responses_turn(client, prompt, stream=stream)

    def _loop(self, server: ScriptedServer, prompt: str, stream: bool) -> str:
        conversation: list[Any] = [{"role": "user", "content": prompt}]
        with self._client(server) as client:
            while True:
                reply = _responses_turn(client, conversation, stream=stream)
                if not reply.tool_calls:
                    return reply.text
                _responses_next(conversation, reply)

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        return await asyncio.to_thread(self._call, server, prompt, stream)

    async def run_tool_loop(self, server: ScriptedServer, prompt: str, *, stream: bool) -> str:
        return await asyncio.to_thread(self._loop, server, prompt, stream)

    def http_status(self, error: BaseException) -> int | None:
        return status_code(error)


# -- OpenAI Chat Completions ---------------------------------------------------------------------


def chat_reply(completion: Any, deltas: list[str]) -> Reply:
    message = completion.choices[0].message
    calls = tuple(
        ReplyToolCall(call.function.name, call.id, call.function.arguments)
        for call in message.tool_calls or ()
    )
    usage = completion.usage
    return Reply(
        text=message.content or "",
        tool_calls=calls,
        text_deltas=tuple(deltas),
        input_tokens=usage.prompt_tokens if usage else None,
        output_tokens=usage.completion_tokens if usage else None,
    )


class OpenAIChatHarness:
    """The async openai client's Chat Completions API, over loopback or in-process."""

    def __init__(self, *, in_process: bool = False) -> None:
        self.in_process = in_process
        where = "in-process" if in_process else "loopback"
        self.client = f"openai (Chat Completions, async, {where})"

    def _client(self, server: ScriptedServer) -> Any:
        import httpx
        import openai

        options = async_options(server, "/v1", httpx, self.in_process)
        return openai.AsyncOpenAI(api_key=API_KEY, max_retries=1, **options)

    async def _turn(self, client: Any, messages: list[Any], *, stream: bool) -> Reply:
        request: dict[str, Any] = {"model": "gpt-test", "messages": messages, "tools": [CHAT_TOOL]}
        if not stream:
            return chat_reply(await client.chat.completions.create(**request), [])
        deltas: list[str] = []
        request["stream_options"] = {"include_usage": True}
        async with client.chat.completions.stream(**request) as events:
            async for event in events:
                if event.type == "content.delta":
                    deltas.append(event.delta)
            return chat_reply(await events.get_final_completion(), deltas)

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        async with self._client(server) as client:
            return await self._turn(client, [{"role": "user", "content": prompt}], stream=stream)

    async def run_tool_loop(self, server: ScriptedServer, prompt: str, *, stream: bool) -> str:
        messages: list[Any] = [{"role": "user", "content": prompt}]
        async with self._client(server) as client:
            while True:
                reply = await self._turn(client, messages, stream=stream)
                if not reply.tool_calls:
                    return reply.text
                messages.append(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": call.call_id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": call.arguments},
                            }
                            for call in reply.tool_calls
                        ],
                    }
                )
                for call in reply.tool_calls:
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": call.call_id,
                            "content": weather(call.arguments),
                        }
                    )

    def http_status(self, error: BaseException) -> int | None:
        return status_code(error)


# -- Anthropic Messages --------------------------------------------------------------------------


def _messages_reply(message: Any, deltas: list[str]) -> Reply:
    calls = tuple(
        ReplyToolCall(block.name, block.id, dict(block.input))
        for block in message.content
        if block.type == "tool_use"
    )
    text = "".join(block.text for block in message.content if block.type == "text")
    return Reply(
        text=text,
        tool_calls=calls,
        text_deltas=tuple(deltas),
        input_tokens=message.usage.input_tokens,
        output_tokens=message.usage.output_tokens,
    )


class AnthropicHarness:
    """The async anthropic client's Messages API, over loopback or in-process."""

    def __init__(self, *, in_process: bool = False) -> None:
        self.in_process = in_process
        where = "in-process" if in_process else "loopback"
        self.client = f"anthropic (Messages, async, {where})"

    def _client(self, server: ScriptedServer) -> Any:
        import anthropic

        try:  # anthropic >= 2 is built on the httpx2 fork and accepts only its clients
            import httpx2 as http
        except ImportError:
            import httpx as http  # type: ignore[no-redef]  # anthropic < 2

        options = async_options(server, "", http, self.in_process)
        return anthropic.AsyncAnthropic(api_key=API_KEY, max_retries=1, **options)

    async def _turn(self, client: Any, messages: list[Any], *, stream: bool) -> Reply:
        request: dict[str, Any] = {
            "model": "claude-test",
            "max_tokens": 512,
            "messages": messages,
            "tools": [MESSAGES_TOOL],
        }
        if not stream:
            return _messages_reply(await client.messages.create(**request), [])
        deltas: list[str] = []
        async with client.messages.stream(**request) as events:
            async for event in events:
                if event.type == "text":
                    deltas.append(event.text)
            return _messages_reply(await events.get_final_message(), deltas)

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        async with self._client(server) as client:
            return await self._turn(client, [{"role": "user", "content": prompt}], stream=stream)

    async def run_tool_loop(self, server: ScriptedServer, prompt: str, *, stream: bool) -> str:
        messages: list[Any] = [{"role": "user", "content": prompt}]
        async with self._client(server) as client:
            while True:
                reply = await self._turn(client, messages, stream=stream)
                if not reply.tool_calls:
                    return reply.text
                messages.append(
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": c.call_id,
                                "name": c.name,
                                "input": c.arguments,
                            }
                            for c in reply.tool_calls
                        ],
                    }
                )
                messages.append(
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": c.call_id,
                                "content": weather(c.arguments),
                            }
                            for c in reply.tool_calls
                        ],
                    }
                )

    def http_status(self, error: BaseException) -> int | None:
        return status_code(error)
