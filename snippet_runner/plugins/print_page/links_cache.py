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
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata
from pathlib import Path

from snippet_runner.files import write_atomic


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

    @functools.wraps(fix)
    def fix_internal_links(page_html, page_url, directory_urls, heading_number):
        parts = (version, page_url, str(directory_urls), str(heading_number), page_html)
        key = hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()
        path = folder / f"{hashlib.blake2b(page_url.encode(), digest_size=10).hexdigest()}.json"
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            if entry.get("key") == key:
                return entry["html"]
        except (OSError, ValueError, AttributeError):
            pass
        html = fix(page_html, page_url, directory_urls=directory_urls, heading_number=heading_number)
        write_atomic(path, json.dumps({"key": key, "html": html}))
        return html

    renderer.fix_internal_links = fix_internal_links
    return True
