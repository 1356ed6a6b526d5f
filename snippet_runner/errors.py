"""The one exception type the engine raises for bad input.

Every failure a reader of the build log has to act on (a missing file, a syntax error, an unexpected
exception, a hang, a changed output, a malformed include) becomes a ``SnippetError`` that carries
the snippet's ``file:line``; the Markdown layer adds the page, so the final message names both.
"""

from __future__ import annotations


class SnippetError(Exception):
    """A snippet could not be shown as approved; ``location`` is ``path:line`` of the culprit."""

    def __init__(self, location: str, message: str, *, page: str | None = None, detail: str = ""):
        self.location = location
        self.message = message
        self.page = page
        self.detail = detail
        super().__init__(str(self))

    def on_page(self, page: str) -> "SnippetError":
        """Return the same error, now also naming the page (``docs/x.md:12``) that included it."""
        return SnippetError(self.location, self.message, page=page, detail=self.detail)

    def __str__(self) -> str:
        head = f"{self.page}: " if self.page else ""
        text = f"{head}{self.location}: {self.message}"
        return f"{text}\n{self.detail}" if self.detail else text
