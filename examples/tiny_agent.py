"""A tiny agent framework with no dependencies: the kind of code an adapter is written for.

A ``ChatModel`` answers a list of messages, plainly or as a stream of chunks, and says
whether a failed call should be retried. ``Agent`` runs the tool loop on one.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Tool:
    name: str
    function: Callable[..., str]


@dataclass
class ToolCall:
    name: str
    id: str
    arguments: str  # JSON, as the model sent it


@dataclass
class Completion:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list[ToolCall])
    reasoning: list[str] = field(default_factory=list[str])
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Chunk:
    """A piece of a streamed completion: text, or the whole completion at the end."""

    text: str = ""
    completion: Completion | None = None


# {"role": "user", "content": str}, {"role": "assistant", "completion": Completion} or
# {"role": "tool", "tool_call_id": str, "content": str}
Message = dict[str, Any]


class ChatModel(Protocol):
    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion: ...

    def stream(self, messages: list[Message], tools: list[Tool]) -> AsyncGenerator[Chunk, None]: ...

    def should_retry(self, error: Exception, attempt: int, *, stream: bool) -> bool: ...


class Agent:
    """Call the model, run the tools it asks for, and repeat until it answers."""

    def __init__(self, model: ChatModel, tools: list[Tool], *, max_retries: int = 0) -> None:
        self.model = model
        self.tools = {tool.name: tool for tool in tools}
        self.max_retries = max_retries

    async def run(self, prompt: str, *, stream: bool = False) -> str:
        messages: list[Message] = [{"role": "user", "content": prompt}]
        while True:
            completion = await self._complete(messages, stream=stream)
            messages.append({"role": "assistant", "completion": completion})
            if not completion.tool_calls:
                return completion.text
            for call in completion.tool_calls:
                output = self.tools[call.name].function(**json.loads(call.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": output})

    async def run_json(self, prompt: str, *, stream: bool = False) -> dict[str, Any]:
        """Run ``prompt`` and parse the answer as a JSON object."""
        value: dict[str, Any] = json.loads(await self.run(prompt, stream=stream))
        return value

    async def _complete(self, messages: list[Message], *, stream: bool) -> Completion:
        tools = list(self.tools.values())
        attempt = 1
        while True:
            try:
                if not stream:
                    return await self.model.complete(messages, tools)
                completion = None
                async for chunk in self.model.stream(messages, tools):
                    completion = chunk.completion or completion
                if completion is None:
                    raise RuntimeError("the stream ended without a completion")
                return completion
            except Exception as error:
                retry = attempt <= self.max_retries
                if not retry or not self.model.should_retry(error, attempt, stream=stream):
                    raise
                attempt += 1
