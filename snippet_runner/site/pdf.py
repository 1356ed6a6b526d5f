"""Print the print-site plugin's print page to PDF, once, through headless Chromium: the math and
diagrams are drawn by JavaScript, so WeasyPrint-based exporters would print raw LaTeX, and
``--print-to-pdf`` cannot wait for KaTeX, Mermaid and the fonts. First the page is made to read like
a book (blocks open, ``.ipynb`` links pointed at their section, plain line numbers, tall blocks
allowed to split). Then pikepdf (``docinfo`` and its object API) sets the metadata and makes the
bytes reproducible: the build's dates, structure element ids by rank (the ``/IDTree`` stays sorted)
instead of DOM node numbers, an /ID derived from the content.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from snippet_runner.site import chromium

RENDER_TIMEOUT_MS = 60_000  # for the math and diagrams, before the page is called broken

# True once Material has run (it swaps each <pre class="mermaid"> for a drawn <div>), KaTeX has
# typeset every formula pymdownx.arithmatex marked, and the fonts are in.
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

# Links the print-site plugin did not turn into in-page anchors (it leaves the exercises' .ipynb
# links alone) are pointed at the section that holds that page: "exercises/x.ipynb" -> "#exercises-x".
_LINK_PAGES = r"""() => {
  let changed = 0;
  for (const a of document.querySelectorAll('#print-site-page a[href]')) {
    const href = a.getAttribute('href');
    if (/^(#|[a-z]+:|\/\/)/i.test(href)) continue;
    const [path, fragment] = href.split('#');
    const id = path.replace(/^(\.\/)+/, '').replace(/\.(ipynb|html|md)$/, '').replaceAll('/', '-');
    const section = document.getElementById(id);
    if (!section) continue;
    const target = fragment && document.getElementById(`${id}-${fragment}`) ? `${id}-${fragment}` : id;
    a.setAttribute('href', '#' + target);
    changed += 1;
  }
  return changed;
}"""

# A listing's line anchors and the links of its line numbers lead nowhere on paper: they go, except
# where the prose links to a line.
UNLINK_LINE_NUMBERS = r"""() => {
  const line = /__codelineno-\d+-\d+$/;
  let links = 0, anchors = 0;
  for (const a of document.querySelectorAll('#print-site-page a[href*="__codelineno-"]')) {
    const href = a.getAttribute('href');
    if (!line.test(href) || !(a.closest('.linenos') || href === '#' + a.id)) continue;
    if (a.id) a.removeAttribute('href'); else a.replaceWith(...a.childNodes);
    links += 1;
  }
  const wanted = new Set([...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href').slice(1)));
  for (const a of document.querySelectorAll('#print-site-page a[id*="__codelineno-"]')) {
    if (line.test(a.id) && !wanted.has(a.id) && a.childNodes.length === 0) { a.remove(); anchors += 1 }
  }
  return [links, anchors];
}"""

# Blocks that print.css and print-site keep in one piece. One taller than this share of a sheet
# may break, so that it does not leave the rest of the previous sheet blank.
_KEEP_WHOLE = "pre, .highlight, .snippet-output, .tabbed-set, .admonition, details, .jupyter-wrapper .jp-Cell, table"
_TALL = 1 / 3
_A4_CONTENT_PX = {"width": 688, "height": 994}  # A4 less the margins below, at 96 px per inch

# A listing and the output under it are kept together (print.css), so they count as one block.
_MARK_TALL = """([selector, limit]) => {
  let marked = 0;
  const scoped = selector.split(', ').map(s => '#print-site-page ' + s).join(', ');
  for (const el of document.querySelectorAll(scoped)) {
    let height = el.getBoundingClientRect().height;
    const next = el.nextElementSibling;
    const output = next && next.matches('.snippet-output') ? next : null;
    if (output) height += output.getBoundingClientRect().height;
    if (height > limit) {
      el.classList.add('pdf-may-break');
      if (output) output.classList.add('pdf-may-break');
      marked += 1;
    }
  }
  return marked;
}"""

# A diagram cannot be split; one taller than this share of a sheet is scaled down to fit in it.
_DIAGRAM_MAX = 0.4
_SHRINK_DIAGRAMS = """(limit) => {
  let shrunk = 0;
  for (const el of document.querySelectorAll('#print-site-page div.mermaid')) {
    const height = el.getBoundingClientRect().height;
    if (height > limit) { el.style.zoom = (limit / height).toFixed(3); shrunk += 1; }
  }
  return shrunk;
}"""

_FOOTER = (
    "<div style=\"width:100%; font-size:9px; color:#555; text-align:center; font-family:'DejaVu Sans', sans-serif\">"
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


@dataclass
class Printed:
    pages: int
    bytes: int
    seconds: float


def print_pdf(print_page: Path, pdf_path: Path, epoch: int | None = None) -> Printed:
    """Print ``print_page`` to ``pdf_path`` (with ``epoch``, reproducibly); RuntimeError if it does not render."""
    started = time.perf_counter()
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    with chromium.launch() as browser:
        page = _open(browser, print_page)
        page.evaluate(_OPEN_DETAILS)
        page.evaluate(_LINK_PAGES)
        page.evaluate(UNLINK_LINE_NUMBERS)
        page.evaluate(_SHRINK_DIAGRAMS, _A4_CONTENT_PX["height"] * _DIAGRAM_MAX)
        page.evaluate(_MARK_TALL, [_KEEP_WHOLE, _A4_CONTENT_PX["height"] * _TALL])
        metadata = page.evaluate(_COVER)
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
    pages = finish(pdf_path, metadata, epoch)
    return Printed(pages, pdf_path.stat().st_size, time.perf_counter() - started)


def _open(browser, print_page: Path):
    """A new tab with ``print_page`` loaded and rendered, laid out at the paper's width for print."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = browser.new_page(viewport=_A4_CONTENT_PX)
    page.emulate_media(media="print")
    page.goto(print_page.resolve().as_uri(), wait_until="load", timeout=RENDER_TIMEOUT_MS)
    try:
        page.wait_for_function(RENDERED, timeout=RENDER_TIMEOUT_MS)
    except PlaywrightTimeout:
        raise RuntimeError(
            f"{print_page.name} did not finish rendering in {RENDER_TIMEOUT_MS / 1000:g} s: {page.evaluate(_MISSING)}"
        ) from None
    return page


# Title, author, subject and keywords, as the cover template wrote them (data-pdf-* attributes).
_COVER = """() => {
  const cover = document.querySelector('[data-pdf-title]');
  const data = cover ? cover.dataset : {};
  return {Title: data.pdfTitle || '', Author: data.pdfAuthor || '', Subject: data.pdfSubject || '', Keywords: data.pdfKeywords || ''};
}"""
_NODE_ID = re.compile(r"\(node(\d{8})\)")


def finish(pdf_path: Path, metadata: dict[str, str], epoch: int | None) -> int:
    """Write ``metadata`` into the PDF and, with ``epoch``, make its bytes reproducible; return its pages."""
    import pikepdf

    with pikepdf.open(pdf_path, allow_overwriting_input=True) as pdf:
        for key, value in metadata.items():
            if value:
                pdf.docinfo[f"/{key}"] = value
        if epoch is not None:
            stamp = time.strftime("D:%Y%m%d%H%M%S+00'00'", time.gmtime(epoch))
            pdf.docinfo["/CreationDate"] = pdf.docinfo["/ModDate"] = stamp
            _number_node_ids(pdf)
        pages = len(pdf.pages)
        pdf.save(pdf_path, deterministic_id=True)
    return pages


def _number_node_ids(pdf) -> None:
    """Replace each structure element id "node<DOM number>" by "node<rank>", wherever it is written."""
    import pikepdf

    found = {int(n) for n in _NODE_ID.findall(Path(pdf.filename).read_bytes().decode("latin-1"))}
    rank = {f"node{n:08d}": pikepdf.String(f"node{i:08d}") for i, n in enumerate(sorted(found))}

    def renumber(value):  # the direct objects inside one object; another object is reached on its own
        if isinstance(value, pikepdf.String):
            return rank.get(str(value), value)
        for key in range(len(value)) if isinstance(value, pikepdf.Array) else list(value.keys()):
            item = value[key]
            if isinstance(item, pikepdf.Array | pikepdf.Dictionary | pikepdf.String) and not item.is_indirect:
                value[key] = renumber(item)
        return value

    tree = pdf.Root.get("/StructTreeRoot")
    nodes = [tree["/IDTree"]] if tree is not None and "/IDTree" in tree else []
    for item in pdf.objects:
        if isinstance(item, pikepdf.Dictionary) and item.get("/Type") == "/StructElem":
            renumber(item)
    while nodes:
        node = nodes.pop()
        renumber(node)
        nodes += list(node.get("/Kids", []))
