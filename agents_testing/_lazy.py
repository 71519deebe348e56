"""Load a module's names from its submodules on first use."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    namespace: dict[str, Any], modules: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the ``__getattr__`` and ``__dir__`` of the module whose globals are ``namespace``.

    ``modules`` maps each lazy name to the sibling module (relative to the package) that
    defines it; the first access imports that module and caches the name in ``namespace``.
    """
    module_name: str = namespace["__name__"]
    package: str = namespace["__package__"]

    def load(name: str) -> Any:
        submodule = modules.get(name)
        if submodule is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{submodule}", package), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(modules))

    return load, names
