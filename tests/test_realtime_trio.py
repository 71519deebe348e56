"""The realtime double needs asyncio: under trio it says so, with the fix, instead of crashing."""

from __future__ import annotations

import pickle

import pytest

trio = pytest.importorskip("trio")
anyio = pytest.importorskip("anyio")

from agents_testing import (  # noqa: E402 - after the skips, as the adapters' tests do
    ModelRequest,
    RealtimeEventLoopError,
    RealtimeScenarioContext,
    ScriptedModel,
    ScriptedRealtimeTransport,
    assistant_message,
)


def _check_trio_error(error: RealtimeEventLoopError, operation: str) -> None:
    assert (error.operation, error.running_library) == (operation, "trio")
    message = str(error)
    assert message.startswith(
        f"ScriptedRealtimeTransport.{operation}() needs a running asyncio event loop, but it "
        "was called under trio (running_library='trio')."
    )
    assert 'anyio_backend fixture that returns "asyncio"' in message
    assert "@pytest.mark.asyncio" in message


def test_run_scenario_under_trio_says_it_needs_asyncio() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        await ctx.expect_call("close")

    async def main() -> None:
        await transport.run_scenario(scenario=scenario, exercise=transport.close)

    with pytest.raises(RealtimeEventLoopError) as info:
        trio.run(main)
    _check_trio_error(info.value, "run_scenario")


def test_expect_call_under_trio_says_it_needs_asyncio() -> None:
    transport = ScriptedRealtimeTransport()

    async def main() -> None:
        transport.expect_call("close")

    with pytest.raises(RealtimeEventLoopError) as info:
        trio.run(main)
    _check_trio_error(info.value, "expect_call")


def test_the_error_pickles_with_its_fields() -> None:
    error = pickle.loads(pickle.dumps(RealtimeEventLoopError("run_scenario", "trio")))
    assert (error.operation, error.running_library) == ("run_scenario", "trio")
    assert "running_library='trio'" in str(error)


def test_anyio_on_the_asyncio_backend_runs_a_scenario() -> None:
    transport = ScriptedRealtimeTransport()

    async def scenario(ctx: RealtimeScenarioContext) -> None:
        call = await ctx.expect_call("send_event")
        assert call.event == {"type": "ping"}

    async def main() -> None:
        await transport.run_scenario(
            scenario=scenario, exercise=lambda: transport.send_event({"type": "ping"})
        )

    anyio.run(main, backend="asyncio")
    transport.assert_complete()


def test_recording_and_the_model_double_work_under_trio() -> None:
    # Only what needs asyncio futures refuses trio: recording calls and the model double
    # are plain code, so they work under any event loop.
    transport = ScriptedRealtimeTransport()
    model = ScriptedModel([[assistant_message("done")]])

    async def main() -> str:
        await transport.connect({"model": "m"})
        transport.close()
        response = await model.get_response(ModelRequest(input="hi"))
        return str(response.output[0]["content"][0]["text"])

    assert trio.run(main) == "done"
    assert [call.method for call in transport.calls] == ["connect", "close"]
    model.assert_complete()
