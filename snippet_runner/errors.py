"""The one exception type the engine raises for bad input.

Every failure a reader of the build log has to act on (a missing file, a syntax error, an unexpected
exception, a hang, a changed output, a malformed include) becomes a ``SnippetError`` that carries
the snippet's ``file:line``; the Markdown layer adds the page, so the final message names both.

Where MkDocs is installed the error is also a MkDocs ``PluginError``: the expansion runs inside
Python-Markdown, where the plugin cannot catch it, and MkDocs prints a build error as one clean
message (and stops), where any other exception would be printed as a Python traceback.
"""

from __future__ import annotations

try:
    from mkdocs.exceptions import PluginError as _Base
except ImportError:  # a builder without MkDocs: a plain exception, still with one clear message
    _Base = Exception


class SnippetError(_Base):
    """A snippet could not be shown as approved; ``location`` is ``path:line`` of the culprit."""

    def __init__(self, location: str, message: str, *, page: str | None = None, detail: str = ""):
        super().__init__(f"{location}: {message}")  # first: click's exception sets .message too
        self.location = location
        self.message = message
        self.page = page
        self.detail = detail

    def on_page(self, page: str) -> "SnippetError":
        """Return the same error, now also naming the page (``docs/x.md:12``) that included it."""
        return SnippetError(self.location, self.message, page=page, detail=self.detail)

    def __str__(self) -> str:
        head = f"{self.page}: " if self.page else ""
        text = f"{head}{self.location}: {self.message}"
        return f"{text}\n{self.detail}" if self.detail else text
