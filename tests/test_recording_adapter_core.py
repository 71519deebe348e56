"""The framework-free half of recording through a native adapter: ``ModelRecorder`` and the
request view ``adapter_request_body`` that recording and replay compare."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import (
    ModelRecorder,
    ModelRequest,
    ModelResponse,
    RecordedExchange,
    Recording,
    Replay,
    ReplayRequestDriftError,
    ScriptedHTTPError,
    Usage,
    adapter_request_body,
    assistant_message,
    load_recording,
    model_error,
    model_response,
)


@dataclasses.dataclass
class Tool:  # a framework's tool object: data, plus a function that is not data
    name: str
    description: str
    params_json_schema: dict[str, Any]
    on_invoke: Any = print


def request(prompt: str = "Hi?", **fields: Any) -> ModelRequest:
    return ModelRequest(
        [{"type": "message", "role": "user", "content": prompt}],
        system_instructions="Be brief.",
        **fields,
    )


def test_the_request_view_holds_what_the_model_is_told_and_no_function() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    body = adapter_request_body(
        request(
            tools=[Tool("get_weather", "Weather.", schema)],
            model_settings={"temperature": 0.0, "top_p": None, "client": object()},
            previous_response_id="resp_1",
        ),
        streamed=True,
    )

    assert body == {
        "instructions": "Be brief.",
        "input": [{"type": "message", "role": "user", "content": "Hi?"}],
        "tools": [{"name": "get_weather", "description": "Weather.", "parameters": schema}],
        "model_settings": {"temperature": 0.0},
        "previous_response_id": "resp_1",
        "stream": True,
    }


def test_an_openai_format_tool_dict_is_viewed_by_its_function() -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}

    assert adapter_request_body(request(tools=[tool]))["tools"] == [
        {"name": "f", "parameters": {"type": "object"}}
    ]


def test_a_tool_that_holds_no_data_is_left_out_and_the_call_still_records() -> None:
    schema = {"type": "object"}
    tools = [object(), Tool("lookup", "Find.", schema), print]
    recorder = ModelRecorder()

    body = adapter_request_body(request(tools=tools))
    recorder.add("native", request(tools=tools), model_response([assistant_message("ok")]))

    assert body["tools"] == [{"name": "lookup", "description": "Find.", "parameters": schema}]
    assert recorder.recording.requests[0]["body"]["tools"] == body["tools"]
    assert "tools" not in adapter_request_body(request(tools=[object()]))


def test_the_request_view_refuses_what_is_not_a_request() -> None:
    with pytest.raises(TypeError, match="request must be a ModelRequest, got dict"):
        adapter_request_body({"input": "Hi?"})  # type: ignore[arg-type]


def test_a_nesting_too_deep_or_a_cycle_is_left_out_not_a_recursion_error() -> None:
    looped: list[Any] = []
    looped.append(looped)

    body = adapter_request_body(request(model_settings={"loop": looped}))

    json.dumps(body)  # plain JSON data, whatever the input held


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


def without_none_values(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_none_values(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_none_values(item) for item in value]
    return value


@settings(max_examples=150, deadline=None)
@given(st.lists(json_values, max_size=4))
def test_any_json_input_is_viewed_as_itself_without_unset_fields(items: list[Any]) -> None:
    body = adapter_request_body(ModelRequest(items))

    assert body["input"] == without_none_values(items)
    assert json.loads(json.dumps(body)) == body


async def test_a_recorder_writes_the_adapter_requests_and_replays_them(tmp_path: Path) -> None:
    recorder = ModelRecorder(redact=[r"\d{4}-\d{4}"])
    answer = ModelResponse([assistant_message("Code 1234-5678.")], Usage(input_tokens=3))
    recorder.add("tiny", request("My code is 1234-5678?"), model_response(answer))
    path = recorder.recording.write(tmp_path / "tiny.py")
    module = load_recording(path)

    assert module.REQUESTS == [
        {
            "adapter": "tiny",
            "body": {
                "instructions": "Be brief.",
                "input": [{"type": "message", "role": "user", "content": "My code is [REDACTED]?"}],
            },
        }
    ]
    assert module.STEPS[0]["response"].output == [assistant_message("Code [REDACTED].")]
    assert "# call #1: tiny model (not streamed)" in path.read_text()
    assert "1234" not in path.read_text()

    # The replay redacts what is sent the same way before comparing it.
    replay = Replay.load(path, redact=[r"\d{4}-\d{4}"])
    replayed = await replay.model.get_response(request("My code is 1234-5678?"))
    assert replayed.output == [assistant_message("Code [REDACTED].")]
    replay.assert_complete()


async def test_a_replayed_adapter_call_is_compared_by_its_view(tmp_path: Path) -> None:
    recorder = ModelRecorder()
    recorder.add("tiny", request(), model_response([assistant_message("Hello.")]))
    replay = Replay.load(recorder.recording.write(tmp_path / "tiny.py"))

    with pytest.raises(ScriptedHTTPError) as answered:
        await replay.model.get_response(request("Bye?"))

    assert answered.value.status == 400
    (drift,) = replay.drifts
    assert (drift.path, drift.recorded, drift.sent) == ("input[0].content", "Hi?", "Bye?")


async def test_a_wire_call_against_an_adapter_recording_is_a_drift(tmp_path: Path) -> None:
    recorder = ModelRecorder()
    recorder.add("tiny", request(), model_response([assistant_message("Hello.")]))
    replay = Replay.load(recorder.recording.write(tmp_path / "tiny.py"))
    wire = ModelRequest("Hi?", extra={"body": {}, "path": "/v1/responses", "method": "POST"})

    with pytest.raises(ScriptedHTTPError):
        await replay.model.get_response(wire)

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()
    assert caught.value.recorded == "a call through the tiny adapter"
    assert caught.value.sent == "POST /v1/responses"


def test_an_http_error_is_recorded_with_its_status_message_and_retry_delay() -> None:
    class Response:
        headers: ClassVar[dict[str, str]] = {"Retry-After-Ms": "1500"}

    class RateLimited(Exception):
        status_code = 429
        body: ClassVar[dict[str, Any]] = {"error": {"message": "slow down"}}
        response = Response()

    recorder = ModelRecorder()
    recorder.add_error("tiny", request(), RateLimited())

    (step,) = recorder.recording.steps
    assert (step["error"].status, step["error"].message, step["error"].retry_after) == (
        429,
        "slow down",
        1.5,
    )
    assert recorder.recording.exchanges[0].status == 429


def test_an_error_without_a_status_is_a_warning_not_a_step() -> None:
    recorder = ModelRecorder()
    recorder.add_error("tiny", request(), TimeoutError("slow"))

    assert recorder.recording.steps == []
    assert recorder.recording.warnings == (
        "call #1 through the tiny adapter raised TimeoutError, which is not an HTTP error: "
        "not recorded, so the replay makes one call fewer",
    )


def test_the_recorder_refuses_bad_input_naming_it() -> None:
    recorder = ModelRecorder()
    step = model_response([assistant_message("Hi.")])
    with pytest.raises(TypeError, match="adapter must be the framework's name, got ''"):
        recorder.add("", request(), step)
    with pytest.raises(TypeError, match="request must be a ModelRequest, got str"):
        recorder.add("tiny", "Hi?", step)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"exchanges\[0\]\.step must be a recorded step"):
        recorder.add("tiny", request(), {"type": "responder"})
    with pytest.raises(TypeError, match="redact must be an iterable"):
        ModelRecorder(redact="sk-.*")
    assert recorder.recording.steps == []  # nothing refused was recorded
    recorder.add("tiny", request(), model_error(ScriptedHTTPError(503)))
    assert [exchange.status for exchange in recorder.recording.exchanges] == [503]


def test_an_exchange_with_bad_headers_is_refused() -> None:
    exchange = RecordedExchange(
        0, "POST", "/v1/messages", "anthropic.messages", {}, 200, False,
        model_response([]), headers={"anthropic-beta": 1},  # type: ignore[dict-item]
    )  # fmt: skip

    with pytest.raises(TypeError, match=r"exchanges\[0\]\.headers must map header names"):
        Recording([exchange])
