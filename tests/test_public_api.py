"""Every public core name is importable from ``agents_testing`` itself."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import agents_testing

CORE_MODULES = ["errors", "items", "model", "sandbox", "realtime", "mcp", "tracing"]


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


def test_the_realtime_and_sandbox_doubles_load_on_first_use() -> None:
    script = (
        "import sys\n"
        "import agents_testing\n"
        "parts = ['agents_testing.realtime', 'agents_testing.sandbox', 'asyncio']\n"
        "print([part in sys.modules for part in parts])\n"
        "from agents_testing import ScriptedRealtimeTransport\n"
        "from agents_testing.realtime import ScriptedRealtimeTransport as real\n"
        "print([part in sys.modules for part in parts], ScriptedRealtimeTransport is real)\n"
        "session = agents_testing.scripted_sandbox_session\n"
        "print([part in sys.modules for part in parts], session.__module__)\n"
        "print(all(name in dir(agents_testing) for name in agents_testing.__all__))\n"
        "try:\n"
        "    agents_testing.no_such_name\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
    )

    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )

    assert completed.stdout.splitlines() == [
        "[False, False, False]",
        "[True, False, True] True",
        "[True, True, True] agents_testing.sandbox",
        "True",
        "module 'agents_testing' has no attribute 'no_such_name'",
    ]
