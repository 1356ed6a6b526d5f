"""Fixtures shared by the tests: the real chapter, built once, and throwaway projects and snippets."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from chapter import PROJECT, ROOT, chapter_snippets

from snippet_runner.scratch import ScratchProject


@pytest.fixture
def write_snippet(tmp_path):
    """Write ``snippets/<rel>`` under a temporary root; return the snippets folder."""
    snippets = tmp_path / "snippets"

    def write(rel: str, code: str) -> Path:
        path = snippets / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip("\n"), encoding="utf-8")
        return path

    write.snippets = snippets
    return write


@pytest.fixture
def scratch(tmp_path) -> ScratchProject:
    """A small project of one page that includes ``page/hello.py`` (prints ``hello``, approved)."""
    return ScratchProject.minimal(tmp_path)


@pytest.fixture(scope="session")
def fresh_runs():
    """One fresh run (no cache) of every chapter snippet, in one worker, checked strictly.

    Returns ``{rel: Outcome or SnippetError}`` so each test reports its own snippet.
    """
    from snippet_runner import SnippetError

    engine = PROJECT.engine(approval="strict", cached=False)
    results = {}
    try:
        rels = chapter_snippets()
        engine.prefetch(rels)
        for rel in rels:
            try:
                results[rel] = engine.run(rel)
            except SnippetError as error:
                results[rel] = error
    finally:
        engine.close()
    return results


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, worker_id):
    """The real site, built once per test run with `python -m snippet_runner site` (strict, PDF
    included), however many pytest-xdist workers share the run: the first builds, under a file
    lock, and the others read what it built (or the log of why it failed)."""
    import subprocess
    import sys

    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    site, log = shared / "built" / "site", shared / "built" / "build.log"
    with FileLock(str(shared / "built.lock")):
        if not log.exists():
            log.parent.mkdir(exist_ok=True)
            result = subprocess.run(
                [sys.executable, "-m", "snippet_runner", "site", "--site-dir", str(site)],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            log.write_text(f"exit {result.returncode}\n{result.stdout}{result.stderr}")
    text = log.read_text()
    assert text.startswith("exit 0\n"), text
    return site
