"""Drive the real openai-agents ``VoicePipeline`` with the core voice doubles.

``openai_agents_stt_model(stt)`` is an ``agents.voice.STTModel`` over a core
``ScriptedSpeechToText``; ``openai_agents_tts_model(tts)`` a ``TTSModel`` over a core
``ScriptedTextToSpeech``. Pass them as ``VoicePipeline(stt_model=..., tts_model=...)``. The
adapter only translates:

- ``STTModel.transcribe(AudioInput)`` -> ``ScriptedSpeechToText.transcribe(pcm16)``;
- ``STTModel.create_session(StreamedAudioInput)`` -> ``ScriptedSpeechToText.stream()``: every
  buffer the app adds is pushed to the session as PCM16 (``None`` ends its input), and
  ``transcribe_turns()`` yields each final transcript. Partial transcripts and voice activity
  never reach the pipeline (openai-agents has no place for them); ``on_event`` receives every
  event, so an app that reacts to the user talking over the agent can be tested;
- ``TTSModel.run(text)`` -> ``ScriptedTextToSpeech.synthesize(text)``, each chunk's bytes.

Recorded ``options`` hold the SDK's settings fields by name (``settings.language`` is
``options["language"]``), plus ``trace_include_sensitive_data`` and
``trace_include_sensitive_audio_data`` for speech-to-text and the input's ``frame_rate``,
``sample_width`` and ``channels`` for a one-shot transcription.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
from collections.abc import AsyncIterator, Callable
from typing import Any

try:
    # Imported by name: numpy's types are not needed here, and the type checkers of an
    # environment without the voice extra must still read this module.
    np: Any = importlib.import_module("numpy")
except ImportError as _missing:  # the import tests hide numpy to reach this
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.openai_agents (voice)",
        requirement="openai-agents[voice]>=0.24 (numpy)",
        extra="openai-agents-voice",
    ) from _missing

try:
    from agents.voice import (
        AudioInput,
        StreamedAudioInput,
        StreamedTranscriptionSession,
        STTModel,
        STTModelSettings,
        TTSModel,
        TTSModelSettings,
    )
except ImportError as _missing:
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.openai_agents (voice)",
        requirement="openai-agents[voice]>=0.24",
        extra="openai-agents-voice",
    ) from _missing

from ..voice import (
    ScriptedSpeechToText,
    ScriptedTextToSpeech,
    TranscriptEvent,
    TranscriptionSession,
)

__all__ = ["openai_agents_stt_model", "openai_agents_tts_model"]


def openai_agents_stt_model(
    stt: ScriptedSpeechToText,
    *,
    model_name: str = "scripted-stt",
    on_event: Callable[[TranscriptEvent], object] | None = None,
) -> STTModel:
    """Return an ``agents.voice.STTModel`` that transcribes from the core double ``stt``.

    Args:
        stt: The scripted speech-to-text service the test inspects.
        model_name: What ``STTModel.model_name`` reports.
        on_event: Called with every :class:`~agents_testing.TranscriptEvent` a streamed
            session reports (speech start and end, partials, finals), at its virtual time,
            before a final transcript reaches the pipeline.
    """
    if not isinstance(stt, ScriptedSpeechToText):
        raise TypeError(f"stt must be a ScriptedSpeechToText, got {type(stt).__name__}")
    if not isinstance(model_name, str):
        raise TypeError(f"model_name must be a str, got {type(model_name).__name__}")
    if on_event is not None and not callable(on_event):
        raise TypeError(f"on_event must be callable or None, got {type(on_event).__name__}")
    return _ScriptedSTTModel(stt, model_name, on_event)


def openai_agents_tts_model(
    tts: ScriptedTextToSpeech, *, model_name: str = "scripted-tts"
) -> TTSModel:
    """Return an ``agents.voice.TTSModel`` that synthesizes from the core double ``tts``."""
    if not isinstance(tts, ScriptedTextToSpeech):
        raise TypeError(f"tts must be a ScriptedTextToSpeech, got {type(tts).__name__}")
    if not isinstance(model_name, str):
        raise TypeError(f"model_name must be a str, got {type(model_name).__name__}")
    return _ScriptedTTSModel(tts, model_name)


def _fields(settings: object) -> dict[str, Any]:
    if dataclasses.is_dataclass(settings) and not isinstance(settings, type):
        return {field.name: getattr(settings, field.name) for field in dataclasses.fields(settings)}
    return {}


def _pcm16(buffer: object) -> bytes:
    """Return the PCM16 bytes of an SDK audio buffer (int16 as is, float32 scaled as the SDK)."""
    array: Any = np.asarray(buffer)
    if array.dtype == np.float32:
        array = (np.clip(array, -1.0, 1.0) * 32767).astype(np.int16)
    elif array.dtype != np.int16:
        raise TypeError(f"audio buffers must be numpy int16 or float32 arrays, got {array.dtype}")
    return bytes(array.astype("<i2", copy=False).tobytes())


class _ScriptedSTTModel(STTModel):
    def __init__(
        self,
        stt: ScriptedSpeechToText,
        model_name: str,
        on_event: Callable[[TranscriptEvent], object] | None,
    ) -> None:
        self._stt = stt
        self._model_name = model_name
        self._on_event = on_event

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def stt(self) -> ScriptedSpeechToText:
        """The core double this model answers from."""
        return self._stt

    async def transcribe(
        self,
        input: AudioInput,  # noqa: A002  # the SDK's parameter name
        settings: STTModelSettings,
        trace_include_sensitive_data: bool,
        trace_include_sensitive_audio_data: bool,
    ) -> str:
        options = _fields(settings)
        options.update(
            trace_include_sensitive_data=trace_include_sensitive_data,
            trace_include_sensitive_audio_data=trace_include_sensitive_audio_data,
            frame_rate=input.frame_rate,
            sample_width=input.sample_width,
            channels=input.channels,
        )
        audio: Any = input  # its buffer is a numpy array
        return await self._stt.transcribe(_pcm16(audio.buffer), options)

    async def create_session(
        self,
        input: StreamedAudioInput,  # noqa: A002  # the SDK's parameter name
        settings: STTModelSettings,
        trace_include_sensitive_data: bool,
        trace_include_sensitive_audio_data: bool,
    ) -> StreamedTranscriptionSession:
        options = _fields(settings)
        options.update(
            trace_include_sensitive_data=trace_include_sensitive_data,
            trace_include_sensitive_audio_data=trace_include_sensitive_audio_data,
        )
        return _ScriptedSession(self._stt.stream(options), input, self._on_event)


class _ScriptedSession(StreamedTranscriptionSession):
    def __init__(
        self,
        session: TranscriptionSession,
        input: StreamedAudioInput,  # noqa: A002  # the SDK's parameter name
        on_event: Callable[[TranscriptEvent], object] | None,
    ) -> None:
        self._session = session
        self._input = input
        self._on_event = on_event
        # Started at once: audio the app adds before the pipeline reads turns is recorded too.
        self._pump = asyncio.get_running_loop().create_task(self._feed())

    async def _feed(self) -> None:
        source: Any = self._input  # its queue holds numpy arrays, then None at the end
        queue: asyncio.Queue[object] = source.queue
        while True:
            buffer = await queue.get()
            if buffer is None:
                self._session.end_input()
                return
            if self._session.closed:
                return
            self._session.push_audio(_pcm16(buffer))

    async def transcribe_turns(self) -> AsyncIterator[str]:
        async for event in self._session:
            if self._on_event is not None:
                self._on_event(event)
            if event.type == "final":
                yield event.text

    async def close(self) -> None:
        self._session.close()
        self._pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pump


class _ScriptedTTSModel(TTSModel):
    def __init__(self, tts: ScriptedTextToSpeech, model_name: str) -> None:
        self._tts = tts
        self._model_name = model_name

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def tts(self) -> ScriptedTextToSpeech:
        """The core double this model answers from."""
        return self._tts

    def run(self, text: str, settings: TTSModelSettings) -> AsyncIterator[bytes]:
        # A plain function: the synthesis is recorded and checked when the SDK calls run().
        synthesis = self._tts.synthesize(text, _fields(settings))

        async def chunks() -> AsyncIterator[bytes]:
            try:
                async for chunk in synthesis:
                    yield chunk.data
            finally:
                synthesis.cancel()  # records the instant only when it stopped early

        return chunks()
