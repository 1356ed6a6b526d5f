"""The "Which PyTorch" page and each page's quiet torch line, generated from ``drift/*.json`` at build time.

``on_files`` checks every record (a bad one stops the build, naming the file); ``<!-- drift-report -->``
on ``which-pytorch.md`` becomes the report; every page that shows examples gets one line naming the
versions under which its outputs are identical or differ. The rendering is plain functions of the
records, so tests call them without MkDocs.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections import Counter, defaultdict
from html import escape
from pathlib import Path

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
    """The Markdown that replaces ``MARKER`` on the report page ``here`` (docs-relative)."""
    page_of = {rel: page for page, rels in reversed(pages.items()) for rel in rels}  # an example's first page
    total = len(page_of)
    out = [
        f"## Printed by PyTorch {_public(printed_by)}",
        "",
        f"Every output on this site was printed by **PyTorch {_public(printed_by)}** (`{printed_by}`) while the"
        f" site was built, and checked against its approved copy. That is the version to install to see exactly"
        f" what the pages show.",
        "",
    ]
    if not records:
        out += ["No other version has been checked yet.", ""]
        return "\n".join(out)
    others = list(RESULTS)[1:]  # after "identical"
    out += [
        "## Other versions, at a glance",
        "",
        "| PyTorch | Identical | " + " | ".join(RESULTS[k].capitalize() for k in others) + " | Not current |",
        "| --- | --- | " + " | ".join("---" for _ in others) + " | --- |",
    ]
    for record in records:
        counts = _counts(record)
        cells = [f"[{record.torch}](#{_anchor(record.torch)})", f"{counts['identical']} of {total}"]
        cells += [str(counts[k]) for k in others]
        cells.append(str(len(record.stale) + len(record.unchecked)))
        out.append("| " + " | ".join(cells) + " |")
    out += [
        "",
        "*Not current*: examples whose code or approved output changed after that version was checked, or"
        " that were added since. Their result under that version is unknown until it is checked again.",
        "",
    ]
    for record in records:
        out += _version_section(record, total, page_of, titles, here)
    return "\n".join(out)


def _version_section(
    record: Record, total: int, page_of: dict[str, str], titles: dict[str, str], here: str
) -> list[str]:
    data, anchor = record.data, _anchor(record.torch)
    counts = _counts(record)
    out = [
        f'## <a id="{anchor}"></a>PyTorch {record.torch}',
        "",
        f"**{counts['identical']} of {total} outputs identical.** Checked with `{data['torch_build']}`"
        f" (Python {data['python']}, {'a GPU present' if data['cuda_available'] else 'no GPU'}) against the"
        f" outputs approved under `{data['compared_with']}`.",
        "",
    ]
    not_current = sorted(record.stale) + record.unchecked
    if not_current:
        results = "1 result is" if len(not_current) == 1 else f"{len(not_current)} results are"
        out += [
            f'!!! warning "Stale: {results} not current"',
            "",
            f"    These examples changed (code or approved output) after torch {record.torch} was checked, or are"
            f" new since. Run `python -m snippet_runner.drift {record.torch}` to check them again.",
            "",
        ]
        for rel in not_current:
            why = "new since this check" if rel in record.unchecked else "stale"
            out.append(f"    * `snippets/{rel}` ({why})")
        out.append("")
    listed = [(rel, e) for rel, e in data["snippets"].items() if e["result"] != "identical"]
    if not listed:
        out += ["Every other output is identical." if not_current else "Every output is identical.", ""]
        return out
    out += ["| Example | On the page | Result |", "| --- | --- | --- |"]
    for rel, entry in listed:
        page = page_of.get(rel)
        link = f"[{titles.get(page, page)}]({posixpath.relpath(page, posixpath.dirname(here) or '.')})" if page else ""
        result = f"[{RESULTS[entry['result']]}](#{_anchor(record.torch, rel)})"
        if rel in record.stale:
            result += " (stale)"
        out.append(f"| `{rel}` | {link} | {result} |")
    out += [""]
    if counts["identical"]:
        out += ["Every other output is identical.", ""]
    for rel, entry in listed:
        stale = " (stale: recorded before the example last changed)" if rel in record.stale else ""
        out += [f'<a id="{_anchor(record.torch, rel)}"></a>**`snippets/{rel}`: {RESULTS[entry["result"]]}**{stale}', ""]
        if entry.get("message"):
            out += fenced(entry["message"], "{ .text .drift-diff }") + [""]
        if entry.get("diff"):
            out += fenced("\n".join(entry["diff"]), "{ .diff .drift-diff }") + [""]
        elif entry.get("output"):
            out += fenced("\n".join(entry["output"]), "{ .text .drift-diff }") + [""]
    return out


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
