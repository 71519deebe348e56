"""Structural snapshots: copy data containers, keep every other object by identity."""

from __future__ import annotations

import array
import asyncio
import ctypes
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import _snapshot
from agents_testing._snapshot import snapshot


@pytest.mark.parametrize(
    "value",
    [
        pytest.param({"a": [1, {"b": 2}]}, id="dict"),
        pytest.param({"timeout": 1.5, "shell": True, "user": None}, id="dict-of-atoms"),
        pytest.param([1, [2, [3]], {"k": "v"}], id="list"),
        pytest.param(({"a": 1}, [2]), id="tuple-of-containers"),
        pytest.param({1, "two", (3, 4)}, id="set"),
        pytest.param(bytearray(b"abc"), id="bytearray"),
    ],
)
def test_snapshot_copies_data_containers_into_equal_new_objects(value: Any) -> None:
    copied = snapshot(value)

    assert copied == value
    assert copied is not value
    assert type(copied) is type(value)


def test_snapshot_copies_nested_containers_recursively() -> None:
    inner: dict[str, Any] = {"items": [1, 2]}
    value: dict[str, list[dict[str, Any]]] = {"outer": [inner]}

    copied = snapshot(value)
    inner["items"].append(3)
    value["outer"].append({"late": True})

    assert copied == {"outer": [{"items": [1, 2]}]}
    assert copied["outer"][0] is not inner
    assert copied["outer"][0]["items"] is not inner["items"]


def test_mutating_a_snapshot_does_not_change_the_original() -> None:
    value = {"list": [1], "bytes": bytearray(b"a")}

    copied = snapshot(value)
    copied["list"].append(2)
    copied["bytes"].extend(b"b")

    assert value == {"list": [1], "bytes": bytearray(b"a")}


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("text", id="str"),
        pytest.param(b"bytes", id="bytes"),
        pytest.param(12345678901234567890, id="int"),
        pytest.param(1.5, id="float"),
        pytest.param(None, id="none"),
        pytest.param(frozenset({1, 2}), id="frozenset"),
        pytest.param(range(3), id="range"),
        pytest.param((1, "a", None), id="tuple-of-atoms"),
    ],
)
def test_snapshot_returns_immutable_values_as_they_are(value: Any) -> None:
    assert snapshot(value) is value


class Record:
    def __init__(self) -> None:
        self.items = [1]


def function() -> None:
    pass


@pytest.mark.parametrize(
    "make_value",
    [
        pytest.param(Record, id="class-instance"),
        pytest.param(lambda: function, id="function"),
        pytest.param(lambda: lambda: None, id="lambda"),
        pytest.param(threading.Event, id="threading-event"),
        pytest.param(lambda: ValueError("boom"), id="exception"),
        pytest.param(lambda: OrderedDict(a=[1]), id="dict-subclass"),
        pytest.param(lambda: array.array("i", [1, 2]), id="array"),
        pytest.param(lambda: Record, id="class"),
    ],
)
def test_snapshot_keeps_other_objects_by_identity(make_value: Any) -> None:
    value = make_value()

    assert snapshot(value) is value
    assert snapshot([value])[0] is value
    assert snapshot({"key": value})["key"] is value


async def test_snapshot_keeps_futures_and_asyncio_events_by_identity() -> None:
    future = asyncio.get_running_loop().create_future()
    event = asyncio.Event()

    copied = snapshot({"future": future, "event": event})

    assert copied["future"] is future
    assert copied["event"] is event


def test_snapshot_keeps_a_self_referencing_list_cyclic() -> None:
    value: list[Any] = [1]
    value.append(value)

    copied = snapshot(value)

    assert copied is not value
    assert copied[1] is copied
    assert copied[0] == 1


def test_snapshot_keeps_a_cycle_between_dicts() -> None:
    parent: dict[str, Any] = {"name": "parent"}
    child: dict[str, Any] = {"name": "child", "parent": parent}
    parent["child"] = child

    copied = snapshot(parent)

    assert copied["child"]["parent"] is copied
    assert copied["child"] is not child


def test_snapshot_keeps_a_cycle_through_a_tuple() -> None:
    holder: list[Any] = []
    pair = (holder, "tag")
    holder.append(pair)

    copied = snapshot(pair)

    assert copied is not pair
    assert copied[0] is not holder
    assert copied[0][0] is copied
    assert copied[1] == "tag"


def test_snapshot_keeps_shared_references_shared() -> None:
    shared = {"k": [1]}
    value: dict[str, Any] = {"a": shared, "b": [shared, shared]}

    copied = snapshot(value)

    assert copied["a"] is copied["b"][0] is copied["b"][1]
    assert copied["a"] is not shared


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: {"k": [1]}, id="dict"),
        pytest.param(lambda: [1], id="list"),
        pytest.param(lambda: ([1],), id="tuple"),
        pytest.param(lambda: {1}, id="set"),
        pytest.param(lambda: bytearray(b"a"), id="bytearray"),
        pytest.param(lambda: memoryview(b"a"), id="memoryview"),
    ],
)
def test_every_kind_of_container_met_twice_is_copied_once(make: Callable[[], Any]) -> None:
    shared = make()

    copied = snapshot([shared, {"again": shared}])

    assert copied[0] is copied[1]["again"]
    assert copied[0] is not shared
    assert type(copied[0]) is type(shared)


def test_separate_snapshots_do_not_share_copies() -> None:
    value = {"k": [1]}

    first, second = snapshot(value), snapshot(value)

    assert first["k"] is not second["k"]


def test_snapshot_copies_tuple_holding_a_container_into_a_new_tuple() -> None:
    inner = [1]
    value = (inner, "x")

    copied = snapshot(value)

    assert type(copied) is tuple
    assert copied == ([1], "x")
    assert copied[0] is not inner


def test_snapshot_copies_set_into_a_new_set_of_the_same_members() -> None:
    member = (1, 2)
    value = {member}

    copied = snapshot(value)
    value.add((3, 4))

    assert copied == {(1, 2)}
    assert next(iter(copied)) is member


def test_snapshot_copies_memoryview_data() -> None:
    data = bytearray(b"abc")
    view = memoryview(data)

    copied = snapshot(view)
    data[0] = ord("z")

    assert isinstance(copied, memoryview)
    assert copied.tobytes() == b"abc"
    assert not copied.readonly


def test_snapshot_of_read_only_memoryview_is_read_only() -> None:
    copied = snapshot(memoryview(b"abc"))

    assert copied.readonly
    assert copied.tobytes() == b"abc"


def test_snapshot_keeps_memoryview_format_and_shape() -> None:
    numbers = array.array("i", [1, 2, 3, 4, 5, 6])
    view = memoryview(numbers).cast("B").cast("i", (2, 3))

    copied = snapshot(view)
    numbers[0] = 99

    assert (copied.format, copied.shape) == ("i", (2, 3))
    # typeshed types tolist() as a flat list[int]; a 2-D view gives nested lists.
    assert copied.tolist() == [[1, 2, 3], [4, 5, 6]]  # type: ignore[comparison-overlap]


@pytest.mark.parametrize(
    "exporter",
    [
        pytest.param((ctypes.c_int * 3)(1, 2, 3), id="explicit-byte-order"),
        pytest.param((ctypes.c_byte * 0 * 3)(), id="zero-in-shape"),
    ],
)
def test_a_view_whose_layout_cast_cannot_rebuild_keeps_its_bytes_as_unsigned_bytes(
    exporter: object,
) -> None:
    view = memoryview(exporter)  # type: ignore[arg-type]  # ctypes arrays export buffers

    copied = snapshot(view)

    assert (copied.format, copied.ndim, copied.tobytes()) == ("B", 1, view.tobytes())


@pytest.mark.parametrize(
    ("view", "layout"),
    [
        pytest.param(memoryview(array.array("i", [1, 2, 3])), ("i", (3,)), id="1d-ints"),
        pytest.param(memoryview(b"ab").cast("b"), ("b", (2,)), id="1d-signed-bytes"),
        pytest.param(memoryview(b"abcdef").cast("B", (2, 3)), ("B", (2, 3)), id="2d-bytes"),
    ],
)
def test_snapshot_keeps_the_format_or_the_shape_of_a_view_that_differs_in_one(
    view: memoryview, layout: tuple[str, tuple[int, ...]]
) -> None:
    copied = snapshot(view)

    assert (copied.format, copied.shape) == layout
    assert copied.tolist() == view.tolist()


@pytest.mark.parametrize("view_first", [True, False], ids=["view-first", "buffer-first"])
def test_memoryview_and_its_bytearray_stay_one_shared_copy(view_first: bool) -> None:
    data = bytearray(b"abc")
    view = memoryview(data)
    value: list[Any] = [view, data] if view_first else [data, view]

    copied = snapshot(value)
    new_view, new_data = copied if view_first else copied[::-1]

    assert new_data is not data
    assert new_view.obj is new_data
    new_data[0] = ord("z")
    assert new_view.tobytes() == b"zbc"
    assert data == bytearray(b"abc")


def test_two_views_of_one_bytearray_share_one_copy() -> None:
    data = bytearray(b"abcdef")

    first, second = snapshot((memoryview(data), memoryview(data).toreadonly()))

    assert first.obj is second.obj
    assert second.readonly
    first[0] = ord("z")
    assert second.tobytes() == b"zbcdef"


@pytest.mark.parametrize(
    "make_view",
    [
        lambda data: memoryview(data)[2:5],
        lambda data: memoryview(data)[1::3],
        lambda data: memoryview(data)[::-2],
        lambda data: memoryview(data).toreadonly()[3:],
        lambda data: memoryview(data)[4:].cast("I"),
        lambda data: memoryview(data).cast("H", (2, 6)),
        lambda data: memoryview(data).cast("I")[::-1],
        lambda data: memoryview(data)[5:6:2],
        lambda data: memoryview(data)[30::3],
        lambda data: memoryview(data).cast("b")[1::2],
        lambda data: memoryview(data).cast("c")[::-3],
    ],
    ids=[
        "slice",
        "step",
        "reversed",
        "read-only",
        "cast",
        "2d",
        "cast-reversed",
        "one-item-step",
        "empty-step",
        "signed-bytes",
        "chars",
    ],
)
def test_view_into_a_shared_bytearray_views_the_same_bytes_of_the_copy(make_view: Any) -> None:
    data = bytearray(range(24))
    view = make_view(data)

    new_data, new_view = snapshot((data, view))

    assert new_view.obj is new_data
    assert new_view.tolist() == view.tolist()
    assert (new_view.format, new_view.shape, new_view.strides, new_view.readonly) == (
        view.format,
        view.shape,
        view.strides,
        view.readonly,
    )
    new_data[:] = bytes(255 - byte for byte in new_data)
    data[:] = bytes(255 - byte for byte in data)
    assert new_view.tolist() == view.tolist()


def test_a_view_whose_place_in_its_bytearray_is_misread_is_copied_on_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The view over the shared copy is checked against the original before it is used: if
    # the buffer addresses are read wrong, the snapshot still holds the viewed bytes.
    data = bytearray(b"abcdef")
    view = memoryview(data)[:3]
    monkeypatch.setattr(_snapshot, "_buffer_address", lambda exporter: int(exporter is view))

    new_data, new_view = snapshot((data, view))

    assert new_view.tobytes() == b"abc"
    assert new_view.obj is not new_data
    assert new_data == data


def test_snapshot_keeps_dict_keys_and_order() -> None:
    key = ("tuple", "key")
    value = {"z": 1, key: 2, "a": 3}

    copied = snapshot(value)

    assert list(copied) == ["z", key, "a"]
    assert next(k for k in copied if isinstance(k, tuple)) is key


# -- the sharing rule, for any graph of containers -------------------------------------------

_ATOMS = st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=3), st.binary(max_size=3))


@st.composite
def shared_graphs(draw: st.DrawFn) -> list[Any]:
    """Draw lists, dicts, bytearrays and views of them, wired to each other with sharing.

    The nodes are made first and filled afterwards, so any node may hold any other one,
    itself included (cycles through lists and dicts).
    """
    kinds = draw(
        st.lists(st.sampled_from(["list", "dict", "bytearray", "view"]), min_size=1, max_size=8)
    )
    nodes: list[Any] = []
    buffers: list[bytearray] = []
    for kind in kinds:
        if kind == "list":
            nodes.append([])
        elif kind == "dict":
            nodes.append({})
        else:
            data = bytearray(draw(st.binary(min_size=0, max_size=12)))
            buffers.append(data)
            nodes.append(data)
            if kind == "view":
                # A view of a bytearray drawn earlier (often a shared one), sliced somehow.
                viewed = draw(st.sampled_from(buffers))
                step = draw(st.sampled_from([1, 2, 3, -1, -2]))
                start = draw(st.none() | st.integers(-len(viewed) - 1, len(viewed) + 1))
                view = memoryview(viewed)[start::step]
                shape = draw(st.sampled_from(["bytes", "shorts", "rows"]))
                if view.c_contiguous and view.nbytes % 2 == 0 and view.nbytes:
                    if shape == "shorts":
                        view = view.cast("H")
                    elif shape == "rows":
                        view = view.cast("B", (2, view.nbytes // 2))
                nodes.append(view.toreadonly() if draw(st.booleans()) else view)
    children = st.one_of(_ATOMS, st.integers(0, len(nodes) - 1).map(lambda index: nodes[index]))
    for node in nodes:
        if isinstance(node, list):
            node.extend(draw(st.lists(children, max_size=4)))
        elif isinstance(node, dict):
            for key in draw(st.lists(st.text(max_size=2), max_size=4, unique=True)):
                node[key] = draw(children)
    return nodes


def _assert_copied_with_the_same_sharing(original: Any, copied: Any) -> None:
    """Walk both graphs together: each container maps to one new container, one to one."""
    copies: dict[int, Any] = {}
    originals_of: dict[int, Any] = {}
    pending = [(original, copied)]
    while pending:
        old, new = pending.pop()
        if type(old) not in (list, dict, bytearray, memoryview):
            assert new is old  # atoms are kept as they are
            continue
        assert type(new) is type(old)
        if id(old) in copies:
            assert copies[id(old)] is new, "a shared container was copied twice"
            continue
        assert new is not old, "a container was not copied"
        assert id(new) not in originals_of, "two containers became one"
        copies[id(old)] = new
        originals_of[id(new)] = old
        if isinstance(old, list):
            assert len(new) == len(old)
            pending.extend(zip(old, new, strict=True))
        elif isinstance(old, dict):
            assert list(new) == list(old)
            pending.extend((old[key], new[key]) for key in old)
        elif isinstance(old, bytearray):
            assert new == old
        else:
            assert (new.tolist(), new.readonly, new.format, new.shape, new.strides) == (
                old.tolist(),
                old.readonly,
                old.format,
                old.shape,
                old.strides,
            )
            pending.append((old.obj, new.obj))  # the view's buffer follows the same rule


@settings(max_examples=150, deadline=None, database=None)
@given(shared_graphs())
def test_snapshot_keeps_every_sharing_and_only_that(nodes: list[Any]) -> None:
    copied = snapshot(nodes)

    _assert_copied_with_the_same_sharing(nodes, copied)
    # Detached: overwriting every original buffer leaves the copies as they were.
    before = [bytes(node) for node in copied if isinstance(node, bytearray)]
    for node in nodes:
        if isinstance(node, bytearray):
            node[:] = bytes(byte ^ 0xFF for byte in node)
    assert [bytes(node) for node in copied if isinstance(node, bytearray)] == before


# -- data too deep to copy -------------------------------------------------------------------

# Deeper than any recursion limit a test run uses, so the recursive copy must fail.
DEEP = sys.getrecursionlimit() * 2
ADVICE = (
    "too deep to record within Python's recursion limit; flatten the data, or pass an object "
    "of your own class, which is recorded by identity."
)


def nested(levels: int, innermost: Any = None) -> Any:
    """Return ``innermost`` (an empty list by default) inside ``levels`` one-item lists."""
    value: Any = [] if innermost is None else innermost
    for _ in range(levels):
        value = [value]
    return value


def test_data_too_deep_to_copy_is_refused_naming_the_path_to_its_deepest_container() -> None:
    value = {"messages": [{"content": nested(DEEP, {"parts": ([],)})}]}

    with pytest.raises(ValueError, match="too deep to record") as info:
        snapshot(value, "request.input")

    assert str(info.value) == (
        f"request.input is nested {DEEP + 5} levels deep (down to "
        "request.input['messages'][0]['content'][0]...[0][0]['parts'][0]), " + ADVICE
    )


def test_a_part_shared_inside_data_too_deep_to_copy_is_walked_once() -> None:
    # The search for the deepest path meets the shared part twice and must go on past it.
    shared: list[Any] = []
    value = {"deep": nested(DEEP), "same": shared, "again": shared}

    with pytest.raises(ValueError, match="too deep to record") as info:
        snapshot(value)

    assert str(info.value) == (
        f"value is nested {DEEP + 1} levels deep (down to value['deep'][0][0][0]...[0][0][0][0]), "
        + ADVICE
    )


def test_data_too_deep_to_copy_that_holds_a_cycle_is_refused() -> None:
    innermost: list[Any] = []
    value = nested(DEEP, innermost)
    innermost.append(value)  # back to the top: a search that does not mark what it saw loops

    with pytest.raises(ValueError, match="too deep to record") as info:
        snapshot(value)

    assert str(info.value).startswith(f"value is nested {DEEP} levels deep (down to value[0]")


def run_with_frames_left(frames: int, call: Callable[[], Any]) -> Any:
    """Return ``call()`` run with only about ``frames`` stack frames left before the limit."""
    depth = 0
    frame = sys._getframe()
    while frame.f_back is not None:
        frame, depth = frame.f_back, depth + 1
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        return call()
    finally:
        sys.setrecursionlimit(limit)


def test_a_recursion_error_from_data_under_64_levels_deep_is_the_callers_own() -> None:
    # With the caller's stack nearly used up, even shallow data cannot be copied: the error is
    # the caller's, not the data's, and is re-raised as it is. From 64 levels on, it is the data's.
    with pytest.raises(RecursionError):
        run_with_frames_left(40, lambda: snapshot(nested(63)))
    with pytest.raises(ValueError, match=r"^value is nested 64 levels deep \(down to value\[0\]"):
        run_with_frames_left(40, lambda: snapshot(nested(64)))
