"""Property tests: no request, however malformed, crashes the endpoint or goes unrecorded."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import ScriptedModel, assistant_message, function_call
from agents_testing.wire import ScriptedEndpoint

PATHS = st.sampled_from(
    ["/v1/responses", "/v1/chat/completions", "/v1/messages", "/v1/models", "/", "/x/messages"]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
# Bodies shaped like the real ones, with any value in any field.
KEYS = [
    "model",
    "input",
    "messages",
    "instructions",
    "system",
    "tools",
    "stream",
    "role",
    "content",
    "tool_calls",
    "tool_use_id",
    "type",
    "function",
    "id",
    "conversation",
]
SHAPED = st.recursive(
    JSON,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(KEYS), children, max_size=5)
    ),
    max_leaves=30,
)


def serve(path: str, raw: bytes) -> tuple[int, ScriptedEndpoint]:
    model = ScriptedModel(
        [
            [assistant_message("ok"), function_call("f", {"a": 1}, call_id="c1")],
        ]
    )
    endpoint = ScriptedEndpoint(model)
    response = endpoint.handle("POST", path, [("authorization", "Bearer k")], raw)
    json.loads(response.body) if not response.streamed else response.body.decode()
    return response.status, endpoint


@settings(max_examples=150, deadline=None)
@given(path=PATHS, raw=st.binary(max_size=64))
def test_any_bytes_get_an_http_answer(path: str, raw: bytes) -> None:
    status, endpoint = serve(path, raw)

    assert status == 200 or 400 <= status < 600
    assert [request.status for request in endpoint.requests] == [status]


@settings(max_examples=300, deadline=None)
@given(path=PATHS, body=SHAPED)
def test_any_json_body_gets_an_http_answer(path: str, body: Any) -> None:
    status, endpoint = serve(path, json.dumps(body).encode())

    assert status == 200 or 400 <= status < 600
    if status != 200:  # every refusal is recorded for assert_complete()
        try:
            endpoint.assert_complete()
        except AssertionError:
            pass
        else:
            raise AssertionError(f"status {status} left no violation")
