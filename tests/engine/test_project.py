"""One project model: every setting is read once from mkdocs.yml, and the build, `make accept` and the
test suite's view of the chapter all follow it. Checked on a throwaway project whose settings differ
from the defaults (another snippets folder, another cache folder, nothing preloaded)."""

from __future__ import annotations

from snippet_runner.project import PdfTarget, Project

CONFIG = """
site_name: settings
theme: mkdocs
strict: true
plugins:
  - snippet-runner:
      snippets_dir: examples
      cache_dir: build-cache/runs
      preload: []
      notebooks:
        lessons: lessons
      build_info: page/hello.py
  - mkdocs-jupyter:
      execute: false
"""


def test_every_setting_comes_from_the_plugin_configuration(scratch):
    scratch.write("mkdocs.yml", CONFIG)
    project = Project.load(scratch.root / "mkdocs.yml")
    assert project.snippets_dir == scratch.root / "examples"
    assert project.cache_dir == scratch.root / "build-cache" / "runs"
    assert project.preload == ()
    assert project.notebooks == {"lessons": "lessons"}
    assert project.build_info == "page/hello.py"
    assert project.pdf is None  # no print-site plugin, no PDF
    engine = project.engine()
    try:
        assert engine.preload == () and engine.snippets_dir == project.snippets_dir
    finally:
        engine.close()


def test_the_pdf_target_is_the_print_site_setting(scratch):
    scratch.write("mkdocs.yml", CONFIG + "  - print-site:\n      path_to_pdf: book/chapter.pdf\n")
    assert Project.load(scratch.root / "mkdocs.yml").pdf == PdfTarget("print_page", "book/chapter.pdf")


def test_accept_build_and_the_chapter_list_follow_another_snippets_folder(scratch):
    scratch.write("mkdocs.yml", CONFIG)
    (scratch.root / "snippets").rename(scratch.root / "examples")
    (scratch.root / "examples" / "page" / "hello.out").unlink()
    scratch.write("examples/lessons/lesson_1.py", "# %% [markdown]\n# A lesson\n\n# %%\nprint('lesson')\n")

    project = Project.load(scratch.root / "mkdocs.yml")
    assert project.shown() == {
        "page/hello.py": ["docs/index.md:5"],
        "lessons/lesson_1.py": ["docs/lessons/lesson_1.ipynb"],
    }

    code, log = scratch.accept()
    assert code == 0, log
    assert "updated examples/page/hello.out" in log and "updated examples/lessons/lesson_1.out" in log
    assert (scratch.root / "examples" / "page" / "hello.out").read_text() == "hello\n"
    assert not (scratch.root / "snippets").exists()

    code, log = scratch.build()
    assert code == 0, log
    assert "examples/page/hello.py" in (scratch.root / "site" / "index.html").read_text()
    assert "lesson" in (scratch.root / "site" / "lessons" / "lesson_1" / "index.html").read_text()
    assert list((scratch.root / "build-cache" / "runs").rglob("*.json"))  # the configured cache
    assert not (scratch.root / ".cache" / "snippets").exists()

    scratch.write("examples/page/hello.py", "print('changed')\n")
    code, log = scratch.build()
    assert code != 0 and "output differs from the approved examples/page/hello.out" in log
