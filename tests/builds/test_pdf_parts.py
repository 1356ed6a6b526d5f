"""The PDF is printed part by part (snippet_runner/site/pdf_parts.py, pdf_book.py, pdf_join.py): an
edit to one page prints only that page's part again, and the PDF joined from that part and the
cached others is the PDF a print of every part gives: the same page numbers, printed contents,
bookmarks, links and bytes. On a throwaway book of three parts and its contents, whose edit pushes
the last part one sheet on, so that the reused parts must be numbered anew. No test here times
anything: each counts what was printed and compares what was joined.

The real chapter's PDF is checked as a reader sees it in tests/browser/test_pdf.py,
test_pdf_structure.py and test_links.py, and two clean builds' bytes in test_reproducible.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from snippet_runner.site import pdf_parts

BOOK = """
site_name: scratch
theme:
  name: material
  font: false
nav:
  - Home: index.md
  - Basics:
      - First: basics/first.md
      - Second: basics/second.md
  - The end: end.md
plugins:
  - snippet-runner:
      preload: []
  - print-site:
      path_to_pdf: pdf/book.pdf
      add_cover_page: false
"""

FILLER = "".join(
    f"Paragraph {n} of filler, long enough to take a line or two of the sheet it is on.\n\n" for n in range(30)
)
PAGES = {
    "basics/first.md": "# First\n\nSee [the end](../end.md#the-last-words) and [the second](second.md).\n\n" + FILLER,
    "basics/second.md": "# Second\n\n## More\n\nBack to [the first page](first.md).\n\n" + FILLER,
    "end.md": "# The end\n\n## The last words\n\nSee [more](basics/second.md#more).\n",
}
EPOCH = {"SOURCE_DATE_EPOCH": "1700000000"}  # the scratch book has no git history to date it by


def write_book(scratch) -> None:
    scratch.write("mkdocs.yml", BOOK)
    for rel, text in PAGES.items():
        scratch.write(f"docs/{rel}", text)


def printed_parts(log: str) -> list[str]:
    found = re.search(r"parts printed again: (\d+) of (\d+) \(([^)]*)\)", log)
    assert found, log
    return [] if found.group(3) == "none" else found.group(3).split(", ")


def summary(path: Path) -> dict:
    """What a reader sees of the PDF's order: each sheet's footer, the contents' numbers, the
    bookmarks (title, sheet), each named destination's sheet and each link (sheet, target, place)."""
    import pypdfium2 as pdfium

    reader, text = PdfReader(path), pdfium.PdfDocument(str(path))
    sheets = [re.sub(r"\s+", " ", text[i].get_textpage().get_text_range()) for i in range(len(text))]

    def outline(items):
        for item in items:
            if isinstance(item, list):
                yield from outline(item)
            else:
                yield item.title, reader.get_destination_page_number(item) + 1

    links = []
    for n, page in enumerate(reader.pages, 1):
        for annotation in page.get("/Annots") or []:
            annotation = annotation.get_object()
            links.append((n, str(annotation.get("/Dest")), [round(float(v), 1) for v in annotation["/Rect"]]))
    return {
        "footers": [re.findall(r"\d+ / \d+", sheet)[-1:] for sheet in sheets],
        "contents": re.findall(r"\b\d+\b", sheets[0]),
        "bookmarks": list(outline(reader.outline)),
        "destinations": {
            k.removeprefix("/"): reader.get_destination_page_number(v) + 1 for k, v in reader.named_destinations.items()
        },
        "links": links,
    }


def test_an_edit_reprints_only_its_part_and_the_join_equals_a_full_print(scratch, tmp_path):
    write_book(scratch)
    code, log = scratch.build(**EPOCH)
    assert code == 0, log
    assert len(printed_parts(log)) == 4, log  # the contents, Home, Basics, The end
    pdf = scratch.root / "site" / "pdf" / "book.pdf"
    before = summary(pdf)

    scratch.write("docs/basics/second.md", PAGES["basics/second.md"] + FILLER)  # a sheet longer
    code, log = scratch.build(**EPOCH)
    assert code == 0, log
    parts = printed_parts(log)
    assert len(parts) == 1 and parts[0].startswith("section-"), log  # Basics alone, not the contents
    # The three others were copied for the join while MkDocs built (pdf_join.Ahead), with the old
    # Basics, which the join leaves out: the bytes below are still those of a join without copies.
    assert "3 of the parts joined were copied ahead of the join" in log, log
    after = summary(pdf)
    assert after["destinations"]["end"] == before["destinations"]["end"] + 1, "the edit did not move the last part"
    total = len(after["footers"])
    assert after["footers"] == [[f"{n} / {total}"] for n in range(1, total + 1)]

    # The same site printed whole: every part printed, none from a cache, in two Chromiums side by
    # side (pdf_book.LANES), and the same bytes as the build's join of the edited part, printed
    # alone in the one Chromium, with the three others from the first build's cache.
    printed, reused = print_book(scratch, tmp_path / "full.pdf", tmp_path / "empty-cache")
    assert len(printed) == 4 and reused == []
    assert summary(tmp_path / "full.pdf") == after
    assert (tmp_path / "full.pdf").read_bytes() == pdf.read_bytes()
    assert sorted(set(LANES_SEEN)) == ["MainThread", "pdf-lane"], LANES_SEEN
    # A second Chromium that fails to launch: its part is printed in the first, to the same book
    # (two parts taken out of a copy of the cache: one for each lane).
    shutil.copytree(tmp_path / "empty-cache", tmp_path / "cache-2")
    infos = [path for path in sorted((tmp_path / "cache-2" / "parts").glob("*.json")) if '"part"' in path.read_text()]
    for info in infos[:2]:
        info.unlink()
    printed, _ = print_book(scratch, tmp_path / "one.pdf", tmp_path / "cache-2", second_fails=True)
    assert len(printed) == 2 and LANES_SEEN == ["MainThread"] * 2, (printed, LANES_SEEN)
    assert (tmp_path / "one.pdf").read_bytes() == pdf.read_bytes()
    contents = [int(n) for n in after["contents"]]
    assert after["destinations"]["end"] in contents and after["destinations"]["section-2"] in contents

    # The contents' numbered streams are kept beside the part: the same numbers again are not
    # written again (here, writing them would refuse), and the book is the same.
    printed, _ = print_book(scratch, tmp_path / "kept.pdf", tmp_path / "empty-cache", refuse_numbers=True)
    assert printed == [] and (tmp_path / "kept.pdf").read_bytes() == pdf.read_bytes()

    # Where the numbers cannot be written into the printed contents, the contents part is printed
    # again with them in the page, and reads the same.
    kept = list((tmp_path / "empty-cache" / "parts").glob("*.numbered.json"))
    assert len(kept) == 1, kept
    kept[0].unlink()
    printed, _ = print_book(scratch, tmp_path / "again.pdf", tmp_path / "empty-cache", refuse_numbers=True)
    assert printed == ["contents (numbered in the page)"]
    assert summary(tmp_path / "again.pdf") == after


# The site's print page made into a PDF by pdf_book, as the build does, in a process of its own (a
# test process may hold Playwright's loop already); optionally with the contents' numbers refused.
PRINT_BOOK = """
import sys
from pathlib import Path
from snippet_runner.site import chromium, pdf, pdf_book
if sys.argv[3] == "refuse":
    pdf._write_numbers_into_pdf = lambda *args, **kwargs: None
site = Path("site")
import threading
print_part = pdf_book._print_part
def noted(browser, part, *args):
    print("lane:" + threading.current_thread().name, flush=True)
    return print_part(browser, part, *args)
pdf_book._print_part = noted
def fails():
    raise RuntimeError("no second Chromium")
second = fails if sys.argv[4] == "second-fails" else chromium.launch
book = pdf_book.make(
    site / "print_page" / "index.html", site, Path(sys.argv[1]), Path(sys.argv[2]), chromium.find(), 1700000000,
    second=second,
)
print("printed:" + "|".join(book.printed))
print("reused:" + "|".join(book.reused))
"""
LANES_SEEN: list[str] = []  # the thread that printed each part, in the last print_book


def print_book(
    scratch, out: Path, cache: Path, refuse_numbers: bool = False, second_fails: bool = False
) -> tuple[list[str], list[str]]:
    refuse, second = "refuse" if refuse_numbers else "-", "second-fails" if second_fails else "-"
    code, log = scratch.run("-c", PRINT_BOOK, str(out), str(cache), refuse, second)
    assert code == 0, log
    found = dict(line.split(":", 1) for line in log.splitlines() if line.startswith(("printed:", "reused:")))
    LANES_SEEN[:] = [line.removeprefix("lane:") for line in log.splitlines() if line.startswith("lane:")]
    return [n for n in found["printed"].split("|") if n], [n for n in found["reused"].split("|") if n]


# -- cutting the print page into parts, without a browser ----------------------------------------

PRINT_PAGE = """<html><head><title>t</title></head><body><nav>nav</nav>
<div class="md-sidebar md-sidebar--secondary" data-md-type="toc"><div><ul>
  <li><a href="#index">Home</a></li><li><a href="#a">A</a></li><li><a href="#end">End</a></li></ul></div></div>
<div class="md-content">
<div id="print-site-page" class="x">
<section id="print-site-cover-page">cover</section>
<section class="print-page"><div id="print-page-toc"></div></section>
<section class="print-page" id="index"><h1>Home</h1><style>.home{}</style><a href="#b">to B</a></section>
<section class="print-page md-section" id="section-2"><h1>Part</h1>
  <section class="print-page" id="a"><h1>A</h1><style>table{width:max-content}</style></section>
  <section class="print-page" id="b"><h1 id="b-title">B</h1><a href="#b-title">to its title</a></section>
</section>
<section class="print-page" id="end"><h1>End</h1><pre class="mermaid">graph LR; a --> b</pre></section>
<style>#end > h1:before { content: '3 ' }</style>
</div></div><script src="x.js"></script><script src="assets/vendor/mermaid/mermaid.min.js"></script></body></html>"""


def test_each_part_is_the_print_page_with_only_its_sections_and_every_style_in_order():
    parts = pdf_parts.split(PRINT_PAGE)
    assert [part.name for part in parts] == ["contents", "index", "section-2", "end"]
    contents, home, middle, end = (part.html for part in parts)
    assert "cover" in contents and "print-page-toc" in contents and "<h1>Home</h1>" not in contents
    assert "<h1>A</h1>" in middle and ">B</h1>" in middle and "<h1>Home</h1>" not in middle
    # The other parts' styles, where they stood: before the part or after it, then the page's tail.
    assert home.index(".home{}") < home.index("table{width:max-content}") < home.index("content: '3 '")
    assert end.index(".home{}") < end.index("table{") < end.index("<h1>End</h1>")
    for part in parts:
        assert part.html.startswith("<html><head><title>t</title></head><body><nav>nav</nav>")
        assert '<script src="x.js"></script>' in part.html and part.html.endswith("</body></html>")
        assert f'<div data-pdf-part="{part.name}"' in part.html
    assert "data-pdf-part-first" in contents and "data-pdf-part-first" not in home
    # Mermaid's script (3 MB, a second of every print) only where there is a diagram to draw.
    assert [part.name for part in parts if "mermaid.min.js" in part.html] == ["end"]


@pytest.mark.parametrize("page", ["<html><body>no print-site page</body></html>", PRINT_PAGE.replace(' id="end"', "")])
def test_a_page_not_laid_out_as_print_site_does_is_printed_whole(page):
    assert pdf_parts.split(page) is None


def test_the_contents_numbering_kept_beside_the_part_serves_only_the_same_numbers(tmp_path):
    """pdf_join keeps the contents' numbered streams beside the part; a join that needs other numbers
    (a page moved) must not take them."""
    import base64
    import json

    from snippet_runner.site import pdf_join

    part = pdf_join.JoinPart(tmp_path / "key.pdf", contents=["a", "b"])
    record = {"numbers": [3, None], "streams": {"7": base64.b64encode(b"BT (3) Tj ET").decode()}}
    pdf_join.numbered_path(part.path).write_text(json.dumps(record))
    assert pdf_join._kept_numbering(part, [3, None]) == {7: b"BT (3) Tj ET"}
    assert pdf_join._kept_numbering(part, [4, None]) is None
    pdf_join.numbered_path(part.path).write_text("{not json")
    assert pdf_join._kept_numbering(part, [3, None]) is None


def test_the_parts_to_print_are_dealt_into_lanes_of_about_equal_size_the_largest_first():
    from snippet_runner.site import pdf_book

    parts = [pdf_parts.Part(name, "x" * size) for name, size in (("a", 10), ("b", 70), ("c", 30), ("d", 40))]
    missing = [(part, part.name) for part in parts]
    lanes = pdf_book._lanes(missing, 2)
    assert [[key for _, key in lane] for lane in lanes] == [["b", "a"], ["d", "c"]]  # 80 and 70
    assert pdf_book._lanes(missing, 1) == [sorted(missing, key=lambda item: -len(item[0].html))]
