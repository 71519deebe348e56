"""Every wire check fails on a client harness with the defect it names, saying how to fix it.

The harnesses are the async openai Chat Completions harness of ``wire_harnesses.py`` (which
passes every wire check) with one defect each.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("httpx")

from agents_testing import conformance as kit
from agents_testing.conformance import ConformanceError, Reply, ReplyToolCall
from agents_testing.wire import ScriptedServer

from .wire_harnesses import API_KEY, CHAT_TOOL, OpenAIChatHarness, chat_reply


class ForgetsText(OpenAIChatHarness):
    """Reads no text from the response."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        reply = await super().call(server, prompt, stream=stream)
        return Reply("", reply.tool_calls, reply.text_deltas)


class DropsToolCalls(OpenAIChatHarness):
    """Reads no tool calls from the response."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        reply = await super().call(server, prompt, stream=stream)
        return Reply(reply.text, (), reply.text_deltas)


class ReencodesArguments(OpenAIChatHarness):
    """Parses the argument string and dumps it again as compact JSON."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        reply = await super().call(server, prompt, stream=stream)
        calls = tuple(
            ReplyToolCall(
                call.name,
                call.call_id,
                json.dumps(json.loads(str(call.arguments)), separators=(",", ":")),
            )
            for call in reply.tool_calls
        )
        return Reply(reply.text, calls, reply.text_deltas)


class StreamsWithoutUsage(OpenAIChatHarness):
    """Streams Chat Completions without asking for the usage chunk."""

    async def _turn(self, client: Any, messages: list[Any], *, stream: bool) -> Reply:
        if not stream:
            return await super()._turn(client, messages, stream=stream)
        request = {"model": "gpt-test", "messages": messages, "tools": [CHAT_TOOL]}
        async with client.chat.completions.stream(**request) as events:
            async for _ in events:
                pass
            return chat_reply(await events.get_final_completion(), [])


class ReplacesTheCallId(OpenAIChatHarness):
    """Sends the tool result back under a call id of its own."""

    async def _turn(self, client: Any, messages: list[Any], *, stream: bool) -> Reply:
        for message in messages:
            if message.get("role") == "tool":
                message["tool_call_id"] = "call_mine"
        return await super()._turn(client, messages, stream=stream)


class SendsNoTools(OpenAIChatHarness):
    """Leaves the tools out of the request."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        async with self._client(server) as client:
            request = {"model": "gpt-test", "messages": [{"role": "user", "content": prompt}]}
            if stream:
                async with client.chat.completions.stream(**request) as events:
                    async for _ in events:
                        pass
                    completion = await events.get_final_completion()
            else:
                completion = await client.chat.completions.create(**request)
        return Reply(completion.choices[0].message.content or "")


class KeepsNoDeltas(OpenAIChatHarness):
    """Collects no text deltas from the stream."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        reply = await super().call(server, prompt, stream=stream)
        return Reply(reply.text, reply.tool_calls)


class AddsTheFinalText(OpenAIChatHarness):
    """Adds the final message's text as one more delta."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        reply = await super().call(server, prompt, stream=stream)
        return Reply(reply.text, reply.tool_calls, (*reply.text_deltas, reply.text))


class SwallowsErrors(OpenAIChatHarness):
    """Answers an empty reply when the client raises."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        try:
            return await super().call(server, prompt, stream=stream)
        except Exception:
            return Reply("")


class NeverRetries(OpenAIChatHarness):
    """Turns the client's retries off."""

    def _client(self, server: ScriptedServer) -> Any:
        import openai

        return openai.AsyncOpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)


class RetriesEveryFailure(OpenAIChatHarness):
    """Retries any failed call once, x-should-retry or not."""

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        try:
            return await super().call(server, prompt, stream=stream)
        except Exception:
            return await super().call(server, prompt, stream=stream)


Check = Callable[..., Awaitable[None]]
# (check, stream, defect, a phrase of `actual`, a phrase of `fix`)
DEFECTS: list[tuple[Check, bool | None, type[OpenAIChatHarness], str, str]] = [
    (kit.check_wire_text_turn, False, ForgetsText, "''", "return the text the client parsed"),
    (kit.check_wire_tool_call_turn, True, DropsToolCalls, "[]", "accumulated final response"),
    (
        kit.check_wire_exact_tool_arguments,
        False,
        ReencodesArguments,
        '\'{"city":"Tokyo"}\'',
        "not re-encoded",
    ),
    (kit.check_wire_usage, True, StreamsWithoutUsage, "None input", "include_usage"),
    (kit.check_wire_tool_loop, False, ReplacesTheCallId, "call_mine", "keyed by the model's"),
    (kit.check_wire_recorded_request, False, SendsNoTools, "()", "the tool in the request"),
    (kit.check_wire_automatic_stream, None, KeepsNoDeltas, "deltas []", "Reply.text_deltas"),
    (kit.check_wire_exact_stream, None, AddsTheFinalText, "'It is sunny.']", "do not add"),
    (kit.check_wire_http_error_arrives, False, SwallowsErrors, "it returned", "propagate"),
    (
        kit.check_wire_retry_after_is_followed,
        True,
        NeverRetries,
        "RateLimitError",
        "Keep the client's retries on",
    ),
    (
        kit.check_wire_extra_call_is_kept,
        False,
        RetriesEveryFailure,
        "2 request(s)",
        "x-should-retry: false",
    ),
    (
        kit.check_wire_unknown_output_item_is_refused,
        True,
        RetriesEveryFailure,
        "2 requests",
        "Do not retry the refused response",
    ),
]
IDS = [check.__name__ for check, *_ in DEFECTS]


def _run(check: Check, harness: OpenAIChatHarness, stream: bool | None) -> Awaitable[None]:
    return check(harness) if stream is None else check(harness, stream=stream)


@pytest.mark.parametrize(("check", "stream", "defect", "actual", "fix"), DEFECTS, ids=IDS)
async def test_the_wire_check_fails_on_its_defect_with_the_fix(
    check: Check,
    stream: bool | None,
    defect: type[OpenAIChatHarness],
    actual: str,
    fix: str,
) -> None:
    with pytest.raises(ConformanceError) as raised:
        await _run(check, defect(), stream)

    error = raised.value
    assert error.check == check.__name__
    assert actual in error.actual
    assert error.expected
    assert str(error) == (
        f"{error.check} failed: expected {error.expected.rstrip('.')}; "
        f"got {error.actual.rstrip('.')}. {error.fix}"
    )
    assert fix in error.fix


@pytest.mark.parametrize(("check", "stream"), [row[:2] for row in DEFECTS], ids=IDS)
async def test_the_sound_harness_passes_the_check(check: Check, stream: bool | None) -> None:
    await _run(check, OpenAIChatHarness(), stream)


def test_every_wire_check_has_a_defect_that_fails_it() -> None:
    checks = {name for name in kit.__all__ if name.startswith("check_wire_")}

    assert checks == set(IDS)
