"""Every conformance check fails on an adapter with the defect it names, saying how to fix it.

The adapters here are the tiny-agent adapter of ``examples/example_conformance.py`` (the
one docs/conformance.md walks through, which passes every check) with one defect each.
"""

from __future__ import annotations

import html
import json
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:  # pytest puts examples/ on the path only when it runs them
    sys.path.insert(0, str(EXAMPLES))

from example_conformance import (  # noqa: E402
    ScriptedChatModel,
    TinyAgentHarness,
    completion_of,
    scripted_request,
)
from tiny_agent import ChatModel, Chunk, Completion, Message, Tool  # noqa: E402

from agents_testing import ScriptedModel  # noqa: E402
from agents_testing import conformance as kit  # noqa: E402
from agents_testing.conformance import ConformanceError  # noqa: E402

# -- one defect each ------------------------------------------------------------------------------


class ForgetsText(ScriptedChatModel):
    """Leaves the assistant text out of the completion."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        completion = await super().complete(messages, tools)
        completion.text = ""
        return completion


class DropsToolCalls(ScriptedChatModel):
    """Converts no function_call item."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        completion = await super().complete(messages, tools)
        completion.tool_calls = []
        return completion


class ReformatsArguments(ScriptedChatModel):
    """Writes tool call arguments back as compact JSON."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        completion = await super().complete(messages, tools)
        for call in completion.tool_calls:
            call.arguments = json.dumps(json.loads(call.arguments), separators=(",", ":"))
        return completion


class KeepsTheFirstToolCall(ScriptedChatModel):
    """Converts only the first function_call item of a response."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        completion = await super().complete(messages, tools)
        completion.tool_calls = completion.tool_calls[:1]
        return completion


class LosesToolResults(ScriptedChatModel):
    """Leaves the tool results out of the recorded request."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        return await super().complete([m for m in messages if m["role"] != "tool"], tools)


class HidesTools(ScriptedChatModel):
    """Records no tools."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        return await super().complete(messages, [])


class DropsUsage(ScriptedChatModel):
    """Leaves the token counts at zero."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        completion = await super().complete(messages, tools)
        completion.input_tokens = completion.output_tokens = 0
        return completion


class DropsReasoning(ScriptedChatModel):
    """Converts reasoning items to nothing."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        completion = await super().complete(messages, tools)
        completion.reasoning = []
        return completion


class EscapesText(ScriptedChatModel):
    """HTML-escapes the assistant text."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        completion = await super().complete(messages, tools)
        completion.text = html.escape(completion.text)
        return completion


class StreamsOnlyTheEnd(ScriptedChatModel):
    """Streams no text deltas, only the final completion."""

    async def stream(
        self, messages: list[Message], tools: list[Tool]
    ) -> AsyncGenerator[Chunk, None]:
        async for chunk in super().stream(messages, tools):
            if chunk.completion is not None:
                yield chunk


class RepeatsTheText(ScriptedChatModel):
    """Streams the final text again as one more delta."""

    async def stream(
        self, messages: list[Message], tools: list[Tool]
    ) -> AsyncGenerator[Chunk, None]:
        async for chunk in super().stream(messages, tools):
            if chunk.completion is not None:
                yield Chunk(text=chunk.completion.text)
            yield chunk


class SkipsUnreadableEvents(ScriptedChatModel):
    """Skips stream events it cannot read instead of refusing them."""

    async def stream(
        self, messages: list[Message], tools: list[Tool]
    ) -> AsyncGenerator[Chunk, None]:
        events = self.model.stream_response(scripted_request(messages, tools))
        try:
            async for scripted in events:
                event: Mapping[str, Any] = scripted
                response = event.get("response")
                if event.get("type") == "output_text_delta":
                    yield Chunk(text=event["delta"])
                elif isinstance(response, Mapping) and isinstance(response.get("output"), list):
                    output: list[Any] = response["output"]
                    yield Chunk(completion=completion_of(self.model, output, events.call_index))
        finally:
            await events.aclose()


class LeavesTheStreamOpen(ScriptedChatModel):
    """Never closes the scripted stream."""

    async def stream(
        self, messages: list[Message], tools: list[Tool]
    ) -> AsyncGenerator[Chunk, None]:
        async for scripted in self.model.stream_response(scripted_request(messages, tools)):
            event: Mapping[str, Any] = scripted
            if event.get("type") == "output_text_delta":
                yield Chunk(text=event["delta"])


class HidesTheCause(ScriptedChatModel):
    """Replaces a model failure with its own error, hiding the original."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        try:
            return await super().complete(messages, tools)
        except Exception:
            raise RuntimeError("the model failed") from None


class NeverAdvisesRetrying(ScriptedChatModel):
    """Ignores the scripted retry advice."""

    def should_retry(self, error: Exception, attempt: int, *, stream: bool) -> bool:
        return False


class AlwaysAdvisesRetrying(ScriptedChatModel):
    """Retries whatever the scripted advice says."""

    def should_retry(self, error: Exception, attempt: int, *, stream: bool) -> bool:
        return True


class AnswersPastTheScript(ScriptedChatModel):
    """Answers a call itself when the script has no step left."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        if self.model.remaining_steps == 0:
            return Completion(text="(no answer)")
        return await super().complete(messages, tools)


class DropsUnknownItems(ScriptedChatModel):
    """Leaves out output items it has no type for."""

    async def complete(self, messages: list[Message], tools: list[Tool]) -> Completion:
        call_index = len(self.model.calls)
        response = await self.model.get_response(scripted_request(messages, tools))
        known = [item for item in response.output if item.get("type") == "message"]
        return completion_of(self.model, known, call_index)


class BrokenHarness(TinyAgentHarness):
    """The example's harness, driving a broken adapter."""

    def __init__(self, adapter: Callable[[ScriptedModel], ChatModel]) -> None:
        self.adapter = adapter

    def chat_model(self, model: ScriptedModel) -> ChatModel:
        return self.adapter(model)


# -- which check each defect fails --------------------------------------------------------------

Check = Callable[..., Awaitable[None]]

# (check, its keyword arguments, the defect, what the error says happened, how to fix it)
DEFECTS: list[tuple[Check, dict[str, Any], type[ScriptedChatModel], str, str]] = [
    (
        kit.check_text_turn,
        {},
        ForgetsText,
        "''",
        "turn message items into the framework's assistant text",
    ),
    (
        kit.check_tool_call_turn,
        {"stream": False},
        DropsToolCalls,
        "[]",
        "Turn each function_call item into the framework's tool call",
    ),
    (
        kit.check_exact_tool_arguments,
        {},
        ReformatsArguments,
        """['{"city":"Tokyo"}']""",
        "do not re-serialize parsed arguments",
    ),
    (
        kit.check_tool_loop,
        {},
        DropsToolCalls,
        "1 call(s) with streamed=[False]",
        "Give the framework the tool call as one it runs",
    ),
    (
        kit.check_tool_loop_history,
        {},
        LosesToolResults,
        "{}",
        "a function_call_output item (call_id, output) per tool result",
    ),
    (
        kit.check_parallel_tool_calls,
        {},
        KeepsTheFirstToolCall,
        "'call_1'",
        "Convert every function_call item of a response",
    ),
    (
        kit.check_recorded_request,
        {},
        HidesTools,
        "[] and []",
        "or OpenAI tool dicts in tools",
    ),
    (
        kit.check_usage,
        {},
        DropsUsage,
        "0 input and 0 output tokens",
        "Copy the response's Usage",
    ),
    (
        kit.check_reasoning_items,
        {},
        DropsReasoning,
        "reasoning ()",
        "Convert reasoning items",
    ),
    (
        kit.check_structured_output,
        {},
        EscapesText,
        "raised JSONDecodeError",
        "to the framework's output parser unchanged",
    ),
    (
        kit.check_automatic_stream,
        {},
        StreamsOnlyTheEnd,
        "deltas []",
        "Turn each output_text_delta event",
    ),
    (
        kit.check_exact_stream,
        {},
        RepeatsTheText,
        "'It is sunny.']",
        "do not repeat text from response_done",
    ),
    (
        kit.check_invalid_stream_events_are_refused,
        {},
        SkipsUnreadableEvents,
        "it passed",
        "model.record_violation(InvalidScriptedModelStepError('invalid_stream_event'",
    ),
    (
        kit.check_abandoned_stream_closes_the_source,
        {},
        LeavesTheStreamOpen,
        "still open",
        "await events.aclose() in a finally block",
    ),
    (
        kit.check_model_error_reaches_the_caller,
        {},
        HidesTheCause,
        "RuntimeError",
        "raise FrameworkError(...) from error",
    ),
    (
        kit.check_retry_advice_is_followed,
        {},
        NeverAdvisesRetrying,
        "ScriptedFailure",
        "ScriptedModel.get_retry_advice(",
    ),
    (
        kit.check_advice_against_retrying_is_followed,
        {},
        AlwaysAdvisesRetrying,
        "it returned",
        "ModelRetryAdvice(suggested=False)",
    ),
    (
        kit.check_extra_call_fails_the_run,
        {},
        AnswersPastTheScript,
        "it passed",
        "do not answer it yourself",
    ),
    (
        kit.check_unknown_output_item_is_refused,
        {},
        DropsUnknownItems,
        "it passed",
        "model.record_violation(InvalidScriptedModelOutputError(",
    ),
]
IDS = [check.__name__ for check, *_ in DEFECTS]


@pytest.mark.parametrize(("check", "options", "adapter", "actual", "fix"), DEFECTS, ids=IDS)
async def test_the_check_fails_on_its_defect_with_the_fix(
    check: Check,
    options: dict[str, Any],
    adapter: type[ScriptedChatModel],
    actual: str,
    fix: str,
) -> None:
    with pytest.raises(ConformanceError) as raised:
        await check(BrokenHarness(adapter), **options)

    error = raised.value
    assert error.check.startswith(check.__name__)
    assert actual in error.actual
    assert str(error) == (
        f"{error.check} failed: expected {error.expected.rstrip('.')}; "
        f"got {error.actual.rstrip('.')}. {error.fix}"
    )
    assert fix in error.fix


@pytest.mark.parametrize(("check", "options"), [row[:2] for row in DEFECTS], ids=IDS)
async def test_the_example_adapter_passes_the_check(check: Check, options: dict[str, Any]) -> None:
    await check(TinyAgentHarness(), **options)


def test_every_model_check_has_a_defect_that_fails_it() -> None:
    # The other sets' checks have theirs in test_broken_wire_clients.py and the sandbox and
    # realtime adapter tests.
    others = ("check_wire_", "check_sandbox_", "check_realtime_")
    checks = {
        name for name in kit.__all__ if name.startswith("check_") and not name.startswith(others)
    }

    assert checks == set(IDS)
