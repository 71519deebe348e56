"""LangChain callbacks of a LangGraph run over a scripted chat model, read as a normalized tree."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langgraph")

from langchain.agents import create_agent
from langchain_core.tools import tool

from agents_testing import (
    ModelResponse,
    ScriptedModel,
    TraceTree,
    Usage,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.adapters.langchain import capture_langchain_runs, langchain_chat_model


@tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def weather_script() -> ScriptedModel:
    return ScriptedModel(
        [
            ModelResponse(
                [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
                Usage(requests=1, input_tokens=20, output_tokens=5),
            ),
            ModelResponse(
                [assistant_message("Sunny in Tokyo.")],
                Usage(requests=1, input_tokens=30, output_tokens=4),
            ),
        ]
    )


def traced_run(model: ScriptedModel) -> TraceTree:
    # Run synchronously: before Python 3.11, LangChain cannot hand its callbacks from an async
    # graph node to the chat model it calls (asyncio tasks take no context there), so an async
    # run's tree lacks the model runs. LangChain's docs say to pass config by hand there.
    capture = capture_langchain_runs()
    graph: Any = create_agent(langchain_chat_model(model), [get_weather])
    graph.invoke(
        {"messages": [("user", "Weather in Tokyo?")]}, config={"callbacks": [capture.handler]}
    )
    return capture.tree()


def test_a_langgraph_run_gives_this_tree() -> None:
    tree = traced_run(weather_script())

    # The graph's own runs (LangGraph, one chain per node) keep their names and nesting.
    assert tree.shape().as_data() == [
        {
            "name": "LangGraph",
            "kind": "chain",
            "children": [
                {
                    "name": "model",
                    "kind": "chain",
                    "children": [{"name": "ScriptedChatModel", "kind": "llm"}],
                },
                {
                    "name": "tools",
                    "kind": "chain",
                    "children": [{"name": "get_weather", "kind": "tool"}],
                },
                {
                    "name": "model",
                    "kind": "chain",
                    "children": [{"name": "ScriptedChatModel", "kind": "llm"}],
                },
            ],
        }
    ]
    graph = tree.roots[0]
    assert (graph.name, graph.kind) == ("LangGraph", "chain")
    models = tree.spans(kind="llm")
    assert [
        (span.attributes["langgraph_node"], span.attributes["langgraph_step"]) for span in models
    ] == [("model", 1), ("model", 3)]
    assert [span.attributes["tool_calls"] for span in models] == [
        [{"name": "get_weather", "args": {"city": "Tokyo"}, "id": "call_1"}],
        [],
    ]
    assert [span.attributes["text"] for span in models] == ["", "Sunny in Tokyo."]
    assert models[1].attributes["usage"] == {
        "input_tokens": 30,
        "output_tokens": 4,
        "total_tokens": 34,
    }
    (weather,) = tree.spans(kind="tool")
    assert weather.name == "get_weather"
    assert (weather.attributes["input"], weather.attributes["output"]) == (
        {"city": "Tokyo"},
        "Tokyo: sunny",
    )
    # The tool runs inside the tools node, a child of the graph run.
    tools_node = next(span for span in graph.children if span.name == "tools")
    assert weather in tools_node.walk()


def test_the_same_run_gives_an_equal_tree_every_time() -> None:
    first = traced_run(weather_script())
    second = traced_run(weather_script())

    assert first == second
    assert "langgraph_checkpoint_ns" not in str(first.as_data())


async def test_the_error_of_a_failing_model_run_is_in_its_span() -> None:
    capture = capture_langchain_runs()
    chat = langchain_chat_model(ScriptedModel([model_error(RuntimeError("503 overloaded"))]))

    with pytest.raises(RuntimeError):
        await chat.ainvoke("Hi", config={"callbacks": [capture.handler]})

    (run,) = capture.tree().roots
    assert "503 overloaded" in run.error
    capture.clear()
    assert capture.tree() == TraceTree()
