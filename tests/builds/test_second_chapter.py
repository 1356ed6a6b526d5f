"""A second chapter, not this one (tests/second_chapter/: two pages, a graph, a second derivative
and its formula, typeset by the engine's KaTeX), built the way dev/your-own-chapter.md says: from
the engine's wheel, in a fresh virtualenv that has no clone, no node_modules and no path into this
repository. What it needs comes from the wheel, or from the machine's uv cache and pip's find-links
(the Makefile's way), never the network."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from browser.pdf_text import PdfText
from real_chapter import ROOT

SECOND = ROOT / "tests" / "second_chapter"
UV = Path(sys.executable).with_name("uv")


def _find_links() -> list[str]:
    """Where pip is told to find wheels on this machine (`pip config list`), as the Makefile reads it."""
    base = Path(sys.base_prefix) / "bin" / "python3"
    listed = subprocess.run([base, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    return [f"--find-links={p}" for line in re.findall(r"find-links='(.*)'", listed) for p in line.split()]


def run(*args, cwd: Path, env: dict, ok: bool = True) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    out = done.stdout + done.stderr
    assert (done.returncode == 0) == ok, f"{args}: exit {done.returncode}\n{out}"
    return out


@pytest.fixture(scope="module")
def chapter(tmp_path_factory) -> tuple[Path, Path, dict]:
    """``(project, its python, env)``: the wheel built from this repository, installed with Material,
    print-site and the pinned torch into a fresh virtualenv; the second chapter a git repository."""
    tmp = tmp_path_factory.mktemp("second-chapter")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SNIPPETS_", "PYTHON", "VIRTUAL_ENV"))}
    env |= {"NO_MKDOCS_2_WARNING": "1", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    source = tmp / "source"  # what the wheel is built from, copied: no build/ left in, or taken from, the checkout
    shutil.copytree(ROOT / "snippet_runner", source / "snippet_runner", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.py"):
        shutil.copyfile(ROOT / name, source / name)
    (source / "node_modules").symlink_to(ROOT / "node_modules")  # as `npm ci` left it
    run(UV, "build", "--offline", "--quiet", "--wheel", "--out-dir", tmp / "dist", source, cwd=tmp, env=env)
    (wheel,) = (tmp / "dist").glob("snippet_runner-*.whl")
    with zipfile.ZipFile(wheel) as archive:  # what the engine reads at run time besides its modules
        names = set(archive.namelist())
    pictures, assets = "snippet_runner/pictures/", "snippet_runner/plugins/runner/assets/"
    assert {f"{pictures}vizjs.mjs", f"{pictures}node_modules/@viz-js/viz/dist/viz.js"} <= names
    assert {f"{assets}{name}" for name in ("backward-steps.js", "backward-steps.css", "snippets.css")} <= names
    katex = ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js", "fonts/KaTeX_Main-Regular.woff2", "LICENSE")
    assert {f"{assets}katex/{name}" for name in katex} <= names  # from npm's katex, as setup.py copies it
    templates = ("site/report.html", "plugins/drift/report.md.j2", "starter_project/mkdocs.yml")
    templates += ("markdown/archive_readme.txt", "site/pdf_footer.html")
    assert {f"snippet_runner/{name}" for name in templates} <= names
    run(UV, "venv", "--quiet", "--python", sys.executable, tmp / "venv", cwd=tmp, env=env)
    python = tmp / "venv" / "bin" / "python"
    pins = [f"--constraint={ROOT / name}" for name in ("requirements.txt", "constraints.txt")]
    install = [f"{wheel}[pdf]", "torch==2.13.0", "numpy", "pytest"]
    run(
        UV,
        "pip",
        "install",
        "--offline",
        "--quiet",
        "--python",
        python,
        *_find_links(),
        *pins,
        *install,
        cwd=tmp,
        env=env,
    )
    project = tmp / "project"
    shutil.copytree(SECOND, project)
    git = ("git", "-c", "user.name=t", "-c", "user.email=t@t")
    run("git", "init", "--quiet", cwd=project, env=env)
    run(*git, "add", "--all", cwd=project, env=env)
    run(*git, "commit", "--quiet", "--message", "second chapter", cwd=project, env=env)
    env["PATH"] = f"{python.parent}{os.pathsep}{env['PATH']}"  # as after `. venv/bin/activate`
    return project, python, env


def test_a_second_chapter_from_the_wheel_alone(chapter):
    project, python, env = chapter
    engine = run(python, "-c", "import snippet_runner; print(snippet_runner.__file__)", cwd=project, env=env)
    assert str(ROOT) not in engine and "site-packages" in engine  # the wheel's copy, not this checkout
    approved = (project / "snippets/second/twice.out").read_text()
    (project / "snippets/second/twice.out").unlink()

    # a build that warns, as serve does: the unapproved example's notice names the command that exists
    run(
        python,
        "-m",
        "mkdocs",
        "build",
        "--quiet",
        "--site-dir",
        "preview",
        cwd=project,
        env={**env, "SNIPPETS_APPROVAL": "warn"},
    )
    second = (project / "preview/second/index.html").read_text()
    assert "Output not yet approved" in second and "python -m snippet_runner accept second/twice.py" in second
    assert "make " not in re.sub(r"<[^>]+>", "", second)
    shutil.rmtree(project / "preview")
    strict = run(python, "-m", "snippet_runner", "site", cwd=project, env=env, ok=False)
    assert "python -m snippet_runner accept second/twice.py" in strict and "Traceback" not in strict

    run(python, "-m", "snippet_runner", "accept", "second/twice.py", cwd=project, env=env)
    assert (project / "snippets/second/twice.out").read_text() == approved
    run(python, "-m", "snippet_runner", "site", cwd=project, env=env)
    index = (project / "site/index.html").read_text()
    assert "<svg" in index and "backward-steps.js" in index  # the graph, laid out from the wheel's Graphviz
    assert (project / "site/assets/snippet-runner/backward-steps.js").is_file()
    assert 'href="downloads/higher-order-gradients-part-3-examples.zip" download' in index
    assert (project / "site/downloads/higher-order-gradients-part-3-examples.zip").is_file()
    assert "same" in run(python, "-m", "snippet_runner", "verify", cwd=project, env=env)
    # the formulas: typeset by the engine's KaTeX, the files in the site, the PDF printed once they rendered
    page = (project / "site/second/index.html").read_text()
    math = ["katex/katex.min.css", "katex/katex.min.js", "katex/contrib/auto-render.min.js", "math.js"]
    assert all(f"../assets/snippet-runner/{name}" in page for name in math), page
    assert all((project / "site/assets/snippet-runner" / name).is_file() for name in math)
    assert (project / "site/assets/snippet-runner/katex/fonts/KaTeX_Main-Regular.woff2").is_file()
    printed = PdfText(project / "site/pdf/part3.pdf").all_text()
    assert "second derivative" in printed and "\\frac" not in printed and "⋅" in printed, printed  # \cdot, typeset

    passed = run(python, "-m", "pytest", "--snippets", "-p", "no:cacheprovider", cwd=project, env=env)
    assert "2 passed" in passed
    (project / "snippets/second/twice.out").write_text("27.0 19.0\n")
    failed = run(python, "-m", "pytest", "--snippets", "-p", "no:cacheprovider", cwd=project, env=env, ok=False)
    # the engine's message, whose lines after the first are indented (no line it quotes starts a log line)
    assert "1 failed, 1 passed" in failed and re.search(r"-27\.0 19\.0\n\s*\+27\.0 18\.0", failed)
    (project / "snippets/second/twice.out").write_text(approved)

    left = run("git", "status", "--porcelain", "--untracked-files=all", cwd=project, env=env)
    assert left == "", f"written by the engine, not covered by .gitignore:\n{left}"
    assert run("git", "status", "--porcelain", "--ignored", cwd=project, env=env).count("!!") >= 3


def test_serve_leaves_out_the_print_page_whatever_mkdocs_yml_says(tmp_path, monkeypatch):
    """print-site enabled in mkdocs.yml, no environment variable: a build has the print page, serve
    (the plugin on MkDocs' `serve` command) does not."""
    from devtools.scratch import ScratchProject, serving

    monkeypatch.delenv("SNIPPETS_PRINT_PAGE", raising=False)
    config = "site_name: s\ntheme: mkdocs\nplugins:\n  - snippet-runner:\n      preload: []\n  - print-site\n"
    scratch = ScratchProject.minimal(tmp_path / "project", config)
    code, log = scratch.mkdocs_build()
    assert code == 0 and (scratch.root / "site/print_page/index.html").is_file(), log
    with serving(scratch.root, tmp_path / "served") as session:
        session.rebuild()
    assert (tmp_path / "served/index.html").is_file()
    assert not (tmp_path / "served/print_page").exists()
