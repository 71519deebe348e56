"""Scripted speech-to-text and text-to-speech on a virtual clock: the voice pipeline double.

A cascaded voice agent turns the user's audio into text (speech-to-text), runs the agent on
that text, and turns the answer back into audio (text-to-speech) that a speaker plays. This
module scripts both speech services and the time they take, framework-free and standard
library only (PCM16 audio is plain ``bytes``):

- :class:`VirtualClock` is the only time the doubles know. A test advances it (or lets it
  advance itself when every task waits on it), so a 30-second conversation runs in
  milliseconds and an event lands at an exact virtual instant (:meth:`VirtualClock.call_at`).
- :class:`ScriptedSpeechToText` answers each transcription from its script: per turn the
  user's speech start and end, partial transcripts, the final transcript, its latency, an
  error, or the end of the stream (:func:`stt_turn`, :func:`stt_end`).
- :class:`ScriptedTextToSpeech` answers each synthesis from its script: PCM16 audio chunks
  with their duration and time to first byte, or an error after some chunks
  (:func:`tts_speech`).
- :class:`VirtualSpeaker` plays audio on the clock and, when interrupted, records exactly
  which part was heard.
- :class:`ScriptedVoice` bundles the four for one test, with one ``assert_complete()``.

Framework adapters (``agents_testing.adapters``) translate a framework's speech interfaces
to these objects; the doubles never know which framework calls them.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import struct
from collections import Counter, deque
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, NoReturn, cast

from ._completion import CompletionContext
from ._snapshot import snapshot
from .errors import (
    InvalidScriptedVoiceStepError,
    InvalidScriptedVoiceStepReason,
    UnconsumedVoiceStepsError,
    UnexpectedVoiceCallError,
    VoiceCallMatcherError,
)

__all__ = [
    "DEFAULT_SAMPLE_RATE",
    "AudioChunk",
    "HeardSpeech",
    "PlayedAudio",
    "STTStep",
    "ScriptedSpeechToText",
    "ScriptedTextToSpeech",
    "ScriptedVoice",
    "SpeechToTextCall",
    "Synthesis",
    "TTSStep",
    "TextToSpeechCall",
    "TranscriptEvent",
    "TranscriptEventType",
    "TranscriptionSession",
    "VirtualClock",
    "VirtualSpeaker",
    "VirtualTimer",
    "pcm16_duration",
    "pcm16_silence",
    "stt_end",
    "stt_turn",
    "tts_speech",
]

DEFAULT_SAMPLE_RATE = 24000
"""Samples per second of the doubles' PCM16 audio unless told otherwise (as openai-agents)."""

_SETTLE_ROUNDS = 64
# Loop iterations the clock lets pass at most before it moves time: enough for the tasks woken
# at one instant to hand their data along (queues, events, nested generators) before the next
# instant. It moves sooner when the loop has nothing else to run (see _settle).
_QUIET_ROUNDS = 2
# Turns in a row with nothing else ready that count as idle: a turn after the first polls the
# loop's I/O once more, for what another thread handed over with call_soon_threadsafe.
_MAX_FIRINGS = 1_000_000


def _instant(name: str, value: object) -> float:
    """Read a point in time: any finite number of seconds (one in the past means now)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number of seconds, got {value!r}")
    return float(value)


def _seconds(name: str, value: object) -> float:
    """Read a length of time: a finite number of seconds, not negative."""
    number = _instant(name, value)
    if number < 0:
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    return number


def _on_grid(seconds: float) -> float:
    """Round a time to the nanosecond: the clock's grid, so 1.0 + 0.2 reads as 1.2."""
    return round(seconds, 9)


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value!r}")
    return value


def pcm16_duration(
    audio: bytes, *, sample_rate: int = DEFAULT_SAMPLE_RATE, channels: int = 1
) -> float:
    """Return how many seconds the PCM16 ``audio`` lasts at ``sample_rate`` and ``channels``."""
    if not isinstance(audio, (bytes, bytearray, memoryview)):
        raise TypeError(f"audio must be bytes of PCM16 samples, got {type(audio).__name__}")
    rate = _positive_int("sample_rate", sample_rate)
    width = 2 * _positive_int("channels", channels)
    return (len(audio) // width) / rate


def pcm16_silence(
    seconds: float, *, sample_rate: int = DEFAULT_SAMPLE_RATE, channels: int = 1
) -> bytes:
    """Return ``seconds`` of PCM16 silence: the audio a test feeds a speech-to-text double."""
    duration = _seconds("seconds", seconds)
    rate = _positive_int("sample_rate", sample_rate)
    return bytes(2 * _positive_int("channels", channels) * round(duration * rate))


# -- the clock ---------------------------------------------------------------------------------


class VirtualTimer:
    """A callback scheduled on a :class:`VirtualClock`; :meth:`cancel` unschedules it."""

    __slots__ = ("_callback", "_cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], object]) -> None:
        self.when: float = when
        self._callback = callback
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called before the timer fired."""
        return self._cancelled

    def cancel(self) -> None:
        """Keep the callback from running (nothing happens if it already ran)."""
        self._cancelled = True

    def __repr__(self) -> str:
        state = " cancelled" if self._cancelled else ""
        return f"<VirtualTimer when={self.when:g}{state}>"


class VirtualClock:
    """Virtual time for the voice doubles: it moves only when the test (or itself) moves it.

    Args:
        start: The clock's first reading, in seconds.
        auto_advance: Move time on its own: whenever every task of the event loop waits (the
            loop has nothing else to run), jump to the next scheduled instant. A conversation
            then runs to its end without the test advancing anything, in the same order every
            run. ``False`` (the default) leaves every move to :meth:`advance` /
            :meth:`advance_to` / :meth:`run`.

    Everything that waits in the voice doubles waits on this clock (:meth:`sleep`), never on
    wall-clock time. Callbacks scheduled with :meth:`call_at` run at their exact instant,
    before anything scheduled later: the tool for an interruption at a precise point.
    Only asyncio is supported.
    """

    def __init__(self, *, start: float = 0.0, auto_advance: bool = False) -> None:
        self._now = _seconds("start", start)
        if not isinstance(auto_advance, bool):
            raise TypeError(f"auto_advance must be a bool, got {auto_advance!r}")
        self._auto = auto_advance
        self._timers: list[tuple[float, int, VirtualTimer]] = []
        self._sequence = 0
        self._driver: asyncio.Task[None] | None = None

    @property
    def now(self) -> float:
        """The current virtual time, in seconds."""
        return self._now

    @property
    def auto_advance(self) -> bool:
        """Whether the clock moves on its own when every task waits."""
        return self._auto

    @property
    def pending(self) -> int:
        """How many scheduled callbacks and sleeps have not fired yet."""
        return sum(1 for _, _, timer in self._timers if not timer.cancelled)

    @property
    def next_deadline(self) -> float | None:
        """The instant of the next scheduled callback or sleep, or ``None``."""
        self._drop_cancelled()
        return self._timers[0][0] if self._timers else None

    def call_at(self, when: float, callback: Callable[[], object]) -> VirtualTimer:
        """Run ``callback()`` when the clock reaches ``when`` (now, at the next move, if past)."""
        instant = _on_grid(max(self._now, _instant("when", when)))
        if not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}")
        timer = VirtualTimer(instant, callback)
        heapq.heappush(self._timers, (instant, self._sequence, timer))
        self._sequence += 1
        self._wake_driver()
        return timer

    def call_later(self, delay: float, callback: Callable[[], object]) -> VirtualTimer:
        """Run ``callback()`` ``delay`` seconds of virtual time from now."""
        return self.call_at(self._now + _seconds("delay", delay), callback)

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds of virtual time."""
        await self.sleep_until(self._now + _seconds("delay", delay))

    async def sleep_until(self, when: float) -> None:
        """Wait until the clock reads ``when`` (return at once, after one loop turn, if past)."""
        instant = _instant("when", when)
        if instant <= self._now:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        timer = self.call_at(instant, wake)
        try:
            await future
        finally:
            timer.cancel()

    async def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds``, running everything due on the way, in order."""
        await self.advance_to(self._now + _seconds("seconds", seconds))

    async def advance_to(self, when: float) -> None:
        """Move time forward to ``when``, firing each due instant and letting its tasks run."""
        target = _on_grid(_instant("when", when))
        await self._fire_until(target)
        self._now = max(self._now, target)
        await _settle()

    async def run(self, *, until: float | None = None) -> None:
        """Fire every scheduled instant (up to ``until`` if given) until nothing is left.

        With ``until``, the clock then reads ``until`` (if it was not later already);
        without it, the instant of the last callback or sleep it fired.
        """
        limit = math.inf if until is None else _on_grid(_instant("until", until))
        await self._fire_until(limit)
        if until is not None:
            self._now = max(self._now, limit)

    def __repr__(self) -> str:
        mode = " auto_advance" if self._auto else ""
        return f"<VirtualClock now={self._now:g} pending={self.pending}{mode}>"

    def _drop_cancelled(self) -> None:
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)

    async def _fire_until(self, limit: float) -> None:
        """Fire the instants up to ``limit`` in order, letting the tasks run after each."""
        await _settle()
        fired = 0
        while self._due(limit):
            if fired >= _MAX_FIRINGS:
                raise RuntimeError(
                    f"VirtualClock fired {_MAX_FIRINGS:,} callbacks and reads {self._now:g}s "
                    "with more still due: a callback keeps scheduling another. Cancel the "
                    "repeating timer, or stop at an earlier instant (run(until=...) or "
                    "advance_to())."
                )
            self._fire_next()
            fired += 1
            await _settle()

    def _due(self, limit: float) -> bool:
        """Whether a callback or sleep is scheduled at or before ``limit``."""
        self._drop_cancelled()
        return bool(self._timers) and self._timers[0][0] <= limit

    def _fire_next(self) -> None:
        when, _, timer = heapq.heappop(self._timers)
        self._now = max(self._now, when)
        timer.cancel()  # it ran: cancelling it later changes nothing
        timer._callback()  # pyright: ignore[reportPrivateUsage]

    def _wake_driver(self) -> None:
        if not self._auto or (self._driver is not None and not self._driver.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # scheduled outside a loop: the next sleep starts the driver
            return
        self._driver = loop.create_task(self._drive())

    async def _drive(self) -> None:
        for _ in range(_MAX_FIRINGS):
            await _settle()
            if not self._due(math.inf):
                return
            self._fire_next()


async def _settle() -> None:
    """Let the other tasks run until they all wait, for at most ``_SETTLE_ROUNDS`` loop turns.

    CPython's loop keeps what is ready to run in ``_ready``: when this task resumes and finds
    it empty for ``_QUIET_ROUNDS`` turns in a row, every other task is waiting, and the clock
    need not spin the remaining turns (most of a voice test's CPU before). On a loop without
    it (uvloop), all the turns run.
    """
    ready = getattr(asyncio.get_running_loop(), "_ready", None)
    if not isinstance(ready, deque):
        for _ in range(_SETTLE_ROUNDS):
            await asyncio.sleep(0)
        return
    quiet = 0
    for _ in range(_SETTLE_ROUNDS):
        await asyncio.sleep(0)
        quiet = quiet + 1 if not ready else 0
        if quiet >= _QUIET_ROUNDS:
            return


# -- speech-to-text ----------------------------------------------------------------------------

TranscriptEventType = Literal["speech_started", "partial", "speech_ended", "final"]


@dataclass(frozen=True)
class TranscriptEvent:
    """One thing a transcription session reported, at its virtual time.

    ``type`` is ``"speech_started"`` / ``"speech_ended"`` (voice activity: the user began or
    stopped talking), ``"partial"`` (an interim transcript that may still change) or
    ``"final"`` (the turn's transcript: the only one that should start the agent).
    ``turn_index`` is the zero-based position of the turn's step in the script.
    """

    type: TranscriptEventType
    text: str
    at: float
    turn_index: int
    session_index: int


@dataclass(frozen=True)
class STTStep:
    """One scripted speech-to-text step; build it with :func:`stt_turn` or :func:`stt_end`."""

    kind: Literal["turn", "end"]
    final: str | None = None
    partials: tuple[tuple[str, float], ...] = ()
    start: float = 0.0
    duration: float = 0.0
    latency: float = 0.0
    error: BaseException | None = None
    match: Callable[[bytes], object] | None = None
    at: float = 0.0
    optional: bool = False

    def summary(self) -> str:
        """Say in a few words what the step answers (used in error messages)."""
        if self.kind == "end":
            return f"at +{self.at:g}s"
        if self.error is not None:
            return f"failing with {type(self.error).__name__}"
        return repr(self.final)


def stt_turn(
    final: str | None = None,
    *,
    partials: Iterable[str | tuple[str, float]] = (),
    start: float = 0.0,
    duration: float = 1.0,
    latency: float = 0.0,
    error: BaseException | None = None,
    match: Callable[[bytes], object] | None = None,
    optional: bool = False,
) -> STTStep:
    """Script one user turn: what the speech-to-text service hears and when it says so.

    Times are seconds after the turn begins (when the session opened, for the first turn of
    a session, or when the previous turn's final transcript arrived):

    - ``speech_started`` at ``start``; ``speech_ended`` at ``start + duration``;
    - each partial transcript, evenly spread inside the speech unless given as
      ``(text, offset)``;
    - the final transcript ``latency`` seconds after the speech ended.

    Args:
        final: The final transcript (the text the agent receives).
        partials: Interim transcripts, in order, as text or ``(text, offset_seconds)``.
        start: When the user starts talking.
        duration: How long the user talks.
        latency: How long the service takes after the speech to give the final transcript.
        error: Raise this instead of the final transcript (after the partials).
        match: A function of the PCM16 audio the turn received that returns ``False`` to
            reject it (a :class:`~agents_testing.errors.VoiceCallMatcherError`).
        optional: The turn may go unused without failing ``assert_complete()``.
    """
    return STTStep(
        kind="turn",
        final=final,
        partials=_tuple_or_as_is(partials),  # checked when scripted
        start=start,
        duration=duration,
        latency=latency,
        error=error,
        match=match,
        optional=optional,
    )


def _tuple_or_as_is(values: object) -> Any:
    # A wrong value is kept as given, so the double refuses it with the step's position.
    kept: Any = values
    if isinstance(values, Iterable) and not isinstance(values, (str, bytes, bytearray, Mapping)):
        return tuple(cast(Iterable[object], values))
    return kept


def stt_end(*, at: float = 0.0, optional: bool = False) -> STTStep:
    """Script the service ending the transcription stream ``at`` seconds into the turn."""
    return STTStep(kind="end", at=at, optional=optional)


@dataclass(frozen=True)
class _Turn:
    step: STTStep
    step_index: int
    end: float
    events: tuple[tuple[float, TranscriptEventType, str], ...] = ()  # relative time, type, text


def _read_stt_step(step: object, index: int) -> _Turn:
    def invalid(reason: InvalidScriptedVoiceStepReason, detail: str) -> Exception:
        return InvalidScriptedVoiceStepError(reason, "stt", input_index=index, detail=detail)

    if isinstance(step, str):
        step = stt_turn(step)
    if not isinstance(step, STTStep):
        raise invalid(
            "invalid_input",
            f"a step is built by stt_turn() or stt_end(), got {type(step).__name__}",
        )
    if not isinstance(step.optional, bool):
        raise invalid("invalid_timing", f"optional must be a bool, got {step.optional!r}")
    if step.kind == "end":
        at = _step_seconds(step.at, "at", invalid)
        return _Turn(step, index, at)
    if step.final is not None and not isinstance(step.final, str):
        raise invalid("invalid_text", f"final must be a str, got {type(step.final).__name__}")
    if step.error is not None and not isinstance(step.error, BaseException):
        raise invalid("invalid_error", f"error must be an exception instance, got {step.error!r}")
    if (step.final is None) == (step.error is None):
        given = "neither" if step.final is None else "both"
        raise invalid("invalid_outcome", f"a turn has a final transcript or an error, got {given}")
    if step.match is not None and not callable(step.match):
        raise invalid("invalid_matcher", f"match must be callable, got {step.match!r}")
    start = _step_seconds(step.start, "start", invalid)
    duration = _step_seconds(step.duration, "duration", invalid)
    latency = _step_seconds(step.latency, "latency", invalid)
    events: list[tuple[float, TranscriptEventType, str]] = [(start, "speech_started", "")]
    if not isinstance(step.partials, tuple):
        raise invalid("invalid_text", f"partials must be a sequence, got {step.partials!r:.60}")
    count = len(step.partials)
    for position, partial in enumerate(step.partials):
        if isinstance(partial, str):
            text, offset = partial, start + duration * (position + 1) / (count + 1)
        elif (
            isinstance(partial, tuple) and len(partial) == 2 and isinstance(partial[0], str)  # pyright: ignore[reportUnnecessaryIsInstance]
        ):
            text, offset = partial[0], _step_seconds(partial[1], "a partial's offset", invalid)
        else:
            raise invalid(
                "invalid_text",
                f"partial #{position + 1} must be a str or (str, offset_seconds), got {partial!r}",
            )
        events.append((offset, "partial", text))
    events.append((start + duration, "speech_ended", ""))
    end = start + duration + latency
    if step.final is not None:
        events.append((end, "final", step.final))
    # A stable sort: equal times keep the order above (speech_started, partials, ended, final).
    ordered = tuple(sorted(events, key=lambda event: event[0]))
    return _Turn(step, index, end, ordered)


def _step_seconds(value: object, name: str, invalid: Callable[..., Exception]) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid("invalid_timing", f"{name} must be a number of seconds, got {value!r}")
    number = float(value)
    if not (0 <= number < math.inf):
        raise invalid("invalid_timing", f"{name} must be finite and >= 0, got {value!r}")
    return number


@dataclass(frozen=True)
class SpeechToTextCall:
    """A recorded transcription: one-shot (``transcribe``) or streamed (``stream``).

    ``audio`` is every PCM16 byte the call received, in order; ``events`` what it reported;
    ``options`` the framework's settings as the adapter passed them (a detached copy).
    """

    index: int
    method: Literal["transcribe", "stream"]
    audio: bytes
    options: dict[str, Any]
    opened_at: float
    events: tuple[TranscriptEvent, ...]
    input_ended: bool
    closed_at: float | None
    error: BaseException | None

    @property
    def transcripts(self) -> tuple[str, ...]:
        """The final transcripts the call reported, in order."""
        return tuple(event.text for event in self.events if event.type == "final")


class _CallState:
    """The mutable side of one transcription call; read through a SpeechToTextCall snapshot."""

    def __init__(
        self, index: int, method: Literal["transcribe", "stream"], options: Any, now: float
    ) -> None:
        self.index = index
        self.method: Literal["transcribe", "stream"] = method
        self.options: dict[str, Any] = snapshot(dict(options)) if options else {}
        self.opened_at = now
        self.audio: bytearray = bytearray()
        self.events: list[TranscriptEvent] = []
        self.input_ended = False
        self.closed_at: float | None = None
        self.error: BaseException | None = None

    def record(self) -> SpeechToTextCall:
        """Return the call as it stands, as a detached record."""
        return SpeechToTextCall(
            index=self.index,
            method=self.method,
            audio=bytes(self.audio),
            options=snapshot(self.options),
            opened_at=self.opened_at,
            events=tuple(self.events),
            input_ended=self.input_ended,
            closed_at=self.closed_at,
            error=self.error,
        )


class ScriptedSpeechToText(CompletionContext):
    """A speech-to-text service double: transcribes from a script on a :class:`VirtualClock`.

    Args:
        steps: :func:`stt_turn` / :func:`stt_end` steps (a bare ``str`` is a one-second turn
            with that final transcript), used in order across every call.
        clock: The clock the service waits on; a new manual one by default.

    A one-shot :meth:`transcribe` takes one turn and returns its final transcript. A
    :meth:`stream` opens a :class:`TranscriptionSession` that takes turns one after the
    other until a :func:`stt_end` step, its :meth:`~TranscriptionSession.close`, or (once
    its input ended) the end of the script.
    """

    def __init__(
        self, steps: Iterable[STTStep | str] = (), *, clock: VirtualClock | None = None
    ) -> None:
        if clock is not None and not isinstance(clock, VirtualClock):
            raise TypeError(f"clock must be a VirtualClock or None, got {type(clock).__name__}")
        self.clock: VirtualClock = clock if clock is not None else VirtualClock()
        self._steps: list[_Turn] = []
        self._added = 0
        self._calls: list[_CallState] = []
        self._violations: list[AssertionError] = []
        self._waiting: list[TranscriptionSession] = []
        self.enqueue(*_as_list(steps, "steps"))

    def enqueue(self, *steps: STTStep | str) -> None:
        """Add steps at the end of the script; all of them, or none if one is invalid.

        A session waiting for a step (its input still open, the script used up) takes the
        new steps at once.
        """
        read = [_read_stt_step(step, self._added + offset) for offset, step in enumerate(steps)]
        self._steps.extend(read)
        self._added += len(read)
        for session in self._waiting:
            session._wake()  # pyright: ignore[reportPrivateUsage]

    @property
    def calls(self) -> tuple[SpeechToTextCall, ...]:
        """Every transcription so far, in the order they were opened (detached snapshots)."""
        return tuple(state.record() for state in self._calls)

    @property
    def remaining_steps(self) -> int:
        """How many scripted steps are still unused."""
        return len(self._steps)

    def assert_complete(self) -> None:
        """Fail if a call broke the script (first violation first) or a step is unused."""
        if self._violations:
            first = self._violations[0]
            raise first._fresh() from first  # type: ignore[attr-defined]
        pending = [turn for turn in self._steps if not turn.step.optional]
        if pending:
            raise UnconsumedVoiceStepsError(
                "stt",
                len(self._steps),
                [
                    {
                        "step_index": turn.step_index,
                        "kind": turn.step.kind,
                        "summary": turn.step.summary(),
                    }
                    for turn in self._steps
                ],
            )

    def stream(self, options: Mapping[str, Any] | None = None) -> TranscriptionSession:
        """Open a streamed transcription: push audio in, read :class:`TranscriptEvent` out.

        Recorded at once; raises :class:`~agents_testing.errors.UnexpectedVoiceCallError`
        when no step is left for it.
        """
        state = self._open("stream", options)
        return TranscriptionSession(self, state)

    async def transcribe(
        self, audio: bytes | bytearray | memoryview, options: Mapping[str, Any] | None = None
    ) -> str:
        """Transcribe one recorded utterance: take one turn and return its final transcript.

        The call is recorded and its step taken before the first suspension; it then waits
        for the turn's timing (``start + duration + latency``) on the clock.
        """
        data = _audio_bytes(audio)
        state = self._open("transcribe", options)
        state.audio.extend(data)
        state.input_ended = True
        turn = self._steps[0]  # _open() refused the call if no step was left
        if turn.step.kind == "end":
            _refuse(
                self._violations,
                state,
                UnexpectedVoiceCallError(
                    "stt",
                    state.index,
                    "transcribe",
                    expected="stt_end() (the end of a stream)",
                    step_index=turn.step_index,
                    call_summary=f"{len(data)} bytes of audio",
                ),
            )
        del self._steps[0]
        self._check_match(state, turn, data)
        try:
            await self.clock.sleep_until(state.opened_at + turn.end)
        finally:
            state.closed_at = self.clock.now
        for offset, kind, text in turn.events:
            state.events.append(
                TranscriptEvent(kind, text, state.opened_at + offset, turn.step_index, state.index)
            )
        if turn.step.error is not None:
            state.error = turn.step.error
            raise turn.step.error
        assert turn.step.final is not None
        return turn.step.final

    def __repr__(self) -> str:
        return f"<ScriptedSpeechToText calls={len(self._calls)} remaining_steps={len(self._steps)}>"

    # -- inside ----------------------------------------------------------------------------

    def _open(
        self, method: Literal["transcribe", "stream"], options: Mapping[str, Any] | None
    ) -> _CallState:
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"options must be a mapping or None, got {type(options).__name__}")
        state = _CallState(len(self._calls), method, options, self.clock.now)
        self._calls.append(state)
        if not self._steps:
            _refuse(
                self._violations,
                state,
                UnexpectedVoiceCallError("stt", state.index, method),
            )
        return state

    def _check_match(self, state: _CallState, turn: _Turn, audio: bytes) -> None:
        match = turn.step.match
        if match is None or match(audio) is not False:
            return
        _refuse(
            self._violations,
            state,
            VoiceCallMatcherError(
                "stt",
                state.index,
                state.method,
                step_index=turn.step_index,
                call_summary=f"{len(audio)} bytes of audio",
            ),
        )


def _refuse(
    violations: list[AssertionError],
    state: _CallState | _SynthesisState,
    error: AssertionError,
) -> NoReturn:
    """Record ``error`` as the call's and as a violation for assert_complete(); raise it."""
    violations.append(error)
    state.error = error
    raise error


_Audio = bytes | bytearray | memoryview


def _audio_bytes(audio: object) -> bytes:
    if isinstance(audio, (bytes, bytearray, memoryview)):
        return bytes(cast(_Audio, audio))  # a memoryview's raw bytes, whatever its format
    raise TypeError(f"audio must be bytes of PCM16 samples, got {type(audio).__name__}")


def _as_list(values: object, name: str) -> list[Any]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be an iterable of steps, got {type(values).__name__}")
    return list(values)  # pyright: ignore[reportUnknownArgumentType]


class TranscriptionSession:
    """A streamed transcription opened by :meth:`ScriptedSpeechToText.stream`.

    Feed it with :meth:`push_audio` (recorded with its virtual time) and :meth:`end_input`;
    read :class:`TranscriptEvent` values with ``async for event in session`` (each arrives
    at its scripted virtual time); :meth:`close` it when done. Iteration ends at a
    :func:`stt_end` step, after :meth:`close`, or once the input ended and no step is left;
    it raises a turn's scripted ``error`` at the turn's final time.
    """

    def __init__(self, service: ScriptedSpeechToText, state: _CallState) -> None:
        self._service = service
        self._state = state
        self._closed = False
        self._finished = False
        self._reading = False
        self._turn_start = state.opened_at
        self._turn_audio_from = 0
        self._wakeup: asyncio.Future[None] | None = None

    @property
    def index(self) -> int:
        """The zero-based index of this session's call in ``ScriptedSpeechToText.calls``."""
        return self._state.index

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    @property
    def call(self) -> SpeechToTextCall:
        """A detached snapshot of what this session received and reported so far."""
        return self._state.record()

    def push_audio(self, audio: bytes | bytearray | memoryview) -> None:
        """Give the service PCM16 audio (recorded; the script decides what it hears)."""
        data = _audio_bytes(audio)
        if self._closed:
            raise RuntimeError("push_audio() after close(): open a new session with stream()")
        self._state.audio.extend(data)

    def end_input(self) -> None:
        """Say no more audio will come: iteration ends once no step is left for this session."""
        self._state.input_ended = True
        self._wake()

    def close(self) -> None:
        """Close the session: iteration ends and the session takes no further step."""
        if not self._closed:
            self._closed = True
            self._state.closed_at = self._service.clock.now
        self._wake()

    async def aclose(self) -> None:
        """Close the session (awaitable form of :meth:`close`)."""
        self.close()

    def __aiter__(self) -> AsyncGenerator[TranscriptEvent, None]:
        return self._events()

    async def __aenter__(self) -> TranscriptionSession:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _wake(self) -> None:
        if self._wakeup is not None and not self._wakeup.done():
            self._wakeup.set_result(None)

    async def _events(self) -> AsyncGenerator[TranscriptEvent, None]:
        if self._reading:
            raise RuntimeError("a TranscriptionSession can be iterated only once at a time")
        self._reading = True
        service, state, clock = self._service, self._state, self._service.clock
        try:
            while not self._closed and not self._finished:
                if not service._steps:  # pyright: ignore[reportPrivateUsage]
                    if state.input_ended:
                        return
                    # Nothing scripted for now: wait for more steps, the input's end or close.
                    self._wakeup = asyncio.get_running_loop().create_future()
                    service._waiting.append(self)  # pyright: ignore[reportPrivateUsage]
                    try:
                        await self._wakeup
                    finally:
                        service._waiting.remove(self)  # pyright: ignore[reportPrivateUsage]
                    continue
                turn = service._steps.pop(0)  # pyright: ignore[reportPrivateUsage]
                if turn.step.kind == "end":
                    await clock.sleep_until(self._turn_start + turn.end)
                    self._finished = True
                    return
                for offset, kind, text in turn.events:
                    await clock.sleep_until(self._turn_start + offset)
                    if self._closed:
                        return
                    if kind == "final":
                        audio = bytes(state.audio[self._turn_audio_from :])
                        self._turn_audio_from = len(state.audio)
                        service._check_match(state, turn, audio)  # pyright: ignore[reportPrivateUsage]
                    event = TranscriptEvent(kind, text, clock.now, turn.step_index, state.index)
                    state.events.append(event)
                    yield event
                await clock.sleep_until(self._turn_start + turn.end)
                # The next turn starts at this one's final, even if the reader came back
                # later (a pipeline busy answering): the user's timeline does not wait.
                self._turn_start = self._turn_start + turn.end
                if turn.step.error is not None:
                    state.error = turn.step.error
                    raise turn.step.error
        finally:
            self._reading = False


# -- text-to-speech ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AudioChunk:
    """One chunk of synthesized PCM16 audio, with its length and when it was produced."""

    index: int
    data: bytes
    duration: float
    at: float


@dataclass(frozen=True)
class TTSStep:
    """One scripted text-to-speech step; build it with :func:`tts_speech`."""

    text: str | Callable[[str], object] | None = None
    duration: float = 1.0
    chunks: int | tuple[bytes, ...] = 1
    first_byte: float = 0.0
    interval: float = 0.0
    error: BaseException | None = None
    error_after: int | None = None
    optional: bool = False

    def summary(self) -> str:
        """Say in a few words what the step expects and answers."""
        if isinstance(self.text, str):
            wanted = f"text {_short(self.text)!r}"
        elif self.text is None:
            wanted = "any text"
        else:
            wanted = "text accepted by a matcher"
        if self.error is None:
            return f"{wanted} -> {self.duration:g}s of audio"
        failure = type(self.error).__name__
        if self.error_after:
            return f"{wanted} -> {self.error_after} of its chunks, then {failure}"
        return f"{wanted} -> {failure}"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tts_speech(
    text: str | Callable[[str], object] | None = None,
    *,
    duration: float = 1.0,
    chunks: int | Sequence[bytes] = 1,
    first_byte: float = 0.0,
    interval: float = 0.0,
    error: BaseException | None = None,
    error_after: int | None = None,
    optional: bool = False,
) -> TTSStep:
    """Script one synthesis: the text it must get and the audio it answers with.

    Args:
        text: The exact text expected, a function of the text that returns ``False`` to
            reject it, or ``None`` for any text.
        duration: Seconds of audio produced, split evenly over ``chunks`` (ignored when
            ``chunks`` gives the audio itself). Every sample of synthesis ``k`` has the
            value ``k + 1`` (after 32,767 syntheses the values start again from 1, never
            silence), so a played sample tells which synthesis it came from.
        chunks: How many chunks, or the PCM16 chunks themselves.
        first_byte: Seconds from the request to the first chunk (time to first byte).
        interval: Seconds between two chunks.
        error: Raise this exception: at once, or after ``error_after`` chunks.
        error_after: How many chunks arrive before ``error`` is raised.
        optional: The step may go unused without failing ``assert_complete()``.
    """
    return TTSStep(
        text=text,
        duration=duration,
        chunks=_tuple_or_as_is(chunks),  # a count is kept as given
        first_byte=first_byte,
        interval=interval,
        error=error,
        error_after=error_after,
        optional=optional,
    )


@dataclass(frozen=True)
class _Speech:
    """A text-to-speech step read from the script, with its position."""

    step: TTSStep
    step_index: int


def _read_tts_step(step: object, index: int) -> _Speech:
    def invalid(reason: InvalidScriptedVoiceStepReason, detail: str) -> Exception:
        return InvalidScriptedVoiceStepError(reason, "tts", input_index=index, detail=detail)

    if not isinstance(step, TTSStep):
        raise invalid(
            "invalid_input", f"a step is built by tts_speech(), got {type(step).__name__}"
        )
    if step.text is not None and not isinstance(step.text, str) and not callable(step.text):
        raise invalid("invalid_text", f"text must be a str, a matcher or None, got {step.text!r}")
    _step_seconds(step.duration, "duration", invalid)
    _step_seconds(step.first_byte, "first_byte", invalid)
    _step_seconds(step.interval, "interval", invalid)
    if isinstance(step.chunks, int) and not isinstance(step.chunks, bool):
        if step.chunks < 1:
            raise invalid("invalid_audio", f"chunks must be >= 1, got {step.chunks!r}")
    elif isinstance(step.chunks, tuple):
        for position, chunk in enumerate(step.chunks):
            if not isinstance(chunk, (bytes, bytearray)) or len(chunk) % 2:
                raise invalid(
                    "invalid_audio",
                    f"chunk #{position + 1} must be bytes of whole PCM16 samples, "
                    f"got {chunk!r:.60}",
                )
    else:
        raise invalid(
            "invalid_audio", f"chunks must be an int or a sequence of bytes, got {step.chunks!r}"
        )
    if step.error is not None and not isinstance(step.error, BaseException):
        raise invalid("invalid_error", f"error must be an exception instance, got {step.error!r}")
    if step.error_after is not None:
        if step.error is None:
            raise invalid("invalid_error", "error_after is set but error is not")
        if (
            isinstance(step.error_after, bool)
            or not isinstance(step.error_after, int)
            or step.error_after < 0
        ):
            raise invalid(
                "invalid_error", f"error_after must be an int >= 0, got {step.error_after!r}"
            )
    if not isinstance(step.optional, bool):
        raise invalid("invalid_timing", f"optional must be a bool, got {step.optional!r}")
    return _Speech(step, index)


@dataclass(frozen=True)
class TextToSpeechCall:
    """A recorded synthesis: the text it got and the audio it produced.

    ``chunks`` are the chunks produced so far; ``cancelled_at`` is the virtual time the
    consumer stopped reading early (``None`` if it did not); ``error`` what it raised.
    """

    index: int
    text: str
    options: dict[str, Any]
    started_at: float
    chunks: tuple[AudioChunk, ...]
    finished_at: float | None
    cancelled_at: float | None
    error: BaseException | None

    @property
    def audio(self) -> bytes:
        """Every PCM16 byte produced, in order."""
        return b"".join(chunk.data for chunk in self.chunks)

    @property
    def duration(self) -> float:
        """Seconds of audio produced."""
        return sum(chunk.duration for chunk in self.chunks)


class _SynthesisState:
    """The mutable side of one synthesis; read through a TextToSpeechCall snapshot."""

    def __init__(self, index: int, text: str, options: Any, now: float) -> None:
        self.index = index
        self.text = text
        self.options: dict[str, Any] = snapshot(dict(options)) if options else {}
        self.started_at = now
        self.chunks: list[AudioChunk] = []
        self.finished_at: float | None = None
        self.cancelled_at: float | None = None
        self.error: BaseException | None = None

    def record(self) -> TextToSpeechCall:
        """Return the synthesis as it stands, as a detached record."""
        return TextToSpeechCall(
            index=self.index,
            text=self.text,
            options=snapshot(self.options),
            started_at=self.started_at,
            chunks=tuple(self.chunks),
            finished_at=self.finished_at,
            cancelled_at=self.cancelled_at,
            error=self.error,
        )


class ScriptedTextToSpeech(CompletionContext):
    """A text-to-speech service double: synthesizes PCM16 audio from a script, on a clock.

    Args:
        steps: :func:`tts_speech` steps (a bare ``str`` expects that exact text and answers
            one second of audio), used in order.
        clock: The clock the service waits on; a new manual one by default.
        sample_rate: Samples per second of the audio it produces.
        channels: Interleaved channels of the audio it produces.
    """

    def __init__(
        self,
        steps: Iterable[TTSStep | str] = (),
        *,
        clock: VirtualClock | None = None,
        sample_rate: int = DEFAULT_SAMPLE_RATE,
        channels: int = 1,
    ) -> None:
        if clock is not None and not isinstance(clock, VirtualClock):
            raise TypeError(f"clock must be a VirtualClock or None, got {type(clock).__name__}")
        self.clock: VirtualClock = clock if clock is not None else VirtualClock()
        self.sample_rate: int = _positive_int("sample_rate", sample_rate)
        self.channels: int = _positive_int("channels", channels)
        self._steps: list[_Speech] = []
        self._added = 0
        self._calls: list[_SynthesisState] = []
        self._spoken: list[TTSStep | None] = []  # the step each call took (None: refused)
        self._violations: list[AssertionError] = []
        self.enqueue(*_as_list(steps, "steps"))

    def enqueue(self, *steps: TTSStep | str) -> None:
        """Add steps at the end of the script; all of them, or none if one is invalid."""
        read = [
            _read_tts_step(
                tts_speech(step) if isinstance(step, str) else step, self._added + offset
            )
            for offset, step in enumerate(steps)
        ]
        self._steps.extend(read)
        self._added += len(read)

    @property
    def calls(self) -> tuple[TextToSpeechCall, ...]:
        """Every synthesis so far, in order (detached snapshots)."""
        return tuple(state.record() for state in self._calls)

    @property
    def texts(self) -> tuple[str, ...]:
        """The text of every synthesis so far, in order."""
        return tuple(state.text for state in self._calls)

    @property
    def remaining_steps(self) -> int:
        """How many scripted steps are still unused."""
        return len(self._steps)

    def assert_complete(self) -> None:
        """Fail if a call broke the script (first violation first) or a step is unused."""
        if self._violations:
            first = self._violations[0]
            raise first._fresh() from first  # type: ignore[attr-defined]
        if any(not speech.step.optional for speech in self._steps):
            raise UnconsumedVoiceStepsError(
                "tts",
                len(self._steps),
                [
                    {"step_index": s.step_index, "kind": "speech", "summary": s.step.summary()}
                    for s in self._steps
                ],
            )

    def synthesize(self, text: str, options: Mapping[str, Any] | None = None) -> Synthesis:
        """Start synthesizing ``text``: recorded and checked at once; iterate it for chunks.

        Raises :class:`~agents_testing.errors.UnexpectedVoiceCallError` when no step is left
        and :class:`~agents_testing.errors.VoiceCallMatcherError` when the step's text does not
        match, both before returning.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"options must be a mapping or None, got {type(options).__name__}")
        state = _SynthesisState(len(self._calls), text, options, self.clock.now)
        self._calls.append(state)
        self._spoken.append(None)
        summary = repr(_short(text))
        if not self._steps:
            _refuse(
                self._violations,
                state,
                UnexpectedVoiceCallError("tts", state.index, "synthesize", call_summary=summary),
            )
        speech = self._steps[0]
        wanted = speech.step.text
        if isinstance(wanted, str):
            accepted = wanted == text
        else:
            accepted = wanted is None or wanted(text) is not False
        if not accepted:
            _refuse(
                self._violations,
                state,
                VoiceCallMatcherError(
                    "tts",
                    state.index,
                    "synthesize",
                    step_index=speech.step_index,
                    call_summary=summary,
                    expected=speech.step.summary(),
                ),
            )
        del self._steps[0]
        self._spoken[state.index] = speech.step
        return Synthesis(self, state, speech)

    def __repr__(self) -> str:
        return f"<ScriptedTextToSpeech calls={len(self._calls)} remaining_steps={len(self._steps)}>"

    def _audio(self, speech: _Speech, index: int) -> tuple[bytes, ...]:
        chunks = speech.step.chunks
        if isinstance(chunks, tuple):
            return tuple(bytes(chunk) for chunk in chunks)
        frames = round(speech.step.duration * self.sample_rate)
        sample = _sample_value(index).to_bytes(2, "little") * self.channels
        sizes = [frames // chunks + (1 if n < frames % chunks else 0) for n in range(chunks)]
        return tuple(sample * size for size in sizes)


class Synthesis:
    """One synthesis in progress: ``async for chunk in synthesis`` yields :class:`AudioChunk`.

    Each chunk arrives at its scripted virtual time. :meth:`cancel` (or leaving the loop
    early) records the instant the consumer stopped reading.
    """

    def __init__(
        self, service: ScriptedTextToSpeech, state: _SynthesisState, speech: _Speech
    ) -> None:
        self._service = service
        self._state = state
        self._speech = speech
        self._started = False

    @property
    def index(self) -> int:
        """The zero-based index of this synthesis in ``ScriptedTextToSpeech.calls``."""
        return self._state.index

    @property
    def text(self) -> str:
        """The text being synthesized."""
        return self._state.text

    @property
    def call(self) -> TextToSpeechCall:
        """A detached snapshot of this synthesis so far."""
        return self._state.record()

    def cancel(self) -> None:
        """Record that the consumer stopped reading (a barge-in); later chunks never come."""
        state = self._state
        if state.finished_at is None and state.cancelled_at is None:
            state.cancelled_at = self._service.clock.now

    def __aiter__(self) -> AsyncGenerator[AudioChunk, None]:
        if self._started:
            raise RuntimeError("a Synthesis can be iterated only once")
        self._started = True
        return self._chunks()

    async def _chunks(self) -> AsyncGenerator[AudioChunk, None]:
        service, state, step = self._service, self._state, self._speech.step
        clock = service.clock
        audio = service._audio(self._speech, state.index)  # pyright: ignore[reportPrivateUsage]
        limit = len(audio) if step.error is None else (step.error_after or 0)
        try:
            for position, data in enumerate(audio[:limit]):
                await clock.sleep_until(
                    state.started_at + step.first_byte + position * step.interval
                )
                if state.cancelled_at is not None:
                    return
                chunk = AudioChunk(
                    position,
                    data,
                    pcm16_duration(
                        data, sample_rate=service.sample_rate, channels=service.channels
                    ),
                    clock.now,
                )
                state.chunks.append(chunk)
                yield chunk
            if step.error is not None:
                if limit == 0:
                    await clock.sleep_until(state.started_at + step.first_byte)
                state.error = step.error
                state.finished_at = clock.now
                raise step.error
            state.finished_at = clock.now
        finally:
            self.cancel()  # records the stop if the consumer left early; else does nothing


# -- playback ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayedAudio:
    """One piece of audio given to a :class:`VirtualSpeaker` and how much of it was heard.

    ``data`` is what the listener heard (cut at the interruption, whole samples);
    ``source`` the label the caller gave :meth:`VirtualSpeaker.play` (such as a synthesis
    index); ``interrupted`` is true for the piece an interruption cut short and for pieces it
    dropped before they started (``data`` empty).
    """

    data: bytes
    queued: bytes
    started_at: float
    ended_at: float
    source: object
    interrupted: bool

    @property
    def duration(self) -> float:
        """Seconds heard."""
        return self.ended_at - self.started_at


@dataclass
class _Queued:
    data: bytes
    source: object
    start: float
    end: float
    cut_at: float | None = None


class VirtualSpeaker:
    """A speaker that plays PCM16 audio on a :class:`VirtualClock`, in real-time pace.

    Audio given to :meth:`play` starts when the previous audio ends (or now, if idle) and
    lasts its PCM16 duration. :meth:`interrupt` stops playback at the clock's current time:
    the record then says exactly which bytes were heard (:attr:`played`, :attr:`heard`).
    """

    def __init__(
        self,
        clock: VirtualClock,
        *,
        sample_rate: int = DEFAULT_SAMPLE_RATE,
        channels: int = 1,
    ) -> None:
        if not isinstance(clock, VirtualClock):
            raise TypeError(f"clock must be a VirtualClock, got {type(clock).__name__}")
        self.clock = clock
        self.sample_rate: int = _positive_int("sample_rate", sample_rate)
        self.channels: int = _positive_int("channels", channels)
        self._queue: list[_Queued] = []
        self._interruptions: list[float] = []

    def play(self, audio: bytes | bytearray | memoryview, *, source: object = None) -> float:
        """Queue ``audio`` for playback; return the virtual time it will finish playing."""
        data = _audio_bytes(audio)
        now = self.clock.now
        # After an interruption the cut audio ends where it was cut: new audio starts now.
        ends = [item.end if item.cut_at is None else item.cut_at for item in self._queue]
        start = max([now, *ends])
        length = pcm16_duration(data, sample_rate=self.sample_rate, channels=self.channels)
        end = _on_grid(start + length)
        self._queue.append(_Queued(data, source, start, end))
        return end

    @property
    def playing(self) -> bool:
        """Whether audio is being played at the clock's current time."""
        now = self.clock.now
        return any(item.cut_at is None and item.start <= now < item.end for item in self._queue)

    @property
    def finishes_at(self) -> float:
        """When the queued audio finishes (now, if nothing is queued)."""
        ends = [item.end for item in self._queue if item.cut_at is None]
        return max([self.clock.now, *ends])

    async def wait_done(self) -> None:
        """Wait on the clock until everything queued has been played."""
        await self.clock.sleep_until(self.finishes_at)

    def interrupt(self) -> float:
        """Stop playback now (a barge-in); drop what was not played. Return seconds heard."""
        now = self.clock.now
        heard = 0.0
        for item in self._queue:
            if item.cut_at is None and item.end > now:
                item.cut_at = now
                heard += max(0.0, now - item.start)
        self._interruptions.append(now)
        return _on_grid(heard)

    @property
    def interruptions(self) -> tuple[float, ...]:
        """The virtual times :meth:`interrupt` was called."""
        return tuple(self._interruptions)

    @property
    def played(self) -> tuple[PlayedAudio, ...]:
        """Every piece queued so far and what of it was heard by the clock's current time."""
        now = self.clock.now
        records: list[PlayedAudio] = []
        for item in self._queue:
            stop = min(item.end, now if item.cut_at is None else item.cut_at)
            stop = _on_grid(max(stop, item.start))
            width = 2 * self.channels
            frames = round((stop - item.start) * self.sample_rate)
            data = item.data[: min(len(item.data), frames * width)]
            records.append(
                PlayedAudio(data, item.data, item.start, stop, item.source, item.cut_at is not None)
            )
        return tuple(records)

    @property
    def heard(self) -> bytes:
        """All audio heard so far, in order."""
        return b"".join(record.data for record in self.played)


# -- bundle ------------------------------------------------------------------------------------


def _sample_value(index: int) -> int:
    """The value of every sample synthesis ``index`` generates: 1 to 32,767, never silence."""
    return index % 32767 + 1


def _count_samples(data: bytes, values: Counter[int]) -> int:
    """Add the sample values of the mono PCM16 ``data`` to ``values``; return their number.

    A piece of one synthesis's audio holds one value throughout, and counting it takes one
    comparison with that value repeated instead of a Python int per sample (most of a
    conversation's test time). Values are read unsigned: only the positive values of the
    syntheses are looked up.
    """
    frames = len(data) // 2
    if not frames:
        return 0
    first = data[:2]
    if data.startswith(first * frames):  # every sample equals the first
        values[int.from_bytes(first, "little")] += frames
    else:
        values.update(struct.unpack_from(f"<{frames}H", data))
    return frames


@dataclass(frozen=True)
class HeardSpeech:
    """How much of one synthesis the listener heard (see :meth:`ScriptedVoice.heard`)."""

    call_index: int
    text: str
    heard: float
    duration: float

    @property
    def complete(self) -> bool:
        """Whether all of the synthesized audio was heard."""
        return self.heard >= self.duration


class ScriptedVoice(CompletionContext):
    """One test's voice doubles on one clock: ``stt``, ``tts``, ``speaker`` and ``clock``.

    Args:
        stt: Speech-to-text steps (:func:`stt_turn`, :func:`stt_end`).
        tts: Text-to-speech steps (:func:`tts_speech`).
        auto_advance: Let the clock move on its own when every task waits (the default);
            ``False`` leaves it to the test.
        sample_rate: Samples per second of the synthesized and played audio.
    """

    def __init__(
        self,
        stt: Iterable[STTStep | str] = (),
        tts: Iterable[TTSStep | str] = (),
        *,
        auto_advance: bool = True,
        sample_rate: int = DEFAULT_SAMPLE_RATE,
    ) -> None:
        self.clock: VirtualClock = VirtualClock(auto_advance=auto_advance)
        self.stt: ScriptedSpeechToText = ScriptedSpeechToText(stt, clock=self.clock)
        self.tts: ScriptedTextToSpeech = ScriptedTextToSpeech(
            tts, clock=self.clock, sample_rate=sample_rate
        )
        self.speaker: VirtualSpeaker = VirtualSpeaker(self.clock, sample_rate=sample_rate)

    def heard(self) -> tuple[HeardSpeech, ...]:
        """Say, per synthesis, how many seconds of its audio the speaker has played by now.

        Audio the double generated is recognized by its sample values (synthesis ``k``'s
        samples all equal ``k + 1``), so audio the app dropped or reordered is counted right.
        Audio scripted as explicit chunks is counted from the pieces played with
        ``source=`` that synthesis's index.
        """
        rate = self.tts.sample_rate
        values: Counter[int] = Counter()
        by_source: Counter[object] = Counter()
        for record in self.speaker.played:
            by_source[record.source] += _count_samples(record.data, values)
        result: list[HeardSpeech] = []
        for call in self.tts.calls:
            step = self.tts._spoken[call.index]  # pyright: ignore[reportPrivateUsage]
            explicit = step is not None and isinstance(step.chunks, tuple)
            frames = by_source[call.index] if explicit else values[_sample_value(call.index)]
            duration = _on_grid(call.duration)
            heard = _on_grid(min(frames / rate, duration))
            result.append(HeardSpeech(call.index, call.text, heard, duration))
        return tuple(result)

    def assert_complete(self) -> None:
        """Check the speech-to-text script, then the text-to-speech script."""
        self.stt.assert_complete()
        self.tts.assert_complete()

    def __repr__(self) -> str:
        return f"<ScriptedVoice now={self.clock.now:g} stt={self.stt!r} tts={self.tts!r}>"
