"""Scripted realtime transport: record outbound calls, emit inbound events, run scenarios.

``ScriptedRealtimeTransport`` stands in for a realtime transport layer. Every outbound method
call is recorded as a frozen call record; ``expect_call`` matches recorded calls in one global
order; ``emit`` delivers inbound events synchronously; ``run_scenario`` runs the scripted
server side and the code under test together and decides when the run is over.

Expectation futures: a future rejected by a live call is marked retrieved once the same error
has been raised to the caller of the transport method (for ``connect``: once the awaitable
raises it), and futures rejected when ``run_scenario`` ends are marked retrieved because the run
raises the same error. A future rejected by a buffered call at ``expect_call`` time is left
alone, so asyncio reports it if nobody awaits it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import math
import re
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypedDict, TypeVar, get_args, overload

from . import _describe
from ._completion import CompletionContext
from ._records import detach_on_read
from ._signals import AbortSignal, is_aborted
from ._snapshot import snapshot
from .errors import (
    IncompleteRealtimeScenarioError,
    RealtimeCallMatcherError,
    RealtimeEventLoopError,
    RealtimeThreadError,
    RealtimeTransportNotClosedError,
    ScriptedRealtimeConnectionSupersededError,
    ScriptedRealtimeScenarioCancelledError,
    UnexpectedRealtimeCallError,
)

__all__ = [
    "AddImageCall",
    "CloseCall",
    "ConnectCall",
    "InterruptCall",
    "MuteCall",
    "RealtimeConnectOptions",
    "RealtimeErrorEvent",
    "RealtimeScenarioContext",
    "RealtimeStatus",
    "RealtimeTransportCall",
    "RealtimeTransportMethod",
    "RecordedConnectOptions",
    "RequestResponseCall",
    "ResetHistoryCall",
    "ScriptedRealtimeTransport",
    "SendAudioCall",
    "SendEventCall",
    "SendFunctionCallOutputCall",
    "SendMcpResponseCall",
    "SendMessageCall",
    "UpdateSessionConfigCall",
]

RealtimeStatus = Literal["disconnected", "connecting", "connected", "disconnecting"]

RealtimeTransportMethod = Literal[
    "connect",
    "send_event",
    "request_response",
    "send_message",
    "add_image",
    "send_audio",
    "update_session_config",
    "close",
    "mute",
    "send_function_call_output",
    "interrupt",
    "reset_history",
    "send_mcp_response",
]

_METHODS: tuple[str, ...] = get_args(RealtimeTransportMethod)

# A signal that is not an asyncio.Event cannot notify us, so a run polls it at this interval
# while it is active.
_SIGNAL_POLL_INTERVAL = 0.01

_T = TypeVar("_T")
_TransportT = TypeVar("_TransportT", bound="ScriptedRealtimeTransport")


class RealtimeConnectOptions(TypedDict, total=False):
    """The keys ``connect`` reads from its options; any other key is ignored."""

    api_key: Any
    model: Any
    url: Any
    call_id: Any
    initial_session_config: Any


class RecordedConnectOptions(TypedDict):
    """The options a ``connect`` call is recorded with; the API key itself is never kept.

    ``api_key_provided`` is True when the ``api_key`` key is present and not ``None``.
    """

    model: Any
    url: Any
    call_id: Any
    initial_session_config: Any
    api_key_provided: bool


class RealtimeErrorEvent(TypedDict):
    """The payload of the ``error`` event that ``disconnect(error)`` emits."""

    type: Literal["error"]
    error: BaseException


# -- recorded calls ----------------------------------------------------------------------


@dataclass(frozen=True)
class _RecordedCall:
    """A recorded call: a frozen dataclass built once, when the call is made.

    The transport hands out that same record on every read. Every field but ``index`` and
    ``method`` is detached on each read: every access returns a new copy of the data.
    """

    index: int


@dataclass(frozen=True)
class ConnectCall(_RecordedCall):
    """A recorded ``connect(options)`` call."""

    method: Literal["connect"] = field(default="connect", init=False)
    options: RecordedConnectOptions


@dataclass(frozen=True)
class SendEventCall(_RecordedCall):
    """A recorded ``send_event(event)`` call."""

    method: Literal["send_event"] = field(default="send_event", init=False)
    event: Mapping[str, Any]


@dataclass(frozen=True)
class RequestResponseCall(_RecordedCall):
    """A recorded ``request_response(response)`` call."""

    method: Literal["request_response"] = field(default="request_response", init=False)
    response: Mapping[str, Any] | None


@dataclass(frozen=True)
class SendMessageCall(_RecordedCall):
    """A recorded ``send_message(message, other_event_data, trigger_response=...)`` call."""

    method: Literal["send_message"] = field(default="send_message", init=False)
    message: str | Mapping[str, Any]
    other_event_data: Mapping[str, Any] | None
    trigger_response: bool | None


@dataclass(frozen=True)
class AddImageCall(_RecordedCall):
    """A recorded ``add_image(image, trigger_response=...)`` call."""

    method: Literal["add_image"] = field(default="add_image", init=False)
    image: str
    trigger_response: bool | None


@dataclass(frozen=True)
class SendAudioCall(_RecordedCall):
    """A recorded ``send_audio(audio, commit=...)`` call."""

    method: Literal["send_audio"] = field(default="send_audio", init=False)
    audio: bytes | bytearray | memoryview
    commit: bool | None


@dataclass(frozen=True)
class UpdateSessionConfigCall(_RecordedCall):
    """A recorded ``update_session_config(config)`` call."""

    method: Literal["update_session_config"] = field(default="update_session_config", init=False)
    config: Mapping[str, Any]


@dataclass(frozen=True)
class CloseCall(_RecordedCall):
    """A recorded ``close()`` call (only made while not disconnected)."""

    method: Literal["close"] = field(default="close", init=False)


@dataclass(frozen=True)
class MuteCall(_RecordedCall):
    """A recorded ``mute(muted)`` call."""

    method: Literal["mute"] = field(default="mute", init=False)
    muted: bool


@dataclass(frozen=True)
class SendFunctionCallOutputCall(_RecordedCall):
    """A recorded ``send_function_call_output(tool_call, output, start_response)`` call."""

    method: Literal["send_function_call_output"] = field(
        default="send_function_call_output", init=False
    )
    tool_call: Mapping[str, Any]
    output: str
    start_response: bool


@dataclass(frozen=True)
class InterruptCall(_RecordedCall):
    """A recorded ``interrupt()`` call."""

    method: Literal["interrupt"] = field(default="interrupt", init=False)


@dataclass(frozen=True)
class ResetHistoryCall(_RecordedCall):
    """A recorded ``reset_history(old_history, new_history)`` call."""

    method: Literal["reset_history"] = field(default="reset_history", init=False)
    old_history: Sequence[Mapping[str, Any]]
    new_history: Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class SendMcpResponseCall(_RecordedCall):
    """A recorded ``send_mcp_response(approval_request, approved, reason)`` call."""

    method: Literal["send_mcp_response"] = field(default="send_mcp_response", init=False)
    approval_request: Mapping[str, Any]
    approved: bool
    reason: str | None


RealtimeTransportCall: TypeAlias = (
    ConnectCall
    | SendEventCall
    | RequestResponseCall
    | SendMessageCall
    | AddImageCall
    | SendAudioCall
    | UpdateSessionConfigCall
    | CloseCall
    | MuteCall
    | SendFunctionCallOutputCall
    | InterruptCall
    | ResetHistoryCall
    | SendMcpResponseCall
)

for _record_type in get_args(RealtimeTransportCall):
    # Every field but ``index`` and ``method`` is data: a fresh copy on each read.
    detach_on_read(
        _record_type,
        [
            item.name
            for item in dataclasses.fields(_record_type)
            if item.init and item.name != "index"
        ],
    )


# -- helpers -----------------------------------------------------------------------------


def _summary(record: RealtimeTransportCall) -> str:
    """Describe a recorded call by its method and arguments, shortened."""
    arguments = {
        item.name: getattr(record, item.name)
        for item in dataclasses.fields(record)
        if item.init and item.name != "index"
    }
    return _describe.call(record.method, (), arguments)


def _recorded_connect_options(options: Mapping[str, Any]) -> RecordedConnectOptions:
    if not isinstance(options, Mapping):
        raise TypeError(
            "ScriptedRealtimeTransport.connect() options must be a mapping, got "
            f"{type(options).__name__}."
        )
    recorded: RecordedConnectOptions = {
        "model": options.get("model"),
        "url": options.get("url"),
        "call_id": options.get("call_id"),
        "initial_session_config": options.get("initial_session_config"),
        # "Provided" means present and not None; the value itself is never kept.
        "api_key_provided": options.get("api_key") is not None,
    }
    return snapshot(recorded, "connect() options")


def _camel_to_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _check_method(api: str, method: object) -> None:
    if isinstance(method, str) and method in _METHODS:
        return
    hint = ""
    if isinstance(method, str) and _camel_to_snake(method) in _METHODS:
        hint = f" (did you mean {_camel_to_snake(method)!r}?)"
    raise ValueError(
        f"ScriptedRealtimeTransport.{api}() got unknown method {_describe.value(method)}{hint}; "
        f"valid methods are: {', '.join(_METHODS)}."
    )


def _check_listener(listener: object) -> None:
    if not callable(listener):
        raise TypeError(
            f"ScriptedRealtimeTransport listeners must be callable, got {type(listener).__name__}."
        )
    call = getattr(listener, "__call__", None)  # noqa: B004 - the object's own __call__
    if inspect.iscoroutinefunction(listener) or inspect.iscoroutinefunction(call):
        raise TypeError(
            "ScriptedRealtimeTransport delivers events synchronously, so listeners must be "
            f"synchronous; {listener!r} is a coroutine function. Bridge async code with a sync "
            "listener that schedules it, e.g. "
            "transport.on(event, lambda *args: asyncio.ensure_future(handler(*args))) "
            "or loop.create_task(handler(*args))."
        )


def _running_loop(operation: str) -> asyncio.AbstractEventLoop:
    """Return the running asyncio loop, or explain that the realtime double needs one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise RealtimeEventLoopError(operation, _running_library()) from None


def _running_library() -> str | None:
    """Name the async library running instead of asyncio, without importing any."""
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_trio_token()
        except Exception:  # RuntimeError outside trio; anything else: not trio either
            return None
        return "trio"
    return None


def _check_event(api: str, event: object) -> None:
    if not isinstance(event, str):
        raise TypeError(
            f"ScriptedRealtimeTransport.{api}() event must be an event name (str), "
            f"got {type(event).__name__}."
        )


def _check_timeout(timeout: object) -> None:
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        with contextlib.suppress(OverflowError):  # an int too large for a float is invalid
            if 0 <= float(timeout) < math.inf:
                return
    raise ValueError(
        "ScriptedRealtimeTransport.run_scenario() timeout must be a finite non-negative "
        f"number of seconds or None (no timeout), got {_describe.value(timeout)}."
    )


def _mark_retrieved(future: asyncio.Future[Any]) -> None:
    """Tell asyncio that the future's exception was seen, so it is not logged at GC."""
    if future.done() and not future.cancelled():
        future.exception()


class _ConnectResult:
    """The awaitable ``connect`` returns: already settled, silent if never awaited."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        # Expectation futures rejected with ``error``; retrieved once the error is raised.
        self.rejected: list[asyncio.Future[Any]] = []

    def __await__(self) -> Generator[Any, None, None]:
        if self.error is not None:
            for future in self.rejected:
                _mark_retrieved(future)
            raise self.error
        return
        yield  # makes __await__ a generator that finishes without suspending

    def __repr__(self) -> str:
        state = "succeeded" if self.error is None else f"failed with {self.error!r}"
        return f"<ScriptedRealtimeTransport connect result: {state}>"


@dataclass(eq=False, slots=True)
class _Expectation:
    order: int
    method: str
    matcher: Callable[[Any], object] | None
    future: asyncio.Future[Any]
    # The scenario run whose ``ctx.expect_call`` made it: a rejection of the future ends it.
    owner: _ScenarioRun | None = None


@dataclass(eq=False)
class _Registration:
    listener: Callable[..., object]
    once: bool


# -- the transport -----------------------------------------------------------------------


class _ExpectsCalls:
    """The typed ``expect_call`` shared by the transport and a scenario's context."""

    @overload
    def expect_call(
        self, method: Literal["connect"], matcher: Callable[[ConnectCall], object] | None = None
    ) -> asyncio.Future[ConnectCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["send_event"],
        matcher: Callable[[SendEventCall], object] | None = None,
    ) -> asyncio.Future[SendEventCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["request_response"],
        matcher: Callable[[RequestResponseCall], object] | None = None,
    ) -> asyncio.Future[RequestResponseCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["send_message"],
        matcher: Callable[[SendMessageCall], object] | None = None,
    ) -> asyncio.Future[SendMessageCall]: ...
    @overload
    def expect_call(
        self, method: Literal["add_image"], matcher: Callable[[AddImageCall], object] | None = None
    ) -> asyncio.Future[AddImageCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["send_audio"],
        matcher: Callable[[SendAudioCall], object] | None = None,
    ) -> asyncio.Future[SendAudioCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["update_session_config"],
        matcher: Callable[[UpdateSessionConfigCall], object] | None = None,
    ) -> asyncio.Future[UpdateSessionConfigCall]: ...
    @overload
    def expect_call(
        self, method: Literal["close"], matcher: Callable[[CloseCall], object] | None = None
    ) -> asyncio.Future[CloseCall]: ...
    @overload
    def expect_call(
        self, method: Literal["mute"], matcher: Callable[[MuteCall], object] | None = None
    ) -> asyncio.Future[MuteCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["send_function_call_output"],
        matcher: Callable[[SendFunctionCallOutputCall], object] | None = None,
    ) -> asyncio.Future[SendFunctionCallOutputCall]: ...
    @overload
    def expect_call(
        self, method: Literal["interrupt"], matcher: Callable[[InterruptCall], object] | None = None
    ) -> asyncio.Future[InterruptCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["reset_history"],
        matcher: Callable[[ResetHistoryCall], object] | None = None,
    ) -> asyncio.Future[ResetHistoryCall]: ...
    @overload
    def expect_call(
        self,
        method: Literal["send_mcp_response"],
        matcher: Callable[[SendMcpResponseCall], object] | None = None,
    ) -> asyncio.Future[SendMcpResponseCall]: ...
    @overload
    def expect_call(
        self,
        method: RealtimeTransportMethod,
        matcher: Callable[[RealtimeTransportCall], object] | None = None,
    ) -> asyncio.Future[Any]: ...
    def expect_call(
        self, method: str, matcher: Callable[[Any], object] | None = None
    ) -> asyncio.Future[Any]:
        """Return a future for the next unclaimed call, which must be a ``method`` call.

        Expectations and calls pair up in one global order: a call made before its
        expectation is kept until an expectation claims it. ``matcher(call)`` rejects the
        call only by returning exactly ``False``; if it raises, the expectation fails with
        that exception. A live call that fails its expectation also raises the error; a
        kept call that fails it only fails the future. The matcher and the future get
        detached copies of the recorded call.
        """
        return self._expect(method, matcher)

    def _expect(self, method: str, matcher: Callable[[Any], object] | None) -> asyncio.Future[Any]:
        raise NotImplementedError


class ScriptedRealtimeTransport(_ExpectsCalls, CompletionContext):
    """A realtime transport double: records outbound calls, emits scripted inbound events.

    ``status`` and ``muted`` are plain attributes; tests may assign them.
    """

    def __init__(self) -> None:
        self.status: RealtimeStatus = "disconnected"
        self.muted: bool = False
        self._calls: list[RealtimeTransportCall] = []
        # Recorded calls that arrived while no expectation was pending, oldest first. This
        # queue and ``_expectations`` are never both non-empty.
        self._unconsumed: deque[RealtimeTransportCall] = deque()
        self._expectations: deque[_Expectation] = deque()
        self._next_order = 1
        # Insertion-ordered: a method keeps its place while it has failures queued.
        self._failures: dict[str, deque[BaseException]] = {}
        self._listeners: dict[str, list[_Registration]] = {}
        self._violations: list[UnexpectedRealtimeCallError | RealtimeCallMatcherError] = []
        # Every connect/close/disconnect takes a new generation; a connect whose generation
        # is no longer current was superseded by a re-entrant lifecycle operation.
        self._generation = 0
        # The generation of a connect that has set "connected" but not finished yet; a close
        # from such a provisional connection does not count as closing an established one.
        self._provisional_generation: int | None = None
        # Runs with a signal or a timeout: each transport call first lets them see a cancel.
        self._watching_runs: list[_ScenarioRun] = []
        # Every run not decided yet: while there is one, calls must come from its loop's thread.
        self._active_runs: list[_ScenarioRun] = []
        # The loop each listener owner (an adapter's model, by identity) connected on: its
        # listeners hand events to tasks there, so while that loop runs only its thread may
        # notify listeners (emit, and connect/close/disconnect, which emit).
        self._listener_loops: dict[object, asyncio.AbstractEventLoop] = {}

    def __repr__(self) -> str:
        return (
            f"<ScriptedRealtimeTransport status={self.status!r} muted={self.muted!r} "
            f"calls={len(self._calls)} unconsumed_calls={len(self._unconsumed)} "
            f"pending_expectations={len(self._pending_expectations())} "
            f"pending_failures={sum(len(queue) for queue in self._failures.values())}>"
        )

    @property
    def calls(self) -> tuple[RealtimeTransportCall, ...]:
        """Return every recorded call in call order; each read of a data field is a new copy."""
        return tuple(self._calls)

    # -- events --------------------------------------------------------------------------

    def on(self: _TransportT, event: str, listener: Callable[..., object]) -> _TransportT:
        """Call ``listener(*args)`` on every ``emit(event, *args)``."""
        _check_event("on", event)
        _check_listener(listener)
        self._listeners.setdefault(event, []).append(_Registration(listener, once=False))
        return self

    def once(self: _TransportT, event: str, listener: Callable[..., object]) -> _TransportT:
        """Call ``listener(*args)`` on the next ``emit(event, *args)`` only."""
        _check_event("once", event)
        _check_listener(listener)
        self._listeners.setdefault(event, []).append(_Registration(listener, once=True))
        return self

    def off(self: _TransportT, event: str, listener: Callable[..., object]) -> _TransportT:
        """Remove the most recent registration of ``listener`` for ``event``, if any.

        Listeners compare with ``==``, so a bound method found again by attribute access
        removes the registration made with it.
        """
        _check_event("off", event)
        registrations = self._listeners.get(event, [])
        for position in range(len(registrations) - 1, -1, -1):
            registered = registrations[position].listener
            if registered is listener or registered == listener:
                del registrations[position]
                if not registrations:
                    del self._listeners[event]
                break
        return self

    def emit(self, event: str, *args: Any) -> bool:
        """Call the listeners of ``event`` now, in registration order; True if there were any.

        The listeners registered when the emit starts are called, even one removed by an
        earlier listener; one added during the emit waits for the next emit. A listener that
        raises stops the emit and the exception propagates. While a run or an expectation binds
        the transport to an event loop, only that loop's thread may emit.
        """
        _check_event("emit", event)
        # Listeners settle the run's futures and schedule on its loop (the transport calls
        # they make, an adapter's delivery task): no listener may run on another thread.
        thread_error = self._thread_error("emit", notifies=True)
        if thread_error is not None:
            raise thread_error
        registrations = self._listeners.get(event)
        if not registrations:
            return False
        for registration in list(registrations):
            if registration.once:
                self._remove_registration(event, registration)
            result = registration.listener(*args)
            if inspect.iscoroutine(result):
                result.close()
                raise TypeError(
                    f"A ScriptedRealtimeTransport listener for {event!r} returned a coroutine; "
                    "listeners run synchronously, so schedule async work yourself, e.g. "
                    "lambda *args: asyncio.ensure_future(handler(*args))."
                )
        return True

    def _remove_registration(self, event: str, registration: _Registration) -> None:
        registrations = self._listeners.get(event, [])
        for position, candidate in enumerate(registrations):
            if candidate is registration:
                del registrations[position]
                if not registrations:
                    del self._listeners[event]
                return

    # -- scripting -----------------------------------------------------------------------

    def _expect(self, method: str, matcher: Callable[[Any], object] | None) -> asyncio.Future[Any]:
        _check_method("expect_call", method)
        return self._add_expectation(method, matcher, None)

    def _add_expectation(
        self, method: str, matcher: Callable[[Any], object] | None, owner: _ScenarioRun | None
    ) -> asyncio.Future[Any]:
        """Register an expectation of a checked ``method``; ``owner`` is the run that made it."""
        if matcher is not None and not callable(matcher):
            raise TypeError(
                "ScriptedRealtimeTransport.expect_call() matcher must be callable or None, "
                f"got {type(matcher).__name__}."
            )
        # Before the loop check: from a worker thread, the fix is the thread, not asyncio.
        thread_error = self._thread_error("expect_call")
        if thread_error is not None:
            raise thread_error
        loop = _running_loop("expect_call")
        expectation = _Expectation(self._next_order, method, matcher, loop.create_future(), owner)
        self._next_order += 1
        if self._unconsumed:
            self._settle(expectation, self._unconsumed.popleft())
        else:
            self._expectations.append(expectation)
        return expectation.future

    def fail_next_call(self, method: RealtimeTransportMethod, error: BaseException) -> None:
        """Make the next ``method`` call raise ``error`` after it is recorded and matched."""
        _check_method("fail_next_call", method)
        if not isinstance(error, BaseException):
            raise TypeError(
                "ScriptedRealtimeTransport.fail_next_call() needs an exception instance, "
                f"got {type(error).__name__}."
            )
        self._failures.setdefault(method, deque()).append(error)

    def disconnect(self, error: BaseException | None = None) -> None:
        """Simulate the remote side dropping the connection, optionally with an error.

        Emits ``connection_change("disconnected")`` unless already disconnected, then the
        ``error`` event with ``{"type": "error", "error": error}`` when an error is given
        (even if already disconnected). Both emits run; the first listener exception is
        raised afterwards. Nothing is recorded.
        """
        if error is not None and not isinstance(error, BaseException):
            raise TypeError(
                "ScriptedRealtimeTransport.disconnect() needs an exception instance or None, "
                f"got {type(error).__name__}."
            )
        # Checked before the status changes: a refused disconnect leaves no trace.
        thread_error = self._thread_error("disconnect", notifies=True)
        if thread_error is not None:
            raise thread_error
        self._generation += 1
        first_error: Exception | None = None
        if self.status != "disconnected":
            self.status = "disconnected"
            try:
                self.emit("connection_change", "disconnected")
            except Exception as exc:
                first_error = exc
        if error is not None:
            payload: RealtimeErrorEvent = {"type": "error", "error": error}
            try:
                self.emit("error", payload)
            except Exception as exc:
                if first_error is None:
                    first_error = exc
        if first_error is not None:
            raise first_error

    def assert_complete(self) -> None:
        """Raise if a call was rejected, or calls, expectations or failures are left over.

        The first rejected call is raised again (a fresh error with the same fields) even if
        the code under test caught it, before leftovers are checked.
        """
        if self._violations:
            first = self._violations[0]
            raise first._fresh() from first  # pyright: ignore[reportPrivateUsage]
        incomplete = self._incomplete_error()
        if incomplete is not None:
            raise incomplete

    def assert_closed(self) -> None:
        """Raise ``RealtimeTransportNotClosedError`` unless the status is ``disconnected``."""
        if self.status != "disconnected":
            raise RealtimeTransportNotClosedError(self.status)

    @overload
    async def run_scenario(
        self,
        *,
        scenario: Callable[[RealtimeScenarioContext], object],
        exercise: Callable[[], Awaitable[_T]],
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> _T: ...
    @overload
    async def run_scenario(
        self,
        *,
        scenario: Callable[[RealtimeScenarioContext], object],
        exercise: Callable[[], _T],
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> _T: ...
    async def run_scenario(
        self,
        *,
        scenario: Callable[[RealtimeScenarioContext], object],
        exercise: Callable[[], object],
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> Any:
        """Run the scripted server side and the code under test together; return its value.

        ``scenario(ctx)`` registers expectations with ``ctx.expect_call`` and emits inbound
        events with ``ctx.emit``; ``exercise()`` drives the code under test. Either may be
        sync or async. The run fails as soon as either side raises, an expectation made
        through ``ctx`` fails, or the exercise finishes while expectations are pending; it
        succeeds when both sides finished and ``assert_complete()`` passes.

        Args:
            scenario: The transport-facing side, called first with the run's context.
            exercise: The application side; its value is what ``run_scenario`` returns.
            timeout: Seconds after which a stuck run ends with
                ``ScriptedRealtimeScenarioCancelledError``.
            signal: An ``asyncio.Event``, or any object with a truthy ``aborted`` attribute
                or an ``is_set()`` returning True once aborted; ends the run the same way.

        A failing run first fails every pending expectation with its error (a side awaiting
        one sees that error), then cancels and awaits the side still running before it
        raises. Cancelling the caller cancels both sides and withdraws the run's pending
        expectations. No task the run started outlives it.

        Cancellation is one rule: once the signal is aborted or the timeout has elapsed, the
        run ends with ``ScriptedRealtimeScenarioCancelledError`` listing the expectations
        pending at that point, unless something decided the run before. The run looks at the
        signal and the clock before everything it acts on (a side finishing or failing, a
        failed expectation, a transport call, ``ctx.expect_call``) and is woken by an
        ``asyncio.Event`` at once and by other signals within 10 ms. So an abort made by the
        exercise, even just before it returns or raises, and a timeout that elapsed in the
        same loop turn as the exercise's end, cancel the run; a transport call made after
        the abort is kept as an unconsumed call.
        """
        if not callable(scenario) or not callable(exercise):
            raise TypeError(
                "ScriptedRealtimeTransport.run_scenario() needs callable "
                "scenario and exercise arguments."
            )
        if timeout is not None:
            _check_timeout(timeout)
        if signal is not None and not (
            hasattr(signal, "aborted") or callable(getattr(signal, "is_set", None))
        ):
            raise TypeError(
                "ScriptedRealtimeTransport.run_scenario() signal must be an asyncio.Event or "
                "have an 'aborted' attribute or an 'is_set()' method, got "
                f"{type(signal).__name__}."
            )
        if signal is not None and is_aborted(signal):
            raise ScriptedRealtimeScenarioCancelledError(self._pending_expectations())
        run = _ScenarioRun(self, _running_loop("run_scenario"))
        try:
            run.start(scenario, exercise, timeout, signal)
            return await run.outcome
        finally:
            await run.close()

    # -- outbound transport methods ------------------------------------------------------

    def connect(self, options: Mapping[str, Any]) -> Awaitable[None]:
        """Connect now and return an already-settled awaitable.

        Reads ``api_key``, ``model``, ``url``, ``call_id`` and ``initial_session_config``;
        records every key but the API key, and ``api_key_provided``. The status is
        final and ``connection_change`` listeners have run when this returns; any error
        (scripted failure, failed expectation, listener error, supersession) is raised by
        the awaitable, which never warns if it is not awaited.
        """
        result = _ConnectResult()
        result.error = self._thread_error("connect", notifies=True)
        if result.error is not None:
            return result
        self._generation += 1
        generation = self._generation
        self.status = "connecting"
        try:
            recorded = _recorded_connect_options(options)
            # Error tracebacks keep this frame alive; make sure it no longer holds the key.
            del options
            call = ConnectCall(index=len(self._calls), options=recorded)
            self._record(call, rejected=result.rejected)
            self._ensure_current(generation, "connecting")
            self.emit("connection_change", "connecting")
            self._ensure_current(generation, "connecting")
            self.status = "connected"
            self._provisional_generation = generation
            self.emit("connection_change", "connected")
            self._ensure_current(generation, "connected")
            self._provisional_generation = None
        except BaseException as error:  # every connect error is delivered by the awaitable
            if self._generation == generation:
                self._generation += 1
                self.status = "disconnected"
                with contextlib.suppress(Exception):
                    self.emit("connection_change", "disconnected")
            result.error = error
        return result

    def send_event(self, event: Mapping[str, Any]) -> None:
        """Record a raw client event."""
        event = snapshot(event, "send_event() event")
        self._record(SendEventCall(index=len(self._calls), event=event))

    def request_response(self, response: Mapping[str, Any] | None = None) -> None:
        """Record a request for a model response."""
        response = snapshot(response, "request_response() response")
        self._record(RequestResponseCall(index=len(self._calls), response=response))

    def send_message(
        self,
        message: str | Mapping[str, Any],
        other_event_data: Mapping[str, Any] | None = None,
        *,
        trigger_response: bool | None = None,
    ) -> None:
        """Record a user message."""
        message_copy, data_copy, trigger_copy = snapshot(
            (message, other_event_data, trigger_response), "send_message() args"
        )
        self._record(
            SendMessageCall(
                index=len(self._calls),
                message=message_copy,
                other_event_data=data_copy,
                trigger_response=trigger_copy,
            )
        )

    def add_image(self, image: str, *, trigger_response: bool | None = None) -> None:
        """Record an image sent to the model."""
        image_copy, trigger_copy = snapshot((image, trigger_response), "add_image() args")
        self._record(
            AddImageCall(index=len(self._calls), image=image_copy, trigger_response=trigger_copy)
        )

    def send_audio(
        self, audio: bytes | bytearray | memoryview, *, commit: bool | None = None
    ) -> None:
        """Record an audio chunk; mutable buffers are copied."""
        audio_copy, commit_copy = snapshot((audio, commit), "send_audio() args")
        self._record(SendAudioCall(index=len(self._calls), audio=audio_copy, commit=commit_copy))

    def update_session_config(self, config: Mapping[str, Any]) -> None:
        """Record a session configuration update."""
        config = snapshot(config, "update_session_config() config")
        self._record(UpdateSessionConfigCall(index=len(self._calls), config=config))

    def close(self) -> None:
        """Close the connection; does nothing (and records nothing) while disconnected.

        A failed close from an established connection leaves it connected; from any other
        state it ends disconnected.
        """
        if self.status == "disconnected":
            return
        thread_error = self._thread_error("close", notifies=True)
        if thread_error is not None:
            raise thread_error
        established = (
            self.status == "connected" and self._provisional_generation != self._generation
        )
        self._generation += 1
        generation = self._generation
        self.status = "disconnecting"
        try:
            self._record(CloseCall(index=len(self._calls)))
        except BaseException:
            if self._is_current(generation, "disconnecting"):
                if established:
                    self.status = "connected"
                else:
                    self.status = "disconnected"
                    with contextlib.suppress(Exception):
                        self.emit("connection_change", "disconnected")
            raise
        if not self._is_current(generation, "disconnecting"):
            return  # a re-entrant lifecycle operation already decided the status
        self.status = "disconnected"
        self.emit("connection_change", "disconnected")

    def mute(self, muted: bool) -> None:
        """Record a mute change; ``muted`` changes only if the call succeeds."""
        self._record(MuteCall(index=len(self._calls), muted=snapshot(muted, "mute() muted")))
        self.muted = muted

    def send_function_call_output(
        self, tool_call: Mapping[str, Any], output: str, start_response: bool
    ) -> None:
        """Record a tool result sent back to the model."""
        tool_call_copy, output_copy, start_copy = snapshot(
            (tool_call, output, start_response), "send_function_call_output() args"
        )
        self._record(
            SendFunctionCallOutputCall(
                index=len(self._calls),
                tool_call=tool_call_copy,
                output=output_copy,
                start_response=start_copy,
            )
        )

    def interrupt(self) -> None:
        """Record an interruption of the current response."""
        self._record(InterruptCall(index=len(self._calls)))

    def reset_history(
        self,
        old_history: Sequence[Mapping[str, Any]],
        new_history: Sequence[Mapping[str, Any]],
    ) -> None:
        """Record a history replacement."""
        old_copy, new_copy = snapshot((old_history, new_history), "reset_history() args")
        self._record(
            ResetHistoryCall(index=len(self._calls), old_history=old_copy, new_history=new_copy)
        )

    def send_mcp_response(
        self, approval_request: Mapping[str, Any], approved: bool, reason: str | None = None
    ) -> None:
        """Record an answer to an MCP tool approval request."""
        request_copy, approved_copy, reason_copy = snapshot(
            (approval_request, approved, reason), "send_mcp_response() args"
        )
        self._record(
            SendMcpResponseCall(
                index=len(self._calls),
                approval_request=request_copy,
                approved=approved_copy,
                reason=reason_copy,
            )
        )

    # -- internals -----------------------------------------------------------------------

    def _record(
        self,
        call: RealtimeTransportCall,
        *,
        rejected: list[asyncio.Future[Any]] | None = None,
    ) -> None:
        """Record ``call``, hand it to the oldest expectation, then raise its scripted failure.

        A failed expectation raises instead, and the scripted failure taken for this call is
        dropped. The failed expectation's future is marked retrieved here because the error
        is raised to the caller now, unless ``rejected`` collects it for a later raise.
        """
        if self._active_runs or self._expectations:
            thread_error = self._thread_error(call.method)
            if thread_error is not None:
                raise thread_error
        if self._watching_runs:
            for run in tuple(self._watching_runs):
                # An abort or timeout that came before this call ends the run before the call
                # can settle one of its expectations.
                run.cancel_if_due()
        failure = self._take_failure(call.method) if self._failures else None
        self._calls.append(call)
        expectation = self._next_expectation() if self._expectations else None
        if expectation is None:
            self._unconsumed.append(call)
        else:
            error = self._settle(expectation, call)
            if error is not None:
                if rejected is None:
                    _mark_retrieved(expectation.future)
                else:
                    rejected.append(expectation.future)
                raise error
        if failure is not None:
            raise failure

    def _thread_error(
        self, operation: str, *, notifies: bool = False
    ) -> RealtimeThreadError | None:
        """Return the error for a call off the thread of a loop that the call would touch.

        A call settles the oldest pending expectation and lets active runs look at their
        signal and clock, all bound to one event loop; an operation that ``notifies``
        listeners also reaches the loops that listener owners bound. Only the thread
        running such a loop may touch it.
        """
        if self._active_runs:
            bound: asyncio.AbstractEventLoop | None = self._active_runs[0].loop
        elif self._expectations:
            oldest = self._expectations[0].future
            bound = oldest.get_loop()
            if oldest.done():
                # Only a pending expectation binds: a withdrawn one (its future done) is
                # skipped by the call. The copy is one C call, safe from this thread.
                pending = [e for e in tuple(self._expectations) if not e.future.done()]
                bound = pending[0].future.get_loop() if pending else None
        else:
            bound = None
        notified = self._listener_loops.values() if notifies else ()
        if bound is None and not notified:
            return None  # nothing bound to a loop: any thread may make the call
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for loop in (bound, *notified):
            # A loop that is not running (futures left from a finished asyncio.run) belongs
            # to no thread: touching it from here is what the call did before threads.
            if loop is not None and loop is not running and loop.is_running():
                return RealtimeThreadError(operation)
        return None

    def _bind_listeners(self, owner: object, loop: asyncio.AbstractEventLoop) -> None:
        """Let only ``loop``'s thread notify listeners while it runs; ``owner`` may rebind.

        For an adapter whose listeners hand events to tasks on the loop it connected on: a
        notification from another thread is refused before anything changes, where a
        refusal by the adapter's listener would come after the status changed and earlier
        listeners ran.
        """
        self._listener_loops[owner] = loop

    def _take_failure(self, method: str) -> BaseException | None:
        queue = self._failures.get(method)
        if not queue:
            return None
        failure = queue.popleft()
        if not queue:
            del self._failures[method]
        return failure

    def _next_expectation(self) -> _Expectation | None:
        # An expectation whose future is already done withdraws it: cancelled (its awaiting
        # task was cancelled, or wait_for gave up) or settled by hand (set_result or
        # set_exception), it can no longer deliver the call to anyone, so the call stays
        # unconsumed where assert_complete() and the next expectation can see it.
        while self._expectations:
            expectation = self._expectations.popleft()
            if not expectation.future.done():
                return expectation
        return None

    def _settle(
        self, expectation: _Expectation, call: RealtimeTransportCall
    ) -> BaseException | None:
        """Check ``call`` against ``expectation`` and settle its future; return the error."""
        error = self._check(expectation, call)
        future = expectation.future
        if error is None:
            if not future.done():
                future.set_result(call)
            return None
        if isinstance(error, (UnexpectedRealtimeCallError, RealtimeCallMatcherError)):
            self._violations.append(error)
        else:
            # An assertion inside the matcher is a rejection too: remember it, so code that
            # swallows the error cannot hide it from assert_complete().
            rejection = RealtimeCallMatcherError(call.index, call.method, _summary(call))
            rejection.__cause__ = error
            self._violations.append(rejection)
        if not future.done():
            _notify_owner(expectation, error)
            future.set_exception(error)
        return error

    def _check(
        self, expectation: _Expectation, call: RealtimeTransportCall
    ) -> BaseException | None:
        if call.method != expectation.method:
            return UnexpectedRealtimeCallError(
                call.index, expectation.method, call.method, _summary(call)
            )
        if expectation.matcher is not None:
            try:
                verdict = expectation.matcher(call)
            except BaseException as error:  # e.g. pytest.fail(), which is a BaseException
                return error
            if verdict is False:
                return RealtimeCallMatcherError(call.index, call.method, _summary(call))
        return None

    def _pending_expectations(self) -> list[dict[str, Any]]:
        return [
            {"order": expectation.order, "method": expectation.method}
            for expectation in self._expectations
            if not expectation.future.done()  # a done future withdrew its expectation
        ]

    def _incomplete_error(self) -> IncompleteRealtimeScenarioError | None:
        unconsumed = [{"index": call.index, "method": call.method} for call in self._unconsumed]
        pending = self._pending_expectations()
        failures = [
            {"method": method, "count": len(queue)} for method, queue in self._failures.items()
        ]
        if not (unconsumed or pending or failures):
            return None
        return IncompleteRealtimeScenarioError(unconsumed, pending, failures)

    def _fail_pending_expectations(self, error: BaseException) -> None:
        """Fail and drop every pending expectation; the caller raises ``error`` itself."""
        expectations, self._expectations = self._expectations, deque()
        for expectation in expectations:
            if not expectation.future.done():
                _notify_owner(expectation, error)
                expectation.future.set_exception(error)
                _mark_retrieved(expectation.future)

    def _is_current(self, generation: int, status: RealtimeStatus) -> bool:
        return self._generation == generation and self.status == status

    def _ensure_current(self, generation: int, status: RealtimeStatus) -> None:
        if not self._is_current(generation, status):
            raise ScriptedRealtimeConnectionSupersededError("connect")


# -- scenario runs -----------------------------------------------------------------------


class RealtimeScenarioContext(_ExpectsCalls):
    """The scenario side's handle on a ``run_scenario`` run: owned expectations and ``emit``.

    ``expect_call`` works as the transport's does, and a failed expectation fails the run.
    An expectation registered after the exercise finished, that no kept call satisfies,
    fails the run at once with ``IncompleteRealtimeScenarioError``; once the run has ended,
    the returned future is already failed with the run's error.
    """

    def __init__(self, run: _ScenarioRun) -> None:
        self._run = run

    def emit(self, event: str, *args: Any) -> bool:
        """Emit an inbound event on the transport, synchronously (also after the run)."""
        return self._run.transport.emit(event, *args)

    def _expect(self, method: str, matcher: Callable[[Any], object] | None) -> asyncio.Future[Any]:
        return self._run.expect_call(method, matcher)


async def _call_side(side: Callable[..., object], *args: Any) -> Any:
    result = side(*args)
    if inspect.isawaitable(result):
        return await result
    return result


def _side_error(task: asyncio.Task[Any]) -> BaseException | None:
    """Return how ``task`` failed (retrieving its exception), or None if it returned."""
    if task.cancelled():
        return asyncio.CancelledError()
    return task.exception()


async def _cancel_and_wait(tasks: Sequence[asyncio.Task[Any]]) -> None:
    """Cancel the unfinished tasks and return once every one of them has stopped."""
    pending = {task for task in tasks if not task.done()}
    for task in pending:
        task.cancel()
    cancelled: asyncio.CancelledError | None = None
    while pending:
        try:
            _, pending = await asyncio.wait(pending)
        except asyncio.CancelledError as error:
            # The caller is cancelled again: keep the promise that nothing outlives the run,
            # then let the cancellation through.
            cancelled = error
            for task in pending:
                task.cancel()
    for task in tasks:
        if not task.cancelled():
            task.exception()
    if cancelled is not None:
        raise cancelled


def _notify_owner(expectation: _Expectation, error: BaseException) -> None:
    """Schedule the owning run's reaction to ``expectation`` failing with ``error``.

    Called just before the future is failed, so the run reacts before whoever awaits the
    future, as a done callback registered with the expectation would. A done callback on
    every owned future would cost a loop callback for each fulfilled expectation too, and
    only a rejection can change the run.
    """
    owner = expectation.owner
    if owner is not None:
        reaction = owner._on_owned_rejected  # pyright: ignore[reportPrivateUsage]
        owner.loop.call_soon(reaction, expectation.future, error)


class _ScenarioRun:
    """The state of one ``run_scenario`` call; callbacks decide the outcome as sides settle."""

    def __init__(self, transport: ScriptedRealtimeTransport, loop: asyncio.AbstractEventLoop):
        self.transport = transport
        self.loop = loop
        self.outcome: asyncio.Future[Any] = loop.create_future()
        self.active: bool = True
        self.terminal_error: BaseException | None = None
        self.scenario_finished: bool = False
        self.exercise_finished: bool = False
        self.exercise_value: Any = None
        self.tasks: list[asyncio.Task[Any]] = []
        self.owned: list[asyncio.Future[Any]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._poll: asyncio.TimerHandle | None = None
        self._signal: object = None
        self._deadline: float | None = None
        # Active from here: run_scenario ends the run (in close()) whatever start() does.
        transport._active_runs.append(self)  # pyright: ignore[reportPrivateUsage]

    def start(
        self,
        scenario: Callable[[RealtimeScenarioContext], object],
        exercise: Callable[[], object],
        timeout: float | None,
        signal: object,
    ) -> None:
        # Tasks start in creation order, so whatever the scenario registers before its first
        # suspension is in place before the exercise runs.
        context = RealtimeScenarioContext(self)
        scenario_task = self.loop.create_task(
            _call_side(scenario, context), name="run_scenario scenario"
        )
        self.tasks.append(scenario_task)
        scenario_task.add_done_callback(self._on_scenario_done)
        exercise_task = self.loop.create_task(_call_side(exercise), name="run_scenario exercise")
        self.tasks.append(exercise_task)
        exercise_task.add_done_callback(self._on_exercise_done)
        if timeout is not None:
            self._deadline = self.loop.time() + timeout
            self._timer = self.loop.call_later(timeout, self._cancel)
        if timeout is not None or signal is not None:
            self._signal = signal
            self.transport._watching_runs.append(self)  # pyright: ignore[reportPrivateUsage]
        if isinstance(signal, asyncio.Event):
            waiter = self.loop.create_task(signal.wait(), name="run_scenario signal")
            self.tasks.append(waiter)
            waiter.add_done_callback(self._on_signal_set)
        elif signal is not None:
            self._poll = self.loop.call_later(_SIGNAL_POLL_INTERVAL, self._poll_signal, signal)

    def expect_call(
        self, method: str, matcher: Callable[[Any], object] | None
    ) -> asyncio.Future[Any]:
        _check_method("expect_call", method)
        self.cancel_if_due()
        if not self.active:
            future: asyncio.Future[Any] = self.loop.create_future()
            if self.terminal_error is not None:
                future.set_exception(self.terminal_error)
                _mark_retrieved(future)  # the run raised this very error to its caller
            elif self.outcome.cancelled():
                future.cancel()
            else:
                future.set_exception(
                    RuntimeError(
                        "ScriptedRealtimeTransport scenario run has already finished; use "
                        "transport.expect_call() after run_scenario()."
                    )
                )
            return future
        future = self.transport._add_expectation(  # pyright: ignore[reportPrivateUsage]
            method, matcher, self
        )
        self.owned.append(future)
        if self.exercise_finished:
            self._fail_if_incomplete()
        return future

    def terminate(self, error: BaseException) -> None:
        """End the run with ``error``, failing every pending expectation with it."""
        if not self._end():
            return
        self.terminal_error = error
        self.transport._fail_pending_expectations(error)  # pyright: ignore[reportPrivateUsage]
        if not self.outcome.done():
            self.outcome.set_exception(error)

    async def close(self) -> None:
        """Stop the run and wait for every task it started."""
        if self._end():
            # Nothing decided the run, so the caller was cancelled: withdraw the run's
            # pending expectations along with its two sides.
            for future in self.owned:
                future.cancel()
        # An outcome set in the same loop turn as the caller's cancellation is never awaited.
        _mark_retrieved(self.outcome)
        self.owned.clear()
        await _cancel_and_wait(self.tasks)

    def cancel_if_due(self) -> bool:
        """Cancel the run if its signal is aborted or its timeout elapsed; say if it is over."""
        if self.active:
            signal = self._signal
            try:
                # Every transport call and expectation of the run comes here: skip the call
                # to is_aborted() when there is no signal.
                due = (signal is not None and is_aborted(signal)) or (
                    self._deadline is not None and self.loop.time() >= self._deadline
                )
            except Exception as error:  # a signal whose state cannot be read ends the run
                self.terminate(error)
            else:
                if due:
                    self._cancel()
        return not self.active

    def _on_scenario_done(self, task: asyncio.Task[Any]) -> None:
        error = _side_error(task)
        if self.cancel_if_due():
            return
        if error is not None:
            self.terminate(error)
            return
        self.scenario_finished = True
        if self.exercise_finished:
            self._final_check()

    def _on_exercise_done(self, task: asyncio.Task[Any]) -> None:
        error = _side_error(task)
        if self.cancel_if_due():
            return
        if error is not None:
            self.terminate(error)
            return
        self.exercise_finished = True
        self.exercise_value = task.result()
        if self.scenario_finished:
            self._final_check()
        else:
            # The scenario may still be finishing quietly; only pending expectations prove
            # that it waits for calls the exercise will never make.
            self._fail_if_incomplete()

    def _on_owned_rejected(self, future: asyncio.Future[Any], error: BaseException) -> None:
        _mark_retrieved(future)  # the run raises the error itself
        if not self.cancel_if_due():
            self.terminate(error)

    def _fail_if_incomplete(self) -> None:
        transport = self.transport
        if transport._pending_expectations():  # pyright: ignore[reportPrivateUsage]
            incomplete = transport._incomplete_error()  # pyright: ignore[reportPrivateUsage]
            assert incomplete is not None
            self.terminate(incomplete)

    def _final_check(self) -> None:
        try:
            self.transport.assert_complete()
        except AssertionError as error:
            self.terminate(error)
            return
        self._end()
        # The caller may have been cancelled in this very loop turn, cancelling the outcome.
        if not self.outcome.done():
            self.outcome.set_result(self.exercise_value)

    def _cancel(self) -> None:
        pending = self.transport._pending_expectations()  # pyright: ignore[reportPrivateUsage]
        self.terminate(ScriptedRealtimeScenarioCancelledError(pending))

    def _on_signal_set(self, task: asyncio.Task[Any]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.terminate(error)  # e.g. an asyncio.Event bound to another event loop
        else:
            self._cancel()

    def _poll_signal(self, signal: object) -> None:
        self._poll = None
        if not self.active:
            return
        try:
            aborted = is_aborted(signal)
        except Exception as error:
            # Raised from a loop callback, the error would only be logged and the run would
            # wait for its timeout: end the run with it instead.
            self.terminate(error)
            return
        if aborted:
            self._cancel()
        else:
            self._poll = self.loop.call_later(_SIGNAL_POLL_INTERVAL, self._poll_signal, signal)

    def _end(self) -> bool:
        """Mark the run as decided and stop watching for a cancel; False if it already was."""
        if not self.active:
            return False
        self.active = False
        self.transport._active_runs.remove(self)  # pyright: ignore[reportPrivateUsage]
        self._stop_watching()
        return True

    def _stop_watching(self) -> None:
        for handle in (self._timer, self._poll):
            if handle is not None:
                handle.cancel()
        watching = self.transport._watching_runs  # pyright: ignore[reportPrivateUsage]
        if self in watching:
            watching.remove(self)
