"""Snapshots that reuse the unchanged parts of an earlier snapshot.

Consecutive model calls of one run send almost the same input: the conversation so far plus a
few new items. Copying the whole input on every call makes recording memory quadratic in the
length of a run. :func:`snapshot_sharing` copies a value the way :func:`snapshot` does, except
that a container which still matches, exactly, the part of the previous snapshot at the same
place is not copied again: the new snapshot points at the old one's part instead.

"Matches exactly" is stricter than ``==``: the same types all the way down (``1``, ``1.0`` and
``True`` differ, as do ``0.0`` and ``-0.0``), the same dict key order, the same objects where a
snapshot keeps objects by identity, and no shared reference or cycle inside the matched part.
A caller that mutated an item in place therefore gets a fresh copy of it, and the earlier
snapshot keeps the old value. Stored snapshots are never handed out (reads copy them), so
sharing them between records is safe.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable
from itertools import chain, compress, repeat
from typing import Any, TypeVar

from ._snapshot import _ATOMIC, _CONTAINERS, _copy  # pyright: ignore[reportPrivateUsage]

__all__ = ["snapshot_sharing"]

T = TypeVar("T")

# Immutable values that equal (with the same exact type) only values indistinguishable from
# them. Other atomic kinds (floats aside) match only the very same object.
_BY_VALUE: frozenset[type] = frozenset({str, int, bool, bytes, type(None)})
_PLAIN: frozenset[type] = frozenset({dict, list, tuple})
# What match() compares by value or looks into; anything else matches only itself.
_COMPARED: frozenset[type] = _BY_VALUE | _CONTAINERS | {float}
_MISSING: Any = object()
_values: Callable[[dict[Any, Any]], Iterable[Any]] = dict.values  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
# Below this many items, a run that failed to match in bulk is walked item by item.
_SMALLEST_RUN = 8


def snapshot_sharing(value: T, previous: object) -> T:
    """Return a detached snapshot of ``value`` that reuses the parts of ``previous`` it matches.

    ``previous`` must be a snapshot this module or :func:`snapshot` made and nobody mutates.
    """
    kind: Any = type(value)
    if kind in _ATOMIC or kind not in _CONTAINERS:
        return value
    if kind in _PLAIN and type(previous) is kind and not value and not previous:
        return previous  # type: ignore[return-value]  # empty settings, tools, handoffs
    return _Sharing().share(value, previous)  # type: ignore[no-any-return]


class _Sharing:
    """The bookkeeping of one snapshot.

    ``memo`` maps the id of each caller container already handled to its snapshot: an old
    part reused, or a fresh copy (it is the memo of :func:`snapshot`'s copy, so shared
    references stay shared). ``claimed`` holds the ids of old parts already reused, so two
    distinct caller objects never end up as one old part.

    A match only queues its pairs in ``pending`` (with the ids of its caller containers);
    :meth:`settle` moves them into ``memo`` and ``claimed`` when something needs them. The
    common snapshot, one matched run of the conversation and a few new items that refer to
    none of it, never does: filling both for thousands of items would cost more than the match.
    """

    __slots__ = ("claimed", "memo", "pending")

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}
        self.claimed: set[int] = set()
        self.pending: list[tuple[list[Any], list[Any], set[int]]] = []

    def settle(self) -> None:
        """Record every queued match in ``memo`` and ``claimed``."""
        for new_parts, old_parts, _ in self.pending:
            self.memo.update(zip(map(id, new_parts), old_parts, strict=True))
            self.claimed.update(map(id, old_parts))
        self.pending.clear()

    def copy(self, value: Any) -> Any:
        """Copy ``value`` with the memo, settling queued matches first if it reaches them."""
        if self.pending and _reaches(value, [seen for *_, seen in self.pending]):
            self.settle()
        return _copy(value, self.memo)

    def share(self, new: Any, old: Any) -> Any:
        """Snapshot ``new``, reusing ``old`` or the parts of it that still match."""
        kind: Any = type(new)  # pyright: ignore[reportUnknownVariableType]
        if kind in _ATOMIC or kind not in _CONTAINERS:
            return new
        if self.pending:
            self.settle()
        found = self.memo.get(id(new), _MISSING)
        if found is not _MISSING:
            return found
        if kind is list and _COMPARED.isdisjoint(map(type, new)) and not _same_objects(new, old):
            # Only objects kept by identity, not all the same as before (tools built anew for
            # every call): nothing can match, so copy it without comparing.
            new_list: list[Any] = list(new)
            self.memo[id(new)] = new_list
            return new_list
        # A list of another length (a growing conversation) cannot match as a whole.
        if not (kind is list and _resized(new, old)) and self.match([new], [old]):
            return old
        if kind is dict and type(old) is dict:
            # The dict changed, but most of its values may not have: share those.
            new_dict: dict[Any, Any] = {}
            self.memo[id(new)] = new_dict
            old_dict: dict[Any, Any] = old  # pyright: ignore[reportUnknownVariableType]
            for key, item in new.items():
                old_item = old_dict.get(key, _MISSING)
                if old_item is _MISSING:
                    new_dict[key] = self.copy(item)
                else:
                    new_dict[key] = self.share(item, old_item)
            return new_dict
        if kind is list and type(old) is list:
            # A growing conversation: the items the two lists have in common, position by
            # position, are matched as one run; the rest is new.
            new_list = []
            self.memo[id(new)] = new_list
            old_list: list[Any] = old  # pyright: ignore[reportUnknownVariableType]
            known = min(len(new), len(old_list))
            new_list.extend(self._share_run(new[:known], old_list[:known]))
            new_list.extend([self.copy(item) for item in new[known:]])
            return new_list
        return self.copy(new)

    def _share_run(self, news: list[Any], olds: list[Any]) -> list[Any]:
        """Snapshot ``news`` position by position against ``olds``, in bulk where possible."""
        if self.match(news, olds):
            return olds
        if len(news) <= _SMALLEST_RUN:
            return [self.share(new, old) for new, old in zip(news, olds, strict=True)]
        # Something in this run changed: halve it, so the unchanged halves still match in bulk.
        middle = len(news) // 2
        return self._share_run(news[:middle], olds[:middle]) + self._share_run(
            news[middle:], olds[middle:]
        )

    def match(self, news: list[Any], olds: list[Any]) -> bool:
        """Return whether each of ``news`` matches exactly the ``olds`` at the same position.

        The comparison runs one nesting level at a time over all the values of that level
        together, with builtins (``map``, ``==`` on lists of atoms, ``chain``), so its cost per
        item is close to C speed. On a match, the container pairs are queued for ``memo`` and
        ``claimed`` (see :meth:`settle`); on a mismatch nothing is recorded.
        """
        new_parts: list[Any] = []  # containers matched, level after level
        old_parts: list[Any] = []
        seen: set[int] = set()  # ids of new_parts: a container met twice is shared or a cycle
        while news:
            if all(map(operator.is_, news, olds)):
                # The very objects the old snapshot kept: atoms, instances or tuples kept by
                # identity (a snapshot never keeps a dict or list of the caller's).
                break
            kinds = list(map(type, news))
            if kinds != list(map(type, olds)):
                return False
            distinct_kinds = set(kinds)
            if distinct_kinds <= _BY_VALUE:
                if news != olds:
                    return False
                break
            if not distinct_kinds.isdisjoint(_BY_VALUE):
                simple = list(map(_BY_VALUE.__contains__, kinds))
                if list(compress(news, simple)) != list(compress(olds, simple)):
                    return False
                others = list(map(operator.not_, simple))
                news, olds = list(compress(news, others)), list(compress(olds, others))
                kinds = list(compress(kinds, others))
                distinct_kinds -= _BY_VALUE
            next_news: list[Any] = []
            next_olds: list[Any] = []
            for kind in distinct_kinds:
                if len(distinct_kinds) == 1:
                    these, those = news, olds
                else:
                    mask = list(map(operator.is_, kinds, repeat(kind)))
                    these, those = list(compress(news, mask)), list(compress(olds, mask))
                if kind is float:
                    if not _same_floats(these, those):
                        return False
                elif kind is dict:
                    if list(map(len, these)) != list(map(len, those)):
                        return False
                    if not _record(these, those, seen, new_parts, old_parts):
                        return False
                    if all(
                        map(operator.is_, chain.from_iterable(these), chain.from_iterable(those))
                    ):
                        if all(
                            map(
                                operator.is_,
                                chain.from_iterable(map(_values, these)),
                                chain.from_iterable(map(_values, those)),
                            )
                        ):
                            continue  # the same keys and values: nothing below can differ
                    elif not _same_keys(
                        list(chain.from_iterable(these)), list(chain.from_iterable(those))
                    ):
                        return False
                    next_news.extend(chain.from_iterable(map(_values, these)))
                    next_olds.extend(chain.from_iterable(map(_values, those)))
                elif kind is list or kind is tuple:
                    if kind is tuple:
                        # A tuple a snapshot kept by identity holds nothing that can change.
                        copied = list(map(operator.is_not, these, those))
                        these, those = list(compress(these, copied)), list(compress(those, copied))
                    if list(map(len, these)) != list(map(len, those)):
                        return False
                    if not _record(these, those, seen, new_parts, old_parts):
                        return False
                    next_news.extend(chain.from_iterable(these))
                    next_olds.extend(chain.from_iterable(those))
                elif kind is bytearray:
                    if these != those or not _record(these, those, seen, new_parts, old_parts):
                        return False
                elif kind in _CONTAINERS:
                    return False  # sets and memoryviews are rare: copy them rather than compare
                elif not all(map(operator.is_, these, those)):
                    return False  # kept by identity: class instances, callables, frozensets
            news, olds = next_news, next_olds
        # An old part shared inside the old snapshot, or a part already handled, needs the
        # exact bookkeeping of a copy: leave such values to it.
        if len(set(map(id, old_parts))) != len(old_parts):
            return False
        if self.pending:
            self.settle()
        if self.memo and (
            not self.memo.keys().isdisjoint(seen) or not self.claimed.isdisjoint(map(id, old_parts))
        ):
            return False
        if new_parts:  # a match by identity alone has nothing to record
            self.pending.append((new_parts, old_parts, seen))
        return True


def _resized(new: list[Any], old: object) -> bool:
    """Return whether ``old`` is a list of another length than ``new``."""
    if type(old) is not list:
        return False
    olds: list[Any] = old  # pyright: ignore[reportUnknownVariableType]
    return len(olds) != len(new)


def _same_objects(new: list[Any], old: object) -> bool:
    """Return whether ``old`` is a list of the very objects ``new`` holds."""
    if type(old) is not list:
        return False
    olds: list[Any] = old  # pyright: ignore[reportUnknownVariableType]
    return len(olds) == len(new) and all(map(operator.is_, new, olds))


def _same_keys(keys: list[Any], old_keys: list[Any]) -> bool:
    # The same keys in the same order and of the same types (True and 1 are equal keys);
    # keys other than strings and numbers must be the very same objects.
    if keys != old_keys:
        return False
    kinds = list(map(type, keys))
    if kinds != list(map(type, old_keys)):
        return False
    return _BY_VALUE.issuperset(kinds) or all(map(operator.is_, keys, old_keys))


def _record(
    these: list[Any], those: list[Any], seen: set[int], new_parts: list[Any], old_parts: list[Any]
) -> bool:
    """Add matched containers to the parts; return False if one was already met."""
    before = len(seen)
    seen.update(map(id, these))
    if len(seen) - before != len(these):
        return False  # the same container twice: a shared reference or a cycle
    new_parts.extend(these)
    old_parts.extend(those)
    return True


def _same_floats(these: list[float], those: list[float]) -> bool:
    # 0.0 and -0.0 are equal but distinguishable; a NaN only equals itself (the same object
    # kept by the earlier snapshot), through the identity check of list equality.
    return these == those and list(map(math.copysign, repeat(1.0), these)) == list(
        map(math.copysign, repeat(1.0), those)
    )


def _reaches(value: Any, id_sets: list[set[int]]) -> bool:
    """Return whether ``value`` is, or holds, a container whose id is in one of ``id_sets``."""
    stack = [value]
    visited: set[int] = set()
    while stack:
        current = stack.pop()
        kind: Any = type(current)  # pyright: ignore[reportUnknownVariableType]
        if kind in _ATOMIC or kind not in _CONTAINERS or id(current) in visited:
            continue
        if any(id(current) in ids for ids in id_sets):
            return True
        visited.add(id(current))
        if kind is dict:
            stack.extend(current.values())
        elif kind is list or kind is tuple:
            stack.extend(current)
        elif kind is memoryview:
            stack.append(current.obj)  # a copied view goes through the memo for its bytearray
    return False
