"""``ScriptedServer``: a loopback HTTP server, one event loop in one background thread."""

from __future__ import annotations

import asyncio
import contextlib
import http
import json
import re
import threading
from collections.abc import AsyncGenerator, Mapping
from types import TracebackType
from typing import Any, cast

from ..errors import WireRequestError, WireRequestReason
from ..model import ScriptedModel
from . import anthropic_messages, openai_chat, openai_responses
from ._endpoint import ScriptedEndpoint, WireExchange, WireResponse

__all__ = ["ScriptedServer"]

_MAX_BODY_BYTES = 8 * 1024 * 1024
"""The default largest request body ``ScriptedServer`` reads (8 MiB); a larger one gets 413."""

_MAX_LINE = 8 * 1024  # the request line, each header line, each chunk-size line
_MAX_HEADERS = 100
_MAX_HEAD = _MAX_LINE * 8  # the whole header section
_BACKLOG = 128
_LINGER_SECONDS = 1.0  # how long a refused request's unread bytes are drained before closing
_LINGER_BYTES = 16 * 1024 * 1024

_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TARGET = re.compile(rb"/[!-~]*")  # origin form: a path and query of visible ASCII
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
_DIGITS = re.compile(rb"[0-9]{1,64}")
_FIELD_VALUE = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")
_BLANK_LINE = re.compile(rb"\n\r?\n")  # the end of the header section (bare LF tolerated)

_FORMATS = (openai_chat, openai_responses, anthropic_messages)

# HTTP's head is ASCII (names, methods, targets) and Latin-1 (field values): each codec is
# named once, here.
_ASCII = "ascii"
_LATIN_1 = "latin-1"


class _Refused(Exception):
    """The request cannot be read: answer it with an error and record it as ``reason``."""

    def __init__(self, reason: WireRequestReason, detail: str) -> None:
        super().__init__(detail)
        self.reason: WireRequestReason = reason
        self.detail = detail
        self.method = "?"  # as far as the request line was read
        self.path = "?"


class _Head:
    """A request's line and headers, read and checked."""

    __slots__ = ("headers", "method", "path", "target")

    def __init__(self, method: str, target: str, headers: list[tuple[str, str]]) -> None:
        self.method = method
        self.target = target
        self.path = target.partition("?")[0]
        self.headers = headers


class _Serving:
    """What ``start()`` hands back from the loop thread: the loop, its stop event, the port."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stop: asyncio.Event, port: int) -> None:
        self.loop = loop
        self.stop = stop
        self.port = port


class ScriptedServer:
    """Serve scripted models over HTTP on 127.0.0.1, on a free port, from a background thread.

    Use it as a context manager (``with`` or ``async with``). Leaving the block closes the
    server (open connections and scripted streams included; no thread or socket is left) and
    then, if the block did not raise, calls ``assert_complete()``: every model it serves must
    have used its whole script, and no request may have gone unserved. When the block raises,
    leaving it only closes the server, so the block's own error is the one reported. Point
    OpenAI clients at ``base_url`` and Anthropic clients at ``url``.

    The server reads each request strictly (HTTP/1.1, one request per connection): a request
    it cannot read (a malformed request line, header, ``Content-Length`` or chunked body, a
    body cut short) gets a 400 and one larger than ``max_body_bytes`` a 413, in the
    provider's error shape; it never reaches a model and ``assert_complete()`` raises it as
    a ``WireRequestError``. Every request runs on the server's one event loop, so a
    responder or stream source that blocks (``time.sleep``, ``threading.Event.wait``) holds
    up every other request, and ``close()`` until it returns: wait with ``await``.

    Args:
        models: a ``ScriptedModel``, or a mapping routing model names or path prefixes to
            models (see ``ScriptedEndpoint``).
        max_body_bytes: the largest request body read, in bytes (default 8 MiB;
            a larger body gets 413).
    """

    def __init__(
        self,
        models: ScriptedModel | Mapping[str, ScriptedModel],
        *,
        max_body_bytes: int = _MAX_BODY_BYTES,
    ) -> None:
        if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int):
            raise TypeError(
                "max_body_bytes must be an int number of bytes, "
                f"got {type(max_body_bytes).__name__}"
            )
        if max_body_bytes < 0:
            raise ValueError(f"max_body_bytes must be >= 0, got {max_body_bytes}")
        self.endpoint: ScriptedEndpoint = ScriptedEndpoint(models)
        self._max_body = max_body_bytes
        self._lock = threading.Lock()
        self._refused: list[WireRequestError] = []
        self._failures: list[BaseException] = []
        self._arrivals = 0
        self._serving: _Serving | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[_Connection] = set()  # touched on the loop thread only

    def __repr__(self) -> str:
        where = self.url if self._serving is not None else "stopped"
        return f"<ScriptedServer {where} requests={len(self.endpoint.requests)}>"

    @property
    def url(self) -> str:
        """Return the server's root URL, ``http://127.0.0.1:PORT``."""
        serving = self._serving
        if serving is None:
            raise RuntimeError("ScriptedServer is not running; use it in a with block first")
        return f"http://127.0.0.1:{serving.port}"

    @property
    def base_url(self) -> str:
        """Return the OpenAI-style base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> tuple[WireExchange, ...]:
        """Return every HTTP request that reached the endpoint, in arrival order.

        A request the server could not read (see the class docstring) is not among them:
        ``assert_complete()`` raises it instead.
        """
        return self.endpoint.requests

    def assert_complete(self) -> None:
        """Fail on a request the server could not read, then on the endpoint's violations.

        Raises, in this order: a ``RuntimeError`` if the server itself failed while
        answering (a bug to report; the request was answered 500 with
        ``x-should-retry: false``); a ``WireRequestError`` (reason ``malformed_request`` or
        ``request_too_large``) for the first request refused before it reached the
        endpoint; the endpoint's first ``WireRequestError``; any model's unused or broken
        script.
        """
        with self._lock:
            refused = self._refused[0] if self._refused else None
            failure = self._failures[0] if self._failures else None
        if failure is not None:
            raise RuntimeError(
                "ScriptedServer failed while answering a request; this is a bug in "
                f"agents-testing, please report it: {failure!r}"
            ) from failure
        if refused is not None:
            raise refused._fresh() from refused  # pyright: ignore[reportPrivateUsage]
        self.endpoint.assert_complete()

    def start(self) -> ScriptedServer:
        """Bind 127.0.0.1 on a free port and serve from a background thread."""
        if self._thread is not None:
            raise RuntimeError("ScriptedServer is already running")
        ready: list[_Serving | BaseException] = []
        started = threading.Event()
        thread = threading.Thread(
            target=self._run, args=(ready, started), name="agents-testing-server", daemon=True
        )
        thread.start()
        started.wait()
        outcome = ready[0]
        if isinstance(outcome, BaseException):
            thread.join()
            raise outcome
        self._serving, self._thread = outcome, thread
        return self

    def close(self) -> None:
        """Stop serving: end every connection and scripted stream, then join the thread.

        A connection still sending its request, or idle, is closed; a scripted stream still
        running is cancelled, which closes its source (its ``finally`` runs).
        """
        serving, thread = self._serving, self._thread
        if serving is None or thread is None:
            return
        if threading.current_thread() is thread:
            raise RuntimeError(
                "ScriptedServer.close() was called from a responder or stream source the "
                "server is running; close it from the test instead"
            )
        self._serving = self._thread = None
        with contextlib.suppress(RuntimeError):  # the loop already ended
            serving.loop.call_soon_threadsafe(serving.stop.set)
        thread.join()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
        if exc_type is None:
            self.assert_complete()

    async def __aenter__(self) -> ScriptedServer:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Joining the thread blocks: keep the event loop free while it happens.
        await asyncio.to_thread(self.close)
        if exc_type is None:
            self.assert_complete()

    # -- the loop thread -------------------------------------------------------------------

    def _run(self, ready: list[_Serving | BaseException], started: threading.Event) -> None:
        try:
            asyncio.run(self._main(ready, started))
        except BaseException as error:  # handed to start(), which raises it
            if not ready:
                ready.append(error)
            else:  # pragma: no cover - _main handles everything once serving
                self._fail(error)
        finally:
            started.set()

    async def _main(self, ready: list[_Serving | BaseException], started: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(self._loop_error)
        server = await loop.create_server(
            lambda: _Connection(self), "127.0.0.1", 0, backlog=_BACKLOG
        )
        stop = asyncio.Event()
        port: int = server.sockets[0].getsockname()[1]
        ready.append(_Serving(loop, stop, port))
        started.set()
        try:
            await stop.wait()
        finally:
            server.close()
            connections = list(self._connections)
            for connection in connections:
                connection.abort()
            # Each task closes its scripted stream's source as it is cancelled.
            tasks = [c.task for c in connections if c.task is not None]
            await asyncio.gather(*tasks, return_exceptions=True)
            await server.wait_closed()
            # Let the aborted transports run their close callbacks: no socket outlives us.
            for _ in range(3):
                await asyncio.sleep(0)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, (OSError, asyncio.CancelledError)):
            return  # a client went away: nothing the test has to know
        self._fail(error if isinstance(error, BaseException) else RuntimeError(context["message"]))

    def _fail(self, error: BaseException) -> None:
        """Keep a failure of ours for ``assert_complete()``; never print it."""
        with self._lock:
            self._failures.append(error)

    def _arrived(self) -> int:
        with self._lock:
            index = self._arrivals
            self._arrivals += 1
        return index

    def _refusal(self, refusal: _Refused) -> bytes:
        """Record a request the server could not read; return the raw error answer."""
        error = WireRequestError(
            refusal.reason, self._arrived(), refusal.method, refusal.path, refusal.detail
        )
        with self._lock:
            self._refused.append(error)
        status = 413 if refusal.reason == "request_too_large" else 400
        path = refusal.path
        module = next((f for f in _FORMATS if path.endswith(f.PATH_SUFFIX)), openai_responses)
        body = json.dumps(module.error_body(status, f"agents-testing: {error}")).encode()
        headers = (("content-type", "application/json"), ("x-should-retry", "false"))
        return _head_bytes(WireResponse(status, headers, (body,))) + body


class _Connection(asyncio.Protocol):
    """One client connection: read one request as its bytes come, then answer it."""

    def __init__(self, server: ScriptedServer) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.head: _Head | None = None
        self.length = 0  # the Content-Length, for a body that is not chunked
        self.chunks: _Chunks | None = None
        self.done = False  # the request was read (or refused): later bytes are dropped
        self.task: asyncio.Task[None] | None = None
        self.lost = False
        self.streaming = False  # a scripted stream is being sent as its events come
        self.paused = False
        self.drained: asyncio.Future[None] | None = None
        self.linger: asyncio.TimerHandle | None = None
        self.lingered = 0

    # -- asyncio.Protocol --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # pragma: no mutate
        self.server._connections.add(self)  # pyright: ignore[reportPrivateUsage]

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.server._connections.discard(self)  # pyright: ignore[reportPrivateUsage]
        if self.linger is not None:
            self.linger.cancel()
        if self.streaming and self.task is not None:
            # The client stopped reading a stream: stop it now, which closes its source,
            # rather than when the source yields next (it may be waiting on a gate).
            self.task.cancel()
        self._wake()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        self._wake()

    def data_received(self, data: bytes) -> None:
        if self.done:
            # Bytes after a refused request are read away (see _refuse), within bounds.
            self.lingered += len(data)
            if self.lingered > _LINGER_BYTES and self.transport is not None:
                self.transport.abort()
            return
        self.buffer += data
        self._advance(eof=False)

    def eof_received(self) -> bool:
        if not self.done:
            self._advance(eof=True)
        elif self.linger is not None and self.transport is not None:
            self.transport.close()  # the refused client sent all it had
        return True  # keep writing: the answer may still be going out

    # -- reading -----------------------------------------------------------------------

    def abort(self) -> None:
        """Drop the client at once and cancel the answer in progress (the server closes)."""
        if self.task is not None:
            self.task.cancel()
        if self.transport is not None:
            self.transport.abort()

    def _advance(self, *, eof: bool) -> None:
        try:
            body = self._read(eof=eof)
        except _Refused as refusal:
            self._refuse(refusal, eof=eof)
            return
        if body is None:
            return
        head = self.head
        assert head is not None
        self.done = True
        self.buffer = bytearray()
        self.task = asyncio.get_running_loop().create_task(self._serve(head, body))

    def _read(self, *, eof: bool) -> bytes | None:
        """Return the body once the request is complete; ``None`` while bytes are missing."""
        if self.head is None:
            found = _BLANK_LINE.search(self.buffer)
            if found is None:
                if eof:
                    if not self.buffer:
                        self._quit()  # connected and closed without a request
                        return None
                    where = "header section" if b"\n" in self.buffer else "request line"
                    raise _Refused("malformed_request", f"the connection ended inside the {where}")
                if b"\n" not in self.buffer[: _MAX_LINE + 2] and len(self.buffer) > _MAX_LINE + 2:
                    raise _Refused(
                        "malformed_request", f"the request line is longer than {_MAX_LINE} bytes"
                    )
                if len(self.buffer) > _MAX_HEAD:
                    raise _Refused(
                        "malformed_request", f"the header section is longer than {_MAX_HEAD} bytes"
                    )
                return None
            self.head = _parse_head(bytes(self.buffer[: found.end()]))
            del self.buffer[: found.end()]
            try:
                self._frame(self.head)
            except _Refused as refusal:
                refusal.method, refusal.path = self.head.method, self.head.path
                raise
        head = self.head
        try:
            if self.chunks is not None:
                return self.chunks.feed(self.buffer, eof=eof)
            if len(self.buffer) >= self.length:
                return bytes(self.buffer[: self.length])
            if eof:
                raise _Refused(
                    "malformed_request",
                    f"the body ended after {len(self.buffer)} of its {self.length} bytes "
                    "(Content-Length)",
                )
            return None
        except _Refused as refusal:
            refusal.method, refusal.path = head.method, head.path
            raise

    def _frame(self, head: _Head) -> None:
        """Decide how the body is framed, from the headers."""
        max_body = self.server._max_body  # pyright: ignore[reportPrivateUsage]
        lengths = [value for name, value in head.headers if name.lower() == "content-length"]
        codings = [value for name, value in head.headers if name.lower() == "transfer-encoding"]
        if codings:
            if lengths:
                raise _Refused(
                    "malformed_request",
                    "the request has both Content-Length and Transfer-Encoding",
                )
            if len(codings) != 1 or codings[0].strip().lower() != "chunked":
                raise _Refused(
                    "malformed_request",
                    f"Transfer-Encoding {', '.join(codings)!r} is not supported; send 'chunked'",
                )
            self.chunks = _Chunks(max_body)
        elif lengths:
            if len(lengths) != 1 or not _DIGITS.fullmatch(lengths[0].encode(_LATIN_1)):
                raise _Refused(
                    "malformed_request",
                    f"Content-Length {', '.join(lengths)!r} is not one whole number of bytes",
                )
            self.length = int(lengths[0])
            if self.length > max_body:
                raise _Refused(
                    "request_too_large",
                    f"the body is {self.length} bytes, more than the {max_body} allowed",
                )
        else:
            return  # no body
        # curl and others wait for this before they send a body.
        for name, value in head.headers:
            if name.lower() == "expect" and value.lower() == "100-continue" and self.transport:
                self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def _refuse(self, refusal: _Refused, *, eof: bool) -> None:
        self.done = True
        self.buffer = bytearray()
        transport = self.transport
        assert transport is not None  # connection_made came first; nothing closed it yet
        transport.write(self.server._refusal(refusal))  # pyright: ignore[reportPrivateUsage]
        if eof:
            transport.close()
            return
        # Closing with request bytes still unread would reset the connection, and the
        # client could lose the answer: half-close, and read what comes until the client
        # closes too, for a second at most.
        if transport.can_write_eof():
            transport.write_eof()
        self.linger = asyncio.get_running_loop().call_later(_LINGER_SECONDS, transport.close)

    def _quit(self) -> None:
        # Nothing can arrive after the client's end of stream, so nothing is marked done.
        if self.transport is not None:
            self.transport.close()

    # -- answering ---------------------------------------------------------------------

    async def _serve(self, head: _Head, body: bytes) -> None:
        server = self.server
        transport = self.transport
        assert transport is not None
        server._arrived()  # pyright: ignore[reportPrivateUsage]
        try:
            try:
                response, rest = await server.endpoint.open_async(
                    head.method, head.target, head.headers, body
                )
            except Exception as error:
                # The endpoint failed instead of answering: a bug of ours. Record it for
                # assert_complete() and answer so that no client retries into the next step.
                server._fail(error)  # pyright: ignore[reportPrivateUsage]
                text = f"agents-testing internal error: {error!r}"
                payload = json.dumps(openai_responses.error_body(500, text)).encode()
                headers = (("content-type", "application/json"), ("x-should-retry", "false"))
                response, rest = WireResponse(500, headers, (payload,)), None
            try:
                await self._send(response, rest, head=head.method == "HEAD")
            finally:
                if rest is not None:
                    await rest.aclose()
        except asyncio.CancelledError:
            transport.abort()  # the server is closing, or the client left a stream
            raise
        except Exception as error:  # a bug of ours: report it, never print it
            server._fail(error)  # pyright: ignore[reportPrivateUsage]
            transport.abort()
        else:
            transport.close()

    async def _send(
        self, response: WireResponse, rest: AsyncGenerator[bytes, None] | None, *, head: bool
    ) -> None:
        transport = self.transport
        assert transport is not None
        if self.lost:
            return
        if not response.streamed:
            transport.write(_head_bytes(response) + (b"" if head else response.body))
            return
        ready = b"".join(_chunk(chunk) for chunk in response.chunks if chunk)
        transport.write(_head_bytes(response) + ready)
        if rest is not None:
            self.streaming = True
            async for chunk in rest:
                if self.paused:
                    await self._drain()
                if self.lost:
                    return  # the client went away: closing ``rest`` closes the source
                if chunk:
                    transport.write(_chunk(chunk))
        if not self.lost:
            transport.write(b"0\r\n\r\n")

    async def _drain(self) -> None:
        while self.paused and not self.lost:
            self.drained = asyncio.get_running_loop().create_future()
            await self.drained

    def _wake(self) -> None:
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)


class _Chunks:
    """Read a chunked body as its bytes come, resuming where the last read stopped."""

    def __init__(self, max_body: int) -> None:
        self.max_body = max_body
        self.offset = 0
        self.parts: list[bytes] = []
        self.total = 0
        self.trailers: int | None = None  # counted once the last chunk was read

    def feed(self, buffer: bytearray, *, eof: bool) -> bytes | None:
        """Return the whole body once it is complete; ``None`` while bytes are missing."""
        while True:
            newline = buffer.find(b"\n", self.offset)
            if newline < 0:
                if len(buffer) - self.offset > _MAX_LINE:
                    raise _Refused(
                        "malformed_request", f"a chunk size line is longer than {_MAX_LINE} bytes"
                    )
                if eof:
                    where = (
                        "inside the chunked trailer"
                        if self.trailers is not None
                        else "before the last chunk"
                    )
                    raise _Refused("malformed_request", f"the connection ended {where}")
                return None
            line = bytes(buffer[self.offset : newline])
            line = line[:-1] if line.endswith(b"\r") else line
            if self.trailers is not None:  # trailer fields, read and dropped
                self.offset = newline + 1
                if not line:
                    return b"".join(self.parts)
                self.trailers += 1
                if self.trailers > _MAX_HEADERS:
                    raise _Refused(
                        "malformed_request",
                        f"the chunked trailer has more than {_MAX_HEADERS} fields",
                    )
                continue
            size_text = line.partition(b";")[0].strip(b" \t")
            if not _HEX.fullmatch(size_text):
                raise _Refused(
                    "malformed_request", f"the chunk size {_shown(size_text)} is not a hex number"
                )
            size = int(size_text, 16)
            if size == 0:
                self.trailers = 0
                self.offset = newline + 1
                continue
            if self.total + size > self.max_body:
                raise _Refused(
                    "request_too_large",
                    f"the chunked body is more than the {self.max_body} bytes allowed",
                )
            start = newline + 1
            end = start + size
            if len(buffer) < end + 2:
                if eof:
                    raise _Refused("malformed_request", "the connection ended inside a chunk")
                return None
            if bytes(buffer[end : end + 2]) != b"\r\n":
                raise _Refused("malformed_request", "a chunk is longer than its size line says")
            self.parts.append(bytes(buffer[start:end]))
            self.total += size
            self.offset = end + 2


def _parse_head(data: bytes) -> _Head:
    """Check and split a header section that ends with its blank line."""
    lines = data.split(b"\n")[:-2]  # the blank line's two ends
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    method = path = "?"
    try:
        line = lines[0]
        if len(line) > _MAX_LINE:
            raise _Refused(
                "malformed_request", f"the request line is longer than {_MAX_LINE} bytes"
            )
        parts = line.split(b" ")
        if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]):
            raise _Refused(
                "malformed_request",
                f"the request line {_shown(line)} is not 'METHOD /path HTTP/1.1'",
            )
        method_bytes, target, version = parts
        method = method_bytes.decode(_ASCII)
        if not _TARGET.fullmatch(target):
            raise _Refused(
                "malformed_request", f"the request target {_shown(target)} is not a /path"
            )
        path = target.decode(_ASCII).partition("?")[0]
        if version not in (b"HTTP/1.1", b"HTTP/1.0"):
            raise _Refused("malformed_request", f"the HTTP version {_shown(version)} is not 1.1")
        if len(lines) - 1 > _MAX_HEADERS:
            raise _Refused("malformed_request", f"the request has more than {_MAX_HEADERS} headers")
        headers: list[tuple[str, str]] = []
        for field in lines[1:]:
            if len(field) > _MAX_LINE:
                raise _Refused(
                    "malformed_request", f"a header line is longer than {_MAX_LINE} bytes"
                )
            name, colon, value = field.partition(b":")
            if not colon or not _TOKEN.fullmatch(name):
                raise _Refused(
                    "malformed_request", f"the header line {_shown(field)} is not 'Name: value'"
                )
            value = value.strip(b" \t")
            if not _FIELD_VALUE.fullmatch(value):
                raise _Refused(
                    "malformed_request",
                    f"the {name.decode(_ASCII)} header holds control characters",
                )
            headers.append((name.decode(_ASCII), value.decode(_LATIN_1)))
    except _Refused as refusal:
        refusal.method, refusal.path = method, path
        raise
    return _Head(method, target.decode(_ASCII), headers)


def _shown(text: bytes) -> str:
    shown = text[:60].decode(_LATIN_1)
    return repr(shown + "..." if len(text) > 60 else shown)


def _head_bytes(response: WireResponse) -> bytes:
    """Return the status line and headers; one request per connection, so ``close``."""
    try:
        phrase = http.HTTPStatus(response.status).phrase
    except ValueError:
        phrase = "Status"
    lines = [f"HTTP/1.1 {response.status} {phrase}"]
    lines += [f"{key}: {value}" for key, value in response.headers]
    lines.append("connection: close")
    if response.streamed:
        lines.append("transfer-encoding: chunked")
    else:
        lines.append(f"content-length: {len(response.body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode(_LATIN_1)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)
