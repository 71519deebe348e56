"""Check that the built docs site has an API entry for every public name.

Usage: python .ci/check_docs.py SITE_DIR (after `mkdocs build --strict -d SITE_DIR`)
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_all(module: str) -> list[str]:
    base = ROOT.joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return []


def main(site: Path) -> int:
    documented = {
        match.group(1)
        for page in (ROOT / "docs" / "reference").glob("*.md")
        for match in re.finditer(r"^::: (\S+)$", page.read_text(), re.MULTILINE)
    }
    ids = {
        match.group(1)
        for page in (site / "reference").rglob("*.html")
        for match in re.finditer(r'id="([\w.]+)"', page.read_text())
    }
    missing = [
        f"{module}.{name}"
        for module in sorted(documented)
        # The package's own names are rendered under the modules that define them.
        if module != "agents_testing"
        for name in module_all(module)
        if f"{module}.{name}" not in ids
    ]
    core = {f"{name}" for name in module_all("agents_testing")}
    rendered_core = {
        identifier.rpartition(".")[2]
        for identifier in ids
        if identifier.count(".") == 2 and identifier.startswith("agents_testing.")
    }
    missing += sorted(f"agents_testing.{name}" for name in core - rendered_core)
    for name in missing:
        print(f"FAIL no API reference entry for {name}", file=sys.stderr)
    print(f"API reference: {len(ids)} anchors, {len(documented)} modules")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1])))
