"""The cost of a build follows what changed: the PDF is printed again only when something it prints
changed, a notebook page comes from cache when its notebook did not, a corrupt cache entry is
rebuilt, builds running at once do not corrupt each other, and every build reports what ran.

No test here times anything: each checks the behaviour that makes a build cheap.
"""

from __future__ import annotations

import json

from devtools.scratch import MINIMAL_CONFIG

MATERIAL_WITH_PDF = """
site_name: scratch
theme:
  name: material
  font: false
plugins:
  - snippet-runner:
      preload: []
  - print-site:
      path_to_pdf: pdf/scratch.pdf
      add_cover_page: false
"""

NOTEBOOKS = """
site_name: scratch
theme: mkdocs
plugins:
  - snippet-runner:
      preload: []
      notebooks:
        lessons: lessons
  - mkdocs-jupyter:
      include: ["*.ipynb"]
      ignore: ["*.md"]
"""


def test_an_unchanged_pdf_is_not_printed_again_and_a_changed_one_is(scratch):
    scratch.write("mkdocs.yml", MATERIAL_WITH_PDF)
    code, log = scratch.build()
    assert code == 0, log
    assert "PDF written to site/pdf/scratch.pdf" in log
    first = (scratch.root / "site" / "pdf" / "scratch.pdf").read_bytes()

    code, log = scratch.build(force=True)
    assert code == 0, log
    assert "PDF unchanged (same print page, assets and Chromium): reused" in log
    assert "PDF written" not in log
    assert (scratch.root / "site" / "pdf" / "scratch.pdf").read_bytes() == first

    scratch.write("docs/index.md", "# Page\n\nIntro, now longer.\n\n{{ run page/hello.py }}\n")
    code, log = scratch.build()
    assert code == 0, log
    assert "PDF written to site/pdf/scratch.pdf" in log


def test_the_pdfs_key_covers_every_module_that_prints_or_finishes_it():
    # pdf.py and the modules of site/ it imports make the PDF's bytes (pdf_cache.pdf_key hashes them):
    # a change to any of them must print the PDF again, not reuse the one cached before.
    import ast
    from pathlib import Path

    from snippet_runner.site import pdf_cache

    here = Path(pdf_cache.__file__).parent
    imported = {"pdf"}
    for node in ast.walk(ast.parse((here / "pdf.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "snippet_runner.site":
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("snippet_runner.site."):
            imported.add(node.module.rsplit(".", 1)[1])
    hashed = {path.stem for pattern in pdf_cache._PRINTING for path in here.glob(pattern) if path.suffix == ".py"}
    assert imported - hashed == set()


def test_a_cached_notebook_page_is_identical_to_a_fresh_render(scratch):
    scratch.write("mkdocs.yml", NOTEBOOKS)
    scratch.write("snippets/lessons/lesson_1.py", "# %% [markdown]\n# # A lesson\n\n# %%\nprint('lesson')\n")
    scratch.write("snippets/lessons/lesson_1.out", "lesson\n")
    page = scratch.root / "site" / "lessons" / "lesson_1" / "index.html"

    code, log = scratch.build()
    assert code == 0, log
    assert "Converting notebook" in log
    fresh = page.read_bytes()

    code, log = scratch.build(force=True)
    assert code == 0, log
    assert "Converting notebook" not in log and "Cache hit" in log
    assert page.read_bytes() == fresh

    # a notebook that something else wrote since (another build) is not taken for this build's
    generated = scratch.root / ".cache" / "notebooks" / "lessons" / "lesson_1.ipynb"
    generated.write_text(generated.read_text().replace('"lesson\\n"', '"written by another build\\n"'))
    assert "written by another build" in generated.read_text()
    code, log = scratch.build(force=True)
    assert code == 0, log
    assert page.read_bytes() == fresh

    # the notebook is written again, and converted again, when what its exercise shows changed
    scratch.write("snippets/lessons/lesson_1.py", "# %% [markdown]\n# # A lesson\n\n# %%\nprint('lesson two')\n")
    scratch.write("snippets/lessons/lesson_1.out", "lesson two\n")
    code, log = scratch.build()
    assert code == 0, log
    assert "Converting notebook" in log and "lesson two" in page.read_text()


def test_a_corrupt_cache_entry_is_discarded_with_a_notice_and_rebuilt(built):
    scratch = built  # built, so its snippet cache holds hello.py's result
    for entry in (scratch.root / ".cache" / "snippets").rglob("*.json"):
        entry.write_text('{"outputs": ["wrong output\\n"], "id"')  # truncated mid-write
    code, log = scratch.build(force=True)  # the cache is not an input: nothing else changed
    assert code == 0, log
    assert "discarded an unreadable cache entry for page/hello.py" in log
    assert "snippets: 1 run, 0 from cache" in log
    assert "wrong output" not in (scratch.root / "site" / "index.html").read_text()


def test_two_builds_at_once_do_not_corrupt_each_other(scratch):
    for i in range(8):
        scratch.write(f"snippets/page/n{i}.py", f"print({i} * {i})\n")
        scratch.write(f"snippets/page/n{i}.out", f"{i * i}\n")
    scratch.write("docs/index.md", "# Page\n\n" + "".join(f"{{{{ run page/n{i}.py }}}}\n\n" for i in range(8)))
    builds = [scratch.start_build() for _ in range(2)]
    logs = [build.communicate(timeout=300)[0] for build in builds]
    assert [build.returncode for build in builds] == [0, 0], logs
    html = (scratch.root / "site" / "index.html").read_text()
    assert all(f"{i * i}" in html for i in range(8))
    assert not list(scratch.root.glob("site.*"))
    code, log = scratch.build(force=True)
    assert code == 0 and "snippets: 0 run, 8 from cache" in log, log  # the cache is whole


def test_a_build_records_what_it_left_while_its_site_is_locked_in_place(tmp_path):
    """Two builds at once once failed: one listed site/ for its record while the other swapped its
    own site in (a file vanished mid-listing). The record is now written under the swap's lock."""
    import fcntl

    from snippet_runner.site import build as site

    site_dir, staging = tmp_path / "site", tmp_path / "staging"
    staging.mkdir()
    (staging / "index.html").write_text("new")
    held = []

    def swapped():
        with open(tmp_path / ".site.lock", "w") as other:  # what a second build would take
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held.append(False)
            except BlockingIOError:
                held.append(True)
        held.append((site_dir / "index.html").read_text())

    site._swap_in(staging, site_dir, swapped)
    assert held == [True, "new"]


def test_a_site_that_changes_while_it_is_checked_is_not_current(built_minimal, monkeypatch):
    from snippet_runner.site import skip as unchanged

    root = built_minimal.root  # built once (conftest.py), only read here
    site_dir = root / "site"
    key = json.loads(next((root / unchanged.RECORDS).glob("*.json")).read_text())["key"]
    assert unchanged.is_current(root, site_dir, key)
    real_stat = unchanged.os.stat

    def vanishing(path, *args, **kwargs):  # another build's swap removes a file mid-listing
        if str(path).endswith("index.html"):
            raise FileNotFoundError(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(unchanged.os, "stat", vanishing)
    assert unchanged.is_current(root, site_dir, key) is False


def test_every_build_writes_an_execution_report_slowest_first_outside_the_site(scratch):
    scratch.write("snippets/page/slow.py", "import time\ntime.sleep(0.3)\nprint('slow')\n")
    scratch.write("snippets/page/slow.out", "slow\n")
    scratch.write("docs/index.md", "# Page\n\n{{ run page/hello.py }}\n\n{{ run page/slow.py }}\n")
    code, log = scratch.build()
    assert code == 0, log
    where = ".cache/build-log/execution-report.html"  # beside the caches: it is the build's log
    assert f"Execution report (each snippet's page, run time, memory, output): {where}" in log
    assert f"Execution report (what ran, what came from the cache, and what each cost): {where}" in log
    assert [p.name for p in (scratch.root / "site").rglob("*report*")] == []  # site/ holds no log
    report = (scratch.root / where).read_text()
    assert report.index("page/slow.py") < report.index("page/hello.py")  # slowest first
    assert "<td>docs/index.md</td>" in report
    assert report.count("<td>ran</td>") == 2
    assert scratch.build(force=True)[0] == 0
    report = (scratch.root / where).read_text()
    assert report.count("<td>cache</td>") == 2


def test_a_build_with_nothing_changed_is_skipped_and_any_changed_input_builds(scratch):
    assert scratch.build()[0] == 0
    code, log = scratch.build()
    assert code == 0 and "site/ is up to date" in log and "snippets:" not in log, log  # no MkDocs at all
    # a tool's cache that tags itself as one (mypy's, pytest's, ruff's) is no input
    scratch.write(".mypy_cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")
    scratch.write(".mypy_cache/3.11/cache.db", "written by make lint")
    assert "up to date" in scratch.build()[1]
    changes = {
        "a page": lambda: scratch.write("docs/index.md", "# Page\n\nNew prose.\n\n{{ run page/hello.py }}\n"),
        "a snippet and its approved output": lambda: (
            scratch.write("snippets/page/hello.py", "print('hello again')\n"),
            scratch.write("snippets/page/hello.out", "hello again\n"),
        ),
        "mkdocs.yml": lambda: scratch.write("mkdocs.yml", MINIMAL_CONFIG + "site_description: changed\n"),
        "a file of site/ edited by hand": lambda: (scratch.root / "site" / "index.html").write_text("edited"),
        "a file of site/ deleted": lambda: (scratch.root / "site" / "404.html").unlink(),
    }
    for what, change in changes.items():
        change()
        code, log = scratch.build()
        assert code == 0 and "Site built into site/" in log, f"{what}: {log}"
        assert "up to date" in scratch.build()[1], what
    code, log = scratch.build(SNIPPETS_APPROVAL="strict")  # the environment a build reads is an input too
    assert code == 0 and "Site built into site/" in log, log
    assert "Site built into site/" in scratch.build(force=True)[1]


PAGES = """
site_name: scratch
theme:
  name: material
  font: false
strict: true
markdown_extensions:
  - abbr
  - pymdownx.snippets:
      base_path: [includes]
      check_paths: true
      auto_append: [terms.md]
plugins:
  - search
  - snippet-runner:
      preload: []
  - print-page-ids
  - print-site:
      add_cover_page: false
"""


def test_a_page_whose_render_warned_is_rendered_and_fails_the_build_again(scratch):
    """A render that logged a warning is never kept: strict mode sees the warning in every build."""
    scratch.write("mkdocs.yml", PAGES)
    scratch.write("includes/terms.md", "*[Intro]: the opening words\n")
    scratch.write("docs/other.md", "# Other\n\nSee [a page that is gone](gone.md).\n")
    for force in (False, True):
        code, log = scratch.build(force=force)
        assert code != 0 and "gone.md" in log, log


def test_a_build_runs_each_pages_snippets_as_it_reads_it_and_still_names_every_failure_at_once(scratch):
    """A build no longer runs every snippet before it reads the first page (pages render while
    later snippets run): a failing exercise notebook and two failing pages still end the build
    with one message naming all three in reading order, and leave no site."""
    scratch.write("mkdocs.yml", NOTEBOOKS.replace("plugins:", "nav:\n  - index.md\n  - b.md\n  - a.md\nplugins:"))
    scratch.write("docs/a.md", "# A\n\n{{ run page/a_bad.py }}\n")
    scratch.write("docs/b.md", "# B\n\n{{ run page/b_bad.py }}\n")
    scratch.write("snippets/page/a_bad.py", "raise ValueError('a fails')\n")
    scratch.write("snippets/page/b_bad.py", "print('b prints this')\n")
    scratch.write("snippets/page/b_bad.out", "b was approved printing that\n")
    scratch.write("snippets/lessons/lesson_1.py", "# %% [markdown]\n# # A lesson\n\n# %%\nprint(1 / 0)\n")
    code, log = scratch.build()
    assert code != 0
    assert "3 snippets failed, in page order" in log, log[-3000:]
    found = [log.index(text) for text in ("docs/b.md:3", "docs/a.md:3", "lessons/lesson_1.ipynb (generated)")]
    assert found == sorted(found), log[-3000:]
    assert "ZeroDivisionError" in log and "ValueError: a fails" in log
    assert not (scratch.root / "site").exists()


def test_a_dirty_build_still_checks_the_snippets_of_the_pages_it_does_not_read_again(scratch):
    """``mkdocs build --dirty`` (not strict: MkDocs warns on every dirty build) reads only the pages
    edited since the last build: the snippets of the others are still run and checked before it
    reads any (a changed output fails it)."""
    dirty_build = ("-m", "mkdocs", "build", "--no-strict", "--dirty", "--site-dir", str(scratch.root / "site"))
    code, log = scratch.run(*dirty_build)
    assert code == 0, log
    scratch.write("snippets/page/hello.py", "print('changed')\n")  # docs/index.md itself is untouched
    code, log = scratch.run(*dirty_build)
    assert code != 0
    assert "docs/index.md:5: snippets/page/hello.py:1: output differs from the approved" in log, log[-3000:]
