"""The pytest plugin, run the way users run it: a separate pytest process over a test project.

Each run is one subprocess over many small tests (one per behavior), and every test's
outcome and reported text is read back from a JUnit XML report, which looks the same with
and without pytest-xdist.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest

pytest.importorskip("pytest_asyncio")
pytest.importorskip("anyio")
pytest.importorskip("xdist")

INI = """
[pytest]
asyncio_default_fixture_loop_scope = function
{extra}
"""

# Tests every run shares: one per behavior, named after the outcome they expect.
CORE_TESTS = """
import asyncio

import pytest

from agents_testing import ModelRequest, assistant_message


def use(model):
    return asyncio.run(model.get_response(ModelRequest(input="hi")))


def test_pass_sync_with_asyncio_run(scripted_model):
    model = scripted_model([[assistant_message("done")]])
    assert use(model).output[0]["content"][0]["text"] == "done"


def test_fail_sync_leftover(scripted_model):
    model = scripted_model([[assistant_message("one")], [assistant_message("two")]])
    use(model)


def test_fail_own_error_wins(scripted_model):
    scripted_model([[assistant_message("unused")]])
    assert 1 == 2, "the test's own failure"


@pytest.mark.agents_testing(assert_complete=False)
def test_pass_marker_opts_out(scripted_model):
    scripted_model([[assistant_message("unused")]])


def test_fail_two_doubles_both_listed(scripted_model, scripted_sandbox):
    scripted_model([[assistant_message("unused")]])
    scripted_sandbox([{"method": "exec", "result": "unused"}])


def test_fail_violation_the_test_swallowed(scripted_model):
    model = scripted_model()
    try:
        use(model)
    except AssertionError:
        pass


def test_pass_sandbox_complete(scripted_sandbox):
    session = scripted_sandbox(
        [{"method": "supports_pty", "result": False}], interface={"supports_pty": "sync"}
    )
    assert session.supports_pty() is False


def test_fail_sandbox_leftover(scripted_sandbox):
    scripted_sandbox([{"method": "read_file", "result": b""}])


def test_fail_realtime_leftover(scripted_realtime):
    scripted_realtime().send_event({"type": "ping"})


def test_pass_realtime_complete(scripted_realtime):
    transport = scripted_realtime()

    async def exercise():
        pending = transport.expect_call("send_event")
        transport.send_event({"type": "ping"})
        await pending

    asyncio.run(exercise())


class Custom:
    def __init__(self, done):
        self.done = done

    def assert_complete(self):
        assert self.done, "custom double left a step"


def test_fail_check_complete_custom(check_complete):
    assert check_complete(Custom(False)).done is False


def test_pass_check_complete_custom(check_complete):
    check_complete(Custom(True))


def test_fail_check_complete_refuses_a_non_double(check_complete):
    check_complete(object())


@pytest.mark.agents_testing(assert_compete=False)
def test_fail_marker_misspelled(scripted_model):
    pass


@pytest.mark.asyncio
async def test_pass_asyncio_marked(scripted_model):
    model = scripted_model([[assistant_message("done")]])
    await model.get_response(ModelRequest(input="hi"))


@pytest.mark.asyncio
async def test_fail_asyncio_marked_leftover(scripted_model):
    scripted_model([[assistant_message("unused")]])


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param


@pytest.mark.anyio
async def test_pass_anyio(scripted_model):
    model = scripted_model([[assistant_message("done")]])
    await model.get_response(ModelRequest(input="hi"))


@pytest.mark.anyio
async def test_fail_anyio_leftover(scripted_model):
    scripted_model([[assistant_message("unused")]])


@pytest.fixture
def agent_model(scripted_model):
    return scripted_model([[assistant_message("from a fixture")]])


def test_fail_double_made_in_a_fixture(agent_model):
    pass
"""

MODULE_OPT_OUT = """
import pytest

from agents_testing import assistant_message

pytestmark = pytest.mark.agents_testing(assert_complete=False)


def test_pass_module_opts_out(scripted_model):
    scripted_model([[assistant_message("unused")]])
"""

AUTO_MODE = """
from agents_testing import ModelRequest, assistant_message


async def test_pass_auto_mode(scripted_model):
    model = scripted_model([[assistant_message("done")]])
    await model.get_response(ModelRequest(input="hi"))


async def test_fail_auto_mode_leftover(scripted_model):
    scripted_model([[assistant_message("unused")]])
"""

SUITE_OPT_OUT = """
import pytest

from agents_testing import assistant_message


def test_pass_ini_opts_out(scripted_model):
    scripted_model([[assistant_message("unused")]])


@pytest.mark.agents_testing(assert_complete=True)
def test_fail_marker_turns_the_check_back_on(scripted_model):
    scripted_model([[assistant_message("unused")]])
"""

OPT_OUT_LINE = (
    "To skip this check, mark the test @pytest.mark.agents_testing(assert_complete=False), "
    "or set agents_testing_assert_complete = false in the pytest configuration for the "
    "whole suite."
)


@dataclass(frozen=True)
class Outcome:
    passed: bool
    text: str


# LangSmith's pytest plugin (installed with the LangChain extra) takes seconds to import and
# has nothing to do with these runs.
# --strict-markers proves the plugin registers its marker.
QUICK = ("-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "--strict-markers")


def run(pytester: pytest.Pytester, *args: str) -> dict[str, Outcome]:
    """Run pytest in a subprocess; return each test's outcome and reported text by name."""
    result = pytester.runpytest_subprocess(*QUICK, "--junitxml=report.xml", *args)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    outcomes: dict[str, Outcome] = {}
    for case in ET.parse(pytester.path / "report.xml").iter("testcase"):
        problems = [child for child in case if child.tag in ("failure", "error", "skipped")]
        text = "\n".join(f"{p.get('message', '')}\n{p.text or ''}" for p in problems)
        outcomes[case.attrib["name"]] = Outcome(not problems, text)
    return outcomes


def expected_by_name(outcomes: dict[str, Outcome]) -> None:
    """Every test named test_pass_* passed, every test_fail_* failed."""
    wrong = {
        name: outcome.text
        for name, outcome in outcomes.items()
        if outcome.passed != name.startswith("test_pass_")
    }
    assert not wrong, wrong


@pytest.fixture
def core_project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(INI.format(extra=""))
    pytester.makepyfile(test_core=CORE_TESTS, test_module_opt_out=MODULE_OPT_OUT)
    return pytester


def check_core_outcomes(outcomes: dict[str, Outcome]) -> None:
    assert len(outcomes) == 22
    expected_by_name(outcomes)

    leftover = outcomes["test_fail_sync_leftover"].text
    assert "a double was not complete when the test returned." in leftover
    assert "ScriptedModel made at test_core.py:18:" in leftover
    assert "UnconsumedModelStepsError: " in leftover
    assert OPT_OUT_LINE in leftover

    own = outcomes["test_fail_own_error_wins"].text
    assert "the test's own failure" in own
    assert "not complete" not in own

    both = outcomes["test_fail_two_doubles_both_listed"].text
    assert "2 doubles were not complete when the test returned." in both
    assert "UnconsumedModelStepsError" in both
    assert "ScriptedSandboxSession made at test_core.py:" in both
    assert "UnconsumedSandboxStepsError" in both
    assert "exec" in both

    swallowed = outcomes["test_fail_violation_the_test_swallowed"].text
    assert "UnexpectedModelCallError" in swallowed

    assert "read_file" in outcomes["test_fail_sandbox_leftover"].text
    assert "IncompleteRealtimeScenarioError" in outcomes["test_fail_realtime_leftover"].text
    custom = outcomes["test_fail_check_complete_custom"].text
    assert "Custom made at test_core.py:" in custom
    assert "custom double left a step" in custom
    refused = outcomes["test_fail_check_complete_refuses_a_non_double"].text
    assert "TypeError: check_complete() needs an object with an assert_complete() method" in (
        refused
    )
    misspelled = outcomes["test_fail_marker_misspelled"].text
    assert "unknown argument(s) assert_compete" in misspelled
    assert "assert_complete=True/False" in misspelled

    for name in (
        "test_fail_asyncio_marked_leftover",
        "test_fail_anyio_leftover[asyncio]",
        "test_fail_anyio_leftover[trio]",
    ):
        assert "UnconsumedModelStepsError" in outcomes[name].text, name
    assert "made at test_core.py:" in outcomes["test_fail_double_made_in_a_fixture"].text


def test_strict_mode_anyio_and_sync_tests(core_project: pytest.Pytester) -> None:
    check_core_outcomes(run(core_project))


def test_same_outcomes_under_xdist(core_project: pytest.Pytester) -> None:
    check_core_outcomes(run(core_project, "-n", "2"))


def test_auto_mode_and_the_ini_opt_out(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI.format(extra="asyncio_mode = auto"))
    pytester.makepyfile(test_auto=AUTO_MODE)
    pytester.mkdir("suite_off")
    (pytester.path / "suite_off" / "pytest.ini").write_text(
        INI.format(extra="agents_testing_assert_complete = false")
    )
    (pytester.path / "suite_off" / "test_off.py").write_text(SUITE_OPT_OUT)
    outcomes = run(pytester, "test_auto.py")
    assert set(outcomes) == {"test_pass_auto_mode", "test_fail_auto_mode_leftover"}
    expected_by_name(outcomes)
    assert "UnconsumedModelStepsError" in outcomes["test_fail_auto_mode_leftover"].text

    pytester.chdir()
    outcomes = run(pytester, "-c", "suite_off/pytest.ini", "--rootdir", "suite_off", "suite_off")
    assert set(outcomes) == {"test_pass_ini_opts_out", "test_fail_marker_turns_the_check_back_on"}
    expected_by_name(outcomes)


def test_the_plugin_can_be_turned_off(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        textwrap.dedent(
            """
            def test_fixture_is_gone(scripted_model):
                pass
            """
        )
    )
    result = pytester.runpytest_subprocess(*QUICK, "-p", "no:agents_testing")
    result.stdout.fnmatch_lines(["*fixture 'scripted_model' not found*"])
