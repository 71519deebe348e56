"""The suite's network guard: loopback is reachable, every other address is not."""

from __future__ import annotations

import socket

import pytest

from conftest import is_loopback

# The guard's NetworkBlockedError is matched by its message and name, not by the class imported
# from conftest: when pytest runs twice in one process (as mutmut does), it imports conftest.py
# afresh while this module stays cached, so the imported class is the first run's.
BLOCKED = r"^test tried to (connect|resolve) "


@pytest.mark.parametrize(
    "address", ["203.0.113.7", "10.0.0.1", "0.0.0.0", "8.8.8.8", "::ffff:8.8.8.8"]
)
def test_non_loopback_connect_is_blocked(address: str) -> None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family) as sock, pytest.raises(RuntimeError, match=BLOCKED) as caught:
        sock.connect((address, 443))
    assert caught.type.__name__ == "NetworkBlockedError"


@pytest.mark.parametrize("host", ["example.com", "localhost.example.com", "10.0.0.1"])
def test_non_loopback_resolution_is_blocked(host: str) -> None:
    with pytest.raises(RuntimeError, match=BLOCKED) as caught:
        socket.getaddrinfo(host, 443)
    assert caught.type.__name__ == "NetworkBlockedError"


def test_loopback_connect_reaches_a_local_listener() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.create_connection(listener.getsockname(), timeout=5):
            pass


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", True),
        ("127.8.9.1", True),
        ("::1", True),
        ("localhost", False),
        ("0.0.0.0", False),
        ("::", False),
        (None, False),
        (b"127.0.0.1", True),
    ],
)
def test_is_loopback_accepts_only_loopback_literals(host: object, expected: bool) -> None:
    assert is_loopback(host) is expected
