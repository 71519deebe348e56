"""Regression tests for the crash sites and lifecycle defects of issue 12, one per item."""

from __future__ import annotations

import asyncio
import inspect
import re
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agents_testing import (
    InvalidScriptedModelStepError,
    ModelRequest,
    ModelResponse,
    RetryAdviceRequest,
    ScriptedModel,
    ScriptedModelRequestAbortedError,
    ScriptedRealtimeTransport,
    Usage,
    model_error,
    model_responder,
    model_stream,
    scripted_sandbox_session,
)

# Deeper than any recursion limit a test run uses, so a recursive copy must fail.
DEEP = sys.getrecursionlimit() * 2


def nested_lists(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def nested_dicts(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


class AbortAfter:
    """A signal whose ``aborted`` turns true after ``checks`` reads."""

    def __init__(self, checks: int) -> None:
        self.checks = checks
        self.reads = 0

    @property
    def aborted(self) -> bool:
        self.reads += 1
        return self.reads > self.checks


# -- 1. requests are validated where they enter; a failure after the step is a violation ---


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        pytest.param({"model_settings": None}, "model_settings must be a mapping", id="settings"),
        pytest.param({"model_settings": [1]}, "model_settings must be a mapping", id="list"),
        pytest.param({"input": 5}, "input must be a str or a list", id="input"),
        pytest.param({"tools": 5}, "tools must be a sequence", id="tools"),
        pytest.param({"handoffs": "ab"}, "handoffs must be a sequence", id="handoffs"),
        pytest.param({"extra": []}, "extra must be a mapping", id="extra"),
        pytest.param(
            {"system_instructions": 1}, "system_instructions must be a str or None", id="system"
        ),
    ],
)
async def test_a_malformed_request_is_refused_before_it_takes_a_step(
    fields: dict[str, Any], named: str
) -> None:
    model = ScriptedModel([ModelResponse(output=[], usage=Usage())])
    with pytest.raises(TypeError, match=named) as info:
        await model.get_response(ModelRequest(**{"input": "hi", **fields}))
    assert "build the request with the field types ModelRequest declares" in str(info.value)
    with pytest.raises(TypeError, match=named):
        model.stream_response(ModelRequest(**{"input": "hi", **fields}))
    assert model.calls == ()
    assert model.remaining_steps == 1


class SettingsThatFail(dict[str, Any]):
    def get(self, key: str, default: Any = None) -> Any:
        raise AttributeError("settings backend went away")


async def test_a_failure_after_the_step_was_taken_is_kept_for_assert_complete() -> None:
    model = ScriptedModel([ModelResponse(output=[], usage=Usage())])
    request = ModelRequest(input="hi", model_settings=SettingsThatFail())
    with pytest.raises(InvalidScriptedModelStepError) as info:
        await model.get_response(request)
    assert (info.value.reason, info.value.call_index) == ("invalid_response", 0)
    assert isinstance(info.value.__cause__, AttributeError)
    with pytest.raises(InvalidScriptedModelStepError) as again:
        model.assert_complete()
    assert (again.value.reason, again.value.call_index) == ("invalid_response", 0)


# -- 2. get_retry_advice arguments ------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "named"),
    [
        pytest.param("error", "expects a RetryAdviceRequest, got str", id="not-a-query"),
        pytest.param(None, "expects a RetryAdviceRequest, got NoneType", id="none"),
        pytest.param(
            RetryAdviceRequest(error=ValueError(), stream=False, attempt=1, request="hi"),  # type: ignore[arg-type]
            "RetryAdviceRequest.request to be a ModelRequest or None, got str",
            id="request",
        ),
        pytest.param(
            RetryAdviceRequest(error="boom", stream=False, attempt=1),  # type: ignore[arg-type]
            "RetryAdviceRequest.error to be an exception, got str",
            id="error",
        ),
        pytest.param(
            RetryAdviceRequest(error=ValueError(), stream=None, attempt=1),  # type: ignore[arg-type]
            "RetryAdviceRequest.stream to be a bool, got NoneType",
            id="stream",
        ),
    ],
)
async def test_retry_advice_refuses_a_malformed_query(query: Any, named: str) -> None:
    error = ValueError("boom")
    model = ScriptedModel([model_error(error, retry_advice=lambda query: None)])
    with pytest.raises(ValueError, match="boom"):
        await model.get_response(ModelRequest(input="hi"))
    with pytest.raises(TypeError, match=named):
        model.get_retry_advice(query)


# -- 3. Usage fields ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        pytest.param({"input_tokens": "3"}, "Usage.input_tokens must be an int, got str", id="str"),
        pytest.param({"requests": None}, "Usage.requests must be an int, got NoneType", id="none"),
        pytest.param({"output_tokens": True}, "Usage.output_tokens must be an int", id="bool"),
        pytest.param(
            {"total_tokens": 1.5}, "Usage.total_tokens must be an int or None", id="total"
        ),
        pytest.param(
            {"input_tokens_details": 5},
            "Usage.input_tokens_details must be a mapping, a list of mappings or None, got int",
            id="details",
        ),
        pytest.param(
            {"output_tokens_details": [1]},
            r"Usage.output_tokens_details\[0\] must be a mapping, got int",
            id="details-entry",
        ),
        pytest.param(
            {"request_usage_entries": [5]},
            r"Usage.request_usage_entries\[0\] must be a mapping, got int",
            id="entry",
        ),
        pytest.param(
            {"request_usage_entries": [{"input_tokens": "2"}]},
            r"Usage.request_usage_entries\[0\]\['input_tokens'\] must be an int or None",
            id="entry-count",
        ),
        pytest.param(
            {"request_usage_entries": [{"input_tokens_details": 3}]},
            r"request_usage_entries\[0\]\['input_tokens_details'\] must be a mapping or None",
            id="entry-details",
        ),
        pytest.param(
            {"request_usage_entries": 7},
            "Usage.request_usage_entries must be a list of mappings or None, got int",
            id="entries",
        ),
    ],
)
def test_usage_refuses_wrong_typed_fields_when_built(fields: dict[str, Any], named: str) -> None:
    with pytest.raises(TypeError, match=named):
        Usage(**fields)


def edited_usage() -> Usage:
    usage = Usage()
    usage.request_usage_entries = [5]  # type: ignore[list-item]
    return usage


@pytest.mark.parametrize("streamed", [False, True], ids=["get_response", "stream_response"])
async def test_a_usage_edited_after_it_was_built_is_an_invalid_response(streamed: bool) -> None:
    model = ScriptedModel(
        [model_responder(lambda call: ModelResponse(output=[], usage=edited_usage()))]
    )
    request = ModelRequest(input="hi")

    async def call() -> None:
        if streamed:
            [event async for event in model.stream_response(request)]
        else:
            await model.get_response(request)

    with pytest.raises(InvalidScriptedModelStepError) as info:
        await call()
    assert (info.value.reason, info.value.call_index) == ("invalid_response", 0)
    with pytest.raises(InvalidScriptedModelStepError) as again:
        model.assert_complete()
    assert (again.value.reason, again.value.call_index) == ("invalid_response", 0)


def test_a_scripted_usage_edited_after_it_was_built_is_refused_when_scripted() -> None:
    with pytest.raises(InvalidScriptedModelStepError) as info:
        ScriptedModel([ModelResponse(output=[], usage=edited_usage())])
    assert (info.value.reason, info.value.input_index) == ("invalid_response", 0)


# -- 4. deeply nested values ---------------------------------------------------------------


def assert_names_the_path(error: BaseException, name: str) -> None:
    message = str(error)
    assert re.match(
        rf"{re.escape(name)} is nested \d{{4}} levels deep \(down to {re.escape(name)}\[", message
    ), message
    assert "flatten the data" in message


@pytest.mark.parametrize("nested", [nested_lists, nested_dicts], ids=["lists", "dicts"])
async def test_a_deep_request_is_refused_with_its_path(nested: Any) -> None:
    model = ScriptedModel([[], []])
    with pytest.raises(ValueError, match="too deep to record") as info:
        await model.get_response(ModelRequest(input=[nested(DEEP)]))
    assert_names_the_path(info.value, "request.input")
    assert model.calls == ()
    # A later call's record shares parts with the one before it: that path is guarded too.
    await model.get_response(ModelRequest(input=[{"a": 1}]))
    with pytest.raises(ValueError, match="too deep to record") as info:
        await model.get_response(ModelRequest(input=[{"a": 1}, nested(DEEP)]))
    assert_names_the_path(info.value, "request.input")
    assert len(model.calls) == 1
    assert model.remaining_steps == 1


def test_a_deep_script_is_refused_with_its_path() -> None:
    with pytest.raises(ValueError, match="too deep to record") as info:
        ScriptedModel([[{"type": "message", "content": nested_lists(DEEP)}]])
    assert "nested" in str(info.value)
    with pytest.raises(ValueError, match="too deep to record"):
        scripted_sandbox_session([{"method": "exec", "result": nested_dicts(DEEP)}])


def test_deep_sandbox_arguments_are_refused_with_their_path() -> None:
    session = scripted_sandbox_session([{"method": "supports_pty", "result": True}])
    with pytest.raises(ValueError, match="too deep to record") as info:
        session.supports_pty(nested_lists(DEEP - 1))
    assert_names_the_path(info.value, "supports_pty() args")
    with pytest.raises(ValueError, match="too deep to record") as info:
        session.supports_pty(options=nested_dicts(DEEP - 1))
    assert_names_the_path(info.value, "supports_pty() kwargs")
    assert session.remaining_steps == 1


def test_deep_realtime_events_are_refused_with_their_path() -> None:
    transport = ScriptedRealtimeTransport()
    with pytest.raises(ValueError, match="too deep to record") as info:
        transport.send_event(nested_dicts(DEEP))
    assert_names_the_path(info.value, "send_event() event")
    assert transport.calls == ()


def test_a_shallow_structure_wide_enough_to_be_slow_is_copied() -> None:
    # The path search only runs after a RecursionError; wide data never gets there.
    session = scripted_sandbox_session([{"method": "supports_pty", "result": True}])
    wide = [[n] for n in range(10_000)]
    session.supports_pty(wide)
    assert session.calls[0].args == (wide,)


# -- 6. run_scenario timeout ---------------------------------------------------------------


@pytest.mark.parametrize(
    "timeout",
    [10**400, "1", 1j, -1, float("nan"), float("inf"), True],
    ids=["huge-int", "str", "complex", "negative", "nan", "inf", "bool"],
)
async def test_run_scenario_refuses_a_timeout_that_is_not_a_finite_number(timeout: Any) -> None:
    transport = ScriptedRealtimeTransport()
    with pytest.raises(ValueError, match=r"run_scenario\(\) timeout must be a finite") as info:
        await transport.run_scenario(
            scenario=lambda ctx: None, exercise=lambda: None, timeout=timeout
        )
    assert "or None (no timeout)" in str(info.value)


async def test_run_scenario_accepts_a_zero_or_fractional_timeout() -> None:
    transport = ScriptedRealtimeTransport()
    for timeout in (0.5, 30, 10**6):
        assert (
            await transport.run_scenario(
                scenario=lambda ctx: None, exercise=lambda: "done", timeout=timeout
            )
            == "done"
        )


# -- 7. event and method names -------------------------------------------------------------


@pytest.mark.parametrize("api", ["on", "once", "off"])
def test_listener_apis_refuse_an_event_name_that_is_not_a_string(api: str) -> None:
    transport = ScriptedRealtimeTransport()
    with pytest.raises(TypeError, match=rf"\.{api}\(\) event must be an event name \(str\)"):
        getattr(transport, api)(["connection_change"], lambda *args: None)


def test_emit_refuses_an_event_name_that_is_not_a_string() -> None:
    transport = ScriptedRealtimeTransport()
    with pytest.raises(
        TypeError, match=r"\.emit\(\) event must be an event name \(str\), got dict"
    ):
        transport.emit({}, 1)  # type: ignore[arg-type]


def test_invoke_refuses_a_method_name_that_is_not_a_string() -> None:
    session = scripted_sandbox_session([{"method": "exec", "result": 1}])
    with pytest.raises(TypeError, match=r"invoke\(\) method must be the method's name as a str"):
        session.invoke(["exec"])  # type: ignore[arg-type]
    assert session.calls == ()


@pytest.mark.parametrize("steps", [5, {"method": "exec", "result": 1}], ids=["int", "mapping"])
def test_a_sandbox_script_that_is_not_a_list_of_steps_says_how_to_fix_it(steps: Any) -> None:
    with pytest.raises(TypeError) as info:
        scripted_sandbox_session(steps)
    assert str(info.value) == (
        "ScriptedSandboxSession steps must be an iterable of steps, "
        f"got {type(steps).__name__}; wrap a single step in a list."
    )


# -- 8. a signal that raises while it is polled ---------------------------------------------


class RaisingSignal:
    """Reads fine until ``broken`` is set, then raises."""

    broken = False

    @property
    def aborted(self) -> bool:
        if self.broken:
            raise RuntimeError("signal backend failed")
        return False


async def test_a_signal_that_raises_while_polled_ends_the_run_with_its_error() -> None:
    transport = ScriptedRealtimeTransport()
    loop_errors: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: loop_errors.append(ctx))
    signal = RaisingSignal()

    async def exercise() -> None:
        signal.broken = True
        await asyncio.Event().wait()  # only the signal can end this run

    run = transport.run_scenario(scenario=lambda ctx: None, exercise=exercise, signal=signal)
    # The bound only keeps a regression from hanging the suite; the run ends in one poll.
    with pytest.raises(RuntimeError, match="signal backend failed"):
        await asyncio.wait_for(run, 30)
    assert loop_errors == []


# -- 9. closing a model stream before its first read ----------------------------------------


class ClosableSource:
    """A scripted event source that records whether it was closed."""

    def __init__(self) -> None:
        self.closed = False


class AsyncSource(ClosableSource, AsyncIterator[Any]):
    def __aiter__(self) -> AsyncSource:
        return self

    async def __anext__(self) -> Any:
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self.closed = True


class SyncSource(ClosableSource, Iterator[Any]):
    def __next__(self) -> Any:
        raise StopIteration

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("make_source", [AsyncSource, SyncSource], ids=["async", "sync"])
async def test_aclose_before_the_first_read_closes_the_scripted_source(make_source: Any) -> None:
    source = make_source()
    model = ScriptedModel([model_stream(source)])
    stream = model.stream_response(ModelRequest(input="hi"))
    await stream.aclose()
    assert source.closed
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()


@pytest.mark.parametrize("make_source", [AsyncSource, SyncSource], ids=["async", "sync"])
async def test_an_abort_seen_on_the_first_read_closes_the_scripted_source(
    make_source: Any,
) -> None:
    source = make_source()
    model = ScriptedModel([model_stream(source)])
    stream = model.stream_response(ModelRequest(input="hi", signal=AbortAfter(1)))
    with pytest.raises(ScriptedModelRequestAbortedError) as info:
        await stream.__anext__()
    assert info.value.call_index == 0
    assert source.closed


async def test_an_abort_after_a_stream_responder_closes_the_source_it_returned() -> None:
    source = AsyncSource()
    signal = AbortAfter(2)  # the call and the first read pass; the check after the responder fires
    from agents_testing import model_stream_responder

    model = ScriptedModel([model_stream_responder(lambda call: source)])
    with pytest.raises(ScriptedModelRequestAbortedError):
        [event async for event in model.stream_response(ModelRequest(input="hi", signal=signal))]
    assert source.closed


# -- 10. cancelling a sandbox call with an async responder before it starts ------------------


async def test_cancelling_an_async_responder_call_before_it_starts_closes_its_coroutine() -> None:
    made: list[Any] = []

    async def respond_later(call: Any) -> str:
        return "never"

    def respond(call: Any) -> Any:
        made.append(respond_later(call))
        return made[-1]

    session = scripted_sandbox_session([{"method": "exec", "respond": respond}])
    task = asyncio.ensure_future(session.exec("pwd"))
    task.cancel()
    outcome = (await asyncio.gather(task, return_exceptions=True))[0]
    assert isinstance(outcome, asyncio.CancelledError)
    # Closed when the cancellation was thrown in, not left for the garbage collector (which
    # may finalize the coroutine first and warn that it was never awaited).
    assert inspect.getcoroutinestate(made[0]) == inspect.CORO_CLOSED
    session.assert_complete()


# -- 11. cancelling run_scenario's caller in the turn the run finishes -----------------------


async def test_cancelling_the_caller_as_the_run_finishes_logs_nothing() -> None:
    loop_errors: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: loop_errors.append(ctx))
    transport = ScriptedRealtimeTransport()
    caller: asyncio.Task[Any] | None = None

    def exercise() -> str:
        assert caller is not None
        # Runs in the next loop turn before the exercise's done-callback decides the outcome:
        # the caller is cancelled in the very turn the run finishes.
        asyncio.get_running_loop().call_soon(caller.cancel)
        return "done"

    caller = asyncio.ensure_future(
        transport.run_scenario(scenario=lambda ctx: None, exercise=exercise)
    )
    with pytest.raises(asyncio.CancelledError):
        await caller
    for _ in range(3):
        await asyncio.sleep(0)
    assert loop_errors == []
