"""Scripted openai-agents runs open no socket, even with an API key in the environment."""

from __future__ import annotations

import socket
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("agents")

import httpx
import openai
from agents import (
    Agent,
    ModelTracing,
    OpenAIProvider,
    RunConfig,
    Runner,
    flush_traces,
    function_tool,
)
from agents.tracing.processors import BackendSpanExporter

from agents_testing import ScriptedModel, assistant_message, function_call
from agents_testing.adapters.openai_agents import openai_agents_model, route_openai_agents_models

from . import support_desk_app

RUN_CONFIG = RunConfig(tracing_disabled=True)


@function_tool
def get_weather(city: str) -> str:
    """Gets the weather for a city."""
    return f"{city}: sunny"


@pytest.fixture
def network_attempts(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count every attempt to create an internet socket, resolve a name or connect."""
    attempts: Counter[str] = Counter()

    def counting(name: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            attempts[name] += 1
            return real(*args, **kwargs)

        return wrapper

    real_init = socket.socket.__init__

    def counting_init(self: socket.socket, family: Any = -1, *args: Any, **kwargs: Any) -> None:
        # The event loop's own wake-up socket pair is local (AF_UNIX); count anything else.
        if family not in (-1, socket.AF_UNIX):
            attempts["socket"] += 1
        real_init(self, family, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "__init__", counting_init)
    # Wrap whatever is installed now (the suite's network guard), so attempts are counted even
    # if some library catches the guard's error.
    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, counting(name, getattr(socket.socket, name)))
    for name in ("getaddrinfo", "create_connection"):
        monkeypatch.setattr(socket, name, counting(name, getattr(socket, name)))
    return attempts


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # A key in the environment is what would let the SDK's trace exporter reach the network.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_streamed"])
async def test_fixed_answer_run_opens_no_socket(
    network_attempts: Counter[str], stream: bool
) -> None:
    model = ScriptedModel([[assistant_message("Paris is the capital of France.")]])
    agent = Agent(name="Geography assistant", model=openai_agents_model(model))

    if stream:
        result: Any = Runner.run_streamed(agent, "Capital of France?", run_config=RUN_CONFIG)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, "Capital of France?", run_config=RUN_CONFIG)

    assert result.final_output == "Paris is the capital of France."
    assert network_attempts == Counter()
    assert model.calls[0].request.tracing is ModelTracing.DISABLED


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_streamed"])
async def test_tool_workflow_opens_no_socket(network_attempts: Counter[str], stream: bool) -> None:
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [assistant_message("It is sunny in Tokyo.")],
        ]
    )
    agent = Agent(name="Weather assistant", model=openai_agents_model(model), tools=[get_weather])

    if stream:
        result: Any = Runner.run_streamed(agent, "Weather in Tokyo?", run_config=RUN_CONFIG)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, "Weather in Tokyo?", run_config=RUN_CONFIG)

    assert result.final_output == "It is sunny in Tokyo."
    assert network_attempts == Counter()
    assert [call.request.tracing for call in model.calls] == [ModelTracing.DISABLED] * 2


async def test_a_routed_app_opens_no_socket_and_never_uses_the_key(
    network_attempts: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Everything that could read OPENAI_API_KEY to reach the network, counted: new OpenAI
    # clients, the SDK's model provider, HTTP requests and the trace exporter.
    uses: Counter[str] = Counter()
    exported: list[Any] = []

    def counting(name: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            uses[name] += 1
            return real(*args, **kwargs)

        return wrapper

    for owner, name in [
        (openai.AsyncOpenAI, "__init__"),
        (openai.OpenAI, "__init__"),
        (OpenAIProvider, "get_model"),
        (httpx.AsyncClient, "send"),
        (httpx.Client, "send"),
    ]:
        monkeypatch.setattr(owner, name, counting(f"{owner.__name__}.{name}", getattr(owner, name)))
    monkeypatch.setattr(BackendSpanExporter, "export", lambda _self, items: exported.extend(items))
    models = {
        "Homework checker": ScriptedModel([[assistant_message('{"is_homework": false}')]] * 2),
        "Triage": ScriptedModel(
            [
                [function_call("to_french", {"input": "invoice"}, call_id="call_fr")],
                [assistant_message("facture")],
                [assistant_message("Streamed.")],
            ]
        ),
        "French translator": ScriptedModel(
            [
                [function_call("glossary", {"term": "invoice"}, call_id="call_g")],
                [assistant_message("facture")],
            ]
        ),
    }

    with route_openai_agents_models(models):
        # The app opens its own trace("Support desk") around the run.
        assert await support_desk_app.answer("Translate 'invoice'") == "facture"
        assert await support_desk_app.answer_streamed("Hi") == (["Streamed."], "Streamed.")
    flush_traces()

    assert network_attempts == Counter()
    assert uses == Counter()
    assert [item for item in exported if getattr(item, "name", None) == "Support desk"] == []
    for model in models.values():
        model.assert_complete()


def test_the_counter_sees_a_connection_attempt(network_attempts: Counter[str]) -> None:
    # Guard the guard: a real attempt is counted (and still blocked by the suite).
    with pytest.raises(Exception), socket.create_connection(("api.openai.com", 443)):  # noqa: B017, PT011
        pass

    assert network_attempts["create_connection"] == 1
    assert network_attempts["getaddrinfo"] >= 1
