"""``RecordingProxy`` pinned byte for byte: what it forwards, relays, refuses and records.

The "provider" here is a small stdlib HTTP server on 127.0.0.1 that keeps every request it
gets and answers with exact bytes, and the client is a raw socket: so the tests see the
proxy's own framing and headers, which the provider clients hide.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import re
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, BinaryIO

import pytest

from agents_testing import (
    ModelResponse,
    RecordedExchange,
    Recording,
    ScriptedHTTPError,
    Usage,
    assistant_message,
    model_response,
    model_stream,
)
from agents_testing.wire import RecordingProxy

# Every socket read is bounded: a proxy that never answers fails the test, never hangs it.
TIMEOUT = 10.0
SERVER = f"{BaseHTTPRequestHandler.server_version} {BaseHTTPRequestHandler.sys_version}"
ACCOUNT = r"ACCT-\d{8}"
THREAD_NAME = "agents-testing-recording-proxy"

# -- the stand-in provider -----------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """One request as the provider read it."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes


# A reply is the exact bytes of a whole answer, or a function that writes them itself.
Reply = bytes | Callable[[BinaryIO], None]


class _ProviderServer(ThreadingHTTPServer):
    daemon_threads = True
    provider: Provider


class _ProviderHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = TIMEOUT

    def _serve(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        provider = self.server.provider  # type: ignore[attr-defined]
        reply = provider.take(Received(self.command, self.path, list(self.headers.items()), body))
        try:
            if isinstance(reply, bytes):
                self.wfile.write(reply)
            else:
                reply(self.wfile)
            self.wfile.flush()
        except OSError:
            pass  # the proxy gave up on this answer (its timeout test)
        self.close_connection = True

    do_GET = _serve
    do_POST = _serve
    do_PUT = _serve

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet."""


class Provider:
    """Answer the requests in the order they arrive, each with the next reply."""

    def __init__(self, *replies: Reply) -> None:
        self._replies = list(replies)
        self._lock = threading.Lock()
        self.received: list[Received] = []
        self.arrivals: queue.Queue[Received] = queue.Queue()
        self._server = _ProviderServer(("127.0.0.1", 0), _ProviderHandler)
        self._server.provider = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def host(self) -> str:
        return self.url.removeprefix("http://")

    def take(self, request: Received) -> Reply:
        with self._lock:
            self.received.append(request)
            reply = self._replies.pop(0)
        self.arrivals.put(request)
        return reply

    def __enter__(self) -> Provider:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()


def answer(status: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    """The exact bytes of an answer that gives its length and closes the connection."""
    head = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers)]
    head += [f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def json_answer(payload: Any, status: str = "200 OK") -> bytes:
    return answer(status, [("Content-Type", "application/json")], json.dumps(payload).encode())


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


# -- the raw client ------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One answer of the proxy as read off the socket, its body with the framing it had."""

    status_line: str
    headers: list[tuple[str, str]]
    body: bytes

    @property
    def shown_headers(self) -> list[tuple[str, str]]:
        """The headers, the date (which changes every second) shown as <date>."""
        return [(key, "<date>" if key == "Date" else value) for key, value in self.headers]

    def json(self) -> Any:
        return json.loads(self.body)


def parse(raw: bytes) -> Answer:
    head, separator, body = raw.partition(b"\r\n\r\n")
    assert separator, raw
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = [(key, value.strip()) for key, _, value in (line.partition(":") for line in lines)]
    return Answer(status_line, headers, body)


def chunks(body: bytes) -> list[bytes]:
    """Read a chunked body strictly: every chunk framed, then the last chunk and nothing more."""
    found: list[bytes] = []
    while True:
        size_line, separator, body = body.partition(b"\r\n")
        assert separator, body
        assert re.fullmatch(rb"[0-9a-f]+", size_line), size_line
        size = int(size_line, 16)
        if size == 0:
            assert body == b"\r\n"
            return found
        assert body[size : size + 2] == b"\r\n"
        found.append(body[:size])
        body = body[size + 2 :]


def relayed_so_far(raw: bytes) -> bytes:
    """Return the data of the complete chunks among the bytes of an answer read so far."""
    _, separator, body = raw.partition(b"\r\n\r\n")
    found = b""
    while separator:
        size_line, separator, rest = body.partition(b"\r\n")
        size = int(size_line, 16) if separator else 0
        if size == 0 or len(rest) < size + 2:
            break
        found, body = found + rest[:size], rest[size + 2 :]
    return found


def request(method: str, target: str, headers: list[tuple[str, str]], body: bytes = b"") -> bytes:
    head = [f"{method} {target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def read_all(sock: socket.socket, data: bytes = b"") -> bytes:
    while True:
        received = sock.recv(65536)
        if not received:
            return data
        data += received


def send(url: str, data: bytes, *, shut_write: bool = False) -> Answer:
    port = int(url.rpartition(":")[2])
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(data)
        if shut_write:
            sock.shutdown(socket.SHUT_WR)
        return parse(read_all(sock))


def post_json(url: str, path: str, payload: Any, *extra: tuple[str, str]) -> Answer:
    body = json.dumps(payload).encode()
    headers = [("Host", "proxy"), *extra, ("Content-Length", str(len(body)))]
    return send(url, request("POST", path, headers, body))


def responses_body(text: str, response_id: str | None = "resp_1") -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": "response",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            }
        ],
        "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    }
    if response_id is not None:
        body["id"] = response_id
    return body


def said(text: str, response_id: str | None = "resp_1") -> Any:
    return model_response(
        ModelResponse(
            [assistant_message(text, id="msg_1")],
            Usage(input_tokens=3, output_tokens=2, total_tokens=5),
            response_id=response_id,
        )
    )


def proxy_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == THREAD_NAME]


@pytest.fixture
def no_proxy_thread_left() -> Iterator[None]:
    before = set(proxy_threads())
    yield
    assert set(proxy_threads()) <= before


# -- forwarding and relaying ---------------------------------------------------------------


def test_a_model_call_is_forwarded_under_the_prefix_relayed_and_recorded_exactly() -> None:
    sent = {"model": "gpt-4.1", "input": "Hi?"}
    body = json.dumps(sent).encode()
    reply_body = json.dumps(responses_body("Hi there")).encode()
    reply = (
        b"HTTP/1.1 200 Fine\r\nContent-Type: application/json\r\nX-Request-Id: req_1\r\n"
        b"Keep-Alive: timeout=5\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
        % (len(reply_body), reply_body)
    )
    with Provider(reply) as provider, RecordingProxy(f"{provider.url}/edge/LUX/") as proxy:
        got = send(
            proxy.url,
            request(
                "POST",
                "/v1/responses?api-version=2",
                [
                    ("Host", "proxy.example"),
                    ("User-Agent", "pinned/1"),
                    ("Content-Type", "application/json"),
                    ("Accept-Encoding", "gzip"),
                    ("Connection", "keep-alive"),
                    ("Keep-Alive", "timeout=5"),
                    ("TE", "trailers"),
                    ("OpenAI-Beta", "assistants=v2"),
                    ("Content-Length", str(len(body))),
                ],
                body,
            ),
        )
        recording = proxy.recording

    assert provider.received == [
        Received(
            "POST",
            "/edge/LUX/v1/responses?api-version=2",
            [
                ("host", provider.host),
                ("User-Agent", "pinned/1"),
                ("Content-Type", "application/json"),
                ("OpenAI-Beta", "assistants=v2"),
                ("content-length", str(len(body))),
            ],
            body,
        )
    ]
    assert got == Answer(got.status_line, got.headers, reply_body)
    assert got.status_line == "HTTP/1.1 200 Fine"
    assert got.shown_headers == [
        ("Server", SERVER),
        ("Date", "<date>"),
        ("Content-Type", "application/json"),
        ("X-Request-Id", "req_1"),
        ("connection", "close"),
        ("content-length", str(len(reply_body))),
    ]
    assert recording.exchanges == (
        RecordedExchange(
            0,
            "POST",
            "/v1/responses",
            "openai.responses",
            sent,
            200,
            False,
            said("Hi there"),
            headers={"openai-beta": "assistants=v2"},
        ),
    )
    assert (recording.redacted, recording.warnings) == ((), ())


def test_a_stream_is_relayed_chunk_by_chunk_as_it_arrives_and_recorded_whole() -> None:
    completed = {
        "type": "response.completed",
        "response": {**responses_body("Hello", "resp_9"), "status": "completed"},
    }
    events = (
        'event: response.created\ndata: {"type": "response.created", "response": {}}\n\n'
        'data: {"type": "response.output_text.delta", "delta": "Hel"}\n\n'
        'data: {"type": "response.output_text.delta", "delta": "lo"}\n\n'
        f"data: {json.dumps(completed)}\n\n"
        "data: [DONE]\n\n"
    ).encode()
    # The first part ends inside the last event: joined wrong, the answer could not be read.
    cut = events.index(b'"Hello"')
    first, rest = events[:cut], events[cut:]
    relayed = threading.Event()

    def two_parts(out: BinaryIO) -> None:
        out.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            b"Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\n\r\n" + chunk(first)
        )
        out.flush()
        relayed.wait(TIMEOUT)
        out.write(chunk(rest) + b"0\r\n\r\n")

    body = b'{"model": "gpt-4.1", "input": "Hi?", "stream": true}'
    with Provider(two_parts) as provider, RecordingProxy(provider.url) as proxy:
        port = int(proxy.url.rpartition(":")[2])
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
            sock.sendall(
                request(
                    "POST",
                    "/v1/responses",
                    [("Host", "p"), ("Content-Length", str(len(body)))],
                    body,
                )
            )
            data = b""
            while relayed_so_far(data) != first:
                received = sock.recv(65536)
                assert received, data  # the proxy closed before relaying the first part
                data += received
            relayed.set()  # the client has the first part before the provider sends the rest
            got = parse(read_all(sock, data))
        recording = proxy.recording

    assert got.status_line == "HTTP/1.1 200 OK"
    assert got.shown_headers == [
        ("Server", SERVER),
        ("Date", "<date>"),
        ("Content-Type", "text/event-stream; charset=utf-8"),
        ("Cache-Control", "no-cache"),
        ("connection", "close"),
        ("transfer-encoding", "chunked"),
    ]
    pieces = chunks(got.body)
    assert b"".join(pieces) == events
    assert len(pieces) >= 2
    assert recording.exchanges == (
        RecordedExchange(
            0,
            "POST",
            "/v1/responses",
            "openai.responses",
            {"model": "gpt-4.1", "input": "Hi?", "stream": True},
            200,
            True,
            model_response(
                ModelResponse(
                    [assistant_message("Hello", id="msg_1")],
                    Usage(input_tokens=3, output_tokens=2, total_tokens=5),
                    response_id="resp_9",
                )
            ),
            headers={},
        ),
    )


def test_a_stream_kept_as_events_records_each_event_as_the_provider_sent_it() -> None:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_7", "usage": {"input_tokens": 2}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Yo"}},
        {"type": "message_stop"},
    ]
    stream = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    reply = answer("200 OK", [("Content-Type", "text/event-stream")], stream)
    with Provider(reply) as provider, RecordingProxy(provider.url, keep_events=True) as proxy:
        got = post_json(proxy.url, "/v1/messages", {"model": "claude", "stream": True})
        recording = proxy.recording

    assert chunks(got.body) == [stream]
    assert [exchange.step for exchange in recording.exchanges] == [model_stream(events)]
    assert [exchange.streamed for exchange in recording.exchanges] == [True]


def test_an_answer_without_a_content_type_or_an_id_is_read_as_a_plain_body() -> None:
    # Not UTF-8 on the wire: relayed as it came, recorded with the replacement character.
    reply_body = json.dumps(responses_body("caf\u00e9", None)).encode().replace(b"\\u00e9", b"\xe9")
    reply = answer("200 OK", [("X-Trace", "1")], reply_body)
    # A pattern to redact: the missing id is no text to redact.
    with Provider(reply) as provider, RecordingProxy(provider.url, redact=[ACCOUNT]) as proxy:
        got = post_json(proxy.url, "/v1/responses", {"input": "?"})
        recording = proxy.recording

    assert got.body == reply_body
    assert got.shown_headers == [
        ("Server", SERVER),
        ("Date", "<date>"),
        ("X-Trace", "1"),
        ("connection", "close"),
        ("content-length", str(len(reply_body))),
    ]
    assert recording.exchanges == (
        RecordedExchange(
            0,
            "POST",
            "/v1/responses",
            "openai.responses",
            {"input": "?"},
            200,
            False,
            said("caf\ufffd", None),
            headers={},
        ),
    )
    assert recording.redacted == ("redact[0]: 0 matches",)


def error_fields(step: Any) -> tuple[Any, ...]:
    error = step["error"]
    assert type(error) is ScriptedHTTPError
    return (
        step["type"],
        error.status,
        error.message,
        error.retry_after,
        error.error_type,
        error.code,
    )


def test_provider_errors_are_recorded_with_every_field_and_the_message_redacted() -> None:
    limited = {
        "error": {"message": "Slow down, ACCT-12345678.", "type": "weird_type", "code": "odd"}
    }
    replies = (
        answer(
            "429 Too Many Requests",
            [("Content-Type", "application/json"), ("Retry-After", "2")],
            json.dumps(limited).encode(),
        ),
        answer("500 Internal Server Error", [("Content-Type", "text/plain")], b"oops"),
    )
    with Provider(*replies) as provider, RecordingProxy(provider.url, redact=[ACCOUNT]) as proxy:
        first = post_json(proxy.url, "/v1/chat/completions", {"messages": []})
        second = post_json(proxy.url, "/v1/chat/completions", {"messages": [1]})
        recording = proxy.recording

    assert (first.status_line, first.json()) == ("HTTP/1.1 429 Too Many Requests", limited)
    assert (second.status_line, second.body) == ("HTTP/1.1 500 Internal Server Error", b"oops")
    assert [error_fields(step) for step in recording.steps] == [
        ("error", 429, "Slow down, [REDACTED].", 2, "weird_type", "odd"),
        ("error", 500, None, None, None, None),
    ]
    assert [(e.index, e.status, e.streamed, e.body) for e in recording.exchanges] == [
        (0, 429, False, {"messages": []}),
        (1, 500, False, {"messages": [1]}),
    ]
    assert recording.redacted == ("redact[0]: 1 match",)


def test_what_is_not_a_model_call_is_forwarded_and_relayed_but_not_recorded() -> None:
    ok = json_answer(responses_body("fine"))
    replies = (json_answer({"data": []}), ok, ok, ok, answer("200 OK", [], b"not json"), ok)
    with Provider(*replies) as provider, RecordingProxy(provider.url) as proxy:
        listed = send(proxy.url, request("GET", "/v1/models", [("Host", "p")]))
        put = send(
            proxy.url,
            request("PUT", "/v1/responses", [("Host", "p"), ("Content-Length", "2")], b"{}"),
        )
        not_json = send(
            proxy.url,
            request("POST", "/v1/responses", [("Host", "p"), ("Content-Length", "3")], b"{{{"),
        )
        not_text = send(
            proxy.url,
            request("POST", "/v1/responses", [("Host", "p"), ("Content-Length", "1")], b"\xff"),
        )
        unreadable = post_json(proxy.url, "/v1/responses", {"input": "a"})
        recorded = post_json(proxy.url, "/v1/responses", {"input": "b"})
        recording = proxy.recording

    assert [answer.status_line for answer in (listed, put, not_json, not_text, unreadable)] == [
        "HTTP/1.1 200 OK"
    ] * 5
    assert listed.json() == {"data": []}
    assert unreadable.body == b"not json"
    assert recorded.json() == responses_body("fine")
    assert [(r.method, r.target, r.body) for r in provider.received] == [
        ("GET", "/v1/models", b""),
        ("PUT", "/v1/responses", b"{}"),
        ("POST", "/v1/responses", b"{{{"),
        ("POST", "/v1/responses", b"\xff"),
        ("POST", "/v1/responses", b'{"input": "a"}'),
        ("POST", "/v1/responses", b'{"input": "b"}'),
    ]
    assert provider.received[0].headers == [("host", provider.host), ("content-length", "0")]
    assert recording.exchanges == (
        RecordedExchange(
            0,
            "POST",
            "/v1/responses",
            "openai.responses",
            {"input": "b"},
            200,
            False,
            said("fine"),
            headers={},
        ),
    )


# -- request bodies ------------------------------------------------------------------------


def test_a_chunked_request_body_is_forwarded_whole_with_its_length() -> None:
    body = b'{"model": "gpt-4.1", "input": "a chunked body, in several parts"}'
    framed = (
        b"1\r\n" + body[:1] + b"\r\n"
        + b"1a;name=value\r\n" + body[1:27] + b"\r\n"
        + b"%x\r\n%s\r\n" % (len(body) - 27, body[27:])
        + b"0\r\n\r\n"
    )  # fmt: skip
    with (
        Provider(json_answer(responses_body("ok"))) as provider,
        RecordingProxy(provider.url) as proxy,
    ):
        got = send(
            proxy.url,
            request(
                "POST",
                "/v1/responses",
                [("Host", "p"), ("Transfer-Encoding", "Chunked")],
                framed,
            ),
        )
        recording = proxy.recording

    assert got.status_line == "HTTP/1.1 200 OK"
    assert provider.received == [
        Received(
            "POST",
            "/v1/responses",
            [("host", provider.host), ("content-length", str(len(body)))],
            body,
        )
    ]
    assert [exchange.body for exchange in recording.exchanges] == [json.loads(body)]


@pytest.mark.parametrize(
    ("length", "body", "forwarded"),
    [("1", b"7", b"7"), ("0", b"", b"")],
    ids=["one byte", "zero"],
)
def test_a_content_length_body_is_read_to_its_length(
    length: str, body: bytes, forwarded: bytes
) -> None:
    with Provider(json_answer({})) as provider, RecordingProxy(provider.url) as proxy:
        got = send(
            proxy.url,
            request("PUT", "/v1/files", [("Host", "p"), ("Content-Length", length)], body),
        )

    assert got.json() == {}
    assert provider.received == [
        Received(
            "PUT",
            "/v1/files",
            [("host", provider.host), ("content-length", str(len(forwarded)))],
            forwarded,
        )
    ]


def refused(reason: str, kind: str, status_line: str, message_length: int) -> Answer:
    return Answer(
        status_line,
        [
            ("Server", SERVER),
            ("Date", "<date>"),
            ("content-type", "application/json"),
            ("content-length", str(message_length)),
            ("x-should-retry", "false"),
            ("connection", "close"),
        ],
        json.dumps(
            {"error": {"message": f"agents-testing recording proxy {reason}", "type": kind}}
        ).encode(),
    )


def assert_refused(got: Answer, reason: str, kind: str, status_line: str) -> None:
    expected = refused(reason, kind, status_line, len(got.body))
    assert Answer(got.status_line, got.shown_headers, got.body) == expected


@pytest.mark.parametrize(
    ("headers", "body", "why"),
    [
        (
            [("Transfer-Encoding", "chunked")],
            b"zz\r\n{}\r\n0\r\n\r\n",
            "a chunk size is not a number",
        ),
        (
            [("Transfer-Encoding", "chunked")],
            b"-2\r\n{}\r\n0\r\n\r\n",
            "a chunk size is negative",
        ),
        (
            [("Transfer-Encoding", "chunked")],
            chunk(b'{"input": "cut"}'),
            "the body ended before its last chunk",
        ),
        (
            [("Transfer-Encoding", "chunked")],
            b"10\r\n{}",
            "the body ended before its stated size",
        ),
        ([("Content-Length", "many")], b"{}", "the content-length is not a number"),
        ([("Content-Length", "-1")], b"", "the content-length is negative"),
        (
            [("Content-Length", "20")],
            b'{"input": "cut"}',
            "the body ended before its stated size",
        ),
    ],
    ids=[
        "chunk size",
        "negative chunk size",
        "no last chunk",
        "chunk cut short",
        "content length",
        "negative content length",
        "body shorter than its length",
    ],
)
def test_a_body_with_broken_framing_is_refused_and_not_forwarded(
    headers: list[tuple[str, str]], body: bytes, why: str
) -> None:
    # The client stops sending after the body: what did not come is not waited for.
    with Provider() as provider, RecordingProxy(provider.url) as proxy:
        got = send(proxy.url, request("POST", "/v1/responses", headers, body), shut_write=True)
        recording = proxy.recording

    assert_refused(
        got,
        f"the request's body framing is malformed: {why}",
        "invalid_request",
        "HTTP/1.1 400 Bad Request",
    )
    assert provider.received == []
    assert recording.exchanges == ()


# -- the upstream cannot be reached --------------------------------------------------------


def test_a_refused_connection_is_a_bad_gateway_that_names_the_error() -> None:
    refusal = ConnectionRefusedError(errno.ECONNREFUSED, os.strerror(errno.ECONNREFUSED))
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        port = held.getsockname()[1]
        with RecordingProxy(f"http://127.0.0.1:{port}") as proxy:
            got = post_json(proxy.url, "/v1/responses", {"input": "x"})
            recording = proxy.recording

    assert_refused(
        got,
        f"could not reach the upstream: ConnectionRefusedError: {refusal}",
        "bad_gateway",
        "HTTP/1.1 502 Bad Gateway",
    )
    assert recording.exchanges == ()


def test_an_upstream_slower_than_the_timeout_is_a_bad_gateway() -> None:
    release = threading.Event()

    def never_in_time(out: BinaryIO) -> None:
        release.wait(TIMEOUT)
        out.write(json_answer({}))

    with Provider(never_in_time) as provider:
        try:
            with RecordingProxy(provider.url, timeout=0.5) as proxy:
                got = post_json(proxy.url, "/v1/responses", {"input": "x"})
                recording = proxy.recording
        finally:
            release.set()

    assert_refused(
        got,
        "could not reach the upstream: TimeoutError: timed out",
        "bad_gateway",
        "HTTP/1.1 502 Bad Gateway",
    )
    assert recording.exchanges == ()


@contextlib.contextmanager
def plain_text_listener() -> Iterator[tuple[str, list[bytes]]]:
    """Answer the first bytes of one connection with plain text, then read it to its end."""
    heard: list[bytes] = []
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(TIMEOUT)

        def serve() -> None:
            with contextlib.suppress(OSError):  # no connection came, or the proxy reset it
                connection, _ = server.accept()
                with connection:
                    connection.settimeout(TIMEOUT)
                    heard.append(connection.recv(65536))
                    connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                    read_all(connection)  # no unread bytes left behind: the close is clean

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            yield f"https://127.0.0.1:{server.getsockname()[1]}", heard
        finally:
            thread.join()


def test_an_https_upstream_is_reached_over_tls() -> None:
    # What answers is no TLS server: the handshake fails, which shows the proxy tried one
    # (the error's wording is OpenSSL's, so only its kind is compared).
    with plain_text_listener() as (upstream, heard), RecordingProxy(upstream) as proxy:
        got = post_json(proxy.url, "/v1/responses", {"input": "x"})
        recording = proxy.recording

    assert got.status_line == "HTTP/1.1 502 Bad Gateway"
    message = got.json()["error"]["message"]
    assert message.startswith("agents-testing recording proxy could not reach the upstream: SSL")
    assert heard[0][:1] == b"\x16"  # a TLS handshake record, not an HTTP request
    assert recording.exchanges == ()


# -- order, renumbering and notes ----------------------------------------------------------


def thinking_stream() -> bytes:
    events = [
        {"type": "message_start", "message": {"id": "msg_t", "usage": {"input_tokens": 1}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Hm"},
        },
        {"type": "message_stop"},
    ]
    stream = "".join(f"data: {json.dumps(event)}\n\n" for event in events).encode()
    return answer("200 OK", [("Content-Type", "text/event-stream")], stream)


def test_calls_are_recorded_in_the_order_they_arrived_whatever_order_they_end_in() -> None:
    release_first, release_second = threading.Event(), threading.Event()

    def held(until: threading.Event, reply: bytes) -> Callable[[BinaryIO], None]:
        def write(out: BinaryIO) -> None:
            until.wait(TIMEOUT)
            out.write(reply)

        return write

    replies = (
        held(release_first, json_answer(responses_body("first"))),
        held(release_second, thinking_stream()),
        json_answer(responses_body("third")),
    )
    answers: dict[str, Answer] = {}

    def call(name: str, path: str) -> None:
        answers[name] = post_json(proxy.url, path, {"call": name})

    with Provider(*replies) as provider, RecordingProxy(provider.url) as proxy:
        first = threading.Thread(target=call, args=("first", "/v1/responses"))
        first.start()
        provider.arrivals.get(timeout=TIMEOUT)
        second = threading.Thread(target=call, args=("second", "/v1/messages"))
        second.start()
        provider.arrivals.get(timeout=TIMEOUT)
        call("third", "/v1/responses")  # ends first
        release_second.set()
        second.join()
        release_first.set()
        first.join()
        recording = proxy.recording

    assert sorted(answers) == ["first", "second", "third"]
    assert [(e.index, e.path, e.body) for e in recording.exchanges] == [
        (0, "/v1/responses", {"call": "first"}),
        (1, "/v1/messages", {"call": "second"}),
        (2, "/v1/responses", {"call": "third"}),
    ]
    assert recording.warnings == (
        "call #2: its stream holds Anthropic thinking blocks: kept as its exact events "
        "(model_stream), so the replay streams them before the text, as the provider did",
    )


# -- credentials in headers ----------------------------------------------------------------

TOKEN = "0123456789abcdef"
KEY = "key-one key-two key-three"


def credential_headers() -> list[tuple[str, str]]:
    return [
        ("Content-Type", "application/json"),
        ("Authorization", f"Token {TOKEN}"),
        ("X-Api-Key", KEY),
        ("Api-Key", "12345678"),  # 8 characters: long enough to be a credential
        ("x-goog-api-key", "1234567"),  # 7: too short, it would redact ordinary words
        ("Cookie", "short"),
        ("OpenAI-Beta", "assistants=v2; ACCT-87654321"),
    ]


def test_credentials_in_headers_never_reach_the_recording_longest_first() -> None:
    prompt = f"Token {TOKEN}; key-two key-three; 12345678; 1234567; the whole {KEY}"
    stream = [
        {"type": "response.created", "response": {}},
        {"type": "response.output_text.delta", "delta": "Your token is 0123456"},
        {"type": "response.output_text.delta", "delta": "789abcdef and your key "},
        {"type": "response.output_text.delta", "delta": "is key-two key-"},
        {"type": "response.output_text.delta", "delta": "three."},
    ]
    streamed = "".join(f"data: {json.dumps(event)}\n\n" for event in stream).encode()
    replies = (
        json_answer(responses_body(f"Echo: {TOKEN}")),
        answer("200 OK", [("Content-Type", "text/event-stream")], streamed),
    )
    with (
        Provider(*replies) as provider,
        RecordingProxy(provider.url, redact=[ACCOUNT], keep_events=True) as proxy,
    ):
        post_json(proxy.url, "/v1/responses", {"input": prompt}, *credential_headers())
        post_json(
            proxy.url,
            "/v1/responses",
            {"input": "again", "stream": True},
            ("Authorization", f"Token {TOKEN}"),
        )
        recording = proxy.recording

    # Forwarded as they were: the provider needs them.
    assert provider.received[0].headers == [
        ("host", provider.host),
        *credential_headers(),
        ("content-length", str(len(provider.received[0].body))),
    ]
    assert [exchange.request for exchange in recording.exchanges] == [
        {
            "method": "POST",
            "path": "/v1/responses",
            "wire_format": "openai.responses",
            "headers": {"openai-beta": "assistants=v2; [REDACTED]"},
            "body": {"input": "[REDACTED]; [REDACTED]; [REDACTED]; 1234567; the whole [REDACTED]"},
        },
        {
            "method": "POST",
            "path": "/v1/responses",
            "wire_format": "openai.responses",
            "body": {"input": "again", "stream": True},
        },
    ]
    plain, kept = recording.steps
    assert plain == said("Echo: [REDACTED]")
    assert kept == model_stream(
        [
            {"type": "response.created", "response": {}},
            {"type": "response.output_text.delta", "delta": "Your token is [REDACTED]"},
            {"type": "response.output_text.delta", "delta": " and your key "},
            {"type": "response.output_text.delta", "delta": "is [REDACTED]"},
            {"type": "response.output_text.delta", "delta": "."},
        ]
    )
    assert recording.redacted == (
        "the api-key header: never recorded (sent with 1 request)",
        "the authorization header: never recorded (sent with 2 requests)",
        "the cookie header: never recorded (sent with 1 request)",
        "the x-api-key header: never recorded (sent with 1 request)",
        "the x-goog-api-key header: never recorded (sent with 1 request)",
        "a credential from those headers: 7 occurrences in bodies or answers",
        "redact[0]: 1 match",
    )
    source = recording.source()
    for secret in (TOKEN, KEY, "key-two", "12345678", "ACCT-87654321"):
        assert secret not in source


def test_one_credential_found_once_is_said_in_the_singular() -> None:
    with (
        Provider(json_answer(responses_body("no echo"))) as provider,
        RecordingProxy(provider.url) as proxy,
    ):
        post_json(
            proxy.url,
            "/v1/responses",
            {"input": "Bearer sk-live-00000000"},
            ("Authorization", "Bearer sk-live-00000000"),
        )
        recording = proxy.recording

    assert [exchange.body for exchange in recording.exchanges] == [{"input": "[REDACTED]"}]
    assert recording.redacted == (
        "the authorization header: never recorded (sent with 1 request)",
        "a credential from those headers: 1 occurrence in bodies or answers",
    )


# -- options and lifecycle -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("upstream", "options", "error", "message"),
    [
        (42, {}, TypeError, "upstream must be a URL string, got int"),
        *(
            (
                url,
                {},
                ValueError,
                "upstream must be an http or https URL such as https://api.openai.com, "
                f"got {url!r}",
            )
            for url in ("ftp://example.com", "http://", "https:///v1/responses", "not a url")
        ),
        *(
            (
                url,
                {},
                ValueError,
                "upstream is the provider's root URL without /v1 (the client's requests "
                f"bring it): use {fixed!r}",
            )
            for url, fixed in (
                ("https://api.openai.com/v1", "https://api.openai.com"),
                ("https://api.openai.com/v1/", "https://api.openai.com"),
                ("http://127.0.0.1:9/gateway/v1//", "http://127.0.0.1:9/gateway"),
                ("http://[::1]:9/v1", "http://[::1]:9"),
            )
        ),
        *(
            (
                url,
                {},
                ValueError,
                "upstream is the provider's root URL, without credentials, query or fragment "
                f"(the client's requests bring those), got {url!r}",
            )
            for url in (
                "https://api.openai.com/v1?x=1",
                "https://api.openai.com?key=sk-1",
                "https://api.openai.com/#top",
                "https://user:secret@api.openai.com",
            )
        ),
        (
            "http://h",
            {"keep_events": "yes"},
            TypeError,
            "keep_events must be True or False, got 'yes'",
        ),
        ("http://h", {"keep_events": 1}, TypeError, "keep_events must be True or False, got 1"),
        *(
            (
                "http://h",
                {"timeout": timeout},
                ValueError,
                f"timeout must be a positive number of seconds, got {timeout!r}",
            )
            for timeout in (0, -1.5, True, "5", None, float("nan"), float("inf"))
        ),
    ],
)
def test_bad_options_are_refused_with_the_fix(
    upstream: Any, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        RecordingProxy(upstream, **options)

    assert type(caught.value) is error
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "upstream", ["https://api.anthropic.com", "http://127.0.0.1:1", "HTTPS://API.OPENAI.COM/"]
)
def test_good_options_are_taken(upstream: str) -> None:
    proxy = RecordingProxy(upstream, timeout=0.5, keep_events=True, redact=(ACCOUNT,))

    assert repr(proxy) == "<RecordingProxy stopped exchanges=0>"


def test_the_proxy_serves_from_a_named_daemon_thread_on_its_own_port(
    no_proxy_thread_left: None,
) -> None:
    before = set(proxy_threads())
    with (
        RecordingProxy("http://127.0.0.1:1") as first,
        RecordingProxy("http://127.0.0.1:1") as second,
    ):
        started = set(proxy_threads()) - before
        urls = (first.url, second.url)

    assert [thread.daemon for thread in started] == [True, True]
    assert urls[0] != urls[1]
    for url in urls:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url)


def test_the_proxy_says_where_it_serves_and_can_serve_again_after_closing(
    no_proxy_thread_left: None,
) -> None:
    proxy = RecordingProxy("http://127.0.0.1:1")
    with pytest.raises(RuntimeError) as not_running:
        _ = proxy.url
    proxy.close()  # closing what never ran does nothing

    with proxy:
        assert repr(proxy) == f"<RecordingProxy {proxy.url} exchanges=0>"
        assert proxy.base_url == f"{proxy.url}/v1"
        with pytest.raises(RuntimeError) as running:
            proxy.start()
    assert repr(proxy) == "<RecordingProxy stopped exchanges=0>"
    proxy.close()

    with proxy:
        assert repr(proxy).startswith("<RecordingProxy http://127.0.0.1:")
    assert proxy_threads() == []

    assert str(not_running.value) == "RecordingProxy is not running; use it in a with block first"
    assert str(running.value) == "RecordingProxy is already running"


@pytest.mark.asyncio
async def test_async_with_closes_the_proxy_and_its_thread(no_proxy_thread_left: None) -> None:
    async with RecordingProxy("http://127.0.0.1:1") as proxy:
        assert len(proxy_threads()) == 1
    assert repr(proxy) == "<RecordingProxy stopped exchanges=0>"
    assert proxy_threads() == []


def test_a_recording_is_a_snapshot_of_what_was_recorded_so_far() -> None:
    with (
        Provider(json_answer(responses_body("one"))) as provider,
        RecordingProxy(provider.url) as proxy,
    ):
        empty: Recording = proxy.recording
        post_json(proxy.url, "/v1/responses", {"input": "1"})
        assert repr(proxy) == f"<RecordingProxy {proxy.url} exchanges=1>"

    assert empty.exchanges == ()
    assert len(proxy.recording.exchanges) == 1
