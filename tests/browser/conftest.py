"""Fixtures for the tests that read the built site in a real browser: the system Chromium driven by
Playwright (no browser download), and the site (``built_site``, from tests/conftest.py, built once
per session exactly as `make site` builds it, PDF included) served over http://127.0.0.1.

Without a Chromium these tests FAIL, saying how to get one: `make test` installs it where none is
found (devtools/chromium_install.py), and a skipped browser test would hide a site
that no longer works offline.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler

import pytest

from snippet_runner.site import chromium

from .pages import SiteServer, recording_context, wait_until_rendered


@pytest.fixture(scope="session")
def chromium_path() -> str:
    found = chromium.find()
    if found is None:
        pytest.fail(
            f"{chromium.missing()}. `make test` installs one where it can (devtools/chromium_install.py).",
            pytrace=False,
        )
    return found


@pytest.fixture(scope="session")
def http_root(built_site) -> str:
    """The built site served by Python's http.server on 127.0.0.1, in a thread, for the session."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = SiteServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(built_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser(chromium_path):
    with chromium.launch() as launched:
        yield launched


@pytest.fixture(params=["http", "file"])
def site_root(request, built_site) -> str:
    """Each test that takes this runs twice: over http://127.0.0.1 and straight from disk."""
    if request.param == "http":
        return request.getfixturevalue("http_root")
    return built_site.as_uri() + "/"


@pytest.fixture
def context(browser, site_root):
    """A fresh browser context that records every request, and aborts any to another host, so a
    stray CDN reference fails fast here instead of waiting on a network this machine may lack."""
    ctx = recording_context(browser, site_root)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def printed_page(browser, built_site):
    """The print page in Chromium as it is printed: paper width, print media. Loaded once per worker
    for the tests that read it (test_pdf.py, test_backward_steps.py): it holds every page's math and
    diagrams, the heaviest page of the site to render. The tests only read it."""
    page = browser.new_page(viewport={"width": 690, "height": 1000})  # A4 less pdf.py's margins, at 96 dpi
    page.goto((built_site / "print_page.html").as_uri())
    wait_until_rendered(page)
    page.emulate_media(media="print")
    yield page
    page.close()
