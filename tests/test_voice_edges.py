"""Edges of the voice double that its first mutation run showed no test pinned.

Each test pins one behavior a user can observe: the clock's nanosecond grid and its past
instants, how many loop turns it lets pass before moving time, what a one-shot
transcription records, a session after its end step, how synthesized audio is split into
chunks, a barge-in with audio queued behind the piece being played, and what heard() counts.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

import agents_testing.voice as voice
from agents_testing import (
    ScriptedSpeechToText,
    ScriptedTextToSpeech,
    ScriptedVoice,
    TranscriptEvent,
    UnconsumedVoiceStepsError,
    VirtualClock,
    VirtualSpeaker,
    VoiceCallMatcherError,
    pcm16_duration,
    stt_end,
    stt_turn,
    tts_speech,
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


async def test_callbacks_due_at_the_same_instant_run_in_the_order_they_were_scheduled() -> None:
    clock = VirtualClock()
    seen: list[str] = []
    for name in "abcd":
        clock.call_at(1.0, functools.partial(seen.append, name))
    timer = clock.call_at(1.0, lambda: seen.append("cancelled"))
    assert timer.cancelled is False
    timer.cancel()
    await clock.advance_to(1.0)
    assert seen == ["a", "b", "c", "d"]


async def test_auto_advance_wakes_each_sleeper_at_its_own_instant() -> None:
    # One driver moves time, however many sleeps are scheduled while it runs: each wakes at
    # its instant, and the tasks woken at an instant run before time moves again.
    clock = VirtualClock(auto_advance=True)
    seen: list[tuple[str, float]] = []

    async def sleeper(name: str, delay: float, times: int) -> None:
        for _ in range(times):
            await clock.sleep(delay)
            seen.append((name, clock.now))

    await asyncio.gather(sleeper("a", 1.0, 3), sleeper("b", 1.5, 2))
    assert seen == [("a", 1.0), ("b", 1.5), ("a", 2.0), ("b", 3.0), ("a", 3.0)]


async def test_sleeping_until_now_returns_without_the_clock_moving() -> None:
    clock = VirtualClock(start=2.0)
    task = asyncio.create_task(clock.sleep_until(2.0))
    for _ in range(3):
        await asyncio.sleep(0)
    assert task.done()
    assert (clock.now, clock.pending) == (2.0, 0)


class _CountingLoop(asyncio.SelectorEventLoop):
    """The standard loop, counting its turns (one per ``_run_once``)."""

    turns = 0

    def _run_once(self) -> None:
        self.turns += 1
        super()._run_once()  # type: ignore[misc]


class _NotADeque:
    """A ready queue that is not a ``deque``, as on a loop other than CPython's own."""

    def __init__(self) -> None:
        self._items: deque[Any] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._items, name)


class _OtherQueueLoop(_CountingLoop):
    def __init__(self) -> None:
        super().__init__()
        self._ready = _NotADeque()


def _turns_to_settle(
    loop: _CountingLoop, busy_turns: int, settle: Callable[[], Coroutine[Any, Any, None]]
) -> int:
    async def measure() -> int:
        async def busy() -> None:
            for _ in range(busy_turns):
                await asyncio.sleep(0)

        task = asyncio.get_running_loop().create_task(busy())
        before = loop.turns
        await settle()
        taken = loop.turns - before
        await task
        return taken

    try:
        return loop.run_until_complete(measure())
    finally:
        loop.close()


@pytest.mark.parametrize(("busy_turns", "turns"), [(0, 2), (1, 3), (3, 5), (61, 63), (100, 64)])
def test_the_clock_lets_two_idle_turns_pass_before_moving_time_and_64_at_most(
    busy_turns: int, turns: int
) -> None:
    # Moving time settles the loop first: the tasks woken at an instant hand their data along
    # until everything waits, and one more turn polls the loop's I/O for what another thread
    # handed over. A task still running after 64 turns does not hold time up.
    settle = voice._settle  # what advance_to(), run() and auto_advance do between instants
    assert _turns_to_settle(_CountingLoop(), busy_turns, settle) == turns


def test_on_a_loop_without_cpythons_ready_queue_the_clock_lets_all_64_turns_pass() -> None:
    assert _turns_to_settle(_OtherQueueLoop(), 0, voice._settle) == 64


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


async def test_an_open_call_is_recorded_as_open_with_no_error() -> None:
    stt = ScriptedSpeechToText(["a"])
    session = stt.stream()
    call = session.call
    assert (call.index, call.closed_at, call.error, call.input_ended, session.closed) == (
        0,
        None,
        None,
        False,
        False,
    )
    assert session.closed is False
    session.close()
    assert session.closed is True


def test_an_end_step_is_required_unless_optional() -> None:
    with pytest.raises(UnconsumedVoiceStepsError):
        ScriptedSpeechToText([stt_end()]).assert_complete()
    ScriptedSpeechToText([stt_end(optional=True)]).assert_complete()


# -- text-to-speech ----------------------------------------------------------------------------


async def test_generated_audio_is_split_as_evenly_as_it_goes_the_first_chunks_longer() -> None:
    tts = ScriptedTextToSpeech([tts_speech(duration=1.0, chunks=3)], sample_rate=10)
    chunks = [chunk async for chunk in tts.synthesize("x")]
    assert [len(chunk.data) // 2 for chunk in chunks] == [4, 3, 3]
    assert [chunk.duration for chunk in chunks] == [0.4, 0.3, 0.3]


async def test_stereo_audio_holds_each_sample_once_per_channel_and_lasts_its_frames() -> None:
    tts = ScriptedTextToSpeech(["a", tts_speech(duration=0.5)], sample_rate=4, channels=2)
    [_ async for _ in tts.synthesize("a")]
    (chunk,) = [chunk async for chunk in tts.synthesize("b")]
    assert chunk.data == b"\x02\x00" * 4  # synthesis #1: value 2, two frames of two channels
    assert (chunk.duration, tts.calls[1].duration) == (0.5, 0.5)
    speaker = VirtualSpeaker(tts.clock, sample_rate=4, channels=2)
    assert speaker.play(chunk.data) == 0.5


async def test_a_finished_synthesis_has_no_error_and_a_failed_one_its_finish_time() -> None:
    tts = ScriptedTextToSpeech(
        ["ok", tts_speech(chunks=2, interval=0.5, error=KeyError("k"), error_after=2)],
        clock=VirtualClock(auto_advance=True),
    )
    [_ async for _ in tts.synthesize("ok")]
    with pytest.raises(KeyError):
        [_ async for _ in tts.synthesize("fails")]
    ok, failed = tts.calls
    assert (ok.error, ok.finished_at, ok.cancelled_at) == (None, 0.0, None)
    assert (failed.finished_at, failed.cancelled_at, len(failed.chunks)) == (0.5, None, 2)


def test_pcm16_duration_counts_whole_samples_only() -> None:
    assert pcm16_duration(b"\x00" * 5, sample_rate=2) == 1.0
    assert pcm16_duration(b"\x00" * 7, sample_rate=1, channels=2) == 1.0


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


# -- the bundle --------------------------------------------------------------------------------


def test_the_bundle_puts_every_double_on_its_clock_and_sample_rate() -> None:
    voice_ = ScriptedVoice(sample_rate=16000)
    assert voice_.stt.clock is voice_.clock
    assert voice_.tts.clock is voice_.clock
    assert voice_.speaker.clock is voice_.clock
    assert (voice_.tts.sample_rate, voice_.speaker.sample_rate) == (16000, 16000)
    assert voice_.clock.auto_advance


async def test_heard_adds_up_every_piece_of_a_synthesis_played_in_parts() -> None:
    voice_ = ScriptedVoice(
        tts=["a", tts_speech(chunks=[b"\x09\x00" * 8])], sample_rate=10, auto_advance=False
    )
    generated = [chunk.data async for chunk in voice_.tts.synthesize("a")]
    explicit = [chunk.data async for chunk in voice_.tts.synthesize("b")]
    audio = generated[0]  # ten samples of the value 1
    voice_.speaker.play(audio[:6])
    voice_.speaker.play(audio[6:9])  # a sample and a half: the half is not played
    voice_.speaker.play(explicit[0][:4], source=1)
    voice_.speaker.play(b"", source=1)
    voice_.speaker.play(explicit[0][4:10] + b"\x05\x00", source=1)  # a sample of another value
    await voice_.clock.advance(5.0)
    first, second = voice_.heard()
    assert (first.call_index, first.text, first.heard, first.duration) == (0, "a", 0.4, 1.0)
    assert (second.call_index, second.text, second.heard, second.duration) == (1, "b", 0.6, 0.8)
    assert not first.complete


async def test_sample_values_start_again_from_1_after_32767_syntheses_never_silence() -> None:
    voice_ = ScriptedVoice(tts=[tts_speech(duration=0.0)] * 32767 + ["last"], sample_rate=10)
    for _ in range(32767):
        voice_.tts.synthesize("x")
    (chunk,) = [chunk async for chunk in voice_.tts.synthesize("last")]
    assert chunk.data == b"\x01\x00" * 10
    voice_.speaker.play(chunk.data)
    voice_.speaker.play(bytes(20))  # silence the app played: nobody's speech
    await voice_.speaker.wait_done()
    assert voice_.heard()[-1].heard == 1.0
