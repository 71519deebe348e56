"""Real provider clients on a scripted endpoint, and the scripts the client tests share.

A test takes the ``mode`` fixture (conftest.py) and connects its client for that mode. Import
this module after the test module's ``importorskip`` calls: it needs ``httpx``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from agents_testing import ScriptedModel, assistant_message, model_error
from agents_testing.adapters.httpx import scripted_transport
from agents_testing.wire import ScriptedEndpoint, ScriptedServer


@dataclass(frozen=True)
class Provider:
    """How one provider's client is pointed at the endpoint, in either mode."""

    client: Callable[..., Any]
    async_client: Callable[..., Any]
    http: ModuleType  # the httpx module whose clients this SDK accepts (httpx or httpx2)
    api_path: str  # what the SDK's base URL adds to the host: "/v1" for OpenAI
    api_key: str

    @contextmanager
    def connect(
        self, model: ScriptedModel, mode: str, **options: Any
    ) -> Iterator[tuple[Any, ScriptedEndpoint]]:
        """Yield ``(client, endpoint)`` for the mode: in-process transport or loopback."""
        if mode == "transport":
            transport = scripted_transport(model)
            with self.client(
                base_url=f"http://scripted.invalid{self.api_path}",
                api_key=self.api_key,
                http_client=self.http.Client(transport=transport),
                **options,
            ) as client:
                yield client, transport.endpoint
            return
        # start()/close() rather than ``with``: leaving a server's block checks its script,
        # and these tests assert what the endpoint recorded in both modes alike.
        server = ScriptedServer(model).start()
        try:
            with self.client(
                base_url=server.url + self.api_path, api_key=self.api_key, **options
            ) as client:
                yield client, server.endpoint
        finally:
            server.close()

    @asynccontextmanager
    async def connect_async(
        self, model: ScriptedModel, mode: str, **options: Any
    ) -> AsyncIterator[tuple[Any, ScriptedEndpoint]]:
        """Yield ``(client, endpoint)`` with the SDK's async client."""
        if mode == "transport":
            transport = scripted_transport(model)
            async with self.async_client(
                base_url=f"http://scripted.invalid{self.api_path}",
                api_key=self.api_key,
                http_client=self.http.AsyncClient(transport=transport),
                **options,
            ) as client:
                yield client, transport.endpoint
            return
        server = ScriptedServer(model).start()
        try:
            async with self.async_client(
                base_url=server.url + self.api_path, api_key=self.api_key, **options
            ) as client:
                yield client, server.endpoint
        finally:
            await asyncio.to_thread(server.close)


def error_then_answer(error: Exception, answer: str) -> ScriptedModel:
    """Script a failed call (the client should retry it) followed by one answer."""
    return ScriptedModel([model_error(error), [assistant_message(answer)]])


def statuses(endpoint: ScriptedEndpoint) -> list[int]:
    """Return the HTTP status of every request the endpoint answered, in order."""
    return [exchange.status for exchange in endpoint.requests]
