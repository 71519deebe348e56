"""Run the asyncio event loop's own time on a core ``VirtualClock``.

Voice frameworks schedule their own waits on the event loop (``loop.call_later``,
``asyncio.sleep``, ``asyncio.wait_for``): LiveKit paces audio and ends turns that way, Pipecat
times out its frame handshakes. A virtual clock that jumps ahead whenever the loop looks idle
would overtake those waits, so a framework would see its speech arrive "late" and behave
differently from run to run. While :func:`loop_on_clock` is active, the running loop reads
its time from the clock and one driver moves the clock: when nothing is ready to run, to the
earliest of the clock's next deadline and the loop's next timer. Everything then happens at
its virtual instant, in the same order on every run, and no wall-clock time is waited.

It relies on CPython's ``asyncio.BaseEventLoop`` (its ``time()`` method and its heap of
scheduled timers), not on uvloop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import Any

from ..voice import VirtualClock, _settle  # pyright: ignore[reportPrivateUsage]

__all__ = ["loop_on_clock"]


@contextlib.asynccontextmanager
async def loop_on_clock(clock: VirtualClock) -> AsyncGenerator[VirtualClock]:
    """Make the running loop's time ``clock``'s time, and move the clock when the loop idles.

    The clock must not advance itself (``auto_advance=False``): this driver is the one that
    knows about the loop's timers too. The test still waits with ``clock.sleep_until(...)``
    or advances it by hand.
    """
    if not isinstance(clock, VirtualClock):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"loop_on_clock expects a VirtualClock, got {type(clock).__name__}.")
    if clock.auto_advance:
        raise ValueError(
            "loop_on_clock needs a clock that does not advance itself: build it with "
            "auto_advance=False (ScriptedVoice(..., auto_advance=False)); the loop's driver "
            "moves it, in step with the framework's own timers."
        )
    loop = asyncio.get_running_loop()
    scheduled: list[Any] | None = getattr(loop, "_scheduled", None)
    if scheduled is None or "time" in vars(loop):
        raise RuntimeError(
            "loop_on_clock needs a plain asyncio event loop (not uvloop) that no other "
            "loop_on_clock is driving."
        )
    # Keep the loop's time continuous: timers scheduled before stay in order.
    offset = loop.time() - clock.now
    loop.time = lambda: offset + clock.now  # type: ignore[method-assign]
    driver = loop.create_task(_drive(clock, loop, scheduled, offset))
    try:
        yield clock
    finally:
        driver.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await driver
        del loop.time


async def _drive(
    clock: VirtualClock, loop: asyncio.AbstractEventLoop, scheduled: list[Any], offset: float
) -> None:
    ready: Any = getattr(loop, "_ready", None)
    while True:
        # Let the tasks woken at one instant hand their data along before time moves on.
        await _settle()
        if ready is not None and len(ready) > 1:
            continue  # something besides this driver is still running: let it
        deadlines: list[float] = []
        timers = [timer for timer in scheduled if not timer.cancelled()]
        if timers:
            deadlines.append(min(timer.when() for timer in timers) - offset)
        if clock.next_deadline is not None:
            deadlines.append(clock.next_deadline)
        if not deadlines:
            # Nothing will ever happen without an outside event: wait for one.
            await asyncio.sleep(0)
            continue
        target = max(min(deadlines), clock.now)
        await clock.advance_to(target)
