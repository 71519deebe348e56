"""Test-run wiring shared by examples/ and tests/: a closed network.

Async tests run under pytest-asyncio (``asyncio_mode = "auto"`` in pyproject.toml); the
examples carry ``@pytest.mark.asyncio`` so they also run in a project in strict mode.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The pytest plugin's tests run pytest on small test projects.
pytest_plugins = ["pytester"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under mutmut, run a mutant's tests fastest first, so it dies on its cheapest test."""
    # mutmut runs each mutant's tests with -x but in no set order (see CONTRIBUTING.md): one
    # slow property test first costs seconds on every mutant a quick unit test would kill.
    if not os.environ.get("MUTANT_UNDER_TEST"):
        return
    stats = Path("mutmut-stats.json")  # mutmut runs the tests from its mutants/ folder
    if not stats.is_file():
        return
    durations: dict[str, float] = json.loads(stats.read_text("utf-8")).get("duration_by_test", {})
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))


class NetworkBlockedError(RuntimeError):
    """A test tried to open a network connection."""


def is_loopback(host: Any) -> bool:
    """Return whether ``host`` is a literal loopback address (127.0.0.0/8 or ::1)."""
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    try:
        return ipaddress.ip_address(host.partition("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any attempt to reach the network; local sockets and loopback stay usable."""
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family == socket.AF_UNIX:
            return real_connect(self, address)
        # The wire tests talk to their own server on 127.0.0.1; nothing else is reachable.
        if isinstance(address, tuple) and address and is_loopback(address[0]):
            return real_connect(self, address)
        raise NetworkBlockedError(f"test tried to connect to {address!r}")

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        guarded_connect(self, address)
        return 0

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        # Clients "resolve" even a literal address; only loopback literals pass through.
        if is_loopback(host):
            return real_getaddrinfo(host, *args, **kwargs)
        raise NetworkBlockedError(f"test tried to resolve {host!r}")

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)


class _ServerLoopErrors(logging.Handler):
    """Collects the errors asyncio logs from a served MCP double's loop thread."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.threadName == "agents-testing-mcp":  # MCPHost's loop thread
            self.records.append(record)


@pytest.fixture(autouse=True)
def _the_mcp_server_loop_logs_no_error() -> Iterator[None]:
    """Fail a test when a served MCP double's event loop logged an error.

    A connection handler that raises, or a callback that fails, is only logged by asyncio:
    the client sees a closed connection at most, so no assertion of the test would notice.
    Autouse, so it is torn down after the test's servers are closed and their thread joined.
    """
    collected = _ServerLoopErrors()
    logger = logging.getLogger("asyncio")
    logger.addHandler(collected)
    try:
        yield
    finally:
        logger.removeHandler(collected)
    assert not collected.records, "the MCP server's event loop logged: " + "; ".join(
        record.getMessage() for record in collected.records
    )
