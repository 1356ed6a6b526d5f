"""The 404 page works from disk and from a server: styled, its scripts running, search there, and
nothing it asks for missing, whether it is opened as ``404.html`` or shown by a server in place of
a missing page deep in the site (as GitHub Pages, Netlify or nginx's ``error_page`` do)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler

import pytest

from .pages import SiteServer

HEADER_ORANGE = "rgb(198, 61, 18)"  # #c63d12, docs/assets/contrast.css


@pytest.fixture(scope="module")
def pages_like_server(built_site):
    """The site over http, answering any missing path with 404.html and status 404."""
    not_found = (built_site / "404.html").read_bytes()

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_error(self, code, message=None, explain=None):
            if code != 404:
                return super().send_error(code, message, explain)
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(not_found)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(not_found)

    server = SiteServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(built_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def check_not_found_page(browser, url: str, root: str | None = None) -> None:
    """``root``: the site's root, when ``url`` is a missing page below it (see the note below)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    failed, loaded = [], set()
    page.on("requestfailed", lambda request: failed.append(request.url))

    def on_response(response):
        if response.status >= 400 and response.url != url:
            failed.append(response.url)
        else:
            loaded.add(response.url)

    page.on("response", on_response)
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function("typeof document$ !== 'undefined'", timeout=15_000)  # Material's script ran
        assert page.locator("h1").first.inner_text() == "404 - Not found"
        assert (
            page.evaluate("() => getComputedStyle(document.querySelector('.md-header')).backgroundColor")
            == HEADER_ORANGE
        )
        assert page.locator(".md-nav__link", has_text="The chain rule").count() >= 1
        home = page.get_by_role("link", name="Go to the start of the chapter")
        assert home.evaluate("a => a.href") == (root or url.rsplit("/", 1)[0] + "/") + "index.html"
        page.wait_for_load_state("networkidle")
        if root is not None:
            # Shown for a missing page in a subfolder, the page's assets are found through the <base>
            # its first script adds. Chromium's preload scanner reads the markup ahead of that script
            # and asks for a few of them relative to the subfolder first: those misses are harmless
            # as long as each file then loaded from the root.
            folder = url.rsplit("/", 1)[0] + "/"
            failed = [u for u in failed if not (u.startswith(folder) and root + u[len(folder) :] in loaded)]
        assert failed == []
        home.click()
        page.wait_for_load_state("load")
        assert page.locator("article h1").first.inner_text().rstrip("¶").strip().startswith("PyTorch Autograd")
    finally:
        page.close()


def test_the_404_page_works_from_disk(browser, built_site):
    check_not_found_page(browser, (built_site / "404.html").as_uri())


@pytest.mark.parametrize("path", ["404.html", "no-such-page.html", "exercises/deep/no-such-page.html"])
def test_the_404_page_works_over_http(browser, pages_like_server, path):
    check_not_found_page(browser, pages_like_server + path, root=pages_like_server)
