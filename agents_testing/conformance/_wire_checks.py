"""Checks a client library passes against the scripted wire endpoint, as plain async functions.

Each check scripts a ``ScriptedModel``, serves it with a ``ScriptedServer`` on 127.0.0.1,
drives the client through the author's ``WireHarness`` and raises ``ConformanceError``
naming the behavior that broke. The server is closed before the check returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import TypeVar

from ..errors import ScriptedHTTPError, UnexpectedModelCallError, WireRequestError
from ..items import FunctionCallItem, ModelRequest, ModelResponse, Usage, assistant_message
from ..items import function_call as function_call_item
from ..model import ScriptedModel, model_error, model_stream
from ..wire import ScriptedServer
from ._checking import HarnessMisuseError as _HarnessMisuseError
from ._checking import described as _described
from ._checking import fail as _fail
from ._checking import parsed as _parsed
from ._checking import raised as _raised
from ._checking import returned as _returned
from ._checking import returned_as as _returned_as
from ._checking import run_harness as _run_harness
from ._errors import ConformanceError
from ._harness import Reply
from ._model_checks import ANSWER, EXACT_ARGUMENTS, PROMPT, TOOL
from ._wire_harness import WireHarness

_E = TypeVar("_E", bound=AssertionError)

__all__ = [
    "check_wire_automatic_stream",
    "check_wire_exact_stream",
    "check_wire_exact_tool_arguments",
    "check_wire_extra_call_is_kept",
    "check_wire_http_error_arrives",
    "check_wire_recorded_request",
    "check_wire_retry_after_is_followed",
    "check_wire_text_turn",
    "check_wire_tool_call_turn",
    "check_wire_tool_loop",
    "check_wire_unknown_output_item_is_refused",
    "check_wire_usage",
]


@asynccontextmanager
async def _serving(model: ScriptedModel) -> AsyncGenerator[ScriptedServer, None]:
    """Serve ``model`` on a loopback server for one check; close it (not check it) after."""
    server = await asyncio.to_thread(ScriptedServer(model).start)
    try:
        yield server
    finally:
        await asyncio.to_thread(server.close)


async def _call(harness: object, server: ScriptedServer, *, stream: bool) -> Reply:
    value = await _run_harness(harness, "call", server, PROMPT, stream=stream)
    return _returned_as(value, Reply, "call", "a Reply")


async def _loop(harness: object, server: ScriptedServer, *, stream: bool) -> str:
    value = await _run_harness(harness, "run_tool_loop", server, PROMPT, stream=stream)
    return _returned_as(value, str, "run_tool_loop", "the final answer as a str")


def _status(harness: object, error: BaseException) -> int | None:
    method: object = getattr(harness, "http_status", None)
    if not callable(method):
        raise _HarnessMisuseError(
            f"The harness {type(harness).__name__} has no http_status() method; write it as "
            "the WireHarness protocol of agents_testing.conformance describes."
        )
    status = method(error)
    if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
        raise _HarnessMisuseError(
            f"The harness's http_status() returned {type(status).__name__}; return the "
            "status as an int, or None."
        )
    return status


def _check_exchanges(
    check: str, server: ScriptedServer, expected: list[tuple[int, bool]], fix: str
) -> None:
    """Fail unless the endpoint answered one request per entry: (status, streamed)."""
    actual = [(exchange.status, exchange.stream) for exchange in server.requests]
    if actual != expected:
        _fail(
            check,
            f"{len(expected)} request(s) answered as (status, streamed) {expected}",
            f"{len(actual)} request(s): {actual}",
            fix,
        )


def _check_complete(check: str, server: ScriptedServer, fix: str) -> None:
    try:
        server.assert_complete()
    except (AssertionError, ValueError, RuntimeError) as error:
        raise ConformanceError(
            check, "assert_complete() to pass", f"it raised {_described(error)}", fix
        ) from error


def _request(model: ScriptedModel, index: int) -> ModelRequest:
    return model.calls[index].request


def _kept(check: str, server: ScriptedServer, kind: type[_E], fix: str) -> _E:
    """Return the violation ``assert_complete()`` raises again; fail if it passes."""
    try:
        server.assert_complete()
    except kind as error:
        return error
    except (AssertionError, ValueError, RuntimeError) as error:
        raise ConformanceError(
            check,
            f"assert_complete() to raise {kind.__name__}",
            f"it raised {_described(error)}",
            fix,
        ) from error
    _fail(check, f"assert_complete() to raise {kind.__name__}", "it passed", fix)


def _deltas(reply: Reply) -> list[str]:
    """Return the reply's text deltas but the empty ones (a Chat stream opens with one)."""
    return [delta for delta in reply.text_deltas if delta]


def _weather_call(arguments: str | dict[str, str]) -> FunctionCallItem:
    return function_call_item(TOOL, arguments, call_id="call_1")


# -- turns -------------------------------------------------------------------------------------


async def check_wire_text_turn(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that a scripted assistant message arrives as the client's reply text.

    Scripts ``[assistant_message(ANSWER)]`` and makes one request through ``harness.call``:
    the reply holds the text and no tool calls, the endpoint answered one request with 200,
    streamed as asked, and the script is used up.

    Troubleshooting: point the client at the server (``server.base_url`` for OpenAI
    clients, ``server.url`` for Anthropic ones) and read the text the client parsed. If the
    endpoint saw a request streamed when it should not be (or the other way round), pass
    ``stream`` to the client's own streaming switch.
    """
    check = "check_wire_text_turn"
    fix = (
        "Point the client at the server's URL, send one request (streamed only when asked) "
        "and return the text the client parsed."
    )
    model = ScriptedModel([[assistant_message(ANSWER)]])
    async with _serving(model) as server:
        reply = await _returned(check, _call(harness, server, stream=stream), fix)
    _check_exchanges(check, server, [(200, stream)], fix)
    if reply.text != ANSWER:
        _fail(check, f"the reply's text {ANSWER!r}", f"{reply.text!r}", fix)
    if reply.tool_calls:
        _fail(check, "no tool calls", f"{list(reply.tool_calls)}", fix)
    _check_complete(check, server, fix)


async def check_wire_tool_call_turn(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that a scripted ``function_call`` arrives as the client's tool call.

    Scripts ``function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")``: the
    reply holds one tool call with that name, call id and arguments (parsed or not).

    Troubleshooting: read the tool calls from the client's response object (Responses
    ``function_call`` items, Chat ``tool_calls``, Messages ``tool_use`` blocks); for a
    stream, from the client's final, accumulated response rather than the first delta.
    """
    check = "check_wire_tool_call_turn"
    fix = (
        "Read the tool calls (name, call id, arguments) from the client's complete "
        "response; for a stream, from its accumulated final response."
    )
    model = ScriptedModel([[_weather_call({"city": "Tokyo"})]])
    async with _serving(model) as server:
        reply = await _returned(check, _call(harness, server, stream=stream), fix)
    _check_exchanges(check, server, [(200, stream)], fix)
    calls = [(c.name, c.call_id, _parsed(c.arguments)) for c in reply.tool_calls]
    expected = [(TOOL, "call_1", {"city": "Tokyo"})]
    if calls != expected:
        _fail(check, f"the tool calls {expected}", f"{calls}", fix)
    _check_complete(check, server, fix)


async def check_wire_exact_tool_arguments(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that a tool call's argument string arrives exactly as scripted.

    Scripts the arguments as the string ``'{"city": "Tokyo"}'`` (with a space, unlike
    compact JSON): the reply's tool call keeps that string, not a re-encoding.

    Troubleshooting: return the client's argument string as it is (``ReplyToolCall``
    takes a str) instead of parsing and dumping it again. A wire format that carries
    arguments as a JSON object (Anthropic Messages) cannot keep them: declare
    ``keeps_exact_tool_arguments = False``.
    """
    check = "check_wire_exact_tool_arguments"
    fix = "Return the tool call's argument string as the client received it, not re-encoded."
    model = ScriptedModel([[_weather_call(EXACT_ARGUMENTS)]])
    async with _serving(model) as server:
        reply = await _returned(check, _call(harness, server, stream=stream), fix)
    arguments = [call.arguments for call in reply.tool_calls]
    if arguments != [EXACT_ARGUMENTS]:
        _fail(check, f"the arguments [{EXACT_ARGUMENTS!r}]", f"{arguments}", fix)
    _check_complete(check, server, fix)


async def check_wire_usage(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that scripted token usage arrives in the client's reply.

    Scripts ``ModelResponse(..., Usage(input_tokens=10, output_tokens=4))``: the reply
    reports 10 input and 4 output tokens.

    Troubleshooting: read the usage from the client's response (for a stream, its final
    response or last chunk). OpenAI Chat Completions streams carry usage only when the
    request asks for it: send ``stream_options={"include_usage": True}``.
    """
    check = "check_wire_usage"
    fix = (
        "Read the token usage from the client's final response; for a Chat Completions "
        "stream, ask for it with stream_options={'include_usage': True}."
    )
    model = ScriptedModel(
        [ModelResponse([assistant_message(ANSWER)], Usage(input_tokens=10, output_tokens=4))]
    )
    async with _serving(model) as server:
        reply = await _returned(check, _call(harness, server, stream=stream), fix)
    if (reply.input_tokens, reply.output_tokens) != (10, 4):
        _fail(
            check,
            "10 input and 4 output tokens",
            f"{reply.input_tokens} input and {reply.output_tokens} output tokens",
            fix,
        )


# -- the tool loop and the recorded request --------------------------------------------------


async def check_wire_tool_loop(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that a tool loop over the wire runs the tool and returns the answer.

    Scripts a ``get_weather`` call and then the answer: the loop returns the answer after
    two requests, and the second request, read with the cross-framework read helpers,
    holds the tool's output for ``call_1`` (``tool_outputs``), the prompt
    (``last_user_text``) and the tool (``tool_names``).

    Troubleshooting: send the assistant's tool call back with the tool's result, keyed by
    the call id the model sent (``function_call_output`` in Responses, a ``tool`` message
    in Chat, a ``tool_result`` block in Messages), and keep the prompt and the tools in
    every request.
    """
    check = "check_wire_tool_loop"
    fix = (
        "Send the tool call and its result (keyed by the model's call id) back in the next "
        "request, with the prompt and the tools, until the model answers."
    )
    model = ScriptedModel([[_weather_call({"city": "Tokyo"})], [assistant_message(ANSWER)]])
    async with _serving(model) as server:
        answer = await _returned(check, _loop(harness, server, stream=stream), fix)
    _check_exchanges(check, server, [(200, stream), (200, stream)], fix)
    if answer != ANSWER:
        _fail(check, f"the answer {ANSWER!r}", f"{answer!r}", fix)
    second = _request(model, 1)
    read = (second.tool_outputs, second.last_user_text, second.tool_names)
    expected = ({"call_1": "Tokyo: sunny"}, PROMPT, (TOOL,))
    if read != expected:
        _fail(
            check,
            f"the second request to read as (tool_outputs, last_user_text, tool_names) {expected}",
            f"{read}",
            fix,
        )
    _check_complete(check, server, fix)


async def check_wire_recorded_request(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that the recorded request reads back the prompt and the tool.

    After one call, the model's recorded ``ModelRequest`` gives the prompt from
    ``last_user_text`` and ``("get_weather",)`` from ``tool_names``, and the endpoint's
    exchange names the wire format it served.

    Troubleshooting: send the prompt as a user message and the tool in the request's
    ``tools`` field in the provider's shape; a tool the endpoint cannot name (no ``name``
    or ``function.name``) reads as nothing.
    """
    check = "check_wire_recorded_request"
    fix = (
        "Send the prompt as a user message and the tool in the request's tools, as the API has it."
    )
    model = ScriptedModel([[assistant_message(ANSWER)]])
    async with _serving(model) as server:
        await _returned(check, _call(harness, server, stream=stream), fix)
    _check_exchanges(check, server, [(200, stream)], fix)
    request = _request(model, 0)
    read = (request.last_user_text, request.tool_names)
    if read != (PROMPT, (TOOL,)):
        _fail(
            check,
            f"(last_user_text, tool_names) {(PROMPT, (TOOL,))}",
            f"{read}",
            fix,
        )
    wire_format = server.requests[0].wire_format
    if wire_format is None:
        _fail(check, "the exchange to name its wire format", "None", fix)


# -- streams -----------------------------------------------------------------------------------


async def check_wire_automatic_stream(harness: WireHarness) -> None:
    """Check that a plain step, streamed, arrives as text deltas that add up to the answer.

    Scripts ``[assistant_message(ANSWER)]`` for a streamed request: the client delivers at
    least one text delta, the deltas join to the answer, and the reply's text is the answer.
    Empty deltas are ignored (a Chat Completions stream opens with one).

    Troubleshooting: iterate the client's stream and collect each text delta event
    (``response.output_text.delta``, ``choices[0].delta.content``, ``text_delta``) into
    ``Reply.text_deltas``, and the final text from the accumulated response.
    """
    check = "check_wire_automatic_stream"
    fix = (
        "Collect each text delta the client's stream delivers into Reply.text_deltas and "
        "the final text from its accumulated response."
    )
    model = ScriptedModel([[assistant_message(ANSWER)]])
    async with _serving(model) as server:
        reply = await _returned(check, _call(harness, server, stream=True), fix)
    _check_exchanges(check, server, [(200, True)], fix)
    deltas = _deltas(reply)
    if not deltas or "".join(deltas) != ANSWER or reply.text != ANSWER:
        _fail(
            check,
            f"text deltas joining to {ANSWER!r}, and that text",
            f"deltas {deltas} and the text {reply.text!r}",
            fix,
        )


async def check_wire_exact_stream(harness: WireHarness) -> None:
    """Check that scripted stream events arrive as the client's deltas, one to one.

    Scripts ``model_stream`` with the deltas ``"It is "`` and ``"sunny."``: the client
    delivers exactly those two deltas, in order (empty ones aside), and the text
    ``"It is sunny."``.

    Troubleshooting: collect the deltas as the client delivers them, without merging or
    splitting them, and do not add the final message's text again.
    """
    check = "check_wire_exact_stream"
    fix = (
        "Record each text delta the client delivers as it comes, in order, and do not add "
        "the final text again."
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
    async with _serving(model) as server:
        reply = await _returned(check, _call(harness, server, stream=True), fix)
    deltas = _deltas(reply)
    if deltas != ["It is ", "sunny."] or reply.text != "It is sunny.":
        _fail(
            check,
            "the deltas ['It is ', 'sunny.'] and the text 'It is sunny.'",
            f"deltas {deltas} and the text {reply.text!r}",
            fix,
        )
    _check_complete(check, server, fix)


# -- errors, retries and violations --------------------------------------------------------------


async def check_wire_http_error_arrives(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that a scripted HTTP 400 fails the call with that status, without a retry.

    Scripts ``model_error(ScriptedHTTPError(400, ...))``: the call raises an error whose
    status (read by ``harness.http_status``) is 400, and the endpoint saw one request: a
    client does not retry a 400.

    Troubleshooting: let the client's error propagate out of ``harness.call`` and read its
    status in ``http_status`` (for example ``error.status_code``). A client that retries a
    400 wastes the user's quota on a request that cannot succeed: retry only 408, 409, 429
    and 5xx, and never a response with ``x-should-retry: false``.
    """
    check = "check_wire_http_error_arrives"
    fix = (
        "Let the client's HTTP error propagate, read its status in http_status(), and do "
        "not retry a 400."
    )
    error = ScriptedHTTPError(400, "The prompt is too long.", error_type="invalid_request_error")
    model = ScriptedModel([model_error(error)])
    async with _serving(model) as server:
        raised = await _raised(_call(harness, server, stream=stream))
    _check_exchanges(check, server, [(400, stream)], fix)
    if raised is None:
        _fail(check, "the call to fail with HTTP 400", "it returned", fix)
    status = _status(harness, raised)
    if status != 400:
        _fail(check, "the error's status 400", f"{status} from {_described(raised)}", fix)
    _check_complete(check, server, fix)


async def check_wire_retry_after_is_followed(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that a 429 with ``retry-after`` is retried and the retry's answer arrives.

    Scripts ``ScriptedHTTPError(429, retry_after=0.01)`` and then the answer: the call
    returns the answer, after two requests (429, then 200).

    Troubleshooting: keep the client's retries on in the harness (at least one retry), and
    honor the ``retry-after`` / ``retry-after-ms`` headers. A client without retries
    declares ``has_retries = False``.
    """
    check = "check_wire_retry_after_is_followed"
    fix = (
        "Keep the client's retries on (at least one) and retry a 429 after its retry-after "
        "wait; a client without retries sets has_retries = False."
    )
    error = ScriptedHTTPError(429, "Slow down.", retry_after=0.01)
    model = ScriptedModel([model_error(error), [assistant_message(ANSWER)]])
    async with _serving(model) as server:
        reply = await _returned(check, _call(harness, server, stream=stream), fix)
    _check_exchanges(check, server, [(429, stream), (200, stream)], fix)
    if reply.text != ANSWER:
        _fail(check, f"the reply's text {ANSWER!r}", f"{reply.text!r}", fix)
    _check_complete(check, server, fix)


async def check_wire_extra_call_is_kept(harness: WireHarness, *, stream: bool = False) -> None:
    """Check that a request past the script is refused once and kept for ``assert_complete()``.

    Makes one request to a model with an empty script. The endpoint answers 400 with
    ``x-should-retry: false``; the client may raise or swallow the error, but must not
    retry it, and ``server.assert_complete()`` raises ``UnexpectedModelCallError``.

    Troubleshooting: honor ``x-should-retry: false`` (a retry cannot succeed and hides the
    first failure). If the client swallows the error, the test still fails at
    ``assert_complete()``, which is the point: do not catch ``AssertionError`` around it.
    """
    check = "check_wire_extra_call_is_kept"
    fix = (
        "Do not retry a response marked x-should-retry: false; the refused request must "
        "reach assert_complete() as UnexpectedModelCallError."
    )
    model = ScriptedModel([])
    async with _serving(model) as server:
        await _raised(_call(harness, server, stream=stream))
    _check_exchanges(check, server, [(400, stream)], fix)
    _kept(check, server, UnexpectedModelCallError, fix)


async def check_wire_unknown_output_item_is_refused(
    harness: WireHarness, *, stream: bool = False
) -> None:
    """Check that an item the wire format cannot carry is refused with the structured error.

    Scripts an answer followed by ``{"type": "telepathy"}``. The endpoint refuses the
    response once (the client may raise or swallow the failure, but must not retry it) and
    ``server.assert_complete()`` raises ``WireRequestError`` with
    ``reason="unsupported_output"`` and ``request_index=0``.

    Only Chat Completions and Anthropic Messages have items they cannot carry: the
    Responses API carries every item, so a Responses client declares
    ``refuses_unknown_items = False``.

    Troubleshooting: do not retry a response marked ``x-should-retry: false``, nor a
    stream that failed with the endpoint's error event; one request reaches the endpoint.
    """
    check = "check_wire_unknown_output_item_is_refused"
    fix = (
        "Do not retry the refused response; the endpoint keeps the WireRequestError "
        "(reason unsupported_output) for assert_complete()."
    )
    model = ScriptedModel([[assistant_message(ANSWER), {"type": "telepathy"}]])
    async with _serving(model) as server:
        await _raised(_call(harness, server, stream=stream))
    count = len(server.requests)
    if count != 1:
        _fail(check, "one request (the refusal is not retried)", f"{count} requests", fix)
    error = _kept(check, server, WireRequestError, fix)
    fields = (error.reason, error.request_index)
    if fields != ("unsupported_output", 0):
        _fail(
            check,
            "reason='unsupported_output', request_index=0",
            "reason={!r}, request_index={}".format(*fields),
            fix,
        )
