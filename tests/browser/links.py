"""Every reference in the built site, resolved the way a browser would, from disk and over http.

``references(site)`` lists each link, anchor and asset reference in every built HTML file: ``href``,
``src``, ``srcset``, ``data``, ``poster``, ``action`` and SVG ``xlink:href``, parsed with
BeautifulSoup (a dependency of nbconvert, already installed). ``problems(site)`` resolves them:

- from ``file://``, a reference must name a file inside the site: a root-absolute path ("/x") points
  at the root of the disk, and a folder ("x/") shows a listing, so both count as broken;
- over http, a folder would serve its ``index.html``, but the site uses plain ``.html`` URLs, so
  the same rule holds, and a root-absolute path must also name a file;
- a fragment must name an ``id`` (or an ``<a name>``) in the target page; ``#`` alone is the top;
- an external link may not point at this machine (``localhost``, ``127.0.0.1``...) or at ``file:``.

What we looked at first: LinkChecker (PyPI ``linkchecker`` 10.6, anchors through its AnchorCheck
plugin) crawls from start URLs, and pytest-check-links (0.10) checks the links of the files it is
given. Neither models the difference between a link that works over http and one that also works
from file:// (root-absolute paths, folder URLs), and neither reads the PDF, which test_links.py
checks too. So the rules above are written out here, on BeautifulSoup and urllib.parse, in about
a hundred lines, with tests that feed them broken links.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

URL_ATTRIBUTES = ("href", "src", "data", "poster", "action", "xlink:href")
LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]"}
IGNORED_SCHEMES = {"mailto", "tel", "data", "javascript", "blob", "about"}


@dataclass(frozen=True)
class Reference:
    page: str  # the HTML file, relative to the site
    tag: str
    url: str


def html_files(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


@functools.cache
def _soup(path: Path):
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    """The fragments a page answers to: every id, and every <a name>."""
    soup = _soup(path)
    return frozenset(el["id"] for el in soup.find_all(id=True)) | {
        a["name"] for a in soup.find_all("a", attrs={"name": True})
    }


def references(site: Path) -> list[Reference]:
    out = []
    for page in html_files(site):
        soup = _soup(site / page)
        for el in soup.find_all(True):
            for attribute in URL_ATTRIBUTES:
                if el.has_attr(attribute) and el.name not in ("input", "button"):  # input/button[action] is no URL
                    out.append(Reference(page, el.name, el[attribute].strip()))
            if el.has_attr("srcset"):
                out += [Reference(page, el.name, part.split()[0]) for part in el["srcset"].split(",") if part.strip()]
    return out


def resolve(site: Path, ref: Reference) -> tuple[str | None, str, str | None]:
    """(target path relative to the site, fragment, problem) for a local reference; (None, "", problem
    or None) for an external one."""
    parts = urlsplit(ref.url)
    if parts.scheme in IGNORED_SCHEMES:
        return None, "", None
    if parts.scheme in ("http", "https") or ref.url.startswith("//"):
        host = (parts.hostname or "").lower()
        return None, "", (f"points at this machine ({host})" if host in LOCAL_HOSTS else None)
    if parts.scheme:
        return None, "", f"a {parts.scheme}: URL"
    if parts.path.startswith("/"):
        return None, "", "root-absolute: resolves on a server's root, never from file://"
    base = posixpath.dirname(ref.page)
    target = posixpath.normpath(posixpath.join(base, unquote(parts.path))) if parts.path else ref.page
    if target.startswith("../") or target == "..":
        return None, "", "points outside the site"
    if parts.path.endswith("/") or (site / target).is_dir():
        return None, "", "a folder: a listing from file://, not a page"
    if not (site / target).is_file():
        return target, "", "no such file"
    return target, unquote(parts.fragment), None


def problems(site: Path, refs: list[Reference] | None = None) -> list[str]:
    out = []
    for ref in refs if refs is not None else references(site):
        target, fragment, problem = resolve(site, ref)
        if (
            problem is None
            and target
            and fragment
            and target.endswith(".html")
            and fragment not in anchors(site / target)
        ):
            problem = f"no id {fragment!r} in {target}"
        if problem:
            out.append(f"{ref.page}: <{ref.tag}> {ref.url}: {problem}")
    return out


def local_targets(site: Path, refs: list[Reference]) -> set[str]:
    """Every file of the site that some page refers to."""
    return {t for t, _, p in (resolve(site, r) for r in refs) if t and p is None}
