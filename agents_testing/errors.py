"""Structured errors raised by the scripted doubles, one family per boundary.

Every error keeps its diagnostic fields as attributes (zero-based indices), shows one-based
positions in its message, and pickles with its fields intact. Failures a test should report
subclass ``AssertionError``; invalid scripts subclass ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

__all__ = [
    "GenAIConventionError",
    "GenAIConventionReason",
    "IncompleteRealtimeScenarioError",
    "InvalidRealtimeEventError",
    "InvalidScriptedMCPStepError",
    "InvalidScriptedMCPStepReason",
    "InvalidScriptedModelOutputError",
    "InvalidScriptedModelStepError",
    "InvalidScriptedModelStepReason",
    "InvalidScriptedSandboxStepError",
    "InvalidScriptedSandboxStepReason",
    "InvalidScriptedVoiceStepError",
    "InvalidScriptedVoiceStepReason",
    "MCPProtocolError",
    "MCPProtocolErrorReason",
    "RealtimeCallMatcherError",
    "RealtimeEventLoopError",
    "RealtimeThreadError",
    "RealtimeTransportNotClosedError",
    "RepeatedMCPListError",
    "ReplayDriftReason",
    "ReplayRequestDriftError",
    "SandboxCallMatcherError",
    "ScriptedHTTPError",
    "ScriptedJSONRPCError",
    "ScriptedModelRequestAbortedError",
    "ScriptedRealtimeConnectionSupersededError",
    "ScriptedRealtimeScenarioCancelledError",
    "UnconsumedMCPStepsError",
    "UnconsumedModelStepsError",
    "UnconsumedSandboxStepsError",
    "UnconsumedVoiceStepsError",
    "UnexpectedMCPCallError",
    "UnexpectedModelCallError",
    "UnexpectedRealtimeCallError",
    "UnexpectedSandboxCallError",
    "UnexpectedVoiceCallError",
    "UnscriptedAgentError",
    "UnscriptedAgentReason",
    "VoiceCallMatcherError",
    "VoiceService",
    "WireRequestError",
    "WireRequestReason",
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
    "invalid_output_item",
    "invalid_stream_event",
]

GenAIConventionReason = Literal["missing", "malformed", "no_model_call_spans"]

WireRequestReason = Literal[
    "method_not_allowed",
    "unknown_path",
    "malformed_json",
    "invalid_body",
    "unknown_model",
    "unsupported_output",
    "malformed_request",
    "request_too_large",
    "too_deep",
    "script_error",
]

InvalidScriptedSandboxStepReason = Literal[
    "invalid_input", "unknown_method", "invalid_matcher", "invalid_outcome"
]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _position(label: str, field: str, index: int) -> str:
    """Return an unambiguous position: the one-based number and the zero-based field."""
    return f"{label} #{index + 1} ({field}={index})"


def _step_list(steps: Sequence[Mapping[str, Any]], what: str) -> str:
    return "; ".join(
        f"{_position('step', 'step_index', int(step['step_index']))} "
        f"{step[what]}: {step['summary']}"
        for step in steps
    )


def _sent(call_summary: str | None, verb: str = "sent") -> str:
    return "" if call_summary is None else f" {verb}: {call_summary}"


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

    _fields = ("call_index", "streamed", "call_summary")

    def __init__(self, call_index: int, streamed: bool, call_summary: str | None = None) -> None:
        self.call_index = call_index
        self.streamed = streamed
        # What the code under test sent (last input item, tools offered), shortened.
        self.call_summary = call_summary
        kind = "streaming" if streamed else "non-streaming"
        super().__init__(
            f"ScriptedModel received unexpected {kind} call #{call_index + 1}; "
            "no scripted steps remain. "
            f"{_position('Call', 'call_index', call_index)}{_sent(call_summary)}. "
            "Add a step for it to the script (ScriptedModel([...]) or model.enqueue(...)), "
            "or find why the code under test called the model again."
        )


class UnconsumedModelStepsError(_StructuredError, AssertionError):
    """The workflow finished before it used every scripted model step.

    ``remaining_steps`` counts every step left, optional ones included; ``pending_steps``
    holds one ``{"step_index", "type", "summary"}`` dict per step left, where ``step_index``
    is the step's zero-based position in the whole script.
    """

    _fields = ("remaining_steps", "pending_steps")

    def __init__(
        self, remaining_steps: int, pending_steps: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        self.remaining_steps = remaining_steps
        self.pending_steps: tuple[dict[str, Any], ...] = tuple(dict(step) for step in pending_steps)
        message = f"ScriptedModel has {_plural(remaining_steps, 'unconsumed scripted step')}."
        if self.pending_steps:
            message += f" Pending: {_step_list(self.pending_steps, 'type')}."
        super().__init__(
            message + " Remove the steps the workflow does not need (or wrap one that may go "
            "unused in optional_step(...)); if they should have run, find why the code "
            "under test stopped calling the model."
        )


_MODEL_STEP_HINTS = {
    "invalid_input": "a step is a list of output items, a ModelResponse, or a step built by "
    "model_response(), model_error(), model_responder(), model_stream() or "
    "model_stream_responder().",
    "unknown_step_type": 'a step\'s "type" is one of response, error, responder, stream or '
    "stream_responder; to script output items, put them in a list: [[item, ...]].",
    "missing_response": 'add the "response" key, or build the step with model_response([...]).',
    "invalid_response": "a response is a list of output items, or "
    "ModelResponse(output=[...], usage=Usage()) with a str or None response_id and request_id.",
    "missing_error": 'script an exception instance: model_error(RuntimeError("...")).',
    "invalid_error": 'script an exception instance: model_error(RuntimeError("...")).',
    "invalid_retry_advice": "pass a ModelRetryAdvice, or a synchronous function that returns "
    "one or None.",
    "missing_responder": "pass a function of the recorded call: "
    "model_responder(lambda call: [...]).",
    "invalid_stream": "pass a list, iterable or async iterable of stream events.",
    "incompatible_call": "this call was not streamed: script model_response([...]) for it, "
    "or make the call streamed.",
    "invalid_output_item": "an output item is a mapping such as assistant_message(...) or "
    "function_call(...), or a framework's own output object.",
    "invalid_stream_event": "script response_started, output_text_delta, response_done or "
    '{"type": "model", "event": <the framework\'s own event>} events.',
}

_MODEL_CALL_HINTS = {
    "invalid_response": "the responder must return a list of output items or a ModelResponse "
    "(with a str or None response_id and request_id).",
    "invalid_stream": "the stream responder must return an iterable or async iterable of "
    "stream events.",
}


def _model_step_hint(
    reason: str,
    input_index: int | None,
    call_index: int | None,
    output_index: int | None,
    detail: str | None,
    call_summary: str | None,
) -> str:
    if input_index is not None:
        position = _position("Input", "input_index", input_index)
        hint = detail or _MODEL_STEP_HINTS.get(reason, "")
    elif call_index is not None:
        position = _position("Call", "call_index", call_index) + _sent(call_summary)
        hint = detail or _MODEL_CALL_HINTS.get(reason) or _MODEL_STEP_HINTS.get(reason, "")
    else:
        return "" if detail is None else f" {detail}"
    if output_index is not None:
        position += f", {_position('output item', 'output_index', output_index)}"
    return f" {position}: {hint}"


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
    ``output_index`` names the output item at fault (reason ``invalid_output_item``);
    ``detail`` replaces the reason's usual advice on how to fix the step; ``call_summary``
    says what the call that took the step sent.
    """

    _fields = (
        "reason",
        "input_index",
        "call_index",
        "step_type",
        "output_index",
        "detail",
        "call_summary",
    )

    def __init__(
        self,
        reason: InvalidScriptedModelStepReason,
        input_index: int | None = None,
        call_index: int | None = None,
        step_type: str | None = None,
        output_index: int | None = None,
        detail: str | None = None,
        call_summary: str | None = None,
    ) -> None:
        self.reason: InvalidScriptedModelStepReason = reason
        self.input_index = input_index
        self.call_index = call_index
        self.step_type = step_type
        self.output_index = output_index
        self.detail = detail
        self.call_summary = call_summary
        super().__init__(
            _model_step_message(reason, input_index, call_index, step_type)
            + _model_step_hint(reason, input_index, call_index, output_index, detail, call_summary)
        )


class InvalidScriptedModelOutputError(_StructuredError, ValueError):
    """An adapter cannot turn a scripted output item into its framework's type.

    A script mistake found while serving call ``call_index``: ``output_index`` is the item's
    position in that response, ``item_type`` its ``type`` (or Python type name), ``reason``
    what the framework said, and ``framework`` which adapter refused it. The model records
    it, so ``assert_complete()`` raises it again even if the framework swallowed it.
    """

    _fields = ("call_index", "output_index", "item_type", "reason", "framework")

    def __init__(
        self,
        call_index: int,
        output_index: int,
        item_type: str | None,
        reason: str,
        framework: str | None = None,
    ) -> None:
        self.call_index = call_index
        self.output_index = output_index
        self.item_type = item_type
        self.reason = reason
        self.framework = framework
        target = framework or "the framework"
        super().__init__(
            f"ScriptedModel {_position('call', 'call_index', call_index)} "
            f"{_position('output item', 'output_index', output_index)} "
            f"of type {item_type!r} is not valid for {target}: "
            f"{_shorten(reason, 200).rstrip('.')}. "
            "Fix the item in the script: build it with assistant_message() or "
            f"function_call(), or as another item or object that {target} accepts."
        )


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


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

    _fields = (
        "call_index",
        "actual_method",
        "expected_method",
        "remaining_steps",
        "call_summary",
    )

    def __init__(
        self,
        call_index: int,
        actual_method: str,
        expected_method: str | None,
        remaining_steps: int,
        call_summary: str | None = None,
    ) -> None:
        self.call_index = call_index
        self.actual_method = actual_method
        self.expected_method = expected_method
        self.remaining_steps = remaining_steps
        # The call as the code under test made it, arguments shortened.
        self.call_summary = call_summary
        expected = f"expected {expected_method}" if expected_method else "no scripted steps remain"
        if expected_method:
            fix = (
                f"Add a step for {actual_method} before the {expected_method} step, or find why "
                f"the code under test called {actual_method} instead."
            )
        else:
            fix = (
                f"Add a step for {actual_method} at the end of the script, or find why the code "
                "under test made this call."
            )
        super().__init__(
            f"Scripted sandbox session received unexpected {actual_method} call "
            f"#{call_index + 1}; {expected}. "
            f"{_position('Call', 'call_index', call_index)}{_sent(call_summary, 'was')}. {fix}"
        )


class SandboxCallMatcherError(_StructuredError, AssertionError):
    """A sandbox step's matcher returned ``False`` for the call it was given."""

    _fields = ("call_index", "method", "call_summary")

    def __init__(self, call_index: int, method: str, call_summary: str | None = None) -> None:
        self.call_index = call_index
        self.method = method
        self.call_summary = call_summary
        super().__init__(
            f"Scripted sandbox session matcher rejected {method} call #{call_index + 1}. "
            f"{_position('Call', 'call_index', call_index)}{_sent(call_summary, 'was')}. "
            "Fix the step's match function, or the code under test that made the call."
        )


class UnconsumedSandboxStepsError(_StructuredError, AssertionError):
    """The workflow finished before it used every scripted sandbox step.

    ``pending_steps`` holds one ``{"step_index", "method", "summary"}`` dict per step left,
    where ``step_index`` is the step's zero-based position in the script.
    """

    _fields = ("remaining_steps", "pending_methods", "pending_steps")

    def __init__(
        self,
        remaining_steps: int,
        pending_methods: Sequence[str],
        pending_steps: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.remaining_steps = remaining_steps
        self.pending_methods: tuple[str, ...] = tuple(pending_methods)
        self.pending_steps: tuple[dict[str, Any], ...] = tuple(dict(step) for step in pending_steps)
        message = (
            "Scripted sandbox session has "
            f"{_plural(self.remaining_steps, 'unconsumed step')}: "
            f"{', '.join(self.pending_methods)}."
        )
        if self.pending_steps:
            message += f" Pending: {_step_list(self.pending_steps, 'method')}."
        super().__init__(
            message + ' Remove the steps the workflow does not need (or add "optional": True '
            "to one that may go unused); if they should have run, find why the code under "
            "test stopped calling the sandbox."
        )


_SANDBOX_STEP_HINTS = {
    "invalid_input": 'a step is a mapping such as {"method": "exec", "result": ...}.',
    "unknown_method": '"method" must name a method of the session interface; pass '
    "interface=... to script the methods of another session type.",
    "invalid_matcher": '"match" must be a function of the call\'s arguments that returns '
    "False to reject the call.",
    "invalid_outcome": 'give exactly one of "result" (the value), "respond" (a function of '
    'the recorded call) or "error" (an exception instance).',
}

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
        hint = _SANDBOX_STEP_HINTS[reason]
        if reason == "invalid_input" and method is not None:
            # A mapping naming a known method: what is wrong is one of its flags.
            hint = 'leave "optional" out, or set it to True for a step that may go unused.'
        if reason == "unknown_method" and method is not None:
            hint = f"{method!r} is not in the session interface; " + hint
        super().__init__(
            f"Scripted sandbox step #{input_index + 1} {text.format(method=method)} "
            f"{_position('Step', 'input_index', input_index)}: {hint}"
        )


# -- realtime ----------------------------------------------------------------------------


class UnexpectedRealtimeCallError(_StructuredError, AssertionError):
    """An outbound transport call did not match the next expectation's method."""

    _fields = ("call_index", "expected_method", "actual_method", "call_summary")

    def __init__(
        self,
        call_index: int,
        expected_method: str,
        actual_method: str,
        call_summary: str | None = None,
    ) -> None:
        self.call_index = call_index
        self.expected_method = expected_method
        self.actual_method = actual_method
        self.call_summary = call_summary
        super().__init__(
            f"ScriptedRealtimeTransport expected {expected_method} but received "
            f"{actual_method} call #{call_index + 1}. "
            f"{_position('Call', 'call_index', call_index)}{_sent(call_summary, 'was')}. "
            f'Expect it first with expect_call("{actual_method}"), or find why the code under '
            f"test called {actual_method} instead of {expected_method}."
        )


class RealtimeCallMatcherError(_StructuredError, AssertionError):
    """An expectation's matcher returned ``False`` for the call it was given."""

    _fields = ("call_index", "actual_method", "call_summary")

    def __init__(
        self, call_index: int, actual_method: str, call_summary: str | None = None
    ) -> None:
        self.call_index = call_index
        self.actual_method = actual_method
        self.call_summary = call_summary
        super().__init__(
            f"ScriptedRealtimeTransport matcher rejected {actual_method} call #{call_index + 1}. "
            f"{_position('Call', 'call_index', call_index)}{_sent(call_summary, 'was')}. "
            "Fix the expectation's matcher, or the code under test that made the call."
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
        fixes: list[str] = []
        if self.unconsumed_calls:
            calls = ", ".join(
                f"{_position('call', 'call_index', int(item['index']))} {item['method']}"
                for item in self.unconsumed_calls
            )
            fixes.append(f"Unconsumed: {calls}; expect them with expect_call(...).")
        if self.pending_expectations:
            fixes.append(
                "Remove the expectations the code under test never meets, or find why it "
                "stopped before making those calls."
            )
        if self.pending_failures:
            methods = ", ".join(str(item["method"]) for item in self.pending_failures)
            fixes.append(
                f"Failures scripted with fail_next_call() for {methods} were never raised: "
                "remove them or make the calls they fail."
            )
        super().__init__(
            "ScriptedRealtimeTransport scenario is incomplete: "
            f"{_plural(len(self.unconsumed_calls), 'unconsumed call')}, {expectations}, "
            f"and {_plural(failures, 'pending failure')}." + "".join(f" {fix}" for fix in fixes)
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


class RealtimeEventLoopError(_StructuredError, RuntimeError):
    """A realtime operation that needs asyncio ran without a running asyncio event loop.

    ``running_library`` names the async library that was running instead (``"trio"``), or
    is ``None`` when no event loop was running at all.
    """

    _fields = ("operation", "running_library")

    def __init__(self, operation: str, running_library: str | None = None) -> None:
        self.operation = operation
        self.running_library = running_library
        where = (
            f"under {running_library} (running_library={running_library!r})"
            if running_library
            else "outside any event loop (running_library=None)"
        )
        super().__init__(
            f"ScriptedRealtimeTransport.{operation}() needs a running asyncio event loop, but "
            f"it was called {where}. The realtime double is built on asyncio futures and "
            "tasks, so run this code on asyncio: in a script, asyncio.run(main()); with "
            "pytest-asyncio, mark the test @pytest.mark.asyncio; with anyio, run the test on "
            'the asyncio backend (an anyio_backend fixture that returns "asyncio").'
        )


class RealtimeThreadError(_StructuredError, RuntimeError):
    """A transport call came from a thread other than the one running the transport's loop.

    While a ``run_scenario`` runs or an expectation is pending, a call settles asyncio
    futures, which only the thread running their event loop may do. While a connected
    openai-agents realtime model's loop runs, the same holds for what notifies listeners
    (``emit``, ``connect``, ``close``, ``disconnect``): the model hands events to tasks on
    that loop. ``operation`` is the transport method that was called; nothing was recorded
    or emitted, and the status did not change.
    """

    _fields = ("operation",)

    def __init__(self, operation: str) -> None:
        self.operation = operation
        bound_to = "scenario run or pending expectations"
        outcome = "nothing was recorded"
        if operation in ("emit", "connect", "close", "disconnect"):
            # They notify listeners: a connected openai-agents realtime model binds them too.
            bound_to = (
                "scenario run, pending expectations or connected openai-agents realtime model"
            )
            outcome = {
                "emit": "nothing was emitted",
                "disconnect": "nothing was emitted and the status did not change",
            }.get(operation, "nothing was recorded or emitted and the status did not change")
        if operation == "expect_call":
            # An expectation is a future of the loop it waits on: it cannot be handed over.
            fix = (
                ". Set expectations up on the loop's thread (in the scenario or the test), "
                "before the work goes to a thread."
            )
        else:
            fix = (
                ", so make the call there: from the worker thread, "
                f"loop.call_soon_threadsafe(transport.{operation}, ...) with the loop the test "
                "runs on, or return to the loop first (await asyncio.to_thread(work), then "
                "call the transport)."
            )
        super().__init__(
            f"ScriptedRealtimeTransport.{operation}() was called from a thread that does not "
            f"run the event loop of the transport's {bound_to} (operation={operation!r}); "
            f"{outcome}. Asyncio futures and tasks may only be used on their event loop's "
            f"thread{fix}"
        )


class InvalidRealtimeEventError(_StructuredError, TypeError, ValueError):
    """An adapter cannot turn an emitted realtime event into its framework's event.

    Raised from the test's own ``emit`` call: ``event_type`` is the event name passed to
    ``emit``, ``reason`` what is wrong with its payload, and ``framework`` which adapter
    refused it. Nothing is delivered for the event.
    """

    # Both bases: the adapter used to raise a bare TypeError (wrong payload type) or
    # ValueError (missing or bad field), and code catching either still catches this.
    _fields = ("event_type", "reason", "framework")

    def __init__(self, event_type: str, reason: str, framework: str | None = None) -> None:
        self.event_type = event_type
        self.reason = reason
        self.framework = framework
        target = framework or "the framework"
        super().__init__(
            f"Emitted realtime event {event_type!r} is not valid for {target}: "
            f"{_shorten(reason, 300).rstrip('.')}. Fix the payload passed to "
            f"emit({event_type!r}, ...): give it the fields {target} needs for this event "
            "(docs/realtime.md lists them), or emit the framework's own event as "
            "'model_event'."
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
        self.scripted_agent_names: tuple[str, ...] = tuple(scripted_agent_names)
        super().__init__(
            _unscripted_agent_message(agent_name, reason, call_index, self.scripted_agent_names)
        )


# -- wire --------------------------------------------------------------------------------


class ScriptedHTTPError(_StructuredError, Exception):
    """Script a provider HTTP error: the wire endpoint answers with this status and body.

    Use it as the error of a ``model_error`` step. ``retry_after`` (seconds) is sent as the
    ``retry-after`` and ``retry-after-ms`` headers, so the client's own retry logic waits
    that long; ``error_type`` and ``code`` replace the provider's usual values for the status.
    """

    _fields = ("status", "message", "retry_after", "error_type", "code")

    def __init__(
        self,
        status: int,
        message: str | None = None,
        *,
        retry_after: float | None = None,
        error_type: str | None = None,
        code: str | None = None,
    ) -> None:
        if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
            raise ValueError(
                f"ScriptedHTTPError status must be an int from 400 to 599, got {status!r}"
            )
        if retry_after is not None and (
            isinstance(retry_after, bool)
            or not isinstance(retry_after, (int, float))
            or not 0 <= retry_after < float("inf")
        ):
            raise ValueError(
                f"ScriptedHTTPError retry_after must be a finite number of seconds >= 0, "
                f"got {retry_after!r}"
            )
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.error_type = error_type
        self.code = code
        super().__init__(message or f"Scripted HTTP error {status}.")


_WIRE_HINTS: dict[str, str] = {
    "method_not_allowed": "send the model request as a POST.",
    "unknown_path": (
        "point the client's base URL at the server: OpenAI clients at server.base_url "
        "(ending in /v1), Anthropic clients at server.url; the served paths end in "
        "/responses, /chat/completions or /messages."
    ),
    "malformed_json": "send a JSON object as the request body.",
    "invalid_body": "send the fields the provider's API requires.",
    "unknown_model": "route this model name (or path) to a ScriptedModel, or fix the name.",
    "unsupported_output": "script only items this wire format can express.",
    "malformed_request": (
        "send a well-formed HTTP/1.1 request: a 'METHOD /path HTTP/1.1' line, 'Name: value' "
        "headers, and a body of exactly its Content-Length or in valid chunks."
    ),
    "request_too_large": ("send a smaller body, or raise ScriptedServer(max_body_bytes=...)."),
    "too_deep": (
        "send a body nested at most 256 levels deep: flatten the data the code under test "
        "puts in the request."
    ),
    "script_error": (
        "the script raised while answering this request (its exception is the __cause__): "
        "fix the responder or stream, or the code under test if the script's assertion is "
        "right. Script an HTTP error with model_error() or ScriptedHTTPError instead."
    ),
}


class WireRequestError(_StructuredError, AssertionError):
    """A request reached a wire endpoint that it could not serve.

    The endpoint answers the client with an HTTP error and keeps this violation, so
    ``assert_complete()`` raises it even if the client swallowed the HTTP error.
    ``request_index`` counts the endpoint's HTTP requests from zero.
    """

    _fields = ("reason", "request_index", "method", "path", "detail")

    def __init__(
        self,
        reason: WireRequestReason,
        request_index: int,
        method: str,
        path: str,
        detail: str | None = None,
    ) -> None:
        self.reason: WireRequestReason = reason
        self.request_index = request_index
        self.method = method
        self.path = path
        self.detail = detail
        what = reason.replace("_", " ")
        if detail:
            what += f" ({detail})"
        super().__init__(
            f"Scripted wire endpoint request #{request_index + 1} "
            f"(request_index={request_index}) {method} {path}: {what}; "
            f"{_WIRE_HINTS.get(reason, 'fix the request.')}"
        )


# -- MCP server ------------------------------------------------------------------------------

InvalidScriptedMCPStepReason = Literal[
    "invalid_input",
    "invalid_name",
    "invalid_arguments",
    "invalid_outcome",
    "invalid_result",
    "invalid_error",
    "invalid_notification",
    "invalid_timing",
]

MCPProtocolErrorReason = Literal[
    "malformed_json",
    "invalid_request",
    "batch_request",
    "too_large",
    "too_deep",
    "unknown_method",
    "invalid_params",
    "unknown_session",
]


class ScriptedJSONRPCError(_StructuredError, Exception):
    """Script a JSON-RPC error: the MCP server answers the request with this error object.

    Use it as the ``error`` of a scripted MCP step. ``code`` is the JSON-RPC error code
    (``-32602`` invalid params, ``-32002`` resource not found, or a code of your own);
    ``data`` is sent as the error's ``data`` member when it is not ``None``.
    """

    _fields = ("code", "message", "data")

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"ScriptedJSONRPCError code must be an int, got {code!r}")
        if not isinstance(message, str):
            raise TypeError(f"ScriptedJSONRPCError message must be a str, got {message!r}")
        self.code = code
        self.message = message
        self.data = data
        super().__init__(f"JSON-RPC error {code}: {message}")


class UnexpectedMCPCallError(_StructuredError, AssertionError):
    """The agent sent an MCP request that no scripted step expects.

    ``expected`` describes the step the call had to match (``None`` when no step was left
    for it); ``step_index`` is that step's zero-based place in the script.
    """

    _fields = ("call_index", "method", "call_summary", "expected", "step_index")

    def __init__(
        self,
        call_index: int,
        method: str,
        call_summary: str | None = None,
        expected: str | None = None,
        step_index: int | None = None,
    ) -> None:
        self.call_index = call_index
        self.method = method
        # What the agent sent (tool name and arguments), shortened.
        self.call_summary = call_summary
        self.expected = expected
        self.step_index = step_index
        if expected is None:
            wanted = f"no scripted step is left for {method}"
            fix = (
                "Add a step for it to the script (for tools/call: mcp_tool_call(name, "
                "arguments, result=...)), or find why the agent made this call."
            )
        else:
            at = "" if step_index is None else f"{_position('step', 'step_index', step_index)} "
            wanted = f"expected {at}{expected}"
            fix = (
                "Fix the step's tool name, arguments or matcher, script a step for this call "
                "before it, pass ordered=False if the order of calls does not matter, or find "
                "why the agent sent this call."
            )
        super().__init__(
            f"ScriptedMCPServer received unexpected {method} call #{call_index + 1}; {wanted}. "
            f"{_position('Call', 'call_index', call_index)}{_sent(call_summary)}. {fix}"
        )


class UnconsumedMCPStepsError(_StructuredError, AssertionError):
    """The workflow finished before it used every scripted MCP step.

    ``pending_steps`` holds one ``{"step_index", "method", "summary"}`` dict per step left,
    where ``step_index`` is the step's zero-based position in the script.
    """

    _fields = ("remaining_steps", "pending_steps")

    def __init__(
        self, remaining_steps: int, pending_steps: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        self.remaining_steps = remaining_steps
        self.pending_steps: tuple[dict[str, Any], ...] = tuple(dict(step) for step in pending_steps)
        message = f"ScriptedMCPServer has {_plural(remaining_steps, 'unconsumed scripted step')}."
        if self.pending_steps:
            message += f" Pending: {_step_list(self.pending_steps, 'method')}."
        super().__init__(
            message + " Remove the steps the workflow does not need (or pass optional=True to "
            "a step that may go unused); if they should have run, find why the agent stopped "
            "calling the MCP server (did it list the tool, and did the model ask for it?)."
        )


_MCP_STEP_HINTS: dict[str, str] = {
    "invalid_input": "a step is built by mcp_tool_call(), mcp_read_resource() or mcp_get_prompt().",
    "invalid_name": "name the tool, resource URI or prompt with a non-empty str.",
    "invalid_arguments": "arguments are a mapping compared for equality with what the agent "
    "sends, a function of the sent arguments that returns False to reject the call, or None "
    "to accept any arguments.",
    "invalid_outcome": "give exactly one of result=..., respond=... (a function of the "
    "recorded call) or error=... (an exception instance), or hang=True or "
    "drop_session=True and none of them.",
    "invalid_result": "a tool result is a str (one text block), a list of content blocks, or "
    "a mapping with a content list such as mcp_tool_result(...); a resource read answers "
    'with a str, bytes or {"contents": [...]}; a prompt with {"messages": [...]}.',
    "invalid_error": 'script an exception instance, such as ScriptedJSONRPCError(-32602, "...").',
    "invalid_notification": "notifications are built by mcp_progress(), mcp_log() or "
    'mcp_tools_changed(), or are {"method": ..., "params": {...}} mappings.',
    "invalid_timing": "delay is a finite number of seconds >= 0; hang is a bool.",
}


class InvalidScriptedMCPStepError(_StructuredError, ValueError):
    """A scripted MCP step is malformed, or a responder returned an answer MCP cannot send.

    ``input_index`` is set for errors found when the step is scripted (its zero-based place
    among the steps given); ``call_index`` for a responder's answer found while serving a
    call. ``detail`` says what exactly is wrong.
    """

    _fields = ("reason", "input_index", "call_index", "detail")

    def __init__(
        self,
        reason: InvalidScriptedMCPStepReason,
        input_index: int | None = None,
        call_index: int | None = None,
        detail: str | None = None,
    ) -> None:
        self.reason: InvalidScriptedMCPStepReason = reason
        self.input_index = input_index
        self.call_index = call_index
        self.detail = detail
        if input_index is not None:
            where = (
                f"ScriptedMCPServer step #{input_index + 1} is invalid "
                f"({reason.replace('_', ' ')}). {_position('Step', 'input_index', input_index)}"
            )
        elif call_index is not None:
            where = (
                f"ScriptedMCPServer responder for call #{call_index + 1} returned an invalid "
                f"answer ({reason.replace('_', ' ')}). "
                f"{_position('Call', 'call_index', call_index)}"
            )
        else:
            where = f"ScriptedMCPServer step is invalid ({reason.replace('_', ' ')})."
        said = "" if detail is None else f": {_shorten(detail, 200).rstrip('.')}"
        super().__init__(f"{where}{said}. Fix: {_MCP_STEP_HINTS[reason]}")


class RepeatedMCPListError(_StructuredError, AssertionError):
    """The agent listed the server's tools again although the script says it lists them once.

    ``call_index`` is the repeated listing's call, ``first_call_index`` the first listing's.
    """

    _fields = ("method", "call_index", "first_call_index")

    def __init__(self, method: str, call_index: int, first_call_index: int) -> None:
        self.method = method
        self.call_index = call_index
        self.first_call_index = first_call_index
        super().__init__(
            f"ScriptedMCPServer received {method} call #{call_index + 1} after {method} call "
            f"#{first_call_index + 1}, but the script lists tools once (list_tools_once=True). "
            f"{_position('Call', 'call_index', call_index)}. Make the agent cache the tool list "
            "(openai-agents: cache_tools_list=True), or drop list_tools_once if listing again "
            "is what the agent should do."
        )


_MCP_PROTOCOL_HINTS: dict[str, str] = {
    "malformed_json": "send one JSON-RPC message as a JSON object.",
    "invalid_request": 'send {"jsonrpc": "2.0", "id": ..., "method": ..., "params": {...}} '
    "with a str method and a str or int id.",
    "batch_request": "send one JSON-RPC message at a time; MCP has no batches.",
    "too_large": "keep a message under the server's size limit (max_message_bytes).",
    "too_deep": "keep the message's JSON nested less deeply than the server's limit.",
    "unknown_method": "call a method the server offers (tools/list, tools/call, "
    "resources/list, resources/read, prompts/list, prompts/get, ...).",
    "invalid_params": "send the params the method requires (tools/call needs a str name "
    "and an arguments object).",
    "unknown_session": "send the Mcp-Session-Id the initialize answer gave, in a session "
    "that was not ended.",
}


class MCPProtocolError(_StructuredError, AssertionError):
    """The scripted MCP server got a message it could not serve, and answered with an error.

    The client gets the protocol's own error (a JSON-RPC error object, or an HTTP status
    for a bad session); the server keeps this violation, so ``assert_complete()`` raises it
    even if the client swallowed the error. No step is used by such a message.
    """

    _fields = ("reason", "method", "session_id", "detail")

    def __init__(
        self,
        reason: MCPProtocolErrorReason,
        method: str | None = None,
        session_id: str | None = None,
        detail: str | None = None,
    ) -> None:
        self.reason: MCPProtocolErrorReason = reason
        self.method = method
        self.session_id = session_id
        self.detail = detail
        what = reason.replace("_", " ")
        if method is not None:
            what += f" for {_shorten(method, 60)}"
        if detail:
            what += f" ({_shorten(detail, 120)})"
        session = "" if session_id is None else f" in session {session_id!r}"
        super().__init__(
            f"ScriptedMCPServer refused a message{session}: {what}. "
            f"Fix the client or the code that sends it: {_MCP_PROTOCOL_HINTS[reason]}"
        )


# -- recording and replay ----------------------------------------------------------------

ReplayDriftReason = Literal["changed", "missing", "added", "no_recorded_request"]

_DRIFT_WHAT: dict[str, str] = {
    "changed": "differs from the recording",
    "missing": "is missing from the request sent (it was recorded)",
    "added": "was not in the recording",
}


def _shown(value: Any) -> str:
    return _shorten(repr(value), 200)


class ReplayRequestDriftError(_StructuredError, AssertionError):
    """A replayed run sent a request that differs from the one recorded for that call.

    ``path`` locates the first difference in the request (``""`` for the whole request,
    ``input[1].content`` for a field); ``recorded`` and ``sent`` are the two values there
    (``None`` where one side has no value, as ``reason`` says), with secrets redacted.
    """

    _fields = ("call_index", "path", "recorded", "sent", "reason")

    def __init__(
        self,
        call_index: int,
        path: str,
        recorded: Any = None,
        sent: Any = None,
        reason: ReplayDriftReason = "changed",
    ) -> None:
        self.call_index = call_index
        self.path = path
        self.recorded = recorded
        self.sent = sent
        self.reason: ReplayDriftReason = reason
        position = _position("call", "call_index", call_index)
        if reason == "no_recorded_request":
            super().__init__(
                f"Replayed {position} has no recorded request to compare with: the recording "
                "has more steps than REQUESTS. Record the script again (pytest "
                "--agents-testing-record), or add this call's request to REQUESTS."
            )
            return
        subject = f"a request whose {path}" if path else "a request that"
        detail = f"recorded {_shown(recorded)}, sent {_shown(sent)}"
        if reason == "missing":
            detail = f"recorded {_shown(recorded)}, sent nothing"
        elif reason == "added":
            detail = f"sent {_shown(sent)}, recorded nothing"
        relax = f" or relax this field with ignore=({path!r},)" if path else ""
        super().__init__(
            f"Replayed {position} sent {subject} {_DRIFT_WHAT.get(reason, 'differs')}: "
            f"{detail}. If the change is intended, record the script again (pytest "
            f"--agents-testing-record){relax}."
        )


# -- tracing -----------------------------------------------------------------------------

_CONVENTION_FORMS = {
    "gen_ai.operation.name": "a non-empty string such as 'chat'",
    "gen_ai.provider.name": "a non-empty string such as 'openai'",
    "gen_ai.system": "a non-empty string such as 'openai'",
    "gen_ai.request.model": "the requested model name, a non-empty string",
    "gen_ai.response.model": "the answering model name, a non-empty string",
    "gen_ai.usage.input_tokens": "an integer >= 0",
    "gen_ai.usage.output_tokens": "an integer >= 0",
    "gen_ai.response.finish_reasons": "a non-empty list of strings such as ['stop']",
}


class GenAIConventionError(_StructuredError, AssertionError):
    """A model-call span lacks a GenAI semantic-convention attribute, or has a malformed one.

    ``span_name`` and ``span_index`` (zero-based, among the model-call spans checked, depth
    first) name the span; ``attribute`` the attribute; ``reason`` is ``"missing"``,
    ``"malformed"`` (``value`` holds what the span carried) or ``"no_model_call_spans"``
    (no span's ``gen_ai.operation.name`` is one of ``operations``; ``span_name`` and
    ``span_index`` are ``None``).
    """

    _fields = ("span_name", "span_index", "attribute", "reason", "value", "operations")

    def __init__(
        self,
        span_name: str | None,
        span_index: int | None,
        attribute: str,
        reason: GenAIConventionReason,
        value: Any = None,
        operations: Sequence[str] = (),
    ) -> None:
        self.span_name = span_name
        self.span_index = span_index
        self.attribute = attribute
        self.reason: GenAIConventionReason = reason
        self.value = value
        self.operations: tuple[str, ...] = tuple(operations)
        super().__init__(_convention_message(self))


def _convention_message(error: GenAIConventionError) -> str:
    if error.reason == "no_model_call_spans":
        return (
            "No model-call span in the trace: no span has gen_ai.operation.name in "
            f"{list(error.operations)}. Turn on the framework's instrumentation with the "
            "capture's tracer provider, and do not filter gen_ai.* attributes out of the tree."
        )
    position = (error.span_index or 0) + 1
    where = f"Model-call span {error.span_name!r} (#{position}, span_index={error.span_index})"
    form = _CONVENTION_FORMS.get(error.attribute, "well-formed")
    if error.reason == "missing":
        problem = f"has no {error.attribute} attribute"
    else:
        problem = f"has a malformed {error.attribute}: {error.value!r}"
    return (
        f"{where} {problem}. The GenAI semantic conventions expect {form}. Set it where the "
        "model call is traced (the instrumentation or the model adapter), or script what it "
        "is computed from (usage tokens in the step's Usage)."
    )


# -- voice -------------------------------------------------------------------------------

VoiceService = Literal["stt", "tts"]

InvalidScriptedVoiceStepReason = Literal[
    "invalid_input",
    "invalid_text",
    "invalid_outcome",
    "invalid_timing",
    "invalid_audio",
    "invalid_error",
    "invalid_matcher",
]

_VOICE_NAMES: dict[str, str] = {
    "stt": "ScriptedSpeechToText",
    "tts": "ScriptedTextToSpeech",
}

_VOICE_ADD_STEP: dict[str, str] = {
    "stt": 'stt_turn("what the user said", ...) or stt_end()',
    "tts": 'tts_speech("the text it speaks", ...)',
}


class UnexpectedVoiceCallError(_StructuredError, AssertionError):
    """A speech service got a call its script does not expect.

    ``service`` is ``"stt"`` or ``"tts"``; ``method`` the double's method (``"stream"``,
    ``"transcribe"``, ``"synthesize"``); ``expected`` the step that was next (``None`` when no
    step was left) and ``step_index`` its zero-based place in the script.
    """

    _fields = ("service", "call_index", "method", "expected", "step_index", "call_summary")

    def __init__(
        self,
        service: VoiceService,
        call_index: int,
        method: str,
        expected: str | None = None,
        step_index: int | None = None,
        call_summary: str | None = None,
    ) -> None:
        self.service: VoiceService = service
        self.call_index = call_index
        self.method = method
        self.expected = expected
        self.step_index = step_index
        self.call_summary = call_summary
        name = _VOICE_NAMES.get(service, service)
        if expected is None:
            wanted = "no scripted step is left for it"
            fix = (
                f"Add a step for it at the end of the script ({_VOICE_ADD_STEP.get(service, '')}), "
                "or find why the code under test made this call."
            )
        else:
            at = "" if step_index is None else f"{_position('step', 'step_index', step_index)} "
            wanted = f"expected {at}{expected}"
            fix = (
                "A one-shot transcription cannot take an end-of-stream step: script a turn "
                "before it, or find why the code under test transcribed instead of streaming."
            )
        super().__init__(
            f"{name} received unexpected {method} call #{call_index + 1}; {wanted}. "
            f"{_position('Call', 'call_index', call_index)}{_sent(call_summary)}. {fix}"
        )


class VoiceCallMatcherError(_StructuredError, AssertionError):
    """A speech step rejected its call: text that differs, or a matcher that returned False."""

    _fields = ("service", "call_index", "method", "step_index", "expected", "call_summary")

    def __init__(
        self,
        service: VoiceService,
        call_index: int,
        method: str,
        step_index: int,
        expected: str | None = None,
        call_summary: str | None = None,
    ) -> None:
        self.service: VoiceService = service
        self.call_index = call_index
        self.method = method
        self.step_index = step_index
        self.expected = expected
        self.call_summary = call_summary
        name = _VOICE_NAMES.get(service, service)
        wanted = "" if expected is None else f" (it expects {expected})"
        super().__init__(
            f"{name} {_position('step', 'step_index', step_index)} rejected {method} call "
            f"#{call_index + 1}{wanted}. {_position('Call', 'call_index', call_index)}"
            f"{_sent(call_summary)}. Fix the step's text or match function, or the code under "
            "test that made the call."
        )


class UnconsumedVoiceStepsError(_StructuredError, AssertionError):
    """A speech service's script still has steps when the test checks it.

    ``pending_steps`` holds one ``{"step_index", "kind", "summary"}`` dict per step left.
    """

    _fields = ("service", "remaining_steps", "pending_steps")

    def __init__(
        self,
        service: VoiceService,
        remaining_steps: int,
        pending_steps: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.service: VoiceService = service
        self.remaining_steps = remaining_steps
        self.pending_steps: tuple[dict[str, Any], ...] = tuple(dict(step) for step in pending_steps)
        name = _VOICE_NAMES.get(service, service)
        message = f"{name} has {_plural(remaining_steps, 'unconsumed scripted step')}."
        if self.pending_steps:
            message += f" Pending: {_step_list(self.pending_steps, 'kind')}."
        super().__init__(
            message + " Remove the steps the conversation does not need (or pass optional=True "
            "to one that may go unused); if they should have run, find why the pipeline "
            "stopped calling the service (was the clock advanced far enough, was the session "
            "closed early?)."
        )


_VOICE_STEP_HINTS: dict[str, str] = {
    "invalid_input": "build speech-to-text steps with stt_turn() or stt_end() (or give a str), "
    "text-to-speech steps with tts_speech() (or give a str).",
    "invalid_text": "texts are str; partials are str or (str, offset_seconds) pairs; a "
    "tts_speech text may also be a function of the text that returns False to reject it.",
    "invalid_outcome": "give a turn exactly one of final=... (the transcript) and error=... "
    "(an exception instance).",
    "invalid_timing": "times are finite numbers of seconds >= 0; optional is a bool.",
    "invalid_audio": "chunks is a count >= 1 or a sequence of bytes holding whole PCM16 samples "
    "(an even number of bytes).",
    "invalid_error": "error is an exception instance; error_after, an int >= 0, needs an error "
    "to raise.",
    "invalid_matcher": "match is a function of the turn's PCM16 audio that returns False to "
    "reject it.",
}


class InvalidScriptedVoiceStepError(_StructuredError, ValueError):
    """A scripted speech step is malformed; ``input_index`` is its zero-based place."""

    _fields = ("reason", "service", "input_index", "detail")

    def __init__(
        self,
        reason: InvalidScriptedVoiceStepReason,
        service: VoiceService,
        input_index: int,
        detail: str | None = None,
    ) -> None:
        self.reason: InvalidScriptedVoiceStepReason = reason
        self.service: VoiceService = service
        self.input_index = input_index
        self.detail = detail
        name = _VOICE_NAMES.get(service, service)
        said = "" if detail is None else f": {_shorten(detail, 200).rstrip('.')}"
        super().__init__(
            f"{name} step #{input_index + 1} is invalid ({reason.replace('_', ' ')}). "
            f"{_position('Step', 'input_index', input_index)}{said}. "
            f"Fix: {_VOICE_STEP_HINTS[reason]}"
        )
