"""A rule-based state machine: ScriptedMCPServer against a plain model of its script.

Calls with random tool names and arguments, listings and enqueued steps, in any order: the
server uses a step exactly when the model says a step matches (the head one, or any one when
``ordered=False``), answers with that step's result, and otherwise raises the unexpected call
without using a step; ``assert_complete()`` reports the first violation, then leftovers.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from agents_testing import (
    ScriptedMCPServer,
    UnconsumedMCPStepsError,
    UnexpectedMCPCallError,
    mcp_tool,
    mcp_tool_call,
)

NAMES = st.sampled_from(["a", "b"])
VALUES = st.integers(min_value=0, max_value=2)


class ScriptMachine(RuleBasedStateMachine):
    """Drive the server and a list-of-steps model side by side."""

    def __init__(self) -> None:
        super().__init__()
        self.server = ScriptedMCPServer()
        self.ordered = True
        self.steps: list[tuple[str, int, str]] = []
        self.added = 0
        self.violated = False

    @initialize(ordered=st.booleans())
    def start(self, ordered: bool) -> None:
        self.ordered = ordered
        self.server = ScriptedMCPServer(tools=[mcp_tool("a"), mcp_tool("b")], ordered=ordered)

    @rule(name=NAMES, value=VALUES)
    def enqueue(self, name: str, value: int) -> None:
        answer = f"step {self.added}"
        self.added += 1
        self.server.enqueue(mcp_tool_call(name, {"x": value}, result=answer))
        self.steps.append((name, value, answer))

    @rule(name=NAMES, value=VALUES)
    def call(self, name: str, value: int) -> None:
        candidates = self.steps[:1] if self.ordered else self.steps
        match = next((step for step in candidates if step[0] == name and step[1] == value), None)
        params = {"name": name, "arguments": {"x": value}}
        if match is None:
            with pytest.raises(UnexpectedMCPCallError):
                asyncio.run(self.server.serve("tools/call", params))
            self.violated = True
            return
        answer = asyncio.run(self.server.serve("tools/call", params))
        self.steps.remove(match)
        assert answer["content"][0]["text"] == match[2]

    @rule()
    def list_tools(self) -> None:
        answer = asyncio.run(self.server.serve("tools/list"))
        assert [tool["name"] for tool in answer["tools"]] == ["a", "b"]

    @invariant()
    def remaining_steps_follow_the_model(self) -> None:
        assert self.server.remaining_steps == len(self.steps)

    @invariant()
    def completion_reports_violations_first_then_leftovers(self) -> None:
        if self.violated:
            with pytest.raises(UnexpectedMCPCallError):
                self.server.assert_complete()
        elif self.steps:
            with pytest.raises(UnconsumedMCPStepsError):
                self.server.assert_complete()
        else:
            self.server.assert_complete()


ScriptMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=20, deadline=None, derandomize=True, database=None
)
test_the_script_behaves_like_its_model = ScriptMachine.TestCase
