"""Loopback server rows: ScriptedServer against a stdlib ThreadingHTTPServer with canned bytes.

The floor is the cheapest server a user could write by hand for the same test: the standard
library's ``ThreadingHTTPServer`` that reads the request and answers with the exact bytes
``ScriptedServer`` sent for it (status line, headers and body), one request per connection
like ours. Both sides are driven by the same raw-socket client, so the rows compare the
servers. CPU rows count the whole process (client and server threads alike); the 50-client
rows are wall-clock latency and throughput, as a test suite waiting on the server sees them.
"""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from _harness import Row, compare, counting_instructions, cpu_seconds

from agents_testing import ScriptedModel, assistant_message
from agents_testing.wire import ScriptedServer

GROUP = "wire-server"
PLAIN = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
STREAMED = json.dumps(
    {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
).encode()


def _request(body: bytes) -> bytes:
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def _exchange(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        parts: list[bytes] = []
        while chunk := sock.recv(65536):
            parts.append(chunk)
    return b"".join(parts)


def _script(count: int) -> ScriptedModel:
    return ScriptedModel([[assistant_message("Hello from the script.")]] * count)


def _canned(body: bytes) -> bytes:
    """Return the exact bytes ScriptedServer answers ``body`` with."""
    server = ScriptedServer(_script(1)).start()
    try:
        return _exchange(int(server.url.rpartition(":")[2]), _request(body))
    finally:
        server.close()


class _Floor(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the listen backlog ScriptedServer uses (the stdlib's is 5)
    canned = b""


class _FloorHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.wfile.write(self.server.canned)  # type: ignore[attr-defined]
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class _Served:
    """Start one side for a sample: ours with a fresh script, or the floor with its bytes."""

    def __init__(self, ours: bool, requests: int, canned: bytes) -> None:
        self.ours = ours
        if ours:
            self.server: Any = ScriptedServer(_script(requests)).start()
            self.port = int(self.server.url.rpartition(":")[2])
        else:
            floor = _Floor(("127.0.0.1", 0), _FloorHandler)
            floor.canned = canned
            self.server = floor
            self.thread = threading.Thread(target=floor.serve_forever, args=(0.05,))
            self.thread.start()
            self.port = floor.server_address[1]

    def close(self) -> None:
        if self.ours:
            self.server.close()
            self.server.assert_complete()
        else:
            self.server.shutdown()
            self.thread.join()
            self.server.server_close()


def _clients(port: int, data: bytes, clients: int, each: int) -> list[float]:
    """Run ``clients`` threads of ``each`` requests; return every request's wall latency."""
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(clients)

    def run() -> None:
        start.wait()
        mine: list[float] = []
        for _ in range(each):
            began = time.perf_counter()
            answer = _exchange(port, data)
            mine.append(time.perf_counter() - began)
            assert answer.startswith(b"HTTP/1.1 200 "), answer[:100]
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def _cpu_per_request(ours: bool, canned: bytes, data: bytes, clients: int, total: int) -> float:
    total -= total % clients
    served = _Served(ours, total, canned)
    try:
        return cpu_seconds(lambda: _clients(served.port, data, clients, total // clients)) / total
    finally:
        served.close()


def _openai_cpu_per_request(ours: bool, canned: bytes, clients: int, total: int) -> float:
    """CPU per ``chat.completions.create`` of the real openai client, ``clients`` threads."""
    import openai

    total -= total % clients
    served = _Served(ours, total, canned)
    base_url = f"http://127.0.0.1:{served.port}/v1"
    made = [openai.OpenAI(base_url=base_url, api_key="k", max_retries=0) for _ in range(clients)]
    start = threading.Barrier(clients)

    def run(client: Any) -> None:
        start.wait()
        for _ in range(total // clients):
            reply = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}]
            )
            assert reply.choices[0].message.content == "Hello from the script."

    threads = [threading.Thread(target=run, args=(client,)) for client in made]

    def requests() -> None:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    try:
        return cpu_seconds(requests) / total
    finally:
        for client in made:
            client.close()
        served.close()


def openai_rows(repeats: int, total: int) -> list[Row]:
    """The issue's measure: through the real openai client, one and 8 concurrent clients."""
    canned = _canned(PLAIN)
    return [
        compare(
            GROUP,
            f"openai chat.completions.create, {clients} client{'s' * (clients > 1)} "
            "(CPU per request)",
            "stdlib ThreadingHTTPServer sending the same bytes",
            lambda c=clients: _openai_cpu_per_request(True, canned, c, total),  # type: ignore[misc]
            lambda c=clients: _openai_cpu_per_request(False, canned, c, total),  # type: ignore[misc]
            repeats=repeats,
            goal="<= 1.1",
        )
        for clients in (1, 8)
    ]


def _side(ours: bool, canned: bytes, data: bytes, clients: int, total: int) -> Callable[[], float]:
    return lambda: _cpu_per_request(ours, canned, data, clients, total)


def cpu_rows(repeats: int, total: int) -> list[Row]:
    """The servers alone, behind a raw-socket client: no goal (see bench/README.md).

    Here the floor does no work but sending given bytes, so these rows show what the scripted
    endpoint itself costs (parsing, the scripted step, rendering, recording); the goal is set
    on what a test pays, through the openai client (``openai_rows``).
    """
    rows: list[Row] = []
    for label, body in (("plain", PLAIN), ("streamed", STREAMED)):
        canned, data = _canned(body), _request(body)
        for clients in (1, 8):
            rows.append(
                compare(
                    GROUP,
                    f"chat completion, {label}, {clients} client{'s' * (clients > 1)} "
                    "(CPU per request)",
                    "stdlib ThreadingHTTPServer sending the same bytes",
                    _side(True, canned, data, clients, total),
                    _side(False, canned, data, clients, total),
                    repeats=repeats,
                )
            )
    return rows


def load_rows(repeats: int, clients: int, total: int) -> list[Row]:
    """p50/p99 latency and requests per second, 50 concurrent streamed clients."""
    canned, data = _canned(STREAMED), _request(STREAMED)
    samples: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}

    total -= total % clients

    def sample(ours: bool) -> None:
        served = _Served(ours, total, canned)
        try:
            began = time.perf_counter()
            latencies = sorted(_clients(served.port, data, clients, total // clients))
            wall = time.perf_counter() - began
        finally:
            served.close()
        p50 = statistics.median(latencies)
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        samples[ours].append((p50, p99, len(latencies) / wall))

    sample(True)
    sample(False)  # warm-ups, not kept
    samples[True].clear()
    samples[False].clear()
    for repeat in range(repeats):
        for ours in (True, False) if repeat % 2 == 0 else (False, True):
            sample(ours)
    rows: list[Row] = []
    for index, (measure, unit) in enumerate(
        (("p50 latency", "s"), ("p99 latency", "s"), ("requests per second", "req/s"))
    ):
        ours_value = statistics.median(s[index] for s in samples[True])
        base_value = statistics.median(s[index] for s in samples[False])
        rows.append(
            Row(
                GROUP,
                f"{clients} concurrent streamed clients, {total} requests: {measure} (wall)",
                "stdlib ThreadingHTTPServer sending the same bytes",
                ours_value,
                base_value,
                unit,
                ours_value / base_value,
            )
        )
    return rows


def rows(quick: bool) -> list[Row]:
    if counting_instructions():
        # Wall-clock latency means nothing under callgrind (about 50x slower, one thread at a
        # time), so the load rows are left out; counts repeat, so one repeat.
        return openai_rows(1, 8 if quick else 16) + cpu_rows(1, 8 if quick else 16)
    if quick:
        return openai_rows(1, 16) + cpu_rows(1, 16) + load_rows(1, 50, 100)
    return openai_rows(7, 200) + cpu_rows(7, 400) + load_rows(5, 50, 2_000)
