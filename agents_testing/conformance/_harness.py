"""What an adapter author supplies: a harness that drives their framework, and its readings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..items import ModelRequest
from ..model import ScriptedModel

__all__ = [
    "AbandonStreamHarness",
    "ModelHarness",
    "Reply",
    "ReplyToolCall",
    "RetryAdviceHarness",
    "StructuredOutputHarness",
]


@dataclass(frozen=True)
class ReplyToolCall:
    """One tool call as the framework parsed it from a model response.

    ``arguments`` is what the framework keeps: the model's JSON string, or the mapping the
    framework parsed it into.
    """

    name: str
    call_id: str
    arguments: str | Mapping[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the framework made of one model response, read back in its own terms.

    ``text`` is the assistant text, ``tool_calls`` the tool calls in order. For a streamed
    call, ``text_deltas`` are the text chunks the framework delivered, in order. The token
    counts are the framework's reading of the response's usage (``None`` where it keeps
    none), and ``reasoning`` the summary texts of the reasoning items it kept.
    """

    text: str
    tool_calls: tuple[ReplyToolCall, ...] = ()
    text_deltas: tuple[str, ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning: tuple[str, ...] = ()


@runtime_checkable
class ModelHarness(Protocol):
    """Drive one framework through its model adapter, backed by a ``ScriptedModel``.

    The checks script the model and call these methods. Every run offers the model one tool,
    ``get_weather(city: str) -> str``, which returns ``f"{city}: sunny"``.
    """

    @property
    def framework(self) -> str:
        """Name the framework in failure messages (for example ``"my-agents"``)."""
        ...

    async def call(self, model: ScriptedModel, prompt: str, *, stream: bool) -> Reply:
        """Make exactly one model call with ``prompt`` and the tool offered; read its reply.

        Call the framework's model interface as its own runner would, streamed or not, and
        do not run the tools the reply asks for.
        """
        ...

    async def run_tool_loop(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        """Run the framework's agent loop on ``prompt`` until it answers; return the answer.

        The loop runs every tool call the model makes and sends the results back, as the
        framework does in production. With ``stream`` every model call is streamed.
        """
        ...

    def sent_tool_names(self, request: ModelRequest) -> list[str]:
        """Return the names of the tools in ``request.tools``, read from the framework's objects."""
        ...


@runtime_checkable
class RetryAdviceHarness(ModelHarness, Protocol):
    """A harness for a framework whose retry policy asks the model for retry advice."""

    async def run_with_retry(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        """Run ``prompt`` with one retry allowed when the provider's advice suggests it.

        Set the framework's retry policy to follow the model's advice (for example a
        "provider suggested" policy) with at most one retry; return the final answer.
        """
        ...


@runtime_checkable
class AbandonStreamHarness(ModelHarness, Protocol):
    """A harness for a framework whose users may stop reading a stream early."""

    async def abandon_stream(self, model: ScriptedModel, prompt: str) -> None:
        """Start one streamed call, read its first text delta, then stop reading it.

        Stop the way the framework's users do (close the stream, leave its ``async with``,
        cancel the task) and return once the framework says the stream is over.
        """
        ...


@runtime_checkable
class StructuredOutputHarness(ModelHarness, Protocol):
    """A harness for a framework that parses structured output from the model."""

    def structured_output(self, value: Mapping[str, Any]) -> list[Any]:
        """Return the output items a model sends to deliver ``value`` to this framework.

        For example ``[assistant_message(json.dumps(value))]`` for a framework that parses
        the text, or ``[function_call("final_result", value, call_id=...)]`` for one that
        uses an output tool.
        """
        ...

    async def run_structured(
        self, model: ScriptedModel, prompt: str, *, stream: bool
    ) -> Mapping[str, Any]:
        """Run ``prompt`` asking for a ``{"city": str, "sky": str}`` object; return it as a dict."""
        ...
