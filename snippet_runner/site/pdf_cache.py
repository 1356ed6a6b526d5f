"""Reuse the printed PDF when nothing it prints changed: printing is the costliest step of ``make site``.

:func:`pdf_key` hashes, by content, everything the printed bytes depend on: the print page, every
local file it loads, Chromium's version, the code and libraries that print it, and
``SOURCE_DATE_EPOCH``, since dates are printed into the file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

from snippet_runner.files import hash_files, write_atomic
from snippet_runner.machine import pinned
from snippet_runner.site import chromium

# A file the page loads: a src, or the href of a stylesheet or an SVG image, never a link's (<a href>):
# every page's navigation links every other page, and what a linked page says is not printed.
_REFERENCE = re.compile(rb"""<(?!a\b)[a-z][^>]*?\s(?:src|href|xlink:href)\s*=\s*["']([^"'#?]+)""", re.I)
KEEP = 3  # PDFs kept in the cache: enough to switch between a few branches without reprinting
_PRINTING = ("pdf.py", "pdf_contents.py", "chromium.py", "print_origin.py", "scripts/*.js")  # the code that prints it


def pdf_key(print_page: Path, site: Path, chromium_binary: str) -> str:
    """The PDF's key: the print page, the files it loads, Chromium, the printing code and the date."""
    site = site.resolve()
    page = print_page.read_bytes()
    digest = hashlib.sha256(page)
    loaded = {p.resolve() for p in (site / "assets").rglob("*") if p.is_file()}
    for match in _REFERENCE.finditer(page):
        url = match.group(1).decode("utf-8", "replace")
        path = (print_page.parent / unquote(url)).resolve()
        if not (urlsplit(url).scheme or url.startswith("//")) and path.is_file() and path.is_relative_to(site):
            loaded.add(path)
    hash_files(digest, sorted(loaded), site)
    digest.update(chromium.version(chromium_binary).encode())
    here = Path(__file__).parent
    hash_files(digest, sorted(p for pattern in _PRINTING for p in here.glob(pattern)), here)
    digest.update(pinned(("playwright", "pikepdf", "fonttools")).encode())
    digest.update(os.environ.get("SOURCE_DATE_EPOCH", "").encode())
    return digest.hexdigest()


def reuse_pdf(cache_dir: Path, key: str, target: Path) -> bool:
    """Copy the PDF printed under ``key`` to ``target``, if there is one."""
    cached = cache_dir / f"{key}.pdf"
    if not cached.is_file():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached, target)
    return True


def keep_pdf(cache_dir: Path, key: str, printed: Path) -> None:
    """Store a freshly printed PDF under ``key`` (atomically), keeping the newest few."""
    write_atomic(cache_dir / f"{key}.pdf", printed.read_bytes())
    for old in sorted(cache_dir.glob("*.pdf"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP:]:
        old.unlink(missing_ok=True)
