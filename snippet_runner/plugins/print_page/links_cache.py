"""print-site rewrites each page's links for the print page again in every build, changed or not.

``fix_internal_links`` in print-site's ``urls.py`` (2.9) turns a page's links into links inside the
print page and gives its headings' ids the page's prefix: a string in, a string out, about half a
second of regular expressions over the chapter's 34 pages in every ``make site``, though a prose
edit changes one page. :func:`remember_fixed_links` puts a cache in front of it, by content: a
page's result is reused while the page's HTML, its URL, its heading number, the ``use_directory_urls``
setting and print-site's version are what they were. One file per page, replaced when the page
changes, so the cache does not grow with edits.

print-site offers no hook for this, so the function it imported into its renderer is replaced
there; if that name is gone (another print-site version), nothing is replaced and the print page is
built as before.

print-site rewrites the pages' links after the last page is built, on the build's one thread: in a
cold build that was about 0.4 s at the very end, while the snippets' worker ran its last snippets
during the pages' reading, with a core to spare. :func:`fix_ahead` rewrites each page's links as
soon as print-site has kept its HTML, with the very arguments print-site will pass (the page's
number in the navigation, worked out as its renderer works it out), and keeps the result in
memory for the rest of the build. A page print-site would change first (no leading ``h1``, or
tags) is left to it; a result not asked for again is only wasted work.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from importlib import metadata
from pathlib import Path

from snippet_runner.files import write_atomic

_fixed: dict[str, str] = {}  # this build's rewritten pages, by key: fix_ahead's, for print-site


def remember_fixed_links(folder: Path) -> bool:
    """Cache print-site's ``fix_internal_links`` in ``folder``; False if print-site has none to cache."""
    try:
        from mkdocs_print_site_plugin import renderer
    except ImportError:
        return False
    fix = getattr(renderer, "fix_internal_links", None)
    if fix is None:
        return False
    fix = getattr(fix, "__wrapped__", fix)  # a rebuild of `mkdocs serve` installs it again
    version = metadata.version("mkdocs-print-site-plugin")

    _fixed.clear()  # a new build

    @functools.wraps(fix)
    def fix_internal_links(page_html, page_url, directory_urls, heading_number):
        parts = (version, page_url, str(directory_urls), str(heading_number), page_html)
        key = hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()
        if key in _fixed:
            return _fixed[key]
        path = folder / f"{hashlib.blake2b(page_url.encode(), digest_size=10).hexdigest()}.json"
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry.get("key") == key:
                _fixed[key] = entry["html"]
                return entry["html"]
        except (OSError, ValueError, AttributeError):
            pass
        html = fix(page_html, page_url, directory_urls=directory_urls, heading_number=heading_number)
        write_atomic(path, json.dumps({"key": key, "html": html}))
        _fixed[key] = html
        return html

    renderer.fix_internal_links = fix_internal_links
    return True


def fix_ahead(config, page) -> bool:
    """Rewrite ``page``'s links for the print page now, as print-site will ask for them once every
    page is built; True if it did. Call it once print-site has kept the page's HTML (its
    ``on_page_content``)."""
    from mkdocs_print_site_plugin import renderer as module

    plugin = config.plugins.get("print-site")
    renderer = getattr(plugin, "renderer", None)
    fixed = getattr(module, "fix_internal_links", None)
    if renderer is None or fixed is None or not hasattr(fixed, "__wrapped__") or not plugin.config.get("enabled", True):
        return False  # print-site is off, or its rewriting is not the cached one (remember_fixed_links)
    html = getattr(page, "html", None)
    first = re.search(r"<h[0-6]", html or "")
    if not html or first is None or first.group() != "<h1" or page.meta.get("tags"):
        return False  # print-site adds a heading or the tags first
    number = _number_of(page, [item for item in renderer.items if item is not plugin.print_page])
    if number is None:
        return False
    fixed(html, page.url, directory_urls=config.use_directory_urls, heading_number=number)
    return True


def _number_of(page, items, prefix: str = "") -> str | None:
    """The page's number in the navigation ("2.3"), counted as print-site's renderer counts it."""
    for i, item in enumerate(items, start=1):
        if item is page:
            return f"{prefix}{i}"
        if item.is_section:
            found = _number_of(page, item.children, f"{prefix}{i}.")
            if found is not None:
                return found
    return None
