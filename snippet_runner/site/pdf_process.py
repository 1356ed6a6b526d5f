"""The PDF step in a process of its own, started with the build, so that it is ready to print when
MkDocs has written the print page.

A prose edit reprints one part of the PDF (``pdf_book.py``), and a quarter of that step went into
getting ready: importing Playwright, pikepdf and pypdf (0.6 s on this machine), starting
Playwright's driver (0.6 s) and Chromium (0.1 s). None of it needs the site, so it runs beside
MkDocs' single-threaded build, on the other core. A process rather than a thread: Playwright's
synchronous API belongs to the thread that started it, and the imports and the driver's messages
would hold the interpreter lock that MkDocs needs (tried: the build's MkDocs part took 0.3 s longer
with the browser launched from a thread).

A prose edit's MkDocs part was done before the process was ready, and the job waited for it. So
when the last build made a PDF the build starts the process before it reads MkDocs' settings
(``build.main``, from the record ``skip.py`` keeps), pikepdf and pypdf are imported while
Playwright's driver starts, Node keeps the code it compiles for that driver
(``NODE_COMPILE_CACHE``), and the first tab is opened before the job comes (``pdf.TabAhead``).

The build starts the process with the PDF cache's name (``ahead``): a thread of the process copies
the last book's parts into the book the join will write (``pdf_join.Ahead``) while the browser
starts, while the process waits for its job and while Chromium prints the changed part. Begun only
once the browser was up, that copying (a quarter of a second) still ran when a prose edit's MkDocs
part was done, and held up the job's first steps as long (traced: the part's key came 0.25 s into
the job instead of 0.05 s). The build then hands
the process one job, ``make``: the arguments of ``pdf_book.make``, as one line of JSON on its stdin;
the answer (the book, or the error's kind and message) comes back as one line on a pipe of its own,
so nothing a library prints can be taken for it. A browser that failed to launch fails only a job
that needs it: a PDF whose parts all come from the cache needs none.

Stopping: the process ends when its stdin closes (``close``; the build's end, or the build's own
death), and takes SIGTERM and SIGINT (Ctrl-C reaches the whole process group) like the build does,
as an interruption that still closes the browser, so Playwright removes its temporary profile.
Once the browser is closed it ends at once (``os._exit``), without freeing what it holds: the build
waits for it, and the join's documents alone took a tenth of a second to free.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import asdict
from pathlib import Path

from snippet_runner.site import pdf_book

CLOSE_WAIT = 10  # seconds a job under way gets to end once the build stops it, before SIGTERM
_PATHS = ("print_page", "site", "pdf_path", "cache_dir")  # the job's arguments that are paths (JSON strings)


class PrintFailed(RuntimeError):
    """What the PDF process raised, carried back: ``kind`` is the exception's class name."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind

    def __str__(self) -> str:
        return f"{self.kind}: {self.args[0]}"


class PdfProcess:
    """The PDF process, started now; ``make`` hands it the book to make and waits for it."""

    def __init__(self, python: str = sys.executable, ahead: Path | None = None):
        """``ahead``: the PDF cache of the job to come, whose last book's parts the process copies
        for the join from the start (``pdf_book.copy_ahead``)."""
        self.ahead = ahead
        env = None
        if ahead is not None and not os.environ.get("NODE_COMPILE_CACHE"):
            # Node keeps the code it compiled for Playwright's driver beside the PDF cache, and the
            # driver starts sooner the next time (Node 22 and later; Playwright ships 26).
            env = {**os.environ, "NODE_COMPILE_CACHE": str(ahead.parent / "node-compile-cache")}
        replies, reply_end = os.pipe()
        try:
            self._process = subprocess.Popen(
                [python, "-m", "snippet_runner.site.pdf_process", str(reply_end), *([str(ahead)] if ahead else [])],
                stdin=subprocess.PIPE,
                pass_fds=(reply_end,),
                text=True,
                env=env,
            )
        finally:
            os.close(reply_end)
        self._replies = os.fdopen(replies, encoding="utf-8")

    def make(
        self, print_page: Path, site: Path, pdf_path: Path, cache_dir: Path, binary: str, epoch: int | None, printing: str
    ) -> pdf_book.Book:
        """``pdf_book.make`` with these arguments, in the PDF process."""
        self.start(print_page, site, pdf_path, cache_dir, binary, epoch, printing)
        return self.result()

    def start(
        self, print_page: Path, site: Path, pdf_path: Path, cache_dir: Path, binary: str, epoch: int | None, printing: str
    ) -> None:
        """Hand the process its job (``make``'s arguments) and go on; ``result`` waits for it."""
        paths = dict(zip(_PATHS, map(str, (print_page, site, pdf_path, cache_dir)), strict=True))
        self._send({**paths, "binary": binary, "epoch": epoch, "printing": printing})

    def result(self) -> pdf_book.Book:
        """The book of the job ``start`` handed over, once the process has made it."""
        while True:
            line = self._replies.readline()
            if not line:
                raise self._ended()
            reply = json.loads(line)
            if "book" in reply:
                return pdf_book.Book(**{**reply["book"], "path": Path(reply["book"]["path"])})
            if "error" in reply:
                raise PrintFailed(*reply["error"])

    def _send(self, message: dict) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(message) + "\n")
            self._process.stdin.flush()
        except BrokenPipeError:
            raise self._ended() from None

    def _ended(self) -> PrintFailed:
        """The PDF process is gone (what it printed on its way out is in the build's log)."""
        return PrintFailed("RuntimeError", f"the PDF process ended before it made the PDF (exit code {self._process.wait()})")

    def wait_ready(self) -> bool:
        """Until the process has imported what it needs and tried to launch its browser; whether it did."""
        line = self._replies.readline()
        return bool(line) and json.loads(line).get("ready", False)

    @property
    def pid(self) -> int:
        return self._process.pid

    def end(self) -> None:
        """Tell the process that no job will come (its stdin closes): it closes its browser and
        ends, while the caller goes on; ``close`` then waits for it."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self._process.stdin.close()

    def close(self, timeout: float | None = None) -> None:
        """End the process: after the job under way, if any (at most ``timeout`` seconds, then it is
        interrupted, which still closes its browser)."""
        self.end()
        if self._replies.closed:
            return
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.terminate()
            try:
                self._process.wait(CLOSE_WAIT)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._replies.close()

    def abandon(self) -> None:
        """End the process because the build failed: a job under way gets ``CLOSE_WAIT`` seconds."""
        self.close(CLOSE_WAIT)

    def __enter__(self) -> PdfProcess:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:
            self.abandon()
        else:
            self.close()


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def _import_pdf_libraries() -> None:
    import pikepdf  # noqa: F401
    import pypdf  # noqa: F401


def _serve(replies, held: list, cache_dir: Path | None) -> None:
    # (the PDF cache named, its last book's parts being copied): for the first job only
    ahead = (cache_dir, pdf_book.copy_ahead(cache_dir)) if cache_dir is not None else (None, None)
    # The PDF libraries are imported while Playwright's driver and Chromium start, which this
    # thread spends waiting for them: a prose edit's job came before the process was ready.
    importing = threading.Thread(target=_import_pdf_libraries, name="imports", daemon=True)
    importing.start()
    from snippet_runner.site import chromium, pdf

    with contextlib.ExitStack() as stack:
        try:
            browser = pdf.TabAhead(stack.enter_context(chromium.launch()))
            failure: Exception | None = None
        except Exception as error:  # kept for the job that needs the browser
            browser, failure = None, error
        importing.join()

        @contextlib.contextmanager
        def launched():
            if failure is not None:
                raise failure
            yield browser

        def reply(**message) -> None:
            replies.write(json.dumps(message) + "\n")
            replies.flush()

        reply(ready=failure is None)
        for line in sys.stdin:
            job = json.loads(line)
            try:
                paths = {name: Path(job[name]) for name in _PATHS}
                usable = ahead[1] if ahead[0] == paths["cache_dir"] else None
                ahead = (None, None)
                book = pdf_book.make(**{**job, **paths}, launch=launched, keep=held, ahead=usable)
            except Exception as error:  # Playwright, Chromium, rendering or the join: the build reports it
                reply(error=[type(error).__name__, str(error)])
            else:
                reply(book={**asdict(book), "path": str(book.path)})


def _behind_the_build() -> None:
    """Run only on CPU the build's own processes leave idle (``SCHED_IDLE``; ``nice 10`` where
    there is no such policy). In a cold build this process, Playwright's driver and Chromium get
    ready while the snippets' worker imports torch, and the worker is what the build waits for:
    at ``nice 10`` alone they still took a share of its core. The print page comes later, and
    while the PDF prints the build mostly waits for it, so the print itself runs at full speed.
    Every process this one starts, Chromium's included, inherits the policy. The price: on a
    machine whose every core is kept busy by other work, the PDF waits for a free one."""
    os.nice(10)
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or refused: the niceness stays
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def main() -> int:
    _behind_the_build()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupted)
    held: list = []  # the join's documents, never freed: the process ends without tearing down
    try:
        with os.fdopen(int(sys.argv[1]), "w", encoding="utf-8") as replies:
            _serve(replies, held, Path(sys.argv[2]) if len(sys.argv) > 2 else None)
    except (KeyboardInterrupt, BrokenPipeError):
        return 130
    return 0


if __name__ == "__main__":
    code = main()
    # The browser is closed and every reply written; what is left is freeing memory, which the build
    # waits for: qpdf's copies of the parts, and the interpreter's own teardown (about 0.15 s).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
