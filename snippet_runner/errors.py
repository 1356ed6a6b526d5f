"""The one exception type the engine raises for bad input.

Every failure an author must act on becomes a ``SnippetError`` carrying the snippet's ``file:line``; the Markdown layer
adds the page. What a snippet printed reaches these messages and the author's terminal, so every control character is
shown escaped (:func:`printable`) and every line after a message's first is indented: no escape code clears a screen,
sets a title or fakes a log line, and no line break starts one. A plain exception, so the engine knows nothing of
MkDocs; the plugin and the Markdown extension raise it again as MkDocs' ``PluginError``, which MkDocs prints as one
clean message instead of a traceback.
"""

from __future__ import annotations

import re

MAX_DETAIL_LINES = 60
MAX_DETAIL_CHARS = 8000


class SnippetError(Exception):
    """A snippet could not be shown as approved; ``location`` is ``path:line`` of the culprit."""

    def __init__(self, location: str, message: str, *, page: str | None = None, detail: str = ""):
        location, message = printable(location), printable(message)
        super().__init__(f"{location}: {message}")  # first: click's exception sets .message too
        self.location, self.message, self.page = location, message, page
        self.detail = capped(printable(detail))

    def on_page(self, page: str) -> SnippetError:
        """Return the same error, now also naming the page (``docs/x.md:12``) that included it."""
        return type(self)(self.location, self.message, page=page, detail=self.detail)

    def __str__(self) -> str:
        head = f"{self.page}: " if self.page else ""
        text = f"{head}{self.location}: {self.message}"
        # each line after the first indented: none a snippet wrote (a message, an output, a diff) starts
        # a line of the build's log, where it could pass for the build's own
        return (f"{text}\n{self.detail}" if self.detail else text).replace("\n", "\n    ")


class SnippetErrors(SnippetError):
    """Several snippets failed: all of them, in page order, in one message."""

    def __init__(self, errors: list[SnippetError]):
        first = errors[0]
        super().__init__(first.location, first.message, page=first.page)
        self.errors = errors

    def on_page(self, page: str) -> SnippetErrors:
        return self

    def __str__(self) -> str:
        return f"{len(self.errors)} snippets failed, in page order:\n\n" + "\n\n".join(map(str, self.errors))


class SetupError(SnippetError):
    """Nothing can run (the worker cannot preload its modules): reported once, not per snippet."""

    def on_page(self, page: str) -> SetupError:
        return self


class WorkerError(SetupError):
    """A worker broke the protocol while this snippet ran: the build stops at once, naming it."""

    def on_page(self, page: str) -> WorkerError:
        return WorkerError(self.location, self.message, page=self.page or page, detail=self.detail)


# C0 controls but tab and newline (so carriage return too), DEL, C1 controls, the line and paragraph
# separators, and the bidirectional overrides and isolates
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character but tab and newline shown escaped (``\\x1b``)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 256 else f"\\u{ord(m[0]):04x}", text)


def capped(text: str) -> str:
    """``text`` capped, saying how much was cut: a 50 MB output must not become a 50 MB error message."""
    if "\n… cut:" in text:
        return text  # already capped (an error passed on with a page added)
    kept = "".join(text.splitlines(keepends=True)[:MAX_DETAIL_LINES])[:MAX_DETAIL_CHARS]
    if len(kept) == len(text):
        return text
    cut_lines = text[len(kept) :].count("\n") + (0 if text.endswith("\n") else 1)
    return f"{kept.rstrip()}\n… cut: {cut_lines} more lines ({len(text) - len(kept):,} more characters)"


def as_text(output: str) -> str:
    """An output as a page shows it: control characters but tab and newline as their Unicode pictures
    (ESC as ␛), STX and ETX too, which Python-Markdown would take for its placeholders."""
    return re.sub("[\x00-\x08\x0b-\x1f]", lambda m: chr(0x2400 + ord(m[0])), output).replace("\x7f", "\u2421")
