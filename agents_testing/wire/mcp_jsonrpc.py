"""MCP's JSON-RPC 2.0 framing for a :class:`~agents_testing.ScriptedMCPServer`.

One :class:`MCPJSONRPCSession` per client connection (a stdio relay, an HTTP session, or a
single stateless HTTP request) reads raw messages, refuses what MCP cannot serve with the
protocol's own error object, and hands every well-formed request to the server's
``serve()``. A refused message is remembered by the server (``assert_complete()`` raises
it) and never uses a step. Standard library only.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from ..errors import MCPProtocolError, MCPProtocolErrorReason, ScriptedJSONRPCError
from ..mcp import (
    MODERN_PROTOCOL_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    MCPSessionDropped,
)

if TYPE_CHECKING:
    from ..mcp import ScriptedMCPServer

__all__ = [
    "MAX_DEPTH",
    "MAX_MESSAGE_BYTES",
    "MCPJSONRPCSession",
    "MCPSend",
    "error_message",
]

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The largest message the server reads; a larger one is refused as ``too_large``."""

MAX_DEPTH = 64
"""The deepest JSON nesting the server reads; deeper is refused as ``too_deep``."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

MCPSend = Callable[[dict[str, Any]], Awaitable[None]]
"""``send(message)``: write one JSON-RPC message to the client."""

_CODES: dict[MCPProtocolErrorReason, tuple[int, str]] = {
    "malformed_json": (PARSE_ERROR, "Parse error"),
    "invalid_request": (INVALID_REQUEST, "Invalid Request"),
    "batch_request": (INVALID_REQUEST, "Batch requests are not supported"),
    "too_large": (INVALID_REQUEST, "Message too large"),
    "too_deep": (INVALID_REQUEST, "Message nested too deeply"),
    "invalid_params": (INVALID_PARAMS, "Invalid params"),
}


def error_message(request_id: object, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """Return a JSON-RPC error response."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


class MCPJSONRPCSession:
    """One client connection's JSON-RPC conversation with a scripted MCP server.

    Args:
        server: The double that records and answers the requests.
        session_id: The name the server records on each call of this connection.

    :meth:`receive` may run concurrently for several messages (a transport runs each
    request in a task of its own); ``notifications/cancelled`` cancels the task of the
    request it names.
    """

    def __init__(self, server: ScriptedMCPServer, session_id: str | None = None) -> None:
        self.server: ScriptedMCPServer = server
        self.session_id: str | None = session_id
        # Negotiated by initialize; 2026-era requests carry their version in each envelope.
        self.protocol_version: str | None = None
        # Set when a step dropped the session: the transport then ends it.
        self.dropped: bool = False
        # The protocol era the connection's first request chose, as the official server
        # decides it: "modern" (2026-07-28 envelopes) or "legacy" (the initialize handshake).
        self.era: str | None = None
        self._in_flight: dict[object, asyncio.Task[Any]] = {}

    def __repr__(self) -> str:
        return f"<MCPJSONRPCSession {self.session_id!r} in_flight={len(self._in_flight)}>"

    def refuse(
        self,
        reason: MCPProtocolErrorReason,
        request_id: object = None,
        *,
        method: str | None = None,
        detail: str | None = None,
    ) -> dict[str, Any]:
        """Remember a refused message and return the JSON-RPC error that answers it."""
        self.server.record_violation(MCPProtocolError(reason, method, self.session_id, detail))
        code, text = _CODES.get(reason, (INVALID_REQUEST, "Invalid Request"))
        return error_message(request_id, code, text, detail)

    def parse(self, raw: bytes | str) -> dict[str, Any] | list[dict[str, Any]]:
        """Read one raw message: the message object, or ``[error]`` to send back instead."""
        size = len(raw)
        if size > MAX_MESSAGE_BYTES:
            return [self.refuse("too_large", detail=f"{size} bytes, limit {MAX_MESSAGE_BYTES}")]
        try:
            message: object = json.loads(raw)
        except RecursionError:
            return [self.refuse("too_deep", detail=f"limit {MAX_DEPTH} levels")]
        except ValueError as error:  # JSONDecodeError and UnicodeDecodeError
            return [self.refuse("malformed_json", detail=str(error)[:200])]
        if _too_deep(message):
            return [self.refuse("too_deep", detail=f"limit {MAX_DEPTH} levels")]
        if isinstance(message, list):
            return [self.refuse("batch_request")]
        if not isinstance(message, dict):
            return [self.refuse("invalid_request", detail="not a JSON object")]
        return cast(dict[str, Any], message)

    async def receive(self, raw: bytes | str, send: MCPSend) -> bool:
        """Handle one raw message; return whether it was a request that got an answer.

        Refused messages are answered with their error (and count as answered).
        """
        parsed = self.parse(raw)
        if isinstance(parsed, list):
            await send(parsed[0])
            return True
        return await self.receive_message(parsed, send)

    async def receive_message(self, message: Mapping[str, Any], send: MCPSend) -> bool:
        """Handle one parsed message object; return whether it was answered."""
        request_id = message.get("id")
        valid_id = _is_id(request_id)
        if message.get("jsonrpc") != "2.0":
            await send(
                self.refuse(
                    "invalid_request",
                    request_id if valid_id else None,
                    detail='"jsonrpc" must be "2.0"',
                )
            )
            return True
        method = message.get("method")
        if "method" not in message:
            if ("result" in message or "error" in message) and valid_id:
                return False  # a client's answer: this server sends no requests to answer
            await send(
                self.refuse("invalid_request", request_id if valid_id else None, detail="no method")
            )
            return True
        if not isinstance(method, str):
            await send(
                self.refuse(
                    "invalid_request",
                    request_id if valid_id else None,
                    detail="method must be a str",
                )
            )
            return True
        params = message.get("params")
        if "id" not in message:
            if isinstance(params, Mapping):
                self._notified(method, cast(Mapping[str, Any], params))
            return False
        if not valid_id:
            await send(
                self.refuse("invalid_request", method=method, detail="id must be a str or an int")
            )
            return True
        if params is not None and not isinstance(params, Mapping):
            await send(
                self.refuse(
                    "invalid_params", request_id, method=method, detail="params must be an object"
                )
            )
            return True
        refusal = self._other_era(request_id, method, cast(Mapping[str, Any] | None, params))
        if refusal is not None:
            await send(refusal)
            return True
        await self._answer(request_id, method, cast(Mapping[str, Any] | None, params), send)
        return True

    def _other_era(
        self, request_id: object, method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any] | None:
        """Lock the connection's era on its first request; refuse the other era after it."""
        meta: object = (params or {}).get("_meta")
        enveloped = isinstance(meta, Mapping) and PROTOCOL_VERSION_META_KEY in meta
        modern = enveloped and method != "initialize"
        if self.era is None:
            self.era = "modern" if modern else "legacy"
            return None
        if self.era == "modern" and method == "initialize":
            requested = (params or {}).get("protocolVersion")
            data: dict[str, Any] = {"supported": list(MODERN_PROTOCOL_VERSIONS)}
            if isinstance(requested, str):
                data["requested"] = requested
            return error_message(
                request_id,
                UNSUPPORTED_PROTOCOL_VERSION,
                "this connection serves the 2026-07-28 protocol; initialize is not accepted",
                data,
            )
        if self.era == "legacy" and modern:
            return error_message(
                request_id,
                INVALID_REQUEST,
                "this connection serves the initialize handshake era; requests carrying the "
                "2026-07-28 envelope are not accepted on it",
            )
        return None

    async def _answer(
        self, request_id: object, method: str, params: Mapping[str, Any] | None, send: MCPSend
    ) -> None:
        task = asyncio.current_task()
        key = _key(request_id)
        if task is not None:
            self._in_flight[key] = task
        try:
            try:
                result = await self.server.serve(
                    method,
                    params,
                    session_id=self.session_id,
                    protocol_version=self.protocol_version,
                    notify=send,
                )
            except ScriptedJSONRPCError as error:
                reply = error_message(request_id, error.code, error.message, error.data)
            except MCPSessionDropped:
                self.dropped = True  # the transport ends the session; nothing is answered
                return
            except asyncio.CancelledError:
                raise
            except BaseException as error:
                reply = error_message(
                    request_id, INTERNAL_ERROR, str(error) or type(error).__name__
                )
            else:
                reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
                if method == "initialize":
                    self.protocol_version = result.get("protocolVersion")
        finally:
            if self._in_flight.get(key) is task:
                del self._in_flight[key]
        await send(reply)

    def _notified(self, method: str, params: Mapping[str, Any]) -> None:
        if method == "notifications/cancelled":
            task = self._in_flight.get(_key(params.get("requestId")))
            if task is not None:
                task.cancel()

    def cancel_all(self) -> None:
        """Cancel every request still being answered (the client went away)."""
        for task in list(self._in_flight.values()):
            task.cancel()


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _key(request_id: object) -> object:
    # 1 and "1" are different keys as they are; True (equal to 1) is no id at all.
    return request_id if _is_id(request_id) else None


def _too_deep(message: object) -> bool:
    """Return whether ``message`` nests deeper than ``MAX_DEPTH``, without recursion."""
    level: list[object] = [message]
    for _ in range(MAX_DEPTH):
        following: list[object] = []
        for value in level:
            if isinstance(value, dict):
                following.extend(cast(dict[str, object], value).values())
            elif isinstance(value, list):
                following.extend(cast(list[object], value))
        if not following:
            return False
        level = following
    return any(isinstance(value, (dict, list)) for value in level)
