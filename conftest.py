"""Test-run wiring shared by examples/ and tests/: a closed network.

Async tests run under pytest-asyncio (``asyncio_mode = "auto"`` in pyproject.toml); the
examples carry ``@pytest.mark.asyncio`` so they also run in a project in strict mode.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

# The pytest plugin's tests run pytest on small test projects.
pytest_plugins = ["pytester"]


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
