"""Install a Chromium where none is found, for the PDF and the browser tests.

``make site`` and ``make test`` run this first. Playwright and Puppeteer fetch browsers from their
vendors, not a package registry, so the distribution's package it is: on Debian or Ubuntu, as root
or with ``sudo``, the one ``apt-get`` command (with the ``fonts-liberation`` the browser tests were
made with) is printed and run; elsewhere, one message."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from snippet_runner.site import chromium

OS_RELEASE = Path("/etc/os-release")
PACKAGES = {"debian": ("chromium-headless-shell", "fonts-liberation"), "ubuntu": ("chromium", "fonts-liberation")}
ELSEWHERE = (
    "install Google Chrome or Chromium (on macOS: Google Chrome's installer, or `brew install --cask chromium`),"
    f" then point {chromium.ENV_VAR} at its binary, for example"
    f' {chromium.ENV_VAR}="/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" python -m snippet_runner site'
)


def distribution() -> str | None:
    """``"debian"`` or ``"ubuntu"`` (or one derived from them, by ``ID_LIKE``), else None."""
    try:
        text = OS_RELEASE.read_text(encoding="utf-8")
    except OSError:
        return None
    fields = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    ids = " ".join(fields.get(key, "").strip().strip("\"'") for key in ("ID", "ID_LIKE")).split()
    return next((name for name in ("ubuntu", "debian") if name in ids), None)


def plan() -> tuple[list[str] | None, str]:
    """The command that installs a Chromium here (None where this cannot), and what to do by hand."""
    name = distribution()
    if name is None:
        return None, ELSEWHERE
    script = f"apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq {' '.join(PACKAGES[name])}"
    by_hand = f"as root, run: {script}; or point {chromium.ENV_VAR} at a Chromium or Chrome binary"
    as_root = [] if os.geteuid() == 0 else ["sudo"] if shutil.which("sudo") else None
    if shutil.which("apt-get") is None or as_root is None:
        return None, by_hand
    return [*as_root, "sh", "-c", script], by_hand


def ensure() -> str | None:
    """The Chromium binary, installed first if need be and possible; else None, with one message."""
    found = chromium.find()
    if found is not None:
        return found
    if os.environ.get(chromium.ENV_VAR, "").strip():  # the user chose one: never install another behind it
        print(chromium.missing(), file=sys.stderr)
        return None
    install, by_hand = plan()
    if install is None:
        print(f"Chromium not found, and the PDF and the browser tests need one: {by_hand}", file=sys.stderr)
        return None
    print(f"Chromium not found: installing it for the PDF and the browser tests: {shlex.join(install)}", flush=True)
    done = subprocess.run(install, stdin=subprocess.DEVNULL)
    found = chromium.find()
    if done.returncode != 0 or found is None:
        print(
            f"Installing Chromium failed (exit {done.returncode}, see apt-get's messages above): {by_hand}",
            file=sys.stderr,
        )
        return None
    print(f"Chromium installed: {found}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.chromium_install", description=__doc__.splitlines()[0])
    parser.add_argument("--required", action="store_true", help="exit 1 when no Chromium could be had (for a test run)")
    args = parser.parse_args(argv)
    return 1 if ensure() is None and args.required else 0


if __name__ == "__main__":
    sys.exit(main())
