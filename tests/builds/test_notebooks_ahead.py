"""The notebook pages rendered in a forked copy of the build (plugins/runner/notebooks_ahead.py):
what the copy writes is taken only when it ended well and logged no warning, and is then the same
page the build renders itself."""

from __future__ import annotations

import logging
import pathlib
import shutil
from types import SimpleNamespace

from snippet_runner.plugins.runner import notebooks_ahead
from tests.builds.test_fast_builds import NOTEBOOKS

LESSON = "# %% [markdown]\n# # A lesson\n\n# %%\nprint('lesson')\n"


class FakeJupyter:
    """Stands for mkdocs-jupyter: its render writes an entry with Path.write_text, then does ``then``."""

    def __init__(self, entry: pathlib.Path, then=None):
        self.entry, self.then = entry, then

    def on_pre_page(self, page, *, config, files):
        def render(config, files):
            self.entry.write_text('{"content": "<p>converted</p>"}', encoding="utf-8")
            if self.then is not None:
                self.then()

        page.render = render


def _page(name: str):
    return SimpleNamespace(file=SimpleNamespace(src_uri=name))


def _fail():
    raise RuntimeError("nbconvert broke")


def _warn():
    logging.getLogger("mkdocs.plugins.mkdocs_jupyter").warning("a notebook cell has no source")


def test_what_the_copy_wrote_is_kept_when_it_ended_well_and_removed_when_not(tmp_path):
    write_text = pathlib.Path.write_text
    outcomes = {}
    for name, then in (("well", None), ("failed", _fail), ("warned", _warn)):
        entry = tmp_path / f"{name}.json"
        ahead = notebooks_ahead.start([_page(f"{name}.ipynb")], FakeJupyter(entry, then), config={}, files=[])
        assert ahead is not None and ahead.pages == [f"{name}.ipynb"]
        outcomes[name] = (ahead.wait(), entry.exists())
        assert ahead.wait() == outcomes[name][0]  # waited for once
    assert outcomes == {"well": (True, True), "failed": (False, False), "warned": (False, False)}
    assert (tmp_path / "well.json").read_text() == '{"content": "<p>converted</p>"}'
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    assert pathlib.Path.write_text is write_text  # the copy's atomic write stayed in the copy


def test_a_cold_build_renders_the_notebooks_ahead_and_the_page_is_the_one_the_build_renders(scratch):
    scratch.write("mkdocs.yml", NOTEBOOKS)
    scratch.write("snippets/lessons/lesson_1.py", LESSON)
    scratch.write("snippets/lessons/lesson_1.out", "lesson\n")
    page = scratch.root / "site" / "lessons" / "lesson_1" / "index.html"

    code, log = scratch.build()
    assert code == 0, log
    assert "notebooks: 1 pages rendered ahead" in log and "Cache hit" in log, log
    ahead = page.read_bytes()

    # the notebook is unchanged, so nothing is rendered ahead: mkdocs-jupyter converts it in the build
    shutil.rmtree(scratch.root / ".cache" / "mkdocs-jupyter")
    code, log = scratch.build(force=True)
    assert code == 0, log
    assert "rendered ahead" not in log and "Converting notebook" in log, log
    assert page.read_bytes() == ahead
