"""Print the chapter, or a part of it, to PDF: the print-site plugin's print page, through headless Chromium.

mkdocs-print-site-plugin puts every page of the navigation on one HTML page (``print_page.html``)
with a cover and a table of contents. This module opens that page from disk in the system Chromium
(``chromium.py``), waits until the browser has finished the page (KaTeX has typeset every formula,
Mermaid has drawn every diagram, the fonts are loaded), opens every collapsed block (exercise
solutions, interview answers), and prints it with bookmarks, tags and page numbers.

``make site`` prints the book part by part (``pdf_book.py``): ``print_part`` prints one part's print
page (``pdf_parts.py``) the same way, with three differences the join (``pdf_join.py``) relies on:
no page numbers (``print_page_numbers`` prints them alone, for the whole book); the contents'
placeholders left in (the join numbers them); and an empty stand-in anchor for every id outside
the part that the part links to, because Chromium drops a link whose target it does not print.
A part after the first is also moved up to the top of its first sheet, where it begins in the
whole page. ``print_pdf`` prints the whole page in one go: for a print page without parts, and
for ``make bench``.

Why a browser: the math and diagrams are drawn by JavaScript. WeasyPrint-based exporters
(mkdocs-with-pdf, mkdocs-pdf-export-plugin) run no JavaScript, so they would print raw LaTeX and
Mermaid source; Chromium's own ``--print-to-pdf`` cannot wait for the page to finish rendering.
Playwright's ``page.pdf`` can do both, and adds the outline (bookmarks from the headings).

Three steps make it read like a book rather than a printed web page (each its own function below):

* ``_link_pages_inside_the_pdf``: a link to another page of the chapter that the print-site plugin
  left pointing at a file (the exercises' ``.ipynb`` links) is pointed at that page's section, so it
  jumps inside the PDF.
* ``_unlink_line_numbers``: a code listing's line numbers print as plain numbers. On the site each is
  a link to its own line (pymdownx.highlight's ``anchor_linenums``), so that a reader can share a
  link to a line; on paper a link from a line to itself leads nowhere. The chapter's 1,703 such
  links and as many line anchors cost Chromium 0.5 to 0.9 s of every print (each becomes a link
  annotation and a named destination) and 0.6 MB of the PDF's 4.6 MB.
* ``_let_tall_blocks_break``: a block that may not be split (a listing, an output, a Wrong/Right
  pair, a notebook cell) but is taller than a third of a sheet may be split after all, so it is not
  pushed whole to the next sheet, leaving the previous one half blank.
* ``_number_the_contents``: the printed table of contents gets the page number of every entry.
  Chromium cannot compute those (no CSS ``target-counter``), and a second print to write them in
  would cost as much as the first. So the contents are printed with a placeholder in every
  entry's number box (as many digits as the widest number may have, "012", "345"..., right-aligned
  in a box of fixed width, so the layout is the one the real numbers get; every digit among them, so
  that the contents printed as a part of their own embed each digit a number needs), the page of every entry is read
  from the PDF's named destinations, and the placeholder's glyphs in the contents' sheets are
  replaced by the number's (``_write_numbers_into_pdf``): the same font, size, place and structure
  tag that Chromium gave them, real text, as an incremental update. Where that cannot be done
  safely (a font without a digit, a placeholder not found where expected), the numbers are written
  into the page and it is printed again, as before.

``set_metadata`` then writes the title, author, subject and keywords that the PDF cover carries
(``overrides/print/cover.html``) into the PDF's document information, as an incremental update
that leaves Chromium's outline, tags and links untouched.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from snippet_runner.site import chromium

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

# Each line of a listing carries an anchor (<a id name>), and its number a link to it (or, without
# line numbers, the anchor links to itself). A link written in the prose to a line stays, and so
# does the anchor it points to.
_UNLINK_LINE_NUMBERS = r"""() => {
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

# Writes each table-of-contents entry's page number after its title (print.css lays it out).
_NUMBER_TOC = """(numbers) => {
  for (const a of document.querySelectorAll('#print-page-toc a[href^="#"]')) {
    let span = a.querySelector('.pdf-toc-page');
    if (!span) { span = document.createElement('span'); span.className = 'pdf-toc-page'; a.append(span); }
    span.textContent = numbers[a.getAttribute('href').slice(1)] ?? '';
  }
}"""

_FOOTER = (
    "<div style=\"width:100%; font-size:9px; color:#555; text-align:center; font-family:'DejaVu Sans', sans-serif\">"
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


# In the whole page a part begins on a new sheet, at the top of the sheet's text area; printed
# alone, it would begin below what the shell puts before the print-site page (Material's padding
# above the article, and the like), which the cover's sheet takes in the whole print. Unless it is
# the first part, the page is moved up by that much.
_START_AT_THE_TOP = """() => {
  const site = document.getElementById('print-site-page');
  const first = site.querySelector(':scope > section');
  if (!first || !('pdfPart' in site.dataset) || 'pdfPartFirst' in site.dataset) return 0;
  const top = first.getBoundingClientRect().top + window.scrollY;
  if (top > 0) site.style.marginTop = `calc(${getComputedStyle(site).marginTop} - ${top}px)`;
  return top;
}"""

# Each id outside the part that a link of the part points to gets an empty anchor, out of the flow
# (at the top of the first sheet), so that Chromium writes the link; returns those ids, sorted.
_STAND_INS = r"""() => {
  const outside = new Set();
  for (const a of document.querySelectorAll('#print-site-page a[href^="#"]')) {
    const id = a.getAttribute('href').slice(1);
    if (id && !document.getElementById(id)) outside.add(id);
  }
  const ids = [...outside].sort();
  if (!ids.length) return ids;
  const box = document.createElement('div');
  box.className = 'pdf-stand-ins';
  box.style.cssText = 'position:absolute; top:0; left:0; width:1px; height:1px; overflow:hidden';
  for (const id of ids) { const a = document.createElement('a'); a.id = id; box.append(a); }
  document.getElementById('print-site-page').prepend(box);
  return ids;
}"""

_MARGIN = {"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"}


@dataclass
class Printed:
    path: Path
    pages: int
    bytes: int
    seconds: float
    prints: int = 1  # Chromium prints it took: 1, unless the contents' numbers needed another


class Laps(dict):
    """Seconds spent in each step of a print, by name (for ``make bench``): ``lap(name)`` adds the
    time since the previous lap to ``name``."""

    def __init__(self):
        super().__init__()
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self[name] = self.get(name, 0.0) + now - self._last
        self._last = now


def print_pdf(print_page: Path, pdf_path: Path, epoch: int | None = None, laps: Laps | None = None) -> Printed:
    """Print ``print_page`` (an HTML file) to ``pdf_path``; raise RuntimeError if it does not render.
    With ``epoch`` (seconds), the PDF's dates are that time and its bytes are the same every print.
    ``laps``, if given, is filled with the time each step took."""
    started = time.perf_counter()
    laps = Laps() if laps is None else laps
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    with chromium.launch() as browser:
        laps.lap("launch")
        page = _open(browser, print_page)
        laps.lap("load and render")
        _prepare(page)
        metadata = _metadata_from_cover(page)
        laps.lap("prepare")
        reader, numbers, prints = _number_the_contents(page, pdf_path, epoch, laps)
    laps.lap("close")
    set_metadata(pdf_path, **metadata, reader=reader, changed=numbers)  # one update: numbers and metadata
    laps.lap("pypdf")
    seconds = time.perf_counter() - started
    return Printed(pdf_path, len(reader.pages), pdf_path.stat().st_size, seconds, prints)


def _prepare(page) -> None:
    """What makes the loaded page print as a book, for the whole print and for a part alike."""
    page.evaluate(_OPEN_DETAILS)
    _link_pages_inside_the_pdf(page)
    _unlink_line_numbers(page)
    _let_tall_blocks_break(page)


def blank_tab(browser):
    """A new, empty tab, laid out from the start as a page prints (the paper's width, print media),
    so that a page loaded into it is not laid out for a screen first and then again for paper, and
    its scripts do no work for a screen."""
    page = browser.new_page(viewport={"width": _A4_CONTENT_PX["width"], "height": _A4_CONTENT_PX["height"]})
    page.emulate_media(media="print")
    return page


class TabAhead:
    """A browser with one :func:`blank_tab` opened before it is needed. Opening a tab starts
    Chromium's renderer process for it; the PDF process (``pdf_process.py``) does that while it waits
    for its job, so the first part it prints is loaded that much sooner (dev/measurements.md).
    Anything else is the browser's own."""

    def __init__(self, browser):
        self.browser = browser
        self._tab = blank_tab(browser)

    def take_tab(self):
        """The tab opened ahead, or a new one once it was taken."""
        tab, self._tab = self._tab, None
        return tab if tab is not None else blank_tab(self.browser)

    def __getattr__(self, name):
        return getattr(self.browser, name)


def _open(browser, print_page: Path):
    """A new tab with ``print_page`` loaded and rendered, laid out as it prints."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = browser.take_tab() if isinstance(browser, TabAhead) else blank_tab(browser)
    # Not Playwright's 30 s: on a loaded machine the 1.7 MB page took longer than that to load.
    page.goto(print_page.resolve().as_uri(), wait_until="load", timeout=RENDER_TIMEOUT_MS)
    try:
        page.wait_for_function(RENDERED, timeout=RENDER_TIMEOUT_MS)
    except PlaywrightTimeout:
        raise RuntimeError(
            f"{print_page.name} did not finish rendering in {RENDER_TIMEOUT_MS / 1000:g} s: {page.evaluate(_MISSING)}"
        ) from None
    return page


@dataclass
class PartPrinted:
    """What the join needs to know of a part, besides its PDF (kept beside it in the cache)."""

    pages: int
    stand_ins: list[str]  # ids outside the part that it links to: its anchors of them are stand-ins
    contents: list[str]  # the printed contents' link targets, in order, each with its placeholder
    metadata: dict[str, str]  # from the cover, if the part has it


def print_part(
    browser,
    print_page: Path,
    pdf_path: Path,
    epoch: int | None,
    laps: Laps | None = None,
    numbers: dict[str, int] | None = None,
) -> PartPrinted:
    """Print one part's print page (``pdf_parts.py``) as the whole page is printed, but without
    page numbers (the join writes them, ``pdf_join.py``) and with the contents' numbers left as
    placeholders (the join writes them too), unless ``numbers`` gives them; every id outside the
    part that it links to gets an empty anchor, so that Chromium keeps the link."""
    import pikepdf  # counts the sheets in a fraction of the time pypdf takes to parse the page tree

    laps = Laps() if laps is None else laps
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    page = _open(browser, print_page)
    laps.lap("load and render")
    _prepare(page)
    page.evaluate(_START_AT_THE_TOP)
    metadata = _metadata_from_cover(page)
    targets = _toc_targets(page)
    page.evaluate(_NUMBER_TOC, numbers if numbers is not None else dict(zip(targets, placeholders(len(targets)), strict=True)))
    stand_ins = page.evaluate(_STAND_INS)
    laps.lap("prepare")
    _print(page, pdf_path, final=True, footer=None)
    page.close()
    if epoch is not None:
        make_reproducible(pdf_path, epoch)
    laps.lap("print")
    with pikepdf.open(pdf_path) as printed:
        sheets = len(printed.pages)
    return PartPrinted(sheets, stand_ins, targets if numbers is None else [], metadata)


def print_page_numbers(browser, count: int, pdf_path: Path) -> None:
    """``count`` empty sheets, each with its footer ("7 / 128") as the whole PDF prints it: the
    join lays each over the part's sheet of that number. Chromium has no option to start a
    document's page numbers at another number than 1, so this is how a part's sheets get the
    numbers they have in the whole book."""
    from pypdf import PdfReader

    page = browser.new_page()
    page.set_content(
        "<!doctype html><html><body style='margin:0'><div style='height:1px'></div>"
        + "<div style='height:1px; break-before:page'></div>" * (count - 1)
        + "</body></html>"
    )
    _print(page, pdf_path, final=False)
    page.close()
    printed = len(PdfReader(pdf_path).pages)
    if printed != count:
        raise RuntimeError(f"the page numbers printed on {printed} sheets, not {count}")


def _print(page, path: Path, *, final: bool, footer: str | None = _FOOTER) -> None:
    """Print ``page`` to ``path``; ``footer`` None prints no header or footer at all (a part: the
    join lays the numbers on), which lays the sheets out as with them (the margins are set) and
    gives the same bytes as an empty footer, without rendering one for every sheet."""
    page.pdf(
        path=str(path),
        format="A4",
        margin=_MARGIN,
        print_background=True,
        outline=final,  # a bookmark per heading: sections, pages and their sections
        tagged=final,  # an accessible, structured PDF (Chromium builds the outline from that structure)
        display_header_footer=footer is not None,
        header_template="<span></span>",  # no running title: the cover has it, bookmarks find pages
        # The page numbers. A CSS page-margin box would save loading this small page for every sheet
        # (about 0.4 s), but Chromium writes a margin box's text before the sheet's own, so a
        # sheet's text would begin with its number.
        footer_template=footer or "",
    )


def _link_pages_inside_the_pdf(page) -> int:
    """Point links to other pages of the chapter at their sections in the print page."""
    return page.evaluate(_LINK_PAGES)


def _unlink_line_numbers(page) -> tuple[int, int]:
    """Make the listings' line numbers plain text, and drop the line anchors nothing links to;
    returns how many of each."""
    return tuple(page.evaluate(_UNLINK_LINE_NUMBERS))


def _let_tall_blocks_break(page) -> int:
    """Scale diagrams taller than 40% of a sheet down to that, then mark the unbreakable blocks
    still taller than a third of a sheet as breakable (class pdf-may-break, print.css)."""
    page.set_viewport_size(_A4_CONTENT_PX)  # lay the page out at the paper's width to measure
    page.evaluate(_SHRINK_DIAGRAMS, _A4_CONTENT_PX["height"] * _DIAGRAM_MAX)
    return page.evaluate(_MARK_TALL, [_KEEP_WHOLE, _A4_CONTENT_PX["height"] * _TALL])


def _toc_targets(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('#print-page-toc a[href^="#"]')]
        .map(a => a.getAttribute('href').slice(1))""")


def _pages_of(reader, names: list[str]) -> dict[str, int]:
    """The 1-based page each named destination (a link target id) lands on, for those that exist."""
    dests = reader.named_destinations
    out = {}
    for name in names:
        dest = dests.get(name) or dests.get("/" + name)
        if dest is not None:
            out[name] = reader.get_destination_page_number(dest) + 1
    return out


def _number_the_contents(page, pdf_path: Path, epoch: int | None, laps: Laps, attempts: int = 3):
    """Print once with placeholders in the contents' number boxes, then write each entry's page
    number over its placeholder. Returns a pypdf reader of the print, the content streams that carry
    the numbers (object number -> new stream, for the update ``set_metadata`` appends), and how many
    prints it took: 1, unless the PDF could not be edited safely; then the numbers go into the page
    and it is printed again. With ``epoch``, each print is made reproducible before it is read."""
    from pypdf import PdfReader

    targets = _toc_targets(page)
    page.evaluate(_NUMBER_TOC, dict(zip(targets, placeholders(len(targets)), strict=True)))
    laps.lap("prepare")
    _print_final(page, pdf_path, epoch)
    laps.lap("print")
    reader = PdfReader(pdf_path)
    numbers = _pages_of(reader, targets)
    streams = _write_numbers_into_pdf(reader, [numbers.get(target) for target in targets], placeholders(len(targets)))
    laps.lap("pypdf")
    if streams is not None:
        return reader, streams, 1
    for prints in range(2, attempts + 2):  # the old way: write them into the page, print again
        page.evaluate(_NUMBER_TOC, numbers)
        _print_final(page, pdf_path, epoch)
        laps.lap("print")
        reader = PdfReader(pdf_path)
        printed = _pages_of(reader, targets)
        laps.lap("pypdf")
        if printed == numbers:
            return reader, {}, prints
        numbers = printed
    raise RuntimeError(f"the table of contents' page numbers did not settle in {attempts} prints")


def _print_final(page, pdf_path: Path, epoch: int | None) -> None:
    _print(page, pdf_path, final=True)
    if epoch is not None:  # on Chromium's own bytes, before any update carries the dates over
        make_reproducible(pdf_path, epoch)


# -- the contents' numbers, written into the printed PDF -----------------------------------------
# Skia (Chromium's PDF backend) writes each run of text as its own BT ... ET block: a font
# (/F5 13.6 Tf), a text matrix (Tm), then glyph ids in hex (<0013> Tj), either all in one string
# or one glyph per string with a move (8.65 0 Td) between them. A placeholder's block is exactly
# the "0" glyph PLACEHOLDER times; its glyphs become the number's, right-aligned as the box
# aligned the placeholder: a leading glyph slot the number does not fill shows nothing, but keeps
# its advance (a TJ kerning of the glyph's width), so the digits stay where Chromium would have put
# them. DejaVu's digits are all one width (tabular), so any number fits the placeholder's slots.
# The entries are links, underlined: the underline drawn under the placeholder is cut to the digits.
# The blocks stay inside Chromium's marked content, so the numbers keep their structure tags.

PLACEHOLDER = "000"  # a number box's width while printing: contents of up to 999 pages


def placeholders(count: int) -> list[str]:
    """The placeholder of each of ``count`` entries: as wide as PLACEHOLDER, its digits going round
    0 to 9 ("012", "345", "678", "901"...), so that a PDF whose other text has few digits (the
    contents printed as a part of their own) still embeds every digit a number may need: Skia
    embeds only the glyphs a document prints."""
    width = len(PLACEHOLDER)
    return ["".join(str((width * i + k) % 10) for k in range(width)) for i in range(count)]

# A text block, and the link underline (a filled rectangle) Skia draws just before it, if any.
_TEXT_BLOCK = re.compile(rb"(?:([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re\nf\n)?BT\n(.*?)ET", re.S)
_BLOCK_OPS = re.compile(rb"\s*(?:(/[^\s/]+ [\d.]+ Tf)|([-\d. ]+ Tm)|([-\d.]+ [-\d.]+ Td)|<([0-9A-Fa-f]+)> Tj)")
_BFCHAR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]{4})>")
_BFRANGE = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]{4})>")


def _write_numbers_into_pdf(
    reader, numbers: list[int | None], shown: list[str] | None = None, search_pages: int = 20
) -> dict | None:
    """New content streams for the contents' sheets of the PDF ``reader`` reads (object number ->
    stream), with the placeholders (``shown``, by default PLACEHOLDER each) replaced, in order, by
    ``numbers`` (None: no number). None if
    the placeholders found are not exactly one per number, a number is wider than the placeholder,
    a font lacks a digit, or a sheet's content is not one stream."""
    from pypdf.generic import IndirectObject, StreamObject

    if any(n is not None and len(str(n)) > len(PLACEHOLDER) for n in numbers):
        return None
    left = list(zip(numbers, shown or [PLACEHOLDER] * len(numbers), strict=True))
    edited = {}
    for page in reader.pages[:search_pages]:
        if not left:
            break
        reference = page.get("/Contents")
        if not isinstance(reference, IndirectObject) or not isinstance(reference.get_object(), StreamObject):
            return None
        contents = reference.get_object()
        assert isinstance(contents, StreamObject)  # checked just above
        resources = page.get("/Resources") or {}
        fonts = {
            str(name).encode(): _digits_of(font.get_object()) for name, font in (resources.get("/Font") or {}).items()
        }
        data, replaced = _replace_placeholders(contents.get_data(), fonts, *map(list, zip(*left, strict=True)))
        if replaced is None:
            return None
        if replaced:
            left = left[replaced:]
            stream = StreamObject()
            stream.set_data(data)
            edited[reference.idnum] = stream.flate_encode()
            last = (data, fonts)
    if left or not edited:
        return None
    if any(_replace_placeholders(*last, [None], [text])[1] != 0 for text in set(shown or [PLACEHOLDER])):
        return None  # a placeholder left over: some text was taken for one, so the count is off
    return edited


def _replace_placeholders(
    data: bytes, fonts: dict, numbers: list[int | None], placeholders: list[str] | None = None
) -> tuple[bytes, int | None]:
    """``data`` (a page's content stream) with its placeholder blocks (``placeholders``, by default
    PLACEHOLDER each) replaced by the first ``numbers``, and how many were replaced (None if a
    number's digits are missing from its font)."""
    expected = placeholders or [PLACEHOLDER] * len(numbers)
    count = 0
    failed = False

    def replace(match: re.Match) -> bytes:
        nonlocal count, failed
        block = match.group(5)
        ops = _block_ops(block)
        if failed or ops is None or count >= len(numbers):
            return match.group(0)
        font = next((op[1].split()[0] for op in ops if op[0] == "Tf"), None)
        digits = fonts.get(font)
        if digits is None or any(c not in digits[0] for c in expected[count]):
            return match.group(0)
        gids = b"".join(op[1] for op in ops if op[0] == "Tj").upper()
        if gids != b"".join(b"%04X" % digits[0][c] for c in expected[count]):
            return match.group(0)
        number = numbers[count]
        text = str(number).rjust(len(PLACEHOLDER)) if number is not None else " " * len(PLACEHOLDER)
        if any(c != " " and c not in digits[0] for c in text):
            failed = True
            return match.group(0)
        underline = b""
        if match.group(1) is not None:  # the underline: from the first digit shown to the last
            x, y, width, height = (float(v) for v in match.group(1, 2, 3, 4))
            start = float(next(op[1] for op in ops if op[0] == "Tm").split()[4])
            if abs(x - start) > 0.5:
                failed = True  # not the underline of this text as we know it
                return match.group(0)
            blank = len(text) - len(text.lstrip())
            slot = width / len(PLACEHOLDER)
            x, width = x + blank * slot, width - blank * slot
            underline = b"%s %s %s %s re\nf\n" % (_num(x), _num(y), _num(width), _num(height)) if width > 0 else b""
        count += 1
        slots = iter(text)
        out = []
        for kind, value in ops:
            if kind != "Tj":
                out.append(value)
                continue
            shown = [next(slots) for _ in range(len(value) // 4)]
            blank = sum(1 for c in shown if c == " ")
            glyphs = b"".join(b"%04X" % digits[0][c] for c in shown if c != " ")
            if not glyphs:
                continue  # nothing to show; the next Td moves from the line's start, as before
            kern = b"%s " % _num(-blank * digits[1]) if blank else b""
            out.append(b"[%s<%s>] TJ" % (kern, glyphs))
        return underline + b"BT\n" + b"\n".join(out) + b"\nET"

    result = _TEXT_BLOCK.sub(replace, data)
    return (data, None) if failed else (result, count)


def _block_ops(block: bytes) -> list[tuple[str, bytes]] | None:
    """A text block's operations, as (kind, text), if it holds only Tf, Tm, Td and Tj."""
    ops: list[tuple[str, bytes]] = []
    at = 0
    while at < len(block):
        match = _BLOCK_OPS.match(block, at)
        if match is None:
            return None if block[at:].strip() else ops
        kind = ("Tf", "Tm", "Td", "Tj")[next(i for i in range(4) if match.group(i + 1) is not None)]
        ops.append((kind, match.group(4) if kind == "Tj" else match.group(0).strip()))
        at = match.end()
    return ops


def _digits_of(font) -> tuple[dict[str, int], float] | None:
    """For a Type0 Identity-H font: the glyph id of each digit it has (from its ToUnicode map),
    and the width of its "0" (thousandths of an em); None for any other font."""
    if font.get("/Subtype") != "/Type0" or font.get("/Encoding") != "/Identity-H" or "/ToUnicode" not in font:
        return None
    cmap = font["/ToUnicode"].get_object().get_data()
    glyphs = {}
    for first, unicode in _BFCHAR.findall(cmap):
        glyphs[chr(int(unicode, 16))] = int(first, 16)
    for first, last, unicode in _BFRANGE.findall(cmap):
        start = int(unicode, 16)
        for gid in range(int(first, 16), int(last, 16) + 1):
            glyphs[chr(start + gid - int(first, 16))] = gid
    digits = {c: gid for c, gid in glyphs.items() if c.isdigit() and c.isascii()}
    if "0" not in digits:
        return None
    return digits, _width(font["/DescendantFonts"][0].get_object(), digits["0"])


def _width(cid_font, gid: int) -> float:
    """A glyph's width from a CIDFont's /W array ([first [w w ...]] or [first last w])."""
    widths = list(cid_font.get("/W", []))
    i = 0
    while i < len(widths):
        first = int(widths[i])
        if isinstance(widths[i + 1], list):
            run = [float(w) for w in widths[i + 1]]
            if first <= gid < first + len(run):
                return run[gid - first]
            i += 2
        else:
            if first <= gid <= int(widths[i + 1]):
                return float(widths[i + 2])
            i += 3
    return float(cid_font.get("/DW", 1000))


def _num(value: float) -> bytes:
    return (b"%.5f" % value).rstrip(b"0").rstrip(b".")


def _metadata_from_cover(page) -> dict[str, str]:
    """Title, author, subject and keywords, as the cover template wrote them (data-pdf-* attributes)."""
    found = page.evaluate("""() => {
      const cover = document.querySelector('[data-pdf-title]');
      return cover ? {...cover.dataset} : {};
    }""")
    return {key: found.get(f"pdf{key.title()}", "") for key in ("title", "author", "subject", "keywords")}


def set_metadata(
    pdf_path: Path,
    *,
    title: str,
    author: str = "",
    subject: str = "",
    keywords: str = "",
    reader=None,
    changed: dict | None = None,
) -> None:
    """Write the document information (title, author, subject, keywords) into ``pdf_path``.

    Chromium sets only /Title, from the print page's <title> ("Print Site - ..."). This appends an
    incremental update that replaces the information dictionary and changes nothing else: the
    outline, the structure tags and the links Chromium wrote stay byte for byte as they were.
    An empty value is left out. ``changed`` (object number -> new object, e.g. the contents' numbered
    streams) joins the same update; ``reader``, a pypdf reader of ``pdf_path``, saves reading it again.
    """
    from pypdf import PdfReader
    from pypdf.generic import DictionaryObject, NameObject, create_string_object

    changed = dict(changed or {})
    reader = reader or PdfReader(pdf_path)
    if title:
        reference = reader.trailer.raw_get("/Info")
        info = DictionaryObject(reference.get_object())
        for key, value in {"/Title": title, "/Author": author, "/Subject": subject, "/Keywords": keywords}.items():
            if value:
                info[NameObject(key)] = create_string_object(value)
        changed[reference.idnum] = info
    if changed:
        append_update(pdf_path, reader, changed)


_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")


def append_update(pdf_path: Path, reader, changed: dict) -> None:
    """Append an incremental update to ``pdf_path`` that replaces the objects ``changed`` (object
    number -> new pypdf object, which pypdf writes out) and nothing else.

    pypdf's own incremental writer first copies every object of the file (23,000 here, about two
    seconds) to find what changed; here we know what changed. An update is those objects, a
    cross-reference section giving their offsets, and a trailer pointing back at the previous one
    (ISO 32000-1, 7.5.6): Chromium's file ends in a classic cross-reference table, and so does this.
    """
    import io

    from pypdf.generic import DictionaryObject, NameObject, NumberObject

    data = pdf_path.read_bytes()
    previous = _STARTXREF.search(data)
    if previous is None:
        raise RuntimeError(f"{pdf_path.name} does not end with startxref/%%EOF; not updated")
    out = io.BytesIO()
    out.write(b"\n")
    offsets = {}
    for number in sorted(changed):
        offsets[number] = len(data) + out.tell()
        out.write(b"%d 0 obj\n" % number)
        changed[number].write_to_stream(out)
        out.write(b"\nendobj\n")
    xref = len(data) + out.tell()
    out.write(b"xref\n0 1\n0000000000 65535 f \n")  # the free list's head, as readers expect first
    for number in sorted(changed):
        out.write(b"%d 1\n%010d 00000 n \n" % (number, offsets[number]))
    trailer = DictionaryObject({NameObject(k): v for k, v in reader.trailer.items() if k not in ("/Prev", "/XRefStm")})
    trailer[NameObject("/Size")] = NumberObject(max(int(reader.trailer["/Size"]), max(changed) + 1))
    trailer[NameObject("/Prev")] = NumberObject(int(previous.group(1)))
    out.write(b"trailer\n")
    trailer.write_to_stream(out)
    out.write(b"\nstartxref\n%d\n%%%%EOF\n" % xref)
    with open(pdf_path, "ab") as file:
        file.write(out.getvalue())


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
