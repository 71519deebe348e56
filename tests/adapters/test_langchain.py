"""The LangChain adapter against real langchain-core (and LangGraph's agents when installed)."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

import asyncio
import copy
import importlib
import inspect
import sys
import threading
import warnings
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import tool
from pydantic import BaseModel

from agents_testing import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ModelRequest,
    ModelResponse,
    RecordedModelCall,
    ScriptedModel,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_responder,
    model_stream,
    shell_call,
)
from agents_testing.adapters import langchain as langchain_adapter
from agents_testing.adapters.langchain import ScriptedChatModel, langchain_chat_model

from .contract import (
    ANSWER,
    PROMPT,
    UNREADABLE_DONE_RESPONSES,
    done_responses,
    served_or_refused,
    tool_script,
)
from .test_langchain_conformance import LangChainHarness


@tool
def get_weather(city: str) -> str:
    """Return the weather in a city."""
    return f"{city}: sunny"


def aggregate(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    """Add stream chunks up the way LangChain does."""
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


# -- sync paths and threads -------------------------------------------------------------


def test_sync_invoke_runs_the_tool_loop() -> None:
    model = ScriptedModel(tool_script())
    chat = langchain_chat_model(model).bind_tools([get_weather])

    first = chat.invoke(PROMPT)
    result = get_weather.invoke(first.tool_calls[0])
    second = chat.invoke([HumanMessage(PROMPT), first, result])

    assert first.tool_calls == [
        {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "call_1", "type": "tool_call"}
    ]
    assert second.content == ANSWER
    assert [call.streamed for call in model.calls] == [False, False]
    model.assert_complete()


def test_sync_stream_yields_text_and_tool_call_chunks() -> None:
    model = ScriptedModel(
        [
            [
                assistant_message("Checking."),
                function_call("get_weather", '{"city":"Tokyo"}', call_id="c1"),
            ]
        ]
    )

    chunks = list(langchain_chat_model(model).stream(PROMPT))

    assert chunks[0].content == "Checking."
    assert chunks[1].tool_call_chunks == [
        {
            "name": "get_weather",
            "args": '{"city":"Tokyo"}',
            "id": "c1",
            "index": 0,
            "type": "tool_call_chunk",
        }
    ]
    message = aggregate(chunks)
    assert message.content == "Checking."
    assert message.tool_calls == [
        {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "c1", "type": "tool_call"}
    ]
    assert model.calls[0].streamed is True


def test_batch_serves_one_step_per_input() -> None:
    model = ScriptedModel(
        [model_responder(lambda call: [assistant_message(f"answer {call.index}")])] * 3
    )

    replies = langchain_chat_model(model).batch(["a", "b", "c"])

    # batch runs the calls on worker threads, so which input got which step is not fixed.
    assert sorted(reply.content for reply in replies) == ["answer 0", "answer 1", "answer 2"]
    inputs = [call.request.input for call in model.calls]
    assert sorted(messages[0]["content"] for messages in inputs if isinstance(messages, list)) == [
        "a",
        "b",
        "c",
    ]
    model.assert_complete()


@pytest.fixture
def _switch_threads_often() -> Iterator[None]:
    # Switch threads far more often than usual, so a race shows up instead of passing by luck.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


@pytest.mark.usefixtures("_switch_threads_often")
def test_invoke_from_eight_threads_hands_out_each_step_once() -> None:
    calls = 200
    served: list[tuple[int, int]] = []  # (step, call index), appended by each responder
    lock = threading.Lock()

    def step(number: int) -> Any:
        def respond(call: RecordedModelCall) -> list[Any]:
            with lock:
                served.append((number, call.index))
            return [assistant_message(f"step {number}")]

        return model_responder(respond)

    model = ScriptedModel([step(number) for number in range(calls)])
    chat = langchain_chat_model(model)

    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda n: chat.invoke(f"call {n}"), range(calls)))

    assert sorted(served) == [(number, number) for number in range(calls)]
    assert sorted(reply.content for reply in replies) == sorted(f"step {n}" for n in range(calls))
    assert [call.index for call in model.calls] == list(range(calls))
    assert model.remaining_steps == 0
    model.assert_complete()


async def test_sync_calls_work_inside_a_running_event_loop() -> None:
    model = ScriptedModel([[assistant_message("plain")], [assistant_message("streamed")]])
    chat = langchain_chat_model(model)

    # Sync code called from async code: this thread's loop is busy, so the adapter's own
    # loop has to run somewhere else.
    assert chat.invoke("hi").content == "plain"
    assert aggregate(list(chat.stream("hi"))).content == "streamed"
    model.assert_complete()


def test_closing_a_sync_stream_early_closes_the_scripted_source() -> None:
    closed: list[bool] = []

    def events() -> Iterator[Any]:
        try:
            yield {"type": "output_text_delta", "item_id": None, "delta": "one"}
            yield {"type": "output_text_delta", "item_id": None, "delta": "two"}
        finally:
            closed.append(True)

    # Typed as an Iterator by LangChain; it is a generator, which has close().
    stream = cast(
        Generator[AIMessageChunk, None, None],
        langchain_chat_model(ScriptedModel([model_stream(events())])).stream("hi"),
    )

    assert next(stream).content == "one"
    stream.close()
    assert closed == [True]


# -- errors -----------------------------------------------------------------------------


class ScriptedFailure(Exception):
    pass


async def call_once(chat: ScriptedChatModel, mode: str) -> None:
    """Make one model call through the named LangChain entry point."""
    if mode == "invoke":
        chat.invoke("hi")
    elif mode == "stream":
        list(chat.stream("hi"))
    elif mode == "ainvoke":
        await chat.ainvoke("hi")
    elif mode == "astream":
        [chunk async for chunk in chat.astream("hi")]
    else:
        chat.batch(["hi"])


@pytest.mark.parametrize("mode", ["invoke", "stream", "ainvoke", "astream", "batch"])
async def test_scripted_errors_propagate_unchanged(mode: str) -> None:
    failure = ScriptedFailure("rate limited")
    chat = langchain_chat_model(ScriptedModel([model_error(failure)]))

    with pytest.raises(ScriptedFailure) as raised:
        await call_once(chat, mode)

    assert raised.value is failure


# -- requests ---------------------------------------------------------------------------


def record(messages: list[BaseMessage], **kwargs: Any) -> ModelRequest:
    """Send ``messages`` through the adapter once and return the recorded request."""
    model = ScriptedModel([[assistant_message("ok")]])
    langchain_chat_model(model).invoke(messages, **kwargs)
    [call] = model.calls
    return call.request


def test_leading_system_messages_become_system_instructions() -> None:
    request = record([SystemMessage("Be brief."), SystemMessage("Use metric."), HumanMessage("hi")])

    assert request.system_instructions == "Be brief.\n\nUse metric."
    assert request.input == [{"type": "message", "role": "user", "content": "hi"}]


def test_a_later_system_message_stays_in_place() -> None:
    request = record([HumanMessage("hi"), SystemMessage("Now answer in French.")])

    assert request.system_instructions is None
    assert request.input == [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "message", "role": "system", "content": "Now answer in French."},
    ]


def test_history_becomes_normalized_items_with_compact_arguments() -> None:
    request = record(
        [
            HumanMessage("Weather in Tokyo?"),
            AIMessage(
                "Let me check.",
                tool_calls=[{"name": "get_weather", "args": {"city": "Tokyo"}, "id": "call_1"}],
            ),
            ToolMessage("Tokyo: sunny", tool_call_id="call_1"),
            ChatMessage(role="developer", content="Keep it short."),
        ]
    )

    assert request.input == [
        {"type": "message", "role": "user", "content": "Weather in Tokyo?"},
        assistant_message("Let me check."),
        # The arguments came back from LangChain as a dict and are written as compact JSON.
        function_call("get_weather", '{"city":"Tokyo"}', call_id="call_1"),
        {"type": "function_call_output", "call_id": "call_1", "output": "Tokyo: sunny"},
        {"type": "message", "role": "developer", "content": "Keep it short."},
    ]


def test_an_unparseable_tool_call_keeps_its_argument_string() -> None:
    message = AIMessage(
        "",
        invalid_tool_calls=[
            {
                "name": "get_weather",
                "args": '{"city": Tok',
                "id": "c9",
                "error": None,
                "type": "invalid_tool_call",
            }
        ],
    )

    request = record([HumanMessage("hi"), message])

    assert request.input[1] == function_call("get_weather", '{"city": Tok', call_id="c9")


def test_content_blocks_become_input_text_parts() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}

    request = record([HumanMessage(content=[{"type": "text", "text": "What is this?"}, image])])

    assert request.input == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "What is this?"}, image],
        }
    ]


def test_the_sent_messages_are_kept_in_extra() -> None:
    messages: list[BaseMessage] = [SystemMessage("Be brief."), HumanMessage("hi")]

    request = record(messages)

    assert request.extra["messages"] == messages


def test_a_message_type_without_an_item_is_refused() -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    with pytest.raises(TypeError, match="FunctionMessage"):
        langchain_chat_model(model).invoke([FunctionMessage(name="f", content="{}")])
    assert model.calls == ()


def test_bind_tools_records_schemas_and_settings() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    chat = langchain_chat_model(model).bind_tools(
        [get_weather], tool_choice="get_weather", parallel_tool_calls=False
    )

    chat.invoke("hi", stop=["END"])

    request = model.calls[0].request
    assert request.tools == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Return the weather in a city.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    ]
    assert request.model_settings == {
        "tool_choice": "get_weather",
        "parallel_tool_calls": False,
        "stop": ["END"],
    }


class StartMetadata(BaseCallbackHandler):
    """Keep the metadata LangChain hands to callbacks when each chat model call starts."""

    def __init__(self) -> None:
        self.metadata: list[dict[str, Any]] = []
        self.invocation_params: list[dict[str, Any]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.metadata.append(kwargs["metadata"])
        self.invocation_params.append(kwargs["invocation_params"])


def test_tracing_params_name_the_adapter_and_the_calls_settings() -> None:
    model = ScriptedModel([[assistant_message("ok")], [assistant_message("ok")]])
    handler = StartMetadata()
    chat = langchain_chat_model(model)

    chat.invoke("hi", config={"callbacks": [handler]})
    chat.bind(model="gpt-test", temperature=0.5, max_tokens=64).invoke(
        "hi", stop=["END"], config={"callbacks": [handler]}
    )

    ls_params = [
        {key: value for key, value in metadata.items() if key.startswith("ls_")}
        for metadata in handler.metadata
    ]
    assert ls_params == [
        {
            "ls_provider": "agents_testing",
            "ls_model_type": "chat",
            "ls_integration": "langchain_chat_model",
        },
        {
            "ls_provider": "agents_testing",
            "ls_model_type": "chat",
            "ls_stop": ["END"],
            "ls_model_name": "gpt-test",
            "ls_temperature": 0.5,
            "ls_max_tokens": 64,
            "ls_integration": "langchain_chat_model",
        },
    ]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"model": 4, "temperature": "hot", "max_tokens": 1.5},
        {"temperature": 1, "max_tokens": True, "stop": []},
    ],
)
def test_tracing_params_take_only_the_settings_langchain_would(kwargs: dict[str, Any]) -> None:
    # The base class's fallback reads the same call settings, with the same types; it also
    # probes the model's attributes, of which this model has none.
    chat = langchain_chat_model(ScriptedModel())
    stop = kwargs.pop("stop", None)

    params = chat._get_ls_params(stop=stop, **kwargs)  # pyright: ignore[reportPrivateUsage]

    fallback = BaseChatModel._get_ls_params(chat, stop=stop, **kwargs)  # pyright: ignore[reportPrivateUsage]
    assert fallback.pop("ls_provider") == "scriptedchatmodel"
    assert params == {"ls_provider": "agents_testing", **fallback}


def test_callbacks_get_the_invocation_params_the_base_class_gives() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    handler = StartMetadata()
    chat = langchain_chat_model(model)

    chat.bind_tools([get_weather], tool_choice="auto").invoke(
        "hi", stop=["END"], config={"callbacks": [handler]}
    )

    tools = model.calls[0].request.tools
    assert handler.invocation_params == [
        {"_type": "agents-testing-scripted", "stop": ["END"], "tools": tools, "tool_choice": "auto"}
    ]
    base = BaseChatModel._get_invocation_params  # pyright: ignore[reportPrivateUsage]
    assert handler.invocation_params[0] == base(chat, stop=["END"], tools=tools, tool_choice="auto")


def test_structured_output_goes_through_bind_tools() -> None:
    class Weather(BaseModel):
        city: str
        sky: str

    model = ScriptedModel(
        [[function_call("Weather", {"city": "Tokyo", "sky": "sunny"}, call_id="c1")]]
    )

    weather = langchain_chat_model(model).with_structured_output(Weather).invoke("Tokyo?")

    assert weather == Weather(city="Tokyo", sky="sunny")
    assert model.calls[0].request.model_settings["tool_choice"] == "any"


# -- responses --------------------------------------------------------------------------


def usage_response() -> ModelResponse:
    return ModelResponse(
        output=[assistant_message("Sunny.")],
        usage=Usage(
            input_tokens=12,
            output_tokens=3,
            input_tokens_details={"cached_tokens": 4},
            output_tokens_details={"reasoning_tokens": 1},
        ),
        response_id="resp_1",
        request_id="req_1",
    )


EXPECTED_USAGE = {
    "input_tokens": 12,
    "output_tokens": 3,
    "total_tokens": 15,
    "input_token_details": {"cache_read": 4},
    "output_token_details": {"reasoning": 1},
}


def test_usage_and_ids_reach_the_message() -> None:
    reply = langchain_chat_model(ScriptedModel([usage_response()])).invoke("hi")

    assert reply.usage_metadata == EXPECTED_USAGE
    assert reply.response_metadata["response_id"] == "resp_1"
    assert reply.response_metadata["request_id"] == "req_1"


def test_a_hand_written_usage_may_hold_single_details_mappings() -> None:
    # As Usage() accepts them: one mapping, not a list of one per request.
    response = {
        "output": [assistant_message("Sunny.")],
        "usage": {
            "input_tokens": 12,
            "output_tokens": 3,
            "input_tokens_details": {"cached_tokens": 4},
            "output_tokens_details": {"reasoning_tokens": 1},
        },
    }
    model = ScriptedModel([model_stream([{"type": "response_done", "response": response}])])

    chunks = list(langchain_chat_model(model).stream("hi"))

    assert [chunk.usage_metadata for chunk in chunks if chunk.usage_metadata] == [EXPECTED_USAGE]


async def test_streamed_usage_and_ids_arrive_on_the_last_chunk() -> None:
    chat = langchain_chat_model(ScriptedModel([usage_response()]))

    chunks = [chunk async for chunk in chat.astream("hi")]

    assert [chunk.usage_metadata for chunk in chunks if chunk.usage_metadata] == [EXPECTED_USAGE]
    message = aggregate(chunks)
    assert message.content == "Sunny."
    # Only the totals: langchain-core before 0.3.9 drops token details when adding chunks.
    assert message.usage_metadata is not None
    assert message.usage_metadata["total_tokens"] == 15
    assert message.response_metadata["response_id"] == "resp_1"


def test_shorthand_responses_have_zero_usage_and_a_scripted_id() -> None:
    reply = langchain_chat_model(ScriptedModel([[assistant_message("hi")]])).invoke("hi")

    assert reply.usage_metadata == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    assert reply.response_metadata["response_id"] == "scripted-response-1"


def test_unparseable_scripted_arguments_become_invalid_tool_calls() -> None:
    model = ScriptedModel([[function_call("get_weather", '{"city": Tok', call_id="c1")]])

    reply = langchain_chat_model(model).invoke("hi")

    assert reply.tool_calls == []
    [invalid] = reply.invalid_tool_calls
    assert (invalid["name"], invalid["args"], invalid["id"]) == (
        "get_weather",
        '{"city": Tok',
        "c1",
    )


async def test_raw_stream_events_become_chunks() -> None:
    done = {
        "type": "response_done",
        "response": {
            "id": "resp_7",
            "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
            "output": [
                assistant_message("Tokyo is sunny."),
                function_call("get_weather", {"city": "Osaka"}, call_id="c2"),
            ],
        },
    }
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "output_text_delta", "item_id": None, "delta": "Tokyo "},
                    {"type": "output_text_delta", "item_id": None, "delta": "is sunny."},
                    done,
                ]
            )
        ]
    )

    chunks = [chunk async for chunk in langchain_chat_model(model).astream("hi")]

    # The deltas are the text; response_done adds the tool call, usage and ids.
    assert [chunk.content for chunk in chunks[:2]] == ["Tokyo ", "is sunny."]
    message = aggregate(chunks)
    assert message.content == "Tokyo is sunny."
    assert message.tool_calls == [
        {"name": "get_weather", "args": {"city": "Osaka"}, "id": "c2", "type": "tool_call"}
    ]
    assert message.usage_metadata == {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    assert message.response_metadata["response_id"] == "resp_7"


async def test_a_model_event_passes_its_chunk_through() -> None:
    exact = AIMessageChunk(
        content="",
        tool_call_chunks=[
            {
                "name": "get_weather",
                "args": '{"ci',
                "id": "c3",
                "index": 0,
                "type": "tool_call_chunk",
            }
        ],
    )
    rest = AIMessageChunk(
        content="",
        tool_call_chunks=[
            {
                "name": None,
                "args": 'ty":"Kyoto"}',
                "id": None,
                "index": 0,
                "type": "tool_call_chunk",
            }
        ],
    )
    model = ScriptedModel(
        [model_stream([{"type": "model", "event": exact}, {"type": "model", "event": rest}])]
    )

    chunks = [chunk async for chunk in langchain_chat_model(model).astream("hi")]

    assert aggregate(chunks).tool_calls == [
        {"name": "get_weather", "args": {"city": "Kyoto"}, "id": "c3", "type": "tool_call"}
    ]


async def test_hand_written_dict_arguments_are_read_as_function_call_writes_them() -> None:
    item = {
        "type": "function_call",
        "name": "get_weather",
        "call_id": "c4",
        "arguments": {"city": "Nara"},
    }
    model = ScriptedModel([[item], [item]])
    chat = langchain_chat_model(model)

    reply = chat.invoke("hi")
    chunks = [chunk async for chunk in chat.astream("hi")]

    assert reply.tool_calls[0]["args"] == {"city": "Nara"}
    assert chunks[0].tool_call_chunks[0]["args"] == '{"city":"Nara"}'


def test_a_model_event_must_carry_a_chunk() -> None:
    chat = langchain_chat_model(ScriptedModel([model_stream([{"type": "model", "event": "text"}])]))

    with pytest.raises(
        InvalidScriptedModelStepError, match="carries an AIMessageChunk or a ChatGenerationChunk"
    ):
        list(chat.stream("hi"))


@pytest.mark.parametrize(
    "event",
    [AIMessageChunk(content="bare"), {"type": "output_text.delta", "delta": "x"}],
    ids=["bare-chunk", "unknown-type"],
)
async def test_an_event_without_a_chunk_shape_is_refused(event: Any) -> None:
    model = ScriptedModel([model_stream([event])])
    chat = langchain_chat_model(model)

    with pytest.raises(InvalidScriptedModelStepError, match="cannot stream") as raised:
        [chunk async for chunk in chat.astream("hi")]

    assert (raised.value.reason, raised.value.call_index) == ("invalid_stream_event", 0)
    assert "Call #1 (call_index=0): stream event #1 (event_index=0): " in str(raised.value)
    with pytest.raises(InvalidScriptedModelStepError):
        model.assert_complete()


@pytest.mark.parametrize(("response", "problem"), UNREADABLE_DONE_RESPONSES)
def test_an_unreadable_response_done_is_refused_and_recorded(response: Any, problem: str) -> None:
    events = [{"type": "response_started"}, {"type": "response_done", "response": response}]
    model = ScriptedModel([model_stream(events)])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        list(langchain_chat_model(model).stream("hi"))

    error = raised.value
    assert (error.reason, error.call_index) == ("invalid_stream_event", 0)
    assert error.detail is not None
    assert error.detail.startswith(f"stream event #2 (event_index=1): {problem}")
    assert "script it as" in error.detail
    with pytest.raises(InvalidScriptedModelStepError) as again:
        model.assert_complete()
    assert again.value.detail == error.detail


@settings(max_examples=150, deadline=None, database=None)
@given(done_responses())
def test_any_response_done_gives_chunks_or_a_structured_error(response: Any) -> None:
    with served_or_refused(response) as model:
        chunks = list(langchain_chat_model(model).stream("hi"))
        assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)


class RefusedEventSource:
    """A source of one event the adapter refuses, whose ``aclose()`` fails too."""

    def __aiter__(self) -> RefusedEventSource:
        return self

    async def __anext__(self) -> dict[str, Any]:
        return {"type": "model", "event": "text"}

    async def aclose(self) -> None:
        raise RuntimeError("aclose broke")


@pytest.mark.parametrize("mode", ["stream", "astream"])
async def test_a_refused_event_survives_a_failing_source_close(mode: str) -> None:
    chat = langchain_chat_model(ScriptedModel([model_stream(RefusedEventSource())]))

    async def read() -> None:
        if mode == "stream":
            list(chat.stream("hi"))
        else:
            [chunk async for chunk in chat.astream("hi")]

    # The adapter's refusal is what the caller must see, not the close that followed it.
    with pytest.raises(InvalidScriptedModelStepError) as raised:
        await read()

    assert raised.value.reason == "invalid_stream_event"
    assert any("aclose broke" in note for note in getattr(raised.value, "__notes__", []))


def test_an_event_missing_its_data_is_a_structured_error() -> None:
    model = ScriptedModel([model_stream([{"type": "response_started"}, {"type": "model"}])])

    with pytest.raises(InvalidScriptedModelStepError) as raised:
        list(langchain_chat_model(model).stream("hi"))

    assert str(raised.value).endswith("stream event #2 (event_index=1): it has no 'event' key.")


async def test_an_output_object_that_is_not_an_item_is_a_structured_error() -> None:
    model = ScriptedModel([[AIMessage(content="a LangChain message is not an output item")]])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await langchain_chat_model(model).ainvoke("hi")

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        0,
        "AIMessage",
        "LangChain",
    )
    assert "reads normalized items (mappings) only" in str(error)
    with pytest.raises(InvalidScriptedModelOutputError):
        model.assert_complete()


async def test_a_streamed_output_object_that_is_not_an_item_is_refused_as_a_plain_call_is() -> None:
    output = [assistant_message(ANSWER), AIMessage(content="not an output item")]
    done = {"type": "response_done", "response": {"id": "resp_1", "usage": {}, "output": output}}
    # Once from a plain response step (automatic stream), once from a scripted response_done.
    model = ScriptedModel([output, model_stream([done])])
    chat = langchain_chat_model(model)

    for call_index in (0, 1):
        with pytest.raises(InvalidScriptedModelOutputError) as raised:
            [chunk async for chunk in chat.astream("hi")]

        error = raised.value
        assert (error.call_index, error.output_index, error.item_type, error.framework) == (
            call_index,
            1,
            "AIMessage",
            "LangChain",
        )
        assert str(error).startswith(
            f"ScriptedModel call #{call_index + 1} (call_index={call_index}) output item #2 "
            "(output_index=1) of type 'AIMessage' is not valid for LangChain: the LangChain "
            "adapter reads normalized items (mappings) only"
        )
        assert "Fix the item in the script" in str(error)
    # Recorded, so LangGraph catching it cannot hide the broken script.
    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert (again.value.call_index, again.value.output_index) == (0, 1)


@pytest.mark.parametrize(
    ("item", "item_type", "what"),
    [
        (shell_call("ls", call_id="call_1"), "shell_call", "such an item"),
        ({"type": "message", "role": "user", "content": "hi"}, "message", "a 'user' message"),
        ({"role": "assistant", "content": "no type"}, None, "such an item"),
    ],
)
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream", "response_done"])
async def test_an_item_an_ai_message_cannot_carry_is_refused_not_dropped(
    item: dict[str, Any], item_type: str | None, what: str, mode: str
) -> None:
    output = [assistant_message(ANSWER), item]
    done = {"type": "response_done", "response": {"id": "resp_1", "usage": {}, "output": output}}
    # response_done: the item comes in a scripted stream's last event rather than a step.
    model = ScriptedModel([model_stream([done]) if mode == "response_done" else output])
    chat = langchain_chat_model(model)

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await call_once(chat, "astream" if mode == "response_done" else mode)

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        1,
        item_type,
        "LangChain",
    )
    assert error.reason == (
        f"an AIMessage has no place for {what}; script assistant_message() items for its "
        "text, function_call() items for its tool calls and reasoning items for its "
        "reasoning blocks."
    )
    assert str(error).startswith(
        f"ScriptedModel call #1 (call_index=0) output item #2 (output_index=1) of type "
        f"{item_type!r} is not valid for LangChain: an AIMessage has no place for {what}"
    )
    assert "Fix the item in the script" in str(error)
    # Recorded, so LangGraph catching it cannot hide the broken script.
    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert again.value.item_type == item_type


# -- reasoning ----------------------------------------------------------------------------


def reasoning(*summary: str, **fields: Any) -> dict[str, Any]:
    """Build a Responses-shaped reasoning output item with these summary texts."""
    parts = [{"type": "summary_text", "text": text} for text in summary]
    return {"type": "reasoning", **fields, "summary": parts}


REASONED = [
    reasoning("Look up the city.", "Then answer.", id="rs_1", encrypted_content="gAAA"),
    assistant_message(ANSWER),
]
REASONING_BLOCKS = [
    {
        "type": "reasoning",
        "id": "rs_1",
        "reasoning": "Look up the city.",
        "extras": {"encrypted_content": "gAAA"},
    },
    {"type": "reasoning", "id": "rs_1", "reasoning": "Then answer."},
]


async def reply(chat: BaseChatModel, mode: str) -> AIMessage:
    """Return one call's message: a plain call's, or a streamed call's chunks added up."""
    if mode == "invoke":
        return chat.invoke("hi")
    if mode == "ainvoke":
        return await chat.ainvoke("hi")
    if mode == "stream":
        return aggregate(list(chat.stream("hi")))
    return aggregate([chunk async for chunk in chat.astream("hi")])


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
async def test_a_reasoning_item_becomes_standard_reasoning_blocks_before_the_text(
    mode: str,
) -> None:
    model = ScriptedModel([REASONED])

    message = await reply(langchain_chat_model(model), mode)

    blocks = [block for block in message.content_blocks if block.get("type") == "reasoning"]
    assert blocks == REASONING_BLOCKS
    assert [block["type"] for block in message.content_blocks] == [
        "reasoning",
        "reasoning",
        "text",
    ]
    assert message.text == ANSWER
    model.assert_complete()


async def test_a_plain_call_keeps_reasoning_and_text_blocks_in_output_order() -> None:
    output = [
        assistant_message("First."),
        reasoning("Think again."),
        assistant_message("Second."),
        function_call("get_weather", {"city": "Tokyo"}, call_id="call_1"),
    ]
    message = await langchain_chat_model(ScriptedModel([output])).ainvoke("hi")

    assert message.content == [
        {"type": "text", "text": "First."},
        {"type": "reasoning", "reasoning": "Think again."},
        {"type": "text", "text": "Second."},
    ]
    assert [call["id"] for call in message.tool_calls] == ["call_1"]


async def test_a_response_without_reasoning_keeps_string_content() -> None:
    message = await langchain_chat_model(ScriptedModel([[assistant_message(ANSWER)]])).ainvoke("hi")
    assert message.content == ANSWER


async def test_reasoning_text_parts_and_an_item_without_text_become_blocks_too() -> None:
    raw = {"type": "reasoning", "content": [{"type": "reasoning_text", "text": "raw"}]}
    bare = {"type": "reasoning", "id": "rs_2", "encrypted_content": "gAAA", "status": None}
    model = ScriptedModel([[raw, bare, assistant_message("ok")]])

    message = await langchain_chat_model(model).ainvoke("hi")

    assert message.content == [
        {"type": "reasoning", "reasoning": "raw"},
        {
            "type": "reasoning",
            "id": "rs_2",
            "extras": {"encrypted_content": "gAAA", "status": None},
        },
        {"type": "text", "text": "ok"},
    ]


async def test_a_scripted_stream_streams_reasoning_where_its_response_done_is() -> None:
    done = {"type": "response_done", "response": {"output": REASONED}}
    model = ScriptedModel([model_stream([{"type": "output_text_delta", "delta": ANSWER}, done])])

    chunks = [chunk async for chunk in langchain_chat_model(model).astream("hi")]

    assert [chunk.content for chunk in chunks[:2]] == [ANSWER, REASONING_BLOCKS]
    assert aggregate(chunks).text == ANSWER
    model.assert_complete()


async def test_a_response_done_without_deltas_streams_reasoning_then_text() -> None:
    done = {"type": "response_done", "response": {"output": tuple(REASONED)}}
    model = ScriptedModel([model_stream([done])])

    chunks = [chunk async for chunk in langchain_chat_model(model).astream("hi")]

    assert [chunk.content for chunk in chunks[:2]] == [REASONING_BLOCKS, ANSWER]


@pytest.mark.parametrize(
    ("item", "key", "part_type"),
    [
        ({"type": "reasoning", "summary": "think"}, "summary", "summary_text"),
        ({"type": "reasoning", "summary": [{"type": "summary_text"}]}, "summary", "summary_text"),
        ({"type": "reasoning", "summary": [{"text": "no type"}]}, "summary", "summary_text"),
        (
            {"type": "reasoning", "content": [{"type": "text", "text": "x"}]},
            "content",
            "reasoning_text",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream", "response_done"])
async def test_a_reasoning_item_langchain_cannot_carry_is_refused_and_recorded(
    item: dict[str, Any], key: str, part_type: str, mode: str
) -> None:
    output = [item, assistant_message(ANSWER)]
    done = {"type": "response_done", "response": {"output": output}}
    model = ScriptedModel([model_stream([done]) if mode == "response_done" else output])
    chat = langchain_chat_model(model)

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await call_once(chat, "astream" if mode == "response_done" else mode)

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        0,
        "reasoning",
        "LangChain",
    )
    assert error.reason == (
        f'its "{key}" must be a list of {{"type": "{part_type}", "text": ...}} parts with '
        "string texts, which become LangChain reasoning blocks."
    )
    assert "Fix the item in the script" in str(error)
    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert (again.value.item_type, again.value.reason) == ("reasoning", error.reason)


async def test_a_tuple_output_in_response_done_is_read_not_dropped() -> None:
    done = {"type": "response_done", "response": {"output": (assistant_message(ANSWER),)}}
    model = ScriptedModel([model_stream([done])])

    chunks = [chunk async for chunk in langchain_chat_model(model).astream("hi")]

    assert aggregate(chunks).content == ANSWER


@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_sent_back_is_recorded_as_the_reasoning_item(stream: bool) -> None:
    first = [
        reasoning("Look up the city.", id="rs_1", encrypted_content="gAAA"),
        function_call("get_weather", {"city": "Tokyo"}, call_id="call_1"),
    ]
    model = ScriptedModel([first, [assistant_message(ANSWER)]])

    answer = await LangChainHarness().run_tool_loop(model, PROMPT, stream=stream)

    assert answer == ANSWER
    second = model.calls[1].request.input
    assert isinstance(second, list)
    assert [item["type"] for item in second] == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert second[1] == reasoning("Look up the city.", id="rs_1", encrypted_content="gAAA")
    model.assert_complete()


def test_langgraph_react_agent_carries_reasoning_through_the_tool_loop() -> None:
    first = [
        reasoning("Look up the city.", id="rs_1"),
        function_call("get_weather", {"city": "Tokyo"}, call_id="call_1"),
    ]
    model = ScriptedModel([first, REASONED])

    result = react_agent(model).invoke({"messages": [HumanMessage(PROMPT)]})

    messages = result["messages"]
    assert messages[-1].text == ANSWER
    assert [block["type"] for block in messages[-1].content_blocks] == [
        "reasoning",
        "reasoning",
        "text",
    ]
    assert [block["type"] for block in messages[1].content_blocks] == ["reasoning", "tool_call"]
    assert model.calls[1].request.input[1] == reasoning("Look up the city.", id="rs_1")
    model.assert_complete()


async def test_langgraph_streamed_messages_carry_the_reasoning_chunk() -> None:
    model = ScriptedModel([REASONED])
    agent = react_agent(model)

    chunks = [
        chunk
        async for chunk, _ in agent.astream(
            {"messages": [HumanMessage(PROMPT)]}, stream_mode="messages"
        )
        if isinstance(chunk, AIMessageChunk)
    ]

    assert chunks[0].content == REASONING_BLOCKS
    assert aggregate(chunks).text == ANSWER
    model.assert_complete()


# -- assistant message content ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
async def test_a_string_message_content_is_the_text(mode: str) -> None:
    message = {"type": "message", "role": "assistant", "content": ANSWER}
    model = ScriptedModel([[message]])

    reply_message = await reply(langchain_chat_model(model), mode)

    assert reply_message.text == ANSWER
    model.assert_complete()


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
async def test_a_refusal_part_becomes_a_standard_refusal_block(mode: str) -> None:
    message = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "output_text", "text": "Sorry."},
            {"type": "refusal", "refusal": "I cannot help with that."},
        ],
    }
    model = ScriptedModel([[message]])

    reply_message = await reply(langchain_chat_model(model), mode)

    blocks = [block for block in reply_message.content_blocks if block["type"] == "refusal"]
    assert blocks == [{"type": "refusal", "refusal": "I cannot help with that."}]
    assert reply_message.text == "Sorry."
    model.assert_complete()


async def test_a_plain_call_keeps_text_and_refusal_parts_in_their_order() -> None:
    parts = [
        {"type": "output_text", "text": "a"},
        {"type": "refusal", "refusal": "no"},
        {"type": "output_text", "text": "b"},
    ]
    message = {"type": "message", "role": "assistant", "content": parts}
    reply_message = await langchain_chat_model(ScriptedModel([[message]])).ainvoke("hi")

    assert reply_message.content == [
        {"type": "text", "text": "a"},
        {"type": "refusal", "refusal": "no"},
        {"type": "text", "text": "b"},
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"type": "output_text", "text": "hi"}, "its content is a dict"),
        ([{"type": "output_text", "text": 3}], "content part #1 is a 'output_text' part"),
        ([{"type": "input_image", "image_url": "x"}], "content part #1 is a 'input_image' part"),
        ([{"type": "output_text", "text": "ok"}, "bare"], "content part #2 is a part without"),
    ],
)
@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream", "response_done"])
async def test_message_content_langchain_cannot_carry_is_refused_and_recorded(
    content: Any, problem: str, mode: str
) -> None:
    output = [{"type": "message", "role": "assistant", "content": content}]
    done = {"type": "response_done", "response": {"output": output}}
    model = ScriptedModel([model_stream([done]) if mode == "response_done" else output])

    with pytest.raises(InvalidScriptedModelOutputError) as raised:
        await call_once(langchain_chat_model(model), "astream" if mode == "response_done" else mode)

    error = raised.value
    assert (error.call_index, error.output_index, error.item_type, error.framework) == (
        0,
        0,
        "message",
        "LangChain",
    )
    assert error.reason.startswith(problem)
    assert error.reason.endswith(
        "an assistant message's content is a string or a list of "
        '{"type": "output_text", "text": ...} and {"type": "refusal", "refusal": ...} parts.'
    )
    assert "Fix the item in the script" in str(error)
    with pytest.raises(InvalidScriptedModelOutputError) as again:
        model.assert_complete()
    assert again.value.reason == error.reason


def scripted_parts(part_type: str, text_key: str) -> st.SearchStrategy[Any]:
    """Content or summary lists as a hand-written script may have them, right or wrong."""
    json = st.none() | st.integers() | st.text(max_size=4)
    part = st.fixed_dictionaries(
        {},
        optional={"type": st.sampled_from([part_type, "refusal", "other"]) | json, text_key: json},
    )
    return json | st.lists(part | json, max_size=3) | st.tuples(part)


def hand_written_items() -> st.SearchStrategy[Any]:
    """Reasoning items and assistant messages with any shape of parts."""
    reasoning_item = st.fixed_dictionaries(
        {"type": st.just("reasoning")},
        optional={
            "id": st.none() | st.text(max_size=4) | st.integers(),
            "summary": scripted_parts("summary_text", "text"),
            "content": scripted_parts("reasoning_text", "text"),
            "encrypted_content": st.text(max_size=4),
        },
    )
    message = st.fixed_dictionaries(
        {"type": st.just("message"), "role": st.just("assistant")},
        optional={
            "content": scripted_parts("output_text", "text") | scripted_parts("refusal", "refusal")
        },
    )
    return st.lists(reasoning_item | message, max_size=3)


@settings(max_examples=120, deadline=None, database=None)
@given(hand_written_items(), st.sampled_from(["invoke", "stream", "response_done"]))
def test_any_reasoning_or_message_content_gives_a_message_or_a_structured_error(
    output: list[Any], mode: str
) -> None:
    done = {"type": "response_done", "response": {"output": output}}
    model = ScriptedModel([model_stream([done]) if mode == "response_done" else output])
    chat = langchain_chat_model(model)
    refused: InvalidScriptedModelOutputError | None = None
    try:
        message = chat.invoke("hi") if mode == "invoke" else aggregate(list(chat.stream("hi")))
    except InvalidScriptedModelOutputError as error:
        refused = error
    if refused is not None:
        assert (refused.call_index, refused.framework) == (0, "LangChain")
        assert refused.item_type in ("reasoning", "message")
        with pytest.raises(InvalidScriptedModelOutputError):
            model.assert_complete()
        return
    assert isinstance(message.text, str)
    assert all(
        block["type"] in ("text", "reasoning", "refusal") for block in message.content_blocks
    )
    model.assert_complete()


def test_a_hand_built_reasoning_block_cannot_overwrite_the_recorded_item() -> None:
    block = {
        "type": "reasoning",
        "id": "rs_1",
        "reasoning": "Think.",
        "extras": {"summary": 3, "type": "other", "id": "rs_2", "status": "completed"},
    }
    model = ScriptedModel([[assistant_message(ANSWER)]])

    langchain_chat_model(model).invoke([HumanMessage("hi"), AIMessage(content=[block])])

    assert model.calls[0].request.input[1] == {
        **reasoning("Think.", id="rs_1"),
        "status": "completed",
    }


sent_blocks = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["reasoning", "text", "refusal"])},
        optional={
            "reasoning": st.none() | st.integers() | st.text(max_size=3),
            "id": st.none() | st.integers() | st.text(max_size=3),
            "summary": st.none() | st.lists(st.integers(), max_size=2),
            "text": st.text(max_size=3),
            "extras": st.none()
            | st.integers()
            | st.dictionaries(
                st.sampled_from(["type", "id", "summary", "status", "x"]),
                st.none() | st.integers() | st.text(max_size=3),
                max_size=3,
            ),
        },
    )
    | st.text(max_size=3),
    max_size=4,
)


@settings(max_examples=150, deadline=None, database=None)
@given(sent_blocks)
def test_any_content_an_ai_message_sends_back_is_recorded(content: list[Any]) -> None:
    model = ScriptedModel([[assistant_message(ANSWER)]])

    langchain_chat_model(model).invoke([HumanMessage("hi"), AIMessage(content=content)])

    items = model.calls[0].request.input
    assert isinstance(items, list)
    assert [item["type"] for item in items][:1] == ["message"]
    assert all(isinstance(item["type"], str) for item in items)
    model.assert_complete()


# -- the chat model object --------------------------------------------------------------


def test_a_copied_chat_model_still_records_into_the_same_core_model() -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    copied = copy.deepcopy(langchain_chat_model(model))
    copied.invoke("hi")

    assert isinstance(copied, ScriptedChatModel)
    assert copied.scripted_model is model
    assert len(model.calls) == 1


def test_anything_but_a_scripted_model_is_refused() -> None:
    with pytest.raises(TypeError, match="expects a ScriptedModel"):
        langchain_chat_model([[assistant_message("ok")]])  # type: ignore[arg-type]


def test_import_without_langchain_core_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(sys.modules):
        if name == "langchain_core" or name.startswith("langchain_core."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "agents_testing.adapters.langchain")

    with pytest.raises(ImportError, match=r'pip install "agents-testing\[langchain\]"'):
        importlib.import_module("agents_testing.adapters.langchain")


# -- agents built on LangGraph ----------------------------------------------------------


def react_agent(model: ScriptedModel) -> Any:
    """Build LangGraph's prebuilt ReAct agent on the scripted model."""
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    with warnings.catch_warnings():
        # LangGraph 1.x points to langchain.agents.create_agent; the prebuilt agent still
        # works and is what langgraph-only installs have.
        warnings.filterwarnings(
            "ignore", message="create_react_agent has been moved", category=DeprecationWarning
        )
        return prebuilt.create_react_agent(
            langchain_chat_model(model), [get_weather], prompt="You report the weather."
        )


def check_tool_workflow(model: ScriptedModel, messages: list[BaseMessage]) -> None:
    assert messages[-1].content == ANSWER
    assert [type(message).__name__ for message in messages] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]
    first, second = model.calls
    assert first.request.system_instructions == "You report the weather."
    assert [schema["function"]["name"] for schema in first.request.tools] == ["get_weather"]
    assert second.request.input[-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "Tokyo: sunny",
    }
    model.assert_complete()


def test_langgraph_react_agent_runs_the_tool_workflow() -> None:
    model = ScriptedModel(tool_script())

    result = react_agent(model).invoke({"messages": [HumanMessage(PROMPT)]})

    check_tool_workflow(model, result["messages"])
    assert [call.streamed for call in model.calls] == [False, False]


async def test_langgraph_react_agent_streams_messages() -> None:
    model = ScriptedModel(tool_script())
    agent = react_agent(model)

    tokens = [
        chunk.content
        async for chunk, _ in agent.astream(
            {"messages": [HumanMessage(PROMPT)]}, stream_mode="messages"
        )
        if isinstance(chunk, AIMessageChunk) and isinstance(chunk.content, str) and chunk.content
    ]

    assert "".join(tokens) == ANSWER
    # Streaming the graph's messages makes LangGraph stream the model calls too.
    assert [call.streamed for call in model.calls] == [True, True]
    model.assert_complete()


def test_langchain_create_agent_runs_the_tool_workflow() -> None:
    agents = pytest.importorskip("langchain.agents")
    model = ScriptedModel(tool_script())
    agent = agents.create_agent(
        langchain_chat_model(model), [get_weather], system_prompt="You report the weather."
    )

    result = agent.invoke({"messages": [HumanMessage(PROMPT)]})

    check_tool_workflow(model, result["messages"])


# -- the sync path without an event loop --------------------------------------------------


async def slow_answer(call: RecordedModelCall) -> list[Any]:
    await asyncio.sleep(0)
    return [assistant_message(f"async answer to call {call.index}")]


def same_path_script() -> list[Any]:
    """Steps covering every way a non-streamed call ends, in both directions."""
    return [
        [assistant_message("static")],
        model_responder(lambda call: [assistant_message(f"sync answer to call {call.index}")]),
        model_responder(slow_answer),
        model_error(ScriptedFailure("rate limited")),
        model_stream([]),  # a streamed step for a non-streamed call
        model_responder(lambda call: cast(Any, "not a response")),
        [AIMessage(content="not an item")],
    ]


async def outcome(call: Any) -> tuple[str, Any]:
    """Run ``call`` and describe its result or error by type and structured fields."""
    try:
        message = call()
        if inspect.isawaitable(message):
            message = await message
    except Exception as error:
        fields = {key: value for key, value in vars(error).items() if not key.startswith("_")}
        return type(error).__name__, (str(error), fields)
    # The message id is LangChain's run id, different on every call whatever the path.
    return "ok", (message.content, message.response_metadata, message.usage_metadata)


async def test_invoke_and_ainvoke_give_identical_records_results_and_errors() -> None:
    sync_model = ScriptedModel(same_path_script())
    async_model = ScriptedModel(same_path_script())
    sync_chat = langchain_chat_model(sync_model)
    async_chat = langchain_chat_model(async_model)
    steps = len(same_path_script()) + 1  # one more: the unexpected call

    # invoke() runs here, inside a running loop; the no-loop path must not care.
    sync_outcomes = [await outcome(partial(sync_chat.invoke, "hi")) for _ in range(steps)]
    async_outcomes = [await outcome(partial(async_chat.ainvoke, "hi")) for _ in range(steps)]

    assert sync_outcomes == async_outcomes
    assert [kind for kind, _ in sync_outcomes] == [
        "ok",
        "ok",
        "ok",
        "ScriptedFailure",
        "InvalidScriptedModelStepError",
        "InvalidScriptedModelStepError",
        "InvalidScriptedModelOutputError",
        "UnexpectedModelCallError",
    ]
    assert sync_outcomes[2][1][0] == "async answer to call 2"
    assert sync_model.calls == async_model.calls
    with pytest.raises(InvalidScriptedModelStepError) as sync_raised:
        sync_model.assert_complete()
    with pytest.raises(InvalidScriptedModelStepError) as async_raised:
        async_model.assert_complete()
    assert str(sync_raised.value) == str(async_raised.value)


@pytest.fixture
def loops(monkeypatch: pytest.MonkeyPatch) -> list[asyncio.AbstractEventLoop]:
    """Every event loop asyncio.new_event_loop() makes during the test, in order."""
    made: list[asyncio.AbstractEventLoop] = []
    new_event_loop = asyncio.new_event_loop

    def counted() -> asyncio.AbstractEventLoop:
        made.append(new_event_loop())
        return made[-1]

    monkeypatch.setattr(asyncio, "new_event_loop", counted)
    return made


def test_sync_invoke_starts_no_event_loop_unless_a_responder_awaits(
    loops: list[asyncio.AbstractEventLoop],
) -> None:
    model = ScriptedModel(
        [
            [assistant_message("static")],
            model_responder(lambda call: [assistant_message("sync")]),
            model_responder(slow_answer),
        ]
    )
    chat = langchain_chat_model(model)

    assert [chat.invoke("hi").content for _ in range(2)] == ["static", "sync"]
    assert loops == []
    # An awaitable from a responder still gets a loop of its own, closed afterwards.
    assert chat.invoke("hi").content == "async answer to call 2"
    assert len(loops) == 1
    assert loops[0].is_closed()
    model.assert_complete()


def test_sync_stream_starts_no_event_loop_unless_its_step_may_wait(
    loops: list[asyncio.AbstractEventLoop],
) -> None:
    model = ScriptedModel(
        [
            [assistant_message("static")],
            model_error(ScriptedFailure("rate limited")),
            model_stream([{"type": "output_text_delta", "item_id": None, "delta": "scripted"}]),
        ]
    )
    chat = langchain_chat_model(model)

    assert aggregate(list(chat.stream("hi"))).content == "static"
    with pytest.raises(ScriptedFailure):
        list(chat.stream("hi"))
    assert loops == []
    # A scripted source may be async and wait: it still gets a loop, closed afterwards.
    assert aggregate(list(chat.stream("hi"))).content == "scripted"
    assert len(loops) == 1
    assert loops[0].is_closed()
    model.assert_complete()


# -- history sent again on every call ------------------------------------------------------


def fresh_record(messages: list[BaseMessage], tools: list[Any]) -> ModelRequest:
    """Record ``messages`` on a new chat model, which has no earlier call to reuse."""
    model = ScriptedModel([[assistant_message("ok")]])
    chat = langchain_chat_model(model)
    chat.invoke(messages, tools=tools)
    return model.calls[0].request


def exact(request: ModelRequest) -> str:
    """Describe what a request recorded, telling 1 from 1.0 and True, and key orders apart."""
    return repr((request.input, request.system_instructions, request.tools))


def tool_conversation() -> tuple[list[BaseMessage], list[Any]]:
    """Return a conversation with a tool round and its tools, for a test to change between calls."""
    messages: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage([{"type": "text", "text": "hi"}, {"type": "image", "v": 1}]),
        AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1, "b": 2}, "id": "c1"}]),
        ToolMessage("done", tool_call_id="c1"),
    ]
    return messages, [{"type": "function", "function": {"name": "f", "v": 1}}]


def send_and_expect(
    chat: ScriptedChatModel, messages: list[BaseMessage], tools: list[Any], expected: list[str]
) -> None:
    """Send ``messages`` once, adding to ``expected`` what a fresh chat model records for them."""
    expected.append(exact(fresh_record(messages, tools)))
    chat.invoke(messages, tools=tools)


def test_a_message_changed_in_place_between_calls_is_recorded_as_it_was_at_each_call() -> None:
    model = ScriptedModel([[assistant_message("ok")] for _ in range(3)])
    chat = langchain_chat_model(model)
    messages, tools = tool_conversation()
    asked = cast(AIMessage, messages[2])
    expected: list[str] = []

    for change in range(3):
        send_and_expect(chat, messages, tools, expected)
        if change == 0:
            # Same objects, equal-looking values of other types.
            asked.tool_calls[0]["args"]["a"] = True
            cast(Any, messages[1].content)[1]["v"] = 1.0
            tools[0]["function"]["strict"] = True
        else:
            asked.tool_calls[0]["args"] = {"m": 2, "n": 1}
            messages[0].content = "Be verbose."
            cast(ToolMessage, messages[3]).tool_call_id = "c2"
        messages.append(HumanMessage(f"and now {change}?"))

    assert [exact(call.request) for call in model.calls] == expected
    assert '{"a":true,"b":2}' in expected[1]
    assert "'v': 1.0" in expected[1]
    assert "'strict': True" in expected[1]
    assert "Be verbose." in expected[2]
    assert '{"m":2,"n":1}' in expected[2]


def test_only_messages_new_or_changed_since_the_last_call_are_converted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    converted: list[BaseMessage] = []
    convert = langchain_adapter._input_items  # pyright: ignore[reportPrivateUsage]

    def counting(message: BaseMessage) -> list[Any]:
        converted.append(message)
        return convert(message)

    monkeypatch.setattr(langchain_adapter, "_input_items", counting)
    chat = langchain_chat_model(ScriptedModel([[assistant_message("ok")] for _ in range(4)]))
    messages, tools = tool_conversation()
    human, asked, answer = messages[1:]
    chat.invoke(messages, tools=tools)
    later = HumanMessage("more?")
    messages.append(later)
    del converted[:]

    chat.invoke(messages, tools=tools)
    assert converted == [later]  # what the last call sent is taken from its record

    cast(AIMessage, asked).tool_calls[0]["args"]["a"] = 1.0  # changed in place
    del converted[:]
    chat.invoke(messages, tools=tools)
    assert converted == [human, asked, answer, later]  # rare: all of it again

    messages.insert(0, SystemMessage("first"))
    del converted[:]
    chat.invoke(messages, tools=tools)
    assert converted == [human, asked, answer, later]  # nothing is where it was


def test_another_core_model_or_a_message_put_in_front_records_the_right_items() -> None:
    first = ScriptedModel([[assistant_message("ok")] for _ in range(2)])
    second = ScriptedModel([[assistant_message("ok")]])
    chat = langchain_chat_model(first)
    messages: list[BaseMessage] = [HumanMessage("hi")]

    chat.invoke(messages)
    messages.append(AIMessage("hello"))
    chat.scripted_model = second  # a later call records into another core model
    chat.invoke(messages)
    chat.scripted_model = first
    messages.insert(0, SystemMessage("Be brief."))  # a new message in front of the old ones
    chat.invoke(messages)

    assert second.calls[0].request.input == [
        {"type": "message", "role": "user", "content": "hi"},
        assistant_message("hello"),
    ]
    last = first.calls[1].request
    assert last.system_instructions == "Be brief."
    assert last.input == second.calls[0].request.input


@st.composite
def edits(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Changes a caller might make to the conversation between two calls."""
    values = st.sampled_from([0, 1, True, 1.0, -0.0, 0.0, "1", None])
    edit = st.one_of(
        st.tuples(st.just("args"), values),
        st.tuples(st.just("reorder"), st.none()),
        st.tuples(st.just("content"), st.sampled_from(["hi", "hi!", ""])),
        st.tuples(st.just("block"), values),
        st.tuples(st.just("drop"), st.integers(0, 5)),
        st.tuples(st.just("tool"), values),
        st.tuples(st.just("append"), st.sampled_from(["human", "ai", "tool", "system"])),
    )
    return draw(st.lists(edit, max_size=4))


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(edits(), min_size=1, max_size=5))
def test_every_call_records_what_a_fresh_conversion_of_its_messages_gives(
    rounds: list[list[tuple[str, Any]]],
) -> None:
    model = ScriptedModel([[assistant_message("ok")] for _ in rounds])
    chat = langchain_chat_model(model)
    messages, tools = tool_conversation()
    expected: list[str] = []
    for changes in rounds:
        for kind, value in changes:
            ais = [m for m in messages if isinstance(m, AIMessage) and m.tool_calls]
            if kind == "args" and ais:
                ais[0].tool_calls[0]["args"]["a"] = value
            elif kind == "reorder" and ais:
                args = ais[-1].tool_calls[0]["args"]
                if args:
                    first = next(iter(args))
                    args[first] = args.pop(first)
            elif kind == "content":
                messages[0].content = value
            elif kind == "block":
                humans = [m for m in messages if isinstance(m.content, list)]
                if humans:
                    cast(Any, humans[0].content)[-1]["v"] = value
            elif kind == "drop" and len(messages) > 1:
                del messages[value % len(messages)]
            elif kind == "tool":
                tools[0]["function"]["v"] = value
            elif kind == "append":
                makers: dict[str, Callable[[], BaseMessage]] = {
                    "human": lambda: HumanMessage("more"),
                    "ai": lambda: AIMessage(
                        "", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c2"}]
                    ),
                    "tool": lambda: ToolMessage("ok", tool_call_id="c2"),
                    "system": lambda: SystemMessage("later"),
                }
                messages.append(makers[value]())
        send_and_expect(chat, messages, tools, expected)
    # Every record, earlier ones included, still holds what was sent at its call.
    assert [exact(call.request) for call in model.calls] == expected
