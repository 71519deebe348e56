"""Realtime behaviors that mutation testing found no test pinned.

Listener removal, ``run_scenario`` edge cases (a zero timeout, a signal that breaks, a caller
cancelled twice), lifecycle errors raised past a failing listener, and small records and reprs.
"""

from __future__ import annotations

import asyncio

import pytest

from agents_testing.errors import ScriptedRealtimeScenarioCancelledError
from agents_testing.realtime import (
    RealtimeScenarioContext,
    RequestResponseCall,
    ScriptedRealtimeTransport,
)


async def forever() -> None:
    """Wait on something that never happens."""
    await asyncio.Event().wait()


def only_this_task_is_left() -> bool:
    return asyncio.all_tasks() == {asyncio.current_task()}


# -- off() ---------------------------------------------------------------------------------


def test_off_removes_only_the_most_recent_of_several_registrations() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []

    def first(value: str) -> None:
        seen.append(f"first {value}")

    def second(value: str) -> None:
        seen.append(f"second {value}")

    transport.on("audio", first).on("audio", second).on("audio", first)
    transport.off("audio", first)
    transport.emit("audio", "a")
    assert seen == ["first a", "second a"]

    transport.off("audio", first)
    transport.emit("audio", "b")
    assert seen == ["first a", "second a", "second b"]


def test_off_of_the_last_listener_leaves_the_event_without_listeners() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.on("audio", seen.append)

    transport.off("audio", seen.append)

    assert transport.emit("audio", "dropped") is False
    assert seen == []
    # The event can get listeners again after its last one went.
    transport.on("audio", seen.append)
    assert transport.emit("audio", "kept") is True
    assert seen == ["kept"]


def test_off_for_an_event_or_listener_never_registered_changes_nothing() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.on("audio", seen.append)

    assert transport.off("never_registered", seen.append) is transport
    assert transport.off("audio", print) is transport

    assert transport.emit("audio", "still here") is True
    assert seen == ["still here"]


def test_off_with_a_once_listener_removes_it_before_it_fires() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.once("audio", seen.append)

    transport.off("audio", seen.append)

    assert transport.emit("audio", "x") is False
    assert seen == []


# -- run_scenario ----------------------------------------------------------------------------


async def test_a_zero_timeout_is_accepted_and_cancels_the_run_at_once() -> None:
    # The clock is read before ctx.expect_call acts, so not even the first expectation is made.
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("close")

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=forever, timeout=0)

    assert info.value.pending_expectations == ()
    assert transport.calls == ()
    assert only_this_task_is_left()


async def test_an_exercise_ending_after_a_zero_timeout_still_cancels_the_run() -> None:
    # The clock is read before a side's end is acted on, so an elapsed timeout wins.
    transport = ScriptedRealtimeTransport()

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=lambda ctx: None, exercise=lambda: "done", timeout=0)

    assert info.value.pending_expectations == ()


async def test_after_a_successful_run_the_context_no_longer_cancels_or_watches() -> None:
    transport = ScriptedRealtimeTransport()
    contexts: list[RealtimeScenarioContext] = []
    signal = asyncio.Event()

    value = await transport.run_scenario(
        scenario=contexts.append, exercise=lambda: "value", signal=signal, timeout=60
    )
    signal.set()  # an abort after the run ended changes nothing
    transport.send_event({"type": "late"})

    assert value == "value"
    assert "pending_expectations=0" in repr(transport)
    late = contexts[0].expect_call("send_event")
    with pytest.raises(RuntimeError, match="has already finished"):
        await late
    assert [call.method for call in transport.calls] == ["send_event"]
    assert only_this_task_is_left()


async def test_a_terminated_run_fails_later_context_expectations_with_its_error() -> None:
    transport = ScriptedRealtimeTransport()
    contexts: list[RealtimeScenarioContext] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        contexts.append(ctx)
        await ctx.expect_call("close")

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=forever, timeout=0.01)

    late = contexts[0].expect_call("connect")
    assert late.exception() is info.value
    # The run ended: a call made now is kept for a later expectation, not matched by the run.
    transport.close()
    transport.status = "connected"
    transport.close()
    assert "unconsumed_calls=1" in repr(transport)


async def test_an_event_signal_that_cannot_be_waited_on_ends_the_run_with_its_error() -> None:
    signal = asyncio.Event()

    async def bind_to_another_loop() -> None:
        waiter = asyncio.ensure_future(signal.wait())
        await asyncio.sleep(0)
        waiter.cancel()

    # A thread gives the other loop: asyncio.run cannot run inside this test's loop.
    await asyncio.to_thread(asyncio.run, bind_to_another_loop())
    transport = ScriptedRealtimeTransport()

    with pytest.raises(RuntimeError, match="different event loop"):
        await transport.run_scenario(scenario=lambda ctx: None, exercise=forever, signal=signal)
    assert only_this_task_is_left()


class BrokenSignal:
    """A polled signal whose state cannot be read after the first look."""

    def __init__(self) -> None:
        self.reads = 0

    def is_set(self) -> bool:
        self.reads += 1
        if self.reads > 1:
            raise OSError("signal source went away")
        return False


async def test_a_polled_signal_that_breaks_ends_the_run_with_its_error() -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(OSError, match="signal source went away"):
        await transport.run_scenario(
            scenario=lambda ctx: None, exercise=forever, signal=BrokenSignal()
        )
    assert only_this_task_is_left()


async def test_a_signal_that_breaks_when_a_side_ends_ends_the_run_with_its_error() -> None:
    transport = ScriptedRealtimeTransport()

    async def exercise() -> str:
        await asyncio.sleep(0)
        return "done"

    with pytest.raises(OSError, match="signal source went away"):
        await transport.run_scenario(
            scenario=lambda ctx: None, exercise=exercise, signal=BrokenSignal()
        )
    assert only_this_task_is_left()


async def test_a_caller_cancelled_again_during_cleanup_still_stops_every_side() -> None:
    transport = ScriptedRealtimeTransport()
    cleanup_started = asyncio.Event()
    stages: list[str] = []

    async def stubborn_exercise() -> None:
        try:
            await forever()
        except asyncio.CancelledError:
            stages.append("first cancel")
            cleanup_started.set()
            try:
                await forever()  # a cleanup that only a second cancellation ends
            except asyncio.CancelledError:
                stages.append("second cancel")
                raise

    caller = asyncio.create_task(
        transport.run_scenario(scenario=lambda ctx: None, exercise=stubborn_exercise)
    )
    for _ in range(3):
        await asyncio.sleep(0)
    caller.cancel()
    await cleanup_started.wait()
    caller.cancel()

    with pytest.raises(asyncio.CancelledError):
        await caller
    assert stages == ["first cancel", "second cancel"]
    assert only_this_task_is_left()


# -- lifecycle errors and listeners ------------------------------------------------------


def raise_on_disconnected(status: str) -> None:
    if status == "disconnected":
        raise RuntimeError("listener broke on disconnected")


async def test_a_failed_connect_raises_its_own_error_past_a_failing_disconnected_listener() -> None:
    transport = ScriptedRealtimeTransport()
    transport.on("connection_change", raise_on_disconnected)
    transport.fail_next_call("connect", ConnectionError("handshake refused"))

    result = transport.connect({"model": "m"})

    with pytest.raises(ConnectionError, match="handshake refused"):
        await result
    assert transport.status == "disconnected"


def test_a_failed_close_raises_its_own_error_past_a_failing_disconnected_listener() -> None:
    transport = ScriptedRealtimeTransport()
    transport.status = "connecting"  # not established, so a failed close ends disconnected
    transport.on("connection_change", raise_on_disconnected)
    transport.fail_next_call("close", ConnectionError("close refused"))

    with pytest.raises(ConnectionError, match="close refused"):
        transport.close()
    assert transport.status == "disconnected"


async def test_a_failed_close_of_an_established_connection_stays_connected() -> None:
    transport = ScriptedRealtimeTransport()
    await transport.connect({})
    transport.fail_next_call("close", ConnectionError("close refused"))

    with pytest.raises(ConnectionError, match="close refused"):
        transport.close()
    assert transport.status == "connected"


# -- records and reprs ---------------------------------------------------------------------


def test_request_response_records_the_response_it_was_given() -> None:
    transport = ScriptedRealtimeTransport()
    response = {"instructions": "be brief", "modalities": ["text"]}

    transport.request_response(response)
    transport.request_response()
    response["modalities"].append("audio")  # a later change must not reach the record

    first, second = transport.calls
    assert isinstance(first, RequestResponseCall)
    assert first.method == "request_response"
    assert first.index == 0
    assert first.response == {"instructions": "be brief", "modalities": ["text"]}
    assert second.response is None
    assert second.index == 1


async def test_the_connect_result_repr_says_how_the_connect_ended() -> None:
    transport = ScriptedRealtimeTransport()

    succeeded = transport.connect({})
    transport.close()
    transport.fail_next_call("connect", ValueError("bad key"))
    failed = transport.connect({})

    assert repr(succeeded) == "<ScriptedRealtimeTransport connect result: succeeded>"
    assert repr(failed) == (
        "<ScriptedRealtimeTransport connect result: failed with ValueError('bad key')>"
    )
    await succeeded
    with pytest.raises(ValueError, match="bad key"):
        await failed


def test_a_listener_registered_for_one_event_is_not_called_for_another() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.on("audio", seen.append)

    assert transport.emit("transcript", "x") is False
    assert seen == []
