"""Token usage on the Anthropic wire: its ``input_tokens`` leaves the cache out, ours holds it.

The core's ``Usage.input_tokens`` counts the cached tokens too (``input_tokens_details``
says how many); Anthropic's ``input_tokens`` counts only the uncached input, and a client
adds ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` to get the total. The
endpoint renders one into the other and the readback turns a recorded answer back.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents_testing import (
    ModelResponse,
    ScriptedModel,
    Usage,
    assistant_message,
    model_response,
)
from agents_testing.wire import ScriptedEndpoint
from agents_testing.wire._readback import read_answer

FORMAT = "anthropic.messages"
REQUEST: dict[str, Any] = {
    "model": "claude-test",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "Hi"}],
}


def scripted(usage: Usage) -> ScriptedModel:
    return ScriptedModel([model_response(ModelResponse([assistant_message("Hi.")], usage))])


def answer(model: ScriptedModel, *, stream: bool) -> str:
    """The endpoint's answer text to one Messages request."""
    response = ScriptedEndpoint(model).handle(
        "POST",
        "/v1/messages",
        [("Content-Type", "application/json")],
        json.dumps({**REQUEST, "stream": stream}).encode(),
    )
    assert response.status == 200
    return response.body.decode()


def sent_usages(text: str, *, stream: bool) -> list[Any]:
    """The usage of the message body, or of each stream event that carries one."""
    if not stream:
        return [json.loads(text)["usage"]]
    usages: list[Any] = []
    for line in text.splitlines():
        if not line.startswith("data: "):
            continue
        data = json.loads(line[len("data: ") :])
        if data["type"] == "message_start":
            usages.append(data["message"]["usage"])
        elif data["type"] == "message_delta":
            usages.append(data["usage"])
    return usages


def read_usage(text: str, *, stream: bool) -> Usage | None:
    read = read_answer(FORMAT, 200, [], text, streamed=stream)
    assert read is not None
    assert read.kind == "response"
    return read.usage


def cached_usage(inputs: int, cached: int, outputs: int = 8) -> Usage:
    details = {"cached_tokens": cached} if cached else None
    return Usage(input_tokens=inputs, output_tokens=outputs, input_tokens_details=details)


# -- render --------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
def test_the_sent_input_tokens_leave_out_the_cached_tokens_the_cache_read_holds(
    stream: bool,
) -> None:
    text = answer(scripted(cached_usage(9, 3)), stream=stream)

    usage = {
        "input_tokens": 6,
        "output_tokens": 8,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 3,
    }
    start = dict.fromkeys(usage, 0)  # message_start: nothing counted yet
    assert sent_usages(text, stream=stream) == ([start, usage] if stream else [usage])


@pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
def test_more_cached_than_input_tokens_sends_no_uncached_input_rather_than_a_negative(
    stream: bool,
) -> None:
    text = answer(scripted(cached_usage(2, 5)), stream=stream)

    last = sent_usages(text, stream=stream)[-1]
    assert last["input_tokens"] == 0
    assert last["cache_read_input_tokens"] == 5


# -- readback ------------------------------------------------------------------------------

RECORDED_USAGE = {
    "input_tokens": 6,
    "output_tokens": 8,
    "cache_creation_input_tokens": 2,
    "cache_read_input_tokens": 3,
}


def recorded_body(usage: dict[str, Any]) -> str:
    return json.dumps(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [{"type": "text", "text": "Hi."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
    )


def recorded_stream(usage: dict[str, Any]) -> str:
    """A stream as the API sends it: the input counts at the start, output at the end."""
    start_usage = {**usage, "output_tokens": 1}
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi."}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@pytest.mark.parametrize("stream", [False, True], ids=["body", "stream"])
def test_a_recorded_answer_reads_back_with_its_cache_reads_and_writes_in_the_input(
    stream: bool,
) -> None:
    text = (recorded_stream if stream else recorded_body)(RECORDED_USAGE)

    usage = read_usage(text, stream=stream)

    # 6 uncached + 3 read from the cache + 2 written to it; the cache reads are the cached.
    assert usage == Usage(
        input_tokens=11, output_tokens=8, input_tokens_details={"cached_tokens": 3}
    )


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"output_tokens": 8}, Usage(output_tokens=8)),
        (
            {"input_tokens": 6, "output_tokens": 8, "cache_read_input_tokens": None},
            Usage(input_tokens=6, output_tokens=8),
        ),
        (
            {"input_tokens": "6", "cache_read_input_tokens": True, "output_tokens": 8},
            Usage(output_tokens=8),
        ),
        (
            {"input_tokens": 6, "cache_creation_input_tokens": 4, "cache_read_input_tokens": 1.5},
            Usage(input_tokens=10),
        ),
    ],
    ids=["missing", "null", "not-ints", "float-cache-read"],
)
def test_a_missing_or_non_integer_count_reads_as_zero(
    usage: dict[str, Any], expected: Usage
) -> None:
    assert read_usage(recorded_body(usage), stream=False) == expected


# -- round trip ----------------------------------------------------------------------------


@given(
    inputs=st.integers(min_value=0, max_value=10**9),
    outputs=st.integers(min_value=0, max_value=10**9),
    cached_share=st.floats(min_value=0, max_value=1),
    stream=st.booleans(),
)
def test_a_scripted_usage_rendered_then_read_back_is_the_same_usage(
    inputs: int, outputs: int, cached_share: float, stream: bool
) -> None:
    script = cached_usage(inputs, int(inputs * cached_share), outputs)

    text = answer(scripted(script), stream=stream)

    assert read_usage(text, stream=stream) == script
    # and a client adding Anthropic's three input counts sees the scripted input
    last = sent_usages(text, stream=stream)[-1]
    assert (
        last["input_tokens"] + last["cache_read_input_tokens"] + last["cache_creation_input_tokens"]
        == inputs
    )


# -- a real client -------------------------------------------------------------------------


@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="pydantic-ai's AnthropicModel fails on Python 3.10 before it sends anything: it calls "
    "anthropic's BetaMessageParam, a Union there (TypeError: Cannot instantiate typing.Union)",
)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_pydantic_ai_counts_the_scripted_input_tokens_once(stream: bool) -> None:
    pytest.importorskip("pydantic_ai")
    anthropic = pytest.importorskip("anthropic")
    pytest.importorskip("httpx")
    try:  # anthropic >= 2 is built on the httpx2 fork and accepts only its clients
        import httpx2 as httpx_for_anthropic
    except ImportError:
        import httpx as httpx_for_anthropic  # type: ignore[no-redef]  # anthropic < 2
    from pydantic_ai import Agent
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    from agents_testing.adapters.httpx import scripted_transport

    model = scripted(cached_usage(9, 3))
    transport: Any = scripted_transport(model)  # serves httpx2's clients too; typed for httpx
    client = anthropic.AsyncAnthropic(
        base_url="http://scripted.invalid",
        api_key="sk-ant-test",
        http_client=httpx_for_anthropic.AsyncClient(transport=transport),
    )
    agent: Agent[None, str] = Agent(
        AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(anthropic_client=client))
    )

    if stream:
        async with agent.run_stream("Hi") as result:
            assert await result.get_output() == "Hi."
            usage = result.usage
    else:
        run = await agent.run("Hi")
        assert run.output == "Hi."
        usage = run.usage

    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (9, 3, 8)
    model.assert_complete()
