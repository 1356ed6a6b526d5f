"""The "Which PyTorch" page and each page's quiet torch line, generated from ``drift/*.json`` at build time.

``on_files`` checks every record (a bad one stops the build, naming the file); ``<!-- drift-report -->`` on
``which-pytorch.md`` becomes the report; every page that shows examples gets one line naming the versions under which
its outputs are identical or differ. The rendering is plain functions of the records, so tests call them without MkDocs.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections import Counter, defaultdict
from html import escape
from pathlib import Path

import jinja2
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from snippet_runner.drift.check import RESULTS, DriftError, Record, load_records, version_key
from snippet_runner.machine import installed_version
from snippet_runner.markdown.run_lines import fenced
from snippet_runner.project import Project

MARKER = "<!-- drift-report -->"


def snippets_by_page(project: Project) -> dict[str, list[str]]:
    """``{"page.md": ["page/example.py", ...], "exercises/x.ipynb": [...]}`` (docs-relative)."""
    docs = project.shown_path(project.docs_dir) + "/"
    pages: dict[str, list[str]] = defaultdict(list)
    for rel, places in project.shown().items():
        for place in places:
            page, _, line = place.rpartition(":")
            page = (page if line.isdigit() else place).removeprefix(docs)
            if rel not in pages[page]:
                pages[page].append(rel)
    return dict(pages)


def page_status(records: list[Record], rels: list[str]) -> dict[str, list[str]]:
    """The versions under which a page's ``rels`` are all identical, some differ, or are not all current."""
    status: dict[str, list[str]] = {"identical": [], "differs": [], "not current": []}
    for record in sorted(records, key=lambda r: version_key(r.torch)):
        results = [record.result(rel) for rel in rels]
        if any(result not in (None, "identical") for result in results):
            status["differs"].append(record.torch)
        elif None in results:
            status["not current"].append(record.torch)
        elif results:
            status["identical"].append(record.torch)
    return status


def page_line(printed_by: str, status: dict[str, list[str]], report_url: str | None) -> str:
    """The quiet line under a page's content (HTML)."""
    parts = [f"Outputs on this page printed by PyTorch {_public(printed_by)}"]
    said = {"identical": "identical", "differs": "some differ", "not current": "not checked again yet"}
    parts += [f"{words} under {_and(status[key])}" for key, words in said.items() if status.get(key)]
    text = escape("; ".join(parts) + ".")
    if report_url:
        text += f' <a href="{escape(report_url)}">Which PyTorch?</a>'
    return f'<p class="torch-line">{text}</p>'


def report(
    records: list[Record], printed_by: str, pages: dict[str, list[str]], titles: dict[str, str], here: str
) -> str:
    """The Markdown that replaces ``MARKER`` on the report page ``here`` (docs-relative): ``report.md.j2``
    rendered from the records (a template, so the page's wording reads as a page, not as string code)."""
    page_of = {rel: page for page, rels in reversed(pages.items()) for rel in rels}  # an example's first page
    up = posixpath.dirname(here) or "."
    links = {rel: f"[{titles.get(page, page)}]({posixpath.relpath(page, up)})" for rel, page in page_of.items()}
    text = _template().render(records=records, printed_by=printed_by, total=len(page_of), links=links)
    return text.rstrip("\n") + "\n"


@functools.cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)  # no autoescape: Markdown, as it was by hand
    env.globals |= {"results": RESULTS, "others": list(RESULTS)[1:], "count": _counts}  # others: after "identical"
    env.filters |= {"anchor": _anchor, "public": _public, "fenced": lambda text, info: "\n".join(fenced(text, info))}
    return env.from_string((Path(__file__).parent / "report.md.j2").read_text(encoding="utf-8"))


def _counts(record: Record) -> Counter[str | None]:
    return Counter(record.result(rel) for rel in record.data["snippets"])  # None: not current


def _anchor(version: str, rel: str | None = None) -> str:
    text = f"torch-{version}" + (f"-{rel[:-3]}" if rel else "")
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")


def _public(version: str) -> str:
    return version.split("+")[0]


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@functools.cache  # once per process: the installed metadata does not change during a build
def _torch_version() -> str:
    return installed_version("torch") or "unknown"


class DriftPageConfig(Config):
    records_dir = c.Type(str, default="drift")
    page = c.Type(str, default="which-pytorch.md")  # docs-relative; must hold the MARKER line


class DriftPagePlugin(BasePlugin[DriftPageConfig]):
    def __init__(self) -> None:
        self.records: list[Record] = []
        self.pages: dict[str, list[str]] = {}
        self.titles: dict[str, str] = {}
        self.root = Path.cwd()

    def on_config(self, config):
        self.root = Path(config.config_file_path or ".").resolve().parent
        records = self.root / self.config.records_dir
        if records.is_dir():  # `mkdocs serve` cannot watch a folder that does not exist
            config.watch.append(str(records))
        return config

    def on_files(self, files, *, config):
        runner = config.plugins.get("snippet-runner")
        project = runner.project if runner is not None else Project.load(self.root / "mkdocs.yml")
        try:
            self.records = load_records(self.root, self.config.records_dir, project)
        except DriftError as error:
            raise PluginError(str(error)) from None
        self.pages = snippets_by_page(project)
        if files.get_file_from_path(self.config.page) is None:
            raise PluginError(f"snippet-drift: docs/{self.config.page} does not exist (the plugin's `page` setting)")
        return files

    def on_nav(self, nav, *, config, files):
        self.titles = {page.file.src_uri: page.title for page in nav.pages if page.title}
        return nav

    def on_page_markdown(self, markdown, *, page, config, files):
        if page.file.src_uri != self.config.page:
            return markdown
        lines = markdown.splitlines()
        if MARKER not in (line.strip() for line in lines):
            raise PluginError(f"docs/{self.config.page}: needs a line '{MARKER}' where the drift report goes")
        text = report(self.records, _torch_version(), self.pages, self.titles, self.config.page)
        return "\n".join(text if line.strip() == MARKER else line for line in lines) + "\n"

    def on_page_content(self, html, *, page, config, files):
        rels = self.pages.get(page.file.src_uri)
        if not rels:
            return html
        target = files.get_file_from_path(self.config.page)
        url = target.url_relative_to(page.file) if target is not None else None
        return html + "\n" + page_line(_torch_version(), page_status(self.records, rels), url) + "\n"
