"""pydantic-ai and LangGraph rows: the same agent on our adapter and on the framework's double."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

from _harness import Row, compare, cpu_seconds, cpu_seconds_async

from agents_testing import ScriptedModel, assistant_message, function_call

GROUP = "frameworks"


def script(turns: int) -> list[Any]:
    steps: list[Any] = [
        [function_call("lookup", {"q": turn}, call_id=f"c{turn}")] for turn in range(turns - 1)
    ]
    steps.append([assistant_message("done")])
    return steps


def pydantic_ai_row(repeats: int, turns: int) -> Row:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from agents_testing.adapters.pydantic_ai import pydantic_ai_model

    agent = Agent(instructions="Look numbers up.")

    @agent.tool_plain
    def lookup(q: int) -> str:
        """Look a number up."""
        return f"found {q}"

    def run(make_model: Callable[[], Any]) -> float:
        # Timed: what a test does, for both sides alike: build the double with its script
        # (ours from scripted items, FunctionModel from a function that builds each
        # ModelResponse when called), then run the agent.
        async def go() -> None:
            result = await agent.run("go", model=make_model())
            assert result.output == "done"

        return cpu_seconds_async(go)

    def function_model() -> Any:
        calls = 0

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            nonlocal calls
            turn, calls = calls, calls + 1
            if turn < turns - 1:
                return ModelResponse(
                    parts=[ToolCallPart("lookup", {"q": turn}, tool_call_id=f"c{turn}")]
                )
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(respond)

    return compare(
        GROUP,
        f"pydantic-ai agent, {turns}-turn tool run (per run)",
        "same agent on pydantic_ai FunctionModel",
        lambda: run(lambda: pydantic_ai_model(ScriptedModel(script(turns)))),
        lambda: run(function_model),
        repeats=repeats,
        goal="<= 1.0",
    )


def langgraph_row(repeats: int, turns: int) -> Row:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated in favor of langchain's
        from langgraph.prebuilt import create_react_agent

    from agents_testing.adapters.langchain import langchain_chat_model

    @tool
    def lookup(q: int) -> str:
        """Look a number up."""
        return f"found {q}"

    class FakeToolChatModel(GenericFakeChatModel):
        """The framework's fake chat model, binding tools as ReAct needs.

        It binds them the way chat models do (LangGraph's own tool-calling test model too):
        as OpenAI-format schemas on a ``RunnableBinding``, so both sides run the same graph.
        """

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def fake_model() -> Any:
        replies = [
            AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": turn}, "id": f"c{turn}"}])
            for turn in range(turns - 1)
        ]
        replies.append(AIMessage("done"))
        return FakeToolChatModel(messages=iter(replies))

    def run(build: Callable[[], Any]) -> float:
        # Timed on both sides alike: what a test does with its double, building it with its
        # script (the fake's replies, our steps) and running the graph. The graph itself is
        # the same framework work on both sides, built untimed between the two.
        start = time.process_time()
        model = build()
        built = time.process_time() - start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = create_react_agent(model, [lookup])

        def go() -> None:
            state = graph.invoke({"messages": [("user", "go")]}, {"recursion_limit": 2 * turns + 5})
            assert state["messages"][-1].content == "done"

        return built + cpu_seconds(go)

    return compare(
        GROUP,
        f"LangGraph ReAct agent, {turns}-turn tool run (per run)",
        "same graph on a GenericFakeChatModel subclass that binds tools",
        lambda: run(lambda: langchain_chat_model(ScriptedModel(script(turns)))),
        lambda: run(fake_model),
        repeats=repeats,
        goal="<= 1.0",
    )


def rows(quick: bool) -> list[Row]:
    repeats = 1 if quick else 5
    turns = 3 if quick else 20
    # FunctionModel runs a plain function in a worker thread, which makes its run time vary
    # widely on a busy machine: more repeats steady the median ratio.
    return [pydantic_ai_row(1 if quick else 15, turns), langgraph_row(repeats, turns)]
