"""Scripts and data the model adapters' own tests share.

The behavior every model adapter shows on its real framework is checked by the public
conformance kit, ``agents_testing.conformance`` (see ``test_*_conformance.py``). What is
here pins what only our adapters promise: the exact wording of the core reader's refusals,
and that any hand-written ``response_done`` is served or refused with a structured error.

The tests' agents have one tool, ``get_weather(city: str) -> str``, that returns
``f"{city}: sunny"``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import strategies as st

from agents_testing import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_stream,
)

PROMPT = "What is the weather in Tokyo?"
ANSWER = "It is sunny in Tokyo."


class ContractError(Exception):
    """A scripted model failure."""


def tool_script() -> list[Any]:
    return [
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message(ANSWER)],
    ]


# -- hand-written response_done events --------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_usage_keys = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "input_tokens_details",
    "output_tokens_details",
)


def done_responses() -> st.SearchStrategy[Any]:
    """Any ``response`` a test may hand-write in a ``response_done`` stream event."""
    usage = st.fixed_dictionaries({}, optional=dict.fromkeys(_usage_keys, _json))
    fields = {
        "id": _json,
        "request_id": _json,
        "output": _json | st.lists(_json | st.just(assistant_message("ok")), max_size=3),
        "usage": _json | usage,
        "raw_usage": _json,
        "provider_data": _json,
    }
    return _json | st.fixed_dictionaries({}, optional=fields)


# Hand-written responses every adapter refuses, each with how the error's detail goes on after
# the event's position. They reach the adapters through one core reader, so every adapter
# must say the same.
UNREADABLE_DONE_RESPONSES = [
    pytest.param("done", "its response is a str, not a mapping; script it as", id="str"),
    pytest.param(
        {"output": {"type": "message"}},
        "its response's output is a dict, not a list",
        id="dict-output",
    ),
    pytest.param(
        {"output": "Hello."}, "its response's output is a str, not a list", id="str-output"
    ),
    pytest.param(
        {"output": [], "usage": 3}, "its response's usage is a int, not a mapping", id="int-usage"
    ),
]


@contextmanager
def served_or_refused(response: Any) -> Iterator[ScriptedModel]:
    """Yield a model whose one call streams ``response`` in a hand-written ``response_done``.

    The block runs the adapter on the model and checks what it made. It may instead end with
    a structured refusal, which must name call #1 and be recorded for ``assert_complete()``;
    any other exception fails the test.
    """
    model = ScriptedModel([model_stream([{"type": "response_done", "response": response}])])
    failure: InvalidScriptedModelStepError | InvalidScriptedModelOutputError | None = None
    try:
        yield model
    except (InvalidScriptedModelStepError, InvalidScriptedModelOutputError) as error:
        failure = error
    if failure is not None:
        assert failure.call_index == 0
        with pytest.raises(type(failure)):
            model.assert_complete()
