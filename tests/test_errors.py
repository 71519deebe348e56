"""Structured errors: messages from fields, base classes, pickling and fresh copies."""

from __future__ import annotations

import copy
import inspect
import pickle
from typing import Any

import pytest

from agents_testing import errors
from agents_testing.errors import (
    GenAIConventionError,
    IncompleteRealtimeScenarioError,
    InvalidRealtimeEventError,
    InvalidScriptedMCPStepError,
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    InvalidScriptedSandboxStepError,
    InvalidScriptedVoiceStepError,
    MCPProtocolError,
    RealtimeCallMatcherError,
    RealtimeEventLoopError,
    RealtimeThreadError,
    RealtimeTransportNotClosedError,
    RepeatedMCPListError,
    ReplayRequestDriftError,
    SandboxCallMatcherError,
    ScriptedHTTPError,
    ScriptedJSONRPCError,
    ScriptedModelRequestAbortedError,
    ScriptedRealtimeConnectionSupersededError,
    ScriptedRealtimeScenarioCancelledError,
    UnconsumedMCPStepsError,
    UnconsumedModelStepsError,
    UnconsumedSandboxStepsError,
    UnconsumedVoiceStepsError,
    UnexpectedMCPCallError,
    UnexpectedModelCallError,
    UnexpectedRealtimeCallError,
    UnexpectedSandboxCallError,
    UnexpectedVoiceCallError,
    UnscriptedAgentError,
    VoiceCallMatcherError,
    WireRequestError,
    _StructuredError,
)

# (error, fields, message): one or more examples of every error class, with its exact message.
EXAMPLES = [
    pytest.param(
        UnexpectedModelCallError(0, False),
        {"call_index": 0, "streamed": False},
        (
            "ScriptedModel received unexpected non-streaming call #1; no scripted steps "
            "remain. Call #1 (call_index=0). Add a step for it to the script "
            "(ScriptedModel([...]) or model.enqueue(...)), or find why the code under test "
            "called the model again."
        ),
        id="unexpected-model-call-non-streaming",
    ),
    pytest.param(
        UnexpectedModelCallError(2, True),
        {"call_index": 2, "streamed": True},
        (
            "ScriptedModel received unexpected streaming call #3; no scripted steps remain. "
            "Call #3 (call_index=2). Add a step for it to the script (ScriptedModel([...]) or "
            "model.enqueue(...)), or find why the code under test called the model again."
        ),
        id="unexpected-model-call-streaming",
    ),
    pytest.param(
        UnconsumedModelStepsError(1),
        {"remaining_steps": 1},
        (
            "ScriptedModel has 1 unconsumed scripted step. Remove the steps the workflow does "
            "not need (or wrap one that may go unused in optional_step(...)); if they should "
            "have run, find why the code under test stopped calling the model."
        ),
        id="unconsumed-model-steps-one",
    ),
    pytest.param(
        UnconsumedModelStepsError(0),
        {"remaining_steps": 0},
        (
            "ScriptedModel has 0 unconsumed scripted steps. Remove the steps the workflow does "
            "not need (or wrap one that may go unused in optional_step(...)); if they should "
            "have run, find why the code under test stopped calling the model."
        ),
        id="unconsumed-model-steps-zero",
    ),
    pytest.param(
        UnconsumedModelStepsError(3),
        {"remaining_steps": 3},
        (
            "ScriptedModel has 3 unconsumed scripted steps. Remove the steps the workflow does "
            "not need (or wrap one that may go unused in optional_step(...)); if they should "
            "have run, find why the code under test stopped calling the model."
        ),
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
        (
            'ScriptedModel input #2 has unknown type "message". Input #2 (input_index=1): a '
            'step\'s "type" is one of response, error, responder, stream or stream_responder; '
            "to script output items, put them in a list: [[item, ...]]."
        ),
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
        (
            "ScriptedModel stream responder returned an invalid stream for call #5. Call #5 "
            "(call_index=4): the stream responder must return an iterable or async iterable of "
            "stream events."
        ),
        id="invalid-model-step-at-call",
    ),
    pytest.param(
        UnexpectedModelCallError(2, False, "last input user message 'Hi'; tools [get_weather]"),
        {
            "call_index": 2,
            "streamed": False,
            "call_summary": "last input user message 'Hi'; tools [get_weather]",
        },
        "ScriptedModel received unexpected non-streaming call #3; no scripted steps remain. "
        "Call #3 (call_index=2) sent: last input user message 'Hi'; tools [get_weather]. "
        "Add a step for it to the script (ScriptedModel([...]) or model.enqueue(...)), "
        "or find why the code under test called the model again.",
        id="unexpected-model-call-with-summary",
    ),
    pytest.param(
        UnconsumedModelStepsError(
            2,
            [
                {"step_index": 1, "type": "response", "summary": "function_call get_weather()"},
                {"step_index": 2, "type": "error", "summary": "RuntimeError('x') (optional)"},
            ],
        ),
        {
            "remaining_steps": 2,
            "pending_steps": (
                {"step_index": 1, "type": "response", "summary": "function_call get_weather()"},
                {"step_index": 2, "type": "error", "summary": "RuntimeError('x') (optional)"},
            ),
        },
        "ScriptedModel has 2 unconsumed scripted steps. Pending: step #2 (step_index=1) "
        "response: function_call get_weather(); step #3 (step_index=2) error: "
        "RuntimeError('x') (optional). Remove the steps the workflow does not need (or wrap "
        "one that may go unused in optional_step(...)); if they should have run, find why "
        "the code under test stopped calling the model.",
        id="unconsumed-model-steps-listed",
    ),
    pytest.param(
        InvalidScriptedModelStepError(
            "invalid_output_item", input_index=0, output_index=1, detail="use a mapping."
        ),
        {
            "reason": "invalid_output_item",
            "input_index": 0,
            "call_index": None,
            "step_type": None,
            "output_index": 1,
            "detail": "use a mapping.",
            "call_summary": None,
        },
        "ScriptedModel input #1 is invalid (invalid output item). Input #1 (input_index=0), "
        "output item #2 (output_index=1): use a mapping.",
        id="invalid-model-step-output-item",
    ),
    pytest.param(
        InvalidScriptedModelStepError(
            "invalid_response", call_index=1, call_summary="no input; no tools"
        ),
        {
            "reason": "invalid_response",
            "input_index": None,
            "call_index": 1,
            "step_type": None,
            "output_index": None,
            "detail": None,
            "call_summary": "no input; no tools",
        },
        "ScriptedModel responder returned an invalid response for call #2. Call #2 "
        "(call_index=1) sent: no input; no tools: the responder must return a list of output "
        "items or a ModelResponse (with a str or None response_id and request_id).",
        id="invalid-model-step-at-call-with-summary",
    ),
    pytest.param(
        InvalidScriptedModelOutputError(2, 0, "bogus", "unknown type", "openai-agents"),
        {
            "call_index": 2,
            "output_index": 0,
            "item_type": "bogus",
            "reason": "unknown type",
            "framework": "openai-agents",
        },
        "ScriptedModel call #3 (call_index=2) output item #1 (output_index=0) of type 'bogus' "
        "is not valid for openai-agents: unknown type. Fix the item in the script: build it "
        "with assistant_message() or function_call(), or as another item or object that "
        "openai-agents accepts.",
        id="invalid-model-output",
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
        (
            "Scripted sandbox session received unexpected stop call #1; expected start. Call "
            "#1 (call_index=0). Add a step for stop before the start step, or find why the code "
            "under test called stop instead."
        ),
        id="unexpected-sandbox-call-expected-other",
    ),
    pytest.param(
        UnexpectedSandboxCallError(2, "start", None, 0),
        {"call_index": 2, "actual_method": "start", "expected_method": None, "remaining_steps": 0},
        (
            "Scripted sandbox session received unexpected start call #3; no scripted steps "
            "remain. Call #3 (call_index=2). Add a step for start at the end of the script, or "
            "find why the code under test made this call."
        ),
        id="unexpected-sandbox-call-script-exhausted",
    ),
    pytest.param(
        SandboxCallMatcherError(0, "path_exists"),
        {"call_index": 0, "method": "path_exists"},
        (
            "Scripted sandbox session matcher rejected path_exists call #1. Call #1 "
            "(call_index=0). Fix the step's match function, or the code under test that made "
            "the call."
        ),
        id="sandbox-matcher",
    ),
    pytest.param(
        UnconsumedSandboxStepsError(2, ["start", "exec"]),
        {"remaining_steps": 2, "pending_methods": ("start", "exec")},
        (
            "Scripted sandbox session has 2 unconsumed steps: start, exec. Remove the steps "
            'the workflow does not need (or add "optional": True to one that may go unused); '
            "if they should have run, find why the code under test stopped calling the "
            "sandbox."
        ),
        id="unconsumed-sandbox-steps-two",
    ),
    pytest.param(
        UnconsumedSandboxStepsError(1, ["start"]),
        {"remaining_steps": 1, "pending_methods": ("start",)},
        (
            "Scripted sandbox session has 1 unconsumed step: start. Remove the steps the "
            'workflow does not need (or add "optional": True to one that may go unused); if '
            "they should have run, find why the code under test stopped calling the sandbox."
        ),
        id="unconsumed-sandbox-steps-one",
    ),
    pytest.param(
        UnexpectedSandboxCallError(1, "exec", "start", 0, "exec({'cmd': 'ls'})"),
        {
            "call_index": 1,
            "actual_method": "exec",
            "expected_method": "start",
            "remaining_steps": 0,
            "call_summary": "exec({'cmd': 'ls'})",
        },
        "Scripted sandbox session received unexpected exec call #2; expected start. "
        "Call #2 (call_index=1) was: exec({'cmd': 'ls'}). Add a step for exec before the start "
        "step, or find why the code under test called exec instead.",
        id="unexpected-sandbox-call-with-summary",
    ),
    pytest.param(
        SandboxCallMatcherError(0, "exec", "exec('pwd')"),
        {"call_index": 0, "method": "exec", "call_summary": "exec('pwd')"},
        "Scripted sandbox session matcher rejected exec call #1. Call #1 (call_index=0) was: "
        "exec('pwd'). Fix the step's match function, or the code under test that made the "
        "call.",
        id="sandbox-matcher-with-summary",
    ),
    pytest.param(
        UnconsumedSandboxStepsError(
            1, ["exec"], [{"step_index": 3, "method": "exec", "summary": "result 'ok'"}]
        ),
        {
            "remaining_steps": 1,
            "pending_methods": ("exec",),
            "pending_steps": ({"step_index": 3, "method": "exec", "summary": "result 'ok'"},),
        },
        "Scripted sandbox session has 1 unconsumed step: exec. Pending: step #4 "
        "(step_index=3) exec: result 'ok'. Remove the steps the workflow does not need (or "
        'add "optional": True to one that may go unused); if they should have run, find why '
        "the code under test stopped calling the sandbox.",
        id="unconsumed-sandbox-steps-listed",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("invalid_input", 0),
        {"reason": "invalid_input", "input_index": 0, "method": None, "detail": None},
        (
            "Scripted sandbox step #1 must be an object. Step #1 (input_index=0): a step is a "
            'mapping such as {"method": "exec", "result": ...}.'
        ),
        id="invalid-sandbox-step-input",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("unknown_method", 1),
        {"reason": "unknown_method", "input_index": 1, "method": None, "detail": None},
        (
            'Scripted sandbox step #2 has an unknown method. Step #2 (input_index=1): "method" '
            "must name a method of the session interface; pass interface=... to script the "
            "methods of another session type."
        ),
        id="invalid-sandbox-step-method",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("invalid_matcher", 0, "start"),
        {"reason": "invalid_matcher", "input_index": 0, "method": "start", "detail": None},
        (
            "Scripted sandbox step #1 for start must use a function matcher. Step #1 "
            '(input_index=0): "match" must be a function of the call\'s arguments that returns '
            "False to reject the call."
        ),
        id="invalid-sandbox-step-matcher",
    ),
    pytest.param(
        InvalidScriptedSandboxStepError("invalid_outcome", 2, "exec"),
        {"reason": "invalid_outcome", "input_index": 2, "method": "exec", "detail": None},
        (
            "Scripted sandbox step #3 for exec must define exactly one of result, respond, or "
            'error. Step #3 (input_index=2): give exactly one of "result" (the value), '
            '"respond" (a function of the recorded call) or "error" (an exception instance).'
        ),
        id="invalid-sandbox-step-outcome",
    ),
    pytest.param(
        UnexpectedRealtimeCallError(1, "send_event", "interrupt"),
        {"call_index": 1, "expected_method": "send_event", "actual_method": "interrupt"},
        (
            "ScriptedRealtimeTransport expected send_event but received interrupt call #2. "
            'Call #2 (call_index=1). Expect it first with expect_call("interrupt"), or find '
            "why the code under test called interrupt instead of send_event."
        ),
        id="unexpected-realtime-call",
    ),
    pytest.param(
        RealtimeCallMatcherError(0, "connect"),
        {"call_index": 0, "actual_method": "connect"},
        (
            "ScriptedRealtimeTransport matcher rejected connect call #1. Call #1 "
            "(call_index=0). Fix the expectation's matcher, or the code under test that made "
            "the call."
        ),
        id="realtime-matcher",
    ),
    pytest.param(
        UnexpectedRealtimeCallError(0, "connect", "mute", "mute(muted=True)"),
        {
            "call_index": 0,
            "expected_method": "connect",
            "actual_method": "mute",
            "call_summary": "mute(muted=True)",
        },
        "ScriptedRealtimeTransport expected connect but received mute call #1. Call #1 "
        '(call_index=0) was: mute(muted=True). Expect it first with expect_call("mute"), or '
        "find why the code under test called mute instead of connect.",
        id="unexpected-realtime-call-with-summary",
    ),
    pytest.param(
        RealtimeCallMatcherError(3, "send_message", "send_message(message='Hi')"),
        {
            "call_index": 3,
            "actual_method": "send_message",
            "call_summary": "send_message(message='Hi')",
        },
        "ScriptedRealtimeTransport matcher rejected send_message call #4. Call #4 "
        "(call_index=3) was: send_message(message='Hi'). Fix the expectation's matcher, or "
        "the code under test that made the call.",
        id="realtime-matcher-with-summary",
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
        (
            "ScriptedRealtimeTransport scenario is incomplete: 0 unconsumed calls, 2 pending "
            "expectations (#1 connect, #2 send_event), and 0 pending failures. Remove the "
            "expectations the code under test never meets, or find why it stopped before "
            "making those calls."
        ),
        id="incomplete-realtime-expectations",
    ),
    pytest.param(
        IncompleteRealtimeScenarioError(unconsumed_calls=[{"index": 0, "method": "connect"}]),
        {
            "unconsumed_calls": ({"index": 0, "method": "connect"},),
            "pending_expectations": (),
            "pending_failures": (),
        },
        (
            "ScriptedRealtimeTransport scenario is incomplete: 1 unconsumed call, 0 pending "
            "expectations, and 0 pending failures. Unconsumed: call #1 (call_index=0) connect; "
            "expect them with expect_call(...)."
        ),
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
        (
            "ScriptedRealtimeTransport scenario is incomplete: 2 unconsumed calls, 0 pending "
            "expectations, and 2 pending failures. Unconsumed: call #1 (call_index=0) connect, "
            "call #2 (call_index=1) mute; expect them with expect_call(...). Failures scripted "
            "with fail_next_call() for send_event were never raised: remove them or make the "
            "calls they fail."
        ),
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
        InvalidRealtimeEventError("audio", "its data must be bytes, got str", "openai-agents"),
        {
            "event_type": "audio",
            "reason": "its data must be bytes, got str",
            "framework": "openai-agents",
        },
        "Emitted realtime event 'audio' is not valid for openai-agents: its data must be "
        "bytes, got str. Fix the payload passed to emit('audio', ...): give it the fields "
        "openai-agents needs for this event (docs/realtime.md lists them), or emit the "
        "framework's own event as 'model_event'.",
        id="realtime-invalid-event",
    ),
    pytest.param(
        RealtimeEventLoopError("run_scenario", "trio"),
        {"operation": "run_scenario", "running_library": "trio"},
        "ScriptedRealtimeTransport.run_scenario() needs a running asyncio event loop, but it "
        "was called under trio (running_library='trio'). The realtime double is built on "
        "asyncio futures and tasks, so run this code on asyncio: in a script, "
        "asyncio.run(main()); with pytest-asyncio, mark the test @pytest.mark.asyncio; with "
        "anyio, run the test on the asyncio backend (an anyio_backend fixture that returns "
        '"asyncio").',
        id="realtime-needs-asyncio",
    ),
    pytest.param(
        RealtimeThreadError("send_audio"),
        {"operation": "send_audio"},
        "ScriptedRealtimeTransport.send_audio() was called from a thread that does not run "
        "the event loop of the transport's scenario run or pending expectations "
        "(operation='send_audio'); nothing was recorded. Asyncio futures and tasks may only "
        "be used on their event loop's thread, so make the call there: from the worker "
        "thread, loop.call_soon_threadsafe(transport.send_audio, ...) with the loop the test "
        "runs on, or return to the loop first (await asyncio.to_thread(work), then call the "
        "transport).",
        id="realtime-wrong-thread",
    ),
    pytest.param(
        RealtimeThreadError("emit"),
        {"operation": "emit"},
        "ScriptedRealtimeTransport.emit() was called from a thread that does not run the "
        "event loop of the transport's scenario run, pending expectations or connected "
        "openai-agents realtime model (operation='emit'); nothing was emitted. Asyncio "
        "futures and tasks may only be used on their event loop's thread, so make the call "
        "there: from the worker thread, loop.call_soon_threadsafe(transport.emit, ...) with "
        "the loop the test runs on, or return to the loop first (await "
        "asyncio.to_thread(work), then call the transport).",
        id="realtime-emit-from-wrong-thread",
    ),
    pytest.param(
        RealtimeThreadError("close"),
        {"operation": "close"},
        "ScriptedRealtimeTransport.close() was called from a thread that does not run the "
        "event loop of the transport's scenario run, pending expectations or connected "
        "openai-agents realtime model (operation='close'); nothing was recorded or emitted "
        "and the status did not change. Asyncio futures and tasks may only be used on their "
        "event loop's thread, so make the call there: from the worker thread, "
        "loop.call_soon_threadsafe(transport.close, ...) with the loop the test runs on, or "
        "return to the loop first (await asyncio.to_thread(work), then call the transport).",
        id="realtime-close-from-wrong-thread",
    ),
    pytest.param(
        RealtimeThreadError("disconnect"),
        {"operation": "disconnect"},
        "ScriptedRealtimeTransport.disconnect() was called from a thread that does not run "
        "the event loop of the transport's scenario run, pending expectations or connected "
        "openai-agents realtime model (operation='disconnect'); nothing was emitted and the "
        "status did not change. Asyncio futures and tasks may only be used on their event "
        "loop's thread, so make the call there: from the worker thread, "
        "loop.call_soon_threadsafe(transport.disconnect, ...) with the loop the test runs "
        "on, or return to the loop first (await asyncio.to_thread(work), then call the "
        "transport).",
        id="realtime-disconnect-from-wrong-thread",
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
    pytest.param(
        ScriptedHTTPError(429, retry_after=1.5),
        {"status": 429, "message": None, "retry_after": 1.5, "error_type": None, "code": None},
        "Scripted HTTP error 429.",
        id="scripted-http-error",
    ),
    pytest.param(
        WireRequestError("unknown_path", 2, "POST", "/v2/chat"),
        {
            "reason": "unknown_path",
            "request_index": 2,
            "method": "POST",
            "path": "/v2/chat",
            "detail": None,
        },
        "Scripted wire endpoint request #3 (request_index=2) POST /v2/chat: unknown path; "
        "point the client's base URL at the server: OpenAI clients at server.base_url "
        "(ending in /v1), Anthropic clients at server.url; the served paths end in "
        "/responses, /chat/completions or /messages.",
        id="wire-unknown-path",
    ),
    pytest.param(
        WireRequestError("malformed_json", 0, "POST", "/v1/messages", "Expecting value"),
        {
            "reason": "malformed_json",
            "request_index": 0,
            "method": "POST",
            "path": "/v1/messages",
            "detail": "Expecting value",
        },
        "Scripted wire endpoint request #1 (request_index=0) POST /v1/messages: malformed json "
        "(Expecting value); send a JSON object as the request body.",
        id="wire-malformed-json",
    ),
    pytest.param(
        ScriptedJSONRPCError(-32602, "unknown city", {"city": "x"}),
        {"code": -32602, "message": "unknown city", "data": {"city": "x"}},
        "JSON-RPC error -32602: unknown city",
        id="scripted-jsonrpc-error",
    ),
    pytest.param(
        UnexpectedMCPCallError(
            2,
            "tools/call",
            "get_weather({'city': 'Rome'})",
            "tools/call get_weather({'city': 'Paris'})",
            1,
        ),
        {
            "call_index": 2,
            "method": "tools/call",
            "call_summary": "get_weather({'city': 'Rome'})",
            "expected": "tools/call get_weather({'city': 'Paris'})",
            "step_index": 1,
        },
        "ScriptedMCPServer received unexpected tools/call call #3; expected step #2 "
        "(step_index=1) tools/call get_weather({'city': 'Paris'}). Call #3 (call_index=2) "
        "sent: get_weather({'city': 'Rome'}). Fix the step's tool name, arguments or matcher, "
        "script a step for this call before it, pass ordered=False if the order of calls does "
        "not matter, or find why the agent sent this call.",
        id="unexpected-mcp-call-drifted",
    ),
    pytest.param(
        UnexpectedMCPCallError(0, "tools/call", "t({})"),
        {"call_index": 0, "expected": None, "step_index": None},
        "ScriptedMCPServer received unexpected tools/call call #1; no scripted step is left "
        "for tools/call. Call #1 (call_index=0) sent: t({}). Add a step for it to the script "
        "(for tools/call: mcp_tool_call(name, arguments, result=...)), or find why the agent "
        "made this call.",
        id="unexpected-mcp-call-none-left",
    ),
    pytest.param(
        UnconsumedMCPStepsError(
            1,
            [
                {
                    "step_index": 0,
                    "method": "tools/call",
                    "summary": "tools/call a(any arguments) -> 'A'",
                }
            ],
        ),
        {"remaining_steps": 1},
        "ScriptedMCPServer has 1 unconsumed scripted step. Pending: step #1 (step_index=0) "
        "tools/call: tools/call a(any arguments) -> 'A'. Remove the steps the workflow does "
        "not need (or pass optional=True to a step that may go unused); if they should have "
        "run, find why the agent stopped calling the MCP server (did it list the tool, and "
        "did the model ask for it?).",
        id="unconsumed-mcp-steps",
    ),
    pytest.param(
        InvalidScriptedMCPStepError("invalid_outcome", input_index=1, detail="given: none"),
        {"reason": "invalid_outcome", "input_index": 1, "call_index": None},
        "ScriptedMCPServer step #2 is invalid (invalid outcome). Step #2 (input_index=1): "
        "given: none. Fix: give exactly one of result=..., respond=... (a function of the "
        "recorded call) or error=... (an exception instance), or hang=True or "
        "drop_session=True and none of them.",
        id="invalid-mcp-step-scripted",
    ),
    pytest.param(
        InvalidScriptedMCPStepError("invalid_error", call_index=3),
        {"reason": "invalid_error", "input_index": None, "call_index": 3, "detail": None},
        "ScriptedMCPServer responder for call #4 returned an invalid answer (invalid error). "
        "Call #4 (call_index=3). Fix: script an exception instance, such as "
        'ScriptedJSONRPCError(-32602, "...").',
        id="invalid-mcp-step-served",
    ),
    pytest.param(
        RepeatedMCPListError("tools/list", 3, 1),
        {"method": "tools/list", "call_index": 3, "first_call_index": 1},
        "ScriptedMCPServer received tools/list call #4 after tools/list call #2, but the "
        "script lists tools once (list_tools_once=True). Call #4 (call_index=3). Make the "
        "agent cache the tool list (openai-agents: cache_tools_list=True), or drop "
        "list_tools_once if listing again is what the agent should do.",
        id="repeated-mcp-list",
    ),
    pytest.param(
        MCPProtocolError("unknown_method", "tools/explode", "http-1"),
        {"reason": "unknown_method", "method": "tools/explode", "session_id": "http-1"},
        "ScriptedMCPServer refused a message in session 'http-1': unknown method for "
        "tools/explode. Fix the client or the code that sends it: call a method the server "
        "offers (tools/list, tools/call, resources/list, resources/read, prompts/list, "
        "prompts/get, ...).",
        id="mcp-protocol-unknown-method",
    ),
    pytest.param(
        MCPProtocolError("malformed_json", detail="Expecting value"),
        {"reason": "malformed_json", "method": None, "session_id": None},
        "ScriptedMCPServer refused a message: malformed json (Expecting value). Fix the client "
        "or the code that sends it: send one JSON-RPC message as a JSON object.",
        id="mcp-protocol-malformed-json",
    ),
    pytest.param(
        ReplayRequestDriftError(1, "input[0].content", "Tokyo?", "Paris?"),
        {
            "call_index": 1,
            "path": "input[0].content",
            "recorded": "Tokyo?",
            "sent": "Paris?",
            "reason": "changed",
        },
        "Replayed call #2 (call_index=1) sent a request whose input[0].content differs from "
        "the recording: recorded 'Tokyo?', sent 'Paris?'. If the change is intended, record "
        "the script again (pytest --agents-testing-record) or relax this field with "
        "ignore=('input[0].content',).",
        id="replay-request-drift",
    ),
    pytest.param(
        ReplayRequestDriftError(3, "", reason="no_recorded_request"),
        {
            "call_index": 3,
            "path": "",
            "recorded": None,
            "sent": None,
            "reason": "no_recorded_request",
        },
        "Replayed call #4 (call_index=3) has no recorded request to compare with: the "
        "recording has more steps than REQUESTS. Record the script again (pytest "
        "--agents-testing-record), or add this call's request to REQUESTS.",
        id="replay-no-recorded-request",
    ),
    pytest.param(
        GenAIConventionError(
            "chat scripted", 1, "gen_ai.usage.input_tokens", "malformed", -1, ["chat"]
        ),
        {
            "span_name": "chat scripted",
            "span_index": 1,
            "attribute": "gen_ai.usage.input_tokens",
            "reason": "malformed",
            "value": -1,
            "operations": ("chat",),
        },
        "Model-call span 'chat scripted' (#2, span_index=1) has a malformed "
        "gen_ai.usage.input_tokens: -1. The GenAI semantic conventions expect an integer >= 0. "
        "Set it where the model call is traced (the instrumentation or the model adapter), or "
        "script what it is computed from (usage tokens in the step's Usage).",
        id="genai-convention-malformed",
    ),
    pytest.param(
        GenAIConventionError(
            None, None, "gen_ai.operation.name", "no_model_call_spans", None, ("chat",)
        ),
        {"span_name": None, "span_index": None, "reason": "no_model_call_spans"},
        "No model-call span in the trace: no span has gen_ai.operation.name in ['chat']. Turn "
        "on the framework's instrumentation with the capture's tracer provider, and do not "
        "filter gen_ai.* attributes out of the tree.",
        id="genai-convention-no-model-spans",
    ),
    pytest.param(
        UnexpectedVoiceCallError("tts", 2, "synthesize", call_summary="'Hello'"),
        {
            "service": "tts",
            "call_index": 2,
            "method": "synthesize",
            "expected": None,
            "step_index": None,
            "call_summary": "'Hello'",
        },
        "ScriptedTextToSpeech received unexpected synthesize call #3; no scripted step is left "
        "for it. Call #3 (call_index=2) sent: 'Hello'. Add a step for it at the end of the "
        'script (tts_speech("the text it speaks", ...)), or find why the code under test made '
        "this call.",
        id="unexpected-voice-call",
    ),
    pytest.param(
        UnexpectedVoiceCallError(
            "stt",
            0,
            "transcribe",
            expected="stt_end() (the end of a stream)",
            step_index=1,
            call_summary="4 bytes of audio",
        ),
        {
            "service": "stt",
            "call_index": 0,
            "method": "transcribe",
            "expected": "stt_end() (the end of a stream)",
            "step_index": 1,
            "call_summary": "4 bytes of audio",
        },
        "ScriptedSpeechToText received unexpected transcribe call #1; expected step #2 "
        "(step_index=1) stt_end() (the end of a stream). Call #1 (call_index=0) sent: 4 bytes "
        "of audio. A one-shot transcription cannot take an end-of-stream step: script a turn "
        "before it, or find why the code under test transcribed instead of streaming.",
        id="unexpected-voice-call-end-step",
    ),
    pytest.param(
        VoiceCallMatcherError(
            "tts", 1, "synthesize", 0, expected="text 'Hi'", call_summary="'Hello'"
        ),
        {
            "service": "tts",
            "call_index": 1,
            "method": "synthesize",
            "step_index": 0,
            "expected": "text 'Hi'",
            "call_summary": "'Hello'",
        },
        "ScriptedTextToSpeech step #1 (step_index=0) rejected synthesize call #2 (it expects "
        "text 'Hi'). Call #2 (call_index=1) sent: 'Hello'. Fix the step's text or match "
        "function, or the code under test that made the call.",
        id="voice-call-matcher",
    ),
    pytest.param(
        UnconsumedVoiceStepsError(
            "stt", 1, [{"step_index": 2, "kind": "turn", "summary": "'bye'"}]
        ),
        {
            "service": "stt",
            "remaining_steps": 1,
            "pending_steps": ({"step_index": 2, "kind": "turn", "summary": "'bye'"},),
        },
        "ScriptedSpeechToText has 1 unconsumed scripted step. Pending: step #3 (step_index=2) "
        "turn: 'bye'. Remove the steps the conversation does not need (or pass optional=True "
        "to one that may go unused); if they should have run, find why the pipeline stopped "
        "calling the service (was the clock advanced far enough, was the session closed "
        "early?).",
        id="unconsumed-voice-steps",
    ),
    pytest.param(
        InvalidScriptedVoiceStepError(
            "invalid_timing", "tts", 0, "duration must be finite and >= 0, got -1"
        ),
        {
            "reason": "invalid_timing",
            "service": "tts",
            "input_index": 0,
            "detail": "duration must be finite and >= 0, got -1",
        },
        "ScriptedTextToSpeech step #1 is invalid (invalid timing). Step #1 (input_index=0): "
        "duration must be finite and >= 0, got -1. Fix: times are finite numbers of seconds "
        ">= 0; optional is a bool.",
        id="invalid-voice-step",
    ),
]

ALL_ERROR_CLASSES = {
    GenAIConventionError,
    InvalidScriptedModelOutputError,
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
    RealtimeEventLoopError,
    RealtimeThreadError,
    InvalidRealtimeEventError,
    UnscriptedAgentError,
    ScriptedHTTPError,
    WireRequestError,
    ScriptedJSONRPCError,
    UnexpectedMCPCallError,
    UnconsumedMCPStepsError,
    InvalidScriptedMCPStepError,
    RepeatedMCPListError,
    MCPProtocolError,
    ReplayRequestDriftError,
    UnexpectedVoiceCallError,
    VoiceCallMatcherError,
    UnconsumedVoiceStepsError,
    InvalidScriptedVoiceStepError,
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
    error: _StructuredError, fields: dict[str, Any], message: str
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
        (InvalidScriptedModelOutputError, ValueError),
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
        (RealtimeEventLoopError, RuntimeError),
        (RealtimeThreadError, RuntimeError),
        (InvalidRealtimeEventError, ValueError),
        (UnscriptedAgentError, AssertionError),
        (UnexpectedMCPCallError, AssertionError),
        (UnconsumedMCPStepsError, AssertionError),
        (InvalidScriptedMCPStepError, ValueError),
        (RepeatedMCPListError, AssertionError),
        (MCPProtocolError, AssertionError),
        (GenAIConventionError, AssertionError),
        (UnexpectedVoiceCallError, AssertionError),
        (VoiceCallMatcherError, AssertionError),
        (UnconsumedVoiceStepsError, AssertionError),
        (InvalidScriptedVoiceStepError, ValueError),
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
def test_abort_errors_are_named_abort_error(
    error_class: type[ScriptedModelRequestAbortedError | ScriptedRealtimeScenarioCancelledError],
) -> None:
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

    # The reference's message comes first, then where the step is and how to fix it.
    assert str(error).startswith(message + " ")
    if input_index is not None:
        position = f"Input #{input_index + 1} (input_index={input_index}): "
    else:
        assert call_index is not None
        position = f"Call #{call_index + 1} (call_index={call_index}): "
    advice = str(error)[len(message) + 1 :]
    assert advice.startswith(position)
    assert len(advice) > len(position) + 20  # every reason says what to do
    assert (error.reason, error.input_index, error.call_index, error.step_type) == (
        reason,
        input_index,
        call_index,
        step_type,
    )
