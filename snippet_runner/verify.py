"""Check every example against its approved output, on the reader's own machine: ``make verify``.

``python -m snippet_runner verify [--python PATH]`` runs every example the site shows (page
listings, then the exercise scripts) and every ``python`` code fence of the pages, fresh, in the
interpreter given (default: this one), and prints one line for each: ``same``, ``differs`` (with
the diff) or ``error`` (the engine's message), then a summary. It exits 1 if anything is not the
same. No site is built and no browser is needed: it costs the worker's ``import torch`` and the
examples themselves, a few seconds.

**Another interpreter** (a conda env with another torch, a machine with a GPU): ``--python``
names it, and the engine's worker runs under it, exactly as ``make drift`` does; only torch and
numpy need to be installed there (this project's folder is put on that worker's path, and nothing
of it is installed into the environment). The build side, which reads the pages and compares,
stays in the project's own ``.venv``.

**Which Pythons.** Any the worker runs on (:mod:`snippet_runner.pythons`: 3.11 to 3.14) with the
preloaded packages installed. Another is refused before anything runs, with one message (3.10 could
not even start the worker, and said so once per example).

**The torch build an example names.** An example that prints ``torch.__version__`` names the build it
ran under (``2.13.0+cpu``; ``2.13.0+cu130`` from PyPI on Linux). The comparison sets that label aside
(:mod:`snippet_runner.checking.approved`, ``BUILD``), as the build does: such an example is ``same``,
with a line naming both builds. No example is named: any may print the version, and nothing else in
an output is forgiven.

**The comparison is the engine's.** Each example runs through :class:`~snippet_runner.engine.Engine`
in its ``warn`` approval mode, which compares the output and the pictures' data with the approved
files (:mod:`snippet_runner.approval`) and says so in ``Outcome.verdict``; anything the build would
refuse (a different exception, a crash, a time-out, a memory address) is its ``SnippetError``. A
code fence prints nothing on the page, so it is checked as a throwaway snippet whose approved
output is empty, run after the namespace the test suite gives fences (``conftest.py``).
"""

from __future__ import annotations

import argparse
import inspect
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from snippet_runner import pythons
from snippet_runner.checking.engine import Engine
from snippet_runner.errors import SetupError, SnippetError
from snippet_runner.project import Project

FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<info>[^`\n]*)$")
SAME, DIFFERS, ERROR = "same", "differs", "error"


def fences(page: Path, shown: str) -> list[tuple[str, str, str]]:
    """``(page:line, fence kind, code)`` for each python fence pytest-markdown-docs would run:
    ```` ```python ```` or ```` ```{.python} ````, not marked ``notest`` (fences inside
    admonitions and tabs included, un-indented)."""
    found = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        match = FENCE_OPEN.match(lines[index])
        if not match:
            index += 1
            continue
        indent, fence, info = match["indent"], match["fence"], match["info"].strip()
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        words = re.findall(r"[\w.-]+", info)
        language = words[0].lstrip(".") if words else ""
        if language in ("python", "py") and "notest" not in words and "continuation" not in words:
            body = "\n".join(
                line[len(indent) :] if line.startswith(indent) else line for line in lines[index + 1 : end]
            )
            found.append((f"{shown}:{index + 1}", language, body + "\n"))
        index = end + 1
    return found


def fence_namespace(root: Path) -> str:
    """The code that builds what a fence may use: ``pytest_markdown_docs_globals`` of the project's
    ``conftest.py`` (the test suite's, so it is read from its file, not imported as a module of
    this package); nothing when the project has none."""
    import importlib.util

    path = Path(root) / "conftest.py"
    if not path.is_file():
        return ""
    loader = importlib.util.spec_from_file_location("_fence_conftest", path)
    if loader is None or loader.loader is None:
        return ""
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    make = getattr(module, "pytest_markdown_docs_globals", None)
    if make is None:
        return ""
    return inspect.getsource(make) + "\nglobals().update(pytest_markdown_docs_globals())\n"


def _verdict(engine: Engine, rel: str) -> tuple[str, str]:
    try:
        outcome = engine.run(rel)
    except SetupError:
        raise  # nothing can run: reported once, by verify()
    except SnippetError as error:
        detail = f"\n{error.detail}" if error.detail else ""
        return ERROR, f"{error.message}{detail}"
    if outcome.verdict is not None and outcome.verdict.approved:
        builds = outcome.verdict.builds
        return SAME, f"names the torch build it ran under: {builds}" if builds else ""
    return DIFFERS, outcome.verdict.diff if outcome.verdict is not None else ""


def verify(project: Project, python: str | None, out=sys.stdout) -> int:
    """Both kinds run at once: the fences' worker imports torch while the examples run."""
    started = time.perf_counter()
    interpreter = python or sys.executable
    rels = list(project.shown())
    folder = Path(tempfile.mkdtemp(prefix="verify-fences-"))
    engines = []
    try:
        fenced = _write_fences(project, folder)
        engines.append(project.engine(approval="warn", cached=False, python=interpreter))
        engines[0].prefetch(rels)
        if fenced:
            engines.append(
                Engine(
                    folder, None, approval_mode="warn", preload=project.preload, shown_as="fences", python=interpreter
                )
            )
            engines[1].prefetch(list(fenced))
        results = []
        for rel in rels:
            results.append((f"{project.snippets_name}/{rel}", *_verdict(engines[0], rel)))
            _line(out, *results[-1])
        for rel, where in fenced.items():
            results.append((f"{where} (code fence)", *_verdict(engines[1], rel)))
            _line(out, *results[-1])
    except SetupError as error:
        print(f"verify: nothing can run under {interpreter}: {error.message}", file=out)
        return 2
    finally:
        for engine in engines:
            engine.close()
        shutil.rmtree(folder, ignore_errors=True)
    counts = {name: sum(1 for _, v, _ in results if v == name) for name in (SAME, DIFFERS, ERROR)}
    named = sum(1 for _, v, detail in results if v == SAME and detail)
    print(
        f"verify: {len(results)} checked under {interpreter} in {time.perf_counter() - started:.1f} s"
        + (f" ({named} naming the torch build it ran under)" if named else "")
        + f": {counts[SAME]} same, {counts[DIFFERS]} differ, {counts[ERROR]} errors",
        file=out,
    )
    return 0 if counts[SAME] == len(results) else 1


def _write_fences(project: Project, folder: Path) -> dict[str, str]:
    """Each fence as a throwaway snippet in ``folder`` with an empty approved output:
    ``{rel: page:line}``. The fence's own lines come last, after the namespace's code."""
    preamble = fence_namespace(project.root)
    found = [f for page in project.pages() for f in fences(page, project.shown_path(page))]
    names = {}
    for number, (where, _, code) in enumerate(found, start=1):
        rel = f"fences/fence_{number}.py"
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(preamble + code, encoding="utf-8")
        path.with_suffix(".out").write_text("", encoding="utf-8")
        names[rel] = where
    return names


def _line(out, name: str, verdict: str, detail: str) -> None:
    print(f"{verdict:<8}{name}", file=out)
    if detail:
        for text in detail.rstrip("\n").splitlines():
            print(f"        {text}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m snippet_runner verify",
        description="Run every example and code fence here and compare it with the approved output.",
    )
    parser.add_argument("--config-file", type=Path, default=Path("mkdocs.yml"))
    parser.add_argument(
        "--python",
        help="run the examples under this interpreter (it needs torch and numpy), such as a conda env's python",
    )
    args = parser.parse_args(argv)
    if args.python and shutil.which(args.python) is None and not Path(args.python).is_file():
        print(f"verify: {args.python} is not an interpreter found on PATH or on disk", file=sys.stderr)
        return 2
    try:
        project = Project.load(args.config_file)
    except SnippetError as error:
        print(f"verify: {error}", file=sys.stderr)
        return 2
    refused = pythons.unusable(args.python or sys.executable, project.preload)
    if refused:
        print(f"verify: {refused}", file=sys.stderr)
        return 2
    return verify(project, args.python)


if __name__ == "__main__":
    sys.exit(main())
