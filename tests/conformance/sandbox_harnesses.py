"""A sandbox harness for the openai-agents sandbox adapter, run through the conformance kit.

Import this module after ``importorskip("agents")``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents import RunConfig, Runner
from agents.sandbox import SandboxAgent, SandboxRunConfig
from agents.sandbox.capabilities import Shell

from agents_testing import ScriptedModel, assistant_message, function_call
from agents_testing.adapters.openai_agents import (
    OpenAIAgentsSandboxSession,
    openai_agents_model,
)


def tool_output(model: ScriptedModel) -> str:
    """Return what the shell tool reported to the model (the second call's tool output)."""
    return str(model.calls[1].request.tool_outputs["call_1"])


class OpenAIAgentsSandboxHarness:
    """A SandboxAgent with the Shell capability, whose scripted model runs one command."""

    framework = "openai-agents"
    session_class: type[OpenAIAgentsSandboxSession] = OpenAIAgentsSandboxSession

    def session(self, steps: Sequence[Mapping[str, Any]]) -> OpenAIAgentsSandboxSession:
        return self.session_class(steps)

    def command_step(self, output: str) -> Mapping[str, Any]:
        return {"method": "exec", "result": output}

    async def run_command(self, session: Any, command: str) -> str:
        model = ScriptedModel(
            [
                [function_call("exec_command", {"cmd": command}, call_id="call_1")],
                [assistant_message("Done.")],
            ]
        )
        agent = SandboxAgent(
            name="Workspace assistant", model=openai_agents_model(model), capabilities=[Shell()]
        )
        config = RunConfig(tracing_disabled=True, sandbox=SandboxRunConfig(session=session))
        await Runner.run(agent, "Run the command.", run_config=config)
        return tool_output(model)
