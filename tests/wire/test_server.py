"""``ScriptedServer``: a loopback server that leaves no thread or socket behind."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading

import pytest

from agents_testing import ScriptedModel, UnexpectedModelCallError, assistant_message
from agents_testing.wire import ScriptedServer

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
    from agents_testing import UnconsumedModelStepsError

    model = ScriptedModel([[assistant_message("a")], [assistant_message("unused")]])

    with pytest.raises(UnconsumedModelStepsError) as caught, model, ScriptedServer(model) as server:
        post(server.url, "/v1/chat/completions", CHAT)

    assert caught.value.remaining_steps == 1
    assert server.requests[0].status == 200
    with pytest.raises(RuntimeError):  # the server closed before the model was checked
        _ = server.url
