"""The PDF is started as early as what it needs allows: its process before MkDocs' settings are read
when the last build made a PDF (``build.main``), its job once the print page is final rather than
after MkDocs' last post-build steps (``site/early_print.py``), and its first tab before the job
comes (``pdf.TabAhead``). Each test checks the order of events, never a time, and the PDF is the
same whichever way it was started."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

from snippet_runner.site import build, pdf
from tests.builds.test_fast_builds import MATERIAL_WITH_PDF

CONFIG = MATERIAL_WITH_PDF.replace("  - print-site:", "  - print-page-ids\n  - print-site:")

# A build in this process, with the moments that matter written down in order as they happen:
# the PDF process started, MkDocs' settings read, the PDF's job handed over, the page notebooks
# written (the runner's post-build step after the print page). With "late", the print page plugin
# never says the print page is final, so the job waits for MkDocs to return, as it did before.
RECORD_ORDER = r"""
import json, sys
from snippet_runner.plugins.runner import plugin as runner
from snippet_runner.project import Project
from snippet_runner.site import early_print, pdf_process

events = []

def noted(owner, name, event):
    wrapped = getattr(owner, name)
    def note(*args, **kwargs):
        events.append(event)
        return wrapped(*args, **kwargs)
    setattr(owner, name, note)

noted(pdf_process.PdfProcess, "__init__", "pdf process")
noted(Project, "load", "settings")
noted(pdf_process.PdfProcess, "start", "job")
noted(runner.SnippetRunnerPlugin, "_write_downloads", "downloads")
if sys.argv[1] == "late":
    early_print.print_page_written = lambda site_dir: None

from snippet_runner.__main__ import main
code = main(["site", "--force"])
print(json.dumps({"code": code, "events": events}))
"""


def _build(scratch, when: str) -> list[str]:
    code, out, err = scratch.run_split("-c", RECORD_ORDER, when, SOURCE_DATE_EPOCH="1700000000")
    assert code == 0, err
    result = json.loads(out.splitlines()[-1])
    assert result["code"] == 0, err
    return list(dict.fromkeys(result["events"]))  # each event's first time


def test_the_pdf_starts_before_the_settings_are_read_and_prints_once_its_page_is_final(scratch):
    scratch.write("mkdocs.yml", CONFIG)
    shutil.rmtree(scratch.root / ".cache", ignore_errors=True)
    # No build made a PDF yet: the process starts once the settings say there is one.
    assert _build(scratch, "early") == ["settings", "pdf process", "job", "downloads"]
    early = (scratch.root / "site" / "pdf" / "scratch.pdf").read_bytes()
    # Node kept what it compiled for Playwright's driver, beside the PDF cache.
    assert any((scratch.root / ".cache" / "node-compile-cache").rglob("*"))

    shutil.rmtree(scratch.root / ".cache" / "pdf")  # so that the PDF is printed again
    # The last build made a PDF: the process starts before the settings are read. The control:
    # told nothing by the print page plugin, the build hands the job over after MkDocs returns.
    assert _build(scratch, "late") == ["pdf process", "settings", "downloads", "job"]
    assert (scratch.root / "site" / "pdf" / "scratch.pdf").read_bytes() == early


class _Started:
    def __init__(self, ahead: Path):
        self.ahead, self.closed = ahead, False

    def close(self) -> None:
        self.closed = True


def test_a_pdf_process_started_for_another_cache_or_no_pdf_is_closed(monkeypatch, tmp_path):
    started_now = []
    monkeypatch.setattr(build, "_pdf_process_for", lambda cache: started_now.append(cache) or cache)
    wanted = tmp_path / "pdf"
    project = SimpleNamespace(pdf=object(), pdf_cache_dir=wanted)

    right = _Started(wanted)
    assert build._pdf_process(project, right) is right and not right.closed and not started_now

    wrong = _Started(tmp_path / "elsewhere")
    assert build._pdf_process(project, wrong) == wanted  # one started now, for the right cache
    assert wrong.closed and started_now == [wanted]

    unwanted = _Started(wanted)
    assert build._pdf_process(SimpleNamespace(pdf=None, pdf_cache_dir=wanted), unwanted) is None
    assert unwanted.closed and started_now == [wanted]


class _Browser:
    def __init__(self):
        self.opened = []
        self.version = "1.0"

    def new_page(self, **kwargs):
        page = SimpleNamespace(kwargs=kwargs, media=None)
        page.emulate_media = lambda media: setattr(page, "media", media)
        self.opened.append(page)
        return page


def test_the_first_tab_is_opened_before_it_is_asked_for_and_laid_out_for_print():
    browser = _Browser()
    ahead = pdf.TabAhead(browser)
    assert len(browser.opened) == 1  # opened at once, while the PDF process waits for its job
    first = ahead.take_tab()
    assert first is browser.opened[0] and first.media == "print" and first.kwargs == browser.opened[0].kwargs
    second = ahead.take_tab()  # the one opened ahead is taken once; then tabs are opened as asked
    assert second is browser.opened[1] and second.media == "print" and len(browser.opened) == 2
    assert ahead.version == "1.0"  # the rest is the browser's own


# The PDF process killed just before it is handed its job, inside MkDocs' post-build step.
KILLED_BEFORE_THE_JOB = r"""
from snippet_runner.site import pdf_process

start = pdf_process.PdfProcess.start

def killed_first(self, *args):
    self._process.kill()
    self._process.wait()
    return start(self, *args)

pdf_process.PdfProcess.start = killed_first
from snippet_runner.__main__ import main
raise SystemExit(main(["site", "--force"]))
"""


def test_a_pdf_process_gone_before_its_job_fails_the_build_with_one_message(scratch):
    scratch.write("mkdocs.yml", CONFIG)
    code, out, err = scratch.run_split("-c", KILLED_BEFORE_THE_JOB)
    assert code == 1, out + err
    assert "PDF failed: RuntimeError: the PDF process ended before it made the PDF" in err
    assert "Traceback" not in err and "Build failed; site/ was not created." in err
    assert not (scratch.root / "site").exists()
