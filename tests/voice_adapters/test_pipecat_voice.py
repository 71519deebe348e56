"""The voice doubles in a real Pipecat pipeline, run by Pipecat's own ``run_test``.

The pipeline is the usual cascade: scripted STT -> user aggregator (external turn strategies)
-> a stand-in for the LLM -> scripted TTS -> the virtual speaker -> assistant aggregator.
``loop_on_clock`` makes ``SleepFrame`` and Pipecat's own waits virtual, so a 10-second
conversation runs in milliseconds and every frame lands at its scripted instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("pipecat")

from pipecat.frames.frames import (
    ErrorFrame,
    Frame,
    InputAudioRawFrame,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import SleepFrame, run_test
from pipecat.turns.user_turn_strategies import ExternalUserTurnStrategies

from agents_testing.adapters.pipecat import (
    ScriptedSpeakerOutput,
    loop_on_clock,
    pipecat_stt,
    pipecat_tts,
)
from agents_testing.errors import UnexpectedVoiceCallError
from agents_testing.voice import ScriptedVoice, pcm16_silence, stt_turn, tts_speech

STORY = "Once upon a time there was a fox."


class ScriptedReplies(FrameProcessor):
    """Stands in for the LLM service: answers each user turn with the next reply."""

    def __init__(self, voice: ScriptedVoice, replies: Sequence[str]) -> None:
        super().__init__()
        self.voice = voice
        self.replies = list(replies)
        self.turns: list[tuple[float, list[Any]]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, LLMContextFrame):
            await self.push_frame(frame, direction)
            return
        self.turns.append((self.voice.clock.now, list(frame.context.get_messages())))
        await self.push_frame(LLMFullResponseStartFrame())
        await self.push_frame(LLMTextFrame(self.replies.pop(0)))
        await self.push_frame(LLMFullResponseEndFrame())


async def converse(
    voice: ScriptedVoice, replies: Sequence[str], *, seconds: float = 10.0
) -> tuple[ScriptedReplies, LLMContext, Sequence[Frame], Sequence[Frame]]:
    context = LLMContext()
    aggregators = LLMContextAggregatorPair(
        context,
        user_params=LLMUserAggregatorParams(user_turn_strategies=ExternalUserTurnStrategies()),
    )
    agent = ScriptedReplies(voice, replies)
    pipeline = Pipeline(
        [
            pipecat_stt(voice.stt),
            aggregators.user(),
            agent,
            pipecat_tts(voice.tts),
            ScriptedSpeakerOutput(voice.speaker),
            aggregators.assistant(),
        ]
    )
    microphone = InputAudioRawFrame(
        audio=pcm16_silence(0.1, sample_rate=16000), sample_rate=16000, num_channels=1
    )
    async with loop_on_clock(voice.clock):
        down, up = await run_test(pipeline, frames_to_send=[microphone, SleepFrame(sleep=seconds)])
    return agent, context, down, up


async def test_a_spoken_turn_is_answered_with_the_scripted_speech() -> None:
    voice = ScriptedVoice(
        stt=[stt_turn("what's the weather", duration=1.0, latency=0.25)],
        tts=[tts_speech("It is sunny.", duration=2.0, chunks=4)],
        auto_advance=False,
    )
    agent, context, _, _ = await converse(voice, ["It is sunny."])

    assert agent.turns == [(1.25, [{"role": "user", "content": "what's the weather"}])]
    assert context.get_messages()[-1] == {"role": "assistant", "content": "It is sunny."}
    synthesis = voice.tts.calls[0]
    assert (synthesis.text, synthesis.started_at, synthesis.cancelled_at) == (
        "It is sunny.",
        1.25,
        None,
    )
    assert voice.speaker.heard == synthesis.audio
    assert (voice.speaker.played[0].started_at, voice.speaker.played[-1].ended_at) == (1.25, 3.25)
    assert voice.stt.calls[0].audio == pcm16_silence(0.1, sample_rate=16000)
    voice.assert_complete()


async def test_a_partial_transcript_does_not_start_the_turn() -> None:
    voice = ScriptedVoice(
        stt=[stt_turn("book a table for two", partials=["book a"], duration=1.0, latency=1.0)],
        tts=[tts_speech("Done.", duration=0.5)],
        auto_advance=False,
    )
    agent, _, _, _ = await converse(voice, ["Done."])

    partials = [(e.text, e.at) for e in voice.stt.calls[0].events if e.type == "partial"]
    assert partials == [("book a", 0.5)]
    # The agent answered only the final transcript, when it came (2.0 s).
    assert agent.turns == [(2.0, [{"role": "user", "content": "book a table for two"}])]
    assert voice.tts.calls[0].started_at == 2.0
    voice.assert_complete()


async def test_barge_in_stops_the_bot_where_the_user_spoke() -> None:
    voice = ScriptedVoice(
        stt=[
            stt_turn("tell me a story", duration=1.0),
            # Begins when the first final arrives (1.0 s): the user talks again from 2.0 s.
            stt_turn("stop", start=1.0, duration=0.5),
        ],
        tts=[
            tts_speech(STORY, duration=5.0, chunks=10, interval=0.5),
            tts_speech("Okay.", duration=0.5),
        ],
        auto_advance=False,
    )
    agent, context, _, _ = await converse(voice, [STORY, "Okay."])

    # Pipecat interrupts when the user's turn starts: the speech_started of turn 2.
    assert voice.speaker.interruptions == (2.0,)
    first = voice.speaker.played[0].source
    story = [piece for piece in voice.speaker.played if piece.source == first]
    assert sum(piece.duration for piece in story) == pytest.approx(1.0)  # 1.0 s to 2.0 s
    # The synthesis was still streaming (a chunk every 0.5 s); the interruption cancelled it
    # before its third chunk.
    synthesis = voice.tts.calls[0]
    assert synthesis.cancelled_at == 2.0
    assert [chunk.at for chunk in synthesis.chunks] == [1.0, 1.5]
    assert [turn[0] for turn in agent.turns] == [1.0, 2.5]
    # The answer to "stop" plays from its final transcript (2.5 s), in full.
    answer = [piece for piece in voice.speaker.played if piece.source != first]
    assert (answer[0].started_at, answer[-1].ended_at) == (2.5, 3.0)
    assert context.get_messages()[-2:] == [
        {"role": "user", "content": "stop"},
        {"role": "assistant", "content": "Okay."},
    ]
    voice.assert_complete()


async def test_a_failing_synthesis_becomes_an_error_frame() -> None:
    voice = ScriptedVoice(
        stt=[stt_turn("hello", duration=0.5)],
        tts=[tts_speech("Hi.", error=RuntimeError("tts unavailable"))],
        auto_advance=False,
    )
    _, _, _, up = await converse(voice, ["Hi."])

    # Ours, then Pipecat's own report of a synthesis that produced no audio.
    errors = [frame for frame in up if isinstance(frame, ErrorFrame)]
    assert "tts unavailable" in errors[0].error
    assert isinstance(errors[0].exception, RuntimeError)
    assert "completed with no audio" in errors[1].error
    assert isinstance(voice.tts.calls[0].error, RuntimeError)
    assert voice.speaker.heard == b""
    voice.assert_complete()


async def test_a_failing_transcription_becomes_an_error_frame() -> None:
    voice = ScriptedVoice(stt=[stt_turn(error=RuntimeError("stt unavailable"))], auto_advance=False)
    agent, _, _, up = await converse(voice, [])

    errors = [frame for frame in up if isinstance(frame, ErrorFrame)]
    assert [str(frame.exception) for frame in errors] == ["stt unavailable"]
    assert agent.turns == []
    assert voice.stt.calls[0].closed_at is not None
    voice.assert_complete()


async def test_a_synthesis_the_script_does_not_expect_fails_assert_complete() -> None:
    voice = ScriptedVoice(stt=[stt_turn("hello", duration=0.5)], auto_advance=False)
    _, _, _, up = await converse(voice, ["Hi."])

    # Pipecat received it as an ErrorFrame; the double still reports the broken script.
    errors = [frame for frame in up if isinstance(frame, ErrorFrame)]
    assert isinstance(errors[0].exception, UnexpectedVoiceCallError)
    with pytest.raises(UnexpectedVoiceCallError) as caught:
        voice.assert_complete()
    assert (caught.value.service, caught.value.method) == ("tts", "synthesize")


@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        (pipecat_stt, "pipecat_stt expects a ScriptedSpeechToText, got str."),
        (pipecat_tts, "pipecat_tts expects a ScriptedTextToSpeech, got str."),
        (ScriptedSpeakerOutput, "ScriptedSpeakerOutput expects a VirtualSpeaker, got str."),
    ],
)
def test_the_adapters_refuse_what_is_not_a_core_double(factory: Any, expected: str) -> None:
    with pytest.raises(TypeError) as caught:
        factory("not a double")
    assert str(caught.value) == expected
