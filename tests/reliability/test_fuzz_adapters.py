"""Bad input to the adapters' entry points: a named refusal, never an error from inside.

Each adapter needs its framework; without it the adapter's import raises
``ModuleNotFoundError`` and its property is skipped (the core-only CI run has none).
"""

from __future__ import annotations

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
