"""Fixtures shared by the tests: the real chapter, built once, and throwaway projects and snippets."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
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


# The session's own snippet cache (inside the project, as the plugin requires): emptied when the
# session starts, so the one build below runs every snippet fresh, and the tests that read the
# results (fresh_runs) and the builds that follow it (ProperDocs, the reproducible copy) reuse them.
SESSION_CACHE = ".cache/test-session/snippets"


@dataclass(frozen=True)
class SessionBuild:
    site: Path
    log: str  # "exit <code>" and what the build printed
    cache: Path  # the snippet cache the build filled

    @property
    def env(self) -> dict[str, str]:
        """The environment under which a build in the repository reuses this build's results."""
        return {**os.environ, "SNIPPETS_CACHE_DIR": SESSION_CACHE, "NO_MKDOCS_2_WARNING": "1"}


@pytest.fixture(scope="session")
def session_build(tmp_path_factory, worker_id) -> SessionBuild:
    """The real site, built once per test run with `python -m snippet_runner site` (strict, PDF
    included) and an empty snippet cache, however many pytest-xdist workers share the run: the
    first builds, under a file lock, and the others read what it built (or the log of why it
    failed)."""
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    site, log = shared / "built" / "site", shared / "built" / "build.log"
    build = SessionBuild(site, "", ROOT / SESSION_CACHE)
    with FileLock(str(shared / "built.lock")):
        if not log.exists():
            shutil.rmtree(build.cache.parent, ignore_errors=True)
            log.parent.mkdir(exist_ok=True)
            result = subprocess.run(
                [sys.executable, "-m", "snippet_runner", "site", "--force", "--site-dir", str(site)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                env=build.env,
            )
            log.write_text(f"exit {result.returncode}\n{result.stdout}{result.stderr}")
    return SessionBuild(site, log.read_text(), build.cache)


@pytest.fixture(scope="session")
def built_site(session_build) -> Path:
    assert session_build.log.startswith("exit 0\n"), session_build.log
    return session_build.site


@pytest.fixture(scope="session")
def fresh_runs(session_build):
    """Every chapter snippet's outcome in this session's fresh build (its cache holds only results
    that passed every check, strictly), checked again here; a snippet the build could not keep is
    run again, fresh, so its test shows its own error and diff.

    Returns ``{rel: Outcome or SnippetError}`` so each test reports its own snippet.
    """
    from snippet_runner import SnippetError

    engine = dataclasses.replace(PROJECT, cache_dir=session_build.cache).engine(approval="strict")
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
