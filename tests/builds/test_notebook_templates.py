"""nbconvert's Jinja templates are compiled once, not once per notebook (plugins/runner/lazy_jupyter.py):
mkdocs-jupyter makes a new exporter, and so a new Jinja environment, for every notebook it converts."""

from __future__ import annotations

import json
import subprocess
import sys

# Converts two notebooks the way the build does (mkdocs-jupyter loaded through lazy_jupyter) and
# prints how many templates Jinja compiled for each.
CONVERT_TWO = r"""
import json, sys
from pathlib import Path

import jinja2
import nbformat

from snippet_runner.plugins.runner import lazy_jupyter

compiled = []
compile_ = jinja2.Environment.compile
def counted(self, source, name=None, filename=None, raw=False, defer_init=False):
    compiled.append(name)
    return compile_(self, source, name, filename, raw, defer_init)
jinja2.Environment.compile = counted

folder = Path(sys.argv[1])
lazy_jupyter.defer_notebook_converter()
if sys.argv[2] == "shared":
    lazy_jupyter.cache_compiled_templates(folder / "templates")
from mkdocs_jupyter import convert

counts = []
for n in (1, 2):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"print({n})")])
    path = folder / f"n{n}.ipynb"
    path.write_text(nbformat.writes(notebook))
    before = len(compiled)
    convert.nb2html(str(path), execute=False, theme="light")
    counts.append(len(compiled) - before)
print(json.dumps(counts))
"""


def _compiled(tmp_path, mode: str) -> list[int]:
    (tmp_path / "templates").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", CONVERT_TWO, str(tmp_path), mode], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_second_notebook_compiles_no_template(tmp_path):
    first, second = _compiled(tmp_path, "shared")
    assert first > 0, "the first conversion compiled nothing: the count is void"
    assert second == 0
    assert list((tmp_path / "templates").iterdir()), "nothing was kept in the bytecode cache"


def test_without_the_shared_cache_every_notebook_compiles_them_again(tmp_path):
    """The control: what the shared cache saves is real."""
    first, second = _compiled(tmp_path, "own")
    assert first > 0 and second == first
