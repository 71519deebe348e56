"""Property tests of the voice double: bad input is refused by name, and a random
conversation keeps the double's invariants (time only moves forward, records add up)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from agents_testing import (
    InvalidScriptedVoiceStepError,
    ScriptedSpeechToText,
    ScriptedTextToSpeech,
    ScriptedVoice,
    UnexpectedVoiceCallError,
    VirtualClock,
    VirtualSpeaker,
    VoiceCallMatcherError,
    stt_end,
    stt_turn,
    tts_speech,
)

ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.binary(max_size=5),
    st.lists(st.one_of(st.integers(), st.text(max_size=3), st.binary(max_size=3)), max_size=3),
    st.tuples(st.text(max_size=3), st.floats()),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(print),
    st.builds(ValueError),
)
REFUSED = (InvalidScriptedVoiceStepError, TypeError, ValueError)


@settings(max_examples=200, deadline=None)
@given(
    final=ANYTHING,
    partials=ANYTHING,
    start=ANYTHING,
    duration=ANYTHING,
    latency=ANYTHING,
    error=ANYTHING,
    match=ANYTHING,
    optional=ANYTHING,
)
def test_any_stt_turn_is_accepted_or_refused_by_a_named_error(**fields: Any) -> None:
    refused: Exception | None = None
    try:
        stt = ScriptedSpeechToText([stt_turn(**fields)])
    except REFUSED as error:
        refused = error
    else:
        assert stt.remaining_steps == 1
    if isinstance(refused, InvalidScriptedVoiceStepError):
        assert (refused.input_index, refused.service) == (0, "stt")
        assert "Fix:" in str(refused)


@settings(max_examples=200, deadline=None)
@given(
    text=ANYTHING,
    duration=ANYTHING,
    chunks=ANYTHING,
    first_byte=ANYTHING,
    interval=ANYTHING,
    error=ANYTHING,
    error_after=ANYTHING,
    optional=ANYTHING,
)
def test_any_tts_speech_is_accepted_or_refused_by_a_named_error(**fields: Any) -> None:
    refused: Exception | None = None
    try:
        tts = ScriptedTextToSpeech([tts_speech(**fields)])
    except REFUSED as error:
        refused = error
    else:
        assert tts.remaining_steps == 1
    if isinstance(refused, InvalidScriptedVoiceStepError):
        assert (refused.input_index, refused.service) == (0, "tts")
        assert "Fix:" in str(refused)


@settings(max_examples=100, deadline=None)
@given(value=ANYTHING)
def test_every_entry_point_refuses_a_bad_argument_by_name(value: Any) -> None:
    clock = VirtualClock()
    calls: list[Callable[[], object]] = [
        lambda: ScriptedSpeechToText(value),
        lambda: ScriptedTextToSpeech(value),
        lambda: ScriptedTextToSpeech(sample_rate=value),
        lambda: ScriptedVoice(stt=value),
        lambda: VirtualSpeaker(clock, channels=value),
        lambda: VirtualSpeaker(clock).play(value),
        lambda: clock.call_later(value, print),
        lambda: ScriptedSpeechToText(["a"]).stream(value),
        lambda: ScriptedSpeechToText(["a"]).stream().push_audio(value),
        lambda: ScriptedTextToSpeech(["a"]).synthesize(value),
    ]
    for call in calls:
        try:
            call()
        except (*REFUSED, VoiceCallMatcherError):
            pass


class ConversationMachine(RuleBasedStateMachine):
    """Random conversations on a manual clock: script, stream, synthesize, play, interrupt."""

    @initialize()
    def start(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.voice = ScriptedVoice(auto_advance=False, sample_rate=100)
        self.sessions: list[Any] = []
        self.readers: list[asyncio.Task[None]] = []
        self.finals: list[str] = []
        self.syntheses = 0
        self.last_now = 0.0
        self.unexpected = 0

    def teardown(self) -> None:
        for session in self.sessions:
            session.close()
        self.loop.run_until_complete(self.voice.clock.run())
        for task in self.readers:
            task.cancel()
        if self.readers:
            gathered = asyncio.gather(*self.readers, return_exceptions=True)
            self.loop.run_until_complete(gathered)
        self.loop.close()

    async def _read(self, session: Any) -> None:
        async for event in session:
            if event.type == "final":
                self.finals.append(event.text)

    @rule(
        text=st.text(min_size=1, max_size=5),
        start=st.floats(0, 3),
        duration=st.floats(0, 3),
        partials=st.integers(0, 3),
    )
    def script_turn(self, text: str, start: float, duration: float, partials: int) -> None:
        self.voice.stt.enqueue(
            stt_turn(text, start=start, duration=duration, partials=["p"] * partials)
        )

    @rule()
    def script_end(self) -> None:
        self.voice.stt.enqueue(stt_end(at=0.5))

    @rule(chunks=st.integers(1, 4), duration=st.floats(0, 2), interval=st.floats(0, 1))
    def script_speech(self, chunks: int, duration: float, interval: float) -> None:
        self.voice.tts.enqueue(
            tts_speech(None, chunks=chunks, duration=duration, interval=interval)
        )

    @rule()
    def open_session(self) -> None:
        try:
            session = self.voice.stt.stream()
        except UnexpectedVoiceCallError:
            self.unexpected += 1
            return
        self.sessions.append(session)
        self.readers.append(self.loop.create_task(self._read(session)))

    @precondition(lambda self: self.sessions)
    @rule(data=st.data())
    def push_or_end(self, data: st.DataObject) -> None:
        session = data.draw(st.sampled_from(self.sessions))
        if session.closed:
            return
        if data.draw(st.booleans()):
            session.push_audio(b"\x00\x00" * data.draw(st.integers(0, 50)))
        else:
            session.end_input()

    @rule(text=st.text(max_size=5))
    def synthesize_and_play(self, text: str) -> None:
        try:
            synthesis = self.voice.tts.synthesize(text)
        except UnexpectedVoiceCallError:
            self.unexpected += 1
            return
        self.syntheses += 1

        async def play() -> None:
            async for chunk in synthesis:
                self.voice.speaker.play(chunk.data, source=synthesis.index)

        self.readers.append(self.loop.create_task(play()))

    @rule(seconds=st.floats(0, 5))
    def advance(self, seconds: float) -> None:
        self.loop.run_until_complete(self.voice.clock.advance(seconds))

    @rule()
    def interrupt(self) -> None:
        self.voice.speaker.interrupt()

    @invariant()
    def time_only_moves_forward(self) -> None:
        now = self.voice.clock.now
        assert now >= self.last_now
        self.last_now = now

    @invariant()
    def records_add_up(self) -> None:
        stt_calls = self.voice.stt.calls
        assert len(stt_calls) == len(self.sessions) + self.unexpected_stt()
        assert len(self.voice.tts.calls) >= self.syntheses
        now = self.voice.clock.now
        for synthesis in self.voice.tts.calls:
            assert all(chunk.at <= now for chunk in synthesis.chunks)
            indices = [chunk.index for chunk in synthesis.chunks]
            assert indices == list(range(len(synthesis.chunks)))
        for transcription in stt_calls:
            times = [event.at for event in transcription.events]
            assert all(at <= now for at in times)
            assert times == sorted(times)
        assert sorted(self.finals) == sorted(t for c in stt_calls for t in c.transcripts)

    def unexpected_stt(self) -> int:
        return sum(
            1 for call in self.voice.stt.calls if isinstance(call.error, UnexpectedVoiceCallError)
        )

    @invariant()
    def nothing_heard_beyond_what_was_played(self) -> None:
        for record in self.voice.speaker.played:
            assert record.queued.startswith(record.data)
            assert (
                record.started_at <= record.ended_at <= max(self.voice.clock.now, record.started_at)
            )
        for heard in self.voice.heard():
            assert 0 <= heard.heard <= heard.duration


TestConversationMachine = ConversationMachine.TestCase
TestConversationMachine.settings = settings(
    max_examples=30,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


SAMPLE_VALUES = st.sampled_from([0, 1, 2, 3, 256, 257, -1, -256])


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(
        st.lists(st.tuples(SAMPLE_VALUES, st.integers(0, 30)), min_size=1, max_size=4),
        max_size=6,
    )
)
def test_heard_counts_every_sample_of_each_synthesis_whatever_pieces_the_app_played(
    pieces: list[list[tuple[int, int]]],
) -> None:
    # Runs of sample values, some of whose bytes read as another value one byte off (256 is
    # 00 01, 1 is 01 00): heard() must count each synthesis's samples exactly, in pieces of
    # one value throughout as in pieces that mix values.
    # 10 s each at 10 samples a second: 100 samples of 1, then 100 of 2.
    voice = ScriptedVoice(
        tts=[tts_speech("a", duration=10.0), tts_speech("b", duration=10.0)], sample_rate=10
    )

    async def conversation() -> None:
        for text in ("a", "b"):
            async for _chunk in voice.tts.synthesize(text):
                pass
        for runs in pieces:
            data = b"".join(value.to_bytes(2, "little", signed=True) * n for value, n in runs)
            if data:
                voice.speaker.play(data)
        await voice.speaker.wait_done()

    asyncio.run(conversation())
    for value, heard in zip((1, 2), voice.heard(), strict=True):
        samples = sum(n for runs in pieces for v, n in runs if v == value)
        assert heard.heard == min(samples, 100) / 10
