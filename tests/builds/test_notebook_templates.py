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


# Imports nbconvert, through lazy_jupyter or directly, counting the reads of the installed
# distributions' entry points, and whether importlib.metadata's own function is in place after.
COUNT_ENTRY_POINT_READS = r"""
import importlib.metadata as metadata, json, sys

reads = []
read = metadata.entry_points
def counted(**selection):
    reads.append(json.dumps(sorted(selection.items())))
    return read(**selection)
metadata.entry_points = counted

if sys.argv[1] == "lazy_jupyter":
    from snippet_runner.plugins.runner import lazy_jupyter
    lazy_jupyter.defer_notebook_converter()
    from mkdocs_jupyter import convert
    convert.nb2html  # the first attribute read imports it
else:
    from mkdocs_jupyter import convert
import nbconvert.exporters.base as base
print(json.dumps({"reads": len(reads), "distinct": len(set(reads)), "restored": base.entry_points is counted}))
"""


def _entry_point_reads(way: str) -> dict:
    done = subprocess.run([sys.executable, "-c", COUNT_ENTRY_POINT_READS, way], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_nbconvert_reads_each_kind_of_entry_point_once_while_it_is_imported():
    ours = _entry_point_reads("lazy_jupyter")
    assert ours["distinct"] >= 1 and ours["reads"] == ours["distinct"]
    assert ours["restored"]  # nbconvert's later questions go to importlib.metadata itself
    alone = _entry_point_reads("directly")  # the control: nbconvert as it ships asks again and again
    assert alone["distinct"] == ours["distinct"] and alone["reads"] > alone["distinct"]
