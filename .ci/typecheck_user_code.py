"""Type-check the README example, the docs' code blocks and the examples as user code.

Users copy these into their own strictly checked test suites, so each one must pass
``mypy --strict`` and pyright in strict mode as a separate module outside this repository.
Blocks included from ``examples/`` are checked through the example files themselves.
``examples/frameworks/`` and ``docs/voice-frameworks.md`` are left out: their frameworks are not
in the development environment (CI runs them in environments of their own).

Usage: python .ci/typecheck_user_code.py [--only NAME]  (with the Quick start's .venv)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(
    r"(?:^<!-- include: (?P<include>\S+) -->\n)?^```python\n(?P<code>.*?)^```",
    re.MULTILINE | re.DOTALL,
)
BIN = ROOT / ".venv" / "bin"
# Pages whose frameworks are not in the development environment: CI's voice step runs their
# blocks next to LiveKit and Pipecat instead.
ELSEWHERE = {"voice-frameworks.md"}


def write_user_code(target: Path) -> list[str]:
    names = []
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for document in [document for document in documents if document.name not in ELSEWHERE]:
        blocks = [m for m in BLOCK.finditer(document.read_text()) if m.group("include") is None]
        for number, match in enumerate(blocks, start=1):
            name = re.sub(r"\W", "_", f"{document.stem}_{number}").lower()
            (target / f"{name}.py").write_text(match.group("code"))
            names.append(f"{document.relative_to(ROOT)} block {number} -> {name}.py")
    for example in sorted((ROOT / "examples").glob("*.py")):
        shutil.copy(example, target / example.name)
        names.append(f"{example.relative_to(ROOT)}")
    return names


def main(only: str = "") -> int:
    with tempfile.TemporaryDirectory() as temporary:
        target = Path(temporary)
        checked = write_user_code(target)
        for module in target.glob("*.py"):
            if only not in module.name:  # a subset while fixing one file: --only NAME
                module.unlink()
        print("\n".join(checked))
        # The package comes from this checkout, as a user's installed copy would.
        config = {
            "typeCheckingMode": "strict",
            # A page's first block may only hold the imports its later (included) blocks use.
            "reportUnusedImport": "none",
            "extraPaths": [str(ROOT)],
            "venvPath": str(ROOT),
            "venv": ".venv",
        }
        (target / "pyrightconfig.json").write_text(json.dumps(config))
        env = {**os.environ, "MYPYPATH": str(ROOT)}
        # Both checkers at once: mypy spends most of its time on the frameworks' own code.
        mypy = subprocess.Popen(
            [
                str(BIN / "mypy"),
                "--strict",
                "--no-incremental",
                "--cache-dir=/dev/null",
                "--explicit-package-bases",
                ".",
            ],
            cwd=target,
            env=env,
        )
        pyright = subprocess.run([str(BIN / "pyright")], cwd=target, env=env, check=False)
        mypy.wait()
        return 1 if mypy.returncode or pyright.returncode else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[2] if sys.argv[1:2] == ["--only"] else ""))
