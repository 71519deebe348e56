"""An application under test: agents built at import time, runs started by the app itself.

Nothing here knows about agents-testing. The agents name real models (strings, and one
``Model`` instance with its own client), and the app calls ``Runner`` itself: a guardrail
agent, two agents used as tools (called concurrently when the model asks for both), a
handoff, and streamed and synchronous entry points.
"""

from __future__ import annotations

from typing import Any

from agents import (
    Agent,
    GuardrailFunctionOutput,
    OpenAIChatCompletionsModel,
    RunConfig,
    RunContextWrapper,
    Runner,
    TResponseInputItem,
    function_tool,
    input_guardrail,
    trace,
)
from openai import AsyncOpenAI
from pydantic import BaseModel


class HomeworkCheck(BaseModel):
    is_homework: bool


@function_tool
def glossary(term: str) -> str:
    """Looks up the house translation of a term."""
    return f"glossary[{term}]"


homework_checker = Agent(
    name="Homework checker",
    instructions="Say whether the user asks for homework help.",
    model="gpt-4.1-mini",
    output_type=HomeworkCheck,
)


@input_guardrail(run_in_parallel=False)
async def no_homework(
    ctx: RunContextWrapper[Any], agent: Agent[Any], question: str | list[TResponseInputItem]
) -> GuardrailFunctionOutput:
    result = await Runner.run(homework_checker, question, context=ctx.context)
    check = result.final_output_as(HomeworkCheck)
    return GuardrailFunctionOutput(output_info=check, tripwire_triggered=check.is_homework)


spanish_agent = Agent(
    name="Spanish translator",
    instructions="Translate to Spanish; look terms up in the glossary first.",
    model="gpt-4.1",
    tools=[glossary],
)
french_agent = Agent(
    name="French translator",
    instructions="Translate to French; look terms up in the glossary first.",
    # A provider picked at import time, as apps that talk to another endpoint do.
    model=OpenAIChatCompletionsModel(
        model="gpt-4.1", openai_client=AsyncOpenAI(api_key="sk-import-time-not-real")
    ),
    tools=[glossary],
)
billing_agent = Agent(name="Billing", instructions="Answer billing questions.", model="gpt-4.1")
triage_agent = Agent(
    name="Triage",
    instructions="Route the question, or translate it with the translators.",
    model="gpt-4.1",
    tools=[
        spanish_agent.as_tool(tool_name="to_spanish", tool_description="Translate to Spanish."),
        french_agent.as_tool(tool_name="to_french", tool_description="Translate to French."),
    ],
    handoffs=[billing_agent],
    input_guardrails=[no_homework],
)


async def answer(question: str, run_config: RunConfig | None = None) -> str:
    """Answer a support question."""
    with trace("Support desk"):
        result = await Runner.run(triage_agent, question, run_config=run_config)
    return str(result.final_output)


async def answer_streamed(question: str) -> tuple[list[str], str]:
    """Answer while streaming: return the text deltas and the final answer."""
    result = Runner.run_streamed(triage_agent, question)
    deltas = [
        event.data.delta
        async for event in result.stream_events()
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta"
    ]
    return deltas, str(result.final_output)


def answer_sync(question: str) -> str:
    """Answer from synchronous code."""
    return str(Runner.run_sync(triage_agent, question).final_output)
