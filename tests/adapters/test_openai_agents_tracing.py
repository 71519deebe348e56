"""openai-agents traces: the adapter's generation spans, side by side with the SDK's own models."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agents")
pytest.importorskip("openai")

import agents.tracing
import openai
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.testing import ScriptedModel as SDKScriptedModel
from agents.testing import assistant_message as sdk_assistant_message
from agents.testing import function_call as sdk_function_call

from agents_testing import (
    ModelResponse,
    ScriptedModel,
    TraceTree,
    Usage,
    assistant_message,
    function_call,
    model_error,
)
from agents_testing.adapters.openai_agents import (
    capture_openai_agents_trace,
    openai_agents_model,
    route_openai_agents_models,
)
from agents_testing.wire import ScriptedServer


@function_tool
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


def weather_agent(model: Any) -> Agent:
    return Agent(
        name="Weather",
        instructions="Report the weather.",
        model=model,
        model_settings=ModelSettings(temperature=0.0),
        tools=[get_weather],
    )


async def run_agent(model: Any, *, stream: bool = False, **config: Any) -> None:
    agent = weather_agent(model)
    if stream:
        result = Runner.run_streamed(agent, "Weather in Tokyo?", run_config=RunConfig(**config))
        async for _ in result.stream_events():
            pass
    else:
        await Runner.run(agent, "Weather in Tokyo?", run_config=RunConfig(**config))


async def traced_run(model: Any, *, stream: bool = False, **config: Any) -> TraceTree:
    with capture_openai_agents_trace() as capture:
        await run_agent(model, stream=stream, **config)
    return capture.tree()


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_streamed"])
async def test_generation_spans_have_the_shape_of_the_sdks_own_double(stream: bool) -> None:
    sdk_model = SDKScriptedModel(
        [
            [sdk_function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
            [sdk_assistant_message("Sunny in Tokyo.")],
        ],
        emit_traces=True,
    )

    ours = await traced_run(openai_agents_model(weather_script(), emit_traces=True), stream=stream)
    theirs = await traced_run(sdk_model, stream=stream)

    assert ours.shape() == theirs.shape()
    assert len(ours.spans(kind="generation")) == 2


async def test_generation_spans_carry_what_the_sdks_chat_completions_model_records() -> None:
    # The SDK's real Chat Completions model, served by the same script over loopback HTTP.
    async with ScriptedServer(weather_script()) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="test-key")
        real = await traced_run(OpenAIChatCompletionsModel(model="scripted", openai_client=client))
    ours = await traced_run(openai_agents_model(weather_script(), emit_traces=True))

    assert ours.shape() == real.shape()
    for our_span, real_span in zip(
        ours.spans(kind="generation"), real.spans(kind="generation"), strict=True
    ):
        assert set(our_span.attributes) == set(real_span.attributes)
        assert our_span.attributes["model"] == real_span.attributes["model"] == "scripted"
        for field in ("requests", "input_tokens", "output_tokens", "total_tokens"):
            assert our_span.attributes["usage"][field] == real_span.attributes["usage"][field]
        assert our_span.attributes["model_config"]["temperature"] == 0.0
        # The input starts with the instructions, as the real model's messages do.
        assert our_span.attributes["input"][0] == real_span.attributes["input"][0]


async def test_a_tool_loop_traces_its_generations_with_input_output_and_usage() -> None:
    tree = await traced_run(openai_agents_model(weather_script(), emit_traces=True))

    first, second = tree.spans(kind="generation")
    assert first.attributes["input"] == [
        {"role": "system", "content": "Report the weather."},
        {"content": "Weather in Tokyo?", "role": "user"},
    ]
    assert first.attributes["output"] == [
        {
            "type": "function_call",
            "name": "get_weather",
            "call_id": "call_1",
            "id": "call_1",
            "status": "completed",
            "arguments": '{"city":"Tokyo"}',
        }
    ]
    assert first.attributes["usage"]["input_tokens"] == 20
    assert second.attributes["usage"]["total_tokens"] == 34
    assert second.attributes["output"][0]["content"][0]["text"] == "Sunny in Tokyo."
    assert [span.name for span in tree.spans(kind="function")] == ["get_weather"]


async def test_the_same_scripted_run_gives_an_equal_tree_every_time() -> None:
    first = await traced_run(openai_agents_model(weather_script(), emit_traces=True))
    second = await traced_run(openai_agents_model(weather_script(), emit_traces=True))

    assert first == second
    assert first.as_data() == second.as_data()


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_streamed"])
async def test_a_failing_call_marks_its_generation_span(stream: bool) -> None:
    model = openai_agents_model(
        ScriptedModel([model_error(RuntimeError("503 overloaded"))]), emit_traces=True
    )

    with capture_openai_agents_trace() as capture, pytest.raises(RuntimeError, match="503"):
        await run_agent(model, stream=stream)

    (generation,) = capture.tree().spans(kind="generation")
    assert generation.error == {
        "message": "Error getting response",
        "data": {"error": "503 overloaded"},
    }


async def test_an_unexpected_streamed_call_still_leaves_a_failed_span() -> None:
    model = openai_agents_model(ScriptedModel(), emit_traces=True)

    with capture_openai_agents_trace() as capture, pytest.raises(AssertionError):
        await run_agent(model, stream=True)

    (generation,) = capture.tree().spans(kind="generation")
    assert generation.error is not None
    assert "no scripted steps remain" in generation.error["data"]["error"]


async def test_without_sensitive_data_the_span_keeps_usage_but_not_input_or_output() -> None:
    model = openai_agents_model(
        ScriptedModel([model_error(RuntimeError("secret"))]), emit_traces=True
    )
    with capture_openai_agents_trace() as capture, pytest.raises(RuntimeError):
        await run_agent(model, trace_include_sensitive_data=False)
    tree = await traced_run(
        openai_agents_model(weather_script(), emit_traces=True),
        trace_include_sensitive_data=False,
    )

    (failed,) = capture.tree().spans(kind="generation")
    assert failed.error == {
        "message": "Error getting response",
        "data": {"error": "Error details are redacted."},
    }
    first = tree.spans(kind="generation")[0]
    assert first.attributes["input"] is None
    assert first.attributes["output"] is None
    assert first.attributes["usage"]["input_tokens"] == 20


async def test_generation_spans_are_off_by_default() -> None:
    tree = await traced_run(openai_agents_model(weather_script()))

    assert tree.spans(kind="generation") == ()
    assert [span.name for span in tree.spans(kind="agent")] == ["Weather"]


async def test_a_run_with_tracing_disabled_traces_nothing() -> None:
    tree = await traced_run(
        openai_agents_model(weather_script(), emit_traces=True), tracing_disabled=True
    )

    assert tree == TraceTree()


async def test_the_capture_traces_even_when_tracing_was_disabled_globally() -> None:
    set_tracing_disabled(True)
    try:
        tree = await traced_run(openai_agents_model(weather_script(), emit_traces=True))
    finally:
        set_tracing_disabled(False)

    assert len(tree.spans(kind="generation")) == 2


async def test_the_capture_puts_the_trace_provider_back() -> None:
    before = agents.tracing.get_trace_provider()

    with capture_openai_agents_trace():
        assert agents.tracing.get_trace_provider() is not before

    assert agents.tracing.get_trace_provider() is before


def test_a_capture_cannot_be_opened_twice() -> None:
    capture = capture_openai_agents_trace()
    with capture, pytest.raises(RuntimeError, match="already open"):
        capture.__enter__()


async def test_routed_models_emit_generation_spans_when_asked() -> None:
    with (
        capture_openai_agents_trace() as capture,
        route_openai_agents_models(weather_script(), emit_traces=True),
    ):
        await run_agent("gpt-4.1")

    tree = capture.tree()
    assert len(tree.spans(kind="generation")) == 2
    assert [span.name for span in tree.spans(kind="agent")] == ["Weather"]


async def test_routed_runs_trace_nothing_by_default() -> None:
    with capture_openai_agents_trace() as capture, route_openai_agents_models(weather_script()):
        await Runner.run(weather_agent("gpt-4.1"), "Weather in Tokyo?")

    assert capture.tree() == TraceTree()


@pytest.mark.parametrize("emit_traces", [1, "yes", None])
def test_emit_traces_must_be_a_bool(emit_traces: Any) -> None:
    with pytest.raises(TypeError, match="emit_traces must be a bool"):
        openai_agents_model(ScriptedModel(), emit_traces=emit_traces)
    with pytest.raises(TypeError, match="emit_traces must be a bool"):
        route_openai_agents_models(ScriptedModel(), emit_traces=emit_traces)
