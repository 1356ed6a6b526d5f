"""A MkDocs plugin (``print-page-ids`` in mkdocs.yml): make every id on the print page unique, so each of its
same-page links lands where it should, on the page and in the PDF printed from it.

mkdocs-print-site-plugin puts every page into one ``print_page.html`` under a ``<section
class="print-page" id="<page key>">`` and rewrites every same-page link ``href="#x"`` inside it to
``#<page key>-x``, but it renames the target ids only on headings, list items and footnote marks
(``update_anchor_ids`` in its urls.py, 2.9). Other ids keep their names, so they repeat from page to
page and the rewritten links point nowhere. Measured on this chapter: 1,173 broken links to the
code line anchors ``__codelineno-<block>-<line>`` that pymdownx.highlight writes (``anchor_linenums``),
and mkdocs-jupyter's ``cell-<n>`` copy buffers repeated on each notebook.

After print-site has written the page (this plugin's step runs after every other plugin's), each id inside a page's
section that is repeated on the print page, or that a rewritten link there points to, gets the same
prefix its links got, on its ``id`` and on an ``<a name>`` of the same value. Nothing else changes.
We edit the written file with regular expressions rather than an HTML parser, like print-site
itself, so the rest of its bytes stay exactly as the plugin wrote them.

Before print-site combines the pages, the plugin puts a cache in front of its rewriting of each
page's links (``links_cache.py``), so a page that did not change is not rewritten again, and gives
that rewriting a renaming of heading ids that does not backtrack (``anchor_ids.py``).

It also asks the browser not to lay the page out until it has read all of it (``<link rel="expect"
blocking="render">`` on a mark at the end of the body, :func:`render_when_parsed`). A browser lays
a long page out again and again while it is still reading it, to show the first screen early; for
the print page, 1.7 MB read from disk, that first screen is of no use: it is printed, or read from
the top once it is all there. The five layouts it skips cost 0.2 to 0.3 s of every PDF print.

Last, it gives Material's scripts the print page's real base. print-site renders the page with a
``base`` of ``/`` in Material's ``__config`` (every other page gets the relative ``.``), so, opened
from disk, the page asked for ``file:///search/search_index.js``: the search failed, and the error
stopped Material's palette toggle. The print page lies at the site's root, so its base is ``.``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin, event_priority

from snippet_runner.plugins.print_page import anchor_ids
from snippet_runner.plugins.print_page.links_cache import fix_ahead, remember_fixed_links
from snippet_runner.site import early_print

log = logging.getLogger("mkdocs.plugins.print_page")

_PAGE_SECTION = re.compile(r'<section class="print-page" id="([^"]+)"')
_ID = re.compile(r'(\sid=")([^"]+)(")')
_NAME = re.compile(r'(<a\b[^>]*?\sname=")([^"]+)(")')
_HREF = re.compile(r'\shref="#([^"]+)"')


class PrintPageConfig(Config):
    # print-site's rewritten links, page by page (links_cache.py); relative to mkdocs.yml
    cache_dir = c.Type(str, default=".cache/print-page")


class PrintPagePlugin(BasePlugin[PrintPageConfig]):
    """``print-page-ids`` in mkdocs.yml. Runs after print-site has written the print page, whatever the order of
    the plugins list, because its post-build step has the lowest priority."""

    def on_config(self, config):
        anchor_ids.use()  # print-site's renaming of heading ids, without its backtracking
        remember_fixed_links(Path(config.config_file_path).parent / self.config.cache_dir)
        return config

    @event_priority(-100)
    def on_page_content(self, html, *, page, config, files):
        """After print-site has kept the page's HTML: its links rewritten for the print page now,
        beside the snippets a cold build still runs, not after the last page (links_cache.py)."""
        fix_ahead(config, page)
        return html

    @event_priority(-100)
    def on_post_build(self, *, config, **kwargs) -> None:
        fix_print_page(config)
        # The print page is final: `make site` starts printing the PDF now, while the post-build
        # steps that come after this one (priority below -100) and MkDocs' end of the build run.
        early_print.print_page_written(config.site_dir)


def fix_print_page(config) -> None:
    plugin = config.plugins.get("print-site")
    if plugin is None or not plugin.config.get("enabled", True):
        return
    basename = plugin.config.get("print_page_basename", "print_page")
    path = next(
        (
            p
            for p in (Path(config.site_dir) / f"{basename}.html", Path(config.site_dir) / basename / "index.html")
            if p.is_file()
        ),
        None,
    )
    if path is None:
        return
    html = path.read_text(encoding="utf-8")
    fixed, renamed = unique_ids(html)
    fixed = render_when_parsed(fixed)
    fixed = relative_base(fixed)
    if fixed != html:
        path.write_text(fixed, encoding="utf-8")
    if renamed:
        log.info(f"print page: {renamed} repeated or unlinked ids given their page's prefix")


END_MARK = "print-site-end"  # the id of the empty element the browser waits for before it lays the page out
RENDER_BLOCKING = f'<link rel="expect" href="#{END_MARK}" blocking="render">'


def render_when_parsed(html: str) -> str:
    """The page with a render-blocking link to a mark at the end of its body (once only)."""
    if RENDER_BLOCKING in html or "</head>" not in html or "</body>" not in html:
        return html
    head, _, rest = html.partition("</head>")
    body, _, tail = rest.rpartition("</body>")
    return f'{head}{RENDER_BLOCKING}\n</head>{body}<div id="{END_MARK}"></div>\n</body>{tail}'


_ROOT_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base": )"/"')


def relative_base(html: str) -> str:
    """The page with the base in Material's ``__config`` made relative (``.``) where it was ``/``."""
    return _ROOT_BASE.sub(r'\1"."', html, count=1)


def unique_ids(html: str) -> tuple[str, int]:
    """The print page with the ids described above renamed, and how many were renamed."""
    counts = Counter(m.group(2) for m in _ID.finditer(html))
    linked = {m.group(1) for m in _HREF.finditer(html)}
    starts = list(_PAGE_SECTION.finditer(html))
    out, done, renamed = [], 0, 0
    for i, start in enumerate(starts):
        key = start.group(1)
        end = starts[i + 1].start() if i + 1 < len(starts) else len(html)
        out.append(html[done : start.end()])
        body = html[start.end() : end]

        here: set[str] = set()

        def rename(m: re.Match, key: str = key, here: set[str] = here) -> str:
            value = m.group(2)
            if value.startswith(f"{key}-") or not (counts[value] > 1 or f"{key}-{value}" in linked):
                return m.group(0)
            here.add(value)
            return f"{m.group(1)}{key}-{value}{m.group(3)}"

        body = _ID.sub(rename, body)
        body = _NAME.sub(
            functools.partial(_prefixed_if_here, key=key, here=here),
            body,
        )
        renamed += len(here)
        out.append(body)
        done = end
    out.append(html[done:])
    return "".join(out), renamed


def _prefixed_if_here(m: re.Match[str], *, key: str, here: set[str]) -> str:
    """A ``name=`` anchor of this page, given the page's prefix; another page's, as it was."""
    return f"{m.group(1)}{key}-{m.group(2)}{m.group(3)}" if m.group(2) in here else m.group(0)
