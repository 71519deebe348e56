"""A pytest base class that turns the conformance checks into one test per check.

Like the rest of the library, this module imports only the standard library: pytest finds
the tests by their names, runs the ones that take ``stream`` both ways through the class's
``pytest_generate_tests``, and reports ``unittest.SkipTest`` as a skip.

Subclass ``ModelAdapterTests`` (or ``WireClientTests`` for a client library pointed at
the wire endpoint, ``SandboxAdapterTests`` or ``RealtimeAdapterTests`` for a sandbox or
realtime adapter) in a test module, set ``harness`` and the capability flags
your framework has, and pytest collects one test per check (plain and streamed where both
apply). A check whose capability is declared absent is skipped, with the flag as the
reason::

    class TestMyAdapter(ModelAdapterTests):
        harness = MyHarness()
        has_retry_advice = False
"""

from __future__ import annotations

import asyncio
import unittest
from collections.abc import Coroutine
from typing import Any, ClassVar, cast

from ._harness import (
    AbandonStreamHarness,
    ModelHarness,
    RetryAdviceHarness,
    StructuredOutputHarness,
)
from ._model_checks import (
    check_abandoned_stream_closes_the_source,
    check_advice_against_retrying_is_followed,
    check_automatic_stream,
    check_exact_stream,
    check_exact_tool_arguments,
    check_extra_call_fails_the_run,
    check_invalid_stream_events_are_refused,
    check_model_error_reaches_the_caller,
    check_parallel_tool_calls,
    check_reasoning_items,
    check_recorded_request,
    check_retry_advice_is_followed,
    check_structured_output,
    check_text_turn,
    check_tool_call_turn,
    check_tool_loop,
    check_tool_loop_history,
    check_unknown_output_item_is_refused,
    check_usage,
)
from ._realtime import (
    RealtimeHarness,
    check_realtime_connect_and_close,
    check_realtime_rejected_call_is_kept,
    check_realtime_send_failure_is_raised,
    check_realtime_tool_call_round_trip,
    check_realtime_turn_reaches_the_framework,
    check_realtime_user_text_is_sent,
)
from ._sandbox import (
    SandboxHarness,
    check_sandbox_command_output,
    check_sandbox_error_reaches_the_framework,
    check_sandbox_rejected_call_is_kept,
    check_sandbox_unscripted_call_is_kept,
    check_sandbox_unused_step_is_reported,
)
from ._wire_checks import (
    check_wire_automatic_stream,
    check_wire_exact_stream,
    check_wire_exact_tool_arguments,
    check_wire_extra_call_is_kept,
    check_wire_http_error_arrives,
    check_wire_recorded_request,
    check_wire_retry_after_is_followed,
    check_wire_text_turn,
    check_wire_tool_call_turn,
    check_wire_tool_loop,
    check_wire_unknown_output_item_is_refused,
    check_wire_usage,
)
from ._wire_harness import WireHarness

__all__ = [
    "ModelAdapterTests",
    "RealtimeAdapterTests",
    "SandboxAdapterTests",
    "WireClientTests",
]


class ModelAdapterTests:
    """Conformance tests for a model adapter; subclass it and set ``harness``.

    Capability flags say what the framework can do; a test that needs a capability the
    subclass declares absent is skipped with the flag's name as the reason. Each test runs
    one ``check_*`` function of ``agents_testing.conformance``; its failure message says
    what was expected, what happened and how adapters usually fix it, and the check's
    docstring has a longer Troubleshooting paragraph.
    """

    harness: ModelHarness
    """The harness that drives your framework through your adapter."""

    has_streaming: ClassVar[bool] = True
    """The framework makes streamed model calls (``ScriptedModel.stream_response``)."""
    has_tool_calls: ClassVar[bool] = True
    """The framework runs tool calls the model makes, in a loop."""
    has_parallel_tool_calls: ClassVar[bool] = True
    """The framework runs every tool call of one response."""
    keeps_exact_tool_arguments: ClassVar[bool] = True
    """The framework keeps a tool call's argument string as the model sent it."""
    has_usage: ClassVar[bool] = True
    """The framework reads token usage from model responses."""
    has_retry_advice: ClassVar[bool] = False
    """The framework asks the model for retry advice; needs a ``RetryAdviceHarness``."""
    has_cancellation: ClassVar[bool] = False
    """The framework's users can stop reading a stream; needs an ``AbandonStreamHarness``."""
    has_structured_output: ClassVar[bool] = False
    """The framework parses structured output; needs a ``StructuredOutputHarness``."""
    has_reasoning_items: ClassVar[bool] = False
    """The framework keeps reasoning items (their summary texts) from responses."""

    def pytest_generate_tests(self, metafunc: Any) -> None:
        """Run each test that takes ``stream`` plain and streamed; pytest calls this."""
        if "stream" in metafunc.fixturenames:
            metafunc.parametrize("stream", [False, True], ids=["plain", "streamed"])

    def run_check(self, check: Coroutine[Any, Any, None]) -> None:
        """Run one check to the end; override to use another event loop than ``asyncio.run``."""
        asyncio.run(check)

    def _harness(self) -> ModelHarness:
        harness: object = getattr(self, "harness", None)
        if harness is None:
            raise TypeError(
                f"{type(self).__name__} has no harness; set harness = YourHarness() on the "
                "class (see ModelHarness in agents_testing.conformance)."
            )
        return cast(ModelHarness, harness)

    def _require(self, *flags: str) -> None:
        for flag in flags:
            if not getattr(self, flag):
                raise unittest.SkipTest(f"{type(self).__name__}.{flag} is False")

    def _harness_of(self, kind: type[Any], flag: str, method: str) -> Any:
        harness = self._harness()
        if not isinstance(harness, kind):
            raise TypeError(
                f"{type(self).__name__}.{flag} is True, but its harness "
                f"{type(harness).__name__} has no {method}(); implement it "
                f"({kind.__name__}) or set {flag} = False."
            )
        return harness

    def _mode(self, stream: bool) -> None:
        if stream:
            self._require("has_streaming")

    # -- turns -----------------------------------------------------------------------------

    def test_text_turn(self, stream: bool) -> None:
        """One model call answers with the scripted text (``check_text_turn``)."""
        self._mode(stream)
        self.run_check(check_text_turn(self._harness(), stream=stream))

    def test_tool_call_turn(self, stream: bool) -> None:
        """A scripted function_call becomes the framework's tool call (``check_tool_call_turn``)."""
        self._mode(stream)
        self._require("has_tool_calls")
        self.run_check(check_tool_call_turn(self._harness(), stream=stream))

    def test_exact_tool_arguments(self, stream: bool) -> None:
        """A tool call's argument string stays exact (``check_exact_tool_arguments``)."""
        self._mode(stream)
        self._require("has_tool_calls", "keeps_exact_tool_arguments")
        self.run_check(check_exact_tool_arguments(self._harness(), stream=stream))

    def test_usage(self, stream: bool) -> None:
        """Scripted token usage reaches the framework (``check_usage``)."""
        self._mode(stream)
        self._require("has_usage")
        self.run_check(check_usage(self._harness(), stream=stream))

    def test_reasoning_items(self, stream: bool) -> None:
        """A scripted reasoning item reaches the framework (``check_reasoning_items``)."""
        self._mode(stream)
        self._require("has_reasoning_items")
        self.run_check(check_reasoning_items(self._harness(), stream=stream))

    def test_structured_output(self, stream: bool) -> None:
        """Structured output reaches the framework's parser (``check_structured_output``)."""
        self._mode(stream)
        self._require("has_structured_output")
        harness: StructuredOutputHarness = self._harness_of(
            StructuredOutputHarness, "has_structured_output", "structured_output"
        )
        self.run_check(check_structured_output(harness, stream=stream))

    # -- the tool loop and the recorded request --------------------------------------------

    def test_tool_loop(self, stream: bool) -> None:
        """The loop runs the tool and returns the answer (``check_tool_loop``)."""
        self._mode(stream)
        self._require("has_tool_calls")
        self.run_check(check_tool_loop(self._harness(), stream=stream))

    def test_tool_loop_history(self, stream: bool) -> None:
        """The second request records the tool round trip (``check_tool_loop_history``)."""
        self._mode(stream)
        self._require("has_tool_calls")
        self.run_check(check_tool_loop_history(self._harness(), stream=stream))

    def test_parallel_tool_calls(self, stream: bool) -> None:
        """Two tool calls in one response both run (``check_parallel_tool_calls``)."""
        self._mode(stream)
        self._require("has_tool_calls", "has_parallel_tool_calls")
        self.run_check(check_parallel_tool_calls(self._harness(), stream=stream))

    def test_recorded_request(self, stream: bool) -> None:
        """The recorded request holds the prompt and the tools (``check_recorded_request``)."""
        self._mode(stream)
        self.run_check(check_recorded_request(self._harness(), stream=stream))

    # -- streams -----------------------------------------------------------------------------

    def test_automatic_stream(self) -> None:
        """A plain step streams as text deltas (``check_automatic_stream``)."""
        self._require("has_streaming")
        self.run_check(check_automatic_stream(self._harness()))

    def test_exact_stream(self) -> None:
        """Scripted stream events arrive one to one (``check_exact_stream``)."""
        self._require("has_streaming")
        self.run_check(check_exact_stream(self._harness()))

    def test_invalid_stream_events_are_refused(self) -> None:
        """Unreadable stream events are refused and recorded (``check_invalid_stream_events_are_refused``)."""  # noqa: E501 - the check's name
        self._require("has_streaming")
        self.run_check(check_invalid_stream_events_are_refused(self._harness()))

    def test_abandoned_stream_closes_the_source(self) -> None:
        """A stream left early closes the scripted source (``check_abandoned_stream_closes_the_source``)."""  # noqa: E501 - the check's name
        self._require("has_streaming", "has_cancellation")
        harness: AbandonStreamHarness = self._harness_of(
            AbandonStreamHarness, "has_cancellation", "abandon_stream"
        )
        self.run_check(check_abandoned_stream_closes_the_source(harness))

    # -- errors and violations -----------------------------------------------------------------

    def test_model_error_reaches_the_caller(self, stream: bool) -> None:
        """A scripted error fails the call (``check_model_error_reaches_the_caller``)."""
        self._mode(stream)
        self.run_check(check_model_error_reaches_the_caller(self._harness(), stream=stream))

    def test_retry_advice_is_followed(self, stream: bool) -> None:
        """Advice to retry makes the framework retry (``check_retry_advice_is_followed``)."""
        self._mode(stream)
        self._require("has_retry_advice")
        harness: RetryAdviceHarness = self._harness_of(
            RetryAdviceHarness, "has_retry_advice", "run_with_retry"
        )
        self.run_check(check_retry_advice_is_followed(harness, stream=stream))

    def test_advice_against_retrying_is_followed(self, stream: bool) -> None:
        """Advice not to retry lets the error through (``check_advice_against_retrying_is_followed``)."""  # noqa: E501 - the check's name
        self._mode(stream)
        self._require("has_retry_advice")
        harness: RetryAdviceHarness = self._harness_of(
            RetryAdviceHarness, "has_retry_advice", "run_with_retry"
        )
        self.run_check(check_advice_against_retrying_is_followed(harness, stream=stream))

    def test_extra_call_fails_the_run(self, stream: bool) -> None:
        """A call past the script is recorded (``check_extra_call_fails_the_run``)."""
        self._mode(stream)
        self._require("has_tool_calls")
        self.run_check(check_extra_call_fails_the_run(self._harness(), stream=stream))

    def test_unknown_output_item_is_refused(self, stream: bool) -> None:
        """An unknown output item is refused and recorded (``check_unknown_output_item_is_refused``)."""  # noqa: E501 - the check's name
        self._mode(stream)
        self.run_check(check_unknown_output_item_is_refused(self._harness(), stream=stream))


class WireClientTests:
    """Conformance tests for a client library against the scripted wire endpoint.

    Subclass it, set ``harness`` to your ``WireHarness`` and the capability flags your
    client has; pytest collects one test per ``check_wire_*`` function (plain and streamed
    where both apply), and a test whose capability is declared absent is skipped with the
    flag's name as the reason. Each check starts a ``ScriptedServer`` on 127.0.0.1 and
    closes it before it returns.
    """

    harness: WireHarness
    """The harness that points your client at the check's server."""

    has_streaming: ClassVar[bool] = True
    """The client makes streamed requests."""
    has_tool_calls: ClassVar[bool] = True
    """The client reads tool calls and sends their results back."""
    keeps_exact_tool_arguments: ClassVar[bool] = True
    """The wire format carries a tool call's arguments as a string (not Anthropic Messages)."""
    has_usage: ClassVar[bool] = True
    """The client reads token usage from responses."""
    has_retries: ClassVar[bool] = True
    """The client retries a 429 after its ``retry-after`` wait (with retries on)."""
    refuses_unknown_items: ClassVar[bool] = True
    """The wire format has items it cannot carry; set it False for the Responses API."""

    def pytest_generate_tests(self, metafunc: Any) -> None:
        """Run each test that takes ``stream`` plain and streamed; pytest calls this."""
        if "stream" in metafunc.fixturenames:
            metafunc.parametrize("stream", [False, True], ids=["plain", "streamed"])

    def run_check(self, check: Coroutine[Any, Any, None]) -> None:
        """Run one check to the end; override to use another event loop than ``asyncio.run``."""
        asyncio.run(check)

    def _harness(self) -> WireHarness:
        harness: object = getattr(self, "harness", None)
        if harness is None:
            raise TypeError(
                f"{type(self).__name__} has no harness; set harness = YourHarness() on the "
                "class (see WireHarness in agents_testing.conformance)."
            )
        return cast(WireHarness, harness)

    def _require(self, *flags: str) -> None:
        for flag in flags:
            if not getattr(self, flag):
                raise unittest.SkipTest(f"{type(self).__name__}.{flag} is False")

    def _mode(self, stream: bool) -> None:
        if stream:
            self._require("has_streaming")

    def test_wire_text_turn(self, stream: bool) -> None:
        """A scripted message arrives as the reply text (``check_wire_text_turn``)."""
        self._mode(stream)
        self.run_check(check_wire_text_turn(self._harness(), stream=stream))

    def test_wire_tool_call_turn(self, stream: bool) -> None:
        """A scripted function_call arrives as a tool call (``check_wire_tool_call_turn``)."""
        self._mode(stream)
        self._require("has_tool_calls")
        self.run_check(check_wire_tool_call_turn(self._harness(), stream=stream))

    def test_wire_exact_tool_arguments(self, stream: bool) -> None:
        """The argument string arrives exactly (``check_wire_exact_tool_arguments``)."""
        self._mode(stream)
        self._require("has_tool_calls", "keeps_exact_tool_arguments")
        self.run_check(check_wire_exact_tool_arguments(self._harness(), stream=stream))

    def test_wire_usage(self, stream: bool) -> None:
        """Scripted token usage arrives (``check_wire_usage``)."""
        self._mode(stream)
        self._require("has_usage")
        self.run_check(check_wire_usage(self._harness(), stream=stream))

    def test_wire_tool_loop(self, stream: bool) -> None:
        """A tool loop runs over the wire (``check_wire_tool_loop``)."""
        self._mode(stream)
        self._require("has_tool_calls")
        self.run_check(check_wire_tool_loop(self._harness(), stream=stream))

    def test_wire_recorded_request(self, stream: bool) -> None:
        """The recorded request reads back (``check_wire_recorded_request``)."""
        self._mode(stream)
        self.run_check(check_wire_recorded_request(self._harness(), stream=stream))

    def test_wire_automatic_stream(self) -> None:
        """A plain step streams as text deltas (``check_wire_automatic_stream``)."""
        self._require("has_streaming")
        self.run_check(check_wire_automatic_stream(self._harness()))

    def test_wire_exact_stream(self) -> None:
        """Scripted deltas arrive one to one (``check_wire_exact_stream``)."""
        self._require("has_streaming")
        self.run_check(check_wire_exact_stream(self._harness()))

    def test_wire_http_error_arrives(self, stream: bool) -> None:
        """A scripted 400 fails the call, not retried (``check_wire_http_error_arrives``)."""
        self._mode(stream)
        self.run_check(check_wire_http_error_arrives(self._harness(), stream=stream))

    def test_wire_retry_after_is_followed(self, stream: bool) -> None:
        """A 429 is retried after its wait (``check_wire_retry_after_is_followed``)."""
        self._mode(stream)
        self._require("has_retries")
        self.run_check(check_wire_retry_after_is_followed(self._harness(), stream=stream))

    def test_wire_extra_call_is_kept(self, stream: bool) -> None:
        """A request past the script is kept for assert_complete (``check_wire_extra_call_is_kept``)."""  # noqa: E501 - the check's name
        self._mode(stream)
        self.run_check(check_wire_extra_call_is_kept(self._harness(), stream=stream))

    def test_wire_unknown_output_item_is_refused(self, stream: bool) -> None:
        """An item the format cannot carry is refused (``check_wire_unknown_output_item_is_refused``)."""  # noqa: E501 - the check's name
        self._mode(stream)
        self._require("refuses_unknown_items")
        self.run_check(check_wire_unknown_output_item_is_refused(self._harness(), stream=stream))


class SandboxAdapterTests:
    """Conformance tests for a sandbox adapter; subclass it and set ``harness``.

    Each test runs one ``check_sandbox_*`` function of ``agents_testing.conformance`` with
    your ``SandboxHarness``; a test whose capability is declared absent is skipped with the
    flag's name as the reason.
    """

    harness: SandboxHarness
    """The harness that builds your adapter's session and runs a command through it."""

    checks_unscripted_calls: ClassVar[bool] = True
    """The adapter sends calls the script does not name to the core session (``invoke``)."""
    has_call_matchers: ClassVar[bool] = True
    """The adapter passes the framework's arguments to the core step's ``match``."""

    def run_check(self, check: Coroutine[Any, Any, None]) -> None:
        """Run one check to the end; override to use another event loop than ``asyncio.run``."""
        asyncio.run(check)

    def _harness(self) -> SandboxHarness:
        harness: object = getattr(self, "harness", None)
        if harness is None:
            raise TypeError(
                f"{type(self).__name__} has no harness; set harness = YourHarness() on the "
                "class (see SandboxHarness in agents_testing.conformance)."
            )
        return cast(SandboxHarness, harness)

    def _require(self, *flags: str) -> None:
        for flag in flags:
            if not getattr(self, flag):
                raise unittest.SkipTest(f"{type(self).__name__}.{flag} is False")

    def test_sandbox_command_output(self) -> None:
        """A scripted result reaches the framework (``check_sandbox_command_output``)."""
        self.run_check(check_sandbox_command_output(self._harness()))

    def test_sandbox_error_reaches_the_framework(self) -> None:
        """A scripted error fails the command (``check_sandbox_error_reaches_the_framework``)."""
        self.run_check(check_sandbox_error_reaches_the_framework(self._harness()))

    def test_sandbox_unscripted_call_is_kept(self) -> None:
        """An unscripted call is kept (``check_sandbox_unscripted_call_is_kept``)."""
        self._require("checks_unscripted_calls")
        self.run_check(check_sandbox_unscripted_call_is_kept(self._harness()))

    def test_sandbox_rejected_call_is_kept(self) -> None:
        """A call the matcher rejects is kept (``check_sandbox_rejected_call_is_kept``)."""
        self._require("has_call_matchers")
        self.run_check(check_sandbox_rejected_call_is_kept(self._harness()))

    def test_sandbox_unused_step_is_reported(self) -> None:
        """An unused step fails assert_complete (``check_sandbox_unused_step_is_reported``)."""
        self.run_check(check_sandbox_unused_step_is_reported(self._harness()))


class RealtimeAdapterTests:
    """Conformance tests for a realtime adapter; subclass it and set ``harness``.

    Each test runs one ``check_realtime_*`` function of ``agents_testing.conformance`` with
    your ``RealtimeHarness``; a test whose capability is declared absent is skipped with the
    flag's name as the reason.
    """

    harness: RealtimeHarness
    """The harness that opens your framework's session over your adapter."""

    has_text_input: ClassVar[bool] = True
    """The session sends user text messages."""
    has_tools: ClassVar[bool] = True
    """The session runs tool calls the model makes and sends their output back."""
    has_transcripts: ClassVar[bool] = True
    """The session delivers assistant transcript deltas and turn ends."""
    has_usage: ClassVar[bool] = True
    """The session keeps the token usage of a turn."""

    def run_check(self, check: Coroutine[Any, Any, None]) -> None:
        """Run one check to the end; override to use another event loop than ``asyncio.run``."""
        asyncio.run(check)

    def _harness(self) -> RealtimeHarness:
        harness: object = getattr(self, "harness", None)
        if harness is None:
            raise TypeError(
                f"{type(self).__name__} has no harness; set harness = YourHarness() on the "
                "class (see RealtimeHarness in agents_testing.conformance)."
            )
        return cast(RealtimeHarness, harness)

    def _require(self, *flags: str) -> None:
        for flag in flags:
            if not getattr(self, flag):
                raise unittest.SkipTest(f"{type(self).__name__}.{flag} is False")

    def test_realtime_connect_and_close(self) -> None:
        """Open and close reach the transport once each (``check_realtime_connect_and_close``)."""
        self.run_check(check_realtime_connect_and_close(self._harness()))

    def test_realtime_user_text_is_sent(self) -> None:
        """User text becomes send_message (``check_realtime_user_text_is_sent``)."""
        self._require("has_text_input")
        self.run_check(check_realtime_user_text_is_sent(self._harness()))

    def test_realtime_send_failure_is_raised(self) -> None:
        """A failed send fails the caller (``check_realtime_send_failure_is_raised``)."""
        self._require("has_text_input")
        self.run_check(check_realtime_send_failure_is_raised(self._harness()))

    def test_realtime_rejected_call_is_kept(self) -> None:
        """A rejected call is kept (``check_realtime_rejected_call_is_kept``)."""
        self._require("has_text_input")
        self.run_check(check_realtime_rejected_call_is_kept(self._harness()))

    def test_realtime_tool_call_round_trip(self) -> None:
        """A tool call runs and its output goes back (``check_realtime_tool_call_round_trip``)."""
        self._require("has_tools")
        self.run_check(check_realtime_tool_call_round_trip(self._harness()))

    def test_realtime_turn_reaches_the_framework(self) -> None:
        """An emitted turn reaches the session (``check_realtime_turn_reaches_the_framework``)."""
        self._require("has_transcripts")
        harness = self._harness()
        self.run_check(check_realtime_turn_reaches_the_framework(harness, usage=self.has_usage))
