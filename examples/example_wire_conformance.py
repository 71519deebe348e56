"""A tiny Chat Completions client on urllib, checked against the wire endpoint by the kit.

``ChatClient`` stands for a client library of your own: it speaks the OpenAI Chat
Completions API over HTTP, streams server-sent events, and retries what the API says may be
retried. ``ChatClientHarness`` drives it for ``WireClientTests``. It needs nothing but the
standard library: the kit starts a ``ScriptedServer`` on 127.0.0.1 for each check.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from typing import Any

from agents_testing.conformance import Reply, ReplyToolCall
from agents_testing.conformance.pytest import WireClientTests
from agents_testing.wire import ScriptedServer

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


class ChatClient:
    """POST /chat/completions, streamed or not, with retries on 408, 409, 429 and 5xx."""

    def __init__(self, base_url: str, api_key: str, *, max_retries: int = 1) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key
        self.max_retries = max_retries

    def create(self, messages: list[Any], *, stream: bool) -> Reply:
        body: dict[str, Any] = {"model": "gpt-test", "messages": messages, "tools": [WEATHER]}
        if stream:
            body.update(stream=True, stream_options={"include_usage": True})
        for attempt in range(self.max_retries + 1):
            try:
                return self._send(json.dumps(body).encode(), stream=stream)
            except urllib.error.HTTPError as error:
                error.close()
                if attempt == self.max_retries or not _retryable(error):
                    raise
                time.sleep(_wait(error))
        raise AssertionError("unreachable")

    def _send(self, data: bytes, *, stream: bool) -> Reply:
        request = urllib.request.Request(
            self.url,
            data,
            {"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
        )
        with urllib.request.urlopen(request) as response:
            if not stream:
                return _reply(json.load(response))
            return _streamed(line.decode() for line in response)


def _retryable(error: urllib.error.HTTPError) -> bool:
    if error.headers.get("x-should-retry") == "false":
        return False
    return error.code in (408, 409, 429) or error.code >= 500


def _wait(error: urllib.error.HTTPError) -> float:
    advised = error.headers.get("retry-after")
    return float(advised) if advised is not None else 0.5


def _reply(body: dict[str, Any]) -> Reply:
    message = body["choices"][0]["message"]
    calls = tuple(
        ReplyToolCall(call["function"]["name"], call["id"], call["function"]["arguments"])
        for call in message.get("tool_calls") or ()
    )
    usage: dict[str, Any] = body.get("usage") or {}
    return Reply(
        message.get("content") or "",
        calls,
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
    )


def _streamed(lines: Any) -> Reply:
    deltas: list[str] = []
    calls: dict[int, list[str]] = {}  # index -> [id, name, arguments]
    usage: dict[str, int] = {}
    for line in lines:
        if not line.startswith("data: ") or line.strip() == "data: [DONE]":
            continue
        chunk = json.loads(line[len("data: ") :])
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices", []):
            delta = choice.get("delta", {})
            if delta.get("content"):
                deltas.append(delta["content"])
            for part in delta.get("tool_calls") or ():
                call = calls.setdefault(part["index"], ["", "", ""])
                call[0] = part.get("id") or call[0]
                call[1] = part.get("function", {}).get("name") or call[1]
                call[2] += part.get("function", {}).get("arguments") or ""
    return Reply(
        "".join(deltas),
        tuple(ReplyToolCall(name, call_id, args) for call_id, name, args in calls.values()),
        tuple(deltas),
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
    )


class ChatClientHarness:
    """Drive ``ChatClient`` (a sync client, so on a worker thread) for the wire checks."""

    client = "tiny urllib chat client"

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        client = ChatClient(server.base_url, "sk-test")
        messages = [{"role": "user", "content": prompt}]
        return await asyncio.to_thread(client.create, messages, stream=stream)

    async def run_tool_loop(self, server: ScriptedServer, prompt: str, *, stream: bool) -> str:
        client = ChatClient(server.base_url, "sk-test")
        messages: list[Any] = [{"role": "user", "content": prompt}]
        while True:
            reply = await asyncio.to_thread(client.create, messages, stream=stream)
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
                city = json.loads(str(call.arguments))["city"]
                messages.append(
                    {"role": "tool", "tool_call_id": call.call_id, "content": f"{city}: sunny"}
                )

    def http_status(self, error: BaseException) -> int | None:
        return error.code if isinstance(error, urllib.error.HTTPError) else None


class TestTinyChatClient(WireClientTests):
    harness = ChatClientHarness()
