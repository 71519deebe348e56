"""Keep the README's links valid on the package index and the docs site's pages reachable.

The README is also the package's long description on the index, where relative links have
nothing to resolve against: every link is absolute, and each one into the docs site must name
an existing page and heading. Every page must be in the site's navigation, and every public
module in the API reference, so `mkdocs build --strict` in CI has nothing to drop.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from pathlib import Path

import pytest

import agents_testing

ROOT = Path(__file__).resolve().parents[2]
# The package under test: the checkout, or site-packages when CI runs these tests against the
# installed wheel.
PACKAGE = Path(agents_testing.__file__).resolve().parent
DOCS = ROOT / "docs"
SITE = "https://agents-testing.github.io/agents-testing/"
REPOSITORY = "https://github.com/agents-testing/agents-testing/blob/main/"
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)|<(?P<bare>https?://[^>\s]+)>")
HEADING = re.compile(r"^#{1,6} +(?P<title>.+?) *$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def slug(title: str) -> str:
    """Return the anchor Python-Markdown's toc (and GitHub) give a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", title)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {slug(match.group("title")) for match in HEADING.finditer(text)}


def readme_links() -> list[str]:
    text = FENCE.sub("", (ROOT / "README.md").read_text())
    return [match.group("target") or match.group("bare") for match in LINK.finditer(text)]


def test_readme_links_are_absolute() -> None:
    relative = [link for link in readme_links() if not link.startswith(("https://", "#"))]

    assert relative == [], "use absolute URLs: relative links break on the package index"


@pytest.mark.parametrize("link", [link for link in readme_links() if link.startswith(SITE)])
def test_readme_links_into_the_docs_site_name_an_existing_page_and_heading(link: str) -> None:
    path, _, anchor = link.removeprefix(SITE).partition("#")
    page = DOCS / (path.strip("/") or "index")
    page = page.with_suffix(".md") if page.name else page / "index.md"

    assert page.is_file(), f"{link}: no {page.relative_to(ROOT)}"
    if anchor:
        assert anchor in anchors(page), f"{link}: {page.name} has no heading #{anchor}"


@pytest.mark.parametrize("link", [link for link in readme_links() if link.startswith(REPOSITORY)])
def test_readme_links_into_the_repository_name_an_existing_file(link: str) -> None:
    assert (ROOT / link.removeprefix(REPOSITORY).partition("#")[0]).exists(), link


def test_slug_matches_the_anchors_the_docs_use() -> None:
    assert slug("Test a voice agent tool workflow") == "test-a-voice-agent-tool-workflow"
    assert slug("openai-agents `agents.testing`") == "openai-agents-agentstesting"
    assert slug("Recipe: a tool workflow") == "recipe-a-tool-workflow"


def test_every_docs_page_is_in_the_site_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    nav = set(re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", config, re.MULTILINE))
    pages = {str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md")}

    assert pages - nav == set(), "add these pages to the nav in mkdocs.yml"
    assert nav - pages == set(), "mkdocs.yml lists pages that do not exist"


def public_modules() -> dict[str, list[str]]:
    """Map each public module (no ``_`` in its path) to its ``__all__``, read statically."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
            ):
                found[".".join(parts)] = list(ast.literal_eval(node.value))
    return found


def documented_modules() -> set[str]:
    pages = (DOCS / "reference").glob("*.md")
    return {
        match.group(1)
        for page in pages
        for match in re.finditer(r"^::: (\S+)$", page.read_text(), re.MULTILINE)
    }


def test_the_api_reference_documents_every_public_name() -> None:
    modules = public_modules()
    documented = documented_modules()
    documented_names = {name for module in documented for name in modules.get(module, [])}

    missing = {
        module: sorted(set(names) - documented_names)
        for module, names in modules.items()
        if set(names) - documented_names
    }

    assert missing == {}, "add a '::: module' block for these to a page in docs/reference/"
    assert documented <= set(modules), "docs/reference names modules without __all__"
