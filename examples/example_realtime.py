"""Test a voice session against ScriptedRealtimeTransport with run_scenario."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agents_testing import (
    RealtimeScenarioContext,
    ScriptedRealtimeTransport,
    SendFunctionCallOutputCall,
)


class WeatherVoiceSession:
    """The application code under test: a tiny voice session with one tool."""

    def __init__(self, transport: ScriptedRealtimeTransport) -> None:
        self.transport = transport
        # Listeners are synchronous; this one answers the tool call right away.
        transport.on("function_call", self._on_function_call)

    async def start(self) -> None:
        await self.transport.connect({"api_key": "test-key", "model": "gpt-realtime"})

    def ask(self, text: str) -> None:
        self.transport.send_message(text)

    def close(self) -> None:
        self.transport.close()

    def _on_function_call(self, call: dict[str, Any]) -> None:
        city = json.loads(call["arguments"])["city"]
        self.transport.send_function_call_output(call, f"Sunny in {city}", True)


@pytest.mark.asyncio
async def test_voice_session_answers_a_weather_tool_call() -> None:
    transport = ScriptedRealtimeTransport()
    session = WeatherVoiceSession(transport)
    answered = asyncio.Event()

    # The model side: expect the session's outbound calls in order, emit inbound events.
    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("connect", lambda call: call.options["api_key_provided"])
        await ctx.expect_call("send_message", lambda call: call.message == "Weather in Paris?")
        ctx.emit(
            "function_call",
            {
                "type": "function_call",
                "name": "get_weather",
                "call_id": "call_1",
                "arguments": json.dumps({"city": "Paris"}),
            },
        )

        # A matcher may assert; returning exactly False also rejects the call.
        def sends_the_forecast(call: SendFunctionCallOutputCall) -> None:
            assert call.tool_call["call_id"] == "call_1"
            assert call.output == "Sunny in Paris"

        await ctx.expect_call("send_function_call_output", sends_the_forecast)
        answered.set()
        await ctx.expect_call("close")

    # The application side: drive the session like the app would.
    async def exercise() -> None:
        try:
            await session.start()
            session.ask("Weather in Paris?")
            await answered.wait()
        finally:
            session.close()  # also runs if a failing run cancels this side

    # The timeout bounds the two sides waiting on each other if a call never comes.
    await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=5)

    transport.assert_complete()  # every call matched, nothing left pending
    transport.assert_closed()  # the session closed the connection
