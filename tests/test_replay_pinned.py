"""Record-to-script behaviors that mutation testing found no test pinned: the script writer
and the strict replay.

The script a ``Recording`` writes is compared as whole text: every step kind, the layout at
exactly the line width and one character past it, the import line, and the items written
as library helpers or as plain data. The replay's drift errors are compared by their fields
and whole messages, for every way a request can differ (its path, its body, the headers
that change the answer), with ignored fields and redaction; the ignore paths' parsing
errors, the recorded-step kinds a replay serves, and ``load_recording``'s errors.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from agents_testing import (
    InvalidScriptedModelStepError,
    ModelRequest,
    ModelResponse,
    RecordedExchange,
    RecordedModelCall,
    Recording,
    Replay,
    ReplayIgnore,
    ReplayRequestDriftError,
    ScriptedHTTPError,
    UnconsumedModelStepsError,
    Usage,
    assistant_message,
    function_call,
    load_recording,
    model_error,
    model_responder,
    model_response,
    model_stream,
    model_stream_responder,
)

# -- helpers --------------------------------------------------------------------------------


def over_wire(
    index: int,
    step: Any,
    *,
    status: int = 200,
    streamed: bool = False,
    path: str = "/v1/responses",
    wire_format: str = "openai.responses",
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> RecordedExchange:
    return RecordedExchange(
        index,
        "POST",
        path,
        wire_format,
        {"model": "m"} if body is None else body,
        status,
        streamed,
        step,
        None,
        headers,
    )


def through_tiny(
    index: int, step: Any, *, status: int = 200, streamed: bool = False
) -> RecordedExchange:
    return RecordedExchange(index, "", "", "", {"input": []}, status, streamed, step, "tiny")


def pad(size: int) -> str:
    """Return ``size`` characters of filler, to put a line exactly at the width."""
    return ("abcdefghij" * 10)[:size]


def script_of_one_response(imports: str, items: str) -> str:
    """Return the whole script of one call through the tiny adapter that got these items."""
    return (
        '"""A model run recorded by agents-testing: review it, then edit it like any script.\n'
        "\n"
        "1 model call. STEPS holds the step each call got, REQUESTS what\n"
        "each call sent. Replay it with agents_testing.Replay.load(this file); record it\n"
        "again with pytest --agents-testing-record.\n"
        "\n"
        "Redacted (each secret replaced with '[REDACTED]'):\n"
        "- nothing\n"
        '"""\n'
        "\n"
        f"from agents_testing import {imports}\n"
        "\n"
        "STEPS = [\n"
        "    # call #1: tiny model (not streamed)\n"
        "    model_response(\n"
        "        [\n"
        f"{items}"
        "        ],\n"
        "    ),\n"
        "]\n"
        "\n"
        "REQUESTS = [\n"
        "    # call #1\n"
        '    {"adapter": "tiny", "body": {"input": []}},\n'
        "]\n"
    )


def source_of_one_response(item: Any) -> str:
    return Recording([through_tiny(0, model_response([item]))]).source()


# -- the written script, whole --------------------------------------------------------------

EVERY_KIND = '''\
"""A model run recorded by agents-testing: review it, then edit it like any script.

6 model calls. STEPS holds the step each call got, REQUESTS what
each call sent. Replay it with agents_testing.Replay.load(this file); record it
again with pytest --agents-testing-record.

Redacted (each secret replaced with '[REDACTED]'):
- the authorization header: never recorded (sent with 6 requests)
- redact[0]: 1 match

Warnings (what this script does not hold):
- call #7 raised TimeoutError: not recorded
- a second warning
"""

from agents_testing import (
    ModelResponse,
    ScriptedHTTPError,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_response,
    model_stream,
)

STEPS = [
    # call #1: POST /v1/responses (openai.responses, not streamed, HTTP 429)
    model_error(
        ScriptedHTTPError(
            429,
            "Slow down.",
            retry_after=2,
            error_type="rate_limit_error",
            code="slow",
        ),
    ),
    # call #2: tiny model (not streamed, HTTP 400)
    model_error(ScriptedHTTPError(400)),
    # call #3: tiny model (streamed)
    model_stream(
        [
            {"type": "one"},
            {"type": "two", "n": 1},
        ],
    ),
    # call #4: POST /v1/messages (anthropic.messages, streamed, HTTP 200)
    model_response(
        [
            assistant_message("With id.", id="msg_1"),
            assistant_message("Without id."),
            function_call("lookup", {"q": "compact"}, call_id="call_1"),
            function_call(
                "lookup",
                '{"q": "spaced"}',
                call_id="call_2",
                id="fc_2",
                namespace="tools",
            ),
            function_call("lookup", "not json", call_id="call_3"),
            function_call("lookup", {"q": "é"}, call_id="call_4"),
            function_call("lookup", [1, 2], call_id="call_5"),
            {"type": "reasoning", "summary": []},
        ],
    ),
    # call #5: POST /v1/responses (openai.responses, not streamed, HTTP 200)
    model_response(
        ModelResponse(
            [
                assistant_message("Done."),
                {"type": "reasoning", "summary": []},
            ],
            Usage(
                input_tokens=3,
                output_tokens=4,
                total_tokens=9,
                input_tokens_details={"cached_tokens": 2},
                output_tokens_details=[
                    {"reasoning_tokens": 1},
                    {"reasoning_tokens": 2},
                ],
            ),
            response_id="resp_1",
        ),
    ),
    # call #6: POST /v1/responses (openai.responses, not streamed, HTTP 200)
    model_response(
        ModelResponse(
            [
                assistant_message("Bye."),
            ],
            Usage(input_tokens=1, output_tokens=2),
        ),
    ),
]

REQUESTS = [
    # call #1
    {
        "method": "POST",
        "path": "/v1/responses",
        "wire_format": "openai.responses",
        "body": {"model": "m"},
    },
    # call #2
    {"adapter": "tiny", "body": {"input": []}},
    # call #3
    {"adapter": "tiny", "body": {"input": []}},
    # call #4
    {
        "method": "POST",
        "path": "/v1/messages",
        "wire_format": "anthropic.messages",
        "headers": {"anthropic-version": "2023-06-01"},
        "body": {"model": "claude", "stream": True},
    },
    # call #5
    {
        "method": "POST",
        "path": "/v1/responses",
        "wire_format": "openai.responses",
        "body": {"model": "m"},
    },
    # call #6
    {
        "method": "POST",
        "path": "/v1/responses",
        "wire_format": "openai.responses",
        "body": {"model": "m"},
    },
]
'''


def every_kind_recording() -> Recording:
    error = ScriptedHTTPError(
        429, "Slow down.", retry_after=2, error_type="rate_limit_error", code="slow"
    )
    items = [
        assistant_message("With id.", id="msg_1"),
        assistant_message("Without id."),
        function_call("lookup", {"q": "compact"}, call_id="call_1"),
        function_call("lookup", '{"q": "spaced"}', call_id="call_2", id="fc_2", namespace="tools"),
        function_call("lookup", "not json", call_id="call_3"),
        function_call("lookup", '{"q":"é"}', call_id="call_4"),
        function_call("lookup", "[1,2]", call_id="call_5"),
        {"type": "reasoning", "summary": []},
    ]
    usage = Usage(
        input_tokens=3,
        output_tokens=4,
        total_tokens=9,
        input_tokens_details={"cached_tokens": 2},
        output_tokens_details=[{"reasoning_tokens": 1}, {"reasoning_tokens": 2}],
    )
    reasoning = {"type": "reasoning", "summary": []}
    full = ModelResponse([assistant_message("Done."), reasoning], usage, response_id="resp_1")
    plain = ModelResponse([assistant_message("Bye.")], Usage(input_tokens=1, output_tokens=2))
    return Recording(
        [
            over_wire(0, model_error(error), status=429),
            through_tiny(1, model_error(ScriptedHTTPError(400)), status=400),
            through_tiny(
                2, model_stream([{"type": "one"}, {"type": "two", "n": 1}]), streamed=True
            ),
            over_wire(
                3,
                model_response(items),
                streamed=True,
                path="/v1/messages",
                wire_format="anthropic.messages",
                body={"model": "claude", "stream": True},
                headers={"anthropic-version": "2023-06-01"},
            ),
            over_wire(4, model_response(full)),
            over_wire(5, model_response(plain)),
        ],
        redacted=[
            "the authorization header: never recorded (sent with 6 requests)",
            "redact[0]: 1 match",
        ],
        warnings=["call #7 raised TimeoutError: not recorded", "a second warning"],
    )


def test_every_step_kind_is_written_as_this_exact_script() -> None:
    assert every_kind_recording().source() == EVERY_KIND


def test_the_written_file_holds_the_same_text(tmp_path: Path) -> None:
    path = every_kind_recording().write(tmp_path / "every.py")

    assert path.read_text(encoding="utf-8") == EVERY_KIND


def test_an_empty_recording_is_this_exact_script() -> None:
    assert Recording([]).source() == (
        '"""A model run recorded by agents-testing: review it, then edit it like any script.\n'
        "\n"
        "0 model calls. STEPS holds the step each call got, REQUESTS what\n"
        "each call sent. Replay it with agents_testing.Replay.load(this file); record it\n"
        "again with pytest --agents-testing-record.\n"
        "\n"
        "Redacted (each secret replaced with '[REDACTED]'):\n"
        "- nothing\n"
        '"""\n'
        "\n"
        "\n"
        "STEPS = [\n"
        "]\n"
        "\n"
        "REQUESTS = [\n"
        "]\n"
    )


AT_THE_WIDTH = '''\
"""A model run recorded by agents-testing: review it, then edit it like any script.

6 model calls. STEPS holds the step each call got, REQUESTS what
each call sent. Replay it with agents_testing.Replay.load(this file); record it
again with pytest --agents-testing-record.

Redacted (each secret replaced with '[REDACTED]'):
- nothing
"""

from agents_testing import (
    ModelResponse,
    ScriptedHTTPError,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_response,
    model_stream,
)

STEPS = [
    # call #1: tiny model (not streamed, HTTP 500)
    model_error(ScriptedHTTPError(500, "abcdefghijabcdefghijabcdefghijabcdefghijabcd")),
    # call #2: tiny model (not streamed, HTTP 500)
    model_error(
        ScriptedHTTPError(500, "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabc"),
    ),
    # call #3: tiny model (not streamed)
    model_stream(
        [
            {"type": "x", "text": "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"},
        ],
    ),
    # call #4: tiny model (not streamed)
    model_response(
        [
            assistant_message("abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd"),
            function_call("f", {"q": "abcdefghijabcdefghijabcdefghijabc"}, call_id="c"),
            function_call(
                "f",
                {"q": "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijab"},
                call_id="c",
            ),
            {"type": "x", "text": "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"},
        ],
    ),
    # call #5: tiny model (not streamed)
    model_response(
        ModelResponse(
            [
                assistant_message("abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"),
            ],
            Usage(input_tokens=1, output_tokens=2, input_tokens_details={"k": "abcde"}),
        ),
    ),
    # call #6: tiny model (not streamed)
    model_response(
        ModelResponse(
            [
                assistant_message("a"),
            ],
            Usage(
                input_tokens=1,
                output_tokens=2,
                input_tokens_details={"k": "abcdefghijabcdefghijabcdefghijabcdefghija"},
            ),
        ),
    ),
]

REQUESTS = [
    # call #1
    {"adapter": "tiny", "body": {"input": []}},
    # call #2
    {"adapter": "tiny", "body": {"input": []}},
    # call #3
    {"adapter": "tiny", "body": {"input": []}},
    # call #4
    {"adapter": "tiny", "body": {"input": []}},
    # call #5
    {"adapter": "tiny", "body": {"input": []}},
    # call #6
    {"adapter": "tiny", "body": {"input": []}},
]
'''

PAST_THE_WIDTH = '''\
"""A model run recorded by agents-testing: review it, then edit it like any script.

6 model calls. STEPS holds the step each call got, REQUESTS what
each call sent. Replay it with agents_testing.Replay.load(this file); record it
again with pytest --agents-testing-record.

Redacted (each secret replaced with '[REDACTED]'):
- nothing
"""

from agents_testing import (
    ModelResponse,
    ScriptedHTTPError,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_response,
    model_stream,
)

STEPS = [
    # call #1: tiny model (not streamed, HTTP 500)
    model_error(
        ScriptedHTTPError(500, "abcdefghijabcdefghijabcdefghijabcdefghijabcde"),
    ),
    # call #2: tiny model (not streamed, HTTP 500)
    model_error(
        ScriptedHTTPError(
            500,
            "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd",
        ),
    ),
    # call #3: tiny model (not streamed)
    model_stream(
        [
            {
                "type": "x",
                "text": "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghija",
            },
        ],
    ),
    # call #4: tiny model (not streamed)
    model_response(
        [
            assistant_message(
                "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcde",
            ),
            function_call(
                "f",
                {"q": "abcdefghijabcdefghijabcdefghijabcd"},
                call_id="c",
            ),
            function_call(
                "f",
                {
                    "q": "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabc",
                },
                call_id="c",
            ),
            {
                "type": "x",
                "text": "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghija",
            },
        ],
    ),
    # call #5: tiny model (not streamed)
    model_response(
        ModelResponse(
            [
                assistant_message(
                    "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghija",
                ),
            ],
            Usage(
                input_tokens=1,
                output_tokens=2,
                input_tokens_details={"k": "abcdef"},
            ),
        ),
    ),
    # call #6: tiny model (not streamed)
    model_response(
        ModelResponse(
            [
                assistant_message("a"),
            ],
            Usage(
                input_tokens=1,
                output_tokens=2,
                input_tokens_details={
                    "k": "abcdefghijabcdefghijabcdefghijabcdefghijab",
                },
            ),
        ),
    ),
]

REQUESTS = [
    # call #1
    {"adapter": "tiny", "body": {"input": []}},
    # call #2
    {"adapter": "tiny", "body": {"input": []}},
    # call #3
    {"adapter": "tiny", "body": {"input": []}},
    # call #4
    {"adapter": "tiny", "body": {"input": []}},
    # call #5
    {"adapter": "tiny", "body": {"input": []}},
    # call #6
    {"adapter": "tiny", "body": {"input": []}},
]
'''


def layout_recording(more: int) -> Recording:
    """Return calls whose lines end exactly at the 88th column, or ``more`` past it."""
    steps = [
        model_error(ScriptedHTTPError(500, pad(44 + more))),
        model_error(ScriptedHTTPError(500, pad(53 + more))),
        model_stream([{"type": "x", "text": pad(50 + more)}]),
        model_response(
            [
                assistant_message(pad(54 + more)),
                function_call("f", {"q": pad(33 + more)}, call_id="c"),
                function_call("f", {"q": pad(62 + more)}, call_id="c"),
                {"type": "x", "text": pad(50 + more)},
            ]
        ),
        model_response(
            ModelResponse(
                [assistant_message(pad(50 + more))],
                Usage(input_tokens=1, output_tokens=2, input_tokens_details={"k": pad(5 + more)}),
            )
        ),
        model_response(
            ModelResponse(
                [assistant_message("a")],
                Usage(input_tokens=1, output_tokens=2, input_tokens_details={"k": pad(41 + more)}),
            )
        ),
    ]
    return Recording(
        [
            through_tiny(position, step, status=500 if position < 2 else 200)
            for position, step in enumerate(steps)
        ]
    )


def test_lines_that_end_at_the_88th_column_stay_on_one_line() -> None:
    assert layout_recording(0).source() == AT_THE_WIDTH


def test_lines_one_column_longer_are_split_as_black_splits_them() -> None:
    assert layout_recording(1).source() == PAST_THE_WIDTH


# Values that are text in a well-formed recording (an id, a namespace, an error's code and
# message, a response id) are still laid out at the width when a hand-built one holds data.
OTHER_SHAPES_AT_THE_WIDTH = '''\
"""A model run recorded by agents-testing: review it, then edit it like any script.

4 model calls. STEPS holds the step each call got, REQUESTS what
each call sent. Replay it with agents_testing.Replay.load(this file); record it
again with pytest --agents-testing-record.

Redacted (each secret replaced with '[REDACTED]'):
- nothing
"""

from agents_testing import (
    ModelResponse,
    ScriptedHTTPError,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_response,
)

STEPS = [
    # call #1: tiny model (not streamed)
    model_response(
        [
            assistant_message(
                "a",
                id=["abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd"],
            ),
            function_call(
                "f",
                {},
                call_id="c",
                namespace=["abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefg"],
            ),
        ],
    ),
    # call #2: tiny model (not streamed, HTTP 500)
    model_error(
        ScriptedHTTPError(
            500,
            code=["abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdef"],
        ),
    ),
    # call #3: tiny model (not streamed, HTTP 500)
    model_error(
        ScriptedHTTPError(
            500,
            ["abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghija"],
        ),
    ),
    # call #4: tiny model (not streamed)
    model_response(
        ModelResponse(
            [
                assistant_message("a"),
            ],
            Usage(input_tokens=0, output_tokens=0),
            response_id=["abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghi"],
        ),
    ),
]

REQUESTS = [
    # call #1
    {"adapter": "tiny", "body": {"input": []}},
    # call #2
    {"adapter": "tiny", "body": {"input": []}},
    # call #3
    {"adapter": "tiny", "body": {"input": []}},
    # call #4
    {"adapter": "tiny", "body": {"input": []}},
]
'''

OTHER_SHAPES_PAST_THE_WIDTH = '''\
"""A model run recorded by agents-testing: review it, then edit it like any script.

4 model calls. STEPS holds the step each call got, REQUESTS what
each call sent. Replay it with agents_testing.Replay.load(this file); record it
again with pytest --agents-testing-record.

Redacted (each secret replaced with '[REDACTED]'):
- nothing
"""

from agents_testing import (
    ModelResponse,
    ScriptedHTTPError,
    Usage,
    assistant_message,
    function_call,
    model_error,
    model_response,
)

STEPS = [
    # call #1: tiny model (not streamed)
    model_response(
        [
            assistant_message(
                "a",
                id=[
                    "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcde",
                ],
            ),
            function_call(
                "f",
                {},
                call_id="c",
                namespace=[
                    "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefgh",
                ],
            ),
        ],
    ),
    # call #2: tiny model (not streamed, HTTP 500)
    model_error(
        ScriptedHTTPError(
            500,
            code=[
                "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefg",
            ],
        ),
    ),
    # call #3: tiny model (not streamed, HTTP 500)
    model_error(
        ScriptedHTTPError(
            500,
            [
                "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijab",
            ],
        ),
    ),
    # call #4: tiny model (not streamed)
    model_response(
        ModelResponse(
            [
                assistant_message("a"),
            ],
            Usage(input_tokens=0, output_tokens=0),
            response_id=[
                "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij",
            ],
        ),
    ),
]

REQUESTS = [
    # call #1
    {"adapter": "tiny", "body": {"input": []}},
    # call #2
    {"adapter": "tiny", "body": {"input": []}},
    # call #3
    {"adapter": "tiny", "body": {"input": []}},
    # call #4
    {"adapter": "tiny", "body": {"input": []}},
]
'''


def other_shapes_recording(more: int) -> Recording:
    message = {**assistant_message("a"), "id": [pad(64 + more)]}
    call = {**function_call("f", "{}", call_id="c"), "namespace": [pad(57 + more)]}
    code: Any = [pad(66 + more)]
    error_message: Any = [pad(71 + more)]
    response_id: Any = [pad(59 + more)]
    return Recording(
        [
            through_tiny(0, model_response([message, call])),
            through_tiny(1, model_error(ScriptedHTTPError(500, code=code)), status=500),
            through_tiny(2, model_error(ScriptedHTTPError(500, error_message)), status=500),
            through_tiny(
                3,
                model_response(
                    ModelResponse([assistant_message("a")], Usage(), response_id=response_id)
                ),
            ),
        ]
    )


def test_keyword_values_of_other_shapes_that_end_at_the_width_stay_on_one_line() -> None:
    assert other_shapes_recording(0).source() == OTHER_SHAPES_AT_THE_WIDTH


def test_keyword_values_of_other_shapes_one_column_longer_are_split() -> None:
    assert other_shapes_recording(1).source() == OTHER_SHAPES_PAST_THE_WIDTH


def test_an_output_item_that_is_not_a_mapping_is_written_as_data() -> None:
    source = Recording([through_tiny(0, model_response(["plain text", [1, 2], 3]))]).source()

    assert source == script_of_one_response(
        "model_response",
        '            "plain text",\n            [1, 2],\n            3,\n',
    )


def test_an_import_line_of_88_columns_stays_on_one_line() -> None:
    steps = [
        model_error(ScriptedHTTPError(500)),
        model_response([function_call("f", "{}", call_id="c")]),
    ]
    source = Recording([through_tiny(0, steps[0], status=500), through_tiny(1, steps[1])]).source()

    assert source == (
        '"""A model run recorded by agents-testing: review it, then edit it like any script.\n'
        "\n"
        "2 model calls. STEPS holds the step each call got, REQUESTS what\n"
        "each call sent. Replay it with agents_testing.Replay.load(this file); record it\n"
        "again with pytest --agents-testing-record.\n"
        "\n"
        "Redacted (each secret replaced with '[REDACTED]'):\n"
        "- nothing\n"
        '"""\n'
        "\n"
        "from agents_testing import ScriptedHTTPError, function_call, model_error, model_response\n"
        "\n"
        "STEPS = [\n"
        "    # call #1: tiny model (not streamed, HTTP 500)\n"
        "    model_error(ScriptedHTTPError(500)),\n"
        "    # call #2: tiny model (not streamed)\n"
        "    model_response(\n"
        "        [\n"
        '            function_call("f", {}, call_id="c"),\n'
        "        ],\n"
        "    ),\n"
        "]\n"
        "\n"
        "REQUESTS = [\n"
        "    # call #1\n"
        '    {"adapter": "tiny", "body": {"input": []}},\n'
        "    # call #2\n"
        '    {"adapter": "tiny", "body": {"input": []}},\n'
        "]\n"
    )


def test_an_import_line_of_89_columns_is_split_one_name_a_line() -> None:
    steps = [
        model_stream([{"type": "one"}]),
        model_response([assistant_message("Hi."), function_call("f", "{}", call_id="c")]),
    ]
    source = Recording([through_tiny(0, steps[0], streamed=True), through_tiny(1, steps[1])])

    assert source.source() == (
        '"""A model run recorded by agents-testing: review it, then edit it like any script.\n'
        "\n"
        "2 model calls. STEPS holds the step each call got, REQUESTS what\n"
        "each call sent. Replay it with agents_testing.Replay.load(this file); record it\n"
        "again with pytest --agents-testing-record.\n"
        "\n"
        "Redacted (each secret replaced with '[REDACTED]'):\n"
        "- nothing\n"
        '"""\n'
        "\n"
        "from agents_testing import (\n"
        "    assistant_message,\n"
        "    function_call,\n"
        "    model_response,\n"
        "    model_stream,\n"
        ")\n"
        "\n"
        "STEPS = [\n"
        "    # call #1: tiny model (streamed)\n"
        "    model_stream(\n"
        "        [\n"
        '            {"type": "one"},\n'
        "        ],\n"
        "    ),\n"
        "    # call #2: tiny model (not streamed)\n"
        "    model_response(\n"
        "        [\n"
        '            assistant_message("Hi."),\n'
        '            function_call("f", {}, call_id="c"),\n'
        "        ],\n"
        "    ),\n"
        "]\n"
        "\n"
        "REQUESTS = [\n"
        "    # call #1\n"
        '    {"adapter": "tiny", "body": {"input": []}},\n'
        "    # call #2\n"
        '    {"adapter": "tiny", "body": {"input": []}},\n'
        "]\n"
    )


def test_a_plain_assistant_message_is_written_with_its_helper() -> None:
    item = {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hi."}],
        "id": "msg_1",
    }

    assert source_of_one_response(item) == script_of_one_response(
        "assistant_message, model_response", '            assistant_message("Hi.", id="msg_1"),\n'
    )


MESSAGE = {
    "type": "message",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Hi."}],
}


@pytest.mark.parametrize(
    ("change", "written"),
    [
        ({"type": "note"}, ['"type": "note"', '"role": "assistant"', '"status": "completed"']),
        ({"role": "user"}, ['"type": "message"', '"role": "user"', '"status": "completed"']),
        (
            {"status": "in_progress"},
            ['"type": "message"', '"role": "assistant"', '"status": "in_progress"'],
        ),
        ({"status": None}, ['"type": "message"', '"role": "assistant"', '"status": None']),
    ],
)
def test_a_message_other_than_a_plain_completed_assistant_one_is_written_as_data(
    change: dict[str, Any], written: list[str]
) -> None:
    item = {**MESSAGE, **change}
    content = '"content": [{"type": "output_text", "text": "Hi."}]'
    lines = "".join(f"                {line},\n" for line in [*written, content])

    assert source_of_one_response(item) == script_of_one_response(
        "model_response", f"            {{\n{lines}            }},\n"
    )


def test_a_message_with_a_key_the_helper_does_not_take_is_written_as_data() -> None:
    item = assistant_message("Hi.", phase="final")

    assert source_of_one_response(item) == script_of_one_response(
        "model_response",
        "            {\n"
        '                "type": "message",\n'
        '                "role": "assistant",\n'
        '                "status": "completed",\n'
        '                "phase": "final",\n'
        '                "content": [{"type": "output_text", "text": "Hi."}],\n'
        "            },\n",
    )


TWO_PARTS = """[
                    {"type": "output_text", "text": "a"},
                    {"type": "output_text", "text": "b"},
                ]"""


@pytest.mark.parametrize(
    ("content", "written"),
    [
        ("Hi.", '"Hi."'),
        ([], "[]"),
        ([{"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}], TWO_PARTS),
        (["Hi."], '["Hi."]'),
        ([{"type": "output_text"}], '[{"type": "output_text"}]'),
        ([{"type": "output_text", "text": 3}], '[{"type": "output_text", "text": 3}]'),
        ([{"type": "refusal", "text": "No."}], '[{"type": "refusal", "text": "No."}]'),
        (
            [{"type": "output_text", "text": "a", "logprobs": []}],
            '[{"type": "output_text", "text": "a", "logprobs": []}]',
        ),
    ],
)
def test_a_message_whose_content_is_not_one_text_part_is_written_as_data(
    content: Any, written: str
) -> None:
    item = {**MESSAGE, "content": content}

    assert source_of_one_response(item) == script_of_one_response(
        "model_response",
        "            {\n"
        '                "type": "message",\n'
        '                "role": "assistant",\n'
        '                "status": "completed",\n'
        f'                "content": {written},\n'
        "            },\n",
    )


def python_literal(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


CALL = function_call("f", "{}", call_id="c")


@pytest.mark.parametrize(
    "change",
    [
        {"type": "tool_call"},
        {"status": "in_progress"},
        {"provider_data": "x"},
        {"name": 1},
        {"call_id": 1},
        {"id": 1},
        {"arguments": 1},
        {"extra": 1},
    ],
)
def test_a_function_call_other_than_a_plain_completed_one_is_written_as_data(
    change: dict[str, Any],
) -> None:
    item = {**CALL, **change}
    lines = "".join(
        f"                {python_literal(key)}: {python_literal(value)},\n"
        for key, value in item.items()
    )

    assert source_of_one_response(item) == script_of_one_response(
        "model_response", f"            {{\n{lines}            }},\n"
    )


def test_a_function_call_without_one_of_its_keys_is_written_as_data() -> None:
    item = {key: value for key, value in CALL.items() if key != "provider_data"}
    lines = "".join(
        f"                {python_literal(key)}: {python_literal(value)},\n"
        for key, value in item.items()
    )

    assert source_of_one_response(item) == script_of_one_response(
        "model_response", f"            {{\n{lines}            }},\n"
    )


def test_arguments_too_deep_to_decode_are_written_as_their_text() -> None:
    arguments = "[" * 100_000 + "]" * 100_000
    item = function_call("f", arguments, call_id="c")

    assert source_of_one_response(item) == script_of_one_response(
        "function_call, model_response",
        "            function_call(\n"
        '                "f",\n'
        f'                "{arguments}",\n'
        '                call_id="c",\n'
        "            ),\n",
    )


def test_a_recording_with_no_redaction_says_nothing_was_redacted() -> None:
    source = Recording([], redacted=[]).source()

    assert source.splitlines()[6:9] == [
        "Redacted (each secret replaced with '[REDACTED]'):",
        "- nothing",
        '"""',
    ]


# -- drifts: the whole request --------------------------------------------------------------


def wire_call(
    body: Any, path: str = "/v1/responses", headers: Any = None, **extra: Any
) -> ModelRequest:
    sent: dict[str, Any] = {"path": path, "body": body, **extra}
    if headers is not None:
        sent["headers"] = headers
    return ModelRequest(input="hi", extra=sent)


def recorded(body: Any = None, path: str = "/v1/responses", **fields: Any) -> dict[str, Any]:
    return {"method": "POST", "path": path, "body": {} if body is None else body, **fields}


def serve(replay: Replay, request: ModelRequest) -> ScriptedHTTPError:
    """Make one call the replay refuses; return the HTTP error it answered with."""
    with pytest.raises(ScriptedHTTPError) as refused:
        asyncio.run(replay.model.get_response(request))
    return refused.value


def fields(drift: ReplayRequestDriftError) -> tuple[Any, ...]:
    return (drift.call_index, drift.path, drift.recorded, drift.sent, drift.reason)


HI = [assistant_message("Hi.")]


def test_a_drift_answers_400_with_its_message_and_is_kept() -> None:
    replay = Replay([HI], [recorded({"n": 1})])

    answered = serve(replay, wire_call({"n": 2}))

    (drift,) = replay.drifts
    message = (
        "Replayed call #1 (call_index=0) sent a request whose n differs from the recording: "
        "recorded 1, sent 2. If the change is intended, record the script again (pytest "
        "--agents-testing-record) or relax this field with ignore=('n',)."
    )
    assert fields(drift) == (0, "n", 1, 2, "changed")
    assert str(drift) == message
    assert (answered.status, answered.message, answered.error_type, answered.code) == (
        400,
        f"agents-testing: {message}",
        "invalid_request_error",
        None,
    )
    assert answered.retry_after is None


def test_assert_complete_raises_the_first_drift_as_a_fresh_error() -> None:
    replay = Replay([HI, HI], [recorded({"n": 1}), recorded({"n": 2})])
    serve(replay, wire_call({"n": 3}))
    serve(replay, wire_call({"n": 4}))

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()

    first, second = replay.drifts
    assert fields(first) == (0, "n", 1, 3, "changed")
    assert fields(second) == (1, "n", 2, 4, "changed")
    assert caught.value is not first
    assert caught.value.__cause__ is first
    assert fields(caught.value) == fields(first)


def test_assert_complete_raises_a_drift_before_an_earlier_script_violation() -> None:
    replay = Replay([model_stream([{"type": "one"}]), HI], [recorded(), recorded({"n": 1})])
    with pytest.raises(InvalidScriptedModelStepError):  # a stream step for a plain call
        asyncio.run(replay.model.get_response(wire_call({})))
    serve(replay, wire_call({"n": 2}))

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.assert_complete()

    assert fields(caught.value) == (1, "n", 1, 2, "changed")
    with pytest.raises(InvalidScriptedModelStepError):
        replay.model.assert_complete()


def test_the_model_itself_fails_on_the_drift_not_on_a_clean_script() -> None:
    replay = Replay([HI], [recorded({"n": 1})])
    serve(replay, wire_call({"n": 2}))

    with pytest.raises(ReplayRequestDriftError) as caught:
        replay.model.assert_complete()

    assert fields(caught.value) == (0, "n", 1, 2, "changed")


def test_a_clean_replay_is_complete_and_then_checks_unused_steps() -> None:
    replay = Replay([HI, HI], [recorded({"n": 1}), recorded({"n": 2})])

    asyncio.run(replay.model.get_response(wire_call({"n": 1})))

    assert replay.drifts == ()
    with pytest.raises(UnconsumedModelStepsError):
        replay.assert_complete()
    asyncio.run(replay.model.get_response(wire_call({"n": 2})))
    replay.assert_complete()


def test_a_step_past_the_recorded_requests_has_nothing_to_compare_with() -> None:
    replay = Replay([HI, HI], [recorded()])
    asyncio.run(replay.model.get_response(wire_call({})))

    answered = serve(replay, wire_call({}))

    (drift,) = replay.drifts
    assert fields(drift) == (1, "", None, None, "no_recorded_request")
    assert str(drift) == (
        "Replayed call #2 (call_index=1) has no recorded request to compare with: the "
        "recording has more steps than REQUESTS. Record the script again (pytest "
        "--agents-testing-record), or add this call's request to REQUESTS."
    )
    assert answered.message == f"agents-testing: {drift}"


def test_another_path_is_a_drift_of_the_whole_request_shown_with_its_method() -> None:
    replay = Replay([HI], [{"method": "PUT", "path": "/v1/responses", "body": {}}])

    serve(replay, wire_call({}, "/v1/chat/completions"))

    (drift,) = replay.drifts
    assert fields(drift) == (0, "", "PUT /v1/responses", "POST /v1/chat/completions", "changed")
    assert str(drift) == (
        "Replayed call #1 (call_index=0) sent a request that differs from the recording: "
        "recorded 'PUT /v1/responses', sent 'POST /v1/chat/completions'. If the change is "
        "intended, record the script again (pytest --agents-testing-record)."
    )


def test_a_sent_method_and_a_recorded_request_without_one_are_shown() -> None:
    replay = Replay([HI], [{"path": "/v1/messages", "body": {}}])

    serve(replay, wire_call({}, "/v1/responses", method="PATCH"))

    (drift,) = replay.drifts
    assert fields(drift) == (0, "", "POST /v1/messages", "PATCH /v1/responses", "changed")


def test_only_the_path_is_compared_not_the_method() -> None:
    replay = Replay([HI], [{"method": "PUT", "path": "/v1/responses", "body": {}}])

    asyncio.run(replay.model.get_response(wire_call({})))

    assert replay.drifts == ()


def test_a_call_not_over_the_wire_against_a_wire_recording_names_both() -> None:
    replay = Replay([HI], [{"method": "GET", "path": "/v1/responses", "body": {}}])

    serve(replay, ModelRequest(input="hi", extra={"path": "/v1/responses"}))

    (drift,) = replay.drifts
    assert fields(drift) == (
        0,
        "",
        "GET /v1/responses",
        "a call that did not come over the wire",
        "changed",
    )


def test_a_wire_call_against_an_adapter_recording_names_both() -> None:
    replay = Replay([HI], [{"adapter": "tiny", "body": {"input": "hi"}}])

    serve(replay, wire_call({"input": "hi"}, "/v1/messages"))

    (drift,) = replay.drifts
    assert fields(drift) == (
        0,
        "",
        "a call through the tiny adapter",
        "POST /v1/messages",
        "changed",
    )
    assert str(drift) == (
        "Replayed call #1 (call_index=0) sent a request that differs from the recording: "
        "recorded 'a call through the tiny adapter', sent 'POST /v1/messages'. If the change "
        "is intended, record the script again (pytest --agents-testing-record)."
    )


# -- drifts: the body -----------------------------------------------------------------------


def drift_between(
    recorded_body: Any, sent_body: Any, ignore: tuple[ReplayIgnore, ...] = ()
) -> tuple[Any, ...] | None:
    """Replay one call that sent ``sent_body``; return the drift's fields, or None."""
    replay = Replay([HI], [recorded(recorded_body)], ignore=ignore)
    try:
        asyncio.run(replay.model.get_response(wire_call(sent_body)))
    except ScriptedHTTPError:
        (drift,) = replay.drifts
        return fields(drift)
    assert replay.drifts == ()
    return None


@pytest.mark.parametrize(
    ("recorded_body", "sent_body", "expected"),
    [
        ({"a": 1}, {"a": 2}, (0, "a", 1, 2, "changed")),
        ({"a": 1}, {"a": True}, (0, "a", 1, True, "changed")),
        ({"a": 1}, {}, (0, "a", 1, None, "missing")),
        ({}, {"a": None}, (0, "a", None, None, "added")),
        ({"a": None}, {}, (0, "a", None, None, "missing")),
        ([1, 2], [1], (0, "[1]", 2, None, "missing")),
        ([1], [1, [2]], (0, "[1]", None, [2], "added")),
        ({"a": [1, {"b": 1}]}, {"a": [1, {"b": 2}]}, (0, "a[1].b", 1, 2, "changed")),
        ({"_x-1": {"1a": 1}}, {"_x-1": {"1a": 2}}, (0, '_x-1["1a"]', 1, 2, "changed")),
        ({"é": 1}, {"é": 2}, (0, '["\\u00e9"]', 1, 2, "changed")),
        ({"a": {"b c": 1}}, {"a": {"b c": 2}}, (0, 'a["b c"]', 1, 2, "changed")),
        ({"a": 1, "b": 2}, {"c": 3, "b": 5, "a": 1}, (0, "b", 2, 5, "changed")),
        ({"a": 1}, {"z": 1, "y": 2, "a": 1}, (0, "z", None, 1, "added")),
        ({"a": 1}, [1], (0, "", {"a": 1}, [1], "changed")),
        ({}, None, (0, "", {}, None, "changed")),
    ],
)
def test_the_first_difference_in_the_body_is_the_drift(
    recorded_body: Any, sent_body: Any, expected: tuple[Any, ...]
) -> None:
    assert drift_between(recorded_body, sent_body) == expected


def test_a_list_at_the_root_is_compared_by_index() -> None:
    assert drift_between([{"a": 1}], [{"a": 2}]) == (0, "[0].a", 1, 2, "changed")


def test_a_recorded_request_without_a_body_compares_as_none() -> None:
    replay = Replay([HI], [{"path": "/v1/responses"}])

    serve(replay, wire_call({}))

    (drift,) = replay.drifts
    assert fields(drift) == (0, "", None, {}, "changed")


def test_missing_and_added_fields_are_told_apart_in_the_message() -> None:
    replay = Replay([HI, HI], [recorded({"tools": [1]}), recorded({})])
    serve(replay, wire_call({}))
    serve(replay, wire_call({"seed": 7}))

    missing, added = replay.drifts
    assert str(missing) == (
        "Replayed call #1 (call_index=0) sent a request whose tools is missing from the "
        "request sent (it was recorded): recorded [1], sent nothing. If the change is "
        "intended, record the script again (pytest --agents-testing-record) or relax this "
        "field with ignore=('tools',)."
    )
    assert str(added) == (
        "Replayed call #2 (call_index=1) sent a request whose seed was not in the "
        "recording: sent 7, recorded nothing. If the change is intended, record the script "
        "again (pytest --agents-testing-record) or relax this field with ignore=('seed',)."
    )


def test_the_sent_body_is_redacted_before_it_is_compared_and_shown() -> None:
    replay = Replay(
        [HI, HI],
        [recorded({"q": "code [REDACTED]"}), recorded({"q": "code [REDACTED]"})],
        redact=[r"\d{4}-\d{4}"],
    )
    asyncio.run(replay.model.get_response(wire_call({"q": "code 1234-5678"})))

    serve(replay, wire_call({"q": "code 1234-5678 now"}))

    (drift,) = replay.drifts
    assert fields(drift) == (1, "q", "code [REDACTED]", "code [REDACTED] now", "changed")


# -- drifts: the headers that change the answer ---------------------------------------------


def header_drift(recorded_headers: Any, sent_headers: Any, **replay: Any) -> Any:
    request = recorded({"n": 1})
    if recorded_headers is not ...:
        request["headers"] = recorded_headers
    played = Replay([HI], [request], **replay)
    try:
        asyncio.run(played.model.get_response(wire_call({"n": 1}, headers=sent_headers)))
    except ScriptedHTTPError:
        (drift,) = played.drifts
        return fields(drift)
    assert played.drifts == ()
    return None


@pytest.mark.parametrize(
    ("recorded_headers", "sent_headers", "expected"),
    [
        ({"openai-beta": "a=1"}, {"OpenAI-Beta": "a=1", "Authorization": "Bearer x"}, None),
        (
            {"openai-beta": "a=1"},
            {"openai-beta": "a=2"},
            (0, "headers.openai-beta", "a=1", "a=2", "changed"),
        ),
        (
            {"anthropic-version": "v1"},
            {},
            (0, "headers.anthropic-version", "v1", None, "missing"),
        ),
        (
            {"anthropic-version": "v1"},
            [("anthropic-version", "v1")],
            (0, "headers.anthropic-version", "v1", None, "missing"),
        ),
        (
            {"anthropic-version": "v1"},
            None,
            (0, "headers.anthropic-version", "v1", None, "missing"),
        ),
        ({}, {"Anthropic-Beta": "b"}, (0, "headers.anthropic-beta", None, "b", "added")),
        (None, {"anthropic-beta": "b"}, (0, "headers.anthropic-beta", None, "b", "added")),
        (None, {"x-other": "b"}, None),
        (..., {"anthropic-beta": "b"}, None),
    ],
)
def test_the_compared_headers_are_the_ones_that_change_the_answer(
    recorded_headers: Any, sent_headers: Any, expected: Any
) -> None:
    assert header_drift(recorded_headers, sent_headers) == expected


def test_a_body_difference_is_found_before_a_header_difference() -> None:
    replay = Replay([HI], [recorded({"n": 1}, headers={"openai-beta": "a"})])

    serve(replay, wire_call({"n": 2}, headers={"openai-beta": "b"}))

    (drift,) = replay.drifts
    assert fields(drift) == (0, "n", 1, 2, "changed")


def test_sent_headers_are_redacted_and_can_be_ignored() -> None:
    assert header_drift({"openai-beta": "[REDACTED]"}, {"openai-beta": "k-123"}) == (
        0,
        "headers.openai-beta",
        "[REDACTED]",
        "k-123",
        "changed",
    )
    assert (
        header_drift({"openai-beta": "[REDACTED]"}, {"openai-beta": "k-123"}, redact=[r"k-\d+"])
        is None
    )
    assert header_drift({"openai-beta": "a"}, {"openai-beta": "b"}, ignore=["headers"]) is None
    assert (
        header_drift({"openai-beta": "a"}, {"openai-beta": "b"}, ignore=["headers.openai-beta"])
        is None
    )


def test_an_adapter_recording_never_compares_headers() -> None:
    replay = Replay([HI], [{"adapter": "tiny", "body": {"input": "hi"}, "headers": {"a": "b"}}])

    asyncio.run(replay.model.get_response(ModelRequest(input="hi")))

    assert replay.drifts == ()


# -- drifts through an adapter --------------------------------------------------------------


async def test_an_adapter_call_is_compared_by_its_view_streamed_or_not() -> None:
    body = {"input": "hi", "stream": True}
    replay = Replay(
        [model_stream([{"type": "one"}]), HI],
        [{"adapter": "tiny", "body": body}, {"adapter": "tiny", "body": body}],
    )

    streamed = [event async for event in replay.model.stream_response(ModelRequest("hi"))]
    with pytest.raises(ScriptedHTTPError):
        await replay.model.get_response(ModelRequest("hi"))

    assert streamed == [{"type": "one"}]
    (drift,) = replay.drifts
    assert fields(drift) == (1, "stream", True, None, "missing")


async def test_an_adapter_call_is_redacted_before_it_is_compared() -> None:
    replay = Replay(
        [HI], [{"adapter": "tiny", "body": {"input": "pin [REDACTED]"}}], redact=[r"\d{4}"]
    )

    await replay.model.get_response(ModelRequest("pin 1234"))

    replay.assert_complete()


# -- ignored fields -------------------------------------------------------------------------


NESTED_BEFORE = {"a": {"b": [0, 1]}}
NESTED_AFTER = {"a": {"b": [0, 2]}}


@pytest.mark.parametrize(
    ("pattern", "recorded_body", "sent_body"),
    [
        ("a", NESTED_BEFORE, NESTED_AFTER),
        ("a.b", NESTED_BEFORE, NESTED_AFTER),
        ("  a.b  ", NESTED_BEFORE, NESTED_AFTER),
        ("a.b[1]", NESTED_BEFORE, NESTED_AFTER),
        ("a.b[*]", NESTED_BEFORE, NESTED_AFTER),
        ("a.*", NESTED_BEFORE, NESTED_AFTER),
        ("*.b", NESTED_BEFORE, NESTED_AFTER),
        ('a["b"]', NESTED_BEFORE, NESTED_AFTER),
        ('["a"]["b"]', NESTED_BEFORE, NESTED_AFTER),
        ("[*].b", [{"b": 1}], [{"b": 2}]),
        ("[0]", [{"b": 1}], [{"b": 2}]),
        ("x", {"x": 1}, {}),
        ("x", {}, {"x": 1}),
    ],
)
def test_an_ignore_path_skips_its_field_and_everything_under_it(
    pattern: str, recorded_body: Any, sent_body: Any
) -> None:
    assert drift_between(recorded_body, sent_body, (pattern,)) is None


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("a.c", (0, "a.b.c", 1, 2, "changed")),
        ("a.b.c.d", (0, "a.b.c", 1, 2, "changed")),
        ("b", (0, "a.b.c", 1, 2, "changed")),
        ("a[0]", (0, "a.b.c", 1, 2, "changed")),
        ("*.*.d", (0, "a.b.c", 1, 2, "changed")),
        ('a["b.c"]', (0, "a.b.c", 1, 2, "changed")),
    ],
)
def test_an_ignore_path_that_names_another_field_skips_nothing(
    pattern: str, expected: tuple[Any, ...]
) -> None:
    assert drift_between({"a": {"b": {"c": 1}}}, {"a": {"b": {"c": 2}}}, (pattern,)) == expected


def test_a_quoted_key_with_escapes_is_one_field() -> None:
    body_before = {'say "hi"': 1, "a.b": 1, "x": 1}
    body_after = {'say "hi"': 2, "a.b": 2, "x": 1}

    assert drift_between(body_before, body_after, ('["say \\"hi\\""]', '["a.b"]')) is None
    assert drift_between(body_before, body_after, ('["say \\"hi\\""]',)) == (
        0,
        '["a.b"]',
        1,
        2,
        "changed",
    )


def test_ignore_functions_see_each_path_with_none_for_a_missing_side() -> None:
    seen: list[tuple[str, Any, Any]] = []

    def watch(path: str, recorded_value: Any, sent_value: Any) -> bool:
        seen.append((path, recorded_value, sent_value))
        return False

    def skip_b(path: str, recorded_value: Any, sent_value: Any) -> bool:
        return path.startswith("b")

    found = drift_between(
        {"a": [1], "b": {"c": 1}}, {"a": [1, 2], "b": {"c": 2}, "d": 3}, (watch, skip_b)
    )

    assert found == (0, "a[1]", None, 2, "added")
    assert seen == [("a", [1], [1, 2]), ("a[0]", 1, 1), ("a[1]", None, 2)]
    seen.clear()
    assert (
        drift_between({"a": [1], "b": {"c": 1}}, {"a": [1], "b": {"c": 2}}, (watch, skip_b)) is None
    )
    assert seen == [("a", [1], [1]), ("a[0]", 1, 1), ("b", {"c": 1}, {"c": 2})]
    seen.clear()
    assert drift_between({"a": [1, 2]}, {"a": [1]}, (watch,)) == (0, "a[1]", 2, None, "missing")
    assert seen == [("a", [1, 2], [1]), ("a[0]", 1, 1), ("a[1]", 2, None)]


def test_the_whole_body_is_compared_even_when_a_function_skips_every_field() -> None:
    def everything(path: str, recorded_value: Any, sent_value: Any) -> bool:
        return True

    assert drift_between({"a": 1}, {"a": 2}, (everything,)) is None
    assert drift_between({"a": 1}, [1], (everything,)) == (0, "", {"a": 1}, [1], "changed")


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("", "ignore[1] is empty; name a field such as 'metadata.timestamp'"),
        ("   ", "ignore[1] is empty; name a field such as 'metadata.timestamp'"),
        (
            "a.",
            "ignore[1] 'a.' is not a field path; write one like 'metadata.timestamp' or "
            "'input[*].id'",
        ),
        (
            ".",
            "ignore[1] '.' is not a field path; write one like 'metadata.timestamp' or "
            "'input[*].id'",
        ),
        (
            "a..b",
            "ignore[1] 'a..b' is not a field path; write one like 'metadata.timestamp' or "
            "'input[*].id'",
        ),
        (
            "a[x]",
            "ignore[1] 'a[x]' is not a field path; write one like 'metadata.timestamp' or "
            "'input[*].id'",
        ),
        (
            "a[",
            "ignore[1] 'a[' is not a field path; write one like 'metadata.timestamp' or "
            "'input[*].id'",
        ),
        (
            "]",
            "ignore[1] ']' is not a field path; write one like 'metadata.timestamp' or "
            "'input[*].id'",
        ),
    ],
)
def test_a_malformed_ignore_path_is_refused_with_its_position(pattern: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"^ignore\[1\]") as caught:
        Replay([], [], ignore=["a", pattern])

    assert str(caught.value) == message


def test_an_ignore_entry_that_is_neither_a_path_nor_a_function_is_refused() -> None:
    with pytest.raises(TypeError) as caught:
        Replay([], [], ignore=["a", 3])  # type: ignore[list-item]  # on purpose

    assert str(caught.value) == (
        "ignore[1] must be a field path (str) or a function of (path, recorded, sent), got int"
    )


def test_ignore_given_as_one_string_is_refused() -> None:
    with pytest.raises(TypeError) as caught:
        Replay([], [], ignore="input")

    assert str(caught.value) == "ignore must be an iterable (a tuple or list) of entries, got str"


# -- what a replay serves -------------------------------------------------------------------


def test_each_step_is_checked_against_its_own_request() -> None:
    replay = Replay(
        [[assistant_message("one")], [assistant_message("two")]],
        [recorded({"n": 1}), recorded({"n": 2})],
    )

    first = asyncio.run(replay.model.get_response(wire_call({"n": 1})))
    second = asyncio.run(replay.model.get_response(wire_call({"n": 2})))

    assert (first.output, second.output) == ([assistant_message("one")], [assistant_message("two")])
    replay.assert_complete()


def test_a_replayed_error_step_raises_its_error_after_the_check() -> None:
    replay = Replay([model_error(ScriptedHTTPError(503, "Busy."))], [recorded({"n": 1})])

    answered = serve(replay, wire_call({"n": 1}))

    assert (answered.status, answered.message) == (503, "Busy.")
    assert replay.drifts == ()
    replay.assert_complete()
    drifting = Replay([model_error(ScriptedHTTPError(503, "Busy."))], [recorded({"n": 1})])
    assert serve(drifting, wire_call({"n": 2})).status == 400


async def test_a_replayed_stream_serves_its_events_after_the_check() -> None:
    events: Any = ({"type": "one"}, {"type": "two"})  # any iterable, kept as a list
    replay = Replay([model_stream(events)], [recorded({"n": 1})])

    served = [event async for event in replay.model.stream_response(wire_call({"n": 1}))]

    assert served == [{"type": "one"}, {"type": "two"}]
    replay.assert_complete()
    drifting = Replay([model_stream(events)], [recorded({"n": 1})])
    with pytest.raises(ScriptedHTTPError):
        [event async for event in drifting.model.stream_response(wire_call({"n": 2}))]
    assert fields(drifting.drifts[0]) == (0, "n", 1, 2, "changed")


async def test_responders_in_an_edited_script_are_called_after_the_check() -> None:
    calls: list[int] = []

    def respond(call: RecordedModelCall) -> Any:
        calls.append(call.index)
        return [assistant_message(f"computed {call.index}")]

    def respond_stream(call: RecordedModelCall) -> Any:
        calls.append(call.index)
        return [{"type": "computed", "index": call.index}]

    replay = Replay(
        [model_responder(respond), model_stream_responder(respond_stream)],
        [recorded({"n": 1}), recorded({"n": 2})],
    )

    answer = await replay.model.get_response(wire_call({"n": 1}))
    streamed = [event async for event in replay.model.stream_response(wire_call({"n": 2}))]

    assert answer.output == [assistant_message("computed 0")]
    assert streamed == [{"type": "computed", "index": 1}]
    assert calls == [0, 1]
    replay.assert_complete()
    drifting = Replay(
        [model_responder(respond), model_stream_responder(respond_stream)],
        [recorded({"n": 1}), recorded({"n": 2})],
    )
    with pytest.raises(ScriptedHTTPError):
        await drifting.model.get_response(wire_call({"n": 3}))
    with pytest.raises(ScriptedHTTPError):
        [event async for event in drifting.model.stream_response(wire_call({"n": 4}))]
    assert calls == [0, 1]
    assert [drift.sent for drift in drifting.drifts] == [3, 4]


def test_a_response_envelope_and_a_mapping_step_are_served() -> None:
    envelope = MappingProxyType({"output": [assistant_message("Hi.")], "usage": Usage(3, 4, 5)})
    typed = MappingProxyType({"type": "response", "response": [assistant_message("Typed.")]})
    response = ModelResponse([assistant_message("Full.")], Usage(input_tokens=1))
    replay = Replay([envelope, typed, response], [recorded(), recorded(), recorded()])

    served = [asyncio.run(replay.model.get_response(wire_call({}))) for _ in range(3)]

    assert [answer.output for answer in served] == [
        [assistant_message("Hi.")],
        [assistant_message("Typed.")],
        [assistant_message("Full.")],
    ]
    assert (served[0].usage.input_tokens, served[0].usage.output_tokens) == (4, 5)
    replay.assert_complete()


def test_bad_replay_arguments_are_refused_with_whole_messages() -> None:
    with pytest.raises(TypeError) as steps:
        Replay(3, [])  # type: ignore[arg-type]  # on purpose
    with pytest.raises(TypeError) as requests:
        Replay([], 3)  # type: ignore[arg-type]  # on purpose
    with pytest.raises(TypeError) as request:
        Replay([], [{}, "POST /v1/responses"])  # type: ignore[list-item]  # on purpose
    with pytest.raises(TypeError) as step:
        Replay([HI, 3], [{}, {}])  # type: ignore[list-item]  # on purpose

    assert str(steps.value) == "steps must be an iterable (a tuple or list) of entries, got int"
    assert str(requests.value) == (
        "requests must be an iterable (a tuple or list) of entries, got int"
    )
    assert str(request.value) == "requests[1] must be a mapping with 'path' and 'body', got str"
    assert str(step.value) == (
        "each recorded step must be a list of output items, a ModelResponse or a step built "
        "by model_response(), model_error(), model_stream(), ...; got int"
    )


# -- loading a script -----------------------------------------------------------------------


def test_a_loaded_script_replays_with_its_ignore_and_redact(tmp_path: Path) -> None:
    exchange = over_wire(
        0, model_response([assistant_message("Hi.")]), body={"q": "[REDACTED]", "t": 1}
    )
    path = Recording([exchange]).write(tmp_path / "calls.py")
    replay = Replay.load(str(path), ignore=["t"], redact=[r"k-\d+"])

    asyncio.run(replay.model.get_response(wire_call({"q": "k-99", "t": 2})))

    replay.assert_complete()
    strict = Replay.load(path)
    serve(strict, wire_call({"q": "k-99", "t": 1}))
    assert fields(strict.drifts[0]) == (0, "q", "[REDACTED]", "k-99", "changed")


def test_a_loaded_script_is_a_module_named_after_its_file(tmp_path: Path) -> None:
    path = Recording([over_wire(0, model_response(HI))]).write(tmp_path / "greeting.py")

    module = load_recording(str(path))

    assert module.__name__ == "_agents_testing_recording_greeting"
    assert module.REQUESTS == [
        {
            "method": "POST",
            "path": "/v1/responses",
            "wire_format": "openai.responses",
            "body": {"model": "m"},
        }
    ]


def test_a_missing_script_or_a_folder_says_how_to_record_it(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.py", tmp_path):
        with pytest.raises(FileNotFoundError) as caught:
            load_recording(path)
        assert str(caught.value) == (
            f"no recorded script at {str(path)!r}: record it first (pytest "
            "--agents-testing-record, or RecordingProxy and Recording.write)"
        )


def test_a_file_python_cannot_import_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "script.txt"
    path.write_text("STEPS = []\nREQUESTS = []\n", encoding="utf-8")

    with pytest.raises(ValueError, match="cannot be imported") as caught:
        load_recording(path)

    assert str(caught.value) == f"{str(path)!r} cannot be imported as a Python module"


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("REQUESTS = []\n", "STEPS"),
        ("STEPS = ()\nREQUESTS = []\n", "STEPS"),
        ("STEPS = []\n", "REQUESTS"),
        ("STEPS = []\nREQUESTS = {}\n", "REQUESTS"),
    ],
)
def test_a_script_without_its_lists_is_refused(tmp_path: Path, text: str, missing: str) -> None:
    path = tmp_path / "edited.py"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(ValueError, match=f"has no {missing} list") as caught:
        load_recording(path)

    assert str(caught.value) == (
        f"{str(path)!r} has no {missing} list; a recorded script defines STEPS and REQUESTS "
        "(record it again if it was edited by mistake)"
    )
