"""The PDF step's own process (snippet_runner/site/pdf_process.py), started with the build: what it
raises comes back to the build by name, and stopping it, even in the middle, closes its Chromium
and leaves nothing behind. (That a build prints its PDF through it is what every PDF build shows:
tests/builds/test_fast_builds.py and the session's build.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snippet_runner.site import chromium
from snippet_runner.site.pdf_process import PdfProcess, PrintFailed


def test_an_error_in_the_pdf_process_comes_back_to_the_build_by_name(tmp_path):
    with PdfProcess() as printer:
        with pytest.raises(PrintFailed) as raised:
            printer.make(
                tmp_path / "print_page.html", tmp_path, tmp_path / "book.pdf", tmp_path / "cache", "chromium", 0, "k"
            )
        assert raised.value.kind == "FileNotFoundError" and "print_page.html" in str(raised.value)
        assert str(raised.value).startswith("FileNotFoundError: ")
        with pytest.raises(PrintFailed):  # and it takes the next job as well
            printer.make(
                tmp_path / "other.html", tmp_path, tmp_path / "book.pdf", tmp_path / "cache", "chromium", 0, "k"
            )
    assert printer._process.returncode == 0


def test_a_pdf_process_that_died_fails_the_pdf_with_a_message_not_a_broken_pipe(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    printer = PdfProcess()  # killed at once, long before it gets to launch a Chromium
    try:
        os.kill(printer.pid, signal.SIGKILL)
        printer._process.wait(30)
        with pytest.raises(PrintFailed, match=r"the PDF process ended before it made the PDF \(exit code -9\)"):
            printer.make(tmp_path / "print_page.html", tmp_path, tmp_path / "b.pdf", tmp_path / "c", "chromium", 0, "k")
    finally:
        printer.close()
        for pid in _chromium_processes_under(tmp_path):  # had it got that far, nothing outlives the test
            os.kill(pid, signal.SIGKILL)


def _chromium_processes_under(folder) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if str(folder).encode() in command:
            found.append(int(pid))
    return found


def test_the_pdf_process_and_its_chromium_run_only_on_idle_cpu(tmp_path, monkeypatch):
    """In a cold build they get ready beside the snippets' worker, which the build waits for."""
    if chromium.find() is None:
        pytest.fail(chromium.missing())
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where Playwright makes the browser's profile
    printer = PdfProcess()
    try:
        assert printer.wait_ready(), "the PDF process did not launch its Chromium"
        browsers = _chromium_processes_under(tmp_path)
        assert browsers, "no Chromium with its profile here: the test would see nothing"
        assert {os.sched_getscheduler(pid) for pid in [printer.pid, *browsers]} == {os.SCHED_IDLE}
    finally:
        printer.close()


@pytest.mark.parametrize("how", ["closed", "SIGTERM", "SIGINT"])
def test_stopping_the_pdf_process_closes_its_chromium_and_leaves_no_profile(tmp_path, monkeypatch, how):
    if chromium.find() is None:
        pytest.fail(chromium.missing())
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where Playwright makes the browser's profile
    printer = PdfProcess()
    assert printer.wait_ready(), "the PDF process did not launch its Chromium"
    assert _chromium_processes_under(tmp_path), "no Chromium with its profile here: the test would see nothing"
    if how == "closed":
        printer.close()
    else:
        os.kill(printer.pid, getattr(signal, how))
        try:
            printer._process.wait(30)
        finally:
            printer.close()
        assert printer._process.returncode == 130
    assert _chromium_processes_under(tmp_path) == []
    assert list(tmp_path.iterdir()) == [], "left behind: " + ", ".join(p.name for p in tmp_path.iterdir())


def test_the_pdf_process_ends_when_the_build_dies(tmp_path):
    """Its stdin closes with the build, whatever killed the build."""
    script = "from snippet_runner.site.pdf_process import PdfProcess; p = PdfProcess(); print(p.pid, flush=True); import os; os._exit(9)"
    parent = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    child = int(parent.stdout.split()[0])
    for _ in range(300):
        stat = Path(f"/proc/{child}/stat")
        if not stat.exists() or stat.read_text().split()[2] == "Z":
            break
        time.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the PDF process outlived the build that started it")
    assert _chromium_processes_under(tmp_path) == []


def test_the_pdf_process_imports_none_of_the_engine():
    """It starts with every build, beside MkDocs: the package's public names (the engine, which
    imports the runner) come in only when used (snippet_runner/__init__.py), and it uses none."""
    probe = (
        "import sys, snippet_runner.site.pdf_process, snippet_runner.site.pdf_book;"
        "print(sorted(m for m in sys.modules if m.startswith('snippet_runner.checking')));"
        "import snippet_runner; print(snippet_runner.Engine.__name__, snippet_runner.SnippetError.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "Engine SnippetError"], done.stdout + done.stderr
