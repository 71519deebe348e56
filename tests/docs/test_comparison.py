"""Keep the comparison page in step with the doubles the frameworks actually ship.

The page compares agents-testing with each framework's own test doubles. A double a framework
ships but the page leaves out makes the comparison wrong without anyone noticing, so every
public ``Scripted…`` name of openai-agents' testing modules must appear on the page. The
modules' ``__all__`` is read from their source: the voice module cannot be imported without the
SDK's ``voice`` extra (numpy, websockets), which the development environment does not install.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "comparison.md"

# The openai-agents modules that hold test doubles, relative to the installed package.
TESTING_MODULES = ("testing/__init__.py", "realtime/testing.py", "voice/testing.py")


def exported_names(source: Path) -> list[str]:
    """Return the names a module lists in its ``__all__``, read without importing it."""
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, (list, tuple))
            return [str(name) for name in value]
    raise AssertionError(f"{source} has no literal __all__")


def openai_agents_package() -> Path:
    spec = importlib.util.find_spec("agents")
    if spec is None or spec.origin is None:
        pytest.skip("openai-agents is not installed")
    return Path(spec.origin).parent


@pytest.mark.parametrize("module", TESTING_MODULES)
def test_the_page_names_every_scripted_double_openai_agents_ships(module: str) -> None:
    source = openai_agents_package() / module
    if not source.exists():
        pytest.skip(f"this openai-agents version has no agents/{module}")
    doubles = [name for name in exported_names(source) if name.lower().startswith("scripted")]
    page = PAGE.read_text(encoding="utf-8")

    missing = [name for name in doubles if f"`{name}" not in page]

    assert doubles, f"agents/{module} exports no Scripted… double any more; update this test"
    assert missing == [], (
        f"docs/comparison.md does not mention {missing}, which agents/{module} exports: "
        "compare the double with ours on the page (what it is for, the feature table)."
    )
