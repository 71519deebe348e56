"""Voice row: a scripted spoken conversation through openai-agents' real ``VoicePipeline``.

Ours: ``ScriptedVoice`` (speech-to-text turns with partial transcripts, text-to-speech with
time to first byte, a virtual clock and speaker) plugged in through
``openai_agents_stt_model``/``openai_agents_tts_model``. Baseline: the SDK's own scripted
models from ``agents.voice.testing`` (``ScriptedSTTModel`` with one session of the same final
transcripts, ``ScriptedTTSModel`` with PCM16 chunks of the same number and size), which is
what a user of the SDK would otherwise write. Both sides run the same ``VoicePipeline`` over
the same workflow (the SDK's ``ScriptedVoiceWorkflow``, so the agent costs nothing and the
row sees the speech doubles and the pipeline only), feed it the same microphone audio and
time what a test does: build the doubles, run the conversation, read every output event,
check what was said and spoken, and check that every scripted step was used.

The conversation has ``turns`` user turns of 2 s of speech with two partial transcripts and a
0.3 s transcription latency, each answered by 4 s of speech in 4 chunks after a 0.2 s time to
first byte; the next turn starts 4.5 s after the previous final transcript, so five turns
span about 34 s of virtual time. The baseline has no clock: its transcripts come as soon as
the pipeline reads them, and it cannot express partials or an interruption at an instant.

What is compared like for like: the first row runs the same turns with no barge-in on either
side; ours also emits the partials and plays every answer on the virtual speaker (the
pipeline sees the same final transcripts and the same audio on both sides). The second row
is ours with a barge-in (the third turn starts 2 s after the second final transcript, while
its answer plays, and stops the speaker) against the same baseline run, which cannot do it:
it is the price of testing an interruption, not a double against a double.
"""

from __future__ import annotations

from typing import Any

from _harness import Row, compare, cpu_seconds_async

GROUP = "voice"
SAMPLE_RATE = 24_000  # the core's default, and the rate VoicePipeline expects
ANSWER_SECONDS = 4.0
ANSWER_CHUNKS = 4


def _question(turn: int) -> str:
    return f"question {turn} about the museums of Paris"


def _answer(turn: int) -> str:
    return f"answer {turn}: the Louvre, the Orsay and about a hundred other museums"


def _microphone(seconds: float) -> Any:
    import numpy as np
    from agents.voice import StreamedAudioInput

    from agents_testing import pcm16_silence

    async def fill() -> Any:
        audio = StreamedAudioInput()
        await audio.add_audio(np.frombuffer(pcm16_silence(seconds), dtype=np.int16))
        await audio.add_audio(None)  # the microphone closes
        return audio

    return fill


def conversation_rows(repeats: int, turns: int) -> list[Row]:
    from agents.voice import VoicePipeline, VoicePipelineConfig
    from agents.voice.testing import (
        ScriptedSTTModel,
        ScriptedTTSModel,
        ScriptedVoiceWorkflow,
        TTSResult,
    )

    from agents_testing import ScriptedVoice, TranscriptEvent, stt_turn, tts_speech
    from agents_testing.adapters.openai_agents import (
        openai_agents_stt_model,
        openai_agents_tts_model,
    )

    questions = [_question(turn) for turn in range(turns)]
    answers = [_answer(turn) for turn in range(turns)]
    chunk_bytes = int(SAMPLE_RATE * 2 * ANSWER_SECONDS / ANSWER_CHUNKS)
    config = VoicePipelineConfig(tracing_disabled=True)
    microphone = _microphone(2.0 * turns)

    def ours(*, barge_in: bool) -> float:
        async def go() -> None:
            voice = ScriptedVoice(
                stt=[
                    stt_turn(
                        question,
                        partials=[question[:8], question[:20]],
                        # After the previous answer; with barge-in, turn 2 talks over it.
                        start=0.0 if turn == 0 else 2.0 if barge_in and turn == 2 else 4.5,
                        duration=2.0,
                        latency=0.3,
                    )
                    for turn, question in enumerate(questions)
                ],
                tts=[
                    tts_speech(
                        answer, duration=ANSWER_SECONDS, chunks=ANSWER_CHUNKS, first_byte=0.2
                    )
                    for answer in answers
                ],
            )

            def on_event(event: TranscriptEvent) -> None:
                # The app under test: the user's voice stops the agent's.
                if event.type == "speech_started" and voice.speaker.playing:
                    voice.speaker.interrupt()

            pipeline = VoicePipeline(
                workflow=ScriptedVoiceWorkflow([[answer] for answer in answers]),
                stt_model=openai_agents_stt_model(voice.stt, on_event=on_event),
                tts_model=openai_agents_tts_model(voice.tts),
                config=config,
            )
            result = await pipeline.run(await microphone())
            async for event in result.stream():
                if event.type == "voice_stream_event_audio":
                    voice.speaker.play(event.data.tobytes())
            await voice.speaker.wait_done()
            assert voice.tts.texts == tuple(answers)
            heard = voice.heard()
            assert [answer.complete for answer in heard] == [
                not (barge_in and turn == 1) for turn in range(turns)
            ]
            assert len(voice.speaker.interruptions) == int(barge_in)
            voice.assert_complete()

        return cpu_seconds_async(go)

    def baseline() -> float:
        async def go() -> None:
            stt = ScriptedSTTModel(sessions=[questions])
            tts = ScriptedTTSModel(
                [TTSResult(chunks=[bytes(chunk_bytes)] * ANSWER_CHUNKS) for _ in answers]
            )
            workflow = ScriptedVoiceWorkflow([[answer] for answer in answers])
            pipeline = VoicePipeline(workflow=workflow, stt_model=stt, tts_model=tts, config=config)
            result = await pipeline.run(await microphone())
            played: list[bytes] = []
            async for event in result.stream():
                if event.type == "voice_stream_event_audio":
                    played.append(event.data.tobytes())
            assert [call.text for call in tts.calls] == answers
            assert workflow.transcriptions == tuple(questions)
            assert sum(map(len, played)) == turns * ANSWER_CHUNKS * chunk_bytes
            stt.assert_complete()
            tts.assert_complete()
            workflow.assert_complete()

        return cpu_seconds_async(go)

    base_name = "agents.voice.testing ScriptedSTTModel + ScriptedTTSModel, same turns"
    return [
        compare(
            GROUP,
            f"VoicePipeline, {turns}-turn spoken conversation with partials (per conversation)",
            base_name,
            lambda: ours(barge_in=False),
            baseline,
            repeats=repeats,
            goal="<= 1.0",
        ),
        compare(
            GROUP,
            f"VoicePipeline, the same {turns} turns with a barge-in (per conversation)",
            base_name + " (no barge-in: it has no clock)",
            lambda: ours(barge_in=True),
            baseline,
            repeats=repeats,
        ),
    ]


def rows(quick: bool) -> list[Row]:
    # A whole pipeline run varies between repeats: as many as the Runner rows.
    return conversation_rows(1 if quick else 11, 3 if quick else 5)
