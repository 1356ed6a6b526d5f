"""Make the book's PDF from its parts: reuse each part printed before, print only the others, join.

An edit to one page of the chapter changes one part's print page (``pdf_parts.py``), so only that
part goes through Chromium again; the others come from the cache by content (``pdf_cache.py``),
each with what the join needs to know of it (its stand-in anchors, its contents' targets, its
sheets), kept beside it as JSON. The sheets' numbers come from one more print, also cached, of as
many empty sheets as the book has, with their footers (``pdf.print_page_numbers``), and the join
(``pdf_join.py``) lays them on. The parts are printed in one Chromium, one tab after another
(loading the next part in a second tab while one prints was tried: no gain that the shared
machine's load did not hide).

A print page that is not laid out the way print-site lays it out (no parts found) is printed
whole, as before (``pdf.print_pdf``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from snippet_runner.files import write_atomic
from snippet_runner.site import chromium, pdf, pdf_cache, pdf_join, pdf_parts

KEEP_BUILDS = 3  # parts kept in the cache: those of about the last few builds, as for whole PDFs
LAST_BOOK = "last-book.json"  # in the parts' folder: the keys of the parts the last book was joined from


@dataclass
class Book:
    path: Path
    pages: int
    bytes: int
    seconds: float
    printed: list[str] = field(default_factory=list)  # the parts printed, by name, in order
    reused: list[str] = field(default_factory=list)  # the parts that came from the cache
    copied_ahead: int = 0  # the parts the join found copied already (``copy_ahead``)


def make(
    print_page: Path,
    site: Path,
    pdf_path: Path,
    cache_dir: Path,
    binary: str,
    epoch: int | None,
    printing: str | None = None,
    launch: chromium.Launch = chromium.launch,
    keep: list | None = None,
    ahead: pdf_join.Ahead | None = None,
) -> Book:
    """Write the PDF of ``print_page`` (in ``site``) to ``pdf_path``, printing only the parts not in
    ``cache_dir``; ``printing`` is ``pdf_cache.printing_key``, if the caller has it already, and
    ``launch`` gives the browser (``pdf_process``: one launched while MkDocs built); ``keep`` and
    ``ahead`` (from :func:`copy_ahead`) are ``pdf_join.join``'s."""
    started = time.perf_counter()
    parts = pdf_parts.split(print_page.read_text(encoding="utf-8"))
    if parts is None:
        printed = pdf.print_pdf(print_page, pdf_path, epoch)
        return Book(pdf_path, printed.pages, printed.bytes, printed.seconds, ["(whole)"])
    store = cache_dir / "parts"
    store.mkdir(parents=True, exist_ok=True)
    printing = printing or pdf_cache.printing_key(site, binary)
    keys = [pdf_cache.part_key(printing, part.html.encode(), print_page.parent, site) for part in parts]
    known = {key: _read_info(store, key) for key in keys}
    missing = [(part, key) for part, key in zip(parts, keys, strict=True) if known[key] is None]
    book = Book(pdf_path, 0, 0, 0.0, [part.name for part, _ in missing])
    book.reused = [part.name for part, key in zip(parts, keys, strict=True) if known[key] is not None]
    with launch() if missing else contextlib.nullcontext() as browser:
        for part, key in missing:
            known[key] = _print_part(browser, part, key, print_page, store, epoch)
        total = sum(info["pages"] for info in known.values() if info is not None)
        numbers = _numbers(browser, total, printing, store, epoch)
    if numbers is None:  # every part was cached, but not the footers for this count: print those alone
        with launch() as browser:
            numbers = _numbers(browser, total, printing, store, epoch)
    assert numbers is not None
    infos = [known[key] for key in keys]
    joined = [
        pdf_join.JoinPart(store / f"{key}.pdf", set(info["stand_ins"]), info["contents"], _cells(info))
        for key, info in zip(keys, infos, strict=True)
        if info is not None
    ]
    metadata: dict[str, str] = next((info["metadata"] for info in infos if info and any(info["metadata"].values())), {})
    try:
        book.pages = pdf_join.join(joined, numbers, pdf_path, metadata, keep, ahead)
        book.copied_ahead = sum(part.path in ahead.sources for part in joined) if ahead is not None else 0
    except pdf_join.ContentsNotNumbered as unwritten:
        book.pages = _join_with_contents_printed_numbered(
            parts, joined, unwritten.numbers, print_page, numbers, pdf_path, metadata, epoch, launch
        )
        book.printed.append(f"{pdf_parts.CONTENTS} (numbered in the page)")
    write_atomic(store / LAST_BOOK, json.dumps(keys).encode())
    _forget_old(store, keep=len(parts) * KEEP_BUILDS + KEEP_BUILDS)
    book.bytes = pdf_path.stat().st_size
    book.seconds = time.perf_counter() - started
    return book


def copy_ahead(cache_dir: Path) -> pdf_join.Ahead | None:
    """The parts of the last book made with ``cache_dir``, being copied into a new book for the next
    join (``pdf_join.Ahead``): a prose edit changes one part, and the others are these. None if
    no book was made with it yet."""
    store = cache_dir / "parts"
    try:
        keys = json.loads((store / LAST_BOOK).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(keys, list):
        return None
    return pdf_join.Ahead([store / f"{key}.pdf" for key in keys if isinstance(key, str)])


def _join_with_contents_printed_numbered(
    parts: list[pdf_parts.Part],
    joined: list[pdf_join.JoinPart],
    contents: dict[str, int],
    print_page: Path,
    numbers: Path,
    pdf_path: Path,
    metadata: dict[str, str],
    epoch: int | None,
    launch: chromium.Launch,
) -> int:
    """The old way, kept for when the numbers cannot be written into the printed contents: print
    the contents part again with its numbers in the page (their boxes have a fixed width, so the
    part keeps its sheets), and join that print instead. Not cached: it should not happen."""
    index = next(i for i, part in enumerate(joined) if part.contents)
    page = print_page.with_name(f".{print_page.stem}.part-numbered.html")
    printed_to = pdf_path.with_name(f".{pdf_path.stem}.contents-numbered.pdf")
    try:
        page.write_text(parts[index].html, encoding="utf-8")
        with launch() as browser:
            pdf.print_part(browser, page, printed_to, epoch, numbers=contents)
        replaced = [*joined[:index], pdf_join.JoinPart(printed_to, joined[index].stand_ins), *joined[index + 1 :]]
        return pdf_join.join(replaced, numbers, pdf_path, metadata)
    finally:
        page.unlink(missing_ok=True)
        printed_to.unlink(missing_ok=True)


def _print_part(browser, part: pdf_parts.Part, key: str, print_page: Path, store: Path, epoch: int | None) -> dict:
    """Print ``part`` into the cache, from a page written beside the print page (its links to the
    site's assets are relative), and return what the join needs to know of it."""
    page = print_page.with_name(f".{print_page.stem}.part-{key[:16]}.html")
    printed_to = store / f".{key}.{os.getpid()}.pdf"
    try:
        page.write_text(part.html, encoding="utf-8")
        printed = pdf.print_part(browser, page, printed_to, epoch)
    finally:
        page.unlink(missing_ok=True)
    info = {
        "part": part.name,
        "pages": printed.pages,
        "stand_ins": printed.stand_ins,
        "contents": printed.contents,
        "metadata": printed.metadata,
        "cells": pdf_join.table_cells(printed_to),
    }
    os.replace(printed_to, store / f"{key}.pdf")
    write_atomic(store / f"{key}.json", json.dumps(info, indent=1).encode())
    return info


def _numbers(browser, total: int, printing: str, store: Path, epoch: int | None) -> Path | None:
    """The cached PDF of ``total`` sheets of page numbers, printed now if ``browser`` is given."""
    key = hashlib.sha256(f"{printing}\0page numbers\0{total}".encode()).hexdigest()
    path = store / f"numbers-{key}.pdf"
    if path.is_file():
        os.utime(path)
        return path
    if browser is None:
        return None
    printed_to = store / f".numbers-{key}.{os.getpid()}.pdf"
    pdf.print_page_numbers(browser, total, printed_to)
    if epoch is not None:
        pdf.make_reproducible(printed_to, epoch)
    os.replace(printed_to, path)
    return path


def _cells(info: dict) -> list[tuple[int, int]] | None:
    """The part's table cells, as ``_print_part`` recorded them (None from an older record)."""
    cells = info.get("cells")
    return [(int(number), int(generation)) for number, generation in cells] if isinstance(cells, list) else None


def _read_info(store: Path, key: str) -> dict | None:
    """What was recorded of the part printed under ``key``, if its PDF is there too."""
    try:
        info = json.loads((store / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    if not (store / f"{key}.pdf").is_file() or not isinstance(info, dict):
        return None
    for path in (store / f"{key}.pdf", store / f"{key}.json"):
        os.utime(path)  # used now: the newest are kept
    return info


def _forget_old(store: Path, keep: int) -> None:
    files = sorted(store.glob("*.pdf"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[keep:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".json").unlink(missing_ok=True)
        pdf_join.numbered_path(old).unlink(missing_ok=True)
