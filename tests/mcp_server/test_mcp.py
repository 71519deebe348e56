"""ScriptedMCPServer, the protocol-free core: offers, steps, records and violations."""

from __future__ import annotations

import asyncio
import base64
import functools
import math
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from agents_testing.errors import (
    InvalidScriptedMCPStepError,
    MCPProtocolError,
    RepeatedMCPListError,
    ScriptedJSONRPCError,
    UnconsumedMCPStepsError,
    UnexpectedMCPCallError,
)
from agents_testing.mcp import (
    MCPCall,
    MCPSessionDropped,
    MCPStep,
    ScriptedMCPServer,
    mcp_get_prompt,
    mcp_image,
    mcp_log,
    mcp_progress,
    mcp_read_resource,
    mcp_tool,
    mcp_tool_call,
    mcp_tool_result,
    mcp_tools_changed,
)

MODERN = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}


def serve(
    server: ScriptedMCPServer,
    method: str,
    params: dict[str, Any] | None = None,
    notified: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    async def notify(message: dict[str, Any]) -> None:
        if notified is not None:
            notified.append(message)

    async def run() -> dict[str, Any]:
        return await server.serve(method, params, session_id="s1", notify=notify)

    return asyncio.run(run())


def call_tool(server: ScriptedMCPServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return serve(server, "tools/call", {"name": name, "arguments": arguments})


def test_a_tool_call_answers_with_its_step_and_is_recorded() -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny")],
        tools=[mcp_tool("get_weather", "Weather by city")],
    )

    answer = call_tool(server, "get_weather", {"city": "Paris"})

    assert answer == {"content": [{"type": "text", "text": "Sunny"}], "isError": False}
    assert server.tool_names == ("get_weather",)
    assert server.tool_arguments == ({"city": "Paris"},)
    call = server.calls[0]
    assert (call.index, call.method, call.session_id, call.name) == (
        0,
        "tools/call",
        "s1",
        "get_weather",
    )
    assert server.remaining_steps == 0
    server.assert_complete()


def test_recorded_arguments_are_detached_on_every_read() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", result="ok")])
    sent = {"items": [1, 2]}
    call_tool(server, "t", sent)
    sent["items"].append(3)

    first = server.calls[0].arguments
    assert first == {"items": [1, 2]}
    first["items"].append(4)
    assert server.calls[0].arguments == {"items": [1, 2]}
    assert pickle.loads(pickle.dumps(server.calls[0])) == server.calls[0]


def test_a_call_with_drifted_arguments_fails_without_using_the_step() -> None:
    server = ScriptedMCPServer([mcp_tool_call("get_weather", {"city": "Paris"}, result="Sunny")])

    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, "get_weather", {"city": "Rome"})

    error = raised.value
    assert (error.call_index, error.method, error.step_index) == (0, "tools/call", 0)
    assert error.expected == "tools/call get_weather({'city': 'Paris'})"
    assert error.call_summary == "get_weather({'city': 'Rome'})"
    assert "find why the agent sent this call" in str(error)
    assert server.remaining_steps == 1
    with pytest.raises(UnexpectedMCPCallError) as again:
        server.assert_complete()
    assert again.value.call_index == 0
    assert again.value.__cause__ is error


def test_a_call_after_the_script_ran_out_says_no_step_is_left() -> None:
    server = ScriptedMCPServer()

    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, "t", {})

    assert raised.value.expected is None
    assert "no scripted step is left for tools/call" in str(raised.value)
    assert "mcp_tool_call(name, arguments, result=...)" in str(raised.value)


def test_a_matcher_decides_and_its_assertion_is_the_cause() -> None:
    def positive(arguments: dict[str, Any]) -> bool:
        assert arguments["n"] > 0, "n must be positive"
        return True

    server = ScriptedMCPServer(
        [mcp_tool_call("inc", positive, result="ok"), mcp_tool_call("inc", positive, result="ok")]
    )

    assert call_tool(server, "inc", {"n": 1})["content"][0]["text"] == "ok"
    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, "inc", {"n": -1})
    assert isinstance(raised.value.__cause__, AssertionError)
    assert "matcher positive" in str(raised.value)


def test_unordered_calls_take_any_matching_step() -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("a", result="A"), mcp_tool_call("b", result="B")], ordered=False
    )

    assert call_tool(server, "b", {})["content"][0]["text"] == "B"
    assert call_tool(server, "a", {})["content"][0]["text"] == "A"
    server.assert_complete()


def test_an_unordered_call_that_matches_nothing_lists_the_remaining_steps() -> None:
    server = ScriptedMCPServer([mcp_tool_call("a", {"x": 1}, result="A")], ordered=False)

    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, "a", {"x": 2})

    assert raised.value.expected == "one of: tools/call a({'x': 1})"
    assert raised.value.step_index is None


def test_a_responder_computes_the_result_from_the_call_sync_or_async() -> None:
    async def later(call: MCPCall) -> str:
        await asyncio.sleep(0)
        return f"async {call.arguments}"

    server = ScriptedMCPServer(
        [
            mcp_tool_call("t", respond=lambda call: [{"type": "text", "text": str(call.index)}]),
            mcp_tool_call("t", respond=later),
        ]
    )

    assert call_tool(server, "t", {})["content"] == [{"type": "text", "text": "0"}]
    assert call_tool(server, "t", {"k": 1})["content"][0]["text"] == "async {'k': 1}"


def test_a_responder_returning_no_result_is_a_remembered_violation() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", respond=lambda call: 42)])

    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        call_tool(server, "t", {})

    assert (raised.value.reason, raised.value.call_index, raised.value.input_index) == (
        "invalid_result",
        0,
        None,
    )
    with pytest.raises(InvalidScriptedMCPStepError):
        server.assert_complete()


def test_a_tool_error_result_and_a_jsonrpc_error() -> None:
    failure = ScriptedJSONRPCError(-32602, "unknown city", {"city": "Atlantis"})
    server = ScriptedMCPServer(
        [
            mcp_tool_call("t", result=mcp_tool_result("city not found", is_error=True)),
            mcp_tool_call("t", error=failure),
        ]
    )

    assert call_tool(server, "t", {})["isError"] is True
    with pytest.raises(ScriptedJSONRPCError) as raised:
        call_tool(server, "t", {})
    assert raised.value is failure
    server.assert_complete()


def test_results_take_structured_content_and_images() -> None:
    structured = mcp_tool_result(structured={"temp": 21})
    image = mcp_image(b"\x89PNG", "image/png")
    server = ScriptedMCPServer(
        [mcp_tool_call("t", result=structured), mcp_tool_call("t", result=[image])]
    )

    assert call_tool(server, "t", {}) == {
        "content": [{"type": "text", "text": '{"temp": 21}'}],
        "isError": False,
        "structuredContent": {"temp": 21},
    }
    block = call_tool(server, "t", {})["content"][0]
    assert base64.b64decode(block["data"]) == b"\x89PNG"


def test_a_step_sends_its_notifications_before_the_answer() -> None:
    server = ScriptedMCPServer(
        [
            mcp_tool_call(
                "t",
                result="done",
                notifications=[mcp_progress(1, 2, "half"), mcp_log("info", "working")],
            )
        ]
    )
    notified: list[dict[str, Any]] = []

    serve(
        server,
        "tools/call",
        {"name": "t", "arguments": {}, "_meta": {"progressToken": "p1"}},
        notified,
    )

    assert notified == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progress": 1, "total": 2, "message": "half", "progressToken": "p1"},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "working"},
        },
    ]


def test_progress_is_skipped_for_a_call_without_a_progress_token() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", result="x", notifications=[mcp_progress(1)])])
    notified: list[dict[str, Any]] = []

    serve(server, "tools/call", {"name": "t", "arguments": {}}, notified)

    assert notified == []


def test_initialize_negotiates_the_offered_version_or_counters_with_the_latest() -> None:
    server = ScriptedMCPServer(
        tools=[mcp_tool("t")], instructions="Use t.", server_info={"name": "wx", "version": "1"}
    )

    same = serve(server, "initialize", {"protocolVersion": "2025-06-18"})
    other = serve(server, "initialize", {"protocolVersion": "1999-01-01"})

    assert same == {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "wx", "version": "1"},
        "instructions": "Use t.",
    }
    assert other["protocolVersion"] == "2025-11-25"
    assert [call.protocol_version for call in server.calls] == ["2025-06-18", "2025-11-25"]


def test_discover_answers_the_modern_version_and_refuses_others() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("t")])

    answer = serve(server, "server/discover", MODERN)
    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(
            server,
            "server/discover",
            {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}},
        )

    assert answer["supportedVersions"] == ["2026-07-28"]
    assert answer["resultType"] == "complete"
    assert answer["_meta"] == {
        "io.modelcontextprotocol/serverInfo": {"name": "scripted-mcp-server", "version": "0.0.0"}
    }
    assert (raised.value.code, raised.value.data) == (
        -32022,
        {"supported": ["2026-07-28"], "requested": "2099-01-01"},
    )
    server.assert_complete()  # negotiation is not a violation


def test_listings_page_with_a_cursor() -> None:
    tools = [mcp_tool(name) for name in ("a", "b", "c")]
    server = ScriptedMCPServer(tools=tools, page_size=2)

    first = serve(server, "tools/list")
    second = serve(server, "tools/list", {"cursor": first["nextCursor"]})

    assert [tool["name"] for tool in first["tools"]] == ["a", "b"]
    assert [tool["name"] for tool in second["tools"]] == ["c"]
    assert "nextCursor" not in second


def test_an_unknown_cursor_is_invalid_params() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a")])

    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, "tools/list", {"cursor": "zzz"})

    assert raised.value.code == -32602
    with pytest.raises(MCPProtocolError) as failed:
        server.assert_complete()
    assert failed.value.reason == "invalid_params"


def test_listing_tools_twice_fails_when_the_script_lists_once() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a")], list_tools_once=True)
    serve(server, "tools/list")

    with pytest.raises(RepeatedMCPListError) as raised:
        serve(server, "tools/list")

    assert (raised.value.call_index, raised.value.first_call_index) == (1, 0)
    assert "cache_tools_list=True" in str(raised.value)
    with pytest.raises(RepeatedMCPListError):
        server.assert_complete()


def test_resources_and_prompts_are_offered_and_read_from_steps() -> None:
    server = ScriptedMCPServer(
        [
            mcp_read_resource("file:///a.txt", result="hello"),
            mcp_read_resource("file:///b.bin", result=b"\x00\x01"),
            mcp_get_prompt("greet", {"who": "Ada"}, result="Say hi to Ada"),
        ],
        resources=[{"uri": "file:///a.txt", "name": "a"}],
        resource_templates=[{"uriTemplate": "file:///{name}", "name": "files"}],
        prompts=[{"name": "greet", "arguments": [{"name": "who"}]}],
    )

    assert serve(server, "resources/list")["resources"] == [{"uri": "file:///a.txt", "name": "a"}]
    assert serve(server, "resources/templates/list")["resourceTemplates"][0]["name"] == "files"
    assert serve(server, "prompts/list")["prompts"][0]["name"] == "greet"
    assert serve(server, "resources/read", {"uri": "file:///a.txt"})["contents"][0]["text"] == (
        "hello"
    )
    blob = serve(server, "resources/read", {"uri": "file:///b.bin"})["contents"][0]["blob"]
    assert base64.b64decode(blob) == b"\x00\x01"
    prompt = serve(server, "prompts/get", {"name": "greet", "arguments": {"who": "Ada"}})
    assert prompt["messages"][0]["content"]["text"] == "Say hi to Ada"
    assert server.calls[3].uri == "file:///a.txt"
    server.assert_complete()


def test_capabilities_follow_what_is_offered_and_scripted() -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("t", result="x", notifications=[mcp_tools_changed(), mcp_log("info", 1)])],
        prompts=[{"name": "p"}],
    )

    capabilities = serve(server, "initialize", {"protocolVersion": "2025-11-25"})["capabilities"]

    assert capabilities == {
        "tools": {"listChanged": True},
        "prompts": {"listChanged": False},
        "logging": {},
    }


def test_an_unknown_method_is_method_not_found_and_a_violation() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", result="x")])

    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, "tools/explode")

    assert raised.value.code == -32601
    assert server.remaining_steps == 1
    with pytest.raises(MCPProtocolError) as failed:
        server.assert_complete()
    assert (failed.value.reason, failed.value.method) == ("unknown_method", "tools/explode")


def test_a_tool_call_without_a_name_is_invalid_params_and_uses_no_step() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", result="x")])

    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, "tools/call", {"name": 5})

    assert raised.value.code == -32602
    assert server.remaining_steps == 1


def test_unused_steps_are_listed_and_optional_ones_are_not_required() -> None:
    server = ScriptedMCPServer(
        [
            mcp_tool_call("a", {"x": 1}, result="A"),
            mcp_tool_call("b", result="B", optional=True),
        ]
    )

    with pytest.raises(UnconsumedMCPStepsError) as raised:
        server.assert_complete()

    assert raised.value.remaining_steps == 2
    assert "Pending: step #1 (step_index=0) tools/call: tools/call a({'x': 1}) -> 'A'" in str(
        raised.value
    )
    assert raised.value.pending_steps == (
        {"step_index": 0, "method": "tools/call", "summary": "tools/call a({'x': 1}) -> 'A'"},
        {
            "step_index": 1,
            "method": "tools/call",
            "summary": "tools/call b(any arguments) -> 'B' (optional)",
        },
    )
    call_tool(server, "a", {"x": 1})
    server.assert_complete()


def test_a_hanging_call_waits_until_cancelled() -> None:
    server = ScriptedMCPServer([mcp_tool_call("slow", hang=True)])

    async def run() -> None:
        task = asyncio.ensure_future(server.serve("tools/call", {"name": "slow", "arguments": {}}))
        await asyncio.sleep(0.01)
        assert not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    server.assert_complete()


def test_a_delayed_call_answers_after_its_delay() -> None:
    server = ScriptedMCPServer([mcp_tool_call("slow", result="late", delay=0.01)])

    assert call_tool(server, "slow", {})["content"][0]["text"] == "late"


def test_modern_requests_get_the_2026_result_fields() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", result="x")], tools=[mcp_tool("t")])

    listing = serve(server, "tools/list", MODERN)
    answer = serve(server, "tools/call", {"name": "t", "arguments": {}, **MODERN})

    assert (listing["ttlMs"], listing["cacheScope"], listing["resultType"]) == (
        0,
        "private",
        "complete",
    )
    assert answer["resultType"] == "complete"
    assert "ttlMs" not in answer


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        pytest.param("not a step", "invalid_input", id="not-a-step"),
        pytest.param(mcp_tool_call("", result="x"), "invalid_name", id="empty-name"),
        pytest.param(mcp_tool_call("t", 5, result="x"), "invalid_arguments", id="arguments"),  # type: ignore[arg-type]
        pytest.param(mcp_tool_call("t"), "invalid_outcome", id="no-outcome"),
        pytest.param(
            mcp_tool_call("t", result="x", error=ValueError()), "invalid_outcome", id="two"
        ),
        pytest.param(mcp_tool_call("t", result=3), "invalid_result", id="result"),
        pytest.param(mcp_tool_call("t", error="boom"), "invalid_error", id="error"),  # type: ignore[arg-type]
        pytest.param(
            mcp_tool_call("t", result="x", notifications=[{"params": {}}]),
            "invalid_notification",
            id="notification",
        ),
        pytest.param(mcp_tool_call("t", result="x", delay=-1), "invalid_timing", id="delay"),
        pytest.param(mcp_read_resource("u", result=3), "invalid_result", id="resource"),
        pytest.param(mcp_get_prompt("p", result=[]), "invalid_result", id="prompt"),
    ],
)
def test_an_invalid_step_is_refused_when_scripted_naming_its_position(
    step: Any, reason: str
) -> None:
    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        ScriptedMCPServer([mcp_tool_call("ok", result="x"), step])

    assert (raised.value.reason, raised.value.input_index) == (reason, 1)
    assert "step #2" in str(raised.value)
    assert "Fix:" in str(raised.value)


def test_enqueue_adds_all_steps_or_none() -> None:
    server = ScriptedMCPServer()

    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        server.enqueue(mcp_tool_call("a", result="x"), mcp_tool_call("b"))

    assert raised.value.input_index == 1
    assert server.remaining_steps == 0
    server.enqueue(mcp_tool_call("a", result="x"))
    assert server.remaining_steps == 1


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        pytest.param({"steps": None}, TypeError, id="steps-none"),
        pytest.param({"tools": [{"description": "no name"}]}, ValueError, id="tool-without-name"),
        pytest.param({"tools": ["t"]}, TypeError, id="tool-not-mapping"),
        pytest.param({"server_info": {"version": "1"}}, TypeError, id="server-info"),
        pytest.param({"page_size": 0}, ValueError, id="page-size"),
        pytest.param({"ordered": "yes"}, TypeError, id="ordered"),
    ],
)
def test_bad_constructor_arguments_name_the_argument(kwargs: dict[str, Any], error: type) -> None:
    with pytest.raises(error) as raised:
        ScriptedMCPServer(**kwargs)

    assert next(iter(kwargs)) in str(raised.value)


def test_with_block_checks_completion_on_a_clean_exit() -> None:
    with (
        pytest.raises(UnconsumedMCPStepsError),
        ScriptedMCPServer([mcp_tool_call("a", result="x")]),
    ):
        pass


async def test_async_with_block_checks_completion_on_a_clean_exit() -> None:
    with pytest.raises(UnconsumedMCPStepsError):
        async with ScriptedMCPServer([mcp_tool_call("a", result="x")]):
            pass


def test_a_step_that_drops_the_session_answers_nothing() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", drop_session=True)])

    with pytest.raises(MCPSessionDropped):
        call_tool(server, "t", {})

    assert server.remaining_steps == 0
    server.assert_complete()


@pytest.mark.parametrize(
    "step",
    [
        pytest.param(mcp_tool_call("t", hang=True, drop_session=True), id="hang-and-drop"),
        pytest.param(mcp_tool_call("t", result="x", drop_session=True), id="result-and-drop"),
        pytest.param(mcp_tool_call("t", drop_session=1), id="not-a-bool"),  # type: ignore[arg-type]
    ],
)
def test_drop_session_is_an_outcome_of_its_own(step: Any) -> None:
    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        ScriptedMCPServer([step])

    assert (raised.value.reason, raised.value.input_index) == ("invalid_outcome", 0)


def test_a_slow_listing_answers_after_its_delay() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("t")], list_delay=0.01)

    async def run() -> None:
        listing = asyncio.ensure_future(server.serve("tools/list"))
        await asyncio.sleep(0)
        assert not listing.done()
        assert [tool["name"] for tool in (await listing)["tools"]] == ["t"]

    asyncio.run(run())


def test_list_delay_must_be_seconds() -> None:
    with pytest.raises(ValueError, match="list_delay"):
        ScriptedMCPServer(list_delay=-1)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        pytest.param((5, None), "method", id="method"),
        pytest.param(("tools/list", [1]), "params", id="params"),
    ],
)
def test_serve_refuses_bad_arguments_naming_them(args: tuple[Any, Any], named: str) -> None:
    server = ScriptedMCPServer()

    with pytest.raises(TypeError, match=named):
        server.serve(*args).close()

    assert server.calls == ()


def test_record_violation_takes_only_protocol_errors() -> None:
    with pytest.raises(TypeError, match="MCPProtocolError"):
        ScriptedMCPServer().record_violation(ValueError("x"))  # type: ignore[arg-type]


def test_set_tools_changes_what_the_listing_answers() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a")])

    server.set_tools([mcp_tool("b")])  # no client connected: nothing to notify

    assert [tool["name"] for tool in serve(server, "tools/list")["tools"]] == ["b"]
    assert [tool["name"] for tool in server.offered_tools] == ["b"]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        pytest.param(lambda s: s.set_tools([{"no": "name"}]), ValueError, id="set-tools"),
        pytest.param(lambda s: s.notify_clients({"params": {}}), TypeError, id="notify"),
    ],
)
def test_changing_the_offer_refuses_bad_input(call: Any, error: type) -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a")])

    with pytest.raises(error):
        call(server)

    assert [tool["name"] for tool in server.offered_tools] == ["a"]


LONG = "a text longer than forty characters, to be cut short"


def named_responder(call: MCPCall) -> str:
    return "x"


def test_unused_steps_describe_each_kind_of_answer() -> None:
    server = ScriptedMCPServer(
        [
            mcp_tool_call("r", respond=named_responder),
            mcp_tool_call("p", respond=functools.partial(named_responder)),
            mcp_tool_call("h", hang=True),
            mcp_tool_call("d", drop_session=True),
            mcp_tool_call("e", error=ScriptedJSONRPCError(-32602, LONG)),
            mcp_tool_call("t", result=LONG),
            mcp_tool_call("b", result=[]),
            mcp_tool_call("i", result=[mcp_image(b"\x89PNG" * 10)]),
            mcp_tool_call("x", result=mcp_tool_result("no such city", is_error=True)),
            mcp_read_resource("file:///notes.txt", result=LONG),
            mcp_get_prompt("greet", result=LONG),
        ]
    )

    with pytest.raises(UnconsumedMCPStepsError) as raised:
        server.assert_complete()

    # Long answers are cut to 40 characters; a result is shown by its first text.
    cut = "'a text longer than forty characters,..."
    assert [step["summary"] for step in raised.value.pending_steps] == [
        "tools/call r(any arguments) -> respond named_responder",
        "tools/call p(any arguments) -> respond function",  # a callable without a __name__
        "tools/call h(any arguments) -> hang",
        "tools/call d(any arguments) -> drop session",
        "tools/call e(any arguments) -> error ScriptedJSONRPCError('JSON-RPC error ...",
        f"tools/call t(any arguments) -> {cut}",
        "tools/call b(any arguments) -> None",  # no content block at all
        "tools/call i(any arguments) -> {'type': 'image', 'data': 'iVBOR4lQTk...",
        "tools/call x(any arguments) -> tool error 'no such city'",
        f"resources/read file:///notes.txt(any arguments) -> {cut}",
        f"prompts/get greet(any arguments) -> {cut}",
    ]
    assert [step["step_index"] for step in raised.value.pending_steps] == list(range(11))
    assert "Remove the steps the workflow does not need" in str(raised.value)


def test_resource_and_prompt_steps_answer_from_a_responder_or_an_error() -> None:
    missing = ScriptedJSONRPCError(-32002, "Resource not found", {"uri": "file:///gone"})
    refused = ScriptedJSONRPCError(-32602, "Unknown prompt")
    server = ScriptedMCPServer(
        [
            mcp_read_resource("file:///a", respond=lambda call: f"read {call.uri}"),
            mcp_read_resource("file:///gone", error=missing),
            mcp_get_prompt("greet", {"who": "Ada"}, respond=lambda call: f"hi {call.name}"),
            mcp_get_prompt("greet", error=refused),
            mcp_read_resource("file:///maybe", result="x", optional=True),
            mcp_get_prompt("maybe", result="x", optional=True),
        ]
    )

    read = serve(server, "resources/read", {"uri": "file:///a"})
    assert read["contents"][0]["text"] == "read file:///a"
    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, "resources/read", {"uri": "file:///gone"})
    assert raised.value is missing
    prompt = serve(server, "prompts/get", {"name": "greet", "arguments": {"who": "Ada"}})
    assert prompt["messages"][0]["content"]["text"] == "hi greet"
    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, "prompts/get", {"name": "greet", "arguments": {}})
    assert raised.value is refused
    server.assert_complete()  # the optional steps are not required


@pytest.mark.parametrize(
    "build",
    [
        pytest.param(lambda: mcp_read_resource("file:///a", result="x"), id="resource"),
        pytest.param(lambda: mcp_get_prompt("greet", result="x"), id="prompt"),
        pytest.param(lambda: mcp_tool_call("t", result="x"), id="tool"),
    ],
)
def test_a_step_answers_at_once_and_is_required_unless_told_otherwise(
    build: Callable[[], MCPStep],
) -> None:
    step = build()  # built in the test, not when the tests are collected

    assert (step.delay, step.hang, step.optional, step.drop_session) == (0.0, False, False, False)
    with pytest.raises(UnconsumedMCPStepsError):
        ScriptedMCPServer([step]).assert_complete()


def test_a_prompt_step_matches_its_arguments() -> None:
    server = ScriptedMCPServer([mcp_get_prompt("greet", {"who": "Ada"}, result="hi")])

    with pytest.raises(UnexpectedMCPCallError) as raised:
        serve(server, "prompts/get", {"name": "greet", "arguments": {"who": "Bob"}})

    assert raised.value.expected == "prompts/get greet({'who': 'Ada'})"
    assert raised.value.call_summary == "greet({'who': 'Bob'})"


def test_an_unexpected_resource_read_is_summarized_by_its_uri() -> None:
    uri = "file:///" + "n" * 100
    server = ScriptedMCPServer([mcp_read_resource("file:///a", result="x")])

    with pytest.raises(UnexpectedMCPCallError) as raised:
        serve(server, "resources/read", {"uri": uri})

    assert raised.value.call_summary == repr(uri)[:77] + "..."  # cut to 80 characters
    assert raised.value.expected == "resources/read file:///a(any arguments)"


def test_the_notification_builders_make_mcp_messages() -> None:
    assert mcp_log("warning", {"disk": "full"}, logger="storage") == {
        "method": "notifications/message",
        "params": {"level": "warning", "data": {"disk": "full"}, "logger": "storage"},
    }
    assert mcp_tools_changed() == {"method": "notifications/tools/list_changed", "params": {}}
    assert mcp_image(b"\x89PNG") == {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}
    assert mcp_image(b"GIF8", "image/gif")["mimeType"] == "image/gif"


def test_a_step_notification_without_params_is_sent_with_empty_params() -> None:
    changed = {"method": "notifications/resources/list_changed"}
    server = ScriptedMCPServer([mcp_tool_call("t", result="x", notifications=[changed])])
    notified: list[dict[str, Any]] = []

    serve(server, "tools/call", {"name": "t", "arguments": {}}, notified)

    assert notified == [
        {"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}}
    ]


@pytest.mark.parametrize(
    "result",
    [
        pytest.param([{"text": "a block without a type"}], id="no-type"),
        pytest.param(["a bare string"], id="not-a-mapping"),
    ],
)
def test_a_content_block_needs_a_str_type(result: Any) -> None:
    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        ScriptedMCPServer([mcp_tool_call("t", result=result)])

    error = raised.value
    assert (error.reason, error.input_index) == ("invalid_result", 0)
    assert error.detail == "tools/call content blocks are mappings with a str type"
    assert "a list of content blocks" in str(error)


def test_notify_clients_refuses_a_notification_without_a_method_showing_it() -> None:
    server = ScriptedMCPServer()
    odd = {"params": {}, "note": "n" * 60}

    with pytest.raises(TypeError) as raised:
        server.notify_clients(mcp_log("info", "x"), odd)

    assert str(raised.value) == (
        "notifications[1] must be a mapping with a str method, such as mcp_tools_changed(); "
        f"got {repr(odd)[:37]}..."  # the notification, cut to 40 characters
    )


def test_set_tools_checks_and_completes_the_tools_as_the_constructor_does() -> None:
    server = ScriptedMCPServer()

    with pytest.raises(ValueError, match=r'^tools\[0\] "inputSchema" must be a JSON schema'):
        server.set_tools([{"name": "b", "inputSchema": "not a schema"}])

    server.set_tools([{"name": "b"}])
    assert server.offered_tools == (
        {"name": "b", "inputSchema": {"type": "object", "properties": {}}},
    )


def test_a_with_block_that_raises_keeps_its_own_error() -> None:
    with (
        pytest.raises(ValueError, match="the block's own error"),
        ScriptedMCPServer([mcp_tool_call("a", result="x")]),
    ):
        raise ValueError("the block's own error")


async def test_an_async_with_block_that_raises_keeps_its_own_error() -> None:
    with pytest.raises(ValueError, match="the block's own error"):
        async with ScriptedMCPServer([mcp_tool_call("a", result="x")]):
            raise ValueError("the block's own error")


def test_the_repr_shows_the_tools_the_calls_and_the_steps_left() -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("a", result="x"), mcp_tool_call("b", result="y")],
        tools=[mcp_tool("a"), mcp_tool("b")],
    )
    call_tool(server, "a", {})

    assert repr(server) == "<ScriptedMCPServer tools=[a, b] calls=1 remaining_steps=1>"


RESOURCES_CAPABILITY = {"resources": {"listChanged": False, "subscribe": False}}


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        pytest.param(lambda: ScriptedMCPServer(), {}, id="nothing"),
        pytest.param(
            lambda: ScriptedMCPServer(resources=[{"uri": "file:///a", "name": "a"}]),
            RESOURCES_CAPABILITY,
            id="resources",
        ),
        pytest.param(
            lambda: ScriptedMCPServer(resource_templates=[{"uriTemplate": "file:///{x}"}]),
            RESOURCES_CAPABILITY,
            id="templates",
        ),
        pytest.param(
            lambda: ScriptedMCPServer([mcp_read_resource("file:///a", result="x")]),
            RESOURCES_CAPABILITY,
            id="resource-step",
        ),
        pytest.param(
            lambda: ScriptedMCPServer([mcp_get_prompt("p", result="x")]),
            {"prompts": {"listChanged": False}},
            id="prompt-step",
        ),
    ],
)
def test_capabilities_name_resources_and_prompts_when_offered_or_scripted(
    build: Callable[[], ScriptedMCPServer], expected: dict[str, Any]
) -> None:
    answer = serve(build(), "initialize", {"protocolVersion": "2025-11-25"})

    assert answer["capabilities"] == {"tools": {"listChanged": False}, **expected}


def test_capabilities_given_are_sent_as_given() -> None:
    given = {"tools": {}, "experimental": {"x": 1}}
    server = ScriptedMCPServer(capabilities=given)

    assert serve(server, "initialize", {"protocolVersion": "2025-11-25"})["capabilities"] == given


@pytest.mark.parametrize(
    ("method", "params", "detail"),
    [
        pytest.param(
            "tools/call", {"name": 5}, "needs a str name and an arguments object", id="tool"
        ),
        pytest.param(
            "tools/call",
            {"name": "t", "arguments": [1]},
            "needs a str name and an arguments object",
            id="tool-arguments",
        ),
        pytest.param("prompts/get", {}, "needs a str name and an arguments object", id="prompt"),
        pytest.param("resources/read", {"uri": 5}, "needs a str uri", id="resource"),
    ],
)
def test_a_call_without_its_name_or_uri_is_invalid_params_and_a_violation(
    method: str, params: dict[str, Any], detail: str
) -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", result="x")])

    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, method, params)

    assert (raised.value.code, raised.value.message, raised.value.data) == (
        -32602,
        "Invalid request parameters",
        detail,
    )
    with pytest.raises(MCPProtocolError) as failed:
        server.assert_complete()
    error = failed.value
    assert (error.reason, error.method, error.session_id, error.detail) == (
        "invalid_params",
        method,
        "s1",
        detail,
    )
    assert "Fix the client or the code that sends it" in str(error)
    assert server.remaining_steps == 1


def test_an_ordered_call_may_take_only_the_next_step() -> None:
    server = ScriptedMCPServer([mcp_tool_call("a", result="A"), mcp_tool_call("b", result="B")])

    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, "b", {})

    assert (raised.value.expected, raised.value.step_index) == ("tools/call a(any arguments)", 0)
    assert server.remaining_steps == 2


def test_an_unordered_call_lists_every_step_of_its_method_or_none() -> None:
    server = ScriptedMCPServer(
        [
            mcp_tool_call("a", {"x": 1}, result="A"),
            mcp_read_resource("file:///r", result="R"),
            mcp_tool_call("b", result="B"),
        ],
        ordered=False,
    )

    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, "c", {})
    assert raised.value.expected == "one of: tools/call a({'x': 1}); tools/call b(any arguments)"

    with pytest.raises(UnexpectedMCPCallError) as raised:
        serve(server, "prompts/get", {"name": "p", "arguments": {}})
    assert raised.value.expected is None
    assert "no scripted step is left for prompts/get" in str(raised.value)


def test_a_step_summary_cuts_long_arguments_and_names_a_matcher_without_a_name() -> None:
    def positive(arguments: dict[str, Any]) -> bool:
        return True

    arguments = {"query": "q" * 80}
    server = ScriptedMCPServer(
        [
            mcp_tool_call("search", arguments, result="x"),
            mcp_tool_call("inc", functools.partial(positive), result="x"),
        ]
    )

    with pytest.raises(UnconsumedMCPStepsError) as raised:
        server.assert_complete()

    assert [step["summary"] for step in raised.value.pending_steps] == [
        f"tools/call search({repr(arguments)[:57]}...) -> 'x'",  # cut to 60 characters
        "tools/call inc(matcher function) -> 'x'",
    ]


def test_an_unexpected_call_is_summarized_in_at_most_120_characters() -> None:
    name = "n" * 50
    arguments = {"query": "q" * 100}
    server = ScriptedMCPServer([mcp_tool_call("t", result="x")])

    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, name, arguments)

    # The arguments are cut to 80 characters, the whole summary to 120.
    assert raised.value.call_summary == f"{name}({repr(arguments)[:77]}...)"[:117] + "..."
    with pytest.raises(UnexpectedMCPCallError) as raised:
        call_tool(server, "u", arguments)
    assert raised.value.call_summary == f"u({repr(arguments)[:77]}...)"


def test_a_dropping_step_names_its_place_in_the_script() -> None:
    server = ScriptedMCPServer(
        [mcp_tool_call("a", result="A"), mcp_tool_call("t", drop_session=True)]
    )
    call_tool(server, "a", {})

    with pytest.raises(MCPSessionDropped, match=r"^step #2 drops the session$"):
        call_tool(server, "t", {})


def test_a_responders_text_for_a_resource_is_read_as_that_uri() -> None:
    server = ScriptedMCPServer([mcp_read_resource("file:///a", respond=lambda call: "text")])

    assert serve(server, "resources/read", {"uri": "file:///a"}) == {
        "contents": [{"uri": "file:///a", "mimeType": "text/plain", "text": "text"}]
    }


def test_a_responders_invalid_answer_says_what_is_wrong() -> None:
    server = ScriptedMCPServer([mcp_tool_call("t", respond=lambda call: 42)])

    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        call_tool(server, "t", {})

    assert raised.value.detail == "tools/call got 42"
    assert "a tool result is a str" in str(raised.value)


@pytest.mark.parametrize(
    ("build", "detail"),
    [
        pytest.param(
            lambda: mcp_tool_call("t", result={"content": "x"}),
            "tools/call result needs a content list of blocks with a str type",
            id="content-not-a-list",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result={"content": [], "isError": "yes"}),
            "tools/call isError must be a bool",
            id="is-error",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result={"content": [], "structuredContent": 3}),
            "tools/call structuredContent must be an object",
            id="structured",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result=mcp_tool_result(["not a block"])),  # type: ignore[list-item]
            "tools/call result needs a content list of blocks with a str type",
            id="block-not-a-mapping",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result=b"y" * 60),
            "tools/call got " + repr(b"y" * 60)[:37] + "...",  # the value, cut to 40 characters
            id="tool-bytes",
        ),
        pytest.param(
            lambda: mcp_read_resource("u", result=[0] * 30),
            "resources/read got " + repr([0] * 30)[:37] + "...",
            id="resource-list",
        ),
        pytest.param(
            lambda: mcp_get_prompt("p", result=[0] * 30),
            "prompts/get got " + repr([0] * 30)[:37] + "...",
            id="prompt-list",
        ),
    ],
)
def test_an_invalid_result_is_refused_saying_what_is_wrong(
    build: Callable[[], MCPStep], detail: str
) -> None:
    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        ScriptedMCPServer([build()])

    assert (raised.value.reason, raised.value.input_index, raised.value.detail) == (
        "invalid_result",
        0,
        detail,
    )
    assert "a tool result is a str (one text block)" in str(raised.value)


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("build", "where"),
    [
        pytest.param(
            lambda deep: mcp_tool_call("t", result={"content": [], "deep": deep}),
            "result['deep']",
            id="tool",
        ),
        pytest.param(
            lambda deep: mcp_read_resource("u", result={"contents": [], "deep": deep}),
            "result['deep']",
            id="resource",
        ),
        pytest.param(
            lambda deep: mcp_get_prompt("p", result={"messages": [], "deep": deep}),
            "result['deep']",
            id="prompt",
        ),
    ],
)
def test_a_result_too_deep_to_record_is_refused_naming_where(
    build: Callable[[Any], MCPStep], where: str
) -> None:
    with pytest.raises(ValueError, match=r"^result is nested \d+ levels deep") as raised:
        ScriptedMCPServer([build(nested(3000))])

    assert f"(down to {where}[0]" in str(raised.value)
    assert "flatten the data" in str(raised.value)


def test_results_given_as_mappings_are_answered_as_given() -> None:
    resource = {"contents": [{"uri": "file:///a", "mimeType": "text/csv", "text": "a,b"}]}
    prompt = {"description": "d", "messages": [{"role": "user", "content": {"type": "text"}}]}
    server = ScriptedMCPServer(
        [mcp_read_resource("file:///a", result=resource), mcp_get_prompt("p", result=prompt)]
    )

    assert serve(server, "resources/read", {"uri": "file:///a"}) == resource
    assert serve(server, "prompts/get", {"name": "p", "arguments": {}}) == prompt


def test_mcp_tool_result_copies_the_blocks_it_is_given() -> None:
    block = {"type": "text", "text": "a"}

    result = mcp_tool_result([block])
    block["text"] = "changed"

    assert result == {"content": [{"type": "text", "text": "a"}], "isError": False}
    assert mcp_tool_result() == {"content": [], "isError": False}


@pytest.mark.parametrize(
    ("build", "reason", "detail"),
    [
        pytest.param(
            lambda: "s" * 60, "invalid_input", "got " + repr("s" * 60)[:37] + "...", id="input"
        ),
        pytest.param(
            lambda: mcp_tool_call("", result="x"), "invalid_name", "got ''", id="empty-name"
        ),
        pytest.param(
            lambda: mcp_tool_call(b"n" * 60, result="x"),  # type: ignore[arg-type]
            "invalid_name",
            "got " + repr(b"n" * 60)[:37] + "...",
            id="name",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", b"a" * 60, result="x"),  # type: ignore[arg-type]
            "invalid_arguments",
            "got " + repr(b"a" * 60)[:37] + "...",
            id="arguments",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result="x", notifications=5),  # type: ignore[arg-type]
            "invalid_notification",
            "got 5",
            id="notifications",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result="x", notifications=[10**60]),  # type: ignore[list-item]
            "invalid_notification",
            "got " + repr(10**60)[:37] + "...",
            id="notification",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", hang="h" * 30),  # type: ignore[arg-type]
            "invalid_timing",
            "hang=" + repr("h" * 30)[:17] + "...",  # cut to 20 characters
            id="hang",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", drop_session="d" * 30),  # type: ignore[arg-type]
            "invalid_outcome",
            "drop_session=" + repr("d" * 30)[:17] + "...",
            id="drop-session",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result="x", delay="s" * 30),  # type: ignore[arg-type]
            "invalid_timing",
            "delay=" + repr("s" * 30)[:17] + "...",
            id="delay",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result="x", delay=math.inf),
            "invalid_timing",
            "delay=inf",
            id="delay-inf",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result="x", delay=True),
            "invalid_timing",
            "delay=True",
            id="delay-bool",
        ),
        pytest.param(lambda: mcp_tool_call("t"), "invalid_outcome", "given: none", id="none"),
        pytest.param(
            lambda: mcp_tool_call("t", result="x", error=ValueError()),
            "invalid_outcome",
            "given: result, error",
            id="two",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", respond=lambda call: "x", hang=True, drop_session=True),
            "invalid_outcome",
            "given: respond, hang=True, drop_session=True",
            id="three",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", result="x", optional="o" * 30),  # type: ignore[arg-type]
            "invalid_input",
            "optional must be a bool, got " + repr("o" * 30)[:17] + "...",
            id="optional",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", respond=5),  # type: ignore[arg-type]
            "invalid_outcome",
            "respond must be a function of the recorded call",
            id="respond",
        ),
        pytest.param(
            lambda: mcp_tool_call("t", error="e" * 60),  # type: ignore[arg-type]
            "invalid_error",
            "got " + repr("e" * 60)[:37] + "...",
            id="error",
        ),
    ],
)
def test_an_invalid_step_says_what_it_got(
    build: Callable[[], Any], reason: str, detail: str
) -> None:
    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        ScriptedMCPServer([build()])

    assert (raised.value.reason, raised.value.input_index, raised.value.detail) == (
        reason,
        0,
        detail,
    )


def test_arguments_too_deep_to_record_are_refused_naming_them() -> None:
    with pytest.raises(ValueError, match=r"^arguments is nested \d+ levels deep") as raised:
        ScriptedMCPServer([mcp_tool_call("t", {"deep": nested(3000)}, result="x")])

    assert "(down to arguments['deep'][0]" in str(raised.value)


def test_notifications_given_as_a_generator_are_kept_for_every_use_of_the_step() -> None:
    step = mcp_tool_call("t", result="x", notifications=(m for m in [mcp_log("info", "hi")]))

    for server in (ScriptedMCPServer([step]), ScriptedMCPServer([step])):
        notified: list[dict[str, Any]] = []
        serve(server, "tools/call", {"name": "t", "arguments": {}}, notified)
        assert [message["params"]["data"] for message in notified] == ["hi"]


def test_a_delayed_step_does_not_answer_before_its_delay() -> None:
    server = ScriptedMCPServer([mcp_tool_call("slow", result="late", delay=0.01)])

    async def run() -> None:
        answer = asyncio.ensure_future(server.serve("tools/call", {"name": "slow"}))
        await asyncio.sleep(0)
        assert not answer.done()
        assert (await answer)["content"][0]["text"] == "late"

    asyncio.run(run())


def test_notifications_too_deep_to_record_are_refused_naming_them() -> None:
    deep = {"method": "notifications/message", "params": {"data": nested(3000)}}

    with pytest.raises(ValueError, match=r"^notification is nested \d+ levels deep"):
        ScriptedMCPServer([mcp_tool_call("t", result="x", notifications=[deep])])


def test_a_resource_scripted_as_text_is_read_as_that_uri() -> None:
    server = ScriptedMCPServer([mcp_read_resource("file:///a.txt", result="hello")])

    assert serve(server, "resources/read", {"uri": "file:///a.txt"}) == {
        "contents": [{"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}]
    }


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        pytest.param(
            {"steps": None},
            TypeError,
            "ScriptedMCPServer steps must be an iterable of steps, got NoneType; "
            "wrap a single step in a list.",
            id="steps",
        ),
        pytest.param(
            {"tools": 5}, TypeError, "tools must be an iterable of mappings, got int", id="tools"
        ),
        pytest.param({"tools": ["t"]}, TypeError, "tools[0] must be a mapping, got str", id="tool"),
        pytest.param(
            {"tools": [{"name": ""}]},
            ValueError,
            'tools[0] needs a non-empty str "name"',
            id="tool-name",
        ),
        pytest.param(
            {"resources": [{"uri": "u"}, {"name": "r"}]},
            ValueError,
            'resources[1] needs a non-empty str "uri"',
            id="resource",
        ),
        pytest.param(
            {"resource_templates": [{"uri": "x"}]},
            ValueError,
            'resource_templates[0] needs a non-empty str "uriTemplate"',
            id="template",
        ),
        pytest.param(
            {"prompts": [{"title": "p"}]},
            ValueError,
            'prompts[0] needs a non-empty str "name"',
            id="prompt",
        ),
        pytest.param(
            {"server_info": {"version": "1"}},
            TypeError,
            'server_info must be a mapping with a str "name", such as '
            '{"name": "github", "version": "1.0"}; got {\'version\': \'1\'}',
            id="server-info",
        ),
        pytest.param(
            {"server_info": 5},
            TypeError,
            'server_info must be a mapping with a str "name", such as '
            '{"name": "github", "version": "1.0"}; got 5',
            id="server-info-type",
        ),
        pytest.param(
            {"instructions": 5},
            TypeError,
            "instructions must be a str or None, got int",
            id="instructions",
        ),
        pytest.param(
            {"capabilities": [1]},
            TypeError,
            "capabilities must be a mapping or None, got list",
            id="capabilities",
        ),
        pytest.param(
            {"ordered": "yes"}, TypeError, "ordered must be a bool, got 'yes'", id="ordered"
        ),
        pytest.param(
            {"list_tools_once": 1},
            TypeError,
            "list_tools_once must be a bool, got 1",
            id="list-tools-once",
        ),
        *[
            pytest.param(
                {"page_size": size},
                ValueError,
                f"page_size must be an int >= 1 or None, got {size!r}",
                id=f"page-size-{size!r}",
            )
            for size in (0, True, 1.5)
        ],
        *[
            pytest.param(
                {"list_delay": delay},
                ValueError,
                f"list_delay must be a finite number of seconds >= 0, got {delay!r}",
                id=f"list-delay-{delay!r}",
            )
            for delay in (-1, True, math.inf, "1")
        ],
    ],
)
def test_bad_constructor_arguments_say_what_is_wrong(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        ScriptedMCPServer(**kwargs)

    assert str(raised.value) == message


def test_the_smallest_page_and_no_delay_are_allowed() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a"), mcp_tool("b")], page_size=1, list_delay=0)

    assert [tool["name"] for tool in serve(server, "tools/list")["tools"]] == ["a"]


def test_initialize_and_discover_answer_the_offer_in_full() -> None:
    server = ScriptedMCPServer(
        resources=[{"uri": "file:///a", "name": "a"}], instructions="Be brief."
    )
    capabilities = {
        "tools": {"listChanged": False},
        "resources": {"listChanged": False, "subscribe": False},
    }
    info = {"name": "scripted-mcp-server", "version": "0.0.0"}

    assert serve(server, "initialize", {"protocolVersion": "2025-03-26"}) == {
        "protocolVersion": "2025-03-26",
        "capabilities": capabilities,
        "serverInfo": info,
        "instructions": "Be brief.",
    }
    assert serve(server, "server/discover", MODERN) == {
        "supportedVersions": ["2026-07-28"],
        "capabilities": capabilities,
        "instructions": "Be brief.",
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": info},
    }
    assert serve(server, "ping") == {}
    assert serve(server, "logging/setLevel", {"level": "info"}) == {}
    assert serve(server, "resources/list") == {"resources": [{"uri": "file:///a", "name": "a"}]}


def test_pages_end_without_a_next_cursor() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a"), mcp_tool("b"), mcp_tool("c")], page_size=2)

    first = serve(server, "tools/list")
    second = serve(server, "tools/list", {"cursor": first["nextCursor"]})

    assert ([tool["name"] for tool in first["tools"]], first["nextCursor"]) == (["a", "b"], "2")
    assert second == {"tools": [mcp_tool("c")]}


@pytest.mark.parametrize("cursor", ["4", "x", 3, "-1"])
def test_a_cursor_not_given_by_a_listing_is_refused(cursor: object) -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a"), mcp_tool("b"), mcp_tool("c")], page_size=2)

    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, "tools/list", {"cursor": cursor})

    assert (raised.value.code, raised.value.message, raised.value.data) == (
        -32602,
        "Invalid cursor",
        cursor,
    )
    with pytest.raises(MCPProtocolError) as failed:
        server.assert_complete()
    assert (failed.value.reason, failed.value.method, failed.value.detail) == (
        "invalid_params",
        "tools/list",
        f"unknown cursor {cursor!r}",
    )


def test_the_last_page_may_be_asked_for_by_its_end_cursor() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a"), mcp_tool("b")], page_size=2)

    assert serve(server, "tools/list", {"cursor": "2"}) == {"tools": []}


def test_a_modern_request_without_the_modern_version_is_unsupported() -> None:
    server = ScriptedMCPServer()

    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(server, "server/discover")

    assert (raised.value.code, raised.value.message, raised.value.data) == (
        -32022,
        "Unsupported protocol version",
        {"supported": ["2026-07-28"], "requested": None},
    )
    server.assert_complete()  # a negotiation, not a broken script


def test_mcp_tool_describes_a_tool_in_mcps_shape() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}

    full = mcp_tool(
        "weather",
        "Weather by city",
        schema,
        output_schema={"type": "object"},
        annotations={"readOnlyHint": True},
        title="Weather",
    )
    schema["properties"] = {}

    assert full == {
        "name": "weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "title": "Weather",
        "description": "Weather by city",
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }
    assert mcp_tool("t") == {"name": "t", "inputSchema": {"type": "object", "properties": {}}}


def test_record_violation_names_what_it_got() -> None:
    with pytest.raises(TypeError) as raised:
        ScriptedMCPServer().record_violation(ValueError("x"))  # type: ignore[arg-type]

    assert str(raised.value) == "record_violation() takes an MCPProtocolError, got ValueError"


def test_listing_tools_twice_names_both_calls_and_paging_on_is_not_listing_again() -> None:
    server = ScriptedMCPServer(
        tools=[mcp_tool("a"), mcp_tool("b")], list_tools_once=True, page_size=1
    )
    serve(server, "tools/list")
    serve(server, "tools/list", {"cursor": "1"})  # the next page of the same listing

    with pytest.raises(RepeatedMCPListError) as raised:
        serve(server, "tools/list")

    error = raised.value
    assert (error.method, error.call_index, error.first_call_index) == ("tools/list", 2, 0)
    assert "Make the agent cache the tool list" in str(error)
    with pytest.raises(RepeatedMCPListError):
        server.assert_complete()


def test_an_unknown_method_is_answered_with_its_name() -> None:
    with pytest.raises(ScriptedJSONRPCError) as raised:
        serve(ScriptedMCPServer(), "nope/x")

    assert (raised.value.code, raised.value.message, raised.value.data) == (
        -32601,
        "Method not found",
        "nope/x",
    )


def test_initialize_with_an_unknown_version_gets_the_latest() -> None:
    server = ScriptedMCPServer()

    answer = serve(server, "initialize", {"protocolVersion": "1999-01-01"})

    assert answer["protocolVersion"] == "2025-11-25"
    assert server.calls[0].protocol_version == "2025-11-25"


def test_a_modern_call_result_keeps_its_own_result_type_and_is_not_cached() -> None:
    server = ScriptedMCPServer(
        [
            mcp_tool_call("t", result="x"),
            mcp_tool_call("t", respond=lambda call: {"content": [], "resultType": "partial"}),
        ]
    )
    stamp = {
        "io.modelcontextprotocol/serverInfo": {"name": "scripted-mcp-server", "version": "0.0.0"}
    }

    first = serve(server, "tools/call", {"name": "t", **MODERN})
    second = serve(server, "tools/call", {"name": "t", **MODERN})

    assert first == {
        "content": [{"type": "text", "text": "x"}],
        "isError": False,
        "resultType": "complete",
        "_meta": stamp,
    }
    assert second == {"content": [], "resultType": "partial", "_meta": stamp}
    assert [call.protocol_version for call in server.calls] == ["2026-07-28", "2026-07-28"]


def test_a_call_reads_none_for_a_name_arguments_or_uri_of_the_wrong_type() -> None:
    call = MCPCall(0, "tools/call", {"name": 5, "arguments": [1], "uri": 3}, None, None)

    assert (call.name, call.arguments, call.uri) == (None, None, None)


def test_enqueued_steps_are_numbered_after_the_first_ones() -> None:
    server = ScriptedMCPServer([mcp_tool_call("a", result="x")])
    server.enqueue(mcp_tool_call("b", result="y"), mcp_tool_call("c", result="z"))

    with pytest.raises(UnconsumedMCPStepsError) as raised:
        server.assert_complete()

    assert [step["step_index"] for step in raised.value.pending_steps] == [0, 1, 2]
    assert raised.value.remaining_steps == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param((5, None), "method must be a str, got int", id="method"),
        pytest.param(
            ("tools/list", [1]), "params must be a mapping or None, got list", id="params"
        ),
    ],
)
def test_serve_refuses_bad_arguments_saying_what_they_are(
    args: tuple[Any, Any], message: str
) -> None:
    with pytest.raises(TypeError) as raised:
        ScriptedMCPServer().serve(*args).close()

    assert str(raised.value) == message


def test_params_too_deep_to_record_are_refused_naming_the_method() -> None:
    with pytest.raises(ValueError, match=r"^tools/call params is nested \d+ levels deep"):
        ScriptedMCPServer().serve("tools/call", {"deep": nested(3000)}).close()


def test_a_resource_as_bytes_and_a_prompt_as_text_are_answered_in_mcps_shape() -> None:
    server = ScriptedMCPServer(
        [mcp_read_resource("file:///a.bin", result=b"\x00\x01"), mcp_get_prompt("p", result="Hi")]
    )

    assert serve(server, "resources/read", {"uri": "file:///a.bin"}) == {
        "contents": [
            {"uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": "AAE="}
        ]
    }
    assert serve(server, "prompts/get", {"name": "p", "arguments": {}}) == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]
    }


@pytest.mark.parametrize(
    ("method", "params", "reason"),
    [
        pytest.param("tools/list", {"cursor": "9"}, "invalid_params", id="cursor"),
        pytest.param("nope/x", None, "unknown_method", id="method"),
    ],
)
def test_refusals_of_listings_and_methods_name_the_session(
    method: str, params: dict[str, Any] | None, reason: str
) -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("a")])
    with pytest.raises(ScriptedJSONRPCError):
        serve(server, method, params)

    with pytest.raises(MCPProtocolError) as raised:
        server.assert_complete()

    assert (raised.value.reason, raised.value.session_id) == (reason, "s1")


def test_only_listings_wait_for_the_list_delay() -> None:
    server = ScriptedMCPServer(tools=[mcp_tool("t")], list_delay=0.05)

    async def run() -> None:
        initialize = asyncio.ensure_future(
            server.serve("initialize", {"protocolVersion": "2025-11-25"})
        )
        await asyncio.sleep(0)
        assert initialize.done()  # the handshake is not a listing

    asyncio.run(run())


def test_steps_of_the_wrong_type_are_named_by_their_type() -> None:
    with pytest.raises(TypeError, match=r"^ScriptedMCPServer steps must be .*, got int;"):
        ScriptedMCPServer(5)  # type: ignore[arg-type]


def test_an_offer_too_deep_to_record_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match=r"^tools\[0\] is nested \d+ levels deep"):
        ScriptedMCPServer(tools=[{"name": "t", "deep": nested(3000)}])


def test_notifications_that_are_not_a_list_are_shown_cut_to_40_characters() -> None:
    with pytest.raises(InvalidScriptedMCPStepError) as raised:
        ScriptedMCPServer([mcp_tool_call("t", result="x", notifications=10**60)])  # type: ignore[arg-type]

    assert raised.value.detail == "got " + repr(10**60)[:37] + "..."


def test_an_envelope_version_that_is_not_a_str_is_not_taken() -> None:
    server = ScriptedMCPServer()
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": 5}}

    with pytest.raises(ScriptedJSONRPCError) as raised:
        asyncio.run(server.serve("ping", params, protocol_version="2025-06-18"))

    assert raised.value.data == {"supported": ["2026-07-28"], "requested": "2025-06-18"}
