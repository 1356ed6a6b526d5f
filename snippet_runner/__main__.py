"""Command line: ``python -m snippet_runner {site,serve,accept}``; the Makefile's targets call these."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from snippet_runner.checking import approved
from snippet_runner.errors import SnippetError
from snippet_runner.project import Project

# Two fresh runs per snippet, in two workers whose hash seeds differ: an output that is not the same
# both times (an unseeded random number, a set's order, a timing) is refused, not approved.
HASH_SEEDS = ("1", "2")


def accept(project: Project, only: list[str]) -> int:
    """Run every shown snippet twice, fresh, and write its output as the approved one if both
    runs printed the same."""
    shown = project.shown()
    rels = only or list(shown)
    engines = [
        project.engine(approval="warn", cached=False, worker_env={"PYTHONHASHSEED": seed}) for seed in HASH_SEEDS
    ]
    changed = failed = 0
    try:
        for engine in engines:
            engine.prefetch(rels)
        for rel in rels:
            try:
                first, second = (engine.run(rel) for engine in engines)
                if first.output != second.output:
                    raise SnippetError(
                        first.snippet.loc(),
                        "printed something different in two fresh runs, so its output cannot be approved;"
                        " seed what is random (torch.manual_seed), sort what is unordered, print no timings",
                        detail=_two_runs(first.output, second.output),
                    )
                drawn = [approved.pictures_text(outcome.pictures) for outcome in (first, second)]
                if drawn[0] != drawn[1]:
                    raise SnippetError(
                        first.snippet.loc(),
                        "showed different pictures in two fresh runs, so they cannot be approved;"
                        " seed what is random (torch.manual_seed) before computing what they show",
                        detail=_two_runs(*drawn),
                    )
            except SnippetError as error:
                pages = ", ".join(shown.get(rel, [])) or "no page"
                print(f"FAILED  {error}  (included by {pages})", file=sys.stderr)
                failed += 1
                continue
            if approved.write(first.snippet.expected_output_path, first.output):
                changed += 1
                print(f"updated {first.snippet.approved_name}")
            if approved.write_pictures(first.snippet.expected_pictures_path, drawn[0]):
                changed += 1
                print(f"updated {first.snippet.approved_pictures_name}")
    finally:
        for engine in engines:
            engine.close()
    print(f"accept: {len(rels)} snippets, {changed} outputs updated, {failed} failed")
    for rel in project.snippet_files():
        if rel not in shown:
            print(f"note: {project.snippets_name}/{rel} is not included by any page")
    return 1 if failed else 0


def _two_runs(first: str, second: str) -> str:
    lines = difflib.unified_diff(
        first.splitlines(keepends=True), second.splitlines(keepends=True), "first run", "second run"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def serve(config: Path, mkdocs_args: list[str]) -> int:
    """``mkdocs serve`` for authors: every page as ``make site`` builds it, but not the print page
    (the PDF's source, which only ``make site`` prints): combining every page into it costs 0.6 s
    of each rebuild, a third of the time between saving a file and seeing it. Set
    ``SNIPPETS_PRINT_PAGE=true`` to preview it anyway.

    And ``--dirty``: after an edit MkDocs renders again only the pages that changed, and the
    plugin (``_forget_changed_pages``) adds those whose snippets' results changed, and all of them
    when a setting, the theme or the drift records did; Material's search merges the new entries."""
    import os

    from mkdocs.__main__ import cli

    os.environ.setdefault("SNIPPETS_PRINT_PAGE", "false")
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    return cli.main(args=["serve", "--dirty", "--config-file", str(config.resolve()), *mkdocs_args], prog_name="mkdocs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippet_runner")
    parser.add_argument("--config-file", type=Path, default=Path("mkdocs.yml"))
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("site", help="build site/ atomically (keeps the old site if the build fails)")
    build.add_argument("--site-dir", type=Path, default=Path("site"))
    build.add_argument("--force", action="store_true", help="build even if nothing changed since the last build")
    sub.add_parser(
        "serve",
        help="mkdocs serve (other options are passed on), without the print page: only `make site` prints the PDF",
    )
    approve = sub.add_parser("accept", help="re-run snippets and approve their outputs")
    approve.add_argument("snippets", nargs="*", help="paths relative to the snippets folder (default: all shown)")
    args, passed_on = parser.parse_known_args(argv)
    if args.command == "serve":
        return serve(args.config_file, passed_on)
    if passed_on:
        parser.error(f"unrecognized arguments: {' '.join(passed_on)}")
    if args.command == "site":
        from snippet_runner.site import build

        return build.main(args.config_file, args.site_dir, force=args.force)
    try:
        project = Project.load(args.config_file)
    except SnippetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return accept(project, args.snippets)


if __name__ == "__main__":
    sys.exit(main())
