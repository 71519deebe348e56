"""Check what the built sdist and wheel carry (CI runs this after `python -m build`).

Usage: python .ci/check_dist.py DIST_DIR
"""

from __future__ import annotations

import ast
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def source_version() -> str:
    tree = ast.parse((ROOT / "agents_testing" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__version__" for target in node.targets
        ):
            return str(ast.literal_eval(node.value))
    raise SystemExit("agents_testing/__init__.py sets no __version__")


def check(condition: bool, message: str, failures: list[str]) -> None:
    if not condition:
        failures.append(message)


def main(dist: Path) -> int:
    version = source_version()
    failures: list[str] = []
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    package_files = {
        str(path.relative_to(ROOT)) for path in (ROOT / "agents_testing").rglob("*.py")
    } | {"agents_testing/py.typed"}

    with tarfile.open(sdist) as archive:
        top = f"agents_testing-{version}/"
        sdist_names = {name.removeprefix(top) for name in archive.getnames()}
    for required in ["LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "PKG-INFO"]:
        check(required in sdist_names, f"sdist lacks {required}", failures)
    check(package_files <= sdist_names, f"sdist lacks {package_files - sdist_names}", failures)
    # The sdist carries no tests rather than tests that cannot run from it.
    for excluded in ["tests", "examples", "docs", "bench", "conftest.py", ".ci"]:
        check(
            not any(name == excluded or name.startswith(excluded + "/") for name in sdist_names),
            f"sdist carries {excluded}",
            failures,
        )

    with zipfile.ZipFile(wheel) as archive:
        wheel_names = set(archive.namelist())
        info = f"agents_testing-{version}.dist-info/"
        metadata = Parser().parsestr(archive.read(info + "METADATA").decode())
    check(package_files <= wheel_names, f"wheel lacks {package_files - wheel_names}", failures)
    check(info + "licenses/LICENSE" in wheel_names, "wheel lacks its LICENSE", failures)
    strays = {name for name in wheel_names if not name.startswith(("agents_testing/", info))} | {
        name for name in wheel_names if name.startswith("agents_testing/")
    } - package_files
    check(not strays, f"wheel carries files outside the package: {sorted(strays)}", failures)
    check(metadata["Version"] == version, f"wheel version {metadata['Version']}", failures)
    check(metadata["License-Expression"] == "MIT", "wheel has no MIT license expression", failures)
    unconditional = [
        requirement
        for requirement in metadata.get_all("Requires-Dist") or []
        if "extra ==" not in requirement
    ]
    check(not unconditional, f"the core must have no dependencies: {unconditional}", failures)
    extras = set(metadata.get_all("Provides-Extra") or [])
    check(
        extras
        == {
            "openai-agents",
            "openai-agents-voice",
            "pydantic-ai",
            "langchain",
            "httpx",
            "tracing",
            "livekit",
            "pipecat",
        },
        f"published extras are {sorted(extras)}; dev tools belong in a dependency group",
        failures,
    )
    urls = dict(entry.split(", ", 1) for entry in metadata.get_all("Project-URL") or [])
    check({"Homepage", "Documentation", "Source"} <= set(urls), f"URLs: {urls}", failures)

    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    print(f"{sdist.name}: {len(sdist_names)} entries; {wheel.name}: {len(wheel_names)} files")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1])))
