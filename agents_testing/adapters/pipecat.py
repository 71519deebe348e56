"""Plug the voice doubles into a Pipecat pipeline (``pipecat-ai`` >= 1.14).

- ``pipecat_stt(stt)`` is an ``STTService`` over a core ``ScriptedSpeechToText``. When the
  pipeline starts it opens one scripted transcription session; input audio frames are
  recorded in it, and its events become frames at their virtual time, the way a Pipecat
  service with its own turn detection reports them: ``speech_started`` -> a broadcast
  ``ProposedUserStartedSpeakingFrame``, ``partial`` -> ``InterimTranscriptionFrame``,
  ``final`` -> ``TranscriptionFrame`` followed by a ``ProposedUserStoppedSpeakingFrame``
  (``speech_ended`` has no frame of its own). A user aggregator with
  ``ExternalUserTurnStrategies`` turns those into user turns and interruptions. A scripted
  error becomes an ``ErrorFrame`` pushed upstream (``push_error``).
- ``pipecat_tts(tts)`` is a ``TTSService`` over a core ``ScriptedTextToSpeech``: each text
  Pipecat synthesizes is one scripted synthesis, its chunks become ``TTSAudioRawFrame``\\ s,
  and a scripted error becomes an ``ErrorFrame``. An interruption cancels the synthesis,
  which the core records (``cancelled_at``).
- ``ScriptedSpeakerOutput(speaker)`` stands where the output transport would: it plays each
  ``TTSAudioRawFrame`` on a core ``VirtualSpeaker`` and stops it on an ``InterruptionFrame``,
  so the speaker records exactly what the user heard.
- ``loop_on_clock(clock)`` runs the event loop's time on the voice clock, so Pipecat's own
  waits (and ``SleepFrame`` in ``run_test``) are virtual too.

Keep asserting on the core objects (``calls``, ``assert_complete()``); importing this module
without ``pipecat-ai`` raises ``ImportError`` naming the extra to install.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

try:
    from pipecat.frames.frames import (
        Frame,
        InterimTranscriptionFrame,
        InterruptionFrame,
        ProposedUserStartedSpeakingFrame,
        ProposedUserStoppedSpeakingFrame,
        StartFrame,
        TranscriptionFrame,
        TTSAudioRawFrame,
        TTSStartedFrame,
        TTSStoppedFrame,
    )
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.services.settings import STTSettings, TTSSettings
    from pipecat.services.stt_service import STTService
    from pipecat.services.tts_service import TTSService
except ImportError as _missing:  # the import tests hide the framework to reach this
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.pipecat",
        requirement="pipecat-ai>=1.14",
        extra="pipecat",
    ) from _missing

from ..voice import (
    ScriptedSpeechToText,
    ScriptedTextToSpeech,
    TranscriptEvent,
    TranscriptionSession,
    VirtualSpeaker,
)
from ._loop_clock import loop_on_clock as loop_on_clock

__all__ = [
    "ScriptedPipecatSTT",
    "ScriptedPipecatTTS",
    "ScriptedSpeakerOutput",
    "loop_on_clock",
    "pipecat_stt",
    "pipecat_tts",
]


def _check(value: object, kind: type, function: str, expected: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{function} expects {expected}, got {type(value).__name__}.")


# -- speech-to-text ----------------------------------------------------------------------------


def pipecat_stt(stt: ScriptedSpeechToText, *, user_id: str = "user") -> ScriptedPipecatSTT:
    """Return a Pipecat speech-to-text service that transcribes from ``stt``'s script."""
    _check(stt, ScriptedSpeechToText, "pipecat_stt", "a ScriptedSpeechToText")
    if not isinstance(user_id, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"user_id must be a str, got {type(user_id).__name__}.")
    return ScriptedPipecatSTT(stt, user_id=user_id)


class ScriptedPipecatSTT(STTService):
    """A Pipecat ``STTService`` whose transcripts come from a ``ScriptedSpeechToText``."""

    def __init__(self, stt: ScriptedSpeechToText, *, user_id: str = "user") -> None:
        super().__init__(settings=STTSettings(model=None, language=None))  # pyright: ignore[reportUnknownMemberType]
        self.scripted_stt: ScriptedSpeechToText = stt
        self.user_id: str = user_id
        self._session: TranscriptionSession | None = None
        self._reader: asyncio.Task[None] | None = None

    def can_generate_metrics(self) -> bool:
        """Report no metrics: the scripted service has no latency of its own to measure."""
        return False

    async def start(self, frame: StartFrame) -> None:
        """Open the scripted transcription session when the pipeline starts."""
        await super().start(frame)
        self._session = self.scripted_stt.stream({"sample_rate": self.sample_rate})
        self._reader = self.create_task(self._read(self._session), "scripted_stt_reader")  # pyright: ignore[reportUnknownMemberType]

    async def stop(self, frame: Any) -> None:
        """Close the session when the pipeline ends."""
        await self._close()
        await super().stop(frame)

    async def cancel(self, frame: Any) -> None:
        """Close the session when the pipeline is cancelled."""
        await self._close()
        await super().cancel(frame)

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame | None, None]:
        """Record ``audio`` in the session; transcripts arrive from the script, not from here."""
        if self._session is not None and not self._session.closed:
            self._session.push_audio(audio)
        yield None

    async def _close(self) -> None:
        if self._session is not None:
            self._session.close()
        if self._reader is not None:
            await self.cancel_task(self._reader)  # pyright: ignore[reportUnknownMemberType]
            self._reader = None

    async def _read(self, session: TranscriptionSession) -> None:
        try:
            async for event in session:
                await self._push_event(event)
        except Exception as error:
            await self.push_error(f"scripted transcription failed: {error!r}", exception=error)

    async def _push_event(self, event: TranscriptEvent) -> None:
        stamp = f"{event.at:g}"
        if event.type == "speech_started":
            await self.broadcast_frame(ProposedUserStartedSpeakingFrame)  # pyright: ignore[reportUnknownMemberType]
        elif event.type == "partial":
            await self.push_frame(InterimTranscriptionFrame(event.text, self.user_id, stamp))
        elif event.type == "final":
            await self.push_frame(
                TranscriptionFrame(event.text, self.user_id, stamp, finalized=True)
            )
            await self.push_frame(ProposedUserStoppedSpeakingFrame())


# -- text-to-speech ----------------------------------------------------------------------------


def pipecat_tts(tts: ScriptedTextToSpeech) -> ScriptedPipecatTTS:
    """Return a Pipecat text-to-speech service that synthesizes from ``tts``'s script."""
    _check(tts, ScriptedTextToSpeech, "pipecat_tts", "a ScriptedTextToSpeech")
    return ScriptedPipecatTTS(tts)


class ScriptedPipecatTTS(TTSService):
    """A Pipecat ``TTSService`` whose audio comes from a ``ScriptedTextToSpeech``."""

    def __init__(self, tts: ScriptedTextToSpeech) -> None:
        super().__init__(  # pyright: ignore[reportUnknownMemberType]
            push_start_frame=True,
            push_stop_frames=True,
            sample_rate=tts.sample_rate,
            settings=TTSSettings(model=None, voice=None, language=None),
        )
        self.scripted_tts: ScriptedTextToSpeech = tts

    def can_generate_metrics(self) -> bool:
        """Report no metrics: the scripted service has no latency of its own to measure."""
        return False

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        """Synthesize ``text`` from the script: one ``TTSAudioRawFrame`` per scripted chunk."""
        try:
            synthesis = self.scripted_tts.synthesize(text)
            async for chunk in synthesis:
                yield TTSAudioRawFrame(
                    audio=chunk.data,
                    sample_rate=self.scripted_tts.sample_rate,
                    num_channels=self.scripted_tts.channels,
                    context_id=context_id,
                )
        except Exception as error:
            await self.push_error(f"scripted synthesis failed: {error!r}", exception=error)


# -- the speaker -------------------------------------------------------------------------------


class ScriptedSpeakerOutput(FrameProcessor):
    """The user's speaker at the end of the pipeline: plays the bot's audio on the clock.

    Each ``TTSAudioRawFrame`` is queued on the ``VirtualSpeaker`` (its ``source`` is the
    frame's ``context_id``, one per synthesized turn). An ``InterruptionFrame`` that arrives
    while the bot speaks (between ``TTSStartedFrame`` and ``TTSStoppedFrame``, or while queued
    audio is still to be heard) stops the speaker at that virtual instant; one that arrives
    in silence changes nothing. Every frame is passed on.
    """

    def __init__(self, speaker: VirtualSpeaker) -> None:
        _check(speaker, VirtualSpeaker, "ScriptedSpeakerOutput", "a VirtualSpeaker")
        super().__init__()  # pyright: ignore[reportUnknownMemberType]
        self.speaker: VirtualSpeaker = speaker
        self._synthesizing = False

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Play audio, stop on interruptions, and pass every frame on."""
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.speaker.play(frame.audio, source=frame.context_id)
        elif isinstance(frame, (TTSStartedFrame, TTSStoppedFrame)):
            self._synthesizing = isinstance(frame, TTSStartedFrame)
        elif isinstance(frame, InterruptionFrame) and self._speaking():
            self._synthesizing = False
            self.speaker.interrupt()
        await self.push_frame(frame, direction)

    def _speaking(self) -> bool:
        return self._synthesizing or self.speaker.finishes_at > self.speaker.clock.now
