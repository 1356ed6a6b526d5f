"""The MkDocs side of the engine (``snippet-runner`` in mkdocs.yml): MkDocs' documented plugin
events, each handing its work to the module of that concern (``config.py``, ``pages.py``,
``exercises.py``, ``downloads.py``, ``serving.py``, ``preview.py``).

The ``{{ run … }}`` lines are expanded by a Python-Markdown extension
(:mod:`snippet_runner.markdown.extension`), given the build's engine through its own configuration
(``mdx_configs``). Environment overrides: ``SNIPPETS_APPROVAL=strict|warn``, ``SNIPPETS_EXECUTE=0``
(code only: the benchmark's baseline build).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from snippet_runner.checking.engine import APPROVAL_MODES, Engine
from snippet_runner.errors import SnippetError
from snippet_runner.files import write_atomic
from snippet_runner.markdown.notebooks import STYLESHEET
from snippet_runner.pictures import draw
from snippet_runner.plugins.runner import downloads, exercises, reader_assets, serving
from snippet_runner.plugins.runner.config import SnippetRunnerConfig
from snippet_runner.plugins.runner.pages import PageRuns, in_read_order, reading_order
from snippet_runner.plugins.runner.preview import Preview
from snippet_runner.project import Project
from snippet_runner.site import report

log = logging.getLogger("mkdocs.plugins.snippet_runner")

EXTENSION = "snippet_runner.markdown.extension"
_BUILD_LOG = logging.getLogger("mkdocs.commands.build")


class SnippetRunnerPlugin(BasePlugin[SnippetRunnerConfig]):
    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.project: Project | None = None
        self.serving = self.dirty = False
        self.notebooks: dict[str, str] = {}  # docs src_uri of an exercise notebook -> snippet rel
        self.runs: PageRuns | None = None
        self.page_digests: dict[str, str] = {}  # src_uri -> what its snippets showed, last serve build
        self.served_report: str | None = None
        self.notebook_styles: dict[str, None] = {}
        self.shown_rels: list[str] = []  # the snippets the pages show, this build
        self.preview = Preview()  # make serve: new examples, error pages, unapproved lines
        self.rendering = "(page)"  # the page whose Markdown is being rendered, as messages name it

    def on_startup(self, *, command, dirty) -> None:
        # Defining on_startup makes MkDocs keep this instance (and its engine) across serve's rebuilds.
        self.serving, self.dirty = command == "serve", dirty
        if self.serving and dirty:
            _BUILD_LOG.addFilter(serving.dirty_note)
        if self.serving:
            self.preview.start()

    def on_config(self, config):
        try:
            self.project = Project.from_config(config, self.config)
        except SnippetError as error:
            raise PluginError(str(error)) from None
        if self.engine is None:  # once per `mkdocs build`, once per whole `mkdocs serve`
            approval, execute = self.project.for_build(self.serving)
            if approval not in APPROVAL_MODES:
                raise PluginError(
                    f"SNIPPETS_APPROVAL={approval}: a build can only check outputs ({' or '.join(APPROVAL_MODES)});"
                    " approving them is `python -m snippet_runner accept`, which runs each snippet twice and keeps only what both runs agree on"
                )
            self.engine = self.project.engine(approval=approval, execute=execute)
            if self.serving and execute:
                self.engine.runner.warm_up()  # so an edited snippet re-runs in milliseconds
        self.engine.begin_build()
        if self.serving:
            self.preview.begin_build()
        self.notebook_styles = {}
        if EXTENSION not in config.markdown_extensions:
            config.markdown_extensions.append(EXTENSION)  # a project that lists only the plugin
        config.mdx_configs.setdefault(EXTENSION, {})["session"] = (self.engine, lambda: self.rendering)
        config.watch.append(str(self.project.snippets_dir))
        reader_assets.add_to_config(config, katex=self.config.math == "katex")
        print_site = config.plugins.get("print-site")
        if self.serving and print_site is not None and os.environ.get("SNIPPETS_PRINT_PAGE") != "true":
            # serve leaves the print page out, whatever mkdocs.yml says: it is the PDF's source, which
            # only a site build prints, and combining every page would slow every rebuild
            print_site.config["enabled"] = False
        return config

    def on_files(self, files, *, config):
        reader_assets.add_files(files, config)
        self.notebooks = exercises.add_pages(self.project, files, config)
        self.runs = PageRuns(self.project, self.engine, self.notebooks)
        try:
            rels = in_read_order(self.project, self.project.shown(), files)
        except SnippetError:
            rels = list(self.notebooks.values())  # a malformed include: its page reports it
        self.engine.prefetch(rels)  # the worker starts on these while MkDocs carries on
        self.shown_rels = rels
        return files

    @property
    def _page_by_page(self) -> bool:
        """A build runs a page's snippets as MkDocs reads it; serve and ``--dirty`` run them all first."""
        return not self.serving and not self.dirty

    def on_nav(self, nav, *, config, files):
        if not self.engine.execute:
            return nav
        in_order = reading_order([page.file for page in nav.pages], files)
        self.runs.order = [file.src_uri for file in in_order]
        if self._page_by_page:
            return nav
        self.runs.build_info(config)
        for file in in_order:
            self.runs.run(file)
        self.runs.stop_on_errors(self.preview if self.serving else None)
        if self.serving and self.dirty:
            digests = {"": serving.site_wide(config) + config.extra.get("build_info", ""), **self.runs.shown}
            serving.forget_changed_pages(files, self.page_digests, digests)
            self.page_digests = digests
        return nav

    def on_pre_page(self, page, *, config, files):
        if self.engine.execute and self._page_by_page:
            self.runs.run(page.file)
        rel = self.notebooks.get(page.file.src_uri)
        if rel is not None:  # mkdocs-jupyter, listed after us, reads it next
            exercises.write(self.engine, rel, page.file, failed=page.file.src_uri in self.runs.errors)
        return page

    def on_page_markdown(self, markdown, *, page, config, files):
        # the extension names this page in its messages: MkDocs renders it next, after these events
        source = page.file.abs_src_path
        self.rendering = self.project.shown_path(Path(source)) if source else page.file.src_uri
        if page.file.src_uri in self.runs.errors:
            return ""  # the build stops after reading every page (on_env): not a failure per page
        if page.file.src_uri not in self.notebooks:
            downloads.link(page, markdown, self.project)
        elif self.project.notebook_search_boost != 1:
            # A notebook has no front matter to carry `search: boost:`: set before Material's search reads it
            page.meta.setdefault("search", {}).setdefault("boost", self.project.notebook_search_boost)
        return markdown

    def on_page_content(self, html, *, page, config, files):
        if page.file.src_uri in self.notebooks:
            return exercises.adjust_page(html, page, self.notebook_styles)
        return html

    def on_post_page(self, output, *, page, config):
        return reader_assets.add_links(reader_assets.add_notebook_styles(output, page, STYLESHEET), page)

    def on_env(self, env, *, config, files):
        """A build has read every page: fail now if any snippet failed, before a template renders."""
        if self.engine.execute and self._page_by_page:
            self.runs.build_info(config)
            self.runs.stop_on_errors(self.preview if self.serving else None)
        return env

    def on_post_build(self, *, config):
        if self.notebook_styles:  # none in a dirty rebuild that rendered no notebook: the last file stays
            write_atomic(Path(config.site_dir) / STYLESHEET, "\n".join(self.notebook_styles) + "\n")
        if not self.preview.snippets_failing:  # a failing snippet may have no output to put in a notebook
            downloads.write(self.project, config)
        log.info(self.engine.summary())
        log.info(draw.summary(self.engine.drawings))
        if self.engine.execute and self.engine.records:
            shown = self.project.shown()
            path = report.write(self.project.report_path, self.engine.records, shown, self.project.snippets_name)
            log.info(
                f"Execution report (each snippet's page, run time, memory, output): {self.served_report or self.project.shown_path(path)}"
            )
        if self.serving:
            self.preview.built(self.engine, self.shown_rels)
        else:
            self._close()

    def on_serve(self, server, *, config, builder):
        self.preview.serve(server)  # first, so that the report's app wraps the error pages' app
        self.served_report = serving.report_app(server, self.project.report_path)
        log.info(f"Execution report served at {self.served_report}")
        return server

    def on_build_error(self, *, error):
        if self.serving:
            self.preview.build_failed(error)
        else:
            self._close()

    def on_shutdown(self):
        _BUILD_LOG.removeFilter(serving.dirty_note)
        self.preview.stop()
        self._close()

    def _close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
