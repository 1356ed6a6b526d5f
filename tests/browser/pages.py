"""Helpers the browser tests share: what counts as a request that left the site, and when a page
has finished drawing its math and diagrams."""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer
from urllib.parse import urlsplit

from snippet_runner.site.pdf import script

# Makes Material's diagrams inspectable: it draws each Mermaid diagram into a *closed* shadow root,
# which neither Playwright nor page scripts can look into. Test-only; the site itself is unchanged.
OPEN_SHADOW_ROOTS = """
const attach = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) { return attach.call(this, { ...init, mode: "open" }) };
"""


class SiteServer(ThreadingHTTPServer):
    """The test's http.server, quiet when the browser drops a connection mid-answer (it does, on a page
    it leaves): socketserver would print that as a traceback among the test output."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Recorder:
    """Every request a browser context makes, and a verdict on the ones that left the site."""

    def __init__(self, root: str):
        self.root = urlsplit(root)
        self.urls: list[str] = []

    def __call__(self, request) -> None:
        self.urls.append(request.url)

    def foreign(self) -> list[str]:
        """Requests to any other host (or, from file://, anything but local files and inline data)."""
        out = []
        for url in self.urls:
            parts = urlsplit(url)
            if parts.scheme in ("data", "blob", "about"):
                continue
            if self.root.scheme == "file":
                ok = parts.scheme == "file"
            else:
                ok = parts.scheme == self.root.scheme and parts.netloc == self.root.netloc
            if not ok:
                out.append(url)
        return out


def recording_context(browser, site_root: str, **options):
    """A fresh browser context that records every request (``.recorder``), and aborts any to
    another host, so a stray CDN reference fails fast instead of waiting on a network this machine
    may lack. (Playwright routes http(s) requests only; file:// loads are recorded all the same.)"""
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 800}, **options})
    context.add_init_script(OPEN_SHADOW_ROOTS)
    context.recorder = Recorder(site_root)
    context.on("request", context.recorder)
    local = urlsplit(site_root).netloc

    def guard(route):
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            route.abort()

    context.route("**/*", guard)
    context.root = site_root
    return context


def open_page(context, path: str):
    """A new page of ``context`` at ``path`` (relative to the site root), fully rendered."""
    page = context.new_page()
    page.goto(context.root + path, wait_until="load")
    wait_until_rendered(page)
    return page


def wait_until_rendered(page) -> None:
    """Until Material has started, KaTeX has typeset the math and Mermaid has drawn the diagrams
    (the same condition the PDF step waits for)."""
    page.wait_for_function(script("rendered"), timeout=30_000)
