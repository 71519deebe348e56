"""Cancel each kind of call at every event-loop iteration, in debug mode, warnings as errors.

For each call kind the harness starts the call in a task, lets the loop run ``k`` iterations,
cancels the task, and checks what is left: no task, no error logged by the loop, no warning
(a coroutine never awaited, an unretrieved exception), no unraisable exception, scripted
sources closed, and the double's bookkeeping whole: the call was recorded and its step taken
together, or neither. ``k`` runs from 0 until the call finishes before the cancellation.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from agents_testing import (
    ModelRequest,
    ScriptedModel,
    ScriptedRealtimeTransport,
    assistant_message,
    model_responder,
    model_stream,
    scripted_sandbox_session,
)

MAX_ITERATIONS = 60


@dataclass
class Case:
    """One call of one double: ``start()`` makes the call; ``check()`` judges the leftovers."""

    start: Callable[[], Awaitable[Any]]
    check: Callable[[bool], None]  # called with whether the call ran to its end
    closed: list[bool] = field(default_factory=list)


async def pause(times: int = 3) -> None:
    for _ in range(times):
        await asyncio.sleep(0)


def model_get_response() -> Case:
    async def respond(call: Any) -> list[Any]:
        await pause()
        return [assistant_message("hi")]

    model = ScriptedModel([model_responder(respond)])

    def check(finished: bool) -> None:
        # Recorded and taken together, or neither (cancelled before the task first ran).
        assert (len(model.calls), model.remaining_steps) in ((1, 0), (0, 1))
        if finished:
            model.assert_complete()

    return Case(lambda: model.get_response(ModelRequest(input="hi")), check)


def model_stream_response() -> Case:
    case_closed: list[bool] = []

    async def source() -> AsyncIterator[Any]:
        try:
            for n in range(3):
                await pause(1)
                yield {"type": "model", "event": n}
        finally:
            case_closed.append(True)

    model = ScriptedModel([model_stream(source())])

    async def read() -> list[Any]:
        stream = model.stream_response(ModelRequest(input="hi"))
        try:
            return [event async for event in stream]
        finally:
            await stream.aclose()

    def check(finished: bool) -> None:
        assert (len(model.calls), model.remaining_steps) in ((1, 0), (0, 1))
        if model.calls and case_closed == []:
            # Started and stopped before the source ran: nothing to close but the generator.
            pass
        assert len(case_closed) <= 1
        if finished:
            assert case_closed == [True]

    return Case(read, check, case_closed)


def model_automatic_stream() -> Case:
    model = ScriptedModel([[assistant_message("hi")]])

    async def read() -> list[Any]:
        stream = model.stream_response(ModelRequest(input="hi"))
        events = []
        async for event in stream:
            events.append(event)
            await pause(1)
        return events

    def check(finished: bool) -> None:
        assert (len(model.calls), model.remaining_steps) in ((1, 0), (0, 1))

    return Case(read, check)


def sandbox_async_responder() -> Case:
    async def respond(call: Any) -> str:
        await pause()
        return "ok"

    session = scripted_sandbox_session([{"method": "exec", "respond": respond}])

    async def call() -> Any:
        return await session.exec("pwd")

    def check(finished: bool) -> None:
        assert (len(session.calls), session.remaining_steps) in ((1, 0), (0, 1))
        if finished:
            session.assert_complete()

    return Case(call, check)


def sandbox_task_of_a_call() -> Case:
    # The call is made now; the task awaiting its coroutine may be cancelled before it starts.
    async def respond(call: Any) -> str:
        await pause()
        return "ok"

    session = scripted_sandbox_session([{"method": "exec", "respond": respond}])

    def check(finished: bool) -> None:
        assert (len(session.calls), session.remaining_steps) == (1, 0)

    return Case(lambda: session.exec("pwd"), check)


def realtime_run_scenario() -> Case:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: Any) -> None:
        await ctx.expect_call("connect")
        ctx.emit("ready")
        await ctx.expect_call("send_event")

    async def exercise() -> str:
        await transport.connect({"model": "m"})
        await pause()
        transport.send_event({"type": "x"})
        await pause()
        return "done"

    def check(finished: bool) -> None:
        assert [call.method for call in transport.calls] in (
            [],
            ["connect"],
            ["connect", "send_event"],
        )
        if finished:
            transport.assert_complete()

    return Case(lambda: transport.run_scenario(scenario=scenario, exercise=exercise), check)


CASES = {
    "model get_response": model_get_response,
    "model stream_response": model_stream_response,
    "model automatic stream": model_automatic_stream,
    "sandbox async responder": sandbox_async_responder,
    "sandbox task of a call": sandbox_task_of_a_call,
    "realtime run_scenario": realtime_run_scenario,
}


def cancel_after(make: Callable[[], Case], iterations: int) -> bool:
    """Run one case, cancelling after ``iterations`` loop iterations; True if it finished."""
    loop_errors: list[dict[str, Any]] = []
    unraisable: list[Any] = []
    finished = False

    async def main() -> None:
        nonlocal finished
        asyncio.get_running_loop().set_exception_handler(lambda _, ctx: loop_errors.append(ctx))
        case = make()
        task = asyncio.ensure_future(case.start())
        for _ in range(iterations):
            await asyncio.sleep(0)
        finished = task.done()
        task.cancel()
        outcome = (await asyncio.gather(task, return_exceptions=True))[0]
        if not finished:
            assert isinstance(outcome, asyncio.CancelledError), outcome
        await pause()
        assert asyncio.all_tasks() == {asyncio.current_task()}
        case.check(finished)

    hook = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            asyncio.run(main(), debug=True)
            gc.collect(1)  # the objects of this run are young: a full collection is slow
    finally:
        sys.unraisablehook = hook
    assert loop_errors == []
    assert [(u.exc_type, str(u.exc_value)) for u in unraisable] == []
    return finished


@pytest.mark.parametrize("kind", sorted(CASES))
def test_cancelling_at_every_loop_iteration_leaves_nothing_behind(kind: str) -> None:
    for iterations in range(MAX_ITERATIONS):
        if cancel_after(CASES[kind], iterations):
            break
    else:
        pytest.fail(f"{kind} did not finish within {MAX_ITERATIONS} loop iterations")
