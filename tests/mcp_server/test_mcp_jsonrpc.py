"""MCPJSONRPCSession, message by message: each refusal's exact error and violation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agents_testing import MCPProtocolError, ScriptedJSONRPCError, ScriptedMCPServer, mcp_tool_call
from agents_testing.wire.mcp_jsonrpc import MAX_DEPTH, MAX_MESSAGE_BYTES, MCPJSONRPCSession

MODERN_META = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}},
}


def converse(
    server: ScriptedMCPServer, *raws: bytes | dict[str, Any]
) -> tuple[list[dict[str, Any]], list[bool]]:
    """Feed raw messages to one session; return what it sent and what receive() returned."""
    session = MCPJSONRPCSession(server, "s")
    sent: list[dict[str, Any]] = []
    answered: list[bool] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> None:
        for raw in raws:
            data = raw if isinstance(raw, bytes) else json.dumps(raw).encode()
            answered.append(await session.receive(data, send))

    asyncio.run(run())
    return sent, answered


def error(request_id: object, code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def nesting(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


PARSE_DETAIL = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"


@pytest.mark.parametrize(
    ("raw", "reply", "violation"),
    [
        pytest.param(
            b" " * (MAX_MESSAGE_BYTES + 1),
            error(
                None,
                -32600,
                "Message too large",
                f"{MAX_MESSAGE_BYTES + 1} bytes, limit {MAX_MESSAGE_BYTES}",
            ),
            ("too_large", None, f"{MAX_MESSAGE_BYTES + 1} bytes, limit {MAX_MESSAGE_BYTES}"),
            id="too-large",
        ),
        pytest.param(
            b"{oops",
            error(None, -32700, "Parse error", PARSE_DETAIL),
            ("malformed_json", None, PARSE_DETAIL),
            id="malformed",
        ),
        pytest.param(
            b"[" * 100_000,
            error(None, -32600, "Message nested too deeply", f"limit {MAX_DEPTH} levels"),
            ("too_deep", None, f"limit {MAX_DEPTH} levels"),
            id="recursion",
        ),
        pytest.param(
            nesting(MAX_DEPTH + 1),
            error(None, -32600, "Message nested too deeply", f"limit {MAX_DEPTH} levels"),
            ("too_deep", None, f"limit {MAX_DEPTH} levels"),
            id="one-level-too-deep",
        ),
        pytest.param(
            nesting(MAX_DEPTH),
            error(None, -32600, "Batch requests are not supported"),
            ("batch_request", None, None),
            id="deepest-allowed",
        ),
        pytest.param(
            b"5",
            error(None, -32600, "Invalid Request", "not a JSON object"),
            ("invalid_request", None, "not a JSON object"),
            id="not-an-object",
        ),
        pytest.param(
            {"jsonrpc": "1.0", "id": 1, "method": "ping"},
            error(1, -32600, "Invalid Request", '"jsonrpc" must be "2.0"'),
            ("invalid_request", None, '"jsonrpc" must be "2.0"'),
            id="version",
        ),
        pytest.param(
            {"jsonrpc": "1.0", "id": True, "method": "ping"},
            error(None, -32600, "Invalid Request", '"jsonrpc" must be "2.0"'),
            ("invalid_request", None, '"jsonrpc" must be "2.0"'),
            id="version-bad-id",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": "a"},
            error("a", -32600, "Invalid Request", "no method"),
            ("invalid_request", None, "no method"),
            id="no-method",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "result": {}},
            error(None, -32600, "Invalid Request", "no method"),
            ("invalid_request", None, "no method"),
            id="answer-without-id",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 2.5},
            error(None, -32600, "Invalid Request", "no method"),
            ("invalid_request", None, "no method"),
            id="no-method-bad-id",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": True, "method": 5},
            error(None, -32600, "Invalid Request", "method must be a str"),
            ("invalid_request", None, "method must be a str"),
            id="method-type-bad-id",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 2, "method": 5},
            error(2, -32600, "Invalid Request", "method must be a str"),
            ("invalid_request", None, "method must be a str"),
            id="method-type",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 2.5, "method": "ping"},
            error(None, -32600, "Invalid Request", "id must be a str or an int"),
            ("invalid_request", "ping", "id must be a str or an int"),
            id="id-type",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1]},
            error(3, -32602, "Invalid params", "params must be an object"),
            ("invalid_params", "ping", "params must be an object"),
            id="params",
        ),
    ],
)
def test_a_refused_message_gets_its_error_and_is_a_violation(
    raw: bytes | dict[str, Any], reply: dict[str, Any], violation: tuple[Any, ...]
) -> None:
    server = ScriptedMCPServer()

    sent, answered = converse(server, raw)

    assert (sent, answered) == ([reply], [True])
    with pytest.raises(MCPProtocolError) as raised:
        server.assert_complete()
    refused = raised.value
    assert (refused.reason, refused.method, refused.detail) == violation
    assert refused.session_id == "s"
    assert "Fix the client or the code that sends it" in str(refused)


def test_notifications_and_client_answers_get_no_reply() -> None:
    server = ScriptedMCPServer()

    sent, answered = converse(
        server,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 9, "result": {}},
        {"jsonrpc": "2.0", "id": 9, "error": {"code": 1, "message": "no"}},
    )

    assert (sent, answered) == ([], [False, False, False, False])
    assert server.calls == ()
    server.assert_complete()


def test_a_request_is_answered_with_its_result_and_the_negotiated_version() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", result="ok")])
    call = {"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "t"}}

    sent, answered = converse(server, INITIALIZE, call)

    assert answered == [True, True]
    assert sent[1] == {
        "jsonrpc": "2.0",
        "id": "c",
        "result": {"content": [{"type": "text", "text": "ok"}], "isError": False},
    }
    assert [call.protocol_version for call in server.calls] == ["2025-06-18", "2025-06-18"]


@pytest.mark.parametrize(
    ("failure", "reply"),
    [
        pytest.param(ValueError("boom"), error(4, -32603, "boom"), id="message"),
        pytest.param(ValueError(), error(4, -32603, "ValueError"), id="no-message"),
        pytest.param(
            ScriptedJSONRPCError(-32001, "custom", {"k": 1}),
            error(4, -32001, "custom", {"k": 1}),
            id="json-rpc",
        ),
    ],
)
def test_a_scripted_error_is_sent_as_a_json_rpc_error(
    failure: BaseException, reply: dict[str, Any]
) -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", error=failure)])
    call = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "t"}}

    sent, _ = converse(server, call)

    assert sent == [reply]


@pytest.mark.parametrize(
    ("params", "data"),
    [
        pytest.param(
            INITIALIZE["params"],
            {"supported": ["2026-07-28"], "requested": "2025-06-18"},
            id="requested",
        ),
        pytest.param({}, {"supported": ["2026-07-28"]}, id="no-version"),
    ],
)
def test_initialize_on_a_2026_connection_says_which_protocol_it_serves(
    params: dict[str, Any], data: dict[str, Any]
) -> None:
    discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": MODERN_META}
    initialize = {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": params}

    sent, _ = converse(ScriptedMCPServer(), discover, initialize)

    assert sent[1] == error(
        2,
        -32022,
        "this connection serves the 2026-07-28 protocol; initialize is not accepted",
        data,
    )


def test_a_2026_envelope_on_an_initialize_connection_says_which_era_it_serves() -> None:
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": MODERN_META}
    ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}

    sent, answered = converse(ScriptedMCPServer(), INITIALIZE, listing, ping)

    assert answered == [True, True, True]  # the refusal is the request's answer

    assert sent[1] == error(
        2,
        -32600,
        "this connection serves the initialize handshake era; requests carrying the "
        "2026-07-28 envelope are not accepted on it",
    )
    assert sent[2] == {"jsonrpc": "2.0", "id": 3, "result": {}}


def test_the_session_repr_shows_its_id_and_requests_in_flight() -> None:
    assert repr(MCPJSONRPCSession(ScriptedMCPServer(), "s")) == (
        "<MCPJSONRPCSession 's' in_flight=0>"
    )


def test_a_request_before_initialize_has_no_protocol_version() -> None:
    server = ScriptedMCPServer()

    converse(server, {"jsonrpc": "2.0", "id": 1, "method": "ping"})

    assert server.calls[0].protocol_version is None


def test_initialize_may_come_again_on_its_connection() -> None:
    sent, _ = converse(ScriptedMCPServer(), INITIALIZE, {**INITIALIZE, "id": 2})

    assert [message["result"]["protocolVersion"] for message in sent] == [
        "2025-06-18",
        "2025-06-18",
    ]


def test_an_initialize_carrying_the_envelope_still_opens_the_handshake_era() -> None:
    enveloped = {**INITIALIZE, "params": {**INITIALIZE["params"], **MODERN_META}}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": MODERN_META}

    sent, _ = converse(ScriptedMCPServer(), enveloped, listing)

    assert sent[0]["error"]["code"] == -32022  # the server refuses the envelope on initialize
    assert sent[1]["error"]["code"] == -32600  # and the connection stays in the handshake era


def test_a_cancel_names_one_request_by_its_id_and_its_type() -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("t", hang=True), mcp_tool_call("t", hang=True)], ordered=False
    )
    session = MCPJSONRPCSession(server, "s")
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def run() -> tuple[str, str, str]:
        calls = [
            asyncio.ensure_future(
                session.receive(
                    json.dumps(
                        {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "t"}}
                    ),
                    send,
                )
            )
            for i in (1, "1")
        ]
        await asyncio.sleep(0.01)
        in_flight = repr(session)
        for request_id in (True, 1.0, "1"):  # True and 1.0 are no ids, though equal to 1
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": request_id},
            }
            await session.receive(json.dumps(cancel), send)
        await asyncio.sleep(0.01)
        states = f"{calls[0].done()} {calls[1].done()}"
        session.cancel_all()
        await asyncio.gather(*calls, return_exceptions=True)
        return in_flight, states, repr(session)

    in_flight, states, after = asyncio.run(run())

    assert in_flight == "<MCPJSONRPCSession 's' in_flight=2>"
    assert states == "False True"  # the request with the str id "1" was cancelled, not id 1
    assert after == "<MCPJSONRPCSession 's' in_flight=0>"
    assert sent == []  # a cancelled request gets no answer


def test_an_answered_request_is_no_longer_in_flight() -> None:
    server = ScriptedMCPServer()
    session = MCPJSONRPCSession(server, "s")

    async def send(message: dict[str, Any]) -> None:
        pass

    asyncio.run(session.receive(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}), send))

    assert repr(session) == "<MCPJSONRPCSession 's' in_flight=0>"


def test_refuse_answers_a_reason_of_its_own_as_an_invalid_request() -> None:
    server = ScriptedMCPServer()
    session = MCPJSONRPCSession(server, "s")

    reply = session.refuse("unknown_session", 7, method="ping", detail="gone")

    assert reply == error(7, -32600, "Invalid Request", "gone")
    with pytest.raises(MCPProtocolError) as raised:
        server.assert_complete()
    assert (raised.value.reason, raised.value.method, raised.value.detail) == (
        "unknown_session",
        "ping",
        "gone",
    )
