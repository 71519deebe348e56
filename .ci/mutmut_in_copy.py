"""Run mutmut with another ``[tool.mutmut]`` table, in a copy of the repository.

Usage: python .ci/mutmut_in_copy.py CONFIG MUTMUT_ARGS...
e.g.   .venv/bin/python .ci/mutmut_in_copy.py .ci/mutmut-wire.toml run --max-children 2

mutmut reads its configuration only from ``pyproject.toml`` in the folder it runs in, and
keeps its results in that folder's ``mutants/``. The core doubles' measurement owns the
repository's own table; an area measured against other tests (the wire endpoint, say) gets
a table of its own in CONFIG and runs in ``mutants-<name>/`` (``mutants-wire/`` for
``mutmut-wire.toml``), a copy of the package, the tests and the root conftest under a
``pyproject.toml`` whose ``[tool.mutmut]`` is CONFIG's. Everything else in the project's
``pyproject.toml`` (the pytest settings above all) is kept. Each call refreshes the copy,
so a second ``run`` re-runs only what changed, as in the repository itself; ``results`` and
``show`` read that copy's results.
"""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("agents_testing", "tests", "conftest.py")
TABLE = re.compile(r"^\[tool\.mutmut\]\n(?:(?!\[).*\n|\n)*", re.MULTILINE)


def pyproject_with(table: str) -> str:
    """Return the project's ``pyproject.toml`` with its ``[tool.mutmut]`` replaced by ``table``."""
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    if TABLE.search(text) is None:
        raise SystemExit("pyproject.toml has no [tool.mutmut] table to replace")
    if not table.startswith("[tool.mutmut]\n") or TABLE.fullmatch(table + "\n") is None:
        raise SystemExit("the config must hold the [tool.mutmut] table and nothing else")
    return TABLE.sub(lambda _: table.rstrip("\n") + "\n\n", text, count=1)


def refresh(source: Path, target: Path) -> None:
    """Make ``target`` a copy of ``source``, rewriting only the files that differ."""
    if source.is_file():
        if not target.is_file() or not filecmp.cmp(source, target, shallow=False):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        return
    wanted = {
        path.relative_to(source)
        for path in source.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    if target.is_dir():
        for path in target.rglob("*"):
            stale = path.is_file() and path.relative_to(target) not in wanted
            if stale and "__pycache__" not in path.parts:
                path.unlink()
    for relative in sorted(wanted):
        refresh(source / relative, target / relative)


def main(arguments: list[str]) -> int:
    if len(arguments) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    config = Path(arguments[0]).resolve()
    name = config.stem.removeprefix("mutmut-")
    copy = ROOT / f"mutants-{name}"
    copy.mkdir(exist_ok=True)
    for entry in COPIED:
        refresh(ROOT / entry, copy / entry)
    pyproject = pyproject_with(config.read_text("utf-8"))
    if not (copy / "pyproject.toml").is_file() or (
        (copy / "pyproject.toml").read_text("utf-8") != pyproject
    ):
        (copy / "pyproject.toml").write_text(pyproject, "utf-8")
    mutmut = Path(sys.executable).with_name("mutmut")
    os.chdir(copy)
    os.execv(mutmut, [str(mutmut), *arguments[1:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
