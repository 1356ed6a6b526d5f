"""Run the chapter's example scripts at build time and keep their printed output honest.

A page names a snippet; the engine runs it once (in a worker process that imported torch once),
compares what it printed with the approved copy committed beside it, and caches the result so an
unchanged snippet never runs twice. The MkDocs plugin is a thin layer over :class:`Engine`, and the
test suite drives the same engine directly.
"""

from snippet_runner.checking.engine import Engine, Outcome
from snippet_runner.errors import SnippetError

__version__ = "0.1.0"

__all__ = ["Engine", "Outcome", "SnippetError", "__version__"]
