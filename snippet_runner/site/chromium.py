"""Find the system Chromium and launch it headless through Playwright, with no network of its own.
``playwright install`` downloads a browser, which fails here and CI must not need, so Playwright
gets ``executable_path``: ``$CHROMIUM``, else the first of :data:`CANDIDATES` on PATH (the headless
shell first: Playwright's own ``headless=True`` uses it).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ENV_VAR = "CHROMIUM"
CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
HOW_TO_GET_IT = (
    "install it with `apt-get install -y chromium-headless-shell` (Debian/Ubuntu; or `chromium`), "
    f"or point {ENV_VAR}=/path/to/chromium at a Chromium or Chrome binary"
)

# headless, as root, no GPU, none of Chromium's own traffic: any request is one the page made
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


class ChromiumNotFound(RuntimeError):
    pass


def find() -> str | None:
    """The Chromium binary to use, or None when there is none."""
    if wanted := os.environ.get(ENV_VAR, "").strip():
        return shutil.which(wanted) or (wanted if Path(wanted).is_file() and os.access(wanted, os.X_OK) else None)
    return next(filter(None, map(shutil.which, CANDIDATES)), None)


@functools.cache  # once per process: `make site` asks for it twice (skip.py, pdf_cache.py)
def version(binary: str) -> str:
    """What ``binary --version`` prints: part of the keys that decide whether to build or print again."""
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        return done.stdout.strip() or done.stderr.strip()
    except (OSError, subprocess.SubprocessError) as error:
        return f"{binary}: {error}"


def missing() -> str:
    """Why no Chromium was found, and how to get one: a sentence for the user."""
    wanted = os.environ.get(ENV_VAR, "").strip()
    where = f"{ENV_VAR}={wanted!r} is not an executable" if wanted else f"no {' / '.join(CANDIDATES)} on PATH"
    return f"Chromium not found ({where}): {HOW_TO_GET_IT}"


@contextmanager
def launch(*flags: str) -> Iterator[Browser]:
    """A headless system Chromium under Playwright (given ``flags`` beyond :data:`FLAGS`), with a
    temporary profile it removes on close."""
    from playwright.sync_api import sync_playwright

    executable = find()
    if executable is None:
        raise ChromiumNotFound(missing())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=[*FLAGS, *flags])
        try:
            yield browser
        finally:
            browser.close()
