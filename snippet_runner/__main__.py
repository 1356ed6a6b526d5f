"""Command line: ``python -m snippet_runner {site,accept}``; the Makefile's targets call these."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from snippet_runner import site
from snippet_runner.errors import SnippetError
from snippet_runner.project import Project


def accept(project: Project, only: list[str]) -> int:
    """Run every shown snippet fresh and write its output as the approved one."""
    shown = project.shown()
    rels = only or list(shown)
    engine = project.engine(approval="accept")
    changed = failed = 0
    try:
        engine.prefetch(rels)
        for rel in rels:
            try:
                outcome = engine.run(rel)
            except SnippetError as error:
                pages = ", ".join(shown.get(rel, [])) or "no page"
                print(f"FAILED  {error}  (included by {pages})", file=sys.stderr)
                failed += 1
                continue
            if outcome.verdict.changed:
                changed += 1
                print(f"updated {outcome.snippet.approved_name}")
    finally:
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
    approve = sub.add_parser("accept", help="re-run snippets and approve their outputs")
    approve.add_argument("snippets", nargs="*", help="paths relative to the snippets folder (default: all shown)")
    args = parser.parse_args(argv)
    try:
        project = Project.load(args.config_file)
    except SnippetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.command == "site":
        return site.build(project, args.site_dir, args.config_file)
    return accept(project, args.snippets)


if __name__ == "__main__":
    sys.exit(main())
