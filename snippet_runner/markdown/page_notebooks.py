"""Every teaching page's examples as a notebook to download (each example a code cell with its **approved** output, the
headings as Markdown cells), and all examples in one zip: from committed files only, with content-derived cell ids and
fixed zip dates and modes, so a commit gives one set of bytes. Cell tags tell nbval where a reader's run cannot print
the same text (``raises-exception``, ``nbval-ignore-output``, ``nbval-skip``). Pictures are left out: a reader's run
draws none. The JSON is written here in nbformat's shape, since nbformat gives each new cell a random id.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from snippet_runner.machine import installed_version, required_version
from snippet_runner.markdown.notebooks import KERNEL, content_ids
from snippet_runner.markdown.run_lines import find_includes, outside_fences, shown_code
from snippet_runner.running import snippet as spec

FOLDER = "downloads"
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can hold: no build time in the bytes
TRACEBACK = "Traceback (most recent call last):\n"
README = Path(__file__).with_name("archive_readme.txt")  # the zip's README.txt, filled in by for_project


@dataclass(frozen=True)
class PageNotebook:
    page: str  # the page's source, relative to the docs folder: chain-rule.md
    name: str  # the notebook's file name: chain-rule.ipynb
    text: str  # its JSON


def notebook_name(page: str) -> str:
    return page.removesuffix(".md").replace("/", "-") + ".ipynb"


def archive_stem(site_name: str) -> str:
    """The zip's name and its top folder, from the site's own name: "My Course (Part 3)" gives
    ``my-course-part-3-examples``."""
    return "-".join([*re.findall(r"[a-z0-9]+", site_name.lower()), "examples"])


def for_project(project, directory_urls: bool = False) -> tuple[list[PageNotebook], bytes]:
    """Every page's notebook and the archive, from the project's committed files only."""
    notebooks = []
    for path in project.pages():
        src = path.relative_to(project.docs_dir).as_posix()
        # without its front matter, but not its lines: an error names the page's own line
        markdown = FRONT_MATTER.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text(encoding="utf-8"), count=1)
        url = "../" + src.removesuffix(".md") + ("/" if directory_urls else ".html")
        built = build(markdown, f"{project.shown_path(project.docs_dir)}/{src}", src, url, project.snippets_dir)
        if built is not None:
            notebooks.append(built)
    shown = list(project.shown())
    example = PurePosixPath(shown[0] if shown else "page/example.py")
    readme = README.read_text(encoding="utf-8").format(
        **{name: _pinned(project.root, name) for name in ("torch", "nbval")},
        site_name=project.site_name,
        folder=example.parent,
        example=example.stem,
        notebook=notebooks[0].name if notebooks else "page.ipynb",
    )
    return notebooks, archive(notebooks, shown, project.snippets_dir, readme, archive_stem(project.site_name))


def _pinned(root: Path, name: str) -> str:
    """The version ``requirements.txt`` pins (so every build writes the same README), else the installed one."""
    return required_version(root, name) or (installed_version(name) or "?").split("+")[0]


FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def build(markdown: str, shown: str, page: str, page_url: str, snippets_dir: Path) -> PageNotebook | None:
    """The notebook of one page, or None if it shows no example."""
    includes = {include.line: include.rel for include in find_includes(markdown, shown)}
    if not includes:
        return None
    first = next((m for m in map(HEADING.match, markdown.splitlines()) if m and len(m["level"]) == 1), None)
    title = first["text"] if first else Path(page).stem.replace("-", " ").capitalize()
    cells = [
        _markdown(
            f"# {title}\n\nThe examples of the page [{title}]({page_url}), in its order, each with the"
            " output it printed when the site was built. Run a cell and compare; or check them all with"
            f" `pytest --nbval-lax {notebook_name(page)}`."
        )
    ]
    count = 0  # code cells are numbered as a run from the top numbers them, so nbval compares them
    for number, line in outside_fences(markdown):
        heading = HEADING.match(line)
        if heading and len(heading["level"]) > 1:
            cells.append(_markdown(f"{heading['level']} {heading['text']}"))
        elif number in includes:
            count += 1
            cells.append(_code(spec.load(snippets_dir, includes[number]), count))
    content_ids(cells, page)
    notebook = {"cells": cells, "metadata": KERNEL, "nbformat": 4, "nbformat_minor": 5}
    return PageNotebook(page, notebook_name(page), json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "id": "", "metadata": {}, "source": text.splitlines(keepends=True)}


def _code(snippet: spec.Snippet, count: int) -> dict:
    _, code = shown_code(snippet.source)
    outputs: list[dict] = []
    tags = ["nbval-skip", "not-yet-approved"]  # no approved output: only serve gets this far
    if snippet.expected_output_path.is_file():
        printed = snippet.expected_output_path.read_text(encoding="utf-8")
        if snippet.raises is not None and TRACEBACK in printed:
            printed, _, trace = printed.partition(TRACEBACK)
            last = trace.rstrip("\n").splitlines()[-1] if trace.strip() else snippet.raises.type_name
            ename, _, evalue = last.partition(": ")
            outputs.append(
                {"output_type": "error", "ename": ename.rsplit(".", 1)[-1], "evalue": evalue, "traceback": []}
            )
        if printed:
            outputs.insert(0, {"output_type": "stream", "name": "stdout", "text": printed.splitlines(keepends=True)})
        tags = ["nbval-ignore-output" if Path(snippet.rel).name in printed else "nbval-check-output"]
        if snippet.raises is not None:
            tags.append("raises-exception")
        if "__file__" in code:
            tags.append("nbval-skip")
    cell = {"cell_type": "code", "execution_count": count, "id": "", "metadata": {"tags": tags}, "outputs": outputs}
    return {**cell, "source": code.rstrip("\n").splitlines(keepends=True)}


def archive(notebooks: list[PageNotebook], shown: list[str], snippets_dir: Path, readme: str, stem: str) -> bytes:
    """The zip of every shown example with its ``.out``, the page notebooks and ``README.txt``."""
    entries: dict[str, bytes] = {"README.txt": readme.encode()}
    for rel in shown:
        snippet = spec.load(snippets_dir, rel)
        entries[f"examples/{rel}"] = snippet.path.read_bytes()
        if snippet.expected_output_path.is_file():
            entries[f"examples/{spec.approved_rel(rel)}"] = snippet.expected_output_path.read_bytes()
    for notebook in notebooks:
        entries[f"notebooks/{notebook.name}"] = notebook.text.encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name in sorted(entries):
            info = zipfile.ZipInfo(f"{stem}/{name}", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.create_system = 3  # Unix, whatever machine builds it
            bundle.writestr(info, entries[name], compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buffer.getvalue()
