"""The exact errors of the voice double, compared whole, and the text of its summaries.

A bad argument names itself and what it must be; a malformed step names its place, what is
wrong and how to fix it; a call the script does not expect, a step that rejects its call
and a step left unused each say which call and step, and what to change.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from agents_testing import (
    InvalidScriptedVoiceStepError,
    ScriptedSpeechToText,
    ScriptedTextToSpeech,
    ScriptedVoice,
    UnconsumedVoiceStepsError,
    UnexpectedVoiceCallError,
    VirtualClock,
    VirtualSpeaker,
    VoiceCallMatcherError,
    pcm16_duration,
    pcm16_silence,
    stt_end,
    stt_turn,
    tts_speech,
)

# -- arguments ---------------------------------------------------------------------------------


def _clock_call(call: Callable[[VirtualClock], Any]) -> Callable[[], object]:
    """Run ``call`` on a fresh clock inside an event loop (the async methods need one)."""

    def run() -> object:
        async def inside() -> object:
            result = call(VirtualClock())
            return await result if asyncio.iscoroutine(result) else result

        return asyncio.run(inside())

    return run


@pytest.mark.parametrize(
    ("call", "error_type", "message"),
    [
        (
            lambda: VirtualClock(start="1"),  # type: ignore[arg-type]
            TypeError,
            "start must be a number of seconds, got str",
        ),
        (
            lambda: VirtualClock(start=True),
            TypeError,
            "start must be a number of seconds, got bool",
        ),
        (
            lambda: VirtualClock(start=-1),
            ValueError,
            "start must be a finite number of seconds >= 0, got -1",
        ),
        (
            lambda: VirtualClock(start=float("inf")),
            ValueError,
            "start must be a finite number of seconds, got inf",
        ),
        (
            lambda: VirtualClock(auto_advance=1),  # type: ignore[arg-type]
            TypeError,
            "auto_advance must be a bool, got 1",
        ),
        (
            _clock_call(lambda clock: clock.call_at(float("nan"), print)),
            ValueError,
            "when must be a finite number of seconds, got nan",
        ),
        (
            _clock_call(lambda clock: clock.call_at(1.0, "print")),  # type: ignore[arg-type]
            TypeError,
            "callback must be callable, got str",
        ),
        (
            _clock_call(lambda clock: clock.call_later(-0.5, print)),
            ValueError,
            "delay must be a finite number of seconds >= 0, got -0.5",
        ),
        (
            _clock_call(lambda clock: clock.sleep(-0.5)),
            ValueError,
            "delay must be a finite number of seconds >= 0, got -0.5",
        ),
        (
            _clock_call(lambda clock: clock.sleep_until("1")),  # type: ignore[arg-type]
            TypeError,
            "when must be a number of seconds, got str",
        ),
        (
            _clock_call(lambda clock: clock.advance(float("-inf"))),
            ValueError,
            "seconds must be a finite number of seconds, got -inf",
        ),
        (
            _clock_call(lambda clock: clock.advance_to(None)),  # type: ignore[arg-type]
            TypeError,
            "when must be a number of seconds, got NoneType",
        ),
        (
            _clock_call(lambda clock: clock.run(until=float("inf"))),
            ValueError,
            "until must be a finite number of seconds, got inf",
        ),
        (
            lambda: pcm16_duration("x"),  # type: ignore[arg-type]
            TypeError,
            "audio must be bytes of PCM16 samples, got str",
        ),
        (
            lambda: pcm16_duration(b"", sample_rate=0),
            ValueError,
            "sample_rate must be >= 1, got 0",
        ),
        (
            lambda: pcm16_duration(b"", channels=True),
            TypeError,
            "channels must be an int, got bool",
        ),
        (
            lambda: pcm16_silence(-1),
            ValueError,
            "seconds must be a finite number of seconds >= 0, got -1",
        ),
        (
            lambda: pcm16_silence(1, sample_rate=1.5),  # type: ignore[arg-type]
            TypeError,
            "sample_rate must be an int, got float",
        ),
        (
            lambda: pcm16_silence(1, channels=0),
            ValueError,
            "channels must be >= 1, got 0",
        ),
        (
            lambda: ScriptedSpeechToText("hello"),
            TypeError,
            "steps must be an iterable of steps, got str",
        ),
        (
            lambda: ScriptedSpeechToText(clock=VirtualSpeaker),  # type: ignore[arg-type]
            TypeError,
            "clock must be a VirtualClock or None, got type",
        ),
        (
            lambda: ScriptedSpeechToText(["a"]).stream([("language", "fr")]),  # type: ignore[arg-type]
            TypeError,
            "options must be a mapping or None, got list",
        ),
        (
            lambda: ScriptedSpeechToText(["a"]).stream().push_audio("x"),  # type: ignore[arg-type]
            TypeError,
            "audio must be bytes of PCM16 samples, got str",
        ),
        (
            lambda: ScriptedTextToSpeech(b"a"),  # type: ignore[arg-type]
            TypeError,
            "steps must be an iterable of steps, got bytes",
        ),
        (
            lambda: ScriptedTextToSpeech(sample_rate=0),
            ValueError,
            "sample_rate must be >= 1, got 0",
        ),
        (
            lambda: ScriptedTextToSpeech(channels=1.0),  # type: ignore[arg-type]
            TypeError,
            "channels must be an int, got float",
        ),
        (
            lambda: ScriptedTextToSpeech(clock=1),  # type: ignore[arg-type]
            TypeError,
            "clock must be a VirtualClock or None, got int",
        ),
        (
            lambda: ScriptedTextToSpeech(["a"]).synthesize(b"a"),  # type: ignore[arg-type]
            TypeError,
            "text must be a str, got bytes",
        ),
        (
            lambda: ScriptedTextToSpeech(["a"]).synthesize("a", [1]),  # type: ignore[arg-type]
            TypeError,
            "options must be a mapping or None, got list",
        ),
        (
            lambda: VirtualSpeaker(1.5),  # type: ignore[arg-type]
            TypeError,
            "clock must be a VirtualClock, got float",
        ),
        (
            lambda: VirtualSpeaker(VirtualClock(), channels=0),
            ValueError,
            "channels must be >= 1, got 0",
        ),
        (
            lambda: VirtualSpeaker(VirtualClock(), sample_rate=-8000),
            ValueError,
            "sample_rate must be >= 1, got -8000",
        ),
        (
            lambda: VirtualSpeaker(VirtualClock()).play([0, 0]),  # type: ignore[arg-type]
            TypeError,
            "audio must be bytes of PCM16 samples, got list",
        ),
    ],
)
def test_a_bad_argument_is_refused_by_name_with_what_it_must_be(
    call: Callable[[], object], error_type: type[Exception], message: str
) -> None:
    with pytest.raises(error_type) as raised:
        call()
    assert str(raised.value) == message


async def test_using_a_session_or_a_synthesis_out_of_turn_says_what_to_do() -> None:
    stt = ScriptedSpeechToText(["a", "b"])
    session = stt.stream()
    session.close()
    with pytest.raises(RuntimeError) as raised:
        session.push_audio(b"")
    assert str(raised.value) == "push_audio() after close(): open a new session with stream()"

    other = stt.stream()
    reader = other.__aiter__()
    task = asyncio.create_task(reader.__anext__())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError) as raised:
        await other.__aiter__().__anext__()
    assert str(raised.value) == "a TranscriptionSession can be iterated only once at a time"
    other.close()
    await stt.clock.run()
    with pytest.raises(StopAsyncIteration):
        await task

    synthesis = ScriptedTextToSpeech(["a"]).synthesize("a")
    synthesis.__aiter__()
    with pytest.raises(RuntimeError) as raised:
        synthesis.__aiter__()
    assert str(raised.value) == "a Synthesis can be iterated only once"


# -- malformed steps ---------------------------------------------------------------------------

_TEXT_HINT = (
    "Fix: texts are str; partials are str or (str, offset_seconds) pairs; a tts_speech text "
    "may also be a function of the text that returns False to reject it."
)
_TIMING_HINT = "Fix: times are finite numbers of seconds >= 0; optional is a bool."
_ERROR_HINT = (
    "Fix: error is an exception instance; error_after, an int >= 0, needs an error to raise."
)
_AUDIO_HINT = (
    "Fix: chunks is a count >= 1 or a sequence of bytes holding whole PCM16 samples (an even "
    "number of bytes)."
)
_INPUT_HINT = (
    "Fix: build speech-to-text steps with stt_turn() or stt_end() (or give a str), "
    "text-to-speech steps with tts_speech() (or give a str)."
)


@pytest.mark.parametrize(
    ("step", "reason", "detail", "hint"),
    [
        (
            lambda: 42,
            "invalid_input",
            "a step is built by stt_turn() or stt_end(), got int",
            _INPUT_HINT,
        ),
        (
            lambda: stt_turn(),
            "invalid_outcome",
            "a turn has a final transcript or an error, got neither",
            "Fix: give a turn exactly one of final=... (the transcript) and error=... (an "
            "exception instance).",
        ),
        (
            lambda: stt_turn("a", error=ValueError()),
            "invalid_outcome",
            "a turn has a final transcript or an error, got both",
            "Fix: give a turn exactly one of final=... (the transcript) and error=... (an "
            "exception instance).",
        ),
        (
            lambda: stt_turn(error="boom"),  # type: ignore[arg-type]
            "invalid_error",
            "error must be an exception instance, got 'boom'",
            _ERROR_HINT,
        ),
        (
            lambda: stt_turn(b"hi"),  # type: ignore[arg-type]
            "invalid_text",
            "final must be a str, got bytes",
            _TEXT_HINT,
        ),
        (
            lambda: stt_turn("a", partials=5),  # type: ignore[arg-type]
            "invalid_text",
            "partials must be a sequence, got 5",
            _TEXT_HINT,
        ),
        (
            lambda: stt_turn("a", partials="abc" * 30),
            "invalid_text",
            "partials must be a sequence, got " + repr("abc" * 30)[:60],
            _TEXT_HINT,
        ),
        (
            lambda: stt_turn("a", partials=["ok", 3]),  # type: ignore[list-item]
            "invalid_text",
            "partial #2 must be a str or (str, offset_seconds), got 3",
            _TEXT_HINT,
        ),
        (
            lambda: stt_turn("a", partials=[("ok", 0.5, 1)]),  # type: ignore[list-item]
            "invalid_text",
            "partial #1 must be a str or (str, offset_seconds), got ('ok', 0.5, 1)",
            _TEXT_HINT,
        ),
        (
            lambda: stt_turn("a", partials=[(1, 0.5)]),  # type: ignore[list-item]
            "invalid_text",
            "partial #1 must be a str or (str, offset_seconds), got (1, 0.5)",
            _TEXT_HINT,
        ),
        (
            lambda: stt_turn("a", partials=[("x", -1.0)]),
            "invalid_timing",
            "a partial's offset must be finite and >= 0, got -1.0",
            _TIMING_HINT,
        ),
        (
            lambda: stt_turn("a", start="0"),  # type: ignore[arg-type]
            "invalid_timing",
            "start must be a number of seconds, got '0'",
            _TIMING_HINT,
        ),
        (
            lambda: stt_turn("a", duration=-1),
            "invalid_timing",
            "duration must be finite and >= 0, got -1",
            _TIMING_HINT,
        ),
        (
            lambda: stt_turn("a", latency=float("inf")),
            "invalid_timing",
            "latency must be finite and >= 0, got inf",
            _TIMING_HINT,
        ),
        (
            lambda: stt_turn("a", match="yes"),  # type: ignore[arg-type]
            "invalid_matcher",
            "match must be callable, got 'yes'",
            "Fix: match is a function of the turn's PCM16 audio that returns False to reject it.",
        ),
        (
            lambda: stt_turn("a", optional=1),  # type: ignore[arg-type]
            "invalid_timing",
            "optional must be a bool, got 1",
            _TIMING_HINT,
        ),
        (
            lambda: stt_end(at=-0.5),
            "invalid_timing",
            "at must be finite and >= 0, got -0.5",
            _TIMING_HINT,
        ),
        (
            lambda: stt_end(optional=None),  # type: ignore[arg-type]
            "invalid_timing",
            "optional must be a bool, got None",
            _TIMING_HINT,
        ),
    ],
)
def test_a_malformed_stt_step_says_where_what_and_how_to_fix_it(
    step: Callable[[], Any], reason: str, detail: str, hint: str
) -> None:
    # Each step is built in the test, not when the parameters are collected: building it is
    # part of what is tested (stt_turn() keeps a wrong partials value for the check to name).
    with pytest.raises(InvalidScriptedVoiceStepError) as raised:
        ScriptedSpeechToText(["fine", step()])
    error = raised.value
    assert (error.reason, error.service, error.input_index, error.detail) == (
        reason,
        "stt",
        1,
        detail,
    )
    assert str(error) == (
        f"ScriptedSpeechToText step #2 is invalid ({reason.replace('_', ' ')}). "
        f"Step #2 (input_index=1): {detail}. {hint}"
    )


@pytest.mark.parametrize(
    ("step", "reason", "detail", "hint"),
    [
        (lambda: 3, "invalid_input", "a step is built by tts_speech(), got int", _INPUT_HINT),
        (
            lambda: tts_speech(text=5),  # type: ignore[arg-type]
            "invalid_text",
            "text must be a str, a matcher or None, got 5",
            _TEXT_HINT,
        ),
        (
            lambda: tts_speech(duration=-1.0),
            "invalid_timing",
            "duration must be finite and >= 0, got -1.0",
            _TIMING_HINT,
        ),
        (
            lambda: tts_speech(first_byte=float("nan")),
            "invalid_timing",
            "first_byte must be finite and >= 0, got nan",
            _TIMING_HINT,
        ),
        (
            lambda: tts_speech(interval="1"),  # type: ignore[arg-type]
            "invalid_timing",
            "interval must be a number of seconds, got '1'",
            _TIMING_HINT,
        ),
        (lambda: tts_speech(chunks=0), "invalid_audio", "chunks must be >= 1, got 0", _AUDIO_HINT),
        (
            lambda: tts_speech(chunks=True),
            "invalid_audio",
            "chunks must be an int or a sequence of bytes, got True",
            _AUDIO_HINT,
        ),
        (
            lambda: tts_speech(chunks=1.5),  # type: ignore[arg-type]
            "invalid_audio",
            "chunks must be an int or a sequence of bytes, got 1.5",
            _AUDIO_HINT,
        ),
        (
            lambda: tts_speech(chunks=[b"\x00\x00", b"\x00"]),
            "invalid_audio",
            "chunk #2 must be bytes of whole PCM16 samples, got b'\\x00'",
            _AUDIO_HINT,
        ),
        (
            lambda: tts_speech(chunks=["text"]),  # type: ignore[list-item]
            "invalid_audio",
            "chunk #1 must be bytes of whole PCM16 samples, got 'text'",
            _AUDIO_HINT,
        ),
        (
            lambda: tts_speech(chunks=[b"\x01" * 41]),
            "invalid_audio",
            "chunk #1 must be bytes of whole PCM16 samples, got " + repr(b"\x01" * 41)[:60],
            _AUDIO_HINT,
        ),
        (
            lambda: tts_speech(error="boom"),  # type: ignore[arg-type]
            "invalid_error",
            "error must be an exception instance, got 'boom'",
            _ERROR_HINT,
        ),
        (
            lambda: tts_speech(error_after=1),
            "invalid_error",
            "error_after is set but error is not",
            _ERROR_HINT,
        ),
        (
            lambda: tts_speech(error=ValueError(), error_after=-1),
            "invalid_error",
            "error_after must be an int >= 0, got -1",
            _ERROR_HINT,
        ),
        (
            lambda: tts_speech(error=ValueError(), error_after=True),
            "invalid_error",
            "error_after must be an int >= 0, got True",
            _ERROR_HINT,
        ),
        (
            lambda: tts_speech(error=ValueError(), error_after=1.0),  # type: ignore[arg-type]
            "invalid_error",
            "error_after must be an int >= 0, got 1.0",
            _ERROR_HINT,
        ),
        (
            lambda: tts_speech(optional="yes"),  # type: ignore[arg-type]
            "invalid_timing",
            "optional must be a bool, got 'yes'",
            _TIMING_HINT,
        ),
    ],
)
def test_a_malformed_tts_step_says_where_what_and_how_to_fix_it(
    step: Callable[[], Any], reason: str, detail: str, hint: str
) -> None:
    with pytest.raises(InvalidScriptedVoiceStepError) as raised:
        ScriptedTextToSpeech(["fine", step()])
    error = raised.value
    assert (error.reason, error.service, error.input_index, error.detail) == (
        reason,
        "tts",
        1,
        detail,
    )
    assert str(error) == (
        f"ScriptedTextToSpeech step #2 is invalid ({reason.replace('_', ' ')}). "
        f"Step #2 (input_index=1): {detail}. {hint}"
    )


def test_a_malformed_step_enqueued_later_is_numbered_after_the_steps_before_it() -> None:
    stt = ScriptedSpeechToText(["a"])
    stt.enqueue("b")
    with pytest.raises(InvalidScriptedVoiceStepError) as raised:
        stt.enqueue("c", 7)  # type: ignore[arg-type]
    assert raised.value.input_index == 3
    assert stt.remaining_steps == 2  # all of them, or none
    tts = ScriptedTextToSpeech(["a"])
    tts.enqueue("b")
    with pytest.raises(InvalidScriptedVoiceStepError) as raised:
        tts.enqueue("c", 7)  # type: ignore[arg-type]
    assert raised.value.input_index == 3
    assert tts.remaining_steps == 2


# -- calls the script refuses ------------------------------------------------------------------


async def test_an_unexpected_stream_says_no_step_is_left_and_how_to_add_one() -> None:
    stt = ScriptedSpeechToText()
    with pytest.raises(UnexpectedVoiceCallError) as raised:
        stt.stream()
    error = raised.value
    assert (
        error.service,
        error.call_index,
        error.method,
        error.expected,
        error.step_index,
        error.call_summary,
    ) == ("stt", 0, "stream", None, None, None)
    assert str(error) == (
        "ScriptedSpeechToText received unexpected stream call #1; no scripted step is left for "
        "it. Call #1 (call_index=0). Add a step for it at the end of the script "
        '(stt_turn("what the user said", ...) or stt_end()), or find why the code under test '
        "made this call."
    )
    assert stt.calls[0].error is error


async def test_a_one_shot_transcription_of_an_end_step_says_to_script_a_turn() -> None:
    stt = ScriptedSpeechToText(["first", stt_end()], clock=VirtualClock(auto_advance=True))
    await stt.transcribe(b"")
    with pytest.raises(UnexpectedVoiceCallError) as raised:
        await stt.transcribe(b"\x00\x00" * 3)
    error = raised.value
    assert (
        error.service,
        error.call_index,
        error.method,
        error.expected,
        error.step_index,
        error.call_summary,
    ) == ("stt", 1, "transcribe", "stt_end() (the end of a stream)", 1, "6 bytes of audio")
    assert str(error) == (
        "ScriptedSpeechToText received unexpected transcribe call #2; expected step #2 "
        "(step_index=1) stt_end() (the end of a stream). Call #2 (call_index=1) sent: 6 bytes "
        "of audio. A one-shot transcription cannot take an end-of-stream step: script a turn "
        "before it, or find why the code under test transcribed instead of streaming."
    )
    assert stt.calls[1].error is error
    assert stt.remaining_steps == 1  # the end step stays for a stream
    with pytest.raises(UnexpectedVoiceCallError) as again:
        stt.assert_complete()
    assert str(again.value) == str(error)


async def test_a_turn_rejecting_its_audio_says_which_step_and_call() -> None:
    stt = ScriptedSpeechToText(
        ["a", stt_turn("b", match=lambda audio: False)], clock=VirtualClock(auto_advance=True)
    )
    await stt.transcribe(b"")
    with pytest.raises(VoiceCallMatcherError) as raised:
        await stt.transcribe(b"\x00\x00" * 4)
    error = raised.value
    assert (
        error.service,
        error.call_index,
        error.method,
        error.step_index,
        error.expected,
        error.call_summary,
    ) == ("stt", 1, "transcribe", 1, None, "8 bytes of audio")
    assert str(error) == (
        "ScriptedSpeechToText step #2 (step_index=1) rejected transcribe call #2. Call #2 "
        "(call_index=1) sent: 8 bytes of audio. Fix the step's text or match function, or the "
        "code under test that made the call."
    )


def test_an_unexpected_synthesis_says_no_step_is_left_and_shows_the_text() -> None:
    tts = ScriptedTextToSpeech()
    with pytest.raises(UnexpectedVoiceCallError) as raised:
        tts.synthesize("hello " * 20)
    error = raised.value
    shown = "'" + ("hello " * 10)[:59] + "…'"
    assert (
        error.service,
        error.call_index,
        error.method,
        error.expected,
        error.step_index,
        error.call_summary,
    ) == ("tts", 0, "synthesize", None, None, shown)
    assert str(error) == (
        "ScriptedTextToSpeech received unexpected synthesize call #1; no scripted step is left "
        f"for it. Call #1 (call_index=0) sent: {shown}. Add a step for it at the end of the "
        'script (tts_speech("the text it speaks", ...)), or find why the code under test made '
        "this call."
    )
    assert tts.calls[0].error is error
    assert tts.texts == ("hello " * 20,)


def test_a_synthesis_of_other_text_says_what_the_step_expects() -> None:
    tts = ScriptedTextToSpeech(["a", tts_speech(str.isupper, error=KeyError("k"))])
    tts.synthesize("a")
    with pytest.raises(VoiceCallMatcherError) as raised:
        tts.synthesize("lower")
    error = raised.value
    assert (
        error.service,
        error.call_index,
        error.method,
        error.step_index,
        error.expected,
        error.call_summary,
    ) == ("tts", 1, "synthesize", 1, "text accepted by a matcher -> KeyError", "'lower'")
    assert str(error) == (
        "ScriptedTextToSpeech step #2 (step_index=1) rejected synthesize call #2 (it expects "
        "text accepted by a matcher -> KeyError). Call #2 (call_index=1) sent: 'lower'. Fix "
        "the step's text or match function, or the code under test that made the call."
    )
    assert tts.calls[1].error is error
    assert tts.remaining_steps == 1


# -- steps left unused -------------------------------------------------------------------------

_UNUSED_FIX = (
    "Remove the steps the conversation does not need (or pass optional=True to one that may "
    "go unused); if they should have run, find why the pipeline stopped calling the service "
    "(was the clock advanced far enough, was the session closed early?)."
)


def test_unused_stt_steps_are_each_summarized() -> None:
    stt = ScriptedSpeechToText(
        [
            "hello",
            stt_turn(error=ConnectionError("x")),
            stt_end(at=0.5),
            stt_turn("maybe", optional=True),
        ]
    )
    with pytest.raises(UnconsumedVoiceStepsError) as raised:
        stt.assert_complete()
    error = raised.value
    assert (error.service, error.remaining_steps) == ("stt", 4)
    assert error.pending_steps == (
        {"step_index": 0, "kind": "turn", "summary": "'hello'"},
        {"step_index": 1, "kind": "turn", "summary": "failing with ConnectionError"},
        {"step_index": 2, "kind": "end", "summary": "at +0.5s"},
        {"step_index": 3, "kind": "turn", "summary": "'maybe'"},
    )
    assert str(error) == (
        "ScriptedSpeechToText has 4 unconsumed scripted steps. Pending: step #1 (step_index=0) "
        "turn: 'hello'; step #2 (step_index=1) turn: failing with ConnectionError; step #3 "
        "(step_index=2) end: at +0.5s; step #4 (step_index=3) turn: 'maybe'. " + _UNUSED_FIX
    )


def test_unused_tts_steps_are_each_summarized() -> None:
    tts = ScriptedTextToSpeech(
        [
            "hello",
            tts_speech(None, duration=2.5),
            tts_speech(str.isupper, error=ValueError()),
            tts_speech("x" * 70, error=KeyError(), error_after=2, optional=True),
            tts_speech(error=OSError(), error_after=0),
        ]
    )
    with pytest.raises(UnconsumedVoiceStepsError) as raised:
        tts.assert_complete()
    error = raised.value
    long_text = "'" + "x" * 59 + "…'"
    assert (error.service, error.remaining_steps) == ("tts", 5)
    assert error.pending_steps == (
        {"step_index": 0, "kind": "speech", "summary": "text 'hello' -> 1s of audio"},
        {"step_index": 1, "kind": "speech", "summary": "any text -> 2.5s of audio"},
        {"step_index": 2, "kind": "speech", "summary": "text accepted by a matcher -> ValueError"},
        {
            "step_index": 3,
            "kind": "speech",
            "summary": f"text {long_text} -> 2 of its chunks, then KeyError",
        },
        {"step_index": 4, "kind": "speech", "summary": "any text -> OSError"},
    )
    assert str(error) == (
        "ScriptedTextToSpeech has 5 unconsumed scripted steps. Pending: step #1 (step_index=0) "
        "speech: text 'hello' -> 1s of audio; step #2 (step_index=1) speech: any text -> 2.5s "
        "of audio; step #3 (step_index=2) speech: text accepted by a matcher -> ValueError; "
        f"step #4 (step_index=3) speech: text {long_text} -> 2 of its chunks, then KeyError; "
        "step #5 (step_index=4) speech: any text -> OSError. " + _UNUSED_FIX
    )


def test_a_text_of_sixty_characters_is_shown_whole() -> None:
    assert tts_speech("y" * 60).summary() == f"text {'y' * 60!r} -> 1s of audio"
    assert tts_speech("y" * 61).summary() == f"text {'y' * 59 + '…'!r} -> 1s of audio"


def test_only_optional_steps_left_is_complete() -> None:
    ScriptedSpeechToText([stt_turn("a", optional=True), stt_end(optional=True)]).assert_complete()
    ScriptedTextToSpeech([tts_speech("a", optional=True)]).assert_complete()


# -- what the doubles show of themselves -------------------------------------------------------


async def test_the_doubles_show_their_state_in_their_repr() -> None:
    clock = VirtualClock(start=1.5)
    timer = clock.call_later(0.25, print)
    assert repr(timer) == "<VirtualTimer when=1.75>"
    assert repr(clock) == "<VirtualClock now=1.5 pending=1>"
    timer.cancel()
    assert repr(timer) == "<VirtualTimer when=1.75 cancelled>"
    assert repr(clock) == "<VirtualClock now=1.5 pending=0>"
    assert repr(VirtualClock(auto_advance=True)) == "<VirtualClock now=0 pending=0 auto_advance>"

    voice = ScriptedVoice(stt=["a", "b"], tts=["c"])
    voice.tts.synthesize("c")
    assert repr(voice) == (
        "<ScriptedVoice now=0 stt=<ScriptedSpeechToText calls=0 remaining_steps=2> "
        "tts=<ScriptedTextToSpeech calls=1 remaining_steps=0>>"
    )
