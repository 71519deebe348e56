"""Responses API wire format: whole objects, every stream event and every error, pinned exactly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from agents_testing import (
    ModelResponse,
    ScriptedHTTPError,
    ScriptedModel,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_stream,
)
from agents_testing.wire import ScriptedEndpoint, WireResponse
from agents_testing.wire.openai_responses import StreamEncoder, parse_request

from ._streams import stream_failing_after, text_delta

CREATED = 1_700_000_000  # the fixed creation time of every scripted answer
PATH = "/v1/responses"
BODY: dict[str, Any] = {"model": "gpt-test", "input": "Hi"}
STREAM: dict[str, Any] = {**BODY, "stream": True}
USAGE = Usage(
    input_tokens=9,
    output_tokens=8,
    input_tokens_details={"cached_tokens": 3},
    output_tokens_details={"reasoning_tokens": 4},
)
WIRE_USAGE = {
    "input_tokens": 9,
    "input_tokens_details": {"cached_tokens": 3, "cache_write_tokens": 0},
    "output_tokens": 8,
    "output_tokens_details": {"reasoning_tokens": 4},
    "total_tokens": 17,
}
NO_USAGE = {
    "input_tokens": 0,
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens": 0,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 0,
}


def post(endpoint: ScriptedEndpoint, body: Any) -> WireResponse:
    return endpoint.handle(
        "POST", PATH, [("Content-Type", "application/json")], json.dumps(body).encode()
    )


def events(response: WireResponse) -> list[dict[str, Any]]:
    """The ``data:`` of every server-sent event, each checked against its ``event:`` name."""
    out: list[dict[str, Any]] = []
    for block in response.body.decode().split("\n\n"):
        if not block.strip():
            continue
        head, data = block.split("\n")
        payload: dict[str, Any] = json.loads(data.removeprefix("data: "))
        assert head == f"event: {payload['type']}"
        out.append(payload)
    return out


def response_object(
    output: list[Any], usage: Any = NO_USAGE, *, status: str = "completed", **fields: Any
) -> dict[str, Any]:
    """The whole ``response`` object of call 1 for ``BODY``, with ``fields`` changed."""
    return {
        "id": "resp_scripted_1",
        "object": "response",
        "created_at": CREATED,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "gpt-test",
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": {},
        **fields,
    }


def text_part(text: Any) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def message(item_id: str, *texts: Any, status: str = "completed") -> dict[str, Any]:
    """A rendered assistant message with one ``output_text`` part per text."""
    return {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": [text_part(text) for text in texts],
    }


def call(item_id: str, call_id: str, name: str, arguments: str, **extra: Any) -> dict[str, Any]:
    """A rendered function call item."""
    return {
        "id": item_id,
        "type": "function_call",
        "status": "completed",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        **extra,
    }


class Events:
    """Expected stream events, numbered in the order they are added."""

    def __init__(self, start: int = 0) -> None:
        self.sent: list[dict[str, Any]] = []
        self._start = start

    def add(self, kind: str, **fields: Any) -> Events:
        self.sent.append({"type": kind, "sequence_number": self._start + len(self.sent), **fields})
        return self

    def opened(self) -> Events:
        """``response.created`` and ``response.in_progress`` with the empty snapshot."""
        snapshot = response_object([], None, status="in_progress")
        return self.add("response.created", response=snapshot).add(
            "response.in_progress", response=snapshot
        )

    def text_message(self, index: int, item_id: str, *deltas: str, close: bool = True) -> Events:
        """A message streamed as text deltas, from its added event to (with ``close``) done."""
        self.add(
            "response.output_item.added",
            output_index=index,
            item={
                "id": item_id,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            },
        )
        self.add(
            "response.content_part.added",
            item_id=item_id,
            output_index=index,
            content_index=0,
            part=text_part(""),
        )
        for delta in deltas:
            self.add(
                "response.output_text.delta",
                item_id=item_id,
                output_index=index,
                content_index=0,
                delta=delta,
                logprobs=[],
            )
        if close:
            self.closed(index, item_id, "".join(deltas))
        return self

    def closed(self, index: int, item_id: str, text: str) -> Events:
        """The events that end a message whose text was streamed."""
        self.add(
            "response.output_text.done",
            item_id=item_id,
            output_index=index,
            content_index=0,
            text=text,
            logprobs=[],
        )
        self.add(
            "response.content_part.done",
            item_id=item_id,
            output_index=index,
            content_index=0,
            part=text_part(text),
        )
        return self.add(
            "response.output_item.done",
            output_index=index,
            item={
                "id": item_id,
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [text_part(text)],
            },
        )

    def function_call(self, index: int, item: dict[str, Any]) -> Events:
        self.add(
            "response.output_item.added",
            output_index=index,
            item={**item, "status": "in_progress", "arguments": ""},
        )
        self.add(
            "response.function_call_arguments.delta",
            item_id=item["id"],
            output_index=index,
            delta=item["arguments"],
        )
        self.add(
            "response.function_call_arguments.done",
            item_id=item["id"],
            output_index=index,
            name=item["name"],
            arguments=item["arguments"],
        )
        return self.add("response.output_item.done", output_index=index, item=item)


REASONING = {
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "The user wants the weather."}],
    "provider_data": {"model": "gpt-test"},
}
RENDERED_REASONING = {
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "The user wants the weather."}],
    "id": "item_scripted_1_0",
}


# -- responses --------------------------------------------------------------------------------


def test_a_response_with_every_kind_of_item_is_the_whole_response_object() -> None:
    bare_call = {"type": "function_call", "name": "get_time", "arguments": {"zone": "JST"}}
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    output = [
        REASONING,
        assistant_message("Checking.", provider_data={"x": 1}),
        bare_call,
        function_call("get_weather", '{"city":"Tokyo"}', call_id="c1", namespace="weather"),
        search,
    ]
    model = ScriptedModel([ModelResponse(output=output, usage=USAGE)])

    response = post(ScriptedEndpoint(model), BODY)

    assert response.status == 200
    assert json.loads(response.body) == response_object(
        [
            RENDERED_REASONING,
            message("msg_scripted_1_1", "Checking."),
            call("fc_scripted_1_2", "call_scripted_1_2", "get_time", '{"zone":"JST"}'),
            call("c1", "c1", "get_weather", '{"city":"Tokyo"}', namespace="weather"),
            search,
        ],
        WIRE_USAGE,
    )


def test_a_response_echoes_the_settings_the_request_sent() -> None:
    settings: dict[str, Any] = {
        "instructions": "Be brief.",
        "max_output_tokens": 50,
        "parallel_tool_calls": False,
        "previous_response_id": "resp_0",
        "store": False,
        "temperature": 0.2,
        "text": {"format": {"type": "json_object"}},
        "tool_choice": "required",
        "tools": [{"type": "function", "name": "get_weather", "parameters": {}}],
        "top_p": 0.5,
        "truncation": "auto",
        "user": "user-1",
        "metadata": {"run": "7"},
    }
    model = ScriptedModel([[assistant_message("ok", id="msg_1")]])

    response = post(ScriptedEndpoint(model), {**BODY, "model": "gpt-other", **settings})

    assert json.loads(response.body) == response_object(
        [message("msg_1", "ok")], model="gpt-other", **settings
    )


def test_message_content_keeps_its_parts_as_scripted_and_reads_a_string_as_text() -> None:
    parts = [
        {"type": "output_text", "text": "Sunny.", "provider_data": {"x": 1}},
        "not a part",
        {"type": "refusal", "refusal": "No."},
        {"type": "output_text", "text": "Cited.", "annotations": [{"type": "url"}], "logprobs": 1},
    ]
    output = [
        {"type": "message", "role": "assistant", "content": parts},
        {"type": "message", "role": "assistant", "content": "Plain."},
        {"type": "message", "role": "assistant", "content": None, "id": ""},
    ]
    model = ScriptedModel([output])

    rendered = json.loads(post(ScriptedEndpoint(model), BODY).body)["output"]

    assert rendered == [
        {
            **message("msg_scripted_1_0"),
            "content": [
                text_part("Sunny."),
                {"type": "refusal", "refusal": "No."},
                {
                    "type": "output_text",
                    "text": "Cited.",
                    "annotations": [{"type": "url"}],
                    "logprobs": 1,
                },
            ],
        },
        message("msg_scripted_1_1", "Plain."),
        message("msg_scripted_1_2"),  # an empty id is no id
    ]


@pytest.mark.parametrize("stream", [False, True])
def test_a_message_keeps_the_phase_it_was_scripted_with(stream: bool) -> None:
    output = [
        assistant_message("Looking.", phase="commentary"),
        assistant_message("Sunny.", phase="final_answer"),
        assistant_message("Plain."),
    ]
    model = ScriptedModel([output])

    response = post(ScriptedEndpoint(model), STREAM if stream else BODY)

    rendered = events(response)[-1]["response"] if stream else json.loads(response.body)
    assert rendered["output"] == [
        {**message("msg_scripted_1_0", "Looking."), "phase": "commentary"},
        {**message("msg_scripted_1_1", "Sunny."), "phase": "final_answer"},
        message("msg_scripted_1_2", "Plain."),
    ]


class _FrameworkItem:
    """An output object of some framework, not an item of the Responses API."""

    def __repr__(self) -> str:
        return "<framework item>"


def test_an_output_item_that_is_not_a_mapping_goes_out_as_an_unknown_item() -> None:
    model = ScriptedModel([[_FrameworkItem()]])

    rendered = json.loads(post(ScriptedEndpoint(model), BODY).body)["output"]

    assert rendered == [{"type": "unknown", "value": "<framework item>"}]


def test_a_response_id_set_by_the_script_is_the_id_and_numbers_its_items() -> None:
    output = [assistant_message("ok"), {"type": "function_call", "name": "f"}, {"type": "x"}]
    model = ScriptedModel([ModelResponse(output=output, usage=Usage(), response_id="resp_mine")])

    rendered = json.loads(post(ScriptedEndpoint(model), BODY).body)

    assert rendered["id"] == "resp_mine"
    assert rendered["output"] == [
        message("msg_scripted_resp_mine_0", "ok"),
        call("fc_scripted_resp_mine_1", "call_scripted_resp_mine_1", "f", "{}"),
        {"type": "x", "id": "item_scripted_resp_mine_2"},
    ]


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (408, "timeout"),
        (409, "conflict"),
        (422, "invalid_request_error"),
        (429, "rate_limit_exceeded"),
        (500, "server_error"),
        (503, "server_error"),
    ],
)
def test_an_error_answer_names_the_type_of_its_status_as_type_and_code(
    status: int, kind: str
) -> None:
    model = ScriptedModel([model_error(ScriptedHTTPError(status, "It failed."))])

    response = post(ScriptedEndpoint(model), BODY)

    assert response.status == status
    assert json.loads(response.body) == {
        "error": {"message": "It failed.", "type": kind, "param": None, "code": kind}
    }


def test_an_error_answer_takes_the_scripted_type_and_code() -> None:
    error = ScriptedHTTPError(409, "Try later.", error_type="conflict_error", code="busy")
    model = ScriptedModel([model_error(error)])

    response = post(ScriptedEndpoint(model), BODY)

    assert json.loads(response.body) == {
        "error": {"message": "Try later.", "type": "conflict_error", "param": None, "code": "busy"}
    }


# -- streams ----------------------------------------------------------------------------------


def test_a_plain_step_streamed_sends_every_item_with_its_events_then_completed() -> None:
    bare_call = {"type": "function_call", "name": "get_time", "arguments": "{}"}
    output = [REASONING, assistant_message("Sunny all day."), bare_call]
    model = ScriptedModel([ModelResponse(output=output, usage=USAGE)], text_delta_size=6)

    response = post(ScriptedEndpoint(model), STREAM)

    assert response.status == 200
    rendered_call = call("fc_scripted_1_2", "call_scripted_1_2", "get_time", "{}")
    expected = Events().opened()
    expected.add("response.output_item.added", output_index=0, item=RENDERED_REASONING)
    expected.add("response.output_item.done", output_index=0, item=RENDERED_REASONING)
    # A plain step's message comes whole, so its part is cut into deltas here.
    expected.add(
        "response.output_item.added",
        output_index=1,
        item={
            "id": "msg_scripted_1_1",
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        },
    )
    expected.add(
        "response.content_part.added",
        item_id="msg_scripted_1_1",
        output_index=1,
        content_index=0,
        part=text_part(""),
    )
    for piece in ["Sunny ", "all da", "y."]:
        expected.add(
            "response.output_text.delta",
            item_id="msg_scripted_1_1",
            output_index=1,
            content_index=0,
            delta=piece,
            logprobs=[],
        )
    expected.closed(1, "msg_scripted_1_1", "Sunny all day.")
    expected.function_call(2, rendered_call)
    final = [RENDERED_REASONING, message("msg_scripted_1_1", "Sunny all day."), rendered_call]
    expected.add("response.completed", response=response_object(final, WIRE_USAGE))
    assert events(response) == expected.sent


def test_a_streamed_message_of_several_parts_numbers_them_and_streams_only_text() -> None:
    parts = [
        {"type": "refusal", "refusal": "No."},
        {"type": "output_text", "text": 7},
        {"type": "output_text"},
    ]
    item = {"type": "message", "role": "assistant", "id": "msg_1", "content": parts}
    done = {"type": "response_done", "response": {"output": [item]}}
    # A delta size cuts text only: a text that is not a string still goes out whole.
    model = ScriptedModel([model_stream([done])], text_delta_size=2)

    sent = events(post(ScriptedEndpoint(model), STREAM))

    rendered_parts = [{"type": "refusal", "refusal": "No."}, text_part(7)]
    rendered_parts.append({"type": "output_text", "annotations": [], "logprobs": []})
    rendered = {**message("msg_1"), "content": rendered_parts}
    where = {"item_id": "msg_1", "output_index": 0}
    expected = Events().opened()
    expected.add(
        "response.output_item.added",
        output_index=0,
        item={**rendered, "status": "in_progress", "content": []},
    )
    expected.add("response.content_part.added", **where, content_index=0, part=rendered_parts[0])
    expected.add("response.content_part.done", **where, content_index=0, part=rendered_parts[0])
    expected.add("response.content_part.added", **where, content_index=1, part=text_part(""))
    # Text that is not a string goes out as it is, in one delta.
    expected.add("response.output_text.delta", **where, content_index=1, delta=7, logprobs=[])
    expected.add("response.output_text.done", **where, content_index=1, text=7, logprobs=[])
    expected.add("response.content_part.done", **where, content_index=1, part=rendered_parts[1])
    empty = {**rendered_parts[2], "text": ""}
    expected.add("response.content_part.added", **where, content_index=2, part=empty)
    expected.add("response.output_text.delta", **where, content_index=2, delta="", logprobs=[])
    expected.add("response.output_text.done", **where, content_index=2, text="", logprobs=[])
    expected.add("response.content_part.done", **where, content_index=2, part=rendered_parts[2])
    expected.add("response.output_item.done", output_index=0, item=rendered)
    expected.add("response.completed", response=response_object([rendered]))
    assert sent == expected.sent


def test_a_stream_of_text_deltas_sends_each_once_then_the_calls_and_completed() -> None:
    done = {
        "type": "response_done",
        "response": {
            "output": [
                assistant_message("Let me check."),
                function_call("get_weather", {"city": "Tokyo"}, call_id="c1"),
            ],
            "usage": {
                "input_tokens": 9,
                "output_tokens": 8,
                "input_tokens_details": {"cached_tokens": 3},
                "output_tokens_details": {"reasoning_tokens": 4},
            },
        },
    }
    model = ScriptedModel([model_stream([text_delta("Let me "), text_delta("check."), done])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    weather = call("c1", "c1", "get_weather", '{"city":"Tokyo"}')
    expected = Events().opened().text_message(0, "msg_scripted_1_0", "Let me ", "check.")
    expected.function_call(1, weather)
    final = [message("msg_scripted_1_0", "Let me check."), weather]
    expected.add("response.completed", response=response_object(final, WIRE_USAGE))
    assert sent == expected.sent


def test_deltas_of_a_new_item_close_the_message_before_and_each_pairs_with_its_item() -> None:
    done = {
        "type": "response_done",
        "response": {
            "output": [
                assistant_message("One.", id="msg_a"),
                {"type": "function_call", "name": "f", "call_id": "c1", "arguments": "{}"},
                assistant_message("Two.", id="msg_b"),
            ]
        },
    }
    model = ScriptedModel(
        [
            model_stream(
                [
                    {"type": "response_started"},
                    {"type": "response_started"},  # the stream opens once
                    {"type": "output_text_delta", "item_id": "msg_a", "delta": "On"},
                    {"type": "output_text_delta", "item_id": "msg_a", "delta": "e."},
                    {"type": "output_text_delta", "item_id": None, "delta": ""},
                    {"type": "output_text_delta", "item_id": "msg_b", "delta": "Two."},
                    done,
                ]
            )
        ]
    )

    sent = events(post(ScriptedEndpoint(model), STREAM))

    expected = Events().opened().text_message(0, "msg_a", "On", "e.", "")
    expected.text_message(1, "msg_b", "Two.")
    f = call("fc_scripted_1_2", "c1", "f", "{}")
    expected.function_call(2, f)
    # The output in the order of the output indexes: the streamed messages took 0 and 1.
    final = [message("msg_a", "One."), message("msg_b", "Two."), f]
    expected.add("response.completed", response=response_object(final))
    assert sent == expected.sent


def test_a_final_message_beyond_those_streamed_as_text_is_streamed_whole() -> None:
    # One message went out as deltas: the first message of the final output stands for it,
    # and the next one is sent with its own events.
    done = {
        "type": "response_done",
        "response": {
            "output": [assistant_message("One."), assistant_message("Two.", id="msg_b")],
        },
    }
    model = ScriptedModel([model_stream([text_delta("One."), done])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    expected = Events().opened().text_message(0, "msg_scripted_1_0", "One.")
    expected.text_message(1, "msg_b", "Two.")
    final = [message("msg_scripted_1_0", "One."), message("msg_b", "Two.")]
    expected.add("response.completed", response=response_object(final))
    assert sent == expected.sent


def test_streamed_text_the_final_output_leaves_out_still_ends_in_the_response() -> None:
    done = {"type": "response_done", "response": {"output": [REASONING]}}
    model = ScriptedModel([model_stream([text_delta("Hm."), done])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    reasoning = {**RENDERED_REASONING, "id": "item_scripted_1_1"}
    expected = Events().opened().text_message(0, "msg_scripted_1_0", "Hm.")
    expected.add("response.output_item.added", output_index=1, item=reasoning)
    expected.add("response.output_item.done", output_index=1, item=reasoning)
    final = [message("msg_scripted_1_0", "Hm."), reasoning]  # output index 0, then 1
    expected.add("response.completed", response=response_object(final))
    assert sent == expected.sent


def test_a_stream_of_deltas_without_a_final_response_completes_with_what_was_streamed() -> None:
    model = ScriptedModel([model_stream([text_delta("Hi")])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    expected = Events().opened().text_message(0, "msg_scripted_1_0", "Hi")
    final = [message("msg_scripted_1_0", "Hi")]
    expected.add("response.completed", response=response_object(final))
    assert sent == expected.sent


def test_an_empty_stream_is_opened_and_completed_with_no_output() -> None:
    model = ScriptedModel([model_stream([{"type": "response_started"}])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    expected = Events().opened().add("response.completed", response=response_object([]))
    assert sent == expected.sent


# -- scripted provider events -----------------------------------------------------------------


def test_scripted_provider_events_go_out_verbatim_numbered_where_they_have_no_number() -> None:
    created = {"type": "response.created", "response": {"id": "resp_x"}}
    numbered = {"type": "response.in_progress", "sequence_number": 40, "response": {}}
    model = ScriptedModel(
        [
            model_stream(
                [
                    created,
                    {"type": "model", "event": numbered},
                    text_delta("Hi"),
                    {"type": "response_done", "response": {"output": []}},
                ]
            )
        ]
    )

    sent = events(post(ScriptedEndpoint(model), STREAM))

    # The scripted events opened the stream: the encoder adds no opening of its own.
    expected = Events(start=2).text_message(0, "msg_scripted_1_0", "Hi")
    expected.add(
        "response.completed", response=response_object([message("msg_scripted_1_0", "Hi")])
    )
    assert sent == [{**created, "sequence_number": 0}, numbered, *expected.sent]


def test_a_stream_of_scripted_events_alone_gets_no_completion_added() -> None:
    completed = {"type": "response.completed", "response": {"id": "resp_x"}}
    model = ScriptedModel([model_stream([completed])])

    sent = events(post(ScriptedEndpoint(model), STREAM))

    assert sent == [{**completed, "sequence_number": 0}]


# -- failures midway --------------------------------------------------------------------------


def test_a_stream_failing_midway_fails_the_response_with_what_was_streamed() -> None:
    error = ScriptedHTTPError(409, "Try later.", error_type="conflict_error", code="busy")
    deltas = [
        {"type": "output_text_delta", "item_id": "msg_a", "delta": "Done."},
        {"type": "output_text_delta", "item_id": "msg_b", "delta": "It is"},
    ]
    model = stream_failing_after(deltas, error)

    response = post(ScriptedEndpoint(model), STREAM)

    assert response.status == 200
    expected = Events().opened().text_message(0, "msg_a", "Done.")
    expected.text_message(1, "msg_b", "It is", close=False)
    output = [message("msg_a", "Done."), message("msg_b", "It is", status="in_progress")]
    failed = response_object(
        output,
        None,
        status="failed",
        error={"code": "busy", "message": "Try later.", "param": None, "type": "conflict_error"},
    )
    expected.add("response.failed", response=failed)
    assert events(response) == expected.sent
    model.assert_complete()


def test_a_stream_failing_after_its_start_fails_the_response_with_no_output() -> None:
    model = stream_failing_after([{"type": "response_started"}], ScriptedHTTPError(503, "Down."))

    sent = events(post(ScriptedEndpoint(model), STREAM))

    error = {"code": "server_error", "message": "Down.", "param": None, "type": "server_error"}
    failed = response_object([], None, status="failed", error=error)
    assert sent == Events().opened().add("response.failed", response=failed).sent


def test_a_failure_after_the_response_completed_is_an_error_event() -> None:
    done = {"type": "response_done", "response": {"output": [REASONING]}}
    error = ScriptedHTTPError(429, "Slow down.", code="busy")
    model = stream_failing_after([done], error)

    sent = events(post(ScriptedEndpoint(model), STREAM))

    expected = Events().opened()
    expected.add("response.output_item.added", output_index=0, item=RENDERED_REASONING)
    expected.add("response.output_item.done", output_index=0, item=RENDERED_REASONING)
    expected.add("response.completed", response=response_object([RENDERED_REASONING]))
    body = {"message": "Slow down.", "type": "rate_limit_exceeded", "param": None, "code": "busy"}
    expected.add("error", code="busy", message="Slow down.", param=None, error=body)
    assert sent == expected.sent


@pytest.mark.parametrize(
    "terminal", ["response.completed", "response.failed", "response.incomplete"]
)
def test_a_failure_after_a_scripted_terminal_event_is_an_error_event(terminal: str) -> None:
    ended = {"type": terminal, "response": {"id": "resp_x"}}
    model = stream_failing_after([ended], ScriptedHTTPError(500, "Late."))

    sent = events(post(ScriptedEndpoint(model), STREAM))

    body = {"message": "Late.", "type": "server_error", "param": None, "code": "server_error"}
    assert sent == [
        {**ended, "sequence_number": 0},
        {
            "type": "error",
            "sequence_number": 1,
            "code": "server_error",
            "message": "Late.",
            "param": None,
            "error": body,
        },
    ]


def test_a_failure_after_a_scripted_event_that_ends_nothing_fails_the_response() -> None:
    other = {"type": "response.output_text.annotation.added", "annotation": {}}
    model = stream_failing_after([other], ScriptedHTTPError(500, "Late."))

    sent = events(post(ScriptedEndpoint(model), STREAM))

    error = {"code": "server_error", "message": "Late.", "param": None, "type": "server_error"}
    failed = response_object([], None, status="failed", error=error)
    assert sent == [
        {**other, "sequence_number": 0},
        *Events(start=1).add("response.failed", response=failed).sent,
    ]


def test_an_encoder_failed_twice_fails_the_response_once_then_sends_an_error_event() -> None:
    encoder = StreamEncoder(number="1", body=BODY)

    first = encoder.fail(500, "Broke.")
    second = encoder.fail(429, "Again.")

    error = {"code": "server_error", "message": "Broke.", "param": None, "type": "server_error"}
    failed = response_object([], None, status="failed", error=error)
    assert [json.loads(chunk.decode().split("data: ")[1]) for chunk in first + second] == [
        *Events().opened().add("response.failed", response=failed).sent,
        {
            "type": "error",
            "sequence_number": 3,
            "code": "rate_limit_exceeded",
            "message": "Again.",
            "param": None,
            "error": {
                "message": "Again.",
                "type": "rate_limit_exceeded",
                "param": None,
                "code": "rate_limit_exceeded",
            },
        },
    ]


# -- requests ---------------------------------------------------------------------------------


def test_input_items_keep_their_shape_and_an_easy_message_gets_its_type() -> None:
    items = [
        {"role": "user", "content": "Hi"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"type": "message", "role": "developer", "content": "Be brief."},
        {"content": "neither type nor role"},
        "not an item",
    ]
    model = ScriptedModel([[assistant_message("ok")]])

    post(ScriptedEndpoint(model), {**BODY, "input": items})

    assert model.calls[0].request.input == [
        {"type": "message", "role": "user", "content": "Hi"},
        items[1],
        items[2],
        items[3],
        items[4],
    ]


def test_every_field_of_a_request_reaches_its_place_in_the_model_request() -> None:
    tools = [{"type": "function", "name": "get_weather", "parameters": {}}]
    body = {
        "model": "gpt-test",
        "input": "Hi",
        "instructions": "Be brief.",
        "tools": tools,
        "previous_response_id": "resp_0",
        "conversation": "conv_1",
        "prompt": {"id": "pmpt_1"},
        "temperature": 0.2,
        "stream": False,
    }

    request = parse_request(body, extra={"path": PATH})

    assert request.input == "Hi"
    assert request.system_instructions == "Be brief."
    assert request.tools == tools
    assert request.previous_response_id == "resp_0"
    assert request.conversation_id == "conv_1"
    assert request.prompt == {"id": "pmpt_1"}
    assert request.model_settings == {"model": "gpt-test", "temperature": 0.2, "stream": False}
    assert request.extra == {"path": PATH}


def test_a_request_of_input_alone_has_nothing_else_and_an_empty_extra() -> None:
    request = parse_request(BODY)

    assert request.input == "Hi"
    assert request.system_instructions is None
    assert request.tools == []
    assert request.previous_response_id is None
    assert request.conversation_id is None
    assert request.prompt is None
    assert request.model_settings == {"model": "gpt-test"}
    assert request.extra == {}


def test_a_prompt_alone_is_a_request_with_no_input() -> None:
    request = parse_request({"model": "gpt-test", "prompt": {"id": "pmpt_1"}})

    assert request.input == []
    assert request.prompt == {"id": "pmpt_1"}


@pytest.mark.parametrize(
    ("conversation", "conversation_id"),
    [
        ("conv_1", "conv_1"),
        ({"id": "conv_2"}, "conv_2"),
        ({"name": "no id"}, None),
        ({"id": 3}, None),
        (4, None),
    ],
)
def test_a_conversation_is_read_as_its_id_when_it_is_text(
    conversation: Any, conversation_id: str | None
) -> None:
    request = parse_request({**BODY, "conversation": conversation})

    assert request.conversation_id == conversation_id
    assert "conversation" not in request.model_settings


def test_a_previous_response_id_that_is_not_text_reads_as_none() -> None:
    request = parse_request({**BODY, "previous_response_id": 5})

    assert request.previous_response_id is None
    assert "previous_response_id" not in request.model_settings


@pytest.mark.parametrize("tools", [None, [], {}, ""])
def test_tools_sent_empty_or_null_read_as_no_tools(tools: Any) -> None:
    assert parse_request({**BODY, "tools": tools}).tools == []


def invalid_body(detail: str) -> str:
    """The whole message of the endpoint's 400 for the first request's malformed body."""
    return (
        f"agents-testing: Scripted wire endpoint request #1 (request_index=0) POST {PATH}: "
        f"invalid body ({detail}); send the fields the provider's API requires."
    )


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({}, "the body has neither 'input' nor 'prompt'"),
        ({"input": None, "prompt": None}, "the body has neither 'input' nor 'prompt'"),
        ({"input": 5}, "'input' must be a string or a list of items"),
        ({"input": {"role": "user"}}, "'input' must be a string or a list of items"),
        ({"input": "Hi", "instructions": ["Be brief."]}, "'instructions' must be a string"),
        ({"input": "Hi", "tools": "get_weather"}, "'tools' must be a list"),
        ({"input": "Hi", "tools": {"name": "get_weather"}}, "'tools' must be a list"),
    ],
)
def test_a_malformed_request_is_a_400_whose_whole_message_names_the_field(
    body: dict[str, Any], detail: str
) -> None:
    model = ScriptedModel([[assistant_message("ok")]])

    response = post(ScriptedEndpoint(model), {"model": "gpt-test", **body})

    assert response.status == 400
    assert json.loads(response.body) == {
        "error": {
            "message": invalid_body(detail),
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    }
    assert not model.calls


# -- what the openai package reads ------------------------------------------------------------


def _every_shape() -> Iterator[dict[str, Any]]:
    """Every object and event the tests above send that the API itself would send."""
    output = [REASONING, assistant_message("Checking."), function_call("f", "{}", call_id="c1")]
    model = ScriptedModel(
        [
            ModelResponse(output=output, usage=USAGE),
            ModelResponse(output=output, usage=USAGE),
        ]
    )
    endpoint = ScriptedEndpoint(model)
    yield json.loads(post(endpoint, BODY).body)
    yield from events(post(endpoint, STREAM))
    failing = stream_failing_after([text_delta("Hi")], ScriptedHTTPError(429, "Slow down."))
    yield from events(post(ScriptedEndpoint(failing), STREAM))
    done = {"type": "response_done", "response": {"output": []}}
    late = stream_failing_after([done], ScriptedHTTPError(500, "Late."))
    yield from events(post(ScriptedEndpoint(late), STREAM))


def test_every_object_and_event_sent_is_valid_for_the_openai_package_types() -> None:
    types = pytest.importorskip("openai.types.responses")
    union = types.ResponseStreamEvent.__args__[0].__args__
    by_type = {member.model_fields["type"].annotation.__args__[0]: member for member in union}

    for shape in _every_shape():
        if shape.get("object") == "response":
            types.Response.model_validate(shape)
        else:
            by_type[shape["type"]].model_validate(shape)
