"""Test-run wiring shared by examples/ and tests/: async tests and a closed network."""

from __future__ import annotations

import asyncio
import inspect
import socket
from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests in a fresh event loop, so the suite needs no async plugin."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    if "anyio" in pyfuncitem.keywords or "asyncio" in pyfuncitem.keywords:
        return None  # another plugin owns this test
    names = pyfuncitem._fixtureinfo.argnames
    kwargs = {name: pyfuncitem.funcargs[name] for name in names}
    asyncio.run(pyfuncitem.obj(**kwargs))
    return True


class NetworkBlockedError(RuntimeError):
    """A test tried to open a network connection."""


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any attempt to reach the network; local socket pairs stay usable."""
    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family == socket.AF_UNIX:
            return real_connect(self, address)
        raise NetworkBlockedError(f"test tried to connect to {address!r}")

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        guarded_connect(self, address)
        return 0

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        raise NetworkBlockedError(f"test tried to resolve {host!r}")

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
