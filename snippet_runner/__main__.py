"""Command line: ``python -m snippet_runner {init,site,serve,accept,verify}``; a Makefile's targets may call these."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snippet_runner.project import Project

# Each command imports what it needs when it runs: `make site` with nothing changed reads no MkDocs settings.


def accept(project: Project, only: list[str]) -> int:
    """``make accept``: approve every shown snippet (or those named) from two fresh runs that agree."""
    from snippet_runner.checking.accept import HASH_SEEDS, approve

    shown = project.shown()
    rels = only or list(shown)
    engines = [project.engine(approval="warn", cached=False, worker_env={"PYTHONHASHSEED": s}) for s in HASH_SEEDS]
    changed = failed = 0
    try:
        for approval in approve(engines[0], engines[1], rels):
            if approval.error is not None:
                pages = ", ".join(shown.get(approval.rel, [])) or "no page"
                print(f"FAILED  {approval.error}  (included by {pages})", file=sys.stderr)
                failed += 1
            for name in approval.updated:
                changed += 1
                print(f"updated {name}")
    finally:
        for engine in engines:
            engine.close()
    print(f"accept: {len(rels)} snippets, {changed} outputs updated, {failed} failed")
    for rel in project.snippet_files():
        if rel not in shown:
            print(f"note: {project.snippets_name}/{rel} is not included by any page")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippet_runner")
    parser.add_argument("--config-file", type=Path, default=Path("mkdocs.yml"))
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("site", help="build site/ atomically (keeps the old site if the build fails)")
    build.add_argument("--site-dir", type=Path, default=Path("site"))
    build.add_argument("--force", action="store_true", help="build even if nothing changed since the last build")
    sub.add_parser(
        "serve",
        help="mkdocs serve --dirty, without the print page (only `site` prints the PDF); other options go to mkdocs serve",
        add_help=False,  # `serve --help` is mkdocs serve's own, which lists every option
    )
    sub.add_parser("init", help="write a starter project (mkdocs.yml, a page, an example, .gitignore) here")
    approve = sub.add_parser("accept", help="re-run snippets and approve their outputs")
    approve.add_argument("snippets", nargs="*", help="paths relative to the snippets folder (default: all shown)")
    # verify's options (--python, --rtol, -h) are its own parser's (verify.py)
    sub.add_parser("verify", add_help=False, help="run every example and code fence and compare with the approved")
    args, passed_on = parser.parse_known_args(argv)
    if args.command == "verify":
        from snippet_runner import verify

        return verify.main(["--config-file", str(args.config_file), *passed_on])
    if args.command == "serve":
        # `mkdocs serve --dirty` for authors (serving.py), without the print page, which would slow every
        # rebuild and only `site` prints (the plugin leaves it out; SNIPPETS_PRINT_PAGE=true shows it)
        from mkdocs.__main__ import cli

        os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
        config = str(args.config_file.resolve())
        return cli.main(args=["serve", "--dirty", "--config-file", config, *passed_on], prog_name="mkdocs")
    if args.command == "init" and not passed_on:
        from snippet_runner import starter

        return starter.main(Path.cwd())
    if passed_on:
        parser.error(f"unrecognized arguments: {' '.join(passed_on)}")
    if args.command == "site":
        from snippet_runner.site import build as site_build

        return site_build.main(args.config_file, args.site_dir, force=args.force)
    from snippet_runner.errors import SnippetError
    from snippet_runner.project import Project

    try:
        project = Project.load(args.config_file)
    except SnippetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return accept(project, args.snippets)


if __name__ == "__main__":
    sys.exit(main())
