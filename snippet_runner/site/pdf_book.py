"""Make the book's PDF from its parts: reuse each part printed before, print only the others, join.

An edit to one page of the chapter changes one part's print page (``pdf_parts.py``), so only that
part goes through Chromium again; the others come from the cache by content (``pdf_cache.py``),
each with what the join needs to know of it (its stand-in anchors, its contents' targets, its
sheets), kept beside it as JSON. The sheets' numbers come from one more print, also cached, of as
many empty sheets as the book has, with their footers (``pdf.print_page_numbers``), and the join
(``pdf_join.py``) lays them on.

A build that prints several parts (a cold one: every part) prints them in two Chromiums side by
side, one in a thread of its own, each taking about half of the parts by size: by then MkDocs is
done and the build only waits for the PDF, so the second core was idle. A part's print does not
depend on which Chromium made it (same binary, same flags, a page of its own), and the join takes
the parts in the book's order, so the PDF is the same bytes. One part (a prose edit) is printed in
the one Chromium launched ahead. Loading the next part in a second tab of one Chromium while one
prints was tried first: no gain that the shared machine's load did not hide, as a tab's
rendering and printing go through the one browser process.

A print page that is not laid out the way print-site lays it out (no parts found) is printed
whole, as before (``pdf.print_pdf``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from snippet_runner.files import write_atomic
from snippet_runner.site import chromium, pdf, pdf_cache, pdf_join, pdf_parts

KEEP_BUILDS = 3  # parts kept in the cache: those of about the last few builds, as for whole PDFs
LANES = 2  # Chromiums printing parts side by side, where there are as many cores
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
    second: chromium.Launch = chromium.launch,
) -> Book:
    """Write the PDF of ``print_page`` (in ``site``) to ``pdf_path``, printing only the parts not in
    ``cache_dir``; ``printing`` is ``pdf_cache.printing_key``, if the caller has it already, and
    ``launch`` gives the browser (``pdf_process``: one launched while MkDocs built), ``second`` the
    one that prints beside it when there are several parts to print; ``keep`` and ``ahead`` (from
    :func:`copy_ahead`) are ``pdf_join.join``'s."""
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
        lanes = _lanes(missing, LANES if len(missing) > 1 and _cores() > 1 else 1)
        with _Beside(lanes[1:], second, print_page, store, epoch) as beside:
            for part, key in lanes[0]:
                known[key] = _print_part(browser, part, key, print_page, store, epoch)
        known.update(beside.infos)
        for part, key in [item for lane in lanes[1:] for item in lane if item[1] not in beside.infos]:
            # what a second Chromium did not print (it failed to launch, or on that part): printed
            # here, where a part's own failure is raised, or the PDF is made all the same
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


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _lanes(missing: list[tuple[pdf_parts.Part, str]], count: int) -> list[list[tuple[pdf_parts.Part, str]]]:
    """``missing`` dealt into ``count`` lanes of about equal size (a part's HTML stands for its
    print's cost), the largest part first; the first lane is the browser launched ahead's."""
    lanes: list[list[tuple[pdf_parts.Part, str]]] = [[] for _ in range(count)]
    sizes = [0] * count
    for part, key in sorted(missing, key=lambda item: -len(item[0].html)):
        lane = sizes.index(min(sizes))
        lanes[lane].append((part, key))
        sizes[lane] += len(part.html)
    return lanes


class _Beside:
    """The lanes after the first, printed by a thread each, in a Chromium of their own
    (Playwright's synchronous API is one per thread). Leaving the ``with`` waits for them; when the
    first lane failed or was interrupted, they stop after the part they are printing. A lane that
    failed stops there: ``infos`` holds what it printed, and the caller prints the rest."""

    def __init__(self, lanes, launch: chromium.Launch, print_page: Path, store: Path, epoch: int | None):
        self.infos: dict[str, dict] = {}
        self._stop = threading.Event()

        def print_lane(lane) -> None:
            try:
                with launch() as browser:
                    for part, key in lane:
                        if self._stop.is_set():
                            return
                        self.infos[key] = _print_part(browser, part, key, print_page, store, epoch)
            except Exception:  # noqa: BLE001 - its parts are printed again by the caller, which reports a failure
                return

        self._threads = [threading.Thread(target=print_lane, args=(lane,), name="pdf-lane") for lane in lanes if lane]
        for thread in self._threads:
            thread.start()

    def __enter__(self) -> _Beside:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:
            self._stop.set()
        for thread in self._threads:
            thread.join()


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
