"""The stdio relay (``mcp_stdio.py``) run in this process, so its code is measured.

``ScriptedMCPServer.stdio_command`` runs the relay as a child process; those tests are in
``test_mcp_transports.py``. Here ``main()`` runs in a thread, with pipes for its stdin and
stdout, a parent id the test controls, and an ``_exit`` that ends only the calling thread
(the real one ends the process), so each way the relay stops is seen separately.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import sys
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from agents_testing import ScriptedMCPServer, mcp_tool, mcp_tool_call
from agents_testing.wire import mcp_stdio

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}


def wait_until(condition: Any) -> None:
    for _ in range(1000):  # bounded: at most 1000 short sleeps
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("condition never became true")


class Relay:
    """``mcp_stdio.main()`` running in a thread of this process.

    ``_exit`` records which thread called it and holds that thread until ``stop()``: the
    real one ends the process there, so nothing after it may run while the test looks.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
        self.stdin_read, self.stdin = os.pipe()
        self.stdout, self.stdout_write = os.pipe()
        self.exits: list[str] = []
        self.daemons: dict[str, bool] = {}  # whether each exiting thread is a daemon
        self.orphaned = threading.Event()
        self.released = threading.Event()
        self.returned: list[int] = []
        parent = os.getppid()
        real_getppid = os.getppid

        def getppid() -> int:
            if threading.current_thread() is threading.main_thread():
                return real_getppid()
            return parent + 1 if self.orphaned.is_set() else parent

        def fake_exit() -> None:
            self.exits.append(threading.current_thread().name)
            self.daemons[threading.current_thread().name] = threading.current_thread().daemon
            self.released.wait()

        monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=_Fd(self.stdin_read)))
        monkeypatch.setattr(sys, "stdout", SimpleNamespace(buffer=_Fd(self.stdout_write)))
        monkeypatch.setattr(os, "getppid", getppid)
        monkeypatch.setattr(mcp_stdio, "_PARENT", parent)
        monkeypatch.setattr(mcp_stdio, "_PARENT_POLL_SECONDS", 0.01)
        monkeypatch.setattr(mcp_stdio, "_exit", fake_exit)
        self.thread = threading.Thread(target=self._main, args=(argv,), name="relay-main")
        self.thread.start()

    def _main(self, argv: list[str]) -> None:
        self.returned.append(mcp_stdio.main(argv))

    def exited(self, function: str) -> bool:
        return any(name.endswith(f"({function})") for name in self.exits)

    def send(self, message: dict[str, Any]) -> None:
        os.write(self.stdin, json.dumps(message).encode() + b"\n")

    def receive(self) -> dict[str, Any]:
        line = b""
        for _ in range(1000):  # bounded: a relay that sends nothing fails the test
            if line.endswith(b"\n"):
                answer: dict[str, Any] = json.loads(line)
                return answer
            if select.select([self.stdout], [], [], 0.01)[0]:
                line += os.read(self.stdout, 65536)
        raise AssertionError(f"no answer on stdout; got {line[:80]!r}")

    def stop(self, server: ScriptedMCPServer | None = None) -> None:
        """End all three threads of the relay and close the pipes."""
        self.released.set()
        self.orphaned.set()
        with contextlib.suppress(OSError):
            os.close(self.stdin)  # closed by the test already
        if server is not None:
            server.close()
        wait_until(lambda: len(self.exits) == 3)
        self.thread.join()
        for fd in (self.stdin_read, self.stdout, self.stdout_write):
            os.close(fd)


class _Fd:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd


@pytest.fixture
def served() -> Iterator[ScriptedMCPServer]:
    server = ScriptedMCPServer(
        [mcp_tool_call("big", result="x" * 300_000)], tools=[mcp_tool("big")]
    )
    try:
        yield server
    finally:
        server.close()


def relay_to(server: ScriptedMCPServer, monkeypatch: pytest.MonkeyPatch) -> Relay:
    command = server.stdio_command
    return Relay(monkeypatch, command[command.index("--connect") :])


def test_the_relay_copies_stdin_to_the_server_and_its_answers_to_stdout(
    served: ScriptedMCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    relay = relay_to(served, monkeypatch)
    try:
        relay.send(INITIALIZE)
        assert relay.receive()["result"]["serverInfo"]["name"] == "scripted-mcp-server"
        relay.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "big"}})
        answer = relay.receive()  # larger than a pipe holds: written in parts

        assert answer["result"]["content"][0]["text"] == "x" * 300_000
        assert relay.exits == []
        assert served.calls[0].session_id == "stdio-1"
    finally:
        relay.stop(served)
    served.assert_complete()


def test_the_relay_stops_when_its_stdin_closes(
    served: ScriptedMCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    relay = relay_to(served, monkeypatch)
    try:
        relay.send(INITIALIZE)
        relay.receive()

        os.close(relay.stdin)

        wait_until(lambda: relay.exited("_upstream"))
        assert relay.exits == [relay.exits[0]]  # nothing else stopped it
    finally:
        relay.stop(served)


def test_the_relay_stops_when_its_parent_goes_away(
    served: ScriptedMCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    relay = relay_to(served, monkeypatch)
    try:
        relay.send(INITIALIZE)
        relay.receive()
        assert relay.exits == []  # the parent is still there

        relay.orphaned.set()

        wait_until(lambda: relay.exited("_watch_parent"))
        assert len(relay.exits) == 1
    finally:
        relay.stop(served)


def test_the_relay_stops_when_the_server_closes(
    served: ScriptedMCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    relay = relay_to(served, monkeypatch)
    try:
        relay.send(INITIALIZE)
        relay.receive()

        served.close()

        wait_until(lambda: relay.exits == ["relay-main"])  # _downstream saw the end
        assert relay.returned == []  # _exit ends it: main() does not return
    finally:
        relay.stop(served)
    assert relay.returned == [0]


def test_the_relays_helper_threads_never_keep_its_process_alive(
    served: ScriptedMCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    relay = relay_to(served, monkeypatch)
    relay.send(INITIALIZE)
    relay.receive()

    relay.stop(served)  # each of the three threads reaches _exit

    # If main() ever raised instead of exiting, the interpreter would not wait for these.
    helpers = {name: daemon for name, daemon in relay.daemons.items() if name != "relay-main"}
    assert sorted(name.rpartition("(")[2] for name in helpers) == [
        "_upstream)",
        "_watch_parent)",
    ]
    assert all(helpers.values())


def test_the_relay_sends_the_token_first(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        relay = Relay(monkeypatch, ["--connect", f"127.0.0.1:{port}", "--token", "t0ken"])
        listener.settimeout(10)  # a relay that never connects fails the test, not hangs it
        try:
            connection, _ = listener.accept()
            connection.settimeout(10)
            with connection, connection.makefile("rb") as received:
                assert received.readline() == b"t0ken\n"
                os.write(relay.stdin, b"from stdin\n")
                assert received.readline() == b"from stdin\n"
                connection.sendall(b"to stdout\n")
                assert os.read(relay.stdout, 100) == b"to stdout\n"
            wait_until(lambda: relay.exits == ["relay-main"])  # the connection closed
        finally:
            relay.stop()


@pytest.mark.parametrize(
    ("address", "error"),
    [
        pytest.param("127.0.0.1:http", "invalid literal for int()", id="not-a-port"),
        pytest.param(None, "Connection refused", id="refused"),
    ],
)
def test_the_relay_says_when_it_cannot_reach_the_server(
    address: str | None, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as held:  # bound, never listening: connecting is refused
        held.bind(("127.0.0.1", 0))
        target = address or f"127.0.0.1:{held.getsockname()[1]}"

        code = mcp_stdio.main(["--connect", target, "--token", "t"])

    assert code == 1
    message = capsys.readouterr().err
    assert message.startswith(f"agents-testing MCP relay: cannot reach {target}: ")
    assert error in message


@pytest.mark.parametrize(
    ("argv", "missing"),
    [
        pytest.param(["--connect", "127.0.0.1:1"], "--token", id="token"),
        pytest.param(["--token", "t"], "--connect", id="connect"),
    ],
)
def test_the_relay_needs_both_options(
    argv: list[str], missing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        mcp_stdio.main(argv)

    assert raised.value.code == 2
    assert f"the following arguments are required: {missing}" in capsys.readouterr().err


def test_the_relay_explains_its_options(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one line per option

    with pytest.raises(SystemExit):
        mcp_stdio.main(["--help"])

    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert "Relay MCP stdio to a scripted MCP server." in lines
    assert "--connect CONNECT  HOST:PORT of the test's server" in lines
    assert "--token TOKEN      the token the server expects first" in lines


def test_the_relay_reads_the_port_after_the_last_colon(monkeypatch: pytest.MonkeyPatch) -> None:
    # An IPv6 host has colons of its own. No IPv6 socket is opened: the suite also runs with
    # every host but 127.0.0.1 blocked, so the relay gets one end of a socket pair instead.
    ours, theirs = socket.socketpair()
    reached: list[Any] = []

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        reached.append(address)
        return theirs

    monkeypatch.setattr(socket, "create_connection", create_connection)
    with ours:
        relay = Relay(monkeypatch, ["--connect", "::1:4242", "--token", "t6"])
        try:
            ours.settimeout(10)  # a relay that sends nothing fails the test, not hangs it
            with ours.makefile("rb") as received:
                assert received.readline() == b"t6\n"
            assert reached == [("::1", 4242)]
            ours.shutdown(socket.SHUT_RDWR)  # the server goes away: the relay ends
            wait_until(lambda: relay.exits == ["relay-main"])
        finally:
            relay.stop()
