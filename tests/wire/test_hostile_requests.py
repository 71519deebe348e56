"""Hypothesis: hostile requests to every path of the endpoint and of the httpx transport.

Malformed, truncated, oversized, deeply nested and random bodies, with random methods and
headers, must each get an HTTP answer: no exception from inside, no 5xx the script did not
ask for, every refusal recorded for ``assert_complete()``, and no step taken by a request
that was refused.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

httpx = pytest.importorskip("httpx")

from agents_testing import (  # noqa: E402 - after the skip above
    ScriptedModel,
    assistant_message,
    function_call,
)
from agents_testing.adapters.httpx import scripted_transport  # noqa: E402
from agents_testing.wire import ScriptedEndpoint, WireResponse  # noqa: E402

SERVED = ["/v1/responses", "/v1/chat/completions", "/v1/messages"]
PATHS = st.sampled_from([*SERVED, "/v1/models", "/", "/v1/responses/x", ""]) | st.text(
    st.characters(min_codepoint=33, max_codepoint=126), max_size=20
).map(lambda text: "/" + text)
METHODS = st.sampled_from(["POST", "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH", "post"])
TOKEN = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz-_0123456789"), min_size=1, max_size=12)
HEADER_VALUE = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
HEADERS = st.lists(
    st.tuples(
        TOKEN | st.sampled_from(["content-type", "authorization", "x-api-key", "content-length"]),
        HEADER_VALUE,
    ),
    max_size=6,
)
# Bodies the three formats accept, to truncate, nest, inflate and mix with.
VALID: list[dict[str, Any]] = [
    {"model": "m", "input": "hi"},
    {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8},
]
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=16,
)


# Depths around the endpoint's limit, where recording and parsing used to break, and far beyond.
DEPTHS = st.sampled_from([255, 256, 257, 490, 600, 980, 1000, 2000, 10_000]) | st.integers(
    200, 3000
)


def nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    base = draw(st.sampled_from(VALID))
    stream = draw(st.booleans())
    shape = draw(
        st.sampled_from(["valid", "truncated", "deep", "deep_field", "big", "json", "bytes", "odd"])
    )
    whole = json.dumps({**base, "stream": stream}).encode()
    if shape == "valid":
        return whole
    if shape == "truncated":
        return whole[: draw(st.integers(0, len(whole) - 1))]
    if shape == "deep":
        return nested(
            draw(st.integers(200, 3000)), draw(st.sampled_from(["list", "dict"]))
        ).encode()
    if shape == "deep_field":
        deep = nested(draw(DEPTHS), draw(st.sampled_from(["list", "dict"])))
        return whole[:-1] + b', "metadata": ' + deep.encode() + b"}"
    if shape == "big":  # an oversized field, a megabyte of text
        return whole[:-1] + b', "metadata": {"pad": "' + b"x" * 1_000_000 + b'"}}'
    if shape == "json":
        return json.dumps(
            {**base, **draw(st.dictionaries(st.text(max_size=8), JSON, max_size=4))}
        ).encode()
    if shape == "bytes":
        return draw(st.binary(max_size=64))
    # Valid JSON that is hard to handle: lone surrogates, huge numbers, odd types.
    odd = draw(
        st.sampled_from(
            [
                '"\\ud800"',
                "1" * 5000,
                "1e99999",
                "-0",
                "[]",
                '{"type": "message"}',
                '"\\u0000"',
            ]
        )
    )
    field = draw(st.sampled_from(["model", "input", "messages", "tools", "instructions", "system"]))
    return whole[:-1] + f', "{field}": {odd}}}'.encode()


def script() -> ScriptedModel:
    return ScriptedModel([[assistant_message("ok"), function_call("f", {"a": 1}, call_id="c1")]])


def check(model: ScriptedModel, endpoint: ScriptedEndpoint, status: int, body: bytes) -> None:
    # No 5xx: the script (a plain step every format can carry) asked for none.
    assert status == 200 or 400 <= status < 500, (status, body[:300])
    assert [request.status for request in endpoint.requests] == [status]
    if status == 200:
        assert model.remaining_steps == 0
        endpoint.assert_complete()
        return
    assert model.remaining_steps == 1  # a refused request took no step
    assert model.calls == ()
    with pytest.raises(AssertionError):  # and is recorded
        endpoint.assert_complete()
    payload = json.loads(body)  # the format's own JSON error body
    assert "error" in payload


SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(method=METHODS, path=PATHS, headers=HEADERS, raw=bodies())
def test_endpoint_answers_every_request(
    method: str, path: str, headers: list[tuple[str, str]], raw: bytes
) -> None:
    model = script()
    endpoint = ScriptedEndpoint(model)

    response: WireResponse = endpoint.handle(method, path, headers, raw)

    check(model, endpoint, response.status, response.body)
    if response.streamed:
        response.body.decode("utf-8")  # server-sent events are UTF-8 text


@SETTINGS
@given(method=METHODS, path=st.sampled_from(SERVED), headers=HEADERS, raw=bodies())
def test_sync_transport_answers_every_request(
    method: str, path: str, headers: list[tuple[str, str]], raw: bytes
) -> None:
    model = script()
    transport = scripted_transport(model)

    with httpx.Client(transport=transport, base_url="http://scripted.invalid") as client:
        reply = client.request(method.upper(), path, content=raw, headers=headers)
        body = reply.read()

    check(model, transport.endpoint, reply.status_code, body)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(method=METHODS, path=st.sampled_from(SERVED), headers=HEADERS, raw=bodies())
def test_async_transport_answers_every_request(
    method: str, path: str, headers: list[tuple[str, str]], raw: bytes
) -> None:
    model = script()
    transport = scripted_transport(model)

    async def send() -> tuple[int, bytes]:
        async with httpx.AsyncClient(
            transport=transport, base_url="http://scripted.invalid"
        ) as client:
            reply = await client.request(method.upper(), path, content=raw, headers=headers)
            return reply.status_code, await reply.aread()

    status, body = asyncio.run(send())

    check(model, transport.endpoint, status, body)


def test_a_lone_surrogate_echoed_in_a_stream_is_escaped_not_a_crash() -> None:
    model = script()
    endpoint = ScriptedEndpoint(model)
    raw = b'{"model": "\\ud800", "messages": [{"role": "user", "content": "hi"}], "stream": true}'

    response = endpoint.handle("POST", "/v1/chat/completions", [], raw)

    assert response.status == 200
    first = response.body.decode("utf-8").split("\n\n")[0]
    assert json.loads(first.removeprefix("data: "))["model"] == "\ud800"
