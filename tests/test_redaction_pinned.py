"""Redaction by patterns, pinned exactly through ``ModelRecorder``.

Every ``redact=`` of the library goes through the same redactor; ``ModelRecorder`` reaches
all of it without a network: the recorded request body, the response output, error messages,
warnings, streamed events, and the header lines that say what was redacted. The credentials
a request's headers carry are learned only by ``RecordingProxy``: its own pinned tests cover
them (``tests/wire/test_recording_proxy_pinned.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from agents_testing import (
    ModelRecorder,
    ModelRequest,
    ModelResponse,
    RedactPattern,
    ScriptedHTTPError,
    Usage,
    model_error,
    model_response,
    model_stream,
)

ACCOUNT = r"ACCT-\d{8}"


def record_one(redact: Iterable[RedactPattern], step: Any, prompt: Any = "hello") -> ModelRecorder:
    recorder = ModelRecorder(redact=redact)
    recorder.add("pinned", ModelRequest(prompt), step)
    return recorder


def refusal(redact: Any) -> BaseException:
    with pytest.raises((TypeError, ValueError)) as caught:
        ModelRecorder(redact=redact)
    return caught.value


# -- what redact= accepts ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("redact", "kind"),
    [
        ("sk-.*", "str"),
        (b"sk-.*", "bytes"),
        (re.compile("sk-.*"), "Pattern"),
        (3, "int"),
        (None, "NoneType"),
    ],
)
def test_redact_that_is_not_a_collection_of_patterns_is_refused(redact: Any, kind: str) -> None:
    error = refusal(redact)

    assert type(error) is TypeError
    assert str(error) == (
        f"redact must be an iterable (a tuple or list) of regular expressions, got {kind}"
    )


@pytest.mark.parametrize(
    ("redact", "message"),
    [
        (
            [""],
            "redact[0] must be a non-empty regular expression (a str or a compiled pattern), "
            "got str",
        ),
        (
            ["ok", 3],
            "redact[1] must be a non-empty regular expression (a str or a compiled pattern), "
            "got int",
        ),
        (
            [re.compile("ok"), "fine", None],
            "redact[2] must be a non-empty regular expression (a str or a compiled pattern), "
            "got NoneType",
        ),
    ],
)
def test_a_pattern_that_is_not_a_non_empty_regex_is_refused_by_position(
    redact: Any, message: str
) -> None:
    error = refusal(redact)

    assert type(error) is TypeError
    assert str(error) == message


def test_a_pattern_that_does_not_compile_is_refused_with_the_regex_error() -> None:
    with pytest.raises(re.error) as compiled:
        re.compile("(unclosed")

    error = refusal(["fine", "(unclosed"])

    assert type(error) is ValueError
    assert str(error) == f"redact[1] is not a valid pattern: {compiled.value}"
    assert error.__cause__ is None
    assert error.__suppress_context__


def test_patterns_can_come_from_a_generator_compiled_or_as_text() -> None:
    def patterns() -> Iterator[RedactPattern]:
        yield re.compile(r"hunter\d")
        yield ACCOUNT

    recorder = record_one(patterns(), model_response([]), "hunter2 owns ACCT-12345678")

    assert recorder.recording.requests == [
        {"adapter": "pinned", "body": {"input": "[REDACTED] owns [REDACTED]"}}
    ]
    assert recorder.recording.redacted == ("redact[0]: 1 match", "redact[1]: 1 match")


# -- what the header of the script says ----------------------------------------------------


def test_nothing_found_is_said_as_zero_matches_per_pattern_and_nothing_else() -> None:
    recorder = record_one([ACCOUNT, "hunter2"], model_response([]))

    assert recorder.recording.redacted == ("redact[0]: 0 matches", "redact[1]: 0 matches")


def test_no_pattern_and_nothing_found_says_nothing() -> None:
    assert record_one([], model_response([])).recording.redacted == ()


def test_matches_are_counted_across_every_text_redacted() -> None:
    recorder = ModelRecorder(redact=[ACCOUNT, "hunter2", "never-there"])
    recorder.add(
        "pinned",
        ModelRequest("ACCT-11111111 and ACCT-22222222, password hunter2"),
        model_response([{"type": "note", "text": "ACCT-33333333"}]),
    )
    recorder.warn("seen ACCT-44444444")

    assert recorder.recording.redacted == (
        "redact[0]: 4 matches",
        "redact[1]: 1 match",
        "redact[2]: 0 matches",
    )
    assert recorder.recording.warnings == ("seen [REDACTED]",)


# -- JSON data: every string, keys too ------------------------------------------------------


def test_every_string_of_the_data_is_redacted_keys_included_and_the_rest_kept() -> None:
    output = [
        {
            "type": "note",
            "ACCT-12345678": "key with a secret",
            "values": ["ACCT-87654321", 7, 2.5, True, None, ("ACCT-00000000", "plain")],
            "nested": {"deeper": {"text": "call ACCT-11112222 now"}},
            7: "ACCT-99999999",
        }
    ]
    recorder = record_one([ACCOUNT], model_response(output), [{"role": "user", "content": "x"}])

    (step,) = recorder.recording.steps
    assert step == {
        "type": "response",
        "response": [
            {
                "type": "note",
                "[REDACTED]": "key with a secret",
                "values": ["[REDACTED]", 7, 2.5, True, None, ["[REDACTED]", "plain"]],
                "nested": {"deeper": {"text": "call [REDACTED] now"}},
                "7": "[REDACTED]",
            }
        ],
    }
    assert recorder.recording.redacted == ("redact[0]: 5 matches",)


def test_a_response_error_and_warning_are_redacted_as_text() -> None:
    recorder = ModelRecorder(redact=[ACCOUNT])
    recorder.add(
        "pinned",
        ModelRequest("hi"),
        model_response(
            ModelResponse(
                [{"type": "note", "text": "ACCT-12345678"}],
                Usage(input_tokens=1, output_tokens=2),
                response_id="resp_ACCT-12345678",
            )
        ),
    )
    recorder.add("pinned", ModelRequest("again"), model_error(ScriptedHTTPError(500, "ACCT-1")))
    recorder.add(
        "pinned", ModelRequest("more"), model_error(ScriptedHTTPError(503, "id ACCT-00001111"))
    )

    first, second, third = recorder.recording.steps
    assert first["response"].output == [{"type": "note", "text": "[REDACTED]"}]
    assert first["response"].response_id == "resp_[REDACTED]"
    assert second["error"].message == "ACCT-1"
    assert third["error"].message == "id [REDACTED]"
    assert recorder.recording.redacted == ("redact[0]: 3 matches",)


# -- streams: the streamed texts are one text ----------------------------------------------

# The streamed text, and where each pattern matches in it:
#   aaBBBBccDDDDeeFGHIJKLMggHHHHIIIIjj
#     [  )  [  )  [      )  [  )[  )        BBBB, DDDD, FGHIJKLM, HHHH, IIII
#                   [ )                     HIJ, inside FGHIJKLM
# so the redacted spans are 2-6, 8-12, 14-22 and 24-32 (HHHH and IIII touch: one span).
STREAM_PATTERNS = ["BBBB", "DDDD", "FGHIJKLM", "HIJ", "HHHH", "IIII"]


def split_stream() -> list[Any]:
    """Pieces of that text under every key a stream spreads text over, nested as providers do."""
    return [
        {"type": "response_started", "sequence": 0},
        {"type": "output_text_delta", "delta": "aaB"},
        {"type": "output_text_delta", "delta": "BB", "index": 1},
        {"type": "part", "part": {"type": "output_text", "text": "Bc"}},
        {"type": "chunk", "choices": [{"index": 0, "delta": {"content": "cDDDDeeF"}}]},
        {"type": "output_text_delta", "delta": "GHIJ", "obfuscation": None},
        {"type": "tool", "arguments": "KLMggHH"},
        {"type": "thinking_delta", "thinking": "HHII"},
        {"type": "input_json_delta", "partial_json": "IIjj", "delta": 5},
        {
            "type": "response_done",
            "response": {"id": "resp_BBBB", "output": [], "usage": {"input_tokens": 3}},
        },
    ]


def test_a_split_stream_keeps_each_piece_with_one_marker_where_each_span_starts() -> None:
    recorder = record_one(STREAM_PATTERNS, model_stream(split_stream()))

    (step,) = recorder.recording.steps
    assert step == {
        "type": "stream",
        "events": [
            {"type": "response_started", "sequence": 0},
            {"type": "output_text_delta", "delta": "aa[REDACTED]"},
            {"type": "output_text_delta", "delta": "", "index": 1},
            {"type": "part", "part": {"type": "output_text", "text": "c"}},
            {
                "type": "chunk",
                "choices": [{"index": 0, "delta": {"content": "c[REDACTED]ee[REDACTED]"}}],
            },
            {"type": "output_text_delta", "delta": "", "obfuscation": None},
            {"type": "tool", "arguments": "gg[REDACTED]"},
            {"type": "thinking_delta", "thinking": ""},
            {"type": "input_json_delta", "partial_json": "jj", "delta": 5},
            {
                "type": "response_done",
                "response": {"id": "resp_[REDACTED]", "output": [], "usage": {"input_tokens": 3}},
            },
        ],
    }
    # Counted once in the joined text (HIJ went with FGHIJKLM), once more in the id.
    assert recorder.recording.redacted == (
        "redact[0]: 2 matches",
        "redact[1]: 1 match",
        "redact[2]: 1 match",
        "redact[3]: 0 matches",
        "redact[4]: 1 match",
        "redact[5]: 1 match",
    )


def test_only_streamed_texts_are_joined_not_the_other_fields_of_an_event() -> None:
    # Joined with the event types, the deltas would no longer hold "BBBB" in one piece of
    # text; joined with each other they do. A type alone never joins the deltas.
    events = [
        {"type": "BB", "delta": "xB"},
        {"type": "BB", "delta": "Bx"},
        {"type": "output_text_delta", "delta": "no match here"},
    ]
    recorder = record_one(["BBBB", "xBBx"], model_stream(events))

    (step,) = recorder.recording.steps
    assert step["events"] == [
        {"type": "BB", "delta": "[REDACTED]"},
        {"type": "BB", "delta": ""},
        {"type": "output_text_delta", "delta": "no match here"},
    ]
    assert recorder.recording.redacted == ("redact[0]: 0 matches", "redact[1]: 1 match")


def test_a_stream_without_a_match_is_recorded_as_it_came() -> None:
    events = [
        {"type": "output_text_delta", "delta": "plain"},
        {"type": "output_text_delta", "delta": " text", "extra": ("a", 1)},
    ]
    recorder = record_one([ACCOUNT], model_stream(events))

    assert recorder.recording.steps == [
        {
            "type": "stream",
            "events": [
                {"type": "output_text_delta", "delta": "plain"},
                {"type": "output_text_delta", "delta": " text", "extra": ["a", 1]},
            ],
        }
    ]
    assert recorder.recording.redacted == ("redact[0]: 0 matches",)


def test_adjacent_matches_in_one_piece_of_a_stream_leave_one_marker() -> None:
    events = [
        {"type": "output_text_delta", "delta": "<AAAAAAAA>"},
        {"type": "output_text_delta", "delta": "AAAA"},
    ]
    recorder = record_one(["AAAA"], model_stream(events))

    (step,) = recorder.recording.steps
    assert step["events"] == [
        {"type": "output_text_delta", "delta": "<[REDACTED]>"},
        {"type": "output_text_delta", "delta": "[REDACTED]"},
    ]
    assert recorder.recording.redacted == ("redact[0]: 3 matches",)


def test_a_pattern_that_can_match_nothing_redacts_only_what_it_matches() -> None:
    # "x*" also matches the empty text between any two characters: only runs of x go.
    recorder = ModelRecorder(redact=["x*"])
    recorder.warn("axxb x c")
    recorder.add(
        "pinned",
        ModelRequest("no match here"),
        model_stream([{"type": "delta", "delta": "ax"}, {"type": "delta", "delta": "xb"}]),
    )

    recording = recorder.recording
    assert recording.warnings == ("a[REDACTED]b [REDACTED] c",)
    assert recording.steps[0]["events"] == [
        {"type": "delta", "delta": "a[REDACTED]"},
        {"type": "delta", "delta": "b"},
    ]
    assert recording.requests[0]["body"]["input"] == "no match here"
    assert recording.redacted == ("redact[0]: 3 matches",)
