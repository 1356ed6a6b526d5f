"""print-site's renaming of heading ids, with the same result, without its regular expression's
backtracking.

print-site (``update_anchor_ids`` in its ``urls.py``, 2.9) gives the ids of a page's headings,
list items and footnote marks its page's prefix. It finds every tag that has an id with the
pattern ``<([^\\s]+).*?id="([^"]*?)".*?>``. Where no ``id="`` follows a ``<`` on the same line, that
pattern fails only after trying every shorter tag name against the whole rest of the line: on
this chapter's pages, whose highlighted listings put dozens of tags on a line, that was about a
third of a second of every cold build, spent on the build's one thread while it read the pages
(0.35 s of the 0.47 s print-site's link rewriting took).

:data:`TAG_WITH_ID` is print-site's pattern with a lookahead in front: an ``id="`` further along
the line. Every match of the pattern has one there (neither ``[^\\s]`` nor ``.`` crosses a line
break), so the lookahead never turns away a match, and the matches, and the renaming made from
them, are print-site's own (``tests/builds/test_print_page_ids.py`` compares the two on every
page of the chapter); it only stops the search at once where no match can start.

No setting of print-site turns this renaming off or changes its pattern, so :func:`use` puts this
function in the place of print-site's, for the print-site version it was compared with only.
"""

from __future__ import annotations

import re
from importlib import metadata

CHECKED_WITH = ("2.9",)  # print-site versions whose update_anchor_ids this reproduces
TAG_WITH_ID = re.compile(r'<(?=[^\n]*?id=")([^\s]+).*?id="([^"]*?)".*?>', flags=re.IGNORECASE)
RENAMED = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "sup", "li"})


def update_anchor_ids(page_html: str, page_key: str) -> str:
    """The page with the ids of its headings, list items and footnote marks prefixed by
    ``page_key``, exactly as print-site's function of that name writes it: every copy of a
    matched tag is replaced, one tag after the other, as there."""
    for match in TAG_WITH_ID.finditer(page_html):
        if match.group(1) in RENAMED:
            tag, anchor = match.group(), match.group(2)
            page_html = page_html.replace(tag, tag.replace(anchor, f"{page_key}-{anchor}"))
    return page_html


def use() -> bool:
    """Put :func:`update_anchor_ids` in place of print-site's, if print-site is the version it
    was checked against; True if it did."""
    try:
        from mkdocs_print_site_plugin import urls
    except ImportError:
        return False
    if metadata.version("mkdocs-print-site-plugin") not in CHECKED_WITH or not hasattr(urls, "update_anchor_ids"):
        return False
    urls.update_anchor_ids = update_anchor_ids
    return True
