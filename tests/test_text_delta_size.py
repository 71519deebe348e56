"""``ScriptedModel(text_delta_size=N)``: a plain step's text streamed in several deltas.

The core's automatic stream cuts each text part; every adapter's stream carries the same
deltas (the wire formats are tested in tests/wire/test_script_failures.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from agents_testing import ModelRequest, ScriptedModel, assistant_message, function_call

TEXT = "Paris is the capital of France."


async def core_events(model: ScriptedModel) -> list[Any]:
    return [event async for event in model.stream_response(ModelRequest(input="hi"))]


async def test_the_core_stream_cuts_each_text_part() -> None:
    model = ScriptedModel(
        [
            [
                assistant_message(TEXT, id="m1"),
                function_call("f", {}, call_id="c"),
                assistant_message(""),
            ]
        ],
        text_delta_size=10,
    )

    events = await core_events(model)

    deltas = [
        (event["item_id"], event["delta"])
        for event in events
        if event["type"] == "output_text_delta"
    ]
    assert deltas == [
        ("m1", "Paris is t"),
        ("m1", "he capital"),
        ("m1", " of France"),
        ("m1", "."),
        (None, ""),  # an empty text is still one delta, as with the default
    ]
    assert events[-1]["type"] == "response_done"
    assert model.text_delta_size == 10


async def test_by_default_each_text_part_is_one_delta() -> None:
    model = ScriptedModel([[assistant_message(TEXT)]])

    events = await core_events(model)

    assert [event["delta"] for event in events if event["type"] == "output_text_delta"] == [TEXT]
    assert model.text_delta_size is None


async def test_an_exact_stream_is_not_cut() -> None:
    from agents_testing import model_stream

    delta = {"type": "output_text_delta", "item_id": None, "delta": TEXT}
    model = ScriptedModel([model_stream([delta])], text_delta_size=3)

    events = await core_events(model)

    assert events == [delta]


async def test_openai_agents_streams_the_deltas() -> None:
    agents = pytest.importorskip("agents")
    from agents_testing.adapters.openai_agents import openai_agents_model

    model = ScriptedModel([[assistant_message(TEXT)]], text_delta_size=8)
    agent = agents.Agent(name="Geography", model=openai_agents_model(model))

    result = agents.Runner.run_streamed(
        agent, "Capital?", run_config=agents.RunConfig(tracing_disabled=True)
    )
    deltas = [
        event.data.delta
        async for event in result.stream_events()
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta"
    ]

    assert deltas == ["Paris is", " the cap", "ital of ", "France."]
    assert result.final_output == TEXT


async def test_langchain_streams_the_deltas() -> None:
    pytest.importorskip("langchain_core")
    from agents_testing.adapters.langchain import langchain_chat_model

    model = ScriptedModel([[assistant_message(TEXT)]], text_delta_size=8)

    chunks = [chunk async for chunk in langchain_chat_model(model).astream("Capital?")]

    texts = [chunk.content for chunk in chunks if chunk.content]
    assert texts == ["Paris is", " the cap", "ital of ", "France."]


async def test_pydantic_ai_streams_the_deltas() -> None:
    pydantic_ai = pytest.importorskip("pydantic_ai")
    from agents_testing.adapters.pydantic_ai import pydantic_ai_model

    model = ScriptedModel([[assistant_message(TEXT)]], text_delta_size=8)
    agent = pydantic_ai.Agent(pydantic_ai_model(model))

    async with agent.run_stream("Capital?") as streamed:
        deltas = [delta async for delta in streamed.stream_text(delta=True, debounce_by=None)]

    assert deltas == ["Paris is", " the cap", "ital of ", "France."]
