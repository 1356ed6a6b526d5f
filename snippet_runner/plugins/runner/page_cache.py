"""Pages that did not change are neither rendered nor indexed for search again.

After a one-sentence edit, a build spent most of its MkDocs time on the pages that did not change:
Python-Markdown converting every page, and Material's search plugin parsing every page's HTML
again. MkDocs has no incremental build to lean on: ``--dirty`` skips a page's events altogether, so
the search index and the print page (print-site combines every page's ``content``) lose the
skipped pages; ``skip.py`` can only skip a build whose inputs did not change at all. So each page
keeps two results of its own, by content:

* **its render** (``content``, ``toc``, the title found in it, its anchors and its links to other
  pages' anchors, for MkDocs' anchor validation), keyed by the page's final Markdown, what its
  snippets show (code, outputs, verdicts, pictures: the plugin's digest) and a site key: every
  other input a render reads (``mkdocs.yml``, the theme overrides, the drift records, the files
  ``pymdownx.snippets`` may include, every file's source path and URL, which relative links
  resolve against, this package's code, the installed distributions, the interpreter, the
  ``SNIPPETS_*`` variables and the engine's mode);
* **its search entries**, keyed by what the search plugin reads of a page (its URL, title, HTML,
  table of contents and search settings) and the site key;
* **its finished HTML**, the theme's template rendered around it, keyed by everything that
  template is given (:meth:`PageCache.cache_templates`): the page's own attributes (HTML, table of
  contents, title, metadata, neighbours, links to the PDF and the print page), the navigation's
  titles and URLs, the settings' ``extra`` (where the build info is), the build's date if a
  page template could show it, and the site key. A one-sentence edit then renders one page's template, not every page's: the
  navigation is the same on every other page. A page with something in its context that this
  key cannot describe is rendered every time.

Material's search plugin indexes each page while MkDocs renders the pages' templates, after the
last page is read, on the build's one thread. :meth:`PageCache.index_ahead` works out a page's
entries as soon as its HTML is final (the end of ``on_page_content``), while a cold build's worker
still runs the later pages' snippets, and the search plugin then takes them, by the same key.

A render that logged anything (a broken link, a missing anchor: MkDocs' strict mode counts the
warnings) is not kept, so it is rendered, and logs, again in every build until it is fixed. Each
page has one file per kind under the cache folder, replaced when the page changes, so the cache
does not grow with edits. A notebook page is left to mkdocs-jupyter, whose own cache already
serves it, and so is any page whose ``render`` another plugin replaced.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from mkdocs.structure.files import File
from mkdocs.structure.nav import Link, Section
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, TableOfContents

import snippet_runner
from snippet_runner.files import hash_files, write_atomic
from snippet_runner.site import skip

VERSION = "1"  # of the files' layout: a change makes every old entry a miss


def site_wide_digest(config) -> str:
    """What every page shows beyond its own source: the settings, the theme's overrides, and the
    drift records behind each page's "which PyTorch" line (also what ``mkdocs serve`` compares to
    decide that every page must be rendered again)."""
    digest = hashlib.blake2b(Path(config.config_file_path).read_bytes(), digest_size=16)
    root = Path(config.config_file_path).parent
    drift = config.plugins.get("snippet-drift")
    for folder in (config.theme.custom_dir, root / drift.config.records_dir if drift else None):
        if folder and Path(folder).is_dir():
            hash_files(digest, sorted(p for p in Path(folder).rglob("*") if p.is_file()), Path(folder))
    return digest.hexdigest()


def site_key(config, files, extra: str, site_wide: str) -> str:
    """The key of every input a page's render reads beyond its own Markdown and snippets;
    ``site_wide`` is :func:`site_wide_digest`."""
    digest = hashlib.blake2b(f"{VERSION}\0{extra}\0{sys.version}\0{site_wide}\0".encode(), digest_size=20)
    root = Path(config.config_file_path).parent
    folders = []
    if "pymdownx.snippets" in config.markdown_extensions:  # what it may include, its default "." too
        base = (config.mdx_configs.get("pymdownx.snippets") or {}).get("base_path", ["."])
        folders += [root / path for path in ([base] if isinstance(base, str) else base)]
    folders.append(Path(snippet_runner.__file__).parent)
    for folder in folders:
        if folder.is_dir():  # without the caches, the site and its staging folders, which change every build
            hash_files(digest, skip.project_files(folder, skip.site_of(Path(config.site_dir))), folder)
    for name in skip.distributions():
        digest.update(name.encode() + b"\0")
    for name in sorted(os.environ):
        if name.startswith("SNIPPETS_"):  # the build's date (SOURCE_DATE_EPOCH) is no input of a render
            digest.update(f"{name}={os.environ[name]}\0".encode())
    for file in sorted(files, key=lambda f: f.src_uri):
        digest.update(f"{file.src_uri}\0{file.dest_uri}\0{file.url}\0".encode())
    return digest.hexdigest()


class PageCache:
    """The renders and search entries of one build's pages, read from and written to ``folder``."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self.key = key
        self.rendered = self.reused = self.indexed = self.looked_up = 0
        self._search_index = None  # Material's, once cache_search has it
        self._search_original = None  # its own add_entry_from_context
        self._ahead: dict[str, tuple[list, bool]] = {}  # key -> (entries, from the cache), index_ahead's
        self.templated = self.templates_reused = 0
        self._navigation: str | None = None  # the digest of the navigation's titles and URLs, once known
        self._dated = True  # whether a template of the theme could show the build's dates

    def line(self) -> str:
        return (
            f"pages: {self.rendered} rendered, {self.reused} from the cache;"
            f" search: {self.indexed} indexed, {self.looked_up} from the cache"
        )

    def templates_line(self) -> str:
        return f"page templates: {self.templated} rendered, {self.templates_reused} from the cache"

    # --- renders -----------------------------------------------------------------------------

    def cache_render(self, page, shown: str) -> None:
        """Make ``page.render`` use the cache; ``shown`` is the digest of what its snippets show."""
        original = page.render

        def render(config, files):
            self._render(page, config, files, original, shown)

        page.render = render

    def _render(self, page, config, files, original, shown: str) -> None:
        key = _hash(self.key, page.file.src_uri, page.file.url, shown, page.markdown)
        path = self._path("render", page.file.src_uri)
        entry = _read(path, key)
        if entry is not None:
            page.content = entry["content"]
            page.toc = TableOfContents([_anchor(item) for item in entry["toc"]])
            page._title_from_render = entry["title"]
            page.present_anchor_ids = set(entry["anchors"])
            if entry["links"] is not None:
                targets = {src: files.get_file_from_path(src) for src in entry["links"]}
                page.links_to_anchors = {targets[src]: links for src, links in entry["links"].items() if targets[src]}
            self.reused += 1
            return
        with _Logged() as logged:
            original(config, files)
        self.rendered += 1
        if logged.records:
            return
        links = page.links_to_anchors
        entry = {
            "key": key,
            "content": page.content,
            "toc": [_item(link) for link in page.toc],
            "title": page._title_from_render,
            "anchors": sorted(page.present_anchor_ids or ()),
            "links": None if links is None else {file.src_uri: dict(v) for file, v in links.items()},
        }
        write_atomic(path, json.dumps(entry))

    # --- search ------------------------------------------------------------------------------

    def cache_search(self, search_index) -> None:
        """Make Material's search index take a page's entries from the cache when it has them."""
        self._search_index, self._search_original = search_index, search_index.add_entry_from_context

        def add_entry_from_context(page):
            entries, cached = self._entries(page, self._search_key(page))
            search_index.entries.extend(entries)
            if cached:
                self.looked_up += 1
            else:
                self.indexed += 1

        search_index.add_entry_from_context = add_entry_from_context

    def index_ahead(self, page, content: str) -> None:
        """Work out ``page``'s search entries now, its HTML being ``content`` (what MkDocs makes
        ``page.content`` once ``on_page_content`` is over), for the search plugin to take later."""
        if self._search_index is None:
            return
        final, page.content = page.content, content
        try:
            key = self._search_key(page)
            if key not in self._ahead:
                self._ahead[key] = self._entries(page, key)
        finally:
            page.content = final

    def _search_key(self, page) -> str:
        meta = {name: page.meta.get(name) for name in ("search", "tags", "title")}
        toc = json.dumps([_item(link) for link in page.toc])
        return _hash(self.key, page.url, str(page.title), page.content or "", toc, json.dumps(meta, default=str))

    def _entries(self, page, key: str) -> tuple[list, bool]:
        """The page's entries, and whether they came from the cache: worked out ahead, read from
        the cache, or made now by the search plugin (and cached)."""
        if key in self._ahead:
            return self._ahead.pop(key)
        path = self._path("search", page.url)
        entry = _read(path, key)
        if entry is not None:
            return entry["entries"], True
        index = self._search_index
        assert index is not None and self._search_original is not None  # cache_search set them
        kept, index.entries = index.entries, []
        try:
            self._search_original(page)
            made = index.entries
        finally:
            index.entries = kept
        write_atomic(path, json.dumps({"key": key, "entries": made}))
        return made, False

    # --- templates ---------------------------------------------------------------------------

    def cache_templates(self, env, static: Iterable[str] = ()) -> None:
        """Make the page templates MkDocs gets from ``env`` (the theme's Jinja environment, in
        ``on_env``) take a page's finished HTML from the cache when everything they are given is
        what it was. Only a template asked for by name alone, as MkDocs asks for a page's or the
        theme's own: Jinja asks with a second argument for one that another extends or includes,
        and gets the template itself. ``static``: the theme's templates MkDocs renders without a
        page (``theme.static_templates``)."""
        get_template = env.get_template
        self._dated = _mentioned(env, DATES, static)

        def cached_get_template(*args, **kwargs):
            template = get_template(*args, **kwargs)
            return _CachedTemplate(template, self) if len(args) == 1 and not kwargs else template

        env.get_template = cached_get_template

    def _page_html(self, template, context: dict) -> str:
        page = context["page"]
        key = self._template_key(template.name, context)
        if key is None:  # something in the context this key cannot describe: rendered, never kept
            self.templated += 1
            return template.render(context)
        path = self._path("html", page.url)
        entry = _read(path, key)
        if entry is not None:
            self.templates_reused += 1
            return entry["html"]
        with _Logged() as logged:
            html = template.render(context)
        self.templated += 1
        if not logged.records:
            write_atomic(path, json.dumps({"key": key, "html": html}))
        return html

    def _template_key(self, name: str, context: dict) -> str | None:
        """What a page template is given, as a key; None if some of it is not plain data."""
        if self._navigation is None:
            self._navigation = _hash(json.dumps(_navigation(context["nav"].items)))
        config = context["config"]
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "") if self._dated else ""
        parts = [self.key, str(name), self._navigation, epoch]
        parts.append(json.dumps(_plain(dict(config.extra)), sort_keys=True))
        # nav, config and pages: the navigation above, and the settings and the files in the site key;
        # the build's dates only if a template could show them (outside a git checkout they change
        # every build: build.source_date_epoch)
        left_out = {"nav", "config", "pages", "page"} | (set() if self._dated else set(DATES))
        rest = {k: v for k, v in context.items() if k not in left_out}
        page = {k: v for k, v in vars(context["page"]).items() if not callable(v) and k not in left_out}
        for value in (rest, page):
            plain = _plain(value)
            if plain is _UNKNOWN:
                return None
            parts.append(json.dumps(plain, sort_keys=True))
        return _hash(*parts)

    def _path(self, kind: str, name: str) -> Path:
        return self.folder / f"{kind}-{hashlib.blake2b(name.encode(), digest_size=10).hexdigest()}.json"


def _hash(*parts: str) -> str:
    digest = hashlib.blake2b(digest_size=20)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def _read(path: Path, key: str) -> dict | None:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return entry if isinstance(entry, dict) and entry.get("key") == key else None


def _item(link: AnchorLink) -> dict:
    return {"title": link.title, "id": link.id, "level": link.level, "children": [_item(c) for c in link.children]}


def _anchor(item: dict) -> AnchorLink:
    link = AnchorLink(item["title"], item["id"], item["level"])
    link.children = [_anchor(child) for child in item["children"]]
    return link


_UNKNOWN = object()  # a value _plain cannot describe
DATES = ("build_date_utc", "update_date")  # the build's date in a template's context, and a page's


def _mentioned(env, names: tuple[str, ...], static: Iterable[str]) -> bool:
    """Whether a template ``env`` can load for a page names one of ``names``; True where that
    cannot be told (a loader that is not a folder of files). The theme's ``static`` templates
    (``sitemap.xml``, which shows every page's date, ``404.html``) are rendered on their own,
    without a page, and their renders are not cached."""
    folders = getattr(env.loader, "searchpath", None)
    if folders is None:
        return True
    static = set(static)
    for folder in folders:
        for top, subfolders, files in os.walk(folder):
            subfolders[:] = [name for name in subfolders if name != ".icons"]  # Material's 14,000 icons
            for name in files:
                path = Path(top, name)
                if (
                    path.suffix not in (".html", ".xml", ".j2", ".jinja")
                    or path.relative_to(folder).as_posix() in static
                ):
                    continue
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    return True
                if any(word in text for word in names):
                    return True
    return False


def _plain(value):
    """``value`` as plain JSON data, for a key: MkDocs' pages, sections, files and tables of
    contents by what a template shows of them; _UNKNOWN for anything else that is not plain."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, File):
        return ["file", value.src_uri, value.dest_uri, value.url]
    if isinstance(value, Page | Section | Link):
        return [type(value).__name__, str(value.title), getattr(value, "url", None)]
    if isinstance(value, TableOfContents):
        return [_item(link) for link in value]
    if isinstance(value, dict):
        # a File key (a page's links to another's anchors) by its source: its repr holds the staging folder
        items = {k.src_uri if isinstance(k, File) else str(k): _plain(v) for k, v in value.items()}
        return _UNKNOWN if any(v is _UNKNOWN for v in items.values()) else items
    if isinstance(value, list | tuple | set | frozenset):
        listed = [_plain(v) for v in value]
        if any(v is _UNKNOWN for v in listed):
            return _UNKNOWN
        return sorted(listed, key=json.dumps) if isinstance(value, set | frozenset) else listed
    return _UNKNOWN


def _navigation(items) -> list:
    """The navigation as templates may show it: every item's kind, title and URL, in order, and a
    page's metadata (Material reads an icon or a status from it)."""
    return [
        [*_plain(item), _plain(item.meta) if isinstance(item, Page) else None]
        + [_navigation(item.children) if isinstance(item, Section) else None]
        for item in items
    ]


class _CachedTemplate:
    """A page template that takes a page's HTML from the cache (``PageCache._page_html``); every
    other use of it, and a render without a page (``404.html``, ``sitemap.xml``), is the template's own."""

    def __init__(self, template, cache: PageCache) -> None:
        self._template, self._cache = template, cache

    def __getattr__(self, name: str):
        return getattr(self._template, name)

    def render(self, *args, **kwargs) -> str:
        context = args[0] if len(args) == 1 and not kwargs else None
        if isinstance(context, dict) and isinstance(context.get("page"), Page):
            return self._cache._page_html(self._template, context)
        return self._template.render(*args, **kwargs)


class _Logged(logging.Handler):
    """What MkDocs' loggers said while a page was rendered."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> _Logged:
        logging.getLogger("mkdocs").addHandler(self)
        return self

    def __exit__(self, *exc) -> None:
        logging.getLogger("mkdocs").removeHandler(self)
