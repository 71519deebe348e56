"""Raw-socket HTTP for the server tests: send exact bytes, read and parse the whole answer."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from agents_testing import WireRequestError
from agents_testing.wire import ScriptedServer

# Every socket read is bounded, so a server that never answers fails the test, never hangs it.
TIMEOUT = 10.0


@dataclass(frozen=True)
class Answer:
    """One HTTP response as read off the socket."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """Return the body parsed as JSON."""
        return json.loads(self.body)


def port_of(url: str) -> int:
    """Return the port of ``http://127.0.0.1:PORT``."""
    return int(url.rpartition(":")[2])


def connect(url: str) -> socket.socket:
    """Open a connection to the server, with a read timeout."""
    return socket.create_connection(("127.0.0.1", port_of(url)), timeout=TIMEOUT)


def send(url: str, data: bytes, *, shut_write: bool = True) -> bytes:
    """Send ``data``, optionally shut the write side, and return every byte until EOF."""
    with connect(url) as sock:
        sock.sendall(data)
        if shut_write:
            sock.shutdown(socket.SHUT_WR)
        return read_all(sock)


def read_all(sock: socket.socket) -> bytes:
    """Read until the server closes the connection."""
    parts: list[bytes] = []
    while True:
        data = sock.recv(65536)
        if not data:
            return b"".join(parts)
        parts.append(data)


def reset(sock: socket.socket) -> None:
    """Close with an RST, as a killed client does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def eventually(condition: Callable[[], object]) -> bool:
    """Poll ``condition`` until it holds or ``TIMEOUT`` passes; return whether it held."""
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def refused(server: ScriptedServer) -> WireRequestError:
    """Return the refusal ``assert_complete()`` raises."""
    with pytest.raises(WireRequestError) as caught:
        server.assert_complete()
    return caught.value


def request(method: str, path: str, body: bytes = b"", **headers: str) -> bytes:
    """Build a well-formed HTTP/1.1 request with a Content-Length."""
    lines = [f"{method} {path} HTTP/1.1", "host: 127.0.0.1"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    if body or method == "POST":
        lines.append(f"content-length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def parse(raw: bytes, *, head: bool = False) -> Answer:
    """Parse one response: the status line, headers, and a Content-Length or chunked body.

    With ``head``, the answer to a HEAD request may stop after its headers.
    """
    section, separator, rest = raw.partition(b"\r\n\r\n")
    assert separator, f"no complete header section in {raw[:200]!r}"
    status_line, *header_lines = section.decode("latin-1").split("\r\n")
    version, status, _ = status_line.split(" ", 2)
    assert version == "HTTP/1.1", status_line
    headers: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = b""
        while True:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            body, rest = body + rest[:size], rest[size + 2 :]
    elif head and not rest:
        body = b""
    else:
        body = rest[: int(headers["content-length"])]
        assert len(body) == int(headers["content-length"]), "the body was cut short"
    return Answer(int(status), headers, body)


class Quiet:
    """Collect what thread and unraisable hooks would print: a clean run collects nothing."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self._thread_hook: Callable[..., Any] | None = None

    def __enter__(self) -> Quiet:
        import sys

        self._thread_hook = threading.excepthook
        self._unraisable_hook = sys.unraisablehook
        threading.excepthook = lambda args: self.errors.append(repr(args.exc_value))
        sys.unraisablehook = lambda args: self.errors.append(repr(args.exc_value))
        return self

    def __exit__(self, *exc_info: object) -> None:
        import sys

        threading.excepthook = self._thread_hook  # type: ignore[assignment]
        sys.unraisablehook = self._unraisable_hook
