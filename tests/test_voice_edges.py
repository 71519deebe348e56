"""Edges of the voice double that its first mutation run showed no test pinned.

Each test pins one behavior a user can observe: the clock's nanosecond grid and its past
instants, what a one-shot transcription records, a session after its end step, a barge-in
with audio queued behind the piece being played.
"""

from __future__ import annotations

import pytest

import agents_testing.voice as voice
from agents_testing import (
    ScriptedSpeechToText,
    TranscriptEvent,
    UnconsumedVoiceStepsError,
    VirtualClock,
    VirtualSpeaker,
    VoiceCallMatcherError,
    stt_end,
    stt_turn,
)

# -- the clock ---------------------------------------------------------------------------------


async def test_instants_are_rounded_to_the_nanosecond_and_not_finer() -> None:
    clock = VirtualClock()
    seen: list[float] = []
    clock.call_at(1.0000000004, lambda: seen.append(clock.now))
    clock.call_at(1.25, lambda: seen.append(clock.now))
    await clock.advance_to(2.0000000004)
    assert (seen, clock.now) == ([1.0, 1.25], 2.0)
    await clock.run(until=3.0000000004)
    assert clock.now == 3.0
    await clock.advance_to(3.25)
    assert clock.now == 3.25


async def test_a_past_instant_is_accepted_and_time_does_not_go_back() -> None:
    clock = VirtualClock(start=1.0)
    seen: list[float] = []
    timer = clock.call_at(-2.0, lambda: seen.append(clock.now))
    assert timer.when == 1.0
    await clock.advance_to(-1.0)
    await clock.run(until=-0.5)
    await clock.sleep_until(-3.0)
    assert (seen, clock.now) == ([], 1.0)  # a move to the past fires nothing
    await clock.advance(0)
    assert (seen, clock.now) == ([1.0], 1.0)


async def test_run_until_moves_the_clock_to_the_limit_when_nothing_is_left_before_it() -> None:
    clock = VirtualClock()
    seen: list[float] = []
    clock.call_at(1.0, lambda: seen.append(clock.now))
    await clock.run(until=5.0)
    assert (seen, clock.now) == ([1.0], 5.0)
    clock.call_at(6.0, lambda: seen.append(clock.now))
    await clock.run()  # without a limit, the clock stops at the last instant it fired
    assert (seen, clock.now) == ([1.0, 6.0], 6.0)


@pytest.mark.parametrize("move", ["advance_to", "run"])
async def test_a_callback_that_reschedules_itself_forever_is_stopped_with_a_fix(
    move: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(voice, "_MAX_FIRINGS", 5)  # a million in the library
    clock = VirtualClock(start=2.0)
    fired: list[float] = []

    def again() -> None:
        fired.append(clock.now)
        clock.call_later(0, again)

    clock.call_at(2.0, again)
    with pytest.raises(RuntimeError) as raised:
        await (clock.advance_to(3.0) if move == "advance_to" else clock.run())
    assert fired == [2.0] * 5
    assert str(raised.value) == (
        "VirtualClock fired 5 callbacks and reads 2s with more still due: a callback keeps "
        "scheduling another. Cancel the repeating timer, or stop at an earlier instant "
        "(run(until=...) or advance_to())."
    )


async def test_five_callbacks_at_the_limit_of_five_all_run() -> None:
    # The limit counts the callbacks fired: exactly that many, then nothing due, is fine.
    clock = VirtualClock()
    fired: list[float] = []
    for when in (1.0, 2.0, 3.0, 4.0, 5.0):
        clock.call_at(when, lambda: fired.append(clock.now))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(voice, "_MAX_FIRINGS", 5)
        await clock.run()
    assert fired == [1.0, 2.0, 3.0, 4.0, 5.0]


# -- speech-to-text ----------------------------------------------------------------------------


async def test_a_one_shot_transcription_records_its_events_from_when_it_was_opened() -> None:
    clock = VirtualClock(start=10.0, auto_advance=True)
    stt = ScriptedSpeechToText(
        ["warm up", stt_turn("book it", partials=["book"], start=0.5, latency=0.25)], clock=clock
    )
    await stt.transcribe(b"\x00\x00")
    assert await stt.transcribe(b"\x01\x00\x02\x00") == "book it"
    call = stt.calls[1]
    assert (call.index, call.opened_at, call.closed_at, call.input_ended, call.error) == (
        1,
        11.0,
        12.75,
        True,
        None,
    )
    assert call.events == (
        TranscriptEvent("speech_started", "", 11.5, 1, 1),
        TranscriptEvent("partial", "book", 12.0, 1, 1),
        TranscriptEvent("speech_ended", "", 12.5, 1, 1),
        TranscriptEvent("final", "book it", 12.75, 1, 1),
    )


async def test_a_failing_one_shot_transcription_records_its_error() -> None:
    boom = ConnectionError("dropped")
    stt = ScriptedSpeechToText([stt_turn(error=boom)], clock=VirtualClock(auto_advance=True))
    with pytest.raises(ConnectionError):
        await stt.transcribe(b"")
    assert stt.calls[0].error is boom
    assert stt.calls[0].transcripts == ()


async def test_a_one_shot_transcription_is_matched_against_its_audio() -> None:
    heard: list[bytes] = []

    def match(audio: bytes) -> bool:
        heard.append(audio)
        return len(audio) > 2

    stt = ScriptedSpeechToText(
        [stt_turn("yes", match=match), stt_turn("no", match=match)],
        clock=VirtualClock(auto_advance=True),
    )
    assert await stt.transcribe(memoryview(b"\x01\x00\x02\x00")) == "yes"
    with pytest.raises(VoiceCallMatcherError) as raised:
        await stt.transcribe(b"\x03\x00")
    assert heard == [b"\x01\x00\x02\x00", b"\x03\x00"]
    error = raised.value
    assert (error.call_index, error.method, error.step_index, error.call_summary) == (
        1,
        "transcribe",
        1,
        "2 bytes of audio",
    )
    assert stt.calls[1].error is error
    assert stt.calls[1].closed_at is None  # refused before it waited


async def test_audio_given_as_a_memoryview_is_recorded_as_its_raw_bytes() -> None:
    stt = ScriptedSpeechToText(["a"])
    session = stt.stream()
    session.push_audio(memoryview(b"\x01\x00\x02\x00").cast("h"))  # two int16 samples
    assert stt.calls[0].audio == b"\x01\x00\x02\x00"
    speaker = VirtualSpeaker(stt.clock, sample_rate=2)
    assert speaker.play(memoryview(b"\x03\x00\x04\x00").cast("h")) == 1.0
    assert speaker.played[0].queued == b"\x03\x00\x04\x00"


async def test_a_stream_rejected_by_its_matcher_records_the_error() -> None:
    stt = ScriptedSpeechToText(
        [stt_turn("hi", match=lambda audio: False)], clock=VirtualClock(auto_advance=True)
    )
    session = stt.stream()
    session.push_audio(b"\x00\x00" * 3)
    with pytest.raises(VoiceCallMatcherError) as raised:
        async for _ in session:
            pass
    error = raised.value
    assert (error.method, error.call_summary) == ("stream", "6 bytes of audio")
    assert stt.calls[0].error is error


async def test_an_end_step_ends_its_session_for_good() -> None:
    stt = ScriptedSpeechToText(["one", stt_end(), "two"], clock=VirtualClock(auto_advance=True))
    session = stt.stream()
    assert [event.text async for event in session if event.type == "final"] == ["one"]
    assert stt.clock.now == 1.0  # stt_end() ends the stream when its turn begins
    assert [event async for event in session] == []  # iterated again: still ended
    assert stt.remaining_steps == 1
    second = stt.stream()
    second.end_input()
    finals = [(e.text, e.session_index) async for e in second if e.type == "final"]
    assert finals == [("two", 1)]


async def test_a_session_left_early_can_be_iterated_again_for_the_rest() -> None:
    stt = ScriptedSpeechToText(["one", "two"], clock=VirtualClock(auto_advance=True))
    session = stt.stream()
    session.end_input()
    reader = session.__aiter__()
    async for event in reader:
        if event.type == "final":
            break
    await reader.aclose()
    assert [event.text async for event in session if event.type == "final"] == ["two"]


def test_an_end_step_is_required_unless_optional() -> None:
    with pytest.raises(UnconsumedVoiceStepsError):
        ScriptedSpeechToText([stt_end()]).assert_complete()
    ScriptedSpeechToText([stt_end(optional=True)]).assert_complete()


# -- speaker -----------------------------------------------------------------------------------


async def test_an_interruption_counts_the_piece_playing_not_the_ones_queued_after_it() -> None:
    clock = VirtualClock()
    speaker = VirtualSpeaker(clock, sample_rate=1000)
    speaker.play(b"\x01\x00" * 1000, source="a")
    speaker.play(b"\x02\x00" * 1000, source="b")
    await clock.advance(0.25)
    assert speaker.interrupt() == 0.25
    assert [(p.source, p.ended_at, p.interrupted) for p in speaker.played] == [
        ("a", 0.25, True),
        ("b", 1.0, True),
    ]


async def test_an_interruption_right_as_a_piece_ends_does_not_cut_it() -> None:
    clock = VirtualClock()
    speaker = VirtualSpeaker(clock, sample_rate=1000)
    speaker.play(b"\x01\x00" * 500)
    await clock.advance(0.5)
    assert speaker.interrupt() == 0.0
    (played,) = speaker.played
    assert (played.ended_at, played.interrupted, len(played.data)) == (0.5, False, 1000)
