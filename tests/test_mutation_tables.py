"""The mutation-testing tables name files that exist, and ``.ci/mutmut_in_copy.py`` takes them.

A table whose module or test file was renamed would make mutmut measure nothing, or stop in
its stats run, only when a maintainer next runs it (see CONTRIBUTING.md, "Mutation testing").
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest itself needs tomli before 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

ROOT = Path(__file__).resolve().parents[1]
if not (ROOT / ".ci" / "mutmut_in_copy.py").is_file():
    # CI also runs the tests against the built wheel, in a folder without .ci/ or the
    # package's source: the tables name files of the repository, which only it has.
    pytest.skip("needs the repository checkout (.ci/ and the source)", allow_module_level=True)
TABLES = sorted((ROOT / ".ci").glob("mutmut-*.toml"))


def _copier() -> Any:
    spec = importlib.util.spec_from_file_location("mutmut_in_copy", ROOT / ".ci/mutmut_in_copy.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mutmut(text: str) -> dict[str, Any]:
    table: dict[str, Any] = tomllib.loads(text)["tool"]["mutmut"]
    return table


def test_every_area_has_a_table() -> None:
    names = {path.name for path in TABLES}
    assert {
        "mutmut-wire.toml",
        "mutmut-mcp.toml",
        "mutmut-voice.toml",
        "mutmut-tracing.toml",
        "mutmut-recording.toml",
        "mutmut-server.toml",
    } <= names


@pytest.mark.parametrize("path", [ROOT / "pyproject.toml", *TABLES], ids=lambda p: p.name)
def test_a_table_names_only_files_that_exist(path: Path) -> None:
    table = _mutmut(path.read_text("utf-8"))

    assert table["only_mutate"], "a table mutates at least one module"
    named = [*table["only_mutate"], *table.get("also_copy", [])]
    for argument in table["pytest_add_cli_args_test_selection"]:
        if argument.startswith("--ignore="):
            named.append(argument.removeprefix("--ignore="))
        elif not argument.startswith("-"):
            named.append(argument)
    missing = [name for name in named if not (ROOT / name).exists()]
    assert missing == []


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_the_copier_puts_a_table_in_place_of_the_projects_own(path: Path) -> None:
    table = path.read_text("utf-8")

    written = _copier().pyproject_with(table)

    assert _mutmut(written) == _mutmut(table)
    # Everything else in the project's pyproject.toml is kept.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    kept = tomllib.loads(written)
    assert kept["project"] == project["project"]
    assert kept["tool"]["pytest"] == project["tool"]["pytest"]
