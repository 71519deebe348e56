"""Scripted sandbox session: a sandbox double whose methods answer from one ordered script.

Every step names the method it answers. Steps are used in one global order across synchronous
and asynchronous methods, and only the methods a script names exist on the session, so code
that detects capabilities with ``hasattr`` sees exactly what the test scripted.

Asynchronous methods are plain functions: recording the call, taking its step, running the
matcher and the responder all happen when the method is called, before the caller awaits.
They return a coroutine object that raises or returns the decided outcome when awaited.

Recorded arguments are snapshots: dicts, lists, tuples, sets and byte buffers are copied,
other objects are kept by identity. The manifest of ``apply_manifest`` (its first positional
argument, or its ``manifest`` keyword) is the exception, as in the reference: an object is
deep-copied when the call is made and again on every read, so the record shows the manifest as
it was sent. A manifest whose deep copy fails is kept by identity, so recording a call never
fails on an argument that cannot be copied.

Typing: scripted methods are set on each session at run time, so type checkers read any
attribute of a :class:`ScriptedSandboxSession` other than ``calls``, ``remaining_steps`` and
``assert_complete`` as ``Any``; ``await session.exec_command({"cmd": "pwd"})`` type-checks
under ``mypy --strict``. To check calls against a session type of your own, script it with
``interface=YourSession`` and use ``typing.cast(YourSession, session)``.
"""

from __future__ import annotations

import inspect
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict, TypeVar, cast

from . import _describe
from ._completion import CompletionContext
from ._records import detach_on_read
from ._snapshot import instance_copy, snapshot
from .errors import (
    InvalidScriptedSandboxStepError,
    SandboxCallMatcherError,
    UnconsumedSandboxStepsError,
    UnexpectedSandboxCallError,
)

if TYPE_CHECKING:
    from dataclasses import dataclass as _dataclass
else:
    from .items import _dataclass

__all__ = [
    "DEFAULT_SANDBOX_INTERFACE",
    "SandboxCall",
    "SandboxMethodMode",
    "SandboxStep",
    "ScriptedSandboxSession",
    "scripted_sandbox_session",
]

SandboxMethodMode = Literal["sync", "async"]

DEFAULT_SANDBOX_INTERFACE: Mapping[str, SandboxMethodMode] = MappingProxyType(
    {
        "start": "async",
        "running": "async",
        "register_pre_stop_hook": "sync",
        "run_pre_stop_hooks": "async",
        "pre_stop": "async",
        "stop": "async",
        "shutdown": "async",
        "delete": "async",
        "create_editor": "sync",
        "exec": "async",
        "exec_command": "async",
        "write_stdin": "async",
        "view_image": "async",
        "read_file": "async",
        "list_dir": "async",
        "path_exists": "async",
        "directory_exists": "async",
        "materialize_entry": "async",
        "apply_manifest": "async",
        "persist_workspace": "async",
        "hydrate_workspace": "async",
        "set_archive_limits": "sync",
        "resolve_exposed_port": "async",
        "supports_pty": "sync",
        "close": "async",
    }
)
"""The SDK sandbox session's methods and their modes, used when no ``interface`` is given."""

_Interface: TypeAlias = "type[Any] | Mapping[str, SandboxMethodMode] | None"

_RESERVED_NAMES = frozenset({"calls", "remaining_steps", "assert_complete", "invoke"})

_Violation = TypeVar("_Violation", UnexpectedSandboxCallError, SandboxCallMatcherError)

_Outcome = Literal["result", "respond", "error"]
_OUTCOMES: tuple[_Outcome, ...] = ("result", "respond", "error")


@_dataclass(frozen=True)  # made without compiling source, as the dataclasses of ``items``
class SandboxCall:
    """One recorded call of a scripted sandbox method: a frozen dataclass.

    The session builds the record once, when the call is made, and returns that same record
    on every read. ``args`` and ``kwargs`` are detached on each read: every access returns a
    new copy, so changing it never changes the record.
    """

    index: int
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    def __init__(
        self, index: int, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        # Where the generated __init__ would store them, through the frozen class's refusal
        # and the detached fields' descriptors: one record is built per call.
        stored = self.__dict__
        stored["index"] = index
        stored["method"] = method
        stored["args"] = args
        stored["kwargs"] = kwargs


class _SandboxStepMethod(TypedDict):
    method: str


class SandboxStep(_SandboxStepMethod, total=False):
    """A scripted step: the method it answers, an optional matcher and exactly one outcome.

    ``match(*args, **kwargs)`` rejects the call only by returning ``False``; ``respond(call)``
    computes the value from the recorded call; ``error`` is raised as it is. An ``optional``
    step is served in its turn like any other, but ``assert_complete()`` does not report it
    when no call took it.
    """

    match: Callable[..., object] | None
    result: Any
    respond: Callable[[SandboxCall], Any]
    error: BaseException
    optional: bool


@dataclass(frozen=True)
class _Step:
    method: str
    match: Callable[..., object] | None
    outcome: _Outcome
    value: Any
    position: int = 0
    optional: bool = False

    def describe(self) -> dict[str, Any]:
        """Return this step as ``UnconsumedSandboxStepsError`` lists it."""
        if self.outcome == "respond":
            summary = "respond " + (
                getattr(self.value, "__qualname__", None) or type(self.value).__name__
            )
        else:
            summary = f"{self.outcome} {_describe.value(self.value, 40)}"
        if self.optional:
            summary += " (optional)"
        return {"step_index": self.position, "method": self.method, "summary": summary}


def scripted_sandbox_session(
    steps: Iterable[SandboxStep | Mapping[str, Any]] = (),
    *,
    interface: _Interface = None,
) -> ScriptedSandboxSession:
    """Build a sandbox session that answers its scripted methods from ``steps``, in order.

    Args:
        steps: Step mappings (``SandboxStep`` dicts or any other mapping), read eagerly.
        interface: Which methods a step may name and which are synchronous: ``None`` for
            :data:`DEFAULT_SANDBOX_INTERFACE`, a class (its public methods; coroutine
            functions are asynchronous) or a mapping ``name -> "sync" | "async"``.

    Raises:
        InvalidScriptedSandboxStepError: For the first malformed step.
        TypeError: For ``steps`` that are not an iterable of steps (``None``, a single step).
        TypeError, ValueError: For an ``interface`` the session cannot use.
    """
    return ScriptedSandboxSession(steps, interface=interface)


class ScriptedSandboxSession(CompletionContext):
    """An in-memory sandbox session whose scripted methods answer from one ordered script.

    Build one with :func:`scripted_sandbox_session`. Besides the scripted methods it has
    ``calls``, ``remaining_steps``, ``assert_complete`` and ``invoke``.
    """

    def __init__(
        self,
        steps: Iterable[SandboxStep | Mapping[str, Any]] = (),
        *,
        interface: _Interface = None,
    ) -> None:
        script_input: Any = steps
        if isinstance(script_input, Mapping) or not isinstance(script_input, Iterable):
            # Worded like ScriptedModel's refusal: the two doubles take scripts the same way.
            raise TypeError(
                "ScriptedSandboxSession steps must be an iterable of steps, "
                f"got {type(steps).__name__}; wrap a single step in a list."
            )
        modes = _interface_modes(interface)
        script = [_read_step(step, index, modes) for index, step in enumerate(steps)]
        self._steps: deque[_Step] = deque(script)
        self._calls: list[SandboxCall] = []
        self._violations: list[UnexpectedSandboxCallError | SandboxCallMatcherError] = []
        self._lock = threading.Lock()
        self._modes = modes
        self._methods = tuple(dict.fromkeys(step.method for step in script))
        for method in self._methods:
            setattr(self, method, self._scripted_method(method, modes[method]))

    if TYPE_CHECKING:
        # Scripted methods are instance attributes set at run time. Declaring __getattr__ for
        # type checkers only lets typed code call them (as Any), while the runtime class keeps
        # no __getattr__, so hasattr() stays False for unscripted methods.
        def __getattr__(self, name: str) -> Any: ...

    @property
    def calls(self) -> tuple[SandboxCall, ...]:
        """Every call so far, in order; each read of a record's arguments is a new copy."""
        return tuple(self._calls)

    @property
    def remaining_steps(self) -> int:
        """The number of steps no call has taken yet."""
        return len(self._steps)

    def invoke(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        """Call ``method`` of the interface by name, whether or not the script names it.

        For adapters whose own session type has every method: a call to a method the script
        does not name is recorded and fails with ``UnexpectedSandboxCallError``, as a
        scripted method called out of order does. Asynchronous methods return an awaitable.
        """
        if not isinstance(method, str):
            raise TypeError(
                "ScriptedSandboxSession.invoke() method must be the method's name as a str, "
                f"got {type(method).__name__}."
            )
        mode = self._modes.get(method)
        if mode is None:
            raise ValueError(
                f"{method!r} is not a method of this session's interface; "
                f"known methods: {', '.join(sorted(self._modes))}"
            )
        if mode == "sync":
            return self._run_step(method, args, kwargs)[1]
        return self._start(method, args, kwargs)

    def assert_complete(self) -> None:
        """Fail if a call broke the script or a scripted step was never used.

        A broken script is reported first, as a new error of the same class with the same
        fields, even when the workflow caught the original.
        """
        if self._violations:
            first = self._violations[0]
            raise first._fresh() from first  # pyright: ignore[reportPrivateUsage]
        steps = list(self._steps)
        if any(not step.optional for step in steps):
            raise UnconsumedSandboxStepsError(
                len(steps), [step.method for step in steps], [step.describe() for step in steps]
            )

    def __repr__(self) -> str:
        return (
            f"<ScriptedSandboxSession methods=[{', '.join(self._methods)}] "
            f"calls={len(self._calls)} remaining_steps={len(self._steps)}>"
        )

    def _scripted_method(self, method: str, mode: SandboxMethodMode) -> Callable[..., Any]:
        if mode == "sync":

            def scripted(*args: Any, **kwargs: Any) -> Any:
                return self._run_step(method, args, kwargs)[1]

        else:

            def scripted(*args: Any, **kwargs: Any) -> Any:
                return self._start(method, args, kwargs)

        scripted.__name__ = method
        scripted.__qualname__ = f"ScriptedSandboxSession.{method}"
        return scripted

    def _start(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Deferred:
        """Run an asynchronous method's step now; deliver its outcome when awaited."""
        try:
            step, value = self._run_step(method, args, kwargs)
        except BaseException as error:
            return _Deferred(error=error)
        if step.outcome == "respond" and inspect.isawaitable(value):
            return _Deferred(pending=value)
        return _Deferred(value)

    def _run_step(
        self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[_Step, Any]:
        """Record the call, take its step, apply the matcher and produce the outcome."""
        call, step = self._take(method, args, kwargs)
        if step.match is not None:
            try:
                accepted = step.match(*call.args, **call.kwargs) is not False
            except BaseException as error:
                # An assertion inside the matcher is a rejection too: remember it, so a
                # framework that turns the error into tool output cannot hide it.
                rejection = SandboxCallMatcherError(call.index, method, _summary(call))
                rejection.__cause__ = error
                self._remember(rejection)
                raise
            if not accepted:
                raise self._remember(SandboxCallMatcherError(call.index, method, _summary(call)))
        if step.outcome == "error":
            raise step.value
        if step.outcome == "respond":
            return step, step.value(call)
        return step, step.value

    def _take(
        self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[SandboxCall, _Step]:
        """Record a call and take the head step, together."""
        args, kwargs = snapshot(args, f"{method}() args"), snapshot(kwargs, f"{method}() kwargs")
        copied: tuple[int | str, ...] = ()
        if method == _MANIFEST_METHOD:
            args, kwargs, copied = _copy_manifest(args, kwargs)
        # Frameworks call sync methods from worker threads: the index and the head step must
        # be handed out together, once. The copies above stay outside the lock.
        with self._lock:
            call = SandboxCall(len(self._calls), method, args, kwargs)
            if copied:
                call.__dict__[_COPIED] = copied
            self._calls.append(call)
            # The head step is used up even when it belongs to another method, as the
            # reference does.
            step = self._steps.popleft() if self._steps else None
        if step is None or step.method != method:
            expected = None if step is None else step.method
            raise self._remember(
                UnexpectedSandboxCallError(
                    call.index, method, expected, len(self._steps), _summary(call)
                )
            )
        return call, step

    def _remember(self, error: _Violation) -> _Violation:
        self._violations.append(error)
        return error


class _Deferred(Coroutine[Any, Any, Any]):
    """The coroutine an asynchronous scripted method returns, its outcome already decided.

    A hand-written coroutine rather than an ``async def`` one: calling the method needs no
    running event loop, a caller may drop the result without a "never awaited" warning, and
    ``asyncio.create_task`` / ``asyncio.run`` still accept it. Like a coroutine, it can be
    awaited once.
    """

    __slots__ = ("_error", "_pending", "_runner", "_value")

    def __init__(
        self,
        value: Any = None,
        *,
        error: BaseException | None = None,
        pending: Awaitable[Any] | None = None,
    ) -> None:
        self._value = value
        self._error = error
        self._pending = pending  # what a responder returned, awaited when this is awaited
        self._runner: Generator[Any, None, Any] | None = None

    def __await__(self) -> Generator[Any, None, Any]:
        if self._runner is not None:
            raise _reused()
        return self._drive()

    def send(self, value: Any) -> Any:
        return self._resume().send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        if self._runner is None:
            # Thrown into before it ever ran (a task cancelled before its first step): the
            # responder's coroutine will never run, so close it now rather than let it warn.
            self._drop_pending()
        # The three-argument form is deprecated since Python 3.12; asyncio uses one argument.
        if val is None and tb is None:
            return self._resume().throw(typ)
        return self._resume().throw(typ, val, tb)

    def close(self) -> None:
        self._drive().close()
        self._drop_pending()

    def __del__(self) -> None:
        if self._pending is not None:  # most calls have nothing pending: skip the call
            self._drop_pending()

    def _drive(self) -> Generator[Any, None, Any]:
        if self._runner is None:
            self._runner = self._run()
        return self._runner

    def _resume(self) -> Generator[Any, None, Any]:
        runner = self._drive()
        # A finished generator answers send() with a bare StopIteration (a driver would take it
        # for a second result) and throw() with the thrown error; a finished coroutine refuses.
        if inspect.getgeneratorstate(runner) == inspect.GEN_CLOSED:
            raise _reused()
        return runner

    def _run(self) -> Generator[Any, None, Any]:
        pending, self._pending = self._pending, None
        if pending is not None:
            return (yield from _await(pending).__await__())
        if self._error is not None:
            raise self._error
        return self._value

    def _drop_pending(self) -> None:
        # The caller dropped this call's result; close a responder's coroutine with it, so it
        # does not warn that it was never awaited.
        if inspect.iscoroutine(self._pending):
            self._pending.close()
        self._pending = None


def _reused() -> RuntimeError:
    return RuntimeError("cannot reuse an already awaited scripted sandbox call")


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _interface_modes(interface: _Interface) -> Mapping[str, SandboxMethodMode]:
    """Return the method table an interface describes, refusing names a session cannot hold."""
    if interface is None:
        return DEFAULT_SANDBOX_INTERFACE
    entries: Mapping[object, object]
    if isinstance(interface, type):
        entries = {
            name: "async" if inspect.iscoroutinefunction(member) else "sync"
            for name, member in inspect.getmembers(interface, inspect.isroutine)
            if not name.startswith("_")
        }
    elif isinstance(interface, Mapping):
        entries = cast(Mapping[object, object], interface)
    else:
        raise TypeError(
            "interface must be None, a class, or a mapping of method names to 'sync' or "
            f"'async'; got {type(interface).__name__}"
        )
    modes: dict[str, SandboxMethodMode] = {}
    for name, mode in entries.items():
        if not isinstance(name, str):
            raise TypeError(f"interface method names must be strings; got {_describe.value(name)}")
        if not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"interface method {name!r} must be a public identifier")
        if name in _RESERVED_NAMES:
            raise ValueError(
                f"interface method {name!r} clashes with ScriptedSandboxSession.{name}"
            )
        if mode not in ("sync", "async"):
            raise ValueError(
                f"interface method {name!r} must be 'sync' or 'async'; got {_describe.value(mode)}"
            )
        modes[name] = "sync" if mode == "sync" else "async"
    return modes


def _read_step(step: object, input_index: int, modes: Mapping[str, SandboxMethodMode]) -> _Step:
    """Validate one step in the reference's order and normalize it."""
    if not isinstance(step, Mapping):
        raise InvalidScriptedSandboxStepError("invalid_input", input_index)
    fields = cast(Mapping[str, Any], step)
    method = fields.get("method")
    if not isinstance(method, str) or method not in modes:
        named = method if isinstance(method, str) else None
        raise InvalidScriptedSandboxStepError("unknown_method", input_index, named)
    match = fields.get("match")  # None counts as absent, as the reference's undefined does
    if match is not None and not callable(match):
        raise InvalidScriptedSandboxStepError("invalid_matcher", input_index, method)
    outcomes: list[_Outcome] = [key for key in _OUTCOMES if key in fields]
    if len(outcomes) != 1:
        raise InvalidScriptedSandboxStepError("invalid_outcome", input_index, method)
    outcome = outcomes[0]
    value = fields[outcome]
    if outcome == "respond" and not callable(value):
        raise InvalidScriptedSandboxStepError(
            "invalid_outcome", input_index, method, "for {method} must use a function responder."
        )
    if outcome == "error" and not isinstance(value, BaseException):
        raise InvalidScriptedSandboxStepError(
            "invalid_outcome",
            input_index,
            method,
            "for {method} must use an exception instance as its error.",
        )
    if outcome == "result":
        # Later changes to the caller's object must not reach the call.
        value = snapshot(value, f"step #{input_index + 1} result")
    optional = fields.get("optional", False)
    if not isinstance(optional, bool):
        raise InvalidScriptedSandboxStepError(
            "invalid_input", input_index, method, 'for {method} must set "optional" to a bool.'
        )
    return _Step(method, match, outcome, value, input_index, optional)


def _summary(call: SandboxCall) -> str:
    return _describe.call(call.method, call.args, call.kwargs)


# The method whose manifest argument is recorded as sent, and the record's private note of
# where a copy of it sits (a position in ``args`` or a key of ``kwargs``).
_MANIFEST_METHOD = "apply_manifest"
_MANIFEST_KEYWORD = "manifest"
_COPIED = "_copied_manifest"


def _copy_manifest(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any], tuple[int | str, ...]]:
    """Deep-copy an ``apply_manifest`` call's manifest object, wherever it was passed.

    The snapshot keeps class instances by identity; a manifest is one, and the reference
    records a clone of it, so that a workflow, matcher or responder that edits the manifest
    after the call cannot change what the test reads. A plain-data manifest was already
    copied by the snapshot; one that cannot be deep-copied stays the caller's object.
    """
    copied: list[int | str] = []
    if args:
        manifest, is_copy = instance_copy(args[0])
        if is_copy:
            args = (manifest, *args[1:])
            copied.append(0)
    if _MANIFEST_KEYWORD in kwargs:
        manifest, is_copy = instance_copy(kwargs[_MANIFEST_KEYWORD])
        if is_copy:
            kwargs[_MANIFEST_KEYWORD] = manifest  # the snapshot's own dict: not the caller's
            copied.append(_MANIFEST_KEYWORD)
    return args, kwargs, tuple(copied)


def _detach_args(record: object, stored: tuple[Any, ...]) -> tuple[Any, ...]:
    args = snapshot(stored)
    if 0 in record.__dict__.get(_COPIED, ()):
        # A fresh copy of the recorded manifest on every read, as the reference clones it.
        args = (instance_copy(args[0])[0], *args[1:])
    return args


def _detach_kwargs(record: object, stored: dict[str, Any]) -> dict[str, Any]:
    kwargs = snapshot(stored)
    if _MANIFEST_KEYWORD in record.__dict__.get(_COPIED, ()):
        kwargs[_MANIFEST_KEYWORD] = instance_copy(kwargs[_MANIFEST_KEYWORD])[0]
    return kwargs


detach_on_read(SandboxCall, ("args",), _detach_args)
detach_on_read(SandboxCall, ("kwargs",), _detach_kwargs)
