"""``print-page-ids``: make every id on the print page unique, so its same-page links land, on the page and in the PDF.
print-site prefixes a page's same-page links with the page's key but renames only headings', list items' and footnotes'
ids, so line anchors and ``cell-<n>`` repeat. After print-site's ``on_post_build``, each id that repeats or that a
rewritten link points to gets the prefix (regular expressions, as print-site uses, keep its other bytes); Material's
``__config`` base becomes ``.`` so that, opened from disk, search and the palette toggle work; and where notebooks show,
it links their stylesheet, as the snippet-runner plugin does on their own pages. None of print-site's code is replaced
or wrapped.
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter
from pathlib import Path

from mkdocs.plugins import BasePlugin, event_priority

from snippet_runner.markdown.notebooks import STYLESHEET

log = logging.getLogger("mkdocs.plugins.print_page")

NOTEBOOK = 'class="jupyter-wrapper"'  # mkdocs-jupyter's
_PAGE_SECTION = re.compile(r'<section class="print-page" id="([^"]+)"')
_ID = re.compile(r'(\sid=")([^"]+)(")')
_NAME = re.compile(r'(<a\b[^>]*?\sname=")([^"]+)(")')
_HREF = re.compile(r'\shref="#([^"]+)"')


class PrintPagePlugin(BasePlugin):
    """``print-page-ids``: its post-build step has the lowest priority, so it runs after print-site's."""

    @event_priority(-100)
    def on_post_build(self, *, config, **kwargs) -> None:
        plugin = config.plugins.get("print-site")
        if plugin is None or not plugin.config.get("enabled", True):
            return
        basename = plugin.config.get("print_page_basename", "print_page")
        site = Path(config.site_dir)
        path = next((p for p in (site / f"{basename}.html", site / basename / "index.html") if p.is_file()), None)
        if path is None:
            return
        html = path.read_text(encoding="utf-8")
        fixed, renamed = unique_ids(relative_base(html))
        if NOTEBOOK in fixed:  # the notebooks' styles, as their own pages link them (runner's reader_assets.py)
            href = Path(os.path.relpath(site / STYLESHEET, path.parent)).as_posix()
            fixed = fixed.replace("</head>", f'<link rel="stylesheet" href="{href}">\n</head>', 1)
        if fixed != html:
            path.write_text(fixed, encoding="utf-8")
        if renamed:
            log.info(f"print page: {renamed} repeated or unlinked ids given their page's prefix")


_ROOT_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base": )"/"')


def relative_base(html: str) -> str:
    """The page with the base in Material's ``__config`` made relative (``.``) where it was ``/``."""
    return _ROOT_BASE.sub(r'\1"."', html, count=1)


def unique_ids(html: str) -> tuple[str, int]:
    """The print page with the ids described above renamed, and how many were renamed."""
    counts = Counter(m.group(2) for m in _ID.finditer(html))
    linked = {m.group(1) for m in _HREF.finditer(html)}
    parts = _PAGE_SECTION.split(html)  # before the first page, then each page's key and body
    out, renamed = [parts[0]], 0
    for key, body in zip(parts[1::2], parts[2::2], strict=True):
        here: set[str] = set()

        def rename(m: re.Match, key: str = key, here: set[str] = here) -> str:
            value = m.group(2)
            if value.startswith(f"{key}-") or not (counts[value] > 1 or f"{key}-{value}" in linked):
                return m.group(0)
            here.add(value)
            return f"{m.group(1)}{key}-{value}{m.group(3)}"

        def prefixed_if_here(m: re.Match, key: str = key, here: set[str] = here) -> str:  # a name= anchor
            return f"{m.group(1)}{key}-{m.group(2)}{m.group(3)}" if m.group(2) in here else m.group(0)

        out.append(f'<section class="print-page" id="{key}"' + _NAME.sub(prefixed_if_here, _ID.sub(rename, body)))
        renamed += len(here)
    return "".join(out), renamed
