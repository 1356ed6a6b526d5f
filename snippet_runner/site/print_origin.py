"""The printing browser sees one folder, the built site, and nothing else (decision 0007): a page of the site is a
stranger's pull request, and its scripts run while the PDF is printed.

The site is served from a made-up origin (:data:`ORIGIN`) by Playwright's documented request routing
(``BrowserContext.route``): a request to it is answered with a file inside the site folder (resolved, so a symlink
cannot lead out), any other request of any page, frame or worker is refused and noted. A page served over https cannot
load ``file://`` at all, as one opened from disk could (an ``<iframe src="../.git/config">`` printed the build's CI
token). What routing does not see is cut off by Chromium's own flags (:data:`NO_NETWORK`): every host name, IP literals
too, resolves to nothing, so no WebSocket or WebRTC TURN connection reaches a host (Playwright's ``route_web_socket``
would need Playwright 1.48), and WebRTC sends no UDP of its own. Service workers are blocked, so none answers in the
router's place.

No loopback server: any local process could read the site through it while it runs, and the page's own origin would be
127.0.0.1, beside the machine's other local services.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Route

ORIGIN = "https://site.invalid"  # .invalid never resolves (RFC 2606); https: a secure context, as on a real host

NO_NETWORK = (
    "--host-resolver-rules=MAP * ~NOTFOUND",  # every host, IP literals included, is not found
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",  # WebRTC: no UDP, and no proxy to use
)


def url(site: Path, file: Path) -> str:
    """The address of ``file`` (inside ``site``) in the browser."""
    return f"{ORIGIN}/{file.resolve().relative_to(site.resolve()).as_posix()}"


def context(browser: Browser, site: Path, refused: list[str], **options) -> BrowserContext:
    """A browser context that reads ``site`` only; each URL it refused is appended to ``refused``."""
    root = site.resolve()

    def answer(route: Route) -> None:
        parts = urlsplit(route.request.url)
        if f"{parts.scheme}://{parts.netloc}" == ORIGIN:
            file = (root / unquote(parts.path).lstrip("/")).resolve()
            if file.is_relative_to(root):
                return route.fulfill(path=file) if file.is_file() else route.fulfill(status=404)
        refused.append(route.request.url)
        route.abort("blockedbyclient")

    made = browser.new_context(service_workers="block", **options)
    made.route("**/*", answer)
    return made
