"""A support desk built the usual way: agents at import time, and the app calls Runner itself.

``example_openai_agents_route.py`` tests it without changing a line here.
"""

from __future__ import annotations

from agents import (
    Agent,
    GuardrailFunctionOutput,
    RunContextWrapper,
    Runner,
    TResponseInputItem,
    function_tool,
    input_guardrail,
    trace,
)
from pydantic import BaseModel


class TopicCheck(BaseModel):
    off_topic: bool


topic_checker = Agent(
    name="Topic checker",
    instructions="Say whether the question is about something other than our orders.",
    model="gpt-4.1-mini",
    output_type=TopicCheck,
)


@input_guardrail(run_in_parallel=False)
async def on_topic(
    ctx: RunContextWrapper[None], agent: Agent[None], question: str | list[TResponseInputItem]
) -> GuardrailFunctionOutput:
    result = await Runner.run(topic_checker, question, context=ctx.context)
    check = result.final_output_as(TopicCheck)
    return GuardrailFunctionOutput(output_info=check, tripwire_triggered=check.off_topic)


@function_tool
def lookup_order(order_id: str) -> str:
    """Look up an order's status."""
    return f"{order_id}: shipped"


order_agent = Agent(
    name="Order lookup",
    instructions="Look the order up and report its status.",
    model="gpt-4.1-mini",
    tools=[lookup_order],
)
triage_agent = Agent(
    name="Triage",
    instructions="Answer questions about orders; ask the order agent for order details.",
    model="gpt-4.1",
    tools=[order_agent.as_tool(tool_name="ask_orders", tool_description="Ask about an order.")],
    input_guardrails=[on_topic],
)


async def main(question: str) -> str:
    with trace("Support desk"):
        result = await Runner.run(triage_agent, question)
    return str(result.final_output)
