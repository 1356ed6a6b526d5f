"""Build the site into a temporary folder and swap it in only when the whole build succeeded.

``mkdocs build`` cleans its output folder first, so a failed build would otherwise leave a
half-written ``site/`` in place of the last good one. MkDocs has no option for this.

The whole build includes the PDF: it is printed from the staging folder's print page into the
staging folder, before the swap, so a PDF that fails to print also leaves the old site in place.
Without a Chromium the HTML is still built and swapped in, and we say plainly that the PDF was
skipped and how to get it.

Two builds of the same commit give the same bytes (tests/test_reproducible.py): the build's date is
the last commit's (``source_date_epoch``), and a rebuild keeps each file of the old ``site/`` whose
bytes did not change (``_keep_unchanged``), so nothing that stayed the same is rewritten.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from snippet_runner import chromium


def build(site_dir: Path = Path("site"), config: Path = Path("mkdocs.yml")) -> int:
    site_dir = site_dir.resolve()
    staging = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}.staging-", dir=site_dir.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it private (0700); site/ is for reading by anyone
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(staging)]
    epoch = source_date_epoch(config.resolve().parent)
    dated = {"SOURCE_DATE_EPOCH": str(epoch)} if epoch is not None else {}
    code = subprocess.call(command, env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **dated})
    if code == 0:
        code = _print_pdf(staging, site_dir.name, config, epoch)
    if code != 0:
        shutil.rmtree(staging, ignore_errors=True)
        kept = "left as it was" if site_dir.exists() else "not created"
        print(f"\nBuild failed; {site_dir.name}/ was {kept}.", file=sys.stderr)
        return code
    _keep_unchanged(staging, site_dir)
    _swap_in(staging, site_dir)
    print(f"Site built into {site_dir.name}/")
    return 0


def pdf_target(config: Path) -> tuple[str, str] | None:
    """(print page basename, PDF path) inside the site, from the print-site plugin's settings,
    or None when the plugin is off or names no PDF."""
    from mkdocs.config import load_config

    plugin = load_config(str(config)).plugins.get("print-site")
    if plugin is None or not plugin.config.get("enabled") or not plugin.config.get("path_to_pdf"):
        return None
    return plugin.config["print_page_basename"], plugin.config["path_to_pdf"]


def source_date_epoch(project: Path) -> int | None:
    """The build's date, in seconds since 1970 (UTC): ``$SOURCE_DATE_EPOCH`` if set, else the time of
    the last commit of the git checkout ``project`` is in, else None (then tools use the clock).

    SOURCE_DATE_EPOCH is the convention of reproducible-builds.org; MkDocs honours it (the
    sitemap's dates, the sitemap.xml.gz header), and the PDF's dates are set from it (pdf.py).
    """
    if os.environ.get("SOURCE_DATE_EPOCH", "").strip():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        result = subprocess.run(
            ["git", "log", "-1", "--format=%ct"], cwd=project, capture_output=True, text=True, check=True
        )
        return int(result.stdout.strip())
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None


def _print_pdf(staging: Path, shown_as: str, config: Path, epoch: int | None = None) -> int:
    target = pdf_target(config)
    if target is None:
        return 0
    basename, pdf_rel = target
    if chromium.find() is None:
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
    try:
        printed = pdf.print_pdf(print_page, staging / pdf_rel)
        if epoch is not None:
            pdf.make_reproducible(staging / pdf_rel, epoch)
    except Exception as error:  # Playwright, Chromium or rendering: any of them fails the build
        print(f"\nPDF failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(
        f"PDF written to {shown_as}/{pdf_rel}: {printed.pages} pages, "
        f"{printed.bytes / 1e6:.1f} MB, printed in {printed.seconds:.1f} s"
    )
    return 0


def _keep_unchanged(staging: Path, site_dir: Path) -> None:
    """Where a newly built file has the same bytes as the one in the old ``site_dir``, put the old
    file itself (a hard link to it) in the new tree, so a rebuild rewrites only what changed: the
    old file keeps its inode and modification time, for rsync, web servers' caches and readers.
    Where hard links are not possible the new file simply stays."""
    if not site_dir.is_dir():
        return
    for new in staging.rglob("*"):
        old = site_dir / new.relative_to(staging)
        if new.is_symlink() or not new.is_file() or old.is_symlink() or not old.is_file():
            continue
        if old.stat().st_size != new.stat().st_size or not filecmp.cmp(old, new, shallow=False):
            continue
        link = new.with_name(new.name + ".keep")
        try:
            os.link(old, link)
            os.replace(link, new)
        except OSError:
            link.unlink(missing_ok=True)


def _swap_in(staging: Path, site_dir: Path) -> None:
    retired = None
    if site_dir.exists():
        retired = site_dir.with_name(f"{site_dir.name}.retired-{os.getpid()}")
        site_dir.rename(retired)
    staging.rename(site_dir)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
