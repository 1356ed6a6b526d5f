"""The chapter as one PDF (site/pdf/autograd-part2.pdf), read back with pypdf: its size, cover,
bookmarks, page numbers, text (every page, real outputs, expanded answers, rendered math and
diagrams) and fonts. Plus one check in the browser: on the printed page no code is wider than
the paper, so long lines wrap instead of being cut off."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mkdocs.config import load_config
from pypdf import PdfReader
from pypdf.generic import IndirectObject

from .pages import wait_until_rendered

ROOT = Path(__file__).resolve().parents[2]
PDF = "pdf/autograd-part2.pdf"  # path_to_pdf in mkdocs.yml

# The print page shows each page under its own first heading. For every page that heading is its
# nav title, except these two: the home page's heading is the chapter title, and the exercises'
# index is listed in the nav without a title of its own.
PRINTED_TITLE = {"index.md": "PyTorch Autograd and Backpropagation, Part 2", "exercises/index.md": "Exercises"}

# Real outputs the PDF must carry, as printed by the snippets (including two tracebacks).
OUTPUTS = [
    "tensor(60.)",
    "tensor([2., 4., 6.])",
    "backward through the graph a second time",
    "grad can be implicitly created only for scalar outputs",
]


@pytest.fixture(scope="module")
def pdf(chromium_path, built_site) -> PdfReader:
    path = built_site / PDF
    assert path.is_file(), f"{PDF} was not written by the build"
    return PdfReader(path)


@pytest.fixture(scope="module")
def text(pdf) -> str:
    """All the PDF's text, with every run of whitespace made one space (lines wrap anywhere)."""
    return squash(" ".join(page.extract_text() for page in pdf.pages))


def squash(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def nav_entries():
    """(kind, printed title) for every section and page in mkdocs.yml's nav, in order."""
    out = []

    def walk(items):
        for item in items:
            if isinstance(item, str):
                out.append(("page", PRINTED_TITLE[item]))
                continue
            (title, value), = item.items()
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
    # 22 pages, 6 notebooks and section title pages print to about 125 A4 pages; far fewer means
    # pages went missing, far more means something is printed once per character or repeated.
    assert 60 <= len(pdf.pages) <= 200, len(pdf.pages)


def test_cover_names_the_title_and_the_torch_that_printed_the_outputs(pdf):
    cover = squash(pdf.pages[0].extract_text())
    assert "PyTorch Autograd and Backpropagation (Part 2)" in cover
    # What index/torch_version.py printed, as approved: the build checks the real run against it.
    torch_line = (ROOT / "snippets" / "index" / "torch_version.out").read_text().splitlines()[0]
    assert torch_line.startswith("PyTorch 2.") and torch_line in cover


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


def test_table_of_contents_lists_every_page(pdf):
    toc = squash(" ".join(pdf.pages[i].extract_text() for i in range(1, 4)))
    assert toc.startswith("Table of Contents")
    for kind, title in nav_entries():
        if kind == "page" and title not in PRINTED_TITLE.values():
            assert title in toc


def test_every_page_is_numbered(pdf):
    total = len(pdf.pages)
    for i in [1, total // 2, total]:
        assert f"{i} / {total}" in squash(pdf.pages[i - 1].extract_text())


def test_every_page_title_and_real_outputs_are_in_the_text(text):
    for _, title in nav_entries():
        assert title in text
    for output in OUTPUTS:
        assert squash(output) in text, output


def test_collapsed_answers_and_solutions_are_printed_open(text):
    # The first interview answer, a ??? block folded on the site.
    answers = (ROOT / "docs" / "interview-questions.md").read_text()
    first_answer = re.search(r'^\?\?\? question .*\n((?:    .*\n)+)', answers, re.M).group(1)
    assert squash(first_answer.split("\n")[0])[:60] in text
    # Exercise 2's solution cell (folded in a <details class="solution">) and what it printed.
    assert "dz/dx from autograd: tensor(60.)" in text


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
    # print.css names DejaVu (fonts-dejavu-core) for text and code, and KaTeX brings its own fonts,
    # so the PDF looks the same on any machine; a third family means some element escaped print.css.
    families = {name.split("+")[-1].split("-")[0] for name in font_names(pdf)}
    assert families <= {"DejaVuSans", "DejaVuSansMono", "KaTeX_Main", "KaTeX_Math", "KaTeX_Size1", "KaTeX_Size2", "KaTeX_Size3", "KaTeX_Size4", "KaTeX_AMS"}, families


def test_no_code_is_wider_than_the_paper(browser, built_site):
    page = browser.new_page(viewport={"width": 690, "height": 1000})  # A4 less pdf.py's margins, at 96 dpi
    page.goto((built_site / "print_page.html").as_uri())
    wait_until_rendered(page)
    page.emulate_media(media="print")
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('#print-site-page pre')]
            .filter(pre => pre.offsetParent !== null && pre.scrollWidth > pre.clientWidth + 1)
            .map(pre => pre.textContent.slice(0, 60))"""
    )
    page.close()
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


def test_pictures_print_as_text_with_their_real_values(text):
    # Text that only the graphs' SVG carries (node labels, as drawn from the runs), found in the
    # PDF's text layer: the pictures were printed as vectors with real text, not as images.
    for drawn in [
        "MulBackward0 20 AccumulateGrad 60 x = 2 leaf · .grad = 60",  # chain rule: 20 to u's node, 60 at x
        "y = 6 not a leaf · retain_grad() · .grad = 12",  # a retained non-leaf shows its gradient
        "not a leaf · .grad not kept",  # one that did not retain shows none
        "saved self = 2 (freed)",  # what the first backward() frees
        "TBackward0",  # the nn.Linear step
    ]:
        assert drawn in text, drawn
