"""The openai-agents realtime adapter, run on the real RealtimeSession (no mocks of the SDK)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import GuardrailFunctionOutput, OutputGuardrail, function_tool
from agents.realtime import (
    AssistantMessageItem,
    AssistantText,
    InputText,
    RealtimeAgent,
    RealtimeModel,
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
    RealtimeModelListener,
    RealtimeModelOtherEvent,
    RealtimeModelSendInterrupt,
    RealtimeModelSendRawMessage,
    RealtimeModelSendUserInput,
    RealtimeModelToolCallEvent,
    RealtimeModelTranscriptDeltaEvent,
    RealtimeModelTurnEndedEvent,
    RealtimeModelTurnStartedEvent,
    RealtimeModelUsageEvent,
    RealtimeRunConfig,
    RealtimeRunner,
    RealtimeSession,
    RealtimeToolCallItem,
    SystemMessageItem,
    UserMessageItem,
)
from agents.realtime.items import AssistantAudio, InputImage
from agents.usage import Usage
from pydantic import ValidationError

from agents_testing import (
    InvalidRealtimeEventError,
    RealtimeScenarioContext,
    RealtimeThreadError,
    ScriptedRealtimeTransport,
    SendFunctionCallOutputCall,
)
from agents_testing import items as core_items
from agents_testing.adapters.openai_agents import (
    openai_agents_realtime_model,
    wait_for_session_event,
)
from agents_testing.realtime import (
    ConnectCall,
    InterruptCall,
    RequestResponseCall,
    SendAudioCall,
    SendEventCall,
    SendMessageCall,
    UpdateSessionConfigCall,
)

RUN_CONFIG: RealtimeRunConfig = {"tracing_disabled": True}


@function_tool
def lookup_order(order_id: str) -> str:
    """Look up an order by ID."""
    return f"Order {order_id} has shipped."


def runner(
    transport: ScriptedRealtimeTransport,
    agent: RealtimeAgent | None = None,
    config: RealtimeRunConfig = RUN_CONFIG,
) -> RealtimeRunner:
    agent = agent or RealtimeAgent(name="Assistant", tools=[lookup_order])
    return RealtimeRunner(agent, model=openai_agents_realtime_model(transport), config=config)


async def open_session(transport: ScriptedRealtimeTransport, **kwargs: Any) -> RealtimeSession:
    session = await runner(transport, **kwargs).run(model_config={"api_key": "sk-test"})
    await session.enter()
    return session


class RecordingListener(RealtimeModelListener):
    """A listener that keeps every model event and lets a test wait for a count of them."""

    def __init__(self) -> None:
        self.events: list[RealtimeModelEvent] = []
        self._arrived = asyncio.Event()

    async def on_event(self, event: RealtimeModelEvent) -> None:
        self.events.append(event)
        self._arrived.set()

    async def wait_for(self, count: int) -> list[RealtimeModelEvent]:
        async def enough() -> None:
            while len(self.events) < count:
                self._arrived.clear()
                await self._arrived.wait()

        await asyncio.wait_for(enough(), 5)
        return self.events


async def connected_model(
    transport: ScriptedRealtimeTransport,
) -> tuple[RealtimeModel, RecordingListener]:
    """Connect a model with a recording listener; the connect's own status events are skipped."""
    model = openai_agents_realtime_model(transport)
    listener = RecordingListener()
    model.add_listener(listener)
    await model.connect({})
    await listener.wait_for(2)  # connecting, connected
    listener.events.clear()
    return model, listener


def only_this_task_is_left() -> bool:
    return asyncio.all_tasks() == {asyncio.current_task()}


# -- connect and close --------------------------------------------------------------------


async def test_connect_passes_the_sdk_options_and_never_keeps_the_api_key() -> None:
    transport = ScriptedRealtimeTransport()
    agent = RealtimeAgent(name="Assistant", instructions="Answer briefly.", tools=[lookup_order])
    session = await runner(transport, agent).run(
        model_config={
            "api_key": "sk-secret-key",
            "url": "wss://realtime.invalid/v1",
            "headers": {"Authorization": "Bearer sk-secret-key"},
            "initial_model_settings": {"model_name": "gpt-realtime", "voice": "alloy"},
        }
    )

    async with session:
        (call,) = transport.calls
        model = session.model

    assert isinstance(call, ConnectCall)
    assert call.options["model"] == "gpt-realtime"
    assert call.options["url"] == "wss://realtime.invalid/v1"
    assert call.options["call_id"] is None
    assert call.options["api_key_provided"] is True
    config = call.options["initial_session_config"]
    assert config["instructions"] == "Answer briefly."
    assert config["voice"] == "alloy"
    assert config["tools"] == [lookup_order]
    assert config["tools"][0] is lookup_order  # the SDK's own tool object
    assert config["handoffs"] == []
    assert config["tracing"] is None  # tracing_disabled reached the model settings
    assert "sk-secret-key" not in repr(transport.calls)
    assert "sk-secret-key" not in repr(vars(model))


async def test_connect_records_a_call_id_and_a_missing_api_key() -> None:
    transport = ScriptedRealtimeTransport()
    session = await runner(transport).run(model_config={"call_id": "rtc_123"})

    async with session:
        pass

    connect = transport.calls[0]
    assert isinstance(connect, ConnectCall)
    assert connect.options["call_id"] == "rtc_123"
    assert connect.options["api_key_provided"] is False
    assert [call.method for call in transport.calls] == ["connect", "close"]


async def test_a_callable_api_key_is_neither_called_nor_kept() -> None:
    transport = ScriptedRealtimeTransport()

    def api_key() -> str:
        raise AssertionError("the adapter must not resolve the API key")

    session = await runner(transport).run(model_config={"api_key": api_key})
    async with session:
        pass

    connect = transport.calls[0]
    assert isinstance(connect, ConnectCall)
    assert connect.options["api_key_provided"] is True


def holds_key(value: Any, key: str) -> bool:
    """Whether ``value`` is the key or a mapping or sequence holding it (one level down)."""
    if value == key:
        return True
    if isinstance(value, dict):
        return any(item == key for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(item == key for item in value)
    return False


async def test_no_frame_of_a_failed_connect_holds_the_api_key() -> None:
    # `pytest --showlocals` prints the locals of every frame of a failing test's traceback.
    key = "sk-sentinel-" + "0123456789"
    transport = ScriptedRealtimeTransport()
    transport.fail_next_call("connect", ConnectionError("connection refused"))
    model = openai_agents_realtime_model(transport)
    with pytest.raises(ConnectionError) as info:
        await model.connect({"api_key": key, "url": "wss://realtime.invalid/v1"})
    frames = [entry.frame for entry in info.traceback]
    library = [f for f in frames if "agents_testing" in f.code.path.__str__()]
    assert library, "the traceback passes through the adapter"
    for frame in library:
        leaked = [name for name, value in frame.f_locals.items() if holds_key(value, key)]
        assert leaked == [], f"{frame.code.name} still holds the key in {leaked}"


async def test_a_failed_connect_leaves_the_session_unconnected() -> None:
    transport = ScriptedRealtimeTransport()
    failure = ConnectionError("connection failed")
    transport.fail_next_call("connect", failure)
    session = await runner(transport).run()

    with pytest.raises(ConnectionError) as raised:
        await session.enter()

    assert raised.value is failure
    assert transport.status == "disconnected"
    assert [call.method for call in transport.calls] == ["connect"]
    assert only_this_task_is_left()  # the status change was not left to deliver


async def test_close_closes_the_transport_once() -> None:
    transport = ScriptedRealtimeTransport()
    session = await open_session(transport)

    await session.close()
    await session.close()

    assert [call.method for call in transport.calls] == ["connect", "close"]
    transport.assert_closed()


async def test_a_failed_close_raises_from_the_session() -> None:
    transport = ScriptedRealtimeTransport()
    session = await open_session(transport)
    transport.fail_next_call("close", OSError("close failed"))

    with pytest.raises(OSError, match="close failed"):
        await session.close()

    assert transport.status == "connected"


# -- outbound: send events ---------------------------------------------------------------


async def test_user_text_becomes_send_message_with_the_text() -> None:
    transport = ScriptedRealtimeTransport()
    async with await runner(transport).run() as session:
        await session.send_message("Where is order 123?")

    call = transport.calls[1]
    assert call == SendMessageCall(
        index=1, message="Where is order 123?", other_event_data=None, trigger_response=None
    )


async def test_a_structured_user_message_is_sent_as_the_sdk_gives_it() -> None:
    transport = ScriptedRealtimeTransport()
    message: Any = {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "What is in this picture?"},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "low"},
        ],
    }
    async with await runner(transport).run() as session:
        await session.send_message(message)

    call = transport.calls[1]
    assert isinstance(call, SendMessageCall)
    assert call.message == message


async def test_audio_becomes_send_audio_with_its_commit_flag() -> None:
    transport = ScriptedRealtimeTransport()
    async with await runner(transport).run() as session:
        await session.send_audio(b"\x00\x01")
        await session.send_audio(b"\x02", commit=True)

    assert transport.calls[1:3] == (
        SendAudioCall(index=1, audio=b"\x00\x01", commit=False),
        SendAudioCall(index=2, audio=b"\x02", commit=True),
    )


async def test_every_interrupt_becomes_interrupt() -> None:
    transport = ScriptedRealtimeTransport()
    async with await runner(transport).run() as session:
        await session.interrupt()
        # What an output guardrail sends: the options have no transport counterpart.
        await session.model.send_event(
            RealtimeModelSendInterrupt(force_response_cancel=True, response_id="response_1")
        )

    assert transport.calls[1:3] == (InterruptCall(index=1), InterruptCall(index=2))


async def test_update_agent_becomes_update_session_config_with_the_sdk_settings() -> None:
    transport = ScriptedRealtimeTransport()
    async with await runner(transport).run() as session:
        await session.update_agent(RealtimeAgent(name="Billing", instructions="Talk billing."))

    call = transport.calls[1]
    assert isinstance(call, UpdateSessionConfigCall)
    assert call.config["instructions"] == "Talk billing."
    assert call.config["tools"] == []
    assert call.config["tracing"] is None


async def test_a_raw_response_create_becomes_request_response() -> None:
    transport = ScriptedRealtimeTransport()
    async with await runner(transport).run() as session:
        send = session.model.send_event
        await send(RealtimeModelSendRawMessage(message={"type": "response.create"}))
        await send(
            RealtimeModelSendRawMessage(
                message={
                    "type": "response.create",
                    "other_data": {"response": {"instructions": "Be brief."}},
                }
            )
        )

    assert transport.calls[1:3] == (
        RequestResponseCall(index=1, response=None),
        RequestResponseCall(index=2, response={"instructions": "Be brief."}),
    )


async def test_other_raw_messages_become_send_event_with_the_wire_body() -> None:
    transport = ScriptedRealtimeTransport()
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
    async with await runner(transport).run() as session:
        send = session.model.send_event
        await send(
            RealtimeModelSendRawMessage(
                message={"type": "conversation.item.create", "other_data": {"item": item}}
            )
        )
        # A response.create with more than a response stays raw, so nothing is lost.
        await send(
            RealtimeModelSendRawMessage(
                message={"type": "response.create", "other_data": {"event_id": "evt_1"}}
            )
        )

    assert transport.calls[1:3] == (
        SendEventCall(index=1, event={"type": "conversation.item.create", "item": item}),
        SendEventCall(index=2, event={"type": "response.create", "event_id": "evt_1"}),
    )


async def test_a_send_event_unknown_to_the_adapter_is_recorded_as_a_raw_event() -> None:
    @dataclasses.dataclass
    class RealtimeModelSendSomethingNew:
        value: int

    transport = ScriptedRealtimeTransport()
    async with await runner(transport).run() as session:
        await session.model.send_event(RealtimeModelSendSomethingNew(value=1))  # type: ignore[arg-type]

    assert transport.calls[1] == SendEventCall(
        index=1, event={"type": "RealtimeModelSendSomethingNew", "value": 1}
    )


async def test_send_event_if_sends_only_when_the_condition_holds() -> None:
    transport = ScriptedRealtimeTransport()
    async with await runner(transport).run() as session:
        send_if = session.model.send_event_if
        feedback = RealtimeModelSendUserInput(user_input="guardrail triggered: no_spoilers")
        assert await send_if(feedback, lambda: False) is False
        assert await send_if(feedback, lambda: True) is True

    assert [call.method for call in transport.calls] == ["connect", "send_message", "close"]


async def test_an_output_guardrail_interrupts_and_sends_its_feedback_message() -> None:
    def no_spoilers(context: Any, agent: Any, output: str) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered="ending" in output)

    transport = ScriptedRealtimeTransport()
    config: RealtimeRunConfig = {
        **RUN_CONFIG,
        "output_guardrails": [OutputGuardrail(guardrail_function=no_spoilers, name="no_spoilers")],
        "guardrails_settings": {"debounce_text_length": 5},
    }
    feedback_sent = asyncio.Event()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        ctx.emit("turn_started", {"response_id": "r1"})
        ctx.emit(
            "audio", {"data": b"\x01", "response_id": "r1", "item_id": "a1", "content_index": 0}
        )
        ctx.emit(
            "audio_transcript_delta",
            {"item_id": "a1", "delta": "The ending is", "response_id": "r1"},
        )
        await ctx.expect_call("interrupt")
        # Sent through send_event_if, which the adapter implements.
        await ctx.expect_call(
            "send_message", lambda call: call.message == "guardrail triggered: no_spoilers"
        )
        feedback_sent.set()
        await ctx.expect_call("close")

    async def exercise() -> None:
        async with await runner(transport, config=config).run() as session:
            tripped = await wait_for_session_event(session, "guardrail_tripped")
            assert tripped.message == "The ending is"
            await feedback_sent.wait()

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    transport.assert_complete()


async def test_a_scripted_send_failure_is_raised_to_the_session_caller() -> None:
    transport = ScriptedRealtimeTransport()
    failure = RuntimeError("socket closed")
    async with await runner(transport).run() as session:
        transport.fail_next_call("send_message", failure)
        with pytest.raises(RuntimeError) as raised:
            await session.send_message("Hello")

    assert raised.value is failure


async def test_the_tool_output_carries_the_normalized_function_call() -> None:
    transport = ScriptedRealtimeTransport()
    outputs: list[SendFunctionCallOutputCall] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        ctx.emit(
            "function_call",
            core_items.function_call(
                "lookup_order", {"order_id": "order_7"}, call_id="call_7", id="item_7"
            ),
        )
        outputs.append(await ctx.expect_call("send_function_call_output"))
        await ctx.expect_call("close")

    async def exercise() -> None:
        async with await runner(transport).run() as session:
            await wait_for_session_event(session, "tool_end")

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    (call,) = outputs
    assert call.tool_call == {
        "type": "function_call",
        "name": "lookup_order",
        "call_id": "call_7",
        "id": "item_7",
        "previous_item_id": None,
        "arguments": '{"order_id":"order_7"}',
    }
    assert call.output == "Order order_7 has shipped."
    assert call.start_response is True
    transport.assert_complete()


async def test_an_unknown_tool_is_answered_without_starting_a_response() -> None:
    transport = ScriptedRealtimeTransport()
    outputs: list[SendFunctionCallOutputCall] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        ctx.emit("function_call", {"name": "missing", "call_id": "call_1", "arguments": "{}"})
        outputs.append(await ctx.expect_call("send_function_call_output"))
        await ctx.expect_call("close")

    async def exercise() -> Any:
        async with await runner(transport).run() as session:
            return await wait_for_session_event(session, "error")

    error = await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    assert outputs[0].start_response is False
    assert "missing" in outputs[0].output
    assert "missing" in str(error.error)
    transport.assert_complete()


# -- inbound: emitted events ---------------------------------------------------------------


async def test_emitted_events_become_the_sdk_model_events() -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)
    error = RuntimeError("rate limited")
    other = RealtimeModelOtherEvent(data={"vendor": "event"})

    transport.emit(
        "function_call",
        {
            "type": "function_call",
            "name": "lookup_order",
            "call_id": "call_1",
            "arguments": {"order_id": "order_123"},
            "id": "item_1",
            "previous_item_id": "item_0",
        },
    )
    transport.emit(
        "item_update",
        {
            "item_id": "user_1",
            "type": "message",
            "role": "user",
            "status": "completed",
            "content": [{"type": "input_text", "text": "Hello"}],
        },
    )
    transport.emit("item_deleted", {"item_id": "user_1"})
    transport.emit("turn_started", {"provider_data": {"response": {"id": "response_1"}}})
    transport.emit(
        "audio",
        {"data": bytearray(b"\x01\x02"), "response_id": "response_1", "item_id": "assistant_1",
         "content_index": 1},
    )  # fmt: skip
    transport.emit(
        "audio_transcript_delta",
        {"item_id": "assistant_1", "delta": "Hi", "response_id": "response_1"},
    )
    transport.emit("audio_done")
    transport.emit("audio_interrupted")
    transport.emit(
        "turn_done",
        {"type": "response_done", "response": {"id": "response_1", "output": [],
         "usage": {"input_tokens": 3, "output_tokens": 5}}},
    )  # fmt: skip
    transport.emit("usage_update", core_items.Usage(input_tokens=1, output_tokens=1))
    transport.emit("error", {"type": "error", "error": error})
    transport.emit("connection_change", "connected")
    transport.emit("model_event", other)

    events = await listener.wait_for(14)
    assert events == [
        RealtimeModelToolCallEvent(
            name="lookup_order",
            call_id="call_1",
            arguments='{"order_id":"order_123"}',
            id="item_1",
            previous_item_id="item_0",
        ),
        RealtimeModelItemUpdatedEvent(
            item=UserMessageItem(item_id="user_1", content=[InputText(text="Hello")])
        ),
        RealtimeModelItemDeletedEvent(item_id="user_1"),
        RealtimeModelTurnStartedEvent(response_id="response_1"),
        RealtimeModelAudioEvent(
            data=b"\x01\x02", response_id="response_1", item_id="assistant_1", content_index=1
        ),
        RealtimeModelTranscriptDeltaEvent(
            item_id="assistant_1", delta="Hi", response_id="response_1"
        ),
        # Without a payload, both name the item of the last audio event.
        RealtimeModelAudioDoneEvent(item_id="assistant_1", content_index=1),
        RealtimeModelAudioInterruptedEvent(item_id="assistant_1", content_index=1),
        RealtimeModelUsageEvent(
            usage=Usage(requests=1, input_tokens=3, output_tokens=5, total_tokens=8)
        ),
        RealtimeModelTurnEndedEvent(response_id="response_1"),
        RealtimeModelUsageEvent(
            usage=Usage(requests=1, input_tokens=1, output_tokens=1, total_tokens=2)
        ),
        RealtimeModelErrorEvent(error=error),
        RealtimeModelConnectionStatusEvent(status="connected"),
        other,
    ]
    assert type(events[4].data) is bytes  # type: ignore[union-attr]
    assert events[-1] is other
    await model.close()


async def test_turn_events_take_the_response_id_from_any_normalized_spelling() -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)

    transport.emit("turn_started")
    transport.emit("turn_started", {"response_id": "r1"})
    transport.emit("turn_started", {"response": {"id": "r2"}})
    transport.emit("turn_done", {"response": {"id": "r2"}})  # no usage: no usage event

    assert await listener.wait_for(4) == [
        RealtimeModelTurnStartedEvent(response_id=None),
        RealtimeModelTurnStartedEvent(response_id="r1"),
        RealtimeModelTurnStartedEvent(response_id="r2"),
        RealtimeModelTurnEndedEvent(response_id="r2"),
    ]
    await model.close()


async def test_interruption_events_take_an_explicit_item_or_none_before_any_audio() -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)

    transport.emit("audio_interrupted")
    transport.emit("audio_done", {"item_id": "assistant_9", "content_index": 2})

    assert await listener.wait_for(2) == [
        RealtimeModelAudioInterruptedEvent(item_id="", content_index=0),
        RealtimeModelAudioDoneEvent(item_id="assistant_9", content_index=2),
    ]
    await model.close()


async def test_normalized_items_become_the_sdk_items() -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)
    sdk_item = SystemMessageItem(item_id="system_0", content=[InputText(text="Be kind.")])

    transport.emit(
        "item_update",
        {"item_id": "system_1", "type": "message", "role": "system",
         "content": [{"type": "input_text", "text": "Be brief."}]},
    )  # fmt: skip
    transport.emit(
        "item_update",
        {"item_id": "user_1", "previous_item_id": "system_1", "type": "message", "role": "user",
         "content": [{"type": "input_image", "image": "data:image/png;base64,AAAA"}]},
    )  # fmt: skip
    transport.emit(
        "item_update",
        {"item_id": "assistant_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Hi"},
                     {"type": "output_audio", "transcript": "Hi"}]},
    )  # fmt: skip
    transport.emit(
        "item_update",
        {"item_id": "call_item_1", "type": "function_call", "status": "completed",
         "call_id": "call_1", "name": "lookup_order", "arguments": "{}", "output": "Shipped."},
    )  # fmt: skip
    transport.emit("item_update", sdk_item)

    items = [event.item for event in await listener.wait_for(5)]  # type: ignore[union-attr]
    assert items == [
        SystemMessageItem(item_id="system_1", content=[InputText(text="Be brief.")]),
        UserMessageItem(
            item_id="user_1",
            previous_item_id="system_1",
            content=[InputImage(image_url="data:image/png;base64,AAAA")],
        ),
        AssistantMessageItem(
            item_id="assistant_1",
            status="completed",
            content=[AssistantText(text="Hi"), AssistantAudio(transcript="Hi")],
        ),
        RealtimeToolCallItem(
            item_id="call_item_1",
            status="completed",
            call_id="call_1",
            name="lookup_order",
            arguments="{}",
            output="Shipped.",
        ),
        sdk_item,
    ]
    assert items[-1] is sdk_item
    await model.close()


@pytest.mark.parametrize(
    ("event", "args", "reason"),
    [
        ("audio", ({"data": b"\x01", "response_id": "r", "item_id": "a"},),
         "its payload is missing 'content_index'"),
        ("audio", ({"data": "AQ==", "response_id": "r", "item_id": "a", "content_index": 0},),
         "its data must be bytes, got str"),
        ("function_call", ({"name": "lookup_order", "arguments": "{}"},),
         "its payload is missing 'call_id'"),
        ("function_call", ("lookup_order",),
         "its payload must be a mapping with name, call_id, arguments; got str"),
        ("item_update", ({"item_id": "m", "type": "mcp_call"},),
         "the item has type 'mcp_call'; openai-agents realtime history holds 'message' and "
         "'function_call' items only"),
        ("item_update", ({"item_id": "m", "type": "message", "role": "tool"},),
         "a message item needs a role of 'system', 'user' or 'assistant'; got 'tool'"),
        ("connection_change", ("disconnecting",),
         "the status must be one of 'connecting', 'connected', 'disconnected'; got "
         "'disconnecting'"),
        ("model_event", ({"type": "audio"},),
         "it must be an agents.realtime RealtimeModelEvent, got dict"),
        ("usage_update", ("many",), "a realtime usage must be a mapping, got str"),
        ("usage_update", ({"input_tokens": 1, "input_tokens_details": [3]},),
         "token details must be a mapping or a list of them, got int"),
        ("audio", (), "it takes one payload argument, got 0"),
        ("turn_started", ({}, {}), "it takes one payload argument, got 2"),
    ],
)  # fmt: skip
async def test_a_malformed_event_raises_a_structured_error_from_emit_and_delivers_nothing(
    event: str, args: tuple[Any, ...], reason: str
) -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)

    with pytest.raises(InvalidRealtimeEventError) as raised:
        transport.emit(event, *args)

    error = raised.value
    assert (error.event_type, error.reason, error.framework) == (event, reason, "openai-agents")
    assert str(error) == (
        f"Emitted realtime event {event!r} is not valid for openai-agents: {reason}. Fix the "
        f"payload passed to emit({event!r}, ...): give it the fields openai-agents needs for "
        "this event (docs/realtime.md lists them), or emit the framework's own event as "
        "'model_event'."
    )
    # Code written against the bare errors the adapter raised before still catches it.
    assert isinstance(error, TypeError)
    assert isinstance(error, ValueError)
    transport.emit("turn_started")
    assert await listener.wait_for(1) == [RealtimeModelTurnStartedEvent()]
    await model.close()


async def test_a_payload_the_sdk_refuses_keeps_the_sdk_error_as_its_cause() -> None:
    transport = ScriptedRealtimeTransport()
    model, _ = await connected_model(transport)

    item = {"item_id": "f", "type": "function_call", "status": "incomplete", "call_id": "c",
            "name": "lookup_order", "arguments": "{}"}  # fmt: skip

    with pytest.raises(InvalidRealtimeEventError) as raised:
        transport.emit("item_update", item)

    # The reason names the field as the SDK's model does (its wording is pydantic's).
    assert raised.value.reason.startswith("status: ")
    assert str(raised.value).startswith(
        "Emitted realtime event 'item_update' is not valid for openai-agents: status: "
    )
    assert isinstance(raised.value.__cause__, ValidationError)
    await model.close()


async def test_events_arrive_in_emit_order_while_a_listener_is_still_busy() -> None:
    transport = ScriptedRealtimeTransport()
    model = openai_agents_realtime_model(transport)
    busy = asyncio.Event()
    release = asyncio.Event()
    seen: list[str | None] = []

    class SlowListener(RealtimeModelListener):
        async def on_event(self, event: RealtimeModelEvent) -> None:
            if isinstance(event, RealtimeModelTurnStartedEvent):
                seen.append(event.response_id)
                if event.response_id == "r1":
                    busy.set()
                    await release.wait()

    recorder = RecordingListener()
    model.add_listener(SlowListener())
    model.add_listener(recorder)
    await model.connect({})

    transport.emit("turn_started", {"response_id": "r1"})
    transport.emit("turn_started", {"response_id": "r2"})
    await busy.wait()  # the delivery task is now blocked in the slow listener
    transport.emit("turn_started", {"response_id": "r3"})
    release.set()

    events = await recorder.wait_for(5)
    assert [event.type for event in events[:2]] == ["connection_status", "connection_status"]
    assert seen == ["r1", "r2", "r3"]
    assert events[2:] == [RealtimeModelTurnStartedEvent(response_id=r) for r in ("r1", "r2", "r3")]
    await model.close()


async def test_a_removed_listener_gets_nothing_more() -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)
    other = RecordingListener()
    model.add_listener(other)
    model.add_listener(other)  # added once only

    model.remove_listener(listener)
    transport.emit("turn_started")

    assert await other.wait_for(1) == [RealtimeModelTurnStartedEvent()]
    assert listener.events == []
    await model.close()


async def test_a_listener_may_close_the_model_while_events_are_being_delivered() -> None:
    transport = ScriptedRealtimeTransport()
    model = openai_agents_realtime_model(transport)

    closed = asyncio.Event()

    class ClosingListener(RealtimeModelListener):
        async def on_event(self, event: RealtimeModelEvent) -> None:
            if isinstance(event, RealtimeModelTurnStartedEvent) and not closed.is_set():
                await model.close()
                closed.set()

    recorder = RecordingListener()
    model.add_listener(ClosingListener())
    model.add_listener(recorder)
    await model.connect({})
    transport.emit("turn_started")
    transport.emit("turn_done")  # dropped: the close comes first
    await closed.wait()
    transport.emit("turn_started", {"response_id": "r2"})

    # The close stops delivery at once: the recorder, after the closing listener, never
    # gets the event the close was made on, only the event emitted after the close.
    events = await recorder.wait_for(3)
    assert events[2:] == [RealtimeModelTurnStartedEvent(response_id="r2")]
    assert [call.method for call in transport.calls] == ["connect", "close"]


async def test_a_close_from_a_listener_stops_the_current_event_for_later_listeners() -> None:
    transport = ScriptedRealtimeTransport()
    model = openai_agents_realtime_model(transport)
    closed = asyncio.Event()

    class ClosingListener(RealtimeModelListener):
        async def on_event(self, event: RealtimeModelEvent) -> None:
            if isinstance(event, RealtimeModelTurnStartedEvent):
                await model.close()
                closed.set()

    before, after = RecordingListener(), RecordingListener()
    model.add_listener(before)
    model.add_listener(ClosingListener())
    model.add_listener(after)
    await model.connect({})
    await after.wait_for(2)

    transport.emit("turn_started")
    await closed.wait()
    await asyncio.sleep(0)

    assert before.events[2:] == [RealtimeModelTurnStartedEvent()]
    assert after.events[2:] == []


async def test_a_listener_that_closes_and_reconnects_stops_the_old_event() -> None:
    transport = ScriptedRealtimeTransport()
    model = openai_agents_realtime_model(transport)

    class ReconnectingListener(RealtimeModelListener):
        async def on_event(self, event: RealtimeModelEvent) -> None:
            if isinstance(event, RealtimeModelTurnStartedEvent):
                await model.close()
                await model.connect({})

    after = RecordingListener()
    model.add_listener(ReconnectingListener())
    model.add_listener(after)
    await model.connect({})
    await after.wait_for(2)

    transport.emit("turn_started")

    # Only the new connection's status events arrive; the old event is not finished.
    events = await after.wait_for(4)
    await asyncio.sleep(0)
    assert events[2:] == [
        RealtimeModelConnectionStatusEvent(status="connecting"),
        RealtimeModelConnectionStatusEvent(status="connected"),
    ]
    await model.close()


async def test_a_close_while_a_listener_error_is_reported_stops_both_deliveries() -> None:
    transport = ScriptedRealtimeTransport()
    model = openai_agents_realtime_model(transport)
    closed = asyncio.Event()

    class FailingListener(RealtimeModelListener):
        async def on_event(self, event: RealtimeModelEvent) -> None:
            if isinstance(event, RealtimeModelTurnStartedEvent):
                raise ValueError("listener broke")

    class ClosingOnErrorListener(RealtimeModelListener):
        async def on_event(self, event: RealtimeModelEvent) -> None:
            if isinstance(event, RealtimeModelExceptionEvent):
                await model.close()
                closed.set()

    after = RecordingListener()
    model.add_listener(FailingListener())
    model.add_listener(ClosingOnErrorListener())
    model.add_listener(after)
    await model.connect({})
    await after.wait_for(2)

    transport.emit("turn_started")
    await closed.wait()
    await asyncio.sleep(0)

    # Neither the exception event nor the event that failed reaches the later listener.
    assert after.events[2:] == []


async def test_a_listener_error_reaches_the_listeners_as_an_exception_event() -> None:
    transport = ScriptedRealtimeTransport()
    model = openai_agents_realtime_model(transport)
    failure = ValueError("listener broke")

    class FailingListener(RealtimeModelListener):
        async def on_event(self, event: RealtimeModelEvent) -> None:
            if isinstance(event, RealtimeModelTurnStartedEvent):
                raise failure

    recorder = RecordingListener()
    model.add_listener(FailingListener())
    model.add_listener(recorder)
    await model.connect({})
    transport.emit("turn_started")
    transport.emit("turn_done")

    events = (await recorder.wait_for(5))[2:]
    assert events[0] == RealtimeModelExceptionEvent(
        exception=failure, context="A listener failed on the 'turn_started' event"
    )
    assert events[1:] == [RealtimeModelTurnStartedEvent(), RealtimeModelTurnEndedEvent()]
    await model.close()


async def test_a_session_that_fails_on_an_event_raises_from_its_event_stream() -> None:
    transport = ScriptedRealtimeTransport()
    failure = OSError("send failed")
    # Inline tool calls run inside the session's listener, so its failure surfaces there.
    session = await open_session(transport, config={**RUN_CONFIG, "async_tool_calls": False})
    transport.fail_next_call("send_function_call_output", failure)

    transport.emit(
        "function_call", {"name": "lookup_order", "call_id": "c", "arguments": '{"order_id": "1"}'}
    )
    # The session wraps the transport's failure in its own (private) error type.
    with pytest.raises(RuntimeError, match="send failed") as raised:
        await wait_for_session_event(session, "tool_end")

    assert raised.value.__cause__ is failure
    transport.assert_closed()  # the session closed itself
    assert [call.method for call in transport.calls][-1] == "close"


async def test_emitting_without_a_running_event_loop_raises() -> None:
    transport = ScriptedRealtimeTransport()
    openai_agents_realtime_model(transport)

    def emit_from_a_thread() -> None:
        with pytest.raises(RuntimeError, match="emit them from async code"):
            transport.emit("turn_started")

    await asyncio.to_thread(emit_from_a_thread)


def connect_now(transport: ScriptedRealtimeTransport) -> None:
    """Connect and raise the connect's error here: its awaitable never suspends."""
    for _ in transport.connect({}).__await__():
        pass


THREAD_CALLS: dict[str, Callable[[ScriptedRealtimeTransport], object]] = {
    "emit": lambda transport: transport.emit("turn_started"),
    "close": lambda transport: transport.close(),
    "disconnect": lambda transport: transport.disconnect(ConnectionResetError("dropped")),
    "connect": connect_now,
}


@pytest.mark.parametrize("with_loop", [False, True], ids=["plain-thread", "thread-with-a-loop"])
@pytest.mark.parametrize("operation", list(THREAD_CALLS))
async def test_a_connected_model_refuses_what_notifies_listeners_from_another_thread(
    operation: str, with_loop: bool
) -> None:
    # The session's listeners and the delivery task live on the test's loop: queueing from a
    # worker thread would race the delivery task, or start one on the worker's own loop. The
    # refusal comes before anything changes, names the call made, and says how to hand it over.
    transport = ScriptedRealtimeTransport()
    earlier: list[tuple[str, object]] = []  # a listener registered before the model's
    for event in ("connection_change", "turn_started", "error"):
        transport.on(event, lambda *args, event=event: earlier.append((event, args)))
    model, listener = await connected_model(transport)
    if operation == "connect":
        await model.close()  # connect is refused while disconnected too: the loop still runs
        await asyncio.sleep(0)
    earlier.clear()
    listener.events.clear()
    status, calls = transport.status, transport.calls
    call = THREAD_CALLS[operation]

    async def on_its_own_loop() -> None:
        call(transport)

    def work() -> None:
        if with_loop:
            asyncio.run(on_its_own_loop())
        else:
            call(transport)

    with pytest.raises(RealtimeThreadError) as raised:
        await asyncio.to_thread(work)

    assert raised.value.operation == operation
    message = str(raised.value)
    assert message.startswith(f"ScriptedRealtimeTransport.{operation}() was called from a thread")
    assert f"connected openai-agents realtime model (operation={operation!r})" in message
    assert f"loop.call_soon_threadsafe(transport.{operation}, ...)" in message
    await asyncio.sleep(0)  # a delivery the worker had queued would run here
    assert (transport.status, transport.calls) == (status, calls)
    assert earlier == []
    assert listener.events == []
    # Handed to the loop as the message says, the call goes through.
    loop = asyncio.get_running_loop()
    await asyncio.to_thread(loop.call_soon_threadsafe, call, transport)
    await asyncio.sleep(0)
    assert earlier != []
    if operation == "emit":
        assert await listener.wait_for(1) == [RealtimeModelTurnStartedEvent()]
    else:
        expected = "connected" if operation == "connect" else "disconnected"
        assert transport.status == expected
    await model.close()


async def test_a_connected_model_leaves_expectations_and_their_calls_to_any_thread() -> None:
    # Only what notifies the session's listeners is bound to the model's loop: a worker
    # thread with a loop of its own may still expect a call and make it there.
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)
    await transport.expect_call("connect")

    async def on_its_own_loop() -> int:
        expected = transport.expect_call("interrupt")
        transport.interrupt()
        return (await expected).index

    assert await asyncio.to_thread(asyncio.run, on_its_own_loop()) == 1
    assert [call.method for call in transport.calls] == ["connect", "interrupt"]
    assert listener.events == []
    await model.close()


async def test_a_model_whose_loop_has_finished_binds_no_thread() -> None:
    # A loop that no longer runs belongs to no thread: a later test loop may drive the
    # transport after a model connected and closed on another one.
    transport = ScriptedRealtimeTransport()

    async def connect_and_close() -> None:
        model = openai_agents_realtime_model(transport)
        await model.connect({})
        await model.close()

    await asyncio.to_thread(asyncio.run, connect_and_close())
    seen: list[object] = []
    transport.on("connection_change", seen.append)

    transport.disconnect()
    connect_now(transport)
    transport.close()

    assert seen == ["connecting", "connected", "disconnected"]


# -- the session's view -----------------------------------------------------------------


async def test_the_session_sees_emitted_events_in_emit_order() -> None:
    transport = ScriptedRealtimeTransport()
    session = await open_session(transport)

    transport.emit("turn_started", {"response_id": "r1"})
    transport.emit(
        "audio", {"data": b"\x01", "response_id": "r1", "item_id": "a1", "content_index": 0}
    )
    transport.emit("audio_done")
    transport.emit("turn_done", {"response": {"id": "r1"}})
    seen: list[str] = []
    async for event in session:
        seen.append(f"raw:{event.data.type}" if event.type == "raw_model_event" else event.type)
        if event.type == "agent_end":
            break

    assert seen == [
        "history_updated",  # put by enter() itself, before the delivery task first ran
        "raw:connection_status",  # connecting
        "raw:connection_status",  # connected
        "raw:turn_started",
        "agent_start",
        "raw:audio",
        "audio",
        "raw:audio_done",
        "audio_end",
        "raw:turn_ended",
        "agent_end",
    ]
    await session.close()


async def test_turn_usage_reaches_the_session_usage() -> None:
    transport = ScriptedRealtimeTransport()
    session = await open_session(transport)

    transport.emit("turn_started", {"response_id": "r1"})
    transport.emit(
        "turn_done", {"response": {"id": "r1", "usage": {"input_tokens": 3, "output_tokens": 4}}}
    )
    end = await wait_for_session_event(session, "agent_end")

    usage = end.info.context.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        1,
        3,
        4,
        7,
    )
    await session.close()


async def test_an_updated_item_is_replaced_in_the_session_history() -> None:
    transport = ScriptedRealtimeTransport()
    session = await open_session(transport)
    item = {"item_id": "assistant_1", "type": "message", "role": "assistant"}

    transport.emit("item_update", {**item, "status": "in_progress", "content": []})
    transport.emit(
        "item_update",
        {**item, "status": "completed", "content": [{"type": "output_text", "text": "Done."}]},
    )
    updated = await wait_for_session_event(session, "history_updated", where=lambda e: e.history)

    assert updated.history == [
        AssistantMessageItem(
            item_id="assistant_1", status="completed", content=[AssistantText(text="Done.")]
        )
    ]
    await session.close()


async def test_a_remote_disconnect_ends_the_session_stream_after_its_error() -> None:
    transport = ScriptedRealtimeTransport()
    session = await open_session(transport)
    lost = ConnectionResetError("connection lost")

    transport.disconnect(lost)
    seen = [
        f"raw:{event.data.type}" if event.type == "raw_model_event" else event.type
        async for event in session
    ]

    assert seen[-4:] == ["raw:connection_status", "raw:error", "error", "raw:end_of_stream"]
    await session.close()
    assert [call.method for call in transport.calls] == ["connect"]  # no close after a drop
    transport.assert_closed()


async def test_an_emitted_disconnected_status_ends_the_stream_too() -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)

    transport.emit("connection_change", "disconnected")

    assert await listener.wait_for(2) == [
        RealtimeModelConnectionStatusEvent(status="disconnected"),
        RealtimeModelEndOfStreamEvent(),
    ]
    await model.close()


async def test_closing_delivers_nothing_more_and_leaves_no_task_running() -> None:
    transport = ScriptedRealtimeTransport()
    model, listener = await connected_model(transport)

    transport.emit("turn_started")
    await model.close()  # before the delivery task ran: the event is dropped
    assert only_this_task_is_left()

    transport.emit("turn_done")  # an event emitted after close reaches current listeners
    assert await listener.wait_for(1) == [RealtimeModelTurnEndedEvent()]
    await model.close()
    assert only_this_task_is_left()


async def test_wait_for_session_event_fails_when_the_stream_ends_first() -> None:
    transport = ScriptedRealtimeTransport()
    session = await open_session(transport)

    transport.disconnect()
    with pytest.raises(AssertionError, match="ended before a 'audio' event"):
        await wait_for_session_event(session, "audio")

    await session.close()


async def test_a_scenario_mismatch_fails_the_run_and_the_session_still_closes() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("send_audio")
        await ctx.expect_call("close")

    async def exercise() -> None:
        async with await runner(transport).run() as session:
            await session.send_message("Hello")
            await wait_for_session_event(session, "agent_start")

    with pytest.raises(AssertionError, match="expected send_audio but received send_message"):
        await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    transport.assert_closed()
    assert only_this_task_is_left()


# -- construction and import --------------------------------------------------------------


def test_the_adapter_needs_a_scripted_transport() -> None:
    with pytest.raises(TypeError, match="ScriptedRealtimeTransport"):
        openai_agents_realtime_model(object())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "kwargs", "named"),
    [
        pytest.param((5, "agent_end"), {}, "session must be a RealtimeSession", id="session"),
        pytest.param((None, "agent_end"), {}, "session must be a RealtimeSession", id="none"),
        pytest.param(("session", 5), {}, "event_type must be an event type name", id="type"),
        pytest.param(("session", "agent_end"), {"where": 1}, "where must be callable", id="where"),
    ],
)
async def test_wait_for_session_event_refuses_bad_arguments_by_name(
    args: tuple[Any, ...], kwargs: dict[str, Any], named: str
) -> None:
    # Found by tests/reliability: a wrong session raised AttributeError from inside.
    transport = ScriptedRealtimeTransport()
    if args[0] == "session":
        session = await runner(transport).run()
        args = (session, *args[1:])
    with pytest.raises(TypeError, match=named) as info:
        await wait_for_session_event(*args, **kwargs)
    assert str(info.value).startswith("wait_for_session_event() ")
