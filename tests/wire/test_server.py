"""``ScriptedServer``: a loopback server that leaves no thread or socket behind."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from agents_testing import (
    ScriptedModel,
    UnconsumedModelStepsError,
    UnexpectedModelCallError,
    WireRequestError,
    assistant_message,
    model_stream,
)
from agents_testing.wire import ScriptedServer

from ._raw import reset

CHAT = {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]}


def post(url: str, path: str, body: object) -> tuple[int, bytes]:
    host, _, port = url.removeprefix("http://").partition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(
            "POST",
            path,
            json.dumps(body),
            {"content-type": "application/json", "authorization": "Bearer sk-secret"},
        )
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_serves_a_scripted_answer_on_127_0_0_1() -> None:
    model = ScriptedModel([[assistant_message("Hello")]])

    with ScriptedServer(model) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.base_url == f"{server.url}/v1"
        status, body = post(server.url, "/v1/chat/completions", CHAT)

    assert status == 200
    assert json.loads(body)["choices"][0]["message"]["content"] == "Hello"
    assert [(r.status, r.path) for r in server.requests] == [(200, "/v1/chat/completions")]
    server.assert_complete()


def test_streams_with_chunked_encoding() -> None:
    model = ScriptedModel([[assistant_message("Hello")]])

    with ScriptedServer(model) as server:
        status, body = post(server.url, "/v1/chat/completions", {**CHAT, "stream": True})

    assert status == 200
    assert body.endswith(b"data: [DONE]\n\n")


def test_close_leaves_no_thread_and_no_listening_socket() -> None:
    before = set(threading.enumerate())
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])

    with ScriptedServer(model) as server:
        url = server.url
        post(url, "/v1/chat/completions", CHAT)
        post(url, "/v1/chat/completions", CHAT)

    assert set(threading.enumerate()) - before == set()
    port = int(url.rpartition(":")[2])
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))


def test_async_with_serves_and_closes() -> None:
    before = set(threading.enumerate())
    model = ScriptedModel([[assistant_message("Hello")]])

    async def run() -> int:
        async with ScriptedServer(model) as server:
            status, _ = await asyncio.to_thread(
                post, server.url, "/v1/responses", {"model": "m", "input": "hi"}
            )
            return status

    assert asyncio.run(run()) == 200
    assert set(threading.enumerate()) - before == set()
    model.assert_complete()


def test_concurrent_requests_each_take_one_step() -> None:
    model = ScriptedModel([[assistant_message(str(n))] for n in range(4)])

    with ScriptedServer(model) as server:
        threads = [
            threading.Thread(target=post, args=(server.url, "/v1/chat/completions", CHAT))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert sorted(r.index for r in server.requests) == [0, 1, 2, 3]
    model.assert_complete()


def test_violation_inside_the_server_fails_assert_complete() -> None:
    server = ScriptedServer(ScriptedModel([])).start()
    try:
        status, _ = post(server.url, "/v1/chat/completions", CHAT)
    finally:
        server.close()

    assert status == 400
    with pytest.raises(UnexpectedModelCallError) as caught:
        server.assert_complete()
    assert caught.value.call_index == 0


def test_url_before_start_says_to_start_it() -> None:
    server = ScriptedServer(ScriptedModel([]))

    with pytest.raises(RuntimeError, match="use it in a with block"):
        _ = server.url
    assert "stopped" in repr(server)


def test_starting_twice_is_an_error() -> None:
    with ScriptedServer(ScriptedModel([])) as server, pytest.raises(RuntimeError):
        server.start()


def test_entering_the_model_with_the_server_checks_it_after_the_server_closes() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("unused")]])

    with pytest.raises(UnconsumedModelStepsError) as caught, model, ScriptedServer(model) as server:
        post(server.url, "/v1/chat/completions", CHAT)

    assert caught.value.remaining_steps == 1
    assert server.requests[0].status == 200
    with pytest.raises(RuntimeError):  # the server closed before the model was checked
        _ = server.url


# -- closing never waits on a client (items 7 and 10) ----------------------------------------


def finishes(run: Callable[[], object]) -> bool:
    """Run ``run`` in a thread; return whether it finished.

    A hang guard, not a timing bound: what it guards takes milliseconds, the guard allows
    far more than any slow machine needs, and a hang fails the test instead of freezing it.
    """
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_GUARD)
    return not worker.is_alive()


HANG_GUARD = 20.0


def raw_connection(url: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", int(url.rpartition(":")[2])), timeout=10)


def test_close_does_not_wait_for_idle_or_half_sent_clients() -> None:
    model = ScriptedModel([[assistant_message("unused")]])
    server = ScriptedServer(model).start()
    idle = raw_connection(server.url)
    half = raw_connection(server.url)
    half.sendall(b'POST /v1/responses HTTP/1.1\r\ncontent-length: 500\r\n\r\n{"model"')
    headers_only = raw_connection(server.url)
    headers_only.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\n")
    # Each connection has reached the server before it closes.
    post(server.url, "/v1/chat/completions", CHAT)

    with idle, half, headers_only:
        assert finishes(server.close)
        # The server closed every connection: each client reads the end of its stream.
        assert [sock.recv(100) for sock in (idle, half, headers_only)] == [b"", b"", b""]
    assert len(model.calls) == 1
    server.assert_complete()  # a request cut off by close() is not refused: it never ended


class GatedSource:
    """A ``model_stream`` source that sends one delta, then waits on a gate the documented way."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.closed = threading.Event()

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {"type": "output_text_delta", "item_id": None, "delta": "before"}
            # Poll the threading.Event with short sleeps: closing the server cancels the
            # sleep, so nothing waits on in a thread of its own.
            while not self.gate.is_set():  # noqa: ASYNC110 - set from another thread
                await asyncio.sleep(0.005)
            yield {"type": "output_text_delta", "item_id": None, "delta": "after"}
        finally:
            self.closed.set()


def open_stream(url: str) -> socket.socket:
    sock = raw_connection(url)
    body = json.dumps({"model": "m", "input": "hi", "stream": True}).encode()
    head = f"POST /v1/responses HTTP/1.1\r\ncontent-length: {len(body)}\r\n\r\n"
    sock.sendall(head.encode() + body)
    return sock


def test_close_cancels_a_stream_waiting_on_its_gate_and_closes_its_source() -> None:
    source = GatedSource()
    model = ScriptedModel([model_stream(source.events())])
    server = ScriptedServer(model).start()

    with open_stream(server.url) as sock:
        read_until(sock, b"before")
        assert finishes(server.close)
        assert source.closed.is_set()  # the source's finally ran inside close()
        assert not source.gate.is_set()


def test_close_cancels_a_stream_awaiting_forever() -> None:
    closed = threading.Event()

    async def events() -> AsyncIterator[dict[str, Any]]:
        try:
            yield {"type": "output_text_delta", "item_id": None, "delta": "before"}
            await asyncio.Event().wait()  # nothing ever sets it
        finally:
            closed.set()

    server = ScriptedServer(ScriptedModel([model_stream(events())])).start()
    with open_stream(server.url) as sock:
        read_until(sock, b"before")
        assert finishes(server.close)
    assert closed.is_set()


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    seen = b""
    while marker not in seen:
        data = sock.recv(65536)
        assert data, f"the connection ended before {marker!r}: {seen!r}"
        seen += data
    return seen


# -- a client going away prints nothing (item 6) ---------------------------------------------


def test_clients_disconnecting_mid_request_or_mid_answer_print_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    sources = [GatedSource(), GatedSource()]
    model = ScriptedModel([*(model_stream(s.events()) for s in sources), [assistant_message("ok")]])
    errors: list[str] = []
    hooks = threading.excepthook, sys.unraisablehook
    threading.excepthook = lambda args: errors.append(repr(args.exc_value))
    sys.unraisablehook = lambda args: errors.append(repr(args.exc_value))
    try:
        with ScriptedServer(model) as server:
            for source in sources:
                sock = open_stream(server.url)
                read_until(sock, b"before")
                reset(sock)  # mid-answer
                source.gate.set()  # the server now writes to a connection that is gone
                assert source.closed.wait(HANG_GUARD)
            half = raw_connection(server.url)
            half.sendall(b"POST /v1/responses HTTP/1.1\r\ncontent-length: 99\r\n\r\n{")
            reset(half)  # mid-request
            status, _ = post(server.url, "/v1/chat/completions", CHAT)  # still serving
    finally:
        threading.excepthook, sys.unraisablehook = hooks

    _, err = capfd.readouterr()
    assert (err, errors) == ("", [])
    assert status == 200
    assert [r.status for r in server.requests] == [200, 200, 200]


# -- the listen backlog (item 9) -------------------------------------------------------------


def test_the_listen_backlog_holds_128_pending_connections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backlogs: list[int] = []
    listen = socket.socket.listen

    def recording_listen(self: socket.socket, backlog: int = 128) -> None:
        backlogs.append(backlog)
        listen(self, backlog)

    monkeypatch.setattr(socket.socket, "listen", recording_listen)
    with ScriptedServer(ScriptedModel([])):
        pass

    assert backlogs
    assert min(backlogs) >= 128


# -- leaving the block checks the script (item 12) -------------------------------------------


def test_leaving_the_block_reports_unused_steps() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("unused")]])

    with pytest.raises(UnconsumedModelStepsError) as caught, ScriptedServer(model) as server:
        post(server.url, "/v1/chat/completions", CHAT)

    assert caught.value.remaining_steps == 1
    with pytest.raises(RuntimeError, match="use it in a with block"):  # closed before the check
        _ = server.url


def test_leaving_the_block_reports_a_request_the_server_refused() -> None:
    model = ScriptedModel([[assistant_message("a")]])

    def run() -> None:
        with ScriptedServer(model) as server:
            post(server.url, "/v1/chat/completions", CHAT)
            with raw_connection(server.url) as sock:
                sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: x\r\n\r\n")
                sock.shutdown(socket.SHUT_WR)
                while sock.recv(65536):
                    pass

    with pytest.raises(WireRequestError) as caught:
        run()

    assert (caught.value.reason, caught.value.path) == ("malformed_request", "/v1/chat/completions")


def test_leaving_the_block_with_an_error_keeps_that_error() -> None:
    model = ScriptedModel([[assistant_message("never used")]])

    with pytest.raises(KeyError, match="the block's own failure"), ScriptedServer(model):
        raise KeyError("the block's own failure")

    assert model.calls == ()


def test_a_clean_block_passes() -> None:
    model = ScriptedModel([[assistant_message("a")]])

    with ScriptedServer(model) as server:
        post(server.url, "/v1/chat/completions", CHAT)

    assert [r.status for r in server.requests] == [200]


def test_leaving_async_with_reports_unused_steps_and_keeps_a_block_error() -> None:
    async def unused() -> None:
        async with ScriptedServer(ScriptedModel([[assistant_message("unused")]])):
            pass

    async def failing() -> None:
        async with ScriptedServer(ScriptedModel([[assistant_message("unused")]])):
            raise LookupError("mine")

    with pytest.raises(UnconsumedModelStepsError):
        asyncio.run(unused())
    with pytest.raises(LookupError, match="mine"):
        asyncio.run(failing())


def test_a_client_resetting_a_stream_closes_its_waiting_source_at_once() -> None:
    source = GatedSource()
    model = ScriptedModel([model_stream(source.events())])

    with ScriptedServer(model) as server:
        sock = open_stream(server.url)
        read_until(sock, b"before")
        # The gate is never set: only the client's leaving can end the source. A reset
        # tells the server at once (a plain close shows when the next chunk is written).
        reset(sock)
        assert source.closed.wait(HANG_GUARD)

    assert not source.gate.is_set()
    assert [r.status for r in server.requests] == [200]
