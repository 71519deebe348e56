"""pydantic-ai's OpenTelemetry instrumentation over a scripted model, read as a normalized tree."""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai")
pytest.importorskip("opentelemetry.sdk")

from pydantic_ai import Agent
from pydantic_ai.capabilities import Instrumentation
from pydantic_ai.models.instrumented import InstrumentationSettings

from agents_testing import (
    GenAIConventionError,
    ModelResponse,
    ScriptedModel,
    TraceTree,
    Usage,
    assistant_message,
    check_genai_conventions,
    function_call,
    normalize_trace,
)
from agents_testing.adapters.opentelemetry import OTelSpanCapture, capture_otel_spans
from agents_testing.adapters.pydantic_ai import pydantic_ai_model


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


def instrumented_agent(model: ScriptedModel, capture: OTelSpanCapture) -> Agent[None, str]:
    settings = InstrumentationSettings(tracer_provider=capture.tracer_provider)
    agent = Agent(
        pydantic_ai_model(model), name="weather", capabilities=[Instrumentation(settings=settings)]
    )

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Return the weather in a city."""
        return f"{city}: sunny"

    return agent


async def traced_run(model: ScriptedModel, *, stream: bool = False) -> TraceTree:
    with capture_otel_spans() as capture:
        agent = instrumented_agent(model, capture)
        if stream:
            async with agent.run_stream("Weather in Tokyo?") as result:
                await result.get_output()
        else:
            await agent.run("Weather in Tokyo?")
    return capture.tree(attributes=["gen_ai.*"], ignore=["gen_ai.*.messages", "*.definitions"])


async def test_an_instrumented_run_gives_this_tree() -> None:
    tree = await traced_run(weather_script())

    model_call = {
        "gen_ai.agent.name": "weather",
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "agents-testing",
        "gen_ai.request.model": "scripted",
        "gen_ai.response.model": "scripted",
        "gen_ai.system": "agents-testing",
    }
    assert tree.as_data() == [
        {
            "name": "invoke_agent weather",
            "kind": "invoke_agent",
            "attributes": {
                "gen_ai.agent.name": "weather",
                "gen_ai.aggregated_usage.input_tokens": 50,
                "gen_ai.aggregated_usage.output_tokens": 9,
                "gen_ai.operation.name": "invoke_agent",
            },
            "children": [
                {
                    "name": "chat scripted",
                    "kind": "chat",
                    "attributes": {
                        **model_call,
                        "gen_ai.response.finish_reasons": ["tool_call"],
                        "gen_ai.usage.input_tokens": 20,
                        "gen_ai.usage.output_tokens": 5,
                    },
                },
                {
                    "name": "execute_tool get_weather",
                    "kind": "execute_tool",
                    "attributes": {
                        "gen_ai.agent.name": "weather",
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.call.arguments": '{"city":"Tokyo"}',
                        "gen_ai.tool.call.id": "call_1",
                        "gen_ai.tool.call.result": "Tokyo: sunny",
                        "gen_ai.tool.name": "get_weather",
                    },
                },
                {
                    "name": "chat scripted",
                    "kind": "chat",
                    "attributes": {
                        **model_call,
                        "gen_ai.response.finish_reasons": ["stop"],
                        "gen_ai.usage.input_tokens": 30,
                        "gen_ai.usage.output_tokens": 4,
                    },
                },
            ],
        }
    ]


async def test_the_same_run_gives_an_equal_tree_every_time() -> None:
    first = await traced_run(weather_script())
    second = await traced_run(weather_script())

    assert first == second


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_stream"])
async def test_the_model_calls_follow_the_genai_conventions(stream: bool) -> None:
    tree = await traced_run(weather_script(), stream=stream)

    checked = check_genai_conventions(tree)

    assert [span.attributes["gen_ai.response.finish_reasons"] for span in checked] == [
        ["tool_call"],
        ["stop"],
    ]


async def test_a_step_without_usage_fails_the_check_naming_the_token_attribute() -> None:
    # The output shorthand scripts no tokens, and pydantic-ai records no zero counts.
    tree = await traced_run(
        ScriptedModel(
            [
                [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
                [assistant_message("Sunny in Tokyo.")],
            ]
        )
    )

    with pytest.raises(GenAIConventionError) as raised:
        check_genai_conventions(tree)

    assert (raised.value.span_name, raised.value.span_index) == ("chat scripted", 0)
    assert raised.value.attribute == "gen_ai.usage.input_tokens"
    assert raised.value.reason == "missing"


async def test_removing_a_required_attribute_from_a_real_trace_fails_with_its_name() -> None:
    with capture_otel_spans() as capture:
        await instrumented_agent(weather_script(), capture).run("Weather in Tokyo?")
    records = capture.records
    check_genai_conventions(normalize_trace(records))

    for attribute in ("gen_ai.response.model", "gen_ai.response.finish_reasons"):
        with pytest.raises(GenAIConventionError) as raised:
            check_genai_conventions(capture.tree(ignore=[attribute]))
        assert raised.value.attribute == attribute


async def test_a_failing_model_call_gives_an_error_span() -> None:
    from agents_testing import model_error

    model = ScriptedModel([model_error(RuntimeError("503 overloaded"))])
    with capture_otel_spans() as capture, pytest.raises(RuntimeError):
        await instrumented_agent(model, capture).run("Weather in Tokyo?")

    (chat,) = capture.tree().spans(kind="chat")
    assert chat.error == "RuntimeError: 503 overloaded"


def test_a_span_of_another_library_is_read_the_same_way() -> None:
    with capture_otel_spans() as capture:
        tracer = capture.tracer("my-app")
        with (
            tracer.start_as_current_span("handle request"),
            tracer.start_as_current_span("chat gpt-x") as span,
        ):
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.request.model", "gpt-x")

    assert capture.tree().as_data() == [
        {
            "name": "handle request",
            "kind": "internal",
            "children": [
                {
                    "name": "chat gpt-x",
                    "kind": "chat",
                    "attributes": {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "gpt-x",
                    },
                }
            ],
        }
    ]
    with pytest.raises(GenAIConventionError) as raised:
        check_genai_conventions(capture.tree())
    assert raised.value.attribute == "gen_ai.provider.name"


def test_clear_forgets_the_spans() -> None:
    capture = capture_otel_spans()
    with capture.tracer().start_as_current_span("one"):
        pass

    capture.clear()

    assert capture.tree() == TraceTree()
    assert "0 spans" in repr(capture)


def test_ignore_must_not_be_a_single_string() -> None:
    with pytest.raises(TypeError, match="ignore must be an iterable"):
        capture_otel_spans().tree(ignore="gen_ai.*")
