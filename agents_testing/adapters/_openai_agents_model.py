"""The model part of the OpenAI Agents SDK adapter (import it from ``openai_agents``).

``openai_agents_model(model)`` wraps a core ``ScriptedModel`` as an ``agents.Model``: pass it to
``Agent(model=...)`` or ``RunConfig(model=...)`` and keep asserting on the core object
(``model.calls``, ``model.assert_complete()``). The adapter only translates: the SDK's call
becomes a ``ModelRequest``, normalized output items become ``openai.types.responses`` objects,
normalized stream events become Responses stream events, and retry advice goes both ways.

Importing this module without ``openai-agents`` installed raises ``ImportError``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import typing
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, cast

try:
    import agents.usage as _agents_usage
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import ModelResponse, TResponseInputItem
    from agents.model_settings import ModelSettings
    from agents.models.interface import Model, ModelTracing
    from agents.retry import ModelRetryAdvice, ModelRetryAdviceRequest
    from agents.tool import Tool
    from agents.tracing import Span, SpanError, generation_span
    from agents.tracing.span_data import GenerationSpanData
    from agents.usage import RequestUsage, Usage
    from openai.types.responses import (
        Response,
        ResponseApplyPatchToolCall,
        ResponseCompletedEvent,
        ResponseContentPartAddedEvent,
        ResponseContentPartDoneEvent,
        ResponseCreatedEvent,
        ResponseFunctionCallArgumentsDeltaEvent,
        ResponseFunctionCallArgumentsDoneEvent,
        ResponseFunctionToolCall,
        ResponseInProgressEvent,
        ResponseOutputItem,
        ResponseOutputItemAddedEvent,
        ResponseOutputItemDoneEvent,
        ResponseOutputMessage,
        ResponseOutputRefusal,
        ResponseOutputText,
        ResponseReasoningItem,
        ResponseReasoningSummaryPartAddedEvent,
        ResponseReasoningSummaryPartDoneEvent,
        ResponseReasoningSummaryTextDeltaEvent,
        ResponseReasoningSummaryTextDoneEvent,
        ResponseReasoningTextDeltaEvent,
        ResponseReasoningTextDoneEvent,
        ResponseRefusalDeltaEvent,
        ResponseRefusalDoneEvent,
        ResponseStreamEvent,
        ResponseTextDeltaEvent,
        ResponseTextDoneEvent,
        ResponseUsage,
    )
    from openai.types.responses.response_prompt_param import ResponsePromptParam
    from openai.types.responses.response_reasoning_summary_part_added_event import (
        Part as SummaryPartAdded,
    )
    from openai.types.responses.response_reasoning_summary_part_done_event import (
        Part as SummaryPartDone,
    )
    from openai.types.responses.response_text_delta_event import Logprob as DeltaLogprob
    from openai.types.responses.response_text_done_event import Logprob as DoneLogprob
    from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
    from pydantic import BaseModel, ValidationError
except ImportError as _missing:  # the import tests hide the framework to reach this
    # Loaded only here: a successful import of the adapter does not need it.
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.openai_agents",
        requirement="openai-agents>=0.24",
        extra="openai-agents",
    ) from _missing

from .. import items as _core
from .._closing import close_source, in_flight
from .._deltas import text_deltas
from ..errors import InvalidScriptedModelOutputError, InvalidScriptedModelStepError
from ..model import ScriptedModel, ScriptedModelStream

_FRAMEWORK = "openai-agents"

__all__ = ["openai_agents_model"]

_T = typing.TypeVar("_T")


def openai_agents_model(model: ScriptedModel, *, emit_traces: bool = False) -> Model:
    """Return an ``agents.Model`` that answers every call from ``model``'s script.

    Args:
        model: The core double whose script answers the calls.
        emit_traces: Wrap each call in a generation span, as the SDK's Chat Completions model
            does: ``model`` (``"scripted"``), ``model_config`` (the call's settings),
            ``input`` (the system instructions, then the input items) and ``output`` (the
            output items) when the run includes sensitive data, ``usage`` and, for a failing
            call, an error. Off by default, like the SDK's own test double: a trace the test
            did not ask for reaches whatever processors are installed (the SDK's default one
            exports to OpenAI when ``OPENAI_API_KEY`` is set). Capture it with
            ``capture_openai_agents_trace()``.

    Non-streamed calls return an ``agents.items.ModelResponse``; streamed calls yield Responses
    stream events. A normal response step is streamed as ``response.created``,
    ``response.in_progress``, per-item ``output_item``/``content_part``/``output_text`` events
    (``function_call_arguments`` and ``reasoning_summary``/``reasoning_text`` events for those
    items; ``output_item.added`` shows each item in progress, before its content) and one
    final ``response.completed``. The events of an exact stream step
    (``model_stream``) map one to one instead: ``response_started`` -> ``response.created``,
    ``output_text_delta`` -> ``response.output_text.delta``, ``response_done`` ->
    ``response.completed`` and ``model`` -> its ``event`` unchanged.

    Normalized output items (dicts) become ``openai.types.responses`` objects; a missing
    ``id`` is filled as ``"{prefix}_scripted_{call_index}_{output_index}"`` (``msg``, ``fc``,
    ``rs`` or the item type), a missing required ``status`` as ``"completed"``, a missing
    ``annotations`` list as ``[]``. Items that are already SDK objects are passed unchanged.
    """
    if not isinstance(model, ScriptedModel):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"openai_agents_model expects a ScriptedModel, got {type(model).__name__}.")
    if not isinstance(emit_traces, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"openai_agents_model emit_traces must be a bool, got {emit_traces!r}.")
    return _ScriptedAgentsModel(model, emit_traces=emit_traces)


# The model name the adapter's responses and generation spans carry.
_MODEL_NAME = "scripted"
# What a span shows instead of an error's text when the run excludes sensitive data (the
# SDK's models use the same words).
_REDACTED_ERROR = "Error details are redacted."


class _FailedCall:
    """A call whose error the SDK may still ask retry advice about."""

    # A plain class, not a dataclass: generating a dataclass's methods compiles source at
    # import time, about a third of this module's import cost.
    __slots__ = ("error", "request", "streamed")

    def __init__(self, error: BaseException, streamed: bool, request: _core.ModelRequest) -> None:
        self.error = error
        self.streamed = streamed
        self.request = request


class _ScriptedAgentsModel(Model):
    """An ``agents.Model`` whose answers come from a core ``ScriptedModel``."""

    def __init__(self, model: ScriptedModel, *, emit_traces: bool = False) -> None:
        self._model = model
        self._emit_traces = emit_traces
        # The SDK asks for retry advice with the error only. Remembering which core request
        # raised it lets the core match the advice to that exact call.
        self._failed: list[_FailedCall] = []

    def __repr__(self) -> str:
        return f"openai_agents_model({self._model!r})"

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],  # noqa: A002 - the SDK's parameter name
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        """Answer a non-streamed call with the next scripted step."""
        # Nothing is awaited before the core takes the step, so a task the SDK cancels
        # before it starts consumes no step, like an aborted request.
        request = _core_request(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )
        # The core takes the step before its first await, so this call's index is the next
        # one; last_call reads one record where len(calls) would build them all.
        last = self._model.last_call
        call_index = 0 if last is None else last.index + 1
        span = self._generation_span(request, model_settings, tracing)
        if span is None:
            return await self._response(request, call_index)
        with span:
            try:
                sdk_response = await self._response(request, call_index)
            except Exception as error:
                _record_span_error(span, error, tracing)
                raise
            _populate_span(span, sdk_response.output, _span_usage(sdk_response.usage), tracing)
            return sdk_response

    async def _response(self, request: _core.ModelRequest, call_index: int) -> ModelResponse:
        try:
            response = await self._model.get_response(request)
        except Exception as error:
            self._failed.append(_FailedCall(error, False, request))
            raise
        return self._converted(_sdk_model_response, response, call_index)

    def _generation_span(
        self, request: _core.ModelRequest, settings: ModelSettings, tracing: ModelTracing
    ) -> Span[GenerationSpanData] | None:
        """Return the call's generation span (not started), or None when traces are off."""
        if not self._emit_traces or tracing.is_disabled():
            return None
        config = settings.to_traceable_dict()
        if not tracing.include_data():
            config.pop("metadata", None)  # the SDK's models treat metadata as sensitive
        span = generation_span(model=_MODEL_NAME, model_config=config)
        if tracing.include_data():
            span.span_data.input = _span_input(request)
        return span

    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],  # noqa: A002 - the SDK's parameter name
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[ResponseStreamEvent]:
        """Answer a streamed call with the next scripted step.

        The call is recorded and its step taken now, as the core does; the events are
        produced as the SDK reads them, and closing the iterator closes the scripted stream.
        """
        request = _core_request(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )
        span = self._generation_span(request, model_settings, tracing)
        try:
            events = self._model.stream_response(request)
        except Exception as error:
            self._failed.append(_FailedCall(error, True, request))
            if span is not None:
                # The core refused the call before any event: the span still shows it failed.
                with span:
                    _record_span_error(span, error, tracing)
            raise
        return self._sdk_events(
            events,
            request,
            events.call_index,
            exact=not events.automatic,
            span=span,
            tracing=tracing,
        )

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
        """Return the advice scripted with the failed call's error, in the SDK's type."""
        advice = self._model.get_retry_advice(
            _core.RetryAdviceRequest(
                error=request.error,
                stream=request.stream,
                attempt=request.attempt,
                request=self._take_failed_request(request.error, streamed=request.stream),
            )
        )
        return _sdk_retry_advice(advice)

    async def _sdk_events(
        self,
        events: ScriptedModelStream,
        request: _core.ModelRequest,
        call_index: int,
        *,
        exact: bool,
        span: Span[GenerationSpanData] | None = None,
        tracing: ModelTracing = ModelTracing.DISABLED,
    ) -> AsyncIterator[ResponseStreamEvent]:
        failure: BaseException | None = None
        completed: Response | None = None
        if span is not None:
            # Not made current: the consumer's code runs between events, outside the call.
            span.start(mark_as_current=False)
        try:
            if exact:
                translate = _ExactEventTranslator(call_index)
                async for event in events:
                    sdk_event = self._converted(translate, event)
                    if isinstance(sdk_event, ResponseCompletedEvent):
                        completed = sdk_event.response
                    yield sdk_event
            else:
                # A normal step streams only once its response is known (the core computes
                # it before the first event), so rendering from the final response loses
                # nothing and lets every event carry the final item ids and indexes.
                payload = await _response_done_payload(events)
                completed = self._converted(_completed_response, payload, call_index)
                for sdk_event in _rendered_events(completed, self._model.text_delta_size):
                    yield sdk_event
        except BaseException as error:
            if isinstance(error, Exception):
                self._failed.append(_FailedCall(error, True, request))
                if span is not None:
                    _record_span_error(span, error, tracing)
            failure = in_flight(error)
            raise
        finally:
            try:
                # A failing source close must not hide the error that ended the stream.
                await close_source(events.aclose, failure)
            finally:
                if span is not None:
                    if completed is not None:
                        _populate_span(
                            span, completed.output, _response_usage(completed.usage), tracing
                        )
                    span.finish(reset_current=False)

    def _converted(self, convert: typing.Callable[..., _T], *args: Any) -> _T:
        """Run an output conversion; record a scripted item it refuses as a violation."""
        try:
            return convert(*args)
        except (InvalidScriptedModelOutputError, InvalidScriptedModelStepError) as error:
            # The runner may turn the error into something else: assert_complete() must
            # still report the broken script.
            raise self._model.record_violation(error) from error.__cause__

    def _take_failed_request(
        self, error: BaseException, *, streamed: bool
    ) -> _core.ModelRequest | None:
        for position, failed in enumerate(self._failed):
            if failed.error is error and failed.streamed is streamed:
                del self._failed[position]
                return failed.request
        return None


# Generation spans ----------------------------------------------------------------------------


def _span_input(request: _core.ModelRequest) -> list[dict[str, Any]]:
    """Return what the span shows as input: the instructions, then the input items."""
    messages: list[dict[str, Any]] = []
    if request.system_instructions:
        messages.append({"role": "system", "content": request.system_instructions})
    if isinstance(request.input, str):
        messages.append({"role": "user", "content": request.input})
    else:
        for item in cast("Iterable[Any]", request.input):
            messages.append(_plain_item(item))
    return messages


def _plain_item(item: Any) -> dict[str, Any]:
    # Only the fields the item was built with: stable and short in a trace snapshot.
    if isinstance(item, BaseModel):
        return item.model_dump(exclude_unset=True)
    return dict(item)


def _populate_span(
    span: Span[GenerationSpanData],
    output: Iterable[Any],
    usage: dict[str, Any],
    tracing: ModelTracing,
) -> None:
    span.span_data.usage = usage
    if tracing.include_data():
        span.span_data.output = [_plain_item(item) for item in output]


def _span_usage(usage: Usage) -> dict[str, Any]:
    return {
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "input_tokens_details": usage.input_tokens_details.model_dump(),
        "output_tokens_details": usage.output_tokens_details.model_dump(),
    }


def _response_usage(usage: ResponseUsage | None) -> dict[str, Any]:
    if usage is None:
        return {"requests": 1}
    return {
        "requests": 1,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "input_tokens_details": usage.input_tokens_details.model_dump(),
        "output_tokens_details": usage.output_tokens_details.model_dump(),
    }


def _record_span_error(
    span: Span[GenerationSpanData], error: Exception, tracing: ModelTracing
) -> None:
    """Mark the span failed as the SDK's models do; never let that hide the call's error."""
    if tracing.include_data():
        try:
            text = str(error)
        except Exception:
            text = f"Unrenderable {type(error).__name__}"
    else:
        text = _REDACTED_ERROR
    span.set_error(SpanError(message="Error getting response", data={"error": text}))


def _core_request(
    system_instructions: str | None,
    input: str | list[TResponseInputItem],  # noqa: A002 - the SDK's parameter name
    model_settings: ModelSettings,
    tools: list[Tool],
    output_schema: AgentOutputSchemaBase | None,
    handoffs: list[Handoff[Any, Any]],
    tracing: ModelTracing,
    *,
    previous_response_id: str | None,
    conversation_id: str | None,
    prompt: ResponsePromptParam | None,
) -> _core.ModelRequest:
    """Build the core request from the SDK's call, keeping the SDK's own objects."""
    settings = {
        field.name: getattr(model_settings, field.name)
        for field in dataclasses.fields(model_settings)
    }
    return _core.ModelRequest(
        input=input,
        system_instructions=system_instructions,
        model_settings=settings,
        tools=tools,
        handoffs=handoffs,
        output_type=output_schema,
        tracing=tracing,
        previous_response_id=previous_response_id,
        conversation_id=conversation_id,
        prompt=prompt,
    )


# Output items ------------------------------------------------------------------------------

_ID_PREFIXES = {"message": "msg", "function_call": "fc", "reasoning": "rs"}


@functools.cache
def _output_item_classes() -> dict[str, type[BaseModel]]:
    """Map each Responses output item ``type`` to the model class that validates it."""
    classes: dict[str, type[BaseModel]] = {}
    pending: list[Any] = [ResponseOutputItem]
    while pending:  # unwrap Annotated[Union[...], ...] without relying on its exact nesting
        candidate = pending.pop()
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            type_field = candidate.model_fields.get("type")
            if type_field is not None:
                for literal in typing.get_args(type_field.annotation):
                    classes[literal] = candidate
        else:
            pending.extend(typing.get_args(candidate))
    return classes


def _sdk_output(items: Iterable[Any], call_index: int) -> list[ResponseOutputItem]:
    return [_sdk_output_item(item, call_index, index) for index, item in enumerate(items)]


def _sdk_output_item(item: Any, call_index: int, output_index: int) -> ResponseOutputItem:
    """Convert one normalized output item into its ``openai.types.responses`` object."""
    if not isinstance(item, Mapping):
        if isinstance(item, BaseModel):
            return cast("ResponseOutputItem", item)  # already the SDK's object: keep it as it is
        raise InvalidScriptedModelOutputError(
            call_index,
            output_index,
            None,
            f"it is a {type(item).__name__}, not an output item: script a mapping such as "
            "assistant_message(...) or function_call(...), or an openai.types.responses object.",
            _FRAMEWORK,
        )
    data = _without_unset(cast("Mapping[str, Any]", item), None)
    item_type = data.get("type")
    classes = _output_item_classes()
    if not isinstance(item_type, str) or item_type not in classes:
        raise InvalidScriptedModelOutputError(
            call_index,
            output_index,
            item_type if isinstance(item_type, str) else None,
            f"{item_type!r} is not a Responses output item type (such as message, "
            "function_call, reasoning or shell_call).",
            _FRAMEWORK,
        )
    item_class = classes[item_type]
    data = _without_unset(data, item_class)
    required = {name for name, field in item_class.model_fields.items() if field.is_required()}
    if "id" in required and "id" not in data:
        prefix = _ID_PREFIXES.get(item_type, item_type)
        data["id"] = f"{prefix}_scripted_{call_index}_{output_index}"
    if "call_id" in required and "call_id" not in data:
        data["call_id"] = f"call_scripted_{call_index}_{output_index}"
    if "status" in required and "status" not in data:
        data["status"] = "completed"
    if item_type == "message":
        data.setdefault("role", "assistant")
        content: Any = data.get("content")
        if isinstance(content, list):
            parts: list[Any] = content  # pyright: ignore[reportUnknownVariableType]
            data["content"] = [_sdk_content_part(part) for part in parts]
    elif item_type == "reasoning":
        data.setdefault("summary", [])
    try:
        # The item's own class, which its type names: the union of all item types tries its
        # members in turn and costs about twenty times as much per item.
        return cast("ResponseOutputItem", item_class.model_validate(data))
    except ValidationError as error:
        raise InvalidScriptedModelOutputError(
            call_index,
            output_index,
            item_type,
            _validation_reason(error),
            _FRAMEWORK,
        ) from error


def _validation_reason(error: ValidationError) -> str:
    """Say in one line what is wrong with an item, as its own type's model sees it."""
    problems = error.errors()
    shown = "; ".join(
        f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
        for problem in problems[:3]
    )
    more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
    return f"{shown}{more}"


def _without_unset(item: Mapping[str, Any], item_class: type[BaseModel] | None) -> dict[str, Any]:
    """Copy ``item`` without ``None`` values for keys the SDK type does not require.

    The normalized builders write ``None`` for absent optional keys (``namespace``,
    ``provider_data``); leaving them out keeps them unset on the SDK object, so the SDK's
    replay of the item as the next turn's input does not grow ``None`` keys.
    """
    fields = item_class.model_fields if item_class is not None else {}
    return {
        key: value
        for key, value in item.items()
        if value is not None or (key in fields and fields[key].is_required())
    }


def _sdk_content_part(part: Any) -> Any:
    if not isinstance(part, Mapping):
        return part
    data = _without_unset(cast("Mapping[str, Any]", part), None)
    if data.get("type") == "output_text":
        data.setdefault("annotations", [])
    return data


# Usage -------------------------------------------------------------------------------------


def _summed_details(details: Any) -> dict[str, Any]:
    """Add up token details, which the core keeps as one mapping per request."""
    entries: Iterable[Any] = (
        [details] if isinstance(details, Mapping) else cast("Iterable[Any]", details or ())
    )
    totals: dict[str, Any] = {}
    for entry in entries:
        for key, value in cast("Mapping[str, Any]", entry).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                totals[key] = totals.get(key, 0) + value
            elif value is not None:
                totals.setdefault(key, value)
    return totals


def _input_details(details: Any) -> InputTokensDetails:
    # Older openai releases lack cache_write_tokens; their models keep it as an extra field.
    defaults = {"cached_tokens": 0, "cache_write_tokens": 0}
    return InputTokensDetails.model_validate({**defaults, **_summed_details(details)})


def _output_details(details: Any) -> OutputTokensDetails:
    return OutputTokensDetails.model_validate({"reasoning_tokens": 0, **_summed_details(details)})


def _tokens(usage: Mapping[str, Any]) -> tuple[int, int, int]:
    input_tokens = usage.get("input_tokens") or 0
    output_tokens = usage.get("output_tokens") or 0
    total = usage.get("total_tokens")
    return input_tokens, output_tokens, input_tokens + output_tokens if total is None else total


def _sdk_usage(usage: Mapping[str, Any]) -> Usage:
    """Build the SDK's usage from core usage fields (a ``Usage`` as a dict, or a payload)."""
    input_tokens, output_tokens, total_tokens = _tokens(usage)
    entries: list[RequestUsage] = []
    for entry in cast("Iterable[Mapping[str, Any]]", usage.get("request_usage_entries") or ()):
        entry_input, entry_output, entry_total = _tokens(entry)
        entries.append(
            RequestUsage(
                input_tokens=entry_input,
                output_tokens=entry_output,
                total_tokens=entry_total,
                input_tokens_details=_input_details(entry.get("input_tokens_details")),
                output_tokens_details=_output_details(entry.get("output_tokens_details")),
            )
        )
    requests = usage.get("requests")
    return Usage(
        requests=1 if requests is None else requests,
        input_tokens=input_tokens,
        input_tokens_details=_input_details(usage.get("input_tokens_details")),
        output_tokens=output_tokens,
        output_tokens_details=_output_details(usage.get("output_tokens_details")),
        total_tokens=total_tokens,
        request_usage_entries=entries,
    )


def _sdk_model_response(response: _core.ModelResponse, call_index: int) -> ModelResponse:
    raw_usage: Any = response.raw_usage
    return ModelResponse(
        output=_sdk_output(response.output, call_index),
        usage=_sdk_usage(dataclasses.asdict(response.usage)),
        response_id=response.response_id,
        request_id=response.request_id,
        raw_usage=cast("dict[str, Any]", raw_usage) if isinstance(raw_usage, dict) else None,
    )


# Streaming ---------------------------------------------------------------------------------

# The SDK reads a streamed response's request id from this attribute, which the openai client
# sets from the response header; a scripted response has no header, so set it the same way.
_REQUEST_ID_ATTRIBUTE = "_request_id"


def _response(response_id: str, output: list[ResponseOutputItem], **fields: Any) -> Response:
    return Response(
        id=response_id,
        created_at=0,
        model="scripted",
        object="response",
        output=output,
        parallel_tool_calls=False,
        tool_choice="auto",
        tools=[],
        **fields,
    )


def _default_response_id(call_index: int) -> str:
    # Same deterministic id the core gives a response that has none.
    return f"scripted-response-{call_index + 1}"


def _in_progress_response(response_id: str) -> Response:
    return _response(response_id, [], status="in_progress")


def _completed_response(payload: Mapping[str, Any], call_index: int) -> Response:
    """Build the ``response.completed`` response from a core ``response_done`` payload."""
    usage = _sdk_usage(cast("Mapping[str, Any]", payload.get("usage") or {}))
    response_usage = ResponseUsage(
        input_tokens=usage.input_tokens,
        input_tokens_details=usage.input_tokens_details,
        output_tokens=usage.output_tokens,
        output_tokens_details=usage.output_tokens_details,
        total_tokens=usage.total_tokens,
    )
    # ResponseUsage has no request count or per-request entries. The SDK's own scripted model
    # attaches the full Usage through this hook, which the runner prefers when present; without
    # it (another SDK version) the runner still counts the tokens and one request.
    attach_usage = getattr(_agents_usage, "_attach_normalized_usage", None)
    if callable(attach_usage):
        attach_usage(response_usage, usage)
    response_id = payload.get("id")
    response = _response(
        _default_response_id(call_index) if response_id is None else response_id,
        _sdk_output(cast("Iterable[Any]", payload.get("output") or ()), call_index),
        status="completed",
        usage=response_usage,
    )
    request_id = payload.get("request_id")
    if request_id is not None:
        setattr(response, _REQUEST_ID_ATTRIBUTE, request_id)
    raw_usage = payload.get("raw_usage")
    attach_raw_usage = getattr(_agents_usage, "_attach_raw_usage_snapshot", None)
    if raw_usage is not None and callable(attach_raw_usage):
        # The runner reads a streamed response's raw usage only from this hook.
        attach_raw_usage(response, raw_usage)
    return response


async def _response_done_payload(events: AsyncIterator[_core.StreamEvent]) -> Mapping[str, Any]:
    """Read a normal step's events up to its ``response_done`` and return that payload."""
    async for event in events:
        fields = cast("Mapping[str, Any]", event)
        if fields.get("type") == "response_done":
            return cast("Mapping[str, Any]", fields.get("response") or {})
    return {}


def _rendered_events(
    response: Response, text_delta_size: int | None
) -> Iterator[ResponseStreamEvent]:
    """Render a completed response as the Responses stream that would have produced it.

    Each text goes out in the deltas the core cuts it into (one unless the model sets
    ``text_delta_size``).
    """
    sequence = itertools.count()
    yield ResponseCreatedEvent(
        type="response.created",
        response=_in_progress_response(response.id),
        sequence_number=next(sequence),
    )
    yield ResponseInProgressEvent(
        type="response.in_progress",
        response=_in_progress_response(response.id),
        sequence_number=next(sequence),
    )
    for output_index, item in enumerate(response.output):
        yield ResponseOutputItemAddedEvent(
            type="response.output_item.added",
            item=_in_progress_item(item),
            output_index=output_index,
            sequence_number=next(sequence),
        )
        if isinstance(item, ResponseOutputMessage):
            yield from _message_events(item, output_index, sequence, text_delta_size)
        elif isinstance(item, ResponseReasoningItem):
            yield from _reasoning_events(item, output_index, sequence)
        elif isinstance(item, ResponseFunctionToolCall):
            # Only a missing id falls back to the call id: "" is an id the events keep.
            item_id = item.call_id if item.id is None else item.id
            yield ResponseFunctionCallArgumentsDeltaEvent(
                type="response.function_call_arguments.delta",
                delta=item.arguments,
                item_id=item_id,
                output_index=output_index,
                sequence_number=next(sequence),
            )
            yield ResponseFunctionCallArgumentsDoneEvent(
                type="response.function_call_arguments.done",
                arguments=item.arguments,
                item_id=item_id,
                output_index=output_index,
                sequence_number=next(sequence),
            )
        # Events carry copies, so a consumer that edits one cannot change the final response.
        yield ResponseOutputItemDoneEvent(
            type="response.output_item.done",
            item=item.model_copy(deep=True),
            output_index=output_index,
            sequence_number=next(sequence),
        )
    yield ResponseCompletedEvent(
        type="response.completed", response=response, sequence_number=next(sequence)
    )


def _in_progress_item(item: ResponseOutputItem) -> ResponseOutputItem:
    """Return ``item`` as ``response.output_item.added`` shows it: before its content streams."""
    if isinstance(item, ResponseOutputMessage):
        return item.model_copy(update={"content": [], "status": "in_progress"}, deep=True)
    if isinstance(item, ResponseFunctionToolCall):
        return item.model_copy(update={"arguments": "", "status": "in_progress"}, deep=True)
    if isinstance(item, ResponseReasoningItem):
        # The summary and reasoning text arrive through their own events; the encrypted
        # content only with the finished item.
        update: dict[str, Any] = {
            "summary": [],
            "content": None if item.content is None else [],
            "encrypted_content": None,
            "status": "in_progress",
        }
        return item.model_copy(update=update, deep=True)
    if isinstance(item, ResponseApplyPatchToolCall):
        # No Responses event streams an operation, so the added item already carries it.
        return item.model_copy(update={"status": "in_progress"}, deep=True)
    return item.model_copy(deep=True)


def _reasoning_events(
    item: ResponseReasoningItem, output_index: int, sequence: Iterator[int]
) -> Iterator[ResponseStreamEvent]:
    for summary_index, summary in enumerate(item.summary):
        where: dict[str, Any] = {
            "item_id": item.id,
            "output_index": output_index,
            "summary_index": summary_index,
        }
        yield ResponseReasoningSummaryPartAddedEvent(
            type="response.reasoning_summary_part.added",
            part=SummaryPartAdded(type="summary_text", text=""),
            sequence_number=next(sequence),
            **where,
        )
        yield ResponseReasoningSummaryTextDeltaEvent(
            type="response.reasoning_summary_text.delta",
            delta=summary.text,
            sequence_number=next(sequence),
            **where,
        )
        yield ResponseReasoningSummaryTextDoneEvent(
            type="response.reasoning_summary_text.done",
            text=summary.text,
            sequence_number=next(sequence),
            **where,
        )
        yield ResponseReasoningSummaryPartDoneEvent(
            type="response.reasoning_summary_part.done",
            part=SummaryPartDone(type="summary_text", text=summary.text),
            sequence_number=next(sequence),
            **where,
        )
    for content_index, content in enumerate(item.content or ()):
        yield ResponseReasoningTextDeltaEvent(
            type="response.reasoning_text.delta",
            item_id=item.id,
            output_index=output_index,
            content_index=content_index,
            delta=content.text,
            sequence_number=next(sequence),
        )
        yield ResponseReasoningTextDoneEvent(
            type="response.reasoning_text.done",
            item_id=item.id,
            output_index=output_index,
            content_index=content_index,
            text=content.text,
            sequence_number=next(sequence),
        )


def _message_events(
    message: ResponseOutputMessage,
    output_index: int,
    sequence: Iterator[int],
    text_delta_size: int | None,
) -> Iterator[ResponseStreamEvent]:
    for content_index, part in enumerate(message.content):
        where: dict[str, Any] = {
            "item_id": message.id,
            "output_index": output_index,
            "content_index": content_index,
        }
        if isinstance(part, ResponseOutputText):
            yield ResponseContentPartAddedEvent(
                type="response.content_part.added",
                part=ResponseOutputText(type="output_text", text="", annotations=[]),
                sequence_number=next(sequence),
                **where,
            )
            logprobs = [entry.model_dump() for entry in part.logprobs or ()]
            for position, piece in enumerate(text_deltas(part.text, text_delta_size)):
                # A part's scripted logprobs go out once, with its first delta.
                shown = logprobs if position == 0 else []
                yield ResponseTextDeltaEvent(
                    type="response.output_text.delta",
                    delta=piece,
                    logprobs=[DeltaLogprob.model_validate(entry) for entry in shown],
                    sequence_number=next(sequence),
                    **where,
                )
            yield ResponseTextDoneEvent(
                type="response.output_text.done",
                text=part.text,
                logprobs=[DoneLogprob.model_validate(entry) for entry in logprobs],
                sequence_number=next(sequence),
                **where,
            )
        else:
            yield ResponseContentPartAddedEvent(
                type="response.content_part.added",
                part=ResponseOutputRefusal(type="refusal", refusal=""),
                sequence_number=next(sequence),
                **where,
            )
            yield ResponseRefusalDeltaEvent(
                type="response.refusal.delta",
                delta=part.refusal,
                sequence_number=next(sequence),
                **where,
            )
            yield ResponseRefusalDoneEvent(
                type="response.refusal.done",
                refusal=part.refusal,
                sequence_number=next(sequence),
                **where,
            )
        yield ResponseContentPartDoneEvent(
            type="response.content_part.done",
            part=part.model_copy(deep=True),
            sequence_number=next(sequence),
            **where,
        )


class _ExactEventTranslator:
    """Translate an exact stream's normalized events one to one, numbering them in order."""

    def __init__(self, call_index: int) -> None:
        self._call_index = call_index
        self._sequence = itertools.count()
        # A text delta names its item but not its position: number items by first appearance.
        self._output_indexes: dict[str | None, int] = {}

    def __call__(self, event: Any) -> ResponseStreamEvent:
        sequence_number = next(self._sequence)
        if not isinstance(event, Mapping):
            raise self._invalid(
                sequence_number,
                f"it is a {type(event).__name__}, not a normalized stream event; wrap SDK "
                'events as {"type": "model", "event": ...}.',
            )
        fields = cast("Mapping[str, Any]", event)
        kind = fields.get("type")
        if kind == "model":
            if "event" not in fields:
                raise self._invalid(
                    sequence_number,
                    'it is a model event without its "event"; the SDK needs the event to pass on.',
                )
            return cast("ResponseStreamEvent", fields["event"])
        if kind == "response_started":
            return ResponseCreatedEvent(
                type="response.created",
                response=_in_progress_response(_default_response_id(self._call_index)),
                sequence_number=sequence_number,
            )
        if kind == "output_text_delta":
            item_id: str | None = fields.get("item_id")
            output_index = self._output_indexes.setdefault(item_id, len(self._output_indexes))
            return ResponseTextDeltaEvent(
                type="response.output_text.delta",
                # Without an id, name the item as the completed message at that index will be.
                item_id=item_id or f"msg_scripted_{self._call_index}_{output_index}",
                output_index=output_index,
                content_index=0,
                delta=fields.get("delta") or "",
                logprobs=[],
                sequence_number=sequence_number,
            )
        if kind == "response_done":
            payload = self._done_payload(fields.get("response"), sequence_number)
            try:
                response = _completed_response(payload, self._call_index)
            except InvalidScriptedModelOutputError:
                raise
            except ValidationError as error:
                problem = _validation_reason(error)
                raise self._unreadable(sequence_number, problem) from error
            except (TypeError, ValueError) as error:
                raise self._unreadable(
                    sequence_number, f"{type(error).__name__}: {error}"
                ) from error
            return ResponseCompletedEvent(
                type="response.completed", response=response, sequence_number=sequence_number
            )
        raise self._invalid(
            sequence_number,
            f"its type {kind!r} is not one of response_started, output_text_delta, "
            "response_done or model.",
        )

    def _done_payload(self, response: Any, position: int) -> Mapping[str, Any]:
        """Return a ``response_done`` event's response, refusing one the SDK could not read."""
        try:
            return _core._done_response(response)  # pyright: ignore[reportPrivateUsage]
        except TypeError as error:
            raise self._invalid(position, str(error)) from error

    def _unreadable(self, position: int, problem: str) -> InvalidScriptedModelStepError:
        return self._invalid(
            position,
            f"its response cannot be read ({problem}); fix the event's response, or script "
            "the output items and let the stream be built from them.",
        )

    def _invalid(self, position: int, problem: str) -> InvalidScriptedModelStepError:
        return InvalidScriptedModelStepError(
            "invalid_stream_event",
            call_index=self._call_index,
            step_type="stream",
            detail=f"stream event #{position + 1} (event_index={position}): {problem}",
        )


# Retry -------------------------------------------------------------------------------------


def _sdk_retry_advice(advice: Any) -> ModelRetryAdvice | None:
    if advice is None or isinstance(advice, ModelRetryAdvice):
        return advice  # no advice, or the SDK's own type returned by a callback
    if not isinstance(advice, _core.ModelRetryAdvice):
        raise TypeError(
            "ScriptedModel retry advice must be a ModelRetryAdvice or None, "
            f"got {type(advice).__name__}."
        )
    return ModelRetryAdvice(
        suggested=advice.suggested,
        retry_after=advice.retry_after,
        replay_safety=advice.replay_safety,
        reason=advice.reason,
        response_started=bool(advice.response_started),
    )
