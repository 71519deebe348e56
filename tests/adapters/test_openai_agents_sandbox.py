"""The openai-agents sandbox session against the real SandboxAgent runtime (openai-agents)."""

from __future__ import annotations

import pytest

pytest.importorskip("agents")

import asyncio
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents import RunConfig, Runner
from agents.exceptions import UserError
from agents.sandbox import Manifest, SandboxAgent, SandboxRunConfig
from agents.sandbox.capabilities import Capability, Filesystem, Shell
from agents.sandbox.entries import File
from agents.sandbox.session.base_sandbox_session import BaseSandboxSession
from agents.sandbox.session.pty_types import PtyExecUpdate
from agents.sandbox.types import ExecResult, ExposedPortEndpoint, Group, User

from agents_testing import (
    InvalidScriptedSandboxStepError,
    RecordedModelCall,
    SandboxCall,
    SandboxStep,
    ScriptedModel,
    UnexpectedSandboxCallError,
    assistant_message,
    function_call,
    scripted_sandbox_session,
)
from agents_testing.adapters.openai_agents import (
    OPENAI_AGENTS_SANDBOX_INTERFACE,
    OpenAIAgentsSandboxSession,
    openai_agents_model,
    openai_agents_sandbox_session,
)

PROMPT = "Which directory are you in?"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8


def pwd_turns() -> list[Any]:
    """Return the model's turns for the guide's workflow: run `pwd`, then answer."""
    return [
        [function_call("exec_command", {"cmd": "pwd"}, call_id="call_1")],
        [assistant_message("The workspace is /workspace.")],
    ]


def sandbox_agent(model: ScriptedModel, *capabilities: Capability) -> SandboxAgent[Any]:
    """Build the agent under test: the real SandboxAgent, backed by the scripted model."""
    return SandboxAgent(
        name="Workspace assistant",
        model=openai_agents_model(model),
        capabilities=list(capabilities) if capabilities else [Shell()],
    )


def sandbox_config(sandbox: BaseSandboxSession, **options: Any) -> RunConfig:
    return RunConfig(tracing_disabled=True, sandbox=SandboxRunConfig(session=sandbox, **options))


def methods(sandbox: OpenAIAgentsSandboxSession) -> list[str]:
    return [call.method for call in sandbox.calls]


def tool_names(call: RecordedModelCall) -> list[str]:
    return [tool.name for tool in call.request.tools]


def tool_output(call: RecordedModelCall, call_id: str) -> Any:
    """Return what the model received, in ``call``'s input, as the output of tool ``call_id``."""
    outputs = [
        item["output"]
        for item in call.request.input
        if isinstance(item, Mapping)
        and item.get("type") == "function_call_output"
        and item.get("call_id") == call_id
    ]
    assert len(outputs) == 1, outputs
    return outputs[0]


def pty_update(output: bytes, *, process_id: int | None = 7) -> PtyExecUpdate:
    return PtyExecUpdate(
        process_id=process_id, output=output, exit_code=None, original_token_count=None
    )


# -- the guide's workflow ------------------------------------------------------------------


async def test_sandbox_agent_runs_pwd_through_the_scripted_exec(
    request: pytest.FixtureRequest,
) -> None:
    def expect_pwd(*command: object, timeout: object, shell: object, user: object) -> None:
        # The Shell capability has validated the model's arguments and built this call.
        assert command == ("pwd",)
        assert (timeout, shell, user) == (10.0, True, None)

    sandbox = openai_agents_sandbox_session(
        [{"method": "exec", "match": expect_pwd, "result": "/workspace\n"}]
    )
    model = ScriptedModel(pwd_turns())
    request.addfinalizer(sandbox.assert_complete)
    request.addfinalizer(model.assert_complete)

    result = await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    assert result.final_output == "The workspace is /workspace."
    assert methods(sandbox) == ["exec"]
    assert len(model.calls) == 2
    # The shell tool's report carries a random chunk id and a wall time, so match its parts.
    output = tool_output(model.calls[1], "call_1")
    assert "Process exited with code 0\nOutput:\n/workspace\n" in output


async def test_runtime_lifecycle_calls_are_served_and_not_recorded() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "exec", "result": "/workspace\n"}])
    model = ScriptedModel(pwd_turns())

    # The runtime sets limits, validates the manifest, checks running() and starts the
    # session on its own; none of that is part of the script.
    await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    assert [(call.method, call.args, call.kwargs) for call in sandbox.calls] == [
        ("exec", ("pwd",), {"timeout": 10.0, "shell": True, "user": None})
    ]
    # An injected session is started by the runtime and left running for the test.
    assert await sandbox.running() is True
    assert sandbox.state.workspace_root_ready is True
    sandbox.assert_complete()


async def test_streamed_run_drives_the_same_script() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "exec", "result": "/workspace\n"}])
    model = ScriptedModel(pwd_turns())

    result = Runner.run_streamed(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))
    items = [
        event.name
        async for event in result.stream_events()
        if event.type == "run_item_stream_event"
    ]

    assert items == ["tool_called", "tool_output", "message_output_created"]
    assert result.final_output == "The workspace is /workspace."
    assert [call.streamed for call in model.calls] == [True, True]
    assert methods(sandbox) == ["exec"]
    sandbox.assert_complete()
    model.assert_complete()


# -- PTY capability detection --------------------------------------------------------------


async def test_scripted_pty_methods_offer_write_stdin_and_run_commands_in_a_pty() -> None:
    sandbox = openai_agents_sandbox_session(
        [
            {
                "method": "pty_exec_start",
                "match": lambda *command, tty, **_: command == ("python3",) and tty is True,
                "result": pty_update(b">>> "),
            },
            {"method": "pty_write_stdin", "result": pty_update(b"42\n>>> ")},
        ]
    )
    model = ScriptedModel(
        [
            [function_call("exec_command", {"cmd": "python3", "tty": True}, call_id="call_1")],
            [
                function_call(
                    "write_stdin", {"session_id": 7, "chars": "print(6 * 7)\n"}, call_id="call_2"
                )
            ],
            [assistant_message("It printed 42.")],
        ]
    )

    result = await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    assert result.final_output == "It printed 42."
    assert sandbox.supports_pty() is True
    assert tool_names(model.calls[0]) == ["exec_command", "write_stdin"]
    assert methods(sandbox) == ["pty_exec_start", "pty_write_stdin"]
    assert sandbox.calls[1].kwargs == {
        "session_id": 7,
        "chars": "print(6 * 7)\n",
        "yield_time_s": 0.25,
        "max_output_tokens": None,
    }
    assert "Process running with session ID 7" in tool_output(model.calls[1], "call_1")
    assert "42\n>>> " in tool_output(model.calls[2], "call_2")
    sandbox.assert_complete()
    model.assert_complete()


async def test_without_pty_methods_write_stdin_is_not_offered() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "exec", "result": "/workspace\n"}])
    model = ScriptedModel(pwd_turns())

    await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    assert sandbox.supports_pty() is False
    assert tool_names(model.calls[0]) == ["exec_command"]
    sandbox.assert_complete()


@pytest.mark.parametrize(
    ("scripted", "expected"),
    [
        (["pty_exec_start"], True),
        (["pty_write_stdin"], True),
        (["exec", "read"], False),
        ([], False),
    ],
)
def test_supports_pty_follows_the_scripted_methods(scripted: list[str], expected: bool) -> None:
    steps: list[SandboxStep] = [{"method": method, "result": None} for method in scripted]
    sandbox = openai_agents_sandbox_session(steps)

    assert sandbox.supports_pty() is expected
    assert sandbox.calls == ()  # derived from the script, never a step


# -- errors and drift ----------------------------------------------------------------------


async def test_error_step_reaches_the_model_as_the_tools_output() -> None:
    sandbox = openai_agents_sandbox_session(
        [{"method": "read", "error": FileNotFoundError("chart.png")}]
    )
    model = ScriptedModel(
        [
            [function_call("view_image", {"path": "chart.png"}, call_id="call_1")],
            [assistant_message("There is no chart yet.")],
        ]
    )

    result = await Runner.run(
        sandbox_agent(model, Filesystem()), PROMPT, run_config=sandbox_config(sandbox)
    )

    assert result.final_output == "There is no chart yet."
    assert tool_output(model.calls[1], "call_1") == "image path `chart.png` was not found"
    assert [(call.method, call.args) for call in sandbox.calls] == [
        ("read", (Path("/workspace/chart.png"),))
    ]
    sandbox.assert_complete()
    model.assert_complete()


async def test_exec_timeout_step_reaches_the_model_as_a_timed_out_command() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "exec", "error": TimeoutError()}])
    model = ScriptedModel(pwd_turns())

    await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    output = tool_output(model.calls[1], "call_1")
    assert output.endswith("Output:\nCommand timed out after 10.000 seconds.")
    sandbox.assert_complete()
    model.assert_complete()


async def test_error_the_tool_does_not_handle_fails_the_run() -> None:
    boom = RuntimeError("sandbox lost")
    sandbox = openai_agents_sandbox_session([{"method": "exec", "error": boom}])
    model = ScriptedModel(pwd_turns())

    with pytest.raises(UserError) as caught:
        await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    assert caught.value.__cause__ is boom
    sandbox.assert_complete()  # the step was used as scripted


async def test_unscripted_call_fails_assert_complete_even_when_the_tool_hid_it() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "exec", "result": "/workspace\n"}])
    model = ScriptedModel(
        [
            [function_call("view_image", {"path": "chart.png"}, call_id="call_1")],
            [assistant_message("I could not open the chart.")],
        ]
    )

    result = await Runner.run(
        sandbox_agent(model, Filesystem(), Shell()), PROMPT, run_config=sandbox_config(sandbox)
    )

    # view_image turns any read failure into tool output, so the run itself succeeds...
    assert result.final_output == "I could not open the chart."
    assert tool_output(model.calls[1], "call_1") == (
        "unable to read image at `chart.png`: UnexpectedSandboxCallError"
    )
    # ...but the drift is recorded, and the teardown check reports it.
    assert methods(sandbox) == ["read"]
    with pytest.raises(UnexpectedSandboxCallError) as caught:
        sandbox.assert_complete()
    error = caught.value
    assert (error.call_index, error.actual_method, error.expected_method) == (0, "read", "exec")
    assert error.remaining_steps == 0  # the unexpected call used up the head step


async def test_unscripted_operation_raises_unexpected_sandbox_call() -> None:
    sandbox = openai_agents_sandbox_session([])

    with pytest.raises(UnexpectedSandboxCallError) as caught:
        await sandbox.ls("/workspace")

    assert (caught.value.actual_method, caught.value.expected_method) == ("ls", None)
    assert [(call.method, call.args, call.kwargs) for call in sandbox.calls] == [
        ("ls", ("/workspace",), {"user": None})
    ]


@pytest.mark.parametrize("method", ["supports_pty", "exec_command", "read_bounded", "aclose"])
def test_step_for_a_method_outside_the_interface_is_invalid(method: str) -> None:
    with pytest.raises(InvalidScriptedSandboxStepError) as caught:
        openai_agents_sandbox_session([{"method": method, "result": None}])

    assert (caught.value.reason, caught.value.input_index) == ("unknown_method", 0)


# -- lifecycle -----------------------------------------------------------------------------


async def test_scripted_start_is_a_step_and_the_session_starts_once() -> None:
    sandbox = openai_agents_sandbox_session(
        [{"method": "start", "result": None}, {"method": "exec", "result": "/workspace\n"}]
    )
    model = ScriptedModel(pwd_turns())

    await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    # running() is still served, and a successful scripted start marks the session running,
    # so the second turn does not start it again.
    assert methods(sandbox) == ["start", "exec"]
    sandbox.assert_complete()


async def test_scripted_start_error_fails_the_run() -> None:
    unavailable = ConnectionError("no sandbox capacity")
    sandbox = openai_agents_sandbox_session([{"method": "start", "error": unavailable}])
    model = ScriptedModel(pwd_turns())

    with pytest.raises(ConnectionError) as caught:
        await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    assert caught.value is unavailable
    assert model.calls == ()
    assert await sandbox.running() is False
    sandbox.assert_complete()


async def test_pre_started_session_is_not_started_again() -> None:
    sandbox = openai_agents_sandbox_session(
        [{"method": "start", "result": None}, {"method": "exec", "result": "/workspace\n"}]
    )
    await sandbox.start()

    await Runner.run(
        sandbox_agent(ScriptedModel(pwd_turns())), PROMPT, run_config=sandbox_config(sandbox)
    )

    assert methods(sandbox) == ["start", "exec"]
    sandbox.assert_complete()


async def test_async_with_serves_start_stop_and_shutdown() -> None:
    sandbox = openai_agents_sandbox_session([])
    hook_runs: list[str] = []

    async def pre_stop_hook() -> None:
        hook_runs.append("ran")

    sandbox.register_pre_stop_hook(pre_stop_hook)
    async with sandbox:
        assert await sandbox.running() is True

    assert await sandbox.running() is False
    assert hook_runs == ["ran"]
    assert sandbox.calls == ()
    sandbox.assert_complete()


async def test_named_lifecycle_methods_become_scripted_steps() -> None:
    sandbox = openai_agents_sandbox_session(
        [
            {"method": "running", "result": True},
            {"method": "run_pre_stop_hooks", "result": None},
            {"method": "stop", "result": None},
            {"method": "shutdown", "result": None},
            {"method": "pty_terminate_all", "result": None},
        ]
    )

    assert await sandbox.running() is True
    await sandbox.aclose()  # the SDK's aclose: pre-stop hooks, stop, shutdown
    await sandbox.pty_terminate_all()

    assert methods(sandbox) == [
        "running",
        "run_pre_stop_hooks",
        "stop",
        "shutdown",
        "pty_terminate_all",
    ]
    sandbox.assert_complete()


async def test_manifest_methods_are_served_without_materializing() -> None:
    sandbox = openai_agents_sandbox_session([])

    result = await sandbox.apply_manifest()
    await sandbox.provision_manifest_accounts()

    assert result.files == []
    assert sandbox.calls == ()


def sdk_manifest() -> Manifest:
    """Return an SDK manifest with every part a later edit could reach."""
    return Manifest(
        root="/srv/app",
        entries={"notes.txt": File(content=b"hello")},
        users=[User(name="dev")],
        groups=[Group(name="team", users=[User(name="dev")])],
    )


def edit_manifest(manifest: Manifest) -> None:
    """Change the manifest's root, entries, users and groups in place."""
    manifest.root = "/changed"
    manifest.entries["notes.txt"] = File(content=b"changed")
    manifest.entries["extra.txt"] = File(content=b"added")
    manifest.users.append(User(name="intruder"))
    manifest.groups[0].users.clear()


@pytest.mark.parametrize("editor", ["workflow", "matcher", "responder"])
async def test_the_core_session_records_an_sdk_manifest_as_it_was_sent(editor: str) -> None:
    def match(manifest: Manifest) -> None:
        if editor == "matcher":
            edit_manifest(manifest)

    def respond(call: SandboxCall) -> None:
        if editor == "responder":
            edit_manifest(call.args[0])

    session = scripted_sandbox_session(
        [{"method": "apply_manifest", "match": match, "respond": respond}]
    )
    sent = sdk_manifest()
    await session.apply_manifest(sent)
    if editor == "workflow":
        edit_manifest(sent)

    recorded: Manifest = session.calls[0].args[0]
    assert recorded == sdk_manifest()
    assert recorded.root == "/srv/app"
    assert list(recorded.entries) == ["notes.txt"]
    assert [user.name for user in recorded.users] == ["dev"]
    assert [user.name for user in recorded.groups[0].users] == ["dev"]
    session.assert_complete()


async def test_scripted_apply_manifest_records_the_sdk_signature_only() -> None:
    # The SDK's apply_manifest takes no manifest: it applies state.manifest, which the
    # session copied when it was built.
    given = sdk_manifest()
    sandbox = openai_agents_sandbox_session(
        [{"method": "apply_manifest", "result": None}], manifest=given
    )
    edit_manifest(given)
    await sandbox.apply_manifest(only_ephemeral=True)
    assert sandbox.calls == (SandboxCall(0, "apply_manifest", (), {"only_ephemeral": True}),)
    assert sandbox.state.manifest == sdk_manifest()


# -- the runtime's own exec calls ----------------------------------------------------------


async def test_run_cwd_probes_reach_the_script_as_exec_calls() -> None:
    def cwd_probe(flag: str) -> SandboxStep:
        # The runtime checks the run's cwd with `test -d` and `test -x` before every turn.
        expected = ("test", flag, "/workspace/src")
        return {
            "method": "exec",
            "match": lambda *command, shell, **_: command == expected and shell is False,
            "result": b"",
        }

    probes = [cwd_probe("-d"), cwd_probe("-x")]
    sandbox = openai_agents_sandbox_session(
        [*probes, {"method": "exec", "result": "/workspace/src\n"}, *probes]
    )
    model = ScriptedModel(pwd_turns())

    await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox, cwd="src"))

    assert sandbox.calls[2].args == ("cd /workspace/src || exit\npwd",)
    sandbox.assert_complete()
    model.assert_complete()


async def test_manifest_root_shapes_the_commands_the_shell_builds() -> None:
    manifest = Manifest(root="/repo")
    sandbox = openai_agents_sandbox_session(
        [{"method": "exec", "result": "/repo/src\n"}], manifest=manifest
    )
    model = ScriptedModel(
        [
            [function_call("exec_command", {"cmd": "pwd", "workdir": "src"}, call_id="call_1")],
            [assistant_message("The workspace is /repo/src.")],
        ]
    )

    await Runner.run(sandbox_agent(model), PROMPT, run_config=sandbox_config(sandbox))

    assert sandbox.calls[0].args == ("cd /repo/src || exit\npwd",)
    assert sandbox.state.manifest.root == "/repo"
    assert sandbox.state.manifest is not manifest
    sandbox.assert_complete()


# -- result shorthands ---------------------------------------------------------------------


@pytest.mark.parametrize("stdout", ["/workspace\n", b"/workspace\n", bytearray(b"/workspace\n")])
async def test_text_or_bytes_exec_result_is_a_successful_exec_result(stdout: Any) -> None:
    sandbox = openai_agents_sandbox_session([{"method": "exec", "result": stdout}])

    result = await sandbox.exec("pwd")

    assert isinstance(result, ExecResult)
    assert (result.stdout, result.stderr, result.exit_code) == (b"/workspace\n", b"", 0)


async def test_shorthand_applies_to_responder_values() -> None:
    sandbox = openai_agents_sandbox_session(
        [
            {"method": "exec", "respond": lambda call: f"ran {call.args[0]}"},
            {"method": "read", "respond": lambda call: f"read {call.args[0]}"},
        ]
    )

    result = await sandbox.exec("pwd")
    stream = await sandbox.read(Path("/workspace/a.txt"))

    assert result.stdout == b"ran pwd"
    assert stream.read() == b"read /workspace/a.txt"


@pytest.mark.parametrize("content", ["héllo", b"h\xc3\xa9llo"])
async def test_text_or_bytes_read_result_is_a_bytes_stream(content: Any) -> None:
    sandbox = openai_agents_sandbox_session([{"method": "read", "result": content}])

    stream = await sandbox.read(Path("/workspace/notes.txt"))

    assert isinstance(stream, io.BytesIO)
    assert stream.read() == "héllo".encode()


async def test_other_results_are_returned_as_they_are() -> None:
    exec_result = ExecResult(stdout=b"", stderr=b"denied\n", exit_code=1)
    text_stream = io.StringIO("text")
    sandbox = openai_agents_sandbox_session(
        [{"method": "exec", "result": exec_result}, {"method": "read", "result": text_stream}]
    )

    assert await sandbox.exec("cat", "secret") is exec_result
    assert await sandbox.read(Path("notes.txt")) is text_stream


async def test_read_bounded_reads_through_the_scripted_read() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "read", "result": "hello world"}])

    assert await sandbox.read_bounded(Path("/workspace/notes.txt"), max_bytes=5) == b"hello"
    assert methods(sandbox) == ["read"]


async def test_view_image_gets_the_read_shorthand_as_image_bytes() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "read", "result": PNG}])
    model = ScriptedModel(
        [
            [function_call("view_image", {"path": "chart.png"}, call_id="call_1")],
            [assistant_message("A chart.")],
        ]
    )

    await Runner.run(sandbox_agent(model, Filesystem()), PROMPT, run_config=sandbox_config(sandbox))

    [image] = tool_output(model.calls[1], "call_1")
    assert image["type"] == "input_image"
    assert image["image_url"].startswith("data:image/png;base64,")
    sandbox.assert_complete()


# -- the method table ----------------------------------------------------------------------


async def test_calls_record_every_argument_of_the_sdk_signature() -> None:
    endpoint = ExposedPortEndpoint(host="127.0.0.1", port=8080)
    payload = io.BytesIO(b"data")
    results: dict[str, Any] = {
        "ls": [],
        "same_file": True,
        "apply_patch": "Done!",
        "persist_workspace": io.BytesIO(b""),
        "resolve_exposed_port": endpoint,
    }
    sandbox = openai_agents_sandbox_session(
        [
            {"method": method, "result": results.get(method)}
            for method in (
                "write",
                "ls",
                "rm",
                "mkdir",
                "mv",
                "same_file",
                "extract",
                "apply_patch",
                "persist_workspace",
                "hydrate_workspace",
                "resolve_exposed_port",
            )
        ]
    )

    await sandbox.write(Path("a.txt"), payload)
    await sandbox.ls("src")
    await sandbox.rm("a.txt")
    await sandbox.mkdir("src/pkg", parents=True)
    await sandbox.mv("a.txt", "b.txt")
    await sandbox.same_file("a.txt", "b.txt")
    await sandbox.extract("out", payload, compression_scheme="zip")
    await sandbox.apply_patch({"type": "delete_file", "path": "a.txt"})
    await sandbox.persist_workspace()
    await sandbox.hydrate_workspace(payload)
    assert await sandbox.resolve_exposed_port(8080) is endpoint

    assert [(call.method, call.args, call.kwargs) for call in sandbox.calls] == [
        ("write", (Path("a.txt"), payload), {"user": None}),
        ("ls", ("src",), {"user": None}),
        ("rm", ("a.txt",), {"recursive": False, "user": None}),
        ("mkdir", ("src/pkg",), {"parents": True, "user": None}),
        ("mv", ("a.txt", "b.txt"), {"user": None}),
        ("same_file", ("a.txt", "b.txt"), {"follow_symlinks": True, "user": None}),
        ("extract", ("out", payload), {"compression_scheme": "zip", "archive_limits": None}),
        ("apply_patch", ({"type": "delete_file", "path": "a.txt"},), {"patch_format": "v4a"}),
        ("persist_workspace", (), {}),
        ("hydrate_workspace", (payload,), {}),
        ("resolve_exposed_port", (8080,), {}),
    ]
    sandbox.assert_complete()


def test_interface_lists_the_scriptable_methods_as_asynchronous() -> None:
    assert set(OPENAI_AGENTS_SANDBOX_INTERFACE.values()) == {"async"}
    for method in OPENAI_AGENTS_SANDBOX_INTERFACE:
        assert hasattr(BaseSandboxSession, method), method


def test_session_is_a_base_sandbox_session_with_the_core_controls() -> None:
    sandbox = openai_agents_sandbox_session([{"method": "exec", "result": ""}])

    assert isinstance(sandbox, BaseSandboxSession)
    assert sandbox.remaining_steps == 1
    assert isinstance(sandbox.calls, tuple)
    assert all(isinstance(call, SandboxCall) for call in sandbox.calls)
    assert repr(sandbox) == "<OpenAIAgentsSandboxSession calls=0 remaining_steps=1>"


def test_async_with_keeps_the_sdk_session_lifecycle() -> None:
    # The core session's completion context manager must not leak into the SDK session:
    # "async with" still starts and closes the session, and never checks the script.
    sandbox = openai_agents_sandbox_session(
        [{"method": "start", "result": None}, {"method": "exec", "result": "left over"}]
    )

    async def run() -> bool:
        async with sandbox:
            return await sandbox.running()

    assert asyncio.run(run()) is True
    assert [call.method for call in sandbox.calls] == ["start"]
    assert sandbox.remaining_steps == 1
    assert not hasattr(type(sandbox), "__enter__")


def test_none_as_the_script_is_refused_like_the_core_session() -> None:
    with pytest.raises(TypeError, match="steps must be an iterable of steps, got NoneType"):
        openai_agents_sandbox_session(None)  # type: ignore[arg-type]
