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
  table of contents and search settings) and the site key.

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

import hashlib
import json
import logging
import os
import sys
from pathlib import Path

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

    def line(self) -> str:
        return (
            f"pages: {self.rendered} rendered, {self.reused} from the cache;"
            f" search: {self.indexed} indexed, {self.looked_up} from the cache"
        )

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
