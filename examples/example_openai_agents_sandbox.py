"""Test a real openai-agents SandboxAgent workflow without starting a sandbox."""

from __future__ import annotations

import pytest

pytest.importorskip("agents")

from agents import RunConfig, Runner, UserError
from agents.sandbox import Manifest, SandboxAgent, SandboxRunConfig
from agents.sandbox.capabilities import Shell

from agents_testing import (
    SandboxCallMatcherError,
    ScriptedModel,
    assistant_message,
    function_call,
    optional_step,
)
from agents_testing.adapters.openai_agents import (
    openai_agents_model,
    openai_agents_sandbox_session,
)


@pytest.mark.asyncio
async def test_runs_a_sandbox_agent_shell_workflow_without_a_real_sandbox(
    request: pytest.FixtureRequest,
) -> None:
    def expect_pwd(*command: object, **options: object) -> None:
        # Assert the command at the sandbox boundary, after the Shell capability has
        # validated the model's exec_command arguments and turned them into this call.
        assert command == ("pwd",)
        assert options == {"timeout": 10.0, "shell": True, "user": None}

    # Steps use the SDK session's own method names; a str result for exec is the
    # shorthand for ExecResult(stdout=b"/workspace\n", stderr=b"", exit_code=0).
    sandbox = openai_agents_sandbox_session(
        [{"method": "exec", "match": expect_pwd, "result": "/workspace\n"}]
    )
    model = ScriptedModel(
        [
            [function_call("exec_command", {"cmd": "pwd"}, call_id="call_1")],
            [assistant_message("The workspace is /workspace.")],
        ]
    )
    agent = SandboxAgent(
        name="Workspace assistant",
        model=openai_agents_model(model),
        capabilities=[Shell()],
    )

    # Teardown checks also report unused steps if the workflow exits early.
    request.addfinalizer(sandbox.assert_complete)
    request.addfinalizer(model.assert_complete)

    result = await Runner.run(
        agent,
        "Which directory are you in?",
        # The real SandboxAgent runtime receives the in-memory session instead of creating
        # a Docker or remote sandbox; the scripted boundaries do not disable tracing.
        run_config=RunConfig(tracing_disabled=True, sandbox=SandboxRunConfig(session=sandbox)),
    )

    assert result.final_output == "The workspace is /workspace."
    # Only scripted methods are recorded: the runtime's own start and running() checks
    # are answered by the session and left out.
    assert [call.method for call in sandbox.calls] == ["exec"]
    assert len(model.calls) == 2


@pytest.mark.asyncio
async def test_assert_complete_reraises_the_error_the_sdk_wraps() -> None:
    # The workflow runs a different command than the script expects.
    sandbox = openai_agents_sandbox_session(
        [{"method": "exec", "match": lambda *command, **options: command == ("ls",), "result": ""}],
        manifest=Manifest(root="/srv/app"),  # the workspace the runtime sees
    )
    model = ScriptedModel(
        [
            [function_call("exec_command", {"cmd": "pwd"}, call_id="call_1")],
            optional_step([assistant_message("Not reached.")]),
        ]
    )
    agent = SandboxAgent(
        name="Workspace assistant", model=openai_agents_model(model), capabilities=[Shell()]
    )

    # The SDK reports a failing tool as its own UserError("Error running tool ...").
    with pytest.raises(UserError, match="Error running tool exec_command"):
        await Runner.run(
            agent,
            "Which directory are you in?",
            run_config=RunConfig(tracing_disabled=True, sandbox=SandboxRunConfig(session=sandbox)),
        )

    # assert_complete() raises the structured error again, whatever the SDK made of it.
    with pytest.raises(SandboxCallMatcherError) as rejected:
        sandbox.assert_complete()
    assert (rejected.value.call_index, rejected.value.method) == (0, "exec")
    assert rejected.value.call_summary == "exec('pwd', timeout=10.0, shell=True, user=None)"
    assert sandbox.state.manifest.root == "/srv/app"
    model.assert_complete()
