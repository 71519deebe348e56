"""Keep every ``python`` code block in the README and in docs/ working.

A block preceded by ``<!-- include: examples/FILE.py::NAME -->`` must equal the source of
``NAME`` (a function or class) in that example, which the test run executes anyway; one
preceded by ``<!-- include: examples/FILE.py -->`` must equal the whole file (an app module
that examples import). Every other block is executed as a user would paste it, and its
``test_*`` functions are called.

After editing an example, refresh the included blocks with
``python tests/docs/test_code_blocks.py --sync``.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(
    r"(?:^<!-- include: (?P<include>\S+) -->\n)?^```python\n(?P<code>.*?)^```",
    re.MULTILINE | re.DOTALL,
)
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Optional integrations: a block importing one is skipped where it is not installed.
FRAMEWORKS = {
    "agents",
    "pydantic_ai",
    "langchain_core",
    "langchain",
    "langgraph",
    "openai",
    "anthropic",
    "httpx",
}


def _blocks() -> list[tuple[str, str | None, str]]:
    found = []
    for document in DOCUMENTS:
        for number, match in enumerate(BLOCK.finditer(document.read_text()), start=1):
            where = f"{document.relative_to(ROOT)}#{number}"
            found.append((where, match.group("include"), match.group("code")))
    return found


def included_source(include: str) -> str:
    """Return the source of ``path::name`` from an example file, decorators included."""
    path, separator, name = include.partition("::")
    source = (ROOT / path).read_text()
    if not separator:
        return source
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.parse(source).body:
        if isinstance(node, definitions) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            assert node.end_lineno is not None
            lines = source.splitlines(keepends=True)[first - 1 : node.end_lineno]
            return "".join(lines)
    raise LookupError(f"{include}: no top-level function or class {name!r}")


BLOCKS = _blocks()
EXECUTED = [(where, code) for where, include, code in BLOCKS if include is None]
INCLUDED = [(where, include, code) for where, include, code in BLOCKS if include is not None]


@pytest.mark.parametrize(("where", "source"), EXECUTED, ids=[where for where, _ in EXECUTED])
def test_code_block_runs(where: str, source: str) -> None:
    namespace: dict[str, object] = {"__name__": f"docs_block_{abs(hash(where))}"}
    try:
        exec(compile(source, where, "exec"), namespace)
    except ModuleNotFoundError as error:
        # A block written for one framework is skipped, as the examples are, where that
        # framework is not installed (the core-only test runs).
        if error.name is None or error.name.partition(".")[0] not in FRAMEWORKS:
            raise
        pytest.skip(f"{where} needs {error.name}")
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    for test in tests:
        assert callable(test)
        result = test()
        if inspect.iscoroutine(result):
            asyncio.run(result)


@pytest.mark.parametrize(
    ("where", "include", "code"), INCLUDED, ids=[where for where, _, _ in INCLUDED]
)
def test_included_block_matches_its_example(where: str, include: str, code: str) -> None:
    assert code == included_source(include), (
        f"{where} differs from {include}; run python tests/docs/test_code_blocks.py --sync"
    )


# Names a page defines in prose rather than in a block: the app module whose whole source
# model.md shows above the tests that import it.
DEFINED_IN_PROSE = {"docs/model.md": {"support_app"}}


def _undefined_names(code_blocks: list[str]) -> set[str]:
    """Return the names the blocks read that no block imports, defines or assigns."""
    defined = set(dir(builtins))
    read: set[str] = set()
    for code in code_blocks:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.arg):
                defined.add(node.arg)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                defined.add(node.name)
            elif isinstance(node, ast.Name):
                (read if isinstance(node.ctx, ast.Load) else defined).add(node.id)
    return read - defined


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_name_a_page_uses_is_defined_on_that_page(document: Path) -> None:
    where = str(document.relative_to(ROOT))
    code_blocks = [code for place, _, code in BLOCKS if place.startswith(f"{where}#")]

    undefined = _undefined_names(code_blocks) - DEFINED_IN_PROSE.get(where, set())

    assert not undefined, f"{where} uses names none of its blocks define: {sorted(undefined)}"


def test_readme_has_runnable_blocks() -> None:
    assert any(where.startswith("README.md") for where, _ in EXECUTED)


def sync() -> None:
    """Rewrite every included block from its example's current source."""
    for document in DOCUMENTS:
        text = document.read_text()

        def refresh(match: re.Match[str]) -> str:
            include = match.group("include")
            if include is None:
                return match.group(0)
            return f"<!-- include: {include} -->\n```python\n{included_source(include)}```"

        updated = BLOCK.sub(refresh, text)
        if updated != text:
            document.write_text(updated)
            print(f"updated {document.relative_to(ROOT)}")


if __name__ == "__main__" and "--sync" in sys.argv:
    sync()
