"""Fixtures shared by the tests: the repository's folders, and throwaway snippet folders."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"


@pytest.fixture
def write_snippet(tmp_path):
    """Write ``snippets/<rel>`` under a temporary root; return the snippets folder."""
    snippets = tmp_path / "snippets"

    def write(rel: str, code: str) -> Path:
        path = snippets / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip("\n"), encoding="utf-8")
        return path

    write.snippets = snippets
    return write
