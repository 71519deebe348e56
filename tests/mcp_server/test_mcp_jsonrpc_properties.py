"""Properties of the MCP JSON-RPC handling: no input makes it fail inside.

Whatever bytes or JSON a client sends, the session answers with JSON-RPC messages only
(a result or the protocol's error object), a refused message is remembered as an
``MCPProtocolError``, and the script's one step is used only by the one call it expects.
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any
from urllib.parse import urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import MCPProtocolError, ScriptedMCPServer, mcp_tool, mcp_tool_call
from agents_testing.wire.mcp_jsonrpc import MCPJSONRPCSession

PROPERTIES = settings(max_examples=100, deadline=None, derandomize=True, database=None)

METHODS = [
    "initialize",
    "server/discover",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "logging/setLevel",
    "notifications/cancelled",
    "notifications/initialized",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)

messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0"]) | json_values,
        "id": st.integers() | st.text(max_size=4) | json_values,
        "method": st.sampled_from(METHODS) | json_values,
        "params": st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["t", "other"]) | json_values,
                "arguments": json_values,
                "uri": json_values,
                "cursor": json_values,
                "protocolVersion": st.sampled_from(["2025-11-25", "1999-01-01"]) | json_values,
                "_meta": st.fixed_dictionaries(
                    {},
                    optional={
                        "io.modelcontextprotocol/protocolVersion": st.sampled_from(
                            ["2026-07-28", "2099-01-01"]
                        )
                        | json_values,
                        "progressToken": json_values,
                    },
                ),
                "requestId": json_values,
            },
        )
        | json_values,
        "result": json_values,
    },
)


def exchange(raw: bytes) -> tuple[ScriptedMCPServer, list[dict[str, Any]]]:
    # The one step expects arguments no generated call sends.
    server = ScriptedMCPServer(
        [mcp_tool_call("t", {"never": "sent"}, result="x")], tools=[mcp_tool("t")], page_size=1
    )
    session = MCPJSONRPCSession(server, "fuzz")
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        json.dumps(message, allow_nan=False)  # everything sent must be JSON
        sent.append(message)

    asyncio.run(session.receive(raw, send))
    return server, sent


def check(server: ScriptedMCPServer, sent: list[dict[str, Any]]) -> None:
    assert server.remaining_steps == 1
    for message in sent:
        assert message["jsonrpc"] == "2.0"
        assert ("result" in message) != ("error" in message) or "method" in message
        if "error" in message:
            assert isinstance(message["error"]["code"], int)
            assert isinstance(message["error"]["message"], str)


@PROPERTIES
@given(st.binary(max_size=200))
def test_any_bytes_get_json_rpc_answers_only(raw: bytes) -> None:
    server, sent = exchange(raw)

    check(server, sent)


@PROPERTIES
@given(messages)
def test_any_message_object_gets_json_rpc_answers_only(message: dict[str, Any]) -> None:
    server, sent = exchange(json.dumps(message).encode())

    check(server, sent)
    if any(answer.get("id") is None and "error" in answer for answer in sent):
        # Refused before its id could be read: remembered as a protocol violation.
        assert any(isinstance(v, MCPProtocolError) for v in _violations(server))


@PROPERTIES
@given(st.integers(min_value=0, max_value=3000), st.sampled_from(["[", '{"a":']))
def test_deep_nesting_is_refused_without_recursion_errors(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    nested = opener * depth + "1" + closer * depth
    raw = f'{{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {{"x": {nested}}}}}'

    server, sent = exchange(raw.encode())

    check(server, sent)
    refused = depth + 2 > 64  # the message and its params are two levels already
    assert any("error" in message for message in sent) == refused


def _violations(server: ScriptedMCPServer) -> list[BaseException]:
    try:
        server.assert_complete()
    except AssertionError as error:
        return [error]
    return []


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(
    st.sampled_from(["POST", "GET", "DELETE", "PUT", "BREW", ""]),
    st.sampled_from(["/mcp", "/", "/mcp?x=1", "*", ""]),
    st.lists(
        st.tuples(
            st.sampled_from(
                ["content-length", "transfer-encoding", "mcp-session-id", "accept", "x"]
            ),
            st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=12),
        ),
        max_size=4,
    ),
    st.binary(max_size=64),
)
def test_any_http_request_leaves_the_server_serving(
    method: str, path: str, headers: list[tuple[str, str]], body: bytes
) -> None:
    head = f"{method} {path} HTTP/1.1\r\nhost: x\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers
    )
    # Whatever the hostile request did to the script is the server's business here: only
    # its answer and the server still serving matter.
    server = ScriptedMCPServer()
    try:
        parts = urlsplit(server.url)
        with socket.create_connection((parts.hostname or "", parts.port or 0)) as raw:
            raw.sendall(head.encode() + b"\r\n" + body)
            raw.shutdown(socket.SHUT_WR)
            reply = raw.makefile("rb").read()
        assert reply == b"" or reply.startswith(b"HTTP/1.1 ")
        ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
        with socket.create_connection((parts.hostname or "", parts.port or 0)) as raw:
            raw.sendall(
                b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n\r\n%s" % (len(ping), ping)
            )
            answer = raw.makefile("rb").read()
        assert answer.startswith(b"HTTP/1.1 200 ")
        assert answer.endswith(b'{"jsonrpc":"2.0","id":1,"result":{}}')
    finally:
        server.close()
