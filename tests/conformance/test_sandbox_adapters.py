"""Our sandbox adapter passes the sandbox conformance kit; each check fails on its defect."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("agents")

from agents.sandbox.types import ExecResult

from agents_testing import SandboxCallMatcherError, UnconsumedSandboxStepsError
from agents_testing import conformance as kit
from agents_testing.adapters.openai_agents import OpenAIAgentsSandboxSession
from agents_testing.conformance import ConformanceError
from agents_testing.conformance.pytest import SandboxAdapterTests

from .sandbox_harnesses import OpenAIAgentsSandboxHarness


class TestOpenAIAgentsSandbox(SandboxAdapterTests):
    harness = OpenAIAgentsSandboxHarness()


# -- one defect each --------------------------------------------------------------------------


EMPTY = ExecResult(stdout=b"", stderr=b"", exit_code=0)


class DropsTheOutput(OpenAIAgentsSandboxSession):
    """Runs the step but answers every command with empty output."""

    async def exec(self, *command: Any, **options: Any) -> ExecResult:
        await super().exec(*command, **options)
        return EMPTY


class HidesErrors(OpenAIAgentsSandboxSession):
    """Turns a failed step into an empty, successful result."""

    async def exec(self, *command: Any, **options: Any) -> ExecResult:
        try:
            return await super().exec(*command, **options)
        except kit.ScriptedSandboxFailure:
            return EMPTY


class AnswersUnscriptedCalls(OpenAIAgentsSandboxSession):
    """Answers a command itself once the script is used up, without recording it."""

    async def exec(self, *command: Any, **options: Any) -> ExecResult:
        if self.remaining_steps == 0:
            return EMPTY
        return await super().exec(*command, **options)


class ForgetsRejections(OpenAIAgentsSandboxSession):
    """Catches the matcher's rejection in assert_complete()."""

    def assert_complete(self) -> None:
        with contextlib.suppress(SandboxCallMatcherError):
            super().assert_complete()


class ForgetsUnusedSteps(OpenAIAgentsSandboxSession):
    """Catches the unused steps' error in assert_complete()."""

    def assert_complete(self) -> None:
        with contextlib.suppress(UnconsumedSandboxStepsError):
            super().assert_complete()


class BrokenHarness(OpenAIAgentsSandboxHarness):
    def __init__(self, session_class: type[OpenAIAgentsSandboxSession]) -> None:
        self.session_class = session_class


Check = Callable[[Any], Awaitable[None]]
# (check, defect, a phrase of `actual`, a phrase of `fix`)
DEFECTS: list[tuple[Check, type[OpenAIAgentsSandboxSession], str, str]] = [
    (
        kit.check_sandbox_command_output,
        DropsTheOutput,
        "Process exited with code 0",
        "convert the step's result",
    ),
    (kit.check_sandbox_error_reaches_the_framework, HidesErrors, "code 0", "do not turn it into"),
    (kit.check_sandbox_unscripted_call_is_kept, AnswersUnscriptedCalls, "it passed", "invoke()"),
    (kit.check_sandbox_rejected_call_is_kept, ForgetsRejections, "it passed", "without catching"),
    (kit.check_sandbox_unused_step_is_reported, ForgetsUnusedSteps, "it passed", "Forward"),
]
IDS = [check.__name__ for check, *_ in DEFECTS]


@pytest.mark.parametrize(("check", "defect", "actual", "fix"), DEFECTS, ids=IDS)
async def test_the_sandbox_check_fails_on_its_defect_with_the_fix(
    check: Check, defect: type[OpenAIAgentsSandboxSession], actual: str, fix: str
) -> None:
    with pytest.raises(ConformanceError) as raised:
        await check(BrokenHarness(defect))

    error = raised.value
    assert error.check == check.__name__
    assert actual in error.actual
    assert str(error) == (
        f"{error.check} failed: expected {error.expected.rstrip('.')}; "
        f"got {error.actual.rstrip('.')}. {error.fix}"
    )
    assert fix in error.fix


def test_every_sandbox_check_has_a_defect_that_fails_it() -> None:
    checks = {name for name in kit.__all__ if name.startswith("check_sandbox_")}

    assert checks == set(IDS)
