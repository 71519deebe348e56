"""Helpers both check sets share: calling the author's harness and failing a check."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NoReturn, TypeVar

from ._errors import ConformanceError

__all__ = [
    "HarnessMisuseError",
    "chain",
    "described",
    "fail",
    "method",
    "parsed",
    "raised",
    "returned",
    "returned_as",
    "run_harness",
]

_T = TypeVar("_T")


class HarnessMisuseError(TypeError):
    """A harness that does not keep its protocol: the author's bug, not a FAIL."""


def method(harness: object, name: str) -> Callable[..., object]:
    """Return ``harness.<name>``, refusing a harness without it."""
    found: object = getattr(harness, name, None)
    if not callable(found):
        raise HarnessMisuseError(
            f"The harness {type(harness).__name__} has no {name}() method; write it as the "
            "harness protocol of agents_testing.conformance (ModelHarness, WireHarness) "
            "describes."
        )
    return found


async def run_harness(harness: object, name: str, *args: object, **kwargs: object) -> object:
    """Await ``harness.<name>(...)``, refusing a method that is not ``async``."""
    result = method(harness, name)(*args, **kwargs)
    if not inspect.isawaitable(result):
        raise HarnessMisuseError(
            f"The harness's {name}() returned {type(result).__name__}, not an awaitable; "
            "make it an async def."
        )
    return await result


def returned_as(value: object, kind: type[_T], name: str, shape: str) -> _T:
    """Return what ``harness.<name>()`` returned, refusing a value not of ``kind``."""
    if not isinstance(value, kind):
        raise HarnessMisuseError(
            f"The harness's {name}() returned {type(value).__name__}; return {shape}."
        )
    return value


def fail(check: str, expected: str, actual: str, fix: str) -> NoReturn:
    """Raise the check's ``ConformanceError``."""
    raise ConformanceError(check, expected, actual, fix)


def described(error: BaseException) -> str:
    """Describe an exception as ``Type: message``."""
    return f"{type(error).__name__}: {error}"


async def returned(check: str, run: Awaitable[_T], fix: str) -> _T:
    """Await a harness run that should succeed; a failure becomes the check's error."""
    try:
        return await run
    except HarnessMisuseError:
        raise
    except Exception as error:
        raise ConformanceError(
            check, "the run to succeed", f"it raised {described(error)}", fix
        ) from error


async def raised(run: Awaitable[object]) -> Exception | None:
    """Await a harness run that may fail; return what it raised, if anything."""
    try:
        await run
    except HarnessMisuseError:
        raise
    except Exception as error:
        return error
    return None


def parsed(arguments: str | Mapping[str, Any]) -> object:
    """Return tool-call arguments as parsed JSON (the string itself if it is not JSON)."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return dict(arguments)


def chain(error: BaseException) -> list[BaseException]:
    """Return ``error`` and every exception a traceback of it shows as its cause or context."""
    links: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in links:
        links.append(current)
        # ``raise ... from None`` hides the context from the traceback, so it is lost here.
        hidden = current.__suppress_context__
        current = current.__cause__ or (None if hidden else current.__context__)
    return links
