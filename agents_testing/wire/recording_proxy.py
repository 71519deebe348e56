"""``RecordingProxy``: record a real provider run, over the wire, into a script.

The proxy serves HTTP on 127.0.0.1 from a background thread, like ``ScriptedServer``. It
forwards each request to the upstream provider unchanged and passes the answer back to the
client unchanged (a stream chunk by chunk, as it arrives), and records each model exchange:
the request body with secrets redacted, and the scripted step the answer amounts to.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http.client
import itertools
import json
import math
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast
from urllib.parse import urlsplit

from .._redaction import Redactor, RedactPattern
from ..errors import ScriptedHTTPError
from ..items import ModelResponse, Usage
from ..model import model_error, model_response, model_stream
from ..recording import COMPARED_HEADERS, RecordedExchange, Recording
from ._readback import ReadStep, read_answer, wire_format_of

__all__ = ["RecordingProxy"]

# Headers that describe one hop of the connection, not the request: never forwarded.
_HOP_HEADERS = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        # The answer is read to record it: ask the upstream for it uncompressed.
        "accept-encoding",
    }
)


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    proxy: RecordingProxy


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30

    def _answer(self) -> None:
        proxy = cast(_Server, self.server).proxy  # pragma: no mutate
        proxy._forward(self)  # pyright: ignore[reportPrivateUsage]
        self.close_connection = True

    do_POST = _answer
    do_GET = _answer
    do_PUT = _answer
    do_DELETE = _answer
    do_PATCH = _answer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: a log line could carry what the recording redacts."""


class RecordingProxy:
    """Forward requests to a real provider and record each model call as a scripted step.

    Use it as a context manager (``with`` or ``async with``), point the client at it as at
    ``ScriptedServer`` (OpenAI clients at ``base_url``, Anthropic clients at ``url``), run
    the code under test, then write ``recording`` as a script.

    Args:
        upstream: the provider's root URL, without ``/v1``: ``https://api.openai.com`` or
            ``https://api.anthropic.com`` (the request's path is added to it).
        redact: regular expressions whose matches never reach the recording, on top of the
            credentials the requests carry in their headers.
        keep_events: record a stream as its exact events (``model_stream``) instead of the
            plain step it amounts to.
        timeout: seconds to wait for the upstream to answer.
    """

    def __init__(
        self,
        upstream: str,
        *,
        redact: Iterable[RedactPattern] = (),
        keep_events: bool = False,
        timeout: float = 600.0,  # pragma: no mutate
    ) -> None:
        if not isinstance(upstream, str):
            raise TypeError(f"upstream must be a URL string, got {type(upstream).__name__}")
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"upstream must be an http or https URL such as https://api.openai.com, "
                f"got {upstream!r}"
            )
        if parts.query or parts.fragment or "@" in parts.netloc:
            raise ValueError(
                f"upstream is the provider's root URL, without credentials, query or "
                f"fragment (the client's requests bring those), got {upstream!r}"
            )
        prefix = parts.path.rstrip("/")
        if prefix.endswith("/v1"):
            root = f"{parts.scheme}://{parts.netloc}{prefix[: -len('/v1')]}"
            raise ValueError(
                f"upstream is the provider's root URL without /v1 (the client's requests "
                f"bring it): use {root!r}"
            )
        if not isinstance(keep_events, bool):
            raise TypeError(f"keep_events must be True or False, got {keep_events!r}")
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._host_header = parts.netloc  # as the client would send it: [::1]:8080, say
        self._prefix = prefix
        self._keep_events = keep_events
        self._timeout = float(timeout)
        self._redactor = Redactor(redact)
        self._lock = threading.Lock()
        self._indexes = itertools.count()
        self._exchanges: list[RecordedExchange] = []
        self._notes: dict[int, str] = {}  # exchange index -> what its step cannot hold
        self._serving: tuple[_Server, threading.Thread] | None = None

    def __repr__(self) -> str:
        where = self.url if self._serving is not None else "stopped"
        return f"<RecordingProxy {where} exchanges={len(self._exchanges)}>"

    @property
    def url(self) -> str:
        """Return the proxy's root URL, ``http://127.0.0.1:PORT`` (for Anthropic clients)."""
        if self._serving is None:
            raise RuntimeError("RecordingProxy is not running; use it in a with block first")
        host, port = self._serving[0].server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """Return the OpenAI-style base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    @property
    def recording(self) -> Recording:
        """Return the model calls recorded so far, ready to write as a script."""
        with self._lock:
            exchanges = sorted(self._exchanges, key=lambda exchange: exchange.index)
            notes = dict(self._notes)
        renumbered = [
            dataclasses.replace(exchange, index=position)
            for position, exchange in enumerate(exchanges)
        ]
        warnings = [
            f"call #{position + 1}: {notes[exchange.index]}"
            for position, exchange in enumerate(exchanges)
            if exchange.index in notes
        ]
        return Recording(renumbered, self._redactor.describe(), warnings)

    def start(self) -> RecordingProxy:
        """Bind 127.0.0.1 on a free port and serve in a background thread."""
        if self._serving is not None:
            raise RuntimeError("RecordingProxy is already running")
        server = _Server(("127.0.0.1", 0), _Handler)
        server.proxy = self
        thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},  # pragma: no mutate
            name="agents-testing-recording-proxy",
            daemon=True,
        )
        thread.start()
        self._serving = (server, thread)
        return self

    def close(self) -> None:
        """Stop serving, close the socket and join every proxy thread."""
        serving, self._serving = self._serving, None
        if serving is None:
            return
        server, thread = serving
        server.shutdown()
        thread.join()
        server.server_close()

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> RecordingProxy:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    # -- one exchange ----------------------------------------------------------------------

    def _connection(self) -> http.client.HTTPConnection:
        https = self._scheme == "https"
        kind = http.client.HTTPSConnection if https else http.client.HTTPConnection
        return kind(self._host, self._port, timeout=self._timeout)

    def _forward(self, handler: _Handler) -> None:
        with self._lock:
            index = next(self._indexes)
        headers = list(handler.headers.items())
        self._redactor.learn_headers(headers)
        try:
            body = _read_body(handler)
        except ValueError as error:
            reason = f"the request's body framing is malformed: {error}"
            _send_error(handler, 400, reason, "invalid_request")
            return
        forwarded = [(key, value) for key, value in headers if key.lower() not in _HOP_HEADERS]
        connection = self._connection()
        try:
            try:
                connection.putrequest(
                    handler.command,
                    self._prefix + handler.path,
                    skip_host=True,
                    skip_accept_encoding=True,
                )
                connection.putheader("host", self._host_header)
                for key, value in forwarded:
                    connection.putheader(key, value)
                connection.putheader("content-length", str(len(body)))
                connection.endheaders(body)
                upstream = connection.getresponse()
            except OSError as error:
                # Name the failure, never the request: its headers carry credentials.
                reason = f"could not reach the upstream: {type(error).__name__}: {error}"
                _send_error(handler, 502, reason, "bad_gateway")
                return
            content_type = upstream.getheader("content-type", "")  # pragma: no mutate
            streamed = content_type.startswith("text/event-stream")
            answer = self._relay(handler, upstream, streamed)
        finally:
            connection.close()
        exchange = (index, handler.command, handler.path, body)
        self._record(exchange, upstream, streamed, answer, headers)

    def _relay(
        self, handler: _Handler, upstream: http.client.HTTPResponse, streamed: bool
    ) -> bytes:
        handler.send_response(upstream.status, upstream.reason)
        for key, value in upstream.getheaders():
            if key.lower() not in _HOP_HEADERS:
                handler.send_header(key, value)
        handler.send_header("connection", "close")
        if not streamed:
            payload = upstream.read()
            handler.send_header("content-length", str(len(payload)))
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                handler.end_headers()  # a client that left does not stop the recording
                handler.wfile.write(payload)
                handler.wfile.flush()
            return payload
        received: list[bytes] = []
        handler.send_header("transfer-encoding", "chunked")
        try:
            handler.end_headers()
            while True:
                chunk = upstream.read1(65536)
                if not chunk:
                    break
                received.append(chunk)
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                handler.wfile.flush()
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: record what arrived
        return b"".join(received)

    def _record(
        self,
        exchange: tuple[int, str, str, bytes],
        upstream: http.client.HTTPResponse,
        streamed: bool,
        answer: bytes,
        headers: list[tuple[str, str]],
    ) -> None:
        index, method, path, body = exchange
        request_path = path.partition("?")[0]
        wire_format = wire_format_of(request_path)
        if wire_format is None or method.upper() != "POST":
            return  # not a model call: nothing a script can answer
        try:
            sent: Any = json.loads(body.decode())
        except (ValueError, RecursionError):
            return
        read = read_answer(
            wire_format,
            upstream.status,
            upstream.getheaders(),
            answer.decode(errors="replace"),
            streamed=streamed,
            keep_events=self._keep_events,
        )
        if read is None:
            return
        recorded = RecordedExchange(
            index,
            method.upper(),
            request_path,
            wire_format,
            self._redactor.value(sent),
            upstream.status,
            streamed,
            self._step(read),
            headers={  # Recording keeps header names in lower case
                key: self._redactor.text(value)
                for key, value in headers
                if key.lower() in COMPARED_HEADERS
            },
        )
        with self._lock:
            self._exchanges.append(recorded)
            if read.note is not None:
                self._notes[index] = read.note

    def _step(self, read: ReadStep) -> Any:
        redactor = self._redactor
        if read.kind == "error":
            error = read.error
            assert error is not None
            message = None if error.message is None else redactor.text(error.message)
            return model_error(
                ScriptedHTTPError(
                    error.status,
                    message,
                    retry_after=error.retry_after,
                    error_type=error.error_type,
                    code=error.code,
                )
            )
        if read.kind == "stream":
            return model_stream(redactor.events(read.events))
        usage = read.usage or Usage()
        response_id = None if read.response_id is None else redactor.text(read.response_id)
        return model_response(
            ModelResponse(redactor.value(read.output), usage, response_id=response_id)
        )


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    """Return the request's body; ``ValueError`` for framing that is malformed or cut short."""
    encoding = handler.headers.get("transfer-encoding", "")  # pragma: no mutate
    if encoding.lower() == "chunked":
        parts: list[bytes] = []
        while True:
            line = handler.rfile.readline()
            if not line:
                raise ValueError("the body ended before its last chunk")
            size = _size(line.split(b";")[0].strip(), 16, "a chunk size")
            if size == 0:
                handler.rfile.readline()
                return b"".join(parts)
            parts.append(_read_exactly(handler, size))
            handler.rfile.readline()
    length = handler.headers.get("content-length")  # pragma: no mutate
    return _read_exactly(handler, _size(length or "0", 10, "the content-length"))


def _size(text: str | bytes, base: int, what: str) -> int:
    try:
        size = int(text, base)
    except ValueError:
        raise ValueError(f"{what} is not a number") from None
    if size < 0:
        raise ValueError(f"{what} is negative")
    return size


def _read_exactly(handler: BaseHTTPRequestHandler, size: int) -> bytes:
    data = handler.rfile.read(size)
    if len(data) < size:
        raise ValueError("the body ended before its stated size")
    return data


def _send_error(handler: BaseHTTPRequestHandler, status: int, reason: str, kind: str) -> None:
    body = json.dumps(
        {"error": {"message": f"agents-testing recording proxy {reason}", "type": kind}}
    ).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(body)))
    handler.send_header("x-should-retry", "false")
    handler.send_header("connection", "close")
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()
