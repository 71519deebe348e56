"""The voice doubles in a real LiveKit ``AgentSession``: scripted STT, TTS and LLM, no VAD model.

Each test runs a conversation on the virtual clock (``auto_advance``): the test sleeps on the
clock to a point of the conversation and asserts on the core records and LiveKit's own history.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("livekit.agents")

from livekit.agents import Agent, APIConnectionError, function_tool
from livekit.agents.voice.events import ErrorEvent
from livekit.agents.voice.run_result import RunResult

from agents_testing import ScriptedModel, assistant_message, function_call
from agents_testing.adapters.livekit import (
    ScriptedAudioOutput,
    livekit_llm,
    livekit_session,
    livekit_stt,
    livekit_tts,
    loop_on_clock,
)
from agents_testing.errors import UnexpectedVoiceCallError
from agents_testing.voice import ScriptedVoice, VirtualSpeaker, stt_turn, tts_speech

STORY = "Once upon a time there was a fox."


class WeatherAgent(Agent):
    def __init__(self) -> None:
        super().__init__(instructions="Answer in one short sentence.")

    @function_tool
    async def get_weather(self, city: str) -> str:
        """Return the weather in a city."""
        return f"sunny in {city}"


def messages(session: Any) -> list[tuple[str, str, bool]]:
    return [
        (item.role, item.text_content or "", item.interrupted)
        for item in session.history.items
        if item.type == "message"
    ]


def played_speech(voice: ScriptedVoice) -> bytes:
    """What the user heard, less the silence LiveKit pads its last audio frame with."""
    heard = voice.speaker.heard
    speech = heard.rstrip(b"\x00")
    speech += b"\x00" * (len(speech) % 2)  # the high byte of the last sample
    return speech


async def test_a_spoken_turn_is_answered_with_the_scripted_speech() -> None:
    voice = ScriptedVoice(
        stt=[stt_turn("what's the weather in Paris", duration=1.0, latency=0.25)],
        tts=[tts_speech("It is sunny in Paris.", duration=2.0, chunks=4)],
        auto_advance=False,
    )
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Paris"}, call_id="call_1")],
            [assistant_message("It is sunny in Paris.")],
        ]
    )
    async with loop_on_clock(voice.clock), livekit_session(voice, model) as session:
        await session.start(WeatherAgent())
        await voice.clock.sleep_until(10.0)

        assert messages(session) == [
            ("user", "what's the weather in Paris", False),
            ("assistant", "It is sunny in Paris.", False),
        ]
    assert model.calls[0].request.input == [
        {"type": "message", "role": "user", "content": "what's the weather in Paris"}
    ]
    assert model.calls[0].request.system_instructions == "Answer in one short sentence."
    assert [tool["name"] for tool in model.calls[0].request.tools] == ["get_weather"]
    assert model.calls[1].request.input[-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "sunny in Paris",
    }
    synthesis = voice.tts.calls[0]
    # The final transcript arrives at 1.25 s; the model and the tool take no virtual time.
    assert (synthesis.text, synthesis.started_at, synthesis.cancelled_at) == (
        "It is sunny in Paris.",
        1.25,
        None,
    )
    assert played_speech(voice) == synthesis.audio
    assert voice.speaker.played[0].started_at == 1.25
    assert voice.stt.calls[0].audio  # the session's microphone reached the service
    voice.assert_complete()
    model.assert_complete()


async def test_a_partial_transcript_does_not_start_the_turn() -> None:
    voice = ScriptedVoice(
        stt=[stt_turn("book a table for two", partials=["book a"], duration=1.0, latency=1.0)],
        tts=[tts_speech("Done.", duration=0.5)],
        auto_advance=False,
    )
    model = ScriptedModel([[assistant_message("Done.")]])
    async with loop_on_clock(voice.clock), livekit_session(voice, model) as session:
        await session.start(Agent(instructions="Book tables."))
        # The partial came at 0.5 s and the speech ended at 1.0 s; the final comes at 2.0 s.
        await voice.clock.sleep_until(1.9)
        assert model.calls == ()
        assert voice.tts.calls == ()

        await voice.clock.sleep_until(5.0)
    assert len(model.calls) == 1
    assert model.calls[0].request.input == [
        {"type": "message", "role": "user", "content": "book a table for two"}
    ]
    assert voice.tts.calls[0].started_at == 2.0
    voice.assert_complete()


async def test_barge_in_stops_the_agent_where_the_user_spoke() -> None:
    voice = ScriptedVoice(
        stt=[
            stt_turn("tell me a story", duration=1.0),
            # Begins when the first final arrives (1.0 s): talks from 2.0 s, "stop" at 2.25 s.
            stt_turn("stop", partials=[("stop", 1.25)], start=1.0, duration=0.5),
        ],
        tts=[
            tts_speech(STORY, duration=5.0, chunks=10, interval=0.5),
            tts_speech("Okay.", duration=0.5),
        ],
        auto_advance=False,
    )
    model = ScriptedModel([[assistant_message(STORY)], [assistant_message("Okay.")]])
    async with loop_on_clock(voice.clock), livekit_session(voice, model) as session:
        await session.start(Agent(instructions="Tell stories."))
        await voice.clock.sleep_until(10.0)

        assert messages(session) == [
            ("user", "tell me a story", False),
            ("assistant", STORY, True),
            ("user", "stop", False),
            ("assistant", "Okay.", False),
        ]
    assert voice.speaker.interruptions == (2.25,)
    story = [piece for piece in voice.speaker.played if piece.source == 0]
    heard = sum(piece.duration for piece in story)
    assert heard == pytest.approx(1.25)  # from 1.0 s, when the answer started, to 2.25 s
    assert story[0].started_at == 1.0
    # The synthesis was still streaming: LiveKit stopped reading it at the interruption.
    assert voice.tts.calls[0].cancelled_at == 2.25
    assert voice.tts.calls[0].duration == pytest.approx(1.5)  # chunks 1-3 of 10
    # The answer to "stop" plays in full once its final transcript arrived (2.5 s).
    answer = [piece for piece in voice.speaker.played if piece.source == 1]
    assert (answer[0].started_at, any(piece.interrupted for piece in answer)) == (2.5, False)
    voice.assert_complete()
    model.assert_complete()


async def test_a_failing_synthesis_is_retried_by_livekit() -> None:
    voice = ScriptedVoice(
        stt=[stt_turn("hello", duration=0.5)],
        tts=[
            tts_speech("Hi there.", error=APIConnectionError("tts unavailable")),
            tts_speech("Hi there.", duration=1.0),
        ],
        auto_advance=False,
    )
    model = ScriptedModel([[assistant_message("Hi there.")]])
    async with loop_on_clock(voice.clock), livekit_session(voice, model) as session:
        await session.start(Agent(instructions="Greet."))
        await voice.clock.sleep_until(5.0)

        assert messages(session)[-1] == ("assistant", "Hi there.", False)
    failed, retried = voice.tts.calls
    assert isinstance(failed.error, APIConnectionError)
    assert failed.chunks == ()
    assert (retried.text, retried.error) == ("Hi there.", None)
    # Every sample the user heard is from the retried synthesis (synthesis #2 -> value 2).
    assert played_speech(voice) == retried.audio
    voice.assert_complete()


async def test_a_failed_transcription_stream_is_reopened_and_the_next_turn_answered() -> None:
    failure = APIConnectionError("stt unavailable", retryable=False)
    voice = ScriptedVoice(
        stt=[stt_turn(error=failure, duration=0.5), stt_turn("hello", duration=0.5)],
        tts=[tts_speech("Hi.", duration=0.5)],
        auto_advance=False,
    )
    model = ScriptedModel([[assistant_message("Hi.")]])
    errors: list[ErrorEvent] = []
    async with loop_on_clock(voice.clock), livekit_session(voice, model) as session:
        session.on("error", errors.append)
        await session.start(Agent(instructions="Listen."))
        await voice.clock.sleep_until(3.0)

        assert messages(session) == [("user", "hello", False), ("assistant", "Hi.", False)]
    assert [(event.error.error, event.error.recoverable) for event in errors] == [(failure, False)]
    failed, reopened = voice.stt.calls
    assert (failed.error, failed.closed_at, failed.transcripts) == (failure, 0.5, ())
    # LiveKit waits half a second before it opens a new stream.
    assert (reopened.opened_at, reopened.transcripts) == (1.0, ("hello",))
    assert model.calls[0].request.input == [{"type": "message", "role": "user", "content": "hello"}]
    voice.assert_complete()


async def test_a_synthesis_the_script_does_not_expect_fails_assert_complete() -> None:
    voice = ScriptedVoice(stt=[stt_turn("hello", duration=0.5)], auto_advance=False)
    model = ScriptedModel([[assistant_message("Hi.")]])
    async with loop_on_clock(voice.clock), livekit_session(voice, model) as session:
        await session.start(Agent(instructions="Greet."))
        await voice.clock.sleep_until(3.0)

    # LiveKit logged and swallowed the error; the double still reports it.
    with pytest.raises(UnexpectedVoiceCallError) as caught:
        voice.assert_complete()
    assert (caught.value.service, caught.value.call_index, caught.value.method) == (
        "tts",
        0,
        "synthesize",
    )
    assert voice.tts.texts == ("Hi.",)


async def test_run_result_expect_works_on_a_scripted_run() -> None:
    voice = ScriptedVoice(
        tts=[tts_speech("It is sunny in Paris.", duration=1.0)], auto_advance=False
    )
    model = ScriptedModel(
        [
            [function_call("get_weather", {"city": "Paris"}, call_id="call_1")],
            [assistant_message("It is sunny in Paris.")],
        ]
    )
    # A typed run: no speech-to-text (the agent still speaks its answer).
    async with loop_on_clock(voice.clock), livekit_session(voice, model, stt=None) as session:
        await session.start(WeatherAgent())
        result: RunResult[None] = await session.run(user_input="What's the weather in Paris?")

        result.expect.next_event().is_function_call(name="get_weather", arguments={"city": "Paris"})
        result.expect.next_event().is_function_call_output(output="sunny in Paris")
        result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
        await voice.clock.sleep_until(5.0)
    assert model.calls[0].request.input == [
        {"type": "message", "role": "user", "content": "What's the weather in Paris?"}
    ]
    assert voice.tts.texts == ("It is sunny in Paris.",)
    assert played_speech(voice) == voice.tts.calls[0].audio
    voice.assert_complete()
    model.assert_complete()


@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        (livekit_stt, "livekit_stt expects a ScriptedSpeechToText, got str."),
        (livekit_tts, "livekit_tts expects a ScriptedTextToSpeech, got str."),
        (livekit_llm, "livekit_llm expects a ScriptedModel, got str."),
        (livekit_session, "livekit_session expects a ScriptedVoice, got str."),
        (ScriptedAudioOutput, "ScriptedAudioOutput expects a VirtualSpeaker, got str."),
    ],
)
def test_the_adapters_refuse_what_is_not_a_core_double(factory: Any, expected: str) -> None:
    with pytest.raises(TypeError) as caught:
        factory("not a double")
    assert str(caught.value) == expected


def test_the_audio_output_plays_at_the_speakers_rate() -> None:
    voice = ScriptedVoice(sample_rate=16000)
    output = ScriptedAudioOutput(VirtualSpeaker(voice.clock, sample_rate=16000))
    assert output.sample_rate == 16000
    assert output.can_pause is False
