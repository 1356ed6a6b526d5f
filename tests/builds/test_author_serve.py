"""An author's first day, under ``make serve`` (``python -m snippet_runner serve``) of a throwaway project:
a new example previews with its real output under the "not yet approved" notice, a broken one turns
every page into an error page that answers at once and goes when it is fixed, and stopping it with
SIGTERM leaves no scratch folder. Also: ``make site`` fails on a link to a missing anchor, and a
build removes the scratch folders that builds now gone left behind.

Each server gets a temporary folder of its own (``TMPDIR``), so what it leaves there is its own.
The deadlines below only bound a failure (a request that hangs); no test asserts a duration.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from real_chapter import ROOT

from devtools.scratch import ENV, MINIMAL_CONFIG, ScratchProject, free_port, site_build_running_a_snippet

START_DEADLINE = 120  # seconds before a server that never answers counts as failed
REQUEST_TIMEOUT = 10  # seconds a request may take before it counts as hanging


def fetch(url: str) -> tuple[int, str]:
    """(status, body); a request that hangs raises (urllib's timeout)."""
    try:
        with urllib.request.urlopen(url, timeout=REQUEST_TIMEOUT) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


class Served:
    def __init__(self, project: ScratchProject, tmp: Path, log: Path):
        self.project, self.tmp, self.log = project, tmp, log
        self.port = free_port()
        tmp.mkdir(exist_ok=True)
        with open(log, "w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "snippet_runner", "serve", "--dev-addr", f"127.0.0.1:{self.port}"],
                cwd=project.root,
                env={**ENV, "TMPDIR": str(tmp)},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def until(self, path: str, wanted, what: str) -> tuple[int, str]:
        """Ask for ``path`` until ``wanted(status, body)``; each request must answer."""
        deadline = time.monotonic() + START_DEADLINE
        while True:
            assert self.process.poll() is None, f"make serve stopped:\n{self.log.read_text()}"
            try:
                status, body = fetch(self.url(path))
                if wanted(status, body):
                    return status, body
            except urllib.error.URLError:
                pass  # not listening yet
            assert time.monotonic() < deadline, f"{what}: not seen in {START_DEADLINE} s\n{self.log.read_text()}"
            time.sleep(0.3)

    def terminate(self) -> int:
        if self.process.poll() is not None:
            return self.process.returncode
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise

    def left_behind(self) -> list[str]:
        return sorted(os.listdir(self.tmp))


# As the chapter renders them: the notice is an admonition, code and output fenced blocks.
CONFIG = MINIMAL_CONFIG + "markdown_extensions:\n  - admonition\n  - pymdownx.superfences\n"


@pytest.fixture
def scratch(tmp_path) -> ScratchProject:
    return ScratchProject.minimal(tmp_path, CONFIG)


@pytest.fixture
def served(scratch, tmp_path):
    server = Served(scratch, tmp_path / "tmp", tmp_path / "serve.log")
    yield server
    if server.process.poll() is None:
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait()


def test_a_new_example_previews_and_a_broken_one_gives_every_page_an_error_page_at_once(served, scratch):
    """Also, of the same server: its execution report at a URL of its own beside the site, and SIGTERM
    leaving no scratch folder (these were test_fast_builds.py's
    test_make_serve_serves_the_execution_report_at_a_url_of_its_own and
    test_sigterm_stops_make_serve_and_leaves_no_scratch_folder)."""
    served.until("", lambda status, body: status == 200 and "hello" in body, "the first page")
    assert any(name.startswith("snippet-runner-") for name in served.left_behind())  # the worker's, while it runs
    report = served.url("_build/execution-report.html")
    status, body = fetch(report)
    assert status == 200 and "<h1>Execution report</h1>" in body and "snippets/page/hello.py" in body
    assert f"Execution report served at {report}" in served.log.read_text()

    # A new page with a new example, which has no approved output yet
    scratch.write("docs/new.md", "# New\n\nIts first example:\n\n{{ run new/first.py }}\n")
    scratch.write("snippets/new/first.py", "print(6 * 7)\n")
    _, page = served.until("new/", lambda status, body: status == 200, "the new page")
    assert re.search(r"<code>42\n?</code>", page), page  # its real output
    assert '<p class="admonition-title">Output not yet approved</p>' in page
    assert "no approved <code>snippets/new/first.out</code> yet" in page
    assert "writes <code>snippets/new/first.out</code>" in page  # what make accept will write
    assert "python -m snippet_runner accept new/first.py" in page
    assert (
        "Not yet approved (new): snippets/new/first.py; `python -m snippet_runner accept new/first.py` writes snippets/new/first.out"
        in (served.log.read_text())
    )

    # A syntax error: every page, its own and the others, answers at once with the error page
    scratch.write("snippets/page/hello.py", "print('hello'\n")
    served.until("new/", lambda status, body: status == 500, "the error page")
    for path in ("", "new/", "no-such-page/"):
        status, body = fetch(served.url(path))
        assert status == 500, path
        assert "The last build failed" in body
        assert "docs/index.md:5: snippets/page/hello.py:1: syntax error: &#x27;(&#x27; was never closed" in body
    said = served.log.read_text()
    assert "ERROR    -  docs/index.md:5: snippets/page/hello.py:1: syntax error" in said
    assert "Traceback" not in said and "appear stuck" not in said

    # Fixed: the next build replaces the error page by itself
    scratch.write("snippets/page/hello.py", "print('hello')\n")
    served.until("", lambda status, body: status == 200 and "hello" in body, "the page after the fix")
    assert fetch(served.url("new/"))[0] == 200

    served.terminate()
    assert served.left_behind() == []


def validation_settings() -> str:
    """The ``validation:`` block of the chapter's own mkdocs.yml."""
    found = re.search(r"^validation:\n(?:[ #].*\n)+", (ROOT / "mkdocs.yml").read_text(), re.M)
    assert found, "mkdocs.yml has no validation: block"
    return found.group(0)


def test_make_site_fails_on_a_link_to_a_missing_anchor_naming_the_page_the_link_and_the_anchor(tmp_path):
    project = ScratchProject.minimal(tmp_path / "project", MINIMAL_CONFIG + validation_settings())
    project.write("docs/other.md", "# Other\n\n## retain_graph\n\nText.\n")
    project.write("docs/index.md", "# Page\n\nSee [retain_graph](other.md#retain-graph).\n\n{{ run page/hello.py }}\n")
    code, log = project.build()
    assert code != 0
    assert "'index.md'" in log and "'other.md#retain-graph'" in log and "'#retain-graph'" in log, log
    assert not (project.root / "site").exists()

    project.write("docs/index.md", "# Page\n\nSee [retain_graph](other.md#retain_graph).\n\n{{ run page/hello.py }}\n")

    # The build that passes also removes the scratch folders of builds that are gone (this was
    # test_a_build_removes_the_scratch_folders_of_builds_that_are_gone, with a build of its own)
    tmp = tmp_path / "tmp"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    (tmp / f"snippet-runner-{gone.pid}-x1y2z3" / "snippet-abc").mkdir(parents=True)
    alive = tmp / f"snippet-runner-{os.getpid()}-a1b2c3"  # this process's: a build still running
    alive.mkdir()
    code, log = project.build(TMPDIR=str(tmp))
    assert code == 0, log
    assert sorted(os.listdir(tmp)) == [alive.name]


def test_sigterm_stops_make_site_and_leaves_no_scratch_folder(scratch, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    scratch.write("snippets/page/hello.py", "import time\n\ntime.sleep(60)\nprint('hello')\n")
    build = site_build_running_a_snippet(scratch.root, tmp, START_DEADLINE)
    try:
        os.killpg(build.pid, signal.SIGTERM)
        out, _ = build.communicate(timeout=60)
    finally:
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGKILL)
            build.wait()
    assert build.returncode != 0 and "Build interrupted" in out, out
    assert os.listdir(tmp) == []


def test_make_serve_starts_with_a_new_example_and_a_broken_one_and_any_failed_rebuild_answers_at_once(tmp_path):
    """At start-up too: neither a new example nor a failing one ends ``make serve``. Then, not only a
    snippet: a rebuild that MkDocs fails (here a link to a missing anchor, under ``strict``) gives
    every page an error page that lists the warnings, until a rebuild succeeds (this was
    test_any_failed_rebuild_answers_every_page_with_its_warnings_instead_of_hanging, with a server
    of its own)."""
    scratch = ScratchProject.minimal(tmp_path / "project", CONFIG + validation_settings())
    scratch.write("docs/other.md", "# Other\n\n## retain_graph\n\nText.\n")
    scratch.write("docs/new.md", "# New\n\n{{ run new/first.py }}\n")
    scratch.write("snippets/new/first.py", "print(6 * 7)\n")
    scratch.write("snippets/page/hello.py", "print('hello'\n")
    server = Served(scratch, tmp_path / "tmp", tmp_path / "serve.log")
    try:
        _, body = server.until("new/", lambda status, body: status == 500, "the error page")
        assert "docs/index.md:5: snippets/page/hello.py:1: syntax error" in body
        scratch.write("snippets/page/hello.py", "print('hello')\n")
        _, page = server.until("new/", lambda status, body: status == 200, "the new page")
        assert re.search(r"<code>42\n?</code>", page) and "Output not yet approved" in page
        server.until("", lambda status, body: status == 200 and "hello" in body, "the first page")

        # a link within the page: a dirty rebuild checks links to the pages it renders again
        scratch.write("docs/other.md", "# Other\n\nSee [below](#no-such-heading).\n")
        _, body = server.until("other/", lambda status, body: status == 500, "the MkDocs error page")
        assert "contains a link &#x27;#no-such-heading&#x27;, but there is no such anchor on this page" in body
        assert fetch(server.url(""))[0] == 500  # every page, at once
        scratch.write("docs/other.md", "# Other\n\nSee [below](#below).\n\n## Below\n")
        server.until("other/", lambda status, body: status == 200, "the page after the fix")
    finally:
        server.terminate()


def test_the_two_mkdocs_messages_the_preview_matches_are_those_of_the_installed_mkdocs():
    """The one place that matches MkDocs' wording, pinned to the MkDocs of requirements.txt: the
    preview leaves out the ``--dirty`` warning and the server's request lines (which ``strict``
    would count against a rebuild) by their text. After an upgrade of MkDocs, check both again."""
    import inspect

    import mkdocs
    from mkdocs import livereload
    from mkdocs.commands import build

    from snippet_runner.plugins.runner import preview, serving

    pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines() if "==" in line)
    assert mkdocs.__version__ == pins["mkdocs"], "MkDocs changed: check the two messages below, then the pin"
    assert f'"{serving.MKDOCS_DIRTY_WARNING}' in inspect.getsource(build)
    assert "f'\"{self.requestline}\" code {code}'" in inspect.getsource(livereload)
    assert preview.REQUEST_LINE.match('"GET /x/ HTTP/1.1" code 404')["code"] == "404"
