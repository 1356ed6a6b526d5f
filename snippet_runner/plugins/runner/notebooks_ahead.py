"""Render the exercise notebooks' pages in a forked copy of the build, beside the Markdown pages.

mkdocs-jupyter converts a notebook (nbconvert, to HTML and again to Markdown for the table of
contents) when MkDocs reads its page. The notebook pages are read last, one after another, on the
build's one thread: in the chapter's cold build that was 1.4 s at the very end, with the snippets'
worker done and a core idle. So once the build has written the notebooks (from their exercises'
runs, which the worker runs first), :func:`start` forks the build, and the copy renders those
pages with mkdocs-jupyter itself: the same plugin object, settings and files, so it writes the very
entries of mkdocs-jupyter's own cache (keyed on the notebook's bytes and the settings) that the
build would have written. When MkDocs reads the first notebook page, :meth:`Ahead.wait` waits for
the copy, and mkdocs-jupyter finds each page in its cache. The copy renders its own copies of the
pages and touches nothing else of the build.

What the copy writes, it writes whole (a temporary file, then a rename), so an interrupted copy
leaves no half entry: mkdocs-jupyter (0.26, pinned) writes its cache with ``Path.write_text``,
which the copy, and only the copy, replaces with an atomic write. If the copy failed, or logged a
warning (which the build's strict mode counts, and would not count in another process), the
entries it wrote are removed, and mkdocs-jupyter converts those notebooks in the build, as before,
and logs what it logs there.

Looked at first: a thread (nbconvert is Python through and through, so it would hold the
interpreter lock the Markdown pages need) and a ``concurrent.futures`` process pool (it would
pickle MkDocs' configuration, plugins and pages, and import everything again in a new process).
"""

from __future__ import annotations

import json
import logging
import os
import pathlib
import sys
from dataclasses import dataclass

from snippet_runner.files import write_atomic

log = logging.getLogger("mkdocs.plugins.snippet_runner")


@dataclass
class Ahead:
    """A forked copy of the build rendering ``pages`` (their source paths); ``wait`` once."""

    pid: int
    report: int  # the read end of the copy's one-line report
    pages: list[str]
    done: bool | None = None  # None until waited for

    def wait(self) -> bool:
        """Wait for the copy; True if every page it rendered can be taken from the cache."""
        if self.done is not None:
            return self.done
        with os.fdopen(self.report, "rb") as report:
            text = report.read()
        _, status = os.waitpid(self.pid, 0)
        try:
            found = json.loads(text) if text else {}
        except ValueError:
            found = {}
        written = found.get("written", [])
        self.done = os.waitstatus_to_exitcode(status) == 0 and found.get("warnings", 1) == 0
        if self.done:
            log.info(f"notebooks: {len(self.pages)} pages rendered ahead, beside the Markdown pages")
        else:
            for path in written:  # whole entries, but left to the build to make (and log) again
                pathlib.Path(path).unlink(missing_ok=True)
            why = found.get("error") or ("warnings logged" if found else f"exit status {status}")
            log.info(f"notebooks: rendering ahead failed ({why}); the build renders them itself")
        return self.done


def start(pages: list, jupyter, config, files) -> Ahead | None:
    """Fork a copy of the build that renders ``pages`` (MkDocs ``Page`` objects of notebooks) with
    ``jupyter``, the mkdocs-jupyter plugin; None where processes cannot fork."""
    if not pages or not hasattr(os, "fork"):
        return None
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # the copy must not print again what is still buffered here
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the copy
        os.close(read_end)
        _render(pages, jupyter, config, files, write_end)  # never returns
    os.close(write_end)
    return Ahead(pid, read_end, [page.file.src_uri for page in pages])


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record):
        self.count += 1


def _render(pages: list, jupyter, config, files, report_fd: int) -> None:
    """In the copy: render each page as MkDocs would read it, report, and end at once (no atexit
    handler of the build's may run here: one of them closes the build's Node process)."""
    written: list[str] = []
    warnings = _Warnings()
    logging.getLogger("mkdocs").addHandler(warnings)

    def write_text(path, data, encoding=None, errors=None, newline=None):
        write_atomic(pathlib.Path(path), data)  # the cache entries mkdocs-jupyter writes, whole
        written.append(str(path))
        return len(data)

    pathlib.Path.write_text = write_text  # type: ignore[method-assign]  # this process only
    code, error = 0, ""
    try:
        for page in pages:
            jupyter.on_pre_page(page, config=config, files=files)
            page.render(config, files)
    except BaseException as failure:  # noqa: BLE001 - reported, and the build converts them itself
        code, error = 1, f"{type(failure).__name__}: {failure}"
    try:
        os.write(report_fd, json.dumps({"written": written, "warnings": warnings.count, "error": error}).encode())
    finally:
        os._exit(code)
