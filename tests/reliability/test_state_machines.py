"""Stateful models of the three doubles: Hypothesis drives random call sequences.

Each machine keeps a plain model of what the double must do (the script left, the calls
made, whether a violation was seen) and checks after every step: each step is handed out
exactly once and in order, indexes are contiguous, reads are detached copies, and
``assert_complete()`` raises exactly when steps remain or a violation was seen.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from agents_testing import (
    IncompleteRealtimeScenarioError,
    InvalidScriptedModelStepError,
    ModelRequest,
    RealtimeCallMatcherError,
    RealtimeTransportMethod,
    SandboxCallMatcherError,
    ScriptedModel,
    ScriptedRealtimeTransport,
    UnconsumedModelStepsError,
    UnconsumedSandboxStepsError,
    UnexpectedModelCallError,
    UnexpectedRealtimeCallError,
    UnexpectedSandboxCallError,
    model_error,
    model_stream,
    scripted_sandbox_session,
)
from agents_testing.realtime import SendEventCall


class Boom(Exception):
    """A scripted error, told apart by its number."""


def run(loop: asyncio.AbstractEventLoop, awaitable: Any) -> Any:
    async def wrapped() -> Any:
        return await awaitable

    return loop.run_until_complete(wrapped())


# -- ScriptedModel ---------------------------------------------------------------------------


class ModelMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.model = ScriptedModel()
        self.script: deque[tuple[str, int]] = deque()  # (kind, serial) not yet taken
        self.serial = 0
        self.calls: list[tuple[bool, int]] = []  # (streamed, marker sent)
        self.violation = False

    def teardown(self) -> None:
        self.loop.close()

    @rule(kinds=st.lists(st.sampled_from(["output", "error", "stream"]), min_size=1, max_size=3))
    def enqueue(self, kinds: list[str]) -> None:
        steps: list[Any] = []
        for kind in kinds:
            self.serial += 1
            if kind == "output":
                steps.append([{"type": "marker", "serial": self.serial}])
            elif kind == "error":
                steps.append(model_error(Boom(self.serial)))
            else:
                steps.append(model_stream([{"type": "model", "event": self.serial}]))
            self.script.append((kind, self.serial))
        self.model.enqueue(*steps)

    def _request(self) -> ModelRequest:
        # Called after the call was added to self.calls: its marker is its own index.
        return ModelRequest(input=[{"role": "user", "content": "hi", "n": len(self.calls) - 1}])

    @rule()
    def get_response(self) -> None:
        index = len(self.calls)
        self.calls.append((False, index))
        head = self.script.popleft() if self.script else None
        if head is None:
            with pytest.raises(UnexpectedModelCallError) as info:
                run(self.loop, self.model.get_response(self._request()))
            assert info.value.call_index == index
            self.violation = True
        elif head[0] == "stream":
            with pytest.raises(InvalidScriptedModelStepError) as step_info:
                run(self.loop, self.model.get_response(self._request()))
            assert (step_info.value.reason, step_info.value.call_index) == (
                "incompatible_call",
                index,
            )
            self.violation = True
        elif head[0] == "error":
            with pytest.raises(Boom) as boom:
                run(self.loop, self.model.get_response(self._request()))
            assert boom.value.args == (head[1],)
        else:
            response = run(self.loop, self.model.get_response(self._request()))
            assert response.output == [{"type": "marker", "serial": head[1]}]
            assert response.response_id == f"scripted-response-{index + 1}"

    @rule()
    def stream_response(self) -> None:
        index = len(self.calls)
        self.calls.append((True, index))
        head = self.script.popleft() if self.script else None
        if head is None:
            with pytest.raises(UnexpectedModelCallError) as info:
                self.model.stream_response(self._request())
            assert (info.value.call_index, info.value.streamed) == (index, True)
            self.violation = True
            return
        stream = self.model.stream_response(self._request())
        assert stream.call_index == index

        async def read() -> list[Any]:
            return [event async for event in stream]

        if head[0] == "error":
            with pytest.raises(Boom) as boom:
                run(self.loop, read())
            assert boom.value.args == (head[1],)
        elif head[0] == "stream":
            assert run(self.loop, read()) == [{"type": "model", "event": head[1]}]
        else:
            events = run(self.loop, read())
            assert events[-1]["type"] == "response_done"
            assert events[-1]["response"]["output"] == [{"type": "marker", "serial": head[1]}]

    @rule()
    def abandon_a_stream(self) -> None:
        # Taking a step without reading it still takes it, once.
        if not self.script:
            return
        self.script.popleft()
        index = len(self.calls)
        self.calls.append((True, index))
        stream = self.model.stream_response(self._request())
        run(self.loop, stream.aclose())

    @rule()
    def reads_are_detached(self) -> None:
        calls = self.model.calls
        if not calls:
            return
        first = calls[0].request
        first.input.append("mutated")  # type: ignore[union-attr]
        assert self.model.calls[0].request.input == [{"role": "user", "content": "hi", "n": 0}]

    @invariant()
    def matches_the_model(self) -> None:
        assert self.model.remaining_steps == len(self.script)
        calls = self.model.calls
        assert [(call.index, call.streamed) for call in calls] == [
            (index, streamed) for index, (streamed, _) in enumerate(self.calls)
        ]
        assert [call.request.input[0]["n"] for call in calls] == [n for _, n in self.calls]  # type: ignore[index]

    @invariant()
    def assert_complete_raises_iff_steps_remain_or_a_violation_was_seen(self) -> None:
        if self.violation:
            with pytest.raises((UnexpectedModelCallError, InvalidScriptedModelStepError)):
                self.model.assert_complete()
        elif self.script:
            with pytest.raises(UnconsumedModelStepsError) as info:
                self.model.assert_complete()
            assert info.value.remaining_steps == len(self.script)
        else:
            self.model.assert_complete()


# -- scripted sandbox session ----------------------------------------------------------------

SANDBOX_METHODS = ("supports_pty", "exec", "read_file")  # one sync, two async
OUTCOMES = ("result", "error", "reject")


class SandboxMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.session: Any = None
        self.script: deque[tuple[str, str, int]] = deque()
        self.calls: list[tuple[str, int]] = []
        self.violation = False

    def teardown(self) -> None:
        self.loop.close()

    @rule(
        steps=st.lists(
            st.tuples(st.sampled_from(SANDBOX_METHODS), st.sampled_from(OUTCOMES)), max_size=6
        )
    )
    def script_a_session(self, steps: list[tuple[str, str]]) -> None:
        if self.session is not None:
            return  # one session per run; later draws are ignored
        script: list[dict[str, Any]] = []
        for serial, (method, kind) in enumerate(steps):
            step: dict[str, Any] = {"method": method}
            if kind == "result":
                step["result"] = {"serial": serial}
            elif kind == "error":
                step["error"] = Boom(serial)
            else:
                step["match"] = lambda *args, **kwargs: False
                step["result"] = None
            script.append(step)
            self.script.append((method, kind, serial))
        self.session = scripted_sandbox_session(script)

    @rule(method=st.sampled_from(SANDBOX_METHODS))
    def call(self, method: str) -> None:
        if self.session is None:
            return
        index = len(self.calls)
        self.calls.append((method, index))
        head = self.script.popleft() if self.script else None

        def invoke() -> Any:
            result = self.session.invoke(method, {"n": index})
            if method != "supports_pty":
                return run(self.loop, result)
            return result

        if head is None or head[0] != method:
            with pytest.raises(UnexpectedSandboxCallError) as info:
                invoke()
            assert info.value.call_index == index
            assert info.value.expected_method == (None if head is None else head[0])
            self.violation = True
        elif head[1] == "reject":
            with pytest.raises(SandboxCallMatcherError):
                invoke()
            self.violation = True
        elif head[1] == "error":
            with pytest.raises(Boom) as boom:
                invoke()
            assert boom.value.args == (head[2],)
        else:
            assert invoke() == {"serial": head[2]}

    @rule()
    def reads_are_detached(self) -> None:
        if self.session is None or not self.session.calls:
            return
        self.session.calls[0].args[0]["n"] = "mutated"
        assert self.session.calls[0].args == ({"n": 0},)

    @invariant()
    def matches_the_model(self) -> None:
        if self.session is None:
            return
        assert self.session.remaining_steps == len(self.script)
        assert [(call.method, call.index, call.args) for call in self.session.calls] == [
            (method, index, ({"n": index},)) for method, index in self.calls
        ]

    @invariant()
    def assert_complete_raises_iff_steps_remain_or_a_violation_was_seen(self) -> None:
        if self.session is None:
            return
        if self.violation:
            with pytest.raises((UnexpectedSandboxCallError, SandboxCallMatcherError)):
                self.session.assert_complete()
        elif self.script:
            with pytest.raises(UnconsumedSandboxStepsError) as info:
                self.session.assert_complete()
            assert list(info.value.pending_methods) == [method for method, _, _ in self.script]
        else:
            self.session.assert_complete()


# -- scripted realtime transport -------------------------------------------------------------

REALTIME_METHODS: tuple[RealtimeTransportMethod, ...] = (
    "send_event",
    "mute",
    "interrupt",
    "request_response",
)


class RealtimeMachine(RuleBasedStateMachine):
    """Calls and expectations pair up in one global order; failures are per method."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.transport = ScriptedRealtimeTransport()
        # calls made before an expectation
        self.unclaimed: deque[tuple[int, RealtimeTransportMethod]] = deque()
        self.waiting: deque[tuple[RealtimeTransportMethod, bool, asyncio.Future[Any]]] = deque()
        self.failures: dict[RealtimeTransportMethod, int] = {}
        self.calls: list[RealtimeTransportMethod] = []
        self.violation = False

    def teardown(self) -> None:
        for _, _, future in self.waiting:
            future.cancel()
        self.loop.close()

    def _call(self, method: RealtimeTransportMethod) -> None:
        transport = self.transport
        if method == "send_event":
            transport.send_event({"n": len(self.calls) - 1})  # its own index
        elif method == "mute":
            transport.mute(True)
        elif method == "interrupt":
            transport.interrupt()
        else:
            transport.request_response(None)

    @rule(method=st.sampled_from(REALTIME_METHODS))
    def call(self, method: RealtimeTransportMethod) -> None:
        index = len(self.calls)
        self.calls.append(method)
        failure = self.failures.get(method, 0) > 0
        if failure:
            self.failures[method] -= 1
        if not self.waiting:
            self.unclaimed.append((index, method))
            if failure:
                with pytest.raises(Boom):
                    self._call(method)
            else:
                self._call(method)
            return
        expected, accept, future = self.waiting.popleft()
        if expected != method:
            with pytest.raises(UnexpectedRealtimeCallError) as info:
                self._call(method)
            assert (info.value.call_index, info.value.expected_method) == (index, expected)
            self.violation = True
        elif not accept:
            with pytest.raises(RealtimeCallMatcherError):
                self._call(method)
            self.violation = True
        elif failure:
            with pytest.raises(Boom):
                self._call(method)
        else:
            self._call(method)
        assert future.done()  # settled either way: with the call, or with the error

    @rule(method=st.sampled_from(REALTIME_METHODS), accept=st.booleans())
    def expect(self, method: RealtimeTransportMethod, accept: bool) -> None:
        async def register() -> asyncio.Future[Any]:
            return self.transport.expect_call(method, lambda call: accept)

        future = run(self.loop, register())
        if self.unclaimed:
            index, made = self.unclaimed.popleft()
            assert future.done()
            if made != method or not accept:
                # A kept call that fails its expectation fails only the future.
                error = future.exception()
                assert isinstance(error, (UnexpectedRealtimeCallError, RealtimeCallMatcherError))
                assert error.call_index == index
                self.violation = True
            else:
                assert future.result().index == index
        else:
            self.waiting.append((method, accept, future))

    @rule(method=st.sampled_from(REALTIME_METHODS))
    def fail_next(self, method: RealtimeTransportMethod) -> None:
        self.transport.fail_next_call(method, Boom(method))
        self.failures[method] = self.failures.get(method, 0) + 1

    @rule()
    def reads_are_detached(self) -> None:
        events = [call for call in self.transport.calls if isinstance(call, SendEventCall)]
        if not events:
            return
        first = events[0]
        first.event["n"] = "mutated"  # type: ignore[index]  # a read-only Mapping, on purpose
        again = next(
            call
            for call in self.transport.calls
            if isinstance(call, SendEventCall) and call.index == first.index
        )
        assert again.event == {"n": first.index}

    @invariant()
    def records_every_call_in_order(self) -> None:
        assert [call.method for call in self.transport.calls] == self.calls
        assert [call.index for call in self.transport.calls] == list(range(len(self.calls)))

    @invariant()
    def assert_complete_raises_iff_leftovers_or_a_violation(self) -> None:
        leftovers = self.unclaimed or self.waiting or any(self.failures.values())
        if self.violation:
            with pytest.raises((UnexpectedRealtimeCallError, RealtimeCallMatcherError)):
                self.transport.assert_complete()
        elif leftovers:
            with pytest.raises(IncompleteRealtimeScenarioError) as info:
                self.transport.assert_complete()
            assert [entry["index"] for entry in info.value.unconsumed_calls] == [
                index for index, _ in self.unclaimed
            ]
            assert len(info.value.pending_expectations) == len(self.waiting)
        else:
            self.transport.assert_complete()


TestModelMachine = ModelMachine.TestCase
TestSandboxMachine = SandboxMachine.TestCase
TestRealtimeMachine = RealtimeMachine.TestCase
