"""Context-manager support shared by the doubles: check completion when a block ends."""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

_Double = TypeVar("_Double", bound="CompletionContext")


class CompletionContext:
    """Mixin: ``with`` / ``async with`` a double calls ``assert_complete()`` on a clean exit.

    When the block raised, the exit stays silent: the block's own error is what the test
    must report, and an incomplete script is an expected consequence of it.
    """

    __slots__ = ()

    def assert_complete(self) -> None:
        raise NotImplementedError  # pragma: no cover - every double defines it

    def __enter__(self: _Double) -> _Double:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.assert_complete()

    async def __aenter__(self: _Double) -> _Double:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.assert_complete()
