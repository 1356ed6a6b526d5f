"""The MkDocs side: what only MkDocs can do, over the engine and the Markdown extension.

The expansion of ``{{ run … }}`` lines is a Python-Markdown extension
(:mod:`snippet_runner.markdown.extension`) that works without MkDocs. This plugin adds what needs
MkDocs' build events: it builds the :class:`~snippet_runner.project.Project` from its validated
settings, scans the pages once (``on_files``) to send every uncached snippet to the worker early, so
torch is imported while MkDocs renders (``make site`` made the engine, and sent them, before MkDocs
loaded: ``Project.start_early``, whose engine this then is); it keeps one engine (and one warm
worker) across the rebuilds of ``mkdocs serve`` and watches the snippets; it writes the exercise
notebooks (their exercises run first, and a forked copy of the build renders their pages while the
Markdown pages are read: ``notebooks_ahead.py``), and each teaching page's examples as a notebook
plus one archive of them all (:mod:`snippet_runner.markdown.page_notebooks`, linked from the pages
through ``page.meta``); and it gives templates the build info.

Under ``mkdocs serve`` an output that differs from its approved copy is shown at once, under a
warning, instead of failing the build: the author is looking at it. ``mkdocs build`` stays strict.
Environment overrides: ``SNIPPETS_APPROVAL=strict|warn`` and ``SNIPPETS_EXECUTE=0`` (show
code only; the benchmark's baseline build).

With ``build_info: <snippet>`` set, that snippet's output in this build (say, which torch printed
the outputs) is also given to templates as ``config.extra.build_info``; the PDF's cover shows it.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import logging
from pathlib import Path

import jinja2
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File
from mkdocs.utils.meta import get_data

from snippet_runner.checking.engine import APPROVAL_MODES, Engine
from snippet_runner.errors import SetupError, SnippetError
from snippet_runner.files import write_atomic
from snippet_runner.markdown import extension, page_notebooks
from snippet_runner.markdown.notebooks import STYLESHEET, adjust_rendered_page, styles_taken_out, to_notebook
from snippet_runner.markdown.run_lines import combined, find_includes, run_all
from snippet_runner.pictures import draw
from snippet_runner.plugins.runner import lazy_jupyter, notebooks_ahead, page_cache
from snippet_runner.plugins.runner.preview import Preview  # issue 43: preview.py
from snippet_runner.project import Project, SnippetRunnerConfig
from snippet_runner.running.snippet import approved_pictures_rel, inside
from snippet_runner.site import report

log = logging.getLogger("mkdocs.plugins.snippet_runner")

# MkDocs imports each plugin's module in the order mkdocs.yml lists them, and this plugin is listed
# before mkdocs-jupyter: nbconvert is then imported only if a notebook really has to be converted.
lazy_jupyter.defer_notebook_converter()

EXTENSION = "snippet_runner.markdown.extension"


class SnippetRunnerPlugin(BasePlugin[SnippetRunnerConfig]):
    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.project: Project | None = None
        self.serving = False
        self.notebooks: dict[str, str] = {}  # docs src_uri of a generated notebook -> snippet rel
        self.dirty = False
        self.page_digests: dict[str, str] = {}  # src_uri -> what its snippets showed, last build
        self.served_report: str | None = None  # the execution report's URL under `mkdocs serve`
        self.shown: dict[str, str] = {}  # src_uri -> digest of what its snippets show, this build
        self.page_cache: page_cache.PageCache | None = None
        self.site_wide = ""  # page_cache.site_wide_digest of this build
        self.notebook_styles: dict[str, None] = {}  # the notebook pages' stylesheets, in order, this build
        self.shown_rels: list[str] = []  # the snippets the pages show, this build (on_files)
        self.order: list[str] = []  # the pages' src_uri in reading order, this build
        self.errors: dict[str, SnippetError] = {}  # src_uri ("" for the build info) -> its failure, this build
        self.ahead: notebooks_ahead.Ahead | None = None  # the notebook pages rendered ahead, this build
        self.ahead_tried = False  # whether this build has looked for notebooks to render ahead
        self.preview = Preview()  # issue 43: preview.py

    def on_startup(self, *, command, dirty) -> None:
        # Defining on_startup makes MkDocs keep this instance across `mkdocs serve` rebuilds.
        self.serving = command == "serve"
        self.dirty = dirty
        if self.serving and dirty:
            logging.getLogger("mkdocs.commands.build").addFilter(_tracked_dirty_build)
        if self.serving:
            self.preview.start()  # issue 43: preview.py

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
                    " approving them is `make accept`, which runs each snippet twice and keeps only what both runs agree on"
                )
            self.engine = self.project.engine(approval=approval, execute=execute)
            if self.serving and execute:
                self.engine.runner.warm_up()  # so an edited snippet re-runs in milliseconds
        self.engine.begin_build()
        if self.serving:
            self.preview.begin_build()  # issue 43: preview.py
        self.notebook_styles = {}
        # overrides/main.html links it where a notebook shows; config.extra, not a global of the
        # Jinja environment, because print-site renders the print page in an environment of its own
        config.extra["notebook_stylesheet"] = STYLESHEET
        draw.STATS = draw.Stats()  # what drawing pictures costs in this build
        extension.use(self.project, self.engine)
        if EXTENSION not in config.markdown_extensions:
            config.markdown_extensions.append(EXTENSION)  # a project that lists only the plugin
        config.watch.append(str(self.project.snippets_dir))
        _cache_compiled_templates(config.theme, self.project.template_cache_dir)
        lazy_jupyter.cache_compiled_templates(self.project.template_cache_dir)
        return config

    def on_files(self, files, *, config):
        self.notebooks = {page: rel for rel, page in self.project.notebook_pages().items()}
        for page in self.notebooks:
            files.append(File(page, str(self.project.notebook_dir), config.site_dir, config.use_directory_urls))
        try:
            rels = self._in_page_read_order(self.project.shown(), files)
        except SnippetError:
            rels = list(self.notebooks.values())  # a malformed include: its page reports it
        # The exercises first: their notebooks are rendered beside the Markdown pages (on_pre_page)
        exercises = set(self.notebooks.values())
        rels = [rel for rel in rels if rel in exercises] + [rel for rel in rels if rel not in exercises]
        self.engine.prefetch(rels)  # the worker starts on these while MkDocs carries on
        self.shown_rels = rels
        self.page_cache = None
        self.site_wide = page_cache.site_wide_digest(config)
        if self.engine.execute:  # showing code only (SNIPPETS_EXECUTE=0) reads the snippets while rendering
            mode = f"approval={self.engine.approval_mode} serving={self.serving}"
            key = page_cache.site_key(config, files, mode, self.site_wide)
            self.page_cache = page_cache.PageCache(self.project.page_cache_dir, key)
            search = config.plugins.get("material/search")
            if getattr(search, "search_index", None) is not None:
                self.page_cache.cache_search(search.search_index)
        return files

    def _in_page_read_order(self, shown: dict[str, list[str]], files) -> list[str]:
        """The snippets in the order MkDocs reads the pages that show them (its files' order, not
        the navigation's): a build runs each page's snippets as it reads the page
        (``on_pre_page``), so the worker runs first what the first page read waits for."""
        assert self.project is not None  # on_config made it
        docs = self.project.shown_path(self.project.docs_dir) + "/"
        position = {file.src_uri: i for i, file in enumerate(files.documentation_pages())}

        def first_read(rel: str) -> int:
            pages = (where.split(":")[0].removeprefix(docs) for where in shown[rel])
            return min((position.get(page, len(position)) for page in pages), default=len(position))

        return sorted(shown, key=first_read)

    def on_nav(self, nav, *, config, files):
        """Before any page is read. ``mkdocs serve`` (and a ``--dirty`` build) runs every snippet
        of every page here, in reading order, and stops with one message listing every failure: it
        must know what each page shows before MkDocs decides which pages to render again. A build
        instead runs each page's snippets as MkDocs reads that page (``on_pre_page``), so pages
        render while later snippets still run, and stops after reading every page (``on_env``),
        with the same one message. Either way templates get the ``build_info`` snippet's output."""
        if not self.engine.execute:
            return nav
        if self.engine.workers_starting():
            self._while_the_workers_start(config)
        in_order = self._reading_order([page.file for page in nav.pages], files)
        self.order = [file.src_uri for file in in_order]
        self.shown = {}
        self.errors = {}
        self.ahead, self.ahead_tried = None, False
        if self._page_by_page:
            return nav
        track = self.serving and self.dirty  # what each page shows, for _forget_changed_pages
        digests = {"": self.site_wide} if track else {}
        self._run_build_info(config)
        if track and "build_info" in config.extra:
            digests[""] += config.extra["build_info"]
        for file in in_order:
            self._run_page(file)
            if track and file.src_uri in self.shown:
                digests[file.src_uri] = self.shown[file.src_uri]
        self._stop_on_errors()
        if track:
            self._forget_changed_pages(files, digests)
            self.page_digests = digests
        return nav

    def _run_build_info(self, config) -> None:
        assert self.engine is not None and self.project is not None  # on_config made them
        rel = self.project.build_info
        if rel:
            try:
                config.extra["build_info"] = self.engine.run(rel).output.strip()
            except SnippetError as error:
                self.errors[""] = error.on_page("mkdocs.yml (snippet-runner build_info)")

    def _run_page(self, file) -> None:
        """Run the snippets ``file`` shows: what it shows goes to ``self.shown``, a failure to
        ``self.errors`` (a broken setup stops the build at once)."""
        assert self.engine is not None and self.project is not None  # on_config made them
        name = self.project.shown_path(self.project.docs_dir / file.src_uri)
        try:
            if file.src_uri in self.notebooks:
                outcomes = [self.engine.run(self.notebooks[file.src_uri])]
            elif file.src_uri.endswith(".md"):
                markdown, _ = get_data(file.content_string)
                outcomes = list(run_all(markdown, name, self.engine).values())
            else:
                return
            self.shown[file.src_uri] = _digest(outcomes)
        except SetupError as error:
            raise PluginError(str(error)) from None
        except SnippetError as error:
            self.errors[file.src_uri] = (
                error.on_page(f"{name} (generated)") if file.src_uri in self.notebooks else error
            )

    def _stop_on_errors(self) -> None:
        """One message for every failure, the build info's first, then the pages' in reading order."""
        if self.errors:
            rank = {src_uri: i for i, src_uri in enumerate(["", *self.order])}
            ordered = sorted(self.errors.items(), key=lambda item: rank.get(item[0], len(rank)))
            if self.serving:  # issue 43: an error page for every page instead of a build that hangs the server
                return self.preview.snippets_failed(combined([error for _, error in ordered]))
            raise PluginError(str(combined([error for _, error in ordered]))) from None

    def on_env(self, env, *, config, files):
        """A build has read every page (and run its snippets): fail now if any failed, before a
        template is rendered; and give the templates the build info."""
        if self.engine.execute and self._page_by_page:
            self._run_build_info(config)
            self._stop_on_errors()
        if self.page_cache is not None:  # a page whose template is given what it was: its HTML, kept
            self.page_cache.cache_templates(env, config.theme.static_templates)
        return env

    @property
    def _page_by_page(self) -> bool:
        """Whether a page's snippets run when MkDocs reads the page: in a build that reads every
        page. ``mkdocs serve`` picks the pages to read by what their snippets show, and a
        ``--dirty`` build reads only the pages edited since the last one (MkDocs skips the others'
        events), so both run every snippet first, in ``on_nav``."""
        return not self.serving and not self.dirty

    def _while_the_workers_start(self, config) -> None:
        """A worker that has just started spends seconds importing torch and warming up, on a core
        of its own, and the build would wait for it here: so this process does now what needs no
        snippet's result. It draws the pictures from their approved data (the render finds them in
        the cache: a run whose pictures differ from the approved ones fails anyway), compiles the
        theme's templates into the bytecode cache, and imports nbconvert, which the notebook pages
        need when they are converted."""
        assert self.engine is not None and self.project is not None  # on_config made them
        if self.engine.cache is not None:
            approved = {}
            for rel in self.shown_rels:  # as a page wrote it: only what stays inside the snippets folder
                try:
                    approved[rel] = inside(self.project.snippets_dir, approved_pictures_rel(rel), rel, "")
                except SnippetError:
                    continue  # the page's render reports it
            draw.Drawer(self.engine.cache.folder / "pictures").draw_ahead(approved)
        _compile_templates(config.theme)
        if self.notebooks:
            lazy_jupyter.load_notebook_converter()

    def _forget_changed_pages(self, files, digests: dict[str, str]) -> None:
        """``mkdocs serve --dirty`` (what ``make serve`` runs) renders again only the pages whose
        source file is newer than their HTML. A page whose snippet, approved output or picture
        changed has an unchanged source, and a generated notebook is rewritten only when its page
        is rendered: so remove the HTML of every page whose snippets now show something else, and
        of every page if something all pages show changed (mkdocs.yml, the theme overrides, the
        drift records, the build info), and MkDocs renders exactly those again."""
        if not self.page_digests:
            return  # the first build of the session renders everything
        everything = digests[""] != self.page_digests.get("")
        changed = [
            file
            for file in files.documentation_pages()
            if everything or digests.get(file.src_uri) != self.page_digests.get(file.src_uri)
        ]
        for file in changed:
            Path(file.abs_dest_path).unlink(missing_ok=True)
        if everything:
            log.info("Dirty build: the settings, theme or drift records changed, so every page is rendered again")
        elif changed:
            log.info(
                f"Dirty build: rendering again the pages whose snippets changed: {', '.join(f.src_uri for f in changed)}"
            )

    @staticmethod
    def _reading_order(in_nav: list, files) -> list:
        """The pages in the navigation's order, then any page outside it."""
        seen = {file.src_uri for file in in_nav}
        return in_nav + [file for file in files.documentation_pages() if file.src_uri not in seen]

    def on_pre_page(self, page, *, config, files):
        """A build runs the page's snippets now (see ``on_nav``); before the first page, it writes
        the notebooks and has them rendered ahead (``_render_notebooks_ahead``). Then, for a
        generated notebook: write it just before mkdocs-jupyter (listed after us) reads it, unless
        the notebook there was made from what its exercise shows now (its key, beside it)."""
        if self.engine.execute and self._page_by_page:
            if not self.ahead_tried:
                self.ahead_tried = True
                self._render_notebooks_ahead(config, files)
            if page.file.src_uri not in self.shown:
                self._run_page(page.file)
        if page.file.src_uri not in self.notebooks:
            return page
        if page.file.src_uri in self.errors:  # the build stops after reading every page (on_env)
            path = Path(page.file.abs_src_path)
            if not path.exists():
                empty = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
                write_atomic(path, json.dumps(empty))  # something for mkdocs-jupyter to read meanwhile
            return page
        try:
            self._write_notebook(page.file)
        except SnippetError as error:
            raise PluginError(str(error.on_page(f"docs/{page.file.src_uri} (generated)"))) from None
        if self.ahead is not None and page.file.src_uri in self.ahead.pages:
            self.ahead.wait()  # mkdocs-jupyter then finds the page in its cache
        return page

    def _write_notebook(self, file) -> bool:
        """Write the notebook ``file`` shows, from its exercise's run, unless the notebook there was
        made from what that exercise shows now; True if it was written."""
        assert self.engine is not None  # on_config made it
        path = Path(file.abs_src_path)
        made_from = path.with_name(f"{path.name}.key")  # the key, and the hash of the notebook made from it
        key = None
        if self.page_cache is not None and file.src_uri in self.shown:
            key = hashlib.blake2b(f"{self.page_cache.key}\0{self.shown[file.src_uri]}".encode(), digest_size=20)
            if made_from.is_file() and path.is_file():
                made = hashlib.blake2b(path.read_bytes(), digest_size=20).hexdigest()
                if made_from.read_text(encoding="utf-8") == f"{key.hexdigest()} {made}":
                    return False  # (another build that wrote the notebook since wrote another key)
        cache = self.engine.cache
        drawer = draw.Drawer(cache.folder / "pictures" if cache is not None else None)
        text = to_notebook(self.engine.run(self.notebooks[file.src_uri]), drawer)
        written = not path.exists() or path.read_text(encoding="utf-8") != text
        if written:
            write_atomic(path, text)  # a build running at the same time never reads half of it
        if key is not None:
            write_atomic(made_from, f"{key.hexdigest()} {hashlib.blake2b(text.encode(), digest_size=20).hexdigest()}")
        return written

    def _render_notebooks_ahead(self, config, files) -> None:
        """Before the first page is read: run the exercises (the worker runs them first), write
        their notebooks, and have a forked copy of the build render the pages of those written now
        (``notebooks_ahead.py``) while this process reads the Markdown pages. A notebook left as it
        was is most likely in mkdocs-jupyter's cache already; a failing exercise is left to its page."""
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is None or not self.notebooks:
            return
        pages = []
        for file in files.documentation_pages():
            if file.src_uri not in self.notebooks or file.page is None:
                continue
            self._run_page(file)
            if file.src_uri in self.errors:
                continue
            try:
                if self._write_notebook(file):
                    pages.append(file.page)
            except SnippetError:
                continue  # its page reports it
        self.ahead = notebooks_ahead.start(pages, jupyter, config, files)

    def on_page_markdown(self, markdown, *, page, config, files):
        if page.file.src_uri in self.errors:
            return ""  # the build stops after reading every page (on_env): not a failure per page
        if page.file.src_uri in self.notebooks:
            # A notebook has no front matter to carry `search: boost:`, so we set it here, before
            # Material's search plugin reads page.meta (in on_page_context).
            if self.project.notebook_search_boost != 1:
                page.meta.setdefault("search", {}).setdefault("boost", self.project.notebook_search_boost)
            return markdown
        if self.page_cache is not None and page.file.src_uri in self.shown and "render" not in vars(page):
            self.page_cache.cache_render(page, self.shown[page.file.src_uri])  # unless a plugin replaced it
        if page.file.src_uri.endswith(".md") and find_includes(markdown, page.file.src_uri):
            # the template links these (overrides/main.html); on_post_build writes them
            folder = page_notebooks.FOLDER
            page.meta["examples_notebook"] = f"{folder}/{page_notebooks.notebook_name(page.file.src_uri)}"
            page.meta["examples_archive"] = f"{folder}/{page_notebooks.ARCHIVE}"
        return markdown

    def _adjust_notebook_page(self, html, *, page, config, files):
        if page.file.src_uri in self.notebooks:
            following = page.next_page
            link = (following.file.url_relative_to(page.file), following.title) if following else None
            html, styles = styles_taken_out(html)
            self.notebook_styles.update(dict.fromkeys(styles))
            return adjust_rendered_page(html, Path(page.file.src_uri).name, next_page=link)
        return html

    @event_priority(-100)
    def _index_ahead(self, html, *, page, config, files):
        """Once every plugin has had the page's HTML: its search entries, now (page_cache.py)."""
        if self.page_cache is not None:
            self.page_cache.index_ahead(page, html)
        return html

    on_page_content = CombinedEvent(_adjust_notebook_page, _index_ahead)

    def _write_notebook_styles(self, *, config):
        """Before the print page is final (priority 0, above the ``print_page`` plugin's -100): it
        links this stylesheet, and ``make site`` starts printing the PDF from then on."""
        if self.notebook_styles:  # none in a dirty rebuild that rendered no notebook: the last file stays
            write_atomic(Path(config.site_dir) / STYLESHEET, "\n".join(self.notebook_styles) + "\n")

    @event_priority(-200)
    def _after_the_print_page(self, *, config):
        """What nothing printed needs, after the print page is final: ``make site`` prints the PDF
        meanwhile (``site/early_print.py``)."""
        if not self.preview.snippets_failing:  # issue 43: preview.py: a failing snippet may not even load
            self._write_downloads(config)
        log.info(self.engine.summary())
        log.info(draw.STATS.line())
        if self.page_cache is not None:
            log.info(self.page_cache.line())
            log.info(self.page_cache.templates_line())
        if self.engine.execute and self.engine.records:
            shown = self.project.shown()
            path = report.write(self.project.report_path, self.engine.records, shown, self.project.snippets_name)
            where = self.served_report or self.project.shown_path(path)
            log.info(f"Execution report (each snippet's page, run time, memory, output): {where}")
        if self.serving:
            self.preview.built(self.engine, self.shown_rels)  # issue 43: preview.py
        if not self.serving:
            self._close()

    on_post_build = CombinedEvent(_write_notebook_styles, _after_the_print_page)

    def _write_downloads(self, config) -> None:
        """Every page's notebook and the archive (:func:`page_notebooks.for_project`), into the site.
        They are made from the pages' headings and includes, the snippets and their approved
        outputs only, so they are kept by the key of those, and made again only when one changed."""
        project = self.project
        assert project is not None  # set in on_config
        stored = project.cache_dir.parent / "downloads"
        key = None
        if self.page_cache is not None:
            made_of = page_notebooks.inputs_key(project, config.use_directory_urls)
            key = hashlib.blake2b(f"{self.page_cache.key}\0{made_of}".encode(), digest_size=20).hexdigest()
        made = _read_downloads(stored, key)
        kept = made is not None
        if made is None:
            try:
                made = page_notebooks.for_project(project, config.use_directory_urls)
            except SnippetError as error:
                raise PluginError(str(error)) from None
            if key is not None:  # one file, so that two builds at once cannot mix theirs
                listed = [dataclasses.asdict(notebook) for notebook in made[0]]
                archive = base64.b64encode(made[1]).decode()
                write_atomic(
                    stored / "downloads.json", json.dumps({"key": key, "notebooks": listed, "archive": archive})
                )
        notebooks, bundle = made
        folder = Path(config.site_dir) / page_notebooks.FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        for notebook in notebooks:
            (folder / notebook.name).write_text(notebook.text, encoding="utf-8")
        (folder / page_notebooks.ARCHIVE).write_bytes(bundle)
        log.info(
            f"Downloads: {len(notebooks)} page notebooks ({sum(len(n.text) for n in notebooks) / 1024:.0f} KB),"
            f" {page_notebooks.ARCHIVE} ({len(bundle) / 1024:.0f} KB){', from the cache' if kept else ''}"
        )

    def on_serve(self, server, *, config, builder):
        """Serve the execution report, which is not part of the site, at a URL of its own
        (``report.SERVED_AT`` under the site's mount path), read afresh on every request."""
        self.preview.serve(server)  # issue 43: preview.py: error pages while the last build failed
        url_path = server.mount_path + report.SERVED_AT
        site_app = server.get_app()
        path = self.project.report_path

        def app(environ, start_response):
            if environ.get("PATH_INFO") != url_path:
                return site_app(environ, start_response)
            try:
                body = path.read_bytes()
            except OSError:
                start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
                return [b"No execution report yet: no build has run a snippet."]
            start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))])
            return [body]

        server.set_app(app)
        self.served_report = server.url.rstrip("/") + "/" + report.SERVED_AT
        log.info(f"Execution report served at {self.served_report}")
        return server

    def on_build_error(self, *, error):
        if self.serving:
            self.preview.build_failed(error)  # issue 43: preview.py
        if not self.serving:
            self._close()

    def on_shutdown(self):
        logging.getLogger("mkdocs.commands.build").removeFilter(_tracked_dirty_build)
        self.preview.stop()  # issue 43: preview.py
        self._close()

    def _close(self) -> None:
        extension.release()
        if self.engine is not None:
            self.engine.close()
            self.engine = None


def _read_downloads(stored: Path, key: str | None) -> tuple[list[page_notebooks.PageNotebook], bytes] | None:
    """The downloads made from the files with ``key``, if they are still kept."""
    if key is None:
        return None
    try:
        entry = json.loads((stored / "downloads.json").read_text(encoding="utf-8"))
        if entry.get("key") != key:
            return None
        notebooks = [
            page_notebooks.PageNotebook(n["page"], n["name"], n["text"], tuple(n["examples"]))
            for n in entry["notebooks"]
        ]
        return notebooks, base64.b64decode(entry["archive"], validate=True)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _cache_compiled_templates(theme, folder: Path) -> None:
    """Material's templates compile to the same Python code on every build: about a fifth of a
    second of each one, and of each ``mkdocs serve`` rebuild (a rebuild makes a new Jinja
    environment), and as much again for the print page, which print-site renders in a Jinja
    environment of its own. Jinja's bytecode cache keeps the compiled code between builds, keyed by
    template and checked against its source, so an edited template is compiled again. Every
    environment the theme makes gets it, whoever asks for one."""
    folder.mkdir(parents=True, exist_ok=True)
    make_env = theme.get_env

    def get_env():
        env = make_env()
        env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
        return env

    theme.get_env = get_env


def _compile_templates(theme) -> None:
    """Compile the theme's templates now, into the bytecode cache ``_cache_compiled_templates``
    gave every environment the theme makes: the renders that follow, the print page's too, then
    load them instead of compiling each on first use. Translations other than the site's are left
    out, and so is a template that only another plugin's filters make valid (Material's blog)."""
    env = theme.get_env()
    # Material names the translation by its own `language` setting, other themes by MkDocs' locale
    language = f"/{theme.get('language') or (theme.locale.language if theme.locale else '')}.html"
    for name in env.list_templates(extensions=["html"]):
        if "/languages/" in name and not name.endswith(language):
            continue
        try:
            env.get_template(name)
        except jinja2.TemplateError:
            continue


def _digest(outcomes) -> str:
    """What a page's snippets show: code, outputs, raised error, verdict, pictures."""
    shown = [(o.snippet.source, o.outputs, o.error, o.verdict, o.pictures) for o in outcomes]
    return hashlib.blake2b(repr(shown).encode(), digest_size=16).hexdigest()


def _tracked_dirty_build(record: logging.LogRecord) -> bool:
    """MkDocs warns on every ``--dirty`` build that pages not rendered again may show stale
    navigation and links, and strict mode (mkdocs.yml) turns that warning into a failed build.
    Here every page that shows anything changed is rendered again (``_forget_changed_pages``),
    and every page when mkdocs.yml, which holds the navigation, changed; so it is said as an
    info line instead, and a real warning still fails the rebuild."""
    if record.levelno == logging.WARNING and str(record.msg).startswith("A 'dirty' build is being performed"):
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg = "Dirty build: rendering again the pages whose source, snippets or settings changed"
    return True
