"""``make serve``'s forgiving preview: it never hangs, and names what is unapproved.

MkDocs' server holds every request until a build succeeds, and a failed first build ends ``mkdocs
serve``. So under serve the plugin hands snippet failures to :class:`Preview`: the build goes on,
and every page answers at once with a self-reloading error page (``file:line``, the message, the
build's warnings), as for any failed build (``on_build_error``). SIGTERM acts like Ctrl-C, so
``on_shutdown`` cleans up. Documented interfaces only: plugin events, the server's WSGI
``get_app``/``set_app``, ``logging`` and ``signal.signal``.
"""

from __future__ import annotations

import html
import logging
import re
import signal
import string
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from snippet_runner.checking.engine import Engine
from snippet_runner.checking.pending import pending
from snippet_runner.errors import SnippetError

log = logging.getLogger("mkdocs.plugins.snippet_runner")
# snippet failures, which strict mode must not count as the build's errors, have a logger of their own
_terminal = logging.getLogger("snippet_runner.preview")
RELOAD_SECONDS = 2
_SERVED = "Every page answers with this error until a build succeeds (it reloads by itself)"


class Preview:
    """One per ``mkdocs serve`` session, kept by the runner plugin across its rebuilds."""

    def __init__(self) -> None:
        self.failure: str | None = None  # why the last build failed, as the terminal printed it
        self.raised = False  # whether that build raised (then the site on disk is the one before)
        self._held = _Held()  # the warnings of the build under way, for a failed build's error page
        self.snippets_failing = False  # whether this build's snippets failed (it went on regardless)
        self._previous_sigterm: Callable | int | None = None

    def start(self) -> None:
        """``on_startup`` under ``mkdocs serve``: SIGTERM stops it the way Ctrl-C does."""
        if not _terminal.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("ERROR    -  %(message)s"))
            _terminal.addHandler(handler)
            _terminal.propagate = False
        logging.getLogger("mkdocs.livereload").addFilter(_request_line)
        logging.getLogger("mkdocs").addHandler(self._held)
        if threading.current_thread() is threading.main_thread() and self._previous_sigterm is None:
            self._previous_sigterm = signal.signal(signal.SIGTERM, signal.default_int_handler)

    def stop(self) -> None:
        """``on_shutdown``: put SIGTERM's handler back (a test serves inside its own process)."""
        if self._previous_sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._previous_sigterm)
            self._previous_sigterm = None
        logging.getLogger("mkdocs.livereload").removeFilter(_request_line)
        logging.getLogger("mkdocs").removeHandler(self._held)

    def begin_build(self) -> None:
        """``on_config``: a new build, with no warnings yet."""
        self._held.messages.clear()
        self.snippets_failing = False

    def snippets_failed(self, error: SnippetError) -> None:
        """The snippets of this build failed: print it, and serve it until a build succeeds."""
        self.failure, self.raised, self.snippets_failing = str(error), False, True
        _terminal.error(self.failure)
        log.info(_SERVED)

    def built(self, engine: Engine, rels: Iterable[str]) -> None:
        """``on_post_build``: one line per example not yet approved."""
        if not self.snippets_failing:
            self.failure, self.raised = None, False
        for rel in dict.fromkeys(rels):
            try:
                waiting = pending(engine.run(rel))  # this build's result, remembered by the engine
            except SnippetError:
                continue  # its failure was printed already
            if waiting is not None:
                log.info(waiting.line())

    def build_failed(self, error: BaseException) -> None:
        """``on_build_error``: the build raised; its pages keep this error until one succeeds."""
        if isinstance(error, KeyboardInterrupt):
            return
        self.failure, self.raised = "\n".join([*self._held.messages, str(error) or type(error).__name__]), True
        log.info(_SERVED)

    def serve(self, server) -> None:
        """``on_serve``: while the last build failed, answer every page with the error page at once, and
        a request made while a build runs, too, if that build fails (MkDocs' server would hold it for ever)."""
        site_app = server.get_app()

        def app(environ, start_response):
            path = environ.get("PATH_INFO", "")
            if path.startswith(("/livereload/", server.mount_path + "_build/")):
                return site_app(environ, start_response)  # the reload poll waits by design
            last = path.rsplit("/", 1)[-1]
            page = last == "" or last.endswith(".html") or "." not in last

            def failed() -> bool:
                return self.raised if not page else self.failure is not None

            if not failed():
                answer = _Answer(site_app, environ)
                while not answer.done.wait(0.05):
                    if failed():
                        break
                else:
                    start_response(answer.status, answer.headers)
                    return answer.body
            if not page:
                start_response("503 Service Unavailable", [("Content-Type", "text/plain; charset=utf-8")])
                return [b"The last build failed: open any page to see why."]
            body = error_page(self.failure or "(the build failed)", path).encode("utf-8")
            headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))]
            start_response("500 Internal Server Error", headers)
            return [body]

        server.set_app(app)


class _Answer:
    """The site's answer to one request, fetched in a thread of its own, so the request can stop waiting."""

    def __init__(self, app, environ) -> None:
        self.done = threading.Event()
        self.status = "500 Internal Server Error"
        self.headers: list[tuple[str, str]] = []
        self.body: list[bytes] = []
        threading.Thread(target=self._fetch, args=(app, environ), daemon=True).start()

    def _fetch(self, app, environ) -> None:
        def start_response(status, headers, exc_info=None):
            self.status, self.headers = status, list(headers)
            return self.body.append

        try:
            result = app(environ, start_response)
            try:
                self.body.extend(result)
            finally:
                getattr(result, "close", lambda: None)()  # as WSGI asks of whoever reads an answer
        finally:
            self.done.set()


def error_page(failure: str, path: str) -> str:
    """Self-contained (no stylesheet to load), and reloading itself until a good build."""
    page = string.Template((Path(__file__).parent / "error_page.html").read_text(encoding="utf-8"))
    return page.substitute(reload=RELOAD_SECONDS, path=html.escape(path), failure=html.escape(failure))


class _Held(logging.Handler):
    """The warnings MkDocs logs during one build: ``strict`` says only how many, so the error page lists them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("mkdocs.livereload"):
            return  # the server's own lines ("GET /x.html code 500"), logged between builds
        self.messages.append(f"{record.levelname}: {record.getMessage()}")


# MkDocs' server's line for an answer (mkdocs/livereload; a test pins the installed MkDocs to it):
# "[08:24:50] "GET / HTTP/1.1" code 500"
REQUEST_LINE = re.compile(r'^(?:\[[\d:]+\] )?".*" code (?P<code>\d+)$')


def _request_line(record: logging.LogRecord) -> bool:
    """A logging filter: MkDocs' server logs every answer but a 200 as a warning, which ``strict``
    counts against the running build. A request is not the build's, so its record is left out (not
    changed) and the plugin logs the line itself at INFO (the error pages' at DEBUG)."""
    request = REQUEST_LINE.match(str(record.msg))
    if record.levelno != logging.WARNING or request is None:
        return True
    log.log(logging.DEBUG if request["code"] in ("500", "503") else logging.INFO, record.getMessage())
    return False
