"""Sandbox behaviors mutation testing found unpinned: keyword calls, cancellation, names."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from agents_testing.sandbox import SandboxCall, scripted_sandbox_session


def test_invoke_passes_keyword_arguments_to_a_sync_method() -> None:
    seen: list[dict[str, Any]] = []

    def match(*args: Any, **kwargs: Any) -> bool:
        seen.append(kwargs)
        return True

    session = scripted_sandbox_session(
        [{"method": "set_archive_limits", "match": match, "result": "set"}]
    )

    assert session.invoke("set_archive_limits", max_bytes=10, max_files=2) == "set"
    assert seen == [{"max_bytes": 10, "max_files": 2}]
    (call,) = session.calls
    assert call.args == ()
    assert call.kwargs == {"max_bytes": 10, "max_files": 2}


async def test_invoke_passes_keyword_arguments_to_an_async_method() -> None:
    def respond(call: SandboxCall) -> str:
        return f"ran {call.kwargs['cmd']} in {call.kwargs['cwd']}"

    session = scripted_sandbox_session([{"method": "exec_command", "respond": respond}])

    assert await session.invoke("exec_command", cmd="ls", cwd="/tmp") == "ran ls in /tmp"
    assert session.calls[0].kwargs == {"cmd": "ls", "cwd": "/tmp"}
    session.assert_complete()


@pytest.mark.parametrize("method", ["exec_command", "supports_pty"], ids=["async", "sync"])
def test_scripted_methods_are_named_after_the_method_they_answer(method: str) -> None:
    session = scripted_sandbox_session([{"method": method, "result": None}])
    scripted = getattr(session, method)

    # Tracebacks, logs and frameworks that introspect tools show these names.
    assert scripted.__name__ == method
    assert scripted.__qualname__ == f"ScriptedSandboxSession.{method}"


async def test_cancelling_a_task_while_its_responder_awaits_cancels_the_responder() -> None:
    started = asyncio.Event()
    outcomes: list[str] = []

    async def respond_slowly(call: SandboxCall) -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            outcomes.append("cancelled")
            raise
        return "never"

    session = scripted_sandbox_session([{"method": "exec", "respond": respond_slowly}])
    task = asyncio.create_task(session.exec("sleep 100"))
    await started.wait()
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    # The cancellation reached the responder's own coroutine, so its cleanup ran.
    assert outcomes == ["cancelled"]
    session.assert_complete()


async def test_cancelling_a_task_before_it_runs_closes_the_responder_coroutine() -> None:
    made: list[Any] = []

    async def respond_later(call: SandboxCall) -> str:
        return "never"

    def respond(call: SandboxCall) -> Any:
        made.append(respond_later(call))
        return made[-1]

    session = scripted_sandbox_session([{"method": "read_file", "respond": respond}])
    task = asyncio.create_task(session.read_file("/etc/hosts"))
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert inspect.getcoroutinestate(made[0]) == inspect.CORO_CLOSED


async def test_an_exception_thrown_into_an_unstarted_call_is_raised_from_it() -> None:
    session = scripted_sandbox_session([{"method": "stop", "result": "stopped"}])
    pending = session.stop()

    with pytest.raises(KeyError, match="thrown in"):
        pending.throw(KeyError("thrown in"))
    # Thrown into, the call is finished: it cannot be awaited again.
    with pytest.raises(RuntimeError, match="already awaited"):
        await pending
