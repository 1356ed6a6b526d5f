"""The printing browser reaches only the site it prints (issue 48): a stranger's page that points at
files of the build machine, at another host or, through a symlink placed in the site, outside it,
prints none of them. One small Material project with such a page is built once (a plain ``mkdocs
build``), a symlink is laid into its site, and pdf.py prints it; each secret below must be missing
from the PDF's text, and the listener on 127.0.0.1 must have heard nothing.

Each case but two put its secret into the PDF, or reached the listener, when the print page was
opened from ``file://`` (checked on the commit before this test): ``fetch`` and ``XMLHttpRequest``
of a ``file://`` URL were refused by Chromium then too, and stay as guards. The listener heard nine
connections then, the image's first. WebSockets and WebRTC (TURN over TCP, STUN over UDP) are tried
too: Playwright's routing does not see them, and without Chromium's flags in print_origin.py the
listener heard STUN's datagrams even with every other request refused.
"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from devtools.scratch import ScratchProject

from .pdf_text import PdfText

CONFIG = """
site_name: hostile
use_directory_urls: false
theme:
  name: material
  font: false
plugins:
  - print-site:
      add_cover_page: false
"""

# the file -> the secret it holds; each read by one way a page can reach a file
SECRETS = {
    "iframe.txt": "IFRAME-SECRET-7f3a",
    "object.txt": "OBJECT-SECRET-91c2",
    "image.svg": "IMAGE-SECRET-5d0e",
    "style.css": "STYLE-SECRET-c4b8",
    "fetched.txt": "FETCH-SECRET-2e61",
    "xhr.txt": "XHR-SECRET-a9d7",
    "linked.svg": "SYMLINK-SECRET-60bf",
}
GIT_SECRET = "GIT-CONFIG-TOKEN-83e5"  # in the project's .git/config, which the print page sits beside
LISTENER_SECRET = "LISTENER-SECRET-4c1d"  # what 127.0.0.1 answers, if asked


def hostile_page(outside: Path, port: int) -> str:
    file = outside.as_uri()
    here = f"http://127.0.0.1:{port}"
    return f"""# Hostile

<iframe src="../.git/config" width="600" height="120"></iframe>
<iframe src="{file}/iframe.txt" width="600" height="60"></iframe>
<iframe src="file:///etc/os-release" width="600" height="120"></iframe>
<object data="{file}/object.txt" type="text/plain" width="600" height="60"></object>
<img src="{file}/image.svg" alt="">
<link rel="stylesheet" href="{file}/style.css">
<img src="linked.svg" alt="">
<iframe src="{here}/iframe" width="600" height="60"></iframe>
<img src="{here}/img" alt="">

<p id="fetched">fetched:</p>

<script>
const show = t => document.getElementById("fetched").append(" " + t);
fetch("{file}/fetched.txt").then(r => r.text()).then(show, () => {{}});
try {{
  const x = new XMLHttpRequest(); x.open("GET", "{file}/xhr.txt", false); x.send(); show(x.responseText);
}} catch (e) {{}}
fetch("{here}/fetch").then(r => r.text()).then(show, () => {{}});
for (const scheme of ["ws", "wss"]) try {{ new WebSocket(`${{scheme}}://127.0.0.1:{port}/socket`) }} catch (e) {{}}
for (const url of ["turn:127.0.0.1:{port}?transport=tcp", "stun:127.0.0.1:{port}"]) try {{
  const peer = new RTCPeerConnection({{iceServers: [{{urls: url, username: "u", credential: "c"}}]}});
  peer.createDataChannel("d"); peer.createOffer().then(offer => peer.setLocalDescription(offer));
}} catch (e) {{}}
try {{ navigator.sendBeacon("{here}/beacon", "x") }} catch (e) {{}}
</script>
"""


def outside_files(outside: Path) -> None:
    outside.mkdir()
    for name, secret in SECRETS.items():
        if name.endswith(".svg"):
            text = f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40"><text x="5" y="30">{secret}</text></svg>'
        elif name.endswith(".css"):
            text = f'body::after {{ content: "{secret}"; }}'
        else:
            text = secret
        (outside / name).write_text(text)


class Listener(socketserver.BaseRequestHandler):
    """Notes every connection (the first bytes sent) and answers it as HTTP, with the secret."""

    heard: list[bytes]

    def handle(self):
        self.request.settimeout(2)
        try:
            self.heard.append(self.request.recv(100))
        except OSError as error:
            self.heard.append(repr(error).encode())
        body = LISTENER_SECRET.encode()
        head = f"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: {len(body)}\r\n\r\n"
        self.request.sendall(head.encode() + body)


@contextmanager
def listening(heard: list[bytes]) -> Iterator[int]:
    """A TCP listener on a port of 127.0.0.1, and a UDP socket on the same port, noting into ``heard``."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), type("Heard", (Listener,), {"heard": heard}))
    port = server.server_address[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    udp.settimeout(0.2)

    def receive():
        while not stop.is_set():
            with suppress(OSError):
                heard.append(udp.recv(100))

    stop = threading.Event()
    threads = [
        threading.Thread(target=server.serve_forever, daemon=True),
        threading.Thread(target=receive, daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield port
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        threads[1].join()
        udp.close()


@pytest.fixture(scope="module")
def printed(tmp_path_factory, chromium_path):
    """(the PDF's text, the paths the listener heard)."""
    from snippet_runner.site import pdf

    tmp = tmp_path_factory.mktemp("hostile")
    outside_files(tmp / "outside")
    heard: list[bytes] = []
    with listening(heard) as port:
        project = ScratchProject(tmp / "project")
        project.write("mkdocs.yml", CONFIG)
        project.write("docs/index.md", "# Home\n\nA page.\n")
        project.write("docs/hostile.md", hostile_page(tmp / "outside", port))
        project.write(".git/config", f'[http]\n\textraheader = "AUTHORIZATION: basic {GIT_SECRET}"\n')
        code, log = project.mkdocs_build()
        assert code == 0, log
        site = project.root / "site"
        (site / "linked.svg").symlink_to(tmp / "outside" / "linked.svg")
        # in a thread of its own: where this worker's session browser (conftest.py) runs, Playwright's
        # sync API refuses to start again in the same thread
        with ThreadPoolExecutor(1) as thread:
            thread.submit(pdf.print_pdf, site / "print_page.html", tmp / "hostile.pdf").result()
        time.sleep(1)  # for a late UDP datagram
    text = PdfText(tmp / "hostile.pdf").all_text()
    assert "Hostile" in text and "fetched:" in text  # the page itself was printed
    return text, heard


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_no_file_outside_the_site_is_printed(printed, name):
    text, _ = printed
    assert SECRETS[name] not in text


def test_the_projects_git_config_beside_the_site_is_not_printed(printed):
    text, _ = printed
    assert GIT_SECRET not in text


def test_the_machines_own_files_are_not_printed(printed):
    text, _ = printed
    release = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
    assert release["PRETTY_NAME"].strip('"') not in text


def test_no_other_host_is_reached(printed):
    text, heard = printed
    assert heard == [] and LISTENER_SECRET not in text
