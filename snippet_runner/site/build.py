"""Build the site into a staging folder and swap it in only when all of it succeeded: ``mkdocs build``
cleans its output first, with no option against it. The PDF is part of the build (printed, or
reused from ``pdf_cache.py``); without a Chromium the HTML is still swapped in, and we say so. A
rebuild keeps each unchanged old file, and with nothing changed none runs (``skip.py``).
"""

from __future__ import annotations

import fcntl
import filecmp
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from snippet_runner.errors import SnippetError
from snippet_runner.site import chromium, pdf_cache, skip

if TYPE_CHECKING:
    from snippet_runner.project import Project


def main(config: Path = Path("mkdocs.yml"), site_dir: Path = Path("site"), force: bool = False) -> int:
    """``python -m snippet_runner site``: build unless ``site_dir`` already is what a build would write."""
    root = config.resolve().parent
    epoch = source_date_epoch(root)
    key = skip.inputs_key(root, site_dir, epoch)
    if not force and skip.is_current(root, site_dir, key):
        print(
            f"{site_dir.name}/ is up to date: nothing it is built from has changed since the build that made it"
            f" (inputs key {key[:12]}), so nothing was rebuilt. `python -m snippet_runner site --force` builds anyway."
        )
        return 0
    from snippet_runner.project import Project  # MkDocs' configuration: only when building

    try:
        project = Project.load(config)
    except SnippetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    skip.forget(root, site_dir)
    # recorded while the new site is locked in place, so no build finishing meanwhile swaps in its own
    return build(project, site_dir, config, epoch, swapped=lambda: skip.remember(root, site_dir, key))


def build(
    project: Project,
    site_dir: Path = Path("site"),
    config: Path = Path("mkdocs.yml"),
    epoch: int | None = None,
    swapped: Callable[[], None] | None = None,
) -> int:
    """Build into a staging folder and only if all of it succeeds swap it in (then call ``swapped``);
    with ``epoch`` (:func:`source_date_epoch`), reproducibly."""
    site_dir = site_dir.resolve()
    # Ctrl-C, and `kill` like it; noted too, as a library's `except BaseException` may swallow it
    interrupted: set[int] = set()  # the signals that asked this build to stop

    def interrupt(signum, frame):
        interrupted.add(signum)
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    # the build's date is set for the build only: a later build in this process finds its own
    dated = os.environ.get("SOURCE_DATE_EPOCH")
    staging, code, why = None, 1, "failed"
    try:
        staging = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}{skip.STAGING}", dir=site_dir.parent))
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp makes it private (0700); site/ is for reading by anyone
        if epoch is not None:  # MkDocs honours it (the sitemap's dates), and so does the PDF (pdf.py)
            os.environ["SOURCE_DATE_EPOCH"] = str(epoch)
        code = _mkdocs_build(config, staging)
        if code == 0 and not interrupted:
            code = _make_pdf(staging, site_dir.name, project, epoch)
        if interrupted:
            raise KeyboardInterrupt
    except (KeyboardInterrupt, click.exceptions.Abort):
        code, why = 130, "interrupted"
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if dated is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = dated
        if code != 0 and staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    if code != 0:
        kept = "left as it was" if site_dir.exists() else "not created"
        print(f"\nBuild {why}; {site_dir.name}/ was {kept}.", file=sys.stderr)
        return code
    assert staging is not None  # made before anything could succeed
    _swap_in(staging, site_dir, swapped)
    print(f"Site built into {site_dir.name}/")
    if project.report_path.is_file():
        print(
            "Execution report (what ran, what came from the cache, and what each cost):"
            f" {project.shown_path(project.report_path)}"
        )
    return 0


def _mkdocs_build(config: Path, site_dir: Path) -> int:
    """``mkdocs build --strict`` in this process, so the plugins already imported are not imported again."""
    from mkdocs.__main__ import cli

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    args = ["build", "--strict", "--config-file", str(config.resolve()), "--site-dir", str(site_dir)]
    try:
        cli.main(args=args, prog_name="mkdocs", standalone_mode=False)
    except click.ClickException as error:
        error.show()
        return error.exit_code or 1
    return 0


def source_date_epoch(project: Path) -> int | None:
    """``$SOURCE_DATE_EPOCH`` (reproducible-builds.org's, which MkDocs and pdf.py honour), else the last
    commit's time, else None (the clock)."""
    if os.environ.get("SOURCE_DATE_EPOCH", "").strip():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    git = ["git", "log", "-1", "--format=%ct"]
    try:
        return int(subprocess.run(git, cwd=project, capture_output=True, text=True, check=True).stdout)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None


def _make_pdf(staging: Path, shown_as: str, project: Project, epoch: int | None) -> int:
    """The PDF into the staging folder, from the cache or printed once; returns the exit code so far."""
    target = project.pdf
    if target is None:
        return 0
    binary = chromium.find()
    if binary is None:
        print(
            f"\nPDF SKIPPED: {shown_as}/{target.path} was not written. {chromium.missing()}, then build the site"
            f' again.\nThe HTML site is complete, but its "Download PDF" links point at a missing file.\n',
            file=sys.stderr,
        )
        return 0
    # print_page.html, or print_page/index.html if directory URLs are on
    pages = (staging / f"{target.print_page}.html", staging / target.print_page / "index.html")
    print_page = next((p for p in pages if p.is_file()), None)
    if print_page is None:
        print(f"\nPDF failed: the print-site plugin wrote no {target.print_page}.html", file=sys.stderr)
        return 1
    key = pdf_cache.pdf_key(print_page, staging, binary)
    pdf_path = staging / target.path
    if pdf_cache.reuse_pdf(project.pdf_cache_dir, key, pdf_path):
        print(
            f"PDF unchanged (same print page, assets and Chromium): reused from {project.shown_path(project.pdf_cache_dir)}"
        )
        return 0
    from snippet_runner.site import pdf  # Playwright: only when printing

    try:
        printed = pdf.print_pdf(print_page, pdf_path, epoch, site=staging)
    except Exception as error:  # noqa: BLE001 - Playwright, Chromium, rendering or pikepdf: any fails the build
        print(f"\nPDF failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    pdf_cache.keep_pdf(project.pdf_cache_dir, key, pdf_path)
    if printed.refused:  # what a page asked for outside the site: never printed, worth knowing
        print(f"PDF: refused {len(printed.refused)} requests outside the site: {', '.join(printed.refused[:5])}")
    print(
        f"PDF written to {shown_as}/{target.path}: {printed.pages} pages, {printed.bytes / 1e6:.1f} MB,"
        f" printed in {printed.seconds:.1f} s"
    )
    return 0


def _swap_in(staging: Path, site_dir: Path, swapped: Callable[[], None] | None = None) -> None:
    """Replace ``site_dir`` by ``staging``, then call ``swapped``. Two builds finishing at once
    take turns (a lock beside the site), so neither sees the other's swap half-way through. Each
    unchanged old file is hard-linked into the new tree, so it keeps its inode and modification time."""
    with open(site_dir.with_name(f".{site_dir.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for new in staging.rglob("*") if site_dir.is_dir() else ():
            old = site_dir / new.relative_to(staging)
            try:
                plain = new.is_file() and old.is_file() and not (new.is_symlink() or old.is_symlink())
                if not (plain and filecmp.cmp(old, new, shallow=False)):  # which compares the sizes first
                    continue
            except OSError:  # gone meanwhile
                continue
            link = new.with_name(new.name + ".keep")
            try:
                os.link(old, link)
                os.replace(link, new)
            except OSError:
                link.unlink(missing_ok=True)
        retired = None
        if site_dir.exists():
            retired = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}{skip.RETIRED}", dir=site_dir.parent))
            retired.rmdir()
            site_dir.rename(retired)
        staging.rename(site_dir)
        if retired is not None:
            shutil.rmtree(retired, ignore_errors=True)
        if swapped is not None:
            swapped()
