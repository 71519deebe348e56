"""ScriptedRealtimeTransport.run_scenario: termination rules, cleanup, and the guide's recipes."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing.errors import (
    IncompleteRealtimeScenarioError,
    RealtimeCallMatcherError,
    RealtimeThreadError,
    ScriptedRealtimeScenarioCancelledError,
    UnexpectedRealtimeCallError,
)
from agents_testing.realtime import (
    RealtimeScenarioContext,
    RealtimeTransportMethod,
    ScriptedRealtimeTransport,
    SendEventCall,
    SendFunctionCallOutputCall,
    SendMessageCall,
)


async def settle() -> None:
    """Let every callback that is already scheduled run."""
    for _ in range(5):
        await asyncio.sleep(0)


async def forever() -> None:
    """Wait on something that never happens."""
    await asyncio.Event().wait()


async def raised_by(awaitable: Awaitable[Any]) -> BaseException:
    """Await and return what the awaitable raised."""
    with pytest.raises(BaseException) as info:  # noqa: PT011 - the caller checks the type
        await awaitable
    return info.value


@contextlib.contextmanager
def captured_loop_errors() -> Generator[list[dict[str, Any]], None, None]:
    """Collect what the running loop's exception handler gets, after a final GC pass."""
    loop = asyncio.get_running_loop()
    seen: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: seen.append(context))
    try:
        yield seen
        gc.collect()
    finally:
        loop.set_exception_handler(None)


def only_this_task_is_left() -> bool:
    return asyncio.all_tasks() == {asyncio.current_task()}


# -- start-up ----------------------------------------------------------------------------


async def test_both_sides_may_be_plain_functions_and_the_exercise_value_is_returned() -> None:
    transport = ScriptedRealtimeTransport()

    def scenario(ctx: RealtimeScenarioContext) -> None:
        ctx.expect_call("interrupt")

    def exercise() -> int:
        transport.interrupt()
        return 7

    assert await transport.run_scenario(scenario=scenario, exercise=exercise) == 7
    transport.assert_complete()


async def test_scenario_runs_up_to_its_first_wait_before_the_exercise_starts() -> None:
    transport = ScriptedRealtimeTransport()
    order: list[str] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        order.append("scenario registers")
        await ctx.expect_call("interrupt")
        order.append("scenario matched")

    async def exercise() -> None:
        order.append("exercise starts")
        transport.interrupt()

    runner = transport.run_scenario(scenario=scenario, exercise=exercise)
    order.append("run_scenario called")
    await runner

    assert order == [
        "run_scenario called",
        "scenario registers",
        "exercise starts",
        "scenario matched",
    ]


async def test_a_sync_exercise_returning_an_awaitable_is_awaited() -> None:
    transport = ScriptedRealtimeTransport()

    def scenario(ctx: RealtimeScenarioContext) -> None:
        ctx.expect_call("connect")

    await transport.run_scenario(scenario=scenario, exercise=lambda: transport.connect({}))

    assert transport.status == "connected"


async def test_already_aborted_signal_fails_before_either_side_runs() -> None:
    transport = ScriptedRealtimeTransport()
    earlier = transport.expect_call("connect")
    signal = threading.Event()
    signal.set()
    ran: list[str] = []

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(
            scenario=lambda ctx: ran.append("scenario"),
            exercise=lambda: ran.append("exercise"),
            signal=signal,
        )

    assert info.value.pending_expectations == ({"order": 1, "method": "connect"},)
    assert str(info.value) == (
        "ScriptedRealtimeTransport scenario was cancelled with pending expectations: #1 connect."
    )
    assert ran == []
    assert not earlier.done()
    earlier.cancel()


@pytest.mark.parametrize(
    ("kwargs", "error_type", "message"),
    [
        pytest.param(
            {"scenario": None, "exercise": lambda: None},
            TypeError,
            "ScriptedRealtimeTransport.run_scenario() needs callable scenario and exercise "
            "arguments.",
            id="scenario-not-callable",
        ),
        pytest.param(
            {"scenario": lambda ctx: None, "exercise": lambda: None, "timeout": -1},
            ValueError,
            "ScriptedRealtimeTransport.run_scenario() timeout must be a finite non-negative "
            "number of seconds or None (no timeout), got -1.",
            id="negative-timeout",
        ),
        pytest.param(
            {"scenario": lambda ctx: None, "exercise": lambda: None, "signal": object()},
            TypeError,
            "ScriptedRealtimeTransport.run_scenario() signal must be an asyncio.Event or have "
            "an 'aborted' attribute or an 'is_set()' method, got object.",
            id="signal-without-state",
        ),
    ],
)
async def test_invalid_run_arguments_are_refused(
    kwargs: dict[str, Any], error_type: type[Exception], message: str
) -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(error_type) as info:
        await transport.run_scenario(**kwargs)

    assert str(info.value) == message


# -- ending a stuck run ------------------------------------------------------------------


async def test_timeout_cancels_a_stuck_run_and_leaves_no_task_running() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("close")  # never made

    async def exercise() -> None:
        await transport.connect({})
        await forever()

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=0.2)

    assert info.value.pending_expectations == ({"order": 2, "method": "close"},)
    assert str(info.value) == (
        "ScriptedRealtimeTransport scenario was cancelled with pending expectations: #2 close."
    )
    assert only_this_task_is_left()


async def test_timeout_ends_a_run_whose_scenario_never_finishes_quietly() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await forever()

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=lambda: None, timeout=0.05)

    assert info.value.pending_expectations == ()
    assert str(info.value) == "ScriptedRealtimeTransport scenario was cancelled."
    assert only_this_task_is_left()


async def test_asyncio_event_signal_ends_the_run_and_fails_pending_expectations() -> None:
    transport = ScriptedRealtimeTransport()
    outside = transport.expect_call("close")
    signal = asyncio.Event()
    seen_by_scenario: list[BaseException] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        try:
            await ctx.expect_call("connect")
        except BaseException as error:
            seen_by_scenario.append(error)
            raise

    async def exercise() -> None:
        signal.set()
        await forever()

    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise, signal=signal)

    assert info.value.pending_expectations == (
        {"order": 1, "method": "close"},
        {"order": 2, "method": "connect"},
    )
    assert outside.exception() is info.value
    assert seen_by_scenario == [info.value]
    assert "pending_expectations=0" in repr(transport)
    assert only_this_task_is_left()


class AbortToken:
    """A signal object that is neither an asyncio.Event nor a threading.Event."""

    aborted = False


SIGNAL_KINDS = ["asyncio.Event", "threading.Event", "aborted"]


def make_signal(kind: str) -> Any:
    if kind == "asyncio.Event":
        return asyncio.Event()
    if kind == "threading.Event":
        return threading.Event()
    return AbortToken()


def abort(signal: Any) -> None:
    if isinstance(signal, AbortToken):
        signal.aborted = True
    else:
        signal.set()


@pytest.fixture(params=SIGNAL_KINDS)
def signal(request: pytest.FixtureRequest) -> Any:
    """A fresh signal of each kind: one made at collection stays aborted after a run."""
    return make_signal(request.param)


@pytest.fixture
def transport() -> ScriptedRealtimeTransport:
    return ScriptedRealtimeTransport()


async def cancelled_run(
    transport: ScriptedRealtimeTransport,
    scenario: Callable[[RealtimeScenarioContext], object],
    exercise: Callable[[], object],
    **options: Any,
) -> ScriptedRealtimeScenarioCancelledError:
    """Run the scenario, which must end cancelled, and return the cancellation."""
    with pytest.raises(ScriptedRealtimeScenarioCancelledError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise, **options)
    return info.value


@pytest.mark.parametrize("kind", ["aborted", "threading.Event"])
async def test_polled_signal_ends_the_run_promptly(
    kind: str, transport: ScriptedRealtimeTransport
) -> None:
    signal = make_signal(kind)

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("close")

    async def exercise() -> None:
        await asyncio.sleep(0.02)
        abort(signal)
        await forever()

    # The exercise never ends by itself, so only the polled signal can end the run. The
    # generous wait_for is a hang guard, not a speed bound: a broken poll fails, not hangs.
    error = await asyncio.wait_for(cancelled_run(transport, scenario, exercise, signal=signal), 60)

    assert error.pending_expectations == ({"order": 1, "method": "close"},)
    assert only_this_task_is_left()


# Each test below aborts the signal at one point of a run: whatever follows the abort, the
# run ends cancelled with what was pending at that point.


async def test_signal_aborted_by_the_exercise_with_a_pending_expectation_cancels_the_run(
    signal: Any, transport: ScriptedRealtimeTransport
) -> None:
    scenario_saw: list[BaseException] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        try:
            await ctx.expect_call("connect")
            await ctx.expect_call("close")
        except BaseException as error:
            scenario_saw.append(error)
            raise

    async def exercise() -> str:
        await transport.connect({})
        await settle()  # the scenario now waits for the close
        abort(signal)
        return "ended"

    error = await cancelled_run(transport, scenario, exercise, signal=signal)

    assert error.pending_expectations == ({"order": 2, "method": "close"},)
    assert "pending expectations: #2 close" in str(error)
    assert scenario_saw == [error]
    assert only_this_task_is_left()


async def test_signal_aborted_by_a_sync_exercise_cancels_the_run(
    signal: Any, transport: ScriptedRealtimeTransport
) -> None:
    def scenario(ctx: RealtimeScenarioContext) -> None:
        ctx.expect_call("close")

    error = await cancelled_run(transport, scenario, lambda: abort(signal), signal=signal)

    assert error.pending_expectations == ({"order": 1, "method": "close"},)


async def test_call_made_after_the_abort_does_not_satisfy_the_pending_expectation(
    signal: Any, transport: ScriptedRealtimeTransport
) -> None:
    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("close")

    def exercise() -> None:
        abort(signal)
        transport.interrupt()

    error = await cancelled_run(transport, scenario, exercise, signal=signal)

    # The run was cancelled at the abort, so the later call is left unconsumed.
    assert error.pending_expectations == ({"order": 1, "method": "close"},)
    assert "unconsumed_calls=1" in repr(transport)


async def test_abort_wins_over_an_exercise_error_raised_after_it(
    signal: Any, transport: ScriptedRealtimeTransport
) -> None:
    def exercise() -> None:
        abort(signal)
        raise KeyError("after the abort")

    error = await cancelled_run(
        transport, lambda ctx: ctx.expect_call("close"), exercise, signal=signal
    )

    assert error.pending_expectations == ({"order": 1, "method": "close"},)


async def test_abort_before_the_exercise_ends_cancels_an_otherwise_complete_run(
    signal: Any, transport: ScriptedRealtimeTransport
) -> None:
    def exercise() -> None:
        transport.interrupt()
        abort(signal)

    error = await cancelled_run(
        transport, lambda ctx: ctx.expect_call("interrupt"), exercise, signal=signal
    )

    assert error.pending_expectations == ()
    assert str(error) == "ScriptedRealtimeTransport scenario was cancelled."


async def test_expectation_registered_after_the_abort_fails_with_the_cancellation(
    signal: Any, transport: ScriptedRealtimeTransport
) -> None:
    late: list[asyncio.Future[Any]] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        abort(signal)
        late.append(ctx.expect_call("close"))
        await late[0]

    error = await cancelled_run(transport, scenario, forever, signal=signal)

    assert error.pending_expectations == ()
    assert late[0].exception() is error
    assert only_this_task_is_left()


# The same for a timeout: the loop is blocked past the deadline, so the timer and the
# exercise's end are seen in the same loop turn, and the earlier of the two, the timeout,
# decides.


async def test_timeout_that_elapsed_before_the_exercise_ended_cancels_the_run(
    transport: ScriptedRealtimeTransport,
) -> None:
    error = await cancelled_run(
        transport,
        lambda ctx: ctx.expect_call("close"),
        lambda: time.sleep(0.05),
        timeout=0.01,
    )

    assert error.pending_expectations == ({"order": 1, "method": "close"},)


async def test_timeout_that_elapsed_before_a_complete_run_was_checked_cancels_it(
    transport: ScriptedRealtimeTransport,
) -> None:
    def exercise() -> None:
        transport.interrupt()
        time.sleep(0.05)

    error = await cancelled_run(
        transport, lambda ctx: ctx.expect_call("interrupt"), exercise, timeout=0.01
    )

    assert error.pending_expectations == ()


async def test_cancelling_the_caller_cancels_both_sides() -> None:
    transport = ScriptedRealtimeTransport()
    started: list[str] = []
    stopped: list[str] = []

    async def side(name: str, ctx: RealtimeScenarioContext | None = None) -> None:
        started.append(name)
        try:
            if ctx is not None:
                await ctx.expect_call("close")
            await forever()
        finally:
            stopped.append(name)

    runner = asyncio.ensure_future(
        transport.run_scenario(
            scenario=lambda ctx: side("scenario", ctx), exercise=lambda: side("exercise")
        )
    )
    await settle()
    runner.cancel()

    with pytest.raises(asyncio.CancelledError):
        await runner

    assert started == ["scenario", "exercise"]
    assert sorted(stopped) == ["exercise", "scenario"]
    assert "pending_expectations=0" in repr(transport)
    assert only_this_task_is_left()


# -- one side fails ----------------------------------------------------------------------


async def test_failed_run_expectation_ends_the_run_with_its_error() -> None:
    transport = ScriptedRealtimeTransport()
    exercise_errors: list[BaseException] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")

    async def exercise() -> None:
        try:
            transport.interrupt()
        except UnexpectedRealtimeCallError as error:
            exercise_errors.append(error)
            raise

    with pytest.raises(UnexpectedRealtimeCallError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert exercise_errors == [info.value]
    assert (info.value.call_index, info.value.expected_method, info.value.actual_method) == (
        0,
        "connect",
        "interrupt",
    )


async def test_matcher_rejection_ends_the_run_with_the_matcher_error() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("send_message", lambda call: call.message == "Hello")

    async def exercise() -> None:
        with contextlib.suppress(RealtimeCallMatcherError):
            transport.send_message("Bye")
        await forever()

    with pytest.raises(RealtimeCallMatcherError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert (info.value.call_index, info.value.actual_method) == (0, "send_message")
    assert only_this_task_is_left()


async def test_scenario_error_ends_the_run_after_the_exercise_cleaned_up() -> None:
    transport = ScriptedRealtimeTransport()
    failure = RuntimeError("scenario broke")
    cleaned_up: list[bool] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        raise failure

    async def exercise() -> None:
        try:
            await transport.connect({})
            await forever()
        finally:
            transport.close()
            cleaned_up.append(True)

    with pytest.raises(RuntimeError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert info.value is failure
    assert cleaned_up == [True]
    transport.assert_closed()
    assert [call.method for call in transport.calls] == ["connect", "close"]


async def test_exercise_error_ends_the_run_and_fails_the_scenario_expectations() -> None:
    transport = ScriptedRealtimeTransport()
    failure = RuntimeError("exercise broke")
    pending: list[asyncio.Future[Any]] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        pending.append(ctx.expect_call("connect"))
        await pending[0]

    async def exercise() -> None:
        raise failure

    with pytest.raises(RuntimeError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert info.value is failure
    assert pending[0].exception() is failure
    assert only_this_task_is_left()


async def test_scenario_that_catches_its_failed_expectation_still_fails_the_run() -> None:
    transport = ScriptedRealtimeTransport()
    caught: list[BaseException] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        try:
            await ctx.expect_call("send_event")
        except UnexpectedRealtimeCallError as error:
            caught.append(error)
        await forever()

    async def exercise() -> None:
        with contextlib.suppress(UnexpectedRealtimeCallError):
            transport.interrupt()

    with pytest.raises(UnexpectedRealtimeCallError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert caught == [info.value]


async def test_failed_expectation_wins_over_the_exercise_error_that_follows_it() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("send_event")

    async def exercise() -> None:
        with contextlib.suppress(UnexpectedRealtimeCallError):
            transport.interrupt()
        raise RuntimeError("exercise gave up")

    with pytest.raises(UnexpectedRealtimeCallError):
        await transport.run_scenario(scenario=scenario, exercise=exercise)


async def test_caught_mismatch_of_an_outside_expectation_fails_the_final_check() -> None:
    transport = ScriptedRealtimeTransport()
    outside = transport.expect_call("send_event")
    caught: list[BaseException] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("interrupt")

    async def exercise() -> None:
        try:
            transport.interrupt()
        except UnexpectedRealtimeCallError as error:
            caught.append(error)
        transport.interrupt()

    with pytest.raises(UnexpectedRealtimeCallError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert outside.exception() is caught[0]
    assert info.value is not caught[0]
    assert (info.value.call_index, info.value.expected_method) == (0, "send_event")


async def test_outside_expectations_failed_by_the_run_are_not_logged() -> None:
    with captured_loop_errors() as seen:
        transport = ScriptedRealtimeTransport()
        transport.expect_call("close")

        def scenario(ctx: RealtimeScenarioContext) -> None:
            raise RuntimeError("scenario broke")

        with pytest.raises(RuntimeError):
            await transport.run_scenario(scenario=scenario, exercise=forever)
        del transport

    assert seen == []


async def test_a_failed_run_ends_another_run_whose_expectation_it_failed() -> None:
    transport = ScriptedRealtimeTransport()
    release = asyncio.Event()
    caught: list[BaseException] = []

    async def waiting_scenario(ctx: RealtimeScenarioContext) -> None:
        try:
            await ctx.expect_call("interrupt")
        except RuntimeError as error:
            caught.append(error)

    async def exercise() -> None:
        await release.wait()

    other = asyncio.ensure_future(
        transport.run_scenario(scenario=waiting_scenario, exercise=exercise)
    )
    await settle()

    def failing_scenario(ctx: RealtimeScenarioContext) -> None:
        raise RuntimeError("scenario broke")

    with pytest.raises(RuntimeError, match="scenario broke") as info:
        await transport.run_scenario(scenario=failing_scenario, exercise=forever)
    release.set()

    # The other run's scenario swallowed the error, yet its run ends with it, as a run
    # ends with any failed expectation of its own; otherwise it would succeed here.
    assert await raised_by(other) is info.value
    assert caught == [info.value]


# -- one side finishes first -------------------------------------------------------------


async def test_scenario_first_then_exercise_succeeds_with_the_exercise_value() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")

    async def exercise() -> str:
        await transport.connect({})
        await settle()
        return "connected"

    assert await transport.run_scenario(scenario=scenario, exercise=exercise) == "connected"


async def test_scenario_first_then_exercise_error_fails_the_run() -> None:
    transport = ScriptedRealtimeTransport()
    failure = RuntimeError("late failure")

    async def exercise() -> None:
        await settle()
        raise failure

    with pytest.raises(RuntimeError) as info:
        await transport.run_scenario(scenario=lambda ctx: None, exercise=exercise)

    assert info.value is failure


async def test_extra_call_after_the_scenario_finished_fails_the_final_check() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")

    async def exercise() -> None:
        await transport.connect({})
        await settle()
        transport.mute(True)

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert info.value.unconsumed_calls == ({"index": 1, "method": "mute"},)


async def test_unused_injected_failure_fails_the_final_check() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("close", RuntimeError("never used"))

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        await transport.run_scenario(scenario=lambda ctx: None, exercise=lambda: None)

    assert info.value.pending_failures == ({"method": "close", "count": 1},)
    assert str(info.value).startswith(
        "ScriptedRealtimeTransport scenario is incomplete: 0 unconsumed calls, "
        "0 pending expectations, and 1 pending failure."
    )


async def test_exercise_finishing_with_pending_expectations_fails_at_once() -> None:
    transport = ScriptedRealtimeTransport()
    scenario_saw: list[BaseException] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        try:
            await ctx.expect_call("connect")
            await ctx.expect_call("close")
        except BaseException as error:
            scenario_saw.append(error)
            raise

    async def exercise() -> None:
        await transport.connect({})

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise)

    assert info.value.pending_expectations == ({"order": 2, "method": "close"},)
    assert str(info.value).startswith(
        "ScriptedRealtimeTransport scenario is incomplete: 0 unconsumed calls, "
        "1 pending expectation (#2 close), and 0 pending failures."
    )
    assert len(scenario_saw) == 1
    assert only_this_task_is_left()


async def test_exercise_first_without_pending_expectations_waits_for_the_scenario() -> None:
    transport = ScriptedRealtimeTransport()
    finished: list[str] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("interrupt")
        await settle()
        finished.append("scenario")

    def exercise() -> str:
        transport.interrupt()
        finished.append("exercise")
        return "value"

    assert await transport.run_scenario(scenario=scenario, exercise=exercise) == "value"
    assert finished == ["exercise", "scenario"]


async def test_expectation_registered_after_the_exercise_finished_fails_at_once() -> None:
    transport = ScriptedRealtimeTransport()
    late: list[asyncio.Future[Any]] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("interrupt")
        await settle()
        late.append(ctx.expect_call("close"))
        await late[0]

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        await transport.run_scenario(scenario=scenario, exercise=transport.interrupt)

    assert info.value.pending_expectations == ({"order": 2, "method": "close"},)
    assert late[0].exception() is info.value


async def test_expectation_after_the_exercise_finished_may_claim_a_buffered_call() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("interrupt")
        await settle()
        await ctx.expect_call("mute", lambda call: call.muted is True)

    def exercise() -> None:
        transport.interrupt()
        transport.mute(True)

    await transport.run_scenario(scenario=scenario, exercise=exercise)

    transport.assert_complete()


async def test_scenario_error_after_the_exercise_finished_fails_the_run() -> None:
    transport = ScriptedRealtimeTransport()
    failure = RuntimeError("scenario broke late")

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await settle()
        raise failure

    with pytest.raises(RuntimeError) as info:
        await transport.run_scenario(scenario=scenario, exercise=lambda: None)

    assert info.value is failure


async def test_run_succeeds_without_checking_that_the_transport_is_closed() -> None:
    transport = ScriptedRealtimeTransport()

    def scenario(ctx: RealtimeScenarioContext) -> None:
        ctx.expect_call("connect")

    await transport.run_scenario(scenario=scenario, exercise=lambda: transport.connect({}))

    assert transport.status == "connected"


# -- the context after the run -----------------------------------------------------------


async def test_context_expect_call_after_a_failed_run_fails_with_the_run_error() -> None:
    transport = ScriptedRealtimeTransport()
    contexts: list[RealtimeScenarioContext] = []

    def scenario(ctx: RealtimeScenarioContext) -> None:
        contexts.append(ctx)
        raise RuntimeError("scenario broke")

    with pytest.raises(RuntimeError) as info:
        await transport.run_scenario(scenario=scenario, exercise=forever)
    late = contexts[0].expect_call("close")

    assert late.exception() is info.value
    assert "pending_expectations=0" in repr(transport)


async def test_context_expect_call_after_a_successful_run_is_an_error() -> None:
    transport = ScriptedRealtimeTransport()
    contexts: list[RealtimeScenarioContext] = []

    await transport.run_scenario(scenario=contexts.append, exercise=lambda: None)
    late = contexts[0].expect_call("close")

    error = await raised_by(late)
    assert isinstance(error, RuntimeError)
    assert str(error) == (
        "ScriptedRealtimeTransport scenario run has already finished; use "
        "transport.expect_call() after run_scenario()."
    )


async def test_context_emit_is_synchronous_and_works_after_the_run() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.on("turn_done", seen.append)
    contexts: list[RealtimeScenarioContext] = []

    def scenario(ctx: RealtimeScenarioContext) -> None:
        contexts.append(ctx)
        assert ctx.emit("turn_done", "during") is True
        assert seen == ["during"]

    await transport.run_scenario(scenario=scenario, exercise=lambda: None)
    contexts[0].emit("turn_done", "after")

    assert seen == ["during", "after"]


async def test_transport_state_survives_a_failed_run_and_order_numbers_continue() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await forever()

    async def exercise() -> None:
        await transport.connect({})
        await settle()
        transport.mute(True)

    with pytest.raises(ScriptedRealtimeScenarioCancelledError):
        await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=0.05)
    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        transport.assert_complete()
    leftover = transport.expect_call("mute")

    assert info.value.unconsumed_calls == ({"index": 1, "method": "mute"},)
    assert transport.status == "connected"
    assert (await leftover).index == 1
    transport.expect_call("close")
    with pytest.raises(IncompleteRealtimeScenarioError) as later:
        transport.assert_complete()
    assert later.value.pending_expectations == ({"order": 3, "method": "close"},)
    transport.close()


# -- calls from other threads ------------------------------------------------------------


def check_thread_error(error: BaseException, operation: str) -> None:
    assert isinstance(error, RealtimeThreadError)
    assert error.operation == operation
    message = str(error)
    assert message.startswith(f"ScriptedRealtimeTransport.{operation}() was called from a thread")
    outcome = {
        "emit": "nothing was emitted",
        "disconnect": "nothing was emitted and the status did not change",
        "connect": "nothing was recorded or emitted and the status did not change",
        "close": "nothing was recorded or emitted and the status did not change",
    }.get(operation, "nothing was recorded")
    assert f"(operation={operation!r}); {outcome}" in message
    assert f"loop.call_soon_threadsafe(transport.{operation}, ...)" in message


async def on_a_worker_thread(action: Callable[[], object], with_loop: bool) -> None:
    """Call ``action`` on a worker thread, inside an event loop of that thread's own if asked."""

    async def on_its_own_loop() -> None:
        action()

    def work() -> None:
        if with_loop:
            asyncio.run(on_its_own_loop())
        else:
            action()

    await asyncio.to_thread(work)


async def test_a_call_from_another_thread_fails_the_run_and_records_nothing() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[BaseException] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        try:
            await ctx.expect_call("send_event")
        except RealtimeThreadError as error:
            seen.append(error)
            raise

    async def exercise() -> None:
        await asyncio.to_thread(transport.send_event, {"type": "ping"})

    error = await raised_by(transport.run_scenario(scenario=scenario, exercise=exercise))

    check_thread_error(error, "send_event")
    assert seen == [error]  # the pending expectation failed with it, unsettled by the call
    assert transport.calls == ()


async def test_a_run_refuses_other_threads_even_while_no_expectation_is_pending() -> None:
    # Whether a call is refused must not depend on how far the scenario has got.
    transport = ScriptedRealtimeTransport()

    async def exercise() -> None:
        await asyncio.to_thread(transport.interrupt)

    error = await raised_by(
        transport.run_scenario(scenario=lambda ctx: None, exercise=exercise, timeout=60)
    )

    check_thread_error(error, "interrupt")
    assert transport.calls == ()


async def test_a_worker_thread_hands_its_call_to_the_loop_with_call_soon_threadsafe() -> None:
    transport = ScriptedRealtimeTransport()
    loop = asyncio.get_running_loop()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("send_event", lambda call: call.event == {"type": "ping"})

    def work() -> str:
        loop.call_soon_threadsafe(transport.send_event, {"type": "ping"})
        return "sent"

    async def exercise() -> str:
        return await asyncio.to_thread(work)

    assert await transport.run_scenario(scenario=scenario, exercise=exercise) == "sent"
    assert [call.method for call in transport.calls] == ["send_event"]


async def test_a_pending_expectation_refuses_a_call_from_a_thread_until_the_loop_makes_it() -> None:
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("interrupt")
    refused: list[BaseException] = []

    def worker() -> None:
        try:
            transport.interrupt()
        except RealtimeThreadError as error:
            refused.append(error)

    thread = threading.Thread(target=worker)
    thread.start()
    await asyncio.to_thread(thread.join)

    check_thread_error(refused[0], "interrupt")
    assert not expected.done()
    assert transport.calls == ()
    transport.interrupt()
    assert (await expected).method == "interrupt"


async def test_connect_and_close_from_another_thread_change_no_state() -> None:
    transport = ScriptedRealtimeTransport()
    changes: list[str] = []
    transport.on("connection_change", changes.append)
    connected = transport.expect_call("connect")

    result = await asyncio.to_thread(transport.connect, {"api_key": "k"})

    check_thread_error(await raised_by(result), "connect")
    assert (transport.status, changes, transport.calls) == ("disconnected", [], ())
    assert not connected.done()
    await transport.connect({"api_key": "k"})
    await connected
    closed = transport.expect_call("close")

    check_thread_error(await raised_by(asyncio.to_thread(transport.close)), "close")
    assert (transport.status, changes) == ("connected", ["connecting", "connected"])
    assert [call.method for call in transport.calls] == ["connect"]
    assert not closed.done()


@pytest.mark.parametrize("with_loop", [False, True], ids=["plain-thread", "thread-with-a-loop"])
async def test_an_expectation_from_another_thread_is_refused(with_loop: bool) -> None:
    # Pending expectations belong to the test's loop: a worker thread, with no loop or with a
    # loop of its own, gets the thread error, not "outside any event loop".
    transport = ScriptedRealtimeTransport()
    pending = transport.expect_call("interrupt")

    error = await raised_by(on_a_worker_thread(lambda: transport.expect_call("mute"), with_loop))

    assert isinstance(error, RealtimeThreadError)
    assert error.operation == "expect_call"
    message = str(error)
    assert message.startswith("ScriptedRealtimeTransport.expect_call() was called from a thread")
    assert "Set expectations up on the loop's thread" in message
    assert "call_soon_threadsafe" not in message  # it cannot hand a future back
    transport.interrupt()
    assert (await pending).method == "interrupt"
    transport.assert_complete()  # the refused expectation was not registered


def test_with_no_run_or_expectation_any_thread_may_record_calls() -> None:
    transport = ScriptedRealtimeTransport()
    threads = [
        threading.Thread(target=transport.send_event, args=({"n": index},)) for index in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    events = [call.event for call in transport.calls if isinstance(call, SendEventCall)]
    assert sorted(event["n"] for event in events) == [0, 1, 2, 3]


@pytest.mark.parametrize("how", ["cancel", "set_result"])
async def test_a_withdrawn_expectation_binds_no_thread(how: str) -> None:
    # Its future is done, so the call would not settle it: as with no expectation at all,
    # a worker thread may record the call, which stays unconsumed.
    transport = ScriptedRealtimeTransport()
    withdrawn: asyncio.Future[Any] = transport.expect_call("interrupt")
    if how == "cancel":
        withdrawn.cancel()
    else:
        withdrawn.set_result(None)

    await asyncio.to_thread(transport.interrupt)

    assert [call.method for call in transport.calls] == ["interrupt"]
    assert (await transport.expect_call("interrupt")).index == 0
    transport.assert_complete()


async def test_a_pending_expectation_behind_a_withdrawn_one_still_binds_the_loop() -> None:
    transport = ScriptedRealtimeTransport()
    transport.expect_call("close").cancel()
    pending = transport.expect_call("interrupt")

    error = await raised_by(asyncio.to_thread(transport.interrupt))

    check_thread_error(error, "interrupt")
    assert transport.calls == ()
    assert not pending.done()
    transport.interrupt()
    assert (await pending).index == 0


async def test_an_emit_from_another_thread_fails_the_run_and_calls_no_listener() -> None:
    transport = ScriptedRealtimeTransport()
    heard: list[object] = []
    transport.on("turn_done", heard.append)

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("interrupt")

    async def exercise() -> None:
        await asyncio.to_thread(transport.emit, "turn_done", {"id": "r1"})

    error = await raised_by(
        transport.run_scenario(scenario=scenario, exercise=exercise, timeout=60)
    )

    check_thread_error(error, "emit")
    assert "connected openai-agents realtime model" in str(error)  # which binds it too
    assert heard == []


async def test_a_scenario_emitting_from_a_thread_fails_the_run() -> None:
    transport = ScriptedRealtimeTransport()
    heard: list[object] = []
    transport.on("audio", heard.append)

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await asyncio.to_thread(ctx.emit, "audio", b"\x01")

    error = await raised_by(
        transport.run_scenario(scenario=scenario, exercise=lambda: None, timeout=60)
    )

    check_thread_error(error, "emit")
    assert heard == []


@pytest.mark.parametrize("with_loop", [False, True], ids=["plain-thread", "thread-with-a-loop"])
async def test_a_pending_expectation_refuses_an_emit_from_another_thread(with_loop: bool) -> None:
    # A listener may make the expected call: from a worker thread it would settle the
    # expectation's future off its loop, whether or not that thread runs a loop of its own.
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("interrupt")
    transport.on("audio_interrupted", lambda: transport.interrupt())

    error = await raised_by(
        on_a_worker_thread(lambda: transport.emit("audio_interrupted"), with_loop)
    )

    check_thread_error(error, "emit")
    assert not expected.done()
    assert transport.calls == ()
    assert transport.emit("audio_interrupted") is True
    assert (await expected).method == "interrupt"


async def test_a_worker_thread_hands_its_emit_to_the_loop_with_call_soon_threadsafe() -> None:
    transport = ScriptedRealtimeTransport()
    loop = asyncio.get_running_loop()
    heard: list[tuple[object, int]] = []
    transport.on("turn_started", lambda payload: heard.append((payload, threading.get_ident())))

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("interrupt")

    def work() -> None:
        loop.call_soon_threadsafe(transport.emit, "turn_started", {"id": "r1"})

    async def exercise() -> None:
        await asyncio.to_thread(work)
        await asyncio.sleep(0)  # the handed-over emit runs before this task resumes
        transport.interrupt()

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=60)

    assert heard == [({"id": "r1"}, threading.get_ident())]


async def test_disconnect_from_another_thread_changes_no_state() -> None:
    transport = ScriptedRealtimeTransport()
    changes: list[object] = []
    transport.on("connection_change", changes.append)
    transport.on("error", changes.append)
    connected = transport.expect_call("connect")
    await transport.connect({})
    await connected
    closed = transport.expect_call("close")

    error = await raised_by(asyncio.to_thread(transport.disconnect, OSError("dropped")))

    check_thread_error(error, "disconnect")
    assert (transport.status, changes) == ("connected", ["connecting", "connected"])
    transport.close()
    assert (await closed).method == "close"


def test_with_no_run_or_expectation_any_thread_may_emit() -> None:
    transport = ScriptedRealtimeTransport()
    heard: list[int] = []
    transport.on("turn_started", lambda: heard.append(threading.get_ident()))

    thread = threading.Thread(target=transport.emit, args=("turn_started",))
    thread.start()
    thread.join()
    thread_id = thread.ident

    assert heard == [thread_id]


def test_expectations_of_a_finished_event_loop_are_settled_without_a_running_loop() -> None:
    transport = ScriptedRealtimeTransport()

    async def expect() -> asyncio.Future[Any]:
        return transport.expect_call("interrupt")

    expected = asyncio.run(expect())
    transport.interrupt()

    assert expected.result().method == "interrupt"


@contextlib.asynccontextmanager
async def listeners_bound_on_another_thread(
    transport: ScriptedRealtimeTransport,
) -> AsyncIterator[None]:
    """Bind the transport's listeners to a loop running on a thread of its own, meanwhile.

    A connected openai-agents realtime model does this on the loop it connected on: its
    listeners hand events to tasks there.
    """
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever)
    thread.start()

    async def bind() -> None:
        owner = object()  # the adapter's model, by identity
        transport._bind_listeners(owner, asyncio.get_running_loop())

    try:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(bind(), loop))
        yield
    finally:
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join)
        loop.close()


async def test_a_listener_loop_on_another_thread_leaves_expectations_to_any_thread() -> None:
    # The listener loop binds only what notifies listeners (emit, connect, close,
    # disconnect): an expectation and the call that settles it notify nobody there.
    transport = ScriptedRealtimeTransport()

    async with listeners_bound_on_another_thread(transport):
        expected = transport.expect_call("interrupt")
        transport.interrupt()
        with pytest.raises(RealtimeThreadError) as refused:
            transport.emit("turn_started")

    assert (await expected).method == "interrupt"
    check_thread_error(refused.value, "emit")
    assert "connected openai-agents realtime model" in str(refused.value)
    transport.assert_complete()


async def test_a_listener_loop_on_another_thread_leaves_calls_to_the_expectations_loop() -> None:
    # The expectation binds this loop, the listener loop binds only notifications: a call
    # from this thread settles the expectation, though the listener loop runs elsewhere.
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("send_event")

    async with listeners_bound_on_another_thread(transport):
        transport.send_event({"type": "ping"})

    call = await expected
    assert isinstance(call, SendEventCall)
    assert call.event == {"type": "ping"}
    assert transport.calls == (call,)
    transport.assert_complete()


async def notify_listeners(transport: ScriptedRealtimeTransport, operation: str) -> None:
    """Make one of the transport calls that notify listeners."""
    if operation == "emit":
        transport.emit("turn_started")
    elif operation == "connect":
        await transport.connect({})
    elif operation == "close":
        transport.close()
    else:
        transport.disconnect(ConnectionResetError("dropped"))


@pytest.mark.parametrize("operation", ["emit", "connect", "close", "disconnect"])
async def test_a_listener_loop_on_another_thread_refuses_what_notifies_its_listeners(
    operation: str,
) -> None:
    # With no run or expectation, only the listener loop binds: the refusal comes before
    # anything changes, as the adapter that bound it needs.
    transport = ScriptedRealtimeTransport()
    heard: list[tuple[str, tuple[object, ...]]] = []
    for event in ("connection_change", "turn_started", "error"):
        transport.on(event, lambda *args, event=event: heard.append((event, args)))
    if operation in ("close", "disconnect"):
        await transport.connect({})
    heard.clear()
    status, calls = transport.status, transport.calls

    async with listeners_bound_on_another_thread(transport):
        error = await raised_by(notify_listeners(transport, operation))

    check_thread_error(error, operation)
    assert (transport.status, transport.calls, heard) == (status, calls, [])
    await notify_listeners(transport, operation)  # the loop stopped: it binds nothing now
    assert heard != []


# -- the cancellation rule, for any ordering ----------------------------------------------

CALLS: dict[str, Callable[[ScriptedRealtimeTransport], object]] = {
    "interrupt": lambda transport: transport.interrupt(),
    "mute": lambda transport: transport.mute(True),
    "send_event": lambda transport: transport.send_event({"type": "ping"}),
    "request_response": lambda transport: transport.request_response(),
}


class ExerciseBroke(Exception):
    """The exercise's own error in the cancellation property."""


@st.composite
def scenario_programs(draw: st.DrawFn) -> dict[str, Any]:
    """Draw expected calls, how many the exercise makes, where it aborts and how it ends."""
    expected = draw(st.lists(st.sampled_from(sorted(CALLS)), max_size=4))
    made = draw(st.integers(0, len(expected)))
    return {
        "expected": expected,
        "made": made,
        "abort_at": draw(st.none() | st.integers(0, made)),
        # Per gap before each call and at the end: yield to the loop before / after the abort.
        "yields": draw(
            st.lists(st.tuples(st.booleans(), st.booleans()), min_size=made + 1, max_size=made + 1)
        ),
        "raises": draw(st.booleans()),
        "signal": draw(st.sampled_from(["asyncio.Event", "threading.Event", "aborted"])),
    }


async def run_program(program: dict[str, Any]) -> tuple[ScriptedRealtimeTransport, Any]:
    """Run one drawn program; return the transport and what run_scenario returned or raised."""
    transport = ScriptedRealtimeTransport()
    signal = make_signal(program["signal"])
    expected: list[RealtimeTransportMethod] = program["expected"]

    def scenario(ctx: RealtimeScenarioContext) -> Awaitable[Any]:
        return asyncio.gather(*(ctx.expect_call(method) for method in expected))

    async def exercise() -> str:
        for gap, (before, after) in enumerate(program["yields"]):
            if before:
                await asyncio.sleep(0)
            if program["abort_at"] == gap:
                abort(signal)
            if after:
                await asyncio.sleep(0)
            if gap < program["made"]:
                CALLS[expected[gap]](transport)
        if program["raises"]:
            raise ExerciseBroke
        return "value"

    try:
        outcome: Any = await transport.run_scenario(
            scenario=scenario, exercise=exercise, signal=signal
        )
    except (
        ExerciseBroke,
        IncompleteRealtimeScenarioError,
        ScriptedRealtimeScenarioCancelledError,
    ) as error:
        outcome = error
    assert only_this_task_is_left()
    return transport, outcome


def pending(expected: list[str], start: int) -> tuple[dict[str, Any], ...]:
    return tuple(
        {"order": order, "method": method}
        for order, method in enumerate(expected[start:], start=start + 1)
    )


@settings(max_examples=100, deadline=None, database=None)
@given(scenario_programs())
def test_an_abort_before_the_run_is_decided_always_cancels_it(program: dict[str, Any]) -> None:
    transport, outcome = asyncio.run(run_program(program))
    expected, made, abort_at = program["expected"], program["made"], program["abort_at"]

    if abort_at is not None:
        # Whatever comes after the abort (calls, the exercise's end or error, the scenario's
        # end), the run is cancelled with what was pending when the signal was aborted.
        assert isinstance(outcome, ScriptedRealtimeScenarioCancelledError)
        assert outcome.pending_expectations == pending(expected, abort_at)
        assert [call.method for call in transport.calls][:abort_at] == expected[:abort_at]
    elif program["raises"]:
        assert isinstance(outcome, ExerciseBroke)
    elif made < len(expected):
        assert isinstance(outcome, IncompleteRealtimeScenarioError)
        assert outcome.pending_expectations == pending(expected, made)
    else:
        assert outcome == "value"


# -- the guide's recipes, against a small session that uses the public transport API ----


class VoiceSession:
    """A minimal voice session: the application code these recipes test."""

    def __init__(
        self,
        transport: ScriptedRealtimeTransport,
        tools: dict[str, Callable[..., Awaitable[str]]] | None = None,
    ) -> None:
        self.transport = transport
        self.tools = dict(tools or {})
        self.history: list[dict[str, Any]] = []
        self.status = "disconnected"
        self.audio_started = False
        self.interrupted = False
        self.errors: list[BaseException] = []
        self._tool_runs: set[asyncio.Task[None]] = set()
        transport.on("connection_change", self._on_connection_change)
        transport.on("item_update", self._on_item_update)
        transport.on("audio", self._on_audio)
        transport.on("audio_interrupted", self._on_audio_interrupted)
        transport.on("function_call", self._on_function_call)
        transport.on("error", self._on_error)

    async def connect(self, *, api_key: str) -> None:
        await self.transport.connect({"api_key": api_key, "model": "gpt-realtime"})

    def send_message(self, text: str) -> None:
        self.transport.send_message(text)

    def interrupt(self) -> None:
        self.transport.interrupt()

    def close(self) -> None:
        for run in self._tool_runs:
            run.cancel()
        self.transport.close()

    def _on_connection_change(self, status: str) -> None:
        self.status = status

    def _on_item_update(self, item: dict[str, Any]) -> None:
        for position, known in enumerate(self.history):
            if known["item_id"] == item["item_id"]:
                self.history[position] = item
                return
        self.history.append(item)

    def _on_audio(self, event: dict[str, Any]) -> None:
        self.audio_started = True

    def _on_audio_interrupted(self, *args: Any) -> None:
        self.interrupted = True

    def _on_error(self, event: dict[str, Any]) -> None:
        self.errors.append(event["error"])

    def _on_function_call(self, event: dict[str, Any]) -> None:
        # Listeners are synchronous: schedule the async tool and keep the task referenced.
        run = asyncio.get_running_loop().create_task(self._run_tool(event))
        self._tool_runs.add(run)
        run.add_done_callback(self._tool_runs.discard)

    async def _run_tool(self, event: dict[str, Any]) -> None:
        tool = self.tools.get(event["name"])
        if tool is None:
            self.transport.send_function_call_output(event, "", False)
            return
        output = await tool(**json.loads(event["arguments"]))
        self.transport.send_function_call_output(event, output, True)


def message(item_id: str, role: str, text: str) -> dict[str, Any]:
    kind = "input_text" if role == "user" else "output_text"
    return {
        "item_id": item_id,
        "type": "message",
        "role": role,
        "status": "completed",
        "content": [{"type": kind, "text": text}],
    }


async def test_recipe_two_turn_conversation_updates_session_history() -> None:
    transport = ScriptedRealtimeTransport()
    session = VoiceSession(transport)
    conversation = [
        message("user_1", "user", "Hello"),
        message("assistant_1", "assistant", "Hi! How can I help?"),
        message("user_2", "user", "What did I just say?"),
        message("assistant_2", "assistant", "You said hello."),
    ]
    first_turn_delivered = asyncio.Event()
    second_turn_delivered = asyncio.Event()

    # The transport-facing side: match outbound calls, emit normalized inbound events.
    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("send_message", lambda call: call.message == "Hello")
        ctx.emit("item_update", conversation[0])
        ctx.emit("item_update", conversation[1])
        first_turn_delivered.set()

        await ctx.expect_call("send_message", lambda call: call.message == "What did I just say?")
        ctx.emit("item_update", conversation[2])
        ctx.emit("item_update", conversation[3])
        second_turn_delivered.set()

        await ctx.expect_call("close")

    # The application side: drive the session through its public API.
    async def exercise() -> None:
        try:
            await session.connect(api_key="test")
            session.send_message("Hello")
            await first_turn_delivered.wait()
            session.send_message("What did I just say?")
            await second_turn_delivered.wait()
        finally:
            # Runs on success, and when a failed run cancels this side.
            session.close()

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    assert session.history == conversation
    transport.assert_complete()
    transport.assert_closed()


async def test_recipe_function_tool_call_sends_the_tool_output() -> None:
    looked_up: list[str] = []

    async def lookup_order(order_id: str) -> str:
        looked_up.append(order_id)
        return f"Order {order_id} has shipped."

    transport = ScriptedRealtimeTransport()
    session = VoiceSession(transport, tools={"lookup_order": lookup_order})
    tool_output_returned = asyncio.Event()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")

        def asks_about_the_order(call: SendMessageCall) -> None:
            assert call.message == "Where is order 123?"

        await ctx.expect_call("send_message", asks_about_the_order)
        # Script the model choosing the tool; the session runs the real tool.
        ctx.emit("turn_started", {"type": "response_started"})
        ctx.emit(
            "function_call",
            {
                "type": "function_call",
                "name": "lookup_order",
                "call_id": "call_1",
                "arguments": json.dumps({"order_id": "order_123"}),
            },
        )

        def returns_the_tool_output(call: SendFunctionCallOutputCall) -> None:
            assert call.tool_call["call_id"] == "call_1"
            assert call.output == "Order order_123 has shipped."
            assert call.start_response is True

        await ctx.expect_call("send_function_call_output", returns_the_tool_output)
        tool_output_returned.set()
        await ctx.expect_call("close")

    async def exercise() -> None:
        try:
            await session.connect(api_key="test")
            session.send_message("Where is order 123?")
            await tool_output_returned.wait()
        finally:
            session.close()

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    assert looked_up == ["order_123"]
    transport.assert_complete()
    transport.assert_closed()


async def test_recipe_wrong_tool_output_fails_the_run_with_the_matcher_assertion() -> None:
    async def lookup_order(order_id: str) -> str:
        return "Order not found."

    transport = ScriptedRealtimeTransport()
    session = VoiceSession(transport, tools={"lookup_order": lookup_order})

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        ctx.emit(
            "function_call",
            {
                "type": "function_call",
                "name": "lookup_order",
                "call_id": "c",
                "arguments": '{"order_id": "order_123"}',
            },
        )

        def shipped(call: SendFunctionCallOutputCall) -> None:
            assert call.output == "Order order_123 has shipped.", "unexpected tool output"

        await ctx.expect_call("send_function_call_output", shipped)
        await ctx.expect_call("close")

    async def exercise() -> None:
        try:
            await session.connect(api_key="test")
            await forever()
        finally:
            session.close()

    with pytest.raises(AssertionError, match="unexpected tool output"):
        await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    transport.assert_closed()
    assert only_this_task_is_left()


async def test_recipe_application_interrupt_is_sent_through_the_transport() -> None:
    transport = ScriptedRealtimeTransport()
    session = VoiceSession(transport)
    ready_to_interrupt = asyncio.Event()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("send_message")
        # The start of an assistant utterance.
        ctx.emit("turn_started", {"type": "response_started"})
        ctx.emit("audio", {"type": "audio", "response_id": "response_1", "data": b"\x01\x02"})
        # emit() is synchronous: the session has seen the audio already.
        assert session.audio_started
        ready_to_interrupt.set()

        await ctx.expect_call("interrupt")
        await ctx.expect_call("close")

    async def exercise() -> None:
        try:
            await session.connect(api_key="test")
            session.send_message("Tell me a long story")
            await ready_to_interrupt.wait()
            session.interrupt()  # e.g. a stop button
        finally:
            session.close()

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    transport.assert_complete()
    transport.assert_closed()


async def test_recipe_interruption_notification_reaches_the_application() -> None:
    transport = ScriptedRealtimeTransport()
    session = VoiceSession(transport)

    connect_call = transport.expect_call("connect")
    await session.connect(api_key="test")
    await connect_call

    transport.emit("audio_interrupted")
    assert session.interrupted

    close_call = transport.expect_call("close")
    session.close()
    await close_call
    transport.assert_complete()
    transport.assert_closed()


async def test_recipe_injected_failure_is_recorded_and_matched() -> None:
    transport = ScriptedRealtimeTransport()
    session = VoiceSession(transport)
    failure = ConnectionError("connection failed")

    # The failed attempt is still recorded, so it must satisfy the expectation.
    transport.fail_next_call("connect", failure)
    connect_call = transport.expect_call("connect")

    with pytest.raises(ConnectionError) as info:
        await session.connect(api_key="test")

    assert info.value is failure
    assert (await connect_call).method == "connect"
    assert transport.status == "disconnected"
    assert session.status == "disconnected"
    transport.assert_complete()
    transport.assert_closed()


async def test_recipe_remote_disconnect_reaches_the_application_without_a_close() -> None:
    transport = ScriptedRealtimeTransport()
    session = VoiceSession(transport)
    connect_call = transport.expect_call("connect")
    await session.connect(api_key="test")
    await connect_call
    dropped = ConnectionResetError("server went away")

    transport.disconnect(dropped)

    assert session.status == "disconnected"
    assert session.errors == [dropped]
    assert [call.method for call in transport.calls] == ["connect"]
    transport.assert_complete()
    transport.assert_closed()
