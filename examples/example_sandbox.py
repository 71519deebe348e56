"""Test a workflow step against a scripted sandbox session instead of a real sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from agents_testing import scripted_sandbox_session


async def report_workspace(session: Any) -> str:
    """The code under test: run ``pwd`` in the sandbox and describe the answer."""
    output = await session.exec_command({"cmd": "pwd"})
    return f"The workspace is {output.strip()}."


@pytest.mark.asyncio
async def test_report_workspace_runs_pwd_in_the_sandbox() -> None:
    def expect_pwd(args: dict[str, Any]) -> None:
        # The matcher sees the call's arguments; asserting here fails at the boundary.
        assert args["cmd"] == "pwd"

    sandbox = scripted_sandbox_session(
        [{"method": "exec_command", "match": expect_pwd, "result": "/workspace\n"}]
    )

    assert await report_workspace(sandbox) == "The workspace is /workspace."

    # Every call is recorded with its arguments, in the order the workflow made them.
    assert [(call.method, call.args) for call in sandbox.calls] == [
        ("exec_command", ({"cmd": "pwd"},))
    ]
    # Fails if a step went unused, or if the workflow made a call the script did not expect.
    sandbox.assert_complete()
