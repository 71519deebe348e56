"""``ScriptedModel``: a model double that serves scripted steps in call order."""

from __future__ import annotations

import dataclasses
import inspect
import math
import threading
from collections import deque
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
)
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, cast

from . import _describe
from ._closing import close_source, in_flight
from ._completion import CompletionContext
from ._deltas import check_text_delta_size, text_deltas
from ._records import detach_on_read, stored_value
from ._sharing import snapshot_sharing
from ._signals import is_aborted
from ._snapshot import snapshot
from .errors import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    InvalidScriptedModelStepReason,
    ReplayRequestDriftError,
    ScriptedModelRequestAbortedError,
    UnconsumedModelStepsError,
    UnexpectedModelCallError,
)
from .items import (
    ModelRequest,
    ModelResponse,
    ModelRetryAdvice,
    OutputTextDeltaEvent,
    RetryAdviceRequest,
    StreamEvent,
    Usage,
)

if TYPE_CHECKING:
    from dataclasses import dataclass as _dataclass
else:
    from .items import _dataclass

_ViolationT = TypeVar(
    "_ViolationT",
    bound=UnexpectedModelCallError
    | InvalidScriptedModelStepError
    | InvalidScriptedModelOutputError,
)
_VIOLATIONS = (
    UnexpectedModelCallError,
    InvalidScriptedModelStepError,
    InvalidScriptedModelOutputError,
)

__all__ = [
    "ErrorStep",
    "ModelResponder",
    "RecordedModelCall",
    "ResponderStep",
    "ResponseStep",
    "RetryAdviceCallback",
    "ScriptedModel",
    "ScriptedModelInput",
    "ScriptedModelStep",
    "ScriptedModelStream",
    "StreamResponder",
    "StreamResponderStep",
    "StreamStep",
    "model_error",
    "model_responder",
    "model_response",
    "model_stream",
    "model_stream_responder",
    "optional_step",
]


@_dataclass(frozen=True)  # made without compiling source, as the dataclasses of ``items``
class RecordedModelCall:
    """One call the code under test made to the model: a frozen dataclass.

    The model builds the record once, when the call is made, and returns that same record on
    every read. ``request`` is detached on each read: every access returns a new copy, so
    changing it never changes the record.
    """

    index: int
    streamed: bool
    request: ModelRequest

    def __init__(self, index: int, streamed: bool, request: ModelRequest) -> None:
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "streamed", streamed)
        object.__setattr__(self, "request", request)


# A full response may also be an envelope mapping: {"output": [...], "usage": Usage(...), ...}.
ModelResponder = Callable[
    [RecordedModelCall],
    list[Any]
    | ModelResponse
    | Mapping[str, Any]
    | Awaitable[list[Any] | ModelResponse | Mapping[str, Any]],
]
StreamResponder = Callable[[RecordedModelCall], Any]
RetryAdviceCallback = Callable[[RetryAdviceRequest], ModelRetryAdvice | None]


class _StepOptions(TypedDict, total=False):
    # A total=False base (not NotRequired, absent on 3.10 and hidden by postponed
    # annotations) keeps "optional" an optional key at run time too.
    optional: bool


class ResponseStep(_StepOptions):
    type: Literal["response"]
    response: list[Any] | ModelResponse | Mapping[str, Any]


class ErrorStep(_StepOptions):
    type: Literal["error"]
    error: BaseException
    retry_advice: ModelRetryAdvice | RetryAdviceCallback | None


class ResponderStep(_StepOptions):
    type: Literal["responder"]
    respond: ModelResponder


class StreamStep(_StepOptions):
    type: Literal["stream"]
    events: Iterable[Any] | AsyncIterable[Any]


class StreamResponderStep(_StepOptions):
    type: Literal["stream_responder"]
    respond: StreamResponder


ScriptedModelStep = ResponseStep | ErrorStep | ResponderStep | StreamStep | StreamResponderStep

# What a step or an envelope mapping is read as (one alias, so each cast is one expression).
_Fields = Mapping[str, Any]
ScriptedModelInput = list[Any] | ModelResponse | ScriptedModelStep | Mapping[str, Any]


def model_response(response: list[Any] | ModelResponse | Mapping[str, Any]) -> ResponseStep:
    """Script a fixed response: output items, a full ``ModelResponse`` or a mapping of its fields.

    The mapping form is an envelope with the ``ModelResponse`` fields as keys (``output`` and
    ``usage`` required).
    """
    return {"type": "response", "response": response}


def model_error(
    error: BaseException,
    retry_advice: ModelRetryAdvice | RetryAdviceCallback | None = None,
) -> ErrorStep:
    """Script a failed call that raises ``error``, with optional retry advice for the runner."""
    return {"type": "error", "error": error, "retry_advice": retry_advice}


def model_responder(respond: ModelResponder) -> ResponderStep:
    """Script a response computed from the recorded call; ``respond`` may be sync or async."""
    return {"type": "responder", "respond": respond}


def model_stream(events: Iterable[Any] | AsyncIterable[Any]) -> StreamStep:
    """Script the exact stream events of a streamed call."""
    return {"type": "stream", "events": events}


def model_stream_responder(respond: StreamResponder) -> StreamResponderStep:
    """Script stream events computed from the recorded call."""
    return {"type": "stream_responder", "respond": respond}


def optional_step(step: ScriptedModelInput) -> ScriptedModelStep:
    """Mark a step as one the workflow may leave unused.

    The step is served in its turn like any other; ``assert_complete()`` just does not
    report it when no call took it. Use it for a call that may or may not happen, such as
    the model call that runs in parallel with an input guardrail that trips.
    """
    if isinstance(step, (list, ModelResponse)):
        return {"type": "response", "response": step, "optional": True}
    if not isinstance(step, Mapping):
        raise TypeError(
            "optional_step() takes a step: a list of output items, a ModelResponse or a step "
            f"built by model_response(), model_error(), ...; got {type(step).__name__}."
        )
    if "type" not in step:
        # A response envelope mapping, which _normalize validates like any other input.
        return {"type": "response", "response": cast(Any, step), "optional": True}
    return cast(ScriptedModelStep, {**step, "optional": True})


StepKind = Literal["response", "error", "responder", "stream", "stream_responder"]
_STEP_KINDS: frozenset[str] = frozenset(
    {"response", "error", "responder", "stream", "stream_responder"}
)
_STREAM_KINDS: frozenset[str] = frozenset({"stream", "stream_responder"})


class _Step:
    """A validated step, with its data already detached from the caller's objects."""

    __slots__ = ("advice", "kind", "optional", "payload", "position")

    def __init__(self, kind: StepKind, payload: Any, advice: Any = None) -> None:
        self.kind: StepKind = kind
        self.payload = payload  # response, error, responder or events, by kind
        self.advice = advice
        self.optional = False
        self.position = 0  # zero-based place in the whole script, set when it is added

    def describe(self) -> dict[str, Any]:
        """Return this step as ``UnconsumedModelStepsError`` lists it."""
        payload = self.payload
        if self.kind == "response":
            output: list[Any] = payload if isinstance(payload, list) else payload.output  # pyright: ignore[reportUnknownVariableType]
            summary = _describe.output(output)
        elif self.kind == "error":
            summary = _describe.value(payload)
        elif self.kind in ("responder", "stream_responder"):
            summary = getattr(payload, "__qualname__", None) or type(payload).__name__
        else:
            summary = "scripted events"
        if self.optional:
            summary += " (optional)"
        return {"step_index": self.position, "type": self.kind, "summary": summary}


class _AdviceRecord:
    # The error itself is the key of the table that holds the record.
    __slots__ = ("advice", "request", "streamed")

    def __init__(self, request: ModelRequest, streamed: bool, advice: Any):
        self.request = request
        self.streamed = streamed
        self.advice = advice


def _detach_request(request: ModelRequest) -> ModelRequest:
    # ModelRequest is a class instance, which a plain snapshot keeps by identity: copy its
    # fields instead (the signal, tools and other runtime objects keep their identity).
    return ModelRequest(
        input=snapshot(request.input, "request.input"),
        system_instructions=request.system_instructions,
        model_settings=snapshot(request.model_settings, "request.model_settings"),
        tools=snapshot(request.tools, "request.tools"),
        handoffs=snapshot(request.handoffs, "request.handoffs"),
        output_type=request.output_type,
        tracing=request.tracing,
        signal=request.signal,
        previous_response_id=request.previous_response_id,
        conversation_id=request.conversation_id,
        prompt=snapshot(request.prompt, "request.prompt"),
        extra=snapshot(request.extra, "request.extra"),
    )


def _check_request(request: object) -> None:
    """Refuse a request the double cannot serve, before it is recorded or takes a step."""
    if not isinstance(request, ModelRequest):
        raise TypeError(
            f"ScriptedModel expects a ModelRequest, got {type(request).__name__}; "
            "use an adapter from agents_testing.adapters to plug it into a framework."
        )
    # Checked on every call: the plain types adapters build pass at once, while anything else
    # goes through the checks below, which name the field at fault.
    if _has_plain_fields(request):
        return
    checks: list[tuple[str, object, bool]] = [
        ("input must be a str or a list of items", request.input, _is_str_or_list(request.input)),
        (
            "model_settings must be a mapping",
            request.model_settings,
            _is_mapping(request.model_settings),
        ),
        ("tools must be a sequence", request.tools, _is_sequence(request.tools)),
        ("handoffs must be a sequence", request.handoffs, _is_sequence(request.handoffs)),
        ("extra must be a mapping", request.extra, _is_mapping(request.extra)),
    ]
    for name in ("system_instructions", "previous_response_id", "conversation_id"):
        value: object = getattr(request, name)
        checks.append(
            (f"{name} must be a str or None", value, value is None or isinstance(value, str))
        )
    for problem, value, valid in checks:
        if not valid:
            raise TypeError(
                f"ScriptedModel got a ModelRequest whose {problem}, got {type(value).__name__}; "
                "build the request with the field types ModelRequest declares."
            )


def _has_plain_fields(request: ModelRequest) -> bool:
    """Return whether every field ``_check_request`` checks has a plain type it accepts."""
    return (
        type(request.input) in _STR_OR_LIST
        and type(request.model_settings) is dict
        and type(request.tools) in _LIST_OR_TUPLE
        and type(request.handoffs) in _LIST_OR_TUPLE
        and type(request.extra) is dict
        and type(request.system_instructions) in _STR_OR_NONE
        and type(request.previous_response_id) in _STR_OR_NONE
        and type(request.conversation_id) in _STR_OR_NONE
    )


_STR_OR_LIST: frozenset[type] = frozenset({str, list})
_STR_OR_NONE: frozenset[type] = frozenset({str, type(None)})
_LIST_OR_TUPLE: frozenset[type] = frozenset({list, tuple})


def _is_str_or_list(value: object) -> bool:
    return isinstance(value, (str, list))


def _is_mapping(value: object) -> bool:
    return isinstance(value, Mapping)


def _is_sequence(value: object) -> bool:
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping))


def _recorded_request(request: ModelRequest, previous: RecordedModelCall | None) -> ModelRequest:
    """Snapshot ``request`` for the record, sharing what it has in common with ``previous``."""
    if previous is None:
        return _detach_request(request)
    # A run sends the conversation so far on every call: sharing the items the previous
    # record already holds keeps recording memory linear in the length of the run.
    before: ModelRequest = stored_value(previous, "request")
    try:
        return _shared_request(request, before)
    except RecursionError:
        # Too deep to share: the plain snapshot copies it, or names the path that is too deep.
        return _detach_request(request)


def _shared_request(request: ModelRequest, before: ModelRequest) -> ModelRequest:
    return ModelRequest(
        input=snapshot_sharing(request.input, before.input),
        system_instructions=request.system_instructions,
        model_settings=snapshot_sharing(request.model_settings, before.model_settings),
        tools=snapshot_sharing(request.tools, before.tools),
        handoffs=snapshot_sharing(request.handoffs, before.handoffs),
        output_type=request.output_type,
        tracing=request.tracing,
        signal=request.signal,
        previous_response_id=request.previous_response_id,
        conversation_id=request.conversation_id,
        prompt=snapshot(request.prompt),
        extra=snapshot(request.extra),
    )


detach_on_read(RecordedModelCall, ("request",), lambda _, request: _detach_request(request))


def _check_abort(request: ModelRequest, call_index: int | None) -> None:
    if is_aborted(request.signal):
        raise ScriptedModelRequestAbortedError(call_index)


def _is_stream_source(value: Any) -> bool:
    if isinstance(value, (str, bytes, bytearray, Mapping, type)):
        return False
    # Look on the type, as iter() does: an instance attribute or a None slot does not count.
    kind: Any = type(value)  # pyright: ignore[reportUnknownVariableType]
    return callable(getattr(kind, "__aiter__", None)) or callable(getattr(kind, "__iter__", None))


def _is_valid_response(value: Any) -> bool:
    if isinstance(value, list):
        return True
    if isinstance(value, ModelResponse):
        return (
            isinstance(value.output, list)
            and isinstance(value.usage, Usage)
            and _are_ids(value.response_id, value.request_id)
        )
    if isinstance(value, Mapping):
        envelope = cast(_Fields, value)
        return (
            isinstance(envelope.get("output"), list)
            and isinstance(envelope.get("usage"), Usage)
            and _are_ids(envelope.get("response_id"), envelope.get("request_id"))
        )
    return False


def _are_ids(response_id: object, request_id: object) -> bool:
    # Frameworks and the wire formats take a response's ids as text.
    return (response_id is None or isinstance(response_id, str)) and (
        request_id is None or isinstance(request_id, str)
    )


def _as_model_response(value: ModelResponse | Mapping[str, Any]) -> ModelResponse:
    if isinstance(value, ModelResponse):
        return value
    return ModelResponse(
        output=value["output"],
        usage=value["usage"],
        response_id=value.get("response_id"),
        request_id=value.get("request_id"),
        provider_data=value.get("provider_data"),
        raw_usage=value.get("raw_usage"),
    )


def _copy_usage(usage: Usage) -> Usage:
    return Usage(
        requests=usage.requests,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        input_tokens_details=snapshot(usage.input_tokens_details),
        output_tokens_details=snapshot(usage.output_tokens_details),
        request_usage_entries=snapshot(usage.request_usage_entries),
    )


def _stored_response(value: list[Any] | ModelResponse | Mapping[str, Any]) -> Any:
    if isinstance(value, list):
        return snapshot(value)
    response = _as_model_response(value)
    return ModelResponse(
        output=snapshot(response.output),
        usage=_copy_usage(response.usage),
        response_id=response.response_id,
        request_id=response.request_id,
        provider_data=snapshot(response.provider_data),
        raw_usage=snapshot(response.raw_usage),
    )


def _stored_envelope(value: Any, index: int) -> Any:
    try:
        return _stored_response(value)
    except (AttributeError, TypeError, ValueError):
        # A Usage edited after it was built (for example a malformed usage entry) cannot be
        # copied: it is as invalid as a response without one.
        raise _invalid("invalid_response", index) from None


def _is_async_callable(value: Any) -> bool:
    return inspect.iscoroutinefunction(value) or inspect.iscoroutinefunction(value.__call__)


def _stored_advice(advice: Any) -> Any:
    if isinstance(advice, ModelRetryAdvice):
        return dataclasses.replace(advice, provider_data=snapshot(advice.provider_data))
    return advice


def _invalid(
    reason: InvalidScriptedModelStepReason, input_index: int, step_type: str | None = None
) -> InvalidScriptedModelStepError:
    return InvalidScriptedModelStepError(reason, input_index=input_index, step_type=step_type)


# Values that can never be an output item, on any framework: items are mappings or a
# framework's own output objects.
_NOT_ITEMS = (str, bytes, bytearray, int, float, bool, list, tuple, set, frozenset, type(None))


def _check_output(output: Any, index: int) -> None:
    """Refuse output items that no adapter can convert, naming the first one."""
    if not isinstance(output, list):
        return
    items: list[Any] = output  # pyright: ignore[reportUnknownVariableType]
    for position, item in enumerate(items):
        if isinstance(item, _NOT_ITEMS):
            if isinstance(item, str):
                detail = (
                    f"it is the plain string {_describe.value(item, 40)}; script "
                    f"assistant_message({_describe.value(item, 40)}) for a text reply."
                )
            elif isinstance(item, (list, tuple)):
                kind = "list" if isinstance(item, list) else "tuple"
                detail = (
                    f"it is a {kind}; each step is one list of output items, "
                    "so put the items of one response in a single list."
                )
            else:
                detail = (
                    f"it is {_describe.value(item, 40)}; an output item is a mapping such as "
                    "assistant_message(...) or function_call(...), or a framework's own "
                    "output object."
                )
            raise InvalidScriptedModelStepError(
                "invalid_output_item", input_index=index, output_index=position, detail=detail
            )


def _looks_like_item(step: Mapping[str, Any]) -> bool:
    kind = step.get("type")
    if isinstance(kind, str):
        return (
            kind == "message"
            or kind.endswith(("_call", "_call_output"))
            or kind
            in (
                "reasoning",
                "compaction",
            )
        )
    return "role" in step or "content" in step


def _wrap_hint(step: Mapping[str, Any]) -> str:
    kind = step.get("type")
    what = f'a "{kind}" output item' if isinstance(kind, str) else "an output item"
    return (
        f"this is {what}, not a step. Each step is a list of output items: wrap this item "
        'in a list, e.g. ScriptedModel([[assistant_message("hi")]]).'
    )


def _normalize(value: Any, index: int) -> _Step:
    """Validate one constructor or ``enqueue`` input and detach it from the caller."""
    step = _normalized_step(value, index)
    if isinstance(value, Mapping):
        optional = cast(_Fields, value).get("optional", False)
        if not isinstance(optional, bool):
            raise InvalidScriptedModelStepError(
                "invalid_input",
                input_index=index,
                detail='"optional" must be True or False; use optional_step(step).',
            )
        step.optional = optional
    return step


def _normalized_step(value: Any, index: int) -> _Step:
    if isinstance(value, list):
        _check_output(value, index)
        return _Step("response", snapshot(value))  # pyright: ignore[reportUnknownArgumentType]
    if isinstance(value, ModelResponse):
        if not _is_valid_response(value):
            raise _invalid("invalid_response", index)
        _check_output(value.output, index)
        return _Step("response", _stored_envelope(value, index))
    if not isinstance(value, Mapping):
        detail = None
        if isinstance(value, str):
            detail = (
                f"a plain string is not a step; script [assistant_message("
                f"{_describe.value(value, 40)})] for a text reply."
            )
        elif isinstance(value, tuple):
            detail = "a step's output items go in a list, not a tuple."
        raise InvalidScriptedModelStepError("invalid_input", input_index=index, detail=detail)
    step = cast(_Fields, value)
    if "type" not in step:
        if "output" in step or "usage" in step:
            if not _is_valid_response(step):
                raise _invalid("invalid_response", index)
            _check_output(step["output"], index)
            return _Step("response", _stored_envelope(step, index))
        detail = _wrap_hint(step) if _looks_like_item(step) else None
        raise InvalidScriptedModelStepError("invalid_input", input_index=index, detail=detail)
    kind = step["type"]
    if not isinstance(kind, str) or kind not in _STEP_KINDS:
        raise InvalidScriptedModelStepError(
            "unknown_step_type",
            input_index=index,
            step_type=kind if isinstance(kind, str) else None,
            detail=_wrap_hint(step) if _looks_like_item(step) else None,
        )
    if kind == "response":
        if "response" not in step:
            raise _invalid("missing_response", index, kind)
        if not _is_valid_response(step["response"]):
            raise _invalid("invalid_response", index)
        response = step["response"]
        _check_output(
            response
            if isinstance(response, list)
            else response["output"]
            if isinstance(response, Mapping)
            else response.output,
            index,
        )
        return _Step("response", _stored_envelope(response, index))
    if kind == "error":
        if "error" not in step:
            raise _invalid("missing_error", index, kind)
        error = step["error"]
        if not isinstance(error, BaseException):
            raise _invalid("invalid_error", index, kind)
        advice = step.get("retry_advice")
        if not (
            advice is None
            or isinstance(advice, ModelRetryAdvice)
            or (callable(advice) and not _is_async_callable(advice))
        ):
            raise _invalid("invalid_retry_advice", index, kind)
        return _Step("error", error, _stored_advice(advice))
    if kind in ("responder", "stream_responder"):
        respond = step.get("respond")
        if not callable(respond):
            raise _invalid("missing_responder", index, kind)
        return _Step("responder" if kind == "responder" else "stream_responder", respond)
    events: Any = step.get("events")
    if not _is_stream_source(events):
        raise _invalid("invalid_stream", index, kind)
    if type(events) is list:
        events = snapshot(events)  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
    return _Step("stream", events)


def _json_data(value: Any) -> Any:
    """Copy JSON-compatible data, or raise ``ValueError`` if any part is not.

    A cycle recurses until ``RecursionError``, which the caller handles like data too deep
    to copy; a part reused in two places is just copied twice.
    """
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError
        return value
    if type(value) not in (dict, list):
        raise ValueError
    container: dict[Any, Any] | list[Any] = value
    if isinstance(container, list):
        return [_json_data(item) for item in container]
    result: dict[str, Any] = {}
    for key, item in container.items():
        if not isinstance(key, str):
            raise ValueError
        result[key] = _json_data(item)
    return result


def _preserved_raw_usage(raw_usage: Any) -> Any:
    if not isinstance(raw_usage, dict):
        return None
    try:
        return _json_data(raw_usage)
    except (ValueError, RecursionError):
        return None


def _usage_payload(usage: Usage) -> dict[str, Any]:
    entries = usage.request_usage_entries
    return {
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "input_tokens_details": usage.input_tokens_details or None,
        "output_tokens_details": usage.output_tokens_details or None,
        "request_usage_entries": None
        if entries is None
        else [
            {
                "input_tokens": entry.get("input_tokens"),
                "output_tokens": entry.get("output_tokens"),
                "total_tokens": entry.get("total_tokens"),
                "input_tokens_details": entry.get("input_tokens_details"),
                "output_tokens_details": entry.get("output_tokens_details"),
                "endpoint": entry.get("endpoint"),
            }
            for entry in entries
        ],
    }


class ScriptedModel(CompletionContext):
    """A model double that answers each call with the next scripted step.

    Steps are served in call order, whether the call is streamed or not. Each call is
    recorded (with a detached copy of its request) before its step runs, so ``calls`` shows
    what the code under test sent even when the call failed.

    Args:
        steps: the script. Each input is a list of output items (the output shorthand), a
            ``ModelResponse``, a step from ``model_response``, ``model_error``,
            ``model_responder``, ``model_stream`` or ``model_stream_responder``, or the
            equivalent mapping. A malformed input raises ``InvalidScriptedModelStepError``.
        text_delta_size: when a streamed call takes a plain step (``response`` or
            ``responder``), cut each text part into ``output_text_delta`` events of at most
            this many characters. ``None`` (the default) streams each text part as one
            delta, as the reference does.
    """

    def __init__(
        self, steps: Iterable[ScriptedModelInput] = (), *, text_delta_size: int | None = None
    ) -> None:
        self._text_delta_size = check_text_delta_size(text_delta_size)
        script: Any = steps
        if isinstance(script, (Mapping, ModelResponse)) or not isinstance(script, Iterable):
            raise TypeError(
                "ScriptedModel steps must be an iterable of steps, "
                f"got {type(steps).__name__}; wrap a single step in a list."
            )
        self._steps: deque[_Step] = deque(
            _normalize(value, index) for index, value in enumerate(steps)
        )
        for position, step in enumerate(self._steps):
            step.position = position
        self._scripted = len(self._steps)  # steps ever added: the next step's position
        self._calls: list[RecordedModelCall] = []
        self._advice: dict[int, list[_AdviceRecord]] = {}
        # A replay's request drift (agents_testing.recording) is kept here too.
        self._violations: list[
            UnexpectedModelCallError
            | InvalidScriptedModelStepError
            | InvalidScriptedModelOutputError
            | ReplayRequestDriftError
        ] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<ScriptedModel calls={len(self._calls)} remaining_steps={len(self._steps)}>"

    @property
    def calls(self) -> tuple[RecordedModelCall, ...]:
        """Return every recorded call in call order; each ``request`` read is a new copy."""
        return tuple(self._calls)

    @property
    def first_call(self) -> RecordedModelCall | None:
        """Return the first recorded call, or ``None``."""
        return self._read_call(0) if self._calls else None

    @property
    def last_call(self) -> RecordedModelCall | None:
        """Return the most recent recorded call, or ``None``."""
        return self._read_call(-1) if self._calls else None

    @property
    def text_delta_size(self) -> int | None:
        """Return the most characters per automatic text delta (``None``: one per part)."""
        return self._text_delta_size

    @property
    def remaining_steps(self) -> int:
        """Return how many scripted steps no call has taken yet."""
        return len(self._steps)

    def enqueue(self, *inputs: ScriptedModelInput) -> None:
        """Append steps to the script; if any input is malformed, append none of them."""
        steps = [_normalize(value, index) for index, value in enumerate(inputs)]
        with self._lock:
            for step in steps:
                step.position = self._scripted
                self._scripted += 1
            self._steps.extend(steps)

    def assert_complete(self) -> None:
        """Fail if the script was broken during the run or steps were left unused.

        A script violation (an unexpected call, or a step that did not fit its call) is
        raised again here even if framework code caught the original error.
        """
        if self._violations:
            first = self._violations[0]
            raise first._fresh() from first  # pyright: ignore[reportPrivateUsage]
        steps = list(self._steps)
        if any(not step.optional for step in steps):
            raise UnconsumedModelStepsError(len(steps), [step.describe() for step in steps])

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        """Serve a non-streaming call with the next step."""
        return await self._get_response(request)

    async def _get_response(self, request: ModelRequest, *, owned: bool = False) -> ModelResponse:
        """Serve a non-streaming call; ``owned`` as in ``_take``."""
        # Nothing is awaited before the step is taken, so overlapping calls get their steps in
        # the order they started.
        index, recorded, result, responded = self._begin_response(request, owned=owned)
        if responded and inspect.isawaitable(result):
            result = await result
        return self._end_response(request, index, recorded, result, responded=responded)

    async def _respond(
        self, request: ModelRequest, on_recorded: Callable[[ModelRequest], object]
    ) -> tuple[int, ModelResponse]:
        """Serve a non-streaming call as ``get_response`` does; return its index and response.

        ``on_recorded`` sees the recorded request as soon as the step is taken: adapters keep
        it to convert only what the next call adds.
        """
        index, recorded, result, responded = self._begin_response(request)
        on_recorded(recorded)
        if responded and inspect.isawaitable(result):
            result = await result
        return index, self._end_response(request, index, recorded, result, responded=responded)

    def _begin_response(
        self, request: ModelRequest, *, owned: bool = False
    ) -> tuple[int, ModelRequest, Any, bool]:
        """Take a non-streamed call's step and run it up to its first await.

        Returns the call index, the recorded request, the step's result (an awaitable when a
        responder returned one) and whether a responder produced it. Sync adapters use it
        with ``_end_response`` to serve a call without an event loop when nothing needs one.
        """
        index, recorded, step = self._take(request, streamed=False, owned=owned)
        if step.kind in _STREAM_KINDS:
            raise self.record_violation(
                InvalidScriptedModelStepError(
                    "incompatible_call",
                    call_index=index,
                    step_type=step.kind,
                    call_summary=_describe.request(recorded),
                )
            )
        if step.kind == "error":
            self._remember_error(step, request, streamed=False)
            raise step.payload
        if step.kind == "responder":
            return index, recorded, step.payload(self._read_call(index)), True
        return index, recorded, step.payload, False

    def _end_response(
        self,
        request: ModelRequest,
        index: int,
        recorded: ModelRequest,
        result: Any,
        *,
        responded: bool,
    ) -> ModelResponse:
        """Finish a call begun by ``_begin_response`` once its result is no longer awaitable."""
        if responded:
            _check_abort(request, index)
        response = self._normalize_response(result, index, recorded, require_response_id=False)
        _check_abort(recorded, index)
        return response

    def stream_response(self, request: ModelRequest) -> ScriptedModelStream:
        """Serve a streaming call with the next step.

        The call is recorded and its step taken now; the returned iterator runs the step
        when it is first read. ``aclose()`` on the iterator closes the scripted source.
        """
        return self._stream_response(request)

    def _stream_response(
        self, request: ModelRequest, *, owned: bool = False
    ) -> ScriptedModelStream:
        """Serve a streaming call; ``owned`` as in ``_take``."""
        index, recorded, step = self._take(request, streamed=True, owned=owned)
        source = step.payload if step.kind == "stream" else None
        return ScriptedModelStream(
            self._stream(request, index, recorded, step), index, step.kind, source
        )

    def get_retry_advice(self, request: RetryAdviceRequest) -> ModelRetryAdvice | None:
        """Return the advice scripted with the error the runner asks about, once per raise.

        When the same error was raised more than once, the record raised for the same request
        object is used first, then one raised for a request with the same input, settings,
        tools and handoffs, then the oldest one in the same mode.
        """
        _check_advice_request(request)
        with self._lock:
            records = self._advice.get(id(request.error))
            record = self._find_advice(records, request) if records else None
            if records is None or record is None:
                return None
            records.remove(record)
            if not records:
                del self._advice[id(request.error)]
        advice: Any = record.advice
        if callable(advice):
            advice = advice(request)
            if inspect.isawaitable(advice):
                if inspect.iscoroutine(advice):
                    advice.close()
                raise TypeError(
                    "ScriptedModel retry advice callbacks must be synchronous; "
                    "compute the advice without awaiting and return it"
                )
        return advice  # type: ignore[no-any-return]

    # -- internals -----------------------------------------------------------------------

    def _read_call(self, position: int) -> RecordedModelCall:
        return self._calls[position]

    def _take(
        self, request: ModelRequest, *, streamed: bool, owned: bool
    ) -> tuple[int, ModelRequest, _Step]:
        """Record the call and take its step: the part of a call that runs before any await.

        ``owned``: the caller built ``request`` and every container in it for this call alone
        and never changes them or hands them out afterwards (the wire endpoint builds its
        requests from the body ``json.loads`` just parsed). Nothing outside the record can
        reach them then, so the record keeps them as they are instead of copying them; reads
        still detach the request as for any record.
        """
        if not owned:  # an owned request was built by our own code, of the plain types
            _check_request(request)
        _check_abort(request, None)
        calls = self._calls
        # Another thread may append meanwhile: any earlier record is as good a base to share
        # with, since sharing only reuses parts that match exactly.
        recorded = request if owned else _recorded_request(request, calls[-1] if calls else None)
        # Frameworks drive sync paths from worker threads: the index and the step must be
        # handed out together, once. The copy above stays outside the lock.
        with self._lock:
            index = len(calls)
            calls.append(RecordedModelCall(index, streamed, recorded))
            step = self._steps.popleft() if self._steps else None
        if step is None:
            raise self.record_violation(
                UnexpectedModelCallError(index, streamed, _describe.request(recorded))
            )
        return index, recorded, step

    def record_violation(self, error: _ViolationT) -> _ViolationT:
        """Record a broken script so ``assert_complete()`` raises it again; return ``error``.

        For framework adapters, the bundled ones or one you write: when an adapter refuses a
        scripted item or stream event, the framework may catch, retry or wrap the error, and
        the test must still fail on it, so raise ``model.record_violation(error)``.
        """
        if not isinstance(error, _VIOLATIONS):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                "ScriptedModel.record_violation() error must be an UnexpectedModelCallError, "
                "InvalidScriptedModelStepError or InvalidScriptedModelOutputError, got "
                f"{type(error).__name__}."
            )
        self._violations.append(error)
        return error

    def _raised_by_error_step(self, error: BaseException, request: ModelRequest) -> bool:
        """Return whether an error step raised ``error`` for ``request``.

        The wire endpoint answers such an error as scripted; an exception a responder
        raised is a broken script instead.
        """
        with self._lock:
            records = self._advice.get(id(error), ())
            return any(record.request is request for record in records)

    def _remember_error(self, step: _Step, request: ModelRequest, *, streamed: bool) -> None:
        record = _AdviceRecord(request, streamed, step.advice)
        with self._lock:
            self._advice.setdefault(id(step.payload), []).append(record)

    @staticmethod
    def _find_advice(
        records: list[_AdviceRecord], query: RetryAdviceRequest
    ) -> _AdviceRecord | None:
        candidates = [record for record in records if record.streamed is query.stream]
        wanted = query.request
        if wanted is not None:
            for record in candidates:
                if record.request is wanted:
                    return record
            for record in candidates:
                if _same_inputs(record.request, wanted):
                    return record
        return candidates[0] if candidates else None

    def _normalize_response(
        self, result: Any, index: int, request: ModelRequest, *, require_response_id: bool
    ) -> ModelResponse:
        if not _is_valid_response(result):
            raise self.record_violation(
                InvalidScriptedModelStepError(
                    "invalid_response",
                    call_index=index,
                    call_summary=_describe.request(request),
                )
            )
        try:
            return self._served_response(result, index, request, require_response_id)
        except (AttributeError, KeyError, TypeError, ValueError, RecursionError) as error:
            # A Usage edited after construction, for example: the step was taken, so the
            # failure must reach assert_complete() even if the caller swallows it.
            raise self.record_violation(
                InvalidScriptedModelStepError(
                    "invalid_response",
                    call_index=index,
                    call_summary=_describe.request(request),
                )
            ) from error

    @staticmethod
    def _served_response(
        result: Any, index: int, request: ModelRequest, require_response_id: bool
    ) -> ModelResponse:
        if isinstance(result, list):
            output: list[Any] = result  # pyright: ignore[reportUnknownVariableType]
            return ModelResponse(
                output=output,
                usage=Usage._one_request(),  # pyright: ignore[reportPrivateUsage]
                response_id=f"scripted-response-{index + 1}",
            )
        response = _as_model_response(result)
        _copy_usage(response.usage)  # validates fields assigned after the Usage was built
        raw_usage = None
        if request.model_settings.get("preserve_raw_usage") is True:
            raw_usage = _preserved_raw_usage(response.raw_usage)
        response_id = response.response_id
        if require_response_id and response_id is None:
            response_id = f"scripted-response-{index + 1}"
        if response_id == response.response_id and response.raw_usage is raw_usage is None:
            return response
        return dataclasses.replace(response, response_id=response_id, raw_usage=raw_usage)

    async def _stream(
        self, request: ModelRequest, index: int, recorded: ModelRequest, step: _Step
    ) -> AsyncGenerator[StreamEvent, None]:
        try:
            _check_abort(request, index)
        except BaseException:
            if step.kind == "stream":
                await _close_unread_source(step.payload)
            raise
        if step.kind == "error":
            self._remember_error(step, request, streamed=True)
            raise step.payload
        if step.kind in _STREAM_KINDS:
            source = step.payload
            if step.kind == "stream_responder":
                source = source(self._read_call(index))
                if inspect.isawaitable(source):
                    source = await source
            try:
                _check_abort(request, index)
            except BaseException:
                if _is_stream_source(source):
                    await _close_unread_source(source)
                raise
            if not _is_stream_source(source):
                raise self.record_violation(
                    InvalidScriptedModelStepError(
                        "invalid_stream",
                        call_index=index,
                        step_type=step.kind,
                        call_summary=_describe.request(recorded),
                    )
                )
            events = _iterate(source)
            try:
                async for event in events:
                    _check_abort(request, index)
                    yield event
            except BaseException as error:
                # Close the source now, not when the garbage collector finds it: a consumer
                # that stops early expects the scripted source to be released. (Read to its
                # end, the source was closed by _iterate.)
                await close_source(events.aclose, in_flight(error))
                raise
            _check_abort(request, index)
            return
        result = step.payload
        if step.kind == "responder":
            result = result(self._read_call(index))
            if inspect.isawaitable(result):
                result = await result
        _check_abort(request, index)
        response = self._normalize_response(result, index, recorded, require_response_id=True)
        _check_abort(request, index)
        for event in _automatic_events(response, self._text_delta_size):
            _check_abort(request, index)
            yield event


class ScriptedModelStream(AsyncIterator[StreamEvent]):
    """The events of one streamed call, produced as they are read.

    ``call_index`` and ``step_type`` are known when the call is made: adapters use
    ``automatic`` to tell a response streamed for them (``response``/``responder`` steps)
    from exact scripted events (``stream``/``stream_responder`` steps).
    """

    __slots__ = ("_events", "_listed", "_source", "call_index", "step_type")

    def __init__(
        self,
        events: AsyncGenerator[StreamEvent, None],
        call_index: int,
        step_type: StepKind,
        source: Any = None,
    ) -> None:
        self._events = events
        # The scripted source until the first read; closing an unstarted generator skips its
        # finally block, so aclose() closes the source itself then.
        self._source = source
        # Events scripted as a list or tuple: reading them ahead runs no code of the test's.
        self._listed = type(source) in (list, tuple)
        self.call_index: int = call_index
        self.step_type: StepKind = step_type

    @property
    def automatic(self) -> bool:
        """Return whether the events are generated from a response rather than scripted."""
        return self.step_type in ("response", "responder")

    def __aiter__(self) -> ScriptedModelStream:
        return self

    async def __anext__(self) -> StreamEvent:
        self._source = None  # from now on the generator closes it
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """Stop the stream and close its scripted source."""
        source, self._source = self._source, None
        try:
            await self._events.aclose()
        finally:
            if source is not None:
                await _close_unread_source(source)

    def __repr__(self) -> str:
        return f"<ScriptedModelStream call_index={self.call_index} step_type={self.step_type!r}>"


def _check_advice_request(request: object) -> None:
    if not isinstance(request, RetryAdviceRequest):
        raise TypeError(
            "ScriptedModel.get_retry_advice() expects a RetryAdviceRequest, got "
            f"{type(request).__name__}; build one with RetryAdviceRequest(error=..., "
            "stream=..., attempt=...)."
        )
    fields: tuple[tuple[str, object, bool, str], ...] = (
        ("error", request.error, isinstance(request.error, BaseException), "an exception"),
        ("stream", request.stream, isinstance(request.stream, bool), "a bool"),
        (
            "request",
            request.request,
            request.request is None or isinstance(request.request, ModelRequest),
            "a ModelRequest or None",
        ),
    )
    for name, value, valid, wanted in fields:
        if not valid:
            raise TypeError(
                f"ScriptedModel.get_retry_advice() needs RetryAdviceRequest.{name} to be "
                f"{wanted}, got {type(value).__name__}."
            )


def _same_inputs(a: ModelRequest, b: ModelRequest) -> bool:
    same_input = a.input is b.input or (
        isinstance(a.input, str) and isinstance(b.input, str) and a.input == b.input
    )
    return (
        same_input
        and a.model_settings is b.model_settings
        and a.tools is b.tools
        and a.handoffs is b.handoffs
    )


async def _close_unread_source(source: Any) -> None:
    """Close a scripted source that was never iterated, if it is an iterator that can close."""
    kind: Any = type(source)  # pyright: ignore[reportUnknownVariableType]
    if callable(getattr(kind, "__anext__", None)):
        close: Callable[[], Awaitable[object]] | None = getattr(source, "aclose", None)
        if callable(close):
            await close()
    elif callable(getattr(kind, "__next__", None)):
        close_sync: Callable[[], object] | None = getattr(source, "close", None)
        if callable(close_sync):
            close_sync()


async def _iterate(source: Any) -> AsyncGenerator[Any, None]:
    """Iterate a sync or async source, awaiting awaitable items, and close it when done."""
    kind: Any = type(source)  # pyright: ignore[reportUnknownVariableType]
    failure: BaseException | None = None
    if callable(getattr(kind, "__aiter__", None)):
        iterator = source.__aiter__()
        try:
            while True:
                try:
                    event = await iterator.__anext__()
                except StopAsyncIteration:
                    return
                yield event
        except BaseException as error:
            failure = in_flight(error)
            raise
        finally:
            await close_source(getattr(iterator, "aclose", None), failure)
    sync_iterator = iter(source)
    try:
        while True:
            try:
                event = next(sync_iterator)
            except StopIteration:
                return
            if inspect.isawaitable(event):
                event = await event
            yield event
    except BaseException as error:
        failure = in_flight(error)
        raise
    finally:
        await close_source(getattr(sync_iterator, "close", None), failure)


def _automatic_events(response: ModelResponse, size: int | None) -> Iterable[StreamEvent]:
    yield {"type": "response_started"}
    for item in response.output:
        if not isinstance(item, Mapping):
            continue
        message: Mapping[str, Any] = item  # pyright: ignore[reportUnknownVariableType]
        if message.get("type") != "message" or message.get("role") != "assistant":
            continue
        parts = message.get("content")
        if not isinstance(parts, list):
            continue
        for part in parts:  # pyright: ignore[reportUnknownVariableType]
            if not isinstance(part, Mapping):
                continue
            text_part: Mapping[str, Any] = part  # pyright: ignore[reportUnknownVariableType]
            if text_part.get("type") != "output_text":
                continue
            text: Any = text_part.get("text")  # the reference streams a missing text as is
            pieces: list[Any] = text_deltas(text, size) if isinstance(text, str) else [text]
            for piece in pieces:
                delta: OutputTextDeltaEvent = {
                    "type": "output_text_delta",
                    "item_id": message.get("id"),
                    "delta": piece,
                }
                if text_part.get("provider_data") is not None:
                    delta["provider_data"] = snapshot(text_part["provider_data"])
                yield delta
    payload: Any = {
        "id": response.response_id,
        "request_id": response.request_id,
        "usage": _usage_payload(response.usage),
        "raw_usage": response.raw_usage,
        "provider_data": response.provider_data,
        "output": response.output,
    }
    yield {"type": "response_done", "response": snapshot(payload)}
