"""Realtime rows: ScriptedRealtimeTransport and its adapter against the SDK's realtime double."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from _harness import Row, compare, cpu_seconds, cpu_seconds_async

from agents_testing import ScriptedRealtimeTransport

GROUP = "realtime"


def audio_payload() -> dict[str, Any]:
    return {"data": b"\x00\x01", "response_id": "r1", "item_id": "i1", "content_index": 0}


class Counter:
    """A model listener that counts events and wakes a waiter at a target count."""

    def __init__(self, target: int) -> None:
        self.count = 0
        self.target = target
        self.done = asyncio.Event()

    async def on_event(self, event: Any) -> None:
        if getattr(event, "type", None) == "audio":
            self.count += 1
            if self.count == self.target:
                self.done.set()


def emit_rows(repeats: int, events: int) -> list[Row]:
    from agents.realtime.model_events import RealtimeModelAudioEvent
    from agents.realtime.testing import ScriptedRealtimeModel

    from agents_testing.adapters.openai_agents import openai_agents_realtime_model

    def core() -> float:
        transport = ScriptedRealtimeTransport()
        seen: list[Any] = []
        transport.on("audio", seen.append)
        payload = audio_payload()
        emits = [payload] * events
        return cpu_seconds(lambda: [transport.emit("audio", each) for each in emits]) / events

    def adapter() -> float:
        async def go() -> float:
            transport = ScriptedRealtimeTransport()
            model = openai_agents_realtime_model(transport)
            counter = Counter(events)
            model.add_listener(counter)  # type: ignore[arg-type]
            await model.connect({})  # type: ignore[typeddict-item]

            async def emit_all() -> None:
                payload = audio_payload()
                for _ in range(events):
                    transport.emit("audio", payload)
                await counter.done.wait()

            return await _timed(emit_all)

        return asyncio.run(go()) / events

    def sdk() -> float:
        async def go() -> float:
            model = ScriptedRealtimeModel(strict=False)
            counter = Counter(events)
            model.add_listener(counter)  # type: ignore[arg-type]
            await model.connect({})  # type: ignore[typeddict-item]

            async def emit_all() -> None:
                for _ in range(events):
                    await model.emit(
                        RealtimeModelAudioEvent(
                            data=b"\x00\x01", response_id="r1", item_id="i1", content_index=0
                        )
                    )
                await counter.done.wait()

            return await _timed(emit_all)

        return asyncio.run(go()) / events

    baseline = "agents.realtime.testing.ScriptedRealtimeModel.emit"
    return [
        compare(GROUP, "inbound event via core emit, sync listener (per event)", baseline,
                core, sdk, repeats=repeats, goal="<= 1.0"),
        compare(GROUP, "inbound event via adapter model to a listener (per event)", baseline,
                adapter, sdk, repeats=repeats, goal="<= 1.0"),
    ]  # fmt: skip


async def _timed(make: Any) -> float:
    """Return the CPU seconds ``make()`` takes inside the running loop."""
    start = time.process_time()
    await make()
    return time.process_time() - start


def session_row(repeats: int, events: int) -> Row:
    from agents.realtime import RealtimeAgent, RealtimeRunner
    from agents.realtime.model_events import RealtimeModelAudioEvent
    from agents.realtime.testing import ScriptedRealtimeModel

    from agents_testing.adapters.openai_agents import openai_agents_realtime_model

    config: Any = {"tracing_disabled": True}

    async def consume(session: Any) -> None:
        count = 0
        async for event in session:
            if event.type == "audio":
                count += 1
                if count == events:
                    return

    def ours() -> float:
        async def go() -> float:
            transport = ScriptedRealtimeTransport()
            runner = RealtimeRunner(
                RealtimeAgent(name="bench"),
                model=openai_agents_realtime_model(transport),
                config=config,
            )
            async with await runner.run(model_config={"api_key": "test"}) as session:

                async def emit_and_consume() -> None:
                    payload = audio_payload()
                    for _ in range(events):
                        transport.emit("audio", payload)
                    await consume(session)

                return await _timed(emit_and_consume)

        return asyncio.run(go()) / events

    def sdk() -> float:
        async def go() -> float:
            model = ScriptedRealtimeModel(strict=False)
            runner = RealtimeRunner(RealtimeAgent(name="bench"), model=model, config=config)
            async with await runner.run(model_config={"api_key": "test"}) as session:

                async def emit_and_consume() -> None:
                    for _ in range(events):
                        await model.emit(
                            RealtimeModelAudioEvent(
                                data=b"\x00\x01", response_id="r1", item_id="i1", content_index=0
                            )
                        )
                    await consume(session)

                return await _timed(emit_and_consume)

        return asyncio.run(go()) / events

    return compare(
        GROUP,
        "inbound event through RealtimeSession (per event)",
        "same session on ScriptedRealtimeModel",
        ours,
        sdk,
        repeats=repeats,
        goal="<= 1.0",
    )


def scenario_row(repeats: int, expectations: int) -> Row:
    from agents_testing import RealtimeScenarioContext

    def scenario_run() -> float:
        transport = ScriptedRealtimeTransport()

        async def scenario(ctx: RealtimeScenarioContext) -> None:
            for index in range(expectations):
                await ctx.expect_call("send_event", lambda call, i=index: call.event["n"] == i)

        async def exercise() -> None:
            for index in range(expectations):
                transport.send_event({"type": "bench", "n": index})
                await asyncio.sleep(0)

        async def go() -> None:
            await transport.run_scenario(scenario=scenario, exercise=exercise, timeout=30)
            transport.assert_complete()

        return cpu_seconds_async(go)

    def by_hand() -> float:
        transport = ScriptedRealtimeTransport()

        async def exercise() -> None:
            for index in range(expectations):
                transport.send_event({"type": "bench", "n": index})
                await asyncio.sleep(0)

        async def go() -> None:
            # The checks the scenario makes, written out: the same timeout, then every call's
            # method and payload, in order, and no call left over.
            await asyncio.wait_for(exercise(), timeout=30)
            calls: Any = transport.calls
            assert [(call.method, call.event["n"]) for call in calls] == [
                ("send_event", index) for index in range(expectations)
            ]

        return cpu_seconds_async(go)

    return compare(
        GROUP,
        f"run_scenario with {expectations} expect_call matchers (per run)",
        "the same calls, timeout and checks by hand from transport.calls",
        scenario_run,
        by_hand,
        repeats=repeats,
    )


def read_row(repeats: int, calls: int) -> Row:
    from agents.realtime.testing import ScriptedRealtimeModel

    ours = ScriptedRealtimeTransport()
    sdk = ScriptedRealtimeModel(strict=False)

    async def fill() -> None:
        await sdk.connect({})  # type: ignore[typeddict-item]
        for index in range(calls):
            event = {"type": "response.create", "n": index}
            ours.send_event(event)
            await sdk.send_event(_raw(event))

    asyncio.run(fill())

    def read_ours() -> float:
        return cpu_seconds(lambda: [ours.calls for _ in range(100)]) / 100

    def read_sdk() -> float:
        return cpu_seconds(lambda: sdk.sent_events)

    return compare(
        GROUP,
        f"read calls after {calls:,} send_event calls (per read)",
        "ScriptedRealtimeModel.sent_events",
        read_ours,
        read_sdk,
        repeats=repeats,
        goal="<= 1.0",
    )


def _raw(event: dict[str, Any]) -> Any:
    from agents.realtime.model_inputs import (
        RealtimeModelRawClientMessage,
        RealtimeModelSendRawMessage,
    )

    return RealtimeModelSendRawMessage(
        message=RealtimeModelRawClientMessage(type=event["type"], other_data={"n": event["n"]})
    )


def rows(quick: bool) -> list[Row]:
    repeats = 1 if quick else 5
    return [
        *emit_rows(repeats, 50 if quick else 2_000),
        session_row(repeats, 20 if quick else 500),
        scenario_row(repeats, 10 if quick else 100),
        read_row(repeats, 100 if quick else 10_000),
    ]
