"""Model rows: ScriptedModel and its openai-agents adapter against the SDK's own ScriptedModel."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from _harness import PEAK_RSS_CODE, Row, compare, cpu_seconds, cpu_seconds_async

from agents_testing import ModelRequest, ScriptedModel, assistant_message, function_call

GROUP = "model"


def conversation(turns: int) -> list[Any]:
    """A realistic agent input: user turns, tool calls and their outputs."""
    items: list[Any] = []
    for turn in range(turns):
        items.extend(turn_items(turn))
    return items


def turn_items(turn: int) -> list[Any]:
    return [
        {"type": "message", "role": "user", "content": f"question {turn}"},
        function_call("lookup", {"q": turn, "tags": ["a", "b"]}, call_id=f"c{turn}"),
        {"type": "function_call_output", "call_id": f"c{turn}", "output": "ok"},
    ]


async def sdk_get_response(model: Any, items: Any) -> Any:
    from agents import ModelSettings, ModelTracing

    return await model.get_response(
        None,
        items,
        ModelSettings(temperature=0.0),
        [],
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )


# -- boundary call -------------------------------------------------------------------------


def boundary_row(repeats: int, calls: int) -> Row:
    from agents.testing import ScriptedModel as SdkModel
    from agents.testing import assistant_message as sdk_message

    items = conversation(10)

    def ours() -> float:
        model = ScriptedModel([[assistant_message("hi")]] * calls)
        request = ModelRequest(input=items, model_settings={"temperature": 0.0})

        async def run() -> None:
            for _ in range(calls):
                await model.get_response(request)

        return cpu_seconds_async(run) / calls

    def sdk() -> float:
        model = SdkModel([[sdk_message("hi")]] * calls)

        async def run() -> None:
            for _ in range(calls):
                await sdk_get_response(model, items)

        return cpu_seconds_async(run) / calls

    return compare(
        GROUP,
        "boundary call, 30-item input (per call)",
        "agents.testing.ScriptedModel",
        ours,
        sdk,
        repeats=repeats,
        goal="<= 0.2",
    )


# -- 50-turn tool workflow through the real Runner ----------------------------------------------


def runner_rows(repeats: int, turns: int) -> list[Row]:
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel as SdkModel
    from agents.testing import assistant_message as sdk_message
    from agents.testing import function_call as sdk_call

    from agents_testing.adapters.openai_agents import openai_agents_model

    @function_tool
    def lookup(q: int) -> str:
        """Look a number up."""
        return f"found {q}"

    config = RunConfig(tracing_disabled=True)

    def ours_agent() -> Any:
        steps: list[Any] = [
            [function_call("lookup", {"q": turn}, call_id=f"c{turn}")] for turn in range(turns - 1)
        ]
        steps.append([assistant_message("done")])
        return Agent(name="bench", model=openai_agents_model(ScriptedModel(steps)), tools=[lookup])

    def sdk_agent() -> Any:
        steps: list[Any] = [
            [sdk_call("lookup", {"q": turn}, call_id=f"c{turn}")] for turn in range(turns - 1)
        ]
        steps.append([sdk_message("done")])
        return Agent(name="bench", model=SdkModel(steps), tools=[lookup])

    def run(make_agent: Any) -> float:
        agent = make_agent()

        async def go() -> None:
            result = await Runner.run(agent, "go", max_turns=turns + 5, run_config=config)
            assert result.final_output == "done"

        return cpu_seconds_async(go)

    def streamed(make_agent: Any) -> float:
        agent = make_agent()

        async def go() -> None:
            result = Runner.run_streamed(agent, "go", max_turns=turns + 5, run_config=config)
            async for _ in result.stream_events():
                pass
            assert result.final_output == "done"

        return cpu_seconds_async(go)

    return [
        compare(
            GROUP,
            f"Runner.run, {turns}-turn tool workflow (per run)",
            "same agent on agents.testing.ScriptedModel",
            lambda: run(ours_agent),
            lambda: run(sdk_agent),
            repeats=repeats,
            goal="<= 1.0",
        ),
        compare(
            GROUP,
            f"Runner.run_streamed, {turns}-turn tool workflow (per run)",
            "same agent on agents.testing.ScriptedModel",
            lambda: streamed(ours_agent),
            lambda: streamed(sdk_agent),
            repeats=repeats,
            goal="<= 1.0",
        ),
    ]


# -- a long growing conversation: memory and time per call ---------------------------------------


def growing(kind: str, turns: int) -> dict[str, float]:
    """Run ``turns`` boundary calls whose input grows by three items a turn (in a subprocess)."""
    from agents.testing import ScriptedModel as SdkModel
    from agents.testing import assistant_message as sdk_message

    items: list[Any] = []
    times: list[float] = []
    # Every kind imports and scripts both doubles, so the difference in memory between a run
    # and the "none" run is what the double kept while recording.
    ours = ScriptedModel([[assistant_message("hi")]] * turns)
    sdk = SdkModel([[sdk_message("hi")]] * turns)

    async def run() -> None:
        # One untimed call on a spare double first, so lazy first-use work is not timed.
        if kind == "ours":
            await ScriptedModel([[assistant_message("hi")]]).get_response(ModelRequest(input=[]))
        elif kind == "sdk":
            await sdk_get_response(SdkModel([[sdk_message("hi")]]), [])
        for turn in range(turns):
            items.extend(turn_items(turn))
            sent = list(items)  # a runner sends a new list of the items so far on every call
            start = time.process_time()
            if kind == "ours":
                await ours.get_response(ModelRequest(input=sent))
            elif kind == "sdk":
                await sdk_get_response(sdk, sent)
            times.append(time.process_time() - start)

    asyncio.run(run())
    window = max(1, turns // 10)
    sizes = [3 * (turn + 1) for turn in range(turns)]
    return {
        "per_call": sum(times) / turns,
        "first": sum(times[:window]) / window,
        "last": sum(times[-window:]) / window,
        "slope": _slope(sizes, times),
    }


def _slope(sizes: list[int], times: list[float]) -> float:
    """Return the least-squares seconds per input item of a call (what each item adds)."""
    mean_size, mean_time = statistics.fmean(sizes), statistics.fmean(times)
    spread = sum((size - mean_size) ** 2 for size in sizes)
    if not spread:
        return 0.0
    pairs = zip(sizes, times, strict=True)
    return sum((size - mean_size) * (taken - mean_time) for size, taken in pairs) / spread


def _child(kind: str, turns: int) -> tuple[dict[str, float], float]:
    """Run ``growing`` in a fresh interpreter; return its figures and peak RSS in MiB."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import bench_model; "
        "print(json.dumps(bench_model.growing(sys.argv[2], int(sys.argv[3]))))\n" + PEAK_RSS_CODE
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, os.path.dirname(__file__), kind, str(turns)],
        stdout=subprocess.PIPE,
    )
    output, _ = process.communicate()
    if process.returncode:
        raise RuntimeError(f"growing({kind}) failed with {process.returncode}")
    figures, peak = output.decode().splitlines()
    return json.loads(figures), float(peak)


def _ratio(ours: float, base: float) -> float:
    return ours / base if base else float("nan")


def _in_process(kind: str, turns: int) -> tuple[dict[str, float], float]:
    """The quick variant of ``_child``: no fresh interpreter, and no memory figure."""
    return growing(kind, turns), 0.0


def growing_rows(turns: int, *, quick: bool) -> list[Row]:
    measure = _in_process if quick else _child
    _, rss_nothing = measure("none", turns)
    ours, rss_ours = measure("ours", turns)
    sdk, rss_sdk = measure("sdk", turns)
    # What the double keeps: peak RSS over the same run that records nothing.
    ours_mib, sdk_mib = rss_ours - rss_nothing, rss_sdk - rss_nothing
    name = f"{turns}-turn growing conversation"
    baseline = "agents.testing.ScriptedModel"
    return [
        Row(GROUP, f"{name}: memory kept (peak RSS over no double)", baseline, ours_mib,
            sdk_mib, "MiB", _ratio(ours_mib, sdk_mib), "<= 0.1"),
        Row(GROUP, f"{name}: time per call, whole run", baseline, ours["per_call"],
            sdk["per_call"], "s", ours["per_call"] / sdk["per_call"], "<= 1.0"),
        Row(GROUP, f"{name}: time per call, last/first tenth",
            "the same ratio for agents.testing.ScriptedModel", ours["last"] / ours["first"],
            sdk["last"] / sdk["first"], "x",
            (ours["last"] / ours["first"]) / (sdk["last"] / sdk["first"]), "flat: 1x (see below)"),
        Row(GROUP, f"{name}: time per input item of a call (slope)", baseline,
            ours["slope"], sdk["slope"], "ns", _ratio(ours["slope"], sdk["slope"]), "<= 1.0"),
    ]  # fmt: skip


# -- reading calls ---------------------------------------------------------------------------


def read_rows(repeats: int, calls: int) -> list[Row]:
    from agents.testing import ScriptedModel as SdkModel
    from agents.testing import assistant_message as sdk_message

    items = conversation(3)
    ours = ScriptedModel([[assistant_message("hi")]] * calls)
    sdk = SdkModel([[sdk_message("hi")]] * calls)

    async def fill() -> None:
        for _ in range(calls):
            await ours.get_response(ModelRequest(input=items))
            await sdk_get_response(sdk, items)

    asyncio.run(fill())

    def read_all(model: Any, reads: int) -> float:
        return cpu_seconds(lambda: [model.calls for _ in range(reads)]) / reads

    def read_last(model: Any) -> float:
        return cpu_seconds(lambda: [model.last_call.request for _ in range(100)]) / 100

    def read_last_sdk(model: Any) -> float:
        return cpu_seconds(lambda: [model.last_call for _ in range(100)]) / 100

    return [
        compare(GROUP, f"read calls after {calls:,} calls (per read)",
                "agents.testing.ScriptedModel.calls", lambda: read_all(ours, 100),
                lambda: read_all(sdk, 1), repeats=repeats, goal="<= 1.0"),
        compare(GROUP, f"read last_call.request after {calls:,} calls",
                "agents.testing.ScriptedModel.last_call", lambda: read_last(ours),
                lambda: read_last_sdk(sdk), repeats=repeats, goal="<= 1.0"),
    ]  # fmt: skip


def rows(quick: bool) -> list[Row]:
    repeats = 1 if quick else 5
    return [
        boundary_row(repeats, 50 if quick else 500),
        # A run through the Runner varies more from one repeat to the next than the row's
        # margin: more repeats steady the median.
        *runner_rows(1 if quick else 11, 5 if quick else 50),
        *growing_rows(30 if quick else 1_000, quick=quick),
        *read_rows(repeats, 100 if quick else 10_000),
    ]
