"""The wire client tests run each test on both ways of serving the endpoint."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["transport", "server"])
def mode(request: pytest.FixtureRequest) -> str:
    """Serve in process through the httpx transport, or on the loopback server."""
    mode: str = request.param
    return mode
