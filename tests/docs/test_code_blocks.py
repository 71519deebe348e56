"""Keep every ``python`` code block in the README and in docs/ working, as a user runs it.

A block preceded by ``<!-- include: examples/FILE.py::NAME -->`` must equal the source of
``NAME`` (a function or class) in that example; one preceded by
``<!-- include: examples/FILE.py -->`` must equal the whole file (an app module that examples
import). Every other block, and every example, is run the way a user would: written into a
fresh folder with no conftest.py and no pytest configuration, then run by one pytest
subprocess with only the installed plugins. The documented setup is
``pip install "agents-testing[openai-agents]" pytest pytest-asyncio``, so pytest-asyncio runs
in its default strict mode.

After editing an example, refresh the included blocks with
``python tests/docs/test_code_blocks.py --sync``.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
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
    "mcp",
    "fastmcp",
    "langchain_mcp_adapters",
    "opentelemetry",
    # openai-agents' voice extra, which the VoicePipeline recipes need.
    "numpy",
    "livekit",
    "pipecat",
}

# An adapter module needs its framework even when the block imports only the adapter.
ADAPTER_FRAMEWORKS = {
    "agents_testing.adapters.openai_agents": "agents",
    "agents_testing.adapters.pydantic_ai": "pydantic_ai",
    "agents_testing.adapters.langchain": "langchain_core",
    "agents_testing.adapters.httpx": "httpx",
    "agents_testing.adapters.opentelemetry": "opentelemetry",
    "agents_testing.adapters.livekit": "livekit",
    "agents_testing.adapters.pipecat": "pipecat",
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


# The example tests; examples/ also holds app modules they import, copied next to them.
EXAMPLES = sorted(path.name for path in (ROOT / "examples").glob("example_*.py"))

# Blocks and examples run under the network guard below; it is a plugin loaded from outside
# the project folder, so the folder itself stays as a user's would be.
NO_NETWORK_PLUGIN = """
import ipaddress
import socket

import pytest


class NetworkBlockedError(RuntimeError):
    pass


def _loopback(host):
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    try:
        return ipaddress.ip_address(str(host).partition("%")[0]).is_loopback
    except ValueError:
        return False


def pytest_configure(config):
    connect, getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def guarded_connect(self, address):
        if self.family == socket.AF_UNIX or (isinstance(address, tuple) and _loopback(address[0])):
            return connect(self, address)
        raise NetworkBlockedError(f"test tried to connect to {address!r}")

    def guarded_getaddrinfo(host, *args, **kwargs):
        if _loopback(host):
            return getaddrinfo(host, *args, **kwargs)
        raise NetworkBlockedError(f"test tried to resolve {host!r}")

    socket.socket.connect = guarded_connect
    socket.getaddrinfo = guarded_getaddrinfo
"""


def block_file(where: str) -> str:
    """Return the test file name a block is written to, e.g. ``test_docs_model_md_1.py``."""
    return "test_" + re.sub(r"\W+", "_", where.lower()) + ".py"


def missing_framework(source: str) -> str | None:
    """Return the first framework the source imports that is not installed, if any."""
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            top = ADAPTER_FRAMEWORKS.get(name, name.partition(".")[0])
            if top in FRAMEWORKS and importlib.util.find_spec(top) is None:
                return top
    return None


@dataclass
class FileReport:
    """What pytest reported for one file of the user project."""

    tests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # failures and errors, with their text
    skips: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def user_project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FileReport]:
    """Run every executed block and every example in one fresh folder, with one pytest."""
    project = tmp_path_factory.mktemp("user_project")
    plugins = tmp_path_factory.mktemp("plugins")
    (plugins / "docs_no_network.py").write_text(NO_NETWORK_PLUGIN)
    files = []
    for where, source in EXECUTED:
        if missing_framework(source) is None:
            (project / block_file(where)).write_text(source)
            files.append(block_file(where))
    for path in (ROOT / "examples").glob("*.py"):
        shutil.copy(path, project / path.name)
    files += EXAMPLES  # named on the command line: pytest collects example_*.py then
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env["PYTHONPATH"] = str(plugins)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *("-p", "docs_no_network", "-p", "no:cacheprovider", "-p", "no:langsmith_plugin"),
            *("--rootdir", str(project), "-o", "junit_family=xunit1", "--junitxml=report.xml"),
            *files,
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode in (0, 1), output
    reports = {name: FileReport() for name in files}
    for case in ET.parse(project / "report.xml").iter("testcase"):
        # The project is flat, so a test's module is its classname's first part. Its "file"
        # is where the test function is defined: a base class's module for inherited tests
        # (a conformance kit subclass), which the project does not hold.
        module = case.get("classname", "").partition(".")[0]
        name = f"{module}.py" if module else Path(case.get("file", "")).name
        report = reports.setdefault(name, FileReport())
        report.tests.append(case.get("name", ""))
        for child in case:
            text = f"{child.get('message', '')}\n{child.text or ''}"
            if child.tag in ("failure", "error"):
                report.problems.append(text)
            elif child.tag == "skipped":
                report.skips.append(text)
    unexpected = set(reports) - set(files)
    assert not unexpected, f"pytest reported unknown files {unexpected}:\n{output}"
    return reports


def assert_ran(report: FileReport) -> None:
    assert report.problems == [], "\n".join(report.problems)
    # A test may skip only because a framework it imports is not installed.
    for skip in report.skips:
        module = re.search(r"could not import '([\w.]+)'", skip)
        assert module is not None, skip
        assert importlib.util.find_spec(module.group(1).partition(".")[0]) is None, skip


@pytest.mark.parametrize(("where", "source"), EXECUTED, ids=[where for where, _ in EXECUTED])
def test_code_block_runs_in_a_user_project(
    where: str, source: str, user_project: dict[str, FileReport]
) -> None:
    framework = missing_framework(source)
    if framework is not None:
        pytest.skip(f"{where} needs {framework}, which is not installed")
    assert_ran(user_project[block_file(where)])


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_in_a_user_project(name: str, user_project: dict[str, FileReport]) -> None:
    report = user_project[name]
    assert report.tests, f"examples/{name} has no tests"
    assert_ran(report)


def _marks_async(decorator: ast.expr) -> bool:
    text = ast.unparse(decorator)
    return text in ("pytest.mark.asyncio", "pytest.mark.anyio")


def test_async_recipes_carry_the_asyncio_marker() -> None:
    # Strict mode (pytest-asyncio's default) runs an async test only with the marker; a
    # missing one shows as a failure in the user project, but this names the test directly.
    sources = [(where, source) for where, source in EXECUTED]
    sources += [(f"examples/{name}", (ROOT / "examples" / name).read_text()) for name in EXAMPLES]
    unmarked = [
        f"{where}::{node.name}"
        for where, source in sources
        for node in ast.parse(source).body  # module level: unittest methods need no marker
        if isinstance(node, ast.AsyncFunctionDef)
        and node.name.startswith("test_")
        and not any(_marks_async(decorator) for decorator in node.decorator_list)
    ]
    assert unmarked == []


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


def test_a_block_importing_only_an_adapter_needs_its_framework() -> None:
    # CI's core-only runs have no framework: such a block must be skipped, not fail to import.
    for adapter, framework in ADAPTER_FRAMEWORKS.items():
        source = f"from {adapter} import anything\n"
        expected = None if importlib.util.find_spec(framework) else framework
        assert missing_framework(source) == expected
        assert missing_framework(f"import {adapter}\n") == expected
