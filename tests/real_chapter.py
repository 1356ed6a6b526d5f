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


def approved_output(rel: str) -> str:
    """The approved output of ``snippets/<rel>``: what a test of a mechanism expects to see shown,
    so that changing an example changes no test that is not about it."""
    return (SNIPPETS / rel).with_suffix(".out").read_text(encoding="utf-8")


def approved_last_line(rel: str) -> str:
    return approved_output(rel).rstrip("\n").splitlines()[-1]
