"""Fixtures shared by the tests: the real chapter, built once, and throwaway projects and snippets."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from real_chapter import PROJECT, ROOT, chapter_snippets
from throwaway import new_build, snippet_writer

from devtools.scratch import ScratchProject


@pytest.fixture
def write_snippet(tmp_path):
    """Writes ``snippets/<rel>`` under a temporary root (``write_snippet.snippets``)."""
    return snippet_writer(tmp_path / "snippets")


@pytest.fixture
def scratch(tmp_path) -> ScratchProject:
    """A small project of one page that includes ``page/hello.py`` (prints ``hello``, approved)."""
    return ScratchProject.minimal(tmp_path)


# -- one warm engine per test process -----------------------------------------------------------


@pytest.fixture(scope="session")
def session_engine(tmp_path_factory):
    """The warm engine the modules that take ``warm_engine`` share, in one pytest process: its worker
    imports torch once per process, not once per module. Each snippet runs in a fork of that worker,
    so nothing one module's snippet does reaches the next."""
    from snippet_runner import Engine

    engine = Engine(tmp_path_factory.mktemp("snippets"), approval_mode="warn")
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def session_second_engine(session_engine):
    """A second warm engine on the same snippets, with another hash seed: approving takes two runs."""
    from snippet_runner import Engine

    engine = Engine(session_engine.snippets_dir, approval_mode="warn", worker_env={"PYTHONHASHSEED": "2"})
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def warm_engine(session_engine):
    """The process's warm engine as a module finds it: its snippets folder emptied (no snippet, no
    approved file of another module's) and nothing of the last build remembered, in warn mode."""
    for path in session_engine.snippets_dir.iterdir():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    return new_build(session_engine, "warn")


@pytest.fixture(scope="module")
def second_engine(warm_engine, session_second_engine):
    """The second warm engine, on the module's (emptied) snippets folder."""
    return new_build(session_second_engine, "warn")


# The session's own snippet cache (inside the project, as the plugin requires): emptied when the
# session starts, so the one build below runs every snippet fresh, and the tests that read the
# results (fresh_runs) and the builds that follow it (ProperDocs, the reproducible copy) reuse them.
SESSION_CACHE = ".cache/test-session/snippets"
BUILD_TIMEOUT = 900  # seconds: the build alone takes about 20 on two cores


@dataclass(frozen=True)
class SessionBuild:
    site: Path
    log: str  # "exit <code>" and what the build printed
    cache: Path  # the snippet cache the build filled

    @property
    def report(self) -> Path:
        """The build's execution report (written beside its cache, outside the site)."""
        return dataclasses.replace(PROJECT, cache_dir=self.cache).report_path

    @staticmethod
    def environment() -> dict[str, str]:
        """The environment under which a build in the repository reuses this build's results."""
        return {**os.environ, "SNIPPETS_CACHE_DIR": SESSION_CACHE, "NO_MKDOCS_2_WARNING": "1"}


SITE_FIXTURES = {"session_build", "built_site", "fresh_runs"}


def _shared_dir(config) -> Path:
    """The folder every pytest-xdist worker of this run shares (the run's base temporary folder)."""
    base = config._tmp_path_factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


def _needs_site(item) -> bool:
    return bool(SITE_FIXTURES & set(getattr(item, "fixturenames", ())))


def pytest_collection_modifyitems(config, items):
    """The tests that read the built site run last: while the site builds, in the background, both
    cores work through the tests that need no site instead of one core waiting for it."""
    items.sort(key=_needs_site)


def pytest_collection_finish(session):
    """The build starts as soon as the tests are collected (and selected: ``-k``, ``--lf``), if any
    of them needs the site (``--collect-only`` runs nothing, so builds nothing). Each xdist worker
    collects the same list; the first to get here starts the build, the others see it started."""
    if not session.config.option.collectonly and any(_needs_site(item) for item in session.items):
        _start_session_build(_shared_dir(session.config))


def _start_session_build(shared: Path) -> None:
    """`python -m snippet_runner site` (strict, PDF included, an empty snippet cache) into
    ``shared/built/site``; its output goes to ``build.out`` and its exit code, last, to ``build.rc``."""
    from filelock import FileLock

    built = shared / "built"
    with FileLock(str(shared / "built.lock")):
        if built.exists():
            return
        built.mkdir()
        shutil.rmtree((ROOT / SESSION_CACHE).parent, ignore_errors=True)
        command = [sys.executable, "-m", "snippet_runner", "site", "--force", "--site-dir", str(built / "site")]
        out, rc = shlex.quote(str(built / "build.out")), shlex.quote(str(built / "build.rc"))
        script = f'"$@" > {out} 2>&1; echo $? > {rc}.tmp && mv {rc}.tmp {rc}'  # the exit code appears whole
        build = subprocess.Popen(
            ["sh", "-c", script, "sh", *command], cwd=ROOT, env=SessionBuild.environment(), start_new_session=True
        )
        (built / "build.pid").write_text(str(build.pid))


def pytest_sessionfinish(session):
    """A run that stopped early (``-x``, Ctrl-C, a failed fixture) may end while the session's build
    is still running: it is stopped with the run (SIGTERM, which the build handles like Ctrl-C: its
    staging folder goes), not left to run on for half a minute. The controller does this, or the
    one process of a run without xdist; workers leave it to the controller."""
    if hasattr(session.config, "workerinput"):
        return
    built = _shared_dir(session.config) / "built"
    if (built / "build.pid").exists() and not (built / "build.rc").exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.killpg(int((built / "build.pid").read_text()), signal.SIGTERM)


@pytest.fixture(scope="session")
def shared_dir(pytestconfig) -> Path:
    """A folder all pytest-xdist workers of this run share, for what is made once per run."""
    return _shared_dir(pytestconfig)


@pytest.fixture(scope="session")
def session_build(pytestconfig) -> SessionBuild:
    """The real site, built once per test run with `python -m snippet_runner site` (strict, PDF
    included) and an empty snippet cache, however many pytest-xdist workers share the run: started
    in the background when the tests were collected; here, waited for (or its log of why it failed)."""
    built = _shared_dir(pytestconfig) / "built"
    if not built.exists():  # collected without this fixture in sight (a plugin's own items): start it now
        _start_session_build(built.parent)
    deadline = time.monotonic() + BUILD_TIMEOUT
    while not (built / "build.rc").exists():
        if time.monotonic() > deadline:
            pytest.fail(
                f"the session's build did not finish in {BUILD_TIMEOUT} s; its output so far is in {built / 'build.out'}"
            )
        time.sleep(0.2)
    log = f"exit {(built / 'build.rc').read_text().strip()}\n{(built / 'build.out').read_text()}"
    return SessionBuild(built / "site", log, ROOT / SESSION_CACHE)


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


def pytest_terminal_summary(terminalreporter):
    """(Here, not in browser/conftest.py: pytest-xdist's controller collects nothing, so it reads only
    this conftest.) One line at the end of the run: how many pages the accessibility audit took from the
    machine's cache (audit_cache.py), so that a log says what this run audited itself."""
    from browser.audit_cache import AUDITED

    pages = cached = 0
    for report in [r for kind in ("passed", "failed") for r in terminalreporter.stats.get(kind, [])]:
        for name, value in getattr(report, "user_properties", ()):
            if name == AUDITED and report.when == "call":
                pages, cached = pages + value[0], cached + value[1]
    if pages:
        terminalreporter.write_line(
            f"accessibility audit: {pages} pages, {pages - cached} audited in this run, {cached} taken from"
            " the machine's cache (unchanged since audited; AUDIT_CACHE=0 audits all)"
        )
