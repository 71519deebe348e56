"""The recording core without a network: the script writer, redaction and strict replay."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents_testing import (
    REDACTED,
    ModelRequest,
    ModelResponse,
    RecordedExchange,
    Recording,
    Replay,
    ReplayRequestDriftError,
    ScriptedHTTPError,
    UnconsumedModelStepsError,
    Usage,
    assistant_message,
    function_call,
    load_recording,
    model_error,
    model_response,
    model_stream,
)
from agents_testing._redaction import Redactor
from agents_testing.recording import _Comparison  # pyright: ignore[reportPrivateUsage]


def exchange(index: int, step: Any, body: Any = None, streamed: bool = False) -> RecordedExchange:
    return RecordedExchange(
        index,
        "POST",
        "/v1/responses",
        "openai.responses",
        {"model": "gpt-4.1", "input": f"turn {index}"} if body is None else body,
        200,
        streamed,
        step,
    )


def sample_recording() -> Recording:
    return Recording(
        [
            exchange(
                0, model_error(ScriptedHTTPError(429, "Slow down.", retry_after=1.5, code="x"))
            ),
            exchange(
                1,
                model_response(
                    ModelResponse(
                        [
                            assistant_message("Checking.", id="msg_1"),
                            function_call("lookup", '{"q": "spaced"}', call_id="c1", id="fc_1"),
                            function_call("lookup", {"q": "compact"}, call_id="c2"),
                            {"type": "reasoning", "id": "rs_1", "summary": []},
                        ],
                        Usage(
                            input_tokens=3,
                            output_tokens=4,
                            total_tokens=9,
                            input_tokens_details={"cached_tokens": 2},
                        ),
                        response_id="resp_1",
                    )
                ),
            ),
            exchange(2, model_stream([{"type": "response.created", "response": {"id": "r"}}])),
        ],
        redacted=["the authorization header: never recorded (sent with 3 requests)"],
    )


def test_the_script_is_a_module_whose_steps_equal_the_recorded_ones(tmp_path: Path) -> None:
    recording = sample_recording()
    path = recording.write(tmp_path / "nested" / "script.py")

    module = load_recording(path)

    assert recording.requests == module.REQUESTS
    assert len(module.STEPS) == 3
    error = module.STEPS[0]["error"]
    assert (error.status, error.message, error.retry_after, error.code) == (
        429,
        "Slow down.",
        1.5,
        "x",
    )
    response = module.STEPS[1]["response"]
    assert response == recording.steps[1]["response"]
    assert response.output[1]["arguments"] == '{"q": "spaced"}'  # not compact JSON: verbatim
    assert module.STEPS[2] == recording.steps[2]


def test_the_script_reads_as_the_library_helpers_with_a_header() -> None:
    source = sample_recording().source()

    assert source.startswith('"""A model run recorded by agents-testing')
    assert "- the authorization header: never recorded (sent with 3 requests)" in source
    assert 'assistant_message("Checking.", id="msg_1")' in source
    assert 'function_call("lookup", {"q": "compact"}, call_id="c2")' in source
    assert """function_call("lookup", '{"q": "spaced"}', call_id="c1", id="fc_1")""" in source
    assert 'model_error(ScriptedHTTPError(429, "Slow down.", retry_after=1.5, code="x"))' in source
    assert "# call #2: POST /v1/responses (openai.responses, not streamed, HTTP 200)" in source
    assert 'input_tokens_details={"cached_tokens": 2}' in source
    assert "total_tokens=9" in source
    compile(source, "script.py", "exec")


def test_a_number_without_a_literal_is_written_as_a_float_call(tmp_path: Path) -> None:
    body = {"a": float("inf"), "b": float("-inf"), "c": 1.5}
    recording = Recording([exchange(0, model_response([assistant_message("x")]), body)])

    requests = load_recording(recording.write(tmp_path / "script.py")).REQUESTS

    assert requests[0]["body"] == body
    # Written as a formatter would write it: double quotes, so formatting changes nothing.
    source = recording.source()
    assert '"a": float("inf")' in source
    assert '"b": float("-inf")' in source
    assert "float('" not in source


def test_the_same_recording_always_writes_the_same_text() -> None:
    assert sample_recording().source() == sample_recording().source()


def test_an_empty_recording_is_still_a_valid_script(tmp_path: Path) -> None:
    path = Recording([]).write(tmp_path / "empty.py")

    module = load_recording(path)

    assert (module.STEPS, module.REQUESTS) == ([], [])
    assert "- nothing" in path.read_text()


def test_steps_are_fresh_on_each_read() -> None:
    recording = sample_recording()
    first = recording.steps
    first[1]["response"].output.clear()

    assert len(recording.steps[1]["response"].output) == 4


def test_a_recording_keeps_copies_of_what_it_was_given() -> None:
    body = {"input": "hi"}
    step = model_response([assistant_message("hello")])
    recording = Recording([exchange(0, step, body)])
    body["input"] = "changed"
    step["response"].append(assistant_message("changed"))  # type: ignore[union-attr]  # a list here

    assert recording.exchanges[0].body == {"input": "hi"}
    assert len(recording.steps[0]["response"]) == 1
    with pytest.raises(TypeError, match=r"exchanges\[0\]\.body must be JSON data"):
        Recording([exchange(0, step, {"when": object()})])


def test_a_recording_refuses_what_is_not_an_exchange() -> None:
    with pytest.raises(TypeError, match=r"exchanges\[0\] must be a RecordedExchange, got dict"):
        Recording([{"index": 0}])  # type: ignore[list-item]  # on purpose


@pytest.mark.parametrize(
    "step",
    [
        model_error(ValueError("not an HTTP error")),
        {"type": "responder", "respond": print},
        [assistant_message("a bare list is not a step")],
    ],
)
def test_a_recording_refuses_a_step_it_cannot_write(step: Any) -> None:
    with pytest.raises(TypeError, match=r"exchanges\[0\]\.step must be a recorded step"):
        Recording([exchange(0, step)])


def test_load_recording_says_how_to_make_a_missing_script(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="--agents-testing-record"):
        load_recording(tmp_path / "missing.py")
    (tmp_path / "edited.py").write_text("STEPS = []\n")
    with pytest.raises(ValueError, match="has no REQUESTS list"):
        load_recording(tmp_path / "edited.py")


# -- comparison -----------------------------------------------------------------------------


def first_difference(recorded: Any, sent: Any, ignore: Any = ()) -> Any:
    return _Comparison(ignore).first_difference(recorded, sent)


def test_the_first_difference_names_its_path_and_both_values() -> None:
    recorded = {"input": [{"role": "user", "content": "a"}], "model": "m"}
    sent = {"input": [{"role": "user", "content": "b"}], "model": "m"}

    assert first_difference(recorded, sent) == ("input[0].content", "a", "b", "changed")


@pytest.mark.parametrize(
    ("recorded", "sent", "expected"),
    [
        ({"a": 1}, {}, ("a", 1, None, "missing")),
        ({}, {"a": 1}, ("a", None, 1, "added")),
        ([1], [1, 2], ("[1]", None, 2, "added")),
        ({"a": 1}, {"a": True}, ("a", 1, True, "changed")),
        ({"a": 1}, {"a": 1.0}, ("a", 1, 1.0, "changed")),
        ({"a.b": 1}, {"a.b": 2}, ('["a.b"]', 1, 2, "changed")),
        ({"x": {"y z": [0]}}, {"x": {"y z": [1]}}, ('x["y z"][0]', 0, 1, "changed")),
        ("a", ["a"], ("", "a", ["a"], "changed")),
    ],
)
def test_each_kind_of_difference(recorded: Any, sent: Any, expected: Any) -> None:
    assert first_difference(recorded, sent) == expected


def test_an_ignored_path_skips_its_whole_subtree_with_wildcards() -> None:
    recorded = {"input": [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}], "meta": {"t": 1}}
    sent = {"input": [{"id": "c", "text": "x"}, {"id": "d", "text": "y"}], "meta": {"t": 2}}

    assert first_difference(recorded, sent, ["input[*].id", "meta"]) is None
    assert first_difference(recorded, sent, ["input.*.id", "meta.t"]) is None
    assert first_difference(recorded, sent, ["input[0].id", "meta"]) == (
        "input[1].id",
        "b",
        "d",
        "changed",
    )


def test_an_ignore_function_sees_the_path_and_both_values() -> None:
    seen: list[tuple[str, Any, Any]] = []

    def skip_timestamps(path: str, recorded: Any, sent: Any) -> bool:
        seen.append((path, recorded, sent))
        return path.endswith("timestamp")

    result = first_difference({"timestamp": 1, "x": 1}, {"timestamp": 2, "x": 1}, [skip_timestamps])

    assert result is None
    assert ("timestamp", 1, 2) in seen


@pytest.mark.parametrize("bad", ["", "a..b", "[x]", "a[", "."])
def test_a_malformed_ignore_path_is_refused_with_an_example(bad: str) -> None:
    with pytest.raises(ValueError, match=r"ignore\[0\]"):
        Replay([], [], ignore=[bad])


def test_bad_replay_arguments_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"ignore\[0\] must be a field path"):
        Replay([], [], ignore=[3])  # type: ignore[list-item]  # on purpose
    with pytest.raises(TypeError, match="ignore must be an iterable"):
        Replay([], [], ignore="input")
    with pytest.raises(TypeError, match=r"requests\[0\] must be a mapping"):
        Replay([], ["POST /v1/responses"])  # type: ignore[list-item]  # on purpose
    with pytest.raises(TypeError, match="steps must be an iterable"):
        Replay(3, [])  # type: ignore[arg-type]  # on purpose
    with pytest.raises(TypeError, match="each recorded step must be"):
        Replay([3], [{}])  # type: ignore[list-item]  # on purpose


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=12,
)


@given(json_values, json_values)
def test_the_comparison_finds_a_difference_exactly_when_the_json_differs(a: Any, b: Any) -> None:
    found = first_difference(a, b)

    assert first_difference(a, copy.deepcopy(a)) is None
    assert (found is None) == (json.dumps(a) == json.dumps(b))


@given(st.text(max_size=20))
def test_any_ignore_text_is_a_path_or_a_value_error(pattern: str) -> None:
    try:
        Replay([], [], ignore=[pattern])
    except ValueError as error:
        message = str(error)
    else:
        message = "ignore[0] parsed"
    assert message.startswith("ignore[0]")


# -- redaction ------------------------------------------------------------------------------

SECRET = "sk-live-0123456789abcdef"


@given(
    st.text(alphabet="ab -", max_size=10),
    st.text(alphabet="ab -", max_size=10),
    st.lists(st.integers(min_value=0, max_value=60), max_size=6),
)
def test_a_secret_split_anywhere_across_pieces_is_redacted(
    before: str, after: str, cuts: list[int]
) -> None:
    text = f"{before}{SECRET}{after}"
    bounds = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    pieces = [text[start:end] for start, end in itertools.pairwise(bounds)]
    redactor = Redactor()
    redactor.learn_headers([("Authorization", f"Bearer {SECRET}")])

    redacted = redactor.pieces(pieces)

    assert len(redacted) == len(pieces)
    assert "".join(redacted) == f"{before}{REDACTED}{after}"


def test_patterns_and_header_credentials_are_redacted_and_counted() -> None:
    redactor = Redactor([r"\d{3}-\d{2}-\d{4}", re.compile("hunter2")])
    redactor.learn_headers([("x-api-key", SECRET), ("content-type", "application/json")])

    body = redactor.value({"input": [f"key {SECRET}", "ssn 123-45-6789", {"hunter2": "x"}]})

    assert body == {"input": [f"key {REDACTED}", f"ssn {REDACTED}", {REDACTED: "x"}]}
    assert redactor.describe() == [
        "the x-api-key header: never recorded (sent with 1 request)",
        "a credential from those headers: 1 occurrence in bodies or answers",
        "redact[0]: 1 match",
        "redact[1]: 1 match",
    ]


def test_a_short_header_value_is_not_taken_for_a_credential() -> None:
    redactor = Redactor()
    redactor.learn_headers([("x-api-key", "abc")])

    assert redactor.text("abc marks the spot") == "abc marks the spot"


# -- replay without a wire ------------------------------------------------------------------


def test_a_call_that_did_not_come_over_the_wire_cannot_be_compared() -> None:
    replay = Replay([[assistant_message("hi")]], [{"path": "/v1/responses", "body": {}}])

    with pytest.raises(ScriptedHTTPError):
        asyncio.run(replay.model.get_response(ModelRequest(input="hi")))
    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()

    assert (caught.value.call_index, caught.value.path) == (0, "")
    assert caught.value.sent == "a call that did not come over the wire"


def wire_request(body: Any, path: str = "/v1/responses") -> ModelRequest:
    return ModelRequest(input="hi", extra={"path": path, "body": body})


def test_a_step_without_a_recorded_request_is_a_drift() -> None:
    replay = Replay([[assistant_message("hi")]], [])

    with pytest.raises(ScriptedHTTPError):
        asyncio.run(replay.model.get_response(wire_request({})))

    assert replay.drifts[0].reason == "no_recorded_request"
    assert "has no recorded request" in str(replay.drifts[0])
    assert "add this call's request to REQUESTS" in str(replay.drifts[0])


def test_another_path_is_a_drift_of_the_whole_request() -> None:
    replay = Replay([[assistant_message("hi")]], [{"path": "/v1/responses", "body": {}}])

    with pytest.raises(ScriptedHTTPError):
        asyncio.run(replay.model.get_response(wire_request({}, "/v1/chat/completions")))

    drift = replay.drifts[0]
    assert (drift.path, drift.recorded, drift.sent) == (
        "",
        "POST /v1/responses",
        "POST /v1/chat/completions",
    )


def test_a_matching_replay_is_complete_only_when_every_step_was_used() -> None:
    requests = [{"path": "/v1/responses", "body": {"n": 1}}, {"path": "/v1/responses", "body": {}}]
    replay = Replay([[assistant_message("one")], [assistant_message("two")]], requests)

    response = asyncio.run(replay.model.get_response(wire_request({"n": 1})))

    assert response.output[0]["content"][0]["text"] == "one"
    with pytest.raises(UnconsumedModelStepsError):
        replay.__exit__(None, None, None)  # leaving its with block checks it


async def test_async_with_checks_the_replay_when_the_block_ends() -> None:
    requests = [{"path": "/v1/responses", "body": {}}]
    replay = Replay([[assistant_message("one")]], requests)

    async def drive() -> None:
        async with replay:
            with pytest.raises(ScriptedHTTPError):
                await replay.model.get_response(wire_request({"n": 2}))

    with pytest.raises(ReplayRequestDriftError):
        await drive()


def test_a_block_that_raised_is_not_checked_again() -> None:
    replay = Replay([[assistant_message("one")]], [{"path": "/v1/responses", "body": {}}])

    with pytest.raises(KeyError), replay:
        raise KeyError("the test's own failure")


def test_the_drift_error_message_states_missing_and_added_fields() -> None:
    missing = ReplayRequestDriftError(2, "tools", [1], None, "missing")
    added = ReplayRequestDriftError(0, "seed", None, 7, "added")

    whole = ReplayRequestDriftError(0, "", "POST /v1/responses", "POST /v1/messages")
    assert str(missing).startswith("Replayed call #3 (call_index=2) sent a request whose tools")
    assert str(whole).startswith(
        "Replayed call #1 (call_index=0) sent a request that differs from the recording: "
        "recorded 'POST /v1/responses', sent 'POST /v1/messages'."
    )
    assert "ignore=" not in str(whole)
    assert "recorded [1], sent nothing" in str(missing)
    assert "sent 7, recorded nothing" in str(added)
    assert "ignore=('seed',)" in str(added)


json_bodies = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=10,
)


@given(json_bodies, st.text(alphabet=st.characters(codec="utf-8"), max_size=30))
def test_any_json_body_and_text_round_trip_through_the_script(body: Any, text: str) -> None:
    step = model_response([assistant_message(text), {"type": "reasoning", "data": body}])
    recording = Recording([exchange(0, step, {"body": body})])
    namespace: dict[str, Any] = {}

    exec(compile(recording.source(), "script.py", "exec"), namespace)

    assert namespace["REQUESTS"] == recording.requests
    assert namespace["STEPS"][0]["response"] == recording.steps[0]["response"]


@given(json_bodies, st.booleans())
def test_any_json_arguments_round_trip_through_the_script(value: Any, compact: bool) -> None:
    # Compact JSON is written as data (easier to edit), other text as the string it is; a
    # JSON string stays text either way: function_call() would keep "s" as s.
    separators = (",", ":") if compact else None
    arguments = json.dumps(value, separators=separators, ensure_ascii=False)
    step = model_response([function_call("lookup", arguments, call_id="c1")])
    namespace: dict[str, Any] = {}

    exec(compile(Recording([exchange(0, step)]).source(), "script.py", "exec"), namespace)

    assert namespace["STEPS"][0]["response"][0]["arguments"] == arguments


def test_json_string_arguments_are_written_as_the_text_they_are() -> None:
    step = model_response([function_call("lookup", '"Paris"', call_id="c1")])

    source = Recording([exchange(0, step)]).source()

    assert """function_call("lookup", '"Paris"', call_id="c1")""" in source


def test_an_empty_list_is_written_as_brackets_on_one_line() -> None:
    steps = [
        model_response([]),
        model_stream([]),
        model_response(ModelResponse([], Usage())),
    ]

    source = Recording([exchange(index, step) for index, step in enumerate(steps)]).source()

    assert "    model_response(\n        [],\n    ),\n" in source
    assert "    model_stream(\n        [],\n    ),\n" in source
    assert "        ModelResponse(\n            [],\n            Usage(" in source
    assert "[\n" not in source.partition("REQUESTS")[0].replace("STEPS = [\n", "")
