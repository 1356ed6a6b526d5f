"""``make verify``: every example and ``python`` code fence, run fresh on the reader's own machine.

Prints ``same``, ``close``, ``differs`` or ``error`` for each and exits 1 unless all are the same
or close; no site, no browser. ``close`` only with ``--rtol R``: its numbers differ, each within a
relative tolerance R of the approved one (a GPU, Apple silicon or another BLAS moves last digits). ``--python`` runs them under another interpreter with torch and numpy (one that cannot
run them is refused once: :mod:`snippet_runner.pythons`). The comparison is the engine's (``warn``
mode), forgiving only what the build forgives. A fence prints nothing on the page, so it runs as a
snippet whose approved output is empty, after the namespace ``conftest.py`` gives fences.
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
from snippet_runner.checking.comparison import CLOSE, DIFFERS, SAME
from snippet_runner.checking.engine import Engine
from snippet_runner.errors import SetupError, SnippetError
from snippet_runner.markdown.run_lines import fenced_blocks
from snippet_runner.project import Project

ERROR = "error"


def fences(page: Path, shown: str) -> list[tuple[str, str, str]]:
    """``(page:line, fence kind, code)`` for each python fence pytest-markdown-docs would run, un-indented;
    a fence closes only at its own opening's backticks, as the fences of this project are written."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found = []
    for opened, start, end in fenced_blocks(lines, closes=lambda fence, line: line.strip() == fence):
        words = re.findall(r"[\w.-]+", opened["info"])
        language = words[0].lstrip(".") if words and opened["fence"][0] == "`" else ""
        if language in ("python", "py") and "notest" not in words and "continuation" not in words:
            code = "\n".join(line.removeprefix(opened["indent"]) for line in lines[start + 1 : end])
            found.append((f"{shown}:{start + 1}", language, code + "\n"))
    return found


def fence_namespace(root: Path) -> str:
    """``pytest_markdown_docs_globals`` of the project's ``conftest.py``, read from its file."""
    import runpy

    path = Path(root) / "conftest.py"
    make = runpy.run_path(str(path)).get("pytest_markdown_docs_globals") if path.is_file() else None
    return "" if make is None else inspect.getsource(make) + "\nglobals().update(pytest_markdown_docs_globals())\n"


def _verdict(engine: Engine, rel: str) -> tuple[str, str]:
    try:
        outcome = engine.run(rel)
    except SetupError:
        raise  # nothing can run: reported once, by verify()
    except SnippetError as error:
        return ERROR, error.message + (f"\n{error.detail}" if error.detail else "")
    verdict = outcome.verdict
    if verdict is None:
        return DIFFERS, ""
    if verdict.kind == SAME and verdict.builds:
        return SAME, f"names the torch build it ran under: {verdict.builds}"
    return verdict.kind, "" if verdict.kind == SAME else verdict.diff


def verify(project: Project, python: str | None, out=sys.stdout, rtol: float = 0.0) -> int:
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
        checks = [(f"{project.snippets_name}/{rel}", engines[0], rel) for rel in rels]
        checks += [(f"{where} (code fence)", engines[-1], rel) for rel, where in fenced.items()]
        results = []
        for engine in engines:
            engine.rtol = rtol
        for name, engine, rel in checks:
            verdict, detail = _verdict(engine, rel)
            results.append((name, verdict, detail))
            print(f"{verdict:<8}{name}", file=out)
            for text in detail.rstrip("\n").splitlines():
                print(f"        {text}", file=out)
    except SetupError as error:
        print(f"verify: nothing can run under {interpreter}: {error.message}", file=out)
        return 2
    finally:
        for engine in engines:
            engine.close()
        shutil.rmtree(folder, ignore_errors=True)
    counts = {name: sum(1 for _, v, _ in results if v == name) for name in (SAME, CLOSE, DIFFERS, ERROR)}
    named = sum(1 for _, v, detail in results if v == SAME and detail)
    print(
        f"verify: {len(results)} checked under {interpreter} in {time.perf_counter() - started:.1f} s"
        + (f" ({named} naming the torch build it ran under)" if named else "")
        + f": {counts[SAME]} same, {counts[CLOSE]} close{f' (rtol {rtol:g})' if rtol else ''}, {counts[DIFFERS]} differ,"
        f" {counts[ERROR]} errors",
        file=out,
    )
    return 0 if counts[SAME] + counts[CLOSE] == len(results) else 1


def _write_fences(project: Project, folder: Path) -> dict[str, str]:
    """Each fence as a throwaway snippet with an empty approved output: ``{rel: page:line}``."""
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
    parser.add_argument(
        "--rtol",
        type=float,
        default=0.0,
        help="pass, as 'close', an output whose numbers each lie within this relative tolerance of the approved ones",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.rtol < 1:
        print(f"verify: --rtol must be at least 0 and below 1, not {args.rtol}", file=sys.stderr)
        return 2
    if args.python and shutil.which(args.python) is None and not Path(args.python).is_file():
        print(f"verify: {args.python} is not an interpreter found on PATH or on disk", file=sys.stderr)
        return 2
    try:
        project = Project.load(args.config_file)
    except SnippetError as error:
        print(f"verify: {error}", file=sys.stderr)
        return 2
    if refused := pythons.unusable(args.python or sys.executable, project.preload):
        print(f"verify: {refused}", file=sys.stderr)
        return 2
    return verify(project, args.python, rtol=args.rtol)


if __name__ == "__main__":
    sys.exit(main())
