"""Tests for scripted_sandbox_session: script validation, ordering, outcomes and bookkeeping."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import pickle
from collections.abc import Generator, Iterator, Mapping
from typing import Any

import pytest

from agents_testing.errors import (
    InvalidScriptedSandboxStepError,
    SandboxCallMatcherError,
    UnconsumedSandboxStepsError,
    UnexpectedSandboxCallError,
)
from agents_testing.model import ScriptedModel
from agents_testing.sandbox import (
    DEFAULT_SANDBOX_INTERFACE,
    SandboxCall,
    ScriptedSandboxSession,
    scripted_sandbox_session,
)


class Manifest:
    """A class-instance manifest, which plain snapshots would keep by identity."""

    def __init__(self, entries: dict[str, str]) -> None:
        self.entries = entries


class Ready:
    """An awaitable that is not a coroutine: awaiting it gives ``value``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        return self.value
        yield  # makes this a generator


def invalid_step(steps: Any, **kwargs: Any) -> InvalidScriptedSandboxStepError:
    with pytest.raises(InvalidScriptedSandboxStepError) as caught:
        scripted_sandbox_session(steps, **kwargs)
    return caught.value


# -- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize("step", [7, None, "exec", ["method", "exec"], lambda: None])
def test_non_mapping_step_is_invalid_input(step: Any) -> None:
    error = invalid_step([step])
    assert (error.reason, error.input_index, error.method) == ("invalid_input", 0, None)
    assert str(error).startswith("Scripted sandbox step #1 must be an object.")


def test_string_script_is_read_by_character_and_is_invalid_input() -> None:
    error = invalid_step("start")
    assert (error.reason, error.input_index) == ("invalid_input", 0)


def test_any_mapping_is_a_step() -> None:
    class Step(Mapping[str, Any]):
        def __init__(self, **fields: Any) -> None:
            self._fields = fields

        def __getitem__(self, key: str) -> Any:
            return self._fields[key]

        def __iter__(self) -> Iterator[str]:
            return iter(self._fields)

        def __len__(self) -> int:
            return len(self._fields)

    session = scripted_sandbox_session([Step(method="supports_pty", result=True)])
    assert session.supports_pty() is True


def test_input_index_is_the_position_of_the_first_invalid_step() -> None:
    ok = {"method": "start", "result": None}
    error = invalid_step([ok, ok, 7, {"method": "bogus"}])
    assert (error.reason, error.input_index) == ("invalid_input", 2)
    assert str(error).startswith("Scripted sandbox step #3 must be an object.")


def test_steps_are_read_eagerly_and_stop_at_the_first_invalid_step() -> None:
    def steps() -> Iterator[Any]:
        yield {"method": "start", "result": None}
        yield 7
        yield {"method": "stop", "result": None}

    script = steps()
    error = invalid_step(script)
    assert error.input_index == 1
    assert next(script) == {"method": "stop", "result": None}


def test_steps_from_a_generator_are_all_used() -> None:
    session = scripted_sandbox_session(
        {"method": name, "result": None} for name in ("start", "stop")
    )
    assert session.remaining_steps == 2


@pytest.mark.parametrize(
    "method",
    ["bogus", "execCommand", "calls", "remaining_steps", "assert_complete", "__init__", ""],
)
def test_name_outside_the_interface_is_unknown_method(method: str) -> None:
    error = invalid_step([{"method": method, "result": None}])
    assert (error.reason, error.input_index, error.method) == ("unknown_method", 0, method)
    assert str(error).startswith("Scripted sandbox step #1 has an unknown method.")


@pytest.mark.parametrize("step", [{"result": None}, {"method": 5, "result": None}])
def test_missing_or_non_string_method_is_unknown_method_without_a_method(
    step: dict[str, Any],
) -> None:
    error = invalid_step([step])
    assert (error.reason, error.input_index, error.method) == ("unknown_method", 0, None)
    assert str(error).startswith("Scripted sandbox step #1 has an unknown method.")


def test_unknown_method_is_reported_before_a_bad_matcher() -> None:
    error = invalid_step([{"method": "bogus", "match": 5}])
    assert error.reason == "unknown_method"


@pytest.mark.parametrize("match", [5, "cmd", True])
def test_non_callable_matcher_is_invalid_matcher(match: Any) -> None:
    error = invalid_step([{"method": "exec_command", "match": match, "result": ""}])
    assert (error.reason, error.input_index, error.method) == (
        "invalid_matcher",
        0,
        "exec_command",
    )
    assert str(error).startswith(
        "Scripted sandbox step #1 for exec_command must use a function matcher."
    )


def test_bad_matcher_is_reported_before_a_missing_outcome() -> None:
    error = invalid_step([{"method": "start", "match": 5}])
    assert error.reason == "invalid_matcher"


def test_matcher_none_counts_as_no_matcher() -> None:
    session = scripted_sandbox_session([{"method": "supports_pty", "match": None, "result": 1}])
    assert session.supports_pty("anything") == 1


@pytest.mark.parametrize(
    "outcomes",
    [
        {},
        {"result": 1, "error": ValueError()},
        {"result": 1, "respond": lambda call: 1},
        {"result": None, "respond": None, "error": None},
    ],
)
def test_step_without_exactly_one_outcome_is_invalid_outcome(outcomes: dict[str, Any]) -> None:
    error = invalid_step([{"method": "stop", **outcomes}])
    assert (error.reason, error.input_index, error.method) == ("invalid_outcome", 0, "stop")
    assert str(error).startswith(
        "Scripted sandbox step #1 for stop must define exactly one of result, respond, or error."
    )


@pytest.mark.parametrize("respond", [None, "text", 3])
def test_non_callable_responder_is_invalid_outcome(respond: Any) -> None:
    error = invalid_step([{"method": "read_file", "respond": respond}])
    assert (error.reason, error.input_index, error.method) == ("invalid_outcome", 0, "read_file")
    assert str(error).startswith(
        "Scripted sandbox step #1 for read_file must use a function responder."
    )


@pytest.mark.parametrize("value", [None, "boom", ValueError, 404])
def test_error_that_is_not_an_exception_instance_is_invalid_outcome(value: Any) -> None:
    error = invalid_step([{"method": "start", "result": None}, {"method": "exec", "error": value}])
    assert (error.reason, error.input_index, error.method) == ("invalid_outcome", 1, "exec")
    assert str(error).startswith(
        "Scripted sandbox step #2 for exec must use an exception instance as its error."
    )


def test_result_none_is_a_valid_result() -> None:
    session = scripted_sandbox_session([{"method": "set_archive_limits", "result": None}])
    assert session.set_archive_limits({"max_bytes": 1}) is None


def test_no_steps_is_an_empty_script() -> None:
    assert scripted_sandbox_session().remaining_steps == 0
    assert scripted_sandbox_session([]).remaining_steps == 0


@pytest.mark.parametrize("steps", [None, 5, {"method": "start", "result": None}])
def test_steps_that_are_not_a_list_of_steps_are_refused_like_the_models(steps: Any) -> None:
    with pytest.raises(TypeError) as caught:
        scripted_sandbox_session(steps)
    with pytest.raises(TypeError) as model_caught:
        ScriptedModel(steps)

    kind = type(steps).__name__
    assert str(caught.value) == (
        f"ScriptedSandboxSession steps must be an iterable of steps, got {kind}; "
        "wrap a single step in a list."
    )
    assert str(caught.value).replace("ScriptedSandboxSession", "ScriptedModel") == str(
        model_caught.value
    )
    assert not isinstance(caught.value, InvalidScriptedSandboxStepError)


def test_non_iterable_steps_raise_a_plain_type_error() -> None:
    with pytest.raises(TypeError) as caught:
        scripted_sandbox_session(5)  # type: ignore[arg-type]
    assert not isinstance(caught.value, InvalidScriptedSandboxStepError)


# -- installed methods and ordering --------------------------------------------------------


def test_only_scripted_methods_exist_on_the_session() -> None:
    session = scripted_sandbox_session([{"method": "exec_command", "result": ""}])
    assert hasattr(session, "exec_command")
    assert not hasattr(session, "exec")
    assert not hasattr(session, "supports_pty")
    assert isinstance(session, ScriptedSandboxSession)


def test_calling_an_unscripted_method_records_nothing_and_keeps_the_script() -> None:
    session = scripted_sandbox_session([{"method": "start", "result": None}])
    with pytest.raises(AttributeError):
        session.stop()
    assert session.calls == ()
    assert session.remaining_steps == 1


def test_repr_lists_scripted_methods_in_order_of_first_appearance() -> None:
    session = scripted_sandbox_session(
        [{"method": name, "result": None} for name in ("stop", "start", "stop")]
    )
    assert repr(session) == (
        "<ScriptedSandboxSession methods=[stop, start] calls=0 remaining_steps=3>"
    )


async def test_steps_are_used_in_one_order_across_sync_and_async_methods() -> None:
    session = scripted_sandbox_session(
        [
            {"method": "start", "result": None},
            {"method": "supports_pty", "result": True},
            {"method": "exec_command", "result": "ok"},
        ]
    )
    assert await session.start() is None
    assert session.supports_pty() is True
    assert await session.exec_command({"cmd": "true"}) == "ok"
    assert [call.method for call in session.calls] == ["start", "supports_pty", "exec_command"]
    session.assert_complete()


def test_sync_method_called_out_of_order_raises_unexpected_call_at_once() -> None:
    session = scripted_sandbox_session(
        [{"method": "exec_command", "result": ""}, {"method": "supports_pty", "result": True}]
    )
    with pytest.raises(UnexpectedSandboxCallError) as caught:
        session.supports_pty()
    error = caught.value
    assert (error.call_index, error.actual_method, error.expected_method) == (
        0,
        "supports_pty",
        "exec_command",
    )
    assert error.remaining_steps == 1
    assert str(error).startswith(
        "Scripted sandbox session received unexpected supports_pty call #1; expected exec_command."
    )


async def test_async_method_called_out_of_order_fails_when_awaited() -> None:
    session = scripted_sandbox_session(
        [{"method": "supports_pty", "result": True}, {"method": "write_stdin", "result": ""}]
    )
    pending = session.write_stdin({"chars": "ls\n"})
    with pytest.raises(UnexpectedSandboxCallError) as caught:
        await pending
    error = caught.value
    assert (error.call_index, error.actual_method, error.expected_method) == (
        0,
        "write_stdin",
        "supports_pty",
    )
    assert error.remaining_steps == 1
    assert str(error).startswith(
        "Scripted sandbox session received unexpected write_stdin call #1; expected supports_pty."
    )


async def test_wrong_call_uses_up_the_head_step_and_shifts_the_script() -> None:
    session = scripted_sandbox_session(
        [{"method": "start", "result": None}, {"method": "stop", "result": None}]
    )
    with pytest.raises(UnexpectedSandboxCallError) as first:
        await session.stop()
    with pytest.raises(UnexpectedSandboxCallError) as second:
        await session.start()
    assert (first.value.expected_method, first.value.remaining_steps) == ("start", 1)
    assert (second.value.call_index, second.value.expected_method) == (1, "stop")
    assert second.value.remaining_steps == 0
    assert session.remaining_steps == 0
    assert [call.method for call in session.calls] == ["stop", "start"]


async def test_call_after_the_script_ends_is_unexpected_with_no_expected_method() -> None:
    session = scripted_sandbox_session([{"method": "start", "result": None}])
    await session.start()
    with pytest.raises(UnexpectedSandboxCallError) as caught:
        await session.start()
    error = caught.value
    assert (error.call_index, error.actual_method, error.expected_method) == (1, "start", None)
    assert error.remaining_steps == 0
    assert str(error).startswith(
        "Scripted sandbox session received unexpected start call #2; no scripted steps remain."
    )


async def test_methods_work_when_detached_from_the_session() -> None:
    session = scripted_sandbox_session([{"method": "running", "result": True}])
    running = session.running
    assert await running() is True


# -- matchers ------------------------------------------------------------------------------


def test_matcher_returning_false_rejects_the_call() -> None:
    session = scripted_sandbox_session(
        [{"method": "create_editor", "match": lambda run_as: run_as == "root", "result": "ed"}]
    )
    with pytest.raises(SandboxCallMatcherError) as caught:
        session.create_editor("guest")
    assert (caught.value.call_index, caught.value.method) == (0, "create_editor")
    assert str(caught.value).startswith(
        "Scripted sandbox session matcher rejected create_editor call #1."
    )


async def test_matcher_rejection_of_an_async_method_fails_when_awaited() -> None:
    session = scripted_sandbox_session(
        [{"method": "path_exists", "match": lambda path: False, "result": True}]
    )
    pending = session.path_exists("/a")
    with pytest.raises(SandboxCallMatcherError) as caught:
        await pending
    assert (caught.value.call_index, caught.value.method) == (0, "path_exists")
    assert str(caught.value).startswith(
        "Scripted sandbox session matcher rejected path_exists call #1."
    )


@pytest.mark.parametrize("verdict", [None, 0, "", [], True, "no"])
def test_only_false_from_a_matcher_rejects(verdict: Any) -> None:
    session = scripted_sandbox_session(
        [{"method": "supports_pty", "match": lambda: verdict, "result": True}]
    )
    assert session.supports_pty() is True


def test_matcher_receives_positional_and_keyword_arguments() -> None:
    seen: list[tuple[Any, ...]] = []

    def match(*args: Any, **kwargs: Any) -> None:
        seen.append((args, kwargs))

    session = scripted_sandbox_session(
        [{"method": "set_archive_limits", "match": match, "result": None}]
    )
    session.set_archive_limits({"max_bytes": 10}, strict=True)
    assert seen == [(({"max_bytes": 10},), {"strict": True})]


def test_matcher_changes_to_its_arguments_do_not_reach_the_record() -> None:
    def match(limits: dict[str, Any], *, tags: list[str]) -> None:
        limits["max_bytes"] = 0
        tags.clear()

    session = scripted_sandbox_session(
        [{"method": "set_archive_limits", "match": match, "result": None}]
    )
    session.set_archive_limits({"max_bytes": 10}, tags=["a"])
    assert session.calls[0].args == ({"max_bytes": 10},)
    assert session.calls[0].kwargs == {"tags": ["a"]}


def test_matcher_exception_propagates_unchanged_after_the_step_is_used() -> None:
    failure = AssertionError("wrong limits")

    def match(limits: Any) -> None:
        raise failure

    session = scripted_sandbox_session(
        [{"method": "set_archive_limits", "match": match, "result": None}]
    )
    with pytest.raises(AssertionError) as caught:
        session.set_archive_limits({})
    assert caught.value is failure
    assert session.remaining_steps == 0
    assert len(session.calls) == 1


async def test_matcher_exception_of_an_async_method_is_raised_when_awaited() -> None:
    failure = AssertionError("wrong command")

    def match(args: Any) -> None:
        raise failure

    session = scripted_sandbox_session([{"method": "exec", "match": match, "result": None}])
    pending = session.exec({"cmd": "rm -rf /"})
    assert session.remaining_steps == 0
    with pytest.raises(AssertionError) as caught:
        await pending
    assert caught.value is failure


def test_rejected_call_uses_up_its_step() -> None:
    session = scripted_sandbox_session(
        [
            {"method": "supports_pty", "match": lambda: False, "result": True},
            {"method": "supports_pty", "result": False},
        ]
    )
    with pytest.raises(SandboxCallMatcherError):
        session.supports_pty()
    assert session.remaining_steps == 1
    assert session.supports_pty() is False


# -- outcomes ------------------------------------------------------------------------------


async def test_result_is_a_snapshot_taken_when_the_script_is_built() -> None:
    listing = [{"name": "a.txt"}]
    session = scripted_sandbox_session([{"method": "list_dir", "result": listing}])
    listing[0]["name"] = "changed"
    listing.append({"name": "b.txt"})
    returned = await session.list_dir({"path": "/workspace"})
    assert returned == [{"name": "a.txt"}]
    assert returned is not listing


async def test_result_keeps_class_instances_by_identity() -> None:
    manifest = Manifest({"a": "b"})
    session = scripted_sandbox_session([{"method": "read_file", "result": {"m": manifest}}])
    assert (await session.read_file({"path": "m"}))["m"] is manifest


async def test_awaitable_result_of_an_async_method_is_returned_as_it_is() -> None:
    ready = Ready("inner")
    session = scripted_sandbox_session([{"method": "running", "result": ready}])
    assert await session.running() is ready


def test_sync_responder_gets_a_detached_call_and_its_value_is_returned_as_it_is() -> None:
    received: list[SandboxCall] = []
    editor = object()

    def respond(call: SandboxCall) -> object:
        received.append(call)
        call.args[0]["user"] = "changed"
        return editor

    session = scripted_sandbox_session([{"method": "create_editor", "respond": respond}])
    assert session.create_editor({"user": "root"}, mode="rw") is editor
    assert received == [SandboxCall(0, "create_editor", ({"user": "root"},), {"mode": "rw"})]
    assert session.calls[0].args == ({"user": "root"},)


async def test_async_responder_is_awaited_for_an_async_method() -> None:
    async def respond(call: SandboxCall) -> str:
        await asyncio.sleep(0)
        return f"read {call.args[0]['path']} at call {call.index}"

    session = scripted_sandbox_session([{"method": "read_file", "respond": respond}])
    assert await session.read_file({"path": "a.txt"}) == "read a.txt at call 0"


async def test_sync_responder_value_is_returned_for_an_async_method() -> None:
    session = scripted_sandbox_session(
        [{"method": "resolve_exposed_port", "respond": lambda call: {"port": call.args[0]}}]
    )
    assert await session.resolve_exposed_port(8080) == {"port": 8080}


def test_awaitable_from_a_responder_of_a_sync_method_is_returned_unchanged() -> None:
    ready = Ready(True)
    session = scripted_sandbox_session([{"method": "supports_pty", "respond": lambda call: ready}])
    assert session.supports_pty() is ready


async def test_responder_exception_is_raised_when_an_async_method_is_awaited() -> None:
    failure = OSError("disk full")

    def respond(call: SandboxCall) -> None:
        raise failure

    session = scripted_sandbox_session([{"method": "persist_workspace", "respond": respond}])
    pending = session.persist_workspace()
    with pytest.raises(OSError, match="disk full") as caught:
        await pending
    assert caught.value is failure


def test_error_step_of_a_sync_method_raises_the_scripted_error_itself() -> None:
    failure = PermissionError("no pty")
    session = scripted_sandbox_session([{"method": "supports_pty", "error": failure}])
    with pytest.raises(PermissionError) as caught:
        session.supports_pty()
    assert caught.value is failure


async def test_error_step_of_an_async_method_fails_only_when_awaited() -> None:
    failure = TimeoutError("command timed out")
    session = scripted_sandbox_session([{"method": "exec_command", "error": failure}])
    pending = session.exec_command({"cmd": "sleep 99"})
    with pytest.raises(TimeoutError) as caught:
        await pending
    assert caught.value is failure


# -- call-time bookkeeping -----------------------------------------------------------------


async def test_async_method_records_and_takes_its_step_before_it_is_awaited() -> None:
    responded: list[int] = []

    def respond(call: SandboxCall) -> str:
        responded.append(call.index)
        return "/workspace\n"

    session = scripted_sandbox_session(
        [{"method": "exec_command", "respond": respond}, {"method": "close", "result": None}]
    )
    pending = session.exec_command({"cmd": "pwd"})
    assert [call.method for call in session.calls] == ["exec_command"]
    assert session.remaining_steps == 1
    assert responded == [0]
    assert await pending == "/workspace\n"


def test_async_method_can_be_called_without_a_running_event_loop() -> None:
    session = scripted_sandbox_session([{"method": "start", "result": "started"}])
    pending = session.start()
    assert session.remaining_steps == 0
    assert asyncio.run(pending) == "started"


async def test_async_method_result_can_be_run_as_a_task() -> None:
    session = scripted_sandbox_session([{"method": "running", "result": True}])
    assert await asyncio.create_task(session.running()) is True


async def test_async_method_result_can_be_awaited_only_once() -> None:
    session = scripted_sandbox_session([{"method": "running", "result": True}])
    pending = session.running()
    assert await pending is True
    with pytest.raises(RuntimeError, match="already awaited"):
        await pending


def test_dropping_an_unawaited_result_is_silent() -> None:
    async def respond(call: SandboxCall) -> None:
        await asyncio.sleep(0)

    session = scripted_sandbox_session(
        [
            {"method": "start", "respond": respond},
            {"method": "stop", "error": RuntimeError("dropped")},
            {"method": "close", "result": None},
        ]
    )
    session.start()
    session.stop()
    session.close()
    gc.collect()  # pytest turns a "never awaited" warning into a failure
    assert session.remaining_steps == 0


# -- calls ---------------------------------------------------------------------------------


async def test_calls_record_index_method_positional_and_keyword_arguments() -> None:
    session = scripted_sandbox_session(
        [
            {"method": "path_exists", "result": True},
            {"method": "hydrate_workspace", "result": None},
        ]
    )
    await session.path_exists("/a", None)
    await session.hydrate_workspace(b"tar", options={"strip": 1})
    assert session.calls == (
        SandboxCall(0, "path_exists", ("/a", None), {}),
        SandboxCall(1, "hydrate_workspace", (b"tar",), {"options": {"strip": 1}}),
    )


async def test_calls_are_copied_when_the_call_is_made() -> None:
    args: dict[str, Any] = {"cmd": "ls", "env": {"A": "1"}}
    session = scripted_sandbox_session([{"method": "exec", "result": None}])
    await session.exec(args)
    args["env"]["A"] = "2"
    assert session.calls[0].args == ({"cmd": "ls", "env": {"A": "1"}},)


async def test_each_read_of_a_records_arguments_gives_a_new_detached_copy() -> None:
    session = scripted_sandbox_session([{"method": "exec", "result": None}])
    await session.exec({"cmd": "ls"}, env={"A": "1"})
    first = session.calls
    args, kwargs = first[0].args, first[0].kwargs
    args[0]["cmd"] = "changed"
    kwargs["env"]["A"] = "changed"
    second = session.calls
    assert first is not second
    assert first[0] is second[0]  # one record per call, built when the call is made
    assert first[0].args is not args
    assert first[0].args == second[0].args == ({"cmd": "ls"},)
    assert second[0].kwargs == {"env": {"A": "1"}}


def test_call_records_are_frozen() -> None:
    session = scripted_sandbox_session([{"method": "supports_pty", "result": True}])
    session.supports_pty()
    with pytest.raises(dataclasses.FrozenInstanceError):
        session.calls[0].method = "other"  # type: ignore[misc]


async def test_calls_keep_class_instances_by_identity() -> None:
    manifest = Manifest({"a": "b"})
    session = scripted_sandbox_session([{"method": "materialize_entry", "result": None}])
    await session.materialize_entry(manifest)
    assert session.calls[0].args[0] is manifest


class Uncopyable:
    """A manifest whose deep copy fails, as one holding a lock or an open file does."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        raise TypeError("cannot pickle '_thread.lock' object")


async def test_apply_manifest_records_the_manifest_as_sent_when_the_workflow_edits_it() -> None:
    manifest = Manifest({"a.txt": "hello"})
    session = scripted_sandbox_session([{"method": "apply_manifest", "result": None}])
    await session.apply_manifest(manifest, "root")
    manifest.entries["a.txt"] = "changed"
    manifest.entries["b.txt"] = "added"
    (call,) = session.calls
    assert call.args[0].entries == {"a.txt": "hello"}
    assert call.args[0] is not manifest
    assert call.args[1] == "root"


async def test_apply_manifest_given_as_plain_data_is_snapshotted_not_deep_copied() -> None:
    # Only a manifest object is deep-copied; a manifest passed as a dict is recorded as any
    # argument is: its containers copied, the objects in it kept by identity.
    entry = Manifest({"a.txt": "hello"})
    session = scripted_sandbox_session([{"method": "apply_manifest", "result": None}] * 2)
    await session.apply_manifest({"entry": entry, "files": ["a.txt"]})
    await session.apply_manifest(manifest={"entry": entry, "files": ["a.txt"]})
    first, second = session.calls
    assert first.args[0] == {"entry": entry, "files": ["a.txt"]}
    assert first.args[0]["entry"] is entry
    assert second.kwargs["manifest"]["entry"] is entry


async def test_apply_manifest_reads_are_detached_copies_of_the_record() -> None:
    session = scripted_sandbox_session([{"method": "apply_manifest", "result": None}])
    await session.apply_manifest(Manifest({"a.txt": "hello"}))
    (call,) = session.calls
    first, second = call.args[0], call.args[0]
    assert first is not second
    first.entries["a.txt"] = "changed"
    assert call.args[0].entries == {"a.txt": "hello"}


async def test_apply_manifest_matcher_editing_its_argument_leaves_the_record() -> None:
    def edit(manifest: Manifest) -> None:
        manifest.entries["a.txt"] = "changed by the matcher"

    session = scripted_sandbox_session([{"method": "apply_manifest", "match": edit, "result": 1}])
    manifest = Manifest({"a.txt": "hello"})
    assert await session.apply_manifest(manifest) == 1
    assert session.calls[0].args[0].entries == {"a.txt": "hello"}
    assert manifest.entries == {"a.txt": "hello"}


async def test_apply_manifest_responder_editing_the_call_leaves_the_record() -> None:
    def respond(call: SandboxCall) -> str:
        call.args[0].entries["a.txt"] = "changed by the responder"
        call.kwargs["manifest"].entries["b.txt"] = "changed by the responder"
        return "applied"

    session = scripted_sandbox_session([{"method": "apply_manifest", "respond": respond}])
    first, second = Manifest({"a.txt": "hello"}), Manifest({"b.txt": "hi"})
    assert await session.apply_manifest(first, manifest=second) == "applied"
    (call,) = session.calls
    assert call.args[0].entries == {"a.txt": "hello"}
    assert call.kwargs["manifest"].entries == {"b.txt": "hi"}
    assert (first.entries, second.entries) == ({"a.txt": "hello"}, {"b.txt": "hi"})


async def test_apply_manifest_keyword_manifest_is_recorded_as_sent() -> None:
    manifest = Manifest({"a.txt": "hello"})
    session = scripted_sandbox_session([{"method": "apply_manifest", "result": None}])
    await session.apply_manifest(manifest=manifest, run_as="root")
    manifest.entries.clear()
    (call,) = session.calls
    assert call.kwargs["manifest"].entries == {"a.txt": "hello"}
    assert call.kwargs["manifest"] is not call.kwargs["manifest"]
    assert call.kwargs["run_as"] == "root"


async def test_a_pickled_apply_manifest_record_still_reads_detached_copies() -> None:
    session = scripted_sandbox_session([{"method": "apply_manifest", "result": None}])
    await session.apply_manifest(Manifest({"a.txt": "hello"}))
    restored = pickle.loads(pickle.dumps(session.calls[0]))
    restored.args[0].entries["a.txt"] = "changed"
    assert restored.args[0].entries == {"a.txt": "hello"}
    assert restored.args[0] is not restored.args[0]


async def test_other_methods_keep_a_manifest_object_by_identity() -> None:
    # Only apply_manifest records its manifest as sent, as the reference does.
    manifest = Manifest({"a.txt": "hello"})
    session = scripted_sandbox_session([{"method": "materialize_entry", "result": None}])
    await session.materialize_entry(manifest)
    assert session.calls[0].args[0] is manifest


async def test_apply_manifest_keeps_a_manifest_that_cannot_be_copied_by_identity() -> None:
    # A failed deep copy must not leave the call unrecorded after its step was taken.
    manifest = Uncopyable()
    seen: list[Any] = []
    session = scripted_sandbox_session(
        [
            {"method": "apply_manifest", "match": lambda *args: seen.append(args[0]), "result": 1},
            {"method": "apply_manifest", "result": 2},
        ]
    )
    assert await session.apply_manifest(manifest, ["root"]) == 1
    assert await session.apply_manifest(manifest=manifest) == 2
    first, second = session.calls
    assert first.method == "apply_manifest"
    assert first.args[0] is manifest
    assert second.kwargs["manifest"] is manifest
    assert seen == [manifest]
    assert first.args[1] == ["root"]
    assert first.args[1] is not session.calls[0].args[1]
    session.assert_complete()


async def test_apply_manifest_plain_dict_is_snapshotted_like_other_arguments() -> None:
    manifest = {"entries": {"a.txt": "hello"}}
    session = scripted_sandbox_session([{"method": "apply_manifest", "result": None}])
    await session.apply_manifest(manifest)
    manifest["entries"]["a.txt"] = "changed"
    assert session.calls[0].args == ({"entries": {"a.txt": "hello"}},)


async def test_every_failed_call_is_recorded() -> None:
    session = scripted_sandbox_session(
        [
            {"method": "start", "match": lambda: False, "result": None},
            {"method": "stop", "error": RuntimeError("stop failed")},
        ]
    )
    for method in (session.start, session.stop, session.start):
        with pytest.raises((SandboxCallMatcherError, RuntimeError, UnexpectedSandboxCallError)):
            await method()
    assert [(call.index, call.method) for call in session.calls] == [
        (0, "start"),
        (1, "stop"),
        (2, "start"),
    ]


# -- assert_complete -----------------------------------------------------------------------


async def test_assert_complete_passes_when_every_step_was_used() -> None:
    session = scripted_sandbox_session([{"method": "close", "result": None}])
    await session.close()
    session.assert_complete()


def test_assert_complete_lists_the_pending_methods_in_script_order() -> None:
    session = scripted_sandbox_session(
        [{"method": name, "result": None} for name in ("start", "exec", "start")]
    )
    with pytest.raises(UnconsumedSandboxStepsError) as caught:
        session.assert_complete()
    assert caught.value.remaining_steps == 3
    assert caught.value.pending_methods == ("start", "exec", "start")
    assert str(caught.value).startswith(
        "Scripted sandbox session has 3 unconsumed steps: start, exec, start."
    )


def test_assert_complete_names_a_single_pending_step() -> None:
    session = scripted_sandbox_session([{"method": "start", "result": None}])
    with pytest.raises(UnconsumedSandboxStepsError) as caught:
        session.assert_complete()
    assert (caught.value.remaining_steps, caught.value.pending_methods) == (1, ("start",))
    assert str(caught.value).startswith("Scripted sandbox session has 1 unconsumed step: start.")


async def test_assert_complete_reports_an_unexpected_call_the_workflow_swallowed() -> None:
    session = scripted_sandbox_session(
        [{"method": "start", "result": None}, {"method": "stop", "result": None}]
    )
    with contextlib.suppress(UnexpectedSandboxCallError):  # as a framework might do
        await session.stop()
    await session.stop()
    assert session.remaining_steps == 0
    with pytest.raises(UnexpectedSandboxCallError) as caught:
        session.assert_complete()
    error = caught.value
    assert (error.call_index, error.actual_method, error.expected_method) == (0, "stop", "start")
    assert error.remaining_steps == 1
    assert str(error).startswith(
        "Scripted sandbox session received unexpected stop call #1; expected start."
    )
    assert isinstance(error.__cause__, UnexpectedSandboxCallError)
    assert error is not error.__cause__


def test_assert_complete_reports_a_matcher_rejection_the_workflow_swallowed() -> None:
    session = scripted_sandbox_session(
        [{"method": "create_editor", "match": lambda run_as: False, "result": None}]
    )
    with pytest.raises(SandboxCallMatcherError):
        session.create_editor("root")
    with pytest.raises(SandboxCallMatcherError) as caught:
        session.assert_complete()
    assert (caught.value.call_index, caught.value.method) == (0, "create_editor")
    assert str(caught.value).startswith(
        "Scripted sandbox session matcher rejected create_editor call #1."
    )


async def test_assert_complete_reports_a_matcher_assertion_the_workflow_swallowed() -> None:
    def expect_ls(args: dict[str, Any]) -> None:
        assert args["cmd"] == "ls"

    session = scripted_sandbox_session(
        [{"method": "exec_command", "match": expect_ls, "result": ""}]
    )
    with contextlib.suppress(AssertionError):  # a framework turning it into tool output
        await session.exec_command({"cmd": "pwd"})

    with pytest.raises(SandboxCallMatcherError) as caught:
        session.assert_complete()
    assert (caught.value.call_index, caught.value.method) == (0, "exec_command")
    rejection = caught.value.__cause__
    assert isinstance(rejection, SandboxCallMatcherError)
    assert isinstance(rejection.__cause__, AssertionError)


def test_assert_complete_reports_the_first_violation_before_pending_steps() -> None:
    session = scripted_sandbox_session(
        [
            {"method": "supports_pty", "match": lambda: False, "result": True},
            {"method": "create_editor", "result": None},
            {"method": "create_editor", "result": None},
        ]
    )
    with pytest.raises(SandboxCallMatcherError):
        session.supports_pty()
    with pytest.raises(UnexpectedSandboxCallError):
        session.supports_pty()
    assert session.remaining_steps == 1
    with pytest.raises(SandboxCallMatcherError) as caught:
        session.assert_complete()
    assert (caught.value.call_index, caught.value.method) == (0, "supports_pty")


# -- interfaces ----------------------------------------------------------------------------


def test_default_interface_has_the_reference_methods_with_four_sync_ones() -> None:
    assert len(DEFAULT_SANDBOX_INTERFACE) == 25
    assert sorted(name for name, mode in DEFAULT_SANDBOX_INTERFACE.items() if mode == "sync") == [
        "create_editor",
        "register_pre_stop_hook",
        "set_archive_limits",
        "supports_pty",
    ]


class ShellSession:
    async def run(self, command: str) -> str:
        raise NotImplementedError

    def is_ready(self) -> bool:
        raise NotImplementedError

    def _private(self) -> None:
        raise NotImplementedError


async def test_class_interface_scripts_its_public_methods_by_their_kind() -> None:
    session = scripted_sandbox_session(
        [{"method": "is_ready", "result": True}, {"method": "run", "result": "done"}],
        interface=ShellSession,
    )
    assert session.is_ready() is True
    assert await session.run("make") == "done"


@pytest.mark.parametrize("method", ["_private", "exec_command", "__init__"])
def test_class_interface_refuses_other_methods(method: str) -> None:
    error = invalid_step([{"method": method, "result": None}], interface=ShellSession)
    assert (error.reason, error.method) == ("unknown_method", method)


async def test_mapping_interface_scripts_names_with_their_modes() -> None:
    session = scripted_sandbox_session(
        [{"method": "ping", "result": "pong"}, {"method": "fetch", "result": b"data"}],
        interface={"ping": "sync", "fetch": "async"},
    )
    assert session.ping() == "pong"
    assert await session.fetch("u") == b"data"
    error = invalid_step([{"method": "start", "result": None}], interface={"ping": "sync"})
    assert (error.reason, error.method) == ("unknown_method", "start")


def test_mapping_interface_refuses_a_mode_other_than_sync_or_async() -> None:
    with pytest.raises(ValueError, match="'fetch' must be 'sync' or 'async'; got 'await'"):
        scripted_sandbox_session(interface={"fetch": "await"})  # type: ignore[dict-item]


async def test_invoke_serves_a_scripted_method_by_name() -> None:
    session = scripted_sandbox_session(
        [{"method": "exec_command", "result": "ok"}, {"method": "supports_pty", "result": True}]
    )

    assert await session.invoke("exec_command", {"cmd": "pwd"}) == "ok"
    assert session.invoke("supports_pty") is True
    assert [(call.method, call.args) for call in session.calls] == [
        ("exec_command", ({"cmd": "pwd"},)),
        ("supports_pty", ()),
    ]


async def test_invoke_records_an_unscripted_interface_method_as_unexpected() -> None:
    session = scripted_sandbox_session([{"method": "exec_command", "result": "ok"}])
    pending = session.invoke("read_file", {"path": "/a"})

    with pytest.raises(UnexpectedSandboxCallError) as caught:
        await pending

    assert (caught.value.call_index, caught.value.actual_method) == (0, "read_file")
    assert (caught.value.expected_method, caught.value.remaining_steps) == ("exec_command", 0)
    assert not hasattr(session, "read_file")
    with pytest.raises(UnexpectedSandboxCallError):
        session.assert_complete()


def test_invoke_refuses_a_name_outside_the_interface() -> None:
    session = scripted_sandbox_session([])

    with pytest.raises(ValueError, match="'fetch' is not a method"):
        session.invoke("fetch")

    assert session.calls == ()


@pytest.mark.parametrize("name", ["calls", "remaining_steps", "assert_complete", "invoke"])
def test_interface_refuses_names_the_session_itself_uses(name: str) -> None:
    with pytest.raises(ValueError, match=f"'{name}' clashes"):
        scripted_sandbox_session(interface={name: "sync"})


@pytest.mark.parametrize("name", ["_state", "__call__", "bad-name", ""])
def test_interface_refuses_names_that_are_not_public_identifiers(name: str) -> None:
    with pytest.raises(ValueError, match="must be a public identifier"):
        scripted_sandbox_session(interface={name: "sync"})


def test_interface_refuses_non_string_names() -> None:
    with pytest.raises(TypeError, match="names must be strings; got 3"):
        scripted_sandbox_session(interface={3: "sync"})  # type: ignore[dict-item]


def test_interface_of_another_kind_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="interface must be None, a class, or a mapping"):
        scripted_sandbox_session(interface=["exec"])  # type: ignore[arg-type]


# -- guide recipes -------------------------------------------------------------------------


async def test_guide_exec_command_step_asserts_the_command_and_returns_the_result() -> None:
    def match(args: dict[str, Any]) -> None:
        assert args["cmd"] == "pwd"

    sandbox = scripted_sandbox_session(
        [{"method": "exec_command", "match": match, "result": "/workspace\n"}]
    )
    assert await sandbox.exec_command({"cmd": "pwd"}) == "/workspace\n"
    assert [call.method for call in sandbox.calls] == ["exec_command"]
    sandbox.assert_complete()


def interactive_shell_available(session: object) -> bool:
    """Detect PTY support the way a sandbox runtime does: by the methods present."""
    supports_pty = getattr(session, "supports_pty", None)
    return callable(supports_pty) and hasattr(session, "write_stdin") and bool(supports_pty())


async def test_scripting_supports_pty_and_write_stdin_exposes_the_interactive_shell() -> None:
    sandbox = scripted_sandbox_session(
        [
            {"method": "supports_pty", "result": True},
            {"method": "write_stdin", "result": "hello\n"},
        ]
    )
    assert interactive_shell_available(sandbox)
    assert await sandbox.write_stdin({"session_id": 1, "chars": "echo hello\n"}) == "hello\n"
    sandbox.assert_complete()


def test_session_without_pty_steps_has_no_interactive_shell() -> None:
    sandbox = scripted_sandbox_session([{"method": "exec_command", "result": ""}])
    assert not interactive_shell_available(sandbox)
    assert sandbox.calls == ()


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        UnexpectedSandboxCallError(2, "stop", "start", 1),
        UnexpectedSandboxCallError(0, "stop", None, 0),
        SandboxCallMatcherError(3, "exec"),
        UnconsumedSandboxStepsError(2, ["start", "exec"]),
        InvalidScriptedSandboxStepError("invalid_input", 4),
        InvalidScriptedSandboxStepError(
            "invalid_outcome", 0, "exec", "for {method} must use a function responder."
        ),
    ],
    ids=repr,
)
def test_sandbox_errors_pickle_with_their_fields_and_message(error: Exception) -> None:
    copied = pickle.loads(pickle.dumps(error))
    assert type(copied) is type(error)
    assert vars(copied) == vars(error)
    assert str(copied) == str(error)


def test_step_error_raised_by_the_factory_pickles_with_its_fields() -> None:
    error = invalid_step([{"method": "exec", "error": "boom"}])
    copied = pickle.loads(pickle.dumps(error))
    assert (copied.reason, copied.input_index, copied.method) == ("invalid_outcome", 0, "exec")
    assert str(copied) == str(error)


def test_failures_are_assertion_errors_and_bad_scripts_are_value_errors() -> None:
    assert issubclass(UnexpectedSandboxCallError, AssertionError)
    assert issubclass(SandboxCallMatcherError, AssertionError)
    assert issubclass(UnconsumedSandboxStepsError, AssertionError)
    assert issubclass(InvalidScriptedSandboxStepError, ValueError)


# -- diagnostics: call summaries, pending steps, optional steps -------------------------------


async def test_unexpected_call_says_what_the_call_sent() -> None:
    session = scripted_sandbox_session([{"method": "start", "result": None}])

    with pytest.raises(UnexpectedSandboxCallError) as raised:
        await session.invoke("exec_command", {"cmd": "ls -la " + "x" * 200}, timeout=5)

    error = raised.value
    assert error.call_summary is not None
    assert error.call_summary.startswith("exec_command({'cmd': 'ls -la xxx")
    assert error.call_summary.endswith("..., timeout=5)")
    assert str(error).startswith(
        "Scripted sandbox session received unexpected exec_command call #1; expected start. "
        f"Call #1 (call_index=0) was: {error.call_summary}. Add a step for exec_command "
        "before the start step"
    )
    with pytest.raises(UnexpectedSandboxCallError) as again:
        session.assert_complete()
    assert again.value.call_summary == error.call_summary


async def test_matcher_rejection_says_what_the_call_sent() -> None:
    session = scripted_sandbox_session(
        [{"method": "exec_command", "match": lambda args: False, "result": "ok"}]
    )

    with pytest.raises(SandboxCallMatcherError) as raised:
        await session.exec_command({"cmd": "pwd"})

    assert raised.value.call_summary == "exec_command({'cmd': 'pwd'})"
    assert "Call #1 (call_index=0) was: exec_command({'cmd': 'pwd'}). Fix the step's" in str(
        raised.value
    )


def test_assert_complete_lists_pending_steps_with_positions_and_outcomes() -> None:
    def list_files(call: SandboxCall) -> list[str]:
        return []

    session = scripted_sandbox_session(
        [
            {"method": "start", "result": None},
            {"method": "exec_command", "result": "total 0"},
            {"method": "list_dir", "respond": list_files},
            {"method": "stop", "error": OSError("gone")},
        ]
    )
    session.invoke("start")

    with pytest.raises(UnconsumedSandboxStepsError) as raised:
        session.assert_complete()

    error = raised.value
    assert error.pending_methods == ("exec_command", "list_dir", "stop")
    assert error.pending_steps == (
        {"step_index": 1, "method": "exec_command", "summary": "result 'total 0'"},
        {
            "step_index": 2,
            "method": "list_dir",
            "summary": "respond test_assert_complete_lists_pending_steps_with_positions_and_"
            "outcomes.<locals>.list_files",
        },
        {"step_index": 3, "method": "stop", "summary": "error OSError('gone')"},
    )
    assert "Pending: step #2 (step_index=1) exec_command: result 'total 0'; step #3" in str(error)


async def test_unused_optional_sandbox_step_does_not_fail_assert_complete() -> None:
    session = scripted_sandbox_session(
        [{"method": "start", "result": None}, {"method": "stop", "result": None, "optional": True}]
    )
    await session.start()

    session.assert_complete()


async def test_required_sandbox_step_after_an_optional_one_is_still_reported() -> None:
    session = scripted_sandbox_session(
        [{"method": "stop", "result": None, "optional": True}, {"method": "close", "result": 1}]
    )

    with pytest.raises(UnconsumedSandboxStepsError) as raised:
        session.assert_complete()

    assert [step["summary"] for step in raised.value.pending_steps] == [
        "result None (optional)",
        "result 1",
    ]


def test_sandbox_optional_flag_must_be_a_bool() -> None:
    with pytest.raises(InvalidScriptedSandboxStepError) as raised:
        scripted_sandbox_session([{"method": "stop", "result": None, "optional": "yes"}])

    assert (raised.value.reason, raised.value.input_index) == ("invalid_input", 0)
    assert str(raised.value) == (
        'Scripted sandbox step #1 for stop must set "optional" to a bool. '
        'Step #1 (input_index=0): leave "optional" out, or set it to True for a step that may '
        "go unused."
    )


def test_invalid_step_message_says_how_to_fix_it() -> None:
    with pytest.raises(InvalidScriptedSandboxStepError) as raised:
        scripted_sandbox_session([{"method": "start", "result": 1}, {"method": "exec_cmd"}])

    assert (raised.value.reason, raised.value.method) == ("unknown_method", "exec_cmd")
    assert str(raised.value) == (
        "Scripted sandbox step #2 has an unknown method. Step #2 (input_index=1): 'exec_cmd' "
        'is not in the session interface; "method" must name a method of the session '
        "interface; pass interface=... to script the methods of another session type."
    )


def test_call_summary_survives_an_argument_whose_repr_fails() -> None:
    class Opaque:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    session = scripted_sandbox_session([{"method": "start", "result": None}])

    with pytest.raises(UnexpectedSandboxCallError) as raised:
        session.invoke("supports_pty", Opaque())

    assert raised.value.call_summary == "supports_pty(<Opaque>)"
