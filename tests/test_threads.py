"""The doubles hand out each step once when frameworks drive them from worker threads."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from agents_testing import ModelRequest, ScriptedModel, scripted_sandbox_session

THREADS = 8
CALLS = 400


@pytest.fixture(autouse=True)
def _switch_threads_often() -> Iterator[None]:
    # Make the interpreter switch threads far more often than usual, so a missing lock
    # shows up as a duplicated step or index instead of passing by luck.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def test_model_steps_are_handed_out_once_across_threads() -> None:
    model = ScriptedModel([[{"step": n}] for n in range(CALLS)])
    start = threading.Barrier(THREADS)

    def worker(count: int) -> list[tuple[str | None, int]]:
        start.wait()
        served = []
        for _ in range(count):
            response = asyncio.run(model.get_response(ModelRequest(input="hi")))
            served.append((response.response_id, response.output[0]["step"]))
        return served

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, [CALLS // THREADS] * THREADS))

    served = [item for result in results for item in result]
    assert sorted(step for _, step in served) == list(range(CALLS))
    # Each response id names its call's index, so ids and steps pair up one to one.
    assert sorted(served, key=lambda item: item[1]) == [
        (f"scripted-response-{n + 1}", n) for n in range(CALLS)
    ]
    assert [call.index for call in model.calls] == list(range(CALLS))
    assert model.remaining_steps == 0
    model.assert_complete()


def test_sandbox_steps_are_handed_out_once_across_threads() -> None:
    session = scripted_sandbox_session(
        [{"method": "supports_pty", "result": n} for n in range(CALLS)]
    )
    start = threading.Barrier(THREADS)

    def worker(count: int) -> list[Any]:
        start.wait()
        return [session.supports_pty() for _ in range(count)]

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, [CALLS // THREADS] * THREADS))

    assert sorted(value for result in results for value in result) == list(range(CALLS))
    assert [call.index for call in session.calls] == list(range(CALLS))
    session.assert_complete()


def test_mixed_model_calls_on_per_thread_loops_take_each_step_once() -> None:
    # Streamed and non-streamed calls from 8 threads, each thread with its own event loop
    # (as frameworks that run a loop per worker do), share one script.
    model = ScriptedModel([[{"step": n}] for n in range(CALLS)])
    start = threading.Barrier(THREADS)

    async def calls(count: int, streamed: bool) -> list[tuple[int, int]]:
        served = []
        for _ in range(count):
            if streamed:
                stream = model.stream_response(ModelRequest(input="hi"))
                events = [event async for event in stream]
                output = events[-1]["response"]["output"]  # type: ignore[typeddict-item]
                served.append((stream.call_index, output[0]["step"]))
            else:
                response = await model.get_response(ModelRequest(input="hi"))
                index = int(str(response.response_id).rsplit("-", 1)[1]) - 1
                served.append((index, response.output[0]["step"]))
        return served

    def worker(streamed: bool) -> list[tuple[int, int]]:
        start.wait()
        return asyncio.run(calls(CALLS // THREADS, streamed))

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, [n % 2 == 0 for n in range(THREADS)]))

    served = sorted(item for result in results for item in result)
    # Every index and every step exactly once, and each call got the step at its own index.
    assert served == [(n, n) for n in range(CALLS)]
    assert [call.index for call in model.calls] == list(range(CALLS))
    model.assert_complete()


def test_async_sandbox_calls_on_per_thread_loops_take_each_step_once() -> None:
    def responder(step: int) -> Any:
        async def respond(call: Any) -> tuple[int, int]:
            await asyncio.sleep(0)
            return step, call.index

        return respond

    session = scripted_sandbox_session(
        [{"method": "exec", "respond": responder(n)} for n in range(CALLS)]
    )
    start = threading.Barrier(THREADS)

    async def calls(count: int) -> list[tuple[int, int]]:
        # Start every call before awaiting any: the step is taken when the method is called.
        pending = [session.exec("pwd") for _ in range(count)]
        return list(await asyncio.gather(*pending))

    def worker(count: int) -> list[tuple[int, int]]:
        start.wait()
        return asyncio.run(calls(count))

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, [CALLS // THREADS] * THREADS))

    # Each step served once, to the call recorded at its own position.
    served = sorted(item for result in results for item in result)
    assert served == [(n, n) for n in range(CALLS)]
    assert [call.index for call in session.calls] == list(range(CALLS))
    session.assert_complete()
