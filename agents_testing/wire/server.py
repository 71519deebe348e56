"""``ScriptedServer``: a loopback HTTP server in a background thread for any HTTP client."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import cast

from ..model import ScriptedModel
from ._endpoint import ScriptedEndpoint, WireExchange

__all__ = ["ScriptedServer"]


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close, so no thread outlives the server.
    daemon_threads = False
    block_on_close = True
    endpoint: ScriptedEndpoint


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # A client that stops sending mid-request must not keep the server from closing.
    timeout = 30

    def _answer(self) -> None:
        body = self._read_body()
        # Each handler thread runs its exchange on a loop of its own, so an exact stream's
        # events go out as the scripted source yields them.
        asyncio.run(self._send(body))
        self.close_connection = True

    async def _send(self, body: bytes) -> None:
        endpoint = cast(_Server, self.server).endpoint
        response, rest = await endpoint.open_async(
            self.command, self.path, list(self.headers.items()), body
        )
        self.send_response(response.status)
        for key, value in response.headers:
            self.send_header(key, value)
        # One request per connection: nothing keeps a handler thread waiting on an idle
        # keep-alive connection when the server shuts down.
        self.send_header("connection", "close")
        if not response.streamed:
            payload = response.body
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
            return
        try:
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for chunk in response.chunks:
                self._write_chunk(chunk)
            if rest is not None:
                async for chunk in rest:
                    self._write_chunk(chunk)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading; closing ``rest`` closes the scripted source
        finally:
            if rest is not None:
                await rest.aclose()

    def _write_chunk(self, chunk: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.flush()

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    do_POST = _answer
    do_GET = _answer
    do_PUT = _answer
    do_DELETE = _answer
    do_PATCH = _answer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: the endpoint records every request."""


class ScriptedServer:
    """Serve scripted models over HTTP on 127.0.0.1, on a free port, from a background thread.

    Use it as a context manager (``with`` or ``async with``); leaving it shuts the server
    down and joins every thread it started. Point OpenAI clients at ``base_url`` and
    Anthropic clients at ``url``.

    Args:
        models: a ``ScriptedModel``, or a mapping routing model names or path prefixes to
            models (see ``ScriptedEndpoint``).
    """

    def __init__(self, models: ScriptedModel | Mapping[str, ScriptedModel]) -> None:
        self.endpoint: ScriptedEndpoint = ScriptedEndpoint(models)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        where = self.url if self._server is not None else "stopped"
        return f"<ScriptedServer {where} requests={len(self.endpoint.requests)}>"

    @property
    def url(self) -> str:
        """Return the server's root URL, ``http://127.0.0.1:PORT``."""
        if self._server is None:
            raise RuntimeError("ScriptedServer is not running; use it in a with block first")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """Return the OpenAI-style base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> tuple[WireExchange, ...]:
        """Return every HTTP request the server answered, in arrival order."""
        return self.endpoint.requests

    def assert_complete(self) -> None:
        """Fail on the first unservable request, then on any model's unused or broken script."""
        self.endpoint.assert_complete()

    def start(self) -> ScriptedServer:
        """Bind 127.0.0.1 on a free port and serve in a background thread."""
        if self._server is not None:
            raise RuntimeError("ScriptedServer is already running")
        server = _Server(("127.0.0.1", 0), _Handler)
        server.endpoint = self.endpoint
        thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="agents-testing-server",
            daemon=True,
        )
        thread.start()
        self._server, self._thread = server, thread
        return self

    def close(self) -> None:
        """Stop serving, close the socket and join every server thread."""
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is None or thread is None:
            return
        server.shutdown()
        thread.join()
        server.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> ScriptedServer:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Joining threads blocks: keep the event loop free while it happens.
        await asyncio.to_thread(self.close)
