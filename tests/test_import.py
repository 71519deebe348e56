"""The core imports nothing outside the standard library (it may be vendored as a folder)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import agents_testing

# The folder that holds the package under test: the checkout, or site-packages when the
# suite runs against an installed copy.
PACKAGE_PARENT = Path(agents_testing.__file__).resolve().parent.parent

# Runs in a fresh interpreter in isolated mode (-I: no PYTHON* variables, no user site, no
# script directory on sys.path), so only the path given here adds importable code.
PROBE = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
module = importlib.import_module(sys.argv[2])
foreign = sorted(
    name for name in set(sys.modules) - before
    if name.partition(".")[0] not in sys.stdlib_module_names
    and name.partition(".")[0] != "agents_testing"
)
print(json.dumps({"file": module.__file__, "foreign": foreign}))
"""

CORE_MODULES = [
    "agents_testing",
    "agents_testing.items",
    "agents_testing.errors",
    "agents_testing.model",
    "agents_testing.sandbox",
    "agents_testing.realtime",
    "agents_testing._snapshot",
    "agents_testing.wire",
    "agents_testing.wire.openai_responses",
    "agents_testing.wire.openai_chat",
    "agents_testing.wire.anthropic_messages",
    "agents_testing.wire.server",
    "agents_testing.recording",
    "agents_testing.wire.recording_proxy",
    # The conformance kit's checks: an adapter author's test suite may run them on the core alone.
    "agents_testing.conformance",
    # Its pytest base class too: pytest finds it by name, it needs no pytest import.
    "agents_testing.conformance.pytest",
]


def run_probe(module: str, *flags: str) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-I", *flags, "-c", PROBE, str(PACKAGE_PARENT), module],
        cwd=PACKAGE_PARENT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    result: dict[str, object] = json.loads(completed.stdout)
    assert Path(str(result["file"])).is_relative_to(PACKAGE_PARENT / "agents_testing")
    return result


@pytest.mark.parametrize("module", CORE_MODULES)
def test_importing_the_core_loads_no_installed_package(module: str) -> None:
    # With site-packages available, a guarded import of an installed package would show here.
    assert run_probe(module)["foreign"] == []


@pytest.mark.parametrize("module", CORE_MODULES)
def test_the_core_imports_without_site_packages(module: str) -> None:
    # -S: no site-packages at all, as when the folder is vendored into a bare interpreter.
    assert run_probe(module, "-S")["foreign"] == []


def test_installed_metadata_carries_the_package_version() -> None:
    # The version is written once, in agents_testing/__init__.py; the build reads it from there.
    from importlib import metadata

    try:
        installed = metadata.version("agents-testing")
    except metadata.PackageNotFoundError:
        pytest.skip("agents_testing is used as a folder here, not installed")
    assert installed == agents_testing.__version__, (
        "installed metadata is stale: reinstall the package (pip install -e .)"
    )
