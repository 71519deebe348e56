"""Sandbox behaviors mutation testing found unpinned: keyword calls, cancellation, names."""

from __future__ import annotations

import asyncio
import inspect
import warnings
from collections.abc import Generator
from types import TracebackType
from typing import Any

import pytest

from agents_testing.errors import (
    InvalidScriptedSandboxStepError,
    SandboxCallMatcherError,
    UnconsumedSandboxStepsError,
)
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


def test_invoke_with_a_method_that_is_not_a_name_says_what_to_pass() -> None:
    session = scripted_sandbox_session([])

    with pytest.raises(TypeError) as info:
        session.invoke(3)  # type: ignore[arg-type]

    assert str(info.value) == (
        "ScriptedSandboxSession.invoke() method must be the method's name as a str, got int."
    )
    assert session.calls == ()


def test_invoke_of_an_unknown_method_lists_the_known_ones() -> None:
    session = scripted_sandbox_session([], interface={"stop": "async", "exec": "async"})

    with pytest.raises(ValueError) as info:  # noqa: PT011 - the message is checked whole
        session.invoke("fetch")

    assert str(info.value) == (
        "'fetch' is not a method of this session's interface; known methods: exec, stop"
    )


class Responder:
    """A callable object without a ``__qualname__`` of its own."""

    def __call__(self, call: SandboxCall) -> str:
        return "ok"


def test_pending_steps_name_a_responder_object_by_its_type_and_cut_long_results() -> None:
    long_result = "x" * 60
    session = scripted_sandbox_session(
        [
            {"method": "exec", "respond": Responder()},
            {"method": "read_file", "result": long_result},
        ]
    )

    with pytest.raises(UnconsumedSandboxStepsError) as info:
        session.assert_complete()

    assert info.value.pending_steps == (
        {"step_index": 0, "method": "exec", "summary": "respond Responder"},
        # A result is cut to 40 characters of its repr, so one step stays one short line.
        {"step_index": 1, "method": "read_file", "summary": "result '" + "x" * 36 + "..."},
    )


class Echo:
    """An awaitable that suspends once and returns what its driver sent back in."""

    def __await__(self) -> Generator[str, str, str]:
        sent = yield "suspended"
        return f"got {sent}"


def test_a_value_sent_into_a_call_reaches_the_awaitable_its_responder_returned() -> None:
    session = scripted_sandbox_session([{"method": "exec", "respond": lambda call: Echo()}])
    pending = session.exec("pwd")

    # Driven by hand, as an event loop other than asyncio might drive a coroutine.
    assert pending.send(None) == "suspended"
    with pytest.raises(StopIteration) as done:
        pending.send("resumed")
    assert done.value.value == "got resumed"


def test_the_two_argument_throw_raises_the_given_exception_instance() -> None:
    session = scripted_sandbox_session([{"method": "stop", "result": "stopped"}])
    pending = session.stop()
    thrown = KeyError("thrown in")

    with warnings.catch_warnings():
        # Like a coroutine's, the (type, value) form is deprecated since Python 3.12.
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(KeyError) as info:
            pending.throw(KeyError, thrown)
    assert info.value is thrown


def traceback_from_elsewhere() -> TracebackType:
    """Return the traceback of an error raised and caught in this function's own frame."""
    try:
        raise OSError("elsewhere")
    except OSError as error:
        traceback = error.__traceback__
    assert traceback is not None
    return traceback


def test_the_three_argument_throw_keeps_the_instance_and_its_traceback() -> None:
    session = scripted_sandbox_session([{"method": "stop", "result": "stopped"}])
    pending = session.stop()
    thrown = KeyError("thrown in")  # never raised, so the only traceback is the one given
    origin = traceback_from_elsewhere()

    with warnings.catch_warnings():
        # The three-argument form is deprecated since Python 3.12, and still supported.
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(KeyError) as info:
            pending.throw(KeyError, thrown, origin)

    assert info.value is thrown
    frames: list[Any] = []
    tb = info.value.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    assert origin.tb_frame in frames


async def test_a_matcher_that_raises_is_reported_with_the_call_it_rejected() -> None:
    def match(*args: Any, **kwargs: Any) -> bool:
        raise AssertionError("expected cwd=/srv")

    session = scripted_sandbox_session([{"method": "exec_command", "match": match, "result": 0}])

    with pytest.raises(AssertionError, match="expected cwd=/srv"):
        await session.exec_command({"cmd": "ls"}, cwd="/tmp")
    with pytest.raises(SandboxCallMatcherError) as info:
        session.assert_complete()

    error = info.value
    assert (error.call_index, error.method) == (0, "exec_command")
    assert error.call_summary == "exec_command({'cmd': 'ls'}, cwd='/tmp')"
    assert str(error) == (
        "Scripted sandbox session matcher rejected exec_command call #1. Call #1 (call_index=0) "
        "was: exec_command({'cmd': 'ls'}, cwd='/tmp'). Fix the step's match function, or the "
        "code under test that made the call."
    )
    assert isinstance(error.__cause__, AssertionError)


async def test_awaiting_a_call_twice_says_it_cannot_be_reused() -> None:
    session = scripted_sandbox_session([{"method": "stop", "result": None}])
    pending = session.stop()
    await pending

    with pytest.raises(RuntimeError) as info:
        await pending
    assert str(info.value) == "cannot reuse an already awaited scripted sandbox call"


class ToolBox:
    """An interface class with data attributes next to its methods."""

    version = "1.0"
    limits: dict[str, int] = {}  # noqa: RUF012 - a plain class attribute on purpose

    def exec(self, cmd: str) -> str:
        return cmd

    async def read(self, path: str) -> str:
        return path


def test_an_interface_class_contributes_its_methods_only() -> None:
    session = scripted_sandbox_session([{"method": "read", "result": "x"}], interface=ToolBox)

    with pytest.raises(ValueError, match="'version' is not a method"):
        session.invoke("version")
    with pytest.raises(InvalidScriptedSandboxStepError) as info:
        scripted_sandbox_session([{"method": "limits", "result": None}], interface=ToolBox)
    assert info.value.reason == "unknown_method"
    with pytest.raises(ValueError) as known:  # noqa: PT011 - the listed methods are the point
        session.invoke("missing")
    assert str(known.value).endswith("known methods: exec, read")


def test_an_interface_of_the_wrong_kind_says_what_is_accepted() -> None:
    with pytest.raises(TypeError) as info:
        scripted_sandbox_session([], interface=["exec"])  # type: ignore[arg-type]

    assert str(info.value) == (
        "interface must be None, a class, or a mapping of method names to 'sync' or "
        "'async'; got list"
    )


def test_a_result_too_deep_to_record_names_the_step_it_belongs_to() -> None:
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]

    with pytest.raises(ValueError, match=r"^step #2 result is nested \d+ levels deep"):
        scripted_sandbox_session(
            [{"method": "start", "result": None}, {"method": "exec", "result": deep}]
        )


def finished_calls() -> list[tuple[str, Any]]:
    """Return one call finished each way a coroutine can finish: returned, raised, closed."""
    session = scripted_sandbox_session(
        [
            {"method": "stop", "result": "stopped"},
            {"method": "stop", "error": KeyError("failed")},
            {"method": "stop", "result": "closed"},
        ]
    )
    returned, raised, closed = session.stop(), session.stop(), session.stop()
    with pytest.raises(StopIteration):
        returned.send(None)
    with pytest.raises(KeyError):
        raised.send(None)
    closed.close()
    return [("returned", returned), ("raised", raised), ("closed", closed)]


def test_sending_into_a_finished_call_says_it_cannot_be_reused() -> None:
    # Like a finished coroutine (RuntimeError on Python 3.10 to 3.13), not like a finished
    # generator, whose StopIteration a driver would read as a second result.
    for how, pending in finished_calls():
        with pytest.raises(RuntimeError) as info:
            pending.send(None)
        assert str(info.value) == "cannot reuse an already awaited scripted sandbox call", how


def test_throwing_into_a_finished_call_says_it_cannot_be_reused() -> None:
    for how, pending in finished_calls():
        with pytest.raises(RuntimeError) as info:
            pending.throw(KeyError("thrown in"))
        assert str(info.value) == "cannot reuse an already awaited scripted sandbox call", how
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with pytest.raises(RuntimeError, match="already awaited"):
                pending.throw(KeyError, KeyError("thrown in"), None)


def test_closing_a_finished_call_again_does_nothing() -> None:
    for _how, pending in finished_calls():
        pending.close()
        pending.close()
