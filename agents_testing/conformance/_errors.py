"""The one error every conformance check raises."""

from __future__ import annotations

from typing import Any

__all__ = ["ConformanceError"]


def _rebuild(fields: dict[str, str]) -> ConformanceError:
    return ConformanceError(**fields)


class ConformanceError(AssertionError):
    """An adapter broke a conformance check: which check, what it expected, what happened.

    ``check`` is the check function's name (with the case, for a check that tries several),
    ``expected`` and ``actual`` describe the behavior, and ``fix`` says how adapters usually
    fix it. An error the harness raised on the way is the ``__cause__``.
    """

    def __init__(self, check: str, expected: str, actual: str, fix: str) -> None:
        self.check = check
        self.expected = expected
        self.actual = actual
        self.fix = fix
        super().__init__(
            f"{check} failed: expected {expected.rstrip('.')}; got {actual.rstrip('.')}. {fix}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        fields = {
            "check": self.check,
            "expected": self.expected,
            "actual": self.actual,
            "fix": self.fix,
        }
        return (_rebuild, (fields,), self.__dict__.copy())
