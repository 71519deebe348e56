"""Detached structural snapshots of recorded data.

A snapshot copies the mutable data containers (``dict``, ``list``, ``tuple``, ``set``,
``bytearray`` and ``memoryview`` data) and keeps every other object by identity, so runtime
objects (signals, callables, class instances, exceptions, futures) stay the very objects the
caller passed. A memo keeps shared references and cycles shared inside one snapshot.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import operator
from typing import Any, TypeVar

__all__ = ["instance_copy", "snapshot"]

T = TypeVar("T")

# Types that hold no mutable state reachable from the container: returned as they are without
# touching the memo. Checked by exact type so subclasses (which may carry state) go through the
# slower path below.
_ATOMIC: frozenset[type] = frozenset(
    {str, int, float, bool, type(None), bytes, complex, range, frozenset, type(Ellipsis)}
)
_CONTAINERS: frozenset[type] = frozenset({dict, list, tuple, set, bytearray, memoryview})


def snapshot(value: T, name: str = "value") -> T:
    """Return a detached structural copy of ``value``.

    Raises ``ValueError`` naming the path under ``name`` if the data is nested too deeply to
    copy within Python's recursion limit.
    """
    kind: Any = type(value)
    if kind not in _CONTAINERS:  # atoms, and objects kept by identity
        return value
    # The doubles record argument tuples and keyword dicts on every call, and most hold only
    # atoms: a tuple of atoms is kept and a dict of atoms copied flat, as _copy would, in C.
    data: Any = value
    if kind is tuple and _ATOMIC.issuperset(map(type, data)):
        return value
    if kind is dict and _ATOMIC.issuperset(map(type, data.values())):
        return data.copy()  # type: ignore[no-any-return]
    try:
        return _copy(value, {})  # type: ignore[no-any-return]
    except RecursionError:
        error = _too_deep(value, name)
        if error is None:
            raise  # the caller's own stack was already nearly exhausted
        raise error from None


def instance_copy(value: T) -> tuple[T, bool]:
    """Return a deep copy of an object a snapshot keeps by identity, and whether it is a copy.

    For the arguments a double records as sent rather than by identity (a sandbox manifest).
    Atoms and containers come back as they are (``snapshot`` copies containers); an object
    whose deep copy fails (one holding a lock, an open file or a socket) comes back as the
    very same object, so recording it never fails.
    """
    kind: Any = type(value)
    if kind in _ATOMIC or kind in _CONTAINERS:
        return value, False
    try:
        copied = copy.deepcopy(value)
    except Exception:  # whatever the object's own __deepcopy__ or __reduce__ raised
        return value, False
    return copied, copied is not value


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    kind: Any = type(value)  # pyright: ignore[reportUnknownVariableType]
    if kind not in _CONTAINERS:  # atoms, and objects kept by identity
        return value
    key = id(value)
    found = memo.get(key, memo)
    if found is not memo:
        return found
    # Values that are not containers (atoms, and objects kept by identity, such as the
    # messages a framework sends) are the common case: test them inline instead of recursing.
    if kind is dict:
        new_dict: dict[Any, Any] = {}
        memo[key] = new_dict
        for k, v in value.items():
            new_dict[k] = v if type(v) not in _CONTAINERS else _copy(v, memo)
        return new_dict
    if kind is list:
        new_list: list[Any] = []
        memo[key] = new_list
        new_list.extend([v if type(v) not in _CONTAINERS else _copy(v, memo) for v in value])
        return new_list
    if kind is tuple:
        items = [_copy(item, memo) for item in value]
        # A tuple cannot hold itself until it exists; a cycle through a tuple resolves to the
        # copy made further down, so look again before building ours.
        found = memo.get(key, memo)
        if found is not memo:
            return found
        if all(map(operator.is_, items, value)):
            new_tuple: tuple[Any, ...] = value
        else:
            new_tuple = tuple(items)
        memo[key] = new_tuple
        return new_tuple
    if kind is set:
        # Set members are hashable, so they hold no mutable container worth copying.
        new_set = set(value)
        memo[key] = new_set
        return new_set
    if kind is bytearray:
        new_bytes = bytearray(value)
        memo[key] = new_bytes
        return new_bytes
    view: memoryview = value
    if type(view.obj) is bytearray:
        # The viewed bytearray goes through the memo, so the copied view and a copy of the
        # bytearray found elsewhere in the value share one buffer, as the originals do.
        shared = _view_into(view, _copy(view.obj, memo))
        if shared is not None:
            memo[key] = shared
            return shared
    # Otherwise: a view over a fresh copy of the viewed bytes, with the same format and shape.
    data = bytearray(view.tobytes())
    new_view: Any = memoryview(data)
    # A format cast() cannot express keeps the bytes, viewed as unsigned bytes (as they are).
    with contextlib.suppress(TypeError, ValueError):
        new_view = new_view.cast(view.format, view.shape or ())
    if view.readonly:
        new_view = new_view.toreadonly()
    memo[key] = new_view
    return new_view


# A RecursionError from data shallower than this came from the caller's own deep stack.
_DEEP = 64
_SHOWN_STEPS = 4


def _too_deep(value: Any, name: str) -> ValueError | None:
    """Return the error naming the path to ``value``'s deepest container, if it is deep."""
    # Iterative depth-first search (the data is too deep to recurse into) that visits each
    # container once, so shared references and cycles cannot make it loop or blow up. Each
    # node is (parent node, key from the parent, depth); paths are rebuilt only at the end.
    # The root's parent and key are never read (the walk back up stops at the root).
    nodes: list[tuple[int, str, int]] = [(-1, "", 0)]  # pragma: no mutate
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen: set[int] = set()
    deepest = 0
    while stack:
        current, node = stack.pop()
        kind: Any = type(current)  # pyright: ignore[reportUnknownVariableType]
        if kind not in (dict, list, tuple) or id(current) in seen:
            continue  # sets, byte buffers and views hold no nested containers we copy
        seen.add(id(current))
        depth = nodes[node][2]
        if depth > nodes[deepest][2]:
            deepest = node
        children: Any = current.items() if kind is dict else enumerate(current)
        for key, child in children:
            if type(child) in (dict, list, tuple):
                nodes.append((node, f"[{key!r}]", depth + 1))
                stack.append((child, len(nodes) - 1))
    levels = nodes[deepest][2]
    if levels < _DEEP:
        return None
    steps: list[str] = []
    node = deepest
    while node > 0:
        parent, key, _ = nodes[node]
        steps.append(key)
        node = parent
    steps.reverse()
    head, tail = "".join(steps[:_SHOWN_STEPS]), "".join(steps[-_SHOWN_STEPS:])
    where = f"{name}{head}...{tail}"
    return ValueError(
        f"{name} is nested {levels} levels deep (down to {where}), too deep to record "
        "within Python's recursion limit; flatten the data, or pass an object of your own "
        "class, which is recorded by identity."
    )


def _view_into(original: memoryview, data: bytearray) -> memoryview | None:
    """Return a view of ``data`` laid out over the same bytes as ``view`` over its bytearray.

    None when the layout cannot be rebuilt with slicing and ``cast`` (or buffer addresses
    cannot be read); the caller then copies the viewed bytes on their own.
    """
    # Typed loosely: typeshed's cast() wants a literal format and shape is optional there.
    view: Any = original
    new_view: Any
    try:
        offset = _buffer_address(view) - _buffer_address(view.obj)
        whole: Any = memoryview(data)
        size = view.itemsize
        if view.ndim != 1 and view.c_contiguous:
            new_view = whole[offset : offset + view.nbytes].cast(view.format, view.shape)
        elif view.ndim == 1:
            # Also for contiguous views: a view of one item or none may keep any stride.
            # (Slicing makes every stride a whole number of items; the layout check below
            # refuses a view whose stride is not.)
            count, stride = view.shape[0], view.strides[0]
            # The items from the lowest to the highest address; step over the gaps.
            start = offset + (count - 1) * min(stride, 0)
            new_view = whole[start : start + (count - 1) * abs(stride) + size]
            new_view = new_view.cast(view.format)
            step = stride // size
            new_view = new_view[::step]
        else:
            return None
        if view.readonly:
            new_view = new_view.toreadonly()
    except (TypeError, ValueError, OSError, AttributeError, ImportError):
        return None
    same_layout = (new_view.format, new_view.shape, new_view.strides) == (
        view.format,
        view.shape,
        view.strides,
    )
    return new_view if same_layout and new_view.tobytes() == view.tobytes() else None


def _buffer_address(exporter: object) -> int:
    """Return the address of the first item of ``exporter``'s buffer."""
    get_buffer, release_buffer, buffer_type = _buffer_api()
    import ctypes

    buffer = buffer_type()
    # PyBUF_FULL_RO: accept any layout, including strided and read-only buffers.
    get_buffer(exporter, ctypes.byref(buffer), 0x11C)
    try:
        return int(buffer.buf)  # never NULL for a bytearray, even an empty one
    finally:
        release_buffer(ctypes.byref(buffer))


@functools.cache
def _buffer_api() -> tuple[Any, Any, Any]:
    # Imported on first use: only snapshots of shared views need it, and ``import
    # agents_testing`` stays cheap.
    import ctypes

    class PyBuffer(ctypes.Structure):
        _fields_ = [
            ("buf", ctypes.c_void_p),
            ("obj", ctypes.c_void_p),
            ("len", ctypes.c_ssize_t),
            ("itemsize", ctypes.c_ssize_t),
            ("readonly", ctypes.c_int),
            ("ndim", ctypes.c_int),
            ("format", ctypes.c_char_p),
            ("shape", ctypes.c_void_p),
            ("strides", ctypes.c_void_p),
            ("suboffsets", ctypes.c_void_p),
            ("internal", ctypes.c_void_p),
        ]

    pointer = ctypes.POINTER(PyBuffer)
    get_buffer = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, pointer, ctypes.c_int)(
        ("PyObject_GetBuffer", ctypes.pythonapi)
    )
    release_buffer = ctypes.PYFUNCTYPE(None, pointer)(("PyBuffer_Release", ctypes.pythonapi))
    return get_buffer, release_buffer, PyBuffer
