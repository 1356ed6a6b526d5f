"""The real chapter, as the project model sees it, for the tests that check it (not the engine tests)."""

from pathlib import Path

from snippet_runner.project import Project

ROOT = Path(__file__).resolve().parent.parent
PROJECT = Project.load(ROOT / "mkdocs.yml")
SNIPPETS = PROJECT.snippets_dir
DOCS = PROJECT.docs_dir


def chapter_snippets() -> list[str]:
    """Every snippet the site shows: page includes, then exercise notebooks."""
    return list(PROJECT.shown())
