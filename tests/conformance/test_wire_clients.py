"""The real openai and anthropic clients pass the wire conformance kit, sync and async.

Every async harness runs over loopback and through the in-process transport; these replace
the "plain and streamed" client tests tests/wire had for the async clients.
"""

from __future__ import annotations

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("httpx")

from agents_testing.conformance.pytest import WireClientTests

from .wire_harnesses import (
    AnthropicHarness,
    OpenAIChatHarness,
    OpenAIResponsesHarness,
    SyncOpenAIResponsesHarness,
)


class TestOpenAIResponsesAsync(WireClientTests):
    harness = OpenAIResponsesHarness()
    refuses_unknown_items = False  # the Responses API carries every item


class TestOpenAIResponsesSyncInProcess(WireClientTests):
    harness = SyncOpenAIResponsesHarness()
    refuses_unknown_items = False


class TestOpenAIResponsesAsyncInProcess(WireClientTests):
    harness = OpenAIResponsesHarness(in_process=True)
    refuses_unknown_items = False


class TestOpenAIChatAsync(WireClientTests):
    harness = OpenAIChatHarness()


class TestOpenAIChatAsyncInProcess(WireClientTests):
    harness = OpenAIChatHarness(in_process=True)


class TestAnthropicAsync(WireClientTests):
    harness = AnthropicHarness()
    keeps_exact_tool_arguments = False  # Messages carries tool input as a JSON object


class TestAnthropicAsyncInProcess(WireClientTests):
    harness = AnthropicHarness(in_process=True)
    keeps_exact_tool_arguments = False
