"""Bad input to the adapters' entry points: a named refusal, never an error from inside.

Each adapter needs its framework; without it the adapter's import raises
``ModuleNotFoundError`` and its property is skipped (the core-only CI run has none).
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ._fuzz import check, junk, outcome

ADAPTERS = {
    # entry point: (module, names its refusal may use)
    "openai_agents_model": ("openai_agents", ["ScriptedModel"]),
    "openai_agents_sandbox_session": ("openai_agents", ["steps", "step #", "interface"]),
    "openai_agents_realtime_model": ("openai_agents", ["ScriptedRealtimeTransport"]),
    "pydantic_ai_model": ("pydantic_ai", ["ScriptedModel"]),
    "langchain_chat_model": ("langchain", ["ScriptedModel"]),
    "scripted_transport": ("httpx", ["models"]),
    "route_openai_agents_models": ("openai_agents", ["models"]),
    "wait_for_session_event": ("openai_agents", ["session", "event_type"]),
}


def entry_point(name: str) -> Any:
    module_name, _ = ADAPTERS[name]
    try:
        module = importlib.import_module(f"agents_testing.adapters.{module_name}")
    except ModuleNotFoundError as error:
        pytest.skip(f"framework not installed: {error}")
    return getattr(module, name)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_adapter_entry_points_refuse_bad_input_by_name(name: str) -> None:
    adapter = entry_point(name)  # skipped here, before Hypothesis runs, without the framework

    @given(value=st.one_of(junk, st.lists(junk, max_size=2)))
    def refuses_by_name(value: Any) -> None:
        check(outcome(lambda: adapter(value)), ADAPTERS[name][1])

    refuses_by_name()


REALTIME_EVENTS = [
    "function_call",
    "item_update",
    "item_deleted",
    "audio",
    "audio_interrupted",
    "audio_done",
    "audio_transcript_delta",
    "turn_started",
    "turn_done",
    "usage_update",
    "error",
    "connection_change",
    "model_event",
]


# The keys the conversions read, so payloads get past the first missing-key check.
PAYLOAD_KEYS = [
    "type", "role", "content", "item_id", "content_index", "response_id", "data", "name",
    "call_id", "arguments", "delta", "response", "usage", "id", "status", "error",
    "input_tokens", "output_tokens", "total_tokens", "requests", "input_tokens_details",
    "provider_data", "text", "image",
]  # fmt: skip
payloads = st.dictionaries(
    st.sampled_from(PAYLOAD_KEYS),
    st.one_of(
        junk,
        st.sampled_from(["message", "function_call", "user", "assistant", "system"]),
        st.lists(st.dictionaries(st.sampled_from(PAYLOAD_KEYS), junk, max_size=3), max_size=2),
        st.dictionaries(st.sampled_from(PAYLOAD_KEYS), junk, max_size=3),
    ),
    max_size=8,
)


@pytest.mark.parametrize("event", REALTIME_EVENTS)
def test_a_malformed_emitted_event_is_a_structured_refusal(event: str) -> None:
    adapter = entry_point("openai_agents_realtime_model")
    from agents_testing import InvalidRealtimeEventError, ScriptedRealtimeTransport

    async def emit(args: list[Any]) -> BaseException | None:
        transport = ScriptedRealtimeTransport()
        model = adapter(transport)
        await model.connect({})
        try:
            transport.emit(event, *args)
        except BaseException as error:  # the property judges every exception
            return error
        finally:
            await model.close()
        return None

    loop = asyncio.new_event_loop()  # one loop for every example: a new one each is slow

    @given(args=st.lists(st.one_of(junk, payloads), max_size=2))
    def refuses_with_a_structured_error(args: list[Any]) -> None:
        error = loop.run_until_complete(emit(args))
        # Whatever the payload, emit delivers it or says what is wrong with it.
        assert error is None or isinstance(error, InvalidRealtimeEventError), (
            f"{type(error).__name__}: {error}"
        )

    try:
        refuses_with_a_structured_error()
    finally:
        loop.close()
