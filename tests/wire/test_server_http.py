"""``ScriptedServer`` reads HTTP strictly: every malformed request gets a recorded 4xx answer.

These tests speak raw bytes over a socket to the server, so each can send exactly the framing
a real client would never produce.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from agents_testing import (
    ScriptedModel,
    UnconsumedModelStepsError,
    WireRequestError,
    assistant_message,
)
from agents_testing.wire import ScriptedServer

from ._raw import Answer, connect, parse, read_all, refused, request, send

RESPONSES = json.dumps({"model": "m", "input": "hi"}).encode()
MALFORMED_HINT = "send a well-formed HTTP/1.1 request"


@pytest.fixture
def served() -> Iterator[tuple[ScriptedServer, ScriptedModel]]:
    """A running server on a one-step model; the test checks it itself."""
    model = ScriptedModel([[assistant_message("the one step")]])
    server = ScriptedServer(model).start()
    try:
        yield server, model
    finally:
        server.close()


def assert_refused_without_a_step(
    answer: Answer, server: ScriptedServer, model: ScriptedModel, *, status: int = 400
) -> WireRequestError:
    """The request got a JSON error in the OpenAI shape, no step ran, and it was recorded."""
    assert answer.status == status
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-should-retry"] == "false"
    error = answer.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["message"].startswith("agents-testing: ")
    assert model.calls == ()  # no scripted step was used
    assert server.requests == ()  # it never reached the endpoint
    failure = refused(server)
    assert failure.reason == ("request_too_large" if status == 413 else "malformed_request")
    assert failure.request_index == 0
    assert failure.detail is not None
    assert failure.detail in error["message"]
    return failure


# -- item 3: any method but POST gets the documented 405, and is recorded -------------------


@pytest.mark.parametrize("method", ["OPTIONS", "PUT", "DELETE", "PATCH", "PROPFIND", "GET"])
def test_a_method_other_than_post_gets_405_json_and_is_recorded(
    served: tuple[ScriptedServer, ScriptedModel], method: str
) -> None:
    server, model = served

    answer = parse(send(server.url, request(method, "/v1/responses")))

    assert answer.status == 405
    assert answer.json()["error"]["message"].startswith("agents-testing: ")
    assert [(r.method, r.path, r.status) for r in server.requests] == [
        (method, "/v1/responses", 405)
    ]
    assert model.calls == ()
    failure = refused(server)
    assert (failure.reason, failure.method) == ("method_not_allowed", method)
    assert "send the model request as a POST" in str(failure)


def test_head_gets_the_405_headers_without_a_body(
    served: tuple[ScriptedServer, ScriptedModel],
) -> None:
    server, _ = served

    raw = send(server.url, request("HEAD", "/v1/chat/completions"))

    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405 ")
    assert b"content-type: application/json" in head
    assert body == b""  # a HEAD answer has headers only
    assert [(r.method, r.status) for r in server.requests] == [("HEAD", 405)]
    assert refused(server).reason == "method_not_allowed"


# -- item 4: bad chunk sizes ---------------------------------------------------------------


@pytest.mark.parametrize("size", [b"zz", b"-5", b"1.5", b"1" * 20, b"", b"0x5"])
def test_a_bad_chunk_size_gets_400_and_uses_no_step(
    served: tuple[ScriptedServer, ScriptedModel], size: bytes
) -> None:
    server, model = served
    head = b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n"

    answer = parse(send(server.url, head + size + b"\r\n" + RESPONSES + b"\r\n0\r\n\r\n"))

    failure = assert_refused_without_a_step(answer, server, model)
    assert (failure.method, failure.path) == ("POST", "/v1/responses")
    assert "chunk size" in str(failure.detail)
    assert MALFORMED_HINT in str(failure)


def test_a_valid_chunked_body_is_served(served: tuple[ScriptedServer, ScriptedModel]) -> None:
    server, model = served
    head = b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n"
    first, second = RESPONSES[:10], RESPONSES[10:]
    body = b"%x;ext=1\r\n%s\r\n%X\r\n%s\r\n0\r\ntrailer: x\r\n\r\n" % (
        len(first),
        first,
        len(second),
        second,
    )

    answer = parse(send(server.url, head + body))

    assert answer.status == 200
    assert model.calls[0].request.input == "hi"
    server.assert_complete()


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"5\r\nabcdefgh\r\n0\r\n\r\n", "longer than its size line"),
        (b"5\r\nab", "ended inside a chunk"),
        (b"5\r\nabcde\r\n", "ended before the last chunk"),
        (b"0\r\ntrailer: x\r\n", "ended inside the chunked trailer"),
    ],
)
def test_a_broken_chunked_body_gets_400(
    served: tuple[ScriptedServer, ScriptedModel], body: bytes, detail: str
) -> None:
    server, model = served
    head = b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n"

    answer = parse(send(server.url, head + body))

    assert detail in str(assert_refused_without_a_step(answer, server, model).detail)


# -- item 5: bad Content-Length ------------------------------------------------------------


@pytest.mark.parametrize("length", ["abc", "1e3", "12, 12", "-1", "+12", "", "0x10"])
def test_a_bad_content_length_gets_400_and_uses_no_step(
    served: tuple[ScriptedServer, ScriptedModel], length: str
) -> None:
    server, model = served
    data = f"POST /v1/responses HTTP/1.1\r\ncontent-length: {length}\r\n\r\n".encode() + RESPONSES

    answer = parse(send(server.url, data))

    failure = assert_refused_without_a_step(answer, server, model)
    assert "Content-Length" in str(failure.detail)


def test_two_content_lengths_get_400(served: tuple[ScriptedServer, ScriptedModel]) -> None:
    server, model = served
    n = len(RESPONSES)
    data = f"POST /v1/responses HTTP/1.1\r\ncontent-length: {n}\r\ncontent-length: {n}\r\n\r\n"

    answer = parse(send(server.url, data.encode() + RESPONSES))

    assert_refused_without_a_step(answer, server, model)


def test_a_30_digit_content_length_gets_413(served: tuple[ScriptedServer, ScriptedModel]) -> None:
    server, model = served
    data = b"POST /v1/responses HTTP/1.1\r\ncontent-length: " + b"9" * 30 + b"\r\n\r\n"

    answer = parse(send(server.url, data + RESPONSES))

    failure = assert_refused_without_a_step(answer, server, model, status=413)
    assert "max_body_bytes" in str(failure)


def test_content_length_and_chunked_together_get_400(
    served: tuple[ScriptedServer, ScriptedModel],
) -> None:
    server, model = served
    data = (
        b"POST /v1/responses HTTP/1.1\r\ncontent-length: 5\r\n"
        b"transfer-encoding: chunked\r\n\r\n0\r\n\r\n"
    )

    answer = parse(send(server.url, data))

    assert "both" in str(assert_refused_without_a_step(answer, server, model).detail)


def test_a_transfer_coding_other_than_chunked_gets_400(
    served: tuple[ScriptedServer, ScriptedModel],
) -> None:
    server, model = served
    data = b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: gzip, chunked\r\n\r\n0\r\n\r\n"

    answer = parse(send(server.url, data))

    assert "chunked" in str(assert_refused_without_a_step(answer, server, model).detail)


# -- item 8: a body cut short ----------------------------------------------------------------


def test_a_body_shorter_than_its_content_length_gets_400_and_uses_no_step(
    served: tuple[ScriptedServer, ScriptedModel],
) -> None:
    server, model = served
    data = b'POST /v1/responses HTTP/1.1\r\ncontent-length: 5000\r\n\r\n{"model": "m"}'

    answer = parse(send(server.url, data, shut_write=True))

    failure = assert_refused_without_a_step(answer, server, model)
    assert failure.detail == "the body ended after 14 of its 5000 bytes (Content-Length)"
    assert str(failure).startswith(
        "Scripted wire endpoint request #1 (request_index=0) POST /v1/responses: "
        "malformed request (the body ended after 14 of its 5000 bytes"
    )


@pytest.mark.parametrize(
    "data",
    [
        b"POST /v1/resp",
        b"POST /v1/responses HTTP/1.1\r\ncontent-le",
        b"POST /v1/responses HTTP/1.1\r\ncontent-length: 3\r\n",
    ],
)
def test_a_request_cut_short_in_its_head_gets_400(
    served: tuple[ScriptedServer, ScriptedModel], data: bytes
) -> None:
    server, model = served

    answer = parse(send(server.url, data, shut_write=True))

    assert "connection ended" in str(assert_refused_without_a_step(answer, server, model).detail)


def test_a_connection_that_sends_nothing_is_not_a_request(
    served: tuple[ScriptedServer, ScriptedModel],
) -> None:
    server, _ = served

    assert send(server.url, b"", shut_write=True) == b""

    assert server.requests == ()
    # Only the unused step is reported: nothing was refused.
    with pytest.raises(UnconsumedModelStepsError):
        server.assert_complete()


# -- malformed request lines and headers -----------------------------------------------------


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (b"GARBAGE\r\n\r\n", "is not 'METHOD /path HTTP/1.1'"),
        (b"POST  /v1/responses HTTP/1.1\r\n\r\n", "is not 'METHOD /path HTTP/1.1'"),
        (b"POST /v1/responses HTTP/2.0\r\n\r\n", "HTTP version"),
        (b"POST /v1/responses\r\n\r\n", "is not 'METHOD /path HTTP/1.1'"),
        (b"POST http://x/v1/responses HTTP/1.1\r\n\r\n", "is not a /path"),
        (b"P(ST /v1/responses HTTP/1.1\r\n\r\n", "is not 'METHOD /path HTTP/1.1'"),
        (b"POST /v1/\xffresponses HTTP/1.1\r\n\r\n", "is not a /path"),
        (b"POST /v1/responses HTTP/1.1\r\nno colon here\r\n\r\n", "is not 'Name: value'"),
        (b"POST /v1/responses HTTP/1.1\r\n folded: x\r\n\r\n", "is not 'Name: value'"),
        (b"POST /v1/responses HTTP/1.1\r\nbad name: x\r\n\r\n", "is not 'Name: value'"),
        (b"POST /v1/responses HTTP/1.1\r\nx: a\x00b\r\n\r\n", "control characters"),
        (b"POST /v1/responses HTTP/1.1\r\nx: " + b"a" * 9000 + b"\r\n\r\n", "longer than"),
        (b"POST /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", "longer than"),
        (b"POST /v1/responses HTTP/1.1\r\n" + b"x: y\r\n" * 101 + b"\r\n", "more than 100"),
    ],
)
def test_a_malformed_request_head_gets_400(
    served: tuple[ScriptedServer, ScriptedModel], data: bytes, detail: str
) -> None:
    server, model = served

    answer = parse(send(server.url, data))

    assert detail in str(assert_refused_without_a_step(answer, server, model).detail)


def test_a_refusal_on_the_anthropic_path_has_the_anthropic_error_shape() -> None:
    model = ScriptedModel([[assistant_message("unused")]])
    server = ScriptedServer(model).start()
    try:
        answer = parse(send(server.url, b"POST /v1/messages HTTP/1.1\r\ncontent-length: x\r\n\r\n"))
    finally:
        server.close()

    assert answer.status == 400
    assert answer.json()["type"] == "error"
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert refused(server).path == "/v1/messages"


# -- the body size cap ---------------------------------------------------------------------


def test_a_body_over_max_body_bytes_gets_413_and_uses_no_step() -> None:
    model = ScriptedModel([[assistant_message("unused")]])
    server = ScriptedServer(model, max_body_bytes=1024).start()
    try:
        big = json.dumps({"model": "m", "input": "x" * 2000}).encode()
        answer = parse(send(server.url, request("POST", "/v1/responses", big)))
        chunked = (
            b"POST /v1/responses HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n"
            + b"".join(b"200\r\n" + b"x" * 512 + b"\r\n" for _ in range(3))
            + b"0\r\n\r\n"
        )
        chunked_answer = parse(send(server.url, chunked))
        fits = parse(send(server.url, request("POST", "/v1/responses", RESPONSES)))
    finally:
        server.close()

    assert (answer.status, chunked_answer.status, fits.status) == (413, 413, 200)
    failure = refused(server)
    assert failure.reason == "request_too_large"
    assert failure.detail == f"the body is {len(big)} bytes, more than the 1024 allowed"
    assert "raise ScriptedServer(max_body_bytes=...)" in str(failure)
    assert [r.status for r in server.requests] == [200]


def test_the_default_body_cap_is_8_mib() -> None:
    model = ScriptedModel([])
    server = ScriptedServer(model).start()
    try:
        with connect(server.url) as sock:
            sock.sendall(b"POST /v1/responses HTTP/1.1\r\ncontent-length: 8388609\r\n\r\n")
            answer = parse(read_all(sock))
        with connect(server.url) as sock:
            # Exactly the cap is read: the server waits for the body, so the answer is a
            # 400 for the body cut short, not a 413.
            sock.sendall(b"POST /v1/responses HTTP/1.1\r\ncontent-length: 8388608\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)
            at_cap = parse(read_all(sock))
    finally:
        server.close()

    assert (answer.status, at_cap.status) == (413, 400)


@pytest.mark.parametrize(
    ("value", "error"), [("1024", TypeError), (1.5, TypeError), (True, TypeError), (-1, ValueError)]
)
def test_max_body_bytes_must_be_a_whole_number_of_bytes(
    value: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match="max_body_bytes"):
        ScriptedServer(ScriptedModel([]), max_body_bytes=value)  # type: ignore[arg-type]


def test_expect_100_continue_is_answered_before_the_body() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    server = ScriptedServer(model).start()
    try:
        with connect(server.url) as sock:
            head = (
                f"POST /v1/responses HTTP/1.1\r\nexpect: 100-continue\r\n"
                f"content-length: {len(RESPONSES)}\r\n\r\n"
            )
            sock.sendall(head.encode())
            interim = sock.recv(25)
            sock.sendall(RESPONSES)
            answer = parse(read_all(sock))
    finally:
        server.close()

    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert answer.status == 200
    server.assert_complete()


def test_an_endpoint_failure_is_a_500_no_client_retries_and_assert_complete_raises_it(
    served: tuple[ScriptedServer, ScriptedModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, model = served

    async def broken(*args: object) -> object:
        raise LookupError("inside the endpoint")

    monkeypatch.setattr(server.endpoint, "open_async", broken)

    answer = parse(send(server.url, request("POST", "/v1/responses", RESPONSES)))

    assert answer.status == 500
    assert answer.headers["x-should-retry"] == "false"
    assert "LookupError('inside the endpoint')" in answer.json()["error"]["message"]
    with pytest.raises(RuntimeError, match="this is a bug in agents-testing") as caught:
        server.assert_complete()
    assert isinstance(caught.value.__cause__, LookupError)
    assert model.calls == ()
