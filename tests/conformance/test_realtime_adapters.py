"""Our realtime adapter passes the realtime conformance kit; each check fails on its defect.

The broken adapters wrap our openai-agents realtime model in a ``RealtimeModel`` that
forwards to it with one defect each.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("agents")

from agents.realtime import (
    RealtimeModel,
    RealtimeModelConfig,
    RealtimeModelEvent,
    RealtimeModelListener,
    RealtimeModelSendEvent,
    RealtimeModelSendRawMessage,
    RealtimeModelSendToolOutput,
    RealtimeModelSendUserInput,
    RealtimeModelTranscriptDeltaEvent,
)

from agents_testing import ScriptedRealtimeTransport
from agents_testing import conformance as kit
from agents_testing.conformance import ConformanceError
from agents_testing.conformance.pytest import RealtimeAdapterTests

from .realtime_harnesses import OpenAIAgentsRealtimeHarness


class TestOpenAIAgentsRealtime(RealtimeAdapterTests):
    harness = OpenAIAgentsRealtimeHarness()


# -- one defect each --------------------------------------------------------------------------


class Forwarding(RealtimeModel):
    """Forwards every call to our adapter's model."""

    def __init__(self, inner: RealtimeModel) -> None:
        self.inner = inner

    async def connect(self, options: RealtimeModelConfig) -> None:
        await self.inner.connect(options)

    def add_listener(self, listener: RealtimeModelListener) -> None:
        self.inner.add_listener(listener)

    def remove_listener(self, listener: RealtimeModelListener) -> None:
        self.inner.remove_listener(listener)

    async def send_event(self, event: RealtimeModelSendEvent) -> None:
        await self.inner.send_event(event)

    async def close(self) -> None:
        await self.inner.close()


class NeverCloses(Forwarding):
    """Leaves the transport open on close."""

    async def close(self) -> None:
        pass


class DropsUserText(Forwarding):
    """Sends no user input."""

    async def send_event(self, event: RealtimeModelSendEvent) -> None:
        if not isinstance(event, RealtimeModelSendUserInput):
            await self.inner.send_event(event)


class SwallowsSendErrors(Forwarding):
    """Drops the transport's send failures."""

    async def send_event(self, event: RealtimeModelSendEvent) -> None:
        with contextlib.suppress(Exception):
            await self.inner.send_event(event)


class SendsTextAsARawEvent(Forwarding):
    """Sends user text as a raw conversation.item.create event instead of send_message."""

    async def send_event(self, event: RealtimeModelSendEvent) -> None:
        if isinstance(event, RealtimeModelSendUserInput):
            event = RealtimeModelSendRawMessage(
                message={
                    "type": "conversation.item.create",
                    "other_data": {"item": {"role": "user", "text": event.user_input}},
                }
            )
        await self.inner.send_event(event)


class DropsToolOutput(Forwarding):
    """Never sends a tool's output."""

    async def send_event(self, event: RealtimeModelSendEvent) -> None:
        if not isinstance(event, RealtimeModelSendToolOutput):
            await self.inner.send_event(event)


class _SkipsTranscripts(RealtimeModelListener):
    def __init__(self, inner: RealtimeModelListener) -> None:
        self.inner = inner

    async def on_event(self, event: RealtimeModelEvent) -> None:
        if not isinstance(event, RealtimeModelTranscriptDeltaEvent):
            await self.inner.on_event(event)


class DropsTranscripts(Forwarding):
    """Delivers no transcript delta to the session."""

    def add_listener(self, listener: RealtimeModelListener) -> None:
        self.inner.add_listener(_SkipsTranscripts(listener))


class BrokenHarness(OpenAIAgentsRealtimeHarness):
    def __init__(self, defect: type[Forwarding]) -> None:
        self.defect = defect

    def model(self, transport: ScriptedRealtimeTransport) -> RealtimeModel:
        return self.defect(super().model(transport))


Check = Callable[[Any], Awaitable[None]]
# (check, defect, a phrase of `actual`, a phrase of `fix`)
DEFECTS: list[tuple[Check, type[Forwarding], str, str]] = [
    (kit.check_realtime_connect_and_close, NeverCloses, "['connect']", "transport.close()"),
    (kit.check_realtime_user_text_is_sent, DropsUserText, "['connect', 'close']", "send_message"),
    (kit.check_realtime_send_failure_is_raised, SwallowsSendErrors, "it returned", "propagate"),
    (
        kit.check_realtime_rejected_call_is_kept,
        SendsTextAsARawEvent,
        "UnexpectedRealtimeCallError",
        "not as a raw event",
    ),
    (
        kit.check_realtime_tool_call_round_trip,
        DropsToolOutput,
        "UnexpectedRealtimeCallError",
        "send_function_call_output",
    ),
    (kit.check_realtime_turn_reaches_the_framework, DropsTranscripts, "deltas []", "one to one"),
]
IDS = [check.__name__ for check, *_ in DEFECTS]


@pytest.mark.parametrize(("check", "defect", "actual", "fix"), DEFECTS, ids=IDS)
async def test_the_realtime_check_fails_on_its_defect_with_the_fix(
    check: Check, defect: type[Forwarding], actual: str, fix: str
) -> None:
    with pytest.raises(ConformanceError) as raised:
        await check(BrokenHarness(defect))

    error = raised.value
    assert error.check == check.__name__
    assert actual in error.actual
    assert str(error) == (
        f"{error.check} failed: expected {error.expected.rstrip('.')}; "
        f"got {error.actual.rstrip('.')}. {error.fix}"
    )
    assert fix in error.fix


@pytest.mark.parametrize(("check", "defect"), [row[:2] for row in DEFECTS], ids=IDS)
async def test_a_forwarding_model_without_the_defect_passes(
    check: Check, defect: type[Forwarding]
) -> None:
    # The defects live in the overrides, not in the forwarding itself.
    await check(BrokenHarness(Forwarding))


def test_every_realtime_check_has_a_defect_that_fails_it() -> None:
    checks = {name for name in kit.__all__ if name.startswith("check_realtime_")}

    assert checks == set(IDS)
