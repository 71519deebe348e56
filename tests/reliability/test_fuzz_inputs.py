"""Bad input at every public entry point: a structured error or a named refusal, nothing else.

Each property feeds one entry point arguments drawn from ``_fuzz.junk`` (scalars of every
kind, huge ints, NaN, bytes and buffers, class instances, cycles, data nested thousands of
levels deep, and containers of all of these) and checks the outcome with ``_fuzz.check``: it
returns, raises one of the errors in ``agents_testing.errors``, re-raises what the test
scripted, or raises a ``TypeError``/``ValueError`` whose message names the argument. An
``AttributeError``, ``KeyError``, ``RecursionError``, ``OverflowError`` or bare
``RuntimeError`` from inside fails the property.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agents_testing import (
    DEFAULT_SANDBOX_INTERFACE,
    ModelRequest,
    ModelResponse,
    RetryAdviceRequest,
    ScriptedModel,
    ScriptedRealtimeTransport,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_responder,
    model_response,
    model_stream,
    model_stream_responder,
    optional_step,
    scripted_sandbox_session,
)

from ._fuzz import check, deep, junk, kwargs_junk, names, noop, outcome

REQUEST_FIELDS = (
    "input",
    "system_instructions",
    "model_settings",
    "tools",
    "handoffs",
    "previous_response_id",
    "conversation_id",
    "extra",
)
USAGE_FIELDS = (
    "requests",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "input_tokens_details",
    "output_tokens_details",
    "request_usage_entries",
)
STEP_BUILDERS: dict[str, Callable[..., Any]] = {
    "model_response": model_response,
    "model_error": model_error,
    "model_responder": model_responder,
    "model_stream": model_stream,
    "model_stream_responder": model_stream_responder,
}


def fields_of(choices: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(choices), junk, max_size=3)


# -- ScriptedModel ---------------------------------------------------------------------------


@given(steps=st.one_of(junk, st.lists(junk, max_size=3)))
def test_scripted_model_refuses_a_bad_script_by_name(steps: Any) -> None:
    check(outcome(lambda: ScriptedModel(steps)), ["steps", "input #", "nested", "Usage."])


@given(inputs=st.lists(junk, max_size=3))
def test_enqueue_refuses_bad_steps_by_name(inputs: list[Any]) -> None:
    model = ScriptedModel()
    check(outcome(lambda: model.enqueue(*inputs)), ["input #", "nested", "Usage."])


@given(builder=st.sampled_from(sorted(STEP_BUILDERS)), args=st.lists(junk, min_size=1, max_size=2))
def test_step_builders_with_bad_values_are_refused_when_scripted(
    builder: str, args: list[Any]
) -> None:
    def script() -> Any:
        step = STEP_BUILDERS[builder](*args)
        model = ScriptedModel([step])
        return model.get_response(ModelRequest(input="hi"))

    check(outcome(script), ["input #", "nested", "takes", "argument"], scripted=args)


@given(step=junk, optional=junk)
def test_optional_step_refuses_bad_values_by_name(step: Any, optional: Any) -> None:
    check(outcome(lambda: ScriptedModel([optional_step(step)])), ["input #", "nested", "step"])


@given(request=junk)
def test_get_response_refuses_a_request_of_the_wrong_type(request: Any) -> None:
    model = ScriptedModel([[]])
    check(outcome(lambda: model.get_response(request)), ["ModelRequest"])


@given(fields=fields_of(REQUEST_FIELDS), streamed=st.booleans())
def test_model_calls_refuse_bad_request_fields_by_name(
    fields: dict[str, Any], streamed: bool
) -> None:
    model = ScriptedModel([[assistant_message("hi")]])
    request = ModelRequest(**{"input": "hi", **fields})
    call = model.stream_response if streamed else model.get_response
    error = outcome(lambda: call(request))
    check(error, [*REQUEST_FIELDS, "nested"])
    if error is not None:
        # Refused before it was recorded: the step is still there for a correct call.
        assert model.remaining_steps == 1
        assert model.calls == ()


@given(result=junk, streamed=st.booleans())
def test_responders_returning_anything_fail_only_as_script_violations(
    result: Any, streamed: bool
) -> None:
    step = (
        model_stream_responder(lambda call: result)
        if streamed
        else model_responder(lambda call: result)
    )
    model = ScriptedModel([step])
    call = model.stream_response if streamed else model.get_response
    error = outcome(lambda: call(ModelRequest(input="hi")))
    check(error, ["nested"], scripted=[result])
    if error is not None and not streamed:
        # Whatever went wrong after the step was taken, the model remembers it.
        check(outcome(model.assert_complete), [])


@given(query=junk, fields=st.dictionaries(st.sampled_from(["error", "stream", "request"]), junk))
def test_get_retry_advice_refuses_bad_queries_by_name(query: Any, fields: dict[str, Any]) -> None:
    model = ScriptedModel()
    check(outcome(lambda: model.get_retry_advice(query)), ["RetryAdviceRequest"])
    built = {"error": ValueError(), "stream": False, "attempt": 1, **fields}
    check(
        outcome(lambda: model.get_retry_advice(RetryAdviceRequest(**built))),
        ["RetryAdviceRequest."],
    )


@given(fields=fields_of(USAGE_FIELDS))
def test_usage_refuses_bad_fields_by_name(fields: dict[str, Any]) -> None:
    check(outcome(lambda: Usage(**fields)), [f"Usage.{name}" for name in USAGE_FIELDS])


@given(field=st.sampled_from(USAGE_FIELDS), value=junk, streamed=st.booleans())
def test_a_usage_edited_after_it_was_built_is_a_violation(
    field: str, value: Any, streamed: bool
) -> None:
    usage = Usage()
    setattr(usage, field, value)
    model = ScriptedModel([model_responder(lambda call: ModelResponse(output=[], usage=usage))])
    call = model.stream_response if streamed else model.get_response
    error = outcome(lambda: call(ModelRequest(input="hi")))
    check(error, [])
    if error is not None:
        check(outcome(model.assert_complete), [])


@given(text=junk, name=junk, arguments=junk)
def test_item_builders_take_any_value_or_name_it(text: Any, name: Any, arguments: Any) -> None:
    check(outcome(lambda: assistant_message(text)), ["text"])
    check(outcome(lambda: function_call(name, arguments, call_id="c")), ["arguments", "name"])


# -- scripted sandbox session ----------------------------------------------------------------


@given(steps=st.one_of(junk, st.lists(junk, max_size=3)), interface=st.one_of(st.none(), junk))
def test_sandbox_session_refuses_a_bad_script_by_name(steps: Any, interface: Any) -> None:
    check(
        outcome(lambda: scripted_sandbox_session(steps, interface=interface)),
        ["steps", "step #", "interface", "nested"],
    )


@given(
    steps=st.lists(
        st.fixed_dictionaries(
            {"method": st.sampled_from(["exec", "supports_pty", "read_file"])},
            optional={"result": junk, "match": junk, "respond": junk, "error": junk},
        ),
        max_size=3,
    )
)
def test_sandbox_steps_with_bad_values_are_refused_by_name(steps: list[dict[str, Any]]) -> None:
    check(outcome(lambda: scripted_sandbox_session(steps)), ["step #", "nested"])


@given(
    method=st.sampled_from(sorted(DEFAULT_SANDBOX_INTERFACE)),
    args=st.lists(junk, max_size=2),
    kwargs=kwargs_junk,
    respond=st.booleans(),
    value=junk,
)
def test_sandbox_methods_record_any_arguments_or_name_them(
    method: str, args: list[Any], kwargs: dict[str, Any], respond: bool, value: Any
) -> None:
    step: dict[str, Any] = {"method": method}
    if respond:
        step["respond"] = lambda call: value
    else:
        step["result"] = [1]
    session = scripted_sandbox_session([step])
    error = outcome(lambda: getattr(session, method)(*args, **kwargs))
    check(error, [f"{method}() args", f"{method}() kwargs"], scripted=[value])
    if error is None:
        (call,) = session.calls
        assert (call.index, call.method) == (0, method)


@given(method=names, args=st.lists(junk, max_size=2))
def test_sandbox_invoke_refuses_unknown_method_names_by_name(method: Any, args: list[Any]) -> None:
    session = scripted_sandbox_session([{"method": "exec", "result": 1}])
    check(outcome(lambda: session.invoke(method, *args)), ["method", "nested"])


# -- scripted realtime transport -------------------------------------------------------------

OUTBOUND_ARITY = {
    "connect": 1,
    "send_event": 1,
    "request_response": 1,
    "send_message": 2,
    "add_image": 1,
    "send_audio": 1,
    "update_session_config": 1,
    "close": 0,
    "mute": 1,
    "send_function_call_output": 3,
    "interrupt": 0,
    "reset_history": 2,
    "send_mcp_response": 3,
}


@given(method=st.sampled_from(sorted(OUTBOUND_ARITY)), args=st.lists(junk, min_size=3, max_size=3))
def test_outbound_calls_record_any_value_or_name_it(method: str, args: list[Any]) -> None:
    transport = ScriptedRealtimeTransport()
    transport.status = "connected"
    arguments = args[: OUTBOUND_ARITY[method]]
    error = outcome(lambda: getattr(transport, method)(*arguments))
    check(error, [f"{method}()"])
    if error is None and method != "close":
        assert [call.method for call in transport.calls] == [method]


@given(api=st.sampled_from(["on", "once", "off"]), event=names, listener=junk)
def test_listener_registration_refuses_bad_values_by_name(
    api: str, event: Any, listener: Any
) -> None:
    transport = ScriptedRealtimeTransport()
    check(outcome(lambda: getattr(transport, api)(event, listener)), ["event", "listener"])


@given(event=names, args=st.lists(junk, max_size=2))
def test_emit_refuses_a_bad_event_name_by_name(event: Any, args: list[Any]) -> None:
    transport = ScriptedRealtimeTransport()
    transport.on("x", noop)
    check(outcome(lambda: transport.emit(event, *args)), ["event"])


@given(method=names, matcher=st.one_of(st.none(), junk))
def test_expect_call_refuses_bad_values_by_name(method: Any, matcher: Any) -> None:
    transport = ScriptedRealtimeTransport()

    async def expect() -> None:
        future = transport.expect_call(method, matcher)
        future.cancel()

    check(outcome(lambda: asyncio.run(expect())), ["method", "matcher"])


@given(method=names, error=junk, disconnect_error=junk)
def test_failure_scripting_refuses_bad_values_by_name(
    method: Any, error: Any, disconnect_error: Any
) -> None:
    transport = ScriptedRealtimeTransport()
    check(outcome(lambda: transport.fail_next_call(method, error)), ["method", "exception"])
    check(outcome(lambda: transport.disconnect(disconnect_error)), ["exception"])


@given(
    scenario=st.one_of(st.just(noop), junk),
    exercise=st.one_of(st.just(noop), junk),
    timeout=st.one_of(st.none(), junk),
    signal=st.one_of(st.none(), junk, st.builds(asyncio.Event)),
)
def test_run_scenario_refuses_bad_arguments_by_name(
    scenario: Any, exercise: Any, timeout: Any, signal: Any
) -> None:
    transport = ScriptedRealtimeTransport()
    error = outcome(
        lambda: transport.run_scenario(
            scenario=scenario, exercise=exercise, timeout=timeout, signal=signal
        )
    )
    check(error, ["scenario", "timeout", "signal"])


# -- data nested deeper than the recursion limit, at every boundary that records data ---------


def _transport() -> ScriptedRealtimeTransport:
    transport = ScriptedRealtimeTransport()
    transport.status = "connected"
    return transport


DEEP_TARGETS: dict[str, Any] = {
    "model request input": lambda v: ScriptedModel([[]]).get_response(ModelRequest(input=[v])),
    "model request settings": lambda v: ScriptedModel([[]]).stream_response(
        ModelRequest(input="hi", model_settings={"a": v})
    ),
    "model script": lambda v: ScriptedModel([[{"type": "message", "content": v}]]),
    "model responder result": lambda v: ScriptedModel(
        [model_responder(lambda call: [{"type": "message", "content": v}])]
    ).get_response(ModelRequest(input="hi")),
    "usage details": lambda v: Usage(input_tokens_details={"a": v}),
    "function_call arguments": lambda v: function_call("f", v, call_id="c"),
    "sandbox arguments": lambda v: scripted_sandbox_session([{"method": "exec", "result": 1}]).exec(
        v
    ),
    "sandbox keyword arguments": lambda v: scripted_sandbox_session(
        [{"method": "supports_pty", "result": 1}]
    ).supports_pty(options=v),
    "sandbox result": lambda v: scripted_sandbox_session([{"method": "exec", "result": v}]),
    "sandbox interface": lambda v: scripted_sandbox_session([], interface={"a": v}),
    "realtime event": lambda v: _transport().send_event({"a": v}),
    "realtime connect options": lambda v: _transport().connect({"initial_session_config": v}),
    "realtime history": lambda v: _transport().reset_history([v], []),
    "realtime emit arguments": lambda v: _transport().emit("x", v),
    "realtime method name": lambda v: _transport().fail_next_call(v, ValueError()),
    "run_scenario timeout": lambda v: _transport().run_scenario(
        scenario=noop, exercise=noop, timeout=v
    ),
}


@given(
    target=st.sampled_from(sorted(DEEP_TARGETS)),
    depth=st.integers(min_value=2_500, max_value=6_000),
    kind=st.sampled_from(["list", "dict", "tuple"]),
)
def test_deeply_nested_data_is_refused_with_its_path(target: str, depth: int, kind: str) -> None:
    value = deep(depth, kind)
    error = outcome(lambda: DEEP_TARGETS[target](value))
    check(error, ["nested", "must be", "arguments", "method", "timeout", "interface"])
