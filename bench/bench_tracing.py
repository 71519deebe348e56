"""Tracing row: what capturing a trace adds to a 50-turn openai-agents Runner.run."""

from __future__ import annotations

from typing import Any

from _harness import Row, compare, cpu_seconds_async

from agents_testing import ScriptedModel, assistant_message, function_call

GROUP = "tracing"


def runner_row(repeats: int, turns: int) -> Row:
    from agents import Agent, RunConfig, Runner, function_tool

    from agents_testing.adapters.openai_agents import (
        capture_openai_agents_trace,
        openai_agents_model,
    )

    @function_tool
    def lookup(q: int) -> str:
        """Look a number up."""
        return f"found {q}"

    def agent(*, emit_traces: bool) -> Any:
        steps: list[Any] = [
            [function_call("lookup", {"q": turn}, call_id=f"c{turn}")] for turn in range(turns - 1)
        ]
        steps.append([assistant_message("done")])
        model = openai_agents_model(ScriptedModel(steps), emit_traces=emit_traces)
        return Agent(name="bench", model=model, tools=[lookup])

    def untraced() -> float:
        # The run a test does without a capture: tracing off, as the docs recommend.
        built = agent(emit_traces=False)
        config = RunConfig(tracing_disabled=True)

        async def go() -> None:
            result = await Runner.run(built, "go", max_turns=turns + 5, run_config=config)
            assert result.final_output == "done"

        return cpu_seconds_async(go)

    def captured() -> float:
        # Timed: the traced run, generation spans included, and reading its normalized tree.
        built = agent(emit_traces=True)

        async def go() -> None:
            with capture_openai_agents_trace() as capture:
                result = await Runner.run(built, "go", max_turns=turns + 5)
            assert result.final_output == "done"
            assert len(capture.tree().spans(kind="generation")) == turns

        return cpu_seconds_async(go)

    return compare(
        GROUP,
        f"Runner.run, {turns}-turn tool workflow, trace captured and read as a tree (per run)",
        "same run with tracing off, no capture",
        captured,
        untraced,
        repeats=repeats,
    )


def rows(quick: bool) -> list[Row]:
    # A run through the Runner varies between repeats: as many as the other Runner rows.
    return [runner_row(1 if quick else 11, 5 if quick else 50)]
