"""The served MCP double at the byte level: hostile input, sessions, SSE, faults, cleanup.

Only the standard library talks to the server here (``http.client``, raw sockets and the
spawned stdio relay), so these tests run without the ``mcp`` package.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
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
from agents_testing.wire.mcp_host import MCP_PATH, MCPHost
from agents_testing.wire.mcp_jsonrpc import MAX_MESSAGE_BYTES, MCPJSONRPCSession

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


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
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
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
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
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
    with socket.create_connection((parts.hostname or "", parts.port or 0)) as raw:
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
    stream = http.client.HTTPConnection(parts.hostname or "", parts.port)
    stream.request("GET", "/mcp", headers={**ACCEPT, "mcp-session-id": session})
    opened = stream.getresponse()
    hanging = socket.create_connection((parts.hostname or "", parts.port or 0))
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
    stream = http.client.HTTPConnection(parts.hostname or "", parts.port)
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
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    connection.request("POST", "/mcp", iter([body[:10], body[10:]]), ACCEPT, encode_chunked=True)
    answer = json.loads(connection.getresponse().read())
    connection.close()

    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_a_chunk_size_line_over_the_limit_is_a_bad_request(server: ScriptedMCPServer) -> None:
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0)) as raw:
        raw.sendall(b"POST /mcp HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
        raw.sendall(b"1" * 70_000 + b"\r\n")
        status_line = raw.makefile("rb").readline()

    assert status_line.startswith(b"HTTP/1.1 400 ")
    assert refusal(server).reason == "invalid_request"


def post_chunked(server: ScriptedMCPServer, chunked_body: bytes) -> tuple[int, bytes]:
    """POST a chunked body written by hand (chunk size lines included)."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "", parts.port or 0)) as raw:
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


def open_get_stream(
    server: ScriptedMCPServer, session: str
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    connection.request("GET", "/mcp", headers={**ACCEPT, "mcp-session-id": session})
    stream = connection.getresponse()
    assert stream.status == 200
    return connection, stream


def test_set_tools_tells_each_get_stream_that_the_tools_changed(server: ScriptedMCPServer) -> None:
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    connection, stream = open_get_stream(server, session)
    try:
        server.set_tools([mcp_tool("b")])
        server.notify_clients({"method": "notifications/resources/list_changed"})

        events = [next_event(stream), next_event(stream)]
    finally:
        connection.close()

    assert events == [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}},
    ]


def test_a_step_that_drops_an_http_session_ends_its_get_stream(server: ScriptedMCPServer) -> None:
    server.enqueue(mcp_tool_call("t", drop_session=True))
    session = post(server, INITIALIZE)[1]["mcp-session-id"]
    connection, stream = open_get_stream(server, session)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t"}}
    try:
        with pytest.raises(http.client.RemoteDisconnected):
            post(server, call, {"mcp-session-id": session})

        assert stream.read() == b""  # the stream ended with the session
    finally:
        connection.close()
    server.assert_complete()


def test_the_host_repr_shows_its_url_and_sessions_or_that_it_closed() -> None:
    server = ScriptedMCPServer()
    host = MCPHost(server)
    try:
        assert repr(host) == f"<MCPHost {host.url} sessions=0>"
        parts = urlsplit(host.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
        connection.request("POST", MCP_PATH, json.dumps(INITIALIZE).encode(), ACCEPT)
        assert connection.getresponse().status == 200
        connection.close()
        assert repr(host) == f"<MCPHost {host.url} sessions=1>"
    finally:
        host.close()

    assert repr(host) == "<MCPHost closed sessions=1>"
