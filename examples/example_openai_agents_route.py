"""Test an app that builds its own agents and calls Runner itself, with no model and no network.

``support_app`` creates its agents at import time with real model names and runs them itself:
a guardrail agent, an agent used as a tool, a traced ``main()``. ``route_openai_agents_models``
answers every model call of every run inside the block from scripts, and turns tracing off.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("agents")

import support_app

from agents_testing import ScriptedModel, UnscriptedAgentError, assistant_message, function_call
from agents_testing.adapters.openai_agents import route_openai_agents_models

ON_TOPIC = [assistant_message('{"off_topic": false}')]


# -- one script for every agent -----------------------------------------------------------------


@pytest.mark.asyncio
async def test_answers_every_agent_from_one_script() -> None:
    model = ScriptedModel(
        [
            ON_TOPIC,  # the guardrail's agent runs first
            [function_call("ask_orders", {"input": "Status of order 123?"}, call_id="call_1")],
            [function_call("lookup_order", {"order_id": "123"}, call_id="call_2")],
            [assistant_message("Order 123 has shipped.")],  # the order agent's answer
            [assistant_message("Your order 123 has shipped.")],
        ]
    )

    with route_openai_agents_models(model) as route:
        answer = await support_app.main("Where is order 123?")

    assert answer == "Your order 123 has shipped."
    assert route.agent_names == (
        "Topic checker",
        "Triage",
        "Order lookup",
        "Order lookup",
        "Triage",
    )
    model.assert_complete()


# -- one script per agent -----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_scripts_each_agent_by_name() -> None:
    models = {
        "Topic checker": ScriptedModel([ON_TOPIC]),
        "Triage": ScriptedModel(
            [
                [function_call("ask_orders", {"input": "Status of order 123?"}, call_id="call_1")],
                [assistant_message("Your order 123 has shipped.")],
            ]
        ),
        "Order lookup": ScriptedModel(
            [
                [function_call("lookup_order", {"order_id": "123"}, call_id="call_2")],
                [assistant_message("Order 123 has shipped.")],
            ]
        ),
    }

    with route_openai_agents_models(models):
        answer = await support_app.main("Where is order 123?")

    assert answer == "Your order 123 has shipped."
    first_order_call = models["Order lookup"].calls[0]
    assert first_order_call.request.input == [{"content": "Status of order 123?", "role": "user"}]
    for model in models.values():
        model.assert_complete()


@pytest.mark.asyncio
async def test_reports_an_agent_without_a_script() -> None:
    models = {
        "Topic checker": ScriptedModel([ON_TOPIC]),
        "Triage": ScriptedModel(
            [
                [function_call("ask_orders", {"input": "Status of order 123?"}, call_id="call_1")],
                [assistant_message("Sorry, I could not look that up.")],
            ]
        ),
    }

    # The SDK turns the failing agent tool into a tool message; the block still fails.
    with pytest.raises(UnscriptedAgentError) as raised, route_openai_agents_models(models):
        await support_app.main("Where is order 123?")

    assert raised.value.agent_name == "Order lookup"
    assert raised.value.reason == "no_script"
    assert 'add "Order lookup": ScriptedModel([...])' in str(raised.value)


# -- a fixture for every test of the app ------------------------------------------------------


@pytest.fixture
def support_models() -> Iterator[dict[str, ScriptedModel]]:
    models = {
        "Topic checker": ScriptedModel([ON_TOPIC]),
        "Triage": ScriptedModel([]),
        "Order lookup": ScriptedModel([]),
    }
    with route_openai_agents_models(models):
        yield models
    for model in models.values():
        model.assert_complete()


@pytest.mark.asyncio
async def test_answers_without_asking_the_order_agent(
    support_models: dict[str, ScriptedModel],
) -> None:
    support_models["Triage"].enqueue([assistant_message("We ship within two days.")])

    answer = await support_app.main("How fast do you ship?")

    assert answer == "We ship within two days."
    assert support_models["Order lookup"].calls == ()
