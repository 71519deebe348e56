"""Strategies for bad input, and the rule every public entry point must keep with it."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st

from agents_testing import ModelRequest, ModelResponse, Usage, errors

STRUCTURED: tuple[type[BaseException], ...] = tuple(
    value
    for name in errors.__all__
    if isinstance(value := getattr(errors, name), type) and issubclass(value, BaseException)
)

# Errors that say "something inside broke": never acceptable as a reply to bad input.
INTERNAL: tuple[type[BaseException], ...] = (
    AttributeError,
    LookupError,
    RecursionError,
    OverflowError,
    ZeroDivisionError,
    AssertionError,
    RuntimeError,
)


class ScriptedBoom(Exception):
    """An exception a test scripts on purpose; raising it back is the expected outcome."""


class Opaque:
    """A class instance: the doubles keep it by identity and must not look inside."""

    def __repr__(self) -> str:
        return "<Opaque>"


def _cycle() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


def deep(depth: int, kind: str) -> Any:
    """Return data nested ``depth`` levels deep, built without recursion.

    Kept out of ``junk``: Hypothesis prints failing examples recursively, so deep data is
    drawn as its depth and built inside the test.
    """
    value: Any = [] if kind == "list" else {} if kind == "dict" else ()
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value} if kind == "dict" else (value,)
    return value


def noop(*args: Any, **kwargs: Any) -> None:
    return None


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=True),
    st.text(max_size=6),
    st.binary(max_size=6),
    st.builds(bytearray, st.binary(max_size=4)),
    st.binary(max_size=4).map(lambda data: memoryview(data)),
    st.builds(Opaque),
    st.builds(ScriptedBoom, st.text(max_size=3)),
    st.just(noop),
    st.just(Ellipsis),
    st.builds(_cycle),
    st.builds(lambda: ModelRequest(input="hi")),
    st.builds(Usage),
    st.builds(lambda: ModelResponse(output=[], usage=Usage())),
)

junk = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers()), children, max_size=3),
        st.frozensets(st.integers(), max_size=2),
    ),
    max_leaves=6,
)

names = st.one_of(st.text(max_size=12), junk)
"""A name argument: usually a string (valid or not), sometimes anything at all."""

kwargs_junk = st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), junk, max_size=2)


def outcome(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` (awaiting and draining what it returns) and return what it raised."""
    try:
        result = call()
        if inspect.isawaitable(result) or hasattr(result, "__aiter__"):
            asyncio.run(_drain(result))
    except BaseException as error:  # the property under test judges every exception
        return error
    return None


async def _drain(result: Any) -> None:
    if hasattr(result, "__aiter__"):
        async for _ in result:
            pass
    else:
        await result


def check(error: BaseException | None, names: Iterable[str], scripted: Iterable[Any] = ()) -> None:
    """Fail unless ``error`` is None, a structured error, a scripted one, or a named refusal."""
    if error is None or isinstance(error, STRUCTURED):
        return
    if isinstance(error, ScriptedBoom) or any(error is value for value in scripted):
        return
    assert not isinstance(error, INTERNAL), f"internal error: {type(error).__name__}: {error}"
    assert isinstance(error, (TypeError, ValueError)), (
        f"not a refusal: {type(error).__name__}: {error}"
    )
    message = str(error)
    wanted = list(names)
    assert any(name in message for name in wanted), (
        f"{type(error).__name__} names none of {wanted}: {message}"
    )
