"""The ``recorded_endpoint`` fixture and ``--agents-testing-record``, run as users run them.

Each run is a pytest subprocess over a small project whose "real provider" is a scripted
server on loopback, started by the test itself: the first run records, the next replays.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import agents_testing

pytest.importorskip("openai")

# The folder holding the package under test: the subprocess imports the same copy.
PACKAGE_PARENT = Path(agents_testing.__file__).resolve().parent.parent

QUICK = ("-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "no:randomly")

PROJECT = """
import openai
import pytest

from agents_testing import ScriptedModel, assistant_message
from agents_testing.pytest_plugin import RecordedEndpointFactory
from agents_testing.wire import ScriptedServer

PROMPT = "{prompt}"


@pytest.fixture
def provider():
    # The "real provider": in a real project, https://api.openai.com.
    real = ScriptedModel([[assistant_message("Paris.")]])
    # A replay never reaches it, so it is started and closed without checking its script.
    server = ScriptedServer(real).start()
    yield server
    server.close()


def test_capital(provider, recorded_endpoint: RecordedEndpointFactory):
    endpoint = recorded_endpoint("recordings/capital.py", upstream=provider.url)
    client = openai.OpenAI(base_url=endpoint.base_url, api_key="sk-plugin-sentinel-1234")
    answer = client.responses.create(model="gpt-4.1", input=PROMPT).output_text
    print("MODE", endpoint.mode)
    assert answer == "Paris."
    {extra}
"""


def write_project(
    pytester: pytest.Pytester, prompt: str = "Capital of France?", extra: str = ""
) -> None:
    pytester.makepyfile(test_app=PROJECT.format(prompt=prompt, extra=extra or "pass"))


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*QUICK, "-s", *args)


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(PACKAGE_PARENT), path])))


def test_a_missing_script_is_recorded_then_replayed(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    script = pytester.path / "recordings" / "capital.py"

    first = run(pytester)
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()
    first.stdout.fnmatch_lines(["*MODE record*"])
    recorded = script.read_text()
    assert 'assistant_message("Paris."' in recorded
    assert "sk-plugin-sentinel-1234" not in recorded

    second = run(pytester)
    assert second.ret == pytest.ExitCode.OK, second.stdout.str()
    second.stdout.fnmatch_lines(["*MODE replay*"])
    assert script.read_text() == recorded


def test_a_replay_that_drifts_fails_the_test_with_the_diff(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    assert run(pytester).ret == pytest.ExitCode.OK
    write_project(pytester, prompt="Capital of Spain?")

    result = run(pytester)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*BadRequestError*call #1 (call_index=0)*input*"])


def test_the_option_records_again_over_an_existing_script(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    assert run(pytester).ret == pytest.ExitCode.OK
    write_project(pytester, prompt="Capital of Spain?")

    result = run(pytester, "--agents-testing-record")

    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*MODE record*"])
    assert "Capital of Spain?" in (pytester.path / "recordings" / "capital.py").read_text()


def test_ci_never_records_unless_asked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(pytester)
    monkeypatch.setenv("CI", "true")

    refused = run(pytester)
    assert refused.ret == pytest.ExitCode.TESTS_FAILED
    refused.stdout.fnmatch_lines(["*recording is off in CI*--agents-testing-record*"])
    assert not (pytester.path / "recordings").exists()

    asked = run(pytester, "--agents-testing-record")
    assert asked.ret == pytest.ExitCode.OK, asked.stdout.str()
    assert (pytester.path / "recordings" / "capital.py").is_file()


def test_a_failing_test_writes_no_script(pytester: pytest.Pytester) -> None:
    write_project(pytester, extra="assert False, 'the test failed'")

    result = run(pytester)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not (pytester.path / "recordings" / "capital.py").exists()


def test_a_replay_with_an_unused_step_fails_at_teardown(pytester: pytest.Pytester) -> None:
    write_project(pytester)
    assert run(pytester).ret == pytest.ExitCode.OK
    write_project(pytester, extra="")
    script = pytester.path / "recordings" / "capital.py"
    source = script.read_text()
    step_start = source.index("    # call #1")
    step_end = source.index("]\n\nREQUESTS")
    script.write_text(source[:step_end] + source[step_start:step_end] + source[step_end:])

    result = run(pytester)

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*RecordedEndpoint made at*", "*UnconsumedModelStepsError*"])
