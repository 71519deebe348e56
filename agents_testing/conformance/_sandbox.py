"""Checks a sandbox adapter passes on its real framework, over a harness the author supplies.

A sandbox adapter turns ``ScriptedSandboxSession`` into the framework's own session type.
The harness builds that session from core steps and has the framework run one shell command
through it; each check scripts the steps and raises ``ConformanceError`` naming the behavior
that broke.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from ..errors import (
    SandboxCallMatcherError,
    UnconsumedSandboxStepsError,
    UnexpectedSandboxCallError,
)
from ._checking import (
    HarnessMisuseError,
    chain,
    described,
    fail,
    method,
    raised,
    returned,
    run_harness,
)
from ._errors import ConformanceError

__all__ = [
    "SandboxHarness",
    "ScriptedSandboxFailure",
    "check_sandbox_command_output",
    "check_sandbox_error_reaches_the_framework",
    "check_sandbox_rejected_call_is_kept",
    "check_sandbox_unscripted_call_is_kept",
    "check_sandbox_unused_step_is_reported",
]

COMMAND = "pwd"
OUTPUT = "/workspace\n"

_E = TypeVar("_E", bound=AssertionError)


class ScriptedSandboxFailure(Exception):
    """The failure ``check_sandbox_error_reaches_the_framework`` scripts for the command."""


@runtime_checkable
class SandboxHarness(Protocol):
    """Drive one framework's sandbox through its sandbox adapter.

    The checks build the adapter's session from core sandbox steps (``session``), script the
    command's answer with ``command_step`` (adding a ``match`` or swapping ``result`` for
    ``error`` where they need to) and run one shell command through the framework.
    """

    @property
    def framework(self) -> str:
        """Name the framework in failure messages (for example ``"my-agents"``)."""
        ...

    def session(self, steps: Sequence[Mapping[str, Any]]) -> Any:
        """Build the adapter's session from core sandbox steps.

        Return the framework's session object; it has the core session's ``calls`` and
        ``assert_complete()`` (or forwards them), as ``ScriptedSandboxSession`` does.
        """
        ...

    def command_step(self, output: str) -> Mapping[str, Any]:
        """Return the core step that answers one shell command with ``output`` on stdout.

        For example ``{"method": "exec", "result": output}`` for an adapter whose ``exec``
        result shorthand takes text.
        """
        ...

    async def run_command(self, session: Any, command: str) -> str:
        """Have the framework run ``command`` through ``session``; return what it reported.

        Run it the way the framework's own agents do (a shell tool called by a scripted
        model, for example) and return the text the framework made of the command's
        outcome: its output, or the error report the framework gave its model.
        """
        ...


def _session(harness: object, steps: list[Mapping[str, Any]]) -> Any:
    session = method(harness, "session")(steps)
    for name in ("calls", "assert_complete"):
        if not hasattr(session, name):
            raise HarnessMisuseError(
                f"The session the harness's session() built ({type(session).__name__}) has no "
                f"{name}; forward the core ScriptedSandboxSession's calls and assert_complete()."
            )
    return session


def _step(harness: object, output: str) -> dict[str, Any]:
    step = method(harness, "command_step")(output)
    if not isinstance(step, Mapping):
        raise HarnessMisuseError(
            f"The harness's command_step() returned {type(step).__name__}; return a core "
            "sandbox step, a mapping such as {'method': 'exec', 'result': output}."
        )
    return dict(step)  # pyright: ignore[reportUnknownArgumentType]


async def _run(harness: object, session: Any) -> str:
    value = await run_harness(harness, "run_command", session, COMMAND)
    if not isinstance(value, str):
        raise HarnessMisuseError(
            f"The harness's run_command() returned {type(value).__name__}; return the text "
            "the framework reported as a str."
        )
    return value


def _calls(session: Any) -> list[Any]:
    calls: Iterable[Any] = session.calls
    return list(calls)


def _mentions(value: object, text: str) -> bool:
    """Return whether a str in ``value`` (or in its lists, tuples and mappings) holds ``text``."""
    if isinstance(value, str):
        return text in value
    items: Iterable[object] = ()
    if isinstance(value, (list, tuple)):
        items = cast("Iterable[object]", value)
    elif isinstance(value, Mapping):
        items = cast("Mapping[object, object]", value).values()
    return any(_mentions(item, text) for item in items)


def _check_complete(check: str, session: Any, fix: str) -> None:
    try:
        session.assert_complete()
    except (AssertionError, ValueError) as error:
        raise ConformanceError(
            check, "assert_complete() to pass", f"it raised {described(error)}", fix
        ) from error


def _kept(check: str, session: Any, kind: type[_E], fix: str) -> _E:
    try:
        session.assert_complete()
    except kind as error:
        return error
    except (AssertionError, ValueError) as error:
        raise ConformanceError(
            check,
            f"assert_complete() to raise {kind.__name__}",
            f"it raised {described(error)}",
            fix,
        ) from error
    fail(check, f"assert_complete() to raise {kind.__name__}", "it passed", fix)


def _reject(*args: object, **kwargs: object) -> bool:
    return False


async def check_sandbox_command_output(harness: SandboxHarness) -> None:
    """Check that a scripted command's output reaches the framework and the call is recorded.

    Scripts ``command_step("/workspace\\n")`` and runs ``pwd``: the framework reports the
    output, the session recorded exactly one call whose arguments mention ``pwd``, and the
    script is used up.

    Troubleshooting: send each of the framework's session calls to the core session
    (``invoke(method, *args, **kwargs)`` or its scripted method) exactly once, with the
    framework's own arguments, and convert the step's result into the framework's result
    type (stdout, exit code 0).
    """
    check = "check_sandbox_command_output"
    fix = (
        "Send each framework session call to the core session once, with the framework's "
        "arguments, and convert the step's result into the framework's result type."
    )
    session = _session(harness, [_step(harness, OUTPUT)])
    output = await returned(check, _run(harness, session), fix)
    if OUTPUT.strip() not in output:
        fail(check, f"the framework's report to hold {OUTPUT.strip()!r}", f"{output!r}", fix)
    calls = _calls(session)
    if len(calls) != 1 or not _mentions([calls[0].args, calls[0].kwargs], COMMAND):
        shown = [(call.method, call.args, call.kwargs) for call in calls]
        fail(check, f"one recorded call whose arguments mention {COMMAND!r}", f"{shown}", fix)
    _check_complete(check, session, fix)


async def check_sandbox_error_reaches_the_framework(harness: SandboxHarness) -> None:
    """Check that a scripted error step fails the command in the framework, not silently.

    Scripts the command's step with ``error=ScriptedSandboxFailure("disk full")``: the run
    either raises with that error in its chain (as cause or context), or the framework
    reports the failure to its model with the text ``disk full``.

    Troubleshooting: raise the step's error from the framework's session method (or wrap
    it with ``raise FrameworkError(...) from error``); do not turn it into an empty, successful
    result.
    """
    check = "check_sandbox_error_reaches_the_framework"
    fix = (
        "Raise the step's error from the session method (wrapped with 'from error' if the "
        "framework needs its own type); do not turn it into a successful result."
    )
    step = {key: value for key, value in _step(harness, OUTPUT).items() if key != "result"}
    step["error"] = ScriptedSandboxFailure("disk full")
    session = _session(harness, [step])
    failure: list[str] = []

    async def run() -> None:
        failure.append(await _run(harness, session))

    error = await raised(run())
    if error is not None:
        if not any(isinstance(link, ScriptedSandboxFailure) for link in chain(error)):
            raise ConformanceError(
                check,
                "the run to fail with ScriptedSandboxFailure in its chain",
                f"it raised {described(error)}",
                fix,
            ) from error
    elif "disk full" not in failure[0]:
        fail(check, "the framework's report to say 'disk full'", f"{failure[0]!r}", fix)
    _check_complete(check, session, fix)


async def check_sandbox_unscripted_call_is_kept(harness: SandboxHarness) -> None:
    """Check that a call the script does not expect is kept for ``assert_complete()``.

    Runs the command on a session with no steps. The framework may fail the run or report
    the error to its model; either way ``assert_complete()`` raises
    ``UnexpectedSandboxCallError`` for call 0.

    Troubleshooting: send calls to methods the script does not name to the core session too
    (``ScriptedSandboxSession.invoke``), which records and refuses them; do not answer them
    with a default result of your own.
    """
    check = "check_sandbox_unscripted_call_is_kept"
    fix = (
        "Send every session call to the core session (invoke() for methods the script does "
        "not name); never answer one with a default result of the adapter's own."
    )
    session = _session(harness, [])
    await raised(_run(harness, session))
    error = _kept(check, session, UnexpectedSandboxCallError, fix)
    if (error.call_index, error.expected_method) != (0, None):
        fail(
            check,
            "call_index=0, expected_method=None",
            f"call_index={error.call_index}, expected_method={error.expected_method!r}",
            fix,
        )


async def check_sandbox_rejected_call_is_kept(harness: SandboxHarness) -> None:
    """Check that a call the step's ``match`` rejects is kept for ``assert_complete()``.

    Scripts the command's step with a ``match`` that returns ``False``. The framework may
    fail the run or report the error to its model; either way ``assert_complete()`` raises
    ``SandboxCallMatcherError`` for call 0.

    Troubleshooting: forward ``assert_complete()`` to the core session unchanged; an adapter
    that catches ``AssertionError`` there hides the rejection.
    """
    check = "check_sandbox_rejected_call_is_kept"
    fix = "Forward assert_complete() to the core session without catching its errors."
    step = _step(harness, OUTPUT)
    step["match"] = _reject
    session = _session(harness, [step])
    await raised(_run(harness, session))
    error = _kept(check, session, SandboxCallMatcherError, fix)
    if error.call_index != 0:
        fail(check, "call_index=0", f"call_index={error.call_index}", fix)


async def check_sandbox_unused_step_is_reported(harness: SandboxHarness) -> None:
    """Check that a step the run never used fails ``assert_complete()``.

    Scripts two command steps and runs one command: ``assert_complete()`` raises
    ``UnconsumedSandboxStepsError`` with one remaining step.

    Troubleshooting: forward ``assert_complete()`` (and ``remaining_steps``) to the core
    session; do not take steps ahead of the framework's calls (prefetching, probing).
    """
    check = "check_sandbox_unused_step_is_reported"
    fix = (
        "Forward assert_complete() to the core session, and take a step only when the "
        "framework makes the call."
    )
    session = _session(harness, [_step(harness, OUTPUT), _step(harness, OUTPUT)])
    await returned(check, _run(harness, session), fix)
    error = _kept(check, session, UnconsumedSandboxStepsError, fix)
    if error.remaining_steps != 1:
        fail(check, "remaining_steps=1", f"remaining_steps={error.remaining_steps}", fix)
