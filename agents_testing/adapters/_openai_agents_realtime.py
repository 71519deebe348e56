"""Drive the real openai-agents ``RealtimeSession`` with a core ``ScriptedRealtimeTransport``.

``openai_agents_realtime_model(transport)`` returns an ``agents.realtime.RealtimeModel``; pass it
as ``RealtimeRunner(agent, model=...)`` and script the transport as usual (``expect_call``,
``emit``, ``run_scenario``, ``fail_next_call``, ``disconnect``). The adapter only translates.

How each SDK send event becomes a transport call, and each emitted event becomes the SDK's
model event(s), is documented for users in ``docs/realtime.md`` ("How the openai-agents
adapter maps events"); this module follows those tables.

A test waits for emitted events through the session's own event stream:
``await wait_for_session_event(session, "audio")`` consumes the session's events until an
``audio`` event arrives. It is this loop, plus a failure if the stream ends first::

    async for event in session:
        if event.type == "audio":
            break
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from typing import Any, Literal, cast, get_args, overload

try:
    from agents.realtime.events import (
        RealtimeAgentEndEvent,
        RealtimeAgentStartEvent,
        RealtimeAudio,
        RealtimeAudioEnd,
        RealtimeAudioInterrupted,
        RealtimeError,
        RealtimeGuardrailTripped,
        RealtimeHandoffEvent,
        RealtimeHistoryAdded,
        RealtimeHistoryUpdated,
        RealtimeInputAudioTimeoutTriggered,
        RealtimeRawModelEvent,
        RealtimeSessionEvent,
        RealtimeToolApprovalRequired,
        RealtimeToolEnd,
        RealtimeToolStart,
    )
    from agents.realtime.items import (
        AssistantMessageItem,
        RealtimeItem,
        RealtimeToolCallItem,
        SystemMessageItem,
        UserMessageItem,
    )
    from agents.realtime.model import RealtimeModel, RealtimeModelConfig, RealtimeModelListener
    from agents.realtime.model_events import (
        RealtimeConnectionStatus,
        RealtimeModelAudioDoneEvent,
        RealtimeModelAudioEvent,
        RealtimeModelAudioInterruptedEvent,
        RealtimeModelConnectionStatusEvent,
        RealtimeModelEndOfStreamEvent,
        RealtimeModelErrorEvent,
        RealtimeModelEvent,
        RealtimeModelExceptionEvent,
        RealtimeModelItemDeletedEvent,
        RealtimeModelItemUpdatedEvent,
        RealtimeModelToolCallEvent,
        RealtimeModelTranscriptDeltaEvent,
        RealtimeModelTurnEndedEvent,
        RealtimeModelTurnStartedEvent,
        RealtimeModelUsageEvent,
    )
    from agents.realtime.model_inputs import (
        RealtimeModelSendAudio,
        RealtimeModelSendEvent,
        RealtimeModelSendInterrupt,
        RealtimeModelSendRawMessage,
        RealtimeModelSendSessionUpdate,
        RealtimeModelSendToolOutput,
        RealtimeModelSendUserInput,
    )
    from agents.realtime.session import RealtimeSession
    from agents.usage import Usage
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

from ..errors import InvalidRealtimeEventError
from ..realtime import ScriptedRealtimeTransport

__all__ = ["openai_agents_realtime_model", "wait_for_session_event"]

_FRAMEWORK = "openai-agents"


def openai_agents_realtime_model(transport: ScriptedRealtimeTransport) -> RealtimeModel:
    """Return an ``agents.realtime.RealtimeModel`` whose wire is ``transport``.

    The SDK's send events become the transport's normalized calls and events emitted on the
    transport reach the model's listeners (the ``RealtimeSession``) in emit order; the module
    docstring has both mapping tables. Keep asserting on ``transport`` itself.
    """
    if not isinstance(transport, ScriptedRealtimeTransport):
        raise TypeError(
            "openai_agents_realtime_model() needs a ScriptedRealtimeTransport, got "
            f"{type(transport).__name__}."
        )
    return _TransportRealtimeModel(transport)


# One overload per event type, so the returned event is typed as the class of its type.
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["agent_start"],
    *,
    where: Callable[[RealtimeAgentStartEvent], object] | None = None,
) -> RealtimeAgentStartEvent: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["agent_end"],
    *,
    where: Callable[[RealtimeAgentEndEvent], object] | None = None,
) -> RealtimeAgentEndEvent: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["handoff"],
    *,
    where: Callable[[RealtimeHandoffEvent], object] | None = None,
) -> RealtimeHandoffEvent: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["tool_start"],
    *,
    where: Callable[[RealtimeToolStart], object] | None = None,
) -> RealtimeToolStart: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["tool_end"],
    *,
    where: Callable[[RealtimeToolEnd], object] | None = None,
) -> RealtimeToolEnd: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["tool_approval_required"],
    *,
    where: Callable[[RealtimeToolApprovalRequired], object] | None = None,
) -> RealtimeToolApprovalRequired: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["raw_model_event"],
    *,
    where: Callable[[RealtimeRawModelEvent], object] | None = None,
) -> RealtimeRawModelEvent: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["audio_end"],
    *,
    where: Callable[[RealtimeAudioEnd], object] | None = None,
) -> RealtimeAudioEnd: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["audio"],
    *,
    where: Callable[[RealtimeAudio], object] | None = None,
) -> RealtimeAudio: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["audio_interrupted"],
    *,
    where: Callable[[RealtimeAudioInterrupted], object] | None = None,
) -> RealtimeAudioInterrupted: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["error"],
    *,
    where: Callable[[RealtimeError], object] | None = None,
) -> RealtimeError: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["history_updated"],
    *,
    where: Callable[[RealtimeHistoryUpdated], object] | None = None,
) -> RealtimeHistoryUpdated: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["history_added"],
    *,
    where: Callable[[RealtimeHistoryAdded], object] | None = None,
) -> RealtimeHistoryAdded: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["guardrail_tripped"],
    *,
    where: Callable[[RealtimeGuardrailTripped], object] | None = None,
) -> RealtimeGuardrailTripped: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: Literal["input_audio_timeout_triggered"],
    *,
    where: Callable[[RealtimeInputAudioTimeoutTriggered], object] | None = None,
) -> RealtimeInputAudioTimeoutTriggered: ...
@overload
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: str,
    *,
    where: Callable[[Any], object] | None = None,
) -> RealtimeSessionEvent: ...
async def wait_for_session_event(
    session: RealtimeSession,
    event_type: str,
    *,
    where: Callable[[Any], object] | None = None,
) -> RealtimeSessionEvent:
    """Consume ``session``'s events until one of ``event_type`` (matching ``where``) arrives.

    Events before it are consumed and skipped. Raises ``AssertionError`` if the session's
    event stream ends first; an exception the stream raises propagates.
    """
    if not callable(getattr(type(session), "__aiter__", None)):
        raise TypeError(
            "wait_for_session_event() session must be a RealtimeSession (the object "
            f"RealtimeRunner.run() returns), got {type(session).__name__}."
        )
    if not isinstance(event_type, str):
        raise TypeError(
            "wait_for_session_event() event_type must be an event type name such as "
            f"'agent_end', got {type(event_type).__name__}."
        )
    if where is not None and not callable(where):
        raise TypeError(
            f"wait_for_session_event() where must be callable or None, got {type(where).__name__}."
        )
    # The session's __aiter__ is an async generator, so the iterator can be closed early.
    events = cast("AsyncGenerator[RealtimeSessionEvent, None]", session.__aiter__())
    try:
        async for event in events:
            if event.type == event_type and (where is None or where(event)):
                return event
    finally:
        # Close the iterator now rather than whenever it is garbage collected.
        await events.aclose()
    raise AssertionError(
        f"The realtime session's event stream ended before a {event_type!r} event arrived."
    )


class _TransportRealtimeModel(RealtimeModel):
    """A ``RealtimeModel`` that forwards to a ``ScriptedRealtimeTransport``."""

    def __init__(self, transport: ScriptedRealtimeTransport) -> None:
        self._transport = transport
        self._listeners: list[RealtimeModelListener] = []
        self._pending: deque[RealtimeModelEvent] = deque()
        self._worker: asyncio.Task[None] | None = None
        # Set while this model's own connect/close runs: the "disconnected" the transport
        # emits then is not a remote drop.
        self._own_lifecycle = False
        self._end_of_stream_pending = False
        # Python's audio events name their item; the JS-shaped interruption events do not.
        self._audio_item: tuple[str, int] = ("", 0)
        for name, convert in self._converters().items():
            transport.on(name, self._listener_for(name, convert))

    def __repr__(self) -> str:
        return f"<openai_agents_realtime_model over {self._transport!r}>"

    # -- RealtimeModel ---------------------------------------------------------------------

    async def connect(self, options: RealtimeModelConfig) -> None:
        """Connect the transport with the SDK's options; the API key is only passed through."""
        settings = options.get("initial_model_settings")
        transport_options: dict[str, Any] = {
            "api_key": options.get("api_key"),
            "model": None if settings is None else settings.get("model_name"),
            "url": options.get("url"),
            "call_id": options.get("call_id"),
            "initial_session_config": settings,
        }
        # A failing connect's traceback keeps this frame, and `pytest --showlocals` prints its
        # locals: no local may hold the key once the transport has read it.
        del options
        # The session's listeners and the delivery task live on this loop: while it runs,
        # the transport refuses whatever would notify them from another thread (emit,
        # connect, close, disconnect) before it changes anything.
        self._transport._bind_listeners(  # pyright: ignore[reportPrivateUsage]
            self, asyncio.get_running_loop()
        )
        self._own_lifecycle = True
        try:
            connected = self._transport.connect(transport_options)
        finally:
            self._own_lifecycle = False
            del transport_options
        try:
            await connected
        except BaseException:
            # A failed attempt delivers nothing, as with the SDK's WebSocket model; the
            # session stops listening as soon as connect() raises anyway.
            await self._stop_delivery()
            raise

    def add_listener(self, listener: RealtimeModelListener) -> None:
        """Deliver emitted events to ``listener`` too."""
        if listener not in self._listeners:
            self._listeners.append(listener)

    def remove_listener(self, listener: RealtimeModelListener) -> None:
        """Stop delivering events to ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def send_event(self, event: RealtimeModelSendEvent) -> None:
        """Make the transport call that stands for ``event``."""
        self._send(event)

    async def send_event_if(
        self, event: RealtimeModelSendEvent, send_if: Callable[[], bool]
    ) -> bool:
        """Send ``event`` if ``send_if()`` holds; nothing can intervene between the two."""
        if not send_if():
            return False
        self._send(event)
        return True

    async def close(self) -> None:
        """Close the transport, then stop delivering and drop undelivered events.

        Called from a listener, it also ends the delivery in progress: the listeners after
        that one do not get the current event.
        """
        self._own_lifecycle = True
        try:
            self._transport.close()
        finally:
            self._own_lifecycle = False
        # Like the SDK's WebSocket model, which cancels its reader on close: nothing queued
        # before the close reaches a listener afterwards, and a runner reusing this model
        # starts its next connection afresh.
        self._audio_item = ("", 0)
        await self._stop_delivery()

    async def _stop_delivery(self) -> None:
        """Drop undelivered events and wait until the delivery task has stopped."""
        self._pending.clear()
        self._end_of_stream_pending = False
        worker, self._worker = self._worker, None
        if worker is not None and worker is not asyncio.current_task() and not worker.done():
            worker.cancel()
            # asyncio.wait never raises the worker's cancellation into this task.
            await asyncio.wait([worker])

    # -- outbound --------------------------------------------------------------------------

    def _send(self, event: RealtimeModelSendEvent) -> None:
        transport = self._transport
        if isinstance(event, RealtimeModelSendUserInput):
            transport.send_message(cast("str | Mapping[str, Any]", event.user_input))
        elif isinstance(event, RealtimeModelSendAudio):
            transport.send_audio(event.audio, commit=event.commit)
        elif isinstance(event, RealtimeModelSendToolOutput):
            transport.send_function_call_output(
                _tool_call_item(event.tool_call), event.output, event.start_response
            )
        elif isinstance(event, RealtimeModelSendInterrupt):
            transport.interrupt()
        elif isinstance(event, RealtimeModelSendSessionUpdate):
            transport.update_session_config(cast("Mapping[str, Any]", event.session_settings))
        elif isinstance(event, RealtimeModelSendRawMessage):
            message = event.message
            other_data: Mapping[str, Any] = message.get("other_data") or {}
            if message["type"] == "response.create" and set(other_data) <= {"response"}:
                transport.request_response(other_data.get("response"))
            else:
                transport.send_event({"type": message["type"], **other_data})
        else:
            # A send event newer than this adapter: still recorded, as a raw client event.
            transport.send_event(_raw_event(event))

    # -- inbound ---------------------------------------------------------------------------

    def _converters(self) -> dict[str, Callable[..., list[RealtimeModelEvent]]]:
        return {
            "function_call": _function_call_event,
            "item_update": _item_updated_event,
            "item_deleted": _item_deleted_event,
            "audio": self._audio_event,
            "audio_interrupted": self._audio_interrupted_event,
            "audio_done": self._audio_done_event,
            "audio_transcript_delta": _transcript_delta_event,
            "turn_started": _turn_started_event,
            "turn_done": _turn_done_events,
            "usage_update": _usage_events,
            "error": _error_event,
            "connection_change": self._connection_events,
            "model_event": _model_event,
        }

    def _listener_for(
        self, name: str, convert: Callable[..., list[RealtimeModelEvent]]
    ) -> Callable[..., None]:
        signature = inspect.signature(convert)

        def listener(*args: Any) -> None:
            try:
                signature.bind(*args)
            except TypeError:
                reason = f"it takes one payload argument, got {len(args)}"
                raise InvalidRealtimeEventError(name, reason, _FRAMEWORK) from None
            try:
                events = convert(*args)
            except (TypeError, ValueError) as error:
                # The test's emit gets a structured error; the conversion's own error stays
                # attached as the cause, so no detail is lost.
                raise InvalidRealtimeEventError(name, _reason(error), _FRAMEWORK) from error
            self._enqueue(events)

        return listener

    def _enqueue(self, events: Iterable[RealtimeModelEvent]) -> None:
        self._pending.extend(events)
        if (self._pending or self._end_of_stream_pending) and self._worker is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self._pending.clear()
                self._end_of_stream_pending = False
                raise RuntimeError(
                    "openai_agents_realtime_model delivers emitted events from a task; emit "
                    "them from async code (a run_scenario side or an async test)."
                ) from None
            self._worker = loop.create_task(self._deliver(), name="openai_agents_realtime_model")

    async def _deliver(self) -> None:
        """Deliver queued events one by one, then end the stream if the remote side dropped."""
        this_task = asyncio.current_task()
        try:
            # A close() made from inside a listener retires this task without cancelling it;
            # it must then stop, so that a newer delivery task alone keeps the order.
            while self._worker is this_task:
                if self._pending:
                    await self._broadcast(self._pending.popleft())
                elif self._end_of_stream_pending:
                    # Only now: every event emitted together with the drop came first.
                    self._end_of_stream_pending = False
                    await self._broadcast(RealtimeModelEndOfStreamEvent())
                else:
                    return
        finally:
            if self._worker is this_task:
                self._worker = None

    async def _broadcast(self, event: RealtimeModelEvent) -> None:
        this_task = asyncio.current_task()
        for listener in list(self._listeners):
            if self._worker is not this_task:
                return  # a listener closed the model: later listeners get nothing more
            try:
                await listener.on_event(event)
            except Exception as error:
                await self._report(error, event)

    async def _report(self, error: Exception, event: RealtimeModelEvent) -> None:
        this_task = asyncio.current_task()
        failure = RealtimeModelExceptionEvent(
            exception=error, context=f"A listener failed on the {event.type!r} event"
        )
        for listener in list(self._listeners):
            if self._worker is not this_task:
                return
            try:
                await listener.on_event(failure)
            except Exception as nested:
                asyncio.get_running_loop().call_exception_handler(
                    {
                        "message": "openai_agents_realtime_model could not report a listener "
                        "error to its listeners",
                        "exception": nested,
                    }
                )

    def _audio_event(self, payload: Any) -> list[RealtimeModelEvent]:
        fields = _fields(payload, "data", "response_id", "item_id", "content_index")
        data = fields["data"]
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"its data must be bytes, got {type(data).__name__}")
        self._audio_item = (fields["item_id"], fields["content_index"])
        return [
            RealtimeModelAudioEvent(
                data=bytes(cast("bytes", data)),
                response_id=fields["response_id"],
                item_id=fields["item_id"],
                content_index=fields["content_index"],
            )
        ]

    def _audio_item_of(self, payload: Any) -> tuple[str, int]:
        if payload is None:
            return self._audio_item
        fields = _fields(payload, "item_id", "content_index")
        return fields["item_id"], fields["content_index"]

    def _audio_interrupted_event(self, payload: Any = None) -> list[RealtimeModelEvent]:
        item_id, content_index = self._audio_item_of(payload)
        return [RealtimeModelAudioInterruptedEvent(item_id=item_id, content_index=content_index)]

    def _audio_done_event(self, payload: Any = None) -> list[RealtimeModelEvent]:
        item_id, content_index = self._audio_item_of(payload)
        return [RealtimeModelAudioDoneEvent(item_id=item_id, content_index=content_index)]

    def _connection_events(self, status: Any) -> list[RealtimeModelEvent]:
        if status not in get_args(RealtimeConnectionStatus):
            raise ValueError(
                f"the status must be one of "
                f"{', '.join(map(repr, get_args(RealtimeConnectionStatus)))}; got {status!r}"
            )
        if status == "disconnected" and not self._own_lifecycle:
            self._end_of_stream_pending = True
        return [RealtimeModelConnectionStatusEvent(status=status)]


# -- conversions -------------------------------------------------------------------------


def _reason(error: TypeError | ValueError) -> str:
    """Say in one line why a payload could not be converted."""
    if isinstance(error, ValidationError):
        # The SDK's model names each bad field; three are enough to fix the payload.
        return "; ".join(
            f"{'.'.join(map(str, problem['loc'])) or 'payload'}: {problem['msg']}"
            for problem in error.errors()[:3]
        )
    return str(error)


def _tool_call_item(tool_call: RealtimeModelToolCallEvent) -> dict[str, Any]:
    return {
        "type": "function_call",
        "name": tool_call.name,
        "call_id": tool_call.call_id,
        "id": tool_call.id,
        "previous_item_id": tool_call.previous_item_id,
        "arguments": tool_call.arguments,
    }


def _raw_event(event: object) -> dict[str, Any]:
    fields = (
        {item.name: getattr(event, item.name) for item in dataclasses.fields(event)}
        if dataclasses.is_dataclass(event)
        else {}
    )
    return {"type": type(event).__name__, **fields}


def _fields(payload: Any, *required: str) -> dict[str, Any]:
    """Return ``payload`` as a dict, or raise naming the ``required`` keys it lacks."""
    if not isinstance(payload, Mapping):
        raise TypeError(
            f"its payload must be a mapping with {', '.join(required)}; got "
            f"{type(payload).__name__}"
        )
    fields = dict(cast("Mapping[str, Any]", payload))
    missing = [key for key in required if key not in fields]
    if missing:
        raise ValueError(f"its payload is missing {', '.join(map(repr, missing))}")
    return fields


def _response_id(payload: Any) -> str | None:
    if not isinstance(payload, Mapping):
        return None
    fields = cast("Mapping[str, Any]", payload)
    if fields.get("response_id") is not None:
        return cast(str, fields["response_id"])
    for response in (fields.get("response"), _get(fields.get("provider_data"), "response")):
        response_id = _get(response, "id")
        if response_id is not None:
            return cast(str, response_id)
    return None


def _get(value: Any, key: str) -> Any:
    return cast("Mapping[str, Any]", value).get(key) if isinstance(value, Mapping) else None


def _function_call_event(payload: Any) -> list[RealtimeModelEvent]:
    fields = _fields(payload, "name", "call_id", "arguments")
    arguments = fields["arguments"]
    if not isinstance(arguments, str):
        # As items.function_call() encodes them, so both spellings reach the tool alike.
        arguments = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return [
        RealtimeModelToolCallEvent(
            name=fields["name"],
            call_id=fields["call_id"],
            arguments=arguments,
            id=fields.get("id"),
            previous_item_id=fields.get("previous_item_id"),
        )
    ]


_ASSISTANT_PART_TYPES = {"output_text": "text", "output_audio": "audio"}


def _realtime_item(payload: Any) -> RealtimeItem:
    if isinstance(
        payload, (SystemMessageItem, UserMessageItem, AssistantMessageItem, RealtimeToolCallItem)
    ):
        return payload
    fields = _fields(payload, "item_id", "type")
    item_class: type[BaseModel]
    if fields["type"] == "function_call":
        item_class = RealtimeToolCallItem
    elif fields["type"] == "message":
        classes: dict[Any, type[BaseModel]] = {
            "system": SystemMessageItem,
            "user": UserMessageItem,
            "assistant": AssistantMessageItem,
        }
        if fields.get("role") not in classes:
            raise ValueError(
                "a message item needs a role of 'system', 'user' or 'assistant'; got "
                f"{fields.get('role')!r}"
            )
        item_class = classes[fields["role"]]
        fields["content"] = [
            _content_part(part, assistant=item_class is AssistantMessageItem)
            for part in cast("Iterable[Any]", fields.get("content") or ())
        ]
    else:
        raise ValueError(
            f"the item has type {fields['type']!r}; openai-agents realtime history holds "
            "'message' and 'function_call' items only"
        )
    declared = {key: value for key, value in fields.items() if key in item_class.model_fields}
    return cast(RealtimeItem, item_class.model_validate(declared))


def _content_part(part: Any, *, assistant: bool) -> Any:
    if not isinstance(part, Mapping):
        return part  # an SDK content object, or invalid: the item's validation decides
    fields = dict(cast("Mapping[str, Any]", part))
    part_type = fields.get("type")
    if assistant and part_type in _ASSISTANT_PART_TYPES:
        fields["type"] = _ASSISTANT_PART_TYPES[part_type]
    elif part_type == "input_image" and "image_url" not in fields:
        fields["image_url"] = fields.pop("image", None)
    known = {"type", "text", "audio", "transcript", "image_url", "detail"}
    return {key: value for key, value in fields.items() if key in known}


def _item_updated_event(payload: Any) -> list[RealtimeModelEvent]:
    return [RealtimeModelItemUpdatedEvent(item=_realtime_item(payload))]


def _item_deleted_event(payload: Any) -> list[RealtimeModelEvent]:
    return [RealtimeModelItemDeletedEvent(item_id=_fields(payload, "item_id")["item_id"])]


def _transcript_delta_event(payload: Any) -> list[RealtimeModelEvent]:
    fields = _fields(payload, "item_id", "delta", "response_id")
    return [
        RealtimeModelTranscriptDeltaEvent(
            item_id=fields["item_id"], delta=fields["delta"], response_id=fields["response_id"]
        )
    ]


def _turn_started_event(payload: Any = None) -> list[RealtimeModelEvent]:
    return [RealtimeModelTurnStartedEvent(response_id=_response_id(payload))]


def _turn_done_events(payload: Any = None) -> list[RealtimeModelEvent]:
    events: list[RealtimeModelEvent] = []
    usage = _get(_get(payload, "response"), "usage")
    if usage is not None:
        events.extend(_usage_events(usage))
    events.append(RealtimeModelTurnEndedEvent(response_id=_response_id(payload)))
    return events


def _usage_events(usage: Any) -> list[RealtimeModelEvent]:
    return [RealtimeModelUsageEvent(usage=_sdk_usage(usage))]


def _sdk_usage(usage: Any) -> Usage:
    if isinstance(usage, Usage):
        return usage
    if dataclasses.is_dataclass(usage) and not isinstance(usage, type):
        usage = dataclasses.asdict(usage)  # the core's items.Usage
    if not isinstance(usage, Mapping):
        raise TypeError(f"a realtime usage must be a mapping, got {type(usage).__name__}")
    fields = cast("Mapping[str, Any]", usage)
    input_tokens = fields.get("input_tokens") or 0
    output_tokens = fields.get("output_tokens") or 0
    total_tokens = fields.get("total_tokens")
    requests = fields.get("requests")
    sdk_usage = Usage(
        requests=1 if requests is None else requests,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens if total_tokens is None else total_tokens,
    )
    # Start from the SDK's own zeroed details: which detail fields are required depends on
    # the installed openai version.
    sdk_usage.input_tokens_details = sdk_usage.input_tokens_details.model_copy(
        update=_summed(fields.get("input_tokens_details"))
    )
    sdk_usage.output_tokens_details = sdk_usage.output_tokens_details.model_copy(
        update=_summed(fields.get("output_tokens_details"))
    )
    return sdk_usage


def _summed(details: Any) -> dict[str, int]:
    """Sum a details mapping, or a list of them (the core's shape), key by key."""
    entries: Iterable[Any] = [details] if isinstance(details, Mapping) else details or ()
    summed: dict[str, int] = {}
    for entry in entries if isinstance(entries, (list, tuple)) else [entries]:
        if not isinstance(entry, Mapping):
            raise TypeError(
                f"token details must be a mapping or a list of them, got {type(entry).__name__}"
            )
        for key, value in cast("Mapping[str, Any]", entry).items():
            if isinstance(value, int):
                summed[key] = summed.get(key, 0) + value
    return summed


def _error_event(payload: Any) -> list[RealtimeModelEvent]:
    # The transport's own error payload is {"type": "error", "error": err}; a bare error is
    # accepted as well.
    error: Any = payload
    if isinstance(payload, Mapping) and "error" in payload:
        error = cast("Mapping[str, Any]", payload)["error"]
    return [RealtimeModelErrorEvent(error=error)]


def _model_event(event: Any) -> list[RealtimeModelEvent]:
    if not isinstance(event, get_args(RealtimeModelEvent)):
        raise TypeError(
            f"it must be an agents.realtime RealtimeModelEvent, got {type(event).__name__}"
        )
    return [cast(RealtimeModelEvent, event)]
