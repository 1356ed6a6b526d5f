"""The chapter as one PDF (site/pdf/autograd-part2.pdf), read back with pypdf (structure) and
PDFium (text, pdf_text.py): its size, cover,
bookmarks, page numbers, text (every page, real outputs, expanded answers, rendered math and
diagrams) and fonts; and, so that it reads like a book, the printed contents (a link for every
entry), no near-empty sheets, the metadata, and links that land on their target's
page. Plus two checks in the browser: on the printed page no code is wider than the paper, so long
lines wrap instead of being cut off, and headings print in the body text's colour."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mkdocs.config import load_config
from pypdf import PdfReader
from pypdf.generic import IndirectObject
from real_chapter import SNIPPETS, approved_last_line, approved_output

from .pdf_text import PdfText, read, squash

ROOT = Path(__file__).resolve().parents[2]
PDF = "pdf/autograd-part2.pdf"  # path_to_pdf in mkdocs.yml

# The print page shows each page under its own first heading. For every page that heading is its
# nav title, except these two: the home page's heading is the chapter title, and the exercises'
# index is listed in the nav without a title of its own.
PRINTED_TITLE = {"index.md": "PyTorch Autograd and Backpropagation, Part 2", "exercises/index.md": "Exercises"}

# Real outputs the PDF must carry: the last line each of these snippets printed (two are tracebacks,
# whose message is cut before its parenthesis, so that it fits one printed line).
OUTPUTS = [
    approved_last_line(rel).split(" (")[0]
    for rel in (
        "chain_rule/autograd_check.py",
        "non_scalar_outputs/gradient_of_vector.py",
        "retain_graph/backward_twice_error.py",
        "non_scalar_outputs/vector_output_error.py",
    )
]


@pytest.fixture(scope="module")
def pdf(chromium_path, built_site) -> PdfReader:
    path = built_site / PDF
    assert path.is_file(), f"{PDF} was not written by the build"
    return PdfReader(path)


@pytest.fixture(scope="module")
def sheets(pdf, built_site) -> PdfText:
    """The text of each sheet, whitespace squashed (lines wrap anywhere)."""
    return read(built_site / PDF)


@pytest.fixture(scope="module")
def text(sheets) -> str:
    """All the PDF's text."""
    return sheets.all_text()


def nav_entries():
    """(kind, printed title) for every section and page in mkdocs.yml's nav, in order."""
    out = []

    def walk(items):
        for item in items:
            if isinstance(item, str):
                out.append(("page", PRINTED_TITLE[item]))
                continue
            ((title, value),) = item.items()
            if isinstance(value, list):
                out.append(("section", title))
                walk(value)
            else:
                out.append(("page", PRINTED_TITLE.get(value, title)))

    walk(load_config(str(ROOT / "mkdocs.yml")).nav)
    return out


def bookmarks(outline, depth=0):
    for item in outline:
        if isinstance(item, list):
            yield from bookmarks(item, depth + 1)
        else:
            yield squash(item.title)


def test_page_count_is_sensible(pdf):
    # 32 pages, 18 notebooks and section title pages print to about 250 A4 pages; far fewer means
    # pages went missing, far more means something is printed once per character or repeated.
    assert 150 <= len(pdf.pages) <= 350, len(pdf.pages)


def test_cover_names_the_title_and_the_torch_that_printed_the_outputs(sheets):
    cover = sheets.text(0)
    assert "PyTorch Autograd and Backpropagation (Part 2)" in cover
    # What index/torch_version.py printed, as approved: the build checks the real run against it, with
    # the build label set aside (PyPI's Linux wheel prints +cu130 where the approved run printed +cpu).
    torch_line = (ROOT / "snippets" / "index" / "torch_version.out").read_text().splitlines()[0]
    release = torch_line.partition("+")[0]
    assert release.startswith("PyTorch 2.") and re.search(re.escape(release) + r"(\+\w+)?(?![\w.])", cover)


def test_a_bookmark_for_every_section_and_page_in_the_nav(pdf):
    marks = list(bookmarks(pdf.outline))
    assert "Table of Contents" in marks
    missing = [title for _, title in nav_entries() if title not in marks]
    assert missing == [], f"no bookmark for {missing}; bookmarks: {marks}"


def test_bookmarks_reach_into_the_pages(pdf):
    marks = list(bookmarks(pdf.outline))
    for section in ["Backward twice without retain_graph", "Keeping an intermediate gradient with retain_grad()"]:
        assert section in marks
    assert len(marks) > 2 * len(nav_entries())


def test_table_of_contents_lists_every_page(sheets):
    toc = " ".join(sheets.text(i) for i in range(1, 4))
    assert toc.startswith("Table of Contents")
    for kind, title in nav_entries():
        if kind == "page" and title not in PRINTED_TITLE.values():
            assert title in toc


def test_every_page_is_numbered(sheets):
    total = len(sheets)
    for i in [1, total // 2, total]:
        assert f"{i} / {total}" in sheets.text(i - 1)


def test_every_page_title_and_real_outputs_are_in_the_text(text):
    for _, title in nav_entries():
        assert title in text
    for output in OUTPUTS:
        assert squash(output) in text, output


def test_collapsed_answers_and_solutions_are_printed_open(text):
    # The first interview answer, a ??? block folded on the site.
    answers = (ROOT / "docs" / "interview-questions.md").read_text()
    first_answer = re.search(r"^\?\?\? question .*\n((?:    .*\n)+)", answers, re.M).group(1).strip()
    included = re.fullmatch(r'--8<-- "([^"]+)"', first_answer)  # written once, in includes/
    if included:
        first_answer = (ROOT / "includes" / included.group(1)).read_text().strip()
    assert squash(first_answer.split("\n")[0])[:60] in text
    # Exercise 2's cells, its solution's among them (folded in a <details class="solution">), and what each printed.
    for line in approved_output("exercises/exercise_2_chain_rule.py").splitlines():
        assert squash(line) in text, line


def test_math_is_typeset_and_diagrams_drawn(text, pdf):
    assert not re.search(r"\\frac|\\partial|\\cdot|\\\(", text), "raw LaTeX in the PDF"
    assert "∂" in text and "²" in text
    for source in (ROOT / "docs").glob("*.md"):
        for fence in re.findall(r"```mermaid\n(.*?)```", source.read_text(), re.S):
            first_line = fence.strip().splitlines()[0]
            assert first_line not in text, f"Mermaid source printed raw ({source.name}: {first_line})"
    for label in ["Earlier operations", "Mini-batch 3", "Updated parameters", "Feed-forward network"]:
        assert label in text  # node labels that appear only inside diagrams, so they were drawn
    assert {"KaTeX_Main-Regular", "KaTeX_Math-Italic"} <= {name.split("+")[-1] for name in font_names(pdf)}


def test_every_font_is_embedded(pdf):
    fonts = list(all_fonts(pdf))
    assert fonts, "no fonts found, so the walk below is broken"
    not_embedded = [name for name, embedded in fonts if not embedded]
    assert not_embedded == []


def test_text_is_set_in_dejavu_and_math_in_katex(pdf):
    # print.css names DejaVu (fonts.css: the site's own copy, from npm) for text and code, and KaTeX brings its own fonts,
    # so the PDF looks the same on any machine; a third family means some element escaped print.css.
    families = {name.split("+")[-1].split("-")[0] for name in font_names(pdf)}
    assert families <= {
        "DejaVuSans",
        "DejaVuSansMono",
        "KaTeX_Main",
        "KaTeX_Math",
        "KaTeX_Size1",
        "KaTeX_Size2",
        "KaTeX_Size3",
        "KaTeX_Size4",
        "KaTeX_AMS",
    }, families


def test_the_pdf_is_printed_in_the_sites_own_dejavu_faces(printed_page):
    # fonts.css serves DejaVu from the site (npm), so the PDF does not depend on the machine's fonts:
    # a face the print page used is one the browser loaded from assets/vendor/dejavu/.
    loaded = printed_page.evaluate(
        """async () => { await document.fonts.ready;
            return [...document.fonts].filter(f => f.status === "loaded" && f.family.includes("DejaVu"))
              .map(f => `${f.family.replaceAll('"', '')} ${f.weight} ${f.style}`) }"""
    )
    assert {"DejaVu Sans 400 normal", "DejaVu Sans 700 normal", "DejaVu Sans Mono 400 normal"} <= set(loaded), loaded


def test_no_code_is_wider_than_the_paper(printed_page):
    overflowing = printed_page.evaluate(
        """() => [...document.querySelectorAll('#print-site-page pre')]
            .filter(pre => pre.offsetParent !== null && pre.scrollWidth > pre.clientWidth + 1)
            .map(pre => pre.textContent.slice(0, 60))"""
    )
    assert overflowing == []


# -- walking the PDF's fonts --------------------------------------------------------------------


def _resolve(obj):
    return obj.get_object() if isinstance(obj, IndirectObject) else obj


def _fonts_in(resources, seen):
    resources = _resolve(resources) or {}
    for font in (_resolve(resources.get("/Font")) or {}).values():
        font = _resolve(font)
        if id(font) not in seen:
            seen.add(id(font))
            yield font
    for xobject in (_resolve(resources.get("/XObject")) or {}).values():
        xobject = _resolve(xobject)
        if "/Resources" in xobject and id(xobject) not in seen:
            seen.add(id(xobject))
            yield from _fonts_in(xobject["/Resources"], seen)


def _embedded(font) -> bool:
    subtype = font.get("/Subtype")
    if subtype == "/Type3":
        return True  # its glyphs are drawn by content streams inside the PDF itself
    if subtype == "/Type0":
        return all(_embedded(_resolve(d)) for d in _resolve(font["/DescendantFonts"]))
    descriptor = _resolve(font.get("/FontDescriptor"))
    return descriptor is not None and any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))


def all_fonts(pdf):
    """(name, embedded?) for every font any page uses, including fonts inside form XObjects."""
    seen: set[int] = set()
    for page in pdf.pages:
        for font in _fonts_in(page.get("/Resources"), seen):
            yield str(font.get("/BaseFont")), _embedded(font)


def font_names(pdf):
    return [name for name, _ in all_fonts(pdf)]


def chain_rule_drawn() -> str:
    """The chain rule picture's lowest labels, with the values of its approved data (not the
    chapter's numbers): what reaches MulBackward0, and the leaf x with its value and gradient."""
    (picture,) = json.loads((SNIPPETS / "chain_rule/autograd_check.pictures.json").read_text())
    names = {node["id"]: node for node in picture["nodes"]}
    into_mul = next(e["grad"] for e in picture["edges"] if names[e["to"]]["name"] == "MulBackward0")
    x = next(node for node in picture["nodes"] if node.get("name") == "x")
    return f"MulBackward0 {into_mul} AccumulateGrad {x['grad']} x = {x['value']} leaf · .grad = {x['grad']}"


def test_pictures_print_as_text_with_their_real_values(text):
    # Text that only the graphs' SVG carries (node labels, as drawn from the runs), found in the
    # PDF's text layer: the pictures were printed as vectors with real text, not as images.
    for drawn in [
        chain_rule_drawn(),  # chain rule: what reaches u's node, and x's gradient
        "y = 6 not a leaf · retain_grad() · .grad = 12",  # a retained non-leaf shows its gradient
        "not a leaf · .grad not kept",  # one that did not retain shows none
        "saved self = 2 (freed)",  # what the first backward() frees
        "TBackward0",  # the nn.Linear step
    ]:
        assert drawn in text, drawn


# -- reading like a book: contents, sheets, headings, metadata, links ----------------------------

A4_MARGIN_TOP, A4_MARGIN_BOTTOM = 16 * 72 / 25.4, 18 * 72 / 25.4  # pdf.py's margins, in points


def filled(sheets: PdfText, index: int) -> float:
    """How far down the sheet's text area the lowest line of text reaches: 0 is empty, 1 is full.
    The footer (the page number, in the bottom margin) does not count."""
    height = sheets.height(index)
    lowest = sheets.lowest_text(index, above=A4_MARGIN_BOTTOM)
    if lowest is None:
        return 0.0
    return (height - A4_MARGIN_TOP - lowest) / (height - A4_MARGIN_TOP - A4_MARGIN_BOTTOM)


def internal_links(pdf, page_number):
    """(destination name, rect) of every link on a page (1-based) that jumps inside the PDF."""
    out = []
    for annot in pdf.pages[page_number - 1].get("/Annots") or []:
        annot = annot.get_object()
        if annot.get("/Subtype") == "/Link" and "/Dest" in annot:
            out.append((str(annot["/Dest"]).lstrip("/"), [float(v) for v in annot["/Rect"]]))
    return out


def dest_page(pdf, name) -> int:
    dests = pdf.named_destinations
    dest = dests.get("/" + name) or dests.get(name)
    assert dest is not None, f"no destination {name!r}"
    return pdf.get_destination_page_number(dest) + 1


def part_starts(pdf) -> set[int]:
    """The sheets on which a part of the nav (a section, or a page outside any section) begins."""
    top_level = []
    for item in load_config(str(ROOT / "mkdocs.yml")).nav:
        if isinstance(item, str):
            top_level.append(PRINTED_TITLE[item])
        else:
            ((title, value),) = item.items()
            top_level.append(title if isinstance(value, list) else PRINTED_TITLE.get(value, title))
    starts = set()
    for item in pdf.outline:
        if not isinstance(item, list) and squash(item.title) in top_level + ["Table of Contents"]:
            starts.add(pdf.get_destination_page_number(item) + 1)
    return starts


def contents_pages(pdf) -> list[int]:
    """The sheets between the cover and the home page: the printed table of contents."""
    return list(range(2, dest_page(pdf, "index")))


def test_contents_list_every_entry_and_link_to_its_page(pdf, sheets):
    entries = []
    for n in contents_pages(pdf):
        for name, (x0, y0, x1, y1) in internal_links(pdf, n):
            entries.append((name, sheets.text_within(n - 1, x0, y0 + 1, x1, y1 - 1)))
    assert len(entries) == len(nav_entries()), [e[1] for e in entries]
    for name, title in entries:
        assert title.strip(), f"an empty contents entry links to {name}"
        assert dest_page(pdf, name) > contents_pages(pdf)[-1], f"{title!r} links to a page of the contents"


def bookmark_pages(pdf, outline=None) -> dict[str, set[int]]:
    """Each bookmark's title -> the sheets (1-based) bookmarks of that title point to."""
    out: dict[str, set[int]] = {}
    for item in pdf.outline if outline is None else outline:
        if isinstance(item, list):
            for title, pages in bookmark_pages(pdf, item).items():
                out.setdefault(title, set()).update(pages)
        else:
            out.setdefault(squash(item.title), set()).add(pdf.get_destination_page_number(item) + 1)
    return out


def test_each_contents_entry_shows_the_page_its_bookmark_points_to(pdf, sheets):
    # The entries follow the nav; the number written at an entry's right after the print (in the
    # link's last 3em, left free by scripts/contents-page-numbers.js: site/pdf_contents.py) is the
    # sheet its link lands on and the sheet Chromium's bookmark of that page or section points to.
    marks = bookmark_pages(pdf)
    entries = [(n, link) for n in contents_pages(pdf) for link in internal_links(pdf, n)]
    assert len(entries) == len(nav_entries())
    for (n, (name, (x0, y0, x1, y1))), (_, title) in zip(entries, nav_entries(), strict=True):
        entry = sheets.text_within(n - 1, x0, y0 + 1, x1, y1 - 1)
        printed = sheets.text_within(n - 1, x1 - 40, y0 + 1, x1, y1 - 1)
        assert printed.isdigit(), f"no page number in the contents entry {entry!r}"
        assert int(printed) == dest_page(pdf, name), entry
        assert int(printed) in marks.get(title, set()), (
            f"{entry!r}: the bookmarks of {title!r} point to {marks.get(title)}"
        )


def test_no_sheet_is_near_empty(pdf, sheets):
    """No sheet holds only a part's title, and none is more than half blank, except the last one
    before a new part (parts start on a new sheet) and the last sheet of the book. "Blank" is
    measured from the lowest line of text on the sheet down to the bottom margin."""
    starts = part_starts(pdf)
    assert len(starts) >= 6, starts  # contents, home, five parts, summary, about: the outline was read
    near_empty = []
    for n in range(2, len(pdf.pages)):  # the cover (1) is meant to be mostly empty
        if n + 1 in starts:
            continue
        fill = filled(sheets, n - 1)
        if fill < 0.5:
            near_empty.append(f"page {n}: {fill:.0%} filled: {sheets.text(n - 1)[:80]}")
    assert near_empty == []
    titles = [title for _, title in nav_entries()]
    for index in range(1, len(sheets)):
        body = re.sub(r" \d+ / \d+$", "", sheets.text(index))
        assert body not in titles, f"a sheet holds only {body!r}"


def test_headings_print_in_body_text_colour(printed_page):
    styles = printed_page.evaluate(
        """() => ['.print-page-toc-title', '#print-site-page section.md-section > h1', '#print-site-page h1',
                  '#print-site-page h2', '#print-site-page h3', '#print-site-page p']
           .map(s => { const c = getComputedStyle(document.querySelector(s)); return [s, c.color, +c.fontWeight] })"""
    )
    body = styles[-1][1]
    for selector, colour, weight in styles[:-1]:
        assert colour == body, f"{selector} prints in {colour}, body text in {body}"
        assert weight >= 600, f"{selector} prints at weight {weight}"


def test_metadata_names_the_chapter_not_the_print_page(pdf):
    config = load_config(str(ROOT / "mkdocs.yml"))
    info = pdf.metadata
    assert info.title == config["site_name"]
    assert info.author == config["site_author"] and info.author
    assert info.subject == config["site_description"]
    assert "autograd" in info["/Keywords"] and "backpropagation" in info["/Keywords"]
    # Written as an update that leaves Chromium's outline, tags and links in place.
    assert len(list(bookmarks(pdf.outline))) > 2 * len(nav_entries())
    root = pdf.trailer["/Root"]
    assert "/StructTreeRoot" in root and root["/MarkInfo"]["/Marked"]


def print_page_headings(built_site) -> dict[str, str]:
    """Link target id -> the heading text it stands for, from the print page."""
    html = (built_site / "print_page.html").read_text()
    out = {m["id"]: m["text"] for m in re.finditer(r'<h[1-6] id="(?P<id>[^"]+)">(?P<text>[^<]+)', html)}
    for m in re.finditer(r'<section class="print-page" id="(?P<id>[^"]+)"[^>]*><h1 id="[^"]+">(?P<text>[^<]+)', html):
        out[m["id"]] = m["text"]
    return {k: squash(v) for k, v in out.items()}


def test_links_between_pages_land_on_the_page_of_their_target(pdf, sheets, built_site):
    headings = print_page_headings(built_site)
    checked, wrong = 0, []
    for n in range(contents_pages(pdf)[-1] + 1, len(pdf.pages) + 1):
        for name, _ in internal_links(pdf, n):
            if name not in headings:
                continue  # a tab label or a line number: no heading to look for
            target = dest_page(pdf, name)
            if headings[name][:40] not in sheets.text(target - 1):
                wrong.append(f"page {n}: link to {name} lands on page {target}")
            checked += 1
    assert checked > 50 and wrong == []


def test_line_numbers_print_as_plain_numbers(pdf):
    # On the site a listing's line number links to its own line; on paper that leads nowhere
    # (scripts/unlink-line-numbers.js).
    links = [name for n in range(1, len(pdf.pages) + 1) for name, _ in internal_links(pdf, n)]
    assert len(links) > 100
    assert [name for name in links if "__codelineno" in name] == []
    assert [name for name in pdf.named_destinations if "__codelineno" in name] == []


LISTING = """<div id="print-site-page">
  <p>See <a href="#p-__codelineno-0-2">line 2</a>.</p>
  <table><tr><td class="linenos"><div class="linenodiv"><pre><span class="normal"><a href="#p-__codelineno-0-1">1</a></span>
<span class="normal"><a href="#p-__codelineno-0-2">2</a></span></pre></div></td>
  <td class="code"><pre><span></span><code><a id="p-__codelineno-0-1" name="p-__codelineno-0-1"></a>x = 1
<a id="p-__codelineno-0-2" name="p-__codelineno-0-2"></a>y = 2
</code></pre></td></tr></table>
  <pre><code><a id="q-__codelineno-1-1" name="q-__codelineno-1-1" href="#q-__codelineno-1-1"></a>z = 3</code></pre>
</div>"""


def test_unlinking_line_numbers_keeps_the_numbers_and_the_links_the_prose_makes(browser):
    from snippet_runner.site import pdf as printer

    page = browser.new_page()
    page.set_content(LISTING)
    assert page.evaluate(printer.script("unlink-line-numbers")) == [3, 2]
    assert page.evaluate("() => document.querySelector('.linenodiv').textContent") == "1\n2"
    assert page.evaluate("() => [...document.querySelectorAll('a')].map(a => a.outerHTML)") == [
        '<a href="#p-__codelineno-0-2">line 2</a>',
        '<a id="p-__codelineno-0-2" name="p-__codelineno-0-2"></a>',
    ]
    page.close()


def test_links_to_notebook_pages_stay_inside_the_pdf(pdf):
    index = dest_page(pdf, "exercises-index")
    names = {name for name, _ in internal_links(pdf, index) + internal_links(pdf, index + 1)}
    for n in range(1, 7):
        assert any(name.startswith(f"exercises-exercise_{n}_") for name in names), n
    uris = [
        str(a.get_object()["/A"].get("/URI"))
        for page in pdf.pages
        for a in page.get("/Annots") or []
        if "/A" in a.get_object()
    ]
    assert not [u for u in uris if u.startswith("file:") or u.endswith(".ipynb")], uris
