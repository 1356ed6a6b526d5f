"""Every teaching page's examples as a notebook, plus one archive of them all, written into the
site (:mod:`snippet_runner.markdown.page_notebooks`); the pages link them through ``page.meta``."""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.exceptions import PluginError

from snippet_runner.errors import SnippetError
from snippet_runner.markdown import page_notebooks
from snippet_runner.markdown.run_lines import find_includes
from snippet_runner.project import Project

log = logging.getLogger("mkdocs.plugins.snippet_runner")


def link(page, markdown: str, project: Project) -> None:
    """Give a page that shows examples the links to its notebook and to the archive (reader_assets.py)."""
    if page.file.src_uri.endswith(".md") and find_includes(markdown, page.file.src_uri):
        folder = page_notebooks.FOLDER
        page.meta["examples_notebook"] = f"{folder}/{page_notebooks.notebook_name(page.file.src_uri)}"
        page.meta["examples_archive"] = f"{folder}/{page_notebooks.archive_stem(project.site_name)}.zip"


def write(project: Project, config) -> None:
    """Every page's notebook and the archive, into the site."""
    try:
        notebooks, bundle = page_notebooks.for_project(project, config.use_directory_urls)
    except SnippetError as error:
        raise PluginError(str(error)) from None
    folder = Path(config.site_dir) / page_notebooks.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for notebook in notebooks:
        (folder / notebook.name).write_text(notebook.text, encoding="utf-8")
    name = f"{page_notebooks.archive_stem(project.site_name)}.zip"
    (folder / name).write_bytes(bundle)
    log.info(f"Downloads: {len(notebooks)} page notebooks and {name}")
