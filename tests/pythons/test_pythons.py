"""Python 3.11 to 3.14 (issue 42): the interpreter the Makefile picks, and the same outputs under each.

The other Pythons are the ones pyenv keeps on this kind of machine (3.10, 3.12, 3.13 beside 3.11); a
test that needs one is skipped only where that interpreter is not installed. The snippets here need
no torch, so each version's worker starts in a fraction of a second.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from real_chapter import ROOT

from devtools.scratch import MINIMAL_CONFIG, ScratchProject

PYENV_VERSIONS = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"


def installed(version: str) -> str | None:
    """An interpreter of ``version`` ("3.12") on this machine: pyenv's, else one on PATH."""
    candidates = sorted(PYENV_VERSIONS.glob(f"{version}.*/bin/python{version}"))
    candidates.append(Path(shutil.which(f"python{version}") or "/nonexistent"))
    for path in candidates:
        done = subprocess.run([path, "--version"], capture_output=True, text=True) if path.is_file() else None
        if done is not None and done.stdout.startswith(f"Python {version}."):
            return str(path)
    return None


def needs(version: str):
    """The interpreter as a pytest parameter, skipped where this machine has none."""
    found = installed(version)
    reason = f"Python {version} is not installed on this machine (neither under {PYENV_VERSIONS} nor on PATH)"
    return pytest.param(found, id=version, marks=pytest.mark.skipif(found is None, reason=reason))


# -- the same outputs under every Python --------------------------------------------------------

# A traceback through a method call: 3.11 and 3.12 mark `box.open()` with ^^^^^^^^^^, 3.13 with
# ~~~~~~~~^^. The call into box.py passes a warning raised in the snippet's local module.
BROKEN = """
# snippet: raises KeyError: 'lid'
from box import Box

box = Box()
print("opening the box")
box.open()  # it has no lid: this raises
"""
BOX = """
import warnings


class Box:
    parts = {}

    def open(self):
        warnings.warn("opening a box without a lid", UserWarning)
        return self.parts["lid"]
"""
WARNS = """
import warnings

warnings.warn("shown as the snippet's own line", DeprecationWarning, stacklevel=1)
print(sorted({3, 1, 2}))
"""


@pytest.fixture(scope="module")
def approved_here(tmp_path_factory) -> ScratchProject:
    """A project of those snippets, approved by ``make accept`` under this interpreter (3.11 here)."""
    project = ScratchProject.minimal(tmp_path_factory.mktemp("pythons"))
    project.write("docs/index.md", "# Page\n\n{{ run page/broken.py }}\n\n{{ run page/warns.py }}\n")
    project.write("snippets/page/broken.py", BROKEN)
    project.write("snippets/page/box.py", BOX)
    project.write("snippets/page/warns.py", WARNS)
    code, out = project.run("-m", "snippet_runner", "accept")
    assert code == 0, out
    return project


def test_the_approved_traceback_and_warning_are_the_engines_forms(approved_here):
    """What the others are compared with: the snippet's and its module's frames, each with its
    source line and no marker line under it, and the warning at the module's line."""
    output = (approved_here.root / "snippets/page/broken.out").read_text()
    assert output.startswith("opening the box\nbox.py:8: UserWarning: opening a box without a lid\n"), output
    assert '  File "broken.py", line 6, in <module>\n    box.open()  # it has no lid: this raises\n' in output
    assert '  File "box.py", line 9, in open\n    return self.parts["lid"]\nKeyError: \'lid\'\n' in output
    assert not [line for line in output.splitlines() if line.strip() and not line.strip("^~ ")], output
    warned = (approved_here.root / "snippets/page/warns.out").read_text()
    assert warned.startswith("warns.py:3: DeprecationWarning: shown as the snippet's own line\n"), warned


@pytest.mark.parametrize("python", [needs("3.12"), needs("3.13")])
def test_tracebacks_and_warnings_read_the_same_under_another_python(approved_here, python):
    code, out, err = approved_here.run_split("-m", "snippet_runner", "verify", "--python", python)
    assert code == 0, out + err
    lines = out.splitlines()
    assert "same    snippets/page/broken.py" in lines and "same    snippets/page/warns.py" in lines, out
    assert lines[-1].endswith(": 2 same, 0 close, 0 differ, 0 errors"), out


@pytest.mark.parametrize("python", [needs("3.10")])
def test_a_python_the_worker_cannot_run_under_gets_one_message(approved_here, python):
    code, out, err = approved_here.run_split("-m", "snippet_runner", "verify", "--python", python)
    assert code == 2 and out == "", out + err
    assert err.splitlines() == [
        f"verify: {python} is Python {err.split(' is Python ')[1].split(';')[0]};"
        " the examples' worker runs on Python 3.11 to 3.14: point it at one of those"
    ], err
    assert " is Python 3.10." in err


@pytest.mark.parametrize("python", [needs("3.12")])
def test_a_python_without_the_preloaded_packages_gets_one_message(tmp_path, python):
    """pyenv's own 3.12 has no torch: one sentence, not an error per example."""
    project = ScratchProject.minimal(tmp_path, MINIMAL_CONFIG.replace("preload: []", "preload: [torch]"))
    code, out, err = project.run_split("-m", "snippet_runner", "verify", "--python", python)
    assert (code, out) == (2, ""), out + err
    assert err.splitlines() == [f"verify: {python} cannot import torch, which the examples need: install it there"]


def test_an_output_naming_another_build_of_the_same_torch_is_the_environment_not_a_difference(tmp_path):
    """Approved under another build of the torch installed here (+cu130, PyPI's Linux build, where
    this one is +cpu; else +cpu): same, with a line naming both builds; anything else that differs
    is still a difference."""
    project = ScratchProject.minimal(tmp_path, MINIMAL_CONFIG.replace("preload: []", "preload: [torch]"))
    project.write("docs/index.md", "# Page\n\n{{ run page/version.py }}\n\n{{ run page/other.py }}\n")
    printing = 'import torch\n\nprint("PyTorch", torch.__version__)\nprint("CUDA available:", False)\n'
    project.write("snippets/page/version.py", printing)
    project.write("snippets/page/other.py", printing)
    import torch  # the worker runs this interpreter's torch

    here = torch.__version__  # not PyPI's metadata, which has no label
    shown = f"PyTorch {here}\nCUDA available: False\n"  # what both print here; verify compares with it
    release = here.split("+")[0]
    other = f"{release}+cu130" if here.endswith("+cpu") else f"{release}+cpu"
    # as make accept would have written them under the other build
    (project.root / "snippets/page/version.out").write_text(shown.replace(here, other))
    changed = shown.replace(here, other).replace("False", "True")
    (project.root / "snippets/page/other.out").write_text(changed)
    code, out, err = project.run_split("-m", "snippet_runner", "verify")
    lines = out.splitlines()
    assert code == 1, out + err
    at = lines.index("same    snippets/page/version.py")
    assert lines[at + 1].strip() == f"names the torch build it ran under: {here} (approved under {other})"
    assert "differs snippets/page/other.py" in lines
    assert lines[-1].endswith(" (1 naming the torch build it ran under): 1 same, 0 close, 1 differ, 0 errors")


# -- the interpreter the Makefile picks -----------------------------------------------------------


@pytest.fixture(scope="module")
def bare_path(tmp_path_factory) -> Path:
    """A folder with every program of /usr/bin and /bin but no Python: a PATH of a machine
    with none, to which a test adds the Pythons it wants."""
    folder = tmp_path_factory.mktemp("bin")
    for system in ("/usr/local/bin", "/usr/bin", "/bin"):
        for program in sorted(Path(system).iterdir()) if Path(system).is_dir() else []:
            name = program.name
            if not re.match(r"(python|pip|pydoc|idle|2to3)", name) and not (folder / name).exists():
                (folder / name).symlink_to(program)
    return folder


def with_pythons(tmp_path: Path, bare: Path, **names: str | None) -> str:
    """A PATH of ``bare`` and a folder holding each ``name=interpreter`` given (python3_12=...)."""
    folder = tmp_path / "pythons"
    folder.mkdir()
    for name, target in names.items():
        if target is None:
            pytest.skip(f"{name.replace('_', '.')} is not installed on this machine")
        (folder / name.replace("_", ".")).symlink_to(target)
    return f"{folder}:{bare}"


def make(tmp_path: Path, path: str, *args: str) -> subprocess.CompletedProcess:
    """``make <args>`` in a fresh copy of what the set-up reads (no .venv), on that PATH."""
    clone = tmp_path / "clone"
    clone.mkdir(exist_ok=True)
    for name in ("Makefile", "requirements.txt", "constraints.txt", "pyproject.toml"):
        shutil.copy(ROOT / name, clone / name)
    shutil.copytree(ROOT / "tools", clone / "tools", dirs_exist_ok=True)
    env = {"PATH": path, "HOME": os.environ.get("HOME", "/root")}
    return subprocess.run(["/usr/bin/env", "make", *args], cwd=clone, env=env, capture_output=True, text=True)


def venv_made_with(done: subprocess.CompletedProcess) -> str:
    """The interpreter `make -n` would make .venv with."""
    (line,) = [line for line in done.stdout.splitlines() if "-m venv" in line]
    return re.search(r"\|\| (\S+) -m venv", line)[1]


def test_with_only_python3_12_on_path_the_venv_is_made_with_it(tmp_path, bare_path):
    path = with_pythons(tmp_path, bare_path, python3_12=installed("3.12"))
    done = make(tmp_path, path, "-n", ".venv/.installed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert venv_made_with(done) == str(tmp_path / "pythons" / "python3.12")


def test_python3_11_first_then_the_newest(tmp_path, bare_path):
    path = with_pythons(
        tmp_path, bare_path, python3_12=installed("3.12"), python3_13=installed("3.13"), python3=installed("3.12")
    )
    assert venv_made_with(make(tmp_path, path, "-n", ".venv/.installed")).endswith("/python3.13")
    (tmp_path / "pythons" / "python3.11").symlink_to(installed("3.11") or pytest.skip("no Python 3.11 here"))
    assert venv_made_with(make(tmp_path, path, "-n", ".venv/.installed")).endswith("/python3.11")


def test_python3_itself_when_it_is_in_range(tmp_path, bare_path):
    path = with_pythons(tmp_path, bare_path, python3=installed("3.13"))
    assert venv_made_with(make(tmp_path, path, "-n", ".venv/.installed")).endswith("/python3")


@pytest.mark.parametrize(
    ("pythons", "problem"),
    [
        ({"python3_10": "3.10", "python3": "3.10"}, r"on PATH, python3 is 3\.10\.\d+"),
        ({}, "there is no python3 on PATH"),
    ],
    ids=["only-3.10", "none"],
)
def test_without_a_supported_python_one_message_says_what_to_install(tmp_path, bare_path, pythons, problem):
    path = with_pythons(tmp_path, bare_path, **{name: installed(version) for name, version in pythons.items()})
    done = make(tmp_path, path, ".venv/.installed")
    assert done.returncode != 0 and done.stdout == "", done.stdout
    errors = [line for line in done.stderr.splitlines() if not line.startswith("make: ***")]
    assert len(errors) == 1, done.stderr
    assert re.fullmatch(
        rf"error: this project needs Python 3\.11 to 3\.14, and {problem}\. Install one \(.*\), or name one: make PYTHON=/path/to/python3",
        errors[0],
    ), errors[0]
    assert not (tmp_path / "clone" / ".venv").exists()


def venv(tmp_path: Path, version: str) -> Path:
    """A .venv in the copy, made with Python ``version``; the interpreter it links to."""
    python = installed(version) or pytest.skip(f"Python {version} is not installed on this machine")
    (tmp_path / "clone").mkdir()
    subprocess.run([python, "-m", "venv", "--without-pip", tmp_path / "clone" / ".venv"], check=True)
    return (tmp_path / "clone" / ".venv" / "bin" / "python").resolve()


def test_an_existing_venv_of_a_supported_python_is_kept(tmp_path, bare_path):
    """Made by hand with 3.13 (as the README's CPU build of torch asks), with only 3.12 on PATH."""
    made_with = venv(tmp_path, "3.13")
    path = with_pythons(tmp_path, bare_path, python3_12=installed("3.12"))
    assert venv_made_with(make(tmp_path, path, "-n", ".venv/.installed")) == str(made_with)


@pytest.mark.parametrize(
    ("made_with", "args", "problem"),
    [
        ("3.10", (), r"Python 3\.10, and make now uses \S+/python3\.12 \(Python 3\.12\)"),
        ("3.13", ("PYTHON=python3.12",), r"Python 3\.13, and make now uses \S+/python3\.12 \(Python 3\.12\)"),
    ],
    ids=["out-of-range", "not-the-one-named"],
)
def test_a_venv_made_with_another_python_is_named(tmp_path, bare_path, made_with, args, problem):
    venv(tmp_path, made_with)
    path = with_pythons(tmp_path, bare_path, python3_12=installed("3.12"))
    done = make(tmp_path, path, ".venv/.installed", *args)
    assert done.returncode != 0, done.stdout + done.stderr
    message = done.stderr.splitlines()[0]
    assert re.fullmatch(
        rf"error: \.venv was made with {problem}: remove it \(rm -rf \.venv\) and run make again,"
        rf" or keep it with make PYTHON=python{made_with}",
        message,
    ), message


# -- the build of torch an output names -----------------------------------------------------------


@pytest.mark.parametrize(
    ("printed", "builds"),
    [
        ("PyTorch 2.13.0+cu130\n", "2.13.0+cu130 (approved under 2.13.0+cpu)"),  # PyPI's Linux wheel
        ("PyTorch 2.13.0\n", "2.13.0 (approved under 2.13.0+cpu)"),  # macOS's
        ("PyTorch 2.13.0+cpu\n", ""),
    ],
)
def test_another_build_of_the_same_release_passes_the_build_and_keeps_the_approved_file(write_snippet, printed, builds):
    """In the strict build, not only in make verify: a CUDA build of the pinned torch builds the site."""
    from snippet_runner import Engine
    from snippet_runner.checking.comparison import compare, write

    write_snippet("page/version.py", f"print({printed!r}, end='')\n")
    approved = write_snippet("page/version.out", "PyTorch 2.13.0+cpu\n")
    engine = Engine(write_snippet.snippets, approval_mode="strict", preload=())
    try:
        outcome = engine.run("page/version.py")
    finally:
        engine.close()
    assert outcome.output == printed and outcome.verdict.approved  # the page shows this run's
    assert compare(approved, outcome.output, "version.out").builds == builds  # what make verify says
    assert write(approved, outcome.output) is False and approved.read_text() == "PyTorch 2.13.0+cpu\n"


@pytest.mark.parametrize(
    ("approved_text", "printed"),
    [
        ("PyTorch 2.13.0+cpu\n", "PyTorch 2.14.0+cpu\n"),  # another release
        ("1.5+2.5 = 4.0\n", "1.5+3.5 = 5.0\n"),  # a sum, not a build label
        ("PyTorch 2.13.0+cpu\nCUDA available: False\n", "PyTorch 2.13.0+cu130\nCUDA available: True\n"),
    ],
    ids=["release", "sum", "another-line"],
)
def test_anything_else_is_still_a_difference(write_snippet, approved_text, printed):
    from snippet_runner import Engine, SnippetError

    write_snippet("page/version.py", f"print({printed!r}, end='')\n")
    write_snippet("page/version.out", approved_text)
    engine = Engine(write_snippet.snippets, approval_mode="strict", preload=())
    try:
        with pytest.raises(SnippetError, match="output differs from the approved"):
            engine.run("page/version.py")
    finally:
        engine.close()
