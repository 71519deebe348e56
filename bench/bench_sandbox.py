"""Sandbox rows: scripted_sandbox_session against the SDK's agents.testing session."""

from __future__ import annotations

import asyncio
from typing import Any

from _harness import Row, compare, cpu_seconds, cpu_seconds_async

from agents_testing import scripted_sandbox_session

GROUP = "sandbox"


def direct_rows(repeats: int, operations: int) -> list[Row]:
    from agents.sandbox.types import ExecResult
    from agents.testing import scripted_sandbox_session as sdk_session

    from agents_testing.adapters.openai_agents import openai_agents_sandbox_session

    result = ExecResult(stdout=b"/workspace\n", stderr=b"", exit_code=0)
    steps: list[Any] = [{"method": "exec", "result": result}] * operations

    def run(session: Any) -> float:
        async def go() -> None:
            for _ in range(operations):
                await session.exec("pwd", timeout=10.0)

        return cpu_seconds_async(go) / operations

    return [
        compare(
            GROUP,
            "exec, core session, direct (per operation)",
            "agents.testing.scripted_sandbox_session",
            lambda: run(scripted_sandbox_session(steps)),
            lambda: run(sdk_session(steps)),
            repeats=repeats,
            goal="<= 1.0",
        ),
        compare(
            GROUP,
            "exec, openai-agents adapter session, direct (per operation)",
            "agents.testing.scripted_sandbox_session",
            lambda: run(openai_agents_sandbox_session(steps)),
            lambda: run(sdk_session(steps)),
            repeats=repeats,
            goal="<= 1.0",
        ),
    ]


def agent_row(repeats: int, turns: int) -> Row:
    from agents import RunConfig, Runner
    from agents.sandbox import SandboxAgent, SandboxRunConfig
    from agents.sandbox.capabilities import Shell
    from agents.sandbox.types import ExecResult
    from agents.testing import ScriptedModel as SdkModel
    from agents.testing import assistant_message, function_call
    from agents.testing import scripted_sandbox_session as sdk_session

    from agents_testing.adapters.openai_agents import openai_agents_sandbox_session

    result = ExecResult(stdout=b"/workspace\n", stderr=b"", exit_code=0)
    steps: list[Any] = [{"method": "exec", "result": result}] * (turns - 1)

    def run(make_session: Any) -> float:
        # Both runs use the SDK's model double, so only the sandbox session differs.
        script: list[Any] = [
            [function_call("exec_command", {"cmd": "pwd"}, call_id=f"c{turn}")]
            for turn in range(turns - 1)
        ]
        script.append([assistant_message("done")])
        agent = SandboxAgent(name="bench", model=SdkModel(script), capabilities=[Shell()])
        session = make_session(steps)
        config = RunConfig(tracing_disabled=True, sandbox=SandboxRunConfig(session=session))

        async def go() -> None:
            outcome = await Runner.run(agent, "go", max_turns=turns + 5, run_config=config)
            assert outcome.final_output == "done"

        return cpu_seconds_async(go)

    return compare(
        GROUP,
        f"SandboxAgent run, {turns} turns of exec_command (per run)",
        "same run on agents.testing.scripted_sandbox_session",
        lambda: run(openai_agents_sandbox_session),
        lambda: run(sdk_session),
        repeats=repeats,
        goal="<= 1.0",
    )


def read_row(repeats: int, calls: int) -> Row:
    from agents.testing import scripted_sandbox_session as sdk_session

    steps: list[Any] = [{"method": "exec", "result": None}] * calls
    ours, sdk = scripted_sandbox_session(steps), sdk_session(steps)

    async def fill() -> None:
        for _ in range(calls):
            await ours.exec("ls", {"path": "/workspace"})
            await sdk.exec("ls", {"path": "/workspace"})

    asyncio.run(fill())

    def read(session: Any, reads: int) -> float:
        return cpu_seconds(lambda: [session.calls for _ in range(reads)]) / reads

    return compare(
        GROUP,
        f"read calls after {calls:,} calls (per read)",
        "agents.testing scripted session .calls",
        lambda: read(ours, 100),
        lambda: read(sdk, 1),
        repeats=repeats,
        goal="<= 1.0",
    )


def rows(quick: bool) -> list[Row]:
    repeats = 1 if quick else 5
    return [
        *direct_rows(repeats, 50 if quick else 2_000),
        agent_row(1 if quick else 15, 3 if quick else 20),  # a noisy run: more repeats
        read_row(repeats, 100 if quick else 10_000),
    ]
