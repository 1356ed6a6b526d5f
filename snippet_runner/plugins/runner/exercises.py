"""The exercise notebooks: each script of a notebook folder becomes a ``.ipynb`` page, written from
its run just before mkdocs-jupyter (listed after this plugin) reads it; mkdocs-jupyter caches by
the notebook's bytes, so one is rewritten only when its text changed.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from snippet_runner.checking.engine import Engine
from snippet_runner.errors import SnippetError
from snippet_runner.files import write_atomic
from snippet_runner.markdown.notebooks import adjust_rendered_page, to_notebook
from snippet_runner.pictures import draw
from snippet_runner.project import Project

_EMPTY = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def add_pages(project: Project, files, config) -> dict[str, str]:
    """Add each notebook page to ``files``; return ``{page src_uri: snippet rel}``."""
    notebooks = {page: rel for rel, page in project.notebook_pages().items()}
    for page in notebooks:
        files.append(File(page, str(project.notebook_dir), config.site_dir, config.use_directory_urls))
    return notebooks


def write(engine: Engine, rel: str, file, failed: bool) -> None:
    """Write the notebook ``file`` is from the run of ``rel`` (after a failed run, an empty one if none)."""
    path = Path(file.abs_src_path)
    if failed:
        if not path.exists():
            write_atomic(path, json.dumps(_EMPTY))
        return
    drawer = draw.Drawer.of(engine)
    try:
        text = to_notebook(engine.run(rel), drawer)
    except SnippetError as error:
        raise PluginError(str(error.on_page(f"docs/{file.src_uri} (generated)"))) from None
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        write_atomic(path, text)  # a build running at the same time never reads half of it


def adjust_page(html: str, page, styles: dict[str, None]) -> str:
    """mkdocs-jupyter's HTML without its stylesheets (into ``styles``), with a link to the next page."""
    following = page.next_page
    link = (following.file.url_relative_to(page.file), following.title) if following else None
    html, taken = adjust_rendered_page(html, Path(page.file.src_uri).name, next_page=link)
    styles.update(dict.fromkeys(taken))
    return html
