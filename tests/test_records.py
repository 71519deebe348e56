"""Recorded calls of all three doubles: one rule for frozen records with detached fields."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from agents_testing import (
    ModelRequest,
    RecordedModelCall,
    SandboxCall,
    ScriptedModel,
    ScriptedRealtimeTransport,
    assistant_message,
    scripted_sandbox_session,
)
from agents_testing.realtime import (
    AddImageCall,
    MuteCall,
    RealtimeTransportCall,
    SendAudioCall,
    SendFunctionCallOutputCall,
    SendMcpResponseCall,
    SendMessageCall,
)


async def model_record() -> RecordedModelCall:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])
    conversation: list[Any] = [{"role": "user", "content": "hi", "tags": ["x"]}]
    await model.get_response(ModelRequest(input=conversation, model_settings={"stop": ["."]}))
    conversation.append({"role": "user", "content": "again"})
    await model.get_response(ModelRequest(input=conversation, model_settings={"stop": ["."]}))
    return model.calls[1]  # its first item is shared with the first record


async def sandbox_record() -> SandboxCall:
    session = scripted_sandbox_session([{"method": "exec", "result": None}])
    await session.exec({"cmd": "ls", "env": {"A": "1"}}, timeout=3)
    return session.calls[0]


def realtime_record() -> RealtimeTransportCall:
    transport = ScriptedRealtimeTransport()
    transport.send_message({"type": "message", "content": ["hi"]}, {"extra": [1]})
    return transport.calls[0]


async def every_record() -> list[Any]:
    return [await model_record(), await sandbox_record(), realtime_record()]


async def test_records_of_every_double_are_frozen_dataclasses() -> None:
    for record in await every_record():
        # Checked on the class: on the record itself, the check would narrow it to a type
        # that has none of the records' fields.
        assert dataclasses.is_dataclass(type(record)), type(record)
        assert type(record).__dataclass_params__.frozen
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.index = 9
        for item in dataclasses.fields(record):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(record, item.name, None)
            with pytest.raises(dataclasses.FrozenInstanceError):
                delattr(record, item.name)


async def test_asdict_astuple_and_replace_work_on_every_record() -> None:
    model, sandbox, realtime = await every_record()

    assert dataclasses.asdict(model)["request"]["input"][1] == {"role": "user", "content": "again"}
    assert dataclasses.astuple(sandbox) == (
        0,
        "exec",
        ({"cmd": "ls", "env": {"A": "1"}},),
        {"timeout": 3},
    )
    assert dataclasses.asdict(realtime)["other_event_data"] == {"extra": [1]}

    moved = dataclasses.replace(model, index=7)
    assert (moved.index, moved.streamed, moved.request) == (7, False, model.request)
    assert dataclasses.replace(sandbox, kwargs={}).kwargs == {}
    assert isinstance(realtime, SendMessageCall)
    assert dataclasses.replace(realtime, trigger_response=True).trigger_response is True


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])
async def test_every_record_copies_to_an_equal_record(duplicate: Any) -> None:
    for record in await every_record():
        duplicated = duplicate(record)

        assert type(duplicated) is type(record)
        assert duplicated == record
        assert duplicated is not record


async def test_every_record_pickles_to_an_equal_record() -> None:
    for record in await every_record():
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            restored = pickle.loads(pickle.dumps(record, protocol))

            assert type(restored) is type(record)
            assert restored == record


async def test_a_copied_record_still_detaches_its_fields_on_each_read() -> None:
    def through_pickle(record: RecordedModelCall) -> RecordedModelCall:
        restored: RecordedModelCall = pickle.loads(pickle.dumps(record))
        return restored

    duplicates: list[Callable[[RecordedModelCall], RecordedModelCall]] = [
        copy.copy,
        copy.deepcopy,
        through_pickle,
    ]
    for duplicate in duplicates:
        record = duplicate(await model_record())

        assert isinstance(record.request.input, list)
        record.request.input.append("not kept")
        record.request.model_settings["stop"].append("!")

        assert len(record.request.input) == 2
        assert record.request.model_settings == {"stop": ["."]}


async def test_deepcopy_of_a_model_record_keeps_the_recorded_values() -> None:
    record = await model_record()

    duplicated = copy.deepcopy(record)

    assert duplicated.request.input == [
        {"role": "user", "content": "hi", "tags": ["x"]},
        {"role": "user", "content": "again"},
    ]


def test_a_record_built_by_hand_detaches_the_request_it_was_given() -> None:
    request = ModelRequest(input=[{"role": "user", "content": "hi"}])
    record = RecordedModelCall(0, False, request)

    assert record.request == request
    assert record.request is not request
    assert record.request.input is not request.input


def test_record_fields_are_not_readable_on_the_class() -> None:
    # A detached field has no class-level default, as a plain dataclass field has none.
    with pytest.raises(AttributeError):
        _ = RecordedModelCall.request  # type: ignore[misc]  # refused statically too
    assert [item.name for item in dataclasses.fields(RecordedModelCall)] == [
        "index",
        "streamed",
        "request",
    ]


# -- realtime fields are snapshotted when the call is made ---------------------------------


def test_every_realtime_field_is_snapshotted_when_the_call_is_made() -> None:
    transport = ScriptedRealtimeTransport()
    # Mutable values where the annotations want immutable ones, so a change after the call
    # would show in a record that kept them.
    image: Any = bytearray(b"img")
    audio = bytearray(b"\x01\x02")
    flags: list[Any] = [["trigger"], ["commit"], ["muted"], ["start"], ["approved"], ["why"]]
    trigger, commit, muted, start, approved, reason = flags

    transport.add_image(image, trigger_response=trigger)
    transport.send_audio(audio, commit=commit)
    transport.mute(muted)
    transport.send_function_call_output({"call_id": "c1"}, "out", start)
    transport.send_mcp_response({"id": "a1"}, approved, reason)
    transport.send_message("hi", trigger_response=trigger)
    image[0] = ord("X")
    audio[0] = 9
    for flag in flags:
        flag.append("changed")

    assert transport.calls == (
        AddImageCall(index=0, image=bytearray(b"img"), trigger_response=["trigger"]),  # type: ignore[arg-type]
        SendAudioCall(index=1, audio=bytearray(b"\x01\x02"), commit=["commit"]),  # type: ignore[arg-type]
        MuteCall(index=2, muted=["muted"]),  # type: ignore[arg-type]
        SendFunctionCallOutputCall(
            index=3,
            tool_call={"call_id": "c1"},
            output="out",
            start_response=["start"],  # type: ignore[arg-type]
        ),
        SendMcpResponseCall(
            index=4,
            approval_request={"id": "a1"},
            approved=["approved"],  # type: ignore[arg-type]
            reason=["why"],  # type: ignore[arg-type]
        ),
        SendMessageCall(
            index=5,
            message="hi",
            other_event_data=None,
            trigger_response=["trigger"],  # type: ignore[arg-type]
        ),
    )


def test_realtime_fields_read_from_a_record_are_detached() -> None:
    transport = ScriptedRealtimeTransport()
    transport.add_image(bytearray(b"img"))  # type: ignore[arg-type]

    call = transport.calls[0]
    assert isinstance(call, AddImageCall)
    image: Any = call.image
    image[0] = ord("X")

    assert call.image == bytearray(b"img")  # type: ignore[comparison-overlap]  # given as bytes
