"""Which snippets exist and which pages include them, read from the pages themselves.

The pages are the source of truth: a snippet is whatever a page includes. ``make accept``, the test
suite and the benchmark all start from this list, so they agree with the build about what runs.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import yaml

from snippet_runner.markdown import find_includes


def includes_by_snippet(docs_dir: Path) -> dict[str, list[str]]:
    """``{"chain_rule/by_hand.py": ["docs/chain-rule.md:31", ...]}``, in page order."""
    found: dict[str, list[str]] = defaultdict(list)
    for page in sorted(Path(docs_dir).rglob("*.md")):
        name = f"docs/{page.relative_to(docs_dir).as_posix()}"
        for include in find_includes(page.read_text(encoding="utf-8"), name):
            found[include.rel].append(f"{name}:{include.line}")
    return dict(found)


def notebook_scripts(root: Path) -> dict[str, str]:
    """``{"exercises/exercise_1_basic_gradient.py": "docs/exercises/exercise_1_basic_gradient.ipynb"}``,
    from the ``notebooks`` setting of the snippet-runner plugin in ``mkdocs.yml``."""
    config = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_TolerantLoader)
    folders: dict[str, str] = {}
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "snippet-runner" in plugin:
            folders = (plugin["snippet-runner"] or {}).get("notebooks", {})
    found = {}
    for folder, docs_folder in folders.items():
        for script in sorted((root / "snippets" / folder).glob("*.py")):
            found[f"{folder}/{script.name}"] = f"docs/{docs_folder}/{script.stem}.ipynb"
    return found


class _TolerantLoader(yaml.SafeLoader):
    """mkdocs.yml may hold ``!!python/name:`` tags; we only read plain settings, so ignore them."""


_TolerantLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def snippet_files(snippets_dir: Path) -> list[str]:
    """Every ``.py`` file under ``snippets/``, relative, sorted."""
    return sorted(p.relative_to(snippets_dir).as_posix() for p in Path(snippets_dir).rglob("*.py"))
