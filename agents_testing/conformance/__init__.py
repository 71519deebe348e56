"""A conformance kit: check that a framework adapter for ``ScriptedModel`` behaves as ours do.

Write a harness that drives your framework through your adapter (``ModelHarness``: one
model call, a tool loop, and a reading of the tools it sent), then either run the checks
yourself (each is a plain ``async`` function that raises ``ConformanceError``) or subclass
``agents_testing.conformance.pytest.ModelAdapterTests`` for one pytest test per check.
For a client library pointed at the scripted wire endpoint, write a ``WireHarness`` and run
the ``check_wire_*`` functions, or subclass ``WireClientTests``; for a sandbox adapter, a
``SandboxHarness`` with the ``check_sandbox_*`` functions or ``SandboxAdapterTests``; for
a realtime adapter, a ``RealtimeHarness`` with the ``check_realtime_*`` functions or
``RealtimeAdapterTests``.
Importing this package imports only the standard library.
"""

from ._errors import ConformanceError as ConformanceError
from ._harness import AbandonStreamHarness as AbandonStreamHarness
from ._harness import ModelHarness as ModelHarness
from ._harness import Reply as Reply
from ._harness import ReplyToolCall as ReplyToolCall
from ._harness import RetryAdviceHarness as RetryAdviceHarness
from ._harness import StructuredOutputHarness as StructuredOutputHarness
from ._model_checks import ScriptedFailure as ScriptedFailure
from ._model_checks import (
    check_abandoned_stream_closes_the_source as check_abandoned_stream_closes_the_source,
)
from ._model_checks import (
    check_advice_against_retrying_is_followed as check_advice_against_retrying_is_followed,
)
from ._model_checks import check_automatic_stream as check_automatic_stream
from ._model_checks import check_exact_stream as check_exact_stream
from ._model_checks import check_exact_tool_arguments as check_exact_tool_arguments
from ._model_checks import check_extra_call_fails_the_run as check_extra_call_fails_the_run
from ._model_checks import (
    check_invalid_stream_events_are_refused as check_invalid_stream_events_are_refused,
)
from ._model_checks import (
    check_model_error_reaches_the_caller as check_model_error_reaches_the_caller,
)
from ._model_checks import check_parallel_tool_calls as check_parallel_tool_calls
from ._model_checks import check_reasoning_items as check_reasoning_items
from ._model_checks import check_recorded_request as check_recorded_request
from ._model_checks import check_retry_advice_is_followed as check_retry_advice_is_followed
from ._model_checks import check_structured_output as check_structured_output
from ._model_checks import check_text_turn as check_text_turn
from ._model_checks import check_tool_call_turn as check_tool_call_turn
from ._model_checks import check_tool_loop as check_tool_loop
from ._model_checks import check_tool_loop_history as check_tool_loop_history
from ._model_checks import (
    check_unknown_output_item_is_refused as check_unknown_output_item_is_refused,
)
from ._model_checks import check_usage as check_usage
from ._realtime import RealtimeHarness as RealtimeHarness
from ._realtime import ScriptedRealtimeFailure as ScriptedRealtimeFailure
from ._realtime import check_realtime_connect_and_close as check_realtime_connect_and_close
from ._realtime import check_realtime_rejected_call_is_kept as check_realtime_rejected_call_is_kept
from ._realtime import (
    check_realtime_send_failure_is_raised as check_realtime_send_failure_is_raised,
)
from ._realtime import check_realtime_tool_call_round_trip as check_realtime_tool_call_round_trip
from ._realtime import (
    check_realtime_turn_reaches_the_framework as check_realtime_turn_reaches_the_framework,
)
from ._realtime import check_realtime_user_text_is_sent as check_realtime_user_text_is_sent
from ._sandbox import SandboxHarness as SandboxHarness
from ._sandbox import ScriptedSandboxFailure as ScriptedSandboxFailure
from ._sandbox import check_sandbox_command_output as check_sandbox_command_output
from ._sandbox import (
    check_sandbox_error_reaches_the_framework as check_sandbox_error_reaches_the_framework,
)
from ._sandbox import check_sandbox_rejected_call_is_kept as check_sandbox_rejected_call_is_kept
from ._sandbox import check_sandbox_unscripted_call_is_kept as check_sandbox_unscripted_call_is_kept
from ._sandbox import check_sandbox_unused_step_is_reported as check_sandbox_unused_step_is_reported
from ._wire_checks import check_wire_automatic_stream as check_wire_automatic_stream
from ._wire_checks import check_wire_exact_stream as check_wire_exact_stream
from ._wire_checks import check_wire_exact_tool_arguments as check_wire_exact_tool_arguments
from ._wire_checks import check_wire_extra_call_is_kept as check_wire_extra_call_is_kept
from ._wire_checks import check_wire_http_error_arrives as check_wire_http_error_arrives
from ._wire_checks import check_wire_recorded_request as check_wire_recorded_request
from ._wire_checks import check_wire_retry_after_is_followed as check_wire_retry_after_is_followed
from ._wire_checks import check_wire_text_turn as check_wire_text_turn
from ._wire_checks import check_wire_tool_call_turn as check_wire_tool_call_turn
from ._wire_checks import check_wire_tool_loop as check_wire_tool_loop
from ._wire_checks import (
    check_wire_unknown_output_item_is_refused as check_wire_unknown_output_item_is_refused,
)
from ._wire_checks import check_wire_usage as check_wire_usage
from ._wire_harness import WireHarness as WireHarness

__all__ = [
    "AbandonStreamHarness",
    "ConformanceError",
    "ModelHarness",
    "RealtimeHarness",
    "Reply",
    "ReplyToolCall",
    "RetryAdviceHarness",
    "SandboxHarness",
    "ScriptedFailure",
    "ScriptedRealtimeFailure",
    "ScriptedSandboxFailure",
    "StructuredOutputHarness",
    "WireHarness",
    "check_abandoned_stream_closes_the_source",
    "check_advice_against_retrying_is_followed",
    "check_automatic_stream",
    "check_exact_stream",
    "check_exact_tool_arguments",
    "check_extra_call_fails_the_run",
    "check_invalid_stream_events_are_refused",
    "check_model_error_reaches_the_caller",
    "check_parallel_tool_calls",
    "check_realtime_connect_and_close",
    "check_realtime_rejected_call_is_kept",
    "check_realtime_send_failure_is_raised",
    "check_realtime_tool_call_round_trip",
    "check_realtime_turn_reaches_the_framework",
    "check_realtime_user_text_is_sent",
    "check_reasoning_items",
    "check_recorded_request",
    "check_retry_advice_is_followed",
    "check_sandbox_command_output",
    "check_sandbox_error_reaches_the_framework",
    "check_sandbox_rejected_call_is_kept",
    "check_sandbox_unscripted_call_is_kept",
    "check_sandbox_unused_step_is_reported",
    "check_structured_output",
    "check_text_turn",
    "check_tool_call_turn",
    "check_tool_loop",
    "check_tool_loop_history",
    "check_unknown_output_item_is_refused",
    "check_usage",
    "check_wire_automatic_stream",
    "check_wire_exact_stream",
    "check_wire_exact_tool_arguments",
    "check_wire_extra_call_is_kept",
    "check_wire_http_error_arrives",
    "check_wire_recorded_request",
    "check_wire_retry_after_is_followed",
    "check_wire_text_turn",
    "check_wire_tool_call_turn",
    "check_wire_tool_loop",
    "check_wire_unknown_output_item_is_refused",
    "check_wire_usage",
]
