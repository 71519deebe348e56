"""Test openai-agents voice agents: a real RealtimeSession over a ScriptedRealtimeTransport."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("agents")

from agents import function_tool
from agents.realtime import (
    AssistantMessageItem,
    AssistantText,
    InputText,
    RealtimeAgent,
    RealtimeItem,
    RealtimeRunner,
    RealtimeSession,
    UserMessageItem,
)

from agents_testing import (
    RealtimeScenarioContext,
    ScriptedRealtimeTransport,
    SendFunctionCallOutputCall,
)
from agents_testing.adapters.openai_agents import (
    openai_agents_realtime_model,
    wait_for_session_event,
)


def realtime_runner(transport: ScriptedRealtimeTransport, agent: RealtimeAgent) -> RealtimeRunner:
    """Return a real runner whose model talks to the scripted transport, without tracing."""
    model = openai_agents_realtime_model(transport)
    return RealtimeRunner(agent, model=model, config={"tracing_disabled": True})


@pytest.mark.asyncio
async def test_executes_a_realtime_agent_tool_call() -> None:
    looked_up: list[str] = []

    @function_tool
    def lookup_order(order_id: str) -> str:
        """Look up an order by ID."""
        looked_up.append(order_id)
        return f"Order {order_id} has shipped."

    agent = RealtimeAgent(
        name="Order assistant",
        instructions="Help customers track their orders.",
        tools=[lookup_order],
    )
    transport = ScriptedRealtimeTransport()

    # The model side: match the session's outbound calls, emit normalized inbound events.
    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("send_message", lambda call: call.message == "Where is order 123?")
        # Script the model choosing the agent's tool; the session runs the real tool.
        ctx.emit(
            "turn_started",
            {"type": "response_started", "provider_data": {"response": {"id": "response_1"}}},
        )
        ctx.emit(
            "function_call",
            {
                "type": "function_call",
                "name": "lookup_order",
                "call_id": "call_1",
                "arguments": json.dumps({"order_id": "order_123"}),
            },
        )

        def answers_the_call(call: SendFunctionCallOutputCall) -> None:
            assert call.tool_call["call_id"] == "call_1"
            assert call.output == "Order order_123 has shipped."
            assert call.start_response is True

        await ctx.expect_call("send_function_call_output", answers_the_call)
        await ctx.expect_call("close")

    # The application side: drive the public session API.
    async def exercise() -> None:
        runner = realtime_runner(transport, agent)
        # Entering connects (a `connect` call); leaving closes, even if the scenario fails.
        async with await runner.run(model_config={"api_key": "test"}) as session:
            await session.send_message("Where is order 123?")
            # Tool calls run in the background; the session reports the end on its stream.
            await wait_for_session_event(session, "tool_end")

    # The timeout bounds a run in which the tool output is never sent.
    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    assert looked_up == ["order_123"]
    transport.assert_complete()
    transport.assert_closed()


@pytest.mark.asyncio
async def test_runs_a_two_turn_realtime_conversation() -> None:
    transport = ScriptedRealtimeTransport()
    # Normalized items, as a transport reports them.
    conversation = [
        {"item_id": "user_1", "type": "message", "role": "user", "status": "completed",
         "content": [{"type": "input_text", "text": "Hello"}]},
        {"item_id": "assistant_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Hi! How can I help?"}]},
        {"item_id": "user_2", "type": "message", "role": "user", "status": "completed",
         "content": [{"type": "input_text", "text": "What did I just say?"}]},
        {"item_id": "assistant_2", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "You said hello."}]},
    ]  # fmt: skip
    history: list[RealtimeItem] = []

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("send_message", lambda call: call.message == "Hello")
        ctx.emit("item_update", conversation[0])
        ctx.emit("item_update", conversation[1])
        await ctx.expect_call("send_message", lambda call: call.message == "What did I just say?")
        ctx.emit("item_update", conversation[2])
        ctx.emit("item_update", conversation[3])
        await ctx.expect_call("close")

    async def until_history_has(session: RealtimeSession, item_id: str) -> None:
        # The session's stream is the gate: each new item arrives as history_added.
        while True:
            event = await wait_for_session_event(session, "history_added")
            history.append(event.item)
            if event.item.item_id == item_id:
                return

    async def exercise() -> None:
        runner = realtime_runner(transport, RealtimeAgent(name="Assistant"))
        async with await runner.run(model_config={"api_key": "test"}) as session:
            await session.send_message("Hello")
            await until_history_has(session, "assistant_1")
            await session.send_message("What did I just say?")
            await until_history_has(session, "assistant_2")

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    # The SDK's own items: assistant output_text parts are its AssistantText parts.
    assert history == [
        UserMessageItem(item_id="user_1", content=[InputText(text="Hello")]),
        AssistantMessageItem(
            item_id="assistant_1",
            status="completed",
            content=[AssistantText(text="Hi! How can I help?")],
        ),
        UserMessageItem(item_id="user_2", content=[InputText(text="What did I just say?")]),
        AssistantMessageItem(
            item_id="assistant_2",
            status="completed",
            content=[AssistantText(text="You said hello.")],
        ),
    ]
    transport.assert_complete()
    transport.assert_closed()


@pytest.mark.asyncio
async def test_sends_an_interrupt_request_through_the_transport() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("send_message")
        # The start of an assistant utterance. Python's audio events name their item.
        ctx.emit(
            "turn_started",
            {"type": "response_started", "provider_data": {"response": {"id": "response_1"}}},
        )
        ctx.emit(
            "audio",
            {"type": "audio", "response_id": "response_1", "item_id": "assistant_1",
             "content_index": 0, "data": b"\x01\x02\x03"},
        )  # fmt: skip
        await ctx.expect_call("interrupt")
        await ctx.expect_call("close")

    async def exercise() -> None:
        runner = realtime_runner(transport, RealtimeAgent(name="Assistant"))
        async with await runner.run(model_config={"api_key": "test"}) as session:
            await session.send_message("Tell me a long story")
            # Interrupt only once the session has seen the audio, as a stop button would.
            await wait_for_session_event(session, "audio")
            await session.interrupt()

    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    transport.assert_complete()
    transport.assert_closed()


@pytest.mark.asyncio
async def test_forwards_an_interruption_notification_to_the_application() -> None:
    transport = ScriptedRealtimeTransport()
    runner = realtime_runner(transport, RealtimeAgent(name="Assistant"))
    session = await runner.run(model_config={"api_key": "test"})
    connect_call = transport.expect_call("connect")
    await session.enter()
    await connect_call

    # Independently, the transport can tell the session that playback was interrupted.
    transport.emit("audio_interrupted")
    event = await wait_for_session_event(session, "audio_interrupted")
    # Python's event names the interrupted item: the last audio's, or "" before any audio.
    assert (event.item_id, event.content_index) == ("", 0)

    close_call = transport.expect_call("close")
    await session.close()
    await close_call
    transport.assert_complete()
    transport.assert_closed()


@pytest.mark.asyncio
async def test_injects_a_transport_failure_into_the_next_matching_call() -> None:
    transport = ScriptedRealtimeTransport()
    failure = ConnectionError("connection failed")
    # The failed attempt is still recorded and must satisfy the expectation.
    transport.fail_next_call("connect", failure)
    connect_call = transport.expect_call("connect")

    runner = realtime_runner(transport, RealtimeAgent(name="Assistant"))
    session = await runner.run(model_config={"api_key": "test"})
    with pytest.raises(ConnectionError) as raised:
        await session.enter()

    assert raised.value is failure
    assert (await connect_call).method == "connect"
    assert transport.status == "disconnected"
    transport.assert_complete()
    transport.assert_closed()


@pytest.mark.asyncio
async def test_reports_a_remote_disconnect() -> None:
    transport = ScriptedRealtimeTransport()
    lost = ConnectionResetError("connection lost")

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect")
        await ctx.expect_call("send_message")
        # The server drops the connection: no `close` call is made or expected.
        transport.disconnect(lost)

    async def exercise() -> list[object]:
        runner = realtime_runner(transport, RealtimeAgent(name="Assistant"))
        async with await runner.run(model_config={"api_key": "test"}) as session:
            await session.send_message("Hello")
            # The drop ends the session's event stream, after the transport's error.
            return [event.error async for event in session if event.type == "error"]

    errors = await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    assert errors == [lost]
    transport.assert_complete()
    transport.assert_closed()
