"""The abort-signal rule the doubles share (SPEC §1)."""

from __future__ import annotations

from typing import Protocol, TypeAlias

__all__ = ["AbortSignal", "is_aborted"]


class _SupportsAborted(Protocol):
    @property
    def aborted(self) -> object: ...


class _SupportsIsSet(Protocol):
    def is_set(self) -> bool: ...


AbortSignal: TypeAlias = _SupportsAborted | _SupportsIsSet
"""An object with a truthy ``aborted`` attribute once aborted, or ``is_set()`` returning True
(``threading.Event``, ``asyncio.Event``)."""


def is_aborted(signal: object) -> bool:
    """Return whether ``signal`` (which may be ``None``) says the work was aborted."""
    if signal is None:
        return False
    if getattr(signal, "aborted", False):
        return True
    is_set = getattr(signal, "is_set", None)
    return callable(is_set) and bool(is_set())
