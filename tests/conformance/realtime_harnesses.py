"""A realtime harness for the openai-agents realtime adapter, run through the conformance kit.

Import this module after ``importorskip("agents")``.
"""

from __future__ import annotations

from typing import Any

from agents import function_tool
from agents.realtime import RealtimeAgent, RealtimeModel, RealtimeRunner, RealtimeSession

from agents_testing import ScriptedRealtimeTransport
from agents_testing.adapters.openai_agents import (
    openai_agents_realtime_model,
    wait_for_session_event,
)
from agents_testing.conformance import Reply


@function_tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


class OpenAIAgentsRealtimeHarness:
    """A RealtimeSession of the real RealtimeRunner over the adapter."""

    framework = "openai-agents"

    def model(self, transport: ScriptedRealtimeTransport) -> RealtimeModel:
        return openai_agents_realtime_model(transport)

    async def open(self, transport: ScriptedRealtimeTransport) -> RealtimeSession:
        agent = RealtimeAgent(name="Assistant", tools=[get_weather])
        runner = RealtimeRunner(
            agent, model=self.model(transport), config={"tracing_disabled": True}
        )
        session = await runner.run(model_config={"api_key": "sk-test"})
        await session.enter()
        return session

    async def send_text(self, session: RealtimeSession, text: str) -> None:
        await session.send_message(text)

    async def wait_for_tool_output(self, session: RealtimeSession) -> None:
        await wait_for_session_event(session, "tool_end")

    async def wait_for_turn(self, session: RealtimeSession) -> Reply:
        deltas: list[str] = []
        async for event in session:
            if event.type == "raw_model_event" and event.data.type == "transcript_delta":
                deltas.append(event.data.delta)
            if event.type == "agent_end":
                usage: Any = event.info.context.usage
                return Reply(
                    "".join(deltas),
                    text_deltas=tuple(deltas),
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                )
        raise AssertionError("the session's event stream ended before the turn did")

    async def close(self, session: RealtimeSession) -> None:
        await session.close()
