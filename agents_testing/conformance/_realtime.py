"""Checks a realtime adapter passes on its real framework, over a harness the author supplies.

A realtime adapter turns ``ScriptedRealtimeTransport`` into the framework's realtime model
(or connection) type. The harness opens a framework session over it and drives it; each
check scripts the transport and raises ``ConformanceError`` naming the behavior that broke.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..errors import RealtimeCallMatcherError
from ..realtime import (
    RealtimeScenarioContext,
    ScriptedRealtimeTransport,
    SendFunctionCallOutputCall,
    SendMessageCall,
)
from ._checking import (
    chain,
    described,
    fail,
    raised,
    returned,
    returned_as,
    run_harness,
)
from ._errors import ConformanceError
from ._harness import Reply

__all__ = [
    "RealtimeHarness",
    "ScriptedRealtimeFailure",
    "check_realtime_connect_and_close",
    "check_realtime_rejected_call_is_kept",
    "check_realtime_send_failure_is_raised",
    "check_realtime_tool_call_round_trip",
    "check_realtime_turn_reaches_the_framework",
    "check_realtime_user_text_is_sent",
]

PROMPT = "What is the weather in Tokyo?"
# A guard against a run that never ends (a framework waiting for a call that never comes),
# not a measure of speed: a conforming adapter ends each run in milliseconds.
_STUCK_AFTER_SECONDS = 30.0

_E = TypeVar("_E", bound=AssertionError)


class ScriptedRealtimeFailure(Exception):
    """The transport failure ``check_realtime_send_failure_is_raised`` scripts."""


@runtime_checkable
class RealtimeHarness(Protocol):
    """Drive one framework's realtime session through its realtime adapter.

    Every session offers the model one tool, ``get_weather(city: str) -> str``, which
    returns ``f"{city}: sunny"``.
    """

    @property
    def framework(self) -> str:
        """Name the framework in failure messages (for example ``"my-agents"``)."""
        ...

    async def open(self, transport: ScriptedRealtimeTransport) -> Any:
        """Open a framework session over the adapter on ``transport``; return it connected."""
        ...

    async def send_text(self, session: Any, text: str) -> None:
        """Send ``text`` as the user's message through the session's own API."""
        ...

    async def wait_for_tool_output(self, session: Any) -> None:
        """Wait until the session has run the tool call the transport emitted and answered it."""
        ...

    async def wait_for_turn(self, session: Any) -> Reply:
        """Wait until the session has seen one model turn end; return what it made of it.

        ``text_deltas`` are the assistant transcript deltas the session delivered, ``text``
        their join (or the session's final transcript), and the token counts the session's
        usage after the turn (``None`` where it keeps none).
        """
        ...

    async def close(self, session: Any) -> None:
        """Close the session through its own API."""
        ...


async def _open(harness: object, transport: ScriptedRealtimeTransport) -> Any:
    return await run_harness(harness, "open", transport)


async def _close(harness: object, session: Any) -> None:
    await run_harness(harness, "close", session)


def _methods(transport: ScriptedRealtimeTransport) -> list[str]:
    return [call.method for call in transport.calls]


def _check_methods(
    check: str, transport: ScriptedRealtimeTransport, expected: list[str], fix: str
) -> None:
    actual = _methods(transport)
    if actual != expected:
        fail(check, f"the transport calls {expected}", f"{actual}", fix)


def _check(check: str, assertion: Any, fix: str) -> None:
    try:
        assertion()
    except (AssertionError, ValueError) as error:
        name = getattr(assertion, "__name__", "the assertion")
        raise ConformanceError(
            check, f"{name}() to pass", f"it raised {described(error)}", fix
        ) from error


def _mentions(message: str | Mapping[str, Any], text: str) -> bool:
    return text in (message if isinstance(message, str) else repr(message))


async def check_realtime_connect_and_close(harness: RealtimeHarness) -> None:
    """Check that opening and closing a session connects and closes the transport once each.

    Opens a session and closes it: the transport saw ``connect`` and then ``close``, nothing
    else, and its status is ``disconnected``.

    Troubleshooting: call ``transport.connect(options)`` from the framework's connect and
    ``transport.close()`` from its close, once each, even if the framework closes twice.
    """
    check = "check_realtime_connect_and_close"
    fix = (
        "Call transport.connect(options) from the framework's connect and transport.close() "
        "from its close, once each."
    )
    transport = ScriptedRealtimeTransport()
    session = await returned(check, _open(harness, transport), fix)
    await returned(check, _close(harness, session), fix)
    _check_methods(check, transport, ["connect", "close"], fix)
    _check(check, transport.assert_closed, fix)


async def check_realtime_user_text_is_sent(harness: RealtimeHarness) -> None:
    """Check that a user's text message reaches the transport as ``send_message``.

    Opens a session, sends the prompt and closes: the transport saw ``connect``,
    ``send_message`` with the prompt (as text, or inside the message mapping), ``close``.

    Troubleshooting: turn the framework's user-input event into
    ``transport.send_message(text_or_message)``, not a raw ``send_event``.
    """
    check = "check_realtime_user_text_is_sent"
    fix = "Turn the framework's user text into transport.send_message(...), not a raw event."
    transport = ScriptedRealtimeTransport()
    session = await returned(check, _open(harness, transport), fix)
    await returned(check, run_harness(harness, "send_text", session, PROMPT), fix)
    await returned(check, _close(harness, session), fix)
    _check_methods(check, transport, ["connect", "send_message", "close"], fix)
    call = transport.calls[1]
    if not isinstance(call, SendMessageCall) or not _mentions(call.message, PROMPT):
        fail(check, f"send_message with {PROMPT!r}", f"{call!r}", fix)


async def check_realtime_send_failure_is_raised(harness: RealtimeHarness) -> None:
    """Check that a failed transport send fails the session call that made it.

    Scripts ``fail_next_call("send_message", ScriptedRealtimeFailure("socket closed"))``:
    sending the text raises with that failure in its chain.

    Troubleshooting: await or call the transport method inside the framework's send, and
    let its exception propagate (wrapped with ``raise ... from error`` if need be) rather
    than logging it.
    """
    check = "check_realtime_send_failure_is_raised"
    fix = (
        "Let the transport method's exception propagate out of the framework's send "
        "(wrapped with 'from error' if needed); do not log and drop it."
    )
    transport = ScriptedRealtimeTransport()
    session = await returned(check, _open(harness, transport), fix)
    try:
        transport.fail_next_call("send_message", ScriptedRealtimeFailure("socket closed"))
        error = await raised(run_harness(harness, "send_text", session, PROMPT))
    finally:
        await raised(_close(harness, session))
    if error is None:
        fail(check, "the send to fail with ScriptedRealtimeFailure", "it returned", fix)
    if not any(isinstance(link, ScriptedRealtimeFailure) for link in chain(error)):
        raise ConformanceError(
            check,
            "the send to fail with ScriptedRealtimeFailure in its chain",
            f"it raised {described(error)}",
            fix,
        ) from error


async def check_realtime_tool_call_round_trip(harness: RealtimeHarness) -> None:
    """Check that an emitted function call runs the tool and its output goes back.

    A scenario emits ``function_call`` for ``get_weather`` with ``{"city": "Tokyo"}``
    (call id ``call_1``) after ``connect``; the framework runs the tool and the transport
    sees ``send_function_call_output`` with the output ``"Tokyo: sunny"`` for ``call_1``,
    then ``close``.

    Troubleshooting: turn the emitted ``function_call`` payload (``name``, ``call_id``,
    ``arguments``) into the framework's tool-call event, and the framework's tool output
    into ``transport.send_function_call_output(tool_call, output, start_response)`` with a
    ``tool_call`` that keeps the ``call_id``.
    """
    check = "check_realtime_tool_call_round_trip"
    fix = (
        "Turn the emitted function_call into the framework's tool call, and its output into "
        "transport.send_function_call_output(tool_call, output, ...) keeping the call_id."
    )
    transport = ScriptedRealtimeTransport()
    outputs: list[SendFunctionCallOutputCall] = []
    arguments = '{"city": "Tokyo"}'

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        ctx.emit(
            "function_call", {"name": "get_weather", "call_id": "call_1", "arguments": arguments}
        )
        outputs.append(await ctx.expect_call("send_function_call_output"))
        await ctx.expect_call("close")

    async def exercise() -> None:
        session = await _open(harness, transport)
        try:
            await run_harness(harness, "wait_for_tool_output", session)
        finally:
            await _close(harness, session)

    await returned(
        check,
        transport.run_scenario(scenario=scenario, exercise=exercise, timeout=_STUCK_AFTER_SECONDS),
        fix,
    )
    (call,) = outputs
    got = (call.tool_call.get("call_id"), call.tool_call.get("name"), call.output)
    if got != ("call_1", "get_weather", "Tokyo: sunny"):
        fail(
            check,
            "(call_id, name, output) ('call_1', 'get_weather', 'Tokyo: sunny')",
            f"{got}",
            fix,
        )


async def check_realtime_turn_reaches_the_framework(
    harness: RealtimeHarness, *, usage: bool = True
) -> None:
    """Check that an emitted turn reaches the session: its transcript deltas and usage.

    Emits ``turn_started``, the transcript deltas ``"It is "`` and ``"sunny."`` and a
    ``turn_done`` with 3 input and 4 output tokens: the session delivers those two deltas
    in order, the text ``"It is sunny."`` and (with ``usage``) those token counts.

    Troubleshooting: turn each emitted event into the framework's event as it arrives, in
    emit order (``audio_transcript_delta`` into its transcript delta, ``turn_done`` into its
    turn end, with the ``response["usage"]``).
    """
    check = "check_realtime_turn_reaches_the_framework"
    fix = (
        "Turn each emitted event into the framework's event in emit order: transcript "
        "deltas one to one, and turn_done into the turn end with its usage."
    )
    transport = ScriptedRealtimeTransport()
    session = await returned(check, _open(harness, transport), fix)
    try:
        transport.emit("turn_started", {"response_id": "r1"})
        for delta in ("It is ", "sunny."):
            transport.emit(
                "audio_transcript_delta", {"item_id": "a1", "delta": delta, "response_id": "r1"}
            )
        transport.emit(
            "turn_done",
            {"response": {"id": "r1", "usage": {"input_tokens": 3, "output_tokens": 4}}},
        )
        value = await returned(check, run_harness(harness, "wait_for_turn", session), fix)
    finally:
        await raised(_close(harness, session))
    reply = returned_as(value, Reply, "wait_for_turn", "a Reply")
    if reply.text_deltas != ("It is ", "sunny.") or reply.text != "It is sunny.":
        fail(
            check,
            "the deltas ['It is ', 'sunny.'] and the text 'It is sunny.'",
            f"deltas {list(reply.text_deltas)} and the text {reply.text!r}",
            fix,
        )
    if usage and (reply.input_tokens, reply.output_tokens) != (3, 4):
        fail(
            check,
            "3 input and 4 output tokens",
            f"{reply.input_tokens} input and {reply.output_tokens} output tokens",
            fix,
        )


async def check_realtime_rejected_call_is_kept(harness: RealtimeHarness) -> None:
    """Check that a call an expectation rejects is kept for ``assert_complete()``.

    Expects ``connect``, then a ``send_message`` whose matcher rejects it, then ``close``,
    and sends the prompt. The session may raise the rejection or swallow it; either way
    ``transport.assert_complete()`` raises ``RealtimeCallMatcherError`` for call 1.

    Troubleshooting: send the user's text as ``send_message`` at the moment the framework
    sends it (not batched, not as a raw event), so the expectation sees that call.
    """
    check = "check_realtime_rejected_call_is_kept"
    fix = (
        "Send the user's text as transport.send_message(...) when the framework sends it, "
        "not later and not as a raw event."
    )
    transport = ScriptedRealtimeTransport()
    expected = [
        transport.expect_call("connect"),
        transport.expect_call("send_message", lambda call: False),
        transport.expect_call("close"),
    ]
    session = await returned(check, _open(harness, transport), fix)
    try:
        await raised(run_harness(harness, "send_text", session, PROMPT))
    finally:
        await raised(_close(harness, session))
    for future in expected:
        if future.done() and not future.cancelled():
            future.exception()  # retrieved here: assert_complete() reports it
        else:
            future.cancel()
    error = _kept(check, transport, RealtimeCallMatcherError, fix)
    if error.call_index != 1:
        fail(check, "call_index=1", f"call_index={error.call_index}", fix)


def _kept(check: str, transport: ScriptedRealtimeTransport, kind: type[_E], fix: str) -> _E:
    try:
        transport.assert_complete()
    except kind as error:
        return error
    except (AssertionError, ValueError) as error:
        raise ConformanceError(
            check,
            f"assert_complete() to raise {kind.__name__}",
            f"it raised {described(error)}",
            fix,
        ) from error
    fail(check, f"assert_complete() to raise {kind.__name__}", "it passed", fix)
