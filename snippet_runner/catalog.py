"""Which snippets exist and which pages include them, read from the pages themselves.

The pages are the source of truth: a snippet is whatever a page includes. ``make accept``, the test
suite and the benchmark all start from this list, so they agree with the build about what runs.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from snippet_runner.markdown import find_includes


def includes_by_snippet(docs_dir: Path) -> dict[str, list[str]]:
    """``{"chain_rule/by_hand.py": ["docs/chain-rule.md:31", ...]}``, in page order."""
    found: dict[str, list[str]] = defaultdict(list)
    for page in sorted(Path(docs_dir).rglob("*.md")):
        name = f"docs/{page.relative_to(docs_dir).as_posix()}"
        for include in find_includes(page.read_text(encoding="utf-8"), name):
            found[include.rel].append(f"{name}:{include.line}")
    return dict(found)


def snippet_files(snippets_dir: Path) -> list[str]:
    """Every ``.py`` file under ``snippets/``, relative, sorted."""
    return sorted(p.relative_to(snippets_dir).as_posix() for p in Path(snippets_dir).rglob("*.py"))
