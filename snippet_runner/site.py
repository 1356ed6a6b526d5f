"""Build the site into a temporary folder and swap it in only when the whole build succeeded.

``mkdocs build`` cleans its output folder first, so a failed build would otherwise leave a
half-written ``site/`` in place of the last good one. MkDocs has no option for this.

The whole build includes the PDF: it is printed from the staging folder's print page into the
staging folder, before the swap, so a PDF that fails to print also leaves the old site in place.
Without a Chromium the HTML is still built and swapped in, and we say plainly that the PDF was
skipped and how to get it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import click

from snippet_runner import chromium, reuse
from snippet_runner.project import Project


def build(project: Project, site_dir: Path = Path("site"), config: Path = Path("mkdocs.yml")) -> int:
    site_dir = site_dir.resolve()
    staging = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}.staging-", dir=site_dir.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it private (0700); site/ is for reading by anyone
    previous = signal.signal(signal.SIGTERM, _interrupt)  # `kill` is handled like Ctrl-C
    code, why = 1, "failed"
    try:
        code = _mkdocs_build(config, staging)
        if code == 0:
            code = _print_pdf(staging, site_dir.name, project)
    except (KeyboardInterrupt, click.exceptions.Abort):
        code, why = 130, "interrupted"
    finally:
        signal.signal(signal.SIGTERM, previous)
        if code != 0:
            shutil.rmtree(staging, ignore_errors=True)
    if code != 0:
        kept = "left as it was" if site_dir.exists() else "not created"
        print(f"\nBuild {why}; {site_dir.name}/ was {kept}.", file=sys.stderr)
        return code
    _swap_in(staging, site_dir)
    print(f"Site built into {site_dir.name}/")
    return 0


def _mkdocs_build(config: Path, site_dir: Path) -> int:
    """``mkdocs build --strict`` into ``site_dir``, in this process: the plugins this process
    already imported to read the settings are not imported a second time by a new Python."""
    from mkdocs.__main__ import cli

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    args = ["build", "--strict", "--config-file", str(config), "--site-dir", str(site_dir)]
    try:
        cli.main(args=args, prog_name="mkdocs", standalone_mode=False)
    except click.ClickException as error:
        error.show()
        return error.exit_code or 1
    return 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _print_pdf(staging: Path, shown_as: str, project: Project) -> int:
    target = project.pdf
    if target is None:
        return 0
    basename, pdf_rel = target.print_page, target.path
    binary = chromium.find()
    if binary is None:
        print(
            f"\nPDF SKIPPED: {shown_as}/{pdf_rel} was not written. {chromium.missing()}, then run `make site`"
            f" again.\nThe HTML site is complete, but its \"Download PDF\" links point at a missing file.\n",
            file=sys.stderr,
        )
        return 0
    from snippet_runner import pdf  # imports Playwright, only needed here

    # print_page.html, or print_page/index.html if directory URLs are on
    print_page = next((p for p in (staging / f"{basename}.html", staging / basename / "index.html") if p.is_file()), None)
    if print_page is None:
        print(f"\nPDF failed: the print-site plugin wrote no {basename}.html", file=sys.stderr)
        return 1
    key = reuse.pdf_key(print_page, staging, binary)
    if reuse.reuse_pdf(project.pdf_cache_dir, key, staging / pdf_rel):
        print(
            f"PDF unchanged (same print page, assets and Chromium): reused"
            f" {project.shown_path(project.pdf_cache_dir)}/{key[:12]}….pdf for {shown_as}/{pdf_rel}"
        )
        return 0
    try:
        printed = pdf.print_pdf(print_page, staging / pdf_rel)
    except Exception as error:  # Playwright, Chromium or rendering: any of them fails the build
        print(f"\nPDF failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    reuse.keep_pdf(project.pdf_cache_dir, key, staging / pdf_rel)
    print(
        f"PDF written to {shown_as}/{pdf_rel}: {printed.pages} pages, "
        f"{printed.bytes / 1e6:.1f} MB, printed in {printed.seconds:.1f} s"
    )
    return 0


def _swap_in(staging: Path, site_dir: Path) -> None:
    """Replace ``site_dir`` by ``staging``. Two builds finishing at once take turns (a lock beside
    the site), so neither swaps its site in while the other is half-way through its own swap."""
    with open(site_dir.with_name(f".{site_dir.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _swap(staging, site_dir)


def _swap(staging: Path, site_dir: Path) -> None:
    retired = None
    if site_dir.exists():
        retired = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}.retired-", dir=site_dir.parent))
        retired.rmdir()
        site_dir.rename(retired)
    staging.rename(site_dir)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
