"""Recorded-call dataclasses whose data fields are detached on every read.

The doubles build one record per call, when the call is made, and hand that same record out
on every read. A record is a frozen dataclass; its data fields (requests, arguments, payloads)
keep the recorded snapshot privately and return a fresh detached copy each time they are
read, so a caller may mutate what it reads without changing the record. Reading ``calls``
therefore copies nothing, and only the fields a test actually reads are copied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ._snapshot import snapshot

__all__ = ["detach_on_read", "stored_value"]

Detach = Callable[[Any, Any], Any]
"""``detach(record, stored) -> copy``: how a field's stored value is copied for one read."""


def _snapshot_field(record: object, stored: Any) -> Any:
    return snapshot(stored)


class _DetachedField:
    """A data descriptor for one dataclass field: stores the value, returns a copy on read."""

    __slots__ = ("_detach", "_name")

    def __init__(self, name: str, detach: Detach) -> None:
        self._name = name
        self._detach = detach

    def __get__(self, record: object, owner: type[Any] | None = None) -> Any:
        if record is None:
            # On the class itself there is no value: behave like a field without a default.
            raise AttributeError(self._name)
        return self._detach(record, record.__dict__[self._name])

    def __set__(self, record: object, value: Any) -> None:
        # Only the dataclass __init__ (through object.__setattr__) and unpickling get here:
        # the frozen dataclass's own __setattr__ refuses assignment before this runs.
        record.__dict__[self._name] = value

    def __delete__(self, record: object) -> None:
        raise AttributeError(f"cannot delete field {self._name!r}")


def detach_on_read(cls: type[Any], names: Iterable[str], detach: Detach = _snapshot_field) -> None:
    """Make the named fields of the frozen dataclass ``cls`` return a fresh copy on each read.

    The stored value lives in the instance ``__dict__`` under the field's own name, so
    ``copy``, ``deepcopy`` and ``pickle`` carry it as they carry any dataclass field.
    """
    for name in names:
        setattr(cls, name, _DetachedField(name, detach))


def stored_value(record: object, name: str) -> Any:
    """Return the value a record stores for a detached field, without copying it."""
    return record.__dict__[name]
