"""What a client library's author supplies to check it against the scripted wire endpoint."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..wire import ScriptedServer
from ._harness import Reply

__all__ = ["WireHarness"]


@runtime_checkable
class WireHarness(Protocol):
    """Drive one client library against a ``ScriptedServer`` the check started.

    Each check scripts a ``ScriptedModel``, serves it with a started ``ScriptedServer`` and
    calls these methods with that server. Point the client at it as your users would point
    it at the provider: a base URL (``server.base_url`` for OpenAI-style clients, which ends
    in ``/v1``, ``server.url`` for Anthropic-style ones), or the in-process transport
    (``agents_testing.adapters.httpx.scripted_transport(server.endpoint)``) for an ``httpx``
    client. Keep the client's own retries on (at least one retry) unless the subclass
    declares ``has_retries = False``. Every call offers the model one tool,
    ``get_weather(city: str) -> str``, which returns ``f"{city}: sunny"``.
    """

    @property
    def client(self) -> str:
        """Name the client in failure messages (for example ``"openai (Responses)"``)."""
        ...

    async def call(self, server: ScriptedServer, prompt: str, *, stream: bool) -> Reply:
        """Make one request with ``prompt`` and the tool offered; read the client's reply.

        Stream the response when ``stream`` is true, and collect the text deltas the client
        delivered into ``Reply.text_deltas``. Do not run the tools the reply asks for. Let
        the client's errors propagate (or swallow them, if your users' code does).
        """
        ...

    async def run_tool_loop(self, server: ScriptedServer, prompt: str, *, stream: bool) -> str:
        """Run a tool loop on ``prompt`` until the model answers; return the answer.

        Run every tool call the model makes and send its result back in the next request,
        as code written with this client does. With ``stream`` every request is streamed.
        """
        ...

    def http_status(self, error: BaseException) -> int | None:
        """Return the HTTP status the client's ``error`` reports, or ``None`` if it has none."""
        ...
