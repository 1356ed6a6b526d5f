"""Exercise notebooks: a jupytext script run by the engine becomes an ``.ipynb`` with real outputs.

The exercises live in ``snippets/exercises/`` as jupytext "percent" scripts, so ``python file.py``
runs them like any snippet and the engine runs them cell by cell, through the same worker, cache
and approval as every other example. This module turns such a run into a notebook (jupytext for
the cells, nbformat for the outputs) that mkdocs-jupyter renders without executing anything, and
then adjusts the rendered page: mkdocs-jupyter's template loads MathJax and Mermaid from CDNs, so
those scripts are removed (KaTeX from the site's own assets renders the math; with no MathJax URL
the template still leaves an empty ``<script src="">``, removed too), solution cells are
folded into a ``<details>`` block, and a download link to the ``.ipynb`` is added.

The template also writes its stylesheets into the page, inline: 0.6 MB of CSS in every notebook
page, which Material's search plugin parsed as page text, and the print page and each of its PDF
parts carried once per notebook. :func:`styles_taken_out` takes them out; the plugin writes them
once, in order, to :data:`STYLESHEET`, which the pages that show a notebook link from their head
(``overrides/main.html``), after the theme's and the site's own stylesheets, as before. They are
kept byte for byte, the last one too, though mkdocs-jupyter writes it as a Python list's repr
(``['pre { …'``) that matches nothing: the same rules, in the same order, style the same pages.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html import escape

from snippet_runner.checking.engine import Outcome
from snippet_runner.errors import SnippetError, as_text
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


def to_notebook(outcome: Outcome, drawer=None) -> str:
    """The notebook JSON for a run of a percent script, each code cell carrying its own output,
    and the pictures it showed (drawn by ``drawer``, a :class:`~snippet_runner.pictures.draw.Drawer`)
    as SVG outputs of the cell that showed them."""
    import jupytext  # imported here, not at the top: 0.17 s of every build that writes no notebook
    import nbformat

    snippet = outcome.snippet
    notebook = jupytext.reads(snippet.source, fmt="py:percent")
    if len(notebook.cells) != len(snippet.cells):
        raise SnippetError(
            snippet.loc(),
            f"jupytext sees {len(notebook.cells)} cells but the engine ran {len(snippet.cells)};"
            " start the file with a '# %%' marker and do not put code before it",
        )
    pictures: dict[int, list] = {}
    for number, picture in enumerate(outcome.pictures, start=1):
        index = max(i for i, c in enumerate(snippet.cells) if c.first_line <= picture.line)
        pictures.setdefault(index, []).append(_picture_output(drawer, picture, snippet, number))
    count = 0
    outputs = [*outcome.outputs, *[""] * len(notebook.cells)]
    for index, (cell, output) in enumerate(zip(notebook.cells, outputs, strict=False)):
        if cell.cell_type != "code":
            continue
        count += 1
        cell.source = hidden_settings_removed(cell.source)
        cell.execution_count = count
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=as_text(output))] if output else []
        cell.outputs += pictures.get(index, [])
    _content_ids(notebook.cells, snippet.rel)
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["language_info"] = {"name": "python"}
    return nbformat.writes(notebook) + "\n"


def hidden_settings_removed(source: str) -> str:
    """A cell's code as the reader gets it: the engine's ``# snippet:`` lines are the build's (a
    notebook shows no line numbers, so nothing else has to change)."""
    lines = [line for line in source.splitlines() if not SETTING.match(line.strip())]
    return "\n".join(lines).strip("\n")


def _content_ids(cells, name: str) -> None:
    """Give each cell an id derived from its content, in place of nbformat's random one.

    nbformat (through jupytext) draws a random id for every new cell, so the same script gave a
    different notebook, and a different rendered page (``id="cell-id=..."``), on every build; the
    build rewrote the notebooks and mkdocs-jupyter converted them again even when nothing changed.
    An id is 8 hex digits (nbformat's own length) of the SHA-256 of the notebook's name and the
    cell's type and source, so the same cell in two notebooks (both end up on the print page) gets
    two ids; ``-2``, ``-3``... are added to a repeat of an identical cell within one notebook.
    """
    seen: dict[str, int] = {}
    for cell in cells:
        digest = hashlib.sha256(f"{name}\0{cell.cell_type}\0{cell.source}".encode()).hexdigest()[:8]
        seen[digest] = seen.get(digest, 0) + 1
        cell.id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"


def _picture_output(drawer, picture, snippet, number: int):
    import nbformat

    from snippet_runner.pictures.draw import Drawer, describe, picture_prefix

    drawer = drawer or Drawer(None)
    caption, _ = describe(picture.data)
    svg = drawer.svg(picture, snippet, picture_prefix(snippet.rel, number))
    return nbformat.v4.new_output("display_data", data={"image/svg+xml": svg, "text/plain": caption})


def adjust_rendered_page(html: str, notebook_name: str, next_page: tuple[str, str] | None = None) -> str:
    """``next_page`` is (relative url, title): notebook pages end with a "Next:" link like the others."""
    html = _CDN_SCRIPT.sub("", html)
    html = _SVG_IMAGE.sub(_inline_picture, html)
    html = _fold_cells(html, f"celltag_{SOLUTION_TAG}", "Show the solution")
    link = (
        f'<p class="notebook-download"><a class="md-button" href="{notebook_name}" download>'
        f"Download this notebook ({notebook_name})</a></p>\n"
    )
    if next_page is not None:
        url, title = next_page
        html += f'\n<p><strong>Next:</strong> <a href="{escape(url)}">{escape(title)}</a></p>\n'
    return link + html


def styles_taken_out(html: str) -> tuple[str, list[str]]:
    """The rendered notebook without its ``<style>`` blocks, and their stylesheets, in order."""
    styles = [match.group(1).strip() for match in _STYLE.finditer(html)]
    return _STYLE.sub("", html), styles


_SVG_IMAGE = re.compile(r'<img\b[^>]*\bsrc="data:image/svg\+xml;base64,(?P<data>[A-Za-z0-9+/=]+)"[^>]*>')
_SVG_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title>", re.S)


def _inline_picture(match: re.Match) -> str:
    """nbconvert shows an SVG output as a base64 ``<img>`` ("No description has been provided"):
    one of our pictures goes back inline, as on the other pages, so it takes the page's colours,
    its text is text, and its caption says what it shows."""
    svg = base64.b64decode(match["data"]).decode("utf-8", errors="replace")
    if 'class="snippet-picture-svg"' not in svg:
        return match.group(0)
    title = _SVG_TITLE.search(svg)
    caption = f"<figcaption>{title.group(1)}</figcaption>" if title else ""
    return f'<figure class="snippet-picture">{svg}{caption}</figure>'


def _fold_cells(html: str, css_class: str, summary: str) -> str:
    """Wrap each run of adjacent cells carrying ``css_class`` in one ``<details>`` block.

    nbconvert marks a tagged cell with a ``celltag_<tag>`` class: on the cell's outer ``<div>`` for
    a code cell, but on the rendered Markdown inside the cell for a Markdown cell. So the block
    folds the outermost enclosing ``jp-Notebook-cell`` ``<div>`` of each tagged element (the element
    itself when no cell encloses it), found by counting nesting; a solution's text, its code and the
    explanation after it, tagged alike, then sit side by side and fold as one. (No HTML parser is
    installed in the build's environment, and this is the one structural edit we make.)
    """
    spans = []
    stack: list[tuple[int, bool]] = []  # each open <div>: its start, and whether it is a notebook cell
    target: tuple[int, int] | None = None  # the cell being folded: its start and its depth
    for match in _DIV.finditer(html):
        if match.group(0) == "</div>":
            if stack:
                stack.pop()
            if target is not None and len(stack) == target[1]:
                spans.append((target[0], match.end()))
                target = None
            continue
        tag = match.group(0)
        stack.append((match.start(), bool(re.search(r'class="[^"]*\bjp-Notebook-cell\b', tag))))
        if target is None and re.search(rf'class="[^"]*\b{css_class}\b', tag):
            depth = next((d for d, (_, is_cell) in enumerate(stack) if is_cell), len(stack) - 1)
            target = (stack[depth][0], depth)
    merged: list[list[int]] = []
    for begin, end in spans:
        if merged and not html[merged[-1][1] : begin].strip():
            merged[-1][1] = end
        else:
            merged.append([begin, end])
    for begin, end in reversed(merged):
        html = (
            f'{html[:begin]}<details class="solution"><summary>{summary}</summary>\n'
            f"{html[begin:end]}\n</details>{html[end:]}"
        )
    return html
