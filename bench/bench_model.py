"""Per-call cost of ScriptedModel, as ratios against baselines measured in the same run.

Run: ``python bench/bench_model.py`` (add the ``openai-agents`` extra to include the SDK's
own ``agents.testing.ScriptedModel`` as a baseline).

Rows:
- ``record``: recording one call (``get_response`` with a shorthand step) against a
  ``copy.deepcopy`` of the same request and against a structural snapshot of its input.
- ``calls``: reading ``calls`` once after many calls, against snapshotting every request.
- ``lock``: a call with the thread lock against the same call with the lock removed.
- ``sdk``: the same shorthand call through ``agents.testing.ScriptedModel`` (openai-agents).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
from collections.abc import Callable
from typing import Any

from agents_testing import ModelRequest, ScriptedModel, assistant_message, function_call
from agents_testing._snapshot import snapshot

CALLS = 2_000
REPEATS = 5


def conversation(turns: int = 10) -> list[Any]:
    """Build a realistic agent input: user turns, tool calls and their outputs."""
    items: list[Any] = []
    for turn in range(turns):
        items.append({"type": "message", "role": "user", "content": f"question {turn}"})
        items.append(function_call("lookup", {"q": turn, "tags": ["a", "b"]}, call_id=f"c{turn}"))
        items.append({"type": "function_call_output", "call_id": f"c{turn}", "output": "ok"})
    return items


def best_of(run: Callable[[], float]) -> float:
    """Return the fastest of a few runs, in seconds per call."""
    return min(run() for _ in range(REPEATS))


def per_call(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    for _ in range(CALLS):
        fn()
    return (time.perf_counter() - start) / CALLS


def time_get_response(request: ModelRequest, *, lock: bool = True) -> float:
    """Return the seconds per ``get_response`` call with a shorthand step."""
    model = ScriptedModel([[assistant_message("hi")]] * CALLS)
    if not lock:
        model._lock = contextlib.nullcontext()  # type: ignore[assignment]

    async def run() -> float:
        start = time.perf_counter()
        for _ in range(CALLS):
            await model.get_response(request)
        return (time.perf_counter() - start) / CALLS

    return asyncio.run(run())


def ours_record() -> float:
    return time_get_response(
        ModelRequest(input=conversation(), model_settings={"temperature": 0.0})
    )


def ours_record_small() -> float:
    return time_get_response(ModelRequest(input="hi"))


def ours_record_without_lock() -> float:
    return time_get_response(ModelRequest(input="hi"), lock=False)


def deepcopy_request() -> float:
    request = ModelRequest(input=conversation(), model_settings={"temperature": 0.0})
    return per_call(lambda: copy.deepcopy(request))


def snapshot_input() -> float:
    items = conversation()
    return per_call(lambda: snapshot(items))


def ours_read_calls() -> float:
    request = ModelRequest(input=conversation())
    model = ScriptedModel([[assistant_message("hi")]] * CALLS)

    async def fill() -> None:
        for _ in range(CALLS):
            await model.get_response(request)

    asyncio.run(fill())
    start = time.perf_counter()
    calls = model.calls
    assert len(calls) == CALLS
    return time.perf_counter() - start


def snapshot_every_request() -> float:
    items = [conversation() for _ in range(CALLS)]
    start = time.perf_counter()
    for item in items:
        snapshot(item)
    return time.perf_counter() - start


def sdk_record() -> float | None:
    try:
        from agents import ModelSettings, ModelTracing
        from agents.testing import ScriptedModel as SdkScriptedModel
        from agents.testing import assistant_message as sdk_assistant_message
    except ImportError:
        return None
    model = SdkScriptedModel([[sdk_assistant_message("hi")]] * CALLS)
    items = conversation()
    settings = ModelSettings(temperature=0.0)

    async def run() -> float:
        start = time.perf_counter()
        for _ in range(CALLS):
            await model.get_response(
                None,
                items,
                settings,
                [],
                None,
                [],
                ModelTracing.DISABLED,
                previous_response_id=None,
                conversation_id=None,
                prompt=None,
            )
        return (time.perf_counter() - start) / CALLS

    return asyncio.run(run())


def main() -> None:
    ours = best_of(ours_record)
    deep = best_of(deepcopy_request)
    structural = best_of(snapshot_input)
    read = best_of(ours_read_calls)
    copy_all = best_of(snapshot_every_request)
    print(f"{'row':<8} {'measure':<46} {'value':>12}")
    print(f"{'record':<8} {'ScriptedModel.get_response, shorthand step':<46} {ours * 1e6:>9.2f} us")
    print(f"{'':<8} {'copy.deepcopy(request)':<46} {deep * 1e6:>9.2f} us")
    print(f"{'':<8} {'structural snapshot of request.input':<46} {structural * 1e6:>9.2f} us")
    print(f"{'':<8} {'ratio ours / deepcopy':<46} {ours / deep:>12.2f}")
    print(f"{'':<8} {'ratio ours / structural snapshot':<46} {ours / structural:>12.2f}")
    locked, unlocked = best_of(ours_record_small), best_of(ours_record_without_lock)
    print(f"{'lock':<8} {'get_response, str input, with thread lock':<46} {locked * 1e6:>9.2f} us")
    print(f"{'':<8} {'same without the lock':<46} {unlocked * 1e6:>9.2f} us")
    print(f"{'':<8} {'ratio locked / unlocked':<46} {locked / unlocked:>12.3f}")
    print(f"{'calls':<8} {f'read calls once, {CALLS} recorded':<46} {read * 1e3:>9.2f} ms")
    print(f"{'':<8} {f'snapshot {CALLS} requests':<46} {copy_all * 1e3:>9.2f} ms")
    print(f"{'':<8} {'ratio read / snapshot all':<46} {read / copy_all:>12.3f}")
    sdk_runs = [sdk_record() for _ in range(REPEATS)]
    sdk = min(run for run in sdk_runs if run is not None) if sdk_runs[0] is not None else None
    if sdk is None:
        print(f"{'sdk':<8} {'agents.testing.ScriptedModel':<46} {'not installed':>12}")
    else:
        print(f"{'sdk':<8} {'agents.testing.ScriptedModel.get_response':<46} {sdk * 1e6:>9.2f} us")
        print(f"{'':<8} {'ratio ours / sdk':<46} {ours / sdk:>12.2f}")


if __name__ == "__main__":
    main()
