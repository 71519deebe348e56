"""Every public core name is importable from ``agents_testing`` itself."""

from __future__ import annotations

import importlib

import pytest

import agents_testing

CORE_MODULES = ["errors", "items", "model", "sandbox", "realtime"]


@pytest.mark.parametrize("module_name", CORE_MODULES)
def test_core_module_names_are_re_exported(module_name: str) -> None:
    module = importlib.import_module(f"agents_testing.{module_name}")

    missing = [name for name in module.__all__ if name not in agents_testing.__all__]

    assert missing == []
    for name in module.__all__:
        assert getattr(agents_testing, name) is getattr(module, name)


def test_package_all_names_only_existing_objects() -> None:
    assert sorted(agents_testing.__all__) == sorted(set(agents_testing.__all__))
    for name in agents_testing.__all__:
        assert hasattr(agents_testing, name)
