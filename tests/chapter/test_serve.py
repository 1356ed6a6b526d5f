"""``make serve`` on a machine with no Chromium and no Graphviz: it builds the whole chapter and
serves every page with its pictures, drawn by the serve itself.

The served build runs exactly what ``make serve`` runs once its set-up is done (``python -m
snippet_runner serve``), with ``CHROMIUM`` unset and a PATH that holds only Node and git, so no
``dot`` and no browser can be found. It reuses the session build's snippet results (the snippets are
not what is tested here), but not its drawn pictures: every picture is drawn again, by the served
build. What it must show comes from the approved picture data (``snippets/**/*.pictures.json``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from real_chapter import PROJECT, ROOT, SNIPPETS

START_TIMEOUT = 600  # seconds: the whole chapter is built before the first page is served


def expected_pictures() -> dict[str, int]:
    """Served path -> how many pictures its page shows, from the approved data."""
    shown = PROJECT.shown()
    counts: dict[str, int] = {}
    for path in SNIPPETS.rglob("*.pictures.json"):
        rel = path.relative_to(SNIPPETS).as_posix().replace(".pictures.json", ".py")
        for page in shown.get(rel, []):
            served = str(Path(page.split(":")[0]).relative_to("docs").with_suffix(".html"))
            counts[served] = counts.get(served, 0) + len(json.loads(path.read_text(encoding="utf-8")))
    return counts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


@pytest.fixture
def bare_path(tmp_path) -> str:
    """A PATH with Node (the graphs' layout) and git (the build's date), and nothing else."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("node", "git"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    return str(bin_dir)


@pytest.fixture
def served_cache(session_build):
    """A copy of the session build's snippet results, without its drawn pictures, inside the
    project (where the plugin requires its cache)."""
    cache = ROOT / ".cache" / f"test-serve-{os.getpid()}" / "snippets"
    shutil.copytree(session_build.cache, cache, ignore=shutil.ignore_patterns("pictures"))
    yield cache
    shutil.rmtree(cache.parent, ignore_errors=True)


def test_make_serve_needs_no_chromium_and_no_graphviz_and_serves_every_picture(bare_path, served_cache, tmp_path):
    from snippet_runner.site import chromium

    env = {k: v for k, v in os.environ.items() if k != chromium.ENV_VAR}
    env.update(PATH=bare_path, SNIPPETS_CACHE_DIR=str(served_cache.relative_to(ROOT)), NO_MKDOCS_2_WARNING="1")
    assert shutil.which("dot", path=bare_path) is None
    assert all(shutil.which(name, path=bare_path) is None for name in chromium.CANDIDATES)
    expected = expected_pictures()
    assert len(expected) >= 10 and "chain-rule.html" in expected

    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "snippet_runner", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while get(f"http://127.0.0.1:{port}/") is None:
            assert server.poll() is None, f"make serve stopped (exit {server.returncode}):\n{log_path.read_text()}"
            assert time.monotonic() < deadline, f"nothing served in {START_TIMEOUT} s:\n{log_path.read_text()}"
            time.sleep(0.5)
        for page, count in expected.items():
            html = get(f"http://127.0.0.1:{port}/{page}")
            assert html is not None, f"{page} is not served"
            assert html.count('class="snippet-picture-svg"') == count, f"{page}: not its {count} picture(s)"
            assert "could not be drawn" not in html
        said = log_path.read_text()
        assert f"pictures: {sum(expected.values())} drawn" in said, said  # drawn by this serve, none cached
        assert "PDF" not in said.replace("Download PDF", "")
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
