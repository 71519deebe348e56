"""The voice double: virtual clock, scripted speech-to-text and text-to-speech, speaker."""

from __future__ import annotations

import asyncio
import pickle
import subprocess
import sys
from typing import Any

import pytest

from agents_testing import (
    InvalidScriptedVoiceStepError,
    ScriptedSpeechToText,
    ScriptedTextToSpeech,
    ScriptedVoice,
    TranscriptEvent,
    UnconsumedVoiceStepsError,
    UnexpectedVoiceCallError,
    VirtualClock,
    VirtualSpeaker,
    VoiceCallMatcherError,
    pcm16_duration,
    pcm16_silence,
    stt_end,
    stt_turn,
    tts_speech,
)


async def events_of(session: Any) -> list[tuple[str, str, float]]:
    return [(event.type, event.text, event.at) async for event in session]


async def read_into(source: Any, seen: list[Any]) -> None:
    async for item in source:
        seen.append(getattr(item, "type", None) or item.index)


# -- clock -------------------------------------------------------------------------------------


async def test_advance_runs_each_callback_at_its_exact_instant_in_order() -> None:
    clock = VirtualClock()
    seen: list[tuple[str, float]] = []
    clock.call_at(2.5, lambda: seen.append(("b", clock.now)))
    clock.call_at(1.0, lambda: seen.append(("a", clock.now)))
    clock.call_later(3.0, lambda: seen.append(("late", clock.now)))

    await clock.advance(2.9)

    assert seen == [("a", 1.0), ("b", 2.5)]
    assert clock.now == 2.9
    assert clock.pending == 1
    assert clock.next_deadline == 3.0


async def test_a_sleeping_task_wakes_at_its_virtual_deadline_not_before() -> None:
    clock = VirtualClock()
    woke: list[float] = []

    async def sleeper() -> None:
        await clock.sleep(1.5)
        woke.append(clock.now)

    task = asyncio.create_task(sleeper())
    await clock.advance(1.4)
    assert woke == []
    await clock.advance(0.1)
    assert woke == [1.5]
    await task


async def test_auto_advance_runs_a_thirty_second_wait_without_the_test_moving_time() -> None:
    clock = VirtualClock(auto_advance=True)
    for _ in range(30):
        await clock.sleep(1.0)
    assert clock.now == 30.0
    assert clock.auto_advance


async def test_a_cancelled_timer_never_runs_and_time_never_goes_back() -> None:
    clock = VirtualClock(start=5.0)
    ran: list[str] = []
    timer = clock.call_later(1.0, lambda: ran.append("x"))
    timer.cancel()
    await clock.advance_to(3.0)
    assert clock.now == 5.0
    await clock.run()
    assert ran == []
    assert timer.cancelled
    assert clock.pending == 0
    assert clock.next_deadline is None


async def test_a_callback_scheduled_in_the_past_runs_at_the_next_move() -> None:
    clock = VirtualClock(start=2.0)
    seen: list[float] = []
    clock.call_at(1.0, lambda: seen.append(clock.now))
    await clock.run()
    assert seen == [2.0]


async def test_run_until_stops_at_the_limit() -> None:
    clock = VirtualClock()
    seen: list[float] = []
    for when in (1.0, 2.0, 3.0):
        clock.call_at(when, lambda: seen.append(clock.now))
    await clock.run(until=2.0)
    assert seen == [1.0, 2.0]
    assert clock.now == 2.0


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda c: c.call_later(-1, print), ValueError),
        (lambda c: c.call_later(float("nan"), print), ValueError),
        (lambda c: c.call_later("1", print), TypeError),
        (lambda c: c.call_at(1.0, "not callable"), TypeError),
        (lambda c: VirtualClock(auto_advance=1), TypeError),  # type: ignore[arg-type]
        (lambda c: VirtualClock(start=True), TypeError),
    ],
)
def test_clock_refuses_bad_arguments_by_name(call: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        call(VirtualClock())


# -- speech-to-text ----------------------------------------------------------------------------


async def test_a_turn_reports_speech_partials_and_final_at_their_scripted_times() -> None:
    stt = ScriptedSpeechToText(
        [
            stt_turn(
                "book a table", partials=["book", "book a"], start=0.5, duration=1.5, latency=0.2
            )
        ]
    )
    session = stt.stream()
    session.end_input()
    task = asyncio.create_task(events_of(session))
    await stt.clock.run()

    assert await task == [
        ("speech_started", "", 0.5),
        ("partial", "book", 1.0),
        ("partial", "book a", 1.5),
        ("speech_ended", "", 2.0),
        ("final", "book a table", 2.2),
    ]
    assert stt.calls[0].transcripts == ("book a table",)
    stt.assert_complete()


async def test_each_turn_starts_when_the_previous_final_arrived() -> None:
    stt = ScriptedSpeechToText(
        [stt_turn("one", duration=1.0, latency=0.5), stt_turn("two", start=2.0, duration=1.0)],
        clock=VirtualClock(auto_advance=True),
    )
    session = stt.stream()
    session.end_input()
    finals = [(e.text, e.at, e.turn_index) async for e in session if e.type == "final"]
    assert finals == [("one", 1.5, 0), ("two", 4.5, 1)]


async def test_partials_may_carry_exact_offsets() -> None:
    stt = ScriptedSpeechToText(
        [stt_turn("yes", partials=[("y", 0.1), ("ye", 0.9)], duration=1.0)],
        clock=VirtualClock(auto_advance=True),
    )
    session = stt.stream()
    session.end_input()
    partials = [(e.text, e.at) async for e in session if e.type == "partial"]
    assert partials == [("y", 0.1), ("ye", 0.9)]


async def test_the_session_records_the_audio_it_received_and_its_options() -> None:
    stt = ScriptedSpeechToText(["hello"], clock=VirtualClock(auto_advance=True))
    options: dict[str, Any] = {"language": "fr", "keywords": ["menu"]}
    session = stt.stream(options)
    options["keywords"].append("changed later")
    session.push_audio(pcm16_silence(0.5))
    session.push_audio(bytearray(b"\x01\x00"))
    session.end_input()
    assert [e.type async for e in session][-1] == "final"

    call = stt.calls[0]
    assert call.method == "stream"
    assert call.audio == pcm16_silence(0.5) + b"\x01\x00"
    assert call.options == {"language": "fr", "keywords": ["menu"]}
    assert call.input_ended
    call.options["language"] = "mutated"
    assert stt.calls[0].options["language"] == "fr"
    assert session.index == 0


async def test_a_failing_turn_raises_its_error_after_its_partials() -> None:
    boom = ConnectionError("speech service dropped")
    stt = ScriptedSpeechToText(
        [stt_turn(partials=["hal"], error=boom, duration=1.0, latency=0.25)],
        clock=VirtualClock(auto_advance=True),
    )
    seen: list[str] = []
    with pytest.raises(ConnectionError) as raised:
        await read_into(stt.stream(), seen)
    assert raised.value is boom
    assert seen == ["speech_started", "partial", "speech_ended"]
    assert stt.clock.now == 1.25
    assert stt.calls[0].error is boom
    stt.assert_complete()


async def test_an_end_step_ends_the_stream_at_its_time_and_a_new_session_takes_the_next_turn() -> (
    None
):
    stt = ScriptedSpeechToText(
        ["first", stt_end(at=0.5), "second"], clock=VirtualClock(auto_advance=True)
    )
    first = [e.text async for e in stt.stream() if e.type == "final"]
    assert first == ["first"]
    assert stt.clock.now == 1.5
    second = stt.stream()
    second.end_input()
    assert [e.text async for e in second if e.type == "final"] == ["second"]
    stt.assert_complete()


async def test_a_session_with_no_step_left_waits_until_more_steps_are_enqueued() -> None:
    stt = ScriptedSpeechToText(["one"])
    session = stt.stream()
    finals: list[str] = []

    async def read() -> None:
        async for event in session:
            if event.type == "final":
                finals.append(event.text)

    task = asyncio.create_task(read())
    await stt.clock.run()
    assert finals == ["one"]
    assert not task.done()
    stt.enqueue("two")
    await stt.clock.run()
    assert finals == ["one", "two"]
    session.close()
    await task
    assert session.closed
    assert stt.calls[0].closed_at == stt.clock.now


async def test_closing_a_session_mid_turn_ends_iteration_and_keeps_the_turn_used() -> None:
    stt = ScriptedSpeechToText(["never heard"])
    session = stt.stream()
    seen: list[str] = []

    async def read() -> None:
        async for event in session:
            seen.append(event.type)

    task = asyncio.create_task(read())
    await stt.clock.advance(0.5)
    session.close()
    await stt.clock.run()
    await task
    assert seen == ["speech_started"]
    assert stt.calls[0].transcripts == ()
    with pytest.raises(RuntimeError, match="after close"):
        session.push_audio(b"\x00\x00")


async def test_one_shot_transcription_waits_for_the_turn_and_returns_its_final() -> None:
    stt = ScriptedSpeechToText(
        [stt_turn("what time is it", duration=2.0, latency=0.3)],
        clock=VirtualClock(auto_advance=True),
    )
    text = await stt.transcribe(pcm16_silence(2.0), {"language": "en"})
    assert text == "what time is it"
    assert stt.clock.now == 2.3
    call = stt.calls[0]
    assert (call.method, call.audio, call.options, call.closed_at) == (
        "transcribe",
        pcm16_silence(2.0),
        {"language": "en"},
        2.3,
    )


async def test_one_shot_transcription_refuses_an_end_step() -> None:
    stt = ScriptedSpeechToText([stt_end()])
    with pytest.raises(UnexpectedVoiceCallError) as raised:
        await stt.transcribe(b"\x00\x00")
    error = raised.value
    assert (error.service, error.call_index, error.method, error.step_index) == (
        "stt",
        0,
        "transcribe",
        0,
    )
    assert "script a turn before it" in str(error)


async def test_a_call_with_no_step_left_is_unexpected_and_assert_complete_reraises_it() -> None:
    stt = ScriptedSpeechToText()
    with pytest.raises(UnexpectedVoiceCallError) as raised:
        stt.stream()
    assert (raised.value.call_index, raised.value.method, raised.value.expected) == (
        0,
        "stream",
        None,
    )
    assert "Add a step for it" in str(raised.value)
    # A framework swallowing the error does not hide it.
    with pytest.raises(UnexpectedVoiceCallError) as again:
        stt.assert_complete()
    assert again.value is not raised.value
    assert again.value.call_index == 0
    assert len(stt.calls) == 1


async def test_a_matcher_rejecting_the_turns_audio_fails_the_turn() -> None:
    stt = ScriptedSpeechToText(
        [stt_turn("hi", match=lambda audio: len(audio) >= 48000)],
        clock=VirtualClock(auto_advance=True),
    )
    session = stt.stream()
    session.push_audio(pcm16_silence(0.1))
    with pytest.raises(VoiceCallMatcherError) as raised:
        async for _ in session:
            pass
    assert (raised.value.service, raised.value.step_index, raised.value.call_index) == (
        "stt",
        0,
        0,
    )
    assert "Fix the step's text or match function" in str(raised.value)
    with pytest.raises(VoiceCallMatcherError):
        stt.assert_complete()


async def test_a_matcher_sees_only_the_audio_of_its_own_turn() -> None:
    seen: list[int] = []

    def note(audio: bytes) -> bool:
        seen.append(len(audio))
        return True

    stt = ScriptedSpeechToText(
        [stt_turn("a", match=note), stt_turn("b", match=note)],
        clock=VirtualClock(auto_advance=True),
    )
    session = stt.stream()
    session.push_audio(b"\x00\x00" * 3)
    async for event in session:
        if event.type == "final" and event.text == "a":
            session.push_audio(b"\x00\x00" * 5)
            session.end_input()
    assert seen == [6, 10]


def test_unused_steps_are_listed_and_optional_ones_are_not_required() -> None:
    stt = ScriptedSpeechToText(["hello", stt_turn("maybe", optional=True)])
    with pytest.raises(UnconsumedVoiceStepsError) as raised:
        stt.assert_complete()
    assert raised.value.remaining_steps == 2
    assert [step["step_index"] for step in raised.value.pending_steps] == [0, 1]
    assert "'hello'" in str(raised.value)
    ScriptedSpeechToText([stt_turn("maybe", optional=True)]).assert_complete()


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (42, "invalid_input"),
        (stt_turn(), "invalid_outcome"),
        (stt_turn("a", error=ValueError()), "invalid_outcome"),
        (stt_turn(error="boom"), "invalid_error"),  # type: ignore[arg-type]
        (stt_turn(b"bytes"), "invalid_text"),  # type: ignore[arg-type]
        (stt_turn("a", partials=[3]), "invalid_text"),  # type: ignore[list-item]
        (stt_turn("a", partials=[("x", -1.0)]), "invalid_timing"),
        (stt_turn("a", duration=-1), "invalid_timing"),
        (stt_turn("a", latency=float("inf")), "invalid_timing"),
        (stt_turn("a", start="0"), "invalid_timing"),  # type: ignore[arg-type]
        (stt_turn("a", match="yes"), "invalid_matcher"),  # type: ignore[arg-type]
        (stt_turn("a", optional=1), "invalid_timing"),  # type: ignore[arg-type]
        (stt_end(at=-0.5), "invalid_timing"),
    ],
)
def test_a_malformed_stt_step_is_refused_when_scripted(step: Any, reason: str) -> None:
    with pytest.raises(InvalidScriptedVoiceStepError) as raised:
        ScriptedSpeechToText(["fine", step])
    assert (raised.value.reason, raised.value.service, raised.value.input_index) == (
        reason,
        "stt",
        1,
    )
    assert "Fix:" in str(raised.value)


def test_stt_refuses_bad_arguments_by_name() -> None:
    with pytest.raises(TypeError, match="steps"):
        ScriptedSpeechToText("hello")
    with pytest.raises(TypeError, match="clock"):
        ScriptedSpeechToText(clock=object())  # type: ignore[arg-type]
    stt = ScriptedSpeechToText(["a"])
    with pytest.raises(TypeError, match="options"):
        stt.stream(options=[1])  # type: ignore[arg-type]
    session = ScriptedSpeechToText(["a"]).stream()
    with pytest.raises(TypeError, match="audio"):
        session.push_audio("not bytes")  # type: ignore[arg-type]


async def test_a_session_iterates_once_at_a_time() -> None:
    stt = ScriptedSpeechToText(["a"])
    session = stt.stream()
    first = session.__aiter__()
    task = asyncio.create_task(first.__anext__())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="only once"):
        await session.__aiter__().__anext__()
    session.close()
    await stt.clock.run()
    with pytest.raises(StopAsyncIteration):
        await task


# -- text-to-speech ----------------------------------------------------------------------------


async def test_synthesis_yields_chunks_after_the_time_to_first_byte_at_the_interval() -> None:
    tts = ScriptedTextToSpeech(
        [tts_speech("Hello there.", duration=2.0, chunks=4, first_byte=0.3, interval=0.1)],
        clock=VirtualClock(auto_advance=True),
        sample_rate=16000,
    )
    chunks = [chunk async for chunk in tts.synthesize("Hello there.", {"voice": "ash"})]

    assert [(c.index, c.at, c.duration, len(c.data)) for c in chunks] == [
        (0, 0.3, 0.5, 16000),
        (1, 0.4, 0.5, 16000),
        (2, 0.5, 0.5, 16000),
        (3, 0.6, 0.5, 16000),
    ]
    # Every sample of synthesis #0 has the value 1.
    assert chunks[0].data[:4] == b"\x01\x00\x01\x00"
    call = tts.calls[0]
    assert (call.text, call.options, call.duration, call.finished_at, call.cancelled_at) == (
        "Hello there.",
        {"voice": "ash"},
        2.0,
        0.6,
        None,
    )
    assert call.chunks[0].at - call.started_at == 0.3
    assert tts.texts == ("Hello there.",)
    tts.assert_complete()


async def test_synthesis_can_answer_with_explicit_chunks() -> None:
    tts = ScriptedTextToSpeech([tts_speech(chunks=[b"\x05\x00", b"\x06\x00\x07\x00"])])
    synthesis = tts.synthesize("anything")
    task = asyncio.create_task(_collect(synthesis))
    await tts.clock.run()
    assert await task == [b"\x05\x00", b"\x06\x00\x07\x00"]
    assert tts.calls[0].audio == b"\x05\x00\x06\x00\x07\x00"


async def _collect(synthesis: Any) -> list[bytes]:
    return [chunk.data async for chunk in synthesis]


async def test_a_synthesis_fails_mid_stream_after_its_chunks() -> None:
    boom = TimeoutError("tts timed out")
    tts = ScriptedTextToSpeech(
        [tts_speech("Hi", chunks=3, error=boom, error_after=2, interval=0.2)],
        clock=VirtualClock(auto_advance=True),
    )
    got: list[int] = []
    with pytest.raises(TimeoutError) as raised:
        await read_into(tts.synthesize("Hi"), got)
    assert raised.value is boom
    assert got == [0, 1]
    assert tts.calls[0].error is boom
    assert tts.calls[0].cancelled_at is None


async def test_a_synthesis_fails_before_the_first_byte() -> None:
    tts = ScriptedTextToSpeech(
        [tts_speech(error=ConnectionError("down"), first_byte=0.4)],
        clock=VirtualClock(auto_advance=True),
    )
    with pytest.raises(ConnectionError):
        async for _ in tts.synthesize("Hi"):
            pass
    assert tts.clock.now == 0.4
    assert tts.calls[0].chunks == ()


async def test_stopping_early_records_when_the_consumer_stopped() -> None:
    tts = ScriptedTextToSpeech(
        [tts_speech(chunks=5, interval=0.5)], clock=VirtualClock(auto_advance=True)
    )
    chunks = tts.synthesize("long answer").__aiter__()
    async for chunk in chunks:
        if chunk.index == 1:
            break
    await chunks.aclose()  # what `async with aclosing(...)` or a framework's cleanup does
    assert tts.calls[0].cancelled_at == 0.5
    assert len(tts.calls[0].chunks) == 2


async def test_cancel_stops_later_chunks() -> None:
    tts = ScriptedTextToSpeech([tts_speech(chunks=3, interval=1.0)])
    synthesis = tts.synthesize("x")
    task = asyncio.create_task(_collect(synthesis))
    await tts.clock.advance(1.5)
    synthesis.cancel()
    await tts.clock.run()
    assert len(await task) == 2
    assert tts.calls[0].cancelled_at == 1.5


async def test_text_that_differs_from_the_step_is_rejected_when_synthesis_starts() -> None:
    tts = ScriptedTextToSpeech(["It is sunny."])
    with pytest.raises(VoiceCallMatcherError) as raised:
        tts.synthesize("It is raining.")
    error = raised.value
    assert (error.service, error.call_index, error.step_index, error.method) == (
        "tts",
        0,
        0,
        "synthesize",
    )
    assert error.call_summary == "'It is raining.'"
    assert error.expected is not None
    assert "It is sunny." in error.expected
    assert tts.remaining_steps == 1
    with pytest.raises(VoiceCallMatcherError):
        tts.assert_complete()


def test_a_text_matcher_and_any_text() -> None:
    tts = ScriptedTextToSpeech(
        [tts_speech(lambda text: "sunny" in text), tts_speech(None), tts_speech(str.isupper)]
    )
    tts.synthesize("sunny today")
    tts.synthesize("whatever")
    with pytest.raises(VoiceCallMatcherError):
        tts.synthesize("lower")


def test_a_synthesis_with_no_step_left_is_unexpected() -> None:
    tts = ScriptedTextToSpeech()
    with pytest.raises(UnexpectedVoiceCallError) as raised:
        tts.synthesize("Hello")
    assert (raised.value.service, raised.value.call_summary) == ("tts", "'Hello'")
    with pytest.raises(UnexpectedVoiceCallError):
        tts.assert_complete()


def test_unused_tts_steps_are_listed() -> None:
    tts = ScriptedTextToSpeech(["Hello", tts_speech("Bye", optional=True)])
    with pytest.raises(UnconsumedVoiceStepsError) as raised:
        tts.assert_complete()
    assert raised.value.service == "tts"
    assert raised.value.remaining_steps == 2
    assert "'Hello'" in raised.value.pending_steps[0]["summary"]


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (3, "invalid_input"),
        (tts_speech(text=5), "invalid_text"),  # type: ignore[arg-type]
        (tts_speech(duration=-1.0), "invalid_timing"),
        (tts_speech(first_byte=float("nan")), "invalid_timing"),
        (tts_speech(interval="1"), "invalid_timing"),  # type: ignore[arg-type]
        (tts_speech(chunks=0), "invalid_audio"),
        (tts_speech(chunks=True), "invalid_audio"),
        (tts_speech(chunks=[b"\x00"]), "invalid_audio"),
        (tts_speech(chunks=["text"]), "invalid_audio"),  # type: ignore[list-item]
        (tts_speech(chunks=1.5), "invalid_audio"),  # type: ignore[arg-type]
        (tts_speech(error="boom"), "invalid_error"),  # type: ignore[arg-type]
        (tts_speech(error_after=1), "invalid_error"),
        (tts_speech(error=ValueError(), error_after=-1), "invalid_error"),
        (tts_speech(optional="yes"), "invalid_timing"),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_tts_step_is_refused_when_scripted(step: Any, reason: str) -> None:
    with pytest.raises(InvalidScriptedVoiceStepError) as raised:
        ScriptedTextToSpeech(["fine", step])
    assert (raised.value.reason, raised.value.service, raised.value.input_index) == (
        reason,
        "tts",
        1,
    )


def test_tts_refuses_bad_arguments_by_name() -> None:
    with pytest.raises(ValueError, match="sample_rate"):
        ScriptedTextToSpeech(sample_rate=0)
    with pytest.raises(TypeError, match="channels"):
        ScriptedTextToSpeech(channels=1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text"):
        ScriptedTextToSpeech(["a"]).synthesize(b"a")  # type: ignore[arg-type]


async def test_a_synthesis_iterates_once() -> None:
    synthesis = ScriptedTextToSpeech(["a"]).synthesize("a")
    synthesis.__aiter__()
    with pytest.raises(RuntimeError, match="only once"):
        synthesis.__aiter__()


# -- speaker -----------------------------------------------------------------------------------


async def test_the_speaker_plays_in_real_time_pace_and_an_interruption_cuts_exactly() -> None:
    clock = VirtualClock()
    speaker = VirtualSpeaker(clock, sample_rate=1000)
    assert speaker.play(b"\x01\x00" * 500, source="a") == 0.5
    assert speaker.play(b"\x02\x00" * 1000, source="b") == 1.5
    await clock.advance(0.75)
    assert speaker.playing
    assert speaker.interrupt() == 0.25
    speaker.play(b"\x03\x00" * 100, source="c")
    await clock.advance(1.0)

    played = speaker.played
    assert [(p.source, p.started_at, p.ended_at, p.interrupted) for p in played] == [
        ("a", 0.0, 0.5, False),
        ("b", 0.5, 0.75, True),
        ("c", 0.75, 0.85, False),
    ]
    assert played[1].data == b"\x02\x00" * 250
    assert played[1].queued == b"\x02\x00" * 1000
    assert speaker.heard == b"\x01\x00" * 500 + b"\x02\x00" * 250 + b"\x03\x00" * 100
    assert speaker.interruptions == (0.75,)
    assert not speaker.playing


async def test_waiting_for_the_speaker_takes_the_audio_duration_in_virtual_time() -> None:
    clock = VirtualClock(auto_advance=True)
    speaker = VirtualSpeaker(clock)
    speaker.play(pcm16_silence(12.0))
    await speaker.wait_done()
    assert clock.now == 12.0
    assert speaker.finishes_at == 12.0


def test_pcm16_helpers() -> None:
    assert pcm16_duration(pcm16_silence(1.5, sample_rate=8000), sample_rate=8000) == 1.5
    assert pcm16_duration(b"\x00" * 8, sample_rate=2, channels=2) == 1.0
    assert len(pcm16_silence(0.5, channels=2)) == 48000
    with pytest.raises(TypeError, match="audio"):
        pcm16_duration("x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seconds"):
        pcm16_silence(-1)


# -- bundle ------------------------------------------------------------------------------------


async def test_a_thirty_second_conversation_runs_on_one_clock_and_says_what_was_heard() -> None:
    voice = ScriptedVoice(
        stt=[stt_turn("tell me a story", duration=2.0), stt_turn("stop", start=4.0)],
        tts=[tts_speech("Once upon a time...", duration=25.0, chunks=25)],
    )
    session = voice.stt.stream()
    session.end_input()
    async for event in session:
        if event.type == "final" and event.text == "tell me a story":
            async for chunk in voice.tts.synthesize("Once upon a time..."):
                voice.speaker.play(chunk.data)
        if event.type == "speech_started" and event.turn_index == 1:
            voice.speaker.interrupt()
    assert voice.clock.now == 7.0  # the second final: 2.0 + 4.0 + 1.0
    (heard,) = voice.heard()
    assert (heard.text, heard.heard, heard.duration, heard.complete) == (
        "Once upon a time...",
        4.0,
        25.0,
        False,
    )
    voice.assert_complete()


async def test_heard_counts_explicit_chunks_by_their_source() -> None:
    voice = ScriptedVoice(tts=[tts_speech(chunks=[b"\x09\x00" * 24000])])
    synthesis = voice.tts.synthesize("x")
    async for chunk in synthesis:
        voice.speaker.play(chunk.data, source=synthesis.index)
    await voice.speaker.wait_done()
    assert voice.heard()[0].heard == 1.0
    assert voice.heard()[0].complete


async def test_the_bundle_checks_both_scripts_on_exit() -> None:
    with pytest.raises(UnconsumedVoiceStepsError) as raised:
        async with ScriptedVoice(tts=["unused"]):
            pass
    assert raised.value.service == "tts"
    with pytest.raises(UnconsumedVoiceStepsError) as raised, ScriptedVoice(stt=["unused"]):
        pass
    assert raised.value.service == "stt"


def test_records_pickle() -> None:
    record = TranscriptEvent("final", "hi", 1.0, 0, 0)
    assert pickle.loads(pickle.dumps(record)) == record


def test_importing_the_voice_double_imports_no_third_party_module() -> None:
    code = (
        "import sys, agents_testing; agents_testing.ScriptedVoice; "
        "bad = [m for m in ('numpy', 'pytest', 'agents') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_a_turn_keeps_the_users_timeline_when_the_reader_comes_back_late() -> None:
    stt = ScriptedSpeechToText(
        ["one", stt_turn("two", start=1.0)], clock=VirtualClock(auto_advance=True)
    )
    session = stt.stream()
    session.end_input()
    started: list[float] = []
    async for event in session:
        if event.type == "final" and event.text == "one":
            await stt.clock.sleep(0.5)  # busy answering: the next read comes at 1.5
        if event.type == "speech_started":
            started.append(event.at)
    assert started == [0.0, 2.0]  # the second turn is timed from the first final (1.0)


class _TurnCountingLoop(asyncio.SelectorEventLoop):
    """The standard loop, counting its turns (one per ``_run_once``)."""

    turns = 0

    def _run_once(self) -> None:
        self.turns += 1
        super()._run_once()  # type: ignore[misc]


def _turns_taken(make: Any) -> int:
    loop = _TurnCountingLoop()
    try:
        loop.run_until_complete(make())
        return loop.turns
    finally:
        loop.close()


def test_the_clock_moves_on_as_soon_as_every_other_task_waits() -> None:
    async def advance_alone() -> None:
        clock = VirtualClock()
        clock.call_at(1.0, lambda: None)
        clock.call_at(2.0, lambda: None)
        await clock.advance_to(3.0)

    async def advance_beside_a_busy_task() -> None:
        clock = VirtualClock()
        clock.call_at(1.0, lambda: None)
        clock.call_at(2.0, lambda: None)

        async def spin() -> None:
            for _ in range(10_000):  # always ready: the loop never idles
                await asyncio.sleep(0)

        task = asyncio.get_running_loop().create_task(spin())
        await clock.advance_to(3.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    # Four settles (before, after each of the two instants, at the end): a few turns each
    # when nothing else runs; the 64 turns each allows when something keeps running.
    assert _turns_taken(advance_alone) < 20
    assert _turns_taken(advance_beside_a_busy_task) >= 4 * 64
