"""Checks a model adapter passes on its real framework, as plain async functions.

Each check scripts a ``ScriptedModel``, drives the framework through the author's harness
and raises ``ConformanceError`` naming the behavior that broke. They need no test runner:
``asyncio.run(check_text_turn(harness))`` works as well as a pytest test does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, TypeVar, cast

from ..errors import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    UnexpectedModelCallError,
)
from ..items import ModelRequest, ModelResponse, ModelRetryAdvice, Usage, assistant_message
from ..items import function_call as function_call_item
from ..model import ScriptedModel, model_error, model_stream
from ._checking import HarnessMisuseError as _HarnessMisuseError
from ._checking import chain as _chain
from ._checking import described as _described
from ._checking import fail as _fail
from ._checking import method as _method
from ._checking import parsed as _parsed
from ._checking import raised as _raised
from ._checking import returned as _returned
from ._checking import returned_as as _returned_as
from ._checking import run_harness as _run_harness
from ._errors import ConformanceError
from ._harness import (
    AbandonStreamHarness,
    ModelHarness,
    Reply,
    RetryAdviceHarness,
    StructuredOutputHarness,
)

__all__ = [
    "ScriptedFailure",
    "check_abandoned_stream_closes_the_source",
    "check_advice_against_retrying_is_followed",
    "check_automatic_stream",
    "check_exact_stream",
    "check_exact_tool_arguments",
    "check_extra_call_fails_the_run",
    "check_invalid_stream_events_are_refused",
    "check_model_error_reaches_the_caller",
    "check_parallel_tool_calls",
    "check_reasoning_items",
    "check_recorded_request",
    "check_retry_advice_is_followed",
    "check_structured_output",
    "check_text_turn",
    "check_tool_call_turn",
    "check_tool_loop",
    "check_tool_loop_history",
    "check_unknown_output_item_is_refused",
    "check_usage",
]

PROMPT = "What is the weather in Tokyo?"
ANSWER = "It is sunny in Tokyo."
TOOL = "get_weather"
# A space after the colon: not the compact JSON function_call() writes for a dict.
EXACT_ARGUMENTS = '{"city": "Tokyo"}'

_T = TypeVar("_T")
_E = TypeVar("_E", bound=Exception)


class ScriptedFailure(Exception):
    """The model failure the error and retry checks script."""


async def _call(harness: object, model: ScriptedModel, *, stream: bool) -> Reply:
    value = await _run_harness(harness, "call", model, PROMPT, stream=stream)
    return _returned_as(value, Reply, "call", "a Reply")


async def _answer(harness: object, name: str, model: ScriptedModel, *, stream: bool) -> str:
    value = await _run_harness(harness, name, model, PROMPT, stream=stream)
    return _returned_as(value, str, name, "the final answer as a str")


# -- reading what happened -------------------------------------------------------------------


def _check_calls(check: str, model: ScriptedModel, streamed: list[bool], fix: str) -> None:
    """Fail unless the model recorded one call per entry, streamed as listed."""
    actual = [call.streamed for call in model.calls]
    if actual != streamed:
        _fail(
            check,
            f"{len(streamed)} model call(s) with streamed={streamed}",
            f"{len(actual)} call(s) with streamed={actual}",
            fix,
        )


def _check_complete(check: str, model: ScriptedModel, fix: str) -> None:
    try:
        model.assert_complete()
    except (AssertionError, ValueError) as error:
        raise ConformanceError(
            check, "assert_complete() to pass", f"it raised {_described(error)}", fix
        ) from error


def _items(request: ModelRequest, kind: str) -> list[Mapping[str, Any]]:
    if isinstance(request.input, str):
        return []
    items = [cast("Mapping[str, Any]", item) for item in request.input if isinstance(item, Mapping)]
    return [item for item in items if item.get("type") == kind]


def _recorded_violation(
    check: str,
    model: ScriptedModel,
    raised: Exception | None,
    kind: type[_E],
    fix: str,
) -> _E:
    """Return the violation ``assert_complete()`` raises again, checking the run's failure.

    The run may fail with the violation (wrapped or not) or the framework may swallow it;
    either way the model must have recorded it.
    """
    if raised is not None and not any(isinstance(e, kind) for e in _chain(raised)):
        raise ConformanceError(
            check,
            f"the run to fail with {kind.__name__} (wrapped or not), or to swallow it",
            f"it raised {_described(raised)}",
            fix,
        ) from raised
    try:
        model.assert_complete()
    except kind as error:
        return error
    except (AssertionError, ValueError) as error:
        raise ConformanceError(
            check,
            f"assert_complete() to raise {kind.__name__} again",
            f"it raised {_described(error)}",
            fix,
        ) from error
    _fail(check, f"assert_complete() to raise {kind.__name__} again", "it passed", fix)


# -- turns -------------------------------------------------------------------------------------


async def check_text_turn(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that one model call answers with the scripted assistant text.

    Scripts ``[assistant_message(ANSWER)]`` and makes one call through ``harness.call``:
    the reply holds the text and no tool calls, and the model recorded exactly one call,
    streamed as asked, using the one step.

    Troubleshooting: if the text is missing, turn each ``message`` item's ``output_text``
    parts into the framework's assistant text. If the model saw no call or two, send each
    framework call to ``ScriptedModel.get_response`` (plain) or ``stream_response``
    (streamed) exactly once, and never both.
    """
    check = "check_text_turn"
    fix = (
        "Send each framework call to ScriptedModel.get_response (plain) or stream_response "
        "(streamed) exactly once, and turn message items into the framework's assistant text."
    )
    model = ScriptedModel([[assistant_message(ANSWER)]])
    reply = await _returned(check, _call(harness, model, stream=stream), fix)
    _check_calls(check, model, [stream], fix)
    if reply.text != ANSWER:
        _fail(check, f"the reply's text {ANSWER!r}", f"{reply.text!r}", fix)
    if reply.tool_calls:
        _fail(check, "no tool calls", f"{list(reply.tool_calls)}", fix)
    _check_complete(check, model, fix)


async def check_tool_call_turn(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that a scripted ``function_call`` reaches the framework as its tool call.

    Scripts ``function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")``: the
    reply holds one tool call with that name, call id and arguments (compared as parsed
    JSON).

    Troubleshooting: map ``name`` to the framework's tool name, ``call_id`` (not ``id``) to
    the id the framework answers the call with, and ``arguments`` (a JSON string) to its
    arguments. A streamed call built from a plain step must deliver the tool call too.
    """
    check = "check_tool_call_turn"
    fix = (
        "Turn each function_call item into the framework's tool call: name, call_id (not id) "
        "and the arguments JSON, streamed or not."
    )
    model = ScriptedModel([[function_call_item(TOOL, {"city": "Tokyo"}, call_id="call_1")]])
    reply = await _returned(check, _call(harness, model, stream=stream), fix)
    _check_calls(check, model, [stream], fix)
    actual = [(call.name, call.call_id, _parsed(call.arguments)) for call in reply.tool_calls]
    expected = [(TOOL, "call_1", {"city": "Tokyo"})]
    if actual != expected:
        _fail(check, f"tool calls {expected}", f"{actual}", fix)


async def check_exact_tool_arguments(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that a tool call's argument string reaches the framework and comes back unchanged.

    Scripts arguments ``'{"city": "Tokyo"}'`` (with a space, unlike compact JSON): the reply
    keeps that exact string, and in a tool loop the next request records it again.

    Troubleshooting: pass the scripted ``arguments`` string through as it is, and when the
    framework sends the tool call back in its history, record the string it kept rather
    than re-serializing parsed arguments. A framework that keeps only parsed arguments
    cannot pass this check: declare the capability absent.
    """
    check = "check_exact_tool_arguments"
    fix = (
        "Pass a function_call's arguments string through unchanged, and record the same string "
        "when the framework sends the call back; do not re-serialize parsed arguments."
    )
    model = ScriptedModel([[function_call_item(TOOL, EXACT_ARGUMENTS, call_id="call_1")]])
    reply = await _returned(check, _call(harness, model, stream=stream), fix)
    sent = [call.arguments for call in reply.tool_calls]
    if sent != [EXACT_ARGUMENTS]:
        _fail(check, f"the reply's tool call arguments [{EXACT_ARGUMENTS!r}]", f"{sent}", fix)

    model = ScriptedModel(
        [
            [function_call_item(TOOL, EXACT_ARGUMENTS, call_id="call_1")],
            [assistant_message(ANSWER)],
        ]
    )
    await _returned(check, _answer(harness, "run_tool_loop", model, stream=stream), fix)
    _check_calls(check, model, [stream, stream], fix)
    recorded = [item.get("arguments") for item in _items(model.calls[1].request, "function_call")]
    if recorded != [EXACT_ARGUMENTS]:
        _fail(
            check,
            f"the second request's function_call arguments [{EXACT_ARGUMENTS!r}]",
            f"{recorded}",
            fix,
        )


# -- the tool loop -------------------------------------------------------------------------------


def _tool_script() -> list[Any]:
    return [
        [function_call_item(TOOL, {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message(ANSWER)],
    ]


async def check_tool_loop(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that the framework's loop runs the scripted tool call and returns the answer.

    Scripts a ``get_weather`` call, then the answer: the loop answers with it after exactly
    two model calls, both streamed as asked, using every step.

    Troubleshooting: if the loop stops after the first call, the tool call did not reach
    the framework as one it runs (see ``check_tool_call_turn``). If it makes a third call,
    the answer was not taken as final: a message without tool calls must end the loop.
    """
    check = "check_tool_loop"
    fix = (
        "Give the framework the tool call as one it runs, and the final message as a reply "
        "without tool calls, so its loop makes exactly two calls."
    )
    model = ScriptedModel(_tool_script())
    answer = await _returned(check, _answer(harness, "run_tool_loop", model, stream=stream), fix)
    _check_calls(check, model, [stream, stream], fix)
    if answer != ANSWER:
        _fail(check, f"the answer {ANSWER!r}", f"{answer!r}", fix)
    _check_complete(check, model, fix)


async def check_tool_loop_history(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that the second request records the tool call and its output as items.

    After a ``get_weather`` round trip, the second request's ``input`` holds a
    ``function_call`` item (name, ``call_id``) and a ``function_call_output`` item for
    ``call_1`` holding ``"Tokyo: sunny"``, so ``request.tool_outputs`` and
    ``request.last_user_text`` read the same as on every other framework.

    Troubleshooting: record the framework's history as normalized items: the user's
    message as ``{"type": "message", "role": "user", "content": ...}``, each tool call as
    ``function_call(name, arguments, call_id=...)`` and each tool result as
    ``{"type": "function_call_output", "call_id": ..., "output": ...}``. Keep the
    framework's own messages in ``request.extra`` if tests need them.
    """
    check = "check_tool_loop_history"
    fix = (
        "Record the framework's history as items: the user message, a function_call item per "
        "tool call and a function_call_output item (call_id, output) per tool result."
    )
    model = ScriptedModel(_tool_script())
    await _returned(check, _answer(harness, "run_tool_loop", model, stream=stream), fix)
    _check_calls(check, model, [stream, stream], fix)
    second = model.calls[1].request
    calls = [(item.get("name"), item.get("call_id")) for item in _items(second, "function_call")]
    if calls != [(TOOL, "call_1")]:
        _fail(check, f"function_call items [{(TOOL, 'call_1')}]", f"{calls}", fix)
    outputs = second.tool_outputs
    if list(outputs) != ["call_1"] or "Tokyo: sunny" not in str(outputs["call_1"]):
        _fail(check, "tool_outputs {'call_1': ...'Tokyo: sunny'...}", f"{outputs}", fix)
    if second.last_user_text != PROMPT:
        _fail(check, f"last_user_text {PROMPT!r}", f"{second.last_user_text!r}", fix)


async def check_parallel_tool_calls(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that two tool calls in one response both run and both outputs go back.

    Scripts ``get_weather`` for Tokyo (``call_1``) and Paris (``call_2``) in one response:
    the next request's ``tool_outputs`` holds both, in order.

    Troubleshooting: convert every ``function_call`` item of a response, not only the
    first, and give each its own ``call_id``; record every tool result in the next request.
    """
    check = "check_parallel_tool_calls"
    fix = "Convert every function_call item of a response, each with its own call_id."
    model = ScriptedModel(
        [
            [
                function_call_item(TOOL, {"city": "Tokyo"}, call_id="call_1"),
                function_call_item(TOOL, {"city": "Paris"}, call_id="call_2"),
            ],
            [assistant_message(ANSWER)],
        ]
    )
    answer = await _returned(check, _answer(harness, "run_tool_loop", model, stream=stream), fix)
    _check_calls(check, model, [stream, stream], fix)
    outputs = {key: str(value) for key, value in model.calls[1].request.tool_outputs.items()}
    if (
        list(outputs) != ["call_1", "call_2"]
        or "Tokyo: sunny" not in outputs["call_1"]
        or "Paris: sunny" not in outputs["call_2"]
    ):
        _fail(check, "tool outputs for call_1 (Tokyo) and call_2 (Paris)", f"{outputs}", fix)
    if answer != ANSWER:
        _fail(check, f"the answer {ANSWER!r}", f"{answer!r}", fix)


# -- the recorded request ----------------------------------------------------------------------


async def check_recorded_request(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that the recorded request holds the prompt and the tools, readably.

    After one call, ``request.last_user_text`` is the prompt, ``request.tool_names`` and
    the harness's own reading of ``request.tools`` are both ``["get_weather"]``,
    ``request.handoff_names`` is empty and ``request.tool_outputs`` is empty.

    Troubleshooting: build the ``ModelRequest`` from the framework's call: the user's
    message as an item (or ``input`` as the prompt string), and ``tools`` as the
    framework's own tool objects when they have a ``name`` (or OpenAI-format tool dicts).
    Handoffs go in ``handoffs``, never in ``tools``.
    """
    check = "check_recorded_request"
    fix = (
        "Build the ModelRequest from the framework's call: the user message as an item, the "
        "framework's tool objects (with a name) or OpenAI tool dicts in tools."
    )
    model = ScriptedModel([[assistant_message(ANSWER)]])
    await _returned(check, _call(harness, model, stream=stream), fix)
    _check_calls(check, model, [stream], fix)
    request = model.calls[0].request
    if request.last_user_text != PROMPT:
        _fail(check, f"last_user_text {PROMPT!r}", f"{request.last_user_text!r}", fix)
    try:
        sent = _method(harness, "sent_tool_names")(request)
    except _HarnessMisuseError:
        raise
    except Exception as error:
        raise ConformanceError(
            check, "the harness to read request.tools", f"it raised {_described(error)}", fix
        ) from error
    if sent != [TOOL] or request.tool_names != (TOOL,):
        _fail(
            check,
            f"the tools ['{TOOL}'] by the harness's reading and by request.tool_names",
            f"{sent} and {list(request.tool_names)}",
            fix,
        )
    if request.handoff_names != () or request.tool_outputs != {}:
        _fail(
            check,
            "no handoffs and no tool outputs",
            f"handoff_names={request.handoff_names}, tool_outputs={request.tool_outputs}",
            fix,
        )


async def check_usage(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that a scripted response's token usage reaches the framework.

    Scripts ``ModelResponse(..., Usage(input_tokens=10, output_tokens=4))``: the reply
    reports 10 input and 4 output tokens.

    Troubleshooting: copy ``ModelResponse.usage`` into the framework's usage type. When
    streamed, the usage arrives with the ``response_done`` event's ``response["usage"]``
    (snake_case keys): attach it to the framework's final chunk or response.
    """
    check = "check_usage"
    fix = (
        "Copy the response's Usage (input_tokens, output_tokens) into the framework's usage; "
        "for a stream, read it from the response_done event."
    )
    model = ScriptedModel(
        [ModelResponse([assistant_message(ANSWER)], Usage(input_tokens=10, output_tokens=4))]
    )
    reply = await _returned(check, _call(harness, model, stream=stream), fix)
    if (reply.input_tokens, reply.output_tokens) != (10, 4):
        _fail(
            check,
            "10 input and 4 output tokens",
            f"{reply.input_tokens} input and {reply.output_tokens} output tokens",
            fix,
        )


async def check_reasoning_items(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that a scripted reasoning item reaches the framework next to the answer.

    Scripts a ``reasoning`` item with the summary ``"Check the sky first."`` before the
    answer: the reply keeps the summary text and the answer.

    Troubleshooting: convert ``{"type": "reasoning", "summary": [{"type": "summary_text",
    "text": ...}]}`` into the framework's reasoning (or thinking) type. A framework with
    none must refuse the item (see ``check_unknown_output_item_is_refused``) and declare
    the capability absent.
    """
    check = "check_reasoning_items"
    fix = "Convert reasoning items (their summary_text parts) into the framework's reasoning type."
    reasoning = {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Check the sky first."}],
    }
    model = ScriptedModel([[reasoning, assistant_message(ANSWER)]])
    reply = await _returned(check, _call(harness, model, stream=stream), fix)
    if (reply.reasoning, reply.text) != (("Check the sky first.",), ANSWER):
        _fail(
            check,
            f"reasoning ('Check the sky first.',) and the text {ANSWER!r}",
            f"reasoning {reply.reasoning} and the text {reply.text!r}",
            fix,
        )


STRUCTURED_VALUE: Mapping[str, Any] = {"city": "Tokyo", "sky": "sunny"}


async def check_structured_output(
    harness: StructuredOutputHarness, *, stream: bool = False
) -> None:
    """Check that structured output scripted the framework's way reaches its parser.

    Scripts ``harness.structured_output({"city": "Tokyo", "sky": "sunny"})`` and runs a
    request for that object: the framework returns it, after one model call.

    Troubleshooting: the items must reach the framework exactly as a provider's would: the
    JSON text of a message, or a tool call whose arguments the framework validates.
    """
    check = "check_structured_output"
    fix = (
        "Deliver the scripted message text or tool call arguments to the framework's output "
        "parser unchanged."
    )
    items = _method(harness, "structured_output")(dict(STRUCTURED_VALUE))
    if not isinstance(items, list):
        _returned_as(items, list, "structured_output", "a list of output items")
    try:
        model = ScriptedModel([cast("list[Any]", items)])
    except (TypeError, ValueError) as error:
        raise _HarnessMisuseError(
            f"The harness's structured_output() returned items ScriptedModel refuses: {error}"
        ) from error
    run = _run_harness(harness, "run_structured", model, PROMPT, stream=stream)
    value = await _returned(check, run, fix)
    if not isinstance(value, Mapping):
        _returned_as(value, dict, "run_structured", "the output as a mapping")
    value = cast("Mapping[str, Any]", value)
    _check_calls(check, model, [stream], fix)
    if dict(value) != dict(STRUCTURED_VALUE):
        _fail(check, f"the output {dict(STRUCTURED_VALUE)}", f"{value!r}", fix)
    _check_complete(check, model, fix)


# -- streams ---------------------------------------------------------------------------------


async def check_automatic_stream(harness: ModelHarness) -> None:
    """Check that a plain response step streams as text deltas that add up to the answer.

    Scripts ``[assistant_message(ANSWER)]`` for a streamed call: the framework delivers at
    least one text delta, the deltas join to the answer, and the reply's text is the answer.

    Troubleshooting: read the events of ``ScriptedModel.stream_response``: a plain step
    streams as ``response_started``, one ``output_text_delta`` per text part and a
    ``response_done`` whose ``response["output"]`` holds the items. Turn each delta into
    the framework's text chunk.
    """
    check = "check_automatic_stream"
    fix = (
        "Turn each output_text_delta event of ScriptedModel.stream_response into the "
        "framework's text chunk, and the response_done output into its final message."
    )
    model = ScriptedModel([[assistant_message(ANSWER)]])
    reply = await _returned(check, _call(harness, model, stream=True), fix)
    _check_calls(check, model, [True], fix)
    if not reply.text_deltas or "".join(reply.text_deltas) != ANSWER or reply.text != ANSWER:
        _fail(
            check,
            f"text deltas joining to {ANSWER!r}, and that text",
            f"deltas {list(reply.text_deltas)} and the text {reply.text!r}",
            fix,
        )


async def check_exact_stream(harness: ModelHarness) -> None:
    """Check that scripted stream events reach the framework one to one, in order.

    Scripts ``model_stream`` with ``response_started``, the deltas ``"It is "`` and
    ``"sunny."`` and a ``response_done`` holding the message: the framework delivers
    exactly those two deltas, in order, and the reply's text is ``"It is sunny."``.

    Troubleshooting: do not merge, split or drop ``output_text_delta`` events, and do not
    add the ``response_done`` message's text again when deltas already carried it.
    """
    check = "check_exact_stream"
    fix = (
        "Deliver each scripted output_text_delta as one framework chunk, in order; do not "
        "repeat text from response_done that the deltas already carried."
    )
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "It is "},
                    {"type": "output_text_delta", "item_id": "msg_1", "delta": "sunny."},
                    {
                        "type": "response_done",
                        "response": {"output": [assistant_message("It is sunny.", id="msg_1")]},
                    },
                ]
            )
        ]
    )
    reply = await _returned(check, _call(harness, model, stream=True), fix)
    _check_calls(check, model, [True], fix)
    if reply.text_deltas != ("It is ", "sunny.") or reply.text != "It is sunny.":
        _fail(
            check,
            "the deltas ['It is ', 'sunny.'] and the text 'It is sunny.'",
            f"deltas {list(reply.text_deltas)} and the text {reply.text!r}",
            fix,
        )
    _check_complete(check, model, fix)


async def check_abandoned_stream_closes_the_source(harness: AbandonStreamHarness) -> None:
    """Check that a stream the framework stops reading closes the scripted source at once.

    The scripted source is an async generator; ``harness.abandon_stream`` reads the first
    text delta and stops. By the time it returns the source has been closed, not left for
    the garbage collector.

    Troubleshooting: when the framework closes or cancels your stream, close the iterator
    ``ScriptedModel.stream_response`` returned (``await events.aclose()`` in a ``finally``,
    or ``async with contextlib.aclosing(events)``).
    """
    check = "check_abandoned_stream_closes_the_source"
    fix = (
        "Close the ScriptedModel.stream_response iterator when the framework stops reading "
        "(await events.aclose() in a finally block)."
    )
    progress: list[str] = []

    async def source() -> AsyncIterator[Any]:
        try:
            yield {"type": "response_started"}
            yield {"type": "output_text_delta", "item_id": "msg_1", "delta": "It is "}
            yield {"type": "output_text_delta", "item_id": "msg_1", "delta": "sunny."}
            yield {
                "type": "response_done",
                "response": {"output": [assistant_message("It is sunny.", id="msg_1")]},
            }
            progress.append("finished")
        finally:
            progress.append("closed")

    model = ScriptedModel([model_stream(source())])
    await _returned(check, _run_harness(harness, "abandon_stream", model, PROMPT), fix)
    _check_calls(check, model, [True], fix)
    if "finished" in progress:
        _fail(
            check,
            "the harness to stop after the first text delta",
            "it read the whole stream",
            "Make abandon_stream stop reading after the first text delta.",
        )
    if progress != ["closed"]:
        _fail(check, "the scripted source closed", "it was still open", fix)


async def check_invalid_stream_events_are_refused(harness: ModelHarness) -> None:
    """Check that stream events the adapter cannot read are refused and recorded.

    Streams, one call each, an event of an unknown type and four ``response_done`` events
    whose ``response`` is unreadable (a string, an ``output`` that is no list, a ``usage``
    that is no mapping). Each call fails with ``InvalidScriptedModelStepError``
    (``reason="invalid_stream_event"``, ``call_index=0``), wrapped or not, or the framework
    swallows it; either way ``assert_complete()`` raises it again.

    Troubleshooting: raise ``model.record_violation(InvalidScriptedModelStepError(
    "invalid_stream_event", call_index=..., detail=...))`` for an event you cannot convert,
    instead of skipping it or raising a plain ``TypeError``: a skipped event lets a test
    pass without what it scripted.
    """
    check = "check_invalid_stream_events_are_refused"
    fix = (
        "Raise model.record_violation(InvalidScriptedModelStepError('invalid_stream_event', "
        "call_index=..., detail=...)) for a stream event the adapter cannot convert."
    )
    unreadable: list[tuple[str, object]] = [
        ("a string", "done"),
        ("a mapping whose output is a dict", {"output": {"type": "message"}}),
        ("a mapping whose output is a string", {"output": "Hello."}),
        ("a mapping whose usage is an int", {"output": [], "usage": 3}),
    ]
    cases: list[tuple[str, list[Any]]] = [
        ("an unknown event type", [{"type": "telepathy_delta", "delta": "..."}]),
        *(
            (
                f"a response_done whose response is {description}",
                [{"type": "response_started"}, {"type": "response_done", "response": response}],
            )
            for description, response in unreadable
        ),
    ]
    for description, events in cases:
        model = ScriptedModel([model_stream(events)])
        raised = await _raised(_call(harness, model, stream=True))
        error = _recorded_violation(
            f"{check} ({description})", model, raised, InvalidScriptedModelStepError, fix
        )
        if (error.reason, error.call_index) != ("invalid_stream_event", 0):
            _fail(
                f"{check} ({description})",
                "reason='invalid_stream_event' and call_index=0",
                f"reason={error.reason!r} and call_index={error.call_index}",
                fix,
            )


# -- errors and violations ---------------------------------------------------------------------


async def check_model_error_reaches_the_caller(
    harness: ModelHarness, *, stream: bool = False
) -> None:
    """Check that a scripted ``model_error`` fails the call with that very exception.

    The framework may wrap it, but the scripted exception object must be in the raised
    error's chain (``__cause__`` / ``__context__``), and the model recorded one call.

    Troubleshooting: let the exception from ``get_response`` or from iterating
    ``stream_response`` propagate; if the framework wraps provider errors, raise from it
    (``raise FrameworkError(...) from error``) so the original stays reachable.
    """
    check = "check_model_error_reaches_the_caller"
    fix = (
        "Let the scripted exception propagate from get_response / stream_response, or chain "
        "it (raise FrameworkError(...) from error)."
    )
    failure = ScriptedFailure("model unavailable")
    model = ScriptedModel([model_error(failure)])
    raised = await _raised(_call(harness, model, stream=stream))
    if raised is None:
        _fail(check, "the call to fail with the scripted ScriptedFailure", "it returned", fix)
    if not any(error is failure for error in _chain(raised)):
        raise ConformanceError(
            check,
            "the scripted ScriptedFailure in the raised error's chain",
            f"{_described(raised)} without it",
            fix,
        ) from raised
    _check_calls(check, model, [stream], fix)


async def check_retry_advice_is_followed(
    harness: RetryAdviceHarness, *, stream: bool = False
) -> None:
    """Check that the framework retries a failure the scripted advice says to retry.

    Scripts ``model_error(failure, ModelRetryAdvice(suggested=True, retry_after=0.0))``
    then the answer: a run whose retry policy follows the provider's advice answers after
    two calls with the same input.

    Troubleshooting: implement the framework's retry-advice hook by asking
    ``ScriptedModel.get_retry_advice(RetryAdviceRequest(error=..., stream=..., attempt=...,
    request=...))`` and converting the ``ModelRetryAdvice`` into the framework's type.
    """
    check = "check_retry_advice_is_followed"
    fix = (
        "Answer the framework's retry-advice hook with ScriptedModel.get_retry_advice("
        "RetryAdviceRequest(...)), converted to the framework's advice type."
    )
    advice = ModelRetryAdvice(suggested=True, retry_after=0.0, replay_safety="safe")
    model = ScriptedModel(
        [model_error(ScriptedFailure("overloaded"), advice), [assistant_message(ANSWER)]]
    )
    answer = await _returned(check, _answer(harness, "run_with_retry", model, stream=stream), fix)
    _check_calls(check, model, [stream, stream], fix)
    if answer != ANSWER:
        _fail(check, f"the answer {ANSWER!r}", f"{answer!r}", fix)
    first, second = (call.request for call in model.calls)
    if first.input != second.input:
        _fail(
            check, "the retry to send the same input", f"{first.input!r} then {second.input!r}", fix
        )


async def check_advice_against_retrying_is_followed(
    harness: RetryAdviceHarness, *, stream: bool = False
) -> None:
    """Check that the framework does not retry a failure the scripted advice says not to.

    Scripts ``model_error(failure, ModelRetryAdvice(suggested=False))``: the run fails with
    the scripted exception after one call, leaving the next step unused.

    Troubleshooting: convert ``suggested=False`` into the framework's "do not retry"
    advice; never return advice the script did not give.
    """
    check = "check_advice_against_retrying_is_followed"
    fix = "Convert ModelRetryAdvice(suggested=False) into the framework's advice not to retry."
    failure = ScriptedFailure("bad request")
    model = ScriptedModel(
        [model_error(failure, ModelRetryAdvice(suggested=False)), [assistant_message("unused")]]
    )
    raised = await _raised(_answer(harness, "run_with_retry", model, stream=stream))
    if raised is None or not any(error is failure for error in _chain(raised)):
        _fail(
            check,
            "the run to fail with the scripted ScriptedFailure",
            "it returned" if raised is None else _described(raised),
            fix,
        )
    _check_calls(check, model, [stream], fix)


async def check_extra_call_fails_the_run(harness: ModelHarness, *, stream: bool = False) -> None:
    """Check that a model call past the end of the script fails the test.

    Scripts only the tool call, so the loop's second call is unexpected. The run fails with
    ``UnexpectedModelCallError`` (wrapped or not) or the framework swallows it; either way
    ``assert_complete()`` raises it again for call #2, streamed as asked.

    Troubleshooting: send every framework call to the scripted model, even when no step
    is left, and do not answer it yourself: the model records the violation so a framework
    that catches the error cannot hide it.
    """
    check = "check_extra_call_fails_the_run"
    fix = (
        "Send every framework call to the ScriptedModel, even with no step left, and do not "
        "answer it yourself: the model records the violation for assert_complete()."
    )
    model = ScriptedModel([_tool_script()[0]])
    raised = await _raised(_answer(harness, "run_tool_loop", model, stream=stream))
    error = _recorded_violation(check, model, raised, UnexpectedModelCallError, fix)
    if (error.call_index, error.streamed) != (1, stream):
        _fail(
            check,
            f"call_index=1 and streamed={stream}",
            f"call_index={error.call_index} and streamed={error.streamed}",
            fix,
        )


async def check_unknown_output_item_is_refused(
    harness: ModelHarness, *, stream: bool = False
) -> None:
    """Check that an output item the framework has no type for is refused, not dropped.

    Scripts an answer followed by ``{"type": "telepathy"}``. The call fails with
    ``InvalidScriptedModelOutputError`` (``call_index=0``, ``output_index=1``,
    ``item_type="telepathy"``), wrapped or not, or the framework swallows it; either way
    ``assert_complete()`` raises it again.

    Troubleshooting: for an item you cannot convert, raise
    ``model.record_violation(InvalidScriptedModelOutputError(call_index, output_index,
    item_type, reason, framework))``. Dropping the item lets a test pass without what it
    scripted; raising without ``record_violation`` lets a framework that catches errors
    hide it.
    """
    check = "check_unknown_output_item_is_refused"
    fix = (
        "Raise model.record_violation(InvalidScriptedModelOutputError(call_index, "
        "output_index, item_type, reason, framework)) for an item the adapter cannot convert."
    )
    model = ScriptedModel([[assistant_message(ANSWER), {"type": "telepathy"}]])
    raised = await _raised(_call(harness, model, stream=stream))
    error = _recorded_violation(check, model, raised, InvalidScriptedModelOutputError, fix)
    fields = (error.call_index, error.output_index, error.item_type)
    if fields != (0, 1, "telepathy"):
        _fail(
            check,
            "call_index=0, output_index=1, item_type='telepathy'",
            "call_index={}, output_index={}, item_type={!r}".format(*fields),
            fix,
        )
