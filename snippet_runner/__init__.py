"""Run the chapter's example scripts at build time and keep their printed output honest.

Public names are imported when first used (PEP 562), so a command that needs one module (``make
site`` with nothing changed) does not import the engine too.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snippet_runner.checking.engine import Engine, Outcome
    from snippet_runner.errors import SnippetError

__version__ = "0.1.0"

__all__ = ["Engine", "Outcome", "SnippetError", "__version__"]

_HOMES = {
    "Engine": "snippet_runner.checking.engine",
    "Outcome": "snippet_runner.checking.engine",
    "SnippetError": "snippet_runner.errors",
}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
