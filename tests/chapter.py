"""Where the real chapter lives, for the tests that check it (not the engine tests)."""

from pathlib import Path

from snippet_runner import catalog

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"


def chapter_snippets() -> list[str]:
    """Every snippet the site shows: page includes, then exercise notebooks."""
    return list(catalog.includes_by_snippet(DOCS)) + list(catalog.notebook_scripts(ROOT))
