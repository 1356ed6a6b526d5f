"""No broken link, anchor or asset reference anywhere in the built site or its PDF.

Every HTML file is checked (the reading pages, the notebooks, ``print_page.html``, ``404.html``), by
the rules in links.py: each reference must resolve from file:// and over http. Over http the
targets are also fetched from the test server. The print page's ids are unique, and in the PDF
every internal link lands on a named destination on the page where its heading is printed, and no
link points at this machine.
"""

from __future__ import annotations

import re
import urllib.request
from collections import Counter

import pytest
from pypdf import PdfReader

from . import links
from .pdf_text import read, squash

PDF = "pdf/autograd-part2.pdf"


@pytest.fixture(scope="module")
def refs(built_site):
    return links.references(built_site)


def test_every_reference_in_every_html_file_resolves(built_site, refs):
    pages = {r.page for r in refs}
    assert {"index.html", "404.html", "print_page.html", "exercises/exercise_12_mini_training_loop.html"} <= pages
    assert len(refs) > 4_000, "far fewer references than the site has: the parser is missing some"
    assert links.problems(built_site, refs) == []


def test_every_referenced_file_is_served_over_http(http_root, built_site, refs):
    targets = sorted(links.local_targets(built_site, refs))
    assert len(targets) > 50
    failed = []
    for target in targets:
        try:
            with urllib.request.urlopen(http_root + target, timeout=10) as response:
                if response.status != 200:
                    failed.append(f"{target}: {response.status}")
        except OSError as error:
            failed.append(f"{target}: {error}")
    assert failed == []


def test_the_checker_finds_broken_references(tmp_path):
    """The rules in links.py, on a throwaway site with one reference of each broken kind."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "index.html").write_text("<p id='here'>x</p>")
    (tmp_path / "page.html").write_text(
        """<html><body><h1 id="top">T</h1>
        <a href="#top">ok</a> <a href="sub/index.html#here">ok</a> <a href="https://pytorch.org/">ok</a>
        <a href="#nowhere">1</a> <a href="sub/index.html#gone">2</a> <a href="missing.html">3</a>
        <link href="/assets/x.css"> <a href="sub/">5</a> <a href="http://127.0.0.1:8000/">6</a>
        <img src="../outside.png"> <script src="file:///etc/x.js"></script> <img srcset="a.png 1x, sub/index.html 2x">
        </body></html>"""
    )
    found = links.problems(tmp_path)
    assert len(found) == 9, "\n".join(found)
    for fragment in [
        "#nowhere",
        "#gone",
        "missing.html",
        "/assets/x.css",
        "sub/",
        "127.0.0.1",
        "../outside.png",
        "file:",
        "a.png",
    ]:
        assert any(fragment in line for line in found), fragment


def test_ids_on_the_print_page_are_unique(built_site):
    ids = re.findall(r'\sid="([^"]+)"', (built_site / "print_page.html").read_text(encoding="utf-8"))
    repeated = {i: n for i, n in Counter(ids).items() if n > 1}
    assert len(ids) > 1_000 and repeated == {}


# -- the PDF ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pdf(built_site) -> PdfReader:
    return PdfReader(built_site / PDF)


def pdf_links(pdf: PdfReader):
    """(page index, annotation) for every link annotation in the PDF."""
    for index, page in enumerate(pdf.pages):
        for annotation in page.get("/Annots") or []:
            annotation = annotation.get_object()
            if annotation.get("/Subtype") == "/Link":
                yield index, annotation


def test_no_pdf_link_points_at_this_machine(pdf):
    uris = [str(a["/A"]["/URI"]) for _, a in pdf_links(pdf) if "/A" in a and "/URI" in a["/A"]]
    local = [u for u in uris if re.match(r"(?i)(file:|https?://(localhost|127\.|0\.0\.0\.0|\[::1\]))", u)]
    assert local == []


def test_every_internal_pdf_link_lands_on_its_target(pdf, built_site):
    """Each link to another part of the chapter names a destination that exists, and when that
    destination is a heading (or a page's section), the PDF page it opens shows that heading."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((built_site / "print_page.html").read_text(encoding="utf-8"), "html.parser")
    by_id = {}
    for element in soup.find_all(id=True):
        by_id.setdefault(element["id"], element)  # the first, as soup.find(id=...) would (ids are unique)
    sheets = read(built_site / PDF)
    destinations = pdf.named_destinations
    internal = [(i, a) for i, a in pdf_links(pdf) if "/Dest" in a or ("/A" in a and a["/A"].get("/S") == "/GoTo")]
    assert len(internal) > 100, "the table of contents alone has more links than this"
    missing, astray = [], []
    for index, annotation in internal:
        dest = annotation["/Dest"] if "/Dest" in annotation else annotation["/A"]["/D"]
        name = str(dest).lstrip("/")
        if not isinstance(dest, str):  # an explicit [page /XYZ ...] array: it can only be a valid page
            continue
        if f"/{name}" not in destinations and name not in destinations:
            missing.append(f"page {index + 1}: link to {name}")
            continue
        target = destinations.get(f"/{name}", destinations.get(name))
        page = pdf.get_destination_page_number(target)
        element = by_id.get(name)
        heading = element if element is not None and element.name in ("h1", "h2", "h3", "h4", "h5", "h6") else None
        if heading is None and element is not None and element.name == "section":
            heading = element.find(re.compile("^h[1-6]$"))
        if heading is None:
            continue
        title = squash(heading.get_text(" ").replace("¶", ""))[:40]
        if title not in sheets.text(page):
            astray.append(f"page {index + 1}: link to {name} opens page {page + 1}, which lacks {title!r}")
    assert missing == []
    assert astray == []
