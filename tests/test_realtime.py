"""ScriptedRealtimeTransport: recording, lifecycle, events, expectations and failures."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import inspect
import pickle
import threading
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

from agents_testing.errors import (
    IncompleteRealtimeScenarioError,
    RealtimeCallMatcherError,
    RealtimeEventLoopError,
    RealtimeTransportNotClosedError,
    ScriptedRealtimeConnectionSupersededError,
    ScriptedRealtimeScenarioCancelledError,
    UnexpectedRealtimeCallError,
)
from agents_testing.realtime import (
    AddImageCall,
    CloseCall,
    ConnectCall,
    InterruptCall,
    MuteCall,
    RealtimeScenarioContext,
    RealtimeStatus,
    RealtimeTransportCall,
    RequestResponseCall,
    ResetHistoryCall,
    ScriptedRealtimeTransport,
    SendAudioCall,
    SendEventCall,
    SendFunctionCallOutputCall,
    SendMcpResponseCall,
    SendMessageCall,
    UpdateSessionConfigCall,
)

SECRET = "sk-live-do-not-store-0123456789"
VALID_METHODS = (
    "connect, send_event, request_response, send_message, add_image, send_audio, "
    "update_session_config, close, mute, send_function_call_output, interrupt, "
    "reset_history, send_mcp_response"
)


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


def connected_transport(status: RealtimeStatus = "connected") -> ScriptedRealtimeTransport:
    """Return a transport already in ``status`` (connected by default), with no calls."""
    transport = ScriptedRealtimeTransport()
    transport.status = status
    return transport


def status_events(transport: ScriptedRealtimeTransport) -> list[str]:
    """Record every connection_change the transport emits, in order."""
    seen: list[str] = []
    transport.on("connection_change", seen.append)
    return seen


def methods(transport: ScriptedRealtimeTransport) -> list[str]:
    return [call.method for call in transport.calls]


async def raised_by(awaitable: Any) -> BaseException:
    """Await and return what the awaitable raised."""
    with pytest.raises(BaseException) as info:  # noqa: PT011 - the caller checks the type
        await awaitable
    return info.value


# -- recording ---------------------------------------------------------------------------


def test_new_transport_is_disconnected_unmuted_and_empty() -> None:
    transport = ScriptedRealtimeTransport()

    assert transport.status == "disconnected"
    assert transport.muted is False
    assert transport.calls == ()
    transport.assert_complete()
    transport.assert_closed()


RECORDED_CALLS: list[Any] = [
    pytest.param(
        lambda t: t.connect(
            {
                "api_key": "k",
                "model": "gpt-realtime",
                "url": "wss://example.test",
                "call_id": "call_1",
                "initial_session_config": {"voice": "alloy"},
                "headers": {"x": "dropped"},
            }
        ),
        ConnectCall(
            index=0,
            options={
                "model": "gpt-realtime",
                "url": "wss://example.test",
                "call_id": "call_1",
                "initial_session_config": {"voice": "alloy"},
                "api_key_provided": True,
            },
        ),
        id="connect",
    ),
    pytest.param(
        lambda t: t.send_event({"type": "response.cancel"}),
        SendEventCall(index=0, event={"type": "response.cancel"}),
        id="send_event",
    ),
    pytest.param(
        lambda t: t.request_response(),
        RequestResponseCall(index=0, response=None),
        id="request_response",
    ),
    pytest.param(
        lambda t: t.send_message("Hi", {"metadata": 1}, trigger_response=False),
        SendMessageCall(
            index=0, message="Hi", other_event_data={"metadata": 1}, trigger_response=False
        ),
        id="send_message",
    ),
    pytest.param(
        lambda t: t.add_image("data:image/png;base64,AA==", trigger_response=True),
        AddImageCall(index=0, image="data:image/png;base64,AA==", trigger_response=True),
        id="add_image",
    ),
    pytest.param(
        lambda t: t.send_audio(b"\x01\x02", commit=True),
        SendAudioCall(index=0, audio=b"\x01\x02", commit=True),
        id="send_audio",
    ),
    pytest.param(
        lambda t: t.update_session_config({"voice": "verse"}),
        UpdateSessionConfigCall(index=0, config={"voice": "verse"}),
        id="update_session_config",
    ),
    pytest.param(lambda t: t.close(), CloseCall(index=0), id="close"),
    pytest.param(lambda t: t.mute(True), MuteCall(index=0, muted=True), id="mute"),
    pytest.param(
        lambda t: t.send_function_call_output({"call_id": "call_1"}, "done", True),
        SendFunctionCallOutputCall(
            index=0, tool_call={"call_id": "call_1"}, output="done", start_response=True
        ),
        id="send_function_call_output",
    ),
    pytest.param(lambda t: t.interrupt(), InterruptCall(index=0), id="interrupt"),
    pytest.param(
        lambda t: t.reset_history([{"id": "a"}], []),
        ResetHistoryCall(index=0, old_history=[{"id": "a"}], new_history=[]),
        id="reset_history",
    ),
    pytest.param(
        lambda t: t.send_mcp_response({"id": "approval_1"}, False, "not allowed"),
        SendMcpResponseCall(
            index=0, approval_request={"id": "approval_1"}, approved=False, reason="not allowed"
        ),
        id="send_mcp_response",
    ),
]


@pytest.mark.parametrize(("call", "expected"), RECORDED_CALLS)
def test_each_method_records_its_fields(
    call: Callable[[ScriptedRealtimeTransport], object], expected: RealtimeTransportCall
) -> None:
    transport = connected_transport()

    call(transport)

    assert transport.calls == (expected,)


def test_optional_fields_are_recorded_as_none() -> None:
    transport = ScriptedRealtimeTransport()

    transport.send_message("Hi")
    transport.add_image("img")
    transport.send_audio(b"")
    transport.send_mcp_response({"id": "a"}, True)

    assert transport.calls == (
        SendMessageCall(index=0, message="Hi", other_event_data=None, trigger_response=None),
        AddImageCall(index=1, image="img", trigger_response=None),
        SendAudioCall(index=2, audio=b"", commit=None),
        SendMcpResponseCall(index=3, approval_request={"id": "a"}, approved=True, reason=None),
    )


def test_calls_share_one_index_sequence_across_methods() -> None:
    transport = ScriptedRealtimeTransport()

    transport.send_event({"type": "a"})
    transport.interrupt()
    transport.mute(False)

    assert [(call.index, call.method) for call in transport.calls] == [
        (0, "send_event"),
        (1, "interrupt"),
        (2, "mute"),
    ]


def test_recorded_calls_are_frozen() -> None:
    transport = ScriptedRealtimeTransport()
    transport.send_event({"type": "a"})
    call = transport.calls[0]

    with pytest.raises(dataclasses.FrozenInstanceError):
        call.index = 5  # type: ignore[misc]


def test_every_read_of_a_field_gives_a_fresh_detached_copy() -> None:
    transport = ScriptedRealtimeTransport()
    transport.send_event({"type": "a", "items": [1]})

    first = transport.calls[0]
    assert isinstance(first, SendEventCall)
    event = first.event
    event["items"].append(2)

    second = transport.calls[0]
    assert second is first  # one record per call, built when the call is made
    assert isinstance(second, SendEventCall)
    assert second.event is not event
    assert second == SendEventCall(index=0, event={"type": "a", "items": [1]})
    assert transport.calls is not transport.calls


def test_arguments_are_copied_when_the_call_is_made() -> None:
    transport = ScriptedRealtimeTransport()
    event: dict[str, Any] = {"type": "a", "items": [1]}
    audio = bytearray(b"\x01")

    transport.send_event(event)
    transport.send_audio(audio)
    event["items"].append(2)
    audio[0] = 9

    assert transport.calls == (
        SendEventCall(index=0, event={"type": "a", "items": [1]}),
        SendAudioCall(index=1, audio=bytearray(b"\x01"), commit=None),
    )


def test_class_instances_inside_arguments_keep_their_identity() -> None:
    transport = ScriptedRealtimeTransport()
    marker = threading.Event()

    transport.send_event({"type": "a", "signal": marker})

    call = transport.calls[0]
    assert isinstance(call, SendEventCall)
    assert call.event["signal"] is marker


def test_data_shared_inside_a_field_stays_shared_in_each_read() -> None:
    transport = ScriptedRealtimeTransport()
    item = {"id": "item_1"}

    transport.reset_history([item, item], [item])

    call = transport.calls[0]
    assert isinstance(call, ResetHistoryCall)
    old_history = call.old_history
    assert old_history[0] is old_history[1]
    assert old_history[0] is not item
    # Each field read is its own snapshot: the two fields do not hand out one object.
    assert call.new_history[0] is not old_history[0]
    assert call.new_history == [{"id": "item_1"}]


def test_outbound_methods_are_recorded_while_disconnected() -> None:
    transport = ScriptedRealtimeTransport()

    transport.send_event({"type": "a"})

    assert transport.status == "disconnected"
    assert methods(transport) == ["send_event"]


def test_close_while_disconnected_records_and_emits_nothing() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)

    transport.close()

    assert transport.calls == ()
    assert events == []


# -- the API key -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "provided"),
    [
        pytest.param({"api_key": "k"}, True, id="given"),
        pytest.param({"api_key": ""}, True, id="empty-string"),
        pytest.param({"api_key": None}, False, id="none"),
        pytest.param({}, False, id="missing"),
    ],
)
async def test_api_key_provided_means_present_and_not_none(
    options: dict[str, Any], provided: bool
) -> None:
    transport = ScriptedRealtimeTransport()

    await transport.connect(options)

    call = transport.calls[0]
    assert isinstance(call, ConnectCall)
    assert call.options["api_key_provided"] is provided
    assert "api_key" not in call.options


async def test_api_key_never_appears_in_calls_repr_state_or_errors() -> None:
    transport = ScriptedRealtimeTransport()
    options = {"api_key": SECRET, "model": "gpt-realtime"}
    mismatch = transport.expect_call("close")
    mismatch_error = await raised_by(transport.connect(options))
    assert await raised_by(mismatch) is mismatch_error
    failure = ConnectionError("refused")
    transport.fail_next_call("connect", failure)
    failed = await raised_by(transport.connect(options))
    await transport.connect(options)
    with pytest.raises(UnexpectedRealtimeCallError) as strict:
        transport.assert_complete()

    texts = [
        repr(transport),
        repr(transport.calls),
        repr(vars(transport)),
        repr(pickle.dumps(transport.calls)),
        str(mismatch_error),
        repr(mismatch_error),
        str(strict.value),
        repr(failed),
    ]
    assert failed is failure
    assert all(SECRET not in text for text in texts)


async def test_connect_errors_do_not_keep_the_api_key_in_library_frames() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("connect", ConnectionError("refused"))

    error = await raised_by(transport.connect({"api_key": SECRET}))

    library_locals = [
        repr(frame.f_locals)
        for frame, _ in _walk_tb(error.__traceback__)
        if frame.f_code.co_filename.endswith("realtime.py")
    ]
    assert library_locals
    assert all(SECRET not in text for text in library_locals)


def _walk_tb(tb: Any) -> Iterator[Any]:
    while tb is not None:
        yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


# -- connect, close and the status lifecycle ---------------------------------------------


def test_connect_finishes_before_it_returns() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)

    result = transport.connect({})

    assert transport.status == "connected"
    assert events == ["connecting", "connected"]
    assert methods(transport) == ["connect"]
    assert inspect.isawaitable(result)


def test_connect_result_can_be_dropped_without_warnings() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("connect", ConnectionError("refused"))

    transport.connect({})
    transport.connect({})
    gc.collect()

    assert transport.status == "connected"


async def test_connect_result_can_be_awaited_through_asyncio_helpers() -> None:
    transport = ScriptedRealtimeTransport()

    await asyncio.wait_for(transport.connect({}), timeout=1)
    await asyncio.gather(transport.connect({}))

    assert methods(transport) == ["connect", "connect"]


async def test_connect_while_connected_runs_the_whole_sequence_again() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)

    await transport.connect({})
    await transport.connect({})

    assert events == ["connecting", "connected", "connecting", "connected"]
    assert methods(transport) == ["connect", "connect"]


async def test_failed_connect_ends_disconnected_and_emits_only_disconnected() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    failure = ConnectionError("refused")
    transport.fail_next_call("connect", failure)

    error = await raised_by(transport.connect({}))

    assert error is failure
    assert transport.status == "disconnected"
    assert events == ["disconnected"]
    assert methods(transport) == ["connect"]


async def test_failed_connect_from_connected_ends_disconnected() -> None:
    transport = ScriptedRealtimeTransport()
    await transport.connect({})
    transport.fail_next_call("connect", ConnectionError("refused"))

    await raised_by(transport.connect({}))

    assert transport.status == "disconnected"


async def test_connect_with_non_mapping_options_fails_without_recording() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)

    error = await raised_by(transport.connect(None))  # type: ignore[arg-type]

    assert isinstance(error, TypeError)
    assert str(error) == (
        "ScriptedRealtimeTransport.connect() options must be a mapping, got NoneType."
    )
    assert transport.calls == ()
    assert transport.status == "disconnected"
    assert events == ["disconnected"]


def test_close_from_connected_emits_disconnected() -> None:
    transport = connected_transport()
    events = status_events(transport)

    transport.close()

    assert transport.status == "disconnected"
    assert events == ["disconnected"]
    assert methods(transport) == ["close"]


async def test_failed_close_from_established_connection_stays_connected_silently() -> None:
    transport = ScriptedRealtimeTransport()
    await transport.connect({})
    events = status_events(transport)
    failure = ConnectionError("close failed")
    transport.fail_next_call("close", failure)

    with pytest.raises(ConnectionError) as info:
        transport.close()

    assert info.value is failure
    assert transport.status == "connected"
    assert events == []
    assert methods(transport) == ["connect", "close"]


def test_close_from_connecting_records_close_and_disconnects() -> None:
    transport = connected_transport("connecting")
    events = status_events(transport)

    transport.close()

    assert transport.status == "disconnected"
    assert events == ["disconnected"]
    assert methods(transport) == ["close"]


def test_failed_close_from_connecting_ends_disconnected_with_event() -> None:
    transport = connected_transport("connecting")
    events = status_events(transport)
    transport.fail_next_call("close", ConnectionError("close failed"))

    with pytest.raises(ConnectionError):
        transport.close()

    assert transport.status == "disconnected"
    assert events == ["disconnected"]


def test_close_listener_error_propagates_after_status_is_disconnected() -> None:
    transport = connected_transport()
    failure = RuntimeError("listener broke")

    def broken(status: str) -> None:
        raise failure

    transport.on("connection_change", broken)

    with pytest.raises(RuntimeError) as info:
        transport.close()

    assert info.value is failure
    assert transport.status == "disconnected"


def test_status_is_a_plain_attribute_that_assert_closed_reports() -> None:
    transport = ScriptedRealtimeTransport()
    transport.status = "disconnecting"

    with pytest.raises(RealtimeTransportNotClosedError) as info:
        transport.assert_closed()

    assert info.value.status == "disconnecting"
    assert str(info.value) == (
        "ScriptedRealtimeTransport is not closed; current status is disconnecting."
    )


async def test_assert_closed_fails_while_connected() -> None:
    transport = ScriptedRealtimeTransport()
    await transport.connect({})

    with pytest.raises(RealtimeTransportNotClosedError) as info:
        transport.assert_closed()

    assert info.value.status == "connected"


# -- supersession ------------------------------------------------------------------------


def when_status(
    transport: ScriptedRealtimeTransport, status: str, action: Callable[[], object]
) -> None:
    """Run ``action`` once, inside the connection_change listener for ``status``."""

    def listener(new_status: str) -> None:
        if new_status == status:
            transport.off("connection_change", listener)
            action()

    transport.on("connection_change", listener)


@pytest.mark.parametrize(
    ("arrange", "expected_events", "expected_calls"),
    [
        pytest.param(
            lambda t: when_status(t, "connecting", t.close),
            ["connecting", "disconnected"],
            ["connect", "close"],
            id="close-in-connecting-listener",
        ),
        pytest.param(
            lambda t: when_status(t, "connected", t.close),
            ["connecting", "connected", "disconnected"],
            ["connect", "close"],
            id="close-in-connected-listener",
        ),
        pytest.param(
            lambda t: when_status(t, "connecting", t.disconnect),
            ["connecting", "disconnected"],
            ["connect"],
            id="disconnect-in-connecting-listener",
        ),
        pytest.param(
            lambda t: when_status(t, "connected", t.disconnect),
            ["connecting", "connected", "disconnected"],
            ["connect"],
            id="disconnect-in-connected-listener",
        ),
        pytest.param(
            lambda t: t.expect_call("connect", lambda call: t.close()),
            ["disconnected"],
            ["connect", "close"],
            id="close-in-connect-matcher",
        ),
        pytest.param(
            lambda t: t.expect_call("connect", lambda call: t.disconnect()),
            ["disconnected"],
            ["connect"],
            id="disconnect-in-connect-matcher",
        ),
    ],
)
async def test_reentrant_lifecycle_operation_supersedes_connect(
    arrange: Callable[[ScriptedRealtimeTransport], object],
    expected_events: list[str],
    expected_calls: list[str],
) -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    arrange(transport)

    error = await raised_by(transport.connect({}))

    assert isinstance(error, ScriptedRealtimeConnectionSupersededError)
    assert error.operation == "connect"
    assert str(error) == (
        "ScriptedRealtimeTransport connection attempt was superseded by another lifecycle "
        "operation."
    )
    assert transport.status == "disconnected"
    assert events == expected_events
    assert methods(transport) == expected_calls


async def test_nested_connect_in_connecting_listener_supersedes_the_outer_one() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    inner: list[Any] = []
    transport.once("connection_change", lambda status: inner.append(transport.connect({})))

    outer_error = await raised_by(transport.connect({}))

    await inner[0]
    assert isinstance(outer_error, ScriptedRealtimeConnectionSupersededError)
    assert transport.status == "connected"
    assert events == ["connecting", "connecting", "connected"]
    assert methods(transport) == ["connect", "connect"]


async def test_failing_close_in_connected_listener_becomes_the_connect_error() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    failure = ConnectionError("close failed")
    transport.fail_next_call("close", failure)
    when_status(transport, "connected", transport.close)

    error = await raised_by(transport.connect({}))

    assert error is failure
    assert transport.status == "disconnected"
    assert events == ["connecting", "connected", "disconnected"]


@pytest.mark.parametrize(
    ("failing_status", "expected_events"),
    [
        ("connecting", ["connecting", "disconnected"]),
        ("connected", ["connecting", "connected", "disconnected"]),
    ],
)
async def test_connection_change_listener_error_fails_connect(
    failing_status: str, expected_events: list[str]
) -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    failure = RuntimeError("listener broke")

    def broken() -> None:
        raise failure

    when_status(transport, failing_status, broken)

    error = await raised_by(transport.connect({}))

    assert error is failure
    assert transport.status == "disconnected"
    assert events == expected_events


async def test_disconnect_inside_close_matcher_decides_the_status() -> None:
    transport = connected_transport()
    events = status_events(transport)
    closed = transport.expect_call("close", lambda call: transport.disconnect())

    transport.close()

    assert (await closed).method == "close"
    assert transport.status == "disconnected"
    assert events == ["disconnected"]


# -- disconnect --------------------------------------------------------------------------


def test_disconnect_emits_disconnected_then_the_error_event() -> None:
    transport = connected_transport()
    seen: list[tuple[str, Any]] = []
    transport.on("connection_change", lambda status: seen.append(("connection_change", status)))
    transport.on("error", lambda event: seen.append(("error", event)))
    failure = ConnectionResetError("remote closed")

    transport.disconnect(failure)

    assert transport.status == "disconnected"
    assert seen == [
        ("connection_change", "disconnected"),
        ("error", {"type": "error", "error": failure}),
    ]
    assert seen[1][1]["error"] is failure


async def test_disconnect_records_nothing_and_keeps_expectations_and_failures() -> None:
    transport = connected_transport()
    pending = transport.expect_call("close")
    transport.fail_next_call("mute", RuntimeError("x"))

    transport.disconnect()

    assert transport.calls == ()
    assert not pending.done()
    assert "pending_expectations=1 pending_failures=1" in repr(transport)
    pending.cancel()


def test_disconnect_error_event_fires_even_when_already_disconnected() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    errors: list[Any] = []
    transport.on("error", errors.append)
    failure = ConnectionResetError("late")

    transport.disconnect(failure)

    assert events == []
    assert errors == [{"type": "error", "error": failure}]


def test_disconnect_without_error_while_disconnected_does_nothing() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    errors: list[Any] = []
    transport.on("error", errors.append)

    transport.disconnect()

    assert (events, errors) == ([], [])


def test_disconnect_runs_both_emits_and_raises_the_first_listener_error() -> None:
    transport = connected_transport()
    first = RuntimeError("status listener")
    second = RuntimeError("error listener")

    def on_status(status: str) -> None:
        raise first

    def on_error(event: Any) -> None:
        raise second

    transport.on("connection_change", on_status)
    transport.on("error", on_error)

    with pytest.raises(RuntimeError) as info:
        transport.disconnect(ConnectionResetError())

    assert info.value is first
    assert transport.status == "disconnected"


def test_disconnect_raises_the_error_listener_error_when_it_is_the_only_one() -> None:
    transport = connected_transport()
    failure = RuntimeError("error listener")

    def on_error(event: Any) -> None:
        raise failure

    transport.on("error", on_error)

    with pytest.raises(RuntimeError) as info:
        transport.disconnect(ConnectionResetError())

    assert info.value is failure


def test_disconnect_refuses_a_non_exception_error() -> None:
    transport = connected_transport()

    with pytest.raises(TypeError) as info:
        transport.disconnect("gone")  # type: ignore[arg-type]

    assert str(info.value) == (
        "ScriptedRealtimeTransport.disconnect() needs an exception instance or None, got str."
    )
    assert transport.status == "connected"


# -- mute --------------------------------------------------------------------------------


def test_mute_sets_muted_verbatim() -> None:
    transport = ScriptedRealtimeTransport()

    transport.mute(True)

    assert transport.muted is True


def test_failed_mute_leaves_muted_unchanged() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("mute", RuntimeError("mute failed"))

    with pytest.raises(RuntimeError):
        transport.mute(True)

    assert transport.muted is False
    assert methods(transport) == ["mute"]


async def test_lifecycle_operations_leave_muted_alone() -> None:
    transport = ScriptedRealtimeTransport()
    transport.mute(True)

    await transport.connect({})
    transport.close()
    transport.disconnect()

    assert transport.muted is True


# -- events ------------------------------------------------------------------------------


def test_emit_without_listeners_returns_false_even_for_error() -> None:
    transport = ScriptedRealtimeTransport()

    assert transport.emit("error", {"type": "error", "error": RuntimeError()}) is False
    assert transport.emit("function_call") is False


def test_emit_passes_arguments_by_reference_and_returns_true() -> None:
    transport = ScriptedRealtimeTransport()
    received: list[tuple[Any, ...]] = []
    payload = {"type": "item_update"}
    transport.on("item_update", lambda *args: received.append(args))

    assert transport.emit("item_update", payload, 2) is True
    assert received == [(payload, 2)]
    assert received[0][0] is payload


def test_a_listener_registered_twice_is_called_twice() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.on("x", seen.append).on("x", seen.append)

    transport.emit("x", "a")

    assert seen == ["a", "a"]


def test_once_listener_is_removed_before_it_runs_even_if_it_raises() -> None:
    transport = ScriptedRealtimeTransport()
    calls: list[int] = []

    def explode() -> None:
        calls.append(1)
        raise RuntimeError("boom")

    transport.once("x", explode)

    with pytest.raises(RuntimeError):
        transport.emit("x")

    assert transport.emit("x") is False
    assert calls == [1]


def test_off_removes_the_most_recent_registration() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.on("x", seen.append)
    transport.once("x", seen.append)

    transport.off("x", seen.append)
    transport.emit("x", "first")
    transport.emit("x", "second")

    assert seen == ["first", "second"]


def test_off_accepts_a_bound_method_looked_up_again() -> None:
    class Session:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def handle(self, status: str) -> None:
            self.seen.append(status)

    transport = ScriptedRealtimeTransport()
    session = Session()
    transport.on("connection_change", session.handle)

    transport.off("connection_change", session.handle)

    assert transport.emit("connection_change", "connected") is False


def test_off_ignores_unknown_events_and_listeners_and_chains() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    transport.on("x", seen.append)

    assert transport.off("y", seen.append) is transport
    assert transport.off("x", print) is transport
    transport.emit("x", "still here")

    assert seen == ["still here"]


def test_listener_added_during_emit_waits_for_the_next_emit() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []

    def add_another(value: str) -> None:
        seen.append(f"first:{value}")
        transport.on("x", lambda value: seen.append(f"late:{value}"))

    transport.once("x", add_another)

    transport.emit("x", "1")
    transport.emit("x", "2")

    assert seen == ["first:1", "late:2"]


def test_listener_removed_during_emit_still_runs_in_that_emit() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []

    def second(value: str) -> None:
        seen.append(f"second:{value}")

    transport.on("x", lambda value: transport.off("x", second))
    transport.on("x", second)

    transport.emit("x", "1")
    transport.emit("x", "2")

    assert seen == ["second:1"]


def test_raising_listener_stops_the_emit_and_propagates() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    failure = RuntimeError("listener broke")

    def broken(value: str) -> None:
        raise failure

    transport.on("x", broken)
    transport.on("x", seen.append)

    with pytest.raises(RuntimeError) as info:
        transport.emit("x", "1")

    assert info.value is failure
    assert seen == []


def test_emit_has_no_wildcard_fan_out() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[Any] = []
    transport.on("*", seen.append)

    transport.emit("function_call", {"type": "function_call"})

    assert seen == []


async def _async_handler(*args: Any) -> None:
    """Stand in for an async event handler."""


class _AsyncCallable:
    async def __call__(self, *args: Any) -> None:
        """Stand in for an object whose __call__ is a coroutine function."""


@pytest.mark.parametrize("register", ["on", "once"])
@pytest.mark.parametrize(
    "listener", [_async_handler, _AsyncCallable()], ids=["function", "callable-object"]
)
def test_async_listener_is_refused_with_a_bridging_hint(register: str, listener: Any) -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(TypeError) as info:
        getattr(transport, register)("x", listener)

    assert str(info.value) == (
        "ScriptedRealtimeTransport delivers events synchronously, so listeners must be "
        f"synchronous; {listener!r} is a coroutine function. Bridge async code with a sync "
        "listener that schedules it, e.g. "
        "transport.on(event, lambda *args: asyncio.ensure_future(handler(*args))) "
        "or loop.create_task(handler(*args))."
    )
    assert transport.emit("x") is False


def test_non_callable_listener_is_refused() -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(TypeError) as info:
        transport.on("x", "not callable")  # type: ignore[arg-type]

    assert str(info.value) == "ScriptedRealtimeTransport listeners must be callable, got str."


def test_listener_returning_a_coroutine_is_an_error_and_the_coroutine_is_closed() -> None:
    transport = ScriptedRealtimeTransport()
    transport.on("x", lambda: _async_handler())

    with pytest.raises(TypeError) as info:
        transport.emit("x")

    assert str(info.value) == (
        "A ScriptedRealtimeTransport listener for 'x' returned a coroutine; listeners run "
        "synchronously, so schedule async work yourself, e.g. "
        "lambda *args: asyncio.ensure_future(handler(*args))."
    )
    gc.collect()  # an unclosed coroutine would warn here, and warnings are errors


async def test_bridged_async_handler_runs_after_the_emit() -> None:
    transport = ScriptedRealtimeTransport()
    seen: list[str] = []
    tasks: list[asyncio.Future[None]] = []

    async def handler(value: str) -> None:
        seen.append(value)

    transport.on("x", lambda value: tasks.append(asyncio.ensure_future(handler(value))))

    transport.emit("x", "later")
    assert seen == []
    await asyncio.gather(*tasks)

    assert seen == ["later"]


# -- expect_call -------------------------------------------------------------------------


async def test_expectation_resolves_with_a_detached_copy_of_the_call() -> None:
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("send_event")

    transport.send_event({"type": "a", "items": [1]})
    call = await expected

    assert call == SendEventCall(index=0, event={"type": "a", "items": [1]})
    call.event["items"].append(2)
    assert transport.calls[0] == SendEventCall(index=0, event={"type": "a", "items": [1]})


async def test_transport_method_returns_before_the_expectation_wakes_anyone() -> None:
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("interrupt")
    order: list[str] = []

    async def waiter() -> None:
        await expected
        order.append("expectation")

    task = asyncio.ensure_future(waiter())
    await asyncio.sleep(0)
    transport.interrupt()
    order.append("returned")
    await task

    assert order == ["returned", "expectation"]


async def test_call_made_before_its_expectation_is_kept_for_it() -> None:
    transport = ScriptedRealtimeTransport()
    transport.interrupt()

    expected = transport.expect_call("interrupt")

    assert expected.done()
    assert (await expected).index == 0
    transport.assert_complete()


async def test_expectations_and_calls_pair_up_in_one_global_order() -> None:
    transport = ScriptedRealtimeTransport()
    first = transport.expect_call("send_event")
    transport.send_event({"type": "a"})
    transport.interrupt()
    transport.mute(True)
    second = transport.expect_call("interrupt")
    third = transport.expect_call("mute")

    assert [(await f).index for f in (first, second, third)] == [0, 1, 2]
    transport.assert_complete()


async def test_unclaimed_calls_and_pending_expectations_are_listed() -> None:
    transport = ScriptedRealtimeTransport()
    satisfied = transport.expect_call("send_event")
    transport.send_event({"type": "a"})
    transport.expect_call("send_message")
    transport.expect_call("close")
    await satisfied

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        transport.assert_complete()

    assert info.value.pending_expectations == (
        {"order": 2, "method": "send_message"},
        {"order": 3, "method": "close"},
    )
    assert info.value.unconsumed_calls == ()
    assert info.value.pending_failures == ()
    assert str(info.value).startswith(
        "ScriptedRealtimeTransport scenario is incomplete: 0 unconsumed calls, "
        "2 pending expectations (#2 send_message, #3 close), and 0 pending failures."
    )


def test_unclaimed_call_is_listed_by_index_and_method() -> None:
    transport = ScriptedRealtimeTransport()
    transport.send_event({"type": "a"})

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        transport.assert_complete()

    assert info.value.unconsumed_calls == ({"index": 0, "method": "send_event"},)
    assert str(info.value).startswith(
        "ScriptedRealtimeTransport scenario is incomplete: 1 unconsumed call, "
        "0 pending expectations, and 0 pending failures."
    )


async def test_live_mismatch_raises_from_the_method_and_fails_the_expectation() -> None:
    transport = ScriptedRealtimeTransport()
    transport.interrupt()
    await transport.expect_call("interrupt")
    expected = transport.expect_call("send_event")

    with pytest.raises(UnexpectedRealtimeCallError) as info:
        transport.interrupt()

    error = info.value
    assert (error.call_index, error.expected_method, error.actual_method) == (
        1,
        "send_event",
        "interrupt",
    )
    assert str(error).startswith(
        "ScriptedRealtimeTransport expected send_event but received interrupt call #2."
    )
    assert await raised_by(expected) is error


async def test_mismatched_call_and_expectation_are_both_used_up() -> None:
    transport = ScriptedRealtimeTransport()
    transport.expect_call("send_event")

    with pytest.raises(UnexpectedRealtimeCallError):
        transport.interrupt()
    later = transport.expect_call("mute")
    transport.mute(True)

    assert (await later).index == 1
    assert methods(transport) == ["interrupt", "mute"]
    assert "unconsumed_calls=0 pending_expectations=0" in repr(transport)


async def test_live_mismatch_the_caller_handled_is_not_logged_as_unretrieved() -> None:
    with captured_loop_errors() as seen:
        transport = ScriptedRealtimeTransport()
        expected = transport.expect_call("send_event")
        with contextlib.suppress(UnexpectedRealtimeCallError):
            transport.interrupt()
        del expected, transport

    assert seen == []


async def test_buffered_mismatch_fails_the_future_without_raising() -> None:
    transport = ScriptedRealtimeTransport()
    transport.interrupt()

    expected = transport.expect_call("close")

    error = await raised_by(expected)
    assert isinstance(error, UnexpectedRealtimeCallError)
    assert (error.call_index, error.expected_method, error.actual_method) == (
        0,
        "close",
        "interrupt",
    )
    assert "unconsumed_calls=0" in repr(transport)


async def test_unawaited_buffered_mismatch_is_reported_by_asyncio() -> None:
    with captured_loop_errors() as seen:
        transport = ScriptedRealtimeTransport()
        transport.interrupt()
        transport.expect_call("close")
        del transport

    assert [context["message"] for context in seen] == ["Future exception was never retrieved"]


async def test_matcher_returning_false_rejects_the_call() -> None:
    transport = ScriptedRealtimeTransport()
    transport.send_event({"type": "a"})
    await transport.expect_call("send_event")
    expected = transport.expect_call("send_message", lambda call: call.message == "Hello")

    with pytest.raises(RealtimeCallMatcherError) as info:
        transport.send_message("Goodbye")

    assert (info.value.call_index, info.value.actual_method) == (1, "send_message")
    assert str(info.value).startswith(
        "ScriptedRealtimeTransport matcher rejected send_message call #2."
    )
    assert await raised_by(expected) is info.value


@pytest.mark.parametrize("verdict", [None, True, 0, "", [], "no"])
async def test_matcher_rejects_only_with_exactly_false(verdict: object) -> None:
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("interrupt", lambda call: verdict)

    transport.interrupt()

    assert (await expected).method == "interrupt"


async def test_matcher_exception_propagates_unchanged_and_fails_the_expectation() -> None:
    transport = ScriptedRealtimeTransport()
    failure = AssertionError("message should be Hello")

    def matcher(call: SendMessageCall) -> None:
        raise failure

    expected = transport.expect_call("send_message", matcher)

    with pytest.raises(AssertionError) as info:
        transport.send_message("Goodbye")

    assert info.value is failure
    assert await raised_by(expected) is failure
    assert methods(transport) == ["send_message"]


async def test_matcher_gets_a_copy_it_may_change_freely() -> None:
    transport = ScriptedRealtimeTransport()

    def matcher(call: SendEventCall) -> None:
        call.event["type"] = "changed"  # type: ignore[index]

    expected = transport.expect_call("send_event", matcher)
    transport.send_event({"type": "a"})

    assert (await expected).event == {"type": "a"}
    assert transport.calls[0] == SendEventCall(index=0, event={"type": "a"})


async def test_matcher_must_be_callable() -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(TypeError) as info:
        transport.expect_call("close", "close")  # type: ignore[call-overload]

    assert str(info.value) == (
        "ScriptedRealtimeTransport.expect_call() matcher must be callable or None, got str."
    )


@pytest.mark.parametrize(
    ("api", "args"), [("expect_call", ("bogus",)), ("fail_next_call", ("bogus", RuntimeError()))]
)
async def test_unknown_method_name_is_refused_with_the_valid_names(
    api: str, args: tuple[Any, ...]
) -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(ValueError, match="unknown method") as info:
        getattr(transport, api)(*args)

    assert str(info.value) == (
        f"ScriptedRealtimeTransport.{api}() got unknown method 'bogus'; "
        f"valid methods are: {VALID_METHODS}."
    )


async def test_camel_case_method_name_gets_a_snake_case_hint() -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(ValueError, match="unknown method") as info:
        transport.expect_call("sendFunctionCallOutput")  # type: ignore[call-overload]

    assert str(info.value) == (
        "ScriptedRealtimeTransport.expect_call() got unknown method 'sendFunctionCallOutput' "
        "(did you mean 'send_function_call_output'?); "
        f"valid methods are: {VALID_METHODS}."
    )


def test_expect_call_needs_a_running_event_loop() -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(RealtimeEventLoopError) as info:
        transport.expect_call("connect")

    assert isinstance(info.value, RuntimeError)
    assert (info.value.operation, info.value.running_library) == ("expect_call", None)
    assert str(info.value).startswith(
        "ScriptedRealtimeTransport.expect_call() needs a running asyncio event loop, but it "
        "was called outside any event loop (running_library=None)."
    )
    assert "asyncio.run(main())" in str(info.value)


async def test_cancelled_expectation_is_withdrawn() -> None:
    transport = ScriptedRealtimeTransport()
    abandoned = transport.expect_call("close")

    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(abandoned, timeout=0)
    transport.interrupt()
    expected = transport.expect_call("interrupt")

    assert (await expected).index == 0
    transport.assert_complete()


def _finish_by_hand(future: asyncio.Future[Any], how: str) -> None:
    if how == "cancel":
        future.cancel()
    elif how == "set_exception":
        future.set_exception(ConnectionError("settled by the test"))
        future.exception()  # retrieved: the test settled it on purpose
    else:
        future.set_result(None)


@pytest.mark.parametrize("how", ["cancel", "set_exception", "set_result"])
async def test_an_expectation_finished_by_hand_takes_no_call(how: str) -> None:
    # A future that is done can deliver nothing: its expectation is withdrawn as a cancelled
    # one is, so the call stays unconsumed where assert_complete() reports it.
    transport = ScriptedRealtimeTransport()
    withdrawn = transport.expect_call("interrupt")
    _finish_by_hand(withdrawn, how)

    assert "unconsumed_calls=0 pending_expectations=0" in repr(transport)
    transport.interrupt()

    assert "unconsumed_calls=1 pending_expectations=0" in repr(transport)
    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        transport.assert_complete()
    assert info.value.unconsumed_calls == ({"index": 0, "method": "interrupt"},)
    assert info.value.pending_expectations == ()
    assert "Unconsumed: call #1 (call_index=0) interrupt; expect them with expect_call(...)." in (
        str(info.value)
    )
    # The kept call goes to the next expectation.
    assert (await transport.expect_call("interrupt")).index == 0
    transport.assert_complete()


@pytest.mark.parametrize("how", ["cancel", "set_exception", "set_result"])
async def test_a_call_skips_an_expectation_finished_by_hand_for_the_next_one(how: str) -> None:
    transport = ScriptedRealtimeTransport()
    withdrawn = transport.expect_call("close")  # a mismatch, were it still pending
    _finish_by_hand(withdrawn, how)
    expected = transport.expect_call("send_event")

    transport.send_event({"type": "ping"})

    assert (await expected).event == {"type": "ping"}
    transport.assert_complete()


@pytest.mark.parametrize("how", ["cancel", "set_exception", "set_result"])
async def test_a_scenario_expectation_finished_by_hand_leaves_the_call_unconsumed(
    how: str,
) -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        _finish_by_hand(ctx.expect_call("interrupt"), how)

    async def exercise() -> None:
        await asyncio.sleep(0)  # the scenario has withdrawn its expectation by now
        transport.interrupt()

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    assert info.value.unconsumed_calls == ({"index": 0, "method": "interrupt"},)
    assert info.value.pending_expectations == ()
    assert "expect them with expect_call(...)" in str(info.value)


async def test_connect_mismatch_is_raised_by_its_awaitable_and_the_expectation() -> None:
    transport = ScriptedRealtimeTransport()
    events = status_events(transport)
    expected = transport.expect_call("send_message")

    error = await raised_by(transport.connect({}))

    assert isinstance(error, UnexpectedRealtimeCallError)
    assert (error.expected_method, error.actual_method) == ("send_message", "connect")
    assert await raised_by(expected) is error
    assert transport.status == "disconnected"
    assert events == ["disconnected"]


async def test_connect_mismatch_awaited_by_the_caller_is_not_logged() -> None:
    with captured_loop_errors() as seen:
        transport = ScriptedRealtimeTransport()
        expected = transport.expect_call("close")
        with contextlib.suppress(UnexpectedRealtimeCallError):
            await transport.connect({})
        del expected, transport

    assert seen == []


async def test_connect_mismatch_nobody_sees_is_reported_by_asyncio() -> None:
    with captured_loop_errors() as seen:
        transport = ScriptedRealtimeTransport()
        transport.expect_call("close")
        transport.connect({})
        del transport

    assert [context["message"] for context in seen] == ["Future exception was never retrieved"]


# -- fail_next_call ----------------------------------------------------------------------


async def test_failed_call_is_recorded_and_satisfies_its_expectation_first() -> None:
    transport = ScriptedRealtimeTransport()
    failure = RuntimeError("send failed")
    transport.fail_next_call("send_event", failure)
    expected = transport.expect_call("send_event")

    with pytest.raises(RuntimeError) as info:
        transport.send_event({"type": "a"})

    assert info.value is failure
    assert expected.done()
    assert (await expected).event == {"type": "a"}
    transport.assert_complete()


def test_failures_for_one_method_are_used_in_order() -> None:
    transport = ScriptedRealtimeTransport()
    first, second = RuntimeError("first"), RuntimeError("second")
    transport.fail_next_call("interrupt", first)
    transport.fail_next_call("interrupt", second)

    raised = []
    for _ in range(2):
        with pytest.raises(RuntimeError) as info:
            transport.interrupt()
        raised.append(info.value)
    transport.interrupt()

    assert raised == [first, second]
    assert methods(transport) == ["interrupt", "interrupt", "interrupt"]


def test_failures_only_apply_to_their_own_method() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("mute", RuntimeError("mute failed"))

    transport.interrupt()

    assert "pending_failures=1" in repr(transport)


async def test_mismatch_wins_over_a_scripted_failure_which_is_then_lost() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("interrupt", RuntimeError("scripted"))
    transport.expect_call("close")

    with pytest.raises(UnexpectedRealtimeCallError):
        transport.interrupt()

    assert "pending_failures=0" in repr(transport)


def test_close_while_disconnected_leaves_its_failure_pending() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("close", RuntimeError("close failed"))

    transport.close()

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        transport.assert_complete()
    assert info.value.pending_failures == ({"method": "close", "count": 1},)


def test_pending_failures_are_counted_per_method_in_insertion_order() -> None:
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("mute", RuntimeError())
    transport.fail_next_call("interrupt", RuntimeError())
    transport.fail_next_call("interrupt", RuntimeError())
    with pytest.raises(RuntimeError):
        transport.mute(True)
    transport.fail_next_call("mute", RuntimeError())

    with pytest.raises(IncompleteRealtimeScenarioError) as info:
        transport.assert_complete()

    assert info.value.pending_failures == (
        {"method": "interrupt", "count": 2},
        {"method": "mute", "count": 1},
    )
    assert str(info.value).startswith(
        "ScriptedRealtimeTransport scenario is incomplete: 1 unconsumed call, "
        "0 pending expectations, and 3 pending failures."
    )


def test_fail_next_call_refuses_a_non_exception() -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(TypeError) as info:
        transport.fail_next_call("connect", "boom")  # type: ignore[arg-type]

    assert str(info.value) == (
        "ScriptedRealtimeTransport.fail_next_call() needs an exception instance, got str."
    )
    assert "pending_failures=0" in repr(transport)


def test_fail_next_call_refuses_an_exception_class() -> None:
    transport = ScriptedRealtimeTransport()

    with pytest.raises(TypeError, match="needs an exception instance, got type"):
        transport.fail_next_call("connect", RuntimeError)  # type: ignore[arg-type]


# -- assert_complete and strictness ------------------------------------------------------


async def test_assert_complete_raises_a_caught_mismatch_again() -> None:
    transport = ScriptedRealtimeTransport()
    transport.expect_call("send_event")
    with pytest.raises(UnexpectedRealtimeCallError) as caught:
        transport.interrupt()

    with pytest.raises(UnexpectedRealtimeCallError) as info:
        transport.assert_complete()

    assert info.value is not caught.value
    assert (info.value.call_index, info.value.expected_method, info.value.actual_method) == (
        0,
        "send_event",
        "interrupt",
    )
    assert str(info.value) == str(caught.value)


async def test_assert_complete_reports_a_matcher_assertion_the_code_swallowed() -> None:
    transport = ScriptedRealtimeTransport()

    def expect_hello(call: SendMessageCall) -> None:
        assert call.message == "Hello"

    expected = transport.expect_call("send_message", expect_hello)
    with pytest.raises(AssertionError):  # the code under test swallows this
        transport.send_message("Goodbye")
    with pytest.raises(AssertionError):
        await expected

    with pytest.raises(RealtimeCallMatcherError) as info:
        transport.assert_complete()

    assert (info.value.call_index, info.value.actual_method) == (0, "send_message")
    summary = "send_message(message='Goodbye', other_event_data=None, trigger_response=None)"
    assert info.value.call_summary == summary
    assert str(info.value) == (
        f"ScriptedRealtimeTransport matcher rejected send_message call #1. Call #1 "
        f"(call_index=0) was: {summary}. Fix the expectation's matcher, or the code under test "
        "that made the call."
    )
    rejection = info.value.__cause__
    assert isinstance(rejection, RealtimeCallMatcherError)
    assert isinstance(rejection.__cause__, AssertionError)


async def test_assert_complete_reports_the_first_violation_before_leftovers() -> None:
    transport = ScriptedRealtimeTransport()
    transport.expect_call("interrupt", lambda call: False)
    with pytest.raises(RealtimeCallMatcherError):
        transport.interrupt()
    transport.expect_call("send_event")
    with pytest.raises(UnexpectedRealtimeCallError):
        transport.mute(True)
    transport.close()
    transport.send_event({"type": "left over"})

    with pytest.raises(RealtimeCallMatcherError) as info:
        transport.assert_complete()

    assert (info.value.call_index, info.value.actual_method) == (0, "interrupt")


async def test_assert_complete_changes_nothing() -> None:
    transport = ScriptedRealtimeTransport()
    transport.interrupt()

    for _ in range(2):
        with pytest.raises(IncompleteRealtimeScenarioError):
            transport.assert_complete()

    await transport.expect_call("interrupt")
    transport.assert_complete()


# -- errors and repr ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        UnexpectedRealtimeCallError(1, "send_event", "interrupt"),
        RealtimeCallMatcherError(2, "send_message"),
        IncompleteRealtimeScenarioError(
            [{"index": 0, "method": "mute"}],
            [{"order": 2, "method": "close"}],
            [{"method": "interrupt", "count": 2}],
        ),
        ScriptedRealtimeScenarioCancelledError([{"order": 1, "method": "connect"}]),
        RealtimeTransportNotClosedError("connected"),
        ScriptedRealtimeConnectionSupersededError("connect"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_realtime_errors_pickle_with_their_fields(error: BaseException) -> None:
    copy = pickle.loads(pickle.dumps(error))

    assert type(copy) is type(error)
    assert vars(copy) == vars(error)
    assert str(copy) == str(error)


def test_cancelled_error_is_named_abort_error_and_lists_pending_expectations() -> None:
    error = ScriptedRealtimeScenarioCancelledError(
        [{"order": 1, "method": "connect"}, {"order": 2, "method": "close"}]
    )

    assert error.name == "AbortError"
    assert str(error) == (
        "ScriptedRealtimeTransport scenario was cancelled with pending expectations: "
        "#1 connect, #2 close."
    )
    assert str(ScriptedRealtimeScenarioCancelledError()) == (
        "ScriptedRealtimeTransport scenario was cancelled."
    )


async def test_repr_shows_status_muted_and_counts() -> None:
    transport = ScriptedRealtimeTransport()
    await transport.connect({"api_key": SECRET})
    transport.mute(True)
    pending = transport.expect_call("connect")
    transport.fail_next_call("close", RuntimeError())

    assert repr(transport) == (
        "<ScriptedRealtimeTransport status='connected' muted=True calls=2 unconsumed_calls=1 "
        "pending_expectations=0 pending_failures=1>"
    )
    assert (await pending).method == "connect"


# -- diagnostics: call summaries ---------------------------------------------------------


async def test_unexpected_call_says_what_the_call_sent() -> None:
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("send_event")

    with pytest.raises(UnexpectedRealtimeCallError) as info:
        transport.send_message("Hello there", trigger_response=True)

    error = info.value
    assert error.call_summary == (
        "send_message(message='Hello there', other_event_data=None, trigger_response=True)"
    )
    assert str(error) == (
        "ScriptedRealtimeTransport expected send_event but received send_message call #1. "
        f"Call #1 (call_index=0) was: {error.call_summary}. Expect it first with "
        'expect_call("send_message"), or find why the code under test called send_message '
        "instead of send_event."
    )
    assert await raised_by(expected) is error


async def test_matcher_rejection_says_what_the_call_sent() -> None:
    transport = ScriptedRealtimeTransport()
    expected = transport.expect_call("mute", lambda call: call.muted is False)

    with pytest.raises(RealtimeCallMatcherError) as info:
        transport.mute(True)

    assert info.value.call_summary == "mute(muted=True)"
    assert "Call #1 (call_index=0) was: mute(muted=True). Fix the expectation's matcher" in str(
        info.value
    )
    assert await raised_by(expected) is info.value
    with pytest.raises(RealtimeCallMatcherError) as again:
        transport.assert_complete()
    assert again.value.call_summary == "mute(muted=True)"
