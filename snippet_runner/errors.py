"""The one exception type the engine raises for bad input.

Every failure a reader of the build log has to act on (a missing file, a syntax error, an unexpected
exception, a hang, a changed output, a malformed include) becomes a ``SnippetError`` that carries
the snippet's ``file:line``; the Markdown layer adds the page, so the final message names both.

It is a plain exception, so the engine knows nothing of MkDocs. Where the error leaves for MkDocs
(the plugin's events, and the Markdown extension, which runs inside Python-Markdown where the plugin
cannot catch it), that layer raises it again as MkDocs' ``PluginError``, which MkDocs prints as one
clean message where any other exception would be printed as a Python traceback.
"""

from __future__ import annotations

MAX_DETAIL_LINES = 60
MAX_DETAIL_CHARS = 8000


class SnippetError(Exception):
    """A snippet could not be shown as approved; ``location`` is ``path:line`` of the culprit."""

    def __init__(self, location: str, message: str, *, page: str | None = None, detail: str = ""):
        super().__init__(f"{location}: {message}")  # first: click's exception sets .message too
        self.location = location
        self.message = message
        self.page = page
        self.detail = capped(detail)

    def on_page(self, page: str) -> SnippetError:
        """Return the same error, now also naming the page (``docs/x.md:12``) that included it."""
        return type(self)(self.location, self.message, page=page, detail=self.detail)

    def __str__(self) -> str:
        head = f"{self.page}: " if self.page else ""
        text = f"{head}{self.location}: {self.message}"
        return f"{text}\n{self.detail}" if self.detail else text


class SnippetErrors(SnippetError):
    """Several snippets failed: all of them, in the order given (page order), in one message."""

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


def capped(text: str) -> str:
    """At most ``MAX_DETAIL_LINES`` lines and ``MAX_DETAIL_CHARS`` characters of ``text``, saying
    how much was cut: a diff or an output of 50 MB must not become a 50 MB error message."""
    if "\n… cut:" in text:
        return text  # already capped (an error passed on with a page added)
    lines = text.splitlines(keepends=True)
    kept = "".join(lines[:MAX_DETAIL_LINES])[:MAX_DETAIL_CHARS]
    if len(kept) == len(text):
        return text
    cut_lines = text[len(kept) :].count("\n") + (0 if text.endswith("\n") else 1)
    return f"{kept.rstrip()}\n… cut: {cut_lines} more lines ({len(text) - len(kept):,} more characters)"
