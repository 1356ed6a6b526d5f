"""A project in a scratch folder, and an imitation of ``mkdocs serve``: what the tests and ``make bench``
share, so neither keeps its own copy.

:class:`ScratchProject` is either a small project written from nothing (the build tests) or a copy
of the real one without its caches (the benchmark). :func:`serving` rebuilds a project the way
``mkdocs serve`` does on an edit: the same process, the same plugin instance, a fresh config.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}

MINIMAL_CONFIG = """
site_name: scratch
theme: mkdocs
strict: true
plugins:
  - snippet-runner:
      preload: []
"""

# Left out of a copy: at the project's top, its history, its environments, its caches, the built site
# and a build's staging folders and lock (site.*); anywhere, bytecode. Only at the top: a pattern
# such as "site.*" applied everywhere once left docs/assets/site.css out of every copy.
_NOT_COPIED_AT_THE_TOP = {".git", ".venv", "node_modules", ".cache", "site"}


def _not_copied(top: Path):
    def ignored(folder: str, names: list[str]) -> set[str]:
        left_out = {name for name in names if name == "__pycache__"}
        if Path(folder) == top:
            left_out |= {name for name in names if name in _NOT_COPIED_AT_THE_TOP or name.startswith("site.")}
        return left_out

    return ignored


@dataclass
class ScratchProject:
    root: Path

    @classmethod
    def minimal(cls, root: Path, config: str = MINIMAL_CONFIG) -> ScratchProject:
        """``docs/index.md`` including ``page/hello.py``, which prints ``hello``, approved."""
        project = cls(root)
        project.write("mkdocs.yml", config)
        project.write("docs/index.md", "# Page\n\nIntro.\n\n{{ run page/hello.py }}\n")
        project.write("snippets/page/hello.py", "print('hello')\n")
        project.write("snippets/page/hello.out", "hello\n")
        return project

    @classmethod
    def copy_of(cls, source: Path, into: Path) -> ScratchProject:
        """Everything a build reads (pages, snippets, theme overrides, config), no caches, no site;
        the npm packages (Graphviz, which lays out the graphs) are the source's, linked, not copied."""
        shutil.copytree(source, into / "project", ignore=_not_copied(Path(source)))
        if (source / "node_modules").is_dir():
            (into / "project" / "node_modules").symlink_to((source / "node_modules").resolve())
        return cls(into / "project")

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def run(self, *args: str, **env: str) -> tuple[int, str]:
        """``python <args>`` in the project; (exit code, stdout + stderr)."""
        code, out, err = self.run_split(*args, **env)
        return code, out + err

    def run_split(self, *args: str, **env: str) -> tuple[int, str, str]:
        """``python <args>`` in the project; (exit code, stdout, stderr)."""
        done = subprocess.run(
            [sys.executable, *args], cwd=self.root, env={**ENV, **env}, capture_output=True, text=True
        )
        return done.returncode, done.stdout, done.stderr

    def build(self, *, force: bool = False, **env: str) -> tuple[int, str]:
        """``make site``: the atomic build, PDF included when the project asks for one; with
        nothing changed since the last, no build (``site/skip.py``) unless ``force``."""
        return self.run("-m", "snippet_runner", "site", *(["--force"] if force else []), **env)

    def start_build(self, **popen: Any) -> subprocess.Popen[str]:
        """``make site`` started in the background (its output in ``.stdout``), for the tests of
        builds running at once and of an interrupted build."""
        return subprocess.Popen(
            [sys.executable, "-m", "snippet_runner", "site"],
            cwd=self.root,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            **popen,
        )

    def accept(self, *rels: str) -> tuple[int, str]:
        """``make accept``."""
        return self.run("-m", "snippet_runner", "accept", *rels)

    def mkdocs_build(self, **env: str) -> tuple[int, str]:
        """A plain strict ``mkdocs build`` into ``site/``."""
        return self.run("-m", "mkdocs", "build", "--strict", "--site-dir", str(self.root / "site"), **env)


class Serving:
    """One ``mkdocs serve`` session: :meth:`rebuild` is what it does after every edit."""

    def __init__(self, root: Path, site_dir: Path, dirty: bool = False):
        self.config_file = str(root / "mkdocs.yml")
        self.site_dir = str(site_dir)
        self.dirty = dirty  # `make serve` serves with --dirty
        self.config = None
        self.plugin = None

    def rebuild(self):
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        self.config = load_config(self.config_file, site_dir=self.site_dir)
        if self.plugin is None:
            self.config.plugins.on_startup(command="serve", dirty=self.dirty)
        self.plugin = self.config.plugins["snippet-runner"]
        build(self.config, dirty=self.dirty)
        return self.plugin


@contextmanager
def serving(root: Path, site_dir: Path, dirty: bool = False) -> Iterator[Serving]:
    """Serve ``root`` into ``site_dir`` (from ``root`` as the working folder, like ``make serve``)."""
    previous = os.getcwd()
    os.chdir(root)
    session = Serving(root, site_dir, dirty)
    try:
        yield session
    finally:
        if session.config is not None:
            session.config.plugins.on_shutdown()
        os.chdir(previous)


def free_port() -> int:
    """A loopback port no one listens on now, for a ``make serve`` of a scratch project."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def site_build_running_a_snippet(root: Path, tmp: Path, deadline: float = 120) -> subprocess.Popen:
    """``make site`` in ``root`` (its own process group, its own ``TMPDIR`` ``tmp``), returned once
    its worker has made the sandbox folder of a snippet, and half a second more: the ready worker
    forks the snippet at once, so by then the snippet is running (the tests that interrupt a build)."""
    build = subprocess.Popen(
        [sys.executable, "-m", "snippet_runner", "site"],
        cwd=root,
        env={**ENV, "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    until = time.monotonic() + deadline
    while not list(tmp.glob("snippet-runner-*/snippet-*")):
        if build.poll() is not None or time.monotonic() > until:
            build.kill()
            raise AssertionError(f"no worker started:\n{build.communicate()[0]}")
        time.sleep(0.1)
    time.sleep(0.5)
    return build
