"""What a reader who takes the code away gets: every listing runs as shown without this project,
every page notebook passes nbval, and ``make verify`` tells a changed output from an unchanged one.

"Without this project" is a plain interpreter (``python -I``: no PYTHONPATH, no user site, not
even the script's folder or the current one on the path) whose first act is to install an import
blocker for ``snippet_runner`` (the project is installed, editable, in ``.venv``, so ``-I`` alone
would still find it); the tests check that it cannot import it. The notebooks' kernel starts the
same way, from a kernelspec of the test's own. Each listing then
runs in a fork of that interpreter (torch imported once, as ``python x.py`` would run it: as
``__main__``, from its own folder, with that folder on the path), from a copy of the snippets.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import nbformat
import pytest
from real_chapter import DOCS, PROJECT, ROOT, SNIPPETS, chapter_snippets

from snippet_runner.checking.comparison import BUILD, release_only
from snippet_runner.markdown import page_notebooks
from snippet_runner.markdown.run_lines import find_includes, shown_code
from snippet_runner.running import snippet as spec

BLOCKER = r"""
import importlib.abc, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "snippet_runner":
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, Blocked())
"""

PLAIN_RUNNER = (
    BLOCKER
    + r"""
import json, os, runpy

try:
    import snippet_runner
    sys.exit("the project's package is importable")
except ModuleNotFoundError:
    pass
import torch  # once, before forking, as a warm interpreter would have it

# torch's lazy set-up (autograd, the optimizers' first use: about a second), done once, not per fork;
# nothing here draws a random number or starts a thread pool
_w = torch.ones(2, requires_grad=True)
(_w * 2).sum().backward()
torch.optim.SGD([_w], lr=0.1).step()
del _w

root, rels = sys.argv[1], sys.argv[2:]
results = {}
for rel in rels:
    path = os.path.join(root, rel)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.dup2(write, 1)
        os.dup2(write, 2)
        sys.stdout = os.fdopen(1, "w", buffering=1)
        sys.stderr = os.fdopen(2, "w", buffering=1)
        os.chdir(os.path.dirname(path))
        sys.path.insert(0, os.path.dirname(path))
        sys.argv = [path]
        code = 0
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        except BaseException:
            import traceback
            traceback.print_exc()
            code = 1
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(code)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    results[rel] = {"output": b"".join(chunks).decode(), "status": os.waitstatus_to_exitcode(status)}
print(json.dumps(results))
"""
)

FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line \d+, in .*$')
MARKERS = re.compile(r" +[\^~][\^~ ]*")


def plain_environment() -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "SNIPPETS"))}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def as_the_page_shows(output: str, folder: Path, script: str) -> str:
    """What a plain run prints, with the one difference the page is allowed: Python names the
    script by its absolute path in warnings and tracebacks, where the page names it as ``x.py``;
    and a traceback there lists torch's own frames too, which the page trims to the snippet's."""
    output = output.replace(f"{folder}{os.sep}", "")
    lines, out, skipping = output.splitlines(keepends=True), [], False
    for line in lines:
        frame = FRAME.match(line.rstrip("\n"))
        if frame:
            skipping = frame["file"] != script
            if skipping:
                continue
        elif skipping and line.startswith("    "):
            continue  # the code line (and its ^^^ marker) of a frame left out
        elif MARKERS.fullmatch(line.rstrip("\n")):
            continue  # issue 42: Python 3.11+'s ^ and ~ under a code line, which the page leaves out
        else:
            skipping = False
        out.append(line)
    return "".join(out)


def test_no_listing_imports_the_project_package():
    for rel in chapter_snippets():
        tree = ast.parse((SNIPPETS / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(name.split(".")[0] == "snippet_runner" for name in names), rel


def test_every_listing_runs_as_shown_in_a_plain_interpreter(tmp_path):
    copy = tmp_path / "snippets"
    shutil.copytree(SNIPPETS, copy, ignore=shutil.ignore_patterns("*.out", "*.json", "__pycache__"))
    runner = tmp_path / "plain_runner.py"
    runner.write_text(PLAIN_RUNNER, encoding="utf-8")
    rels = chapter_snippets()
    done = subprocess.run(
        [sys.executable, "-I", str(runner), str(copy), *rels],
        cwd=tmp_path,
        env=plain_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout)
    different = []
    for rel in rels:
        snippet = spec.load(SNIPPETS, rel)
        approved = snippet.expected_output_path.read_text(encoding="utf-8")
        folder = (copy / rel).parent
        shown = as_the_page_shows(results[rel]["output"], folder, Path(rel).name)
        expected_status = 0 if snippet.raises is None else 1
        if release_only(shown) != release_only(approved) or results[rel]["status"] != expected_status:
            different.append(f"{rel} (exit {results[rel]['status']}):\n{shown}\n--- approved ---\n{approved}")
    assert not different, "\n\n".join(different)
    assert len(rels) > 70  # every listing and exercise the site shows


# -- the page notebooks and the archive ------------------------------------------------------------


@pytest.fixture(scope="module")
def downloads():
    return page_notebooks.for_project(PROJECT)


def test_each_teaching_page_notebook_holds_its_examples_in_order_with_their_approved_outputs(downloads):
    notebooks, _ = downloads
    by_page = {notebook.page: notebook for notebook in notebooks}
    pages = [p for p in PROJECT.pages() if find_includes(p.read_text(encoding="utf-8"), p.name)]
    assert sorted(by_page) == sorted(p.relative_to(DOCS).as_posix() for p in pages)
    for page in pages:
        src = page.relative_to(DOCS).as_posix()
        notebook = nbformat.reads(by_page[src].text, as_version=4)
        nbformat.validate(notebook)
        rels = [include.rel for include in find_includes(page.read_text(encoding="utf-8"), src)]
        code = [cell for cell in notebook.cells if cell.cell_type == "code"]
        assert [cell.source + "\n" for cell in code] == [shown_code(spec.load(SNIPPETS, r).source)[1] for r in rels]
        for cell, rel in zip(code, rels, strict=True):
            snippet = spec.load(SNIPPETS, rel)
            streamed = "".join(o.text for o in cell.outputs if o.output_type == "stream")
            approved = snippet.expected_output_path.read_text(encoding="utf-8")
            assert approved.startswith(streamed) and (streamed == approved or snippet.raises is not None), rel
            assert "# snippet:" not in cell.source
        first = notebook.cells[0]
        assert first.cell_type == "markdown" and f"](../{src.removesuffix('.md')}.html)" in first.source
        headings = [line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
        assert [c.source for c in notebook.cells if c.cell_type == "markdown" and c.source.startswith("## ")] == [
            h.rstrip() for h in headings
        ]


def test_downloads_are_the_same_bytes_every_time_and_the_archive_holds_every_example(downloads):
    notebooks, bundle = downloads
    stem = page_notebooks.archive_stem(PROJECT.site_name)  # from the site's own name
    assert stem == "pytorch-autograd-and-backpropagation-part-2-examples"
    again_notebooks, again_bundle = page_notebooks.for_project(PROJECT)
    assert [n.text for n in notebooks] == [n.text for n in again_notebooks] and bundle == again_bundle
    with zipfile.ZipFile(__import__("io").BytesIO(bundle)) as archive:
        infos = archive.infolist()
        names = [info.filename.removeprefix(f"{stem}/") for info in infos]
        assert {info.date_time for info in infos} == {page_notebooks.ZIP_DATE}
        for rel in chapter_snippets():
            assert f"examples/{rel}" in names and f"examples/{spec.approved_rel(rel)}" in names
            assert (
                archive.read(f"{stem}/examples/{spec.approved_rel(rel)}")
                == (SNIPPETS / spec.approved_rel(rel)).read_bytes()
            )
        assert {f"notebooks/{n.name}" for n in notebooks} <= set(names) and "README.txt" in names
        readme = archive.read(f"{stem}/README.txt").decode()
    assert "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in readme
    assert '"PyTorch Autograd and Backpropagation (Part 2)"' in readme and "python " in readme


def test_every_page_notebook_passes_nbval_without_the_project_and_a_changed_output_fails(
    downloads, built_site, tmp_path
):
    """All page notebooks, then every exercise notebook as the site offers it, one after
    another in one notebook (so one kernel, not twenty-six), run by nbval as a reader would
    (``pytest --nbval-lax``), from a folder outside the project; the last cell is a copy of a real
    cell whose saved output was changed, and must be the one failure. (The exercises' cells carry
    no nbval tag: nbval runs them and fails on an error, as the exercises page says.)"""
    notebooks, _ = downloads
    exercises = sorted((built_site / "exercises").glob("*.ipynb"))
    assert len(exercises) == len(list((SNIPPETS / "exercises").glob("exercise_*.py")))
    probe = "try:\n    import snippet_runner\nexcept ModuleNotFoundError as error:\n    print(error)"
    cells = [nbformat.v4.new_code_cell(probe)]
    cells[0].id, cells[0].execution_count = "blocker", 1
    cells[0].metadata["tags"] = ["nbval-check-output"]
    cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="No module named 'snippet_runner'\n")]
    for notebook in notebooks:
        cells += nbformat.reads(notebook.text, as_version=4).cells
    for exercise in exercises:
        cells += nbformat.reads(exercise.read_text(encoding="utf-8"), as_version=4).cells
    checked = [c for c in cells if c.cell_type == "code" and "nbval-check-output" in c.metadata.get("tags", [])]
    original = next(c for c in checked if c.outputs and "tensor(" in c.outputs[0].get("text", ""))
    changed = nbformat.from_dict(json.loads(json.dumps(original)))
    changed.id = "changed"
    changed.outputs[0]["text"] = original.outputs[0]["text"].replace("tensor(", "tensor(1", 1)
    combined = nbformat.v4.new_notebook(cells=[*cells, changed])
    combined.metadata = nbformat.reads(notebooks[0].text, as_version=4).metadata
    (tmp_path / "all_pages.ipynb").write_text(nbformat.writes(combined), encoding="utf-8")
    (tmp_path / "blocker.py").write_text(BLOCKER, encoding="utf-8")
    # issue 42: the torch build an output names (+cpu, +cu130) is set aside, as the build does
    (tmp_path / "builds.cfg").write_text(f"[torch build]\nregex: {BUILD.pattern}\nreplace: \\1\n", encoding="utf-8")
    kernel = tmp_path / "jupyter" / "kernels" / "plain"
    kernel.mkdir(parents=True)
    launch = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import blocker; sys.path.pop(0);"
    launch += " from ipykernel.kernelapp import launch_new_instance; launch_new_instance()"
    spec_json = {"argv": [sys.executable, "-I", "-c", launch, "-f", "{connection_file}"], "language": "python"}
    (kernel / "kernel.json").write_text(json.dumps({**spec_json, "display_name": "plain"}), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--nbval-lax"]
        + ["--nbval-kernel-name", "plain", "--nbval-sanitize-with", "builds.cfg"]
        + ["--junitxml", "report.xml", "all_pages.ipynb"],
        cwd=tmp_path,
        env={**plain_environment(), "JUPYTER_PATH": str(tmp_path / "jupyter")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    code = [c for c in combined.cells if c.cell_type == "code"]
    skipped = sum(1 for c in code if "nbval-skip" in c.metadata.get("tags", []))
    summary = done.stdout.strip().splitlines()[-1]
    expected = f"1 failed, {len(code) - 1 - skipped} passed" + (f", {skipped} skipped" if skipped else "")
    assert done.returncode == 1 and expected in summary, done.stdout[-4000:]
    # Which cell failed is read from the JUnit report, not counted in the terminal text, whose
    # summary lines depend on the terminal's width.
    cases = ElementTree.parse(tmp_path / "report.xml").getroot().iter("testcase")
    failed = [case.get("name") for case in cases if case.find("failure") is not None]
    assert failed == [f"Cell {len(code) - 1}"] and "tensor(1" in done.stdout, (failed, done.stdout[-4000:])


# -- make verify ---------------------------------------------------------------------------------


def verify(root: Path, *options: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "SNIPPETS_CACHE_DIR"}
    return subprocess.run(
        [sys.executable, "-m", "snippet_runner", "verify", *options], cwd=root, env=env, capture_output=True, text=True
    )


def test_verify_passes_every_unchanged_example_and_fence_and_reports_the_one_changed_output(tmp_path):
    """One run over a throwaway copy of the whole chapter (every page, snippet and code fence) where
    one approved output is changed: that one differs, with its diff, and every other is the same; one
    more is moved in a last digit, which ``--rtol 1e-3`` lists as close (and passes)."""
    for name in ("mkdocs.yml", "conftest.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "overrides", tmp_path / "overrides")
    shutil.copytree(ROOT / "includes", tmp_path / "includes")  # the pages' shared text (pymdownx.snippets)
    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns("assets"))  # no page there
    shutil.copytree(SNIPPETS, tmp_path / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
    assert sorted(page.relative_to(DOCS) for page in PROJECT.pages()) == sorted(
        page.relative_to(tmp_path / "docs") for page in (tmp_path / "docs").rglob("*.md")
    )
    changed_rel = "chain_rule/autograd_check.py"
    approved = tmp_path / "snippets" / spec.approved_rel(changed_rel)
    # The change is made to whatever the approved file holds: its last line that has a digit gets
    # that digit replaced by another, so the test keeps working when the example's numbers change.
    lines = approved.read_text().splitlines()
    number = max(i for i, line in enumerate(lines) if re.search(r"\d", line))
    printed = lines[number]
    digit = re.search(r"\d", printed)
    changed = printed[: digit.start()] + str((int(digit[0]) + 1) % 10) + printed[digit.end() :]
    approved.write_text("\n".join([*lines[:number], changed, *lines[number + 1 :]]) + "\n")
    close_rel = "best_practices/monitor_loss_and_grad_norm.py"  # its first number of 4 digits, moved in the last
    moved = tmp_path / "snippets" / spec.approved_rel(close_rel)
    text = moved.read_text()
    last = re.search(r"[1-9]\d*\.\d{3}(\d)", text)  # such as 14.7868: its 8 becomes a 9
    assert last, text[:200]
    moved.write_text(text[: last.start(1)] + str((int(last[1]) + 1) % 10) + text[last.end(1) :])
    done = verify(tmp_path, "--rtol", "1e-3")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    rels = chapter_snippets()
    assert changed_rel in rels
    for rel in rels:
        if rel not in (changed_rel, close_rel):
            assert f"same    snippets/{rel}" in lines, rel
    assert f"differs snippets/{changed_rel}" in lines and f"close   snippets/{close_rel}" in lines
    shown = [line.strip() for line in lines]
    assert f"-{changed}".rstrip() in shown and f"+{printed}".rstrip() in shown
    assert any(line.endswith("(code fence)") and line.startswith("same") for line in lines)
    summary = re.search(
        r"^verify: (\d+) checked under .*: (\d+) same, 1 close \(rtol 0.001\), 1 differ, 0 errors$", lines[-1]
    )
    assert summary and int(summary[2]) == int(summary[1]) - 2 >= len(rels) - 1, lines[-1]


# -- what the pages tell a reader to run ------------------------------------------------------------


def test_the_commands_the_home_page_and_exercises_give_are_the_ones_tested():
    """Each command in a bash fence of these pages is one this module (or the project) runs."""
    pins = dict(
        line.split("==")
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if "==" in line and line[0] != "#"
    )
    makefile = (ROOT / "Makefile").read_text()
    tested = [
        rf"pip install torch=={re.escape(pins['torch'])} --index-url https://download\.pytorch\.org/whl/cpu",
        r"pip install numpy",
        rf"pip install nbval=={re.escape(pins['nbval'])}",
        r"pytest --nbval-lax [\w-]+\.ipynb",  # what the nbval test above runs
        r"python -m venv venv && \. venv/bin/activate",
        r"cd snippets/\w+",
        r"python [\w/]+\.py",  # every listing runs as a plain script: the test above
        r"make verify( WITH_PYTHON=\S+| RTOL=[\d.e-]+)?",
    ]
    assert "verify: $(READY)" in makefile and "--python $(WITH_PYTHON)" in makefile and "--rtol $(RTOL)" in makefile
    seen = []
    for page in ("checking-outputs.md", "exercises/index.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        for fence in re.findall(r"```bash\n(.*?)```", text, re.S):
            for command in filter(None, (line.strip() for line in fence.splitlines())):
                assert any(re.fullmatch(p, command) for p in tested), f"{page}: untested command {command!r}"
                seen.append(command)
    for command in seen:
        if command.startswith("cd snippets/"):
            assert (ROOT / command.removeprefix("cd ")).is_dir()
        if re.fullmatch(r"python [\w/]+\.py", command) and "/" in command.split()[1]:
            assert (ROOT / command.split()[1]).is_file()
    assert any("--index-url" in c for c in seen) and any(c.startswith("make verify") for c in seen)


def test_the_built_site_links_each_page_notebook_and_the_archive_and_ships_them(built_site, downloads):
    notebooks, bundle = downloads
    folder = built_site / page_notebooks.FOLDER
    archive = f"{page_notebooks.archive_stem(PROJECT.site_name)}.zip"
    assert (folder / archive).read_bytes() == bundle  # what a build of this commit writes
    for notebook in notebooks:
        assert (folder / notebook.name).read_text(encoding="utf-8") == notebook.text
        html = (built_site / notebook.page.replace(".md", ".html")).read_text(encoding="utf-8")
        depth = "../" * notebook.page.count("/")
        assert f'href="{depth}downloads/{notebook.name}" download' in html, notebook.page
        assert f'href="{depth}downloads/{archive}" download' in html, notebook.page
    without = (built_site / "about-this-edition.html").read_text(encoding="utf-8")
    assert "examples-download" not in without  # a page with no example offers none
