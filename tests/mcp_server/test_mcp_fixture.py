"""The ``scripted_mcp`` fixture, run the way users run it: pytest over a small test project."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

# The project's pytest runs in a subprocess: make it import this checkout's package (and so
# its plugin), whichever copy the environment has installed.
ROOT = Path(__file__).resolve().parents[2]

TESTS = """
import asyncio
import threading

import pytest

from agents_testing import mcp_tool, mcp_tool_call


def call(server, name, arguments):
    return asyncio.run(server.serve("tools/call", {"name": name, "arguments": arguments}))


def test_pass_complete(scripted_mcp):
    server = scripted_mcp([mcp_tool_call("t", result="ok")], tools=[mcp_tool("t")])
    assert call(server, "t", {})["content"][0]["text"] == "ok"


def test_fail_leftover(scripted_mcp):
    scripted_mcp([mcp_tool_call("t", result="unused")])


def test_fail_violation_the_test_swallowed(scripted_mcp):
    server = scripted_mcp([mcp_tool_call("t", {"x": 1}, result="ok", optional=True)])
    try:
        call(server, "t", {"x": 2})
    except AssertionError:
        pass


@pytest.mark.agents_testing(assert_complete=False)
def test_pass_marker_opts_out(scripted_mcp):
    scripted_mcp([mcp_tool_call("t", result="unused")])


def test_pass_served_then_closed_1(scripted_mcp):
    server = scripted_mcp()
    assert server.url.startswith("http://127.0.0.1:")


def test_pass_served_then_closed_2():
    assert not [t for t in threading.enumerate() if t.name == "agents-testing-mcp"]
"""


def test_the_fixture_checks_each_server_and_closes_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_mcp_project=TESTS)

    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "--junitxml=report.xml"
    )

    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    outcomes = {}
    for case in ET.parse(pytester.path / "report.xml").iter("testcase"):
        problems = [child for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[case.attrib["name"]] = "\n".join(
            f"{p.get('message', '')}\n{p.text or ''}" for p in problems
        )
    assert {name for name, text in outcomes.items() if not text} == {
        "test_pass_complete",
        "test_pass_marker_opts_out",
        "test_pass_served_then_closed_1",
        "test_pass_served_then_closed_2",
    }
    leftover = outcomes["test_fail_leftover"]
    assert "ScriptedMCPServer made at test_mcp_project.py:" in leftover
    assert "UnconsumedMCPStepsError: ScriptedMCPServer has 1 unconsumed scripted step." in leftover
    assert "UnexpectedMCPCallError" in outcomes["test_fail_violation_the_test_swallowed"]
