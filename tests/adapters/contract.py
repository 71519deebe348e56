"""The contract every model adapter passes against its real framework.

An adapter's test module subclasses ``ModelAdapterContract`` and sets ``harness`` to an
object that knows how to run that framework's agent loop. The contract then checks, with
the same scripts for every framework: a tool loop (plain and streamed), error propagation,
the recorded request's shape and the read helpers on it, an unexpected extra call, and
``assert_complete`` after an early exit.

The harness agent has one tool, ``get_weather(city: str) -> str``, that returns
``f"{city}: sunny"``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar, Protocol

import pytest
from hypothesis import strategies as st

from agents_testing import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ModelRequest,
    ScriptedModel,
    UnconsumedModelStepsError,
    UnexpectedModelCallError,
    assistant_message,
    function_call,
    model_error,
    model_stream,
)

PROMPT = "What is the weather in Tokyo?"
ANSWER = "It is sunny in Tokyo."


class AdapterHarness(Protocol):
    """Run one framework's agent, backed by a scripted model, through the adapter."""

    async def run(self, model: ScriptedModel, prompt: str, *, stream: bool) -> str:
        """Run the agent (with the ``get_weather`` tool) on ``prompt``; return its final text."""
        ...

    def tool_names(self, request: ModelRequest) -> list[str]:
        """Return the names of the tools the framework offered in ``request``."""
        ...


class ContractError(Exception):
    """The scripted failure the error-propagation check raises."""


def input_items(request: ModelRequest) -> list[Mapping[str, Any]]:
    """Return the request's input as a list of mapping items."""
    if isinstance(request.input, str):
        return [{"role": "user", "content": request.input}]
    return [item for item in request.input if isinstance(item, Mapping)]


def user_texts(request: ModelRequest) -> list[str]:
    """Return the text of every user message in the request's input."""
    texts = []
    for item in input_items(request):
        if item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(
                part["text"] for part in content if isinstance(part, Mapping) and "text" in part
            )
    return texts


def items_of_type(request: ModelRequest, kind: str) -> list[Mapping[str, Any]]:
    return [item for item in input_items(request) if item.get("type") == kind]


def raised_chain(error: BaseException) -> list[BaseException]:
    """Return ``error`` and every exception it was raised from or during."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def tool_script() -> list[Any]:
    return [
        [function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")],
        [assistant_message(ANSWER)],
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
class ModelAdapterContract:
    """Behavior every model adapter shows on its real framework."""

    harness: ClassVar[AdapterHarness]

    async def test_tool_loop_runs_the_tool_and_returns_the_final_answer(self, stream: bool) -> None:
        model = ScriptedModel(tool_script())

        answer = await self.harness.run(model, PROMPT, stream=stream)

        assert answer == ANSWER
        assert [(call.index, call.streamed) for call in model.calls] == [
            (0, stream),
            (1, stream),
        ]
        model.assert_complete()

    async def test_second_call_carries_the_tool_call_and_its_output(self, stream: bool) -> None:
        model = ScriptedModel(tool_script())

        await self.harness.run(model, PROMPT, stream=stream)

        second = model.calls[1].request
        [call] = items_of_type(second, "function_call")
        assert (call["name"], call["call_id"]) == ("get_weather", "call_1")
        [output] = items_of_type(second, "function_call_output")
        assert output["call_id"] == "call_1"
        assert "Tokyo: sunny" in str(output["output"])

    async def test_recorded_request_holds_the_prompt_and_the_tools(self, stream: bool) -> None:
        model = ScriptedModel([[assistant_message(ANSWER)]])

        await self.harness.run(model, PROMPT, stream=stream)

        [call] = model.calls
        assert call.streamed is stream
        assert PROMPT in user_texts(call.request)
        assert self.harness.tool_names(call.request) == ["get_weather"]

    async def test_read_helpers_read_the_same_on_every_framework(self, stream: bool) -> None:
        model = ScriptedModel(tool_script())

        await self.harness.run(model, PROMPT, stream=stream)

        first, second = (call.request for call in model.calls)
        # The framework's own tool objects, read by name the same way everywhere.
        assert first.tool_names == second.tool_names == ("get_weather",)
        assert first.tool_names == tuple(self.harness.tool_names(first))
        assert first.handoff_names == second.handoff_names == ()
        assert first.last_user_text == second.last_user_text == PROMPT
        assert first.tool_outputs == {}
        assert list(second.tool_outputs) == ["call_1"]
        assert "Tokyo: sunny" in str(second.tool_outputs["call_1"])

    async def test_scripted_model_error_reaches_the_caller(self, stream: bool) -> None:
        failure = ContractError("model unavailable")
        model = ScriptedModel([model_error(failure)])

        with pytest.raises(BaseException) as raised:  # noqa: PT011 - frameworks may wrap it
            await self.harness.run(model, PROMPT, stream=stream)

        assert failure in raised_chain(raised.value)
        assert len(model.calls) == 1

    async def test_extra_model_call_fails_even_if_the_framework_swallows_it(
        self, stream: bool
    ) -> None:
        model = ScriptedModel([tool_script()[0]])

        with pytest.raises(BaseException) as raised:  # noqa: PT011 - frameworks may wrap it
            await self.harness.run(model, PROMPT, stream=stream)

        assert any(isinstance(e, UnexpectedModelCallError) for e in raised_chain(raised.value))
        with pytest.raises(UnexpectedModelCallError) as again:
            model.assert_complete()
        assert (again.value.call_index, again.value.streamed) == (1, stream)

    async def test_early_exit_leaves_steps_that_assert_complete_reports(self, stream: bool) -> None:
        model = ScriptedModel([[assistant_message(ANSWER)], [assistant_message("never used")]])

        assert await self.harness.run(model, PROMPT, stream=stream) == ANSWER

        with pytest.raises(UnconsumedModelStepsError) as raised:
            model.assert_complete()
        assert raised.value.remaining_steps == 1


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
