"""The core's hand-written dataclass methods behave as the ones ``@dataclass`` generates.

The dataclasses of ``items`` (and the records ``RecordedModelCall`` and ``SandboxCall``) write
``__init__`` by hand and get ``__repr__``, ``__eq__``, ``__hash__`` and the frozen
``__setattr__`` / ``__delattr__`` from a maker that compiles no source. Each class is checked
here against a twin that plain ``@dataclass`` makes from the same field declarations on the
running Python, so the check follows what each supported Python generates (3.13 compares
fields one by one, for instance, where 3.10 to 3.12 compare tuples). ``Usage`` declares
``init=False`` for an ``__init__`` of its own, which its twin shares.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import operator
import pickle
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing.items import (
    ModelRequest,
    ModelResponse,
    ModelRetryAdvice,
    RetryAdviceRequest,
    Usage,
)
from agents_testing.model import RecordedModelCall
from agents_testing.sandbox import SandboxCall

CLASSES: tuple[type[Any], ...] = (
    Usage,
    ModelResponse,
    ModelRequest,
    ModelRetryAdvice,
    RetryAdviceRequest,
    RecordedModelCall,
    SandboxCall,
)


def make_twin(cls: type[Any]) -> type[Any]:
    """Return the class plain ``@dataclass`` makes from ``cls``'s own field declarations."""
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__annotations__": {item.name: item.type for item in dataclasses.fields(cls)},
    }
    for item in dataclasses.fields(cls):
        namespace[item.name] = dataclasses.field(
            default=item.default,
            default_factory=item.default_factory,
            init=item.init,
            repr=item.repr,
            hash=item.hash,
            compare=item.compare,
            metadata=item.metadata,
        )
    params = cls.__dataclass_params__
    if not params.init:
        namespace["__init__"] = vars(cls)["__init__"]  # a class's own API, not generated
    twin: type[Any] = dataclasses.dataclass(init=params.init, frozen=params.frozen)(
        type(cls.__name__, (), namespace)
    )
    # A record's detached field is a descriptor set after the class is made: give the twin
    # the same one, so both read a field the same way.
    for item in dataclasses.fields(cls):
        attribute = vars(cls).get(item.name)
        if hasattr(attribute, "__set__"):
            setattr(twin, item.name, attribute)
    return twin


TWINS: dict[type[Any], type[Any]] = {cls: make_twin(cls) for cls in CLASSES}


class Odd:
    """A value whose ``==`` answers something other than a bool, or raises."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def __eq__(self, other: object) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def __hash__(self) -> int:
        return 7

    def __repr__(self) -> str:
        return f"Odd({self.answer!r})"


NAN = math.nan

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, -0.0, 1.0, NAN]),  # one shared NaN object, and a fresh one below
    st.builds(float, st.just("nan")),
    st.text(max_size=3),
    st.builds(Odd, st.sampled_from([True, False, 0, 1, "", "yes", None, ValueError("no")])),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.sampled_from(["input_tokens", "output_tokens", "a"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def field_value(cls: type[Any], name: str) -> st.SearchStrategy[Any]:
    """Draw a value for one field: often one that the class accepts, sometimes anything."""
    if cls is RecordedModelCall and name == "request":
        return st.builds(ModelRequest, values)
    if cls is Usage and name not in ("input_tokens_details", "output_tokens_details"):
        return st.one_of(st.integers(0, 5), st.none(), values)
    return values


@st.composite
def arguments(draw: st.DrawFn, cls: type[Any]) -> tuple[list[Any], dict[str, Any]]:
    """Draw the arguments of one construction: positional, keyword, some left to defaults."""
    declared = dataclasses.fields(cls)
    positional_count = draw(st.integers(0, len(declared)))
    positional = [draw(field_value(cls, item.name)) for item in declared[:positional_count]]
    keywords: dict[str, Any] = {}
    for item in declared[positional_count:]:
        required = item.default is dataclasses.MISSING and (
            item.default_factory is dataclasses.MISSING
        )
        if required or draw(st.booleans()):
            keywords[item.name] = draw(field_value(cls, item.name))
    mistake = draw(st.sampled_from(["none", "unknown", "extra", "missing", "twice"]))
    if mistake == "unknown":
        keywords["no_such_field"] = 1
    elif mistake == "extra":
        positional += [None] * (len(declared) - len(positional) + 1)
    elif mistake == "missing" and keywords:
        keywords.pop(sorted(keywords)[0])
    elif mistake == "twice" and positional:
        keywords[declared[0].name] = None
    return positional, keywords


# An argument error starts with the name of the function that refused the arguments
# ("RecordedModelCall.__init__() got an unexpected keyword argument 'x'"). That name is the one
# the function's code was compiled under, so it tells how the function was made, not what it
# does: under mutmut the class's __init__ is a wrapper that calls a renamed copy, and the message
# names the copy. The comparison leaves the name out; test_each_class_is_still_a_dataclass_with_
# the_twins_options checks that each method is declared under its class's name, where Python
# takes the name from.
FUNCTION_NAME = re.compile(r"^\S+\(\) ")


def build(cls: type[Any], call: tuple[list[Any], dict[str, Any]]) -> tuple[Any, str | None]:
    """Build ``cls`` from ``call``; return the instance or the error it raised, as text."""
    positional, keywords = call
    try:
        return cls(*positional, **keywords), None
    except Exception as error:
        message = FUNCTION_NAME.sub("<function>() ", str(error), count=1)
        return None, f"{type(error).__name__}: {message}"


def outcome(action: Callable[[], Any]) -> tuple[str, Any]:
    """Return what ``action`` returned, or the type and message of what it raised."""
    try:
        return "returned", action()
    except Exception as error:
        return "raised", f"{type(error).__name__}: {error}"


def compared(how: Callable[[Any, Any], Any], left: Any, right: Any) -> tuple[str, Any]:
    return outcome(lambda: how(left, right))


def same(ours: Any, theirs: Any) -> bool:
    """Tell whether two results are the same, treating a NaN as itself."""
    return repr(ours) == repr(theirs) and type(ours) is type(theirs)


def state(instance: Any) -> str:
    return repr(sorted(vars(instance).items()))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_each_class_is_still_a_dataclass_with_the_twins_options(cls: type[Any]) -> None:
    twin = TWINS[cls]

    assert [
        (item.name, item.type, item.default, item.default_factory, item.init, item.kw_only)
        for item in dataclasses.fields(cls)
    ] == [
        (item.name, item.type, item.default, item.default_factory, item.init, item.kw_only)
        for item in dataclasses.fields(twin)
    ]
    assert cls.__match_args__ == twin.__match_args__
    assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)
    assert (cls.__hash__ is None) == (twin.__hash__ is None)
    for name in ("__init__", "__repr__", "__eq__", "__hash__"):
        method = vars(cls)[name]
        if method is not None:
            assert method.__qualname__ == f"{cls.__qualname__}.{name}"
    assert dataclasses.is_dataclass(cls)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_each_init_has_the_generated_signature(cls: type[Any]) -> None:
    def parameters(function: Any) -> list[tuple[str, Any, str]]:
        signature = inspect.signature(function)
        return [(p.name, p.kind, repr(p.default)) for p in signature.parameters.values()]

    assert parameters(cls.__init__) == parameters(TWINS[cls].__init__)
    assert parameters(cls) == parameters(TWINS[cls])


@settings(max_examples=250, deadline=None)
@given(data=st.data())
def test_hand_written_methods_match_the_generated_ones(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(CLASSES))
    twin = TWINS[cls]
    first = data.draw(arguments(cls), label="first")
    second = first if data.draw(st.booleans()) else data.draw(arguments(cls), label="second")

    # The twin gets copies (one copy of both calls, so a value shared between them stays so).
    twin_first, twin_second = copy.deepcopy((first, second))

    (ours, our_error), (theirs, their_error) = build(cls, first), build(twin, twin_first)
    # __init__: the same values stored (defaults and __post_init__ included), or the same error.
    assert our_error == their_error
    if ours is None:
        return
    assert state(ours) == state(theirs)
    (other, _), (twin_other, _) = build(cls, second), build(twin, twin_second)

    # A record may hold itself: repr shows "..." where it recurses, as the generated one does.
    container = getattr(ours, dataclasses.fields(cls)[0].name, None)
    if isinstance(container, list) and data.draw(st.booleans(), label="holds itself"):
        container.append(ours)
        twin_container = getattr(theirs, dataclasses.fields(cls)[0].name)
        twin_container.append(theirs)
    assert repr(ours) == repr(theirs)

    # __eq__: the same answer (or error) against itself, an equal-built one, a twin, anything.
    for left, right in ((ours, theirs), (other, twin_other), (1, 1), (None, None)):
        for how in (operator.eq, operator.ne, lambda a, b: a.__eq__(b)):
            assert same(compared(how, ours, left), compared(how, theirs, right))
    assert (ours == theirs) is False  # a different class, as for any two dataclasses

    # __hash__: the same hash, or the same refusal.
    assert same(outcome(lambda: hash(ours)), outcome(lambda: hash(theirs)))

    # Frozenness: assigning or deleting a field fails (or works) the same way.
    name = data.draw(st.sampled_from([item.name for item in dataclasses.fields(cls)]))
    assert same(
        outcome(lambda: setattr(ours, name, None)), outcome(lambda: setattr(theirs, name, None))
    )
    assert same(outcome(lambda: delattr(ours, name)), outcome(lambda: delattr(theirs, name)))


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_replace_asdict_and_pickle_match_the_generated_ones(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(CLASSES))
    twin = TWINS[cls]
    call = data.draw(arguments(cls).filter(lambda call: build(cls, call)[0] is not None))
    ours, theirs = build(cls, call)[0], build(twin, copy.deepcopy(call))[0]
    changes = {
        item.name: data.draw(field_value(cls, item.name))
        for item in dataclasses.fields(cls)
        if data.draw(st.booleans())
    }

    replaced = outcome(lambda: dataclasses.replace(ours, **changes))
    twin_replaced = outcome(lambda: dataclasses.replace(theirs, **changes))
    assert replaced[0] == twin_replaced[0]
    if replaced[0] == "returned":
        assert type(replaced[1]) is cls
        assert repr(replaced[1]) == repr(twin_replaced[1])
    else:
        assert replaced == twin_replaced
    assert same(
        outcome(lambda: dataclasses.asdict(ours)), outcome(lambda: dataclasses.asdict(theirs))
    )
    assert same(
        outcome(lambda: dataclasses.astuple(ours)), outcome(lambda: dataclasses.astuple(theirs))
    )
    restored = outcome(lambda: pickle.loads(pickle.dumps(ours)))
    if restored[0] == "returned":
        assert type(restored[1]) is cls
        assert repr(restored[1]) == repr(ours)


def test_a_nan_field_compares_as_the_running_python_generates() -> None:
    # 3.10 to 3.12 compare tuples, where one NaN object equals itself; 3.13 compares the
    # fields with ==, where it does not. Both sides must follow the running Python.
    ours = ModelRetryAdvice(retry_after=NAN), ModelRetryAdvice(retry_after=NAN)
    twin = TWINS[ModelRetryAdvice]
    theirs = twin(retry_after=NAN), twin(retry_after=NAN)

    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    assert ours[0] == ours[0]


def test_frozen_classes_refuse_assignment_with_the_frozen_error() -> None:
    request = ModelRequest(input="hi")

    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'input'"):
        request.input = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'tools'"):
        del request.tools
    hashable: dict[str, Any] = {"input": "hi", "model_settings": (), "extra": ()}
    assert hash(ModelRequest(**hashable)) == hash(TWINS[ModelRequest](**hashable))
    with pytest.raises(TypeError, match="unhashable type: 'dict'"):
        hash(request)  # the default model_settings is a dict, as it was


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("frozen", [False, True], ids=["plain", "frozen"])
def test_a_dataclass_subclass_is_made_as_from_the_twin(cls: type[Any], frozen: bool) -> None:
    # @dataclass refuses a frozen subclass of a plain dataclass and the other way round.
    def subclass(base: type[Any]) -> tuple[str, Any]:
        namespace = {"__annotations__": {"added": int}, "added": 0}
        return outcome(
            lambda: dataclasses.dataclass(frozen=frozen)(type("Sub", (base,), namespace))
        )

    ours, theirs = subclass(cls), subclass(TWINS[cls])

    assert ours[0] == theirs[0]
    if ours[0] == "raised":
        assert ours == theirs
        return
    arguments_of: dict[type[Any], list[Any]] = {
        Usage: [],
        ModelResponse: [[], Usage()],
        ModelRequest: ["hi"],
        ModelRetryAdvice: [],
        RetryAdviceRequest: [ValueError("x"), False, 0],
        RecordedModelCall: [0, False, ModelRequest("hi")],
        SandboxCall: [0, "exec", ("pwd",), {"timeout": 1}],
    }
    given = arguments_of[cls]
    instance, twin_instance = ours[1](*given, added=1), theirs[1](*given, added=1)
    assert repr(instance) == repr(twin_instance)
    assert same(outcome(lambda: hash(instance)), outcome(lambda: hash(twin_instance)))
    for name in ("added", dataclasses.fields(cls)[0].name):
        assert same(
            compared(lambda record, field: setattr(record, field, 2), instance, name),
            compared(lambda record, field: setattr(record, field, 2), twin_instance, name),
        )
