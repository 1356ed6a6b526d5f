"""Cut the print page into one print page per part, so that each part of the PDF can be printed,
and cached, on its own.

A part is a top-level entry of the navigation: a section of the nav (its title and every page in
it) or a page outside any section; the cover and the printed contents are a part of their own.
print.css starts each part on a new sheet and lets the pages inside a part follow on, so a part's
sheets do not depend on what precedes it: only its first sheet's number does, and the PDF's page
numbers are written in after the join (``pdf_join.py``).

Each part's page is the print page with the other parts' sections left out, and nothing else
changed: the same head, the same shell (whose sidebar the contents are copied from), and every
``<style>`` of the left-out parts kept at its place before or after the part. The last matters:
mkdocs-jupyter's stylesheet carries an unscoped rule (``table{width:max-content}``) that lays out
every table of the chapter, so a part without the notebooks must still be styled as the whole page
styles it, in the same order of rules. Loading the whole page to print one part would cost as much
as printing it all (measured: dev/measurements.md), hence a page per part.

One thing is left out: Mermaid's script, from a part without a diagram. Loading it costs about a
second of every part's print (it is 3 MB of JavaScript, parsed before the page renders), and a
page without a ``<pre class="mermaid">`` block gives it nothing to draw.

Chromium writes a named destination only for an id that a link of the printed page points to
(shown or not: the sidebar's hidden list of the nav's pages is enough). An id of the part that only
another part links to would get none, and the join would have nothing to point that link at; so
each part carries a hidden list of links to every id of its own that another part links to.

One more thing is added: the part's name, on ``<div id="print-site-page">``, for ``pdf.py``, which gives
each link to an id outside the part an empty anchor of that id to land on (Chromium drops a link
whose target it does not print) and tells the join which anchors are such stand-ins. (Figures need
no offset: print-site's figure counter is never reset, so each caption starts its own counter and
every figure of the whole page is "Figure 1", as it is in a part.)

We cut the page with regular expressions rather than an HTML parser, like the print-site plugin
and ``plugins/print_page`` do, so that every byte of a part is a byte of the whole page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PRINT_SITE_PAGE = re.compile(r'<div id="print-site-page"[^>]*>')
_SECTION_TAG = re.compile(r"<section\b[^>]*>|</section>")
_SECTION_ID = re.compile(r"""^<section\b[^>]*\sid=["']([^"']+)["']""")
_STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.S)
_MERMAID_SCRIPT = re.compile(r'<script src="[^"]*/mermaid(?:\.min)?\.js"></script>')
_MERMAID_BLOCK = re.compile(r'<pre class="mermaid"')
_HREF = re.compile(r'\shref="#([^"]+)"')
_ID = re.compile(r'\sid="([^"]+)"')
CONTENTS = "contents"  # the name of the part that holds the cover and the printed contents
PART_MARK = "data-pdf-part"  # on <div id="print-site-page">: the part's name (pdf.py reads it)
FIRST_MARK = "data-pdf-part-first"  # and on the first part's: it starts where the whole page starts


@dataclass(frozen=True)
class Part:
    name: str  # the top-level section's id, or CONTENTS
    html: str  # the print page holding only this part


def split(html: str) -> list[Part] | None:
    """The print page's parts, in order, each as a page of its own; None if the page is not laid
    out as print-site lays it out (then the whole page is printed as one)."""
    start = _PRINT_SITE_PAGE.search(html)
    if start is None:
        return None
    spans = _top_level_sections(html, start.end())
    if not spans:
        return None
    head, tail = html[: start.end()], html[spans[-1][1] :]
    # The cover (print-site-cover-page) and the contents (a section without an id) go first, together.
    groups: list[list] = []
    for begin, end in spans:
        found = _SECTION_ID.match(html[begin:end])
        name = found.group(1) if found else ""
        if name in ("", "print-site-cover-page") and (not groups or groups[-1][0] == CONTENTS):
            if groups:
                groups[-1][2] = end
            else:
                groups.append([CONTENTS, begin, end])
        else:
            groups.append([name, begin, end])
    if len({name for name, _, _ in groups}) != len(groups) or "" in {name for name, _, _ in groups}:
        return None
    body_start, body_end = groups[0][1], groups[-1][2]
    links_from = [set(_HREF.findall(html, begin, end)) for _, begin, end in groups]
    parts = []
    for i, (name, begin, end) in enumerate(groups):
        marks = f'{PART_MARK}="{name}"' + (f" {FIRST_MARK}" if i == 0 else "")
        before = "".join(m.group(0) for m in _STYLE.finditer(html, body_start, begin))
        after = "".join(m.group(0) for m in _STYLE.finditer(html, end, body_end))
        opening = f'{head[: start.start()]}<div {marks} {head[start.start() + len("<div ") :]}'
        elsewhere = set().union(*(links for j, links in enumerate(links_from) if j != i))
        targets = sorted(elsewhere & set(_ID.findall(html, begin, end)))
        anchors = "".join(f'<a href="#{target}"></a>' for target in targets)
        hidden = f'<nav class="pdf-link-targets" style="display:none">{anchors}</nav>' if anchors else ""
        page = opening + before + html[begin:end] + hidden + after + tail
        if not _MERMAID_BLOCK.search(html, begin, end):
            page = _MERMAID_SCRIPT.sub("", page)
        parts.append(Part(name, page))
    return parts


def _top_level_sections(html: str, at: int) -> list[tuple[int, int]]:
    """(start, end) of each ``<section>`` directly under the element opened just before ``at``,
    up to where that element's sections end."""
    spans, depth, begin = [], 0, 0
    for tag in _SECTION_TAG.finditer(html, at):
        if tag.group(0).startswith("</"):
            depth -= 1
            if depth == 0:
                spans.append((begin, tag.end()))
            elif depth < 0:
                break
        else:
            if depth == 0:
                begin = tag.start()
            depth += 1
    return spans
