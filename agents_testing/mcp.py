"""Scripted MCP server: an MCP server double whose tool calls answer from one ordered script.

What the server *offers* (its identity, instructions, tools, resources, prompts) is declared
once and answered to every listing. What it *does* (``tools/call``, ``resources/read``,
``prompts/get``) comes from scripted steps, used in order: a step matches the call by name
and arguments, then answers with a fixed result, a result computed from the recorded call,
or an error. Every request is recorded; a call no step expects is answered with an error
and remembered, so ``assert_complete()`` fails even when the agent swallowed the error.

This module is the protocol-free core: :meth:`ScriptedMCPServer.serve` takes one MCP method
and its params. ``agents_testing.wire.mcp_jsonrpc`` speaks JSON-RPC to it and
``agents_testing.wire.mcp_host`` serves it over streamable HTTP and stdio; the server starts
them when a test first reads :attr:`ScriptedMCPServer.url` or
:attr:`ScriptedMCPServer.stdio_command`.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import json
import math
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, cast

from . import _describe
from ._completion import CompletionContext
from ._records import detach_on_read
from ._snapshot import snapshot
from .errors import (
    InvalidScriptedMCPStepError,
    InvalidScriptedMCPStepReason,
    MCPProtocolError,
    RepeatedMCPListError,
    ScriptedJSONRPCError,
    UnconsumedMCPStepsError,
    UnexpectedMCPCallError,
)

if TYPE_CHECKING:
    from dataclasses import dataclass as _dataclass

    from .wire.mcp_host import MCPHost
else:
    from .items import _dataclass

__all__ = [
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "MODERN_PROTOCOL_VERSIONS",
    "MCPCall",
    "MCPNotify",
    "MCPResponder",
    "MCPSessionDropped",
    "MCPStep",
    "ScriptedMCPServer",
    "mcp_get_prompt",
    "mcp_image",
    "mcp_log",
    "mcp_progress",
    "mcp_read_resource",
    "mcp_tool",
    "mcp_tool_call",
    "mcp_tool_result",
    "mcp_tools_changed",
]

HANDSHAKE_PROTOCOL_VERSIONS: tuple[str, ...] = (
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
)
"""Protocol versions served through the ``initialize`` handshake (``mcp`` 1.x clients)."""

MODERN_PROTOCOL_VERSIONS: tuple[str, ...] = ("2026-07-28",)
"""Protocol versions served through ``server/discover`` and per-request envelopes (``mcp`` 2.x)."""

PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"

UNSUPPORTED_PROTOCOL_VERSION = -32022
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002

StepMethod = Literal["tools/call", "resources/read", "prompts/get"]
_Outcome = Literal["result", "respond", "error", "hang", "drop"]

MCPNotify = Callable[[dict[str, Any]], Awaitable[None]]
"""``notify(message)``: how a transport sends a server notification before the answer."""

_UNSET: Any = object()


@_dataclass(frozen=True)  # made without compiling source, as the dataclasses of ``items``
class MCPCall:
    """One MCP request the agent sent: a frozen dataclass.

    ``params`` holds the request's params as sent (``_meta`` included), detached on each
    read. ``session_id`` names the connection or HTTP session that sent it (``None`` for a
    stateless HTTP request); ``protocol_version`` is the version the request was served at.
    """

    index: int
    method: str
    params: dict[str, Any]
    session_id: str | None
    protocol_version: str | None

    def __init__(
        self,
        index: int,
        method: str,
        params: dict[str, Any],
        session_id: str | None,
        protocol_version: str | None,
    ) -> None:
        stored = self.__dict__
        stored["index"] = index
        stored["method"] = method
        stored["params"] = params
        stored["session_id"] = session_id
        stored["protocol_version"] = protocol_version

    @property
    def name(self) -> str | None:
        """Return the tool or prompt name of a ``tools/call`` or ``prompts/get`` call."""
        name = self.params.get("name")
        return name if isinstance(name, str) else None

    @property
    def arguments(self) -> dict[str, Any] | None:
        """Return the arguments of a ``tools/call`` or ``prompts/get`` call, as sent."""
        arguments = self.params.get("arguments")
        return cast(dict[str, Any], arguments) if isinstance(arguments, dict) else None

    @property
    def uri(self) -> str | None:
        """Return the URI of a ``resources/read`` call."""
        uri = self.params.get("uri")
        return uri if isinstance(uri, str) else None


MCPResponder = Callable[[MCPCall], Any]
"""``respond(call)``: compute an answer from the recorded call; sync or async."""


class MCPSessionDropped(Exception):
    """Raised by the answer of a step scripted with ``drop_session=True``.

    For transports: send no answer and end the session the call came from (forget an HTTP
    session, so its next request gets 404; close a stdio connection).
    """


@dataclass(frozen=True)
class MCPStep:
    """A scripted MCP step, built by :func:`mcp_tool_call`, :func:`mcp_read_resource` or
    :func:`mcp_get_prompt`; the server checks it when it is scripted."""

    method: StepMethod
    name: Any
    arguments: Any = None
    result: Any = _UNSET
    respond: Any = None
    error: Any = None
    notifications: Any = ()
    delay: Any = 0.0
    hang: Any = False
    optional: Any = False
    drop_session: Any = False


def mcp_tool_call(
    name: str,
    arguments: Mapping[str, Any] | Callable[[dict[str, Any]], object] | None = None,
    *,
    result: Any = _UNSET,
    respond: MCPResponder | None = None,
    error: BaseException | None = None,
    notifications: Iterable[Mapping[str, Any]] = (),
    delay: float = 0.0,
    hang: bool = False,
    optional: bool = False,
    drop_session: bool = False,
) -> MCPStep:
    """Script the answer to one ``tools/call`` of the tool ``name``.

    Args:
        name: The tool the call must name.
        arguments: ``None`` accepts any arguments; a mapping must equal the sent arguments;
            a function of the sent arguments rejects the call by returning ``False``.
        result: A str (one text block), a list of content blocks, or a full result such as
            :func:`mcp_tool_result` builds (``is_error=True`` for a tool error).
        respond: A function of the recorded :class:`MCPCall` returning such a result; sync
            or async.
        error: An exception: a :class:`~agents_testing.ScriptedJSONRPCError` is sent as that
            JSON-RPC error, any other as an internal error with its message.
        notifications: Sent before the answer, in order (:func:`mcp_progress`,
            :func:`mcp_log`, :func:`mcp_tools_changed`).
        delay: Seconds to wait before answering.
        hang: Never answer; the call waits until the client cancels it or disconnects.
        optional: ``assert_complete()`` does not report this step if no call took it.
        drop_session: Answer nothing and end the session the call came from: an HTTP
            session is forgotten (its next request gets 404), a stdio connection closes.
    """
    return MCPStep(
        "tools/call",
        name,
        arguments,
        result,
        respond,
        error,
        tuple(notifications) if _is_iterable(notifications) else notifications,
        delay,
        hang,
        optional,
        drop_session,
    )


def mcp_read_resource(
    uri: str,
    *,
    result: Any = _UNSET,
    respond: MCPResponder | None = None,
    error: BaseException | None = None,
    delay: float = 0.0,
    optional: bool = False,
) -> MCPStep:
    """Script the answer to one ``resources/read`` of ``uri``.

    ``result`` is a str (text contents), bytes (a blob) or ``{"contents": [...]}``.
    """
    return MCPStep("resources/read", uri, None, result, respond, error, (), delay, False, optional)


def mcp_get_prompt(
    name: str,
    arguments: Mapping[str, Any] | Callable[[dict[str, Any]], object] | None = None,
    *,
    result: Any = _UNSET,
    respond: MCPResponder | None = None,
    error: BaseException | None = None,
    delay: float = 0.0,
    optional: bool = False,
) -> MCPStep:
    """Script the answer to one ``prompts/get`` of the prompt ``name``.

    ``result`` is a str (one user message) or ``{"messages": [...], "description": ...}``.
    """
    return MCPStep(
        "prompts/get", name, arguments, result, respond, error, (), delay, False, optional
    )


def mcp_tool(
    name: str,
    description: str | None = None,
    input_schema: Mapping[str, Any] | None = None,
    *,
    output_schema: Mapping[str, Any] | None = None,
    annotations: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """Describe a tool the server lists, in MCP's own shape.

    ``input_schema`` defaults to an object schema without properties.
    """
    tool: dict[str, Any] = {
        "name": name,
        "inputSchema": dict(input_schema)
        if input_schema is not None
        else {"type": "object", "properties": {}},
    }
    if title is not None:
        tool["title"] = title
    if description is not None:
        tool["description"] = description
    if output_schema is not None:
        tool["outputSchema"] = dict(output_schema)
    if annotations is not None:
        tool["annotations"] = dict(annotations)
    return tool


def mcp_tool_result(
    content: str | Sequence[Mapping[str, Any]] = (),
    *,
    structured: Mapping[str, Any] | None = None,
    is_error: bool = False,
) -> dict[str, Any]:
    """Build a ``tools/call`` result: text or content blocks, structured content, ``isError``.

    With ``structured`` and no ``content``, the content is the structured value as JSON
    text, as MCP servers send it for clients that read only text.
    """
    if isinstance(content, str):
        blocks: list[Any] = [{"type": "text", "text": content}]
    else:
        blocks = [dict(block) if isinstance(block, Mapping) else block for block in content]
    if structured is not None and not blocks:
        blocks = [{"type": "text", "text": json.dumps(dict(structured))}]
    answer: dict[str, Any] = {"content": blocks, "isError": is_error}
    if structured is not None:
        answer["structuredContent"] = dict(structured)
    return answer


def mcp_image(data: bytes, mime_type: str = "image/png") -> dict[str, Any]:
    """Build an image content block from raw bytes (sent base64-encoded)."""
    return {"type": "image", "data": base64.b64encode(data).decode(), "mimeType": mime_type}


def mcp_progress(
    progress: float, total: float | None = None, message: str | None = None
) -> dict[str, Any]:
    """Build a progress notification, sent with the call's own progress token.

    A call whose request carries no ``_meta.progressToken`` gets no progress notification,
    as a real server sends none.
    """
    params: dict[str, Any] = {"progress": progress}
    if total is not None:
        params["total"] = total
    if message is not None:
        params["message"] = message
    return {"method": "notifications/progress", "params": params}


def mcp_log(level: str, data: Any, logger: str | None = None) -> dict[str, Any]:
    """Build a logging notification (``notifications/message``) at ``level``."""
    params: dict[str, Any] = {"level": level, "data": data}
    if logger is not None:
        params["logger"] = logger
    return {"method": "notifications/message", "params": params}


def mcp_tools_changed() -> dict[str, Any]:
    """Build the notification that says the server's tool list changed."""
    return {"method": "notifications/tools/list_changed", "params": {}}


@dataclass(frozen=True)
class _Step:
    method: StepMethod
    name: str
    arguments: Mapping[str, Any] | Callable[[dict[str, Any]], object] | None
    outcome: _Outcome
    value: Any
    notifications: tuple[dict[str, Any], ...]
    delay: float
    optional: bool
    position: int = 0

    def summary(self) -> str:
        """Describe what the step expects: its name and arguments."""
        if self.arguments is None:
            shown = "any arguments"
        elif callable(self.arguments):
            shown = "matcher " + (getattr(self.arguments, "__name__", None) or "function")
        else:
            shown = _describe.value(dict(self.arguments))
        return f"{self.method} {self.name}({shown})"

    def describe(self) -> dict[str, Any]:
        """Return this step as ``UnconsumedMCPStepsError`` lists it."""
        if self.outcome == "respond":
            answer = "respond " + (getattr(self.value, "__name__", None) or "function")
        elif self.outcome in ("hang", "drop"):
            answer = "hang" if self.outcome == "hang" else "drop session"
        elif self.outcome == "result":
            answer = _result_summary(self.value)
        else:
            answer = f"error {_describe.value(self.value, 40)}"
        summary = f"{self.summary()} -> {answer}" + (" (optional)" if self.optional else "")
        return {"step_index": self.position, "method": self.method, "summary": summary}


_Violation = (
    UnexpectedMCPCallError | RepeatedMCPListError | MCPProtocolError | InvalidScriptedMCPStepError
)

_CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
    }
)

_LISTS: dict[str, tuple[str, str]] = {
    "tools/list": ("tools", "_tools"),
    "resources/list": ("resources", "_resources"),
    "resources/templates/list": ("resourceTemplates", "_templates"),
    "prompts/list": ("prompts", "_prompts"),
}


class ScriptedMCPServer(CompletionContext):
    """An MCP server double: lists what it offers and answers calls from an ordered script.

    Args:
        steps: Steps built by :func:`mcp_tool_call`, :func:`mcp_read_resource` and
            :func:`mcp_get_prompt`, used in order.
        tools: The tools ``tools/list`` offers (:func:`mcp_tool` or MCP tool mappings).
        resources: The resources ``resources/list`` offers (``{"uri", "name", ...}``).
        resource_templates: What ``resources/templates/list`` offers
            (``{"uriTemplate", "name", ...}``).
        prompts: The prompts ``prompts/list`` offers (``{"name", "arguments", ...}``).
        server_info: The server's ``{"name", "version"}``.
        instructions: The instructions the handshake sends, or ``None``.
        capabilities: The capabilities the handshake sends; by default derived from what
            the server offers and scripts.
        ordered: ``False`` lets a call take any remaining step that matches it, not only the
            next one; the order of the steps then no longer matters.
        list_tools_once: Fail when the agent lists the tools a second time.
        page_size: List at most this many entries per page, with a ``nextCursor``.
        list_delay: Seconds every listing (``tools/list`` and the others) waits before it
            answers: a slow server.

    Serve it to a framework through :attr:`url` (streamable HTTP) or
    :attr:`stdio_command` / :attr:`stdio_params` (a command the framework spawns); ``with``
    or ``async with`` stops serving and checks :meth:`assert_complete` on a clean exit.
    """

    def __init__(
        self,
        steps: Iterable[MCPStep] = (),
        *,
        tools: Iterable[Mapping[str, Any]] = (),
        resources: Iterable[Mapping[str, Any]] = (),
        resource_templates: Iterable[Mapping[str, Any]] = (),
        prompts: Iterable[Mapping[str, Any]] = (),
        server_info: Mapping[str, Any] | None = None,
        instructions: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
        ordered: bool = True,
        list_tools_once: bool = False,
        page_size: int | None = None,
        list_delay: float = 0.0,
    ) -> None:
        self._tools = _offers(tools, "tools", "name")
        self._resources = _offers(resources, "resources", "uri")
        self._templates = _offers(resource_templates, "resource_templates", "uriTemplate")
        self._prompts = _offers(prompts, "prompts", "name")
        if server_info is None:
            server_info = {"name": "scripted-mcp-server", "version": "0.0.0"}
        if not isinstance(server_info, Mapping) or not isinstance(server_info.get("name"), str):
            raise TypeError(
                'server_info must be a mapping with a str "name", such as '
                f'{{"name": "github", "version": "1.0"}}; got {server_info!r}'
            )
        self._server_info = snapshot(dict(server_info))
        if instructions is not None and not isinstance(instructions, str):
            raise TypeError(
                f"instructions must be a str or None, got {type(instructions).__name__}"
            )
        self._instructions = instructions
        if capabilities is not None and not isinstance(capabilities, Mapping):
            raise TypeError(
                f"capabilities must be a mapping or None, got {type(capabilities).__name__}"
            )
        self._capabilities = None if capabilities is None else snapshot(dict(capabilities))
        for flag, value in (("ordered", ordered), ("list_tools_once", list_tools_once)):
            if not isinstance(value, bool):
                raise TypeError(f"{flag} must be a bool, got {value!r}")
        if page_size is not None and (
            isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1
        ):
            raise ValueError(f"page_size must be an int >= 1 or None, got {page_size!r}")
        if (
            isinstance(list_delay, bool)
            or not isinstance(list_delay, (int, float))
            or not 0 <= list_delay < math.inf
        ):
            raise ValueError(
                f"list_delay must be a finite number of seconds >= 0, got {list_delay!r}"
            )
        self._list_delay = float(list_delay)
        self._ordered = ordered
        self._list_tools_once = list_tools_once
        self._page_size = page_size
        self._lock = threading.Lock()
        self._steps: deque[_Step] = deque()
        self._added = 0
        self._calls: list[MCPCall] = []
        self._violations: list[_Violation] = []
        self._first_listing: int | None = None
        self._host: MCPHost | None = None
        self.enqueue(*_step_list(steps))

    # -- scripting -------------------------------------------------------------------------

    def enqueue(self, *steps: MCPStep) -> None:
        """Add steps at the end of the script; all of them, or none if one is invalid."""
        read = [_read_step(step, index) for index, step in enumerate(steps)]
        with self._lock:
            for step in read:
                self._steps.append(_placed(step, self._added))
                self._added += 1

    # -- reading ---------------------------------------------------------------------------

    @property
    def calls(self) -> tuple[MCPCall, ...]:
        """Every request so far, handshakes and listings included, in arrival order."""
        return tuple(self._calls)

    @property
    def first_call(self) -> MCPCall | None:
        """The first request, or ``None``."""
        return self._calls[0] if self._calls else None

    @property
    def last_call(self) -> MCPCall | None:
        """The latest request, or ``None``."""
        return self._calls[-1] if self._calls else None

    @property
    def tool_calls(self) -> tuple[MCPCall, ...]:
        """The ``tools/call`` requests, in order."""
        return tuple(call for call in self._calls if call.method == "tools/call")

    @property
    def tool_names(self) -> tuple[str | None, ...]:
        """The tool each ``tools/call`` named, in order."""
        return tuple(call.name for call in self.tool_calls)

    @property
    def tool_arguments(self) -> tuple[dict[str, Any] | None, ...]:
        """The arguments each ``tools/call`` sent, in order; each read is a new copy."""
        return tuple(call.arguments for call in self.tool_calls)

    @property
    def remaining_steps(self) -> int:
        """The number of steps no call has taken yet."""
        return len(self._steps)

    @property
    def offered_tools(self) -> tuple[dict[str, Any], ...]:
        """The tools ``tools/list`` answers with (copies)."""
        return tuple(snapshot(tool) for tool in self._tools)

    def set_tools(self, tools: Iterable[Mapping[str, Any]], *, notify: bool = True) -> None:
        """Replace the tools the server lists; by default tell connected clients they changed.

        With ``notify``, every connected client (stdio connections and HTTP sessions' GET
        streams) gets ``notifications/tools/list_changed``, so a client that caches the tool
        list lists it again.
        """
        offered = _offers(tools, "tools", "name")
        with self._lock:
            self._tools = offered
        if notify:
            self.notify_clients(mcp_tools_changed())

    def notify_clients(self, *notifications: Mapping[str, Any]) -> None:
        """Send server notifications now to every connected client, outside any call.

        Takes what :func:`mcp_log` and :func:`mcp_tools_changed` build. Delivered over each
        stdio connection and each HTTP session's GET stream; a stateless HTTP client has no
        stream to receive them on. Without a client connected, nothing is sent.
        """
        messages: list[dict[str, Any]] = []
        for index, notification in enumerate(notifications):
            if (
                not isinstance(notification, Mapping)
                or not isinstance(notification.get("method"), str)
                or not isinstance(notification.get("params", {}), Mapping)
            ):
                raise TypeError(
                    f"notifications[{index}] must be a mapping with a str method, such as "
                    f"mcp_tools_changed(); got {_describe.value(notification, 40)}"
                )
            params = snapshot(dict(notification.get("params", {})))
            messages.append({"jsonrpc": "2.0", "method": notification["method"], "params": params})
        host = self._host
        if host is not None and messages:
            host.broadcast(messages)

    def assert_complete(self) -> None:
        """Fail if a request broke the script or a scripted step was never used.

        A broken script (an unexpected call, a repeated listing, a refused message, an
        invalid responder answer) is reported first, as a new error of the same class with
        the same fields, even when the agent caught the original.
        """
        with self._lock:  # the server thread may be taking a step right now
            first = self._violations[0] if self._violations else None
            steps = list(self._steps)
        if first is not None:
            raise first._fresh() from first  # pyright: ignore[reportPrivateUsage]
        if any(not step.optional for step in steps):
            raise UnconsumedMCPStepsError(len(steps), [step.describe() for step in steps])

    def record_violation(self, error: MCPProtocolError) -> MCPProtocolError:
        """Remember a message a transport refused, so ``assert_complete()`` raises it."""
        if not isinstance(error, MCPProtocolError):
            raise TypeError(
                f"record_violation() takes an MCPProtocolError, got {type(error).__name__}"
            )
        with self._lock:
            self._violations.append(error)
        return error

    def __repr__(self) -> str:
        return (
            f"<ScriptedMCPServer tools=[{', '.join(str(tool['name']) for tool in self._tools)}] "
            f"calls={len(self._calls)} remaining_steps={len(self._steps)}>"
        )

    # -- serving ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The streamable HTTP endpoint, ``http://127.0.0.1:PORT/mcp``; starts serving."""
        return self._serving().url

    @property
    def stdio_command(self) -> list[str]:
        """A command that serves this server on its stdin and stdout; starts serving.

        The spawned process only relays bytes to this test process, where the script and
        the records stay; it exits when its stdin closes or this server stops.
        """
        return self._serving().stdio_command

    @property
    def stdio_params(self) -> dict[str, Any]:
        """``{"command": ..., "args": [...]}``: :attr:`stdio_command` as frameworks take it."""
        command = self.stdio_command
        return {"command": command[0], "args": command[1:]}

    def close(self) -> None:
        """Stop serving: close every connection and listener, and join the server thread."""
        host, self._host = self._host, None
        if host is not None:
            host.close()

    def _serving(self) -> MCPHost:
        with self._lock:
            if self._host is None:
                from .wire.mcp_host import MCPHost

                self._host = MCPHost(self)
            return self._host

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
        super().__exit__(exc_type, exc, traceback)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Joining the server thread blocks: keep the event loop free while it happens.
        await asyncio.to_thread(self.close)
        await super().__aexit__(exc_type, exc, traceback)

    def serve(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        session_id: str | None = None,
        protocol_version: str | None = None,
        notify: MCPNotify | None = None,
    ) -> Coroutine[Any, Any, dict[str, Any]]:
        """Record one request and take its step now; return the coroutine of its answer.

        For transports: the coroutine returns the method's result or raises
        :class:`~agents_testing.ScriptedJSONRPCError` (or the scripted exception) for the
        JSON-RPC error to send. ``protocol_version`` is the version the session negotiated
        (a request's own 2026-era envelope wins); ``notify`` sends the step's
        notifications before the answer.
        """
        if not isinstance(method, str):
            raise TypeError(f"method must be a str, got {type(method).__name__}")
        if params is not None and not isinstance(params, Mapping):
            raise TypeError(f"params must be a mapping or None, got {type(params).__name__}")
        sent = snapshot(dict(params or {}), f"{method} params")
        version = _envelope_version(sent) or protocol_version
        if method == "initialize":
            offered = sent.get("protocolVersion")
            version = (
                offered
                if offered in HANDSHAKE_PROTOCOL_VERSIONS
                else HANDSHAKE_PROTOCOL_VERSIONS[-1]
            )
        with self._lock:
            call = MCPCall(len(self._calls), method, sent, session_id, version)
            self._calls.append(call)
            plan = self._plan(call)
        return self._answer(call, plan, notify)

    def _plan(self, call: MCPCall) -> Any:
        """Decide the answer under the lock: a step, a listing, or an error to raise."""
        method, params = call.method, call.__dict__["params"]
        modern = PROTOCOL_VERSION_META_KEY in _meta(params)
        if (
            modern or method == "server/discover"
        ) and call.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return ScriptedJSONRPCError(
                UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                {"supported": list(MODERN_PROTOCOL_VERSIONS), "requested": call.protocol_version},
            )
        if method in ("tools/call", "resources/read", "prompts/get"):
            return self._take(call)
        if method == "tools/list" and self._list_tools_once and params.get("cursor") is None:
            if self._first_listing is None:
                self._first_listing = call.index
            else:
                repeated = RepeatedMCPListError(method, call.index, self._first_listing)
                self._violations.append(repeated)
                return repeated
        if method in _LISTS or method in (
            "initialize",
            "server/discover",
            "ping",
            "logging/setLevel",
        ):
            return None
        violation = MCPProtocolError("unknown_method", method, call.session_id)
        self._violations.append(violation)
        return ScriptedJSONRPCError(METHOD_NOT_FOUND, "Method not found", method)

    def _take(self, call: MCPCall) -> Any:
        """Take the step for a tools/call, resources/read or prompts/get; or fail."""
        params = call.__dict__["params"]
        key = "uri" if call.method == "resources/read" else "name"
        name = params.get(key)
        arguments: Any = params.get("arguments", {}) if call.method != "resources/read" else None
        if not isinstance(name, str) or (arguments is not None and not isinstance(arguments, dict)):
            violation = MCPProtocolError(
                "invalid_params",
                call.method,
                call.session_id,
                f"needs a str {key}" + ("" if arguments is None else " and an arguments object"),
            )
            self._violations.append(violation)
            return ScriptedJSONRPCError(
                INVALID_PARAMS, "Invalid request parameters", violation.detail
            )
        candidates = list(self._steps) if not self._ordered else list(self._steps)[:1]
        rejection: BaseException | None = None
        for step in candidates:
            if step.method != call.method or step.name != name:
                continue
            accepted, error = _matches(step, cast(dict[str, Any] | None, arguments))
            if accepted:
                self._steps.remove(step)
                return step
            rejection = rejection or error
        if self._ordered:
            head = self._steps[0] if self._steps else None
            expected = None if head is None else head.summary()
            position = None if head is None else head.position
        else:
            same = [step.summary() for step in self._steps if step.method == call.method]
            expected = ("one of: " + "; ".join(same)) if same else None
            position = None
        unexpected = UnexpectedMCPCallError(
            call.index, call.method, _call_summary(call), expected, position
        )
        if rejection is not None:
            unexpected.__cause__ = rejection
        self._violations.append(unexpected)
        return unexpected

    async def _answer(self, call: MCPCall, plan: Any, notify: MCPNotify | None) -> dict[str, Any]:
        if isinstance(plan, BaseException):
            raise plan
        if isinstance(plan, _Step):
            result = await self._run_step(call, plan, notify)
        else:
            if self._list_delay and call.method in _LISTS:
                await asyncio.sleep(self._list_delay)
            result = self._listing(call)
        if PROTOCOL_VERSION_META_KEY in _meta(call.__dict__["params"]):
            # The 2026 wire requires resultType on every result and stamps the server's name.
            result.setdefault("resultType", "complete")
            if call.method in _CACHEABLE:
                # ttlMs 0: the client caches nothing, so every listing reaches the script.
                result.setdefault("ttlMs", 0)
                result.setdefault("cacheScope", "private")
            result.setdefault("_meta", {})[SERVER_INFO_META_KEY] = snapshot(self._server_info)
        return result

    async def _run_step(
        self, call: MCPCall, step: _Step, notify: MCPNotify | None
    ) -> dict[str, Any]:
        if notify is not None:
            for message in step.notifications:
                sent = _addressed(message, call)
                if sent is not None:
                    await notify(sent)
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.outcome == "hang":
            await asyncio.get_running_loop().create_future()  # until cancelled
        if step.outcome == "drop":
            raise MCPSessionDropped(f"step #{step.position + 1} drops the session")
        if step.outcome == "error":
            raise step.value
        value = step.value
        if step.outcome == "respond":
            value = step.value(call)
            if inspect.isawaitable(value):
                value = await value
            try:
                return _normalized(step.method, step.name, value)
            except InvalidScriptedMCPStepError as error:
                invalid = InvalidScriptedMCPStepError(
                    error.reason, call_index=call.index, detail=error.detail
                )
                with self._lock:
                    self._violations.append(invalid)
                raise invalid from None
        return snapshot(value)

    def _listing(self, call: MCPCall) -> dict[str, Any]:
        method, params = call.method, call.__dict__["params"]
        if method == "initialize":
            answer: dict[str, Any] = {
                "protocolVersion": call.protocol_version,
                "capabilities": self._offered_capabilities(),
                "serverInfo": snapshot(self._server_info),
            }
            if self._instructions is not None:
                answer["instructions"] = self._instructions
            return answer
        if method == "server/discover":
            answer = {
                "supportedVersions": list(MODERN_PROTOCOL_VERSIONS),
                "capabilities": self._offered_capabilities(),
            }
            if self._instructions is not None:
                answer["instructions"] = self._instructions
            return answer
        if method in ("ping", "logging/setLevel"):
            return {}
        key, attribute = _LISTS[method]
        entries: list[dict[str, Any]] = getattr(self, attribute)
        start = 0
        cursor = params.get("cursor")
        if cursor is not None:
            if not isinstance(cursor, str) or not cursor.isdigit() or int(cursor) > len(entries):
                violation = MCPProtocolError(
                    "invalid_params", method, call.session_id, f"unknown cursor {cursor!r}"
                )
                self.record_violation(violation)
                raise ScriptedJSONRPCError(INVALID_PARAMS, "Invalid cursor", cursor)
            start = int(cursor)
        end = len(entries) if self._page_size is None else start + self._page_size
        answer = {key: snapshot(entries[start:end])}
        if end < len(entries):
            answer["nextCursor"] = str(end)
        return answer

    def _offered_capabilities(self) -> dict[str, Any]:
        if self._capabilities is not None:
            return snapshot(self._capabilities)
        with self._lock:
            steps = list(self._steps)
        scripted = {step.method for step in steps}
        notifying = [message["method"] for step in steps for message in step.notifications]
        capabilities: dict[str, Any] = {
            "tools": {"listChanged": "notifications/tools/list_changed" in notifying}
        }
        if self._resources or self._templates or "resources/read" in scripted:
            capabilities["resources"] = {"listChanged": False, "subscribe": False}
        if self._prompts or "prompts/get" in scripted:
            capabilities["prompts"] = {"listChanged": False}
        if "notifications/message" in notifying:
            capabilities["logging"] = {}
        return capabilities


# -- reading a script ----------------------------------------------------------------------


def _is_iterable(value: object) -> bool:
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping))


def _step_list(steps: object) -> list[MCPStep]:
    if not _is_iterable(steps):
        raise TypeError(
            "ScriptedMCPServer steps must be an iterable of steps, "
            f"got {type(steps).__name__}; wrap a single step in a list."
        )
    return list(cast(Iterable[MCPStep], steps))


def _offers(entries: object, argument: str, key: str) -> list[dict[str, Any]]:
    if not _is_iterable(entries):
        raise TypeError(f"{argument} must be an iterable of mappings, got {type(entries).__name__}")
    offered: list[dict[str, Any]] = []
    for index, entry in enumerate(cast(Iterable[object], entries)):
        if not isinstance(entry, Mapping):
            raise TypeError(f"{argument}[{index}] must be a mapping, got {type(entry).__name__}")
        fields = cast(Mapping[str, Any], entry)
        if not isinstance(fields.get(key), str) or not fields[key]:
            raise ValueError(f'{argument}[{index}] needs a non-empty str "{key}"')
        if argument == "tools" and not isinstance(fields.get("inputSchema", {}), Mapping):
            raise ValueError(f'{argument}[{index}] "inputSchema" must be a JSON schema mapping')
        copied = snapshot(dict(fields), f"{argument}[{index}]")
        if argument == "tools":
            copied.setdefault("inputSchema", {"type": "object", "properties": {}})
        offered.append(copied)
    return offered


def _placed(step: _Step, position: int) -> _Step:
    return _Step(
        step.method,
        step.name,
        step.arguments,
        step.outcome,
        step.value,
        step.notifications,
        step.delay,
        step.optional,
        position,
    )


def _read_step(step: object, index: int) -> _Step:
    """Validate one scripted step and normalize its answer."""

    def invalid(
        reason: InvalidScriptedMCPStepReason, detail: str | None
    ) -> InvalidScriptedMCPStepError:
        return InvalidScriptedMCPStepError(reason, input_index=index, detail=detail)

    if not isinstance(step, MCPStep):
        raise invalid("invalid_input", f"got {_describe.value(step, 40)}")
    if not isinstance(step.name, str) or not step.name:
        raise invalid("invalid_name", f"got {_describe.value(step.name, 40)}")
    arguments = step.arguments
    if arguments is not None and not callable(arguments):
        if not isinstance(arguments, Mapping):
            raise invalid("invalid_arguments", f"got {_describe.value(arguments, 40)}")
        arguments = snapshot(dict(cast(Mapping[str, Any], arguments)), "arguments")
    given = [
        name
        for name, present in (
            ("result", step.result is not _UNSET),
            ("respond", step.respond is not None),
            ("error", step.error is not None),
        )
        if present
    ]
    if not isinstance(step.hang, bool):
        raise invalid("invalid_timing", f"hang={_describe.value(step.hang, 20)}")
    if not isinstance(step.drop_session, bool):
        raise invalid("invalid_outcome", f"drop_session={_describe.value(step.drop_session, 20)}")
    silent = [name for name, on in (("hang", step.hang), ("drop_session", step.drop_session)) if on]
    delay = step.delay
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay < math.inf:
        raise invalid("invalid_timing", f"delay={_describe.value(delay, 20)}")
    if len(given) + len(silent) != 1:
        shown = ", ".join(given + [f"{name}=True" for name in silent]) or "none"
        raise invalid("invalid_outcome", f"given: {shown}")
    if not isinstance(step.optional, bool):
        raise invalid(
            "invalid_input", f"optional must be a bool, got {_describe.value(step.optional, 20)}"
        )
    outcome: _Outcome = (
        "hang" if step.hang else "drop" if step.drop_session else cast(_Outcome, given[0])
    )
    value: Any = None
    if outcome == "result":
        try:
            value = _normalized(step.method, step.name, step.result)
        except InvalidScriptedMCPStepError as error:
            raise invalid(error.reason, error.detail) from None
    elif outcome == "respond":
        if not callable(step.respond):
            raise invalid("invalid_outcome", "respond must be a function of the recorded call")
        value = step.respond
    elif outcome == "error":
        if not isinstance(step.error, BaseException):
            raise invalid("invalid_error", f"got {_describe.value(step.error, 40)}")
        value = step.error
    notifications = step.notifications
    if not _is_iterable(notifications):
        raise invalid("invalid_notification", f"got {_describe.value(notifications, 40)}")
    messages: list[dict[str, Any]] = []
    for message in cast(Iterable[object], notifications):
        if (
            not isinstance(message, Mapping)
            or not isinstance(cast(Mapping[str, Any], message).get("method"), str)
            or not isinstance(cast(Mapping[str, Any], message).get("params", {}), Mapping)
        ):
            raise invalid("invalid_notification", f"got {_describe.value(message, 40)}")
        messages.append(snapshot(dict(cast(Mapping[str, Any], message)), "notification"))
    return _Step(
        step.method,
        step.name,
        arguments,
        outcome,
        value,
        tuple(messages),
        float(delay),
        step.optional,
    )


def _normalized(method: StepMethod, name: str, value: Any) -> dict[str, Any]:
    """Return a step's answer as the method's result dict, or raise ``invalid_result``."""

    def invalid(detail: str) -> InvalidScriptedMCPStepError:
        return InvalidScriptedMCPStepError("invalid_result", detail=f"{method} {detail}")

    if method == "tools/call":
        if isinstance(value, str):
            return mcp_tool_result(value)
        if isinstance(value, (list, tuple)):
            blocks = cast(Sequence[object], value)
            if not all(_is_block(block) for block in blocks):
                raise invalid("content blocks are mappings with a str type")
            return mcp_tool_result(cast(Sequence[Mapping[str, Any]], blocks))
        if isinstance(value, Mapping):
            fields = cast(Mapping[str, Any], value)
            content = fields.get("content")
            if not isinstance(content, (list, tuple)) or not all(
                _is_block(block) for block in cast(Sequence[object], content)
            ):
                raise invalid("result needs a content list of blocks with a str type")
            if not isinstance(fields.get("isError", False), bool):
                raise invalid("isError must be a bool")
            if not isinstance(fields.get("structuredContent", {}), Mapping):
                raise invalid("structuredContent must be an object")
            return snapshot(dict(fields), "result")
        raise invalid(f"got {_describe.value(value, 40)}")
    if method == "resources/read":
        if isinstance(value, str):
            return {"contents": [{"uri": name, "mimeType": "text/plain", "text": value}]}
        if isinstance(value, (bytes, bytearray)):
            blob = base64.b64encode(bytes(value)).decode()
            return {
                "contents": [{"uri": name, "mimeType": "application/octet-stream", "blob": blob}]
            }
        if isinstance(value, Mapping) and isinstance(
            cast(Mapping[str, Any], value).get("contents"), list
        ):
            return snapshot(dict(cast(Mapping[str, Any], value)), "result")
        raise invalid(f"got {_describe.value(value, 40)}")
    if isinstance(value, str):
        return {"messages": [{"role": "user", "content": {"type": "text", "text": value}}]}
    if isinstance(value, Mapping) and isinstance(
        cast(Mapping[str, Any], value).get("messages"), list
    ):
        return snapshot(dict(cast(Mapping[str, Any], value)), "result")
    raise invalid(f"got {_describe.value(value, 40)}")


def _result_summary(result: dict[str, Any]) -> str:
    """Describe a normalized result by its first text, as a reader of the script knows it."""
    blocks: list[Any] = result.get("content") or result.get("contents") or []
    messages: list[Any] = result.get("messages") or []
    if messages:
        blocks = [_field(messages[0], "content")]
    first: Any = blocks[0] if blocks else None
    text = _field(first, "text")
    shown = _describe.value(text, 40) if isinstance(text, str) else _describe.value(first, 40)
    return ("tool error " if result.get("isError") is True else "") + shown


def _field(value: object, key: str) -> Any:
    """Return ``value[key]`` when ``value`` is a dict, else ``None``."""
    return cast(dict[str, Any], value).get(key) if isinstance(value, dict) else None


def _is_block(block: object) -> bool:
    return isinstance(block, Mapping) and isinstance(
        cast(Mapping[str, Any], block).get("type"), str
    )


# -- serving helpers -----------------------------------------------------------------------


def _meta(params: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = params.get("_meta")
    return cast(Mapping[str, Any], meta) if isinstance(meta, Mapping) else {}


def _envelope_version(params: Mapping[str, Any]) -> str | None:
    version = _meta(params).get(PROTOCOL_VERSION_META_KEY)
    return version if isinstance(version, str) else None


def _matches(step: _Step, arguments: dict[str, Any] | None) -> tuple[bool, BaseException | None]:
    expected = step.arguments
    if expected is None:
        return True, None
    sent = snapshot(arguments or {})
    if callable(expected):
        try:
            return expected(sent) is not False, None
        except Exception as error:  # a matcher's assertion is a rejection, kept as the cause
            return False, error
    return expected == sent, None


def _call_summary(call: MCPCall) -> str:
    params = call.__dict__["params"]
    if call.method == "resources/read":
        return _describe.value(params.get("uri"), 80)
    arguments = params.get("arguments")
    return _describe.shorten(f"{params.get('name')}({_describe.value(arguments, 80)})", 120)


def _addressed(message: Mapping[str, Any], call: MCPCall) -> dict[str, Any] | None:
    """Return a step's notification as a JSON-RPC message for this call, or None to skip it."""
    params: dict[str, Any] = dict(message.get("params", {}))
    if message["method"] == "notifications/progress":
        token = _meta(call.__dict__["params"]).get("progressToken")
        if token is None:
            return None
        params["progressToken"] = token
    return {"jsonrpc": "2.0", "method": message["method"], "params": snapshot(params)}


detach_on_read(MCPCall, ("params",))
