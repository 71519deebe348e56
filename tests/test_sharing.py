"""Snapshots that share unchanged parts with the previous call's record."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import ModelRequest, ScriptedModel, assistant_message, function_call
from agents_testing._records import stored_value
from agents_testing._sharing import snapshot_sharing
from agents_testing._snapshot import snapshot


def assert_same_snapshot(actual: Any, expected: Any) -> None:
    """Fail unless ``actual`` is indistinguishable from ``expected``, sharing pattern included."""
    pairs: dict[int, int] = {}

    def walk(a: Any, e: Any, path: str) -> None:
        assert type(a) is type(e), f"{path}: {type(a).__name__} != {type(e).__name__}"
        if isinstance(e, (dict, list, tuple, set, bytearray)):
            if id(e) in pairs:
                assert pairs[id(e)] == id(a), f"{path}: sharing differs"
                return
            pairs[id(e)] = id(a)
            if isinstance(e, dict):
                assert list(a) == list(e), f"{path}: keys {list(a)} != {list(e)}"
                for (ka, va), (ke, ve) in zip(a.items(), e.items(), strict=True):
                    walk(ka, ke, f"{path}.key")
                    walk(va, ve, f"{path}[{ke!r}]")
            elif isinstance(e, (list, tuple)):
                assert len(a) == len(e), f"{path}: length {len(a)} != {len(e)}"
                for position, (va, ve) in enumerate(zip(a, e, strict=True)):
                    walk(va, ve, f"{path}[{position}]")
            else:
                assert a == e, path
        elif isinstance(e, float):
            assert repr(a) == repr(e), f"{path}: {a!r} != {e!r}"
        elif isinstance(e, (str, int, bytes, type(None))):
            assert a == e, f"{path}: {a!r} != {e!r}"
        else:
            assert a is e, f"{path}: {a!r} is not the recorded object {e!r}"

    walk(actual, expected, "value")
    # Two distinct expected containers must not become one actual container.
    assert len(set(pairs.values())) == len(pairs), "two containers were merged into one"


def share_all(values: list[Any]) -> list[Any]:
    """Snapshot each value in turn against the previous snapshot, as the model records them."""
    stored: list[Any] = []
    for value in values:
        stored.append(snapshot_sharing(value, stored[-1] if stored else None))
    return stored


class Marker:
    """An object a snapshot keeps by identity."""


# -- sharing ---------------------------------------------------------------------------------


def test_a_growing_list_shares_the_items_the_previous_snapshot_holds() -> None:
    conversation: list[Any] = [{"role": "user", "content": "hi", "tags": ["a"]}]
    first = snapshot_sharing(conversation, None)
    conversation.append({"role": "assistant", "content": "hello"})

    second = snapshot_sharing(conversation, first)

    assert second is not first
    assert second[0] is first[0]
    assert second[1] == {"role": "assistant", "content": "hello"}
    assert second[1] is not conversation[1]


def test_new_but_equal_items_are_shared_too() -> None:
    # Frameworks often rebuild the input dicts on every turn: position, not identity, counts.
    first = snapshot_sharing([{"role": "user", "content": "hi"}], None)

    second = snapshot_sharing([{"role": "user", "content": "hi"}, "next"], first)

    assert second[0] is first[0]


def test_an_item_mutated_in_place_is_copied_anew_and_the_old_record_keeps_its_value() -> None:
    item: dict[str, Any] = {"role": "user", "content": "hi", "meta": {"n": [1]}}
    conversation: list[Any] = [item, {"role": "user", "content": "other"}]
    first = snapshot_sharing(conversation, None)

    item["meta"]["n"].append(2)
    second = snapshot_sharing(conversation, first)

    assert first[0] == {"role": "user", "content": "hi", "meta": {"n": [1]}}
    assert second[0] == {"role": "user", "content": "hi", "meta": {"n": [1, 2]}}
    assert second[0] is not first[0]
    assert second[1] is first[1]


def test_the_unchanged_parts_of_a_mutated_item_are_still_shared() -> None:
    item: dict[str, Any] = {"content": "hi", "big": {"rows": list(range(5))}, "n": 1}
    first = snapshot_sharing([item], None)

    item["n"] = 2
    second = snapshot_sharing([item], first)

    assert second[0] is not first[0]
    assert second[0]["big"] is first[0]["big"]
    assert (first[0]["n"], second[0]["n"]) == (1, 2)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(1, True, id="int-to-bool"),
        pytest.param(1, 1.0, id="int-to-float"),
        pytest.param(0.0, -0.0, id="zero-sign"),
        pytest.param("1", b"1", id="str-to-bytes"),
        pytest.param([1], (1,), id="list-to-tuple"),
        pytest.param(frozenset({1}), frozenset({True}), id="frozenset-members"),
        pytest.param(math.nan, math.nan, id="nan"),
    ],
)
def test_a_value_that_is_equal_but_distinguishable_is_recorded_as_it_is(
    before: Any, after: Any
) -> None:
    item: dict[str, Any] = {"value": before}
    first = snapshot_sharing([item], None)

    item["value"] = after
    second = snapshot_sharing([item], first)

    assert_same_snapshot(second, snapshot([item]))
    assert_same_snapshot(first, [{"value": before}])


def test_a_change_of_dict_key_order_is_recorded() -> None:
    item = {"a": 1, "b": 2}
    first = snapshot_sharing([item], None)

    item["a"] = item.pop("a")
    second = snapshot_sharing([item], first)

    assert list(second[0]) == ["b", "a"]
    assert list(first[0]) == ["a", "b"]


def test_an_object_replaced_by_an_equal_one_is_recorded_by_its_new_identity() -> None:
    class Tool:
        def __eq__(self, other: object) -> bool:
            return isinstance(other, Tool)

        __hash__ = object.__hash__

    old_tool, new_tool = Tool(), Tool()
    item = {"tool": old_tool}
    first = snapshot_sharing([item], None)

    item["tool"] = new_tool
    second = snapshot_sharing([item], first)

    assert first[0]["tool"] is old_tool
    assert second[0]["tool"] is new_tool


def test_a_list_of_objects_built_anew_is_recorded_as_a_list_of_the_new_objects() -> None:
    class Tool:
        def __eq__(self, other: object) -> bool:
            return isinstance(other, Tool)

        __hash__ = object.__hash__

    old_tools = [Tool(), Tool()]
    first = snapshot_sharing(old_tools, None)
    new_tools = [Tool(), old_tools[1]]  # a framework that builds its tools for every call
    second = snapshot_sharing(new_tools, first)
    new_tools.append(Tool())
    third = snapshot_sharing([new_tools[0], new_tools[1]], second)

    assert second is not new_tools
    assert [tool is new for tool, new in zip(second, new_tools, strict=False)] == [True, True]
    assert len(second) == 2
    assert [tool is old for tool, old in zip(first, old_tools, strict=True)] == [True, True]
    assert third is second  # the very same objects again: the earlier record is shared


def test_the_pattern_of_shared_references_is_recorded_as_it_is_now() -> None:
    shared = {"content": "hi"}
    first = snapshot_sharing([shared, shared], None)
    assert first[0] is first[1]

    second = snapshot_sharing([shared, {"content": "hi"}], first)
    third = snapshot_sharing([shared, shared], second)

    assert second[0] is not second[1]
    assert third[0] is third[1]
    assert_same_snapshot(second, snapshot([shared, {"content": "hi"}]))


@pytest.mark.parametrize(
    "refer",
    [
        pytest.param(lambda part: {"quoted": part}, id="dict"),
        pytest.param(lambda part: [[part]], id="nested-list"),
        pytest.param(lambda part: (part,), id="tuple"),
    ],
)
def test_a_new_item_that_refers_to_a_shared_item_points_at_its_shared_record(
    refer: Any,
) -> None:
    # The matched run's pairs are recorded lazily: a new item reaching into the run must
    # still find the record the run reuses, as a plain snapshot keeps the reference shared.
    conversation: list[Any] = [{"role": "user", "content": "hi"}, {"n": 1}]
    first = snapshot_sharing(conversation, None)

    conversation.append(refer(conversation[0]))
    second = snapshot_sharing(conversation, first)

    assert second[0] is first[0]
    assert_same_snapshot(second, snapshot(conversation))


def test_a_new_view_over_a_shared_bytearray_shares_the_recorded_bytearray() -> None:
    data = bytearray(b"abc")
    conversation: list[Any] = [{"blob": data}, {"n": 1}]
    first = snapshot_sharing(conversation, None)

    conversation.append({"view": memoryview(data)[1:]})
    second = snapshot_sharing(conversation, first)

    assert second[0] is first[0]
    assert second[2]["view"].obj is second[0]["blob"]
    assert second[2]["view"].tobytes() == b"bc"
    assert second[0]["blob"] is not data


def test_unchanged_items_match_only_values_of_the_same_type_and_sign() -> None:
    # The bulk match compares atoms with ==: 1, 1.0 and True are equal, as are 0.0 and -0.0,
    # and a NaN equals only itself; each swap must be copied, never shared.
    nan = math.nan
    values: list[Any] = [1, 1.0, True, 0.0, -0.0, nan, float("nan"), "1", None]
    for before in values:
        for after in values:
            conversation: list[Any] = [{"v": before}, {"n": 1}]
            first = snapshot_sharing(conversation, None)
            conversation[0]["v"] = after
            second = snapshot_sharing(conversation, first)

            assert_same_snapshot(second, snapshot(conversation))
            assert_same_snapshot(first, [{"v": before}, {"n": 1}])
            if after is before:
                assert second[0] is first[0]


def test_two_distinct_items_never_share_one_old_item() -> None:
    first = snapshot_sharing([{"k": 1}], None)
    twin = {"k": 1}
    second = snapshot_sharing({"a": [twin], "b": [{"k": 1}]}, {"a": first, "b": first})

    assert second["a"][0] is first[0]
    assert second["b"][0] is not first[0]


def test_cycles_are_recorded_and_never_matched_to_an_old_part() -> None:
    conversation: list[Any] = [{"role": "user", "content": "hi"}]
    conversation.append(conversation)
    first = snapshot_sharing(conversation, None)

    second = snapshot_sharing(conversation, first)

    assert second[1] is second
    assert first[1] is first
    assert second[0] is first[0]


def test_items_inserted_at_the_front_are_recorded_in_their_new_order() -> None:
    conversation: list[Any] = [{"n": 1}, {"n": 2}]
    first = snapshot_sharing(conversation, None)

    conversation.insert(0, {"summary": "..."})
    second = snapshot_sharing(conversation, first)

    assert second == [{"summary": "..."}, {"n": 1}, {"n": 2}]
    assert first == [{"n": 1}, {"n": 2}]


def test_atomic_and_non_container_values_are_returned_as_they_are() -> None:
    marker = object()
    assert snapshot_sharing("text", ["old"]) == "text"
    assert snapshot_sharing(marker, None) is marker


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"role": "user", "content": "hello there"}', id="strings"),
        pytest.param(
            '{"content": "hello there", "temperature": 0.25, "tokens": 1000}', id="numbers"
        ),
    ],
)
def test_items_decoded_anew_from_json_on_every_call_are_shared(text: str) -> None:
    # A framework that decodes its items every turn hands over equal keys, strings and
    # numbers that are new objects each time: equality of exact types, not identity, counts.
    before, after = json.loads(text), json.loads(text)
    assert all(old is not new for old, new in zip(before, after, strict=True))
    assert all(old is not new for old, new in zip(before.values(), after.values(), strict=True))
    first = snapshot_sharing([before, {"n": 1}], None)

    second = snapshot_sharing([after, {"n": 1}], first)

    assert second[0] is first[0]
    assert second[1] is first[1]


@pytest.mark.parametrize(
    "scopes",
    [
        pytest.param(("read", "write"), id="tuple"),
        pytest.param(frozenset({"read"}), id="frozenset"),
        pytest.param(Marker(), id="instance"),
    ],
)
def test_items_that_hold_the_same_object_kept_as_it_is_are_shared(scopes: object) -> None:
    # A snapshot keeps a tuple of atoms, a frozenset or an instance as the very object: the
    # same object again (even in two items: it is not a shared container) still matches.
    def items() -> list[Any]:
        return [{"scopes": scopes, "id": json.loads(f'"call-{n}"')} for n in range(2)]

    first = snapshot_sharing(items(), None)

    second = snapshot_sharing([*items(), {"n": 1}], first)

    assert [second[0], second[1]] == first
    assert second[0] is first[0]
    assert second[1] is first[1]


@pytest.mark.parametrize(
    ("make", "change", "before", "after"),
    [
        pytest.param(lambda: {"a"}, lambda tags: tags.add("b"), {"a"}, {"a", "b"}, id="set"),
        pytest.param(
            lambda: memoryview(bytearray(b"ab")),
            lambda view: view.__setitem__(0, ord("z")),
            b"ab",
            b"zb",
            id="memoryview",
        ),
    ],
)
def test_a_set_or_view_changed_in_place_is_recorded_as_it_is_now(
    make: Any, change: Any, before: Any, after: Any
) -> None:
    # Sets and views are copied, never compared: an item holding one is never shared.
    tags = make()
    read = set if isinstance(tags, set) else bytes
    item: dict[str, Any] = {"role": "user", "tags": tags}
    first = snapshot_sharing([item, {"n": 1}], None)

    change(tags)
    second = snapshot_sharing([item, {"n": 1}], first)

    assert (read(first[0]["tags"]), read(second[0]["tags"])) == (before, after)
    assert second[0] is not first[0]
    assert second[1] is first[1]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("a", "b", id="renamed"),
        pytest.param(1, True, id="int-to-bool"),
        pytest.param(1, 1.0, id="int-to-float"),
        pytest.param(0.0, -0.0, id="zero-sign"),
        pytest.param((1,), (True,), id="tuple-members"),
    ],
)
def test_a_key_swapped_for_another_with_the_same_value_is_recorded_as_it_is(
    before: Any, after: Any
) -> None:
    # The keys are equal, or the values are: only the keys tell the two dicts apart.
    item: dict[Any, Any] = {"role": "user", before: "same value"}
    first = snapshot_sharing([item, {"n": 1}], None)

    item[after] = item.pop(before)
    second = snapshot_sharing([item, {"n": 1}], first)

    assert_same_snapshot(second, snapshot([item, {"n": 1}]))
    assert_same_snapshot(first, [{"role": "user", before: "same value"}, {"n": 1}])
    assert second[1] is first[1]


def random_value(rng: random.Random, pool: list[Any], depth: int = 0) -> Any:
    choice = rng.randrange(12 if depth < 3 else 8)
    if choice == 0:
        return rng.choice([0, 1, 2, -1])
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0.0, -0.0, 1.0, 1.5, math.nan])
    if choice == 3:
        return rng.choice(["", "a", "b"])
    if choice == 4:
        return rng.choice([None, b"x"])
    if choice == 5:
        return rng.choice(MARKERS)
    if choice in (6, 7) and pool:
        return rng.choice(pool)  # a shared reference
    if choice in (6, 8):
        value: Any = {
            rng.choice(["a", "b", "c", "d"]): random_value(rng, pool, depth + 1)
            for _ in range(rng.randrange(4))
        }
    elif choice == 9:
        value = tuple(random_value(rng, pool, depth + 1) for _ in range(rng.randrange(3)))
    elif choice == 10:
        value = bytearray(rng.choice([b"", b"ab"]))
    else:
        value = [random_value(rng, pool, depth + 1) for _ in range(rng.randrange(4))]
    if not isinstance(value, tuple):
        pool.append(value)
    return value


MARKERS = [Marker(), Marker()]


def mutate(rng: random.Random, pool: list[Any]) -> None:
    """Change one container of the conversation in place."""
    target = rng.choice(pool)
    if isinstance(target, dict):
        key = rng.choice(["a", "b", "c", "d"])
        action = rng.randrange(3)
        if action == 0:
            target[key] = random_value(rng, pool, 2)
        elif action == 1:
            target.pop(key, None)
        elif target:
            first_key = next(iter(target))
            target[first_key] = target.pop(first_key)  # same content, new key order
    elif isinstance(target, list):
        action = rng.randrange(3)
        if action == 0:
            target.append(random_value(rng, pool, 2))
        elif action == 1 and target:
            target[rng.randrange(len(target))] = random_value(rng, pool, 2)
        elif target:
            target.pop(0)
    elif isinstance(target, bytearray):
        target.extend(b"z")


@pytest.mark.parametrize("seed", range(40))
def test_every_snapshot_of_a_randomly_mutated_conversation_is_exact(seed: int) -> None:
    rng = random.Random(seed)
    pool: list[Any] = []
    conversation: list[Any] = []
    pool.append(conversation)
    stored: list[Any] = []
    expected: list[Any] = []
    for _ in range(25):
        for _ in range(rng.randrange(4)):
            mutate(rng, pool)
        for _ in range(rng.randrange(1, 4)):
            conversation.append(random_value(rng, pool))
        stored.append(snapshot_sharing(conversation, stored[-1] if stored else None))
        expected.append(snapshot(conversation))
        assert_same_snapshot(stored[-1], expected[-1])
    # Later mutations and later snapshots never changed an earlier snapshot.
    for before, wanted in zip(stored, expected, strict=True):
        assert_same_snapshot(before, wanted)


# -- through the model ---------------------------------------------------------------------


def turn_items(turn: int) -> list[Any]:
    return [
        {"type": "message", "role": "user", "content": f"question {turn}"},
        function_call("lookup", {"q": turn}, call_id=f"c{turn}"),
        {"type": "function_call_output", "call_id": f"c{turn}", "output": "ok"},
    ]


async def test_model_records_of_a_growing_run_hold_each_item_once() -> None:
    turns = 30
    model = ScriptedModel([[assistant_message("ok")]] * turns)
    conversation: list[Any] = []
    for turn in range(turns):
        conversation.extend(turn_items(turn))
        # Rebuilt every turn, as frameworks do: equal items, new objects.
        await model.get_response(
            ModelRequest(
                input=snapshot(conversation),
                model_settings={"temperature": 0},
                tools=[{"n": 1}],
                handoffs=[{"name": "billing"}],
            )
        )

    stored = [stored_value(call, "request") for call in model.calls]
    item_ids = {id(item) for request in stored for item in request.input}
    assert len(item_ids) == 3 * turns
    for field in ("model_settings", "tools", "handoffs"):
        assert len({id(getattr(request, field)) for request in stored}) == 1, field


async def test_model_records_a_shared_item_mutated_between_calls_as_it_was_at_each_call() -> None:
    model = ScriptedModel([[assistant_message("ok")]] * 3)
    first_item: dict[str, Any] = {"role": "user", "content": "hi", "attachments": ["a"]}
    conversation: list[Any] = [first_item]
    await model.get_response(ModelRequest(input=conversation))
    conversation.append({"role": "user", "content": "more"})
    await model.get_response(ModelRequest(input=conversation))
    first_item["attachments"].append("b")
    first_item["content"] = "edited"
    await model.get_response(ModelRequest(input=conversation))

    inputs = [call.request.input for call in model.calls]

    assert inputs[0] == [{"role": "user", "content": "hi", "attachments": ["a"]}]
    assert inputs[1][0] == {"role": "user", "content": "hi", "attachments": ["a"]}
    assert inputs[2][0] == {"role": "user", "content": "edited", "attachments": ["a", "b"]}
    assert inputs[2][1] == {"role": "user", "content": "more"}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param([{"name": "lookup"}], [], id="emptied"),
        pytest.param([], [{"name": "lookup"}], id="filled"),
        pytest.param([], (), id="list-to-tuple"),
    ],
)
async def test_model_records_each_call_s_tools_as_they_were_sent(before: Any, after: Any) -> None:
    # An empty field may reuse the previous call's record only if that is empty and alike.
    model = ScriptedModel([[assistant_message("ok")]] * 2)
    await model.get_response(ModelRequest(input="hi", tools=before))
    await model.get_response(ModelRequest(input="hi", tools=after))

    recorded = [stored_value(call, "request").tools for call in model.calls]

    assert_same_snapshot(recorded, [before, after])


async def test_reading_a_shared_record_hands_out_an_unshared_copy() -> None:
    model = ScriptedModel([[assistant_message("ok")]] * 2)
    conversation: list[Any] = [{"role": "user", "content": "hi"}]
    await model.get_response(ModelRequest(input=conversation))
    conversation.append({"role": "user", "content": "more"})
    await model.get_response(ModelRequest(input=conversation))

    second = model.calls[1].request.input
    assert isinstance(second, list)
    second[0]["content"] = "changed by the test"

    assert model.calls[0].request.input == [{"role": "user", "content": "hi"}]
    assert model.calls[1].request.input[0] == {"role": "user", "content": "hi"}


# -- property: every snapshot is exact, however the caller mutates between calls -------------

# Values that are equal (or look alike) but are distinguishable: swapping one for another in
# place is the change a bulk equality check would miss.
CONFUSABLE: list[Any] = [0, False, 0.0, -0.0, 1, True, 1.0, "a", b"a", MARKERS[0], MARKERS[1]]


atoms = st.one_of(
    st.sampled_from(CONFUSABLE),
    st.integers(-2, 2),
    st.booleans(),
    st.sampled_from([0.0, -0.0, 1.0, math.nan, math.inf]),
    st.sampled_from(["", "a", "b"]),
    st.none(),
    st.sampled_from([b"", b"x"]),
    st.sampled_from(MARKERS),
)
values = st.recursive(
    atoms,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
        st.tuples(inner, inner),
        st.binary(max_size=2).map(bytearray),
    ),
    max_leaves=8,
)


def containers(value: Any) -> list[Any]:
    """Every dict, list and bytearray reachable from ``value`` (each once)."""
    found: list[Any] = []
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list, bytearray, tuple)) and id(item) not in seen:
            seen.add(id(item))
            if not isinstance(item, tuple):
                found.append(item)
            if isinstance(item, dict):
                stack.extend(item.values())
            elif not isinstance(item, bytearray):
                stack.extend(item)
    return found


@settings(max_examples=100, deadline=None, database=None)
@given(st.data())
def test_snapshots_stay_exact_under_any_mutation_between_calls(data: st.DataObject) -> None:
    conversation: list[Any] = data.draw(st.lists(values, max_size=4))
    stored: list[Any] = []
    expected: list[Any] = []
    for _ in range(data.draw(st.integers(1, 5))):
        for _ in range(data.draw(st.integers(0, 3))):
            target = data.draw(st.sampled_from(containers(conversation)))
            if isinstance(target, dict):
                action = data.draw(st.sampled_from(["set", "confuse", "confuse", "pop", "order"]))
                key = data.draw(st.sampled_from(["a", "b", "c"]))
                if action == "confuse" and target:
                    # Swap a value already there for one equal to it or looking like it.
                    key = data.draw(st.sampled_from(sorted(target)))
                    target[key] = data.draw(st.sampled_from(CONFUSABLE))
                elif action == "set":
                    # Sometimes a value already in the conversation: a new shared reference.
                    shared = containers(conversation)
                    target[key] = data.draw(st.one_of(values, st.sampled_from(shared)))
                elif action == "pop":
                    target.pop(key, None)
                elif action == "order" and target:
                    first = next(iter(target))
                    target[first] = target.pop(first)
            elif isinstance(target, list):
                action = data.draw(
                    st.sampled_from(["append", "replace", "confuse", "confuse", "remove"])
                )
                if target and action == "confuse":
                    position = data.draw(st.integers(0, len(target) - 1))
                    target[position] = data.draw(st.sampled_from(CONFUSABLE))
                elif action == "append":
                    target.append(data.draw(values))
                elif target and action == "replace":
                    target[data.draw(st.integers(0, len(target) - 1))] = data.draw(values)
                elif target:
                    target.pop(0)
            else:
                target.extend(b"z")
        conversation.extend(data.draw(st.lists(values, max_size=2)))
        stored.append(snapshot_sharing(conversation, stored[-1] if stored else None))
        expected.append(snapshot(conversation))
    for before, wanted in zip(stored, expected, strict=True):
        assert_same_snapshot(before, wanted)


@settings(max_examples=100, deadline=None, database=None)
@given(st.data())
def test_swapping_a_value_for_an_equal_looking_one_in_place_is_recorded(
    data: st.DataObject,
) -> None:
    confusable = st.sampled_from(CONFUSABLE)
    item_strategy = st.dictionaries(st.sampled_from(["a", "b"]), confusable, min_size=1)
    conversation: list[Any] = data.draw(st.lists(item_strategy, min_size=1, max_size=4))
    stored: list[Any] = []
    expected: list[Any] = []
    for _ in range(4):
        for _ in range(data.draw(st.integers(0, 2))):
            item = data.draw(st.sampled_from(conversation))
            item[data.draw(st.sampled_from(sorted(item)))] = data.draw(confusable)
        if data.draw(st.booleans()):
            conversation.append(data.draw(item_strategy))
        stored.append(snapshot_sharing(conversation, stored[-1] if stored else None))
        expected.append(snapshot(conversation))
    for before, wanted in zip(stored, expected, strict=True):
        assert_same_snapshot(before, wanted)
