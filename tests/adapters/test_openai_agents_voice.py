"""The voice double driving the real openai-agents VoicePipeline (STTModel, TTSModel)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agents")
pytest.importorskip("numpy")  # openai-agents' voice extra: the integration group has it

import numpy as np  # type: ignore[import-not-found, unused-ignore]
from agents import Agent, function_tool
from agents.voice import (
    AudioInput,
    SingleAgentVoiceWorkflow,
    StreamedAudioInput,
    STTModelSettings,
    TTSModelSettings,
    VoicePipeline,
    VoicePipelineConfig,
)

from agents_testing import (
    ScriptedModel,
    ScriptedVoice,
    TranscriptEvent,
    UnexpectedVoiceCallError,
    VoiceCallMatcherError,
    assistant_message,
    function_call,
    model_response,
    pcm16_silence,
    stt_turn,
    tts_speech,
)
from agents_testing.adapters.openai_agents import (
    openai_agents_model,
    openai_agents_stt_model,
    openai_agents_tts_model,
)


def pipeline_for(
    voice: ScriptedVoice,
    model: ScriptedModel,
    *,
    tools: list[Any] | None = None,
    on_event: Any = None,
    config: VoicePipelineConfig | None = None,
) -> VoicePipeline:
    agent = Agent(name="assistant", model=openai_agents_model(model), tools=tools or [])
    return VoicePipeline(
        workflow=SingleAgentVoiceWorkflow(agent),
        stt_model=openai_agents_stt_model(voice.stt, on_event=on_event),
        tts_model=openai_agents_tts_model(voice.tts),
        config=config or VoicePipelineConfig(tracing_disabled=True),
    )


async def spoken_input(*seconds: float) -> StreamedAudioInput:
    audio = StreamedAudioInput()  # type: ignore[no-untyped-call]  # the SDK leaves it untyped
    for length in seconds:
        await audio.add_audio(np.frombuffer(pcm16_silence(length), dtype=np.int16))
    await audio.add_audio(None)
    return audio


async def play(result: Any, voice: ScriptedVoice) -> list[str]:
    """What an app does with the pipeline's output: play the audio, note the lifecycle."""
    lifecycle: list[str] = []
    async for event in result.stream():
        if event.type == "voice_stream_event_audio":
            voice.speaker.play(event.data.tobytes())
        elif event.type == "voice_stream_event_lifecycle":
            lifecycle.append(event.event)
    return lifecycle


def user_texts(model: ScriptedModel, call: int) -> list[str]:
    return [
        item["content"]
        for item in model.calls[call].request.input
        if isinstance(item, dict) and item.get("role") == "user"
    ]


async def test_a_tool_call_spoken_by_the_user_reaches_the_tool_and_the_answer_is_spoken() -> None:
    cities: list[str] = []

    @function_tool
    def weather(city: str) -> str:
        cities.append(city)
        return f"sunny in {city}"

    model = ScriptedModel(
        [
            model_response([function_call("weather", {"city": "Paris"}, call_id="c1")]),
            model_response([assistant_message("It is sunny in Paris.")]),
        ]
    )
    voice = ScriptedVoice(
        stt=[stt_turn("What's the weather in Paris?", duration=1.5, latency=0.3)],
        tts=[tts_speech("It is sunny in Paris.", duration=2.0, chunks=4, first_byte=0.25)],
    )
    result = await pipeline_for(voice, model, tools=[weather]).run(await spoken_input(1.5))

    assert await play(result, voice) == ["turn_started", "turn_ended", "session_ended"]
    await voice.speaker.wait_done()

    assert cities == ["Paris"]
    assert user_texts(model, 0) == ["What's the weather in Paris?"]
    assert voice.tts.texts == ("It is sunny in Paris.",)
    assert voice.tts.calls[0].started_at == 1.8  # the final transcript's time
    assert voice.stt.calls[0].audio == pcm16_silence(1.5)
    (heard,) = voice.heard()
    assert (heard.heard, heard.complete) == (2.0, True)
    assert voice.clock.now == 4.05  # 1.8 + 0.25 to the first byte + 2 s of speech
    voice.assert_complete()
    model.assert_complete()


async def test_a_partial_transcript_does_not_start_a_turn() -> None:
    seen: list[TranscriptEvent] = []
    model = ScriptedModel([model_response([assistant_message("Your order is kept.")])])
    voice = ScriptedVoice(
        stt=[
            stt_turn(
                "Cancel my order. No wait, keep it.",
                partials=["Cancel my order.", "Cancel my order. No wait"],
                duration=3.0,
            )
        ],
        tts=["Your order is kept."],
    )
    pipeline = pipeline_for(voice, model, on_event=seen.append)
    result = await pipeline.run(await spoken_input(3.0))
    await play(result, voice)

    assert [event.type for event in seen] == [
        "speech_started",
        "partial",
        "partial",
        "speech_ended",
        "final",
    ]
    assert len(model.calls) == 1
    assert user_texts(model, 0) == ["Cancel my order. No wait, keep it."]
    assert voice.tts.calls[0].started_at == 3.0  # not at a partial's time
    voice.assert_complete()


async def test_barge_in_stops_playback_at_the_exact_instant_the_user_starts_talking() -> None:
    answer = "Paris has the Louvre, the Orsay and about a hundred other museums worth a visit"
    model = ScriptedModel(
        [
            model_response([assistant_message(answer)]),
            model_response([assistant_message("Sure.")]),
        ]
    )
    voice = ScriptedVoice(
        stt=[
            stt_turn("Tell me about Paris museums", duration=1.0),
            # The user talks over the answer: 2 s after the first final, at t=3.0.
            stt_turn("Okay, stop", start=2.0, duration=0.5),
        ],
        tts=[
            tts_speech(answer, duration=6.0, chunks=6, first_byte=0.2),
            tts_speech("Sure.", duration=0.5),
        ],
    )

    def on_event(event: TranscriptEvent) -> None:
        if event.type == "speech_started" and voice.speaker.playing:
            voice.speaker.interrupt()

    result = await pipeline_for(voice, model, on_event=on_event).run(await spoken_input(1.0))
    await play(result, voice)
    await voice.speaker.wait_done()

    assert voice.speaker.interruptions == (3.0,)
    first, second = voice.heard()
    # Playback started at the first byte (1.2 s) and was cut at 3.0 s.
    assert (first.heard, first.duration, first.complete) == (1.8, 6.0, False)
    assert (second.text, second.heard, second.complete) == ("Sure.", 0.5, True)
    assert user_texts(model, 1)[-1] == "Okay, stop"
    voice.assert_complete()


async def test_a_failing_speech_service_surfaces_and_a_retry_succeeds() -> None:
    model = ScriptedModel([model_response([assistant_message("Done.")])])
    voice = ScriptedVoice(
        stt=[
            stt_turn(partials=["Book"], error=ConnectionError("stt dropped"), duration=1.0),
            stt_turn("Book a table", duration=1.0),
        ],
        tts=["Done."],
    )
    attempts: list[str] = []
    for _attempt in range(2):
        result = await pipeline_for(voice, model).run(await spoken_input(1.0))
        try:
            await play(result, voice)
        except ConnectionError as error:
            attempts.append(f"failed: {error}")
            continue
        attempts.append("ok")
        break

    assert attempts == ["failed: stt dropped", "ok"]
    first, second = voice.stt.calls
    assert isinstance(first.error, ConnectionError)
    assert first.closed_at is not None  # the pipeline closed the failed session
    assert second.transcripts == ("Book a table",)
    voice.assert_complete()


async def test_a_tts_failure_mid_stream_ends_the_output_with_the_error() -> None:
    model = ScriptedModel([model_response([assistant_message("Hello.")])])
    voice = ScriptedVoice(
        stt=["Hi"],
        tts=[tts_speech("Hello.", chunks=3, error=TimeoutError("tts timeout"), error_after=1)],
    )
    result = await pipeline_for(voice, model).run(await spoken_input(1.0))
    with pytest.raises(TimeoutError, match="tts timeout"):
        await play(result, voice)
    assert len(voice.tts.calls[0].chunks) == 1
    voice.assert_complete()


async def test_a_one_shot_audio_input_is_transcribed_with_its_audio_and_settings() -> None:
    model = ScriptedModel([model_response([assistant_message("Bonjour.")])])
    voice = ScriptedVoice(stt=[stt_turn("Salut", latency=0.4)], tts=["Bonjour."])
    config = VoicePipelineConfig(
        tracing_disabled=True,
        stt_settings=STTModelSettings(language="fr"),
        tts_settings=TTSModelSettings(voice="ash", speed=1.5),
    )
    samples = np.array([0.5, -0.5, 1.0], dtype=np.float32)
    result = await pipeline_for(voice, model, config=config).run(
        AudioInput(buffer=samples, frame_rate=16000)
    )
    await play(result, voice)

    call = voice.stt.calls[0]
    assert call.method == "transcribe"
    assert call.audio == np.array([16383, -16383, 32767], dtype="<i2").tobytes()
    assert call.options["language"] == "fr"
    assert call.options["frame_rate"] == 16000
    assert call.options["trace_include_sensitive_audio_data"] is True
    tts_options = voice.tts.calls[0].options
    assert (tts_options["voice"], tts_options["speed"]) == ("ash", 1.5)
    assert voice.tts.calls[0].started_at == 1.4
    voice.assert_complete()


async def test_text_the_script_does_not_expect_fails_the_run_and_assert_complete() -> None:
    model = ScriptedModel([model_response([assistant_message("Something else.")])])
    voice = ScriptedVoice(stt=["Hi"], tts=["Hello."])
    result = await pipeline_for(voice, model).run(await spoken_input(1.0))
    with pytest.raises(VoiceCallMatcherError):
        await play(result, voice)
    with pytest.raises(VoiceCallMatcherError) as raised:
        voice.assert_complete()
    assert raised.value.call_summary == "'Something else.'"


async def test_a_second_session_the_script_does_not_expect_is_reported() -> None:
    model = ScriptedModel()
    voice = ScriptedVoice()
    result = await pipeline_for(voice, model).run(await spoken_input(0.5))
    with pytest.raises(UnexpectedVoiceCallError):
        await play(result, voice)
    with pytest.raises(UnexpectedVoiceCallError) as raised:
        voice.stt.assert_complete()
    assert (raised.value.service, raised.value.method) == ("stt", "stream")


def test_the_adapters_refuse_what_is_not_a_core_double() -> None:
    voice = ScriptedVoice()
    with pytest.raises(TypeError, match="stt"):
        openai_agents_stt_model(voice.tts)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tts"):
        openai_agents_tts_model(voice.stt)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="on_event"):
        openai_agents_stt_model(voice.stt, on_event=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model_name"):
        openai_agents_tts_model(voice.tts, model_name=None)  # type: ignore[arg-type]
    assert openai_agents_stt_model(voice.stt, model_name="stt-x").model_name == "stt-x"
    assert openai_agents_tts_model(voice.tts).model_name == "scripted-tts"
