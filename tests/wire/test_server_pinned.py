"""``ScriptedServer`` pinned byte for byte: each refusal's whole detail, each limit at its edge.

``test_server_http.py`` checks that every kind of malformed request is refused; these tests
pin what the refusal says (the detail a user reads, with the method and path as far as they
were read), the exact limits (one byte under a limit is read, one byte over is refused), the
bytes of the status line and headers, and the error body's shape for each wire format. The
mutation run for ``wire/server.py`` (``.ci/mutmut-server.toml``) relies on them.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from agents_testing import (
    ScriptedModel,
    WireRequestError,
    assistant_message,
    model_responder,
    model_stream,
)
from agents_testing.wire import ScriptedServer, anthropic_messages, openai_chat, openai_responses
from agents_testing.wire import server as server_module
from agents_testing.wire._endpoint import WireResponse

from ._raw import (
    TIMEOUT,
    Answer,
    Quiet,
    connect,
    eventually,
    parse,
    read_all,
    refused,
    request,
    reset,
    send,
)

RESPONSES = json.dumps({"model": "m", "input": "hi"}).encode()
HEAD = b"POST /v1/responses HTTP/1.1\r\n"
CHUNKED = HEAD + b"transfer-encoding: chunked\r\n\r\n"


def one_step() -> ScriptedModel:
    return ScriptedModel([[assistant_message("the one step")]])


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A running server on a one-step model; the test checks it itself."""
    running = ScriptedServer(one_step()).start()
    try:
        yield running
    finally:
        running.close()


def refusal(
    server: ScriptedServer, data: bytes, *, shut_write: bool = True
) -> tuple[Answer, WireRequestError]:
    """Send ``data``; check the answer is the recorded refusal, whole; return both."""
    answer = parse(send(server.url, data, shut_write=shut_write))
    error = refused(server)
    assert error.reason in ("malformed_request", "request_too_large")
    status = 413 if error.reason == "request_too_large" else 400
    module: ModuleType = openai_responses
    if error.path.endswith("/messages"):
        module = anthropic_messages
    elif error.path.endswith("/chat/completions"):
        module = openai_chat
    assert answer.status == status
    assert answer.json() == module.error_body(status, f"agents-testing: {error}")
    assert answer.headers == {
        "content-type": "application/json",
        "x-should-retry": "false",
        "connection": "close",
        "content-length": str(len(answer.body)),
    }
    assert server.requests == ()
    return answer, error


def served(server: ScriptedServer, data: bytes) -> Answer:
    """Send ``data``; check it reached the model and took its one step."""
    answer = parse(send(server.url, data))
    assert answer.status == 200, answer.body
    server.assert_complete()
    return answer


# -- each refusal's detail, method and path --------------------------------------------------

LONG = b"x" * 70

CASES = [
    # Cut short before the header section ended: nothing was parsed, so no method or path.
    (b"POS", "?", "?", "the connection ended inside the request line"),
    (HEAD + b"host: x", "?", "?", "the connection ended inside the header section"),
    # The request line.
    (
        b"POST /v1/responses\r\n\r\n",
        "?",
        "?",
        "the request line 'POST /v1/responses' is not 'METHOD /path HTTP/1.1'",
    ),
    (
        b"P(ST /v1/responses HTTP/1.1\r\n\r\n",
        "?",
        "?",
        "the request line 'P(ST /v1/responses HTTP/1.1' is not 'METHOD /path HTTP/1.1'",
    ),
    (
        b"POST /" + LONG + b"\r\n\r\n",
        "?",
        "?",
        f"the request line {'POST /' + 'x' * 54 + '...'!r} is not 'METHOD /path HTTP/1.1'",
    ),
    (
        b"POST v1/responses HTTP/1.1\r\n\r\n",
        "POST",
        "?",
        "the request target 'v1/responses' is not a /path",
    ),
    (
        b"POST /v1/responses HTTP/2.0\r\n\r\n",
        "POST",
        "/v1/responses",
        "the HTTP version 'HTTP/2.0' is not 1.1",
    ),
    # The headers.
    (
        HEAD + b"no colon\r\n\r\n",
        "POST",
        "/v1/responses",
        "the header line 'no colon' is not 'Name: value'",
    ),
    (
        HEAD + b"bad name: x\r\n\r\n",
        "POST",
        "/v1/responses",
        "the header line 'bad name: x' is not 'Name: value'",
    ),
    (
        HEAD + b"X-Trace: a\x01b\r\n\r\n",
        "POST",
        "/v1/responses",
        "the X-Trace header holds control characters",
    ),
    (
        HEAD + b"x: y\r\n" * 101 + b"\r\n",
        "POST",
        "/v1/responses",
        "the request has more than 100 headers",
    ),
    (
        HEAD + b"x: " + b"y" * 8190 + b"\r\n\r\n",
        "POST",
        "/v1/responses",
        "a header line is longer than 8192 bytes",
    ),
    # How the body is framed (method and path known from here on).
    (
        HEAD + b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST",
        "/v1/responses",
        "the request has both Content-Length and Transfer-Encoding",
    ),
    (
        HEAD + b"Transfer-Encoding: gzip\r\n\r\n",
        "POST",
        "/v1/responses",
        "Transfer-Encoding 'gzip' is not supported; send 'chunked'",
    ),
    (
        HEAD + b"transfer-encoding: chunked\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST",
        "/v1/responses",
        "Transfer-Encoding 'chunked, chunked' is not supported; send 'chunked'",
    ),
    (
        HEAD + b"Content-Length: 12, 12\r\n\r\n",
        "POST",
        "/v1/responses",
        "Content-Length '12, 12' is not one whole number of bytes",
    ),
    (
        HEAD + b"content-length: 2\r\ncontent-length: 2\r\n\r\n{}",
        "POST",
        "/v1/responses",
        "Content-Length '2, 2' is not one whole number of bytes",
    ),
    (
        b"POST /v1/chat/completions?x=1 HTTP/1.1\r\ncontent-length: 10\r\n\r\nabc",
        "POST",
        "/v1/chat/completions",
        "the body ended after 3 of its 10 bytes (Content-Length)",
    ),
    # A chunked body.
    (
        CHUNKED + b"5;x=1\r\nabc",
        "POST",
        "/v1/responses",
        "the connection ended inside a chunk",
    ),
    (
        CHUNKED + b"5\r\nabcde\r",  # the chunk's CRLF cut after its CR
        "POST",
        "/v1/responses",
        "the connection ended inside a chunk",
    ),
    (
        CHUNKED + b"5\r\nabcdefg\r\n0\r\n\r\n",
        "POST",
        "/v1/responses",
        "a chunk is longer than its size line says",
    ),
    (
        CHUNKED + b"5\r\nabcde\r\n",
        "POST",
        "/v1/responses",
        "the connection ended before the last chunk",
    ),
    (
        CHUNKED + b"0\r\nx-t: 1\r\n",
        "POST",
        "/v1/responses",
        "the connection ended inside the chunked trailer",
    ),
    (
        CHUNKED + b"0\r\n" + b"x-t: 1\r\n" * 101 + b"\r\n",
        "POST",
        "/v1/responses",
        "the chunked trailer has more than 100 fields",
    ),
    (
        CHUNKED + b"1" * 17 + b"\r\n",
        "POST",
        "/v1/responses",
        f"the chunk size {'1' * 17!r} is not a hex number",
    ),
    (
        CHUNKED + b"5 x\r\nabcde\r\n0\r\n\r\n",
        "POST",
        "/v1/responses",
        "the chunk size '5 x' is not a hex number",
    ),
    (
        CHUNKED + b"\n5\r\nabcde\r\n0\r\n\r\n",  # a size line that is empty
        "POST",
        "/v1/responses",
        "the chunk size '' is not a hex number",
    ),
    (
        CHUNKED + b"5\x0c\r\nabcde\r\n0\r\n\r\n",  # only spaces and tabs pad a size
        "POST",
        "/v1/responses",
        "the chunk size '5\\x0c' is not a hex number",
    ),
    (
        CHUNKED + b"X5\r\nabcde\r\n0\r\n\r\n",
        "POST",
        "/v1/responses",
        "the chunk size 'X5' is not a hex number",
    ),
    (
        CHUNKED + b"g" * 60 + b"\r\n",  # 60 characters are shown whole
        "POST",
        "/v1/responses",
        f"the chunk size {'g' * 60!r} is not a hex number",
    ),
    (
        CHUNKED + b"g" * 61 + b"\r\n",
        "POST",
        "/v1/responses",
        f"the chunk size {'g' * 60 + '...'!r} is not a hex number",
    ),
    (
        b"POST /v1/responses?x=1 HTTP/2.0\r\n\r\n",  # the path leaves the query out
        "POST",
        "/v1/responses",
        "the HTTP version 'HTTP/2.0' is not 1.1",
    ),
    (
        HEAD + b"Content-Length: X2\r\n\r\n{}",  # only spaces and tabs pad a value
        "POST",
        "/v1/responses",
        "Content-Length 'X2' is not one whole number of bytes",
    ),
    (
        HEAD + b"Content-Length: 2\x0c\r\n\r\n{}",
        "POST",
        "/v1/responses",
        "the Content-Length header holds control characters",
    ),
    (
        CHUNKED + b"g" * 70 + b"\r\n",
        "POST",
        "/v1/responses",
        f"the chunk size {'g' * 60 + '...'!r} is not a hex number",
    ),
]


@pytest.mark.parametrize(("data", "method", "path", "detail"), CASES)
def test_each_refusal_says_what_was_wrong_and_how_far_the_request_was_read(
    server: ScriptedServer, data: bytes, method: str, path: str, detail: str
) -> None:
    _, error = refusal(server, data)

    assert (error.reason, error.request_index) == ("malformed_request", 0)
    assert (error.method, error.path, error.detail) == (method, path, detail)
    assert str(error).startswith(
        f"Scripted wire endpoint request #1 (request_index=0) {method} {path}: "
        f"malformed request ({detail})"
    )


def test_a_refusal_on_each_format_path_has_that_formats_error_body(
    server: ScriptedServer,
) -> None:
    answer, error = refusal(server, b"POST /v1/messages HTTP/1.1\r\ncontent-length: x\r\n\r\n")

    assert answer.json()["type"] == "error"  # the Anthropic shape
    assert error.path == "/v1/messages"


def test_a_refusal_on_an_unknown_path_has_the_responses_error_body(
    server: ScriptedServer,
) -> None:
    answer, _ = refusal(server, b"POST /elsewhere HTTP/1.1\r\ncontent-length: x\r\n\r\n")

    assert set(answer.json()["error"]) == {"message", "type", "param", "code"}


def test_the_refusal_answer_starts_with_its_status_line_and_headers(
    server: ScriptedServer,
) -> None:
    raw = send(server.url, HEAD + b"content-length: x\r\n\r\n")

    head, _, body = raw.partition(b"\r\n\r\n")
    assert head == (
        b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
        b"x-should-retry: false\r\nconnection: close\r\ncontent-length: %d" % len(body)
    )


def test_a_refusal_after_two_served_requests_is_the_third_arrival() -> None:
    model = ScriptedModel([[assistant_message("one")], [assistant_message("two")]])
    server = ScriptedServer(model).start()
    try:
        for _ in range(2):
            parse(send(server.url, request("POST", "/v1/responses", RESPONSES)))
        parse(send(server.url, b"POS"))
    finally:
        server.close()

    assert refused(server).request_index == 2


def test_a_refusal_after_a_served_request_carries_the_next_index(
    server: ScriptedServer,
) -> None:
    parse(send(server.url, request("POST", "/v1/responses", RESPONSES)))

    parse(send(server.url, b"POS"))
    parse(send(server.url, b"GE"))

    error = refused(server)  # the first refusal, with the arrival index it had
    assert (error.request_index, error.detail) == (
        1,
        "the connection ended inside the request line",
    )


# -- too large -------------------------------------------------------------------------------


def test_a_content_length_over_the_cap_is_413_and_the_cap_itself_is_read() -> None:
    with ScriptedServer(one_step(), max_body_bytes=len(RESPONSES)) as server:
        served(server, request("POST", "/v1/responses", RESPONSES))
    over = ScriptedServer(one_step(), max_body_bytes=len(RESPONSES) - 1).start()
    try:
        _, error = refusal(over, request("POST", "/v1/responses", RESPONSES))
    finally:
        over.close()

    assert error.reason == "request_too_large"
    assert (error.method, error.path) == ("POST", "/v1/responses")
    assert error.detail == (
        f"the body is {len(RESPONSES)} bytes, more than the {len(RESPONSES) - 1} allowed"
    )


def chunked(body: bytes, sizes: list[int]) -> bytes:
    parts: list[bytes] = []
    start = 0
    for size in sizes:
        parts.append(b"%x\r\n%s\r\n" % (size, body[start : start + size]))
        start += size
    return CHUNKED + b"".join(parts) + b"0\r\n\r\n"


def test_a_chunked_body_over_the_cap_is_413_and_the_cap_itself_is_read() -> None:
    sizes = [10, len(RESPONSES) - 10]
    with ScriptedServer(one_step(), max_body_bytes=len(RESPONSES)) as server:
        served(server, chunked(RESPONSES, sizes))
    over = ScriptedServer(one_step(), max_body_bytes=len(RESPONSES) - 1).start()
    try:
        _, error = refusal(over, chunked(RESPONSES, sizes))
    finally:
        over.close()

    assert error.reason == "request_too_large"
    assert (error.method, error.path) == ("POST", "/v1/responses")
    assert error.detail == f"the chunked body is more than the {len(RESPONSES) - 1} bytes allowed"


# -- limits at their edges -------------------------------------------------------------------


def padded_line(length: int) -> bytes:
    """A valid request line of exactly ``length`` bytes (the query string pads it)."""
    start, end = b"POST /v1/responses?pad=", b" HTTP/1.1"
    return start + b"p" * (length - len(start) - len(end)) + end


def test_a_request_line_of_8192_bytes_is_read(server: ScriptedServer) -> None:
    line = padded_line(8192)

    served(server, line + b"\r\ncontent-length: %d\r\n\r\n%s" % (len(RESPONSES), RESPONSES))


def test_a_request_line_of_8192_bytes_is_read_before_its_headers_come(
    server: ScriptedServer,
) -> None:
    with connect(server.url) as sock:
        # The line and a header: more than a line's bytes, the line's end among them.
        sock.sendall(padded_line(8192) + b"\r\nx-a: b\r\n")
        time.sleep(0.2)  # let the server read them on their own
        sock.sendall(b"content-length: %d\r\n\r\n%s" % (len(RESPONSES), RESPONSES))
        answer = parse(read_all(sock))

    assert answer.status == 200, answer.body
    server.assert_complete()


def test_a_request_line_of_8193_bytes_is_refused(server: ScriptedServer) -> None:
    _, error = refusal(server, padded_line(8193) + b"\r\n\r\n")

    assert (error.method, error.path) == ("?", "?")
    assert error.detail == "the request line is longer than 8192 bytes"


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        # More than a line's bytes with no line end yet: refused before the client is done.
        (b"P" * 8195, "the request line is longer than 8192 bytes"),
        (b"P" * 8194 + b"\n", "the request line is longer than 8192 bytes"),
        # At the edge, the server waits for the line to end, then the client stops.
        (b"P" * 8194, "the connection ended inside the request line"),
    ],
)
def test_a_request_line_that_never_ends_is_refused_once_it_is_too_long(
    server: ScriptedServer, data: bytes, detail: str
) -> None:
    _, error = refusal(server, data)

    assert (error.method, error.path, error.detail) == ("?", "?", detail)


def test_a_header_section_over_64_kib_is_refused_before_it_ends(server: ScriptedServer) -> None:
    # 64 KiB of header lines and one byte more, with no blank line after them.
    lines = HEAD + b"x: " + b"y" * 8000 + b"\r\n"
    data = lines * 9
    data = data[: 65536 + 1]

    _, error = refusal(server, data)

    assert (error.method, error.path) == ("?", "?")
    assert error.detail == "the header section is longer than 65536 bytes"


def test_a_header_section_of_64_kib_is_waited_for(server: ScriptedServer) -> None:
    data = (HEAD + b"x: " + b"y" * 8000 + b"\r\n") * 9

    _, error = refusal(server, data[:65536])

    assert error.detail == "the connection ended inside the header section"


def test_100_headers_and_a_header_line_of_8192_bytes_are_read(server: ScriptedServer) -> None:
    headers = [b"content-length: %d" % len(RESPONSES), b"x-long: " + b"v" * 8184]
    headers += [b"x-%d: %d" % (n, n) for n in range(98)]
    assert len(headers) == 100
    assert len(headers[1]) == 8192

    served(server, HEAD + b"\r\n".join(headers) + b"\r\n\r\n" + RESPONSES)


def test_100_trailer_fields_are_read(server: ScriptedServer) -> None:
    body = b"%x\r\n%s\r\n0\r\n" % (len(RESPONSES), RESPONSES)

    served(server, CHUNKED + body + b"x-t: 1\r\n" * 100 + b"\r\n")


def test_a_chunk_size_line_over_8192_bytes_is_refused_before_it_ends(
    server: ScriptedServer,
) -> None:
    _, error = refusal(server, CHUNKED + b"0" * 8193)

    assert error.detail == "a chunk size line is longer than 8192 bytes"


def test_a_chunk_size_line_is_measured_from_where_it_starts(server: ScriptedServer) -> None:
    # A first chunk longer than a size line may be, then the next size line in a later read.
    first, second = b" " * 9000, RESPONSES
    with connect(server.url) as sock:
        sock.sendall(CHUNKED + b"%x\r\n%s\r\n" % (len(first), first))
        time.sleep(0.2)  # let the server read the first chunk on its own
        sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(second), second))
        answer = parse(read_all(sock))

    assert answer.status == 200, answer.body
    server.assert_complete()


def test_a_chunk_size_line_too_long_is_a_malformed_request(server: ScriptedServer) -> None:
    _, error = refusal(server, CHUNKED + b"0" * 8193)

    assert (error.reason, error.method, error.path) == (
        "malformed_request",
        "POST",
        "/v1/responses",
    )


def test_a_chunk_size_line_of_8192_bytes_is_waited_for(server: ScriptedServer) -> None:
    _, error = refusal(server, CHUNKED + b"0" * 8192)

    assert error.detail == "the connection ended before the last chunk"


# -- what is read ------------------------------------------------------------------------------


def test_bare_line_feeds_extensions_padding_and_a_16_digit_size_are_read(
    server: ScriptedServer,
) -> None:
    first, second = RESPONSES[:7], RESPONSES[7:]
    body = b"%x ;name=value\n%s\r\n%016X\t\r\n%s\r\n0\n\n" % (
        len(first),
        first,
        len(second),
        second,
    )

    served(server, b"POST /v1/responses HTTP/1.1\nTransfer-Encoding:  Chunked \n\n" + body)


def test_trailer_fields_ending_in_bare_line_feeds_are_read(server: ScriptedServer) -> None:
    body = b"%x\r\n%s\r\n0\nx-t: 1\nx-u: 2\n\n" % (len(RESPONSES), RESPONSES)

    served(server, CHUNKED + body)


def test_http_1_0_bare_line_feeds_and_header_values_are_read_as_sent() -> None:
    model = one_step()
    with ScriptedServer(model) as server:
        data = (
            b"POST /v1/responses?trace=1 HTTP/1.0\nContent-Length: %d\n"
            b"X-Note: \t caf\xe9\tend \t\n\n%s"
        ) % (len(RESPONSES), RESPONSES)
        answer = parse(send(server.url, data))

        assert answer.status == 200
        assert [(r.method, r.path) for r in server.requests] == [("POST", "/v1/responses")]
    assert model.calls[0].request.input == "hi"


def test_bytes_after_the_content_length_are_not_part_of_the_body(server: ScriptedServer) -> None:
    served(server, request("POST", "/v1/responses", RESPONSES) + b"trailing garbage")


def test_expect_100_continue_is_answered_for_a_chunked_body_whatever_its_case() -> None:
    with ScriptedServer(one_step()) as server, connect(server.url) as sock:
        sock.sendall(CHUNKED[:-2] + b"Expect: 100-Continue\r\n\r\n")
        interim = sock.recv(25)
        sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(RESPONSES), RESPONSES))
        answer = parse(read_all(sock))

    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert answer.status == 200


def test_an_expectation_other_than_100_continue_gets_no_interim_answer(
    server: ScriptedServer,
) -> None:
    raw = send(server.url, request("POST", "/v1/responses", RESPONSES, expect="something-else"))

    assert raw.startswith(b"HTTP/1.1 200 OK\r\n")
    server.assert_complete()


def test_a_request_without_a_body_gets_no_100_continue() -> None:
    server = ScriptedServer(ScriptedModel([])).start()
    try:
        raw = send(server.url, b"GET /v1/responses HTTP/1.1\r\nexpect: 100-continue\r\n\r\n")
    finally:
        server.close()

    assert raw.startswith(b"HTTP/1.1 405 Method Not Allowed\r\n")
    assert refused(server).reason == "method_not_allowed"


def test_a_served_answer_has_its_length_and_closes_the_connection(server: ScriptedServer) -> None:
    raw = send(server.url, request("POST", "/v1/responses", RESPONSES))

    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert head.endswith(b"\r\nconnection: close\r\ncontent-length: %d" % len(body))
    server.assert_complete()


def test_a_streamed_answer_is_chunked_and_ends_with_the_last_chunk(server: ScriptedServer) -> None:
    body = json.dumps({"model": "m", "input": "hi", "stream": True}).encode()

    raw = send(server.url, request("POST", "/v1/responses", body))

    head, _, rest = raw.partition(b"\r\n\r\n")
    assert head.endswith(b"\r\nconnection: close\r\ntransfer-encoding: chunked")
    assert b"content-length" not in head
    assert rest.endswith(b"\r\n0\r\n\r\n")
    size, _, after = rest.partition(b"\r\n")
    assert after[int(size, 16) : int(size, 16) + 2] == b"\r\n"
    server.assert_complete()


def test_a_status_without_a_reason_phrase_is_sent_with_a_neutral_one() -> None:
    head_bytes = server_module._head_bytes  # pyright: ignore[reportPrivateUsage]

    unknown = head_bytes(WireResponse(599, (("x-a", "1"),), (b"ab",)))
    streamed = head_bytes(WireResponse(200, (), (), streamed=True))

    assert unknown == (
        b"HTTP/1.1 599 Status\r\nx-a: 1\r\nconnection: close\r\ncontent-length: 2\r\n\r\n"
    )
    assert streamed == (
        b"HTTP/1.1 200 OK\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n"
    )


# -- repr and the refused client's linger ---------------------------------------------------


def test_repr_says_where_it_serves_and_how_many_requests_it_answered() -> None:
    server = ScriptedServer(one_step())
    assert repr(server) == "<ScriptedServer stopped requests=0>"
    with server:
        assert repr(server) == f"<ScriptedServer {server.url} requests=0>"
        parse(send(server.url, request("POST", "/v1/responses", RESPONSES)))
        assert repr(server) == f"<ScriptedServer {server.url} requests=1>"
    assert repr(server) == "<ScriptedServer stopped requests=1>"


def connections(server: ScriptedServer) -> int:
    return len(server._connections)  # pyright: ignore[reportPrivateUsage]


def wait_until_closed(server: ScriptedServer) -> None:
    eventually(lambda: not connections(server))


def refuse_and_linger(sock: socket.socket, body: bytes = b"") -> Answer:
    """Send a refused request (and ``body``); read the answer up to the server's half-close."""
    sock.sendall(HEAD + b"content-length: x\r\n\r\n" + body)
    return parse(read_all(sock))


def test_a_refused_client_that_finishes_sending_is_closed_at_once(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A linger far past the test's timeout: only the client's end can close the connection.
    monkeypatch.setattr(server_module, "_LINGER_SECONDS", 3600.0)
    with connect(server.url) as sock:
        answer = refuse_and_linger(sock, b"rest of a body")  # then the server half-closed
        assert connections(server) == 1  # and still reads what the client sends
        sock.sendall(b"more of the body")
        sock.shutdown(socket.SHUT_WR)
        wait_until_closed(server)

    assert answer.status == 400
    assert connections(server) == 0


def send_until_cut_off(sock: socket.socket, *, limit: int) -> int:
    """Send blocks until the server resets the connection; return how many bytes went."""
    block, sent = b"z" * 65536, 0
    try:
        while sent <= limit:
            sock.sendall(block)
            sent += len(block)
    except (ConnectionResetError, BrokenPipeError):
        return sent
    raise AssertionError(f"the server read {sent} bytes without cutting the client off")


def test_a_refused_client_that_keeps_sending_is_cut_off_after_16_mib(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "_LINGER_SECONDS", 3600.0)
    with connect(server.url) as sock:
        refuse_and_linger(sock)
        sent = send_until_cut_off(sock, limit=64 * 1024 * 1024)
        wait_until_closed(server)

    assert 16 * 1024 * 1024 <= sent < 64 * 1024 * 1024
    assert connections(server) == 0


def test_a_refused_client_may_send_exactly_16_mib_more(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "_LINGER_SECONDS", 3600.0)
    cap = 16 * 1024 * 1024
    with connect(server.url) as sock:
        refuse_and_linger(sock)
        (connection,) = server._connections  # pyright: ignore[reportPrivateUsage]
        sock.sendall(b"z" * cap)  # read away; one byte more would be cut off
        eventually(lambda: connection.lingered >= cap)
        assert connection.lingered == cap
        assert connection.transport is not None
        assert not connection.transport.is_closing()  # still lingering, not cut off
        sock.shutdown(socket.SHUT_WR)
        wait_until_closed(server)

    assert connections(server) == 0


def test_a_refused_client_that_stays_is_closed_after_the_linger(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "_LINGER_SECONDS", 0.0)
    with connect(server.url) as sock:
        answer = refuse_and_linger(sock)
        wait_until_closed(server)

    assert answer.status == 400
    assert connections(server) == 0


# -- streams: a half-closed client, a client that stops reading ----------------------------


def stream_request() -> bytes:
    return request(
        "POST", "/v1/responses", json.dumps({**json.loads(RESPONSES), "stream": True}).encode()
    )


def test_a_client_that_shuts_its_write_side_still_gets_the_whole_stream() -> None:
    async def events() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "output_text_delta", "item_id": None, "delta": "before"}
        await asyncio.sleep(0.05)  # the client's end of stream arrives meanwhile
        yield {"type": "output_text_delta", "item_id": None, "delta": "after"}

    with ScriptedServer(ScriptedModel([model_stream(events())])) as server:
        answer = parse(send(server.url, stream_request(), shut_write=True))

    assert answer.status == 200
    assert b"before" in answer.body
    assert b"after" in answer.body


class Counted:
    """A stream source of ``count`` large deltas that counts how many were pulled."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.pulled = 0
        self.closed = threading.Event()

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        try:
            for _ in range(self.count):
                self.pulled += 1
                yield {"type": "output_text_delta", "item_id": None, "delta": "d" * 65536}
        finally:
            self.closed.set()

    def settled(self) -> int:
        """Wait until no delta has been pulled for a while; return how many were."""
        seen, deadline = -1, time.monotonic() + TIMEOUT
        while seen != self.pulled and time.monotonic() < deadline:
            seen = self.pulled
            time.sleep(0.3)
        return seen


# 16 MiB of deltas: more than the loopback socket buffers hold between the server and a
# client that reads nothing.
DELTAS = 256


def test_a_stream_the_client_does_not_read_is_not_pulled_ahead() -> None:
    source = Counted(DELTAS)
    model = ScriptedModel([model_stream(source.events())])
    with ScriptedServer(model) as server, connect(server.url) as sock:
        sock.sendall(stream_request())
        assert sock.recv(100).startswith(b"HTTP/1.1 200 OK\r\n")
        waiting = source.settled()  # the server waits for the client to read
        rest = read_all(sock)

    assert waiting < DELTAS
    assert source.pulled == DELTAS
    assert rest.count(b"d" * 65536) >= DELTAS
    assert rest.endswith(b"\r\n0\r\n\r\n")


def test_a_client_that_leaves_a_stream_it_stopped_reading_closes_its_source() -> None:
    source = Counted(DELTAS)
    with ScriptedServer(ScriptedModel([model_stream(source.events())])) as server:
        sock = connect(server.url)
        sock.sendall(stream_request())
        assert sock.recv(100).startswith(b"HTTP/1.1 200 OK\r\n")
        waiting = source.settled()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()  # a reset, as a killed client sends
        assert source.closed.wait(TIMEOUT)

    assert waiting < DELTAS
    assert source.pulled == waiting  # nothing was pulled after the client left
    assert [r.status for r in server.requests] == [200]


# -- failures on the loop that are ours, and those that are not -------------------------------


def on_the_loop(server: ScriptedServer, callback: Callable[[], object]) -> None:
    """Run ``callback`` on the server's loop as a plain callback and wait until it ran."""
    serving = server._serving  # pyright: ignore[reportPrivateUsage]
    assert serving is not None
    ran = threading.Event()
    serving.loop.call_soon_threadsafe(callback)
    serving.loop.call_soon_threadsafe(ran.set)
    assert ran.wait(TIMEOUT)


def raises(error: BaseException) -> Callable[[], object]:
    def callback() -> object:
        raise error

    return callback


@pytest.mark.parametrize("error", [ConnectionResetError("gone"), asyncio.CancelledError()])
def test_a_client_going_away_on_the_loop_is_not_a_failure(error: BaseException) -> None:
    with Quiet() as quiet, ScriptedServer(ScriptedModel([])) as server:
        on_the_loop(server, raises(error))

    assert quiet.errors == []


def test_an_error_of_ours_on_the_loop_fails_assert_complete_as_a_bug() -> None:
    server = ScriptedServer(ScriptedModel([])).start()
    try:
        on_the_loop(server, raises(LookupError("inside a callback")))
    finally:
        server.close()

    with pytest.raises(RuntimeError) as caught:
        server.assert_complete()
    assert str(caught.value) == (
        "ScriptedServer failed while answering a request; this is a bug in agents-testing, "
        "please report it: LookupError('inside a callback')"
    )
    assert isinstance(caught.value.__cause__, LookupError)


def test_a_loop_error_without_an_exception_fails_with_its_message() -> None:
    server = ScriptedServer(ScriptedModel([])).start()
    try:
        serving = server._serving  # pyright: ignore[reportPrivateUsage]
        assert serving is not None
        loop = serving.loop
        on_the_loop(server, lambda: loop.call_exception_handler({"message": "a lost handle"}))
    finally:
        server.close()

    with pytest.raises(RuntimeError, match="this is a bug in agents-testing") as caught:
        server.assert_complete()
    assert repr(caught.value.__cause__) == "RuntimeError('a lost handle')"


def test_the_500_for_an_endpoint_failure_is_sent_whole(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object) -> object:
        raise LookupError("inside the endpoint")

    monkeypatch.setattr(server.endpoint, "open_async", broken)

    raw = send(server.url, request("POST", "/v1/responses", RESPONSES))

    head, _, body = raw.partition(b"\r\n\r\n")
    text = "agents-testing internal error: LookupError('inside the endpoint')"
    assert json.loads(body) == openai_responses.error_body(500, text)
    assert head == (
        b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\n"
        b"x-should-retry: false\r\nconnection: close\r\ncontent-length: %d" % len(body)
    )


def test_a_failure_while_sending_the_answer_fails_assert_complete_as_a_bug(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(response: object) -> bytes:
        raise LookupError("while sending")

    monkeypatch.setattr(server_module, "_head_bytes", broken)

    raw = send(server.url, request("POST", "/v1/responses", RESPONSES))

    assert raw == b""  # the connection was dropped
    with pytest.raises(RuntimeError, match="this is a bug in agents-testing") as caught:
        server.assert_complete()
    assert repr(caught.value.__cause__) == "LookupError('while sending')"


# -- a client that leaves before its answer is ready -----------------------------------------


async def until(event: threading.Event) -> None:
    while not event.is_set():  # noqa: ASYNC110 - set from the test's thread
        await asyncio.sleep(0.005)


def test_an_answer_the_client_left_before_is_still_computed_and_recorded() -> None:
    gate, answered = threading.Event(), threading.Event()

    async def respond(call: object) -> list[Any]:
        await until(gate)
        answered.set()
        return [assistant_message("nobody reads this")]

    with ScriptedServer(ScriptedModel([model_responder(respond)])) as server:
        sock = connect(server.url)
        sock.sendall(request("POST", "/v1/responses", RESPONSES))
        eventually(lambda: server._arrivals)  # pyright: ignore[reportPrivateUsage]
        reset(sock)
        wait_until_closed(server)
        gate.set()  # the responder is not cancelled by the client's leaving
        assert answered.wait(TIMEOUT)
        eventually(lambda: server.requests)

    assert [r.status for r in server.requests] == [200]


def test_a_stream_whose_client_left_before_its_first_event_is_closed_unread() -> None:
    first, closed = threading.Event(), threading.Event()
    pulled: list[str] = []

    async def events() -> AsyncIterator[dict[str, Any]]:
        try:
            await until(first)
            pulled.append("before")
            yield {"type": "output_text_delta", "item_id": None, "delta": "before"}
            pulled.append("after")
            yield {"type": "output_text_delta", "item_id": None, "delta": "after"}
            await until(threading.Event())  # never set: only closing the source ends it
        finally:
            closed.set()

    with ScriptedServer(ScriptedModel([model_stream(events())])) as server:
        sock = connect(server.url)
        sock.sendall(stream_request())
        eventually(lambda: server._arrivals)  # pyright: ignore[reportPrivateUsage]
        reset(sock)
        wait_until_closed(server)
        first.set()  # the stream's first event decides its status; nobody is left to send it to
        assert closed.wait(TIMEOUT)  # closed by the server, not by its closing

    assert pulled == ["before"]
    assert [r.status for r in server.requests] == [200]


# -- starting and closing --------------------------------------------------------------------


def test_starting_a_running_server_says_so() -> None:
    with ScriptedServer(ScriptedModel([])) as server:
        with pytest.raises(RuntimeError) as caught:
            server.start()
        assert str(caught.value) == "ScriptedServer is already running"


def test_the_server_runs_in_one_named_daemon_thread() -> None:
    before = set(threading.enumerate())
    with ScriptedServer(ScriptedModel([])):
        started = [t for t in threading.enumerate() if t not in before]
        assert [(t.name, t.daemon) for t in started] == [("agents-testing-server", True)]
    assert set(threading.enumerate()) == before


def test_closing_from_a_responder_is_refused_with_how_to_close() -> None:
    said: list[str] = []
    running: list[ScriptedServer] = []

    def respond(call: object) -> list[Any]:
        try:
            running[0].close()
        except RuntimeError as error:
            said.append(str(error))
        return [assistant_message("still served")]

    with ScriptedServer(ScriptedModel([model_responder(respond)])) as server:
        running.append(server)
        answer = parse(send(server.url, request("POST", "/v1/responses", RESPONSES)))

    assert answer.status == 200
    assert said == [
        "ScriptedServer.close() was called from a responder or stream source the server is "
        "running; close it from the test instead"
    ]


def test_closing_a_server_whose_loop_already_ended_only_joins_its_thread() -> None:
    server = ScriptedServer(ScriptedModel([])).start()
    serving, thread = server._serving, server._thread  # pyright: ignore[reportPrivateUsage]
    assert serving is not None
    assert thread is not None
    serving.loop.call_soon_threadsafe(serving.stop.set)
    thread.join(TIMEOUT)
    assert not thread.is_alive()

    server.close()  # the loop is closed: nothing to stop, nothing raised

    assert repr(server) == "<ScriptedServer stopped requests=0>"
    server.assert_complete()


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("1024", TypeError, "max_body_bytes must be an int number of bytes, got str"),
        (True, TypeError, "max_body_bytes must be an int number of bytes, got bool"),
        (-1, ValueError, "max_body_bytes must be >= 0, got -1"),
    ],
)
def test_a_bad_max_body_bytes_is_named_with_what_it_got(
    value: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        ScriptedServer(ScriptedModel([]), max_body_bytes=value)  # type: ignore[arg-type]

    assert str(caught.value) == message


def test_a_cap_of_zero_refuses_any_body_as_too_large() -> None:
    server = ScriptedServer(ScriptedModel([]), max_body_bytes=0).start()
    try:
        _, error = refusal(server, request("POST", "/v1/responses", b"{}"))
    finally:
        server.close()

    assert error.detail == "the body is 2 bytes, more than the 0 allowed"


def test_two_servers_serve_side_by_side_each_on_its_own_free_port() -> None:
    with ScriptedServer(one_step()) as first, ScriptedServer(one_step()) as second:
        assert first.url != second.url
        served(first, request("POST", "/v1/responses", RESPONSES))
        served(second, request("POST", "/v1/responses", RESPONSES))


def test_a_server_whose_loop_fails_to_start_raises_from_start_and_leaves_no_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The loop refuses a handler that is not callable, before anything is bound.
    monkeypatch.setattr(ScriptedServer, "_loop_error", "not callable")
    before = set(threading.enumerate())
    server = ScriptedServer(ScriptedModel([]))

    with pytest.raises(TypeError, match="A callable object or None is expected"):
        server.start()

    assert set(threading.enumerate()) == before
    assert repr(server) == "<ScriptedServer stopped requests=0>"


def test_closing_with_a_stream_in_flight_is_not_a_failure_of_the_server() -> None:
    async def events() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "output_text_delta", "item_id": None, "delta": "before"}
        await until(threading.Event())  # never set: closing the server ends it

    server = ScriptedServer(ScriptedModel([model_stream(events())])).start()
    with connect(server.url) as sock:
        sock.sendall(stream_request())
        seen = b""
        while b"before" not in seen:
            seen += sock.recv(65536)
        server.close()

    server.assert_complete()  # the stream was cut by close(): nothing failed
    assert [r.status for r in server.requests] == [200]
