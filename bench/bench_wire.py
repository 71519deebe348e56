"""Wire rows: the real openai and anthropic clients on the in-process transport.

The floor is what a user could write by hand: ``httpx.MockTransport`` returning the exact
bytes our transport produced for the same request (recorded once, before timing). respx,
which matches the request to a route and records the call, is the second baseline where
the client is built on ``httpx`` (the anthropic SDK is built on the ``httpx2`` fork, which
respx does not patch).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

from _harness import Row, compare, counting_instructions, cpu_seconds

from agents_testing import ScriptedModel, function_call, model_stream

GROUP = "wire"
OPENAI_URL = "http://scripted.invalid/v1"
ANTHROPIC_URL = "http://scripted.invalid"
TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CHAT_TOOL = {"type": "function", "function": {k: v for k, v in TOOL.items() if k != "type"}}
ANTHROPIC_TOOL = {"name": "get_weather", "input_schema": TOOL["parameters"]}
WEATHER = function_call("get_weather", {"city": "Tokyo"}, call_id="call_1")


# -- the calls a client makes ------------------------------------------------------------


def responses_call(client: Any) -> Any:
    return client.responses.create(model="gpt-test", input="Weather in Tokyo?", tools=[TOOL])


def chat_call(client: Any) -> Any:
    return client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "Weather?"}], tools=[CHAT_TOOL]
    )


def anthropic_call(client: Any) -> Any:
    return client.messages.create(
        model="claude-test",
        max_tokens=256,
        messages=[{"role": "user", "content": "Weather?"}],
        tools=[ANTHROPIC_TOOL],
    )


def responses_stream(client: Any) -> Any:
    stream = client.responses.create(model="gpt-test", input="Tell me.", stream=True)
    return sum(1 for _ in stream)


def chat_stream(client: Any) -> Any:
    stream = client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "Tell me."}], stream=True
    )
    return sum(1 for _ in stream)


def anthropic_stream(client: Any) -> Any:
    with client.messages.stream(
        model="claude-test", max_tokens=256, messages=[{"role": "user", "content": "Tell me."}]
    ) as stream:
        return sum(1 for _ in stream)


def deltas(count: int) -> list[Any]:
    """A model_stream step's events: ``count`` text deltas, then the completion."""
    events: list[Any] = [{"type": "response_started"}]
    events += [
        {"type": "output_text_delta", "item_id": "msg_1", "delta": f"word{index} "}
        for index in range(count)
    ]
    events.append({"type": "response_done", "response": {"output": [], "usage": None}})
    return events


# -- clients ------------------------------------------------------------------------------


class Side:
    """One way of serving one kind of request: build a client, then run n calls on it."""

    def __init__(self, sdk: str, make_transport: Callable[[int], Any]) -> None:
        self.sdk = sdk
        self.make_transport = make_transport

    def client(self, transport: Any) -> Any:
        if self.sdk == "anthropic":
            import anthropic
            import httpx2

            return anthropic.Anthropic(
                base_url=ANTHROPIC_URL,
                api_key="k",
                max_retries=0,
                http_client=httpx2.Client(transport=transport),
            )
        import httpx
        import openai

        return openai.OpenAI(
            base_url=OPENAI_URL,
            api_key="k",
            max_retries=0,
            http_client=httpx.Client(transport=transport),
        )


def scripted(step: Callable[[], Any]) -> Callable[[int], Any]:
    from agents_testing.adapters.httpx import scripted_transport

    def make(calls: int) -> Any:
        return scripted_transport(ScriptedModel([step() for _ in range(calls)]))

    return make


def canned(http: Any, sdk: str, step: Callable[[], Any], call: Callable[[Any], Any]) -> Any:
    """Record the status, headers and body chunks our transport sent for one call."""
    from agents_testing.adapters.httpx import scripted_transport

    transport = scripted_transport(ScriptedModel([step()]))
    answers: list[Any] = []

    class Recording(http.BaseTransport):  # type: ignore[misc,name-defined]
        def handle_request(self, request: Any) -> Any:
            response = transport.handle_request(request)
            chunks = list(response.stream)
            response.close()
            answers.append((response.status_code, list(response.headers.multi_items()), chunks))
            return http.Response(
                response.status_code, headers=answers[-1][1], content=b"".join(chunks)
            )

    client = Side(sdk, lambda _: None).client(Recording())
    call(client)
    client.close()
    return answers[0]


def floor(http: Any, answer: Any) -> Callable[[int], Any]:
    status, headers, chunks = answer

    def handler(request: Any) -> Any:
        request.read()
        if len(chunks) == 1:
            return http.Response(status, headers=headers, content=chunks[0])
        return http.Response(status, headers=headers, content=iter(chunks))

    return lambda _calls: http.MockTransport(handler)


def respx_side(answer: Any, path: str) -> Callable[[int], Any]:
    import httpx
    import respx

    status, headers, chunks = answer

    def make(_calls: int) -> Any:
        router = respx.MockRouter(assert_all_called=False)
        router.post(OPENAI_URL + path).mock(
            side_effect=lambda request: httpx.Response(
                status, headers=headers, content=iter(chunks) if len(chunks) > 1 else chunks[0]
            )
        )
        return httpx.MockTransport(router.handler)

    return make


def per_call(side: Side, call: Callable[[Any], Any], calls: int) -> Callable[[], float]:
    def sample() -> float:
        client = side.client(side.make_transport(calls))

        def run() -> None:
            for _ in range(calls):
                call(client)

        seconds = cpu_seconds(run)
        client.close()
        return seconds / calls

    return sample


def request_rows(repeats: int, calls: int, stream_calls: int, stream_deltas: int) -> list[Row]:
    import httpx
    import httpx2

    plain = lambda: [WEATHER]  # noqa: E731
    streamed = lambda: model_stream(deltas(stream_deltas))  # noqa: E731
    cases = [
        (
            "openai responses.create, tool call",
            "openai",
            plain,
            responses_call,
            "/responses",
            "<= 1.1",
        ),
        (
            "openai chat.completions.create, tool call",
            "openai",
            plain,
            chat_call,
            "/chat/completions",
            "<= 1.1",
        ),
        (
            "anthropic messages.create, tool call",
            "anthropic",
            plain,
            anthropic_call,
            None,
            "<= 1.1",
        ),
        (
            f"Responses stream, {stream_deltas} deltas",
            "openai",
            streamed,
            responses_stream,
            "/responses",
            "<= 1.2",
        ),
        (
            f"Chat stream, {stream_deltas} deltas",
            "openai",
            streamed,
            chat_stream,
            "/chat/completions",
            "<= 1.2",
        ),
        (
            f"Anthropic stream, {stream_deltas} deltas",
            "anthropic",
            streamed,
            anthropic_stream,
            None,
            "<= 1.2",
        ),
    ]
    rows: list[Row] = []
    for measure, sdk, step, call, path, goal in cases:
        http = httpx2 if sdk == "anthropic" else httpx
        answer = canned(http, sdk, step, call)
        count = stream_calls if step is streamed else calls
        ours = per_call(Side(sdk, scripted(step)), call, count)
        rows.append(
            compare(
                GROUP,
                f"{measure} (per request)",
                "httpx.MockTransport returning our bytes (floor)",
                ours,
                per_call(Side(sdk, floor(http, answer)), call, count),
                repeats=repeats,
                goal=goal,
            )
        )
        if path is not None:
            rows.append(
                compare(
                    GROUP,
                    f"{measure} (per request)",
                    "respx route returning our bytes",
                    ours,
                    per_call(Side(sdk, respx_side(answer, path)), call, count),
                    repeats=repeats,
                )
            )
    return rows


# -- a long script ------------------------------------------------------------------------


def long_script_row(repeats: int, steps: int, window: int) -> Row:
    import httpx

    plain = lambda: [WEATHER]  # noqa: E731
    answer = canned(httpx, "openai", plain, responses_call)

    def ratio(make_transport: Callable[[int], Any]) -> Callable[[], float]:
        def sample() -> float:
            client = Side("openai", make_transport).client(make_transport(steps))

            def requests(count: int) -> None:
                for _ in range(count):
                    responses_call(client)

            first = cpu_seconds(lambda: requests(window))
            requests(steps - 2 * window)
            last = cpu_seconds(lambda: requests(window))
            client.close()
            return last / first

        return sample

    return compare(
        GROUP,
        f"{steps:,}-step script: time of the last {window} requests / the first {window}",
        "the same ratio for the floor",
        ratio(scripted(plain)),
        ratio(floor(httpx, answer)),
        repeats=repeats,
        unit="x",
        goal="ours <= 1.2 x",
        warm_up=not counting_instructions(),
    )


# -- memory kept ---------------------------------------------------------------------------


def kept_per_request(make_transport: Callable[[int], Any], calls: int) -> float:
    """Bytes still allocated per ``responses.create`` once ``calls`` of them have returned.

    What a side keeps is what it records (ours: the endpoint's and the model's records; respx:
    its route's calls); the floor keeps nothing. Measured with tracemalloc after a warm-up call,
    so imports and first-use caches are not counted.
    """
    client = Side("openai", make_transport).client(make_transport(calls + 1))
    responses_call(client)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(calls):
            responses_call(client)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        client.close()
    return kept / calls


def memory_row(calls: int) -> Row:
    import httpx

    plain = lambda: [WEATHER]  # noqa: E731
    answer = canned(httpx, "openai", plain, responses_call)
    ours = kept_per_request(scripted(plain), calls) / 1e3
    respx = kept_per_request(respx_side(answer, "/responses"), calls) / 1e3
    return Row(
        GROUP,
        f"memory kept per recorded responses.create, {calls} requests (tracemalloc)",
        "respx route returning our bytes",
        ours,
        respx,
        "KB",
        ours / respx,
        "<= 1.0",
    )


def tracked_per_request(make_transport: Callable[[int], Any], calls: int) -> float:
    """Objects the garbage collector tracks, kept per ``responses.create`` (after a warm-up).

    Every object a recorder keeps is one more for each full collection to walk, and brings the
    next one closer: in time, that is the part of recording's cost that grows with the test
    process's heap, which the instruction counts (each block starts with the heap frozen)
    leave out. The floor keeps none.
    """
    client = Side("openai", make_transport).client(make_transport(calls + 1))
    responses_call(client)
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(calls):
        responses_call(client)
    gc.collect()  # also untracks the kept dicts that hold only atomic values, as a collection does
    kept = len(gc.get_objects()) - before
    client.close()
    return kept / calls


def tracked_row(calls: int) -> Row:
    import httpx

    plain = lambda: [WEATHER]  # noqa: E731
    answer = canned(httpx, "openai", plain, responses_call)
    ours = tracked_per_request(scripted(plain), calls)
    respx = tracked_per_request(respx_side(answer, "/responses"), calls)
    return Row(
        GROUP,
        f"objects tracked by the garbage collector, kept per recorded responses.create, "
        f"{calls} requests",
        "respx route returning our bytes",
        ours,
        respx,
        "objects",
        ours / respx,
        "<= 1.0",
    )


def rows(quick: bool) -> list[Row]:
    if counting_instructions():
        # Counts repeat, so one repeat, at small sizes: callgrind runs these rows about 100x
        # slower. An exact count shows a per-request cost that grows with the script's length
        # at 200 steps as surely as a noisy time does at 10,000.
        return [
            *request_rows(1, 2 if quick else 5, 1, 20 if quick else 200),
            long_script_row(1, 60 if quick else 200, 10 if quick else 20),
            memory_row(20 if quick else 50),
            tracked_row(20 if quick else 50),
        ]
    repeats = 1 if quick else 7
    return [
        *request_rows(repeats, 20 if quick else 300, 5 if quick else 30, 20 if quick else 200),
        long_script_row(1 if quick else 3, 200 if quick else 10_000, 20 if quick else 100),
        memory_row(20 if quick else 500),
        tracked_row(20 if quick else 500),
    ]
