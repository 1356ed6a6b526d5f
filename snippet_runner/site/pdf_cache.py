"""Reuse the printed PDF, or the printed parts of it, when nothing they print changed.

**The PDF.** Printing the chapter in Chromium is the most expensive step of ``make site`` (about
ten seconds), and most builds change nothing it prints. :func:`pdf_key` hashes everything the
printed bytes depend on: the print page, every local file it loads (the site's CSS, scripts, fonts
and pictures), the Chromium version, and the code that prints it (``pdf.py``, ``chromium.py``,
the code that cuts it into parts and joins them, and the Playwright, pypdf and pikepdf versions), plus
``SOURCE_DATE_EPOCH`` when it is set, since dates are printed into the file. Contents only, never
timestamps. The PDF is kept in the cache under that key and copied into the new site when the key
is found again.

**Its parts.** When the PDF must be made again, each part of it (``pdf_parts.py``) is looked up
the same way, by :func:`part_key`: its own print page and the files it loads, under the same
Chromium and printing code (:func:`printing_key`, computed once for all parts). ``pdf_book.py``
prints only the parts not found and joins them with the others.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

from snippet_runner.site import chromium
from snippet_runner.files import hash_files, write_atomic
from snippet_runner.machine import pinned

# A file the page loads: a src, or the href of a stylesheet or an SVG image, never a link's (<a href>):
# every page's navigation links every other page, and what a linked page says is not printed.
_REFERENCE = re.compile(rb"""<(?!a\b)[a-z][^>]*?\s(?:src|href|xlink:href)\s*=\s*["']([^"'#?]+)""", re.I)
KEEP = 3  # PDFs kept in the cache: enough to switch between a few branches without reprinting


_PRINTING = ("pdf.py", "chromium.py")  # the code that prints a page
_JOINING = ("pdf_parts.py", "pdf_join.py", "pdf_book.py")  # the code that makes one PDF of the parts


def pdf_key(print_page: Path, site: Path, printing: str) -> str:
    """The whole PDF's key: its print page, printed (``printing``: :func:`printing_key`) and joined
    as the code here does it."""
    here = Path(__file__).parent
    digest = hashlib.sha256(printing.encode())
    hash_files(digest, [here / name for name in _JOINING], here)
    digest.update(pinned(("pikepdf",)).encode())
    return part_key(digest.hexdigest(), print_page.read_bytes(), print_page.parent, site)


def printing_key(site: Path, chromium_binary: str) -> str:
    """What every print depends on besides its page: the site's assets, Chromium, the code."""
    site = site.resolve()
    digest = hashlib.sha256()
    hash_files(digest, sorted(_files_under(site / "assets")), site)
    digest.update(chromium.version(chromium_binary).encode())
    here = Path(__file__).parent
    hash_files(digest, [here / name for name in _PRINTING], here)
    digest.update(pinned(("playwright", "pypdf")).encode())
    digest.update(os.environ.get("SOURCE_DATE_EPOCH", "").encode())
    return digest.hexdigest()


def part_key(printing: str, page: bytes, folder: Path, site: Path) -> str:
    """A page's print, by ``printing`` (:func:`printing_key`), the page and the local files it loads
    (``page`` would be a file in ``folder``), but for those under ``assets/``: ``printing`` holds
    every one of those already, and each part would hash them again."""
    site = site.resolve()
    digest = hashlib.sha256(printing.encode())
    digest.update(page)
    own = [path for path in _local_references(page, folder, site) if not path.is_relative_to(site / "assets")]
    hash_files(digest, sorted(own), site)
    return digest.hexdigest()


def reuse_pdf(cache_dir: Path, key: str, target: Path) -> bool:
    """Copy the PDF printed under ``key`` to ``target``, if there is one."""
    cached = cache_dir / f"{key}.pdf"
    if not cached.is_file():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached, target)
    return True


def keep_pdf(cache_dir: Path, key: str, printed: Path) -> Path:
    """Store a freshly printed PDF under ``key`` (atomically), keeping the newest few."""
    stored = cache_dir / f"{key}.pdf"
    write_atomic(stored, printed.read_bytes())
    for old in sorted(cache_dir.glob("*.pdf"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP:]:
        old.unlink(missing_ok=True)
    return stored


def _local_references(page: bytes, folder: Path, site: Path) -> set[Path]:
    found = set()
    for match in _REFERENCE.finditer(page):
        url = match.group(1).decode("utf-8", "replace")
        if urlsplit(url).scheme or url.startswith("//"):
            continue
        path = (folder / unquote(url)).resolve()
        if path.is_file() and path.is_relative_to(site.resolve()):
            found.add(path)
    return found


def _files_under(folder: Path) -> set[Path]:
    return {p.resolve() for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else set()

