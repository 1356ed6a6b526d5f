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


def notebooks(snippets_dir: Path, folders: dict[str, str]) -> dict[str, str]:
    """``{"exercises/exercise_1_basic_gradient.py": "exercises/exercise_1_basic_gradient.ipynb"}``:
    each script in a notebook folder, and the page (relative to docs/) it becomes."""
    found = {}
    for folder, docs_folder in folders.items():
        for script in sorted((Path(snippets_dir) / folder).glob("*.py")):
            found[f"{folder.strip('/')}/{script.name}"] = f"{docs_folder.strip('/')}/{script.stem}.ipynb"
    return found


def notebook_scripts(root: Path) -> dict[str, str]:
    """Like :func:`notebooks`, with the folders read from the snippet-runner plugin's ``notebooks``
    setting in ``mkdocs.yml`` and pages named ``docs/...`` (for the CLI and the tests)."""
    config = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_TolerantLoader)
    folders: dict[str, str] = {}
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "snippet-runner" in plugin:
            folders = (plugin["snippet-runner"] or {}).get("notebooks", {})
    return {rel: f"docs/{page}" for rel, page in notebooks(root / "snippets", folders).items()}


class _TolerantLoader(yaml.SafeLoader):
    """mkdocs.yml may hold ``!!python/name:`` tags; we only read plain settings, so ignore them."""


_TolerantLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def snippet_files(snippets_dir: Path) -> list[str]:
    """Every ``.py`` file under ``snippets/``, relative, sorted."""
    return sorted(p.relative_to(snippets_dir).as_posix() for p in Path(snippets_dir).rglob("*.py"))
