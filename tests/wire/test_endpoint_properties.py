"""Property tests: no request, however malformed, crashes the endpoint or goes unrecorded."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import (
    ScriptedHTTPError,
    ScriptedModel,
    assistant_message,
    function_call,
    model_stream,
)
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


# Scripted stream events: the core's, ones the formats cannot carry, and junk.
STREAM_EVENTS = st.lists(
    st.one_of(
        st.just({"type": "response_started"}),
        st.builds(
            lambda text: {"type": "output_text_delta", "item_id": None, "delta": text},
            st.text(max_size=4),
        ),
        st.sampled_from(
            [
                {"type": "response_done", "response": {"output": [assistant_message("done")]}},
                {
                    "type": "response_done",
                    "response": {"output": [function_call("f", {}, call_id="c")]},
                },
                {"type": "response_done", "response": {"output": [{"type": "reasoning"}]}},
                {"type": "output_text_delta", "delta": 7},
            ]
        ),
        JSON,
    ),
    max_size=5,
)
STREAM_PATHS = st.sampled_from(["/v1/responses", "/v1/chat/completions", "/v1/messages"])


class _Source:
    """A scripted stream source that may fail at one position and records its close."""

    def __init__(self, events: list[Any], fail_at: int | None) -> None:
        self.events = events
        self.fail_at = fail_at
        self.closed = False

    async def run(self) -> Any:
        try:
            for index, event in enumerate([*self.events, None]):
                if index == self.fail_at:
                    raise ScriptedHTTPError(503, "boom")
                if index < len(self.events):
                    yield event
        finally:
            self.closed = True


@settings(max_examples=200, deadline=None)
@given(
    path=STREAM_PATHS,
    events=STREAM_EVENTS,
    fail_at=st.none() | st.integers(0, 5),
    read=st.none() | st.integers(0, 12),
)
def test_any_scripted_stream_is_answered_and_its_source_closed(
    path: str, events: list[Any], fail_at: int | None, read: int | None
) -> None:
    source = _Source(events, fail_at)
    endpoint = ScriptedEndpoint(ScriptedModel([model_stream(source.run())]))
    body = {"model": "m", "input": "hi", "messages": [{"role": "user", "content": "hi"}]}

    async def answer() -> tuple[int, bool, bool]:
        raw = json.dumps({**body, "stream": True}).encode()
        response, rest = await endpoint.open_async("POST", path, [], raw)
        if rest is not None:
            # The client reads some chunks (``read``) then closes, or reads them all.
            async for index, _ in _enumerate(rest):
                if read is not None and index >= read:
                    break
            await rest.aclose()
        # Checked inside the loop: asyncio.run would close a forgotten source on its way out.
        return response.status, response.streamed, source.closed

    status, streamed, closed = asyncio.run(answer())

    assert status == 200 or 400 <= status < 600
    assert streamed is (status == 200)
    assert [request.status for request in endpoint.requests] == [status]
    assert closed  # whatever happened, the scripted source was closed


async def _enumerate(chunks: Any) -> Any:
    index = 0
    async for chunk in chunks:
        yield index, chunk
        index += 1
