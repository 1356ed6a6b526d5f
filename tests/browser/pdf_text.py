"""The PDF's text layer, for the tests that read it, through PDFium (pypdfium2).

PDFium is Chromium's own PDF engine, so it reads the text of the PDF Chromium printed as a reader's
viewer would. The tests used pypdf's ``extract_text`` before: about 9 s for the chapter's 128
sheets, paid again by every test module in every pytest-xdist worker; PDFium reads them in about
0.3 s. pypdf stays for what it reads quickly: the outline, links, destinations, fonts, metadata.

One :class:`PdfText` per file and process (``read``), each sheet's text read once.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pypdfium2 as pdfium


def squash(s: str) -> str:
    """Every run of whitespace made one space: lines wrap anywhere, so compare without them."""
    return re.sub(r"\s+", " ", s).strip()


class PdfText:
    def __init__(self, path: Path):
        self._doc = pdfium.PdfDocument(str(path))
        self._pages: dict[int, tuple] = {}

    def __len__(self) -> int:
        return len(self._doc)

    def _page(self, index: int):
        if index not in self._pages:
            page = self._doc[index]
            self._pages[index] = (page, page.get_textpage())
        return self._pages[index]

    @functools.cache  # noqa: B019 - one instance per file and process (read() below), kept for the session
    def text(self, index: int) -> str:
        """The text of the sheet at ``index`` (0-based), whitespace squashed."""
        return squash(self._page(index)[1].get_text_range())

    def all_text(self) -> str:
        return " ".join(self.text(i) for i in range(len(self)))

    def text_within(self, index: int, left: float, bottom: float, right: float, top: float) -> str:
        """The text on the sheet inside a rectangle (PDF points from the bottom left)."""
        _, textpage = self._page(index)
        return squash(textpage.get_text_bounded(left=left, bottom=bottom, right=right, top=top))

    def lowest_text(self, index: int, above: float) -> float | None:
        """The bottom of the lowest text on the sheet that lies above ``above`` points, or None."""
        _, textpage = self._page(index)
        bottoms = [textpage.get_rect(i)[1] for i in range(textpage.count_rects())]
        bottoms = [b for b in bottoms if b > above]
        return min(bottoms) if bottoms else None

    def height(self, index: int) -> float:
        return self._page(index)[0].get_height()


@functools.cache
def read(path: Path) -> PdfText:
    return PdfText(path)
