"""Run every ``python`` code block in the README and in docs/, as a user would paste it."""

from __future__ import annotations

import asyncio
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _blocks() -> list[tuple[str, str]]:
    found = []
    for document in DOCUMENTS:
        for number, match in enumerate(BLOCK.finditer(document.read_text()), start=1):
            found.append((f"{document.relative_to(ROOT)}#{number}", match.group(1)))
    return found


@pytest.mark.parametrize(("where", "source"), _blocks(), ids=[where for where, _ in _blocks()])
def test_code_block_runs(where: str, source: str) -> None:
    namespace: dict[str, object] = {"__name__": f"docs_block_{abs(hash(where))}"}
    exec(compile(source, where, "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    for test in tests:
        assert callable(test)
        result = test()
        if inspect.iscoroutine(result):
            asyncio.run(result)


def test_readme_has_runnable_blocks() -> None:
    assert any(where.startswith("README.md") for where, _ in _blocks())
