"""Every double is a context manager: a clean exit checks completion, a failing one stays silent."""

from __future__ import annotations

import asyncio
import contextlib
import unittest
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from agents_testing import (
    IncompleteRealtimeScenarioError,
    ModelRequest,
    ScriptedModel,
    ScriptedRealtimeTransport,
    UnconsumedModelStepsError,
    UnconsumedSandboxStepsError,
    UnexpectedModelCallError,
    UnexpectedSandboxCallError,
    assistant_message,
    scripted_sandbox_session,
)
from agents_testing._completion import CompletionContext


@dataclass
class Case:
    """How to build one double with a single step, use it up, and what a leftover raises."""

    build: Callable[[], CompletionContext]
    use: Callable[[Any], None]
    leftover: type[AssertionError]
    check_leftover: Callable[[Any], None]


def _use_model(model: ScriptedModel) -> None:
    asyncio.run(model.get_response(ModelRequest(input="hi")))


def _use_transport(transport: ScriptedRealtimeTransport) -> None:
    async def expect() -> None:
        pending = transport.expect_call("send_event")
        transport.send_event({"type": "ping"})
        await pending

    asyncio.run(expect())


def _leftover_model(error: UnconsumedModelStepsError) -> None:
    assert error.remaining_steps == 1


def _leftover_session(error: UnconsumedSandboxStepsError) -> None:
    assert (error.remaining_steps, list(error.pending_methods)) == (1, ["supports_pty"])


def _leftover_transport(error: IncompleteRealtimeScenarioError) -> None:
    assert len(error.unconsumed_calls) == 1
    assert len(error.pending_expectations) == 0


CASES = {
    "model": Case(
        build=lambda: ScriptedModel([[assistant_message("done")]]),
        use=_use_model,
        leftover=UnconsumedModelStepsError,
        check_leftover=_leftover_model,
    ),
    "sandbox": Case(
        build=lambda: scripted_sandbox_session([{"method": "supports_pty", "result": True}]),
        use=lambda session: session.supports_pty(),
        leftover=UnconsumedSandboxStepsError,
        check_leftover=_leftover_session,
    ),
    # A realtime transport's "step" is a call nobody expected: it stays unconsumed.
    "realtime": Case(
        build=lambda: _transport_with_unconsumed_call(),
        use=lambda transport: _use_transport_leftover(transport),
        leftover=IncompleteRealtimeScenarioError,
        check_leftover=_leftover_transport,
    ),
}


def _transport_with_unconsumed_call() -> ScriptedRealtimeTransport:
    transport = ScriptedRealtimeTransport()
    transport.send_event({"type": "ping"})
    return transport


def _use_transport_leftover(transport: ScriptedRealtimeTransport) -> None:
    async def consume() -> None:
        await transport.expect_call("send_event")

    asyncio.run(consume())


case_ids = pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))


@case_ids
def test_with_returns_the_double_and_passes_when_every_step_was_used(case: Case) -> None:
    double = case.build()
    with double as entered:
        assert entered is double
        case.use(double)


@case_ids
def test_async_with_returns_the_double_and_passes_when_every_step_was_used(case: Case) -> None:
    double = case.build()

    async def run() -> None:
        async with double as entered:
            assert entered is double
            # case.use runs its own event loop, so it runs in a worker thread here.
            await asyncio.to_thread(case.use, double)

    asyncio.run(run())


@case_ids
def test_with_fails_on_a_clean_exit_with_a_leftover_step(case: Case) -> None:
    with pytest.raises(case.leftover) as raised, case.build():
        pass
    case.check_leftover(raised.value)


@case_ids
def test_async_with_fails_on_a_clean_exit_with_a_leftover_step(case: Case) -> None:
    async def run() -> None:
        async with case.build():
            pass

    with pytest.raises(case.leftover) as raised:
        asyncio.run(run())
    case.check_leftover(raised.value)


class WorkflowError(Exception):
    """What the block under test raised."""


@case_ids
def test_with_lets_the_block_error_through_unchanged(case: Case) -> None:
    error = WorkflowError("the workflow broke")
    with pytest.raises(WorkflowError) as raised, case.build():
        raise error
    # The exit raised nothing of its own: no completion error replaced or chained onto it.
    assert raised.value is error
    assert error.__context__ is None


@case_ids
def test_async_with_lets_the_block_error_through_unchanged(case: Case) -> None:
    error = WorkflowError("the workflow broke")

    async def run() -> None:
        async with case.build():
            raise error

    with pytest.raises(WorkflowError) as raised:
        asyncio.run(run())
    assert raised.value is error
    assert error.__context__ is None


@case_ids
def test_a_cancelled_block_stays_cancelled(case: Case) -> None:
    cancelled = asyncio.CancelledError()

    async def run() -> BaseException:
        # Caught inside the task: asyncio.run() re-raises a cancellation as a new error on
        # some Python versions, which would hide what the exit did.
        try:
            async with case.build():
                raise cancelled
        except asyncio.CancelledError as error:
            return error
        raise AssertionError("the cancellation did not leave the block")

    error = asyncio.run(run())
    assert error is cancelled
    assert error.__context__ is None


def test_a_violation_the_workflow_caught_fails_the_clean_exit() -> None:
    model = ScriptedModel()
    # A framework that swallows the error (the suppress) must not hide it from the exit.
    with (
        pytest.raises(UnexpectedModelCallError) as raised,
        model,
        contextlib.suppress(UnexpectedModelCallError),
    ):
        _use_model(model)
    assert (raised.value.call_index, raised.value.streamed) == (0, False)


def test_a_sandbox_violation_the_workflow_caught_fails_the_async_exit() -> None:
    session = scripted_sandbox_session([{"method": "exec", "result": "ok"}])

    async def run() -> None:
        async with session:
            with pytest.raises(UnexpectedSandboxCallError):
                session.invoke("supports_pty")

    with pytest.raises(UnexpectedSandboxCallError) as raised:
        asyncio.run(run())
    assert (raised.value.call_index, raised.value.actual_method) == (0, "supports_pty")


def test_context_dunders_are_not_scripted_methods_of_a_sandbox_session() -> None:
    # Code under test detects capabilities with hasattr(): the context-manager methods are
    # on the class, so scripted and unscripted public methods look exactly as before.
    session = scripted_sandbox_session([{"method": "exec", "result": "ok"}])
    assert hasattr(session, "exec")
    assert not hasattr(session, "read_file")
    assert not hasattr(session, "close")
    assert "__aenter__" not in vars(session)
    with pytest.raises(ValueError, match="__enter__"):
        scripted_sandbox_session(interface={"__enter__": "sync"})


def test_a_sandbox_interface_class_with_context_methods_keeps_its_public_methods_only() -> None:
    class Session:
        async def __aenter__(self) -> Session:
            return self

        async def exec(self, command: str) -> str:
            return command

    session = scripted_sandbox_session([{"method": "exec", "result": "ok"}], interface=Session)
    with session:
        assert asyncio.run(session.exec("pwd")) == "ok"


def _run_unittest(case: type[unittest.TestCase]) -> tuple[dict[str, str], dict[str, str]]:
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(result)
    failed = {test.id().rpartition(".")[2]: text for test, text in result.failures}
    errors = {test.id().rpartition(".")[2]: text for test, text in result.errors}
    return failed, errors


def test_unittest_cleanup_reports_a_leftover_step() -> None:
    # The "Use without pytest" recipe: addCleanup(double.assert_complete).
    class Workflow(unittest.IsolatedAsyncioTestCase):
        def setUp(self) -> None:
            self.model = ScriptedModel([[assistant_message("done")]])
            self.addCleanup(self.model.assert_complete)

        async def test_complete(self) -> None:
            await self.model.get_response(ModelRequest(input="hi"))

        async def test_leftover(self) -> None:
            pass

    failed, errors = _run_unittest(Workflow)
    assert set(failed) == {"test_leftover"}
    assert "UnconsumedModelStepsError" in failed["test_leftover"]
    assert errors == {}


def test_unittest_async_with_reports_only_the_test_error_when_the_test_fails() -> None:
    class Workflow(unittest.IsolatedAsyncioTestCase):
        async def test_complete(self) -> None:
            async with ScriptedModel([[assistant_message("done")]]) as model:
                await model.get_response(ModelRequest(input="hi"))

        async def test_leftover(self) -> None:
            async with ScriptedModel([[assistant_message("done")]]):
                pass

        async def test_own_failure(self) -> None:
            async with ScriptedModel([[assistant_message("done")]]):
                raise WorkflowError("the workflow broke")

    failed, errors = _run_unittest(Workflow)
    assert set(failed) == {"test_leftover"}
    assert "UnconsumedModelStepsError" in failed["test_leftover"]
    assert set(errors) == {"test_own_failure"}
    assert "WorkflowError: the workflow broke" in errors["test_own_failure"]
    assert "Unconsumed" not in errors["test_own_failure"]
