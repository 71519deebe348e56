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
