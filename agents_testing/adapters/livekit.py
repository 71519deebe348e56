"""Plug the voice doubles into LiveKit Agents (``livekit-agents`` >= 1.8).

- ``livekit_stt(stt)`` is a streaming ``livekit.agents.stt.STT`` over a core
  ``ScriptedSpeechToText``: each ``stream()`` opens one scripted transcription session, and
  each of its transcript events becomes a ``SpeechEvent`` at its virtual time.
- ``livekit_tts(tts)`` is a ``livekit.agents.tts.TTS`` over a core ``ScriptedTextToSpeech``:
  each ``synthesize(text)`` is one scripted synthesis whose chunks become the stream's PCM16
  audio.
- ``livekit_llm(model)`` is a ``livekit.agents.llm.LLM`` over a core ``ScriptedModel``: the
  chat context arrives as normalized Responses items, and scripted messages and function
  calls come back as the stream's text and tool calls, so ``AgentSession.run`` and its
  ``RunResult.expect`` assertions work on a scripted run.
- ``ScriptedAudioInput`` feeds the session a little PCM16 silence (the scripted speech-to-text
  decides what was said), and ``ScriptedAudioOutput`` plays the agent's audio on a core
  ``VirtualSpeaker``: an interruption records exactly what the user heard.
- ``livekit_session(voice, model)`` builds an ``AgentSession`` with all of the above and the
  settings a scripted run needs: no VAD model, turns ended by the speech-to-text service,
  no endpointing or close delays.

Speech events map one to one: ``speech_started`` -> ``START_OF_SPEECH``, ``partial`` ->
``INTERIM_TRANSCRIPT``, ``final`` -> ``FINAL_TRANSCRIPT``, ``speech_ended`` ->
``END_OF_SPEECH``. A scripted error is raised from the stream as it is: script a LiveKit
``APIConnectionError`` to have LiveKit retry (each retry is a new recorded call) and any other
exception to fail the stream at once. Keep asserting on the core objects (``calls``,
``assert_complete()``); importing this module without ``livekit-agents`` raises
``ImportError`` naming the extra to install.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Mapping
from typing import Any, cast

try:
    from livekit import rtc
    from livekit.agents import LanguageCode
    from livekit.agents import llm as lk_llm
    from livekit.agents import stt as lk_stt
    from livekit.agents import tts as lk_tts
    from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, APIConnectOptions
    from livekit.agents.utils.audio import AudioBuffer
    from livekit.agents.voice import AgentSession
    from livekit.agents.voice.agent_session import SessionConnectOptions
    from livekit.agents.voice.io import AudioInput, AudioOutput, AudioOutputCapabilities
except ImportError as _missing:  # the import tests hide the framework to reach this
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.livekit",
        requirement="livekit-agents>=1.8",
        extra="livekit",
    ) from _missing

from ..items import (
    ModelRequest,
    _done_response,  # pyright: ignore[reportPrivateUsage]
)
from ..model import ScriptedModel, ScriptedModelStream
from ..voice import (
    ScriptedSpeechToText,
    ScriptedTextToSpeech,
    ScriptedVoice,
    Synthesis,
    TranscriptEvent,
    TranscriptionSession,
    VirtualSpeaker,
    pcm16_silence,
)
from ._loop_clock import loop_on_clock as loop_on_clock

__all__ = [
    "ScriptedAudioInput",
    "ScriptedAudioOutput",
    "ScriptedLiveKitLLM",
    "ScriptedLiveKitSTT",
    "ScriptedLiveKitTTS",
    "livekit_llm",
    "livekit_session",
    "livekit_stt",
    "livekit_tts",
    "loop_on_clock",
]

_EVENT_TYPES: dict[str, lk_stt.SpeechEventType] = {
    "speech_started": lk_stt.SpeechEventType.START_OF_SPEECH,
    "partial": lk_stt.SpeechEventType.INTERIM_TRANSCRIPT,
    "final": lk_stt.SpeechEventType.FINAL_TRANSCRIPT,
    "speech_ended": lk_stt.SpeechEventType.END_OF_SPEECH,
}


def _check(value: object, kind: type, function: str, expected: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{function} expects {expected}, got {type(value).__name__}.")


# -- speech-to-text ----------------------------------------------------------------------------


def livekit_stt(stt: ScriptedSpeechToText) -> ScriptedLiveKitSTT:
    """Return a LiveKit speech-to-text service that transcribes from ``stt``'s script."""
    _check(stt, ScriptedSpeechToText, "livekit_stt", "a ScriptedSpeechToText")
    return ScriptedLiveKitSTT(stt)


class ScriptedLiveKitSTT(lk_stt.STT[Any]):
    """A streaming LiveKit ``STT`` whose transcripts come from a ``ScriptedSpeechToText``."""

    def __init__(self, stt: ScriptedSpeechToText) -> None:
        super().__init__(capabilities=lk_stt.STTCapabilities(streaming=True, interim_results=True))
        self.scripted_stt: ScriptedSpeechToText = stt

    @property
    def model(self) -> str:
        """Name the service in LiveKit's logs and metrics."""
        return "scripted"

    @property
    def provider(self) -> str:
        """Name the provider in LiveKit's logs and metrics."""
        return "agents-testing"

    async def _recognize_impl(
        self,
        buffer: AudioBuffer,
        *,
        language: Any = NOT_GIVEN,
        conn_options: APIConnectOptions,
    ) -> lk_stt.SpeechEvent:
        frames = buffer if isinstance(buffer, list) else [buffer]
        audio = b"".join(bytes(frame.data) for frame in frames)
        text = await self.scripted_stt.transcribe(audio, _options(language=language))
        return lk_stt.SpeechEvent(
            type=lk_stt.SpeechEventType.FINAL_TRANSCRIPT,
            alternatives=[lk_stt.SpeechData(language=_language(language), text=text)],
        )

    def stream(
        self,
        *,
        language: Any = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> lk_stt.RecognizeStream:
        """Open one scripted transcription session (recorded at once) behind a LiveKit stream."""
        options = _options(language=language)
        session = self.scripted_stt.stream(options)
        return _RecognizeStream(self, session, options, language, conn_options)


class _RecognizeStream(lk_stt.RecognizeStream):
    def __init__(
        self,
        stt: ScriptedLiveKitSTT,
        session: TranscriptionSession,
        options: dict[str, Any],
        language: Any,
        conn_options: APIConnectOptions,
    ) -> None:
        # Set before the base class starts _run in a task.
        self._scripted = stt.scripted_stt
        self._session: TranscriptionSession | None = session
        self._options = options
        self._language = _language(language)
        super().__init__(stt=stt, conn_options=conn_options)  # pyright: ignore[reportUnknownMemberType]

    async def _run(self) -> None:
        # LiveKit runs _run again after a retryable error: each attempt is a new recorded call.
        session = self._session or self._scripted.stream(self._options)
        self._session = None
        feeding = asyncio.ensure_future(self._feed(session))
        try:
            async for event in session:
                self._event_ch.send_nowait(self._speech_event(event))
        finally:
            feeding.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await feeding
            session.close()

    async def _feed(self, session: TranscriptionSession) -> None:
        async for data in self._input_ch:
            if isinstance(data, rtc.AudioFrame):
                session.push_audio(bytes(data.data))
        session.end_input()

    def _speech_event(self, event: TranscriptEvent) -> lk_stt.SpeechEvent:
        kind = _EVENT_TYPES[event.type]
        if event.type in ("partial", "final"):
            alternatives = [lk_stt.SpeechData(language=self._language, text=event.text)]
        else:
            alternatives = []
        return lk_stt.SpeechEvent(type=kind, alternatives=alternatives)


def _options(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not NOT_GIVEN and value}


def _language(language: Any) -> Any:
    return LanguageCode(language if isinstance(language, str) else "")


# -- text-to-speech ----------------------------------------------------------------------------


def livekit_tts(tts: ScriptedTextToSpeech) -> ScriptedLiveKitTTS:
    """Return a LiveKit text-to-speech service that synthesizes from ``tts``'s script."""
    _check(tts, ScriptedTextToSpeech, "livekit_tts", "a ScriptedTextToSpeech")
    return ScriptedLiveKitTTS(tts)


class ScriptedLiveKitTTS(lk_tts.TTS[Any]):
    """A LiveKit ``TTS`` whose audio comes from a ``ScriptedTextToSpeech``, one text a call.

    It does not stream text in: LiveKit splits the agent's answer into sentences and
    synthesizes each, so the core records one synthesis per sentence.
    """

    def __init__(self, tts: ScriptedTextToSpeech) -> None:
        super().__init__(
            capabilities=lk_tts.TTSCapabilities(streaming=False),
            sample_rate=tts.sample_rate,
            num_channels=tts.channels,
        )
        self.scripted_tts: ScriptedTextToSpeech = tts

    @property
    def model(self) -> str:
        """Name the service in LiveKit's logs and metrics."""
        return "scripted"

    @property
    def provider(self) -> str:
        """Name the provider in LiveKit's logs and metrics."""
        return "agents-testing"

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> lk_tts.ChunkedStream:
        """Start one scripted synthesis of ``text`` (recorded and checked at once)."""
        synthesis = self.scripted_tts.synthesize(text)
        return _ChunkedStream(self, synthesis, text, conn_options)


class _ChunkedStream(lk_tts.ChunkedStream):
    def __init__(
        self,
        tts: ScriptedLiveKitTTS,
        synthesis: Synthesis,
        text: str,
        conn_options: APIConnectOptions,
    ) -> None:
        # Set before the base class starts _run in a task.
        self._scripted = tts.scripted_tts
        self._synthesis: Synthesis | None = synthesis
        super().__init__(tts=tts, input_text=text, conn_options=conn_options)  # pyright: ignore[reportUnknownMemberType]

    async def _run(self, output_emitter: lk_tts.AudioEmitter) -> None:
        # LiveKit runs _run again after a retryable error: each attempt is a new recorded call.
        synthesis = self._synthesis or self._scripted.synthesize(self.input_text)
        self._synthesis = None
        output_emitter.initialize(
            request_id=f"scripted-{synthesis.index}",
            sample_rate=self._scripted.sample_rate,
            num_channels=self._scripted.channels,
            mime_type="audio/pcm",
        )
        async for chunk in synthesis:
            output_emitter.push(chunk.data)
        output_emitter.flush()


# -- the language model ------------------------------------------------------------------------


def livekit_llm(model: ScriptedModel) -> ScriptedLiveKitLLM:
    """Return a LiveKit LLM that records into and answers from ``model``."""
    _check(model, ScriptedModel, "livekit_llm", "a ScriptedModel")
    return ScriptedLiveKitLLM(model)


class ScriptedLiveKitLLM(lk_llm.LLM[Any]):
    """A LiveKit ``LLM`` answering from a ``ScriptedModel``.

    Requests: LiveKit's own Responses-format conversion of the chat context
    (``to_provider_format("openai.responses")``); leading system or developer messages become
    ``system_instructions``, the rest is ``input`` (messages get ``"type": "message"``), and
    ``tools`` holds the Responses-format function schemas. The call is recorded when LiveKit
    calls ``chat()``. Responses are streamed: each text delta becomes a content delta and each
    ``function_call`` item of the finished response a LiveKit tool call with its exact
    argument string.
    """

    def __init__(self, model: ScriptedModel) -> None:
        super().__init__()
        self.scripted_model: ScriptedModel = model

    @property
    def model(self) -> str:
        """Name the model in LiveKit's logs and metrics."""
        return "scripted"

    @property
    def provider(self) -> str:
        """Name the provider in LiveKit's logs and metrics."""
        return "agents-testing"

    def chat(
        self,
        *,
        chat_ctx: lk_llm.ChatContext,
        tools: list[lk_llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: Any = NOT_GIVEN,
        tool_choice: Any = NOT_GIVEN,
        extra_kwargs: Any = NOT_GIVEN,
    ) -> lk_llm.LLMStream:
        """Stream the next scripted response to ``chat_ctx``."""
        settings: dict[str, Any] = {}
        if parallel_tool_calls is not NOT_GIVEN:
            settings["parallel_tool_calls"] = parallel_tool_calls
        if tool_choice is not NOT_GIVEN:
            settings["tool_choice"] = tool_choice
        request = _model_request(chat_ctx, tools or [], settings)
        events = self.scripted_model.stream_response(request)
        return _LLMStream(self, events, chat_ctx, tools or [], conn_options)


def _model_request(
    chat_ctx: lk_llm.ChatContext, tools: list[lk_llm.Tool], settings: dict[str, Any]
) -> ModelRequest:
    # LiveKit's own conversion to Responses items, typed there as list[dict] without arguments.
    converted: tuple[list[dict[str, Any]], Any] = chat_ctx.to_provider_format(  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        "openai.responses"
    )
    items = converted[0]
    system: list[str] = []
    while items and items[0].get("role") in ("system", "developer") and "type" not in items[0]:
        content = items.pop(0).get("content")
        system.append(content if isinstance(content, str) else json.dumps(content))
    inputs = [{"type": "message", **item} if "type" not in item else item for item in items]
    schemas = lk_llm.ToolContext(tools).parse_function_tools("openai.responses") if tools else []
    return ModelRequest(
        input=inputs,
        system_instructions="\n\n".join(system) if system else None,
        model_settings=settings,
        tools=schemas,
        extra={"chat_ctx": chat_ctx},
    )


class _LLMStream(lk_llm.LLMStream):
    def __init__(
        self,
        llm: ScriptedLiveKitLLM,
        events: ScriptedModelStream,
        chat_ctx: lk_llm.ChatContext,
        tools: list[lk_llm.Tool],
        conn_options: APIConnectOptions,
    ) -> None:
        # Set before the base class starts _run in a task.
        self._events = events
        self._chunk_id = f"scripted-{events.call_index}"
        super().__init__(llm, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)  # pyright: ignore[reportUnknownMemberType]

    async def _run(self) -> None:
        try:
            async for event in self._events:
                if event["type"] == "output_text_delta":
                    if event["delta"]:
                        self._send(lk_llm.ChoiceDelta(role="assistant", content=event["delta"]))
                elif event["type"] == "response_done":
                    response = _done_response(event["response"])
                    calls = [
                        lk_llm.FunctionToolCall(
                            name=str(item["name"]),
                            arguments=str(item.get("arguments", "{}")),
                            call_id=str(item.get("call_id", "")),
                        )
                        for item in _function_calls(response["output"])
                    ]
                    if calls:
                        self._send(lk_llm.ChoiceDelta(role="assistant", tool_calls=calls))
        finally:
            await self._events.aclose()

    def _send(self, delta: lk_llm.ChoiceDelta) -> None:
        self._event_ch.send_nowait(lk_llm.ChatChunk(id=self._chunk_id, delta=delta))


def _function_calls(output: object) -> list[Mapping[str, Any]]:
    items = cast("list[object]", output)
    return [
        cast("Mapping[str, Any]", item)
        for item in items
        if isinstance(item, Mapping)
        and cast("Mapping[str, Any]", item).get("type") == "function_call"
    ]


# -- audio in and out --------------------------------------------------------------------------


class ScriptedAudioInput(AudioInput):
    """The user's microphone: ``audio`` once (PCM16, in 10 ms frames), then nothing.

    The scripted speech-to-text decides what the user said and when, so the audio only has to
    reach the service: it is recorded in the core's ``SpeechToTextCall.audio``.
    """

    def __init__(self, audio: bytes | None = None, *, sample_rate: int = 24000) -> None:
        super().__init__(label="agents-testing")
        data = pcm16_silence(0.1, sample_rate=sample_rate) if audio is None else bytes(audio)
        step = 2 * sample_rate // 100
        self._frames = [
            rtc.AudioFrame(
                data=data[start : start + step],
                sample_rate=sample_rate,
                num_channels=1,
                samples_per_channel=len(data[start : start + step]) // 2,
            )
            for start in range(0, len(data) - len(data) % 2, step)
        ]
        self._done: asyncio.Future[None] | None = None

    async def __anext__(self) -> rtc.AudioFrame:
        if self._frames:
            return self._frames.pop(0)
        # Silence from here on: wait until the session detaches the input.
        self._done = asyncio.get_running_loop().create_future()
        await self._done
        raise StopAsyncIteration

    def on_detached(self) -> None:
        """End the input when the session lets it go."""
        super().on_detached()
        if self._done is not None and not self._done.done():
            self._done.set_result(None)


class ScriptedAudioOutput(AudioOutput):
    """The user's speaker: plays the agent's audio on a core ``VirtualSpeaker``.

    A segment (what LiveKit flushes as one utterance) finishes when the speaker has played it
    on the virtual clock; ``clear_buffer()`` (LiveKit's interruption) stops the speaker at the
    clock's current time and reports how many seconds of the segment were heard, which is
    where LiveKit cuts the agent's message in the chat history.
    """

    def __init__(self, speaker: VirtualSpeaker) -> None:
        _check(speaker, VirtualSpeaker, "ScriptedAudioOutput", "a VirtualSpeaker")
        super().__init__(
            label="agents-testing",
            capabilities=AudioOutputCapabilities(pause=False),
            sample_rate=speaker.sample_rate,
        )
        self.speaker: VirtualSpeaker = speaker
        self._segment = 0
        self._started: float | None = None  # virtual time the current segment starts playing
        self._timer: Any = None

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        """Queue ``frame`` on the speaker as part of the current segment."""
        await super().capture_frame(frame)
        end = self.speaker.play(bytes(frame.data), source=self._segment)
        if self._started is None:
            self._started = end - frame.duration
            self.on_playback_started(created_at=time.time())

    def flush(self) -> None:
        """Close the segment: it finishes when the speaker has played all of it."""
        super().flush()
        if self._started is None:
            return
        started, finishes = self._started, self.speaker.finishes_at
        self._timer = self.speaker.clock.call_at(
            finishes, lambda: self._finish(finishes - started, interrupted=False)
        )

    def clear_buffer(self) -> None:
        """Stop playback now: the rest of the segment is never heard."""
        if self._started is None:
            return
        if self._timer is not None:
            self._timer.cancel()
        started = self._started
        self.speaker.interrupt()
        self._finish(max(0.0, self.speaker.clock.now - started), interrupted=True)

    def _finish(self, position: float, *, interrupted: bool) -> None:
        self._started = None
        self._timer = None
        self._segment += 1
        self.on_playback_finished(playback_position=position, interrupted=interrupted)


# -- the whole session -------------------------------------------------------------------------


_NO_RETRY_WAIT = APIConnectOptions(retry_interval=0.0)


def livekit_session(
    voice: ScriptedVoice, model: ScriptedModel | None = None, **options: Any
) -> AgentSession[Any]:
    """Return an ``AgentSession`` wired to ``voice`` (and ``model``) for a scripted run.

    The session hears the user through ``voice.stt``, speaks through ``voice.tts`` and
    ``voice.speaker``, and answers from ``model`` (when given). It runs without a VAD model
    (nothing to download): the speech-to-text service's ``speech_started`` / ``speech_ended``
    events start and end the user's turn, and a partial transcript interrupts the agent.
    Endpointing, retry and closing delays are zero and preemptive generation is off, so each
    user turn is one model call and the session waits on wall-clock time as little as LiveKit
    allows (its first retry still waits 0.1 s).
    ``options`` are passed to ``AgentSession`` and override these settings.
    """
    _check(voice, ScriptedVoice, "livekit_session", "a ScriptedVoice")
    if model is not None:
        _check(model, ScriptedModel, "livekit_session", "a ScriptedModel or None")
    settings: dict[str, Any] = {
        "stt": livekit_stt(voice.stt),
        "tts": livekit_tts(voice.tts),
        "vad": None,
        "turn_handling": {
            "turn_detection": "stt",
            "endpointing": {"min_delay": 0.0, "max_delay": 0.0},
            "interruption": {"min_duration": 0.0, "resume_false_interruption": False},
            # A preemptive answer to a final transcript is a second model call the script
            # would have to allow for, depending on timing: off, so each turn is one call.
            "preemptive_generation": {"enabled": False},
        },
        "aec_warmup_duration": None,
        "session_close_transcript_timeout": 0.0,
        # LiveKit waits wall-clock time between retries: none, so a retried failure is quick.
        "conn_options": SessionConnectOptions(
            stt_conn_options=_NO_RETRY_WAIT,
            llm_conn_options=_NO_RETRY_WAIT,
            tts_conn_options=_NO_RETRY_WAIT,
        ),
    }
    if model is not None:
        settings["llm"] = livekit_llm(model)
    settings.update(options)
    session: AgentSession[Any] = AgentSession(**settings)
    session.input.audio = ScriptedAudioInput(sample_rate=voice.tts.sample_rate)
    session.output.audio = ScriptedAudioOutput(voice.speaker)
    return session
