"""Print the print-site plugin's print page to PDF through headless Chromium, which sees only the site
(print_origin.py): the math and diagrams are drawn by JavaScript, so WeasyPrint-based exporters would print raw LaTeX,
and ``--print-to-pdf`` cannot wait for KaTeX or MathJax, Mermaid and the fonts. Formulas with neither renderer loaded
stop the print at once, naming what is needed. First the page is made to read like a book (each link one box, so one
rectangle a line whatever the page went through; blocks open, ``.ipynb`` links pointed at their section, plain line
numbers, tall blocks allowed to split; the functions run in the page are ``scripts/*.js``). It is printed once. Then pikepdf writes the printed contents' page numbers (pdf_contents.py), sets
the metadata (``docinfo``) and makes the bytes reproducible (its object API): the build's dates, structure element ids
by rank (the ``/IDTree`` stays sorted) instead of DOM node numbers, an /ID derived from the content."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pikepdf
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from snippet_runner.site import chromium, print_origin
from snippet_runner.site.pdf_contents import number_contents

RENDER_TIMEOUT_MS = 60_000  # for the math and diagrams, before the page is called broken
SCRIPTS = resources.files(__package__) / "scripts"  # what runs in the page, one function per file
FOOTER = resources.files(__package__) / "pdf_footer.html"  # "page / pages" under each sheet


def script(name: str) -> str:
    """The function in ``scripts/<name>.js``, for ``page.evaluate`` (each file says what it does)."""
    return (SCRIPTS / f"{name}.js").read_text(encoding="utf-8")


# Blocks that print.css and print-site keep in one piece. One taller than this share of a sheet
# may break, so that it does not leave the rest of the previous sheet blank.
_KEEP_WHOLE = "pre, .highlight, .snippet-output, .tabbed-set, .admonition, details, .jupyter-wrapper .jp-Cell, table"
_TALL = 1 / 3
_A4_CONTENT_PX = {"width": 688, "height": 994}  # A4 less the margins below, at 96 px per inch
_DIAGRAM_MAX = 0.4  # a diagram taller than this share of a sheet is scaled down to fit in it


@dataclass
class Printed:
    pages: int
    bytes: int
    seconds: float
    refused: list[str]  # what the page asked for outside the site (print_origin.py)


def print_pdf(print_page: Path, pdf_path: Path, epoch: int | None = None, site: Path | None = None) -> Printed:
    """Print ``print_page`` (a file of ``site``, its folder by default) to ``pdf_path`` (with ``epoch``,
    reproducibly); RuntimeError if it does not render. The browser reads nothing outside ``site``."""
    started, refused = time.perf_counter(), list[str]()
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    site = site or print_page.parent
    with chromium.launch(*print_origin.NO_NETWORK) as browser:
        context = print_origin.context(browser, site, refused, viewport=_A4_CONTENT_PX)
        page = _open(context, print_origin.url(site, print_page), print_page.name, refused)
        for name in ("steady-links", "open-details", "link-pages", "unlink-line-numbers"):
            page.evaluate(script(name))
        page.evaluate(script("shrink-diagrams"), _A4_CONTENT_PX["height"] * _DIAGRAM_MAX)
        page.evaluate(script("mark-tall-blocks"), [_KEEP_WHOLE, _A4_CONTENT_PX["height"] * _TALL])
        metadata = page.evaluate(script("cover-metadata"))
        contents = page.evaluate(script("contents-page-numbers"))  # the ids its entries link to
        page.pdf(
            path=str(pdf_path),
            format="A4",
            margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"},
            print_background=True,
            outline=True,  # a bookmark per heading: sections, pages and their sections
            tagged=True,  # an accessible, structured PDF (Chromium builds the outline from that structure)
            display_header_footer=True,
            header_template="<span></span>",  # no running title: the cover has it, bookmarks find pages
            footer_template=FOOTER.read_text(encoding="utf-8"),
        )
    pages = finish(pdf_path, metadata, epoch, contents)
    return Printed(pages, pdf_path.stat().st_size, time.perf_counter() - started, refused)


def _open(context, url: str, name: str, refused: list[str]):
    """A new tab at ``url``, loaded and rendered, laid out at the paper's width for print."""
    page = context.new_page()
    page.emulate_media(media="print")
    page.goto(url, wait_until="load", timeout=RENDER_TIMEOUT_MS)
    blocked = f" (refused, outside the site: {', '.join(refused)})" if refused else ""
    if formulas := page.evaluate(script("formulas-without-renderer")):
        raise RuntimeError(
            f"{name} has {formulas} formulas (pymdownx.arithmatex) and no KaTeX or MathJax to typeset them:"
            f" load one from the site's own files through extra_javascript, as in Material's math recipes{blocked}"
        )
    try:
        page.wait_for_function(script("rendered"), timeout=RENDER_TIMEOUT_MS)
    except PlaywrightTimeout:
        missing = page.evaluate(script("still-missing"))
        raise RuntimeError(
            f"{name} did not finish rendering in {RENDER_TIMEOUT_MS / 1000:g} s: {missing}{blocked}"
        ) from None
    return page


_NODE_ID = re.compile(r"\(node(\d{8})\)")


def finish(pdf_path: Path, metadata: dict[str, str], epoch: int | None, contents: list[str]) -> int:
    """Number the ``contents`` (the ids their entries link to), write ``metadata`` into the PDF and,
    with ``epoch``, make its bytes reproducible; return its pages."""
    with pikepdf.open(pdf_path, allow_overwriting_input=True) as pdf:
        number_contents(pdf, contents)
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
