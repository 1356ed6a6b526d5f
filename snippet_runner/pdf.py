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
