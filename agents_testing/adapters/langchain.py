"""LangChain adapter: a ``BaseChatModel`` that answers from a ``ScriptedModel``.

``langchain_chat_model(model)`` plugs the core double into anything that takes a LangChain
chat model (a hand-written tool loop, LangGraph's prebuilt agent, ``langchain.agents``).
The core ``ScriptedModel`` stays the object the test inspects: every call is recorded there
as a ``ModelRequest`` of normalized items, and every scripted step is served from there.

Requests:

- Leading ``SystemMessage``\\ s become ``system_instructions`` (joined by a blank line); a
  system message later in the conversation stays in ``input`` as a ``system`` message item,
  where it was sent.
- ``HumanMessage`` -> ``{"type": "message", "role": "user", "content": ...}``; text stays a
  ``str``, a list of content blocks keeps its blocks (``text`` blocks become ``input_text``).
- ``AIMessage`` -> an assistant message item for its text, then one ``function_call`` item
  per tool call. LangChain keeps tool arguments as a parsed ``dict``, so ``arguments`` is
  that dict re-serialized as compact JSON, not the string the model originally sent.
- ``ToolMessage`` -> ``{"type": "function_call_output", "call_id", "output"}``.
- ``ChatMessage`` -> a message item with its own role.
- ``tools`` holds the OpenAI-format schemas from ``bind_tools``; ``model_settings`` holds the
  other bound or call keyword arguments (``tool_choice``, ``stop``, ...); ``extra["messages"]``
  holds the LangChain messages as they were sent.

Responses: assistant text becomes ``AIMessage.content`` (a ``refusal`` content part becomes a
standard refusal block; other parts are refused), ``function_call`` items become
``tool_calls`` (arguments parsed; unparseable ones become ``invalid_tool_calls``), ``Usage``
becomes ``usage_metadata`` and the response's ids go in ``response_metadata``. A ``reasoning``
item becomes LangChain's standard reasoning content blocks (``{"type": "reasoning",
"reasoning": text, "id": ...}``, one per summary or reasoning text part, the item's other
fields in the first block's ``extras``); ``content`` is then a list of reasoning and text
blocks in output order instead of a string. Any other output item (a shell call, a user
message, an object) is refused with ``InvalidScriptedModelOutputError``, streamed or not,
rather than dropped. Streams become ``AIMessageChunk``\\ s: one chunk of reasoning blocks per
reasoning item (in a response step's stream, before the text it precedes), text deltas, one
``tool_call_chunks`` entry per call (with the exact argument string) and a last chunk with
usage and ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import marshal
import operator
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, cast

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForLLMRun,
        CallbackManagerForLLMRun,
    )
    from langchain_core.language_models import (
        BaseChatModel,
        LangSmithParams,
        LanguageModelInput,
    )
    from langchain_core.messages import (
        AIMessage,
        AIMessageChunk,
        BaseMessage,
        ChatMessage,
        HumanMessage,
        InvalidToolCall,
        SystemMessage,
        ToolCall,
        ToolCallChunk,
        ToolMessage,
    )
    from langchain_core.messages.ai import UsageMetadata
    from langchain_core.messages.tool import invalid_tool_call, tool_call, tool_call_chunk
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
    from langchain_core.runnables import Runnable
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError as _missing:  # the import tests hide the framework to reach this
    # Loaded only here: a successful import of the adapter does not need it.
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.langchain",
        requirement="langchain-core>=0.3",
        extra="langchain",
    ) from _missing

from .. import _lazy
from .._closing import close_source, in_flight
from .._records import stored_value
from .._snapshot import snapshot
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
    # Only an annotation here: langchain_core.tools' base module is not otherwise loaded
    # with the chat model classes, and importing it is most of what this module added.
    from langchain_core.tools import BaseTool

if TYPE_CHECKING:
    from ._langchain_recording import RecordingChatModel as RecordingChatModel
    from ._langchain_recording import (
        recording_langchain_chat_model as recording_langchain_chat_model,
    )
    from ._langchain_trace import (
        LANGCHAIN_VOLATILE_ATTRIBUTES as LANGCHAIN_VOLATILE_ATTRIBUTES,
    )
    from ._langchain_trace import LangChainRunCapture as LangChainRunCapture
    from ._langchain_trace import capture_langchain_runs as capture_langchain_runs

# The run capture and the recording wrapper load on first use: a test of a chat model (or
# one that only replays) pays nothing for them.
_LAZY_MODULES: dict[str, str] = {
    "LANGCHAIN_VOLATILE_ATTRIBUTES": "_langchain_trace",
    "LangChainRunCapture": "_langchain_trace",
    "capture_langchain_runs": "_langchain_trace",
    "RecordingChatModel": "_langchain_recording",
    "recording_langchain_chat_model": "_langchain_recording",
}
__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = _lazy.lazy_names(globals(), _LAZY_MODULES)

__all__ = [
    "LANGCHAIN_VOLATILE_ATTRIBUTES",
    "LangChainRunCapture",
    "RecordingChatModel",
    "ScriptedChatModel",
    "capture_langchain_runs",
    "langchain_chat_model",
    "recording_langchain_chat_model",
]

_T = TypeVar("_T")

# OpenAI-style detail names in the core's usage -> LangChain's standard detail names.
_INPUT_DETAIL_NAMES = {"cached_tokens": "cache_read"}
_OUTPUT_DETAIL_NAMES = {"reasoning_tokens": "reasoning"}


def langchain_chat_model(model: ScriptedModel) -> ScriptedChatModel:
    """Return a LangChain chat model that records into and answers from ``model``."""
    if not isinstance(model, ScriptedModel):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"langchain_chat_model expects a ScriptedModel, got {type(model).__name__}."
        )
    return ScriptedChatModel(scripted_model=model)


# defer_build: the validation schema is built on first use rather than at import (most of the
# module's import cost, paid by every test module that imports the adapter). Given as a class
# argument, not a model_config attribute, whose type a checker without pydantic cannot know.
class ScriptedChatModel(BaseChatModel, defer_build=True):
    """A LangChain chat model backed by a core ``ScriptedModel``.

    Build it with ``langchain_chat_model``. ``invoke``/``ainvoke``/``batch`` are
    non-streamed calls of the core model; ``stream``/``astream`` (and runs that stream
    tokens, such as LangGraph's ``stream_mode="messages"``) are streamed calls.
    """

    scripted_model: ScriptedModel
    """The core double every call records into and takes its step from."""

    @functools.cached_property
    def _state(self) -> _ChatState:
        # Cached in the instance's __dict__, as BaseChatModel caches _serialized: read on every
        # call, where a pydantic private attribute costs two failed lookups per read.
        return _ChatState()

    @property
    def _llm_type(self) -> str:
        return "agents-testing-scripted"

    def _get_invocation_params(
        self, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Return the parameters LangChain reports to callbacks for a call."""
        # What the base class returns, without its detour through the deprecated dict(), whose
        # warning suppression costs more than the rest of this on every call.
        return {**self._identifying_params, "_type": self._llm_type, "stop": stop, **kwargs}

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        """Return the tracing parameters LangChain adds to every call's metadata."""
        # LangChain asks subclasses to override this: its fallback derives a provider from the
        # class name and probes for model, temperature and max_tokens attributes, which this
        # model does not have (each probe a failed pydantic lookup, on every call). Only the
        # call's own keyword arguments can name them here, as the fallback reads them.
        params = LangSmithParams(ls_provider="agents_testing", ls_model_type="chat")
        if stop:
            params["ls_stop"] = stop
        if isinstance(model_name := kwargs.get("model"), str):
            params["ls_model_name"] = model_name
        if isinstance(temperature := kwargs.get("temperature"), (int, float)):
            params["ls_temperature"] = temperature
        if isinstance(max_tokens := kwargs.get("max_tokens"), int):
            params["ls_max_tokens"] = max_tokens
        return params

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> ScriptedChatModel:
        # A copied chat model must keep recording into the core object the test inspects.
        memo = {} if memo is None else memo
        memo[id(self.scripted_model)] = self.scripted_model
        # The copy starts without history: it would only hold copies of the messages, which
        # no later call sends again.
        memo[id(self._state)] = _ChatState()
        return super().__deepcopy__(memo)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as OpenAI-format schemas; each call records them in ``request.tools``."""
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Serve a sync non-streamed call: run the core call to completion in this thread."""
        model = self.scripted_model
        # The same halves get_response() runs, minus the event loop: a loop is needed only
        # when a responder returned an awaitable, which is rare and then awaited on our own.
        request, conversion = self._request(messages, stop, kwargs)
        begin = model._begin_response  # pyright: ignore[reportPrivateUsage]
        index, recorded, result, responded = begin(request)
        self._remember(conversion, recorded)
        if responded and inspect.isawaitable(result):
            with _SyncRunner() as runner:
                result = runner.run(_awaited(result))
        end = model._end_response  # pyright: ignore[reportPrivateUsage]
        return self._chat_result(end(request, index, recorded, result, responded=responded), index)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Serve an async non-streamed call."""
        request, conversion = self._request(messages, stop, kwargs)
        respond = self.scripted_model._respond  # pyright: ignore[reportPrivateUsage]
        index, response = await respond(request, functools.partial(self._remember, conversion))
        return self._chat_result(response, index)

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: Mapping[str, Any]
    ) -> tuple[ModelRequest, _Conversion]:
        """Build the core request, converting only what the last call did not send."""
        settings = dict(kwargs)
        tools = list(settings.pop("tools", None) or ())
        if stop is not None:
            settings["stop"] = stop
        conversion = _convert(messages, tools, self._state.history, self.scripted_model)
        system = conversion.system
        request = ModelRequest(
            input=conversion.items,
            system_instructions="\n\n".join(system) if system else None,
            model_settings=settings,
            tools=conversion.tools,
            extra={"messages": list(messages)},
        )
        return request, conversion

    def _remember(self, conversion: _Conversion, recorded: ModelRequest) -> None:
        """Keep ``conversion`` for the next call, with what the core recorded for it."""
        items, tools = recorded.input, recorded.tools
        if (
            isinstance(items, list)
            and len(items) == len(conversion.items)
            and isinstance(tools, list)
        ):
            conversion.recorded = items
            conversion.recorded_tools = tools
            self._state.history = conversion

    def _remember_stream(self, conversion: _Conversion, call_index: int) -> None:
        read = self.scripted_model._read_call  # pyright: ignore[reportPrivateUsage]
        self._remember(conversion, stored_value(read(call_index), "request"))

    def _chat_result(self, response: ModelResponse, call_index: int) -> ChatResult:
        try:
            return _chat_result(response, call_index)
        except InvalidScriptedModelOutputError as error:
            # LangGraph may catch it: assert_complete() must still report the broken script.
            raise self.scripted_model.record_violation(error) from None

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Serve a sync streamed call, reading the core stream one event at a time."""
        request, conversion = self._request(messages, stop, kwargs)
        events = self.scripted_model.stream_response(request)
        self._remember_stream(conversion, events.call_index)
        chunks = _ChunkTranslator(self.scripted_model, events.call_index)
        failure: BaseException | None = None
        # Only a step that may wait (a scripted source, a responder) needs an event loop.
        ready = events.step_type in _READY_STEPS
        with _ReadyRunner() if ready else _SyncRunner() as runner:
            try:
                if events.automatic:
                    # The core has the whole response already: read it first, so reasoning
                    # that precedes the text streams before it, as a plain call orders it.
                    buffered = runner.run(_all_events(events))
                    yield from chunks.lead(buffered)
                    for event in buffered:
                        yield from chunks.translate(event)
                    return
                while True:
                    try:
                        event = runner.run(_next_event(events))
                    except StopAsyncIteration:
                        return
                    yield from chunks.translate(event)
            except BaseException as error:
                failure = in_flight(error)
                raise
            finally:
                # Runs on an early exit too, so the scripted source is closed on our loop.
                runner.run(_close(events, failure))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """Serve an async streamed call."""
        request, conversion = self._request(messages, stop, kwargs)
        events = self.scripted_model.stream_response(request)
        self._remember_stream(conversion, events.call_index)
        chunks = _ChunkTranslator(self.scripted_model, events.call_index)
        failure: BaseException | None = None
        try:
            if events.automatic:
                # As in _stream: reasoning that precedes the text streams before it.
                buffered = await _all_events(events)
                for chunk in chunks.lead(buffered):
                    yield chunk
                for event in buffered:
                    for chunk in chunks.translate(event):
                        yield chunk
                return
            async for event in events:
                for chunk in chunks.translate(event):
                    yield chunk
        except BaseException as error:
            failure = in_flight(error)
            raise
        finally:
            await _close(events, failure)


# -- requests ---------------------------------------------------------------------------


class _ChatState:
    """What one chat model keeps between its calls."""

    __slots__ = ("history",)

    def __init__(self) -> None:
        self.history: _Conversion | None = None
        """The last recorded call's conversion, whose unchanged messages the next call reuses."""


class _Conversion:
    """One call's messages as the core's items, kept so the next call converts only new ones.

    Agents send the same message objects again on every call, plus a few new ones. For the
    first ``len(fingerprints)`` messages, ``fingerprints`` holds ``marshal`` bytes of what
    conversion read from each: marshal writes exact types, values and key order, so a
    message that is the same object with the same class and bytes converts to equal items,
    and the next call takes them from ``recorded`` (the items the core recorded for this
    call). Being the record's own objects, the core also shares them by identity instead of
    comparing their contents again. The bound tools are reused the same way, as a whole.
    """

    __slots__ = (
        "ends",
        "fingerprints",
        "items",
        "messages",
        "model",
        "recorded",
        "recorded_tools",
        "system",
        "tools",
        "tools_fingerprint",
        "types",
    )

    def __init__(self, model: ScriptedModel, messages: list[BaseMessage]) -> None:
        self.model = model
        self.messages = messages
        self.tools: list[Any] = []
        self.tools_fingerprint: bytes | None = None
        self.recorded_tools: list[Any] | None = None
        self.items: list[Any] = []
        self.system: list[str] = []  # the texts of the leading system messages
        self.ends: list[int] = []  # len(items) after each message
        self.types: list[type] = []
        self.fingerprints: list[bytes] = []
        self.recorded: list[Any] | None = None


def _convert(
    messages: list[BaseMessage],
    tools: list[Any],
    before: _Conversion | None,
    model: ScriptedModel,
) -> _Conversion:
    conversion = _Conversion(model, list(messages))
    conversion.tools = tools
    with contextlib.suppress(ValueError):
        # The current marshal format also writes which objects are shared, as a snapshot
        # keeps them.
        conversion.tools_fingerprint = marshal.dumps(tools)
    reused = 0
    if before is not None and before.recorded is not None and before.model is model:
        if (
            conversion.tools_fingerprint is not None
            and conversion.tools_fingerprint == before.tools_fingerprint
            and before.recorded_tools is not None
        ):
            conversion.tools = before.recorded_tools
        reused = _reusable(messages, before)
        if reused:
            conversion.items = before.recorded[: before.ends[reused - 1]]
            conversion.system = before.system[:reused]
            conversion.ends = before.ends[:reused]
            conversion.types = before.types[:reused]
            conversion.fingerprints = before.fingerprints[:reused]
    items, ends = conversion.items, conversion.ends
    for message in messages[reused:]:
        if isinstance(message, SystemMessage) and not items:
            conversion.system.append(_text(message.content))
        else:
            items.extend(_input_items(message))
        ends.append(len(items))
    fresh = messages[reused:]
    for message, read in zip(fresh, map(_SOURCES.__getitem__, map(type, fresh)), strict=True):
        try:
            fingerprint = marshal.dumps(read(message), 0)
        except ValueError:
            break  # not plain data (an object kept by identity): convert it on every call
        conversion.types.append(type(message))
        conversion.fingerprints.append(fingerprint)
    return conversion


def _reusable(messages: list[BaseMessage], before: _Conversion) -> int:
    """Return how many leading messages convert exactly as they did in ``before``."""
    count = min(len(messages), len(before.fingerprints))
    same = list(map(operator.is_, messages[:count], before.messages))
    if False in same:
        count = same.index(False)
    kept = messages[:count]
    types = list(map(type, kept))
    if types != before.types[:count]:
        return 0
    sources = [
        read(message) for read, message in zip(map(_SOURCES.__getitem__, types), kept, strict=True)
    ]
    try:
        # One dump of them all: version 0 writes a list as a 5-byte header and then each
        # element exactly as dumping it alone does, at a third less than one dump each.
        if marshal.dumps(sources, 0)[5:] == b"".join(before.fingerprints[:count]):
            return count
    except ValueError:
        pass
    return 0  # changed in place: rare enough to convert everything again


class _Sources(dict[type, Callable[[BaseMessage], Any]]):
    """Message class -> a getter of everything ``_input_items`` reads from such a message."""

    def __missing__(self, kind: type) -> Callable[[BaseMessage], Any]:
        # Every field any of the message kinds it is reads: the class alone decides that.
        fields = ["content"]
        if issubclass(kind, AIMessage):
            fields += ["tool_calls", "invalid_tool_calls"]
        if issubclass(kind, ToolMessage):
            fields.append("tool_call_id")
        if issubclass(kind, ChatMessage):
            fields.append("role")
        read = operator.attrgetter(*fields)
        self[kind] = read
        return read


_SOURCES = _Sources()


def _input_items(message: BaseMessage) -> list[Any]:
    # Content kept as it is, is copied: the items must depend on the message's values only
    # (not on which objects it shares), so that a reused conversion equals a fresh one.
    if isinstance(message, HumanMessage):
        return [{"type": "message", "role": "user", "content": _user_content(message.content)}]
    if isinstance(message, AIMessage):
        return _assistant_items(message)
    if isinstance(message, ToolMessage):
        return [
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": snapshot(message.content),
            }
        ]
    if isinstance(message, SystemMessage):
        return [{"type": "message", "role": "system", "content": _text(message.content)}]
    if isinstance(message, ChatMessage):
        return [{"type": "message", "role": message.role, "content": snapshot(message.content)}]
    raise TypeError(
        f"the LangChain adapter cannot record a {type(message).__name__}; send "
        "SystemMessage, HumanMessage, AIMessage, ToolMessage or ChatMessage."
    )


def _assistant_items(message: AIMessage) -> list[Any]:
    items: list[Any] = _reasoning_items(message.content)
    text = _text(message.content)
    if text:
        items.append(assistant_message(text))
    for call in message.tool_calls:
        # LangChain only keeps the parsed dict; function_call writes it as compact JSON.
        items.append(function_call(call["name"], call["args"], call_id=call["id"] or ""))
    for invalid in message.invalid_tool_calls:
        # An unparseable call still has its original argument string: keep it verbatim.
        items.append(
            function_call(invalid["name"] or "", invalid["args"] or "", call_id=invalid["id"] or "")
        )
    return items


def _reasoning_items(content: str | list[str | dict[Any, Any]]) -> list[Any]:
    """Return the reasoning blocks of an ``AIMessage``'s content as ``reasoning`` items.

    The reverse of what a response's reasoning item becomes, so an agent that sends the
    message back records the reasoning it was given: consecutive standard blocks with the
    same ``id`` make one item, their texts its summary parts, the first block's ``extras``
    its other fields. A block already shaped as a Responses item (with a ``summary``) is
    copied as it is.
    """
    if isinstance(content, str):
        return []
    items: list[dict[str, Any]] = []
    joined: object = None  # the id of the last item made from standard blocks, if any
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "reasoning":
            joined = None
            continue
        if "summary" in block:
            items.append(snapshot(block))
            joined = None
            continue
        block_id = block.get("id")
        if not (items and joined is not None and block_id == joined):
            item: dict[str, Any] = {"type": "reasoning"}
            if block_id is not None:
                item["id"] = block_id
            item["summary"] = []
            extras: object = block.get("extras")
            if isinstance(extras, dict):
                # Never over the fields the item is made of (a hand-built block may hold any).
                fields = snapshot(cast("dict[str, Any]", extras))
                item.update((key, value) for key, value in fields.items() if key not in item)
            items.append(item)
            joined = block_id if block_id is not None else None
        text = block.get("reasoning")
        if isinstance(text, str):
            items[-1]["summary"].append({"type": "summary_text", "text": text})
    return items


def _user_content(content: str | list[str | dict[Any, Any]]) -> Any:
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for block in content:
        if isinstance(block, str):
            parts.append({"type": "input_text", "text": block})
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append({"type": "input_text", "text": block["text"]})
        else:
            parts.append(snapshot(block))
    return parts


def _text(content: str | list[str | dict[Any, Any]]) -> str:
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
    return "".join(texts)


# -- responses --------------------------------------------------------------------------


def _chat_result(response: ModelResponse, call_index: int) -> ChatResult:
    pieces: list[str | dict[str, Any]] = []  # texts and reasoning blocks, in output order
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for index, entry in enumerate(response.output):
        item = _output_item(entry, call_index, index)
        if _is_assistant_message(item):
            pieces.extend(_message_pieces(item, call_index, index))
        elif item.get("type") == "reasoning":
            pieces.extend(_reasoning_blocks(item, call_index, index))
        else:  # a function_call: _output_item refused anything else
            name, call_id = str(item.get("name") or ""), item.get("call_id")
            arguments = _arguments(item)
            args, problem = _parsed_arguments(arguments)
            if args is None:
                invalid.append(
                    invalid_tool_call(name=name, args=arguments, id=call_id, error=problem)
                )
            else:
                calls.append(tool_call(name=name, args=args, id=call_id))
    fields: dict[str, Any] = {
        "usage_metadata": _usage_metadata(
            response.usage.input_tokens,
            response.usage.output_tokens,
            response.usage.total_tokens,
            response.usage.input_tokens_details,
            response.usage.output_tokens_details,
        )
    }
    # Empty lists and mappings are the defaults: validating them again costs a third of
    # building the message.
    if calls:
        fields["tool_calls"] = calls
    if invalid:
        fields["invalid_tool_calls"] = invalid
    if metadata := _response_metadata(response.response_id, response.request_id):
        fields["response_metadata"] = metadata
    message = AIMessage(content=_content(pieces), **fields)
    return ChatResult(generations=[ChatGeneration(message=message)])


def _content(pieces: Sequence[str | dict[str, Any]]) -> str | list[str | dict[str, Any]]:
    """Return texts as one string, or with reasoning as standard blocks in their order."""
    if all(isinstance(piece, str) for piece in pieces):
        return "".join(cast("Sequence[str]", pieces))
    blocks: list[str | dict[str, Any]] = []
    text: list[str] = []
    for piece in [*pieces, None]:
        if isinstance(piece, str):
            text.append(piece)
            continue
        if "".join(text):
            blocks.append({"type": "text", "text": "".join(text)})
        text = []
        if piece is not None:
            blocks.append(piece)
    return blocks


# A reasoning item's text parts, as the Responses API writes them: the summary, then the raw
# reasoning text.
_REASONING_PARTS = (("summary", "summary_text"), ("content", "reasoning_text"))


def _reasoning_blocks(item: Mapping[str, Any], call_index: int, index: int) -> list[dict[str, Any]]:
    """Return a ``reasoning`` item as LangChain's standard reasoning content blocks.

    One block per text part, each carrying the item's ``id``; the item's other fields (its
    encrypted content, status, provider data) go in the first block's ``extras``, so nothing
    scripted is left out. An item without text is one block without ``reasoning``.
    """
    texts: list[str] = []
    for key, part_type in _REASONING_PARTS:
        parts: object = item.get(key)
        if parts is None:
            continue
        listed = cast("Sequence[object]", parts) if isinstance(parts, (list, tuple)) else None
        if listed is None or not all(_is_text_part(part, part_type) for part in listed):
            raise InvalidScriptedModelOutputError(
                call_index,
                index,
                "reasoning",
                f'its "{key}" must be a list of {{"type": "{part_type}", "text": ...}} parts '
                "with string texts, which become LangChain reasoning blocks.",
                "LangChain",
            )
        texts.extend(cast("Mapping[str, str]", part)["text"] for part in listed)
    block: dict[str, Any] = {"type": "reasoning"}
    item_id = item.get("id")
    if isinstance(item_id, str):
        block["id"] = item_id
    blocks = [{**block, "reasoning": text} for text in texts] or [block]
    extras = {
        key: snapshot(value)
        for key, value in item.items()
        if key not in ("type", "summary", "content") and not (key == "id" and "id" in block)
    }
    if extras:
        blocks[0]["extras"] = extras
    return blocks


def _is_text_part(part: object, part_type: str) -> bool:
    if not isinstance(part, Mapping):
        return False
    fields = cast("Mapping[str, Any]", part)
    return fields.get("type") == part_type and isinstance(fields.get("text"), str)


def _output_item(entry: object, call_index: int, index: int) -> Mapping[str, Any]:
    """Return ``entry`` as an item an ``AIMessage`` can carry, or refuse it.

    An item dropped silently would hide a script written for another framework (a shell
    call item, a LangChain message): the test would pass without what it scripted.
    """
    if not isinstance(entry, Mapping):
        raise InvalidScriptedModelOutputError(
            call_index,
            index,
            type(entry).__name__,
            "the LangChain adapter reads normalized items (mappings) only; script "
            "assistant_message() or function_call() items.",
            "LangChain",
        )
    item = cast("Mapping[str, Any]", entry)
    kind: object = item.get("type")
    if kind in ("function_call", "reasoning") or _is_assistant_message(item):
        return item
    what = f"a {item.get('role')!r} message" if kind == "message" else "such an item"
    raise InvalidScriptedModelOutputError(
        call_index,
        index,
        kind if isinstance(kind, str) else None,
        f"an AIMessage has no place for {what}; script assistant_message() items for its "
        "text, function_call() items for its tool calls and reasoning items for its "
        "reasoning blocks.",
        "LangChain",
    )


def _parsed_arguments(arguments: str) -> tuple[dict[str, Any] | None, str | None]:
    """Return the parsed arguments, or ``None`` and why they are not a JSON object."""
    try:
        # An empty string means "no arguments", as LangChain's chunk parser reads it.
        args: Any = json.loads(arguments) if arguments else {}
    except ValueError as error:
        return None, str(error)
    if not isinstance(args, dict):
        return None, "arguments are not a JSON object"
    return cast("dict[str, Any]", args), None


def _arguments(item: Mapping[str, Any]) -> str:
    arguments = item.get("arguments")
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    # A hand-written item may hold a dict: write it the way function_call() does.
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def _usage_metadata(
    input_tokens: int,
    output_tokens: int,
    total_tokens: int | None,
    input_details: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
    output_details: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None,
) -> UsageMetadata:
    usage: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens if total_tokens is None else total_tokens,
    }
    if details := _token_details(input_details, _INPUT_DETAIL_NAMES):
        usage["input_token_details"] = details
    if details := _token_details(output_details, _OUTPUT_DETAIL_NAMES):
        usage["output_token_details"] = details
    return cast("UsageMetadata", usage)


def _token_details(
    entries: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None, names: Mapping[str, str]
) -> dict[str, int]:
    # The core keeps one details mapping per request; LangChain wants their sum. A
    # hand-written response_done may hold a single mapping, as Usage() accepts.
    if isinstance(entries, Mapping):
        entries = [entries]
    details: dict[str, int] = {}
    for entry in entries or ():
        for key, value in entry.items():
            if isinstance(value, int) and not isinstance(value, bool):
                name = names.get(key, key)
                details[name] = details.get(name, 0) + value
    return details


def _response_metadata(response_id: str | None, request_id: str | None) -> dict[str, Any]:
    # The message id is left to LangChain: LangGraph merges messages by id, and two scripted
    # responses may share a response_id (two models, or a reused ModelResponse).
    metadata: dict[str, Any] = {}
    if response_id is not None:
        metadata["response_id"] = response_id
    if request_id is not None:
        metadata["request_id"] = request_id
    return metadata


def _is_assistant_message(item: Mapping[str, Any]) -> bool:
    return item.get("type") == "message" and item.get("role") == "assistant"


def _message_pieces(
    item: Mapping[str, Any], call_index: int, index: int
) -> list[str | dict[str, Any]]:
    """Return an assistant message's texts, and its refusals as standard refusal blocks.

    ``output_text`` parts are the texts the core's automatic stream sends as deltas, so a
    streamed and a plain call of one script give the same text; a string ``content`` is the
    text itself. A part of any other kind is refused: left out, it would vanish unnoticed.
    """
    content: object = item.get("content")
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if not isinstance(content, (list, tuple)):
        raise _unreadable_message(call_index, index, f"its content is a {type(content).__name__}")
    pieces: list[str | dict[str, Any]] = []
    for position, entry in enumerate(cast("Sequence[object]", content)):
        part: Mapping[str, Any] = (
            cast("Mapping[str, Any]", entry) if isinstance(entry, Mapping) else {}
        )
        kind = part.get("type")
        if kind == "output_text" and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            pieces.append({"type": "refusal", "refusal": part["refusal"]})
        else:
            what = f"a {kind!r} part" if isinstance(kind, str) else "a part without a type"
            raise _unreadable_message(
                call_index, index, f"content part #{position + 1} is {what} or lacks its text"
            )
    return pieces


def _unreadable_message(
    call_index: int, index: int, problem: str
) -> InvalidScriptedModelOutputError:
    return InvalidScriptedModelOutputError(
        call_index,
        index,
        "message",
        f"{problem}; an assistant message's content is a string or a list of "
        '{"type": "output_text", "text": ...} and {"type": "refusal", "refusal": ...} parts.',
        "LangChain",
    )


# -- streaming --------------------------------------------------------------------------


class _ChunkTranslator:
    """Turn one call's core stream events into LangChain generation chunks."""

    def __init__(self, model: ScriptedModel, call_index: int) -> None:
        self._model = model
        self._call_index = call_index
        self._position = 0
        self._sent_text = False
        self._sent_tool_calls = 0
        self._led: set[int] = set()  # output indexes of reasoning items lead() streamed

    def lead(self, events: Sequence[Any]) -> list[ChatGenerationChunk]:
        """Return the chunks of the reasoning that precedes the text of a read-ahead stream.

        ``events`` are a response step's whole stream; its ``response_done`` (always last)
        holds the output. Reasoning items before the first assistant message stream first,
        as a plain call puts them first; the rest stream with ``response_done``.
        """
        done: object = events[-1] if events else None
        if not isinstance(done, Mapping):
            return []
        try:
            response = _done_response(cast("Mapping[str, Any]", done).get("response"))
        except TypeError:
            return []  # translate() reports it when it reaches the event
        chunks: list[ChatGenerationChunk] = []
        try:
            for index, entry in enumerate(response["output"]):
                item = _output_item(entry, self._call_index, index)
                if _is_assistant_message(item):
                    break
                if item.get("type") == "reasoning":
                    chunks.append(self._reasoning(item, index))
                    self._led.add(index)
        except InvalidScriptedModelOutputError as error:
            # LangGraph may catch it: assert_complete() must still report the broken script.
            raise self._model.record_violation(error) from None
        return chunks

    def translate(self, event: Any) -> list[ChatGenerationChunk]:
        """Return the chunks for one stream event; record an event it cannot read."""
        position = self._position
        self._position += 1
        try:
            return list(self._translate(event))
        except InvalidScriptedModelOutputError as error:
            # LangGraph may catch it: assert_complete() must still report the broken script.
            raise self._model.record_violation(error) from None
        except (KeyError, TypeError, ValueError) as error:
            problem = f"it has no {error} key." if isinstance(error, KeyError) else str(error)
            invalid = InvalidScriptedModelStepError(
                "invalid_stream_event",
                call_index=self._call_index,
                detail=f"stream event #{position + 1} (event_index={position}): {problem}",
            )
            # LangGraph may catch it: assert_complete() must still report the broken script.
            raise self._model.record_violation(invalid) from error

    def _translate(self, event: Any) -> Iterator[ChatGenerationChunk]:
        fields: Mapping[str, Any] = event if isinstance(event, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
        kind = fields.get("type")
        if kind == "response_started":
            return
        if kind == "output_text_delta":
            self._sent_text = True
            yield _chunk(AIMessageChunk(content=str(fields["delta"])))
        elif kind == "response_done":
            yield from self._done(fields["response"])
        elif kind == "model":
            yield self._raw(fields["event"])
        else:
            # Name the event by its type only: some LangChain versions warn in a chunk's repr.
            what = (
                f"a {kind!r} event"
                if isinstance(event, Mapping)
                else f"a bare {type(event).__name__}"
            )
            raise TypeError(
                f"the LangChain adapter cannot stream {what}: script output_text_delta or "
                'response_done events, or {"type": "model", "event": <AIMessageChunk>}.'
            )

    def _raw(self, event: Any) -> ChatGenerationChunk:
        if isinstance(event, AIMessageChunk):
            event = _chunk(event)
        if not isinstance(event, ChatGenerationChunk):
            raise TypeError(
                "a model event for the LangChain adapter carries an AIMessageChunk or a "
                f"ChatGenerationChunk, got {type(event).__name__}."
            )
        self._sent_text = self._sent_text or bool(event.message.content)
        message = event.message
        if isinstance(message, AIMessageChunk):
            self._sent_tool_calls += len(message.tool_call_chunks)
        return event

    def _done(self, scripted: object) -> Iterator[ChatGenerationChunk]:
        # response_done fills in only what the stream did not carry already: text deltas
        # (or raw chunks) are the text, and raw tool-call chunks are the tool calls.
        response = _done_response(scripted)
        # Refused as a plain call refuses them; the reader let only a list or a tuple through.
        output = [
            _output_item(entry, self._call_index, index)
            for index, entry in enumerate(cast("Sequence[object]", response["output"]))
        ]
        # Reasoning not streamed yet, refusals (no delta carries one), and the text if no
        # delta carried it, in output order.
        send_text = not self._sent_text
        pieces: list[str | ChatGenerationChunk] = []
        for index, item in enumerate(output):
            if _is_assistant_message(item):
                for part in _message_pieces(item, self._call_index, index):
                    if not isinstance(part, str):
                        pieces.append(_chunk(AIMessageChunk(content=[part])))
                    elif send_text:
                        pieces.append(part)
            elif item.get("type") == "reasoning" and index not in self._led:
                pieces.append(self._reasoning(item, index))
        text: list[str] = []
        for pending in pieces:
            if isinstance(pending, str):
                text.append(pending)
                continue
            yield from self._text_chunk(text)
            text = []
            yield pending
        yield from self._text_chunk(text)
        if not self._sent_tool_calls:
            calls = [item for item in output if item.get("type") == "function_call"]
            for index, item in enumerate(calls):
                yield _chunk(
                    AIMessageChunk(content="", tool_call_chunks=[_call_chunk(item, index)])
                )
            self._sent_tool_calls = len(calls)
        usage: Mapping[str, Any] = response.get("usage") or {}
        yield _chunk(
            AIMessageChunk(
                content="",
                usage_metadata=_usage_metadata(
                    usage.get("input_tokens") or 0,
                    usage.get("output_tokens") or 0,
                    usage.get("total_tokens"),
                    usage.get("input_tokens_details"),
                    usage.get("output_tokens_details"),
                ),
                response_metadata=_response_metadata(
                    response.get("id"), response.get("request_id")
                ),
            )
        )

    def _text_chunk(self, text: list[str]) -> Iterator[ChatGenerationChunk]:
        if "".join(text):
            self._sent_text = True
            yield _chunk(AIMessageChunk(content="".join(text)))

    def _reasoning(self, item: Mapping[str, Any], index: int) -> ChatGenerationChunk:
        blocks = _reasoning_blocks(item, self._call_index, index)
        return _chunk(AIMessageChunk(content=cast("list[str | dict[Any, Any]]", blocks)))


def _call_chunk(item: Mapping[str, Any], index: int) -> ToolCallChunk:
    # The argument string goes out exactly as scripted; LangChain parses the aggregate.
    return tool_call_chunk(
        name=str(item.get("name") or ""),
        args=_arguments(item),
        id=item.get("call_id"),
        index=index,
    )


def _chunk(message: AIMessageChunk) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=message)


async def _next_event(events: AsyncIterator[Any]) -> Any:
    return await events.__anext__()


async def _all_events(events: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in events]


async def _close(events: AsyncIterator[Any], failure: BaseException | None) -> None:
    # While ``failure`` propagates, a failing source close is noted on it, not raised.
    await close_source(getattr(events, "aclose", None), failure)


# -- sync calls -------------------------------------------------------------------------

# Streamed steps the core serves without ever waiting: a scripted response or error.
_READY_STEPS = frozenset({"response", "error"})


class _ReadyRunner:
    """Run awaitables that finish without waiting, with no event loop at all."""

    def __enter__(self) -> _ReadyRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def run(self, awaitable: Awaitable[_T]) -> _T:
        """Run ``awaitable`` to completion and return its result."""
        coroutine = _awaited(awaitable)
        try:
            coroutine.send(None)
        except StopIteration as finished:
            return cast("_T", finished.value)
        coroutine.close()
        raise RuntimeError(
            "agents_testing's LangChain adapter expected a scripted step to finish without "
            "waiting; please report this as a bug."
        )


class _SyncRunner:
    """Run a synchronous LangChain call's awaitables on an event loop of its own.

    Sync ``invoke``/``stream``/``batch`` run in the caller's thread or in LangChain's worker
    threads, where no loop is running: a private loop per call runs the core there. When the
    calling thread already runs a loop (a sync call from async code), a thread cannot run a
    second one, so the private loop runs on a helper thread while the caller waits.
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        if _loop_is_running():
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="agents-testing-langchain", daemon=True
            )
            self._thread.start()

    def __enter__(self) -> _SyncRunner:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self.run(self._loop.shutdown_asyncgens())
        finally:
            if self._thread is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join()
            self._loop.close()

    def run(self, awaitable: Awaitable[_T]) -> _T:
        """Run ``awaitable`` to completion and return its result."""
        if self._thread is None:
            return self._loop.run_until_complete(awaitable)
        return asyncio.run_coroutine_threadsafe(_awaited(awaitable), self._loop).result()


async def _awaited(awaitable: Awaitable[_T]) -> _T:
    return await awaitable


def _loop_is_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
