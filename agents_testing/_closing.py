"""Closing a stream's source without losing the error that ended the stream."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable

__all__ = ["close_source", "in_flight"]


def in_flight(error: BaseException) -> BaseException | None:
    """Return the error a source close must not replace; None for a consumer's plain close."""
    # GeneratorExit only means the consumer stopped reading: a close error is then the one
    # failure to report. Any other error (the source's, an abort, a cancellation) wins.
    return None if isinstance(error, GeneratorExit) else error


async def close_source(close: Callable[[], object] | None, failure: BaseException | None) -> None:
    """Close a stream source; while ``failure`` propagates, attach a close error to it instead."""
    if close is None:
        return
    if failure is None:
        result = close()
        if inspect.isawaitable(result):
            await result
        return
    try:
        result = close()
        if inspect.isawaitable(result):
            await result
    except BaseException as close_error:
        # The reference lets the source's own error pass up unchanged; the close error stays
        # visible as a note on it rather than replacing it.
        _add_note(failure, f"closing the stream source also failed: {close_error!r}")


def _add_note(error: BaseException, note: str) -> None:
    if sys.version_info >= (3, 11):
        error.add_note(note)
    else:
        notes: list[str] = list(getattr(error, "__notes__", ()))
        notes.append(note)
        error.__notes__ = notes  # type: ignore[attr-defined]
