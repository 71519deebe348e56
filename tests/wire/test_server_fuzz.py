"""Hypothesis over raw sockets: whatever bytes reach ``ScriptedServer``, it answers safely.

For every generated request (random, malformed or truncated request lines, headers and
framing; oversized, deeply nested and random bodies) on every served path, the server:
answers with a well-formed HTTP response or, for a connection that sent nothing, just
closes; never answers 5xx (nothing here scripts one); never hangs (every read has a socket
timeout); prints nothing (stderr, thread and unraisable hooks are watched); uses a step
only for a request it answered 200; and records every refusal, so ``assert_complete()``
raises a structured error for it, never an internal one.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agents_testing import (
    ScriptedModel,
    WireRequestError,
    assistant_message,
)
from agents_testing.wire import ScriptedServer

from ._raw import TIMEOUT, parse, read_all

MAX_BODY = 4096
PATHS = ["/v1/responses", "/v1/chat/completions", "/v1/messages", "/v1/models", "/", "/x"]
VALID: dict[str, dict[str, Any]] = {
    "/v1/responses": {"model": "m", "input": "hi"},
    "/v1/chat/completions": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    "/v1/messages": {
        "model": "m",
        "max_tokens": 16,
        "messages": [{"role": "user", "content": "hi"}],
    },
}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def bodies(draw: st.DrawFn, path: str) -> bytes:
    kind = draw(st.sampled_from(["valid", "streamed", "json", "nested", "bytes", "oversized"]))
    valid: dict[str, Any] = dict(VALID.get(path, VALID["/v1/responses"]))
    if kind == "valid":
        return json.dumps(valid).encode()
    if kind == "streamed":
        return json.dumps({**valid, "stream": True}).encode()
    if kind == "json":
        return json.dumps(draw(JSON)).encode()
    if kind == "nested":
        # Any depth: the endpoint refuses past 256 levels (see the test below).
        depth = draw(st.integers(1, 1_200))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        nested = opener * depth + "1" + closer * depth
        return ('{"model": "m", "input": "hi", "metadata": ' + nested + "}").encode()
    if kind == "oversized":
        return b"x" * draw(st.integers(MAX_BODY + 1, 3 * MAX_BODY))
    return draw(st.binary(max_size=200))


METHODS = [b"POST", b"POST", b"POST", b"GET", b"HEAD", b"OPTIONS", b"PUT"]
TOKEN = st.text(st.sampled_from("abcXYZ-_!#.~09"), min_size=1, max_size=12).filter(
    lambda name: name.lower() not in ("content-length", "transfer-encoding", "expect")
)
VALUE = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20).map(str.encode)
ANY_TEXT = st.binary(max_size=40)


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    """A request whose every part is well formed, except those drawn broken.

    Half the requests are well formed throughout, so valid, streamed and oversized bodies
    reach the endpoint; in the rest each part breaks with a chance of one in three or four.
    """
    odds = draw(st.sampled_from([0, 0, 3, 4]))

    def broken() -> bool:
        return odds > 0 and draw(st.integers(1, odds)) == 1

    method = draw(ANY_TEXT if broken() else st.sampled_from(METHODS))
    path = draw(st.sampled_from(PATHS[:3] * 3 + PATHS[3:]))
    target = draw(ANY_TEXT) if broken() else path.encode()
    version = draw(ANY_TEXT) if broken() else b"HTTP/1.1"
    sep = draw(st.sampled_from([b"  ", b"\t"])) if broken() else b" "
    line = method + sep + target + b" " + version
    body = draw(bodies(path))
    headers: list[tuple[bytes, bytes]] = []
    if broken():
        many = draw(st.sampled_from([3, 120]))
        headers = draw(st.lists(st.tuples(ANY_TEXT, ANY_TEXT), max_size=many))
    headers += draw(st.lists(st.tuples(TOKEN.map(str.encode), VALUE), max_size=3))
    framing = draw(st.sampled_from(["length", "chunked"]))
    if broken():
        framing = draw(st.sampled_from(["wrong length", "bad length", "none", "both"]))
    raw_body = body
    if framing in ("length", "both"):
        headers.append((b"content-length", str(len(body)).encode()))
    elif framing == "wrong length":
        headers.append((b"content-length", str(draw(st.integers(0, 10**30))).encode()))
    elif framing == "bad length":
        headers.append((b"content-length", draw(ANY_TEXT)))
    if framing in ("chunked", "both"):
        headers.append((b"transfer-encoding", b"chunked"))
        raw_body = b""
        rest = body
        while rest:
            size = draw(st.integers(1, len(rest)))
            size_text = draw(ANY_TEXT) if broken() and broken() else b"%x" % size
            raw_body += size_text + b"\r\n" + rest[:size] + b"\r\n"
            rest = rest[size:]
        raw_body += b"0\r\n\r\n"
    end = b"\n" if broken() else b"\r\n"
    head = end.join([line, *(name + b": " + value for name, value in headers)]) + end + end
    data = head + raw_body
    if broken():
        data = data[: draw(st.integers(0, len(data)))]  # cut short anywhere
    return data


@pytest.fixture
def watched() -> Iterator[list[str]]:
    """Collect anything reported to the thread and unraisable hooks."""
    errors: list[str] = []
    hooks = threading.excepthook, sys.unraisablehook
    threading.excepthook = lambda args: errors.append(repr(args.exc_value))
    sys.unraisablehook = lambda args: errors.append(repr(args.exc_value))
    try:
        yield errors
    finally:
        threading.excepthook, sys.unraisablehook = hooks


def exchange(url: str, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", int(url.rpartition(":")[2])), TIMEOUT) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server refused early and hung up; its answer is still to be read
        return read_all(sock)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=requests())
def test_any_bytes_get_a_safe_answer_and_refusals_use_no_step(
    data: bytes, watched: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel([[assistant_message("the one step")]])
    server = ScriptedServer(model, max_body_bytes=MAX_BODY).start()
    try:
        raw = exchange(server.url, data)
    finally:
        server.close()

    if not raw:
        # Only a connection that sent nothing is closed without an answer.
        assert data == b""
        assert server.requests == ()
        assert model.calls == ()
        return
    answer = parse(raw, head=data.startswith(b"HEAD "))
    event(f"status {answer.status}")  # shown by --hypothesis-show-statistics
    assert answer.status < 500, answer
    if answer.headers["content-type"] == "application/json" and answer.body:
        assert "error" in answer.json() or answer.status == 200
    assert len(model.calls) == (1 if answer.status == 200 else 0)
    if answer.status == 200:
        server.assert_complete()  # the step was used, nothing refused
    else:
        # Every refusal is recorded as a structured error, never as an internal one.
        with pytest.raises(WireRequestError):
            server.assert_complete()
    assert (capfd.readouterr().err, watched) == ("", [])


@pytest.mark.parametrize("depth", [600, 1_000, 10_000])
def test_a_body_nested_past_the_recursion_limit_gets_a_4xx(depth: int) -> None:
    model = ScriptedModel([[assistant_message("unused")]])
    body = ('{"model": "m", "input": "hi", "metadata": ' + "[" * depth + "]" * depth + "}").encode()
    server = ScriptedServer(model).start()
    try:
        head = f"POST /v1/responses HTTP/1.1\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        answer = parse(exchange(server.url, head + body))
    finally:
        server.close()

    assert answer.status == 400
    assert model.calls == ()
    with pytest.raises(WireRequestError) as refused:
        server.assert_complete()
    assert refused.value.reason == "too_deep"
