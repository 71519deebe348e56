"""Checks shared by the MCP double's tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


class _Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.threadName == "agents-testing-mcp":  # MCPHost's loop thread
            self.records.append(record)


@pytest.fixture(autouse=True)
def _the_server_loop_logs_no_error() -> Iterator[None]:
    """Fail a test when the served double's event loop logged an error.

    A connection handler that raises, or a callback that fails, is only logged by asyncio:
    the client sees a closed connection at most, so no assertion of the test would notice.
    Autouse, so it is torn down after the test's servers are closed and their thread joined.
    """
    collected = _Collected()
    logger = logging.getLogger("asyncio")
    logger.addHandler(collected)
    try:
        yield
    finally:
        logger.removeHandler(collected)
    assert not collected.records, "the MCP server's event loop logged: " + "; ".join(
        record.getMessage() for record in collected.records
    )
