"""The served MCP double at the byte level: hostile input, sessions, SSE, faults, cleanup.

Only the standard library talks to the server here (``http.client``, raw sockets and the
spawned stdio relay), so these tests run without the ``mcp`` package.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from agents_testing import (
    MCPCall,
    MCPProtocolError,
    ScriptedMCPServer,
    mcp_log,
    mcp_tool,
    mcp_tool_call,
)
from agents_testing.wire.mcp_host import MCP_PATH, MCPHost, _BadRequest, _head
from agents_testing.wire.mcp_jsonrpc import MAX_MESSAGE_BYTES, MCPJSONRPCSession

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
# Seconds a socket read waits: a broken host fails its test instead of hanging it. Far more
# than any answer takes; nothing measures time with it.
HANG_LIMIT = 30.0


@pytest.fixture
def server() -> Iterator[ScriptedMCPServer]:
    served = ScriptedMCPServer(tools=[mcp_tool("t")])
    try:
        yield served
    finally:
        served.close()


def post(
    server: ScriptedMCPServer, body: bytes | dict[str, Any], headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    return request(server, "POST", body, headers)


def request(
    server: ScriptedMCPServer,
    method: str,
    body: bytes | dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=HANG_LIMIT)
    try:
        payload = json.dumps(body).encode() if isinstance(body, dict) else body
        connection.request(method, parts.path, payload, {**ACCEPT, **(headers or {})})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def refusal(server: ScriptedMCPServer) -> MCPProtocolError:
    with pytest.raises(MCPProtocolError) as raised:
        server.assert_complete()
    return raised.value


def wait_until(condition: Any) -> None:
    for _ in range(500):  # bounded: at most 500 short sleeps
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("condition never became true")


@pytest.mark.parametrize(
    ("body", "code", "reason"),
    [
        pytest.param(b"{not json", -32700, "malformed_json", id="malformed"),
        pytest.param(
            b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, "batch_request", id="batch"
        ),
        pytest.param(b"[" * 100 + b"]" * 100, -32600, "too_deep", id="deep"),
        pytest.param(
            b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
            -32600,
            "invalid_request",
            id="version",
        ),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": true, "method": "ping"}',
            -32600,
            "invalid_request",
            id="bool-id",
        ),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}',
            -32602,
            "invalid_params",
            id="params-array",
        ),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 1, "method": "nope/nope"}',
            -32601,
            "unknown_method",
            id="unknown-method",
        ),
    ],
)
def test_hostile_json_rpc_gets_the_protocol_error_and_fails_completion(
    server: ScriptedMCPServer, body: bytes, code: int, reason: str
) -> None:
    server.enqueue(mcp_tool_call("t", result="x", optional=True))

    status, _, answer = post(server, body)

    assert status == 200
    assert json.loads(answer)["error"]["code"] == code
    assert refusal(server).reason == reason
    assert server.remaining_steps == 1


def test_an_oversized_body_is_refused_with_413(server: ScriptedMCPServer) -> None:
    status, _, answer = post(server, b"{}", {"content-length": str(MAX_MESSAGE_BYTES + 1)})

    assert status == 413
    assert json.loads(answer)["error"]["code"] == -32600
    assert refusal(server).reason == "too_large"


def test_initialize_opens_a_session_that_delete_ends(server: ScriptedMCPServer) -> None:
    status, headers, answer = post(server, INITIALIZE)
    session = headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}

    assert (status, json.loads(answer)["result"]["protocolVersion"]) == (200, "2025-06-18")
    assert (
        post(
            server,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"mcp-session-id": session},
        )[0]
        == 202
    )
    assert json.loads(post(server, ping, {"mcp-session-id": session})[2])["result"] == {}
    assert request(server, "DELETE", None, {"mcp-session-id": session})[0] == 200
    assert post(server, ping, {"mcp-session-id": session})[0] == 404
    assert [(call.method, call.session_id) for call in server.calls] == [
        ("initialize", session),
        ("ping", session),
    ]
    assert server.calls[1].protocol_version == "2025-06-18"
    assert (refusal(server).reason, refusal(server).session_id) == ("unknown_session", session)


def test_get_without_a_session_is_not_allowed(server: ScriptedMCPServer) -> None:
    status, headers, _ = request(server, "GET")

    assert (status, headers["allow"]) == (405, "POST")
    server.assert_complete()


def test_an_unknown_path_is_404_and_a_violation(server: ScriptedMCPServer) -> None:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=HANG_LIMIT)
    connection.request("POST", "/elsewhere", b"{}")
    status = connection.getresponse().status
    connection.close()

    assert status == 404
    assert refusal(server).reason == "invalid_request"


def test_notifications_before_the_answer_stream_as_sse(server: ScriptedMCPServer) -> None:
    server.enqueue(mcp_tool_call("t", result="done", notifications=[mcp_log("info", "working")]))
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "t", "arguments": {}},
    }

    status, headers, body = post(server, call)

    assert (status, headers["content-type"]) == (200, "text/event-stream")
    events = [
        json.loads(line[len("data: ") :])
        for line in body.decode().splitlines()
        if line.startswith("data: ")
    ]
    assert [event.get("method") for event in events] == ["notifications/message", None]
    assert events[1]["result"]["content"][0]["text"] == "done"


def test_a_client_that_disconnects_mid_call_cancels_the_call(server: ScriptedMCPServer) -> None:
    cancelled: list[int] = []

    async def forever(call: MCPCall) -> str:
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            cancelled.append(call.index)
        return "never"

    server.enqueue(mcp_tool_call("t", respond=forever))
    parts = urlsplit(server.url)
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "t", "arguments": {}},
        }
    ).encode()
    with socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT) as raw:
        raw.sendall(
            b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body)
        )
        wait_until(lambda: len(server.calls) == 1)

    wait_until(lambda: cancelled == [0])
    server.assert_complete()


def test_close_with_clients_connected_returns_and_leaves_no_thread() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", hang=True)])
    _status, headers, _ = post(server, INITIALIZE)
    session = headers["mcp-session-id"]
    parts = urlsplit(server.url)
    stream = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=HANG_LIMIT)
    stream.request("GET", "/mcp", headers={**ACCEPT, "mcp-session-id": session})
    opened = stream.getresponse()
    hanging = socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT)
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "t", "arguments": {}},
        }
    ).encode()
    hanging.sendall(
        b"POST /mcp HTTP/1.1\r\nhost: x\r\nmcp-session-id: %s\r\ncontent-length: %d"
        b"\r\n\r\n%s" % (session.encode(), len(body), body)
    )
    wait_until(lambda: len(server.calls) == 2)

    server.close()

    assert opened.status == 200
    assert opened.read() == b""  # the stream ended with the server
    assert hanging.recv(1) == b""
    hanging.close()
    stream.close()
    assert not [t for t in threading.enumerate() if t.name == "agents-testing-mcp"]
    server.assert_complete()


def relay(server: ScriptedMCPServer) -> subprocess.Popen[bytes]:
    return subprocess.Popen(server.stdio_command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def exchange(process: subprocess.Popen[bytes], line: bytes) -> dict[str, Any]:
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(line + b"\n")
    process.stdin.flush()
    answer: dict[str, Any] = json.loads(process.stdout.readline())
    return answer


def test_the_stdio_relay_serves_the_script_held_in_this_process() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", {"x": 1}, result="ok")], tools=[mcp_tool("t")])
    process = relay(server)
    try:
        assert exchange(process, json.dumps(INITIALIZE).encode())["result"]["serverInfo"]
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "t", "arguments": {"x": 1}},
        }
        answer = exchange(process, json.dumps(call).encode())
        malformed = exchange(process, b"{oops")
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
        server.close()
        assert process.stdout is not None
        process.stdout.close()

    assert answer["result"]["content"][0]["text"] == "ok"
    assert malformed["error"]["code"] == -32700
    assert server.tool_arguments == ({"x": 1},)
    assert server.calls[0].session_id == "stdio-1"
    assert refusal(server).reason == "malformed_json"


def test_the_stdio_relay_exits_when_the_server_closes() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("t")])
    process = relay(server)
    exchange(process, json.dumps(INITIALIZE).encode())

    server.close()

    assert process.wait() == 0
    for pipe in (process.stdin, process.stdout):
        assert pipe is not None
        pipe.close()


def test_the_stdio_relay_exits_when_its_stdin_closes() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("t")])
    process = relay(server)
    try:
        exchange(process, json.dumps(INITIALIZE).encode())
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait() == 0
    finally:
        server.close()
        assert process.stdout is not None
        process.stdout.close()


def test_a_relay_with_the_wrong_token_is_ignored() -> None:
    server = ScriptedMCPServer()
    command = server.stdio_command
    command[command.index("--token") + 1] = "wrong"
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        assert process.stdout.read() == b""  # the server hung up on it
        assert process.wait() == 0
    finally:
        for pipe in (process.stdin, process.stdout):
            assert pipe is not None
            pipe.close()
        server.close()
    assert server.calls == ()


def test_a_step_that_drops_an_http_session_closes_the_call_and_forgets_the_session(
    server: ScriptedMCPServer,
) -> None:
    server.enqueue(mcp_tool_call("t", drop_session=True))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "t", "arguments": {}},
    }

    with pytest.raises(http.client.RemoteDisconnected):
        post(server, call, {"mcp-session-id": session})

    assert (
        post(server, {"jsonrpc": "2.0", "id": 3, "method": "ping"}, {"mcp-session-id": session})[0]
        == 404
    )
    assert server.remaining_steps == 0


def test_a_step_that_drops_a_stdio_session_ends_the_relay() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", drop_session=True)])
    process = relay(server)
    try:
        exchange(process, json.dumps(INITIALIZE).encode())
        assert process.stdin is not None
        assert process.stdout is not None
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "t", "arguments": {}},
        }
        process.stdin.write(json.dumps(call).encode() + b"\n")
        process.stdin.flush()
        assert process.stdout.read() == b""
        assert process.wait() == 0
    finally:
        for pipe in (process.stdin, process.stdout):
            assert pipe is not None
            pipe.close()
        server.close()
    server.assert_complete()


def _exited(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_stdio_relay_exits_when_its_parent_dies_with_stdin_still_open() -> None:
    server = ScriptedMCPServer()
    # The parent hands its own stdin to the relay, so the relay's stdin stays open (this test
    # holds the other end) after the parent is killed: only the parent watch can stop it.
    parent_code = (
        "import subprocess, sys, time\n"
        f"relay = subprocess.Popen({server.stdio_command!r}, stdout=subprocess.DEVNULL)\n"
        "print(relay.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", parent_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert parent.stdout is not None
        assert parent.stdin is not None
        relay_pid = int(parent.stdout.readline())
        # One request through the relay proves it runs and watches its parent.
        parent.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        parent.stdin.flush()
        wait_until(lambda: len(server.calls) == 1)
        parent.kill()
        parent.wait()

        wait_until(lambda: _exited(relay_pid))
    finally:
        for pipe in (parent.stdin, parent.stdout):
            assert pipe is not None
            pipe.close()
        server.close()


ENVELOPE = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}


def converse(messages: list[dict[str, Any]]) -> tuple[ScriptedMCPServer, list[dict[str, Any]]]:
    server = ScriptedMCPServer(tools=[mcp_tool("t")])
    session = MCPJSONRPCSession(server, "s")
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> None:
        for message in messages:
            await session.receive(json.dumps(message), send)

    asyncio.run(run())
    return server, sent


def test_initialize_on_a_2026_connection_is_an_unsupported_version() -> None:
    server, sent = converse(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": ENVELOPE},
            INITIALIZE,
        ]
    )

    assert "result" in sent[0]
    assert sent[1]["error"]["code"] == -32022
    assert sent[1]["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-06-18"}
    assert [call.method for call in server.calls] == ["server/discover"]
    server.assert_complete()  # negotiation, not a broken script


def test_a_2026_envelope_on_an_initialize_connection_is_an_invalid_request() -> None:
    _, sent = converse(
        [INITIALIZE, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": ENVELOPE}]
    )

    assert sent[0]["result"]["protocolVersion"] == "2025-06-18"
    assert sent[1]["error"]["code"] == -32600


def test_server_notifications_reach_an_http_sessions_get_stream(server: ScriptedMCPServer) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    parts = urlsplit(server.url)
    stream = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=HANG_LIMIT)
    stream.request("GET", "/mcp", headers={**ACCEPT, "mcp-session-id": session})
    opened = stream.getresponse()

    server.notify_clients(mcp_log("info", "hello"))

    assert opened.status == 200
    assert opened.readline() == b"event: message\n"
    event = json.loads(opened.readline().decode().removeprefix("data: "))
    assert event == {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "hello"},
    }
    stream.close()


def test_a_chunked_body_is_read(server: ScriptedMCPServer) -> None:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=HANG_LIMIT)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    connection.request("POST", "/mcp", iter([body[:10], body[10:]]), ACCEPT, encode_chunked=True)
    answer = json.loads(connection.getresponse().read())
    connection.close()

    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_a_chunk_size_line_over_the_limit_is_a_bad_request(server: ScriptedMCPServer) -> None:
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT) as raw:
        raw.sendall(b"POST /mcp HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
        raw.sendall(b"1" * 70_000 + b"\r\n")
        status_line = raw.makefile("rb").readline()

    assert status_line.startswith(b"HTTP/1.1 400 ")
    assert refusal(server).reason == "invalid_request"


def post_chunked(server: ScriptedMCPServer, chunked_body: bytes) -> tuple[int, bytes]:
    """POST a chunked body written by hand (chunk size lines included)."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT) as raw:
        raw.sendall(
            b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"transfer-encoding: chunked\r\n\r\n" + chunked_body
        )
        response = http.client.HTTPResponse(raw)
        response.begin()
        return response.status, response.read()


PING = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'


def test_a_chunk_extension_is_ignored(server: ScriptedMCPServer) -> None:
    status, answer = post_chunked(server, b"%X;name=value\r\n%s\r\n0\r\n\r\n" % (len(PING), PING))

    assert (status, json.loads(answer)) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})


@pytest.mark.parametrize("size", [b"zz", b"-1", b"", b"0x2d", b"+2d", b"2_d"])
def test_a_chunk_size_that_is_not_hex_digits_is_a_bad_request(
    server: ScriptedMCPServer, size: bytes
) -> None:
    status, answer = post_chunked(server, size + b"\r\n" + PING + b"\r\n0\r\n\r\n")

    assert status == 400
    assert json.loads(answer)["error"] == {"code": -32600, "message": "malformed chunk size"}
    refused = refusal(server)
    assert (refused.reason, refused.detail) == ("invalid_request", "malformed chunk size")
    assert "Fix the client or the code that sends it" in str(refused)


def test_a_chunked_body_of_the_limit_is_read_and_one_byte_more_is_refused(
    server: ScriptedMCPServer,
) -> None:
    half = MAX_MESSAGE_BYTES // 2
    first = PING + b" " * (half - len(PING))  # JSON allows the trailing whitespace
    whole = b"%X\r\n%s\r\n%X\r\n%s\r\n0\r\n\r\n" % (half, first, half, b" " * half)

    status, answer = post_chunked(server, whole)

    assert (status, json.loads(answer)["result"]) == (200, {})
    server.assert_complete()

    # The limit holds for the chunks together, not for each one.
    status, answer = post_chunked(server, b"%X\r\n%s\r\n%X\r\n" % (half, first, half + 1))

    assert status == 413
    assert json.loads(answer)["error"] == {"code": -32600, "message": "chunked body over the limit"}
    refused = refusal(server)
    assert (refused.reason, refused.detail) == ("too_large", "chunked body over the limit")


def next_event(stream: http.client.HTTPResponse) -> dict[str, Any]:
    assert stream.readline() == b"event: message\n"
    event: dict[str, Any] = json.loads(stream.readline().decode().removeprefix("data: "))
    assert stream.readline() == b"\n"
    return event


@contextlib.contextmanager
def get_stream(server: ScriptedMCPServer, session: str) -> Iterator[http.client.HTTPResponse]:
    """Open the session's GET stream; close it (response and connection) at the end."""
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=HANG_LIMIT)
    connection.request("GET", "/mcp", headers={**ACCEPT, "mcp-session-id": session})
    stream = connection.getresponse()
    try:
        assert stream.status == 200
        yield stream
    finally:
        stream.close()
        connection.close()


def test_set_tools_tells_each_get_stream_that_the_tools_changed(server: ScriptedMCPServer) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    with get_stream(server, session) as stream:
        server.set_tools([mcp_tool("b")])
        server.notify_clients({"method": "notifications/resources/list_changed"})

        events = [next_event(stream), next_event(stream)]

    assert events == [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}},
    ]


def test_a_step_that_drops_an_http_session_ends_its_get_stream(server: ScriptedMCPServer) -> None:
    server.enqueue(mcp_tool_call("t", drop_session=True))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t"}}
    with get_stream(server, session) as stream:
        with pytest.raises(http.client.RemoteDisconnected):
            post(server, call, {"mcp-session-id": session})

        assert stream.read() == b""  # the stream ended with the session
    server.assert_complete()


def test_the_host_repr_shows_its_url_and_sessions_or_that_it_closed() -> None:
    server = ScriptedMCPServer()
    host = MCPHost(server)
    try:
        assert repr(host) == f"<MCPHost {host.url} sessions=0>"
        parts = urlsplit(host.url)
        connection = http.client.HTTPConnection(
            parts.hostname or "", parts.port, timeout=HANG_LIMIT
        )
        connection.request("POST", MCP_PATH, json.dumps(INITIALIZE).encode(), ACCEPT)
        assert connection.getresponse().status == 200
        connection.close()
        assert repr(host) == f"<MCPHost {host.url} sessions=1>"
        # The thread the MCP tests' conftest watches for logged errors, by this name.
        served = [thread for thread in threading.enumerate() if thread.name == "agents-testing-mcp"]
        assert [thread.daemon for thread in served] == [True]
    finally:
        host.close()
    assert not any(thread.name == "agents-testing-mcp" for thread in threading.enumerate())

    assert repr(host) == "<MCPHost closed sessions=1>"


def test_an_http_session_refusal_says_what_is_missing(server: ScriptedMCPServer) -> None:
    unknown = "u:" + "u" * 98  # a colon in a header value belongs to the value
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}

    no_header = request(server, "DELETE")
    not_found = [
        request(server, method, ping if method == "POST" else None, {"mcp-session-id": unknown})
        for method in ("POST", "GET", "DELETE")
    ]
    get = request(server, "GET")

    assert (no_header[0], json.loads(no_header[2])) == (
        400,
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": "Bad Request: no Mcp-Session-Id header"},
        },
    )
    for status, _, answer in not_found:
        assert (status, json.loads(answer)["error"]) == (
            404,
            {"code": -32001, "message": "Session not found"},
        )
    assert (get[0], get[1]["allow"], json.loads(get[2])["error"]) == (
        405,
        "POST",
        {"code": -32600, "message": "Method Not Allowed: open a session with initialize first"},
    )
    refused = refusal(server)
    assert (refused.reason, refused.session_id) == ("unknown_session", unknown[:80])
    assert "send the Mcp-Session-Id the initialize answer gave" in str(refused)


def test_an_answer_without_a_body_is_empty(server: ScriptedMCPServer) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}

    accepted = post(server, initialized, {"mcp-session-id": session})
    deleted = request(server, "DELETE", None, {"mcp-session-id": session})

    for _, headers, body in (accepted, deleted):
        assert (headers["content-length"], body) == ("0", b"")
        assert "content-type" not in headers
    assert (accepted[0], deleted[0]) == (202, 200)


def test_a_get_stream_is_an_uncached_event_stream(server: ScriptedMCPServer) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    with get_stream(server, session) as stream:
        headers = {key.lower(): value for key, value in stream.getheaders()}

    assert (headers["content-type"], headers["cache-control"]) == ("text/event-stream", "no-cache")


def test_a_notification_that_is_not_json_reaches_a_get_stream_as_an_error(
    server: ScriptedMCPServer,
) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    with get_stream(server, session) as stream:
        server.notify_clients(mcp_log("info", float("nan")))
        event = next_event(stream)

    assert event["error"]["code"] == -32603
    assert event["error"]["message"].startswith("answer is not JSON: ")
    refused = refusal(server)
    assert (refused.reason, refused.session_id) == ("invalid_params", session)


class RelayClient:
    """Talks to the host's stdio relay socket directly, as ``mcp_stdio.py`` does."""

    def __init__(self, server: ScriptedMCPServer) -> None:
        command = server.stdio_command
        host, _, port = command[command.index("--connect") + 1].rpartition(":")
        self.socket = socket.create_connection((host, int(port)), HANG_LIMIT)
        self.socket.sendall(command[command.index("--token") + 1].encode() + b"\n")
        self.lines = self.socket.makefile("rb")

    def send(self, data: bytes) -> None:
        self.socket.sendall(data)

    def receive(self) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self.lines.readline())
        return answer

    def close(self) -> None:
        self.lines.close()
        self.socket.close()


def test_server_notifications_reach_a_stdio_connection() -> None:
    server = ScriptedMCPServer()
    client = RelayClient(server)
    try:
        client.send(json.dumps(INITIALIZE).encode() + b"\n")
        assert "result" in client.receive()

        server.notify_clients(mcp_log("info", "one"), mcp_log("info", "two"))

        received = [client.receive(), client.receive()]
    finally:
        client.close()
        server.close()

    assert [message["params"]["data"] for message in received] == ["one", "two"]


def test_a_stdio_line_over_the_limit_is_refused_and_ends_the_connection() -> None:
    server = ScriptedMCPServer()
    client = RelayClient(server)
    try:
        client.send(b" " * (MAX_MESSAGE_BYTES + 3))  # no newline within the limit

        answer = client.receive()
        assert client.lines.read() == b""  # the connection ended
    finally:
        client.close()
        server.close()

    assert answer["error"] == {
        "code": -32600,
        "message": "Message too large",
        "data": "line over the limit",
    }
    refused = refusal(server)
    assert (refused.reason, refused.detail) == ("too_large", "line over the limit")


def test_a_responders_answer_that_is_not_json_reaches_stdio_as_an_error() -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("t", respond=lambda call: [{"type": "text", "text": float("inf")}])]
    )
    client = RelayClient(server)
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"}}
    try:
        client.send(json.dumps(call).encode() + b"\n")
        answer = client.receive()
    finally:
        client.close()
        server.close()

    assert (answer["id"], answer["error"]["code"]) == (7, -32603)
    refused = refusal(server)
    assert (refused.reason, refused.session_id) == ("invalid_params", "stdio-1")
    assert str(refused.detail).startswith("answer is not JSON: ")


def exchange_raw(server: ScriptedMCPServer, data: bytes) -> tuple[bytes, dict[str, str], bytes]:
    """Send raw bytes; return the status line, the headers and the body of the answer."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT) as raw:
        raw.sendall(data)
        with raw.makefile("rb") as answer:
            status_line = answer.readline().rstrip(b"\r\n")
            headers: dict[str, str] = {}
            while line := answer.readline().rstrip(b"\r\n"):
                name, _, value = line.decode("latin-1").partition(": ")
                headers[name] = value
            return status_line, headers, answer.read()


def post_bytes(body: bytes, head: bytes = b"") -> bytes:
    return (
        b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n%s"
        b"content-length: %d\r\n\r\n%s" % (head, len(body), body)
    )


@pytest.mark.parametrize(
    ("data", "status_line", "reason", "detail"),
    [
        pytest.param(
            b"POST /mcp HTTP/1.1\r\nx-big: " + b"x" * 70_000 + b"\r\n\r\n",
            b"HTTP/1.1 431 Request Header Fields Too Large",
            "too_large",
            "request head too large",
            id="head-too-large",
        ),
        pytest.param(
            b"GARBAGE\r\n\r\n",
            b"HTTP/1.1 400 Bad Request",
            "invalid_request",
            "malformed request line",
            id="request-line",
        ),
        pytest.param(
            b"POST /mcp FTP/1.0\r\n\r\n",
            b"HTTP/1.1 400 Bad Request",
            "invalid_request",
            "malformed request line",
            id="not-http",
        ),
        pytest.param(
            b"POST  /mcp HTTP/1.1\r\n\r\n",
            b"HTTP/1.1 400 Bad Request",
            "invalid_request",
            "malformed request line",
            id="two-spaces",
        ),
        pytest.param(
            b"POST /mcp HTTP/1.1\r\nno colon here\r\nhost: x\r\n\r\n",
            b"HTTP/1.1 400 Bad Request",
            "invalid_request",
            "malformed header line",
            id="header-line",
        ),
        pytest.param(
            b"POST /mcp HTTP/1.1\r\ncontent-length: lots\r\n\r\n",
            b"HTTP/1.1 400 Bad Request",
            "invalid_request",
            "invalid content-length",
            id="content-length",
        ),
        pytest.param(
            b"POST /mcp HTTP/1.1\r\ncontent-length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1),
            b"HTTP/1.1 413 Payload Too Large",
            "too_large",
            f"body of {MAX_MESSAGE_BYTES + 1} bytes over the limit",
            id="body-too-large",
        ),
        pytest.param(
            b"POST /mcp HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n" + b"1" * 70_000 + b"\r\n",
            b"HTTP/1.1 400 Bad Request",
            "invalid_request",
            "malformed chunked body",
            id="chunk-size-line",
        ),
        pytest.param(
            b"POST /elsewhere/" + b"p" * 100 + b" HTTP/1.1\r\n\r\n",
            b"HTTP/1.1 404 Not Found",
            "invalid_request",
            "POST /elsewhere/" + "p" * 69 + ": not /mcp",  # the path cut to 80 characters
            id="path",
        ),
    ],
)
def test_a_bad_http_request_gets_its_status_and_a_json_rpc_error_and_is_a_violation(
    server: ScriptedMCPServer, data: bytes, status_line: bytes, reason: str, detail: str
) -> None:
    got_status, headers, body = exchange_raw(server, data)

    assert got_status == status_line
    assert (headers["connection"], headers["content-type"]) == ("close", "application/json")
    assert headers["content-length"] == str(len(body))
    message = "Not Found: use /mcp" if detail.endswith(": not /mcp") else detail
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": message},
    }
    refused = refusal(server)
    assert (refused.reason, refused.detail) == (reason, detail)


def test_a_method_other_than_get_post_or_delete_is_not_allowed(server: ScriptedMCPServer) -> None:
    status_line, headers, body = exchange_raw(server, b"PUT /mcp HTTP/1.1\r\n\r\n")

    assert (status_line, headers["allow"]) == (
        b"HTTP/1.1 405 Method Not Allowed",
        "GET, POST, DELETE",
    )
    assert json.loads(body)["error"] == {"code": -32600, "message": "Method Not Allowed"}


def test_the_endpoint_path_may_carry_a_query(server: ScriptedMCPServer) -> None:
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    data = post_bytes(ping).replace(b"POST /mcp ", b"POST /mcp?client=x ", 1)

    status_line, _, body = exchange_raw(server, data)

    assert (status_line, json.loads(body)["result"]) == (b"HTTP/1.1 200 OK", {})
    server.assert_complete()


def test_a_body_of_the_limit_is_read(server: ScriptedMCPServer) -> None:
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    body = ping + b" " * (MAX_MESSAGE_BYTES - len(ping))

    status_line, _, answer = exchange_raw(server, post_bytes(body))

    assert (status_line, json.loads(answer)["result"]) == (b"HTTP/1.1 200 OK", {})


def test_only_initialize_answers_with_a_session_id(server: ScriptedMCPServer) -> None:
    malformed = post(server, b"{oops")
    opened = post(server, INITIALIZE)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    in_session = post(server, ping, {"mcp-session-id": opened[1]["mcp-session-id"]})
    stateless = post(server, {**ping, "params": ENVELOPE})

    assert opened[1]["mcp-session-id"] == "http-1"  # the malformed body opened none
    for status, headers, _ in (malformed, in_session, stateless):
        assert status == 200
        assert "mcp-session-id" not in headers


def test_a_call_answered_after_a_delay_or_after_extra_bytes_is_still_answered(
    server: ScriptedMCPServer,
) -> None:
    server.enqueue(mcp_tool_call("t", result="late", delay=0.05))
    call = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t"}}'

    # Bytes after the request on a Connection: close exchange are not a disconnect.
    status_line, _, body = exchange_raw(server, post_bytes(call) + b"extra")

    assert status_line == b"HTTP/1.1 200 OK"
    assert json.loads(body)["result"]["content"][0]["text"] == "late"


def test_a_client_that_takes_only_json_gets_the_answer_without_the_notifications(
    server: ScriptedMCPServer,
) -> None:
    server.enqueue(
        mcp_tool_call(
            "t", result="done", notifications=[mcp_log("info", "a"), mcp_log("info", "b")]
        )
    )
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"}}

    status, headers, body = post(server, call, {"accept": "application/json"})

    assert (status, headers["content-type"]) == (200, "application/json")
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"content": [{"type": "text", "text": "done"}], "isError": False},
    }


def test_an_sse_answer_is_an_uncached_event_stream(server: ScriptedMCPServer) -> None:
    server.enqueue(mcp_tool_call("t", result="done", notifications=[mcp_log("info", "a")]))
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"}}

    status, headers, _ = post(server, call)

    assert (status, headers["content-type"], headers["cache-control"]) == (
        200,
        "text/event-stream",
        "no-cache",
    )


@pytest.mark.parametrize(
    ("notifications", "accept"),
    [
        pytest.param([], "application/json, text/event-stream", id="plain"),
        pytest.param([mcp_log("info", "a")], "application/json", id="json-after-notifications"),
        pytest.param([mcp_log("info", "a")], "application/json, text/event-stream", id="sse"),
    ],
)
def test_a_responders_answer_that_is_not_json_reaches_http_as_an_error(
    server: ScriptedMCPServer, notifications: list[dict[str, Any]], accept: str
) -> None:
    server.enqueue(
        mcp_tool_call(
            "t",
            respond=lambda call: [{"type": "text", "text": float("nan")}],
            notifications=notifications,
        )
    )
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "t"}}

    status, _, body = post(server, call, {"accept": accept})

    assert status == 200
    last = json.loads(body.decode().strip().splitlines()[-1].removeprefix("data: "))
    assert (last["id"], last["error"]["code"]) == (9, -32603)
    assert last["error"]["message"].startswith("answer is not JSON: Out of range float values")
    refused = refusal(server)
    assert refused.reason == "invalid_params"
    assert str(refused.detail).startswith("answer is not JSON: ")


def test_a_call_the_client_cancels_ends_its_event_stream_without_an_answer(
    server: ScriptedMCPServer,
) -> None:
    server.enqueue(mcp_tool_call("t", hang=True))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "t"}}
    answers: list[tuple[int, dict[str, str], bytes]] = []
    caller = threading.Thread(
        target=lambda: answers.append(post(server, call, {"mcp-session-id": session}))
    )
    caller.start()
    wait_until(lambda: len(server.calls) == 2)
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}

    assert post(server, cancel, {"mcp-session-id": session})[0] == 202
    caller.join()

    status, headers, body = answers[0]
    assert (status, headers["content-type"], body) == (200, "text/event-stream", b"")
    server.assert_complete()


def test_a_host_that_cannot_start_raises_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no port to listen on")

    monkeypatch.setattr(asyncio, "start_server", refuse)

    with pytest.raises(OSError, match="no port to listen on"):
        MCPHost(ScriptedMCPServer())


def test_a_stdio_line_of_the_limit_is_read() -> None:
    server = ScriptedMCPServer()
    client = RelayClient(server)
    ping = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    try:
        # The limit counts the line's newline too.
        client.send(ping + b" " * (MAX_MESSAGE_BYTES - 1 - len(ping)) + b"\n")
        answer = client.receive()
    finally:
        client.close()
        server.close()

    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}
    server.assert_complete()


@pytest.mark.parametrize(
    "accept", ["application/json", "application/json, text/event-stream"], ids=["json", "sse"]
)
def test_a_call_that_drops_its_session_after_notifications_gets_no_answer(
    server: ScriptedMCPServer, accept: str
) -> None:
    server.enqueue(mcp_tool_call("t", drop_session=True, notifications=[mcp_log("info", "a")]))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t"}}
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=HANG_LIMIT)
    try:
        headers = {**ACCEPT, "accept": accept, "mcp-session-id": session}
        connection.request("POST", "/mcp", json.dumps(call).encode(), headers)
        try:
            response = connection.getresponse()
            body = response.read()
            response.close()
        except http.client.RemoteDisconnected:
            body = b""
    finally:
        connection.close()

    assert b'"id":2' not in body  # no answer, only the notification at most
    assert b"null" not in body
    server.assert_complete()


def test_a_refused_request_carries_its_status_and_says_why() -> None:
    refused = _BadRequest(431, "request head too large")

    assert (refused.status, refused.detail, str(refused)) == (
        431,
        "request head too large",
        "request head too large",
    )


def test_a_status_without_a_known_reason_gets_an_empty_reason_phrase() -> None:
    # HTTP/1.1 allows an empty reason phrase; the space before it stays.
    assert _head(299, {"x-a": "1"}) == b"HTTP/1.1 299 \r\nconnection: close\r\nx-a: 1\r\n\r\n"
    assert _head(404, {}) == b"HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n"


def raw_answer(server: ScriptedMCPServer, data: bytes) -> tuple[bytes, bytes]:
    """Send raw bytes; return the answer's head, as sent up to its blank line, and its body."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT) as raw:
        raw.sendall(data)
        with raw.makefile("rb") as answer:
            head, _, body = answer.read().partition(b"\r\n\r\n")  # every answer ends the connection
    return head + b"\r\n\r\n", body


def raw_request(method: bytes, body: bytes = b"", head: bytes = b"") -> bytes:
    return b"%s /mcp HTTP/1.1\r\nhost: x\r\n%scontent-length: %d\r\n\r\n%s" % (
        method,
        head,
        len(body),
        body,
    )


SSE = b"accept: application/json, text/event-stream\r\n"


def test_json_answers_have_exactly_these_heads(server: ScriptedMCPServer) -> None:
    # The exact bytes: lower-case names, in this order, Latin-1 as HTTP/1.1 writes heads.
    initialize = raw_answer(server, raw_request(b"POST", json.dumps(INITIALIZE).encode(), SSE))
    initialized = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'
    session = b"mcp-session-id: http-1\r\n"
    accepted = raw_answer(server, raw_request(b"POST", initialized, SSE + session))
    get = raw_answer(server, raw_request(b"GET"))
    put = raw_answer(server, raw_request(b"PUT"))

    assert initialize[0] == (
        b"HTTP/1.1 200 OK\r\nconnection: close\r\nmcp-session-id: http-1\r\n"
        b"content-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(initialize[1])
    )
    assert accepted == (
        b"HTTP/1.1 202 Accepted\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
        b"",
    )
    assert get[0] == (
        b"HTTP/1.1 405 Method Not Allowed\r\nconnection: close\r\nallow: POST\r\n"
        b"content-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(get[1])
    )
    assert put[0] == (
        b"HTTP/1.1 405 Method Not Allowed\r\nconnection: close\r\nallow: GET, POST, DELETE\r\n"
        b"content-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(put[1])
    )


STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n"
    b"cache-control: no-cache\r\n\r\n"
)


def test_event_streams_have_exactly_these_heads(server: ScriptedMCPServer) -> None:
    server.enqueue(mcp_tool_call("t", result="done", notifications=[mcp_log("info", "a")]))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    call = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t"}}'
    in_session = b"mcp-session-id: %s\r\n" % session.encode()

    answer = raw_answer(server, raw_request(b"POST", call, SSE + in_session))
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT) as raw:
        raw.sendall(raw_request(b"GET", head=SSE + in_session))
        with raw.makefile("rb") as stream:
            lines = [stream.readline() for _ in range(5)]  # the head's 5 lines, blank one last

    assert answer[0] == STREAM_HEAD
    assert answer[1].startswith(b"event: message\ndata: ")
    assert b"".join(lines) == STREAM_HEAD


def test_a_cancelled_calls_event_stream_has_a_head_and_nothing_else(
    server: ScriptedMCPServer,
) -> None:
    server.enqueue(mcp_tool_call("t", hang=True))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    call = b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "t"}}'
    in_session = b"mcp-session-id: %s\r\n" % session.encode()
    answers: list[tuple[bytes, bytes]] = []
    caller = threading.Thread(
        target=lambda: answers.append(
            raw_answer(server, raw_request(b"POST", call, SSE + in_session))
        )
    )
    caller.start()
    wait_until(lambda: len(server.calls) == 2)
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}

    assert post(server, cancel, {"mcp-session-id": session})[0] == 202
    caller.join()

    assert answers == [
        (b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n\r\n", b"")
    ]
    server.assert_complete()


def test_the_relay_token_is_128_random_bits() -> None:
    servers = [ScriptedMCPServer(), ScriptedMCPServer()]
    try:
        tokens = [
            command[command.index("--token") + 1]
            for command in (served.stdio_command for served in servers)
        ]
    finally:
        for served in servers:
            served.close()

    assert [len(token) for token in tokens] == [32, 32]  # 16 bytes in hex
    assert all(set(token) <= set("0123456789abcdef") for token in tokens)
    assert tokens[0] != tokens[1]


def test_broadcast_and_close_after_the_loop_ended_do_nothing() -> None:
    # The loop can end between broadcast()'s or close()'s check of the host and its call into
    # the loop (another thread closing it): here it ends first, without close().
    server = ScriptedMCPServer()
    host = MCPHost(server)
    host._loop.call_soon_threadsafe(host._stop.set)
    host._thread.join()

    host.broadcast([{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}])
    host.close()

    assert repr(host) == "<MCPHost closed sessions=0>"


def test_a_step_that_drops_a_session_also_ends_its_other_calls_unanswered(
    server: ScriptedMCPServer,
) -> None:
    server.enqueue(mcp_tool_call("t", hang=True), mcp_tool_call("t", drop_session=True))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t"}}
    hanging: list[BaseException] = []

    def call_and_keep_the_error() -> None:
        try:
            post(server, call, {"mcp-session-id": session})
        except http.client.RemoteDisconnected as error:
            hanging.append(error)

    caller = threading.Thread(target=call_and_keep_the_error)
    caller.start()
    wait_until(lambda: len(server.calls) == 2)

    with pytest.raises(http.client.RemoteDisconnected):
        post(server, {**call, "id": 3}, {"mcp-session-id": session})
    caller.join()

    assert [type(error) for error in hanging] == [http.client.RemoteDisconnected]
    ping = {"jsonrpc": "2.0", "id": 4, "method": "ping"}
    assert post(server, ping, {"mcp-session-id": session})[0] == 404
    with pytest.raises(MCPProtocolError, match="unknown"):
        server.assert_complete()


def test_a_sessions_next_get_stream_gets_every_notification_after_one_ended(
    server: ScriptedMCPServer,
) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0), HANG_LIMIT) as first:
        first.sendall(raw_request(b"GET", head=SSE + b"mcp-session-id: %s\r\n" % session.encode()))
        first.shutdown(socket.SHUT_WR)  # the client leaves
        with first.makefile("rb") as ended:
            assert ended.read() == STREAM_HEAD  # and the server ended the stream in turn

    with get_stream(server, session) as stream:
        server.notify_clients(*(mcp_log("info", text) for text in ("one", "two", "three")))
        events = [next_event(stream), next_event(stream)]

    assert [event["params"]["data"] for event in events] == ["one", "two"]


def test_a_relay_that_leaves_while_its_answer_is_written_ends_quietly() -> None:
    clients: list[RelayClient] = []

    def leave(call: MCPCall) -> str:
        # Runs on the server's loop just before the answer is written: the relay's socket is
        # reset (SO_LINGER 0), so writing the answer fails.
        clients[0].socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        clients[0].close()
        return "unread"

    server = ScriptedMCPServer([mcp_tool_call("t", respond=leave)])
    try:
        clients.append(RelayClient(server))
        clients[0].send(
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}\n'
        )
        wait_until(lambda: len(server.calls) == 1)
        other = RelayClient(server)
        other.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
        answer = other.receive()
        other.close()
    finally:
        server.close()

    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert [call.method for call in server.calls] == ["tools/call", "ping"]
    server.assert_complete()


def test_a_get_stream_stays_open_between_notifications(server: ScriptedMCPServer) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    with get_stream(server, session) as stream:
        server.notify_clients(mcp_log("info", "one"))
        first = next_event(stream)
        # A whole request later, the stream still waits for the session's next notification.
        assert post(server, ping, {"mcp-session-id": session})[0] == 200
        server.notify_clients(mcp_log("info", "two"))
        second = next_event(stream)

    assert [first["params"]["data"], second["params"]["data"]] == ["one", "two"]
