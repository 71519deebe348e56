"""Record-to-script behaviors that mutation testing found no test pinned.

The script's layout at the width limit, the bytes ``Recording.write`` leaves on disk, the
copies a ``Recording`` keeps and the messages it refuses with, the request view an adapter
recording compares (``adapter_request_body``), and what ``ModelRecorder`` keeps of each call:
the redacted step, the status, the message and retry delay of an HTTP error.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agents_testing import (
    ModelRecorder,
    ModelRequest,
    ModelResponse,
    RecordedExchange,
    Recording,
    Replay,
    ScriptedHTTPError,
    Usage,
    adapter_request_body,
    assistant_message,
    model_error,
    model_response,
    model_stream,
)


def wire_exchange(
    index: int,
    step: Any,
    body: Any,
    *,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> RecordedExchange:
    return RecordedExchange(
        index, "POST", "/v1/responses", "openai.responses", body, status, False, step,
        headers=headers,
    )  # fmt: skip


def error_fields(error: BaseException) -> tuple[Any, ...]:
    assert isinstance(error, ScriptedHTTPError)
    return (error.status, error.message, error.retry_after, error.error_type, error.code)


def plain_error_step(step: Mapping[str, Any]) -> dict[str, Any]:
    """Return an error step with its error as its fields, so the whole step compares."""
    return {**step, "error": error_fields(step["error"])}


# -- the script's layout --------------------------------------------------------------------

HEADER = '''"""A model run recorded by agents-testing: review it, then edit it like any script.

{count} model calls. STEPS holds the step each call got, REQUESTS what
each call sent. Replay it with agents_testing.Replay.load(this file); record it
again with pytest --agents-testing-record.

Redacted (each secret replaced with '[REDACTED]'):
- nothing
"""
'''


# How each string is quoted: as Black would, double quotes unless the text holds one.
QUOTES_LINE = """"quotes": ['it\\'s "q"', "it's", 'say "hi"', "plain", "tab\\there", {}],"""


def small_request(number: int) -> str:
    return (
        f"    # call #{number + 1}\n"
        "    {\n"
        '        "method": "POST",\n'
        '        "path": "/v1/responses",\n'
        '        "wire_format": "openai.responses",\n'
        f'        "body": {{"n": {number}}},\n'
        "    },\n"
    )


def test_values_and_calls_fill_a_line_up_to_88_characters_then_split() -> None:
    # Each pair differs by one character at the limit: the first fills its line to exactly
    # 88 characters (its trailing comma included), the second is one over and is split.
    body = {
        "fit": ["x" * 64],
        "cut": ["y" * 65],
        "rows": [["a" * 67], ["b" * 68]],
        "deep": {"kept": {"on": "one line", "and": 2}, "split": {"items": [1, "q" * 70]}},
        "values": [None, True, 3, 0.5, []],
        "quotes": ['it\'s "q"', "it's", 'say "hi"', "plain", "tab\there", {}],
        "long": "z" * 90,
    }
    errors = [ScriptedHTTPError(500)] + [
        ScriptedHTTPError(429, "m" * length) for length in (44, 45, 53, 54)
    ]
    recording = Recording(
        wire_exchange(
            number, model_error(error), body if number == 0 else {"n": number}, status=error.status
        )
        for number, error in enumerate(errors)
    )

    status = "(openai.responses, not streamed, HTTP {})"
    assert recording.source() == (
        HEADER.format(count=5)
        + "\n"
        + "from agents_testing import ScriptedHTTPError, model_error\n"
        + "\n"
        + "STEPS = [\n"
        + f"    # call #1: POST /v1/responses {status.format(500)}\n"
        + "    model_error(ScriptedHTTPError(500)),\n"
        + f"    # call #2: POST /v1/responses {status.format(429)}\n"
        + f'    model_error(ScriptedHTTPError(429, "{"m" * 44}")),\n'
        + f"    # call #3: POST /v1/responses {status.format(429)}\n"
        + "    model_error(\n"
        + f'        ScriptedHTTPError(429, "{"m" * 45}"),\n'
        + "    ),\n"
        + f"    # call #4: POST /v1/responses {status.format(429)}\n"
        + "    model_error(\n"
        + f'        ScriptedHTTPError(429, "{"m" * 53}"),\n'
        + "    ),\n"
        + f"    # call #5: POST /v1/responses {status.format(429)}\n"
        + "    model_error(\n"
        + "        ScriptedHTTPError(\n"
        + "            429,\n"
        + f'            "{"m" * 54}",\n'
        + "        ),\n"
        + "    ),\n"
        + "]\n"
        + "\n"
        + "REQUESTS = [\n"
        + "    # call #1\n"
        + "    {\n"
        + '        "method": "POST",\n'
        + '        "path": "/v1/responses",\n'
        + '        "wire_format": "openai.responses",\n'
        + '        "body": {\n'
        + f'            "fit": ["{"x" * 64}"],\n'
        + '            "cut": [\n'
        + f'                "{"y" * 65}",\n'
        + "            ],\n"
        + '            "rows": [\n'
        + f'                ["{"a" * 67}"],\n'
        + "                [\n"
        + f'                    "{"b" * 68}",\n'
        + "                ],\n"
        + "            ],\n"
        + '            "deep": {\n'
        + '                "kept": {"on": "one line", "and": 2},\n'
        + '                "split": {\n'
        + '                    "items": [\n'
        + "                        1,\n"
        + f'                        "{"q" * 70}",\n'
        + "                    ],\n"
        + "                },\n"
        + "            },\n"
        + '            "values": [None, True, 3, 0.5, []],\n'
        + f"            {QUOTES_LINE}\n"
        + f'            "long": "{"z" * 90}",\n'
        + "        },\n"
        + "    },\n"
        + "".join(small_request(number) for number in range(1, 5))
        + "]\n"
    )


def test_numbers_without_a_literal_and_none_are_written_so_they_read_back() -> None:
    body = {"values": [None, float("inf"), float("-inf"), float("nan"), 0.25]}
    recording = Recording([wire_exchange(0, model_response([]), body)])
    namespace: dict[str, Any] = {}

    exec(compile(recording.source(), "script.py", "exec"), namespace)

    read_back = namespace["REQUESTS"][0]["body"]
    assert json.dumps(read_back) == '{"values": [null, Infinity, -Infinity, NaN, 0.25]}'


def test_write_makes_every_missing_folder_and_writes_the_source_as_utf8(tmp_path: Path) -> None:
    step = model_response([assistant_message("Grüße aus 東京, ½ Stunde")])
    recording = Recording([wire_exchange(0, step, {"input": "naïve café"})])
    target = tmp_path / "one" / "two" / "three" / "script.py"

    written = recording.write(str(target))

    assert written == target
    assert target.read_bytes() == recording.source().encode("utf-8")
    assert "Grüße aus 東京, ½ Stunde".encode() in target.read_bytes()  # as text, not escaped


def test_write_replaces_a_script_in_a_folder_that_exists(tmp_path: Path) -> None:
    first = Recording([wire_exchange(0, model_response([assistant_message("one")]), {})])
    second = Recording([wire_exchange(0, model_response([assistant_message("two")]), {})])
    target = tmp_path / "script.py"

    first.write(target)
    written = second.write(target)

    assert written == target
    assert target.read_bytes() == second.source().encode("utf-8")


# -- what a Recording keeps, and what it refuses ---------------------------------------------


def test_a_recording_keeps_copies_with_header_names_in_lowercase() -> None:
    given = RecordedExchange(
        3, "POST", "/v1/messages", "anthropic.messages", {"max_tokens": 5}, 200, True,
        model_stream([{"type": "ping"}]),
        headers={"Anthropic-Version": "2023-06-01", "OPENAI-BETA": "assistants=v2"},
    )  # fmt: skip

    recording = Recording(iter([given]), redacted=iter(["a", "b"]), warnings=("w",))
    given.step["events"].append({"type": "added later"})
    given.headers["openai-beta"] = "changed"  # type: ignore[index]  # a dict here

    assert recording.exchanges == (
        RecordedExchange(
            3, "POST", "/v1/messages", "anthropic.messages", {"max_tokens": 5}, 200, True,
            {"type": "stream", "events": [{"type": "ping"}]},
            headers={"anthropic-version": "2023-06-01", "openai-beta": "assistants=v2"},
        ),
    )  # fmt: skip
    assert recording.exchanges[0].body is not given.body
    assert (recording.redacted, recording.warnings) == (("a", "b"), ("w",))
    assert repr(recording) == "<Recording exchanges=1>"
    assert recording.requests == [
        {
            "method": "POST",
            "path": "/v1/messages",
            "wire_format": "anthropic.messages",
            "headers": {"anthropic-version": "2023-06-01", "openai-beta": "assistants=v2"},
            "body": {"max_tokens": 5},
        }
    ]


STEP_REFUSED = (
    "exchanges[1].step must be a recorded step: model_response() of a list or a "
    "ModelResponse, model_error() of a ScriptedHTTPError, or model_stream() of a list of "
    "events; got "
)
CYCLE: list[Any] = []
CYCLE.append(CYCLE)


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ({"index": 1}, "exchanges[1] must be a RecordedExchange, got dict"),
        (
            wire_exchange(1, {"type": "responder", "respond": print}, {}),
            STEP_REFUSED + "a 'responder' step",
        ),
        (wire_exchange(1, {"response": []}, {}), STEP_REFUSED + "a None step"),
        (wire_exchange(1, [assistant_message("bare")], {}), STEP_REFUSED + "list"),
        (
            # The mapping form of a response is a valid script step, but not a recorded one.
            wire_exchange(1, model_response({"output": [], "usage": Usage()}), {}),
            STEP_REFUSED + "a 'response' step",
        ),
        (
            wire_exchange(1, model_stream(({"type": "ping"},)), {}),
            STEP_REFUSED + "a 'stream' step",
        ),
        (
            wire_exchange(1, model_error(TimeoutError("slow")), {}),
            STEP_REFUSED + "a 'error' step",
        ),
        (
            wire_exchange(1, model_response([]), {"when": object()}),
            "exchanges[1].body must be JSON data: Object of type object is not JSON serializable",
        ),
        (
            wire_exchange(1, model_response([]), {"loop": CYCLE}),
            "exchanges[1].body must be JSON data: Circular reference detected",
        ),
        (
            wire_exchange(1, model_response([]), {}, headers={"openai-beta": 2}),  # type: ignore[dict-item]
            "exchanges[1].headers must map header names to values (str to str), got dict",
        ),
        (
            wire_exchange(1, model_response([]), {}, headers={1: "x"}),  # type: ignore[dict-item]
            "exchanges[1].headers must map header names to values (str to str), got dict",
        ),
        (
            wire_exchange(1, model_response([]), {}, headers=[("openai-beta", "x")]),  # type: ignore[arg-type]
            "exchanges[1].headers must map header names to values (str to str), got list",
        ),
    ],
)
def test_a_recording_refuses_an_exchange_naming_its_position(second: Any, message: str) -> None:
    first = wire_exchange(0, model_response([assistant_message("fine")]), {})

    with pytest.raises(TypeError) as refused:
        Recording([first, second])

    assert str(refused.value) == message


def test_steps_copy_every_field_of_what_was_recorded() -> None:
    usage = Usage(
        requests=2,
        input_tokens=5,
        output_tokens=7,
        total_tokens=20,
        input_tokens_details={"cached_tokens": 1},
        output_tokens_details={"reasoning_tokens": 3},
    )
    response = ModelResponse(
        [assistant_message("Hi.")], usage, "resp_9", "req_9", {"p": 1}, {"raw": 2}
    )
    error = ScriptedHTTPError(503, "down", retry_after=2.5, error_type="overloaded", code="c1")
    events = [{"type": "response.output_text.delta", "delta": "Hi"}]
    recording = Recording(
        [
            wire_exchange(0, model_response(response), {}),
            wire_exchange(1, {"type": "error", "error": error, "retry_advice": print}, {}),
            wire_exchange(2, model_response([assistant_message("listed")]), {}),
            wire_exchange(3, model_stream(events), {}),
        ]
    )

    steps = recording.steps

    assert steps[0] == {
        "type": "response",
        "response": ModelResponse(
            [assistant_message("Hi.")],
            Usage(
                requests=2,
                input_tokens=5,
                output_tokens=7,
                total_tokens=20,
                input_tokens_details={"cached_tokens": 1},
                output_tokens_details={"reasoning_tokens": 3},
            ),
            "resp_9",
            "req_9",
            {"p": 1},
            {"raw": 2},
        ),
    }
    assert steps[0]["response"].usage is not usage
    steps[0]["response"].output.append(assistant_message("changed"))
    response.output.append(assistant_message("changed"))
    assert recording.steps[0]["response"].output == [assistant_message("Hi.")]
    assert plain_error_step(steps[1]) == {
        "type": "error",
        "error": (503, "down", 2.5, "overloaded", "c1"),
        "retry_advice": None,
    }
    assert type(steps[1]["error"]) is ScriptedHTTPError
    assert steps[1]["error"] is not error
    assert steps[2:] == [
        {"type": "response", "response": [assistant_message("listed")]},
        {"type": "stream", "events": events},
    ]
    assert steps[3]["events"] is not events


# -- the request view an adapter recording compares -----------------------------------------


@dataclasses.dataclass
class AgentTool:  # an openai-agents FunctionTool: data, and a function that is not data
    name: str
    description: str
    params_json_schema: dict[str, Any]
    on_invoke_tool: Any = print


class AttributeTool:  # a pydantic-ai ToolDefinition-like object: attributes, no mapping
    def __init__(self, name: Any, description: Any, **schemas: Any) -> None:
        self.name = name
        self.description = description
        for key, schema in schemas.items():
            setattr(self, key, schema)


def test_a_request_with_only_input_is_viewed_as_its_input() -> None:
    assert adapter_request_body(ModelRequest("Hi")) == {"input": "Hi"}


def test_the_request_view_holds_every_field_that_is_set() -> None:
    request = ModelRequest(
        [{"type": "message", "role": "user", "content": "Hi", "id": None}],
        system_instructions="Be brief.",
        model_settings={"temperature": 0.5, "top_p": None},
        tools=[AgentTool("weather", "Weather.", {"type": "object"})],
        handoffs=[{"tool_name": "transfer_to_billing"}],
        previous_response_id="resp_1",
        conversation_id="conv_1",
    )

    assert adapter_request_body(request, streamed=True) == {
        "instructions": "Be brief.",
        "input": [{"type": "message", "role": "user", "content": "Hi"}],
        "tools": [{"name": "weather", "description": "Weather.", "parameters": {"type": "object"}}],
        "handoffs": ["transfer_to_billing"],
        "model_settings": {"temperature": 0.5},
        "previous_response_id": "resp_1",
        "conversation_id": "conv_1",
        "stream": True,
    }


def test_each_kind_of_tool_is_viewed_by_its_name_description_and_schema() -> None:
    tools = [
        {"type": "function", "function": {"name": "f", "description": "F.", "parameters": {}}},
        {"name": "lc", "description": 5, "parameters": "not a schema"},
        AttributeTool("pa", "PA.", parameters_json_schema={"first": 1}, parameters={"last": 2}),
        AttributeTool("late", None, params_json_schema=None, parameters={"found": 3}),
        {"name": 7, "kind": "a name that is not text"},
        {"no": "name"},
    ]

    assert adapter_request_body(ModelRequest("Hi", tools=tools))["tools"] == [
        {"name": "f", "description": "F.", "parameters": {}},
        {"name": "lc"},
        {"name": "pa", "description": "PA.", "parameters": {"first": 1}},
        {"name": "late", "parameters": {"found": 3}},
        {"name": 7, "kind": "a name that is not text"},  # not a tool: its data
        {"no": "name"},
    ]


@pytest.mark.parametrize("tools", ["weather", None])
def test_tools_that_are_not_a_list_of_tools_are_left_out(tools: Any) -> None:
    assert adapter_request_body(ModelRequest("Hi", tools=tools)) == {"input": "Hi"}


def test_the_request_view_refuses_what_is_not_a_request_naming_its_type() -> None:
    with pytest.raises(TypeError) as refused:
        adapter_request_body({"input": "Hi"})  # type: ignore[arg-type]  # on purpose

    assert str(refused.value) == "request must be a ModelRequest, got dict"


class DumpsItsCall:  # a pydantic model as the view sees one: model_dump(mode=, exclude_none=)
    def __init__(self, data: Any) -> None:
        self.data = data

    def model_dump(self, *, mode: str = "python", exclude_none: bool = False) -> Any:
        return {"mode": mode, "exclude_none": exclude_none, "data": self.data}


class Dumps:
    def __init__(self, dumped: Any) -> None:
        self.dumped = dumped

    def model_dump(self, **options: Any) -> Any:
        return self.dumped


class CannotDump:
    def model_dump(self, **options: Any) -> Any:
        raise ValueError("not serializable")


@dataclasses.dataclass
class Settings:
    temperature: float
    tags: tuple[str, ...]
    never_set: str = dataclasses.field(init=False)
    hook: Any = print


def test_framework_objects_become_their_data_and_the_rest_is_left_out() -> None:
    settings: dict[Any, Any] = {
        "float": 0.5,
        "inf": float("inf"),
        "-inf": float("-inf"),
        "nan": float("nan"),
        "tuple": (1, "a", True),
        "unset": None,
        "function": print,
        "object": object(),
        7: "a key that is not text",
        "list": [print, 1, None],
        "model": DumpsItsCall({"k": (1,)}),
        "model class": DumpsItsCall,
        "broken model": CannotDump(),
        "dataclass": Settings(0.25, ("x",)),
        "dataclass class": Settings,
    }

    assert adapter_request_body(ModelRequest("Hi", model_settings=settings)) == {
        "input": "Hi",
        "model_settings": {
            "float": 0.5,
            "inf": "inf",
            "-inf": "-inf",
            "nan": "nan",
            "tuple": [1, "a", True],
            "7": "a key that is not text",
            "list": [None, 1, None],
            "model": {"mode": "json", "exclude_none": True, "data": {"k": [1]}},
            "dataclass": {"temperature": 0.25, "tags": ["x"]},
        },
    }


def in_lists(depth: int, innermost: Any) -> Any:
    """Return ``innermost`` inside ``depth`` nested one-item lists (at that depth)."""
    value = innermost
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("sent", "viewed"),
    [
        # The view keeps data down to 200 levels below the input and cuts what is deeper.
        (in_lists(200, "leaf"), in_lists(200, "leaf")),
        (in_lists(201, "leaf"), in_lists(201, None)),
        (in_lists(199, {"k": "leaf"}), in_lists(199, {"k": "leaf"})),
        (in_lists(200, {"k": "leaf"}), in_lists(200, {})),
        # A model's dump is one level below the model, a dataclass's fields two.
        (in_lists(199, Dumps("leaf")), in_lists(199, "leaf")),
        (in_lists(200, Dumps("leaf")), in_lists(200, None)),
        (in_lists(198, Settings(0.5, ())), in_lists(198, {"temperature": 0.5, "tags": []})),
        (in_lists(199, Settings(0.5, ())), in_lists(199, {})),
    ],
)
def test_the_view_cuts_data_nested_deeper_than_200_levels(sent: Any, viewed: Any) -> None:
    assert adapter_request_body(ModelRequest(sent)) == {"input": viewed}


def test_a_mapping_that_holds_itself_is_cut_at_200_levels() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = looped

    viewed: dict[str, Any] = {}
    for _ in range(199):
        viewed = {"self": viewed}
    assert adapter_request_body(ModelRequest("Hi", model_settings=looped)) == {
        "input": "Hi",
        "model_settings": {"self": viewed},
    }


# -- ModelRecorder ---------------------------------------------------------------------------


def test_the_recorder_keeps_each_call_in_order_with_its_view_status_and_step() -> None:
    recorder = ModelRecorder()
    error = ScriptedHTTPError(503, "busy", retry_after=1, error_type="overloaded", code="c")

    recorder.add("tiny", ModelRequest("one"), model_response([assistant_message("1")]))
    recorder.add("tiny", ModelRequest("two"), model_stream([{"type": "ping"}]), streamed=True)
    recorder.add("other", ModelRequest("three"), model_error(error))

    first, second, third = recorder.recording.exchanges
    assert (first, second) == (
        RecordedExchange(
            0, "", "", "", {"input": "one"}, 200, False,
            {"type": "response", "response": [assistant_message("1")]}, "tiny",
        ),
        RecordedExchange(
            1, "", "", "", {"input": "two", "stream": True}, 200, True,
            {"type": "stream", "events": [{"type": "ping"}]}, "tiny",
        ),
    )  # fmt: skip
    assert dataclasses.replace(third, step=None) == RecordedExchange(
        2, "", "", "", {"input": "three"}, 503, False, None, "other"
    )
    assert plain_error_step(third.step) == {
        "type": "error",
        "error": (503, "busy", 1, "overloaded", "c"),
        "retry_advice": None,
    }
    assert repr(recorder) == "<ModelRecorder exchanges=3>"


@pytest.mark.parametrize(
    ("adapter", "request_", "step", "message"),
    [
        (3, ModelRequest("Hi"), None, "adapter must be the framework's name, got 3"),
        ("", ModelRequest("Hi"), None, "adapter must be the framework's name, got ''"),
        ("tiny", "Hi?", None, "request must be a ModelRequest, got str"),
        ("tiny", ModelRequest("Hi"), {"type": "responder"}, STEP_REFUSED + "a 'responder' step"),
    ],
)
def test_the_recorder_refuses_a_call_naming_what_is_wrong(
    adapter: Any, request_: Any, step: Any, message: str
) -> None:
    recorder = ModelRecorder()
    recorder.add("tiny", ModelRequest("first"), model_response([]))

    with pytest.raises(TypeError) as refused:
        recorder.add(adapter, request_, step or model_response([]))

    assert str(refused.value) == message
    assert len(recorder.recording.exchanges) == 1


def test_the_recorder_redacts_every_text_of_each_kind_of_step() -> None:
    recorder = ModelRecorder(redact=[r"sk-\w+"])
    answer = ModelResponse(
        [assistant_message("use sk-two")], Usage(input_tokens=1), response_id="resp_sk-three"
    )
    recorder.add("tiny", ModelRequest("key sk-one"), model_response(answer))
    recorder.add("tiny", ModelRequest("x"), model_response([assistant_message("sk-four")]))
    recorder.add("tiny", ModelRequest("x"), model_stream([{"type": "d", "delta": "sk-five"}]))
    unauthorized = ScriptedHTTPError(
        401, "bad key sk-six", retry_after=3, error_type="auth", code="invalid_key"
    )
    recorder.add("tiny", ModelRequest("x"), model_error(unauthorized))
    recorder.add("tiny", ModelRequest("x"), model_error(ScriptedHTTPError(500)))
    recorder.add("tiny", ModelRequest("x"), model_response(ModelResponse([], Usage())))
    recorder.warn("saw sk-seven")

    recording = recorder.recording

    assert [exchange.body for exchange in recording.exchanges] == [
        {"input": "key [REDACTED]"},
        *[{"input": "x"}] * 5,
    ]
    steps = recording.steps
    assert steps[:3] == [
        {
            "type": "response",
            "response": ModelResponse(
                [assistant_message("use [REDACTED]")],
                Usage(input_tokens=1),
                response_id="resp_[REDACTED]",
            ),
        },
        {"type": "response", "response": [assistant_message("[REDACTED]")]},
        {"type": "stream", "events": [{"type": "d", "delta": "[REDACTED]"}]},
    ]
    assert [plain_error_step(step) for step in steps[3:5]] == [
        {
            "type": "error",
            "error": (401, "bad key [REDACTED]", 3, "auth", "invalid_key"),
            "retry_advice": None,
        },
        {"type": "error", "error": (500, None, None, None, None), "retry_advice": None},
    ]
    assert steps[5] == {"type": "response", "response": ModelResponse([], Usage())}
    assert recording.warnings == ("saw [REDACTED]",)
    assert recording.redacted == ("redact[0]: 7 matches",)


def test_a_warning_is_kept_as_text() -> None:
    recorder = ModelRecorder()

    recorder.warn(Path("not text"))  # type: ignore[arg-type]  # on purpose

    assert recorder.recording.warnings == ("not text",)


class StatusError(Exception):
    """A provider client's status error, with the attributes the recorder reads."""

    def __init__(self, status_code: Any, **attributes: Any) -> None:
        super().__init__("the provider answered with an error")
        self.status_code = status_code
        for name, value in attributes.items():
            setattr(self, name, value)


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"body": {"message": "top"}}, "top"),
        ({"body": {"error": {"message": "nested"}, "message": "top"}}, "nested"),
        ({"body": {"error": {"message": 5}, "message": "top"}, "message": "own"}, "own"),
        ({"body": {"error": "text", "message": "top"}}, "top"),
        ({"body": "plain text", "message": "own"}, "own"),
        ({"message": "own"}, "own"),
        ({"body": {"message": 7}}, None),
        ({"message": 42}, None),
        ({}, None),
    ],
)
def test_an_http_error_is_recorded_with_the_message_its_body_or_itself_gives(
    attributes: dict[str, Any], message: str | None
) -> None:
    recorder = ModelRecorder()

    recorder.add_error("tiny", ModelRequest("Hi"), StatusError(429, **attributes))

    (exchange,) = recorder.recording.exchanges
    assert (exchange.status, exchange.streamed, exchange.body) == (429, False, {"input": "Hi"})
    assert plain_error_step(exchange.step) == {
        "type": "error",
        "error": (429, message, None, None, None),
        "retry_advice": None,
    }


@pytest.mark.parametrize("status", [400, 599])
def test_an_error_status_from_400_to_599_is_an_http_error(status: int) -> None:
    recorder = ModelRecorder()

    recorder.add_error("tiny", ModelRequest("Hi"), StatusError(status), streamed=True)

    (exchange,) = recorder.recording.exchanges
    assert (exchange.status, exchange.streamed, exchange.body) == (
        status,
        True,
        {"input": "Hi", "stream": True},
    )
    assert error_fields(exchange.step["error"]) == (status, None, None, None, None)
    assert recorder.recording.warnings == ()


@pytest.mark.parametrize("status", [399, 600, True, "429", None])
def test_an_error_without_an_http_error_status_is_a_warning(status: Any) -> None:
    recorder = ModelRecorder()
    recorder.add("tiny", ModelRequest("first"), model_response([]))

    recorder.add_error("tiny", ModelRequest("Hi"), StatusError(status))

    assert len(recorder.recording.exchanges) == 1
    assert recorder.recording.warnings == (
        "call #2 through the tiny adapter raised StatusError, which is not an HTTP error: "
        "not recorded, so the replay makes one call fewer",
    )


class Response:
    def __init__(self, **fields: Any) -> None:
        for name, value in fields.items():
            setattr(self, name, value)


@pytest.mark.parametrize(
    ("attributes", "retry_after"),
    [
        ({"response": Response(headers={"retry-after-ms": "1500"})}, 1.5),
        ({"response": Response(headers={"Retry-After": "2"})}, 2),
        ({"response": Response(headers={"retry-after": "2.0"})}, 2),
        ({"response": Response(headers={"retry-after": "1.25"})}, 1.25),
        ({"response": Response(headers={"RETRY-AFTER-MS": "2000", "retry-after": "7"})}, 2),
        ({"response": Response(headers={"retry-after-ms": "soon", "retry-after": "3"})}, 3),
        ({"response": Response(headers={"retry-after-ms": None, "retry-after": "0.5"})}, 0.5),
        ({"response": Response(headers={"retry-after-ms": "inf", "retry-after": "4"})}, 4),
        ({"response": Response(headers={"retry-after": "0"})}, 0),
        ({"response": Response(headers={"retry-after": "-1"})}, None),
        ({"response": Response(headers={"retry-after": "inf"})}, None),
        ({"response": Response(headers={"retry-after": "nan"})}, None),
        ({"response": Response(headers=[("retry-after", "2")])}, None),
        ({"response": Response()}, None),
        ({}, None),
    ],
)
def test_an_http_errors_retry_delay_is_read_from_its_response_headers(
    attributes: dict[str, Any], retry_after: float | None
) -> None:
    recorder = ModelRecorder()

    recorder.add_error("tiny", ModelRequest("Hi"), StatusError(429, **attributes))

    recorded = recorder.recording.steps[0]["error"].retry_after
    assert (recorded, type(recorded)) == (retry_after, type(retry_after))


# -- Replay's arguments ---------------------------------------------------------------------


NOT_A_LIST = " must be an iterable (a tuple or list) of entries, got "


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"steps": 3, "requests": []}, "steps" + NOT_A_LIST + "int"),
        ({"steps": [], "requests": "POST"}, "requests" + NOT_A_LIST + "str"),
        ({"steps": [], "requests": [], "ignore": b"id"}, "ignore" + NOT_A_LIST + "bytes"),
        (
            {"steps": [], "requests": [], "ignore": re.compile("id")},
            "ignore" + NOT_A_LIST + "Pattern",
        ),
    ],
)
def test_replay_refuses_what_is_not_a_list_naming_the_argument(
    arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError) as refused:
        Replay(**arguments)

    assert str(refused.value) == message


def test_replay_takes_any_iterable_of_steps_and_requests() -> None:
    replay = Replay(iter([[assistant_message("Hi")]]), iter([{"path": "/v1/responses"}]))

    assert repr(replay) == "<Replay steps=1 drifts=0>"


def test_calls_recorded_at_once_are_indexed_in_the_order_they_were_kept() -> None:
    recorder = ModelRecorder()
    viewing = threading.Event()
    release = threading.Event()

    class SlowToView:  # holds the first call inside its request view until released
        def model_dump(self, **options: Any) -> Any:
            viewing.set()
            release.wait()
            return "slow"

    def record_the_slow_call() -> None:
        try:
            recorder.add("tiny", ModelRequest([SlowToView()]), model_response([]))
        finally:
            viewing.set()  # the test goes on even if the view was never taken

    slow = threading.Thread(target=record_the_slow_call)
    slow.start()
    viewing.wait()
    recorder.add("tiny", ModelRequest("quick"), model_response([]))
    release.set()
    slow.join()

    assert [(exchange.index, exchange.body) for exchange in recorder.recording.exchanges] == [
        (0, {"input": "quick"}),
        (1, {"input": ["slow"]}),
    ]
