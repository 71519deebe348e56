"""Structured errors: messages from fields, base classes, pickling and fresh copies."""

from __future__ import annotations

import copy
import inspect
import pickle
from typing import Any

import pytest

from agents_testing import errors
from agents_testing.errors import (
    IncompleteRealtimeScenarioError,
    InvalidScriptedModelStepError,
    InvalidScriptedSandboxStepError,
    RealtimeCallMatcherError,
    RealtimeTransportNotClosedError,
    SandboxCallMatcherError,
    ScriptedModelRequestAbortedError,
    ScriptedRealtimeConnectionSupersededError,
    ScriptedRealtimeScenarioCancelledError,
    UnconsumedModelStepsError,
    UnconsumedSandboxStepsError,
    UnexpectedModelCallError,
    UnexpectedRealtimeCallError,
    UnexpectedSandboxCallError,
    UnscriptedAgentError,
)

# (error, fields, message): one or more examples of every error class, with its exact message.
EXAMPLES = [
    pytest.param(
        UnexpectedModelCallError(0, False),
        {"call_index": 0, "streamed": False},
        "ScriptedModel received unexpected non-streaming call #1; no scripted steps remain.",
        id="unexpected-model-call-non-streaming",
    ),
    pytest.param(
        UnexpectedModelCallError(2, True),
        {"call_index": 2, "streamed": True},
        "ScriptedModel received unexpected streaming call #3; no scripted steps remain.",
        id="unexpected-model-call-streaming",
    ),
    pytest.param(
        UnconsumedModelStepsError(1),
        {"remaining_steps": 1},
        "ScriptedModel has 1 unconsumed scripted step.",
        id="unconsumed-model-steps-one",
    ),
    pytest.param(
        UnconsumedModelStepsError(0),
        {"remaining_steps": 0},
        "ScriptedModel has 0 unconsumed scripted steps.",
        id="unconsumed-model-steps-zero",
    ),
    pytest.param(
        UnconsumedModelStepsError(3),
        {"remaining_steps": 3},
        "ScriptedModel has 3 unconsumed scripted steps.",
        id="unconsumed-model-steps-three",
    ),
    pytest.param(
        InvalidScriptedModelStepError("unknown_step_type", input_index=1, step_type="message"),
        {
            "reason": "unknown_step_type",
            "input_index": 1,
            "call_index": None,
            "step_type": "message",
        },
        'ScriptedModel input #2 has unknown type "message".',
        id="invalid-model-step-at-enqueue",
    ),
    pytest.param(
        InvalidScriptedModelStepError("invalid_stream", call_index=4, step_type="stream_responder"),
        {
            "reason": "invalid_stream",
            "input_index": None,
            "call_index": 4,
            "step_type": "stream_responder",
        },
        "ScriptedModel stream responder returned an invalid stream for call #5.",
        id="invalid-model-step-at-call",
    ),
    pytest.param(
        ScriptedModelRequestAbortedError(),
        {"call_index": None},
        "Scripted model request was aborted.",
        id="model-request-aborted-at-entry",
    ),
    pytest.param(
        ScriptedModelRequestAbortedError(3),
        {"call_index": 3},
        "Scripted model request was aborted.",
        id="model-request-aborted-during-call",
    ),
    pytest.param(
        UnexpectedSandboxCallError(0, "stop", "start", 2),
        {
            "call_index": 0,
            "actual_method": "stop",
            "expected_method": "start",
            "remaining_steps": 2,
        },
        "Scripted sandbox session received unexpected stop call #1; expected start.",
        id="unexpected-sandbox-call-expected-other",
    ),
    pytest.param(
        UnexpectedSandboxCallError(2, "start", None, 0),
        {"call_index": 2, "actual_method": "start", "expected_method": None, "remaining_steps": 0},
        "Scripted sandbox session received unexpected start call #3; no scripted steps remain.",
        id="unexpected-sandbox-call-script-exhausted",
    ),
    pytest.param(
        SandboxCallMatcherError(0, "path_exists"),
        {"call_index": 0, "method": "path_exists"},
        "Scripted sandbox session matcher rejected path_exists call #1.",
        id="sandbox-matcher",
    ),
    pytest.param(
        UnconsumedSandboxStepsError(2, ["start", "exec"]),
        {"remaining_steps": 2, "pending_methods": ("start", "exec")},
        "Scripted sandbox session has 2 unconsumed steps: start, exec.",
        id="unconsumed-sandbox-steps-two",
    ),
    pytest.param(
        UnconsumedSandboxStepsError(1, ["start"]),
        {"remaining_steps": 1, "pending_methods": ("start",)},
        "Scripted sandbox session has 1 unconsumed step: start.",
        id="unconsumed-sandbox-steps-one",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("invalid_input", 0),
        {"reason": "invalid_input", "input_index": 0, "method": None, "detail": None},
        "Scripted sandbox step #1 must be an object.",
        id="invalid-sandbox-step-input",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("unknown_method", 1),
        {"reason": "unknown_method", "input_index": 1, "method": None, "detail": None},
        "Scripted sandbox step #2 has an unknown method.",
        id="invalid-sandbox-step-method",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("invalid_matcher", 0, "start"),
        {"reason": "invalid_matcher", "input_index": 0, "method": "start", "detail": None},
        "Scripted sandbox step #1 for start must use a function matcher.",
        id="invalid-sandbox-step-matcher",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("invalid_outcome", 2, "exec"),
        {"reason": "invalid_outcome", "input_index": 2, "method": "exec", "detail": None},
        "Scripted sandbox step #3 for exec must define exactly one of result, respond, or error.",
        id="invalid-sandbox-step-outcome",
    ),
    pytest.param(
        UnexpectedRealtimeCallError(1, "send_event", "interrupt"),
        {"call_index": 1, "expected_method": "send_event", "actual_method": "interrupt"},
        "ScriptedRealtimeTransport expected send_event but received interrupt call #2.",
        id="unexpected-realtime-call",
    ),
    pytest.param(
        RealtimeCallMatcherError(0, "connect"),
        {"call_index": 0, "actual_method": "connect"},
        "ScriptedRealtimeTransport matcher rejected connect call #1.",
        id="realtime-matcher",
    ),
    pytest.param(
        IncompleteRealtimeScenarioError(
            pending_expectations=[
                {"order": 1, "method": "connect"},
                {"order": 2, "method": "send_event"},
            ]
        ),
        {
            "unconsumed_calls": (),
            "pending_expectations": (
                {"order": 1, "method": "connect"},
                {"order": 2, "method": "send_event"},
            ),
            "pending_failures": (),
        },
        "ScriptedRealtimeTransport scenario is incomplete: 0 unconsumed calls, "
        "2 pending expectations (#1 connect, #2 send_event), and 0 pending failures.",
        id="incomplete-realtime-expectations",
    ),
    pytest.param(
        IncompleteRealtimeScenarioError(unconsumed_calls=[{"index": 0, "method": "connect"}]),
        {
            "unconsumed_calls": ({"index": 0, "method": "connect"},),
            "pending_expectations": (),
            "pending_failures": (),
        },
        "ScriptedRealtimeTransport scenario is incomplete: 1 unconsumed call, "
        "0 pending expectations, and 0 pending failures.",
        id="incomplete-realtime-one-call",
    ),
    pytest.param(
        IncompleteRealtimeScenarioError(
            unconsumed_calls=[{"index": 0, "method": "connect"}, {"index": 1, "method": "mute"}],
            pending_failures=[{"method": "send_event", "count": 2}],
        ),
        {
            "unconsumed_calls": (
                {"index": 0, "method": "connect"},
                {"index": 1, "method": "mute"},
            ),
            "pending_expectations": (),
            "pending_failures": ({"method": "send_event", "count": 2},),
        },
        "ScriptedRealtimeTransport scenario is incomplete: 2 unconsumed calls, "
        "0 pending expectations, and 2 pending failures.",
        id="incomplete-realtime-failures",
    ),
    pytest.param(
        ScriptedRealtimeScenarioCancelledError(),
        {"pending_expectations": ()},
        "ScriptedRealtimeTransport scenario was cancelled.",
        id="realtime-cancelled",
    ),
    pytest.param(
        ScriptedRealtimeScenarioCancelledError(
            [{"order": 1, "method": "connect"}, {"order": 2, "method": "close"}]
        ),
        {
            "pending_expectations": (
                {"order": 1, "method": "connect"},
                {"order": 2, "method": "close"},
            )
        },
        "ScriptedRealtimeTransport scenario was cancelled with pending expectations: "
        "#1 connect, #2 close.",
        id="realtime-cancelled-with-pending",
    ),
    pytest.param(
        RealtimeTransportNotClosedError("connected"),
        {"status": "connected"},
        "ScriptedRealtimeTransport is not closed; current status is connected.",
        id="realtime-not-closed",
    ),
    pytest.param(
        ScriptedRealtimeConnectionSupersededError(),
        {"operation": "connect"},
        "ScriptedRealtimeTransport connection attempt was superseded by another "
        "lifecycle operation.",
        id="realtime-superseded",
    ),
    pytest.param(
        UnscriptedAgentError("Weather", "no_script", 2, ("Triage", "Summary")),
        {
            "agent_name": "Weather",
            "reason": "no_script",
            "call_index": 2,
            "scripted_agent_names": ("Triage", "Summary"),
        },
        'Agent "Weather" made routed model call #3 (call_index=2), but '
        'route_openai_agents_models has no script for it (scripted agents: "Triage", '
        '"Summary"); add "Weather": ScriptedModel([...]) to the mapping, or pass one '
        "ScriptedModel for every agent.",
        id="unscripted-agent-no-script",
    ),
    pytest.param(
        UnscriptedAgentError("Weather", "route_closed", 0),
        {
            "agent_name": "Weather",
            "reason": "route_closed",
            "call_index": 0,
            "scripted_agent_names": (),
        },
        'Agent "Weather" made routed model call #1 (call_index=0) after its '
        "route_openai_agents_models block ended; finish the run inside the block (for "
        "Runner.run_streamed, consume stream_events() before leaving it).",
        id="unscripted-agent-route-closed",
    ),
    pytest.param(
        UnscriptedAgentError(None, "unknown_agent", 4, ("Triage",)),
        {
            "agent_name": None,
            "reason": "unknown_agent",
            "call_index": 4,
            "scripted_agent_names": ("Triage",),
        },
        "The runner made routed model call #5 (call_index=4) without naming its agent: this "
        "openai-agents version no longer calls RunConfig.call_model_input_filter before each "
        "model call, which route_openai_agents_models relies on; use a supported "
        "openai-agents version.",
        id="unscripted-agent-unknown-agent",
    ),
]

ALL_ERROR_CLASSES = {
    UnexpectedModelCallError,
    UnconsumedModelStepsError,
    InvalidScriptedModelStepError,
    ScriptedModelRequestAbortedError,
    UnexpectedSandboxCallError,
    SandboxCallMatcherError,
    UnconsumedSandboxStepsError,
    InvalidScriptedSandboxStepError,
    UnexpectedRealtimeCallError,
    RealtimeCallMatcherError,
    IncompleteRealtimeScenarioError,
    ScriptedRealtimeScenarioCancelledError,
    RealtimeTransportNotClosedError,
    ScriptedRealtimeConnectionSupersededError,
    UnscriptedAgentError,
}


def fields_of(error: BaseException, names: Any) -> dict[str, Any]:
    return {name: getattr(error, name) for name in names}


def test_examples_cover_every_public_error_class() -> None:
    public_classes = {
        value
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, BaseException) and name in errors.__all__
    }
    covered = {param.values[0].__class__ for param in EXAMPLES}

    assert public_classes == ALL_ERROR_CLASSES
    assert covered == ALL_ERROR_CLASSES


@pytest.mark.parametrize(("error", "fields", "message"), EXAMPLES)
def test_error_carries_its_fields_and_exact_message(
    error: BaseException, fields: dict[str, Any], message: str
) -> None:
    assert fields_of(error, fields) == fields
    assert str(error) == message


@pytest.mark.parametrize("protocol", [0, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
@pytest.mark.parametrize(("error", "fields", "message"), EXAMPLES)
def test_error_pickles_with_fields_and_message_intact(
    error: BaseException, fields: dict[str, Any], message: str, protocol: int
) -> None:
    restored = pickle.loads(pickle.dumps(error, protocol=protocol))

    assert type(restored) is type(error)
    assert fields_of(restored, fields) == fields
    assert str(restored) == message
    assert restored.args == error.args


@pytest.mark.parametrize(("error", "fields", "message"), EXAMPLES)
def test_error_copies_with_fields_and_message_intact(
    error: BaseException, fields: dict[str, Any], message: str
) -> None:
    for copied in (copy.copy(error), copy.deepcopy(error)):
        assert type(copied) is type(error)
        assert fields_of(copied, fields) == fields
        assert str(copied) == message


@pytest.mark.parametrize(("error", "fields", "message"), EXAMPLES)
def test_fresh_error_is_a_new_error_with_the_same_fields(
    error: BaseException, fields: dict[str, Any], message: str
) -> None:
    fresh = error._fresh()

    assert fresh is not error
    assert type(fresh) is type(error)
    assert fields_of(fresh, fields) == fields
    assert str(fresh) == message
    assert fresh.__traceback__ is None


def test_fresh_error_has_no_traceback_even_after_a_raise() -> None:
    try:
        raise UnexpectedModelCallError(0, False)
    except UnexpectedModelCallError as raised:
        error = raised

    assert error.__traceback__ is not None
    assert error._fresh().__traceback__ is None


@pytest.mark.parametrize(
    ("error_class", "base"),
    [
        (UnexpectedModelCallError, AssertionError),
        (UnconsumedModelStepsError, AssertionError),
        (InvalidScriptedModelStepError, ValueError),
        (ScriptedModelRequestAbortedError, Exception),
        (UnexpectedSandboxCallError, AssertionError),
        (SandboxCallMatcherError, AssertionError),
        (UnconsumedSandboxStepsError, AssertionError),
        (InvalidScriptedSandboxStepError, ValueError),
        (UnexpectedRealtimeCallError, AssertionError),
        (RealtimeCallMatcherError, AssertionError),
        (IncompleteRealtimeScenarioError, AssertionError),
        (ScriptedRealtimeScenarioCancelledError, AssertionError),
        (RealtimeTransportNotClosedError, AssertionError),
        (ScriptedRealtimeConnectionSupersededError, Exception),
        (UnscriptedAgentError, AssertionError),
    ],
)
def test_error_subclasses_the_base_class_its_kind_of_failure_needs(
    error_class: type[BaseException], base: type[BaseException]
) -> None:
    assert issubclass(error_class, base)
    other_bases = {AssertionError, ValueError} - {base}
    assert not any(issubclass(error_class, other) for other in other_bases)


@pytest.mark.parametrize(
    "error_class", [ScriptedModelRequestAbortedError, ScriptedRealtimeScenarioCancelledError]
)
def test_abort_errors_are_named_abort_error(error_class: type[BaseException]) -> None:
    assert error_class.name == "AbortError"


@pytest.mark.parametrize(
    ("reason", "input_index", "call_index", "step_type", "message"),
    [
        ("invalid_input", 0, None, None, "ScriptedModel input #1 is invalid (invalid input)."),
        (
            "unknown_step_type",
            0,
            None,
            "bogus",
            'ScriptedModel input #1 has unknown type "bogus".',
        ),
        (
            "unknown_step_type",
            0,
            None,
            "",
            "ScriptedModel input #1 is invalid (unknown step type).",
        ),
        (
            "unknown_step_type",
            0,
            None,
            None,
            "ScriptedModel input #1 is invalid (unknown step type).",
        ),
        (
            "missing_response",
            1,
            None,
            "response",
            "ScriptedModel input #2 is invalid (missing response).",
        ),
        (
            "invalid_response",
            2,
            None,
            None,
            "ScriptedModel input #3 has an invalid response envelope.",
        ),
        (
            "invalid_response",
            None,
            0,
            None,
            "ScriptedModel responder returned an invalid response for call #1.",
        ),
        ("missing_error", 0, None, "error", "ScriptedModel input #1 is invalid (missing error)."),
        ("invalid_error", 0, None, "error", "ScriptedModel input #1 is invalid (invalid error)."),
        (
            "invalid_retry_advice",
            0,
            None,
            "error",
            "ScriptedModel input #1 is invalid (invalid retry advice).",
        ),
        (
            "missing_responder",
            0,
            None,
            "stream_responder",
            "ScriptedModel input #1 is invalid (missing responder).",
        ),
        (
            "invalid_stream",
            0,
            None,
            "stream",
            "ScriptedModel input #1 is invalid (invalid stream).",
        ),
        (
            "invalid_stream",
            None,
            1,
            "stream_responder",
            "ScriptedModel stream responder returned an invalid stream for call #2.",
        ),
        (
            "incompatible_call",
            None,
            2,
            "stream",
            "ScriptedModel cannot use raw stream step for non-streaming call #3.",
        ),
    ],
)
def test_invalid_model_step_message_is_built_from_its_fields(
    reason: Any,
    input_index: int | None,
    call_index: int | None,
    step_type: str | None,
    message: str,
) -> None:
    error = InvalidScriptedModelStepError(reason, input_index, call_index, step_type)

    assert str(error) == message
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        reason,
        input_index,
        call_index,
        step_type,
    )
