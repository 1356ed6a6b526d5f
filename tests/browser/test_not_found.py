"""The 404 page works from disk and from a server: styled, its scripts running, search there, and
nothing it asks for missing, whether it is opened as ``404.html`` or shown by a server in place of
a missing page deep in the site (as GitHub Pages, Netlify or nginx's ``error_page`` do)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

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

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(built_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def check_not_found_page(browser, url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda response: response.status >= 400 and response.url != url and failed.append(response.url))
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function("typeof document$ !== 'undefined'", timeout=15_000)  # Material's script ran
        assert page.locator("h1").first.inner_text() == "404 - Not found"
        assert page.evaluate("() => getComputedStyle(document.querySelector('.md-header')).backgroundColor") == HEADER_ORANGE
        assert page.locator(".md-nav__link", has_text="The chain rule").count() >= 1
        home = page.get_by_role("link", name="Go to the start of the chapter")
        assert home.evaluate("a => a.href").endswith("/index.html")
        page.wait_for_load_state("networkidle")
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
    check_not_found_page(browser, pages_like_server + path)
