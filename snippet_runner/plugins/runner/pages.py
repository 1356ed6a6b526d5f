"""Run the snippets each page shows, and collect every failure into one message.

``mkdocs build`` runs a page's snippets as MkDocs reads it (``on_pre_page``), so pages render while
the worker runs later ones. ``mkdocs serve`` and a ``--dirty`` build run them all first
(``on_nav``): what each page shows decides which pages render again (``serving.py``).
"""

from __future__ import annotations

import hashlib

from mkdocs.exceptions import PluginError
from mkdocs.utils.meta import get_data

from snippet_runner.checking.engine import Engine
from snippet_runner.errors import SetupError, SnippetError
from snippet_runner.markdown.run_lines import combined, run_all
from snippet_runner.plugins.runner.preview import Preview
from snippet_runner.project import Project


class PageRuns:
    """What each page's snippets showed in this build (``shown``, a digest a page) and which failed (``errors``)."""

    def __init__(self, project: Project, engine: Engine, notebooks: dict[str, str]) -> None:
        self.project, self.engine, self.notebooks = project, engine, notebooks
        self.shown: dict[str, str] = {}
        self.errors: dict[str, SnippetError] = {}
        self.order: list[str] = []  # the pages' src_uri in reading order

    def build_info(self, config) -> None:
        """``config.extra.build_info``: what the ``build_info`` snippet printed in this build."""
        if rel := self.project.build_info:
            try:
                config.extra["build_info"] = self.engine.run(rel).output.strip()
            except SnippetError as error:
                self.errors[""] = error.on_page("mkdocs.yml (snippet-runner build_info)")

    def run(self, file) -> None:
        """Run the snippets ``file`` shows: into ``shown``, or ``errors`` (a broken setup stops at once)."""
        if file.src_uri in self.shown or file.src_uri in self.errors:
            return
        name = self.project.shown_path(self.project.docs_dir / file.src_uri)
        try:
            if file.src_uri in self.notebooks:
                outcomes = [self.engine.run(self.notebooks[file.src_uri])]
            elif file.src_uri.endswith(".md"):
                markdown, _ = get_data(file.content_string)
                outcomes = list(run_all(markdown, name, self.engine).values())
            else:
                return
            shown = [(o.snippet.source, o.outputs, o.error, o.verdict, o.pictures) for o in outcomes]
            self.shown[file.src_uri] = hashlib.blake2b(repr(shown).encode(), digest_size=16).hexdigest()
        except SetupError as error:
            raise PluginError(str(error)) from None
        except SnippetError as error:
            self.errors[file.src_uri] = (
                error.on_page(f"{name} (generated)") if file.src_uri in self.notebooks else error
            )

    def stop_on_errors(self, preview: Preview | None = None) -> None:
        """One message for every failure, in reading order (under ``make serve``, the error page instead)."""
        if self.errors:
            rank = {src_uri: i for i, src_uri in enumerate(["", *self.order])}
            ordered = sorted(self.errors.items(), key=lambda item: rank.get(item[0], len(rank)))
            error = combined([error for _, error in ordered])
            if preview is not None:
                preview.snippets_failed(error)
                return
            raise PluginError(str(error)) from None


def in_read_order(project: Project, shown: dict[str, list[str]], files) -> list[str]:
    """The snippets in the order MkDocs reads the pages that show them, so the worker runs those first."""
    docs = project.shown_path(project.docs_dir) + "/"
    position = {file.src_uri: i for i, file in enumerate(files.documentation_pages())}

    def first_read(rel: str) -> int:
        pages = (where.split(":")[0].removeprefix(docs) for where in shown[rel])
        return min((position.get(page, len(position)) for page in pages), default=len(position))

    return sorted(shown, key=first_read)


def reading_order(in_nav: list, files) -> list:
    """The pages in the navigation's order, then any page outside it."""
    seen = {file.src_uri for file in in_nav}
    return in_nav + [file for file in files.documentation_pages() if file.src_uri not in seen]
