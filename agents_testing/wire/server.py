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
from typing import Any

from ..errors import WireRequestError, WireRequestReason
from ..model import ScriptedModel
from . import anthropic_messages, openai_chat, openai_responses
from ._endpoint import ScriptedEndpoint, WireExchange, WireResponse

__all__ = ["ScriptedServer"]

_MAX_BODY_BYTES = 8 * 1024 * 1024
"""The default largest request body ``ScriptedServer`` reads (8 MiB); a larger one gets 413."""

_MAX_LINE = 8 * 1024  # the request line, each header line, each chunk-size line
_MAX_HEADERS = 100
_BACKLOG = 128
_LINGER_SECONDS = 1.0  # how long a refused request's unread bytes are drained before closing
_LINGER_BYTES = 16 * 1024 * 1024

_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TARGET = re.compile(rb"/[!-~]*")  # origin form: a path and query of visible ASCII
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
_DIGITS = re.compile(rb"[0-9]{1,64}")
_FIELD_VALUE = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")

_FORMATS = (openai_chat, openai_responses, anthropic_messages)


class _Refused(Exception):
    """The request cannot be read: answer it with an error and record it as ``reason``."""

    def __init__(self, reason: WireRequestReason, detail: str) -> None:
        super().__init__(detail)
        self.reason: WireRequestReason = reason
        self.detail = detail
        self.method = "?"  # as far as the request line was read
        self.path = "?"


class _Request:
    __slots__ = ("body", "headers", "method", "target")

    def __init__(
        self, method: str, target: str, headers: list[tuple[str, str]], body: bytes
    ) -> None:
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body


class _Serving:
    """A running server's loop-side state; every attribute but ``tasks`` is set once."""

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
        self._tasks: set[asyncio.Task[None]] = set()

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

        Raises, in this order: a ``WireRequestError`` (reason ``malformed_request`` or
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
                with self._lock:
                    self._failures.append(error)
        finally:
            started.set()

    async def _main(self, ready: list[_Serving | BaseException], started: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(self._loop_error)
        server = await asyncio.start_server(
            self._connection, "127.0.0.1", 0, backlog=_BACKLOG, limit=2 * _MAX_LINE
        )
        stop = asyncio.Event()
        port: int = server.sockets[0].getsockname()[1]
        ready.append(_Serving(loop, stop, port))
        started.set()
        try:
            await stop.wait()
        finally:
            server.close()
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            # Each connection closes its socket and its scripted stream as it is cancelled.
            await asyncio.gather(*tasks, return_exceptions=True)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, (OSError, asyncio.CancelledError)):
            return  # a client went away: nothing the test has to know
        with self._lock:
            self._failures.append(
                error if isinstance(error, BaseException) else RuntimeError(context["message"])
            )

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._exchange(reader, writer)
        except (OSError, asyncio.IncompleteReadError):
            pass  # the client disconnected mid-request or mid-answer
        except asyncio.CancelledError:
            # The server is closing: drop the client at once. The task ends normally, as
            # asyncio's stream callback reports a cancelled connection task as an error.
            writer.transport.abort()
        except Exception as error:  # a bug of ours: report it, never print it
            with self._lock:
                self._failures.append(error)
        finally:
            self._tasks.discard(task)
            writer.transport.abort() if writer.transport.is_closing() else writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _read_request(reader, writer, self._max_body)
        except _Refused as refusal:
            await self._refuse(reader, writer, refusal)
            return
        if request is None:
            return
        with self._lock:
            self._arrivals += 1
        try:
            response, rest = await self.endpoint.open_async(
                request.method, request.target, request.headers, request.body
            )
        except Exception as error:
            # The endpoint failed instead of answering: a bug of ours. Record it for
            # assert_complete() and answer so that no client retries into the next step.
            with self._lock:
                self._failures.append(error)
            body = json.dumps(
                openai_responses.error_body(500, f"agents-testing internal error: {error!r}")
            ).encode()
            headers = (("content-type", "application/json"), ("x-should-retry", "false"))
            await _send(writer, WireResponse(500, headers, (body,)), None, head=False)
            return
        try:
            await _send(writer, response, rest, head=request.method == "HEAD")
        finally:
            if rest is not None:
                await rest.aclose()

    async def _refuse(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, refusal: _Refused
    ) -> None:
        method, path = refusal.method, refusal.path
        with self._lock:
            index = self._arrivals
            self._arrivals += 1
            error = WireRequestError(refusal.reason, index, method, path, refusal.detail)
            self._refused.append(error)
        status = 413 if refusal.reason == "request_too_large" else 400
        module = next((f for f in _FORMATS if path.endswith(f.PATH_SUFFIX)), openai_responses)
        body = json.dumps(module.error_body(status, f"agents-testing: {error}")).encode()
        headers = (
            ("content-type", "application/json"),
            ("x-should-retry", "false"),
        )
        await _send(writer, WireResponse(status, headers, (body,)), None, head=False)
        # Unread request bytes would make closing the socket reset the connection, and the
        # client could lose the answer: read them away first, within bounds.
        if writer.can_write_eof():
            writer.write_eof()
        with contextlib.suppress(asyncio.TimeoutError, OSError):
            await asyncio.wait_for(_drain_input(reader), _LINGER_SECONDS)


async def _drain_input(reader: asyncio.StreamReader) -> None:
    drained = 0
    while drained < _LINGER_BYTES:
        data = await reader.read(65536)
        if not data:
            return
        drained += len(data)


async def _read_line(reader: asyncio.StreamReader, what: str) -> bytes | None:
    """Read one line without its end; ``None`` if the connection ended before it began."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise _Refused(
            "malformed_request", f"the {what} is longer than {_MAX_LINE} bytes"
        ) from None
    except asyncio.IncompleteReadError as cut:
        if not cut.partial:
            return None
        raise _Refused("malformed_request", f"the connection ended inside the {what}") from None
    if len(line) > _MAX_LINE + 2:
        raise _Refused("malformed_request", f"the {what} is longer than {_MAX_LINE} bytes")
    return line[:-2] if line.endswith(b"\r\n") else line[:-1]


async def _read_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_body: int
) -> _Request | None:
    line = await _read_line(reader, "request line")
    if line is None:
        return None  # connected and closed without a byte: not a request
    method = path = "?"
    try:
        parts = line.split(b" ")
        if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]):
            raise _Refused(
                "malformed_request",
                f"the request line {_shown(line)} is not 'METHOD /path HTTP/1.1'",
            )
        method_bytes, target, version = parts
        method = method_bytes.decode("ascii")
        if not _TARGET.fullmatch(target):
            raise _Refused(
                "malformed_request", f"the request target {_shown(target)} is not a /path"
            )
        path = target.decode("ascii").partition("?")[0]
        if version not in (b"HTTP/1.1", b"HTTP/1.0"):
            raise _Refused("malformed_request", f"the HTTP version {_shown(version)} is not 1.1")
        headers = await _read_headers(reader)
        body = await _read_body(reader, writer, headers, max_body)
    except _Refused as refusal:
        refusal.method, refusal.path = method, path
        raise
    return _Request(method, target.decode("ascii"), headers, body)


async def _read_headers(reader: asyncio.StreamReader) -> list[tuple[str, str]]:
    headers: list[tuple[str, str]] = []
    while True:
        line = await _read_line(reader, "header section")
        if line is None:
            raise _Refused("malformed_request", "the connection ended inside the header section")
        if not line:
            return headers
        if len(headers) >= _MAX_HEADERS:
            raise _Refused("malformed_request", f"the request has more than {_MAX_HEADERS} headers")
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            raise _Refused(
                "malformed_request", f"the header line {_shown(line)} is not 'Name: value'"
            )
        value = value.strip(b" \t")
        if not _FIELD_VALUE.fullmatch(value):
            raise _Refused(
                "malformed_request", f"the {name.decode('ascii')} header holds control characters"
            )
        headers.append((name.decode("ascii"), value.decode("latin-1")))


async def _read_body(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    headers: list[tuple[str, str]],
    max_body: int,
) -> bytes:
    lengths = [value for name, value in headers if name.lower() == "content-length"]
    codings = [value for name, value in headers if name.lower() == "transfer-encoding"]
    if codings:
        if lengths:
            raise _Refused(
                "malformed_request", "the request has both Content-Length and Transfer-Encoding"
            )
        if len(codings) != 1 or codings[0].strip().lower() != "chunked":
            raise _Refused(
                "malformed_request",
                f"Transfer-Encoding {', '.join(codings)!r} is not supported; send 'chunked'",
            )
        await _continue(writer, headers)
        return await _read_chunked(reader, max_body)
    if not lengths:
        return b""
    if len(lengths) != 1 or not _DIGITS.fullmatch(lengths[0].encode("latin-1")):
        raise _Refused(
            "malformed_request",
            f"Content-Length {', '.join(lengths)!r} is not one whole number of bytes",
        )
    length = int(lengths[0])
    if length > max_body:
        raise _Refused(
            "request_too_large", f"the body is {length} bytes, more than the {max_body} allowed"
        )
    await _continue(writer, headers)
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError as cut:
        raise _Refused(
            "malformed_request",
            f"the body ended after {len(cut.partial)} of its {length} bytes (Content-Length)",
        ) from None


async def _continue(writer: asyncio.StreamWriter, headers: list[tuple[str, str]]) -> None:
    # curl and others wait for this before sending a body.
    if any(name.lower() == "expect" and value.lower() == "100-continue" for name, value in headers):
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await writer.drain()


async def _read_chunked(reader: asyncio.StreamReader, max_body: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        line = await _read_line(reader, "chunk size line")
        if line is None:
            raise _Refused("malformed_request", "the connection ended before the last chunk")
        size_text = line.partition(b";")[0].strip(b" \t")
        if not _HEX.fullmatch(size_text):
            raise _Refused(
                "malformed_request", f"the chunk size {_shown(size_text)} is not a hex number"
            )
        size = int(size_text, 16)
        if size == 0:
            break
        total += size
        if total > max_body:
            raise _Refused(
                "request_too_large", f"the chunked body is more than the {max_body} bytes allowed"
            )
        try:
            parts.append(await reader.readexactly(size))
            end = await reader.readexactly(2)
        except asyncio.IncompleteReadError:
            raise _Refused("malformed_request", "the connection ended inside a chunk") from None
        if end != b"\r\n":
            raise _Refused("malformed_request", "a chunk is longer than its size line says")
    for _ in range(_MAX_HEADERS + 1):  # trailer fields, read and dropped
        trailer = await _read_line(reader, "chunked trailer")
        if trailer is None:
            raise _Refused("malformed_request", "the connection ended inside the chunked trailer")
        if not trailer:
            return b"".join(parts)
    raise _Refused("malformed_request", f"the chunked trailer has more than {_MAX_HEADERS} fields")


def _shown(text: bytes) -> str:
    shown = text[:60].decode("latin-1")
    return repr(shown + "..." if len(text) > 60 else shown)


async def _send(
    writer: asyncio.StreamWriter,
    response: WireResponse,
    rest: AsyncGenerator[bytes, None] | None,
    *,
    head: bool,
) -> None:
    try:
        phrase = http.HTTPStatus(response.status).phrase
    except ValueError:
        phrase = "Status"
    lines = [f"HTTP/1.1 {response.status} {phrase}"]
    lines += [f"{key}: {value}" for key, value in response.headers]
    # One request per connection: no idle keep-alive connection outlives its answer.
    lines.append("connection: close")
    if not response.streamed:
        body = response.body
        lines.append(f"content-length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (b"" if head else body))
        await writer.drain()
        return
    lines.append("transfer-encoding: chunked")
    head_bytes = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    writer.write(head_bytes + b"".join(_chunk(chunk) for chunk in response.chunks if chunk))
    await writer.drain()
    if rest is not None:
        async for chunk in rest:
            if chunk:
                writer.write(_chunk(chunk))
                await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)
