"""``ScriptedServer`` under load, and over many start/close cycles with clients connected.

Every loop here is bounded in count; reads have socket timeouts and joins a hang guard, so a
regression fails the test instead of freezing it. No assertion is about elapsed time.
"""

from __future__ import annotations

import json
import os
import threading

from agents_testing import ScriptedModel, assistant_message, model_stream
from agents_testing.wire import ScriptedServer

from ._raw import TIMEOUT, connect, parse, read_all, request
from .test_server import HANG_GUARD, GatedSource, finishes, open_stream, read_until

CLIENTS = 50
REQUESTS = 2_000
STREAMED_CHAT = json.dumps(
    {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
).encode()


def test_50_concurrent_streamed_clients_make_2000_requests_each_taking_one_step() -> None:
    model = ScriptedModel([[assistant_message(f"answer {n}")] for n in range(REQUESTS)])
    texts: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client(url: str) -> None:
        start.wait(TIMEOUT)  # all 50 connect at once
        for _ in range(REQUESTS // CLIENTS):
            try:
                answer = parse(
                    _exchange(url, request("POST", "/v1/chat/completions", STREAMED_CHAT))
                )
                assert answer.status == 200, answer
                assert answer.headers["transfer-encoding"] == "chunked"
                events = [
                    json.loads(line.removeprefix(b"data: "))
                    for line in answer.body.split(b"\n\n")
                    if line.startswith(b"data: {")
                ]
                text = "".join(
                    event["choices"][0]["delta"].get("content") or ""
                    for event in events
                    if event["choices"]
                )
                with lock:
                    texts.append(text)
            except BaseException as error:  # a connection error is the failure we look for
                with lock:
                    failures.append(error)

    with ScriptedServer(model) as server:
        threads = [threading.Thread(target=client, args=(server.url,)) for _ in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(HANG_GUARD * 10)
        assert not any(thread.is_alive() for thread in threads)

    assert failures == []
    # Every request took exactly one step: each answer is a different step's text.
    assert sorted(texts) == sorted(f"answer {n}" for n in range(REQUESTS))
    assert len(model.calls) == REQUESTS
    assert sorted(r.index for r in server.requests) == list(range(REQUESTS))
    assert {r.status for r in server.requests} == {200}


def _exchange(url: str, data: bytes) -> bytes:
    with connect(url) as sock:
        sock.sendall(data)
        return read_all(sock)


def test_200_servers_closed_with_clients_connected_leave_no_thread_socket_or_fd() -> None:
    threads_before = set(threading.enumerate())
    fds_before = set(os.listdir("/proc/self/fd"))

    for _ in range(200):
        source = GatedSource()
        server = ScriptedServer(ScriptedModel([model_stream(source.events())])).start()
        idle = connect(server.url)
        half = connect(server.url)
        half.sendall(b'POST /v1/responses HTTP/1.1\r\ncontent-length: 100\r\n\r\n{"mod')
        gated = open_stream(server.url)
        read_until(gated, b"before")  # the stream is running and waiting on its gate

        assert finishes(server.close)
        assert source.closed.is_set()
        # The server hung up on each client: every read ends.
        assert (read_all(idle), read_all(half)) == (b"", b"")
        read_all(gated)
        for sock in (idle, half, gated):
            sock.close()

    assert set(threading.enumerate()) - threads_before == set()
    assert set(os.listdir("/proc/self/fd")) - fds_before == set()
