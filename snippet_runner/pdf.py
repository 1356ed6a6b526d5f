"""Print the chapter to one PDF: the print-site plugin's print page, through headless Chromium.

mkdocs-print-site-plugin puts every page of the navigation on one HTML page (``print_page.html``)
with a cover and a table of contents. This module opens that page from disk in the system Chromium
(``chromium.py``), waits until the browser has finished the page (KaTeX has typeset every formula,
Mermaid has drawn every diagram, the fonts are loaded), opens every collapsed block (exercise
solutions, interview answers), and prints it with bookmarks, tags and page numbers.

Why a browser: the math and diagrams are drawn by JavaScript. WeasyPrint-based exporters
(mkdocs-with-pdf, mkdocs-pdf-export-plugin) run no JavaScript, so they would print raw LaTeX and
Mermaid source; Chromium's own ``--print-to-pdf`` cannot wait for the page to finish rendering.
Playwright's ``page.pdf`` can do both, and adds the outline (bookmarks from the headings).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from snippet_runner import chromium

# How long the page may take to typeset its math and draw its diagrams before we call it broken.
RENDER_TIMEOUT_MS = 60_000

# True once the page is finished: Material has run (it swaps each <pre class="mermaid"> for a drawn
# <div class="mermaid">), KaTeX has typeset every formula pymdownx.arithmatex marked, fonts are in.
RENDERED = """() =>
  typeof document$ !== "undefined"
  && document.querySelectorAll("pre.mermaid").length === 0
  && [...document.querySelectorAll(".arithmatex")].every(el => el.querySelector(".katex"))
  && document.fonts.status === "loaded"
"""

# What is still missing, for the error message when RENDERED never comes true.
_MISSING = """() => ({
  material: typeof document$ !== "undefined",
  diagrams_left: document.querySelectorAll("pre.mermaid").length,
  formulas_left: [...document.querySelectorAll(".arithmatex")].filter(el => !el.querySelector(".katex")).length,
  fonts: document.fonts.status,
})"""

# A collapsed ??? block or notebook solution is a <details>; the PDF shows them all open.
_OPEN_DETAILS = "() => document.querySelectorAll('details').forEach(d => { d.open = true })"

_FOOTER = (
    '<div style="width:100%; font-size:9px; color:#555; text-align:center; font-family:\'DejaVu Sans\', sans-serif">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


@dataclass
class Printed:
    path: Path
    pages: int
    bytes: int
    seconds: float


def print_pdf(print_page: Path, pdf_path: Path) -> Printed:
    """Print ``print_page`` (an HTML file) to ``pdf_path``; raise RuntimeError if it does not render."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from pypdf import PdfReader

    started = time.perf_counter()
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    with chromium.launch() as browser:
        page = browser.new_page()
        page.goto(print_page.resolve().as_uri(), wait_until="load")
        try:
            page.wait_for_function(RENDERED, timeout=RENDER_TIMEOUT_MS)
        except PlaywrightTimeout:
            raise RuntimeError(
                f"{print_page.name} did not finish rendering in {RENDER_TIMEOUT_MS / 1000:g} s: "
                f"{page.evaluate(_MISSING)}"
            ) from None
        page.evaluate(_OPEN_DETAILS)
        page.emulate_media(media="print")
        page.pdf(
            path=str(pdf_path),
            format="A4",
            margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"},
            print_background=True,
            outline=True,  # a bookmark per heading: sections, pages and their sections
            tagged=True,  # an accessible, structured PDF (Chromium builds the outline from that structure)
            display_header_footer=True,
            header_template="<span></span>",  # no running title: the cover has it, bookmarks find pages
            footer_template=_FOOTER,
        )
    seconds = time.perf_counter() - started
    return Printed(pdf_path, len(PdfReader(pdf_path).pages), pdf_path.stat().st_size, seconds)


# -- reproducible bytes ---------------------------------------------------------------------------
# Chromium (Skia's PDF backend) writes two things that change from one print to the next, though
# the page is the same: the print time, as /CreationDate and /ModDate in the document information
# dictionary, and the DOM node numbers of table header cells, as the /ID of their structure
# elements ("node00000544"), which depend on how many nodes the page had made by then. Skia
# honours no SOURCE_DATE_EPOCH, and Playwright passes no date. Rewriting the file with pypdf would
# take seconds and renumber every object; an incremental update would leave the old values in the
# file. So both are replaced in place, by values of exactly the same length, and every byte offset
# in the cross-reference table stays right: the dates by the given time (the last commit's, see
# site.py), the node numbers by their rank (0, 1, 2... in the same order, so the /IDTree's sorted
# keys stay sorted). Both are written uncompressed by Skia, which this checks by counting them.

_PDF_DATE = re.compile(rb"/(CreationDate|ModDate) \(D:\d{14}[^)]*\)")
_NODE_ID = re.compile(rb"\(node(\d{8})\)")


def make_reproducible(pdf_path: Path, epoch: int) -> None:
    """Set the PDF's dates to ``epoch`` (seconds, UTC) and number its node ids by rank, in place."""
    data = pdf_path.read_bytes()
    stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime(epoch))

    def date(match: re.Match) -> bytes:
        new = b"/%s (D:%s+00'00')" % (match.group(1), stamp.encode())
        if len(new) != len(match.group(0)):
            raise RuntimeError(f"unexpected PDF date {match.group(0)!r}; not rewritten")
        return new

    data, dates = _PDF_DATE.subn(date, data)
    if dates != 2:
        raise RuntimeError(f"expected a /CreationDate and a /ModDate in {pdf_path.name}, found {dates} dates")
    rank = {n: b"%08d" % i for i, n in enumerate(sorted(set(_NODE_ID.findall(data)), key=int))}
    data = _NODE_ID.sub(lambda m: b"(node" + rank[m.group(1)] + b")", data)
    pdf_path.write_bytes(data)
