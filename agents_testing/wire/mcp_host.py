"""Serve a :class:`~agents_testing.ScriptedMCPServer` over streamable HTTP and stdio.

:class:`MCPHost` runs one event loop in a background thread with two loopback listeners:
the streamable HTTP endpoint (``POST`` answered with JSON, or with an SSE stream when a step
sends notifications first; a ``GET`` SSE stream per session; ``Mcp-Session-Id`` from
``initialize``; ``DELETE`` to end a session) and the socket the stdio relay
(``mcp_stdio.py``) connects to. Each HTTP request gets a connection of its own
(``Connection: close``), so a client that goes away mid-answer is seen at once and its
call cancelled. ``close()`` cancels every exchange, closes every socket and joins the
thread. Standard library only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import secrets
import sys
import threading
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MCPProtocolError
from .mcp_jsonrpc import MAX_MESSAGE_BYTES, MCPJSONRPCSession, error_message

if TYPE_CHECKING:
    from ..mcp import ScriptedMCPServer

__all__ = ["MCP_PATH", "MCPHost"]

MCP_PATH = "/mcp"
"""The path of the streamable HTTP endpoint."""

_SESSION_HEADER = "mcp-session-id"
_RELAY_SCRIPT = str(Path(__file__).with_name("mcp_stdio.py"))
_GONE: Any = object()
# Hex digits only: int() would also take a sign, a 0x prefix or underscores.
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]+")
# An HTTP head is read and written one byte per character, so any byte of a header is valid.
_HEAD_CODEC = "latin-1"
# Compact JSON; NaN and the infinities are refused (JSON has no such numbers).
_STRICT_JSON = json.JSONEncoder(separators=(",", ":"), allow_nan=False)

_REASONS = {
    200: "OK",
    202: "Accepted",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Payload Too Large",
    431: "Request Header Fields Too Large",
}


class _BadRequest(Exception):
    """A request refused with an HTTP ``status``; ``detail`` (also its message) says why."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class _Session:
    __slots__ = ("ended", "jsonrpc", "pushed")

    def __init__(self, jsonrpc: MCPJSONRPCSession) -> None:
        self.jsonrpc = jsonrpc
        self.ended = asyncio.Event()
        # Server notifications for the session's GET stream, sent outside any call.
        self.pushed: asyncio.Queue[dict[str, Any]] = asyncio.Queue()


class MCPHost:
    """Serve one scripted MCP server on 127.0.0.1 from a background thread.

    ``ScriptedMCPServer`` makes one when a test first reads its ``url`` or
    ``stdio_command``, and closes it in ``close()``.
    """

    # Set by the loop thread (in _main) before the constructor returns.
    _loop: asyncio.AbstractEventLoop
    _ports: tuple[int, int]
    # Set once, by close(); read by broadcast() and repr() from any thread.
    _closed = False

    def __init__(self, server: ScriptedMCPServer) -> None:
        self._server = server
        self._token = secrets.token_hex(16)
        self._sessions: dict[str, _Session] = {}
        self._relays: set[asyncio.Queue[dict[str, Any]]] = set()
        self._numbers = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stop = asyncio.Event()  # bound to the loop thread's loop when it first waits
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="agents-testing-mcp", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            self._thread.join()
            raise self._failure

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.url
        return f"<MCPHost {state} sessions={len(self._sessions)}>"

    @property
    def url(self) -> str:
        """The streamable HTTP endpoint URL."""
        return f"http://127.0.0.1:{self._ports[0]}{MCP_PATH}"

    @property
    def stdio_command(self) -> list[str]:
        """The command that runs the stdio relay to this host."""
        return [
            sys.executable,
            "-I",
            _RELAY_SCRIPT,
            "--connect",
            f"127.0.0.1:{self._ports[1]}",
            "--token",
            self._token,
        ]

    def broadcast(self, messages: list[dict[str, Any]]) -> None:
        """Queue server notifications for every stdio connection and HTTP GET stream."""
        if self._closed:
            return

        def push() -> None:
            queues = [session.pushed for session in self._sessions.values()]
            for queue in [*queues, *self._relays]:
                for message in messages:
                    queue.put_nowait(message)

        with contextlib.suppress(RuntimeError):  # the loop already ended
            self._loop.call_soon_threadsafe(push)

    def close(self) -> None:
        """Cancel every exchange, close every connection and listener, join the thread."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(RuntimeError):  # the loop already ended
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join()

    # -- the loop thread -------------------------------------------------------------------

    def _run(self) -> None:
        try:
            # asyncio.run also ends what is left when _main returns (tasks, async generators,
            # the default executor) and closes the loop.
            asyncio.run(self._main())
        except BaseException as error:  # reported by the constructor when startup failed
            if not self._ready.is_set():
                self._failure = error
        finally:
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        # Any free port. A request head over asyncio's default line limit (64 KiB) is refused.
        http = await asyncio.start_server(self._http_connection, "127.0.0.1")
        relay = await asyncio.start_server(
            self._relay_connection, "127.0.0.1", limit=MAX_MESSAGE_BYTES + 2
        )
        try:
            # One IPv4 socket each, named (host, port).
            self._ports = (http.sockets[0].getsockname()[1], relay.sockets[0].getsockname()[1])
            self._ready.set()
            await self._stop.wait()
        finally:
            http.close()
            relay.close()
            await _cancel(*self._tasks)
            await http.wait_closed()
            await relay.wait_closed()

    @contextlib.asynccontextmanager
    async def _tracked(self, writer: asyncio.StreamWriter) -> AsyncGenerator[None, None]:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away; nothing is left to answer
        except asyncio.CancelledError:
            # close() cancels every connection: end the handler as finished, since asyncio
            # logs a connection callback that ends cancelled as an unhandled error.
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()
            # A second cancel can come while the handler waits here (asyncio.run ends the
            # tasks left when the loop stops): end as finished all the same, since Python
            # 3.11's stream callback logs a handler that ends cancelled as an error.
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await writer.wait_closed()

    # -- stdio relay -----------------------------------------------------------------------

    async def _relay_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        async with self._tracked(writer):
            token = await reader.readline()
            if token.strip() != self._token.encode():
                return  # not our relay
            session = MCPJSONRPCSession(self._server, f"stdio-{next(self._numbers)}")

            async def send(message: dict[str, Any]) -> None:
                writer.write(_encoded(message, session) + b"\n")
                await writer.drain()

            async def handle(line: bytes) -> None:
                with contextlib.suppress(ConnectionError):
                    await session.receive(line, send)
                if session.dropped:
                    writer.close()  # a step dropped the session: the relay sees EOF and exits

            handling: set[asyncio.Task[Any]] = set()
            pushed: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

            async def forward() -> None:
                while True:
                    await send(await pushed.get())

            self._relays.add(pushed)
            handling.add(asyncio.ensure_future(forward()))
            try:
                while True:
                    try:
                        line = await reader.readuntil(b"\n")
                    except asyncio.IncompleteReadError as end:
                        line = end.partial
                    except asyncio.LimitOverrunError:
                        await send(session.refuse("too_large", detail="line over the limit"))
                        return  # the rest of the line cannot be read apart from the next one
                    if line.strip():
                        task = asyncio.ensure_future(handle(line))
                        handling.add(task)
                        task.add_done_callback(handling.discard)
                    if not line.endswith(b"\n"):
                        return  # end of input
            finally:
                self._relays.remove(pushed)
                await _cancel(*handling)

    # -- streamable HTTP -------------------------------------------------------------------

    async def _http_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        async with self._tracked(writer):
            try:
                method, path, headers, body = await _read_request(reader)
            except _BadRequest as bad:
                self._server.record_violation(
                    MCPProtocolError(
                        "too_large" if bad.status in (413, 431) else "invalid_request",
                        detail=bad.detail,
                    )
                )
                await _respond(writer, bad.status, error_message(None, -32600, bad.detail))
                return
            if path.partition("?")[0] != MCP_PATH:
                self._server.record_violation(
                    MCPProtocolError(
                        "invalid_request", detail=f"{method} {path[:80]}: not {MCP_PATH}"
                    )
                )
                await _respond(
                    writer, 404, error_message(None, -32600, f"Not Found: use {MCP_PATH}")
                )
                return
            if method == "POST":
                await self._post(reader, writer, headers, body)
            elif method == "GET":
                await self._get(reader, writer, headers)
            elif method == "DELETE":
                await self._delete(writer, headers)
            else:
                await _respond(
                    writer,
                    405,
                    error_message(None, -32600, "Method Not Allowed"),
                    {"allow": "GET, POST, DELETE"},
                )

    async def _session(self, writer: asyncio.StreamWriter, session_id: str) -> _Session | None:
        """Return the open session ``session_id``, or None after answering 404 for it."""
        known = self._sessions.get(session_id)
        if known is None:
            self._server.record_violation(
                MCPProtocolError("unknown_session", session_id=session_id[:80])
            )
            await _respond(writer, 404, error_message(None, -32001, "Session not found"))
        return known

    def _end(self, session_id: str) -> None:
        """Forget the session: end its GET stream and cancel its calls still running."""
        # Gone already when a DELETE, or another call that dropped it, came first.
        ended = self._sessions.pop(session_id, None)
        if ended is not None:
            ended.ended.set()
            ended.jsonrpc.cancel_all()

    async def _post(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        headers: dict[str, str],
        body: bytes,
    ) -> None:
        session_id = headers.get(_SESSION_HEADER)
        opened: str | None = None
        if session_id is not None:
            known = await self._session(writer, session_id)
            if known is None:
                return
            session = known.jsonrpc
        elif _opens_session(body):
            opened = f"http-{next(self._numbers)}"
            session = MCPJSONRPCSession(self._server, opened)
        else:
            session = MCPJSONRPCSession(self._server)  # a stateless 2026-era request
        outgoing: asyncio.Queue[Any] = asyncio.Queue()

        async def exchange() -> None:
            try:
                await session.receive(body, _put(outgoing))
            finally:
                # Put while the task ends: a cancelled exchange is done and cancelled() by
                # the time the handler reads this None.
                outgoing.put_nowait(None)

        task = asyncio.ensure_future(exchange())
        watcher = asyncio.ensure_future(reader.read(1))
        streaming = "text/event-stream" in headers.get("accept", "")
        extra: dict[str, str] = {}
        try:
            message = await _next(outgoing, watcher)
            if message is _GONE:
                return
            if message is None:
                if session.dropped:  # the request is closed unanswered
                    if session_id is not None:  # a session this host holds (not initialize)
                        self._end(session_id)
                elif task.cancelled() and streaming:
                    # notifications/cancelled: the request gets no answer. An SSE stream that
                    # ends without one lets the client settle it; a bare disconnect would fail
                    # the client's whole connection.
                    writer.write(_head(200, {"content-type": "text/event-stream"}))
                    await writer.drain()
                else:
                    await _respond(writer, 202, None)
                return
            if opened is not None and "result" in message:
                self._sessions[opened] = _Session(session)
                extra[_SESSION_HEADER] = opened
            if not streaming or _is_answer(message):
                # One JSON answer: notifications before it are left out.
                while message is not None and message is not _GONE and not _is_answer(message):
                    message = await _next(outgoing, watcher)
                if message is not None and message is not _GONE:
                    await _respond(writer, 200, _encoded(message, session), extra)
                return
            writer.write(
                _head(
                    200, {"content-type": "text/event-stream", "cache-control": "no-cache", **extra}
                )
            )
            while message is not None and message is not _GONE:
                writer.write(b"event: message\ndata: " + _encoded(message, session) + b"\n\n")
                await writer.drain()
                if _is_answer(message):
                    return
                message = await _next(outgoing, watcher)
        finally:
            await _cancel(watcher, task)

    async def _get(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, headers: dict[str, str]
    ) -> None:
        session_id = headers.get(_SESSION_HEADER)
        if session_id is None:
            await _respond(
                writer,
                405,
                error_message(
                    None, -32600, "Method Not Allowed: open a session with initialize first"
                ),
                {"allow": "POST"},
            )
            return
        known = await self._session(writer, session_id)
        if known is None:
            return
        writer.write(_head(200, {"content-type": "text/event-stream", "cache-control": "no-cache"}))
        await writer.drain()
        ended = asyncio.ensure_future(known.ended.wait())
        gone = asyncio.ensure_future(reader.read(1))
        pushed = asyncio.ensure_future(known.pushed.get())
        try:
            while True:
                await asyncio.wait({ended, gone, pushed}, return_when=asyncio.FIRST_COMPLETED)
                if not pushed.done():
                    return  # the session ended or the client left
                message = pushed.result()
                writer.write(b"event: message\ndata: " + _encoded(message, known.jsonrpc) + b"\n\n")
                await writer.drain()
                pushed = asyncio.ensure_future(known.pushed.get())
        finally:
            await _cancel(ended, gone, pushed)

    async def _delete(self, writer: asyncio.StreamWriter, headers: dict[str, str]) -> None:
        session_id = headers.get(_SESSION_HEADER)
        if session_id is None:
            await _respond(
                writer, 400, error_message(None, -32600, "Bad Request: no Mcp-Session-Id header")
            )
            return
        if await self._session(writer, session_id) is None:
            return
        self._end(session_id)
        await _respond(writer, 200, None)


async def _cancel(*tasks: asyncio.Future[Any]) -> None:
    """Cancel ``tasks`` and wait until each has ended."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _put(queue: asyncio.Queue[Any]) -> Any:
    async def put(message: dict[str, Any]) -> None:
        queue.put_nowait(message)

    return put


async def _next(queue: asyncio.Queue[Any], watcher: asyncio.Future[bytes]) -> Any:
    """Return the next outgoing message, None at the end, or _GONE if the client left."""
    getter = asyncio.ensure_future(queue.get())
    while True:
        await asyncio.wait({getter, watcher}, return_when=asyncio.FIRST_COMPLETED)
        if getter.done():
            return getter.result()
        if not watcher.cancelled() and watcher.exception() is None and watcher.result():
            # Bytes after the request on a Connection: close exchange: ignore, keep waiting.
            return await getter
        getter.cancel()
        return _GONE


def _is_answer(message: dict[str, Any]) -> bool:
    return "result" in message or "error" in message  # a JSON-RPC response, never a request


def _opens_session(body: bytes) -> bool:
    try:
        method: object = json.loads(body)["method"]
    except (ValueError, RecursionError, TypeError, KeyError):  # not JSON, no object, no method
        return False
    return method == "initialize"


def _encoded(message: dict[str, Any], session: MCPJSONRPCSession) -> bytes:
    try:
        return _STRICT_JSON.encode(message).encode()
    except (TypeError, ValueError) as error:
        # A responder's answer that is not JSON: the client gets an error, the test a violation.
        session.server.record_violation(
            MCPProtocolError(
                "invalid_params",
                session_id=session.session_id,
                detail=f"answer is not JSON: {error}",
            )
        )
        fallback = error_message(message.get("id"), -32603, f"answer is not JSON: {error}")
        return json.dumps(fallback).encode()


def _head(status: int, headers: dict[str, str]) -> bytes:
    # A status this table lacks gets an empty reason phrase, which HTTP/1.1 allows.
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, '')}", "connection: close"]
    lines += [f"{key}: {value}" for key, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode(_HEAD_CODEC)


async def _respond(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes | dict[str, Any] | None,
    headers: dict[str, str] | None = None,
) -> None:
    payload = (
        b"" if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    )
    fields = dict(headers or {})
    if body is not None:
        fields["content-type"] = "application/json"
    fields["content-length"] = str(len(payload))
    writer.write(_head(status, fields) + payload)
    await writer.drain()


async def _read_request(
    reader: asyncio.StreamReader,
) -> tuple[str, str, dict[str, str], bytes]:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise _BadRequest(431, "request head too large") from None
    lines = head[:-4].decode(_HEAD_CODEC).split("\r\n")  # without the blank line that ends it
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _BadRequest(400, "malformed request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise _BadRequest(400, "malformed header line")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        try:
            body = await _read_chunked(reader)
        except asyncio.LimitOverrunError:
            raise _BadRequest(400, "malformed chunked body") from None
    else:
        length_text = headers.get("content-length", "0")
        if not length_text.isdigit():
            raise _BadRequest(400, "invalid content-length")
        length = int(length_text)
        if length > MAX_MESSAGE_BYTES:
            raise _BadRequest(413, f"body of {length} bytes over the limit")
        body = await reader.readexactly(length)
    return parts[0], parts[1], headers, body


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        size_line = await reader.readuntil(b"\r\n")
        digits = size_line.split(b";")[0].strip()  # a chunk extension is ignored
        if _CHUNK_SIZE.fullmatch(digits) is None:
            raise _BadRequest(400, "malformed chunk size")
        size = int(digits, 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return b"".join(parts)
        total += size
        if total > MAX_MESSAGE_BYTES:
            raise _BadRequest(413, "chunked body over the limit")
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
