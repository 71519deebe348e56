"""Plug a ``ScriptedModel`` into pydantic-ai (``pydantic-ai-slim`` >= 1.1) as a ``Model``.

``pydantic_ai_model(model)`` wraps a core ``ScriptedModel`` as a ``pydantic_ai.models.Model``:
pass it to ``Agent(...)`` (or ``agent.run(..., model=...)``) and keep asserting on the core
object (``model.calls``, ``model.assert_complete()``). ``request`` is a non-streamed call of
the core model; ``request_stream`` (``run_stream``, ``run_stream_events``, ``iter`` with
streamed nodes) is a streamed call.

Requests (pydantic-ai messages -> ``ModelRequest.input`` items, in the order sent):

- ``SystemPromptPart`` -> ``{"type": "message", "role": "system", "content": text}``; the
  agent's ``instructions`` (which pydantic-ai keeps apart from the history) go in
  ``system_instructions``.
- ``UserPromptPart`` -> ``{"type": "message", "role": "user", "content": ...}``: text stays a
  ``str``; a list keeps its order, ``str`` entries become ``input_text`` parts and other
  content (images, files) stays the pydantic-ai object.
- ``TextPart`` -> an assistant message item; ``ToolCallPart`` -> a ``function_call`` item with
  the argument string exactly as pydantic-ai holds it and ``call_id`` = ``tool_call_id``;
  ``ThinkingPart``\\ s -> a ``reasoning`` item (adjacent parts with one id are one item, their
  contents its ``summary_text`` parts, the ``signature`` its ``encrypted_content``).
- ``ToolReturnPart`` -> ``{"type": "function_call_output", "call_id", "output"}`` with the
  text pydantic-ai sends a provider (a failed or retried call is pydantic-ai's error text).
- Retry prompts: one that answers a tool call -> ``function_call_output``; one that does
  not -> a user message with pydantic-ai's retry text.
- Any other part (native tool parts, files, ...) stays the pydantic-ai object.

``model_settings`` is the merged ``ModelSettings`` dict, ``tools`` the function tools'
``ToolDefinition``\\ s, ``output_type`` the output tools' ``ToolDefinition``\\ s for tool output,
the ``OutputObjectDefinition`` for native or prompted output, ``None`` for text;
``extra["messages"]`` and ``extra["model_request_parameters"]`` are pydantic-ai's own.

Responses: an assistant message item -> one ``TextPart`` (its ``output_text`` parts joined;
any other content part is refused), a ``reasoning`` item -> a ``ThinkingPart`` per
``summary_text`` entry (the item's id on each, ``encrypted_content`` the first's
``signature``),
a ``function_call`` item -> ``ToolCallPart(name, arguments, tool_call_id=call_id)`` with the
exact argument string; ``Usage`` -> ``RequestUsage``; ``response_id`` ->
``provider_response_id``. Streams become text deltas and tool-call parts through the
response's parts manager; see ``ScriptedPydanticAIModel.request_stream``.
"""

from __future__ import annotations

import dataclasses
import functools
import marshal
import operator
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import chain
from typing import TYPE_CHECKING, Any, cast

try:
    from pydantic_ai.messages import (
        FinishReason,
        ModelMessage,
        ModelRequestPart,
        ModelResponsePart,
        ModelResponseStreamEvent,
        SystemPromptPart,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.messages import ModelRequest as PydanticModelRequest
    from pydantic_ai.messages import ModelResponse as PydanticModelResponse
    from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
    from pydantic_ai.profiles import ModelProfile
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.tools import RunContext
    from pydantic_ai.usage import RequestUsage
except ImportError as _missing:  # the import tests hide the framework to reach this
    # Loaded only here: a successful import of the adapter does not need it.
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.pydantic_ai",
        requirement="pydantic-ai-slim>=1.1",
        extra="pydantic-ai",
    ) from _missing

from .. import _lazy
from .._closing import close_source, in_flight
from .._records import stored_value
from ..errors import InvalidScriptedModelOutputError, InvalidScriptedModelStepError
from ..items import (
    ModelRequest,
    ModelResponse,
    _done_response,  # pyright: ignore[reportPrivateUsage]
    assistant_message,
    function_call,
)
from ..model import ScriptedModel

if TYPE_CHECKING:
    from ._pydantic_ai_recording import (
        recording_pydantic_ai_model as recording_pydantic_ai_model,
    )

# Loaded on first use: a test that only replays never imports the recording module.
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = _lazy.lazy_names(
    globals(), {"recording_pydantic_ai_model": "_pydantic_ai_recording"}
)

__all__ = ["ScriptedPydanticAIModel", "pydantic_ai_model", "recording_pydantic_ai_model"]

_MODEL_NAME = "scripted"
_FRAMEWORK = "pydantic-ai"


def pydantic_ai_model(model: ScriptedModel) -> ScriptedPydanticAIModel:
    """Return a pydantic-ai model that records into and answers from ``model``."""
    if not isinstance(model, ScriptedModel):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"pydantic_ai_model expects a ScriptedModel, got {type(model).__name__}.")
    return ScriptedPydanticAIModel(model)


class ScriptedPydanticAIModel(Model):
    """A pydantic-ai ``Model`` that answers from a core ``ScriptedModel``.

    Build it with ``pydantic_ai_model``.

    Its profile allows every structured output mode (tool, native and prompted output), as
    pydantic-ai's own ``FunctionModel`` does, so the agent's output settings decide.
    """

    # pydantic-ai 2.x tells a model what its framing notes mean in an extra system prompt; a
    # double has no model to tell, and the note would show up in every recorded request.
    _announces_lookalike_notes = False

    def __init__(self, model: ScriptedModel) -> None:
        super().__init__(
            profile=ModelProfile(supports_json_schema_output=True, supports_json_object_output=True)
        )
        self.scripted_model = model
        """The core double every call records into and takes its step from."""
        self._history: _Conversion | None = None

    @property
    def model_name(self) -> str:
        """Return the name responses carry as ``model_name``."""
        return _MODEL_NAME

    @property
    def system(self) -> str:
        """Return the provider name pydantic-ai reports for this model."""
        return "agents-testing"

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> PydanticModelResponse:
        """Serve a non-streamed request with the core model's next step."""
        settings, parameters = self.prepare_request(model_settings, model_request_parameters)
        model = self.scripted_model
        request, conversion = self._request(messages, settings, parameters)
        respond = model._respond  # pyright: ignore[reportPrivateUsage]
        index, response = await respond(request, functools.partial(self._remember, conversion))
        try:
            return _pydantic_response(response, index)
        except InvalidScriptedModelOutputError as error:
            # pydantic-ai may retry or wrap it: assert_complete() must still report it.
            raise model.record_violation(error) from None

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse, None]:
        """Serve a streamed request with the core model's next step.

        The core stream's events become pydantic-ai stream events:

        - ``response_started`` is dropped;
        - ``output_text_delta`` -> a text delta (``item_id`` picks the text part, ``None``
          continues the latest one);
        - ``response_done`` sets ``provider_response_id`` and usage, adds a tool-call part per
          ``function_call`` item unless raw tool-call parts were streamed, and adds its message
          text unless text was streamed (so an exact stream may carry only ``response_done``);
        - ``{"type": "model", "event": part}`` adds a pydantic-ai response part as it is
          (``TextPart``, ``ToolCallPart``, ``ThinkingPart``, ...).
        """
        settings, parameters = self.prepare_request(model_settings, model_request_parameters)
        request, conversion = self._request(messages, settings, parameters)
        events = self.scripted_model.stream_response(request)
        read = self.scripted_model._read_call  # pyright: ignore[reportPrivateUsage]
        self._remember(conversion, stored_value(read(events.call_index), "request"))
        failure: BaseException | None = None
        try:
            yield _ScriptedStreamedResponse(
                model_request_parameters=parameters,
                _source=events,
                _model=self.scripted_model,
                _call_index=events.call_index,
            )
        except BaseException as error:
            failure = in_flight(error)
            raise
        finally:
            # Runs when the agent stops reading early too, so the scripted source is closed.
            await _close(events, failure)

    def _request(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings | None,
        parameters: ModelRequestParameters,
    ) -> tuple[ModelRequest, _Conversion]:
        """Build the core request, converting only what the last call did not send."""
        conversion = _convert(messages, self._history, self.scripted_model)
        request = _core_request(conversion.messages, conversion.items, settings, parameters)
        return request, conversion

    def _remember(self, conversion: _Conversion, recorded: ModelRequest) -> None:
        """Keep ``conversion`` for the next call, with the items the core recorded for it."""
        items = recorded.input
        if isinstance(items, list) and len(items) == len(conversion.items):
            conversion.recorded = items
            self._history = conversion


# -- requests ---------------------------------------------------------------------------


class _Conversion:
    """One call's messages as the core's items, kept so the next call converts only new ones.

    pydantic-ai sends the whole history on every call: the same message objects, plus the
    few the last step added. For the first ``len(sizes)`` messages, ``sizes`` holds how many
    parts each held, ``parts`` those part objects and ``fingerprint`` the ``marshal`` bytes of
    everything conversion read from them: marshal writes exact types, values, key order and
    sharing, so messages that are the same objects, holding the same parts with the same bytes,
    convert to equal items, and the next call takes them from ``recorded`` (the items the core
    recorded for this call). Being the record's own objects, the core also shares them by
    identity instead of comparing their contents again.
    """

    __slots__ = ("ends", "fingerprint", "items", "messages", "model", "parts", "recorded", "sizes")

    def __init__(self, model: ScriptedModel, messages: list[ModelMessage]) -> None:
        self.model = model
        self.messages = messages
        self.items: list[Any] = []
        self.ends: list[int] = []  # len(items) after each message
        self.sizes: list[int] = []
        self.parts: list[Any] = []
        self.fingerprint = b""
        self.recorded: list[Any] | None = None


def _convert(
    messages: list[ModelMessage], before: _Conversion | None, model: ScriptedModel
) -> _Conversion:
    conversion = _Conversion(model, list(messages))
    reused = 0
    sources: list[Any] = []
    if before is not None and before.recorded is not None and before.model is model:
        reused, sources = _reusable(messages, before)
        if reused:
            conversion.items = before.recorded[: before.ends[reused - 1]]
            conversion.ends = before.ends[:reused]
            conversion.sizes = list(before.sizes)
            conversion.parts = list(before.parts)
    items, ends = conversion.items, conversion.ends
    fresh = messages[reused:]
    for message in fresh:
        if isinstance(message, PydanticModelRequest):
            items.extend([_request_part_item(part) for part in message.parts])
        else:
            items.extend(_response_items(message.parts))
        ends.append(len(items))
    _fingerprint(conversion, fresh, sources)
    return conversion


def _reusable(messages: list[ModelMessage], before: _Conversion) -> tuple[int, list[Any]]:
    """Return how many leading messages convert as in ``before``, and what was read of them.

    Either all the messages ``before`` fingerprinted are sent again, unchanged, or none is
    reused: a change in place is rare enough to convert everything again.
    """
    count = len(before.sizes)
    if count > len(messages) or not all(map(operator.is_, messages[:count], before.messages)):
        return 0, []
    held = list(map(_PARTS, messages[:count]))
    if list(map(len, held)) != before.sizes:
        return 0, []
    parts = list(chain.from_iterable(held))
    if not all(map(operator.is_, parts, before.parts)):
        return 0, []
    try:
        sources = _sources(parts)
        if marshal.dumps(sources) == before.fingerprint:
            return count, sources
    except ValueError:
        pass
    return 0, []


def _fingerprint(conversion: _Conversion, fresh: list[ModelMessage], sources: list[Any]) -> None:
    """Fingerprint ``fresh`` after what ``conversion`` already reused (read as ``sources``).

    marshal's current format marks an object as shared by its reference count, so ``sources``
    is extended in place: what it holds is referenced by that list only, as in ``_reusable``,
    and unchanged parts give the same bytes at every call.
    """
    held = list(map(_PARTS, fresh))
    known = len(sources)
    try:
        sources += _sources(list(chain.from_iterable(held)))
        conversion.fingerprint = marshal.dumps(sources)
    except ValueError:
        # Not plain data (an object kept by identity): fingerprint up to that message only,
        # and convert the rest on every call.
        del sources[known:]
        kept: list[list[Any]] = []
        for message_parts in held:
            try:
                marshal.dumps(_sources(message_parts))
            except ValueError:
                break
            kept.append(message_parts)
        held = kept
        sources += _sources(list(chain.from_iterable(held)))
        conversion.fingerprint = marshal.dumps(sources)
    conversion.sizes += map(len, held)
    conversion.parts += chain.from_iterable(held)


def _sources(parts: list[Any]) -> list[Any]:
    """Return everything conversion reads from each of ``parts``."""
    readers = map(_SOURCES.__getitem__, map(type, parts))
    try:
        return [read(part) for read, part in zip(readers, parts, strict=True)]
    except AttributeError as error:
        # A part of the caller's own making, without a field its class declares.
        raise ValueError("a part without all its fields has no fingerprint") from error


_PARTS = operator.attrgetter("parts")


class _Sources(dict[type[Any], Callable[[Any], Any]]):
    """Part class -> a getter of everything conversion reads from such a part."""

    def __missing__(self, kind: type[Any]) -> Callable[[Any], Any]:
        read: Callable[[Any], Any]
        if issubclass(kind, (SystemPromptPart, UserPromptPart, TextPart)):
            read = operator.attrgetter("content")
        elif issubclass(kind, ThinkingPart):
            read = operator.attrgetter("content", "id", "signature")
        elif issubclass(kind, ToolCallPart):
            read = operator.attrgetter("tool_name", "args", "tool_call_id")
        elif not dataclasses.is_dataclass(kind):
            read = _not_plain
        else:
            # Tool returns and retry prompts are written by their own methods: take every
            # field but the two pydantic-ai never sends a model.
            names = [
                field.name
                for field in dataclasses.fields(kind)
                if field.name not in ("timestamp", "metadata")
            ]
            every = operator.attrgetter(*names) if names else _nothing
            read = every if issubclass(kind, ToolReturnPart) else _by_kind(every)
        self[kind] = read
        return read


def _by_kind(every: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def read(part: Any) -> Any:
        # Other parts are kept as they are: only their kind, which picks the conversion, counts.
        kind = getattr(part, "part_kind", None)
        return every(part) if kind in _RETRY_KINDS else kind

    return read


def _nothing(part: Any) -> None:
    return None


def _not_plain(part: Any) -> Any:
    raise ValueError("a part that is not a dataclass has no fingerprint")


_SOURCES = _Sources()
# Retry prompts differ by version: 1.x sends RetryPromptPart, which 2.x folds into a retried
# ToolReturnPart or a RetryFeedbackPart. Both say what the model is shown.
_RETRY_KINDS = ("retry-prompt", "retry-feedback")


def _core_request(
    messages: list[ModelMessage],
    items: list[Any],
    settings: ModelSettings | None,
    parameters: ModelRequestParameters,
) -> ModelRequest:
    output_type: Any = None
    if parameters.output_tools:
        output_type = list(parameters.output_tools)
    elif parameters.output_object is not None:
        output_type = parameters.output_object
    return ModelRequest(
        input=items,
        system_instructions=_instructions(messages, parameters),
        model_settings=dict(settings or {}),
        tools=list(parameters.function_tools),
        output_type=output_type,
        # The core records a copy of this list.
        extra={"messages": messages, "model_request_parameters": parameters},
    )


def _request_part_item(part: ModelRequestPart) -> Any:
    if isinstance(part, SystemPromptPart):
        return {"type": "message", "role": "system", "content": part.content}
    if isinstance(part, UserPromptPart):
        return {"type": "message", "role": "user", "content": _user_content(part.content)}
    if isinstance(part, ToolReturnPart):
        return {
            "type": "function_call_output",
            "call_id": part.tool_call_id,
            "output": part.model_response_str(),
        }
    if part.part_kind in _RETRY_KINDS:
        retry: Any = part
        text = retry.model_response()
        call_id = getattr(retry, "tool_call_id", None)
        if getattr(retry, "tool_name", None) is not None and call_id is not None:
            return {"type": "function_call_output", "call_id": call_id, "output": text}
        return {"type": "message", "role": "user", "content": text}
    return part


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    return [
        {"type": "input_text", "text": entry} if isinstance(entry, str) else entry
        for entry in cast("Iterable[Any]", content)
    ]


def _response_items(parts: Sequence[ModelResponsePart]) -> list[Any]:
    """Return the input items of a response in the history, in order.

    Adjacent ``ThinkingPart``\\ s with one id (as a reasoning item is read back) become one
    ``reasoning`` item again, their contents its ``summary_text`` parts.
    """
    items: list[Any] = []
    last: dict[str, Any] | None = None  # the reasoning item the parts before made
    for part in parts:
        if not isinstance(part, ThinkingPart):
            items.append(_response_part_item(part))
            last = None
            continue
        if last is None or part.id is None or last.get("id") != part.id:
            last = {"type": "reasoning", "summary": []}
            if part.id is not None:
                last["id"] = part.id
            items.append(last)
        summary: list[dict[str, str]] = last["summary"]
        if part.content:
            summary.append({"type": "summary_text", "text": part.content})
        if part.signature is not None and "encrypted_content" not in last:
            last["encrypted_content"] = part.signature
    return items


def _response_part_item(part: ModelResponsePart) -> Any:
    if isinstance(part, TextPart):
        return assistant_message(part.content)
    if isinstance(part, ToolCallPart):
        # The exact text the model sent: pydantic-ai 2.x's args_as_json_str re-serializes it.
        arguments = part.args if isinstance(part.args, str) else part.args_as_json_str()
        return function_call(part.tool_name, arguments, call_id=part.tool_call_id)
    return part


def _instructions(messages: list[ModelMessage], parameters: ModelRequestParameters) -> str | None:
    # pydantic-ai 1.77+ resolves the request's instructions (prompted-output ones included)
    # into instruction_parts; before that they are on the latest request in the history.
    parts: list[Any] | None = getattr(parameters, "instruction_parts", None)
    if parts is not None:
        return "\n\n".join(str(part.content) for part in parts).strip() or None
    latest = [message for message in messages if isinstance(message, PydanticModelRequest)][-2:]
    if not latest or latest[-1].instructions is not None:
        return latest[-1].instructions if latest else None
    # The request an output tool's return travels in carries no instructions of its own:
    # pydantic-ai then sends the ones of the request before it.
    if len(latest) == 2 and all(
        part.part_kind in ("tool-return", "retry-prompt") for part in latest[-1].parts
    ):
        return latest[0].instructions
    return None


# -- responses --------------------------------------------------------------------------


def _pydantic_response(response: ModelResponse, call_index: int) -> PydanticModelResponse:
    parts: list[ModelResponsePart] = []
    for index, item in enumerate(response.output):
        parts.extend(_response_parts(item, call_index, index))
    usage = response.usage
    return PydanticModelResponse(
        parts=parts,
        usage=_request_usage(
            usage.input_tokens,
            usage.output_tokens,
            usage.input_tokens_details,
            usage.output_tokens_details,
        ),
        model_name=_MODEL_NAME,
        provider_response_id=response.response_id,
        provider_details=_provider_details(response.provider_data),
        finish_reason=_finish_reason(parts),
    )


def _finish_reason(parts: Iterable[Any]) -> FinishReason:
    """Return why a scripted response ended, as pydantic-ai's own models report it."""
    # Instrumentation turns it into gen_ai.response.finish_reasons, which tracing backends read.
    return "tool_call" if any(isinstance(part, ToolCallPart) for part in parts) else "stop"


def _response_parts(item: Any, call_index: int, index: int) -> list[ModelResponsePart]:
    if not isinstance(item, Mapping) and isinstance(getattr(item, "part_kind", None), str):
        return [cast("ModelResponsePart", item)]  # already pydantic-ai's own response part
    kind = _kind(item)
    if kind == "message" and _mapping(item).get("role") == "assistant":
        return [TextPart(content=_message_text(_mapping(item), call_index, index))]
    if kind == "reasoning":
        return _thinking_parts(_mapping(item), call_index, index)
    if kind == "function_call":
        call = _mapping(item)
        name = call.get("name")
        if not isinstance(name, str):
            raise InvalidScriptedModelOutputError(
                call_index, index, kind, 'a function_call needs a string "name".', _FRAMEWORK
            )
        call_id = call.get("call_id")
        if call_id is None:
            return [ToolCallPart(name, _arguments(call))]
        return [ToolCallPart(name, _arguments(call), tool_call_id=str(call_id))]
    item_type: str = kind if isinstance(kind, str) else type(cast("object", item)).__name__
    raise InvalidScriptedModelOutputError(
        call_index,
        index,
        item_type,
        "pydantic-ai has no response part for it; script message, function_call or reasoning "
        "items, or pydantic-ai parts (TextPart, ThinkingPart, ...).",
        _FRAMEWORK,
    )


def _thinking_parts(
    item: Mapping[str, Any], call_index: int, index: int
) -> list[ModelResponsePart]:
    """Return a reasoning item's ``ThinkingPart``\\ s, as pydantic-ai's OpenAI models read one.

    One part per ``summary_text`` entry, all with the item's id so a round trip merges them
    back into one item; ``encrypted_content`` is the first part's ``signature``. An item with
    no summary but encrypted content is one empty part, so the content is not lost.
    """
    summary: object = item.get("summary", [])
    if not isinstance(summary, (list, tuple)):
        raise _unreadable_reasoning(call_index, index, f"its summary is a {type(summary).__name__}")
    texts: list[str] = []
    for position, entry in enumerate(cast("Sequence[object]", summary)):
        part: Mapping[str, Any] = _mapping(entry) if isinstance(entry, Mapping) else {}
        if part.get("type") != "summary_text" or not isinstance(part.get("text"), str):
            raise _unreadable_reasoning(
                call_index, index, f"summary entry #{position + 1} is not a summary_text part"
            )
        texts.append(part["text"])
    signature = item.get("encrypted_content")
    if signature is not None and not isinstance(signature, str):
        raise _unreadable_reasoning(call_index, index, "its encrypted_content is not a string")
    if not texts and signature is None:
        return []
    item_id = item.get("id")
    identity = str(item_id) if item_id is not None else None
    provider = _MODEL_NAME if identity is not None or signature is not None else None
    return [
        ThinkingPart(
            content=text,
            id=identity,
            signature=signature if position == 0 else None,
            provider_name=provider,
        )
        for position, text in enumerate(texts or [""])
    ]


def _unreadable_reasoning(
    call_index: int, index: int, problem: str
) -> InvalidScriptedModelOutputError:
    return InvalidScriptedModelOutputError(
        call_index,
        index,
        "reasoning",
        f"{problem}; a reasoning item for pydantic-ai has a list of "
        '{"type": "summary_text", "text": ...} parts as its "summary" (each becomes a '
        'ThinkingPart) and an optional string "encrypted_content".',
        _FRAMEWORK,
    )


def _message_text(item: Mapping[str, Any], call_index: int, index: int) -> str:
    """Return an assistant message's text, refusing content a ``TextPart`` cannot hold.

    The text is its ``output_text`` parts, the same parts the core's automatic stream turns
    into text deltas, so a streamed and a plain call of one script give the same text; a
    string ``content`` is the text itself. Any other part (a refusal, which pydantic-ai has no
    part for) is refused: left out, it would vanish unnoticed.
    """
    content: object = item.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        raise _unreadable_message(call_index, index, f"its content is a {type(content).__name__}")
    texts: list[str] = []
    for position, entry in enumerate(cast("Sequence[object]", content)):
        part: Mapping[str, Any] = _mapping(entry) if isinstance(entry, Mapping) else {}
        kind = part.get("type")
        if kind != "output_text" or not isinstance(part.get("text"), str):
            what = f"a {kind!r} part" if isinstance(kind, str) else "a part without a type"
            raise _unreadable_message(
                call_index, index, f"content part #{position + 1} is {what} or lacks its text"
            )
        texts.append(part["text"])
    return "".join(texts)


def _unreadable_message(
    call_index: int, index: int, problem: str
) -> InvalidScriptedModelOutputError:
    return InvalidScriptedModelOutputError(
        call_index,
        index,
        "message",
        f"{problem}; an assistant message's content for pydantic-ai is a string or a list of "
        '{"type": "output_text", "text": ...} parts (pydantic-ai has no part for a refusal).',
        _FRAMEWORK,
    )


def _arguments(item: Mapping[str, Any]) -> str:
    arguments = item.get("arguments")
    if isinstance(arguments, str):
        return arguments
    # A hand-written item may hold a dict: write it the way function_call() would.
    return function_call("", arguments, call_id="")["arguments"] if arguments is not None else ""


def _request_usage(
    input_tokens: int | None,
    output_tokens: int | None,
    input_details: Mapping[str, Any] | Iterable[Mapping[str, Any]] | None,
    output_details: Mapping[str, Any] | Iterable[Mapping[str, Any]] | None,
) -> RequestUsage:
    details = _summed_details(input_details)
    # OpenAI's cached_tokens is pydantic-ai's cache_read_tokens; every other integer detail
    # (reasoning_tokens, ...) goes in RequestUsage.details as the OpenAI models put it there.
    cached = details.pop("cached_tokens", 0)
    for key, value in _summed_details(output_details).items():
        details[key] = details.get(key, 0) + value
    return RequestUsage(
        input_tokens=input_tokens or 0,
        output_tokens=output_tokens or 0,
        cache_read_tokens=cached,
        details=details,
    )


def _summed_details(
    entries: Mapping[str, Any] | Iterable[Mapping[str, Any]] | None,
) -> dict[str, int]:
    # The core keeps one details mapping per request; pydantic-ai wants their sum. A
    # hand-written response_done may hold a single mapping, as Usage() accepts.
    if isinstance(entries, Mapping):
        entries = [cast("Mapping[str, Any]", entries)]
    summed: dict[str, int] = {}
    for entry in entries or ():
        for key, value in entry.items():
            if isinstance(value, int) and not isinstance(value, bool):
                summed[key] = summed.get(key, 0) + value
    return summed


def _provider_details(provider_data: Any) -> dict[str, Any] | None:
    if isinstance(provider_data, Mapping):
        return dict(cast("Mapping[str, Any]", provider_data))
    return None


def _item_id(item: Any) -> Any:
    return _mapping(item).get("id") if isinstance(item, Mapping) else None


def _kind(item: Any) -> Any:
    return _mapping(item).get("type") if isinstance(item, Mapping) else None


def _mapping(item: Any) -> Mapping[str, Any]:
    return cast("Mapping[str, Any]", item)


# -- streaming --------------------------------------------------------------------------


@dataclass
class _ScriptedStreamedResponse(StreamedResponse):
    """A pydantic-ai stream fed by one core stream."""

    _source: AsyncIterator[Any] = field(repr=False)
    _model: ScriptedModel | None = field(default=None, repr=False)
    _call_index: int = 0
    _timestamp: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    _sent_text: bool = field(default=False, init=False)
    _sent_tool_calls: bool = field(default=False, init=False)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        position = 0
        async for event in self._source:
            try:
                translated = list(self._translate(event, position))
            except (InvalidScriptedModelStepError, InvalidScriptedModelOutputError) as error:
                raise self._recorded(error) from None
            except (KeyError, TypeError) as error:
                problem = f"it cannot be read ({type(error).__name__}: {error})"
                raise self._recorded(self._invalid(position, problem)) from error
            for pydantic_event in translated:
                yield pydantic_event
            position += 1

    def _recorded(
        self, error: InvalidScriptedModelStepError | InvalidScriptedModelOutputError
    ) -> InvalidScriptedModelStepError | InvalidScriptedModelOutputError:
        # pydantic-ai may wrap it: assert_complete() must still report the broken script.
        if self._model is None:
            return error
        return self._model.record_violation(error)

    def _invalid(self, position: int, problem: str) -> InvalidScriptedModelStepError:
        return InvalidScriptedModelStepError(
            "invalid_stream_event",
            call_index=self._call_index,
            detail=f"stream event #{position + 1} (event_index={position}): {problem}",
        )

    def _translate(self, event: Any, position: int) -> Iterator[ModelResponseStreamEvent]:
        kind = _kind(event)
        payload = _mapping(event)
        if kind == "response_started":
            return
        if kind == "output_text_delta":
            self._sent_text = True
            yield from self._text(payload.get("item_id"), str(payload["delta"]))
        elif kind == "response_done":
            yield from self._done(payload["response"], position)
        elif kind == "model":
            yield from self._raw(payload["event"], position)
        else:
            what = f"its type {kind!r}" if isinstance(event, Mapping) else type(event).__name__
            raise self._invalid(
                position,
                f"the pydantic-ai adapter cannot stream {what}; script output_text_delta or "
                'response_done events, or {"type": "model", "event": <pydantic-ai response part>}.',
            )

    def _text(self, vendor_part_id: Any, content: str) -> Iterator[ModelResponseStreamEvent]:
        # Before pydantic-ai 1.30 this returns one event or None; later versions yield events.
        result: Any = self._parts_manager.handle_text_delta(
            vendor_part_id=vendor_part_id, content=content
        )
        if result is None:
            return
        if isinstance(result, Iterator):
            yield from cast("Iterator[ModelResponseStreamEvent]", result)
        else:
            yield cast("ModelResponseStreamEvent", result)

    def _done(self, scripted: object, position: int) -> Iterator[ModelResponseStreamEvent]:
        try:
            response = _done_response(scripted)
        except TypeError as error:
            # Read as empty, it would end the response without the scripted reply.
            raise self._invalid(position, str(error)) from error
        items: list[Any] = list(response["output"])
        # The parts a plain call of this response would get: an item without one is refused
        # with the same error, and pydantic-ai's own parts are not dropped.
        parts = [
            (item, part)
            for index, item in enumerate(items)
            for part in _response_parts(item, self._call_index, index)
        ]
        # response_done fills in only what the stream did not carry already: text deltas (or
        # raw text parts) are the text, and raw tool-call parts are the tool calls.
        text_streamed, calls_streamed = self._sent_text, self._sent_tool_calls
        for item, part in parts:
            if isinstance(part, TextPart) and not text_streamed:
                self._sent_text = True
                # The message id keeps two scripted messages two text parts.
                yield from self._text(_item_id(item), part.content)
        for _, part in parts:
            if isinstance(part, TextPart) or (isinstance(part, ToolCallPart) and calls_streamed):
                continue
            yield from self._raw(part, position)
        usage: Mapping[str, Any] = response.get("usage") or {}
        self._usage = _request_usage(
            usage.get("input_tokens"),
            usage.get("output_tokens"),
            usage.get("input_tokens_details"),
            usage.get("output_tokens_details"),
        )
        self.provider_response_id = response.get("id")
        self.provider_details = _provider_details(response.get("provider_data"))
        self.finish_reason = _finish_reason(part for _, part in parts)

    def _raw(self, part: Any, position: int) -> Iterator[ModelResponseStreamEvent]:
        if isinstance(part, TextPart):
            self._sent_text = True
            yield from self._text(None, part.content)
            return
        if isinstance(part, ToolCallPart):
            self._sent_tool_calls = True
            yield self._parts_manager.handle_tool_call_part(
                vendor_part_id=None,
                tool_name=part.tool_name,
                args=part.args,
                tool_call_id=part.tool_call_id,
            )
            return
        if not isinstance(getattr(part, "part_kind", None), str):
            raise self._invalid(
                position,
                "a model event for the pydantic-ai adapter carries a pydantic-ai response part "
                f"(TextPart, ToolCallPart, ThinkingPart, ...), got {type(part).__name__}.",
            )
        yield self._parts_manager.handle_part(vendor_part_id=None, part=part)

    async def close_stream(self) -> None:
        """Close the scripted source; pydantic-ai calls this when a stream is cancelled."""
        await _close(self._source, None)

    @property
    def model_name(self) -> str:
        """Return the name the streamed response carries as ``model_name``."""
        return _MODEL_NAME

    @property
    def provider_name(self) -> str | None:
        """Return no provider name: nothing was sent to a provider."""
        return None

    @property
    def provider_url(self) -> str | None:
        """Return no provider URL: nothing was sent to a provider."""
        return None

    @property
    def timestamp(self) -> datetime:
        """Return when the stream was opened."""
        return self._timestamp


async def _close(events: AsyncIterator[Any], failure: BaseException | None) -> None:
    # While ``failure`` propagates, a failing source close is noted on it, not raised.
    await close_source(getattr(events, "aclose", None), failure)
