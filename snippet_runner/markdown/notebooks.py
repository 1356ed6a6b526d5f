"""Exercise notebooks: a jupytext script, run by the engine like every example, becomes an ``.ipynb``
with real outputs that mkdocs-jupyter renders without executing anything. The rendered page loses
the template's CDN scripts (the site's KaTeX renders the math) and its large inline styles (written
once, to :data:`STYLESHEET`), folds solution cells into ``<details>``, and gains a download link.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html import escape

from snippet_runner.checking.engine import Outcome
from snippet_runner.errors import SnippetError, as_text
from snippet_runner.pictures.draw import Drawer, describe, picture_prefix
from snippet_runner.running.snippet import SETTING

_CDN_SCRIPT = re.compile(
    r"<script\b[^>]*>(?:(?!</script>).)*?(?:mathjax|MathJax|cdnjs|unpkg|jsdelivr)(?:(?!</script>).)*?</script>"
    r"|<script\b[^>]*\bsrc=\"(?:https?://[^\"]*)?\"[^>]*>\s*</script>"  # a CDN, or the empty MathJax URL
    r"|<!--\s*(?:Load mathjax|MathJax configuration|End of mathjax configuration)\s*-->",
    re.S,
)
_DIV = re.compile(r"<div\b[^>]*>|</div>")
_STYLE = re.compile(r"\s*<style\b[^>]*>(.*?)</style>", re.S)
STYLESHEET = "assets/stylesheets/notebooks.css"  # under the site; the styles of every notebook page
SOLUTION_TAG = "solution"
KERNEL = {  # the metadata of every notebook the site offers
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def to_notebook(outcome: Outcome, drawer: Drawer | None = None) -> str:
    """The notebook JSON for a run of a percent script: each code cell with its output and pictures."""
    import jupytext  # imported here, not at the top: a build that writes no notebook never pays for it
    import nbformat

    snippet = outcome.snippet
    notebook = jupytext.reads(snippet.source, fmt="py:percent")
    if len(notebook.cells) != len(snippet.cells):
        raise SnippetError(
            snippet.loc(),
            f"jupytext sees {len(notebook.cells)} cells but the engine ran {len(snippet.cells)};"
            " start the file with a '# %%' marker and do not put code before it",
        )
    drawer = drawer or Drawer(None)
    pictures: dict[int, list] = {}
    for number, picture in enumerate(outcome.pictures, start=1):
        index = max(i for i, c in enumerate(snippet.cells) if c.first_line <= picture.line)
        svg = drawer.svg(picture, snippet, picture_prefix(snippet.rel, number))
        data = {"image/svg+xml": svg, "text/plain": describe(picture.data)[0]}
        pictures.setdefault(index, []).append(nbformat.v4.new_output("display_data", data=data))
    count = 0
    outputs = [*outcome.outputs, *[""] * len(notebook.cells)]
    for index, (cell, output) in enumerate(zip(notebook.cells, outputs, strict=False)):
        if cell.cell_type != "code":
            continue
        count += 1
        shown = [line for line in cell.source.splitlines() if not SETTING.match(line.strip())]  # no `# snippet:`
        cell.source = "\n".join(shown).strip("\n")
        cell.execution_count = count
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=as_text(output))] if output else []
        cell.outputs += pictures.get(index, [])
    content_ids(notebook.cells, snippet.rel)
    notebook.metadata.pop("jupytext", None)
    notebook.metadata.update(KERNEL)
    return nbformat.writes(notebook) + "\n"


def content_ids(cells, name: str) -> None:
    """nbformat's 8 hex digits, from ``name`` and the cell's content in place of nbformat's random ones,
    so the same source gives the same bytes; repeats get -2, -3..."""
    seen: dict[str, int] = {}
    for cell in cells:
        source = "".join(cell["source"])  # nbformat's one string, or a list of lines
        digest = hashlib.sha256(f"{name}\0{cell['cell_type']}\0{source}".encode()).hexdigest()[:8]
        seen[digest] = seen.get(digest, 0) + 1
        cell["id"] = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"


def adjust_rendered_page(
    html: str, notebook_name: str, next_page: tuple[str, str] | None = None
) -> tuple[str, list[str]]:
    """The page, and its ``<style>`` blocks' stylesheets, taken out. ``next_page`` is (relative url,
    title): notebook pages end with a "Next:" link like the others."""
    styles = [match.group(1).strip() for match in _STYLE.finditer(html)]
    html = _CDN_SCRIPT.sub("", _STYLE.sub("", html))
    html = _SVG_IMAGE.sub(_inline_picture, html)
    html = _fold_cells(html, f"celltag_{SOLUTION_TAG}", "Show the solution")
    link = (
        f'<p class="notebook-download"><a class="md-button" href="{notebook_name}" download>'
        f"Download this notebook ({notebook_name})</a></p>\n"
    )
    if next_page is not None:
        url, title = next_page
        html += f'\n<p><strong>Next:</strong> <a href="{escape(url)}">{escape(title)}</a></p>\n'
    return link + html, styles


_SVG_IMAGE = re.compile(r'<img\b[^>]*\bsrc="data:image/svg\+xml;base64,(?P<data>[A-Za-z0-9+/=]+)"[^>]*>')
_SVG_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title>", re.S)


def _inline_picture(match: re.Match) -> str:
    """nbconvert shows an SVG output as an undescribed ``<img>``: ours goes back inline, captioned."""
    svg = base64.b64decode(match["data"]).decode("utf-8", errors="replace")
    if 'class="snippet-picture-svg"' not in svg:
        return match.group(0)
    title = _SVG_TITLE.search(svg)
    caption = f"<figcaption>{title.group(1)}</figcaption>" if title else ""
    return f'<figure class="snippet-picture">{svg}{caption}</figure>'


def _fold_cells(html: str, css_class: str, summary: str) -> str:
    """Wrap each run of adjacent cells carrying ``css_class`` in one ``<details>`` block. nbconvert tags a
    Markdown cell's text, not the cell, so the cell is found by counting nesting (no HTML parser is installed)."""
    spans: list[tuple[int, int]] = []
    stack: list[tuple[int, bool]] = []  # each open <div>: its start, and whether it is a notebook cell
    target: tuple[int, int] | None = None  # the cell being folded: its start and its depth
    for match in _DIV.finditer(html):
        if match.group(0) == "</div>":
            if stack:
                stack.pop()
            if target is not None and len(stack) == target[1]:
                if spans and not html[spans[-1][1] : target[0]].strip():  # adjacent cells fold together
                    spans[-1] = (spans[-1][0], match.end())
                else:
                    spans.append((target[0], match.end()))
                target = None
            continue
        tag = match.group(0)
        stack.append((match.start(), bool(re.search(r'class="[^"]*\bjp-Notebook-cell\b', tag))))
        if target is None and re.search(rf'class="[^"]*\b{css_class}\b', tag):
            depth = next((d for d, (_, is_cell) in enumerate(stack) if is_cell), len(stack) - 1)
            target = (stack[depth][0], depth)
    for begin, end in reversed(spans):
        html = (
            f'{html[:begin]}<details class="solution"><summary>{summary}</summary>\n'
            f"{html[begin:end]}\n</details>{html[end:]}"
        )
    return html
