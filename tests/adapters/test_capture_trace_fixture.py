"""The capture_trace fixture hands out each source's capture and closes it when the test ends."""

from __future__ import annotations

from typing import Any

import pytest

from agents_testing.pytest_plugin import CaptureTrace


def test_opentelemetry_capture_reads_spans_of_its_provider(capture_trace: CaptureTrace) -> None:
    pytest.importorskip("opentelemetry.sdk")
    capture = capture_trace("opentelemetry")

    with capture.tracer().start_as_current_span("work"):
        pass

    assert capture.tree().as_data() == [{"name": "work", "kind": "internal"}]


async def test_openai_agents_capture_is_open_for_the_whole_test(
    capture_trace: CaptureTrace,
) -> None:
    pytest.importorskip("agents")
    from agents import Agent, Runner

    from agents_testing import ScriptedModel, assistant_message
    from agents_testing.adapters.openai_agents import openai_agents_model

    capture = capture_trace("openai-agents")
    model = openai_agents_model(ScriptedModel([[assistant_message("Hi")]]), emit_traces=True)

    await Runner.run(Agent(name="Greeter", model=model), "Hello")

    assert capture.tree().shape().as_data() == [
        {
            "name": "Agent workflow",
            "kind": "trace",
            "children": [
                {
                    "name": "task",
                    "kind": "custom",
                    "children": [
                        {
                            "name": "Greeter",
                            "kind": "agent",
                            "children": [
                                {
                                    "name": "turn",
                                    "kind": "custom",
                                    "children": [{"name": "generation", "kind": "generation"}],
                                }
                            ],
                        }
                    ],
                }
            ],
        }
    ]


def test_langchain_capture_hands_out_a_handler(capture_trace: CaptureTrace) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.runnables import RunnableLambda

    capture = capture_trace("langchain")

    RunnableLambda(lambda text: text.upper(), name="shout").invoke(
        "hi", config={"callbacks": [capture.handler]}
    )

    assert capture.tree().shape().as_data() == [{"name": "shout", "kind": "chain"}]


def test_an_unknown_source_is_refused_naming_the_choices(capture_trace: Any) -> None:
    with pytest.raises(ValueError, match="'openai-agents', 'opentelemetry' or 'langchain'"):
        capture_trace("logfire")


def test_the_openai_agents_capture_is_closed_after_the_test(pytester: pytest.Pytester) -> None:
    pytest.importorskip("agents")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(
        """
        import agents.tracing

        BEFORE = []

        def test_open(capture_trace):
            BEFORE.append(agents.tracing.get_trace_provider())
            capture_trace("openai-agents")
            assert agents.tracing.get_trace_provider() is not BEFORE[0]

        def test_closed():
            assert agents.tracing.get_trace_provider() is BEFORE[0]
        """
    )

    result = pytester.runpytest_inprocess()

    result.assert_outcomes(passed=2)
