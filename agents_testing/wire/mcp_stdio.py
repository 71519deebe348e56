"""The stdio side of a scripted MCP server: a relay process a framework spawns.

``ScriptedMCPServer.stdio_command`` runs this file as a script. It connects to the test's own
process over a loopback socket and copies bytes both ways: its stdin to the server, the
server's answers to its stdout. The script and the records stay in the test's process; this
process holds neither. It exits when its stdin closes (the framework closed the session or
died), when the test's server closes the socket, or when its parent process goes away.

Run as ``python -I mcp_stdio.py --connect 127.0.0.1:PORT --token TOKEN``. It imports only
the standard library and nothing relative, so it runs as a plain file in isolated mode.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading

__all__ = ["main"]

# Taken first thing: a parent that dies while this process starts up must still be noticed.
_PARENT = os.getppid()
_CHUNK = 65536
_PARENT_POLL_SECONDS = 0.5


def main(argv: list[str] | None = None) -> int:
    """Relay stdin and stdout to the scripted server at ``--connect``; return the exit code."""
    parser = argparse.ArgumentParser(description="Relay MCP stdio to a scripted MCP server.")
    parser.add_argument("--connect", required=True, help="HOST:PORT of the test's server")
    parser.add_argument("--token", required=True, help="the token the server expects first")
    args = parser.parse_args(argv)
    host, _, port = str(args.connect).rpartition(":")
    try:
        connection = socket.create_connection((host, int(port)))
    except (OSError, ValueError) as error:
        print(f"agents-testing MCP relay: cannot reach {args.connect}: {error}", file=sys.stderr)
        return 1
    with connection:
        connection.sendall(str(args.token).encode() + b"\n")
        parent = _PARENT
        for target in (_upstream, _watch_parent):
            threading.Thread(target=target, args=(connection, parent), daemon=True).start()
        _downstream(connection)
    return 0


def _upstream(connection: socket.socket, parent: int) -> None:
    stdin = sys.stdin.buffer.fileno()
    try:
        while chunk := os.read(stdin, _CHUNK):
            connection.sendall(chunk)
    except OSError:
        pass
    # The client closed our stdin: the session is over.
    _exit()


def _watch_parent(connection: socket.socket, parent: int) -> None:
    # A parent that dies without closing our stdin (it was inherited elsewhere) re-parents
    # this process; nothing else would tell it to stop.
    while os.getppid() == parent:
        threading.Event().wait(_PARENT_POLL_SECONDS)
    _exit()


def _downstream(connection: socket.socket) -> None:
    stdout = sys.stdout.buffer.fileno()
    try:
        while data := connection.recv(_CHUNK):
            view = memoryview(data)
            while view:
                view = view[os.write(stdout, view) :]
    except OSError:
        pass
    _exit()


def _exit() -> None:
    # Threads blocked in reads cannot be joined; leave at once, with nothing left to flush.
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
