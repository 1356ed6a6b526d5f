"""Build the site into a temporary folder and swap it in only when the whole build succeeded.

``mkdocs build`` cleans its output folder first, so a failed build would otherwise leave a
half-written ``site/`` in place of the last good one. MkDocs has no option for this.

The whole build includes the PDF: it is printed from the staging folder's print page into the
staging folder, before the swap, so a PDF that fails to print also leaves the old site in place.
The process that prints it (``pdf_process.py``) starts with the build, so that its imports and its
Chromium are ready by the time MkDocs has written the print page.
Without a Chromium the HTML is still built and swapped in, and we say plainly that the PDF was
skipped and how to get it.

Two builds of the same commit give the same bytes (tests/browser/test_reproducible.py): the build's date is
the last commit's (``source_date_epoch``), and a rebuild keeps each file of the old ``site/`` whose
bytes did not change (``_keep_unchanged``), so nothing that stayed the same is rewritten. The
build's own log, the execution report, is written outside the site (``report.py``).

With nothing changed since the build that made the ``site/`` in place, no build runs at all
(``skip.py`` says how that is decided); ``--force`` builds anyway.
"""

from __future__ import annotations

import fcntl
import filecmp
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from snippet_runner.errors import SnippetError
from snippet_runner.running import pool
from snippet_runner.site import chromium, early_print, pdf_cache, skip

if TYPE_CHECKING:
    from snippet_runner.project import Project
    from snippet_runner.site import pdf_process


def main(config: Path = Path("mkdocs.yml"), site_dir: Path = Path("site"), force: bool = False) -> int:
    """``python -m snippet_runner site``: build unless ``site_dir`` already is what a build would write."""
    root = config.resolve().parent
    # The snippets' worker, first, if every snippet looks bound to run: a cold build waits for its
    # import of torch. The build takes it, or stops it once it knows it needs none (and if the site
    # is current after all, below, it is stopped at once).
    preload = skip.worker_to_start_ahead(config, site_dir)
    if preload is not None:
        pool.start_ahead(preload)
    epoch = source_date_epoch(root)
    key = skip.inputs_key(root, site_dir, epoch)
    if not force and skip.is_current(root, site_dir, key):
        pool.end_ahead()
        print(
            f"{site_dir.name}/ is up to date: nothing it is built from has changed since the build that made it"
            f" (inputs key {key[:12]}), so nothing was rebuilt. `python -m snippet_runner site --force` builds anyway."
        )
        return 0
    # If the last build made a PDF, this one most likely will: its process starts now, before
    # MkDocs' settings are read, so that it is ready when a prose edit's MkDocs part is done.
    guessed = _pdf_process_for(skip.pdf_cache_of_last_build(root, site_dir))
    from snippet_runner.project import Project  # MkDocs' configuration: only when building

    try:
        project = Project.load(config)
    except SnippetError as error:
        print(f"error: {error}", file=sys.stderr)
        if guessed is not None:
            guessed.close()
        pool.end_ahead()
        return 1
    skip.forget(root, site_dir)
    pdf_cache = _pdf_cache(project)
    snippets = (project.cache_dir, project.preload)
    # The record of what the build left is written while the new site is locked in place: another
    # build finishing at the same moment could otherwise swap its own in while this one lists it.
    return build(
        project,
        site_dir,
        config,
        epoch,
        swapped=lambda: skip.remember(root, site_dir, key, pdf_cache, snippets),
        pdf_job=guessed,
    )


def build(
    project: Project,
    site_dir: Path = Path("site"),
    config: Path = Path("mkdocs.yml"),
    epoch: int | None = None,
    swapped: Callable[[], None] | None = None,
    pdf_job: pdf_process.PdfProcess | None = None,
) -> int:
    """Build into a staging folder, and only if all of it succeeds put it in place of ``site_dir``
    (then call ``swapped``, still holding the lock that keeps two builds' swaps apart). ``pdf_job``:
    a PDF process started already, taken if it is for this project's PDF cache, else ended."""
    from snippet_runner.project import stop_early  # imported already: `project` is one

    site_dir = site_dir.resolve()
    _interrupted.clear()
    # Ctrl-C, and `kill` handled like it. The handler also notes it: a KeyboardInterrupt raised while
    # some library's finalizer or `except BaseException` runs is swallowed there (seen once in a test
    # run: a build interrupted 2 s in ran to its end and swapped its site in); the note still ends it.
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    # The build's date is set for the build only: a caller in the same process (a test, a server)
    # that builds again later must find its own environment, not this build's date (seen: a test run
    # whose later build took its date from an earlier in-process build's epoch 0).
    dated = os.environ.get("SOURCE_DATE_EPOCH")
    staging, code, why = None, 1, "failed"
    guessed, pdf_job = pdf_job, None  # the PDF process, once the build has taken it on
    try:
        staging = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}{skip.STAGING}", dir=site_dir.parent))
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp makes it private (0700); site/ is for reading by anyone
        if epoch is None:
            epoch = source_date_epoch(config.resolve().parent)
        if epoch is not None:  # MkDocs honours it (the sitemap's dates), and so does the PDF (pdf.py)
            os.environ["SOURCE_DATE_EPOCH"] = str(epoch)
        # The PDF's process works beside MkDocs, and is ready when the print page is written. Once
        # the PDF is made, it closes its browser while the new site is swapped in.
        pdf_job = _pdf_process(project, guessed)
        if project is not None:
            project.start_early()  # the snippets' worker, if one must run: a cold build waits for it
        pool.end_ahead()  # one started ahead (main) that start_early did not take: not needed
        if pdf_job is not None:  # its job handed over once the print page is final (early_print.py)
            early_print.expect(staging, functools.partial(_start_pdf, staging, site_dir.name, project, epoch, pdf_job))
        try:
            code = _mkdocs_build(config, staging)
            if code == 0 and not _interrupted:
                pdf_start = early_print.take(staging)
                if pdf_start is None:  # print-site is off, or its page was not final yet
                    pdf_start = _start_pdf(staging, site_dir.name, project, epoch, pdf_job)
                assert isinstance(pdf_start, _PdfStart)
                if pdf_start.sent:  # while the PDF prints: the swap then has the PDF and little else to compare
                    _keep_unchanged(staging, site_dir, leave=(pdf_start.pdf_path,))
                code = _finish_pdf(pdf_start, staging, site_dir.name, project, pdf_job)
        finally:
            early_print.forget(staging)
            if pdf_job is not None:
                pdf_job.end()
        if _interrupted:
            raise KeyboardInterrupt
    except (KeyboardInterrupt, click.exceptions.Abort):
        code, why = 130, "interrupted"
    finally:
        stop_early()
        pool.end_ahead()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if dated is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = dated
        if code != 0 and pdf_job is not None:
            pdf_job.abandon()
        if code != 0 and staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    if code != 0:
        kept = "left as it was" if site_dir.exists() else "not created"
        print(f"\nBuild {why}; {site_dir.name}/ was {kept}.", file=sys.stderr)
        return code
    assert staging is not None  # made before anything could succeed
    _swap_in(staging, site_dir, swapped)
    if pdf_job is not None:
        pdf_job.close()
    print(f"Site built into {site_dir.name}/")
    if project.report_path.is_file():
        print(
            "Execution report (what ran, what came from the cache, and what each cost):"
            f" {project.shown_path(project.report_path)}"
        )
    return 0


def _mkdocs_build(config: Path, site_dir: Path) -> int:
    """``mkdocs build --strict`` into ``site_dir``, in this process: the plugins this process
    already imported to read the settings are not imported a second time by a new Python."""
    from mkdocs.__main__ import cli

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    # By its absolute path, as `mkdocs build` and `mkdocs serve` name it: the theme's templates are
    # then the same files to Jinja's bytecode cache (the snippet-runner plugin) whichever command built.
    args = ["build", "--strict", "--config-file", str(config.resolve()), "--site-dir", str(site_dir)]
    try:
        cli.main(args=args, prog_name="mkdocs", standalone_mode=False)
    except click.ClickException as error:
        error.show()
        return error.exit_code or 1
    return 0


_interrupted: set[int] = set()  # the signals that asked this build to stop


def _interrupt(signum, frame):
    _interrupted.add(signum)
    raise KeyboardInterrupt


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


def _pdf_process(project: Project | None, started: pdf_process.PdfProcess | None = None) -> pdf_process.PdfProcess | None:
    """The PDF process (``pdf_process.py``), told which PDF cache its job will use, for a project with
    a PDF where there is a Chromium: ``started``, if it was started for that cache, else one started now."""
    wanted = _pdf_cache(project)
    if started is not None and (wanted is None or started.ahead != wanted):
        started.close()  # the guess was wrong: this build makes no PDF, or keeps it elsewhere
        started = None
    if started is not None or wanted is None:
        return started
    return _pdf_process_for(wanted)


def _pdf_cache(project: Project | None) -> Path | None:
    """Where the project keeps its printed PDFs, if it makes one."""
    return None if project is None or project.pdf is None else project.pdf_cache_dir


def _pdf_process_for(cache_dir: Path | None) -> pdf_process.PdfProcess | None:
    """A PDF process started now for a PDF kept in ``cache_dir``, where there is a Chromium."""
    if cache_dir is None or chromium.find() is None:
        return None
    from snippet_runner.site import pdf_process

    return pdf_process.PdfProcess(ahead=cache_dir)


@dataclass
class _PdfStart:
    """How the PDF step began: over already (``code``: skipped, reused or failed, with what to say),
    or with the book's arguments, handed to the PDF process if ``sent``."""

    code: int | None = None
    said: str = ""  # for the build's output
    complained: str = ""  # for its errors
    key: str = ""
    arguments: tuple = ()  # pdf_book.make's
    sent: bool = False

    @property
    def pdf_path(self) -> Path:
        return self.arguments[2]


def _start_pdf(
    staging: Path,
    shown_as: str,
    project: Project,
    epoch: int | None = None,
    printer: pdf_process.PdfProcess | None = None,
) -> _PdfStart:
    """Everything up to the printing itself: the PDF reused if nothing it prints changed, else its
    job handed to ``printer`` (which then works while the caller goes on)."""
    target = project.pdf
    if target is None:
        return _PdfStart(code=0)
    basename, pdf_rel = target.print_page, target.path
    binary = chromium.find()
    if binary is None:
        return _PdfStart(
            code=0,
            complained=f"\nPDF SKIPPED: {shown_as}/{pdf_rel} was not written. {chromium.missing()}, then run `make site`"
            f" again.\nThe HTML site is complete, but its \"Download PDF\" links point at a missing file.\n",
        )
    # print_page.html, or print_page/index.html if directory URLs are on
    print_page = next((p for p in (staging / f"{basename}.html", staging / basename / "index.html") if p.is_file()), None)
    if print_page is None:
        return _PdfStart(code=1, complained=f"\nPDF failed: the print-site plugin wrote no {basename}.html")
    printing = pdf_cache.printing_key(staging, binary)  # once, for the whole PDF's key and its parts'
    key = pdf_cache.pdf_key(print_page, staging, printing)
    if pdf_cache.reuse_pdf(project.pdf_cache_dir, key, staging / pdf_rel):
        return _PdfStart(
            code=0,
            said=f"PDF unchanged (same print page, assets and Chromium): reused"
            f" {project.shown_path(project.pdf_cache_dir)}/{key[:12]}….pdf for {shown_as}/{pdf_rel}",
        )
    arguments = (print_page, staging, staging / pdf_rel, project.pdf_cache_dir, binary, epoch, printing)
    if printer is not None:
        from snippet_runner.site import pdf_process

        try:
            printer.start(*arguments)
        except pdf_process.PrintFailed as error:  # the process is gone
            return _PdfStart(code=1, complained=f"\nPDF failed: {error}")
    return _PdfStart(key=key, arguments=arguments, sent=printer is not None)


def _finish_pdf(
    start: _PdfStart, staging: Path, shown_as: str, project: Project, printer: pdf_process.PdfProcess | None
) -> int:
    """The PDF step's end: its book, once made, kept in the cache, and what the build says of it."""
    if start.said:
        print(start.said)
    if start.complained:
        print(start.complained, file=sys.stderr)
    if start.code is not None:
        return start.code
    from snippet_runner.site import pdf_book, pdf_process  # only needed here

    try:
        book = printer.result() if start.sent and printer is not None else pdf_book.make(*start.arguments)
    except pdf_process.PrintFailed as error:  # already "Kind: message"
        print(f"\nPDF failed: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # Playwright, Chromium, rendering or the join: any of them fails the build
        print(f"\nPDF failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    pdf_cache.keep_pdf(project.pdf_cache_dir, start.key, start.pdf_path)
    parts = len(book.printed) + len(book.reused)
    print(
        f"PDF written to {shown_as}/{start.pdf_path.relative_to(staging).as_posix()}: {book.pages} pages,"
        f" {book.bytes / 1e6:.1f} MB, printed in"
        f" {book.seconds:.1f} s; parts printed again: {len(book.printed)} of {parts}"
        f" ({', '.join(book.printed) or 'none'}), the others from the cache"
        + (f"; {book.copied_ahead} of the parts joined were copied ahead of the join" if book.copied_ahead else "")
    )
    return 0


def _keep_unchanged(staging: Path, site_dir: Path, leave: tuple[Path, ...] = ()) -> None:
    """Where a newly built file has the same bytes as the one in the old ``site_dir``, put the old
    file itself (a hard link to it) in the new tree, so a rebuild rewrites only what changed: the
    old file keeps its inode and modification time, for rsync, web servers' caches and readers.
    Where hard links are not possible the new file simply stays. ``leave``: files not to look at
    (the PDF, while it is being written)."""
    if not site_dir.is_dir():
        return
    for new in staging.rglob("*"):
        old = site_dir / new.relative_to(staging)
        try:
            if new in leave or new.is_symlink() or not new.is_file() or old.is_symlink() or not old.is_file():
                continue
            new_stat, old_stat = new.stat(), old.stat()
            if (new_stat.st_ino, new_stat.st_dev) == (old_stat.st_ino, old_stat.st_dev):
                continue  # kept already, while the PDF printed
            if old_stat.st_size != new_stat.st_size or not filecmp.cmp(old, new, shallow=False):
                continue
        except OSError:  # gone meanwhile: a part's page the PDF process wrote for a moment
            continue
        link = new.with_name(new.name + ".keep")
        try:
            os.link(old, link)
            os.replace(link, new)
        except OSError:
            link.unlink(missing_ok=True)


def _swap_in(staging: Path, site_dir: Path, swapped: Callable[[], None] | None = None) -> None:
    """Replace ``site_dir`` by ``staging``, keeping the old file wherever the bytes did not change,
    then call ``swapped``. Two builds finishing at once take turns (a lock beside the site), so
    neither reads or replaces the site while the other is half-way through: a build's record of
    the files it left once failed on a file the other build's swap had just removed."""
    with open(site_dir.with_name(f".{site_dir.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _keep_unchanged(staging, site_dir)
        _swap(staging, site_dir)
        if swapped is not None:
            swapped()


def _swap(staging: Path, site_dir: Path) -> None:
    retired = None
    if site_dir.exists():
        retired = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}{skip.RETIRED}", dir=site_dir.parent))
        retired.rmdir()
        site_dir.rename(retired)
    staging.rename(site_dir)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
