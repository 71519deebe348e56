"""Realtime behaviors that mutation testing found no test pinned.

Listener removal, ``run_scenario`` edge cases (a zero timeout, a signal that breaks, a caller
cancelled twice), lifecycle errors raised past a failing listener, and small records and reprs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from agents_testing.errors import (
    ScriptedRealtimeConnectionSupersededError,
    ScriptedRealtimeScenarioCancelledError,
)
from agents_testing.realtime import (
    RealtimeScenarioContext,
    RealtimeTransportMethod,
    RequestResponseCall,
    ScriptedRealtimeTransport,
)


async def forever() -> None:
    """Wait on something that never happens."""
    await asyncio.Event().wait()


def only_this_task_is_left() -> bool:
    return asyncio.all_tasks() == {asyncio.current_task()}


# -- off() ---------------------------------------------------------------------------------


def listening(once: bool = False) -> tuple[ScriptedRealtimeTransport, list[str]]:
    """Return a new transport with ``seen.append`` listening to "audio", and ``seen``."""
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    if once:
        transport.once("audio", seen.append)
    else:
        transport.on("audio", seen.append)
    return transport, seen


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
    transport, seen = listening()

    transport.off("audio", seen.append)

    assert transport.emit("audio", "dropped") is False
    assert seen == []
    # The event can get listeners again after its last one went.
    transport.on("audio", seen.append)
    assert transport.emit("audio", "kept") is True
    assert seen == ["kept"]


def test_off_for_an_event_or_listener_never_registered_changes_nothing() -> None:
    transport, seen = listening()

    assert transport.off("never_registered", seen.append) is transport
    assert transport.off("audio", print) is transport

    assert transport.emit("audio", "still here") is True
    assert seen == ["still here"]


def test_off_with_a_once_listener_removes_it_before_it_fires() -> None:
    transport, seen = listening(once=True)

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


def failing_on_disconnected(method: RealtimeTransportMethod) -> ScriptedRealtimeTransport:
    """Return a new transport whose next ``method`` call fails, with a breaking listener."""
    transport = ScriptedRealtimeTransport()
    transport.on("connection_change", raise_on_disconnected)
    transport.fail_next_call(method, ConnectionError(f"{method} refused"))
    return transport


async def test_a_failed_connect_raises_its_own_error_past_a_failing_disconnected_listener() -> None:
    transport = failing_on_disconnected("connect")

    result = transport.connect({"model": "m"})

    with pytest.raises(ConnectionError, match="connect refused"):
        await result
    assert transport.status == "disconnected"


def test_a_failed_close_raises_its_own_error_past_a_failing_disconnected_listener() -> None:
    transport = failing_on_disconnected("close")
    transport.status = "connecting"  # not established, so a failed close ends disconnected

    with pytest.raises(ConnectionError, match="close refused"):
        transport.close()
    # mypy keeps the status narrowed by the assignment above, past close().
    assert transport.status == "disconnected"  # type: ignore[comparison-overlap]


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
    response: dict[str, Any] = {"instructions": "be brief", "modalities": ["text"]}

    transport.request_response(response)
    transport.request_response()
    response["modalities"].append("audio")  # a later change must not reach the record

    first, second = transport.calls
    assert isinstance(first, RequestResponseCall)
    assert first.method == "request_response"
    assert first.index == 0
    assert first.response == {"instructions": "be brief", "modalities": ["text"]}
    assert isinstance(second, RequestResponseCall)
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
    transport, seen = listening()

    assert transport.emit("transcript", "x") is False
    assert seen == []


# -- gaps found by a mutation run of realtime.py --------------------------------------------


def test_a_once_listener_removed_by_an_earlier_listener_still_runs_in_that_emit() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []

    def once_listener(value: str) -> None:
        seen.append(f"once {value}")

    def remover(value: str) -> None:
        seen.append(f"remover {value}")
        transport.off("audio", once_listener)
        transport.off("audio", remover)

    transport.on("audio", remover).once("audio", once_listener)

    assert transport.emit("audio", "a") is True
    # Both were registered when the emit started; afterwards the event has no listeners.
    assert seen == ["remover a", "once a"]
    assert transport.emit("audio", "b") is False


def test_a_session_config_too_deep_to_record_names_the_argument() -> None:
    deep: dict[str, Any] = {}
    for _ in range(5000):
        deep = {"nested": deep}
    transport = ScriptedRealtimeTransport()

    with pytest.raises(ValueError, match=r"^update_session_config\(\) config is nested \d+"):
        transport.update_session_config(deep)
    assert transport.calls == ()


async def test_a_polled_signal_that_breaks_while_both_sides_wait_ends_the_run() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await forever()

    # Nothing else happens, so only the periodic poll can find that the signal broke.
    with pytest.raises(OSError, match="signal source went away") as info:
        await transport.run_scenario(scenario=scenario, exercise=forever, signal=BrokenSignal())
    assert isinstance(info.value, OSError)
    assert only_this_task_is_left()


def test_off_returns_the_transport_after_removing_a_listener() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []

    assert transport.on("audio", seen.append).off("audio", seen.append) is transport
    assert transport.once("audio", seen.append).off("audio", seen.append) is transport
    assert transport.emit("audio", "x") is False


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"nested": value}
    return value


DEEP = nested(5000)


@pytest.mark.parametrize(
    ("record", "label"),
    [
        pytest.param(lambda t: t.send_event(DEEP), "send_event() event", id="send_event"),
        pytest.param(
            lambda t: t.request_response(DEEP), "request_response() response", id="request_response"
        ),
        pytest.param(lambda t: t.send_message(DEEP), "send_message() args", id="send_message"),
        pytest.param(lambda t: t.add_image(DEEP), "add_image() args", id="add_image"),
        pytest.param(lambda t: t.send_audio(DEEP), "send_audio() args", id="send_audio"),
        pytest.param(lambda t: t.mute(DEEP), "mute() muted", id="mute"),
        pytest.param(
            lambda t: t.send_function_call_output(DEEP, "out", True),
            "send_function_call_output() args",
            id="send_function_call_output",
        ),
        pytest.param(lambda t: t.reset_history([DEEP], []), "reset_history() args", id="reset"),
        pytest.param(
            lambda t: t.send_mcp_response(DEEP, True),
            "send_mcp_response() args",
            id="send_mcp_response",
        ),
    ],
)
def test_an_argument_too_deep_to_record_is_refused_naming_the_method_and_argument(
    record: Callable[[ScriptedRealtimeTransport], object], label: str
) -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(ValueError, match=r"levels deep") as info:
        record(transport)

    message = str(info.value)
    assert message.startswith(f"{label} is nested ")
    assert f"(down to {label}[" in message
    assert message.endswith(
        "too deep to record within Python's recursion limit; flatten the data, or pass an "
        "object of your own class, which is recorded by identity."
    )
    assert transport.calls == ()
    assert transport.muted is False


async def test_connect_options_too_deep_to_record_fail_the_connect_naming_them() -> None:
    transport = ScriptedRealtimeTransport()

    result = transport.connect({"model": "m", "initial_session_config": DEEP})

    with pytest.raises(ValueError, match=r"^connect\(\) options is nested \d+ levels deep"):
        await result
    assert transport.calls == ()
    assert transport.status == "disconnected"


# -- reconnecting inside a lifecycle listener ----------------------------------------------


@pytest.mark.parametrize("drop", ["close", "disconnect"])
async def test_a_reconnect_inside_the_connected_listener_supersedes_the_outer_connect(
    drop: str,
) -> None:
    # The inner connect ends connected, like the outer one would: only the outer connect's
    # own attempt tells them apart, so it must still see that it was superseded.
    transport = ScriptedRealtimeTransport()
    events: list[str] = []
    inner: list[Awaitable[None]] = []
    reconnected = False

    def listener(status: str) -> None:
        nonlocal reconnected
        events.append(status)
        if status == "connected" and not reconnected:
            reconnected = True
            getattr(transport, drop)()
            inner.append(transport.connect({"model": "second"}))

    transport.on("connection_change", listener)

    outer = transport.connect({"model": "first"})

    with pytest.raises(ScriptedRealtimeConnectionSupersededError):
        await outer
    await inner[0]
    assert transport.status == "connected"
    assert events == ["connecting", "connected", "disconnected", "connecting", "connected"]
    expected = ["connect", "close", "connect"] if drop == "close" else ["connect", "connect"]
    assert [call.method for call in transport.calls] == expected
    # The outer connect's failure leaves the inner connection established: it closes.
    transport.close()
    # mypy keeps the status narrowed by the assertion above, past close().
    assert transport.status == "disconnected"  # type: ignore[comparison-overlap]


# -- run_scenario: the context's checks, a coarse clock, cancellation during cleanup ---------


async def test_context_expect_call_refuses_an_unknown_method_naming_the_valid_ones() -> None:
    transport = ScriptedRealtimeTransport()

    def scenario(ctx: RealtimeScenarioContext) -> None:
        ctx.expect_call("sendEvent")  # type: ignore[call-overload]

    with pytest.raises(ValueError) as info:  # noqa: PT011 - the message is checked in full
        await transport.run_scenario(scenario=scenario, exercise=lambda: None)

    assert str(info.value) == (
        "ScriptedRealtimeTransport.expect_call() got unknown method 'sendEvent' (did you mean "
        "'send_event'?); valid methods are: connect, send_event, request_response, "
        "send_message, add_image, send_audio, update_session_config, close, mute, "
        "send_function_call_output, interrupt, reset_history, send_mcp_response."
    )
    assert only_this_task_is_left()


async def test_a_zero_timeout_has_elapsed_at_once_even_on_a_clock_that_has_not_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A coarse clock (Windows' ticks by ~16 ms) reads the same value at the start of the run
    # and at the scenario's first expect_call: the deadline is reached, not only passed.
    loop = asyncio.get_running_loop()
    frozen = loop.time()
    monkeypatch.setattr(loop, "time", lambda: frozen)
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("close")

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=forever, timeout=0)

    assert info.value.pending_expectations == ()
    assert only_this_task_is_left()


async def test_a_caller_cancelled_while_a_failed_run_cleans_up_ends_cancelled() -> None:
    # Swallowing the cancellation in favour of the run's error would break the caller's
    # own timeouts and task groups, which rely on a cancelled task ending cancelled.
    transport = ScriptedRealtimeTransport()
    cleanup_started = asyncio.Event()
    stages: list[str] = []

    def scenario(ctx: RealtimeScenarioContext) -> None:
        raise LookupError("scenario broke")

    async def stubborn_exercise() -> None:
        try:
            await forever()
        except asyncio.CancelledError:
            stages.append("cancelled by the run")
            cleanup_started.set()
            try:
                await forever()  # a cleanup that only a second cancellation ends
            except asyncio.CancelledError:
                stages.append("cancelled by the caller")
                raise

    async def exercise() -> None:
        await asyncio.sleep(0)  # let the scenario fail first, while this side waits
        await stubborn_exercise()

    caller = asyncio.create_task(transport.run_scenario(scenario=scenario, exercise=exercise))
    await cleanup_started.wait()
    caller.cancel()

    with pytest.raises(asyncio.CancelledError):
        await caller
    assert stages == ["cancelled by the run", "cancelled by the caller"]
    assert only_this_task_is_left()


class SteppedClock:
    """A loop clock that moves only when the test moves it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = loop.time()
        monkeypatch.setattr(loop, "time", lambda: self.now)


async def test_a_call_made_after_the_timeout_elapsed_does_not_satisfy_the_expectation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Same rule as for a signal: the clock is read before a transport call can settle an
    # expectation, even when the timer that ends the run has not fired yet.
    clock = SteppedClock(asyncio.get_running_loop(), monkeypatch)
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("close")

    def exercise() -> None:
        clock.now += 10
        transport.interrupt()

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    assert info.value.pending_expectations == ({"order": 1, "method": "close"},)
    assert "unconsumed_calls=1" in repr(transport)
    assert only_this_task_is_left()


async def test_the_run_names_its_tasks_so_a_task_dump_tells_them_apart() -> None:
    transport = ScriptedRealtimeTransport()
    names: dict[str, object] = {}

    def task_names() -> set[str]:
        return {task.get_name() for task in asyncio.all_tasks()}

    def scenario(ctx: RealtimeScenarioContext) -> None:
        current = asyncio.current_task()
        names["scenario"] = current.get_name() if current else None

    async def exercise() -> str:
        current = asyncio.current_task()
        names["exercise"] = current.get_name() if current else None
        names["all"] = task_names()
        return "done"

    value = await transport.run_scenario(
        scenario=scenario, exercise=exercise, signal=asyncio.Event()
    )

    assert value == "done"
    assert names["scenario"] == "run_scenario scenario"
    assert names["exercise"] == "run_scenario exercise"
    assert "run_scenario signal" in names["all"]  # type: ignore[operator]
    assert only_this_task_is_left()


async def test_an_event_signal_set_by_the_exercise_ends_the_run_with_one_error() -> None:
    # The exercise's end and the signal's waiter both see the abort; only the first one ends
    # the run, so the context hands later expectations the very error the run raised.
    transport = ScriptedRealtimeTransport()
    signal = asyncio.Event()
    contexts: list[RealtimeScenarioContext] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        contexts.append(ctx)
        await ctx.expect_call("close")

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=signal.set, signal=signal)

    assert info.value.pending_expectations == ({"order": 1, "method": "close"},)
    assert contexts[0].expect_call("close").exception() is info.value
    assert only_this_task_is_left()


async def test_connect_options_that_are_not_a_mapping_are_named_by_their_type() -> None:
    transport = ScriptedRealtimeTransport()

    result = transport.connect(["model", "m"])  # type: ignore[arg-type]

    with pytest.raises(TypeError) as info:
        await result
    assert str(info.value) == (
        "ScriptedRealtimeTransport.connect() options must be a mapping, got list."
    )
    assert transport.calls == ()


async def test_a_failed_reconnect_inside_the_connected_listener_disconnects_once() -> None:
    # The failed inner connect already ended the connection; the superseded outer connect
    # must not emit a second "disconnected" for it.
    transport = ScriptedRealtimeTransport()
    events: list[str] = []
    inner: list[Awaitable[None]] = []
    failure = ConnectionError("second handshake refused")

    def listener(status: str) -> None:
        events.append(status)
        if status == "connected" and not inner:
            transport.fail_next_call("connect", failure)
            inner.append(transport.connect({"model": "second"}))

    transport.on("connection_change", listener)

    outer = transport.connect({"model": "first"})

    with pytest.raises(ScriptedRealtimeConnectionSupersededError):
        await outer
    with pytest.raises(ConnectionError) as info:
        await inner[0]
    assert info.value is failure
    assert transport.status == "disconnected"
    assert events == ["connecting", "connected", "disconnected"]
    assert [call.method for call in transport.calls] == ["connect", "connect"]
