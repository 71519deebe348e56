"""Requests the endpoint refuses, and scripts that fail, with the real clients retrying.

No such request may take a step, and none may be retried into a pass: each is answered with
a non-retryable 400 (``x-should-retry: false``) and recorded, so ``assert_complete()`` fails.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx")
try:  # anthropic >= 2 is built on the httpx2 fork and accepts only its clients
    import httpx2 as httpx_for_anthropic
except ImportError:
    import httpx as httpx_for_anthropic  # type: ignore[no-redef]  # anthropic < 2

from agents_testing import (  # noqa: E402 - after the skips above
    RecordedModelCall,
    ScriptedModel,
    WireRequestError,
    assistant_message,
    model_error,
    model_responder,
    model_stream,
    model_stream_responder,
)
from agents_testing.adapters.httpx import scripted_transport  # noqa: E402
from agents_testing.wire import ScriptedEndpoint  # noqa: E402
from agents_testing.wire._endpoint import MAX_BODY_DEPTH  # noqa: E402

from ._clients import Provider, statuses  # noqa: E402

OPENAI = Provider(openai.OpenAI, openai.AsyncOpenAI, httpx, "/v1", "sk-test")
ANTHROPIC = Provider(anthropic.Anthropic, anthropic.AsyncAnthropic, httpx_for_anthropic, "", "k")
PATHS = ["/v1/responses", "/v1/chat/completions", "/v1/messages"]


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def expect_violation(endpoint: ScriptedEndpoint, reason: str) -> WireRequestError:
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    assert caught.value.reason == reason
    return caught.value


# -- item 1 and 2: bodies nested too deep --------------------------------------------------


@pytest.mark.parametrize("path", PATHS)
def test_a_body_too_deep_to_parse_is_a_recorded_400_that_takes_no_step(path: str) -> None:
    model = ScriptedModel([[assistant_message("never sent")]])
    transport = scripted_transport(model)
    with httpx.Client(transport=transport, base_url="http://scripted.invalid") as client:
        reply = client.post(path, content=b"[" * 10_000 + b"]" * 10_000)

    assert reply.status_code == 400
    assert reply.headers["x-should-retry"] == "false"
    assert "too deep" in reply.text
    assert model.remaining_steps == 1
    assert model.calls == ()
    error = expect_violation(transport.endpoint, "too_deep")
    assert (error.request_index, error.method, error.path) == (0, "POST", path)
    assert "nested at most 256 levels deep" in str(error)  # says what to fix
    assert error.detail == "the body nests more than 256 levels deep"


@pytest.mark.parametrize("depth", [MAX_BODY_DEPTH, 600, 900])
def test_a_deeply_nested_field_is_refused_not_a_retried_500(mode: str, depth: int) -> None:
    model = ScriptedModel([[assistant_message("never sent")]])
    with (
        OPENAI.connect(model, mode, max_retries=2) as (client, endpoint),
        pytest.raises(openai.BadRequestError) as caught,
    ):
        client.responses.create(
            model="gpt-test", input="hi", extra_body={"metadata": {"deep": nested(depth)}}
        )

    assert "too deep" in str(caught.value)
    assert statuses(endpoint) == [400]  # not retried
    assert model.remaining_steps == 1
    error = expect_violation(endpoint, "too_deep")
    assert error.detail == f"the body nests {depth + 2} levels deep, more than the 256 served"


def test_a_body_at_the_depth_limit_is_served() -> None:
    model = ScriptedModel([[assistant_message("ok")]])
    endpoint = ScriptedEndpoint(model)
    # The body object is level one: this one is exactly MAX_BODY_DEPTH levels deep.
    body = {"model": "m", "input": "hi", "metadata": nested(MAX_BODY_DEPTH - 2)}

    response = endpoint.handle("POST", "/v1/responses", [], json.dumps(body).encode())

    assert response.status == 200
    endpoint.assert_complete()


# -- item 11: a script that fails is a test failure, never retried into a pass -------------


def asserting_script() -> ScriptedModel:
    def respond(call: RecordedModelCall) -> list[Any]:
        assert call.request.input == "expected", "the agent sent the wrong input"
        return [assistant_message("first")]

    # A retry would take the second step and pass: it must not happen.
    return ScriptedModel([model_responder(respond), [assistant_message("retried into a pass")]])


def ask_openai(client: Any, prompt: str, *, stream: bool) -> None:
    """The code under test: one Responses call, streamed or not."""
    if not stream:
        client.responses.create(model="gpt-test", input=prompt)
        return
    with client.responses.stream(model="gpt-test", input=prompt) as events:
        list(events)


def ask_anthropic(client: Any, prompt: str, *, stream: bool) -> None:
    """The code under test: one Messages call, streamed or not."""
    messages: Any = [{"role": "user", "content": prompt}]
    if not stream:
        client.messages.create(model="claude-test", max_tokens=16, messages=messages)
        return
    with client.messages.stream(model="claude-test", max_tokens=16, messages=messages) as events:
        events.get_final_text()


def chat_stream(client: Any) -> Any:
    return client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "hi"}], stream=True
    )


def check_script_error(endpoint: ScriptedEndpoint, model: ScriptedModel) -> None:
    assert statuses(endpoint) == [400]
    assert model.remaining_steps == 1
    with pytest.raises(WireRequestError) as caught:
        endpoint.assert_complete()
    error = caught.value
    assert (error.reason, error.request_index) == ("script_error", 0)
    assert "AssertionError: the agent sent the wrong input" in (error.detail or "")
    assert "fix the responder or stream" in str(error)
    # The script's own exception, with its traceback, is what pytest shows as the cause.
    assert isinstance(error.__cause__, AssertionError)
    assert "wrong input" in str(error.__cause__)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_openai_responses_client_does_not_retry_a_failed_assertion(mode: str, stream: bool) -> None:
    model = asserting_script()
    with (
        OPENAI.connect(model, mode, max_retries=2) as (client, endpoint),
        pytest.raises(openai.BadRequestError) as caught,
    ):
        ask_openai(client, "actual", stream=stream)

    assert "wrong input" in str(caught.value)
    check_script_error(endpoint, model)


def test_openai_chat_client_does_not_retry_a_failed_assertion(mode: str) -> None:
    model = asserting_script()
    with (
        OPENAI.connect(model, mode, max_retries=2) as (client, endpoint),
        pytest.raises(openai.BadRequestError),
    ):
        client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "actual"}]
        )

    check_script_error(endpoint, model)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_anthropic_client_does_not_retry_a_failed_assertion(mode: str, stream: bool) -> None:
    model = asserting_script()
    with (
        ANTHROPIC.connect(model, mode, max_retries=2) as (client, endpoint),
        pytest.raises(anthropic.BadRequestError),
    ):
        ask_anthropic(client, "actual", stream=stream)

    check_script_error(endpoint, model)


async def test_async_openai_client_does_not_retry_a_failed_assertion(mode: str) -> None:
    model = asserting_script()
    async with OPENAI.connect_async(model, mode, max_retries=2) as (client, endpoint):
        with pytest.raises(openai.BadRequestError):
            await client.responses.create(model="gpt-test", input="actual")

    check_script_error(endpoint, model)


def test_a_responder_bug_is_a_script_error_too(mode: str) -> None:
    def respond(call: RecordedModelCall) -> list[Any]:
        text: Any = call.request.input
        return [assistant_message(text + 1)]  # TypeError: a bug in the test

    model = ScriptedModel([model_responder(respond), [assistant_message("retried")]])
    with (
        OPENAI.connect(model, mode, max_retries=2) as (client, endpoint),
        pytest.raises(openai.BadRequestError),
    ):
        client.responses.create(model="gpt-test", input="hi")

    assert statuses(endpoint) == [400]
    error = expect_violation(endpoint, "script_error")
    assert isinstance(error.__cause__, TypeError)


def test_a_stream_source_that_asserts_before_its_first_event_is_not_retried(mode: str) -> None:
    def source(call: RecordedModelCall) -> Any:
        assert call.request.input == "expected", "the agent sent the wrong input"
        return [{"type": "response_done", "response": {"output": [assistant_message("x")]}}]

    model = ScriptedModel([model_stream_responder(source), [assistant_message("retried")]])
    with (
        OPENAI.connect(model, mode, max_retries=2) as (client, endpoint),
        pytest.raises(openai.BadRequestError),
    ):
        ask_openai(client, "actual", stream=True)

    check_script_error(endpoint, model)


def test_a_stream_source_that_asserts_midway_fails_the_stream_and_the_test(mode: str) -> None:
    def source() -> Any:
        yield {"type": "output_text_delta", "item_id": None, "delta": "partial"}
        raise AssertionError("the agent sent the wrong input")

    model = ScriptedModel([model_stream(source())])
    with (
        OPENAI.connect(model, mode, max_retries=2) as (client, endpoint),
        pytest.raises(openai.APIError) as caught,
    ):
        list(chat_stream(client))

    assert "wrong input" in str(caught.value)
    assert statuses(endpoint) == [200]  # the status went out with the first event
    error = expect_violation(endpoint, "script_error")
    assert isinstance(error.__cause__, AssertionError)


def test_a_scripted_error_step_is_still_a_retryable_server_error(mode: str) -> None:
    model = ScriptedModel(
        [model_error(RuntimeError("backend exploded")), [assistant_message("ok")]]
    )
    with OPENAI.connect(model, mode, max_retries=1) as (client, endpoint):
        reply = client.responses.create(model="gpt-test", input="hi")

    assert reply.output_text == "ok"
    assert statuses(endpoint) == [500, 200]  # deliberate: the script asked for it
    endpoint.assert_complete()


# -- item 13: a plain step's text in several deltas ----------------------------------------


TEXT = "The weather in Tokyo is sunny."


def test_openai_responses_stream_reads_a_plain_step_in_several_deltas(mode: str) -> None:
    model = ScriptedModel([[assistant_message(TEXT)]], text_delta_size=4)
    # DSPy-like incremental reading: every text delta as it comes.
    with (
        OPENAI.connect(model, mode) as (client, _),
        client.responses.stream(model="gpt-test", input="hi") as events,
    ):
        deltas = [event.delta for event in events if event.type == "response.output_text.delta"]
        final = events.get_final_response()

    assert deltas == ["The ", "weat", "her ", "in T", "okyo", " is ", "sunn", "y."]
    assert "".join(deltas) == final.output_text == TEXT


def test_openai_chat_stream_reads_a_plain_step_in_several_deltas(mode: str) -> None:
    model = ScriptedModel([[assistant_message(TEXT)]], text_delta_size=10)
    with OPENAI.connect(model, mode) as (client, _):
        deltas = [
            chunk.choices[0].delta.content
            for chunk in chat_stream(client)
            if chunk.choices and chunk.choices[0].delta.content
        ]

    assert deltas == ["The weathe", "r in Tokyo", " is sunny."]


def test_anthropic_stream_reads_a_plain_step_in_several_deltas(mode: str) -> None:
    model = ScriptedModel([[assistant_message(TEXT)]], text_delta_size=8)
    with (
        ANTHROPIC.connect(model, mode) as (client, _),
        client.messages.stream(
            model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as events,
    ):
        deltas = list(events.text_stream)
        final = events.get_final_text()

    assert deltas == ["The weat", "her in T", "okyo is ", "sunny."]
    assert "".join(deltas) == final == TEXT


def test_one_delta_per_text_stays_the_default() -> None:
    model = ScriptedModel([[assistant_message(TEXT)]])
    transport = scripted_transport(model)
    client = openai.OpenAI(
        base_url="http://scripted.invalid/v1",
        api_key="k",
        http_client=httpx.Client(transport=transport),
    )
    with client.responses.stream(model="gpt-test", input="hi") as events:
        deltas = [event.delta for event in events if event.type == "response.output_text.delta"]

    assert deltas == [TEXT]
    client.close()


@pytest.mark.parametrize(
    ("size", "error"), [(0, ValueError), (-3, ValueError), (True, TypeError), ("4", TypeError)]
)
def test_text_delta_size_is_checked(size: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="text_delta_size"):
        ScriptedModel([], text_delta_size=size)
