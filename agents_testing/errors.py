"""Structured errors raised by the scripted doubles, one family per boundary.

Every error keeps its diagnostic fields as attributes (zero-based indices), shows one-based
positions in its message, and pickles with its fields intact. Failures a test should report
subclass ``AssertionError``; invalid scripts subclass ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

__all__ = [
    "IncompleteRealtimeScenarioError",
    "InvalidScriptedModelStepError",
    "InvalidScriptedModelStepReason",
    "InvalidScriptedSandboxStepError",
    "InvalidScriptedSandboxStepReason",
    "RealtimeCallMatcherError",
    "RealtimeTransportNotClosedError",
    "SandboxCallMatcherError",
    "ScriptedModelRequestAbortedError",
    "ScriptedRealtimeConnectionSupersededError",
    "ScriptedRealtimeScenarioCancelledError",
    "UnconsumedModelStepsError",
    "UnconsumedSandboxStepsError",
    "UnexpectedModelCallError",
    "UnexpectedRealtimeCallError",
    "UnexpectedSandboxCallError",
    "UnscriptedAgentError",
    "UnscriptedAgentReason",
]

InvalidScriptedModelStepReason = Literal[
    "invalid_input",
    "unknown_step_type",
    "missing_response",
    "invalid_response",
    "missing_error",
    "invalid_error",
    "invalid_retry_advice",
    "missing_responder",
    "invalid_stream",
    "incompatible_call",
]

InvalidScriptedSandboxStepReason = Literal[
    "invalid_input", "unknown_method", "invalid_matcher", "invalid_outcome"
]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _rebuild(cls: type[BaseException], fields: dict[str, Any]) -> BaseException:
    return cls(**fields)


class _StructuredError(Exception):
    """Mixin: rebuild from the keyword fields, so pickling and copying keep every field."""

    _fields: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        fields = {name: getattr(self, name) for name in self._fields}
        return (_rebuild, (type(self), fields), self.__dict__.copy())

    def _fresh(self) -> BaseException:
        """Return a new error of the same class with the same fields (no traceback)."""
        return type(self)(**{name: getattr(self, name) for name in self._fields})


# -- model -------------------------------------------------------------------------------


class UnexpectedModelCallError(_StructuredError, AssertionError):
    """The workflow made a model call after the script ran out."""

    _fields = ("call_index", "streamed")

    def __init__(self, call_index: int, streamed: bool) -> None:
        self.call_index = call_index
        self.streamed = streamed
        kind = "streaming" if streamed else "non-streaming"
        super().__init__(
            f"ScriptedModel received unexpected {kind} call #{call_index + 1}; "
            "no scripted steps remain."
        )


class UnconsumedModelStepsError(_StructuredError, AssertionError):
    """The workflow finished before it used every scripted model step."""

    _fields = ("remaining_steps",)

    def __init__(self, remaining_steps: int) -> None:
        self.remaining_steps = remaining_steps
        super().__init__(
            f"ScriptedModel has {_plural(remaining_steps, 'unconsumed scripted step')}."
        )


def _model_step_message(
    reason: str, input_index: int | None, call_index: int | None, step_type: object
) -> str:
    if input_index is None:
        call = f"#{call_index + 1}" if call_index is not None else "#?"
        if reason == "invalid_response":
            return f"ScriptedModel responder returned an invalid response for call {call}."
        if reason == "invalid_stream":
            return f"ScriptedModel stream responder returned an invalid stream for call {call}."
        if reason == "incompatible_call":
            return f"ScriptedModel cannot use raw stream step for non-streaming call {call}."
        return f"ScriptedModel call {call} is invalid ({reason.replace('_', ' ')})."
    position = f"ScriptedModel input #{input_index + 1}"
    if reason == "unknown_step_type" and isinstance(step_type, str) and step_type:
        return f'{position} has unknown type "{step_type}".'
    if reason == "invalid_response":
        return f"{position} has an invalid response envelope."
    return f"{position} is invalid ({reason.replace('_', ' ')})."


class InvalidScriptedModelStepError(_StructuredError, ValueError):
    """A scripted model step is malformed, or does not fit the call that took it.

    ``input_index`` is set for errors found by the constructor or ``enqueue`` (it counts
    within that call's inputs); ``call_index`` is set for errors found while serving a call.
    """

    _fields = ("reason", "input_index", "call_index", "step_type")

    def __init__(
        self,
        reason: InvalidScriptedModelStepReason,
        input_index: int | None = None,
        call_index: int | None = None,
        step_type: str | None = None,
    ) -> None:
        self.reason: InvalidScriptedModelStepReason = reason
        self.input_index = input_index
        self.call_index = call_index
        self.step_type = step_type
        super().__init__(_model_step_message(reason, input_index, call_index, step_type))


class ScriptedModelRequestAbortedError(_StructuredError, Exception):
    """The request's abort signal fired before or while the scripted step ran.

    ``call_index`` is ``None`` when the abort was seen before the call was recorded.
    """

    name = "AbortError"
    _fields = ("call_index",)

    def __init__(self, call_index: int | None = None) -> None:
        self.call_index = call_index
        super().__init__("Scripted model request was aborted.")


# -- sandbox -----------------------------------------------------------------------------


class UnexpectedSandboxCallError(_StructuredError, AssertionError):
    """The workflow called a sandbox method other than the next scripted one."""

    _fields = ("call_index", "actual_method", "expected_method", "remaining_steps")

    def __init__(
        self,
        call_index: int,
        actual_method: str,
        expected_method: str | None,
        remaining_steps: int,
    ) -> None:
        self.call_index = call_index
        self.actual_method = actual_method
        self.expected_method = expected_method
        self.remaining_steps = remaining_steps
        expected = f"expected {expected_method}" if expected_method else "no scripted steps remain"
        super().__init__(
            f"Scripted sandbox session received unexpected {actual_method} call "
            f"#{call_index + 1}; {expected}."
        )


class SandboxCallMatcherError(_StructuredError, AssertionError):
    """A sandbox step's matcher returned ``False`` for the call it was given."""

    _fields = ("call_index", "method")

    def __init__(self, call_index: int, method: str) -> None:
        self.call_index = call_index
        self.method = method
        super().__init__(
            f"Scripted sandbox session matcher rejected {method} call #{call_index + 1}."
        )


class UnconsumedSandboxStepsError(_StructuredError, AssertionError):
    """The workflow finished before it used every scripted sandbox step."""

    _fields = ("remaining_steps", "pending_methods")

    def __init__(self, remaining_steps: int, pending_methods: Sequence[str]) -> None:
        self.remaining_steps = remaining_steps
        self.pending_methods: tuple[str, ...] = tuple(pending_methods)
        super().__init__(
            "Scripted sandbox session has "
            f"{_plural(self.remaining_steps, 'unconsumed step')}: "
            f"{', '.join(self.pending_methods)}."
        )


_SANDBOX_STEP_MESSAGES = {
    "invalid_input": "must be an object.",
    "unknown_method": "has an unknown method.",
    "invalid_matcher": "for {method} must use a function matcher.",
    "invalid_outcome": "for {method} must define exactly one of result, respond, or error.",
}


class InvalidScriptedSandboxStepError(_StructuredError, ValueError):
    """A scripted sandbox step is malformed or names a method the interface lacks."""

    _fields = ("reason", "input_index", "method", "detail")

    def __init__(
        self,
        reason: InvalidScriptedSandboxStepReason,
        input_index: int,
        method: str | None = None,
        detail: str | None = None,
    ) -> None:
        self.reason: InvalidScriptedSandboxStepReason = reason
        self.input_index = input_index
        self.method = method
        # ``detail`` replaces the reason's default wording; the reference uses it for
        # "must use a function responder", which shares the invalid_outcome reason.
        self.detail = detail
        text = detail if detail is not None else _SANDBOX_STEP_MESSAGES[reason]
        super().__init__(f"Scripted sandbox step #{input_index + 1} {text.format(method=method)}")


# -- realtime ----------------------------------------------------------------------------


class UnexpectedRealtimeCallError(_StructuredError, AssertionError):
    """An outbound transport call did not match the next expectation's method."""

    _fields = ("call_index", "expected_method", "actual_method")

    def __init__(self, call_index: int, expected_method: str, actual_method: str) -> None:
        self.call_index = call_index
        self.expected_method = expected_method
        self.actual_method = actual_method
        super().__init__(
            f"ScriptedRealtimeTransport expected {expected_method} but received "
            f"{actual_method} call #{call_index + 1}."
        )


class RealtimeCallMatcherError(_StructuredError, AssertionError):
    """An expectation's matcher returned ``False`` for the call it was given."""

    _fields = ("call_index", "actual_method")

    def __init__(self, call_index: int, actual_method: str) -> None:
        self.call_index = call_index
        self.actual_method = actual_method
        super().__init__(
            f"ScriptedRealtimeTransport matcher rejected {actual_method} call #{call_index + 1}."
        )


def _pending_list(pending_expectations: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"#{item['order']} {item['method']}" for item in pending_expectations)


class IncompleteRealtimeScenarioError(_StructuredError, AssertionError):
    """Calls, expectations or injected failures were left over at the end of a test.

    Fields hold tuples of dicts: ``unconsumed_calls`` entries are ``{"index", "method"}``,
    ``pending_expectations`` entries ``{"order", "method"}`` and ``pending_failures``
    entries ``{"method", "count"}``.
    """

    _fields = ("unconsumed_calls", "pending_expectations", "pending_failures")

    def __init__(
        self,
        unconsumed_calls: Sequence[Mapping[str, Any]] = (),
        pending_expectations: Sequence[Mapping[str, Any]] = (),
        pending_failures: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.unconsumed_calls: tuple[dict[str, Any], ...] = tuple(
            dict(item) for item in unconsumed_calls
        )
        self.pending_expectations: tuple[dict[str, Any], ...] = tuple(
            dict(item) for item in pending_expectations
        )
        self.pending_failures: tuple[dict[str, Any], ...] = tuple(
            dict(item) for item in pending_failures
        )
        failures = sum(int(item["count"]) for item in self.pending_failures)
        expectations = _plural(len(self.pending_expectations), "pending expectation")
        if self.pending_expectations:
            expectations += f" ({_pending_list(self.pending_expectations)})"
        super().__init__(
            "ScriptedRealtimeTransport scenario is incomplete: "
            f"{_plural(len(self.unconsumed_calls), 'unconsumed call')}, {expectations}, "
            f"and {_plural(failures, 'pending failure')}."
        )


class ScriptedRealtimeScenarioCancelledError(_StructuredError, AssertionError):
    """A scenario run was stopped by its timeout or signal before it finished."""

    name = "AbortError"
    _fields = ("pending_expectations",)

    def __init__(self, pending_expectations: Sequence[Mapping[str, Any]] = ()) -> None:
        self.pending_expectations: tuple[dict[str, Any], ...] = tuple(
            dict(item) for item in pending_expectations
        )
        message = "ScriptedRealtimeTransport scenario was cancelled"
        if self.pending_expectations:
            message += f" with pending expectations: {_pending_list(self.pending_expectations)}"
        super().__init__(message + ".")


class RealtimeTransportNotClosedError(_StructuredError, AssertionError):
    """The transport was not disconnected when the test asserted it was closed."""

    _fields = ("status",)

    def __init__(self, status: str) -> None:
        self.status = status
        super().__init__(f"ScriptedRealtimeTransport is not closed; current status is {status}.")


class ScriptedRealtimeConnectionSupersededError(_StructuredError, Exception):
    """A connect attempt was overtaken by another lifecycle operation."""

    _fields = ("operation",)

    def __init__(self, operation: Literal["connect"] = "connect") -> None:
        self.operation: Literal["connect"] = operation
        super().__init__(
            "ScriptedRealtimeTransport connection attempt was superseded by another "
            "lifecycle operation."
        )


# -- model routing (adapters) ----------------------------------------------------------------

UnscriptedAgentReason = Literal["no_script", "route_closed", "unknown_agent"]


def _unscripted_agent_message(
    agent_name: str | None,
    reason: str,
    call_index: int,
    scripted_agent_names: Sequence[str],
) -> str:
    call = f"routed model call #{call_index + 1} (call_index={call_index})"
    if reason == "route_closed":
        return (
            f'Agent "{agent_name}" made {call} after its route_openai_agents_models block '
            "ended; finish the run inside the block (for Runner.run_streamed, consume "
            "stream_events() before leaving it)."
        )
    if reason == "unknown_agent":
        return (
            f"The runner made {call} without naming its agent: this openai-agents version "
            "no longer calls RunConfig.call_model_input_filter before each model call, which "
            "route_openai_agents_models relies on; use a supported openai-agents version."
        )
    scripted = ", ".join(f'"{name}"' for name in scripted_agent_names)
    return (
        f'Agent "{agent_name}" made {call}, but route_openai_agents_models has no script '
        f"for it (scripted agents: {scripted}); add "
        f'"{agent_name}": ScriptedModel([...]) to the mapping, or pass one ScriptedModel '
        "for every agent."
    )


class UnscriptedAgentError(_StructuredError, AssertionError):
    """A routed run called the model of an agent that has no script.

    ``reason`` is ``"no_script"`` when the mapping names no script for ``agent_name``,
    ``"route_closed"`` when the call came after the block ended, and ``"unknown_agent"`` when
    the runner did not say which agent is calling. ``call_index`` counts the model calls
    routed by the block, from zero.
    """

    _fields = ("agent_name", "reason", "call_index", "scripted_agent_names")

    def __init__(
        self,
        agent_name: str | None,
        reason: UnscriptedAgentReason,
        call_index: int,
        scripted_agent_names: Sequence[str] = (),
    ) -> None:
        self.agent_name = agent_name
        self.reason: UnscriptedAgentReason = reason
        self.call_index = call_index
        self.scripted_agent_names = tuple(scripted_agent_names)
        super().__init__(
            _unscripted_agent_message(agent_name, reason, call_index, self.scripted_agent_names)
        )
