"""The conformance kit itself: its error, its import, and the pytest base class's flags."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import pickle
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import conformance as kit
from agents_testing.conformance import ConformanceError, Reply
from agents_testing.wire import ScriptedServer


def test_conformance_error_is_an_assertion_error_with_its_fields() -> None:
    error = ConformanceError(
        "check_usage", "10 input tokens.", "0 input tokens", "Copy the response's Usage."
    )

    assert isinstance(error, AssertionError)
    assert (error.check, error.expected, error.actual, error.fix) == (
        "check_usage",
        "10 input tokens.",
        "0 input tokens",
        "Copy the response's Usage.",
    )
    assert str(error) == (
        "check_usage failed: expected 10 input tokens; got 0 input tokens. "
        "Copy the response's Usage."
    )


@pytest.mark.parametrize("clone", [pickle.loads, copy.copy], ids=["pickle", "copy"])
def test_conformance_error_keeps_its_fields_when_pickled_or_copied(clone: object) -> None:
    error = ConformanceError("check_usage", "a", "b", "Fix it.")
    copied = pickle.loads(pickle.dumps(error)) if clone is pickle.loads else copy.copy(error)

    assert type(copied) is ConformanceError
    assert (copied.check, copied.expected, copied.actual, copied.fix, str(copied)) == (
        "check_usage",
        "a",
        "b",
        "Fix it.",
        str(error),
    )


def test_importing_the_kit_and_its_base_class_imports_no_pytest() -> None:
    script = (
        "import sys\n"
        "import agents_testing.conformance\n"
        "print('pytest' in sys.modules)\n"
        "import agents_testing.conformance.pytest\n"
        "print('pytest' in sys.modules)\n"
    )

    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    # The base class needs no pytest at import: pytest finds and runs it by its names.
    assert completed.stdout.split() == ["False", "False"]


def test_a_check_runs_without_a_test_runner() -> None:
    # A "framework" that is the scripted model itself: enough for the text turn.
    script = textwrap.dedent(
        """
        import asyncio, sys
        from agents_testing import ModelRequest
        from agents_testing.conformance import Reply, check_text_turn

        class Harness:
            framework = "none"

            async def call(self, model, prompt, *, stream):
                response = await model.get_response(ModelRequest(input=prompt))
                return Reply(response.output[0]["content"][0]["text"])

        asyncio.run(check_text_turn(Harness()))
        print("pytest" in sys.modules)
        """
    )

    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert completed.stdout.split() == ["False"]


SUITE = '''
import sys
sys.path.insert(0, {examples!r})

from example_conformance import TinyAgentHarness
from agents_testing.conformance.pytest import ModelAdapterTests


class PlainHarness:
    """A harness with only the required methods."""

    framework = "tiny-agent"

    def __init__(self):
        self.inner = TinyAgentHarness()

    async def call(self, model, prompt, *, stream):
        return await self.inner.call(model, prompt, stream=stream)

    async def run_tool_loop(self, model, prompt, *, stream):
        return await self.inner.run_tool_loop(model, prompt, stream=stream)

    def sent_tool_names(self, request):
        return self.inner.sent_tool_names(request)


class TestDefaults(ModelAdapterTests):
    harness = PlainHarness()


class TestWithoutStreamingOrTools(ModelAdapterTests):
    harness = PlainHarness()
    has_streaming = False
    has_tool_calls = False


class TestClaimsRetryAdvice(ModelAdapterTests):
    harness = PlainHarness()
    has_retry_advice = True
'''


def test_the_base_class_runs_one_test_per_check_and_skips_by_flag(
    pytester: pytest.Pytester,
) -> None:
    examples = str(Path(__file__).resolve().parents[2] / "examples")
    pytester.makepyfile(test_suite=SUITE.format(examples=examples))

    result = pytester.runpytest("-rs", "-p", "no:cacheprovider", "-p", "no:asyncio")

    outcomes = result.parseoutcomes()
    # 15 parametrized tests (plain and streamed) and 4 stream-only tests per class.
    assert outcomes["passed"] + outcomes["skipped"] + outcomes["failed"] == 3 * (15 * 2 + 4)
    for reason in [
        "TestDefaults.has_retry_advice is False",
        "TestDefaults.has_cancellation is False",
        "TestWithoutStreamingOrTools.has_streaming is False",
        "TestWithoutStreamingOrTools.has_tool_calls is False",
    ]:
        result.stdout.fnmatch_lines([f"SKIPPED *: {reason}"])
    # Claiming a capability the harness cannot drive fails, naming the method and the flag.
    assert outcomes["failed"] == 4
    result.stdout.fnmatch_lines(
        [
            "*TypeError: TestClaimsRetryAdvice.has_retry_advice is True, but its harness "
            "PlainHarness has no run_with_retry(); implement it (RetryAdviceHarness) or set "
            "has_retry_advice = False."
        ]
    )


# -- a harness that does not keep the protocol -------------------------------------------------

CHECKS = [getattr(kit, name) for name in kit.__all__ if name.startswith("check_")]


class JunkHarness:
    """Answers every harness method with ``value``, from a sync or an async method."""

    framework = "junk"

    def __init__(self, value: object, *, is_async: bool) -> None:
        self.value = value
        self.is_async = is_async

    def _answer(self, *args: object, **kwargs: object) -> object:
        if not self.is_async:
            return self.value

        async def answer() -> object:
            return self.value

        return answer()

    call = run_tool_loop = run_with_retry = abandon_stream = run_structured = _answer

    def sent_tool_names(self, request: object) -> object:
        return self.value

    def structured_output(self, value: object) -> object:
        return self.value


_junk = st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=2)
_replies = st.builds(
    Reply, text=st.sampled_from(["", "It is sunny in Tokyo."]), text_deltas=st.just(("x",))
)


@settings(max_examples=60, deadline=None, database=None)
@given(
    check=st.sampled_from(CHECKS),
    value=_junk | _replies | st.dictionaries(st.text(max_size=3), _junk, max_size=2),
    is_async=st.booleans(),
)
def test_a_harness_off_the_protocol_gets_a_conformance_or_type_error(
    check: Any, value: object, is_async: bool
) -> None:
    with contextlib.suppress(ConformanceError, TypeError):
        asyncio.run(check(JunkHarness(value, is_async=is_async)))


@pytest.mark.parametrize(
    ("harness", "message"),
    [
        (
            object(),
            "The harness object has no call() method; write it as the harness protocol of "
            "agents_testing.conformance (ModelHarness, WireHarness) describes.",
        ),
        (
            JunkHarness(Reply("x"), is_async=False),
            "The harness's call() returned Reply, not an awaitable; make it an async def.",
        ),
        (
            JunkHarness("x", is_async=True),
            "The harness's call() returned str; return a Reply.",
        ),
    ],
    ids=["missing", "sync", "wrong-type"],
)
def test_a_harness_off_the_protocol_is_a_type_error_naming_the_method(
    harness: object, message: str
) -> None:
    with pytest.raises(TypeError) as raised:
        asyncio.run(kit.check_text_turn(harness))  # type: ignore[arg-type]

    assert str(raised.value) == message
    assert not isinstance(raised.value, ConformanceError)


def test_a_subclass_without_a_harness_fails_saying_to_set_one(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_suite=(
            "from agents_testing.conformance.pytest import ModelAdapterTests\n"
            "class TestNoHarness(ModelAdapterTests):\n"
            "    pass\n"
        )
    )

    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")

    outcomes = result.parseoutcomes()
    assert "passed" not in outcomes
    assert outcomes["failed"] > 0
    result.stdout.fnmatch_lines(
        [
            "*TypeError: TestNoHarness has no harness; set harness = YourHarness() on the "
            "class (see ModelHarness in agents_testing.conformance)."
        ]
    )


def test_a_wire_subclass_without_a_harness_fails_saying_to_set_one(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_suite=(
            "from agents_testing.conformance.pytest import WireClientTests\n"
            "class TestNoHarness(WireClientTests):\n"
            "    has_streaming = False\n"
        )
    )

    result = pytester.runpytest("-rs", "-p", "no:cacheprovider", "-p", "no:asyncio")

    outcomes = result.parseoutcomes()
    assert "passed" not in outcomes
    # 10 tests take `stream` (the streamed half skipped by the flag), 2 are stream-only.
    assert outcomes["skipped"] == 10 + 2
    assert outcomes["failed"] == 10
    result.stdout.fnmatch_lines(
        [
            "*TypeError: TestNoHarness has no harness; set harness = YourHarness() on the "
            "class (see WireHarness in agents_testing.conformance).",
            "SKIPPED *: TestNoHarness.has_streaming is False",
        ]
    )


class _WireReplies:
    """A wire harness whose http_status answers a str."""

    client = "junk"

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": prompt}]})
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            body.encode(),
            {"Content-Type": "application/json"},
        )
        try:
            await asyncio.to_thread(urllib.request.urlopen, request)
        except urllib.error.HTTPError as error:
            error.close()  # the error holds the response, and with it the socket
            raise
        return Reply("")

    async def run_tool_loop(self, server: object, prompt: str, *, stream: bool) -> str:
        return ""

    def http_status(self, error: BaseException) -> object:
        return "400"


class _SessionWithoutCalls:
    framework = "junk"

    def session(self, steps: object) -> object:
        return object()

    def command_step(self, output: str) -> dict[str, str]:
        return {"method": "exec", "result": output}

    async def run_command(self, session: object, command: str) -> str:
        return ""


class _TurnWithoutReply:
    framework = "junk"

    async def open(self, transport: object) -> object:
        return object()

    async def wait_for_turn(self, session: object) -> object:
        return "It is sunny."

    async def close(self, session: object) -> None:
        pass


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (
            lambda: kit.check_wire_http_error_arrives(_WireReplies()),  # type: ignore[arg-type]
            "The harness's http_status() returned str; return the status as an int, or None.",
        ),
        (
            lambda: kit.check_sandbox_command_output(_SessionWithoutCalls()),
            "The session the harness's session() built (object) has no calls; forward the core "
            "ScriptedSandboxSession's calls and assert_complete().",
        ),
        (
            lambda: kit.check_realtime_turn_reaches_the_framework(_TurnWithoutReply()),  # type: ignore[arg-type]
            "The harness's wait_for_turn() returned str; return a Reply.",
        ),
    ],
    ids=["wire-status", "sandbox-session", "realtime-turn"],
)
def test_each_check_set_refuses_a_harness_off_its_protocol_by_name(run: Any, message: str) -> None:
    with pytest.raises(TypeError) as raised:
        asyncio.run(run())

    assert str(raised.value) == message
    assert not isinstance(raised.value, ConformanceError)
